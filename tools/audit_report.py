"""The privacy audit report: every private routine's claim next to what an audit certifies.

    python -m tools.audit_report --write   run the quick audits, (re)write book/privacy_audit.md  (`make pages`)
    python -m tools.audit_report --full    run the full audits into benchmarks/audit_full.json, then --write
                                           (`make audit`; minutes)
    python -m tools.audit_report --check   status 1 if the committed page differs from a fresh quick run

The entries, their neighbours, events and settings are :data:`dpteach.registry.CASES`.
The quick results depend only on the code and the fixed seeds, so the page can be
compared with a fresh run; the full results carry the date, machine and commit of
the `make audit` run that produced them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "book" / "privacy_audit.md"
FULL = ROOT / "benchmarks" / "audit_full.json"
#: Written by `python -m tools.accounting_oracle` (needs dp-accounting); read here, so the page builds without it.
LOOSENESS = ROOT / "benchmarks" / "accounting_looseness.json"


#: A docstring that says a routine gives differential privacy (not a bare mention of "privacy"): only a lint now,
#: tests/test_audit_report.py checks that such a routine declares its claim (or is an accountant).
CLAIM = re.compile(r"-DP\b|-LDP\b|differentially private|local randomizer|zCDP")
#: Packages whose callables are not releases: rates, data, checkers, plots, the audit itself.
NOT_RELEASES = ("dpteach.bounds", "dpteach.data", "dpteach.labs", "dpteach.plotting", "dpteach.widgets",
                "dpteach.audit", "dpteach.registry", "dpteach._")


def claimed_private_routines():
    """{canonical name: PrivacyClaim} of every public dpteach routine or learner that declares a privacy claim.

    Read from the declaration next to each routine (``@privacy_claim``, :mod:`dpteach.privacy`, issue 23),
    every module walked (a new chapter is picked up by being there; experiment runners included, a DP-SGD
    written for a chapter is a private routine wherever it lives). Each must have an audit in
    :data:`dpteach.registry.CASES` or a reason in :data:`dpteach.registry.NOT_AUDITED`.
    """
    from tools.theorem_index import declared_claims
    return declared_claims()


def docstring_claims():
    """{canonical name: docstring} of the public callables whose docstring says they give DP (the lint's input)."""
    import importlib
    import inspect
    import pkgutil

    import dpteach
    found = {}
    for info in pkgutil.walk_packages(dpteach.__path__, "dpteach."):
        if info.name.startswith(NOT_RELEASES) or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or not obj.__module__.startswith("dpteach"):
                continue
            if CLAIM.search(inspect.getdoc(obj) or ""):
                found[f"{obj.__module__}.{obj.__qualname__}"] = inspect.getdoc(obj)
    return found


def run_all(settings="quick", progress=False):
    """One row per (entry, variant): the claim, the audit's setup and its certified lower bound."""
    from dpteach import registry
    rows = []
    for entry in registry.CASES:
        for variant in ("correct", "broken") if registry.has_broken(entry) else ("correct",):
            start = time.perf_counter()
            result = registry.run_case(entry, variant, settings)
            rows.append({
                "name": entry.name, "variant": variant, "title": entry.title, "chapter": entry.chapter,
                "routines": list(entry.routines), "broken": entry.broken, "epsilon": entry.epsilon,
                "delta": entry.delta, "neighbours": entry.neighbours, "events": entry.events,
                "event": result.event_name, "epsilon_lower": result.epsilon_lower, "p_hat": result.p_hat,
                "q_hat": result.q_hat, "n_trials": result.n_trials, "confidence": result.confidence,
                "seconds": time.perf_counter() - start,
            })
            if progress:
                print(f"{entry.name:26s} {variant:8s} certified ε ≥ {result.epsilon_lower:.3f} "
                      f"(claim {entry.epsilon:g}) in {rows[-1]['seconds']:.1f} s", flush=True)
    return rows


def run_extreme_all(progress=False):
    """One row per (entry, value of registry.EXTREME_VALUES): refused by validation, or finite and audited."""
    from dpteach import registry
    rows = []
    for entry in registry.CASES:
        for value in registry.EXTREME_VALUES:
            start = time.perf_counter()
            row = registry.run_extreme(entry, value)
            row["value"] = value if value == "bound" else repr(float(value))
            row["bound"] = entry.bound
            row["title"], row["routines"] = entry.title, list(entry.routines)
            rows.append(row)
            if progress:
                outcome = "refused" if row["refused"] else f"certified ε ≥ {row['epsilon_lower']:.3f}"
                print(f"{entry.name:26s} record at {row['value']:24s} {outcome} "
                      f"in {time.perf_counter() - start:.1f} s", flush=True)
    return rows


def extreme_verdict(row):
    """'ok' when validation refused the record, or the release was finite and the audit stayed ≤ the claim.

    'nothing to audit' when the pair could show nothing (``row["degenerate"]``: D and D' the same
    double, or one output with probability 1 on both): finite, but not a passed audit.
    """
    if row["refused"] is not None:
        return "ok"
    if not row["finite"] or row["epsilon_lower"] > row["claim"]:
        return "FAIL"
    return "nothing to audit" if row.get("degenerate") else "ok"


def _extreme_table(rows):
    from dpteach import registry
    labels = {"bound": "the pair's bound"}
    values = [labels[v] if v == "bound" else f"{v:.4g}" for v in registry.EXTREME_VALUES]
    lines = ["| Routine (claim as above) | " + " | ".join(f"record at {v}" for v in values) + " |",
             "|---|" + "---|" * len(values)]
    by_name = {}
    for row in rows:
        by_name.setdefault(row["name"], []).append(row)
    for name, cells in by_name.items():
        text = []
        for row in cells:
            if row["refused"] is not None:
                text.append("refused by validation")
            else:
                finite = "finite" if row["finite"] else "**NOT finite**"
                where = f" (at {row['bound']:.4g})" if row["value"] == "bound" else ""
                if row.get("degenerate") and extreme_verdict(row) != "FAIL":
                    text.append(f"{finite}, nothing to audit ({row['degenerate'].split(':')[0]}){where}")
                else:
                    text.append(f"{finite}, ε ≥ **{row['epsilon_lower']:.3f}** {extreme_verdict(row)}{where}")
        lines.append(f"| {_cell(cells[0]['title'])} | " + " | ".join(_cell(t) for t in text) + " |")
    return lines


def verdict(row):
    """'ok' when a correct routine stays ≤ its claim and a broken one is caught (> claim); else 'FAIL'."""
    above = row["epsilon_lower"] > row["epsilon"]
    return "ok" if above == (row["variant"] == "broken") else "FAIL"


def _short(name):
    return name[len("dpteach."):] if name and name.startswith("dpteach.") else name


def _delta(delta):
    return "0" if delta == 0 else f"{delta:.0e}".replace("e-0", "e-")


def _cell(text):
    """Text safe inside a markdown table cell (a bare | would end the cell)."""
    return text.replace("|", "\\|")


def _table(rows, full_rows):
    full = {(r["name"], r["variant"]): r for r in full_rows or []}
    lines = ["| Ch. | Routine | Claim (ε, δ) | Neighbouring pair | Event (chosen from) | Certified ε ≥, quick "
             "| Certified ε ≥, full | Broken variant: certified ε ≥ (quick / full) |",
             "|---|---|---|---|---|---|---|---|"]
    by_key = {(r["name"], r["variant"]): r for r in rows}
    for row in rows:
        if row["variant"] != "correct":
            continue
        routines = ", ".join(f"`{_short(name)}`" for name in row["routines"])
        quick = f"**{row['epsilon_lower']:.3f}** ({row['confidence']:.0%}, {row['n_trials']:,} runs) {verdict(row)}"
        full_row = full.get((row["name"], "correct"))
        full_text = (f"**{full_row['epsilon_lower']:.3f}** ({full_row['confidence']:.0%}, "
                     f"{full_row['n_trials']:,} runs) {verdict(full_row)}" if full_row else "not run yet")
        broken = by_key.get((row["name"], "broken"))
        if broken:
            full_broken = full.get((row["name"], "broken"))
            broken_text = (f"`{_short(row['broken'])}`: **{broken['epsilon_lower']:.3f}** {verdict(broken)}"
                           + (f" / **{full_broken['epsilon_lower']:.3f}** {verdict(full_broken)}" if full_broken
                              else ""))
        else:
            broken_text = "none in the package"
        lines.append(f"| {row['chapter']} | {_cell(row['title'])}: {routines} "
                     f"| ({row['epsilon']:g}, {_delta(row['delta'])}) | {_cell(row['neighbours'])} "
                     f"| `{row['event']}` ({_cell(row['events'])}) | {quick} | {full_text} | {broken_text} |")
    return lines


def render(rows, full=None, extreme=None):
    """The page's markdown from the quick rows, the full run's record (or None) and the extreme-record rows."""
    from dpteach import registry
    extreme = extreme or []
    failures = [r for r in rows + (full or {}).get("rows", []) if verdict(r) != "ok"]
    failures += [dict(r, variant=f"record at {r['value']}") for r in extreme if extreme_verdict(r) == "FAIL"]
    lines = [
        "# Privacy audit report",
        "",
        "<!-- Generated by `make pages` / `make audit` (python -m tools.audit_report); do not edit by hand. -->",
        "",
        "Every private routine of `dpteach`, its claimed $(\\varepsilon, \\delta)$, and what an empirical audit "
        "certifies about it. An audit runs the routine many times on two neighbouring inputs $D, D'$ and counts "
        "how often an event $E$ happens; if the routine is $(\\varepsilon, \\delta)$-DP, then "
        "$P[M(D) \\in E] \\le e^{\\varepsilon} P[M(D') \\in E] + \\delta$, so the Clopper–Pearson ends of the two "
        "counts give a **lower confidence bound** on the true ε ([Chapter 1](01_dp_basics.ipynb), "
        "`dpteach.audit`). The event is chosen on one batch of runs and certified on fresh runs.",
        "",
        "What to read in the table: for a correct routine the certified bound must stay **at or below the "
        "claim** (a bound above it would prove a bug); for the deliberately broken variant next to it (half "
        "the noise, a forgotten factor) the same audit must certify a bound **above** the claim. A bound "
        "far below the claim is not a failure: an audit only finds what its neighbours and events expose, "
        "and some pairs (marked *loose*) cannot reach the worst case.",
        "",
        "The *quick* column is recomputed whenever the book is built (`make pages`, about 30 s, 95 % "
        "confidence) and by `tests/test_audit_report.py`; the *full* column comes from the last `make audit` "
        f"run{_full_stamp(full)}. The neighbours and events are those of the unit tests "
        "(`dpteach/registry.py` names the test each entry mirrors).",
        "",
    ]
    lines += _table(rows, (full or {}).get("rows"))
    lines += ["", f"**Verdict:** {'every correct routine stays at or below its claim and every broken variant is caught' if not failures else 'FAILURES: ' + ', '.join(sorted({r['name'] + '/' + r['variant'] for r in failures}))}.", ""]
    lines += ["## Extreme records", "",
              "Private on every input the validation accepts: each routine above is run with one record of $D$ "
              "placed at $10^{300}$, at the largest double, at $-10^{300}$, and at the value its own pair uses "
              "(at or beyond the clipping bound); the neighbour changes that record as the pair above does "
              "(`dpteach.registry.extreme_setup`). Either the routine's validation refuses such a record with a "
              "named error (bits, ±1 labels, a bounded domain, feature rows of norm ≤ T), or the release must be "
              "finite on both inputs, raise no warning, and its audit "
              f"({registry.EXTREME_SETTINGS.n_trials:,} runs per input, "
              f"{registry.EXTREME_SETTINGS.confidence:.0%}) must stay at or below the claim. "
              "A cell says *nothing to audit* when the pair cannot show anything: *same bits*, the record and "
              "its neighbour one sensitivity away round to the same double ($10^{300} - 1 = 10^{300}$), or "
              "*same output*, one output has probability 1 on both inputs; such a cell is finite and "
              "warning-free but certifies nothing. "
              "`tests/test_extreme_records.py` runs the same checks, and shows that they catch the old "
              "arithmetic of the Hermite correlations (a NaN release, ε ≥ 4) and of the L1 learners (a fit that "
              "raises).", ""]
    lines += _extreme_table(extreme)
    lines += [""]
    lines += _looseness_section()
    lines += ["## Routines that claim privacy but are not audited on their own", "",
              "Their claim follows from audited parts (composition, parallel composition, post-processing), "
              "or they compute a calibration rather than release data.", "",
              "| Routine | Why not audited on its own |", "|---|---|"]
    for name, reason in sorted(registry.NOT_AUDITED.items()):
        lines.append(f"| `{_short(name)}` | {reason} |")
    lines.append("")
    return "\n".join(lines)


def _looseness_section():
    """'Looseness against a numerical accountant': benchmarks/accounting_looseness.json as a table (issue 24)."""
    if not LOOSENESS.exists():
        return []
    record = json.loads(LOOSENESS.read_text(encoding="utf-8"))
    lines = ["## Looseness against a numerical accountant", "",
             "An audit bounds ε from below; an accountant bounds it from above. Google's `dp-accounting` "
             f"(version {record['dp_accounting']}, privacy loss distributions on a grid of width "
             f"{record['grid']:g}) computes the *tight* ε of the same mechanisms, bracketed from both sides. "
             "`tests/test_accounting_oracle.py` checks that no certified ε on the grid of "
             "`tools/accounting_oracle.py` falls below the tight one (that would be a privacy bug); the table "
             "gives how far above it each accountant stays: certified ε / tight ε (1 = tight).", "",
             "| Routine or accountant | Grid points | Looseness (min – max) |", "|---|---|---|"]
    counts = {}
    for row in record["rows"]:
        counts[row["routine"]] = counts.get(row["routine"], 0) + 1
    for name, entry in record["looseness"].items():
        lines.append(f"| `{name}` | {counts[name]} | {entry['min_ratio']:.2f} – {entry['max_ratio']:.2f} |")
    return lines + [""]


def _full_stamp(full):
    if not full:
        return " (none yet: run `make audit`)"
    return (f" ({full['date']}, commit `{full['commit']}`, {full['machine']}, "
            f"{full['seconds'] / 60:.1f} min, 99 % confidence)")


def load_full():
    return json.loads(FULL.read_text(encoding="utf-8")) if FULL.exists() else None


def _machine():
    cpus = os.cpu_count()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    return f"{platform.machine()} {platform.system()}, {cpus} cores, load average {load}"


def _commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true")
    group.add_argument("--full", action="store_true")
    group.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.full:
        start, machine = time.perf_counter(), _machine()
        rows = run_all("full", progress=True)
        record = {"date": datetime.date.today().isoformat(), "commit": _commit(), "machine": machine,
                  "seconds": time.perf_counter() - start, "rows": rows}
        FULL.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {FULL.relative_to(ROOT)}")
    rows = run_all("quick", progress=not args.check)
    extreme = run_extreme_all(progress=not args.check)
    text = render(rows, load_full(), extreme)
    if args.check:
        if not PAGE.exists() or PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE.relative_to(ROOT)} is stale: run `make pages`")
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    failures = [r for r in rows if verdict(r) != "ok"] + [r for r in extreme if extreme_verdict(r) == "FAIL"]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
