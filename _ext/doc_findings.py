"""Problems found page by page that fail the build at its end: the Sphinx bookkeeping of the checking extensions.

``dpteach_clean_outputs`` and ``dpteach_glued_numbers`` each scan every page as it is read, keep the
problems per page in the build environment (so a parallel or incremental build merges and purges them
like any other per-page data), and end the build with one error that lists them all.
"""

from __future__ import annotations

from sphinx.errors import ExtensionError


def connect(app, attribute, scan, report):
    """Run ``scan(app, doctree)`` (a list of problems) on every page; at the end, raise ``report(found)`` if any.

    ``found`` is ``{docname: problems}``, kept in the environment under ``attribute``. Returns the extension
    metadata for ``setup``.
    """
    def _scan(app, doctree):
        found = getattr(app.env, attribute, {})
        found.pop(app.env.docname, None)
        problems = scan(app, doctree)
        if problems:
            found[app.env.docname] = problems
        setattr(app.env, attribute, found)

    def _purge(app, env, docname):
        getattr(env, attribute, {}).pop(docname, None)

    def _merge(app, env, docnames, other):
        setattr(env, attribute, {**getattr(env, attribute, {}),
                                 **{d: v for d, v in getattr(other, attribute, {}).items() if d in docnames}})

    def _report(app, exception):
        found = getattr(app.env, attribute, {})
        if exception is None and found:
            raise ExtensionError(report(found))

    app.connect("doctree-read", _scan)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _report)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
