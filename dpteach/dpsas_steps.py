"""The building blocks of DPSAS (chapter 8, Algorithm 8.3; the paper's Algorithm 3), one idea each.

Read top to bottom, this module follows the chapter's line-by-line account of
the algorithm:

1. the ramp r_{a,b} of Eq. (12) and its derivative, the per-round ramp loss
   L̂_t and its gradient (Lemma 8.2, the paper's Claim 4.3), which lies in w^⊥;
2. the private threshold τ̂ (lines 4–5: Laplace estimate of E[y], then Φ⁻¹
   of the clipped value) and the private initial direction ŵ₀ (lines 6–7:
   Gaussian estimate of E[xy], normalised);
3. the round schedule φ_t, a_t, b_t (line 10), the step size λ (line 8, with
   the paper's printed rule and our reconstruction), the per-round noise
   N(0, σ²(I − wwᵀ)) and one noisy projected gradient step (line 12).

Conventions. A halfspace here is h(x) = sign(⟨w, x⟩ + τ), as in the paper
(``dpteach.data`` writes sign(⟨w, x⟩ − t), so τ = −t). Neighbouring datasets
differ in one example (replace-one). Every feature vector is clipped to
norm L = 2√d before use, so one example moves a block average of x·y or of
the gradient by at most 2L/m₀ in L2 norm, and a label mean by 2/m₀.

``epsilon = inf`` is accepted by the routines of this module and means the
*non-private* algorithm: the identical code path with zero noise (for the
chapter's reference curves). It is, of course, not private.

The deliberately broken variant :func:`_dpsas_noise_sigma_forgot_factor_two`
(BROKEN: half the sensitivity) sits right after the correct calibration; the
tests show that an audit of one step catches it.
"""

from __future__ import annotations

import math
import numbers
import sys

import numpy as np
from scipy import special

from ._constraints import Array, Labels, Options, POSITIVE, POSITIVE_INT, validate_params
from ._validation import (as_rng, check_delta, check_epsilon, check_finite_array,
                          check_int, check_labels, check_memory, check_positive, check_probability,
                          check_same_length)
from . import feature_scaling
from .mechanisms import gaussian_mechanism, gaussian_sigma, laplace_mechanism

__all__ = [
    "ramp",
    "ramp_derivative",
    "ramp_loss",
    "ramp_loss_gradient",
    "private_threshold",
    "private_initial_direction",
    "dpsas_noise_sigma",
    "round_schedule",
    "default_n_rounds",
    "step_size",
    "projected_gaussian_noise",
    "dpsas_round",
    "STEP_RULES",
]

#: The three step-size rules of line 8: our reconstruction e^{τ̂²/2}·s (default),
#: the paper's printed e^{π²/2}·s, and the plain λ = s.
STEP_RULES = ("reconstructed", "as_printed", "constant")


# --- validation helpers shared by this module and dpteach.dpsas ---------------------------------

def check_epsilon_or_inf(epsilon, name="epsilon"):
    """ε in (0, inf) as for every mechanism, or exactly +inf (the non-private reference path)."""
    if (isinstance(epsilon, (numbers.Real, np.floating, np.integer)) and not isinstance(epsilon, bool)
            and float(epsilon) == math.inf):
        return math.inf
    return check_epsilon(epsilon, name)


def check_unit_vector(w, name, d=None):
    """A finite non-zero vector (of length d if given), returned normalised to unit length."""
    w = check_finite_array(w, name, ndim=1) if d is None else check_finite_array(w, name, shape=(d,))
    norm = float(np.linalg.norm(w))
    if norm == 0.0:
        raise ValueError(f"{name} must be a non-zero vector (it is used as a direction), got all zeros")
    return w / norm


def check_data(X, y, name_X="X", name_y="y"):
    """Validated (X, y) of a halfspace learner: finite 2-D X, labels in {−1, +1}, same length (shared with dpsas)."""
    X = check_finite_array(X, name_X, ndim=2)
    y = check_labels(y, name_y)
    check_same_length(X, y, name_X, name_y)
    return X, y


def clip_rows(X, clip_norm):
    """x ← x·min(1, L/‖x‖₂) for every row (line 3): per example, so data-independent."""
    # feature_scaling.clip_rows, the package's one home for norm clipping: exact (no overflow, no warning) for a
    # huge record.
    return feature_scaling.clip_rows(X, clip_norm)


def _as_output(value):
    value = np.asarray(value, dtype=float)
    return float(value) if value.ndim == 0 else value


# --- 1. The ramp, the ramp loss and its gradient ------------------------------------------------

@validate_params({"z": Array(), "a": POSITIVE})
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
    """
    b = float(check_finite_array(b, "b", ndim=0))
    return _as_output(np.clip(z - b + a, 0.0, 2.0 * a))


@validate_params({"z": Array(), "a": POSITIVE})
def ramp_derivative(z, a, b):
    """r'_{a,b}(z) = 1{|z − b| ≤ a}: the derivative of Eq. (12), with the closed band of Claim 4.3.

    The ramp is differentiable except at its two kinks z = b ± a; there we take
    the value 1, as Claim 4.3's indicator does (a measure-zero choice).
    Parameters, errors and cost as :func:`ramp`; returns 0.0/1.0 floats.
    """
    b = float(check_finite_array(b, "b", ndim=0))
    return _as_output((np.abs(z - b) <= a).astype(float))


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
    """
    X, y = check_data(X, y)
    w = check_unit_vector(w, "w", X.shape[1])
    a = check_positive(a, "a")
    b = float(check_finite_array(b, "b", ndim=0))
    return float(-np.mean(np.clip(X @ w - b + a, 0.0, 2.0 * a) * y))


def _ramp_gradient(w, X, y, a, b):
    """Claim 4.3 at a unit w: −(1/m)(I − wwᵀ) Σ y·1{|⟨w,x⟩ − b| ≤ a}·x (validated inputs)."""
    active = np.abs(X @ w - b) <= a
    pulled = (y * active) @ X / X.shape[0]
    return -(pulled - (pulled @ w) * w)


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
    """
    X, y = check_data(X, y)
    w = check_finite_array(w, "w", shape=(X.shape[1],))
    norm = float(np.linalg.norm(w))
    if norm == 0.0:
        raise ValueError("w must be a non-zero vector (the loss depends on w/‖w‖), got all zeros")
    a = check_positive(a, "a")
    b = float(check_finite_array(b, "b", ndim=0))
    return _ramp_gradient(w / norm, X, y, a, b) / norm


# --- 2. The private threshold and the private initial direction ---------------------------------

def private_threshold_prechecked(y, epsilon, kappa, rng):
    """:func:`private_threshold` on validated inputs (dpsas calls it once per run)."""
    label_mean = float(np.mean(y))
    if epsilon != math.inf:
        # One label changes from −1 to +1 or back: the mean moves by 2/m (L1 sensitivity).
        label_mean = laplace_mechanism(label_mean, 2.0 / y.size, epsilon, rng)
    return float(special.ndtri(np.clip((1.0 + label_mean) / 2.0, kappa, 1.0 - kappa)))


@validate_params({"y": Labels()})
def private_threshold(y, epsilon, kappa, rng=None):
    """Private threshold τ̂ (Algorithm 8.3 lines 4–5; the paper's Algorithm 3, Lemma 8.7 = the paper's 4.6).

    ŷ = mean(y) + Lap(2/(ε m)), then τ̂ = Φ⁻¹(clip_[κ, 1−κ]((1 + ŷ)/2)). For a
    unit w, Pr[⟨w, x⟩ + τ ≥ 0] = Φ(τ) under N(0, I), and Pr[y = +1] = (1 + E y)/2,
    so τ̂ is the threshold of a halfspace sign(⟨w,x⟩ + τ̂) with the labels' balance.

    Parameters
    ----------
    y : array_like of ±1, shape (m,)
        The labels of the block D_τ (only the labels are read).
    epsilon : float
        0 < ε < inf, or inf for the non-private estimate (no noise).
    kappa : float
        Clipping level κ ∈ (0, 1/2) (the paper: κ = Cη; our default in DPSAS: κ = η).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    float
        τ̂ ∈ [Φ⁻¹(κ), Φ⁻¹(1 − κ)].

    Privacy
    -------
    ε-DP in D_τ: the label mean has L1 sensitivity 2/m (replace-one), and the
    Laplace mechanism with scale (2/m)/ε is ε-DP; clipping and Φ⁻¹ are
    post-processing. Cost O(m).

    Raises
    ------
    ValueError, TypeError
        For labels not ±1 or empty, ε ≤ 0 / nan / non-numeric, κ ∉ (0, 1/2), a bad rng.
    """
    epsilon = check_epsilon_or_inf(epsilon)
    kappa = check_probability(kappa, "kappa")
    if kappa >= 0.5:
        raise ValueError(f"kappa must lie in (0, 0.5) (the clip interval [kappa, 1 - kappa] must be "
                         f"non-empty), got {kappa!r}")
    return private_threshold_prechecked(y, epsilon, kappa, as_rng(rng))


def _threshold_sensitivity_forgot_factor_two(y, epsilon, kappa, rng=None):
    """BROKEN on purpose (audit demo): Laplace scale 1/(ε m) instead of 2/(ε m).

    The bug: "one label changes the mean by 1/m" forgets that a label moves
    from −1 to +1, a change of 2. The release is then only 2ε-DP. Not in __all__.
    """
    y = check_labels(y, "y")
    label_mean = laplace_mechanism(float(np.mean(y)), 1.0 / y.size, check_epsilon(epsilon), rng)
    return float(special.ndtri(np.clip((1.0 + label_mean) / 2.0, kappa, 1.0 - kappa)))


def _uniform_direction(d, rng):
    v = rng.standard_normal(d)
    return v / np.linalg.norm(v)


def private_initial_direction_prechecked(X, y, clip_norm, epsilon, delta, rng, n_releases=1):
    """:func:`private_initial_direction` on validated inputs (dpsas calls it once per run)."""
    mean = y @ clip_rows(X, clip_norm) / y.size
    if epsilon != math.inf:
        # ‖x·y‖ ≤ L after clipping, so replacing one example moves the mean by ≤ 2L/m in L2.
        # (n_releases > 1: the sample-reuse variant, see dpsas_noise_sigma_prechecked.)
        sensitivity = 2.0 * clip_norm / y.size * math.sqrt(n_releases)
        mean = np.atleast_1d(gaussian_mechanism(mean, sensitivity, epsilon, delta, rng))
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else _uniform_direction(mean.size, rng)


def private_initial_direction(X, y, clip_norm, epsilon, delta, rng=None):
    """Private initial direction ŵ₀ (Algorithm 8.3 lines 6–7; Lemma 8.6 = the paper's 4.5).

    w̃₀ = mean(x·y over the block, x clipped to norm L) + N(0, σ² I) with σ for
    L2 sensitivity 2L/m; ŵ₀ = w̃₀/‖w̃₀‖, or a uniform unit vector if w̃₀ = 0.

    Parameters
    ----------
    X : array_like, shape (m, d); y : array_like of ±1, shape (m,)
        The block D_init. Rows are clipped here, so the privacy guarantee holds whatever X is.
    clip_norm : float
        L > 0 (DPSAS uses L = 2√d).
    epsilon : float
        0 < ε < inf, or inf for the non-private direction (no noise).
    delta : float
        0 < δ < 1.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray, shape (d,)
        A unit vector.

    Privacy
    -------
    (ε, δ)-DP in D_init: the Gaussian mechanism (``dpteach.mechanisms.gaussian_mechanism``,
    analytic calibration, valid for every ε > 0) on a mean of L2 sensitivity 2L/m;
    normalising is post-processing. (The paper calibrates σ = 2L√(2 ln(2/δ))/(ε m),
    valid for ε < 1; the analytic σ is never larger.) Cost O(m·d).

    Raises
    ------
    ValueError, TypeError
        For bad X/y, L ≤ 0, ε ≤ 0, δ ∉ (0, 1), a bad rng.
    """
    X, y = check_data(X, y)
    clip_norm = check_positive(clip_norm, "clip_norm")
    epsilon = check_epsilon_or_inf(epsilon)
    delta = check_delta(delta, allow_zero=False)
    return private_initial_direction_prechecked(X, y, clip_norm, epsilon, delta, as_rng(rng))


# --- 3. Rounds: schedule, step size, noise and one noisy step ------------------------------------

def dpsas_noise_sigma_prechecked(block_size, clip_norm, epsilon, delta, n_releases=1):
    """:func:`dpsas_noise_sigma` on validated inputs."""
    if epsilon == math.inf:
        return 0.0
    # n_releases Gaussian releases on the *same* data (the sample-reuse variant, outside the
    # paper) compose exactly like one release of sensitivity Δ·√n_releases (Gaussian DP,
    # Dong, Roth & Su 2022), and the analytic σ is exact for one release.
    return gaussian_sigma(2.0 * clip_norm / block_size * math.sqrt(n_releases), epsilon, delta)


@validate_params({"block_size": POSITIVE_INT, "clip_norm": POSITIVE})
def dpsas_noise_sigma(block_size, clip_norm, epsilon, delta):
    """σ of the per-round noise (and of ŵ₀'s noise): the Gaussian mechanism for L2 sensitivity 2L/m₀.

    Parameters
    ----------
    block_size : int
        m₀ ≥ 1, the size of each block (n₀ = (T_r + 2)·m₀).
    clip_norm : float
        L > 0 (DPSAS: 2√d).
    epsilon : float
        0 < ε < inf, or inf (returns 0: no noise).
    delta : float
        0 < δ < 1.

    Returns
    -------
    float
        ``dpteach.mechanisms.gaussian_sigma(2L/m₀, ε, δ)`` (analytic calibration).

    Raises
    ------
    ValueError, TypeError
        For m₀ < 1, L ≤ 0, ε ≤ 0, δ ∉ (0, 1).
    """
    epsilon = check_epsilon_or_inf(epsilon)
    delta = check_delta(delta, allow_zero=False)
    return dpsas_noise_sigma_prechecked(block_size, clip_norm, epsilon, delta)


def _dpsas_noise_sigma_forgot_factor_two(block_size, clip_norm, epsilon, delta):
    """BROKEN on purpose (audit demo): σ for sensitivity L/m₀ instead of 2L/m₀.

    The bug: "one example moves the average by at most ‖x‖/m₀" forgets that
    replacing an example removes one vector of norm ≤ L *and* adds another.
    Half the noise; the step is then far from (ε, δ)-DP. Not in __all__.
    """
    return gaussian_sigma(clip_norm / block_size, epsilon, delta)


def round_schedule_prechecked(n_rounds, step_size_scale, tau):
    """:func:`round_schedule` on validated inputs."""
    phi = (math.pi / 2) * (1.0 - step_size_scale ** 2 / 64.0) ** np.arange(n_rounds)
    return phi, np.sin(phi), -tau * np.cos(phi)


@validate_params({"n_rounds": POSITIVE_INT})
def round_schedule(n_rounds, step_size_scale, tau):
    """φ_t = (π/2)(1 − s²/64)^t, a_t = sin φ_t, b_t = −τ̂ cos φ_t for t = 0..T_r − 1 (line 10).

    The band {z : |z − b_t| ≤ a_t} starts as [−1, 1] (φ₀ = π/2) and shrinks
    geometrically towards the point −τ̂, the decision boundary of sign(⟨w,x⟩ + τ̂).

    Parameters
    ----------
    n_rounds : int
        T_r ≥ 1.
    step_size_scale : float
        s ∈ (0, 8) (so that 1 − s²/64 ∈ (0, 1)).
    tau : float
        τ̂, any finite real.

    Returns
    -------
    (phi, a, b) : three ndarrays of shape (T_r,). Cost O(T_r).

    Raises
    ------
    ValueError, TypeError
        For T_r < 1, s ∉ (0, 8), non-finite τ̂.
    """
    check_memory(("n_rounds", n_rounds), itemsize=24)  # three float arrays of length T_r
    step_size_scale = check_scale(step_size_scale)
    tau = float(check_finite_array(tau, "tau", ndim=0))
    return round_schedule_prechecked(n_rounds, step_size_scale, tau)


def check_scale(step_size_scale):
    """The step-size scale s ∈ (0, 8), so that the schedule's factor 1 − s²/64 lies in (0, 1)."""
    s = check_positive(step_size_scale, "step_size_scale")
    if s >= 8.0:
        raise ValueError(f"step_size_scale must lie in (0, 8) (the schedule needs 1 - s²/64 in (0, 1)), "
                         f"got {step_size_scale!r}")
    return s


def default_n_rounds_prechecked(eta, step_size_scale):
    """:func:`default_n_rounds` on validated inputs."""
    return max(1, math.ceil(math.log(math.pi / (2 * eta)) / -math.log1p(-step_size_scale ** 2 / 64.0)))


def default_n_rounds(eta, step_size_scale=2.0):
    """Our practical T_r: the first T with φ_T ≤ η, i.e. ⌈ln(π/(2η)) / −ln(1 − s²/64)⌉.

    The paper sets T_r = Θ(log⁴(1/η)) with s = Θ(log^{−3/2}(1/η)); both are
    the same rule "shrink the band to width about η" (64/s² · ln(π/(2η)) rounds).
    With s = 2 and η = 0.05 this gives 54 rounds.

    Parameters
    ----------
    eta : float
        η ∈ (0, 1/2).
    step_size_scale : float
        s ∈ (0, 8).

    Returns
    -------
    int ≥ 1.

    Raises
    ------
    ValueError, TypeError
        For η ∉ (0, 1/2) or s ∉ (0, 8).
    """
    return default_n_rounds_prechecked(check_eta(eta), check_scale(step_size_scale))


def check_eta(eta):
    """η ∈ (0, 1/2), an upper bound on OPT < 1/2 (shared with dpsas and its runner)."""
    eta = check_probability(eta, "eta")
    if eta >= 0.5:
        raise ValueError(f"eta must lie in (0, 0.5) (an upper bound on OPT < 1/2), got {eta!r}")
    return eta


_MAX_EXP_TAU = math.sqrt(2 * math.log(sys.float_info.max))  # e^{τ²/2} is a float up to |τ| ≈ 37.7


def step_size_prechecked(step_rule, step_size_scale, tau):
    """:func:`step_size` on validated inputs."""
    if step_rule == "reconstructed":
        try:
            growth = math.exp(tau ** 2 / 2)
        except OverflowError:
            raise ValueError(f"tau = {tau!r} makes the step e^(tau²/2)·s larger than the largest float; valid range "
                             f"for step_rule='reconstructed': |tau| < {_MAX_EXP_TAU:.4g}") from None
        return growth * step_size_scale
    if step_rule == "as_printed":
        return math.exp(math.pi ** 2 / 2) * step_size_scale
    return step_size_scale


@validate_params({"step_rule": Options(STEP_RULES)})
def step_size(step_rule, step_size_scale, tau):
    """The step size λ of line 8 under one of :data:`STEP_RULES`.

    * ``"reconstructed"`` (default of DPSAS, our reading, a conjecture): λ = e^{τ̂²/2}·s.
      The population drift towards w* scales like sin θ·e^{−τ²/2}, so this λ
      makes the angle change per round about s·sin θ whatever the threshold.
      Nothing proves it converges; λ also multiplies the privacy noise, and with
      noise and a large |t*| the plain λ = s does as well or better (chapter 8's ablation).
    * ``"as_printed"``: λ = e^{π²/2}·s ≈ 139·s, as the paper prints it; at the
      demo's s = 2 (λ ≈ 278) it overshoots and stalls.
    * ``"constant"``: λ = s.

    Returns
    -------
    float, λ > 0.

    Raises
    ------
    ValueError, TypeError
        For an unknown rule, s ∉ (0, 8), non-finite τ̂.
    """
    step_size_scale = check_scale(step_size_scale)
    tau = float(check_finite_array(tau, "tau", ndim=0))
    return step_size_prechecked(step_rule, step_size_scale, tau)


def _projected_noise(w, sigma, rng, size=None):
    shape = (w.size,) if size is None else (size, w.size)
    xi = rng.normal(0.0, sigma, size=shape) if sigma > 0 else np.zeros(shape)
    return xi - np.multiply.outer(xi @ w, w)


def projected_gaussian_noise(w, sigma, rng=None, size=None):
    """A draw of z ~ N(0, σ²(I − wwᵀ)): Gaussian noise in the subspace w^⊥ (line 12).

    Drawn as ξ − ⟨ξ, w⟩w with ξ ~ N(0, σ² I): the covariance is
    (I − wwᵀ)σ²I(I − wwᵀ)ᵀ = σ²(I − wwᵀ) because I − wwᵀ is a projection.

    Parameters
    ----------
    w : array_like, shape (d,)
        The current direction (normalised here).
    sigma : float
        σ ≥ 0.
    rng : None, int or numpy.random.Generator
    size : None or int
        None for one vector of shape (d,), an int k ≥ 1 for k independent draws, shape (k, d).

    Raises
    ------
    ValueError, TypeError
        For a zero w, σ < 0, bad size or rng.
    """
    w = check_unit_vector(w, "w")
    sigma = check_positive(sigma, "sigma", allow_zero=True)
    size = None if size is None else check_int(size, "size", minimum=1)
    return _projected_noise(w, sigma, as_rng(rng), size)


def dpsas_round_prechecked(w, X, y, a, b, lam, sigma, rng, size=None):
    """:func:`dpsas_round` on validated inputs (dpsas calls it once per round)."""
    gradient = _ramp_gradient(w, X, y, a, b)
    u = w - lam * (gradient + _projected_noise(w, sigma, rng, size))
    # gradient + noise ⊥ w, so ‖u‖² = 1 + λ²‖·‖² ≥ 1: the projection onto the ball or sphere is u/‖u‖.
    return u / np.linalg.norm(u, axis=-1, keepdims=True), gradient


def dpsas_round(w, X_block, y_block, a, b, step, sigma, clip_norm, rng=None, size=None):
    """One round of DP online gradient descent (Algorithm 8.3 lines 10–12; Claim 4.3).

    û = w − λ(∇L̂_t(w) + z), z ~ N(0, σ²(I − wwᵀ)), and w' = û/‖û‖ (the
    projection onto the unit sphere B = S^{d−1}).

    Parameters
    ----------
    w : array_like, shape (d,)
        The current direction ŵ_t (normalised here).
    X_block, y_block : arrays of shapes (m, d) and (m,)
        The fresh block D_t. Rows are clipped to ``clip_norm`` here.
    a, b : float
        a_t > 0 and b_t from :func:`round_schedule`.
    step : float
        λ > 0 from :func:`step_size`.
    sigma : float
        σ ≥ 0 from :func:`dpsas_noise_sigma` (0: the non-private step).
    clip_norm : float
        L > 0.
    rng : None, int or numpy.random.Generator
    size : None or int
        None for one step; an int k ≥ 1 for k independent noisy steps from the
        same ŵ_t and block (shape (k, d); for audits, which need many releases).

    Returns
    -------
    (w_next, gradient) : the unit vector ŵ_{t+1} (or k of them) and the exact
    (noise-free) gradient at ŵ_t. The gradient is for diagnostics only; it is not private.

    Privacy
    -------
    With σ = ``dpsas_noise_sigma(m, L, ε, δ)`` the released ŵ_{t+1} is (ε, δ)-DP
    in D_t for every fixed ŵ_t: the average gradient lies in the public
    subspace w^⊥ and has L2 sensitivity 2L/m (each term has norm ≤ ‖x‖ ≤ L),
    so adding N(0, σ²) in every direction of w^⊥ is the Gaussian mechanism
    there; the update and the normalisation are post-processing. Cost O(m·d).

    Raises
    ------
    ValueError, TypeError
        For bad arrays, a ≤ 0, λ ≤ 0, σ < 0, L ≤ 0, a bad size or rng.
    """
    X, y = check_data(X_block, y_block, "X_block", "y_block")
    w = check_unit_vector(w, "w", X.shape[1])
    a = check_positive(a, "a")
    b = float(check_finite_array(b, "b", ndim=0))
    step = check_positive(step, "step")
    sigma = check_positive(sigma, "sigma", allow_zero=True)
    clip_norm = check_positive(clip_norm, "clip_norm")
    size = None if size is None else check_int(size, "size", minimum=1)
    return dpsas_round_prechecked(w, clip_rows(X, clip_norm), y, a, b, step, sigma, as_rng(rng), size)
