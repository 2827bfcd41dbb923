"""A broken notebook fails the book build (issue 18).

Chapter 7 once shipped a 40-line traceback in its web page while the build
log said "build succeeded" and ``make book`` exited 0. A tiny two-page book is
built in a temporary folder with the book's own ``_config.yml`` (its execution
settings and its ``_ext`` extensions): a clean notebook builds, a notebook whose
cell raises fails the build, and so does one that prints a traceback, a
warning or a path of the build machine into its page.
"""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
JUPYTER_BOOK = Path(sys.executable).with_name("jupyter-book")

pytestmark = pytest.mark.skipif(not JUPYTER_BOOK.exists(), reason="jupyter-book is not installed next to python")


def _tiny_book(folder, cells):
    """intro.md and page.ipynb (with ``cells``), configured exactly like the book except title and toc."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["title"] = "tiny"
    config["bibtex_bibfiles"] = ["references.bib"]
    (folder / "_config.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    (folder / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n- file: page\n")
    (folder / "intro.md").write_text("# Intro\n\nA clean page.\n")
    (folder / "references.bib").write_text((ROOT / "book" / "references.bib").read_text())
    (folder / "_ext").mkdir()
    for extension in (ROOT / "_ext").glob("*.py"):
        (folder / "_ext" / extension.name).write_text(extension.read_text())
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Page")]
                                        + [nbformat.v4.new_code_cell(source) for source in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, str(folder / "page.ipynb"))


def _build(folder):
    result = subprocess.run([str(JUPYTER_BOOK), "build", str(folder), "--builder", "html"], cwd=folder,
                            capture_output=True, text=True, timeout=600)
    return result.returncode, result.stdout + result.stderr


def test_a_clean_book_builds(tmp_path):
    _tiny_book(tmp_path, ["print(sum(range(10)))", "import warnings\nwarnings.warn('to stderr, removed')"])
    status, log = _build(tmp_path)
    assert status == 0, log[-3000:]
    page = (tmp_path / "_build" / "html" / "page.html").read_text()
    assert "45" in page and "UserWarning:" not in page  # the stderr output is dropped (the source stays)
    assert "stderr was found in the cell outputs" in log


def test_a_cell_that_raises_fails_the_build(tmp_path):
    _tiny_book(tmp_path, ["import math\nint(math.nan)"])
    status, log = _build(tmp_path)
    assert status != 0, log[-3000:]
    assert "cannot convert float NaN to integer" in log


def test_a_traceback_warning_or_path_printed_into_a_page_fails_the_build(tmp_path):
    _tiny_book(tmp_path, [
        "import sys, traceback\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n    traceback.print_exc(file=sys.stdout)",
        "print('UserWarning: something was clipped')",
        "import os\nprint(os.getcwd())",
    ])
    status, log = _build(tmp_path)
    assert status != 0, log[-3000:]
    assert "3 notebook output(s) may not ship in the book" in log, log[-3000:]
    assert "page: a traceback" in log and "page: a warning (UserWarning:)" in log
    assert f"page: a path of the build machine ({tmp_path.resolve()})" in log or \
        f"page: a path of the build machine ({tmp_path})" in log
