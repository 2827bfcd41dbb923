# The numbers a chapter quotes in its prose, <!--glue:key:fmt-->literal<!--/glue--> (tools/glued_numbers.py),
# checked against the values its cells glue, in the execution nbval (`make notebooks`) does anyway:
# after the last cell of each chapter, one more test item, "<notebook>::glued numbers", reads the glue
# records among the outputs nbval received from the kernel and fails on every literal that differs.
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tools/
from tools import glued_numbers  # noqa: E402


class GluedNumbers(pytest.Item):
    """The literals of one notebook against what its cells (the nbval items before this one) glued."""

    def __init__(self, *, cells, **kwargs):
        super().__init__(**kwargs)
        self.cells = cells

    def runtest(self):
        if any(getattr(cell, "dpteach_failed", False) for cell in self.cells):
            pytest.skip("a cell failed, so not every quoted number was computed")
        values = {}
        for cell in self.cells:
            values.update(glued_numbers.glue_values_of_outputs(cell.test_outputs or []))
        nb = json.loads(Path(self.path).read_text(encoding="utf-8"))
        stale = glued_numbers.stale_literals(nb, values)
        if stale:
            raise AssertionError("\n".join(glued_numbers.describe_stale(Path(self.path).name, stale)
                                           + [glued_numbers.FIX]))

    def repr_failure(self, excinfo, style=None):
        return str(excinfo.value) if excinfo.errisinstance(AssertionError) else super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{Path(self.path).name}: glued numbers"


def pytest_collection_modifyitems(session, config, items):
    try:
        from nbval.plugin import IPyNbCell
    except ImportError:
        return
    last = {}  # notebook collector -> index of its last cell item
    for index, item in enumerate(items):
        if isinstance(item, IPyNbCell):
            last[item.parent] = index
    for notebook, index in sorted(last.items(), key=lambda pair: -pair[1]):  # from the end: indices stay valid
        nb = json.loads(Path(notebook.path).read_text(encoding="utf-8"))
        if glued_numbers.markers_in(nb):
            cells = [item for item in items if isinstance(item, IPyNbCell) and item.parent is notebook]
            items.insert(index + 1, GluedNumbers.from_parent(notebook, name="glued numbers", cells=cells))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if outcome.get_result().failed:
        item.dpteach_failed = True
