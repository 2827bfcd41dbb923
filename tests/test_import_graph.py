"""The import graph of dpteach, read with ``ast`` (issue 23): no circle, no upward arrow, no shims.

What is checked, on the source files (nothing is imported, so a lazy import inside a function
counts as an arrow too):

* no circle between modules;
* the layering the README states ("Where things go": foundation, algorithms, then data/bounds/experiments):
  each layer imports only the layers it is allowed to (``ALLOWED``), chapter 1 imports only the
  foundation, chapters 4–9 never import chapters 2–3;
* no module imports a ``_private`` name from another dpteach module (the foundation modules whose own
  name starts with ``_``, such as ``_validation``, may be imported, not their ``_private`` names);
* no module-level ``__getattr__`` (a lazy re-export) and no re-export through ``__all__`` (a module's
  ``__all__`` lists only what it defines; the flat packages ``data``/``bounds``/``labs`` excepted);
* every name that left an old path (``tools.one_home_imports.MOVED``/``RENAMED``) lives in its home and
  is gone from the old path — the alias test the issue asks for ("no public name disappears without
  an alias test"); ``python -m tools.one_home_imports`` rewrites code that still uses an old path.
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import re

import pytest

from tools import one_home_imports

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "dpteach"

# --- the layers (README, "Where things go") ------------------------------------------------------------
#: The foundation: validation and the declared constraints checked through it, the estimator base, the progress
#: helper, the one privacy receipt type, the declared range of scale parameters (_scales).
FOUNDATION = {"dpteach._validation", "dpteach._constraints", "dpteach._array_constraints", "dpteach._estimator",
              "dpteach._progress", "dpteach.privacy", "dpteach._scales"}
#: Shared below both the algorithms and the data generators (synthetic public samplers).
SHARED = {"dpteach.marginals"}
PRESENTATION = {"dpteach.widgets", "dpteach.plotting", "dpteach.listing"}
REGISTRY = {"dpteach.registry", "dpteach.audit_setups"}
CHAPTER_1 = {"dpteach.mechanisms", "dpteach.composition", "dpteach.audit"}
CHAPTERS_2_3 = {f"dpteach.{m}" for m in ("generic", "hypotheses", "fast_counts", "randomizers", "sq", "sq_algorithms",
                                         "group_sizes", "local", "local_to_sq", "local_learners",
                                         "sq_lower_bounds")}
CHAPTERS_4_9 = {f"dpteach.{m}" for m in (
    "attack_targets", "fingerprinting", "fingerprinting_lemmas", "peeling", "regression", "regression_baselines",
    "regression_steps", "dp_erm", "feature_scaling", "hermite", "hermite_coefficients", "improper", "logconcave",
    "halfspace_cover", "subspace", "proper", "dpsas_ramp", "dpsas_steps", "dpsas", "dp_logistic", "logistic_loss",
    "dp_sgd_poisson")}


def layer(module):
    """The layer of a dpteach module name."""
    for prefix in ("bounds", "data", "experiments", "labs"):
        if module == f"dpteach.{prefix}" or module.startswith(f"dpteach.{prefix}."):
            return prefix
    for name, members in (("foundation", FOUNDATION), ("shared", SHARED), ("presentation", PRESENTATION),
                          ("registry", REGISTRY)):
        if module in members:
            return name
    return "package" if module == "dpteach" else "algorithms"


#: layer -> the layers it may import. Algorithms never import data, experiments, labs, the registry
#: or the widgets; data never imports an algorithm; bounds import only the foundation; nothing but
#: experiments imports experiments, nothing but labs imports labs.
ALLOWED = {
    "foundation": {"foundation"},
    "shared": {"foundation"},
    "bounds": {"foundation", "bounds"},
    "algorithms": {"foundation", "shared", "bounds", "algorithms"},
    "data": {"foundation", "shared", "data"},
    "presentation": {"foundation", "presentation"},
    "registry": {"foundation", "shared", "bounds", "algorithms", "data", "registry"},
    "experiments": {"foundation", "shared", "bounds", "algorithms", "data", "presentation", "experiments"},
    "labs": {"foundation", "shared", "bounds", "algorithms", "data", "presentation", "labs"},
    "package": set(),
}

#: Private imports left in files that other branches own and edit in parallel (issue 23's owner of
#: each file makes the helper public there). The test fails if an entry is fixed but still listed, so
#: this list only shrinks.
PENDING_PRIVATE_IMPORTS = set()


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _scan():
    modules = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    edges, private, getattrs, reexports = {}, [], [], []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        arrows = edges.setdefault(module, set())
        imported = set()
        module_aliases = {}  # a local name bound to a dpteach module: its private attributes count too
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                arrows.update(a.name for a in node.names if a.name.startswith("dpteach"))
                module_aliases.update((a.asname, a.name) for a in node.names if a.asname and a.name in modules)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if not source.startswith("dpteach"):
                    continue
                for alias in node.names:
                    if f"{source}.{alias.name}" in modules:  # `from . import module`
                        arrows.add(f"{source}.{alias.name}")
                        module_aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                        continue
                    arrows.add(source)
                    imported.add(alias.asname or alias.name)
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        private.append((module, source, alias.name))
        for node in ast.walk(tree):  # `module._name`: reaching into another module's private name
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in module_aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                private.append((module, module_aliases[node.value.id], node.attr))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
                getattrs.append(module)
            if (isinstance(node, ast.Assign) and path.name != "__init__.py"
                    and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)):
                try:
                    names = ast.literal_eval(node.value)
                except ValueError:
                    reexports.append((module, "__all__ is not a literal list"))
                    continue
                reexports.extend((module, name) for name in names if name in imported)
        arrows.discard(module)
    return modules, edges, private, getattrs, reexports


MODULES, EDGES, PRIVATE, GETATTRS, REEXPORTS = _scan()


def _cycles():
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in EDGES.get(v, ()):
            if w not in MODULES:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in MODULES:
        if v not in index:
            visit(v)
    return found


def test_the_scan_sees_the_package():
    # Guards against a scan that silently finds nothing (a wrong root would make every test pass).
    assert "dpteach.local" in MODULES and "dpteach.experiments.table1" in MODULES
    assert "dpteach.group_sizes" in EDGES["dpteach.local"]
    assert "dpteach.local" in EDGES["dpteach.local_learners"]


def test_no_import_circle():
    assert not _cycles(), f"import circles: {_cycles()}"


def test_no_upward_import():
    upward = sorted((m, t, layer(m), layer(t)) for m, targets in EDGES.items() for t in targets
                    if t in MODULES and layer(m) != "package" and layer(t) not in ALLOWED[layer(m)] | {"package"})
    assert not upward, f"imports against the layering (module, target, its layer, target's layer): {upward}"


def test_chapter_rules():
    chapter_1 = sorted((m, t) for m in CHAPTER_1 for t in EDGES[m] if t in MODULES and t not in FOUNDATION | CHAPTER_1)
    assert not chapter_1, f"chapter 1 imports a later chapter: {chapter_1}"
    crossing = sorted((m, t) for m in CHAPTERS_4_9 for t in EDGES[m] if t in CHAPTERS_2_3)
    assert not crossing, f"chapters 4-9 import chapters 2-3: {crossing}"
    unknown = sorted(m for m in MODULES if layer(m) == "algorithms" and m not in CHAPTER_1 | CHAPTERS_2_3
                     | CHAPTERS_4_9 | {"dpteach.float_attack"})
    assert not unknown, f"new algorithm modules: add them to a chapter set above: {unknown}"


def test_no_private_name_imported_across_modules():
    found = set(PRIVATE)
    new = sorted(found - PENDING_PRIVATE_IMPORTS)
    assert not new, (f"private names imported from another module (make the helper public in its home, "
                     f"documented, or move it): {new}")
    fixed = sorted(PENDING_PRIVATE_IMPORTS - found)
    assert not fixed, f"fixed, so remove from PENDING_PRIVATE_IMPORTS: {fixed}"


def test_no_lazy_reexport():
    assert not GETATTRS, f"module-level __getattr__ (a lazy re-export shim): {GETATTRS}"


def _is_facade(module):
    """A lab's one student-facing module (``dpteach.labs.labNN``): its notebook calls ``labNN.check_*``, also for
    checkers defined in a companion module split off for size (lab03_constructions, lab05_derivations)."""
    return re.fullmatch(r"dpteach\.labs\.lab\d\d", module) is not None


def test_all_lists_only_own_names():
    found = [(m, n) for m, n in REEXPORTS if not _is_facade(m)]
    assert not found, f"__all__ re-exports names defined elsewhere (import them from their home): {found}"


MOVED = sorted((old, name, home, name) for old, names in one_home_imports.MOVED.items()
               for name, home in names.items())
RENAMED = sorted((old, name, home, new) for old, names in one_home_imports.RENAMED.items()
                 for name, (home, new) in names.items())


@pytest.mark.parametrize("old, name, home, new", MOVED + RENAMED)
def test_moved_name_lives_in_its_home(old, name, home, new):
    home_module = importlib.import_module(home)
    assert hasattr(home_module, new), f"{home}.{new} is missing: {old}.{name} moved there"
    old_module = importlib.import_module(old)
    assert name not in getattr(old_module, "__all__", ()), f"{old}.__all__ still lists {name}"
    if old == home:  # renamed in place: the private name is gone
        assert not hasattr(old_module, name), f"{old}.{name} should now be {home}.{new}"
    obj = getattr(home_module, new)
    if callable(obj) and hasattr(obj, "__module__") and not isinstance(obj, type(pytest)):
        assert obj.__module__ == home, f"{home}.{new} is defined in {obj.__module__}, not in its home"


def test_nothing_uses_an_old_path():
    stale = one_home_imports.run(check=True)
    assert not stale, f"files still use an old import path; run `python -m tools.one_home_imports`: {stale}"
