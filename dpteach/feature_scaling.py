"""Chapters 6 and 7: clipped feature maps that are finite for *every* finite record, and the feature-size limits.

Radial clipping ψ̄_T(x) = min(1, T/‖ψ(x)‖)·ψ(x) has norm ≤ T for every x, which
is all the privacy arguments of Lemma 6.6 and Lemma 7.2 use. In floating point
the naive evaluation breaks for a record with a huge but finite coordinate: at
|x| ≳ 1e154 (degree 2; lower at higher degree) ψ(x) or ‖ψ(x)‖² overflows, and
the clipping computes 0·inf = NaN. One such record then turns a private release
into NaN, or makes a learner raise, and that difference reveals the record (the
reliability review's P1 and P2).

The fix here keeps the mathematics and changes only the arithmetic. For the
rows whose features or squared norm overflow, every univariate factor is
carried as mantissa·2^exponent (:func:`scaled_univariate`, exact rescaling by
powers of 2), the product features as the product of the mantissas and the
sum of the exponents (the same parent/child plan as ``hermite._features``), and
the clipped row is T·V/‖V‖ with V the features divided by 2^(largest exponent)
(:func:`clip_scaled_rows`). Rows that do not overflow take the ordinary path, so
results on ordinary data are bit-for-bit those of the plain formula.

The size limits (:data:`MAX_FEATURE_DIMENSION`, :data:`MAX_FEATURE_BYTES`) are
checked before any memory is spent: :func:`check_feature_dimension` and
:func:`check_feature_matrix`.

Nothing here reads private data beyond the one record a row belongs to.
"""

from __future__ import annotations

import math

import numpy as np

# The functions are the package's internal machinery (callers validate their inputs first), so the
# public surface is the two documented limits.
from .bounds.improper import hermite_feature_count

__all__ = ["MAX_FEATURE_DIMENSION", "MAX_FEATURE_BYTES"]

#: Largest number of features D = C(d + p, p) of a feature map. The multi-index table and the
#: product plan cost about 8·D·(d + 3) bytes and a Python loop over D; 2·10⁶ is about 0.5 GB at d = 20.
MAX_FEATURE_DIMENSION = 2_000_000

#: Largest (rows × D) float64 feature matrix a routine builds in one piece: 1 GiB. Sums over
#: samples are chunked and never hit this; the learners that need a whole block refuse above it.
MAX_FEATURE_BYTES = 2 ** 30


def _size(count):
    """An exact int as 1,234,567, or as 'about 10^k' when it is astronomically large."""
    return f"{count:,}" if count < 10 ** 15 else f"about 10^{len(str(count)) - 1}"



def feature_dimension_or_refuse(d, degree, name="degree"):
    """D = C(d + p, p), or a ValueError naming ``name`` when D > :data:`MAX_FEATURE_DIMENSION`.

    ``d`` and ``degree`` must already be validated ints ≥ 1. The binomial is
    computed as a product of min(d, p) factors, so it is instant even for
    p = 10¹⁸; the message says the largest degree that fits at this d.
    """
    D = hermite_feature_count(d, degree)
    if D > MAX_FEATURE_DIMENSION or d * D > 10 * MAX_FEATURE_DIMENSION:
        def fits(p):
            size = hermite_feature_count(d, p)
            return size <= MAX_FEATURE_DIMENSION and d * size <= 10 * MAX_FEATURE_DIMENSION
        largest, above = 0, degree  # D grows with p: bisect for the largest degree that fits
        while above - largest > 1:
            middle = (largest + above) // 2
            largest, above = (middle, above) if fits(middle) else (largest, middle)
        fits = f"degree <= {largest}" if largest >= 1 else "no degree >= 1 fits at this d"
        raise ValueError(f"{name} = {degree} with d = {d} gives D = C(d + p, p) = {_size(D)} features, above "
                         f"MAX_FEATURE_DIMENSION = {MAX_FEATURE_DIMENSION:,} (and d·D <= "
                         f"{10 * MAX_FEATURE_DIMENSION:,}); at d = {d} {fits}")
    return D


def check_feature_matrix(n_rows, n_features, name="X", what="the feature matrix"):
    """Refuse an (n_rows × n_features) float64 matrix above :data:`MAX_FEATURE_BYTES`, naming ``name``.

    The message gives the size wanted, the limit and the largest number of rows that fits.
    """
    wanted = 8 * n_rows * n_features
    if wanted > MAX_FEATURE_BYTES:
        rows = MAX_FEATURE_BYTES // (8 * n_features)
        raise ValueError(f"{name}: {what} of {n_rows:,} rows x D = {n_features:,} features needs "
                         f"{wanted / 2 ** 30:.1f} GiB, above MAX_FEATURE_BYTES = {MAX_FEATURE_BYTES / 2 ** 30:.0f} "
                         f"GiB; at most {rows:,} rows fit at this D (or lower the degree)")


_ZERO_EXPONENT = -(2 ** 40)  # sums of up to 2¹⁹ of these stay far inside int64


def _ldexp(values, exponent):
    """values·2^exponent for int64 exponents (clipped to where the result is 0 or inf anyway)."""
    return np.ldexp(values, np.clip(exponent, -4000, 4000).astype(np.int32))


def _normalise(values, exponent):
    """values·2^exponent as (mantissa in ±[0.5, 1) or 0, exponent): exact (frexp)."""
    mantissa, shift = np.frexp(values)
    # An exact zero gets a sentinel exponent far below any real one, so it never sets a row's scale.
    return mantissa, np.where(mantissa == 0, _ZERO_EXPONENT, exponent + shift.astype(np.int64))


def scaled_univariate(x, degree, basis):
    """(mantissa, exponent), each (p + 1, n), with f_m(x) = mantissa[m]·2^exponent[m]: never overflows.

    ``basis`` "hermite": f_m = h_m by the recurrence h_{m+1} = (x h_m − √m h_{m−1})/√(m+1)
    (``hermite._hermite_rows``), carried at a common scale 2^e that is raised
    whenever the working pair reaches 1, so x·h_m stays below the largest double.
    ``basis`` "monomial": f_m = x^m, from x = f·2^e (frexp) as f^m·2^{me}.
    Rescaling by powers of 2 is exact, so the mantissas carry the same rounding
    as the plain recurrence until the latter would overflow.
    """
    x = np.asarray(x, dtype=float)
    n = x.size
    mantissa = np.empty((degree + 1, n))
    exponent = np.zeros((degree + 1, n), dtype=np.int64)
    mantissa[0] = 0.5  # 1 = 0.5·2¹
    exponent[0] = 1
    if basis == "monomial":
        fx, ex = np.frexp(x)
        ex = ex.astype(np.int64)
        for m in range(1, degree + 1):
            mantissa[m], exponent[m] = _normalise(mantissa[m - 1] * fx, exponent[m - 1] + ex)
        return mantissa, exponent
    scale = np.zeros(n, dtype=np.int64)            # the working pair is (h_m, h_{m−1})·2^{−scale}
    previous, current = np.zeros(n), np.ones(n)    # h_{−1} := 0 and h_0 = 1 at scale 0
    if degree >= 1:
        previous, current = current, x.copy()
        current, previous, scale = _rescale(current, previous, scale)
        mantissa[1], exponent[1] = _normalise(current, scale)
    for m in range(1, degree):
        following = (x * current - math.sqrt(m) * previous) / math.sqrt(m + 1)
        previous, current = current, following
        current, previous, scale = _rescale(current, previous, scale)
        mantissa[m + 1], exponent[m + 1] = _normalise(current, scale)
    return mantissa, exponent


def _rescale(current, previous, scale):
    """Divide the working pair by 2^s (s ≥ 0, exact) so that both are below 1 in absolute value."""
    _, shift = np.frexp(np.maximum(np.abs(current), np.abs(previous)))
    shift = np.maximum(shift.astype(np.int64), 0)
    return _ldexp(current, -shift), _ldexp(previous, -shift), scale + shift


def scaled_products(factors, plan):
    """Features as (mantissa, exponent), each (D, n), from per-coordinate scaled factors and a product plan.

    ``factors`` is a list over coordinates of (mantissa, exponent) pairs from
    :func:`scaled_univariate`; ``plan`` is (parent, coord, power) of
    ``hermite.feature_plan``: feature j = feature parent[j] × factor[coord[j]][power[j]],
    feature 0 = 1. Mantissas are renormalised after every product, so nothing
    underflows either.
    """
    parent, coord, power = plan
    n = factors[0][0].shape[1]
    mantissa = np.empty((parent.size, n))
    exponent = np.empty((parent.size, n), dtype=np.int64)
    mantissa[0], exponent[0] = 0.5, 1
    for j in range(1, parent.size):
        fm, fe = factors[coord[j]][0][power[j]], factors[coord[j]][1][power[j]]
        mantissa[j], exponent[j] = _normalise(mantissa[parent[j]] * fm, exponent[parent[j]] + fe)
    return mantissa, exponent


def clip_scaled_rows(mantissa, exponent, radius, transform=None):
    """Rows ψ̄ = min(1, T/‖ψ‖)·ψ of features given as mantissa·2^exponent, shape (n, D) each; finite always.

    With E_i the largest exponent of row i, V_i = mantissa_i·2^{exponent_i − E_i}
    has entries of magnitude ≤ 1 and ψ_i = 2^{E_i}·V_i, so ‖ψ_i‖ = 2^{E_i}‖V_i‖
    is compared with T as ‖V_i‖ > T·2^{−E_i} and never formed. ``transform`` (a (D, D) matrix
    A, for ψ = A m as in the log-concave basis) is applied to V first, which is
    linear and so commutes with the scale. The clipped row is T·V/‖V‖ when
    ‖ψ‖ > T, else ψ itself (then ≤ T, hence finite).
    """
    top = exponent.max(axis=1, keepdims=True)
    V = _ldexp(mantissa, exponent - top)
    if transform is not None:
        V = V @ transform.T
    norms = np.sqrt(np.einsum("ij,ij->i", V, V))
    out = np.zeros_like(V)
    nonzero = norms > 0
    # ‖ψ‖ > T  ⇔  ‖V‖ > T·2^{−E}: an exact power-of-two rescaling, no log (np.log2's SIMD path may round
    # differently on another CPU, and a row at the boundary must be clipped the same way everywhere).
    clip = nonzero & (norms > _ldexp(np.full(norms.shape, float(radius)), -top[:, 0]))
    out[clip] = V[clip] * (radius / norms[clip])[:, None]
    keep = nonzero & ~clip
    out[keep] = _ldexp(V[keep], np.broadcast_to(top[keep], V[keep].shape))
    return out


def clip_factor(norms, radius, floor=None):
    """s = min(1, T/‖x‖), a zero norm keeping factor 1 (``floor`` default: the smallest normal double).

    The one home of radial clipping's factor (Section 6.4, Algorithm 9.2 step 2, chapter 8's line 3)."""
    floor = np.finfo(float).tiny if floor is None else floor
    return np.minimum(1.0, radius / np.maximum(norms, floor))


def radial_clip_factors(X, radius, floor=None, norms=None):
    """s_i = min(1, T/‖x_i‖₂) for the rows of X (last axis), without overflow warnings or NaN, any finite X.

    The usual ``np.linalg.norm`` (so ordinary rows get exactly the numbers they
    always had); a row whose norm overflows (entries near 1e154 or above) gets
    s_i = (T/m)/‖x_i/m‖ with m = max|x_ij|, which is its exact factor, so the
    clipped row x_i·s_i has norm T instead of being silently zeroed. ``floor``
    guards a zero row (default the smallest normal double). ``norms`` (shape
    X.shape[:-1] + (1,)) are the caller's own norms, when it computes them
    another way (einsum), so that its ordinary rows keep their exact numbers.
    Returns shape X.shape[:-1] + (1,).
    """
    if norms is None:
        with np.errstate(over="ignore"):
            norms = np.linalg.norm(X, axis=-1, keepdims=True)
    factors = clip_factor(norms, radius, floor)
    overflow = ~np.isfinite(norms[..., 0])
    if overflow.any():
        rows = X[overflow]
        top = np.max(np.abs(rows), axis=-1, keepdims=True)
        factors[overflow] = clip_factor(np.linalg.norm(rows / top, axis=-1, keepdims=True), radius / top)
    return factors


def clip_rows(X, radius, floor=None, norms=None):
    """x ↦ x·min(1, T/‖x‖₂) for every row of X (last axis): norm clipping, the package's one home for it.

    Section 6.4's ψ̄, Algorithm 9.2's step 2 (per-example gradients), chapter 8's line 3 and chapter 4's
    clipped mean all clip this way. Every clipped row has norm ≤ T and keeps its direction; rows already
    shorter are unchanged. ``floor`` and ``norms`` as in :func:`radial_clip_factors`.
    """
    return X * radial_clip_factors(X, radius, floor=floor, norms=norms)
