"""The steps that chapter 5's Algorithm 5.4 shares with its non-private twin split IHT.

The private LASSO (:class:`dpteach.regression.DPLasso`) and split IHT
(:func:`dpteach.regression_baselines.split_iht`) run the same loop: split the n records at random into
N₀ disjoint blocks (line 2, :func:`block_indices`), then one gradient step of the squared loss on each
block with the response truncated at T (the paper's f_T, :func:`truncate`) and the residuals clipped at
2T (line 5, :func:`gradient_step`); they differ only in the thresholding (Peeling or exact top-ŝ).
These are the formulas on checked inputs; the public routines that call them declare and check their
parameters (:func:`dpteach.regression.lasso_gradient_step` is the checked step).
"""

from __future__ import annotations

import numpy as np

from ._array_constraints import Flag
from ._validation import check_finite_array, check_same_length

# Public helpers of the chapter's estimators, not a user-facing API: the checked step is
# dpteach.regression.lasso_gradient_step, and the fuzz walks the modules that export users' routines.
__all__: list[str] = []


def check_design(X, y):
    """Validated (X, y) of a regression: a finite 2-D design and a finite response of the same length (shared by the private and the non-private estimators)."""
    X = check_finite_array(X, "X", ndim=2)
    y = check_finite_array(y, "y", ndim=1)
    check_same_length(X, y, "X", "y")
    return X, y


#: A switch given as True or False (the residual clipping of Algorithm 5.4).
FLAG = Flag()


def truncate(y, truncation):
    """f_T(y): coordinatewise projection onto [−T, T] (the paper's f_T)."""
    return np.clip(y, -truncation, truncation)


def gradient_step(X, y, beta, step_size, truncation, clip_residual):
    """v = β − (η/m) Xᵀ r with r = x'β − f_T(y), clipped to [−2T, 2T] if asked. O(m·d)."""
    residual = X @ beta - truncate(y, truncation)
    if clip_residual:
        residual = np.clip(residual, -2 * truncation, 2 * truncation)
    return beta - (step_size / X.shape[0]) * (X.T @ residual)


def block_indices(n_samples, n_blocks, rng):
    """A uniformly random split into N₀ disjoint blocks of m = ⌊n/N₀⌋ indices (line 2).

    Drawn independently of the data, so a replaced record lands in the same
    block in both runs (what parallel composition needs). Left-over rows are dropped.
    """
    block_size = n_samples // n_blocks
    permutation = rng.permutation(n_samples)
    return permutation[:block_size * n_blocks].reshape(n_blocks, block_size)
