"""Bad-input fuzz for every public callable of chapter 3's modules (generated from ``__all__``).

Each callable gets one valid call (the table below); then every parameter in
turn is replaced by bad values chosen by its role (ε, δ-like probabilities,
rng, arrays, counts). Each bad call must raise ValueError or TypeError whose
message names the parameter. A new public name without an entry fails
``test_every_public_callable_has_a_valid_call``, so new code is covered.
"""

import inspect
import math

import numpy as np
import pytest

from dpteach import group_sizes, local, local_learners, local_to_sq, randomizers, sq, sq_algorithms, sq_lower_bounds
from dpteach.bounds import local as bounds_local
from dpteach.data import local as data_local
from dpteach.experiments import local as experiments_local

MODULES = [randomizers, sq, local, local_to_sq, sq_algorithms, local_learners, sq_lower_bounds,
           experiments_local, bounds_local, data_local]

BAD_EPSILON = [0, -1, float("nan"), float("inf"), "1", None, True]
BAD_PROBABILITY = [-0.1, 1.5, float("nan"), "0.1", None, True]
BAD_RNG = [True, 1.5, "seed", -1]
BAD_COUNT = [0, -1, 2.5, None, True, "3"]
BAD_REAL_COUNT = [0, -1, float("nan"), None, True, "3"]  # rates and budgets accept real n

_BIT_RECORDS = np.array([[0], [1], [1], [0]])
_SUPPORT = np.array([[0.0], [1.0]])


def _exact():
    return sq.ExactSQOracle(_SUPPORT, [0.5, 0.5])


def _threshold_oracle():
    support, weights = data_local.threshold_distribution(0.37, n_grid=64)
    return sq.ExactSQOracle(support, weights)


def _parity_oracle():
    return sq_lower_bounds.RandomLabelParityOracle(3, [1, 0, 1])


# name -> (callable, kwargs of one valid call)
VALID = {
    "RandomizedResponse": (randomizers.RandomizedResponse, dict(epsilon=1.0)),
    "LaplaceRandomizer": (randomizers.LaplaceRandomizer, dict(epsilon=1.0)),
    "OneBitRandomizer": (randomizers.OneBitRandomizer, dict(epsilon=1.0)),
    "HalfNoiseLaplaceRandomizer": (randomizers.HalfNoiseLaplaceRandomizer, dict(epsilon=1.0)),
    "make_randomizer": (randomizers.make_randomizer, dict(name="rr", epsilon=1.0)),
    "debias_randomized_response": (randomizers.debias_randomized_response, dict(outputs=[0, 1, 1], epsilon=1.0)),
    "onebit_constant": (randomizers.onebit_constant, dict(epsilon=1.0)),
    "rr_debias": (randomizers.rr_debias, dict(released=np.array([0.5]), epsilon=1.0)),
    "default_randomizer": (randomizers.default_randomizer, dict(rule="rr")),
    "ExactSQOracle": (sq.ExactSQOracle, dict(support=_SUPPORT, weights=[0.5, 0.5])),
    "NoisySQOracle": (sq.NoisySQOracle, dict(base=_exact(), mode="random", strategy="shrink", rng=0)),
    "as_records": (sq.as_records, dict(data=_SUPPORT)),
    "evaluate_query": (sq.evaluate_query, dict(phi=lambda rows: rows[:, 0], rows=_SUPPORT)),
    "group_size": (group_sizes.group_size, dict(epsilon=1.0, tau=0.1, beta=0.05)),
    "tolerance_for_group": (group_sizes.tolerance_for_group, dict(epsilon=1.0, m=1000, beta=0.05)),
    "LocalSimulatedSQOracle": (local.LocalSimulatedSQOracle,
                               dict(data=np.zeros((50, 1)), epsilon=1.0, beta=0.05, max_queries=2, rng=0)),
    "ReusingLocalSQOracle": (local.ReusingLocalSQOracle,
                             dict(data=np.zeros((50, 1)), epsilon=1.0, beta=0.05, max_queries=2, rng=0)),
    "FastLocalSQOracle": (local.FastLocalSQOracle,
                          dict(support=_SUPPORT, weights=[0.5, 0.5], epsilon=1.0, beta=0.05, max_queries=2, rng=0)),
    "query_plan": (local.query_plan, dict(sq_algorithm=sq_algorithms.sq_mean, d=2, tau=0.1)),
    "users_needed": (local.users_needed, dict(plan=[0.1, 0.2], epsilon=1.0, beta=0.05)),
    "simulate_sq_locally": (local.simulate_sq_locally,
                            dict(sq_algorithm=sq_algorithms.sq_mean, data=np.zeros((10 ** 4, 1)), epsilon=1.0,
                                 beta=0.05, rule="clt", rng=0, d=1, tau=0.5)),
    "sample_group_averages": (local.sample_group_averages,
                              dict(m=10, mean_phi=0.1, randomizer=randomizers.LaplaceRandomizer(1.0), rng=0)),
    "simulate_local_with_sq": (local_to_sq.simulate_local_with_sq,
                               dict(randomizer=randomizers.RandomizedResponse(1.0), oracle=_exact(), n_calls=5,
                                    tau=0.01, rng=0)),
    "rejection_output_law": (local_to_sq.rejection_output_law,
                             dict(proposal_probabilities=[0.5, 0.5], answers=[0.5, 0.5])),
    "worst_case_rejection_tv": (local_to_sq.worst_case_rejection_tv,
                                dict(randomizer=randomizers.RandomizedResponse(1.0), values=[0, 1],
                                     value_probabilities=[0.5, 0.5], reference=0, tau=0.01)),
    "boosting_repetitions": (local_to_sq.boosting_repetitions, dict(beta=0.05, base_failure=0.25)),
    "validate_hypotheses": (local_to_sq.validate_hypotheses,
                            dict(oracle=_threshold_oracle(), hypotheses=[lambda X: np.ones(len(X))], alpha=0.1)),
    "boost_confidence": (local_to_sq.boost_confidence,
                         dict(learner=lambda oracle, rng: (lambda X: np.ones(len(X))), oracle=_threshold_oracle(),
                              alpha=0.1, beta=0.05, rng=0)),
    "records": (sq_algorithms.records, dict(X=[0.1, 0.2], y=[1, -1])),
    "sq_mean": (sq_algorithms.sq_mean, dict(oracle=_exact(), d=1, tau=0.1)),
    "sq_threshold_grid": (sq_algorithms.sq_threshold_grid, dict(oracle=_threshold_oracle(), alpha=0.2)),
    "sq_threshold_binary_search": (sq_algorithms.sq_threshold_binary_search,
                                   dict(oracle=_threshold_oracle(), alpha=0.2)),
    "sq_averaging_halfspace": (sq_algorithms.sq_averaging_halfspace,
                               dict(oracle=sq.ExactSQOracle(np.array([[0.5, 1.0]])), d=1, tau=0.1)),
    "sq_gd_logistic": (sq_algorithms.sq_gd_logistic,
                       dict(oracle=sq.ExactSQOracle(np.array([[0.5, 1.0]])), d=1, tau=0.1, n_steps=2, eta=1.0)),
    "masked_parity_interactive": (sq_algorithms.masked_parity_interactive,
                                  dict(oracle=sq.ExactSQOracle(*data_local.masked_parity_distribution(2, [1, 0], 1)),
                                       d=2)),
    "masked_parity_bruteforce": (sq_algorithms.masked_parity_bruteforce,
                                 dict(oracle=sq.ExactSQOracle(*data_local.masked_parity_distribution(2, [1, 0], 1)),
                                      d=2, tau=0.2)),
    "smallest_feasible_alpha": (local_learners.smallest_feasible_alpha,
                                dict(sq_algorithm=sq_algorithms.sq_threshold_binary_search, n_users=1e9,
                                     epsilon=1.0, beta=0.05)),
    "masked_parity_users": (local_learners.masked_parity_users, dict(d=4, epsilon=1.0, beta=0.05)),
    "all_bit_vectors": (sq_lower_bounds.all_bit_vectors, dict(d=3)),
    "walsh_hadamard": (sq_lower_bounds.walsh_hadamard, dict(values=[1.0, 0.0, 0.0, 1.0])),
    "label_correlations": (sq_lower_bounds.label_correlations, dict(phi=lambda rows: rows[:, -1], d=3)),
    "RandomLabelParityOracle": (sq_lower_bounds.RandomLabelParityOracle, dict(d=3, secret=[1, 0, 1])),
    "single_parity_query": (sq_lower_bounds.single_parity_query, dict(d=3, candidate=2)),
    "majority_parity_query": (sq_lower_bounds.majority_parity_query, dict(d=3, candidates=[1, 2, 4])),
    "parity_candidate_search": (sq_lower_bounds.parity_candidate_search,
                                dict(oracle=_parity_oracle(), d=3, tau=0.2, n_queries=2, bucket_size=3, rng=0)),
    "mean_estimation_experiment": (experiments_local.mean_estimation_experiment,
                                   dict(ns=[100, 1000], epsilon=1.0, n_reps=5, rng=0)),
    "group_size_validity_experiment": (experiments_local.group_size_validity_experiment,
                                       dict(settings=[(1.0, 0.1)], beta=0.05, n_reps=5, rng=0)),
    "threshold_experiment": (experiments_local.threshold_experiment,
                             dict(ns=[10 ** 6], epsilon=1.0, n_reps=1, n_grid=64, rng=0)),
    "threshold_crossover": (experiments_local.threshold_crossover, dict(epsilon=1.0, n_alpha=20)),
    "halfspace_experiment": (experiments_local.halfspace_experiment,
                             dict(ns=[200], d=2, epsilon=1.0, n_reps=1, n_steps=2, n_test=50, rng=0)),
    "masked_parity_experiment": (experiments_local.masked_parity_experiment,
                                 dict(ds=[2], ns=[1000], epsilon=1.0, n_reps=1, users="fast", rng=0)),
    "parity_sq_experiment": (experiments_local.parity_sq_experiment,
                             dict(d=3, tau=0.2, n_queries=2, bucket_sizes=(1,), n_secrets=1, rng=0)),
    "local_mean_rmse": (bounds_local.local_mean_rmse, dict(n=100, epsilon=1.0, p=0.3)),
    "central_mean_rmse": (bounds_local.central_mean_rmse, dict(n=100, epsilon=1.0, p=0.3)),
    "sq_answer_failure_bound": (bounds_local.sq_answer_failure_bound, dict(m=100, epsilon=1.0, tau=0.1)),
    "rejection_sampling_tv_bound": (bounds_local.rejection_sampling_tv_bound, dict(tau=0.01, epsilon=1.0, t=1)),
    "rejection_sampling_queries": (bounds_local.rejection_sampling_queries, dict(epsilon=1.0, tau=0.01)),
    "rejection_sampling_query_budget": (bounds_local.rejection_sampling_query_budget,
                                        dict(t=10, epsilon=1.0, tau=0.01, beta=0.1)),
    "masked_parity_lower_bound_shape": (bounds_local.masked_parity_lower_bound_shape, dict(d=3, epsilon=1.0)),
    "parity_sq_lower_bound": (bounds_local.parity_sq_lower_bound, dict(d=3, tau=0.1)),
    "parity_sq_success_bound": (bounds_local.parity_sq_success_bound, dict(q=5, d=3, tau=0.1)),
    "masked_parity_sq_lower_bound": (bounds_local.masked_parity_sq_lower_bound, dict(d=3, tau=0.1)),
    "threshold_distribution": (data_local.threshold_distribution, dict(theta=0.37)),
    "threshold_error": (data_local.threshold_error, dict(threshold=0.5)),
    "sphere_halfspace_data": (data_local.sphere_halfspace_data, dict(n=10, d=2, rng=0)),
    "masked_parity_data": (data_local.masked_parity_data, dict(n=10, d=2, r=[1, 0], a=1, rng=0)),
    "masked_parity_distribution": (data_local.masked_parity_distribution, dict(d=2, r=[1, 0], a=1)),
    "masked_parity_error": (data_local.masked_parity_error, dict(r_hat=[1, 0], a_hat=1, r=[1, 0], a=1)),
    "LocalThresholdLearner": (local_learners.LocalThresholdLearner, dict(epsilon=1.0, rule="clt", random_state=0)),
    "LocalHalfspaceLearner": (local_learners.LocalHalfspaceLearner, dict(epsilon=1.0, random_state=0)),
}

# Names that are not called by the fuzz: abstract bases, exceptions, constants.
NOT_CALLED = {"LocalRandomizer", "SQOracle", "NotEnoughUsersError", "PrivacyLedgerError", "QueryBudgetError",
              "LocalRun", "QueryPlan", "RejectionSamples", "BoostedRun", "GROUP_SIZE_RULES",
              "ADVERSARIAL_STRATEGIES", "MAX_SIMULATED_QUERIES", "MAX_QUERIES", "MAX_PARITY_BITS"}

# Estimators validate in fit (scikit-learn convention): their bad constructor values are fuzzed through fit.
ESTIMATOR_FIT = {
    "LocalThresholdLearner": (np.linspace(0, 1, 3000), np.where(np.linspace(0, 1, 3000) >= 0.4, 1, -1)),
    "LocalHalfspaceLearner": (np.full((50, 2), 0.5), np.ones(50)),
}


def _public_callables():
    names = []
    for module in MODULES:
        for name in module.__all__:
            if name not in NOT_CALLED and callable(getattr(module, name)):
                names.append(name)
    return sorted(set(names))


def test_every_public_callable_has_a_valid_call():
    missing = [name for name in _public_callables() if name not in VALID]
    assert not missing, f"add a valid call for {missing} to VALID"


REAL_COUNTS = {"local_mean_rmse": ("n",), "central_mean_rmse": ("n",), "sq_answer_failure_bound": ("m",),
               "smallest_feasible_alpha": ("n_users",), "masked_parity_lower_bound_shape": ()}


def _bad_values(name, parameter):
    if parameter == "epsilon":
        return BAD_EPSILON
    if parameter in ("beta", "tau", "alpha", "p", "base_failure", "theta", "noise_rate", "tau_parity"):
        return BAD_PROBABILITY
    if parameter in ("rng", "random_state"):
        return BAD_RNG
    if name in REAL_COUNTS and parameter in REAL_COUNTS[name]:
        return BAD_REAL_COUNT
    if parameter == "candidate":
        return [-1, 2.5, None, True, 8]
    if parameter == "q":
        return [-1, float("nan"), None, True, "3"]
    if parameter in ("n_reps", "n_calls", "m", "t", "d", "n", "max_queries", "n_queries", "n_secrets",
                     "n_users", "n_steps", "n_grid", "n_test", "bucket_size", "n_alpha"):
        return BAD_COUNT
    if parameter == "released":
        return [[], [float("nan")], [2.0], "0.5"]
    if parameter in ("ns",):
        return [[], [float("nan")], [2.5], [[[10]]], [0]]
    if parameter in ("values", "outputs", "weights", "support", "data", "X", "y", "proposal_probabilities",
                     "answers", "value_probabilities", "released", "r", "r_hat", "secret", "plan", "candidates"):
        return [[], [float("nan")], [[[1.0]]]]
    return []


def _cases():
    for name in _public_callables():
        function, kwargs = VALID[name]
        for parameter in kwargs:
            for bad in _bad_values(name, parameter):
                yield pytest.param(name, parameter, bad, id=f"{name}-{parameter}-{bad!r}")


@pytest.mark.parametrize("name", sorted(VALID))
def test_the_valid_call_works(name):
    function, kwargs = VALID[name]
    obj = function(**kwargs)
    if name in ESTIMATOR_FIT:
        obj.fit(*ESTIMATOR_FIT[name])


@pytest.mark.parametrize("name, parameter, bad", list(_cases()))
def test_bad_value_raises_a_named_error(name, parameter, bad):
    function, kwargs = VALID[name]
    kwargs = dict(kwargs, **{parameter: bad})
    with pytest.raises((ValueError, TypeError)) as info:
        obj = function(**kwargs)
        if name in ESTIMATOR_FIT:
            obj.fit(*ESTIMATOR_FIT[name])
    message = str(info.value)
    aliases = {"released": "released", "data": "data", "plan": "plan"}
    assert aliases.get(parameter, parameter) in message, f"{name}({parameter}={bad!r}): {message}"
