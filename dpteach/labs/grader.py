"""The hidden half of every graded lab cell: a verdict that no student cell can reach or replace.

Each autograded cell of a solution notebook runs the public checker (the
formative feedback the student sees) and then, between nbgrader's ``###
BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS`` markers (removed from the
release and the student version), this module::

    import importlib.machinery as _machinery
    _grader = {"__name__": "_dpteach_hidden_grader"}
    exec(open(...dpteach/labs/grader.py...).read(), _grader)
    _grader["grade"]("lab09", "check_clipping", my_clip)

Why this shape. A student's cells run in the same kernel, so they can
replace ``lab09.check_clipping``, anything in ``dpteach.labs.checking``, or
the module objects in ``sys.modules``. The hidden cell therefore does not
import this file (``import dpteach.labs.grader`` would go through
``sys.modules``): it locates dpteach's folder with
``importlib.machinery.PathFinder``, which searches ``sys.path`` and ignores
``sys.modules``, and executes the file itself. :func:`grade` then loads a
*fresh private copy* of dpteach (the package folder under a new, random
module name) and runs the checker of that copy. Patches of
``dpteach.*`` made by the student's cells do not touch the copy.

On top of the copy's own checks, :func:`grade` rejects an answer that
reaches any function or class *defined in the lab's checker module* (the
reference helpers ``lab04._envelope``, ``lab09._sigma_reference`` ...), and,
while the copy's checker runs, replaces in the real ``dpteach.*`` modules
(a) those lab helpers and (b) every library routine the checker forbids
(the names it passes to ``require_own_code``) by a function that raises —
a plain function has its code object swapped, so every reference to it
raises — so an answer that reaches them by a run-time name (``getattr``,
``importlib``) or keeps them in a container fails too.

What it does not defend against (honestly): a student cell that patches
numpy, the standard library or builtins (``open``, ``exec``, ``importlib``),
or a function that keeps a *copy* of a forbidden routine
(``types.FunctionType(f.__code__, ...)`` made before grading) or its pasted
source. Those need a separate process per submission.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import types
import uuid


class ForbiddenRoutineCalled(RuntimeError):
    """An answer called, during hidden grading, a routine that the task asks the student to write."""


def dpteach_folder():
    """dpteach's package folder, found from ``sys.path`` (not from ``sys.modules``, which a student can patch)."""
    spec = importlib.machinery.PathFinder.find_spec("dpteach")
    if spec is None:  # an editable install found by a meta-path hook rather than sys.path
        spec = importlib.util.find_spec("dpteach")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("hidden grading: cannot find the dpteach package on sys.path")
    return list(spec.submodule_search_locations)[0]


def _fresh_package(folder):
    """Register an empty package under a new private name whose submodules are dpteach's files."""
    name = f"_dpteach_grading_{uuid.uuid4().hex}"
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = [folder]
    package = importlib.util.module_from_spec(spec)
    package.__path__ = [folder]
    sys.modules[name] = package
    return name


def _forget(name):
    for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
        del sys.modules[key]


def _share_library_classes(name):
    """In the private copy, use the real dpteach *classes* of the library (not of the labs).

    A student's answer builds on them (a subclass of ``sq.SQOracle``, an
    exception such as ``sq.QueryBudgetError`` raised by the real base
    class), so ``isinstance`` and ``except`` in the checker must see the same
    class objects; the library's *functions*, which compute the references,
    stay private copies.
    """
    prefix = name + "."
    for key, module in list(sys.modules.items()):
        if not key.startswith(prefix):
            continue
        for attribute, obj in list(vars(module).items()):
            home = getattr(obj, "__module__", "") or ""
            if not isinstance(obj, type) or not home.startswith(prefix) or home.startswith(prefix + "labs"):
                continue
            real = getattr(sys.modules.get("dpteach." + home[len(prefix):]), obj.__name__, None)
            if isinstance(real, type):
                setattr(module, attribute, real)


def _defined_in(module):
    """Names of the functions and classes defined in ``module`` itself (its reference helpers and checkers),
    and in its derivation-task module ``<lab>_derivations`` if it has one (whose checkers it re-exports)."""
    names = set()
    for key in (module.__name__, module.__name__ + "_derivations"):
        part = sys.modules.get(key)
        if part is not None:
            names |= {name for name, obj in vars(part).items()
                      if isinstance(obj, (types.FunctionType, type)) and getattr(obj, "__module__", None) == key}
    return names


def _real_dpteach_modules():
    """The dpteach modules the student's code can reach (whatever ``sys.modules`` holds under dpteach.*)."""
    return [m for key, m in list(sys.modules.items())
            if (key == "dpteach" or key.startswith("dpteach.")) and isinstance(m, types.ModuleType)]


def _forbidden_body(*args, **kwargs):
    raise RuntimeError("hidden grading: your answer called a dpteach routine that the task asks you to write "
                       "(or a lab checker's reference helper); graded as wrong")


def _raiser(name):
    def forbidden(*args, **kwargs):
        raise ForbiddenRoutineCalled(f"your answer called dpteach's {name}, which the task asks you to write "
                                     f"yourself (or a checker's reference helper); graded as wrong")
    forbidden.__name__ = name
    return forbidden


@contextlib.contextmanager
def _poisoned(poison):
    """Yield an ``add(names)`` that makes those names of every real dpteach module raise until the block ends.

    A plain function gets its *code object* replaced, so that every reference
    to it raises — a module attribute, a name imported before, or one kept in
    a dict or a closure; anything else (a class, a function with a closure)
    is replaced as a module attribute.
    """
    saved_code, saved_attributes, done = [], [], set()

    def add(names):
        for module in _real_dpteach_modules():
            for name in names:
                obj = vars(module).get(name)
                if obj is None or id(obj) in done:
                    continue
                done.add(id(obj))
                if isinstance(obj, types.FunctionType) and obj.__closure__ is None:
                    saved_code.append((obj, obj.__code__))
                    obj.__code__ = _forbidden_body.__code__
                else:
                    saved_attributes.append((module, name, obj))
                    setattr(module, name, _raiser(name))
    try:
        add(poison)
        yield add
    finally:
        for module, name, value in reversed(saved_attributes):
            setattr(module, name, value)
        for function, code in reversed(saved_code):
            function.__code__ = code


def grade(lab, checker, *answers):
    """Grade ``answers`` with checker ``checker`` of a fresh private copy of ``dpteach.labs.<lab>``.

    Raises (so nbgrader counts the cell as failed) if the copy's checker
    rejects the answers, if an answer reaches a function or class defined in
    the lab's checker module, or if it calls a forbidden routine while graded.
    """
    name = _fresh_package(dpteach_folder())
    try:
        module = importlib.import_module(f"{name}.labs.{lab}")
        _share_library_classes(name)
        checking = sys.modules[f"{name}.labs.checking"]
        # A checker re-exported from a companion module (lab03_constructions, lab05_derivations) has its
        # reference helpers and its require_own_code there: refuse and poison those too.
        home = sys.modules.get(getattr(getattr(module, checker), "__module__", ""), module)
        helpers = _defined_in(module) | _defined_in(home)
        task = f"{lab}.{checker} (graded)"
        for answer in answers:
            checking.require_own_code(answer, helpers, task)
        with _poisoned(helpers) as poison:
            original = checking.require_own_code

            def require_own_code(fn, forbidden, task):
                original(fn, forbidden, task)
                poison(forbidden)  # and refuse them at run time too, while this checker runs
            module.require_own_code = require_own_code
            home.require_own_code = require_own_code
            getattr(module, checker)(*answers)
    finally:
        _forget(name)
