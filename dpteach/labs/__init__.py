"""Lab helpers: auto-checkers with actionable feedback, and the student-version generator.

A lab notebook (``book/labs/*.ipynb``) is written *with* its solutions, each
between nbgrader's markers::

    ### BEGIN SOLUTION
    ...reference code...
    ### END SOLUTION

CI executes these solution versions. ``python -m dpteach.labs student``
(or ``make labs``) writes student versions in which each marked block is
replaced by ``raise NotImplementedError(...)`` at the same indentation.

Checkers live in one module per lab (``dpteach.labs.lab01`` ...). Each
raises :class:`LabCheckError` with a hint of what is wrong, and prints a
short "passed" line when the answer is right. Every checker has a test
showing that it rejects a typical wrong answer.
"""

from __future__ import annotations

import json
import re
import types
from pathlib import Path

import numpy as np

__all__ = ["LabCheckError", "require", "passed", "call_student", "require_own_code", "strip_solutions",
           "make_student_notebook", "make_student_versions"]

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB = 'raise NotImplementedError("Your code here: replace this line with your solution.")'


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
    return repr(arg)


def call_student(fn, args, task, hint=""):
    """Call the student's ``fn(*args)``, turning a crash into feedback (plus ``hint``).

    A ``NotImplementedError`` (the student version's stub) becomes "not
    implemented yet"; any other exception becomes a :class:`LabCheckError`
    that shows how the function was called.
    """
    require(callable(fn), f"{task}: pass your function itself, e.g. check(my_function), got {type(fn).__name__}")
    try:
        return fn(*args)
    except NotImplementedError:
        raise LabCheckError(f"{task}: not implemented yet — replace the `raise NotImplementedError` "
                            f"line by your code.") from None
    except LabCheckError:
        raise
    except Exception as err:  # a crash of student code becomes feedback, not a traceback
        shown = ", ".join(_short(a) for a in args)
        raise LabCheckError(f"{task}: your function raised {type(err).__name__}: {err}\n"
                            f"  when called as fn({shown}).{hint}") from err


def _names_used(code):
    """Global and attribute names used by a code object and the functions nested in it."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_used(const)
    return names


def _from_dpteach(obj):
    module = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None) or ""
    return module == "dpteach" or module.startswith("dpteach.")


def require_own_code(fn, forbidden, task):
    """Reject ``fn`` if it is, or visibly uses, a dpteach function named in ``forbidden`` (the answer).

    A light check of the names the function's code uses (directly imported
    dpteach functions, or attributes of a dpteach module), not a sandbox:
    it stops the honest mistake of calling the library, not a determined cheat.
    """
    require(callable(fn), f"{task}: pass your function itself, e.g. check(my_function), got {type(fn).__name__}")
    forbidden = set(forbidden)
    hits = set()
    if _from_dpteach(fn) and getattr(fn, "__name__", "") in forbidden:
        hits.add(fn.__name__)
    code = getattr(fn, "__code__", None)
    if code is not None:
        used = _names_used(code)
        scope = getattr(fn, "__globals__", {})
        objects = {name: scope.get(name) for name in used}
        hits |= {name for name, obj in objects.items()
                 if obj is not None and _from_dpteach(obj) and getattr(obj, "__name__", name) in forbidden}
        if any(isinstance(obj, types.ModuleType) and _from_dpteach(obj) for obj in objects.values()):
            hits |= used & forbidden
    require(not hits, f"{task}: write this yourself — your function uses {', '.join(sorted(hits))} from "
                      f"dpteach, which is the answer. (numpy and scipy are fine.)")


_BLOCK = re.compile(rf"^([ \t]*){re.escape(BEGIN)}[^\n]*\n.*?^[ \t]*{re.escape(END)}[^\n]*(\n|$)",
                    re.MULTILINE | re.DOTALL)


def strip_solutions(source):
    """Replace every BEGIN/END SOLUTION block in ``source`` by a NotImplementedError stub.

    The stub keeps the indentation of the BEGIN marker, so a solution inside a
    function body becomes a function that raises. Raises ValueError for an
    unmatched marker, which would otherwise leak a solution.
    """
    stripped = _BLOCK.sub(lambda m: f"{m.group(1)}{STUB}\n", source)
    if BEGIN in stripped or END in stripped:
        raise ValueError(f"unmatched '{BEGIN}' / '{END}' marker in:\n{source}")
    return stripped


def make_student_notebook(src, dst):
    """Write the student version of the notebook ``src`` to ``dst`` (outputs cleared)."""
    notebook = json.loads(Path(src).read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code":
            text = strip_solutions(text)
            cell["outputs"], cell["execution_count"] = [], None
        cell["source"] = text
    Path(dst).parent.mkdir(parents=True, exist_ok=True)
    Path(dst).write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return Path(dst)


def make_student_versions(src_dir="book/labs", out_dir="_build/student_labs"):
    """Write the student version of every lab notebook in ``src_dir`` to ``out_dir``."""
    sources = sorted(Path(src_dir).glob("*.ipynb"))
    if not sources:
        raise FileNotFoundError(f"no lab notebooks (*.ipynb) found in src_dir={str(src_dir)!r}")
    return [make_student_notebook(s, Path(out_dir) / s.name) for s in sources]
