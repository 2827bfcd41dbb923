"""Tests of chapter 8: DPSAS (Algorithm 8.1 = the paper's Algorithm 3) and Algorithm 8.2 (Algorithm 4).

Statistical tolerances are derived in the comments; seeds are fixed, so the
tests are deterministic. Privacy: sensitivities by adversarial neighbours at
the clipping bound, one round audited with dpteach.audit, and broken
variants (half the sensitivity) caught by the same audits.
"""

import math

import numpy as np
import pytest
from scipy import special, stats

from dpteach import audit, bounds, dpsas, dpsas_ramp, dpsas_steps
from dpteach._estimator import NotFittedError
from dpteach.data import gaussian_halfspace_data
from dpteach.experiments import dpsas as experiments
from dpteach.mechanisms import gaussian_sigma


# --- ramp, loss, gradient -------------------------------------------------------------------------

def test_ramp_and_derivative_follow_eq_12():
    a, b = 0.7, -0.3
    z = np.array([-5.0, b - a, b - a + 0.2, b, b + a - 0.1, b + a, 4.0])
    assert np.allclose(dpsas_ramp.ramp(z, a, b), [0, 0, 0.2, a, 2 * a - 0.1, 2 * a, 2 * a])
    # Closed band at the kinks (Claim 4.3's indicator).
    assert np.array_equal(dpsas_ramp.ramp_derivative(z, a, b), [0, 1, 1, 1, 1, 1, 0])
    assert isinstance(dpsas_ramp.ramp(0.0, a, b), float)


def test_gradient_matches_finite_differences_away_from_kinks_and_is_orthogonal_to_w():
    rng = np.random.default_rng(0)
    d, m = 6, 400
    X = rng.standard_normal((m, d))
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    a, b = 0.8, 0.25
    for trial in range(5):
        w = rng.standard_normal(d) * (0.5 + trial)  # also non-unit w: the loss depends on w/‖w‖
        z = X @ w / np.linalg.norm(w)
        # Finite differences are exact only if no point crosses a kink within the step:
        # |Δz| ≤ ‖x‖·h/‖w‖·(1 + ...) ≤ 1e-4 for h = 1e-6, so require a 1e-3 margin.
        margin = np.min(np.abs(np.abs(z - b) - a))
        assert margin > 1e-3
        gradient = dpsas_ramp.ramp_loss_gradient(w, X, y, a, b)
        h = 1e-6
        numeric = np.array([(dpsas_ramp.ramp_loss(w + h * e, X, y, a, b) - dpsas_ramp.ramp_loss(w - h * e, X, y, a, b))
                            / (2 * h) for e in np.eye(d)])
        # Piecewise linear in z, so the central difference is exact up to rounding (~1e-16/1e-6).
        assert np.allclose(gradient, numeric, atol=1e-8)
        assert abs(gradient @ w) < 1e-12 * np.linalg.norm(w)
        assert np.linalg.norm(gradient) > 1e-3  # a non-trivial gradient


def test_gradient_is_claim_4_3_form_at_unit_w():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 3))
    y = np.sign(rng.standard_normal(50))
    w = np.array([0.6, 0.8, 0.0])
    a, b = 0.5, -0.2
    active = np.abs(X @ w - b) <= a
    expected = -((y * active)[:, None] * (X - np.outer(X @ w, w))).mean(axis=0)
    assert np.allclose(dpsas_ramp.ramp_loss_gradient(w, X, y, a, b), expected)


# --- noise ------------------------------------------------------------------------------------------

def _covariance_deviation(draws, w, sigma):
    covariance = draws.T @ draws / len(draws)
    return np.max(np.abs(covariance - sigma ** 2 * (np.eye(w.size) - np.outer(w, w))))


def test_noise_covariance_is_sigma2_times_projection():
    rng = np.random.default_rng(2)
    w = np.array([1.0, 2.0, -2.0, 0.5])
    w /= np.linalg.norm(w)
    sigma, n = 0.7, 200_000
    draws = dpsas_steps.projected_gaussian_noise(w, sigma, rng, size=n)
    assert np.max(np.abs(draws @ w)) < 1e-12  # exactly in w^⊥
    # Entry (i, j) of the sample covariance of N(0, Σ) has variance (Σ_ii Σ_jj + Σ_ij²)/N ≤ 2σ⁴/N
    # (Σ = σ²(I − wwᵀ) has entries ≤ σ²). A 6-sd band per entry; 16 entries: false alarm < 1e-7.
    tolerance = 6 * sigma ** 2 * math.sqrt(2 / n)
    assert _covariance_deviation(draws, w, sigma) < tolerance
    # The same test rejects σ 30 % off (diagonal off by 0.69σ²·(1 − w_i²) ≫ tolerance) and
    # unprojected noise N(0, σ² I) (the w-direction has variance σ² instead of 0).
    assert _covariance_deviation(draws * 1.3, w, sigma) > 10 * tolerance
    assert _covariance_deviation(rng.normal(0, sigma, (n, 4)), w, sigma) > 10 * tolerance


def test_noise_sigma_is_the_gaussian_mechanism_for_sensitivity_2L_over_m():
    L = 2 * math.sqrt(7)
    assert dpsas_steps.dpsas_noise_sigma(500, L, 0.5, 1e-5) == gaussian_sigma(2 * L / 500, 0.5, 1e-5)
    assert dpsas_steps.dpsas_noise_sigma(500, L, math.inf, 1e-5) == 0.0
    broken = dpsas_steps.broken_dpsas_noise_sigma_forgot_factor_two(500, L, 0.5, 1e-5)
    assert broken == pytest.approx(dpsas_steps.dpsas_noise_sigma(500, L, 0.5, 1e-5) / 2, rel=1e-9)


# --- sensitivities by adversarial neighbours --------------------------------------------------------

def test_threshold_label_mean_sensitivity_is_two_over_m():
    # The released statistic is mean(y): every replace-one neighbour (all m positions, both flips)
    # changes it by exactly 0 or 2/m, never more.
    rng = np.random.default_rng(3)
    y = np.sign(rng.standard_normal(37))
    changes = []
    for i in range(y.size):
        for new in (-1.0, 1.0):
            y2 = y.copy()
            y2[i] = new
            changes.append(abs(np.mean(y2) - np.mean(y)))
    assert max(changes) == pytest.approx(2 / y.size)


def test_gradient_sensitivity_attained_by_a_clipped_record_orthogonal_to_w_in_the_band():
    rng = np.random.default_rng(4)
    d, m = 4, 30
    L = 2 * math.sqrt(d)
    w = np.eye(d)[0]
    X = rng.standard_normal((m, d))
    y = np.sign(rng.standard_normal(m))
    a, b = 0.9, 0.0

    def gradient(X_block, y_block):
        return dpsas_steps.dpsas_round(w, X_block, y_block, a, b, 1.0, 0.0, L)[1]

    base = gradient(X, y)
    # Adversarial: a huge record orthogonal to w (clipped to norm L), inside the band, label flipped.
    X_adv, y_adv = X.copy(), y.copy()
    X_adv[0] = np.r_[0.0, 100.0, 0.0, 0.0]
    y_adv[0] = 1.0
    X_adv2, y_adv2 = X_adv.copy(), y_adv.copy()
    y_adv2[0] = -1.0
    assert np.linalg.norm(gradient(X_adv, y_adv) - gradient(X_adv2, y_adv2)) == pytest.approx(2 * L / m)
    # Random neighbours (huge records) never exceed 2L/m.
    for _ in range(200):
        X2, y2 = X.copy(), y.copy()
        i = rng.integers(m)
        X2[i] = rng.standard_normal(d) * rng.choice([0.1, 10.0, 1000.0])
        y2[i] = -y2[i]
        assert np.linalg.norm(gradient(X2, y2) - base) <= 2 * L / m * (1 + 1e-12)


def test_initial_direction_clips_and_uses_sigma_for_2L_over_m():
    # d = 1: the output is sign(mean(clip(x)·y) + N(0, σ²)), so Pr[+1] = Φ(mean/σ) exactly.
    m, L, epsilon, delta = 40, 1.0, 1.0, 1e-5
    X = np.full((m, 1), 0.3)
    X[0, 0] = 1000.0  # an outlier: unclipped it would dominate the mean
    y = np.ones(m)
    clipped_mean = (0.3 * (m - 1) + L) / m
    sigma = gaussian_sigma(2 * L / m, epsilon, delta)
    n = 8_000
    rng = np.random.default_rng(5)
    outputs = np.array([dpsas_steps.private_initial_direction(X, y, L, epsilon, delta, rng)[0] for _ in range(n)])
    frequency = np.mean(outputs > 0)
    p = stats.norm.cdf(clipped_mean / sigma)
    # 6-sd binomial band, sd = √(p(1−p)/n) ≈ 0.004; σ 30 % off moves p by ≈ 0.06 (> 2 bands).
    band = 6 * math.sqrt(p * (1 - p) / n)
    assert abs(frequency - p) < band
    assert abs(stats.norm.cdf(clipped_mean / (1.3 * sigma)) - p) > 2 * band
    # Non-private path: exactly the normalised clipped mean of x·y.
    rng2 = np.random.default_rng(6)
    X2 = rng2.standard_normal((100, 3)) * 5
    y2 = np.sign(rng2.standard_normal(100))
    norms = np.linalg.norm(X2, axis=1, keepdims=True)
    mean = (y2[:, None] * X2 * np.minimum(1, 2.0 / norms)).mean(axis=0)
    assert np.allclose(dpsas_steps.private_initial_direction(X2, y2, 2.0, math.inf, 1e-5), mean / np.linalg.norm(mean))


# --- audits ---------------------------------------------------------------------------------------------

def _round_audit(sigma_function):
    """Audit one round at ε = 1: d = 2, w = e₁, neighbours differ in a record at norm L, ⊥ w, in the band."""
    d, m, epsilon, delta = 2, 20, 1.0, 1e-5
    L = 2 * math.sqrt(d)
    w = np.array([1.0, 0.0])
    X = np.zeros((m, d))
    X[0] = [0.0, L]
    y = np.ones(m)
    y_neighbour = y.copy()
    y_neighbour[0] = -1.0
    sigma = sigma_function(m, L, epsilon, delta)

    def mechanism(labels, n_trials, rng):
        # ŵ_{t+1}[1] = −λv/√(1 + λ²v²) is monotone in the noisy gradient's coordinate v.
        return dpsas_steps.dpsas_round(w, X, labels, 1.0, 0.0, 1.0, sigma, L, rng, size=n_trials)[0][:, 1]

    events = audit.threshold_events(np.linspace(-0.98, 0.98, 50))
    return audit.audit(mechanism, y, y_neighbour, events, n_trials=100_000, n_select=20_000, delta=delta,
                       rng=np.random.default_rng(7))


def test_one_round_audit_stays_below_epsilon_and_catches_half_sensitivity():
    correct = _round_audit(dpsas_steps.dpsas_noise_sigma)
    broken = _round_audit(dpsas_steps.broken_dpsas_noise_sigma_forgot_factor_two)
    assert correct.epsilon_lower <= 1.0
    assert broken.epsilon_lower > 1.0, str(broken)


def _threshold_audit(threshold_function):
    m, epsilon = 10, 1.0
    y = np.array([1.0, -1.0] * 5)
    y_neighbour = y.copy()
    y_neighbour[1] = 1.0

    def mechanism(labels, rng):
        return threshold_function(labels, epsilon, 1e-6, rng)

    events = audit.threshold_events(np.linspace(-1.0, 1.0, 21))
    return audit.audit(audit.repeat(mechanism), y, y_neighbour, events, n_trials=10_000, n_select=3_000,
                       rng=np.random.default_rng(8))


def test_threshold_audit_stays_below_epsilon_and_catches_forgotten_factor_two():
    assert _threshold_audit(dpsas_steps.private_threshold).epsilon_lower <= 1.0
    assert _threshold_audit(dpsas_steps.broken_threshold_sensitivity_forgot_factor_two).epsilon_lower > 1.0


# --- schedule and step size -------------------------------------------------------------------------

def test_schedule_and_step_sizes_follow_the_formulas():
    s, tau, T = 2.0, -0.7, 12
    phi, a, b = dpsas_steps.round_schedule(T, s, tau)
    t = np.arange(T)
    assert np.allclose(phi, np.pi / 2 * (1 - s ** 2 / 64) ** t)
    assert np.allclose(a, np.sin(phi)) and np.allclose(b, -tau * np.cos(phi))
    assert dpsas_steps.step_size("reconstructed", s, tau) == pytest.approx(math.exp(tau ** 2 / 2) * s)
    assert dpsas_steps.step_size("as_printed", s, tau) == pytest.approx(math.exp(math.pi ** 2 / 2) * s)
    assert dpsas_steps.step_size("constant", s, tau) == s
    # Default T_r: the first T with φ_T ≤ η; 54 at s = 2, η = 0.05 (the demo default).
    assert dpsas_steps.default_n_rounds(0.05, 2.0) == 54
    for eta, scale in [(0.05, 2.0), (0.01, 1.0), (0.3, 4.0)]:
        T = dpsas_steps.default_n_rounds(eta, scale)
        q = 1 - scale ** 2 / 64
        assert np.pi / 2 * q ** T <= eta < np.pi / 2 * q ** (T - 1)


def test_dpsas_trace_records_schedule_step_and_block_size():
    X, y, normal = gaussian_halfspace_data(6000, 3, threshold=0.4, noise_rate=0.05, rng=9)
    for rule in dpsas_steps.STEP_RULES:
        w, tau, trace = dpsas.dpsas(X, y, 1.0, 1e-5, 0.1, n_rounds=10, step_rule=rule, rng=10, w_star=normal)
        phi, a, b = dpsas_steps.round_schedule(10, 2.0, tau)
        assert np.allclose(trace["phi"], phi) and np.allclose(trace["a"], a) and np.allclose(trace["b"], b)
        assert trace["step_size"] == pytest.approx(dpsas_steps.step_size(rule, 2.0, tau))
        assert trace["block_size"] == 500
        assert trace["sigma"] == pytest.approx(dpsas_steps.dpsas_noise_sigma(500, 2 * math.sqrt(3), 1.0, 1e-5))
        assert trace["w"].shape == (11, 3) and trace["angle_deg"].shape == (11,)
        assert np.allclose(np.linalg.norm(trace["w"], axis=1), 1.0)
        assert np.isclose(np.linalg.norm(w), 1.0)
    again = dpsas.dpsas(X, y, 1.0, 1e-5, 0.1, n_rounds=10, rng=10)
    assert np.array_equal(again[0], dpsas.dpsas(X, y, 1.0, 1e-5, 0.1, n_rounds=10, rng=10)[0])


# --- utility ----------------------------------------------------------------------------------------

def test_non_private_clean_labels_converge_in_angle_and_threshold():
    # ε = inf, no label noise: angle < 5°, and τ̂ → −t* (the data write sign(⟨w,x⟩ − t)).
    t_star, d = 0.5, 5
    for n in (20_000, 200_000, 2_000_000):
        X, y, normal = gaussian_halfspace_data(n, d, normal=np.ones(d), threshold=t_star, rng=n)
        w, tau, trace = dpsas.dpsas(X, y, math.inf, 1e-5, 0.05, rng=1, w_star=normal)
        assert trace["angle_deg"][-1] < 5.0
        # τ̂ = Φ⁻¹((1 + ȳ)/2) with ȳ the mean of m₀ labels: sd(ȳ) = √(1 − E[y]²/1)/√m₀ and the
        # delta method gives sd(τ̂) = sd(ȳ)/(2φ(t*)); allow 6 sd.
        m0 = trace["block_size"]
        p = stats.norm.cdf(-t_star)
        sd_tau = math.sqrt(4 * p * (1 - p) / m0) / (2 * stats.norm.pdf(t_star))
        assert abs(tau + t_star) < 6 * sd_tau


def test_printed_step_size_stalls_at_s_2_where_both_smaller_rules_get_close():
    # At s = 2 the printed lambda = e^{pi^2/2} s = 278 overshoots; e^{tau^2/2} s and s (both about 2) end within 5
    # degrees without noise. This is all the test shows: it does not prove that either smaller rule converges.
    X, y, normal = gaussian_halfspace_data(200_000, 10, normal=np.ones(10), threshold=0.5, noise_rate=0.05,
                                           rng=11)
    angles = {rule: dpsas.dpsas(X, y, math.inf, 1e-5, 0.05, n_rounds=40, step_rule=rule, rng=12,
                                w_star=normal)[2]["angle_deg"][-1] for rule in dpsas_steps.STEP_RULES}
    assert max(angles["reconstructed"], angles["constant"]) < 5.0 < 20.0 < angles["as_printed"]


def test_learner_error_at_most_two_opt_plus_alpha_in_90_percent_of_50_seeds():
    result = experiments.learner_errors(50, rng=2024)
    assert result["bound"] == pytest.approx(bounds.semi_agnostic_error_bound(0.05, 0.05))
    assert np.mean(result["errors"] <= result["bound"]) >= 0.9
    assert np.all(result["errors"] >= result["opt"])  # sanity: nothing beats OPT under RCN


def test_learner_attributes_privacy_and_not_fitted():
    X, y, _ = gaussian_halfspace_data(30_000, 4, threshold=0.2, noise_rate=0.05, rng=13)
    learner = dpsas.PrivateSemiAgnosticLearner(0.1, 1.0, 1e-5, random_state=3)
    with pytest.raises(NotFittedError):
        learner.predict(X)
    learner.fit(X, y)
    assert np.isclose(np.linalg.norm(learner.coef_), 1.0)
    assert len(learner.candidates_) == learner.eta_grid_.size == 2
    assert learner.privacy_.epsilon == 1.0 and learner.privacy_.delta == 1e-5
    assert set(np.unique(learner.predict(X))) <= {-1.0, 1.0}
    assert 0.5 < learner.score(X, y) <= 1.0
    with pytest.raises(ValueError, match="features"):
        learner.predict(X[:, :3])
    same = dpsas.PrivateSemiAgnosticLearner(0.1, 1.0, 1e-5, random_state=3).fit(X, y)
    assert np.array_equal(same.coef_, learner.coef_)
    assert "alpha=0.1" in repr(learner)


@pytest.mark.checks("lem-private-validation")
def test_eta_grid_and_validation_size():
    assert np.allclose(dpsas.eta_grid(0.05), [0.075, 0.15, 0.3])
    assert np.allclose(dpsas.eta_grid(0.2), [0.3])
    grid = dpsas.eta_grid(0.01)
    assert grid[-1] >= 0.25 > grid[-2] and grid[-1] < 0.5
    # Lemma B.5 inversion: at α = 0.02, K = 5, β = 0.1, ε = 1 about 1.2·10⁵.
    size = dpsas.validation_size(0.02, 1.0, 0.1, 5)
    assert size == math.ceil(8 * math.log(400) / 0.02 ** 2 + 4 * math.log(200) / 0.02)
    assert 1.1e5 < size < 1.3e5


# --- the exponential-mechanism selection ------------------------------------------------------------

def test_selection_frequencies_match_exact_probabilities():
    correct = np.array([950, 952, 947, 951, 940])
    epsilon, n = 0.8, 20_000
    rng = np.random.default_rng(14)
    draws = np.array([dpsas._select(correct, epsilon, rng) for _ in range(n)])
    observed = np.bincount(draws, minlength=correct.size)
    # Exact law, computed here: Pr[k] ∝ exp(ε·accuracy_k/(2/|D_val|)) = exp(ε·#correct_k/2).
    exact = special.softmax(epsilon * correct / 2)
    critical = stats.chi2.ppf(1 - 1e-6, df=correct.size - 1)
    assert stats.chisquare(observed, n * exact).statistic < critical
    # The same test rejects the factor-2 bug exp(ε·#correct) (its law differs by a lot).
    wrong = special.softmax(epsilon * correct)
    assert stats.chisquare(observed, n * wrong).statistic > 10 * critical
    assert dpsas._select(correct, math.inf, rng) == 1


def test_non_private_selection_breaks_ties_uniformly_like_the_other_learners():
    # ε = inf: the most accurate candidate; a tie between candidates 1 and 2 is broken uniformly at random (the
    # contract of exponential_mechanism_on_errors, which the other three learners use), never towards 0.
    # 4000 draws of a fair coin: the count of 1s lies within 6σ = 6·√(4000/4) ≈ 190 of 2000.
    rng = np.random.default_rng(15)
    draws = np.array([dpsas._select([5, 7, 7], math.inf, rng) for _ in range(4000)])
    assert set(draws.tolist()) == {1, 2}
    assert abs(np.sum(draws == 1) - 2000) < 190
    state = rng.bit_generator.state
    assert dpsas._select([5, 9, 7], math.inf, rng) == 1 and rng.bit_generator.state == state  # no tie, no draw


# --- bad input ------------------------------------------------------------------------------------------

X_OK, Y_OK, _ = gaussian_halfspace_data(200, 3, rng=0)


@pytest.mark.parametrize("call, match", [
    (lambda: dpsas_ramp.ramp([0.0], 0.0, 0.0), "a must be"),
    (lambda: dpsas_ramp.ramp([np.nan], 1.0, 0.0), "finite"),
    (lambda: dpsas_ramp.ramp_derivative([0.0], -1.0, 0.0), "a must be"),
    (lambda: dpsas_ramp.ramp_loss_gradient(np.zeros(3), X_OK, Y_OK, 1.0, 0.0), "non-zero"),
    (lambda: dpsas_ramp.ramp_loss(np.ones(2), X_OK, Y_OK, 1.0, 0.0), "shape"),
    (lambda: dpsas_steps.private_threshold([1, 0, 1], 1.0, 0.1), "labels"),
    (lambda: dpsas_steps.private_threshold([1, -1], 0.0, 0.1), "epsilon"),
    (lambda: dpsas_steps.private_threshold([1, -1], 1.0, 0.5), "kappa"),
    (lambda: dpsas_steps.private_threshold([1, -1], float("nan"), 0.1), "epsilon"),
    (lambda: dpsas_steps.private_initial_direction(X_OK, Y_OK, 1.0, 1.0, 0.0), "delta"),
    (lambda: dpsas_steps.private_initial_direction(X_OK, Y_OK[:-1], 1.0, 1.0, 1e-5), "same number"),
    (lambda: dpsas_steps.private_initial_direction(X_OK, Y_OK, -1.0, 1.0, 1e-5), "clip_norm"),
    (lambda: dpsas_steps.dpsas_noise_sigma(0, 1.0, 1.0, 1e-5), "block_size"),
    (lambda: dpsas_steps.round_schedule(5, 8.0, 0.0), "step_size_scale"),
    (lambda: dpsas_steps.step_size("printed", 2.0, 0.0), "step_rule"),
    (lambda: dpsas_steps.default_n_rounds(0.5), "eta"),
    (lambda: dpsas_steps.projected_gaussian_noise([1.0, 0.0], -1.0), "sigma"),
    (lambda: dpsas.dpsas(X_OK, Y_OK, 1.0, 1e-5, 0.6), "eta"),
    (lambda: dpsas.dpsas(X_OK, Y_OK, 1.0, 1.0, 0.1), "delta"),
    (lambda: dpsas.dpsas(X_OK, Y_OK, -1.0, 1e-5, 0.1), "epsilon"),
    (lambda: dpsas.dpsas(X_OK, Y_OK, 1.0, 1e-5, 0.1, step_rule="exp_tau2"), "step_rule"),
    (lambda: dpsas.dpsas(X_OK, Y_OK, 1.0, 1e-5, 0.1, n_rounds=0), "n_rounds"),
    (lambda: dpsas.dpsas(X_OK, Y_OK, 1.0, 1e-5, 0.1, n_rounds=300), "too few"),
    (lambda: dpsas.dpsas(X_OK, Y_OK, 1.0, 1e-5, 0.1, w_star=np.ones(2)), "w_star"),
    (lambda: dpsas.dpsas(X_OK, Y_OK, 1.0, 1e-5, 0.1, rng="seed"), "seed|SeedSequence|entropy|Generator|int"),
    (lambda: dpsas.eta_grid(0.4), "alpha"),
    (lambda: dpsas.validation_size(0.1, 1.0, 1.5, 3), "beta"),
    (lambda: dpsas.PrivateSemiAgnosticLearner(0.05, 1.0, 1e-5).fit(X_OK[:100], Y_OK[:100]), "needs at least n"),
    (lambda: dpsas.PrivateSemiAgnosticLearner(0.5, 1.0, 1e-5).fit(X_OK, Y_OK), "alpha"),
    (lambda: dpsas.PrivateSemiAgnosticLearner(0.1, "1", 1e-5).fit(X_OK, Y_OK), "epsilon"),
    (lambda: bounds.dpsas_sample_complexity_rate(5, 1.5, 1.0), "alpha"),
    (lambda: bounds.semi_agnostic_error_bound(0.6, 0.1), "opt"),
])
def test_bad_input_raises_named_errors(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


@pytest.mark.parametrize("bad", [None, True, "1", float("nan"), -1.0, 0.0])
def test_bad_epsilon_everywhere(bad):
    for call in (lambda: dpsas_steps.private_threshold([1, -1], bad, 0.1),
                 lambda: dpsas_steps.private_initial_direction(X_OK, Y_OK, 1.0, bad, 1e-5),
                 lambda: dpsas_steps.dpsas_noise_sigma(10, 1.0, bad, 1e-5),
                 lambda: dpsas.dpsas(X_OK, Y_OK, bad, 1e-5, 0.1)):
        with pytest.raises((ValueError, TypeError), match="epsilon"):
            call()
