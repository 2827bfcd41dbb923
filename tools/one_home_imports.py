"""Rewrite imports to the one home of every name that used to be re-exported (issue 23).

The size-driven splits left shims: old modules that re-exported (or lazily
``__getattr__``-ed) names now defined elsewhere. The shims are gone; ``MOVED``
below lists every name that left an old path and its one home. This script
rewrites code that still uses an old path, in

* ``from dpteach.OLD import a, b`` (and relative ``from .OLD import``) lines,
* attribute uses ``OLD.a`` where ``OLD`` was imported as a module
  (``from dpteach import local`` then ``local.RandomizedResponse``): the home
  module is added to the same import line,
* dotted strings ``"dpteach.OLD.a"`` (``show_source`` listings, prose),
* the lab checkers' forbidden names: ``"_old"`` is followed by its new public name,

in the notebooks (``book/**/*.ipynb``, code and markdown cells), the markdown
pages, and the Python files of ``dpteach/``, ``tests/``, ``tools/`` and
``benchmarks/``. It changes no computation: only where a name is imported from.
It is idempotent; rerun it after merging branches that edited chapters::

    python -m tools.one_home_imports            # rewrite in place, list the files changed
    python -m tools.one_home_imports --check    # exit 1 if anything still uses an old path

``tests/test_import_graph.py`` checks that every entry of ``MOVED`` is
importable from its home and gone from its old path.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

_G, _LS, _RZ, _SQ, _SA, _LL = ("dpteach.group_sizes", "dpteach.local_to_sq", "dpteach.randomizers", "dpteach.sq",
                               "dpteach.sq_algorithms", "dpteach.local_learners")
_HYP, _HC, _SUB, _AT = "dpteach.hypotheses", "dpteach.halfspace_cover", "dpteach.subspace", "dpteach.attack_targets"
_DS, _T1T, _T1R = "dpteach.dpsas_steps", "dpteach.experiments.table1_tables", "dpteach.experiments.table1_rates"
_PA, _PL = "dpteach.experiments.production_attack", "dpteach.experiments.production_laws"

#: {old module: {name: home module}} — every public name a shim used to provide.
MOVED = {
    # _constraints.py split by idea (826 lines): the array, sequence and callable rules have their own module.
    "dpteach._constraints": dict.fromkeys(["Array", "Labels", "Callable", "Sequence", "InstanceOf", "EpsilonArray",
                                           "PositiveArray", "CountArray", "Sweep", "Bits", "Flag"],
                                          "dpteach._array_constraints"),
    "dpteach.local": {
        **dict.fromkeys(["GROUP_SIZE_RULES", "MAX_GROUP_SIZE", "group_size", "tolerance_for_group"], _G),
        **dict.fromkeys(["RejectionSamples", "rejection_output_law", "simulate_local_with_sq",
                         "worst_case_rejection_tv"], _LS),
        **dict.fromkeys(["HalfNoiseLaplaceRandomizer", "LocalRandomizer", "RandomizedResponse",
                         "debias_randomized_response", "LaplaceRandomizer", "OneBitRandomizer",
                         "make_randomizer"], _RZ),
        **dict.fromkeys(["ADVERSARIAL_STRATEGIES", "NoisySQOracle", "ExactSQOracle", "SQOracle",
                         "NotEnoughUsersError", "PrivacyLedgerError", "QueryBudgetError", "as_records"], _SQ),
        **dict.fromkeys(["masked_parity_bruteforce", "masked_parity_interactive", "records",
                         "sq_averaging_halfspace", "sq_gd_logistic", "sq_mean", "sq_threshold_binary_search",
                         "sq_threshold_grid"], _SA),
        **dict.fromkeys(["LocalHalfspaceLearner", "LocalThresholdLearner", "masked_parity_users",
                         "smallest_feasible_alpha"], _LL),
    },
    "dpteach.generic": dict.fromkeys(["Halfspaces", "Hypothesis", "HypothesisClass", "Intervals", "Parities",
                                      "Thresholds", "halfspaces", "intervals", "parities", "public_directions",
                                      "thresholds", "walsh_hadamard", "check_class"], _HYP),
    "dpteach.proper": {
        **dict.fromkeys(["HalfspaceCover", "covering_radius", "cover_error_counts", "halfspace_cover",
                         "select_halfspace", "sphere_net", "MAX_CANDIDATES", "THRESHOLD_RANGE_CONSTANT"], _HC),
        **dict.fromkeys(["gradient_second_moment", "noise_floor", "relevant_subspace", "NOISE_FLOOR_FACTOR"],
                        _SUB),
    },
    "dpteach.dpsas": {
        **dict.fromkeys(["STEP_RULES", "default_n_rounds", "dpsas_noise_sigma", "dpsas_round",
                         "private_initial_direction", "private_threshold", "projected_gaussian_noise",
                         "round_schedule", "step_size"], _DS),
        **dict.fromkeys(["ramp", "ramp_derivative", "ramp_loss", "ramp_loss_gradient"], "dpteach.dpsas_ramp"),
    },
    "dpteach.fingerprinting": {
        **dict.fromkeys(["accuracy_noise_sd", "clipped_gaussian_mean", "exact_mean", "noisy_mean", "noisy_ols",
                         "ols_estimate"], _AT),
        **dict.fromkeys(["fingerprinting_lemma_mc", "gaussian_fingerprinting_mc"], "dpteach.fingerprinting_lemmas"),
    },
    "dpteach.regression": dict.fromkeys(["peel", "peeling_epsilon", "peeling_noise_scale"], "dpteach.peeling"),
    "dpteach.logconcave": dict.fromkeys(["MARGINALS", "sample_marginal"], "dpteach.marginals"),
    "dpteach.experiments.table1": {
        **dict.fromkeys(["mean_error", "n_needed", "winner_table", "format_winner_table"], _T1T),
        **dict.fromkeys(["sample_complexity_shape", "excess_error_shape", "fit_shape_constant",
                         "complexity_shape"], _T1R),
    },
    "dpteach.experiments.production": {
        **dict.fromkeys(["attack_samplers", "floating_point_attack"], _PA),
        "lattice_neighbourhood": "dpteach.float_attack",
        **dict.fromkeys(["FALSE_ALARM", "discrete_laplace_pmf", "ks_critical_value",
                         "permute_and_flip_probabilities"], _PL),
    },
    "dpteach.experiments._progress": {"progress": "dpteach._progress"},
}

#: Private helpers that other modules imported, now public in their one home: {module: {old: (home, new)}}.
#: (A name imported from a shim is listed under the shim too.)
RENAMED = {
    'dpteach.composition': {
        '_advanced_epsilon': ('dpteach.composition', 'advanced_epsilon'),
        '_expected_loss': ('dpteach.composition', 'expected_loss'),
    },
    'dpteach.dp_erm': {
        '_zcdp_gaussian_sigma': ('dpteach.dp_erm', 'zcdp_gaussian_sigma'),
    },
    'dpteach.hermite': {
        '_clip_scale_or_overflow': ('dpteach.hermite', 'clip_scale_or_overflow'),
        '_eq25_radius': ('dpteach.hermite', 'eq25_radius'),
        '_plan': ('dpteach.hermite', 'feature_plan'),
        '_clip_scale': ('dpteach.hermite', 'clip_scale'),
        '_unchecked_features': ('dpteach.hermite', 'hermite_features_unchecked'),
        '_clipped_features': ('dpteach.hermite', 'clip_features_prechecked'),
    },
    'dpteach.regression': {
        '_block_indices': ('dpteach.regression_steps', 'block_indices'),
        '_check_design': ('dpteach.regression_steps', 'check_design'),
        '_gradient_step': ('dpteach.regression_steps', 'gradient_step'),
    },
    'dpteach.peeling': {
        '_noise_scale': ('dpteach.peeling', 'peeling_noise_scale'),
        '_peel_rows': ('dpteach.peeling', 'peel_rows'),
        '_peel_forgotten_sqrt_s': ('dpteach.peeling', 'broken_peel_forgotten_sqrt_s'),
    },
    'dpteach.dpsas_steps': {
        '_check_unit_vector': ('dpteach.dpsas_ramp', 'check_unit_vector'),
        '_clip_rows': ('dpteach.dpsas_steps', 'clip_rows'),
        '_default_rounds': ('dpteach.dpsas_steps', 'default_n_rounds'),
        '_initial_direction': ('dpteach.dpsas_steps', 'private_initial_direction'),
        '_round': ('dpteach.dpsas_steps', 'dpsas_round_prechecked'),
        '_schedule': ('dpteach.dpsas_steps', 'round_schedule'),
        '_sigma': ('dpteach.dpsas_steps', 'dpsas_noise_sigma'),
        '_step_size': ('dpteach.dpsas_steps', 'step_size'),
        '_threshold': ('dpteach.dpsas_steps', 'private_threshold'),
    },
    'dpteach.group_sizes': {
        '_check_rule_randomizer': ('dpteach.group_sizes', 'check_rule_randomizer'),
        '_group_size': ('dpteach.group_sizes', 'group_size_prechecked'),
        '_tolerance_for_group': ('dpteach.group_sizes', 'tolerance_for_group_prechecked'),
    },
    'dpteach.sq': {
        '_query_values': ('dpteach.sq', 'query_values'),
    },
    'dpteach.attack_targets': {
        '_clipped_gaussian_mean_quarter_noise': ('dpteach.attack_targets', 'broken_clipped_gaussian_mean_quarter_noise'),
        '_clip_rows': ('dpteach.attack_targets', 'clip_rows'),
    },
    'dpteach.hypotheses': {
        '_walsh_hadamard_butterfly': ('dpteach.hypotheses', 'walsh_hadamard_butterfly'),
    },
    'dpteach.data.generic': {
        '_flip_labels': ('dpteach.data.generic', 'flip_labels_prechecked'),
    },
    'dpteach.experiments.table1': {
        '_check_with_gaps': ('dpteach.experiments.table1', 'check_with_gaps'),
        '_settings': ('dpteach.experiments.table1', 'merged_settings'),
        '_check_names': ('dpteach.experiments.table1', 'check_names'),
    },
    'dpteach.experiments.production': {
        '_seed': ('dpteach.experiments.production', 'diffprivlib_seed'),
    },
}
RENAMED["dpteach.fingerprinting"] = RENAMED["dpteach.attack_targets"]  # chapter 4's names, imported from the old shim


def _targets(module):
    """{old name: (home, new name)} for a module: its moved and its renamed names."""
    out = {name: (home, name) for name, home in MOVED.get(module, {}).items()}
    out.update(RENAMED.get(module, {}))
    return out


#: Old modules that keep using (importing) some moved names themselves: for them an import line
#: inside the old module itself is left alone (it is an ordinary import, not a re-export).
_IMPORT_RE = re.compile(r"^(?P<indent>[ \t]*)from (?P<mod>\.+[\w.]*|dpteach[\w.]*) import "
                        r"(?P<names>\([^)]*\)|[^\n]*(?:\\\n[^\n]*)*)", re.M)


def _module_of(path):
    """'dpteach.x.y' for a package file, else None."""
    rel = path.relative_to(ROOT).with_suffix("")
    if rel.parts[0] != "dpteach":
        return None
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(mod, here, is_package):
    """Absolute module name of ``from <mod> import`` written in module ``here``."""
    if not mod.startswith("."):
        return mod
    level = len(mod) - len(mod.lstrip("."))
    base = here.split(".") if is_package else here.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    rest = mod.lstrip(".")
    return ".".join(base + ([rest] if rest else []))


def _relative(home, here, is_package):
    """``home`` written relative to module ``here`` (the package's own style)."""
    pkg = here.split(".") if is_package else here.split(".")[:-1]
    target = home.split(".")
    common = 0
    while common < min(len(pkg), len(target) - 1) and pkg[common] == target[common]:
        common += 1
    return "." * (len(pkg) - common + 1) + ".".join(target[common:])


def _split_names(text):
    body = text.strip()
    if body.startswith("("):
        body = body[1:-1]
    body = re.sub(r"#[^\n]*", "", body).replace("\\\n", " ")
    return [n.strip() for n in body.split(",") if n.strip()]


def _format(indent, mod, names, width=118):
    line = f"{indent}from {mod} import {', '.join(names)}"
    if len(line) <= width:
        return line
    head = f"{indent}from {mod} import ("
    out, cur = [], head
    for i, n in enumerate(names):
        piece = n + (", " if i < len(names) - 1 else ")")
        if len(cur) + len(piece.rstrip()) > width:
            out.append(cur.rstrip())
            cur = " " * len(head) + piece
        else:
            cur += piece
    out.append(cur)
    return "\n".join(out)


def _rewrite_from_imports(text, here=None, is_package=False):
    def repl(m):
        absolute = _resolve(m.group("mod"), here, is_package) if here else m.group("mod")
        moved = _targets(absolute)
        if not moved or absolute == here:
            return m.group(0)
        names = _split_names(m.group("names"))
        keep, homes, renamed = [], {}, False
        for item in names:
            name, _, alias = (part.strip() for part in item.partition(" as "))
            if name in moved and not (moved[name][0] == absolute and moved[name][1] == name):
                home, new = moved[name]
                if home == absolute:  # renamed in place: keep the importer's binding (`new as old`)
                    keep.append(f"{new} as {alias or name}")
                    renamed = True
                else:
                    homes.setdefault(home, []).append(new if new == (alias or name) else f"{new} as {alias or name}")
            else:
                keep.append(item)
        if not homes and not renamed:
            return m.group(0)
        indent = m.group("indent")
        lines = [_format(indent, m.group("mod"), keep)] if keep else []
        for home, items in homes.items():
            spelled = _relative(home, here, is_package) if m.group("mod").startswith(".") else home
            lines.append(_format(indent, spelled, items))
        return "\n".join(lines)
    return _IMPORT_RE.sub(repl, text)


_MODULE_IMPORT_RE = re.compile(r"^(?P<indent>[ \t]*)from (?P<pkg>dpteach(?:\.experiments)?) import "
                               r"(?P<names>\([^)]*\)|[^\n]*)", re.M)


def _module_aliases(text):
    """{alias: absolute module} for ``from dpteach[.experiments] import mod [as alias]`` lines."""
    aliases = {}
    for m in _MODULE_IMPORT_RE.finditer(text):
        for item in _split_names(m.group("names")):
            name, _, alias = item.partition(" as ")
            aliases[(alias or name).strip()] = f"{m.group('pkg')}.{name.strip()}"
    return aliases


def _add_module_import(text, home, bound=frozenset()):
    """Add ``home``'s short name to the ``from <its package> import ...`` line (or a new line after the first)."""
    pkg, _, short = home.rpartition(".")
    top_level = "\n".join(line for line in text.splitlines() if line.startswith("from "))
    if home in _module_aliases(top_level).values():
        return text
    alias = _home_alias(home, bound)
    short = short if alias == short else f"{short} as {alias}"
    for m in _MODULE_IMPORT_RE.finditer(text):
        if m.group("pkg") == pkg and not m.group("indent"):  # a top-level import: the name is used module-wide
            names = _split_names(m.group("names"))
            if short.split(" as ")[-1] not in [n.split(" as ")[-1].strip() for n in names]:
                names = sorted(names + [short], key=lambda n: n.lower())
            return text[:m.start()] + _format(m.group("indent"), pkg, names) + text[m.end():]
    first_def = re.search(r"^(?:def|class|@)", text, re.M)
    head = first_def.start() if first_def else len(text)
    top = [m for m in re.finditer(r"^(?:from|import) [^\n(]*(?:\([^)]*\))?", text, re.M) if m.start() < head]
    line = f"from {pkg} import {short}"
    if not top:
        return line + "\n" + text
    end = top[-1].end()
    return text[:end] + "\n" + line + text[end:]


def _bound_names(text):
    """Names the code binds as variables, arguments or loop targets (a home module must not clash)."""
    import ast
    try:
        tree = ast.parse(text)
    except SyntaxError:  # a notebook cell with IPython syntax: fall back to simple assignments
        return set(re.findall(r"^\s*(\w+)\s*=[^=]", text, re.M)) | set(re.findall(r"\bfor\s+(\w+)", text))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    names |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    return names


def _home_alias(home, bound):
    """The name a home module is imported as: its short name, or ``<short>_module`` if the code uses that name."""
    short = home.rpartition(".")[2]
    return short if short not in bound else f"{short}_module"


def _rewrite_attributes(text, imports_text=None):
    """``OLD.name`` → ``HOME.name`` where OLD is a module alias; returns (text, homes needed)."""
    aliases = _module_aliases(imports_text if imports_text is not None else text)
    bound = _bound_names(imports_text if imports_text is not None else text)
    needed = set()
    for alias, module in aliases.items():
        moved = _targets(module)
        if not moved:
            continue
        def repl(m, moved=moved, alias=alias, module=module):
            home, new = moved[m.group(1)]
            if home == module:
                return f"{alias}.{new}"
            needed.add(home)
            known = [a for a, mod in aliases.items() if mod == home]
            return f"{known[0] if known else _home_alias(home, bound)}.{new}"
        pattern = re.compile(rf"(?<![\w.]){re.escape(alias)}\.({'|'.join(map(re.escape, moved))})\b")
        text = pattern.sub(repl, text)
    return text, needed


def _rewrite_dotted(text):
    for old in set(MOVED) | set(RENAMED):
        moved = _targets(old)
        pattern = re.compile(rf"\b{re.escape(old)}\.({'|'.join(map(re.escape, moved))})\b")
        text = pattern.sub(lambda m, moved=moved: "{}.{}".format(*moved[m.group(1)]), text)
    return text


_RELATIVE_MODULE_IMPORT_RE = re.compile(r"^(?P<indent>[ \t]*)from (?P<dots>\.+) import (?P<names>\([^)]*\)|[^\n]*)", re.M)


def _rewrite_package_attributes(text, here, is_package):
    """``mod.name`` → ``home.name`` in a package module that imported ``mod`` with ``from .. import mod``."""
    aliases = {}
    for m in _RELATIVE_MODULE_IMPORT_RE.finditer(text):
        base = _resolve(m.group("dots"), here, is_package)
        for item in _split_names(m.group("names")):
            name, _, alias = (part.strip() for part in item.partition(" as "))
            aliases[alias or name] = f"{base}.{name}"
    bound = _bound_names(text)
    needed = set()
    for alias, module in list(aliases.items()):
        moved = _targets(module)
        if not moved:
            continue
        def repl(m, moved=moved, alias=alias, module=module):
            home, new = moved[m.group(1)]
            if home == module:
                return f"{alias}.{new}"
            needed.add(home)
            known = [a for a, mod in aliases.items() if mod == home]
            return f"{known[0] if known else _home_alias(home, bound)}.{new}"
        pattern = re.compile(rf"(?<![\w.]){re.escape(alias)}\.({'|'.join(map(re.escape, moved))})\b")
        text = pattern.sub(repl, text)
    for home in sorted(needed):
        short = home.rpartition(".")[2]
        if home in aliases.values():
            continue
        alias = _home_alias(home, bound)
        short = short if alias == short else f"{short} as {alias}"
        spelled = _relative(home, here, is_package)
        dots = spelled[: len(spelled) - len(spelled.lstrip("."))]
        rest = spelled.lstrip(".")
        line = (f"from {dots} import {short}" if "." not in rest
                else f"from {dots}{rest.rpartition('.')[0]} import {short}")
        first = _RELATIVE_MODULE_IMPORT_RE.search(text) or _IMPORT_RE.search(text)
        text = text[:first.end()] + "\n" + line + text[first.end():]
        aliases[alias] = home
    return text


def rewrite_python(text, here=None, is_package=False):
    text = _rewrite_from_imports(text, here, is_package)
    if here is None:  # tests, tools: module aliases imported from dpteach
        bound = _bound_names(text)
        text, needed = _rewrite_attributes(text)
        for home in sorted(needed):
            text = _add_module_import(text, home, bound)
    else:
        text = _rewrite_package_attributes(text, here, is_package)
    return _rewrite_dotted(text)


def rewrite_notebook(nb):
    """Rewrite a notebook (dict) in place; True if anything changed."""
    def source(cell):
        return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]

    def store(cell, text):
        if isinstance(cell["source"], list):
            cell["source"] = text.splitlines(keepends=True)
        else:
            cell["source"] = text

    changed = False
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    all_code = "\n".join(source(c) for c in code)
    bound = set()
    for cell in code:
        bound |= _bound_names(source(cell))
    needed = set()
    for cell in nb["cells"]:
        old = source(cell)
        if cell["cell_type"] == "code":
            new = _rewrite_from_imports(old)
            new, homes = _rewrite_attributes(new, all_code)
            needed |= homes
            new = _rewrite_dotted(new)
        else:
            new = _rewrite_prose(_rewrite_dotted(old))
        if new != old:
            store(cell, new)
            changed = True
    for home in sorted(needed):
        pkg, _, short = home.rpartition(".")
        if home in _module_aliases(all_code).values():
            continue
        for cell in code:  # the first cell that imports from the same package gets the home module
            text = source(cell)
            if re.search(rf"^\s*from {re.escape(pkg)} import ", text, re.M):
                store(cell, _add_module_import(text, home, bound))
                all_code = "\n".join(source(c) for c in code)
                changed = True
                break
        else:
            raise SystemExit(f"no `from {pkg} import` line to extend with {short}; add it by hand")
    return changed


def forbid_new_names(text):
    """In a lab checker, a forbidden name ``"_old"`` also forbids its public ``"new"`` name.

    The checkers' ``require_own_code(fn, (names...))`` refuse a student's function that calls the
    library by name; a helper renamed from ``_old`` to ``new`` must stay refused under its new name.
    """
    renamed = {}
    for names in RENAMED.values():
        for old, (_, new) in names.items():
            renamed.setdefault(old, set()).add(new)
    for old, news in renamed.items():
        for new in sorted(news):
            if f'"{new}"' in text:
                continue
            text = re.sub(rf'"{re.escape(old)}"(?!, "{re.escape(new)}")', f'"{old}", "{new}"', text)
    return text


#: Sentences of the chapters that named an old home (exact text -> new text), fixed in markdown cells.
PROSE = {
    "(the nets,\n$\\mathcal H(q)$, the error counts and the selection). Every name below also imports from `dpteach.proper`.":
        "(the nets,\n$\\mathcal H(q)$, the error counts and the selection). Each name below imports from the module that defines it.",
    "`dpteach.generic` provides four, each with": "`dpteach.hypotheses` provides four, each with",
    "- `dpteach.experiments.table1`: `run_comparison`, `fit_learner`, `make_problem`, `peers_available`, `mean_error`,\n"
    "  `n_needed`, `sample_complexity_shape`, `excess_error_shape`, `fit_shape_constant`, `complexity_shape`,\n"
    "  `runtime_vs_d`, `winner_table`, `format_winner_table`, `surrogate_gap`, `unit_ball_rows` (diffprivlib's input), and\n":
        "- `dpteach.experiments.table1`: `run_comparison`, `fit_learner`, `make_problem`, `peers_available`,\n"
        "  `runtime_vs_d`, `surrogate_gap`, `unit_ball_rows` (diffprivlib's input), and\n",
    "- `dpteach.experiments.table1_surrogate`: `rcn_logistic_threshold`,":
        "- `dpteach.experiments.table1_tables`: `mean_error`, `n_needed`, `winner_table`, `format_winner_table`.\n"
        "- `dpteach.experiments.table1_rates`: `sample_complexity_shape`, `excess_error_shape`, `fit_shape_constant`,\n"
        "  `complexity_shape`.\n"
        "- `dpteach.experiments.table1_surrogate`: `rcn_logistic_threshold`,",
}


def _rewrite_prose(text):
    for old, new in PROSE.items():
        if new not in text:
            text = text.replace(old, new)
    return text


def files():
    for folder in ("dpteach", "tests", "tools", "benchmarks"):
        yield from sorted((ROOT / folder).rglob("*.py"))
    yield from sorted((ROOT / "book").rglob("*.ipynb"))
    yield from sorted((ROOT / "book").rglob("*.md"))
    yield ROOT / "README.md"


def run(check=False):
    changed = []
    for path in files():
        if "_build" in path.parts or ".ipynb_checkpoints" in path.parts or path == pathlib.Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".ipynb":
            nb = json.loads(text)
            if not rewrite_notebook(nb):
                continue
            new = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
        elif path.suffix == ".py":
            here = _module_of(path)
            new = rewrite_python(text, here, path.name == "__init__.py")
            if here and here.startswith("dpteach.labs."):
                new = forbid_new_names(new)
        else:
            new = _rewrite_dotted(text)
        if new != text:
            changed.append(path.relative_to(ROOT))
            if not check:
                path.write_text(new, encoding="utf-8")
    return changed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report; exit 1 if a file uses an old path")
    args = parser.parse_args(argv)
    changed = run(check=args.check)
    for path in changed:
        print(("uses an old path: " if args.check else "rewrote ") + str(path))
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
