"""Chapter 6: the normalised probabilists' Hermite basis, the feature map ψ_p and radial clipping.

h_m = He_m/√(m!) is orthonormal in L²(N(0, 1)) (the paper's Lemma B.8), the
tensor products h_κ(x) = Π_i h_{κ_i}(x_i) with |κ| ≤ p are an orthonormal basis
of the polynomials of degree ≤ p in L²(N(0, I_d)), and the feature map
ψ_p(x) = (h_κ(x))_{|κ| ≤ p} has D_p = C(d + p, p) coordinates. Radial clipping
at radius T makes every loss ⟨v, ψ̄(x)⟩ − y T-Lipschitz in v (Lemma C.2 and
Remark 3 of the paper say how large T must be).

Nothing here touches private data: the basis, the multi-index order and the
clipping radius are public (``clip_radius`` draws *synthetic* Gaussians). The exact
Hermite coefficients of a threshold or a halfspace (the oracle polynomials of
Section 6.3) are in :mod:`dpteach.hermite_coefficients`.
"""

from __future__ import annotations

import math
from itertools import combinations_with_replacement

import numpy as np

from ._constraints import (Integral, FiniteInterval, OPEN_UNIT, Options, OrNone, POSITIVE, POSITIVE_INT,
                           validate_params)
from ._array_constraints import Array
from ._validation import check_finite_array, check_positive
from .bounds.improper import hermite_feature_count
from .feature_scaling import (check_feature_matrix, clip_factor, clip_scaled_rows, feature_dimension_or_refuse,
                              scaled_products, scaled_univariate)

__all__ = [
    "multi_indices",
    "feature_dimension",
    "hermite_1d",
    "hermite_features",
    "iter_hermite_features",
    "hermite_feature_sum",
    "clipped_hermite_features",
    "clip_features",
    "clip_radius",
    "CLIP_RULES",
]

CLIP_RULES = ("2sqrtD", "markov", "eq25")

# About 32 MB of float64 per chunk: large enough that the per-chunk Python
# overhead (one multiply per column) is negligible, small enough to stay in memory.
_CHUNK_ENTRIES = 4_000_000


@validate_params({"d": POSITIVE_INT, "degree": POSITIVE_INT})
def feature_dimension(d, degree):
    """D_p = C(d + p, p), the number of Hermite features of degree ≤ p in d variables.

    Parameters
    ----------
    d : int, d ≥ 1
    degree : int, degree ≥ 1

    Returns
    -------
    int

    Raises
    ------
    TypeError, ValueError
        For non-integers or values below 1.

    Examples
    --------
    >>> feature_dimension(d=2, degree=2)
    6
    """
    return hermite_feature_count(d, degree)


@validate_params({"d": POSITIVE_INT, "degree": POSITIVE_INT})
def multi_indices(d, degree):
    """All multi-indices κ ∈ ℕ₀^d with |κ| ≤ p, in graded order (Lemma 6.2, Section 6.2; the paper's Lemma B.8).

    Degree k = 0, 1, …, p in turn; within one degree, the multisets of
    coordinates {i₁ ≤ … ≤ i_k} in lexicographic order (so for d = 2:
    (0,0), (1,0), (0,1), (2,0), (1,1), (0,2), …). Row j is the multi-index of
    column j of :func:`hermite_features`.

    Parameters
    ----------
    d : int, d ≥ 1
        Dimension.
    degree : int, degree ≥ 1
        Maximal total degree p.

    Returns
    -------
    numpy.ndarray of int64, shape (D, d)
        D = C(d + p, p). Cost O(D·d).

    Raises
    ------
    TypeError, ValueError
        For non-integers or values below 1, and for D above
        ``feature_scaling.MAX_FEATURE_DIMENSION`` (refused before any work).

    Examples
    --------
    >>> multi_indices(d=2, degree=2).tolist()
    [[0, 0], [1, 0], [0, 1], [2, 0], [1, 1], [0, 2]]
    """
    feature_dimension_or_refuse(d, degree)
    # Graded order: degree k = 0..p, and within a degree lexicographic in the sorted coordinate list.
    rows = []
    for k in range(degree + 1):
        for combo in combinations_with_replacement(range(d), k):
            kappa = [0] * d
            for i in combo:
                kappa[i] += 1
            rows.append(kappa)
    return np.array(rows, dtype=np.int64).reshape(len(rows), d)


def _hermite_rows(x, degree):
    """(degree + 1, n) array H[m] = h_m(x) by the three-term recurrence, x a 1-D float array."""
    out = np.empty((degree + 1, x.size))
    out[0] = 1.0
    if degree >= 1:
        out[1] = x
    for m in range(1, degree):
        # h_{m+1} = (x h_m − √m h_{m−1}) / √(m+1), from He_{m+1} = x He_m − m He_{m−1}.
        np.multiply(x, out[m], out=out[m + 1])
        out[m + 1] -= math.sqrt(m) * out[m - 1]
        out[m + 1] /= math.sqrt(m + 1)
    return out


@validate_params({"x": Array(), "degree": POSITIVE_INT})
def hermite_1d(x, degree):
    """h_0(x), …, h_p(x) with h_m = He_m/√(m!), by the three-term recurrence (the paper's Lemma B.8).

    h_{m+1}(x) = (x·h_m(x) − √m·h_{m−1}(x))/√(m+1), which is stable in floating
    point (unlike expanding the monomial coefficients). The h_m are orthonormal
    under N(0, 1) and h_m′ = √m·h_{m−1}.

    Parameters
    ----------
    x : array_like of finite floats, any shape (a scalar gives shape (p + 1,))
    degree : int, degree ≥ 1

    Returns
    -------
    numpy.ndarray, shape x.shape + (p + 1,)
        [..., m] = h_m(x). Cost O(size(x)·p).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf or non-numeric x, an empty x, or degree < 1.

    Examples
    --------
    >>> x = np.linspace(0.05, 0.95, 8)
    >>> hermite_1d(x, degree=3).shape
    (8, 4)
    """
    _check_univariate_table(x.size, degree, "x")
    rows = _hermite_rows(x.ravel(), degree)
    return np.moveaxis(rows.reshape((degree + 1,) + x.shape), 0, -1)


def _check_univariate_table(n_points, degree, name):
    """Refuse up front the (p + 1) × n table of h_0..h_p at n points beyond the feature-size limits.

    In one dimension the p + 1 values are the degree-p feature map at d = 1 (D = C(1 + p, p) = p + 1),
    so the limits are those of every feature map: the degree by :func:`feature_dimension_or_refuse`,
    the table by :func:`check_feature_matrix` (naming ``name``, the points).
    """
    check_feature_matrix(n_points, feature_dimension_or_refuse(1, degree), name, "the table h_0..h_p")


def _parents(kappas):
    """For each κ ≠ 0: the row of κ with its last non-zero coordinate i set to 0, plus i and κ_i.

    Then h_κ(x) = h_{parent}(x)·h_{κ_i}(x_i), and the parent has lower degree,
    so it comes earlier in graded order.
    """
    lookup = {tuple(k): j for j, k in enumerate(kappas.tolist())}
    parent = np.zeros(len(kappas), dtype=np.int64)
    coord = np.zeros(len(kappas), dtype=np.int64)
    power = np.zeros(len(kappas), dtype=np.int64)
    for j, kappa in enumerate(kappas.tolist()):
        nonzero = [i for i, k in enumerate(kappa) if k]
        if not nonzero:
            continue
        i = nonzero[-1]
        reduced = list(kappa)
        reduced[i] = 0
        parent[j], coord[j], power[j] = lookup[tuple(reduced)], i, kappa[i]
    return parent, coord, power


_PLAN_CACHE: dict = {}


def feature_plan(d, degree):
    """The cached recurrence plan of ψ_p for (d, p): each feature as a parent feature times one 1-D factor (shared with logconcave)."""
    key = (d, degree)
    if key not in _PLAN_CACHE:
        _PLAN_CACHE[key] = _parents(multi_indices(d, degree))  # multi_indices refuses D beyond the limit
    return _PLAN_CACHE[key]


def _features(X, degree):
    """ψ_p(X) for validated X (n, d): a (D, n) C-ordered buffer filled row by row, returned transposed."""
    n, d = X.shape
    parent, coord, power = feature_plan(d, degree)
    # Univariate factors: (d, p + 1, n), each row contiguous; O(n·d·p), small next to the output.
    factors = np.empty((d, degree + 1, n))
    for i in range(d):
        factors[i] = _hermite_rows(np.ascontiguousarray(X[:, i]), degree)
    out = np.empty((parent.size, n))
    out[0] = 1.0
    for j in range(1, parent.size):
        if parent[j] == 0:
            out[j] = factors[coord[j], power[j]]
        else:
            np.multiply(out[parent[j]], factors[coord[j], power[j]], out=out[j])
    return out.T


@validate_params({"X": Array(ndim=2), "degree": POSITIVE_INT})
def hermite_features(X, degree):
    """The feature map ψ_p(x) = (h_κ(x))_{|κ| ≤ p} of Section 6.2 (the paper's Section 2).

    Column j is Π_i h_{κ_i}(x_i) for κ = ``multi_indices(d, degree)[j]``. Each
    column is computed as *one* product of an earlier column (κ with its last
    non-zero coordinate dropped) and one univariate factor h_{κ_i}(x_i): a
    single pass over the output, vectorised over samples.

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    degree : int, degree ≥ 1

    Returns
    -------
    numpy.ndarray, shape (n, D), D = C(d + p, p)
        A Fortran-ordered array (the transpose of a C-ordered (D, n) buffer);
        ``F @ v`` and ``F.T @ w`` are as fast as for a C-ordered one. Cost
        O(n·D) time and 8·n·D bytes; for sums over samples use
        :func:`hermite_feature_sum`, which never holds the whole matrix.

    Raises
    ------
    TypeError, ValueError
        For NaN/inf, a non-2-D or empty X, or degree < 1; for D or the
        (n, D) matrix above the limits of :mod:`dpteach.feature_scaling`
        (refused before it is allocated); and for a record whose features
        overflow double precision (use :func:`clipped_hermite_features`, which
        is finite for every finite record).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(12, 2))
    >>> hermite_features(X, degree=2).shape
    (12, 6)
    """
    check_feature_matrix(X.shape[0], feature_dimension_or_refuse(X.shape[1], degree))
    return _finite_or_refuse(hermite_features_unchecked(X, degree), X, degree)


def hermite_features_unchecked(X, degree):
    """ψ_p(X) with overflow allowed (inf/NaN rows are detected by the caller, without warnings)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _features(X, degree)


def _finite_or_refuse(F, X, degree, start=0):
    """F, or a ValueError naming X when a record's unclipped features overflow double precision."""
    finite = np.isfinite(F).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise ValueError(f"X row {start + row} (max |x| = {np.max(np.abs(X[row])):.3g}) has degree-{degree} "
                         "Hermite features beyond the largest double; unclipped features cannot represent it "
                         "(the clipped map clipped_hermite_features, or hermite_feature_sum with a radius, "
                         "is finite for every finite record)")
    return F


def _chunk_size(n_columns, chunk_size):
    if chunk_size is None:
        return max(1, _CHUNK_ENTRIES // n_columns)
    return chunk_size


@validate_params({"X": Array(ndim=2), "degree": POSITIVE_INT, "chunk_size": OrNone(POSITIVE_INT)})
def iter_hermite_features(X, degree, chunk_size=None):
    """Yield ``(start, ψ_p(X[start:start + b]))`` chunk by chunk, for sums and products over samples.

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    degree : int, degree ≥ 1
    chunk_size : int ≥ 1, optional
        Rows per chunk b; default about 32 MB of features per chunk.

    Yields
    ------
    (int, numpy.ndarray of shape (b, D))
        Cost O(n·D) time in total, O(b·D) memory.

    Raises
    ------
    TypeError, ValueError
        As :func:`hermite_features`, and for chunk_size < 1.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(12, 2))
    >>> [(start, F.shape) for start, F in iter_hermite_features(X, degree=2, chunk_size=5)]
    [(0, (5, 6)), (5, (5, 6)), (10, (2, 6))]
    """
    D = feature_dimension_or_refuse(X.shape[1], degree)
    check_feature_matrix(min(X.shape[0], _chunk_size(D, chunk_size)), D, "chunk_size", "one chunk")
    return ((start, _finite_or_refuse(F, X[start:start + F.shape[0]], degree, start))
            for start, F in _iter_features(X, degree, chunk_size))


def _iter_features(X, degree, chunk_size):
    """(start, ψ_p(chunk)) with overflow allowed: callers clip (finite) or refuse (unclipped)."""
    size = _chunk_size(hermite_feature_count(X.shape[1], degree), chunk_size)
    for start in range(0, X.shape[0], size):
        yield start, hermite_features_unchecked(X[start:start + size], degree)


@validate_params({"X": Array(ndim=2), "degree": POSITIVE_INT, "weights": OrNone(Array(ndim=1)),
                  "radius": OrNone(POSITIVE), "chunk_size": OrNone(POSITIVE_INT)})
def hermite_feature_sum(X, degree, weights=None, radius=None, chunk_size=None):
    """Σ_i w_i·ψ_p(x_i) (or the clipped ψ̄_{p,T}), chunk by chunk, without the whole (n, D) matrix.

    With ``weights = y`` this is n times the empirical Hermite correlation
    vector (1/n)Σ y_i ψ(x_i) that chapter 7 privatises; with ``radius = T``
    every ψ(x_i) is first clipped radially to norm ≤ T, which bounds the
    replace-one sensitivity of the sum by 2T·max|w_i| (not privatised here).

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    degree : int, degree ≥ 1
    weights : array_like, shape (n,), finite, optional
        Default all ones.
    radius : float > 0, optional
        Clipping radius T; default no clipping.
    chunk_size : int ≥ 1, optional

    Returns
    -------
    numpy.ndarray, shape (D,)
        Cost O(n·D) time, O(chunk·D) memory.

    Raises
    ------
    TypeError, ValueError
        As :func:`hermite_features`; for weights of the wrong length or with
        NaN/inf; for radius ≤ 0; for chunk_size < 1. With a radius, every
        finite record is accepted: a record whose features overflow double
        precision is clipped exactly in scaled arithmetic
        (:mod:`dpteach.feature_scaling`), never turned into NaN.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(12, 2))
    >>> y = np.array([1.0, -1.0] * 6)
    >>> hermite_feature_sum(X, degree=2, weights=y, radius=5.0).shape
    (6,)
    """
    if weights is None:
        weights = np.ones(X.shape[0])
    elif weights.shape != (X.shape[0],):  # one weight per row of X: needs the data, so checked here
        raise ValueError(f"weights must have shape ({X.shape[0]},), one weight per row of X, got {weights.shape}")
    D = feature_dimension_or_refuse(X.shape[1], degree)
    check_feature_matrix(min(X.shape[0], _chunk_size(D, chunk_size)), D, "chunk_size", "one chunk")
    total = np.zeros(D)
    for start, F in _iter_features(X, degree, chunk_size):
        w = weights[start:start + F.shape[0]]
        if radius is None:
            total += w @ _finite_or_refuse(F, X[start:start + F.shape[0]], degree, start)
            continue
        scale, overflow = clip_scale_or_overflow(F, radius)
        if overflow.any():  # those rows: exact clipping in scaled arithmetic, added separately
            F[overflow] = 0.0
            total += w[overflow] @ _scaled_clipped_rows(X[start:start + F.shape[0]][overflow], degree, radius)
        total += (w * scale) @ F
    return total


def clip_scale(F, radius):
    """s_i = min(1, T/‖F_i‖), with s_i = 1 for a zero row."""
    return clip_factor(np.sqrt(np.einsum("ij,ij->i", F, F)), radius)


def clip_scale_or_overflow(F, radius):
    """(s, overflow): s_i = min(1, T/‖F_i‖) as :func:`clip_scale`, and s_i = 0 on the rows whose
    features or squared norm overflowed (``overflow``), which the caller clips in scaled arithmetic."""
    with np.errstate(over="ignore", invalid="ignore"):
        squared = np.einsum("ij,ij->i", F, F)
    overflow = ~np.isfinite(squared)
    scale = clip_factor(np.sqrt(np.where(overflow, 1.0, squared)), radius)
    scale[overflow] = 0.0
    return scale, overflow


def _scaled_clipped_rows(X, degree, radius):
    """ψ̄_{p,T}(x) for rows whose features overflow: mantissa·2^exponent arithmetic, finite (feature_scaling)."""
    factors = [scaled_univariate(X[:, i], degree, "hermite") for i in range(X.shape[1])]
    mantissa, exponent = scaled_products(factors, feature_plan(X.shape[1], degree))
    return clip_scaled_rows(mantissa.T, exponent.T, radius)


def clip_features_prechecked(X, degree, radius):
    """ψ̄_{p,T}(X) for validated X: the plain F·s on ordinary rows, the scaled path on overflowing ones."""
    F = hermite_features_unchecked(X, degree)
    scale, overflow = clip_scale_or_overflow(F, radius)
    if overflow.any():
        F[overflow] = 0.0
    clipped = F * scale[:, None]
    if overflow.any():
        clipped[overflow] = _scaled_clipped_rows(X[overflow], degree, radius)
    return clipped


@validate_params({"X": Array(ndim=2), "degree": POSITIVE_INT, "radius": POSITIVE})
def clipped_hermite_features(X, degree, radius):
    """The clipped feature map ψ̄_{p,T}(x) = min(1, T/‖ψ_p(x)‖)·ψ_p(x) (Section 6.4), finite for every finite x.

    What the private learners use (Algorithm 6.10's blocks and validation
    set): every row has norm ≤ T whatever the record, so one record moves a
    sum by at most 2T. On ordinary rows this is exactly
    ``clip_features(hermite_features(X, p), T)[0]``; a record whose features
    or squared norm overflow double precision (|x| ≳ 1e154 at degree 2) is
    clipped exactly in scaled arithmetic (:mod:`dpteach.feature_scaling`)
    instead of becoming NaN (the reliability review's P1/P2).

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    degree : int ≥ 1
    radius : float > 0
        The public clipping radius T.

    Returns
    -------
    numpy.ndarray, shape (n, D), every row of norm ≤ T. Cost O(n·D).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf or a non-2-D or empty X, degree < 1, radius ≤ 0, and for D
        or the (n, D) matrix above the limits of :mod:`dpteach.feature_scaling`.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(12, 2))
    >>> bool(np.all(np.linalg.norm(clipped_hermite_features(X, degree=2, radius=5.0), axis=1) <= 5.0))
    True
    """
    check_feature_matrix(X.shape[0], feature_dimension_or_refuse(X.shape[1], degree))
    return clip_features_prechecked(X, degree, radius)


@validate_params({"F": Array(ndim=2), "radius": POSITIVE})
def clip_features(F, radius):
    """Radial clipping ψ̄_{p,T}(x) = s(x)·ψ_p(x), s(x) = min(1, T/‖ψ_p(x)‖₂) (the paper's Section 2).

    Every clipped row has norm ≤ T, so each L1 loss |⟨v, ψ̄(x)⟩ − y| is
    T-Lipschitz in v (the paper's Proposition C.1); rows already inside the
    ball are unchanged. T must be public (data-independent) for the privacy
    argument.

    Parameters
    ----------
    F : array_like, shape (n, D), finite
        Feature rows (typically ``hermite_features(X, p)``).
    radius : float > 0
        The clipping radius T.

    Returns
    -------
    (F_clipped, scale) : shapes (n, D) and (n,)
        scale_i = min(1, T/‖F_i‖) ∈ (0, 1]. Cost O(n·D).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf, a non-2-D or empty F, or radius ≤ 0.

    Examples
    --------
    >>> F, scale = clip_features(np.ones((3, 4)), radius=1.0)
    >>> F.shape, scale.tolist()
    ((3, 4), [0.5, 0.5, 0.5])
    """
    # Declared, and checked again here: this check runs even inside a fit (where declared checks are skipped),
    # and it is the one that _PrivateHermiteL1LearnerOverflowBroken trips on an overflowing record
    # (tests/test_extreme_records.py).
    F = check_finite_array(F, "F", ndim=2)
    radius = check_positive(radius, "radius")
    scale, overflow = clip_scale_or_overflow(F, radius)
    if overflow.any():
        # Finite entries whose squared norm overflows: ‖F_i‖ = m·‖F_i/m‖ with m = max|F_ij|.
        rows = F[overflow]
        top = np.max(np.abs(rows), axis=1)
        scale[overflow] = clip_factor(np.linalg.norm(rows / top[:, None], axis=1), radius / top)
    return F * scale[:, None], scale


def _norm_sample(d, degree, n_draws, rng):
    """‖ψ_p(X)‖₂ for n_draws synthetic X ~ N(0, I_d), chunked."""
    X = rng.standard_normal((n_draws, d))
    norms = np.empty(n_draws)
    for start, F in _iter_features(X, degree, None):
        norms[start:start + F.shape[0]] = np.sqrt(np.einsum("ij,ij->i", F, F))
    return norms


def eq25_radius(norms, c_alpha):
    """min{t > 0 : mean((1 − t/r_i)_+) ≤ cα} for a sample of norms r_i ≥ 1, exactly.

    f(t) = (1/N)Σ_{r_i > t}(1 − t/r_i) is continuous, decreasing, and linear
    between consecutive sorted norms, so the crossing is found by scanning.
    """
    r = np.sort(norms)[::-1]
    N = r.size
    k = np.arange(1, N + 1)
    inv_cumsum = np.cumsum(1.0 / r)
    # On the segment t ∈ [r_(k+1), r_(k)] (descending), f(t) = (k − t·S_k)/N.
    t = (k - N * c_alpha) / inv_cumsum
    lower = np.append(r[1:], 0.0)
    ok = (t <= r) & (t >= lower) & (t > 0)
    if not np.any(ok):
        return float(r[0])
    return float(t[np.flatnonzero(ok)[0]])


@validate_params({"d": POSITIVE_INT, "degree": POSITIVE_INT, "c_alpha": OPEN_UNIT, "rule": Options(CLIP_RULES),
                  "n_draws": FiniteInterval(Integral, 100, None, closed="left"), "rng": "random_state"})
def clip_radius(d, degree, c_alpha, rule="2sqrtD", n_draws=100_000, rng=0):
    """The clipping radius T of Section 6.4, by one of the paper's three rules.

    - ``"2sqrtD"``: T = 2√D_p (the paper's Section 2 and Lemma C.2; valid when
      d ≥ 2p²/(cα), which notebook sizes do not meet, though the clipped mass
      stays small in practice);
    - ``"markov"``: T = √(D_p/(cα)) (the paper's Remark 3, any dimension: by
      Markov, Pr[‖ψ_p‖ > T] ≤ D_p/T² = cα; we read the printed √D_p/(cα) as
      √(D_p/(cα)), which is what Eq. (7) needs);
    - ``"eq25"``: the smallest T with E[(1 − T/‖ψ_p(X)‖)_+] ≤ cα (the paper's
      Eq. (25)), estimated on ``n_draws`` synthetic X ~ N(0, I_d).

    Privacy: none of the rules reads private data (the marginal is known), so T
    is public.

    Parameters
    ----------
    d : int ≥ 1
    degree : int ≥ 1
    c_alpha : float in (0, 1)
        The allowed clipping bias cα.
    rule : {"2sqrtD", "markov", "eq25"}
    n_draws : int ≥ 100
        Monte Carlo draws for "eq25" (ignored otherwise). Cost O(n_draws·D_p).
    rng : seed or Generator
        For the synthetic draws of "eq25"; the default 0 makes T reproducible.

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        For d, degree < 1, cα ∉ (0, 1), an unknown rule, n_draws < 100 or a bad rng, and
        for D above ``feature_scaling.MAX_FEATURE_DIMENSION``.

    Examples
    --------
    >>> round(clip_radius(d=2, degree=2, c_alpha=0.5, n_draws=100, rng=0), 3)
    4.899
    >>> round(clip_radius(d=2, degree=2, c_alpha=0.5, rule="eq25", n_draws=100, rng=0), 3)
    0.925
    """
    D = feature_dimension_or_refuse(d, degree)  # also keeps √D a float (D = C(d + 10¹⁸, 10¹⁸) is not)
    if rule == "2sqrtD":
        return 2.0 * math.sqrt(D)
    if rule == "markov":
        return math.sqrt(D / c_alpha)
    return eq25_radius(_norm_sample(d, degree, n_draws, rng), c_alpha)
