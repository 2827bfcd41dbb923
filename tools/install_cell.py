"""The first cell of every notebook: install dpteach where it is missing (Colab), nothing elsewhere.

    python -m tools.install_cell --write    put (or refresh) the cell in every notebook under book/
    python -m tools.install_cell --check    status 1, naming the notebooks, if a cell is missing or stale

The package comes from the repository that _config.yml names (``repository.url`` and
``repository.branch``, the setting the launch buttons use too), so a fork changes one
setting and runs ``--write``. The cell has to work before dpteach is importable, which
is why it holds the URL itself; tests/test_install_cell.py checks every notebook's cell
against this module. The cell is tagged ``remove-cell``: the web book does not show it; JupyterLab
and Colab show it collapsed.
After editing a lab's solution, run ``make labs``: the student versions copy the cell.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CELL_ID = "install-dpteach"
FIRST_LINE = "#@title Install dpteach (on Colab)"

# "#@title" and cellView "form" make Colab show the title instead of the code; source_hidden does the
# same in JupyterLab (a click shows the code).
_TEMPLATE = FIRST_LINE + """
# On Colab, this installs dpteach first. Binder, JupyterLab and the book's own environment have it
# already, and there this cell does nothing.
import importlib
import importlib.util
import subprocess
import sys

if importlib.util.find_spec("dpteach") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                    {requirement}], check=True)
    importlib.invalidate_caches()"""


def requirement(root=ROOT):
    """'dpteach @ git+<repository.url>@<repository.branch>' from _config.yml."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    repository = config.get("repository") or {}
    url, branch = repository.get("url"), repository.get("branch", "main")
    if not url:
        raise ValueError("_config.yml: repository.url is missing; the install cell installs dpteach from it")
    return f"dpteach @ git+{url.rstrip('/')}@{branch}"


def cell_source(root=ROOT):
    return _TEMPLATE.format(requirement=json.dumps(requirement(root)))


def install_cell(root=ROOT):
    return {"cell_type": "code", "execution_count": None, "id": CELL_ID,
            "metadata": {"cellView": "form", "jupyter": {"source_hidden": True}, "tags": ["remove-cell"],
                         # locked for nbgrader like every other non-answer cell of a lab (restored on autograde)
                         "nbgrader": {"grade": False, "grade_id": "colab-install", "locked": True,
                                      "schema_version": 3, "solution": False, "task": False}},
            "outputs": [], "source": cell_source(root)}


def notebooks(root=ROOT):
    """Every notebook under book/: chapters, appendix, labs (student versions and solutions)."""
    return sorted(p for p in (root / "book").rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts)


def _text(source):
    return "".join(source) if isinstance(source, list) else source


def is_install_cell(cell):
    return cell.get("cell_type") == "code" and (cell.get("id") == CELL_ID
                                                or _text(cell.get("source", "")).startswith(FIRST_LINE))


def with_install_cell(notebook, root=ROOT):
    """The notebook with the current install cell first (replacing an older one), in the notebook's source style."""
    cells = [c for c in notebook["cells"] if not is_install_cell(c)]
    cell = install_cell(root)
    if cells and isinstance(cells[0].get("source"), list):
        cell["source"] = cell["source"].splitlines(keepends=True)
    if not any("id" in c for c in cells):
        del cell["id"]  # nbformat < 4.5 has no cell ids
    return dict(notebook, cells=[cell] + cells)


def stale(root=ROOT):
    """The notebooks whose first cell is not the current install cell."""
    expected = cell_source(root)
    found = []
    for path in notebooks(root):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        first = cells[0] if cells else {}
        if not is_install_cell(first) or _text(first["source"]) != expected \
                or first.get("metadata") != install_cell(root)["metadata"]:
            found.append(path.relative_to(root).as_posix())
    return found


def write(root=ROOT):
    for path in notebooks(root):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        updated = with_install_cell(notebook, root)
        if updated != notebook:
            path.write_text(json.dumps(updated, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"wrote {path.relative_to(root)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true")
    group.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.write:
        write()
        return 0
    found = stale()
    for name in found:
        print(f"{name}: the first cell is not the install cell (python -m tools.install_cell --write)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
