"""The numbers quoted in the prose are plain literals in a marker that names their glued value (issue 30).

``<!--glue:key:fmt-->3.41<!--/glue-->`` shows the number everywhere (web, JupyterLab, Colab, LaTeX);
myst-nb's ``{glue:text}`` role showed its raw key outside the web book. These tests need no
execution: the markup of every chapter, and the tool (``tools/glued_numbers.py``) on small inputs.
Whether each literal equals the executed value is checked where the chapters are executed anyway:
the book build (``_ext/dpteach_glued_numbers.py``) and nbval (``book/conftest.py``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from IPython.core.formatters import format_display_data
from myst_nb.core.variables import format_plain_text
from tools import glued_numbers

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p for p in (ROOT / "book").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def _nb(path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_quoted_number_is_a_well_formed_marker_of_a_glued_key(path):
    nb = _nb(path)
    assert glued_numbers.markup_problems(nb) == []
    assert glued_numbers.unknown_keys(nb) == []


def test_the_chapters_quote_their_numbers_as_markers():
    # 295 {glue:text} roles were converted (issue 30); a chapter that quotes none would be a lost conversion.
    counts = {p.name: len(glued_numbers.markers_in(_nb(p))) for p in NOTEBOOKS if p.parent.name == "book"}
    assert sum(counts.values()) >= 295
    assert all(counts[name] > 0 for name in counts if name[:2].isdigit() or name.startswith("A_"))


def _cell(kind, lines):
    cell = {"cell_type": kind, "metadata": {}, "source": lines}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _text(cells):
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                      indent=1, ensure_ascii=False) + "\n"


def _plain(value):
    """The text/plain myst-nb's glue stores for a value (IPython's display formatter)."""
    return format_display_data(value)[0]["text/plain"]


CODE = _cell("code", ['glue("a", 3.14159, display=False)\n', 'glue(f"b_{k}", 12345, display=False)\n',
                      'glue("c" if x else "d", "text", display=False)'])


def test_write_converts_roles_fills_literals_and_is_idempotent():
    text = _text([_cell("markdown", ["π ≈ {glue:text}`a:.2f`, n = {glue:text}`b_1:,d`\n", "and {glue:text}`c`.\n"]),
                  CODE, _cell("markdown", "one string source {glue:text}`a:.3f`\n$x$ {glue}`b_1`")])
    values = {"a": _plain(3.14159), "b_1": _plain(12345), "c": _plain("text")}
    new = glued_numbers.rewrite_notebook_text(text, values)
    cells = json.loads(new)["cells"]
    assert cells[0]["source"] == ["π ≈ <!--glue:a:.2f-->3.14<!--/glue-->, n = <!--glue:b_1:,d-->12,345<!--/glue-->\n",
                                  "and <!--glue:c-->text<!--/glue-->.\n"]
    assert cells[1] == CODE
    assert cells[2]["source"] == ("one string source <!--glue:a:.3f-->3.142<!--/glue-->\n"
                                  "$x$ <!--glue:b_1-->12345<!--/glue-->")
    assert glued_numbers.rewrite_notebook_text(new, values) == new
    nb = json.loads(new)
    assert glued_numbers.markup_problems(nb) == [] and glued_numbers.unknown_keys(nb) == []
    assert glued_numbers.stale_literals(nb, values) == []


def test_write_refreshes_a_stale_literal_and_leaves_the_rest_byte_identical():
    text = _text([_cell("markdown", ["a <!--glue:a:.2f-->9.99<!--/glue--> b\n", "untouched  \\ line\n"]), CODE])
    new = glued_numbers.rewrite_notebook_text(text, {"a": _plain(3.14159)})
    assert new == text.replace("9.99", "3.14")


def test_write_refuses_a_key_that_was_not_glued_and_a_foreign_json_layout():
    text = _text([_cell("markdown", ["{glue:text}`zz:.2f`\n"]), CODE])
    with pytest.raises(KeyError, match="zz"):
        glued_numbers.rewrite_notebook_text(text, {})
    with pytest.raises(ValueError, match="layout"):
        glued_numbers.rewrite_notebook_text(json.dumps(json.loads(text)), {})


def test_stale_literals_names_key_literal_and_computed_value():
    nb = json.loads(_text([_cell("markdown", ["<!--glue:a:.2f-->3.15<!--/glue--> <!--glue:gone-->1<!--/glue-->\n"]),
                           CODE]))
    stale = glued_numbers.stale_literals(nb, {"a": _plain(3.14159)})
    assert stale == [("a", ".2f", "3.15", "3.14"), ("gone", "s", "1", None)]
    lines = glued_numbers.describe_stale("x.ipynb", stale)
    assert "'a'" in lines[0] and "'3.15'" in lines[0] and "'3.14'" in lines[0]
    assert "'gone'" in lines[1] and "not glued" in lines[1]


@pytest.mark.parametrize("value, fmt", [(3.14159, ".2f"), (2.5, ".0f"), (1234567.0, ",.0f"), (12345, ",d"),
                                        (7, ""), (0.000123456, ".3g"), (1.5e-5, ".1e"), (math.inf, ".2f"),
                                        (0.1 + 0.2, "g"), (0.1 + 0.2, "s"), (-0.004, ".2f"), (True, "")])
def test_literals_are_formatted_as_myst_nb_formats_the_glued_value(value, fmt):
    # myst-nb's {glue:text} role: literal_eval of the glued text/plain, then format(); the tool must give that text.
    assert glued_numbers.format_value(_plain(value), fmt or "s") == format_plain_text(_plain(value), fmt or "s")
    if fmt not in ("", "s"):
        assert glued_numbers.format_value(_plain(value), fmt) == format(value, fmt)


def test_a_numpy_scalar_is_quoted_as_myst_nb_would_show_it():
    # NumPy 2 prints np.float64(0.5); myst-nb cannot parse that back and fails on a numeric format:
    # the chapters glue float(...) for that reason, and the tool fails the same way instead of guessing.
    with pytest.raises(ValueError):
        glued_numbers.format_value(_plain(np.float64(0.5)), ".2f")
    nb = json.loads(_text([_cell("markdown", ["<!--glue-varies:a:.2f-->0.50<!--/glue-->\n"]), CODE]))
    [(key, _, literal, computed)] = glued_numbers.stale_literals(nb, {"a": _plain(np.float64(0.5))})
    assert (key, literal) == ("a", "0.50") and "does not format" in computed


def test_malformed_markers_and_leftover_roles_are_reported():
    nb = json.loads(_text([_cell("markdown", ["<!--glue:a:.2f-->3.14\n", "<!--/glue--> split over lines\n",
                                              "{glue:md}`a` and <!--glue:a:.2f-->*3*<!--/glue-->\n"]), CODE]))
    problems = "\n".join(glued_numbers.markup_problems(nb))
    assert problems.count("malformed") == 2 and "role is left" in problems and "not plain text" in problems


def test_keys_from_f_strings_and_expressions_are_known():
    nb = json.loads(_text([CODE, _cell("markdown", ["<!--glue:b_x1-->1<!--/glue--> <!--glue:d-->t<!--/glue-->\n",
                                                    "<!--glue:b_-->1<!--/glue--> <!--glue:e-->1<!--/glue-->\n"])]))
    assert glued_numbers.unknown_keys(nb) == ["b_", "e"]


def test_a_number_that_varies_must_be_glued_but_need_not_repeat():
    # A timing or OpenDP's unseedable sampler: marked once with --varies, refreshed by --write, not compared.
    text = _text([_cell("markdown", ["t = {glue:text}`a:.2f` s, u = {glue:text}`b_1:.1f`\n"]), CODE])
    new = glued_numbers.rewrite_notebook_text(text, {"a": _plain(1.0), "b_1": _plain(2.0)}, varies={"a"})
    assert json.loads(new)["cells"][0]["source"] == [
        "t = <!--glue-varies:a:.2f-->1.00<!--/glue--> s, u = <!--glue:b_1:.1f-->2.0<!--/glue-->\n"]
    later = {"a": _plain(1.5), "b_1": _plain(2.0)}
    nb = json.loads(new)
    assert glued_numbers.stale_literals(nb, later) == []                        # a varied: not compared
    assert glued_numbers.stale_literals(nb, {"b_1": _plain(2.0)}) == [("a", ".2f", "1.00", None)]  # but glued
    assert glued_numbers.stale_literals(nb, {"a": _plain(1.0), "b_1": _plain(2.5)}) == [("b_1", ".1f", "2.0", "2.5")]
    refreshed = glued_numbers.rewrite_notebook_text(new, later)                 # stays a varies marker
    assert "<!--glue-varies:a:.2f-->1.50<!--/glue-->" in refreshed
    assert glued_numbers.markup_problems(json.loads(refreshed)) == []


def test_no_marker_is_left_at_the_start_of_a_line():
    # A line beginning with <!-- is an HTML block in CommonMark, even inside a paragraph: its text would be raw
    # HTML (math unparsed, nothing in LaTeX). --write moves the end of the previous line in front of the marker,
    # never cutting $...$ or a marker in two, or joins the lines; it refuses a number that begins a paragraph.
    text = _text([_cell("markdown", ["with $g$ the lead (here $g$ =\n", "{glue:text}`a:.1f`), while at $x = 1$,\n",
                                     "  {glue:text}`a:.2f` more\n",
                                     "(<!--glue:a:.0f-->3<!--/glue-->,\n", "{glue:text}`a:.3f`).\n"]), CODE])
    new = glued_numbers.rewrite_notebook_text(text, {"a": _plain(3.14159)})
    assert json.loads(new)["cells"][0]["source"] == [
        "with $g$ the lead (here\n", "$g$ = <!--glue:a:.1f-->3.1<!--/glue-->), while at\n",
        "  $x = 1$, <!--glue:a:.2f-->3.14<!--/glue--> more\n",
        "(<!--glue:a:.0f-->3<!--/glue-->, <!--glue:a:.3f-->3.142<!--/glue-->).\n"]
    assert glued_numbers.markup_problems(json.loads(new)) == []
    with pytest.raises(ValueError, match="begins a paragraph"):
        glued_numbers.rewrite_notebook_text(_text([_cell("markdown", ["x\n", "\n", "{glue:text}`a` y\n"]), CODE]),
                                            {"a": _plain(1)})
    leftover = json.loads(_text([_cell("markdown", ["x\n", "<!--glue:a-->1<!--/glue--> y\n"]), CODE]))
    assert "begins a line" in "".join(glued_numbers.markup_problems(leftover))


def test_a_stale_literal_fails_the_book_build(tmp_path):
    # The book's own _config.yml and _ext (test_book_build's tiny book): the build executes the page, and
    # _ext/dpteach_glued_numbers.py compares each literal with the glued value. One right, one stale, one varying.
    from test_book_build import JUPYTER_BOOK, _build, _tiny_book

    if not JUPYTER_BOOK.exists():
        pytest.skip("jupyter-book is not installed next to python")
    _tiny_book(tmp_path, ['from myst_nb import glue\nimport time\nglue("x", 3.14159, display=False)\n'
                          'glue("t", time.process_time(), display=False)'])
    page = json.loads((tmp_path / "page.ipynb").read_text())
    page["cells"].append({"cell_type": "markdown", "metadata": {}, "id": "quoted", "source": [
        "pi is <!--glue:x:.2f-->3.14<!--/glue-->, or <!--glue:x:.3f-->3.14<!--/glue-->; "
        "t = <!--glue-varies:t:.0f-->12345<!--/glue-->.\n"]})
    (tmp_path / "page.ipynb").write_text(json.dumps(page))
    status, log = _build(tmp_path)
    assert status != 0, log[-3000:]
    assert "1 number(s) quoted in the prose differ from what the build computed" in log, log[-3000:]
    assert "page: glue key 'x' (format '.3f'): the prose says '3.14', the executed cell gives '3.142'" in log
