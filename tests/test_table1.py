"""Tests of dpteach.experiments.table1: the chapter 9 runners, including the diffprivlib / scikit-learn peers (small sizes)."""

import builtins
import math

import numpy as np
import pytest

from dpteach import bounds
from dpteach.experiments import table1 as T, table1_rates, table1_tables
from dpteach.hermite import feature_dimension


# --- the data and the shape helpers ----------------------------------------------------------

def test_make_problem_knows_opt():
    X, y, opt = T.make_problem("rcn", 1000, 3, rng=0, threshold=0.3, noise=0.1)
    assert X.shape == (1000, 3) and set(np.unique(y)) <= {-1.0, 1.0} and opt == 0.1
    _, _, opt_structured = T.make_problem("structured", 10, 3, rng=0)
    # The generating halfspace has error exactly η₀ = 0.1, so OPT ≤ 0.1 (chapter 6 finds it equal).
    assert 0.05 < opt_structured <= 0.1 + 1e-5  # OPT is computed to about 1e-6


def test_n_needed_interpolates_in_log_n():
    ns = np.array([1000, 10_000, 100_000])
    errors = np.array([[0.30, 0.30], [0.20, 0.20], [0.10, 0.10]])
    # 0.15 is halfway between 0.20 and 0.10 in error, so halfway in log n: √(10⁴·10⁵).
    assert table1_tables.n_needed(ns, errors, 0.15) == pytest.approx(math.sqrt(1e9))
    assert table1_tables.n_needed(ns, errors, 0.35) == 1000                 # reached at once
    assert math.isnan(table1_tables.n_needed(ns, errors, 0.05))             # never reached
    np.testing.assert_allclose(table1_tables.n_needed(ns, errors[:, 0], [0.2, 0.25]), [10_000, math.sqrt(1e7)])


def test_excess_shape_inverts_the_table1_rates():
    ns = np.array([1e3, 1e4, 1e5, 1e6])
    for name in T.AGNOSTIC_LEARNERS:
        alphas = table1_rates.excess_error_shape(name, ns, 1.0, 3, constant=0.5)
        back = 0.5 * table1_rates.sample_complexity_shape(name, alphas, 1.0, 3)
        capped = alphas >= 0.5
        np.testing.assert_allclose(back[~capped], ns[~capped], rtol=1e-6)
        assert np.all(np.diff(alphas) <= 0)                     # more data, smaller excess
    # The shapes are the bounds module's functions, not new formulas.
    assert table1_rates.sample_complexity_shape("improper", 0.1, 2.0, 3) == bounds.hermite_l1_sample_complexity(3, 3, 0.1, 2.0)
    assert table1_rates.sample_complexity_shape("semi_agnostic", 0.1, 2.0, 3) == bounds.dpsas_sample_complexity_rate(3, 0.1,
                                                                                                           2.0)


def test_fit_shape_constant_recovers_a_known_constant():
    shape = np.array([1.0, 10.0, 100.0, np.nan])
    assert table1_rates.fit_shape_constant(3.0 * shape, shape) == pytest.approx(3.0)
    assert math.isnan(table1_rates.fit_shape_constant([-1.0], [1.0]))


def test_complexity_shapes_scale_as_stated():
    ds = np.array([2, 4, 8])
    improper = table1_rates.complexity_shape("improper", ds, 1000)
    np.testing.assert_allclose(improper / improper[0], [feature_dimension(d, 3) / feature_dimension(2, 3) for d in ds])
    semi = table1_rates.complexity_shape("semi_agnostic", ds, 1000)
    np.testing.assert_allclose(semi / semi[0], ds / 2)


# --- diffprivlib where Chaudhuri et al.'s Theorem 9 covers it -----------------------------------

def test_unit_ball_rows_append_a_constant_scale_and_keep_every_halfspace():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((2000, 3)) * np.where(rng.random((2000, 1)) < 0.1, 10.0, 1.0)  # some rows beyond 2√3
    bound = 2 * math.sqrt(3)
    rows = T.unit_ball_rows(X, bound)
    assert rows.shape == (2000, 4) and np.all(np.linalg.norm(rows, axis=1) <= 1 + 1e-12)
    inside = np.linalg.norm(X, axis=1) <= bound
    # Rows within the public bound are only scaled, by exactly 1/√(bound² + 1), constant feature included.
    np.testing.assert_allclose(rows[inside], np.hstack([X, np.ones((2000, 1))])[inside] / math.sqrt(bound ** 2 + 1))
    assert np.all(np.abs(np.linalg.norm(rows[~inside], axis=1) - 1) < 1e-12) and (~inside).sum() > 50
    # Every halfspace on the mapped rows is the same classifier as sign(<v[:d], x> + v[d]) on the raw ones.
    for v in rng.standard_normal((20, 4)):
        assert np.array_equal(rows @ v >= 0, X @ v[:3] + v[3] >= 0)


def test_diffprivlib_peer_is_fitted_in_the_setting_of_theorem_9(monkeypatch):
    """Rows of norm ≤ 1 with a constant feature, data_norm = 1, no unregularised intercept (review A1).

    The spy records what diffprivlib is given: the chapter's old call (raw rows, data_norm = 2√d, the default
    fit_intercept=True) fails every assertion below.
    """
    pytest.importorskip("diffprivlib", reason="diffprivlib is not installed (pip install -r requirements.txt)")
    from diffprivlib.models import LogisticRegression
    seen = {}
    original = LogisticRegression.fit

    def spy(self, X, y, *args, **kwargs):
        seen.update(X=np.array(X), data_norm=self.data_norm, fit_intercept=self.fit_intercept)
        return original(self, X, y, *args, **kwargs)

    monkeypatch.setattr(LogisticRegression, "fit", spy)
    X, y, _ = T.make_problem("rcn", 3000, 3, rng=4)
    model = T.fit_learner("diffprivlib", X, y, 2.0, rng=5)
    assert seen["fit_intercept"] is False and seen["data_norm"] == 1.0
    assert seen["X"].shape == (3000, 4) and np.max(np.linalg.norm(seen["X"], axis=1)) <= 1 + 1e-12
    np.testing.assert_allclose(seen["X"], T.unit_ball_rows(X, T.SETTINGS["diffprivlib"]["data_norm_factor"] * math.sqrt(3)))
    # The returned model scores raw rows through the same map, and it learns (error ≈ 0.1 + a few 0.01 at ε = 2).
    X_test, y_test, _ = T.make_problem("rcn", 20_000, 3, rng=6)
    assert np.array_equal(model.predict(X_test), model.model.predict(T.unit_ball_rows(X_test, 2 * math.sqrt(3))))
    assert model.score(X_test, y_test) > 0.8


# --- the population logistic minimiser (table1_surrogate) ---------------------------------------

def test_rcn_logistic_threshold_solves_the_first_order_conditions():
    from scipy import integrate, special, stats
    from dpteach.experiments import table1_surrogate as S
    centred = S.rcn_logistic_threshold(0.0, 0.1)
    assert abs(centred["threshold"]) < 1e-9 and centred["excess_error"] < 1e-9
    t, eta = 0.3, 0.1
    result = S.rcn_logistic_threshold(t, eta)
    w, b = result["coef"][0], result["intercept"]
    assert abs(result["coef"][1]) < 1e-8

    # Independent check by adaptive quadrature in x₁: E[(σ(wx + b) − p(x))·(x, 1)] = 0 at the minimiser.
    def moment(power):
        def f(x):
            return (special.expit(w * x + b) - (1 - eta if x > t else eta)) * x ** power * stats.norm.pdf(x)
        return integrate.quad(f, -12, 12, points=[t], limit=200, epsabs=1e-13)[0]

    assert abs(moment(0)) < 1e-9 and abs(moment(1)) < 1e-9
    # The threshold is off the target's, to the right, and the excess is (1 − 2η)|Φ(τ) − Φ(t*)|.
    assert result["threshold"] > t
    assert result["excess_error"] == pytest.approx((1 - 2 * eta) * (stats.norm.cdf(result["threshold"]) -
                                                                     stats.norm.cdf(t)), rel=1e-9)


def test_massart_example_errors_match_a_monte_carlo_of_the_same_law():
    from dpteach.experiments import table1_surrogate as S
    result = S.massart_example(0.5, 0.45)
    rng = np.random.default_rng(8)
    n = 1_000_000
    X = rng.standard_normal((n, 2))
    y = np.where(X[:, 0] >= 0, 1.0, -1.0)
    y[(X[:, 0] > 0.5) & (X[:, 1] > 0) & (rng.random(n) < 0.45)] *= -1
    prediction = np.where(X @ np.array(result["coef"]) + result["intercept"] >= 0, 1.0, -1.0)
    # Standard error of a Monte Carlo error at n = 10⁶ is ≤ 0.0005: 0.002 is 4 of them.
    assert np.mean(prediction != y) == pytest.approx(result["logistic_error"], abs=0.002)
    assert np.mean(np.where(X[:, 0] >= 0, 1.0, -1.0) != y) == pytest.approx(result["bayes_error"], abs=0.002)


# --- the comparison itself, with the peers ----------------------------------------------------

@pytest.fixture(scope="module")
def small_comparison():
    pytest.importorskip("sklearn", reason="scikit-learn is not installed (pip install -r requirements.txt)")
    pytest.importorskip("diffprivlib", reason="diffprivlib is not installed (pip install -r requirements.txt)")
    return T.run_comparison(kinds=("rcn", "structured"), epsilons=(4.0,), ns=(40_000,), n_reps=1,
                            n_test=50_000, rng=11)


def test_comparison_runs_every_learner_and_peer(small_comparison):
    result = small_comparison
    assert result["skipped"] == ""
    for name in T.LEARNERS:
        assert result["error"][name].shape == (2, 1, 1, 1)
        assert np.all(np.isfinite(result["error"][name])) and np.all(result["seconds"][name] > 0)
    assert result["opt"][0] == 0.1


def test_the_papers_motivation_under_structured_noise(small_comparison):
    """A convex surrogate keeps an excess over OPT under structured noise, the agnostic learners do not.

    Test errors are estimated on 50 000 points: standard error ≤ 0.5/√50 000 ≈ 0.0022. Non-private
    logistic regression's excess is ≈ 0.023 under structured noise (the population value at n = 50 000;
    Table 9.2), so "> 0.01" is ≈ 6 standard errors below it; under RCN its excess is a sampling
    effect (≈ 0.004 at n = 40 000), and "< 0.012" is 3.5 standard errors above that.
    """
    error, opt = small_comparison["error"], small_comparison["opt"]
    rcn, structured = 0, 1
    logistic = error["logistic"][structured].item() - opt[structured]
    assert logistic > 0.01
    assert error["logistic"][rcn].item() - opt[rcn] < 0.012
    for name in ("improper", "proper"):
        assert error[name][structured].item() < error["logistic"][structured].item()
    # Only an improper learner can go below OPT (there, by more than 3 standard errors).
    assert error["improper"][structured].item() < opt[structured] - 0.0066


def test_winner_table_picks_the_smallest_error(small_comparison):
    rows = table1_tables.winner_table(small_comparison)
    assert len(rows) == 2
    for row in rows:
        a = small_comparison["kinds"].index(row["kind"])
        means = {name: small_comparison["error"][name][a, 0, 0, 0] for name in T.LEARNERS if name != "logistic"}
        assert row["winner"] == min(means, key=means.get) and row["error"] == min(means.values())
        assert row["runner_up_error"] >= row["error"]
    table = table1_tables.format_winner_table(rows)
    assert table.count("\n") == 3 and "n = 40,000" in table and "structured" in table


def test_surrogate_gap_grows_with_the_threshold():
    pytest.importorskip("sklearn", reason="scikit-learn is not installed (pip install -r requirements.txt)")
    gap = T.surrogate_gap([0.0, 1.0], [0.1], n=20_000, n_test=50_000, rng=3)
    # At t* = 0 the slab is symmetric about the boundary and logistic regression is unbiased (excess ≈ 0);
    # at t* = 1 its excess is ≈ 0.044 (Table 9.3, n = 50 000); 0.02 apart is ≈ 6 standard errors of a difference.
    assert gap["excess"][1, 0] - gap["excess"][0, 0] > 0.02


def test_missing_peers_are_skipped_with_a_message(monkeypatch):
    real_import = builtins.__import__

    def no_diffprivlib(name, *args, **kwargs):
        if name.split(".")[0] == "diffprivlib":
            raise ImportError("simulated: not installed")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_diffprivlib)
    ok, message = T.peers_available(["diffprivlib", "dp_sgd"])
    assert not ok and "diffprivlib" in message and "requirements.txt" in message
    assert T.peers_available(["dp_sgd", "proper"]) == (True, "")
    with pytest.warns(UserWarning, match="diffprivlib"):
        result = T.run_comparison(kinds=("rcn",), epsilons=(1.0,), ns=(2000,), learners=("proper", "diffprivlib"),
                                  n_reps=1, n_test=1000, rng=0)
    assert np.all(np.isnan(result["error"]["diffprivlib"])) and np.all(np.isfinite(result["error"]["proper"]))
    assert "diffprivlib" in result["skipped"]


def test_runtime_vs_d_returns_seconds():
    times = T.runtime_vs_d([2, 3], n=2000, learners=("proper", "dp_sgd"), rng=0)
    assert set(times) == {"proper", "dp_sgd"} and all(np.all(t > 0) for t in times.values())


# --- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("call, match", [
    (lambda: T.make_problem("adversarial", 10, 3), "kind"),
    (lambda: T.make_problem("rcn", 0, 3), "n"),
    (lambda: T.make_problem("rcn", 10, 1), "d"),
    (lambda: T.make_problem("rcn", 10, 3, noise=0.5), "noise"),
    (lambda: T.make_problem("rcn", 10, 3, threshold=np.nan), "threshold"),
    (lambda: T.make_problem("rcn", 10, 3, rng="x"), "rng"),
    (lambda: T.fit_learner("svm", np.ones((3, 2)), np.ones(3), 1.0), "name"),
    (lambda: T.fit_learner("proper", np.ones((3, 2)), np.ones(3), 0.0), "epsilon"),
    (lambda: T.fit_learner("proper", np.ones((3, 2)), np.ones(3), 1.0, delta=1.0), "delta"),
    (lambda: T.fit_learner("proper", np.ones((3, 2)), np.ones(3), 1.0, settings={"svm": {}}), "settings"),
    (lambda: T.run_comparison(kinds=("x",)), "kind"),
    (lambda: T.run_comparison(epsilons=(0.0,)), "epsilons"),
    (lambda: T.run_comparison(ns=(10,)), "n"),
    (lambda: T.run_comparison(n_reps=0), "n_reps"),
    (lambda: T.run_comparison(learners=("svm",)), "learner"),
    (lambda: T.run_comparison(delta=0.0), "delta"),
    (lambda: table1_tables.mean_error(np.array(1.0)), "errors"),
    (lambda: table1_tables.n_needed([2, 1], [0.1, 0.2], 0.1), "ns"),
    (lambda: table1_tables.n_needed([1, 2], [0.1, 0.2, 0.3], 0.1), "errors"),
    (lambda: table1_tables.n_needed([1, 2], [0.1, 0.2], np.nan), "target"),
    (lambda: table1_rates.sample_complexity_shape("dp_sgd", 0.1, 1.0, 3), "name"),
    (lambda: table1_rates.sample_complexity_shape("proper", 0.6, 1.0, 3), "alpha"),
    (lambda: table1_rates.sample_complexity_shape("proper", 0.1, -1.0, 3), "epsilon"),
    (lambda: table1_rates.excess_error_shape("proper", [0.0], 1.0, 3), "ns"),
    (lambda: table1_rates.excess_error_shape("proper", [10.0], 1.0, 3, constant=0), "constant"),
    (lambda: table1_rates.fit_shape_constant([1.0, 2.0], [1.0]), "same shape"),
    (lambda: table1_rates.complexity_shape("logistic", 3, 10), "name"),
    (lambda: table1_rates.complexity_shape("proper", 0, 10), "d"),
    (lambda: T.runtime_vs_d([1]), "d"),
    (lambda: T.runtime_vs_d([2], kind="x"), "kind"),
    (lambda: table1_tables.winner_table({}), "run_comparison"),
    (lambda: table1_tables.format_winner_table([]), "rows"),
    (lambda: T.surrogate_gap([0.3], [0.6]), "noise"),
    (lambda: T.peers_available(["svm"]), "learner"),
])
def test_bad_input_raises_named_errors(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
