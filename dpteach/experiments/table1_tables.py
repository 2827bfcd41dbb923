"""Chapter 9: summaries of a comparison run — mean errors, the n needed for a target, and Table 9.2 ("where each wins")."""

from __future__ import annotations

import math

import numpy as np

from .._constraints import Check, Unchecked, validate_params
from .._array_constraints import Array
from .._validation import check_sizes
from .table1 import KINDS, check_names, check_with_gaps

__all__ = ["mean_error", "n_needed", "winner_table", "format_winner_table"]

# NaN marks a skipped run in these arrays (documented, allowed): the bad values are listed by hand, without NaN.
_NOT_ERRORS = [(np.zeros(0), "empty"), (np.array([0.1, np.inf]), "inf"), (np.array(["0.1"]), "str"),
               (None, "None"), ([[0.1], [0.2, 0.3]], "ragged")]


def _as_float_array(values):
    """Nested (the caller checked), an array of errors is still read as the float ndarray its check returns."""
    return np.asarray(values, dtype=float)


def _check_errors(values, name):
    """An array of errors with a repetitions axis (at least 1-D); NaN marks a skipped run."""
    arr = check_with_gaps(values, name)
    if arr.ndim < 1:
        raise ValueError(f"{name} must be a non-empty array with a repetitions axis, got shape {arr.shape}")
    return arr


def _check_grid(ns, name):
    """A strictly increasing 1-D grid of sample sizes (whole numbers ≥ 1), as floats."""
    if np.ndim(ns) != 1:
        raise ValueError(f"{name} must be a strictly increasing 1-D array of sample sizes, got {ns!r}")
    ns = np.array(check_sizes(ns, name), dtype=float)
    if np.any(np.diff(ns) <= 0):
        raise ValueError(f"{name} must be a strictly increasing 1-D array, got {ns!r}")
    return ns


def _check_result(result, name):
    """The dict of :func:`~dpteach.experiments.table1.run_comparison`, each error array of shape (kinds, ε, n, reps)."""
    keys = {"error", "learners", "kinds", "epsilons", "ns", "opt"}
    if not isinstance(result, dict) or not keys <= set(result) or not isinstance(result["error"], dict):
        raise ValueError(f"{name} must be the dict returned by run_comparison (keys {', '.join(sorted(keys))}), "
                         f"got {type(result).__name__}")
    shape = (len(result["kinds"]), len(result["epsilons"]), len(result["ns"]))
    for learner in result["learners"]:
        if learner not in result["error"] or np.shape(result["error"][learner])[:3] != shape:
            raise ValueError(f"{name}['error'][{learner!r}] must be an array of shape (kinds, epsilons, ns, reps) = "
                             f"{shape + ('reps',)}: {name} must be the dict returned by run_comparison")
    for learner, errors in result["error"].items():
        _check_errors(errors, f"{name}['error'][{learner!r}]")
    return result


# Check: NaN marks a skipped run (every array class refuses NaN)
@validate_params({"errors": Check(_check_errors, invalid=_NOT_ERRORS + [(0.3, "0-d")], convert_nested=_as_float_array)})
def mean_error(errors):
    """Mean over the last axis (repetitions), ignoring NaN; NaN where every repetition is NaN.

    Parameters
    ----------
    errors : array_like, at least 1-D (NaN allowed: skipped runs)

    Returns
    -------
    numpy.ndarray (one axis fewer). Cost O(size).

    Raises
    ------
    TypeError, ValueError
        For a non-numeric (strings, booleans), ragged, empty or 0-D array, or ±inf.

    Examples
    --------
    >>> mean_error(errors=np.array([[0.1, 0.2], [0.3, np.nan]]))
    array([0.15, 0.3 ])
    """
    arr = errors
    valid = np.isfinite(arr)
    count = valid.sum(axis=-1)
    total = np.where(valid, arr, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


# Check: a strictly increasing grid, and errors with NaN for skipped runs: no class states either
@validate_params({"ns": Check(_check_grid, invalid=[([1000, 100], "decreasing"), ([100.5, 1000], "fractional"),
                                                   (100, "0-d"), (None, "None"), ([], "empty")]),
                  "errors": Check(check_with_gaps, ndim=(1, 2), invalid=_NOT_ERRORS + [(np.zeros((1, 1, 1)), "3-D")]),
                  "target": Array(ndim=(0, 1))})
def n_needed(ns, errors, target):
    """Smallest n at which the mean error reaches ``target``, interpolating log n linearly between grid points.

    Figure 9.2's measurement: the target is OPT + α for the agnostic learners and C·OPT + α for the
    semi-agnostic one. The first grid point at or below the target is found; between it and the
    previous point the crossing is interpolated in (log n, error). NaN if the target is never reached;
    ns[0] if it is reached at once (the true n may be smaller).

    Parameters
    ----------
    ns : 1-D array_like of whole numbers ≥ 1, strictly increasing
    errors : array_like, shape (len(ns), reps) or (len(ns),) (NaN entries are ignored; no ±inf)
    target : float or array_like of targets

    Returns
    -------
    float or numpy.ndarray (one per target). Cost O(len(ns)·len(target)).

    Raises
    ------
    TypeError, ValueError
        For non-increasing, fractional or non-positive ns, mismatched lengths, a non-numeric errors,
        a non-finite or non-numeric target.

    Examples
    --------
    >>> round(n_needed(ns=[100, 1000], errors=np.array([[0.3], [0.1]]), target=0.2), 1)
    316.2
    """
    mean = mean_error(errors[:, None] if errors.ndim == 1 else errors)
    if mean.shape != ns.shape:
        raise ValueError(f"errors must have one row per n ({ns.size}), got shape {errors.shape}")
    targets = target
    out = np.full(targets.shape, np.nan).ravel()
    for i, t in enumerate(targets.ravel()):
        below = np.flatnonzero(np.isfinite(mean) & (mean <= t))
        if below.size == 0:
            continue
        j = below[0]
        if j == 0 or not np.isfinite(mean[j - 1]):
            out[i] = ns[j]
            continue
        # Linear in log n between (n_{j−1}, e_{j−1} > t) and (n_j, e_j ≤ t).
        fraction = (mean[j - 1] - t) / (mean[j - 1] - mean[j])
        out[i] = math.exp(math.log(ns[j - 1]) + fraction * (math.log(ns[j]) - math.log(ns[j - 1])))
    return float(out[0]) if targets.ndim == 0 else out.reshape(targets.shape)


# Check: the record run_comparison returns (a record type of this chapter)
@validate_params({"result": Check(_check_result, invalid=[({}, "{}"), (None, "None"), ("result", "'result'")]),
                  "learners": Unchecked("checked in the body, against the learners that result holds")})
def winner_table(result, learners=None):
    """Table 9.1: for each (kind, ε, n), the learner with the smallest mean test error, and by how much.

    Parameters
    ----------
    result : dict from :func:`run_comparison`
    learners : sequence of names, optional
        The contestants (default: every *private* learner in ``result``; the non-private
        ``"logistic"`` is a baseline, not a contestant).

    Returns
    -------
    list of dict rows {"kind", "epsilon", "n", "winner", "error", "runner_up", "runner_up_error",
    "opt", "logistic"} (``logistic`` NaN if it was not run). Cost O(size of result).

    Raises
    ------
    TypeError, ValueError
        For a malformed result or a learner it does not contain.

    Examples
    --------
    >>> errors = {"dp_sgd": np.full((1, 1, 2, 1), 0.3), "logistic": np.full((1, 1, 2, 1), 0.2)}
    >>> result = {"error": errors, "learners": ["dp_sgd", "logistic"], "kinds": ["rcn"], "epsilons": [1.0],
    ...           "ns": np.array([100, 200]), "opt": np.array([0.1])}
    >>> [(row["n"], row["winner"]) for row in winner_table(result=result)]
    [(100, 'dp_sgd'), (200, 'dp_sgd')]
    """
    contestants = [name for name in result["learners"] if name != "logistic"] if learners is None \
        else check_names(learners, "learners", list(result["learners"]))
    means = {name: mean_error(result["error"][name]) for name in contestants}
    baseline = mean_error(result["error"]["logistic"]) if "logistic" in result["error"] else None
    rows = []
    for a, kind in enumerate(result["kinds"]):
        for b, eps in enumerate(result["epsilons"]):
            for c, n in enumerate(result["ns"]):
                scores = sorted((means[name][a, b, c], name) for name in contestants
                                if np.isfinite(means[name][a, b, c]))
                if not scores:
                    continue
                first = scores[0]
                second = scores[1] if len(scores) > 1 else (math.nan, "")
                rows.append({"kind": kind, "epsilon": eps, "n": int(n), "winner": first[1], "error": first[0],
                             "runner_up": second[1], "runner_up_error": second[0],
                             "opt": float(result["opt"][a]),
                             "logistic": math.nan if baseline is None else float(baseline[a, b, c])})
    return rows


_SHORT = {"improper": "6.10 improper", "proper": "7.7 proper", "semi_agnostic": "8.9 semi-agn.",
          "dp_sgd": "DP-SGD", "diffprivlib": "diffprivlib", "logistic": "logistic"}


def _check_rows(rows, name):
    """The rows of :func:`winner_table`: a non-empty list of dicts with its keys."""
    if isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__iter__"):
        raise TypeError(f"{name} must be the list returned by winner_table, got {type(rows).__name__}")
    rows = list(rows)
    if not rows:
        raise ValueError(f"{name} must be a non-empty list from winner_table")
    keys = {"kind", "epsilon", "n", "winner", "error", "opt"}
    for row in rows:
        if not isinstance(row, dict) or not keys <= set(row) or row["winner"] not in _SHORT \
                or row["kind"] not in KINDS:
            raise ValueError(f"{name} must be winner_table's rows (dicts with keys {', '.join(sorted(keys))}), "
                             f"got {row!r}")
    return rows


# Check: the rows winner_table returns (a record type of this chapter)
@validate_params({"rows": Check(_check_rows, invalid=[("rows", "'rows'"), ([], "[]"), ([{}], "[{}]"), (None, "None")])})
def format_winner_table(rows):
    """Markdown for Table 9.1: one row per (noise, ε), one column per n; a cell is "winner (excess over OPT)".

    Parameters
    ----------
    rows : list of dict from :func:`winner_table`

    Returns
    -------
    str (a Markdown table). Cost O(len(rows)).

    Raises
    ------
    TypeError, ValueError
        For an empty list, or rows that are not :func:`winner_table`'s.

    Examples
    --------
    >>> rows = [{"kind": "rcn", "epsilon": 1.0, "n": 100, "winner": "dp_sgd", "error": 0.3, "runner_up": "",
    ...          "runner_up_error": math.nan, "opt": 0.1, "logistic": 0.2}]
    >>> print(format_winner_table(rows=rows))
    | noise | ε | n = 100 |
    |---|---|---|
    | rcn | 1 | DP-SGD (+0.200) |
    """
    ns = sorted({row["n"] for row in rows})
    keys = sorted({(row["kind"], row["epsilon"]) for row in rows}, key=lambda k: (KINDS.index(k[0]), k[1]))
    cells = {(row["kind"], row["epsilon"], row["n"]): row for row in rows}
    lines = ["| noise | ε | " + " | ".join(f"n = {n:,}" for n in ns) + " |",
             "|---|---|" + "---|" * len(ns)]
    for kind, eps in keys:
        entries = []
        for n in ns:
            row = cells.get((kind, eps, n))
            entries.append("–" if row is None else f"{_SHORT[row['winner']]} ({row['error'] - row['opt']:+.3f})")
        lines.append(f"| {kind} | {eps:g} | " + " | ".join(entries) + " |")
    return "\n".join(lines)
