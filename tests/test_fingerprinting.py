"""Tests of dpteach.fingerprinting (chapter 4): statistics, ROC/AUC, the DP envelope, the lemmas, the estimators.

Statistical tolerances are derived in the comments: mean checks use 6-standard-
deviation bands (two-sided false alarm 2e-9) from variances computed here, the
ROC-vs-envelope test uses Clopper–Pearson intervals at joint level 1e-6, and
every privacy test that accepts the clipped Gaussian mean is paired with the
σ/4 variant that the same test rejects.
"""

import functools
import itertools
import math

import numpy as np
import pytest
from scipy import special, stats

from dpteach import attack_targets, audit, bounds, data, fingerprinting_lemmas
from dpteach import fingerprinting as fp
from dpteach.experiments import fingerprinting as ex
from dpteach.mechanisms import gaussian_sigma

FALSE_ALARM = 1e-6


# --- statistics --------------------------------------------------------------------------------

def test_score_statistic_matches_a_loop_and_broadcasts_over_trials():
    rng = np.random.default_rng(0)
    records, estimate, center = rng.normal(size=(3, 4, 5)), rng.normal(size=(3, 5)), rng.normal(size=5)
    got = fp.score_statistic(records, estimate, center)
    want = np.array([[np.dot(records[t, k] - center, estimate[t] - center) for k in range(4)] for t in range(3)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(fp.score_statistic(records[1], estimate[1], center), want[1], rtol=1e-12)
    # a per-trial centre (e.g. a public reference mean per trial)
    centers = rng.normal(size=(3, 5))
    np.testing.assert_allclose(fp.score_statistic(records, estimate, centers)[2],
                               (records[2] - centers[2]) @ (estimate[2] - centers[2]), rtol=1e-12)


def test_regression_statistics_match_their_formulas():
    rng = np.random.default_rng(1)
    x, y, y_fresh = rng.normal(size=(6, 4)), rng.normal(size=6), rng.normal(size=6)
    beta, estimate = rng.normal(size=4), np.array([0.3, -2.0, 1.0, -0.1])
    np.testing.assert_allclose(fp.classical_regression_statistic(x, y, y_fresh, estimate),
                               (x * (y - y_fresh)[:, None]) @ estimate, rtol=1e-12)
    np.testing.assert_allclose(fp.regression_score_statistic(x, y, beta, estimate),
                               (x @ (estimate - beta)) * (y - x @ beta), rtol=1e-12)
    # top-2 by |M|: coordinates 1 (−2.0) and 2 (1.0)
    np.testing.assert_allclose(fp.sparse_regression_statistic(x, y, y_fresh, estimate, 2),
                               (x[:, 1] + x[:, 2]) * (y - y_fresh), rtol=1e-12)
    np.testing.assert_allclose(fp.sparse_regression_statistic(x, y, y_fresh, estimate, 2, weight="sign"),
                               (-x[:, 1] + x[:, 2]) * (y - y_fresh), rtol=1e-12)


def test_printed_thresholds():
    assert fp.printed_threshold_classical(100, 1e-3, 2.0) == pytest.approx(4 * math.sqrt(800 * math.log(1e3)))
    assert fp.printed_threshold_sparse(10, 1e-3, 2.0) == pytest.approx(2 * math.sqrt(20 * math.log(1e3)))


# --- ROC and AUC ---------------------------------------------------------------------------------

def brute_force_auc(ins, outs):
    pairs = [(1.0 if a > b else 0.5 if a == b else 0.0) for a, b in itertools.product(ins, outs)]
    return sum(pairs) / len(pairs)


@pytest.mark.parametrize("seed", range(5))
def test_auc_equals_the_pair_count_including_ties(seed):
    rng = np.random.default_rng(seed)
    ins, outs = rng.integers(0, 4, size=17), rng.integers(0, 4, size=11)  # many ties
    assert fp.auc(ins, outs) == pytest.approx(brute_force_auc(ins, outs), abs=1e-12)
    fpr, tpr = fp.roc_curve(ins, outs)
    # trapezoids between tie groups give ties half credit: the area is the AUC
    assert np.trapezoid(tpr, fpr) == pytest.approx(brute_force_auc(ins, outs), abs=1e-12)


def test_auc_extremes_and_roc_shape():
    assert fp.auc([1.0, 1.0], [1.0, 1.0]) == 0.5
    assert fp.auc([3.0, 4.0], [1.0, 2.0]) == 1.0
    assert fp.auc([1.0, 2.0], [3.0, 4.0]) == 0.0
    fpr, tpr = fp.roc_curve(np.random.default_rng(0).normal(size=50), np.random.default_rng(1).normal(size=40))
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0, 0, 1, 1)
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    assert fpr.size == 91  # one point per distinct score, plus the origin


def test_calibrate_threshold_has_exact_empirical_fpr():
    scores = np.random.default_rng(2).normal(size=1000)
    for fpr in (0.01, 0.05, 0.1, 0.5):
        t = fp.calibrate_threshold(scores, fpr)
        assert np.sum(scores > t) == round(fpr * 1000)
        assert t in scores
    # 700·0.1 = 70.00000000000001 and 0.07·1000 = 70.00000000000001: no off-by-one from rounding
    assert np.sum(scores > fp.calibrate_threshold(scores, 0.07)) == 70
    assert np.sum(scores[:700] > fp.calibrate_threshold(scores[:700], 0.1)) == 70


# --- the DP envelope ----------------------------------------------------------------------------

@pytest.mark.parametrize("epsilon, delta", [(0.1, 0.0), (1.0, 1e-5), (3.0, 0.01), (10.0, 0.1)])
def test_envelope_is_monotone_starts_at_delta_and_is_capped(epsilon, delta):
    grid = np.linspace(0, 1, 1001)
    env = fp.dp_roc_envelope(grid, epsilon, delta)
    assert env[0] == pytest.approx(delta, abs=1e-15)
    assert np.all(np.diff(env) >= -1e-15)
    assert np.all(env <= 1) and env[-1] == 1.0
    assert np.all(env >= grid - 1e-15)  # a test can always reach TPR = FPR by coin flipping
    knee = (1 - delta) / (1 + math.exp(epsilon))  # where the two lines meet
    assert fp.dp_roc_envelope(knee / 2, epsilon, delta) == pytest.approx(math.exp(epsilon) * knee / 2 + delta)
    assert fp.dp_roc_envelope((1 + knee) / 2, epsilon, delta) == pytest.approx(
        1 - math.exp(-epsilon) * (1 - delta - (1 + knee) / 2))


def _envelope_violation(estimator, epsilon, delta, seed):
    """Largest certified excess of an empirical ROC over the (ε, δ) envelope, at FPR >= 1e-2.

    Thresholds are fixed on a calibration run (non-member quantiles at 15 FPRs in
    [0.01, 0.95]); a fresh run of N independent trials (one member, one non-member
    each: pooled=False) then gives binomial counts. At each threshold the member
    rate gets a one-sided Clopper–Pearson lower bound and the non-member rate an
    upper bound, each at level 1e-6/(2·15) (Bonferroni, joint false alarm 1e-6).
    An (ε, δ)-DP release has TPR(t) <= env(FPR(t)) for every fixed t and env is
    increasing, so with probability >= 1 − 1e-6 the returned value is <= 0.
    """
    d, n, n_trials = 10, 5, 100_000
    sample = functools.partial(data.sign_records, p=np.zeros(d))  # ‖x‖ = √d: every record at the clip radius

    def statistic(records, releases):
        return fp.score_statistic(records, releases, np.zeros(d))
    mechanism = functools.partial(estimator, epsilon=epsilon, delta=delta, radius=math.sqrt(d))
    _, calibration = fp.membership_scores(sample, mechanism, statistic, n, 20_000, rng=seed, pooled=False)
    targets = np.logspace(-2, math.log10(0.95), 15)
    thresholds = np.quantile(calibration, 1 - targets)
    ins, outs = fp.membership_scores(sample, mechanism, statistic, n, n_trials, rng=seed + 1, pooled=False)
    two_sided = 1 - 2 * FALSE_ALARM / (2 * targets.size)  # each one-sided end at FALSE_ALARM/(2·15)
    tpr_low, _ = audit.clopper_pearson((ins[:, None] > thresholds).sum(0), n_trials, two_sided)
    _, fpr_high = audit.clopper_pearson((outs[:, None] > thresholds).sum(0), n_trials, two_sided)
    return float(np.max(tpr_low - fp.dp_roc_envelope(fpr_high, epsilon, delta)))


def test_gaussian_mechanism_roc_stays_under_the_envelope_and_quarter_noise_crosses_it():
    # ε = 1, δ = 0.01: the σ/4 release behaves like a Gaussian mechanism with four times the
    # signal; its score attack exceeds the envelope by ≈ 0.05 at FPR ≈ 0.07 (computed from the
    # Gaussian trade-off curve), well beyond the Clopper–Pearson widths (≈ 0.01 at N = 10⁵).
    assert _envelope_violation(attack_targets.clipped_gaussian_mean, 1.0, 0.01, seed=10) <= 0
    assert _envelope_violation(attack_targets.broken_clipped_gaussian_mean_quarter_noise, 1.0, 0.01, seed=10) > 0


# --- the clipped Gaussian mean: noise scale and audit --------------------------------------------

def test_clipped_gaussian_mean_adds_the_calibrated_noise_and_clips():
    rng = np.random.default_rng(3)
    records = rng.normal(size=(4, 3)) * 0.1  # well inside the ball: clipping does nothing
    sigma = gaussian_sigma(2 * 2.0 / 4, 1.0, 1e-5)  # computed here: sensitivity 2R/n
    releases = attack_targets.clipped_gaussian_mean(np.broadcast_to(records, (20_000, 4, 3)), 1.0, 1e-5, 2.0, rng=4)
    z = ((releases - records.mean(axis=0)) / sigma).ravel()
    assert stats.kstest(z, "norm").pvalue > FALSE_ALARM
    broken = attack_targets.broken_clipped_gaussian_mean_quarter_noise(np.broadcast_to(records, (20_000, 4, 3)), 1.0, 1e-5, 2.0,
                                                     rng=4)
    assert stats.kstest(((broken - records.mean(axis=0)) / sigma).ravel(), "norm").pvalue < FALSE_ALARM
    # a far-away record is pulled onto the sphere of radius R around the centre
    far = np.array([[100.0, 0.0], [0.0, 0.0]])
    center = np.array([1.0, 0.0])
    noiseless = attack_targets.clip_rows(far, 2.0, center)
    np.testing.assert_allclose(noiseless, [[3.0, 0.0], [0.0, 0.0]])


def test_audit_certifies_clipped_gaussian_mean_and_catches_quarter_noise():
    # Neighbours at the clipping bound: record 0 is +R·e₁ in D and −R·e₁ in D′ (LESSONS: the
    # differing record at the bound). Events: first coordinate above thresholds in the tail.
    epsilon, delta, radius, n, d = 1.0, 1e-5, 1.0, 5, 2
    dataset = np.zeros((n, d))
    neighbour = dataset.copy()
    dataset[0, 0], neighbour[0, 0] = radius, -radius

    def mechanism_for(estimator):
        def mechanism(records, n_trials, rng):
            return estimator(np.broadcast_to(records, (n_trials, n, d)), epsilon, delta, radius, rng=rng)
        return mechanism
    events = audit.threshold_events(np.linspace(0.0, 1.5, 7))
    honest = audit.audit(mechanism_for(attack_targets.clipped_gaussian_mean), dataset, neighbour, events, 200_000,
                         delta=delta, confidence=0.99, rng=5)
    broken = audit.audit(mechanism_for(attack_targets.broken_clipped_gaussian_mean_quarter_noise), dataset, neighbour, events,
                         200_000, delta=delta, confidence=0.99, rng=5)
    assert honest.epsilon_lower <= epsilon
    assert broken.epsilon_lower > epsilon


# --- tracing power ------------------------------------------------------------------------------

def _mean_scores(estimator, d, n, n_trials, seed):
    rng = np.random.default_rng(seed)
    mu = data.uniform_box_mean(d, 1.0, rng)
    sample = functools.partial(data.gaussian_records, mu=mu, sigma=1.0)
    return fp.membership_scores(sample, estimator, lambda r, m: fp.score_statistic(r, m, mu), n, n_trials,
                                rng=rng, pooled=False)


def test_exact_mean_is_traceable_at_d_1000_n_100():
    # Predicted AUC Φ(√(d/2n)) = Φ(√5) = 0.987. With N = 400 independent pairs, van Dantzig's bound
    # Var(AUC) <= A(1 − A)/N gives sd <= 0.0057, so 0.95 is 6.5 sd below the prediction.
    value = fp.auc(*_mean_scores(attack_targets.exact_mean, 1000, 100, 400, seed=6))
    assert value > 0.95
    assert bounds.predicted_auc(1.0, 1000, 100, math.sqrt(10)) == pytest.approx(special.ndtr(math.sqrt(5)))


def test_dp_mean_auc_is_within_the_envelope_band_and_the_exact_mean_is_not():
    # Integrating the envelope: any (ε, δ)-DP test has AUC <= e^ε/(1 + e^ε) + δ, and (reversing the
    # test) >= 1/(1 + e^ε) − δ. At ε = 0.5 the band is 0.5 ± 0.1225. With N = 4000 independent
    # pairs, Var(AUC) <= 1/(4N) (van Dantzig), so 6 sd = 0.047 is added on each side.
    epsilon, delta, d, n, n_trials = 0.5, 1e-5, 50, 10, 4000
    band = math.exp(epsilon) / (1 + math.exp(epsilon)) - 0.5 + delta + 6 / math.sqrt(4 * n_trials)
    grid = np.linspace(0, 1, 100_001)
    assert np.trapezoid(fp.dp_roc_envelope(grid, epsilon, 0.0), grid) == pytest.approx(
        math.exp(epsilon) / (1 + math.exp(epsilon)), abs=1e-6)
    radius = ex.clipping_radius(d)
    dp = functools.partial(attack_targets.clipped_gaussian_mean, epsilon=epsilon, delta=delta, radius=radius)
    assert abs(fp.auc(*_mean_scores(dp, d, n, n_trials, seed=7)) - 0.5) <= band
    assert abs(fp.auc(*_mean_scores(attack_targets.exact_mean, d, n, n_trials, seed=7)) - 0.5) > band  # Φ(√2.5) = 0.94


def _regression_pair_auc(name, statistic, epsilon, n_trials, seed, d=20, s=2, n=24):
    """AUC of a T7 attack on N independent (member, non-member) pairs, and the certified ε of the release."""
    rng = np.random.default_rng(seed)
    beta = data.sparse_coefficients(d, s, 0.5, "symmetric", rng)
    estimators, certified = ex._regression_estimators(d, s, n, [epsilon], 1.0, beta)
    sample = functools.partial(data.regression_records, beta=beta)
    scores = fp.membership_scores(sample, estimators[name], ex.regression_statistics(d, beta, 2 * s)[statistic],
                                  n, n_trials, rng=rng, pooled=False)
    return fp.auc(*scores), certified[epsilon]


@pytest.mark.parametrize("plain, private, statistic, n_trials", [
    ("ols", "noisy_ols", "classical", 4000),      # measured: 0.59 against OLS
    ("lasso", "dp_lasso", "sparse_sign", 3000),   # measured: 0.57 against the LASSO (ISTA fits are the cost)
])
def test_regression_attack_traces_the_plain_estimator_and_not_its_private_version(plain, private, statistic,
                                                                                  n_trials):
    # N independent pairs (one member, one non-member per trial): van Dantzig's bound gives
    # Var(AUC) <= A(1 − A)/N <= 1/(4N). "Clearly above ½" is a one-sided test at false alarm 1e-6
    # (z = 4.75): AUC − ½ > 4.75/(2√N) = 0.038 (N = 4000) or 0.043 (N = 3000).
    # The private release: any (ε', δ)-DP test has AUC within e^ε'/(1 + e^ε') − ½ + δ of ½ (envelope,
    # Exercise 4.1), ε' = the certified ε (Peeling's composition for DPLasso; the claimed ε for noisy
    # OLS, whose guarantee holds only on a high-probability event); plus 6 sd = 3/√N on each side.
    # At ε = 0.25, n = 24 (δ = n^{-1.1} = 0.030): band ≈ 0.062 + 0.030 + 0.047 = 0.14.
    epsilon, n = 0.25, 24
    z, delta = 4.75, ex.dp_delta(n)
    plain_auc, _ = _regression_pair_auc(plain, statistic, epsilon, n_trials, seed=21)
    assert plain_auc - 0.5 > z / (2 * math.sqrt(n_trials))
    private_auc, certified = _regression_pair_auc((private, epsilon), statistic, epsilon, n_trials, seed=21)
    eps = max(epsilon, certified)
    band = math.exp(eps) / (1 + math.exp(eps)) - 0.5 + delta + 3 / math.sqrt(n_trials)
    assert abs(private_auc - 0.5) <= band


def test_regression_experiment_aucs_are_the_fingerprinting_aucs_on_the_same_draws():
    # The runner's numbers are dpteach.fingerprinting's: recompute one cell from the same seeds.
    result = ex.regression_experiment(8, 2, [2.0], [1.0], n_scores=64, rng=3)
    rng = np.random.default_rng(3)
    beta = data.sparse_coefficients(8, 2, 0.5, "symmetric", rng)
    np.testing.assert_array_equal(beta, result["beta"])
    n, seed = 16, int(rng.integers(2 ** 63))
    sample = functools.partial(data.regression_records, beta=beta)
    estimators, _ = ex._regression_estimators(8, 2, n, [1.0], 1.0, beta)

    def classical(r, m):
        return fp.classical_regression_statistic(r[..., :8], r[..., 8], r[..., 9], m)

    def sparse_sign(r, m):
        return fp.sparse_regression_statistic(r[..., :8], r[..., 8], r[..., 9], m, 4, weight="sign")
    for name, stat, fn in (("ols", "classical", classical), (("dp_lasso", 1.0), "sparse_sign", sparse_sign)):
        expected = fp.auc(*fp.membership_scores(sample, estimators[name], fn, n, 4, rng=seed))
        assert result["auc"][name][stat][0] == expected


def test_membership_scores_pooled_shapes_and_reproducibility():
    sample = functools.partial(data.gaussian_records, mu=np.zeros(3))

    def stat(r, m):
        return fp.score_statistic(r, m, np.zeros(3))
    a = fp.membership_scores(sample, attack_targets.exact_mean, stat, 4, 7, rng=1, chunk=3)
    b = fp.membership_scores(sample, attack_targets.exact_mean, stat, 4, 7, rng=1, chunk=3)
    assert a[0].shape == a[1].shape == (28,)
    np.testing.assert_array_equal(a[0], b[0])
    ins, outs = fp.membership_scores(sample, attack_targets.exact_mean, stat, 4, 7, rng=1, pooled=False)
    assert ins.shape == outs.shape == (7,)
    seen = []
    fp.membership_scores(sample, attack_targets.exact_mean, stat, 4, 7, rng=1, chunk=3,
                         progress=lambda it, desc: seen.append(desc) or it)
    assert seen == ["membership trials"]


def test_membership_scores_reject_bad_callables():
    sample = functools.partial(data.gaussian_records, mu=np.zeros(3))
    good_stat = lambda r, m: fp.score_statistic(r, m, np.zeros(3))  # noqa: E731
    with pytest.raises(TypeError, match="estimator"):
        fp.membership_scores(sample, 3.0, good_stat, 4, 2)
    with pytest.raises(ValueError, match="one release per trial"):
        fp.membership_scores(sample, lambda r, rng=None: r.mean(), good_stat, 4, 2)
    with pytest.raises(ValueError, match="one score per record"):
        fp.membership_scores(sample, attack_targets.exact_mean, lambda r, m: m, 4, 2)
    with pytest.raises(ValueError, match="NaN"):
        fp.membership_scores(sample, attack_targets.exact_mean, lambda r, m: good_stat(r, m) * np.nan, 4, 2)
    with pytest.raises(ValueError, match="sample"):
        fp.membership_scores(lambda k, m, rng=None: np.zeros((k, m)), attack_targets.exact_mean, good_stat, 4, 2)


def test_score_attack_power_follows_the_predicted_auc():
    # Noisy mean at accuracy α: predicted AUC Φ(σd/(√2·n·α)); pooled T3 cells agree within 0.05
    # (Gaussian approximation at d = 200; pooled AUC sd about 0.01 with 2000 member scores).
    result = ex.phase_diagram(200, [20, 200], [0.5, 1.0], n_scores=2000, rng=8)
    for i, alpha in enumerate(result["alpha"]):
        for j, n in enumerate(result["n"]):
            assert result["auc"][i, j] == pytest.approx(bounds.predicted_auc(1.0, 200, n, alpha), abs=0.05)
    assert np.isnan(ex.phase_diagram(200, [10], [0.05], n_scores=100, rng=0)["auc"][0, 0])  # infeasible


# --- fingerprinting lemmas --------------------------------------------------------------------------

def test_bernoulli_lemma_mean_gives_two_thirds_and_zero_gives_one():
    n, draws = 5, 400_000
    res = fingerprinting_lemmas.fingerprinting_lemma_mc(lambda x: x.mean(axis=1), n, draws, rng=9)
    # |f| <= 1, so E[corr²] <= E[(Σ(x_i − p))²] = n·E[1 − p²] = 2n/3: sd <= √(2n/3/draws) = 0.0029.
    assert res["correlation"] == pytest.approx(2 / 3, abs=6 * math.sqrt(2 * n / 3 / draws))
    zero = fingerprinting_lemmas.fingerprinting_lemma_mc(lambda x: np.zeros(len(x)), n, draws, rng=10)
    # total = 2|p| with E = 1, Var = 4/3 − 1 = 1/3
    assert zero["correlation"] == 0 and zero["total"] == pytest.approx(1.0, abs=6 * math.sqrt(1 / 3 / draws))


@pytest.mark.parametrize("name, f", [
    ("sign of the mean", lambda x: np.sign(x.sum(axis=1) + 0.5)),
    ("noisy clipped mean", lambda x: np.clip(x.mean(axis=1) + np.random.default_rng(0).laplace(
        0, 2 / (x.shape[1] * 0.5), len(x)), -1, 1)),
    ("constant 1/2", lambda x: np.full(len(x), 0.5)),
])
@pytest.mark.parametrize("n", [1, 20])
def test_bernoulli_lemma_lower_bound_holds(name, f, n):
    draws = 200_000
    res = fingerprinting_lemmas.fingerprinting_lemma_mc(f, n, draws, rng=11)
    # |total| <= 2n + 4, a crude bound on the sd: (2n + 4)/√draws.
    assert res["total"] >= 2 / 3 - 6 * (2 * n + 4) / math.sqrt(draws), name


def test_bernoulli_lemma_refuses_values_outside_the_unit_interval():
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        fingerprinting_lemmas.fingerprinting_lemma_mc(lambda x: 2 * x.mean(axis=1) + 1.5, 3, 100)


def test_gaussian_stein_identity():
    draws, sigma = 200_000, 1.5
    res = fingerprinting_lemmas.gaussian_fingerprinting_mc(lambda x: x.mean(axis=1), 4, 0.3, sigma, draws, rng=12)
    # f = mean: g′ = 1; corr = x̄·S with Var = E[S⁴]/n² + ... = 2σ⁴ around mean σ² (μ-part adds μ²nσ²).
    sd = math.sqrt(2 * sigma ** 4 + 0.3 ** 2 * 4 * sigma ** 2) / math.sqrt(draws)
    assert res["stein"] == pytest.approx(sigma ** 2, rel=1e-9)  # common random numbers: exact
    assert res["correlation"] == pytest.approx(sigma ** 2, abs=6 * sd)
    clipped = fingerprinting_lemmas.gaussian_fingerprinting_mc(lambda x: np.clip(x.mean(axis=1), -0.5, 0.5), 4, 0.3,
                                                               sigma, draws, rng=13)
    # |f| <= 0.5: corr sd <= 0.5·σ√n/√draws; the difference quotient lies in [0, 1]: sd <= σ²/(2√draws).
    tol = 6 * (0.5 * sigma * 2 + sigma ** 2 / 2) / math.sqrt(draws)
    assert clipped["correlation"] == pytest.approx(clipped["stein"], abs=tol)
    assert clipped["stein"] < 0.9 * sigma ** 2  # clipping makes g flatter than the identity


# --- estimators, bounds, data ----------------------------------------------------------------------

def test_accuracy_noise_gives_the_target_error():
    d, n, alpha = 50, 20, 3.0
    s = attack_targets.accuracy_noise_sd(alpha, 1.0, d, n)
    assert s ** 2 * d + d / n == pytest.approx(alpha ** 2)
    records = data.gaussian_records(4000, n, np.zeros(d), rng=14)
    errors = np.sum(attack_targets.noisy_mean(records, s, rng=15) ** 2, axis=1)
    # ‖M − μ‖² = (σ²/n + s²)·χ²_d: mean α², sd α²√(2/d); 4000 trials → 6 sd = 6α²√(2/d)/√4000
    assert errors.mean() == pytest.approx(alpha ** 2, abs=6 * alpha ** 2 * math.sqrt(2 / d) / math.sqrt(4000))
    with pytest.raises(ValueError, match="alpha must be at least"):
        attack_targets.accuracy_noise_sd(1.0, 1.0, d, n)


def test_ols_recovers_exact_coefficients_and_batches():
    rng = np.random.default_rng(16)
    x = rng.normal(size=(3, 30, 4))
    beta = np.array([1.0, -2.0, 0.5, 0.0])
    np.testing.assert_allclose(attack_targets.ols_estimate(x, x @ beta), np.tile(beta, (3, 1)), atol=1e-10)
    assert attack_targets.noisy_ols(x, x @ beta, 0.0, rng=1).shape == (3, 4)
    with pytest.raises(ValueError, match="at least as many rows"):
        attack_targets.ols_estimate(x[:, :3], x[:, :3] @ beta)


def test_bounds_and_data():
    assert bounds.predicted_auc(1.0, 100, 100, 1.0) == pytest.approx(special.ndtr(100 / (100 * math.sqrt(2))))
    assert bounds.sample_mean_error(2.0, 100, 25) == pytest.approx(4.0)
    assert bounds.dp_mean_frontier(1.0, 100, 50, 2.0, 1e-4) == pytest.approx(100 * math.sqrt(math.log(1e4)) / 100)
    assert bounds.dp_mean_frontier(1.0, 100, 1, 0.1, 1e-4) == pytest.approx(10.0)  # capped at σ√d
    assert bounds.predicted_tpr(0.5, 1.0, 10, 10, 1.0) == pytest.approx(special.ndtr(1.0))
    assert np.asarray(bounds.predicted_auc(1.0, [10, 100], 10, 1.0)).shape == (2,)
    x = data.sign_records(2000, 50, np.array([0.5, -1.0]), rng=17)
    # mean 0.5 has sd √(0.75/10⁵) = 0.0027 per coordinate; 6 sd = 0.017
    assert x.shape == (2000, 50, 2) and x[..., 0].mean() == pytest.approx(0.5, abs=0.017)
    assert np.all(x[..., 1] == -1)
    beta = data.sparse_coefficients(20, 6, 0.5, rng=18)
    assert np.count_nonzero(beta) == 6 and beta.sum() == 0
    records = data.regression_records(2, 7, beta, rng=19)
    assert records.shape == (2, 7, 22)
    assert not np.allclose(records[..., 20], records[..., 21])  # fresh response differs


def test_runners_return_the_documented_shapes():
    t1 = ex.auc_vs_ratio([5], [4, 8], [1.0], n_scores=40, rng=0)
    assert t1["exact"].shape == (1, 2) and t1["dp"][1.0].shape == (1, 2)
    t2 = ex.roc_experiment(5, 4, 1.0, n_trials=3, rng=0)
    assert t2["exact"][0].shape == (12,) and t2["alpha"]["quarter"] < t2["alpha"]["dp"]
    t8 = ex.threshold_experiment(5, 4, [0.1], n_trials=10, rng=0)
    assert t8["rows"][0]["calibrated"] < t8["rows"][0]["printed"]
    t7 = ex.regression_experiment(4, 2, [2.0], [1.0], n_scores=16, rng=0)
    assert set(t7["auc"]) == {"ols", "lasso", ("noisy_ols", 1.0), ("dp_lasso", 1.0)}
    assert set(t7["auc"]["ols"]) == set(t7["auc"][("noisy_ols", 1.0)]) == {"classical", "score"}
    assert set(t7["auc"]["lasso"]) == set(t7["auc"][("dp_lasso", 1.0)]) == {"sparse", "sparse_sign"}
    assert t7["auc"]["ols"]["classical"].shape == t7["epsilon_certified"][1.0].shape == (1,)
    with pytest.raises(ValueError, match="ratios"):
        ex.regression_experiment(4, 2, [0.5], [1.0])
    with pytest.raises(TypeError, match="n_scores"):
        ex.auc_vs_ratio([5], [4], [1.0], n_scores=2.5)


# --- bad input --------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, match", [
    (lambda: fp.score_statistic(np.zeros((2, 3)), np.zeros(4), np.zeros(3)), ValueError, "estimate"),
    (lambda: fp.score_statistic(np.zeros(3), np.zeros(3), np.zeros(3)), ValueError, "records"),
    (lambda: fp.score_statistic([[np.nan, 0, 0]], np.zeros(3), np.zeros(3)), ValueError, "finite"),
    (lambda: fp.score_statistic(np.zeros((0, 3)), np.zeros(3), np.zeros(3)), ValueError, "empty"),
    (lambda: fp.score_statistic(np.zeros((2, 2, 3)), np.zeros((3, 3)), np.zeros(3)), ValueError, "batch"),
    (lambda: fp.classical_regression_statistic(np.zeros((2, 3)), np.zeros(3), np.zeros(2), np.zeros(3)),
     ValueError, "y must have shape"),
    (lambda: fp.sparse_regression_statistic(np.zeros((2, 3)), np.zeros(2), np.zeros(2), np.zeros(3), 4),
     ValueError, "s must be"),
    (lambda: fp.sparse_regression_statistic(np.zeros((2, 3)), np.zeros(2), np.zeros(2), np.zeros(3), 1, "value"),
     ValueError, "weight"),
    (lambda: fp.dp_roc_envelope(0.5, 0.0, 0.0), ValueError, "epsilon"),
    (lambda: fp.dp_roc_envelope(0.5, -1.0, 0.0), ValueError, "epsilon"),
    (lambda: fp.dp_roc_envelope(0.5, float("nan"), 0.0), ValueError, "epsilon"),
    (lambda: fp.dp_roc_envelope(0.5, "1", 0.0), TypeError, "epsilon"),
    (lambda: fp.dp_roc_envelope(0.5, True, 0.0), TypeError, "epsilon"),
    (lambda: fp.dp_roc_envelope(0.5, 1.0, 1.0), ValueError, "delta"),
    (lambda: fp.dp_roc_envelope(1.5, 1.0, 0.0), ValueError, "fpr"),
    (lambda: fp.dp_roc_envelope([0.1, np.nan], 1.0, 0.0), ValueError, "fpr"),
    (lambda: fp.calibrate_threshold(np.zeros(100), 0.0), ValueError, "fpr"),
    (lambda: fp.calibrate_threshold(np.zeros(100), 1.0), ValueError, "fpr"),
    (lambda: fp.calibrate_threshold(np.zeros(5), 0.01), ValueError, "at least 1/fpr"),
    (lambda: fp.calibrate_threshold([np.inf, 0.0], 0.5), ValueError, "finite"),
    (lambda: fp.auc([], [1.0]), ValueError, "in_scores"),
    (lambda: fp.roc_curve([1.0], [[1.0]]), ValueError, "out_scores"),
    (lambda: attack_targets.clipped_gaussian_mean(np.zeros((3, 2)), 0.0, 1e-5, 1.0), ValueError, "epsilon"),
    (lambda: attack_targets.clipped_gaussian_mean(np.zeros((3, 2)), 1.0, 0.0, 1.0), ValueError, "delta"),
    (lambda: attack_targets.clipped_gaussian_mean(np.zeros((3, 2)), 1.0, 1e-5, -1.0), ValueError, "radius"),
    (lambda: attack_targets.clipped_gaussian_mean(np.zeros((3, 2)), 1.0, 1e-5, 1.0, rng="seed"), TypeError, None),
    (lambda: fp.membership_scores(None, attack_targets.exact_mean, fp.score_statistic, 3, 2), TypeError, "sample"),
    (lambda: fp.membership_scores(data.gaussian_records, attack_targets.exact_mean, fp.score_statistic, 0, 2),
     ValueError, "n must"),
    (lambda: fingerprinting_lemmas.fingerprinting_lemma_mc(np.mean, 0, 10), ValueError, "n must"),
    (lambda: fingerprinting_lemmas.fingerprinting_lemma_mc(np.mean, 3, 1), ValueError, "n_draws"),
    (lambda: fingerprinting_lemmas.fingerprinting_lemma_mc("mean", 3, 10), TypeError, "f must"),
    (lambda: fingerprinting_lemmas.gaussian_fingerprinting_mc(np.mean, 3, np.nan, 1.0, 10), ValueError, "mu"),
    (lambda: fp.printed_threshold_classical(0, 0.1), ValueError, "d must"),
    (lambda: fp.printed_threshold_sparse(3, 0.0), ValueError, "delta"),
    (lambda: attack_targets.noisy_mean(np.zeros((3, 2)), -1.0), ValueError, "noise_sd"),
    (lambda: bounds.predicted_tpr(0.0, 1.0, 10, 10, 1.0), ValueError, "fpr"),
    (lambda: bounds.dp_mean_frontier(1.0, 10, 10, 0.0, 0.1), ValueError, "epsilon"),
    (lambda: data.sign_records(2, 3, [1.5]), ValueError, "p must"),
    (lambda: data.sparse_coefficients(5, 6), ValueError, "s must"),
])
def test_bad_input_raises_named_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


# --- Theorem 4.10: the proved lower bound -------------------------------------------------------

def _theorem_4_10(sigma, d, n, epsilon, delta):
    """The statement of Theorem 4.10 typed from the chapter, independently of dpteach.bounds."""
    eta = 0.0 if delta == 0 else delta * (4 + (4 * math.sqrt(2 * math.log(1 / delta))
                                              + 2 * math.sqrt(2 * math.pi)) / math.sqrt(d))
    privacy = math.sqrt(math.pi / 2) * sigma * d * (1 - 2 * n * eta) / (2 * n * math.sinh(epsilon))
    return max(0.0, min(sigma * math.sqrt(d) / (8 * math.pi ** 2), privacy))


@pytest.mark.checks("thm-score-attack-lower-bound")
def test_score_attack_lower_bound_is_the_theorem_and_closes_its_proof():
    from scipy import integrate
    sigma = 1.7
    # The prior π(t) = cos²(πt/(2σ))/σ: a density, vanishing at ±σ, with ∫ tψπ = 1 (ψ = −π'/π) and Fisher
    # information π²/σ² -- the three facts Step 1 uses.
    density = lambda t: math.cos(math.pi * t / (2 * sigma)) ** 2 / sigma  # noqa: E731
    slope = lambda t: -math.pi * math.sin(math.pi * t / sigma) / (2 * sigma ** 2)  # π'(t)  # noqa: E731
    assert integrate.quad(density, -sigma, sigma)[0] == pytest.approx(1, abs=1e-10)
    assert density(sigma) == pytest.approx(0, abs=1e-15)
    assert integrate.quad(lambda t: -t * slope(t), -sigma, sigma)[0] == pytest.approx(1, abs=1e-10)
    fisher = integrate.quad(lambda t: slope(t) ** 2 / density(t), -sigma * (1 - 1e-9), sigma * (1 - 1e-9))[0]
    assert fisher == pytest.approx(math.pi ** 2 / sigma ** 2, rel=1e-6)
    # Step 2's tail: ∫_u^∞ e^{-r²/2} dr = √(2π)(1 − Φ(u)) <= √(π/2) e^{-u²/2}.
    u = np.linspace(0, 8, 81)
    assert np.all(math.sqrt(2 * math.pi) * special.ndtr(-u) <= math.sqrt(math.pi / 2) * np.exp(-u ** 2 / 2) + 1e-15)
    for d, n, epsilon, delta in [(100, 1000, 1.0, 0.0), (100, 3000, 0.5, 1e-6), (10, 20, 3.0, 1e-4),
                                 (1000, 10, 1.0, 1e-8), (50, 500, 1.0, 1e-3)]:
        bound = bounds.score_attack_lower_bound(sigma, d, n, epsilon, delta)
        assert bound == pytest.approx(_theorem_4_10(sigma, d, n, epsilon, delta), rel=1e-12)
        slack = bounds.score_attack_slack(d, n, delta)
        cap = sigma * math.sqrt(d) / (8 * math.pi ** 2)
        # Step 1 at the cap: π σ √(2σ d^{3/2} a) is exactly σ²d/2, so below the cap Σ_i E A_i >= σ²d/2.
        assert math.pi * sigma * math.sqrt(2 * sigma * d ** 1.5 * cap) == pytest.approx(sigma ** 2 * d / 2)
        # Step 3: below the cap the bound is the a at which the DP side n(sinh ε σ√(2/π) a + σ²dη) reaches σ²d/2,
        # so any smaller error contradicts Steps 1-2 (and it is 0 when nη >= 1/2: nothing is claimed).
        dp_side = lambda a: n * (math.sinh(epsilon) * sigma * math.sqrt(2 / math.pi) * a  # noqa: E731
                                 + sigma ** 2 * d * slack / n)
        if 0 < bound < cap:
            assert dp_side(bound) == pytest.approx(sigma ** 2 * d / 2, rel=1e-12)
            assert dp_side(0.99 * bound) < sigma ** 2 * d / 2
        elif bound == 0:
            assert slack >= 0.5
    # The chapter's typed consequences: for ε <= 1 and nη <= 1/4 the privacy term is >= 0.26·σd/(nε); with
    # δ = n^{-1.1} the theorem is void (nη > 1/2) up to n = 10⁹; the cap is ≈ 0.013·σ√d.
    for epsilon in (0.01, 0.5, 1.0):
        for n in (10, 1000, 10 ** 5):
            delta = 1 / (16 * n * (4 + (4 * math.sqrt(2 * math.log(16 * n * 8)) + 2 * math.sqrt(2 * math.pi))))
            assert bounds.score_attack_slack(100, n, delta) <= 0.25
            privacy = math.sqrt(math.pi / 2) * 100 * (1 - 2 * bounds.score_attack_slack(100, n, delta)) / (
                2 * n * math.sinh(epsilon))
            assert privacy >= 0.26 * 100 / (n * epsilon)
    assert all(bounds.score_attack_slack(d, n, n ** -1.1) > 0.5 for d in (1, 100, 10 ** 6) for n in (10, 10 ** 4, 10 ** 9))
    assert 1 / (8 * math.pi ** 2) == pytest.approx(0.013, abs=5e-4)
    # a wrong constant (ε for sinh ε, or no √(2/π)) would fail the closed form at ε = 3:
    assert bounds.score_attack_lower_bound(1.0, 10, 20, 3.0, 0.0) < 0.5 * 10 / (20 * 3.0)
    assert np.all(np.diff(bounds.score_attack_lower_bound(1.0, 100, np.array([300, 1000, 3000]), 1.0, 1e-6)) < 0)


def _prior_trials(d, n, n_trials, estimator, rng):
    """(Σ_i A_i, ‖M − μ‖) per trial, μ from Theorem 4.10's prior (σ = 1), M projected onto the box (Step 0)."""
    sums, errors = np.empty(n_trials), np.empty(n_trials)
    for t in range(n_trials):
        mu = data.cosine_prior_mean(d, 1.0, rng)
        x = data.gaussian_records(1, n, mu, 1.0, rng)[0]
        release = np.clip(estimator(x, rng), -1.0, 1.0)
        sums[t] = np.sum((x - mu) @ (release - mu))
        errors[t] = np.linalg.norm(release - mu)
    return sums, errors


@pytest.mark.checks("thm-score-attack-lower-bound")
def test_score_attack_proof_steps_hold_for_a_private_mean_and_fail_for_the_exact_one():
    # Step 1 (Stein, prior averaged) says Σ_i E A_i >= σ²d − πσ√(2σ d^{3/2} a) for EVERY box-valued estimator;
    # Step 2 says a member's E A_1 <= sinh(ε)σ√(2/π)a + σ²dη for every (ε, δ)-DP one. We estimate both sides on
    # 400 trials and allow 6 standard errors (se from the sample; false alarm ~1e-9 per comparison).
    d, n, epsilon, delta, trials = 20, 200, 1.0, 1e-6, 400
    rng = np.random.default_rng(4100)
    radius = ex.clipping_radius(d, 1.0, 1.0)
    private = lambda x, r: attack_targets.clipped_gaussian_mean(x, epsilon, delta, radius, rng=r)  # noqa: E731
    sums, errors = _prior_trials(d, n, trials, private, rng)
    a, se = errors.mean(), errors.std(ddof=1) / math.sqrt(trials)
    total, total_se = sums.mean(), sums.std(ddof=1) / math.sqrt(trials)
    assert total + 6 * total_se >= d - math.pi * math.sqrt(2 * d ** 1.5 * (a + 6 * se))
    # Both estimators are symmetric in the records, so each member's E A_i is Σ_i E A_i / n.
    dp_cap = (math.sinh(epsilon) * math.sqrt(2 / math.pi) * (a + 6 * se)
              + d * float(bounds.score_attack_slack(d, n, delta)) / n)
    assert (total - 6 * total_se) / n <= dp_cap
    # The exact mean is not DP: its member score E A_i = σ²d/n = 0.1 (per-trial sd of Σ_i A_i / n is
    # √(2d)/n ≈ 0.032, se 0.0016) exceeds the cap that ε = 0.05 would impose, sinh(0.05)·√(2/π)·√(d/n) ≈ 0.012.
    sums, errors = _prior_trials(d, n, trials, lambda x, r: x.mean(axis=0), rng)
    cap_exact = math.sinh(0.05) * math.sqrt(2 / math.pi) * errors.mean()
    assert (sums.mean() - 6 * sums.std(ddof=1) / math.sqrt(trials)) / n > cap_exact


def test_cosine_prior_mean_has_the_prior_law():
    # KS against the cdf F(t) = (1 + t/a + sin(πt/a)/π)/2 at false-alarm level 1e-6 (20 000 draws); the uniform
    # law (the chapter's other prior) is rejected by the same test.
    draws = data.cosine_prior_mean(20_000, 2.0, rng=41)
    cdf = lambda t: (1 + t / 2.0 + np.sin(np.pi * t / 2.0) / np.pi) / 2  # noqa: E731
    assert stats.kstest(draws, cdf).pvalue > FALSE_ALARM
    assert np.all(np.abs(draws) <= 2.0)
    assert stats.kstest(data.uniform_box_mean(20_000, 2.0, rng=42), cdf).pvalue < FALSE_ALARM
