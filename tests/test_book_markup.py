"""Markup that renders wrongly in the web book or on Binder, found without a browser.

Checked in every notebook under book/ (chapters and labs):

* a ``$$`` display must stand in its own paragraph: blank line (or the start of
  a cell / directive) before it and after it. MyST otherwise pairs the dollars
  as inline math and the prose comes out as italic math; and no blank line inside
  it (Sphinx accepts one, jupyterlab-myst on Binder shows raw LaTeX);
* no book-specific TeX macros (``\\eps``, ``\\R`` … and whatever _config.yml
  defines): they exist in the web book only, and show as "Undefined control
  sequence" on Binder, JupyterLab and Colab;
* no workshop talk in student-facing text ("the spec", "dump", "[D?]" tags);
* notebooks are committed without outputs (the build and the tests execute them), except the
  code-listing cells (tools/listings.py);
* no tqdm in notebooks (its widget bars stay in the static page): use _progress.progress;
* no ``{margin}``/``{aside}`` (zero height in JupyterLab): an admonition with ``:class: margin``.
* an inline ``$…$`` never wraps onto a line that Markdown reads as a new block (``+ x``,
  ``- x``, ``# x``, ``> x``, ``1. x``): the math is cut in two and shows as raw TeX (issue 21,
  D2: chapter 3, chapter 9 and lab 4). Checked in the markdown pages too;
* box numbers ("Lemma 6.8") of a chapter follow the page order, per kind of box (D4);
* every role renders on Binder: it stays on one line (jupyterlab-myst shows "⚠ Definition 4.1
  <def-…>" for a role whose text wraps, reader review N3), and it is one jupyterlab-myst resolves
  (``{cite}`` shows "⚠ cai2021cost", N14; ``{glue:text}`` shows its key, N1).
"""

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tools/ is a folder of the repository, not part of the installed package

from tools.listings import listing_names  # noqa: E402

NOTEBOOKS = sorted(p for p in (ROOT / "book").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts)
MARKDOWN_PAGES = sorted(p for p in (ROOT / "book").rglob("*.md")
                        if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts)

# Macros the conventions forbid, plus every macro _config.yml defines for the web
# book, less those that are standard LaTeX anyway (\Pr).
FORBIDDEN_MACROS = {"eps", "R", "E", "Lap", "err", "OPT", "sign", "N", "D", "H"}
STANDARD_LATEX = {"Pr"}

# (notebook, check) pairs that fail today (strict xfail: a fix makes the XPASS fail the suite). None now.
KNOWN_FAILURES = {}


def _config_macros():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    macros = (config.get("sphinx", {}).get("config", {}).get("mathjax3_config", {})
              .get("tex", {}).get("macros", {}))
    return set(macros) - STANDARD_LATEX


def _cells(path):
    if path.suffix == ".md":  # a markdown page is one markdown cell
        return [{"cell_type": "markdown", "source": path.read_text(encoding="utf-8")}]
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell):
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def _markdown_lines(path):
    """(cell index, line number, line) of the markdown prose of a notebook, code fences left out.

    Directive fences (```{prf:theorem} …) hold markdown, so they are kept; code
    fences (```python, ``` …) and ``{code-block}``-like directives are skipped.
    Inline code spans are blanked so that `$$` in code does not count.
    """
    for index, cell in enumerate(_cells(path)):
        if cell["cell_type"] != "markdown":
            continue
        fence, directives = None, []  # an open code fence; the open markdown directives
        for number, line in enumerate(_source(cell).splitlines(), start=1):
            stripped = line.strip()
            match = re.match(r"^(`{3,}|~{3,}|:{3,})(.*)$", stripped)
            if fence is not None:
                if match and match.group(1).startswith(fence) and not match.group(2).strip():
                    fence = None
                yield index, number, ""  # code is neither text nor blank for our purposes
                continue
            if match:
                marker, info = match.group(1), match.group(2).strip()
                if not info and directives and marker.startswith(directives[-1]):
                    directives.pop()  # the end of a directive: its body was markdown
                    yield index, number, stripped
                    continue
                if info.startswith("{") and not re.match(r"\{(code|code-block|code-cell|literalinclude)\}", info):
                    directives.append(marker)
                    yield index, number, stripped
                    continue
                else:
                    fence = marker
                    yield index, number, ""
                    continue
            yield index, number, re.sub(r"`[^`]*`", lambda m: " " * len(m.group()), line)


def _is_boundary(line):
    """A line a display may directly follow or precede: blank, a fence, or a directive option."""
    stripped = line.strip()
    return (not stripped or stripped.startswith(("```", "~~~", ":::"))
            or re.match(r"^:[\w-]+:", stripped) is not None)


def display_math_problems(path):
    problems = []
    by_cell = {}
    for index, number, line in _markdown_lines(path):
        by_cell.setdefault(index, []).append(line)
    for index, lines in by_cell.items():
        inside = False
        for i, line in enumerate(lines):
            if inside and not line.strip():
                # Sphinx accepts it; jupyterlab-myst (Binder, JupyterLab) ends the paragraph there and
                # shows a literal $$, raw LaTeX and "No input for math node" (reader review B1).
                problems.append(f"cell {index}, line {i + 1}: blank line inside a $$ display")
            for match in re.finditer(r"\$\$", line):
                where = f"cell {index}, line {i + 1}: {line.strip()[:80]!r}"
                if not inside:
                    if line[:match.start()].strip():
                        problems.append(f"{where}: $$ display starts after text on the same line")
                    elif i > 0 and not _is_boundary(lines[i - 1]):
                        problems.append(f"{where}: no blank line before the $$ display")
                else:
                    after = line[match.end():].strip()
                    if after and not re.fullmatch(r"\([\w:.-]+\)", after):
                        problems.append(f"{where}: text after the closing $$ on the same line")
                    elif i + 1 < len(lines) and not _is_boundary(lines[i + 1]):
                        problems.append(f"{where}: no blank line after the $$ display")
                inside = not inside
        if inside:
            problems.append(f"cell {index}: a $$ display is never closed")
    return problems


def macro_problems(path):
    names = sorted(FORBIDDEN_MACROS | _config_macros())
    pattern = re.compile(r"\\(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z])")
    return [f"cell {index}, line {number}: \\{m.group(1)} in {line.strip()[:80]!r}"
            for index, number, line in _markdown_lines(path) for m in pattern.finditer(line)]


WORKSHOP_TALK = [
    (re.compile(r"\bspecs?\b", re.IGNORECASE), "mentions the spec"),
    (re.compile(r"\bdump(s|ed)?\b", re.IGNORECASE), "mentions a dump"),
    (re.compile(r"\bseeds/"), "names a file path"),
    (re.compile(r"\[(?:[A-Z]\?|[A-Z]{1,2})\](?!\()"), "a [D?]/[O]/[M]-style source tag"),
]


def _prose_lines(path):
    """Like :func:`_markdown_lines`, with math (inline and display) blanked out."""
    inside, last_cell = False, None
    for index, number, line in _markdown_lines(path):
        if index != last_cell:
            inside, last_cell = False, index
        pieces = line.split("$$")
        kept = []
        for i, piece in enumerate(pieces):
            if i:
                inside = not inside
            if not inside:
                kept.append(re.sub(r"\$[^$]*\$", " ", piece))
        yield index, number, " ".join(kept)


def workshop_problems(path):
    problems = []
    for index, number, prose in _prose_lines(path):  # [n], [M] in math are index sets, not tags
        line = prose
        for pattern, what in WORKSHOP_TALK:
            for match in pattern.finditer(prose):
                problems.append(f"cell {index}, line {number}: {what}: {match.group()!r} in {line.strip()[:80]!r}")
    return problems


# A line that starts a new block even in the middle of a paragraph (CommonMark "interrupts a
# paragraph"): a bullet item, an ATX heading, a block quote, or an ordered list starting at 1.
_BLOCK_START = re.compile(r"^\s*(?:[-+*]\s+\S|#{1,6}\s|>|1[.)]\s)")


def _single_dollars(line):
    # Inline-math delimiters: "$" that is neither half of "$$" nor escaped as "\$".
    return len(re.findall(r"(?<![\\$])\$(?!\$)", line))


def inline_math_problems(path):
    """Lines that start a Markdown block while an inline ``$…$`` of the paragraph is still open."""
    problems = []
    open_math, display, last_cell = False, False, None
    for index, number, line in _markdown_lines(path):
        if index != last_cell or not line.strip():
            open_math, display, last_cell = False, False, index  # a paragraph (or cell) ends
        if not line.strip():
            continue
        for _ in re.findall(r"\$\$", line):
            display = not display
        if display or "$$" in line:
            continue
        if open_math and _BLOCK_START.match(line):
            problems.append(f"cell {index}, line {number}: inline math cut by a new block: {line.strip()[:80]!r}")
        open_math ^= _single_dollars(line) % 2 == 1
    return problems


# A numbered box: ```{prf:lemma} Name with ":enumerator: 6.8" (tools/notebook_xrefs.py, issue 21 B4), or the
# older ```{prf:lemma} 6.8 (Name); ```{exercise} the same; solutions and proofs carry no number.
_NUMBERED_BOX = re.compile(r"^(?:`{3,}|:{3,})\{(prf:(?!proof\b)\w+|exercise)\}\s*(?:([0-9A-Z]+)\.([0-9]+)\b)?")
_ENUMERATOR = re.compile(r"^:enumerator:[ \t]*([0-9A-Z]+)\.([0-9]+)[ \t]*$")


def box_order_problems(path):
    """Box numbers that do not run 1, 2, 3 … in page order, per sequence (statements; exercises).

    The statement boxes of a chapter (definitions, lemmas, theorems, algorithms …) share one
    counter, and exercises have their own; a reader looking for Lemma 8.10 after 8.9 must find
    it there (D4: chapter 6 had 6.8 before 6.2, chapter 8 had 8.11 before 8.10).
    """
    sequences, lines = {}, list(_markdown_lines(path))
    for position, (index, number, line) in enumerate(lines):
        match = _NUMBERED_BOX.match(line)
        if not match:
            continue
        chapter, serial = match.group(2), match.group(3)
        for later_index, _, option in lines[position + 1:]:  # the options right below the opening line
            if later_index != index or not option.startswith(":"):
                break
            enumerator = _ENUMERATOR.match(option)
            if enumerator:
                chapter, serial = enumerator.groups()
        if serial is not None:
            kind = "exercise" if match.group(1) == "exercise" else "statement"
            sequences.setdefault(kind, []).append((chapter, int(serial), f"cell {index}, line {number}"))
    problems = []
    for kind, boxes in sequences.items():
        chapters = {chapter for chapter, _, _ in boxes}
        if len(chapters) > 1:
            problems.append(f"{kind} boxes with several chapter numbers: {sorted(chapters)}")
        for expected, (chapter, got, where) in enumerate(boxes, start=1):
            if got != expected:
                problems.append(f"{where}: {kind} box {chapter}.{got} where {chapter}.{expected} comes in page order")
                break
    return problems


def comment_line_problems(path):
    """Text after an HTML comment that starts a line: Markdown reads that whole line as raw HTML.

    A line beginning with ``<!--`` starts an HTML block, even inside a paragraph, so the rest
    of the line is never parsed: its ``$...$`` showed as raw TeX (the claim markers of chapters
    2, 3, 5, 6, 8 and 9, issue 21). The comment goes at the end of the previous line instead.
    """
    return [f"cell {index}, line {number}: text after a line-starting comment: {line.strip()[:80]!r}"
            for index, number, line in _markdown_lines(path) if re.match(r"^\s*<!--.*?-->\s*\S", line)]


def _is_listing_cell(cell):
    """A well-formed code-listing cell (tools/listings.py), whose outputs tests/test_listings.py checks."""
    try:
        return listing_names(cell) is not None
    except ValueError:  # calls show_source, but not as a listing cell: its outputs are not exempt
        return False


def output_problems(path):
    # The code-listing cells are the one exception: committed with their outputs and execution count
    # (the routines' source, checked byte for byte against the modules by tests/test_listings.py), so
    # that a student sees the code on opening the notebook (reader review N8).
    return [f"cell {index}: committed with outputs or an execution count"
            for index, cell in enumerate(_cells(path))
            if cell["cell_type"] == "code" and not _is_listing_cell(cell)
            and (cell.get("outputs") or cell.get("execution_count") is not None)]


def progress_bar_problems(path):
    # tqdm in a notebook leaves widget bars (and their CDN embed scripts) in the static page;
    # dpteach._progress.progress is silent when TQDM_DISABLE=1.
    return [f"cell {index}: uses tqdm directly: {line.strip()[:80]!r}"
            for index, cell in enumerate(_cells(path)) if cell["cell_type"] == "code"
            for line in _source(cell).splitlines() if re.search(r"\btqdm\b", line)]


def margin_problems(path):
    # jupyterlab-myst lays {margin} (and its alias {aside}) out with zero height, so on Binder the note
    # paints over the next heading or box (reader review B3). An admonition with :class: margin sits in
    # the margin of the web book (sphinx-book-theme's div.margin) and is an ordinary box in JupyterLab.
    return [f"cell {index}, line {number}: {line.strip()[:60]!r}: use ```{{admonition}} Title + :class: margin"
            for index, number, line in _markdown_lines(path)
            if re.match(r"^(`{3,}|:{3,})\{(margin|aside)\}", line.strip())]


#: Roles jupyterlab-myst (Binder) renders as on the web. Others, such as the {cite} and {glue} families,
#: need Sphinx (sphinxcontrib-bibtex, myst-nb's glue store) and show as a "⚠" warning or as their raw key.
BINDER_ROLES = {"doc", "eq", "prf:ref", "ref", "numref", "math", "sub", "sup", "abbr", "download", "term"}
_ROLE = re.compile(r"\{([A-Za-z][\w:.+-]*)\}`([^`]*)`")


def role_problems(path):
    """Roles that Binder's jupyterlab-myst does not render: split across lines, or of a kind it cannot resolve."""
    problems = []
    for index, cell in enumerate(_cells(path)):
        if cell["cell_type"] != "markdown":
            continue
        # The cell's prose with code fences blanked (line by line, so line numbers stay), rejoined so
        # that a role whose text wraps onto the next line is seen whole.
        lines = {number: line for i, number, line in _markdown_lines_raw(path) if i == index}
        text = "\n".join(lines[n] for n in sorted(lines))
        for match in _ROLE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            role = match.group(0).replace("\n", "⏎")[:70]
            if "\n" in match.group(2):
                problems.append(f"cell {index}, line {line}: role split across lines: {role!r}")
            if match.group(1) not in BINDER_ROLES:
                problems.append(f"cell {index}, line {line}: {{{match.group(1)}}} does not render in "
                                f"jupyterlab-myst (Binder): {role!r}")
    return problems


def _markdown_lines_raw(path):
    """_markdown_lines with inline code kept (a role is `{name}` followed by an inline code span)."""
    for index, cell in enumerate(_cells(path)):
        if cell["cell_type"] != "markdown":
            continue
        shown = {n: line for i, n, line in _markdown_lines(path) if i == index}
        for number, line in enumerate(_source(cell).splitlines(), start=1):
            # _markdown_lines gives "" for a line of a code fence, and the line itself (inline code
            # blanked, or stripped for a directive's fence) for prose.
            yield index, number, "" if shown.get(number) == "" and line else line


CHECKS = {"display_math": display_math_problems, "macros": macro_problems,
          "workshop_talk": workshop_problems, "no_outputs": output_problems,
          "progress_bars": progress_bar_problems, "margin_notes": margin_problems,
          "inline_math": inline_math_problems, "box_order": box_order_problems,
          "comment_lines": comment_line_problems,
          # every role jupyterlab-myst cannot render, or split across lines ({glue} roles included: the numbers
          # are literals in markers now, tools/glued_numbers.py)
          "binder_roles": role_problems}


def _cases():
    for path in NOTEBOOKS:
        name = path.relative_to(ROOT).as_posix()
        for check in CHECKS:
            reason = KNOWN_FAILURES.get((name, check))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(path, check, id=f"{name}-{check}", marks=marks)


@pytest.mark.parametrize("path, check", list(_cases()))
def test_notebook_markup(path, check):
    problems = CHECKS[check](path)
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", MARKDOWN_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_markdown_page_inline_math(path):
    problems = inline_math_problems(path)
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def test_bibliography_titles_have_no_math():
    # sphinxcontrib-bibtex prints a title's $...$ as it stands ("over $\ell _q$-balls", D2).
    titles = re.findall(r"^\s*title\s*=\s*[{\"](.*)[}\"],?\s*$", (ROOT / "book" / "references.bib").read_text(encoding="utf-8"),
                        re.MULTILINE | re.IGNORECASE)
    assert titles, "no titles read from references.bib"
    assert not [t for t in titles if "$" in t or "\\" in t], [t for t in titles if "$" in t or "\\" in t]


# The checks themselves, on small cells: each would miss a wrong implementation otherwise.

def _notebook(tmp_path, *markdown, outputs=()):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": text} for text in markdown]
    cells += [{"cell_type": "code", "metadata": {}, "source": "1", "outputs": list(outputs),
               "execution_count": 1 if outputs else None}]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


@pytest.mark.parametrize("text, n_problems", [
    ("Text\n\n$$\nx = 1\n$$\n\nmore text", 0),
    ("Text\n\n$$ x = 1 $$ (eq-x)\n\nmore", 0),
    ("$$\nx\n$$", 0),
    ("```{prf:theorem} 1.1\n:label: thm-x\n$$\nx\n$$\n```", 0),
    ("```python\ny = '$$'\nz = 1\n```", 0),
    ("Use `$$` for displays.", 0),
    ("The same bound holds for\n$$\nx = 1\n$$\n\nmore", 1),   # chapter 1's bug
    ("Text\n\n$$\nx = 1\n$$\nand so on", 1),
    ("Where $$x = 1$$ holds.", 2),
    ("Text\n\n$$\nx = 1", 1),
    ("Text\n\n$$\nx = 1\n\ny = 2\n$$\n\nmore", 1),    # chapter 6's bug (reader review B1)
    ("```{prf:proof}\n$$\n\\begin{aligned}\na\n\n\\end{aligned}\n$$\n```", 1),
])
def test_display_math_check(tmp_path, text, n_problems):
    assert len(display_math_problems(_notebook(tmp_path, text))) == n_problems


@pytest.mark.parametrize("text, n_problems", [
    ("obeys $\\Pr(E) \\le e^{\\varepsilon}\\Pr(E')\n+ \\delta$ for the event", 1),  # lab 4's bug
    ("for each batch: $G \\gets \\sum_i g_i\n       + \\mathcal{N}(0, \\sigma^2)$ and", 1),  # chapter 9's
    ("a $x$ and\n- a list item", 0),               # the math closed before the item
    ("open $x\n\n- item after a blank line $y$", 0),   # a new paragraph resets
    ("costs \\$5 and\n- an item", 0),              # an escaped dollar is not math
    ("bound $a\n# b$", 1),
    ("bound $a +\nb$ fine", 0),                      # the fix: the operator ends the line
    ("$$\nx\n+ y\n$$", 0),                         # inside a display, "+ y" is math
])
def test_inline_math_check(tmp_path, text, n_problems):
    assert len(inline_math_problems(_notebook(tmp_path, text))) == n_problems


def test_comment_line_check(tmp_path):
    bad = "good as $2s$.\n  <!-- claim: ch05-x --> Theorem 5.7 needs $s \\ge 4s$ here"   # chapter 5's bug
    good = "good as $2s$. <!-- claim: ch05-x -->\n  Theorem 5.7 needs $s \\ge 4s$ here"
    assert len(comment_line_problems(_notebook(tmp_path, bad))) == 1
    assert comment_line_problems(_notebook(tmp_path, good)) == []
    assert comment_line_problems(_notebook(tmp_path, "<!-- a comment alone -->\ntext")) == []


def test_margin_check(tmp_path):
    path = _notebook(tmp_path, "```{margin} Speed\ntext\n```", ":::{aside}\ntext\n:::",
                     "```{admonition} Speed\n:class: margin\ntext\n```", "```python\n# {margin}\n```")
    assert [p.split(",")[0] for p in margin_problems(path)] == ["cell 0", "cell 1"]


def test_box_order_check(tmp_path):
    box = "```{{prf:{kind}}} {number} (Name)\n:label: x-{number}\nText.\n```"
    ordered = [box.format(kind=k, number=n) for k, n in [("definition", "8.1"), ("lemma", "8.2"), ("theorem", "8.3")]]
    exercises = ["```{exercise} 8.1 (E)\n:nonumber:\nDo.\n```", "```{solution} ex-1\nDone.\n```",
                 "```{exercise} 8.2 (F)\nDo.\n```"]
    assert box_order_problems(_notebook(tmp_path, *ordered, *exercises)) == []
    swapped = ordered[:2] + [box.format(kind="lemma", number="8.4"), ordered[2]]   # chapter 8's bug
    assert len(box_order_problems(_notebook(tmp_path, *swapped))) == 1
    early = [box.format(kind="lemma", number="6.8"), box.format(kind="definition", number="6.1")]  # chapter 6's
    assert len(box_order_problems(_notebook(tmp_path, *early))) == 1
    assert len(box_order_problems(_notebook(tmp_path, exercises[2], exercises[0]))) == 1
    # The number as an option (issue 21 B4: JupyterLab shows "Lemma 6.8 (Name)" from it).
    option_box = "```{{prf:{kind}}} Name\n:label: y-{number}\n:nonumber:\n:enumerator: {number}\nText.\n```"
    assert box_order_problems(_notebook(tmp_path, *[option_box.format(kind="lemma", number=n) for n in ("6.1", "6.2")])) == []
    assert len(box_order_problems(_notebook(tmp_path, *[option_box.format(kind="lemma", number=n)
                                                        for n in ("6.2", "6.1")]))) == 1


def test_macro_workshop_and_output_checks(tmp_path):
    path = _notebook(tmp_path, r"Let $\eps > 0$ and $x \in \R^d$, $\Pr[E]$, $\varepsilon$, $\Delta$, `\eps`",
                     "As [D?] in the spec, the dump says [O]. Sets $[M]$ and [links](x) are fine.\n\n$$\n\\Pr[E]\n$$",
                     outputs=[{"output_type": "stream", "name": "stdout", "text": "1"}])
    assert [p.split(": ")[1].split(" ")[0] for p in macro_problems(path)] == ["\\eps", "\\R"]
    assert len(workshop_problems(path)) == 4
    assert len(output_problems(path)) == 1
    assert output_problems(_notebook(tmp_path, "text")) == []
    # The web-only macros are gone from _config.yml, and must not come back: a page using one would
    # render online but break on Binder/JupyterLab/Colab.
    assert _config_macros() == set()


def test_only_listing_cells_may_keep_their_outputs(tmp_path):
    listing = "from dpteach.listing import show_source\n\nshow_source(\"dpteach.mechanisms.laplace_mechanism\")"
    shown = [{"output_type": "display_data", "metadata": {}, "data": {"text/plain": ["x"], "text/markdown": ["x"]}}]

    def notebook(source, execution_count=None):
        cell = {"cell_type": "code", "metadata": {}, "source": source, "outputs": shown,
                "execution_count": execution_count}
        path = tmp_path / "nb.ipynb"
        path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
        return path

    assert output_problems(notebook(listing)) == output_problems(notebook(listing, execution_count=1)) == []
    assert len(output_problems(notebook("print(1)"))) == 1
    assert len(output_problems(notebook("print(1)", execution_count=1))) == 1
    # A cell that calls show_source and does more is no listing cell: its outputs are not exempt.
    assert len(output_problems(notebook(listing + "\nprint(1)"))) == 1


# The publishing workflow and the build it publishes (it cannot run here: parse and compare).

def _make_recipe(target):
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"^{target}:", line))
    recipe = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def test_make_unit_runs_the_slow_tests_and_unit_quick_leaves_only_them_out():
    # issue 32: the slow marker shortens a developer's loop, never what `make test` checks.
    (unit,) = _make_recipe("unit")
    (quick,) = _make_recipe("unit-quick")
    assert "pytest tests" in unit and not re.search(r"\s-m\s+[\"']", unit)  # no marker expression
    assert quick == unit + ' -m "not slow"'
    assert "unit" in _make_recipe_targets("test")


def test_the_pdf_test_runs_once_in_its_own_stage_after_the_html_build():
    # tests/test_pdf.py typesets the notebooks the browser stage's HTML build executed; inside `make unit` it
    # would execute the whole book first (minutes), then run again in test-pdf.
    (unit,) = _make_recipe("unit")
    assert "--ignore=tests/test_pdf.py" in unit
    stages = _make_recipe_targets("test")
    assert stages.index("test-pdf") > stages.index("browser")
    assert any("tests/test_pdf.py" in line for line in _make_recipe("test-pdf"))


def _make_recipe_targets(target):
    line = next(line for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
                if re.match(rf"^{target}:", line))
    return line.split(":", 1)[1].split()


def test_pages_workflow_builds_with_make_book_and_deploys_the_html():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text(encoding="utf-8"))
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as True
    assert "push" in triggers and "workflow_dispatch" in triggers
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    runs = [step["run"].strip() for step in build["steps"] if "run" in step]
    assert runs[0] == "make book"  # the same build a developer runs
    # then the PDF edition, typeset from the notebooks that build executed, published next to the HTML
    (pdf,) = runs[1:]
    assert "make pdf EXECUTED=_build/jupyter_execute" in pdf and "tools/pdf_apt_packages.txt" in pdf
    assert pdf.splitlines()[-1] == "cp _build/pdf/dpteach.pdf _build/html/dpteach.pdf"
    uses = [step.get("uses", "") for step in build["steps"]]
    assert any(u.startswith("actions/checkout@") for u in uses)
    upload = next(step for step in build["steps"] if step.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == "_build/html"
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert any(step.get("uses", "").startswith("actions/deploy-pages@") for step in deploy["steps"])


def test_make_book_prerenders_sliders_and_silences_progress_bars():
    (build,) = [line for line in _make_recipe("book") if "jupyter-book build" in line]
    assert "DPTEACH_STATIC_FRAMES=1" in build and "TQDM_DISABLE=1" in build
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^export TQDM_DISABLE \?= 1$", makefile, re.MULTILINE)  # tests and nbval too


def test_tqdm_disable_silences_every_progress_bar(monkeypatch):
    # tqdm's own switch (architecture review S6). dpteach's helper reads it on every call, as tqdm reads it (any
    # non-empty value disables), and then returns the iterable itself: no tqdm import, no widget in a static page.
    import os
    import subprocess

    from dpteach._progress import progress
    items = [1, 2]
    for value in ("1", "0", "true"):
        monkeypatch.setenv("TQDM_DISABLE", value)
        assert progress(items, "x") is items
    monkeypatch.delenv("TQDM_DISABLE")
    bar = progress(items, "x")
    assert bar is not items and list(bar) == items
    bar.close()
    assert progress(items, "x", enabled=False) is items
    # The installed tqdm honours it too (its console bar reads TQDM_* at import, tqdm >= 4.66), so a bar made
    # with tqdm directly (a benchmark, a tool) is silent in the same runs.
    code = "from tqdm import tqdm; print(tqdm(range(1)).disable)"
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, TQDM_DISABLE="1"),
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"


def test_config_passes_myst_options_where_jupyter_book_reads_them():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    # Jupyter Book 1 drops myst_* keys under `parse` other than these three.
    assert set(config["parse"]) <= {"myst_enable_extensions", "myst_substitutions", "myst_url_schemes"}
    assert config["sphinx"]["config"]["myst_dmath_double_inline"] is True
    assert "sphinx-mathjax-offline" in config["sphinx"]["extra_extensions"]


def test_role_check(tmp_path):
    path = _notebook(tmp_path,
                     "See {prf:ref}`Definition 4.1 <def-x>` and {eq}`eq-a`.",          # fine
                     "in {prf:ref}`Definition 4.1\n<def-tracing-adversary>`, and",      # chapter 4's (N3)
                     "Cited from {cite}`cai2021cost` (arXiv v1)",                       # chapter 5's (N14)
                     "slopes are {glue:text}`ch06_slope:.2f` and {cite:p}`dong2022gaussian`",
                     "```python\nx = '{cite}`not a role, code`'\n```",                  # code: not prose
                     "Write `` {cite}`key` `` ... ")
    problems = role_problems(path)
    assert [p.split(":")[0] for p in problems] == ["cell 1, line 1", "cell 2, line 1", "cell 3, line 1",
                                                   "cell 3, line 1", "cell 5, line 1"], problems
    assert "split across lines" in problems[0] and "{cite}" in problems[1]
    assert "{glue:text}" in problems[2] and "{cite:p}" in problems[3]
