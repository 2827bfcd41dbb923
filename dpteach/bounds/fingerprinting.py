"""Chapter 4 rates: the predicted power of the score attack, and the privacy frontier of mean estimation.

``n``, ``d`` and ``alpha`` may be arrays (for plotting); ε, δ and σ are scalars.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from .._validation import (check_count_array, check_delta, check_epsilon, check_positive, check_positive_array,
                           check_real_array, scalar_or_array)

__all__ = ["score_attack_separation", "predicted_auc", "predicted_tpr", "sample_mean_error", "dp_mean_frontier"]


def score_attack_separation(sigma, d, n, alpha):
    """Standardised separation Δ = σd/(nα) of member and non-member scores (chapter 4, Proposition 4.9).

    For M = x̄ + W with E‖M − μ‖² = α², a member's score has mean σ²d/n, a
    non-member's mean 0, and both have variance ≈ σ²α² (Gaussian approximation,
    large d). Our derivation; the constants are exact in that approximation.
    """
    sigma = check_positive(sigma, "sigma")
    d = check_count_array(d, "d")
    n = check_count_array(n, "n")
    alpha = check_positive_array(alpha, "alpha")
    return scalar_or_array(sigma * d / (n * alpha))


def predicted_auc(sigma, d, n, alpha):
    """AUC ≈ Φ(σd/(√2·n·α)) of the score attack on an estimator with ℓ2 error α (chapter 4, Eq. (eq-predicted-auc)).

    For the sample mean (α = σ√(d/n)) this is Φ(√(d/(2n))).
    """
    separation = np.asarray(score_attack_separation(sigma, d, n, alpha))
    return scalar_or_array(special.ndtr(separation / math.sqrt(2)))


def predicted_tpr(fpr, sigma, d, n, alpha):
    """TPR ≈ 1 − Φ(z₁₋f − Δ) of the score attack at false-positive rate f (chapter 4, Eq. (eq-predicted-auc)).

    ``fpr`` may be an array in (0, 1); Δ from :func:`score_attack_separation`
    (scalar d, n, α).
    """
    rates = check_real_array(fpr, "fpr")
    if np.any((rates <= 0) | (rates >= 1)):
        raise ValueError(f"fpr must lie in (0, 1), got {fpr!r}")
    separation = float(np.asarray(score_attack_separation(sigma, d, n, alpha)))
    return scalar_or_array(special.ndtr(separation - special.ndtri(1 - rates)))


def sample_mean_error(sigma, d, n):
    """The sample mean's ℓ2 error σ√(d/n) (root mean square; chapter 4)."""
    sigma = check_positive(sigma, "sigma")
    d = check_count_array(d, "d")
    n = check_count_array(n, "n")
    return scalar_or_array(sigma * np.sqrt(d / n))


def dp_mean_frontier(sigma, d, n, epsilon, delta):
    """The privacy term α ≈ σd√(log(1/δ))/(nε) of mean estimation (chapter 4, Eq. (eq-dp-frontier)). Shape only.

    Below this error an (ε, δ)-DP estimator cannot go (for δ <= n^{-(1+τ)},
    ε = O(1); Theorem 4.6 with Lemma 4.7), up to a constant the source does not give: plot it as "(shape)".
    """
    sigma = check_positive(sigma, "sigma")
    d = check_count_array(d, "d")
    n = check_count_array(n, "n")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    return scalar_or_array(sigma * d * math.sqrt(math.log(1 / delta)) / (n * epsilon))

