"""A ready nbgrader course for every lab: ``python -m dpteach.labs course --out course`` (``make course``).

It writes::

    course/
      nbgrader_config.py          course id, stub text, kernel, timeouts, the grading step, its secret
      source/lab01_mechanisms/lab01_mechanisms.ipynb   (one assignment per lab)
      ...
      release/...                 after ``nbgrader generate_assignment`` (unless run=False)
      gradebook.db

The source notebooks are the solution notebooks with their chapter links
rewritten as in the committed student versions (``../01_dp_basics.ipynb``
from ``book/labs/``), and ``nbgrader_config.py`` sets
``ClearSolutions.code_stub`` to dpteach's stub, so nbgrader's release is the
web book's student version cell for cell: same sources, hence the same
checksums, so a student may submit the book's download instead of the
release. The hidden part of each graded cell (one comment naming the task,
read by :mod:`dpteach.labs.nbgrader_grading`) stays in the source and is
removed from the release by nbgrader itself (which is why nbgrader reports a
checksum change for each graded cell at autograde, for its own release as
for the download: it puts the hidden part back).
"""

from __future__ import annotations

import copy
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

from .student import SOLUTIONS_DIR, STUB, TEXT_STUB, cell_source, dumps_notebook, rewrite_links, validate_lab_notebook

__all__ = ["COURSE_ID", "EXECUTE_TIMEOUT", "GRADE_TIMEOUT", "nbgrader_config", "course_source_notebook", "make_course"]

COURSE_ID = "dpteach"
#: Seconds nbgrader allows one cell of the notebook's own run (the slowest lab cell, Lab 5's Task 3 check, takes
#: about 4 s of CPU, 49 s at a load average of 15 on two cores; see book/instructors.md, "Timing").
EXECUTE_TIMEOUT = 300
#: Seconds one graded task may take in its answer process, all its calls together.
GRADE_TIMEOUT = 600


def nbgrader_config(course_id=COURSE_ID, kernel_name="python3", timeout=EXECUTE_TIMEOUT, secret=None, python=None):
    """The text of the course's ``nbgrader_config.py``.

    ``secret`` seeds the graded cases (a new random one by default: keep the file private); ``python`` is the
    interpreter that runs each answer at grading (default: this one), fixed here so that nothing a submission
    sets can choose it.
    """
    if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout <= 0:
        raise ValueError(f"timeout must be a positive int (seconds), got {timeout!r}")
    secret = secrets.token_hex(16) if secret is None else secret
    python = os.path.abspath(sys.executable) if python is None else python
    return (
        "# Written by `python -m dpteach.labs course` (dpteach/labs/course.py). Keep it private: it holds the\n"
        "# secret that seeds the graded cases.\n"
        "from nbconvert.preprocessors import ClearMetadataPreprocessor\n"
        "from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, Execute, IgnorePattern,\n"
        "                                    LimitOutput, SaveAutoGrades)\n\n"
        "from dpteach.labs.nbgrader_grading import IsolatedGrading\n\n"
        "c = get_config()  # noqa: F821 - defined by nbgrader when it reads this file\n\n"
        f"c.CourseDirectory.course_id = {course_id!r}\n"
        "# dpteach's stub, so that the release equals the web book's student version\n"
        f"c.ClearSolutions.code_stub = {{'python': {STUB!r}}}\n"
        f"c.ClearSolutions.text_stub = {TEXT_STUB!r}\n"
        "# The kernel that runs submissions at autograde (for the feedback; it decides no grade). 'python3' is\n"
        "# the interpreter nbgrader runs in, e.g. .venv/bin/nbgrader's; do not install a kernel of that name.\n"
        f"c.ExecutePreprocessor.kernel_name = {kernel_name!r}\n"
        f"c.Execute.timeout = {timeout}\n"
        "# The grade of every dpteach task: each answer re-run in its own process, right after Execute\n"
        "# (book/instructors.md, 'What decides the grade').\n"
        "c.Autograde.autograde_preprocessors = [Execute, IsolatedGrading, IgnorePattern, ClearMetadataPreprocessor,\n"
        "                                       LimitOutput, SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]\n"
        f"c.IsolatedGrading.secret = {secret!r}\n"
        f"c.IsolatedGrading.python = {python!r}\n"
        f"c.IsolatedGrading.timeout = {GRADE_TIMEOUT}\n"
    )


def course_source_notebook(src):
    """The course's source version of the solution notebook ``src`` (a dict): chapter links as in the student version.

    The student version of ``book/labs/solutions/x.ipynb`` is ``book/labs/x.ipynb``, so a link is rewritten to
    point at the same file from the solutions folder's parent (as :func:`dpteach.labs.student_notebook` does).
    """
    src = Path(src).resolve()
    student_dir = src.parent.parent if src.parent.name == "solutions" else src.parent
    notebook = json.loads(src.read_text(encoding="utf-8"))
    validate_lab_notebook(notebook)
    notebook = copy.deepcopy(notebook)
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown" and not cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            text = rewrite_links(cell_source(cell), src.parent, student_dir)
            cell["source"] = text.splitlines(keepends=True)
    return notebook


def _run_nbgrader(course, *args):
    env = dict(os.environ, PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed in {course}:\n{result.stdout}\n{result.stderr}")
    return result


def make_course(out, src_dir=SOLUTIONS_DIR, course_id=COURSE_ID, kernel_name="python3", assignment=None,
                run=True, secret=None):
    """Write an nbgrader course for every lab in ``src_dir`` to ``out``; return its folder.

    One assignment per lab (named after the notebook), or all labs in one
    assignment named ``assignment``. With ``run`` (the default) it also runs
    ``nbgrader generate_assignment`` for each, which creates the gradebook
    and the releases. ``out`` must not exist or be empty, so that a course
    with students' grades is never overwritten.
    """
    out, src_dir = Path(out), Path(src_dir)
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"out={str(out)!r} exists and is not empty: choose a new folder (a course's gradebook "
                         f"is never overwritten)")
    sources = sorted(src_dir.glob("*.ipynb"))
    if not sources:
        raise FileNotFoundError(f"no lab notebooks (*.ipynb) found in src_dir={str(src_dir)!r}")
    notebooks = {path: dumps_notebook(course_source_notebook(path)) for path in sources}
    out.mkdir(parents=True, exist_ok=True)
    config = out / "nbgrader_config.py"
    config.touch(mode=0o600)  # it holds the course's secret: readable by its owner only
    config.write_text(nbgrader_config(course_id, kernel_name, secret=secret), encoding="utf-8")
    names = []
    for path, text in notebooks.items():
        name = assignment or path.stem
        folder = out / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / path.name).write_text(text, encoding="utf-8")
        if name not in names:
            names.append(name)
    if run:
        for name in names:
            _run_nbgrader(out, "generate_assignment", name, "--force")
    return out
