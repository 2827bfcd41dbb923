"""Input checks shared by every dpteach module.

Every public function validates its inputs through these helpers, so a bad
argument always produces the same kind of message: the parameter's name, the
value that was passed and the range that is valid. Nothing fails silently.
"""

from __future__ import annotations

import math
import numbers
import sys

import numpy as np

__all__ = [
    "check_epsilon",
    "check_delta",
    "check_positive",
    "check_finite_scalar",
    "check_probability",
    "check_int",
    "check_finite_array",
    "check_labels",
    "check_bits",
    "check_same_length",
    "check_choice",
    "check_flag",
    "check_callable",
    "check_instance",
    "check_sequence",
    "as_rng",
    "scalar_or_array",
    "check_positive_array",
    "check_epsilon_array",
    "check_count_array",
    "check_representable",
    "check_unit_interval",
    "check_epsilon_sweep",
    "check_sizes",
    "check_size",
    "check_sweep",
    "check_memory",
    "check_work",
    "check_second_moments",
    "computed",
    "check_normal_double",
    "SMALLEST_NORMAL",
    "MAX_MEMORY_BYTES",
    "MAX_WORK",
]


def _as_real(value, name):
    """Return ``value`` as a Python float, or raise TypeError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return _as_real(value.item(), name)
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}")
    return float(value)


#: The smallest normal double (2.2250738585072014e-308). A privacy parameter below it but > 0 is subnormal: it
#: carries fewer than 53 significant bits, and the scales it enters overflow (1/5e-324 = inf, so Lap(Δ/ε) releases
#: ±inf) or divide by zero (ln(1/δ) with δ·x rounding to 0). ε and δ are refused there, by name.
SMALLEST_NORMAL = sys.float_info.min


def _refuse_subnormal(value, name, original, valid):
    if 0 < value < SMALLEST_NORMAL:
        raise ValueError(f"{name} = {original!r} is subnormal (below the smallest normal float "
                         f"{SMALLEST_NORMAL!r}), where the noise scale overflows (valid range: {valid})")


def check_epsilon(epsilon, name="epsilon", allow_inf=False):
    """Return ``epsilon`` as a float after checking 0 < epsilon < inf, epsilon not subnormal.

    ``allow_inf=True`` also accepts ``math.inf``, for the functions that
    document ε = inf as their non-private reference path (ERM, the exact statistic).
    """
    value = _as_real(epsilon, name)
    if allow_inf and value == math.inf:
        return value
    if not (math.isfinite(value) and value > 0):
        if allow_inf:
            raise ValueError(f"{name} must be > 0 (valid range: 0 < {name} <= inf, inf being the non-private "
                             f"reference), got {epsilon!r}")
        raise ValueError(f"{name} must be finite and > 0 (valid range: 0 < {name} < inf), got {epsilon!r}")
    _refuse_subnormal(value, name, epsilon, f"{SMALLEST_NORMAL!r} <= {name} <{'=' if allow_inf else ''} inf")
    return value


def check_delta(delta, name="delta", allow_zero=True):
    """Return ``delta`` as a float after checking 0 <= delta < 1 (or 0 < delta < 1), delta not subnormal."""
    value = _as_real(delta, name)
    low_ok = value >= 0 if allow_zero else value > 0
    if not (math.isfinite(value) and low_ok and value < 1):
        valid = f"0 <= {name} < 1" if allow_zero else f"0 < {name} < 1"
        raise ValueError(f"{name} must satisfy {valid}, got {delta!r}")
    _refuse_subnormal(value, name, delta, f"{name} = 0 or {SMALLEST_NORMAL!r} <= {name} < 1" if allow_zero
                      else f"{SMALLEST_NORMAL!r} <= {name} < 1")
    return value


def check_positive(value, name, allow_zero=False):
    """Return ``value`` as a float after checking it is finite and > 0 (or >= 0)."""
    x = _as_real(value, name)
    ok = x >= 0 if allow_zero else x > 0
    if not (math.isfinite(x) and ok):
        valid = f"0 <= {name} < inf" if allow_zero else f"0 < {name} < inf"
        raise ValueError(f"{name} must be finite and {'>= 0' if allow_zero else '> 0'} "
                         f"(valid range: {valid}), got {value!r}")
    return x


def check_finite_scalar(value, name):
    """Return ``value`` as a float after checking it is one finite real number, of either sign.

    For a hypothesised answer, an output or an offset, where 0 and negative
    values are as valid as positive ones. ``None``, booleans, strings and arrays
    with a dimension raise a TypeError naming ``name`` (``float("1")`` would
    otherwise accept a string); NaN and ±inf raise a ValueError naming it.
    """
    valid = f"a finite real number (valid range: -inf < {name} < inf)"
    try:
        x = _as_real(value, name)
    except TypeError:
        raise TypeError(f"{name} must be {valid}, got {value!r} of type {type(value).__name__}") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be {valid}, got {value!r}")
    return x


def check_probability(value, name, low_open=True, high_open=True):
    """Return ``value`` as a float after checking it lies in (0, 1) (ends configurable)."""
    x = _as_real(value, name)
    low_ok = x > 0 if low_open else x >= 0
    high_ok = x < 1 if high_open else x <= 1
    if not (math.isfinite(x) and low_ok and high_ok):
        interval = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return x


def check_int(value, name, minimum=None, maximum=None):
    """Return ``value`` as an int after checking it is an integer within [minimum, maximum]."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r} of type {type(value).__name__}")
    v = int(value)
    if (minimum is not None and v < minimum) or (maximum is not None and v > maximum):
        low = "-inf" if minimum is None else str(minimum)
        high = "inf" if maximum is None else str(maximum)
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r}")
    return v


def _describe(x):
    """A short description of a bad argument for an error message: a scalar's repr, an array's shape and dtype.

    Messages name the value, but never embed the repr of a whole data set (hundreds of lines for 400 rows).
    """
    if isinstance(x, (list, tuple)) and len(x) > 8:
        x = np.asarray(x, dtype=object)
    if isinstance(x, np.ndarray) and x.ndim > 0:
        first = x.ravel()[0].item() if x.size and x.dtype.kind != "O" else (x.ravel()[0] if x.size else None)
        return f"an array of shape {x.shape} and dtype {x.dtype}" + (f" (first entry {first!r})" if x.size else "")
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


# dtype kinds that hold real numbers: signed and unsigned integers, floats. Strings ('U', 'S'), objects
# ('O'), booleans ('b'), complex ('c') and dates are refused: ``np.asarray(["0.5"], dtype=float)`` would
# read a string as a number and ``True`` as 1.0, which the stated rule forbids.
_REAL_KINDS = "iuf"


def _as_real_array(x, name):
    """Return ``x`` as a float ndarray, or raise TypeError naming ``name`` if it does not hold real numbers."""
    kind = "U" if isinstance(x, (str, bytes)) else "b" if isinstance(x, (bool, np.bool_)) else None
    if kind is None and isinstance(x, numbers.Real):  # a Python int beyond int64 (|H| = 2**100) is object to numpy
        kind = "f"
    if kind is None:
        try:
            kind = np.asarray(x).dtype.kind
        except (TypeError, ValueError):  # a ragged nested sequence
            kind = "O"
    if kind not in _REAL_KINDS:
        raise TypeError(f"{name} must be an array of real numbers or one real number (not strings, booleans or "
                        f"objects), got {_describe(x)}")
    return np.asarray(x, dtype=float)


def check_finite_array(x, name, ndim=None, nonempty=True, shape=None):
    """Return ``x`` as a float ndarray after checking type, dimension, emptiness and finiteness.

    ``ndim`` may be an int or a tuple of allowed dimensions; ``shape`` may
    contain ``None`` for free axes. Strings, booleans and objects (an entry
    ``None``) raise a TypeError naming ``name``: only integer and float
    arrays (or lists of numbers) hold real numbers.
    """
    arr = _as_real_array(x, name)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise ValueError(f"{name} must have {' or '.join(map(str, allowed))} dimension(s), "
                             f"got an array of shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want}, got {arr.shape}")
    if nonempty and arr.size == 0:
        # scikit-learn's wording for a data set with rows and no column (its checks match it)
        columns = (f": 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required (one column per feature)"
                   if arr.ndim == 2 and len(arr) else "")
        raise ValueError(f"{name} must not be empty, got an array of shape {arr.shape}{columns}")
    if not np.all(np.isfinite(arr)):
        bad = arr[~np.isfinite(arr)].ravel()[0].item()
        raise ValueError(f"{name} must contain only finite values (no NaN or inf), found {bad!r}")
    return arr


def check_labels(y, name="y"):
    """Return ``y`` as a 1-D float array after checking every entry is -1 or +1."""
    arr = check_finite_array(y, name, ndim=1)
    bad = ~np.isin(arr, (-1.0, 1.0))
    if np.any(bad):
        raise ValueError(f"{name} must contain only labels -1 and +1, found {arr[bad][0].item()!r} "
                         f"(at index {int(np.flatnonzero(bad)[0])})")
    return arr


def check_bits(bits, name="bits", ndim=None):
    """Return ``bits`` as a bool ndarray after checking every entry is 0/1 or False/True (and its ``ndim``)."""
    arr = np.asarray(bits)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got an array of shape {arr.shape}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got an array of shape {arr.shape}")
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind not in _REAL_KINDS:  # "1" and "0" as strings are text, not bits
        raise TypeError(f"{name} must contain bits (0/1 or booleans), got {_describe(bits)}")
    as_float = arr.astype(float)
    bad = ~np.isin(as_float, (0.0, 1.0))
    if np.any(bad):
        raise ValueError(f"{name} must contain only 0 and 1 (or booleans), found {as_float[bad][0].item()!r}")
    return as_float.astype(bool)


def check_same_length(a, b, name_a="X", name_b="y", what="number of samples"):
    """Raise ValueError unless ``a`` and ``b`` have the same number of rows (``what`` they count, for the message)."""
    if len(a) != len(b):
        raise ValueError(f"{name_a} and {name_b} must have the same {what}, got {len(a)} and {len(b)}")


def check_flag(value, name):
    """Return ``value`` as a bool after checking it is True or False (numpy's too): 1, "yes" or None are refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_choice(value, name, choices):
    """Raise ValueError unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def check_callable(value, name, signature):
    """Return ``value`` if it is callable; else a TypeError naming ``name`` and the expected ``signature``.

    A mechanism, an event or an algorithm passed as None or a string otherwise fails where it is first
    called, with "'NoneType' object is not callable", which names no parameter.
    """
    if not callable(value):
        raise TypeError(f"{name} must be a callable {signature}, got {value!r} of type {type(value).__name__}")
    return value


def check_instance(value, name, types, what):
    """Return ``value`` if it is an instance of ``types``; else a TypeError naming ``name`` and ``what`` it must be.

    An oracle, a randomizer or a cover passed as None or a string otherwise fails deep inside, with an
    AttributeError that names no parameter.
    """
    if not isinstance(value, types):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}")
    return value


def check_sequence(values, name, what, nonempty=False, check_entry=None):
    """Return ``values`` as a list after checking it is a sequence (not None, a number or a string) of ``what``.

    ``nonempty``: at least one entry; ``check_entry(value, name)``: each entry's own check, naming it ``name[j]``.
    """
    if values is None or isinstance(values, (str, bytes, numbers.Number)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a sequence of {what}, got {_describe(values)}")
    values = list(values)
    if nonempty and not values:
        raise ValueError(f"{name} must be a non-empty sequence of {what}, got an empty one")
    return values if check_entry is None else [check_entry(v, f"{name}[{j}]") for j, v in enumerate(values)]


def as_rng(rng, name="rng"):
    """Return a ``numpy.random.Generator`` from ``None``, an int seed >= 0, a SeedSequence or a Generator.

    A Generator is passed through unchanged, so a caller can thread one stream
    through several functions; ``None`` gives fresh OS entropy. Anything else
    (``True``, a float, a string, a negative seed) raises an error naming
    ``rng``: numpy would otherwise accept ``True`` as the seed 1, or fail with
    a message that never says which argument was wrong.
    """
    if rng is None or isinstance(rng, (np.random.Generator, np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(rng)
    if isinstance(rng, bool) or not isinstance(rng, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be None, an int seed >= 0 or a numpy.random.Generator, "
                        f"got {rng!r} of type {type(rng).__name__}")
    if rng < 0:
        raise ValueError(f"{name} must be an int seed >= 0 (valid range: 0 <= {name} < inf), got {rng!r}")
    return np.random.default_rng(int(rng))


def scalar_or_array(value, as_int=False):
    """Return a 0-d result as a Python float (or int), and an array result unchanged.

    The bounds and data helpers accept scalars or arrays (for plotting); this
    is the one place that turns their numpy result back into the caller's kind.
    ``as_int=True`` rounds up (a sample size): a scalar becomes an exact Python
    int however large (``math.inf`` if the bound is infinite), and an array an
    int64 array, or a float array of whole numbers where int64 would wrap
    around to a negative number.
    """
    if value is None:  # np.asarray(None, dtype=float) is NaN: a missing result must not pass as a number
        raise TypeError("value must be a number or an array of numbers, got None")
    value = np.asarray(value, dtype=float)
    if as_int:
        value = np.ceil(value)
        if value.ndim == 0:
            return int(value) if math.isfinite(value) else math.inf
        if np.all(np.isfinite(value)) and np.all(np.abs(value) < 2.0 ** 62):
            return value.astype(np.int64)
        return value
    return float(value) if value.ndim == 0 else value


def check_positive_array(values, name, allow_zero=False, maximum=None, include_maximum=False):
    """Return ``values`` as a float ndarray after checking every entry is finite and > 0 (or >= 0).

    For the rate functions of ``dpteach.bounds``, which take a scalar or an
    array of n, m or τ for plotting. Strings and booleans are refused like a
    scalar would be. ``maximum``: every entry also < maximum (<= with
    ``include_maximum``), an accuracy α in (0, 1) or OPT in [0, 1/2].
    """
    arr = _as_real_array(values, name)
    ok = (arr >= 0) if allow_zero else (arr > 0)
    if arr.size == 0 or not np.all(np.isfinite(arr) & ok):
        valid = f"0 <= {name} < inf" if allow_zero else f"0 < {name} < inf"
        bad = values if arr.ndim == 0 or arr.size == 0 else arr[~(np.isfinite(arr) & ok)].ravel()[0].item()
        raise ValueError(f"{name} must be finite and {'>= 0' if allow_zero else '> 0'} "
                         f"(valid range: {valid}), got {_describe(bad)}")
    if maximum is not None and np.any(arr > maximum if include_maximum else arr >= maximum):
        interval = f"{'[' if allow_zero else '('}0, {maximum}{']' if include_maximum else ')'}"
        raise ValueError(f"{name} must lie in {interval}, got {_describe(values)}")
    return arr


def check_count_array(values, name, allow_zero=False, minimum=None, whole=False):
    """:func:`check_positive_array` for a count (n, m, d, |H|): a scalar must be a whole number.

    A scalar ``n = 2.5`` raises a ValueError naming ``name``; a whole float
    (``1e4``, or |H| = 2.0**100, which overflows no int) is accepted. An
    *array* is the x-axis of a plotted rate (``np.logspace(1, 4, 200)``),
    along which the closed form is evaluated as a function of a real
    variable, so its entries may be fractional. ``minimum``: every entry >= it
    (the M >= 1 hypotheses of a packing). ``whole``: an array's entries must be
    whole too (a number of bits d, where 2^d is only defined for whole d).
    """
    arr = check_positive_array(values, name, allow_zero=allow_zero)
    if arr.ndim == 0 and not float(arr).is_integer():
        raise ValueError(f"{name} must be an integer (a count; fractional values only on a plotted array axis), "
                         f"got {values!r}")
    if whole and np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must be a positive integer (or an array of them), got {_describe(values)}")
    if minimum is not None and np.any(arr < minimum):
        raise ValueError(f"{name} must be >= {minimum} (valid range: {minimum} <= {name} < inf), "
                         f"got {_describe(values)}")
    return arr


def check_representable(value, quantity, valid, **given):
    """Return ``value`` if it is finite; else a ValueError naming the parameters ``given`` (name=value) that made it so.

    For an extreme but valid input (α = 1e-300, ε = 1e300) under which a
    derived quantity (a degree, a grid, a sample size) exceeds the largest
    float: the call cannot run, and the message says which parameter, at
    which value, and what range ``valid`` works, instead of a raw
    OverflowError / ZeroDivisionError / numpy size error.
    """
    if math.isfinite(value):
        return value
    names = " and ".join(f"{key} = {val!r}" for key, val in given.items())
    raise ValueError(f"{names} make {quantity} larger than the largest float (about 1.8e308), so it cannot be "
                     f"computed or run; valid range: {valid}")


def check_epsilon_array(epsilon, name="epsilon"):
    """Return ``epsilon`` (a scalar or an array, for plotting) as a float ndarray with 0 < ε < inf everywhere."""
    arr = _as_real_array(epsilon, name)
    if arr.size == 0:
        raise TypeError(f"{name} must be a real number or an array of real numbers, got {_describe(epsilon)}")
    values = arr.astype(float).ravel()
    bad = ~(np.isfinite(values) & (values >= SMALLEST_NORMAL))  # one vectorised scan (review S3), not a loop
    if np.any(bad):
        check_epsilon(values[np.argmax(bad)], name)  # the first bad entry, with check_epsilon's own message
    return arr.astype(float)


def check_unit_interval(values, name="values"):
    """Return ``values`` as a float array after checking every entry is finite and in [−1, 1] (a statistical query's range)."""
    arr = check_finite_array(values, name, ndim=None)
    if np.any(np.abs(arr) > 1):
        bad = arr[np.abs(arr) > 1].ravel()[0]
        raise ValueError(f"{name} must lie in [-1, 1] (a query φ: Z → [-1, 1]), found {bad!r}")
    return arr


def check_epsilon_sweep(epsilons, name="epsilons", allow_inf=False):
    """Return a sweep of privacy parameters (a scalar or a non-empty 1-D sequence) as a list of floats.

    Every entry must satisfy 0 < ε < inf; with ``allow_inf=True`` an entry may
    also be ``math.inf``, the non-private reference curve of a runner that
    documents it. Strings, booleans and ``None`` raise a TypeError naming ``name``.
    """
    if epsilons is None or isinstance(epsilons, (str, bytes, bool)):
        raise TypeError(f"{name} must be a privacy parameter or a sequence of them, got {_describe(epsilons)}")
    arr = np.asarray(epsilons, dtype=object) if not isinstance(epsilons, np.ndarray) else epsilons
    if arr.ndim > 1 or arr.size == 0:
        raise ValueError(f"{name} must be a scalar or a non-empty 1-D sequence, got {_describe(epsilons)}")
    values = []
    for value in np.atleast_1d(arr).tolist():
        x = _as_real(value, name)
        if not (x > 0 and (math.isfinite(x) or (allow_inf and x == math.inf))):
            valid = f"0 < {name} <= inf (inf: the non-private reference)" if allow_inf else f"0 < {name} < inf"
            raise ValueError(f"every entry of {name} must satisfy {valid}, got {value!r}")
        _refuse_subnormal(x, f"an entry of {name}", value, f"{SMALLEST_NORMAL!r} <= every entry of {name}")
        values.append(x)
    return values


def check_sizes(values, name, minimum=1):
    """Return a scalar or non-empty 1-D sequence of whole numbers >= ``minimum`` as a list of ints.

    For the sample sizes and dimensions that runners sweep: a fractional
    ``n = 400.5``, a boolean, a string or ``None`` raises an error naming
    ``name`` instead of being truncated by ``int()``. Floats with whole values
    (``1e4``) are accepted.
    """
    if values is None or isinstance(values, (str, bytes, bool)):
        raise TypeError(f"{name} must be an integer or a sequence of integers, got {_describe(values)}")
    arr = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    if arr.ndim > 1 or arr.size == 0:
        raise ValueError(f"{name} must be an integer or a non-empty 1-D sequence of integers, got {_describe(values)}")
    return [check_size(value, name, minimum) for value in np.atleast_1d(arr).tolist()]


def check_sweep(values, name):
    """Return a sweep of real values (a scalar or a non-empty 1-D sequence, all finite) as a list of floats.

    For the η, α or resolution sweeps of the runners; the caller checks each
    entry's range. Strings, booleans, ``None``, NaN/inf, empty or 2-D input
    raise an error naming ``name``.
    """
    if values is None:
        raise TypeError(f"{name} must be a real number or a sequence of them, got None")
    return [float(v) for v in np.atleast_1d(check_finite_array(values, name, ndim=(0, 1)))]


def check_size(value, name, minimum=1, maximum=None):
    """Return one whole number in [minimum, maximum] as an int; a whole float (``1e5``) is accepted, ``400.5`` is not."""
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
        value = int(value)
    return check_int(value, name, minimum=minimum, maximum=maximum)


# --- size limits (issue 17 R2, issue 18): refuse up front a call that cannot finish --------------
#
# A size's cost is known before any work starts: an (n, d) float array needs 8·n·d bytes, n_reps
# repetitions of an n-point experiment touch at least n_reps·n entries. A size of 10**18 used to
# hang for minutes or die in a numpy MemoryError that never said which argument was too big. Every
# entry point that allocates or loops over its sizes instead calls :func:`check_memory` or
# :func:`check_work` with the factors it is about to multiply, right after validating them, and the
# call is refused by name, with the limit and the largest value that would pass. Closed-form
# functions (a bound evaluated at n = 10**18) allocate nothing and do not call these.

MAX_MEMORY_BYTES = 4 * 2 ** 30
"""Memory budget of one call: the arrays it would allocate, 4 GiB (a laptop's share, not a server's)."""

MAX_WORK = 10 ** 11
"""Work budget of one call, in elementary steps (array entries drawn or computed, loop iterations):
about 10 to 20 minutes of numpy at 10⁸ entries per second; the book's runs use below 10⁹."""


def _budget_refusal(factors, need, limit, per_item, described, constant, unit):
    """The ValueError for ``factors`` (``(name, value)`` pairs) whose cost ``need`` exceeds ``limit``.

    It names every factor with its value, the cost, the limit and the module constant that holds it,
    and the largest value of the biggest factor that fits with the others unchanged.
    """
    spelled = ", ".join(f"{name}={value}" for name, value in factors)
    formula = " × ".join([str(per_item)] * (per_item != 1) + [name for name, _ in factors])
    biggest = max(range(len(factors)), key=lambda i: factors[i][1])
    culprit = factors[biggest][0]
    others = per_item * math.prod(v for i, (_, v) in enumerate(factors) if i != biggest)
    largest = limit // max(others, 1)
    advice = (f"use {culprit} <= {largest}" if largest >= 1
              else f"lower {' or '.join(n for i, (n, _) in enumerate(factors) if i != biggest)}")
    return ValueError(f"{spelled} would need ~{described(need)} ({formula} {unit}); the limit is "
                      f"{described(limit)} (dpteach._validation.{constant}); {advice}")


def _factors(factors):
    """``factors`` as a list of (name, int >= 0) pairs (already validated by the caller)."""
    pairs = [(str(name), int(value)) for name, value in factors]
    if any(value < 0 for _, value in pairs):
        raise ValueError(f"sizes must be >= 0 here, got {pairs}; validate them first")
    return pairs


def check_memory(*factors, itemsize=8):
    """Refuse, before allocating, arrays of ∏ values entries of ``itemsize`` bytes beyond :data:`MAX_MEMORY_BYTES`.

    ``factors`` are ``(name, value)`` pairs as the caller spelled them, e.g.
    ``check_memory(("n", n), ("d", d))`` before drawing an (n, d) float64 matrix. The product is
    exact (Python ints), so 10**18 × 10**18 cannot wrap around.
    """
    pairs = _factors(factors)
    need = itemsize * math.prod(v for _, v in pairs)
    if need > MAX_MEMORY_BYTES:
        raise _budget_refusal(pairs, need, MAX_MEMORY_BYTES, itemsize, lambda b: f"{b / 2 ** 30:.3g} GiB",
                              "MAX_MEMORY_BYTES", "bytes")


def check_work(*factors, per_item=1):
    """Refuse, before starting, a call of ∏ values × ``per_item`` elementary steps beyond :data:`MAX_WORK`.

    ``factors`` are ``(name, value)`` pairs, e.g. ``check_work(("n_reps", n_reps), ("n", n), ("d", d))``
    for n_reps repetitions that each draw an (n, d) sample.
    """
    pairs = _factors(factors)
    need = per_item * math.prod(v for _, v in pairs)
    if need > MAX_WORK:
        raise _budget_refusal(pairs, need, MAX_WORK, per_item, lambda s: f"{s:.3g} steps", "MAX_WORK", "steps")


def check_second_moments(gram, moment, x, y, names="X and y"):
    """Refuse a design whose Gram matrix x'x or moment x'y is not a double (a record near 1e154 or beyond).

    The non-private least-squares baselines (OLS, ISTA) form these sums; a single
    huge record makes them inf, and the estimate NaN. This says so, naming the
    arrays, instead of returning NaN. (The private routines clip first and never
    get here.)
    """
    if not (np.all(np.isfinite(gram)) and np.all(np.isfinite(moment))):
        raise ValueError(f"{names}: x'x or x'y overflows double precision (largest |x| = {np.max(np.abs(x)):.3g}, "
                         f"largest |y| = {np.max(np.abs(y)):.3g}); least squares needs |x|·|y| and |x|² below "
                         f"about 1e308/n")


def computed(compute):
    """``compute()`` as a float: inf where it overflows or divides by an underflowed zero, NaN where ``math``
    refuses ("math domain error", e.g. log of an underflowed 0). The caller then refuses a result that is not
    finite by the user's parameter name, instead of letting a raw Python error out."""
    try:
        return float(compute())
    except (OverflowError, ZeroDivisionError):
        return math.inf
    except ValueError as error:
        if "math domain error" not in str(error):
            raise
        return math.nan


def check_normal_double(value, name, valid):
    """Return ``value`` unless it is subnormal (0 < |value| < 2.2250738585072014e-308): then a named ValueError.

    A subnormal parameter passes 0 < value, but the formulas built on it overflow
    (1/value, log(1/value), Φ⁻¹(value)) and raise raw Python errors or release ±inf.
    ``valid`` is the parameter's whole valid range, for the message.
    """
    if 0 < abs(value) < np.finfo(float).tiny:
        raise ValueError(f"{name} must not be subnormal (below the smallest normal double "
                         f"{float(np.finfo(float).tiny)!r}), got {value!r}; valid range: {valid}")
    return value
