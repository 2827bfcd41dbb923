"""Validation runs once, at the outermost call (issue 23, third step): a budget per fit, and the decorator's rules.

One ``fit`` of every learner (found and configured as in tests/test_sklearn_compat.py) may call the
validators of :mod:`dpteach._validation` at most ``BUDGET`` times. The count is exact (the validators
are wrapped and counted, no profiler sampling), and only calls made from outside ``_validation``
count (a helper that delegates to another, like ``check_labels`` → ``check_finite_array``, is one
check). Before the contracts, one fit ran up to 626 (LocalThresholdLearner: the bisection of
``smallest_feasible_alpha`` re-validated every ``users_needed``/``group_size`` call).

The broken variant turns the nested skip off (every decorated call validates, as if called from the
top): then at least one learner must exceed the budget, so the test can see the skip work.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import dpteach._validation as V
from dpteach import _constraints as C
from dpteach._constraints import (Array, Delta, Epsilon, Integral, FiniteInterval, Options, OrNone, Real, constraints_of,
                                  generate_invalid_values, validate_params)

from test_sklearn_compat import KEYS, SETTINGS, _make

BUDGET = 60  # issue 23: "one fit of each learner runs at most ~60 validator calls"
VALIDATORS = [name for name, obj in vars(V).items()
              if inspect.isfunction(obj) and (name.startswith("check_") or name == "as_rng")]


@pytest.fixture
def counted(monkeypatch):
    """Wrap every validator of _validation; returns the dict of counts (outer calls only)."""
    counts = {"calls": 0}
    depth = {"d": 0}
    for name in VALIDATORS:
        original = getattr(V, name)

        def wrapper(*args, _original=original, **kwargs):
            if depth["d"] == 0:
                counts["calls"] += 1
            depth["d"] += 1
            try:
                return _original(*args, **kwargs)
            finally:
                depth["d"] -= 1
        monkeypatch.setattr(V, name, wrapper)
        # modules bound the names at import: patch every dpteach module's copy too
        import sys
        for module_name, module in list(sys.modules.items()):
            if module_name.startswith("dpteach") and getattr(module, name, None) is original:
                monkeypatch.setattr(module, name, wrapper)
    return counts


def _fit_count(key, counts):
    learner = _make(key)
    X, y = SETTINGS[key].data
    counts["calls"] = 0
    learner.fit(X, y)
    return counts["calls"]


@pytest.mark.parametrize("key", KEYS)
def test_one_fit_stays_within_the_validation_budget(key, counted):
    calls = _fit_count(key, counted)
    assert 0 < calls <= BUDGET, f"{key}.fit ran {calls} validator calls (budget {BUDGET})"


class _NeverNested:
    """The broken variant: the context never says "nested", so every decorated call validates."""

    def get(self):
        return False

    def set(self, value):
        return None

    def reset(self, token):
        return None


def test_broken_variant_without_the_nested_skip_exceeds_the_budget(counted, monkeypatch):
    monkeypatch.setattr(C, "_NESTED", _NeverNested())
    worst = max(_fit_count(key, counted) for key in ("dpteach.local_learners.LocalThresholdLearner",
                                                    "dpteach.logconcave.PrivateLogConcaveL1Learner"))
    assert worst > BUDGET


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
