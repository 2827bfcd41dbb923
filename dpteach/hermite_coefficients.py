"""Chapter 6, Sections 6.2–6.3: the exact Hermite coefficients of a threshold and of a halfspace.

The degree-p L² projection of sign(z − θ) under N(0, 1) has the closed-form
coefficients c_k(θ) of :func:`threshold_hermite_coefficients`; lifted to ℝ^d along
a unit normal w they give the projection of the halfspace sign(⟨w, x⟩ − t) in the
order of the feature map ψ_p (:func:`halfspace_hermite_coefficients`). These are
the "oracle polynomials" of Section 6.3 (bounded coefficients) and of the tests:
their coefficient norm is ≤ 1 (Bessel). Nothing here reads data.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ._constraints import FiniteInterval, POSITIVE_INT, Real, validate_params
from ._array_constraints import Array
from .feature_scaling import feature_dimension_or_refuse
from .hermite import hermite_1d, multi_indices

__all__ = ["threshold_hermite_coefficients", "halfspace_hermite_coefficients"]

FINITE = FiniteInterval(Real, None, None)  # any finite real (check_finite_scalar)


@validate_params({"theta": FINITE, "degree": POSITIVE_INT})
def threshold_hermite_coefficients(theta, degree):
    """Exact Hermite coefficients c_k = E[sign(Z − θ)·h_k(Z)], Z ~ N(0, 1), k = 0..p (Section 6.2).

    c_0 = 1 − 2Φ(θ) and, for k ≥ 1, c_k = 2φ(θ)·h_{k−1}(θ)/√k, from
    ∫_θ^∞ He_k φ = He_{k−1}(θ)φ(θ). The degree-p projection Σ_k c_k h_k is the
    best L² approximation of the threshold; Σ c_k² ≤ 1 (Bessel).

    Parameters
    ----------
    theta : float, finite
    degree : int ≥ 1

    Returns
    -------
    numpy.ndarray, shape (p + 1,). Cost O(p).

    Raises
    ------
    TypeError, ValueError
        For a non-finite θ or degree < 1.

    Examples
    --------
    >>> np.round(threshold_hermite_coefficients(theta=0.3, degree=3), 3)
    array([-0.236,  0.763,  0.162, -0.283])
    """
    # h_0(θ), …, h_p(θ): the table of hermite_1d at one point, whose size it refuses beyond the limits.
    h = hermite_1d(theta, degree)
    density = math.exp(-0.5 * theta * theta) / math.sqrt(2.0 * math.pi)
    coefficients = np.empty(degree + 1)
    coefficients[0] = 1.0 - 2.0 * special.ndtr(theta)
    k = np.arange(1, degree + 1)
    coefficients[1:] = 2.0 * density * h[:-1] / np.sqrt(k)
    return coefficients


@validate_params({"normal": Array(ndim=1), "threshold": FINITE, "degree": POSITIVE_INT})
def halfspace_hermite_coefficients(normal, threshold, degree):
    """Exact coefficients of the degree-p L² projection of x ↦ sign(⟨w, x⟩ − t), in ψ_p's order.

    With θ = t and ‖w‖ = 1, [Π_p h_{w,t}]_κ = c_{|κ|}(θ)·√(|κ|!/κ!)·w^κ
    (c from :func:`threshold_hermite_coefficients`), because
    h_k(⟨w, x⟩) = Σ_{|κ|=k} √(k!/κ!) w^κ h_κ(x). An "oracle polynomial" for
    tests; its coefficient norm is ≤ 1.

    Parameters
    ----------
    normal : array_like, shape (d,), finite, non-zero (normalised here)
    threshold : float, finite
    degree : int ≥ 1

    Returns
    -------
    numpy.ndarray, shape (D,). Cost O(D·d).

    Raises
    ------
    TypeError, ValueError
        For a zero, non-finite or non-1-D normal, a non-finite threshold, degree < 1.

    Examples
    --------
    >>> normal = np.array([0.6, 0.8])
    >>> np.round(halfspace_hermite_coefficients(normal, threshold=0.3, degree=2), 3)
    array([-0.236,  0.458,  0.61 ,  0.058,  0.11 ,  0.104])
    """
    w = normal
    norm = np.linalg.norm(w)
    if norm == 0:
        raise ValueError("normal must be a non-zero vector (it is normalised to unit length), got all zeros")
    w = w / norm
    # The multi-index table and the result are (D, d) and (D,): refuse D above the feature-size limit.
    feature_dimension_or_refuse(w.size, degree)
    c = threshold_hermite_coefficients(threshold, degree)
    kappas = multi_indices(w.size, degree)
    total = kappas.sum(axis=1)
    log_multinomial = special.gammaln(total + 1) - special.gammaln(kappas + 1).sum(axis=1)
    monomial = np.prod(w[None, :] ** kappas, axis=1)
    return c[total] * np.exp(0.5 * log_multinomial) * monomial
