"""nbgrader end to end on every lab: generate_assignment, then autograde a correct and an empty submission.

Every lab solution notebook (book/labs/solutions/*.ipynb, and any solution
still in book/labs/) goes into one assignment of a throw-away course. The
test checks what an instructor relies on:

* ``nbgrader generate_assignment`` accepts the notebooks (it fails on
  markers in a cell without nbgrader metadata) and its release leaks no
  solution line and no model answer;
* ``nbgrader autograde`` gives the solution notebooks full marks on every
  autograded cell, marks the written proofs for manual grading, and gives
  the released (student) notebooks 0 autograded points.

nbgrader is a test requirement (requirements-test.txt, installed by
``make test``); without it the test is skipped with a message. It runs
nbgrader as the instructor would, on the command line, with the kernel of
this environment; one assignment for all labs keeps it to one
generate/autograde run (about 30–40 s on two cores, most of it executing the
labs' checkers).
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from dpteach.labs import BEGIN, TEXT_STUB
from lab_helpers import ROOT, lab_solution_notebooks, solution_lines

try:
    import nbgrader  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    pytest.skip("nbgrader is not installed: `pip install -r requirements-test.txt` (make test does it) "
                "to test generate_assignment and autograde", allow_module_level=True)

from nbgrader.api import Gradebook  # noqa: E402

ASSIGNMENT = "labs"

# nbgrader runs the `alembic` script of its environment to check the gradebook's schema; `make test`
# calls .venv/bin/python without activating the venv, so put the interpreter's bin folder on PATH.
os.environ["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
if shutil.which("alembic") is None:  # pragma: no cover - depends on the environment
    pytest.skip("nbgrader is installed but its `alembic` script is not on PATH", allow_module_level=True)


def _nbgrader(course, *args):
    env = dict(os.environ, DPTEACH_PROGRESS="0", MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={course}",
                             "--Execute.timeout=300", "--Execute.allow_errors=True"],
                            cwd=course, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"nbgrader {args[0]} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    labs = lab_solution_notebooks()
    assert labs, "no lab solution notebooks found"
    root = tmp_path_factory.mktemp("course")
    source = root / "source" / ASSIGNMENT
    source.mkdir(parents=True)
    for path in labs:
        shutil.copy(path, source / path.name)
    _nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    release = root / "release" / ASSIGNMENT
    for student, folder in (("solved", source), ("blank", release)):
        submitted = root / "submitted" / student / ASSIGNMENT
        submitted.mkdir(parents=True)
        for path in labs:
            shutil.copy(folder / path.name, submitted / path.name)
    _nbgrader(root, "autograde", ASSIGNMENT, "--create", "--force")
    return root, labs


def _scores(root, notebook, student):
    """(auto score, auto max, number of manually graded cells) of one submitted notebook."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission_notebook(notebook, ASSIGNMENT, student)
        auto = [g for g in submission.grades if g.cell.cell_type == "code"]
        manual = [g for g in submission.grades if g.cell.cell_type == "markdown"]
        return (sum(g.score for g in auto), sum(g.max_score for g in auto),
                sum(1 for g in manual if g.needs_manual_grade))


def test_generate_assignment_releases_student_versions_without_solutions(course):
    root, labs = course
    for path in labs:
        released = (root / "release" / ASSIGNMENT / path.name).read_text(encoding="utf-8")
        original = json.loads(path.read_text(encoding="utf-8"))
        assert BEGIN not in released
        for cell in original["cells"]:
            text = "".join(cell["source"])
            if cell["cell_type"] == "code" and BEGIN in text:
                for line in solution_lines(text):
                    assert line not in released, f"{path.name}: solution line released: {line!r}"
            if cell["cell_type"] == "markdown" and cell["metadata"].get("nbgrader", {}).get("solution"):
                assert text.strip()[:80] not in released, f"{path.name}: model answer released"
        assert TEXT_STUB in released, f"{path.name}: the written-proof cell is not blanked"


def test_autograde_gives_the_solutions_full_marks_and_the_blank_release_zero(course):
    root, labs = course
    for path in labs:
        notebook = path.stem
        score, maximum, manual = _scores(root, notebook, "solved")
        assert maximum > 0 and score == maximum, f"{path.name}: the solution scores {score} of {maximum}"
        assert manual >= 1, f"{path.name}: the written proof is not left for manual grading"
        blank, _, _ = _scores(root, notebook, "blank")
        assert blank == 0, f"{path.name}: the unsolved student version scores {blank} points"
