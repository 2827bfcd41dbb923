"""Tests of dpteach.generic (chapter 2: the generic private learner) and its bounds.

Statistical tests use fixed seeds and tolerances derived in the comments
(false-alarm rate 1e-6 unless stated); each privacy test also runs a broken
variant (the factor 2 of the exponential mechanism dropped) and checks that
the same test catches it.
"""

import math

import numpy as np
import pytest
from scipy import linalg, stats

from dpteach import audit, bounds, data, generic, hypotheses as hypotheses_module
from dpteach._estimator import NotFittedError
from dpteach.experiments import generic as generic_experiments
from dpteach.mechanisms import exponential_mechanism

FALSE_ALARM = 1e-6


# --- naive references, written from the definitions only ----------------------


def loop_predict(hypotheses, X):
    """±1 predictions of every hypothesis from its parameters, one point at a time."""
    out = np.empty((len(hypotheses), len(X)), dtype=int)
    for h in range(len(hypotheses)):
        p = hypotheses.describe(h)
        for i, x in enumerate(X):
            if p["class"] == "thresholds":
                value = p["sign"] if x >= p["cut"] else -p["sign"]
            elif p["class"] == "intervals":
                value = -1 if p.get("empty") else (1 if p["low"] <= x <= p["high"] else -1)
            elif p["class"] == "halfspaces":
                value = 1 if float(np.dot(p["normal"], x)) >= p["offset"] else -1
            else:
                value = (-1) ** sum(int(x[j]) for j in p["coordinates"])
            out[h, i] = value
    return out


def loop_error_counts(predictions, y):
    return np.array([sum(int(predictions[h, i] != y[i]) for i in range(len(y)))
                     for h in range(predictions.shape[0])])


def small_instances(seed):
    """Each class on a small random sample; 1-D samples include the grid points themselves (ties)."""
    rng = np.random.default_rng(seed)
    grid = np.linspace(0, 1, 6)
    line = np.concatenate([rng.random(25), grid, [0.0, 1.0, 0.4]])
    return [
        (hypotheses_module.thresholds(5), line),
        (hypotheses_module.thresholds(np.array([-0.5, 0.1, 0.2, 0.9])), line),
        (hypotheses_module.intervals(5), line),
        (hypotheses_module.halfspaces(1, n_offsets=5), rng.uniform(-1, 1, (30, 1))),
        (hypotheses_module.halfspaces(2, n_directions=6, n_offsets=5), rng.uniform(-1, 1, (30, 2))),
        (hypotheses_module.halfspaces(3, n_directions=7, n_offsets=4), rng.uniform(-1, 1, (30, 3))),
        (hypotheses_module.parities(4), rng.integers(0, 2, (40, 4))),
    ]


# --- classes -----------------------------------------------------------------


@pytest.mark.parametrize("N", [1, 5, 100])
def test_class_sizes(N):
    assert len(hypotheses_module.thresholds(N)) == 2 * (N + 1)
    assert len(hypotheses_module.intervals(N)) == (N + 1) * (N + 2) // 2 + 1
    assert len(hypotheses_module.thresholds(np.arange(N + 1) / 7)) == 2 * (N + 1)
    assert len(hypotheses_module.halfspaces(3, n_directions=N + 2, n_offsets=7)) == (N + 2) * 7
    assert len(hypotheses_module.halfspaces(1, n_offsets=N)) == 2 * N
    assert len(hypotheses_module.parities(N % 12 + 1)) == 2 ** (N % 12 + 1)


def test_halfspace_directions_are_public_and_fixed():
    first, second = hypotheses_module.public_directions(4, 50, seed=0), hypotheses_module.public_directions(4, 50, seed=0)
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0)
    assert not np.allclose(first, hypotheses_module.public_directions(4, 50, seed=1))
    # d = 2: K equally spaced angles, so consecutive normals are 2π/K apart.
    two = hypotheses_module.public_directions(2, 8)
    np.testing.assert_allclose(np.arccos(np.clip(np.sum(two * np.roll(two, 1, 0), axis=1), -1, 1)), np.pi / 4)


@pytest.mark.parametrize("seed", [0, 1])
def test_predictions_match_definitions(seed):
    for hypotheses, X in small_instances(seed):
        predictions = hypotheses.predict_all(X)
        assert predictions.shape == (len(hypotheses), len(X))
        assert set(np.unique(predictions)) <= {-1, 1}
        np.testing.assert_array_equal(predictions, loop_predict(hypotheses, X), err_msg=repr(hypotheses))
        for index in (0, len(hypotheses) // 2, len(hypotheses) - 1):
            np.testing.assert_array_equal(hypotheses.predict(index, X), predictions[index])
            np.testing.assert_array_equal(hypotheses[index](X), predictions[index])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_error_counts_match_naive_loop(seed):
    rng = np.random.default_rng(100 + seed)
    for hypotheses, X in small_instances(seed):
        y = rng.choice([-1, 1], size=len(X))
        expected = loop_error_counts(loop_predict(hypotheses, X), y)
        np.testing.assert_array_equal(hypotheses.error_counts(X, y), expected, err_msg=repr(hypotheses))
        np.testing.assert_array_equal(hypotheses.error_counts(X, y, method="naive"), expected)


def test_batch_error_counts_equal_one_dataset_at_a_time():
    rng = np.random.default_rng(5)
    cases = [(hypotheses_module.thresholds(20), rng.random((4, 30))),
             (hypotheses_module.intervals(8), rng.random((4, 30))),
             (hypotheses_module.halfspaces(2, n_directions=5, n_offsets=6), rng.uniform(-1, 1, (4, 30, 2))),
             (hypotheses_module.parities(5), rng.integers(0, 2, (4, 30, 5)))]
    for hypotheses, X in cases:
        y = rng.choice([-1, 1], size=X.shape[:2])
        batch = hypotheses.batch_error_counts(X, y)
        for s in range(X.shape[0]):
            np.testing.assert_array_equal(batch[s], hypotheses.error_counts(X[s], y[s]))


def test_walsh_hadamard_is_the_hadamard_matrix_product():
    rng = np.random.default_rng(7)
    values = rng.normal(size=(3, 32))
    np.testing.assert_allclose(hypotheses_module.walsh_hadamard(values), values @ linalg.hadamard(32).T, atol=1e-12)
    with pytest.raises(ValueError, match="power-of-two"):
        hypotheses_module.walsh_hadamard(np.ones(6))


def test_closed_form_true_errors():
    # Thresholds: compare with a fine Riemann sum of Pr[h(x) != y] under U[0,1] and noise η.
    H = hypotheses_module.thresholds(10)
    theta, eta = 0.37, 0.2
    x = (np.arange(200000) + 0.5) / 200000
    clean = np.where(x >= theta, 1, -1)
    disagreement = (H.predict_all(x) != clean).mean(axis=1)
    np.testing.assert_allclose(H.true_errors_uniform(theta, eta), eta + (1 - 2 * eta) * disagreement, atol=1e-5)
    I = hypotheses_module.intervals(6)
    clean = np.where((x >= 0.2) & (x <= 0.55), 1, -1)
    disagreement = (I.predict_all(x) != clean).mean(axis=1)
    np.testing.assert_allclose(I.true_errors_uniform(0.2, 0.55, eta), eta + (1 - 2 * eta) * disagreement, atol=1e-5)
    P = hypotheses_module.parities(3).true_errors_uniform(5, 0.1)
    assert P[5] == 0.1 and np.all(np.delete(P, 5) == 0.5)


# --- the learner: selection distribution ------------------------------------


def chi_square_p_value(samples, probabilities):
    """Pearson chi-square p-value; cells with expected count < 5 are pooled (the test's validity condition)."""
    counts = np.bincount(samples, minlength=len(probabilities))
    expected = probabilities * len(samples)
    small = expected < 5
    observed = np.append(counts[~small], counts[small].sum())
    expected = np.append(expected[~small], expected[small].sum())
    keep = expected > 0
    return stats.chisquare(observed[keep], expected[keep]).pvalue


def test_selection_distribution_matches_exact_probabilities():
    H = hypotheses_module.thresholds(10)
    X, y = data.threshold_data(20, theta=0.37, noise_rate=0.1, rng=11)
    epsilon = 1.0
    errors = loop_error_counts(loop_predict(H, X), y)
    # The exact distribution, computed here from the definition (not by the code under test).
    weights = np.exp(-epsilon * (errors - errors.min()) / 2)
    exact = weights / weights.sum()
    samples = generic.generic_private_learner(H, X, y, epsilon, rng=12, size=100_000)
    # A correct sampler fails this test with probability 1e-6 (the chi-square level).
    assert chi_square_p_value(samples, exact) > FALSE_ALARM
    # The same test rejects the broken learner exp(−ε·errors) (factor 2 missing, = sensitivity 1/2).
    broken = exponential_mechanism(-errors, 0.5, epsilon, rng=12, size=100_000)
    assert chi_square_p_value(broken, exact) < FALSE_ALARM


def test_estimator_interface():
    H = hypotheses_module.thresholds(10)
    X, y = data.threshold_data(200, rng=3)
    model = generic.GenericPrivateLearner(H, epsilon=2.0, random_state=4)
    assert model.fit(X, y) is model
    assert model.index_ == generic.generic_private_learner(H, X, y, 2.0, rng=4)
    assert model.hypothesis_.index == model.index_
    np.testing.assert_array_equal(model.predict(X), H.predict(model.index_, X))
    assert model.score(X, y) == pytest.approx(np.mean(H.predict(model.index_, X) == y))
    # Same seed, same result; no stored error counts (they are not private).
    assert generic.GenericPrivateLearner(H, 2.0, random_state=4).fit(X, y).index_ == model.index_
    assert not any("error" in name for name in vars(model))
    with pytest.raises(NotFittedError, match="GenericPrivateLearner is not fitted yet"):
        generic.GenericPrivateLearner(H, 1.0).predict(X)


def test_erm_breaks_ties_uniformly():
    counts = np.array([[3, 1, 1, 2, 1]])
    chosen = generic.select_hypotheses(np.repeat(counts, 30000, axis=0), math.inf, rng=0)
    assert set(np.unique(chosen)) == {1, 2, 4}
    # Each of the 3 minimisers has probability 1/3: 6-sigma band with sigma = sqrt(p(1-p)/m).
    frequencies = np.bincount(chosen, minlength=5)[[1, 2, 4]] / 30000
    assert np.all(np.abs(frequencies - 1 / 3) < 6 * math.sqrt(2 / 9 / 30000))


# --- utility at the bound's sample size ---------------------------------------


def test_excess_error_at_the_exact_bound():
    # Thresholds N = 100 (|H| = 202), θ = 0.37, η = 0.1; ε = 0.05 puts us in the privacy-dominated regime.
    H = hypotheses_module.thresholds(100)
    true_errors = H.true_errors_uniform(0.37, 0.1)
    epsilon, alpha, beta, seeds = 0.05, 0.1, 0.1, 200
    n = bounds.generic_learner_sample_complexity(len(H), epsilon, alpha, beta, form="exact")
    X, y = data.threshold_data(n, 0.37, 0.1, n_datasets=seeds, rng=20)
    excess = np.array([true_errors[generic.GenericPrivateLearner(H, epsilon, random_state=s).fit(X[s], y[s]).index_]
                       for s in range(seeds)]) - true_errors.min()
    # The theorem gives Pr[excess > α] <= β per seed. If it were exactly β, the number of failures
    # would be Bin(200, β); a correct learner exceeds the 1 − 1e-6 quantile with probability <= 1e-6.
    allowed = stats.binom.ppf(1 - FALSE_ALARM, seeds, beta)
    failures = int(np.sum(excess > alpha))
    assert failures <= allowed
    assert failures <= beta * seeds  # the literal (1 − β)-fraction statement
    # The same check catches a learner that spends 20 times less ε than it may (too much noise).
    counts = H.batch_error_counts(X, y)
    weak = generic_experiments.excess_errors(generic.select_hypotheses(counts, epsilon / 20, rng=21), true_errors)
    assert np.sum(weak > alpha) > allowed


# --- privacy ------------------------------------------------------------------


def _audit_instance():
    """Thresholds on a 5-point grid; the neighbour relabels x = 1 from +1 to −1.

    That replacement adds one error to every h_{k,+} (they all say +1 at x = 1)
    and removes one from every h_{k,−}: scores move in both directions, the
    worst case for the exponential mechanism. Under D the h_{·,−} are bad, so
    the event "output is some h_{k,−}" has a large ratio.
    """
    H = hypotheses_module.thresholds(4)
    X = np.array([0.1, 0.3, 0.6, 0.9, 1.0])
    y = np.array([-1, -1, 1, 1, 1])
    y_neighbour = y.copy()
    y_neighbour[-1] = -1
    return H, (X, y), (X, y_neighbour)


def _learner_mechanism(H, epsilon, sensitivity):
    def mechanism(dataset, n_trials, rng):
        X, y = dataset
        if sensitivity == 1.0:
            return generic.generic_private_learner(H, X, y, epsilon, rng=rng, size=n_trials)
        return exponential_mechanism(-H.error_counts(X, y), sensitivity, epsilon, rng=rng, size=n_trials)
    return mechanism


@pytest.mark.parametrize("sensitivity, caught", [(1.0, False), (0.5, True)])
def test_audit_learner(sensitivity, caught):
    H, dataset, neighbour = _audit_instance()
    epsilon = 1.0

    def negative_orientation(outputs):
        return outputs >= len(H) // 2

    events = [negative_orientation] + audit.value_events(range(len(H)))
    # confidence 1 − 1e-6: a correct mechanism certifies a bound above ε with probability <= 1e-6.
    result = audit.audit(_learner_mechanism(H, epsilon, sensitivity), dataset, neighbour, events,
                         n_trials=200_000, confidence=1 - FALSE_ALARM, rng=3)
    # Exact worst log ratios for this pair (from exponential_mechanism_probabilities): 0.688 for the learner,
    # 1.646 without the factor 2, so the audit can certify at most these values.
    assert (result.epsilon_lower > epsilon) == caught, str(result)


def test_exact_privacy_loss_over_all_neighbours():
    H = hypotheses_module.thresholds(8)
    X, y = data.threshold_data(12, 0.37, 0.1, rng=8)
    candidates_X = np.repeat(H.grid, 2)
    candidates_y = np.tile([-1, 1], H.grid.size)
    for epsilon in (0.1, 1.0, 3.0):
        losses = generic_experiments.neighbour_privacy_losses(H, X, y, epsilon, candidates_X, candidates_y)
        assert losses.shape == (12, candidates_X.size)
        assert losses.max() <= epsilon + 1e-9
        broken = generic_experiments.neighbour_privacy_losses(H, X, y, epsilon, candidates_X, candidates_y, sensitivity=0.5)
        assert epsilon < broken.max() <= 2 * epsilon + 1e-9
        # Same neighbours: the loss of the broken version is the loss at 2ε.
        np.testing.assert_allclose(broken, generic_experiments.neighbour_privacy_losses(
            H, X, y, 2 * epsilon, candidates_X, candidates_y), rtol=1e-9)


# --- bounds -------------------------------------------------------------------


def test_sample_complexity_hand_computed():
    # |H| = 202, ε = 1, α = β = 0.1:
    # exact: max{450 ln(8080), 60 ln(4040)} = max{4048.2, 498.0} -> 4049;
    # slide: 6 (ln 202 + ln 10) * 100 = 4567.2 -> 4568.
    assert bounds.generic_learner_sample_complexity(202, 1.0, 0.1, 0.1) == math.ceil(450 * math.log(8080))
    assert bounds.generic_learner_sample_complexity(202, 1.0, 0.1, 0.1, form="slide") == \
        math.ceil(600 * math.log(2020))
    # Privacy-dominated: ε = 0.01: exact 6/(0.001) ln(4040) = 49822.2; slide 6 ln(2020)/0.001 = 45673.0.
    assert bounds.generic_learner_sample_complexity(202, 0.01, 0.1, 0.1) == math.ceil(6000 * math.log(4040))
    assert bounds.generic_learner_sample_complexity(202, 0.01, 0.1, 0.1, form="realizable") == \
        math.ceil(4000 * math.log(4040))
    assert bounds.erm_sample_complexity(202, 0.1, 0.1) == math.ceil(200 * math.log(4040))
    assert bounds.erm_sample_complexity(202, 0.1, 0.1, realizable=True) == math.ceil(10 * math.log(2020))


def test_exact_form_suffices_and_slide_form_can_fail():
    for size in (2, 202, 1e6):
        for epsilon in (0.01, 0.1, 1.0, 10.0):
            for alpha in (0.01, 0.1, 0.4):
                n = bounds.generic_learner_sample_complexity(size, epsilon, alpha, 0.05)
                assert bounds.generic_learner_failure_bound(size, epsilon, alpha, n) <= 0.05
    # The constant check: at ε = α both terms are at their worst; |H| = 2, β = 0.1 gives
    # β + 2β^{4/3}|H|^{-1/3} ≈ 0.1 + 0.0735 > β.
    n_slide = bounds.generic_learner_sample_complexity(2, 0.1, 0.1, 0.1, form="slide")
    assert bounds.generic_learner_failure_bound(2, 0.1, 0.1, n_slide) > 0.1
    assert bounds.generic_learner_failure_bound(2, 0.1, 0.1, n_slide) <= 0.1 + 2 * 0.1 ** (4 / 3) * 2 ** (-1 / 3) + 1e-9


def test_accuracy_inverts_sample_complexity():
    for form in ("exact", "slide", "realizable"):
        n = bounds.generic_learner_sample_complexity(500, 0.3, 0.07, 0.1, form=form)
        assert bounds.generic_learner_accuracy(500, 0.3, n, 0.1, form=form) <= 0.07
        assert bounds.generic_learner_accuracy(500, 0.3, n - 1, 0.1, form=form) > 0.07
    n = bounds.erm_sample_complexity(500, 0.07, 0.1)
    assert bounds.erm_accuracy(500, n, 0.1) <= 0.07 < bounds.erm_accuracy(500, n - 1, 0.1)
    # Vectorised in ε; for ε well above α (here 1 and 10 vs α = 0.07) the privacy term no longer
    # matters and the bound is the same, (9/(2α²)) ln(4|H|/β); below it grows like 1/ε.
    values = bounds.generic_learner_sample_complexity(500, np.array([0.001, 0.01, 1.0, 10.0]), 0.07, 0.1)
    assert values.shape == (4,) and values[2] == values[3] == math.ceil(4.5 / 0.07 ** 2 * math.log(20000))
    assert values[0] == pytest.approx(10 * values[1], abs=10)


def test_parity_success_lower_bound_holds():
    d, epsilon, seeds = 6, 1.0, 300
    H = hypotheses_module.parities(d)
    for n in (20, 40):
        X, y = data.parity_data(n, d, secret=37, n_datasets=seeds, rng=n)
        chosen = generic.select_hypotheses(H.batch_error_counts(X, y), epsilon, rng=n + 1)
        rate = np.mean(chosen == 37)
        bound = bounds.parity_success_lower_bound(d, n, epsilon)
        # Jensen gives a lower bound on the success probability; the empirical rate of 300 runs
        # may fall below it only by sampling error: 5-sigma (false alarm < 1e-6), sigma <= 1/(2√300).
        assert rate >= bound - 5 * 0.5 / math.sqrt(seeds)
    assert bounds.parity_success_lower_bound(10, 0, 1.0) == pytest.approx(2 ** -10)


# --- bad input ----------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0, -1, float("nan"), float("inf")])
def test_bad_epsilon(epsilon):
    H = hypotheses_module.thresholds(5)
    X, y = data.threshold_data(10, rng=0)
    with pytest.raises(ValueError, match="epsilon"):
        generic.GenericPrivateLearner(H, epsilon).fit(X, y)
    with pytest.raises(ValueError, match="epsilon"):
        generic.generic_private_learner(H, X, y, epsilon)
    with pytest.raises(ValueError, match="epsilon"):
        bounds.generic_learner_sample_complexity(10, epsilon, 0.1, 0.1)


def test_bad_inputs_name_the_parameter():
    H = hypotheses_module.thresholds(5)
    X, y = data.threshold_data(10, rng=0)
    model = generic.GenericPrivateLearner(H, 1.0)
    with pytest.raises(ValueError, match="hypotheses"):
        generic.GenericPrivateLearner([], 1.0).fit(X, y)
    with pytest.raises(ValueError, match="grid"):
        hypotheses_module.thresholds(np.array([]))
    with pytest.raises(ValueError, match="grid"):
        hypotheses_module.intervals(np.array([0.5, 0.2]))
    with pytest.raises(ValueError, match="same number of samples"):
        model.fit(X, y[:-1])
    with pytest.raises(ValueError, match="y"):
        model.fit(X, (y + 1) // 2)                       # labels 0/1
    bad = X.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match="X"):
        model.fit(bad, y)
    with pytest.raises(ValueError, match="X"):
        hypotheses_module.halfspaces(3, n_directions=4).error_counts(np.zeros((5, 2)), np.ones(5))
    with pytest.raises(ValueError, match="X"):
        hypotheses_module.parities(3).error_counts(np.full((4, 3), 2), np.ones(4))
    with pytest.raises(ValueError, match="n_directions"):
        hypotheses_module.public_directions(1, 4)
    with pytest.raises(ValueError, match="alpha"):
        bounds.generic_learner_sample_complexity(10, 1.0, 1.5, 0.1)
    with pytest.raises(ValueError, match="beta"):
        bounds.erm_sample_complexity(10, 0.1, 1.0)
    with pytest.raises(ValueError, match="n_hypotheses"):
        bounds.generic_learner_sample_complexity(0.5, 1.0, 0.1, 0.1)
    with pytest.raises(ValueError, match="form"):
        bounds.generic_learner_sample_complexity(10, 1.0, 0.1, 0.1, form="paper")
    with pytest.raises(ValueError, match="index"):
        H.predict(len(H), X)


# --- the pure-DP packing lower bound (Theorem 2.12, Corollaries 2.13–2.14) ----------------------


def test_packing_bound_constants_hand_computed():
    # Eq. (10) with w = 1: n >= ln((1 − β)M)/ε; M = 10^6, β = 0.1, ε = 1: ln(900000) = 13.7102.
    assert bounds.packing_sample_lower_bound(1e6, 1.0, 0.1) == pytest.approx(13.710150042306449, rel=1e-12)
    # w = 0.2, ε = 0.5: ln(900000) / ln(1 + 0.2 (e^0.5 − 1)) = 13.7102 / 0.121992 = 112.386.
    assert bounds.packing_sample_lower_bound(1e6, 0.5, 0.1, mass=0.2) == pytest.approx(112.38630881664749, rel=1e-12)
    # Corollary 2.13 for the 2^20 parities at α = 0.05 (w -> 4α = 0.2), ε = 0.5, β = 0.1, and its
    # simplified form ln((1 − β)M)/(4α(e^ε − 1)) = 13.7572 / 0.129744 = 106.03, which it must exceed.
    exact = bounds.packing_sample_lower_bound(2.0**20, 0.5, 0.1, mass=0.2)
    simple = math.log(0.9 * 2**20) / (0.2 * math.expm1(0.5))
    assert simple == pytest.approx(106.03, abs=0.01) and exact >= simple
    # Eq. (9): min{1, (1 + w(e^ε − 1))^n / M}; e^{0.5·10}/10^6 = 1.4841e-4, and capped at 1.
    np.testing.assert_allclose(bounds.packing_success_upper_bound(1e6, 0.5, [0, 10, 40]),
                               [1e-6, math.exp(5) / 1e6, 1.0], rtol=1e-12)
    assert bounds.packing_success_upper_bound(100, 1.0, 3, mass=0.5) == pytest.approx(
        (1 + 0.5 * math.expm1(1.0)) ** 3 / 100, rel=1e-12)
    # Nothing is forced when (1 − β)M <= 1.
    assert bounds.packing_sample_lower_bound(1.0, 1.0, 0.1) == 0.0


def test_packing_log_growth_is_exact_and_stable():
    eps = np.array([1e-12, 1e-3, 0.5, 1.0, 3.0, 800.0])
    np.testing.assert_allclose(bounds.packing_log_growth(eps, 1.0), eps, rtol=1e-12)   # w = 1: exactly ε
    for w in (0.01, 0.3, 0.9):
        growth = bounds.packing_log_growth(eps, w)
        small = eps < 30
        np.testing.assert_allclose(growth[small], np.log1p(w * np.expm1(eps[small])), rtol=1e-12)
        assert np.all(growth <= w * np.expm1(np.minimum(eps, 700)) + 1e-300)  # ln(1 + x) <= x
        assert growth[-1] == pytest.approx(800 + math.log(w), rel=1e-12)     # no overflow at ε = 800


def test_packing_runner_matches_a_materialised_learner():
    # M = 30 coin-flip hypotheses on n = 12 distinct points, target the first, at ε = 1. Both sides
    # estimate the same success probability p, from S = 20000 datasets each; every term lies in [0, 1],
    # so by Hoeffding each mean is within t = sqrt(ln(4e6)/(2S)) = 0.0195 of p except with
    # probability 5e-7 (false alarm 1e-6 for the pair): tolerance 2t = 0.039.
    M, n, epsilon, S = 30, 12, 1.0, 20_000
    tolerance = 2 * math.sqrt(math.log(4e6) / (2 * S))
    rng = np.random.default_rng(7)
    predictions = rng.choice([-1, 1], size=(S, M, n))
    errors = (predictions != predictions[:, :1, :]).sum(axis=2)        # the target makes no error
    materialised = np.mean(generic.select_hypotheses(errors, epsilon, rng=8) == 0)
    groups = generic_experiments.packing_group_sizes(n, [M], S, rng=9)
    runner = generic_experiments.packing_success_probabilities(groups, epsilon).mean()
    assert abs(runner - materialised) <= tolerance
    # The factor 2 dropped (weights e^{−εk}, i.e. the runner at 2ε) moves the answer from about 0.35 to
    # about 0.75, far outside the tolerance: the comparison can tell the two laws apart.
    broken = generic_experiments.packing_success_probabilities(groups, 2 * epsilon).mean()
    assert abs(broken - materialised) > 5 * tolerance


def test_packing_ceiling_holds_for_the_generic_learner_and_is_tight_up_to_a_factor_four():
    # Theorem 2.12 with w = 1 on the needle instance of the chapter's figure (d): no ε-DP algorithm,
    # the generic learner included, finds the target with average probability above min{1, e^{εn}/M}.
    # The measured value is a mean of S exact conditional probabilities in [0, 1]: Hoeffding at a
    # false-alarm rate of 1e-6 allows t = sqrt(ln(2e6)/(2S)).
    S = 2000
    t = math.sqrt(math.log(2e6) / (2 * S))
    sizes = np.unique(np.round(np.logspace(0.3, 12, 12)).astype(np.int64))
    for epsilon, n in [(0.05, 30), (0.5, 30), (2.0, 10)]:
        groups = generic_experiments.packing_group_sizes(n, sizes, S, rng=int(100 * epsilon))
        measured = generic_experiments.packing_success_probabilities(groups, epsilon).mean(axis=1)
        assert np.all(measured <= bounds.packing_success_upper_bound(sizes, epsilon, n) + t)
    # The constant is right up to the factor ε / ln(2/(1 + e^{−ε/2})) -> 4 as ε -> 0: a ceiling 4.5 times
    # too strong, min{1, e^{εn/4.5}/M}, is crossed by the generic learner. At ε = 0.05, n = 2000 and
    # M = 2·10^11 the learner succeeds with probability about 0.24, the wrong ceiling says <= 0.023.
    epsilon, n, M = 0.05, 2000, 2 * 10**11
    groups = generic_experiments.packing_group_sizes(n, [M], S, rng=11)
    measured = generic_experiments.packing_success_probabilities(groups, epsilon).mean()
    assert measured <= bounds.packing_success_upper_bound(M, epsilon, n) + t
    assert measured > bounds.packing_success_upper_bound(M, epsilon, n / 4.5) + t


def test_packing_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="mass"):
        bounds.packing_sample_lower_bound(10, 1.0, 0.1, mass=0.0)
    with pytest.raises(ValueError, match="mass"):
        bounds.packing_success_upper_bound(10, 1.0, 5, mass=1.5)
    with pytest.raises(ValueError, match="n_hypotheses"):
        bounds.packing_sample_lower_bound(0.5, 1.0, 0.1)
    with pytest.raises(ValueError, match="beta"):
        bounds.packing_sample_lower_bound(10, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        bounds.packing_log_growth(0.0)
    with pytest.raises(ValueError, match="n"):
        bounds.packing_success_upper_bound(10, 1.0, -1)
    with pytest.raises(ValueError, match="n_datasets"):
        generic_experiments.packing_group_sizes(10, [5], 0)
    with pytest.raises(ValueError, match="group_sizes"):
        generic_experiments.packing_success_probabilities(-np.ones((2, 3)), 1.0)


# --- chapter 2's markup and box numbers (other chapters and the labs cite them) ----------------

CHAPTER_2_NUMBERS = {
    "def-generic-pac": "2.1", "def-generic-private-learner": "2.2", "thm-generic-erm": "2.3",
    "alg-generic-learner": "2.4", "thm-generic-privacy": "2.5", "thm-generic-utility": "2.6",
    "rem-generic-constant": "2.7", "cor-generic-realizable": "2.8", "lem-generic-vc-lower": "2.9",
    "lem-generic-sauer-shelah": "2.10", "thm-generic-pac-ppac": "2.11", "thm-generic-packing": "2.12",
    "cor-generic-packing-alpha": "2.13", "cor-generic-thresholds-lower": "2.14",
    "ex-generic-add-remove": "2.1", "ex-generic-intervals": "2.2", "ex-generic-padding": "2.3",
    "ex-generic-parity-n": "2.4", "ex-generic-slide-constant": "2.5",
}


def test_chapter_2_markup_reads_the_same_on_the_web_and_on_binder():
    from test_mechanisms import BOOK, chapter_markup_problems

    assert chapter_markup_problems(BOOK / "02_generic_learner.ipynb", 2) == []


def test_chapter_2_box_numbers_are_the_ones_other_chapters_cite():
    from test_mechanisms import BOOK, box_numbers

    assert box_numbers(BOOK / "02_generic_learner.ipynb") == CHAPTER_2_NUMBERS
