"""Sphinx extension: the book build fails if a number quoted in the prose is not what the build computed.

The chapters quote computed numbers as plain literals inside an invisible marker,
``<!--glue:key:fmt-->3.41<!--/glue-->`` (``tools/glued_numbers.py``, issue 30): plain text shows
in JupyterLab, Colab and LaTeX, where myst-nb's ``{glue:text}`` role did not. This extension
keeps the literal honest: after myst-nb has executed a notebook (it stores the glued values in
``jupyter_execute/<doc>.glue.json``), every marker's literal is compared with the glued value
formatted as myst-nb formats it. Every mismatch of every page is listed with its key, the
literal and the computed text, then the build ends with an error (``make book`` exits non-zero).
The fix is ``python -m tools.glued_numbers --write`` (see its docstring).

A page that was not executed in this build (``execute_notebooks: "off"``, as in ``make markup``,
or a page excluded from execution) has nothing to compare with and is not checked.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from sphinx.errors import ExtensionError

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _ext/ (Sphinx puts it there too)
import glued_markers  # noqa: E402  (one home for the marker, its formatting and its checks)


def _glued_values(app, docname):
    """{key: text/plain} that this build's execution of the page glued, or None if it was not executed."""
    from myst_nb.sphinx_ import NbMetadataCollector

    if NbMetadataCollector.get_exec_data(app.env, docname) is None:
        return None
    if not NbMetadataCollector.get_doc_data(app.env)[docname].get("glue"):
        return {}
    path = Path(app.env.mystnb_config.output_folder).joinpath(*(docname + ".glue.json").split("/"))
    data = json.loads(path.read_text(encoding="utf-8"))
    return {key: entry["data"]["text/plain"] for key, entry in data.items() if "text/plain" in entry.get("data", {})}


def _scan(app, doctree):
    docname = app.env.docname
    source = Path(app.env.doc2path(docname))
    found = getattr(app.env, "dpteach_stale_glue", {})
    found.pop(docname, None)
    if source.suffix == ".ipynb":
        nb = json.loads(source.read_text(encoding="utf-8"))
        values = _glued_values(app, docname) if glued_markers.markers_in(nb) else None
        if values is not None:
            bad = glued_markers.markup_problems(nb) + glued_markers.describe_stale(
                docname, glued_markers.stale_literals(nb, values))
            if bad:
                found[docname] = bad
    app.env.dpteach_stale_glue = found


def _purge(app, env, docname):
    getattr(env, "dpteach_stale_glue", {}).pop(docname, None)


def _merge(app, env, docnames, other):
    env.dpteach_stale_glue = {**getattr(env, "dpteach_stale_glue", {}),
                              **{d: v for d, v in getattr(other, "dpteach_stale_glue", {}).items() if d in docnames}}


def _report(app, exception):
    if exception is not None:
        return
    found = getattr(app.env, "dpteach_stale_glue", {})
    if found:
        lines = [f"  {problem}" for docname in sorted(found) for problem in found[docname]]
        raise ExtensionError(f"{len(lines)} number(s) quoted in the prose differ from what the build computed:\n"
                             + "\n".join(lines) + "\n" + glued_markers.FIX)


def setup(app):
    app.connect("doctree-read", _scan)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _report)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
