"""Sphinx extension: page-level fixes of the web book (issue 21).

* Every ``<script>`` is included once. sphinx-thebe adds its configuration script
  (``const THEBE_JS_URL = ...``) each time its ``env-before-read-docs`` handler runs,
  and Jupyter Book runs it twice, so every page logged "Identifier 'THEBE_JS_URL' has
  already been declared" (D10).
* A ``<meta name="dpteach-min-text-px">`` gives _static/dpteach-figures.js the smallest
  text size, in natural image pixels, of a figure drawn in the book's style
  (:data:`dpteach.plotting.MIN_TEXT_PX`, its one home), for figures that carry no record
  of their own (D6).
"""

from sphinx.application import Sphinx


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


def _page_context(app, pagename, templatename, context, doctree):
    if "script_files" in context:
        context["script_files"] = unique_scripts(context["script_files"])
    from dpteach.plotting import MIN_TEXT_PX

    context["metatags"] = context.get("metatags", "") + f'\n<meta name="dpteach-min-text-px" content="{MIN_TEXT_PX:g}">'


def setup(app: Sphinx):
    # Late priority: after sphinx-book-theme and pydata-sphinx-theme have filled the context.
    app.connect("html-page-context", _page_context, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
