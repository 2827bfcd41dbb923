"""Every docstring example in dpteach runs and shows what it says (issue 23).

The examples are the valid calls the fuzz starts from (tests/doc_examples.py), so they must work: each
module's doctests run here, with ``ELLIPSIS`` and ``NORMALIZE_WHITESPACE`` (a long float may be shown
as ``0.12...``). An example that needs an optional library not installed here is skipped with the reason.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import dpteach

MODULES = sorted(["dpteach"] + [m.name for m in pkgutil.walk_packages(dpteach.__path__, "dpteach.")
                                if not m.name.endswith("__main__")])
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _tests(module_name):
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [t for t in finder.find(module, module_name, globs={"np": np, **vars(module)})
            if t.examples and (t.name == module_name or _defined_here(t, module_name))]


def _defined_here(test, module_name):
    # DocTestFinder also returns objects a module imports; run each docstring once, in its own module.
    return getattr(test, "filename", None) in (None, getattr(importlib.import_module(module_name), "__file__", None))


@pytest.mark.parametrize("module_name", [m for m in MODULES if _tests(m)])
def test_docstring_examples_run(module_name):
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    failures = []
    for test in _tests(module_name):
        with np.printoptions(legacy="1.25"):
            try:
                result = runner.run(test, out=failures.append)
            except ImportError as err:  # pragma: no cover - optional libraries of appendix A
                pytest.skip(f"{test.name} needs an optional library: {err}")
        assert result.failed == 0 or failures, test.name
    assert not failures, "".join(failures)
