"""Tests of the Lab 9 checkers (dpteach.labs.lab09) and of the generated student notebook.

Reference solutions are written here (not read from the notebook); each
typical wrong answer must be rejected with its own hint.
"""

import math
from pathlib import Path

import numpy as np
import pytest

from dpteach import dp_logistic, logistic_loss
from dpteach.dp_erm import zcdp_rho
from dpteach.labs import LabCheckError, lab09
from dpteach.mechanisms import gaussian_sigma
from lab_helpers import check_lab_notebook, check_student_version

NOTEBOOK = Path(__file__).resolve().parents[1] / "book" / "labs" / "solutions" / "lab09_table1.ipynb"


# --- Task 1 --------------------------------------------------------------------------------------

def clip_right(gradients, clip_norm):
    norms = np.linalg.norm(gradients, axis=1, keepdims=True)
    return gradients * np.minimum(1.0, clip_norm / np.maximum(norms, 1e-300))


def clip_where(gradients, clip_norm):
    norms = np.linalg.norm(gradients, axis=1, keepdims=True)
    return np.where(norms > clip_norm, gradients * clip_norm / np.where(norms > 0, norms, 1), gradients)


@pytest.mark.parametrize("right", [clip_right, clip_where])
def test_clipping_checker_accepts_right_answers(right, capsys):
    lab09.check_clipping(right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda G, C: G * min(1.0, C / np.linalg.norm(G)), "whole batch"),
    (lambda G, C: G * C / np.maximum(np.linalg.norm(G, axis=1, keepdims=True), 1e-300), "exactly C"),
    (lambda G, C: np.clip(G, -C, C), "each coordinate"),
    (lambda G, C: G / np.linalg.norm(G, axis=1, keepdims=True) * np.minimum(np.linalg.norm(G, axis=1, keepdims=True),
                                                                            C), "divides by zero"),
    (lambda G, C: G * np.minimum(1.0, C / np.maximum(np.abs(G).sum(axis=1, keepdims=True), 1e-300)), "row g"),
    (lambda G, C: clip_right(G, C).tolist(), "numpy array"),
    (lambda G, C: logistic_loss.clip_gradients(G, C), "write this yourself"),
])
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_clipping_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab09.check_clipping(wrong)


def clip_in_place(gradients, clip_norm):
    norms = np.linalg.norm(gradients, axis=1, keepdims=True)
    gradients *= np.minimum(1.0, clip_norm / np.maximum(norms, 1e-300))
    return gradients


def clip_nan_on_zero_rows(gradients, clip_norm):
    norms = np.linalg.norm(gradients, axis=1, keepdims=True)
    return gradients * np.minimum(1.0, clip_norm / norms)  # C/0 = inf: right values, after a warning


def clip_zero_rows_to_nan(gradients, clip_norm):
    norms = np.linalg.norm(gradients, axis=1, keepdims=True)
    return gradients * (np.minimum(norms, clip_norm) / norms)  # 0/0 = NaN on zero rows


@pytest.mark.parametrize("wrong, hint", [(clip_in_place, "in place"), (clip_nan_on_zero_rows, "zero gradient"),
                                         (clip_zero_rows_to_nan, "zero gradient")])
def test_clipping_checker_rejects_in_place_and_zero_row_mistakes(wrong, hint):
    """The review's accepted answers: the input modified in place (the checker used to pass a copy), and a
    division by a zero norm (the lab's cases had one zero row, where C/0 = inf happens to give the right row)."""
    with pytest.raises(LabCheckError, match=hint):
        lab09.check_clipping(wrong)


# --- Task 2 --------------------------------------------------------------------------------------

def sigma_right(n, batch_size, clip_norm, n_epochs, epsilon, delta):
    rho = zcdp_rho(epsilon, delta)
    return 2 * clip_norm * math.sqrt(n_epochs / (2 * rho))


def test_sigma_checker_accepts_right_answer_and_agrees_with_the_library(capsys):
    lab09.check_dp_sgd_sigma(sigma_right)
    assert "all checks passed" in capsys.readouterr().out
    for n, B, C, E, eps, delta in lab09.SIGMA_CASES:
        assert sigma_right(n, B, C, E, eps, delta) == pytest.approx(dp_logistic.dp_sgd_sigma(C, E, eps, delta, "zcdp"))


@pytest.mark.parametrize("wrong, hint", [
    (lambda n, B, C, E, e, d: sigma_right(n, B, C, E, e, d) / 2, "sensitivity C"),
    (lambda n, B, C, E, e, d: sigma_right(n, B, C, E * (n // B), e, d), "every step"),
    (lambda n, B, C, E, e, d: sigma_right(n, B, C, E, e, d) / B, "sum"),
    (lambda n, B, C, E, e, d: sigma_right(n, B, C, 1, e, d), "epochs compose"),
    (lambda n, B, C, E, e, d: E * sigma_right(n, B, C, 1, e, d), "not E"),
    (lambda n, B, C, E, e, d: 2 * C * math.sqrt(E) / e, "zcdp_rho"),
    (lambda n, B, C, E, e, d: 1.01 * sigma_right(n, B, C, E, e, d), "× too large"),
    (lambda n, B, C, E, e, d: str(sigma_right(n, B, C, E, e, d)), "Return the number itself, not its text"),
    (lambda n, B, C, E, e, d: dp_logistic.dp_sgd_sigma(C, E, e, d, "zcdp"), "write this yourself"),
])
def test_sigma_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab09.check_dp_sgd_sigma(wrong)


def test_sigma_hint_points_first_and_gives_the_formula_only_after_repeated_tries():
    """Issue 22: a hint that hands over the formula at once turns the task into transcription."""
    from dpteach.labs import checking

    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab09.check_dp_sgd_sigma(lambda n, B, C, E, e, dl: 3.0 * sigma_right(n, B, C, E, e, dl))  # no named bug
        messages.append(str(caught.value))
    assert all("Theorem 9.3" in m and "3 × too large" in m for m in messages)  # where to look, and by how much
    assert all("√(E/(2ρ))" not in m for m in messages[:-1])
    assert "√(E/(2ρ))" in messages[-1]
    checking._failed_tries.clear()


def test_sigma_bugs_are_distinguishable_from_the_right_answer():
    # A bug may coincide with the right σ at one case (e.g. E = 1) but must differ at another, by far more than
    # the checker's 1e-6 tolerance; and two bugs must not coincide everywhere (each needs its own hint).
    for _, formula in lab09._SIGMA_BUGS:
        assert max(abs(formula(*case) / sigma_right(*case) - 1) for case in lab09.SIGMA_CASES) > 1e-3


# --- Task 3 --------------------------------------------------------------------------------------

def choose_right(n, d, degree, alpha, epsilon, need_proper, need_agnostic):
    D = math.comb(d + degree, degree)
    needed = {"improper": D / alpha**2 + D / (epsilon * alpha),
              "proper": D / alpha**2 + D / (epsilon * alpha) + alpha**-6 + 1 / (epsilon * alpha**5),
              "semi_agnostic": d / alpha**2 + d / (epsilon * alpha)}
    if need_proper:
        del needed["improper"]
    if need_agnostic:
        del needed["semi_agnostic"]
    feasible = {name: size for name, size in needed.items() if size <= n}
    return min(feasible, key=feasible.get) if feasible else None


def _variant(sizes=None, keep_improper=False, keep_semi=False, infeasible_ok=False, never=False, largest=False):
    def answer(n, d, degree, alpha, epsilon, need_proper, need_agnostic):
        D = math.comb(d + degree, degree) if sizes is None else sizes(d, degree)
        needed = {"improper": D / alpha**2 + D / (epsilon * alpha),
                  "proper": D / alpha**2 + D / (epsilon * alpha) + alpha**-6 + 1 / (epsilon * alpha**5),
                  "semi_agnostic": d / alpha**2 + d / (epsilon * alpha)}
        if need_proper and not keep_improper:
            del needed["improper"]
        if need_agnostic and not keep_semi:
            del needed["semi_agnostic"]
        if never:
            return None
        feasible = needed if infeasible_ok else {k: v for k, v in needed.items() if v <= n}
        pick = max if largest else min
        return pick(feasible, key=feasible.get) if feasible else None
    return answer


def choose_without_privacy(n, d, degree, alpha, epsilon, need_proper, need_agnostic):
    return choose_right(n, d, degree, alpha, 1e12, need_proper, need_agnostic)


@pytest.mark.parametrize("wrong, hint", [
    (_variant(keep_improper=True), "halfspace"),
    (_variant(keep_semi=True), "C·OPT"),
    (_variant(sizes=lambda d, p: d ** p), "math.comb"),
    (choose_without_privacy, "privacy terms"),
    (_variant(infeasible_ok=True), "feasible learners"),
    (_variant(never=True), "at least one allowed learner is feasible"),
    (_variant(largest=True), "another feasible learner has a smaller shape"),
    (lambda *case: "Algorithm 6.10", "one of"),
])
def test_choice_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab09.check_choose_learner(wrong)


# Each shape as terms (coefficient, power of α, power of ε); "shared" flips a term of D/α² + D/(εα) in both
# improper and proper (one helper used by both), the others one learner's term only.
_SHAPE_TERMS = {"improper": [("D", -2, 0), ("D", -1, -1)],
                "proper": [("D", -2, 0), ("D", -1, -1), (1, -6, 0), (1, -5, -1)],
                "semi_agnostic": [("d", -2, 0), ("d", -1, -1)]}
SIGN_SLIPS = [(learner, term, power) for learner in (*_SHAPE_TERMS, "shared")
              for term, (_, a_power, e_power) in enumerate(_SHAPE_TERMS.get(learner, _SHAPE_TERMS["improper"]))
              for power in ("α", "ε") if power == "α" or e_power]


def choose_with_sign_slip(learner, slipped_term, power):
    def answer(n, d, degree, alpha, epsilon, need_proper, need_agnostic):
        needed = {}
        for name, terms in _SHAPE_TERMS.items():
            total = 0.0
            for k, (coefficient, a_power, e_power) in enumerate(terms):
                if k == slipped_term and (name == learner or (learner == "shared" and name != "semi_agnostic")):
                    a_power, e_power = (-a_power, e_power) if power == "α" else (a_power, -e_power)
                c = {"D": math.comb(d + degree, degree), "d": d}.get(coefficient, coefficient)
                total += c * alpha ** a_power * epsilon ** e_power
            needed[name] = total
        allowed = {k: v for k, v in needed.items() if not (need_proper and k == "improper")
                   and not (need_agnostic and k == "semi_agnostic") and v <= n}
        return min(allowed, key=allowed.get) if allowed else None
    return answer


def test_sign_slip_helper_without_a_slip_is_the_right_answer():
    for case in lab09.CHOICE_CASES:
        assert choose_with_sign_slip(None, None, "α")(*case) == choose_right(*case)


@pytest.mark.parametrize("learner, term, power", SIGN_SLIPS)
def test_choice_checker_rejects_every_sign_slip_in_an_exponent(learner, term, power):
    """A power of α or ε with the wrong sign, in any one term of any shape, fails some setting (review: one passed all)."""
    with pytest.raises(LabCheckError, match="not the right choice"):
        lab09.check_choose_learner(choose_with_sign_slip(learner, term, power))


def test_choice_feedback_does_not_print_the_right_choice():
    """The cases are fixed: printing the right name would let feedback be collected into a table of answers."""
    for wrong in (_variant(largest=True), _variant(never=True), _variant(infeasible_ok=True)):
        with pytest.raises(LabCheckError) as info:
            lab09.check_choose_learner(wrong)
        assert "right choice is" not in str(info.value)


def choose_strictly_below_n(n, d, degree, alpha, epsilon, need_proper, need_agnostic):
    return choose_right(n - 1e-9 * n, d, degree, alpha, epsilon, need_proper, need_agnostic)  # size < n


@pytest.mark.parametrize("wrong, hint", [
    (choose_strictly_below_n, "at most n"),
    (lambda *case: np.array(choose_right(*case) or ""), "array"),
    (lambda *case: np.array([choose_right(*case)]), "array"),
    (lambda *case: np.array([]), "array"),
    (lambda *case: [choose_right(*case)], "sequence"),
])
def test_choice_checker_rejects_strict_inequality_and_arrays(wrong, hint):
    """`< n` differs from "at most n" only on a shape exactly n: the cases include two (60 and 156, exact floats)."""
    with pytest.raises(LabCheckError, match=hint):
        lab09.check_choose_learner(wrong)


def test_choice_checker_accepts_right_answer(capsys):
    lab09.check_choose_learner(choose_right)
    assert "all checks passed" in capsys.readouterr().out
    answers = {choose_right(*case) for case in lab09.CHOICE_CASES}
    assert answers == {"improper", "proper", "semi_agnostic", None}  # the cases exercise every outcome


# --- the notebook -----------------------------------------------------------------------------------

DUMMY_ARGUMENTS = {"gradients": np.ones((3, 2)), "clip_norm": 1.0, "n": 1000, "batch_size": 10, "n_epochs": 2,
                   "epsilon": 1.0, "delta": 1e-5, "d": 3, "degree": 2, "alpha": 0.1, "need_proper": False,
                   "need_agnostic": True, "row_norm": 1.0, "clip_norms": [1.0]}


def test_lab_notebook_calls_every_checker_and_has_nbgrader_metadata():
    check_lab_notebook(NOTEBOOK, lab09, "task4-proof")


def test_student_version_has_no_solutions_and_raises(tmp_path):
    check_student_version(NOTEBOOK, lab09, DUMMY_ARGUMENTS, tmp_path)


# --- Task 5: rows clipped instead of gradients ----------------------------------------------------------

def row_clip_right(row_norm, n_epochs, epsilon, delta):
    # Δ = 2√(R² + 1) for R > 0; at R = 0 every row is 0 and a label flip moves the batch sum by exactly 1
    sensitivity = 2 * math.sqrt(row_norm ** 2 + 1) if row_norm > 0 else 1.0
    return sensitivity * math.sqrt(n_epochs / (2 * zcdp_rho(epsilon, delta)))


def _row(sensitivity, epochs=lambda E: E):
    return lambda R, E, e, dl: sensitivity(R) * math.sqrt(epochs(E) / (2 * zcdp_rho(e, dl)))


def test_row_clip_checker_accepts_right_answer(capsys):
    lab09.check_row_clip_sigma(row_clip_right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (_row(lambda R: 2 * R), "left out the intercept"),
    (_row(lambda R: 2 * (R + 1)), "triangle inequality"),
    (_row(lambda R: math.sqrt(R ** 2 + 1)), "value at θ = 0 only"),
    (_row(lambda R: math.sqrt(R ** 2 + 1) / 2), "second derivative"),
    (_row(lambda R: 2 * math.sqrt(R ** 2 + 1), epochs=lambda E: 1), "epochs compose"),
    (lambda R, E, e, dl: E * row_clip_right(R, 1, e, dl), "not E"),
    (lambda R, E, e, dl: gaussian_sigma(2 * math.sqrt(R ** 2 + 1) * math.sqrt(E), e, dl), "asks for the zCDP"),
    (lambda R, E, e, dl: 2 * math.sqrt(R ** 2 + 1) * math.sqrt(E) / e, "not ρ = ε²/2"),
    (lambda R, E, e, dl: 0.8 * row_clip_right(R, E, e, dl), "not \\(ε, δ\\)-DP"),
    (lambda R, E, e, dl: 2 * row_clip_right(R, E, e, dl), "more noise than needed"),
    (lambda R, E, e, dl: np.array([row_clip_right(R, E, e, dl)]), "one real number"),
    (lambda R, E, e, dl: dp_logistic.dp_sgd_sigma(math.sqrt(R ** 2 + 1), E, e, dl, accountant="zcdp"),
     "write this yourself"),
])
def test_row_clip_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab09.check_row_clip_sigma(wrong)


def test_row_clip_checker_wants_sensitivity_one_at_r_zero():
    # The pairing for R = 0 (theory review ch09-A N3): the smallest σ there uses Δ = 1, which the checker used to
    # refuse; the general formula's Δ = 2 is valid but twice too much, and is told why.
    def general_formula_everywhere(R, E, e, dl):
        return 2 * math.sqrt(R ** 2 + 1) * math.sqrt(E / (2 * zcdp_rho(e, dl)))
    with pytest.raises(LabCheckError, match="larger than needed at R = 0"):
        lab09.check_row_clip_sigma(general_formula_everywhere)
    lab09.check_row_clip_sigma(row_clip_right)  # Δ = 1 at R = 0 passes


def test_row_clip_sensitivity_at_r_zero_is_one_and_attained():
    # At R = 0 the rows are 0: the gradients of (0, +1) and (0, −1) differ by s(b) + s(−b) = 1 along the intercept,
    # for every θ (w plays no part), so Δ = 1 is attained, and no pair of rows does more.
    X = np.zeros((2, 3))
    y = np.array([1.0, -1.0])
    for w, b in ((np.zeros(3), 0.0), (np.array([5.0, -2.0, 1.0]), 7.5), (np.ones(3), -30.0)):
        G = logistic_loss.logistic_gradients(X, y, w, b)
        assert np.linalg.norm(G[0] - G[1]) == pytest.approx(1.0, rel=1e-12)
        assert np.all(G[:, :3] == 0.0)


def test_row_clip_sensitivity_is_approached_by_a_pair_of_neighbours():
    # The reference's Δ = 2√(R² + 1) is a supremum: two rows of norm R at angle 1e-3 with opposite labels and
    # w = t(x − x') for large t have clipped-free gradients whose difference has norm → 2√(R² + 1) (the
    # model answer's construction). At θ = 0 the same pair gives only √(R² + 1).
    R = 2.0
    x = R * np.array([1.0, 0.0])
    x2 = R * np.array([math.cos(1e-3), math.sin(1e-3)])
    X = np.array([x, x2])
    y = np.array([-1.0, 1.0])
    for t, expected in ((1e9, 2 * math.sqrt(R ** 2 + 1)), (0.0, math.sqrt(R ** 2 + 1))):
        G = logistic_loss.logistic_gradients(X, y, t * (x - x2), 0.0)
        assert np.linalg.norm(G[0] - G[1]) == pytest.approx(expected, rel=1e-5)
        assert np.linalg.norm(G, axis=1).max() < math.sqrt(R ** 2 + 1) + 1e-12


def test_row_clip_hints_point_first_and_give_the_formula_only_after_repeated_tries(monkeypatch):
    from dpteach.labs import checking
    monkeypatch.setattr(checking, "_failed_tries", checking.collections.Counter())
    messages = []
    for _ in range(3):
        with pytest.raises(LabCheckError) as caught:
            lab09.check_row_clip_sigma(lambda R, E, e, dl: 1.3 * row_clip_right(R, E, e, dl))
        messages.append(str(caught.value))
    assert all("bound the norm of one example's logistic gradient" in m for m in messages)
    assert all("√(R² + 1)" not in m for m in messages[:2]) and "√(R² + 1)" in messages[2]


# --- Task 6: a clip-norm schedule, exact accountant --------------------------------------------------------

def schedule_right(clip_norms, n_epochs, epsilon, delta):
    clip_norms, n_epochs = np.asarray(clip_norms, dtype=float), np.asarray(n_epochs, dtype=float)
    return gaussian_sigma(2 * math.sqrt(np.sum(n_epochs * clip_norms ** 2)), epsilon, delta)


def test_schedule_checker_accepts_right_answer(capsys):
    lab09.check_clip_schedule_sigma(schedule_right)
    assert "all checks passed" in capsys.readouterr().out


def _phases(C, E):
    return [float(c) for c in C], [int(k) for k in E]


@pytest.mark.parametrize("wrong, hint", [
    (lambda C, E, e, dl: gaussian_sigma(2 * max(C) * math.sqrt(sum(E)), e, dl), "weigh each epoch"),
    (lambda C, E, e, dl: gaussian_sigma(2 * sum(c * math.sqrt(k) for c, k in zip(*_phases(C, E))), e, dl),
     "in quadrature"),
    (lambda C, E, e, dl: gaussian_sigma(2 * math.sqrt(sum(c * k for c, k in zip(*_phases(C, E)))), e, dl),
     "square the clip norms"),
    (lambda C, E, e, dl: gaussian_sigma(2 * C[0] * math.sqrt(E[0]), e, dl), "calibrated for one phase|phases compose"),
    (lambda C, E, e, dl: 2 * math.sqrt(sum(k * c ** 2 for c, k in zip(*_phases(C, E)))) / math.sqrt(2 * zcdp_rho(e, dl)),
     "zCDP accountant"),
    (lambda C, E, e, dl: schedule_right(C, E, e, dl) / 2 if len(C) > 1 else 1.0, "2C, not C"),
    (lambda C, E, e, dl: 0.7 * schedule_right(C, E, e, dl), "not \\(ε, δ\\)-DP"),
    (lambda C, E, e, dl: 1.5 * schedule_right(C, E, e, dl), "more noise than needed"),
    (lambda C, E, e, dl: str(schedule_right(C, E, e, dl)), "not its text"),
    (lambda C, E, e, dl: dp_logistic.dp_sgd_sigma(max(C), sum(E), e, dl, accountant="exact"), "write this yourself"),
])
def test_schedule_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab09.check_clip_schedule_sigma(wrong)


def test_schedule_bugs_differ_from_the_right_answer_where_they_are_named():
    # A bug is named only where it differs from the reference (a single phase makes several coincide);
    # the first, two-phase case separates every one of them.
    first = lab09._schedule_cases()[0]
    right = schedule_right(*first)
    for _, formula in lab09._SCHEDULE_BUGS:
        assert abs(formula(*first) / right - 1) > 1e-3


def test_schedule_sigma_certifies_exactly_delta():
    # The property the checker reports: the μ-GDP composition with the reference σ has δ(ε) = δ.
    for case in lab09._schedule_cases():
        C, E, e, dl = case
        mu = lab09._schedule_mu_times_sigma(*_phases(C, E)) / schedule_right(*case)
        assert lab09._gdp_delta(mu, e) == pytest.approx(dl, rel=1e-6)
    # one phase is the exact accountant of Theorem 9.3
    assert schedule_right([1.0], [5], 1.0, 1e-5) == pytest.approx(
        dp_logistic.dp_sgd_sigma(1.0, 5, 1.0, 1e-5, accountant="exact"), rel=1e-9)


def test_clipping_checker_refuses_a_python_loop_over_the_rows():
    def clip_loop(gradients, clip_norm):  # right values, row by row (the statement asks for no loop)
        return np.array([g * min(1.0, clip_norm / max(np.linalg.norm(g), 1e-300)) for g in gradients])
    with pytest.raises(LabCheckError, match="loops over the rows"):
        lab09.check_clipping(clip_loop)
    with pytest.raises(LabCheckError, match="numpy array"):
        lab09.check_clipping(lambda G, C: clip_right(G, C).tolist())
