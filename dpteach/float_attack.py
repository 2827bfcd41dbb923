"""The floating-point attack on naive Laplace sampling (appendix A, after Mironov 2012).

:func:`dpteach.mechanisms.laplace_mechanism` releases ``value + noise`` where
the noise comes from numpy's ``Generator.laplace``. numpy draws one uniform
``U = k · 2⁻⁵³`` (k an integer, 0 < k < 2⁵³) and returns

    noise = −b·log((2 − U) − U)   if U ≥ 1/2,
    noise =  b·log(U + U)         otherwise,           (eq-numpy-laplace)

each operation rounded to the nearest double. Only 2⁵³ uniforms exist, and
the map from U to the noise stretches the uniform grid: the distance between
the noises of two neighbouring uniforms is at least e times the spacing of
the doubles there (appendix A, Lemma A.2). So most doubles are *never* produced, and the
set of doubles that ``fl(0 + noise)`` can produce differs from the set that
``fl(1 + noise)`` can produce. An attacker who sees one release and knows the
sampler can often tell which of two neighbouring counts was used: the
mathematical Laplace density ratio (at most e^ε) says nothing about a
distribution that lives on a sparse set of doubles.

This module reconstructs those sets exactly (:func:`reachable_outputs`),
turns them into the distinguisher of appendix A (:func:`support_attack`),
tabulates the doubles around one release (:func:`lattice_neighbourhood`) and
states the best success that an ε-DP release allows (:func:`max_guess_success`,
Theorem A.1). It imports only numpy and the validation layer; the runner that
applies the attack to dpteach, OpenDP and diffprivlib lives in
``dpteach.experiments.production_attack``.
"""

from __future__ import annotations

import math

import numpy as np

from ._constraints import POSITIVE, Delta, Epsilon, Integral, FiniteInterval, Real, validate_params
from ._array_constraints import Array, PositiveArray

__all__ = [
    "numpy_laplace_from_uniforms",
    "reachable_outputs",
    "support_attack",
    "lattice_neighbourhood",
    "max_guess_success",
]

# numpy's next_double: the top 53 bits of a 64-bit word times 2^-53, so every
# uniform is k / 2^53 with k an integer in [0, 2^53); k = 0 is rejected by the
# Laplace sampler and redrawn.
_GRID = 2.0 ** 53
_K_MIN, _K_MAX = 1.0, _GRID - 1.0
# Candidates checked on each side of the inverse's estimate. The inverse
# (exp of a double) is off by at most a few grid steps; 3 is ample and the
# tests check that every sampled output is found.
_MARGIN = 3


def _clib_log(x):
    """The natural log of every entry with the C library's ``log``, the one numpy's C sampler calls.

    ``np.log`` is not that function: on CPUs with AVX-512 (and in other numpy
    builds) it dispatches to numpy's own SIMD log, which differs from the C
    library's by one unit in the last place on about 0.35 % of inputs. Python's
    ``math.log`` calls the C library's ``log``, so this reproduces
    ``Generator.laplace`` bit for bit on every CPU (about 0.1 s per 10⁶ entries).
    A zero gives −inf, as C's ``log(0.0)`` does.
    """
    flat = np.asarray(x, dtype=float).ravel()
    logs = np.fromiter((math.log(v) if v > 0 else -math.inf for v in flat.tolist()), dtype=float, count=flat.size)
    return logs.reshape(np.shape(x))


def _noise_from_grid(k, scale):
    """(eq-numpy-laplace) for uniforms k·2⁻⁵³, with numpy's operation order and log (so the doubles agree bit for bit).

    numpy's ``random_laplace`` (numpy/random/src/distributions/distributions.c) computes
    ``loc - scale * log(2.0 - U - U)`` for U ≥ 1/2 and ``loc + scale * log(U + U)`` below,
    with loc = 0 here and ``log`` the C library's (:func:`_clib_log`).
    """
    uniform = np.asarray(k / _GRID, dtype=float)  # exact: k < 2^53 and the division by a power of two is exact
    upper_half = uniform >= 0.5
    noise = np.empty_like(uniform)
    upper = uniform[upper_half]
    lower = uniform[~upper_half]
    noise[upper_half] = 0.0 - scale * _clib_log((2.0 - upper) - upper)
    noise[~upper_half] = 0.0 + scale * _clib_log(lower + lower)
    return noise


# The contract shared by the attack's routines: released doubles, hypotheses and the Laplace scale b.
OUTPUTS = Array()
FINITE = FiniteInterval(Real, None, None)


# uniforms in the open interval (0, 1)
@validate_params({"scale": POSITIVE, "uniforms": PositiveArray(maximum=1)})
def numpy_laplace_from_uniforms(uniforms, scale):
    """numpy's Laplace sampler as a function of its uniform draw (appendix A, Eq. (eq-numpy-laplace)).

    ``Generator.laplace(0, scale)`` consumes one ``Generator.random()``-style
    uniform U and returns −b·log(2 − 2U) for U ≥ 1/2 and b·log(2U) below. This
    function applies that formula in numpy's operation order, so for the same
    uniforms it returns the same doubles (the tests check this bit for bit).

    Parameters
    ----------
    uniforms : array_like
        Values in (0, 1), e.g. ``Generator.random(size)``.
    scale : float
        The Laplace scale b, 0 < b < inf.

    Returns
    -------
    ndarray
        The noise values, same shape as ``uniforms``. Cost O(size).

    Raises
    ------
    ValueError
        If ``scale`` is not finite and positive, or a uniform is outside (0, 1),
        NaN or inf, or the array is empty.

    Examples
    --------
    >>> uniforms = np.array([0.1, 0.5, 0.9])
    >>> numpy_laplace_from_uniforms(uniforms=uniforms, scale=2.0).round(4)
    array([-3.2189,  0.    ,  3.2189])
    """
    return _noise_from_grid(uniforms * _GRID, scale)


def _grid_index(noise, scale):
    """Real-valued k with noise(k·2⁻⁵³) ≈ ``noise``: the inverse of (eq-numpy-laplace), increasing in the noise."""
    with np.errstate(over="ignore", under="ignore"):
        upper = 1.0 - 0.5 * np.exp(-noise / scale)
        lower = 0.5 * np.exp(noise / scale)
    return np.where(noise >= 0, upper, lower) * _GRID


def _reachable(outputs, value, scale):
    """Boolean mask: is each output ``fl(value + noise(k))`` for some grid index k? (validated inputs)."""
    shape = np.shape(outputs)
    outputs = np.asarray(outputs, dtype=float).reshape(-1)  # 1-d, so that the masks below are arrays (also for one output)
    # The reals that round to y lie within half a spacing on either side; a
    # full spacing gives a safe superset for the candidate search.
    spacing = np.spacing(np.abs(outputs))
    centre = outputs - value
    k_low = np.clip(np.floor(_grid_index(centre - spacing, scale)) - _MARGIN, _K_MIN, _K_MAX)
    k_high = np.clip(np.ceil(_grid_index(centre + spacing, scale)) + _MARGIN, _K_MIN, _K_MAX)
    # Where many grid points map into the rounding interval (small |noise|
    # next to a large |value|), one strictly inside it already proves reachability.
    inner_low = np.ceil(_grid_index(centre - 0.25 * spacing, scale)) + _MARGIN
    inner_high = np.floor(_grid_index(centre + 0.25 * spacing, scale)) - _MARGIN
    found = inner_high >= inner_low
    width = 2 * _MARGIN + 4
    # The exact check, only on the outputs not yet decided (each candidate costs one C-library log).
    pending = np.flatnonzero(~found & (k_high - k_low <= 4 * width))
    for offset in range(4 * width + 1):
        if pending.size == 0:
            break
        k = np.minimum(k_low[pending] + offset, k_high[pending])
        hit = value + _noise_from_grid(k, scale) == outputs[pending]
        found[pending[hit]] = True
        pending = pending[~hit]
    return found.reshape(shape)


@validate_params({"outputs": OUTPUTS, "value": FINITE, "scale": POSITIVE})
def reachable_outputs(outputs, value, scale):
    """Which doubles ``laplace_mechanism(value, ...)`` with Laplace scale b can output (appendix A).

    An output y is *reachable* from ``value`` if y = fl(value + noise(U)) for
    one of numpy's 2⁵³ − 1 uniforms U (Eq. (eq-numpy-laplace)). The search
    inverts the sampler: the uniforms whose noise rounds to y form a short
    interval of grid indices, which is found from the inverse CDF and checked
    exactly, so the answer is exact (not a statistical guess).

    Parameters
    ----------
    outputs : array_like
        Released values (finite doubles); any shape.
    value : float
        The exact answer f(D) the attacker hypothesises (finite).
    scale : float
        The Laplace scale b = Δ/ε the mechanism used, 0 < b < inf (computed as
        ``sensitivity / epsilon``, exactly as the mechanism does).

    Returns
    -------
    ndarray of bool
        Same shape as ``outputs``. Cost O(size) (a constant number of
        candidates per output).

    Raises
    ------
    ValueError
        If ``outputs`` is empty or not finite, ``value`` is not finite, or the
        scale is not finite and positive.

    Examples
    --------
    Three releases of f(D) = 0 with numpy's sampler are reachable from 0 (and, here, not from 1):

    >>> outputs = 0.0 + np.random.default_rng(0).laplace(0.0, 2.0, size=3)
    >>> reachable_outputs(outputs=outputs, value=0.0, scale=2.0)
    array([ True,  True,  True])
    >>> reachable_outputs(outputs=outputs, value=1.0, scale=2.0)
    array([False, False, False])
    """
    return _reachable(outputs, value, scale)


@validate_params({"outputs": OUTPUTS, "value0": FINITE, "value1": FINITE, "scale": POSITIVE})
def support_attack(outputs, value0, value1, scale):
    """Guess which of two neighbouring answers produced each output (appendix A, Algorithm A.3).

    The attacker knows the sampler and the two hypotheses f(D) = ``value0``
    and f(D') = ``value1``. For each output y it guesses

    - 0 if y is reachable from ``value0`` only,
    - 1 if y is reachable from ``value1`` only,
    - 0.5 ("no idea"; counted as half a success) if from both or neither.

    Against an ideal Laplace mechanism (real numbers, or a sampler whose
    outputs from both hypotheses fill the same set of doubles) this rule is a
    coin flip. Against numpy's sampler most outputs are reachable from one
    hypothesis only.

    Parameters
    ----------
    outputs : array_like
        Released values (finite doubles).
    value0, value1 : float
        The two hypotheses (finite, different).
    scale : float
        The Laplace scale b the mechanism used, 0 < b < inf.

    Returns
    -------
    ndarray of float
        Guesses in {0, 0.5, 1}, same shape as ``outputs``. The success rate
        on outputs drawn with hypothesis h is ``mean(1 - |guess - h|)``.
        Cost O(size).

    Raises
    ------
    ValueError
        For empty or non-finite outputs, non-finite or equal hypotheses, or a
        scale that is not finite and positive.

    Examples
    --------
    >>> outputs = 0.0 + np.random.default_rng(0).laplace(0.0, 2.0, size=3)
    >>> support_attack(outputs=outputs, value0=0.0, value1=1.0, scale=2.0)
    array([0., 0., 0.])
    """
    if value0 == value1:
        raise ValueError(f"value0 and value1 must differ (two neighbouring answers), got {value0!r} twice")
    from0 = _reachable(outputs, value0, scale)
    from1 = _reachable(outputs, value1, scale)
    return np.where(from0 & ~from1, 0.0, np.where(from1 & ~from0, 1.0, 0.5))


@validate_params({"output": FINITE, "value0": FINITE, "value1": FINITE, "scale": POSITIVE,
                  "width": FiniteInterval(Integral, 1, 1000, closed="both")})
def lattice_neighbourhood(output, value0, value1, scale, width=3):
    """The doubles next to ``output`` and whether each is reachable from value0 / value1 (appendix A, the lattice table).

    Walks ``width`` doubles down and up from ``output`` (``math.nextafter``)
    and asks, for each, the exact membership question of
    :func:`reachable_outputs` under both hypotheses. The table shows what
    :func:`support_attack` exploits: next to a released double, most doubles
    are reachable from one hypothesis only, or from neither. It analyses released
    values only (no data are touched, no privacy is spent).

    Parameters
    ----------
    output : float
        A released value (finite, with ``width`` finite doubles on each side).
    value0, value1 : float
        The two hypotheses (finite).
    scale : float
        The Laplace scale b the mechanism used, 0 < b < inf.
    width : int, 1 <= width <= 1000
        How many doubles on each side (a table for reading, hence the cap).

    Returns
    -------
    list of dict
        ``offset`` (in units of the spacing of doubles), ``value`` (as hex,
        which shows the low-order bits), ``from_0`` and ``from_1`` (bool).
        Cost O(width).

    Raises
    ------
    ValueError, TypeError
        For a non-finite or non-numeric output or hypothesis, a scale that is
        not finite and positive, a width outside [1, 1000], or an output so
        close to the largest double that its neighbourhood overflows.

    Examples
    --------
    >>> rows = lattice_neighbourhood(output=0.25, value0=0.0, value1=1.0, scale=2.0, width=2)
    >>> [(row["offset"], row["from_0"], row["from_1"]) for row in rows]
    [(-2, False, False), (-1, False, False), (0, False, False), (1, False, False), (2, True, False)]
    """
    values = [output]
    for _ in range(width):
        values.insert(0, math.nextafter(values[0], -math.inf))
        values.append(math.nextafter(values[-1], math.inf))
    values = np.array(values)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"output must have {width} finite doubles on each side, got {output!r} "
                         f"(next to the largest double)")
    from0 = _reachable(values, value0, scale)
    from1 = _reachable(values, value1, scale)
    return [{"offset": offset, "value": float(v).hex(), "from_0": bool(a), "from_1": bool(b)}
            for offset, v, a, b in zip(range(-width, width + 1), values, from0, from1)]


@validate_params({"epsilon": Epsilon(), "delta": Delta()})
def max_guess_success(epsilon, delta=0.0):
    """The best success of any guess between two neighbours under (ε, δ)-DP (appendix A, Theorem A.1).

    With the two neighbours equally likely a priori, every test that sees one
    output of an (ε, δ)-DP mechanism names the right neighbour with
    probability at most (e^ε + δ)/(1 + e^ε); for δ = 0 this is e^ε/(1 + e^ε).

    Parameters
    ----------
    epsilon : float
        0 < ε < inf.
    delta : float
        0 <= δ < 1.

    Returns
    -------
    float
        The bound, in [1/2, 1). Cost O(1).

    Raises
    ------
    ValueError, TypeError
        For ε or δ out of range or not a real number.

    Examples
    --------
    >>> round(max_guess_success(epsilon=1.0, delta=0.0), 4)
    0.7311
    """
    # (e^ε + δ)/(1 + e^ε) written with e^{-ε} so that a large ε does not overflow.
    return (1.0 + delta * math.exp(-epsilon)) / (1.0 + math.exp(-epsilon))
