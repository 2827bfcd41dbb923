"""The grade of a lab task is decided outside the student's kernel (dpteach/labs/isolated.py), and cannot be faked.

Each test builds a submission (a solution or student notebook with some
answer cells replaced by an attack) and grades it as the course's nbgrader
step does, with :func:`dpteach.labs.isolated.grade_cells` /
:func:`~dpteach.labs.isolated.grade_task`: the answers run in a fresh
``python -I -S`` process with a read-only copy of dpteach whose labs hold no
checker or reference, and the checker runs in this process on the course's
secret cases. ``tests/test_nbgrader.py`` runs the kernel-side attacks
(patched checkers, builtins, numpy, ``sys.path``, files on disk, site files,
environment, fake "passed" lines, a killed process) through nbgrader itself.
"""

import json
import stat

import pytest

from dpteach.labs import BEGIN_HIDDEN, isolated, strip_hidden_tests, strip_solutions
from dpteach.labs.course import make_course, nbgrader_config
from dpteach.labs.wire import Channel, WireError
from lab_helpers import ROOT, SOLUTIONS, cells

SECRET = "tests-secret-1"


def notebook(path, replace=None, student=False):
    """The notebook at ``path`` (a dict); ``replace`` maps an answer cell's grade_id to new code; ``student``
    stubs the answers not replaced, as in the student version."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    replace, seen = replace or {}, set()
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("grade_id") in replace:
            cell["source"] = replace[meta["grade_id"]]
            seen.add(meta["grade_id"])
        elif student and meta.get("solution") and cell["cell_type"] == "code":
            cell["source"] = strip_solutions("".join(cell["source"]))
    assert seen == set(replace), seen
    return nb


def grade(nb, grade_id):
    """The graded result of one graded cell, ``grade_id``, of the notebook ``nb``."""
    (cell,) = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id]
    task = isolated.graded_task("".join(cell["source"]))
    return isolated.grade_task(isolated.answer_cells(nb), *task, secret=SECRET)


LAB01 = SOLUTIONS / "lab01_mechanisms.ipynb"
LAB02 = SOLUTIONS / "lab02_generic_learner.ipynb"
LAB09 = SOLUTIONS / "lab09_table1.ipynb"


def test_every_graded_cell_declares_its_task_in_its_hidden_part():
    """The hidden part names exactly the call its visible part makes; nothing else is hidden, nothing runs there."""
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        for cell in cells(path):
            meta = cell["metadata"].get("nbgrader", {})
            if cell["cell_type"] == "code" and meta.get("grade"):
                source = "".join(cell["source"])
                visible, hidden = strip_hidden_tests(source), source.split(BEGIN_HIDDEN, 1)[1]
                lab, checker, names = isolated.graded_task(hidden)
                assert visible.strip() == f"{lab}.{checker}({', '.join(names)})", (path.name, meta["grade_id"])
                code = [line for line in hidden.splitlines()[1:-1] if not line.startswith("#")]
                assert code == [], (path.name, meta["grade_id"], code)


@pytest.mark.parametrize("lab", sorted(p.stem for p in SOLUTIONS.glob("*.ipynb")))
def test_every_solution_gets_every_grade(lab):
    """Graded in separate processes on the secret cases, every task of every solution passes."""
    results = isolated.grade_cells(notebook(SOLUTIONS / f"{lab}.ipynb"), SECRET)
    assert len(results) >= 5
    failed = {k: v.message for k, v in results.items() if not v.passed}
    assert not failed, failed


def test_the_student_version_gets_no_grade():
    results = isolated.grade_cells(notebook(LAB09, student=True), SECRET)
    assert results and not any(r.passed for r in results.values()), results
    assert all("not implemented" in r.message for r in results.values()), results


HELPERS = {
    # the checker's reference helper, as the student's own kernel has it
    "task1-solution": "def my_clip(gradients, clip_norm):\n    return lab09._clip_reference(gradients, clip_norm)\n",
    # by a run-time name
    "task2-solution": ("import importlib\n"
                       "def my_dp_sgd_sigma(n, batch_size, clip_norm, n_epochs, epsilon, delta):\n"
                       "    module = importlib.import_module('dpteach.labs.' + 'lab09')\n"
                       "    return getattr(module, '_sigma_' + 'reference')(n, batch_size, clip_norm, n_epochs, "
                       "epsilon, delta)\n"),
    # lab09.py read from the package's folder on disk and executed: "not from dpteach" for a static check
    "task3-solution": ("import importlib.util\n"
                       "_folder = importlib.util.find_spec('dpteach').submodule_search_locations[0]\n"
                       "_ns = {'__name__': 'dpteach.labs.copy', '__package__': 'dpteach.labs'}\n"
                       "exec(open(_folder + '/labs/lab09.py').read(), _ns)\n"
                       "def my_choose_learner(n, d, degree, alpha, epsilon, need_proper, need_agnostic):\n"
                       "    return _ns['_choice_reference'](n, d, degree, alpha, epsilon, need_proper, need_agnostic)\n"),
    # any module object under dpteach.labs in sys.modules (the old grader's private copy lived there)
    "task5-solution": ("import sys\n"
                       "def my_row_clip_sigma(row_norm, n_epochs, epsilon, delta):\n"
                       "    for key, module in list(sys.modules.items()):\n"
                       "        if key.endswith('lab09') and hasattr(module, '_row_clip_reference'):\n"
                       "            return module._row_clip_reference(row_norm, n_epochs, epsilon, delta)\n"
                       "    raise RuntimeError('no reference found')\n"),
}


@pytest.mark.parametrize("grade_id", sorted(HELPERS))
def test_the_references_are_not_reachable_from_the_answer(grade_id):
    """The answer's process has dpteach without the labs' checkers: helpers, exec of labNN.py, sys.modules."""
    result = grade(notebook(LAB09, replace={grade_id: HELPERS[grade_id]}), grade_id.replace("solution", "check"))
    assert not result.passed, result.message


LIBRARY = ("import importlib\n"
           "def my_laplace_mechanism(value, sensitivity, epsilon, rng):\n"
           "    return getattr(importlib.import_module('dpteach.mechanisms'), 'laplace_' + 'mechanism')(\n"
           "        value, sensitivity, epsilon, rng)\n")


def test_an_answer_that_calls_the_library_routine_it_must_write_fails():
    result = grade(notebook(LAB01, replace={"task1-solution": LIBRARY}), "task1-check")
    assert not result.passed and "task asks you to write" in result.message, result.message


def _table_answer(name, signature, table, fallback):
    return f"_TABLE = {table!r}\ndef {name}({signature}):\n    return _TABLE.get(({signature},), {fallback!r})\n"


def test_a_table_harvested_from_the_public_feedback_passes_the_public_check_but_not_the_grade():
    """Lab 9 Task 3 and Lab 2 Task 3: the feedback names the right value of a failing public case; a table of
    all of them passes the public checker, but the graded cases come from the course's secret."""
    from dpteach import bounds
    from dpteach.labs import lab02, lab09

    choice_signature = "n, d, degree, alpha, epsilon, need_proper, need_agnostic"
    choices = {case: lab09._choice_reference(*case) for case in lab09.CHOICE_CASES}
    complexity_signature = "n_hypotheses, epsilon, alpha, beta"
    sizes = {case: bounds.generic_learner_sample_complexity(*case) for case in lab02.COMPLEXITY_GRID}
    answers = [(LAB09, "task3", _table_answer("my_choose_learner", choice_signature, choices, "proper"),
                "my_choose_learner", lab09.check_choose_learner),
               (LAB02, "task3", _table_answer("my_sample_complexity", complexity_signature, sizes, 1000),
                "my_sample_complexity", lab02.check_sample_complexity)]
    for path, task, source, name, public_checker in answers:
        namespace = {}
        exec(source, namespace)
        public_checker(namespace[name])  # the formative check passes: the table covers its cases
        result = grade(notebook(path, replace={f"{task}-solution": source}), f"{task}-check")
        assert not result.passed, (path.name, result.message)


def test_every_module_a_checker_imports_late_is_loaded_before_any_submission_runs():
    """A checker's import inside a function would read a file a kernel may have rewritten: isolated loads it first."""
    import re
    late = set()
    for path in sorted((ROOT / "dpteach" / "labs").glob("lab*.py")):
        late |= set(re.findall(r"\n +from \.\.(\w+) import", path.read_text(encoding="utf-8")))
    assert late and {f"dpteach.{name}" for name in late} <= set(isolated.PRELOADED), late


def test_the_secret_changes_the_graded_cases():
    ours, theirs = isolated.secret_cases(SECRET), isolated.secret_cases("another course")
    from dpteach.labs import lab02, lab08, lab09
    public = {("dpteach.labs.lab02", "COMPLEXITY_GRID"): lab02.COMPLEXITY_GRID,
              ("dpteach.labs.lab09", "CHOICE_CASES"): lab09.CHOICE_CASES,
              ("dpteach.labs.lab08", "GRID_CASES"): lab08.GRID_CASES}
    for key, cases in ours.items():
        assert not set(cases) & set(public[key]), key
        assert set(cases) != set(theirs[key]), key


PROBE = ('import os, sys, stat\n'
         'def my_clip(gradients, clip_norm):\n'
         '    import dpteach, dpteach.labs.lab09 as lab\n'
         '    folder = os.path.dirname(dpteach.__file__)\n'
         '    return {"isolated": sys.flags.isolated, "no_site": sys.flags.no_site, "env": sorted(os.environ),\n'
         '            "cwd": os.getcwd(), "dpteach": folder,\n'
         '            "writable": [p for p in (folder, folder + "/labs/lab09.py", folder + "/mechanisms.py")\n'
         '                         if os.stat(p).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)],\n'
         '            "lab": sorted(n for n in vars(lab) if not n.startswith("__"))}\n')


def test_the_answer_process_is_isolated_read_only_and_has_no_checkers(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/nonexistent-stand-in")
    nb = notebook(LAB09, replace={"task1-solution": PROBE})
    work = {}

    def probe(fn):
        work.update(fn(None, None))
    monkeypatch.setattr(isolated.LABS["lab09"], "check_clipping", probe)
    result = grade(nb, "task1-check")
    assert result.passed, result.message
    assert work["isolated"] == 1 and work["no_site"] == 1
    # Nothing of the grader's environment but PATH: Python itself may set LC_CTYPE (PEP 538), and importing
    # scikit-learn (dpteach's NotFittedError subclasses its class) sets its two OpenMP defaults.
    assert set(work["env"]) <= {"PATH", "LC_CTYPE", "KMP_DUPLICATE_LIB_OK", "KMP_INIT_AT_FORK"}, work["env"]
    assert "PYTHONPATH" not in work["env"]
    assert work["dpteach"].startswith(work["cwd"]) and "dpteach-answer-" in work["cwd"]
    assert not str(ROOT) in work["dpteach"]
    assert work["writable"] == [] and work["lab"] == []


def test_an_answer_that_never_returns_fails_at_the_time_limit(tmp_path):
    """Even when a detached child it forked keeps the wire open (the grading process reads with a deadline)."""
    import os
    import signal
    pid_file = tmp_path / "grandchild"
    source = ("import os, time\n"
              "if os.fork() == 0:\n"
              "    os.setsid()\n"
              f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
              "    time.sleep(3600)\n"
              "    os._exit(0)\n"
              "def my_clip(gradients, clip_norm):\n"
              "    os._exit(0)\n")
    nb = notebook(LAB09, replace={"task1-solution": source})
    try:
        # 3 s of CPU for the answer process, so the wall-clock backstop (WALL_CLOCK_FACTOR x 3 s) ends the wait.
        result = isolated.grade_task(isolated.answer_cells(nb), "lab09", "check_clipping", ["my_clip"], SECRET,
                                     timeout=3)
        assert not result.passed and "the answer" in result.message, result.message
    finally:
        if pid_file.exists():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_the_answer_process_runs_under_a_cpu_time_limit():
    """The task's budget is CPU time (RLIMIT_CPU, set before the answer starts), not the wall clock: a busy
    machine does not fail a task. The answer reports the limit it runs under through the checker's error."""
    source = ("import resource\n"
              "LIMIT = resource.getrlimit(resource.RLIMIT_CPU)\n"
              "def my_clip(gradients, clip_norm):\n"
              "    raise ValueError(f'cpu limit {LIMIT}')\n")
    nb = notebook(LAB09, replace={"task1-solution": source})
    result = isolated.grade_task(isolated.answer_cells(nb), "lab09", "check_clipping", ["my_clip"], SECRET,
                                 timeout=77)
    assert not result.passed and "cpu limit (77, 78)" in result.message, result.message


def test_an_answer_that_computes_forever_fails_at_the_cpu_limit():
    source = ("def my_clip(gradients, clip_norm):\n"
              "    while True:\n"
              "        pass\n")
    nb = notebook(LAB09, replace={"task1-solution": source})
    # 5 s of CPU: the loop is stopped by the kernel after 5 s of computing, however long that takes on the wall
    # clock (the backstop is 50 s; at a load where 5 s of CPU take longer, the backstop's message is accepted).
    result = isolated.grade_task(isolated.answer_cells(nb), "lab09", "check_clipping", ["my_clip"], SECRET,
                                 timeout=5)
    assert not result.passed, result.message
    assert "s of CPU time allowed" in result.message or "longer than the time allowed" in result.message, result.message


def test_the_wire_carries_data_only(tmp_path):
    import os

    import numpy as np
    read, write = os.pipe()
    channel = Channel(read, write)
    for value in (None, True, 3, 2 ** 80, 0.1, float("inf"), "x", [1, (2.5, "y")], {"a": np.int64(4)},
                  np.arange(6.0).reshape(2, 3), np.array([True, False]), np.float32(1.5)):
        back = channel.decode(json.loads(json.dumps(channel.encode(value))))
        assert type(back) is type(value)
        assert repr(back) == repr(value)
    with pytest.raises(WireError):
        channel.decode(["a", "|O", [1], "AAAAAAAAAAA="])  # an object array would unpickle
    with pytest.raises(WireError):
        channel.decode(["pickle", "..."])


def test_the_course_config_grades_outside_the_kernel_with_a_secret():
    config = nbgrader_config()
    assert "allow_errors" not in config  # nbgrader 0.9.6 does not read c.Execute.allow_errors
    assert "c.Autograde.autograde_preprocessors = [Execute, IsolatedGrading," in config
    assert "c.IsolatedGrading.secret = '" in config and "c.IsolatedGrading.python = '/" in config
    assert nbgrader_config().split("secret = ")[1][:34] != config.split("secret = ")[1][:34]


def test_every_cell_but_the_answers_is_locked():
    """Statements, the import cell, seeds and demonstrations are restored by nbgrader: a student cannot edit them."""
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        for index, cell in enumerate(cells(path)):
            meta = cell["metadata"].get("nbgrader", {})
            assert meta.get("solution") or meta.get("locked"), f"{path.name} cell {index} is not locked"


def test_the_course_source_has_the_student_versions_links_and_dpteachs_stub(tmp_path):
    """What make_course writes, without running nbgrader: the release can then equal the student version."""
    from dpteach.labs import STUB, student_notebook
    from dpteach.labs.course import course_source_notebook

    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        source = course_source_notebook(path)
        student = student_notebook(path, ROOT / "book" / "labs")
        for mine, theirs in zip(source["cells"], student["cells"]):
            if mine["cell_type"] == "markdown" and not mine["metadata"]["nbgrader"].get("solution"):
                assert "".join(mine["source"]) == "".join(theirs["source"]), path.name
    config = nbgrader_config()
    assert repr(STUB) in config and "c.CourseDirectory.course_id = 'dpteach'" in config
    course = make_course(tmp_path / "course", SOLUTIONS, run=False)
    assert sorted(p.name for p in (course / "source").iterdir()) == sorted(p.stem for p in SOLUTIONS.glob("*.ipynb"))
    assert stat.S_IMODE((course / "nbgrader_config.py").stat().st_mode) & 0o077 == 0  # the secret: owner only
    with pytest.raises(ValueError, match="out=.*not empty"):
        make_course(course, SOLUTIONS, run=False)
