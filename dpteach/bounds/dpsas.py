"""Chapter 8 rates: Theorem 4.1's sample complexity (Table 1, last row) and its C·OPT + α guarantee."""

from __future__ import annotations

from .._validation import (check_count_array, check_epsilon_array, check_positive, check_positive_array,
                           check_probability, scalar_or_array)

__all__ = ["dpsas_sample_complexity_rate", "semi_agnostic_error_bound"]


def dpsas_sample_complexity_rate(d, alpha, epsilon):
    """d/α² + d/(εα): the shape of Theorem 4.1's n = Õ(d/α² + d/(εα)) (Eq. (3); Table 1, row 4).

    Shape only: the theorem hides constants and polylogarithmic factors
    (log(1/α) parts, log⁴(1/η) rounds, log(1/β), log(1/δ)), so a figure must
    fit or fix a constant in front and say "(shape)". The first term is the
    non-private cost, the second the cost of privacy; they meet at ε = α.
    The same shape with η for α is Proposition 4.2's per-block size m₀.

    Parameters
    ----------
    d : float or array_like
        Dimension(s), > 0.
    alpha : float or array_like
        Accuracy, in (0, 1).
    epsilon : float or array_like
        Privacy, 0 < ε < inf.

    Returns
    -------
    float or ndarray (broadcast).

    Raises
    ------
    ValueError, TypeError
        For non-positive or non-finite inputs, α ≥ 1.
    """
    d = check_count_array(d, "d")
    alpha = check_positive_array(alpha, "alpha")
    if (alpha >= 1).any():
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    epsilon = check_epsilon_array(epsilon)
    return scalar_or_array(d / alpha ** 2 + d / (epsilon * alpha))


def semi_agnostic_error_bound(opt, alpha, constant=2.0):
    """C·OPT + α: the semi-agnostic guarantee of Theorem 4.1 (err_P(h) ≤ C·OPT + α w.p. ≥ 1 − β).

    The theorem's C is an unspecified universal constant; ``constant`` = 2 is
    the value our tests and figures use (the measured plateau is ≈ 1.35·OPT).

    Parameters
    ----------
    opt : float or array_like
        OPT ∈ [0, 1/2].
    alpha : float
        α ∈ (0, 1).
    constant : float
        C ≥ 1.

    Returns
    -------
    float or ndarray.

    Raises
    ------
    ValueError, TypeError
        For OPT outside [0, 1/2], α ∉ (0, 1), C < 1.
    """
    opt = check_positive_array(opt, "opt", allow_zero=True)
    if (opt > 0.5).any():
        raise ValueError(f"opt must lie in [0, 0.5], got {opt!r}")
    alpha = check_probability(alpha, "alpha")
    constant = check_positive(constant, "constant")
    if constant < 1:
        raise ValueError(f"constant must be >= 1 (C·OPT + alpha with C < 1 is not a semi-agnostic guarantee), "
                         f"got {constant!r}")
    return scalar_or_array(constant * opt + alpha)
