"""The marker of a number quoted in the prose, and how it is checked: one home for the book build and the tools.

``<!--glue:key:fmt-->3.41<!--/glue-->`` (or ``<!--glue-varies:...-->``): see
``tools/glued_numbers.py``, which writes the markers, for the whole story (issue 30). This module is
read by ``_ext/dpteach_glued_numbers.py`` (the book build), by ``tools/glued_numbers.py`` and, through
it, by ``book/conftest.py`` (nbval) and ``tests/test_glued_numbers.py``. It lives next to the Sphinx
extension so that the build needs nothing outside ``_ext/`` (tests/test_book_build.py builds a tiny
book with a copy of ``_ext/`` alone).
"""

from __future__ import annotations

import ast
import re

#: A quoted number: ``<!--glue:KEY[:FORMAT]-->LITERAL<!--/glue-->`` on one line. KEY[:FORMAT] is
#: the text of the former role, split at its last colon as myst-nb did. ``<!--glue-varies:...-->``
#: quotes a number that no seed fixes (a timing, OpenDP's unseedable sampler): ``--write`` refreshes
#: it too, but the checks only require that its key is glued and formats, not that it repeats.
MARKER = re.compile(r"<!--glue(?P<varies>-varies)?:(?P<spec>[^<>]*?)-->(?P<literal>[^<>]*?)<!--/glue-->")
#: What the markup of one marker starts with (a line that has it but no MARKER match is malformed).
OPENING = re.compile(r"<!--\s*/?\s*glue\b")
#: myst-nb's inline glue roles that render a value as text ({glue:figure}/{glue:math} are
#: directives, {glue:md} pastes markdown: none is used, and none may be converted to a literal).
ROLE = re.compile(r"\{glue(?::any|:text|:)?\}`(?P<spec>[^`]*)`")
ANY_ROLE = re.compile(r"\{glue(?::[a-z]*)?\}")
#: A marker at the start of a line (after indentation): Markdown would read the line as raw HTML.
LINE_START = re.compile(r"^(?P<indent>\s*)<!--glue")
#: A literal must read as plain text in every renderer (no markdown, HTML or math characters).
PLAIN = re.compile(r"[-+0-9A-Za-z.,% ]*")


def split_spec(spec):
    """(key, format spec) of ``key:fmt`` or ``key``, as myst-nb's ``{glue:text}`` role splits it."""
    parts = spec.rsplit(":", 1)
    return (parts[0], parts[1]) if len(parts) == 2 else (parts[0], "s")


def format_value(text_plain, fmt):
    """The text myst-nb's ``{glue:text}`key:fmt``` shows for a value glued with this ``text/plain``."""
    from myst_nb.core.variables import format_plain_text  # myst-nb's own formatter: same text by construction

    return format_plain_text(text_plain, fmt)


def glue_values_of_outputs(outputs):
    """{key: text/plain} of the glue records among one cell's outputs (dicts in nbformat shape)."""
    found = {}
    for output in outputs:
        scrapbook = (output.get("metadata") or {}).get("scrapbook")
        if not scrapbook:
            continue
        prefix = scrapbook.get("mime_prefix", "")
        data = {k[len(prefix):]: v for k, v in (output.get("data") or {}).items()}
        if "text/plain" in data:
            text = data["text/plain"]
            found[scrapbook["name"]] = "".join(text) if isinstance(text, list) else text
    return found


def source_lines(cell):
    """A cell's source as lines (nbformat allows one string or a list of lines)."""
    source = cell["source"]
    return source.splitlines(keepends=True) if isinstance(source, str) else source


def markers_in(nb):
    """[(cell index, key, format, literal, varies)] for every marker in a markdown cell."""
    found = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        for line in source_lines(cell):
            for match in MARKER.finditer(line):
                key, fmt = split_spec(match["spec"])
                found.append((index, key, fmt, match["literal"], bool(match["varies"])))
    return found


def markup_problems(nb):
    """Why the glue markup of a notebook is not in the marker form ([] if it is)."""
    problems = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        for line in source_lines(cell):
            for match in ANY_ROLE.finditer(line):
                problems.append(f"cell {index}: a myst-nb glue role is left ({line.strip()[:80]!r}); "
                                "run `python -m tools.glued_numbers --write`")
            if LINE_START.match(line):
                problems.append(f"cell {index}: a glue marker begins a line, which Markdown reads as raw HTML "
                                f"(run --write, which moves a word in front of it): {line.strip()[:80]!r}")
            rest = MARKER.sub("", line)
            if OPENING.search(rest):
                problems.append(f"cell {index}: a malformed glue marker (it must be "
                                f"<!--glue:key:fmt-->literal<!--/glue--> on one line): {line.strip()[:100]!r}")
            for match in MARKER.finditer(line):
                if not PLAIN.fullmatch(match["literal"]):
                    problems.append(f"cell {index}: the literal {match['literal']!r} of {match['spec']!r} is not plain text")
    return problems


def _string_patterns(node):
    """Regexes for the strings an expression can be: a constant, or an f-string with holes."""
    patterns, pieces = [], set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.JoinedStr):
            parts = [re.escape(v.value) if isinstance(v, ast.Constant) else ".+" for v in sub.values]
            patterns.append("".join(parts))
            pieces.update(id(v) for v in sub.values)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and id(sub) not in pieces:
            patterns.append(re.escape(sub.value))
    return patterns


def glued_key_patterns(nb):
    """Regexes matching every key a ``glue(...)`` call of the notebook's code cells can make.

    A literal key is matched exactly; an f-string key (``f"ch03_worst_tv_ratio_eps{eps}"``) by
    its fixed parts, ``.+`` for each hole.
    """
    patterns = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(source_lines(cell))
        if "glue" not in source:
            continue
        tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "glue" and call.args:
                patterns.extend(_string_patterns(call.args[0]))
    return [re.compile(p) for p in patterns]


def unknown_keys(nb):
    """Keys quoted by a marker that no ``glue(...)`` call of the same notebook makes."""
    patterns = glued_key_patterns(nb)
    return sorted({key for _, key, _, _, _ in markers_in(nb) if not any(p.fullmatch(key) for p in patterns)})


def stale_literals(nb, values):
    """[(key, format, literal, computed text)] for every marker whose literal is not the glued value.

    ``values`` is {key: text/plain} from an execution; a key it lacks gives computed ``None``. A
    ``glue-varies`` marker is stale only if its key is missing or its value does not format.
    """
    stale = []
    for _, key, fmt, literal, varies in markers_in(nb):
        formats = True
        try:
            computed = format_value(values[key], fmt) if key in values else None
        except (ValueError, TypeError) as error:  # e.g. NumPy 2's "np.float64(0.5)": glue float(...) instead
            computed, formats = f"<{values[key]!r} does not format as {fmt!r}: {error}>", False
        if computed is None or not formats or (computed != literal and not varies):
            stale.append((key, fmt, literal, computed))
    return stale


#: What to do about a stale literal (the last line of every report of one).
FIX = ("run `python -m tools.glued_numbers --write` to refresh the literals; a number that no seed fixes "
       "(a timing, an unseedable sampler) is marked once with `--write --varies KEY`")


def describe_stale(name, stale):
    lines = []
    for key, fmt, literal, computed in stale:
        if computed is None:
            lines.append(f"{name}: glue key {key!r} was not glued by the executed notebook (literal {literal!r})")
        else:
            lines.append(f"{name}: glue key {key!r} (format {fmt!r}): the prose says {literal!r}, "
                         f"the executed cell gives {computed!r}")
    return lines
