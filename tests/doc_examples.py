"""Valid example calls read from the docstrings (issue 23): the fuzz's examples are the reader's examples.

Every public callable shows one call in its docstring's ``Examples`` section, run as a doctest
(tests/test_doctests.py). :func:`doc_example` runs the lines before that call in the namespace of the
callable's module, finds the first call of the callable (a learner: its constructor, then the first
``.fit(...)``), evaluates its arguments and returns them as an :class:`Example` of tests/fuzz_examples.py,
so the fuzz derives its bad calls from a call a reader can see. Which arguments are arrays, and of what
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

import numpy as np

from dpteach._constraints import Array, Labels, OrNone, constraints_of
from fuzz_examples import Example

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
