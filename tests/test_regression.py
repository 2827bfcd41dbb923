"""Tests of dpteach.regression (chapter 5): the private LASSO, its sensitivity, noisy OLS, DP-GD.

Statistical tolerances are derived in comments from the quantities the test
computes itself; the reference error of the private LASSO comes from a
measured run of chapter 5's E1 setting (ε = 4, n = 1e5, d = 200, s = 5,
ŝ = 10: mean 0.17, standard deviation 0.05 over 5 repetitions).
"""

import math
import warnings

import numpy as np
import pytest

from dpteach import peeling, regression as r
from dpteach._estimator import NotFittedError
from dpteach.data import linear_regression_data, sparse_regression_data
from dpteach.mechanisms import gaussian_sigma
from dpteach.regression_baselines import hard_threshold, lasso_ista, ols, split_iht


# --- Lemma 5.5: the sensitivity of one step -----------------------------------------------------------

def _random_neighbours(rng, m, d, truncation):
    """A random block and a replace-one neighbour, with a large β so that |x'β| > T often."""
    X = rng.choice([-1.0, 1.0], size=(m, d))
    y = rng.normal(0, 3 * truncation, size=m)  # many |y| > T: truncation matters too
    beta = rng.normal(0, 2 * truncation / math.sqrt(d), size=d) * rng.choice([0.2, 1.0, 5.0])
    i = rng.integers(m)
    X_prime, y_prime = X.copy(), y.copy()
    X_prime[i] = rng.choice([-1.0, 1.0], size=d)
    y_prime[i] = rng.choice([-1, 1]) * rng.exponential(5 * truncation)
    return X, y, X_prime, y_prime, beta


def test_one_step_sensitivity_holds_with_residual_clipping_and_fails_without():
    # Property test over 200 random neighbours: ‖v(D) − v(D')‖∞ <= λ = 4ηT/m with clipping
    # (Lemma 5.5); the same neighbours break the bound without clipping (|x'β| > T happens).
    rng = np.random.default_rng(2024)
    m, d, truncation, eta = 25, 8, 1.5, 1.0
    lam = r.dp_lasso_sensitivity(m, truncation, eta)
    assert lam == pytest.approx(4 * eta * truncation / m)
    worst_clipped, worst_unclipped = 0.0, 0.0
    for _ in range(200):
        X, y, X_prime, y_prime, beta = _random_neighbours(rng, m, d, truncation)
        for clip in (True, False):
            change = np.max(np.abs(r.lasso_gradient_step(X, y, beta, eta, truncation, clip)
                                   - r.lasso_gradient_step(X_prime, y_prime, beta, eta, truncation, clip)))
            if clip:
                worst_clipped = max(worst_clipped, change)
            else:
                worst_unclipped = max(worst_unclipped, change)
    assert worst_clipped <= lam * (1 + 1e-12)
    assert worst_clipped > 0.5 * lam  # the random search gets near the bound, so the test has teeth
    assert worst_unclipped > 1.5 * lam


def test_step_is_the_plain_gradient_step_when_nothing_is_clipped():
    rng = np.random.default_rng(0)
    X = rng.choice([-1.0, 1.0], size=(40, 6))
    y = rng.uniform(-1, 1, size=40)
    beta = rng.uniform(-0.1, 0.1, size=6)  # |x'β| <= 0.6 < T = 2 and |y| <= 1 < T
    v = r.lasso_gradient_step(X, y, beta, 0.7, 2.0)
    assert np.allclose(v, beta - 0.7 / 40 * (X.T @ (X @ beta - y)))


# --- DPLasso ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def reference_data():
    n, d, s = 100_000, 200, 5
    return [sparse_regression_data(n, d, s, rng=seed) for seed in (101, 102)]


def test_dp_lasso_error_at_the_reference_setting(reference_data):
    # Reference: mean 0.17, sd 0.05 per fit. The mean of 2 fits has sd 0.05/√2 = 0.035; a 5-sd
    # allowance gives 0.17 + 0.18 = 0.35. Far below 1 (the trivial estimator β̂ = 0), and a Peeling
    # with λ not divided by m (10⁴ times more noise) or the √s forgotten on the wrong side would fail.
    errors, times = [], []
    for seed, (X, y, beta) in enumerate(reference_data):
        n = X.shape[0]
        model = r.DPLasso(4.0, min(1e-5, n ** -1.1), 10, random_state=seed).fit(X, y)
        errors.append(np.linalg.norm(model.coef_ - beta))
        assert np.count_nonzero(model.coef_) <= 10
        assert model.n_iter_ == math.ceil(math.log(n)) == 12
        assert model.block_size_ == n // 12
        assert model.sensitivity_ == pytest.approx(4 * model.truncation_ / model.block_size_)
    assert np.mean(errors) < 0.35


def test_dp_lasso_is_fast(reference_data):
    import time
    X, y, _ = reference_data[0]
    # CPU time of this process, not wall time: other processes on a busy machine do not count.
    # Measured ≈ 0.1 s; the issue asks for "well under a second".
    start = time.process_time()
    r.DPLasso(4.0, 1e-5, 10, random_state=0).fit(X, y)
    assert time.process_time() - start < 1.0


def test_dp_lasso_error_slope_against_n():
    # ε = 2, d = 50, s = 3, ŝ = 6, n from 1e4 to 8e4, 4 fits per n. The privacy term of
    # Theorem 5.7 (s√log(1/δ)·log d·log^{3/2} n/(nε)) has local slope −1 + 1.5/ln n ∈ [−0.87, −0.84]
    # here, the statistical term −1/2 (+ a log), and at n = 1e4 the error is near 1 (wrong
    # selections, the "∧ 1" regime), which steepens the fit. Band [−1.25, −0.6]: it excludes a noise
    # that does not shrink with n (slope ≈ 0) and a purely statistical curve (−0.5). Measured: −0.93.
    ns = np.array([10_000, 20_000, 40_000, 80_000])
    mean_errors = []
    for n in ns:
        errs = []
        for rep in range(4):
            X, y, beta = sparse_regression_data(int(n), 50, 3, rng=1000 * rep + int(n))
            errs.append(np.linalg.norm(r.DPLasso(2.0, 1e-5, 6, random_state=rep).fit(X, y).coef_ - beta))
        mean_errors.append(np.mean(errs))
    slope = np.polyfit(np.log(ns), np.log(mean_errors), 1)[0]
    assert -1.25 <= slope <= -0.6, (slope, mean_errors)


def test_dp_lasso_approaches_non_private_iht_as_epsilon_grows():
    X, y, beta = sparse_regression_data(20_000, 40, 3, rng=5)
    iht = split_iht(X, y, 6, rng=9)
    distances = [np.linalg.norm(r.DPLasso(eps, 1e-5, 6, random_state=9).fit(X, y).coef_ - iht)
                 for eps in (1.0, 1e2, 1e4, 1e6)]
    assert all(a > b for a, b in zip(distances, distances[1:]))
    # At ε = 1e6 the noise scale b is about 1e-7 (λ ≈ 1e-3 times 2√(3·6·11.5)/1e6), so the selections
    # coincide and the iterates differ by O(b·√ŝ·N₀) at most.
    assert distances[-1] < 1e-4
    assert np.array_equal(r.DPLasso(1e6, 1e-5, 6, random_state=9).fit(X, y).coef_ != 0, iht != 0)


def test_dp_lasso_estimator_interface():
    X, y, beta = sparse_regression_data(5_000, 20, 2, rng=3)
    model = r.DPLasso(2.0, 1e-5, 4, random_state=7)
    assert "DPLasso(epsilon=2.0" in repr(model)
    with pytest.raises(NotFittedError, match="not fitted"):
        model.predict(X)
    assert model.fit(X, y) is model
    again = r.DPLasso(2.0, 1e-5, 4, random_state=7).fit(X, y)
    assert np.array_equal(model.coef_, again.coef_)  # same seed, same result
    assert model.predict(X[:3]).shape == (3,)
    assert model.score(X, y) == pytest.approx(1 - np.sum((y - X @ model.coef_) ** 2) / np.sum((y - y.mean()) ** 2))
    assert len(model.support_path_) == model.n_iter_
    # The default certifies the ε it is given (issue 33); the paper's calibration certifies Theorem 5.3's ε′.
    assert model.calibrate == "accountant" and model.epsilon_certified_ == 2.0
    paper = r.DPLasso(2.0, 1e-5, 4, random_state=7, calibrate="paper").fit(X, y)
    assert paper.epsilon_certified_ == pytest.approx(peeling.peeling_epsilon(4, 2.0, 1e-5))
    assert paper.noise_scale_ > model.noise_scale_  # the paper's calibration spends only ε′ < ε here
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :5])


@pytest.mark.parametrize("params, fit_args, error, match", [
    (dict(sparsity=21), None, ValueError, "sparsity must be an integer in \\[1, 20\\]"),
    (dict(sparsity=0), None, ValueError, "sparsity"),
    (dict(epsilon=0.0), None, ValueError, "epsilon"),
    (dict(epsilon=-2.0), None, ValueError, "epsilon"),
    (dict(epsilon=float("inf")), None, ValueError, "epsilon"),
    (dict(epsilon="1"), None, TypeError, "epsilon"),
    (dict(delta=0.0), None, ValueError, "delta"),
    (dict(delta=1.0), None, ValueError, "delta"),
    (dict(delta=1.5), None, ValueError, "delta"),
    (dict(truncation=0.0), None, ValueError, "truncation"),
    (dict(n_iterations=0), None, ValueError, "n_iterations"),
    (dict(clip_residual="yes"), None, TypeError, "clip_residual"),
    (dict(calibrate="best"), None, ValueError, "calibrate"),
    (dict(random_state="x"), None, TypeError, ""),
    ({}, "nan_X", ValueError, "X must contain only finite"),
    ({}, "short_y", ValueError, "same number of samples"),
    ({}, "y_2d", ValueError, "y must have 1"),
])
def test_dp_lasso_rejects_bad_input(params, fit_args, error, match):
    X, y, _ = sparse_regression_data(200, 20, 2, rng=0)
    if fit_args == "nan_X":
        X[3, 4] = np.nan
    elif fit_args == "short_y":
        y = y[:-1]
    elif fit_args == "y_2d":
        y = y[:, None]
    base = dict(epsilon=1.0, delta=1e-5, sparsity=3)
    base.update(params)
    with pytest.raises(error, match=match or None):
        r.DPLasso(**base).fit(X, y)


# --- noisy OLS and DP-GD -------------------------------------------------------------------------------

def test_noisy_ols_noise_has_the_stated_covariance():
    # W = noisy_ols − OLS(X, f_T(y)) over 2000 draws in d = 5: 10 000 Gaussian values. The
    # sample variance has relative sd √(2/10 000) = 1.4 %; a 6-sd band is ±8.5 %. The off-diagonal
    # correlations have sd 1/√2000 = 0.022; 6 sd = 0.13. Variance computed here from the formula
    # d T² ln(1.25/δ)/(n² ε²); a variance 30 % off (or the d forgotten) falls far outside the band.
    X, y, _ = linear_regression_data(300, 5, rng=1)
    n, d, eps, delta, T = 300, 5, 0.5, 1e-5, 2.0
    exact = np.linalg.solve(X.T @ X, X.T @ np.clip(y, -T, T))
    rng = np.random.default_rng(7)
    # The explicit c_W path (the paper's variance × c_W); the default is the calibration tested below.
    W = np.array([r.noisy_ols(X, y, eps, delta, T, rng=rng, noise_multiplier=1.0) - exact for _ in range(2000)])
    variance = d * T ** 2 * math.log(1.25 / delta) / (n ** 2 * eps ** 2)
    assert abs(np.mean(W ** 2) / variance - 1) < 0.085
    assert abs(np.mean(W ** 2) / (1.3 * variance) - 1) > 0.085
    correlations = np.corrcoef(W.T)[np.triu_indices(d, 1)]
    assert np.max(np.abs(correlations)) < 0.13
    assert np.max(np.abs(W.mean(axis=0))) < 6 * math.sqrt(variance / 2000)
    assert r.noisy_ols_noise_std(n, d, eps, delta, T, noise_multiplier=1.0) == pytest.approx(math.sqrt(variance))
    assert r.noisy_ols_noise_std(n, d, eps, delta, T, noise_multiplier=6.0) == pytest.approx(math.sqrt(6 * variance))


def test_noisy_ols_default_is_the_gaussian_calibration_of_the_sensitivity_on_the_event():
    # Default σ_W = analytic Gaussian σ for Δ₂ = 8Λc_x√d·T/n (computed here from the formula), at most the
    # classic 128Λ²c_x²·(paper's variance) when ε ≤ 1; the sensitivity bound holds on random neighbours in E.
    n, d, eps, delta, T = 300, 5, 0.5, 1e-5, 2.0
    for lam, c_x in ((1.0, 1.0), (2.0, 0.5), (3.0, 2.0)):
        sensitivity = 8 * lam * c_x * math.sqrt(d) * T / n
        assert r.noisy_ols_sensitivity(n, d, T, lam, c_x) == pytest.approx(sensitivity)
        sigma = r.noisy_ols_noise_std(n, d, eps, delta, T, condition_bound=lam, x_bound=c_x)
        assert sigma == pytest.approx(gaussian_sigma(sensitivity, eps, delta))
        classic = math.sqrt(128 * lam ** 2 * c_x ** 2 * d * T ** 2 * math.log(1.25 / delta)) / (n * eps)
        assert sigma <= classic
    assert r.noisy_ols_noise_std(n, d, eps, delta, T) > 6 * r.noisy_ols_noise_std(n, d, eps, delta, T, noise_multiplier=1.0)
    # On E (Rademacher rows, λ_min(XᵀX) ≥ n/2, |xᵀβ̂| ≤ T) replacing one record moves β̂ by at most Δ₂.
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(200):
        X = np.where(rng.random((n, d)) < 0.5, 1.0, -1.0)
        y = np.clip(rng.normal(0, 3, n), -T, T)
        X2, y2 = X.copy(), y.copy()
        X2[0], y2[0] = np.where(rng.random(d) < 0.5, 1.0, -1.0), -np.sign(y[0]) * T
        for A in (X, X2):
            assert np.linalg.eigvalsh(A.T @ A)[0] >= n / 2
        b1, b2 = (np.linalg.solve(A.T @ A, A.T @ b) for A, b in ((X, y), (X2, y2)))
        assert np.max(np.abs(X @ b1)) <= T and np.max(np.abs(X2 @ b2)) <= T
        worst = max(worst, np.linalg.norm(b1 - b2))
    assert worst <= r.noisy_ols_sensitivity(n, d, T)


def test_noisy_ols_p3_audit_catches_the_old_default_and_passes_the_calibrated_one():
    # The reliability review's P3 pair: Rademacher X (100 × 2), y = 0 except y₀ = +T vs −T, T = 2, ε = 1,
    # δ = 10⁻³. The old default (the paper's variance, c_W = 1, kept as broken_noisy_ols_paper_variance)
    # has exact ε ≈ 2.15 on this pair: the audit certifies it above the claim. The calibrated default
    # moves the mean by 0.1σ here, far from any violation. Events: {⟨β̂, u⟩ > t}, u the direction
    # β̂ moves, t from the midpoint of the two means out to 3.5σ; chosen on 10⁴ runs, certified on 2·10⁴.
    from dpteach import audit
    rng = np.random.default_rng(3)
    X = np.where(rng.random((100, 2)) < 0.5, 1.0, -1.0)
    T, eps, delta = 2.0, 1.0, 1e-3
    y = np.zeros(100)
    y_neighbour = y.copy()
    y[0], y_neighbour[0] = T, -T
    move = np.linalg.solve(X.T @ X, X[0]) * 2 * T
    u = move / np.linalg.norm(move)
    results = {}
    for name, multiplier in (("calibrated", None), ("old default", 1.0)):
        def mechanism(labels, n_trials, g, multiplier=multiplier, name=name):
            if name == "calibrated":
                return r.noisy_ols_releases(X, labels, eps, delta, T, g, None, 1.0, 1.0, n_trials) @ u
            return r.broken_noisy_ols_paper_variance(X, labels, eps, delta, T, g, n_trials) @ u
        sd = r.noisy_ols_noise_std(100, 2, eps, delta, T, multiplier)
        events = audit.threshold_events(move @ u / 2 + sd * np.linspace(0, 3.5, 15))
        results[name] = audit.audit(mechanism, y, y_neighbour, events, 20_000, delta=delta, confidence=0.95,
                                    n_select=10_000, rng=1).epsilon_lower
    assert results["old default"] > eps      # measured 1.41
    assert results["calibrated"] <= eps      # measured 0.05


def test_noisy_ols_accepts_every_finite_record_and_clips_it():
    # One covariate at 1e300 / the largest double / −1e300 is clipped to ±c_x: the release is finite,
    # without warnings, and equals the release on the record clipped by hand (same seed).
    X, y, _ = linear_regression_data(50, 3, rng=0)
    for value in (1e300, np.finfo(float).max, -1e300):
        extreme = X.copy()
        extreme[0, 1] = value
        clipped = X.copy()
        clipped[0, 1] = np.sign(value)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            released = r.noisy_ols(extreme, y, 1.0, 1e-5, 2.0, rng=4)
        assert np.all(np.isfinite(released))
        assert np.array_equal(released, r.noisy_ols(clipped, y, 1.0, 1e-5, 2.0, rng=4))


def test_dp_gradient_descent_ols_is_accurate_at_large_n_and_noisier_at_small_epsilon():
    X, y, beta = linear_regression_data(50_000, 5, rng=2)
    T = r.default_truncation(50_000)
    errors = [np.linalg.norm(r.dp_gradient_descent_ols(X, y, eps, 1e-6, T, rng=3) - beta) for eps in (0.1, 10.0)]
    # OLS error ≈ σ√(d/n) = 0.01; the ε = 10 noise is small, the ε = 0.1 one 100 times larger.
    assert errors[1] < 0.05
    assert errors[0] > errors[1]
    assert np.linalg.norm(ols(X, y) - beta) < 0.03


def _composed_gaussian_delta(sigma, sensitivity, n_steps, epsilon):
    """δ(ε) of K Gaussian steps (sensitivity Δ, noise σ) by integrating the privacy loss, independently of the code.

    On the worst pair each step's loss is N(μ²/2, μ²) with μ = Δ/σ, so the total loss is L ~ N(Kμ²/2, Kμ²),
    and the tight δ is E[(1 − e^{ε − L})₊] (the privacy-loss form of Lemma 1.4). Adaptivity cannot do worse
    (Gaussian DP composition, Dong, Roth & Su 2022). Numerical integration, not the Balle–Wang closed form
    that ``gaussian_sigma`` inverts.
    """
    from scipy import integrate, stats

    mu2 = n_steps * (sensitivity / sigma) ** 2
    law = stats.norm(mu2 / 2, math.sqrt(mu2))
    value, _ = integrate.quad(lambda loss: -math.expm1(epsilon - loss) * law.pdf(loss), epsilon, law.mean() + 40 * law.std(),
                              epsabs=1e-14, epsrel=1e-10, limit=200)
    return value


@pytest.mark.parametrize("n, d, epsilon, delta, n_iterations", [
    (1_000, 20, 1.0, 1e-5, None), (100_000, 20, 0.25, 1e-6, None), (500, 5, 4.0, 1e-3, 3), (2_000, 1, 1.0, 1e-5, 1)])
def test_dp_gradient_descent_sigma_certifies_epsilon_delta_exactly(n, d, epsilon, delta, n_iterations):
    T = r.default_truncation(n)
    K = n_iterations or math.ceil(math.log(n))
    sensitivity = 4 * math.sqrt(d) * T / n  # Δ₂ of Algorithm 5.11 with c_x = 1
    sigma = r.dp_gradient_descent_sigma(n, d, epsilon, delta, T, n_iterations)
    achieved = _composed_gaussian_delta(sigma, sensitivity, K, epsilon)
    # Certifies the claim (quadrature error ~1e-10 relative), and wastes no noise: δ is met with equality.
    assert achieved <= delta * (1 + 1e-6)
    assert achieved >= delta * (1 - 1e-3)
    # Broken variants: 10 % too little noise, or the √K of the composition forgotten, overspend δ.
    assert _composed_gaussian_delta(sigma / 1.1, sensitivity, K, epsilon) > 1.5 * delta
    if K > 1:
        forgot_root_k = sigma / math.sqrt(K)
        assert _composed_gaussian_delta(forgot_root_k, sensitivity, K, epsilon) > 10 * delta
    # zCDP is a valid but looser accounting of the same composition: its σ can only be larger.
    from dpteach.dp_erm import zcdp_gaussian_sigma
    assert sigma < zcdp_gaussian_sigma(sensitivity, K, epsilon, delta)


def test_dp_gradient_descent_sigma_improves_on_advanced_composition_by_the_stated_factor():
    # The docstring's "2.7–4.2 times more noise at d = 20, ε = 1, n = 10³–10⁷" for the superseded calibration.
    # Both are valid; the advanced one's per-step budget (Theorem 1.17) is checked in tests/test_composition.py.
    ratios = []
    for n in (1_000, 10_000, 100_000, 10_000_000):
        args = (n, 20, 1.0, 1e-5, r.default_truncation(n))
        ratios.append(r.dp_gradient_descent_sigma(*args, accountant="advanced") / r.dp_gradient_descent_sigma(*args))
    assert 2.65 < min(ratios) and max(ratios) < 4.25
    assert ratios == sorted(ratios)  # the gap grows with K = ⌈ln n⌉ (√log(1/δ)-type slack per step)
    with pytest.raises(ValueError, match="accountant"):
        r.dp_gradient_descent_sigma(*args, accountant="zcdp")


def test_dp_gradient_descent_ols_adds_the_calibrated_noise():
    # With X = 0 every gradient is 0, so β_K = −η Σ_k N(0, σ² I_d) ~ N(0, K η² σ² I_d): the output is the noise alone.
    n, d, K, eta = 50, 4, 3, 0.5
    X, y = np.zeros((n, d)), np.linspace(-3, 3, n)
    T = 2.0
    sigma = r.dp_gradient_descent_sigma(n, d, 1.0, 1e-5, T, K)
    rng = np.random.default_rng(11)
    draws = np.array([r.dp_gradient_descent_ols(X, y, 1.0, 1e-5, T, n_iterations=K, step_size=eta, rng=rng)
                      for _ in range(2_000)]).ravel()
    ratio = np.mean(draws ** 2) / (K * eta ** 2 * sigma ** 2)
    # 8000 N(0, 1) squares: the mean has sd √(2/8000) = 0.016; a 5-sd band is 0.08. A σ 10 % too small gives
    # ratio 1/1.21 = 0.83, outside the band.
    assert abs(ratio - 1) < 0.08
    assert abs(np.mean(draws)) < 5 * math.sqrt(K * eta ** 2 * sigma ** 2 / draws.size)


def test_classical_estimators_reject_bad_input():
    X, y, _ = linear_regression_data(50, 5, rng=0)
    with pytest.raises(ValueError, match="epsilon"):
        r.noisy_ols(X, y, 0.0, 1e-5, 1.0)
    with pytest.raises(ValueError, match="delta"):
        r.noisy_ols(X, y, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="n >= d"):
        r.noisy_ols(X[:3], y[:3], 1.0, 1e-5, 1.0)
    with pytest.raises(ValueError, match="same number"):
        r.dp_gradient_descent_ols(X, y[:-2], 1.0, 1e-5, 1.0)
    with pytest.raises(ValueError, match="delta"):
        r.dp_gradient_descent_ols(X, y, 1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="n_iterations"):
        r.dp_gradient_descent_sigma(50, 5, 1.0, 1e-5, 1.0, n_iterations=0)
    with pytest.raises(ValueError, match="x_bound"):
        r.dp_gradient_descent_sigma(50, 5, 1.0, 1e-5, 1.0, x_bound=-1.0)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        r.noisy_ols(X_nan, y, 1.0, 1e-5, 1.0)


# --- baselines -----------------------------------------------------------------------------------------

def test_baselines_recover_a_sparse_beta():
    X, y, beta = sparse_regression_data(20_000, 50, 3, rng=4)
    assert np.linalg.norm(split_iht(X, y, 6, rng=0) - beta) < 0.15
    assert np.linalg.norm(lasso_ista(X, y) - beta) < 0.15
    v = np.array([0.1, -3.0, 2.0, 0.5])
    assert np.array_equal(hard_threshold(v, 2), np.array([0.0, -3.0, 2.0, 0.0]))


# --- data, bounds and runners ----------------------------------------------------------------------------

def test_sparse_regression_data_has_the_stated_law():
    X, y, beta = sparse_regression_data(4000, 30, 4, noise_std=0.5, rng=1)
    assert X.shape == (4000, 30) and set(np.unique(X)) == {-1.0, 1.0}
    assert np.count_nonzero(beta) == 4 and np.linalg.norm(beta) == pytest.approx(1.0)
    nonzero = np.abs(beta[beta != 0])
    assert nonzero.max() / nonzero.min() <= 2 + 1e-12  # ±Unif[0.5, 1] before rescaling
    # Residual variance 0.25: the sample variance of 4000 Gaussians has relative sd √(2/4000) = 2.2 %; 6 sd.
    assert np.var(y - X @ beta) == pytest.approx(0.25, rel=0.14)
    # Σ_X = I: off-diagonal entries of XᵀX/n have sd 1/√4000 = 0.016; 6 sd = 0.095.
    gram = X.T @ X / 4000
    assert np.max(np.abs(gram - np.eye(30))) < 0.095
    X2, y2, beta2 = linear_regression_data(50, 7, rng=2)
    assert np.linalg.norm(beta2) == pytest.approx(1.0) and np.count_nonzero(beta2) == 7
    assert np.array_equal(sparse_regression_data(10, 5, 2, rng=3)[1], sparse_regression_data(10, 5, 2, rng=3)[1])
    with pytest.raises(ValueError, match="s must be"):
        sparse_regression_data(10, 5, 6)


def test_rate_shapes():
    from dpteach import bounds
    n = np.array([1e3, 1e4, 1e5])
    upper = bounds.sparse_regression_upper_rate(n, 200, 5, 1.0, 1e-5)
    lower = bounds.sparse_regression_lower_rate(n, 200, 5, 1.0, 1e-5)
    assert np.all(np.diff(upper) < 0) and np.all(upper > lower)
    # The privacy term of the lower bound is capped at 1 ("∧ 1"): at n = 10 it is min(·, 1).
    small = bounds.sparse_regression_lower_rate(10, 200, 5, 1.0, 1e-5)
    assert small == pytest.approx(math.sqrt(5 * math.log(200) / 10) + 1.0)
    big = 1e9
    assert bounds.classical_regression_upper_rate(big, 20, 1.0, 1e-5) == pytest.approx(
        math.sqrt(20 / big) + 20 * math.sqrt(math.log(1e5) * math.log(big)) / big)
    assert bounds.classical_regression_lower_rate(big, 20, 1.0, 1e-5) == pytest.approx(
        math.sqrt(20 / big) + 20 * math.sqrt(math.log(1e5)) / big)
    with pytest.raises(ValueError, match="epsilon"):
        bounds.sparse_regression_upper_rate(1e4, 200, 5, 0.0, 1e-5)
    with pytest.raises(ValueError, match="delta"):
        bounds.classical_regression_lower_rate(1e4, 20, 1.0, 0.0)


def test_runners_return_the_documented_shapes():
    from dpteach.experiments import regression as E
    e1 = E.error_vs_n([200, 400], [1.0, 4.0], d=20, s=2, n_reps=2, lasso_max_n=300, rng=0)
    assert e1["dp"].shape == (2, 2, 2) and e1["iht"].shape == (2, 2)
    assert np.isnan(e1["lasso"][1]).all() and not np.isnan(e1["lasso"][0]).any()
    e5 = E.ablations(n=400, d=20, s=2, epsilon=4.0, n_reps=1, rng=0)
    assert e5["residual clipping"][1].shape == (2, 1)
    e6 = E.classical_experiment([100, 200], [1.0], d=5, n_reps=1, rng=0)
    assert e6["noisy_ols"].shape == (3, 1, 2, 1)
    e7 = E.peeling_audit_experiment([1, 2], n_trials=200, rng=0)
    assert e7["right"].shape == (2,) and np.all(e7["certified"] <= 1.0)
    auc = E.tracing_experiment(n_reps=1, rng=0)
    assert set(auc) >= {"OLS", "LASSO"} and all(0 <= a <= 1 for v in auc.values() for a in v.values())
    assert set(auc["OLS"]) == {"classical", "score"} and set(auc["LASSO"]) == {"classical", "sparse", "sparse_sign"}
    with pytest.raises(ValueError, match="n_reps"):
        E.error_vs_n([200], [1.0], n_reps=0)


def test_tracing_experiment_reports_chapter_4s_aucs_on_the_same_draws():
    # Recompute every AUC with dpteach.fingerprinting from the same seeds (the runner draws β, then
    # one membership seed per half): the numbers must agree exactly, so the chapter's table is
    # chapter 4's attack and not a local re-implementation.
    from dpteach import fingerprinting as fp
    from dpteach.experiments import regression as E
    epsilon, n_reps = 1.0, 2
    result = E.tracing_experiment(epsilon=epsilon, n_reps=n_reps, rng=11)
    rng = np.random.default_rng(11)
    checked = 0
    for kind, d in (("classical", 20), ("sparse", 200)):
        n, sample, estimators, _ = E._tracing_setup(kind, epsilon, rng)
        seed = int(rng.integers(2 ** 63))
        statistics = {"classical": lambda r, m, d=d: fp.classical_regression_statistic(r[..., :d], r[..., d],
                                                                                       r[..., d + 1], m)}
        if kind == "sparse":
            statistics["sparse_sign"] = lambda r, m: fp.sparse_regression_statistic(r[..., :200], r[..., 200],
                                                                                    r[..., 201], m, 10, weight="sign")
        for name, estimator in estimators.items():
            for stat, fn in statistics.items():
                expected = fp.auc(*fp.membership_scores(sample, estimator, fn, n, n_reps, rng=seed))
                assert result[name][stat] == expected, (name, stat)
                checked += 1
    assert checked == 3 + 2 * 2


def test_no_certificate_without_residual_clipping():
    X, y, _ = sparse_regression_data(2_000, 20, 2, rng=1)
    assert r.DPLasso(1.0, 1e-5, 4, clip_residual=False, random_state=0).fit(X, y).epsilon_certified_ == math.inf


def test_dp_gradient_descent_row_norm_bounds_the_sensitivity_without_root_d():
    # Issue 33: rows clipped to ‖x‖₂ <= R give Δ₂ = 4RT/n (no √d). Check the bound on the actual map: for
    # replace-one pairs whose differing rows are far outside the ball, the clipped gradient at any β moves by at
    # most 4RT/n (the triangle inequality over two terms of norm <= 2TR; since |f_T(y)| <= T it is not attained),
    # and by 2RT/n exactly for the same far row with responses ±T at β = 0.
    n, d, T, R = 200, 50, 2.0, 1.0
    rng = np.random.default_rng(11)
    assert r.dp_gradient_descent_sigma(n, d, 1.0, 1e-5, T, 3, row_norm=R) == pytest.approx(
        r.dp_gradient_descent_sigma(n, d, 1.0, 1e-5, T, 3, x_bound=R / np.sqrt(d)))  # c_x√d = R: same Δ₂

    def gradient(X, y, beta, clip):
        Xc = clip(X)
        residual = np.clip(Xc @ beta - r.truncate(y, T), -2 * T, 2 * T)
        return Xc.T @ residual / n

    from dpteach.feature_scaling import clip_rows
    worst = worst_unclipped = 0.0
    for trial in range(50):
        X, y, beta = rng.normal(size=(n, d)), rng.normal(size=n) * 5, rng.normal(size=d) * (trial > 0)
        X2, y2 = X.copy(), y.copy()
        X[0] = X2[0] = 1e6 * rng.normal(size=d)  # the same far row, responses beyond ±T
        y[0], y2[0] = 1e3, -1e3
        worst = max(worst, np.linalg.norm(gradient(X, y, beta, lambda Z: clip_rows(Z, R))
                                          - gradient(X2, y2, beta, lambda Z: clip_rows(Z, R))))
        worst_unclipped = max(worst_unclipped, np.linalg.norm(gradient(X, y, beta, lambda Z: Z)
                                                              - gradient(X2, y2, beta, lambda Z: Z)))
    assert 2 * R * T / n * (1 - 1e-9) <= worst <= 4 * R * T / n * (1 + 1e-12)
    assert worst_unclipped > 100 * 4 * R * T / n  # a variant that forgets to clip the rows breaks the bound
    # The release clips its rows: one far record leaves every coefficient finite, with the same seed and shapes.
    X, y = rng.normal(size=(n, d)), rng.normal(size=n)
    X[0] = 1e300
    beta_hat = r.dp_gradient_descent_ols(X, y, 1.0, 1e-5, T, 3, rng=0, row_norm=R)
    assert beta_hat.shape == (d,) and np.all(np.isfinite(beta_hat))


def test_dp_gradient_descent_row_norm_audit_catches_a_variant_that_skips_the_clipping(monkeypatch):
    # The row_norm path is a release (issue 33): audit it on a far row (norm 100, outside the ball R = 1) whose
    # response flips between ±T, one step (K = 1) from β = 0, where β̂₁ = −η(x̄₁r/n + noise) moves by
    # 2T·R/n <= Δ₂ = 4RT/n (σ ≈ 0.75, a shift of 0.1). Correct: certified ε_lb <= ε. The same routine with
    # the row clipping switched off (clip_rows the identity) moves β̂₁ by 2T·100/n = 10 with the same σ: caught.
    from dpteach import audit
    n, T, eps, delta = 20, 1.0, 1.0, 1e-5
    X = np.zeros((n, 2))
    X[0] = (100.0, 0.0)
    y = np.zeros(n)
    y_neighbour = y.copy()
    y[0], y_neighbour[0] = T, -T

    def mechanism(labels, n_trials, g):
        return np.array([r.dp_gradient_descent_ols(X, labels, eps, delta, T, 1, rng=g, row_norm=1.0)[0]
                         for _ in range(n_trials)])

    sd = r.dp_gradient_descent_sigma(n, 2, eps, delta, T, 1, row_norm=1.0)
    events = audit.threshold_events(sd * np.linspace(-3.5, 3.5, 15))
    correct = audit.audit(mechanism, y, y_neighbour, events, 4000, delta=delta, confidence=0.95, n_select=2000,
                          rng=1).epsilon_lower
    monkeypatch.setattr(r, "clip_rows", lambda rows, radius: rows)
    broken = audit.audit(mechanism, y, y_neighbour, audit.threshold_events(np.linspace(-12, 12, 25)), 4000,
                         delta=delta, confidence=0.95, n_select=2000, rng=1).epsilon_lower
    assert correct <= eps
    assert broken > eps
