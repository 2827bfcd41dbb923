"""The fast error counts behind chapter 2's classes ("The price: running time").

Counting the training errors of *every* hypothesis of a class at once: for classes on a public grid
(thresholds, intervals, and halfspaces direction by direction) a histogram of where the points fall
among the grid points and prefix sums, O(n log N + N) instead of O(n·N) (parities use the
Walsh–Hadamard transform, :func:`dpteach.hypotheses.walsh_hadamard`). The classes of
:mod:`dpteach.hypotheses` call these kernels on inputs they have checked (tests/test_generic.py
compares every fast path with the naive count, :func:`naive_error_counts`); nothing here is meant to be
called by a reader.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_finite_array

__all__ = []  # kernels of dpteach.hypotheses, not a reader's API

# Entries of a chunk of the |H| × n prediction matrix held in memory at once (int8: 16 MB).
CHUNK_ENTRIES = 1 << 24


def naive_error_counts(predict, size, points, labels):
    """The naive count the fast paths are checked against: predict with every h ∈ H, chunk by chunk, O(|H|·n).

    ``predict(indices, points)`` gives the ±1 predictions of the hypotheses ``indices`` of a class of
    ``size`` hypotheses, ``points`` are what the class's ``_prepare`` returned and ``labels`` the checked
    ±1 labels; at most ``CHUNK_ENTRIES`` predictions are held at once.
    """
    counts = np.empty(size, dtype=np.int64)
    step = max(1, CHUNK_ENTRIES // max(len(labels), 1))
    for start in range(0, size, step):
        indices = np.arange(start, min(start + step, size))
        counts[indices] = (predict(indices, points) != labels).sum(axis=1)
    return counts


def line_points(X, batched):
    """X as floats of shape (n,) or, batched, (S, n); a trailing axis of length 1 is dropped."""
    arr = check_finite_array(X, "X", ndim=(2, 3) if batched else (1, 2))
    if arr.ndim == (3 if batched else 2):
        if arr.shape[-1] != 1:
            raise ValueError(f"X must have shape {'(S, n)' if batched else '(n,)'} or "
                             f"{'(S, n, 1)' if batched else '(n, 1)'} for a class on the line, "
                             f"got {arr.shape}")
        arr = arr[..., 0]
    return arr


def label_histogram(bins, labels, n_bins):
    """Counts of (dataset, label, bin): int64 array (S, 2, n_bins); label axis 0 = −1, 1 = +1."""
    n_datasets = bins.shape[0]
    dataset = np.arange(n_datasets).reshape((-1,) + (1,) * (bins.ndim - 1))
    flat = ((dataset * 2 + (labels > 0)) * n_bins + bins).ravel()
    return np.bincount(flat, minlength=n_datasets * 2 * n_bins).reshape(n_datasets, 2, n_bins)


def threshold_errors(bins, labels, n_cuts):
    """Errors of "predict +1 iff cut index j < bin" for j = 0..n_cuts−1 (shape (S, n_cuts)).

    ``bins[s, i]`` is the number of cuts at or below x_i, so x_i is labelled
    +1 by cut j exactly when j < bins[s, i]. A positive example is an error for
    the cuts j >= bin, a negative one for j < bin: two prefix sums.
    """
    hist = label_histogram(bins, labels, n_cuts + 1)
    below = np.cumsum(hist, axis=-1)[..., :n_cuts]          # examples with bin <= j
    positives_missed = below[:, 1]
    negatives_hit = hist[:, 0].sum(axis=-1, keepdims=True) - below[:, 0]
    return positives_missed + negatives_hit


def threshold_class_errors(grid, points, labels):
    """Error counts (S, 2(N + 1)) of the thresholds h_{k,+}, then h_{k,−} on a grid: a searchsorted, prefix sums."""
    bins = np.searchsorted(grid, points, side="right")
    plus = threshold_errors(bins, labels, grid.size)
    return np.concatenate([plus, labels.shape[1] - plus], axis=1)


def interval_errors(grid, lower, upper, points, labels):
    """Error counts (S, pairs + 1) of the intervals [g_a, g_b] (a = ``lower``, b = ``upper``), then of h_∅ ≡ −1.

    A 2-D histogram of (#grid points <= x, #grid points < x) and 2-D prefix sums, O(n log N + N²).
    """
    m = grid.size
    at_or_below = np.searchsorted(grid, points, side="right")   # r: x >= g_a iff a < r
    below = np.searchsorted(grid, points, side="left")          # l: x <= g_b iff b >= l
    hist = label_histogram(at_or_below * (m + 1) + below, labels, (m + 1) ** 2)
    hist = hist.reshape(labels.shape[0], 2, m + 1, m + 1)
    # inside(a, b) = #{i : r_i > a and l_i <= b}: suffix sum over r, prefix sum over l.
    inside = np.cumsum(np.cumsum(hist[:, :, ::-1], axis=2)[:, :, ::-1], axis=3)
    inside = inside[:, :, 1:, :m][:, :, lower, upper]   # (S, 2, pairs)
    positives = labels.shape[1] - hist[:, 0].sum(axis=(1, 2))
    errors = positives[:, None] - inside[:, 1] + inside[:, 0]
    return np.concatenate([errors, positives[:, None]], axis=1)


def halfspace_errors(directions, offsets, points, labels):
    """Error counts (S, K·B) of h_{w_k, b_j} (index k·B + j): per direction, prefix sums over the offsets."""
    n_datasets, n = labels.shape
    n_directions = directions.shape[0]
    counts = np.empty((n_datasets, n_directions * offsets.size), dtype=np.int64)
    step = max(1, (1 << 22) // max(n * n_directions, 1))      # bound the (S, n, K) arrays
    for start in range(0, n_datasets, step):
        part = slice(start, min(start + step, n_datasets))
        projections = points[part] @ directions.T              # (s, n, K)
        bins = np.searchsorted(offsets, projections, side="right")
        # Treat each (dataset, direction) pair as one dataset of a threshold problem.
        bins = bins.transpose(0, 2, 1).reshape(-1, n)
        pair_labels = np.repeat(labels[part], n_directions, axis=0)
        errors = threshold_errors(bins, pair_labels, offsets.size)
        counts[part] = errors.reshape(-1, n_directions * offsets.size)
    return counts
