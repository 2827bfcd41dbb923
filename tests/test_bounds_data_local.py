"""Direct tests of five public chapter 2–3 helpers that were only exercised through the notebooks.

Each test checks a property that a wrong formula would break: exact values
computed here independently, agreement with a simulation of the quantity the
bound is about, and named errors for bad input.
"""

import math

import numpy as np
import pytest

from dpteach import bounds, data, group_sizes, sq_algorithms
from dpteach.local import sample_group_averages
from dpteach.group_sizes import group_size
from dpteach.local_to_sq import simulate_local_with_sq, worst_case_rejection_tv
from dpteach.randomizers import LaplaceRandomizer, RandomizedResponse
from dpteach.sq import ExactSQOracle


# --- data.halfspace_data ------------------------------------------------------------------

def test_halfspace_data_labels_marginal_and_noise():
    normal = np.array([0.6, -0.8, 0.0])
    X, y_clean = data.halfspace_data(20_000, normal, offset=0.1, rng=0, clean=True)
    assert X.shape == (20_000, 3) and y_clean.shape == (20_000,)
    assert np.all(np.abs(X) <= 1)
    np.testing.assert_array_equal(y_clean, np.where(X @ normal >= 0.1, 1, -1))
    # Uniform on [-1, 1]: each coordinate has mean 0 and variance 1/3; 6-sigma bands with
    # sd(mean) = sqrt(1/3 / n) and sd(var) <= sqrt(E x^4 / n) = sqrt(1/5 / n).
    assert np.all(np.abs(X.mean(axis=0)) < 6 * math.sqrt(1 / 3 / 20_000))
    assert np.all(np.abs(X.var(axis=0) - 1 / 3) < 6 * math.sqrt(1 / 5 / 20_000))
    # With noise, the same seed draws the same X and flips a fraction eta of the labels
    # (binomial: 6-sigma band sqrt(eta(1-eta)/n)).
    X_noisy, y_noisy = data.halfspace_data(20_000, normal, offset=0.1, noise_rate=0.2, rng=0)
    np.testing.assert_array_equal(X_noisy, X)
    flipped = np.mean(y_noisy != y_clean)
    assert abs(flipped - 0.2) < 6 * math.sqrt(0.2 * 0.8 / 20_000)


def test_halfspace_data_batches_and_errors():
    X, y = data.halfspace_data(50, np.ones(2), n_datasets=7, rng=1)
    assert X.shape == (7, 50, 2) and y.shape == (7, 50)
    with pytest.raises(ValueError, match="noise_rate"):
        data.halfspace_data(10, np.ones(2), noise_rate=1.0)
    with pytest.raises(ValueError, match="normal"):
        data.halfspace_data(10, np.array([np.nan, 1.0]))
    with pytest.raises(ValueError, match="n_datasets"):
        data.halfspace_data(10, np.ones(2), n_datasets=0)


# --- bounds.sq_answer_failure_bound -------------------------------------------------------

def test_sq_answer_failure_bound_formula_and_simulation():
    epsilon, tau = 1.0, 0.2
    m = np.array([200, 2_000, 20_000])
    expected = np.minimum(2 * np.exp(-tau ** 2 * m / 8) + 2 * np.exp(-m * (epsilon * tau) ** 2 / 128), 1)
    np.testing.assert_allclose(bounds.sq_answer_failure_bound(m, epsilon, tau), expected, rtol=1e-12)
    # At the theorem's group size the bound is <= beta (that is how the size is defined) ...
    beta = 0.05
    m_theorem = group_size(epsilon, tau, beta, rule="theorem", randomizer="laplace")
    assert bounds.sq_answer_failure_bound(m_theorem, epsilon, tau) <= beta
    # ... and it upper-bounds the simulated failure rate of one answer (exact law of the group
    # average; 6-sigma binomial band above the bound).
    answers = sample_group_averages(m_theorem, 0.0, LaplaceRandomizer(epsilon), size=20_000, rng=2)
    rate = np.mean(np.abs(answers) > tau)
    bound = bounds.sq_answer_failure_bound(m_theorem, epsilon, tau)
    assert rate <= bound + 6 * math.sqrt(bound * (1 - bound) / 20_000)
    # A bound without the privacy term (Hoeffding alone) is violated at a group size where the
    # Laplace noise dominates (sd of the average sqrt(8/m)/eps = 0.063 vs tau = 0.2, so about 0.2 %
    # of answers fail), while 2e^{-tau^2 m / 8} = 9e-5: the rate exceeds it by more than 6 sigma.
    small = 2_000
    answers = sample_group_averages(small, 0.0, LaplaceRandomizer(epsilon), size=20_000, rng=3)
    hoeffding_only = 2 * math.exp(-tau ** 2 * small / 8)
    assert np.mean(np.abs(answers) > tau) > hoeffding_only + 6 * math.sqrt(hoeffding_only / 20_000)
    assert bounds.sq_answer_failure_bound(small, epsilon, tau) >= np.mean(np.abs(answers) > tau)
    slide = bounds.sq_answer_failure_bound(m, epsilon, tau, constants="slide")
    np.testing.assert_allclose(slide, np.minimum(2 * np.exp(-tau ** 2 * m / 8) + np.exp(-(epsilon * tau) ** 2 * m / 64), 1))


def test_sq_answer_failure_bound_errors():
    with pytest.raises(ValueError, match="constants"):
        bounds.sq_answer_failure_bound(100, 1.0, 0.1, constants="book")
    with pytest.raises(ValueError, match="m"):
        bounds.sq_answer_failure_bound(-5, 1.0, 0.1)
    with pytest.raises(ValueError, match="tau"):
        bounds.sq_answer_failure_bound(100, 1.0, 1.5)
    with pytest.raises(ValueError, match="epsilon"):
        bounds.sq_answer_failure_bound(100, 0.0, 0.1)


# --- bounds.rejection_sampling_tv_bound and rejection_sampling_queries --------------------

@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_rejection_tv_bound_dominates_the_worst_case(epsilon):
    rr = RandomizedResponse(epsilon)
    # The worst case of the theorem: a point mass opposite the reference input z0 = 0.
    for tau in (1e-3, 1e-2, 0.05):
        worst = worst_case_rejection_tv(rr, np.array([0, 1]), np.array([0.0, 1.0]), 0, tau)
        assert worst <= bounds.rejection_sampling_tv_bound(tau, epsilon) + 1e-12
    assert bounds.rejection_sampling_tv_bound(1e-3, epsilon, t=5) == pytest.approx(
        min(1.0, 5 * bounds.rejection_sampling_tv_bound(1e-3, epsilon)))
    assert bounds.rejection_sampling_tv_bound(0.9, epsilon) == 1.0


def test_rejection_queries_match_the_sampler():
    epsilon = 1.0
    assert bounds.rejection_sampling_queries(epsilon) == pytest.approx(math.e)
    # With an exact oracle each call needs a geometric number of proposals with mean e^eps for the
    # worst-case P (point mass opposite z0). 4000 calls: sd of the mean = sqrt((1-p)/p^2 / 4000).
    rr = RandomizedResponse(epsilon)
    oracle = ExactSQOracle(np.array([[1]]))
    run = simulate_local_with_sq(rr, oracle, 4000, tau=1e-9, feature=lambda rows: rows[:, 0], reference=0, rng=4)
    p = 1 / math.e
    assert abs(run.mean_queries - math.e) < 6 * math.sqrt((1 - p) / p ** 2 / 4000)
    with pytest.raises(ValueError, match="tau"):
        bounds.rejection_sampling_queries(epsilon, tau=0.5)
    with pytest.raises(ValueError, match="tau"):
        bounds.rejection_sampling_queries(epsilon, tau=-0.1)


# --- bounds.masked_parity_lower_bound_shape -----------------------------------------------

def test_masked_parity_lower_bound_shape():
    d = np.arange(1, 8)
    np.testing.assert_allclose(bounds.masked_parity_lower_bound_shape(d, 0.5), 2.0 ** d / 0.25)
    ratio = bounds.masked_parity_lower_bound_shape(d[1:], 1.0) / bounds.masked_parity_lower_bound_shape(d[:-1], 1.0)
    np.testing.assert_allclose(ratio, 2.0)  # doubles with every bit of the secret
    assert isinstance(bounds.masked_parity_lower_bound_shape(3, 1.0), float)
    with pytest.raises(ValueError, match="d"):
        bounds.masked_parity_lower_bound_shape(-1, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        bounds.masked_parity_lower_bound_shape(3, -1.0)


# --- named limits at extreme but valid inputs (issue items on overflow and unbounded loops) --------

def test_extreme_inputs_are_answered_or_refused_by_name():
    from dpteach import local
    with pytest.raises(ValueError, match="epsilon"):
        group_sizes.group_size(1e-300, 0.1, 0.05)
    assert group_sizes.group_size(1e-3, 0.1, 0.05) == math.ceil(128 * math.log(80) / (1e-3 * 0.1) ** 2)
    assert group_sizes.tolerance_for_group(1e-300, 10, 0.05) >= 1  # nothing guaranteed, but an answer
    with pytest.raises(ValueError, match="d must be an integer"):
        local.simulate_sq_locally(sq_algorithms.sq_mean, np.zeros((10, 1)), 1.0, 0.05, d=10 ** 18, tau=0.1)
    with pytest.raises(ValueError, match="alpha"):
        sq_algorithms.sq_threshold_grid(ExactSQOracle(np.array([[0.5, 1.0]])), 1e-9)
    with pytest.raises(ValueError, match="tau"):
        bounds.rejection_sampling_queries(1.0, tau=float("nan"))
    with pytest.raises(ValueError, match="d"):
        bounds.masked_parity_lower_bound_shape(-1, 1.0)
    with pytest.raises(ValueError, match="d"):
        bounds.masked_parity_lower_bound_shape(2.5, 1.0)


def test_threshold_error_outside_the_unit_interval_and_strings():
    # t < 0 labels everything +1 (error θ, like t = 0); t > 1 labels everything −1 (error 1 − θ).
    assert data.threshold_error(-5.0, 0.37) == pytest.approx(0.37)
    assert data.threshold_error(5.0, 0.37) == pytest.approx(0.63)
    assert data.threshold_error(-5.0, 0.37, 0.1) == pytest.approx(0.1 + 0.8 * 0.37)
    with pytest.raises(TypeError, match="threshold"):
        data.threshold_error("0.5", 0.37)


def test_clt_summary_does_not_claim_a_guarantee():
    from dpteach import local
    users = np.zeros((20_000, 1))
    run = local.simulate_sq_locally(sq_algorithms.sq_mean, users, 1.0, 0.05, rule="clt", rng=0, d=1, tau=0.2)
    assert not run.guaranteed and "not a guarantee" in run.summary() and "<=" not in run.summary()
    proved = local.simulate_sq_locally(sq_algorithms.sq_mean, np.zeros((200_000, 1)), 1.0, 0.05, rng=0, d=1, tau=0.2)
    assert proved.guaranteed and "Pr[some answer invalid] <= 0.05" in proved.summary()
