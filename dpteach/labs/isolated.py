"""Graded checks that nothing in the student's kernel takes part in: the answer runs in its own process.

The grade of a task is decided in the *grading process* (nbgrader's own
process, through :class:`dpteach.labs.nbgrader_grading.IsolatedGrading`, or
a test), never in the notebook's kernel:

1. From the notebook as nbgrader saw it, take the import cell (locked: the
   instructor's source) and the answer cells (the student's code).
2. Start a fresh *answer process*: the interpreter fixed when the course was
   made, in isolated mode without site (``-I -S``: no ``PYTHON*`` variable,
   no user site, no ``.pth`` or ``sitecustomize`` runs before it), an empty
   environment, a new temporary working folder, and on its path a copy of
   dpteach written there for it, read-only, from the text this process read
   when it started. In that copy ``dpteach.labs`` holds no checker and no
   reference: every ``labNN`` module is an empty stand-in. The routines the
   task asks the student to write are made to raise before any answer runs.
   The program it starts with is :mod:`dpteach.labs.wire` and
   :mod:`dpteach.labs.answer_process`, also passed as text read at start-up.
3. Run the lab's checker here, in the grading process, with the student's
   functions replaced by :class:`~dpteach.labs.wire.Remote` stand-ins: each
   call sends its arguments as data to the answer process and gets the
   return value back as data (never pickle). References, comparisons and the
   verdict stay here. The checker's random cases are drawn from the course's
   secret (set by ``make course``), and the fixed case tables of the
   integer and categorical tasks are replaced by secret ones, so a table of
   answers harvested from the public feedback does not fit the graded cases.

What a kernel can do (patch builtins, numpy, ``subprocess`` or the
checkers; put a stand-in first on ``sys.path``; set ``PYTHONPATH``; change
the working folder; print fake "passed" lines; kill processes) changes
nothing here. What remains is in ``book/instructors.md``: the answer's code
runs as the instructor's user, so it can read and write what that user can;
only a container (or another user) per submission closes that.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
import types
from pathlib import Path

import numpy as np

from . import checking
from .student import cell_source
from .wire import Channel, WireError

__all__ = ["LABS", "GradeResult", "graded_task", "grade_task", "grade_cells", "secret_cases", "answer_cells",
           "GRADED_MARK"]

_HERE = Path(__file__).resolve().parent
_PACKAGE = _HERE.parent
#: The lab checker modules, imported now: before any submission's code can rewrite a file on disk.
LABS = {f"lab{n:02d}": importlib.import_module(f"dpteach.labs.lab{n:02d}") for n in range(1, 10)}
_LAB_MODULES = [m for name, m in sorted(sys.modules.items()) if name.startswith("dpteach.labs.lab")]
# ... and what checkers import inside a function (tests/test_lab_grading.py checks that this list is complete).
PRELOADED = ("dpteach.audit", "dpteach.data", "dpteach.mechanisms", "dpteach.regression")
for _name in PRELOADED:
    importlib.import_module(_name)
# The answer process's program and dpteach's files, as text read now, never again from disk.
_PROGRAM = (_HERE / "wire.py").read_text(encoding="utf-8") + "\n" + \
    (_HERE / "answer_process.py").read_text(encoding="utf-8")
_STUB = ('"""Not available while grading: the checkers and their references stay in the grading process."""\n')


def _snapshot():
    files = {}
    for path in sorted(_PACKAGE.rglob("*.py")):
        relative = path.relative_to(_PACKAGE.parent).as_posix()
        if relative.startswith("dpteach/labs/"):
            continue
        files[relative] = path.read_text(encoding="utf-8")
    files["dpteach/labs/__init__.py"] = _STUB
    for name in LABS:
        files[f"dpteach/labs/{name}.py"] = _STUB
    return files


_FILES = _snapshot()
_SITE = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})


class GradeResult(tuple):
    """(passed, message) of one graded task."""

    passed = property(lambda self: self[0])
    message = property(lambda self: self[1])


# --- the course's secret ------------------------------------------------------------------------

def _secret_int(secret, label):
    return int.from_bytes(hashlib.sha256(f"{secret}:{label}".encode()).digest()[:16], "little")


class _SecretRandom(types.ModuleType):
    """``np.random`` whose ``default_rng(seed)`` mixes the course secret into every fixed seed."""

    def __init__(self, secret):
        super().__init__("numpy.random")
        self._secret = _secret_int(secret, "rng")

    def __getattr__(self, name):
        return getattr(np.random, name)

    def default_rng(self, seed=None):
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            return np.random.default_rng([self._secret, int(seed)])
        return np.random.default_rng(seed)


class _SecretNumpy(types.ModuleType):
    def __init__(self, secret):
        super().__init__("numpy")
        self.random = _SecretRandom(secret)

    def __getattr__(self, name):
        return getattr(np, name)


def secret_cases(secret):
    """The graded case tables of the tasks with integer or categorical answers, drawn from ``secret``.

    Their public tables are fixed; the public feedback names the right value for a failing case, so a
    table of those values passes them. These replace them while a graded check runs (same shapes and
    ranges as the public ones, other values).
    """
    rng = np.random.default_rng(_secret_int(secret, "cases"))
    complexity = [(int(rng.choice([2, 7, 202, 5000, 10**6])), float(rng.choice([0.02, 0.3, 1.0, 3.0, 12.0])),
                   round(float(rng.uniform(0.01, 0.4)), 3), float(rng.choice([1e-6, 0.01, 0.05, 0.2])))
                  for _ in range(24)]
    choice = [(int(rng.choice([2000, 5000, 10**4, 3 * 10**4, 10**5, 10**6, 4 * 10**6])), int(rng.integers(2, 60)),
               int(rng.integers(1, 5)), float(rng.choice([0.05, 0.1, 0.2, 0.3])),
               float(rng.choice([0.05, 0.5, 1.0, 4.0])), bool(rng.integers(2)), bool(rng.integers(2)))
              for _ in range(24)]
    grid = [(round(float(rng.uniform(0.01, 0.25)), 3), round(float(rng.uniform(0.05, 5.0)), 3),
             float(rng.choice([0.01, 0.05, 0.1]))) for _ in range(6)]
    # none of the public cases (whose right answers the feedback may have shown)
    complexity = [c for c in complexity if c not in LABS["lab02"].COMPLEXITY_GRID]
    choice = [c for c in choice if c not in LABS["lab09"].CHOICE_CASES]
    grid = [c for c in grid if c not in LABS["lab08"].GRID_CASES]
    return {("dpteach.labs.lab02", "COMPLEXITY_GRID"): complexity,
            ("dpteach.labs.lab09", "CHOICE_CASES"): tuple(choice),
            ("dpteach.labs.lab08", "GRID_CASES"): tuple(grid)}


@contextlib.contextmanager
def _graded_setting(secret, channel, forbidden):
    """While a graded check runs: secret seeds and cases, remote-aware helpers, forbidden names recorded."""
    saved = []

    def put(module, name, value):
        saved.append((module, name, vars(module).get(name, _MISSING)))
        setattr(module, name, value)

    def require_own_code(fn, names, task):
        forbidden.update(names)  # refused in the answer process (made to raise there before any answer ran)
        if not hasattr(fn, "_wire"):
            checking.require_own_code(fn, names, task)

    def counting(fn, args, task, budget):
        if not hasattr(fn, "_wire"):
            return checking.call_student_counting_lines(fn, args, task, budget)
        remote_channel, handle = fn._wire[:2]

        def call(*values):
            return remote_channel.request(["count", handle, [remote_channel.encode(v) for v in values], budget])
        return checking.call_student(call, args, task)

    try:
        for module in _LAB_MODULES:
            if "np" in vars(module) and secret is not None:
                put(module, "np", _SecretNumpy(secret))
            if "require_own_code" in vars(module):
                put(module, "require_own_code", require_own_code)
            if "call_student_counting_lines" in vars(module):
                put(module, "call_student_counting_lines", counting)
        if secret is not None:
            for (module_name, name), value in secret_cases(secret).items():
                put(sys.modules[module_name], name, value)
        yield
    finally:
        for module, name, value in reversed(saved):
            if value is _MISSING:
                delattr(module, name)
            else:
                setattr(module, name, value)


_MISSING = object()


# --- the answer process -------------------------------------------------------------------------

def _write_copy(folder):
    for relative, text in _FILES.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for path in sorted(folder.rglob("*"), reverse=True):  # read-only: files first, then their folders
        path.chmod(stat.S_IRUSR | (stat.S_IXUSR if path.is_dir() else 0))
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)


def _defined_in(names):
    """The dpteach modules (in the copy) that define one of ``names``: the answer process poisons them there."""
    found = []
    for relative, text in _FILES.items():
        if relative.startswith("dpteach/labs/"):
            continue
        if any(f"def {n}(" in text or f"class {n}(" in text or f"class {n}:" in text or f"\n{n} = " in text
               for n in names):
            found.append(relative[:-3].replace("/", ".").removesuffix(".__init__"))
    return found


def _resolve_exception(module, name):
    """A dpteach library class named by the answer process is the same class here: an exception it raised
    (``except sq.QueryBudgetError`` works) or a base of its class (``issubclass(cls, sq.SQOracle)`` holds)."""
    if module.startswith("dpteach.") and not module.startswith("dpteach.labs"):
        return getattr(sys.modules.get(module), name, None)
    return None


# A task's budget is CPU time of its answer process (the kernel stops it: RLIMIT_CPU), so a grade does not depend on
# how busy the grading machine is. The wall clock only backs it up, at this many times the budget, for an answer that
# waits without computing (a sleep, a child holding the wire open).
WALL_CLOCK_FACTOR = 10


def _limit_cpu(seconds):
    """In the answer process before it starts: SIGXCPU (it dies) after ``seconds`` of CPU time, SIGKILL one later."""
    return lambda: resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))


def _start(python, cells, names, forbidden, work, cpu_seconds, deadline):
    copy = work / "copy"
    copy.mkdir()
    _write_copy(copy)
    judge_read, answer_write = os.pipe()
    answer_read, judge_write = os.pipe()
    log = open(work / "answer.log", "wb")  # noqa: SIM115 - closed with the process
    process = subprocess.Popen([python, "-I", "-S", "-c", _PROGRAM, str(answer_read), str(answer_write)],
                               pass_fds=(answer_read, answer_write), cwd=work, env={"PATH": "/usr/bin:/bin"},
                               stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                               preexec_fn=_limit_cpu(cpu_seconds))
    os.close(answer_read)
    os.close(answer_write)
    log.close()
    channel = Channel(judge_read, judge_write, _resolve_exception, deadline)
    channel.send({"copy": str(copy), "site": _SITE, "cells": cells, "names": names,
                  "forbidden": sorted(forbidden), "defined_in": _defined_in(forbidden)})
    return process, channel


def _stop(process, work):
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, 9)  # the answer and anything it started
    process.wait()
    for path in work.rglob("*"):
        with contextlib.suppress(OSError):
            path.chmod(stat.S_IRWXU)
    shutil.rmtree(work, ignore_errors=True)


def _forbidden_names(lab, checker):
    """The names the checker's ``require_own_code`` refuses, found by running it on a stand-in that calls nothing."""
    names = set()

    class Stop(Exception):
        pass

    def stand_in(*args, **kwargs):
        raise Stop

    module = LABS[lab]
    with _graded_setting(None, None, names):
        with contextlib.suppress(Stop, AssertionError, Exception), contextlib.redirect_stdout(None):
            getattr(module, checker)(stand_in)
    return names


def _over_cpu_limit(process, err):
    """Whether the task failed because the kernel stopped the answer at its CPU limit.

    The wire closes as the answer dies, a moment before the process can be reaped, and a checker may have
    wrapped the WireError in its own error: so follow the chain, then wait for the dead process (briefly)."""
    while err is not None and not isinstance(err, WireError):
        err = err.__cause__ or err.__context__
    if err is None:
        return False
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    return process.returncode in (-signal.SIGXCPU, -signal.SIGKILL)


def grade_task(cells, lab, checker, answer_names, secret, python=sys.executable, timeout=600):
    """Grade one task: ``LABS[lab].<checker>(*answers)`` with the answers run in a fresh answer process.

    ``cells`` are the sources of the notebook's import cell and answer cells, in order; ``answer_names``
    the names the checker takes (``["my_clip"]``); ``timeout`` the CPU seconds the answer process may use
    (:data:`WALL_CLOCK_FACTOR` times that on the wall clock, for the whole task, backs it up). Returns a
    :class:`GradeResult`; a timeout, a dead answer process or a broken wire is a failed task.
    """
    if lab not in LABS or not hasattr(LABS[lab], checker) or not checker.startswith("check_"):
        return GradeResult((False, f"no checker {lab}.{checker}"))
    forbidden = _forbidden_names(lab, checker)
    work = Path(tempfile.mkdtemp(prefix="dpteach-answer-"))
    process, channel = _start(python, list(cells), list(answer_names), forbidden, work, timeout,
                              time.monotonic() + WALL_CLOCK_FACTOR * timeout)
    try:
        ready = channel.receive()
        if not (isinstance(ready, list) and ready and ready[0] == "ready"):
            return GradeResult((False, "the answer process did not start"))
        found = {name: channel.decode(value) for name, value in ready[1].items()}
        missing = [n for n in answer_names if n not in found]
        if missing:
            return GradeResult((False, f"not defined by the answer cells: {', '.join(missing)}; {ready[2][:3]}"))
        with _graded_setting(secret, channel, set()), contextlib.redirect_stdout(None):
            getattr(LABS[lab], checker)(*[found[n] for n in answer_names])
        return GradeResult((True, f"{lab}.{checker}: passed (graded in a separate process)"))
    except Exception as err:  # noqa: BLE001 - any failure of the check is a failed task
        if _over_cpu_limit(process, err):
            return GradeResult((False, f"{lab}.{checker}: the answer used more than the {timeout} s of CPU time "
                                       "allowed for the task"))
        if isinstance(err, WireError):
            return GradeResult((False, f"{lab}.{checker}: the answer's process failed ({err})"))
        return GradeResult((False, f"{lab}.{checker}: {type(err).__name__}: {str(err)[:1500]}"))
    finally:
        _stop(process, work)
        with contextlib.suppress(OSError):
            channel.close()


# --- notebooks ----------------------------------------------------------------------------------

GRADED_MARK = "# dpteach graded: "


def graded_task(source):
    """``(lab, checker, [answer names])`` declared in a graded cell's hidden part, or None.

    The hidden part (removed from the release) is one comment line
    ``# dpteach graded: lab09.check_clipping(my_clip)``; the grading process
    reads it from the instructor's source of the cell, which nbgrader restores.
    """
    for line in source.splitlines():
        if line.startswith(GRADED_MARK):
            call = line[len(GRADED_MARK):].strip()
            lab, rest = call.split(".", 1)
            checker, args = rest.split("(", 1)
            return lab, checker, [a.strip() for a in args.rstrip(")").split(",") if a.strip()]
    return None


def answer_cells(notebook):
    """The sources the answer process runs, in notebook order: the locked set-up cells before the first answer
    (the imports; not the Colab install cell), then every answer cell."""
    out, answered = [], False
    for cell in notebook["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") != "code" or meta.get("grade_id") == "colab-install":
            continue
        if meta.get("solution") and not meta.get("grade"):
            out.append(cell_source(cell))
            answered = True
        elif not answered and not meta.get("grade"):
            out.append(cell_source(cell))
    return out


def grade_cells(notebook, secret, python=sys.executable, timeout=600):
    """{grade_id: GradeResult} for every graded cell of ``notebook`` (a dict) that declares a graded task."""
    cells, results = answer_cells(notebook), {}
    for cell in notebook["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        task = graded_task(cell_source(cell)) if cell.get("cell_type") == "code" and meta.get("grade") else None
        if task is not None:
            results[meta["grade_id"]] = grade_task(cells, *task, secret=secret, python=python, timeout=timeout)
    return results
