"""nbgrader end to end on every lab, in the course `make course` builds: release, autograde, cheating.

Every lab solution notebook goes into one assignment of a throw-away course
written by :func:`dpteach.labs.course.make_course` (the instructors' command,
with its ``nbgrader_config.py``). The test checks what an instructor relies on:

* ``nbgrader generate_assignment`` accepts the notebooks, its release leaks
  no solution line, no model answer and no hidden test, and every cell of
  the release has the source of the committed student version (dpteach's
  stub, the same links), so submitting the web book's download restores no
  cell but the graded ones (nbgrader puts their hidden tests back, and logs
  a checksum change for each, as for its own release);
* ``nbgrader autograde`` gives the solutions full marks and leaves the
  written proofs for manual grading, gives the web book's student versions
  0, and gives a cheating student 0 for each cheat: checkers replaced by
  ``setattr`` and in ``sys.modules`` (lab 9, no answers), an answer that
  calls a checker's reference helper (lab 4, Task 2), an answer that calls
  the library routine it was asked to write (lab 1, Task 1), and nothing
  else lost.

nbgrader is a test requirement (requirements-test.txt, installed by
``make test``); without it the test is skipped with a message. One
assignment for all labs keeps it to one generate and one autograde run of
three students (a few minutes on two cores, most of it executing the labs'
checkers).
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from dpteach.labs import BEGIN, BEGIN_HIDDEN, TEXT_STUB
from dpteach.labs.course import make_course
from lab_helpers import LABS, ROOT, cells, lab_solution_notebooks, solution_lines
from test_lab_grading import LIBRARY, PATCHER

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
    # The course's nbgrader_config.py sets the stub, the timeout (120 s) and allow_errors; on a loaded
    # machine a cell can take longer, so the timeout is raised here only.
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args, "--Execute.timeout=300"],
                            cwd=course, env=env, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, f"nbgrader {args[0]} failed:\n{result.stdout}\n{result.stderr}"
    return result


def _with_answers(path, answers, prepend=None):
    """The notebook at ``path`` (a dict) with answer cells replaced: {grade_id: source}; ``prepend`` too."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    found = set()
    for cell in notebook["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell["source"] = answers[grade_id]
            found.add(grade_id)
        if prepend and grade_id == prepend[0]:
            cell["source"] = prepend[1] + "".join(cell["source"])
            found.add(grade_id)
    assert found == set(answers) | ({prepend[0]} if prepend else set()), found
    return json.dumps(notebook, indent=1, ensure_ascii=False)


HELPER_ENVELOPE = "def dp_envelope(fpr, epsilon, delta):\n    return lab04._envelope(fpr, epsilon, delta)\n"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    labs = lab_solution_notebooks()
    assert labs, "no lab solution notebooks found"
    root = make_course(tmp_path_factory.mktemp("course") / "course", src_dir=labs[0].parent, assignment=ASSIGNMENT,
                       run=False)
    generated = _nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    source = root / "source" / ASSIGNMENT
    cheats = {
        # no answers; every checker replaced, also in sys.modules
        "lab09_table1.ipynb": _with_answers(LABS / "lab09_table1.ipynb", {}, prepend=("task1-solution", PATCHER)),
        # the checker's reference helper as the answer of Task 2 (2 points); the other answers right
        "lab04_fingerprinting.ipynb": _with_answers(source / "lab04_fingerprinting.ipynb",
                                                    {"task2-solution": HELPER_ENVELOPE}),
        # the library's laplace_mechanism, by a run-time name, as the answer of Task 1 (2 points)
        "lab01_mechanisms.ipynb": _with_answers(source / "lab01_mechanisms.ipynb", {"task1-solution": LIBRARY}),
    }
    for student in ("solved", "webbook", "cheater"):
        submitted = root / "submitted" / student / ASSIGNMENT
        submitted.mkdir(parents=True)
        for path in labs:
            if student == "cheater" and path.name in cheats:
                (submitted / path.name).write_text(cheats[path.name], encoding="utf-8")
            else:
                shutil.copy((source if student == "solved" else LABS) / path.name, submitted / path.name)
    graded = _nbgrader(root, "autograde", ASSIGNMENT, "--create", "--force")
    return root, labs, generated.stdout + generated.stderr + graded.stdout + graded.stderr


def _scores(root, notebook, student):
    """(auto score, auto max, number of manually graded cells) of one submitted notebook."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission_notebook(notebook, ASSIGNMENT, student)
        auto = [g for g in submission.grades if g.cell.cell_type == "code"]
        manual = [g for g in submission.grades if g.cell.cell_type == "markdown"]
        return (sum(g.score for g in auto), sum(g.max_score for g in auto),
                sum(1 for g in manual if g.needs_manual_grade))


def test_generate_assignment_releases_student_versions_without_solutions(course):
    root, labs, _ = course
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
        assert BEGIN_HIDDEN not in released and "_grader" not in released, f"{path.name}: hidden test released"


def test_the_release_is_the_web_books_student_version_and_submitting_it_warns_nothing(course):
    root, labs, log = course
    for path in labs:
        released = [("".join(c["source"]), c["cell_type"]) for c in cells(root / "release" / ASSIGNMENT / path.name)]
        student = [("".join(c["source"]), c["cell_type"]) for c in cells(LABS / path.name)]
        assert released == student, f"{path.name}: nbgrader's release differs from book/labs/{path.name}"
    # nbgrader restores every locked cell whose source differs from the gradebook's, and says so. The graded
    # cells differ by design (the gradebook keeps their hidden tests, the release does not), so each of them is
    # reported for every submission, the official release included; any other cell (the review saw the intro
    # cells of labs 4, 5 and 7) would mean the web book's version is not the release.
    hidden = {c["metadata"]["nbgrader"]["grade_id"] for path in labs for c in cells(path)
              if BEGIN_HIDDEN in "".join(c["source"])}
    changed = set(re.findall(r"Attribute 'checksum' for cell (\S+) has changed", log))
    assert changed <= hidden, f"locked cells changed in the web book's version: {sorted(changed - hidden)}"
    assert "No nbgrader_config.py file found" not in log


def test_autograde_gives_the_solutions_full_marks_and_the_blank_release_zero(course):
    root, labs, _ = course
    for path in labs:
        notebook = path.stem
        score, maximum, manual = _scores(root, notebook, "solved")
        assert maximum > 0 and score == maximum, f"{path.name}: the solution scores {score} of {maximum}"
        assert manual >= 1, f"{path.name}: the written proof is not left for manual grading"
        blank, _, _ = _scores(root, notebook, "webbook")
        assert blank == 0, f"{path.name}: the unsolved student version scores {blank} points"


def _task_scores(root, notebook, student):
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission_notebook(notebook, ASSIGNMENT, student)
        return {g.name: (g.score, g.max_score) for g in submission.grades if g.cell.cell_type == "code"}


def test_autograde_gives_each_cheat_zero_for_its_task(course):
    root, _, _ = course
    patcher = _task_scores(root, "lab09_table1", "cheater")
    assert patcher and all(score == 0 for score, _ in patcher.values()), patcher
    for notebook, task in (("lab04_fingerprinting", "task2-check"), ("lab01_mechanisms", "task1-check")):
        scores = _task_scores(root, notebook, "cheater")
        assert scores[task][0] == 0, (notebook, scores)
        assert all(score == maximum for name, (score, maximum) in scores.items() if name != task), (notebook, scores)
