"""Tests of the Lab 5 checkers (dpteach.labs.lab05) and of the generated student notebook.

Reference solutions are written here, not read from the notebook. Each typical
wrong answer — ε inside the root, a forgotten √s, no masking, no noise in the
selection, no residual clipping, a wrong sensitivity constant, a wrong choice
of T — must be rejected with its own hint.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpteach.data import sparse_regression_data
from dpteach.labs import BEGIN, LabCheckError, lab05
from dpteach.regression import DPLasso, lasso_gradient_step
from dpteach.peeling import peel
from lab_helpers import check_student_version, code_cells

NOTEBOOK = Path(__file__).resolve().parents[1] / "book" / "labs" / "solutions" / "lab05_regression.ipynb"


# --- Task 1: Peeling ------------------------------------------------------------------------------

def make_peel(scale_of=lambda s, e, dl, lam: lam * 2 * math.sqrt(3 * s * math.log(1 / dl)) / e,
              mask=True, by_abs=True, noisy_selection=True, noisy_values=True, reuse_noise=False):
    def my_peel(v, s, epsilon, delta, sensitivity, rng):
        v = np.asarray(v, dtype=float)
        b = scale_of(s, epsilon, delta, sensitivity)
        selected = []
        once = rng.laplace(0.0, b, size=v.size)  # the reused vector of the reuse_noise bug
        for _ in range(s):
            score = np.abs(v) if by_abs else v.copy()
            if noisy_selection:
                score = score + (once if reuse_noise else rng.laplace(0.0, b, size=v.size))
            if mask:
                score[selected] = -np.inf
            selected.append(int(np.argmax(score)))
        out = np.zeros_like(v)
        out[selected] = v[selected] + (rng.laplace(0.0, b, size=len(selected)) if noisy_values else 0.0)
        return out
    return my_peel


peel_right = make_peel()


def peel_global_rng(v, s, epsilon, delta, sensitivity, rng):
    return peel_right(v, s, epsilon, delta, sensitivity, np.random.default_rng())


def peel_via_dpteach(v, s, epsilon, delta, sensitivity, rng):
    return peel(v, s, epsilon, delta, sensitivity, rng)


def test_peel_checker_accepts_reference_solution(capsys):
    lab05.check_peel(peel_right)
    assert "all checks passed" in capsys.readouterr().out


def test_named_peel_bugs_are_far_from_the_right_scale_in_some_setting():
    # The diagnosis names a bug when its scale matches within 5 % in *both* settings, and the
    # KS test must reject it: each bug is >= 40 % off the right scale in at least one setting,
    # and any two bugs differ by > 10 % in at least one setting.
    right = [lab05._peel_scale(*setting) for setting in lab05.PEEL_SETTINGS]
    scales = [[f(*setting) for setting in lab05.PEEL_SETTINGS] for _, f, _ in lab05._PEEL_BUGS]
    for bug in scales:
        assert max(abs(math.log(b / r)) for b, r in zip(bug, right)) > math.log(1.4)
    for i in range(len(scales)):
        for j in range(i + 1, len(scales)):
            assert max(abs(math.log(a / b)) for a, b in zip(scales[i], scales[j])) > math.log(1.1)


@pytest.mark.parametrize("wrong, hint", [
    (make_peel(lambda s, e, dl, lam: lam * 2 * math.sqrt(3 * s * math.log(1 / dl) / e)), "ε inside the square root"),
    (make_peel(lambda s, e, dl, lam: lam * 2 * math.sqrt(3 * math.log(1 / dl)) / e), "√s forgotten"),
    (make_peel(mask=False), "mask the coordinates already selected"),
    (make_peel(lambda s, e, dl, lam: lam * math.sqrt(3 * s * math.log(1 / dl)) / e), "factor 2 missing"),
    (make_peel(by_abs=False), r"\|v_j\|"),
    (make_peel(noisy_selection=False), "selection itself must be noisy"),
    (make_peel(noisy_values=False), "no noise"),
    (make_peel(lambda s, e, dl, lam: 1.3 * lam * 2 * math.sqrt(3 * s * math.log(1 / dl)) / e), "not Lap"),
    (peel_global_rng, "same seed"),
    (make_peel(reuse_noise=True), "reused in every round"),
    (peel_via_dpteach, "yourself"),
    (peel, "yourself"),
])
def test_peel_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab05.check_peel(wrong)


# --- Task 2: the step and its sensitivity ---------------------------------------------------------

def make_step(clip=2.0, truncate=True, mean=True, sensitivity=lambda m, eta, T: 4 * eta * T / m, as_string=False):
    def my_step(X, y, beta, step_size, truncation):
        target = np.clip(y, -truncation, truncation) if truncate else y
        residual = X @ beta - target
        if clip is not None:
            residual = np.clip(residual, -clip * truncation, clip * truncation)
        scale = step_size / X.shape[0] if mean else step_size
        lam = sensitivity(X.shape[0], step_size, truncation)
        return beta - scale * (X.T @ residual), (str(lam) if as_string else lam)
    return my_step


def step_via_dpteach(X, y, beta, step_size, truncation):
    return lasso_gradient_step(X, y, beta, step_size, truncation), 4 * step_size * truncation / X.shape[0]


def test_step_checker_accepts_reference_solution(capsys):
    lab05.check_dp_lasso_step(make_step())
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (make_step(clip=None), "no residual clipping"),
    (make_step(clip=1.0), "clipped at T instead of 2T"),
    (make_step(truncate=False), "truncate the response"),
    (make_step(mean=False), "divide by the block size"),
    (make_step(sensitivity=lambda m, eta, T: 2 * eta * T / m), "4T, not 2T"),
    (make_step(sensitivity=lambda m, eta, T: 4 * T / m), "η multiplies"),
    (make_step(sensitivity=lambda m, eta, T: 4 * eta * T), "divide by the block size m"),
    (make_step(as_string=True), "must be a number"),
    (step_via_dpteach, "yourself"),
])
def test_step_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab05.check_dp_lasso_step(wrong)


# --- Task 3: choosing T ----------------------------------------------------------------------------

def best_truncation_right(n, epsilon, candidates, rng):
    errors = np.zeros(len(candidates))
    for _ in range(2):
        X, y, beta = sparse_regression_data(n, 200, 5, rng=rng)
        for k, T in enumerate(candidates):
            errors[k] += np.linalg.norm(DPLasso(epsilon, 1e-5, 10, truncation=T, random_state=rng).fit(X, y).coef_
                                        - beta)
    return candidates[int(np.argmin(errors))]


def test_truncation_checker_accepts_reference_solution(capsys):
    lab05.check_best_truncation(best_truncation_right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda n, e, c, rng: c[-1], "would suit a larger ε"),  # was "minimise, do not maximise": not the mistake
    (lambda n, e, c, rng: c[1], "same candidate at ε = 1 and at ε = 8"),  # hard-coded: right at ε = 1 only
    (lambda n, e, c, rng: best_truncation_right(n, 1.0, c, rng), "same candidate"),  # ignores its epsilon
    (lambda n, e, c, rng: best_truncation_right(n, 1e6, c, rng), "would suit a larger ε"),  # the review's ε = 10⁶
    (lambda n, e, c, rng: c[2], "default T is not the best"),
    (lambda n, e, c, rng: c[0], "too small a T"),
    (lambda n, e, c, rng: 1, "not one of the candidates"),
    (lambda n, e, c, rng: str(c[1]), "return one number"),
    (lambda n, e, c, rng: np.array(c[1:2]), "return one number"),
])
def test_truncation_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab05.check_best_truncation(wrong)


# --- the notebook and its student version ----------------------------------------------------------

DUMMY_ARGUMENTS = {"v": np.zeros(4), "s": 2, "epsilon": 1.0, "delta": 1e-5, "sensitivity": 1.0, "rng": 0,
                   "X": np.ones((3, 2)), "y": np.zeros(3), "beta": np.zeros(2), "step_size": 1.0,
                   "truncation": 1.0, "n": 100, "candidates": [1.0, 2.0]}


def test_lab_notebook_structure_and_nbgrader_metadata():
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert all(not c.get("outputs") for c in notebook["cells"] if c["cell_type"] == "code")
    ids = [c["metadata"]["nbgrader"]["grade_id"] for c in notebook["cells"] if "nbgrader" in c["metadata"]]
    assert len(ids) == len(set(ids))
    solutions = [c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("solution")]
    assert sum(c["cell_type"] == "code" for c in solutions) >= 3
    assert any(c["cell_type"] == "markdown" and c["metadata"]["nbgrader"]["grade"] for c in solutions)
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and BEGIN in source:
            assert cell["metadata"]["nbgrader"]["solution"] is True
        if "lab05.check_" in source:
            assert cell["metadata"]["nbgrader"]["grade"] is True and cell["metadata"]["nbgrader"]["points"] > 0
    sources = code_cells(NOTEBOOK)
    called = {name for s in sources for name in lab05.__all__ if f"lab05.{name}(" in s}
    assert called == {name for name in lab05.__all__ if name.startswith("check_")}


def test_student_version_has_no_solutions_and_raises(tmp_path):
    check_student_version(NOTEBOOK, lab05, DUMMY_ARGUMENTS, tmp_path)
