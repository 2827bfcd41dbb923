"""Box titles and cross-references that read the same in the web book and in JupyterLab (issue 21, B4/B5).

    python -m tools.notebook_xrefs --write    rewrite every notebook's markdown cells to the rule below
    python -m tools.notebook_xrefs --check    status 1, listing each place that breaks the rule

JupyterLab (and so Binder) renders a notebook's markdown with the jupyterlab-myst extension, one
notebook at a time and without Sphinx. Two things the web book's markup did read differently there:

* A box ``{prf:lemma} 6.2 (Hermite basis)`` with ``:nonumber:`` was titled "Lemma (6.2 (Hermite
  basis))", and a proof "Proof 1", "Proof 2", ... (mystmd numbers proofs; sphinx-proof does not).
* A ``{prf:ref}``/``{ref}``/``{numref}`` to a label of *another* notebook, and a ``{doc}``, led
  nowhere: mystmd sees one notebook only, so it drew ``href="#"`` (or a link to a file name without
  its ``.ipynb``).

The rule, which both renderers show alike:

* A numbered box carries its number as an option, its name as the title::

      ```{prf:lemma} Hermite basis
      :label: lem-hermite-basis
      :nonumber:
      :enumerator: 6.2

  mystmd's proof and exercise directives take ``:enumerator:`` (an explicit number) and title the
  box "Lemma 6.2 (Hermite basis)"; ``_ext/dpteach_xrefs.py`` teaches sphinx-proof and
  sphinx-exercise the same option, and they put "6.2 (Hermite basis)" in the title as before, so the
  web page does not change.
* A ``{prf:proof}`` has ``:nonumber:`` ("Proof", as the web's "Proof.").
* A reference to a label in the same notebook stays a role (mystmd resolves it, also forwards);
  a reference to another notebook is a markdown link to that notebook and label,
  ``[Lemma 5.5](05_regression.ipynb#lem-step-sensitivity)``: JupyterLab opens the notebook, and
  Sphinx resolves it to the page and the box (``_ext/dpteach_xrefs.py`` registers every label of a
  page as a link target). ``{doc}`` becomes ``[title](NN_x.ipynb)`` the same way.

``tests/test_notebook_xrefs.py`` checks the rule on every notebook (chapters, labs, solutions) and
that every link's notebook and label exist. Rerun ``--write`` after merging notebooks that were
edited with the old markup; it is idempotent.
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

#: Box directives numbered by the book (proofs and solutions are not).
_BOX = r"prf:(?!proof\b)\w+|exercise"
#: The opening line of a box whose title starts with its number: "6.2" or "6.2 (name)".
_NUMBERED_TITLE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{(?P<kind>" + _BOX + r")\}[ \t]+(?P<number>[0-9A-Z]+\.[0-9]+)"
    r"(?:[ \t]+\((?P<name>.*)\))?[ \t]*$", re.MULTILINE)
_OPENING = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<kind>" + _BOX + r"|prf:proof)\}(?P<title>.*)$", re.MULTILINE)
_OPTION = re.compile(r"^:(?P<key>[\w-]+):(?P<value>.*)$")
ROLE = re.compile(r"\{(?P<role>prf:ref|ref|numref|eq|doc)\}`(?P<body>[^`]*)`")
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)
#: Labels: directive options, "(label)=" targets, "$$ (label)" equations.
_LABEL = re.compile(r"^:(?:label|name):[ \t]*(\S+)|^\(([\w:.-]+)\)=|\$\$[ \t]*\(([\w:.-]+)\)", re.MULTILINE)
#: Display and inline maths, left out of the link scan ("f[u](-1)" is not a link).
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.DOTALL)
MD_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]*)\]\((?P<href>[^)\s]+)\)")


def notebooks(book=BOOK):
    """Every notebook a reader or student opens: chapters, student labs, lab solutions."""
    return sorted(p for p in book.rglob("*.ipynb") if "_build" not in p.parts and ".ipynb_checkpoints" not in p.parts)


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def markdown_sources(path):
    return [_source(c) for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "markdown"]


def labels_of(text):
    return [next(g for g in m.groups() if g) for m in _LABEL.finditer(text)]


def label_index(book=BOOK):
    """label -> the files (under book/, posix) that define it; md pages too (the web book's other pages)."""
    index = {}
    files = notebooks(book) + sorted(book.glob("*.md"))
    for path in files:
        texts = markdown_sources(path) if path.suffix == ".ipynb" else [path.read_text(encoding="utf-8")]
        for text in texts:
            for label in labels_of(text):
                index.setdefault(label, []).append(path.relative_to(book).as_posix())
    return index


def _home(label, index, here):
    """The file a reference from ``here`` to ``label`` points to: a chapter before a lab before a solution."""
    files = index.get(label, [])
    if here in files:
        return here
    ranked = sorted(files, key=lambda f: ("solutions/" in f, "/" in f, f))
    return ranked[0] if ranked else None


def _relative(target, here):
    return os.path.relpath(target, os.path.dirname(here) or ".").replace(os.sep, "/")


def _doc_file(target, here, book):
    """The file a ``{doc}`` target names (relative to ``here``'s folder, or to book/ with a leading /)."""
    base = Path(target.lstrip("/")) if target.startswith("/") else Path(os.path.dirname(here)) / target
    for suffix in (".ipynb", ".md"):
        candidate = Path(os.path.normpath(str(base) + suffix))
        if (book / candidate).exists():
            return candidate.as_posix()
    return None


def _title_of(path):
    """The first "# " heading of a notebook or md page (what Sphinx shows for an implicit {doc})."""
    texts = markdown_sources(path) if path.suffix == ".ipynb" else [path.read_text(encoding="utf-8")]
    for text in texts:
        match = re.search(r"^#[ \t]+(.+?)[ \t]*$", text, re.MULTILINE)
        if match:
            return match.group(1)
    return path.stem


def _directive_blocks(text):
    """(opening match, [(line start, line)] of the option lines right below it) for every box and proof."""
    for match in _OPENING.finditer(text):
        options, position = [], match.end() + 1
        while position <= len(text):
            end = text.find("\n", position)
            end = len(text) if end < 0 else end
            line = text[position:end]
            if not _OPTION.match(line):
                break
            options.append((position, line))
            position = end + 1
        yield match, options


def rewrite_boxes(text):
    """Numbered titles to ``:enumerator:``, ``:nonumber:`` on every box and proof (idempotent)."""
    edits = []  # (start, end, replacement), applied from the end
    for match, options in _directive_blocks(text):
        keys = {_OPTION.match(line).group("key") for _, line in options}
        insert_at = options[-1][0] + len(options[-1][1]) + 1 if options else match.end() + 1
        added = [] if "nonumber" in keys else [":nonumber:"]
        if match.group("kind") == "prf:proof" and match.group("title").strip():
            # sphinx-proof's proof takes no title: myst-parser reads the line as the body's first words
            # ("Proof. (sketch) ..."), mystmd as a title. As the body's first line both read as the web did.
            edits.append((match.start(), match.end(), f"{match.group('fence')}{{prf:proof}}"))
            added.append(match.group("title").strip())
        numbered = _NUMBERED_TITLE.match(match.group(0))
        if numbered:
            name = numbered.group("name")
            opening = f"{numbered.group('fence')}{{{numbered.group('kind')}}}" + (f" {name}" if name else "")
            edits.append((match.start(), match.end(), opening))
            if "enumerator" not in keys:
                added.append(f":enumerator: {numbered.group('number')}")
        if added:
            edits.append((insert_at, insert_at, "".join(line + "\n" for line in added)))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def rewrite_references(text, here, index, book=BOOK):
    """Roles that point out of notebook ``here`` (posix, under book/) become markdown links to the file and label."""

    def replace(match):
        role, body = match.group("role"), match.group("body")
        explicit = _EXPLICIT.match(body)
        label_text, target = (explicit.group("text"), explicit.group("target")) if explicit else (None, body.strip())
        if role == "doc":
            file = _doc_file(target, here, book)
            if file is None:
                return match.group(0)  # the check reports it
            return f"[{label_text or _title_of(book / file)}]({_relative(file, here)})"
        home = _home(target, index, here)
        if home is None or home == here or not label_text:
            return match.group(0)  # same notebook (mystmd resolves it), or unknown: the check reports it
        return f"[{label_text}]({_relative(home, here)}#{target})"

    return ROLE.sub(replace, text)


def rewrite_notebook(path, index, book=BOOK):
    """Rewrite one notebook in place; True if it changed."""
    raw = path.read_text(encoding="utf-8")
    nb = json.loads(raw)
    here = path.relative_to(book).as_posix()
    changed = False
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        old = _source(cell)
        new = rewrite_references(rewrite_boxes(old), here, index, book)
        if new != old:
            cell["source"] = new.splitlines(keepends=True) if isinstance(cell["source"], list) else new
            changed = True
    if changed:
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed


def problems(path, index, book=BOOK):
    """Every place in a notebook's markdown that JupyterLab would title or link differently from the web."""
    here = path.relative_to(book).as_posix()
    found = []
    for text in markdown_sources(path):
        for match, options in _directive_blocks(text):
            opening = match.group(0).strip()
            keys = {_OPTION.match(line).group("key"): _OPTION.match(line).group("value").strip() for _, line in options}
            if "nonumber" not in keys:
                found.append(f"{here}: {opening!r} has no :nonumber: (JupyterLab numbers it 1, 2, ...)")
            if match.group("kind") == "prf:proof":
                if match.group("title").strip():
                    found.append(f"{here}: {opening!r}: a proof's title goes on the body's first line (Sphinx reads it so)")
                continue
            if _NUMBERED_TITLE.match(match.group(0)):
                found.append(f"{here}: {opening!r}: the number goes in :enumerator:, the title keeps the name")
            elif not re.fullmatch(r"[0-9A-Z]+\.[0-9]+", keys.get("enumerator", "")):
                found.append(f"{here}: {opening!r} has no :enumerator: N.M")
        for match in ROLE.finditer(text):
            role, body = match.group("role"), match.group("body")
            explicit = _EXPLICIT.match(body)
            target = explicit.group("target") if explicit else body.strip()
            if role == "doc":
                found.append(f"{here}: {match.group(0)} is a dead link in JupyterLab: write [title](file.ipynb)")
                continue
            files = index.get(target, [])
            if not files:
                found.append(f"{here}: {match.group(0)}: no label {target!r} in the book")
            elif here not in files:
                found.append(f"{here}: {match.group(0)} points to another notebook ({_home(target, index, here)}): "
                             f"write [text]({_relative(_home(target, index, here), here)}#{target})")
            elif role == "prf:ref" and not explicit:
                found.append(f"{here}: {match.group(0)} needs its text ('Lemma 6.2 <label>'): the web shows the title")
        for match in MD_LINK.finditer(_MATH.sub(" ", text)):
            href = match.group("href")
            if re.match(r"^[a-z]+:", href) or href.startswith("#"):
                continue
            file, _, fragment = href.partition("#")
            target = Path(os.path.normpath(Path(os.path.dirname(here)) / file)).as_posix()
            if not (book / target).exists():
                found.append(f"{here}: link {match.group(0)}: no file book/{target}")
            elif fragment and target not in index.get(fragment, []):
                found.append(f"{here}: link {match.group(0)}: no label {fragment!r} in book/{target}")
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help="rewrite every notebook under book/")
    group.add_argument("--check", action="store_true", help="list what breaks the rule; status 1 if anything")
    args = parser.parse_args(argv)
    index = label_index()
    if args.write:
        for path in notebooks():
            if rewrite_notebook(path, index):
                print(f"rewrote {path.relative_to(ROOT)}")
        index = label_index()
    found = [p for path in notebooks() for p in problems(path, index)]
    print("\n".join(found) or "every box title and reference reads the same in JupyterLab and on the web")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
