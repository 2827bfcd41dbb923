"""Private linear regression (chapter 5): the private LASSO of Cai, Wang & Zhang, and noisy OLS.

Read top to bottom, the module follows the chapter:

* one gradient step of Algorithm 5.4 on one block of data, with the response
  truncated at T and the residuals clipped at 2T, and the ℓ∞ sensitivity
  λ = 4ηc_xT/m that this clipping guarantees (Lemma 5.5);
* :class:`DPLasso`, Algorithm 5.4 (the paper's Algorithm 4, "Differentially
  Private LASSO"): iterative hard thresholding on N₀ disjoint blocks, each step
  privatised by :func:`~dpteach.peeling.peel` (Algorithm 5.2);
* :func:`noisy_ols`, the estimator of the paper's Theorem 19 (OLS on the
  truncated response plus Gaussian noise), whose privacy holds only on a
  high-probability event, and :func:`dp_gradient_descent_ols`, a rigorous
  alternative (noisy gradient descent with clipped per-example gradients).

The non-private baselines (split IHT, the LASSO by ISTA, OLS) are in
:mod:`dpteach.regression_baselines`; Peeling and its accountant are in
:mod:`dpteach.peeling` and re-exported here.

Neighbouring datasets differ in one replaced record (x_i, y_i). Covariates are
assumed bounded, |x_ij| <= c_x (``x_bound``); the private routines clip X to
[−c_x, c_x] so that the sensitivity bounds hold for every input.
"""

from __future__ import annotations

import math

import numpy as np

from . import composition
from ._estimator import Estimator
from ._validation import (as_rng, check_choice, check_delta, check_epsilon, check_finite_array, check_int,
                          check_positive, check_same_length, check_work)
from .mechanisms import gaussian_sigma
from .peeling import _noise_scale, _peel_rows, peel, peeling_epsilon, peeling_noise_scale

__all__ = [
    "peel",
    "peeling_epsilon",
    "peeling_noise_scale",
    "default_truncation",
    "dp_lasso_sensitivity",
    "lasso_gradient_step",
    "DPLasso",
    "noisy_ols_noise_std",
    "noisy_ols",
    "dp_gradient_descent_ols",
]


# --- shared checks --------------------------------------------------------------------------

def _check_design(X, y):
    X = check_finite_array(X, "X", ndim=2)
    y = check_finite_array(y, "y", ndim=1)
    check_same_length(X, y, "X", "y")
    return X, y


def _truncate(y, truncation):
    """f_T(y): coordinatewise projection onto [−T, T] (the paper's f_T)."""
    return np.clip(y, -truncation, truncation)


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
    """
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    noise_std = check_positive(noise_std, "noise_std")
    signal_norm = check_positive(signal_norm, "signal_norm", allow_zero=True)
    return math.sqrt(noise_std ** 2 + signal_norm ** 2) * math.sqrt(2 * math.log(n_samples))


# --- one step of Algorithm 5.4 and its sensitivity (Lemma 5.5) -------------------------------------

def dp_lasso_sensitivity(block_size, truncation, step_size=1.0, x_bound=1.0):
    """λ = 4·η·c_x·T/m, the ℓ∞ sensitivity of one clipped gradient step (Lemma 5.5).

    Replacing one record of the block changes one term x_i r_i of the step
    v = β − (η/m) Σ x_i r_i; with |x_ij| <= c_x and residuals clipped to
    |r_i| <= 2T, every coordinate moves by at most (η/m)·c_x·(2T + 2T).
    With η = c_x = 1 this is the paper's 4T/(n/N₀).

    Parameters
    ----------
    block_size : int, m >= 1
    truncation : float, T > 0
    step_size : float, η > 0
    x_bound : float, c_x > 0

    Returns
    -------
    float
        λ > 0.
    """
    block_size = check_int(block_size, "block_size", minimum=1)
    truncation = check_positive(truncation, "truncation")
    step_size = check_positive(step_size, "step_size")
    x_bound = check_positive(x_bound, "x_bound")
    return _sensitivity(block_size, truncation, step_size, x_bound)


def _sensitivity(block_size, truncation, step_size, x_bound):
    return 4 * step_size * x_bound * truncation / block_size


def _gradient_step(X, y, beta, step_size, truncation, clip_residual):
    """v = β − (η/m) Xᵀ r with r = x'β − f_T(y), clipped to [−2T, 2T] if asked. O(m·d)."""
    residual = X @ beta - _truncate(y, truncation)
    if clip_residual:
        residual = np.clip(residual, -2 * truncation, 2 * truncation)
    return beta - (step_size / X.shape[0]) * (X.T @ residual)


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
    truncation : float, T > 0
    clip_residual : bool

    Returns
    -------
    ndarray, shape (d,)
        The half-step β^{(t+0.5)}. Cost O(m·d).

    Raises
    ------
    TypeError, ValueError
        For non-finite or mis-shaped arrays, or η, T out of range.
    """
    X, y = _check_design(X, y)
    beta = check_finite_array(beta, "beta", shape=(X.shape[1],))
    step_size = check_positive(step_size, "step_size")
    truncation = check_positive(truncation, "truncation")
    if not isinstance(clip_residual, (bool, np.bool_)):
        raise TypeError(f"clip_residual must be True or False, got {clip_residual!r}")
    return _gradient_step(X, y, beta, step_size, truncation, bool(clip_residual))


def _block_indices(n_samples, n_blocks, rng):
    """A uniformly random split into N₀ disjoint blocks of m = ⌊n/N₀⌋ indices (line 2).

    Drawn independently of the data, so a replaced record lands in the same
    block in both runs (what parallel composition needs). Left-over rows are dropped.
    """
    block_size = n_samples // n_blocks
    permutation = rng.permutation(n_samples)
    return permutation[:block_size * n_blocks].reshape(n_blocks, block_size)


# --- Algorithm 5.4: the private LASSO ------------------------------------------------------------

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
    calibrate : {"paper", "accountant"}
        Peeling's noise calibration, see :func:`~dpteach.peeling.peeling_noise_scale`.
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

    Cost: O(n·d) for the whole fit (each record is used once) plus O(N₀·ŝ·d) for Peeling.
    """

    _fitted_attribute = "coef_"

    def __init__(self, epsilon, delta, sparsity, step_size=1.0, truncation=None, n_iterations=None,
                 random_state=None, clip_residual=True, calibrate="paper", x_bound=1.0):
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

    def _validated_parameters(self, n_samples, n_features):
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta, allow_zero=False)
        sparsity = check_int(self.sparsity, "sparsity", minimum=1, maximum=n_features)
        step_size = check_positive(self.step_size, "step_size")
        truncation = (default_truncation(max(n_samples, 2)) if self.truncation is None
                      else check_positive(self.truncation, "truncation"))
        n_blocks = (max(1, math.ceil(math.log(n_samples))) if self.n_iterations is None
                    else check_int(self.n_iterations, "n_iterations", minimum=1, maximum=n_samples))
        if not isinstance(self.clip_residual, (bool, np.bool_)):
            raise TypeError(f"clip_residual must be True or False, got {self.clip_residual!r}")
        check_choice(self.calibrate, "calibrate", ("paper", "accountant"))
        x_bound = check_positive(self.x_bound, "x_bound")
        return epsilon, delta, sparsity, step_size, truncation, n_blocks, x_bound

    def fit(self, X, y):
        """Run Algorithm 5.4 on (X, y) and return ``self``.

        Raises
        ------
        TypeError, ValueError
            For NaN/inf or mis-shaped X, y of the wrong length, ŝ < 1 or ŝ > d,
            ε <= 0, δ not in (0, 1), N₀ > n, and other out-of-range parameters.
        """
        X, y = _check_design(X, y)
        (epsilon, delta, sparsity, step_size, truncation, n_blocks,
         x_bound) = self._validated_parameters(*X.shape)
        rng = as_rng(self.random_state, "random_state")
        blocks = _block_indices(X.shape[0], n_blocks, rng)
        block_size = blocks.shape[1]
        sensitivity = _sensitivity(block_size, truncation, step_size, x_bound)
        scale = _noise_scale(sparsity, epsilon, delta, sensitivity, self.calibrate)
        beta = np.zeros(X.shape[1])
        supports = []
        for rows in blocks:
            X_block = np.clip(X[rows], -x_bound, x_bound)
            half_step = _gradient_step(X_block, y[rows], beta, step_size, truncation, bool(self.clip_residual))
            beta = _peel_rows(half_step[None, :], sparsity, scale, rng)[0]
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
        return self

    def predict(self, X):
        """X·β̂ for X of shape (k, d). Raises NotFittedError before ``fit``."""
        X = self._check_predict_input(X)
        return X @ self.coef_

    def score(self, X, y):
        """The coefficient of determination R² = 1 − Σ(y − ŷ)²/Σ(y − ȳ)² of ``predict(X)``."""
        self._check_fitted()
        X, y = _check_design(X, y)
        prediction = self.predict(X)
        total = float(np.sum((y - y.mean()) ** 2))
        residual = float(np.sum((y - prediction) ** 2))
        return 1.0 - residual / total if total > 0 else (1.0 if residual == 0 else 0.0)


# --- the classical setting: noisy OLS (Theorem 5.10) and DP gradient descent ---------------------------

def noisy_ols_noise_std(n_samples, n_features, epsilon, delta, truncation, noise_multiplier=1.0):
    """Per-coordinate standard deviation of W in noisy OLS: √(c_W·d·T²·ln(1.25/δ))/(n·ε).

    The paper's Theorem 19 (our reconstruction of its garbled covariance)
    adds W ~ N(0, d T² ln(1.25/δ)/(n² ε²) I_d), with constants absorbed;
    ``noise_multiplier`` c_W scales the *variance* (our bound for a rigorous
    calibration on the high-probability event is c_W = 128Λ²c_x²; about 6 sufficed
    empirically for a Rademacher design).

    Parameters
    ----------
    n_samples : int, n >= 1
    n_features : int, d >= 1
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    truncation : float, T > 0
    noise_multiplier : float, c_W > 0

    Returns
    -------
    float
    """
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    n_features = check_int(n_features, "n_features", minimum=1)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    truncation = check_positive(truncation, "truncation")
    noise_multiplier = check_positive(noise_multiplier, "noise_multiplier")
    return math.sqrt(noise_multiplier * n_features * truncation ** 2 * math.log(1.25 / delta)) / (
        n_samples * epsilon)


def noisy_ols(X, y, epsilon, delta, truncation, rng=None, noise_multiplier=1.0):
    """Noisy OLS, the estimator of Theorem 5.10 (the paper's Theorem 19): β̂(X, f_T(y)) + W.

    β̂(X, f_T(y)) = (XᵀX)⁻¹Xᵀf_T(y) and W ~ N(0, σ_W² I_d) with σ_W =
    :func:`noisy_ols_noise_std`. **Caveat: this is (ε, δ)-DP only on a
    high-probability event** (the paper: "with high probability, β̂_T is
    (ε, δ)-differentially private"). The ℓ₂ sensitivity of OLS is bounded only
    when λ_min(XᵀX) >= n/(2Λ) for both neighbours and |x'β̂| <= T, which are
    properties of the data, not guarantees; on an unlucky or adversarial dataset
    the release can reveal a record. Use :func:`dp_gradient_descent_ols` for a
    guarantee that always holds.

    Parameters
    ----------
    X : array_like, shape (n, d), finite, with XᵀX invertible (n >= d)
    y : array_like, shape (n,), finite
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    truncation : float, T > 0
    rng : None, int or numpy.random.Generator
    noise_multiplier : float, c_W > 0 (1 is the paper's formula)

    Returns
    -------
    ndarray, shape (d,)
        Cost O(n·d² + d³).

    Raises
    ------
    TypeError, ValueError
        For bad arrays or parameters, n < d, or a singular XᵀX.
    """
    X, y = _check_design(X, y)
    n_samples, n_features = X.shape
    if n_samples < n_features:
        raise ValueError(f"X must have at least as many rows as columns (n >= d) for OLS, got n={n_samples}, "
                         f"d={n_features}")
    std = noisy_ols_noise_std(n_samples, n_features, epsilon, delta, truncation, noise_multiplier)
    rng = as_rng(rng)
    gram = X.T @ X
    if np.linalg.matrix_rank(gram) < n_features:
        raise ValueError("X must have full column rank (X'X invertible) for OLS, got a singular X'X")
    beta = np.linalg.solve(gram, X.T @ _truncate(y, truncation))
    return beta + rng.normal(0.0, std, size=n_features)


def dp_gradient_descent_ols(X, y, epsilon, delta, truncation, n_iterations=None, step_size=1.0, rng=None,
                            x_bound=1.0):
    """Noisy gradient descent for least squares with clipped residuals: rigorously (ε, δ)-DP (Algorithm 5.11).

    Our rigorous alternative to :func:`noisy_ols` (the later version of the paper
    also moves to noisy gradient descent). From β₀ = 0, K times on the *full* data::

        r_i = Π_{[−2T,2T]}(x_i'β − f_T(y_i)),   g = (1/n) Σ x_i r_i,   β ← β − η (g + N(0, σ² I_d))

    Privacy: X is clipped to [−c_x, c_x], so ‖x_i r_i‖₂ <= 2T·c_x√d and one
    replaced record moves g by at most Δ₂ = 4c_x√d·T/n in ℓ₂. Each step is the
    Gaussian mechanism with σ = ``gaussian_sigma(Δ₂, ε_k, δ/(2K))`` (analytic),
    where ε_k = ``composition.advanced_composition_epsilon_per_step(ε, K, δ/2)``;
    by advanced composition over the K steps the output is (ε, δ)-DP, always.

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    y : array_like, shape (n,), finite
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    truncation : float, T > 0
    n_iterations : int or None, K >= 1 (None: ⌈ln n⌉)
    step_size : float, η > 0
    rng : None, int or numpy.random.Generator
    x_bound : float, c_x > 0

    Returns
    -------
    ndarray, shape (d,)
        Cost O(K·n·d).

    Raises
    ------
    TypeError, ValueError
        For bad arrays or parameters.
    """
    X, y = _check_design(X, y)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    truncation = check_positive(truncation, "truncation")
    n_samples, n_features = X.shape
    n_iterations = (max(1, math.ceil(math.log(n_samples))) if n_iterations is None
                    else check_int(n_iterations, "n_iterations", minimum=1))
    check_work(("n_iterations", n_iterations), ("n", n_samples), ("d", n_features))  # a full gradient per step
    step_size = check_positive(step_size, "step_size")
    x_bound = check_positive(x_bound, "x_bound")
    rng = as_rng(rng)
    sensitivity = 4 * x_bound * math.sqrt(n_features) * truncation / n_samples
    epsilon_step = composition.advanced_composition_epsilon_per_step(epsilon, n_iterations, delta / 2)
    sigma = gaussian_sigma(sensitivity, epsilon_step, delta / (2 * n_iterations))
    X = np.clip(X, -x_bound, x_bound)
    target = _truncate(y, truncation)
    beta = np.zeros(n_features)
    for _ in range(n_iterations):
        residual = np.clip(X @ beta - target, -2 * truncation, 2 * truncation)
        gradient = X.T @ residual / n_samples
        beta = beta - step_size * (gradient + rng.normal(0.0, sigma, size=n_features))
    return beta
