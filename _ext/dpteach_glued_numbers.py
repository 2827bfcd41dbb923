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

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _ext/ (Sphinx puts it there too)
import doc_findings  # noqa: E402  (the per-page bookkeeping shared with dpteach_clean_outputs)
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


def _stale(app, doctree):
    """The marker problems and stale literals of this page ([] if it was not executed in this build)."""
    source = Path(app.env.doc2path(app.env.docname))
    if source.suffix != ".ipynb":
        return []
    nb = json.loads(source.read_text(encoding="utf-8"))
    values = _glued_values(app, app.env.docname) if glued_markers.markers_in(nb) else None
    if values is None:
        return []
    return glued_markers.markup_problems(nb) + glued_markers.describe_stale(
        app.env.docname, glued_markers.stale_literals(nb, values))


def _message(found):
    lines = [f"  {problem}" for docname in sorted(found) for problem in found[docname]]
    return (f"{len(lines)} number(s) quoted in the prose differ from what the build computed:\n"
            + "\n".join(lines) + "\n" + glued_markers.FIX)


def setup(app):
    return doc_findings.connect(app, "dpteach_stale_glue", _stale, _message)
