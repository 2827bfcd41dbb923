"""Time every notebook of the book and every slider redraw in it, against the budgets.

    make bench            (or: .venv/bin/python benchmarks/run.py [notebook ...])

Each notebook is executed in a fresh kernel (as the book build and nbval do);
afterwards, in the same kernel, every figure shown with dpteach.widgets.live_figure
is redrawn at its default values and timed (best of 3, including PNG rendering).
Budgets (2 cores): a notebook < 60 s, the whole book < 300 s, a redraw < 0.3 s.
Exits with status 1 if any budget is exceeded.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_BUDGET, BOOK_BUDGET, REDRAW_BUDGET = 60.0, 300.0, 0.3

PROBE = """
import json as _json
from dpteach.widgets import LiveFigure as _LiveFigure
print("__REDRAWS__" + _json.dumps([[getattr(f.draw, "__name__", "draw"), f.time_redraw()]
                                     for f in _LiveFigure.shown]))
"""


def run(path):
    notebook = nbformat.read(path, as_version=4)
    probe = nbformat.v4.new_code_cell(PROBE)
    client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()  # kernel start-up counts: a reader waits for it too
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            client.execute_cell(cell, index)
        elapsed = time.perf_counter() - start  # the probe below is not the notebook's time
        notebook.cells.append(probe)
        client.execute_cell(probe, len(notebook.cells) - 1)
    text = "".join(o.get("text", "") for o in probe.outputs if o.get("name") == "stdout")
    redraws = json.loads(text.split("__REDRAWS__", 1)[1]) if "__REDRAWS__" in text else []
    return elapsed, redraws


def main(argv):
    paths = [Path(p).resolve() for p in argv] or sorted(
        p for p in (ROOT / "book").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts)
    failures, total = [], 0.0
    for path in paths:
        elapsed, redraws = run(path)
        total += elapsed
        flag = "ok " if elapsed < NOTEBOOK_BUDGET else "OVER"
        print(f"[{flag}] {path.relative_to(ROOT)}: {elapsed:6.1f} s (budget {NOTEBOOK_BUDGET:.0f} s)")
        if elapsed >= NOTEBOOK_BUDGET:
            failures.append(str(path))
        for name, seconds in redraws:
            flag = "ok " if seconds < REDRAW_BUDGET else "OVER"
            print(f"    [{flag}] slider redraw {name}: {seconds:.3f} s (budget {REDRAW_BUDGET} s)")
            if seconds >= REDRAW_BUDGET:
                failures.append(f"{path.name}:{name}")
    flag = "ok " if total < BOOK_BUDGET else "OVER"
    print(f"[{flag}] whole book: {total:.1f} s (budget {BOOK_BUDGET:.0f} s) over {len(paths)} notebooks")
    if total >= BOOK_BUDGET:
        failures.append("whole book")
    if failures:
        print("over budget: " + ", ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
