"""Chapter 8 rates: Theorem 4.1's sample complexity (Table 1, last row), its C·OPT + α guarantee, and the
closed-form error that DPSAS's noise-biased threshold alone causes under random classification noise."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from scipy import special

from .._constraints import FiniteInterval, OPEN_UNIT, OrNone, validate_params
from .._array_constraints import CountArray, EpsilonArray, PositiveArray
from .._validation import scalar_or_array

__all__ = ["dpsas_sample_complexity_rate", "semi_agnostic_error_bound", "rcn_threshold_bias_error"]


@validate_params({"d": CountArray(), "alpha": PositiveArray(maximum=1), "epsilon": EpsilonArray()})
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

    Examples
    --------
    >>> round(dpsas_sample_complexity_rate(d=2, alpha=0.1, epsilon=1.0), 6)
    220.0
    """
    # At α = 1e-300 (or ε·α below 1e-308) α² or εα underflows to 0 and d/0 = inf; the true rate, at
    # least d/α² > 1e308, exceeds the largest float too, so inf is the right answer, not a warning.
    with np.errstate(over="ignore", divide="ignore"):
        return scalar_or_array(d / alpha ** 2 + d / (epsilon * alpha))


# C >= 1: C·OPT + α with C < 1 is not a semi-agnostic guarantee.
@validate_params({"opt": PositiveArray(allow_zero=True, maximum=0.5, include_maximum=True), "alpha": OPEN_UNIT,
                  "constant": FiniteInterval(Real, 1, None, closed="left")})
def semi_agnostic_error_bound(opt, alpha, constant=2.0):
    """C·OPT + α: the semi-agnostic guarantee of Theorem 4.1 (err_P(h) ≤ C·OPT + α w.p. ≥ 1 − β).

    The theorem's C is an unspecified universal constant (its proof gives
    2·C_DPSAS); ``constant`` = 2 is our test target, not a constant of the
    theorem. Under RCN the threshold bias alone gives
    :func:`rcn_threshold_bias_error` (1.345·OPT at t* = 0.5, η₀ = 0.05).

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

    Examples
    --------
    >>> round(semi_agnostic_error_bound(opt=0.1, alpha=0.1), 6)
    0.3
    """
    return scalar_or_array(constant * opt + alpha)


@validate_params({"threshold": FiniteInterval(Real, None, None),
                  # η₀ < 1/2 (a flip rate of 1/2 leaves no signal); κ < 1/2 (the clip interval [κ, 1 − κ] is non-empty)
                  "noise_rate": FiniteInterval(Real, 0, 0.5, closed="left"), "kappa": OrNone(FiniteInterval(Real, 0, 0.5))})
def rcn_threshold_bias_error(threshold, noise_rate, kappa=None):
    """Error of the target direction with DPSAS's *population* threshold under RCN (chapter 8, "Where C·OPT comes from").

    Data: y = sign(⟨w*, x⟩ − t*) flipped independently with probability η₀,
    x ~ N(0, I_d). Lines 4–5 of Algorithm 8.3 estimate Pr[y = +1], whose
    population value is p = η₀ + (1 − 2η₀)Φ(−t*), and set τ̄ = Φ⁻¹(clip_[κ,1−κ](p)).
    The halfspace sign(⟨w*, x⟩ + τ̄) disagrees with the target on a slab of
    mass |Φ(τ̄) − Φ(−t*)| = |clip(p) − Φ(−t*)| (= 2η₀|Φ(t*) − ½| without
    clipping), so its error is

        η₀ + (1 − 2η₀)·|clip(p) − Φ(−t*)|,

    e.g. 1.345·η₀ at t* = 0.5, η₀ = 0.05. Even with the exact direction and
    infinitely many examples, DPSAS does not get below this.

    Parameters
    ----------
    threshold : float
        t*, finite.
    noise_rate : float
        η₀ ∈ [0, 1/2).
    kappa : None or float
        κ ∈ (0, 1/2), the clip of line 5 (DPSAS uses κ = η); None: no clipping.

    Returns
    -------
    float, the error (≥ η₀ = OPT).

    Raises
    ------
    ValueError, TypeError
        For a non-finite t*, η₀ ∉ [0, 1/2), κ ∉ (0, 1/2).

    Examples
    --------
    >>> round(rcn_threshold_bias_error(threshold=0.5, noise_rate=0.05, kappa=0.05), 4)
    0.0672
    """
    clean_positive = float(special.ndtr(-threshold))  # Pr[h*(x) = +1]
    p = noise_rate + (1.0 - 2.0 * noise_rate) * clean_positive
    if kappa is not None:
        p = min(max(p, kappa), 1.0 - kappa)
    return noise_rate + (1.0 - 2.0 * noise_rate) * math.fabs(p - clean_positive)
