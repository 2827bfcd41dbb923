"""The code listings next to the algorithm boxes (dpteach/listing.py; issue 21, reader review B2).

A listing is a ``remove-input`` code cell ``show_source("dpteach.module.function")``: the web
book, JupyterLab, Binder and Colab all show its output, the function's own source read by
:func:`inspect.getsource` when the cell runs. ``{literalinclude}`` showed nothing in JupyterLab.
"""

import inspect
import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from dpteach import listing

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p for p in (ROOT / "book").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts)
CALL = re.compile(r"\bshow_source\(")
NAME = re.compile(r"""\bshow_source\(\s*["']([\w.]+)["']\s*\)""")


def _source(cell):
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def _listing_cells():
    """(notebook, cell index, cell, names) of every code cell that calls show_source."""
    for path in NOTEBOOKS:
        for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            if cell["cell_type"] == "code" and CALL.search(_source(cell)):
                yield path, index, cell, NAME.findall(_source(cell))


LISTINGS = list(_listing_cells())


def test_no_literalinclude_is_left():
    # It renders as nothing in JupyterLab (jupyterlab-myst), on Binder and on Colab.
    left = [f"{p.relative_to(ROOT)}, cell {i}" for p in NOTEBOOKS
            for i, cell in enumerate(json.loads(p.read_text(encoding="utf-8"))["cells"])
            if "{literalinclude}" in _source(cell)]
    assert not left, left


def test_the_chapters_show_their_listings():
    # 71 listings when they were converted from literalinclude; an empty scan must not pass.
    assert sum(len(names) for *_, names in LISTINGS) >= 60


@pytest.mark.parametrize("path, index, cell, names", LISTINGS,
                         ids=[f"{p.name}-cell{i}" for p, i, *_ in LISTINGS])
def test_listing_cell_names_dpteach_objects_and_prints_their_source(path, index, cell, names, monkeypatch):
    # Every call has a literal name (so that the theorem index and this test can read it) ...
    assert len(names) == len(CALL.findall(_source(cell))) > 0, _source(cell)
    # ... the web book shows the listing, not the call ...
    assert "remove-input" in cell["metadata"].get("tags", [])
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda bundle, raw: shown.append(bundle))
    listing.show_source(*names)
    assert len(shown) == len(names)
    for name, bundle in zip(names, shown):
        obj = listing.resolve(name)
        obj = obj.fget if isinstance(obj, property) else obj
        # ... of an object defined where the name says (an alias would show another function's code) ...
        assert f"{obj.__module__}.{obj.__qualname__}" == name
        # ... and what it prints is that object's source, byte for byte.
        expected = textwrap.dedent(inspect.getsource(obj))
        assert bundle["text/plain"] == expected
        fenced = bundle["text/markdown"]
        assert fenced.startswith("```python\n") and fenced.endswith("\n```\n")
        assert fenced[len("```python\n"):-len("\n```\n")] == expected.rstrip()


def test_theorem_index_reads_the_same_listings():
    sys.path.insert(0, str(ROOT))
    from tools import theorem_index as ti

    from_index = [payload for path in ti.chapter_notebooks() for kind, payload in ti.parse_notebook(path)
                  if kind == "include"]
    from_cells = [name for path, _, _, names in LISTINGS if path in ti.chapter_notebooks() for name in names]
    assert from_index == from_cells


def test_listing_helpers_on_edge_cases():
    # A method is dedented, a property shown by its getter (with its decorator), a bad name named.
    method = listing.source_of("dpteach.local._LocalSQOracleBase.beta_per_query")
    assert method.startswith(("def ", "@")) and not method.startswith(" ")
    with pytest.raises(ValueError, match=r"name='dpteach.mechanisms.no_such_function'.*no_such_function"):
        listing.source_of("dpteach.mechanisms.no_such_function")
    with pytest.raises(ValueError, match=r"name must be a dotted name inside dpteach.*'numpy.mean'"):
        listing.source_of("numpy.mean")
    with pytest.raises(TypeError, match="at least one name"):
        listing.show_source()
    # A source holding a ``` run gets a longer fence, so the listing is not cut there.
    fenced = listing.listing_markdown('x = """\n```\n"""\n')
    assert fenced.startswith("````python\n") and fenced.endswith("\n````\n")


JUPYTER_BOOK = Path(sys.executable).with_name("jupyter-book")


@pytest.mark.skipif(not JUPYTER_BOOK.exists(), reason="jupyter-book is not installed next to python")
def test_web_book_shows_the_listing_not_the_call_nor_the_install_cell(tmp_path):
    """A tiny book with the book's _config.yml: what the web page shows of the three new constructs."""
    import subprocess

    import nbformat
    import yaml

    sys.path.insert(0, str(ROOT))
    from tools import install_cell

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config.update(title="tiny", bibtex_bibfiles=["references.bib"])
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n- file: page\n")
    (tmp_path / "intro.md").write_text("# Intro\n")
    (tmp_path / "references.bib").write_text((ROOT / "book" / "references.bib").read_text(encoding="utf-8"))
    (tmp_path / "_ext").mkdir()
    for extension in (ROOT / "_ext").glob("*.py"):
        (tmp_path / "_ext" / extension.name).write_text(extension.read_text(encoding="utf-8"))
    listing_cell = nbformat.v4.new_code_cell('from dpteach.listing import show_source\n\n'
                                            'show_source("dpteach.mechanisms.laplace_mechanism")')
    listing_cell.metadata["tags"] = ["remove-input"]
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.from_dict(install_cell.install_cell()),
        nbformat.v4.new_markdown_cell("# Page\n\n```{admonition} Speed\n:class: margin\nA margin note.\n```\n\nText."),
        listing_cell])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, str(tmp_path / "page.ipynb"))
    result = subprocess.run([str(JUPYTER_BOOK), "build", str(tmp_path), "--builder", "html"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    page = (tmp_path / "_build" / "html" / "page.html").read_text(encoding="utf-8")
    assert "laplace_mechanism" in page and 'class="highlight' in page  # the listing, highlighted
    assert "show_source(" not in page and "find_spec" not in page  # neither the call nor the install cell
    assert re.search(r'<div class="(margin admonition|admonition margin)">', page)  # sphinx-book-theme floats div.margin
