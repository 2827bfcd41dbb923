"""Chapter 6 rates: the Table 1 row of Algorithm 6.10 (private L1 polynomial regression, the paper's Theorem 2.1),
and the explicit error terms and sizes of one run of Algorithm 6.7 used in the proof of Theorem 6.12.

n = Õ(D_p/α² + D_p/(εα)) with D_p = C(d + p, p) and p = O(1/α²). The paper
leaves the constants and logarithms unspecified, so these are shapes only:
figures label them "(shape)".
"""

from __future__ import annotations

import math

import numpy as np

from .._constraints import Check, OPEN_UNIT, POSITIVE, POSITIVE_INT, validate_params
from .._array_constraints import CountArray, EpsilonArray
from .._validation import scalar_or_array

__all__ = ["hermite_l1_sample_complexity", "hermite_l1_excess_error", "algorithm_6_7_error_terms",
           "algorithm_6_7_sizes"]


def hermite_feature_count(d, degree):
    """D_p = C(d + p, p), the number of multi-indices κ ∈ ℕ^d with |κ| ≤ p, for already validated ints d, p ≥ 0.

    The formula's one home. It lives with the chapter 6 bounds because the bounds sit below the algorithm
    modules and need it too; ``hermite.feature_dimension`` is its validating public name. p = 0 gives 1, the
    constant feature.
    """
    return math.comb(d + degree, degree)


_NOT_A_NUMBER = [("1", "'1'"), (True, "True"), (None, "None")]
# ε or n as a scalar or an array (for plotting): any shape.
EPSILON_OR_ARRAY = EpsilonArray()
COUNT_OR_ARRAY = CountArray()


@validate_params({"d": POSITIVE_INT, "degree": POSITIVE_INT, "alpha": OPEN_UNIT, "epsilon": EPSILON_OR_ARRAY})
@np.errstate(over="ignore", divide="ignore")  # α = 1e-300: the bound is inf (numpy), not a ZeroDivisionError
def hermite_l1_sample_complexity(d, degree, alpha, epsilon):
    """Shape only: D_p/α² + D_p/(εα), the sample size of Theorem 6.12 without constants or logs.

    Parameters
    ----------
    d, degree : int ≥ 1
    alpha : float in (0, 1)
    epsilon : float > 0, or an array of them (for plotting)

    Returns
    -------
    float or numpy.ndarray. Cost O(size of ε).

    Raises
    ------
    TypeError, ValueError
        For d, degree < 1, α ∉ (0, 1), ε ≤ 0.

    Examples
    --------
    >>> round(hermite_l1_sample_complexity(d=2, degree=3, alpha=0.1, epsilon=1.0))
    1100
    """
    alpha = np.float64(alpha)  # numpy division: α = 1e-300 gives inf, not a ZeroDivisionError
    D = hermite_feature_count(d, degree)
    return scalar_or_array(D / alpha ** 2 + D / (epsilon * alpha))


@validate_params({"n": COUNT_OR_ARRAY, "d": POSITIVE_INT, "degree": POSITIVE_INT, "epsilon": EPSILON_OR_ARRAY})
def hermite_l1_excess_error(n, d, degree, epsilon):
    """Shape only: √(D_p/n) + D_p/(εn), the excess error of Algorithm 6.10 at sample size n (Theorem 6.12 inverted).

    The first term is statistical (the paper's Lemma B.7), the second the price
    of privacy (Lemma B.4 with T√D_p = 2D_p); for ε ≥ α the
    second is dominated ("privacy for free", the paper's Remark 2).

    Parameters
    ----------
    n : float > 0 or array
    d, degree : int ≥ 1
    epsilon : float > 0

    Returns
    -------
    float or numpy.ndarray. Cost O(size of n).

    Raises
    ------
    TypeError, ValueError
        For n ≤ 0, d, degree < 1, ε ≤ 0.

    Examples
    --------
    >>> round(hermite_l1_excess_error(n=1000, d=2, degree=3, epsilon=1.0), 3)
    0.11
    """
    D = hermite_feature_count(d, degree)
    return scalar_or_array((D / n) ** 0.5 + D / (epsilon * n))


def _positive_or_inf(value, name):
    """``value`` as a float > 0; +inf is allowed (Theorem 6.13's D_p overflows any integer type)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number > 0 (+inf allowed), got {value!r}")
    x = float(value)
    if not x > 0:  # also rejects NaN
        raise ValueError(f"{name} must be > 0 (+inf allowed), got {value!r}")
    return x


def _count_or_inf(value, name):
    """A count (D, n₀, K) as a float: a whole number > 0, or +inf where it overflows (:func:`_positive_or_inf`)."""
    x = _positive_or_inf(value, name)
    if math.isfinite(x) and not x.is_integer():
        raise ValueError(f"{name} must be a whole number > 0 (a count; +inf allowed), got {value!r}")
    return x


_NOT_POSITIVE = [(0, "0"), (-1, "-1"), (math.nan, "nan")] + _NOT_A_NUMBER
# Check: +inf is a valid value here (an overflowing D_p), which no FiniteInterval accepts.
#: A count of Algorithm 6.7 (D, n₀, K) as a float: a whole number > 0, +inf allowed (Theorem 6.13's D_p overflows).
COUNT_OR_INF = Check(_count_or_inf, convert_nested=float, invalid=_NOT_POSITIVE + [(2.5, "2.5")])
# Check: +inf is a valid value here, which no FiniteInterval accepts.
#: A real > 0 as a float, +inf allowed (a radius driven by an overflowing D_p).
POSITIVE_OR_INF = Check(_positive_or_inf, convert_nested=float, invalid=_NOT_POSITIVE)


@validate_params({"block_size": COUNT_OR_INF, "n_features": COUNT_OR_INF, "clip_radius": POSITIVE, "radius": POSITIVE,
                  "rho": POSITIVE, "n_iterations": COUNT_OR_INF})
def algorithm_6_7_error_terms(block_size, n_features, clip_radius, radius, rho, n_iterations):
    """The three terms of the excess-L1-loss bound of one run of Algorithm 6.7 (proof of Theorem 6.12).

    For a block of n₀ rows with clipped features of norm ≤ T, E‖ψ̄‖² ≤ D, the
    ball of radius R and K steps at zCDP budget ρ:

    * statistical: 2R√(D/n₀) (uniform deviation, the paper's Lemma B.7),
    * optimisation: RT/√K (projected subgradient descent),
    * privacy: RT√(2D/ρ)/n₀ (the noise σ = (2T/n₀)√(K/(2ρ)) of Algorithm 6.7, Lemma 6.6).

    The expected excess L1 loss of the run is at most their sum; the classifier's
    excess 0-1 error is at most half of it (Lemma 6.8) plus the grid and selection terms.

    Parameters
    ----------
    block_size, n_features, n_iterations : whole numbers > 0 (+inf allowed: a D_p beyond the largest float)
    clip_radius, radius, rho : float > 0

    Returns
    -------
    dict of floats: "statistical", "optimisation", "privacy". Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For a non-real or non-positive (or NaN/inf) argument.

    Examples
    --------
    >>> terms = algorithm_6_7_error_terms(block_size=100.0, n_features=10.0, clip_radius=6.0, radius=1.0, rho=0.01,
    ...                                   n_iterations=50.0)
    >>> {name: round(value, 3) for name, value in terms.items()}
    {'statistical': 0.632, 'optimisation': 0.849, 'privacy': 2.683}
    """
    n0, D, T, R, K = block_size, n_features, clip_radius, radius, n_iterations
    return {"statistical": 2 * R * math.sqrt(D / n0), "optimisation": R * T / math.sqrt(K),
            "privacy": R * T * math.sqrt(2 * D / rho) / n0}


def _ceil_or_inf(x):
    return math.ceil(x) if math.isfinite(x) else math.inf


@validate_params({"n_features": COUNT_OR_INF, "clip_radius": POSITIVE_OR_INF, "radius": POSITIVE, "accuracy": POSITIVE,
                  "rho": POSITIVE})
def algorithm_6_7_sizes(n_features, clip_radius, radius, accuracy, rho):
    """Block size n₀ and step count K that make each term of :func:`algorithm_6_7_error_terms` ≤ accuracy/3.

    Inverting 2R√(D/n₀) ≤ a/3, RT√(2D/ρ)/n₀ ≤ a/3 and RT/√K ≤ a/3 (a = cα in
    Theorem 6.12) gives n₀ = ⌈max(36R²D/a², 3RT√(2D/ρ)/a)⌉ and K = ⌈9R²T²/a²⌉.
    With R = 1 and T = 2√D these are Theorem 6.12's 36D/(cα)² and 6D√(2/ρ)/(cα);
    Theorem 6.13 uses R = R₀ and the Markov radius T = √(D/(cα)). The one home
    of these sizes: ``improper.theorem_parameters`` and the log-concave learner call it.

    Parameters
    ----------
    n_features, clip_radius : float > 0, +inf allowed (then the sizes are inf)
    radius, accuracy, rho : float > 0

    Returns
    -------
    dict: "block_size", "n_iterations" (int, or math.inf). Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For a non-real, non-positive or NaN argument (or inf where not allowed).

    Examples
    --------
    >>> algorithm_6_7_sizes(n_features=10.0, clip_radius=6.0, radius=1.0, accuracy=0.05, rho=0.01)
    {'block_size': 144000, 'n_iterations': 129600}
    """
    D, T, R, a = n_features, clip_radius, radius, accuracy
    n0 = max(36 * R ** 2 * D / a ** 2, 3 * R * T * math.sqrt(2 * D / rho) / a)
    return {"block_size": _ceil_or_inf(n0), "n_iterations": _ceil_or_inf(9 * R ** 2 * T ** 2 / a ** 2)}
