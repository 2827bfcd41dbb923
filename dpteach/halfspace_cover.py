"""Chapter 7, the cover and the selection of the proper learner.

This module implements lines 6–7 of Algorithm 7.7 (the paper's Algorithm 2) in chapter 7:

- the finite class H(q) of halfspaces with normals in V built in the proof of Lemma 7.4
  (the paper's Lemma 3.2): a net of directions on the unit sphere of V with covering
  radius ≤ a (Lemma 7.5, the paper's Fact B.11; for dim V ≤ 3 our smaller nets, whose
  exact covering radius :func:`covering_radius` verifies) times a grid of thresholds
  (Lemma 7.6, the paper's Fact B.12), plus two near-constant halfspaces;
- the number of errors of every member of H(q) on S₂, counted without an (n × |H(q)|)
  prediction matrix;
- the selection by the exponential mechanism with weights exp(−(ε/2)·#errors)
  (line 7; its privacy is part of the proof of Theorem 7.8).

Privacy: the cover is built from V and the resolution only (post-processing of the
released correlations); :func:`cover_error_counts` reads S₂ and is not private by itself;
:func:`select_halfspace` is ε-DP in S₂ (sensitivity 1 of the score −#errors).
Import these names from here (their one home); :class:`dpteach.proper.PrivateProperLearner` calls them.

dpteach is a teaching library (floating-point noise): do not use it on real data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import spatial

from ._constraints import Epsilon, Integral, FiniteInterval, OPEN_UNIT, OrNone, POSITIVE, validate_params, SameLength
from ._array_constraints import Array, Labels, InstanceOf
from ._validation import check_int, computed
from .mechanisms import exponential_mechanism_on_errors
from .privacy import privacy_claim

__all__ = [
    "THRESHOLD_RANGE_CONSTANT",
    "MAX_CANDIDATES",
    "sphere_net",
    "covering_radius",
    "halfspace_cover",
    "cover_error_counts",
    "select_halfspace",
]

#: K₀ in the threshold range R = a⌈K₀√log(1/a)/a⌉ of the cover (the paper's "sufficiently large" constant).
THRESHOLD_RANGE_CONSTANT = 2.0
#: Refuse covers with more candidates than this (they would not fit a notebook's time budget).
MAX_CANDIDATES = 5_000_000
# The prediction block scored at once by cover_error_counts (n × directions entries, ~32 MB of float64).
_CHUNK_ENTRIES = 4_000_000


# --- 1. The cover H(q) (Lemmas 7.5–7.6) --------------------------------------------------------------


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


@validate_params({"net": Array(ndim=2)})
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

    Examples
    --------
    >>> covering_radius(np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]))
    0.7653668647301796
    """
    k = net.shape[1]
    if k not in (1, 2, 3):
        raise ValueError(f"net must have 1, 2 or 3 columns (a net on S^0, S^1 or S^2), got {k}")
    if not np.allclose(np.linalg.norm(net, axis=1), 1.0, atol=1e-9):
        raise ValueError("net must consist of unit vectors (every row of norm 1)")
    if k == 3 and net.shape[0] < 4:
        raise ValueError(f"net on the sphere needs at least 4 points, got {net.shape[0]}")
    return _covering_radius(net)



def _check_net_size(k, resolution, n_points, smallest):
    """Refuse, naming ``resolution``, a net of more than MAX_CANDIDATES directions before building it.

    Without this, resolution = 1e-300 asked numpy for 3e300 angles ("Maximum allowed size
    exceeded") and a subnormal one divided by zero (the reliability review's F3).
    """
    if not n_points <= MAX_CANDIDATES:
        raise ValueError(f"resolution = {resolution!r} needs a net of about {n_points:.3g} directions in k = dim V "
                         f"= {k} dimensions (> MAX_CANDIDATES = {MAX_CANDIDATES}); valid range at k = {k}: "
                         f"{smallest:.3g} <= resolution < 1 (or lower k, max_subspace_dim)")


@validate_params({"k": FiniteInterval(Integral, 0, None, closed="left"), "resolution": OPEN_UNIT})
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

    Examples
    --------
    >>> sphere_net(k=2, resolution=0.5).shape
    (7, 2)
    """
    if k == 0:
        return np.zeros((0, 0))
    if k == 1:
        return np.array([[1.0], [-1.0]])
    if k == 2:
        # N equally spaced angles have covering radius 2 sin(π/(2N)) ≤ a iff N ≥ π / (2 arcsin(a/2)).
        _check_net_size(k, resolution, computed(lambda: math.pi / (2.0 * math.asin(resolution / 2.0))),
                        2.0 * math.sin(math.pi / (2.0 * MAX_CANDIDATES)))
        n_points = math.ceil(math.pi / (2.0 * math.asin(resolution / 2.0)) - 1e-9)
        angles = 2.0 * math.pi * np.arange(n_points) / n_points
        return np.column_stack([np.cos(angles), np.sin(angles)])
    if k == 3:
        # Fibonacci points: radius ≈ 2.7/√N; start at N = 8/a² and grow until the exact radius is ≤ a.
        _check_net_size(k, resolution, computed(lambda: 8.0 / resolution ** 2), math.sqrt(8.0 / MAX_CANDIDATES))
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
    # Compared in logarithms: (2·half + 1)**k itself never finishes for k = 10**18.
    log10_points = k * math.log10(2 * half + 1)
    if log10_points > math.log10(MAX_CANDIDATES):
        raise ValueError(f"a direction net for k = dim V = {k} at resolution {resolution!r} needs about "
                         f"10^{log10_points:.3g} grid points (> MAX_CANDIDATES = {MAX_CANDIDATES}); lower k "
                         f"(max_subspace_dim) or raise the resolution")
    axis = spacing * np.arange(-half, half + 1)
    grid = np.stack(np.meshgrid(*([axis] * k), indexing="ij"), axis=-1).reshape(-1, k)
    norms = np.linalg.norm(grid, axis=1)
    keep = (norms > 0) & (norms <= 1.0 + resolution / 2.0)
    return grid[keep] / norms[keep, None]


def _default_max_threshold(resolution):
    """R = a⌈K₀√log(1/a)/a⌉, the default threshold range of :func:`halfspace_cover`."""
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


@validate_params({"basis": Array(ndim=2, nonempty=False), "resolution": OPEN_UNIT, "max_threshold": OrNone(POSITIVE)})
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

    Examples
    --------
    >>> halfspace_cover(basis=np.eye(2)[:, :1], resolution=0.5).size
    20
    """
    if basis.shape[0] < 1:  # the shape and orthonormality of the basis: checked here
        raise ValueError(f"basis must have d ≥ 1 rows, got shape {basis.shape}")
    if basis.shape[1] > basis.shape[0] or not np.allclose(basis.T @ basis, np.eye(basis.shape[1]), atol=1e-8):
        raise ValueError("basis must have orthonormal columns (an orthonormal basis of V)")
    if max_threshold is None:
        max_threshold = _default_max_threshold(resolution)
    net = sphere_net(basis.shape[1], resolution)
    steps = computed(lambda: max_threshold / resolution + 1e-9)
    if 2 * steps + 1 > MAX_CANDIDATES:  # before numpy is asked for 2e300 thresholds (resolution = 1e-300)
        raise ValueError(f"resolution = {resolution!r} gives about {2 * steps + 1:.3g} thresholds in "
                         f"[-{max_threshold:g}, {max_threshold:g}] (> MAX_CANDIDATES = {MAX_CANDIDATES}); valid range: "
                         f"{2 * max_threshold / (MAX_CANDIDATES - 1):.3g} <= resolution < 1 at this max_threshold")
    steps = math.floor(steps)
    thresholds = resolution * np.arange(-steps, steps + 1)
    if net.shape[0] * thresholds.size > MAX_CANDIDATES:
        raise ValueError(f"the cover would have {net.shape[0] * thresholds.size} candidates "
                         f"(> {MAX_CANDIDATES}); raise the resolution or lower the subspace dimension")
    directions = net @ basis.T if net.size else np.zeros((0, basis.shape[0]))
    return HalfspaceCover(directions, thresholds, net, basis.copy(), resolution, float(max_threshold))


# --- 2. Selection by the exponential mechanism on S₂ ----------------------------------------------


#: A :class:`HalfspaceCover` built by :func:`halfspace_cover` (its dimension is checked against X in the body).
_COVER = InstanceOf(HalfspaceCover, "a HalfspaceCover from halfspace_cover()")


def _scaled_steps(rows, basis, net, t0, a):
    """(−⟨v, x⟩ − t₀)/a for rows x whose plain evaluation overflowed, without overflow warnings or NaN.

    A record with a huge but finite coordinate (|x| near 1.8e308) makes ⟨v, x⟩ overflow
    to ±inf, or to inf − inf = NaN, and NaN → int64 broke ``np.bincount`` (the review's
    N12/F0): whether ``fit`` raised then depended on one record. Here x = 2^e·u with
    max|u| < 1 (an exact power-of-2 rescaling, as ``feature_scaling`` does), the
    projection is taken on u and rescaled last: the result is ±inf exactly when the true
    value exceeds the largest double, and the clip to [0, n_thr] then gives the count
    sign(⟨v, x⟩ + t) = sign(⟨v, u⟩) of every threshold, as in exact arithmetic.
    """
    _, exponent = np.frexp(np.max(np.abs(rows), axis=1, keepdims=True))
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(-((np.ldexp(rows, -exponent) @ basis) @ net.T) / a, exponent) - t0 / a


@validate_params({"X": Array(ndim=2), "y": Labels(), "cover": _COVER}, relations=[SameLength("X", "y")])
def cover_error_counts(X, y, cover):
    """The number of errors on (X, y) of every candidate of ``cover`` (the scores of Algorithm 7.7 line 7).

    Sorted/binned counting: O(n·k + n·N + N·J) instead of O(n·d·|H(q)|), one bincount
    per block of directions and no (n × |H(q)|) prediction matrix: sign(z + t_j) = +1 iff
    j ≥ j*(z) = ⌈(−z − t₀)/a⌉ for the grid t_j = t₀ + j·a, so a positive example is
    wrong for j < j*, a negative one for j ≥ j*. Reads the data it is given (S₂); the
    counts are not private by themselves.

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

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [-1.0, 0.5], [0.5, -2.0]])
    >>> counts = cover_error_counts(X, np.array([1.0, -1.0, 1.0]), halfspace_cover(np.eye(2)[:, :1], 0.5))
    >>> counts.shape, int(counts.min())
    ((20,), 0)
    """
    if cover.basis.shape[0] != X.shape[1]:
        raise ValueError(f"X must have {cover.basis.shape[0]} features (the cover's dimension), got {X.shape[1]}")
    n_dir, n_thr = cover.directions.shape[0], cover.thresholds.size
    positive = y > 0
    counts = np.empty(n_dir * n_thr + 2, dtype=np.int64)
    if n_dir:
        with np.errstate(over="ignore", invalid="ignore"):  # a huge record: redone below, scaled
            projected = X @ cover.basis  # (n, k): each direction is a point of the net in V
        t0, a = cover.thresholds[0], cover.resolution
        per_chunk = max(1, _CHUNK_ENTRIES // max(1, X.shape[0]))
        for start in range(0, n_dir, per_chunk):
            net = cover.net[start:start + per_chunk]
            with np.errstate(over="ignore", invalid="ignore"):
                steps = (-(projected @ net.T) - t0) / a  # (n, b): (−z − t₀)/a, z = ⟨v, x⟩
            wild = ~np.all(np.isfinite(steps), axis=1)
            if wild.any():  # only rows that overflowed: every other row keeps its exact numbers
                steps[wild] = _scaled_steps(X[wild], cover.basis, net, t0, a)
            first_plus = np.clip(np.ceil(steps - 1e-12), 0, n_thr).astype(np.int64)
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


@privacy_claim(theorem="thm-exponential-mechanism-privacy", epsilon="epsilon", delta=0.0)
@validate_params({"X": Array(ndim=2), "y": Labels(), "cover": _COVER, "epsilon": Epsilon(allow_inf=True),
                  "rng": "random_state"})
def select_halfspace(X, y, cover, epsilon, rng=None):
    """Sample h ∈ H(q) with probability ∝ exp(−(ε/2)·#errors on (X, y)) (Algorithm 7.7 line 7; the paper's step 7).

    The score −#errors changes by at most 1 when one example of S₂ is
    replaced, so ``dpteach.mechanisms.exponential_mechanism_on_errors`` (sensitivity 1)
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

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [-1.0, 0.5], [0.5, -2.0]])
    >>> index, coef, intercept = select_halfspace(X, np.array([1.0, -1.0, 1.0]),
    ...                                           halfspace_cover(np.eye(2)[:, :1], 0.5), epsilon=1.0, rng=0)
    >>> index, coef, intercept
    (11, array([-1.,  0.]), -1.0)
    """
    # ε = inf: the arg-min with uniform tie-breaking (exponential_mechanism_on_errors).
    index = exponential_mechanism_on_errors(cover_error_counts(X, y, cover), epsilon, rng)
    coef, intercept = cover.halfspace(index)
    return index, coef, intercept

