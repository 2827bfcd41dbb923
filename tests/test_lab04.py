"""Tests of the Lab 4 checkers (dpteach.labs.lab04) and of the generated student notebook.

Every checker must accept correct reference solutions (defined here, not taken from the notebook,
so a broken notebook cannot make a checker look right) and reject the typical wrong answers with
the hint that names that bug: a missing centring (task 1), the envelope's terms swapped (task 2),
a forgotten constraint (task 3) and an off-by-one quantile (task 4).
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpteach import fingerprinting as fp
from dpteach.labs import BEGIN, LabCheckError, lab04
from lab_helpers import check_student_version, code_cells

NOTEBOOK = Path(__file__).resolve().parents[1] / "book" / "labs" / "solutions" / "lab04_fingerprinting.ipynb"


# --- Task 1: the score statistic ---------------------------------------------------------------

def score_right(records, estimate, center):
    return (np.asarray(records) - center) @ (np.asarray(estimate) - center)


def score_loop(records, estimate, center):  # the same, row by row
    return np.array([float(np.dot(x - center, estimate - center)) for x in records])


def test_array_tasks_refuse_lists():
    """Tasks 1, 2 and 5 ask for a numpy array; a list of the right numbers used to pass (review wave 4)."""
    with pytest.raises(LabCheckError, match="should return a numpy array, got list"):
        lab04.check_score_statistic(lambda r, m, c: [float(v) for v in score_right(r, m, c)])
    with pytest.raises(LabCheckError, match="should return a numpy array, got list"):
        lab04.check_dp_envelope(lambda f, e, d: list(envelope_right(f, e, d)))
    with pytest.raises(LabCheckError, match="should return a numpy array, got list"):
        lab04.check_group_envelope(lambda f, e, d, k: list(group_right(f, e, d, k)))


@pytest.mark.parametrize("right", [score_right, score_loop])
def test_score_checker_accepts_reference(right, capsys):
    lab04.check_score_statistic(right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda r, m, c: r @ m, "did not centre"),
    (lambda r, m, c: (r - c) @ m, "centred only the record"),
    (lambda r, m, c: r @ (m - c), "centred only the estimate"),
    (lambda r, m, c: -((r - c) @ (m - c)), "sign is flipped"),
    (lambda r, m, c: np.sum((r - m) ** 2, axis=1), "squared distance"),
    (lambda r, m, c: float(np.sum((r - c) @ (m - c))), "shape"),
    (lambda r, m, c: [str(v) for v in (r - c) @ (m - c)], "numpy array, got list"),
    (lambda r, m, c: 1.001 * ((r - c) @ (m - c)), "np.dot"),
])
def test_score_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab04.check_score_statistic(wrong)


def test_score_checker_refuses_the_dpteach_answer():
    with pytest.raises(LabCheckError, match="write this yourself"):
        lab04.check_score_statistic(lambda r, m, c: fp.score_statistic(r, m, c))


# --- Task 2: the DP envelope --------------------------------------------------------------------

def envelope_right(fpr, epsilon, delta):
    return np.clip(np.minimum(math.exp(epsilon) * fpr + delta, 1 - math.exp(-epsilon) * (1 - delta - fpr)), 0, 1)


def test_envelope_checker_accepts_reference_and_agrees_with_the_module(capsys):
    lab04.check_dp_envelope(envelope_right)
    assert "all checks passed" in capsys.readouterr().out
    for epsilon, delta in lab04._ENVELOPE_CASES:
        np.testing.assert_allclose(envelope_right(lab04._ENVELOPE_GRID, epsilon, delta),
                                   fp.dp_roc_envelope(lab04._ENVELOPE_GRID, epsilon, delta), rtol=1e-12)


@pytest.mark.parametrize("wrong, hint", [
    (lambda f, e, d: np.clip(np.minimum(math.exp(-e) * f + d, 1 - math.exp(e) * (1 - d - f)), 0, 1), "swapped"),
    (lambda f, e, d: np.clip(np.maximum(math.exp(e) * f + d, 1 - math.exp(-e) * (1 - d - f)), 0, 1), "max"),
    (lambda f, e, d: np.minimum(math.exp(e) * f + d, 1 - math.exp(-e) * (1 - d - f)), "capped"),
    (lambda f, e, d: np.clip(np.minimum(math.exp(e) * f + d, 1 - math.exp(-e) * (1 - f)), 0, 1), "second term"),
    (lambda f, e, d: np.clip(np.minimum(math.exp(e) * f, 1 - math.exp(-e) * (1 - f)), 0, 1), "δ is missing"),
    (lambda f, e, d: np.clip(math.exp(e) * f + d, 0, 1), "only the first line"),
    (lambda f, e, d: envelope_right(f, e, d)[:-1], "shape"),
])
def test_envelope_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab04.check_dp_envelope(wrong)


def test_envelope_checker_refuses_the_dpteach_answer():
    with pytest.raises(LabCheckError, match="write this yourself"):
        lab04.check_dp_envelope(lambda f, e, d: fp.dp_roc_envelope(f, e, d))


# --- Task 3: the certified ε ---------------------------------------------------------------------

def certified_right(fpr, tpr, delta):
    needed = [0.0]
    for f, t in zip(fpr, tpr):
        if t > delta:
            needed.append(math.log((t - delta) / f))
        if 1 - delta - f > 0:
            needed.append(math.log((1 - delta - f) / (1 - t)))
    return max(needed)


def test_certified_checker_accepts_reference_and_matches_the_envelope(capsys):
    lab04.check_certified_epsilon(certified_right)
    assert "all checks passed" in capsys.readouterr().out
    # at the certified ε the curve touches the module's envelope from below
    fpr, tpr = lab04._gaussian_roc(1.5)
    eps = certified_right(fpr, tpr, 1e-3)
    excess = tpr - fp.dp_roc_envelope(fpr, eps, 1e-3)
    assert np.max(excess) == pytest.approx(0, abs=1e-12)
    assert np.max(tpr - fp.dp_roc_envelope(fpr, 0.99 * eps, 1e-3)) > 0


# The checker's own diagnosis formulas, kept in a dict: the public checker refuses an answer that visibly uses
# anything of dpteach.labs (a reference helper), and these test answers are wrong on purpose, not cheats.
_CHECKER_FORMULAS = {"certify": lab04._certify_variant}


def _variant(name):
    return lambda fpr, tpr, delta: _CHECKER_FORMULAS["certify"](name, fpr, tpr, delta)


@pytest.mark.parametrize("name, hint", [("first_only", "complement event"), ("second_only", "must hold too"),
                                        ("no_delta", "δ is missing"), ("min_over_points", "max over the points")])
def test_certified_checker_names_typical_mistakes(name, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab04.check_certified_epsilon(_variant(name))


def test_certified_checker_rejects_wrong_types():
    with pytest.raises(LabCheckError, match="one number"):
        lab04.check_certified_epsilon(lambda f, t, d: np.array([certified_right(f, t, d)]))
    with pytest.raises(LabCheckError, match="one number"):
        lab04.check_certified_epsilon(lambda f, t, d: str(certified_right(f, t, d)))


# --- Task 4: calibration --------------------------------------------------------------------------

def calibrate_right(out_scores, fpr):
    scores = np.sort(out_scores)
    k = math.floor(fpr * scores.size + 1e-9)
    return float(scores[scores.size - k - 1])


def test_calibrate_checker_accepts_reference_and_the_midpoint(capsys):
    lab04.check_calibrate_threshold(calibrate_right)

    def midpoint(out_scores, fpr):  # any t between the two order statistics is right too
        scores = np.sort(out_scores)
        k = math.floor(fpr * scores.size + 1e-9)
        return float((scores[scores.size - k - 1] + scores[scores.size - k]) / 2)
    lab04.check_calibrate_threshold(midpoint)
    assert capsys.readouterr().out.count("all checks passed") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda s, f: float(np.sort(s)[len(s) - math.floor(f * len(s))]), "off by one"),
    (lambda s, f: float(np.sort(s)[len(s) - math.floor(f * len(s)) - 2]), "off by one"),
    (lambda s, f: float(np.quantile(s, 1 - f)), "interpolates"),
    (lambda s, f: float(np.sort(s)[len(s) - math.ceil(f * len(s)) - 1]), r"rounded fpr·m = 12.34 up"),
    (lambda s, f: float(np.quantile(s, f)), "fpr-quantile"),
    (lambda s, f: np.sort(s)[len(s) - math.floor(f * len(s)) - 1:], "one number"),
    (lambda s, f: len(s) - math.floor(f * len(s)) - 1, "scores above"),
])
def test_calibrate_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab04.check_calibrate_threshold(wrong)


def test_calibrate_checker_refuses_the_dpteach_answer():
    with pytest.raises(LabCheckError, match="write this yourself"):
        lab04.check_calibrate_threshold(lambda s, f: fp.calibrate_threshold(s, f))


def test_calibrate_hints_name_the_mistake_made():
    """The review: rounding k up (ceil) got the np.quantile remark, which was not the mistake."""
    from dpteach.labs import checking
    checking._failed_tries.clear()
    with pytest.raises(LabCheckError) as caught:
        lab04.check_calibrate_threshold(lambda s, f: float(np.sort(s)[len(s) - math.ceil(f * len(s)) - 1]))
    assert "round down" in str(caught.value) and "np.quantile" not in str(caught.value)
    # an order statistic one place off: a pointer first, the index only after repeated tries
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab04.check_calibrate_threshold(lambda s, f: float(np.sort(s)[len(s) - math.floor(f * len(s))]))
        messages.append(str(caught.value))
    assert all("off by one" in m and "np.quantile" not in m for m in messages)
    assert all("m − k − 1" not in m for m in messages[:-1]) and "m − k − 1" in messages[-1]
    checking._failed_tries.clear()


def test_certified_hints_give_the_formula_only_after_repeated_tries():
    from dpteach.labs import checking

    def log_ratio_only(fpr, tpr, delta):  # a derivation gone wrong in a way the checker does not name
        return float(np.max(np.log(tpr / fpr)))
    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab04.check_certified_epsilon(log_ratio_only)
        messages.append(str(caught.value))
    assert all("Theorem 4.3" in m for m in messages)
    assert all("(1 − δ − f)/(1 − t)" not in m for m in messages[:-1]) and "(1 − δ − f)/(1 − t)" in messages[-1]
    checking._failed_tries.clear()


# --- Task 5: the envelope for a group of k records -----------------------------------------------------

def group_right(fpr, epsilon, delta, k):
    tpr = np.asarray(fpr, dtype=float)
    for _ in range(k):
        tpr = envelope_right(tpr, epsilon, delta)
    return tpr


def group_recursive(fpr, epsilon, delta, k):  # the same, written as a recursion on the last link
    if k == 0:
        return np.asarray(fpr, dtype=float)
    previous = group_recursive(fpr, epsilon, delta, k - 1)
    return np.clip(np.minimum(math.exp(epsilon) * previous + delta,
                              1 - math.exp(-epsilon) * (1 - delta - previous)), 0, 1)


@pytest.mark.parametrize("right", [group_right, group_recursive])
def test_group_checker_accepts_reference(right, capsys):
    lab04.check_group_envelope(right)
    assert "all checks passed" in capsys.readouterr().out


def test_group_reference_is_the_chapters_envelope_at_k_1_and_a_valid_bound():
    """k = 1 gives dpteach's envelope; the chained bound lies under the group-privacy theorem's (kε, k e^{(k−1)ε}δ)."""
    grid = lab04._ENVELOPE_GRID
    np.testing.assert_allclose(group_right(grid, 0.7, 1e-3, 1), fp.dp_roc_envelope(grid, 0.7, 1e-3), rtol=1e-12)
    for epsilon, delta, k in lab04._GROUP_CASES:
        group_theorem = envelope_right(grid, k * epsilon, k * math.exp((k - 1) * epsilon) * delta)  # may be vacuous
        assert np.all(group_right(grid, epsilon, delta, k) <= group_theorem + 1e-12)


def _scaled(f, e, d, k):
    return envelope_right(f, k * e, k * d)


@pytest.mark.parametrize("wrong, hint", [
    (_scaled, r"replaced \(ε, δ\) by \(kε, kδ\)"),
    (lambda f, e, d, k: envelope_right(f, k * e, d), "replaced ε by kε"),
    (lambda f, e, d, k: envelope_right(f, k * e, k * math.exp((k - 1) * e) * d), "group-privacy theorem"),
    (lambda f, e, d, k: envelope_right(f, k * e, k * math.exp(k * e) * d), "crude group-privacy bound"),
    (lambda f, e, d, k: group_right(f, e, d, max(k - 1, 0)) if k > 1 else np.asarray(f, float), "k links"),
    (lambda f, e, d, k: np.clip(math.exp(k * e) * np.asarray(f) + k * d, 0, 1), "Theorem 4.3"),
    (lambda f, e, d, k: group_right(f, e, d, k)[:-1], "shape"),
])
def test_group_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab04.check_group_envelope(wrong)


def test_group_checker_names_a_first_line_chain():
    def first_line_only(f, e, d, k):
        tpr = np.asarray(f, dtype=float)
        for _ in range(k):
            tpr = np.clip(math.exp(e) * tpr + d, 0, 1)
        return tpr
    with pytest.raises(LabCheckError, match="complement event OUT"):
        lab04.check_group_envelope(first_line_only)


def test_group_hints_give_the_formula_only_after_repeated_tries():
    from dpteach.labs import checking

    def sum_of_links(f, e, d, k):  # a wrong derivation no named hint describes
        return np.clip(k * (envelope_right(f, e, d) - np.asarray(f)) + np.asarray(f), 0, 1)
    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab04.check_group_envelope(sum_of_links)
        messages.append(str(caught.value))
    assert all("chain" in m for m in messages)
    assert all("applied k times" not in m for m in messages[:-1]) and "applied k times" in messages[-1]
    checking._failed_tries.clear()


def test_group_checker_refuses_the_dpteach_answer():
    def via_library(f, e, d, k):
        tpr = np.asarray(f, dtype=float)
        for _ in range(k):
            tpr = fp.dp_roc_envelope(tpr, e, d)
        return tpr
    with pytest.raises(LabCheckError, match="write this yourself"):
        lab04.check_group_envelope(via_library)


# --- the notebook and its student version ---------------------------------------------------------

DUMMY_ARGUMENTS = {"records": np.zeros((2, 3)), "estimate": np.zeros(3), "center": np.zeros(3),
                   "fpr": np.array([0.1, 0.5]), "epsilon": 1.0, "delta": 0.01, "tpr": np.array([0.2, 0.6]),
                   "out_scores": np.arange(10.0), "k": 2}


def test_lab_notebook_calls_every_checker_has_no_outputs_and_nbgrader_metadata():
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    cells = notebook["cells"]
    assert all(not c.get("outputs") for c in cells if c["cell_type"] == "code")
    sources = code_cells(NOTEBOOK)
    assert len([s for s in sources if BEGIN in s]) >= 3
    called = {name for s in sources for name in lab04.__all__ if f"lab04.{name}(" in s}
    assert called == set(lab04.__all__)
    grade_ids = [c["metadata"]["nbgrader"]["grade_id"] for c in cells if "nbgrader" in c["metadata"]]
    assert len(grade_ids) == len(set(grade_ids))
    for cell in cells:
        source = "".join(cell["source"])
        grader = cell["metadata"].get("nbgrader")
        if cell["cell_type"] == "code" and BEGIN in source:
            assert grader["solution"] and not grader["grade"] and not grader["locked"]
        if cell["cell_type"] == "code" and "lab04.check_" in source:
            assert grader["grade"] and grader["locked"] and grader["points"] > 0
    proofs = [c for c in cells if c["cell_type"] == "markdown" and c["metadata"].get("nbgrader", {}).get("solution")]
    assert len(proofs) == 1 and proofs[0]["metadata"]["nbgrader"]["grade"]


def test_student_version_has_no_solutions_and_raises(tmp_path):
    check_student_version(NOTEBOOK, lab04, DUMMY_ARGUMENTS, tmp_path)
