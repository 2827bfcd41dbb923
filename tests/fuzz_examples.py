"""The registry of valid example calls behind tests/test_api_fuzz.py: one entry per public callable.

An entry is keyed by the callable's canonical name, ``f"{obj.__module__}.{obj.__qualname__}"``
(a name re-exported elsewhere, e.g. ``dpteach.bounds.erm_sample_complexity``, is keyed by the
module that defines it: ``dpteach.bounds.generic.erm_sample_complexity``). It holds:

- ``kwargs``: arguments of one *valid* call, as small as possible (the fuzz makes ~2000 calls);
- ``arrays``: the array-valued arguments, each with its allowed number(s) of dimensions; the fuzz
  replaces each by an empty array, an array with a NaN and arrays of a wrong dimension;
- ``fit``: for an estimator, the arguments of ``fit`` (the constructor gets ``kwargs``);
- ``accepts``: (parameter, bad-value label) → reason, for a value that the function documents as
  valid (ε = inf for the non-private reference path); the fuzz checks that the call then works;
- ``exempt``: (parameter, bad-value label) → written reason, for any other case not fuzzed
  (label ``"*"`` exempts every bad value of that parameter);
- ``requires``: optional libraries the call needs (the appendix's OpenDP and diffprivlib); when one
  is not installed the example and every call derived from it are skipped with that reason.

The bad-value labels are those of test_api_fuzz: ``0 -1 nan inf '1' None True`` (ε),
``-0.1 1 1.5 nan`` (δ), ``True -1 1.5 'seed'`` (rng), ``empty nan ndim+1 ndim-1 str object`` (arrays),
``'1' True`` (other real scalars), ``2.5 '1' True`` (integer parameters); the extreme-valid test uses
``1e-300 1e300`` (ε-like) and ``1e-300`` (alpha).

To add a callable: write ``EXAMPLES["dpteach.module.name"] = Example(dict(...), arrays={...})``
with tiny arguments, run ``pytest tests/test_api_fuzz.py -k name`` and make every bad call raise
a ValueError/TypeError naming the parameter (validate at the public boundary with
``dpteach._validation``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from dpteach import audit, data, hypotheses, mechanisms

# Chapter 3's modules (it also has its own fuzz, tests/test_local_fuzz.py); test_api_fuzz checks that
# every one of them is walked and has examples here too.
CHAPTER_3_MODULES = {
    "dpteach.randomizers", "dpteach.sq", "dpteach.local", "dpteach.local_to_sq", "dpteach.sq_algorithms",
    "dpteach.local_learners", "dpteach.sq_lower_bounds", "dpteach.experiments.local", "dpteach.bounds.local",
    "dpteach.data.local",
}


@dataclass
class Example:
    kwargs: dict
    arrays: dict = field(default_factory=dict)
    fit: dict | None = None
    accepts: dict = field(default_factory=dict)
    exempt: dict = field(default_factory=dict)
    args: tuple = ()
    requires: tuple = ()


# ε = inf is the documented non-private reference path (ERM / the exact statistic) of these.
INF_IS_REFERENCE = {("epsilon", "inf"): "epsilon=inf is the documented non-private reference path"}
INF_IN_SWEEP = {("epsilons", "inf"): "epsilon=inf in the sweep is the documented non-private reference curve"}

# Result records (dataclasses the code fills in, e.g. AuditResult, LocalRun) store values their producer has
# already validated; issue 17's '1' / True / 2.5 categories are not fuzzed on their fields.
RECORD = "a result record the code fills in from validated values; not an input to validate"


def record_fields(*names):
    return {(name, label): RECORD for name in names for label in ("'1'", "True", "2.5")}



# --- tiny shared inputs ------------------------------------------------------------------------

_rng = np.random.default_rng(20240607)
X1 = np.linspace(0.05, 0.95, 8)                     # points on [0, 1]
X2 = _rng.normal(size=(12, 2))                       # 12 points in R^2
Y = np.array([1.0, -1.0] * 6)                        # ±1 labels for X2
Y8 = Y[:8]                                           # ±1 labels for X1
TH = hypotheses.thresholds(np.linspace(0, 1, 5))     # |H| = 5
BITS = np.array([0, 1, 1, 0, 1])
RECORDS = _rng.normal(size=(6, 3))                   # k = 6 records in R^3
SCORES = np.array([0.5, 1.5, -0.2, 0.9])


def _mechanism(dataset, n_trials, rng):
    return mechanisms.laplace_mechanism(np.full(n_trials, float(np.sum(dataset))), 1.0, 1.0, rng)


def _audit_mechanism(dataset, n_trials, rng, epsilon):
    return mechanisms.laplace_mechanism(np.full(n_trials, float(np.sum(dataset))), 1.0, epsilon, rng)


EXAMPLES: dict[str, Example] = {}


def add(key, kwargs, **options):
    assert key not in EXAMPLES, key
    EXAMPLES[key] = Example(kwargs, **options)


# --- _estimator (the shared layer) ---------------------------------------------
E = "dpteach._estimator."
add(E + "NotFittedError", dict(), args=("message",))
add(E + "Estimator", dict())
add(E + "LinearClassifierMixin", dict())
add(E + "check_fitted", dict(estimator=TH, attribute="size"))
PR = "dpteach.privacy."
# A receipt records a guarantee: ε = 0 (a step that reads no data) and ε = inf (no guarantee) are valid.
RECEIPT_EPSILON = {("epsilon", "0"): "epsilon=0 records a step that reads no data (post-processing)",
                   ("epsilon", "inf"): "epsilon=inf records a run without guarantee (the non-private reference)"}
add(PR + "PrivacyStep", dict(name="selection", rows="m rows", epsilon=1.0, delta=0.0), accepts=RECEIPT_EPSILON)
add(PR + "PrivacyReceipt", dict(epsilon=1.0, delta=1e-5, accountant="zcdp", theorem="Theorem 9.3"),
    accepts=RECEIPT_EPSILON)

# --- chapter 1: mechanisms, composition, audit, its data, bounds and runners -------------------
M = "dpteach.mechanisms."
add(M + "laplace_mechanism", dict(value=1.0, sensitivity=1.0, epsilon=1.0, rng=0))
add(M + "gaussian_sigma", dict(sensitivity=1.0, epsilon=1.0, delta=1e-5))
add(M + "gaussian_delta", dict(sigma=1.0, sensitivity=1.0, epsilon=1.0))
add(M + "gaussian_mechanism", dict(value=np.zeros(2), sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0))
add(M + "randomized_response", dict(bits=BITS, epsilon=1.0, rng=0), arrays={"bits": (0, 1, 2)})
add(M + "exponential_mechanism_probabilities", dict(scores=SCORES, sensitivity=1.0, epsilon=1.0),
    arrays={"scores": 1})
add(M + "exponential_mechanism", dict(scores=SCORES, sensitivity=1.0, epsilon=1.0, rng=0, size=3),
    arrays={"scores": 1})
add(M + "exponential_mechanism_on_errors", dict(error_counts=np.array([3.0, 1.0, 2.0]), epsilon=1.0, rng=0, size=3),
    arrays={"error_counts": 1}, accepts=INF_IS_REFERENCE)
add(M + "report_noisy_max", dict(scores=SCORES, sensitivity=1.0, epsilon=1.0, rng=0, size=3), arrays={"scores": 1})
C = "dpteach.composition."
add(C + "basic_composition", dict(epsilons=[0.5, 1.0], deltas=[0.0, 1e-5]),
    arrays={"epsilons": (0, 1), "deltas": (0, 1)})
add(C + "advanced_composition", dict(epsilon=0.1, delta=1e-6, k=10, delta_prime=1e-5))
add(C + "advanced_composition_epsilon_per_step", dict(epsilon_total=1.0, k=10, delta_prime=1e-5))
add(C + "heterogeneous_advanced_composition", dict(epsilons=[0.5, 1.0], delta_prime=1e-5),
    arrays={"epsilons": (0, 1)})
add(C + "parallel_composition", dict(epsilons=[0.5, 1.0], deltas=[0.0, 1e-5]),
    arrays={"epsilons": (0, 1), "deltas": (0, 1)})
# The tight accountant needs Google's dp-accounting (imported lazily; issue 24).
add(C + "pld_epsilon", dict(steps=[("laplace", 10.0, 3)], delta=1e-5), requires=("dp_accounting",))
A = "dpteach.audit."
add(A + "AuditResult", dict(epsilon_lower=0.5, p_hat=0.4, q_hat=0.2, n_trials=100, confidence=0.95, delta=0.0),
    exempt={("epsilon_lower", "*"): "a result record the audit fills in: a measured lower bound, 0 when "
                                    "nothing was found; not an input to validate",
            ("delta", "*"): "a result record: it stores the δ the audit was run with, already validated",
            **record_fields("p_hat", "q_hat", "n_trials", "confidence")})
add(A + "clopper_pearson", dict(successes=3, trials=10, confidence=0.95))
add(A + "epsilon_lower_bound", dict(mechanism=_mechanism, dataset=np.zeros(3), neighbour=np.array([0.0, 0, 1]),
                                    event=audit.threshold_events([0.5])[0], n_trials=50, rng=0))
add(A + "audit", dict(mechanism=_mechanism, dataset=np.zeros(3), neighbour=np.array([0.0, 0, 1]),
                      events=audit.threshold_events([0.0, 0.5]), n_trials=50, rng=0))
add(A + "repeat", dict(one_output_mechanism=lambda data, rng: 0.0))
add(A + "threshold_events", dict(thresholds=[0.0, 1.0]), arrays={"thresholds": None})
add(A + "value_events", dict(values=[0, 1]))
D = "dpteach.data.basics."
add(D + "bernoulli_bits", dict(n=5, p=0.3, rng=0))
add(D + "replace_one", dict(data=BITS, index=1, new_record=0), arrays={"data": (1, 2, 3)})
add(D + "vote_counts", dict(n_voters=10, preferences=[0.2, 0.3, 0.5], rng=0), arrays={"preferences": 1})
B = "dpteach.bounds.basics."
add(B + "laplace_expected_absolute_error", dict(sensitivity=1.0, epsilon=1.0))
add(B + "laplace_tail_bound", dict(sensitivity=1.0, epsilon=1.0, beta=0.05))
add(B + "exponential_mechanism_utility_bound", dict(n_candidates=10, sensitivity=1.0, epsilon=1.0))
X = "dpteach.experiments.basics."
add(X + "audit_sweep", dict(setups={"laplace": (_audit_mechanism, np.zeros(2), np.array([0.0, 1.0]),
                                                 audit.threshold_events([0.5]))},
                            claimed_epsilons=[1.0], n_trials=20, rng=0))
add(X + "composition_noise_sweep", dict(ks=[1, 3], epsilon=1.0, delta=1e-5, n=10, n_reps=2, rng=0))
add(X + "plug_in_log_ratios", dict(mechanism=_audit_mechanism, dataset=np.zeros(2), neighbour=np.array([0.0, 1.0]),
                                   epsilon=1.0, thresholds=[0.0, 0.5], n_runs=50, min_count=5, rng=0),
    arrays={"thresholds": (0, 1)},
    exempt={("epsilon", "1e300"): "documented: a threshold with fewer than min_count runs above it gets NaN "
                                  "(at ε = 1e300 the Laplace outputs are point masses)"})

# --- chapter 2: hypothesis classes, the generic learner, its data, bounds and runners ----------
H = "dpteach.hypotheses."
add(H + "Hypothesis", dict(hypotheses=TH, index=0, params={}),
    exempt={("index", label): "a record HypothesisClass.__getitem__ builds from an index it has checked; "
                              "H[2.5], H['1'] and H[True] are refused there (check_int)"
            for label in ("2.5", "'1'", "True")})
add(H + "HypothesisClass", dict())
add(H + "Thresholds", dict(grid=np.linspace(0, 1, 5)), arrays={"grid": 1})
add(H + "Intervals", dict(grid=np.linspace(0, 1, 5)), arrays={"grid": 1})
add(H + "Halfspaces", dict(directions=np.eye(2), offsets=np.array([-0.5, 0.0, 0.5])),
    arrays={"directions": 2, "offsets": 1})
add(H + "Parities", dict(d=3))
add(H + "thresholds", dict(grid=np.linspace(0, 1, 5)), arrays={"grid": 1})
add(H + "intervals", dict(grid=np.linspace(0, 1, 5)), arrays={"grid": 1})
add(H + "halfspaces", dict(d=2, n_directions=4, n_offsets=3))
add(H + "parities", dict(d=3))
add(H + "public_directions", dict(d=2, n_directions=4))
add(H + "walsh_hadamard", dict(values=np.arange(8.0)), arrays={"values": (1, 2, 3)})
add(H + "check_class", dict(hypotheses=TH))
G = "dpteach.generic."
add(G + "generic_private_learner", dict(hypotheses=TH, X=X1, y=Y8, epsilon=1.0, rng=0),
    arrays={"X": (1, 2), "y": 1})
add(G + "GenericPrivateLearner", dict(hypotheses=TH, epsilon=1.0, random_state=0), fit=dict(X=X1, y=Y8),
    arrays={"X": (1, 2), "y": 1})
add(G + "erm", dict(hypotheses=TH, X=X1, y=Y8, rng=0), arrays={"X": (1, 2), "y": 1})
add(G + "select_hypotheses", dict(error_counts=np.array([3, 1, 2]), epsilon=1.0, rng=0),
    arrays={"error_counts": (1, 2)}, accepts=INF_IS_REFERENCE)
D = "dpteach.data.generic."
add(D + "threshold_data", dict(n=5, rng=0))
add(D + "halfspace_data", dict(n=5, normal=np.array([1.0, 0.0]), rng=0), arrays={"normal": 1})
add(D + "parity_data", dict(n=5, d=3, secret=5, rng=0))
add(D + "flip_labels", dict(labels=Y, noise_rate=0.1, rng=0), arrays={"labels": (1, 2)})
B = "dpteach.bounds.generic."
add(B + "generic_learner_sample_complexity", dict(n_hypotheses=100, epsilon=1.0, alpha=0.1, beta=0.05))
add(B + "generic_learner_failure_bound", dict(n_hypotheses=100, epsilon=1.0, alpha=0.1, n=1000))
add(B + "generic_learner_accuracy", dict(n_hypotheses=100, epsilon=1.0, n=1000, beta=0.05))
add(B + "erm_sample_complexity", dict(n_hypotheses=100, alpha=0.1, beta=0.05))
add(B + "erm_accuracy", dict(n_hypotheses=100, n=1000, beta=0.05))
add(B + "parity_success_lower_bound", dict(d=5, n=100, epsilon=1.0))
add(B + "packing_log_growth", dict(epsilon=1.0))
add(B + "packing_success_upper_bound", dict(n_hypotheses=100, epsilon=1.0, n=10),
    exempt={("n", "2.5"): "documented as continuous in n: the packing proof's bound e^{n·g(ε)}/M holds for real n, "
                          "and tests/test_generic.py evaluates it at n/4.5"})
add(B + "packing_sample_lower_bound", dict(n_hypotheses=100, epsilon=1.0, beta=0.05))
X = "dpteach.experiments.generic."
_TABLE = [np.array([[3, 1, 2, 4, 5], [2, 2, 1, 3, 4]])]
_TRUE = np.array([0.3, 0.1, 0.2, 0.35, 0.45])
add(X + "excess_errors", dict(indices=np.array([0, 1]), true_errors=_TRUE), arrays={"true_errors": 1})
add(X + "error_count_table", dict(hypotheses=TH, sample=functools.partial(data.threshold_data, theta=0.37),
                                  n_values=[5], n_datasets=2, rng=0))
add(X + "excess_error_summary", dict(count_table=_TABLE, true_errors=_TRUE, epsilon=1.0, rng=0),
    arrays={"true_errors": 1}, accepts=INF_IS_REFERENCE)
add(X + "padding_group_sizes", dict(n=4, n_padding=10, n_datasets=2, rng=0))
add(X + "select_with_padding", dict(error_counts=_TABLE[0], group_sizes=np.array([[1, 2, 3, 2, 2]] * 2),
                                    epsilon=1.0, rng=0), arrays={"error_counts": 2, "group_sizes": 2})
add(X + "estimated_true_errors", dict(hypotheses=TH, X_test=X1, y_clean=Y8), arrays={"X_test": (1, 2),
                                                                                     "y_clean": 1})
add(X + "neighbour_privacy_losses", dict(hypotheses=TH, X=X1[:4], y=Y8[:4], epsilon=1.0,
                                         candidate_X=np.array([0.5]), candidate_y=np.array([1.0])),
    arrays={"X": (1, 2), "y": 1, "candidate_X": (1, 2), "candidate_y": 1})
add(X + "time_error_counts", dict(hypotheses=TH, X=X1, y=Y8, repeats=1), arrays={"X": (1, 2), "y": 1})
add(X + "grid_size_setups", dict(grid_sizes=[3], theta=0.37, noise_rate=0.1, n=5, n_datasets=2, rng=0))
add(X + "dimension_setups", dict(dimensions=[2], offset=0.1, noise_rate=0.1, n=5, n_datasets=2, n_public=20,
                                 rng=0))
add(X + "noise_level_setups", dict(hypotheses=TH, noise_rates=[0.1], theta=0.37, n_values=[5], n_datasets=2,
                                   rng=0))
add(X + "exact_privacy_loss_sweep", dict(hypotheses=TH, X=X1[:4], y=Y8[:4], epsilons=[1.0],
                                         candidate_X=np.array([0.5]), candidate_y=np.array([1.0]),
                                         sensitivities=[1.0]),
    arrays={"X": (1, 2), "y": 1, "candidate_X": (1, 2), "candidate_y": 1})
add(X + "parity_timings", dict(naive_dims=[2], fast_dims=[2], n=8, rng=0))
add(X + "parity_tables", dict(dimensions=[2], n_values=[8], n_datasets=2, rng=0))
add(X + "packing_group_sizes", dict(n=4, n_hypotheses=[3, 10], n_datasets=2, rng=0),
    arrays={"n_hypotheses": (0, 1)})
add(X + "packing_success_probabilities", dict(group_sizes=np.array([[1, 2, 1], [0, 3, 1]]), epsilon=1.0),
    arrays={"group_sizes": (1, 2, 3)})

# --- chapter 3: randomizers, SQ oracles and algorithms, local simulation, SQ lower bounds -------
from dpteach import local as _local, randomizers as _randomizers, sq as _sq, sq_algorithms as _sqa  # noqa: E402

_SUPPORT = np.array([[0.2, 1.0], [0.8, -1.0]])
_WEIGHTS = np.array([0.5, 0.5])
_USERS = np.column_stack([_rng.uniform(size=400), np.where(_rng.uniform(size=400) < 0.5, -1.0, 1.0)])
R = "dpteach.randomizers."
for _name in ("LocalRandomizer", "RandomizedResponse", "LaplaceRandomizer", "OneBitRandomizer",
              "HalfNoiseLaplaceRandomizer"):
    add(R + _name, dict(epsilon=1.0))
add(R + "make_randomizer", dict(name="laplace", epsilon=1.0))
add(R + "debias_randomized_response", dict(outputs=BITS, epsilon=1.0), arrays={"outputs": (0, 1, 2)})
add(R + "onebit_constant", dict(epsilon=1.0))
add(R + "rr_debias", dict(released=BITS, epsilon=1.0), arrays={"released": (0, 1, 2)})
add(R + "default_randomizer", dict(rule="theorem"))
S = "dpteach.sq."
add(S + "SQOracle", dict())
add(S + "ExactSQOracle", dict(support=_SUPPORT, weights=_WEIGHTS), arrays={"support": (1, 2), "weights": 1})
add(S + "NoisySQOracle", dict(base=_sq.ExactSQOracle(_SUPPORT, _WEIGHTS), mode="random", rng=0))
add(S + "NotEnoughUsersError", dict(), args=("message",))
add(S + "PrivacyLedgerError", dict(), args=("message",))
add(S + "QueryBudgetError", dict(), args=("message",))
add(S + "as_records", dict(data=_SUPPORT), arrays={"data": (1, 2)})
add(S + "evaluate_query", dict(phi=lambda rows: rows[:, 1], rows=_SUPPORT), arrays={"rows": 2})
Q = "dpteach.sq_algorithms."
add(Q + "records", dict(X=_SUPPORT[:, :1], y=_SUPPORT[:, 1]), arrays={"X": (1, 2), "y": 1})
_EXACT = _sq.ExactSQOracle(_SUPPORT, _WEIGHTS)
add(Q + "sq_mean", dict(oracle=_EXACT, d=1, tau=0.2))
add(Q + "sq_threshold_grid", dict(oracle=_EXACT, alpha=0.2))
add(Q + "sq_threshold_binary_search", dict(oracle=_EXACT, alpha=0.2))
add(Q + "sq_averaging_halfspace", dict(oracle=_EXACT, d=1, tau=0.2))
add(Q + "sq_gd_logistic", dict(oracle=_EXACT, d=1, tau=0.2, n_steps=2))
_PARITY = _sq.ExactSQOracle(*data.masked_parity_distribution(2, np.array([1, 0]), 1))
add(Q + "masked_parity_interactive", dict(oracle=_PARITY, d=2))
add(Q + "masked_parity_bruteforce", dict(oracle=_PARITY, d=2))
L = "dpteach.local."
add("dpteach.group_sizes.group_size", dict(epsilon=1.0, tau=0.2, beta=0.05))
add("dpteach.group_sizes.tolerance_for_group", dict(epsilon=1.0, m=100, beta=0.05))
add(L + "LocalSimulatedSQOracle", dict(data=_USERS, epsilon=1.0, beta=0.05, max_queries=2, rule="clt", rng=0),
    arrays={"data": (1, 2)})
add(L + "ReusingLocalSQOracle", dict(data=_USERS, epsilon=1.0, beta=0.05, max_queries=2, rule="clt", rng=0),
    arrays={"data": (1, 2)})
add(L + "FastLocalSQOracle", dict(support=_SUPPORT, weights=_WEIGHTS, epsilon=1.0, beta=0.05, max_queries=2,
                                  rng=0), arrays={"support": (1, 2), "weights": 1})
add(L + "QueryPlan", dict(tolerances=(0.1,), rounds=1), exempt=record_fields("rounds"))
add(L + "query_plan", dict(sq_algorithm=_sqa.sq_threshold_binary_search, alpha=0.2))
add(L + "users_needed", dict(plan=_local.query_plan(_sqa.sq_threshold_binary_search, alpha=0.2), epsilon=1.0,
                             beta=0.05))
add(L + "LocalRun", dict(output=None, n_users=1, users_used=1, n_queries=1, max_queries=1, rounds=1, epsilon=1.0,
                         max_user_epsilon=1.0, failure_probability=0.05),
    exempt={("epsilon", "*"): "a result record the simulation fills in; not an input to validate",
            **record_fields("n_users", "users_used", "n_queries", "max_queries", "rounds", "max_user_epsilon",
                            "failure_probability")})
add(L + "simulate_sq_locally", dict(sq_algorithm=_sqa.sq_mean, data=_USERS, epsilon=1.0, beta=0.05, rule="clt",
                                    rng=0, d=1, tau=0.5), arrays={"data": 2})
add(L + "sample_group_averages", dict(m=10, mean_phi=0.0, randomizer=_randomizers.LaplaceRandomizer(1.0), size=3,
                                      rng=0))
LS = "dpteach.local_to_sq."
add(LS + "RejectionSamples", dict(samples=np.zeros(2), queries_per_call=np.ones(2), tau=0.1, rounds=1),
    exempt=record_fields("tau", "rounds"))
add(LS + "simulate_local_with_sq", dict(randomizer=_randomizers.RandomizedResponse(1.0),
                                        oracle=_sq.ExactSQOracle(np.array([[1]])), n_calls=3, tau=0.01,
                                        feature=lambda rows: rows[:, 0], reference=0, rng=0))
add(LS + "rejection_output_law", dict(proposal_probabilities=np.array([0.5, 0.5]), answers=np.array([0.6, 0.4])),
    arrays={"proposal_probabilities": 1, "answers": 1})
add(LS + "worst_case_rejection_tv", dict(randomizer=_randomizers.RandomizedResponse(1.0), values=np.array([0, 1]),
                                         value_probabilities=np.array([0.0, 1.0]), reference=0, tau=0.01),
    arrays={"values": 1, "value_probabilities": 1})
add(LS + "boosting_repetitions", dict(beta=0.05, base_failure=0.25))
_HYPOTHESES = [lambda X: np.ones(len(X)), lambda X: np.where(np.ravel(X) > 0.5, -1.0, 1.0)]
add(LS + "validate_hypotheses", dict(oracle=_EXACT, hypotheses=_HYPOTHESES, alpha=0.2))
add(LS + "BoostedRun", dict(hypothesis=_HYPOTHESES[0], index=0, candidates=_HYPOTHESES,
                            error_estimates=np.array([0.5, 0.0])), exempt=record_fields("index"))
add(LS + "boost_confidence", dict(learner=lambda oracle, rng: _HYPOTHESES[1], oracle=_EXACT, alpha=0.2, beta=0.05,
                                  rng=0))
from dpteach import sq_lower_bounds as _sqlb  # noqa: E402

SL = "dpteach.sq_lower_bounds."
add(SL + "all_bit_vectors", dict(d=3))
add(SL + "walsh_hadamard", dict(values=np.arange(4.0)), arrays={"values": 1})
add(SL + "label_correlations", dict(phi=lambda rows: rows[:, -1], d=2))
add(SL + "RandomLabelParityOracle", dict(d=2, secret=np.array([1, 0])), arrays={"secret": 1})
add(SL + "single_parity_query", dict(d=2, candidate=1))
add(SL + "majority_parity_query", dict(d=2, candidates=np.array([1, 2, 3])), arrays={"candidates": 1})
add(SL + "parity_candidate_search", dict(oracle=_sqlb.RandomLabelParityOracle(2, np.array([1, 0])), d=2, tau=0.3,
                                         n_queries=2, rng=0))
LL = "dpteach.local_learners."
add(LL + "smallest_feasible_alpha", dict(sq_algorithm=_sqa.sq_threshold_binary_search, n_users=10 ** 6,
                                         epsilon=1.0, beta=0.05))
add(LL + "masked_parity_users", dict(d=2, epsilon=1.0, beta=0.05))
_T_USERS_X = _rng.uniform(size=2000)
add(LL + "LocalThresholdLearner", dict(epsilon=1.0, rule="clt", random_state=0),
    fit=dict(X=_T_USERS_X, y=np.where(_T_USERS_X > 0.37, 1.0, -1.0)), arrays={"X": (1, 2), "y": 1})
add(LL + "LocalHalfspaceLearner", dict(epsilon=1.0, n_steps=2, random_state=0),
    fit=dict(X=_rng.uniform(-1, 1, size=(200, 2)), y=np.array([1.0, -1.0] * 100)), arrays={"X": 2, "y": 1})
D = "dpteach.data.local."
add(D + "threshold_distribution", dict(n_grid=16))
add(D + "threshold_error", dict(threshold=0.5))
add(D + "sphere_halfspace_data", dict(n=5, d=2, rng=0))
add(D + "masked_parity_data", dict(n=5, d=3, r=np.array([1, 0, 1]), a=1, rng=0),
    arrays={"r": 1})
add(D + "masked_parity_distribution", dict(d=2, r=np.array([1, 0]), a=1), arrays={"r": 1})
add(D + "masked_parity_error", dict(r_hat=np.array([1, 0]), a_hat=0, r=np.array([1, 0]), a=1),
    arrays={"r_hat": 1, "r": 1})
B = "dpteach.bounds.local."
add(B + "local_mean_rmse", dict(n=100, epsilon=1.0, p=0.3))
add(B + "central_mean_rmse", dict(n=100, epsilon=1.0, p=0.3))
add(B + "sq_answer_failure_bound", dict(m=100, epsilon=1.0, tau=0.2))
add(B + "rejection_sampling_tv_bound", dict(tau=0.01, epsilon=1.0))
add(B + "rejection_sampling_queries", dict(epsilon=1.0, tau=0.01))
add(B + "masked_parity_lower_bound_shape", dict(d=4, epsilon=1.0))
add(B + "rejection_sampling_query_budget", dict(t=3, epsilon=1.0, tau=0.01, beta=0.05))
add(B + "parity_sq_lower_bound", dict(d=4, tau=0.1))
add(B + "parity_sq_success_bound", dict(q=10, d=4, tau=0.1))
add(B + "masked_parity_sq_lower_bound", dict(d=4, tau=0.1))
X = "dpteach.experiments.local."
add(X + "mean_estimation_experiment", dict(ns=[20], epsilon=1.0, n_reps=2, rng=0))
add(X + "group_size_validity_experiment", dict(settings=[(1.0, 0.3)], rules=("clt",), n_reps=5, rng=0))
add(X + "threshold_experiment", dict(ns=[200], epsilon=1.0, n_reps=1, rule="clt", n_grid=16, rng=0))
add(X + "halfspace_experiment", dict(ns=[200], d=2, epsilon=1.0, n_reps=1, n_steps=2, n_test=50, rng=0))
add(X + "masked_parity_experiment", dict(ds=[2], ns=[200], epsilon=1.0, n_reps=1, rng=0))
add(X + "threshold_crossover", dict(epsilon=1.0, n_alpha=10))
add(X + "parity_sq_experiment", dict(d=2, tau=0.3, n_queries=2, bucket_sizes=[1], n_secrets=2, rng=0))

# --- chapter 4: fingerprinting ------------------------------------------------------------------
F = "dpteach.attack_targets."
_XR = _rng.normal(size=(6, 2))
_YR = _rng.normal(size=6)
add(F + "exact_mean", dict(records=RECORDS, rng=0), arrays={"records": (2, 3)})
add(F + "clipped_gaussian_mean", dict(records=RECORDS, epsilon=1.0, delta=1e-5, radius=2.0, rng=0),
    arrays={"records": (2, 3)})
add(F + "accuracy_noise_sd", dict(alpha=1.0, sigma=1.0, d=3, n=6))
add(F + "noisy_mean", dict(records=RECORDS, noise_sd=0.1, rng=0), arrays={"records": (2, 3)})
add(F + "ols_estimate", dict(x=_XR, y=_YR), arrays={"x": (2, 3), "y": (1, 2)})
add(F + "noisy_ols", dict(x=_XR, y=_YR, noise_sd=0.1, rng=0), arrays={"x": (2, 3), "y": (1, 2)})
F = "dpteach.fingerprinting."
add(F + "score_statistic", dict(records=RECORDS, estimate=np.zeros(3), center=np.ones(3)),
    arrays={"records": (2, 3), "estimate": (1, 2), "center": (1, 2)})
add(F + "classical_regression_statistic", dict(x=_XR, y=_YR, y_fresh=_YR[::-1], estimate=np.ones(2)),
    arrays={"x": (2, 3), "y": (1, 2), "y_fresh": (1, 2), "estimate": (1, 2)})
add(F + "sparse_regression_statistic", dict(x=_XR, y=_YR, y_fresh=_YR[::-1], estimate=np.ones(2), s=1),
    arrays={"x": (2, 3), "y": (1, 2), "y_fresh": (1, 2), "estimate": (1, 2)})
add(F + "regression_score_statistic", dict(x=_XR, y=_YR, beta=np.zeros(2), estimate=np.ones(2)),
    arrays={"x": (2, 3), "y": (1, 2), "beta": (1, 2), "estimate": (1, 2)})
add(F + "printed_threshold_classical", dict(d=3, delta=1e-5))
add(F + "printed_threshold_sparse", dict(s=2, delta=1e-5))
add(F + "membership_scores", dict(sample=functools.partial(data.gaussian_records, mu=np.zeros(2)),
                                  estimator=lambda records, rng=None: records.mean(axis=-2),
                                  statistic=lambda records, estimate: np.einsum(
                                      "...kd,...d->...k", records, estimate),
                                  n=4, n_trials=3, rng=0))
add(F + "roc_curve", dict(in_scores=SCORES, out_scores=SCORES - 0.5), arrays={"in_scores": 1, "out_scores": 1})
add(F + "auc", dict(in_scores=SCORES, out_scores=SCORES - 0.5), arrays={"in_scores": 1, "out_scores": 1})
add(F + "calibrate_threshold", dict(out_scores=SCORES, fpr=0.25), arrays={"out_scores": 1})
add(F + "dp_roc_envelope", dict(fpr=np.array([0.0, 0.1, 1.0]), epsilon=1.0, delta=1e-5), arrays={"fpr": None})
add("dpteach.fingerprinting_lemmas.fingerprinting_lemma_mc", dict(f=lambda x: x.mean(axis=1), n=3, n_draws=20, rng=0))
add("dpteach.fingerprinting_lemmas.gaussian_fingerprinting_mc", dict(f=lambda x: x.mean(axis=1), n=3, mu=0.1, sigma=1.0, n_draws=20, rng=0))
D = "dpteach.data.fingerprinting."
add(D + "uniform_box_mean", dict(d=3, rng=0))
add(D + "cosine_prior_mean", dict(d=3, rng=0))
add(D + "gaussian_records", dict(n_trials=2, n_records=3, mu=np.zeros(2), rng=0), arrays={"mu": 1})
add(D + "sign_records", dict(n_trials=2, n_records=3, p=np.array([0.1, -0.2]), rng=0), arrays={"p": 1})
add(D + "sparse_coefficients", dict(d=5, s=2, rng=0))
add(D + "regression_records", dict(n_trials=2, n_records=3, beta=np.array([0.5, 0.0]), rng=0), arrays={"beta": 1})
B = "dpteach.bounds.fingerprinting."
add(B + "score_attack_separation", dict(sigma=1.0, d=10, n=100, alpha=0.1))
add(B + "predicted_auc", dict(sigma=1.0, d=10, n=100, alpha=0.1))
add(B + "predicted_tpr", dict(fpr=np.array([0.01, 0.1]), sigma=1.0, d=10, n=100, alpha=0.1), arrays={"fpr": None})
add(B + "sample_mean_error", dict(sigma=1.0, d=10, n=100))
add(B + "dp_mean_frontier", dict(sigma=1.0, d=10, n=100, epsilon=1.0, delta=1e-5))
add(B + "score_attack_slack", dict(d=10, n=100, delta=1e-5))
add(B + "score_attack_lower_bound", dict(sigma=1.0, d=10, n=100, epsilon=1.0, delta=1e-5))
X = "dpteach.experiments.fingerprinting."
add(X + "clipping_radius", dict(d=3))
add(X + "dp_delta", dict(n=10))
add(X + "auc_vs_ratio", dict(ds=[2], ns=[4], epsilons=[1.0], n_scores=8, rng=0),
    arrays={"ds": 1, "ns": 1, "epsilons": 1})
add(X + "roc_experiment", dict(d=2, n=4, epsilon=1.0, n_trials=2, rng=0))
add(X + "phase_diagram", dict(d=2, ns=[4], alpha_fractions=[0.5], n_scores=8, rng=0),
    arrays={"ns": 1, "alpha_fractions": 1})
add(X + "threshold_experiment", dict(d=2, n=4, target_fprs=[0.1], n_trials=20, rng=0), arrays={"target_fprs": 1})
add(X + "lower_bound_experiment", dict(d=2, ns=[4], epsilon=1.0, delta=1e-3, n_trials=2, rng=0), arrays={"ns": 1})
add(X + "sparse_threshold_fpr", dict(s=2, deltas=[1e-2], n_draws=10, rng=0), arrays={"deltas": 1})
add(X + "regression_experiment", dict(d=4, s=2, ratios=[2.0], epsilons=[1.0], n_scores=8, rng=0),
    arrays={"ratios": 1, "epsilons": 1})

# --- chapter 5: Peeling and private sparse regression ------------------------------------------
PE = "dpteach.peeling."
add(PE + "peeling_noise_scale", dict(sparsity=2, epsilon=1.0, delta=1e-5, sensitivity=1.0))
add(PE + "peeling_epsilon", dict(sparsity=2, epsilon=1.0, delta=1e-5))
add(PE + "peel", dict(v=SCORES, s=2, epsilon=1.0, delta=1e-5, sensitivity=1.0, rng=0, size=2), arrays={"v": 1})
_XS, _YS, _BETA = data.sparse_regression_data(40, 6, 2, rng=1)
RG = "dpteach.regression."
add(RG + "default_truncation", dict(n_samples=40))
add(RG + "dp_lasso_sensitivity", dict(block_size=10, truncation=2.0))
add(RG + "lasso_gradient_step", dict(X=_XS, y=_YS, beta=np.zeros(6), step_size=1.0, truncation=2.0),
    arrays={"X": 2, "y": 1, "beta": 1})
add(RG + "DPLasso", dict(epsilon=1.0, delta=1e-5, sparsity=2, random_state=0), fit=dict(X=_XS, y=_YS),
    arrays={"X": 2, "y": 1})
add(RG + "noisy_ols_noise_std", dict(n_samples=40, n_features=6, epsilon=1.0, delta=1e-5, truncation=2.0))
add(RG + "noisy_ols_sensitivity", dict(n_samples=40, n_features=6, truncation=2.0))
add(RG + "noisy_ols", dict(X=_XS, y=_YS, epsilon=1.0, delta=1e-5, truncation=2.0, rng=0), arrays={"X": 2, "y": 1})
add(RG + "dp_gradient_descent_sigma", dict(n_samples=40, n_features=6, epsilon=1.0, delta=1e-5, truncation=2.0,
                                           n_iterations=3))
add(RG + "dp_gradient_descent_ols", dict(X=_XS, y=_YS, epsilon=1.0, delta=1e-5, truncation=2.0, n_iterations=3,
                                         rng=0), arrays={"X": 2, "y": 1})
RB = "dpteach.regression_baselines."
add(RB + "hard_threshold", dict(v=SCORES, s=2), arrays={"v": 1})
add(RB + "split_iht", dict(X=_XS, y=_YS, sparsity=2, rng=0), arrays={"X": 2, "y": 1})
add(RB + "lasso_ista", dict(X=_XS, y=_YS, n_iterations=5), arrays={"X": 2, "y": 1})
add(RB + "ols", dict(X=_XS, y=_YS), arrays={"X": 2, "y": 1})
D = "dpteach.data.regression."
add(D + "sparse_regression_data", dict(n=5, d=4, s=2, rng=0))
add(D + "linear_regression_data", dict(n=5, d=2, rng=0))
B = "dpteach.bounds.regression."
add(B + "sparse_regression_upper_rate", dict(n=1000, d=10, s=2, epsilon=1.0, delta=1e-5))
add(B + "sparse_regression_lower_rate", dict(n=1000, d=10, s=2, epsilon=1.0, delta=1e-5))
add(B + "classical_regression_upper_rate", dict(n=1000, d=5, epsilon=1.0, delta=1e-5))
add(B + "classical_regression_lower_rate", dict(n=1000, d=5, epsilon=1.0, delta=1e-5))
X = "dpteach.experiments.regression."
add(X + "default_delta", dict(n=100))
add(X + "error_vs_n", dict(ns=[20], epsilons=[1.0], d=4, s=1, n_reps=1, lasso_max_n=20, rng=0))
add(X + "error_vs_sparsity", dict(sparsities=[1], epsilons=[1.0], n=20, d=4, n_reps=1, rng=0))
add(X + "error_vs_dimension", dict(dimensions=[4], epsilons=[1.0], n=20, s=1, n_reps=1, rng=0))
add(X + "ablations", dict(n=100, d=8, s=2, epsilon=1.0, n_reps=1, rng=0))
add(X + "classical_experiment", dict(ns=[10], epsilons=[1.0], d=2, noise_multipliers=[1.0], n_reps=1, rng=0))
add(X + "peeling_audit_experiment", dict(sparsities=[1], epsilon=1.0, delta=1e-3, n_trials=20, rng=0))
add(X + "tracing_experiment", dict(epsilon=1.0, n_reps=1, rng=0))
add(X + "peeling_accounting_sweep", dict(sparsities=[1], epsilon=1.0, delta=1e-3, n=10, d=3, n_reps=2, rng=0),
    requires=("dp_accounting",))

# --- chapter 6: Hermite features, DP-ERM, the improper learner, log-concave marginals -----------
HE = "dpteach.hermite."
add(HE + "multi_indices", dict(d=2, degree=2))
add(HE + "feature_dimension", dict(d=2, degree=2))
add(HE + "hermite_1d", dict(x=X1, degree=3), arrays={"x": None})
add(HE + "hermite_features", dict(X=X2, degree=2), arrays={"X": 2})
add(HE + "iter_hermite_features", dict(X=X2, degree=2, chunk_size=5), arrays={"X": 2})
add(HE + "hermite_feature_sum", dict(X=X2, degree=2, weights=Y, radius=5.0), arrays={"X": 2, "weights": 1})
add(HE + "clip_features", dict(F=np.ones((3, 4)), radius=1.0), arrays={"F": 2})
add(HE + "clipped_hermite_features", dict(X=X2, degree=2, radius=5.0), arrays={"X": 2})
add(HE + "clip_radius", dict(d=2, degree=2, c_alpha=0.5, n_draws=100, rng=0))
add(HE + "threshold_hermite_coefficients", dict(theta=0.3, degree=3))
add(HE + "halfspace_hermite_coefficients", dict(normal=np.array([0.6, 0.8]), threshold=0.3, degree=2),
    arrays={"normal": 1})
ER = "dpteach.dp_erm."
_F = np.ones((12, 3)) * 0.1
add(ER + "zcdp_rho", dict(epsilon=1.0, delta=1e-5))
add(ER + "zcdp_epsilon", dict(rho=0.1, delta=1e-5))
add(ER + "l1_subgradient_sensitivity", dict(lipschitz=1.0, n=10))
add(ER + "dp_erm_sigma", dict(lipschitz=1.0, n=10, epsilon=1.0, delta=1e-5, n_iterations=5))
add(ER + "noisy_average_subgradient", dict(features=_F, targets=Y, point=np.zeros(3), lipschitz=1.0, epsilon=1.0,
                                           delta=1e-5, rng=0),
    arrays={"features": 2, "targets": 1, "point": 1})
add(ER + "noisy_projected_subgradient_descent", dict(features=_F, targets=Y, lipschitz=1.0, radius=1.0, epsilon=1.0,
                                                     delta=1e-5, n_iterations=3, rng=0),
    arrays={"features": 2, "targets": 1})
add(ER + "l1_loss", dict(features=_F, targets=Y, coef=np.zeros(3)), arrays={"features": 2, "targets": 1, "coef": 1})
IM = "dpteach.improper."
add(IM + "threshold_grid", dict(n_thresholds=5))
add(IM + "threshold_error_counts", dict(scores=X1, y=Y8, thresholds=np.array([0.2, 0.5])),
    arrays={"scores": 1, "y": 1, "thresholds": 1})
add(IM + "select_hypothesis", dict(error_counts=np.array([3, 1, 2]), epsilon=1.0, rng=0),
    arrays={"error_counts": None})
add(IM + "theorem_parameters", dict(d=2, alpha=0.1, epsilon=1.0, delta=1e-5))
add(IM + "practical_parameters", dict(n=200, d=2, alpha=0.2, epsilon=1.0, delta=1e-5))
add(IM + "practical_degree", dict(alpha=0.1))
_XL = _rng.normal(size=(200, 2))
_YL = np.where(_XL[:, 0] > 0.3, 1.0, -1.0)
add(IM + "PrivateHermiteL1Learner", dict(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2, n_iterations=5,
                                         random_state=0),
    fit=dict(X=_XL, y=_YL), arrays={"X": 2, "y": 1})
LC = "dpteach.logconcave."
add(LC + "marginal_moments", dict(marginal="laplace", max_order=4))
add("dpteach.marginals.sample_marginal", dict(n=5, d=2, marginal="laplace", rng=0))
add(LC + "monomial_features", dict(X=X2, degree=2), arrays={"X": 2})
add(LC + "monomial_gram", dict(marginal="laplace", d=2, degree=2))
add(LC + "orthonormal_map", dict(gram=np.array([[2.0, 0.5], [0.5, 1.0]])), arrays={"gram": 2})
add(LC + "logconcave_features", dict(X=X2, marginal="laplace", degree=2), arrays={"X": 2})
add(LC + "logconcave_clip_radius", dict(marginal="laplace", d=2, degree=2, c_alpha=0.5, n_draws=100, rng=0))
add(LC + "PrivateLogConcaveL1Learner", dict(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2, n_iterations=5,
                                            random_state=0),
    fit=dict(X=_XL, y=_YL), arrays={"X": 2, "y": 1})
D = "dpteach.data.halfspaces."
add(D + "gaussian_halfspace_data", dict(n=5, d=2, rng=0))
add(D + "halfspace_disagreement", dict(normal_1=np.array([1.0, 0.0]), threshold_1=0.1,
                                       normal_2=np.array([0.6, 0.8]), threshold_2=0.0),
    arrays={"normal_1": 1, "normal_2": 1})
add(D + "rcn_halfspace_error", dict(normal=np.array([1.0, 0.0]), threshold=0.1, target_normal=np.array([0.6, 0.8]),
                                    target_threshold=0.0, noise_rate=0.1),
    arrays={"normal": 1, "target_normal": 1})
add(D + "structured_noise_halfspace_data", dict(n=5, d=2, rng=0))
add(D + "structured_noise_halfspace_error", dict(normal=np.array([1.0, 0.0]), threshold=0.3), arrays={"normal": 1})
add(D + "structured_noise_opt", dict())
add(D + "product_logconcave_sample", dict(n=5, d=2, rng=0))
add(D + "logconcave_halfspace_data", dict(n=5, d=2, rng=0))
B = "dpteach.bounds.improper."
add(B + "hermite_l1_sample_complexity", dict(d=2, degree=3, alpha=0.1, epsilon=1.0))
add(B + "hermite_l1_excess_error", dict(n=1000, d=2, degree=3, epsilon=1.0))
# The bound's sizes are documented reals (float > 0): theorem_parameters passes D as a float, +inf when it
# overflows, so the example spells them as floats (a fractional n₀ is a point of the formula, not an error).
add(B + "algorithm_6_7_error_terms", dict(block_size=100.0, n_features=10.0, clip_radius=6.0, radius=1.0, rho=0.01,
                                         n_iterations=50.0))
_INF_D = "+inf is documented: Theorem 6.13's D_p (and the radius it drives) overflows, and the sizes are then inf"
add(B + "algorithm_6_7_sizes", dict(n_features=10.0, clip_radius=6.0, radius=1.0, accuracy=0.05, rho=0.01),
    accepts={("n_features", "inf"): _INF_D, ("clip_radius", "inf"): _INF_D})
X = "dpteach.experiments.improper."
add(X + "approximation_errors", dict(degrees=[1, 3], n_grid=101))
add(X + "optimiser_bound_vs_epsilon", dict(epsilons=[1.0], n=400, d=2, alpha=0.3), arrays={"epsilons": (0, 1)})
add(X + "sample_halfspace_problem", dict(kind="rcn", n=5, d=2, rng=0))
add(X + "learner_test_error", dict(learner=__import__("dpteach.improper", fromlist=["x"]).PrivateHermiteL1Learner(
    0.3, 1.0, 1e-5, degree=2, n_iterations=5, random_state=0).fit(_XL, _YL), kind="rcn", d=2, rng=0, n_test=50))
add(X + "excess_error_vs_n", dict(ns=[200], epsilons=[1.0], d=2, alpha=0.3, n_reps=1, rng=0))
add(X + "error_grid", dict(epsilons=[1.0], alphas=[0.3], ds=[2], n=200, n_reps=1, rng=0))
add(X + "l1_vs_least_squares", dict(ns=[200], d=2, degree=2, n_reps=1, rng=0))
add(X + "error_vs_alpha", dict(alphas=[0.3], n=200, d=2, n_reps=1, rng=0), arrays={"alphas": (0, 1)})
add(X + "error_vs_d", dict(ds=[2], n=200, alpha=0.3, n_reps=1, rng=0), arrays={"ds": (0, 1)})

# --- chapter 7: the proper learner -------------------------------------------------------------
P = "dpteach.proper."
add(P + "degree_for_accuracy", dict(alpha=0.3))
add(P + "private_hermite_correlations", dict(X=_XL, y=_YL, degree=2, clip_radius=5.0, epsilon=1.0, delta=1e-5,
                                             rng=0), arrays={"X": 2, "y": 1}, accepts=INF_IS_REFERENCE)
add(P + "project_unit_ball", dict(values=np.array([0.6, 0.9])), arrays={"values": (1, 2, 3)})
add(P + "PrivateProperLearner", dict(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2, max_subspace_dim=1,
                                     cover_resolution=0.5, random_state=0),
    fit=dict(X=_XL, y=_YL), arrays={"X": 2, "y": 1}, accepts=INF_IS_REFERENCE)
SU = "dpteach.subspace."
add(SU + "gradient_second_moment", dict(coefficients=np.zeros(6), degree=2, d=2), arrays={"coefficients": 1})
add(SU + "noise_floor", dict(d=2, degree=2, n_correlation=100, sigma=0.1))
add(SU + "subspace_threshold", dict(alpha=0.3, d=2, degree=2, n_correlation=100, sigma=0.1))
add(SU + "relevant_subspace", dict(M=np.eye(2), threshold=0.5, max_dim=1), arrays={"M": 2})
HC = "dpteach.halfspace_cover."
add(HC + "sphere_net", dict(k=2, resolution=0.5))
add(HC + "covering_radius", dict(net=np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])),
    arrays={"net": 2})
add(HC + "halfspace_cover", dict(basis=np.eye(2)[:, :1], resolution=0.5), arrays={"basis": 2})
from dpteach import halfspace_cover as _halfspace_cover  # noqa: E402

_COVER = _halfspace_cover.halfspace_cover(np.eye(2)[:, :1], 0.5)
add(HC + "cover_error_counts", dict(X=_XL, y=_YL, cover=_COVER), arrays={"X": 2, "y": 1})
add(HC + "select_halfspace", dict(X=_XL, y=_YL, cover=_COVER, epsilon=1.0, rng=0), arrays={"X": 2, "y": 1},
    accepts=INF_IS_REFERENCE)
B = "dpteach.bounds.proper."
add(B + "proper_sample_complexity_shape", dict(alpha=0.1, epsilon=1.0, d=2, degree=3))
add(B + "proper_log_runtime_shape", dict(alpha=0.1))
add(B + "selection_slack", dict(n_candidates=10, n=100, epsilon=1.0, beta=0.05))
add(B + "net_size_shape", dict(k=2, resolution=0.5))
add(B + "cover_size_shape", dict(k=2, resolution=0.5))
X = "dpteach.experiments.proper."
add(X + "preset_normal", dict(d=2))
add(X + "correlation_means", dict(d=2, degrees=[2], n_values=[50], rng=0))
add(X + "excess_error_curves", dict(n_values=[200], epsilons=[1.0], n_reps=1, alpha=0.3, d=2, max_subspace_dim=1,
                                    rng=0), accepts=INF_IN_SWEEP)
from dpteach.experiments import proper as _proper_experiments  # noqa: E402

add(X + "spectrum_at", dict(precomputed=_proper_experiments.correlation_means(2, [2], [50], rng=0), degree=2,
                            epsilon=1.0, alpha=0.3), accepts=INF_IS_REFERENCE)
add(X + "cover_costs", dict(dims=[1], resolutions=[0.5], n=50, d=2, rng=0))
add(X + "discretization_excess", dict(resolutions=[0.5], d=2))
from matplotlib.figure import Figure as _Figure  # noqa: E402

add("dpteach.experiments.proper_figures.draw_covers",
    dict(fig=_Figure(), costs=_proper_experiments.cover_costs([1], [0.5], n=20, d=2, rng=0), rounding=[0.1],
         resolution=0.5))
add(X + "proper_vs_improper", dict(n_values=[200], n_reps=1, alpha=0.3, d=2, n_test=100, rng=0))
add(X + "transition_sample_size", dict(n_values=[10, 20], excess=np.array([[0.3, 0.3], [0.05, 0.05]]), level=0.1),
    arrays={"excess": 2})
add(X + "structured_noise_excess", dict(n_values=[200], epsilons=[1.0], n_reps=1, alpha=0.3, d=2, rng=0),
    accepts=INF_IN_SWEEP)

# --- chapter 8: DPSAS -------------------------------------------------------------------------
DS = "dpteach.dpsas_steps."
_W = np.array([0.6, 0.8])
add(DS + "ramp", dict(z=np.array([-1.0, 0.0, 2.0]), a=0.1, b=1.0), arrays={"z": (0, 1, 2)})
add(DS + "ramp_derivative", dict(z=np.array([-1.0, 0.0, 2.0]), a=0.1, b=1.0), arrays={"z": (0, 1, 2)})
add(DS + "ramp_loss", dict(w=_W, X=X2, y=Y, a=0.1, b=1.0), arrays={"w": 1, "X": 2, "y": 1})
add(DS + "ramp_loss_gradient", dict(w=_W, X=X2, y=Y, a=0.1, b=1.0), arrays={"w": 1, "X": 2, "y": 1})
add(DS + "private_threshold", dict(y=Y, epsilon=1.0, kappa=0.1, rng=0), arrays={"y": 1}, accepts=INF_IS_REFERENCE)
add(DS + "private_initial_direction", dict(X=X2, y=Y, clip_norm=2.0, epsilon=1.0, delta=1e-5, rng=0),
    arrays={"X": 2, "y": 1}, accepts=INF_IS_REFERENCE)
add(DS + "dpsas_noise_sigma", dict(block_size=10, clip_norm=1.0, epsilon=1.0, delta=1e-5), accepts=INF_IS_REFERENCE)
add(DS + "round_schedule", dict(n_rounds=3, step_size_scale=2.0, tau=0.1))
add(DS + "default_n_rounds", dict(eta=0.1))
add(DS + "step_size", dict(step_rule="reconstructed", step_size_scale=2.0, tau=0.1))
add(DS + "projected_gaussian_noise", dict(w=_W, sigma=0.1, rng=0), arrays={"w": 1})
add(DS + "dpsas_round", dict(w=_W, X_block=X2, y_block=Y, a=0.1, b=1.0, step=0.1, sigma=0.1, clip_norm=2.0, rng=0),
    arrays={"w": 1, "X_block": 2, "y_block": 1})
DP = "dpteach.dpsas."
_XD = _rng.normal(size=(400, 2))
_YD = np.where(_XD @ _W > 0.2, 1.0, -1.0)
add(DP + "dpsas", dict(X=_XD, y=_YD, epsilon=1.0, delta=1e-5, eta=0.2, n_rounds=3, rng=0),
    arrays={"X": 2, "y": 1}, accepts=INF_IS_REFERENCE)
add(DP + "dpsas_sample_reuse", dict(X=_XD, y=_YD, epsilon=1.0, delta=1e-5, eta=0.2, n_rounds=3, rng=0),
    arrays={"X": 2, "y": 1}, accepts=INF_IS_REFERENCE)
add(DP + "eta_grid", dict(alpha=0.2))
add(DP + "validation_size", dict(alpha=0.2, epsilon=1.0, beta=0.1, n_candidates=3), accepts=INF_IS_REFERENCE)
add(DP + "PrivateSemiAgnosticLearner", dict(alpha=0.3, epsilon=1.0, delta=1e-5, random_state=0),
    fit=dict(X=_XD, y=_YD), arrays={"X": 2, "y": 1}, accepts=INF_IS_REFERENCE)
B = "dpteach.bounds.dpsas."
add(B + "dpsas_sample_complexity_rate", dict(d=2, alpha=0.1, epsilon=1.0))
add(B + "semi_agnostic_error_bound", dict(opt=0.1, alpha=0.1))
add(B + "rcn_threshold_bias_error", dict(threshold=0.5, noise_rate=0.05, kappa=0.05))
X = "dpteach.experiments.dpsas."
add(X + "target_normal", dict(d=2))
add(X + "halfspace_error", dict(w=_W, tau=-0.2, normal=_W, threshold=0.2, noise_rate=0.05),
    arrays={"w": 1, "normal": 1})
add(X + "rcn_dataset", dict(n=5, d=2, threshold=0.2, noise_rate=0.05, rng=0))
add(X + "DatasetCache", dict(n=5, noise_rate=0.05, threshold=0.2))
add(X + "learner_errors", dict(n_seeds=1, rng=0, d=2, n=400, alpha=0.3))
add(X + "error_vs_opt", dict(noise_rates=[0.05], epsilons=[1.0], n_reps=1, d=2, n=400, alpha=0.3, rng=0),
    accepts=INF_IN_SWEEP)
add(X + "trajectories", dict(X=_XD, y=_YD, normal=_W, epsilons=[1.0], eta=0.2, n_rounds=3, rng=0),
    arrays={"X": 2, "y": 1, "normal": 1}, accepts=INF_IN_SWEEP)
add(X + "error_vs_n", dict(n_values=[400], epsilons=[1.0], n_reps=1, d=2, alpha=0.3, rng=0), accepts=INF_IN_SWEEP)
add(X + "samples_needed_vs_d", dict(d_values=[2], epsilon=1.0, target=0.4, n_grid=[400], n_reps=1, eta=0.2,
                                    n_rounds=3, rng=0), accepts=INF_IS_REFERENCE,
    exempt={("epsilon", "1e-300"): "documented: NaN when no n of the grid reaches the target error"})
add(X + "step_rule_ablation", dict(X=_XD, y=_YD, normal=_W, threshold=0.2, noise_rate=0.05, eta=0.2, n_rounds=3,
                                   rng=0), arrays={"X": 2, "y": 1, "normal": 1})
add(X + "fresh_vs_reuse", dict(n_values=[400], epsilon=1.0, n_reps=1, d=2, eta=0.2, n_rounds=3, rng=0),
    accepts=INF_IS_REFERENCE)
add(X + "step_rule_ablation_seeds", dict(thresholds=[0.2], epsilons=[1.0], n_seeds=1, d=2, n=400, eta=0.2, rng=0),
    accepts=INF_IN_SWEEP)
add(X + "structured_noise_error", dict(w=_W, tau=-0.2, threshold=0.2, noise_mass=0.05), arrays={"w": 1})
add(X + "structured_noise_runs", dict(epsilons=[1.0], n_reps=1, n=400, d=2, eta=0.2, rng=0), accepts=INF_IN_SWEEP)

# --- chapter 9: DP-SGD logistic regression and the Table 1 runners --------------------------------
LG = "dpteach.dp_logistic."
_COEF = np.array([0.3, -0.2])
add(LG + "dp_sgd_sigma", dict(clip_norm=1.0, n_epochs=2, epsilon=1.0, delta=1e-5, accountant="best"))
add(LG + "dp_sgd_epsilon", dict(sigma=5.0, clip_norm=1.0, n_epochs=2, delta=1e-5, accountant="best"))
add(LG + "noisy_clipped_gradient_sum", dict(X=X2, y=Y, coef=_COEF, intercept=0.1, clip_norm=1.0, sigma=1.0, rng=0,
                                            size=2), arrays={"X": 2, "y": 1, "coef": 1})
add(LG + "DPSGDLogisticRegression", dict(epsilon=1.0, delta=1e-5, n_epochs=2, random_state=0), fit=dict(X=X2, y=Y),
    arrays={"X": 2, "y": 1})
PS = "dpteach.dp_sgd_poisson."
# Poisson DP-SGD's accountant is dp-accounting's PLD (issue 24); tiny sizes keep each PLD under a second.
add(PS + "poisson_sgd_epsilon", dict(sigma=5.0, clip_norm=1.0, sampling_rate=0.5, n_steps=2, delta=1e-5),
    requires=("dp_accounting",))
add(PS + "poisson_sgd_sigma", dict(clip_norm=1.0, sampling_rate=0.5, n_steps=2, epsilon=1.0, delta=1e-5),
    requires=("dp_accounting",))
add(PS + "PoissonDPSGDLogisticRegression", dict(epsilon=1.0, delta=1e-5, n_epochs=1, batch_size=6, random_state=0),
    fit=dict(X=X2, y=Y), arrays={"X": 2, "y": 1}, requires=("dp_accounting",))
X = "dpteach.experiments.table1."
# Only the cheap learner (DP-SGD at n = 100, d = 2): every runner below takes a few milliseconds.
_T1_RESULT = {"error": {"dp_sgd": np.full((1, 1, 2, 1), 0.3), "logistic": np.full((1, 1, 2, 1), 0.2)},
              "learners": ["dp_sgd", "logistic"], "kinds": ["rcn"], "epsilons": [1.0], "ns": np.array([100, 200]),
              "opt": np.array([0.1])}
_T1_ROWS = [{"kind": "rcn", "epsilon": 1.0, "n": 100, "winner": "dp_sgd", "error": 0.3, "runner_up": "",
             "runner_up_error": math.nan, "opt": 0.1, "logistic": 0.2}]
add(X + "peers_available", dict(learners=("dp_sgd",)))
add(X + "make_problem", dict(kind="rcn", n=5, d=2, rng=0))
add(X + "fit_learner", dict(name="dp_sgd", X=X2, y=Y, epsilon=1.0, delta=1e-5, rng=0), arrays={"X": 2, "y": 1})
add(X + "run_comparison", dict(kinds=("rcn",), epsilons=[1.0], ns=[100], learners=("dp_sgd",), d=2, n_reps=1,
                               n_test=100, delta=1e-5, rng=0))
add("dpteach.experiments.table1_tables." + "mean_error", dict(errors=np.array([[0.1, 0.2], [0.3, np.nan]])), arrays={"errors": (1, 2, 3)},
    exempt={("errors", "nan"): "NaN marks a skipped run: documented as allowed and ignored"})
add("dpteach.experiments.table1_tables." + "n_needed", dict(ns=[100, 1000], errors=np.array([[0.3], [0.1]]), target=0.2),
    arrays={"ns": 1, "errors": (1, 2), "target": (0, 1)},
    exempt={("errors", "nan"): "NaN marks a skipped run: documented as allowed and ignored"})
add("dpteach.experiments.table1_accounting.dpsgd_accounting_sweep", dict(epochs=[1], n=20, d=2, epsilon=1.0,
                                                                      delta=1e-5, n_reps=1, rng=0))
add("dpteach.experiments.table1_rates." + "sample_complexity_shape", dict(name="improper", alpha=0.1, epsilon=1.0, d=2), arrays={"alpha": None})
add("dpteach.experiments.table1_rates." + "excess_error_shape", dict(name="improper", ns=[1000.0, 5000.0], epsilon=1.0, d=2), arrays={"ns": None},
    exempt={("ns", "fractional"): "a shape evaluated along a continuous n axis (the chapter draws it on a "
                                  "geometric grid): n = 1000.5 is a valid point of the curve, not a sample size"})
add("dpteach.experiments.table1_rates." + "fit_shape_constant", dict(measured=np.array([3.0, 30.0]), shape=np.array([1.0, 10.0])),
    arrays={"measured": None, "shape": None},
    exempt={("measured", "nan"): "NaN marks a missing measurement: documented as skipped (only finite pairs count)",
            ("shape", "nan"): "NaN marks a missing value: documented as skipped (only finite pairs count)"})
add("dpteach.experiments.table1_rates." + "complexity_shape", dict(name="dp_sgd", d=[2, 3], n=1000), arrays={"d": (0, 1)})
add(X + "runtime_vs_d", dict(ds=[2], n=100, epsilon=1.0, learners=("dp_sgd",), n_reps=1, rng=0))
add("dpteach.experiments.table1_tables." + "winner_table", dict(result=_T1_RESULT))
add("dpteach.experiments.table1_tables." + "format_winner_table", dict(rows=_T1_ROWS))
add(X + "unit_ball_rows", dict(X=X2, x_bound=2.0), arrays={"X": 2})
add("dpteach.experiments.table1_surrogate." + "rcn_logistic_threshold", dict(threshold=0.3, noise=0.1))
add("dpteach.experiments.table1_surrogate." + "massart_example", dict(corner=0.5, flip=0.45))
add(X + "surrogate_gap", dict(thresholds=[0.3], noises=[0.1], n=100, d=2, n_test=100, rng=0),
    arrays={"thresholds": (0, 1), "noises": (0, 1)})

# --- appendix A: the floating-point attack and the production libraries -------------------------
# Calls that run OpenDP or diffprivlib need both (requirements.txt); without them they are skipped,
# never failed. Sizes are tiny: every call here is a handful of library draws.
PRODUCTION_LIBRARIES = ("opendp", "diffprivlib")
_UNIFORMS = np.array([0.1, 0.5, 0.9])
_RELEASES = np.array([0.25, -1.5, 3.0])
FA = "dpteach.float_attack."
add(FA + "numpy_laplace_from_uniforms", dict(uniforms=_UNIFORMS, scale=2.0), arrays={"uniforms": None})
add(FA + "reachable_outputs", dict(outputs=_RELEASES, value=0.0, scale=2.0), arrays={"outputs": None})
add(FA + "support_attack", dict(outputs=_RELEASES, value0=0.0, value1=1.0, scale=2.0), arrays={"outputs": None})
add(FA + "lattice_neighbourhood", dict(output=0.25, value0=0.0, value1=1.0, scale=2.0, width=2))
add(FA + "max_guess_success", dict(epsilon=1.0, delta=0.0))
X = "dpteach.experiments.production."
add(X + "require_libraries", dict(), requires=PRODUCTION_LIBRARIES)
add(X + "library_versions", dict())
POINT_MASS = "documented: at ε = 1e300 the law is a point mass and its goodness-of-fit row is NaN (nothing to test)"
add(X + "laplace_count_rows", dict(count=3, epsilon=1.0, n_samples=20, rng=0), requires=PRODUCTION_LIBRARIES,
    exempt={("epsilon", "1e300"): POINT_MASS})
add(X + "gaussian_mean_rows", dict(data=X1, epsilon=1.0, delta=1e-5, n_samples=20, rng=0), arrays={"data": 1},
    requires=PRODUCTION_LIBRARIES)
add(X + "exponential_mechanism_rows", dict(scores=SCORES, sensitivity=1.0, epsilon=1.0, n_samples=20, rng=0),
    arrays={"scores": 1}, requires=PRODUCTION_LIBRARIES, exempt={("epsilon", "1e300"): POINT_MASS})
add(X + "randomized_response_rows", dict(epsilon=1.0, n_samples=20, rng=0), requires=PRODUCTION_LIBRARIES)
add(X + "privacy_claims", dict(epsilon=1.0, delta=1e-5, n_records=10, scores_sensitivity=1.0),
    requires=PRODUCTION_LIBRARIES)
X = "dpteach.experiments.production_laws."
add(X + "discrete_laplace_pmf", dict(k=np.array([-2, 0, 3]), scale=2.0), arrays={"k": None})
add(X + "permute_and_flip_probabilities", dict(scores=SCORES, sensitivity=1.0, epsilon=1.0), arrays={"scores": 1})
add(X + "ks_critical_value", dict(n_samples=10, false_alarm=1e-3))
X = "dpteach.experiments.production_attack."
# attack_samplers falls back to dpteach's sampler alone when the libraries are missing: no requirement.
add(X + "attack_samplers", dict())
add(X + "floating_point_attack", dict(epsilon=1.0, n_trials=20, value0=0.0, value1=1.0, confidence=0.9, rng=0))

# --- sweeps and free-shape values, marked in bulk -----------------------------------------------
# A runner's sweep (a list of n, d, ε, η, ...) is an array too: empty, NaN or 2-D sweeps must be named.
_SWEEPS = {"n_values", "ns", "ds", "d_values", "n_grid", "dimensions", "grid_sizes", "noise_rates", "epsilons",
           "degrees", "resolutions", "dims", "alphas", "sensitivities", "claimed_epsilons", "naive_dims",
           "fast_dims", "sparsities", "bucket_sizes", "noise_multipliers"}
for _key, _example in EXAMPLES.items():
    if _key.startswith("dpteach.experiments."):
        for _name in _SWEEPS & set(_example.kwargs):
            _example.arrays.setdefault(_name, (0, 1))
for _key, _name in [(M + "gaussian_mechanism", "value"), ("dpteach.experiments.generic.excess_errors", "indices")]:
    EXAMPLES[_key].arrays.setdefault(_name, None)
