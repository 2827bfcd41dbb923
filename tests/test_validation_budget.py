"""Validation runs once, at the outermost call, and hot loops call unvalidated cores: a budget per fit (issue 32).

One ``fit`` of every learner (the ten of tests/test_sklearn_compat.py, on settings whose loops have realistic
lengths: DP-SGD with 300 steps, the Poisson learner with 200, LocalThresholdLearner's 42-step bisection, the
Hermite and log-concave learners' blocks, DPSAS on 20 000 examples) may make at most ``BUDGET`` calls into the
validation layer, loops included. The count is exact: a profile hook (``sys.setprofile``) sees every Python call,
and a call counts when code outside the layer calls into it. The layer is ``dpteach/_validation.py``,
``dpteach/_constraints.py``, the ``validate``/``nested`` methods of every ``Constraint`` subclass (wherever it is
defined) and the checker of every ``Check(...)``. So a decorated routine's entry, a ``fit_context``, a
``check_fields``, a ``Constraint.validate`` called by ``privacy.py`` and a checker called from a body count one
each; the constraints a decorated wrapper then checks run inside that entry (their number is fixed by the
routine's declaration, not by a loop) and are reported, not budgeted. Before issue 32 one fit made up to 404
(LocalThresholdLearner: every bisection step entered query_plan, users_needed, group_size and onebit_constant).

The broken variants put a hot loop back on the decorated routines (the bisection through ``query_plan`` and
``users_needed``, the DP-SGD step through ``noisy_clipped_gradient_sum``): the count must then exceed the budget.
"""

from __future__ import annotations

import collections
import gc
import inspect
import math
import sys

import numpy as np
import pytest

import dpteach._validation as V
from dpteach import _constraints as C
from dpteach._constraints import (Delta, Epsilon, Integral, FiniteInterval, Options, OrNone, Real, constraints_of,
                                  generate_invalid_values, validate_params)
from dpteach._array_constraints import Array

from test_sklearn_compat import KEYS, LEARNERS, SETTINGS, _TH, _cube, _halfspace, _make, _needs, _sparse, _unit_interval

BUDGET = 100  # issue 32: "calls into the validation layer per fit <= 100 for every learner, loops included"

# Settings with realistic loop lengths (the fast settings of test_sklearn_compat.py run a handful of steps).
LONG = {
    "dpteach.generic.GenericPrivateLearner": (dict(hypotheses=_TH, epsilon=1.0, random_state=0), _unit_interval(2000)),
    "dpteach.local_learners.LocalThresholdLearner": (dict(epsilon=1.0, rule="clt", random_state=0),
                                                     _unit_interval(6000)),
    "dpteach.local_learners.LocalHalfspaceLearner": (dict(epsilon=1.0, random_state=0), _cube(2000)),  # 20 rounds
    "dpteach.regression.DPLasso": (dict(epsilon=1.0, delta=1e-5, sparsity=2, random_state=0), _sparse(2000)),
    "dpteach.improper.PrivateHermiteL1Learner": (dict(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2, random_state=0),
                                                 _halfspace(2000)),
    "dpteach.logconcave.PrivateLogConcaveL1Learner": (dict(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2,
                                                           random_state=0), _halfspace(2000)),
    "dpteach.proper.PrivateProperLearner": (dict(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2, random_state=0),
                                            _halfspace(2000)),
    "dpteach.dpsas.PrivateSemiAgnosticLearner": (dict(alpha=0.05, epsilon=1.0, delta=1e-5, random_state=0),
                                                 _halfspace(20000)),
    "dpteach.dp_logistic.DPSGDLogisticRegression": (dict(epsilon=1.0, delta=1e-5, n_epochs=3, batch_size=20,
                                                         random_state=0), _halfspace(2000)),  # 300 steps
    "dpteach.dp_sgd_poisson.PoissonDPSGDLogisticRegression": (dict(epsilon=1.0, delta=1e-5, n_epochs=2, batch_size=20,
                                                                   random_state=0), _halfspace(2000)),  # 200 steps
}
LAYER_FILES = {V.__file__, C.__file__}


def _layer_codes():
    """The code objects of the layer outside its two files: Constraint methods and Check checkers."""
    methods, todo = set(), [C.Constraint]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        for name in ("validate", "nested", "convert_nested"):
            func = getattr(vars(cls).get(name), "__func__", vars(cls).get(name))
            if hasattr(func, "__code__"):
                methods.add(func.__code__)
    checkers = {obj.func.__code__ for obj in gc.get_objects()
                if isinstance(obj, C.Check) and hasattr(obj.func, "__code__")}
    return methods, methods | checkers


def calls_into_the_layer(run):
    """Run ``run()`` and count every call into the validation layer: ({entry: count}, {constraint checked: count})."""
    checks, layer = _layer_codes()
    entries, checked = collections.Counter(), collections.Counter()

    def inside(code):
        return code is not None and (code.co_filename in LAYER_FILES or code in layer)

    def hook(frame, event, arg):
        if event != "call":
            return
        code, caller = frame.f_code, frame.f_back.f_code if frame.f_back is not None else None
        if inside(code) and not inside(caller):
            entries[f"{caller.co_qualname if caller else '?'} -> {code.co_qualname}"] += 1
        elif code in checks and caller not in checks:
            checked[code.co_qualname] += 1

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        run()
    finally:
        sys.setprofile(previous)
    return entries, checked


def _fit_count(key):
    _needs(key)
    kwargs, (X, y) = LONG[key]
    learner = LEARNERS[key](**kwargs)
    entries, _ = calls_into_the_layer(lambda: learner.fit(X, y))
    return learner, entries


def test_every_learner_has_a_long_setting():
    assert set(LONG) == set(KEYS) == set(SETTINGS)


@pytest.mark.parametrize("key", KEYS)
def test_one_fit_stays_within_the_validation_budget(key):
    learner, entries = _fit_count(key)
    total = sum(entries.values())
    assert 0 < total <= BUDGET, (f"{key}.fit made {total} calls into the validation layer (budget {BUDGET}); "
                                 f"most from: {entries.most_common(5)}")
    if hasattr(learner, "n_steps_"):  # the setting really runs a long loop
        assert learner.n_steps_ >= 200


def test_broken_variant_a_bisection_through_the_decorated_routines_exceeds_the_budget(monkeypatch):
    # LocalThresholdLearner's bisection as it was: each of its 42 steps enters query_plan and users_needed (and,
    # through them, group_size per distinct tolerance), instead of their bodies
    from dpteach import local, local_learners
    monkeypatch.setattr(local_learners, "query_plan_prechecked", local.query_plan)
    monkeypatch.setattr(local_learners, "users_needed_prechecked", local.users_needed)
    learner, entries = _fit_count("dpteach.local_learners.LocalThresholdLearner")
    assert sum(entries.values()) > BUDGET


def test_broken_variant_a_dp_sgd_step_through_the_decorated_routine_exceeds_the_budget(monkeypatch):
    # each of the 300 steps enters the decorated, audited step instead of its body
    from dpteach import dp_logistic

    body = dp_logistic.noisy_clipped_gradient_sum_prechecked

    def step(*args, **kwargs):
        if kwargs:  # the decorated routine calling its body (n_samples=...)
            return body(*args, **kwargs)
        X, y, coef, intercept, clip_norm, sigma, rng = args
        return dp_logistic.noisy_clipped_gradient_sum(X, y, coef, intercept, clip_norm, sigma, rng=rng, size=1), 0

    monkeypatch.setattr(dp_logistic, "noisy_clipped_gradient_sum_prechecked", step)
    learner, entries = _fit_count("dpteach.dp_logistic.DPSGDLogisticRegression")
    assert sum(entries.values()) > 300


# --- the decorator's rules ------------------------------------------------------------------------

@validate_params({"epsilon": Epsilon(), "k": FiniteInterval(Integral, 1, None, closed="left"), "rng": "random_state"})
def _outer(epsilon, k=1, rng=None, inner_epsilon=None):
    return epsilon, k, rng, (None if inner_epsilon is None else _inner(inner_epsilon))


@validate_params({"epsilon": Epsilon()})
def _inner(epsilon):
    return epsilon


@validate_params({"data": Array(ndim=1)})
def _inner_array(data):
    return data


@validate_params({"data": Array(ndim=1)})
def _outer_array(data, inner_data):
    return _inner_array(inner_data)


@validate_params({"epsilon": Epsilon()}, skip_nested=False)
def _runs_user_code(epsilon, user):
    return user()


def test_values_are_converted_before_the_body_runs():
    epsilon, k, rng, _ = _outer(np.float32(0.5), np.int64(3), rng=4)
    assert type(epsilon) is float and type(k) is int and isinstance(rng, np.random.Generator)
    assert rng.random() == np.random.default_rng(4).random()


def test_nested_calls_skip_array_scans_but_check_scalar_preconditions():
    with pytest.raises(ValueError, match=r"epsilon must be finite and > 0 \(valid range: 0 < epsilon < inf\), got -1"):
        _inner(-1)
    # Nested, a scalar privacy precondition is still checked (a derived ε or δ nothing upstream checked), with the
    # message of the top-level call; a nested array is not scanned (its caller vouches for it), only converted.
    for bad in (-1, 0.0, 1e-310, math.nan, math.inf, "1", True):
        with pytest.raises((ValueError, TypeError), match=r"^epsilon"):
            _outer(1.0, inner_epsilon=bad)
    assert _outer(1.0, inner_epsilon=np.float32(0.5))[3] == 0.5
    assert type(_outer(1.0, inner_epsilon=2)[3]) is float
    with pytest.raises(ValueError, match="data must contain only finite values"):
        _outer_array([math.nan], [1.0])
    assert np.isnan(_outer_array([1.0], [math.nan])).all()


def test_nested_mechanisms_keep_their_preconditions():
    # architecture review F2: each of these passed (or crashed unnamed) when called from inside a decorated routine
    from dpteach import mechanisms

    @validate_params({})
    def nested(call):
        return call()

    cases = [(lambda: mechanisms.gaussian_mechanism(1.0, 1.0, epsilon=1.0, delta=0.0, rng=0), r"^delta must satisfy"),
             (lambda: mechanisms.laplace_mechanism(math.nan, 1.0, 1.0, rng=0), r"^value must contain only finite"),
             (lambda: mechanisms.laplace_mechanism(np.array([0.0, math.inf]), 1.0, 1.0, rng=0),
              r"^value must contain only finite"),
             (lambda: mechanisms.gaussian_sigma(0, 1.0, 1e-5), r"^sensitivity must be finite and > 0"),
             (lambda: mechanisms.gaussian_sigma(1.0, 1.0, 1e-5, method="bogus"), r"^method must be one of"),
             (lambda: mechanisms.laplace_mechanism(np.zeros(3), 1.0, 1e-310, rng=0), r"^epsilon = 1e-310 is subnormal")]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            nested(call)


def test_a_routine_that_runs_user_code_leaves_nested_checks_on():
    with pytest.raises(ValueError, match="epsilon"):
        _runs_user_code(1.0, lambda: _inner(-1))
    assert _runs_user_code(1.0, lambda: _inner(2)) == 2.0


def test_constraints_are_introspectable_and_give_bad_values():
    from dpteach.group_sizes import group_size
    declared = constraints_of(group_size)
    assert list(declared) == ["epsilon", "tau", "beta", "rule", "randomizer", "var_phi"]
    for name, constraint in declared.items():
        for bad, label in generate_invalid_values(constraint):
            kwargs = dict(epsilon=1.0, tau=0.1, beta=0.05)
            kwargs[name] = bad
            with pytest.raises((ValueError, TypeError), match=rf"(?<![\w.]){name}(?!\w)"):
                group_size(**kwargs)


@pytest.mark.parametrize("constraint, good", [
    (Epsilon(), 1.0), (Epsilon(allow_inf=True), math.inf), (Delta(), 0.0), (Delta(allow_zero=False), 1e-5),
    (FiniteInterval(Real, 0, None), 2.0), (FiniteInterval(Real, 0, 1, closed="both"), 1.0), (FiniteInterval(Real, -1, 1), 0.0),
    (FiniteInterval(Integral, 1, 5, closed="both"), 5), (Options(("a", "b")), "b"), (OrNone(Epsilon()), None),
    (Array(ndim=1), [1.0, 2.0]),
])
def test_every_constraint_accepts_a_good_value_and_refuses_its_bad_ones(constraint, good):
    constraint.validate(good, "p")
    for bad, label in generate_invalid_values(constraint):
        with pytest.raises((ValueError, TypeError), match=r"(?<![\w.])p(?!\w)"):
            constraint.validate(bad, "p")


def test_messages_are_the_validation_helpers_own():
    for constraint, helper in [(Epsilon(), lambda v: V.check_epsilon(v, "epsilon")),
                               (FiniteInterval(Real, 0, 1), lambda v: V.check_probability(v, "epsilon")),
                               (FiniteInterval(Integral, 1, None, closed="left"),
                                lambda v: V.check_int(v, "epsilon", minimum=1))]:
        for bad, _ in generate_invalid_values(constraint):
            with pytest.raises((ValueError, TypeError)) as ours:
                constraint.validate(bad, "epsilon")
            with pytest.raises((ValueError, TypeError)) as theirs:
                helper(bad)
            assert str(ours.value) == str(theirs.value)


def test_a_nested_random_state_is_still_a_generator():
    # nested, the seed is not checked but still becomes a Generator, seeded as as_rng seeds it
    @validate_params({"rng": "random_state"})
    def draw(rng=0):
        return rng.random()

    @validate_params({})
    def outer():
        return draw(), draw(rng=7), draw(rng=np.random.default_rng(7))

    assert outer() == (np.random.default_rng(0).random(), np.random.default_rng(7).random(),
                       np.random.default_rng(7).random())


@pytest.mark.parametrize("name, bad", [("rule", "bogus"), ("randomizer", "gaussian")])
def test_a_fit_checks_what_its_skipped_routines_no_longer_check(name, bad):
    # LocalThresholdLearner.fit runs as the outermost call: a bad rule must still be refused, by name
    key = "dpteach.local_learners.LocalThresholdLearner"
    learner = _make(key).set_params(**{name: bad})
    with pytest.raises(ValueError, match=rf"{name} must be one of"):
        learner.fit(*SETTINGS[key].data)


def test_the_audit_runs_a_students_mechanism_with_its_checks_on():
    # dpteach.audit declares skip_nested=False: a student's mechanism that calls a dpteach routine with a bad
    # argument is told so by name, as if it had been called from the top (skipped, numpy would say "scale < 0")
    from dpteach import audit, mechanisms
    assert audit.audit.__dpteach_skip_nested__ is False
    mechanism = audit.repeat(lambda data, rng: mechanisms.laplace_mechanism(float(sum(data)), 1.0, -1.0, rng=rng))
    with pytest.raises(ValueError, match=r"epsilon must be finite and > 0"):
        audit.audit(mechanism, [0, 1], [0, 0], audit.threshold_events([0.5]), 10, rng=0)


def test_a_nested_body_reads_the_types_it_would_read_at_the_top():
    # skipped checks still convert (float, int, float ndarray): an int ε or a list passed nested is read as at the top
    @validate_params({"epsilon": Epsilon(), "k": FiniteInterval(Integral, 1, None, closed="left"), "x": Array(),
                      "c": OrNone(FiniteInterval(Real, 0, None))})
    def types(epsilon, k, x, c=None):
        return type(epsilon), type(k), type(x), x.dtype, c

    @validate_params({})
    def outer():
        return types(1, np.int64(2), [1, 2], c=3)

    assert outer() == types(1, np.int64(2), [1, 2], c=3) == (float, int, np.ndarray, np.dtype(float), 3.0)


# Parameters a decorated routine does not declare, each checked in its body before use (a routine that passed
# one on unchecked to a nested routine would leave it unchecked, since nested routines skip their checks).
CHECKED_IN_BODY = {
    "dpteach.audit.epsilon_lower_bound": {"dataset", "neighbour"}, "dpteach.audit.audit": {"dataset", "neighbour"},
    "dpteach.mechanisms.randomized_response": {"bits", "rng"},
}


def _decorated_routines():
    import importlib
    import pkgutil
    import dpteach
    found = {}
    for info in pkgutil.walk_packages(dpteach.__path__, "dpteach."):
        if info.name.endswith("__main__"):
            continue
        for obj in vars(importlib.import_module(info.name)).values():
            if getattr(obj, "__dpteach_constraints__", None) is not None and not obj.__name__ == "fit":
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def test_every_parameter_is_declared_or_checked_in_the_body():
    # the fuzz found two that passed rng/marginal on to a skipping routine; this lists the rest by hand
    for key, func in sorted(_decorated_routines().items()):
        undeclared = {p for p in inspect.signature(func).parameters
                      if p not in ("self", "oracle", "algorithm_kwargs")} - set(constraints_of(func))
        assert undeclared <= CHECKED_IN_BODY.get(key, set()), (key, sorted(undeclared))
