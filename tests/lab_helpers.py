"""Shared checks of lab notebooks: the generated student version hides every solution."""

import inspect
import json
import re
from pathlib import Path

import pytest

from dpteach.labs import BEGIN, END, LabCheckError, make_student_notebook


def code_cells(path):
    """The source of every code cell of the notebook at ``path``."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in cells if c["cell_type"] == "code"]


def solution_lines(source):
    """The non-comment lines between the solution markers of a cell."""
    body = source.split(BEGIN, 1)[1].split(END, 1)[0]
    return [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith("#")]


def check_student_version(notebook, lab_module, dummy_arguments, tmp_path):
    """The student version of ``notebook`` leaks no solution line, and each task raises.

    Every task cell must define one function that raises NotImplementedError in
    the student version, and its checker in ``lab_module`` must report it as
    "not implemented" rather than crash.
    """
    student = make_student_notebook(notebook, tmp_path / f"{Path(notebook).stem}_student.ipynb")
    solution_cells, student_cells = code_cells(notebook), code_cells(student)
    assert len(solution_cells) == len(student_cells)
    namespace = {}
    exec(solution_cells[0], namespace)  # the import cell
    lab_name = lab_module.__name__.rsplit(".", 1)[1]
    n_tasks = 0
    for solution, stripped in zip(solution_cells, student_cells):
        assert BEGIN not in stripped and END not in stripped
        if BEGIN not in solution:
            assert stripped == solution
            continue
        n_tasks += 1
        assert "raise NotImplementedError" in stripped
        for line in solution_lines(solution):
            assert line not in stripped, f"solution line leaked into the student version: {line!r}"
        before = set(namespace)
        exec(stripped, namespace)
        (name,) = [n for n in set(namespace) - before if inspect.isfunction(namespace[n])]
        function = namespace[name]
        arguments = [dummy_arguments[p] for p in inspect.signature(function).parameters]
        with pytest.raises(NotImplementedError):
            function(*arguments)
        checker = re.search(rf"{lab_name}\.(check_\w+)\({name}\)", "".join(solution_cells))
        with pytest.raises(LabCheckError, match="not implemented"):
            getattr(lab_module, checker.group(1))(function)
    assert n_tasks >= 3
