"""Computed numbers in the prose: plain text that every reader sees, checked against the executed cells.

A chapter computes a number in a code cell and glues it (``myst_nb.glue("key", value,
display=False)``). The prose quotes it as a literal wrapped in an invisible marker that names
the glued key and its format spec (Python's format mini-language, as myst-nb's role took it)::

    ... gives an exact δ <!--glue:ch01_classic_delta_ratio_eps10:.2f-->3.41<!--/glue--> times the claim

The literal is what the web book (myst-nb), JupyterLab and Binder (jupyterlab-myst), Colab,
GitHub and a LaTeX build all show, before and after running the notebook: myst-nb's
``{glue:text}`` role, which this replaces, was shown as its raw key everywhere but on the web
(issue 30). The HTML comments render as nothing in each of them.

The literal may never drift from the computation. Three checks hold it, all reading the marker
grammar from ``_ext/glued_markers.py`` (next to the Sphinx extension, so the build needs only ``_ext/``):

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
    python -m tools.glued_numbers --write book/X.ipynb --varies KEY [KEY ...]  # mark numbers no seed fixes (file first)

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
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"

sys.path.insert(0, str(ROOT / "_ext"))  # the marker grammar and its checks live next to the Sphinx extension
from glued_markers import (FIX, LINE_START, MARKER, PLAIN, ROLE, describe_stale, format_value,  # noqa: E402,F401
                           glue_values_of_outputs, glued_key_patterns, markers_in, markup_problems,
                           source_lines, split_spec, stale_literals, unknown_keys)

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
            try:
                new = rewrite_notebook_text(text, values, set(args.varies))
            except (KeyError, ValueError) as error:  # a key nobody glued, a number that begins a paragraph
                failures.append(f"{name}: not rewritten: {error.args[0]}")
                continue
            nb = json.loads(new)
            if new != text:
                path.write_text(new, encoding="utf-8")
            print(f"{name}: {len(markers_in(nb))} glued numbers{' (rewritten)' if new != text else ''}", flush=True)
        problems = markup_problems(nb) + [f"{name}: marker key {k!r} is glued by no cell" for k in unknown_keys(nb)]
        problems += describe_stale(name, stale_literals(nb, values))
        if args.check:
            print(f"{name}: {len(markers_in(nb))} glued numbers, {len(problems)} problem(s)", flush=True)
        failures += [p if p.startswith(name) else f"{name}: {p}" for p in problems]
    for line in failures + ([FIX] if failures else []):
        print(line, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
