"""Chapter 6: private convex ERM for the clipped L1 regression problem (Algorithm 6.7).

The paper's Algorithm 1 calls a black-box (ε, δ)-DP minimiser of a convex,
T-Lipschitz empirical loss over a ball (its Lemma B.4, from Kulkarni, Lee &
Liu 2021). This module implements an explicit one with the same rate up to
constants: full-batch noisy projected subgradient descent, with each step a
Gaussian mechanism and the steps composed in zero-concentrated DP (zCDP;
Bun & Steinke 2016). The choice of optimiser is our reconstruction.

Neighbouring datasets have the same size n and differ in one example
(replace-one); n is public.
"""

from __future__ import annotations

import math

import numpy as np

from ._constraints import Delta, Epsilon, OrNone, POSITIVE, POSITIVE_INT, validate_params, SameLength
from ._array_constraints import Array
from ._scales import NORMAL_SCALE
from ._validation import check_finite_array, check_same_length, check_work
from .privacy import privacy_claim

__all__ = [
    "zcdp_rho",
    "zcdp_epsilon",
    "l1_subgradient_sensitivity",
    "dp_erm_sigma",
    "noisy_average_subgradient",
    "noisy_projected_subgradient_descent",
    "l1_loss",
]


@validate_params({"epsilon": Epsilon(), "delta": Delta(allow_zero=False)})
def zcdp_rho(epsilon, delta):
    """The zCDP budget ρ = (√(log(1/δ) + ε) − √(log(1/δ)))² that converts to (ε, δ)-DP (Lemma 6.6).

    It solves ρ + 2√(ρ·log(1/δ)) = ε, and ρ-zCDP implies (ρ + 2√(ρ log(1/δ)), δ)-DP
    for every δ ∈ (0, 1) (Bun & Steinke 2016, Proposition 1.3).

    Parameters
    ----------
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1

    Returns
    -------
    float, ρ > 0. Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For ε ≤ 0, non-finite or non-numeric ε; δ ∉ (0, 1).

    Examples
    --------
    >>> round(zcdp_rho(epsilon=1.0, delta=1e-5), 4)
    0.0208
    """
    log_term = math.log(1.0 / delta)
    # Written as ε²/(√(L+ε)+√L)² to avoid cancellation when ε ≪ L.
    # Written as (ε/(√(L+ε)+√L))²: ε² would overflow at ε ~ 1e308 and underflow at 1e-300.
    try:
        return (epsilon / (math.sqrt(log_term + epsilon) + math.sqrt(log_term))) ** 2
    except OverflowError:
        # ε within a few ulps of the largest double: the square rounds above it although ρ < ε. The
        # expanded (√(L+ε) − √L)² = ε + 2L − 2√L·√(L+ε) has no cancellation there (ε ≫ L).
        # ρ is then within one ulp below ε: step one ulp down so that ρ is never over-claimed.
        return math.nextafter(epsilon + 2.0 * log_term - 2.0 * math.sqrt(log_term) * math.sqrt(log_term + epsilon), 0.0)


@validate_params({"rho": POSITIVE, "delta": Delta(allow_zero=False)})
def zcdp_epsilon(rho, delta):
    """The ε of (ε, δ)-DP implied by ρ-zCDP: ε = ρ + 2√(ρ·log(1/δ)) (Lemma 6.6).

    Valid but loose. Canonne, Kamath & Steinke (2020, Corollary 13), the
    conversion OpenDP uses, give ε = inf over a > 1 of
    aρ + (log(1/δ) + (a − 1)·log(1 − 1/a) − log a)/(a − 1), which is smaller
    (ρ = 0.0359, δ = 1e-5: 1.092 against 1.322); Asoodeh et al. (2020) give the
    optimal conversion from a Rényi-DP curve. We keep the simple form because it is the one the book
    proves; for Gaussian steps the exact (GDP) accountants make the question moot.

    Parameters
    ----------
    rho : float, 0 < ρ < inf
    delta : float, 0 < δ < 1

    Returns
    -------
    float. Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For ρ ≤ 0 or non-finite; δ ∉ (0, 1).

    Examples
    --------
    >>> round(zcdp_epsilon(rho=0.1, delta=1e-5), 4)
    2.246
    """
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


@validate_params({"lipschitz": NORMAL_SCALE, "n": POSITIVE_INT})
def l1_subgradient_sensitivity(lipschitz, n):
    """Replace-one L2 sensitivity 2T/n of the average subgradient of the L1 loss (Lemma 6.5).

    Each example contributes sign(⟨v, F_i⟩ − y_i)·F_i/n, of norm ≤ T/n;
    replacing one example removes one such term and adds another, so the
    average moves by at most 2T/n (the two terms may point in opposite directions).

    Parameters
    ----------
    lipschitz : float, 1e-150 <= T <= 1e150
        T, the bound on every feature row's norm (the clipping radius).
    n : int ≥ 1
        The (public) number of examples.

    Returns
    -------
    float. Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For T ≤ 0 or non-finite; n < 1.

    Examples
    --------
    >>> l1_subgradient_sensitivity(lipschitz=1.0, n=10)
    0.2
    """
    return 2.0 * lipschitz / n


def zcdp_gaussian_sigma(sensitivity, n_steps, epsilon, delta):
    """σ of K Gaussian steps of sensitivity Δ that compose to (ε, δ)-DP through zCDP: Δ·√(K/(2ρ(ε, δ))).

    K·Δ²/(2σ²)-zCDP equals ρ(ε, δ) at this σ. Computed as Δ·√(K/2)·(√(L+ε)+√L)/ε with L = ln(1/δ),
    which is the same number without forming ρ (ρ under- or overflows at ε near 1e∓300).
    Inputs must already be validated (Δ > 0, K >= 1, 0 < ε < inf, 0 < δ < 1).
    """
    log_term = math.log(1.0 / delta)
    return sensitivity * math.sqrt(n_steps / 2.0) * ((math.sqrt(log_term + epsilon) + math.sqrt(log_term)) / epsilon)


def _step_size(radius, n_iterations, lipschitz, D, sigma):
    """η = R/√(K(T² + Dσ²)) (Algorithm 6.7); through hypot when σ² overflows (σ ≈ 1e300 at ε = 1e-300)."""
    try:
        denominator = math.sqrt(n_iterations * (lipschitz ** 2 + D * sigma ** 2))
    except OverflowError:
        denominator = math.inf
    if math.isinf(denominator):
        denominator = math.sqrt(n_iterations) * math.hypot(lipschitz, math.sqrt(D) * sigma)
    return radius / denominator


@validate_params({"lipschitz": NORMAL_SCALE, "n": POSITIVE_INT, "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "n_iterations": POSITIVE_INT})
def dp_erm_sigma(lipschitz, n, epsilon, delta, n_iterations):
    """Per-step noise σ = (2T/n)·√(K/(2ρ)) of Algorithm 6.7, with ρ = ``zcdp_rho(ε, δ)``.

    A Gaussian mechanism with sensitivity Δ and std σ is Δ²/(2σ²)-zCDP, and K
    adaptive steps compose additively, so K·Δ²/(2σ²) = ρ gives (ε, δ)-DP.

    Parameters
    ----------
    lipschitz : float, 1e-150 <= T <= 1e150
    n : int ≥ 1
    epsilon : float > 0
    delta : float in (0, 1)
    n_iterations : int ≥ 1
        K, the number of noisy steps (public).

    Returns
    -------
    float. Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For any argument out of its range.

    Examples
    --------
    >>> round(dp_erm_sigma(lipschitz=1.0, n=10, epsilon=1.0, delta=1e-5, n_iterations=5), 4)
    2.1916
    """
    # K Gaussian steps of sensitivity Δ = 2T/n (the average subgradient) and std σ are K·Δ²/(2σ²)-zCDP.
    return zcdp_gaussian_sigma(2.0 * lipschitz / n, n_iterations, epsilon, delta)


def _average_subgradient(F, y, v):
    # sign(0) = 0 at a kink: any value in [−1, 1] is a subgradient and keeps the norm ≤ T.
    return np.sign(F @ v - y) @ F / F.shape[0]


#: The data of the L1 regression problem (features and targets), each array alone; their relation is checked in
#: the body.
PROBLEM = {"features": Array(ndim=2), "targets": Array(ndim=1)}


@validate_params({**PROBLEM, "coef": Array(ndim=1)}, relations=[SameLength("features", "targets")])
def l1_loss(features, targets, coef):
    """Empirical L1 loss L̂_S(v) = (1/n) Σ |⟨v, F_i⟩ − y_i| (the paper's Eq. (4)). Not private.

    Parameters
    ----------
    features : array_like, shape (n, D), finite
    targets : array_like, shape (n,), finite
    coef : array_like, shape (D,), finite

    Returns
    -------
    float. Cost O(n·D).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf, empty or mismatched arrays.

    Examples
    --------
    >>> l1_loss(np.array([[0.5, 0.0], [0.0, 0.5]]), np.array([1.0, -1.0]), coef=np.array([1.0, 1.0]))
    1.0
    """
    v = check_finite_array(coef, "coef", shape=(features.shape[1],))  # relates coef to the features
    return float(np.mean(np.abs(features @ v - targets)))


#: The contract of one noisy step (and of its broken variant, which shares it).
STEP = {**PROBLEM, "point": Array(ndim=1), "lipschitz": NORMAL_SCALE, "epsilon": Epsilon(),
        "delta": Delta(allow_zero=False), "n_iterations": POSITIVE_INT, "rng": "random_state",
        "size": OrNone(POSITIVE_INT)}


@privacy_claim(theorem="lem-zcdp", epsilon="epsilon", delta="delta",
               condition="for n_iterations such releases together")
@validate_params(STEP)
def noisy_average_subgradient(features, targets, point, lipschitz, epsilon, delta, n_iterations=1,
                              rng=None, size=None):
    """One step's release of Algorithm 6.7: ḡ(v) + N(0, σ²I), σ for one of K composed steps.

    The average subgradient ḡ(v) = (1/n)Σ sign(⟨v, F_i⟩ − y_i)F_i has replace-one
    L2 sensitivity 2T/n (:func:`l1_subgradient_sensitivity`); with σ from
    :func:`dp_erm_sigma` one release is (ρ/K)-zCDP, so K of them are
    (ε, δ)-DP. Exposed on its own so the chapter (and the tests) can audit one step.

    Parameters
    ----------
    features : array_like, shape (n, D), rows of norm ≤ T
    targets : array_like, shape (n,), finite
    point : array_like, shape (D,), finite
        Where the subgradient is taken (public: a previous private output).
    lipschitz, epsilon, delta, n_iterations
        As in :func:`dp_erm_sigma`.
    rng : seed or Generator
    size : None or int ≥ 1
        None for one release (shape (D,)); an int for that many independent
        releases (shape (size, D)), for audits.

    Returns
    -------
    numpy.ndarray. Cost O(n·D + size·D).

    Raises
    ------
    TypeError, ValueError
        For bad arrays, rows of norm > T, or any parameter out of range.

    Examples
    --------
    >>> F = np.full((12, 3), 0.1)
    >>> y = np.array([1.0, -1.0] * 6)
    >>> noisy_average_subgradient(F, y, point=np.zeros(3), lipschitz=1.0, epsilon=1.0, delta=1e-5, rng=0).shape
    (3,)
    """
    F, y = features, targets
    _check_rows(F, y, lipschitz)
    v = check_finite_array(point, "point", shape=(F.shape[1],))  # relates the point to the features
    n_samples = 1 if size is None else size
    sigma = dp_erm_sigma(lipschitz, F.shape[0], epsilon, delta, n_iterations)
    noisy = _average_subgradient(F, y, v) + sigma * rng.standard_normal((n_samples, F.shape[1]))
    return noisy[0] if size is None else noisy


@validate_params(STEP)
def broken_noisy_average_subgradient_forgotten_sensitivity(features, targets, point, lipschitz, epsilon, delta,
                                                           n_iterations=1, rng=None, size=None):
    """BROKEN on purpose (for the audit demo): calibrates σ to sensitivity 2/n, forgetting the radius T.

    A natural slip when the features are "normalised": the per-example
    subgradient has norm up to T, not 1, so this adds T times too little
    noise and is not (ε, δ)-DP for T > 1. Not in ``__all__``.
    """
    F, y = features, targets
    _check_rows(F, y, lipschitz)
    v = check_finite_array(point, "point", shape=(F.shape[1],))
    n_samples = 1 if size is None else size
    sigma = dp_erm_sigma(1.0, F.shape[0], epsilon, delta, n_iterations)
    noisy = _average_subgradient(F, y, v) + sigma * rng.standard_normal((n_samples, F.shape[1]))
    return noisy[0] if size is None else noisy


def _check_rows(F, y, lipschitz):
    """The joint rule of a declared (features, targets, lipschitz): as many targets as rows, rows of norm <= T."""
    check_same_length(F, y, "features", "targets")
    largest = float(np.sqrt(np.max(np.einsum("ij,ij->i", F, F))))
    # The sensitivity 2T/n is only true if every row has norm ≤ T: refuse otherwise (always, even nested).
    if largest > lipschitz * (1 + 1e-9):
        raise ValueError(f"features must have row norms <= lipschitz = {lipschitz!r} (clip them first, "
                         f"e.g. with dpteach.hermite.clip_features), got a row of norm {largest!r}")


#: The cost of one iteration's Python overhead in elementary steps (check_work's unit): about 10 µs.
_STEP_OVERHEAD = 10_000


@privacy_claim(theorem="lem-zcdp", epsilon="epsilon", delta="delta")
@validate_params({**PROBLEM, "lipschitz": NORMAL_SCALE, "radius": NORMAL_SCALE, "epsilon": Epsilon(),
                  "delta": Delta(allow_zero=False), "n_iterations": POSITIVE_INT, "rng": "random_state"})
def noisy_projected_subgradient_descent(features, targets, lipschitz, radius, epsilon, delta, n_iterations,
                                        rng=None):
    """Algorithm 6.7: (ε, δ)-DP minimisation of the L1 loss over the ball of radius R.

    v₀ = 0; for t = 0..K−1: g̃_t = ḡ(v_t) + N(0, σ²I_D), v_{t+1} = Π_R(v_t − γ g̃_t)
    with Π_R(u) = u·min(1, R/‖u‖) and γ = R/√(K(T² + Dσ²)); output the average
    v̂ = (1/K)Σ_{t<K} v_t.

    Privacy: each step is a Gaussian mechanism on the whole block with
    sensitivity 2T/n, i.e. (2T/n)²/(2σ²)-zCDP; K steps compose to ρ-zCDP,
    hence (ε, δ)-DP for *any* K and ε > 0 (Lemma 6.6). Projection and
    averaging are post-processing.

    Utility (standard projected stochastic subgradient analysis, with
    E‖g̃‖² ≤ T² + Dσ² and ‖v₀ − v*‖ ≤ R):
    E L̂(v̂) − min_{‖v‖≤R} L̂ ≤ R√(T² + Dσ²)/√K ≤ RT/√K + RT√(2D/ρ)/n,
    which is the rate O(RT√(D log(1/δ))/(nε)) of the paper's Lemma B.4 once
    K ≥ n²ρ/(2D).

    Parameters
    ----------
    features : array_like, shape (n, D), finite, every row of norm ≤ T
        The clipped features F_i = ψ̄_{p,T}(x_i).
    targets : array_like, shape (n,), finite (labels ±1 in Algorithm 6.10)
    lipschitz : float, 1e-150 <= T <= 1e150
        T; rows with larger norm raise ValueError (the privacy proof needs it).
    radius : float, 1e-150 <= R <= 1e150
        R, the radius of the coefficient ball (1 for the Gaussian; R₀ in Theorem 6.13).
    epsilon : float > 0
    delta : float in (0, 1)
    n_iterations : int ≥ 1
        K (public).
    rng : seed or Generator

    Returns
    -------
    (v_hat, sigma) : numpy.ndarray of shape (D,) with ‖v_hat‖ ≤ R, and the float σ used.
        Cost O(K·n·D).

    Raises
    ------
    TypeError, ValueError
        For bad arrays, rows of norm > T, or any parameter out of range.

    Examples
    --------
    >>> F = np.full((12, 3), 0.1)
    >>> y = np.array([1.0, -1.0] * 6)
    >>> v_hat, sigma = noisy_projected_subgradient_descent(F, y, lipschitz=1.0, radius=1.0, epsilon=1.0, delta=1e-5,
    ...                                                    n_iterations=3, rng=0)
    >>> v_hat.shape, round(sigma, 4)
    ((3,), 1.4147)
    """
    check_descent_work(n_iterations, *features.shape)
    return noisy_projected_subgradient_descent_prechecked(features, targets, lipschitz, radius, epsilon, delta,
                                                          n_iterations, rng)


def check_descent_work(n_iterations, n, D):
    """Refuse, before any step, K iterations over n rows of D features above the stated work limit (check_work)."""
    check_work(("n_iterations", n_iterations), ("n", n), ("D", D))  # each step: a subgradient over all rows
    # and each step's Python overhead (~10 µs, as much as ~10⁴ elementary steps), which dominates small
    # problems: n_iterations = 10⁹ at n = D = 3 passed the line above and ran for hours (review F4)
    check_work(("n_iterations", n_iterations), per_item=_STEP_OVERHEAD)


def noisy_projected_subgradient_descent_prechecked(features, targets, lipschitz, radius, epsilon, delta, n_iterations,
                                                   rng):
    """:func:`noisy_projected_subgradient_descent`'s body on checked arguments (``rng`` a Generator, the work checked
    by :func:`check_descent_work`): the block loop of ``PrivateHermiteL1Learner.fit`` calls it. The rows' norms are
    still checked here, on every call: the sensitivity 2T/n holds only if each is at most T."""
    F, y = features, targets
    _check_rows(F, y, lipschitz)
    n, D = F.shape
    sigma = dp_erm_sigma(lipschitz, n, epsilon, delta, n_iterations)
    step = _step_size(radius, n_iterations, lipschitz, D, sigma)
    v = np.zeros(D)
    total = np.zeros(D)
    for _ in range(n_iterations):
        total += v
        noisy = _average_subgradient(F, y, v) + sigma * rng.standard_normal(D)
        v = v - step * noisy
        norm = np.linalg.norm(v)
        if norm > radius:
            v *= radius / norm
    return total / n_iterations, sigma
