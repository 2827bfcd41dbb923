"""Sphinx extension: the box and reference markup that JupyterLab reads too (issue 21, B4/B5).

``tools/notebook_xrefs.py`` writes the notebooks so that jupyterlab-myst (Binder, JupyterLab) shows
what the web book shows. Two parts of that markup are mystmd's, and this extension teaches Sphinx
the same meaning:

* ``:enumerator: 6.2`` on a ``prf:*`` box or an exercise: the box's number (mystmd titles it
  "Lemma 6.2 (Name)"). Here the number goes back in front of the title, "6.2 (Name)", with
  ``:nonumber:``, which is exactly the markup the book used before, so the web pages do not change
  ("Lemma 6.2 (Name)" with ``proof_title_format: " %t"``, and dpteach_titles for exercises).
  ``:nonumber:`` on a ``prf:proof`` (mystmd numbers proofs "Proof 1", ...) is accepted and ignored:
  sphinx-proof never numbers proofs.
* ``[Lemma 5.5](05_regression.ipynb#lem-step-sensitivity)``, a markdown link to a label of another
  notebook: JupyterLab opens that notebook. myst-parser resolves the page, but looks the fragment up
  among heading anchors only and warns otherwise; every labelled node of a page (boxes, exercises,
  sections, equations) is registered here as a fragment of the page, so the link lands on the box
  and a misspelt label still warns (and fails the -W markup build).
"""

from docutils import nodes
from docutils.parsers.rst import directives


def _take_enumerator(cls):
    """Let a box directive take ``:enumerator: N.M`` and turn it into a "N.M (title)" unnumbered box."""
    if "enumerator" in cls.option_spec:
        return
    cls.option_spec = dict(cls.option_spec, enumerator=directives.unchanged_required)
    run = cls.run

    def run_with_enumerator(self):
        number = self.options.pop("enumerator", None)
        if number:
            name = self.arguments[0].strip() if self.arguments else ""
            self.arguments = [f"{number} ({name})" if name else number]
            self.options["nonumber"] = None
        return run(self)

    cls.run = run_with_enumerator


def _accept_nonumber(cls):
    if "nonumber" not in cls.option_spec:
        cls.option_spec = dict(cls.option_spec, nonumber=directives.flag)


def register_label_fragments(app, doctree):
    """label -> (line, html id, text) for every labelled node of the page, as myst-parser's heading slugs."""
    slugs = app.env.metadata[app.env.docname].setdefault("myst_slugs", {})
    for node in doctree.findall(nodes.Element):
        ids = node.get("ids") or []
        label = node.get("label") if isinstance(node.get("label"), str) else None
        if isinstance(node, nodes.math_block) and label and ids:
            slugs.setdefault(label, (node.line or 0, ids[0], ""))  # equations have the id "equation-<label>"
        for html_id in ids:
            slugs.setdefault(html_id, (node.line or 0, html_id, ""))


def setup(app):
    from sphinx_exercise.directive import ExerciseDirective
    from sphinx_proof.directive import ElementDirective, ProofDirective
    from sphinx_proof.proof_type import PROOF_TYPES

    _take_enumerator(ElementDirective)
    for directive in PROOF_TYPES.values():
        _take_enumerator(directive)
    _take_enumerator(ExerciseDirective)
    _accept_nonumber(ProofDirective)
    app.connect("doctree-read", register_label_fragments)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
