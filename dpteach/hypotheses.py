"""Finite hypothesis classes with fast error counts (chapter 2; reused by chapters 7–8).

Thresholds, intervals, halfspaces over a public net of directions, and
parities, each evaluated for *all hypotheses at once*: ``predict_all(X)``
gives the |H| × n matrix of ±1 predictions, and ``error_counts(X, y)`` the |H|
training-error counts through a fast path (prefix sums for thresholds,
intervals and halfspaces, the Walsh–Hadamard transform for parities) that the
tests check against the naive count.

Every class is *public*: its grid, net or seed is fixed before the data is
seen. A class built from the data (say, thresholds at the data points) would
leak the data and void the privacy proof. Labels are ±1 throughout; the
slides' {0, 1} labels map to ±1 by b ↦ (−1)^b, which is also how a parity's
value becomes a label.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from ._constraints import Check, FiniteInterval, OrNone, POSITIVE_INT, Unchecked, validate_params
from ._array_constraints import Array
from ._validation import (check_bits, check_finite_array, check_int, check_labels, check_memory, check_probability,
                          check_same_length)
from .fast_counts import halfspace_errors, interval_errors, line_points, naive_error_counts, threshold_class_errors

__all__ = ["Hypothesis", "HypothesisClass", "Thresholds", "Intervals", "Halfspaces", "Parities",
           "thresholds", "intervals", "halfspaces", "parities", "public_directions", "walsh_hadamard",
           "check_class"]

@dataclass(frozen=True, eq=False)
class Hypothesis:
    """One member of a finite class: ``H[index]``. Calling it on X predicts ±1 labels.

    Examples
    --------
    >>> H = thresholds(4)
    >>> h = Hypothesis(H, 1, H.describe(1))   # what H[1] builds
    >>> h(np.array([0.1, 0.6])).tolist()
    [-1, 1]
    """

    hypotheses: "HypothesisClass" = field(repr=False)
    index: int
    params: dict

    _parameter_constraints = dict.fromkeys(
        ("hypotheses", "index", "params"),
        Unchecked("a record HypothesisClass.__getitem__ fills in from an index it has checked"))

    def __call__(self, X):
        return self.hypotheses.predict(self.index, X)

    predict = __call__


class HypothesisClass:
    """A finite, public hypothesis class H with vectorised evaluation.

    Subclasses implement ``_prepare(X, batched)`` (validate and reshape the
    points), ``_predict(indices, points)`` (the ±1 predictions of the given
    hypotheses, shape (len(indices), n)), ``_batch_error_counts(points, y)``
    (the fast path, shape (S, |H|)) and ``describe(index)``.

    Examples
    --------
    >>> HypothesisClass().name   # the base; a subclass such as Thresholds declares its own parameters
    'hypothesis class'
    """

    name = "hypothesis class"

    def __len__(self):
        return self.size

    @property
    def size(self):
        """|H|, the number of hypotheses."""
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}(|H|={len(self)})"

    def __getitem__(self, index):
        index = self._check_index(index)
        return Hypothesis(self, index, self.describe(index))

    def _check_index(self, index):
        return check_int(index, "index", minimum=0, maximum=len(self) - 1)

    def describe(self, index):
        """The parameters of ``H[index]`` as a dict (e.g. the cut and sign of a threshold)."""
        raise NotImplementedError

    def _prepare(self, X, batched):
        """Validate X (with a leading dataset axis if ``batched``) and return it as an array."""
        raise NotImplementedError

    def _predict(self, indices, points):
        """±1 predictions (int8) of the hypotheses ``indices`` on ``points``: shape (len(indices), n)."""
        raise NotImplementedError

    def _batch_error_counts(self, points, labels):
        """The fast path: error counts of all of H on S datasets, shape (S, |H|)."""
        raise NotImplementedError

    # -- prediction --------------------------------------------------------
    def predict_all(self, X):
        """Predictions of every hypothesis on every point: int8 array of shape (|H|, n), entries ±1.

        Cost O(|H|·n) time and memory (plus the cost of one prediction); use
        :meth:`error_counts` when only the error counts are needed.
        """
        points = self._prepare(X, batched=False)
        return self._predict(np.arange(len(self)), points)

    def predict(self, index, X):
        """Predictions (±1, int8, shape (n,)) of the hypothesis ``H[index]`` on X."""
        index = self._check_index(index)
        points = self._prepare(X, batched=False)
        return self._predict(np.array([index]), points)[0]

    # -- error counts ------------------------------------------------------
    def error_counts(self, X, y, method="fast"):
        """Training-error counts |{i : h(x_i) ≠ y_i}| of every h ∈ H (int64, shape (|H|,)).

        ``method="fast"`` uses the class's fast path (see the class docstring
        for its cost); ``method="naive"`` counts from :meth:`predict_all` in
        chunks, O(|H|·n) time. Both give identical results (tests check it).

        Raises
        ------
        ValueError
            If X has the wrong shape or non-finite entries, y is not ±1, or
            X and y have different lengths.
        """
        if method not in ("fast", "naive"):
            raise ValueError(f"method must be one of 'fast', 'naive', got {method!r}")
        points = self._prepare(X, batched=False)
        labels = check_labels(y, "y")
        check_same_length(points, labels, "X", "y")
        if method == "naive":
            return naive_error_counts(self._predict, len(self), points, labels)
        return self._batch_error_counts(points[None], labels[None])[0]

    def batch_error_counts(self, X, y):
        """Error counts for S datasets at once: X has a leading axis of S datasets, y shape (S, n).

        Returns an int64 array of shape (S, |H|). The same fast path as
        :meth:`error_counts`, vectorised over datasets as well (the chapter's
        experiments run 200 seeds in one call).
        """
        points = self._prepare(X, batched=True)
        labels = check_labels(np.reshape(y, -1), "y").reshape(np.shape(y))
        if labels.shape != points.shape[:2]:
            raise ValueError(f"X and y must describe the same datasets: y must have shape "
                             f"{points.shape[:2]}, got {labels.shape}")
        return self._batch_error_counts(points, labels)


def _grid_points(grid):
    """The points of a public grid: an int N gives the N + 1 points k/N of [0, 1], an array its entries as floats."""
    if isinstance(grid, (int, np.integer)) and not isinstance(grid, bool):
        return np.linspace(0.0, 1.0, int(grid) + 1)
    return np.asarray(grid, dtype=float)


def _check_grid(grid, name="grid"):
    """The rule of :data:`GRID`: an int N >= 1 (within the memory limit) or a strictly increasing finite 1-D array."""
    if isinstance(grid, (int, np.integer)) and not isinstance(grid, bool):
        n_cells = check_int(grid, name, minimum=1)
        check_memory((name, n_cells))
        return _grid_points(n_cells)
    arr = check_finite_array(grid, name, ndim=1)
    if np.any(np.diff(arr) <= 0):
        raise ValueError(f"{name} must be strictly increasing, got {arr!r}")
    return arr


# Check: an int N or a strictly increasing array, returned as the grid's points.
#: A public grid (an int N or a strictly increasing array), returned as its points; nested calls only convert.
GRID = Check(_check_grid, array_ndim=1, convert_nested=_grid_points,
             invalid=[(0, "0"), (True, "True"), ("a", "'a'"), (None, "None"), (np.array([0.5, 0.2]), "decreasing")])


class Thresholds(HypothesisClass):
    """Thresholds on a public grid g_0 < … < g_N of the line, both orientations.

    h_{k,+}(x) = +1 iff x >= g_k, and h_{k,−} = −h_{k,+}, for k = 0..N;
    |H| = 2(N + 1). Index k is h_{k,+} and index N + 1 + k is h_{k,−}.
    Error counts: one ``searchsorted`` of the points into the grid and two
    prefix sums, O(n log N + N).

    Examples
    --------
    >>> len(Thresholds(np.linspace(0, 1, 5)))
    10
    """

    name = "thresholds"

    @validate_params({"grid": GRID})
    def __init__(self, grid):
        self.grid = grid

    @property
    def size(self):
        return 2 * self.grid.size

    def describe(self, index):
        index = self._check_index(index)
        k, sign = index % self.grid.size, (1 if index < self.grid.size else -1)
        return {"class": self.name, "cut": float(self.grid[k]), "sign": sign}

    def _prepare(self, X, batched):
        return line_points(X, batched)

    def _predict(self, indices, points):
        k = indices % self.grid.size
        sign = np.where(indices < self.grid.size, 1, -1).astype(np.int8)
        above = points[None, :] >= self.grid[k][:, None]
        return np.where(above, sign[:, None], -sign[:, None]).astype(np.int8)

    def _batch_error_counts(self, points, labels):
        return threshold_class_errors(self.grid, points, labels)

    def true_errors_uniform(self, theta, noise_rate=0.0):
        """True errors under x ~ U[0, 1], clean label +1 iff x >= θ, each label flipped w.p. η.

        err(h_{k,+}) = η + (1 − 2η)·|clip(g_k, 0, 1) − θ| and err(h_{k,−}) = 1 − err(h_{k,+}):
        h_{k,+} disagrees with the target exactly between g_k and θ, and a
        disagreement is an error unless the label was flipped.
        """
        theta = check_probability(theta, "theta", low_open=False, high_open=False)
        noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
        gap = np.abs(np.clip(self.grid, 0.0, 1.0) - theta)
        plus = noise_rate + (1 - 2 * noise_rate) * gap
        return np.concatenate([plus, 1 - plus])


class Intervals(HypothesisClass):
    """Intervals with end points on a public grid g_0 < … < g_N, plus the all-negative hypothesis.

    h_{a,b}(x) = +1 iff g_a <= x <= g_b, for 0 <= a <= b <= N, in the order of
    ``numpy.triu_indices(N + 1)``; the last index is h_∅ ≡ −1.
    |H| = (N + 1)(N + 2)/2 + 1. Error counts: a 2-D histogram of
    (#grid points <= x, #grid points < x) and 2-D prefix sums, O(n log N + N²).

    Examples
    --------
    >>> len(Intervals(np.linspace(0, 1, 5)))
    16
    """

    name = "intervals"

    @validate_params({"grid": GRID})
    def __init__(self, grid):
        self.grid = grid
        # The (N+1)(N+2)/2 end-point pairs are two index arrays: refuse a grid whose pairs exceed the budget.
        check_memory(("grid points", self.grid.size), ("grid points", self.grid.size))
        self._lower, self._upper = np.triu_indices(self.grid.size)

    @property
    def size(self):
        return self._lower.size + 1

    def describe(self, index):
        index = self._check_index(index)
        if index == self.size - 1:
            return {"class": self.name, "empty": True}
        return {"class": self.name, "low": float(self.grid[self._lower[index]]),
                "high": float(self.grid[self._upper[index]])}

    def _prepare(self, X, batched):
        return line_points(X, batched)

    def _predict(self, indices, points):
        pairs = np.minimum(indices, self._lower.size - 1)
        low, high = self.grid[self._lower[pairs]], self.grid[self._upper[pairs]]
        inside = (points[None, :] >= low[:, None]) & (points[None, :] <= high[:, None])
        inside &= (indices < self._lower.size)[:, None]
        return np.where(inside, 1, -1).astype(np.int8)

    def _batch_error_counts(self, points, labels):
        return interval_errors(self.grid, self._lower, self._upper, points, labels)

    def true_errors_uniform(self, low, high, noise_rate=0.0):
        """True errors under x ~ U[0, 1], clean label +1 iff low <= x <= high, noise η.

        err(h) = η + (1 − 2η)·(length of [a, b] Δ [low, high]) (grid clipped to [0, 1]).
        """
        low = check_probability(low, "low", low_open=False, high_open=False)
        high = check_probability(high, "high", low_open=False, high_open=False)
        if high < low:
            raise ValueError(f"high must be >= low, got low={low!r}, high={high!r}")
        noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
        grid = np.clip(self.grid, 0.0, 1.0)
        a, b = grid[self._lower], grid[self._upper]
        overlap = np.clip(np.minimum(b, high) - np.maximum(a, low), 0.0, None)
        difference = np.append((b - a) + (high - low) - 2 * overlap, high - low)
        return noise_rate + (1 - 2 * noise_rate) * difference


#: The size of a net of directions: at least 2 (d = 1 has exactly the two directions ±1).
N_DIRECTIONS = OrNone(FiniteInterval(Integral, 2, None, closed="left"))
SEED = FiniteInterval(Integral, 0, None, closed="left")


@validate_params({"d": POSITIVE_INT, "n_directions": N_DIRECTIONS, "seed": SEED})
def public_directions(d, n_directions=None, seed=0):
    """A fixed public set of unit normals in R^d (the discretised sphere of :func:`halfspaces`).

    d = 1: the two directions ±1. d = 2: ``n_directions`` equally spaced
    angles. d >= 3: ``n_directions`` Gaussian vectors, normalised, drawn from
    ``numpy.random.default_rng(seed)``: a fixed seed that never sees the data,
    so the net is public. The default size 2·4^{d−1} grows exponentially
    in d, like a γ-net of the sphere, which needs about (1 + 2/γ)^d points.

    Examples
    --------
    >>> public_directions(d=2, n_directions=4).round(3).tolist()
    [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [-0.0, -1.0]]
    """
    size_name = "n_directions"
    if n_directions is None:
        # The default 2·4^(d−1) grows exponentially, and 4**(10**18) alone would never finish: the exponent
        # is capped at 40, a net already far beyond the memory limit, which check_memory refuses below.
        n_directions = 2 * 4 ** min(d - 1, 40)
        size_name = "n_directions (the default 2·4^(d-1), at least)"
    check_memory((size_name, n_directions), ("d", d))
    if d == 1:
        if n_directions != 2:
            raise ValueError(f"n_directions must be 2 for d=1 (the sphere S^0 is {{-1, +1}}), "
                             f"got {n_directions!r}")
        return np.array([[1.0], [-1.0]])
    if d == 2:
        angles = 2 * np.pi * np.arange(n_directions) / n_directions
        return np.column_stack([np.cos(angles), np.sin(angles)])
    gaussian = np.random.default_rng(seed).standard_normal((n_directions, d))
    return gaussian / np.linalg.norm(gaussian, axis=1, keepdims=True)


class Halfspaces(HypothesisClass):
    """Halfspaces h_{w,b}(x) = +1 iff ⟨w, x⟩ >= b over public normals w and offsets b.

    ``directions`` (K × d, unit rows) and the increasing ``offsets`` (B
    values) are public. Index k·B + j is h_{w_k, b_j}; |H| = K·B.
    Error counts: the projections P = X Wᵀ, then per direction the
    threshold prefix sums over the offsets, O(n·K·d + n·K·log B + K·B).

    Examples
    --------
    >>> len(Halfspaces(directions=np.eye(2), offsets=np.array([-0.5, 0.0, 0.5])))
    6
    """

    name = "halfspaces"

    @validate_params({"directions": Array(ndim=2), "offsets": GRID})
    def __init__(self, directions, offsets):
        self.directions = directions
        norms = np.linalg.norm(self.directions, axis=1)
        if not np.allclose(norms, 1.0):
            raise ValueError(f"directions must be unit vectors, found a norm of {norms[~np.isclose(norms, 1)][0].item()!r}")
        self.offsets = offsets
        self.d = self.directions.shape[1]

    @property
    def size(self):
        return self.directions.shape[0] * self.offsets.size

    def describe(self, index):
        index = self._check_index(index)
        k, j = divmod(index, self.offsets.size)
        return {"class": self.name, "normal": self.directions[k].copy(), "offset": float(self.offsets[j])}

    def _prepare(self, X, batched):
        arr = check_finite_array(X, "X", ndim=3 if batched else 2)
        if arr.shape[-1] != self.d:
            raise ValueError(f"X must have {self.d} columns (one per coordinate of R^d), got shape {arr.shape}")
        return arr

    def _predict(self, indices, points):
        k, j = np.divmod(indices, self.offsets.size)
        projections = points @ self.directions.T                   # (n, K), as in the fast path
        above = projections[:, k].T >= self.offsets[j][:, None]
        return np.where(above, 1, -1).astype(np.int8)

    def _batch_error_counts(self, points, labels):
        return halfspace_errors(self.directions, self.offsets, points, labels)


def _check_transform_values(values, name):
    """The rule of :func:`walsh_hadamard`'s input: a finite array of >= 1 dimension whose last axis has length 2^d."""
    arr = check_finite_array(values, name)
    if arr.ndim == 0:
        raise ValueError(f"{name} must have at least 1 dimension (a length-2^d last axis), got {values!r}")
    size = arr.shape[-1]
    if size & (size - 1):
        raise ValueError(f"{name} must have a power-of-two last axis, got length {size}")
    return arr


# Check: an array whose last axis has a power-of-two length 2^d.
@validate_params({"values": Check(_check_transform_values, array_ndim=(1, 2, 3), convert_nested=Array.convert_nested,
                                  invalid=[(None, "None"), (3.0, "3.0"), (np.zeros(3), "length 3")])})
def walsh_hadamard(values):
    """The (unnormalised) Walsh–Hadamard transform along the last axis.

    Returns W with W[..., r] = Σ_u values[..., u]·(−1)^{popcount(r & u)}, by
    the fast butterfly: log₂ m passes of O(m) work for a last axis of
    length m = 2^d, so O(d·2^d) per row instead of O(4^d).

    Raises
    ------
    ValueError
        If the last axis is not a power of two, or the values are not finite.

    Examples
    --------
    >>> walsh_hadamard(np.arange(8.0)).tolist()
    [28.0, -4.0, -8.0, 0.0, -16.0, 0.0, 0.0, 0.0]
    """
    return walsh_hadamard_butterfly(values.copy())


def walsh_hadamard_butterfly(arr):
    """:func:`walsh_hadamard` on a validated float array whose last axis has length 2^d (the transform's one home)."""
    size, lead = arr.shape[-1], arr.shape[:-1]
    for bit in range(size.bit_length() - 1):
        pairs = arr.reshape(*lead, size >> (bit + 1), 2, 1 << bit)
        low, high = pairs[..., 0, :], pairs[..., 1, :]
        arr = np.stack((low + high, low - high), axis=-2).reshape(*lead, size)
    return arr


class Parities(HypothesisClass):
    """Parities on {0, 1}^d as ±1 labels: h_r(x) = (−1)^{⟨r, x⟩ mod 2}, |H| = 2^d.

    Index r encodes the set of coordinates in binary (bit j of r is r_j).
    Error counts via the Walsh–Hadamard transform: with the signed histogram
    c[u] = Σ_{i : x_i = u} y_i, Σ_i y_i h_r(x_i) = WHT(c)[r], so
    errors(r) = (n − WHT(c)[r])/2. Cost O(n·d + d·2^d) instead of the naive
    O(n·d·2^d).

    Examples
    --------
    >>> len(Parities(d=3))
    8
    """

    name = "parities"

    @validate_params({"d": FiniteInterval(Integral, 1, 30, closed="both")})
    def __init__(self, d):
        self.d = d

    @property
    def size(self):
        return 1 << self.d

    def describe(self, index):
        index = self._check_index(index)
        return {"class": self.name, "coordinates": [j for j in range(self.d) if index >> j & 1]}

    def _prepare(self, X, batched):
        arr = np.asarray(X)
        want = 3 if batched else 2
        if arr.ndim != want or arr.shape[-1] != self.d:
            raise ValueError(f"X must have shape {'(S, n, d)' if batched else '(n, d)'} with d={self.d} "
                             f"bits per row, got {arr.shape}")
        return check_bits(arr, "X")

    def _codes(self, points):
        return points.astype(np.int64) @ (np.int64(1) << np.arange(self.d, dtype=np.int64))

    def _predict(self, indices, points):
        # Bits of r times bits of x, summed mod 2: exact in float32 for d <= 2^24.
        r_bits = ((indices[:, None] >> np.arange(self.d)) & 1).astype(np.float32)
        parity = (r_bits @ points.T.astype(np.float32)).astype(np.int64) & 1
        return (1 - 2 * parity).astype(np.int8)

    def _batch_error_counts(self, points, labels):
        n_datasets, n = labels.shape
        codes = self._codes(points) + (np.arange(n_datasets) * self.size)[:, None]
        signed = np.bincount(codes.ravel(), weights=labels.ravel(), minlength=n_datasets * self.size)
        correlation = walsh_hadamard(signed.reshape(n_datasets, self.size))
        return np.rint((n - correlation) / 2).astype(np.int64)

    def true_errors_uniform(self, secret, noise_rate=0.0):
        """True errors under x ~ U{0,1}^d, clean label h_secret(x), noise η: η for the secret, 1/2 for every other parity.

        Two different parities disagree on exactly half of the cube, because
        h_r·h_s = h_{r⊕s} is a non-constant parity.
        """
        secret = self._check_index(secret)
        noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
        errors = np.full(self.size, 0.5)
        errors[secret] = noise_rate
        return errors


@validate_params({"grid": GRID})
def thresholds(grid):
    """The class of thresholds on a public grid (see :class:`Thresholds`).

    ``grid`` is an int N (the grid k/N, k = 0..N, of [0, 1]) or a strictly
    increasing array. |H| = 2·len(grid).

    Examples
    --------
    >>> thresholds(grid=np.linspace(0, 1, 5))
    Thresholds(|H|=10)
    """
    return Thresholds(grid)


@validate_params({"grid": GRID})
def intervals(grid):
    """The class of intervals with end points on a public grid (see :class:`Intervals`).

    ``grid`` as in :func:`thresholds`; |H| = (N + 1)(N + 2)/2 + 1 for N + 1 grid points.

    Examples
    --------
    >>> intervals(grid=np.linspace(0, 1, 5))
    Intervals(|H|=16)
    """
    return Intervals(grid)


@validate_params({"d": POSITIVE_INT, "n_directions": N_DIRECTIONS, "n_offsets": POSITIVE_INT,
                  "max_offset": FiniteInterval(Real, 0, None, closed="left"), "seed": SEED})
def halfspaces(d, n_directions=None, n_offsets=21, max_offset=1.0, seed=0):
    """Halfspaces over a discretised sphere × a threshold grid (see :class:`Halfspaces`).

    The normals are :func:`public_directions` (d, n_directions, seed), a
    fixed public set that does not depend on the data; the offsets are
    ``n_offsets`` equally spaced values in [−max_offset, max_offset].
    |H| = n_directions·n_offsets.

    Examples
    --------
    >>> halfspaces(d=2, n_directions=4, n_offsets=3)
    Halfspaces(|H|=12)
    """
    check_memory(("n_offsets", n_offsets))
    if max_offset == 0 and n_offsets > 1:  # the offsets would all be 0, a class with repeated members
        raise ValueError(f"max_offset must be > 0 when n_offsets = {n_offsets} > 1 (valid range: 0 < max_offset "
                         f"< inf; max_offset = 0 only with n_offsets = 1), got {max_offset!r}")
    offsets = np.linspace(-max_offset, max_offset, n_offsets) if n_offsets > 1 else np.zeros(1)
    return Halfspaces(public_directions(d, n_directions, seed), offsets)


@validate_params({"d": FiniteInterval(Integral, 1, 30, closed="both")})
def parities(d):
    """The 2^d parities on {0, 1}^d (see :class:`Parities`).

    Examples
    --------
    >>> parities(d=3)
    Parities(|H|=8)
    """
    return Parities(d)


def _check_class_rule(hypotheses, name="hypotheses"):
    """The rule of :data:`HYPOTHESIS_CLASS`: a non-empty finite class with ``error_counts``."""
    try:
        size = len(hypotheses)
    except TypeError:
        raise TypeError(f"{name} must be a finite hypothesis class (e.g. dpteach.hypotheses.thresholds(...)), "
                        f"got {type(hypotheses).__name__}") from None
    if size == 0:
        raise ValueError(f"{name} must contain at least one hypothesis, got an empty class (|H| = 0)")
    if not hasattr(hypotheses, "error_counts"):
        raise TypeError(f"{name} must provide error_counts(X, y) (a dpteach.generic hypothesis class), "
                        f"got {type(hypotheses).__name__}")
    return hypotheses


# Check: a duck-typed finite class (len and error_counts), students' classes included.
#: The constraint of a parameter that takes a finite hypothesis class (chapters 2, 7 and 8 declare it).
HYPOTHESIS_CLASS = Check(_check_class_rule, invalid=[(None, "None"), (3, "3"), ([], "[]"), ("abc", "'abc'")])


@validate_params({"hypotheses": HYPOTHESIS_CLASS})
def check_class(hypotheses):
    """Return ``hypotheses`` after checking it is a non-empty finite class with ``error_counts``.

    The check is the declared constraint :data:`HYPOTHESIS_CLASS`, which the routines that take a
    class declare for their own ``hypotheses`` parameter.

    Examples
    --------
    >>> check_class(hypotheses=thresholds(4))
    Thresholds(|H|=10)
    """
    return hypotheses
