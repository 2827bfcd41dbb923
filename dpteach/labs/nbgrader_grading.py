"""The nbgrader step that sets the grade of every dpteach task from outside the student's kernel.

``make course`` lists :class:`IsolatedGrading` in the course's
``nbgrader_config.py`` right after nbgrader's ``Execute``. nbgrader imports
this module when it reads its configuration, before it runs any submission,
so the checkers it grades with are the ones on disk at that moment
(:mod:`dpteach.labs.isolated` reads every file it needs then).

For each graded cell that declares a task (``# dpteach graded:
lab09.check_clipping(my_clip)`` in its hidden part, which nbgrader restores
from the instructor's source) it grades the task with
:func:`dpteach.labs.isolated.grade_task` and *replaces* the cell's outputs:
an error output if the task failed, a one-line verdict if it passed, then
what the notebook itself printed there (its text output only, for the
feedback). Whatever the kernel produced in that cell — an error, a forged
"passed" line, a number that nbgrader would read as partial credit — no
longer counts.
"""

from __future__ import annotations

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer, Unicode

from .isolated import answer_cells, grade_task, graded_task
from .student import cell_source


class IsolatedGrading(NbGraderPreprocessor):
    """Grade each declared task in a fresh answer process and make the cell's outputs say only that verdict."""

    secret = Unicode("", help="The course's secret (make course draws one): it seeds the graded cases.").tag(
        config=True)
    python = Unicode("", help="The interpreter that runs answers, fixed when the course was made.").tag(config=True)
    timeout = Integer(600, help="CPU seconds the answer process of one graded task may use (it is then killed); "
                      "ten times that on the wall clock backs it up.").tag(
        config=True)

    def preprocess(self, nb, resources):
        if not self.secret or not self.python:
            raise ValueError("IsolatedGrading needs c.IsolatedGrading.secret and c.IsolatedGrading.python "
                             "(written by `python -m dpteach.labs course`)")
        cells = answer_cells(nb)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            task = graded_task(cell_source(cell)) if cell.cell_type == "code" and meta.get("grade") else None
            if task is None:
                continue
            result = grade_task(cells, *task, secret=self.secret, python=self.python, timeout=self.timeout)
            self.log.info("dpteach graded %s: %s", meta.get("grade_id"), "passed" if result.passed else "failed")
            printed = [o for o in cell.get("outputs", []) if o.get("output_type") == "stream" and o.get("name") ==
                       "stdout"]
            if result.passed:
                verdict = new_output("stream", name="stdout", text=f"Graded outside the notebook: {result.message}\n")
            else:
                verdict = new_output("error", ename="GradedAsWrong", evalue=result.message,
                                     traceback=[f"Graded outside the notebook: {result.message}"])
            cell.outputs = [verdict, *printed]
        return nb, resources
