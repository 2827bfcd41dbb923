"""The code listings next to the algorithm boxes (dpteach/listing.py, tools/listings.py; issues 21 and 30).

A listing is a ``remove-input`` code cell ``show_source("dpteach.module.function")``. Its output
is a caption with the routine's qualified name and the routine's code, docstring cut to its first
paragraph; the notebooks are committed with that output, so JupyterLab, Binder and Colab show the
code on opening a notebook (reader review N8), and the web book re-executes the cell.
Checked here: the committed output is what ``show_source`` prints from the current module, byte
for byte; the folding drops docstring lines and nothing else; a method's caption names its class;
the tool that refreshes the outputs changes nothing else; the web build shows the fresh listing.
"""

import ast
import inspect
import json
import pydoc
import re
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from dpteach import listing

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tools/ is a folder of the repository, not part of the installed package

from tools import listings as tool  # noqa: E402

NOTEBOOKS = tool.notebooks()
STALE = "run `python -m tools.listings --write` (the listed code changed since the outputs were committed)"


def _source(cell):
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def _listing_cells():
    """(notebook, cell index, cell) of every code cell that calls show_source."""
    for path in NOTEBOOKS:
        for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            if tool.calls_show_source(cell):
                yield path, index, cell


LISTINGS = list(_listing_cells())
IDS = [f"{p.name}-cell{i}" for p, i, _ in LISTINGS]
NAMES = sorted({name for _, _, cell in LISTINGS for name in tool.listing_names(cell)})


def _definition_and_docstring(source):
    """(definition node, docstring statement or None) of the routine that ``source`` defines."""
    return ast.parse(source).body[0], listing.docstring_statement(source)


def _without_docstring(source):
    """The lines of ``source`` outside its docstring statement (lines as ast counts them)."""
    lines = source.rstrip("\n").split("\n")
    statement = listing.docstring_statement(source)
    if statement is None:
        return lines
    return lines[:statement.lineno - 1] + lines[statement.end_lineno:]


def test_no_literalinclude_is_left():
    # It renders as nothing in JupyterLab (jupyterlab-myst), on Binder and on Colab.
    left = [f"{p.relative_to(ROOT)}, cell {i}" for p in NOTEBOOKS
            for i, cell in enumerate(json.loads(p.read_text(encoding="utf-8"))["cells"])
            if "{literalinclude}" in _source(cell)]
    assert not left, left


def test_the_chapters_show_their_listings():
    # 71 listings when they were converted from literalinclude, 83 with the callees of issue 30;
    # an empty scan must not pass.
    assert len(NAMES) >= 80 and len(LISTINGS) >= 45


@pytest.mark.parametrize("path, index, cell", LISTINGS, ids=IDS)
def test_listing_cell_is_committed_with_the_listing_show_source_prints(path, index, cell, monkeypatch):
    # The cell is only the import and one literal show_source("…") per line (the tool, the theorem index and
    # this test read the names), and the web book shows the listing, not the call.
    names = tool.listing_names(cell)
    assert len(names) == len(re.findall(r"\bshow_source\(", _source(cell))) > 0
    assert "remove-input" in cell["metadata"].get("tags", [])
    # What the cell displays when it runs ...
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda bundle, raw: shown.append(bundle))
    listing.show_source(*names)
    assert len(shown) == len(names)
    # ... is what is committed, byte for byte: a student sees it before running anything (N8).
    committed = [{mime: "".join(lines) for mime, lines in output["data"].items()} for output in cell["outputs"]]
    assert committed == shown, f"{path.relative_to(ROOT)}, cell {index}: stale listing output; {STALE}"
    assert [output["output_type"] for output in cell["outputs"]] == ["display_data"] * len(names)
    assert cell["execution_count"] == tool.EXECUTION_COUNT, f"{path.relative_to(ROOT)}, cell {index}: {STALE}"
    assert cell["outputs"] == tool.listing_outputs(names)  # and in the layout Jupyter saves (lists of lines)


@pytest.mark.parametrize("name", NAMES)
def test_listing_shows_every_code_line_under_a_caption_naming_its_class(name):
    obj = listing.resolve(name)
    obj = obj.fget if isinstance(obj, property) else obj
    # The name is where the code lives (an alias would show another function's code under its name) ...
    assert f"{obj.__module__}.{obj.__qualname__}" == name
    full = textwrap.dedent(inspect.getsource(obj))
    bundle = listing.listing_bundle(name)
    # ... and the caption says it, so a method's listing names its class (N15: two `def randomize` in a row).
    caption, _, shown = bundle["text/plain"].partition("\n")
    assert caption == f"# {name}" and obj.__qualname__ in caption
    markdown_caption, fenced = bundle["text/markdown"].split("\n\n", 1)
    assert markdown_caption == f"**`{name}`**"
    assert fenced.startswith("```python\n") and fenced.endswith("\n```\n")
    assert fenced[len("```python\n"):-len("\n```\n")] == shown.rstrip()
    # Folding drops docstring lines and nothing else: decorators (the contract and the privacy claim)
    # and every code line stay, in order.
    assert _without_docstring(shown) == _without_docstring(full)
    ast.parse(shown)  # still Python
    definition, statement = _definition_and_docstring(full)
    if statement is None:
        assert shown == full
        return
    original = ast.get_docstring(definition)
    kept = ast.get_docstring(_definition_and_docstring(shown)[0])
    summary = original.split("\n\n")[0]
    if summary == original:  # one paragraph: shown whole
        assert shown == full
    else:  # the first paragraph, then where the rest is; help() finds it by that name
        assert kept == f'{summary}\n(Full docstring: help("{name}").)'
        assert pydoc.locate(name) is listing.resolve(name)


def test_the_listings_are_mostly_code():
    # Reader review N5: 1,599 of the 2,463 listed lines (65 %) were docstring.
    lines = [listing.listing_source(name).splitlines() for name in NAMES]
    docstring_lines = sum(len(shown) - len(_without_docstring("\n".join(shown))) for shown in lines)
    assert docstring_lines < 0.2 * sum(len(shown) for shown in lines)


FOLDING_CASES = [
    # (source, expected listing): the edge cases of the docstring syntax.
    ('def f(x):\n    """One line."""\n    return x\n', None),
    ('def f(x):\n    """One paragraph\n    over two lines.\n    """\n    return x\n', None),
    ('def f(x):\n    """Summary.\n\n    Details.\n    """\n    return x\n',
     'def f(x):\n    """Summary.\n    (Full docstring: help("dpteach.m.f").)"""\n    return x\n'),
    # a raw docstring keeps its prefix (its backslashes stay as written) and its quotes
    ("@deco(1)\ndef f(x):\n    r'''Summary \\alpha\n    on two lines.\n\n    More \\beta.'''  # why\n    return x\n",
     "@deco(1)\ndef f(x):\n    r'''Summary \\alpha\n    on two lines.\n    (Full docstring: help(\"dpteach.m.f\").)'''  # why\n    return x\n"),
    # the summary on the line after the quotes; non-ASCII text (ast counts UTF-8 bytes)
    ('def f(x):\n    """\n    ε-DP summary ∝ e^ε.\n\n    Détails.\n    """\n    return x\n',
     'def f(x):\n    """\n    ε-DP summary ∝ e^ε.\n    (Full docstring: help("dpteach.m.f").)"""\n    return x\n'),
    # only the listed routine's docstring is folded, not that of a function nested in it
    ('class C:\n    """Summary.\n\n    More.\n    """\n\n    def g(self):\n        """Inner.\n\n        More.\n        """\n',
     'class C:\n    """Summary.\n    (Full docstring: help("dpteach.m.f").)"""\n\n'
     '    def g(self):\n        """Inner.\n\n        More.\n        """\n'),
    ('def f(x):\n    return x  # no docstring\n', None),
    ('def f(x):\n    "A one-quote docstring."\n    return x\n', None),
    ('def f(x):\n    """\n\n    """\n    return x\n', None),  # blank
    ('def f(x): """Summary.\n\n    More."""\n', None),  # on the def line: no indentation to copy
    # a form feed is no line break for ast (str.splitlines would count one)
    ('def f(x):\n    """Summary \x0c here.\n\n    More.\n    """\n    return x\n',
     'def f(x):\n    """Summary \x0c here.\n    (Full docstring: help("dpteach.m.f").)"""\n    return x\n'),
]


@pytest.mark.parametrize("source, expected", FOLDING_CASES)
def test_fold_docstring_edge_cases(source, expected):
    folded = listing.fold_docstring(source, "dpteach.m.f")
    assert folded == (source if expected is None else expected)
    assert _without_docstring(folded) == _without_docstring(source)


def test_theorem_index_reads_the_same_listings():
    from tools import theorem_index as ti

    from_index = [payload for path in ti.chapter_notebooks() for kind, payload in ti.parse_notebook(path)
                  if kind == "include"]
    from_cells = [name for path, _, cell in LISTINGS if path in ti.chapter_notebooks()
                  for name in tool.listing_names(cell)]
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
    # A cell that calls show_source and does anything else cannot be filled without running it.
    for source in ['from dpteach.listing import show_source\n\nshow_source("dpteach.peeling.peel")\nprint(1)',
                   'show_source("dpteach.peeling.peel")',
                   'from dpteach.listing import show_source\n\nshow_source(NAME)']:
        with pytest.raises(ValueError, match="a listing cell holds"):
            tool.listing_names({"cell_type": "code", "source": source})


def test_tool_fills_the_outputs_and_changes_no_other_byte(tmp_path):
    original = ROOT / "book" / "03_local_sq.ipynb"  # the chapter with the most listing cells
    committed = original.read_text(encoding="utf-8")
    notebook = json.loads(committed)
    listing_cells = [i for i, cell in enumerate(notebook["cells"]) if tool.listing_names(cell) is not None]
    for index in listing_cells:  # as a notebook looked before issue 30, or after a run and a save
        notebook["cells"][index]["outputs"] = [] if index % 2 else [{"output_type": "stream", "name": "stdout",
                                                                      "text": ["old\n"]}]
        notebook["cells"][index]["execution_count"] = None if index % 2 else 7  # (7: run, saved)
    path = tmp_path / original.name
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert tool.refresh(path) == listing_cells  # --check finds every stale cell, and writes nothing
    assert path.read_text(encoding="utf-8") != committed
    assert tool.refresh(path, write=True) == listing_cells
    assert path.read_text(encoding="utf-8") == committed  # every other byte as committed (and up to date)
    assert tool.refresh(path, write=True) == []  # idempotent
    # A notebook in another JSON layout is refused rather than rewritten wholesale.
    path.write_text(json.dumps(notebook, indent=2), encoding="utf-8")
    with pytest.raises(ValueError, match="not in the book's JSON layout"):
        tool.refresh(path, write=True)


def test_tool_check_fails_on_a_stale_book(tmp_path, monkeypatch, capsys):
    book = tmp_path / "book"
    book.mkdir()
    shutil.copy(ROOT / "book" / "02_generic_learner.ipynb", book)
    monkeypatch.setattr(tool, "ROOT", tmp_path)
    monkeypatch.setattr(tool, "notebooks", lambda root=tmp_path: sorted(book.glob("*.ipynb")))
    assert tool.main(["--check"]) == 0
    notebook = json.loads((book / "02_generic_learner.ipynb").read_text(encoding="utf-8"))
    index = next(i for i, cell in enumerate(notebook["cells"]) if tool.listing_names(cell))
    notebook["cells"][index]["outputs"][0]["data"]["text/plain"][-1] += "# edited\n"
    (book / "02_generic_learner.ipynb").write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n",
                                                    encoding="utf-8")
    assert tool.main(["--check"]) == 1
    assert f"stale listing cell(s) [{index}]" in capsys.readouterr().out
    assert tool.main(["--write"]) == 0 and tool.main(["--check"]) == 0


JUPYTER_BOOK = Path(sys.executable).with_name("jupyter-book")


@pytest.mark.skipif(not JUPYTER_BOOK.exists(), reason="jupyter-book is not installed next to python")
def test_web_book_shows_the_fresh_listing_not_the_call_nor_the_install_cell(tmp_path):
    """A tiny book with the book's _config.yml: what the web page shows of the listing and install cells.

    The listing cell is committed with a stale output: the build (execute_notebooks: force) must show
    the listing of the current module instead, as the committed outputs of the real book are refreshed.
    """
    import subprocess

    import nbformat
    import yaml

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
    names = ["dpteach.mechanisms.laplace_mechanism", "dpteach.randomizers.OneBitRandomizer.randomize"]
    listing_cell = nbformat.v4.new_code_cell("from dpteach.listing import show_source\n\n"
                                            + "\n".join(f'show_source("{name}")' for name in names))
    listing_cell.metadata["tags"] = ["remove-input"]
    listing_cell.outputs = [nbformat.from_dict(output) for output in tool.listing_outputs(names)]
    listing_cell.outputs[0]["data"]["text/markdown"] = "```python\nSTALE_LISTING = 1\n```\n"
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
    assert "STALE_LISTING" not in page  # re-executed: the committed output is replaced
    assert page.count('class="highlight') >= 2 and "laplace_mechanism" in page  # the listings, highlighted
    for name in names:  # each under its caption, the method's naming its class
        assert f"<strong><code class=\"docutils literal notranslate\"><span class=\"pre\">{name}</span></code></strong>" \
            in page
    assert "Full docstring" in page  # the folded docstring
    assert "show_source(" not in page and "find_spec" not in page  # neither the call nor the install cell
    assert re.search(r'<div class="(margin admonition|admonition margin)">', page)  # sphinx-book-theme floats div.margin
