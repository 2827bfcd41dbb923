"""Chapter 5 rates: the shapes of the paper's Theorems 16–19 (private sparse and classical regression).

All four are **shape only**: the theorems hold up to unspecified constants
("≲", "≳"), so each function returns the bracket of its theorem with every
constant set to 1. A figure fits one constant to the data and labels the
curve "(shape)". ``log`` is the natural logarithm.
"""

from __future__ import annotations

import numpy as np

from .._validation import (check_count_array, check_delta, check_epsilon_array, check_int, check_positive,
                           check_positive_array, scalar_or_array)

__all__ = [
    "sparse_regression_upper_rate",
    "sparse_regression_lower_rate",
    "classical_regression_upper_rate",
    "classical_regression_lower_rate",
]


def _common(n, epsilon, delta, noise_std):
    n = check_count_array(n, "n")
    if np.any(n < 2):
        raise ValueError(f"n must be >= 2 (the rates contain log n), got {n.min()!r}")
    epsilon = check_epsilon_array(epsilon)
    delta = check_delta(delta, allow_zero=False)
    noise_std = check_positive(noise_std, "noise_std")
    return n, epsilon, delta, noise_std


def sparse_regression_upper_rate(n, d, s, epsilon, delta, noise_std=1.0):
    """Shape only: Theorem 5.7 (the paper's Theorem 17), the private LASSO's error bound.

    σ·( √(s·log d·log n / n) + s·√(log(1/δ))·log d·log^{3/2} n / (n ε) ).

    Parameters
    ----------
    n : float or array, n >= 2
    d : int, d >= 2
    s : int, 1 <= s <= d
    epsilon : float or array, 0 < ε < inf
    delta : float, 0 < δ < 1
    noise_std : float, σ > 0

    Returns
    -------
    float or ndarray (broadcast over n and ε)
    """
    n, epsilon, delta, noise_std = _common(n, epsilon, delta, noise_std)
    d = check_int(d, "d", minimum=2)
    s = check_int(s, "s", minimum=1, maximum=d)
    statistical = np.sqrt(s * np.log(d) * np.log(n) / n)
    privacy = s * np.sqrt(np.log(1 / delta)) * np.log(d) * np.log(n) ** 1.5 / (n * epsilon)
    return scalar_or_array(noise_std * (statistical + privacy))


def sparse_regression_lower_rate(n, d, s, epsilon, delta, noise_std=1.0):
    """Shape only: Theorem 5.8 (the paper's Theorem 16), the minimax lower bound for sparse regression.

    σ·( √(s·log d / n) + min(s·log(d/s)·√(log(1/δ)) / (n ε), 1) ). The cap "∧ 1"
    is read as applying to the privacy term (the paper's bracket is ambiguous).
    Parameters as in :func:`sparse_regression_upper_rate` (here s < d, so log(d/s) > 0).
    """
    n, epsilon, delta, noise_std = _common(n, epsilon, delta, noise_std)
    d = check_int(d, "d", minimum=2)
    s = check_int(s, "s", minimum=1, maximum=d - 1)
    statistical = np.sqrt(s * np.log(d) / n)
    privacy = np.minimum(s * np.log(d / s) * np.sqrt(np.log(1 / delta)) / (n * epsilon), 1.0)
    return scalar_or_array(noise_std * (statistical + privacy))


def classical_regression_upper_rate(n, d, epsilon, delta, noise_std=1.0):
    """Shape only: Theorem 5.10 (the paper's Theorem 19), noisy OLS.

    σ·( √(d/n) + d·√(log(1/δ)·log n) / (n ε) ).

    Parameters
    ----------
    n : float or array, n >= 2
    d : int, d >= 1
    epsilon : float or array, 0 < ε < inf
    delta : float, 0 < δ < 1
    noise_std : float, σ > 0
    """
    n, epsilon, delta, noise_std = _common(n, epsilon, delta, noise_std)
    d = check_int(d, "d", minimum=1)
    return scalar_or_array(noise_std * (np.sqrt(d / n) + d * np.sqrt(np.log(1 / delta) * np.log(n))
                                        / (n * epsilon)))


def classical_regression_lower_rate(n, d, epsilon, delta, noise_std=1.0):
    """Shape only: Theorem 5.9 (the paper's Theorem 18).

    σ·( √(d/n) + min(d·√(log(1/δ)) / (n ε), 1) ). Parameters as in
    :func:`classical_regression_upper_rate`.
    """
    n, epsilon, delta, noise_std = _common(n, epsilon, delta, noise_std)
    d = check_int(d, "d", minimum=1)
    return scalar_or_array(noise_std * (np.sqrt(d / n)
                                        + np.minimum(d * np.sqrt(np.log(1 / delta)) / (n * epsilon), 1.0)))
