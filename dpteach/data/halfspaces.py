"""Chapters 6–9 data: halfspaces under the standard Gaussian marginal, with exact errors.

A halfspace is h_{w,t}(x) = sign(⟨w, x⟩ − t) with ‖w‖₂ = 1 (ties go to +1).
Under random classification noise (RCN) with rate η every label of the target
h* is flipped independently with probability η, so OPT = η exactly and any
classifier h has error η + (1 − 2η)·Pr[h ≠ h*] (halfspace_overview §5.1).
For two halfspaces the disagreement is exact through the bivariate normal
CDF Φ₂: Pr[h_{w₁,t₁} ≠ h_{w₂,t₂}] = Φ(t₁) + Φ(t₂) − 2Φ₂(t₁, t₂; ⟨w₁, w₂⟩).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .._validation import as_rng, check_finite_array, check_int, check_probability
from .generic import flip_labels

__all__ = ["gaussian_halfspace_data", "halfspace_disagreement", "rcn_halfspace_error"]


def _unit_normal(normal, d, name="normal"):
    if normal is None:
        normal = np.zeros(d)
        normal[0] = 1.0
    normal = check_finite_array(normal, name, shape=(d,))
    norm = np.linalg.norm(normal)
    if norm == 0:
        raise ValueError(f"{name} must be a non-zero vector (it is normalised to unit length), got all zeros")
    return normal / norm


def gaussian_halfspace_data(n, d, normal=None, threshold=0.0, noise_rate=0.0, rng=None):
    """x ~ N(0, I_d), y = sign(⟨w*, x⟩ − t*) flipped w.p. η (random classification noise).

    Parameters
    ----------
    n, d : int
        Sample size (n >= 1) and dimension (d >= 1).
    normal : array_like of shape (d,), optional
        The target's normal w* (normalised to unit length); default e₁.
    threshold : float
        The target's threshold t*; any finite real.
    noise_rate : float
        The RCN rate η ∈ [0, 1/2); OPT = η.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (X, y, normal) : shapes (n, d), (n,), (d,); labels ±1 (float), ``normal`` the unit w*.

    Raises
    ------
    ValueError, TypeError
        For n, d < 1, a zero or wrongly shaped ``normal``, a non-finite
        threshold, or η outside [0, 1/2).
    """
    n = check_int(n, "n", minimum=1)
    d = check_int(d, "d", minimum=1)
    normal = _unit_normal(normal, d)
    threshold = float(check_finite_array(threshold, "threshold", ndim=0))
    noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
    if noise_rate >= 0.5:
        raise ValueError(f"noise_rate must lie in [0, 0.5) (at 1/2 the labels carry no signal), got {noise_rate!r}")
    rng = as_rng(rng)
    X = rng.standard_normal((n, d))
    clean = np.where(X @ normal - threshold >= 0, 1.0, -1.0)
    return X, flip_labels(clean, noise_rate, rng), normal


def halfspace_disagreement(normal_1, threshold_1, normal_2, threshold_2):
    """Pr_{x ~ N(0, I)}[sign(⟨w₁, x⟩ − t₁) ≠ sign(⟨w₂, x⟩ − t₂)] = Φ(t₁) + Φ(t₂) − 2Φ₂(t₁, t₂; ρ).

    ρ = ⟨w₁, w₂⟩ after normalising both normals. Exact (up to scipy's Φ₂),
    with the degenerate ρ = ±1 cases in closed form.

    Raises
    ------
    ValueError, TypeError
        For normals of different length, zero normals, or non-finite thresholds.
    """
    w1 = check_finite_array(normal_1, "normal_1", ndim=1)
    w2 = _unit_normal(normal_2, w1.size, "normal_2")
    w1 = _unit_normal(w1, w1.size, "normal_1")
    t1 = float(check_finite_array(threshold_1, "threshold_1", ndim=0))
    t2 = float(check_finite_array(threshold_2, "threshold_2", ndim=0))
    rho = float(np.clip(w1 @ w2, -1.0, 1.0))
    phi_1, phi_2 = stats.norm.cdf(t1), stats.norm.cdf(t2)
    if rho > 1 - 1e-12:
        both_below = min(phi_1, phi_2)
    elif rho < -1 + 1e-12:
        both_below = max(0.0, phi_1 + phi_2 - 1.0)
    else:
        both_below = stats.multivariate_normal(mean=[0.0, 0.0], cov=[[1.0, rho], [rho, 1.0]]).cdf([t1, t2])
    return float(np.clip(phi_1 + phi_2 - 2.0 * both_below, 0.0, 1.0))


def rcn_halfspace_error(normal, threshold, target_normal, target_threshold, noise_rate):
    """True error of h_{w,t} under N(0, I) with RCN around h*: η + (1 − 2η)·Pr[h ≠ h*].

    Raises
    ------
    ValueError, TypeError
        As :func:`halfspace_disagreement`, and for η outside [0, 1/2).
    """
    noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
    if noise_rate >= 0.5:
        raise ValueError(f"noise_rate must lie in [0, 0.5), got {noise_rate!r}")
    disagreement = halfspace_disagreement(normal, threshold, target_normal, target_threshold)
    return noise_rate + (1.0 - 2.0 * noise_rate) * disagreement
