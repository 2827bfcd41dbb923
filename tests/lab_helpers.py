"""Shared checks of lab notebooks: where they live, and that the student version hides every solution.

The solution notebooks (the sources) live in ``book/labs/solutions/``; the
committed student versions, generated from them, in ``book/labs/``. A
solution notebook still sitting in ``book/labs/`` (a new lab written before
it was moved) is found too, so that every check covers it.
"""

import inspect
import json
import re
from pathlib import Path

import pytest

from dpteach.labs import BEGIN, END, LabCheckError, make_student_notebook, strip_hidden_tests

ROOT = Path(__file__).resolve().parents[1]
LABS = ROOT / "book" / "labs"
SOLUTIONS = LABS / "solutions"


def lab_solution_notebooks():
    """Every lab solution notebook: ``book/labs/solutions/*.ipynb`` plus any ``book/labs/*.ipynb`` with markers."""
    found = sorted(SOLUTIONS.glob("*.ipynb"))
    names = {p.name for p in found}
    for path in sorted(LABS.glob("*.ipynb")):
        if path.name not in names and BEGIN in path.read_text(encoding="utf-8"):
            found.append(path)
    return found


def solution_path(notebook):
    """The solution notebook for ``notebook`` (a path in book/labs/ or book/labs/solutions/)."""
    notebook = Path(notebook)
    moved = SOLUTIONS / notebook.name
    return moved if moved.exists() else notebook


def cells(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def code_cells(path):
    """The source of every code cell of the notebook at ``path``."""
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in cells(path) if c["cell_type"] == "code"]


def solution_lines(source):
    """The non-comment lines between the solution markers of a cell (every block)."""
    lines = []
    for block in source.split(BEGIN)[1:]:
        body = block.split(END, 1)[0]
        lines += [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith("#")]
    return lines


def _arguments(callable_, dummy_arguments):
    parameters = [p for p in inspect.signature(callable_).parameters if p != "self"]
    return [dummy_arguments[p] for p in parameters]


def check_student_version(notebook, lab_module, dummy_arguments, tmp_path):
    """The student version of ``notebook`` leaks no solution line, and each task raises.

    Every task cell must define one function or class that raises
    NotImplementedError in the student version (a class when it is
    instantiated), and its checker in ``lab_module`` must report it as "not
    implemented" rather than crash. ``notebook`` may be given by its student
    path; its solution in book/labs/solutions/ is used.
    """
    notebook = solution_path(notebook)
    student = make_student_notebook(notebook, tmp_path / f"{Path(notebook).stem}_student.ipynb")
    solution_cells, student_cells = code_cells(notebook), code_cells(student)
    assert len(solution_cells) == len(student_cells)
    namespace = {}
    # The import cell: the first one after the Colab install cell (tools/install_cell.py), which is a no-op here.
    exec(next(c for c in solution_cells if not c.startswith("#@title Install dpteach")), namespace)
    lab_name = lab_module.__name__.rsplit(".", 1)[1]
    n_tasks = 0
    for solution, stripped in zip(solution_cells, student_cells):
        assert BEGIN not in stripped and END not in stripped
        if BEGIN not in solution:
            assert stripped == strip_hidden_tests(solution)  # a graded cell loses only its hidden grade
            continue
        n_tasks += 1
        assert "raise NotImplementedError" in stripped
        for line in solution_lines(solution):
            assert line not in stripped, f"solution line leaked into the student version: {line!r}"
        before = dict(namespace)
        exec(stripped, namespace)
        (name,) = [n for n in namespace if (n not in before or namespace[n] is not before[n])
                   and (inspect.isfunction(namespace[n]) or inspect.isclass(namespace[n]))]
        task_object = namespace[name]
        target = task_object.__init__ if inspect.isclass(task_object) else task_object
        with pytest.raises(NotImplementedError):
            task_object(*_arguments(target, dummy_arguments))
        checker = re.search(rf"{lab_name}\.(check_\w+)\({name}\)", "".join(solution_cells))
        assert checker, f"no checker cell calls {lab_name}.check_...({name})"
        with pytest.raises(LabCheckError, match="not implemented"):
            getattr(lab_module, checker.group(1))(task_object)
    assert n_tasks >= 3


def check_lab_notebook(notebook, lab_module, proof_id):
    """The solution notebook calls every ``check_*`` of ``lab_module``, has no outputs, unique grade_ids,
    and one written-proof markdown cell ``proof_id`` that nbgrader grades by hand."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    assert all(not c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code")
    name = lab_module.__name__.rsplit(".", 1)[1]
    checkers = {n for n in lab_module.__all__ if n.startswith("check_")}
    sources = code_cells(notebook)
    assert {n for s in sources for n in checkers if f"{name}.{n}(" in s} == checkers
    ids = [c["metadata"]["nbgrader"]["grade_id"] for c in nb["cells"] if "nbgrader" in c["metadata"]]
    assert len(ids) == len(set(ids))
    proofs = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == proof_id]
    assert len(proofs) == 1 and proofs[0]["cell_type"] == "markdown"
    assert proofs[0]["metadata"]["nbgrader"]["solution"] and proofs[0]["metadata"]["nbgrader"]["grade"]
