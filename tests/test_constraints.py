"""The constraint classes of dpteach._constraints (issue 32): each refuses every value it lists, by name.

The fuzz (tests/test_api_fuzz.py) reaches a class only through the routines that declare it; here every
class is exercised on its own, so a class whose ``invalid_values`` lists a value it accepts (the fuzz would
then report the routine, not the class) fails by name, and so does a class that stops checking.
"""

from __future__ import annotations

import math
import re
from numbers import Integral, Real

import numpy as np
import pytest

from dpteach import _array_constraints, _constraints as C
from dpteach._constraints import AtMost, Count, Epsilon, FiniteInterval, SameLength, validate_params
from dpteach._array_constraints import (Bits, Callable, CountArray, EpsilonArray, Flag, InstanceOf, PositiveArray,
                                        Sequence, Sweep)

# (constraint, a value it accepts, what it returns for it)
CLASSES = [
    (Callable("f(x) -> y"), len, len),
    (EpsilonArray(), [0.5, 2.0], np.array([0.5, 2.0])),
    (PositiveArray(), 3, np.array(3.0)),
    (PositiveArray(allow_zero=True, maximum=0.5, include_maximum=True), [0.0, 0.5], np.array([0.0, 0.5])),
    (CountArray(), [1.5, 10.0], np.array([1.5, 10.0])),  # a plotted axis may be fractional
    (CountArray(minimum=2), 2.0, np.array(2.0)),
    (CountArray(whole=True), [1, 4], np.array([1.0, 4.0])),
    (Sweep(Epsilon()), [0.5, 1], [0.5, 1.0]),
    (Sweep(Epsilon(allow_inf=True)), math.inf, [math.inf]),
    (Sweep(Count(minimum=10)), [10, 1e3], [10, 1000]),
    (Sweep(), 0.25, [0.25]),
    (Bits(ndim=1), [1, 0, True], np.array([True, False, True])),
    (Flag(), np.bool_(True), True),
    (InstanceOf((int, float), "a number"), 2, 2),
    (Sequence("callables", Callable("f()"), nonempty=True), (len, abs), [len, abs]),
    (FiniteInterval(Real, 0, 0.5, normal=True), 0.25, 0.25),
]


def _equal(a, b):
    if isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("constraint, good, converted", CLASSES, ids=[repr(c[0])[:60] for c in CLASSES])
def test_a_class_accepts_its_valid_values_and_converts_them(constraint, good, converted):
    assert _equal(constraint.validate(good, "param"), converted)


@pytest.mark.parametrize("constraint", [c for c, _, _ in CLASSES], ids=[repr(c[0])[:60] for c in CLASSES])
def test_a_class_refuses_every_value_it_lists_naming_the_parameter(constraint):
    listed = constraint.invalid_values()
    assert listed, "a class lists the values it refuses, for the fuzz"
    for value, label in listed:
        with pytest.raises((TypeError, ValueError)) as error:
            constraint.validate(value, "param")
        assert re.search(r"(?<!\w)param(?!\w)", str(error.value)), (label, str(error.value))


def test_array_classes_list_every_kind_of_bad_array():
    # empty, NaN, non-numeric and inf (each array class refuses inf), plus a wrong dimension for the fuzz
    for constraint in (EpsilonArray(), PositiveArray(), CountArray()):
        labels = {label for _, label in constraint.invalid_values()}
        assert {"empty", "[nan]", "['a']", "inf"} <= labels, (constraint, labels)
        assert constraint.array_ndim is None  # the fuzz adds wrong dimensions and string/object arrays from this
    assert Sweep(Epsilon()).array_ndim == (0, 1) and Bits(ndim=1).array_ndim == 1
    assert {"empty", "[[1.0]]", "inf"} <= {label for _, label in Sweep().invalid_values()}


def test_a_finite_interval_lists_inf_even_at_an_unbounded_end():
    # architecture review F5: FiniteInterval refuses ±inf at an unbounded end, and the fuzz must try it
    for constraint in (FiniteInterval(Real, 0, None), FiniteInterval(Real, None, None), C.POSITIVE, C.POSITIVE_INT):
        values = [v for v, _ in constraint.invalid_values()]
        assert math.inf in values
        with pytest.raises((TypeError, ValueError)):
            constraint.validate(math.inf, "x")
    assert -math.inf in [v for v, _ in FiniteInterval(Real, None, 1).invalid_values()]
    assert 5e-324 in [v for v, _ in FiniteInterval(Real, 0, 1, normal=True).invalid_values()]


def test_a_normal_interval_refuses_a_subnormal_on_nested_calls_too():
    eta = FiniteInterval(Real, 0, 0.5, normal=True)
    with pytest.raises(ValueError, match=r"^eta must not be subnormal"):
        eta.nested(5e-324, "eta")
    assert eta.nested(0.1, "eta") == 0.1


@validate_params({"X": _array_constraints.Array(ndim=2), "y": _array_constraints.Labels(), "batch_size": C.OrNone(C.POSITIVE_INT)},
                 relations=[SameLength("X", "y"), AtMost("batch_size", "X")])
def _fit_like(X, y, batch_size=None):
    return len(X)


@validate_params({"X": _array_constraints.Array(ndim=2), "y": _array_constraints.Labels()})
def _caller(X, y, batch_size=None, inner_y=None):
    return _fit_like(X, y if inner_y is None else inner_y, batch_size)


def test_relations_are_checked_after_the_parameters_with_the_old_messages():
    X, y = np.zeros((4, 2)), np.ones(4)
    assert _fit_like(X, y) == 4
    with pytest.raises(ValueError, match=r"^X and y must have the same number of samples, got 4 and 3$"):
        _fit_like(X, y[:3])
    with pytest.raises(ValueError, match=r"^batch_size must be an integer in \[1, 4\], got 5$"):
        _fit_like(X, y, batch_size=5)
    with pytest.raises(ValueError, match="y must contain only labels"):  # the parameter's own rule comes first
        _fit_like(X, np.zeros(3))


def test_a_nested_call_skips_an_array_relation_but_not_a_privacy_one():
    X, y = np.zeros((4, 2)), np.ones(4)
    # SameLength scans nothing a nested caller did not vouch for: skipped (the body would fail its own way)
    assert _caller(X, y, inner_y=np.ones(3)) == 4
    # AtMost guards a sampling rate <= 1: checked on the nested call too
    with pytest.raises(ValueError, match=r"^batch_size must be an integer in \[1, 4\], got 9$"):
        _caller(X, y, batch_size=9)


def test_a_relation_must_name_declared_parameters():
    with pytest.raises(TypeError, match="unknown parameter"):
        validate_params({"X": _array_constraints.Array()}, relations=[SameLength("X", "labels")])(lambda X, y: None)


def test_a_fit_relation_reads_a_hyperparameter_from_self():
    class Learner:
        def __init__(self, batch_size):
            self.batch_size = batch_size

        @C.fit_context({"X": _array_constraints.Array(ndim=2), "y": _array_constraints.Labels()}, relations=[AtMost("batch_size", "X")])
        def fit(self, X, y):
            return self

    X, y = np.zeros((3, 2)), np.ones(3)
    assert Learner(3).fit(X, y).batch_size == 3
    with pytest.raises(ValueError, match=r"^batch_size must be an integer in \[1, 3\], got 4$"):
        Learner(4).fit(X, y)


def test_a_sweep_converts_when_nested_without_checking():
    assert Sweep(Count()).nested(np.array([1.0, 2.0]), "n") == [1, 2]
    assert Sweep(Epsilon()).nested(0.5, "epsilons") == [0.5]


def test_check_real_array_alias_is_gone_and_all_is_complete():
    from dpteach import _validation as V
    assert not hasattr(V, "check_real_array")
    public = {name for name, obj in vars(V).items() if not name.startswith("_") and callable(obj)
              and getattr(obj, "__module__", None) == V.__name__}
    assert public <= set(V.__all__), sorted(public - set(V.__all__))
    assert not hasattr(C, "Interval")  # renamed FiniteInterval, no alias


def test_flag_refuses_truthy_values_by_name():
    for bad in (1, "yes", None, 0.0):
        with pytest.raises(TypeError, match=r"^clip_residual must be True or False"):
            Flag().validate(bad, "clip_residual")
    assert Flag().nested(False, "clip_residual") is False
