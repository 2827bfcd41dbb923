"""Chapter 4 rates: the predicted power of the score attack, the proved lower bound of mean estimation
(Theorem 4.10, with its constants) and the cited privacy frontier (shape only).

``n``, ``d`` and ``alpha`` may be arrays (for plotting); ε, δ and σ are scalars.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from .._constraints import POSITIVE, Delta, Epsilon, validate_params
from .._array_constraints import Array, CountArray, PositiveArray
from .._validation import scalar_or_array

__all__ = ["score_attack_separation", "predicted_auc", "predicted_tpr", "sample_mean_error", "dp_mean_frontier",
           "score_attack_slack", "score_attack_lower_bound"]

#: A count n or d: a whole number >= 1, or an array of them (fractional entries allowed on a plotted axis).
COUNT = CountArray()
#: A finite real > 0 (an accuracy α), or an array of them.
POSITIVE_VALUES = PositiveArray()
_SETTING = {"sigma": POSITIVE, "d": COUNT, "n": COUNT}


@validate_params({**_SETTING, "alpha": POSITIVE_VALUES})
def score_attack_separation(sigma, d, n, alpha):
    """Standardised separation Δ = σd/(nα) of member and non-member scores (chapter 4, Proposition 4.9).

    For M = x̄ + W with E‖M − μ‖² = α², a member's score has mean σ²d/n, a
    non-member's mean 0, and both have variance ≈ σ²α² (Gaussian approximation,
    large d). Our derivation; the constants are exact in that approximation.

    Examples
    --------
    >>> score_attack_separation(sigma=1.0, d=10, n=100, alpha=0.1)
    1.0
    """
    return scalar_or_array(sigma * d / (n * alpha))


@validate_params({**_SETTING, "alpha": POSITIVE_VALUES})
def predicted_auc(sigma, d, n, alpha):
    """AUC ≈ Φ(σd/(√2·n·α)) of the score attack on an estimator with ℓ2 error α (chapter 4, Eq. (eq-predicted-auc)).

    For the sample mean (α = σ√(d/n)) this is Φ(√(d/(2n))).

    Examples
    --------
    >>> round(predicted_auc(sigma=1.0, d=10, n=100, alpha=0.1), 4)
    0.7602
    """
    separation = np.asarray(score_attack_separation(sigma, d, n, alpha))
    return scalar_or_array(special.ndtr(separation / math.sqrt(2)))


@validate_params({"fpr": Array(), **_SETTING, "alpha": POSITIVE_VALUES})
def predicted_tpr(fpr, sigma, d, n, alpha):
    """TPR ≈ 1 − Φ(z₁₋f − Δ) of the score attack at false-positive rate f (chapter 4, Eq. (eq-predicted-auc)).

    ``fpr`` may be an array in (0, 1); Δ from :func:`score_attack_separation`
    (scalar d, n, α).

    Examples
    --------
    >>> predicted_tpr(np.array([0.01, 0.1]), sigma=1.0, d=10, n=100, alpha=0.1).round(4)
    array([0.0924, 0.3891])
    """
    rates = fpr
    if np.any((rates <= 0) | (rates >= 1)):
        raise ValueError(f"fpr must lie in (0, 1), got {fpr!r}")
    separation = float(np.asarray(score_attack_separation(sigma, d, n, alpha)))
    return scalar_or_array(special.ndtr(separation - special.ndtri(1 - rates)))


@validate_params(_SETTING)
def sample_mean_error(sigma, d, n):
    """The sample mean's ℓ2 error σ√(d/n) (root mean square; chapter 4).

    Examples
    --------
    >>> round(sample_mean_error(sigma=1.0, d=10, n=100), 4)
    0.3162
    """
    return scalar_or_array(sigma * np.sqrt(d / n))


@validate_params({**_SETTING, "epsilon": Epsilon(), "delta": Delta(allow_zero=False)})
def dp_mean_frontier(sigma, d, n, epsilon, delta):
    """min{σ√d, σd√(log(1/δ))/(nε)}: the cited frontier of mean estimation (chapter 4, Eq. (eq-dp-frontier)). Shape only.

    Cited, not proved in the book (Theorem 4.6, reconstructed, with the
    adversary of Lemma 19): up to a constant the source does not give, no
    (ε, δ)-DP estimator is much more accurate, for δ <= n^{-(1+τ)} and ε = O(1).
    Plot it as "(shape)". The bound the book proves, with its constants, is
    :func:`score_attack_lower_bound` (without the √(log(1/δ))).

    Examples
    --------
    >>> round(dp_mean_frontier(sigma=1.0, d=10, n=100, epsilon=1.0, delta=1e-5), 4)
    0.3393
    """
    return scalar_or_array(np.minimum(sigma * np.sqrt(d), sigma * d * math.sqrt(math.log(1 / delta)) / (n * epsilon)))


@validate_params({"d": COUNT, "n": COUNT, "delta": Delta()})
def score_attack_slack(d, n, delta):
    """n·η with η = δ·(4 + (4√(2 ln(1/δ)) + 2√(2π))/√d): the δ terms of Theorem 4.10's proof (0 for δ = 0).

    Step 2 of the proof bounds each member's expected score by
    sinh(ε)·σ√(2/π)·a + σ²d·η, where σ²d·η = 2δT + (tail integrals) at the
    truncation T = 2σ²√d(√d + √(2 ln(1/δ))). The bound of Theorem 4.10 keeps
    the fraction 1 − 2nη of its privacy term, so it is useful while nη < 1/2.
    ``d``, ``n`` may be arrays.

    Examples
    --------
    >>> round(score_attack_slack(d=10, n=100, delta=1e-5), 6)
    0.011655
    """
    if delta == 0:
        return scalar_or_array(np.zeros(np.broadcast(d, n).shape))
    eta = delta * (4 + (4 * math.sqrt(2 * math.log(1 / delta)) + 2 * math.sqrt(2 * math.pi)) / np.sqrt(d))
    return scalar_or_array(n * eta)


@validate_params({**_SETTING, "epsilon": Epsilon(), "delta": Delta()})
def score_attack_lower_bound(sigma, d, n, epsilon, delta):
    """The proved lower bound of chapter 4, Theorem 4.10 (score attack), constants included.

    For x_1, …, x_n ~ N(μ, σ²I_d) and every (ε, δ)-DP estimator M (replace-one),
    with μ drawn from the prior π(t) = cos²(πt/(2σ))/σ on [−σ, σ]^d
    (:func:`dpteach.data.cosine_prior_mean`),

        E_π E_μ‖M − μ‖₂ >= min{ σ√d/(8π²),  √(π/2)·σd·(1 − 2nη) / (2n·sinh ε) },

    with nη = :func:`score_attack_slack` (0 for δ = 0); hence also
    sup_{μ ∈ [−σ, σ]^d} E_μ‖M − μ‖₂ is at least this. A negative privacy
    term (nη > 1/2) is returned as 0: the theorem then says nothing.
    For ε <= 1 and nη <= 1/4 the privacy term is >= 0.26·σd/(nε).
    ``d``, ``n`` may be arrays.

    Examples
    --------
    >>> round(score_attack_lower_bound(sigma=1.0, d=10, n=100, epsilon=1.0, delta=1e-5), 4)
    0.0401
    """
    slack = np.asarray(score_attack_slack(d, n, delta))
    cap = sigma * np.sqrt(d) / (8 * math.pi ** 2)
    # 1/sinh(ε) written with e^{-ε} so that ε = 1e300 gives 0 instead of overflowing sinh.
    inverse_sinh = 2 * math.exp(-epsilon) / -math.expm1(-2 * epsilon)
    privacy = math.sqrt(math.pi / 2) * sigma * d * (1 - 2 * slack) * inverse_sinh / (2 * n)
    return scalar_or_array(np.maximum(0.0, np.minimum(cap, privacy)))

