"""Chapter 7: a proper private learner for agnostic halfspaces (the paper's Algorithm 2, Theorem 3.1).

Read top to bottom, this module follows the chapter:

1. private Hermite correlations m̃ = Proj_B((1/n₁)Σ y_i ψ̄_{p,T}(x_i) + Z) on the
   first half S₁ of the data (Lemmas 7.1–7.2, the paper's Lemmas 3.3–3.4);
2. the gradient second-moment matrix M = E[∇q ∇qᵀ] of q = ⟨m̃, ψ_p⟩ in closed
   form, M = G Gᵀ (Proposition 7.3);
3. the relevant subspace V spanned by the eigenvectors of M above a public
   threshold (the paper's c²α²/C₀, raised to the noise floor, our
   reconstruction);
4. the finite cover H(q) of halfspaces with normals in V (Facts B.11/B.12);
5. the exponential mechanism on the second half S₂ with weights
   exp(−(ε/2)·#errors), and the estimator :class:`PrivateProperLearner`.

Halfspaces here are h(x) = sign(⟨v, x⟩ + t) with sign(0) = +1, the paper's
convention in Lemma 3.2; ``coef_ = v`` and ``intercept_ = t``. (The data
generators write sign(⟨w, x⟩ − t), so t there is −intercept_ here.)

Privacy: steps 2–4 read only m̃ (post-processing); step 1 is (ε, δ)-DP on S₁
and step 5 is ε-DP on S₂; S₁ ∩ S₂ = ∅, so the learner is (ε, δ)-DP
(parallel composition). ``epsilon = math.inf`` runs the same code without
noise and with arg-min selection: a non-private reference, never private.

dpteach is a teaching library (floating-point noise): do not use it on real data.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import spatial

from ._estimator import Estimator
from ._validation import (as_rng, check_delta, check_epsilon, check_finite_array, check_int, check_labels,
                          check_positive, check_probability, check_same_length)
from .hermite import hermite_feature_sum, multi_indices
from .mechanisms import exponential_mechanism, gaussian_sigma

__all__ = [
    "degree_for_accuracy",
    "private_hermite_correlations",
    "project_unit_ball",
    "gradient_second_moment",
    "noise_floor",
    "subspace_threshold",
    "relevant_subspace",
    "sphere_net",
    "covering_radius",
    "halfspace_cover",
    "cover_error_counts",
    "select_halfspace",
    "PrivateProperLearner",
]

#: C₀/c² in the degree rule p = ⌈C₀/(cα)²⌉ and the eigenvalue threshold c²α²/C₀ (our teaching choice:
#: the paper leaves C₀ and c unspecified). 0.04 gives p = 4 at α = 0.1 and makes p·c²α²/C₀ ≈ 1.
TEACHING_DEGREE_CONSTANT = 0.04
#: γ in the noise-floor threshold γ·(σ² + 1/n₁)·C(d + p, p − 1) (our reconstruction).
NOISE_FLOOR_FACTOR = 2.0
#: K₀ in the threshold range R = a⌈K₀√log(1/a)/a⌉ of the cover (the paper's "sufficiently large" constant).
THRESHOLD_RANGE_CONSTANT = 2.0
#: Refuse covers with more candidates than this (they would not fit a notebook's time budget).
MAX_CANDIDATES = 5_000_000


def _check_epsilon_or_inf(epsilon):
    """ε ∈ (0, inf) for a private run, or exactly math.inf for the non-private reference path."""
    if isinstance(epsilon, (float, np.floating)) and epsilon == math.inf:
        return math.inf
    return check_epsilon(epsilon)


def degree_for_accuracy(alpha, constant=TEACHING_DEGREE_CONSTANT):
    """The degree p = ⌈C₀/(cα)²⌉ of Algorithm 7.7 (the paper's Theorem 3.1; its Algorithm 2 prints ⌈C₀/(cα)⌉).

    Parameters
    ----------
    alpha : float in (0, 1/2)
        Target excess error α.
    constant : float > 0
        C₀/c²; the paper's constants are unspecified, the default is our teaching choice
        (p = 4 at α = 0.1).

    Returns
    -------
    int ≥ 1. Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For α ∉ (0, 1/2) or a non-positive constant.
    """
    alpha = _check_alpha(alpha)
    constant = check_positive(constant, "constant")
    return max(1, math.ceil(constant / alpha ** 2 - 1e-12))


def _check_alpha(alpha):
    alpha = check_probability(alpha, "alpha")
    if alpha >= 0.5:
        raise ValueError(f"alpha must lie in (0, 0.5) (an excess error of 1/2 is met by a coin), got {alpha!r}")
    return alpha


# --- 1. Private Hermite correlations (Lemmas 7.1–7.2) -------------------------------------------


def project_unit_ball(values):
    """Proj_B(u) = u / max(1, ‖u‖₂) along the last axis (Algorithm 7.7 line 3; post-processing).

    Parameters
    ----------
    values : array_like, shape (..., D), finite

    Returns
    -------
    ndarray of the same shape, every row of norm ≤ 1. Cost O(size).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf or an empty array.
    """
    values = check_finite_array(values, "values")
    if values.ndim == 0:
        raise ValueError(f"values must have at least 1 dimension (vectors on the last axis), got shape {values.shape}")
    return _project_unit_ball(values)


def _project_unit_ball(values):
    norms = np.linalg.norm(values, axis=-1, keepdims=True)
    return values / np.maximum(1.0, norms)


def _correlation_inputs(X, y, degree, clip_radius, epsilon, delta):
    X = check_finite_array(X, "X", ndim=2)
    y = check_labels(y, "y")
    check_same_length(X, y)
    degree = check_int(degree, "degree", minimum=1)
    clip_radius = check_positive(clip_radius, "clip_radius")
    epsilon = _check_epsilon_or_inf(epsilon)
    delta = check_delta(delta, allow_zero=False)
    return X, y, degree, clip_radius, epsilon, delta


def _correlation_sigma(n_correlation, clip_radius, epsilon, delta):
    """σ for the mean of n₁ summands of norm ≤ T: replace-one L2 sensitivity 2T/n₁ (= 4T/n for n₁ = n/2)."""
    if epsilon == math.inf:
        return 0.0
    return gaussian_sigma(2.0 * clip_radius / n_correlation, epsilon, delta)


def _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, rng, size, noise_factor):
    """The release of Algorithm 7.7 line 3 on validated inputs; ``size`` independent draws (None: one)."""
    mean = hermite_feature_sum(X, degree, weights=y, radius=clip_radius) / X.shape[0]
    sigma = noise_factor * _correlation_sigma(X.shape[0], clip_radius, epsilon, delta)
    shape = mean.shape if size is None else (size,) + mean.shape
    noise = rng.normal(0.0, 1.0, size=shape) * sigma if sigma > 0 else np.zeros(shape)
    return _project_unit_ball(mean + noise), sigma


def private_hermite_correlations(X, y, degree, clip_radius, epsilon, delta, rng=None):
    """m̃ = Proj_B((1/n₁)Σ_{S₁} y_i ψ̄_{p,T}(x_i) + Z), Z ~ N(0, σ²I) (Algorithm 7.7 line 3; the paper's Algorithm 2, step 4).

    ``X, y`` are the n₁ = n/2 examples of S₁; the paper writes the same mean as
    (2/n)Σ_{S₁}. Each clipped feature ψ̄_{p,T}(x) has norm ≤ T, so replacing one
    example moves the mean by at most 2T/n₁ = 4T/n in L2 (Lemma 7.2's proof):
    the Gaussian mechanism with σ = ``gaussian_sigma(2T/n₁, ε, δ)`` (the
    analytic calibration, valid for every ε and never above the paper's
    classic σ) makes m̃ (ε, δ)-DP. Projecting onto the unit ball is
    post-processing and never moves m̃ away from m_T, because ‖m_T‖ ≤ 1.

    Parameters
    ----------
    X : array_like, shape (n₁, d), finite
        The points of S₁.
    y : array_like, shape (n₁,), labels in {−1, +1}
    degree : int ≥ 1
        The Hermite degree p; D_p = C(d + p, p) features.
    clip_radius : float > 0
        The public clipping radius T (the paper uses 2√D_p).
    epsilon : float, 0 < ε < inf, or math.inf
        math.inf gives the exact projected mean (σ = 0): non-private, for reference curves.
    delta : float, 0 < δ < 1
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (m_tilde, sigma) : ndarray of shape (D_p,) with ‖m̃‖ ≤ 1, and the float σ.
        Cost O(n₁·D_p) time (features summed in chunks), O(chunk·D_p) memory.

    Raises
    ------
    TypeError, ValueError
        For NaN/inf or wrongly shaped X, labels ∉ {−1, +1}, different lengths,
        degree < 1, T ≤ 0, ε ≤ 0 or nan, δ ∉ (0, 1), or a bad rng.
    """
    X, y, degree, clip_radius, epsilon, delta = _correlation_inputs(X, y, degree, clip_radius, epsilon, delta)
    return _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, as_rng(rng), None, 1.0)


def _private_hermite_correlations_half_noise_broken(X, y, degree, clip_radius, epsilon, delta, rng=None,
                                                    size=None):
    """BROKEN on purpose (for the audit test and the chapter's audit demo): σ is half the calibrated value.

    Everything else is :func:`private_hermite_correlations`; the claimed (ε, δ)
    no longer holds. ``size`` draws several releases at once for the audit.
    """
    X, y, degree, clip_radius, epsilon, delta = _correlation_inputs(X, y, degree, clip_radius, epsilon, delta)
    return _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, as_rng(rng), size, 0.5)


def _private_hermite_correlations_batch(X, y, degree, clip_radius, epsilon, delta, rng=None, size=None):
    """``size`` independent releases of :func:`private_hermite_correlations` (same code path; for audits)."""
    X, y, degree, clip_radius, epsilon, delta = _correlation_inputs(X, y, degree, clip_radius, epsilon, delta)
    return _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, as_rng(rng), size, 1.0)


# --- 2. The gradient second moment M = G Gᵀ (Proposition 7.3) ----------------------------


@functools.lru_cache(maxsize=32)
def _gradient_plan(d, degree):
    """For every (κ, i) with κ_i ≥ 1: row of κ, coordinate i, column of λ = κ − e_i, and √κ_i."""
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
    lower_count = math.comb(d + degree - 1, degree - 1)  # D_{p−1}: the columns λ with |λ| ≤ p − 1
    return (np.array(rows), np.array(coords), np.array(columns), np.array(weights), lower_count)


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
    """
    d = check_int(d, "d", minimum=1)
    degree = check_int(degree, "degree", minimum=1)
    size = math.comb(d + degree, degree)
    a = check_finite_array(coefficients, "coefficients", ndim=(1, 2))
    if a.shape[-1] != size:
        raise ValueError(f"coefficients must have C(d + degree, degree) = {size} entries on the last axis "
                         f"(d={d}, degree={degree}), got shape {a.shape}")
    return _gradient_second_moment(a, degree, d)


def _gradient_matrix(a, degree, d):
    rows, coords, columns, weights, lower_count = _gradient_plan(d, degree)
    G = np.zeros(a.shape[:-1] + (d, lower_count))
    G[..., coords, columns] = a[..., rows] * weights
    return G


def _gradient_second_moment(a, degree, d):
    G = _gradient_matrix(a, degree, d)
    return G @ np.swapaxes(G, -1, -2)


# --- 3. The relevant subspace V ----------------------------------------------------------------------


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
    """
    d = check_int(d, "d", minimum=1)
    degree = check_int(degree, "degree", minimum=1)
    n_correlation = check_int(n_correlation, "n_correlation", minimum=1)
    sigma = check_positive(sigma, "sigma", allow_zero=True)
    return (sigma ** 2 + 1.0 / n_correlation) * math.comb(d + degree, degree - 1)


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
    """
    alpha = _check_alpha(alpha)
    constant = check_positive(constant, "constant")
    factor = check_positive(factor, "factor", allow_zero=True)
    floor = noise_floor(d, degree, n_correlation, sigma)
    return max(alpha ** 2 / constant, factor * floor)


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
    """
    M = check_finite_array(M, "M", ndim=2)
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be a square matrix, got shape {M.shape}")
    if not np.allclose(M, M.T, atol=1e-10 * max(1.0, float(np.abs(M).max()))):
        raise ValueError("M must be symmetric (a second-moment matrix), got a non-symmetric array")
    threshold = check_positive(threshold, "threshold", allow_zero=True)
    max_dim = check_int(max_dim, "max_dim", minimum=0)
    return _relevant_subspace(M, threshold, max_dim)


def _relevant_subspace(M, threshold, max_dim):
    eigenvalues, vectors = np.linalg.eigh(M)
    eigenvalues, vectors = eigenvalues[::-1], vectors[:, ::-1]  # eigh sorts ascending
    k = min(int(np.sum(eigenvalues >= threshold)), max_dim)
    return vectors[:, :k].copy(), eigenvalues


# --- 4. The cover H(q) (Facts B.11 and B.12) ---------------------------------------------------------


def _check_resolution(resolution):
    resolution = check_probability(resolution, "resolution")
    return resolution


def _fibonacci_sphere(n_points):
    index = np.arange(n_points) + 0.5
    z = 1.0 - 2.0 * index / n_points
    phi = math.pi * (1.0 + math.sqrt(5.0)) * index
    r = np.sqrt(1.0 - z ** 2)
    return np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def _covering_radius(net):
    """Exact chordal covering radius of a net on S^{k−1} for k ≤ 3; an upper bound for k ≥ 4 is not computed here."""
    k = net.shape[1]
    if k == 1:
        return 0.0 if (net.max() > 0 and net.min() < 0) else 2.0
    if k == 2:
        angles = np.sort(np.arctan2(net[:, 1], net[:, 0]))
        gaps = np.diff(np.append(angles, angles[0] + 2 * math.pi))
        return float(2.0 * math.sin(gaps.max() / 4.0))  # the worst point sits mid-gap
    # k = 3: the farthest point of the sphere from the net is a vertex of its spherical Voronoi diagram.
    voronoi = spatial.SphericalVoronoi(net, radius=1.0, threshold=1e-6)
    vertices = voronoi.vertices / np.linalg.norm(voronoi.vertices, axis=1, keepdims=True)
    distances, _ = spatial.cKDTree(net).query(vertices)
    return float(distances.max())


def covering_radius(net):
    """max_{u ∈ S^{k−1}} min_{v ∈ net} ‖u − v‖₂, exactly, for nets on the unit circle (k = 2) or sphere (k = 3).

    k = 2: half the largest angular gap, as a chord. k = 3: the maximum over
    the vertices of the net's spherical Voronoi diagram (the farthest point
    from a finite set on the sphere is such a vertex). k = 1: 0 if both ±1 are
    present. Public geometry; no data.

    Parameters
    ----------
    net : array_like, shape (N, k), k ∈ {1, 2, 3}, rows of unit norm (N ≥ 4 for k = 3)

    Returns
    -------
    float in [0, 2]. Cost O(N log N) (k ≤ 2), O(N²) (k = 3).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf, k ∉ {1, 2, 3}, rows that are not unit vectors, too few points.
    """
    net = check_finite_array(net, "net", ndim=2)
    k = net.shape[1]
    if k not in (1, 2, 3):
        raise ValueError(f"net must have 1, 2 or 3 columns (a net on S^0, S^1 or S^2), got {k}")
    if not np.allclose(np.linalg.norm(net, axis=1), 1.0, atol=1e-9):
        raise ValueError("net must consist of unit vectors (every row of norm 1)")
    if k == 3 and net.shape[0] < 4:
        raise ValueError(f"net on the sphere needs at least 4 points, got {net.shape[0]}")
    return _covering_radius(net)


def _sphere_net(k, resolution):
    if k == 0:
        return np.zeros((0, 0))
    if k == 1:
        return np.array([[1.0], [-1.0]])
    if k == 2:
        # N equally spaced angles have covering radius 2 sin(π/(2N)) ≤ a iff N ≥ π / (2 arcsin(a/2)).
        n_points = math.ceil(math.pi / (2.0 * math.asin(resolution / 2.0)) - 1e-9)
        angles = 2.0 * math.pi * np.arange(n_points) / n_points
        return np.column_stack([np.cos(angles), np.sin(angles)])
    if k == 3:
        # Fibonacci points: radius ≈ 2.7/√N; start at N = 8/a² and grow until the exact radius is ≤ a.
        n_points = max(8, math.ceil(8.0 / resolution ** 2))
        net = _fibonacci_sphere(n_points)
        while _covering_radius(net) > resolution:
            n_points = math.ceil(1.05 * n_points)
            net = _fibonacci_sphere(n_points)
        return net
    # k ≥ 4, the paper's construction: normalise the non-zero points of a cubic grid that is an
    # a/2-cover of the unit ball (spacing a/√k, so every point is within a/2 of the grid).
    spacing = resolution / math.sqrt(k)
    half = math.ceil((1.0 + resolution / 2.0) / spacing)
    if (2 * half + 1) ** k > MAX_CANDIDATES:
        raise ValueError(f"a direction net for dim V = {k} at resolution {resolution!r} needs about "
                         f"{(2 * half + 1) ** k:.3g} grid points (> {MAX_CANDIDATES}); lower max_subspace_dim "
                         f"or raise the resolution")
    axis = spacing * np.arange(-half, half + 1)
    grid = np.stack(np.meshgrid(*([axis] * k), indexing="ij"), axis=-1).reshape(-1, k)
    norms = np.linalg.norm(grid, axis=1)
    keep = (norms > 0) & (norms <= 1.0 + resolution / 2.0)
    return grid[keep] / norms[keep, None]


def sphere_net(k, resolution):
    """A net of unit vectors in ℝ^k with covering radius ≤ ``resolution`` (Fact B.11; our nets for k ≤ 3).

    k = 1: {±1}. k = 2: N = ⌈π/(2 arcsin(a/2))⌉ equally spaced angles (exact
    radius 2 sin(π/(2N)) ≤ a). k = 3: a Fibonacci sphere with N ≈ 8/a² points,
    enlarged until its exact covering radius (:func:`covering_radius`) is ≤ a.
    k ≥ 4: the paper's construction, the normalised non-zero points of a
    cubic a/2-cover of the unit ball; (C/a)^k points.

    Parameters
    ----------
    k : int ≥ 0
        Dimension of V (k = 0 gives an empty net).
    resolution : float in (0, 1)

    Returns
    -------
    ndarray, shape (N, k). Cost O(N) (k ≤ 2), O(N²) (k = 3), O((C/a)^k) (k ≥ 4).

    Raises
    ------
    TypeError, ValueError
        For k < 0, a ∉ (0, 1), or a net too large to build.
    """
    k = check_int(k, "k", minimum=0)
    return _sphere_net(k, _check_resolution(resolution))


def _default_max_threshold(resolution):
    return resolution * math.ceil(THRESHOLD_RANGE_CONSTANT * math.sqrt(math.log(1.0 / resolution)) / resolution)


@dataclass(frozen=True)
class HalfspaceCover:
    """The finite class H(q): halfspaces sign(⟨v, x⟩ + t) for v ∈ ``directions``, t ∈ ``thresholds``, plus two near-constants.

    Candidate j < N·J is (directions[j // J], thresholds[j % J]); the last two
    are h_{e₁, +R} and h_{e₁, −R}, proper stand-ins for the constants ±1.
    """

    directions: np.ndarray   # (N, d) unit normals in V
    thresholds: np.ndarray   # (J,) the grid {j·a : |j·a| ≤ R}
    net: np.ndarray          # (N, k) the same normals in coordinates of ``basis``
    basis: np.ndarray        # (d, k) orthonormal basis of V
    resolution: float
    max_threshold: float

    @property
    def size(self):
        """|H(q)| = N·J + 2."""
        return self.directions.shape[0] * self.thresholds.size + 2

    def halfspace(self, index):
        """(coef, intercept) of candidate ``index``: h(x) = sign(⟨coef, x⟩ + intercept)."""
        index = check_int(index, "index", minimum=0, maximum=self.size - 1)
        n_grid = self.directions.shape[0] * self.thresholds.size
        if index >= n_grid:
            e1 = np.zeros(self.basis.shape[0])
            e1[0] = 1.0
            return e1, (self.max_threshold if index == n_grid else -self.max_threshold)
        direction, threshold = divmod(index, self.thresholds.size)
        return self.directions[direction].copy(), float(self.thresholds[threshold])


def halfspace_cover(basis, resolution, max_threshold=None):
    """The cover H(q) of Algorithm 7.7 line 6 (the paper's proof of Lemma 3.2, Facts B.11/B.12).

    H(q) = {sign(⟨v, x⟩ + j·a) : v ∈ 𝒱, |j·a| ≤ R} ∪ {sign(x₁ + R), sign(x₁ − R)},
    where 𝒱 = basis·:func:`sphere_net` (covering radius ≤ a on the unit sphere of V)
    and R = a⌈K₀√log(1/a)/a⌉ by default. By Fact B.12 every halfspace with normal in V
    is within O(a) (in Pr[h ≠ h']) of a member. Size |𝒱|·(2⌊R/a⌋ + 1) + 2 =
    exp(O((dim V + 1) log(1/a))). Public: built from V and a only.

    Parameters
    ----------
    basis : array_like, shape (d, k), orthonormal columns, k ≥ 0
    resolution : float in (0, 1)
        The accuracy a (the paper's cα).
    max_threshold : float > 0, optional
        R; default a⌈K₀√log(1/a)/a⌉ with K₀ = ``THRESHOLD_RANGE_CONSTANT``.

    Returns
    -------
    HalfspaceCover, with ``.size`` = |H(q)|. Cost O(|H(q)|·d) memory for the normals.

    Raises
    ------
    TypeError, ValueError
        For NaN/inf, a basis without orthonormal columns, a ∉ (0, 1), R ≤ 0, or too many candidates.
    """
    basis = check_finite_array(basis, "basis", ndim=2, nonempty=False)
    if basis.shape[0] < 1:
        raise ValueError(f"basis must have d ≥ 1 rows, got shape {basis.shape}")
    if basis.shape[1] > basis.shape[0] or not np.allclose(basis.T @ basis, np.eye(basis.shape[1]), atol=1e-8):
        raise ValueError("basis must have orthonormal columns (an orthonormal basis of V)")
    resolution = _check_resolution(resolution)
    if max_threshold is None:
        max_threshold = _default_max_threshold(resolution)
    max_threshold = check_positive(max_threshold, "max_threshold")
    return _halfspace_cover(basis, resolution, max_threshold)


def _halfspace_cover(basis, resolution, max_threshold):
    net = _sphere_net(basis.shape[1], resolution)
    steps = math.floor(max_threshold / resolution + 1e-9)
    thresholds = resolution * np.arange(-steps, steps + 1)
    if net.shape[0] * thresholds.size > MAX_CANDIDATES:
        raise ValueError(f"the cover would have {net.shape[0] * thresholds.size} candidates "
                         f"(> {MAX_CANDIDATES}); raise the resolution or lower the subspace dimension")
    directions = net @ basis.T if net.size else np.zeros((0, basis.shape[0]))
    return HalfspaceCover(directions, thresholds, net, basis.copy(), resolution, float(max_threshold))


# --- 5. Selection by the exponential mechanism on S₂ ----------------------------------------------


def _error_counts(X, y, cover, chunk_entries=4_000_000):
    """#errors of every candidate on (X, y): one bincount per direction, no (n × |H|) prediction matrix.

    sign(z + t_j) = +1 iff j ≥ j*(z) = ⌈(−z − t₀)/a⌉ for the grid t_j = t₀ + j·a; a positive
    example is wrong for j < j*, a negative one for j ≥ j*.
    """
    n_dir, n_thr = cover.directions.shape[0], cover.thresholds.size
    positive = y > 0
    counts = np.empty(n_dir * n_thr + 2, dtype=np.int64)
    if n_dir:
        projected = X @ cover.basis  # (n, k): each direction is a point of the net in V
        t0, a = cover.thresholds[0], cover.resolution
        per_chunk = max(1, chunk_entries // max(1, X.shape[0]))
        for start in range(0, n_dir, per_chunk):
            net = cover.net[start:start + per_chunk]
            z = projected @ net.T  # (n, b)
            first_plus = np.clip(np.ceil((-z - t0) / a - 1e-12), 0, n_thr).astype(np.int64)
            offsets = np.arange(net.shape[0]) * (n_thr + 1)
            pos = np.bincount((first_plus[positive] + offsets).ravel(), minlength=net.shape[0] * (n_thr + 1))
            neg = np.bincount((first_plus[~positive] + offsets).ravel(), minlength=net.shape[0] * (n_thr + 1))
            pos = pos.reshape(net.shape[0], n_thr + 1)
            neg = neg.reshape(net.shape[0], n_thr + 1)
            wrong_pos = pos.sum(axis=1, keepdims=True) - np.cumsum(pos, axis=1)[:, :n_thr]  # j* > j
            wrong_neg = np.cumsum(neg, axis=1)[:, :n_thr]                                  # j* ≤ j
            counts[start * n_thr:(start + net.shape[0]) * n_thr] = (wrong_pos + wrong_neg).ravel()
    first = X[:, 0]
    R = cover.max_threshold
    counts[-2] = np.sum(np.where(first + R >= 0, 1.0, -1.0) != y)
    counts[-1] = np.sum(np.where(first - R >= 0, 1.0, -1.0) != y)
    return counts


def cover_error_counts(X, y, cover):
    """The number of errors on (X, y) of every candidate of ``cover`` (the scores of Algorithm 7.7 line 7).

    Sorted/binned counting: O(n·k + n·N + N·J) instead of O(n·d·|H(q)|). Reads
    the data it is given (S₂); the counts are not private by themselves.

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    y : array_like, shape (n,), labels in {−1, +1}
    cover : HalfspaceCover from :func:`halfspace_cover`

    Returns
    -------
    ndarray of int64, shape (cover.size,)

    Raises
    ------
    TypeError, ValueError
        For bad arrays, labels, lengths, or a cover of another dimension.
    """
    X, y = _check_data(X, y)
    if not isinstance(cover, HalfspaceCover):
        raise TypeError(f"cover must be a HalfspaceCover from halfspace_cover(), got {type(cover).__name__}")
    if cover.basis.shape[0] != X.shape[1]:
        raise ValueError(f"X must have {cover.basis.shape[0]} features (the cover's dimension), got {X.shape[1]}")
    return _error_counts(X, y, cover)


def _check_data(X, y):
    X = check_finite_array(X, "X", ndim=2)
    y = check_labels(y, "y")
    check_same_length(X, y)
    return X, y


def _select(counts, epsilon, rng):
    if epsilon == math.inf:
        # Arg-min with uniform tie-breaking: integer counts, so a U[0, 1/2) jitter only reorders ties.
        return int(np.argmin(counts + 0.5 * rng.random(counts.size)))
    return exponential_mechanism(-counts.astype(float), 1.0, epsilon, rng)


def select_halfspace(X, y, cover, epsilon, rng=None):
    """Sample h ∈ H(q) with probability ∝ exp(−(ε/2)·#errors on (X, y)) (Algorithm 7.7 line 7; the paper's step 7).

    The score −#errors changes by at most 1 when one example of S₂ is
    replaced, so ``dpteach.mechanisms.exponential_mechanism`` with sensitivity 1
    is ε-DP (given the public cover). ε = math.inf: arg-min, ties at random (not private).

    Parameters
    ----------
    X, y : the examples of S₂ (shapes (n₂, d), (n₂,))
    cover : HalfspaceCover
    epsilon : float, 0 < ε < inf, or math.inf
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (index, coef, intercept) : the chosen candidate, h(x) = sign(⟨coef, x⟩ + intercept).
        Cost as :func:`cover_error_counts` plus O(|H(q)|).

    Raises
    ------
    TypeError, ValueError
        As :func:`cover_error_counts`, and for a bad ε or rng.
    """
    counts = cover_error_counts(X, y, cover)
    epsilon = _check_epsilon_or_inf(epsilon)
    index = _select(counts, epsilon, as_rng(rng))
    coef, intercept = cover.halfspace(index)
    return index, coef, intercept


# --- 6. The estimator ----------------------------------------------------------------------------------


class PrivateProperLearner(Estimator):
    """Algorithm 7.7 (the paper's Algorithm 2): a proper (ε, δ)-DP learner of halfspaces under N(0, I_d).

    ``fit`` splits the data at random (independently of its values) into S₁ and
    S₂, releases the Hermite correlations of S₁, builds q, M, V and the cover
    H(q) from them, and selects a halfspace on S₂ with the exponential
    mechanism. The output is a halfspace: ``predict(X) == sign(X @ coef_ + intercept_)``
    (sign(0) = +1). (ε, δ)-DP by parallel composition (Theorem 7.8).

    Parameters
    ----------
    alpha : float in (0, 1/2)
        Target accuracy α; sets the degree, the eigenvalue threshold and the default resolution.
    epsilon : float, 0 < ε < inf, or math.inf (non-private reference run)
    delta : float in (0, 1)
    degree : int ≥ 1, optional
        Hermite degree p; default ⌈C₀/(cα)²⌉ with C₀/c² = ``TEACHING_DEGREE_CONSTANT``.
    clip_radius : float > 0, optional
        T; default 2√D_p (the paper's choice).
    max_subspace_dim : int ≥ 0
        Cap on dim V (the paper has none; the cover grows like (C/a)^{dim V}).
    cover_resolution : float in (0, 1), optional
        The cover's accuracy a; default α.
    random_state : None, int or numpy.random.Generator

    Attributes
    ----------
    coef_ : ndarray (d,), intercept_ : float
        The selected halfspace.
    subspace_ : ndarray (d, k)
        Orthonormal basis of V.
    eigenvalues_ : ndarray (d,)
        Spectrum of M, decreasing.
    threshold_ : float
        The eigenvalue threshold θ_V used.
    cover_size_ : int
        |H(q)|.
    correlations_ : ndarray (D_p,)
        The released m̃ (private).
    degree_, clip_radius_, sigma_ : the parameters actually used.
    privacy_ : dict
        {"epsilon", "delta", "correlations", "selection"}: the guarantee and its two parts.
    n_features_in_ : int
    """

    _fitted_attribute = "coef_"

    def __init__(self, alpha, epsilon, delta, degree=None, clip_radius=None, max_subspace_dim=2,
                 cover_resolution=None, random_state=None):
        self.alpha = alpha
        self.epsilon = epsilon
        self.delta = delta
        self.degree = degree
        self.clip_radius = clip_radius
        self.max_subspace_dim = max_subspace_dim
        self.cover_resolution = cover_resolution
        self.random_state = random_state

    def _validated_parameters(self, d):
        alpha = _check_alpha(self.alpha)
        epsilon = _check_epsilon_or_inf(self.epsilon)
        delta = check_delta(self.delta, allow_zero=False)
        degree = degree_for_accuracy(alpha) if self.degree is None else check_int(self.degree, "degree", minimum=1)
        size = math.comb(d + degree, degree)
        clip = 2.0 * math.sqrt(size) if self.clip_radius is None else check_positive(self.clip_radius,
                                                                                       "clip_radius")
        max_dim = check_int(self.max_subspace_dim, "max_subspace_dim", minimum=0)
        resolution = alpha if self.cover_resolution is None else check_probability(self.cover_resolution,
                                                                                   "cover_resolution")
        return alpha, epsilon, delta, degree, clip, max_dim, resolution

    def fit(self, X, y):
        """Run Algorithm 7.7 on (X, y); returns self. Cost O(n·D_p + n·|𝒱| + |H(q)|).

        Raises
        ------
        TypeError, ValueError
            For bad parameters or data (NaN/inf, labels ∉ {−1, +1}, fewer than 2 examples).
        """
        X, y = _check_data(X, y)
        if X.shape[0] < 2:
            raise ValueError(f"X must have at least 2 examples (one for each half), got {X.shape[0]}")
        d = X.shape[1]
        alpha, epsilon, delta, degree, clip, max_dim, resolution = self._validated_parameters(d)
        rng = as_rng(self.random_state, "random_state")
        order = rng.permutation(X.shape[0])  # a data-independent split
        first, second = order[:X.shape[0] // 2], order[X.shape[0] // 2:]
        m_tilde, sigma = _noisy_correlations(X[first], y[first], degree, clip, epsilon, delta, rng, None, 1.0)
        M = _gradient_second_moment(m_tilde, degree, d)
        threshold = subspace_threshold(alpha, d, degree, first.size, sigma)
        basis, eigenvalues = _relevant_subspace(M, threshold, min(max_dim, d))
        cover = _halfspace_cover(basis, resolution, _default_max_threshold(resolution))
        index = _select(_error_counts(X[second], y[second], cover), epsilon, rng)
        coef, intercept = cover.halfspace(index)

        self.n_features_in_ = d
        self.degree_, self.clip_radius_, self.sigma_ = degree, clip, sigma
        self.correlations_ = m_tilde
        self.gradient_moment_ = M
        self.eigenvalues_, self.subspace_, self.threshold_ = eigenvalues, basis, threshold
        self.cover_ = cover
        self.cover_size_ = cover.size
        self.coef_, self.intercept_ = coef, float(intercept)
        self.privacy_ = {"epsilon": epsilon, "delta": delta,
                         "correlations": (epsilon, delta), "selection": (epsilon, 0.0)}
        return self

    def decision_function(self, X):
        """⟨coef_, x⟩ + intercept_ for each row of X (post-processing)."""
        X = self._check_predict_input(X)
        return X @ self.coef_ + self.intercept_

    def predict(self, X):
        """sign(⟨coef_, x⟩ + intercept_) ∈ {−1, +1}, sign(0) = +1: a halfspace (proper)."""
        return np.where(self.decision_function(X) >= 0, 1.0, -1.0)
