"""The PDF edition (issue 34): built by tools/pdf_book.py and checked as a reader would check it.

Skipped, with the reason, without Debian's TeX packages (tools/pdf_apt_packages.txt). The PDF is
typeset from the notebooks that the browser stage's HTML build executed when that build is fresh
(``_build/jupyter_execute`` newer than every notebook), else every chapter is executed once here.
``DPTEACH_PDF=_build/pdf/dpteach.pdf`` checks an existing build (with its manifest.json and
dpteach.tex.log next to it) instead.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from tools import pdf_book

ROOT = Path(__file__).resolve().parents[1]
EXECUTED = ROOT / "_build" / "jupyter_execute"
BOX_KINDS = ("definition", "theorem", "lemma", "proposition", "corollary", "algorithm", "remark")

if pdf_book.missing_tex():
    pytest.skip(f"no TeX for the PDF (missing: {', '.join(pdf_book.missing_tex())}); {pdf_book.INSTALL_HINT}",
                allow_module_level=True)


def _fresh_html_execution():
    """True if the last HTML build executed every notebook of the PDF after its last edit."""
    toc = pdf_book.pdf_toc(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8")))
    notebooks = [page for page in pdf_book.toc_files(toc) if (ROOT / f"{page}.ipynb").exists()]
    return all((EXECUTED / f"{page}.ipynb").exists()
                and (EXECUTED / f"{page}.ipynb").stat().st_mtime >= (ROOT / f"{page}.ipynb").stat().st_mtime
                for page in notebooks)


@pytest.fixture(scope="module")
def pdf():
    given = os.environ.get("DPTEACH_PDF")
    if given:
        path = Path(given).resolve()
        if not path.exists():
            pytest.fail(f"DPTEACH_PDF={given} does not exist")
    else:
        path, seconds = pdf_book.build(EXECUTED if _fresh_html_execution() else None)
        print(f"\nPDF build: {seconds:.0f} s")
    return path


@pytest.fixture(scope="module")
def manifest(pdf):
    return json.loads((pdf.parent / "manifest.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def text(pdf):
    return subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def tex_log(pdf):
    return (pdf.parent / "dpteach.tex.log").read_text(encoding="utf-8", errors="replace")


def _pages(pdf):
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


def test_page_count_is_plausible(pdf, manifest):
    # Eleven chapters of 15-40 pages (the web pages scroll for 10-30 screens each) plus the front matter and
    # appendix, about 300 pages in December 2026: fewer than 150 means chapters or outputs are missing, more
    # than 600 that something (a table, a listing) is typeset a letter per line or a page per figure.
    pages = _pages(pdf)
    assert 150 <= pages <= 600, pages


def _first_box(notebook):
    """(kind, number, title) of the first numbered prf box of a chapter, from its markdown."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"])
        found = re.search(r"^```\{prf:(\w+)\}\s*(.*?)\n((?::\w+:.*\n)*)", source, re.M)
        if found and found.group(1) in BOX_KINDS:
            number = re.search(r":enumerator:\s*(\S+)", found.group(3))
            if number:
                return found.group(1).title(), number.group(1), found.group(2).strip()
    return None


def _flat(text):
    """``text`` on one line, with LaTeX's typographic quotes as the markdown's straight ones."""
    text = text.replace("\u00ad", "").translate(str.maketrans("\u2018\u2019\u201c\u201d", "''\"\""))
    return re.sub(r"\s+", " ", text).replace("- ", "-")


def test_every_chapter_first_box_is_titled_and_numbered_as_on_the_web(text, manifest):
    flat = _flat(text)
    boxes = [box for box in map(_first_box, manifest["notebooks"]) if box]
    assert len(boxes) >= 10, boxes  # chapters 1-10 each open with a numbered box
    missing = [f"{kind} {number} ({title})" for kind, number, title in boxes
               if _flat(f"{kind} {number} ({title})") not in flat]
    assert not missing, missing


def test_no_unresolved_reference_or_citation(text, tex_log):
    assert "??" not in text, [line for line in text.splitlines() if "??" in line][:10]
    undefined = re.findall(r"(?:Reference|Hyper reference|Citation) `[^']+' on page \d+ undefined", tex_log)
    assert not undefined, undefined[:10]


def _figures(notebook):
    """How many images the executed notebook shows: outputs with image/png (a slider figure's default frame)."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    return sum(1 for cell in nb["cells"] if cell["cell_type"] == "code"
               for output in cell.get("outputs", []) if "image/png" in output.get("data", {}))


def test_every_figure_is_embedded(pdf, manifest):
    expected = sum(_figures(notebook) for notebook in manifest["notebooks"])
    listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
    images = [line for line in listing.splitlines()[2:] if line.split()[2] == "image"]
    # Each figure is drawn once (pdfimages lists every placement); logos or icons would add to it, none exist.
    assert expected >= 50, expected  # the chapters show about a hundred figures: fewer means no outputs at all
    assert len(images) == expected, (len(images), expected)


def test_slider_figures_say_which_values_they_show(text):
    flat = _flat(text)
    assert flat.count("the slider's default") >= 30, flat.count("the slider's default")


# A4 is 595.3 pt wide and the margins are 2.2 cm (62.4 pt) each side: text ends at 532.9 pt.
RIGHT_EDGE = 595.3 - 62.4
# The running footer (page number, section) is the lowest text of a page, its words end at 805.1 pt
# (pdftotext's y grows downwards on the 841.9 pt page); anything lower ran past the bottom margin.
FOOTER_BOTTOM = 805.1
#: Overfull lines allowed in the TeX log, and by how much: a line 2 pt too long is invisible, one
#: 10 pt too long runs visibly into the margin or the next table column (about two characters). The
#: book has 6 such lines (December 2026: narrow header cells such as "Ch." and "Claim" of the audit report's
#: nine-column table, one class name); 10 leaves room for a few more, not for a table in ``l`` columns
#: (over a hundred lines, up to 3500 pt, before _ext/dpteach_latex.py sized the columns).
MAX_OVERFULL_PT = 10.0
MAX_OVERFULL_LINES = 10


def test_no_text_runs_past_the_right_or_bottom_margin(pdf):
    bbox = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    page, past = 0, []
    for line in bbox.splitlines():
        if line.lstrip().startswith("<page"):
            page += 1
        found = re.search(r'xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>', line)
        if found and (float(found.group(1)) > RIGHT_EDGE + MAX_OVERFULL_PT or float(found.group(2)) > FOOTER_BOTTOM + 1):
            past.append((page, found.group(3), float(found.group(1)), float(found.group(2))))
    assert not past, past[:20]


def test_few_overfull_lines_in_the_tex_log(tex_log):
    overfull = [float(width) for width in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", tex_log)]
    visible = [width for width in overfull if width > MAX_OVERFULL_PT]
    assert len(visible) <= MAX_OVERFULL_LINES, sorted(visible, reverse=True)[:20]


def test_no_character_is_missing_from_the_fonts(tex_log):
    # XeLaTeX drops a character its font lacks and only logs it: the reader would see "loss = (x)" for "ℓ(x)".
    missing = sorted(set(re.findall(r"Missing character: There is no (.) ", tex_log)))
    assert not missing, f"characters the PDF's fonts lack (typeset them in _ext/dpteach_latex.py): {missing}"


def test_glued_numbers_are_printed(text, manifest):
    # The numbers the prose quotes are literals between HTML comments (tools/glued_numbers.py): LaTeX drops
    # the comments and must keep the literal. Each is looked up with the plain word that precedes it, so a
    # short number ("37") cannot be found somewhere else by chance.
    flat, missing, count = _flat(text), [], 0
    for notebook in manifest["notebooks"]:
        for cell in json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            source = "".join(cell["source"])
            for found in re.finditer(r"([A-Za-z]{3,}[ (]+)?<!--glue:[^>]*-->(.*?)<!--/glue-->", source):
                count += 1
                probe = _flat((found.group(1) or "") + found.group(2))
                if probe not in flat:
                    missing.append(probe)
    assert count >= 100, count  # the chapters quote about 330 computed numbers
    assert not missing, missing[:10]
