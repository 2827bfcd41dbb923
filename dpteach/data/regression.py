"""Chapter 5 data: sparse and classical linear regression with a known β."""

from __future__ import annotations

import numpy as np

from .._constraints import FiniteInterval, POSITIVE_INT, Real, validate_params
from .._validation import check_int, check_memory

#: The sample's size and the noise level σ >= 0 (σ = 0: noiseless responses).
SAMPLE = {"n": POSITIVE_INT, "d": POSITIVE_INT, "noise_std": FiniteInterval(Real, 0, None, closed="left"),
          "rng": "random_state"}

__all__ = ["sparse_regression_data", "linear_regression_data"]


def _rademacher(rng, n, d):
    # ±1 entries: ‖x‖∞ = 1 exactly and E[xxᵀ] = I_d (so λ_min = λ_max = 1, ρ = 0 in Theorem 5.7).
    return rng.integers(0, 2, size=(n, d), dtype=np.int8).astype(float) * 2.0 - 1.0


@validate_params({**SAMPLE, "s": POSITIVE_INT})
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

    Examples
    --------
    >>> X, y, beta = sparse_regression_data(n=5, d=4, s=2, rng=0)
    >>> X.shape, int(np.count_nonzero(beta)), round(float(np.linalg.norm(beta)), 6)
    ((5, 4), 2, 1.0)
    """
    check_memory(("n", n), ("d", d))
    s = check_int(s, "s", minimum=1, maximum=d)  # s <= d relates s to d
    beta = np.zeros(d)
    support = rng.choice(d, size=s, replace=False)
    beta[support] = rng.choice([-1.0, 1.0], size=s) * rng.uniform(0.5, 1.0, size=s)
    beta /= np.linalg.norm(beta)
    X = _rademacher(rng, n, d)
    y = X @ beta + rng.normal(0.0, noise_std, size=n) if noise_std > 0 else X @ beta
    return X, y, beta


@validate_params(SAMPLE)
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

    Examples
    --------
    >>> X, y, beta = linear_regression_data(n=5, d=2, rng=0)
    >>> X.shape, y.shape, beta.shape
    ((5, 2), (5,), (2,))
    """
    check_memory(("n", n), ("d", d))
    beta = rng.normal(size=d)
    beta /= np.linalg.norm(beta)
    X = _rademacher(rng, n, d)
    y = X @ beta + rng.normal(0.0, noise_std, size=n) if noise_std > 0 else X @ beta
    return X, y, beta
