"""The estimators that chapter 4 ("Lower bounds by fingerprinting") attacks, and the array checks they share.

The exact mean, the clipped Gaussian-mechanism mean (Algorithm 4.4) with its
deliberately broken σ/4 variant, a mean with noise at a target accuracy,
and (noisy) least squares. Every estimator maps records (..., n, p) to
releases (..., q), vectorised over a leading axis of trials, and has the
signature ``estimator(records, ..., rng=None)``. ``dpteach.fingerprinting``
re-exports them; import them from there.
"""

from __future__ import annotations

import math

import numpy as np

from ._constraints import POSITIVE, POSITIVE_INT, Delta, Epsilon, FiniteInterval, OrNone, Real, validate_params
from ._array_constraints import Array
from ._scales import NORMAL_SCALE
from ._validation import check_second_moments
from .mechanisms import gaussian_sigma
from .privacy import privacy_claim
from . import feature_scaling

__all__ = ["exact_mean", "clipped_gaussian_mean", "accuracy_noise_sd", "noisy_mean", "ols_estimate", "noisy_ols"]


def _check_response_shape(y, x, name="y"):
    """The relation of two declared arrays: one response per row of ``x`` (shape ``x.shape[:-1]``)."""
    if y.shape != x.shape[:-1]:
        raise ValueError(f"{name} must have shape {x.shape[:-1]} (one response per row of x), got {y.shape}")
    return y


# The contracts the estimators share: records (n, d) or (T, n, d), responses (n,) or (T, n).
RECORDS = Array(ndim=(2, 3))
RESPONSES = Array(ndim=(1, 2))
NOISE_SD = FiniteInterval(Real, 0, None, closed="left")


# --- 5. the estimators to attack --------------------------------------------------------------

@validate_params({"records": RECORDS, "rng": "random_state"})
def exact_mean(records, rng=None):
    """The sample mean of the records: (..., n, d) → (..., d). Not private (chapter 4, T1).

    ``rng`` is accepted (and validated) so that every estimator has the same
    signature; it is not used. Cost O(n·d) per trial.

    Examples
    --------
    >>> records = np.array([[0.0, 1.0], [2.0, 3.0]])
    >>> exact_mean(records=records, rng=0)
    array([1., 2.])
    """
    return records.mean(axis=-2)


def clip_rows(records, radius, center):
    """Each record scaled towards ``center`` onto the ℓ2 ball of radius R (the clipping of :func:`clipped_gaussian_mean`)."""
    # feature_scaling.clip_rows: min(1, R/‖x − c‖) on the offsets, exact (no overflow, no warning) for a huge record.
    return center + feature_scaling.clip_rows(records - center, radius, floor=1e-300)


def _center(center, records):
    """The public centre (default 0), one coordinate per column of ``records``: a relation, checked here."""
    if center is None:
        return np.zeros(records.shape[-1])
    if center.shape != (records.shape[-1],):
        raise ValueError(f"center must have shape ({records.shape[-1]},), got {center.shape}")
    return center


# The contract of clipped_gaussian_mean and of its broken variant.
CLIPPED_MEAN = {"records": RECORDS, "epsilon": Epsilon(), "delta": Delta(allow_zero=False), "radius": NORMAL_SCALE,
                "center": OrNone(Array(ndim=1)), "rng": "random_state"}


@privacy_claim(theorem="thm-gaussian-analytic", epsilon="epsilon", delta="delta")
@validate_params(CLIPPED_MEAN)
def clipped_gaussian_mean(records, epsilon, delta, radius, center=None, rng=None):
    """The clipped Gaussian-mechanism mean (chapter 4, Algorithm 4.4): (ε, δ)-DP.

    Each record is projected onto the ℓ2 ball of radius R around a public
    centre c; the mean of the clipped records has replace-one ℓ2 sensitivity
    2R/n (two clipped records differ by at most 2R); the release adds
    N(0, σ²I) with σ = ``dpteach.mechanisms.gaussian_sigma(2R/n, ε, δ)``
    (the analytic Gaussian mechanism, valid for every ε).

    Parameters
    ----------
    records : array_like, shape (n, d) or (T, n, d)
        The private data (T independent datasets, optional).
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    radius : float, 1e-150 <= R <= 1e150
        The clipping radius R (choose it so that honest records are rarely clipped).
    center : array_like, shape (d,), optional
        Public centre of the ball (default 0); must not depend on the data.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray, shape (d,) or (T, d)

    Raises
    ------
    ValueError, TypeError
        For bad arrays, ε, δ, R or rng.

    Notes
    -----
    Privacy: (ε, δ)-DP for replace-one neighbours (chapter 1, Gaussian
    mechanism; clipping is a per-record map, so it costs nothing). Each record
    is touched once, by the clipping. Cost O(n·d) per trial.

    Examples
    --------
    >>> records = np.array([[0.0, 1.0], [2.0, 3.0], [1.0, -1.0]])
    >>> clipped_gaussian_mean(records=records, epsilon=1.0, delta=1e-5, radius=2.0, rng=0).round(3)
    array([ 1.329, -0.102])
    """
    center = _center(center, records)
    n = records.shape[-2]
    sigma = gaussian_sigma(2 * radius / n, epsilon, delta)
    clipped_mean = clip_rows(records, radius, center).mean(axis=-2)
    return clipped_mean + rng.normal(0.0, sigma, size=clipped_mean.shape)


@validate_params(CLIPPED_MEAN)
def broken_clipped_gaussian_mean_quarter_noise(records, epsilon, delta, radius, center=None, rng=None):
    """BROKEN on purpose: :func:`clipped_gaussian_mean` with σ/4 (for the envelope test and the audit demo).

    Adds a quarter of the noise the Gaussian mechanism needs, so it is not
    (ε, δ)-DP; the chapter's envelope check and ``dpteach.audit`` catch it. It shares the correct
    routine's checks and clipping; only σ differs.
    """
    center = _center(center, records)
    sigma = gaussian_sigma(2 * radius / records.shape[-2], epsilon, delta) / 4
    clipped_mean = clip_rows(records, radius, center).mean(axis=-2)
    return clipped_mean + rng.normal(0.0, sigma, size=clipped_mean.shape)


@validate_params({"alpha": POSITIVE, "sigma": POSITIVE, "d": POSITIVE_INT, "n": POSITIVE_INT})
def accuracy_noise_sd(alpha, sigma, d, n):
    """Per-coordinate noise s_W with E‖x̄ + W − μ‖² = α² for N(μ, σ²I) data: √(α²/d − σ²/n) (chapter 4, T3).

    The sample mean's own error is σ√(d/n); a target below it cannot be reached.

    Parameters
    ----------
    alpha : float, > 0
        Target ℓ2 accuracy (root mean squared error).
    sigma : float, > 0
    d, n : int, >= 1

    Raises
    ------
    ValueError, TypeError
        For bad parameters, or α < σ√(d/n) (the requested accuracy is out of reach).

    Examples
    --------
    >>> round(accuracy_noise_sd(alpha=1.0, sigma=1.0, d=3, n=6), 4)
    0.4082
    """
    floor = sigma * math.sqrt(d / n)
    if alpha < floor * (1 - 1e-12):
        raise ValueError(f"alpha must be at least the sample mean's error sigma*sqrt(d/n) = {floor:.6g} "
                         f"(d={d}, n={n}, sigma={sigma:g}), got {alpha!r}")
    try:
        return math.sqrt(max(0.0, alpha ** 2 / d - sigma ** 2 / n))
    except OverflowError:  # α² beyond the floats (α ≈ 1e300): the same root, factored as α·√(1/d − (σ/α)²/n)
        return alpha * math.sqrt(max(0.0, 1.0 / d - (sigma / alpha) ** 2 / n))


@validate_params({"records": RECORDS, "noise_sd": NOISE_SD, "rng": "random_state"})
def noisy_mean(records, noise_sd, rng=None):
    """The sample mean plus N(0, s_W² I): the estimator of the phase diagram (chapter 4, T3).

    With ``noise_sd = accuracy_noise_sd(α, σ, d, n)`` its ℓ2 error is α. It is
    *not* calibrated to a privacy level; the phase diagram asks only how
    accurate it is. Cost O(n·d) per trial.

    Raises
    ------
    ValueError, TypeError
        For bad arrays, a negative or non-finite noise_sd, or a bad rng.

    Examples
    --------
    >>> records = np.array([[0.0, 1.0], [2.0, 3.0]])
    >>> noisy_mean(records=records, noise_sd=0.1, rng=0).round(3)
    array([1.013, 1.987])
    """
    mean = records.mean(axis=-2)
    return mean + rng.normal(0.0, 1.0, size=mean.shape) * noise_sd


@validate_params({"x": RECORDS, "y": RESPONSES})
def ols_estimate(x, y):
    """Ordinary least squares (XᵀX)⁻¹Xᵀy, batched over trials (chapter 4, T7; the non-private target).

    Parameters
    ----------
    x : array_like, shape (n, d) or (T, n, d), with n >= d and XᵀX invertible
    y : array_like, shape (n,) or (T, n)

    Returns
    -------
    ndarray, shape (d,) or (T, d). Cost O(n·d² + d³) per trial.

    Raises
    ------
    ValueError
        For bad arrays, n < d, a singular XᵀX, or XᵀX / Xᵀy beyond double precision.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> y = np.array([1.0, 2.0, 3.0])
    >>> ols_estimate(x=x, y=y).round(3)
    array([1., 2.])
    """
    y = _check_response_shape(y, x)
    if x.shape[-2] < x.shape[-1]:
        raise ValueError(f"x must have at least as many rows as columns for OLS, got shape {x.shape}")
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below, by name
        gram = np.einsum("...nd,...ne->...de", x, x)
        moment = np.einsum("...nd,...n->...d", x, y)
    check_second_moments(gram, moment, x, y, "x and y")
    try:
        return np.linalg.solve(gram, moment[..., None])[..., 0]
    except np.linalg.LinAlgError:
        raise ValueError("x'x is singular: the covariates are collinear") from None


@validate_params({"x": RECORDS, "y": RESPONSES, "noise_sd": NOISE_SD, "rng": "random_state"})
def noisy_ols(x, y, noise_sd, rng=None):
    """OLS plus N(0, s_W² I): the stand-in for a private regression estimator (chapter 4, T7).

    Chapter 5 calibrates s_W to (ε, δ) (Cai, Wang & Zhang's noisy OLS
    β̂(X, f_T(y)) + W, the paper's Theorem 19); here the caller chooses s_W,
    so this function by itself promises no privacy. Cost O(n·d² + d³) per trial.

    Raises
    ------
    ValueError, TypeError
        As :func:`ols_estimate`, or for a negative noise_sd or bad rng.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> y = np.array([1.0, 2.0, 3.0])
    >>> noisy_ols(x=x, y=y, noise_sd=0.1, rng=0).round(3)
    array([1.013, 1.987])
    """
    beta = ols_estimate(x, y)
    return beta + rng.normal(0.0, 1.0, size=beta.shape) * noise_sd
