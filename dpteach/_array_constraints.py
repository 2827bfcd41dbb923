"""Constraints on arrays, sequences and callables: the data a routine reads, its sweeps and the code it runs.

The scalar rules, the decorator and the nested rule live in :mod:`dpteach._constraints`; these classes
follow the same protocol (``validate``, ``nested``, ``invalid_values``, ``skip_nested``): an array scan is
skipped on a nested call unless the class says otherwise, and its conversion still runs.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from . import _validation as V
from ._constraints import NOT_A_NUMBER, Constraint, Count, Epsilon, FiniteInterval

__all__ = ["Array", "Labels", "Callable", "Sequence", "InstanceOf", "EpsilonArray", "PositiveArray", "CountArray", "Sweep",
           "Bits", "Flag"]

class Array(Constraint):
    """A finite real array (``check_finite_array``): ``ndim`` an int or a tuple, optional ``shape``.

    Nested, the value is not checked but still converted to a float ndarray, as the check would;
    ``skip_nested=False`` (the value a mechanism releases) checks it on every call: one finiteness scan,
    no more work than the noise added to it, so NaN or inf is never released from a nested call.
    """

    def __init__(self, ndim=None, nonempty=True, shape=None, skip_nested=True):
        self.ndim, self.nonempty, self.shape, self.skip_nested = ndim, nonempty, shape, skip_nested

    def nested(self, value, name):
        if self.skip_nested:
            return self.convert_nested(value)
        # The cheap path: a float or int ndarray (or Python float) of the declared dimension, all finite.
        arr = value if isinstance(value, np.ndarray) else np.asarray(value) if isinstance(value, float) else None
        allowed = None if self.ndim is None else (self.ndim,) if isinstance(self.ndim, int) else tuple(self.ndim)
        if (arr is not None and arr.dtype.kind in "fiu" and (allowed is None or arr.ndim in allowed)
                and self.shape is None and (arr.size > 0 or not self.nonempty)):
            arr = arr.astype(float, copy=False)
            if np.isfinite(arr).all():
                return arr
        return self.validate(value, name)

    @staticmethod
    def convert_nested(value):
        """Nested, the array is not checked but still a float ndarray (as ``check_finite_array`` returns it)."""
        return np.asarray(value, dtype=float)

    def validate(self, value, name):
        return V.check_finite_array(value, name, ndim=self.ndim, nonempty=self.nonempty, shape=self.shape)

    def invalid_values(self):
        bad = [("a", "'a'"), (None, "None"), ([math.nan], "nan")]
        return bad + ([(np.zeros(0), "empty")] if self.nonempty else [])


class Labels(Constraint):
    """A 1-D array of labels ±1 (``check_labels``)."""

    convert_nested = staticmethod(Array.convert_nested)

    def validate(self, value, name):
        return V.check_labels(value, name)

    def invalid_values(self):
        return [([0.5], "[0.5]"), (None, "None"), (["1"], "['1']")]


class Callable(Constraint):
    """A callable the routine runs, with the ``signature`` it must accept (``check_callable``: the message shows it).

    Only ``callable`` is checked (a student's function cannot be checked by value): None or a string, which would
    otherwise fail where it is first called with a message that names no parameter, is refused by name.
    """

    def __init__(self, signature):
        self.signature = signature

    def validate(self, value, name):
        return V.check_callable(value, name, self.signature)

    def invalid_values(self):
        return [(None, "None"), ("not-callable", "'not-callable'"), (1.0, "1.0")]


class Sequence(Constraint):
    """A sequence (not None, a number or a string) of ``what``, as a list (``check_sequence``); ``nonempty``: at least
    one entry; ``entry``: the constraint each entry meets (named ``name[j]`` in its message)."""

    convert_nested = staticmethod(list)

    def __init__(self, what, entry=None, nonempty=False):
        self.what, self.entry, self.nonempty = what, entry, nonempty

    def validate(self, value, name):
        return V.check_sequence(value, name, self.what, nonempty=self.nonempty,
                                check_entry=None if self.entry is None else self.entry.validate)

    def invalid_values(self):
        bad = [(None, "None"), (1, "1"), ("ab", "'ab'")] + ([([], "[]")] if self.nonempty else [])
        return bad + ([([None], "[None]")] if self.entry is not None else [])


class InstanceOf(Constraint):
    """An object of one of ``types`` (an oracle, a randomizer, a cover), described as ``what`` ("an SQOracle").

    Only the type is checked (``check_instance``); the routine checks how the object relates to the data.
    """

    def __init__(self, types, what):
        self.types, self.what = types, what

    def validate(self, value, name):
        return V.check_instance(value, name, self.types, self.what)

    def invalid_values(self):
        return [(v, label) for v, label in [(None, "None"), ("object", "'object'"), (1.0, "1.0")]
                if not isinstance(v, self.types)]


#: The bad arrays every array rule refuses, whatever its entries: none, NaN, non-numeric entries (the fuzz adds,
#: from ``array_ndim``, one dimension more or fewer and the example's own array as strings or objects).
_BAD_ARRAYS = [(np.zeros(0), "empty"), ([math.nan], "[nan]"), (["a"], "['a']"), (None, "None")]


class _ArrayRule(Constraint):
    """A scalar or an array of any shape (the x-axis of a plotted rate), checked entry by entry.

    Nested, the value is not checked but still a float ndarray, as the check returns it.
    """

    array_ndim = None  # for the fuzz (tests/doc_examples.py): an array parameter of any dimension
    convert_nested = staticmethod(Array.convert_nested)

    def invalid_values(self):
        return _BAD_ARRAYS + [(True, "True"), ("1", "'1'"), (math.inf, "inf")]


class EpsilonArray(_ArrayRule):
    """ε, a scalar or an array of them (a plotted axis), each 0 < ε < inf and not subnormal (``check_epsilon_array``)."""

    def validate(self, value, name):
        return V.check_epsilon_array(value, name)

    def invalid_values(self):
        return _BAD_ARRAYS + [v for v in Epsilon().invalid_values() if v[0] is not None]


class PositiveArray(_ArrayRule):
    """A scalar or an array of finite reals > 0 (``allow_zero``: >= 0), each below ``maximum`` if given (at most it,
    ``include_maximum``), as a float ndarray (``check_positive_array``)."""

    def __init__(self, allow_zero=False, maximum=None, include_maximum=False):
        self.allow_zero, self.maximum, self.include_maximum = allow_zero, maximum, include_maximum

    def validate(self, value, name):
        return V.check_positive_array(value, name, allow_zero=self.allow_zero, maximum=self.maximum,
                                      include_maximum=self.include_maximum)

    def invalid_values(self):
        bad = super().invalid_values() + [(-1, "-1")] + ([] if self.allow_zero else [(0, "0")])
        if self.maximum is not None:
            above = self.maximum * 1.5 if self.include_maximum else self.maximum
            bad.append((above, repr(above)))
        return bad


class CountArray(PositiveArray):
    """A count n > 0 (``allow_zero``: >= 0; ``minimum``: >= it) or an array of them (``check_count_array``): a scalar
    must be whole, a plotted array axis may be fractional (unless ``whole``); a whole float (2.0**100) is accepted."""

    def __init__(self, allow_zero=False, minimum=None, whole=False):
        super().__init__(allow_zero)
        self.minimum, self.whole = minimum, whole

    def validate(self, value, name):
        return V.check_count_array(value, name, allow_zero=self.allow_zero, minimum=self.minimum, whole=self.whole)

    def invalid_values(self):
        below = [] if self.minimum is None else [(self.minimum / 2, repr(self.minimum / 2))]
        return super().invalid_values() + [(2.5, "2.5")] + below


class Sweep(Constraint):
    """What a runner sweeps: a scalar or a non-empty 1-D sequence, returned as a list, each entry accepted by ``entry``.

    ``entry`` is ``Epsilon()`` (``check_epsilon_sweep``; ``Epsilon(allow_inf=True)``: inf, the non-private reference
    curve, too), ``Count(minimum, maximum)`` (whole numbers, ``check_sizes``; each at most ``maximum``),
    ``FiniteInterval(Real, ...)`` (finite reals, ``check_sweep``, each checked by the interval under ``name``: rates,
    accuracies, resolutions) or None (finite reals; the caller checks their range). Nested, the list is made
    without a check.
    """

    array_ndim = (0, 1)

    def __init__(self, entry=None):
        if entry is not None and (not isinstance(entry, (Epsilon, Count, FiniteInterval))
                                  or isinstance(entry, FiniteInterval) and entry.kind is not Real):
            raise TypeError(f"Sweep(entry): entry Epsilon(), Count(...), FiniteInterval(Real, ...) or None, got {entry!r}")
        self.entry = entry

    def validate(self, value, name):
        if isinstance(self.entry, Epsilon):
            return V.check_epsilon_sweep(value, name, allow_inf=self.entry.allow_inf)
        if isinstance(self.entry, Count):
            sizes = V.check_sizes(value, name, minimum=self.entry.minimum)
            if self.entry.maximum is None:
                return sizes
            return [V.check_size(v, name, self.entry.minimum, self.entry.maximum) for v in sizes]
        values = V.check_sweep(value, name)
        return values if self.entry is None else [self.entry.validate(v, name) for v in values]

    def convert_nested(self, value):
        kind = int if isinstance(self.entry, Count) else float
        return [kind(v) for v in np.atleast_1d(np.asarray(value)).tolist()]

    def invalid_values(self):
        entries = (self.entry.invalid_values() if self.entry is not None
                   else [("a", "'a'"), (math.nan, "nan"), (math.inf, "inf")])
        labels = {label for _, label in entries}
        return entries + [v for v in [(np.zeros(0), "empty"), ([[1.0]], "[[1.0]]")] + NOT_A_NUMBER if v[1] not in labels]


class Bits(Constraint):
    """A non-empty array of bits 0/1 or False/True of ``ndim`` dimensions (None: any), as a bool ndarray (``check_bits``).

    Nested, the value is not checked but still made a bool ndarray.
    """

    def __init__(self, ndim=1):
        self.array_ndim = ndim

    @staticmethod
    def convert_nested(value):
        return np.asarray(value).astype(bool)

    def validate(self, value, name):
        return V.check_bits(value, name, ndim=self.array_ndim)

    def invalid_values(self):
        return [([], "[]"), ([math.nan], "[nan]"), ([2], "[2]"), (["1"], "['1']"), (None, "None")]


class Flag(Constraint):
    """A switch: exactly ``True`` or ``False`` (1, "yes" or None are refused, not read as truthy)."""

    skip_nested = False

    def validate(self, value, name):
        return V.check_flag(value, name)

    def nested(self, value, name):
        return value if value is True or value is False else self.validate(value, name)

    def invalid_values(self):
        return [(1, "1"), ("yes", "'yes'"), (None, "None")]
