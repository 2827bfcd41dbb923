"""Chapter 1 rates: the Laplace mechanism's error and the exponential mechanism's utility."""

from __future__ import annotations

import math

from .._constraints import OPEN_UNIT, POSITIVE, POSITIVE_INT, Epsilon, OrNone, validate_params
from .._array_constraints import EpsilonArray
from .._validation import scalar_or_array

__all__ = [
    "laplace_expected_absolute_error",
    "laplace_tail_bound",
    "exponential_mechanism_utility_bound",
]


@validate_params({"sensitivity": POSITIVE, "epsilon": Epsilon()})
def laplace_expected_absolute_error(sensitivity, epsilon):
    """E|Lap(Δ/ε)| = Δ/ε: the expected error of the Laplace mechanism (chapter 1, Theorem 1.7).

    Parameters
    ----------
    sensitivity : float
        Δ₁ > 0.
    epsilon : float
        0 < ε < inf.

    Returns
    -------
    float

    Raises
    ------
    ValueError, TypeError
        Δ or ε not a finite positive number.

    Examples
    --------
    >>> laplace_expected_absolute_error(sensitivity=1.0, epsilon=1.0)
    1.0
    """
    return sensitivity / epsilon


@validate_params({"beta": OPEN_UNIT, "sensitivity": POSITIVE, "epsilon": Epsilon()})
def laplace_tail_bound(sensitivity, epsilon, beta):
    """The t with Pr[|Lap(Δ/ε)| > t] = β, i.e. t = (Δ/ε) ln(1/β) (chapter 1, Theorem 1.7, accuracy part).

    Parameters
    ----------
    sensitivity : float
        Δ₁ > 0.
    epsilon : float
        0 < ε < inf.
    beta : float
        Failure probability, 0 < β < 1.

    Returns
    -------
    float

    Raises
    ------
    ValueError, TypeError
        Δ, ε or β outside the ranges above.

    Examples
    --------
    >>> round(laplace_tail_bound(sensitivity=1.0, epsilon=1.0, beta=0.05), 4)
    2.9957
    """
    return laplace_expected_absolute_error(sensitivity, epsilon) * math.log(1 / beta)


@validate_params({"n_candidates": POSITIVE_INT, "sensitivity": POSITIVE, "t": OrNone(POSITIVE),
                  "epsilon": EpsilonArray()})
def exponential_mechanism_utility_bound(n_candidates, sensitivity, epsilon, t=None):
    """Utility of the exponential mechanism (chapter 1, Theorem 1.22; Dwork–Roth Thm 3.11).

    With ``t=None``: the bound on the expected loss,
    E[OPT − q(D, M(D))] <= (2Δ/ε)(ln R + 1).
    With ``t > 0``: the loss exceeded with probability at most e^{-t},
    (2Δ/ε)(ln R + t).

    Parameters
    ----------
    n_candidates : int
        R, the number of candidates, >= 1.
    sensitivity : float
        Δq > 0.
    epsilon : float or array_like
        0 < ε < inf (an array is evaluated elementwise, for plotting).
    t : float, optional
        Tail parameter t > 0.

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError, TypeError
        R < 1, Δ <= 0, t <= 0, or an ε outside (0, inf).

    Examples
    --------
    >>> round(exponential_mechanism_utility_bound(n_candidates=10, sensitivity=1.0, epsilon=1.0), 4)
    6.6052
    """
    slack = 1.0 if t is None else t
    value = 2 * sensitivity / epsilon * (math.log(n_candidates) + slack)
    return scalar_or_array(value)
