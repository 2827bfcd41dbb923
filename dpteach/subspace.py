"""Chapter 7, the subspace step of the proper learner: where does the private polynomial q vary?

This module implements Proposition 7.3 of chapter 7 (M = E[∇q ∇qᵀ] = G Gᵀ in closed
form for q = ⟨m̃, ψ_p⟩, and the expected M of pure noise, the *noise floor*) and lines
4–5 of Algorithm 7.7 (the paper's Algorithm 2): the relevant subspace V spanned by the
eigenvectors of M above the public threshold θ_V = max{c²α²/C₀, γ·noise floor}, the
subspace of the construction in Lemma 7.4 (the paper's Lemma 3.2). Raising the paper's
threshold c²α²/C₀ to the noise floor is our reconstruction (see the chapter's margin notes).

Two teaching constants live here because the threshold is where they meet:
``TEACHING_DEGREE_CONSTANT`` (C₀/c², shared with the degree rule
:func:`dpteach.proper.degree_for_accuracy`) and ``NOISE_FLOOR_FACTOR`` (γ). Import them from here
(their one home); :class:`dpteach.proper.PrivateProperLearner` calls the routines of this module.

Privacy: nothing here reads data. M, θ_V and V are computed from the released
correlations m̃ and public quantities (d, p, n₁, σ, α): post-processing.

dpteach is a teaching library (floating-point noise): do not use it on real data.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._constraints import Integral, FiniteInterval, POSITIVE, POSITIVE_INT, Real, validate_params
from ._array_constraints import Array
from .hermite import multi_indices

__all__ = [
    "TEACHING_DEGREE_CONSTANT",
    "NOISE_FLOOR_FACTOR",
    "gradient_second_moment",
    "noise_floor",
    "subspace_threshold",
    "relevant_subspace",
]

#: C₀/c² in the degree rule p = ⌈C₀/(cα)²⌉ and the eigenvalue threshold c²α²/C₀ (our teaching choice:
#: the paper leaves C₀ and c unspecified). 0.04 gives p = 4 at α = 0.1 and makes p·c²α²/C₀ ≈ 1.
TEACHING_DEGREE_CONSTANT = 0.04
#: γ in the noise-floor threshold γ·(σ² + 1/n₁)·C(d + p, p − 1) (our reconstruction).
NOISE_FLOOR_FACTOR = 2.0


#: The target excess error α of chapter 7: 0 < α < 1/2 (an excess error of 1/2 is met by a coin).
ALPHA = FiniteInterval(Real, 0, 0.5)
#: A real ≥ 0 (a noise level σ, a threshold, the factor γ).
NONNEGATIVE = FiniteInterval(Real, 0, None, closed="left")


# --- 1. The gradient second moment M = G Gᵀ (Proposition 7.3) ----------------------------


@functools.lru_cache(maxsize=32)
def _gradient_plan(d, degree):
    """For every (κ, i) with κ_i ≥ 1: row of κ, coordinate i, column of λ = κ − e_i, and √κ_i; then D_p and D_{p−1}.

    D_p and D_{p−1} are counted off the multi-indices (graded order: the |κ| ≤ p − 1 come first), so the learner
    reaches C(d + p, p) by one route (``multi_indices``, through ``feature_scaling``; architecture review S7).
    """
    kappas = multi_indices(d, degree)
    lookup = {tuple(k): j for j, k in enumerate(kappas.tolist())}
    rows, coords, columns, weights = [], [], [], []
    for j, kappa in enumerate(kappas.tolist()):
        for i, k in enumerate(kappa):
            if k:
                lower = list(kappa)
                lower[i] -= 1
                rows.append(j)
                coords.append(i)
                columns.append(lookup[tuple(lower)])
                weights.append(math.sqrt(k))
    lower_count = int(np.count_nonzero(kappas.sum(axis=1) < degree))  # D_{p−1}: the columns λ with |λ| ≤ p − 1
    return (np.array(rows), np.array(coords), np.array(columns), np.array(weights), len(kappas), lower_count)


@validate_params({"coefficients": Array(ndim=(1, 2)), "degree": POSITIVE_INT, "d": POSITIVE_INT})
def gradient_second_moment(coefficients, degree, d):
    """M = E_{X~N(0,I_d)}[∇q(X)∇q(X)ᵀ] for q = ⟨a, ψ_p⟩, exactly: M = G Gᵀ (Proposition 7.3).

    From ∂_i h_κ = √κ_i · h_{κ−e_i}, ∇q = G ψ_{p−1} with
    G[i, λ] = √(λ_i + 1)·a_{λ+e_i} (|λ| ≤ p − 1), and orthonormality of ψ_{p−1}
    gives M = G Gᵀ; hence tr M = Σ_κ |κ|·a_κ² ≤ p‖a‖². The coefficients follow
    the graded order of ``dpteach.hermite.multi_indices(d, degree)``.
    Privacy: post-processing of a released ``a``.

    Parameters
    ----------
    coefficients : array_like, shape (D_p,) or (B, D_p), finite
        Coefficients a of q; a batch of B polynomials gives B matrices.
    degree : int ≥ 1
    d : int ≥ 1

    Returns
    -------
    ndarray, shape (d, d) or (B, d, d)
        Symmetric positive semidefinite. Cost O(d·D_p) to build G and
        O(d²·D_{p−1}) for G Gᵀ (per polynomial).

    Raises
    ------
    TypeError, ValueError
        For d or degree < 1, NaN/inf, or a last axis of length ≠ C(d + p, p).

    Examples
    --------
    >>> gradient_second_moment(np.array([0.0, 0.6, 0.8, 0.0, 0.0, 0.0]), degree=2, d=2)
    array([[0.36, 0.48],
           [0.48, 0.64]])
    """
    rows, coords, columns, weights, size, lower_count = _gradient_plan(d, degree)
    if coefficients.shape[-1] != size:  # relates the array to d and the degree: checked here
        raise ValueError(f"coefficients must have C(d + degree, degree) = {size} entries on the last axis "
                         f"(d={d}, degree={degree}), got shape {coefficients.shape}")
    G = np.zeros(coefficients.shape[:-1] + (d, lower_count))
    G[..., coords, columns] = coefficients[..., rows] * weights
    return G @ np.swapaxes(G, -1, -2)


# --- 2. The relevant subspace V ----------------------------------------------------------------------


@validate_params({"d": POSITIVE_INT, "degree": POSITIVE_INT, "n_correlation": POSITIVE_INT, "sigma": NONNEGATIVE})
def noise_floor(d, degree, n_correlation, sigma):
    """(σ² + 1/n₁)·C(d + p, p − 1): the expected eigenvalue of M that noise alone produces (our reconstruction).

    If a = m_T + Z with Z ~ N(0, σ²I), then E[G_Z G_Zᵀ] = σ²·Σ_κ κ_i·I = σ²·C(d + p, p − 1)·I;
    the sampling error of the mean adds at most (1/n₁)·C(d + p, p − 1)·I, since
    its covariance is ⪯ I/n₁. Public (depends on d, p, n₁, σ only).

    Parameters
    ----------
    d, degree : int ≥ 1
    n_correlation : int ≥ 1
        n₁ = |S₁|.
    sigma : float ≥ 0
        The Gaussian noise level of the released correlations.

    Returns
    -------
    float. Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For d, degree or n₁ < 1, or σ < 0 / nan / inf.

    Examples
    --------
    >>> round(noise_floor(d=2, degree=2, n_correlation=100, sigma=0.1), 6)
    0.08
    """
    try:
        return (sigma ** 2 + 1.0 / n_correlation) * math.comb(d + degree, degree - 1)
    except OverflowError:  # σ² beyond the floats (σ ≈ 1e300): the floor is larger than any float
        return math.inf


@validate_params({"alpha": ALPHA, "d": POSITIVE_INT, "degree": POSITIVE_INT, "n_correlation": POSITIVE_INT,
                  "sigma": NONNEGATIVE, "constant": POSITIVE, "factor": NONNEGATIVE})
def subspace_threshold(alpha, d, degree, n_correlation, sigma, constant=TEACHING_DEGREE_CONSTANT,
                       factor=NOISE_FLOOR_FACTOR):
    """θ_V = max{c²α²/C₀, γ·noise_floor} (the paper's threshold, raised above the noise; our reconstruction).

    The paper keeps the eigenvectors of M with eigenvalue ≥ c²α²/C₀. At
    notebook sample sizes noise alone puts eigenvalues near
    :func:`noise_floor`; keeping those would only inflate the cover, so the
    threshold is at least γ times the floor. Both terms are public.

    Parameters
    ----------
    alpha : float in (0, 1/2)
    d, degree, n_correlation : int ≥ 1
    sigma : float ≥ 0
    constant : float > 0
        C₀/c², as in :func:`degree_for_accuracy`.
    factor : float ≥ 0
        γ; 0 gives the paper's threshold alone.

    Returns
    -------
    float. Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For arguments out of range.

    Examples
    --------
    >>> round(subspace_threshold(alpha=0.3, d=2, degree=2, n_correlation=100, sigma=0.1), 6)
    2.25
    """
    floor = noise_floor(d, degree, n_correlation, sigma)
    return max(alpha ** 2 / constant, factor * floor)


@validate_params({"M": Array(ndim=2), "threshold": NONNEGATIVE, "max_dim": FiniteInterval(Integral, 0, None, closed="left")})
def relevant_subspace(M, threshold, max_dim):
    """V = span of the eigenvectors of M with eigenvalue ≥ ``threshold``, at most ``max_dim`` of them (Algorithm 7.7 line 5).

    For every unit ξ ⟂ V, ξᵀMξ = E[(∂_ξ q)²] < threshold (or ξ is beyond the
    cap): q hardly varies along ξ (the paper's Eq. (33)). Post-processing.

    Parameters
    ----------
    M : array_like, shape (d, d), symmetric, finite
    threshold : float ≥ 0
    max_dim : int ≥ 0
        Keep at most this many of the top eigenvectors (the paper has no cap; a notebook needs one).

    Returns
    -------
    (basis, eigenvalues) : ndarray (d, k) with orthonormal columns, k ≤ max_dim, and all d
        eigenvalues in decreasing order. Cost O(d³).

    Raises
    ------
    TypeError, ValueError
        For a non-square or non-symmetric M, NaN/inf, threshold < 0, max_dim < 0.

    Examples
    --------
    >>> basis, eigenvalues = relevant_subspace(M=np.diag([1.0, 0.2]), threshold=0.5, max_dim=1)
    >>> basis.shape, eigenvalues
    ((2, 1), array([1. , 0.2]))
    """
    if M.shape[0] != M.shape[1]:  # the shape and symmetry of the array: checked here
        raise ValueError(f"M must be a square matrix, got shape {M.shape}")
    if not np.allclose(M, M.T, atol=1e-10 * max(1.0, float(np.abs(M).max()))):
        raise ValueError("M must be symmetric (a second-moment matrix), got a non-symmetric array")
    eigenvalues, vectors = np.linalg.eigh(M)
    eigenvalues, vectors = eigenvalues[::-1], vectors[:, ::-1]  # eigh sorts ascending
    k = min(int(np.sum(eigenvalues >= threshold)), max_dim)
    return vectors[:, :k].copy(), eigenvalues

