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
from dpteach.labs import BEGIN, LabCheckError, lab05, lab05_derivations, lab05_design
from dpteach.regression import DPLasso, lasso_gradient_step
from dpteach.peeling import peel
from lab_helpers import check_student_version, code_cells

NOTEBOOK = Path(__file__).resolve().parents[1] / "book" / "labs" / "solutions" / "lab05_regression.ipynb"


# --- Task 1: Peeling ------------------------------------------------------------------------------

def make_peel(scale_of=lambda s, e, dl, lam: lam * 2 * math.sqrt(3 * s * math.log(1 / dl)) / e,
              mask=True, by_abs=True, noisy_selection=True, noisy_values=True, reuse_noise=False, release=None):
    def my_peel(v, s, epsilon, delta, sensitivity, rng):
        v = np.asarray(v, dtype=float)
        b = scale_of(s, epsilon, delta, sensitivity)
        selected, winning = [], []
        once = rng.laplace(0.0, b, size=v.size)  # the reused vector of the reuse_noise bug
        for _ in range(s):
            score = np.abs(v) if by_abs else v.copy()
            noise = once if reuse_noise else rng.laplace(0.0, b, size=v.size)
            if noisy_selection:
                score = score + noise
            if mask:
                score[selected] = -np.inf
            selected.append(int(np.argmax(score)))
            winning.append(noise[selected[-1]])
        out = np.zeros_like(v)
        if release == "selection noise":  # the noise that made each coordinate win, not a fresh draw
            out[selected] = v[selected] + np.array(winning)
        elif release == "shared":  # one fresh draw for all released coordinates
            out[selected] = v[selected] + rng.laplace(0.0, b)
        else:
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
    (make_peel(release="selection noise"), "reusing that noise for the release"),   # not fresh: used to pass
    (make_peel(release="shared"), "same noise value"),
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
    (make_step(sensitivity=lambda m, eta, T: 2 * eta * T / m), "opposite signs: count both"),
    (make_step(sensitivity=lambda m, eta, T: 4 * T / m), "η multiplies"),
    (make_step(sensitivity=lambda m, eta, T: 4 * eta * T), "divide by the block size m"),
    (make_step(as_string=True), "must be a number"),
    (step_via_dpteach, "yourself"),
])
def test_step_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab05.check_dp_lasso_step(wrong)


def test_step_sensitivity_slip_points_first_and_gives_the_formula_from_the_third_try():
    from dpteach.labs import checking
    wrong = make_step(sensitivity=lambda m, eta, T: 2 * eta * T / m)   # a named slip
    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab05.check_dp_lasso_step(wrong)
        messages.append(str(caught.value))
    assert all("count both" in m and "too small" in m for m in messages)
    assert all("λ = 4·η·c_x·T/m" not in m for m in messages[:-1]) and "λ = 4·η·c_x·T/m" in messages[-1]
    assert all("0.3" not in m for m in messages)  # the right λ = 4·1·1.5/20 of the first block is not printed
    checking._failed_tries.clear()


# --- Task 3: choosing T ----------------------------------------------------------------------------

def best_truncation_right(n, epsilon, candidates, rng):
    errors = np.zeros(len(candidates))
    for _ in range(2):
        X, y, beta = sparse_regression_data(n, 200, 5, rng=rng)
        for k, T in enumerate(candidates):
            errors[k] += np.linalg.norm(DPLasso(epsilon, 1e-5, 10, truncation=T, random_state=rng).fit(X, y).coef_
                                        - beta)
    return candidates[int(np.argmin(errors))]


def best_truncation_one_dataset(n, epsilon, candidates, rng):
    X, y, beta = sparse_regression_data(n, 200, 5, rng=rng)
    errors = [np.linalg.norm(DPLasso(epsilon, 1e-5, 10, truncation=T, random_state=rng).fit(X, y).coef_ - beta)
              for T in candidates]
    return candidates[int(np.argmin(errors))]


def best_truncation_training_error(n, epsilon, candidates, rng):
    errors = np.zeros(len(candidates))
    for _ in range(2):
        X, y, beta = sparse_regression_data(n, 200, 5, rng=rng)
        for k, T in enumerate(candidates):
            model = DPLasso(epsilon, 1e-5, 10, truncation=T, random_state=rng).fit(X, y)
            errors[k] += np.linalg.norm(y - X @ model.coef_)
    return candidates[int(np.argmin(errors))]


def best_truncation_imports_inside(n, epsilon, candidates, rng):
    from dpteach.data import sparse_regression_data as data
    from dpteach.regression import DPLasso as Lasso
    errors = np.zeros(len(candidates))
    for _ in range(2):
        X, y, beta = data(n, 200, 5, rng=rng)
        for k, T in enumerate(candidates):
            errors[k] += np.linalg.norm(Lasso(epsilon, 1e-5, 10, truncation=T, random_state=rng).fit(X, y).coef_ - beta)
    return candidates[int(np.argmin(errors))]


@pytest.mark.parametrize("wrong, hint", [
    (best_truncation_one_dataset, "at least two"),          # right choices from one dataset: used to pass
    (best_truncation_training_error, "\\*training\\* error"),  # right choices from the training error: used to pass
])
def test_truncation_checker_tests_the_experiment_design(wrong, hint):
    from dpteach import regression
    from dpteach.data import regression as data_module
    with pytest.raises(LabCheckError, match=hint):
        lab05.check_best_truncation(wrong)
    assert regression.DPLasso is DPLasso and data_module.sparse_regression_data is sparse_regression_data  # restored
    assert best_truncation_one_dataset.__globals__["DPLasso"] is DPLasso


def test_truncation_design_check_sees_imports_inside_the_function():
    lab05_design.check_truncation_design(best_truncation_imports_inside, "Task 3 (choose T)")


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


# --- Task 4: the l2-clipped step and its sensitivity ----------------------------------------------------

def make_norm_step(how="l2", mean=True, sensitivity=lambda m, d, eta, C: 2 * eta * C / m):
    def my_step(X, y, beta, step_size, clip_norm):
        m, d = X.shape
        residual = X @ beta - y
        if how == "residual":
            g = X * np.clip(residual, -clip_norm, clip_norm)[:, None]
        else:
            g = X * residual[:, None]
            norms = np.linalg.norm(g, axis=1)
            if how == "l2":
                g = g * np.minimum(1.0, clip_norm / np.where(norms > 0, norms, 1.0))[:, None]
            elif how == "coordinates":
                g = np.clip(g, -clip_norm, clip_norm)
        v = beta - (step_size / m if mean else step_size) * g.sum(axis=0)
        return v, sensitivity(m, d, step_size, clip_norm)
    return my_step


def norm_step_loop(X, y, beta, step_size, clip_norm):  # row by row, with math instead of numpy where possible
    total = np.zeros(X.shape[1])
    for x, target in zip(X, y):
        g = x * (float(x @ beta) - target)
        norm = math.sqrt(float(g @ g))
        total += g if norm <= clip_norm else g * (clip_norm / norm)
    return beta - step_size * total / len(y), 2.0 * step_size * clip_norm / len(y)


@pytest.mark.parametrize("right", [make_norm_step(), norm_step_loop])
def test_norm_step_checker_accepts_reference(right, capsys):
    lab05.check_norm_clipped_step(right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (make_norm_step(how="coordinates"), "clipped each coordinate"),
    (make_norm_step(how="residual"), "clipped the residual"),
    (make_norm_step(how="none"), "no clipping"),
    (make_norm_step(mean=False), "a sum instead of a mean"),
    (make_norm_step(sensitivity=lambda m, d, eta, C: eta * C / m), "both terms can be as large as C"),
    (make_norm_step(sensitivity=lambda m, d, eta, C: 2 * eta * C / (m * math.sqrt(d))), "only for features in"),
    (make_norm_step(sensitivity=lambda m, d, eta, C: 2 * eta * C * math.sqrt(d) / m), "no factor √d"),
    (make_norm_step(sensitivity=lambda m, d, eta, C: 4 * eta * C / m), "twice too large"),
    (make_norm_step(sensitivity=lambda m, d, eta, C: 2 * C / m), "η multiplies"),
    (make_norm_step(sensitivity=lambda m, d, eta, C: 2 * eta * C), "divide by m"),
])
def test_norm_step_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab05.check_norm_clipped_step(wrong)


def test_norm_step_checker_rejects_a_data_dependent_sensitivity():
    def observed_norms(X, y, beta, step_size, clip_norm):  # scaled by the largest feature of *this* block
        v, _ = norm_step_loop(X, y, beta, step_size, clip_norm)
        return v, 2 * step_size * clip_norm * float(np.max(np.abs(X))) / len(y)
    with pytest.raises(LabCheckError, match="changes with the data"):
        lab05.check_norm_clipped_step(observed_norms)


def test_norm_step_hints_give_the_formula_only_after_repeated_tries():
    from dpteach.labs import checking
    wrong = make_norm_step(sensitivity=lambda m, d, eta, C: 1.5 * eta * C / m)
    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab05.check_norm_clipped_step(wrong)
        messages.append(str(caught.value))
    assert all("‖g_i‖₂ <= C" in m for m in messages)
    assert all("λ = 2ηC/m" not in m for m in messages[:-1]) and "λ = 2ηC/m" in messages[-1]
    checking._failed_tries.clear()


def test_norm_step_sensitivity_is_attained_by_the_checkers_pairs():
    """The bound 2ηC/m is reached exactly (x = x' = e_j, opposite residuals), so 'smallest' is testable."""
    m, d, eta, C = lab05_derivations.NORM_STEP_SETTINGS[0]
    rng = np.random.default_rng(0)
    X, y, X2, y2 = lab05_derivations._neighbours(rng, m, d, 1)
    beta = rng.normal(size=d)
    change = np.max(np.abs(norm_step_loop(X, y, beta, eta, C)[0] - norm_step_loop(X2, y2, beta, eta, C)[0]))
    assert change == pytest.approx(2 * eta * C / m, rel=1e-12)


# --- Task 5: calibrating a support-only Peeling -------------------------------------------------------------

def support_scale_right(s, epsilon, delta, sensitivity):
    def advanced(eps_r):
        return math.sqrt(2 * s * math.log(1 / delta)) * eps_r + s * eps_r * math.expm1(eps_r)
    low, high = 0.0, epsilon
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if advanced(middle) <= epsilon else (low, middle)
    return 2 * sensitivity / max(epsilon / s, low)


def support_scale_brentq(s, epsilon, delta, sensitivity):
    from scipy.optimize import brentq
    root = brentq(lambda x: math.sqrt(2 * s * math.log(1 / delta)) * x + s * x * math.expm1(x) - epsilon,
                  0.0, epsilon, xtol=1e-15)
    return 2 * sensitivity / max(epsilon / s, root)


@pytest.mark.parametrize("right", [support_scale_right, support_scale_brentq])
def test_support_checker_accepts_reference(right, capsys):
    lab05.check_support_scale(right)
    assert "all checks passed" in capsys.readouterr().out


def test_support_reference_certifies_with_dpteachs_composition():
    """At the reference b the s rounds of (2λ/b)-DP compose to exactly ε under dpteach's own bounds."""
    from dpteach.composition import basic_composition, heterogeneous_advanced_composition
    for s, epsilon, delta, lam in lab05_derivations.SUPPORT_CASES:
        eps_r = 2 * lam / support_scale_right(s, epsilon, delta, lam)
        basic = basic_composition([eps_r] * s)
        basic = basic[0] if isinstance(basic, tuple) else basic
        advanced = heterogeneous_advanced_composition([eps_r] * s, delta)
        advanced = advanced[0] if isinstance(advanced, tuple) else advanced
        assert min(basic, advanced) == pytest.approx(epsilon, rel=1e-9)


@pytest.mark.parametrize("wrong, hint", [
    (lambda s, e, d, lam: lam * 2 * math.sqrt(3 * s * math.log(1 / d)) / e, "printed scale"),
    (lambda s, e, d, lam: support_scale_right(s, e, d, lam) / 2, "not \\(λ/b\\)-DP"),
    (lambda s, e, d, lam: 2 * lam * math.sqrt(2 * s * math.log(1 / d)) / e, "second-order term"),
    (lambda s, e, d, lam: 2 * lam * s / e, "basic composition alone"),
    (lambda s, e, d, lam: 2 * lam / lab05_derivations._largest_round(lab05_derivations._advanced, e, s, d),
     "advanced bound alone"),
    (lambda s, e, d, lam: 2 * lam / max(e / (1.5 * s),
                                         lab05_derivations._largest_round(lab05_derivations._with_release, e, s, d)),
     "released values"),
    (lambda s, e, d, lam: -support_scale_right(s, e, d, lam), "positive"),
    (lambda s, e, d, lam: str(support_scale_right(s, e, d, lam)), "real number"),
])
def test_support_checker_rejects_typical_mistakes(wrong, hint):
    # the wrong answers that use the checker module's formulas are kept in a dict-free closure over the module
    # object: the public checker refuses anything it can see of dpteach.labs, so give it a plain copy
    answers = {}
    for case in lab05_derivations.SUPPORT_CASES:
        answers[case] = wrong(*case)

    def tabulated(s, e, d, lam):
        return answers[(s, e, d, lam)]
    with pytest.raises(LabCheckError, match=hint):
        lab05.check_support_scale(tabulated)


def test_support_hints_give_the_formula_only_after_repeated_tries():
    from dpteach.labs import checking

    def half_steps(s, epsilon, delta, sensitivity):  # composed s/2 rounds: a derivation gone wrong
        return support_scale_right(max(1, s // 2), epsilon, delta, sensitivity)
    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab05.check_support_scale(half_steps)
        messages.append(str(caught.value))
    assert all("report-noisy-max" in m for m in messages)
    assert all("b = 2λ/ε_r with" not in m for m in messages[:-1]) and "b = 2λ/ε_r with" in messages[-1]
    checking._failed_tries.clear()


def test_support_checker_refuses_dpteachs_peeling_calibration():
    from dpteach import peeling
    with pytest.raises(LabCheckError, match="write this yourself"):
        lab05.check_support_scale(lambda s, e, d, lam: peeling.peeling_noise_scale(s, e, d, lam))


# --- the notebook and its student version ----------------------------------------------------------

DUMMY_ARGUMENTS = {"v": np.zeros(4), "s": 2, "epsilon": 1.0, "delta": 1e-5, "sensitivity": 1.0, "rng": 0,
                   "X": np.ones((3, 2)), "y": np.zeros(3), "beta": np.zeros(2), "step_size": 1.0,
                   "truncation": 1.0, "n": 100, "candidates": [1.0, 2.0], "clip_norm": 1.0}


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
    assert {"check_norm_clipped_step", "check_support_scale"} <= called
    assert called == {name for name in lab05.__all__ if name.startswith("check_")}


def test_student_version_has_no_solutions_and_raises(tmp_path):
    check_student_version(NOTEBOOK, lab05, DUMMY_ARGUMENTS, tmp_path)


def test_hidden_grade_of_the_derivations_refuses_their_helpers_by_run_time_name():
    """The checkers of Tasks 4 and 5 live in lab05_derivations; graded, the answer's process has none of it."""
    from dpteach.labs import isolated

    via_helper = ("import importlib\n"
                  "def my_support_scale(s, epsilon, delta, sensitivity):  # a name built at run time\n"
                  "    module = importlib.import_module('dpteach.labs.lab05_' + 'derivations')\n"
                  "    return getattr(module, '_support' + '_scale')(s, epsilon, delta, sensitivity)\n")
    namespace = {}
    exec(via_helper, namespace)
    lab05.check_support_scale(namespace["my_support_scale"])  # the formative checker cannot see it ...
    result = isolated.grade_task(["import numpy as np\n", via_helper], "lab05", "check_support_scale",
                                 ["my_support_scale"], secret="tests")
    assert not result.passed and "lab05_derivations" in result.message, result.message  # ... the grade can
    assert lab05_derivations._support_scale(3, 1.0, 1e-5, 1.0) > 0
