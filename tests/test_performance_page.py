"""The performance page (book/performance.md) is the last `make bench` run, complete and rendered faithfully.

Whether the budgets hold (chapter ≤ 60 s, slider ≤ 0.3 s, whole book ≤ 5 min) is
measured by `make bench`, which exits 1 when one is exceeded, and shown on the page;
timing the book inside the unit tests would be slow and flaky on a shared machine.
These tests are deterministic: they check the committed record, not the machine.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tools/ is a folder of the repository, not part of the installed package

from tools import performance_page as pp  # noqa: E402


def test_the_record_covers_every_notebook_the_book_executes():
    results = pp.load()
    timed = {entry["notebook"] for entry in results["notebooks"]}
    missing = [nb for nb in pp.toc_notebooks() if nb not in timed]
    assert not missing, f"not in the last `make bench` run (rerun it): {missing}"
    for key in ("date", "commit", "machine", "load_average", "budgets", "hermite", "learners"):
        assert key in results
    assert {row["learner"] for row in results["learners"]} == {
        "PrivateHermiteL1Learner", "PrivateProperLearner", "PrivateSemiAgnosticLearner", "DPLasso"}


def test_the_budget_verdicts_follow_the_numbers():
    results = pp.load()
    lines, chapters = pp.summary(results)
    seconds = {e["notebook"]: e["seconds"] for e in results["notebooks"]}
    book = sum(seconds[c] for c in chapters)
    verdicts = {what: within for what, _, _, within in lines}
    assert verdicts["whole book (the notebooks the build executes)"] == (book <= 300.0)
    assert verdicts["slowest chapter"] == (max(seconds[c] for c in chapters) <= 60.0)
    worst = max(r["total"] for e in results["notebooks"] for r in e["redraws"])
    assert verdicts["slowest slider redraw"] == (worst <= 0.3)


def test_committed_page_is_up_to_date():
    assert pp.PAGE.read_text(encoding="utf-8") == pp.render(pp.load()), \
        "book/performance.md is stale: run `python -m tools.performance_page --write`"
