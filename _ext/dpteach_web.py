"""Sphinx extension: page-level fixes of the web book (issue 21).

* Every ``<script>`` of a page's head is included once. The configuration scripts of
  sphinx-thebe (``const THEBE_JS_URL = ...``) and sphinx-togglebutton reach each page
  twice, so every page logged "Identifier 'THEBE_JS_URL' has already been declared"
  (D10). They are added again after the page context is final, so the written pages
  are cleaned when the build finishes (:func:`unique_head_scripts`).
* A ``<meta name="dpteach-min-text-px">`` gives _static/dpteach-figures.js the smallest
  text size, in natural image pixels, of a figure drawn in the book's style
  (:data:`dpteach.plotting.MIN_TEXT_PX`, its one home), for figures that carry no record
  of their own (D6).
* Every ``id`` in a page's body is unique: sphinx-proof repeats a box's id on its title and
  gives every proof ``id="proof"`` (ten times in chapter 6), which breaks ``#`` links and
  ``aria-labelledby``. Later copies get a ``-2``, ``-3`` … suffix; the first keeps the name
  the cross-references point to (D9).
* The bibliography's entries are list items of its ``role="list"``: docutils marks them
  ``role="doc-biblioentry"``, a role that is deprecated and not allowed on a ``div``, and
  leaves the list without items (axe: aria-allowed-role, aria-deprecated-role,
  aria-required-children; D9).
"""

import re
from pathlib import Path

from sphinx.application import Sphinx

_ID = re.compile(r'(<[a-zA-Z][^<>]*?\sid=")([^"]+)(")')


def _key(script):
    attributes = getattr(script, "attributes", {}) or {}
    return getattr(script, "filename", str(script)), tuple(sorted((k, str(v)) for k, v in attributes.items()))


def unique_scripts(scripts):
    """``scripts`` in order, each (file, attributes and inline body) kept once."""
    seen, kept = set(), []
    for script in scripts:
        key = _key(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    return kept


def unique_head_scripts(html):
    """``html`` without the ``<script>`` lines of its ``<head>`` that repeat an earlier one verbatim."""
    head, separator, rest = html.partition("</head>")
    if not separator:
        return html
    seen, kept = set(), []
    for line in head.split("\n"):
        script = line.strip()
        if script.startswith("<script") and script.endswith("</script>"):
            if script in seen:
                continue
            seen.add(script)
        kept.append(line)
    return "\n".join(kept) + separator + rest


def _clean_written_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        cleaned = unique_head_scripts(html)
        if cleaned != html:
            page.write_text(cleaned, encoding="utf-8")


def unique_ids(html):
    """``html`` with the second, third … element of each repeated id renamed ``<id>-2``, ``<id>-3`` …"""
    seen = {}

    def rename(match):
        name = match.group(2)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 1:
            return match.group(0)
        return f"{match.group(1)}{name}-{seen[name]}{match.group(3)}"

    return _ID.sub(rename, html)


def bibliography_roles(html):
    """Bibliography entries as the list items of their ``role="list"`` container."""
    return html.replace('role="doc-biblioentry"', 'role="listitem"')


def _page_context(app, pagename, templatename, context, doctree):
    if isinstance(context.get("body"), str):
        context["body"] = bibliography_roles(unique_ids(context["body"]))
    if "script_files" in context:
        context["script_files"] = unique_scripts(context["script_files"])
    from dpteach.plotting import MIN_TEXT_PX

    context["metatags"] = context.get("metatags", "") + f'\n<meta name="dpteach-min-text-px" content="{MIN_TEXT_PX:g}">'


def setup(app: Sphinx):
    # Late priority: after sphinx-book-theme and pydata-sphinx-theme have filled the context.
    app.connect("html-page-context", _page_context, priority=900)
    app.connect("build-finished", _clean_written_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
