"""Sphinx extension: the PDF edition (issue 34), `make pdf` through Jupyter Book's LaTeX builder.

Only the LaTeX builder is affected; the web pages do not change.

* A slider figure is a frame switcher in the web book (``dpteach.widgets``, ``DPTEACH_STATIC_FRAMES=1``):
  a text/html bundle whose image/png part is the figure at the sliders' defaults. LaTeX takes that
  image; the switcher's text (which value it shows, the other sliders' values) lived in the HTML and
  would be lost, so a caption under the image says it: "Shown at ε (privacy) = 1, the slider's
  default; the web book shows 7 values, the notebook (Binder) moves every slider."
* The document class: Sphinx's ``manual`` instead of sphinx-jupyterbook-latex's ``jupyterBook``, whose
  ``\\RequirePackage{bbm}`` alone would need Debian's texlive-fonts-extra (500 MB) for macros the book
  never uses (it writes standard LaTeX only). Fonts, code wrapping and margins are set here too.
"""

from __future__ import annotations

import html
import re

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

_FRAMES = re.compile(r'class="dpteach-frames"')
_LABEL = re.compile(r"<label[^>]*>(.*?)</label>", re.S)
_OUTPUT = re.compile(r"<output>(.*?)</output>", re.S)
_COUNT = re.compile(r"\((\d+) pre-rendered values\)")
_FIXED = re.compile(r'<div class="dpteach-frames-fixed"[^>]*>(.*?)</div>', re.S)


def frames_caption(raw_html):
    """The sentence that says what a frame switcher's static image shows, or None if ``raw_html`` is not one."""
    if not _FRAMES.search(raw_html):
        return None
    label, value = _LABEL.search(raw_html), _OUTPUT.search(raw_html)
    if not (label and value):
        return None
    name, shown = html.unescape(label.group(1)).strip(), html.unescape(value.group(1)).strip()
    count = _COUNT.search(raw_html)
    text = f"Shown at {name} = {shown}, the slider's default"
    fixed = _FIXED.search(raw_html)
    if fixed:
        others = html.unescape(re.sub(r"<[^>]+>", "", fixed.group(1))).split(":")[0].strip()
        text += f", with {others}"
    views = f"the web book shows {count.group(1)} values of {name}" if count else "the web book shows more values"
    return f"{text}. Interactive: {views}; the notebook (Binder, JupyterLab) moves every slider."


class FrameSwitcherCaptions(SphinxPostTransform):
    """Under each slider figure's static image, a caption with the slider values it was drawn at."""

    default_priority = 3  # before myst-nb's SelectMimeType (4) drops the text/html part of the bundle
    formats = ("latex",)

    def run(self, **kwargs):
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            raws = [raw for raw in bundle.findall(nodes.raw) if "html" in raw.get("format", "")]
            caption = next((c for c in (frames_caption(raw.astext()) for raw in raws) if c), None)
            if caption:
                paragraph = nodes.paragraph("", "", nodes.emphasis(caption, caption), classes=["dpteach-frames-caption"])
                bundle.parent.insert(bundle.parent.index(bundle) + 1, paragraph)


def _docname(node):
    """The page a node of the LaTeX builder's one big doctree came from (its ``start_of_file`` ancestor)."""
    while node is not None:
        if node.get("docname"):
            return node["docname"]
        node = node.parent
    return None


def _find_parent(env, node, parent_tag):
    """sphinx-proof's ``find_parent`` without its guess (a section named like the page's title), which
    labelled 14 boxes ``None:<label>``: every reference to them printed "??"."""
    return _docname(node.parent)


class BoxLabelsAndProofs(SphinxPostTransform):
    """Exercises reachable by their references; proofs as text, not as boxes with an empty title bar."""

    default_priority = 5
    formats = ("latex",)

    def run(self, **kwargs):
        from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node
        from sphinx_proof.nodes import proof_node

        # sphinx-exercise labels an exercise "exercise:<label>"; a reference to it asks for "<page>:<label>".
        for box in [*self.document.findall(exercise_node), *self.document.findall(exercise_enumerable_node)]:
            docname, label = _docname(box), box.get("label")
            if docname and label:
                target = f"\\phantomsection\\label{{\\detokenize{{{docname}:{label}}}}}"
                box.parent.insert(box.parent.index(box), nodes.raw("", target, format="latex"))
        # A proof is an untitled admonition ("Proof. ..." starts its text); typeset it as the paragraphs
        # it holds, closed by a square, as a printed book does.
        for proof in list(self.document.findall(proof_node)):
            for box in [child for child in proof.children if isinstance(child, nodes.admonition)]:
                box.replace_self(box.children)
            proof += nodes.raw("", "\\par\\nopagebreak\\hfill\\ensuremath{\\square}\\par\n", format="latex")


_NUMBER = re.compile(r"^(?:Appendix [A-Z]:\s*|(?:[0-9]+|[A-Z])\.[0-9]+(?:\.[0-9]+)*\s+)")
#: The appendix's first page: LaTeX's \appendix goes in front of it, so its sections are A.1, A.2, ...
FIRST_APPENDIX = "book/A_production"
#: Pages of the web book that the PDF leaves out: a reference to one prints as text, not as "??".
LEFT_OUT = ("labs/", "performance")


class SectionNumbers(SphinxPostTransform):
    """LaTeX numbers chapters and sections; a heading that carries its own number ("6.3 Bounded
    coefficients", "Appendix A: From dpteach to production") would print it twice ("6.3 6.3 ...")."""

    default_priority = 20  # after Sphinx resolved the references (10): an unresolved one is a reference to a lab
    formats = ("latex",)

    def run(self, **kwargs):
        from sphinx import addnodes

        for title in self.document.findall(nodes.title):
            if not isinstance(title.parent, nodes.section) or not title.children:
                continue
            first = title.children[0]
            if isinstance(first, nodes.Text) and _NUMBER.match(str(first)):
                title.replace(first, nodes.Text(_NUMBER.sub("", str(first), count=1)))
        for start in self.document.findall(addnodes.start_of_file):
            if start.get("docname") == FIRST_APPENDIX:
                start.insert(0, nodes.raw("", "\\appendix\n", format="latex"))
        # A link to a page the PDF leaves out (a lab notebook) keeps its text, loses its target.
        for ref in list(self.document.findall(nodes.reference)):
            target = ref.get("refid", "") + ref.get("refuri", "")
            if any(page in target for page in LEFT_OUT) and not target.startswith("http"):
                ref.replace_self(nodes.inline("", "", *ref.children))
        # {doc}`labs/lab01_mechanisms` to a left-out page prints its docname: name the notebook file instead.
        for node in list(self.document.findall(nodes.inline)):
            text = node.astext()
            if "std-doc" in node.get("classes", []) and text.startswith(LEFT_OUT[0]):
                notebook = f"book/{text}.ipynb"
                node.replace_self(nodes.literal(notebook, notebook))


class TheoremIndexColumns(SphinxPostTransform):
    """The theorem index on paper: chapter, box (a link to it), status; the web's code and test columns
    (names up to 60 characters, seven columns) ran 3500 pt past the right margin."""

    default_priority = 5
    formats = ("latex",)
    KEEP = ("Ch.", "Box", "Status")

    def run(self, **kwargs):
        for table in list(self.document.findall(nodes.table)):
            if _docname(table) != "book/theorem_index":
                continue
            group = next(iter(table.findall(nodes.tgroup)), None)
            head = next(iter(group.findall(nodes.thead)), None) if group else None
            if head is None:
                continue
            names = [entry.astext().strip() for entry in head.findall(nodes.entry)]
            if not set(self.KEEP) <= set(names):
                continue
            drop = [i for i, name in enumerate(names) if name not in self.KEEP]
            for row in list(group.findall(nodes.row)):
                entries = [child for child in row.children if isinstance(child, nodes.entry)]
                for i in reversed(drop):
                    row.remove(entries[i])
            specs = [child for child in group.children if isinstance(child, nodes.colspec)]
            for i in reversed(drop):
                group.remove(specs[i])
            group["cols"] = len(names) - len(drop)
            note = "On paper the table lists each box (a link to it) and its status; the web book adds its code, tests and figures."
            table.parent.insert(table.parent.index(table), nodes.paragraph(note, note))


class TableColumnWidths(SphinxPostTransform):
    """Every table's columns as wrapping paragraphs sized by their content. Sphinx sets a long table
    (over 30 rows) in unbreakable ``l`` columns and a short one with tabulary, whose cells do not break
    inside code: the audit and production tables ran up to 240 pt into the margin."""

    default_priority = 6  # after TheoremIndexColumns has dropped its web-only columns
    formats = ("latex",)
    MIN, MAX = 8, 30  # characters (and padding): a number column stays on one line, a sentence column wraps
    LONG = 10  # rows: a table this long may break across pages

    def run(self, **kwargs):
        for table in list(self.document.findall(nodes.table)):
            if "colwidths-given" in table.get("classes", []):
                continue
            group = next(iter(table.findall(nodes.tgroup)), None)
            if group is None:
                continue
            specs = [child for child in group.children if isinstance(child, nodes.colspec)]
            rows = [[entry for entry in row.children if isinstance(entry, nodes.entry)] for row in group.findall(nodes.row)]
            if any(entry.get("morecols") or entry.get("morerows") for row in rows for entry in row):
                continue
            if any(len(row) != len(specs) for row in rows):
                continue
            # Code in a cell may break after "(": GaussianAnalytic(epsilon=ε, ...) is wider than its column.
            for literal in list(table.findall(nodes.literal)):
                pieces = re.split(r"(?<=\()(?=.)", literal.astext())
                if len(pieces) > 1:
                    parts = []
                    for piece in pieces:
                        parts += [nodes.literal(piece, piece), nodes.raw("", "\\allowbreak{}", format="latex")]
                    literal.replace_self(parts[:-1])
            for i, spec in enumerate(specs):
                texts = [row[i].astext() for row in rows]
                longest = max(map(len, texts), default=self.MIN)
                # at least its longest word (a name, a number) plus the column's padding, which cannot break
                word = max((len(w) for text in texts for w in re.split(r"\s+|(?<=\()", text)), default=0) + 5
                spec["colwidth"] = max(self.MIN, word, min(self.MAX, longest))
            table["classes"] = [c for c in table.get("classes", []) if c != "colwidths-auto"] + ["colwidths-given"]
            if len(rows) >= self.LONG:  # a tabular cannot break across pages: the audit table ran past the footer
                table["classes"].append("longtable")


# The code cell environments that sphinx-jupyterbook-latex writes (their home, jupyterBook.cls, is not loaded):
# input on a grey ground, output indented under it.
_PREAMBLE = r"""
% dpteach (_ext/dpteach_latex.py)
\usepackage[strict]{changepage}
\definecolor{CodeBlockInputBorderColor}{RGB}{204,204,204}
\definecolor{CodeBlockInputColor}{RGB}{247,247,247}
\definecolor{CodeBlockOutputBorderColor}{RGB}{255,255,255}
\definecolor{CodeBlockOutputColor}{RGB}{255,255,255}
\newenvironment{sphinxVerbatimInput}
  {\colorlet{VerbatimBorderColor}{CodeBlockInputBorderColor}\colorlet{VerbatimColor}{CodeBlockInputColor}}
  {}
\newenvironment{sphinxVerbatimOutput}
  {\colorlet{VerbatimBorderColor}{CodeBlockOutputBorderColor}\colorlet{VerbatimColor}{CodeBlockOutputColor}%
   \begin{adjustwidth}{1.5em}{}}
  {\end{adjustwidth}}
\setlength{\headheight}{14pt}
% Characters the fonts lack: XeLaTeX would drop them with only a "Missing character" line in the log.
% DejaVu Sans Mono has no ℓ or 𝒱 (code listings): typeset them from the maths fonts. unicode-math makes
% \setminus U+29F5, which Latin Modern Math lacks: a binary backslash looks the same.
\usepackage{newunicodechar}
\newunicodechar{ℓ}{\ensuremath{\ell}}
\newunicodechar{𝒱}{\ensuremath{\mathcal{V}}}
\AtBeginDocument{\renewcommand\setminus{\mathbin{\backslash}}}
% A box's title row wraps ("Lemma 6.3 (Unit-norm approximation; the paper's Lemma B.10; ...)" is wider than
% the page); Sphinx sets it in one \makebox, so long titles ran into the margin.
\renewcommand\sphinxstylenotetitle[1]{\sphinxdotitlerowwithicon{note}{%
  \parbox[t]{\dimexpr\linewidth-1.5em\relax}{\raggedright\sphinxremovefinalcolon{#1}}}}
% Inline code and table text may break after an underscore (table cells hold names such as
% laplace_mechanism(count, ...)); in maths \_ keeps its meaning.
\makeatletter
\let\dpteach@underscore\_
\newcommand\dpteachunderscorebreaks{\protected\def\_{\ifmmode\dpteach@underscore\else
  \discretionary{\dpteach@underscore}{}{\dpteach@underscore}\fi}}
\makeatother
\let\dpteachupquote\sphinxupquote
\protected\def\sphinxupquote#1{\dpteachupquote{\dpteachunderscorebreaks#1}}
% Tables in a smaller size, and their text may break after an underscore (the appendix's result tables
% have up to eight columns and cells such as make_randomized_response_bool(prob=e^ε/(1+e^ε))).
\AtBeginEnvironment{tabular}{\footnotesize\dpteachunderscorebreaks}
\AtBeginEnvironment{tabulary}{\footnotesize\dpteachunderscorebreaks}
\AtBeginEnvironment{longtable}{\footnotesize\dpteachunderscorebreaks}
% Chapters and sections are numbered by LaTeX (the headings that carried a number lose it: SectionNumbers).
\setcounter{secnumdepth}{1}
% Long words in narrow table cells and URLs may stretch a line rather than run into the margin.
\setlength{\emergencystretch}{3em}
"""


def _latex_config(app, config):
    """After sphinx-jupyterbook-latex's config-inited (priority 500): the class, fonts, wrapping, margins."""
    config["latex_theme"] = "manual"
    # Sphinx's "Proof Index" lists the boxes by label (def-dp, ...), which no reader looks up.
    config["latex_domain_indices"] = False
    elements = config["latex_elements"]
    elements["papersize"] = "a4paper"
    elements["pointsize"] = "11pt"
    # A PDF is read on screen more often than printed: no blank pages before chapters and parts.
    elements["extraclassoptions"] = "openany,oneside"
    # Sphinx's XeLaTeX fonts (GNU FreeFont: Greek letters in the prose, ε, δ, α) but DejaVu Sans Mono for
    # code: FreeMono's hairlines print grey and thin.
    free = "[Extension=.otf, UprightFont=*, ItalicFont=*Italic, BoldFont=*Bold, BoldItalicFont=*BoldItalic]"
    sans = free.replace("=*Italic", "=*Oblique").replace("=*BoldItalic", "=*BoldOblique")  # FreeSans: Oblique
    elements["fontpkg"] = (f"\\setmainfont{{FreeSerif}}{free}\n\\setsansfont{{FreeSans}}{sans}\n"
                           "\\setmonofont{DejaVu Sans Mono}[Scale=0.85]\n")
    elements["sphinxsetup"] = ",".join([
        "hmargin={2.2cm,2.2cm}", "vmargin={2.5cm,2.5cm}", "marginpar=1cm",
        # Long code lines wrap inside the page, at any character if need be, with a mark.
        "verbatimwrapslines=true", "verbatimforcewraps=true", "verbatimmaxoverfull=1", "verbatimmaxunderfull=1",
        "verbatimhintsturnover=true",
    ])
    elements["preamble"] = elements.get("preamble", "") + _PREAMBLE


def setup(app):
    import sphinx_proof.nodes

    sphinx_proof.nodes.find_parent = _find_parent
    app.add_post_transform(FrameSwitcherCaptions)
    app.add_post_transform(BoxLabelsAndProofs)
    app.add_post_transform(TheoremIndexColumns)
    app.add_post_transform(SectionNumbers)
    app.add_post_transform(TableColumnWidths)
    app.connect("config-inited", _latex_config, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
