"""nbgrader end to end, in the course `make course` builds: release, autograde, and a student who attacks the grade.

Every lab solution notebook goes into one assignment of a throw-away course
written by :func:`dpteach.labs.course.make_course` (the instructors' command,
with its ``nbgrader_config.py``: the grading step and a secret). The test
checks what an instructor relies on:

* ``nbgrader generate_assignment`` accepts the notebooks, its release leaks
  no solution line, no model answer and no hidden part, and every cell of
  the release has the source of the committed student version;
* ``nbgrader autograde`` gives Lab 9's solution full marks and leaves the
  written proof for manual grading, gives the web book's student version 0,
  and gives 0 to each attack a student can make from the notebook's kernel
  (one submission per attack, in the first answer cell, every other answer
  the student version's stub unless the attack needs it): a stand-in
  ``dpteach`` first on ``sys.path``; the package's files rewritten on disk;
  the references exec'd from ``dpteach/labs/lab09.py`` and fished out of
  ``sys.modules``; patched builtins; patched numpy; ``sitecustomize``,
  ``usercustomize`` and a ``.pth`` file written into the writable site
  folders with ``PYTHONPATH`` set and the working folder changed; an answer
  that kills its process; fake "passed" lines; the checkers replaced in the
  kernel; a table of answers harvested from the public feedback. The
  solution is graded after all of them, in the same nbgrader run, and still
  gets full marks.

The course runs on a copy of dpteach in a temporary folder (the file-rewriting
attack must not touch the repository) with ``HOME`` there too.
nbgrader is a test requirement (requirements-test.txt, installed by ``make
test``); without it the test is skipped with a message. Every lab's solution
is graded task by task in tests/test_lab_grading.py, without nbgrader.
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


def _nbgrader(course, env, *args):
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                            text=True, timeout=3600)
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


# A stand-in dpteach whose every checker, grader and module prints a pass.
STAND_IN = r"""
import os, sys, tempfile
_fake = tempfile.mkdtemp()
os.makedirs(_fake + "/dpteach/labs")
_passing = "def __getattr__(name):\n    return lambda *a, **k: print('✅ all checks passed.')\n"
for _name in ("__init__", "labs/__init__", "labs/lab09", "labs/isolated", "labs/nbgrader_grading", "labs/wire"):
    open(f"{_fake}/dpteach/{_name}.py", "w").write(_passing)
"""

ATTACKS = {
    # 1. a stand-in package first on sys.path, and dpteach forgotten from sys.modules
    "standin": STAND_IN + (
        "sys.path.insert(0, _fake)\n"
        "for _key in [k for k in sys.modules if k.startswith('dpteach')]:\n"
        "    del sys.modules[_key]\n"
        "from dpteach.labs import lab09\n"),
    # 2. the package's files rewritten on disk (the checkers, the grading step, the wire)
    "rewrite": (
        "import os, pathlib, dpteach\n"
        "_labs = pathlib.Path(dpteach.__file__).parent / 'labs'\n"
        "_fake = {'lab09.py': 'def __getattr__(name):\\n    return lambda *a, **k: None\\n',\n"
        "         'isolated.py': 'def grade_task(*a, **k):\\n    return (True, \"passed\")\\n',\n"
        "         'nbgrader_grading.py': 'from nbgrader.preprocessors import NbGraderPreprocessor as IsolatedGrading\\n',\n"
        "         'checking.py': 'def require(*a, **k):\\n    pass\\n'}\n"
        "for _name, _text in _fake.items():\n"
        "    try:\n"
        "        os.chmod(_labs / _name, 0o644)\n"
        "        (_labs / _name).write_text(_text)\n"
        "    except OSError:\n"
        "        pass\n"),
    # 3. the references: lab09.py exec'd from the package's folder, and any lab09 module in sys.modules
    "references": (
        "import importlib.util, sys\n"
        "_folder = importlib.util.find_spec('dpteach').submodule_search_locations[0]\n"
        "_ns = {'__name__': 'dpteach.labs.copy', '__package__': 'dpteach.labs'}\n"
        "exec(open(_folder + '/labs/lab09.py').read(), _ns)\n"
        "_found = [m for k, m in list(sys.modules.items()) if k.endswith('lab09') and hasattr(m, '_clip_reference')]\n"
        "def my_clip(gradients, clip_norm):\n"
        "    return (_ns.get('_clip_reference') or _found[0]._clip_reference)(gradients, clip_norm)\n"),
    # 4. builtins patched (in ways that leave the kernel running: a dead kernel gains nothing): every import of a
    # dpteach.labs module answers a stand-in whose checkers pass, and the numbers checks use are forged
    "builtins": STAND_IN + (
        "import builtins, importlib.util\n"
        "_spec = importlib.util.spec_from_file_location('dpteach_stand_in', _fake + '/dpteach/labs/lab09.py')\n"
        "_stand_in = importlib.util.module_from_spec(_spec)\n"
        "_spec.loader.exec_module(_stand_in)\n"
        "_import = builtins.__import__\n"
        "def _fake_import(name, *args, **kwargs):\n"
        "    return _stand_in if name.startswith('dpteach.labs') else _import(name, *args, **kwargs)\n"
        "builtins.__import__ = _fake_import\n"
        "builtins.abs = lambda x: 0.0\n"
        "builtins.round = lambda x, *a: 0\n"
        "builtins.AssertionError = type('AssertionError', (Exception,), {})\n"),
    # 5. numpy patched in the kernel: every comparison succeeds
    "numpy": (
        "import numpy as np\n"
        "np.allclose = lambda *a, **k: True\n"
        "np.isclose = lambda a, b, *r, **k: np.ones(np.shape(a), dtype=bool)\n"
        "np.testing.assert_allclose = lambda *a, **k: None\n"
        "np.linalg.norm = lambda *a, **k: 0.0\n"
        "def my_clip(gradients, clip_norm):\n"
        "    return gradients\n"),
    # 6. site files in the writable site folders (the test's own: never the environment's), PYTHONPATH, cwd
    "site": STAND_IN + (
        "_payload = f'import sys; sys.path.insert(0, {_fake!r})\\n'\n"
        "for _site in [os.environ[k] for k in ('ATTACK_SITE_DIR', 'ATTACK_USER_SITE') if k in os.environ]:\n"
        "    os.makedirs(_site, exist_ok=True)\n"
        "    for _name in ('sitecustomize.py', 'usercustomize.py'):\n"
        "        open(os.path.join(_site, _name), 'w').write(_payload)\n"
        "    open(os.path.join(_site, 'zz_attack.pth'), 'w').write(_payload)\n"
        "os.environ['PYTHONPATH'] = _fake\n"
        "os.environ['PYTHONSTARTUP'] = _fake + '/dpteach/__init__.py'\n"
        "os.chdir(_fake)\n"),
    # 7. the answer kills its own process when it is called
    "kill": (
        "import os, signal\n"
        "def my_clip(gradients, clip_norm):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"),
    # 8. fake "passed" lines, also in the words of the grading step
    "fakepass": (
        "import sys\n"
        "print('✅ Task 1 (clipping): all checks passed.')\n"
        "def my_clip(gradients, clip_norm):\n"
        "    print('Graded outside the notebook: lab09.check_clipping: passed (graded in a separate process)')\n"
        "    sys.stdout.write('✅ Task 1 (clipping): all checks passed.\\n')\n"
        "    return gradients\n"),
    # 9. every checker replaced in the kernel (the previous review's patcher)
    "patcher": (
        "import sys, types\n"
        "import dpteach.labs.checking\n"
        "for _name in [n for n in dir(lab09) if n.startswith('check_')]:\n"
        "    setattr(lab09, _name, lambda *args, **kwargs: print('✅ all checks passed.'))\n"
        "dpteach.labs.checking.call_student = lambda fn, args, task, hint='': None\n"
        "_fake = types.ModuleType('dpteach.labs.lab09')\n"
        "_fake.__dict__.update({n: (lambda *a, **k: None) for n in dir(lab09) if n.startswith('check_')})\n"
        "sys.modules['dpteach.labs.lab09'] = _fake\n"),
}


def _lookup_table():
    """Lab 9 Task 3 answered from a table of the right values of the public cases (what its feedback shows)."""
    from dpteach.labs import lab09
    table = {case: lab09._choice_reference(*case) for case in lab09.CHOICE_CASES}
    signature = "n, d, degree, alpha, epsilon, need_proper, need_agnostic"
    return f"_TABLE = {table!r}\ndef my_choose_learner({signature}):\n    return _TABLE.get(({signature},), 'proper')\n"


LAB = "lab09_table1"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    labs = lab_solution_notebooks()
    assert labs, "no lab solution notebooks found"
    tmp = tmp_path_factory.mktemp("nbgrader")
    shutil.copytree(ROOT / "dpteach", tmp / "code" / "dpteach", ignore=shutil.ignore_patterns("__pycache__"))
    home, site = tmp / "home", tmp / "site"
    home.mkdir()
    site.mkdir()
    env = dict(os.environ, TQDM_DISABLE="1", MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", HOME=str(home),
               PYTHONPATH=os.pathsep.join([str(tmp / "code"), str(site)]), ATTACK_SITE_DIR=str(site))
    env["ATTACK_USER_SITE"] = subprocess.run([sys.executable, "-c", "import site; print(site.getusersitepackages())"],
                                             env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert env["ATTACK_USER_SITE"].startswith(str(home))
    root = make_course(tmp / "course", src_dir=labs[0].parent, assignment=ASSIGNMENT, run=False,
                       secret="test-nbgrader-secret")
    generated = _nbgrader(root, env, "generate_assignment", ASSIGNMENT, "--force")
    source = root / "source" / ASSIGNMENT
    submissions = {"zz_solved": (source / f"{LAB}.ipynb").read_text(encoding="utf-8"),
                   "webbook": (LABS / f"{LAB}.ipynb").read_text(encoding="utf-8"),
                   "attack_table": _with_answers(LABS / f"{LAB}.ipynb", {"task3-solution": _lookup_table()})}
    for name, attack in ATTACKS.items():
        submissions[f"attack_{name}"] = _with_answers(LABS / f"{LAB}.ipynb", {}, prepend=("task1-solution", attack))
    for student, text in submissions.items():
        submitted = root / "submitted" / student / ASSIGNMENT
        submitted.mkdir(parents=True)
        (submitted / f"{LAB}.ipynb").write_text(text, encoding="utf-8")
    graded = _nbgrader(root, env, "autograde", ASSIGNMENT, "--create", "--force")
    return root, labs, generated.stdout + generated.stderr + graded.stdout + graded.stderr, tmp


def test_generate_assignment_releases_student_versions_without_solutions(course):
    root, labs, _, _ = course
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
        assert BEGIN_HIDDEN not in released and "dpteach graded" not in released, f"{path.name}: hidden part released"


def test_the_release_is_the_web_books_student_version(course):
    root, labs, log, _ = course
    for path in labs:
        released = [("".join(c["source"]), c["cell_type"]) for c in cells(root / "release" / ASSIGNMENT / path.name)]
        student = [("".join(c["source"]), c["cell_type"]) for c in cells(LABS / path.name)]
        assert released == student, f"{path.name}: nbgrader's release differs from book/labs/{path.name}"
    # nbgrader restores every locked cell whose source differs from the gradebook's, and says so. The graded
    # cells differ by design (the gradebook keeps their hidden part, the release does not); any other cell would
    # mean the web book's version is not the release (or, here, an attack that edits a locked cell).
    hidden = {c["metadata"]["nbgrader"]["grade_id"] for path in labs for c in cells(path)
              if BEGIN_HIDDEN in "".join(c["source"])}
    changed = set(re.findall(r"Attribute 'checksum' for cell (\S+) has changed", log))
    assert changed <= hidden, f"locked cells changed in the web book's version: {sorted(changed - hidden)}"
    assert "No nbgrader_config.py file found" not in log
    assert "allow_errors" not in log  # no option that nbgrader does not read (it would warn per notebook)


def _task_scores(root, student):
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission_notebook(LAB, ASSIGNMENT, student)
        return {g.name: (g.score, g.max_score, g.needs_manual_grade) for g in submission.grades}


def test_autograde_gives_the_solution_full_marks_and_the_blank_release_zero(course):
    root, _, _, _ = course
    solved = _task_scores(root, "zz_solved")
    auto = {k: v for k, v in solved.items() if not k.endswith("proof")}
    assert len(auto) == 5 and all(score == maximum > 0 for score, maximum, _ in auto.values()), solved
    assert solved["task4-proof"][2], "the written proof is not left for manual grading"
    blank = _task_scores(root, "webbook")
    assert all(score == 0 for score, _, _ in blank.values()), blank


@pytest.mark.parametrize("attack", ["table", *ATTACKS])
def test_autograde_gives_each_attack_zero(course, attack):
    root, _, _, _ = course
    scores = _task_scores(root, f"attack_{attack}")
    assert scores and all(score == 0 for score, _, _ in scores.values()), scores


def test_the_attacks_did_reach_the_kernel(course):
    """The attacks ran: the rewritten files and the site files are there (and changed no grade)."""
    root, _, _, tmp = course
    assert "grade_task(*a, **k)" in (tmp / "code" / "dpteach" / "labs" / "isolated.py").read_text()
    assert (tmp / "site" / "sitecustomize.py").exists() and (tmp / "site" / "zz_attack.pth").exists()
