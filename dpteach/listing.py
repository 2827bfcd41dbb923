"""The code listings of the book: a routine's own code, shown next to its algorithm box.

A chapter shows a listing with a code cell tagged ``remove-input``::

    from dpteach.listing import show_source
    show_source("dpteach.mechanisms.laplace_mechanism")

Its output is a caption with the routine's qualified name (a method's shows its class:
``dpteach.randomizers.OneBitRandomizer.randomize``) above a plain fenced ``python`` block,
which the web book (myst-nb), JupyterLab, Binder and Colab all render with highlighting.
The block holds the routine's source read by :func:`inspect.getsource`, decorators (its
declared contract and privacy claim) and every line of code included, with the docstring
cut to its first paragraph plus a line saying how to read the rest
(``help("dpteach.mechanisms.laplace_mechanism")``): the listing shows the algorithm, not
its parameter tables. ``{literalinclude}`` rendered as nothing in JupyterLab (reader
review B2).

The output is deterministic, so the notebooks are committed with it and a student sees
the listing on opening a notebook, before running anything (reader review N8):
``python -m tools.listings --write`` refreshes the committed outputs from the current
modules, and tests/test_listings.py fails, byte for byte, on a stale one.
"""

import ast
import importlib
import inspect
import re
import textwrap

__all__ = ["resolve", "source_of", "fold_docstring", "listing_source", "listing_markdown", "listing_bundle",
           "show_source"]

#: The opening of a docstring that can be folded: an optional r/u prefix and triple quotes.
_TRIPLE_OPENING = re.compile(r"(?P<prefix>[rRuU]?)(?P<quote>\"\"\"|''')")


def resolve(name):
    """The object a dotted name such as ``"dpteach.local._LocalSQOracleBase.beta_per_query"`` names.

    The longest importable prefix is the module; the rest are attributes (a class, then a method).
    """
    if not isinstance(name, str) or not name.startswith("dpteach."):
        raise ValueError(f"name must be a dotted name inside dpteach, such as "
                         f"'dpteach.mechanisms.laplace_mechanism'; got {name!r}")
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(obj, attribute):
                raise ValueError(f"name={name!r}: {'.'.join(parts[:cut])} has no {attribute!r}")
            obj = getattr(obj, attribute)
        return obj
    raise ValueError(f"name={name!r}: no importable module in it")  # unreachable: 'dpteach' imports


def source_of(name):
    """The source of the named function, method, property or class, dedented (a method's indentation removed).

    A property is shown by its getter, whose source starts at the ``@property`` line.
    """
    obj = resolve(name)
    if isinstance(obj, property):
        obj = obj.fget
    return textwrap.dedent(inspect.getsource(obj))


def docstring_statement(source):
    """The ``ast.Expr`` of the docstring of the function or class that ``source`` defines (None if it has none)."""
    definition = ast.parse(source).body[0]
    if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and definition.body:
        first = definition.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            return first
    return None


def fold_docstring(source, name):
    """``source`` with its docstring cut to the first paragraph, then a line pointing to ``help("name")``.

    Only the docstring of the listed function or class is folded (not those of functions nested in
    it), and only when it has more than one paragraph; every other line is kept as it is. The result
    is still valid Python (the docstring stays a string literal with its own prefix and quotes).
    """
    statement = docstring_statement(source)
    if statement is None or statement.lineno == statement.end_lineno:
        return source
    lines = source.split("\n")  # the line breaks ast counts (str.splitlines also breaks at \f, \x1c, ...)
    first, last = lines[statement.lineno - 1], lines[statement.end_lineno - 1]
    opening = _TRIPLE_OPENING.match(first, statement.col_offset)
    if opening is None or first[:statement.col_offset].strip():  # one-quote string; docstring after `def …:`
        return source
    end = len(last.encode("utf-8")[:statement.end_col_offset].decode("utf-8"))  # ast counts UTF-8 bytes
    quote = opening["quote"]
    literal = "\n".join([first[opening.end():], *lines[statement.lineno:statement.end_lineno - 1], last[:end]])
    body = literal[:-len(quote)].split("\n")
    start = next((i for i, line in enumerate(body) if line.strip()), len(body))  # skip a newline after the quotes
    stop = next((i for i in range(start, len(body)) if not body[i].strip()), len(body))
    if not any(line.strip() for line in body[stop:]):
        return source  # one paragraph: nothing to fold
    indent = first[:statement.col_offset]
    folded = (f"{first[:opening.end()]}" + "\n".join(body[:stop]) + "\n"
              f"{indent}(Full docstring: help(\"{name}\").){quote}{last[end:]}")
    return "\n".join([*lines[:statement.lineno - 1], folded, *lines[statement.end_lineno:]])


def listing_source(name):
    """The code a listing shows: the named routine's source with its docstring folded (:func:`fold_docstring`)."""
    return fold_docstring(source_of(name), name)


def listing_markdown(source, name=None):
    """A fenced ``python`` block holding ``source``, with a fence longer than any backtick run in it.

    With ``name``, the block is preceded by a caption: the qualified name as inline code, in bold.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a string of Python source, got {type(source).__name__}")
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    fence = "`" * max(3, longest + 1)
    caption = "" if name is None else f"**`{name}`**\n\n"
    return f"{caption}{fence}python\n{source.rstrip()}\n{fence}\n"


def listing_bundle(name):
    """The display data of one listing: {"text/markdown": caption + fenced code, "text/plain": the same as text}.

    text/plain (consoles, the tests) is the caption as a comment line, then the listed code.
    """
    source = listing_source(name)
    return {"text/markdown": listing_markdown(source, name), "text/plain": f"# {name}\n{source}"}


def show_source(*names):
    """Display each named routine as a captioned, highlighted listing (text/markdown, text/plain).

    Markdown renders with syntax highlighting in the web book (myst-nb), JupyterLab and Colab;
    text/plain is the same listing as plain text, for consoles and for the tests.
    """
    from IPython.display import display

    if not names:
        raise TypeError("show_source needs at least one name, such as 'dpteach.mechanisms.laplace_mechanism'")
    for name in names:
        display(listing_bundle(name), raw=True)
