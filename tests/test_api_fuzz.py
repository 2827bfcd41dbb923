"""Fuzz of the public API (issues 7, 17, 23 and 32): every public callable × the bad values of its declared contract.

The callables are read from the ``__all__`` of every dpteach module (walked with pkgutil), so a new chapter is
covered the day it is merged. Each one

- declares its parameters (``@validate_params``, a learner's ``_parameter_constraints``; read with
  ``dpteach._constraints.constraints_of``): ``test_every_public_callable_declares_its_contract``;
- shows one valid call in its docstring's ``Examples`` (run as a doctest by tests/test_doctests.py, read by
  tests/doc_examples.py): ``test_every_public_callable_has_an_example``.

From that call, the bad calls are derived from the declared constraints (``generate_invalid_values``: for ε
{0, −1, nan, inf, '1', None, True, subnormals}, for a count {2.5, '1', True, below the minimum}, ...), and for every
array parameter (``Array``, ``Labels``, a ``Check`` with ``array_ndim``) also the example's array {empty, with a NaN,
one dimension more, one dimension fewer (when that is not also an allowed dimension), as strings, as objects with a
None}. A parameter the example leaves at its default is fuzzed too. A bad call must raise ``ValueError`` or
``TypeError`` whose message names the parameter as a word (``target_threshold`` does not name ``threshold``).
Learners store their parameters in ``__init__`` (scikit-learn convention), so a bad constructor value must raise
at ``fit``.

The routine calls are **sampled** (issue 32; architecture review F10): each parameter is called with one of its bad
values, chosen by a stable hash of routine and parameter (``sample_bad_values``), and the few (class, bad value)
pairs the rotation leaves out are added, so every bad value of every constraint class still reaches some routine
(``test_the_sample_tries_every_bad_value_of_every_constraint_class``). Nothing is lost: every constraint used in a
contract is held to *all* its bad values directly, without a routine call
(``test_every_declared_constraint_refuses_its_own_bad_values``), and the routine calls show the wiring (the routine
declares the constraint and refuses through it, by name). A mutation test switches each main constraint class off in
turn (``validate`` and ``nested`` return the value unchecked) and requires the sampled fuzz to report failures
(``test_the_sampled_fuzz_catches_a_validator_that_stops_checking``).

Extreme but valid values (issue 17): ε ∈ {1e-300, 1e300} (a parameter declared ``Epsilon``) and α = 1e-300 must
give an output without NaN, or a ValueError/TypeError naming the parameter; never a raw exception or a run past
the time limit. The few documented answers (NaN where no n reaches a target) are listed, with the docstring's
reason, in ``doc_examples.DOCUMENTED``.

Below the fuzz, the specific cases of item 15 are pinned one by one; those of issue 17 are in
tests/test_validation_rules.py.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import math
import pkgutil
import re
import signal
import zlib

import numpy as np
import pytest

import dpteach
from dpteach import (_array_constraints, _constraints, audit as _audit, bounds as _bounds, composition as _composition,
                     group_sizes, mechanisms as _mechanisms, sq_algorithms)
from dpteach._constraints import constraints_of, generate_invalid_values
from dpteach._estimator import Estimator
from doc_examples import examples_of

# Modules whose callables are not fuzzed, and why.
EXCLUDED = {
    # The lab checkers take a *student's function* and report on it through
    # LabCheckError; their own tests (tests/test_labNN.py) feed them wrong answers.
    "dpteach.labs": "checkers take student functions",
    # Figure helpers (sliders, axes, styles) take matplotlib/ipywidgets objects,
    # not data or privacy parameters; tests/test_widgets_plotting.py covers them.
    "dpteach.widgets": "figure helpers",
    "dpteach.plotting": "figure helpers",
    # The table of audit setups behind the privacy audit report (book/privacy_audit.md, make audit), not
    # a student-facing algorithm API: its entries build their own inputs, and tests/test_audit_report.py
    # runs every entry and holds the certified bounds to the claims.
    "dpteach.registry": "the privacy audit report's table of audit setups",
    "dpteach.audit_setups": "the registry's audit setups (neighbours and events), run by tests/test_audit_report.py",
    # The book's code listings: each takes a dotted name (or source text) written by the chapter's author,
    # not data or privacy parameters; tests/test_listings.py checks every listing and the bad names.
    "dpteach.listing": "code listings of the chapters",
    # The contract layer itself (issue 23): its constraints take a rule, not data, and the decorator a function;
    # tests/test_validation_budget.py holds every constraint to its own bad values and the decorator to its rules.
    "dpteach._constraints": "the declared-constraint layer the fuzz reads",
    "dpteach._array_constraints": "the declared-constraint layer the fuzz reads (its array and sequence rules)",
    # The checkers themselves (issue 23): every declared constraint calls one of them, so the fuzz reaches them
    # through every routine; tests/test_validation_rules.py and tests/test_validation.py feed them bad values
    # directly, and tests/test_validation_budget.py holds each constraint to its own bad values.
    "dpteach._validation": "the rules the declared constraints call",
}

# Modules without an ``__all__`` that are allowed: they export nothing public.
NO_ALL_ALLOWED = {
    "dpteach": "the package root only holds __version__",
    "dpteach.experiments": "a namespace: runners are imported by chapter module",
    "dpteach.experiments._progress": "private helpers of the runners (progress bar, repetition check)",
    "dpteach._progress": "the progress-bar helper (a shared layer; experiments._progress re-exports it)",
}

CALL_TIME_LIMIT = 10  # seconds of CPU time; a bad value must be refused up front, never loop

def _excluded(module_name):
    return any(module_name == p or module_name.startswith(p + ".") for p in EXCLUDED)


def _modules():
    names = ["dpteach"] + [m.name for m in pkgutil.walk_packages(dpteach.__path__, "dpteach.")]
    return [importlib.import_module(n) for n in names if not _excluded(n)]


def public_callables():
    """{canonical 'module.qualname': object} over the ``__all__`` of every non-excluded module (re-exports once)."""
    found = {}
    for module in _modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if callable(obj):
                found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    return found


CALLABLES = public_callables()

EXAMPLES = examples_of(CALLABLES)


def is_real_scalar(value):
    """A real-valued scalar: a float (not a bool, not an array) in the example."""
    return isinstance(value, (float, np.floating)) and not isinstance(value, bool)


def _non_numeric_arrays(value):
    """The array as strings (``X.astype(str)``), and as an object array holding a None."""
    arr = np.asarray(value)
    if arr.size == 0:
        return []
    as_object = arr.astype(object)
    as_object.flat[0] = None
    return [(arr.astype(str), "example-as-str"), (as_object, "example-as-object")]


def _wrong_dimensions(value, allowed):
    if allowed is None:  # any shape is valid (an elementwise function)
        return []
    arr = np.asarray(value)
    allowed = (allowed,) if isinstance(allowed, int) else tuple(allowed)
    cases = []
    if arr.ndim + 1 not in allowed:
        cases.append((arr[..., None], "example-ndim+1"))
    if arr.ndim >= 1 and arr.ndim - 1 not in allowed:
        cases.append((arr[0], "example-ndim-1"))
    return cases


def _bad_array_values(value, allowed):
    arr = np.asarray(value)
    with_nan = arr.astype(float).copy()
    with_nan.flat[0] = math.nan
    empty = arr[:0] if arr.ndim else arr.reshape(1)[:0]
    return [(empty, "example-empty"), (with_nan, "example-nan")] + _wrong_dimensions(arr, allowed)


def missing_requirement(example):
    """Why the example cannot run here (its docstring example needs an optional library not installed), or None."""
    return example.missing


def declared_constraints(key):
    """The declared {name: constraint} of a callable (a class: its hyperparameters or __init__'s), or {}."""
    obj = CALLABLES.get(key)
    return {} if obj is None else (constraints_of(obj) or {})


def declared_fit_constraints(key):
    """The declared {name: constraint} of a learner's ``fit`` arguments, or {}."""
    obj = CALLABLES.get(key)
    return (constraints_of(obj.fit) or {}) if inspect.isclass(obj) and hasattr(obj, "fit") else {}


def takes_parameters(obj):
    """Whether a public callable has parameters to declare: an exception class (its message is dpteach's own
    sentence) and a callable without parameters have none, so they carry no contract ceremony (review F9)."""
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return False
    try:
        parameters = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters)


# The public callables whose bad values are still guessed from parameter names (no declared constraints).
NOT_DECLARED = sorted(key for key in CALLABLES
                      if constraints_of(CALLABLES[key]) is None and takes_parameters(CALLABLES[key]))


def bad_values(name, value, example, constraint):
    """The bad values of one parameter: its declared constraint's, plus the array cases for an array parameter."""
    cases = list(generate_invalid_values(constraint))
    if name in example.arrays:
        cases += _bad_array_values(value, example.arrays[name]) + _non_numeric_arrays(value)
    return cases


def example_arguments(example):
    """(part, name, value) for every argument of an example: the call's, then fit's for an estimator."""
    parts = [("call", example.kwargs)] + ([("fit", example.fit)] if example.fit is not None else [])
    return [(part, name, value) for part, kwargs in parts for name, value in kwargs.items()]


def constraint_class(constraint):
    """The class whose bad values a constraint lists: its class name, ``OrNone(Epsilon)`` for a wrapped one."""
    inner = getattr(constraint, "inner", None)
    if inner is not None:
        return f"{type(constraint).__name__}({constraint_class(inner)})"
    return type(constraint).__name__


def unwrapped(constraint):
    """The constraint that does the checking (``OrNone``'s inner one)."""
    inner = getattr(constraint, "inner", None)
    return constraint if inner is None else unwrapped(inner)


def fuzzed_parameters():
    """(key, part, name, constraint, bad values) for every declared parameter of every example call.

    A declared parameter the example leaves at its default is fuzzed too (its value only matters for arrays).
    The bad values are the constraint's own (``invalid_values()``) plus, for an array, those derived from the
    example's array; a value the example documents as valid (``accepts``, e.g. ε = inf) is left out.
    """
    found = []
    for key in sorted(CALLABLES):
        example = EXAMPLES.get(key)
        if example is None:
            continue
        declared = {"call": declared_constraints(key), "fit": declared_fit_constraints(key)}
        given = example_arguments(example)
        given += [(part, name, None) for part in ("call", "fit") for name in declared[part]
                  if not any(p == part and n == name for p, n, _ in given)
                  and (part == "call" or example.fit is not None)]
        for part, name, value in given:
            constraint = declared[part].get(name)
            if constraint is None:
                continue  # an undeclared parameter fails test_every_public_callable_declares_its_contract
            bads = [(bad, label) for bad, label in bad_values(name, value, example, constraint)
                    if (name, label) not in example.accepts]  # tested in test_documented_reference_values_are_accepted
            if bads:
                found.append((key, part, name, constraint, bads))
    return found


def stable_hash(*parts):
    """A hash that is the same in every run and on every machine (Python's ``hash`` of a str is salted per process)."""
    return zlib.crc32("|".join(map(str, parts)).encode())


def sample_bad_values(parameters):
    """One bad value per parameter; together, every bad value of every constraint class on some parameter.

    ``parameters``: (parameter id, constraint class, [(bad value, label), ...]). Each parameter gets the value at
    ``stable_hash(id) mod (number of its bad values)``: a rotation that does not depend on the order of the
    package's routines, so adding a routine leaves the others' values unchanged. Then each (class, label) that no
    parameter got is added to the parameter of that class that holds it with the smallest ``stable_hash(id,
    label)``. Returns {parameter id: [(bad value, label), ...]} (one value, or a few for the covering additions).

    Why this keeps the coverage: every constraint instance is held to *all* its bad values directly
    (test_every_declared_constraint_refuses_its_own_bad_values); the routine calls check the wiring (the
    routine declares the constraint, and refuses through it by name), which one bad value per parameter shows,
    and every bad value of every class still reaches the routines somewhere.
    """
    chosen, holders = {}, {}
    for pid, cls, bads in parameters:
        chosen[pid] = [bads[stable_hash(*pid) % len(bads)]]
        for bad, label in bads:
            holders.setdefault((cls, label), []).append((stable_hash(*pid, label), pid, (bad, label)))
    tried = {(cls, label) for pid, cls, _ in parameters for _, label in chosen[pid]}
    for (cls, label), holding in sorted(holders.items(), key=lambda item: repr(item[0])):
        if (cls, label) not in tried:
            _, pid, case = min(holding, key=lambda h: (h[0], repr(h[1])))
            chosen[pid].append(case)
    return chosen


def sampled_bad_calls():
    """(key, part, name, constraint, bad value, label, skip reason or None) for the sampled fuzz."""
    runnable, cases = [], []
    for key, part, name, constraint, bads in fuzzed_parameters():
        example = EXAMPLES[key]
        exempt = [(bad, label) for bad, label in bads
                  if example.exempt.get((name, label)) or example.exempt.get((name, "*"))]
        for bad, label in exempt:  # a documented answer: listed as a skip, with its reason
            reason = example.exempt.get((name, label)) or example.exempt.get((name, "*"))
            cases.append((key, part, name, constraint, bad, label, f"exempt: {reason}"))
        bads = [case for case in bads if case not in exempt]
        if not bads:
            continue
        missing = missing_requirement(example)
        if missing:  # cannot run here: one sampled value, skipped with the reason; it covers nothing
            bad, label = bads[stable_hash(key, part, name) % len(bads)]
            cases.append((key, part, name, constraint, bad, label, missing))
            continue
        runnable.append(((key, part, name), constraint_class(constraint), bads, constraint))
    chosen = sample_bad_values([(pid, cls, bads) for pid, cls, bads, _ in runnable])
    for (key, part, name), _, _, constraint in runnable:
        cases += [(key, part, name, constraint, bad, label, None) for bad, label in chosen[(key, part, name)]]
    return sorted(cases, key=lambda c: (c[0], c[1], c[2], c[5]))


SAMPLED = sampled_bad_calls()


def bad_calls():
    """pytest params (key, part, name, value, label) of the sampled fuzz."""
    return [pytest.param(key, part, name, bad, label,
                         marks=[pytest.mark.skip(reason=skip)] if skip else [], id=f"{key}-{part}-{name}={label}")
            for key, part, name, _, bad, label, skip in SAMPLED]


def names(name, err):
    """Whether the message names the parameter as a word: "target_threshold" does not name ``threshold``."""
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", str(err)) is not None


def _module_of(key):
    return CALLABLES[key].__module__


class _CPUTimeLimit:
    """Fail a call that uses more than ``seconds`` of this process's CPU time.

    A CPU-time limit (ITIMER_PROF: user + system time of this process, SIGPROF), not a wall-clock
    alarm: on a loaded machine a valid call that needs 2 s of CPU could take 20 s of wall time and
    fail a wall-clock limit (architecture review F11), while its CPU time stays the same. The
    limit only catches work that should never have started (a bad value must be refused up front).
    """

    def __init__(self, seconds):
        self.seconds = seconds

    def _handler(self, signum, frame):
        raise TimeoutError(f"call used more than {self.seconds} s of CPU time")

    def __enter__(self):
        self._old = signal.signal(signal.SIGPROF, self._handler)
        signal.setitimer(signal.ITIMER_PROF, self.seconds)

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, self._old)
        return False


def _is_estimator(obj):
    return inspect.isclass(obj) and issubclass(obj, Estimator) and obj is not Estimator


def run_example(key, call_kwargs=None, fit_kwargs=None):
    """Call ``key`` with its example (or the given replacements); estimators are constructed, then fit.

    An example whose optional library is missing is skipped (with the reason), never failed.
    """
    obj = CALLABLES[key]
    example = EXAMPLES[key]
    missing = missing_requirement(example)
    if missing:
        pytest.skip(missing)
    kwargs = copy.deepcopy(example.kwargs) if call_kwargs is None else call_kwargs
    with _CPUTimeLimit(CALL_TIME_LIMIT):
        result = obj(*example.args, **kwargs)
        if _is_estimator(obj):
            fit = copy.deepcopy(example.fit) if fit_kwargs is None else fit_kwargs
            return result, result.fit(**fit)
        return result, None


# --- the registry covers the API ---------------------------------------------------------------

def test_public_callables_are_found():
    # A sanity floor: a broken walk (an import error swallowed, a wrong prefix) would find few.
    assert len(CALLABLES) > 200
    assert "dpteach.mechanisms.laplace_mechanism" in CALLABLES
    assert "dpteach.bounds.generic.erm_sample_complexity" in CALLABLES
    assert not any(k.startswith(tuple(EXCLUDED)) for k in CALLABLES)


def test_every_module_declares_all():
    missing = [m.__name__ for m in _modules() if not hasattr(m, "__all__") and m.__name__ not in NO_ALL_ALLOWED]
    assert not missing, (f"modules without __all__ escape the fuzz: {missing}; list their public names in "
                         f"__all__ (or, if they export nothing, add them to NO_ALL_ALLOWED with a reason)")


def test_every_public_callable_has_an_example():
    missing = sorted(set(CALLABLES) - set(EXAMPLES))
    assert not missing, (
        f"{len(missing)} public callable(s) show no call of themselves in their docstring: {missing}. Add an "
        f"Examples section with a doctest that calls it with tiny arguments (a learner: Learner(...).fit(X, y)); "
        f"tests/test_doctests.py runs it and the fuzz derives the bad calls from it.")


def test_every_public_callable_declares_its_contract():
    # issue 23: every parameter of every public callable is declared next to it (a learner: its hyperparameters in
    # _parameter_constraints, its fit's arguments on fit), so the whole package validates through the declarations.
    assert not NOT_DECLARED, (f"public callables without declared constraints: {NOT_DECLARED}; declare them with "
                              f"@validate_params (dpteach._constraints), the fuzz then derives the bad values")
    undeclared = []
    for key, obj in CALLABLES.items():
        if not takes_parameters(obj):
            continue
        target = obj.__init__ if inspect.isclass(obj) else obj
        try:
            parameters = inspect.signature(target).parameters.values()
        except (TypeError, ValueError):
            continue
        names = {p.name for p in parameters if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        missing = names - set(constraints_of(obj))
        if missing and not (inspect.isclass(obj) and not hasattr(obj, "fit") and target is object.__init__):
            undeclared.append((key, sorted(missing)))
    assert not undeclared, f"parameters without a declared constraint (Unchecked('why') if none applies): {undeclared}"


def test_declared_constraints_drive_the_bad_values():
    # a converted routine's bad calls are the constraint's own bad values, not the name-based guesses
    declared = declared_constraints("dpteach.group_sizes.group_size")
    example = EXAMPLES["dpteach.group_sizes.group_size"]
    derived = bad_values("tau", example.kwargs["tau"], example, declared["tau"])
    assert derived == generate_invalid_values(declared["tau"])


def test_examples_are_well_formed():
    for key, example in EXAMPLES.items():
        names = set(example.kwargs) | set(example.fit or {})
        assert set(example.arrays) <= names, f"{key}: arrays marks unknown parameters"
        for name, _label in example.exempt:
            assert name in names, f"{key}: exemption for unknown parameter {name!r}"
        if key in CALLABLES and _is_estimator(CALLABLES[key]):
            assert example.fit is not None, f"{key} is an estimator: give fit=dict(X=..., y=...)"


@pytest.mark.parametrize("key", sorted(k for k in CALLABLES if k in EXAMPLES))
def test_valid_example_succeeds(key):
    obj = CALLABLES[key]
    result, fitted = run_example(key)
    if _is_estimator(obj):
        assert fitted is result, f"{key}.fit must return self"


def bad_call_failure(key, part, name, bad, cpu_seconds=CALL_TIME_LIMIT):
    """What is wrong with how ``key`` treats ``name`` = ``bad``: None if it raises ValueError/TypeError naming ``name``.

    The fuzz's check, as a function (the mutation tests run it with a validator switched off). Learners store
    their parameters in ``__init__`` (scikit-learn convention): a bad constructor value must raise at ``fit``.
    """
    example = EXAMPLES[key]
    call_kwargs = copy.deepcopy(example.kwargs)
    fit_kwargs = copy.deepcopy(example.fit)
    (call_kwargs if part == "call" else fit_kwargs)[name] = bad
    obj = CALLABLES[key]
    try:
        with _CPUTimeLimit(cpu_seconds):
            result = obj(*example.args, **call_kwargs)
            if _is_estimator(obj):
                result.fit(**fit_kwargs)
    except (ValueError, TypeError) as err:
        return None if names(name, err) else f"the message does not name {name!r}: {err}"
    except Exception as err:  # noqa: BLE001 - any other exception (or the CPU-time watchdog) is the failure reported
        return f"{type(err).__name__} instead of a ValueError/TypeError naming {name!r}: {err}"
    return f"accepted: the call returned instead of refusing {name!r}"


@pytest.mark.parametrize("key, part, name, bad, label", bad_calls())
def test_bad_call_raises_a_named_error(key, part, name, bad, label):
    failure = bad_call_failure(key, part, name, bad)
    assert failure is None, f"{key}({name}={label}): {failure}"


def test_the_sample_tries_every_bad_value_of_every_constraint_class():
    # The sampler's promise, recomputed from the full lists: no (class, label) pair is lost by sampling.
    everything = {(constraint_class(c), label) for key, part, name, c, bads in fuzzed_parameters()
                  if not missing_requirement(EXAMPLES[key]) for _, label in bads}
    tried = {(constraint_class(c), label) for *_, c, _, label, skip in SAMPLED if skip is None}
    assert everything - tried == set()
    # and the sample is one value per parameter, plus the few that cover what the rotation left out
    n_parameters = len({(key, part, name) for key, part, name, *_ in SAMPLED})
    assert n_parameters <= len(SAMPLED) <= n_parameters + len(everything)


def test_the_sample_is_deterministic():
    # The same rotation in every run and on every machine (no salted hash, no dependence on the collection order).
    assert stable_hash("dpteach.mechanisms.laplace_mechanism", "call", "epsilon") == 2639677667
    parameters = [((k, p, n), constraint_class(c), b) for k, p, n, c, b in fuzzed_parameters()
                  if not missing_requirement(EXAMPLES[k])]
    again = sample_bad_values(parameters[::-1])
    sampled = {}
    for key, part, name, _, _, label, skip in SAMPLED:
        if skip is None:
            sampled.setdefault((key, part, name), set()).add(label)
    assert {pid: {label for _, label in cases} for pid, cases in again.items()} == sampled


# --- every constraint refuses all its own bad values (direct, no routine call) -------------------

def contract_instances():
    """(key, part, name, constraint) for every declared parameter of every public callable (a learner's fit too)."""
    return [(key, part, name, constraint) for key in sorted(CALLABLES)
            for part, declared in (("call", declared_constraints(key)), ("fit", declared_fit_constraints(key)))
            for name, constraint in declared.items()]


CONTRACTS = contract_instances()


def refusal_failure(constraint, name, bad):
    """None if ``constraint.validate(bad, name)`` raises ValueError/TypeError naming ``name``, else what it did."""
    try:
        constraint.validate(bad, name)
    except (ValueError, TypeError) as err:
        return None if names(name, err) else f"the message does not name {name!r}: {err}"
    except Exception as err:  # noqa: BLE001 - reported as the failure
        return f"{type(err).__name__} instead of a ValueError/TypeError: {err}"
    return "accepted"


# Bad values a parameter's constraint lets through because the rule joins two parameters (the body checks it, and
# the routine must then refuse it by name: the test calls the routine for these). (key, name): (labels, why).
_SECRET_SHAPE = "the secret's shape must be (d,): a joint rule on d and the bits, checked in the body"
CHECKED_IN_THE_BODY = {
    ("dpteach.bounds.local.rejection_sampling_queries", "tau"):
        ({"1.5"}, "0 <= τ < e^(-ε): a joint rule on τ and ε, checked in the body"),
    ("dpteach.bounds.local.rejection_sampling_query_budget", "tau"):
        ({"1.5"}, "0 <= τ < e^(-ε): a joint rule on τ and ε, checked in the body"),
    ("dpteach.data.local.masked_parity_data", "r"): ({"[[[1.0]]]", "example-ndim+1", "example-ndim-1"}, _SECRET_SHAPE),
    ("dpteach.data.local.masked_parity_distribution", "r"):
        ({"[[[1.0]]]", "example-ndim+1", "example-ndim-1"}, _SECRET_SHAPE),
    ("dpteach.data.local.masked_parity_error", "r"): ({"[[[1.0]]]", "example-ndim+1", "example-ndim-1"}, _SECRET_SHAPE),
    ("dpteach.data.local.masked_parity_error", "r_hat"):
        ({"[[[1.0]]]", "example-ndim+1", "example-ndim-1"}, "r_hat must have r's shape: a joint rule, in the body"),
    ("dpteach.sq_lower_bounds.RandomLabelParityOracle", "secret"):
        ({"[[[1.0]]]", "example-ndim+1", "example-ndim-1"}, _SECRET_SHAPE),
    ("dpteach.halfspace_cover.halfspace_cover", "basis"):
        ({"example-empty"}, "a basis may have no columns (k = 0) but needs d >= 1 rows: the shape rule is in the body"),
}

# A classifier's y may hold any labels (strings, 0/1, ...): which ones is the public ``classes`` hyperparameter, so a
# label outside it is a joint rule on y and classes, refused by ``fit`` (``Estimator._fit_labels``) by name.
CHECKED_IN_THE_BODY.update({
    (key, name): ({"[0.5]", "['1']", "example-nan", "example-as-str", "example-as-object"},
                  "labels outside the public classes: a joint rule on y and classes, checked in fit")
    for key, part, name, constraint in CONTRACTS if constraint_class(constraint) == "ClassLabels"})


@pytest.mark.parametrize("cls", sorted({constraint_class(c) for *_, c in CONTRACTS}))
def test_every_declared_constraint_refuses_its_own_bad_values(cls):
    """Exhaustive where it is cheap: every constraint used in a contract × every value of its ``invalid_values()``.

    The routine-level fuzz above samples one of these per parameter; here none is left out. For an array
    parameter of an example call, the bad arrays derived from the example's array are refused too. A value
    listed in ``CHECKED_IN_THE_BODY`` (a joint rule on two parameters) must be refused by the routine instead.
    """
    failures = []
    for key, part, name, constraint in CONTRACTS:
        if constraint_class(constraint) != cls:
            continue
        example = EXAMPLES.get(key)
        value = (example.kwargs if part == "call" else example.fit or {}).get(name) if example else None
        cases = (bad_values(name, value, example, constraint) if example is not None
                 else generate_invalid_values(constraint))
        accepted = example.accepts if example is not None else {}
        in_body = CHECKED_IN_THE_BODY.get((key, name), ((), None))[0]
        for bad, label in cases:
            if (name, label) in accepted:
                continue
            if label in in_body:
                failure = bad_call_failure(key, part, name, bad)
            else:
                failure = refusal_failure(constraint, name, bad)
            if failure:
                failures.append(f"{key}({part}: {name}={label}): {failure}")
    assert not failures, f"{len(failures)} bad value(s) not refused by name:\n" + "\n".join(failures[:20])


def test_the_exhaustive_constraint_test_sees_every_bad_value_the_fuzz_samples_from():
    # A floor against a walk that silently finds nothing (a renamed attribute, a wrong part).
    n_values = sum(len(generate_invalid_values(c)) for *_, c in CONTRACTS)
    assert len(CONTRACTS) > 1500 and n_values > 8000, (len(CONTRACTS), n_values)


# --- mutation: a validator that stops checking is caught by the sampled fuzz ---------------------

# Constraint classes switched off one at a time; "FiniteInterval|Interval": whichever name the layer uses.
MUTATED = ["Epsilon", "Delta", "FiniteInterval|Interval", "Array", "Labels", "RandomState", "Options"]


def _constraint_class_named(names_):
    found = [getattr(module, n) for module in (_constraints, _array_constraints) for n in names_.split("|")
             if hasattr(module, n)]
    assert found, f"dpteach._constraints and dpteach._array_constraints have none of {names_}"
    return found[0]


def _unchecked(self, value, name):
    return value


@pytest.mark.parametrize("class_names", MUTATED)
def test_the_sampled_fuzz_catches_a_validator_that_stops_checking(class_names, monkeypatch):
    """Switch one constraint class's checks off (``validate`` and ``nested`` return the value as given) and run the
    sampled fuzz's own check on the routines whose parameters that class guards: it must report failures.

    A sample that still passed with a validator gone would test nothing; and the failures it reports must be the
    mutation's (with the class restored, the same calls pass). It stops at the first three failures (the point is
    that the sample notices, not how often), each call under a CPU-time watchdog: an unchecked value may run long.
    """
    cls = _constraint_class_named(class_names)
    cases = [(key, part, name, bad, label) for key, part, name, constraint, bad, label, skip in SAMPLED
             if skip is None and type(unwrapped(constraint)) is cls]
    assert cases, f"no sampled parameter is guarded by {cls.__name__}"
    monkeypatch.setattr(cls, "validate", _unchecked)
    monkeypatch.setattr(cls, "nested", _unchecked)
    caught = []
    for key, part, name, bad, label in cases:
        failure = bad_call_failure(key, part, name, bad, cpu_seconds=2)
        if failure is not None:
            caught.append((key, part, name, bad, label, failure))
            if len(caught) == 3:
                break
    assert caught, f"{cls.__name__} switched off, yet all {len(cases)} sampled bad calls it guards still pass"
    monkeypatch.undo()
    for key, part, name, bad, label, failure in caught:
        assert bad_call_failure(key, part, name, bad) is None, (key, name, label)


@pytest.mark.parametrize("key, name, label, reason", [
    (key, name, label, reason) for key, ex in sorted(EXAMPLES.items()) for (name, label), reason in ex.accepts.items()])
def test_documented_reference_values_are_accepted(key, name, label, reason):
    """An exemption for ε = inf means "the non-private reference path": the call must then work."""
    example = EXAMPLES[key]
    values = {"inf": math.inf}
    call_kwargs = copy.deepcopy(example.kwargs)
    # A sweep parameter (a list of ε) gets the value as one entry of the sweep.
    sweep = isinstance(call_kwargs[name], (list, tuple, np.ndarray))
    call_kwargs[name] = [values[label]] if sweep else values[label]
    run_example(key, call_kwargs)


# --- issue 17: extreme but valid ε and α answer, or refuse by name -----------------------------

EXTREME_EPSILON = [(1e-300, "1e-300"), (1e300, "1e300")]
EXTREME_ALPHA = [(1e-300, "1e-300")]


def extreme_values(name):
    if name.startswith("epsilon"):  # ε, ε_total, ε of a step: declared Epsilon, or a rule of ε's own
        return EXTREME_EPSILON
    if name == "alpha":
        return EXTREME_ALPHA
    return []


def extreme_calls():
    """pytest params (key, part, name, value, label) for every ε-like and α parameter at an extreme valid value."""
    params = []
    for key in sorted(CALLABLES):
        example = EXAMPLES.get(key)
        if example is None:
            continue
        for part, name, value in example_arguments(example):
            if not is_real_scalar(value):
                continue  # a sweep of ε: its entries are checked by the same helpers as a scalar ε
            for extreme, label in extreme_values(name):
                reason = example.exempt.get((name, label))
                marks = [pytest.mark.skip(reason=f"exempt: {reason}")] if reason else []
                if missing_requirement(example):
                    marks = [pytest.mark.skip(reason=missing_requirement(example))]
                params.append(pytest.param(key, part, name, extreme, label, marks=marks,
                                           id=f"{key}-{part}-{name}={label}"))
    return params


def nan_paths(obj, path="", depth=0):
    """Where ``obj`` (a number, an array, a container, a dataclass or a fitted estimator) holds a NaN."""
    if depth > 6 or obj is None or isinstance(obj, (str, bytes, bool)):
        return []
    if isinstance(obj, (float, np.floating)):
        return [path or "<result>"] if math.isnan(obj) else []
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fc" and np.isnan(obj).any():
            return [path or "<result>"]
        if obj.dtype.kind == "O":
            return [p for i, v in enumerate(obj.ravel()[:1000]) for p in nan_paths(v, f"{path}[{i}]", depth + 1)]
        return []
    if isinstance(obj, dict):
        return [p for k, v in obj.items() for p in nan_paths(v, f"{path}[{k!r}]", depth + 1)]
    if isinstance(obj, (list, tuple)):
        return [p for i, v in enumerate(obj) for p in nan_paths(v, f"{path}[{i}]", depth + 1)]
    if hasattr(obj, "__dataclass_fields__"):
        return [p for f in obj.__dataclass_fields__ for p in nan_paths(getattr(obj, f), f"{path}.{f}", depth + 1)]
    if isinstance(obj, Estimator):  # its fitted attributes (the scikit-learn trailing underscore)
        return [p for k, v in vars(obj).items() if k.endswith("_") for p in nan_paths(v, f"{path}.{k}", depth + 1)]
    return []


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("key, part, name, value, label", extreme_calls())
def test_extreme_valid_value_answers_or_names_the_limit(key, part, name, value, label):
    """ε ∈ {1e-300, 1e300} and α = 1e-300 are in range: the call answers without NaN, or refuses by name.

    A raw OverflowError / ZeroDivisionError / numpy size error, a NaN in the output or a run past the
    time limit fails, and so does a RuntimeWarning (overflow, divide by zero: an error, here). An
    infinite answer is allowed: it is the true value of a bound that exceeds the largest float (e.g.
    a sample size at α = 1e-300), computed where needed under ``np.errstate`` with a comment why.
    """
    example = EXAMPLES[key]
    call_kwargs = copy.deepcopy(example.kwargs)
    fit_kwargs = copy.deepcopy(example.fit)
    (call_kwargs if part == "call" else fit_kwargs)[name] = value
    try:
        result, fitted = run_example(key, call_kwargs, fit_kwargs)
    except (ValueError, TypeError) as err:
        assert names(name, err), f"the refusal does not name {name!r}: {err}"
        return
    bad = nan_paths(fitted if fitted is not None else result)
    assert not bad, f"{key}({name}={label}) returned NaN at {bad[:5]}"


# --- the specific cases of item 15, pinned -----------------------------------------------------


@pytest.mark.parametrize("epsilon", [1.0, 1e308])
def test_exponential_mechanism_probabilities_at_huge_tied_scores(epsilon):
    # Two equal scores: the law is exactly uniform whatever ε (it was 0.736 in total, or NaN at ε = 1e308).
    p = _mechanisms.exponential_mechanism_probabilities([1e16, 1e16], 1, epsilon)
    assert not np.any(np.isnan(p))
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(p, [0.5, 0.5], atol=1e-12)


@pytest.mark.parametrize("sampler", [_mechanisms.exponential_mechanism, _mechanisms.report_noisy_max])
def test_selection_is_fair_at_huge_tied_scores(sampler):
    # N draws from a fair choice: the count of index 0 is Bin(N, 1/2), σ = √(N/4) = 100 for N = 40000;
    # a 6σ band (two-sided false alarm 2e-9) is ±600, i.e. ±1.5 %. The bug (index 0 in 62 % of the
    # draws, 4800 above N/2) lies 48σ outside it.
    n_draws = 40_000
    picks = sampler([1e16, 1e16], 1.0, 1.0, rng=7, size=n_draws)
    sigma = math.sqrt(n_draws / 4)
    assert abs(np.sum(picks == 0) - n_draws / 2) <= 6 * sigma


def _exact_positive_integer_or_inf(value):
    return value == math.inf or (isinstance(value, int) and not isinstance(value, bool) and value > 0)


def test_sample_complexities_at_extreme_but_valid_inputs_are_exact():
    # They returned -9223372036854775808 (an int64 overflow) before.
    n = _bounds.generic_learner_sample_complexity(100, 1e-17, 0.1, 0.05)
    assert _exact_positive_integer_or_inf(n)
    # ≈ (2/(αε))·ln(|H|/β)·(constants) ≈ 1e19 > 2^63: it must be the exact Python int, not a wrapped int64.
    assert n > 2 ** 63
    m = _bounds.erm_sample_complexity(1e308, 0.1, 0.05)
    assert _exact_positive_integer_or_inf(m)


def test_clopper_pearson_refuses_more_successes_than_trials():
    with pytest.raises(ValueError, match="successes"):
        _audit.clopper_pearson(11, 10, 0.95)
    with pytest.raises(ValueError, match="trials"):
        _audit.clopper_pearson(0, 0, 0.95)
    with pytest.raises(ValueError, match="confidence"):
        _audit.clopper_pearson(3, 10, 1.5)
    with pytest.raises(ValueError, match="successes"):
        _audit.clopper_pearson(2.5, 10, 0.95)
    low, high = _audit.clopper_pearson(np.array([0, 10]), 10, 0.95)  # valid ends still work
    assert low[0] == 0.0 and high[1] == 1.0


@pytest.mark.parametrize("threshold, same_as", [(-5.0, 0.0), (1.5, 1.0)])
def test_threshold_error_outside_the_unit_interval_is_refused_or_right(threshold, same_as):
    # threshold_error(-5.0, .37) returned 5.37. Either reading is right: refuse a threshold outside
    # [0, 1] (naming it), or answer with the error of the classifier it defines, which on U[0, 1]
    # is that of the nearest end (t = -5 labels every point +1, like t = 0).
    from dpteach.data import local
    try:
        value = local.threshold_error(threshold, 0.37)
    except ValueError as err:
        assert "threshold" in str(err)
        return
    assert value == pytest.approx(local.threshold_error(same_as, 0.37), abs=1e-15)


@pytest.mark.parametrize("threshold", ["0.5", True, None])
def test_threshold_error_refuses_non_numbers(threshold):
    from dpteach.data import local
    with pytest.raises(TypeError, match="threshold"):
        local.threshold_error(threshold, 0.37)


# Every bounds function (and the selection-size helpers) that counts hypotheses or candidates.
HYPOTHESIS_COUNTS = [
    (_bounds.generic_learner_sample_complexity, dict(n_hypotheses=100, epsilon=1.0, alpha=0.1, beta=0.05)),
    (_bounds.generic_learner_failure_bound, dict(n_hypotheses=100, epsilon=1.0, alpha=0.1, n=1000)),
    (_bounds.generic_learner_accuracy, dict(n_hypotheses=100, epsilon=1.0, n=1000, beta=0.05)),
    (_bounds.erm_sample_complexity, dict(n_hypotheses=100, alpha=0.1, beta=0.05)),
    (_bounds.erm_accuracy, dict(n_hypotheses=100, n=1000, beta=0.05)),
    (_bounds.exponential_mechanism_utility_bound, dict(n_candidates=100, sensitivity=1.0, epsilon=1.0)),
    (_bounds.selection_slack, dict(n_candidates=100, n=1000, epsilon=1.0, beta=0.05)),
]


@pytest.mark.parametrize("bad", ["1", True, 0.5, 0, -3, None])
@pytest.mark.parametrize("function, kwargs", HYPOTHESIS_COUNTS, ids=[f.__name__ for f, _ in HYPOTHESIS_COUNTS])
def test_bounds_refuse_non_integer_hypothesis_counts(function, kwargs, bad):
    name = next(k for k in kwargs if k.startswith("n_"))
    function(**kwargs)  # the valid call works
    with pytest.raises((ValueError, TypeError), match=name):
        function(**{**kwargs, name: bad})


def test_advanced_composition_at_extreme_epsilon_answers():
    # e^ε overflows beyond ε ≈ 709: the bound is then vacuous (inf), not an OverflowError.
    eps_total, delta_total = _composition.advanced_composition(1e308, 0.0, 10, 1e-5)
    assert eps_total == math.inf and delta_total == pytest.approx(1e-5)
    per_step = _composition.advanced_composition_epsilon_per_step(1e308, 10, 1e-5)
    # Basic composition then wins: ε_total/k, rounded down so that k steps never overspend.
    assert 0 < per_step <= 1e307 and 10 * per_step <= 1e308
    tiny = _composition.advanced_composition_epsilon_per_step(1e-300, 10, 1e-5)
    assert tiny > 0  # no underflow to 0, and neither of the two bounds it may use overspends
    assert 10 * tiny <= 1e-300 or _composition.advanced_composition(tiny, 0.0, 10, 1e-5)[0] <= 1e-300


@pytest.mark.parametrize("epsilon", [1e308, 1e-300])
def test_gaussian_mechanism_at_extreme_epsilon_answers_or_names_the_limit(epsilon):
    try:
        sigma = _mechanisms.gaussian_sigma(1.0, epsilon, 1e-5)
    except ValueError as err:  # a named limit is acceptable; an OverflowError or a brentq sign error is not
        assert "epsilon" in str(err)
        return
    assert math.isfinite(sigma) and sigma > 0
    assert _mechanisms.gaussian_delta(sigma, 1.0, epsilon) <= 1e-5
    noisy = _mechanisms.gaussian_mechanism(np.zeros(3), 1.0, epsilon, 1e-5, rng=0)
    assert np.all(np.isfinite(noisy))


def test_group_size_at_tiny_epsilon_answers_or_names_the_limit():
    try:
        m = group_sizes.group_size(1e-300, 0.1, 0.05)
    except ValueError as err:
        assert "epsilon" in str(err)
        return
    assert m == math.inf or (isinstance(m, int) and m > 0)


BAD_REPETITIONS = [(0, "0"), (-1, "-1"), (None, "None"), (1.5, "1.5")]


def _runner_cases():
    """(key, parameter, bad value) for every runner with repetitions or sizes in its example call.

    A repetition count gets one of ``BAD_REPETITIONS``, rotated as the fuzz's (``sample_bad_values``: each of
    them still reaches some runner); a size gets a fractional value.
    """
    runners = sorted(k for k in EXAMPLES if k.startswith("dpteach.experiments.") and k in CALLABLES)
    repetitions = sample_bad_values([((key, name), "repetitions", BAD_REPETITIONS) for key in runners
                                     for name in ("n_reps", "n_seeds", "n_datasets", "n_trials")
                                     if name in EXAMPLES[key].kwargs])
    cases = []
    for key in runners:
        kwargs = EXAMPLES[key].kwargs
        for name in ("n_reps", "n_seeds", "n_datasets", "n_trials"):
            if name in kwargs:
                for bad, _ in repetitions[(key, name)]:
                    cases.append(pytest.param(key, name, bad, id=f"{key}-{name}={bad!r}"))
        for name in ("n", "ns", "n_values", "n_grid", "d", "ds", "d_values", "dimensions"):
            if name in kwargs:
                value = kwargs[name]
                bad = [value[0] + 0.5] if isinstance(value, list) else value + 0.5
                # A shape function evaluated along a continuous axis may document fractional n as valid.
                reason = EXAMPLES[key].exempt.get((name, "fractional"))
                marks = [pytest.mark.skip(reason=f"exempt: {reason}")] if reason else []
                cases.append(pytest.param(key, name, bad, marks=marks, id=f"{key}-{name}={bad!r}"))
    return cases


# A sweep's entries may be checked one by one under the singular name ("n must be an integer, got 200.5").
SINGULAR = {"ns": "n", "n_values": "n", "n_grid": "n", "ds": "d", "d_values": "d", "dimensions": "d"}


@pytest.mark.parametrize("key, name, bad", _runner_cases())
def test_runners_refuse_bad_repetitions_and_fractional_sizes(key, name, bad):
    call_kwargs = {**copy.deepcopy(EXAMPLES[key].kwargs), name: bad}
    named = rf"\b({name}|{SINGULAR.get(name, name)})\b must"
    with pytest.raises((ValueError, TypeError), match=named):
        run_example(key, call_kwargs)


# --- chapter 3 cases of item 15 ----------------------------------------------------------------

def test_rejection_sampling_queries_refuses_nan_tolerance():
    from dpteach import bounds
    with pytest.raises(ValueError, match="tau"):
        bounds.rejection_sampling_queries(1.0, tau=math.nan)


@pytest.mark.parametrize("d", [-1, 0, 2.5, True])
def test_masked_parity_lower_bound_refuses_bad_dimensions(d):
    from dpteach import bounds
    with pytest.raises((ValueError, TypeError), match="d"):
        bounds.masked_parity_lower_bound_shape(d, 1.0)


def test_simulate_sq_locally_refuses_a_size_whose_cost_is_known_to_be_too_large():
    # d = 10^18 coordinates means 10^18 queries: refused up front (a named limit), never run.
    from dpteach import local
    users = EXAMPLES["dpteach.local.simulate_sq_locally"].kwargs["data"]
    with pytest.raises(ValueError, match="d"), _CPUTimeLimit(5):
        local.simulate_sq_locally(sq_algorithms.sq_mean, users, 1.0, 0.05, rule="clt", rng=0, d=10 ** 18, tau=0.5)

