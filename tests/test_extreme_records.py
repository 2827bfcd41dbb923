"""Private on every accepted input: one record at 1e300, the largest double, −1e300 or the clipping bound.

Issue 17 (the reliability review's P1–P3). Every routine of dpteach.registry.CASES is run
with one record of D at each of registry.EXTREME_VALUES (``AuditCase.extreme``, one hook per
entry, the neighbour changing that record as the entry's own pair does). Either the
routine's validation refuses the record with a message naming the parameter (bits, ±1
labels, a bounded domain, feature rows of norm ≤ T), or the release is finite on both
inputs, no warning is raised (a warning that one record triggers is observable), and the
audit (registry.EXTREME_SETTINGS, 95 %) stays at or below the claim. The same rows are on
the privacy-audit page (tools/audit_report.py).

The power checks: the old arithmetic of P1 and P2 is kept as broken variants, and the same
audits certify ε far above the claim for them (P3's is in tests/test_regression.py).
Whole file: about 40 s on one core.
"""

import re
import time
import warnings

import numpy as np
import pytest

from dpteach import audit, hermite, improper, logconcave, proper, registry
from dpteach.feature_scaling import MAX_FEATURE_BYTES, MAX_FEATURE_DIMENSION

CASE_VALUES = [(entry.name, value) for entry in registry.CASES for value in registry.EXTREME_VALUES]


@pytest.mark.parametrize("name, value", CASE_VALUES, ids=[f"{n}-{v}" for n, v in CASE_VALUES])
def test_every_registered_routine_is_private_with_one_extreme_record(name, value):
    entry = registry.case(name)
    row = registry.run_extreme(entry, value)  # warnings are errors inside
    if row["refused"] is not None:
        # Refused by validation: a ValueError/TypeError whose message says what is allowed.
        assert value != "bound", "the registry's own pair must be accepted"
        assert "must" in row["refused"], row["refused"]
        return
    assert row["finite"], f"{name}: a non-finite release with one record at {value}"
    assert row["epsilon_lower"] <= entry.epsilon, row
    if row["degenerate"] is not None:  # "nothing to audit" (issue 29 item 6): never the registry's own pair
        assert value != "bound", row
        assert row["epsilon_lower"] == 0.0


# --- Issue 29 item 6: degenerate pairs are "nothing to audit", not a pass -------------------------------

@pytest.mark.parametrize("name, value, why", [
    ("laplace", 1e300, "same bits"), ("gaussian", 1.7976931348623157e308, "same bits"),
    ("exponential_mechanism", 1e300, "same output"), ("report_noisy_max", 1.7976931348623157e308, "same output")])
def test_the_reviews_vacuous_extreme_audits_are_reported_as_nothing_to_audit(name, value, why):
    # The reliability review's F6: 1e300 − 1 == 1e300, so D and D' are the same double (Laplace,
    # Gaussian); or candidate 0's score 1e300 wins with probability 1 on both sides. The audit
    # certified ε ≥ 0 and the page counted it as a pass.
    row = registry.run_extreme(registry.case(name), value)
    assert row["refused"] is None and row["degenerate"] is not None and why in row["degenerate"], row
    # And the audit page does not call it "ok".
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tools import audit_report
    assert audit_report.extreme_verdict(dict(row, claim=row["claim"])) == "nothing to audit"


def test_regular_pairs_are_not_degenerate_and_degenerate_ones_are_whatever_the_data_type():
    def laplace(data, n, rng):
        return rng.laplace(float(np.sum(data)), 1.0, size=n)

    event = audit.threshold_events([0.5])[0]
    regular = audit.epsilon_lower_bound(laplace, np.zeros(3), np.array([0.0, 0, 1]), event, 200, rng=0)
    assert regular.degenerate is None
    same = audit.epsilon_lower_bound(lambda data, n, rng: laplace(data[0], n, rng), (np.full(2, 1e300), 1.0),
                                     (np.full(2, 1e300 - 1), 1.0), event, 200, rng=0)
    assert "same bits" in same.degenerate and str(same).startswith("nothing to audit")
    # A constant mechanism (one output w.p. 1 on both sides), whatever its input.
    constant = audit.epsilon_lower_bound(lambda data, n, rng: np.zeros((n, 2)), 0.0, 1.0, event, 200, rng=0)
    assert "same output" in constant.degenerate
    # One differing run is enough to make the pair informative (it is then audited as usual).
    nearly = audit.epsilon_lower_bound(lambda data, n, rng: (np.arange(n) == data).astype(float), 0, 5, event,
                                       200, rng=0)
    assert nearly.degenerate is None


def test_every_registered_routine_has_an_extreme_record_hook():
    for entry in registry.CASES:
        assert entry.extreme is not None and entry.bound is not None, entry.name


# --- P1: the Hermite correlations ---------------------------------------------------------------------

def _p1_pair():
    # The review's audit #19: n₁ = 200, d = 1, degree 2, record 0 at x = 1e155 (finite, accepted) vs 0.5.
    X = np.random.default_rng(0).standard_normal((200, 1))
    X_neighbour = X.copy()
    X[0], X_neighbour[0] = 1e155, 0.5
    return X, X_neighbour, np.ones(200)


@pytest.mark.parametrize("variant", ["correct", "broken"])
def test_p1_audit_catches_the_nan_release_and_passes_the_fix(variant):
    # Event {the release has a NaN} plus thresholds on its last coordinate. The broken variant
    # (the old arithmetic: 0·inf = NaN) is NaN on D every time and never on D': with 1 500 runs the
    # Clopper–Pearson bound is ln((1 − δ)/0.002) ≈ 6 ≫ 1. The fix is finite on both, and its clipped
    # feature moves the mean by at most 2T/n₁, which the Gaussian noise covers.
    X, X_neighbour, y = _p1_pair()
    release = (proper.private_hermite_correlations_batch if variant == "correct"
               else proper.broken_private_hermite_correlations_overflow)
    epsilon, delta, T = 1.0, 1e-3, 2 * np.sqrt(3)

    def mechanism(data, n_trials, rng):
        out, _ = release(data, y, 2, T, epsilon, delta, rng=rng, size=n_trials)
        return out

    def has_nan(outputs):
        return np.isnan(outputs).any(axis=1)

    events = [has_nan] + [lambda o, t=t: o[:, -1] > t for t in (0.0, 0.2, 0.4)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = audit.audit(mechanism, X, X_neighbour, events, 1_500, delta=delta, n_select=1_000, rng=5)
    if variant == "broken":
        assert result.epsilon_lower > 4.0
    else:
        assert result.epsilon_lower <= epsilon
        assert np.all(np.isfinite(mechanism(X, 50, np.random.default_rng(1))))


@pytest.mark.parametrize("seed", range(6))
def test_the_proper_learner_releases_finite_correlations_with_a_huge_record(seed):
    # The review's repro 4 (NaN in 6 of 8 fits: whenever the record fell in S₁).
    X = np.random.default_rng(0).normal(size=(400, 2))
    y = np.where(X[:, 0] >= 0.3, 1.0, -1.0)
    X[0, 0] = 1e155
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = proper.PrivateProperLearner(0.1, 1.0, 1e-5, degree=2, random_state=seed).fit(X, y)
    assert np.all(np.isfinite(fitted.correlations_)) and np.isfinite(fitted.intercept_)


def test_clipped_features_of_a_huge_record_are_its_exact_clipped_direction():
    # x = 1e20 (d = 1, degree 2): ψ = (1, x, (x² − 1)/√2); the plain path's squared norm is finite
    # (≈ 5e79), so it is the reference; x·1e140 overflows it and must give the same direction
    # (the clipped row → T·e₂ as x → ∞: the top-degree term dominates).
    T = 3.0
    plain = hermite.clipped_hermite_features(np.array([[1e20]]), 2, T)[0]
    assert np.allclose(plain, [0.0, 0.0, T], atol=1e-15)
    for x in (1e160, 1e300, np.finfo(float).max, -1e300):
        row = hermite.clipped_hermite_features(np.array([[x]]), 2, T)[0]
        assert np.all(np.isfinite(row)) and np.linalg.norm(row) == pytest.approx(T)
        assert np.allclose(row, [0.0, 0.0, T], atol=1e-15)
    # Where both paths apply (no overflow), the scaled path reproduces the plain one.
    X = np.random.default_rng(2).normal(size=(30, 3)) * 3
    for degree, radius in ((3, 4.0), (5, 1e9)):
        assert np.allclose(hermite._scaled_clipped_rows(X, degree, radius),
                           hermite.clipped_hermite_features(X, degree, radius), rtol=1e-12, atol=1e-300)


def test_unclipped_feature_maps_refuse_an_overflowing_record_by_name():
    X = np.zeros((4, 2))
    X[1, 0] = 1e300
    for call in (lambda: hermite.hermite_features(X, 2), lambda: hermite.hermite_feature_sum(X, 2),
                 lambda: logconcave.monomial_features(X, 2), lambda: logconcave.logconcave_features(X, "uniform", 2)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ValueError, match="X row 1"):
                call()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.all(np.isfinite(hermite.hermite_feature_sum(X, 2, radius=3.0)))


# --- P2: whether fit raises --------------------------------------------------------------------------------

def _p2_data():
    X = np.random.default_rng(0).normal(size=(120, 1))
    y = np.where(X[:, 0] >= 0, 1.0, -1.0)
    X_neighbour = X.copy()
    X[0], X_neighbour[0] = 1e155, 0.5
    return X, X_neighbour, y


@pytest.mark.parametrize("learner", [improper.PrivateHermiteL1Learner, logconcave.PrivateLogConcaveL1Learner])
@pytest.mark.parametrize("value", [1e155, 1e300, np.finfo(float).max, -1e300])
def test_the_l1_learners_fit_every_finite_record_without_raising_or_warning(learner, value):
    X, _, y = _p2_data()
    X[0] = value
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = learner(0.2, 1.0, 1e-5, degree=2, n_iterations=20, random_state=0).fit(X, y)
        assert np.all(np.isfinite(fitted.coef_)) and np.all(np.isfinite(fitted.candidate_coefs_))
        assert np.all(np.isfinite(fitted.decision_function(X)))


@pytest.mark.parametrize("variant", ["correct", "broken"])
def test_p2_audit_catches_a_fit_that_raises_on_one_record(variant):
    # The review's audit #20 with the exception as the output: the old learner raises on D every time
    # and never on D' (ε ≥ ln(1/CP-upper(0, 150)) ≈ 3.5 ≫ 1 with 150 fits per side); the fixed one never
    # raises, and {raised} has the same probability (0) on both sides.
    X, X_neighbour, y = _p2_data()
    learner = (improper.PrivateHermiteL1Learner if variant == "correct"
               else improper._PrivateHermiteL1LearnerOverflowBroken)

    def raised(data, n_trials, rng):
        out = np.zeros(n_trials)
        for k in range(n_trials):
            try:
                learner(0.2, 1.0, 1e-5, degree=2, n_iterations=5, random_state=rng).fit(data, y)
            except ValueError:
                out[k] = 1.0
        return out

    result = audit.epsilon_lower_bound(raised, X, X_neighbour, lambda o: o == 1.0, 150, delta=1e-3, rng=0)
    if variant == "broken":
        assert result.epsilon_lower > 3.0
    else:
        assert result.epsilon_lower == 0.0 and result.p_hat == result.q_hat == 0.0


# --- Sizes: refused before memory is spent -----------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda: hermite.hermite_features(np.zeros((2, 1)), 10 ** 18),
    lambda: hermite.multi_indices(1, 10 ** 18),
    lambda: hermite.multi_indices(20, 10 ** 18),
    lambda: logconcave.monomial_features(np.zeros((2, 1)), 10 ** 18),
    lambda: hermite.hermite_feature_sum(np.zeros((2, 3)), 10 ** 18, radius=1.0),
    lambda: hermite.clipped_hermite_features(np.zeros((2, 3)), 10 ** 18, 1.0),
], ids=["hermite_features", "multi_indices_d1", "multi_indices_d20", "monomial_features", "feature_sum",
        "clipped"])
def test_astronomical_degrees_are_refused_at_once_naming_degree(call):
    start = time.process_time()
    with pytest.raises(ValueError, match=r"degree = 1000000000000000000 .*MAX_FEATURE_DIMENSION.*degree <= \d+"):
        call()
    assert time.process_time() - start < 1.0


@pytest.mark.parametrize("call", [
    lambda: hermite.clip_radius(20, 10 ** 18, 0.1),
    lambda: proper.PrivateProperLearner(0.1, 1.0, 1e-5, degree=10 ** 18).fit(np.eye(4), np.ones(4)),
], ids=["clip_radius", "proper_learner"])
def test_degree_dependent_formulas_refuse_astronomical_degrees_by_name(call):
    # √D for D = C(20 + 10¹⁸, 10¹⁸) (341 digits) is not a float: refused by name, not an OverflowError.
    with pytest.raises(ValueError, match=r"^degree = 1000000000000000000 "):
        call()


def test_the_chapter_4_ols_baselines_refuse_an_overflowing_record_by_name():
    from dpteach import attack_targets
    x = np.random.default_rng(0).normal(size=(10, 2))
    y = x[:, 0].copy()
    x[0, 0] = 1e300
    for call in (lambda: attack_targets.ols_estimate(x, y), lambda: attack_targets.noisy_ols(x, y, 0.1, rng=0)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ValueError, match="overflows double precision"):
                call()


def test_a_feature_matrix_beyond_the_limit_is_refused_before_allocation():
    # The review's 68.6 GiB call: n = 40 000, d = 20, degree 6 (D = 230 230). Refused by size, from
    # shapes only (a lazy zero array costs nothing), with the size, the limit and the rows that fit.
    X = np.zeros((40_000, 20))
    with pytest.raises(ValueError, match=r"68\.6 GiB.*MAX_FEATURE_BYTES.*at most 582 rows"):
        hermite.hermite_features(X, 6)
    assert 8 * 582 * 230_230 <= MAX_FEATURE_BYTES < 8 * 583 * 230_230
    assert MAX_FEATURE_DIMENSION >= 230_230  # D itself is fine; the matrix is what does not fit


def test_the_improper_learner_refuses_a_block_matrix_beyond_the_limit_naming_degree():
    # The review's run that went past 100 s at 3.5 GB: d = 20, degree 6, n = 4 000 (blocks of 640, a
    # validation set of 800 rows: 1.4 GiB). Now a refusal in well under a second, saying degree 5 fits.
    X = np.random.default_rng(0).normal(size=(4_000, 20))
    y = np.where(X[:, 0] >= 0, 1.0, -1.0)
    start = time.process_time()
    with pytest.raises(ValueError, match=r"^degree: .*degree <= 5 fits.*1\.4 GiB"):
        improper.PrivateHermiteL1Learner(0.1, 1.0, 1e-5, degree=6, random_state=0).fit(X, y)
    assert time.process_time() - start < 1.0


def test_long_improper_fits_show_progress_and_short_ones_do_not(monkeypatch):
    # The bar is the package's progress helper (respects TQDM_DISABLE=1); it is enabled only when
    # the DP-ERM work K·n₀·D exceeds _PROGRESS_WORK (a few seconds).
    calls = []

    def recording(iterable, desc, total=None, enabled=None):
        calls.append(enabled)
        return iterable
    monkeypatch.setattr(improper, "progress", recording)
    X = np.random.default_rng(0).normal(size=(200, 2))
    y = np.where(X[:, 0] >= 0, 1.0, -1.0)
    improper.PrivateHermiteL1Learner(0.2, 1.0, 1e-5, degree=2, random_state=0).fit(X, y)
    monkeypatch.setattr(improper, "_PROGRESS_WORK", 10)
    improper.PrivateHermiteL1Learner(0.2, 1.0, 1e-5, degree=2, random_state=0).fit(X, y)
    assert calls == [False, None]  # None: the environment decides (TQDM_DISABLE)


# --- Issue 29 item 1: chapter 7's selection step and every release outside CASES -------------------------

BIG = float(np.finfo(float).max)
HUGE_VALUES = (1e300, 1.7e308, -BIG)


def _huge_rows(value, d):
    # Mixed signs (a rotated projection computes inf − inf = NaN) and one axis only (inf·0 = NaN).
    return [np.full(d, value) * np.resize([1.0, -1.0], d), np.eye(d)[0] * value]


@pytest.mark.parametrize("d", [2, 3, 4])
def test_cover_error_counts_of_a_huge_record_are_those_of_its_scaled_copy(d):
    # The review's N12/F0: ⟨v, x⟩ overflowed to ±inf or NaN, NaN → INT_MIN broke np.bincount (or warned).
    # Exact check: x = 2^e·u (e = the exponent of max|x_j|) and x' = 2^40·u lie on the same side of every
    # candidate halfspace ⟨v, ·⟩ + t, |t| ≤ R ≤ 2, unless 0 < |⟨v, u⟩| < 2^-39·R (x' may then fall
    # inside the threshold range); the random bases here stay clear of that. The plain path on x' is
    # finite, so it is the reference: the counts must be equal, at every subspace dimension k.
    from dpteach import halfspace_cover as hc
    rng = np.random.default_rng(d)
    X = rng.normal(size=(60, d))
    y = np.where(X[:, 0] >= 0, 1.0, -1.0)
    for k in range(1, d + 1):
        basis, _ = np.linalg.qr(rng.normal(size=(d, k)))
        cover = hc.halfspace_cover(basis, 0.5 if k < 3 else 0.9)
        for value in HUGE_VALUES:
            for row in _huge_rows(value, d):
                X_huge, X_scaled = X.copy(), X.copy()
                X_huge[5] = row
                _, e = np.frexp(np.max(np.abs(row)))
                X_scaled[5] = np.ldexp(row, 40 - e)
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    huge = hc.cover_error_counts(X_huge, y, cover)
                    reference = hc.cover_error_counts(X_scaled, y, cover)
                assert np.array_equal(huge, reference), (k, value, row)


def test_select_halfspace_with_the_reviews_rotated_basis_and_record():
    # theory review N12, direct call: basis [[1, 1], [1, −1]]/√2, record (1.5e308, −1.5e308): the
    # projection is (0, inf)·… = NaN and main raised "'list' argument must have no negative elements".
    from dpteach import halfspace_cover as hc
    X = np.random.default_rng(0).normal(size=(200, 2))
    y = np.where(X[:, 0] * X[:, 1] >= 0, 1.0, -1.0)
    X[0] = (1.5e308, -1.5e308)
    cover = hc.halfspace_cover(np.array([[1.0, 1.0], [1.0, -1.0]]) / np.sqrt(2), 0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        index, coef, intercept = hc.select_halfspace(X, y, cover, 1.0, rng=0)
    assert 0 <= index < cover.size and np.all(np.isfinite(coef)) and np.isfinite(intercept)


def test_the_proper_learner_fits_the_reviews_n12_data_at_every_seed():
    # theory review N12: d = 2, y = sign(x₁x₂) (dim V = 2), one record at (1.7e308, −1.7e308). On main
    # 5 of these 8 seeds raised under warnings-as-errors (overflow), and in some draws of V np.bincount
    # raised on its own; now every fit succeeds, as for the neighbour with the record at (1, −1).
    X = np.random.default_rng(0).normal(size=(8000, 2))
    y = np.where(X[:, 0] * X[:, 1] >= 0, 1.0, -1.0)
    X[0] = (1.7e308, -1.7e308)
    for seed in range(8):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fitted = proper.PrivateProperLearner(0.1, 4.0, 1e-5, max_subspace_dim=2, random_state=seed).fit(X, y)
        assert np.all(np.isfinite(fitted.coef_)) and np.isfinite(fitted.intercept_)


def _labelled(n, d, seed):
    X = np.random.default_rng(seed).normal(size=(n, d))
    return X, np.where(X[:, 0] + 0.5 * X[:, -1] >= 0.1, 1.0, -1.0)


def _learner_hook(make, n, d, regression_target=False, product_labels=False, rows=2):
    """Fit (and predict on the training rows, post-processing) with record 3 at each huge row (the first ``rows``)."""
    def hook(value):
        X, y = _labelled(n, d, 0)
        if regression_target:
            y = 0.5 * X[:, 0]
        if product_labels:  # y = sign(x₁x₂): the proper learner's private subspace V is then 2-dimensional
            y = np.where(X[:, 0] * X[:, 1] >= 0, 1.0, -1.0)
        out = []
        for row in _huge_rows(value, d)[:rows]:
            X[3] = row
            model = make().fit(X, y)
            prediction = model.predict(X)
            assert not np.any(np.isnan(prediction))  # a regression prediction may be ±inf (the exact value is)
            out += [np.asarray(getattr(model, "coef_", 0.0), dtype=float), np.sign(prediction)]
        return out
    return hook


def _release_hook(release, n, d, regression_target=False):
    def hook(value):
        X, y = _labelled(n, d, 0)
        if regression_target:
            y = 0.5 * X[:, 0]
        out = []
        for row in _huge_rows(value, d):
            X[3] = row
            result = release(X, y)
            out += [np.asarray(result[0] if isinstance(result, tuple) else result, dtype=float)]
        return out
    return hook


def _selection_hook(select):
    def hook(value):  # error counts are what these selections read; one count at the record's extreme
        return [np.asarray(select(np.array([3.0, 0.0, 5.0, abs(value)]), 1.0, rng=0, size=50), dtype=float)]
    return hook


def _select_halfspace_hook(value):
    from dpteach import halfspace_cover as hc
    out = []
    for d in (2, 3, 4):  # every subspace dimension k ≤ d, random bases (the private V is random)
        X, y = _labelled(300, d, d)
        for k in range(1, d + 1):
            basis, _ = np.linalg.qr(np.random.default_rng([d, k]).normal(size=(d, k)))
            cover = hc.halfspace_cover(basis, 0.5 if k < 3 else 0.9)
            for row in _huge_rows(value, d):
                X[3] = row
                out.append(np.asarray(hc.select_halfspace(X, y, cover, 1.0, rng=0)[1]))
    return out


def _local_hook(value):
    # Local protocols: each user randomizes their own bounded record; a data set outside [−1, 1] must be
    # refused by name, or clipped (sq_mean's queries are bounded), and either way nothing may warn.
    from dpteach import local
    from dpteach.sq_algorithms import sq_mean
    data = np.linspace(-1, 1, 400).reshape(-1, 1)
    data[3] = value
    run = local.simulate_sq_locally(sq_mean, data, 1.0, 0.05, rule="clt", rng=0, d=1, tau=0.5)
    oracle = local.LocalSimulatedSQOracle(data=data, epsilon=1.0, beta=0.05, max_queries=2, rule="clt", rng=0)
    return [np.asarray(run.output, dtype=float), np.asarray(sq_mean(oracle, d=1, tau=0.5), dtype=float)]


def _local_learner_hook(make, d):
    def hook(value):
        X = np.linspace(-1, 1, 400).reshape(-1, d) if d > 1 else np.linspace(0, 1, 400)
        y = np.where(X.reshape(len(X), -1)[:, 0] > 0.37, 1.0, -1.0)
        X[3] = value
        with pytest.raises(ValueError, match="X must lie in"):
            make().fit(X, y)
        return []
    return hook


def _not_audited_hooks():
    from dpteach import dp_logistic, dp_sgd_poisson, dpsas, local, local_learners, mechanisms, regression
    return {
        "dpteach.regression.DPLasso": _learner_hook(
            lambda: regression.DPLasso(1.0, 1e-5, sparsity=2, random_state=0), 400, 5, regression_target=True),
        "dpteach.dp_logistic.DPSGDLogisticRegression": _learner_hook(
            lambda: dp_logistic.DPSGDLogisticRegression(1.0, 1e-5, n_epochs=2, random_state=0), 400, 3),
        "dpteach.dp_sgd_poisson.PoissonDPSGDLogisticRegression": _learner_hook(
            # batch_size = n and one row per value: the accountant (which does not read the data) takes
            # 0.6 s of CPU per fit instead of 4.5 s
            lambda: dp_sgd_poisson.PoissonDPSGDLogisticRegression(1.0, 1e-5, n_epochs=1, batch_size=200,
                                                                  random_state=0), 200, 3, rows=1),
        "dpteach.mechanisms.exponential_mechanism_on_errors":
            _selection_hook(mechanisms.exponential_mechanism_on_errors),
        "dpteach.improper.select_hypothesis": _selection_hook(improper.select_hypothesis),
        "dpteach.improper.PrivateHermiteL1Learner": _learner_hook(
            lambda: improper.PrivateHermiteL1Learner(0.2, 1.0, 1e-5, degree=2, n_iterations=20, random_state=0),
            400, 2),
        "dpteach.logconcave.PrivateLogConcaveL1Learner": _learner_hook(
            lambda: logconcave.PrivateLogConcaveL1Learner(0.2, 1.0, 1e-5, degree=2, n_iterations=20, random_state=0),
            400, 2),
        "dpteach.halfspace_cover.select_halfspace": _select_halfspace_hook,
        "dpteach.proper.PrivateProperLearner": _learner_hook(
            lambda: proper.PrivateProperLearner(0.1, 4.0, 1e-5, max_subspace_dim=2, random_state=0), 8000, 2,
            product_labels=True),
        "dpteach.dpsas.dpsas": _release_hook(
            lambda X, y: dpsas.dpsas(X, y, 1.0, 1e-5, 0.1, n_rounds=3, rng=0), 2000, 3),
        "dpteach.dpsas.dpsas_sample_reuse": _release_hook(
            lambda X, y: dpsas.dpsas_sample_reuse(X, y, 1.0, 1e-5, 0.1, n_rounds=3, rng=0), 2000, 3),
        "dpteach.dpsas.PrivateSemiAgnosticLearner": _learner_hook(
            lambda: dpsas.PrivateSemiAgnosticLearner(0.2, 1.0, 1e-5, random_state=0), 2000, 3),
        "dpteach.local.LocalSimulatedSQOracle": _local_hook,
        "dpteach.local.simulate_sq_locally": _local_hook,
        "dpteach.local_learners.LocalThresholdLearner": _local_learner_hook(
            lambda: local_learners.LocalThresholdLearner(epsilon=1.0, rule="clt", random_state=0), 1),
        "dpteach.local_learners.LocalHalfspaceLearner": _local_learner_hook(
            lambda: local_learners.LocalHalfspaceLearner(epsilon=1.0, n_steps=2, random_state=0), 2),
        "dpteach.regression.noisy_ols": _release_hook(
            lambda X, y: regression.noisy_ols(X, y, 1.0, 1e-5, 1.0, rng=0), 400, 3, regression_target=True),
    }


def test_every_unaudited_private_routine_has_an_extreme_record_check():
    assert set(_not_audited_hooks()) == set(registry.NOT_AUDITED)


@pytest.mark.parametrize("name", sorted(registry.NOT_AUDITED))
def test_every_unaudited_private_routine_releases_finite_output_without_warning_on_a_huge_record(name):
    # Issue 29 item 1: the routines audited only through their steps (registry.NOT_AUDITED) get the same
    # extreme-record check as CASES, end to end (fit and predict): warnings are errors, every released
    # number is finite, at 1e300, 1.7e308 and −(largest double), in rows with mixed signs or on one axis.
    hook = _not_audited_hooks()[name]
    for value in HUGE_VALUES:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            outputs = hook(value)
        assert all(np.all(np.isfinite(out)) for out in outputs), (name, value)


def test_predict_follows_the_sign_of_the_true_margin_on_huge_rows():
    # The review's F2: coef_ with positive first entry and the point (BIG, BIG) has margin +inf in exact
    # arithmetic; main computed inf − inf = NaN, mapped it to −1 and warned. The scaled path gives ±inf
    # with the exact sign, so predict equals the sign of ⟨coef, x/max|x_j|⟩, computed here in plain
    # arithmetic on the rescaled rows (finite), which is the same sign as the true margin.
    from dpteach import dp_logistic, dpsas, regression
    X, y = _labelled(400, 2, 0)
    rows = np.array([[BIG, BIG], [BIG, -BIG], [-BIG, BIG], [1e300, -1e300], [1e200, 1e200], [-BIG, -BIG]])
    for model in (dp_logistic.DPSGDLogisticRegression(1.0, 1e-5, random_state=0).fit(X, y),
                  dpsas.PrivateSemiAgnosticLearner(0.2, 1.0, 1e-5, random_state=0).fit(X, y),
                  proper.PrivateProperLearner(0.2, 4.0, 1e-5, random_state=0).fit(X, y)):
        expected = np.where((rows / np.max(np.abs(rows), axis=1, keepdims=True)) @ model.coef_ >= 0, 1.0, -1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert np.array_equal(model.predict(rows), expected), type(model).__name__
            assert not np.any(np.isnan(model.decision_function(rows)))
    lasso = regression.DPLasso(1.0, 1e-5, sparsity=2, random_state=0).fit(X, 0.5 * X[:, 0] - 0.25 * X[:, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        predicted = lasso.predict(rows)
    exact_sign = np.sign((rows / np.max(np.abs(rows), axis=1, keepdims=True)) @ lasso.coef_)
    assert not np.any(np.isnan(predicted)) and np.array_equal(np.sign(predicted), exact_sign)
    assert np.array_equal(lasso.predict(X), X @ lasso.coef_)  # ordinary rows: the plain product, same bits


# --- Issue 29 item 4: the floating-point edges of the parameters -------------------------------------------

SUB = 5e-324  # the smallest subnormal double


def _item4_data():
    X = np.random.default_rng(0).normal(size=(400, 3))
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


def _scale_calls(T):
    """Every release whose scale parameter (a sensitivity, clip norm, radius, Lipschitz bound, truncation,
    clip radius) is set to T, keyed by that parameter's name."""
    from dpteach import attack_targets, dp_erm, dp_logistic, dpsas_steps, logistic_loss, peeling, regression
    X, y = _item4_data()
    return [
        ("sensitivity", lambda: peeling.peel(np.arange(5.0), 2, 1.0, 1e-5, T, rng=0)),
        ("sensitivity", lambda: peeling.peeling_noise_scale(2, 1.0, 1e-5, T)),
        ("lipschitz", lambda: dp_erm.dp_erm_sigma(T, 10, 1.0, 1e-5, 5)),
        ("lipschitz", lambda: dp_erm.noisy_average_subgradient(np.eye(3) * min(T, 1.0), np.ones(3), np.zeros(3), T,
                                                                1.0, 1e-5, 1, rng=0)),
        ("lipschitz", lambda: dp_erm.noisy_projected_subgradient_descent(np.eye(3) * min(T, 1.0), np.ones(3), T, 1.0,
                                                                          1.0, 1e-5, 5, rng=0)),
        ("radius", lambda: dp_erm.noisy_projected_subgradient_descent(np.eye(3), np.ones(3), 1.0, T, 1.0, 1e-5, 5,
                                                                       rng=0)),
        ("clip_norm", lambda: dp_logistic.dp_sgd_sigma(T, 1, 1.0, 1e-5)),
        ("clip_norm", lambda: dp_logistic.dp_sgd_epsilon(1.0, T, 1, 1e-5)),
        ("clip_norm", lambda: dp_logistic.DPSGDLogisticRegression(1.0, 1e-5, clip_norm=T, random_state=0).fit(X, y)),
        ("clip_norm", lambda: dpsas_steps.dpsas_noise_sigma(100, T, 1.0, 1e-5)),
        ("clip_norm", lambda: dpsas_steps.private_initial_direction(X, y, T, 1.0, 1e-5, rng=0)),
        ("clip_norm", lambda: logistic_loss.gradient_sum_sensitivity(T)),
        ("radius", lambda: attack_targets.clipped_gaussian_mean(X, 1.0, 1e-5, T, rng=0)),
        ("truncation", lambda: regression.noisy_ols(X, y, 1.0, 1e-5, T, rng=0)),
        ("truncation", lambda: regression.dp_gradient_descent_ols(X, y, 1.0, 1e-5, truncation=T, rng=0)),
        ("truncation", lambda: regression.DPLasso(1.0, 1e-5, sparsity=2, truncation=T, random_state=0).fit(X, y)),
        ("clip_radius", lambda: proper.private_hermite_correlations(X, y, 2, T, 1.0, 1e-5, rng=0)),
    ]


@pytest.mark.parametrize("T", [BIG, 1e300, 1e-300, SUB], ids=["max", "1e300", "1e-300", "subnormal"])
def test_scale_parameters_at_the_float_edges_are_refused_naming_the_users_parameter(T):
    # The reliability review's F1/F3: these released ±inf/NaN (peel → [-inf, -inf, 0, 0, 0]), raised a raw
    # ZeroDivisionError/OverflowError/"math domain error", or named an internal "sigma". Now the contract
    # (dpteach._scales.NORMAL_SCALE, 1e-150 <= T <= 1e150: T and T² normal doubles) refuses them by name.
    for name, call in _scale_calls(T):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            refusal = rf"^{name} must lie in \[1e-150, 1e\+150\] .*got {re.escape(repr(T))}$"
            with pytest.raises(ValueError, match=refusal):
                call()


@pytest.mark.parametrize("T", [1e150, 1e-150], ids=["largest", "smallest"])
def test_scale_parameters_at_the_ends_of_their_range_give_finite_releases(T):
    # The range is not arbitrary: at both ends every release is finite and raises no warning.
    for name, call in _scale_calls(T):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = call()
        values = getattr(result, "coef_", result)
        values = values[0] if isinstance(values, tuple) else values
        assert np.all(np.isfinite(np.asarray(values, dtype=float))), name


@pytest.mark.parametrize("call, message", [
    (lambda: __import__("dpteach.dpsas", fromlist=["x"]).eta_grid(SUB), r"^alpha must not be subnormal"),
    (lambda: __import__("dpteach.dpsas_steps", fromlist=["x"]).default_n_rounds(SUB), r"^eta must not be subnormal"),
    (lambda: __import__("dpteach.dpsas_steps", fromlist=["x"]).private_threshold(np.ones(5), 1.0, SUB, rng=0),
     r"^kappa must not be subnormal"),
    (lambda: improper.PrivateHermiteL1Learner(SUB, 1.0, 1e-5, random_state=0).fit(*_item4_data()), r"^alpha = 5e-324"),
    (lambda: logconcave.PrivateLogConcaveL1Learner(SUB, 1.0, 1e-5, random_state=0).fit(*_item4_data()),
     r"^alpha = 5e-324"),
    (lambda: __import__("dpteach.halfspace_cover", fromlist=["x"]).sphere_net(2, 1e-300), r"^resolution = 1e-300"),
    (lambda: __import__("dpteach.halfspace_cover", fromlist=["x"]).sphere_net(3, SUB), r"^resolution = 5e-324"),
    (lambda: __import__("dpteach.halfspace_cover", fromlist=["x"]).halfspace_cover(np.eye(2)[:, :1], 1e-300),
     r"^resolution = 1e-300"),
    (lambda: proper.PrivateProperLearner(0.2, 1.0, 1e-5, cover_resolution=1e-300, random_state=0).fit(*_item4_data()),
     r"^cover_resolution: resolution = 1e-300"),
    (lambda: __import__("dpteach.fingerprinting", fromlist=["x"]).calibrate_threshold(np.arange(100.0), SUB),
     r"^out_scores must hold at least 1/fpr = inf"),
], ids=["eta_grid", "default_n_rounds", "private_threshold", "hermite_alpha", "logconcave_alpha", "sphere_net_k2",
        "sphere_net_k3", "halfspace_cover", "proper_cover_resolution", "calibrate_threshold"])
def test_other_parameters_at_the_float_edges_are_refused_by_name(call, message):
    # F3's raw errors: OverflowError "cannot convert float infinity to integer", ZeroDivisionError, numpy's
    # "Maximum allowed size exceeded" (a 3e300-point net asked of numpy).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=message):
            call()


def test_epsilon_at_the_largest_double_runs_the_hermite_learners_and_zcdp_rho():
    # F3: zcdp_rho(1.8e308) raised OverflowError (ρ² rounded above the largest double), and with it the
    # Hermite learners and theorem_parameters. ρ is now the float just below ε (the exact ρ = ε − 2√(ρL)
    # lies within one ulp below ε), so it is never over-claimed; ordinary ε keep their bits.
    from dpteach import dp_erm
    rho = dp_erm.zcdp_rho(BIG, 1e-5)
    assert 0 < rho < BIG and rho == np.nextafter(BIG, 0)
    assert dp_erm.zcdp_rho(1.0, 1e-5) == (1.0 / (np.sqrt(np.log(1e5) + 1.0) + np.sqrt(np.log(1e5)))) ** 2
    X, y = _item4_data()
    for learner in (improper.PrivateHermiteL1Learner, logconcave.PrivateLogConcaveL1Learner):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fitted = learner(0.2, BIG, 1e-5, degree=2, n_iterations=20, random_state=0).fit(X, y)
        assert np.all(np.isfinite(fitted.coef_))
    assert np.isfinite(improper.theorem_parameters(2, 0.2, BIG, 1e-5)["block_size"])


def test_dpsas_at_a_tiny_eta_returns_a_finite_threshold_and_direction():
    # Theory review N7: for κ = η < 2⁻⁵⁴, 1 − κ rounds to 1, τ̂ = Φ⁻¹(1) = inf and ŵ = NaN (seeds 3, 4, 7 of
    # 0–7 on main). Now τ̂ is clipped to [Φ⁻¹(κ), −Φ⁻¹(κ)] as in exact arithmetic and every output is finite.
    from scipy import special
    from dpteach import dpsas, dpsas_steps
    X = np.random.default_rng(0).normal(size=(400, 3))
    bound = -special.ndtri(1e-20)
    for seed in range(8):
        tau = dpsas_steps.private_threshold(np.ones(50), 1.0, 1e-20, rng=seed)
        assert -bound <= tau <= bound
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            w, tau_hat = dpsas.dpsas(X, np.ones(400), 1.0, 1e-6, 1e-20, n_rounds=5, rng=seed)[:2]
        assert np.all(np.isfinite(w)) and np.isfinite(tau_hat) and abs(tau_hat) <= bound


def test_work_and_memory_caps_count_what_actually_costs():
    # The reliability review's F4: n_iterations = 10⁹ at n = D = 3 passed the n·D·K work cap and ran for
    # hours (each iteration's ~10 µs of Python overhead dominates), and membership_scores(n = 10⁹) raised
    # numpy's raw MemoryError (29.8 GiB). Both are now refused at once, naming the parameter.
    from dpteach import dp_erm, fingerprinting
    start = time.process_time()
    with pytest.raises(ValueError, match=r"^n_iterations=1000000000 would need .*use n_iterations <= 10000000"):
        dp_erm.noisy_projected_subgradient_descent(np.eye(3), np.ones(3), 1.0, 1.0, 1.0, 1e-5, 10 ** 9, rng=0)
    with pytest.raises(ValueError, match=r"^n=1000000000 would need ~14\.9 GiB"):
        fingerprinting.membership_scores(lambda t, r, rng=None: rng.normal(size=(t, r, 2)),
                                         lambda members, rng=None: members.mean(axis=1),
                                         lambda records, releases: records[..., 0], 10 ** 9, 2, rng=0)
    assert time.process_time() - start < 1.0


def test_the_local_halfspace_learner_predicts_the_true_sign_on_huge_rows():
    # Same as F2 in chapter 3: coef_ = (−3.47, −1.66) and x = (−1.7e308, 1.7e308) has margin
    # 1.7e308·(3.47 − 1.66) > 0, but main's einsum gave +inf + (−inf) = NaN, silently labelled −1.
    from dpteach import local_learners
    X = np.linspace(-1, 1, 400).reshape(200, 2)
    model = local_learners.LocalHalfspaceLearner(epsilon=1.0, n_steps=2, random_state=0)
    model.fit(X, np.array([1.0, -1.0] * 100))
    rows = np.array([[-1.7e308, 1.7e308], [1.7e308, -1.7e308], [BIG, BIG], [-1e300, 1e300]])
    expected = np.where((rows / np.max(np.abs(rows), axis=1, keepdims=True)) @ model.coef_ >= 0, 1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(model.predict(rows), expected)
    assert np.array_equal(model.predict(X), np.where(np.einsum("ij,j->i", X, model.coef_) >= 0, 1, -1))
