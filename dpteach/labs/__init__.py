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
from pathlib import Path

__all__ = ["LabCheckError", "require", "passed", "strip_solutions", "make_student_notebook",
           "make_student_versions"]

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
