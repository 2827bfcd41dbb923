"""Chapter 5 data: sparse and classical linear regression with a known β."""

from __future__ import annotations

import numpy as np

from .._validation import as_rng, check_int, check_memory, check_positive

__all__ = ["sparse_regression_data", "linear_regression_data"]


def _rademacher(rng, n, d):
    # ±1 entries: ‖x‖∞ = 1 exactly and E[xxᵀ] = I_d (so λ_min = λ_max = 1, ρ = 0 in Theorem 5.7).
    return rng.integers(0, 2, size=(n, d), dtype=np.int8).astype(float) * 2.0 - 1.0


def sparse_regression_data(n, d, s, noise_std=1.0, rng=None):
    """n draws of y = x'β + ξ with a Rademacher design and an s-sparse β, ‖β‖₂ = 1 (chapter 5, class P(σ, d, s)).

    The support is a uniformly random s-subset of the d coordinates; the nonzeros
    are ±Unif[0.5, 1] rescaled to ‖β‖₂ = 1; ξ ~ N(0, σ²).

    Parameters
    ----------
    n : int, n >= 1
    d : int, d >= 1
    s : int, 1 <= s <= d
    noise_std : float, σ >= 0
    rng : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray (n, d) of ±1
    y : ndarray (n,)
    beta : ndarray (d,), s nonzeros, unit ℓ₂ norm

    Cost O(n·d); X takes 8·n·d bytes, refused up front beyond ``dpteach._validation.MAX_MEMORY_BYTES``.
    """
    n = check_int(n, "n", minimum=1)
    d = check_int(d, "d", minimum=1)
    check_memory(("n", n), ("d", d))
    s = check_int(s, "s", minimum=1, maximum=d)
    noise_std = check_positive(noise_std, "noise_std", allow_zero=True)
    rng = as_rng(rng)
    beta = np.zeros(d)
    support = rng.choice(d, size=s, replace=False)
    beta[support] = rng.choice([-1.0, 1.0], size=s) * rng.uniform(0.5, 1.0, size=s)
    beta /= np.linalg.norm(beta)
    X = _rademacher(rng, n, d)
    y = X @ beta + rng.normal(0.0, noise_std, size=n) if noise_std > 0 else X @ beta
    return X, y, beta


def linear_regression_data(n, d, noise_std=1.0, rng=None):
    """n draws of y = x'β + ξ with a Rademacher design and a dense β, ‖β‖₂ = 1 (chapter 5, class P(σ, d)).

    β is uniform on the unit sphere; ξ ~ N(0, σ²).

    Parameters
    ----------
    n : int, n >= 1
    d : int, d >= 1
    noise_std : float, σ >= 0
    rng : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray (n, d) of ±1
    y : ndarray (n,)
    beta : ndarray (d,), unit ℓ₂ norm
    """
    n = check_int(n, "n", minimum=1)
    d = check_int(d, "d", minimum=1)
    check_memory(("n", n), ("d", d))
    noise_std = check_positive(noise_std, "noise_std", allow_zero=True)
    rng = as_rng(rng)
    beta = rng.normal(size=d)
    beta /= np.linalg.norm(beta)
    X = _rademacher(rng, n, d)
    y = X @ beta + rng.normal(0.0, noise_std, size=n) if noise_std > 0 else X @ beta
    return X, y, beta
