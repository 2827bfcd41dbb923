"""Tests of dpteach.dp_logistic: gradients, clipping, the three accountants, an audited step, the estimator, bad input."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpteach import audit, composition, dp_erm, mechanisms
from dpteach import dp_logistic as L
from dpteach import logistic_loss as LL
from dpteach._estimator import NotFittedError
from dpteach.data import gaussian_halfspace_data, rcn_halfspace_error


# --- gradients and clipping -----------------------------------------------------------------

def test_gradients_match_finite_differences_of_the_loss():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((40, 3)), np.where(rng.random(40) < 0.5, -1.0, 1.0)
    w, b = rng.standard_normal(3), 0.3
    mean_gradient = LL.logistic_gradients(X, y, w, b).mean(axis=0)
    h = 1e-6
    numeric = []
    for k in range(4):
        shift = np.zeros(4)
        shift[k] = h
        plus = LL.logistic_loss(X, y, w + shift[:3], b + shift[3])
        minus = LL.logistic_loss(X, y, w - shift[:3], b - shift[3])
        numeric.append((plus - minus) / (2 * h))
    # Central differences are accurate to O(h²)·third derivative ≈ 1e-12; 1e-7 leaves room for rounding.
    np.testing.assert_allclose(mean_gradient, numeric, atol=1e-7)


def test_loss_does_not_overflow_at_huge_margins():
    X = np.array([[1e6], [-1e6]])
    assert LL.logistic_loss(X, [1.0, 1.0], [1.0], 0.0) == pytest.approx(0.5e6)


def test_clipping_bounds_norms_and_keeps_directions():
    rng = np.random.default_rng(1)
    G = rng.standard_normal((500, 4)) * rng.exponential(2.0, (500, 1))
    G[0] = 0.0
    C = 1.5
    clipped = LL.clip_gradients(G, C)
    norms, clipped_norms = np.linalg.norm(G, axis=1), np.linalg.norm(clipped, axis=1)
    assert np.all(clipped_norms <= C * (1 + 1e-12))
    short = norms <= C
    np.testing.assert_array_equal(clipped[short], G[short])          # short rows untouched
    np.testing.assert_allclose(clipped_norms[~short], C)              # long rows land on the bound
    cosine = np.einsum("ij,ij->i", clipped[~short], G[~short]) / (clipped_norms[~short] * norms[~short])
    np.testing.assert_allclose(cosine, 1.0)


def test_sum_sensitivity_is_two_c_and_attained():
    """Lemma 9.1: random replace-one pairs never move the clipped sum by more than 2C; flipping a label at a far point does."""
    rng = np.random.default_rng(2)
    C = 1.0
    X, y = rng.standard_normal((30, 3)) * 3, np.where(rng.random(30) < 0.5, -1.0, 1.0)
    w, b = rng.standard_normal(3), 0.1
    base = LL.clip_gradients(LL.logistic_gradients(X, y, w, b), C).sum(axis=0)
    worst = 0.0
    for _ in range(300):
        X2, y2 = X.copy(), y.copy()
        X2[0] = rng.standard_normal(3) * rng.exponential(10.0)
        y2[0] = rng.choice([-1.0, 1.0])
        other = LL.clip_gradients(LL.logistic_gradients(X2, y2, w, b), C).sum(axis=0)
        worst = max(worst, np.linalg.norm(other - base))
    assert worst <= LL.gradient_sum_sensitivity(C) * (1 + 1e-12)
    # At θ = 0 the gradient is −y·(x, 1)/2: flipping y at ‖(x, 1)‖ ≫ C moves the clipped sum by exactly 2C.
    Xf = np.zeros((2, 3))
    Xf[0, 0] = 50.0
    zero = np.zeros(3)
    a = LL.clip_gradients(LL.logistic_gradients(Xf, [1.0, 1.0], zero, 0.0), C).sum(axis=0)
    c = LL.clip_gradients(LL.logistic_gradients(Xf, [-1.0, 1.0], zero, 0.0), C).sum(axis=0)
    assert np.linalg.norm(a - c) == pytest.approx(2 * C)


# --- accountants ----------------------------------------------------------------------------

@pytest.mark.parametrize("epsilon, delta, epochs", [(0.5, 1e-5, 1), (1.0, 1e-6, 5), (4.0, 1e-5, 20)])
def test_zcdp_sigma_closed_form_and_round_trip(epsilon, delta, epochs):
    C = 0.7
    sigma = L.dp_sgd_sigma(C, epochs, epsilon, delta, "zcdp")
    rho = dp_erm.zcdp_rho(epsilon, delta)
    # E epochs of a 2C-sensitive Gaussian: E(2C)²/(2σ²) = ρ.
    assert epochs * (2 * C) ** 2 / (2 * sigma ** 2) == pytest.approx(rho, rel=1e-12)
    assert L.dp_sgd_epsilon(sigma, C, epochs, delta, "zcdp") == pytest.approx(epsilon, rel=1e-10)


@pytest.mark.parametrize("epsilon, delta, epochs", [(0.5, 1e-5, 1), (1.0, 1e-6, 5), (4.0, 1e-5, 20)])
def test_composition_sigma_meets_the_budget(epsilon, delta, epochs):
    C = 0.7
    sigma = L.dp_sgd_sigma(C, epochs, epsilon, delta, "composition")
    per_epoch = composition.advanced_composition_epsilon_per_step(epsilon, epochs, delta / 2)
    # Each epoch's Gaussian mechanism meets (ε₀, δ/(2E)) exactly (analytic calibration) ...
    assert mechanisms.gaussian_delta(sigma, 2 * C, per_epoch) <= delta / (2 * epochs)
    assert mechanisms.gaussian_delta(sigma * 0.99, 2 * C, per_epoch) > delta / (2 * epochs)
    # ... and E epochs compose (advanced or basic) to at most ε with δ/2 + E·δ/(2E) = δ.
    total = min(composition.advanced_composition(per_epoch, 0, epochs, delta / 2)[0], epochs * per_epoch)
    assert total <= epsilon * (1 + 1e-9)
    assert L.dp_sgd_epsilon(sigma, C, epochs, delta, "composition") == pytest.approx(epsilon, rel=1e-6)


def test_best_accountant_is_the_smallest_sigma_and_monotone():
    for epochs in (1, 3, 30):
        every = [L.dp_sgd_sigma(1.0, epochs, 1.0, 1e-5, a) for a in ("zcdp", "composition", "exact")]
        assert L.dp_sgd_sigma(1.0, epochs, 1.0, 1e-5, "best") == min(every)
    sigmas = [L.dp_sgd_sigma(1.0, 5, eps, 1e-5) for eps in (0.25, 0.5, 1, 2, 4)]
    assert all(a > b for a, b in zip(sigmas, sigmas[1:]))                 # more budget, less noise
    assert L.dp_sgd_sigma(1.0, 10, 1.0, 1e-5) > L.dp_sgd_sigma(1.0, 5, 1.0, 1e-5)  # more epochs, more noise


def _composed_gaussian_delta(sigma, clip_norm, epochs, epsilon):
    """δ(ε) of E epochs of a 2C-sensitive Gaussian step, from the privacy-loss distribution (independent of the code).

    Neither ``mechanisms.gaussian_delta`` nor the factor √E is used: at the worst pair (the sum moves by 2C,
    Lemma 9.1) one epoch's privacy loss is L₁ = (2C/σ)·Z + η₁ with η₁ = (2C)²/(2σ²) and Z ~ N(0, 1), i.e.
    L₁ ~ N(η₁, 2η₁); the E epochs draw fresh noise, so their losses add: L ~ N(Eη₁, 2Eη₁). The hockey-stick
    divergence is δ(ε) = E[(1 − e^{ε − L})₊], integrated here by quadrature.
    """
    eta = epochs * (2 * clip_norm) ** 2 / (2 * sigma ** 2)
    sd = math.sqrt(2 * eta)

    def integrand(loss):
        return -math.expm1(epsilon - loss) * stats.norm.pdf(loss, eta, sd)

    upper = max(epsilon, eta) + 40 * sd
    return integrate.quad(integrand, epsilon, upper, points=[max(epsilon, eta)], limit=400,
                          epsabs=0, epsrel=1e-11)[0]


def test_privacy_loss_quadrature_matches_the_closed_form_of_one_gaussian():
    # The independent δ(ε) above against Balle & Wang's closed form for one mechanism (E = 1): they must agree.
    for sigma, epsilon in ((3.0, 0.5), (7.5, 1.0), (2.0, 4.0)):
        assert _composed_gaussian_delta(sigma, 1.0, 1, epsilon) == pytest.approx(
            mechanisms.gaussian_delta(sigma, 2.0, epsilon), rel=1e-7)


@pytest.mark.parametrize("epsilon, delta, epochs", [(0.5, 1e-5, 1), (1.0, 1e-5, 5), (1.0, 1e-6, 20), (4.0, 1e-5, 7)])
def test_exact_sigma_certifies_the_budget_with_no_slack(epsilon, delta, epochs):
    C = 0.7
    sigma = L.dp_sgd_sigma(C, epochs, epsilon, delta, "exact")
    # (ε, δ) holds for the E composed epochs, and exactly: δ(ε) = δ up to the root finder's rounding ...
    reached = _composed_gaussian_delta(sigma, C, epochs, epsilon)
    assert reached <= delta * (1 + 1e-6)
    assert reached == pytest.approx(delta, rel=1e-5)
    # ... so 1 % less noise already breaks it (tightness: no smaller σ is valid for this analysis).
    assert _composed_gaussian_delta(0.99 * sigma, C, epochs, epsilon) > 1.05 * delta
    assert L.dp_sgd_epsilon(sigma, C, epochs, delta, "exact") == pytest.approx(epsilon, rel=1e-7)


def test_exact_accountant_catches_a_forgotten_root_e_and_too_little_noise():
    """Broken variants of the exact calibration fail the independent δ(ε) check."""
    C, epochs, epsilon, delta = 1.0, 5, 1.0, 1e-5
    # √E forgotten: one epoch's σ used for all E epochs. Its composed δ(ε) is thousands of times the budget.
    forgot_root_e = mechanisms.gaussian_sigma(2 * C, epsilon, delta)
    assert _composed_gaussian_delta(forgot_root_e, C, epochs, epsilon) > 1000 * delta
    # σ 10 % too small.
    assert _composed_gaussian_delta(L.dp_sgd_sigma(C, epochs, epsilon, delta, "exact") / 1.1, C, epochs,
                                    epsilon) > 2 * delta


def test_exact_accountant_is_the_smallest_and_best_picks_it():
    # Every valid accountant must give at least the exact (tight) σ; "best" then returns the exact one.
    for epochs in (1, 2, 5, 20, 100):
        for epsilon in (0.25, 1.0, 4.0):
            exact = L.dp_sgd_sigma(1.0, epochs, epsilon, 1e-5, "exact")
            assert exact <= L.dp_sgd_sigma(1.0, epochs, epsilon, 1e-5, "zcdp") * (1 + 1e-12)
            assert exact <= L.dp_sgd_sigma(1.0, epochs, epsilon, 1e-5, "composition") * (1 + 1e-12)
            assert L._calibration(1.0, epochs, epsilon, 1e-5, "best") == (exact, "exact")


def test_accountants_never_crash_on_tiny_sigma_and_never_under_report():
    # For σ ≪ C the δ(ε) root lies near ε ≈ 2C²E/σ², where e^ε·Φ(·) overflowed (an OverflowError from a
    # public function). Now every accountant answers; where floating point cannot certify, the answer is inf.
    for sigma in (1e-20, 1e-10, 1e-5):
        for epochs in (1, 7):
            for accountant in L.ACCOUNTANTS:
                epsilon = L.dp_sgd_epsilon(sigma, 1.0, epochs, 1e-5, accountant)
                assert epsilon == math.inf or epsilon > 1e9, (sigma, epochs, accountant, epsilon)


def test_default_dp_sgd_and_the_chapter_9_comparison_use_the_exact_accountant():
    from dpteach.experiments import table1
    X, y, _ = gaussian_halfspace_data(400, 3, threshold=0.3, noise_rate=0.1, rng=11)
    model = L.DPSGDLogisticRegression(1.0, 1e-5, random_state=1).fit(X, y)
    assert model.privacy_.steps[0].accountant == "exact"
    assert model.sigma_ == L.dp_sgd_sigma(1.0, 5, 1.0, 1e-5, "exact")
    peer = table1.fit_learner("dp_sgd", X, y, 2.0, 1e-5, rng=2)
    s = table1.SETTINGS["dp_sgd"]
    assert peer.privacy_.steps[0].accountant == "exact"
    assert _composed_gaussian_delta(peer.sigma_, s["clip_norm"], s["n_epochs"], 2.0) <= 1e-5 * (1 + 1e-6)


# --- the noisy step: its law, and an audit ------------------------------------------------

def test_noise_is_gaussian_with_sigma_and_a_30_percent_error_is_rejected():
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((20, 2)), np.ones(20)
    w = np.array([0.3, -0.2])
    sigma = 2.5
    exact = LL.clip_gradients(LL.logistic_gradients(X, y, w, 0.0), 1.0).sum(axis=0)
    draws = L.noisy_clipped_gradient_sum(X, y, w, 0.0, 1.0, sigma, rng=4, size=20_000)
    z = ((draws - exact) / sigma).ravel()
    assert stats.kstest(z, "norm").pvalue > 1e-6
    # The same test at the same false-alarm level rejects noise of scale 1.3σ.
    wrong = L.noisy_clipped_gradient_sum(X, y, w, 0.0, 1.0, 1.3 * sigma, rng=4, size=20_000)
    assert stats.kstest(((wrong - exact) / sigma).ravel(), "norm").pvalue < 1e-6


def _neighbours(far=20.0, n=40):
    """Replace-one pair at (and beyond) the clipping bound: one far point whose label flips.

    At θ = 0 the far record's gradient is −y·(far, 0, 1)/2 with norm ≈ far/2 ≫ C; clipped, the
    first coordinate of the sum moves by ≈ 2C between the pair; unclipped, by far. The other
    records are x = 0 with y = +1, identical in both.
    """
    X = np.zeros((n, 2))
    X[0, 0] = far
    y = np.ones(n)
    y_flip = y.copy()
    y_flip[0] = -1.0
    return (X, y), (X, y_flip)


def _step(step_fn, sigma):
    def mechanism(data, n_trials, rng):
        X, y = data
        return step_fn(X, y, np.zeros(2), 0.0, 1.0, sigma, rng=rng, size=n_trials)[:, 0]
    return mechanism


def test_one_epoch_audit_passes_and_forgotten_clipping_is_caught():
    epsilon, delta = 1.0, 1e-5
    sigma = L.dp_sgd_sigma(1.0, 1, epsilon, delta)           # one epoch = one step per example
    data, neighbour = _neighbours()
    # Events {first coordinate < t}: the flipped record shifts the sum by −2C (clipped) or −20 (not).
    events = [lambda out, t=t: np.asarray(out) < t for t in np.linspace(-4, 0, 9) * sigma]
    good = audit.audit(_step(L.noisy_clipped_gradient_sum, sigma), data, neighbour, events,
                       n_trials=100_000, delta=delta, rng=5)
    assert good.epsilon_lower <= epsilon
    broken = audit.audit(_step(L.broken_noisy_gradient_sum_without_clipping, sigma), data, neighbour, events,
                         n_trials=100_000, delta=delta, rng=5)
    # Without clipping the shift is 20/(2C) = 10 times the calibrated sensitivity: far beyond ε.
    assert broken.epsilon_lower > epsilon


def test_forgotten_factor_two_breaks_the_budget_exactly():
    """Calibrating for sensitivity C (add/remove) instead of 2C (replace-one) is not (ε, δ)-DP: exact δ check."""
    epsilon, delta = 1.0, 1e-5
    half = L._sigma_composition(1.0, 1, epsilon, delta)  # σ for sensitivity C: the slip
    assert mechanisms.gaussian_delta(half, 2.0, epsilon) > 100 * delta
    right = L.dp_sgd_sigma(1.0, 1, epsilon, delta, "composition")
    assert mechanisms.gaussian_delta(right, 2.0, epsilon) <= delta


# --- the estimator ------------------------------------------------------------------------------

def test_learns_the_rcn_halfspace_at_large_epsilon():
    X, y, normal = gaussian_halfspace_data(20_000, 3, threshold=0.3, noise_rate=0.1, rng=6)
    model = L.DPSGDLogisticRegression(8.0, 1e-5, random_state=7).fit(X, y)
    norm = np.linalg.norm(model.coef_)
    error = rcn_halfspace_error(model.coef_ / norm, -model.intercept_ / norm, normal, 0.3, 0.1)
    # Under RCN the logistic minimiser is the target (symmetric noise, Gaussian x); 0.02 leaves room
    # for 500 noisy steps. A wrong gradient sign or a forgotten intercept gives errors above 0.1.
    assert error <= 0.1 + 0.02
    assert model.privacy_.epsilon == 8.0 and model.sigma_ == L.dp_sgd_sigma(1.0, 5, 8.0, 1e-5)
    assert model.n_steps_ == 5 * 100 and model.batch_size_ == 200
    np.testing.assert_array_equal(model.predict(X[:5]), np.where(X[:5] @ model.coef_ + model.intercept_ >= 0,
                                                                 1.0, -1.0))


def test_defaults_follow_the_declared_data_norm_and_never_the_data():
    # C = R and η = 4/R² (1/β for the logistic loss on rows of norm ≤ R): the same for any data, and
    # explicit settings win over the rule.
    X, y, _ = gaussian_halfspace_data(300, 2, noise_rate=0.1, rng=12)
    for data_norm in (0.5, 1.0, 3.0):
        for rows in (X, 100 * X):
            model = L.DPSGDLogisticRegression(1.0, 1e-5, data_norm=data_norm, random_state=0).fit(rows, y)
            assert model.clip_norm_ == data_norm and model.learning_rate_ == 4 / data_norm ** 2
            assert model.sigma_ == L.dp_sgd_sigma(data_norm, 5, 1.0, 1e-5)
    explicit = L.DPSGDLogisticRegression(1.0, 1e-5, data_norm=3.0, clip_norm=1.0, learning_rate=0.5).fit(X, y)
    assert explicit.clip_norm_ == 1.0 and explicit.learning_rate_ == 0.5
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="data_norm"):
            L.DPSGDLogisticRegression(1.0, 1e-5, data_norm=bad).fit(X, y)
    # data_norm is keyword-only: the third positional argument is still clip_norm, as before data_norm existed.
    positional = L.DPSGDLogisticRegression(1.0, 1e-5, 2.0).fit(X, y)
    assert positional.clip_norm_ == 2.0 and positional.learning_rate_ == 4.0
    with pytest.raises(TypeError):
        L.DPSGDLogisticRegression(1.0, 1e-5, 2.0, 5, None, None, 0.0, "best", None, 3.0)


def test_same_seed_same_result_and_not_fitted_error():
    X, y, _ = gaussian_halfspace_data(500, 2, noise_rate=0.1, rng=8)
    a = L.DPSGDLogisticRegression(1.0, 1e-5, random_state=3).fit(X, y)
    b = L.DPSGDLogisticRegression(1.0, 1e-5, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    with pytest.raises(NotFittedError):
        L.DPSGDLogisticRegression(1.0, 1e-5).predict(X)
    assert "epsilon=1.0" in repr(a)


def test_fit_releases_through_the_audited_step(monkeypatch):
    # Issue 23: every step of fit is the audited noisy_clipped_gradient_sum's body (not a copy of it), with the σ of
    # the accountant and the clip norm C; one call per step. Issue 32: the loop calls that body unvalidated, and it
    # computes the per-example gradients once per step (the clipped count comes from the same pass).
    calls, gradient_passes = [], []
    body, gradients = L.noisy_clipped_gradient_sum_prechecked, L.per_example_gradients

    def counted(X, y, coef, intercept, clip_norm, sigma, rng, n_samples=1):
        calls.append((len(X), clip_norm, sigma))
        return body(X, y, coef, intercept, clip_norm, sigma, rng, n_samples)

    def counted_gradients(*args):
        gradient_passes.append(1)
        return gradients(*args)

    monkeypatch.setattr(L, "noisy_clipped_gradient_sum_prechecked", counted)
    monkeypatch.setattr(L, "per_example_gradients", counted_gradients)
    X, y, _ = gaussian_halfspace_data(200, 2, noise_rate=0.1, rng=8)
    model = L.DPSGDLogisticRegression(1.0, 1e-5, n_epochs=2, batch_size=20, random_state=3).fit(X, y)
    assert len(calls) == len(gradient_passes) == model.n_steps_ == 2 * (200 // 20)
    assert set(calls) == {(20, model.clip_norm_, model.sigma_)}
    # The public, audited step is that body: the same release for the same arguments and seed.
    w = np.array([0.3, -0.2])
    public = L.noisy_clipped_gradient_sum(X[:20], y[:20], w, 0.1, 1.0, 2.0, rng=5, size=3)
    assert np.array_equal(public, body(X[:20], y[:20], w, 0.1, 1.0, 2.0, np.random.default_rng(5), 3)[0])


# --- bad input -------------------------------------------------------------------------------

X3, Y3 = np.ones((3, 2)), np.array([1.0, -1.0, 1.0])


@pytest.mark.parametrize("call, match", [
    (lambda: LL.logistic_loss(X3, [1, 0, 1], np.zeros(2)), "y"),
    (lambda: LL.logistic_loss(X3, Y3, np.zeros(3)), "coef"),
    (lambda: LL.logistic_gradients(X3, Y3, np.zeros(2), np.nan), "intercept"),
    (lambda: LL.logistic_gradients([[np.inf, 1]] * 3, Y3, np.zeros(2)), "X"),
    (lambda: LL.clip_gradients(X3, 0.0), "clip_norm"),
    (lambda: LL.clip_gradients(np.ones(3), 1.0), "gradients"),
    (lambda: LL.gradient_sum_sensitivity(-1), "clip_norm"),
    (lambda: L.dp_sgd_sigma(1.0, 0, 1.0, 1e-5), "n_epochs"),
    (lambda: L.dp_sgd_sigma(1.0, 1, 0.0, 1e-5), "epsilon"),
    (lambda: L.dp_sgd_sigma(1.0, 1, "1", 1e-5), "epsilon"),
    (lambda: L.dp_sgd_sigma(1.0, 1, True, 1e-5), "epsilon"),
    (lambda: L.dp_sgd_sigma(1.0, 1, 1.0, 0.0), "delta"),
    (lambda: L.dp_sgd_sigma(1.0, 1, 1.0, 1e-5, "rdp"), "accountant"),
    (lambda: L.dp_sgd_epsilon(0.0, 1.0, 1, 1e-5), "sigma"),
    (lambda: L.noisy_clipped_gradient_sum(X3, Y3, np.zeros(2), 0.0, 1.0, 0.0), "sigma"),
    (lambda: L.noisy_clipped_gradient_sum(X3, Y3, np.zeros(2), 0.0, 1.0, 1.0, size=0), "size"),
    (lambda: L.noisy_clipped_gradient_sum(X3, Y3, np.zeros(2), 0.0, 1.0, 1.0, rng=-1), "rng"),
    (lambda: L.DPSGDLogisticRegression(1.0, 1e-5).fit(X3, Y3[:2]), "same number"),
    (lambda: L.DPSGDLogisticRegression(1.0, 1e-5, batch_size=4).fit(X3, Y3), "batch_size"),
    (lambda: L.DPSGDLogisticRegression(1.0, 1e-5, learning_rate=0).fit(X3, Y3), "learning_rate"),
    (lambda: L.DPSGDLogisticRegression(1.0, 1e-5, l2_penalty=-1).fit(X3, Y3), "l2_penalty"),
    (lambda: L.DPSGDLogisticRegression(1.0, 1e-5, random_state="x").fit(X3, Y3), "random_state|rng"),
    (lambda: L.DPSGDLogisticRegression(math.inf, 1e-5).fit(X3, Y3), "epsilon"),
    (lambda: L.DPSGDLogisticRegression(1.0, 1e-5).fit(X3, Y3).predict(np.ones((2, 3))), "features"),
])
def test_bad_input_raises_named_errors(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_default_batch_balances_the_steps_against_their_noise():
    # sgd_batch_size minimises D²B/(2ηEn) + ησ²p/(2B²) (the Zinkevich bound as a function of B), D = 4/R:
    # B³ = 2η²σ²pEn/D². At η = 4, σ = 10, p = 4, E = 5, n = 1000, R = 1: B³ = 2·16·100·4·5·1000/16 = 4·10⁶.
    from dpteach.dp_logistic import sgd_batch_size
    assert sgd_batch_size(1000, 4, 10.0, 4.0, 5, 1.0) == math.ceil((4e6) ** (1 / 3))  # 159
    # A row bound R scales D = 4/R, so B grows like R^{2/3} at fixed η, σ.
    assert sgd_batch_size(1000, 4, 10.0, 4.0, 5, 8.0) == math.ceil((4e6 * 64) ** (1 / 3))
    # Never beyond n, never below ⌈n/100⌉ (at most 100 steps per epoch).
    assert sgd_batch_size(1000, 4, 1e6, 4.0, 5, 1.0) == 1000
    assert sgd_batch_size(10 ** 6, 4, 1e-3, 4.0, 5, 1.0) == 10 ** 4
    # The learner uses it: more noise (smaller ε) means larger batches.
    X = np.random.default_rng(0).normal(size=(2000, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    small, large = (L.DPSGDLogisticRegression(eps, 1e-5, random_state=0).fit(X, y).batch_size_ for eps in (0.5, 4.0))
    assert small > large


def test_chapter9_sentences_on_the_default_batch():
    # Chapter 9: "On a few hundred rows that is one or two steps per epoch; at n = 2·10⁵ it is the cap of 100 steps
    # per epoch" (R = 1, η = 4, E = 5, δ = 1e-5, the exact σ). A few hundred rows: breast_cancer's 398 training
    # rows (d = 30) and wine's 124 (d = 13) at the chapters' ε; 2·10⁵ rows: chapter 9's unit-ball rows (d = 10).
    from dpteach.dp_logistic import sgd_batch_size
    for n, d in ((398, 30), (124, 13)):
        for epsilon in (0.5, 1.0, 2.0):
            sigma = L.dp_sgd_sigma(1.0, 5, epsilon, 1e-5, accountant="exact")
            assert n // sgd_batch_size(n, d + 1, sigma, 4.0, 5, 1.0) in (1, 2)
    sigma = L.dp_sgd_sigma(1.0, 5, 1.0, 1e-5, accountant="exact")
    assert sgd_batch_size(200_000, 11, sigma, 4.0, 5, 1.0) == 2000
