"""The building blocks of every lab checker: errors with hints, safe calls, type checks, "write it yourself".

Every checker in ``dpteach.labs.labNN`` is written with these helpers, so
that all labs give feedback the same way:

* :class:`LabCheckError` (an ``AssertionError``, so nbgrader counts it as a
  failed test) carries what was measured and a hint for *that* mistake;
* :func:`call_student` turns a crash of the student's code into feedback;
  :func:`expect_student_raises` checks that it refuses a bad input;
* :func:`require_real` / :func:`require_integer` check the *type* of an
  answer (a string "18.88" is not a number, a float 3.0 is not an index);
* :func:`require_own_code` rejects a function that calls the dpteach
  implementation the task asks the student to write.
"""

from __future__ import annotations

import collections
import functools
import math
import numbers
import os
import sys
import sysconfig
import traceback
import types

import numpy as np

__all__ = ["LabCheckError", "require", "passed", "call_student", "expect_student_raises", "require_real",
           "require_integer", "require_float_array", "require_own_code", "call_student_counting_lines",
           "require_vectorised",
           "check_formula_answers",
           "FORMULA_AFTER", "teaching_hint", "short_traceback", "install_short_traceback"]


class LabCheckError(AssertionError):
    """A lab answer is wrong; the message says what was checked and how to fix it."""


def require(condition, message):
    """Raise :class:`LabCheckError` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise LabCheckError(message)


def passed(task):
    """Print the one-line success message of a checker."""
    print(f"✅ {task}: all checks passed.")


def _short(arg):
    """A short description of an argument for feedback messages."""
    if isinstance(arg, np.ndarray):
        return f"array(shape={arg.shape})" if arg.size > 6 else repr(arg)
    if isinstance(arg, np.random.Generator):
        return "rng"
    text = repr(arg)
    return text if len(text) <= 60 else f"<{type(arg).__name__}>"


_NOT_IMPLEMENTED = "not implemented yet — replace the `raise NotImplementedError` line by your code."


def call_student(fn, args, task, hint=""):
    """Call the student's ``fn(*args)``, turning a crash into feedback (plus ``hint``).

    A ``NotImplementedError`` (the student version's stub) becomes "not
    implemented yet"; a :class:`LabCheckError` raised inside (a checker the
    student called) passes through; any other exception — including an
    ``AssertionError`` from the student's own asserts — becomes a
    :class:`LabCheckError` that shows how the function was called.
    """
    require(callable(fn), f"{task}: pass your function itself, e.g. check(my_function), got {type(fn).__name__}")
    try:
        return fn(*args)
    except NotImplementedError:
        raise LabCheckError(f"{task}: {_NOT_IMPLEMENTED}") from None
    except LabCheckError:
        raise
    except Exception as err:  # a crash of student code becomes feedback, not a traceback
        shown = ", ".join(_short(a) for a in args)
        raise LabCheckError(f"{task}: your function raised {type(err).__name__}: {err}\n"
                            f"  when called as fn({shown}).{hint}") from err


class _LineBudgetExceeded(Exception):
    """Raised inside the student's code by the tracer once it has run more Python lines than allowed."""


# Code that is not the student's: the standard library, installed packages (numpy, scipy) and dpteach.
_LIBRARY_PREFIXES = tuple({os.path.realpath(p) for p in (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
                                                          sysconfig.get_paths()["platlib"],
                                                          os.path.dirname(os.path.dirname(os.path.abspath(__file__))))})


def _is_student_file(filename):
    if filename.startswith("<frozen"):
        return False
    return not os.path.realpath(filename).startswith(_LIBRARY_PREFIXES)


def _is_student_code(code):
    return _is_student_file(code.co_filename)


def short_traceback(shell, etype, value, tb, tb_offset=None):
    """How IPython shows a failed check: the message, and the student's own frames of a crash, nothing else.

    The checker's frames (check_… → call_student …) are not the student's code: they buried the one
    line that matters under ~45 lines (reader review B6). When the student's function crashed, the
    frames of the student's code in that crash are kept, so the line to fix is still shown.
    The cell still fails (nbgrader grades it as failed; Run All stops there as on any error).
    """
    lines = []
    cause = value.__cause__
    if cause is not None and not isinstance(cause, _LineBudgetExceeded):
        frames = [f for f in traceback.extract_tb(cause.__traceback__) if _is_student_file(f.filename)]
        if frames:
            lines.append("Your code, where it failed:\n" + "".join(traceback.format_list(frames)).rstrip())
    lines.append(f"{etype.__name__}: {value}")
    # IPython leaves the showing to the handler. _showtraceback is the shell's own hook: in a Jupyter
    # kernel it sends an "error" output (what nbgrader grades), in a terminal it prints the lines.
    shell._showtraceback(etype, value, lines)
    return lines


def install_short_traceback(shell=None):
    """Show :class:`LabCheckError` as :func:`short_traceback` in ``shell`` (the running IPython, if any).

    Called when this module is imported in a notebook. It sets IPython's custom exception handler,
    of which a shell has one (set_custom_exc); nothing else in the book sets one.
    """
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
    if shell is not None and hasattr(shell, "set_custom_exc"):
        shell.set_custom_exc((LabCheckError,), short_traceback)


def call_student_counting_lines(fn, args, task, budget):
    """Call ``fn(*args)`` like :func:`call_student` and count the Python lines the student's code executes.

    Lines are counted (with ``sys.settrace``) only in code that is not the
    standard library, an installed package or dpteach, so a vectorised answer
    counts the few lines of its body while a Python loop over the data counts
    one or more lines per element. The count is deterministic, unlike a
    timing, so the same answer gets the same verdict on any machine. Past
    ``budget`` lines the call is stopped.

    Returns
    -------
    (result, lines) : the function's return value (None if stopped) and the
        lines counted (``budget + 1`` if stopped).
    """
    require(callable(fn), f"{task}: pass your function itself, e.g. check(my_function), got {type(fn).__name__}")
    lines = 0

    def local_trace(frame, event, arg):
        nonlocal lines
        if event == "line":
            lines += 1
            if lines > budget:
                raise _LineBudgetExceeded
        return local_trace

    def global_trace(frame, event, arg):
        return local_trace if _is_student_code(frame.f_code) else None

    previous = sys.gettrace()
    sys.settrace(global_trace)
    try:
        return call_student(fn, args, task), lines
    except LabCheckError as err:
        if isinstance(err.__cause__, _LineBudgetExceeded):
            return None, budget + 1
        raise
    finally:
        sys.settrace(previous)


#: Python lines a vectorised answer may run on an input of VECTORISED_SIZE elements (rows, examples, rates): numpy
#: calls count no lines, so a vectorised body runs a few dozen; a Python loop over the elements runs at least one
#: line per element, 20 000. A factor of 10 separates each from the budget, and lines are counted, not timed.
VECTORISED_BUDGET = 2_000
VECTORISED_SIZE = 20_000


def require_vectorised(fn, args, task, elements):
    """Call ``fn(*args)`` within :data:`VECTORISED_BUDGET` Python lines; ``elements`` names what must not be looped over.

    For tasks whose statement asks for numpy array operations "without a Python loop over the rows/examples":
    ``args`` holds VECTORISED_SIZE of them. Returns the function's result.
    """
    out, lines = call_student_counting_lines(fn, args, task, VECTORISED_BUDGET)
    require(lines <= VECTORISED_BUDGET,
            f"{task}: on {VECTORISED_SIZE:,} {elements} your code ran more than {VECTORISED_BUDGET:,} lines of Python: "
            f"it loops over the {elements} one by one. The task asks for numpy operations on whole arrays (no Python "
            f"loop over the {elements}): e.g. a matrix product, np.linalg.norm(..., axis=1), np.minimum, np.where.")
    return out


def expect_student_raises(fn, args, exception, task, message):
    """Require that the student's ``fn(*args)`` raises ``exception``; ``message`` explains why otherwise.

    Any other exception is reported as in :func:`call_student`; returning
    normally raises :class:`LabCheckError` with ``message``.
    """
    require(callable(fn), f"{task}: pass your function itself, e.g. check(my_function), got {type(fn).__name__}")
    try:
        fn(*args)
    except NotImplementedError:
        raise LabCheckError(f"{task}: {_NOT_IMPLEMENTED}") from None
    except exception:
        return
    except Exception as err:
        shown = ", ".join(_short(a) for a in args)
        raise LabCheckError(f"{task}: fn({shown}) raised {type(err).__name__}: {err}; expected "
                            f"{exception.__name__}. {message}") from err
    shown = ", ".join(_short(a) for a in args)
    raise LabCheckError(f"{task}: fn({shown}) returned instead of raising {exception.__name__}. {message}")


def require_real(value, task, call):
    """Return ``value`` as a float after checking it *is* one finite real number (not a str, bool or array).

    ``float("18.88")`` works, so converting is not a type check: only Python
    and numpy real numbers (and 0-d numpy arrays of them) are accepted.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        if isinstance(value, np.ndarray):
            detail = f"an array of shape {value.shape}"
        else:
            detail = f"{value!r} of type {type(value).__name__}"
        raise LabCheckError(f"{task}: {call} should return one real number (float or int), got {detail}."
                            + (" Return the number itself, not its text." if isinstance(value, str) else ""))
    value = float(value)
    require(math.isfinite(value), f"{task}: {call} returned {value!r}, not a finite number.")
    return value


def require_integer(value, task, call, what="an integer"):
    """Return ``value`` as an int after checking it is a Python or numpy integer (not a float, bool or str)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        hint = ""
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            hint = (" It has an integer value but the type float: math.ceil returns an int, "
                    "np.ceil returns a float (wrap it in int(...)).")
        raise LabCheckError(f"{task}: {call} should return {what}, got {value!r} of type "
                            f"{type(value).__name__}.{hint}")
    return int(value)


def require_float_array(out, shape, task, where, what="result", hint=""):
    """``out`` as floats after checking it is a numeric numpy array of ``shape`` with no NaN or inf entries."""
    require(isinstance(out, np.ndarray) and out.shape == shape and np.issubdtype(out.dtype, np.number),
            f"{task}: {where} your function should return a numpy array of shape {shape}, got "
            f"{type(out).__name__} {getattr(out, 'shape', '')}.")
    out = out.astype(float)
    require(np.all(np.isfinite(out)), f"{task}: {where} your {what} has NaN or inf entries.{hint}")
    return out


# --- "write it yourself" ---------------------------------------------------------------------

def _from_dpteach(obj):
    module = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None) or ""
    return module == "dpteach" or module.startswith("dpteach.")


def _code_objects(code):
    """``code`` and every code object nested in it (inner functions, lambdas, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _inner_callables(fn):
    """What a callable wraps: partial's func/args, a bound method's function, ``__wrapped__``, ``__call__``."""
    if isinstance(fn, functools.partial):
        yield fn.func
        yield from (a for a in fn.args if callable(a))
        yield from (a for a in fn.keywords.values() if callable(a))
    for attribute in ("__func__", "__wrapped__"):
        inner = getattr(fn, attribute, None)
        if inner is not None:
            yield inner
    if not isinstance(fn, (types.FunctionType, types.BuiltinFunctionType, type)) and hasattr(fn, "__call__"):
        call = getattr(type(fn), "__call__", None)
        if isinstance(call, types.FunctionType):
            yield call
    for value in (getattr(fn, "__defaults__", None) or ()):
        if callable(value):
            yield value
    for value in (getattr(fn, "__kwdefaults__", None) or {}).values():
        if callable(value):
            yield value
    for cell in (getattr(fn, "__closure__", None) or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if callable(value) or isinstance(value, types.ModuleType):
            yield value


def _from_lab_module(obj):
    """True for the lab checker modules themselves and what they define (their reference helpers)."""
    module = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None) or ""
    return module.startswith("dpteach.labs.") or module == "dpteach.labs"


def _forbidden_uses(fn, forbidden, seen, depth=0):
    """Names in ``forbidden`` that ``fn`` reaches (see :func:`require_own_code`)."""
    if id(fn) in seen or depth > 8:
        return set()
    seen.add(id(fn))
    hits = set()
    if _from_dpteach(fn):
        name = getattr(fn, "__name__", "")
        if _from_lab_module(fn) and not isinstance(fn, types.ModuleType):
            return {f"{fn.__module__}.{name}"}  # a checker's own helper computes the reference answer
        return {name} if name in forbidden else set()
    if isinstance(fn, types.ModuleType):
        return set()
    if isinstance(fn, type):  # a class the student wrote: its dpteach bases and its own methods
        for base in fn.__mro__[1:]:
            if _from_dpteach(base) and base.__name__ in forbidden:
                hits.add(base.__name__)
        for klass in fn.__mro__:
            if klass is object or _from_dpteach(klass):
                continue
            for member in vars(klass).values():
                member = getattr(member, "__func__", member)  # staticmethod / classmethod
                if isinstance(member, property):
                    member = member.fget
                if isinstance(member, types.FunctionType):
                    hits |= _forbidden_uses(member, forbidden, seen, depth + 1)
        return hits
    for inner in _inner_callables(fn):
        hits |= _forbidden_uses(inner, forbidden, seen, depth + 1)
    code = getattr(fn, "__code__", None)
    if code is None:
        return hits
    names = set()
    for nested in _code_objects(code):
        names |= set(nested.co_names)
    # An import inside the body (`from dpteach.mechanisms import laplace_mechanism`, `import dpteach`)
    # puts the module path and the imported names in co_names.
    imports_dpteach = any(n == "dpteach" or n.startswith("dpteach.") for n in names)
    scope = getattr(fn, "__globals__", {})
    objects = {name: scope[name] for name in names if name in scope}
    uses_dpteach_module = any(isinstance(obj, types.ModuleType) and _from_dpteach(obj) for obj in objects.values())
    closure_modules = any(isinstance(c, types.ModuleType) and _from_dpteach(c) for c in _inner_callables(fn))
    if imports_dpteach or uses_dpteach_module or closure_modules:
        hits |= names & forbidden  # `module.forbidden_name` or an imported forbidden name
    for module in [*objects.values(), *_inner_callables(fn)]:
        if isinstance(module, types.ModuleType) and _from_lab_module(module):  # `lab09._sigma_reference`
            hits |= {f"{module.__name__}.{n}" for n in names if callable(vars(module).get(n))}
    for name, obj in objects.items():
        if isinstance(obj, types.ModuleType):
            continue
        if _from_dpteach(obj):
            if getattr(obj, "__name__", name) in forbidden:
                hits.add(obj.__name__)
        elif callable(obj):  # the student's own helper functions (and what they call)
            hits |= _forbidden_uses(obj, forbidden, seen, depth + 1)
    return hits


def require_own_code(fn, forbidden, task):
    """Reject ``fn`` if it is, or visibly uses, a dpteach function named in ``forbidden`` (the answer).

    What it inspects, recursively: the function's code object and every code
    object nested in it (inner functions, lambdas, comprehensions); the global
    names they use (a forbidden dpteach function imported at the top, or an
    attribute ``module.name`` of a dpteach module); imports inside the body
    (``from dpteach.mechanisms import laplace_mechanism`` in the function);
    ``functools.partial`` objects (their function and arguments), bound
    methods, ``__wrapped__`` (decorators), callable objects' ``__call__``,
    default arguments and closure variables; and the student's own helper
    functions that ``fn`` calls through a global name.

    Anything defined in a lab checker module (``dpteach.labs.labNN``: the
    checkers and their reference helpers) is always refused, whatever
    ``forbidden`` says.

    What it does not cover: names built at run time (``getattr(module, "la" +
    "place_mechanism")``, ``importlib``, ``eval``/``exec``, ``sys.modules``),
    functions reached through containers (a dict of functions), or a copy of
    the library's source pasted in. It stops the honest mistake of calling
    the library, not a determined cheat; the checkers are for learning, not
    for exams under adversarial conditions.
    """
    require(callable(fn), f"{task}: pass your function itself, e.g. check(my_function), got {type(fn).__name__}")
    hits = _forbidden_uses(fn, set(forbidden), set())
    require(not hits, f"{task}: write this yourself — your function uses {', '.join(sorted(hits))} from "
                      f"dpteach, which is the answer (a checker's helpers in dpteach.labs are off limits too). "
                      f"(numpy and scipy are fine.)")


# --- hints that teach: a pointer first, the formula only after repeated tries ------------------

#: From this failed try of a task on (in this kernel), :func:`teaching_hint` also gives the formula.
FORMULA_AFTER = 3
_failed_tries = collections.Counter()


def teaching_hint(task, pointer, formula):
    """The hint for a failed check of ``task``: ``pointer`` (where to look), plus ``formula`` after repeated tries.

    Counts the failures of ``task`` in this Python process (a number of tries, not a time, so the same
    sequence of answers always gets the same hints). The first ``FORMULA_AFTER − 1`` failures get only
    the pointer — which lemma, which quantity — so that the student derives the formula; from the
    ``FORMULA_AFTER``-th on, the formula is given too.
    """
    _failed_tries[task] += 1
    tries = _failed_tries[task]
    if tries >= FORMULA_AFTER:
        return f"{pointer} After {tries} tries, here is the formula: {formula}"
    return f"{pointer} (The formula itself is shown from the {FORMULA_AFTER}rd failed try on.)"


def check_formula_answers(fn, cases, reference, bugs, task, what, fallback_hint, rtol=1e-6, formula=None):
    """Check ``fn(*case)`` against ``reference(*case)`` on every case; name the likely bug when it is wrong.

    The answer must be one real number (a string or an array is refused, see
    :func:`require_real`) within relative tolerance ``rtol``. A wrong answer is
    compared with each typical mistake ``(hint, formula)`` in ``bugs``; the
    first formula it matches gives the hint, otherwise ``fallback_hint`` and
    the ratio to the right value are shown (with ``formula``, the fallback is a
    :func:`teaching_hint`: the formula only after repeated tries). ``what``
    names the quantity ("σ").
    """
    for case in cases:
        out = require_real(call_student(fn, case, task), task, f"fn{case}")
        right = reference(*case)
        if abs(out / right - 1) <= rtol:
            continue
        for hint, bug in bugs:
            if abs(out / bug(*case) - 1) <= rtol:
                raise LabCheckError(f"{task}: fn{case} returned {out:.5g}, the right {what} is {right:.5g}. "
                                    f"Hint: {hint}.")
        hint = fallback_hint if formula is None else teaching_hint(task, fallback_hint, formula)
        raise LabCheckError(f"{task}: fn{case} returned {out:.5g}, the right {what} is {right:.5g} "
                            f"({out / right:.3g} × too {'large' if out > right else 'small'}). Hint: {hint}")


install_short_traceback()
