"""dpteach.audit: interval correctness, coverage, and that audits catch broken mechanisms.

Every mechanism of chapter 1 is audited on neighbours at the sensitivity bound
(scores moving in both directions for the selection mechanisms), and each
audit is paired with a broken variant (half the noise / a missing factor 2)
that the same audit must catch: lower bound above the claimed ε.
"""


import numpy as np
import pytest
from scipy import stats

from dpteach import audit as a
from dpteach import mechanisms as m

EPSILON = 1.0
N_TRIALS = 100_000


def test_clopper_pearson_matches_scipy_exact_interval():
    for k, n in [(0, 50), (3, 50), (25, 50), (50, 50), (1234, 100_000)]:
        low, high = a.clopper_pearson(k, n, 0.9)
        ref = stats.binomtest(k, n).proportion_ci(confidence_level=0.9, method="exact")
        assert low == pytest.approx(ref.low, abs=1e-12) and high == pytest.approx(ref.high, abs=1e-12)


def _rr(data, n, rng):
    return m.randomized_response(np.full(n, data), EPSILON, rng)


def test_lower_bound_covers_the_true_epsilon():
    # Randomized response has exact privacy loss ε on the event {output = 1}.
    # With 95 % confidence the bound exceeds ε in at most 5 % of repetitions;
    # over 200 repetitions, more than binom.ppf(1 - 1e-6, 200, 0.05) = 30
    # exceedances would happen with probability < 1e-6 for a valid bound.
    event = a.value_events([1])[0]
    rng = np.random.default_rng(0)
    bounds = [a.epsilon_lower_bound(_rr, 1, 0, event, 2_000, rng=rng).epsilon_lower for _ in range(200)]
    exceed = sum(b > EPSILON for b in bounds)
    assert exceed <= stats.binom.ppf(1 - 1e-6, 200, 0.05)
    # and the bound is informative: its median is well above 0.
    assert np.median(bounds) > 0.5 * EPSILON


def test_point_estimate_and_report():
    result = a.epsilon_lower_bound(_rr, 1, 0, a.value_events([1])[0], 20_000, rng=1)
    assert result.epsilon_lower < result.epsilon_point
    assert abs(result.epsilon_point - EPSILON) < 0.1  # plug-in: ln(0.731/0.269) ± ~0.03 (6 sd)
    assert "ε lower bound" in str(result) and "output == 1" in str(result)


# --- each mechanism: correct stays below ε, broken is caught -----------------

def _laplace(data, n, rng):
    return m.laplace_mechanism(np.full(n, float(data)), 1.0, EPSILON, rng)


def _laplace_half_noise(data, n, rng):
    return float(data) + rng.laplace(0.0, 0.5 / EPSILON, n)


def _gaussian(data, n, rng):
    return m.gaussian_mechanism(np.full(n, float(data)), 1.0, EPSILON, 1e-5, rng)


def _gaussian_half_noise(data, n, rng):
    return float(data) + rng.normal(0.0, m.gaussian_sigma(1.0, EPSILON, 1e-5) / 2, n)


def _rr_double_epsilon(data, n, rng):
    return m.randomized_response(np.full(n, data), 2 * EPSILON, rng)


def _em(scores, n, rng):
    return m.exponential_mechanism(scores, 1.0, EPSILON, rng, size=n)


def _em_no_factor_two(scores, n, rng):
    return m.exponential_mechanism(scores, 0.5, EPSILON, rng, size=n)  # exp(ε s/Δ)


def _rnm(scores, n, rng):
    return m.report_noisy_max(scores, 1.0, EPSILON, rng, size=n)


def _rnm_monotone_scale(scores, n, rng):
    # Lap(Δ/ε): valid only for monotone scores, broken for scores moving both ways.
    return np.argmax(scores + rng.laplace(0.0, 1.0 / EPSILON, (n, len(scores))), axis=1)


_K = 10
_SCORES = np.zeros(_K)
_SCORES_NEIGHBOUR = np.ones(_K)
_SCORES_NEIGHBOUR[0] = -1.0   # candidate 0 loses Δ, all others gain Δ


CASES = {
    "laplace": (_laplace, _laplace_half_noise, 0.0, 1.0, a.threshold_events(np.linspace(-2, 4, 25)), 0.0),
    "gaussian": (_gaussian, _gaussian_half_noise, 0.0, 1.0, a.threshold_events(np.linspace(-2, 8, 41)), 1e-5),
    "randomized_response": (_rr, _rr_double_epsilon, 0, 1, a.value_events([0, 1]), 0.0),
    "exponential_mechanism": (_em, _em_no_factor_two, _SCORES, _SCORES_NEIGHBOUR, a.value_events(range(_K)), 0.0),
    "report_noisy_max": (_rnm, _rnm_monotone_scale, _SCORES, _SCORES_NEIGHBOUR, a.value_events(range(_K)), 0.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_audit_passes_correct_and_catches_broken_mechanism(name):
    correct, broken, dataset, neighbour, events, delta = CASES[name]
    n_trials = 2 * N_TRIALS if name == "gaussian" else N_TRIALS  # Gaussian tails need more runs
    honest = a.audit(correct, dataset, neighbour, events, n_trials, delta=delta, rng=11)
    caught = a.audit(broken, dataset, neighbour, events, n_trials, delta=delta, rng=11)
    assert honest.epsilon_lower <= EPSILON, str(honest)
    assert caught.epsilon_lower > EPSILON, str(caught)


def test_audit_selects_on_fresh_runs():
    # The certified result's counts come from runs after selection: repeated
    # audits with the same seed give the same answer, different seeds differ.
    first = a.audit(_laplace, 0.0, 1.0, a.threshold_events([0.0, 1.0]), 5_000, rng=3)
    again = a.audit(_laplace, 0.0, 1.0, a.threshold_events([0.0, 1.0]), 5_000, rng=3)
    other = a.audit(_laplace, 0.0, 1.0, a.threshold_events([0.0, 1.0]), 5_000, rng=4)
    assert first == again and first != other


def test_repeat_wraps_one_output_mechanism():
    one = a.repeat(lambda data, rng: m.laplace_mechanism(float(data), 1.0, EPSILON, rng))
    out = one(0.0, 7, np.random.default_rng(0))
    assert out.shape == (7,)


def test_audit_input_errors_are_named():
    event = a.value_events([1])[0]
    with pytest.raises(ValueError, match=r"n_trials must be an integer in \[1, inf\]"):
        a.epsilon_lower_bound(_rr, 1, 0, event, 0)
    with pytest.raises(ValueError, match="delta must satisfy 0 <= delta < 1"):
        a.epsilon_lower_bound(_rr, 1, 0, event, 10, delta=1.0)
    with pytest.raises(ValueError, match=r"confidence must lie in \(0, 1\)"):
        a.epsilon_lower_bound(_rr, 1, 0, event, 10, confidence=1.0)
    with pytest.raises(ValueError, match="events must be a non-empty sequence"):
        a.audit(_rr, 1, 0, [], 10)
    with pytest.raises(ValueError, match="mechanism must return an array whose first axis has n_trials=10"):
        a.epsilon_lower_bound(lambda d, n, rng: np.zeros(3), 1, 0, event, 10)
    with pytest.raises(ValueError, match="event must return one boolean per output"):
        a.epsilon_lower_bound(_rr, 1, 0, lambda out: np.array([True]), 10)
