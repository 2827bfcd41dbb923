"""Every qualitative claim the book makes about an experiment, rerun on seeds the book does not use.

How a claim is tied to its test
-------------------------------
A sentence in a chapter that says what an experiment shows ("L1 beats least
squares here", "the curve flattens past ε ≈ 3") is followed, in the same
markdown cell, by an HTML comment naming the claim::

    ... the private curves stay under the envelope. <!-- claim: ch04-private-auc-under-envelope -->

The comment renders as nothing in the web book and in JupyterLab; it is for
the maintainers. The test that checks the sentence is marked with the same
label, ``@pytest.mark.claim("ch04-private-auc-under-envelope")``, reruns the
chapter's setting (the same dpteach runner with the chapter's parameters) on
seeds from :data:`CLAIM_SEEDS` -- never the book's own -- and asserts the
claim with a tolerance derived in a comment. ``test_claim_labels_match``
fails for a label in a chapter without a test, or a test without a label.

A claim that does not survive its test is rewritten in the chapter, never tuned.

Numbers that an experiment produces are not typed in the prose: the chapter
computes them in a cell and inserts them with myst-nb's ``glue`` and the
``{glue:text}`` role.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np  # noqa: F401  (used by the chapter sections below)
import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"

#: Seeds for the claim tests. The chapters seed their experiments with SEED = 2024MMDD-style
#: constants, 6 or 14; these are disjoint from all of them.
CLAIM_SEEDS = (9001, 9002, 9003)

_LABEL = re.compile(r"<!--\s*claim:\s*([a-z0-9][a-z0-9-]*[a-z0-9])\s*-->")


def claim_labels_in_book():
    """{label: [page, ...]} for every ``<!-- claim: label -->`` in a markdown cell or page of the book."""
    found = {}
    for path in sorted(BOOK.glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for label in _LABEL.findall(text):
            found.setdefault(label, []).append(path.name)
    for path in sorted(BOOK.glob("*.md")):
        for label in _LABEL.findall(path.read_text(encoding="utf-8")):
            found.setdefault(label, []).append(path.name)
    return found


def claim_labels_in_tests():
    """{label: [test name, ...]} for every test function in this module marked ``@pytest.mark.claim``."""
    found = {}
    module = sys.modules[__name__]
    for name, obj in vars(module).items():
        if not name.startswith("test_"):
            continue
        for mark in getattr(obj, "pytestmark", []):
            if mark.name == "claim":
                for label in mark.args:
                    found.setdefault(label, []).append(name)
    return found


def test_claim_labels_match():
    in_book, in_tests = claim_labels_in_book(), claim_labels_in_tests()
    untested = sorted(set(in_book) - set(in_tests))
    unclaimed = sorted(set(in_tests) - set(in_book))
    assert not untested, f"claims in the book without a test in tests/test_claims.py: {untested}"
    assert not unclaimed, f"claim tests whose label appears in no chapter: {unclaimed}"
    twice = sorted(label for label, tests in in_tests.items() if len(tests) > 1)
    assert not twice, f"one test per claim label: {twice}"


# ---------------------------------------------------------------------------------------------
# Chapter 1
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Chapter 2
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Chapter 3
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Chapter 4
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Chapter 5
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Chapter 6
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Chapter 7
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Chapter 8
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Chapter 9
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Appendix A
# ---------------------------------------------------------------------------------------------
