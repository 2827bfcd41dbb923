"""Time every notebook of the book and every slider redraw in it, against the budgets.

    make bench            (or: .venv/bin/python benchmarks/run.py [--static] [--json FILE] [notebook ...])

Each notebook is executed in a fresh kernel, as nbval and a reader on Binder do
(live ipywidgets; ``--static`` instead times the book build's mode, which also
pre-renders every figure's frames). Before the notebook runs, a setup cell of
this script wraps ``LiveFigure.show`` *in that kernel* to note every figure a
cell shows, with the cell's source; the widget itself keeps no list.
Afterwards, in the same kernel, every such figure is redrawn at its default
values (best of 3) and the time is split into the cell's draw function and the
rendering of the PNG a reader sees.

With ``--json FILE`` (``make bench`` writes benchmarks/results.json) the record also
holds the date, the machine and its load average, the commit, the Hermite feature
throughput (benchmarks/hermite_features.py) and one fit of each learner at its
chapter's settings (benchmarks/learners.py); ``python -m tools.performance_page``
renders it as the book's performance page. The student versions of the labs
(book/labs/lab*.ipynb) are skipped: their task cells raise NotImplementedError by
design, and the book does not execute them; their solutions are timed.

Budgets (2 cores): a notebook < 60 s, the whole book < 300 s, every redraw
< 0.3 s; target for the redraws: median <= 0.15 s. Exits with status 1 if a
budget is exceeded.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_BUDGET, BOOK_BUDGET, REDRAW_BUDGET, REDRAW_MEDIAN_TARGET = 60.0, 300.0, 0.3, 0.15

# Benchmark bookkeeping lives here, in the kernel being measured, not in dpteach.widgets.
SETUP = """
def _bench_install():
    import dpteach.widgets
    original = dpteach.widgets.LiveFigure.show
    if getattr(original, "_bench_wrapper", False):
        return original._bench_figures
    figures = []
    def show(self):
        # The raw source of the running cell: names the notebook cell without trusting counters.
        figures.append((get_ipython().history_manager.input_hist_raw[-1], self))
        return original(self)
    show._bench_wrapper, show._bench_figures = True, figures
    dpteach.widgets.LiveFigure.show = show
    return figures
_bench_figures = _bench_install()
"""

PROBE = """
import json as _json
print("__REDRAWS__" + _json.dumps([
    {"source": _source, "name": getattr(_figure.draw, "__name__", "draw"), **_figure.profile_redraw(3)}
    for _source, _figure in _bench_figures]))
"""


def run(path, static=False):
    """Execute the notebook at ``path``; return (seconds, [redraw profiles with their cell index])."""
    notebook = nbformat.read(path, as_version=4)
    env = dict(os.environ, TQDM_DISABLE="1")
    for variable in ("DPTEACH_STATIC_FRAMES", "MPLBACKEND"):  # a fresh kernel, as on Binder
        env.pop(variable, None)
    if static:
        env["DPTEACH_STATIC_FRAMES"] = "1"
    # nbclient writes each executed cell back into the notebook at its index, so the
    # setup and probe cells are part of the executed notebook: [setup, cells..., probe].
    cells = list(notebook.cells)
    notebook.cells = [nbformat.v4.new_code_cell(SETUP)] + cells + [nbformat.v4.new_code_cell(PROBE)]
    client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()  # kernel start-up counts: a reader waits for it too
    with client.setup_kernel(env=env):
        for index, cell in enumerate(notebook.cells[:-1]):
            client.execute_cell(cell, index)
        elapsed = time.perf_counter() - start  # the probe below is not the notebook's time
        client.execute_cell(notebook.cells[-1], len(notebook.cells) - 1)
    probe = notebook.cells[-1]
    text = "".join(o.get("text", "") for o in probe.outputs if o.get("name") == "stdout")
    redraws = json.loads(text.split("__REDRAWS__", 1)[1]) if "__REDRAWS__" in text else []
    cell_of = {}
    for index, cell in enumerate(cells):
        if cell.cell_type == "code":
            cell_of.setdefault(cell.source.strip(), index)
    for redraw in redraws:
        redraw["cell"] = cell_of.get(redraw.pop("source").strip(), "?")
    return elapsed, redraws


def _context(load_before):
    """Date, machine, load, commit, budgets and the two micro-benchmarks, for the performance page."""
    import datetime
    import platform
    import subprocess
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import hermite_features
    import learners
    model = "unknown CPU"
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo", encoding="utf-8")
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    hermite = hermite_features.measure()
    fits = learners.measure()
    return {"date": datetime.datetime.now().isoformat(timespec="minutes"), "commit": commit,
            "machine": {"cpu": model, "cores": os.cpu_count(), "system": f"{platform.system()} {platform.machine()}",
                        "python": platform.python_version()},
            "load_average": {"before": list(load_before), "after": list(os.getloadavg())},
            "budgets": {"notebook": NOTEBOOK_BUDGET, "book": BOOK_BUDGET, "redraw": REDRAW_BUDGET,
                        "redraw_median_target": REDRAW_MEDIAN_TARGET, "hermite_ratio": hermite_features.BUDGET},
            "hermite": hermite, "learners": fits}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--static", action="store_true", help="time the book build's mode (pre-rendered frames)")
    parser.add_argument("--json", type=Path, help="also write the measurements to this file")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or sorted(
        p for p in (ROOT / "book").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts
        and not (p.parent.name == "labs" and p.name.startswith("lab")))  # student versions: see above
    load_before = os.getloadavg()
    failures, total, results, all_redraws = [], 0.0, [], []
    for path in paths:
        elapsed, redraws = run(path, static=args.static)
        name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        total += elapsed
        flag = "ok " if elapsed < NOTEBOOK_BUDGET else "OVER"
        print(f"[{flag}] {name}: {elapsed:6.1f} s (budget {NOTEBOOK_BUDGET:.0f} s), {len(redraws)} live figures")
        if elapsed >= NOTEBOOK_BUDGET:
            failures.append(str(name))
        for r in redraws:
            slow = r["total"] >= REDRAW_BUDGET
            # Who can fix it: the cell's draw function, or the rendering of what it drew.
            cause = ("" if not slow else
                     "  <- the draw function" if r["draw"] >= r["render"] else "  <- rendering its artists")
            print(f"    [{'OVER' if slow else 'ok '}] cell {r['cell']:>3} {r['name']:<24} {r['total']:.3f} s "
                  f"(draw {r['draw']:.3f} + render {r['render']:.3f}; budget {REDRAW_BUDGET} s){cause}")
            if slow:
                failures.append(f"{path.name} cell {r['cell']} {r['name']}")
            all_redraws.append(r["total"])
        results.append({"notebook": str(name), "seconds": elapsed, "redraws": redraws})
    flag = "ok " if total < BOOK_BUDGET else "OVER"
    print(f"[{flag}] whole book: {total:.1f} s (budget {BOOK_BUDGET:.0f} s) over {len(paths)} notebooks")
    if total >= BOOK_BUDGET:
        failures.append("whole book")
    if all_redraws:
        median, worst = statistics.median(all_redraws), max(all_redraws)
        flag = "ok " if median <= REDRAW_MEDIAN_TARGET else "OVER"
        print(f"[{flag}] redraws: median {median:.3f} s (target {REDRAW_MEDIAN_TARGET} s), "
              f"max {worst:.3f} s (budget {REDRAW_BUDGET} s) over {len(all_redraws)} live figures")
    if args.json:
        args.json.write_text(json.dumps({"total": total, "notebooks": results, **_context(load_before)},
                                        indent=1, ensure_ascii=False) + "\n")
    if failures:
        print("over budget: " + ", ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
