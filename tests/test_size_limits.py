"""Generated size fuzz (issue 17 R2, issue 18): every size parameter of every public callable at 10**18 and −1.

A size whose cost is known before the work starts must be refused up front: 10**18 rows, draws,
repetitions or iterations would need exabytes or centuries, and a negative count would loop or
allocate nonsense. Each such call must raise a ``ValueError``/``TypeError`` whose message names the
parameter, within ``CALL_TIME_LIMIT`` seconds (a CPU-time watchdog, as in test_api_fuzz), in this
process: a ``MemoryError`` (or numpy's "array is too big" / "Maximum allowed size" ValueError, which
never names the caller's argument) counts as a failure.

The callables and their valid example calls are those of tests/test_api_fuzz.py (every ``__all__``
walked with pkgutil) and the valid calls their docstrings show (tests/doc_examples.py). A parameter of an example call is a *size* when

- its example value is an int (not a bool) and its name is in ``SIZE_NAMES`` (counts of rows,
  dimensions, draws, repetitions, iterations, degrees: n, d, k, m, s, degree, n_reps, n_trials,
  n_iterations, repeats, any ``n_<things>`` listed there ...); the bad values are 10**18 and −1;
- or its example value is a non-empty list of ints and its name is in ``SWEEP_NAMES`` (ns, ds,
  n_values, dimensions, degrees, ...); the bad values are [10**18] and [−1].

The huge value is a call of the routine for every size parameter: its refusal is the routine's own budget
(``check_memory``/``check_work`` on a product of sizes), not a rule of the parameter alone. −1 is a rule of the
parameter alone (a count is >= its minimum): its declared constraint must refuse it, checked directly and for every
size parameter at once (``test_a_negative_size_is_refused_by_its_declared_constraint``); a parameter without a
checking constraint is called instead (issue 32: the constraint table is not restated by hundreds of routine calls).

Names are listed, not guessed from a pattern, so that an int that is not a size (an index, a seed,
a secret, a vote count) is not fuzzed; a new size name must be added here.

Exemptions, with reasons, are in ``ANSWERS_AT_HUGE`` (closed-form functions that allocate nothing
and must keep answering at 10**18: the test checks that they do, quickly) and ``EXEMPT``.
"""

from __future__ import annotations

import copy
import re

import pytest

from dpteach import _validation
from test_api_fuzz import (CALLABLES, EXAMPLES, _is_estimator, _CPUTimeLimit, declared_constraints,
                           declared_fit_constraints, example_arguments, missing_requirement)

HUGE = 10 ** 18
CALL_TIME_LIMIT = 10  # seconds of CPU time; a refusal is immediate, so this only fires on work that was started

SIZE_NAMES = {
    # sample sizes and dimensions
    "n", "d", "k", "m", "s", "degree", "n_features", "n_public", "n_test", "n_records", "n_users",
    "n_voters", "sparsity", "max_order", "max_dim", "max_subspace_dim",
    # draws, trials, repetitions
    "n_reps", "n_trials", "n_draws", "n_runs", "n_samples", "n_scores", "n_secrets", "n_seeds",
    "n_datasets", "repeats", "size", "n_calls",
    # iterations, rounds, steps
    "n_iterations", "n_rounds", "n_steps", "n_epochs", "max_queries", "n_queries",
    # grids and candidate sets that are materialised
    "n_grid", "n_thresholds", "n_directions", "n_offsets", "n_candidates", "n_hypotheses", "n_alpha",
    "n_padding", "n_correlation", "block_size", "chunk_size",
}
SWEEP_NAMES = {"ns", "ds", "n_values", "d_values", "dimensions", "degrees", "dims", "fast_dims", "naive_dims",
               "grid_sizes", "sparsities", "bucket_sizes"}

# A sweep's entries may be refused one by one under the singular name ("d=10**18 would need ...").
SINGULAR = {"ns": "n", "n_values": "n", "ds": "d", "d_values": "d", "dimensions": "d", "dims": "d",
            "fast_dims": "d", "naive_dims": "d", "degrees": "degree", "grid_sizes": "grid_size",
            "sparsities": "s", "bucket_sizes": "bucket_size"}

# Closed-form functions: they evaluate a formula at the size and allocate nothing, so 10**18 must keep
# answering (a bound at n = 10**18 is a legitimate question). The test checks they answer within the
# time limit, or refuse by name (e.g. a dimension beyond what the formula is defined for).
ANSWERS_AT_HUGE_MODULES = {
    "dpteach.bounds.": "closed-form bounds and rates: a formula evaluated at the size",
}
ANSWERS_AT_HUGE = {
    # key: (parameters, reason)
    "dpteach.attack_targets.accuracy_noise_sd": ({"n"}, "closed form σ(n, d)"),
    "dpteach.composition.advanced_composition": ({"k"}, "closed-form composition bound in k"),
    "dpteach.composition.advanced_composition_epsilon_per_step": ({"k"}, "closed form, solved in k"),
    "dpteach.dp_erm.dp_erm_sigma": ({"n", "n_iterations"}, "closed-form noise scale"),
    "dpteach.dp_erm.l1_subgradient_sensitivity": ({"n"}, "closed form 2/n"),
    "dpteach.dpsas.validation_size": ({"n_candidates"}, "closed form in log(n_candidates)"),
    "dpteach.dpsas_steps.dpsas_noise_sigma": ({"block_size"}, "closed-form noise scale"),
    "dpteach.regression.dp_lasso_sensitivity": ({"block_size"}, "closed form"),
    "dpteach.regression.default_truncation": ({"n_samples"}, "closed form in log n"),
    "dpteach.regression.noisy_ols_noise_std": ({"n_samples", "n_features"}, "closed-form noise scale"),
    "dpteach.regression.noisy_ols_sensitivity": ({"n_samples", "n_features"}, "closed form 8Λc_x√d·T/n"),
    "dpteach.regression.dp_gradient_descent_sigma": ({"n_samples", "n_features", "n_iterations"},
                                                     "closed-form noise scale (analytic Gaussian σ at Δ₂√K)"),
    "dpteach.experiments.improper.optimiser_bound_vs_epsilon": ({"n"}, "closed-form bound terms at the learner's "
                                                                       "sizes, roots found in O(log n) steps"),
    "dpteach.experiments.fingerprinting.sparse_threshold_fpr": ({"s"}, "the Rademacher sum is one binomial draw, "
                                                                       "O(1) in s"),
    "dpteach.experiments.fingerprinting.clipping_radius": ({"d"}, "closed form √d-scaled radius"),
    "dpteach.experiments.fingerprinting.dp_delta": ({"n"}, "closed form n^-1.1"),
    "dpteach.experiments.regression.default_delta": ({"n"}, "closed form n^-1.1"),
    "dpteach.experiments.production_laws.ks_critical_value": ({"n_samples"}, "closed-form KS critical value"),
    "dpteach.experiments.table1_rates.complexity_shape": ({"n", "d"}, "closed-form rate shapes"),
    "dpteach.experiments.table1_rates.excess_error_shape": ({"n", "d"}, "closed-form rate shapes"),
    "dpteach.experiments.table1_rates.sample_complexity_shape": ({"n", "d"}, "closed-form rate shapes"),
    "dpteach.fingerprinting.printed_threshold_classical": ({"d"}, "closed-form threshold"),
    "dpteach.fingerprinting.printed_threshold_sparse": ({"s"}, "closed-form threshold"),
    "dpteach.group_sizes.tolerance_for_group": ({"m"}, "closed-form tolerance"),
    "dpteach.hermite.clip_radius": ({"d", "degree", "n_draws"},
                                    "closed form under the example's rule (n_draws is unused by it)"),
    "dpteach.hermite.feature_dimension": ({"d", "degree"}, "an exact binomial coefficient (Python int)"),
    "dpteach.improper.practical_parameters": ({"n", "d"}, "closed-form parameter choices"),
    "dpteach.local_learners.smallest_feasible_alpha": ({"n_users"}, "closed form, solved in α"),
    "dpteach.peeling.peeling_noise_scale": ({"sparsity"}, "closed-form noise scale"),
    "dpteach.subspace.noise_floor": ({"d", "degree", "n_correlation"}, "closed form"),
    "dpteach.subspace.subspace_threshold": ({"d", "degree", "n_correlation"}, "closed form"),
    # Counts drawn from their exact law: one multinomial/binomial draw costs O(1) in the count.
    "dpteach.data.basics.vote_counts": ({"n_voters"}, "one multinomial draw of the vote counts"),
    "dpteach.local.sample_group_averages": ({"m"}, "one binomial draw per group average, O(1) in m"),
    "dpteach.experiments.generic.padding_group_sizes": ({"n_padding"}, "one multinomial draw of the padding"),
    "dpteach.experiments.local.mean_estimation_experiment": ({"ns"}, "exact in law: O(1) per repetition in n"),
    "dpteach.experiments.local.threshold_experiment": ({"ns"}, "FastLocalSQOracle draws each answer from its "
                                                               "exact law: O(1) per query in n"),
    # Caps, not costs: the call uses min(cap, what the data allows).
    "dpteach.local.FastLocalSQOracle": ({"max_queries"}, "a cap on queries; nothing is allocated by it"),
    "dpteach.local.LocalSimulatedSQOracle": ({"max_queries"}, "a cap on queries; nothing is allocated by it"),
    "dpteach.local.ReusingLocalSQOracle": ({"max_queries"}, "a cap on queries; nothing is allocated by it"),
    "dpteach.proper.PrivateProperLearner": ({"max_subspace_dim"}, "a cap: min(max_subspace_dim, d) is used"),
    "dpteach.hermite.iter_hermite_features": ({"chunk_size"}, "a cap: chunks of min(chunk_size, n) rows, whose "
                                                              "(rows × D) size is checked"),
    "dpteach.experiments.proper.excess_error_curves": ({"max_subspace_dim"}, "a cap: min(max_subspace_dim, d)"),
    "dpteach.subspace.relevant_subspace": ({"max_dim"}, "a cap: min(max_dim, d) is used"),
    "dpteach.experiments.generic.parity_timings": ({"naive_dims"}, "only selects which of fast_dims also run "
                                                                   "the naive way; other entries are ignored"),
}

# (key, parameter, label) → reason for a case not fuzzed at all.
EXEMPT = {}
for _key in ("dpteach.local.LocalRun", "dpteach.audit.AuditResult"):
    for _name in ("n_users", "n_queries", "max_queries", "n_trials"):
        for _label in ("10**18", "-1"):
            EXEMPT[(_key, _name, _label)] = ("a result record filled in by the library after the run; "
                                             "it stores the counts it is given and allocates nothing")

BAD_SCALARS = [(HUGE, "10**18"), (-1, "-1")]
BAD_SWEEPS = [([HUGE], "[10**18]"), ([-1], "[-1]")]
HUGE_LABELS = ("10**18", "[10**18]")

# numpy's own refusals never name the caller's parameter; seeing one means the size was not checked.
NUMPY_SIZE_ERRORS = ("array is too big", "Maximum allowed", "Unable to allocate", "maximum supported dimension")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def size_parameters(example):
    """(part, name, bad values) for every size parameter of one example call (see the module docstring)."""
    found = []
    for part, name, value in example_arguments(example):
        if name in SIZE_NAMES and _is_int(value):
            found.append((part, name, BAD_SCALARS))
        elif (name in SWEEP_NAMES and isinstance(value, (list, tuple)) and value
              and all(_is_int(v) for v in value)):
            found.append((part, name, BAD_SWEEPS))
    return found


def answers_at_huge(key, name):
    """The reason a closed-form ``key`` must answer at ``name`` = 10**18, or None."""
    if key in ANSWERS_AT_HUGE and name in ANSWERS_AT_HUGE[key][0]:
        return ANSWERS_AT_HUGE[key][1]
    return next((why for prefix, why in ANSWERS_AT_HUGE_MODULES.items() if key.startswith(prefix)), None)


def size_calls(labels=HUGE_LABELS):
    """pytest params (key, part, name, value, label) of every size parameter at the values labelled ``labels``."""
    params = []
    for key in sorted(k for k in CALLABLES if k in EXAMPLES):
        example = EXAMPLES[key]
        for part, name, bads in size_parameters(example):
            for bad, label in bads:
                if label not in labels:
                    continue
                marks = []
                missing = missing_requirement(example)
                reason = EXEMPT.get((key, name, label))
                if missing:
                    marks.append(pytest.mark.skip(reason=missing))
                elif reason:
                    marks.append(pytest.mark.skip(reason=f"exempt: {reason}"))
                params.append(pytest.param(key, part, name, bad, label, marks=marks,
                                           id=f"{key}-{part}-{name}={label}"))
    return params


def _call(key, part, name, bad):
    """Run the example of ``key`` with ``name`` replaced by ``bad`` (estimators: construct, then fit)."""
    example = EXAMPLES[key]
    call_kwargs = copy.deepcopy(example.kwargs)
    fit_kwargs = copy.deepcopy(example.fit)
    (call_kwargs if part == "call" else fit_kwargs)[name] = bad
    obj = CALLABLES[key]
    with _CPUTimeLimit(CALL_TIME_LIMIT):
        result = obj(*example.args, **call_kwargs)
        if _is_estimator(obj):
            result.fit(**fit_kwargs)
    return result


def _names_the_parameter(message, name):
    names = {name, SINGULAR.get(name, name)}
    return any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", message) for n in names)


def test_size_parameters_are_found():
    # A floor against a broken derivation (a renamed field, a wrong type test) silently fuzzing nothing.
    calls = size_calls()
    assert len(calls) > 300 and len(size_calls(("-1", "[-1]"))) == len(calls)
    keys = {p.values[0] for p in calls}
    for must in ("dpteach.hypotheses.halfspaces", "dpteach.dp_erm.noisy_projected_subgradient_descent",
                 "dpteach.experiments.generic.time_error_counts", "dpteach.data.basics.bernoulli_bits"):
        assert must in keys, must


def size_failure(key, part, name, bad, label):
    """None if ``key`` refuses ``name`` = ``bad`` by name (or, a closed form at 10**18, answers); else what it did."""
    huge = label in HUGE_LABELS
    reason = answers_at_huge(key, name) if huge else None
    try:
        _call(key, part, name, bad)
    except MemoryError as err:
        return f"{name}={label} reached an allocation (MemoryError) instead of a named refusal: {err}"
    except (ValueError, TypeError) as err:
        message = str(err)
        if any(s in message for s in NUMPY_SIZE_ERRORS):
            return f"{name}={label}: numpy's own size error, not a refusal naming {name!r}: {message}"
        return None if _names_the_parameter(message, name) else f"the message does not name {name!r}: {message}"
    # Returned normally: only a closed-form function may, and only at the huge value.
    return None if reason is not None else f"{name}={label} was accepted: {key} must refuse it by name"


@pytest.mark.filterwarnings("error::RuntimeWarning")  # a closed form answers at 10**18 without an overflow warning
@pytest.mark.parametrize("key, part, name, bad, label", size_calls())
def test_huge_size_is_refused_by_name(key, part, name, bad, label):
    failure = size_failure(key, part, name, bad, label)
    assert failure is None, failure


def test_a_negative_size_is_refused_by_its_declared_constraint():
    # −1 for every size parameter, at the rule that owns it: the declared constraint, called directly (cheap, so
    # none is left out). A parameter whose constraint checks nothing (Unchecked, or passed on in **kwargs) is
    # refused by the routine: it is called.
    failures, direct = [], 0
    for param in size_calls(("-1", "[-1]")):
        if param.marks:
            continue  # exempt (a record the library fills in) or an optional library missing
        key, part, name, bad, label = param.values
        constraint = (declared_constraints(key) if part == "call" else declared_fit_constraints(key)).get(name)
        if constraint is None or type(constraint).__name__ == "Unchecked":
            failure = size_failure(key, part, name, bad, label)
        else:
            direct += 1
            try:
                constraint.validate(bad, name)
                failure = f"{name}={label} accepted by its constraint {constraint!r}"
            except (ValueError, TypeError) as err:
                failure = None if _names_the_parameter(str(err), name) else f"{name!r} not named: {err}"
        if failure:
            failures.append(f"{key}({part}: {name}={label}): {failure}")
    assert not failures, "\n".join(failures)
    assert direct > 300  # a floor: the constraints were found (a renamed attribute would call nothing directly)


def test_refusal_names_value_limit_and_largest_allowed_value():
    with pytest.raises(ValueError) as info:
        _validation.check_memory(("n", HUGE), ("d", 3))
    message = str(info.value)
    limit = _validation.MAX_MEMORY_BYTES // (8 * 3)
    # The parameter and its value, the limit's home, and the largest n that fits with d = 3.
    assert f"n={HUGE}" in message and "d=3" in message and "MAX_MEMORY_BYTES" in message
    assert f"use n <= {limit}" in message
    _validation.check_memory(("n", limit), ("d", 3))  # exactly at the limit: accepted
    with pytest.raises(ValueError, match="n_reps"):
        _validation.check_work(("n_reps", _validation.MAX_WORK + 1))
    _validation.check_work(("n_reps", _validation.MAX_WORK))


def test_product_is_exact_for_huge_factors():
    # int64 arithmetic would wrap 10**18 × 10**18 to a small (or negative) number and let it through.
    with pytest.raises(ValueError, match="MAX_WORK"):
        _validation.check_work(("n", HUGE), ("d", HUGE))


# --- products: each size fits alone, together they do not -------------------------------------------
# A per-parameter cap would let these through and then allocate tens of GiB or loop for hours; the
# budget is on the product, so each must be refused up front, naming the factors.

def _refused_quickly(call, *names):
    with pytest.raises(ValueError) as info, _CPUTimeLimit(CALL_TIME_LIMIT):
        call()
    for name in names:
        assert _names_the_parameter(str(info.value), name), f"{name!r} not named: {info.value}"
    assert "MAX_MEMORY_BYTES" in str(info.value) or "MAX_WORK" in str(info.value)


def test_data_generator_refuses_a_matrix_too_big_for_memory():
    from dpteach.data import gaussian_halfspace_data
    # 10^6 × 10^4 float64 = 74.5 GiB > 4 GiB, though n = 10^6 and d = 10^4 are each ordinary.
    _refused_quickly(lambda: gaussian_halfspace_data(10 ** 6, 10 ** 4, rng=0), "n", "d")
    X, y, _ = gaussian_halfspace_data(1000, 10, rng=0)  # an ordinary size still works
    assert X.shape == (1000, 10)


def test_iterative_algorithm_refuses_iterations_times_data_beyond_the_work_budget():
    import numpy as np
    from dpteach.dp_erm import noisy_projected_subgradient_descent
    F = np.full((1000, 10), 0.1)
    y = np.ones(1000)
    # 10^9 iterations × 10^3 rows × 10 features = 10^13 steps > MAX_WORK = 10^11.
    _refused_quickly(lambda: noisy_projected_subgradient_descent(F, y, 1.0, 1.0, 1.0, 1e-5, 10 ** 9, rng=0),
                     "n_iterations")


def test_runner_refuses_repetitions_times_sample_size_beyond_the_work_budget():
    from dpteach.experiments import regression
    # 10^7 repetitions pass the lone cap on n_reps (10^11 steps, 4 GiB of results: 5.4·10^8), but with
    # n = 10^4 points in d = 100 for one ε they are 10^13 steps.
    _refused_quickly(lambda: regression.error_vs_n([10_000], [1.0], d=100, s=2, n_reps=10 ** 7, rng=0),
                     "n_reps", "ns", "d")


def test_error_count_table_refuses_a_table_too_big_for_memory():
    from functools import partial

    from dpteach.data import parity_data
    from dpteach.experiments.generic import error_count_table
    from dpteach.hypotheses import parities
    # 2^25 parities × 100 datasets × 8 bytes = 25 GiB of error counts.
    _refused_quickly(lambda: error_count_table(parities(25), partial(parity_data, d=25, secret=3), [50], 100, rng=0),
                     "n_datasets")
