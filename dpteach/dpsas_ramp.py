"""The ramp loss of DPSAS (chapter 8, Eq. (12) and Lemma 8.2; the paper's Claim 4.3), one idea each.

The first part of the chapter's line-by-line account of Algorithm 8.3: the ramp r_{a,b} of Eq. (12) and its
derivative, the per-round ramp loss L̂_t and its gradient, which lies in w^⊥. The private steps that use them
(the threshold, the initial direction, the schedule, the noise and one round) follow in
:mod:`dpteach.dpsas_steps`.

Conventions. A halfspace here is h(x) = sign(⟨w, x⟩ + τ), as in the paper (``dpteach.data`` writes
sign(⟨w, x⟩ − t), so τ = −t). Nothing here is private: these routines read the data, and the privacy of a
round comes from the noise that :func:`dpteach.dpsas_steps.dpsas_round` adds to the gradient.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from ._constraints import FiniteInterval, POSITIVE, validate_params, SameLength
from ._array_constraints import Array, Labels
from ._validation import check_finite_array

__all__ = ["ramp", "ramp_derivative", "ramp_loss", "ramp_loss_gradient"]

#: Any finite real (the band centre b, a threshold τ̂).
FINITE = FiniteInterval(Real, None, None)


def _as_output(value):
    """A 0-d result as a Python float, any other as a float ndarray (the ramp's elementwise outputs)."""
    value = np.asarray(value, dtype=float)
    return float(value) if value.ndim == 0 else value


def check_unit_vector(w, name, d=None):
    """A finite non-zero vector (of length d if given), returned normalised to unit length."""
    w = check_finite_array(w, name, ndim=1) if d is None else check_finite_array(w, name, shape=(d,))
    norm = float(np.linalg.norm(w))
    if norm == 0.0:
        raise ValueError(f"{name} must be a non-zero vector (it is used as a direction), got all zeros")
    return w / norm


@validate_params({"z": Array(), "a": POSITIVE, "b": FINITE})
def ramp(z, a, b):
    """The ramp r_{a,b}(z) of Eq. (12): 0 below b − a, z − b + a on the band, 2a above b + a.

    Parameters
    ----------
    z : float or array_like
        Points (finite).
    a : float
        Half-width of the band, 0 < a < inf.
    b : float
        Centre of the band, any finite real.

    Returns
    -------
    float or ndarray
        r_{a,b}(z), elementwise; continuous, non-decreasing, 1-Lipschitz, with values in [0, 2a].
        Cost O(size of z).

    Raises
    ------
    ValueError, TypeError
        For a ≤ 0, non-finite a, b or z, or non-numeric input.

    Examples
    --------
    >>> ramp(z=np.array([-1.0, 0.0, 2.0]), a=0.1, b=1.0)
    array([0. , 0. , 0.2])
    """
    return _as_output(np.clip(z - b + a, 0.0, 2.0 * a))


@validate_params({"z": Array(), "a": POSITIVE, "b": FINITE})
def ramp_derivative(z, a, b):
    """r'_{a,b}(z) = 1{|z − b| ≤ a}: the derivative of Eq. (12), with the closed band of Claim 4.3.

    The ramp is differentiable except at its two kinks z = b ± a; there we take
    the value 1, as Claim 4.3's indicator does (a measure-zero choice).
    Parameters, errors and cost as :func:`ramp`; returns 0.0/1.0 floats.

    Examples
    --------
    >>> ramp_derivative(z=np.array([-1.0, 0.0, 1.05]), a=0.1, b=1.0)
    array([0., 0., 1.])
    """
    return _as_output((np.abs(z - b) <= a).astype(float))


@validate_params({"w": Array(ndim=1), "X": Array(ndim=2), "y": Labels(), "a": POSITIVE, "b": FINITE},
                 relations=[SameLength("X", "y")])
def ramp_loss(w, X, y, a, b):
    """The per-round surrogate L̂_t(w) = mean over the block of −r_{a,b}(⟨w, x⟩/‖w‖)·y (line 11).

    Parameters
    ----------
    w : array_like, shape (d,)
        Any non-zero vector (the loss depends on its direction only).
    X : array_like, shape (m, d); y : array_like of ±1, shape (m,)
        One block of (already clipped) examples.
    a, b : float
        Band half-width a > 0 and centre b (a_t = sin φ_t, b_t = −τ̂ cos φ_t).

    Returns
    -------
    float
        L̂_t(w). Not private (it reads the data). Cost O(m·d).

    Raises
    ------
    ValueError, TypeError
        For a zero or wrongly shaped w, bad X/y (NaN, labels not ±1, lengths), a ≤ 0.

    Examples
    --------
    >>> X = np.array([[0.5, 1.0], [1.0, -0.5], [-1.0, 0.2]])
    >>> round(ramp_loss(w=np.array([0.6, 0.8]), X=X, y=np.array([1.0, -1.0, 1.0]), a=0.5, b=0.0), 4)
    -0.12
    """
    w = check_unit_vector(w, "w", X.shape[1])
    return float(-np.mean(np.clip(X @ w - b + a, 0.0, 2.0 * a) * y))


def unit_ramp_gradient(w, X, y, a, b):
    """Claim 4.3 at a unit w: −(1/m)(I − wwᵀ) Σ y·1{|⟨w,x⟩ − b| ≤ a}·x (on inputs already checked).

    The gradient of :func:`ramp_loss` at a unit vector, as one DPSAS round uses it
    (:func:`dpteach.dpsas_steps.dpsas_round_prechecked`); :func:`ramp_loss_gradient` is the checked routine for
    any non-zero w. Cost O(m·d).
    """
    active = np.abs(X @ w - b) <= a
    pulled = (y * active) @ X / X.shape[0]
    return -(pulled - (pulled @ w) * w)


@validate_params({"w": Array(ndim=1), "X": Array(ndim=2), "y": Labels(), "a": POSITIVE, "b": FINITE},
                 relations=[SameLength("X", "y")])
def ramp_loss_gradient(w, X, y, a, b):
    """The gradient of :func:`ramp_loss` (Lemma 8.2 = the paper's Claim 4.3; Lemma 4.4's −E[g(w, φ, x, y)]).

    By the chain rule, ∇_w ⟨w,x⟩/‖w‖ = (I − w̄w̄ᵀ)x/‖w‖ with w̄ = w/‖w‖, so

        ∇L̂_t(w) = −(1/(m‖w‖)) (I − w̄w̄ᵀ) Σ_{(x,y) in block} y·1{|⟨w̄,x⟩ − b| ≤ a}·x,

    a vector orthogonal to w. At a unit w this is exactly Claim 4.3. The kinks
    use the closed band (see :func:`ramp_derivative`).

    Parameters and errors as :func:`ramp_loss`.

    Returns
    -------
    ndarray, shape (d,)
        The gradient. Each example contributes a vector of norm at most
        ‖x‖/‖w‖, so for unit w and rows clipped to L, replacing one example
        moves the average by at most 2L/m (the sensitivity the noise is
        calibrated to). Cost O(m·d).

    Examples
    --------
    >>> X = np.array([[0.5, 1.0], [1.0, -0.5], [-1.0, 0.2]])
    >>> ramp_loss_gradient(w=np.array([0.6, 0.8]), X=X, y=np.array([1.0, -1.0, 1.0]), a=0.5, b=0.0).shape
    (2,)
    """
    w = check_finite_array(w, "w", shape=(X.shape[1],))
    norm = float(np.linalg.norm(w))
    if norm == 0.0:
        raise ValueError("w must be a non-zero vector (the loss depends on w/‖w‖), got all zeros")
    return unit_ramp_gradient(w / norm, X, y, a, b) / norm
