"""Every notebook's box titles and cross-references read in JupyterLab as on the web (issue 21, B4/B5).

The rule is tools/notebook_xrefs.py's: a box's number in ``:enumerator:``, ``:nonumber:`` on every
box and proof, a reference to another notebook as a markdown link to that notebook and label. The
browser test (tests/browser/test_jupyterlab.py) checks what JupyterLab then shows.
"""

import json
import re
from pathlib import Path

import pytest

from tools import notebook_xrefs as nx

ROOT = Path(__file__).resolve().parents[1]
INDEX = nx.label_index()
NOTEBOOKS = nx.notebooks()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.relative_to(nx.BOOK).as_posix() for p in NOTEBOOKS])
def test_notebook_titles_and_references_read_the_same_in_jupyterlab(path):
    problems = nx.problems(path, INDEX)
    assert not problems, "\n".join(problems) + "\nrun `python -m tools.notebook_xrefs --write`"


def test_the_rule_covers_chapters_labs_and_solutions():
    names = {p.relative_to(nx.BOOK).as_posix() for p in NOTEBOOKS}
    assert "06_hermite_improper.ipynb" in names and "labs/lab05_regression.ipynb" in names
    assert "labs/solutions/lab05_regression.ipynb" in names
    # Labels the labs cite from the chapters are found in the chapters.
    assert INDEX["alg-peeling"] == ["05_regression.ipynb"]


def _book(tmp_path, notebooks, pages=()):
    """A book/ folder with notebooks {name: [markdown cell, ...]} and md pages {name: text}."""
    for name, cells in notebooks.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": c} for c in cells],
                                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    for name, text in dict(pages).items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _markdown(path):
    return nx.markdown_sources(path)


def test_rewrite_moves_numbers_to_enumerator_and_links_other_notebooks(tmp_path):
    book = _book(tmp_path, {
        "01_a.ipynb": ["# Chapter one\n\n```{prf:lemma} 1.2 (Tail; cited)\n:label: lem-tail\n:nonumber:\n\nText.\n```\n\n"
                       "```{prf:proof}\nP.\n```\n\n```{prf:proof} (sketch)\nQ.\n```\n\n"
                       "```{exercise} 1.1 (Mean)\n:label: ex-mean\n:nonumber:\nDo.\n```\n\n"
                       "```{prf:algorithm} 1.3\n:label: alg-x\n:nonumber:\nSteps.\n```",
                       "Same notebook: {prf:ref}`Lemma 1.2 <lem-tail>`, {eq}`eq-a`.\n\n$$\nx\n$$ (eq-a)"],
        "labs/lab01.ipynb": ["See {prf:ref}`Lemma 1.2\n<lem-tail>` and {ref}`Exercise 1.1 <ex-mean>`, "
                             "{doc}`../01_a`, {doc}`Chapter 1 <../01_a>`."],
    })
    index = nx.label_index(book)
    for path in nx.notebooks(book):
        nx.rewrite_notebook(path, index, book)
    chapter, = _markdown(book / "01_a.ipynb")[:1]
    assert "```{prf:lemma} Tail; cited\n:label: lem-tail\n:nonumber:\n:enumerator: 1.2\n\nText." in chapter
    assert "```{prf:proof}\n:nonumber:\nP." in chapter
    assert "```{prf:proof}\n:nonumber:\n(sketch)\nQ." in chapter
    assert "```{exercise} Mean\n:label: ex-mean\n:nonumber:\n:enumerator: 1.1\nDo." in chapter
    assert "```{prf:algorithm}\n:label: alg-x\n:nonumber:\n:enumerator: 1.3\nSteps." in chapter
    assert _markdown(book / "01_a.ipynb")[1].startswith("Same notebook: {prf:ref}`Lemma 1.2 <lem-tail>`, {eq}`eq-a`.")
    lab, = _markdown(book / "labs" / "lab01.ipynb")
    assert lab == ("See [Lemma 1.2](../01_a.ipynb#lem-tail) and [Exercise 1.1](../01_a.ipynb#ex-mean), "
                   "[Chapter one](../01_a.ipynb), [Chapter 1](../01_a.ipynb).")
    index = nx.label_index(book)
    assert [p for path in nx.notebooks(book) for p in nx.problems(path, index, book)] == []
    # Idempotent: a second run changes nothing.
    assert not any(nx.rewrite_notebook(path, index, book) for path in nx.notebooks(book))


def test_check_reports_each_kind_of_problem(tmp_path):
    book = _book(tmp_path, {
        "02_b.ipynb": ["```{prf:theorem} 2.1 (Old style)\n:label: thm-b\n:nonumber:\nT.\n```\n\n"
                       "```{prf:lemma} No number\n:label: lem-b\nL.\n```\n\n```{prf:proof}\nP.\n```\n\n"
                       "```{prf:proof} (titled)\n:nonumber:\nP.\n```",
                       "{prf:ref}`thm-b` {prf:ref}`Lemma 1.1 <lem-elsewhere>` {prf:ref}`Lemma 9.9 <lem-nowhere>` "
                       "{doc}`01_c` [x](01_c.ipynb#lem-typo) [y](03_missing.ipynb) $f[u](-1)$"],
        "01_c.ipynb": ["```{prf:lemma} Elsewhere\n:label: lem-elsewhere\n:nonumber:\n:enumerator: 1.1\nL.\n```"],
    })
    found = "\n".join(nx.problems(book / "02_b.ipynb", nx.label_index(book), book))
    for fragment in ["the number goes in :enumerator:", "has no :enumerator: N.M", "'```{prf:lemma} No number' has no "
                     ":nonumber:", "'```{prf:proof}' has no :nonumber:", "a proof's title goes on the body's first line",
                     "needs its text", "points to another notebook (01_c.ipynb): write [text](01_c.ipynb#lem-elsewhere)",
                     "no label 'lem-nowhere'", "{doc}`01_c` is a dead link", "no label 'lem-typo' in book/01_c.ipynb",
                     "no file book/03_missing.ipynb"]:
        assert fragment in found, fragment
    assert "(-1)" not in found  # maths is not a link
    assert nx.problems(book / "01_c.ipynb", nx.label_index(book), book) == []


def test_the_web_book_loads_the_extension_that_reads_this_markup():
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s+dpteach_xrefs: _ext/\s*$", config, re.MULTILINE)
