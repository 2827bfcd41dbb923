"""Tests of the Lab 8 checkers (dpteach.labs.lab08) and of the generated student notebook.

Reference solutions are written here (not read from the notebook); each
typical wrong answer must be rejected with its own hint.
"""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from dpteach import dpsas, dpsas_ramp, dpsas_steps
from dpteach.labs import LabCheckError, lab08
from dpteach.dp_erm import zcdp_rho
from dpteach.mechanisms import gaussian_sigma
from lab_helpers import check_lab_notebook, check_student_version

NOTEBOOK = Path(__file__).resolve().parents[1] / "book" / "labs" / "solutions" / "lab08_dpsas.ipynb"


# --- Task 1 --------------------------------------------------------------------------------------

def gradient_right(w, X, y, a, b):
    active = np.abs(X @ w - b) <= a
    pulled = (y * active) @ X / len(y)
    return -(pulled - (pulled @ w) * w)


def gradient_matrix_form(w, X, y, a, b):
    projection = np.eye(w.size) - np.outer(w, w)
    return -projection @ ((y * (np.abs(X @ w - b) <= a)) @ X) / len(y)


def gradient_unprojected(w, X, y, a, b):
    return -((y * (np.abs(X @ w - b) <= a)) @ X) / len(y)


def gradient_sign(w, X, y, a, b):
    return -gradient_right(w, X, y, a, b)


def gradient_sum(w, X, y, a, b):
    return len(y) * gradient_right(w, X, y, a, b)


def gradient_band_flipped(w, X, y, a, b):
    return gradient_right(w, X, y, a, -b)


def gradient_ramp_value(w, X, y, a, b):
    weights = np.clip(X @ w - b + a, 0, 2 * a)
    pulled = (y * weights) @ X / len(y)
    return -(pulled - (pulled @ w) * w)


def gradient_list(w, X, y, a, b):
    return list(gradient_right(w, X, y, a, b))


def gradient_library(w, X, y, a, b):
    return dpsas_ramp.ramp_loss_gradient(w, X, y, a, b)


@pytest.mark.parametrize("right", [gradient_right, gradient_matrix_form])
def test_gradient_checker_accepts_right_answers(right, capsys):
    lab08.check_ramp_gradient(right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (gradient_unprojected, "without projecting out w"),
    (gradient_sign, "wrong sign"),
    (gradient_sum, "times too large"),
    (gradient_band_flipped, "centred at −b"),
    (gradient_ramp_value, "indicator of the band"),
    (gradient_list, "numpy array"),
    (gradient_library, "write this yourself"),
])
def test_gradient_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab08.check_ramp_gradient(wrong)


# --- Task 2 --------------------------------------------------------------------------------------

def sigma_right(n, d, n_rounds, epsilon, delta):
    return gaussian_sigma(4 * math.sqrt(d) / (n // (n_rounds + 2)), epsilon, delta)


def test_sigma_checker_accepts_right_answer(capsys):
    lab08.check_round_sigma(sigma_right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda n, d, T, e, dl: gaussian_sigma(4 * math.sqrt(d) / (n // T), e, dl), "n_rounds \\+ 2 blocks"),
    (lambda n, d, T, e, dl: gaussian_sigma(2 * math.sqrt(d) / (n // (T + 2)), e, dl), "factor 2"),
    (lambda n, d, T, e, dl: gaussian_sigma(2 * math.sqrt(d) / (n // (T + 2)), e, dl), "L = 2√d"),
    (lambda n, d, T, e, dl: gaussian_sigma(4 * math.sqrt(d) / n, e, dl), "own fresh block"),
    (lambda n, d, T, e, dl: math.sqrt(T) * sigma_right(n, d, T, e, dl), "compose in parallel"),
    (lambda n, d, T, e, dl: 4 * math.sqrt(d) / (n // (T + 2)) * math.sqrt(2 * math.log(1.25 / dl)) / e, "classic"),
    (lambda n, d, T, e, dl: 1.01 * sigma_right(n, d, T, e, dl), "× too large"),
    (lambda n, d, T, e, dl: str(sigma_right(n, d, T, e, dl)), "Return the number itself, not its text"),
    (lambda n, d, T, e, dl: dpsas_steps.dpsas_noise_sigma(n // (T + 2), 2 * math.sqrt(d), e, dl), "write this yourself"),
])
def test_sigma_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab08.check_round_sigma(wrong)


def test_sigma_bugs_are_distinguishable_from_the_right_answer():
    # Every named bug must differ from the right σ by more than the checker's 1e-6 tolerance at every case.
    for case in lab08.SIGMA_CASES:
        right = sigma_right(*case)
        for _, formula in lab08._SIGMA_BUGS:
            assert abs(formula(*case) / right - 1) > 1e-3


# --- Task 3 --------------------------------------------------------------------------------------

def grid_right(alpha, epsilon, beta):
    grid = [1.5 * alpha]
    while grid[-1] < 0.25:
        grid.append(2 * grid[-1])
    k, failure = len(grid), beta / 2
    size = 8 * math.log(4 * k / failure) / alpha ** 2 + 4 * math.log(2 * k / failure) / (epsilon * alpha)
    return np.array(grid), math.ceil(size)


def test_grid_checker_accepts_right_answer_and_agrees_with_the_library(capsys):
    lab08.check_eta_grid_and_validation(grid_right)
    assert "all checks passed" in capsys.readouterr().out
    for alpha, epsilon, beta in lab08.GRID_CASES:
        grid, size = grid_right(alpha, epsilon, beta)
        assert np.allclose(grid, dpsas.eta_grid(alpha))
        assert size == dpsas.validation_size(alpha, epsilon, beta, grid.size)


def _with(grid=None, size=None):
    def answer(alpha, epsilon, beta):
        right_grid, right_size = grid_right(alpha, epsilon, beta)
        return (right_grid if grid is None else grid(alpha, right_grid),
                right_size if size is None else size(alpha, epsilon, beta, right_grid.size))
    return answer


@pytest.mark.parametrize("wrong, hint", [
    (_with(grid=lambda a, g: g / 1.5), "starts at"),
    (_with(grid=lambda a, g: g[:-1] if g.size > 1 else g[:0]), "stops too early|1.5α·2"),
    (_with(grid=lambda a, g: np.append(g, 2 * g[-1])), "too far"),
    (_with(size=lambda a, e, b, k: math.ceil(8 * math.log(8 * k / b) / a ** 2)), "exponential mechanism"),
    (_with(size=lambda a, e, b, k: math.ceil(8 * math.log(4 * k / b) / a ** 2 + 4 * math.log(2 * k / b) / (e * a))),
     "β/2"),
    (_with(size=lambda a, e, b, k: math.ceil(2 * math.log(8 * k / b) / a ** 2 + 2 * math.log(4 * k / b) / (e * a))),
     "each of the two terms"),
    (_with(size=lambda a, e, b, k: 8 * math.log(8 * k / b) / a ** 2 + 4 * math.log(4 * k / b) / (e * a)), "an int"),
    (_with(size=lambda a, e, b, k: 1000), "solve"),
    # the smallest m making each term ≤ α/2: a sound size, but not Algorithm 8.9's sum form (the statement says so)
    (_with(size=lambda a, e, b, k: math.ceil(max(8 * math.log(8 * k / b) / a ** 2, 4 * math.log(4 * k / b) / (e * a)))),
     r"max\(m₁, m₂\).*sum form"),
    (lambda a, e, b: [1, 2], "tuple"),
    (lambda a, e, b: (dpsas.eta_grid(a), dpsas.validation_size(a, e, b, dpsas.eta_grid(a).size)),
     "write this yourself"),
])
def test_grid_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab08.check_eta_grid_and_validation(wrong)


@pytest.mark.parametrize("offset", [-1, 1])
def test_grid_checker_says_too_large_or_small_without_printing_the_size(offset):
    """The cases are fixed: feedback that printed the right size could be collected into a table of answers."""
    with pytest.raises(LabCheckError) as caught:
        lab08.check_eta_grid_and_validation(_with(size=lambda a, e, b, k: grid_right(a, e, b)[1] + offset))
    message = str(caught.value)
    assert ("too large" if offset > 0 else "too small") in message
    alpha, epsilon, beta = lab08.GRID_CASES[0]
    assert str(grid_right(alpha, epsilon, beta)[1]) not in message.replace(str(grid_right(alpha, epsilon, beta)[1] + offset), "")


# --- the notebook -----------------------------------------------------------------------------------

DUMMY_ARGUMENTS = {"w": np.array([1.0, 0.0]), "X": np.zeros((3, 2)), "y": np.ones(3), "a": 1.0, "b": 0.0,
                   "n": 1000, "d": 2, "n_rounds": 5, "epsilon": 1.0, "delta": 1e-5, "alpha": 0.05, "beta": 0.1}


def test_lab_notebook_calls_every_checker_and_has_nbgrader_metadata():
    check_lab_notebook(NOTEBOOK, lab08, "task4-proof")


def test_student_version_has_no_solutions_and_raises(tmp_path):
    check_student_version(NOTEBOOK, lab08, DUMMY_ARGUMENTS, tmp_path)


# --- Task 5: the soft-ramp gradient ------------------------------------------------------------------

def _soft_weighted(w, X, y, weights):
    norm = np.linalg.norm(w)
    unit = w / norm
    pulled = (y * weights) @ X / len(y)
    return -(pulled - (pulled @ unit) * unit) / norm


def soft_right(w, X, y, a, b):
    z = X @ w / np.linalg.norm(w)
    return _soft_weighted(w, X, y, 1 - np.tanh((z - b) / a) ** 2)


def soft_matrix_form(w, X, y, a, b):
    norm = np.linalg.norm(w)
    unit = w / norm
    weights = 1 / np.cosh((X @ unit - b) / a) ** 2
    return -(np.eye(w.size) - np.outer(unit, unit)) @ ((y * weights) @ X) / (len(y) * norm)


def _soft_variant(weights=None, factor=1.0, project=True, norm_power=1):
    def answer(w, X, y, a, b):
        norm = np.linalg.norm(w)
        unit = w / norm
        z = X @ unit
        weight = (1 - np.tanh((z - b) / a) ** 2) if weights is None else weights(z, a, b)
        pulled = (y * weight) @ X / len(y)
        if project:
            pulled = pulled - (pulled @ unit) * unit
        return -factor * pulled / norm ** norm_power
    return answer


@pytest.mark.parametrize("right", [soft_right, soft_matrix_form])
def test_soft_gradient_checker_accepts_right_answers(right, capsys):
    lab08.check_soft_ramp_gradient(right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (_soft_variant(project=False), "orthogonal to w"),
    (_soft_variant(norm_power=0), "times the right one: the derivative of ⟨w, x⟩/‖w‖ carries a factor 1/‖w‖"),
    (_soft_variant(norm_power=2), "divide by ‖w‖ once, not twice"),
    (_soft_variant(weights=lambda z, a, b: (np.abs(z - b) <= a).astype(float)), "hard band"),
    (_soft_variant(weights=lambda z, a, b: a * (1 + np.tanh((z - b) / a))), "ramp's value"),
    (_soft_variant(weights=lambda z, a, b: a * (1 - np.tanh((z - b) / a) ** 2)), "inner derivative"),
    (_soft_variant(factor=-1.0), "wrong sign"),
    (lambda w, X, y, a, b: len(y) * soft_right(w, X, y, a, b), "mean over the m examples"),
    (lambda w, X, y, a, b: list(soft_right(w, X, y, a, b)), "numpy array"),
    (lambda w, X, y, a, b: dpsas_ramp.ramp_loss_gradient(w, X, y, a, b), "write this yourself"),
])
def test_soft_gradient_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab08.check_soft_ramp_gradient(wrong)


def test_soft_gradient_hints_point_first_and_give_the_formula_only_after_repeated_tries(monkeypatch):
    # An unexplained wrong answer (a gradient at the wrong b): a pointer twice, then the formula.
    from dpteach.labs import checking
    monkeypatch.setattr(checking, "_failed_tries", checking.collections.Counter())
    wrong = _soft_variant(weights=lambda z, a, b: 1 - np.tanh((z + 0.3 - b) / a) ** 2)
    messages = []
    for _ in range(3):
        with pytest.raises(LabCheckError) as caught:
            lab08.check_soft_ramp_gradient(wrong)
        messages.append(str(caught.value))
    assert all("chain rule" in m for m in messages)
    assert all("r′(z) = 1 − tanh²" not in m for m in messages[:2]) and "r′(z) = 1 − tanh²" in messages[2]


# --- Task 6: the sample-reuse σ under zCDP ------------------------------------------------------------

def reuse_right(n, d, n_rounds, epsilon, delta):
    rest = n - n // (n_rounds + 2)
    sensitivity = 2 * 2 * math.sqrt(d) / rest
    return sensitivity * math.sqrt((n_rounds + 1) / (2 * zcdp_rho(epsilon, delta)))


def _reuse(rest=lambda n, T: n - n // (T + 2), releases=lambda T: T + 1, factor=4.0, rho=None):
    def answer(n, d, T, e, dl):
        budget = zcdp_rho(e, dl) if rho is None else rho(e, dl)
        return factor * math.sqrt(d) / rest(n, T) * math.sqrt(releases(T) / (2 * budget))
    return answer


def test_reuse_checker_accepts_right_answer(capsys):
    lab08.check_reuse_sigma(reuse_right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (_reuse(rest=lambda n, T: n - 2 * (n // (T + 2))), "ŵ₀ reads D_rest too"),
    (_reuse(rest=lambda n, T: n - n / (T + 2)), "m₀ = n // \\(n_rounds \\+ 2\\)"),   # theory review N9
    (_reuse(releases=lambda T: T), "initial direction ŵ₀ is one as well"),
    (_reuse(releases=lambda T: T + 2), "Laplace step reads D_τ"),
    (_reuse(releases=lambda T: 1), "compose sequentially"),
    (lambda n, d, T, e, dl: reuse_right(n, d, T, e, dl) * math.sqrt(T + 1), "not linearly"),
    (_reuse(rest=lambda n, T: n // (T + 2)), "not over a fresh block"),
    (_reuse(factor=2.0), "half the right one"),
    (lambda n, d, T, e, dl: gaussian_sigma(4 * math.sqrt(d) / (n - n // (T + 2)) * math.sqrt(T + 1), e, dl),
     "exact Gaussian-DP calibration"),
    (_reuse(rho=lambda e, dl: e ** 2 / 2), "zcdp_rho"),
    (lambda n, d, T, e, dl: 3 * reuse_right(n, d, T, e, dl), "less than the budget"),
    (lambda n, d, T, e, dl: 0.9 * reuse_right(n, d, T, e, dl), "not \\(ε, δ\\)-DP"),
    (lambda n, d, T, e, dl: str(reuse_right(n, d, T, e, dl)), "not its text"),
    (lambda n, d, T, e, dl: dpsas_steps.dpsas_noise_sigma(n - n // (T + 2), 2 * math.sqrt(d), e, dl), "write this yourself"),
])
def test_reuse_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab08.check_reuse_sigma(wrong)


def test_reuse_feedback_prints_enough_digits_to_see_a_small_error():
    # σ 3e-6 too large (relative): 5 significant digits printed both numbers alike (theory review N9).
    with pytest.raises(LabCheckError) as caught:
        lab08.check_reuse_sigma(lambda n, d, T, e, dl: reuse_right(n, d, T, e, dl) * (1 + 3e-6))
    returned, right = re.search(r"returned (\S+), the right σ is (\S+)\.", str(caught.value)).groups()
    assert returned != right


def test_reuse_bugs_are_distinguishable_from_the_right_answer():
    unfloored = [formula for hint, formula in lab08._REUSE_BUGS if "n // (n_rounds + 2)" in hint]
    assert len(unfloored) == 1
    seen = 0
    for case in lab08._reuse_cases():
        right = reuse_right(*case)
        for _, formula in lab08._REUSE_BUGS:
            if formula in unfloored:  # a small slip (relative (n mod (T + 2))/(n(T + 1))): beyond 1e-6 somewhere
                seen += abs(formula(*case) / right - 1) > 1e-5
            else:
                assert abs(formula(*case) / right - 1) > 1e-3
    assert seen >= 1


def test_reuse_sigma_spends_exactly_the_budget_and_beats_fresh_blocks():
    # The property the checker names: (T + 1)·Δ²/(2σ²) = ρ(ε, δ) on D_rest; and reuse needs less noise.
    for case in lab08._reuse_cases():
        n, d, T, e, dl = case
        assert lab08._rho(reuse_right(*case), n, d, T) == pytest.approx(zcdp_rho(e, dl), rel=1e-12)
    assert reuse_right(200_000, 10, 54, 1.0, 1e-5) < sigma_right(200_000, 10, 54, 1.0, 1e-5)


def _loop_over_examples(gradient):
    def looped(w, X, y, a, b):  # the right gradient, one example at a time (the statement asks for no loop)
        return sum(gradient(w, X[i:i + 1], y[i:i + 1], a, b) for i in range(len(y))) / len(y)
    return looped


@pytest.mark.parametrize("check, right", [(lab08.check_ramp_gradient, gradient_right),
                                         (lab08.check_soft_ramp_gradient, soft_right)])
def test_gradient_checkers_refuse_a_python_loop_over_the_examples(check, right):
    looped = _loop_over_examples(right)
    X, y, w = np.ones((3, 2)), np.array([1.0, -1.0, 1.0]), np.array([0.6, 0.8])
    assert np.allclose(looped(w, X, y, 1.0, 0.0), right(w, X, y, 1.0, 0.0))  # right values, wrong method
    with pytest.raises(LabCheckError, match="loops over the examples"):
        check(looped)
