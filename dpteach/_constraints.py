"""Parameter contracts as data: declared constraints and the one decorator that checks them (issue 23).

This module holds the protocol, the scalar rules, the relations and the decorator; the rules for arrays,
sequences and callables (``Array``, ``Labels``, ``Sweep``, ``Callable``, ...) are in :mod:`dpteach._array_constraints`.

scikit-learn's shape (``sklearn/utils/_param_validation.py``), dpteach's wording and no
scikit-learn dependency. A public routine declares what each parameter may be::

    @validate_params({"epsilon": Epsilon(), "tau": FiniteInterval(Real, 0, 1, closed="neither"),
                      "rule": Options(("theorem", "slide")), "rng": "random_state"})
    def group_size(epsilon, tau, rule="theorem", rng=None):
        ...the algorithm only...

- Each constraint checks through the helper of :mod:`dpteach._validation` that states the same
  rule, so a bad argument gets the very same message as before (parameter, value, valid range),
  and returns the *converted* value (``float(epsilon)``, ``as_rng(rng)``), which the decorator
  passes to the body: the body reads the same values as when it converted them itself.
- The full checks run at the **outermost** decorated call. A call made while another decorated routine
  is running (nested) skips only what its constraint allows (``Constraint.skip_nested``): the **array
  scans** (a data set, labels, a sweep: its caller already checked what it passes on; scikit-learn's
  ``prefer_skip_nested_validation=True``). The **scalar privacy preconditions** (ε, δ, a sensitivity, a σ,
  a size, an option) are checked on *every* call, nested ones too, because a nested value is often
  *derived* (2C, δ/(2E), a computed sensitivity) and nothing upstream checked it: a mechanism's theorem
  holds only under them (wave-4 review, architecture F2). Nested, they cost a type test and a comparison
  (``Constraint.nested``); only a value that fails it goes through the full check, for the message. So
  does the value a mechanism releases (``Array(skip_nested=False)``: its scan is no more work than the
  noise added to it). The conversions a body relies on (``float``, ``int``, a Generator, a float
  ndarray) run on every call, and no nested call binds the signature (positions are found once, at
  decoration). A routine that runs *user code* (an audit
  running a student's mechanism, a lab checker) declares ``skip_nested=False``: called from the top,
  it checks its own arguments and the routines that the user code calls check theirs. (As in
  scikit-learn, a call nested in a skipping routine stays skipped: that routine vouches for the
  code it runs.)
- The constraints are data on the function, ``func.__dpteach_constraints__`` (a dict name →
  constraint), and every constraint lists bad values (:func:`generate_invalid_values`), from which
  the fuzz (tests/test_api_fuzz.py) derives its bad calls.
- Rules between parameters are data too (``relations=[SameLength("X", "y"), AtMost("batch_size", "X")]``,
  ``func.__dpteach_relations__``), checked at the outermost call after every parameter passed its own;
  a nested call skips those that only scan arrays (``Relation.skip_nested``).

Nothing here changes a computation: validation only refuses or converts, as the inline checks did.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import math
from numbers import Integral, Real

import numpy as np

from . import _validation as V

__all__ = ["Constraint", "FiniteInterval", "Epsilon", "Delta", "Options", "Check", "OrNone",
           "RandomState", "Count", "Unchecked",
           "Relation", "SameLength", "AtMost", "validate_params", "validation_skipped", "generate_invalid_values",
           "constraints_of", "fit_context", "check_fields", "POSITIVE_INT", "POSITIVE", "OPEN_UNIT"]

# True while a decorated routine (that skips nested validation) is running.
_NESTED = contextvars.ContextVar("dpteach_validating", default=False)


class Constraint:
    """One parameter's rule: ``validate(value, name)`` returns the converted value or raises naming ``name``."""

    def validate(self, value, name):  # pragma: no cover - abstract
        raise NotImplementedError

    def invalid_values(self):
        """(value, label) pairs that this constraint must refuse (for the fuzz)."""
        return []

    # A conversion the body relies on even when the checks are skipped (None: pass the value as given).
    convert_nested = None
    # Whether a nested call may skip the check (array scans); False: checked on every call (scalar preconditions).
    skip_nested = True

    def nested(self, value, name):
        """What a nested call does with ``value``: convert only (``skip_nested``), else the cheap check."""
        return value if self.convert_nested is None else self.convert_nested(value)

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k != "convert_nested")
        return f"{type(self).__name__}({fields})"


NOT_A_NUMBER = [("1", "'1'"), (True, "True"), (None, "None")]
_REAL_SCALARS = (float, int, np.floating, np.integer)
_INTEGERS = (int, np.integer)
#: Subnormal floats, which ε and δ refuse (their noise scales overflow): the fuzz tries both.
SUBNORMAL = [(1e-310, "1e-310"), (5e-324, "5e-324")]


class _Scalar(Constraint):
    """A scalar rule: checked on every call. Nested, a Python float (or int) that ``_holds`` passes with one
    comparison; anything else (another type, a value out of range) takes the full ``validate``, for its message."""

    skip_nested = False

    def _holds(self, x):  # pragma: no cover - abstract
        raise NotImplementedError

    def nested(self, value, name):
        if isinstance(value, _REAL_SCALARS) and not isinstance(value, bool) and abs(value) <= 1.8e308:
            x = float(value)
            if self._holds(x):
                return x
        return self.validate(value, name)


class Epsilon(_Scalar):
    """A privacy parameter 0 < ε < inf, not subnormal (``allow_inf``: also ε = inf, the non-private reference)."""

    convert_nested = staticmethod(float)

    def __init__(self, allow_inf=False):
        self.allow_inf = allow_inf

    def validate(self, value, name):
        return V.check_epsilon(value, name, allow_inf=self.allow_inf)

    def _holds(self, x):
        return V.SMALLEST_NORMAL <= x < math.inf or (self.allow_inf and x == math.inf)

    def invalid_values(self):
        bad = [(0, "0"), (-1, "-1"), (math.nan, "nan")] + NOT_A_NUMBER + SUBNORMAL
        return bad if self.allow_inf else bad + [(math.inf, "inf")]


class Delta(_Scalar):
    """0 <= δ < 1 (``allow_zero=False``: 0 < δ < 1), δ not subnormal."""

    convert_nested = staticmethod(float)

    def __init__(self, allow_zero=True):
        self.allow_zero = allow_zero

    def validate(self, value, name):
        return V.check_delta(value, name, allow_zero=self.allow_zero)

    def _holds(self, x):
        return V.SMALLEST_NORMAL <= x < 1 or (self.allow_zero and x == 0)

    def invalid_values(self):
        bad = [(-0.1, "-0.1"), (1, "1"), (1.5, "1.5"), (math.nan, "nan")] + NOT_A_NUMBER + SUBNORMAL
        return bad if self.allow_zero else bad + [(0, "0")]


class FiniteInterval(_Scalar):
    """A real (``Real``) or integer (``Integral``) number in an interval; ``None`` ends are unbounded.

    Named for what it is (architecture review F5): unlike scikit-learn's ``Interval``, a real interval is always
    *finite*: ±inf is refused even at an unbounded end (a noise scale, a sensitivity or a radius of inf has no
    meaning here), and the fuzz tries it.

    ``closed`` is "neither", "left", "right" or "both", as in scikit-learn. The common shapes check
    through the helper that words them today: (0, inf) and [0, inf) ``check_positive``,
    (0, 1) … [0, 1] ``check_probability``, (-inf, inf) ``check_finite_scalar``, integers ``check_int``.
    ``normal=True`` also refuses a subnormal value (``check_normal_double``): for a parameter whose
    log, inverse or Φ⁻¹ overflows there (η, κ of DPSAS).
    """

    def __init__(self, kind, left, right, closed="neither", normal=False):
        if kind not in (Real, Integral) or closed not in ("neither", "left", "right", "both"):
            raise ValueError(f"FiniteInterval(kind, left, right, closed): kind Real or Integral, got {kind!r}, {closed!r}")
        self.kind, self.left, self.right, self.closed, self.normal = kind, left, right, closed, normal
        self.convert_nested = int if kind is Integral else float

    def _check_real(self, value, name):
        x = self._check_range(value, name)
        if self.normal:
            left_closed, right_closed = self.closed in ("left", "both"), self.closed in ("right", "both")
            low = "-inf" if self.left is None else repr(self.left)
            high = "inf" if self.right is None else repr(self.right)
            V.check_normal_double(x, name, f"{'[' if left_closed else '('}{low}, {high}{']' if right_closed else ')'}"
                                           f", not subnormal")
        return x

    def _check_range(self, value, name):
        left_closed, right_closed = self.closed in ("left", "both"), self.closed in ("right", "both")
        if self.left == 0 and self.right is None:
            return V.check_positive(value, name, allow_zero=left_closed)
        if self.left == 0 and self.right == 1:
            return V.check_probability(value, name, low_open=not left_closed, high_open=not right_closed)
        x = V.check_finite_scalar(value, name)
        low_ok = self.left is None or (x >= self.left if left_closed else x > self.left)
        high_ok = self.right is None or (x <= self.right if right_closed else x < self.right)
        if not (low_ok and high_ok):
            low = "-inf" if self.left is None else repr(self.left)
            high = "inf" if self.right is None else repr(self.right)
            interval = f"{'[' if left_closed else '('}{low}, {high}{']' if right_closed else ')'}"
            raise ValueError(f"{name} must lie in {interval}, got {value!r}")
        return x

    def validate(self, value, name):
        if self.kind is Integral:
            low = None if self.left is None else self.left + (self.closed not in ("left", "both"))
            high = None if self.right is None else self.right - (self.closed not in ("right", "both"))
            return V.check_int(value, name, minimum=low, maximum=high)
        return self._check_real(value, name)

    def _holds(self, x):
        left_closed, right_closed = self.closed in ("left", "both"), self.closed in ("right", "both")
        return (math.isfinite(x) and (not self.normal or not 0 < abs(x) < V.SMALLEST_NORMAL)
                and (self.left is None or (x >= self.left if left_closed else x > self.left))
                and (self.right is None or (x <= self.right if right_closed else x < self.right)))

    def nested(self, value, name):
        if self.kind is Integral:  # an int in range passes as it is; a float (even 3.0) takes check_int's message
            if isinstance(value, _INTEGERS) and not isinstance(value, bool) and self._holds_int(value):
                return int(value)
            return self.validate(value, name)
        return super().nested(value, name)

    def _holds_int(self, v):
        low = None if self.left is None else self.left + (self.closed not in ("left", "both"))
        high = None if self.right is None else self.right - (self.closed not in ("right", "both"))
        return (low is None or v >= low) and (high is None or v <= high)

    def invalid_values(self):
        bad = list(NOT_A_NUMBER)
        if self.kind is Integral:
            bad.append((2.5, "2.5"))
        else:
            bad.append((math.nan, "nan"))
        if self.left is not None:
            below = self.left - 1 if self.closed in ("left", "both") else self.left
            bad.append((below, repr(below)))
        if self.right is not None:
            above = self.right + 1 if self.closed in ("right", "both") else self.right
            bad.append((above, repr(above)))
        # finite, bounded or not (architecture review F5), an integer one too: the fuzz tries ±inf
        bad.append((math.inf, "inf"))
        if self.left is None:
            bad.append((-math.inf, "-inf"))
        return bad + (SUBNORMAL if self.normal else [])


class Count(Constraint):
    """A whole number >= ``minimum`` (<= ``maximum``); a whole float such as ``1e4`` is accepted (``check_size``)."""

    convert_nested = staticmethod(int)
    skip_nested = False

    def nested(self, value, name):
        if (isinstance(value, _INTEGERS) and not isinstance(value, bool) and value >= self.minimum
                and (self.maximum is None or value <= self.maximum)):
            return int(value)
        return self.validate(value, name)

    def __init__(self, minimum=1, maximum=None):
        self.minimum, self.maximum = minimum, maximum

    def validate(self, value, name):
        return V.check_size(value, name, minimum=self.minimum, maximum=self.maximum)

    def invalid_values(self):
        above = [] if self.maximum is None else [(self.maximum + 1, repr(self.maximum + 1))]
        return [(2.5, "2.5"), (self.minimum - 1, repr(self.minimum - 1))] + above + NOT_A_NUMBER


class Options(Constraint):
    """One of a fixed tuple of values (``check_choice``; the message lists them in this order)."""

    skip_nested = False

    def __init__(self, options):
        self.options = tuple(options)

    def validate(self, value, name):
        return V.check_choice(value, name, self.options)

    def nested(self, value, name):
        if isinstance(value, str) and value in self.options:
            return value
        return self.validate(value, name)

    def invalid_values(self):
        return [("no-such-option", "'no-such-option'")]


class RandomState(Constraint):
    """None, an int seed >= 0, a SeedSequence or a Generator, returned as a Generator (``as_rng``).

    Nested, the value is not checked but still made a Generator (``numpy.random.default_rng``, which
    returns a Generator unchanged and seeds from an int exactly as ``as_rng`` does): a caller may pass
    on its own default seed (``rng=0``) and the body draws from ``rng`` directly.
    """

    convert_nested = staticmethod(np.random.default_rng)

    def validate(self, value, name):
        return V.as_rng(value, name)

    def invalid_values(self):
        return [(True, "True"), (-1, "-1"), (1.5, "1.5"), ("seed", "'seed'")]


class Check(Constraint):
    """Any checker ``func(value, name, *args, **kwargs) -> converted value`` of :mod:`dpteach._validation`.

    The escape for a rule no class above spells (a dtype kept, +inf allowed, a record type of one module);
    each use says why in a comment. ``invalid`` lists the bad values the fuzz should try, ``convert_nested``
    the conversion (no check) that the body still needs when the check is skipped, ``array_ndim`` the
    allowed dimensions of an array.
    """

    def __init__(self, func, *args, invalid=(), convert_nested=None, array_ndim=False, **kwargs):
        self.func, self.args, self.kwargs, self.invalid = func, args, kwargs, list(invalid)
        self.convert_nested = convert_nested
        # For an array checked here (a sweep: ``array_ndim=(0, 1)``; ``None``: any shape), the fuzz also tries
        # an empty array, a NaN, a wrong dimension and non-numeric entries; False: not an array.
        self.array_ndim = array_ndim

    def validate(self, value, name):
        return self.func(value, name, *self.args, **self.kwargs)

    def invalid_values(self):
        return list(self.invalid)

    def __repr__(self):
        return f"Check({self.func.__name__})"


class OrNone(Constraint):
    """``None`` (passed through) or a value that ``inner`` accepts."""

    def __init__(self, inner):
        self.inner = _as_constraint(inner)
        self.skip_nested = self.inner.skip_nested
        if self.inner.convert_nested is not None:
            convert = self.inner.convert_nested
            self.convert_nested = lambda value: None if value is None else convert(value)

    def validate(self, value, name):
        return None if value is None else self.inner.validate(value, name)

    def nested(self, value, name):
        return None if value is None else self.inner.nested(value, name)

    def invalid_values(self):
        return [(v, label) for v, label in self.inner.invalid_values() if v is not None]


class Unchecked(Constraint):
    """A parameter taken as given, with the reason it has no rule (scikit-learn's ``"no_validation"``).

    For what dpteach cannot check by value: a callable the routine runs (a student's mechanism, a
    loss), an object of another library (a matplotlib axis), a record the code itself filled in.
    Declaring it still says, next to the routine, that the parameter was considered.
    """

    def __init__(self, reason):
        if not isinstance(reason, str) or not reason.strip():
            raise TypeError(f"Unchecked(reason): give the reason as a sentence, got {reason!r}")
        self.reason = reason

    def validate(self, value, name):
        return value


class Relation:
    """A rule between parameters, declared next to their constraints (``validate_params(..., relations=[...])``).

    Checked at the outermost call, after every parameter passed its own constraint (so it reads converted values);
    a nested call skips it (``skip_nested``) unless it guards a privacy precondition. ``check(value_of)`` reads a
    parameter's value with ``value_of(name)``.
    """

    skip_nested = True
    names = ()

    def check(self, value_of):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}{self.names!r}"


class SameLength(Relation):
    """Two arrays with the same number of rows (``check_same_length``): the samples X and their labels y, or
    two vectors of one dimension (``what``: what the rows are, for the message)."""

    def __init__(self, first="X", second="y", what="number of samples"):
        self.names, self.what = (first, second), what

    def check(self, value_of):
        first, second = self.names
        V.check_same_length(value_of(first), value_of(second), first, second, self.what)


class AtMost(Relation):
    """A size at most the number of rows of an array (a batch of at most n = len(X) records): ``check_int``.

    ``None`` (a default derived in the body) passes. Checked on nested calls too: a batch larger than n would
    be sampled at a rate above 1, where the accountant's claim does not hold.
    """

    skip_nested = False

    def __init__(self, size, rows_of, minimum=1):
        self.names, self.minimum = (size, rows_of), minimum

    def check(self, value_of):
        size, rows_of = self.names
        value = value_of(size)
        if value is not None:
            V.check_int(value, size, minimum=self.minimum, maximum=len(value_of(rows_of)))


# The shapes most contracts use, named once.
POSITIVE_INT = FiniteInterval(Integral, 1, None, closed="left")
"""An integer >= 1 (a count, a degree, a dimension): ``check_int(value, name, minimum=1)``."""
POSITIVE = FiniteInterval(Real, 0, None)
"""A finite real > 0 (a sensitivity, a radius): ``check_positive``."""
OPEN_UNIT = FiniteInterval(Real, 0, 1)
"""A real in (0, 1) (an accuracy α, a failure probability β, a tolerance τ): ``check_probability``."""


def _as_constraint(spec):
    if isinstance(spec, Constraint):
        return spec
    if spec == "random_state":
        return RandomState()
    raise TypeError(f"a constraint must be a Constraint or 'random_state', got {spec!r}")


def generate_invalid_values(constraint):
    """The (value, label) pairs ``constraint`` must refuse (scikit-learn's ``generate_invalid_param_val``)."""
    return _as_constraint(constraint).invalid_values()


def constraints_of(func):
    """The declared {name: Constraint} of a routine, or None.

    For a class: a learner's hyperparameters (its ``_parameter_constraints``, checked by
    :func:`fit_context` at the top of ``fit``), else those its ``__init__`` declares. A learner's
    ``fit`` arguments are ``constraints_of(cls.fit)``.
    """
    if inspect.isclass(func):
        declared = vars(func).get("_parameter_constraints")
        if declared is None:
            declared = next((vars(base)["_parameter_constraints"] for base in func.__mro__[1:]
                             if "_parameter_constraints" in vars(base)), None)
        if declared is not None:
            return {name: _as_constraint(spec) for name, spec in declared.items()}
        return getattr(func.__init__, "__dpteach_constraints__", None)
    return getattr(func, "__dpteach_constraints__", None)


def validation_skipped():
    """Whether a call made now skips its checks (a decorated routine further up the stack checked them)."""
    return _NESTED.get()


def check_fields(record):
    """Check a dataclass record's fields against its class's ``_parameter_constraints`` (call it in ``__post_init__``).

    Each field is replaced by its converted value (a frozen record too); nested, only what a nested call checks.
    """
    nested = _NESTED.get()
    for name, constraint in (constraints_of(type(record)) or {}).items():
        if nested and constraint.skip_nested:
            continue  # an array field built inside a checked routine: left as it is, as before
        check = constraint.nested if nested else constraint.validate
        object.__setattr__(record, name, check(getattr(record, name), name))


def fit_context(fit=None, /, constraints=None, relations=()):
    """Run a learner's ``fit`` as the outermost validated call (scikit-learn's ``@_fit_context``).

    Hyperparameters are stored unchecked by ``__init__`` (scikit-learn's convention, so ``clone``
    gets the very same objects back). At the top of an outermost ``fit``, each one the class
    declares in ``_parameter_constraints`` ({name: Constraint}, scikit-learn's attribute) is checked
    (the stored value is left as it is: the body converts what it reads, ``float(self.epsilon)``);
    then ``fit``'s own arguments, when ``constraints`` declares them (``@fit_context({"X": ...})``),
    as :func:`validate_params` does, then the ``relations`` between them and the hyperparameters
    (``SameLength("X", "y")``, ``AtMost("batch_size", "X")``). The routines ``fit`` then calls skip their checks.
    """
    if isinstance(fit, dict):  # used as @fit_context({...})
        fit, constraints = None, fit

    def decorate(fit):
        validated = validate_params(constraints or {}, relations=relations)(fit)

        @functools.wraps(fit)
        def wrapper(self, *args, **kwargs):
            nested = _NESTED.get()
            for name, constraint in (constraints_of(type(self)) or {}).items():
                if not nested:
                    constraint.validate(getattr(self, name), name)
                elif not constraint.skip_nested:  # a fit nested in another routine: the scalar preconditions
                    constraint.nested(getattr(self, name), name)
            return validated(self, *args, **kwargs)

        wrapper.__dpteach_constraints__ = validated.__dpteach_constraints__
        wrapper.__dpteach_relations__ = validated.__dpteach_relations__
        wrapper.__dpteach_skip_nested__ = True
        return wrapper

    return decorate if fit is None else decorate(fit)


def validate_params(constraints, *, skip_nested=True, relations=()):
    """Decorate a routine with its declared ``constraints`` ({parameter name: Constraint}) and ``relations``.

    On the outermost call every declared parameter (defaults included) is checked in the order
    declared and replaced by its converted value, then every :class:`Relation` between them
    (``SameLength("X", "y")``); the body then runs with nested decorated calls
    skipping their array checks (``Constraint.skip_nested``; scalar preconditions are checked on every
    call). ``skip_nested=False`` (routines that call user code) leaves all nested checks on in the body.
    A relation may name a learner's hyperparameter (read from ``self``) when ``fit`` declares it.
    """
    declared = {name: _as_constraint(spec) for name, spec in constraints.items()}
    relations = tuple(relations)
    nested_relations = tuple(r for r in relations if not r.skip_nested)

    def decorate(func):
        signature = inspect.signature(func)
        is_method = next(iter(signature.parameters), None) == "self"
        unknown = set(declared) - set(signature.parameters)
        if not is_method:  # a method's relation may name a hyperparameter (an attribute of self)
            unknown |= {name for relation in relations for name in relation.names} - set(signature.parameters)
        if unknown:
            raise TypeError(f"{func.__qualname__}: constraints for unknown parameter(s) {sorted(unknown)}")
        # What a nested call does, found once: (name, position or None, default, constraint) for every parameter
        # whose constraint converts or checks when nested. A nested call then reads its arguments by position
        # or keyword, without binding the signature (architecture review F3).
        parameters = list(signature.parameters.values())
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        plan = []
        for index, parameter in enumerate(parameters):
            constraint = declared.get(parameter.name)
            if constraint is None or (constraint.skip_nested and constraint.convert_nested is None):
                continue
            before = parameters[:index]
            position = (index if parameter.kind in positional
                        and all(p.kind in positional for p in before) else None)
            plan.append((parameter.name, position, parameter.default, constraint))

        def value_of(arguments):
            return lambda name: arguments[name] if name in arguments else getattr(arguments["self"], name)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if _NESTED.get():  # a decorated caller checked its arrays; scalar preconditions still hold here
                if nested_relations:  # rare (a fit nested in a routine): the binding a privacy precondition needs
                    try:
                        bound = signature.bind(*args, **kwargs)
                    except TypeError:
                        return func(*args, **kwargs)
                    bound.apply_defaults()
                    for relation in nested_relations:
                        relation.check(value_of(bound.arguments))
                if not plan:
                    return func(*args, **kwargs)
                args = list(args)
                for name, position, default, constraint in plan:
                    if name in kwargs:
                        kwargs[name] = constraint.nested(kwargs[name], name)
                    elif position is not None and position < len(args):
                        args[position] = constraint.nested(args[position], name)
                    elif default is not inspect.Parameter.empty:
                        kwargs[name] = constraint.nested(default, name)
                    # a missing argument: the call below raises Python's own TypeError
                return func(*args, **kwargs)
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:  # a missing or unexpected argument: Python's own message, naming the function
                return func(*args, **kwargs)
            bound.apply_defaults()
            arguments = bound.arguments
            for name, constraint in declared.items():
                arguments[name] = constraint.validate(arguments[name], name)
            for relation in relations:
                relation.check(value_of(arguments))
            token = _NESTED.set(skip_nested)
            try:
                return func(*bound.args, **bound.kwargs)
            finally:
                _NESTED.reset(token)

        wrapper.__dpteach_constraints__ = declared
        wrapper.__dpteach_relations__ = relations
        wrapper.__dpteach_skip_nested__ = skip_nested
        return wrapper

    return decorate
