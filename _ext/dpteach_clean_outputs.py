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
from sphinx.errors import ExtensionError

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


def _scan(app, doctree):
    paths = _builder_paths(app)
    bad = []
    for output in doctree.findall(nodes.Element):
        if "cell_output" not in output.get("classes", []):
            continue
        classes = {c for node in output.findall(nodes.Element) for c in node.get("classes", [])}
        for problem in problems_in(output.astext(), classes, paths):
            line = output.line or (output.parent.line if output.parent is not None else None)
            bad.append(f"{problem} in the output of the cell at line {line}")
    found = getattr(app.env, "dpteach_bad_outputs", {})
    if bad:
        found[app.env.docname] = bad
    else:
        found.pop(app.env.docname, None)
    app.env.dpteach_bad_outputs = found


def _purge(app, env, docname):
    getattr(env, "dpteach_bad_outputs", {}).pop(docname, None)


def _merge(app, env, docnames, other):
    env.dpteach_bad_outputs = {**getattr(env, "dpteach_bad_outputs", {}),
                               **{d: v for d, v in getattr(other, "dpteach_bad_outputs", {}).items() if d in docnames}}


def _report(app, exception):
    if exception is not None:
        return
    found = getattr(app.env, "dpteach_bad_outputs", {})
    if found:
        lines = [f"  {docname}: {problem}" for docname in sorted(found) for problem in found[docname]]
        raise ExtensionError(f"{len(lines)} notebook output(s) may not ship in the book:\n" + "\n".join(lines))


def setup(app):
    app.connect("doctree-read", _scan)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _report)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
