"""Tests of the lab machinery in dpteach.labs and of every lab notebook in the book.

A stripping bug either leaks a solution to students (a misspelled marker, a
block left in, a model answer kept) or breaks the notebook (wrong
indentation), so each test checks the exact text produced. The tests over
"every lab" glob the solution notebooks, so the labs of later chapters are
covered as soon as they land.
"""

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dpteach.labs import (BEGIN, END, STUB, TEXT_STUB, LabCheckError, make_student_notebook, make_student_versions,
                          passed, require, strip_solutions, student_version_drift, validate_lab_notebook)
from lab_helpers import LABS, ROOT, SOLUTIONS, cells, lab_solution_notebooks, solution_lines

SOLUTION_META = {"nbgrader": {"grade": False, "grade_id": "task1-solution", "locked": False, "schema_version": 3,
                              "solution": True, "task": False}}
CHECK_META = {"nbgrader": {"grade": True, "grade_id": "task1-check", "locked": True, "points": 1,
                           "schema_version": 3, "solution": False, "task": False}}
ANSWER_META = {"nbgrader": {"grade": True, "grade_id": "task2-proof", "locked": False, "points": 2,
                            "schema_version": 3, "solution": True, "task": False}}


# --- strip_solutions -------------------------------------------------------------------------

def test_strip_solutions_keeps_indentation_of_the_marker():
    source = ("def f(x):\n"
              "    \"\"\"Doc.\"\"\"\n"
              f"    {BEGIN}\n"
              "    y = x + 1\n"
              "    return y\n"
              f"    {END}\n")
    assert strip_solutions(source) == f"def f(x):\n    \"\"\"Doc.\"\"\"\n    {STUB}\n"


def test_stripped_function_raises_not_implemented():
    namespace = {}
    exec(strip_solutions(f"def f(x):\n    {BEGIN}\n    return 2 * x\n    {END}\n"), namespace)
    with pytest.raises(NotImplementedError):
        namespace["f"](1)


def test_strip_solutions_handles_several_blocks_and_keeps_the_text_between():
    source = (f"{BEGIN}\na = 1\n{END}\n"
              "print('kept')\n"
              "def g():\n"
              f"        {BEGIN}\n"
              "        return 'secret'\n"
              f"        {END}\n"
              "x = 3\n")
    stripped = strip_solutions(source)
    assert stripped == f"{STUB}\nprint('kept')\ndef g():\n        {STUB}\nx = 3\n"
    assert "secret" not in stripped and "a = 1" not in stripped


def test_strip_solutions_handles_a_block_at_the_end_without_newline():
    # As nbgrader's ClearSolutions (split and join on "\n"): no newline is added after the stub, so the
    # student version's cell equals nbgrader's release (tests/test_nbgrader.py compares them).
    assert strip_solutions(f"x = 1\n{BEGIN}\ny = 2\n{END}") == f"x = 1\n{STUB}"


def test_strip_solutions_and_hidden_tests_match_nbgrader_on_every_lab_cell():
    """The student generator and nbgrader's own preprocessors give the same source for every code cell."""
    nbformat = pytest.importorskip("nbformat")
    clear = pytest.importorskip("nbgrader.preprocessors")
    from dpteach.labs import strip_hidden_tests
    from lab_helpers import SOLUTIONS

    solutions = clear.ClearSolutions(code_stub={"python": STUB})
    hidden = clear.ClearHiddenTests()
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            mine = strip_solutions(strip_hidden_tests(cell.source))
            theirs = nbformat.from_dict(dict(cell))
            hidden._remove_hidden_test_region(theirs)
            solutions._replace_solution_region(theirs, "python")
            assert mine == theirs.source, (path.name, cell.source[:80])


@pytest.mark.parametrize("source, message", [
    (f"def f():\n    {BEGIN}\n    return 1\n", "unmatched"),             # END missing: the solution would leak
    (f"def f():\n    return 1\n    {END}\n", "unmatched"),               # BEGIN missing
    (f"{BEGIN}\na = 1\n{END}\n{BEGIN}\nb = 2\n", "unmatched"),           # second block unterminated
    (f"{BEGIN}\n{BEGIN}\na = 1\n{END}\n", "nested"),
    ("### begin solution\nsecret = 1\n### end solution\n", "looks like a solution marker"),   # lowercase
    ("### Begin Solution\nsecret = 1\n### End Solution\n", "looks like a solution marker"),
    ("## BEGIN SOLUTION\nsecret = 1\n## END SOLUTION\n", "looks like a solution marker"),     # two #
    ("### BEGIN SOLUTIONS\nsecret = 1\n### END SOLUTIONS\n", "looks like a solution marker"),
    ("###BEGIN SOLUTION\nsecret = 1\n###END SOLUTION\n", "looks like a solution marker"),
    (f"{BEGIN}  # the answer\nsecret = 1\n{END}\n", "looks like a solution marker"),           # text on the line
    (f"{BEGIN}\nsecret = 1\n### END SOLUTON\n", "looks like a solution marker|unmatched"),      # typo
])
def test_strip_solutions_refuses_anything_that_could_leak(source, message):
    with pytest.raises(ValueError, match=message):
        strip_solutions(source, cell_index=7)
    with pytest.raises(ValueError, match="cell 7"):
        strip_solutions(source, cell_index=7)


def test_strip_solutions_leaves_code_without_markers_unchanged():
    source = "import numpy as np\n\ndef f(x):\n    return np.sqrt(x)  # SOLUTION-free\n"
    assert strip_solutions(source) == source


def test_require_and_passed(capsys):
    require(True, "never shown")
    with pytest.raises(LabCheckError, match="the hint"):
        require(False, "the hint")
    assert issubclass(LabCheckError, AssertionError)   # nbgrader counts it as a failed test
    passed("Task 9")
    assert "Task 9" in capsys.readouterr().out


# --- notebooks -------------------------------------------------------------------------------

def _write_notebook(path, specs):
    notebook = {
        "cells": [{"cell_type": kind, "metadata": meta, "source": source,
                   **({"outputs": [{"output_type": "stream", "name": "stdout", "text": "old"}],
                       "execution_count": 3} if kind == "code" else {})}
                  for kind, source, meta in specs],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


SOLUTION_CELL = f"def f(x):\n    {BEGIN}\n    return x + 41\n    {END}\n"
MODEL_ANSWER = "**Model answer.** The secret proof: $x + 41$."


def _make_folder(folder):
    folder.mkdir(parents=True)
    _write_notebook(folder / "lab_a.ipynb", [("markdown", "# A\nSee [the chapter](../../01_dp_basics.ipynb).", {}),
                                             ("code", SOLUTION_CELL, SOLUTION_META),
                                             ("code", "check(f)\n", CHECK_META),
                                             ("markdown", MODEL_ANSWER, ANSWER_META)])
    _write_notebook(folder / "lab_b.ipynb", [("code", ["x = 1\n", "y = 2\n"], {})])
    (folder / "notes.txt").write_text("not a notebook")


def _sources(path):
    return ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]]


def test_make_student_notebook_strips_code_answers_and_outputs(tmp_path):
    _make_folder(tmp_path / "book" / "labs" / "solutions")
    (tmp_path / "book" / "01_dp_basics.ipynb").write_text("{}")
    out = make_student_notebook(tmp_path / "book" / "labs" / "solutions" / "lab_a.ipynb",
                                tmp_path / "book" / "labs" / "lab_a.ipynb")
    student = json.loads(out.read_text(encoding="utf-8"))["cells"]
    sources = _sources(out)
    assert sources[0] == "# A\nSee [the chapter](../01_dp_basics.ipynb)."   # the link still resolves
    assert sources[1] == f"def f(x):\n    {STUB}\n"
    assert sources[2] == "check(f)\n"
    assert sources[3] == TEXT_STUB                                           # the model answer is gone
    assert "secret" not in out.read_text(encoding="utf-8")
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in student if c["cell_type"] == "code")
    assert student[2]["metadata"] == CHECK_META                              # nbgrader metadata kept


@pytest.mark.parametrize("specs, message", [
    ([("markdown", f"prose with {BEGIN}\nsecret\n{END}", {})], "cell 0 \\(markdown\\) contains a solution marker"),
    ([("markdown", "### begin solution", {})], "cell 0 \\(markdown\\)"),
    ([("code", "x = 1", {}), ("code", SOLUTION_CELL, {})], "cell 1 has solution markers but no nbgrader"),
    ([("code", "x = 1", SOLUTION_META)], "solution cell without"),
    ([("code", SOLUTION_CELL, SOLUTION_META), ("code", "g()", SOLUTION_META | {})], "share the grade_id|without"),
    ([("code", "check(f)", {"nbgrader": CHECK_META["nbgrader"] | {"points": 0}})], "points > 0"),
    ([("code", "check(f)", {"nbgrader": CHECK_META["nbgrader"] | {"locked": False}})], "must be locked"),
    ([("markdown", MODEL_ANSWER, {"nbgrader": ANSWER_META["nbgrader"] | {"grade": False}})], "must be graded"),
])
def test_invalid_notebooks_are_refused_with_the_cell_index(tmp_path, specs, message):
    path = _write_notebook(tmp_path / "bad.ipynb", specs)
    with pytest.raises(ValueError, match=message):
        make_student_notebook(path, tmp_path / "out" / "bad.ipynb")
    assert not (tmp_path / "out").exists()


def test_misspelled_marker_in_a_code_cell_is_refused_with_its_cell(tmp_path):
    path = _write_notebook(tmp_path / "bad.ipynb", [("markdown", "# x", {}),
                                                    ("code", "### Begin Solution\nsecret = 1\n", {})])
    with pytest.raises(ValueError, match="cell 1: line 1 looks like a solution marker"):
        make_student_notebook(path, tmp_path / "bad_student.ipynb")


def test_make_student_versions_writes_one_file_per_notebook_and_nothing_on_error(tmp_path):
    _make_folder(tmp_path / "src")
    written = make_student_versions(tmp_path / "src", tmp_path / "out")
    assert sorted(p.name for p in written) == ["lab_a.ipynb", "lab_b.ipynb"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["lab_a.ipynb", "lab_b.ipynb"]
    assert _sources(tmp_path / "out" / "lab_b.ipynb") == ["x = 1\ny = 2\n"]
    assert student_version_drift(tmp_path / "src", tmp_path / "out") == []
    _write_notebook(tmp_path / "src" / "lab_c.ipynb", [("code", "## BEGIN SOLUTION\nsecret\n", {})])
    with pytest.raises(ValueError, match="lab_c"):
        make_student_versions(tmp_path / "src", tmp_path / "out2")
    assert not (tmp_path / "out2").exists()


def test_make_student_versions_refuses_an_empty_folder_and_overwriting_the_sources(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="src_dir"):
        make_student_versions(tmp_path / "empty", tmp_path / "out")
    _make_folder(tmp_path / "src")
    with pytest.raises(ValueError, match="overwrite the solutions"):
        make_student_versions(tmp_path / "src", tmp_path / "src")


def test_drift_is_reported(tmp_path):
    _make_folder(tmp_path / "src")
    make_student_versions(tmp_path / "src", tmp_path / "out")
    (tmp_path / "out" / "lab_b.ipynb").write_text("{}")
    (tmp_path / "out" / "lab_z.ipynb").write_text(json.dumps({"cells": [{"source": BEGIN}]}))
    problems = dict(student_version_drift(tmp_path / "src", tmp_path / "out"))
    assert set(problems) == {"lab_b.ipynb", "lab_z.ipynb"}
    assert "out of date" in problems["lab_b.ipynb"] and "contains solutions" in problems["lab_z.ipynb"]


def _run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "dpteach.labs", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_command_line_writes_and_checks_student_versions(tmp_path):
    _make_folder(tmp_path / "src")
    result = _run_cli("student", "--src", str(tmp_path / "src"), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("wrote ") == 2
    assert _sources(tmp_path / "out" / "lab_a.ipynb")[1] == f"def f(x):\n    {STUB}\n"
    check = _run_cli("student", "--check", "--src", str(tmp_path / "src"), "--out", str(tmp_path / "out"),
                     cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    (tmp_path / "out" / "lab_a.ipynb").unlink()
    check = _run_cli("student", "--check", "--src", str(tmp_path / "src"), "--out", str(tmp_path / "out"),
                     cwd=tmp_path)
    assert check.returncode == 1 and "lab_a.ipynb: missing" in check.stderr


def test_command_line_fails_on_an_empty_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    result = _run_cli("student", "--src", str(tmp_path / "empty"), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode != 0
    assert "no lab notebooks" in result.stderr
    assert not (tmp_path / "out").exists()


def test_command_line_rejects_unknown_command(tmp_path):
    result = _run_cli("solutions", cwd=tmp_path)
    assert result.returncode == 2 and "invalid choice" in result.stderr


# --- the labs of the book ----------------------------------------------------------------------

LAB_SOLUTIONS = lab_solution_notebooks()
LAB_IDS = [p.name for p in LAB_SOLUTIONS]


def test_solution_notebooks_live_outside_the_built_book_and_students_get_the_generated_versions():
    # Students open book/labs/*.ipynb (web page, download, Binder, Colab); they must be exactly what the
    # generator writes from book/labs/solutions/ now. A solution left in book/labs/ is reported too.
    assert LAB_SOLUTIONS
    problems = student_version_drift(SOLUTIONS, LABS)
    assert problems == [], "\n".join(f"{name}: {why}" for name, why in problems)


def test_toc_and_build_config_serve_student_labs_and_do_not_execute_them():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert "labs/solutions" not in toc
    for entry in re.findall(r"file:\s*(book/labs/\S+)", toc):
        path = ROOT / f"{entry}.ipynb"
        assert path.exists() and BEGIN not in path.read_text(encoding="utf-8"), entry
    # The student pages raise NotImplementedError, so the build must not execute them (myst-nb matches
    # the pattern against the end of the path: book/labs/solutions/* is not matched).
    patterns = config["execute"]["exclude_patterns"]
    from pathlib import PurePosixPath
    assert any(PurePosixPath("/x/book/labs/lab01_mechanisms.ipynb").match(p) for p in patterns)
    assert not any(PurePosixPath("/x/book/01_dp_basics.ipynb").match(p) for p in patterns)


def _grade(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def _task(grade_id):
    return grade_id.rsplit("-", 1)[0]


@pytest.mark.parametrize("path", LAB_SOLUTIONS, ids=LAB_IDS)
def test_every_lab_has_valid_nbgrader_metadata_and_a_written_proof(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    validate_lab_notebook(notebook)
    graded_code = [c for c in notebook["cells"] if c["cell_type"] == "code" and _grade(c).get("grade")]
    answers = [c for c in notebook["cells"] if c["cell_type"] == "markdown" and _grade(c).get("solution")]
    solutions = [c for c in notebook["cells"] if c["cell_type"] == "code" and _grade(c).get("solution")]
    assert len(graded_code) >= 3 and len(solutions) >= 3, "at least three auto-checked tasks"
    assert len(answers) >= 1, "one written-proof task with a model answer"
    assert all(len("".join(c["source"])) > 200 for c in answers), "the model answer is written out"
    assert all(not c.get("outputs") for c in notebook["cells"] if c["cell_type"] == "code")
    assert all("hide-input" not in c.get("metadata", {}).get("tags", []) for c in notebook["cells"])


def _defined_names(source):
    tree = ast.parse(source)
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))} | \
           {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)}


def _used_names(source):
    return {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}


@pytest.mark.parametrize("path", LAB_SOLUTIONS, ids=LAB_IDS)
def test_every_task_is_graded_independently(path):
    # A checker cell may use only its own task's answer: solving one task alone must earn its points.
    notebook_cells = cells(path)
    owner = {}
    for cell in notebook_cells:
        meta = _grade(cell)
        if cell["cell_type"] == "code" and meta.get("solution"):
            for name in _defined_names("".join(cell["source"])):
                owner[name] = _task(meta["grade_id"])
    for cell in notebook_cells:
        meta = _grade(cell)
        if cell["cell_type"] == "code" and meta.get("grade"):
            foreign = {name: owner[name] for name in _used_names("".join(cell["source"]))
                       if name in owner and owner[name] != _task(meta["grade_id"])}
            assert not foreign, f"checker {meta['grade_id']} uses other tasks' answers: {foreign}"


@pytest.mark.parametrize("path", LAB_SOLUTIONS, ids=LAB_IDS)
def test_every_lab_says_at_the_top_to_run_the_tasks_one_at_a_time(path):
    # N13: a checker raises LabCheckError while its task is unsolved, so Run All on a fresh student lab
    # stops at the first task and never reaches the others; the first text a student reads says so.
    first = next(cell for cell in cells(path) if cell["cell_type"] == "markdown")
    opening = "".join(first["source"]).split("\n\n")[:2]  # the title and the paragraph after it
    assert re.search(r"Run the tasks one at a time", opening[1]) and "Run All" in opening[1], opening


NON_STANDARD_MACROS = re.compile(r"\\(eps|R|E|Lap|err|OPT|sign|N|D|H)(?![A-Za-z])")


@pytest.mark.parametrize("path", LAB_SOLUTIONS, ids=LAB_IDS)
def test_lab_markdown_uses_standard_latex_and_labelled_references(path):
    for index, cell in enumerate(cells(path)):
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        assert not NON_STANDARD_MACROS.search(text), f"cell {index}: {NON_STANDARD_MACROS.search(text).group(0)}"
        for reference in re.findall(r"\{(?:prf:ref|ref|numref)\}`([^`]*)`", text):
            assert "<" in reference, f"cell {index}: a reference without explicit text: {reference}"
        assert "{eq}" not in text, f"cell {index}: an {{eq}} reference shows only a number outside its chapter"


@pytest.mark.parametrize("path", LAB_SOLUTIONS, ids=LAB_IDS)
def test_committed_student_version_leaks_nothing_and_its_links_resolve(path):
    student = LABS / path.name
    if not student.exists():
        pytest.fail(f"{path.name}: no student version in book/labs/ (run `make labs`)")
    text = student.read_text(encoding="utf-8")
    assert BEGIN not in text and END not in text
    for cell in cells(path):
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and BEGIN in source:
            for line in solution_lines(source):
                assert line not in text, f"solution line leaked: {line!r}"
        if cell["cell_type"] == "markdown" and _grade(cell).get("solution"):
            assert source.strip()[:80] not in text, "a model answer leaked"
    for cell in cells(student):
        for target in re.findall(r"\]\(([^)\s#]+)", "".join(cell["source"])):
            if not re.match(r"^[a-z]+:", target):
                assert (student.parent / target).exists(), f"broken link in the student version: {target}"
