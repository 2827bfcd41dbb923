"""Chapter 9, Section 9.1: the logistic loss, its per-example gradients, their clipping and Lemma 9.1.

Logistic regression minimises the convex surrogate ℓ(θ; x, y) = log(1 + exp(−y(⟨w, x⟩ + b))) of the
0-1 loss, θ = (w, b) (Eq. 9.1). Its per-example gradient (Eq. 9.2) is unbounded for Gaussian x, so
DP-SGD (:mod:`dpteach.dp_logistic`, Algorithm 9.2) clips each one to norm C, which bounds the
replace-one sensitivity of their sum by 2C (Lemma 9.1). None of these routines is private on its own.

:func:`per_example_gradients` and :func:`clip_per_example` are the formulas on checked inputs: the
DP-SGD learners of :mod:`dpteach.dp_logistic` and :mod:`dpteach.dp_sgd_poisson` call them at every
step, after their ``fit`` has checked the data once.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ._constraints import FiniteInterval, Real, validate_params
from ._array_constraints import Array, Labels
from ._scales import NORMAL_SCALE
from .feature_scaling import clip_rows

__all__ = ["logistic_loss", "logistic_gradients", "clip_gradients", "gradient_sum_sensitivity"]

#: The model θ = (coef, intercept) of the loss and its gradients; coef's length is checked against X in the body.
MODEL = {"coef": Array(ndim=1), "intercept": FiniteInterval(Real, None, None)}


def check_model_shapes(X, y, coef):
    """Raise ValueError unless X (n, d), y (n,) and coef (d,) fit together (each array is checked by its constraint).

    The relations the declared constraints cannot state, as plain shape comparisons: DP-SGD's steps run
    them on every batch, where a validator call per step would be the repeated validation issue 23 removed.
    """
    if len(X) != len(y):
        raise ValueError(f"X and y must have the same number of samples, got {len(X)} and {len(y)}")
    if coef.shape != (X.shape[1],):
        raise ValueError(f"coef must have shape ({X.shape[1]},), got {coef.shape}")


def _margins(X, y, coef, intercept):
    return y * (X @ coef + intercept)


@validate_params({"X": Array(ndim=2), "y": Labels(), **MODEL})
def logistic_loss(X, y, coef, intercept=0.0):
    """Average logistic loss (1/n) Σ log(1 + exp(−y_i(⟨w, x_i⟩ + b))), Eq. (9.1). Not private.

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    y : array_like, shape (n,), labels ±1
    coef : array_like, shape (d,), finite
        w.
    intercept : float, finite
        b.

    Returns
    -------
    float. Computed as logaddexp(0, −margin), so large margins do not overflow. Cost O(n·d).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf, empty or mismatched arrays, labels ∉ {−1, +1}.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, -0.5]])
    >>> round(logistic_loss(X, np.array([1.0, -1.0, 1.0]), coef=np.array([0.3, -0.2]), intercept=0.1), 4)
    0.5636
    """
    check_model_shapes(X, y, coef)
    return float(np.mean(np.logaddexp(0.0, -_margins(X, y, coef, intercept))))


def per_example_gradients(X, y, coef, intercept):
    """The rows ∇_θ ℓ(θ; x_i, y_i) of Eq. (9.2) on checked inputs (float X (n, d), labels y, coef (d,), a float).

    The formula of :func:`logistic_gradients` without its checks: the DP-SGD learners call it at every
    step on the batch of data their ``fit`` has checked. ∇_θ ℓ = −y·σ(−y⟨θ, x̃⟩)·x̃ with x̃ = (x, 1);
    ``scipy.special.expit`` is the overflow-free logistic σ. Returns an (n, d + 1) array. Cost O(n·d).
    """
    weight = -y * special.expit(-_margins(X, y, coef, intercept))
    return np.hstack([weight[:, None] * X, weight[:, None]])


@validate_params({"X": Array(ndim=2), "y": Labels(), **MODEL})
def logistic_gradients(X, y, coef, intercept=0.0):
    """Per-example gradients ∇_θ ℓ(θ; x_i, y_i) = −y_i σ(−y_i(⟨w, x_i⟩ + b))·(x_i, 1), Eq. (9.2). Not private.

    The last column is the intercept's component. Each row has norm ≤ ‖(x_i, 1)‖, which is unbounded
    for Gaussian x: this is why DP-SGD clips (:func:`clip_gradients`).

    Parameters
    ----------
    X, y, coef, intercept : as in :func:`logistic_loss`

    Returns
    -------
    numpy.ndarray, shape (n, d + 1). Cost O(n·d).

    Raises
    ------
    TypeError, ValueError
        As :func:`logistic_loss`.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, -0.5]])
    >>> logistic_gradients(X, np.array([1.0, -1.0, 1.0]), coef=np.array([0.3, -0.2]), intercept=0.1).shape
    (3, 3)
    """
    check_model_shapes(X, y, coef)
    return per_example_gradients(X, y, coef, intercept)


def clip_per_example(G, clip_norm):
    """g ↦ g·min(1, C/‖g‖₂) for every row of a float array ``G`` (n, D), on checked inputs (step 2 of Algorithm 9.2).

    The formula of :func:`clip_gradients` without its checks, for the DP-SGD learners' steps. A zero row
    keeps factor 1; ``clip_rows`` (the package's one home of norm clipping) also clips a gradient whose
    squared norm overflows (a record near 1e154 or beyond) to norm C exactly, instead of zeroing it.
    """
    with np.errstate(over="ignore"):
        norms = np.sqrt(np.einsum("ij,ij->i", G, G))
    return clip_rows(G, clip_norm, norms=norms[:, None])


@validate_params({"gradients": Array(ndim=2), "clip_norm": NORMAL_SCALE})
def clip_gradients(gradients, clip_norm):
    """Per-example clipping g ↦ g·min(1, C/‖g‖₂) (step 2 of Algorithm 9.2).

    Every clipped row has norm ≤ C and keeps its direction; rows already shorter are unchanged. Not
    private on its own; it is what bounds the sensitivity of the sum (Lemma 9.1).

    Parameters
    ----------
    gradients : array_like, shape (n, D), finite
    clip_norm : float, 1e-150 <= C <= 1e150
        C.

    Returns
    -------
    numpy.ndarray, shape (n, D). Cost O(n·D).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf, a non-2-D or empty array, C ≤ 0.

    Examples
    --------
    >>> clip_gradients(np.array([[3.0, 4.0], [0.3, 0.4]]), clip_norm=1.0).round(2).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    return clip_per_example(gradients, clip_norm)


@validate_params({"clip_norm": NORMAL_SCALE})
def gradient_sum_sensitivity(clip_norm):
    """Replace-one L2 sensitivity 2C of a sum of clipped gradients (Lemma 9.1).

    Replacing one example removes one clipped row (norm ≤ C) and adds another (norm ≤ C); the two
    may point in opposite directions, so the sum moves by at most 2C, and by exactly 2C for
    g' = −g at the clipping bound. (Under add/remove neighbours it would be C.)

    Parameters
    ----------
    clip_norm : float, 1e-150 <= C <= 1e150

    Returns
    -------
    float. Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For C ≤ 0 or non-finite.

    Examples
    --------
    >>> gradient_sum_sensitivity(clip_norm=1.0)
    2.0
    """
    return 2.0 * clip_norm
