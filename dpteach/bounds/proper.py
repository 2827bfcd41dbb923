"""Chapter 7 rates: the proper learner of the paper's Theorem 3.1 (Algorithm 2).

The paper's Table 1 row for Theorem 3.1 and its running time carry unknown
universal constants, so :func:`proper_sample_complexity_shape` and
:func:`proper_log_runtime_shape` are **shape only** (all constants set to 1).
The selection slack of the exponential mechanism (the paper's Lemma B.5 as
used in the proof of Theorem 3.1) has explicit constants and is exact.
:func:`cover_size_shape` is the one home of the size of chapter 7's cover
H(q) (Eq. eq-proper-cover): directions on the sphere S^{k−1} of V times the
threshold grid, shape only.
"""

from __future__ import annotations

import math

import numpy as np

from .improper import hermite_feature_count
from .._constraints import Check, FiniteInterval, Integral, OPEN_UNIT, POSITIVE, POSITIVE_INT, Real, validate_params
from .._array_constraints import CountArray, EpsilonArray, PositiveArray
from .._validation import check_count_array, scalar_or_array

__all__ = [
    "proper_sample_complexity_shape",
    "proper_log_runtime_shape",
    "selection_slack",
    "net_size_shape",
    "cover_size_shape",
]


# --- The contracts: a rate takes a scalar, or an array to plot against (checked entry by entry) ---------------

def _check_candidates(value, name):
    """K = |H(q)| ≥ 1, a whole number (``check_count_array``), as a float."""
    K = float(check_count_array(value, name))
    if K < 1:
        raise ValueError(f"{name} must be >= 1, got {value!r}")
    return K


_NOT_A_NUMBER = [("1", "'1'"), (None, "None"), (True, "True")]
#: α of Theorem 7.8: 0 < α < 1/2 (a scalar).
ALPHA = FiniteInterval(Real, 0, 0.5)
ALPHAS = PositiveArray(maximum=0.5)  # the range (0, 1/2) of Theorem 7.8's α
EPSILONS = EpsilonArray()
RESOLUTIONS = PositiveArray(maximum=1)  # a cover's resolution a in (0, 1)
COUNTS = CountArray()


@validate_params({"alpha": ALPHA, "epsilon": EPSILONS, "d": POSITIVE_INT, "degree": POSITIVE_INT})
@np.errstate(over="ignore", divide="ignore")  # α = 1e-300: the bound is inf (numpy), not a ZeroDivisionError
def proper_sample_complexity_shape(alpha, epsilon, d, degree):
    """D_p/α² + D_p/(εα) + 1/α⁶ + 1/(εα⁵): Theorem 7.8's sample size (the paper's Eq. (2), Table 1), **shape only**.

    The first two terms pay for the private polynomial (Lemma 7.2, the paper's
    Lemma 3.4), the last two for the exponential mechanism over a cover with
    log|H(q)| = O(α⁻⁴ log(1/α)) (the paper's Eq. (11)); logarithmic factors and
    constants are dropped.

    Parameters
    ----------
    alpha : float in (0, 1/2)
    epsilon : float or array_like, 0 < ε < inf
    d, degree : int ≥ 1 (D_p = C(d + p, p))

    Returns
    -------
    float or ndarray (elementwise in ε). Cost O(len(ε)).

    Raises
    ------
    TypeError, ValueError
        For arguments out of range.

    Examples
    --------
    >>> round(proper_sample_complexity_shape(alpha=0.1, epsilon=1.0, d=2, degree=3))
    1101100
    """
    alpha = np.float64(alpha)
    size = hermite_feature_count(d, degree)
    n = size / alpha ** 2 + size / (epsilon * alpha) + alpha ** -6 + 1.0 / (epsilon * alpha ** 5)
    return scalar_or_array(n)


@validate_params({"alpha": ALPHAS})
def proper_log_runtime_shape(alpha):
    """α⁻⁴ log(1/α): the exponent of the running time poly(n)·exp(O(α⁻⁴ log 1/α)) (Theorem 7.8), **shape only**.

    It is log|H(q)| for dim V = O(α⁻⁴) and a cover at resolution α.

    Parameters
    ----------
    alpha : float or array_like in (0, 1/2)

    Returns
    -------
    float or ndarray. Cost O(len(α)).

    Raises
    ------
    TypeError, ValueError
        For α outside (0, 1/2).

    Examples
    --------
    >>> round(proper_log_runtime_shape(alpha=0.1), 2)
    23025.85
    """
    alphas = alpha
    # α⁻⁴ overflows for α < 1e-77: the shape is then beyond the largest float and inf is its value.
    with np.errstate(over="ignore"):
        return scalar_or_array(alphas ** -4 * np.log(1.0 / alphas))


# Check: K may exceed int64 (a class of 2^d hypotheses), kept a float, as CLASS_SIZE.
@validate_params({"n_candidates": Check(_check_candidates, invalid=[(0.5, "0.5"), (2.5, "2.5")] + _NOT_A_NUMBER),
                  "n": COUNTS, "epsilon": EPSILONS, "beta": OPEN_UNIT})
def selection_slack(n_candidates, n, epsilon, beta):
    """2√(log(8K/β)/n) + 4 log(4K/β)/(εn): the exponential mechanism's excess error over the best of K candidates.

    The paper's Lemma B.5 applied to the n/2 examples of S₂ in the proof of
    Theorem 3.1: with probability ≥ 1 − β/2, err(ĥ) ≤ min_{h ∈ H(q)} err(h) + this.
    Explicit constants (not shape only).

    Parameters
    ----------
    n_candidates : float ≥ 1
        K = |H(q)|.
    n : float or array_like > 0
        The total sample size n (S₂ has n/2 examples).
    epsilon : float, 0 < ε < inf
    beta : float in (0, 1)

    Returns
    -------
    float or ndarray (elementwise in n). Cost O(len(n)).

    Raises
    ------
    TypeError, ValueError
        For arguments out of range.

    Examples
    --------
    >>> round(selection_slack(n_candidates=10, n=100, epsilon=1.0, beta=0.05), 4)
    0.8106
    """
    K = n_candidates
    return scalar_or_array(2 * np.sqrt(math.log(8 * K / beta) / n) + 4 * math.log(4 * K / beta) / (epsilon * n))


@validate_params({"k": FiniteInterval(Integral, 0, None, closed="left"), "resolution": RESOLUTIONS})
def net_size_shape(k, resolution):
    """(3/a)^k: Fact B.11's bound (C/γ)^k on an a-cover of the unit ball of ℝ^k, with C = 3, **shape only**.

    (C = 3 is the volumetric constant: ⌊(1 + 2/a)^k⌋ ≤ (3/a)^k balls of radius a/2 … a
    suffice; the paper's C is unspecified.) This is an *upper bound* on a net of
    the unit sphere S^{k−1}, through the ball; the nets themselves grow like
    (C/a)^{k−1}, and :func:`cover_size_shape` gives the shape of the cover.

    Parameters
    ----------
    k : int ≥ 0
    resolution : float or array_like in (0, 1)

    Returns
    -------
    float or ndarray. Cost O(len(a)).

    Raises
    ------
    TypeError, ValueError
        For k < 0 or a ∉ (0, 1).

    Examples
    --------
    >>> round(net_size_shape(k=2, resolution=0.5), 6)
    36.0
    """
    a = resolution
    # (3/a)^k is beyond the largest float once k·log(3/a) > 709.8: inf is then its value, not a warning.
    with np.errstate(over="ignore"):
        return scalar_or_array((3.0 / a) ** k)


@validate_params({"k": POSITIVE_INT, "resolution": RESOLUTIONS, "net_constant": POSITIVE,
                  "threshold_constant": POSITIVE})
def cover_size_shape(k, resolution, net_constant=3.0, threshold_constant=2.0):
    """(C/a)^{k−1}·2K₀√log(1/a)/a: the size of chapter 7's cover H(q) for dim V = k ≥ 1, **shape only**.

    H(q) of Eq. (eq-proper-cover) pairs every direction of an a-net of the unit
    sphere S^{k−1} of V with every threshold ja, |ja| ≤ R ≈ K₀√log(1/a). The
    sphere S^{k−1} has dimension k − 1, so its net has about (C/a)^{k−1} points
    (Lemma 7.5's (C/a)^k, through the ball, is an upper bound, not the shape),
    and the grid has about 2R/a = 2K₀√log(1/a)/a thresholds.

    The constants of the book's nets (``dpteach.halfspace_cover.sphere_net``)
    differ from C = 3 in known ways: S⁰ = {±u} has 2 points where (C/a)⁰ = 1
    (the line is half the data at k = 1); the circle has ⌈π/(2 arcsin(a/2))⌉ ≈ π/a
    points; the Fibonacci sphere about (2.8/a)². The grid has 2⌈K₀√log(1/a)/a⌉ + 1
    thresholds, and the cover two more members (the near-constants).

    Parameters
    ----------
    k : int ≥ 1
        dim V.
    resolution : float or array_like in (0, 1)
        a (the paper's cα).
    net_constant : float > 0
        C of the sphere net (default 3, as in :func:`net_size_shape`).
    threshold_constant : float > 0
        K₀ of the threshold range, ``dpteach.halfspace_cover.THRESHOLD_RANGE_CONSTANT`` (= 2).

    Returns
    -------
    float or ndarray. Cost O(len(a)).

    Raises
    ------
    TypeError, ValueError
        For k < 1, a ∉ (0, 1) or a non-positive constant.

    Examples
    --------
    >>> round(cover_size_shape(k=2, resolution=0.5), 3)
    39.963
    """
    a = resolution
    # (C/a)^{k−1} is beyond the largest float for huge k: inf is then its value, not a warning.
    with np.errstate(over="ignore"):
        return scalar_or_array((net_constant / a) ** (k - 1) * 2 * threshold_constant * np.sqrt(np.log(1.0 / a)) / a)
