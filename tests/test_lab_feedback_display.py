"""A failed lab check shows the student one short message, not the checker's traceback (issue 21, B6).

Run in a real IPython shell, as in JupyterLab: the cell still fails (nbgrader counts it),
its output names the task and the fix, and shows none of the checker's frames.
"""

import pytest

pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

from dpteach.labs import checking  # noqa: E402

CHECKER_FRAMES = ("call_student", "checking.py", "check_peel")

# The student version of Task 1 of lab 5, and the checker call of its next cell.
STUB_CELL = '''
from dpteach.labs import lab05
def peel(v, s, epsilon, delta, lam, rng=None):
    raise NotImplementedError("Your code here: replace this line with your solution.")
'''
CRASH_CELL = '''
def peel(v, s, epsilon, delta, lam, rng=None):
    scale = lam / epsilon
    return undefined_name_in_student_code * scale
'''


@pytest.fixture
def shell():
    shell = InteractiveShell.instance()
    yield shell
    shell.set_custom_exc((), None)
    InteractiveShell.clear_instance()


def _run(shell, capsys, setup):
    assert shell.run_cell(setup).success
    capsys.readouterr()
    result = shell.run_cell("lab05.check_peel(peel)")
    return result, capsys.readouterr().out


def test_not_implemented_is_one_line_and_the_cell_still_fails(shell, capsys):
    checking.install_short_traceback(shell)  # what importing dpteach.labs does in a kernel
    result, out = _run(shell, capsys, STUB_CELL)
    assert isinstance(result.error_in_exec, checking.LabCheckError)  # graded as failed
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1 and "not implemented yet" in lines[0] and lines[0].startswith("LabCheckError: Task 1"), out
    assert not any(frame in out for frame in CHECKER_FRAMES), out


def test_without_the_handler_the_checker_frames_show(shell, capsys):
    # The old behaviour the test above rules out: IPython's own traceback through the checker.
    shell.set_custom_exc((), None)
    result, out = _run(shell, capsys, STUB_CELL)
    assert isinstance(result.error_in_exec, checking.LabCheckError)
    assert "call_student" in out and len(out.splitlines()) > 10


def test_a_crash_of_the_students_code_shows_the_students_line_only(shell, capsys):
    checking.install_short_traceback(shell)
    shell.run_cell("from dpteach.labs import lab05")
    result, out = _run(shell, capsys, CRASH_CELL)
    assert isinstance(result.error_in_exec, checking.LabCheckError)
    assert "undefined_name_in_student_code" in out  # the student's failing line is shown ...
    assert "NameError" in out
    assert not any(frame in out for frame in CHECKER_FRAMES), out  # ... and no frame of the checker
