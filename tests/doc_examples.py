"""Valid example calls read from the docstrings (issue 23): the fuzz's examples are the reader's examples.

Every public callable shows one call in its docstring's ``Examples`` section, run as a doctest
(tests/test_doctests.py). :func:`doc_example` runs the lines before that call in the namespace of the
callable's module, finds the first call of the callable (a learner: its constructor, then the first
``.fit(...)``), evaluates its arguments and returns them as an :class:`Example`, so the fuzz
(tests/test_api_fuzz.py, tests/test_size_limits.py) derives its bad calls from a call a reader can see. Which arguments are arrays, and of what
dimension, comes from the declared constraints (``Array(ndim=...)``, ``Labels()``); a learner's ``fit(X, y)``
takes a 2-D X and 1-D labels y unless its ``fit`` declares otherwise.

An example that needs an optional library (appendix A's OpenDP and diffprivlib) and cannot import it is
returned with ``missing`` set to the reason, and the fuzz skips its calls with that reason.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import inspect
import math
from dataclasses import dataclass, field

import numpy as np

from dpteach._constraints import OrNone, constraints_of, generate_invalid_values
from dpteach._array_constraints import Array, Labels


@dataclass
class Example:
    """One valid call of a public callable, read from its docstring.

    - ``kwargs``: the call's arguments by name (a learner: its constructor's), ``fit``: a learner's fit arguments;
    - ``arrays``: the array arguments and their allowed dimensions (from the declared constraints), for which the
      fuzz also tries empty, NaN, wrong-dimension and non-numeric arrays;
    - ``accepts``: (parameter, label) of a value the constraint documents as valid although the fuzz's usual lists
      hold it (ε = inf, the non-private reference): the call must then work;
    - ``exempt``: (parameter, label) → reason, for a documented answer (:data:`DOCUMENTED`);
    - ``missing``: why the example cannot run here (an optional library), or None.
    """

    kwargs: dict
    arrays: dict = field(default_factory=dict)
    fit: dict | None = None
    accepts: dict = field(default_factory=dict)
    exempt: dict = field(default_factory=dict)
    args: tuple = ()
    missing: str | None = None


#: Documented answers at a value the fuzz tries, each with the docstring's reason: (callable, parameter, label).
#: Labels: "1e-300" / "1e300" (extreme but valid ε), "fractional" (a non-integer n in a runner's sweep).
POINT_MASS = ("documented: at ε = 1e300 the law is a point mass and its goodness-of-fit row is NaN "
              "(nothing to test)")
DOCUMENTED = {
    ("dpteach.experiments.dpsas.samples_needed_vs_d", "epsilon", "1e-300"):
        "documented: NaN when no n of the grid reaches the target error",
    ("dpteach.experiments.table1_rates.excess_error_shape", "ns", "fractional"):
        "a shape evaluated along a continuous n axis (the chapter draws it on a geometric grid): n = 1000.5 is a "
        "valid point of the curve, not a sample size",
    ("dpteach.experiments.production.laplace_count_rows", "epsilon", "1e300"): POINT_MASS,
    ("dpteach.experiments.production.exponential_mechanism_rows", "epsilon", "1e300"): POINT_MASS,
    ("dpteach.experiments.basics.plug_in_log_ratios", "epsilon", "1e300"):
        "documented: a threshold with fewer than min_count runs above it gets NaN (at ε = 1e300 the Laplace "
        "outputs are point masses)",
}

_PARSER = doctest.DocTestParser()


def _calls(tree):
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def _is_call_of(node, name):
    func = node.func
    return (isinstance(func, ast.Name) and func.id == name) or (isinstance(func, ast.Attribute) and func.attr == name)


def _evaluate(node, globs):
    return eval(compile(ast.Expression(node), "<docstring example>", "eval"), globs)  # noqa: S307 - our own docstrings


def _arguments(call, globs, signature, bind_self=False):
    """The call's arguments as {parameter name: value} (positional ones named through the signature)."""
    args = [_evaluate(a, globs) for a in call.args]
    kwargs = {k.arg: _evaluate(k.value, globs) for k in call.keywords}
    bound = signature.bind(*([None] if bind_self else []), *args, **kwargs)
    arguments = dict(bound.arguments)
    for parameter in signature.parameters.values():  # **kwargs passed on (an algorithm's): by their own names
        if parameter.kind is parameter.VAR_KEYWORD:
            arguments.update(arguments.pop(parameter.name, {}))
    if bind_self:
        arguments.pop(next(iter(signature.parameters)))
    return arguments


def _array_ndim(constraint):
    if isinstance(constraint, OrNone):
        constraint = constraint.inner
    if isinstance(constraint, Labels):
        return 1
    if isinstance(constraint, Array):
        return constraint.ndim
    return getattr(constraint, "array_ndim", False)  # a Check of an array (a sweep) says its dimensions


def array_marks(constraints):
    """{name: allowed ndim (an int, a tuple or None for any)} of the array parameters among ``constraints``."""
    marks = {}
    for name, constraint in (constraints or {}).items():
        ndim = _array_ndim(constraint)
        if ndim is not False:
            marks[name] = ndim
    return marks


def _missing(err):
    return (f"the docstring example needs an optional library that is not installed (appendix A; "
            f"pip install -r requirements.txt): {err}")


def doc_example(obj):
    """The :class:`Example` the docstring of ``obj`` shows (its first call of ``obj``), or None if it shows none."""
    examples = _PARSER.get_examples(inspect.getdoc(obj) or "")
    if not examples:
        return None
    name = obj.__name__
    is_class = inspect.isclass(obj)
    globs = dict(vars(importlib.import_module(obj.__module__)))
    globs.setdefault("np", np)
    kwargs = fit = None
    for example in examples:
        tree = ast.parse(example.source)
        if kwargs is None:
            found = [c for c in _calls(tree) if _is_call_of(c, name)]
        else:
            found = []
        fits = [c for c in _calls(tree) if _is_call_of(c, "fit")] if is_class else []
        try:
            if found and is_class and issubclass(obj, BaseException):  # an exception: its message, positional
                return Example({}, args=tuple(_evaluate(a, globs) for a in found[-1].args))
            if found:
                kwargs = _arguments(found[-1], globs, inspect.signature(obj))
            if kwargs is not None and fits and fit is None:
                fit = _arguments(fits[0], globs, inspect.signature(obj.fit), bind_self=True)
        except ImportError as err:
            return _with_missing(Example({}), _missing(err))
        if kwargs is not None and (not is_class or not hasattr(obj, "fit") or fit is not None):
            break
        try:
            exec(compile(tree, "<docstring example>", "exec"), globs)  # noqa: S102 - our own docstrings
        except ImportError as err:
            return _with_missing(Example({}), _missing(err))
    if kwargs is None:
        return None
    arrays = array_marks(constraints_of(obj))
    if fit is not None:
        fit_arrays = array_marks(constraints_of(obj.fit)) or {k: v for k, v in (("X", 2), ("y", 1)) if k in fit}
        overlap = set(arrays) & set(fit_arrays)
        assert not overlap, f"{name}: {overlap} both a constructor and a fit argument"
        arrays.update(fit_arrays)
    return _with_missing(Example(kwargs, arrays={k: v for k, v in arrays.items() if k in kwargs or k in (fit or {})},
                                 fit=fit), None)


def _with_missing(example, reason):
    example.missing = reason
    return example


def documented_values(constraints):
    """{(name, "inf"): reason} for an ε whose declared constraint accepts inf (the non-private reference path)."""
    accepts = {}
    for name, constraint in (constraints or {}).items():
        if name.startswith("epsilon") and not any(_is_plus_inf(v) for v, _ in generate_invalid_values(constraint)):
            accepts[(name, "inf")] = "the declared constraint accepts ε = inf: the documented non-private reference"
    return accepts


def _is_plus_inf(value):
    """inf, or a sweep holding inf (a constraint that lists it as bad refuses ε = inf)."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return any(_is_plus_inf(v) for v in np.ravel(np.asarray(value, dtype=object)))
    return isinstance(value, (float, np.floating)) and math.isinf(value) and value > 0


def examples_of(callables):
    """{key: Example} of every callable whose docstring shows a call of it; DOCUMENTED answers attached."""
    found = {}
    for key, obj in callables.items():
        example = doc_example(obj)
        if example is None:
            continue
        example.exempt = {(name, label): why for (k, name, label), why in DOCUMENTED.items() if k == key}
        given = set(example.kwargs) | set(example.fit or {})
        example.accepts = {k: v for k, v in documented_values(constraints_of(obj)).items() if k[0] in given}
        found[key] = example
    return found
