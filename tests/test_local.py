"""Tests of dpteach.local (chapter 3): randomizers, group sizes, SQ oracles, both simulations, learners.

Statistical tests use fixed seeds and tolerances derived in the comments:
mean checks use 6-standard-deviation bands from the known variance (two-sided
false alarm 2e-9), goodness-of-fit tests run at false-alarm rate 1e-6, and
every privacy test that accepts a correct randomizer is paired with a broken
variant (half the noise, the wrong keep probability, reused users) that the
same test rejects.
"""

import math

import numpy as np
import pytest
from scipy import special, stats

from dpteach import audit, bounds, data, group_sizes, local, local_learners, local_to_sq, randomizers, sq
from dpteach import sq_algorithms
from dpteach.experiments import local as local_experiments
from dpteach.mechanisms import randomized_response

FALSE_ALARM = 1e-6
EPSILONS = [0.1, 0.5, 1.0, 3.0, 10.0]


# --- broken variants (each one bug) --------------------------------------------------------

class HalfNoiseLaplace(randomizers.LaplaceRandomizer):
    """Laplace scale 1/ε instead of 2/ε: forgets that a [−1, 1] query has sensitivity 2.

    Defined here rather than taken from randomizers.HalfNoiseLaplaceRandomizer, so that the test does
    not depend on the module's own broken variant (which is checked to equal it below).
    """
    sensitivity = 1.0


def test_module_broken_variant_is_the_half_noise_one():
    assert randomizers.HalfNoiseLaplaceRandomizer(1.0).scale == HalfNoiseLaplace(1.0).scale == 1.0


def test_audit_mechanism_adapter_runs_the_randomizer():
    out = randomizers.LaplaceRandomizer(1.0).as_audit_mechanism()(0.5, 1000, np.random.default_rng(0))
    expected = randomizers.LaplaceRandomizer(1.0).randomize(np.full(1000, 0.5), np.random.default_rng(0))
    np.testing.assert_array_equal(out, expected)


class WrongKeepRR(randomizers.RandomizedResponse):
    """Keeps the bit w.p. e^{2ε}/(1 + e^{2ε}): the keep probability of 2ε."""

    def randomize(self, bits, rng=None):
        return randomized_response(bits, 2 * self.epsilon, rng)


class WrongKeepOneBit(randomizers.OneBitRandomizer):
    """The one-bit randomizer with randomized response at 2ε inside."""

    def randomize(self, values, rng=None):
        rng = np.random.default_rng(rng)
        v = np.asarray(values, dtype=float)
        s = rng.random(v.shape) < (1 + v) / 2
        return self.c * (2.0 * randomized_response(s, 2 * self.epsilon, rng) - 1.0)


def _vectorised(randomizer):
    def mechanism(value, n_trials, rng):
        return randomizer.randomize(np.full(n_trials, value), rng)
    return mechanism


# --- 1. randomizers: exact privacy ratios -------------------------------------------------

@pytest.mark.checks("def-local-randomizer")
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_randomized_response_output_ratios_are_exactly_e_to_epsilon(epsilon):
    rr = randomizers.RandomizedResponse(epsilon)
    table = rr.probability(np.array([[0, 0], [1, 1]]), np.array([[0, 1], [0, 1]]))  # rows: output
    ratios = table.max(axis=1) / table.min(axis=1)
    np.testing.assert_allclose(ratios, math.exp(epsilon), rtol=1e-12)
    np.testing.assert_allclose(table.sum(axis=0), 1.0, rtol=1e-12)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_one_bit_output_ratios_never_exceed_e_to_epsilon(epsilon):
    ob = randomizers.OneBitRandomizer(epsilon)
    v = np.linspace(-1, 1, 201)
    plus = ob.probability(np.full(v.shape, ob.c), v)
    minus = ob.probability(np.full(v.shape, -ob.c), v)
    np.testing.assert_allclose(plus + minus, 1.0, rtol=1e-12)
    for p in (plus, minus):
        ratio = p.max() / p.min()
        # attained by the inputs ±1: (1 + 1/c)/(1 − 1/c) = e^ε exactly
        assert ratio <= math.exp(epsilon) * (1 + 1e-12)
        assert ratio == pytest.approx(math.exp(epsilon), rel=1e-9)
    # unbiased by construction: E[output | v] = c·(plus − minus) = v
    np.testing.assert_allclose(ob.c * (plus - minus), v, atol=1e-12)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_laplace_density_ratio_on_a_grid(epsilon):
    lap = randomizers.LaplaceRandomizer(epsilon)
    w = np.linspace(-6, 6, 241)[:, None]
    v = np.linspace(-1, 1, 41)[None, :]
    density = lap.probability(np.broadcast_to(w, (241, 41)), np.broadcast_to(v, (241, 41)))
    ratio = density.max(axis=1) / density.min(axis=1)
    assert ratio.max() <= math.exp(epsilon) * (1 + 1e-12)
    assert ratio.max() == pytest.approx(math.exp(epsilon), rel=1e-9)  # outputs outside [−1, 1]
    broken = HalfNoiseLaplace(epsilon).probability(np.broadcast_to(w, (241, 41)), np.broadcast_to(v, (241, 41)))
    assert (broken.max(axis=1) / broken.min(axis=1)).max() == pytest.approx(math.exp(2 * epsilon), rel=1e-9)


def test_randomizer_samplers_match_their_stated_laws():
    # The privacy ratios above are about `probability`; these tie it to `randomize`.
    # RR and one-bit: chi-square (1 dof) per input at false alarm 1e-6, n = 20 000.
    critical = stats.chi2.isf(FALSE_ALARM, 1)
    n = 20_000
    rr = randomizers.RandomizedResponse(1.0)
    for b in (0, 1):
        ones = int(np.sum(rr.randomize(np.full(n, b), rng=b)))
        p1 = float(rr.probability(np.array([1]), np.array([b]))[0])
        assert stats.chisquare([ones, n - ones], [n * p1, n * (1 - p1)]).statistic < critical
    ob = randomizers.OneBitRandomizer(0.7)
    for v in (-1.0, 0.3, 1.0):
        plus = int(np.sum(ob.randomize(np.full(n, v), rng=5) > 0))
        p1 = float(ob.probability(np.array([ob.c]), np.array([v]))[0])
        assert stats.chisquare([plus, n - plus], [n * p1, n * (1 - p1)]).statistic < critical
    # Laplace: KS against Lap(v, 2/ε) with the scale computed here; rejects scale 1/ε (half the noise).
    lap = randomizers.LaplaceRandomizer(0.5)
    out = lap.randomize(np.full(n, 0.25), rng=3) - 0.25
    assert stats.kstest(out, stats.laplace(scale=2 / 0.5).cdf).pvalue > FALSE_ALARM
    # the same test rejects a scale 30 % off: KS distance 0.048 (max_u ½|e^{−u} − e^{−u/1.3}|) against the
    # 1e-6 critical value sqrt(ln(2/1e-6)/(2n)) = 0.019 at n = 20 000 (DKW)
    for factor in (1.3, 1 / 1.3):
        assert stats.kstest(out, stats.laplace(scale=factor * 2 / 0.5).cdf).pvalue < FALSE_ALARM
    broken = HalfNoiseLaplace(0.5).randomize(np.full(n, 0.25), rng=3) - 0.25
    assert stats.kstest(broken, stats.laplace(scale=2 / 0.5).cdf).pvalue < FALSE_ALARM


# --- 1b. audits: the claimed ε holds, the broken variants are caught ------------------------

AUDIT_CASES = [
    # (randomizer, D, D', events, is_correct)
    (randomizers.LaplaceRandomizer(1.0), 1.0, -1.0, audit.threshold_events(np.linspace(-1, 3, 9)), True),
    (HalfNoiseLaplace(1.0), 1.0, -1.0, audit.threshold_events(np.linspace(-1, 3, 9)), False),
    (randomizers.RandomizedResponse(1.0), 1, 0, audit.value_events([0, 1]), True),
    (WrongKeepRR(1.0), 1, 0, audit.value_events([0, 1]), False),
    (randomizers.OneBitRandomizer(1.0), 1.0, -1.0, audit.threshold_events([0.0]), True),
    (WrongKeepOneBit(1.0), 1.0, -1.0, audit.threshold_events([0.0]), False),
]


@pytest.mark.parametrize("randomizer, dataset, neighbour, events, is_correct", AUDIT_CASES,
                         ids=["laplace", "laplace-scale-1/eps", "rr", "rr-keep-2eps", "onebit", "onebit-2eps"])
@pytest.mark.checks("def-local-randomizer")
def test_audit_accepts_randomizers_and_catches_broken_variants(randomizer, dataset, neighbour, events,
                                                               is_correct):
    # Neighbours at the extremes of the input range (±1, bits 0/1), where the privacy loss is
    # largest. Each broken variant has true ε = 2 (ratio e² on the event), so with 10⁵ runs per
    # side the 99 %-confidence lower bound lands near 1.9 (> 1); a correct one is <= 1 except with
    # probability 1 % (fixed seed, so deterministic).
    result = audit.audit(_vectorised(randomizer), dataset, neighbour, events, 100_000, confidence=0.99,
                         rng=11)
    if is_correct:
        assert result.epsilon_lower <= randomizer.epsilon
    else:
        assert result.epsilon_lower > randomizer.epsilon


# --- 2. unbiased estimates -----------------------------------------------------------------

def test_randomized_response_debiasing_is_unbiased_within_six_sigma():
    # n = 10⁵ users, 30 % ones, ε = 0.5. Given the bits, the estimate has variance
    # e^ε/(n (e^ε − 1)²) (derived in the chapter), sd = 0.0063 here. A 6-sigma band has two-sided
    # false alarm 2e-9. The raw mean of the outputs (forgetting the debiasing) sits at
    # (1 − q) + (2q − 1)·0.3 = 0.451 with q = e^0.5/(1 + e^0.5), far outside the band.
    epsilon, n = 0.5, 100_000
    bits = np.zeros(n, dtype=int)
    bits[: 30_000] = 1
    outputs = randomized_response(bits, epsilon, rng=2)
    sd = math.sqrt(math.exp(epsilon) / (n * math.expm1(epsilon) ** 2))
    estimate = randomizers.debias_randomized_response(outputs, epsilon)
    assert abs(estimate - 0.3) < 6 * sd
    assert abs(np.mean(outputs) - 0.3) > 6 * sd  # the naive average is biased
    # closed form on fixed inputs: mean 1/2 is a fixed point; all-ones gives e^ε/(e^ε − 1)
    assert randomizers.debias_randomized_response([0, 1], 1.0) == pytest.approx(0.5, abs=1e-15)
    assert randomizers.debias_randomized_response([1, 1, 1], 1.0) == pytest.approx(math.e / (math.e - 1), rel=1e-12)


@pytest.mark.parametrize("name, noise_sd", [("laplace", lambda e: math.sqrt(8) / e),
                                            ("onebit", lambda e: None)])
def test_unbiased_estimates_of_a_query_mean(name, noise_sd):
    # Inputs v_i fixed (a grid in [−1, 1] with mean 0.2); the average output is unbiased for it.
    # Per-user variance given v: Laplace 8/ε², one-bit c² − v²; 6-sigma band over n = 10⁵.
    epsilon, n = 1.0, 100_000
    v = np.clip(np.linspace(-1, 1, n) + 0.2, -1, 1)
    randomizer = randomizers.make_randomizer(name, epsilon)
    mean = float(np.mean(randomizer.estimate(randomizer.randomize(v, rng=4))))
    variance = 8 / epsilon ** 2 if name == "laplace" else float(np.mean(randomizer.c ** 2 - v ** 2))
    assert abs(mean - v.mean()) < 6 * math.sqrt(variance / n)


# --- 3. group sizes ------------------------------------------------------------------------

@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("tau", [0.02, 0.1, 0.5])
@pytest.mark.parametrize("beta", [1e-6, 0.05])
def test_group_size_formulas_by_hand(epsilon, tau, beta):
    # theorem (Laplace): Hoeffding 2e^{−τ²m/8} <= β/2 and Chernoff 2e^{−mε²τ²/128} <= β/2
    hoeffding = 8 * math.log(4 / beta) / tau ** 2
    chernoff = 128 * math.log(4 / beta) / (epsilon * tau) ** 2
    assert group_sizes.group_size(epsilon, tau, beta) == math.ceil(max(hoeffding, chernoff))
    # one-bit: Hoeffding on [−c, c], 2exp(−2m τ²/(2c)²) <= β
    c = (math.exp(epsilon) + 1) / (math.exp(epsilon) - 1)
    assert group_sizes.group_size(epsilon, tau, beta, rule="rr") == math.ceil(2 * c ** 2 * math.log(2 / beta) / tau ** 2)
    assert group_sizes.group_size(epsilon, tau, beta, "theorem", "onebit") == group_sizes.group_size(epsilon, tau, beta, "rr")
    # CLT: z² v / τ² with v = 1 + 8/ε² (Laplace) or c² (one bit)
    z = stats.norm.ppf(1 - beta / 2)
    assert group_sizes.group_size(epsilon, tau, beta, "clt") == math.ceil(z ** 2 * (1 + 8 / epsilon ** 2) / tau ** 2)
    assert group_sizes.group_size(epsilon, tau, beta, "clt", "onebit") == math.ceil(z ** 2 * c ** 2 / tau ** 2)
    # slide: smallest m with 2e^{−τ²m/8} + e^{−ε²τ²m/64} <= β
    m = group_sizes.group_size(epsilon, tau, beta, "slide")

    def slide(k):
        return 2 * math.exp(-tau ** 2 * k / 8) + math.exp(-(epsilon * tau) ** 2 * k / 64)
    assert slide(m) <= beta < slide(m - 1)


def test_group_size_reproduces_the_spec_table():
    # spec/sq_local.md §3.1, β = 0.05: m_Lap (ours), slide, m_RR, CLT Laplace, CLT one-bit
    table = {(0.5, 0.1): (224_360, 76_691, 12_300, 12_677, 6_405),
             (1, 0.1): (56_090, 19_173, 3_455, 3_458, 1_799),
             (1, 0.05): (224_360, 76_691, 13_820, 13_830, 7_196),
             (2, 0.1): (14_023, 4_934, 1_272, 1_153, 663),
             (4, 0.05): (14_023, 11_844, 3_176, 2_305, 1_654)}
    for (epsilon, tau), expected in table.items():
        got = (group_sizes.group_size(epsilon, tau, 0.05), group_sizes.group_size(epsilon, tau, 0.05, "slide"),
               group_sizes.group_size(epsilon, tau, 0.05, "rr"), group_sizes.group_size(epsilon, tau, 0.05, "clt"),
               group_sizes.group_size(epsilon, tau, 0.05, "clt", "onebit"))
        assert got == expected


def test_group_size_large_epsilon_branch_and_inverse():
    # ετ > 8√2: the Chernoff step uses s = 1/(√2 b) and needs m >= 8√2 ln(4/β)/(ετ)
    epsilon, tau, beta = 20.0, 0.9, 0.05
    expected = max(8 * math.log(4 / beta) / tau ** 2, 8 * math.sqrt(2) * math.log(4 / beta) / (epsilon * tau))
    assert group_sizes.group_size(epsilon, tau, beta) == math.ceil(expected)
    for rule, name in [("theorem", "laplace"), ("slide", "laplace"), ("rr", "onebit"), ("clt", "laplace"),
                       ("clt", "onebit"), ("theorem", "onebit")]:
        for m in (50, 5_000, 1_234_567):
            tau = group_sizes.tolerance_for_group(1.0, m, 0.01, rule, name)
            if tau < 1:
                assert group_sizes.group_size(1.0, tau, 0.01, rule, name) <= m
                assert group_sizes.group_size(1.0, tau * 0.99, 0.01, rule, name) > m  # smallest, up to 1 %


def test_group_size_is_monotone():
    sizes = [group_sizes.group_size(e, 0.1, 0.05) for e in (0.25, 0.5, 1, 2, 4)]
    assert sizes == sorted(sizes, reverse=True)
    assert group_sizes.group_size(1, 0.05, 0.05) > group_sizes.group_size(1, 0.1, 0.05) > group_sizes.group_size(1, 0.1, 0.2)


# --- 4. SQ -> local simulation: validity, ledger, rounds ----------------------------------

def _rademacher_users(n, d, rng):
    return np.where(rng.random((n, d)) < 0.5, 1.0, -1.0)  # E φ = 0, Var φ = 1 for φ(z) = z_j


def test_simulated_answers_are_valid_with_the_stated_probability_and_exact_variance():
    # R = 1000 local runs of a 2-query non-adaptive algorithm (sq_mean, d = 2) with the theorem
    # rule, ε = 2, τ = 0.25, β = 0.1 (each query β/2), users i.i.d. Rademacher (E φ = 0).
    # (a) thm-sq-to-local: Pr[some answer off by > τ] <= β. The failure count is
    #     Binomial(R, p) with p <= β, so F/R <= β + 4.75·sqrt(β(1−β)/R) fails with prob. < 1e-6
    #     (z = 4.75 is the one-sided 1e-6 normal quantile).
    # (b) The answers' exact variance is (Var φ + 8/ε²)/m = 3/m. Over N = 2000 answers the sample
    #     variance has relative sd sqrt(2/(N−1) + κ/N), κ = excess kurtosis of an answer
    #     = κ4(φ + Lap(1))/(9 m) = 10/(9m) ≈ 0; a 6-sd band is ±0.19. Half the noise (scale 1/ε)
    #     would give 1.5/m (ratio 0.5) and halved groups 6/m (ratio 2): both far outside.
    epsilon, tau, beta, runs = 2.0, 0.25, 0.1, 1000
    m = group_sizes.group_size(epsilon, tau, beta / 2)
    rng = np.random.default_rng(123)
    answers = np.empty((runs, 2))
    for k in range(runs):
        run = local.simulate_sq_locally(sq_algorithms.sq_mean, _rademacher_users(2 * m, 2, rng), epsilon, beta,
                                        rng=rng, d=2, tau=tau)
        answers[k] = run.output
    assert run.group_sizes == [m, m] and run.failure_probability == pytest.approx(beta)
    failures = np.mean(np.any(np.abs(answers) > tau, axis=1))
    assert failures <= beta + 4.75 * math.sqrt(beta * (1 - beta) / runs)
    ratio = answers.var(ddof=1) / (3 / m)
    assert abs(ratio - 1) < 6 * math.sqrt(2 / (answers.size - 1) + 0.01 / answers.size)
    assert abs(answers.mean()) < 6 * math.sqrt(3 / m / answers.size)


def test_ledger_never_exceeds_epsilon_and_reusing_users_is_flagged_with_t_epsilon():
    rng = np.random.default_rng(5)
    users = _rademacher_users(200_000, 4, rng)
    run = local.simulate_sq_locally(sq_algorithms.sq_mean, users, 1.0, 0.05, rule="clt", rng=1, d=4, tau=0.2)
    assert run.max_user_epsilon == 1.0 and run.epsilon == 1.0
    assert run.rounds == 1 and not run.interactive  # a non-adaptive batch is one round
    assert run.users_used == sum(run.group_sizes) <= 200_000
    with pytest.raises(sq.PrivacyLedgerError, match=r"only 4-local"):
        local.simulate_sq_locally(sq_algorithms.sq_mean, users, 1.0, 0.05, rule="clt", rng=1, d=4, tau=0.2,
                                  reuse_users=True)
    # the ledger itself: disjoint groups, each user charged once
    oracle = local.LocalSimulatedSQOracle(users, 0.5, 0.05, 6, rule="clt", rng=2)
    sq_algorithms.sq_mean(oracle, 4, 0.2)
    oracle.query(lambda z: z[:, 0], 0.3)
    groups = np.concatenate(oracle.groups)
    assert np.unique(groups).size == groups.size
    assert oracle.ledger.max() == 0.5 and oracle.ledger.sum() == pytest.approx(0.5 * groups.size)
    assert oracle.rounds == 2 and oracle.privacy_guarantee() == (0.5, 0.0)
    bad = local.ReusingLocalSQOracle(users, 0.5, 0.05, 6, rule="clt", rng=2)
    sq_algorithms.sq_mean(bad, 4, 0.2)
    assert bad.max_user_epsilon == pytest.approx(4 * 0.5)


def test_adaptive_algorithms_use_one_round_per_batch():
    support, weights = data.threshold_distribution(0.37, 0.0, 512)
    plan = local.query_plan(sq_algorithms.sq_threshold_binary_search, alpha=0.05)
    assert plan.rounds == plan.n_queries == math.ceil(math.log2(2 / 0.05))
    grid = local.query_plan(sq_algorithms.sq_threshold_grid, alpha=0.05)
    assert grid.rounds == 1 and grid.n_queries == 21 and set(grid.tolerances) == {0.025}
    assert local.users_needed(grid, 1.0, 0.05) == 21 * group_sizes.group_size(1.0, 0.025, 0.05 / 21)
    oracle = local.FastLocalSQOracle(support, weights, 1.0, 0.05, plan.n_queries, rng=0)
    sq_algorithms.sq_threshold_binary_search(oracle, 0.05)
    assert oracle.rounds == plan.rounds and oracle.users_used == local.users_needed(plan, 1.0, 0.05)
    gd = local.query_plan(sq_algorithms.sq_gd_logistic, d=3, tau=0.1, n_steps=4)
    assert gd.rounds == 4 and gd.n_queries == 12


def test_running_out_of_users_or_queries_raises_named_errors():
    users = _rademacher_users(1000, 2, np.random.default_rng(0))
    with pytest.raises(sq.NotEnoughUsersError, match="n = 1000"):
        local.simulate_sq_locally(sq_algorithms.sq_mean, users, 1.0, 0.05, d=2, tau=0.1)
    oracle = local.LocalSimulatedSQOracle(users, 1.0, 0.05, max_queries=1, rule="clt", rng=0)
    oracle.query(lambda z: z[:, 0], 0.9)
    with pytest.raises(sq.QueryBudgetError, match="max_queries = 1"):
        oracle.query(lambda z: z[:, 1], 0.9)


def test_same_seed_same_local_run():
    users = _rademacher_users(50_000, 3, np.random.default_rng(1))
    runs = [local.simulate_sq_locally(sq_algorithms.sq_mean, users, 1.0, 0.05, rule="clt", rng=9, d=3, tau=0.1)
            for _ in range(2)]
    np.testing.assert_array_equal(runs[0].output, runs[1].output)


def test_fast_oracle_has_the_law_of_the_real_simulation():
    # Two-sample KS at false alarm 1e-6 between 1500 answers of the real simulation (users drawn
    # from P) and 1500 of FastLocalSQOracle, for a ±1-valued and a {−1, 0, 1}-valued query and
    # both randomizers. Power: a Laplace scale of 1/ε (half the noise) changes the answer sd by a factor
    # sqrt((1+2)/(1+8)) = 0.58 at ε = 1, a KS distance of 0.129 between the (nearly normal) answer laws
    # (max_x |Φ(x) − Φ(x/0.58)|). With 6000 draws per side the 1e-6 critical value is
    # sqrt(−ln(5e-7)/2)·sqrt(2/6000) = 0.049, so the last check rejects it with a wide margin.
    support = np.array([[-1.0], [0.0], [1.0]])
    weights = np.array([0.2, 0.3, 0.5])
    rng = np.random.default_rng(8)
    for name in ("laplace", "onebit"):
        for phi in (lambda z: z[:, 0], lambda z: np.where(z[:, 0] > 0, 1.0, -1.0)):
            m, reps = 400, 1500
            users = support[rng.choice(3, size=m * reps, p=weights)]
            real = local.LocalSimulatedSQOracle(users, 1.0, 0.05, reps, randomizer=name, split="equal", rng=rng)
            fast = local.FastLocalSQOracle(support, weights, 1.0, 0.05, reps, randomizer=name, split="equal",
                                           n_users=m * reps, rng=rng)
            a = real.query_batch([(phi, 0.5)] * reps)
            b = fast.query_batch([(phi, 0.5)] * reps)
            assert real.group_sizes[0] == fast.group_sizes[0] == m
            assert stats.ks_2samp(a, b).pvalue > FALSE_ALARM
    broken = local.sample_group_averages(400, 0.3, HalfNoiseLaplace(1.0), size=6000, rng=1)
    right = local.sample_group_averages(400, 0.3, randomizers.LaplaceRandomizer(1.0), size=6000, rng=2)
    assert stats.ks_2samp(broken, right).pvalue < FALSE_ALARM


# --- 5. adversarial oracles and SQ algorithms' guarantees ----------------------------------

STRATEGIES = sorted(sq.ADVERSARIAL_STRATEGIES)


def test_noisy_oracles_stay_within_tolerance_and_bad_strategies_are_refused():
    support, weights = data.threshold_distribution(0.4, 0.1, 256)
    base = sq.ExactSQOracle(support, weights)
    queries = [(sq_algorithms._threshold_error_query(t), tau) for t, tau in zip(np.linspace(0, 1, 30),
                                                                         np.linspace(0.01, 0.5, 30))]
    exact = base.expectations([phi for phi, _ in queries])
    taus = np.array([tau for _, tau in queries])
    for strategy in STRATEGIES:
        answers = sq.NoisySQOracle(base, "adversarial", strategy).query_batch(queries)
        assert np.all(np.abs(answers - exact) <= taus + 1e-12)
        assert np.any(np.abs(answers - exact) > 0.99 * taus)  # it does use its tolerance
    answers = sq.NoisySQOracle(base, "random", rng=0).query_batch(queries)
    assert np.all(np.abs(answers - exact) <= taus)
    cheat = sq.NoisySQOracle(base, "adversarial", lambda v, t, p: v + 2 * t)
    with pytest.raises(ValueError, match="outside the tolerance"):
        cheat.query_batch(queries)


@pytest.mark.parametrize("strategy", STRATEGIES + ["random"])
def test_sq_algorithms_meet_their_guarantees_against_every_adversary(strategy):
    def oracle_for(support, weights):
        base = sq.ExactSQOracle(support, weights)
        if strategy == "random":
            return sq.NoisySQOracle(base, "random", rng=3)
        return sq.NoisySQOracle(base, "adversarial", strategy)

    # grid (agnostic, η = 0.1): err <= OPT + α with OPT = η (a small rounding slack 1e-9)
    for alpha in (0.3, 0.1, 0.04):
        for theta in (0.0, 0.37, 0.5, 0.93):
            support, weights = data.threshold_distribution(theta, 0.1, 1000)
            output = sq_algorithms.sq_threshold_grid(oracle_for(support, weights), alpha)
            true = sq.ExactSQOracle(support, weights).expectation(sq_algorithms._threshold_error_query(output))
            assert (true + 1) / 2 <= 0.1 + alpha + 1e-9
    # binary search (realizable): err <= α
    for alpha in (0.3, 0.1, 0.04, 0.011):
        for theta in (0.0, 0.2, 0.37, 0.5, 0.999):
            support, weights = data.threshold_distribution(theta, 0.0, 4000)
            output = sq_algorithms.sq_threshold_binary_search(oracle_for(support, weights), alpha)
            true = sq.ExactSQOracle(support, weights).expectation(sq_algorithms._threshold_error_query(output))
            assert (true + 1) / 2 <= alpha
    # mean: every coordinate within τ
    support = np.array([[1.0, -0.5, 0.2], [-1.0, 0.5, 0.9], [0.3, 0.3, -1.0]])
    weights = np.array([0.5, 0.3, 0.2])
    estimate = sq_algorithms.sq_mean(oracle_for(support, weights), 3, 0.05)
    assert np.all(np.abs(estimate - weights @ support) <= 0.05 + 1e-12)
    # masked parity, both learners recover (r, a) exactly
    r, a = np.array([1, 0, 1, 1, 0]), 1
    support, weights = data.masked_parity_distribution(5, r, a)
    for learner in (sq_algorithms.masked_parity_interactive, sq_algorithms.masked_parity_bruteforce):
        r_hat, a_hat = learner(oracle_for(support, weights), 5)
        assert np.array_equal(r_hat, r) and a_hat == a


def test_adversary_hurts_an_algorithm_without_slack():
    # Sanity check that the argmin trap is a real adversary: with tolerance exactly α the grid
    # learner (designed for α/2) can be pushed beyond OPT + α... so the designed tolerances matter.
    support, weights = data.threshold_distribution(0.37, 0.0, 1000)
    base = sq.ExactSQOracle(support, weights)
    thresholds = np.arange(11) / 10
    queries = [(sq_algorithms._threshold_error_query(t), 0.2) for t in thresholds]  # error tolerance 0.1 = α
    fooled = thresholds[int(np.argmin(sq.NoisySQOracle(base, "adversarial", "argmin_trap").query_batch(queries)))]
    honest = thresholds[int(np.argmin(base.query_batch(queries)))]
    assert data.threshold_error(honest, 0.37) <= 0.05 < data.threshold_error(fooled, 0.37)


# --- 6. local -> SQ: rejection sampling -----------------------------------------------------

def test_rejection_sampler_matches_the_randomized_response_law_with_e_to_epsilon_queries():
    # z ~ Bern(0.8), ε = 1, exact oracle. Output law q(1) = 0.8q + 0.2(1 − q), q = e/(1+e).
    # Chi-square (1 dof) at false alarm 1e-6 over 20 000 calls; the law of R(z0) (no rejection,
    # q0(1) = 1 − q = 0.269) gives a statistic in the thousands and is rejected by the same test.
    # Queries per call are geometric with success probability π = e^{−ε}: mean e^ε, variance
    # (1 − π)/π² = 4.67, so the mean over 20 000 calls has sd 0.0153; 6-sigma band ±0.092.
    epsilon, n = 1.0, 20_000
    oracle = sq.ExactSQOracle(np.array([[0], [1]]), [0.2, 0.8])
    rr = randomizers.RandomizedResponse(epsilon)
    result = local_to_sq.simulate_local_with_sq(rr, oracle, n, tau=0.01, rng=4)
    q = special.expit(epsilon)
    q1 = 0.8 * q + 0.2 * (1 - q)
    ones = int(np.sum(result.samples == 1))
    critical = stats.chi2.isf(FALSE_ALARM, 1)
    assert stats.chisquare([ones, n - ones], [n * q1, n * (1 - q1)]).statistic < critical
    proposals = rr.randomize(np.zeros(n, dtype=int), rng=5)
    naive = int(proposals.sum())
    assert stats.chisquare([naive, n - naive], [n * q1, n * (1 - q1)]).statistic > critical
    pi = math.exp(-epsilon)
    assert abs(result.mean_queries - math.exp(epsilon)) < 6 * math.sqrt((1 - pi) / pi ** 2 / n)
    assert result.n_queries == oracle.n_queries


def test_non_adaptive_rejection_sampler_is_one_round():
    oracle = sq.ExactSQOracle(np.array([[0], [1]]), [0.4, 0.6])
    result = local_to_sq.simulate_local_with_sq(randomizers.RandomizedResponse(0.5), oracle, 2000, tau=0.01,
                                          non_adaptive=True, beta=0.05, rng=1)
    # Theorem 3.15: each proposal is accepted w.p. >= e^{-ε}(1 − τe^ε)
    k = math.ceil(math.exp(0.5) * math.log(2000 / 0.05) / (1 - 0.01 * math.exp(0.5)))
    assert result.rounds == 1 and oracle.rounds == 1 and np.all(result.queries_per_call == k)
    # each call fails w.p. <= β/n_calls, so a failure at all has probability <= β; fixed seed: none
    assert result.failures == 0 and not np.any(np.isnan(result.samples))


def test_rejection_sampler_for_the_laplace_randomizer_and_tolerance_effect():
    # Continuous outputs: compare with direct draws of R(z), z ~ P, by a two-sample KS test (1e-6).
    lap = randomizers.LaplaceRandomizer(1.0)
    values, probs = np.array([-1.0, 0.5, 1.0]), np.array([0.3, 0.3, 0.4])
    oracle = sq.ExactSQOracle(values[:, None], probs)
    result = local_to_sq.simulate_local_with_sq(lap, oracle, 3000, tau=0.01, rng=6)
    rng = np.random.default_rng(7)
    direct = lap.randomize(rng.choice(values, p=probs, size=3000), rng)
    assert stats.ks_2samp(result.samples, direct).pvalue > FALSE_ALARM
    # worst-case TV of a τ-adversary stays below Theorem 3.15's bound τe^ε/(1 − τe^ε), and is > 0
    rr = randomizers.RandomizedResponse(1.0)
    for tau in (0.001, 0.01, 0.05):
        tv = local_to_sq.worst_case_rejection_tv(rr, np.array([0, 1]), np.array([0.2, 0.8]), 0, tau)
        assert 0 < tv <= tau * math.e / (1 - tau * math.e)


# --- 7. learners, masked parity, experiments -----------------------------------------------

def test_masked_parity_data_distribution_and_error():
    r, a = np.array([1, 0, 1, 1]), 0
    Z = data.masked_parity_data(5000, 4, r, a, rng=0)
    x, i, b, y = Z[:, :4].astype(int), Z[:, 4], Z[:, 5], Z[:, 6]
    np.testing.assert_array_equal(y, np.where(b == 0, (x @ r + a) % 2, r[i]))
    support, weights = data.masked_parity_distribution(4, r, a)
    assert support.shape == (2 ** 4 * 4 * 2, 7) and weights.sum() == pytest.approx(1.0)
    assert data.masked_parity_error(r, a, r, a) == 0.0
    assert data.masked_parity_error(r, 1 - a, r, a) == 0.5
    assert data.masked_parity_error(1 - r, a, r, a) == pytest.approx(0.5 + 0.25)


def test_masked_parity_interactive_learner_with_real_users():
    # Theorem group sizes at ε = 4 (about 5·10⁴ users for d = 4): correct w.p. >= 1 − β = 0.95;
    # fixed seed. Two rounds, d + 1 queries.
    r, a = np.array([0, 1, 1, 0], dtype=np.int8), 1
    t = 5
    n = local.users_needed([1 / 16] * 4 + [0.25], 4.0, 0.05)
    users = data.masked_parity_data(n, 4, r, a, rng=3)
    run = local.simulate_sq_locally(sq_algorithms.masked_parity_interactive, users, 4.0, 0.05, max_queries=t, rng=4, d=4)
    assert run.rounds == 2 and run.users_used == n
    assert np.array_equal(run.output[0], r) and run.output[1] == a


def test_threshold_learner_estimator_meets_its_alpha():
    X, y = data.threshold_data(300_000, theta=0.37, noise_rate=0.0, rng=0)
    model = local_learners.LocalThresholdLearner(epsilon=2.0, random_state=1).fit(X, y)
    assert 0 < model.alpha_ < 1 and model.run_.max_user_epsilon == 2.0
    assert data.threshold_error(model.threshold_, 0.37) <= model.alpha_
    assert model.score(X, y) == pytest.approx(1 - data.threshold_error(model.threshold_, 0.37), abs=0.01)
    with pytest.raises(ValueError, match="n = 100"):
        local_learners.LocalThresholdLearner(epsilon=1.0).fit(X[:100], y[:100])


def test_halfspace_learners_learn_on_the_sphere():
    X, y, w_star = data.sphere_halfspace_data(100_000, 3, rng=0)
    X_test, y_test, _ = data.sphere_halfspace_data(20_000, 3, w_star=w_star, rng=1)
    for method in ("averaging", "gd"):
        model = local_learners.LocalHalfspaceLearner(epsilon=2.0, method=method, n_steps=10, random_state=2).fit(X, y)
        assert model.score(X_test, y_test) > 0.85
        assert model.run_.rounds == (1 if method == "averaging" else 10)


def test_experiment_runners_shapes():
    res = local_experiments.mean_estimation_experiment([100, 10_000], 1.0, n_reps=400, target="population", rng=0)
    # local RR error at n = 10⁴: sqrt((0.21 + e/(e−1)²)/n) = 0.0110; the RMSE over 400 reps has
    # relative sd about 1/sqrt(2·400) = 3.5 %, so ±25 % is a 7-sigma band.
    assert res["rr"][1] == pytest.approx(math.sqrt((0.21 + math.e / (math.e - 1) ** 2) / 1e4), rel=0.25)
    # central: sqrt(0.21/n + 2/(nε)²) = 0.0046, dominated by sampling; the privacy part is 1/√n smaller
    assert res["central"][1] == pytest.approx(bounds.central_mean_rmse(1e4, 1.0, 0.3), rel=0.25)
    assert res["rr"][1] > 2 * res["central"][1]
    # against the sample mean only the privacy error remains: √2/(nε) centrally (same ±25 % band)
    res = local_experiments.mean_estimation_experiment([10_000], 1.0, n_reps=400, target="sample", rng=1)
    assert res["central"][0] == pytest.approx(math.sqrt(2) / 1e4, rel=0.25)
    assert res["laplace"][0] == pytest.approx(bounds.local_mean_rmse(1e4, 1.0, 0.3, "laplace", False), rel=0.25)
    rows = local_experiments.group_size_validity_experiment([(1.0, 0.1)], n_reps=500, rng=0)
    assert [row["rule"] for row in rows] == list(group_sizes.GROUP_SIZE_RULES)
    out = local_experiments.threshold_experiment([1e6, 1e8], 1.0, n_reps=2, rng=0)
    assert out["grid"]["errors"].shape == (2, 2) and out["binary_search"]["rounds"][1] > 1


# --- 8. bad input --------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf])
def test_bad_epsilon_is_named(bad):
    for make in (randomizers.RandomizedResponse, randomizers.LaplaceRandomizer, randomizers.OneBitRandomizer):
        with pytest.raises(ValueError, match="epsilon"):
            make(bad)
    with pytest.raises(ValueError, match="epsilon"):
        group_sizes.group_size(bad, 0.1, 0.05)
    with pytest.raises(ValueError, match="epsilon"):
        local.LocalSimulatedSQOracle(np.zeros((10, 1)), bad, 0.05, 1)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, math.nan])
def test_bad_tau_and_beta_are_named(bad):
    with pytest.raises(ValueError, match="tau"):
        group_sizes.group_size(1.0, bad, 0.05)
    with pytest.raises(ValueError, match="beta"):
        group_sizes.group_size(1.0, 0.1, bad)
    with pytest.raises(ValueError, match="tau"):
        sq.ExactSQOracle(np.zeros((3, 1))).query(lambda z: z[:, 0], bad)
    with pytest.raises(ValueError, match="beta"):
        local.LocalSimulatedSQOracle(np.zeros((10, 1)), 1.0, bad, 1)


def test_bad_queries_and_data_are_named():
    oracle = sq.ExactSQOracle(np.array([[0.5], [2.0]]))
    with pytest.raises(ValueError, match=r"phi must map records into \[-1, 1\].*2\.0"):
        oracle.query(lambda z: z[:, 0], 0.1)
    with pytest.raises(ValueError, match="phi must return finite"):
        oracle.query(lambda z: np.full(len(z), np.nan), 0.1)
    with pytest.raises(ValueError, match="phi must return one value per record"):
        oracle.query(lambda z: np.zeros(3), 0.1)
    with pytest.raises(TypeError, match="phi must be callable"):
        oracle.query(0.5, 0.1)
    with pytest.raises(ValueError, match="data must contain only finite"):
        local.LocalSimulatedSQOracle(np.array([[0.0], [np.nan]]), 1.0, 0.05, 1)
    with pytest.raises(ValueError, match="values must lie in"):
        randomizers.LaplaceRandomizer(1.0).randomize([0.5, 1.5])
    with pytest.raises(ValueError, match="values must contain only finite"):
        randomizers.OneBitRandomizer(1.0).randomize([0.5, np.nan])
    with pytest.raises(ValueError, match="bits must contain only 0 and 1"):
        randomizers.RandomizedResponse(1.0).randomize([0, 2])
    with pytest.raises(ValueError, match="y must contain only labels"):
        sq_algorithms.records(np.zeros((3, 2)), [1, 0, 1])
    with pytest.raises(ValueError, match="X and y must have the same number"):
        sq_algorithms.records(np.zeros((3, 2)), [1, -1])
    with pytest.raises(ValueError, match="X must lie in"):
        local_learners.LocalHalfspaceLearner().fit(np.full((10, 2), 2.0), np.ones(10))
    with pytest.raises(ValueError, match="rule"):
        group_sizes.group_size(1.0, 0.1, 0.05, rule="magic")
    with pytest.raises(ValueError, match="randomizer"):
        group_sizes.group_size(1.0, 0.1, 0.05, rule="slide", randomizer="onebit")
    with pytest.raises(ValueError, match="weights must be non-negative and sum to 1"):
        sq.ExactSQOracle(np.zeros((2, 1)), [0.7, 0.7])


# --- the cases of the former tests/test_local_fuzz.py that no declared constraint generates (issue 23) ----------
# Every other bad value that file tried is one of the declared constraints' own bad values, which
# tests/test_api_fuzz.py derives for every public name, or of the same kind as one (the bound itself for a value
# beyond it, another string for a string). An SQ algorithm's keyword arguments pass through query_plan and
# simulate_sq_locally to the algorithm, whose own contract refuses them by name (both run the caller's algorithm
# with nested checks on).

def _simulate_mean(sq_algorithm, **kwargs):
    return local.simulate_sq_locally(sq_algorithm, np.zeros((10 ** 4, 1)), 1.0, 0.05, rule="clt", rng=0, **kwargs)


@pytest.mark.parametrize("run", [local.query_plan, _simulate_mean], ids=["query_plan", "simulate_sq_locally"])
@pytest.mark.parametrize("name, bad", [("d", bad) for bad in (0, -1, 2.5, None, True, "3")]
                         + [("tau", bad) for bad in (-0.1, 1.5, math.nan, "0.1", None, True)])
def test_an_algorithms_keyword_arguments_are_refused_by_its_own_contract(run, name, bad):
    with pytest.raises((ValueError, TypeError), match=rf"\b{name}\b"):
        run(sq_algorithms.sq_mean, **{"d": 1, "tau": 0.5, name: bad})
