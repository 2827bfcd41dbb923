"""Chapter 2 rates: sample complexities of Theorem 2.6, the generic learner (Kasiviswanathan et al.).

Also the realizable case (Corollary 2.8) and the non-private ERM baselines
(Theorem 2.3) they are compared with. ``n_hypotheses`` is a real number >= 1
(|H| = 2^d overflows an int quickly in plots); ``epsilon`` and ``n`` may be
arrays for plotting.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from .._constraints import Check, FiniteInterval, OPEN_UNIT, Options, validate_params
from .._array_constraints import CountArray, EpsilonArray, PositiveArray
from .._validation import check_count_array, scalar_or_array

__all__ = [
    "generic_learner_sample_complexity",
    "generic_learner_failure_bound",
    "generic_learner_accuracy",
    "erm_sample_complexity",
    "erm_accuracy",
    "parity_success_lower_bound",
]


def _check_class_size(n_hypotheses, name):
    """|H|: one whole number >= 1, as a float (|H| = 2^d overflows an int in plots)."""
    size = float(check_count_array(n_hypotheses, name))
    if size < 1:
        raise ValueError(f"{name} must be >= 1 (the size |H| of a non-empty class), got {n_hypotheses!r}")
    return size


_NOT_A_NUMBER = [("1", "'1'"), (True, "True"), (None, "None"), (math.nan, "nan")]
# Check: |H| is one whole number that may exceed int64 (2^100), kept a float: not Count (an int), not CountArray.
#: |H|, a real number >= 1.
CLASS_SIZE = Check(_check_class_size, convert_nested=float,
                   invalid=[(0.5, "0.5"), (2.5, "2.5"), (math.inf, "inf")] + _NOT_A_NUMBER)
#: ε, a scalar or an array of them (for plotting), each 0 < ε < inf.
EPSILONS = EpsilonArray()
#: n, a whole number > 0 or an array of them (a plotted axis may be fractional); ``ZERO_COUNTS``: n >= 0.
COUNTS = CountArray()
ZERO_COUNTS = CountArray(allow_zero=True)
FORMS = Options(("exact", "slide", "realizable"))
REALIZABLE = Options((False, True))


@validate_params({"n_hypotheses": CLASS_SIZE, "epsilon": EPSILONS, "alpha": OPEN_UNIT, "beta": OPEN_UNIT,
                  "form": FORMS})
@np.errstate(over="ignore", divide="ignore")  # α = 1e-300: the bound is inf (numpy), not a ZeroDivisionError
def generic_learner_sample_complexity(n_hypotheses, epsilon, alpha, beta, form="exact"):
    """Examples the generic private learner needs for excess error <= α w.p. >= 1 − β (chapter 2, Theorem 2.6).

    ``form="exact"``: n >= max{ (9/(2α²)) ln(4|H|/β), (6/(εα)) ln(2|H|/β) },
    the version of the slides' proof whose two failure terms are each <= β/2
    (Theorem 2.6 of chapter 2).

    ``form="slide"``: n = 6 (ln|H| + ln(1/β)) · max{1/(εα), 1/α²}, the
    constant printed on the slides. It is slightly too small: at this n the
    failure bound of the proof is up to β + 2β^{4/3}|H|^{−1/3}, not β (see
    :func:`generic_learner_failure_bound` and the chapter's constant check).

    ``form="realizable"`` (OPT = 0; chapter 2, Corollary 2.8):
    n >= max{ (8/α) ln(2|H|/β), (4/(εα)) ln(2|H|/β) }.

    Parameters
    ----------
    n_hypotheses : float, |H| >= 1
    epsilon : float or array_like, 0 < ε < inf
    alpha : float, 0 < α < 1
    beta : float, 0 < β < 1
    form : {"exact", "slide", "realizable"}

    Returns
    -------
    int or ndarray of int
        The smallest integer n satisfying the bound (elementwise in ε): an
        exact Python int for a scalar ε however large, a float array of
        whole numbers where int64 would overflow.

    Raises
    ------
    ValueError, TypeError
        |H| < 1, an ε outside (0, inf), α or β outside (0, 1), an unknown ``form``.

    Examples
    --------
    >>> generic_learner_sample_complexity(n_hypotheses=100, epsilon=1.0, alpha=0.1, beta=0.05)
    4045
    """
    size, eps, alpha = n_hypotheses, epsilon, np.float64(alpha)
    if form == "exact":
        n = np.maximum(9 / (2 * alpha ** 2) * (math.log(size) + math.log(4 / beta)),
                       6 / (eps * alpha) * (math.log(size) + math.log(2 / beta)))
    elif form == "slide":
        n = 6 * (math.log(size) + math.log(1 / beta)) * np.maximum(1 / (eps * alpha), 1 / alpha ** 2)
    else:  # "realizable"
        n = np.maximum(8 / alpha, 4 / (eps * alpha)) * (math.log(size) + math.log(2 / beta))
    return scalar_or_array(n, as_int=True)


@validate_params({"n_hypotheses": CLASS_SIZE, "epsilon": EPSILONS, "alpha": OPEN_UNIT, "n": COUNTS})
def generic_learner_failure_bound(n_hypotheses, epsilon, alpha, n):
    """The failure probability bound of the utility proof: 2|H| e^{−2nα²/9} + |H| e^{−εnα/6} (chapter 2, the proof of Theorem 2.6).

    Pr[err(A(z)) > OPT + α] is below this value (ρ = α/3 in the proof).
    Vectorised over ``epsilon`` and ``n``; may exceed 1 (then it says nothing).

    Parameters
    ----------
    n_hypotheses : float, |H| >= 1
    epsilon : float or array_like, 0 < ε < inf
    alpha : float, 0 < α < 1
    n : float or array_like, n > 0

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError, TypeError
        Any argument outside the ranges above.

    Examples
    --------
    >>> round(generic_learner_failure_bound(n_hypotheses=100, epsilon=1.0, alpha=0.1, n=1000), 4)
    21.6736
    """
    size, eps = n_hypotheses, epsilon
    value = 2 * size * np.exp(-2 * n * alpha ** 2 / 9) + size * np.exp(-eps * n * alpha / 6)
    return scalar_or_array(value)


@validate_params({"n_hypotheses": CLASS_SIZE, "epsilon": EPSILONS, "n": COUNTS, "beta": OPEN_UNIT, "form": FORMS})
def generic_learner_accuracy(n_hypotheses, epsilon, n, beta, form="exact"):
    """The excess error α that Theorem 2.6 (chapter 2) guarantees with n examples (w.p. >= 1 − β).

    The sample complexity solved for α, for theory curves in error-versus-n plots:

    * ``"exact"``: α(n) = max{ √(9 ln(4|H|/β)/(2n)), 6 ln(2|H|/β)/(εn) };
    * ``"slide"``: α(n) = max{ √(6L/n), 6L/(εn) } with L = ln|H| + ln(1/β);
    * ``"realizable"``: α(n) = max{ 8, 4/ε } · ln(2|H|/β)/n.

    The 1/n term (privacy) dominates for small ε·n, the 1/√n term (sampling)
    otherwise. Vectorised over ``epsilon`` and ``n``.

    Parameters
    ----------
    n_hypotheses : float, |H| >= 1
    epsilon : float or array_like, 0 < ε < inf
    n : float or array_like, n > 0
    beta : float, 0 < β < 1
    form : {"exact", "slide", "realizable"}

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError, TypeError
        |H| < 1, an ε outside (0, inf), n <= 0, β outside (0, 1), an unknown ``form``.

    Examples
    --------
    >>> round(generic_learner_accuracy(n_hypotheses=100, epsilon=1.0, n=1000, beta=0.05), 4)
    0.2011
    """
    size, eps = n_hypotheses, epsilon
    if form == "exact":
        alpha = np.maximum(np.sqrt(9 * (math.log(size) + math.log(4 / beta)) / (2 * n)),
                           6 * (math.log(size) + math.log(2 / beta)) / (eps * n))
    elif form == "slide":
        log_term = math.log(size) + math.log(1 / beta)
        alpha = np.maximum(np.sqrt(6 * log_term / n), 6 * log_term / (eps * n))
    else:  # "realizable"
        alpha = np.maximum(8.0, 4 / eps) * (math.log(size) + math.log(2 / beta)) / n
    return scalar_or_array(alpha)


@validate_params({"n_hypotheses": CLASS_SIZE, "alpha": OPEN_UNIT, "beta": OPEN_UNIT, "realizable": REALIZABLE})
@np.errstate(over="ignore", divide="ignore")  # α = 1e-300: the bound is inf (numpy), not a ZeroDivisionError
def erm_sample_complexity(n_hypotheses, alpha, beta, realizable=False):
    """Examples that non-private ERM over a finite class needs (chapter 2, Theorem 2.3).

    Agnostic: n >= (2/α²) ln(2|H|/β) (Hoeffding + union bound give uniform
    convergence at α/2). Realizable: n >= (1/α) ln(|H|/β) (a consistent
    hypothesis with error > α survives n examples w.p. <= (1 − α)^n).

    Parameters
    ----------
    n_hypotheses : float, |H| >= 1
    alpha : float, 0 < α < 1
    beta : float, 0 < β < 1
    realizable : bool

    Returns
    -------
    int
        The smallest such integer n (exact, however large).

    Raises
    ------
    ValueError, TypeError
        |H| < 1, α or β outside (0, 1).

    Examples
    --------
    >>> erm_sample_complexity(n_hypotheses=100, alpha=0.1, beta=0.05)
    1659
    """
    size, alpha = n_hypotheses, np.float64(alpha)
    if realizable:
        n = (math.log(size) + math.log(1 / beta)) / alpha
    else:
        n = 2 / alpha ** 2 * (math.log(size) + math.log(2 / beta))
    return scalar_or_array(np.asarray(n), as_int=True)


@validate_params({"n_hypotheses": CLASS_SIZE, "n": COUNTS, "beta": OPEN_UNIT, "realizable": REALIZABLE})
def erm_accuracy(n_hypotheses, n, beta, realizable=False):
    """The excess error ERM guarantees with n examples: √(2 ln(2|H|/β)/n), or ln(|H|/β)/n if realizable (Theorem 2.3).

    Parameters
    ----------
    n_hypotheses : float, |H| >= 1
    n : float or array_like, n > 0
    beta : float, 0 < β < 1
    realizable : bool

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError, TypeError
        |H| < 1, n <= 0, β outside (0, 1).

    Examples
    --------
    >>> round(erm_accuracy(n_hypotheses=100, n=1000, beta=0.05), 4)
    0.1288
    """
    size = n_hypotheses
    value = (math.log(size) + math.log(1 / beta)) / n if realizable else np.sqrt(2 * (math.log(size) + math.log(2 / beta)) / n)
    return scalar_or_array(value)


@validate_params({"d": FiniteInterval(Integral, 1, 1000, closed="both"), "n": ZERO_COUNTS, "epsilon": EPSILONS})
def parity_success_lower_bound(d, n, epsilon):
    """Lower bound on Pr[the generic learner outputs the right parity] (the Jensen bound of chapter 2's running-time section).

    Realizable parities on x ~ U{0,1}^d: the right parity has no errors and
    each of the 2^d − 1 others has Bin(n, 1/2) errors, so by Jensen's
    inequality Pr[correct] >= 1 / (1 + (2^d − 1)((1 + e^{−ε/2})/2)^n).
    Vectorised over ``n`` and ``epsilon``.

    Parameters
    ----------
    d : int, 1 <= d <= 1000
    n : float or array_like, n >= 0
    epsilon : float or array_like, 0 < ε < inf

    Returns
    -------
    float or ndarray, in (0, 1]

    Raises
    ------
    ValueError, TypeError
        Any argument outside the ranges above.

    Examples
    --------
    >>> round(parity_success_lower_bound(d=5, n=100, epsilon=1.0), 4)
    1.0
    """
    eps = epsilon
    log_wrong = (d * math.log(2.0) + math.log1p(-2.0 ** -d)) + n * np.log((1 + np.exp(-eps / 2)) / 2)
    return scalar_or_array(1 / (1 + np.exp(log_wrong)))


# --- The pure-DP packing lower bound (chapter 2, Theorem 2.12 and Corollaries 2.13–2.14) -----------

__all__ += ["packing_log_growth", "packing_success_upper_bound", "packing_sample_lower_bound"]


#: M, the size of a packing: a scalar or an array of real numbers >= 1 (a whole number if a scalar).
PACKING_SIZES = CountArray(minimum=1)
#: w, the mass on which neighbouring distributions differ: 0 < w <= 1.
MASS = FiniteInterval(Real, 0, 1, closed="right")


@validate_params({"epsilon": EPSILONS, "mass": MASS})
def packing_log_growth(epsilon, mass=1.0):
    """ln(1 + w(e^ε − 1)): the exponent per example in the packing bound (chapter 2, Theorem 2.12).

    If neighbouring distributions share all but a w-fraction of their mass,
    a sample of n examples from one can be coupled with a sample from the
    other so that they differ in K ~ Bin(n, w) records, and group privacy
    costs E[e^{εK}] = (1 + w(e^ε − 1))^n. This returns the logarithm of one
    factor, computed without overflow (it is ≈ wε for small ε and
    ε + ln w for large ε). It is at most w(e^ε − 1) and, for w = 1, equals ε.

    Parameters
    ----------
    epsilon : float or array_like, 0 < ε < inf
    mass : float, 0 < w <= 1

    Returns
    -------
    float or ndarray, > 0

    Raises
    ------
    ValueError, TypeError
        ε outside (0, inf) or w outside (0, 1].

    Examples
    --------
    >>> packing_log_growth(epsilon=1.0)
    1.0
    """
    return scalar_or_array(_log_growth(epsilon, mass))


def _log_growth(eps, mass):
    small = np.log1p(mass * np.expm1(np.minimum(eps, 1.0)))
    large = np.logaddexp(math.log1p(-mass) if mass < 1 else -np.inf, math.log(mass) + eps)
    return np.where(eps < 1.0, small, large)


#: n for the packing bound: real numbers >= 0 (the proof's bound is continuous in n).
REAL_COUNTS = PositiveArray(allow_zero=True)


@validate_params({"n_hypotheses": PACKING_SIZES, "epsilon": EPSILONS, "n": REAL_COUNTS, "mass": MASS})
def packing_success_upper_bound(n_hypotheses, epsilon, n, mass=1.0):
    """Average success of any ε-DP algorithm on a packing: min{1, (1 + w(e^ε − 1))^n / M} (chapter 2, Theorem 2.12).

    Theorem 2.12 of chapter 2: if P_1, …, P_M share all but a w-fraction of
    their mass and the "success" sets G_1, …, G_M of outputs are pairwise
    disjoint, then every ε-DP algorithm A on n examples satisfies
    (1/M) Σ_j Pr_{z ~ P_j^n}[A(z) ∈ G_j] <= (1 + w(e^ε − 1))^n / M.
    The proof couples the samples and applies group privacy; the constants
    here are exactly the proof's. Vectorised over ``n_hypotheses``, ``epsilon`` and ``n``.

    Parameters
    ----------
    n_hypotheses : float or array_like, M >= 1
    epsilon : float or array_like, 0 < ε < inf
    n : float or array_like, n >= 0
    mass : float, 0 < w <= 1 (w = 1: the distributions may differ completely)

    Returns
    -------
    float or ndarray, in (0, 1]

    Raises
    ------
    ValueError, TypeError
        Any argument outside the ranges above.

    Examples
    --------
    >>> round(packing_success_upper_bound(n_hypotheses=100, epsilon=1.0, n=10), 4)
    1.0
    """
    log_bound = n * _log_growth(epsilon, mass) - np.log(n_hypotheses)
    return scalar_or_array(np.exp(np.minimum(log_bound, 0.0)))


@validate_params({"n_hypotheses": PACKING_SIZES, "epsilon": EPSILONS, "beta": OPEN_UNIT, "mass": MASS})
def packing_sample_lower_bound(n_hypotheses, epsilon, beta, mass=1.0):
    """Examples every ε-DP learner needs on a packing of M hypotheses (chapter 2, Theorem 2.12).

    n >= ln((1 − β) M) / ln(1 + w(e^ε − 1)), which is at least
    ln((1 − β) M) / (w(e^ε − 1)) (Theorem 2.12 of chapter 2, exact constants
    of its proof). For M hypotheses pairwise more than 2α apart that agree on
    a heavy common point, w may be taken down to 4α (Corollary 2.13), giving
    ln((1 − β)M) / (4α(e^ε − 1)) = Ω(ln M / (εα)) for ε <= 1; for proper
    learners of thresholds on N + 1 grid points, M = N and w down to 2α
    (Corollary 2.14). Returns 0 when (1 − β)M <= 1 (nothing is forced).
    Vectorised over ``n_hypotheses`` and ``epsilon``.

    Parameters
    ----------
    n_hypotheses : float or array_like, M >= 1
    epsilon : float or array_like, 0 < ε < inf
    beta : float, 0 < β < 1 (the allowed failure probability for every target)
    mass : float, 0 < w <= 1

    Returns
    -------
    float or ndarray
        The real-valued bound; no sample size below it succeeds, so the
        smallest possible n is its ceiling.

    Raises
    ------
    ValueError, TypeError
        Any argument outside the ranges above.

    Examples
    --------
    >>> round(packing_sample_lower_bound(n_hypotheses=100, epsilon=1.0, beta=0.05), 4)
    4.5539
    """
    numerator = np.maximum(np.log(n_hypotheses) + math.log1p(-beta), 0.0)
    return scalar_or_array(numerator / _log_growth(epsilon, mass))
