"""Sphinx extension: unnumbered exercise titles read "Exercise 1.1 (Private mean)", not "Exercise (1.1 (Private mean))".

The book numbers its boxes per chapter in the titles themselves (`:nonumber:`
plus a title that starts with "1.1"), so that the web book and a notebook on
Binder show the same number. sphinx-exercise wraps any title of an
unnumbered exercise in parentheses; this post-transform removes the outer
pair when the title starts with a chapter number.
"""

import re

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

_NUMBERED = re.compile(r"^[0-9A-Z]+\.[0-9]+")


class UnwrapNumberedExerciseTitles(SphinxPostTransform):
    default_priority = 100  # after sphinx-exercise has resolved exercise (20) and solution titles

    def run(self):
        from sphinx_exercise.nodes import exercise_node, solution_node

        for node in list(self.document.findall(exercise_node)) + list(self.document.findall(solution_node)):
            title = node.children[0] if node.children else None
            if isinstance(title, nodes.title):
                _unwrap(title)


def _unwrap(title):
    """Turn ' (' + '1.1 (name)' + ')' into ' ' + '1.1 (name)' inside ``title`` (also inside its link)."""
    texts = list(title.findall(nodes.Text))
    for i, text in enumerate(texts[:-1]):
        if str(text) == " (" and _NUMBERED.match(texts[i + 1].astext()) and str(texts[-1]) == ")":
            text.parent.replace(text, nodes.Text(" "))
            texts[-1].parent.remove(texts[-1])
            return


def setup(app):
    app.add_post_transform(UnwrapNumberedExerciseTitles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
