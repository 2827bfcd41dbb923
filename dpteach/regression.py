"""Private linear regression (chapter 5): the private LASSO of Cai, Wang & Zhang, and noisy OLS.

Read top to bottom, the module follows the chapter:

* one gradient step of Algorithm 5.4 on one block of data, with the response
  truncated at T and the residuals clipped at 2T, and the ℓ∞ sensitivity
  λ = 4ηc_xT/m that this clipping guarantees (Lemma 5.5);
* :class:`DPLasso`, Algorithm 5.4 (the paper's Algorithm 4, "Differentially
  Private LASSO"): iterative hard thresholding on N₀ disjoint blocks, each step
  privatised by :func:`~dpteach.peeling.peel` (Algorithm 5.2);
* :func:`noisy_ols`, the estimator of the paper's Theorem 19 (OLS on the
  truncated response plus Gaussian noise), (ε, δ)-DP only on a data-dependent
  event E (by default calibrated so that it *is* private on E), and :func:`dp_gradient_descent_ols`, a rigorous
  alternative (noisy gradient descent with clipped per-example gradients).

The steps Algorithm 5.4 shares with its non-private twin (truncation, the block split, one gradient
step) are in :mod:`dpteach.regression_steps`; the non-private baselines (split IHT, the LASSO by ISTA,
OLS) are in :mod:`dpteach.regression_baselines`; Peeling and its accountant are in
:mod:`dpteach.peeling` (their one home).

Neighbouring datasets differ in one replaced record (x_i, y_i). Covariates are
assumed bounded, |x_ij| <= c_x (``x_bound``); the private routines clip X to
[−c_x, c_x] so that the sensitivity bounds hold for every input.
"""

from __future__ import annotations

import math

import numpy as np

from . import composition
from ._estimator import Estimator, linear_scores
from .privacy import PrivacyReceipt, PrivacyStep
from ._constraints import (Delta, Epsilon, Integral, FiniteInterval, Options, OrNone, POSITIVE, POSITIVE_INT, Real,
                           fit_context, validate_params, SameLength)
from ._array_constraints import Array
from ._scales import NORMAL_SCALE, NORMAL_SCALE_OR_NONE
from ._validation import check_finite_array, check_int, check_work
from .feature_scaling import clip_rows
from .mechanisms import gaussian_sigma
from .peeling import peel_rows, peeling_epsilon, peeling_noise_scale
from .privacy import privacy_claim
from .regression_steps import FLAG, block_indices, check_design, gradient_step, truncate

__all__ = [
    "default_truncation",
    "dp_lasso_sensitivity",
    "lasso_gradient_step",
    "DPLasso",
    "noisy_ols_noise_std",
    "noisy_ols_sensitivity",
    "noisy_ols",
    "dp_gradient_descent_sigma",
    "dp_gradient_descent_ols",
]


#: Λ >= 1 of the event E(Λ, c_x, T) on which noisy OLS is private.
CONDITION_BOUND = FiniteInterval(Real, 1, None, closed="left")  # Λ >= 1, with 1/Λ < λ_min(Σ_X)


@validate_params({"n_samples": FiniteInterval(Integral, 2, None, closed="left"), "noise_std": POSITIVE,
                  "signal_norm": FiniteInterval(Real, 0, None, closed="left")})
def default_truncation(n_samples, noise_std=1.0, signal_norm=1.0):
    """The demo truncation level T = √(σ² + C²)·√(2 ln n) (our choice within Theorem 5.7's T >= Kσ√(ln n)).

    Under a Rademacher design y = x'β + ξ is sub-Gaussian with variance proxy
    σ² + ‖β‖₂², so |y_i| <= T for all i with high probability. Chosen from the
    *assumed* σ and C = ‖β‖₂, never from the data (that would leak privacy).

    Parameters
    ----------
    n_samples : int, n >= 2
    noise_std : float, σ > 0
    signal_norm : float, C >= 0

    Returns
    -------
    float
        T > 0.

    Examples
    --------
    >>> round(default_truncation(n_samples=40), 4)
    3.8413
    """
    return math.sqrt(noise_std ** 2 + signal_norm ** 2) * math.sqrt(2 * math.log(n_samples))


# --- one step of Algorithm 5.4 and its sensitivity (Lemma 5.5) -------------------------------------

@validate_params({"block_size": POSITIVE_INT, "truncation": NORMAL_SCALE, "step_size": POSITIVE, "x_bound": POSITIVE})
def dp_lasso_sensitivity(block_size, truncation, step_size=1.0, x_bound=1.0):
    """λ = 4·η·c_x·T/m, the ℓ∞ sensitivity of one clipped gradient step (Lemma 5.5).

    Replacing one record of the block changes one term x_i r_i of the step
    v = β − (η/m) Σ x_i r_i; with |x_ij| <= c_x and residuals clipped to
    |r_i| <= 2T, every coordinate moves by at most (η/m)·c_x·(2T + 2T).
    With η = c_x = 1 this is the paper's 4T/(n/N₀).

    Parameters
    ----------
    block_size : int, m >= 1
    truncation : float, 1e-150 <= T <= 1e150
    step_size : float, η > 0
    x_bound : float, c_x > 0

    Returns
    -------
    float
        λ > 0.

    Examples
    --------
    >>> dp_lasso_sensitivity(block_size=10, truncation=2.0)
    0.8
    """
    return 4 * step_size * x_bound * truncation / block_size


@validate_params({"X": Array(ndim=2), "y": Array(ndim=1), "beta": Array(ndim=1), "step_size": POSITIVE,
                  "truncation": NORMAL_SCALE, "clip_residual": FLAG}, relations=[SameLength("X", "y")])
def lasso_gradient_step(X, y, beta, step_size, truncation, clip_residual=True):
    """Line 5 of Algorithm 5.4 on one block: v = β − (η/m)·Xᵀ Π_{[−2T,2T]}(Xβ − f_T(y)).

    The gradient step of the squared loss (1/2m)‖Xβ − f_T(y)‖² on the block
    (X, y) of m records. With ``clip_residual=True`` (our addition to the
    paper's line 5) the residuals are clipped at 2T, which leaves the step
    unchanged whenever |x_i'β| <= T and makes ‖v(D) − v(D')‖∞ <= λ =
    :func:`dp_lasso_sensitivity` hold for *every* β; without it the bound fails
    as soon as |x_i'β| > T. No noise is added here; the step is made private
    by Peeling (line 6).

    Parameters
    ----------
    X : array_like, shape (m, d), finite
    y : array_like, shape (m,), finite
    beta : array_like, shape (d,), finite
    step_size : float, η > 0
    truncation : float, 1e-150 <= T <= 1e150
    clip_residual : bool

    Returns
    -------
    ndarray, shape (d,)
        The half-step β^{(t+0.5)}. Cost O(m·d).

    Raises
    ------
    TypeError, ValueError
        For non-finite or mis-shaped arrays, or η, T out of range.

    Examples
    --------
    >>> X = np.array([[1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    >>> lasso_gradient_step(X, np.array([0.5, 1.5, -0.2]), beta=np.zeros(2), step_size=1.0, truncation=2.0).round(4)
    array([0.7333, 0.2667])
    """
    beta = check_finite_array(beta, "beta", shape=(X.shape[1],))  # relates beta to X
    return gradient_step(X, y, beta, step_size, truncation, clip_residual)


# --- Algorithm 5.4: the private LASSO ------------------------------------------------------------

@privacy_claim(theorem="thm-dp-lasso-privacy", epsilon="peeling_epsilon(sparsity, epsilon, delta) if calibrate == "
               "'paper' else epsilon", delta="delta", condition="with clip_residual=True (without it: no guarantee)")
class DPLasso(Estimator):
    """The private LASSO of Cai, Wang & Zhang (Algorithm 5.4; the paper's Algorithm 4).

    Sparse linear regression by iterative hard thresholding on disjoint blocks::

        split the n records at random into N₀ blocks of m = ⌊n/N₀⌋      (line 2)
        β⁽⁰⁾ = 0                                                          (line 3)
        for t = 0, ..., N₀ − 1:
            v = β⁽ᵗ⁾ − (η/m) X_tᵀ Π_{[−2T,2T]}(X_t β⁽ᵗ⁾ − f_T(y_t))          (line 5, clipped)
            β⁽ᵗ⁺¹⁾ = peel(v, ŝ, ε, δ, λ = 4ηc_xT/m)                       (line 6)
        return β⁽ᴺ⁰⁾

    Privacy (Theorem 5.6). Each record lies in exactly one block, and block t is
    read only by step t, whose input β⁽ᵗ⁾ does not depend on it. Step t is
    Peeling of a vector with ℓ∞ sensitivity λ (Lemma 5.5, thanks to the
    residual clipping and X clipped to [−c_x, c_x]), hence (ε', δ)-DP with
    ε' = ``peeling_epsilon(ŝ, ε, δ)`` (<= ε for ε <= 1, δ <= 10⁻³; exactly ε
    with ``calibrate="accountant"``). By parallel composition with adaptivity the
    whole output is (ε', δ)-DP: no loss over the N₀ iterations. With
    ``clip_residual=False`` (the paper's literal line 5) the sensitivity, and so
    the privacy, is *not* guaranteed.

    Parameters
    ----------
    epsilon : float
        0 < ε < inf.
    delta : float
        0 < δ < 1.
    sparsity : int
        ŝ >= 1, the number of nonzeros of each iterate (the paper's ŝ; Theorem 5.7 wants ŝ ≍ s,
        we use 2s in the chapter). Must be <= d.
    step_size : float
        η > 0 (1 suits an isotropic design).
    truncation : float or None
        T > 0; None uses :func:`default_truncation` (n) (assumes σ = ‖β‖₂ = 1).
    n_iterations : int or None
        N₀ >= 1, the number of blocks and of iterations; None uses ⌈ln n⌉.
    random_state : None, int or numpy.random.Generator
    clip_residual : bool
        Clip residuals at 2T (default; needed for privacy).
    calibrate : {"accountant", "paper"}
        Peeling's noise calibration, see :func:`~dpteach.peeling.peeling_noise_scale`. The default,
        "accountant", certifies exactly the ε it is given; "paper" is Cai, Wang & Zhang's calibration, which
        certifies only ε′ (about 0.5–0.6 ε at the book's settings: twice the noise needed), kept to
        reproduce chapter 5, whose experiments pass it explicitly (issue 33).
    x_bound : float
        c_x > 0; X is clipped to [−c_x, c_x].

    Attributes
    ----------
    coef_ : ndarray (d,), at most ŝ nonzeros
    n_iter_ : int, N₀
    block_size_ : int, m
    truncation_ : float, T
    sensitivity_ : float, λ
    noise_scale_ : float, Peeling's Laplace scale b
    epsilon_certified_ : float, the ε' that composition certifies (inf with ``clip_residual=False``)
    support_path_ : list of ndarray, the support chosen at each iteration
    privacy_ : PrivacyReceipt, (ε', δ) with ε' = ``epsilon_certified_``

    Cost: O(n·d) for the whole fit (each record is used once) plus O(N₀·ŝ·d) for Peeling.

    Examples
    --------
    >>> X = np.random.default_rng(1).choice([-1.0, 1.0], size=(40, 6))
    >>> y = X[:, 0] - 0.5 * X[:, 1]
    >>> model = DPLasso(epsilon=1.0, delta=1e-5, sparsity=2, random_state=0).fit(X, y)
    >>> int(np.count_nonzero(model.coef_)), model.n_iter_
    (2, 4)
    """

    _fitted_attribute = "coef_"
    _estimator_type = "regressor"
    # sparsity <= d and n_iterations <= n need the data: fit checks them.
    _parameter_constraints = {"epsilon": Epsilon(), "delta": Delta(allow_zero=False), "sparsity": POSITIVE_INT,
                              "step_size": POSITIVE, "truncation": NORMAL_SCALE_OR_NONE,
                              "n_iterations": OrNone(POSITIVE_INT), "random_state": "random_state",
                              "clip_residual": FLAG,
                              "calibrate": Options(("paper", "accountant")), "x_bound": POSITIVE}

    def __init__(self, epsilon, delta, sparsity, step_size=1.0, truncation=None, n_iterations=None,
                 random_state=None, clip_residual=True, calibrate="accountant", x_bound=1.0):
        self.epsilon = epsilon
        self.delta = delta
        self.sparsity = sparsity
        self.step_size = step_size
        self.truncation = truncation
        self.n_iterations = n_iterations
        self.random_state = random_state
        self.clip_residual = clip_residual
        self.calibrate = calibrate
        self.x_bound = x_bound

    @fit_context({"X": Array(ndim=2), "y": Array(ndim=1)}, relations=[SameLength("X", "y")])
    def fit(self, X, y):
        """Run Algorithm 5.4 on (X, y) and return ``self``.

        Raises
        ------
        TypeError, ValueError
            For NaN/inf or mis-shaped X, y of the wrong length, ŝ < 1 or ŝ > d,
            ε <= 0, δ not in (0, 1), N₀ > n, and other out-of-range parameters.
        """
        n_samples, n_features = X.shape
        epsilon, delta, step_size, x_bound = float(self.epsilon), float(self.delta), float(self.step_size), float(
            self.x_bound)
        sparsity = check_int(self.sparsity, "sparsity", minimum=1, maximum=n_features)  # needs d
        truncation = default_truncation(max(n_samples, 2)) if self.truncation is None else float(self.truncation)
        n_blocks = (max(1, math.ceil(math.log(n_samples))) if self.n_iterations is None
                    else check_int(self.n_iterations, "n_iterations", minimum=1, maximum=n_samples))  # needs n
        rng = np.random.default_rng(self.random_state)
        blocks = block_indices(X.shape[0], n_blocks, rng)
        block_size = blocks.shape[1]
        sensitivity = dp_lasso_sensitivity(block_size, truncation, step_size, x_bound)
        scale = peeling_noise_scale(sparsity, epsilon, delta, sensitivity, self.calibrate)
        beta = np.zeros(X.shape[1])
        supports = []
        for rows in blocks:
            X_block = np.clip(X[rows], -x_bound, x_bound)
            half_step = gradient_step(X_block, y[rows], beta, step_size, truncation, bool(self.clip_residual))
            beta = peel_rows(half_step[None, :], sparsity, scale, rng)[0]
            supports.append(np.flatnonzero(beta))
        self.coef_ = beta
        self.n_features_in_ = X.shape[1]
        self.n_iter_ = n_blocks
        self.block_size_ = block_size
        self.truncation_ = truncation
        self.sensitivity_ = sensitivity
        self.noise_scale_ = scale
        if not self.clip_residual:  # Lemma 5.5 fails without the clipping: no certificate at all
            self.epsilon_certified_ = math.inf
        elif self.calibrate == "paper":
            self.epsilon_certified_ = peeling_epsilon(sparsity, epsilon, delta)
        else:
            self.epsilon_certified_ = epsilon
        self.support_path_ = supports
        self.privacy_ = PrivacyReceipt(
            steps=[PrivacyStep(f"Peeling of iteration {t + 1} (s = {sparsity}, Laplace scale {scale:.4g}, "
                               f"calibrate={self.calibrate!r})", f"{block_size} examples of block {t + 1}",
                               self.epsilon_certified_, delta, "thm-peeling-privacy") for t in range(n_blocks)],
            composition=composition.parallel_composition, theorem="thm-dp-lasso-privacy",
            why=("each record is in one block, read by one Peeling step of l-infinity sensitivity lambda"
                 if self.clip_residual else
                 "none: without the residual clipping Lemma 5.5 fails, so epsilon = inf (no guarantee)"))
        return self

    def predict(self, X):
        """X·β̂ for X of shape (k, d) (±inf where the exact value exceeds the largest double, never NaN).

        Raises NotFittedError before ``fit``.
        """
        X = self._check_predict_input(X)
        return linear_scores(X, self.coef_)  # the plain X @ coef_; scaled only for rows that overflow

    def score(self, X, y):
        """The coefficient of determination R² = 1 − Σ(y − ŷ)²/Σ(y − ȳ)² of ``predict(X)``."""
        self._check_fitted()
        X, y = check_design(X, y)
        prediction = self.predict(X)
        total = float(np.sum((y - y.mean()) ** 2))
        residual = float(np.sum((y - prediction) ** 2))
        return 1.0 - residual / total if total > 0 else (1.0 if residual == 0 else 0.0)


# --- the classical setting: noisy OLS (Theorem 5.10) and DP gradient descent ---------------------------

#: Λ and c_x of the event E(Λ, c_x, T), as noisy OLS declares them.
EVENT = {"condition_bound": CONDITION_BOUND, "x_bound": POSITIVE}


@validate_params({"n_samples": POSITIVE_INT, "n_features": POSITIVE_INT, "truncation": NORMAL_SCALE, **EVENT})
def noisy_ols_sensitivity(n_samples, n_features, truncation, condition_bound=1.0, x_bound=1.0):
    """Δ₂ = 8Λc_x√d·T/n, the ℓ₂ sensitivity of OLS on f_T(y) on the event E(Λ, c_x, T) (Theorem 5.10's proof).

    Replacing (x, y) by (x', y') moves β̂ by G'⁻¹(x'r' − x r) with r = f_T(y) − xᵀβ̂,
    G' = X'ᵀX'. On E — λ_min(XᵀX) ≥ n/(2Λ) for both neighbours and |x_iᵀβ̂| ≤ T
    for every row of both — each |r| ≤ 2T, ‖x‖₂ ≤ c_x√d (rows clipped to
    [−c_x, c_x]), so ‖Δβ̂‖₂ ≤ (2Λ/n)·c_x√d·4T. The classic Gaussian σ for this Δ₂
    has variance 128Λ²c_x²·dT²ln(1.25/δ)/(n²ε²): 128Λ²c_x² times the paper's.

    Parameters
    ----------
    n_samples, n_features : int ≥ 1
    truncation : float, 1e-150 <= T <= 1e150
    condition_bound : float, Λ ≥ 1 (the event's λ_min(XᵀX) ≥ n/(2Λ))
    x_bound : float, c_x > 0

    Returns
    -------
    float. Cost O(1).

    Examples
    --------
    >>> round(noisy_ols_sensitivity(n_samples=40, n_features=6, truncation=2.0), 4)
    0.9798
    """
    return 8.0 * condition_bound * x_bound * math.sqrt(n_features) * truncation / n_samples


@validate_params({"n_samples": POSITIVE_INT, "n_features": POSITIVE_INT, "epsilon": Epsilon(),
                  "delta": Delta(allow_zero=False), "truncation": NORMAL_SCALE, "noise_multiplier": OrNone(POSITIVE),
                  **EVENT})
def noisy_ols_noise_std(n_samples, n_features, epsilon, delta, truncation, noise_multiplier=None,
                        condition_bound=1.0, x_bound=1.0):
    """Per-coordinate standard deviation σ_W of W in noisy OLS.

    Default (``noise_multiplier=None``), the calibration that makes
    :func:`noisy_ols` (ε, δ)-DP on the event E(Λ, c_x, T): the analytic Gaussian
    σ = ``gaussian_sigma(Δ₂, ε, δ)`` for Δ₂ = :func:`noisy_ols_sensitivity`
    (valid for every ε, and at most the classic √(128Λ²c_x²·dT²ln(1.25/δ))/(nε)
    when ε ≤ 1).

    With ``noise_multiplier = c_W``: √(c_W·d·T²·ln(1.25/δ))/(n·ε), the paper's
    Theorem 19 variance (our reconstruction of its garbled covariance, constants
    absorbed) times c_W. **Not a calibration**: c_W = 1 is not (ε, δ)-DP even on
    the event (the reliability review audited ε ≥ 1.83 at a claimed 1 on a
    Rademacher design); about 6 passed that audit; 128Λ²c_x² is the classic bound.

    Parameters
    ----------
    n_samples : int, n >= 1
    n_features : int, d >= 1
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    truncation : float, 1e-150 <= T <= 1e150
    noise_multiplier : None or float c_W > 0
    condition_bound : float, Λ >= 1 (used when noise_multiplier is None)
    x_bound : float, c_x > 0 (used when noise_multiplier is None)

    Returns
    -------
    float

    Examples
    --------
    >>> round(noisy_ols_noise_std(n_samples=40, n_features=6, epsilon=1.0, delta=1e-5, truncation=2.0), 4)
    3.6553
    """
    if noise_multiplier is None:
        return gaussian_sigma(noisy_ols_sensitivity(n_samples, n_features, truncation, condition_bound, x_bound),
                              epsilon, delta)
    return math.sqrt(noise_multiplier * n_features * truncation ** 2 * math.log(1.25 / delta)) / (
        n_samples * epsilon)


#: The parameters of noisy OLS (:func:`noisy_ols` and the audits' releases).
NOISY_OLS = {"X": Array(ndim=2), "y": Array(ndim=1), "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
             "truncation": NORMAL_SCALE, "rng": "random_state", "noise_multiplier": OrNone(POSITIVE), **EVENT}


@privacy_claim(theorem="thm-noisy-ols", epsilon="epsilon", delta="delta",
               condition="on the event E(condition_bound, x_bound, truncation) only")
@validate_params(NOISY_OLS)
def noisy_ols(X, y, epsilon, delta, truncation, rng=None, noise_multiplier=None, condition_bound=1.0,
              x_bound=1.0):
    """Noisy OLS, the estimator of Theorem 5.10 (the paper's Theorem 19): β̂(X̄, f_T(y)) + W; (ε, δ)-DP on an event.

    X̄ is X clipped to [−c_x, c_x], β̂ = (X̄ᵀX̄)⁻¹X̄ᵀf_T(y) and W ~ N(0, σ_W² I_d)
    with σ_W = :func:`noisy_ols_noise_std`. **Privacy: (ε, δ)-DP on the event
    E(Λ, c_x, T)** = {λ_min(X̄ᵀX̄) ≥ n/(2Λ) for both neighbours, and |x̄_iᵀβ̂| ≤ T
    for every row of both}, with the default calibration (``noise_multiplier=None``):
    on E the ℓ₂ sensitivity is Δ₂ = 8Λc_x√d·T/n (:func:`noisy_ols_sensitivity`)
    and σ_W is the analytic Gaussian σ for it. E is a property of the data, not a
    guarantee (the paper: "with high probability, β̂_T is (ε, δ)-differentially
    private"): off E, e.g. with nearly collinear or high-leverage rows, the
    release can reveal a record. Use :func:`dp_gradient_descent_ols` for a
    guarantee that always holds. Clipping X (a per-record map) makes every
    finite record acceptable: a huge covariate is clipped to c_x, never NaN.

    ``noise_multiplier = c_W`` instead adds the paper's variance times c_W (a
    practical choice for experiments, **not calibrated**: c_W = 1, the old
    default, is not (ε, δ)-DP even on E; see :func:`noisy_ols_noise_std`).

    Parameters
    ----------
    X : array_like, shape (n, d), finite, with X̄ᵀX̄ invertible (n >= d)
    y : array_like, shape (n,), finite
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    truncation : float, 1e-150 <= T <= 1e150
    rng : None, int or numpy.random.Generator
    noise_multiplier : None (the calibration on E) or float c_W > 0 (the paper's variance × c_W, uncalibrated)
    condition_bound : float, Λ >= 1 (the event's λ_min(X̄ᵀX̄) ≥ n/(2Λ); 1 suits a Rademacher design with n ≫ d)
    x_bound : float, c_x > 0 (X is clipped to [−c_x, c_x])

    Returns
    -------
    ndarray, shape (d,)
        Cost O(n·d² + d³).

    Raises
    ------
    TypeError, ValueError
        For bad arrays or parameters, n < d, or a singular X̄ᵀX̄.

    Examples
    --------
    >>> X = np.random.default_rng(1).choice([-1.0, 1.0], size=(40, 6))
    >>> noisy_ols(X, X[:, 0], epsilon=1.0, delta=1e-5, truncation=2.0, rng=0).shape
    (6,)
    """
    return noisy_ols_releases(X, y, epsilon, delta, truncation, rng, noise_multiplier, condition_bound,
                               x_bound, None)


@validate_params({**NOISY_OLS, "size": OrNone(POSITIVE_INT)}, relations=[SameLength("X", "y")])
def noisy_ols_releases(X, y, epsilon, delta, truncation, rng, noise_multiplier, condition_bound, x_bound, size):
    """``size`` independent releases of :func:`noisy_ols` (None: one), the same code path (for audits)."""
    n_samples, n_features = X.shape
    if n_samples < n_features:
        raise ValueError(f"X must have at least as many rows as columns (n >= d) for OLS, got n={n_samples}, "
                         f"d={n_features}")
    std = noisy_ols_noise_std(n_samples, n_features, epsilon, delta, truncation, noise_multiplier,
                              condition_bound, x_bound)
    X = np.clip(X, -x_bound, x_bound)
    gram = X.T @ X
    if np.linalg.matrix_rank(gram) < n_features:
        raise ValueError("X must have full column rank (X'X invertible) for OLS, got a singular X'X")
    beta = np.linalg.solve(gram, X.T @ truncate(y, truncation))
    return beta + rng.normal(0.0, std, size=n_features if size is None else (size, n_features))


def broken_noisy_ols_paper_variance(X, y, epsilon, delta, truncation, rng=None, size=None):
    """BROKEN on purpose (P3): noisy OLS with the paper's variance, c_W = 1 (the old default).

    Not (ε, δ)-DP even on the event E: on a Rademacher design (n = 100, d = 2,
    T = 2, y₀ = ±T) the exact ε of that pair is 2.15 at a claimed 1 (δ = 10⁻³).
    """
    return noisy_ols_releases(X, y, epsilon, delta, truncation, rng, 1.0, 1.0, 1.0, size)


def _dp_gd_iterations(n_samples, n_iterations):
    """K = ⌈ln n⌉ by default (the paper's N₀ ≍ log n), else the (declared and checked) ``n_iterations``."""
    if n_iterations is None:
        return max(1, math.ceil(math.log(n_samples)))
    return n_iterations


@validate_params({"n_samples": POSITIVE_INT, "n_features": POSITIVE_INT, "epsilon": Epsilon(),
                  "delta": Delta(allow_zero=False), "truncation": NORMAL_SCALE, "n_iterations": OrNone(POSITIVE_INT),
                  "x_bound": POSITIVE, "accountant": Options(("gaussian", "advanced")),
                  "row_norm": NORMAL_SCALE_OR_NONE})
def dp_gradient_descent_sigma(n_samples, n_features, epsilon, delta, truncation, n_iterations=None, x_bound=1.0,
                              accountant="gaussian", row_norm=None):
    """Per-step noise σ_GD of Algorithm 5.11: the analytic Gaussian σ for sensitivity Δ₂·√K at (ε, δ).

    One replaced record moves the clipped mean gradient by at most
    Δ₂ = 4c_x√d·T/n in ℓ₂ (Lemma 5.5 in ℓ₂). K adaptively composed Gaussian
    mechanisms, each of ℓ₂ sensitivity Δ₂ and noise N(0, σ² I), are exactly as
    private as *one* Gaussian mechanism of sensitivity Δ₂√K (Gaussian
    differential privacy: each step is (Δ₂/σ)-GDP and μ-GDP composes to
    √(Σμ²)-GDP; Dong, Roth & Su 2022, Cor. 3.3). So σ = ``gaussian_sigma(Δ₂√K,
    ε, δ)`` (Theorem 1.10, analytic) makes the K steps (ε, δ)-DP, with no slack:
    ``gaussian_delta(σ, Δ₂√K, ε) == δ`` up to rounding. This replaces the
    earlier calibration, kept as ``accountant="advanced"`` for comparison only:
    per-step ε_k of advanced composition (Theorem 1.17) for K steps at δ/2, and
    σ = ``gaussian_sigma(Δ₂, ε_k, δ/(2K))``; also (ε, δ)-DP, but with 2.7–4.2
    times more noise at d = 20, ε = 1, n = 10³–10⁷.

    Parameters
    ----------
    n_samples : int, n >= 1
    n_features : int, d >= 1
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    truncation : float, 1e-150 <= T <= 1e150
    n_iterations : int or None, K >= 1 (None: ⌈ln n⌉)
    x_bound : float, c_x > 0
    accountant : {"gaussian", "advanced"}
        "gaussian" (default): exact Gaussian composition; "advanced": the superseded
        advanced-composition calibration.
    row_norm : float or None, R > 0
        Rows bounded in ℓ₂ instead: ‖x_i‖₂ <= R, so Δ₂ = 4RT/n with no √d (issue 33); ``x_bound`` is then unused.

    Returns
    -------
    float

    Examples
    --------
    >>> round(dp_gradient_descent_sigma(n_samples=40, n_features=6, epsilon=1.0, delta=1e-5, truncation=2.0,
    ...                                 n_iterations=3), 4)
    3.1655
    """
    n_iterations = _dp_gd_iterations(n_samples, n_iterations)
    row_bound = x_bound * math.sqrt(n_features) if row_norm is None else row_norm  # the largest ‖x_i‖₂
    sensitivity = 4 * row_bound * truncation / n_samples
    if accountant == "advanced":
        epsilon_step = composition.advanced_composition_epsilon_per_step(epsilon, n_iterations, delta / 2)
        return gaussian_sigma(sensitivity, epsilon_step, delta / (2 * n_iterations))
    return gaussian_sigma(sensitivity * math.sqrt(n_iterations), epsilon, delta)


@privacy_claim(theorem="alg-dp-gd-ols", epsilon="epsilon", delta="delta")
@validate_params({"X": Array(ndim=2), "y": Array(ndim=1), "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "truncation": NORMAL_SCALE, "n_iterations": OrNone(POSITIVE_INT), "step_size": POSITIVE,
                  "rng": "random_state", "x_bound": POSITIVE, "row_norm": NORMAL_SCALE_OR_NONE},
                 relations=[SameLength("X", "y")])
def dp_gradient_descent_ols(X, y, epsilon, delta, truncation, n_iterations=None, step_size=1.0, rng=None,
                            x_bound=1.0, row_norm=None):
    """Noisy gradient descent for least squares with clipped residuals: rigorously (ε, δ)-DP (Algorithm 5.11).

    Our rigorous alternative to :func:`noisy_ols` (the later version of the paper
    also moves to noisy gradient descent). From β₀ = 0, K times on the *full* data::

        r_i = Π_{[−2T,2T]}(x_i'β − f_T(y_i)),   g = (1/n) Σ x_i r_i,   β ← β − η (g + N(0, σ_GD² I_d))

    Privacy: X is clipped to [−c_x, c_x] (or each row to ‖x_i‖₂ <= R), so ‖x_i r_i‖₂ <= 2T·c_x√d (or 2TR)
    and one replaced record moves g by at most Δ₂ = 4c_x√d·T/n (or 4RT/n) in ℓ₂, whatever β is.
    The K steps are adaptively composed Gaussian mechanisms; σ_GD =
    :func:`dp_gradient_descent_sigma` calibrates their exact (Gaussian-DP)
    composition to (ε, δ), so the output is (ε, δ)-DP on every dataset.

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    y : array_like, shape (n,), finite
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    truncation : float, 1e-150 <= T <= 1e150
    n_iterations : int or None, K >= 1 (None: ⌈ln n⌉)
    step_size : float, η > 0
    rng : None, int or numpy.random.Generator
    x_bound : float, c_x > 0
    row_norm : float or None, R > 0
        Clip each row to ‖x_i‖₂ <= R instead of each entry to c_x: Δ₂ = 4RT/n, without the √d of the entrywise
        bound (issue 33); for rows scaled to unit norm, R = 1.

    Returns
    -------
    ndarray, shape (d,)
        Cost O(K·n·d).

    Raises
    ------
    TypeError, ValueError
        For bad arrays or parameters.

    Notes
    -----
    No intercept is fitted: append a public constant column (its coefficient is the intercept; under
    ``row_norm`` it counts in the row's norm), and centre y only by a public value, never by its mean.
    When it cannot beat predicting zero: the noise adds about (ησ_GD)²·K·d to E‖β̂ − β‖² (K steps, each
    N(0, σ_GD²I_d), for small ηK), while the zero predictor's excess is ‖β‖²-sized; so if
    η·σ_GD·√(Kd) (public, from :func:`dp_gradient_descent_sigma`) exceeds a public guess of ‖β‖, predict 0.

    Examples
    --------
    >>> X = np.random.default_rng(1).choice([-1.0, 1.0], size=(40, 6))
    >>> dp_gradient_descent_ols(X, X[:, 0], epsilon=1.0, delta=1e-5, truncation=2.0, n_iterations=3, rng=0).shape
    (6,)
    """
    n_samples, n_features = X.shape
    n_iterations = _dp_gd_iterations(n_samples, n_iterations)
    check_work(("n_iterations", n_iterations), ("n", n_samples), ("d", n_features))  # a full gradient per step
    sigma = dp_gradient_descent_sigma(n_samples, n_features, epsilon, delta, truncation, n_iterations, x_bound,
                                      row_norm=row_norm)
    X = np.clip(X, -x_bound, x_bound) if row_norm is None else clip_rows(X, row_norm)
    target = truncate(y, truncation)
    beta = np.zeros(n_features)
    for _ in range(n_iterations):
        residual = np.clip(X @ beta - target, -2 * truncation, 2 * truncation)
        gradient = X.T @ residual / n_samples
        beta = beta - step_size * (gradient + rng.normal(0.0, sigma, size=n_features))
    return beta
