"""Generators of the book's generated pages (run from the repository root).

    python -m tools.theorem_index --write     book/theorem_index.md from the notebooks, dpteach and tests/
    python -m tools.audit_report --write      book/privacy_audit.md (quick audits + the last `make audit`)
    python -m tools.audit_report --full       runs the full audits into benchmarks/audit_full.json first
    python -m tools.performance_page --write  book/performance.md from benchmarks/results.json (`make bench`)

Each takes ``--check`` instead of ``--write`` to fail (status 1) when the committed
page differs from what the sources give. ``make pages`` runs the three writers.

These read the repository (book/, tests/, benchmarks/), so they live here and not
in the installed package; the registry of audits they render is
:mod:`dpteach.registry`, which the tests import too.
"""
