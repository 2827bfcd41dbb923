"""The theorem index: every labelled box of the book, what implements it, what checks it, what shows it.

    python -m tools.theorem_index --write    (re)write book/theorem_index.md
    python -m tools.theorem_index --check    status 1 if the committed page is stale
    python -m tools.theorem_index --gaps     list the boxes without function / test / figure

Sources, and the (light) conventions they follow:

* **Boxes**: every ``prf:theorem/lemma/proposition/corollary/definition/algorithm``
  directive with a ``:label:`` in a top-level notebook ``book/*.ipynb`` (chapters,
  appendix; a new chapter is picked up by being there). The printed number is the
  box's ``:enumerator:`` option (or, in older markup, the one in the title: "5.2 (Peeling)" →
  "Algorithm 5.2 (Peeling)"); a box whose title
  has none yet takes the number other pages cite it by ({prf:ref}`Theorem 1.24 <label>`).
* **Implemented by**: the listings (``show_source("dpteach.module.function")`` code
  cells, see dpteach/listing.py) shown after a box (before
  the next box; for an algorithm box with none after it, the ones just before it),
  and every dpteach function or class whose docstring cites the box by its printed
  number ("Algorithm 5.2", not "the paper's Algorithm 4") or by its label, or whose declared
  privacy claim names it (``@privacy_claim(theorem="thm-...")``, :mod:`dpteach.privacy`; a claim
  naming a label the book does not have is an error).
* **Checked by**: a test marked ``@pytest.mark.checks("label", ...)`` (registered in
  tests/conftest.py), or a ``Checks: label, ...`` line in its docstring, and every
  test that calls one of the implementing functions (found by reading the test's
  code, helpers and parametrize lists included). Bad-input, fuzz and lab-checker
  tests are not counted as checking a box.
* **Status** (theorems, lemmas, propositions and corollaries): "proved" when a
  ``prf:proof`` directive follows the box before the next box; "cited" or
  "reconstructed" when that word is in the box's title or its first line (both may
  hold, e.g. a reconstructed statement with a proof). A proof that is not complete says
  so in its own markup, a ``:class:`` of the ``prf:proof`` directive (:data:`PROOF_CLASSES`):
  ``sketch`` (the whole proof is a sketch), ``accuracy-sketch`` (privacy proved, accuracy
  only outlined) or ``uses-cited`` (complete, but a step rests on a result the book cites).
  Definitions and algorithms: "—". ``unmarked`` lists the statement boxes with no status:
  the book must say of every statement whether it proves it. The page's summary counts
  every statement box once, in the one category of :func:`category`.
* **Shown in**: the figure cells (``live_figure(draw_…)`` or ``new_figure(``) whose
  preceding text cites the box with {prf:ref}, or a ``# shows: label`` comment in the
  cell; else the first figure after the box, before the next box.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import pkgutil
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "book" / "theorem_index.md"
KINDS = ("theorem", "lemma", "proposition", "corollary", "definition", "algorithm")
STATEMENTS = ("theorem", "lemma", "proposition", "corollary")  # the kinds that are proved or cited
#: Top-level notebooks that are generated pages, not chapters.
NOT_CHAPTERS = {"privacy_audit.ipynb", "theorem_index.ipynb", "performance.ipynb"}
#: Test files that do not check boxes: markup, lab checkers, notebooks' grading machinery, fuzz.
NOT_BOX_TESTS = re.compile(r"^test_(lab\d+|labs_core|nbgrader|book_markup|validation|widgets_plotting)\.py$|fuzz")
NOT_BOX_TEST_NAMES = re.compile(r"bad_input|rejects|raises|_errors?(_|$)|fuzz|validat|named_error")

_OPEN = re.compile(r"^(`{3,}|:{3,})\{prf:(\w+)\}[ \t]*(.*)$")
_OPTION = re.compile(r"^:(\w+):[ \t]*(.*)$")
_LISTING = re.compile(r"\bshow_source\(\s*[\"']([\w.]+)[\"']\s*\)")
_REF = re.compile(r"\{prf:ref\}`(?:([^`<]*?)\s*<)?([\w-]+)>?`")
_NUMBERED_TITLE = re.compile(r"^(\d+\.\d+)\s*(.*)$")
_CITED = re.compile(r"(?<!paper's )(?<!paper’s )\b(Theorem|Lemma|Proposition|Corollary|Definition|Algorithm)s?"
                    r"\s+(\d+\.\d+)\b(?!\s+of the paper)")
_LABEL_CITE = re.compile(r"\b((?:alg|thm|lem|prop|cor|def)-[a-z0-9][a-z0-9-]*[a-z0-9])\b")
_LIVE = re.compile(r"live_figure\(\s*([A-Za-z_]\w*)")
_STATIC = re.compile(r"new_figure\(|plt\.subplots\(|plt\.figure\(")
_SHOWS = re.compile(r"#\s*shows:\s*([\w\-, ]+)")
_MARK = re.compile(r"\b(cited|reconstructed)\b", re.IGNORECASE)
#: The ``:class:`` values of a ``prf:proof`` that make it less than a complete proof, and the status they give.
PROOF_CLASSES = {"sketch": "sketch", "accuracy-sketch": "privacy proved, accuracy sketched",
                 "uses-cited": "proved, using cited results"}
#: The summary's categories, in the order the page lists them; every statement box is in exactly one.
CATEGORIES = ("proved in full", "proved using cited results", "with privacy proved and accuracy sketched",
              "sketched", "partly proved and partly cited", "reconstructed and proved", "cited",
              "reconstructed and cited")


@dataclass(eq=False)
class Box:
    notebook: str
    chapter: str
    order: int
    kind: str
    label: str
    number: str
    title: str
    includes: list = field(default_factory=list)   # canonical names from the listings (show_source)
    cited_by: list = field(default_factory=list)   # canonical names whose docstrings cite the box
    tests: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    marks: list = field(default_factory=list)      # "cited" / "reconstructed", from the title or first line
    proved: bool = False                           # a prf:proof follows before the next box
    proof_classes: list = field(default_factory=list)  # that proof's :class: values (PROOF_CLASSES)

    @property
    def status(self):
        """'proved', 'cited', 'reconstructed' (comma-joined when several hold), '—' for definitions/algorithms.

        The empty string for a theorem-like box that says neither: :func:`unmarked` lists those.
        """
        if self.kind not in STATEMENTS:
            return "—"
        return ", ".join(self.marks + ([self.proof_status] if self.proved else []))

    @property
    def proof_status(self):
        """'proved', or what the proof's :class: says it is ('sketch', ...; the first of PROOF_CLASSES that applies)."""
        return next((PROOF_CLASSES[c] for c in PROOF_CLASSES if c in self.proof_classes), "proved")

    @property
    def functions(self):
        # Public routines first: a listing also shows the private helpers doing a public routine's work.
        names = list(dict.fromkeys(self.includes + self.cited_by))
        return sorted(names, key=lambda name: name.rsplit(".", 1)[-1].startswith("_"))

    @property
    def printed(self):
        head = f"{self.kind.capitalize()} {self.number}".strip()
        return f"{head} ({self.title})" if self.title else head


def _source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def chapter_notebooks(root=ROOT):
    """Every top-level notebook of book/ but the generated pages, in file order."""
    return sorted(p for p in (root / "book").glob("*.ipynb") if p.name not in NOT_CHAPTERS)


def parse_notebook(path):
    """The notebook as a stream of events: ('box', Box), ('include', name), ('refs', labels), ('figure', name)."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    chapter = Path(path).stem
    events, order = [], 0
    for index, cell in enumerate(cells):
        text = _source(cell)
        if cell.get("cell_type") == "code":
            events.extend(("include", name) for name in _LISTING.findall(text))
            live = _LIVE.search(text)
            shows = [s.strip() for m in _SHOWS.finditer(text) for s in m.group(1).split(",") if s.strip()]
            if live or _STATIC.search(text):
                name = f"`{live.group(1)}` (live, cell {index})" if live else f"static figure, cell {index}"
                events.append(("figure", (name, shows)))
            continue
        if cell.get("cell_type") != "markdown":
            continue
        lines = text.splitlines()
        for number, line in enumerate(lines):
            if re.match(r"^#{1,2} ", line):
                events.append(("heading", line))
            refs = [m.group(2) for m in _REF.finditer(line)]
            if refs:
                events.append(("refs", refs))
            opened = _OPEN.match(line.strip())
            if opened:
                kind, title = opened.group(2), opened.group(3).strip()
                options = {}
                for option_line in lines[number + 1:]:
                    option = _OPTION.match(option_line.strip())
                    if not option:
                        break
                    options[option.group(1)] = option.group(2).strip()
                if kind == "proof":
                    classes = options.get("class", "").split()
                    unknown = [c for c in classes if c not in PROOF_CLASSES]
                    if unknown:  # a typo would silently read as a complete proof
                        raise ValueError(f"{Path(path).name}, cell {index}: prf:proof class {unknown} is not one of "
                                         f"{sorted(PROOF_CLASSES)}")
                    events.append(("proof", classes))
                    continue
                if kind not in KINDS:
                    events.append(("other-box", kind))
                    continue
                if "label" not in options:
                    events.append(("other-box", kind))  # a proof after it is not the previous box's
                    continue
                numbered = _NUMBERED_TITLE.match(title)
                num, rest = (numbered.group(1), numbered.group(2).strip()) if numbered else ("", title)
                if options.get("enumerator"):  # the number as an option (tools/notebook_xrefs.py, issue 21 B4)
                    num, rest = options["enumerator"], title
                if rest.startswith("(") and rest.endswith(")"):
                    rest = rest[1:-1]
                order += 1
                box = Box(str(Path(path).name), chapter, order, kind, options["label"], num, rest)
                box.marks = _marks(title, _first_body_line(lines[number + 1 + len(options):]))
                events.append(("box", box))
    return events


def _first_body_line(lines):
    """The first non-blank line of a box's body (its options already skipped), or ''."""
    for line in lines:
        if line.strip():
            return "" if _OPEN.match(line.strip()) or line.strip().startswith(("```", ":::")) else line
    return ""


def _marks(title, first_line):
    """'cited' / 'reconstructed' as the title or the first line of the box says, in that order, no repeats."""
    words = [m.group(1).lower() for m in _MARK.finditer(f"{title} {first_line}")]
    return list(dict.fromkeys(w for w in ("reconstructed", "cited") if w in words))


def _attach_notebook(events):
    """Boxes of one notebook with their listings and figures attached."""
    boxes, current, pending_includes, pending_refs, unshown = [], None, [], [], []
    for kind, payload in events:
        if kind == "heading":
            unshown = []  # a new section: its figures are about its own boxes
        elif kind == "box":
            unshown.append(payload)
            if payload.kind == "algorithm" and pending_includes:
                payload.includes.extend(pending_includes)  # code shown just before its box
            current, pending_includes = payload, []
            boxes.append(payload)
        elif kind == "other-box":
            current = None
        elif kind == "proof":
            if current is not None:
                current.proved = True  # the proof follows this box before any other box
                current.proof_classes = payload
        elif kind == "include":
            pending_includes.append(payload)
            if current is not None:
                current.includes.append(payload)
        elif kind == "refs":
            pending_refs.extend(payload)
        elif kind == "figure":
            name, shows = payload
            labels = set(pending_refs) | set(shows)
            for box in boxes:
                if box.label in labels and name not in box.figures:
                    box.figures.append(name)
            for box in unshown:  # the first figure after a box, in the same section
                if not box.figures:
                    box.figures.append(name)
            unshown, pending_refs = [], []
    for box in boxes:
        box.includes = list(dict.fromkeys(box.includes))
    return boxes


def collect_boxes(root=ROOT):
    """Every indexed box of every chapter notebook, with includes, figures and printed numbers."""
    boxes, cited_numbers = [], {}
    for path in chapter_notebooks(root):
        events = parse_notebook(path)
        boxes.extend(_attach_notebook(events))
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for match in _REF.finditer(_source(cell)):
                number = re.search(r"\b(\d+\.\d+)\b", match.group(1) or "")
                if number:
                    cited_numbers.setdefault(match.group(2), []).append(number.group(1))
    for box in boxes:
        if not box.number and box.label in cited_numbers:
            numbers = cited_numbers[box.label]
            box.number = max(set(numbers), key=numbers.count)
    return boxes


# --- dpteach: docstrings that cite boxes ----------------------------------------------------------------

def _canonical(obj):
    return f"{obj.__module__}.{obj.__qualname__}"


def dpteach_callables():
    """{canonical name: docstring} for every public function/class of dpteach and the methods of its classes.

    ``dpteach.experiments`` (figure runners) and ``dpteach.labs`` (lab checkers) are left out:
    they use the algorithms, they do not implement boxes.
    """
    import dpteach
    found = {}
    for info in pkgutil.walk_packages(dpteach.__path__, "dpteach."):
        if info.name.startswith(("dpteach.experiments", "dpteach.labs")):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if not getattr(obj, "__module__", "").startswith("dpteach"):
                continue
            found[_canonical(obj)] = inspect.getdoc(obj) or ""
            if inspect.isclass(obj):
                for attribute, member in vars(obj).items():
                    if inspect.isfunction(member) and member.__doc__:
                        found[_canonical(member)] = inspect.getdoc(member) or ""
    return found


def resolve(dotted):
    """The object a dotted dpteach name refers to (import + getattr), or None."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for part in parts[split:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def attach_docstrings(boxes, callables):
    by_number = {(b.kind, b.number): b for b in boxes if b.number}
    by_label = {b.label: b for b in boxes}
    for name, doc in sorted(callables.items()):
        cited = {by_number.get((kind.lower(), number)) for kind, number in _CITED.findall(doc)}
        cited |= {by_label.get(label) for label in _LABEL_CITE.findall(doc)}
        for box in cited - {None}:
            if name not in box.cited_by:
                box.cited_by.append(name)


def declared_claims():
    """{canonical name: PrivacyClaim} of every dpteach routine or learner that declares its privacy claim.

    Read from the declaration next to the routine (``@privacy_claim(theorem=label, ...)``, issue 23),
    not from its docstring; the experiments' runners are included (a runner that releases is a routine).
    """
    import dpteach
    from dpteach.privacy import claim_of
    found = {}
    for info in pkgutil.walk_packages(dpteach.__path__, "dpteach."):
        if info.name.startswith("dpteach.labs") or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            claim = claim_of(obj) if obj is not None else None
            if claim is not None and getattr(obj, "__module__", "").startswith("dpteach"):
                found[_canonical(obj)] = claim
    return found


def attach_claims(boxes, claims):
    """Link each routine to the box its declared claim names; a label the book does not have is an error."""
    by_label = {b.label: b for b in boxes}
    unknown = sorted(f"{name} → {claim.theorem}" for name, claim in claims.items() if claim.theorem not in by_label)
    if unknown:
        raise ValueError(f"privacy claims name boxes the book does not have: {unknown}")
    for name, claim in sorted(claims.items()):
        box = by_label[claim.theorem]
        if name not in box.cited_by:
            box.cited_by.append(name)


# --- tests: markers, Checks: lines and the functions each test calls --------------------------------------

@dataclass
class TestInfo:
    nodeid: str
    labels: set
    refs: set


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return list(reversed(parts))
    return None


def _aliases(tree):
    """{local name: dotted dpteach path} from every import in the file (at any depth)."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("dpteach"):
                    aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else "dpteach"
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dpteach"):
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


class _Resolver:
    def __init__(self):
        self.cache = {}

    def __call__(self, dotted):
        if dotted not in self.cache:
            obj = None
            # the longest prefix that resolves to a function or class
            parts = dotted.split(".")
            for end in range(len(parts), 1, -1):
                candidate = resolve(".".join(parts[:end]))
                if inspect.isfunction(candidate) or inspect.isclass(candidate):
                    obj = candidate
                    rest = parts[end:]
                    if inspect.isclass(candidate) and rest and inspect.isfunction(vars(candidate).get(rest[0])):
                        obj = vars(candidate)[rest[0]]
                    break
            self.cache[dotted] = (_canonical(obj) if obj is not None and
                                  getattr(obj, "__module__", "").startswith("dpteach") else None)
        return self.cache[dotted]


def _names_used(nodes, aliases, resolver):
    refs, local_names = set(), set()
    for top in nodes:
        for node in ast.walk(top):
            if isinstance(node, (ast.Attribute, ast.Name)):
                chain = _dotted(node)
                if not chain:
                    continue
                if chain[0] in aliases:
                    name = resolver(".".join([aliases[chain[0]]] + chain[1:]))
                    if name:
                        refs.add(name)
                elif isinstance(node, ast.Name):
                    local_names.add(node.id)
    return refs, local_names


def _marker_labels(function):
    labels = set()
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and (_dotted(decorator.func) or [])[-1:] == ["checks"]:
            labels |= {a.value for a in decorator.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    doc = ast.get_docstring(function) or ""
    for line in doc.splitlines():
        if line.strip().lower().startswith("checks:"):
            labels |= {s.strip() for s in line.split(":", 1)[1].split(",") if s.strip()}
    return labels


def parse_test_file(path, resolver):
    """Every test function of the file with the boxes it is marked for and the dpteach names it uses."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    aliases = _aliases(tree)
    definitions = {}  # module-level helpers, classes and constants: name → nodes
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            definitions[node.name] = [node]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        definitions.setdefault(name.id, []).append(node)
    direct = {}
    for name, nodes in definitions.items():
        direct[name] = _names_used(nodes, aliases, resolver)

    def closure(start_refs, start_names):
        refs, seen, todo = set(start_refs), set(), list(start_names)
        while todo:
            name = todo.pop()
            if name in seen or name not in direct:
                continue
            seen.add(name)
            more_refs, more_names = direct[name]
            refs |= more_refs
            todo.extend(more_names)
        return refs

    tests = []

    def add(function, prefix):
        if not function.name.startswith("test"):
            return
        refs, names = _names_used([function], aliases, resolver)
        tests.append(TestInfo(f"{Path(path).name}::{prefix}{function.name}", _marker_labels(function),
                              closure(refs, names - {function.name})))

    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            add(node, "")
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for member in node.body:
                if isinstance(member, ast.FunctionDef):
                    add(member, f"{node.name}::")
    return tests


def collect_tests(root=ROOT):
    resolver = _Resolver()
    tests = []
    for path in sorted((root / "tests").glob("test_*.py")):
        if NOT_BOX_TESTS.search(path.name):
            continue
        tests.extend(parse_test_file(path, resolver))
    return tests


def _implements(function, ref):
    return function == ref or function.startswith(ref + ".") or ref.startswith(function + ".")


def attach_tests(boxes, tests):
    for box in boxes:
        functions = box.functions
        marked = [t.nodeid for t in tests if box.label in t.labels]
        called = [t.nodeid for t in tests
                  if t.nodeid not in marked and not NOT_BOX_TEST_NAMES.search(t.nodeid.rsplit("::", 1)[-1])
                  and any(_implements(f, r) for f in functions for r in t.refs)]
        home = {f"test_{f.split('.')[1]}.py" for f in functions if f.count(".") >= 2}
        called.sort(key=lambda nodeid: nodeid.split("::")[0] not in home)  # the module's own tests first
        box.tests = marked + called


def build(root=ROOT):
    """All boxes with every column filled from the sources."""
    boxes = collect_boxes(root)
    attach_docstrings(boxes, dpteach_callables())
    attach_claims(boxes, declared_claims())
    attach_tests(boxes, collect_tests(root))
    return boxes


def category(box):
    """The one summary category (:data:`CATEGORIES`) of a theorem-like box, from its marks and its proof."""
    marks = set(box.marks)
    if not box.proved:
        return "reconstructed and cited" if "reconstructed" in marks else "cited"
    if "cited" in marks:
        return "partly proved and partly cited"
    if marks:
        return "reconstructed and proved"
    return {"proved": "proved in full", "proved, using cited results": "proved using cited results",
            "privacy proved, accuracy sketched": "with privacy proved and accuracy sketched",
            "sketch": "sketched"}[box.proof_status]


def summary_counts(boxes):
    """{category: number of theorem-like boxes}, every category of :data:`CATEGORIES`, each box counted once."""
    counts = dict.fromkeys(CATEGORIES, 0)
    for box in boxes:
        if box.kind in STATEMENTS and box.status:
            counts[category(box)] += 1
    return counts


def unmarked(boxes):
    """Theorem-like boxes that neither have a proof after them nor say "cited"/"reconstructed"."""
    return [b for b in boxes if b.kind in STATEMENTS and not b.status]


def gaps(boxes):
    """Algorithm boxes without an implementing function or without a test: the index's hard requirement."""
    return [(b.label, "no implementing function") for b in boxes if b.kind == "algorithm" and not b.functions] + \
           [(b.label, "no test") for b in boxes if b.kind == "algorithm" and not b.tests]


# --- the page ----------------------------------------------------------------------------------------------

def _short(name):
    return name[len("dpteach."):] if name.startswith("dpteach.") else name


def _cell(items, limit, more_word="more"):
    if not items:
        return "—"
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} {more_word})" if len(items) > limit else "")


def _escape(text):
    return text.replace("|", "\\|")


def render(boxes):
    n_alg = sum(b.kind == "algorithm" for b in boxes)
    n_tested = sum(bool(b.tests) for b in boxes)
    n_statements = sum(b.kind in STATEMENTS for b in boxes)
    counts = summary_counts(boxes)
    n_unmarked = n_statements - sum(counts.values())
    summary = ", ".join(f"{n} {name}" for name, n in counts.items() if n) + \
        (f", {n_unmarked} unmarked" if n_unmarked else "")
    lines = [
        "# Theorem index",
        "",
        "<!-- Generated by `make pages` (python -m tools.theorem_index --write); do not edit by hand. -->",
        "",
        "Every definition, theorem, lemma, proposition, corollary and algorithm box of the chapters, with the "
        "`dpteach` code that implements it, the tests in `tests/` that check that code, and the figure that shows "
        "it. The table is generated from the sources: the boxes' labels in the notebooks, the code each chapter "
        "shows next to a box (its listing, `show_source`), the docstrings that cite a box by its number, and the tests that "
        "call that code or are marked `@pytest.mark.checks(\"label\")`. *Status* says whether the book proves a "
        "theorem-like box (a proof follows it), cites it from the literature without proof, or reconstructs a "
        "statement its source leaves implicit; a proof that is a sketch, or whose accuracy part is only outlined, or "
        "that rests on a result the book cites says so. A test fails when an algorithm box has no implementing function or "
        "no test, when a theorem, lemma, proposition or corollary has no status, or when this page is out of date.",
        "",
        f"{len(boxes)} boxes, {n_alg} of them algorithms; {n_tested} boxes have at least one test; "
        f"of the {n_statements} theorem-like boxes (each counted once): {summary}. "
        "A box that is proved rather than computed (a definition, a lower bound) often has no function; "
        "its figure, where there is one, is what the chapter measures against it.",
        "",
        "| Ch. | Box | Label | Status | Implemented by | Checked by | Shown in |",
        "|---|---|---|---|---|---|---|",
    ]
    for box in boxes:
        head = f"{box.kind.capitalize()} {box.number}".strip()
        title = f" ({_escape(box.title)})" if box.title else ""
        functions = [f"`{_short(f)}`" for f in box.functions]
        tests = [f"`{t}`" for t in box.tests]
        lines.append(f"| {box.chapter[:2] if box.chapter[:2].isdigit() else box.chapter} "
                     f"| {{prf:ref}}`{head} <{box.label}>`{title} | `{box.label}` | {box.status or '**unmarked**'} "
                     f"| {_cell(functions, 4)} | {_cell(tests, 3)} | {_cell(box.figures, 2)} |")
    lines.append("")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true")
    group.add_argument("--check", action="store_true")
    group.add_argument("--gaps", action="store_true")
    args = parser.parse_args(argv)
    boxes = build()
    text = render(boxes)
    if args.gaps:
        for box in boxes:
            missing = [w for w, v in (("function", box.functions), ("test", box.tests), ("figure", box.figures)) if not v]
            if missing:
                print(f"{box.notebook:28s} {box.label:40s} {box.kind:11s} missing: {', '.join(missing)}")
        for box in unmarked(boxes):
            print(f"{box.notebook:28s} {box.label:40s} {box.kind:11s} no status (proof, cited or reconstructed)")
        return 1 if gaps(boxes) or unmarked(boxes) else 0
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE.relative_to(ROOT)} is stale: run `make pages`")
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}: {len(boxes)} boxes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
