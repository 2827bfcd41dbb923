"""The student-version generator: solution notebooks in, student notebooks out, nothing leaked.

A lab's *source* is its solution notebook in ``book/labs/solutions/``. Its
reference code sits between nbgrader's markers, each alone on its line::

    ### BEGIN SOLUTION
    ...reference code...
    ### END SOLUTION

and its cells carry nbgrader metadata (solution cells are autograded
answers, checker cells autograder tests with points, the written proof a
manually graded markdown answer). ``python -m dpteach.labs student`` (``make
labs``) writes the student versions to ``book/labs/``, which are committed:
the book's table of contents, its download button and the Binder/Colab
buttons all open these files. In a student version

* every marked block becomes ``raise NotImplementedError(...)`` at the
  indentation of its marker;
* every markdown answer cell (nbgrader ``solution: true``) becomes
  "YOUR ANSWER HERE", as nbgrader's own ``generate_assignment`` does;
* outputs and execution counts are cleared;
* relative links (``../01_dp_basics.ipynb``) are rewritten to point at the
  same file from the student version's folder.

The generator refuses, with the index of the offending cell, anything that
could leak a solution: a misspelled or lowercase marker (``### Begin
Solution``, ``## BEGIN SOLUTION``), a marker not alone on its line, an
unmatched or nested marker, a marker in a markdown cell, and markers in a
cell that nbgrader would not treat as a solution cell.
"""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path

__all__ = ["BEGIN", "END", "BEGIN_HIDDEN", "END_HIDDEN", "STUB", "TEXT_STUB", "SOLUTIONS_DIR", "STUDENT_DIR",
           "strip_solutions", "strip_hidden_tests", "validate_lab_notebook", "student_notebook", "make_student_notebook", "make_student_versions",
           "student_version_drift"]

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB = 'raise NotImplementedError("Your code here: replace this line with your solution.")'
TEXT_STUB = "YOUR ANSWER HERE"
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"
SOLUTIONS_DIR = Path("book") / "labs" / "solutions"
STUDENT_DIR = Path("book") / "labs"

# Anything that looks like an attempt at a marker: any case, any number of #, "SOLUTIONS", spaces.
_MARKER_LIKE = re.compile(r"(?i)(begin|end)[ \t_-]*(hidden[ \t_-]*tests|solutions?)\b")


def _cell_label(cell_index):
    return "" if cell_index is None else f"cell {cell_index}: "


def strip_solutions(source, cell_index=None):
    """Replace every BEGIN/END SOLUTION block in ``source`` by a NotImplementedError stub.

    The stub keeps the indentation of the BEGIN marker, so a solution inside a
    function body becomes a function that raises. Raises ValueError (naming
    ``cell_index`` when given) for a misspelled or lowercase marker, a marker
    with other text on its line, and an unmatched or nested marker — each of
    which would otherwise leak a solution.

    Lines are split on "\\n" and joined with "\\n", as nbgrader's
    ``ClearSolutions`` does (a block at the end of the cell leaves no trailing
    newline), so the student version's cells have the same source, hence the
    same checksum, as nbgrader's release.
    """
    where = _cell_label(cell_index)
    out, inside = [], False
    lines = source.split("\n")
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped in (BEGIN, END):
            if (stripped == BEGIN) == inside:
                kind = "nested" if inside else "unmatched"
                raise ValueError(f"{where}{kind} {stripped!r} marker on line {number} in:\n{source}")
            if stripped == BEGIN:
                indent = line[:len(line) - len(line.lstrip())]
                out.append(f"{indent}{STUB}")
            inside = stripped == BEGIN
            continue
        if _MARKER_LIKE.search(line) and stripped not in (BEGIN_HIDDEN, END_HIDDEN):
            raise ValueError(f"{where}line {number} looks like a solution marker but is not exactly "
                             f"{BEGIN!r} or {END!r} alone on its line (uppercase, three #): {line.rstrip()!r}")
        if not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{where}unmatched {BEGIN!r} marker (no {END!r}) in:\n{source}")
    return "\n".join(out)


def strip_hidden_tests(source, cell_index=None):
    """Remove every BEGIN/END HIDDEN TESTS region of ``source``, markers included, exactly as nbgrader does.

    nbgrader's ``ClearHiddenTests`` splits the source on "\\n", drops the
    marker lines and everything between them, and joins the rest with "\\n";
    doing the same keeps the student version byte-equal to nbgrader's
    release. A marker must be exactly :data:`BEGIN_HIDDEN` / :data:`END_HIDDEN`
    alone on its line; anything else that looks like one, and an unmatched
    or nested marker, raises ValueError (it would leak the hidden test).
    """
    where = _cell_label(cell_index)
    if "HIDDEN" not in source.upper():
        return source
    kept, inside = [], False
    for number, line in enumerate(source.split("\n"), start=1):
        stripped = line.strip()
        if stripped in (BEGIN_HIDDEN, END_HIDDEN):
            if (stripped == BEGIN_HIDDEN) == inside:
                raise ValueError(f"{where}{'nested' if inside else 'unmatched'} {stripped!r} marker on line {number}")
            inside = stripped == BEGIN_HIDDEN
        elif _MARKER_LIKE.search(line) and "solution" not in line.lower():
            raise ValueError(f"{where}line {number} looks like a hidden-tests marker but is not exactly "
                             f"{BEGIN_HIDDEN!r} or {END_HIDDEN!r} alone on its line: {line.rstrip()!r}")
        elif not inside:
            kept.append(line)
    if inside:
        raise ValueError(f"{where}unmatched {BEGIN_HIDDEN!r} marker (no {END_HIDDEN!r})")
    return "\n".join(kept)


def cell_source(cell):
    """A notebook cell's source as one string (nbformat stores a string or a list of lines)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _nbgrader(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def validate_lab_notebook(notebook):
    """Check the nbgrader metadata and markers of a solution notebook (a dict); raise ValueError listing problems.

    Rules (those of nbgrader's ``generate_assignment`` and of this book):
    a code cell with markers has ``solution: true``; a code solution cell has
    markers; a graded code cell (a checker: ``grade: true``) is locked, not a
    solution, and has points > 0; a markdown cell has no markers, and if it
    is a solution it is a graded answer with points; every nbgrader cell has
    a ``grade_id``, unique in the notebook, and ``schema_version`` 3.
    """
    problems, grade_ids = [], {}
    for index, cell in enumerate(notebook.get("cells", [])):
        text, meta = cell_source(cell), _nbgrader(cell)
        kind = cell.get("cell_type")
        if kind == "markdown" and _MARKER_LIKE.search(text):
            problems.append(f"cell {index} (markdown) contains a solution marker; markers belong in code cells "
                            f"only (a markdown answer is a whole cell with nbgrader solution: true)")
        if kind == "code":
            has_markers = BEGIN in text or END in text
            if has_markers and not meta.get("solution"):
                problems.append(f"cell {index} has solution markers but no nbgrader metadata "
                                f"'solution: true' (nbgrader: 'Solution region detected in a non-solution cell')")
            if meta.get("solution") and not has_markers:
                problems.append(f"cell {index} is an nbgrader solution cell without {BEGIN!r} / {END!r} markers")
            if BEGIN_HIDDEN in text and not (meta.get("grade") and not meta.get("solution")):
                problems.append(f"cell {index} has hidden tests but is not a graded test cell (grade: true, "
                                f"solution: false): nbgrader would refuse it")
            if meta.get("grade") and (meta.get("solution") or not meta.get("locked")):
                problems.append(f"cell {index} is a graded test cell; it must be locked and not a solution")
        if kind == "markdown" and meta.get("solution") and not meta.get("grade"):
            problems.append(f"cell {index} is a markdown answer cell; it must be graded (grade: true, points)")
        if not meta:
            continue
        if meta.get("schema_version") != 3:
            problems.append(f"cell {index}: nbgrader schema_version must be 3, got {meta.get('schema_version')!r}")
        grade_id = meta.get("grade_id")
        if not grade_id:
            problems.append(f"cell {index}: nbgrader metadata without a grade_id")
        elif grade_id in grade_ids:
            problems.append(f"cells {grade_ids[grade_id]} and {index} share the grade_id {grade_id!r}")
        else:
            grade_ids[grade_id] = index
        if meta.get("grade"):
            points = meta.get("points")
            if not isinstance(points, (int, float)) or isinstance(points, bool) or points <= 0:
                problems.append(f"cell {index}: a graded cell needs points > 0, got {points!r}")
    if problems:
        raise ValueError("invalid lab notebook:\n  " + "\n  ".join(problems))


_LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def rewrite_links(text, src_dir, out_dir):
    """Make relative markdown links point at the same file from ``out_dir`` as from ``src_dir``."""
    def fix(match):
        target = match.group(2)
        path, hash_, anchor = target.partition("#")
        if not path or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", path) or path.startswith("/"):
            return match.group(0)
        resolved = (src_dir / path).resolve()
        if not resolved.exists():
            return match.group(0)
        relative = os.path.relpath(resolved, out_dir.resolve()).replace(os.sep, "/")
        return f"{match.group(1)}{relative}{hash_}{anchor}{match.group(3)}"
    return _LINK.sub(fix, text)


def _as_lines(text):
    return text.splitlines(keepends=True)


def student_notebook(src, out_dir):
    """The student version of the solution notebook at ``src`` (a dict), for a file in ``out_dir``.

    Raises ValueError, naming the cell, for invalid metadata or markers (see
    :func:`validate_lab_notebook` and :func:`strip_solutions`).
    """
    src = Path(src)
    notebook = json.loads(src.read_text(encoding="utf-8"))
    try:
        validate_lab_notebook(notebook)
    except ValueError as err:
        raise ValueError(f"{src}: {err}") from None
    student = copy.deepcopy(notebook)
    for index, cell in enumerate(student["cells"]):
        text = cell_source(cell)
        if cell["cell_type"] == "code":
            try:
                text = strip_solutions(strip_hidden_tests(text, index), index)
            except ValueError as err:
                raise ValueError(f"{src}: {err}") from None
            cell["outputs"], cell["execution_count"] = [], None
        elif cell["cell_type"] == "markdown":
            if _nbgrader(cell).get("solution"):
                text = TEXT_STUB
            else:
                text = rewrite_links(text, src.parent, Path(out_dir))
        cell["source"] = _as_lines(text)
    return student


def dumps_notebook(notebook):
    """A notebook as the text Jupyter itself writes (indent 1, sorted keys, a final newline).

    So saving a student version from JupyterLab changes nothing.
    """
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def make_student_notebook(src, dst):
    """Write the student version of the solution notebook ``src`` to ``dst``; returns ``Path(dst)``."""
    dst = Path(dst)
    text = dumps_notebook(student_notebook(src, dst.parent))
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(text, encoding="utf-8")
    return dst


def _sources(src_dir):
    sources = sorted(Path(src_dir).glob("*.ipynb"))
    if not sources:
        raise FileNotFoundError(f"no lab notebooks (*.ipynb) found in src_dir={str(src_dir)!r}")
    return sources


def make_student_versions(src_dir=SOLUTIONS_DIR, out_dir=STUDENT_DIR):
    """Write the student version of every solution notebook in ``src_dir`` to ``out_dir`` (same file names).

    All notebooks are generated before any is written, so an invalid one
    leaves ``out_dir`` untouched.
    """
    src_dir, out_dir = Path(src_dir), Path(out_dir)
    if src_dir.resolve() == out_dir.resolve():
        raise ValueError(f"out_dir must differ from src_dir={str(src_dir)!r}: the student versions would "
                         f"overwrite the solutions")
    texts = {out_dir / s.name: dumps_notebook(student_notebook(s, out_dir)) for s in _sources(src_dir)}
    out_dir.mkdir(parents=True, exist_ok=True)
    for path, text in texts.items():
        path.write_text(text, encoding="utf-8")
    return list(texts)


def student_version_drift(src_dir=SOLUTIONS_DIR, out_dir=STUDENT_DIR):
    """File names whose committed student version in ``out_dir`` differs from what the generator writes now.

    Returns a list of (name, reason) pairs; empty when everything is up to
    date. A solution notebook left in ``out_dir`` (it contains a marker) is
    reported too, since students would get it.
    """
    src_dir, out_dir = Path(src_dir), Path(out_dir)
    problems = []
    for source in _sources(src_dir):
        target = out_dir / source.name
        if not target.exists():
            problems.append((source.name, "missing: run `make labs`"))
        elif target.read_text(encoding="utf-8") != dumps_notebook(student_notebook(source, out_dir)):
            problems.append((source.name, "out of date: run `make labs` and commit the result"))
    names = {s.name for s in _sources(src_dir)}
    for target in sorted(out_dir.glob("*.ipynb")):
        text = target.read_text(encoding="utf-8")
        if BEGIN in text or END in text:
            problems.append((target.name, f"contains solutions: move it to {src_dir}/ and run `make labs`"))
        elif target.name not in names:
            problems.append((target.name, f"has no solution notebook in {src_dir}/"))
    return problems
