"""Chapter 6 rates: the Table 1 row of Algorithm 6.10 (private L1 polynomial regression, the paper's Theorem 2.1).

n = Õ(D_p/α² + D_p/(εα)) with D_p = C(d + p, p) and p = O(1/α²). The paper
leaves the constants and logarithms unspecified, so these are shapes only:
figures label them "(shape)".
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import (check_count_array, check_epsilon_array, check_int, check_positive_array, check_probability,
                           scalar_or_array)

__all__ = ["hermite_l1_sample_complexity", "hermite_l1_excess_error"]


@np.errstate(over="ignore", divide="ignore")  # α = 1e-300: the bound is inf (numpy), not a ZeroDivisionError
def hermite_l1_sample_complexity(d, degree, alpha, epsilon):
    """Shape only: D_p/α² + D_p/(εα), the sample size of Theorem 6.12 without constants or logs.

    Parameters
    ----------
    d, degree : int ≥ 1
    alpha : float in (0, 1)
    epsilon : float > 0, or an array of them (for plotting)

    Returns
    -------
    float or numpy.ndarray. Cost O(size of ε).

    Raises
    ------
    TypeError, ValueError
        For d, degree < 1, α ∉ (0, 1), ε ≤ 0.
    """
    d = check_int(d, "d", minimum=1)
    degree = check_int(degree, "degree", minimum=1)
    alpha = np.float64(check_probability(alpha, "alpha"))
    eps = check_epsilon_array(epsilon)
    D = math.comb(d + degree, degree)
    return scalar_or_array(D / alpha ** 2 + D / (eps * alpha))


def hermite_l1_excess_error(n, d, degree, epsilon):
    """Shape only: √(D_p/n) + D_p/(εn), the excess error of Algorithm 6.10 at sample size n (Theorem 6.12 inverted).

    The first term is statistical (the paper's Lemma B.7), the second the price
    of privacy (Lemma B.4 with T√D_p = 2D_p); for ε ≥ α the
    second is dominated ("privacy for free", the paper's Remark 2).

    Parameters
    ----------
    n : float > 0 or array
    d, degree : int ≥ 1
    epsilon : float > 0

    Returns
    -------
    float or numpy.ndarray. Cost O(size of n).

    Raises
    ------
    TypeError, ValueError
        For n ≤ 0, d, degree < 1, ε ≤ 0.
    """
    n = check_count_array(n, "n")
    d = check_int(d, "d", minimum=1)
    degree = check_int(degree, "degree", minimum=1)
    eps = check_epsilon_array(epsilon)
    D = math.comb(d + degree, degree)
    return scalar_or_array((D / n) ** 0.5 + D / (eps * n))
