"""Chapter 3 rates: local vs central means, one simulated SQ answer, rejection sampling.

``n``, ``m`` and ``tau`` may be arrays (for plotting); ε and p are scalars.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_epsilon, check_int, check_positive_array, check_probability, scalar_or_array

__all__ = [
    "local_mean_rmse",
    "central_mean_rmse",
    "sq_answer_failure_bound",
    "rejection_sampling_tv_bound",
    "rejection_sampling_queries",
    "masked_parity_lower_bound_shape",
]


def local_mean_rmse(n, epsilon, p, randomizer="rr", include_sampling=True):
    """RMSE of the local estimate of p = Pr[b = 1] from n users (chapter 3, eq-local-rmse).

    √((p(1 − p) + v)/n) with the randomizer's noise variance v:
    e^ε/(e^ε − 1)² for randomized response (debiased, eq-rr-debias) and 2/ε²
    for the Laplace randomizer on φ = 2b − 1 (its 8/ε², divided by 4 for the
    map back to p). Θ(1/(ε√n)) for small ε. ``include_sampling=False`` drops
    p(1 − p): the error against the data's own mean.
    """
    n = check_positive_array(n, "n")
    epsilon = check_epsilon(epsilon)
    p = check_probability(p, "p", low_open=False, high_open=False)
    if randomizer == "rr":
        noise = 1.0 / (4.0 * math.sinh(epsilon / 2) ** 2)
    elif randomizer == "laplace":
        noise = 2.0 / epsilon ** 2
    else:
        raise ValueError(f"randomizer must be one of 'rr', 'laplace', got {randomizer!r}")
    value = np.sqrt((p * (1 - p) * bool(include_sampling) + noise) / n)
    return scalar_or_array(value)


def central_mean_rmse(n, epsilon, p, include_sampling=True):
    """RMSE of the central Laplace mean k/n + Lap(1/(nε)): √(p(1 − p)/n + 2/(nε)²) (chapter 3, eq-central-rmse).

    The privacy part √2/(nε) is Θ(1/(εn)), a factor √n below the local
    Θ(1/(ε√n)). ``include_sampling=False`` drops p(1 − p)/n.
    """
    n = check_positive_array(n, "n")
    epsilon = check_epsilon(epsilon)
    p = check_probability(p, "p", low_open=False, high_open=False)
    value = np.sqrt(p * (1 - p) / n * bool(include_sampling) + 2.0 / (n * epsilon) ** 2)
    return scalar_or_array(value)


def sq_answer_failure_bound(m, epsilon, tau, constants="theorem"):
    """Pr[one simulated SQ answer is off by more than τ] for a group of m users (chapter 3, thm-one-query).

    ``"theorem"`` (our constants, valid for ετ <= 8√2): 2e^{−τ²m/8} + 2e^{−mε²τ²/128}.
    ``"slide"`` (the slides' constants as we read them, [D?]): 2e^{−τ²m/8} + e^{−ε²τ²m/64}.
    Clipped to 1.
    """
    m = check_positive_array(m, "m")
    epsilon = check_epsilon(epsilon)
    tau = check_probability(tau, "tau")
    if constants == "theorem":
        if epsilon * tau > 8 * math.sqrt(2):
            raise ValueError(f"epsilon·tau must be <= 8√2 for the theorem's Chernoff step, got {epsilon * tau!r}")
        value = 2 * np.exp(-tau ** 2 * m / 8) + 2 * np.exp(-m * (epsilon * tau) ** 2 / 128)
    elif constants == "slide":
        value = 2 * np.exp(-tau ** 2 * m / 8) + np.exp(-(epsilon * tau) ** 2 * m / 64)
    else:
        raise ValueError(f"constants must be one of 'theorem', 'slide', got {constants!r}")
    value = np.minimum(value, 1.0)
    return scalar_or_array(value)


def rejection_sampling_tv_bound(tau, epsilon, t=1):
    """Total variation between t simulated and t real local reports: 2tτe^{2ε} (chapter 3, thm-local-to-sq) [O].

    Our reconstruction's bound (the slides do not contain the local → SQ
    direction); clipped to 1.
    """
    tau = check_positive_array(tau, "tau")
    epsilon = check_epsilon(epsilon)
    t = check_int(t, "t", minimum=1)
    value = np.minimum(2 * t * tau * math.exp(2 * epsilon), 1.0)
    return scalar_or_array(value)


def rejection_sampling_queries(epsilon, tau=0.0):
    """Expected SQ queries per simulated report: e^ε/(1 − τe^{2ε}) (e^ε with an exact oracle) (chapter 3, thm-local-to-sq) [O]."""
    epsilon = check_epsilon(epsilon)
    tau = check_positive_array(tau, "tau", allow_zero=True)
    relative = tau * math.exp(2 * epsilon)
    if np.any(tau < 0) or np.any(relative >= 1):
        raise ValueError(f"tau must satisfy 0 <= tau < e^(-2ε) = {math.exp(-2 * epsilon):.4g}, got {tau!r}")
    value = math.exp(epsilon) / (1 - relative)
    return scalar_or_array(value)


def masked_parity_lower_bound_shape(d, epsilon):
    """The shape 2^d/ε² of the non-interactive lower bound for masked parities (chapter 3, sketch; constants unknown) [M+O].

    From the Parseval argument: t fixed queries of tolerance τ can be
    correlated with at most t/τ² of the 2^d characters, and n users give
    t/τ² ≈ ε²n. Only the growth in d is meaningful.
    """
    d = check_positive_array(d, "d")
    epsilon = check_epsilon(epsilon)
    value = 2.0 ** d / epsilon ** 2
    return scalar_or_array(value)
