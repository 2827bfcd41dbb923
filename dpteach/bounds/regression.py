"""Chapter 5 rates: the shapes of the paper's Theorems 16–19 (private sparse and classical regression).

All four are **shape only**: the theorems hold up to unspecified constants
("≲", "≳"), so each function returns the bracket of its theorem with every
constant set to 1. A figure fits one constant to the data and labels the
curve "(shape)". ``log`` is the natural logarithm.
"""

from __future__ import annotations

import numpy as np

from .._constraints import Delta, FiniteInterval, Integral, POSITIVE, POSITIVE_INT, validate_params
from .._array_constraints import CountArray, EpsilonArray
from .._validation import check_int, scalar_or_array

__all__ = [
    "sparse_regression_upper_rate",
    "sparse_regression_lower_rate",
    "classical_regression_upper_rate",
    "classical_regression_lower_rate",
]


#: The parameters every rate shares: n and ε are scalars or arrays (the x-axis of a figure), broadcast together.
# n >= 2: the rates contain log n.
COMMON = {"n": CountArray(minimum=2), "epsilon": EpsilonArray(),
          "delta": Delta(allow_zero=False), "noise_std": POSITIVE}
#: d >= 2 (the sparse rates contain log d).
D_SPARSE = FiniteInterval(Integral, 2, None, closed="left")


@validate_params({**COMMON, "d": D_SPARSE, "s": POSITIVE_INT})
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

    Examples
    --------
    >>> round(sparse_regression_upper_rate(n=1000, d=10, s=2, epsilon=1.0, delta=1e-5), 4)
    0.462
    """
    s = check_int(s, "s", minimum=1, maximum=d)  # s <= d relates s to d
    statistical = np.sqrt(s * np.log(d) * np.log(n) / n)
    privacy = s * np.sqrt(np.log(1 / delta)) * np.log(d) * np.log(n) ** 1.5 / (n * epsilon)
    return scalar_or_array(noise_std * (statistical + privacy))


@validate_params({**COMMON, "d": D_SPARSE, "s": POSITIVE_INT})
def sparse_regression_lower_rate(n, d, s, epsilon, delta, noise_std=1.0):
    """Shape only: Theorem 5.8 (the paper's Theorem 16), the minimax lower bound for sparse regression.

    σ·( √(s·log d / n) + min(s·log(d/s)·√(log(1/δ)) / (n ε), 1) ). The cap "∧ 1"
    is read as applying to the privacy term (the paper's bracket is ambiguous).
    Parameters as in :func:`sparse_regression_upper_rate` (here s < d, so log(d/s) > 0).

    Examples
    --------
    >>> round(sparse_regression_lower_rate(n=1000, d=10, s=2, epsilon=1.0, delta=1e-5), 4)
    0.0788
    """
    s = check_int(s, "s", minimum=1, maximum=d - 1)  # s < d relates s to d
    statistical = np.sqrt(s * np.log(d) / n)
    privacy = np.minimum(s * np.log(d / s) * np.sqrt(np.log(1 / delta)) / (n * epsilon), 1.0)
    return scalar_or_array(noise_std * (statistical + privacy))


@validate_params({**COMMON, "d": POSITIVE_INT})
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

    Examples
    --------
    >>> round(classical_regression_upper_rate(n=1000, d=5, epsilon=1.0, delta=1e-5), 4)
    0.1153
    """
    return scalar_or_array(noise_std * (np.sqrt(d / n) + d * np.sqrt(np.log(1 / delta) * np.log(n))
                                        / (n * epsilon)))


@validate_params({**COMMON, "d": POSITIVE_INT})
def classical_regression_lower_rate(n, d, epsilon, delta, noise_std=1.0):
    """Shape only: Theorem 5.9 (the paper's Theorem 18).

    σ·( √(d/n) + min(d·√(log(1/δ)) / (n ε), 1) ). Parameters as in
    :func:`classical_regression_upper_rate`.

    Examples
    --------
    >>> round(classical_regression_lower_rate(n=1000, d=5, epsilon=1.0, delta=1e-5), 4)
    0.0877
    """
    return scalar_or_array(noise_std * (np.sqrt(d / n)
                                        + np.minimum(d * np.sqrt(np.log(1 / delta)) / (n * epsilon), 1.0)))
