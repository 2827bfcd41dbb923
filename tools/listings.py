"""The committed outputs of the code-listing cells: what ``show_source`` prints, without running the notebooks.

    python -m tools.listings --write    refresh the output of every listing cell under book/
    python -m tools.listings --check    status 1, naming the cells, if an output is stale or missing

A listing cell (dpteach/listing.py) is a code cell tagged ``remove-input`` whose source is
``from dpteach.listing import show_source``, a blank line and one ``show_source("dpteach.…")``
line per listed routine. Its output is deterministic (the routines' source), so the notebooks
are committed with it: a student who opens a notebook in JupyterLab, on Binder or on Colab sees
the code before running anything (reader review N8). The notebooks are otherwise committed
without outputs (tests/test_book_markup.py).

``--write`` reads the listed routines from the current modules and rewrites only the outputs
(and the execution count, :data:`EXECUTION_COUNT`) of the listing cells; every other byte of a
notebook stays as it is. Run it after changing a listed routine (tests/test_listings.py fails on a stale listing, byte
for byte), or after merging branches that did. It is idempotent and imports dpteach only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMPORT_LINE = "from dpteach.listing import show_source"
#: The execution count a listing cell is committed with. nbval refuses outputs on a cell whose count is
#: null ("Unrun reference cell has outputs"); with a count it runs the cell and, under --nbval-lax,
#: does not compare the outputs (tests/test_listings.py does, byte for byte). A constant, so that
#: adding a code cell elsewhere leaves the listing cells unchanged.
EXECUTION_COUNT = 1
_CALL = re.compile(r"\bshow_source\(")
_CALL_LINE = re.compile(r"""^show_source\(\s*["'](dpteach(?:\.\w+)+)["']\s*\)$""")


def notebooks(root=ROOT):
    """Every notebook under book/ (chapters, appendix, labs), as the tests see them."""
    return sorted(p for p in (root / "book").rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts)


def _source(cell):
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def calls_show_source(cell):
    """Does this code cell call show_source (in any form)?"""
    return cell["cell_type"] == "code" and bool(_CALL.search(_source(cell)))


def listing_names(cell):
    """The names a listing cell lists, in order; None for a cell that is not a listing cell.

    A cell that calls show_source in any other form than the one above raises ValueError: its
    output could not be computed without running it.
    """
    if not calls_show_source(cell):
        return None
    lines = _source(cell).strip("\n").split("\n")
    calls = [_CALL_LINE.match(line) for line in lines[2:]]
    if lines[:2] != [IMPORT_LINE, ""] or not calls or not all(calls):
        raise ValueError(f"a listing cell holds {IMPORT_LINE!r}, a blank line and one "
                         f"show_source(\"dpteach.module.function\") per line, nothing else; got {_source(cell)!r}")
    return [match[1] for match in calls]


def _lines(text):
    # As nbformat writes a multi-line string of a notebook: a list of lines, each with its newline.
    return text.splitlines(keepends=True)


def listing_outputs(names):
    """The outputs a listing cell has after it runs: one display_data per name, as Jupyter saves them."""
    from dpteach.listing import listing_bundle

    outputs = []
    for name in names:
        bundle = listing_bundle(name)
        outputs.append({"data": {mime: _lines(text) for mime, text in bundle.items()},
                        "metadata": {}, "output_type": "display_data"})
    return outputs


def _dump(notebook):
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def refresh(path, write=False):
    """Indices of the listing cells of ``path`` whose committed outputs are stale; with write, refresh them."""
    text = path.read_text(encoding="utf-8")
    notebook = json.loads(text)
    if write and _dump(notebook) != text:
        raise ValueError(f"{path}: not in the book's JSON layout (json.dump with indent=1, ensure_ascii=False, "
                         f"and a final newline); rewriting it would change more than its listing cells")
    stale = []
    for index, cell in enumerate(notebook["cells"]):
        names = listing_names(cell)
        if names is None:
            continue
        outputs = listing_outputs(names)
        if cell.get("outputs") != outputs or cell.get("execution_count") != EXECUTION_COUNT:
            stale.append(index)
            cell["outputs"], cell["execution_count"] = outputs, EXECUTION_COUNT
    if write and stale:
        path.write_text(_dump(notebook), encoding="utf-8")
    return stale


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true")
    group.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # this checkout's dpteach
    found = {path: refresh(path, write=args.write) for path in notebooks()}
    found = {path: cells for path, cells in found.items() if cells}
    for path, cells in found.items():
        print(f"{path.relative_to(ROOT)}: {'refreshed' if args.write else 'stale'} listing cell(s) {cells}")
    if args.check and found:
        print("run `python -m tools.listings --write`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
