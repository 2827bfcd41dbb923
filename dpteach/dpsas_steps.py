"""The private building blocks of DPSAS (chapter 8, Algorithm 8.3; the paper's Algorithm 3), one idea each.

Read top to bottom, this module follows the chapter's line-by-line account of
the algorithm, after the ramp loss and its gradient (Eq. (12), Lemma 8.2; in
:mod:`dpteach.dpsas_ramp`):

1. the private threshold τ̂ (lines 4–5: Laplace estimate of E[y], then Φ⁻¹
   of the clipped value) and the private initial direction ŵ₀ (lines 6–7:
   Gaussian estimate of E[xy], normalised);
2. the round schedule φ_t, a_t, b_t (line 10), the step size λ (line 8, with
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

The deliberately broken variant :func:`broken_dpsas_noise_sigma_forgot_factor_two`
(BROKEN: half the sensitivity) sits right after the correct calibration; the
tests show that an audit of one step catches it.
"""

from __future__ import annotations

import math
import sys
from numbers import Real

import numpy as np
from scipy import special

from ._constraints import (Check, Delta, Epsilon, FiniteInterval, Options, OrNone, POSITIVE, POSITIVE_INT,
                           validate_params, SameLength)
from ._array_constraints import Array, Labels
from ._scales import NORMAL_SCALE
from ._validation import check_epsilon, check_int, check_labels, check_memory
from . import feature_scaling
from .dpsas_ramp import FINITE, check_unit_vector, unit_ramp_gradient
from .mechanisms import gaussian_mechanism, gaussian_sigma, laplace_mechanism
from .privacy import privacy_claim

__all__ = [
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


# --- checks shared by this module, dpteach.dpsas and its runners ---------------------------------

def clip_rows(X, clip_norm):
    """x ← x·min(1, L/‖x‖₂) for every row (line 3): per example, so data-independent."""
    # feature_scaling.clip_rows, the package's one home for norm clipping: exact (no overflow, no warning) for a
    # huge record.
    return feature_scaling.clip_rows(X, clip_norm)


#: η ∈ (0, 1/2), an upper bound on OPT < 1/2, not subnormal: log(π/(2η)) (the rounds) and Φ⁻¹(η) (the
#: threshold's clip) overflow for a subnormal η.
ETA = FiniteInterval(Real, 0, 0.5, normal=True)
#: s ∈ (0, 8): the schedule's factor 1 − s²/64 must lie in (0, 1).
SCALE = FiniteInterval(Real, 0, 8)
#: κ ∈ (0, 1/2), the clipping level of line 5 (the clip interval [κ, 1 − κ] must be non-empty), not subnormal:
#: Φ⁻¹(κ) is finite for every normal κ (|Φ⁻¹| <= 37.6), -inf for a subnormal one.
KAPPA = FiniteInterval(Real, 0, 0.5, normal=True)
#: ε > 0, or inf for the identical non-private reference path (no noise).
EPSILON_OR_INF = Epsilon(allow_inf=True)
#: 0 < δ < 1.
DELTA = Delta(allow_zero=False)


# --- 1. The private threshold and the private initial direction ---------------------------------

@privacy_claim(theorem="prop-dpsas-privacy", epsilon="epsilon", delta=0.0)
@validate_params({"y": Labels(), "epsilon": EPSILON_OR_INF, "kappa": KAPPA, "rng": "random_state"})
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
        τ̂ ∈ [Φ⁻¹(κ), Φ⁻¹(1 − κ)] = [Φ⁻¹(κ), −Φ⁻¹(κ)] in exact arithmetic (in floating
        point 1 − κ rounds to 1 once κ < 2⁻⁵⁴, so only the second form bounds τ̂ there).

    Privacy
    -------
    ε-DP in D_τ: the label mean has L1 sensitivity 2/m (replace-one), and the
    Laplace mechanism with scale (2/m)/ε is ε-DP; clipping and Φ⁻¹ are
    post-processing (Proposition 8.4's proof, block D_τ). Cost O(m).

    Raises
    ------
    ValueError, TypeError
        For labels not ±1 or empty, ε ≤ 0 / nan / non-numeric, κ ∉ (0, 1/2), a bad rng.

    Examples
    --------
    >>> round(private_threshold(y=np.array([1.0, -1.0] * 6), epsilon=1.0, kappa=0.1, rng=0), 3)
    0.067
    """
    label_mean = float(np.mean(y))
    if epsilon != math.inf:
        # One label changes from −1 to +1 or back: the mean moves by 2/m (L1 sensitivity).
        label_mean = laplace_mechanism(label_mean, 2.0 / y.size, epsilon, rng)
    tau = float(special.ndtri(np.clip((1.0 + label_mean) / 2.0, kappa, 1.0 - kappa)))
    if 1.0 - kappa == 1.0:
        # κ < 2⁻⁵⁴: 1 − κ rounds to 1, so the clip above no longer keeps p̃ < 1 and Φ⁻¹(1) = +inf (theory
        # review N7: τ̂ = inf, then λ = inf and ŵ = NaN). Clip in the τ domain instead, to the same
        # [Φ⁻¹(κ), Φ⁻¹(1 − κ)] = [Φ⁻¹(κ), −Φ⁻¹(κ)] of exact arithmetic (only here: every κ ≥ 2⁻⁵⁴ keeps its bits).
        tau = min(max(tau, float(special.ndtri(kappa))), -float(special.ndtri(kappa)))
    return tau


def broken_threshold_sensitivity_forgot_factor_two(y, epsilon, kappa, rng=None):
    """BROKEN on purpose (audit demo): Laplace scale 1/(ε m) instead of 2/(ε m).

    The bug: "one label changes the mean by 1/m" forgets that a label moves
    from −1 to +1, a change of 2. The release is then only 2ε-DP. Not in __all__.
    """
    y = check_labels(y, "y")
    label_mean = laplace_mechanism(float(np.mean(y)), 1.0 / y.size, check_epsilon(epsilon), rng)
    tau = float(special.ndtri(np.clip((1.0 + label_mean) / 2.0, kappa, 1.0 - kappa)))
    if 1.0 - kappa == 1.0:
        # κ < 2⁻⁵⁴: 1 − κ rounds to 1, so the clip above no longer keeps p̃ < 1 and Φ⁻¹(1) = +inf (theory
        # review N7: τ̂ = inf, then λ = inf and ŵ = NaN). Clip in the τ domain instead, to the same
        # [Φ⁻¹(κ), Φ⁻¹(1 − κ)] = [Φ⁻¹(κ), −Φ⁻¹(κ)] of exact arithmetic (only here: every κ ≥ 2⁻⁵⁴ keeps its bits).
        tau = min(max(tau, float(special.ndtri(kappa))), -float(special.ndtri(kappa)))
    return tau


def _uniform_direction(d, rng):
    v = rng.standard_normal(d)
    return v / np.linalg.norm(v)


@privacy_claim(theorem="prop-dpsas-privacy", epsilon="epsilon", delta="delta")
@validate_params({"X": Array(ndim=2), "y": Labels(), "clip_norm": NORMAL_SCALE, "epsilon": EPSILON_OR_INF,
                  "delta": DELTA, "rng": "random_state", "n_releases": POSITIVE_INT}, relations=[SameLength("X", "y")])
def private_initial_direction(X, y, clip_norm, epsilon, delta, rng=None, n_releases=1):
    """Private initial direction ŵ₀ (Algorithm 8.3 lines 6–7; Lemma 8.6 = the paper's 4.5).

    w̃₀ = mean(x·y over the block, x clipped to norm L) + N(0, σ² I) with σ for
    L2 sensitivity 2L/m; ŵ₀ = w̃₀/‖w̃₀‖, or a uniform unit vector if w̃₀ = 0.

    Parameters
    ----------
    X : array_like, shape (m, d); y : array_like of ±1, shape (m,)
        The block D_init. Rows are clipped here, so the privacy guarantee holds whatever X is.
    clip_norm : float, 1e-150 <= L <= 1e150
        L > 0 (DPSAS uses L = 2√d).
    epsilon : float
        0 < ε < inf, or inf for the non-private direction (no noise).
    delta : float
        0 < δ < 1.
    rng : None, int or numpy.random.Generator
    n_releases : int
        1 (Algorithm 8.3). k > 1: the first of k Gaussian releases on the *same* block that share
        (ε, δ) (the sample-reuse variant, outside the paper), calibrated for sensitivity 2L√k/m
        as :func:`dpsas_noise_sigma` explains.

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
        For bad X/y, L ≤ 0, ε ≤ 0, δ ∉ (0, 1), a bad rng or n_releases.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(12, 2))
    >>> w0 = private_initial_direction(X=X, y=np.array([1.0, -1.0] * 6), clip_norm=2.0, epsilon=1.0,
    ...                                delta=1e-5, rng=0)
    >>> round(float(np.linalg.norm(w0)), 6)
    1.0
    """
    mean = y @ clip_rows(X, clip_norm) / y.size
    if epsilon != math.inf:
        # ‖x·y‖ ≤ L after clipping, so replacing one example moves the mean by ≤ 2L/m in L2.
        # (n_releases > 1: the sample-reuse variant, see dpsas_noise_sigma.)
        sensitivity = 2.0 * clip_norm / y.size * math.sqrt(n_releases)
        mean = np.atleast_1d(gaussian_mechanism(mean, sensitivity, epsilon, delta, rng))
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else _uniform_direction(mean.size, rng)


# --- 2. Rounds: schedule, step size, noise and one noisy step ------------------------------------

@validate_params({"block_size": POSITIVE_INT, "clip_norm": NORMAL_SCALE, "epsilon": EPSILON_OR_INF, "delta": DELTA,
                  "n_releases": POSITIVE_INT})
def dpsas_noise_sigma(block_size, clip_norm, epsilon, delta, n_releases=1):
    """σ of the per-round noise (and of ŵ₀'s noise): the Gaussian mechanism for L2 sensitivity 2L/m₀.

    Parameters
    ----------
    block_size : int
        m₀ ≥ 1, the size of each block (n₀ = (T_r + 2)·m₀).
    clip_norm : float, 1e-150 <= L <= 1e150
        L > 0 (DPSAS: 2√d).
    epsilon : float
        0 < ε < inf, or inf (returns 0: no noise).
    delta : float
        0 < δ < 1.
    n_releases : int
        1 (Algorithm 8.3: one release per fresh block). k > 1: σ for each of k Gaussian releases on the
        *same* data that share (ε, δ) (the sample-reuse variant, outside the paper): they compose exactly
        like one release of sensitivity (2L/m₀)·√k (Gaussian DP, Dong, Roth & Su 2022).

    Returns
    -------
    float
        ``dpteach.mechanisms.gaussian_sigma(2L√k/m₀, ε, δ)`` (analytic calibration).

    Raises
    ------
    ValueError, TypeError
        For m₀ < 1, L ≤ 0, ε ≤ 0, δ ∉ (0, 1), k < 1.

    Examples
    --------
    >>> round(dpsas_noise_sigma(block_size=10, clip_norm=1.0, epsilon=1.0, delta=1e-5), 4)
    0.7461
    """
    if epsilon == math.inf:
        return 0.0
    # n_releases Gaussian releases on the *same* data (the sample-reuse variant, outside the
    # paper) compose exactly like one release of sensitivity Δ·√n_releases (Gaussian DP,
    # Dong, Roth & Su 2022), and the analytic σ is exact for one release.
    return gaussian_sigma(2.0 * clip_norm / block_size * math.sqrt(n_releases), epsilon, delta)


def broken_dpsas_noise_sigma_forgot_factor_two(block_size, clip_norm, epsilon, delta):
    """BROKEN on purpose (audit demo): σ for sensitivity L/m₀ instead of 2L/m₀.

    The bug: "one example moves the average by at most ‖x‖/m₀" forgets that
    replacing an example removes one vector of norm ≤ L *and* adds another.
    Half the noise; the step is then far from (ε, δ)-DP. Not in __all__.
    """
    return gaussian_sigma(clip_norm / block_size, epsilon, delta)


def _check_rounds(n_rounds, name):
    """T_r ≥ 1, within the memory budget of three float arrays of length T_r."""
    n_rounds = check_int(n_rounds, name, minimum=1)
    check_memory((name, n_rounds), itemsize=24)
    return n_rounds


# Check: the memory budget of T_r is part of the rule, and skipped with it on a nested call (the caller's T_r).
@validate_params({"n_rounds": Check(_check_rounds, invalid=POSITIVE_INT.invalid_values(), convert_nested=int),
                  "step_size_scale": SCALE, "tau": FINITE})
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

    Examples
    --------
    >>> phi, a, b = round_schedule(n_rounds=3, step_size_scale=2.0, tau=0.1)
    >>> np.round(a, 3)
    array([1.   , 0.995, 0.982])
    """
    phi = (math.pi / 2) * (1.0 - step_size_scale ** 2 / 64.0) ** np.arange(n_rounds)
    return phi, np.sin(phi), -tau * np.cos(phi)


@validate_params({"eta": ETA, "step_size_scale": SCALE})
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

    Examples
    --------
    >>> default_n_rounds(eta=0.1)
    43
    """
    return max(1, math.ceil(math.log(math.pi / (2 * eta)) / -math.log1p(-step_size_scale ** 2 / 64.0)))


_MAX_EXP_TAU = math.sqrt(2 * math.log(sys.float_info.max))  # e^{τ²/2} is a float up to |τ| ≈ 37.7


@validate_params({"step_rule": Options(STEP_RULES), "step_size_scale": SCALE, "tau": FINITE})
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

    Examples
    --------
    >>> round(step_size(step_rule="reconstructed", step_size_scale=2.0, tau=0.1), 4)
    2.01
    """
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


def _projected_noise(w, sigma, rng, size=None):
    shape = (w.size,) if size is None else (size, w.size)
    xi = rng.normal(0.0, sigma, size=shape) if sigma > 0 else np.zeros(shape)
    return xi - np.multiply.outer(xi @ w, w)


#: σ ≥ 0 (0: no noise, the non-private step).
NOISE_SCALE = FiniteInterval(Real, 0, None, closed="left")


@validate_params({"w": Array(ndim=1), "sigma": NOISE_SCALE, "rng": "random_state", "size": OrNone(POSITIVE_INT)})
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

    Examples
    --------
    >>> w = np.array([0.6, 0.8])
    >>> z = projected_gaussian_noise(w=w, sigma=0.1, rng=0)
    >>> abs(float(z @ w)) < 1e-12
    True
    """
    return _projected_noise(check_unit_vector(w, "w"), sigma, rng, size)


def dpsas_round_prechecked(w, X, y, a, b, lam, sigma, rng, size=None):
    """One round of :func:`dpsas_round` on checked inputs whose rows are already clipped (DPSAS clips once, line 3).

    ``w`` a unit vector, ``X`` the block's clipped rows; returns (ŵ_{t+1}, the noise-free gradient) as
    :func:`dpsas_round` does. DPSAS calls it once per round; the privacy argument is :func:`dpsas_round`'s.
    """
    gradient = unit_ramp_gradient(w, X, y, a, b)
    u = w - lam * (gradient + _projected_noise(w, sigma, rng, size))
    # gradient + noise ⊥ w, so ‖u‖² = 1 + λ²‖·‖² ≥ 1: the projection onto the ball or sphere is u/‖u‖.
    return u / np.linalg.norm(u, axis=-1, keepdims=True), gradient


@privacy_claim(theorem="prop-dpsas-privacy", epsilon="gaussian_epsilon(sigma, 2 * clip_norm / len(y_block), delta)",
               delta="delta", condition="for every delta in (0, 1) and every fixed w (sigma = 0: the non-private step)")
@validate_params({"w": Array(ndim=1), "X_block": Array(ndim=2), "y_block": Labels(), "a": POSITIVE, "b": FINITE,
                  "step": POSITIVE, "sigma": NOISE_SCALE, "clip_norm": NORMAL_SCALE, "rng": "random_state",
                  "size": OrNone(POSITIVE_INT)}, relations=[SameLength("X_block", "y_block")])
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
    clip_norm : float, 1e-150 <= L <= 1e150
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

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(12, 2))
    >>> w_next, gradient = dpsas_round(w=np.array([0.6, 0.8]), X_block=X, y_block=np.array([1.0, -1.0] * 6),
    ...                                a=0.1, b=1.0, step=0.1, sigma=0.1, clip_norm=2.0, rng=0)
    >>> w_next.shape, round(float(np.linalg.norm(w_next)), 6)
    ((2,), 1.0)
    """
    w = check_unit_vector(w, "w", X_block.shape[1])
    return dpsas_round_prechecked(w, clip_rows(X_block, clip_norm), y_block, a, b, step, sigma, rng, size)
