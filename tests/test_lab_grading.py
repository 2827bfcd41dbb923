"""The hidden half of each graded cell (dpteach/labs/grader.py) cannot be faked from the student's cells.

Each test runs a lab notebook's code cells in order, in a fresh Python
process (a patching submission must not leak into this one), with some
answer cells replaced by an attack, and records for every graded cell the
verdict of its visible part (the public checker: formative feedback) and of
its hidden part (the grade, removed from the release). The attacks are the
ones an instructor saw succeed before hidden tests: replacing the checkers
(``setattr(lab09, 'check_clipping', ...)``), calling the reference helpers of
the checker modules, and calling the library routine the task asks for —
each also by a run-time name or through a container, which a static check of
the code cannot see.

``tests/test_nbgrader.py`` repeats the first three with nbgrader itself.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest


from dpteach.labs import BEGIN_HIDDEN, strip_hidden_tests, strip_solutions
from lab_helpers import ROOT, SOLUTIONS, cells
from tools.install_cell import is_install_cell

RUNNER = textwrap.dedent('''
    import json, sys
    cells = json.load(open(sys.argv[1], encoding="utf-8"))
    namespace, verdicts = {"__name__": "__main__"}, {}

    def run(source):
        try:
            exec(compile(source, "<cell>", "exec"), namespace)
            return "pass"
        except BaseException as err:  # noqa: B036 - a verdict, not a crash of the runner
            return f"fail: {type(err).__name__}: {str(err)[:300]}"

    for grade_id, visible, hidden in cells:
        verdict = run(visible)
        if grade_id:
            verdicts[grade_id] = {"visible": verdict, "hidden": run(hidden) if hidden else None}
    print(json.dumps(verdicts))
''')


def _split(source):
    """(visible part, hidden part) of a graded cell's source."""
    if BEGIN_HIDDEN not in source:
        return source, ""
    return strip_hidden_tests(source), BEGIN_HIDDEN + source.split(BEGIN_HIDDEN, 1)[1]


def verdicts(notebook, replace=None, after_imports="", student=False, tmp_path=None):
    """Run ``notebook``'s code cells; ``replace`` maps an answer cell's grade_id to new code.

    ``student=True`` uses the stubs of the student version for the answer
    cells not replaced; ``after_imports`` is a cell inserted after the first
    code cell. Returns {grade_id: {"visible": verdict, "hidden": verdict}}
    for the graded cells.
    """
    replace = replace or {}
    plan, first = [], True
    for cell in cells(notebook):
        if cell["cell_type"] != "code" or is_install_cell(cell):  # the Colab install cell: a no-op here
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("grade_id") in replace:
            source = replace[meta["grade_id"]]
        elif student:
            source = strip_solutions(source)
        if meta.get("grade"):
            plan.append([meta["grade_id"], *_split(source)])
        else:
            plan.append([None, source, ""])
        if first and after_imports:
            plan.append([None, after_imports, ""])
        first = False
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               MPLBACKEND="Agg", DPTEACH_PROGRESS="0", OPENBLAS_NUM_THREADS="1")
    result = subprocess.run([sys.executable, "-c", RUNNER, str(path)], capture_output=True, text=True, env=env,
                            cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


LAB09 = SOLUTIONS / "lab09_table1.ipynb"
LAB01 = SOLUTIONS / "lab01_mechanisms.ipynb"


def test_every_graded_cell_of_every_lab_has_a_hidden_grade():
    """Each graded code cell ends with the hidden call of the grader, for the checker its visible part calls."""
    for notebook in sorted(SOLUTIONS.glob("*.ipynb")):
        for cell in cells(notebook):
            meta = cell["metadata"].get("nbgrader", {})
            if cell["cell_type"] == "code" and meta.get("grade"):
                visible, hidden = _split("".join(cell["source"]))
                lab, call = visible.strip().split(".", 1)
                checker, args = call.split("(", 1)
                assert f'_grader["grade"]("{lab}", "{checker}", {args.rstrip(")")})' in hidden, \
                    f"{notebook.name} {meta['grade_id']}: no hidden grade"


def test_the_solution_passes_both_halves(tmp_path):
    result = verdicts(LAB09, tmp_path=tmp_path)
    assert result and all(v == {"visible": "pass", "hidden": "pass"} for v in result.values()), result


PATCHER = '''
import sys, types
import dpteach.labs, dpteach.labs.checking
for _name in [n for n in dir(lab09) if n.startswith("check_")]:
    setattr(lab09, _name, lambda *args, **kwargs: print("✅ all checks passed."))
dpteach.labs.checking.require_own_code = lambda *args, **kwargs: None
dpteach.labs.checking.call_student = lambda fn, args, task, hint="": None
sys.modules["dpteach.labs.checking"] = types.SimpleNamespace(require_own_code=lambda *a, **k: None)
_fake = types.ModuleType("dpteach.labs.lab09")
_fake.__dict__.update({n: (lambda *a, **k: None) for n in dir(lab09) if n.startswith("check_")})
sys.modules["dpteach.labs.lab09"] = _fake
'''


def test_patched_checkers_pass_the_visible_check_but_fail_the_hidden_grade(tmp_path):
    """The review's `patcher`: no answers, every checker replaced (module attribute and sys.modules) → 0 points."""
    result = verdicts(LAB09, after_imports=PATCHER, student=True, tmp_path=tmp_path)
    assert len(result) == 5
    for grade_id, verdict in result.items():
        assert verdict["visible"] == "pass", (grade_id, verdict)  # the patch fooled the public checker...
        assert verdict["hidden"].startswith("fail") and "not implemented" in verdict["hidden"], (grade_id, verdict)


HELPERS = {
    # a direct call of the reference helper
    "task1-solution": "def my_clip(gradients, clip_norm):\n    return lab09._clip_reference(gradients, clip_norm)\n",
    # a run-time name, invisible to a static look at the code
    "task2-solution": ("import importlib\n"
                     "def my_dp_sgd_sigma(n, batch_size, clip_norm, n_epochs, epsilon, delta):\n"
                     "    module = importlib.import_module('dpteach.labs.' + 'lab09')\n"
                     "    return getattr(module, '_sigma_' + 'reference')(n, batch_size, clip_norm, n_epochs, "
                     "epsilon, delta)\n"),
    # kept in a container before grading
    "task3-solution": ("_box = {'f': getattr(lab09, '_choice_' + 'reference')}\n"
                     "def my_choose_learner(n, d, degree, alpha, epsilon, need_proper, need_agnostic):\n"
                     "    return _box['f'](n, d, degree, alpha, epsilon, need_proper, need_agnostic)\n"),
    # a reference helper through a default argument
    "task5-solution": ("def my_row_clip_sigma(row_norm, n_epochs, epsilon, delta, _f=lab09._row_clip_reference):\n"
                     "    return _f(row_norm, n_epochs, epsilon, delta)\n"),
    # a run-time name again, for the exact accountant's helper
    "task6-solution": ("def my_schedule_sigma(clip_norms, n_epochs, epsilon, delta):\n"
                     "    return getattr(lab09, '_schedule_' + 'reference')(clip_norms, n_epochs, epsilon, delta)\n"),
}


def test_answers_that_call_the_reference_helpers_fail_the_hidden_grade(tmp_path):
    answer_ids = [c["metadata"]["nbgrader"]["grade_id"] for c in cells(LAB09)
                  if c["metadata"].get("nbgrader", {}).get("solution") and c["cell_type"] == "code"]
    assert sorted(answer_ids) == sorted(HELPERS), answer_ids
    result = verdicts(LAB09, replace=HELPERS, tmp_path=tmp_path)
    for grade_id, verdict in result.items():
        assert verdict["hidden"] is not None and verdict["hidden"].startswith("fail"), (grade_id, verdict)
    # the direct call is refused by the public checker too, with the helper named
    assert "lab09._clip_reference" in result["task1-check"]["visible"]


LIBRARY = ("import importlib\n"
           "def my_laplace_mechanism(value, sensitivity, epsilon, rng):\n"
           "    return getattr(importlib.import_module('dpteach.mechanisms'), 'laplace_' + 'mechanism')(\n"
           "        value, sensitivity, epsilon, rng)\n")


def test_an_answer_that_calls_the_library_routine_it_must_write_fails_that_task_only(tmp_path):
    answer = [c for c in cells(LAB01) if c["metadata"].get("nbgrader", {}).get("solution")
              and "def my_laplace_mechanism" in "".join(c["source"])]
    assert len(answer) == 1
    assert "(value, sensitivity, epsilon, rng" in "".join(answer[0]["source"]), "the task's signature changed"
    result = verdicts(LAB01, replace={answer[0]["metadata"]["nbgrader"]["grade_id"]: LIBRARY}, tmp_path=tmp_path)
    assert result["task1-check"]["hidden"].startswith("fail"), result["task1-check"]
    assert "task asks you to write" in result["task1-check"]["hidden"]
    others = {k: v for k, v in result.items() if k != "task1-check"}
    assert others and all(v["hidden"] == "pass" for v in others.values()), others


def test_the_grader_restores_what_it_poisons():
    """After a hidden grade the library routine and the lab helpers work again (other cells use them)."""
    program = textwrap.dedent(f'''
        import importlib.machinery, numpy as np
        from dpteach.mechanisms import laplace_mechanism
        from dpteach.labs import lab09
        grader = {{"__name__": "g"}}
        path = importlib.machinery.PathFinder.find_spec("dpteach").submodule_search_locations[0] + "/labs/grader.py"
        exec(open(path).read(), grader)
        def cheat(value, sensitivity, epsilon, rng):
            return laplace_mechanism(value, sensitivity, epsilon, rng)
        try:
            grader["grade"]("lab01", "check_laplace_mechanism", cheat)
        except AssertionError:
            pass
        print(laplace_mechanism(0.0, 1.0, 1.0, np.random.default_rng(0)), lab09._sigma_reference(1, 1, 1.0, 1, 1.0, 1e-5))
    ''')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr


def test_every_cell_but_the_answers_is_locked():
    """Statements, the import cell, seeds and demonstrations are restored by nbgrader: a student cannot edit them."""
    for notebook in sorted(SOLUTIONS.glob("*.ipynb")):
        for index, cell in enumerate(cells(notebook)):
            meta = cell["metadata"].get("nbgrader", {})
            assert meta.get("solution") or meta.get("locked"), f"{notebook.name} cell {index} is not locked"


def test_the_course_source_has_the_student_versions_links_and_dpteachs_stub(tmp_path):
    """What make_course writes, without running nbgrader: the release can then equal the student version."""
    from dpteach.labs import STUB, student_notebook
    from dpteach.labs.course import course_source_notebook, make_course, nbgrader_config

    for notebook in sorted(SOLUTIONS.glob("*.ipynb")):
        source = course_source_notebook(notebook)
        student = student_notebook(notebook, ROOT / "book" / "labs")
        for mine, theirs in zip(source["cells"], student["cells"]):
            if mine["cell_type"] == "markdown" and not mine["metadata"]["nbgrader"].get("solution"):
                assert "".join(mine["source"]) == "".join(theirs["source"]), notebook.name
    config = nbgrader_config()
    assert repr(STUB) in config and "c.CourseDirectory.course_id = 'dpteach'" in config
    course = make_course(tmp_path / "course", SOLUTIONS, run=False)
    assert sorted(p.name for p in (course / "source").iterdir()) == sorted(p.stem for p in SOLUTIONS.glob("*.ipynb"))
    with pytest.raises(ValueError, match="out=.*not empty"):
        make_course(course, SOLUTIONS, run=False)


@pytest.mark.parametrize("notebook", ["lab01_mechanisms", "lab02_generic_learner", "lab03_local_sq"])
def test_labs_1_to_3_solutions_pass_both_halves(notebook, tmp_path):
    """Labs 1–3 with their derivation tasks (issue 22): every graded cell passes visibly and hidden."""
    result = verdicts(SOLUTIONS / f"{notebook}.ipynb", tmp_path=tmp_path)
    assert result and all(v == {"visible": "pass", "hidden": "pass"} for v in result.values()), result


def test_a_derivation_modules_reference_helper_reached_at_run_time_fails_the_hidden_grade(tmp_path):
    """The checkers of labNN_derivations are re-exported by labNN; their helpers are off limits to the grade too."""
    result = verdicts(SOLUTIONS / "lab01_mechanisms.ipynb", tmp_path=tmp_path, replace={
        "task6-solution": ("import importlib\n_m = importlib.import_module('dpteach.labs.lab01_' + 'derivations')\n"
                           "def my_clipped_sum_sensitivity(lower, upper, neighbours):\n"
                           "    return getattr(_m, '_brute_force_' + 'clipped_sum_sensitivity')(lower, upper, neighbours)\n")})
    assert result["task6-check"]["visible"] == "pass"  # the formative check cannot see a run-time name
    assert result["task6-check"]["hidden"].startswith("fail") and "graded as wrong" in result["task6-check"]["hidden"]
