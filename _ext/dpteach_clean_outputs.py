"""Sphinx extension: the book build fails if a notebook output shows a traceback, a warning or a builder path.

Jupyter Book's ``execute.raise_on_error`` already stops the build when a cell
raises. This catches what reaches a page without raising: a traceback or a
``...Warning:`` line printed by a cell (to stdout, or in an error output of a
cell allowed to fail), and a path of the machine that built the book (the
source folder, the Python installation) in any output. stderr never reaches a
page (``execute.stderr_output: remove-warn`` drops it and says so in the log).

Every offending output of every page is listed, then the build ends with an
error (so ``jupyter-book build`` and ``make book`` exit non-zero).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from docutils import nodes

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _ext/ (Sphinx puts it there too)
import doc_findings  # noqa: E402  (the per-page bookkeeping shared with dpteach_glued_numbers)

_TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
_WARNING = re.compile(r"\b[A-Z][A-Za-z]*Warning: ")


def _builder_paths(app):
    """Folders of the build machine that must not appear in a page (longest first)."""
    paths = {str(app.srcdir), str(Path(app.srcdir).resolve()), sys.prefix, str(Path(sys.prefix).resolve()),
             str(Path.home())}
    return sorted((p for p in paths if len(p) > 1), key=len, reverse=True)


def problems_in(text, classes, paths):
    """Why this output text may not ship ([] if it may)."""
    found = []
    if "traceback" in classes or _TRACEBACK.search(text):
        found.append("a traceback")
    match = _WARNING.search(text)
    if match:
        found.append(f"a warning ({match.group(0).strip()})")
    for path in paths:
        if path in text:
            found.append(f"a path of the build machine ({path})")
            break
    return found


def _bad_outputs(app, doctree):
    """Why this page's outputs may not ship ([] if they may)."""
    paths = _builder_paths(app)
    bad = []
    for output in doctree.findall(nodes.Element):
        if "cell_output" not in output.get("classes", []):
            continue
        classes = {c for node in output.findall(nodes.Element) for c in node.get("classes", [])}
        for problem in problems_in(output.astext(), classes, paths):
            line = output.line or (output.parent.line if output.parent is not None else None)
            bad.append(f"{problem} in the output of the cell at line {line}")
    return bad


def _message(found):
    lines = [f"  {docname}: {problem}" for docname in sorted(found) for problem in found[docname]]
    return f"{len(lines)} notebook output(s) may not ship in the book:\n" + "\n".join(lines)


def setup(app):
    return doc_findings.connect(app, "dpteach_bad_outputs", _bad_outputs, _message)
