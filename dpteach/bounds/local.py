"""Chapter 3 rates: local vs central means, one simulated SQ answer, rejection sampling.

``n``, ``m`` and ``tau`` may be arrays (for plotting); ε and p are scalars.
"""

from __future__ import annotations

import math

import numpy as np

from numbers import Real

from .._constraints import OPEN_UNIT, POSITIVE_INT, Epsilon, FiniteInterval, Integral, Options, validate_params
from .._array_constraints import CountArray, PositiveArray
from .._validation import scalar_or_array

__all__ = [
    "local_mean_rmse",
    "central_mean_rmse",
    "sq_answer_failure_bound",
    "rejection_sampling_tv_bound",
    "rejection_sampling_queries",
    "rejection_sampling_query_budget",
    "parity_sq_lower_bound",
    "parity_sq_success_bound",
    "masked_parity_sq_lower_bound",
    "masked_parity_lower_bound_shape",
]


# A count (n, m, q) that may also be an array of them, the x-axis of a plotted rate (check_count_array).
COUNTS = CountArray()
PROBABILITY = FiniteInterval(Real, 0, 1, closed="both")
FLAG = Options((False, True))


DIMENSIONS = CountArray(whole=True)  # d, a number of bits, or an array of them (for plotting)


@validate_params({"n": COUNTS, "epsilon": Epsilon(), "p": PROBABILITY, "randomizer": Options(("rr", "laplace")),
                  "include_sampling": FLAG})
def local_mean_rmse(n, epsilon, p, randomizer="rr", include_sampling=True):
    """RMSE of the local estimate of p = Pr[b = 1] from n users (chapter 3, the local RMSE of the √n-gap section).

    √((p(1 − p) + v)/n) with the randomizer's noise variance v:
    e^ε/(e^ε − 1)² for randomized response (debiased as before Theorem 3.3) and 2/ε²
    for the Laplace randomizer on φ = 2b − 1 (its 8/ε², divided by 4 for the
    map back to p). Θ(1/(ε√n)) for small ε. ``include_sampling=False`` drops
    p(1 − p): the error against the data's own mean.

    Examples
    --------
    >>> round(local_mean_rmse(n=100, epsilon=1.0, p=0.3), 4)
    0.1063
    """
    sampling = p * (1 - p) * bool(include_sampling)
    try:
        noise = 1.0 / (4.0 * math.sinh(epsilon / 2) ** 2) if randomizer == "rr" else 2.0 / epsilon ** 2
        value = np.sqrt((sampling + noise) / n)
    except (OverflowError, ZeroDivisionError):  # ε = 1e300 or 1e-300: the variance is not a float
        value = None
    if value is None or not np.all(np.isfinite(value)):
        value = _rmse_from_stds(sampling, _local_noise_std(epsilon, randomizer), np.sqrt(n))
    return scalar_or_array(value)


def _local_noise_std(epsilon, randomizer):
    """√v, the noise std of :func:`local_mean_rmse`, finite wherever it is: 1/(2 sinh(ε/2)) or √2/ε."""
    if randomizer == "laplace":
        return math.sqrt(2.0) / epsilon
    with np.errstate(over="ignore"):
        return float(1.0 / (2.0 * np.sinh(epsilon / 2)))  # sinh(ε/2) = inf at ε = 1e300: the noise is 0


def _rmse_from_stds(sampling_variance, noise_std, scale):
    """√(s + σ²)/scale as hypot(√s, σ)/scale: the same RMSE where σ² or the sum would leave the floats.

    Used only where the direct formula overflows or divides by an underflowed zero (ε = 1e-300 gives
    an RMSE near 1e298, which is a float), so ordinary inputs keep their bit-exact values.
    """
    with np.errstate(over="ignore", divide="ignore"):
        return np.hypot(math.sqrt(sampling_variance), noise_std) / scale


@validate_params({"n": COUNTS, "epsilon": Epsilon(), "p": PROBABILITY, "include_sampling": FLAG})
def central_mean_rmse(n, epsilon, p, include_sampling=True):
    """RMSE of the central Laplace mean k/n + Lap(1/(nε)): √(p(1 − p)/n + 2/(nε)²) (chapter 3, the √n-gap section).

    The privacy part √2/(nε) is Θ(1/(εn)), a factor √n below the local
    Θ(1/(ε√n)). ``include_sampling=False`` drops p(1 − p)/n.

    Examples
    --------
    >>> round(central_mean_rmse(n=100, epsilon=1.0, p=0.3), 4)
    0.048
    """
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        value = np.sqrt(p * (1 - p) / n * bool(include_sampling) + 2.0 / (n * epsilon) ** 2)
        if not np.all(np.isfinite(value)):  # (nε)² underflowed to 0 at ε = 1e-300; the RMSE √2/(nε) is a float
            sampling_std = np.sqrt(p * (1 - p) / n * bool(include_sampling))
            value = np.hypot(sampling_std, math.sqrt(2.0) / (n * epsilon))
    return scalar_or_array(value)


@validate_params({"m": COUNTS, "epsilon": Epsilon(), "tau": OPEN_UNIT, "constants": Options(("theorem", "slide"))})
def sq_answer_failure_bound(m, epsilon, tau, constants="theorem"):
    """Pr[one simulated SQ answer is off by more than τ] for a group of m users (chapter 3, Theorem 3.9).

    ``"theorem"`` (our constants, valid for ετ <= 8√2): 2e^{−τ²m/8} + 2e^{−mε²τ²/128}.
    ``"slide"`` (the slides' constants, in our reading of a garbled line): 2e^{−τ²m/8} + e^{−ε²τ²m/64}.
    Clipped to 1.

    Examples
    --------
    >>> round(sq_answer_failure_bound(m=100, epsilon=1.0, tau=0.2), 4)
    1.0
    """
    if constants == "theorem":
        if epsilon * tau > 8 * math.sqrt(2):
            raise ValueError(f"epsilon·tau must be <= 8√2 for the theorem's Chernoff step, got {epsilon * tau!r}")
        value = 2 * np.exp(-tau ** 2 * m / 8) + 2 * np.exp(-m * (epsilon * tau) ** 2 / 128)
    else:
        value = 2 * np.exp(-tau ** 2 * m / 8) + np.exp(-(epsilon * tau) ** 2 * m / 64)
    value = np.minimum(value, 1.0)
    return scalar_or_array(value)


@validate_params({"tau": PositiveArray(maximum=1),
                  "epsilon": Epsilon(), "t": POSITIVE_INT})
def rejection_sampling_tv_bound(tau, epsilon, t=1):
    """Total variation between t simulated and t real local reports: t·τe^ε/(1 − τe^ε) (chapter 3, Theorem 3.15).

    One report simulated by rejection sampling (Algorithm 3.14) with answers of
    tolerance τ has an output law within τ'/(1 − τ') of the true law q, where
    τ' = τe^ε: the acceptance probability of a proposal w is off by at most τ,
    and q(w)·|relative error| <= τ·e^ε·p₀(w), which sums to τe^ε over w. The t
    reports of a local algorithm add up (hybrid argument). Our reconstruction:
    the slides state the local → SQ direction without a proof. For τe^ε <= 1/2
    the bound is at most 2tτe^ε, so the tolerance τ = β/(2te^ε) keeps t
    reports within total variation β. The value is clipped to 1 (and is 1
    whenever τe^ε >= 1, where the bound says nothing).

    Parameters
    ----------
    tau : float or array_like
        Tolerance of every query, 0 < τ < 1 (arrays for plotting).
    epsilon : float
        The randomizer's ε, 0 < ε < inf.
    t : int
        Number of simulated reports, t >= 1.

    Returns
    -------
    float or ndarray
        The bound, in (0, 1].

    Examples
    --------
    >>> round(rejection_sampling_tv_bound(tau=0.01, epsilon=1.0), 4)
    0.0279
    """
    relative = tau * math.exp(min(epsilon, 700.0))  # e^ε beyond e^700 only makes the bound 1 sooner
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        per_report = np.where(relative < 1, relative / np.maximum(1 - relative, 1e-300), np.inf)
    value = np.minimum(t * per_report, 1.0)
    return scalar_or_array(value)


# A tolerance τ >= 0 (a scalar or an array, for plotting); its bound e^(−ε) is checked against ε in the body.
SMALL_TOLERANCES = PositiveArray(allow_zero=True)


@validate_params({"epsilon": Epsilon(), "tau": SMALL_TOLERANCES})
def rejection_sampling_queries(epsilon, tau=0.0):
    """Expected SQ queries per simulated report: at most e^ε/(1 − τe^ε) (e^ε exactly with an exact oracle).

    Chapter 3, Theorem 3.15. Each proposal w ~ R(z₀) is accepted with
    probability a_w within τ of ρ_w, and Σ_w p₀(w)ρ_w = e^{−ε}, so a proposal
    is accepted with probability >= e^{−ε} − τ = e^{−ε}(1 − τe^ε); the number of
    proposals (one query each) is geometric. Our reconstruction.

    Parameters
    ----------
    epsilon : float
        0 < ε < inf.
    tau : float or array_like
        Tolerance, 0 <= τ < e^{−ε}.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(rejection_sampling_queries(epsilon=1.0, tau=0.01), 4)
    2.7942
    """
    return scalar_or_array(_queries_per_report(epsilon, tau))


def _queries_per_report(epsilon, tau):
    """e^ε/(1 − τe^ε) for a validated ε and a validated float array τ >= 0; names the limits it needs."""
    if epsilon > 700:
        raise ValueError(f"epsilon = {epsilon!r} is too large: e^epsilon overflows a float (limit: epsilon <= 700)")
    relative = tau * math.exp(epsilon)
    if np.any(relative >= 1):
        raise ValueError(f"tau must satisfy 0 <= tau < e^(-epsilon) = {math.exp(-epsilon):.4g}, got {tau!r}")
    return math.exp(epsilon) / (1 - relative)


@validate_params({"t": POSITIVE_INT, "epsilon": Epsilon(),
                  "tau": FiniteInterval(Real, 0, None, closed="left"),  # one τ >= 0 (< e^(−ε): checked in the body)
                  "beta": OPEN_UNIT})
def rejection_sampling_query_budget(t, epsilon, tau, beta):
    """Worst-case query budget of the truncated simulation: ⌈t·e^ε/((1 − τe^ε)·β)⌉ (chapter 3, Theorem 3.16).

    The t simulated reports need at most t·e^ε/(1 − τe^ε) queries in
    expectation (:func:`rejection_sampling_queries`); by Markov's inequality
    the total exceeds this budget with probability at most β. Stopping the
    simulation there turns an expected bound into a worst-case one at the
    price of β in the failure probability. Our reconstruction.

    Parameters
    ----------
    t : int
        Number of simulated reports, t >= 1.
    epsilon : float
        0 < ε <= 700.
    tau : float
        Tolerance, 0 <= τ < e^{−ε}.
    beta : float
        Probability that the budget is too small, 0 < β < 1.

    Returns
    -------
    int

    Examples
    --------
    >>> rejection_sampling_query_budget(t=3, epsilon=1.0, tau=0.01, beta=0.05)
    168
    """
    return scalar_or_array(t * _queries_per_report(epsilon, tau) / beta, as_int=True)


@validate_params({"d": DIMENSIONS, "epsilon": Epsilon()})
def masked_parity_lower_bound_shape(d, epsilon):
    """The shape 2^d/ε² of the non-interactive lower bound for masked parities (chapter 3, Theorem 3.21; shape only).

    Theorem 3.20 proves that a non-adaptive SQ algorithm needs q/τ² >= 2^d·(const)
    to learn masked parities; n users answering with ε-local randomizers
    support roughly q/τ² ≈ ε²n. Only the growth in d is meaningful: the
    constants are not known (the figure legend says "(shape)").

    Parameters
    ----------
    d : int or array_like of int
        Length of the secret, d >= 1.
    epsilon : float
        0 < ε < inf.

    Examples
    --------
    >>> masked_parity_lower_bound_shape(d=4, epsilon=1.0)
    16.0
    """
    # numpy: ε² = inf at ε = 1e300 gives 0, not OverflowError; ε² underflows to 0 for ε < 1e-162, where
    # the true 2^d/ε² > 1e324 exceeds the largest float, so the division's inf is the right answer.
    with np.errstate(over="ignore", divide="ignore"):
        value = 2.0 ** d / np.float64(epsilon) ** 2
    return scalar_or_array(value)


@validate_params({"d": DIMENSIONS, "tau": OPEN_UNIT, "success": FiniteInterval(Real, 0, 1, closed="right")})
def parity_sq_lower_bound(d, tau, success=0.5):
    """Fewest queries of tolerance τ with which any SQ algorithm learns parities on {0,1}^d (chapter 3, Theorem 3.17).

    Against the oracle that answers every query as if the labels were
    random, a query φ "sees" fewer than 1/τ² secrets (Parseval), and at most
    one unseen secret can be learned to error < 1/4. So
    Pr[error < 1/4] <= (q/τ² + 1)/2^d for a uniform secret, and success
    probability ``success`` needs q >= τ²·(success·2^d − 1). Exact constants.

    Parameters
    ----------
    d : int or array_like of int
        Number of bits, d >= 1.
    tau : float
        Tolerance of every query, 0 < τ < 1.
    success : float
        Required Pr[error < 1/4], in (0, 1].

    Returns
    -------
    float or ndarray
        The lower bound on the number of queries (0 when the bound is trivial).

    Examples
    --------
    >>> round(parity_sq_lower_bound(d=4, tau=0.1), 4)
    0.07
    """
    with np.errstate(over="ignore"):
        value = np.maximum(tau ** 2 * (success * 2.0 ** d - 1), 0.0)
    return scalar_or_array(value)


@validate_params({"q": CountArray(allow_zero=True),
                  "d": FiniteInterval(Integral, 1, 1000, closed="both"), "tau": OPEN_UNIT})
def parity_sq_success_bound(q, d, tau):
    """Largest Pr[error < 1/4] of any SQ algorithm with q queries of tolerance τ on parities: min(1, (q/τ² + 1)/2^d).

    Chapter 3, Theorem 3.17, for a uniformly random secret r ∈ {0,1}^d.
    Exact constants.

    Parameters
    ----------
    q : float or array_like
        Number of queries, q >= 0 (arrays for plotting).
    d : int, d >= 1
    tau : float in (0, 1)

    Returns
    -------
    float or ndarray, in (0, 1]

    Examples
    --------
    >>> parity_sq_success_bound(q=10, d=4, tau=0.1)
    1.0
    """
    value = np.minimum(1.0, (q / tau ** 2 + 1) / 2.0 ** d)
    return scalar_or_array(value)


@validate_params({"d": DIMENSIONS, "tau": OPEN_UNIT, "success": FiniteInterval(Real, 0.5, 1, closed="right")})
def masked_parity_sq_lower_bound(d, tau, success=0.75):
    """Fewest non-adaptive queries of tolerance τ that learn masked parities (chapter 3, Theorem 3.20).

    Against the oracle that answers the b = 0 half as if its labels were
    random, a fixed query reveals the bit a for fewer than 1/(4τ²) secrets r,
    and otherwise a is a fair guess. So Pr[error < 1/4] <= 1/2 + q/(4τ²2^d),
    and success probability ``success`` > 1/2 needs q >= 4τ²2^d(success − 1/2).
    Holds for non-adaptive algorithms only (the 2-round learner beats it).

    Parameters
    ----------
    d : int or array_like of int
        Number of bits of the secret, d >= 1.
    tau : float
        0 < τ < 1.
    success : float
        Required Pr[error < 1/4], in (1/2, 1].

    Examples
    --------
    >>> round(masked_parity_sq_lower_bound(d=4, tau=0.1), 4)
    0.16
    """
    with np.errstate(over="ignore"):
        value = 4 * tau ** 2 * 2.0 ** d * (success - 0.5)
    return scalar_or_array(value)
