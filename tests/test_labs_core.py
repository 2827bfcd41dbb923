"""Tests of the lab machinery in dpteach.labs: solution stripping and student-version generation.

A stripping bug either leaks a solution to students (an unmatched marker, a
block left in) or breaks the notebook (wrong indentation), so each test
checks the exact text produced.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dpteach.labs import (BEGIN, END, STUB, LabCheckError, make_student_notebook, make_student_versions,
                          passed, require, strip_solutions)

ROOT = Path(__file__).resolve().parents[1]


def test_strip_solutions_keeps_indentation_of_the_marker():
    source = ("def f(x):\n"
              "    \"\"\"Doc.\"\"\"\n"
              f"    {BEGIN}\n"
              "    y = x + 1\n"
              "    return y\n"
              f"    {END}\n")
    assert strip_solutions(source) == f"def f(x):\n    \"\"\"Doc.\"\"\"\n    {STUB}\n"


def test_stripped_function_raises_not_implemented():
    source = f"def f(x):\n    {BEGIN}\n    return 2 * x\n    {END}\n"
    namespace = {}
    exec(strip_solutions(source), namespace)
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
    assert stripped == (f"{STUB}\nprint('kept')\ndef g():\n        {STUB}\nx = 3\n")
    assert "secret" not in stripped and "a = 1" not in stripped


def test_strip_solutions_handles_a_block_at_the_end_without_newline():
    assert strip_solutions(f"x = 1\n{BEGIN}\ny = 2\n{END}") == f"x = 1\n{STUB}\n"


@pytest.mark.parametrize("source", [
    f"def f():\n    {BEGIN}\n    return 1\n",              # END missing: the solution would leak
    f"def f():\n    return 1\n    {END}\n",                # BEGIN missing
    f"{BEGIN}\na = 1\n{END}\n{BEGIN}\nb = 2\n",            # second block unterminated
])
def test_strip_solutions_raises_on_unmatched_marker(source):
    with pytest.raises(ValueError, match="unmatched"):
        strip_solutions(source)


def test_strip_solutions_leaves_code_without_markers_unchanged():
    source = "import numpy as np\n\ndef f(x):\n    return np.sqrt(x)  # SOLUTION-free\n"
    assert strip_solutions(source) == source


def test_require_and_passed(capsys):
    require(True, "never shown")
    with pytest.raises(LabCheckError, match="the hint"):
        require(False, "the hint")
    assert issubclass(LabCheckError, AssertionError)
    passed("Task 9")
    assert "Task 9" in capsys.readouterr().out


def _write_notebook(path, cells):
    notebook = {
        "cells": [{"cell_type": kind, "metadata": {}, "source": source,
                   **({"outputs": [{"output_type": "stream", "name": "stdout", "text": "old"}],
                       "execution_count": 3} if kind == "code" else {})}
                  for kind, source in cells],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


SOLUTION_CELL = f"def f(x):\n    {BEGIN}\n    return x + 41\n    {END}\n"


def _make_folder(folder):
    folder.mkdir()
    _write_notebook(folder / "lab_a.ipynb", [("markdown", f"# A\nmentions {BEGIN} in prose"),
                                             ("code", SOLUTION_CELL), ("code", "f(1)\n")])
    _write_notebook(folder / "lab_b.ipynb", [("code", ["x = 1\n", "y = 2\n"])])
    (folder / "notes.txt").write_text("not a notebook")


def test_make_student_notebook_strips_code_clears_outputs_and_keeps_markdown(tmp_path):
    _make_folder(tmp_path / "src")
    out = make_student_notebook(tmp_path / "src" / "lab_a.ipynb", tmp_path / "deep" / "dir" / "a.ipynb")
    cells = json.loads(out.read_text(encoding="utf-8"))["cells"]
    assert cells[0]["source"] == f"# A\nmentions {BEGIN} in prose"   # markdown is not stripped
    assert cells[1]["source"] == f"def f(x):\n    {STUB}\n"
    assert cells[2]["source"] == "f(1)\n"
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in cells if c["cell_type"] == "code")


def test_make_student_versions_writes_one_file_per_notebook(tmp_path):
    _make_folder(tmp_path / "src")
    written = make_student_versions(tmp_path / "src", tmp_path / "out")
    assert sorted(p.name for p in written) == ["lab_a.ipynb", "lab_b.ipynb"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["lab_a.ipynb", "lab_b.ipynb"]
    b = json.loads((tmp_path / "out" / "lab_b.ipynb").read_text(encoding="utf-8"))
    assert b["cells"][0]["source"] == "x = 1\ny = 2\n"  # list sources are joined, content kept
    assert "x + 41" not in (tmp_path / "out" / "lab_a.ipynb").read_text(encoding="utf-8")


def test_make_student_versions_refuses_an_empty_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="src_dir"):
        make_student_versions(tmp_path / "empty", tmp_path / "out")


def _run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "dpteach.labs", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def test_command_line_writes_student_versions(tmp_path):
    _make_folder(tmp_path / "src")
    result = _run_cli("student", "--src", str(tmp_path / "src"), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("wrote ") == 2
    stripped = json.loads((tmp_path / "out" / "lab_a.ipynb").read_text(encoding="utf-8"))
    assert stripped["cells"][1]["source"] == f"def f(x):\n    {STUB}\n"


def test_command_line_fails_on_an_empty_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    result = _run_cli("student", "--src", str(tmp_path / "empty"), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode != 0
    assert "no lab notebooks" in result.stderr
    assert not (tmp_path / "out").exists()


def test_command_line_rejects_unknown_command(tmp_path):
    result = _run_cli("solutions", cwd=tmp_path)
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_every_lab_notebook_in_the_book_has_a_student_version(tmp_path):
    # The real labs: the stripped versions exist, contain no marker, and keep every cell.
    written = make_student_versions(ROOT / "book" / "labs", tmp_path)
    assert written
    for path in written:
        text = path.read_text(encoding="utf-8")
        student = json.loads(text)
        source = json.loads((ROOT / "book" / "labs" / path.name).read_text(encoding="utf-8"))
        assert len(student["cells"]) == len(source["cells"])
        assert all(BEGIN not in "".join(c["source"]) for c in student["cells"] if c["cell_type"] == "code")
