"""Computed numbers in the prose: plain text that every reader sees, checked against the executed cells.

A chapter computes a number in a code cell and glues it (``myst_nb.glue("key", value,
display=False)``). The prose quotes it as a literal wrapped in an invisible marker that names
the glued key and its format spec (Python's format mini-language, as myst-nb's role took it)::

    ... gives an exact δ <!--glue:ch01_classic_delta_ratio_eps10:.2f-->3.41<!--/glue--> times the claim

The literal is what the web book (myst-nb), JupyterLab and Binder (jupyterlab-myst), Colab,
GitHub and a LaTeX build all show, before and after running the notebook: myst-nb's
``{glue:text}`` role, which this replaces, was shown as its raw key everywhere but on the web
(issue 30). The HTML comments render as nothing in each of them.

The literal may never drift from the computation. Three checks hold it:

* ``tests/test_glued_numbers.py`` (no execution): no ``{glue`` role is left, every marker is
  well formed, on one line, and names a key that a ``glue(...)`` call of the same notebook makes;
* the book build (``_ext/dpteach_glued_numbers.py``) compares each literal with the value the
  build's execution glued, and fails naming the key, the literal and the computed text;
* the ``notebooks`` stage of ``make test`` (``book/conftest.py``) does the same after nbval has
  executed the last cell of each chapter.

Usage (from the repository root, in the book's environment)::

    python -m tools.glued_numbers --write [book/01_dp_basics.ipynb ...]   # execute, convert, refresh
    python -m tools.glued_numbers --check [...]                          # execute, compare (status 1)
    python -m tools.glued_numbers --write --from-build _build            # values of the last `make book`
    python -m tools.glued_numbers --write --varies KEY [KEY ...] book/X.ipynb  # mark numbers no seed fixes

``--write`` turns every ``{glue:text}`key:fmt``` (also ``{glue}``, ``{glue:}``, ``{glue:any}``)
into the marker form and sets every marker's literal to the executed value, formatted exactly
as myst-nb formats it (:func:`myst_nb.core.variables.format_plain_text` on the glued
``text/plain``). It changes nothing else: other cells, and the JSON around them, stay
byte-identical, and a second run changes nothing. Without file arguments it takes every
notebook of ``book/`` (not the labs) that glues or quotes a number.

A number that no seed fixes (a timing, OpenDP's unseedable sampler) is quoted as
``<!--glue-varies:key:fmt-->5.10<!--/glue-->`` (``--write --varies KEY`` marks it once): it is
refreshed by ``--write`` like the others, but the checks only require that its key is glued and
formats, not that a new run repeats it.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"

#: The mime prefix myst-nb's ``glue(..., display=False)`` puts on the glued bundle.
GLUE_PREFIX = "application/papermill.record/"

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
    ``glue-varies`` marker is stale only if its key is missing (its value formats, or this raises).
    """
    stale = []
    for _, key, fmt, literal, varies in markers_in(nb):
        computed = format_value(values[key], fmt) if key in values else None
        if computed is None or (computed != literal and not varies):
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


# --- rewriting -------------------------------------------------------------------------------------

def _dump(nb):
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def rewrite_line(line, values, varies=()):
    """The line with every glue role turned into a marker and every marker's literal refreshed.

    A marker of a key in ``varies`` becomes (and stays) a ``glue-varies`` marker.
    """
    def role_to_marker(match):
        return f"<!--glue:{match['spec']}--><!--/glue-->"

    def refresh(match):
        key, fmt = split_spec(match["spec"])
        kind = "-varies" if match["varies"] or key in varies else ""
        if key not in values:
            raise KeyError(f"glue key {key!r} is quoted in the prose but the executed notebook did not glue it")
        literal = format_value(values[key], fmt)
        if not PLAIN.fullmatch(literal):
            raise ValueError(f"glue key {key!r} formats as {literal!r}, which is not plain text")
        return f"<!--glue{kind}:{match['spec']}-->{literal}<!--/glue-->"

    return MARKER.sub(refresh, ROLE.sub(role_to_marker, line))


#: A marker at the start of a line (after indentation): Markdown would read the line as raw HTML.
LINE_START = re.compile(r"^(?P<indent>\s*)<!--glue")
def _split_for_move(previous):
    """(head, tail): the shortest end of a line that can begin the next one, or None.

    The tail starts after a space, cuts no ``$...$``, role or HTML comment in two, and starts
    with no list, heading, quote, table, fence or HTML syntax.
    """
    for k in range(len(previous) - 1, 0, -1):
        if not previous[k - 1].isspace() or previous[k].isspace():
            continue
        head, tail = previous[:k].rstrip(), previous[k:]
        if (head and head.count("$") % 2 == 0 and head.count("`") % 2 == 0
                and head.count("<!--") == head.count("-->") and tail[0] not in "<>-+*#:~=|`"
                and not re.match(r"\d+[.)](\s|$)", tail)):
            return head, tail
    return None


def keep_markers_off_line_starts(lines, where=""):
    """Lines in which no glue marker begins a line: the end of the previous line moves in front of it.

    A line that begins with ``<!--`` starts an HTML block in CommonMark, even inside a paragraph:
    the whole line would be raw HTML (its math and markup unparsed, nothing at all in LaTeX). Only
    line breaks move (if no end of the previous line can move, the two lines are joined); the text
    stays the same paragraph, in which a line break reads as a space.
    """
    out = []
    for j, line in enumerate(lines):
        start = LINE_START.match(line)
        if not start:
            out.append(line)
            continue
        previous = out[-1].rstrip("\n") if out else ""
        if not previous.strip() or previous.lstrip().startswith(("#", "|", ":::", "```", "$$")):
            raise ValueError(f"{where}line {j}: a quoted number begins a paragraph or follows a block line "
                             f"({line.strip()[:60]!r}); reword the prose so that a word precedes it on its line")
        split = _split_for_move(previous)
        if split is None:
            out[-1] = previous + " " + line[len(start["indent"]):]
        else:
            head, tail = split
            out[-1] = head + out[-1][len(previous):]
            out.append(f"{start['indent']}{tail} {line[len(start['indent']):]}")
    return out


def rewrite_notebook_text(text, values, varies=()):
    """The notebook file's text with its markdown cells rewritten (everything else byte-identical)."""
    nb = json.loads(text)
    if _dump(nb) != text:
        raise ValueError("the notebook is not in the project's JSON layout (json.dump indent=1, ensure_ascii=False, "
                         "trailing newline); refusing to rewrite it")
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown":
            lines = [rewrite_line(line, values, varies) for line in source_lines(cell)]
            lines = keep_markers_off_line_starts(lines, where=f"cell {index}, ")
            cell["source"] = "".join(lines) if isinstance(cell["source"], str) else lines
    return _dump(nb)


def quotes_numbers(path):
    text = path.read_text(encoding="utf-8")
    return "{glue" in text or "<!--glue:" in text


# --- values ----------------------------------------------------------------------------------------

def execute_glue_values(path, timeout=1200):
    """{key: text/plain} glued by executing the notebook (nbclient, in its folder, this Python's kernel)."""
    import nbclient
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute(env=env)
    values = {}
    for cell in nb.cells:
        if cell.cell_type == "code":
            values.update(glue_values_of_outputs(cell.get("outputs", [])))
    return values


def build_glue_values(path, build):
    """{key: text/plain} from a finished book build's ``jupyter_execute`` folder, if it ran this code.

    The build's executed copy must have the same code cells as the notebook now, and be newer than
    every file of dpteach; otherwise the notebook must be executed (:func:`execute_glue_values`).
    """
    executed = Path(build) / "jupyter_execute" / path.relative_to(ROOT).with_suffix(".ipynb")
    glue_json = executed.with_suffix(".glue.json")
    if not glue_json.exists() or not executed.exists():
        raise FileNotFoundError(f"{glue_json} is missing: build the book first, or execute (drop --from-build)")
    def code(nb):
        return [c["source"] if isinstance(c["source"], str) else "".join(c["source"])
                for c in nb["cells"] if c["cell_type"] == "code"]
    if code(json.loads(executed.read_text(encoding="utf-8"))) != code(json.loads(path.read_text(encoding="utf-8"))):
        raise RuntimeError(f"{executed} ran other code than {path} has now: execute it (drop --from-build)")
    newest = max(p.stat().st_mtime for p in (ROOT / "dpteach").rglob("*.py"))
    if glue_json.stat().st_mtime < newest:
        raise RuntimeError(f"{glue_json} is older than dpteach's sources: execute it (drop --from-build)")
    data = json.loads(glue_json.read_text(encoding="utf-8"))
    return {key: entry["data"]["text/plain"] for key, entry in data.items() if "text/plain" in entry.get("data", {})}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.glued_numbers", description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="convert glue roles and refresh every literal")
    mode.add_argument("--check", action="store_true", help="fail (status 1) on a role, a bad marker or a stale literal")
    parser.add_argument("--from-build", metavar="BUILD", help="take the values of a finished `make book` (e.g. _build)")
    parser.add_argument("--varies", nargs="+", default=(), metavar="KEY",
                        help="with --write: mark these keys' numbers as varying between runs (timings, unseedable samplers)")
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)

    paths = [p.resolve() for p in args.notebooks] or [p for p in sorted(BOOK.glob("*.ipynb")) if quotes_numbers(p)]
    failures = []
    for path in paths:
        name = path.relative_to(ROOT).as_posix()
        values = build_glue_values(path, args.from_build) if args.from_build else execute_glue_values(path)
        text = path.read_text(encoding="utf-8")
        nb = json.loads(text)
        if args.write:
            new = rewrite_notebook_text(text, values, set(args.varies))
            nb = json.loads(new)
            if new != text:
                path.write_text(new, encoding="utf-8")
            print(f"{name}: {len(markers_in(nb))} glued numbers{' (rewritten)' if new != text else ''}", flush=True)
        problems = markup_problems(nb) + [f"{name}: marker key {k!r} is glued by no cell" for k in unknown_keys(nb)]
        problems += describe_stale(name, stale_literals(nb, values))
        failures += [p if p.startswith(name) else f"{name}: {p}" for p in problems]
    for line in failures + ([FIX] if failures else []):
        print(line, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
