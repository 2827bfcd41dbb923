"""Lab helpers: auto-checkers with actionable feedback, and the student-version generator.

Each chapter's lab is a *solution* notebook in ``book/labs/solutions/``: the
reference code of every task sits between nbgrader's markers::

    ### BEGIN SOLUTION
    ...reference code...
    ### END SOLUTION

and its cells carry nbgrader metadata, so a course can assign it with
nbgrader as it is. CI executes these solution versions. ``python -m
dpteach.labs student`` (``make labs``) writes the student versions to
``book/labs/``, which are committed: the web book, its download button and
the Binder/Colab buttons all give students the student version. See
:mod:`dpteach.labs.student`.

Checkers live in one module per lab (``dpteach.labs.lab01`` ...), built from
the helpers of :mod:`dpteach.labs.checking`. Each raises
:class:`LabCheckError` with a hint for the mistake it found, and prints a
short "passed" line when the answer is right. Every checker has a test
showing that it rejects typical wrong answers, each with its own hint.

These checkers give feedback in the student's kernel. Grades are decided
outside it: :mod:`dpteach.labs.isolated` runs each answer in a fresh
isolated process and the checker in the grading process, on a course's
secret cases; :mod:`dpteach.labs.nbgrader_grading` is that step in nbgrader
(``python -m dpteach.labs course`` configures it).
"""

from __future__ import annotations

from .checking import (LabCheckError, call_student, expect_student_raises, passed, require, require_integer,
                       require_own_code, require_real)
from .student import (BEGIN, BEGIN_HIDDEN, END, END_HIDDEN, SOLUTIONS_DIR, STUB, STUDENT_DIR, TEXT_STUB,
                      make_student_notebook, make_student_versions, strip_hidden_tests, strip_solutions,
                      student_notebook, student_version_drift, validate_lab_notebook)

__all__ = ["LabCheckError", "require", "passed", "call_student", "expect_student_raises", "require_real",
           "require_integer", "require_own_code", "BEGIN", "END", "BEGIN_HIDDEN", "END_HIDDEN", "STUB", "TEXT_STUB",
           "SOLUTIONS_DIR", "STUDENT_DIR", "strip_solutions", "strip_hidden_tests", "validate_lab_notebook",
           "student_notebook", "make_student_notebook", "make_student_versions", "student_version_drift"]
