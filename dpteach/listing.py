"""The code listings of the book: a function's own source, shown next to its algorithm box.

A chapter shows a listing with a code cell tagged ``remove-input``::

    from dpteach.listing import show_source
    show_source("dpteach.mechanisms.laplace_mechanism")

The web book then shows only the listing, and JupyterLab, Binder and Colab show the
same listing under the (short) cell once it runs. ``{literalinclude}`` rendered as
nothing in JupyterLab (reader review B2). The listing is read from the imported module
by :func:`inspect.getsource` when the cell runs, so it is never a copy and cannot
drift from the code; tests/test_listings.py checks every listing cell of the book.
"""

import importlib
import inspect
import re
import textwrap

__all__ = ["resolve", "source_of", "listing_markdown", "listing_bundle", "show_source"]


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


def listing_markdown(source):
    """A fenced ``python`` block holding ``source``, with a fence longer than any backtick run in it."""
    if not isinstance(source, str):
        raise TypeError(f"source must be a string of Python source, got {type(source).__name__}")
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}python\n{source.rstrip()}\n{fence}\n"


def show_source(*names):
    """Display the source of each named object as a highlighted listing (text/markdown, text/plain).

    Markdown renders with syntax highlighting in the web book (myst-nb), JupyterLab and Colab;
    text/plain is the source itself, for consoles and for the tests.
    """
    from IPython.display import display

    if not names:
        raise TypeError("show_source needs at least one name, such as 'dpteach.mechanisms.laplace_mechanism'")
    for name in names:
        display(listing_bundle(name), raw=True)


def listing_bundle(name):
    """The display data of one listing: {"text/markdown": fenced source, "text/plain": source}."""
    source = source_of(name)
    return {"text/markdown": listing_markdown(source), "text/plain": source}
