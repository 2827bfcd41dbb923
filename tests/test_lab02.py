"""Tests of the Lab 2 checkers (dpteach.labs.lab02) and of the generated student notebook.

Every checker must accept a correct reference solution (defined here, not taken
from the notebook, so a broken notebook cannot make a checker look right) and
reject the typical wrong answers with a hint that names the bug. The sampling
checker's chi-square tests run at false-alarm rate 1e-6 with fixed seeds, so
these tests are deterministic.
"""

import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import special

from dpteach import generic, hypotheses
from dpteach.mechanisms import exponential_mechanism
from dpteach.labs import LabCheckError, lab02
from lab_helpers import check_student_version

NOTEBOOK = Path(__file__).resolve().parents[1] / "book" / "labs" / "solutions" / "lab02_generic_learner.ipynb"


# --- Task 1: error counts ----------------------------------------------------------------------

def counts_right(x, y, grid):
    x, y, grid = np.asarray(x, float), np.asarray(y), np.asarray(grid, float)
    m = np.searchsorted(grid, x, side="right")
    pos = np.bincount(m[y > 0], minlength=grid.size + 1)
    neg = np.bincount(m[y < 0], minlength=grid.size + 1)
    plus = np.cumsum(pos)[:grid.size] + neg.sum() - np.cumsum(neg)[:grid.size]
    return np.concatenate([plus, len(y) - plus])


def counts_matrix(x, y, grid):
    """Correct but via the |H| x n matrix (allowed: vectorised, fast enough at the checked sizes)."""
    predictions = np.where(np.asarray(x)[None, :] >= np.asarray(grid)[:, None], 1, -1)
    plus = (predictions != np.asarray(y)[None, :]).sum(axis=1)
    return np.concatenate([plus, len(y) - plus])


def counts_strict(x, y, grid):
    """Bug: x > g instead of x >= g."""
    x, y, grid = np.asarray(x, float), np.asarray(y), np.asarray(grid, float)
    m = np.searchsorted(grid, x, side="left")
    pos = np.bincount(m[y > 0], minlength=grid.size + 1)
    neg = np.bincount(m[y < 0], minlength=grid.size + 1)
    plus = np.cumsum(pos)[:grid.size] + neg.sum() - np.cumsum(neg)[:grid.size]
    return np.concatenate([plus, len(y) - plus])


def counts_one_orientation(x, y, grid):
    return counts_right(x, y, grid)[:len(grid)]


def counts_swapped(x, y, grid):
    both = counts_right(x, y, grid)
    return np.concatenate([both[len(grid):], both[:len(grid)]])


def counts_rates(x, y, grid):
    return counts_right(x, y, grid) / len(y)


def counts_python_loop(x, y, grid):
    """Correct but loops over every point in Python (too slow)."""
    out = np.zeros(2 * len(grid), dtype=int)
    for k, g in enumerate(grid):
        for xi, yi in zip(x, y):
            prediction = 1 if xi >= g else -1
            out[k] += prediction != yi
            out[len(grid) + k] += -prediction != yi
    return out


def counts_uses_dpteach(x, y, grid):
    return hypotheses.thresholds(np.asarray(grid)).error_counts(x, y)


def test_threshold_counts_accepts_right_answers(capsys):
    lab02.check_threshold_error_counts(counts_right)
    lab02.check_threshold_error_counts(counts_matrix)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (counts_strict, "exactly on a grid point"),
    (counts_one_orientation, "only the N \\+ 1"),
    (counts_swapped, "swapped"),
    (counts_rates, "rates"),
    (counts_python_loop, "Vectorise"),
    (counts_uses_dpteach, "write this yourself"),
    (lambda x, y, grid: counts_right(x, y, grid).astype(float), "integer array"),   # right values, float dtype
])
def test_threshold_counts_rejects(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab02.check_threshold_error_counts(wrong)


# --- Task 2: sampling step ------------------------------------------------------------------

def sampler_with(transform):
    def sampler(error_counts, epsilon, rng):
        logits = transform(np.asarray(error_counts, dtype=float), epsilon)
        return int(np.argmax(logits + rng.gumbel(size=logits.shape)))
    return sampler


sampler_right = sampler_with(lambda e, eps: -eps * e / 2)
sampler_no_factor_2 = sampler_with(lambda e, eps: -eps * e)
sampler_sign = sampler_with(lambda e, eps: eps * e / 2)


def sampler_softmax_shifted(error_counts, epsilon, rng):
    """Correct alternative: subtract the minimum, normalise, rng.choice."""
    e = np.asarray(error_counts, dtype=float)
    weights = np.exp(-epsilon * (e - e.min()) / 2)
    return int(rng.choice(e.size, p=weights / weights.sum()))


def sampler_naive_exp(error_counts, epsilon, rng):
    """Bug: exponentiates without shifting (underflows for large counts)."""
    weights = np.exp(-epsilon * np.asarray(error_counts, dtype=float) / 2)
    with np.errstate(invalid="ignore"):
        probabilities = weights / weights.sum()
    return int(rng.choice(len(weights), p=probabilities))


def sampler_erm(error_counts, epsilon, rng):
    return int(np.argmin(error_counts))


def sampler_global_rng(error_counts, epsilon, rng):
    logits = -epsilon * np.asarray(error_counts, dtype=float) / 2
    return int(np.argmax(logits + np.random.gumbel(size=logits.shape)))


def sampler_uses_dpteach(error_counts, epsilon, rng):
    return exponential_mechanism(-np.asarray(error_counts, dtype=float), 1.0, epsilon, rng)


def test_sampling_accepts_right_answers(capsys):
    lab02.check_sampling_step(sampler_right)
    lab02.check_sampling_step(sampler_softmax_shifted)
    assert capsys.readouterr().out.count("passed") == 2


@pytest.mark.parametrize("wrong, hint", [
    (sampler_no_factor_2, "factor 2 is missing"),
    (sampler_sign, "sign is flipped"),
    (sampler_naive_exp, "log space"),
    (sampler_erm, "ERM"),
    (sampler_global_rng, "same seed"),
    (sampler_uses_dpteach, "write this yourself"),
])
def test_sampling_rejects(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab02.check_sampling_step(wrong)


# --- Task 3: sample complexity ---------------------------------------------------------------

def complexity_right(size, epsilon, alpha, beta):
    return math.ceil(max(4.5 / alpha**2 * math.log(4 * size / beta), 6 / (epsilon * alpha) * math.log(2 * size / beta)))


def complexity_no_ceil(size, epsilon, alpha, beta):
    return max(4.5 / alpha**2 * math.log(4 * size / beta), 6 / (epsilon * alpha) * math.log(2 * size / beta))


def complexity_slide(size, epsilon, alpha, beta):
    return math.ceil(6 * (math.log(size) + math.log(1 / beta)) * max(1 / (epsilon * alpha), 1 / alpha**2))


def complexity_erm(size, epsilon, alpha, beta):
    return math.ceil(2 / alpha**2 * math.log(2 * size / beta))


def complexity_same_log(size, epsilon, alpha, beta):
    return math.ceil(max(4.5 / alpha**2, 6 / (epsilon * alpha)) * math.log(2 * size / beta))


def test_sample_complexity_accepts(capsys):
    lab02.check_sample_complexity(complexity_right)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (complexity_no_ceil, "rounded up"),
    (complexity_slide, "slide's constant"),
    (complexity_erm, "non-private ERM"),
    (complexity_same_log, "do not share one logarithm"),
])
def test_sample_complexity_rejects(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab02.check_sample_complexity(wrong)


# --- Task 4: exact privacy loss --------------------------------------------------------------

def loss_with(factor=0.5, absolute=True, log=True):
    def loss(errors, errors_neighbour, epsilon):
        a = -factor * epsilon * np.asarray(errors, dtype=float)
        b = -factor * epsilon * np.asarray(errors_neighbour, dtype=float)
        difference = (a - special.logsumexp(a)) - (b - special.logsumexp(b))
        value = np.max(np.abs(difference)) if absolute else np.max(difference)
        return float(value if log else np.exp(value))
    return loss


def loss_naive(errors, errors_neighbour, epsilon):
    """Bug: probabilities first, then logs (underflows for large counts)."""
    p = np.exp(-epsilon * np.asarray(errors, dtype=float) / 2)
    q = np.exp(-epsilon * np.asarray(errors_neighbour, dtype=float) / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.max(np.abs(np.log(p / p.sum()) - np.log(q / q.sum()))))


def test_privacy_loss_accepts(capsys):
    lab02.check_privacy_loss(loss_with())
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (loss_with(factor=1.0), "factor 2"),
    (loss_with(absolute=False), "absolute"),
    (loss_with(log=False), "logarithm"),
    (loss_naive, "underflows"),
])
def test_privacy_loss_rejects(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab02.check_privacy_loss(wrong)


# --- the student version ------------------------------------------------------------------------

DUMMY_ARGUMENTS = {"x": np.array([0.1, 0.6]), "y": np.array([1, -1]), "grid": np.array([0.0, 0.5, 1.0]),
                   "error_counts": np.array([1, 2]), "epsilon": 1.0, "rng": np.random.default_rng(0),
                   "n_hypotheses": 10, "alpha": 0.1, "beta": 0.1, "errors": np.array([1, 2]),
                   "errors_neighbour": np.array([2, 1]), "loss_bound": 2.0}


def test_student_version_has_no_solutions_and_raises(tmp_path):
    check_student_version(NOTEBOOK, lab02, DUMMY_ARGUMENTS, tmp_path)


# --- issue table: wrong answers that used to pass or got a misleading hint → the hint for their mistake

def sampler_shift_by_largest(error_counts, epsilon, rng):
    e = np.asarray(error_counts, dtype=float)
    weights = np.exp(-epsilon * (e - e.max()) / 2)
    return int(rng.choice(e.size, p=weights / weights.sum()))


def sampler_report_noisy_max(error_counts, epsilon, rng):
    e = np.asarray(error_counts, dtype=float)
    return int(np.argmax(-e + rng.laplace(0.0, 2 / epsilon, size=e.size)))


def sampler_library_probabilities(error_counts, epsilon, rng):
    from dpteach.mechanisms import exponential_mechanism_probabilities
    p = exponential_mechanism_probabilities(-np.asarray(error_counts, dtype=float), 1.0, epsilon)
    return int(rng.choice(len(p), p=p))


def loss_without_normaliser(errors, errors_neighbour, epsilon):
    return float(np.max(np.abs(epsilon * (np.asarray(errors) - np.asarray(errors_neighbour)) / 2)))


LAB02_WRONG_ANSWERS = [  # (checker, wrong answer, expected hint fragment)
    (lab02.check_sampling_step, sampler_shift_by_largest, "smallest"),
    (lab02.check_sampling_step, sampler_report_noisy_max, "report-noisy-max"),
    (lab02.check_sampling_step, sampler_library_probabilities, "write this yourself"),
    (lab02.check_sampling_step, lambda e, eps, rng: float(sampler_right(e, eps, rng)), "one index"),
    (lab02.check_sample_complexity, lambda *a: float(complexity_right(*a)), "np.ceil returns a float"),
    (lab02.check_sample_complexity, lambda *a: str(complexity_right(*a)), "not its text"),
    (lab02.check_privacy_loss, loss_without_normaliser, "normaliser"),
    (lab02.check_privacy_loss, lambda *a: str(loss_with()(*a)), "real number"),
]


@pytest.mark.parametrize("checker, wrong, hint", LAB02_WRONG_ANSWERS)
def test_lab02_wrong_answer_table(checker, wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        checker(wrong)


# --- Tasks 5 and 6: sample complexities the chapter does not print (issue 22) ---------------------

def noisy_min_right(H, epsilon, alpha, beta):
    return math.ceil(max(9 / (2 * alpha**2) * math.log(4 * H / beta), 12 / (epsilon * alpha) * math.log(2 * H / beta)))


def bounded_loss_right(H, L, epsilon, alpha, beta):
    return math.ceil(max(9 * L**2 / (2 * alpha**2) * math.log(4 * H / beta),
                         6 * L / (epsilon * alpha) * math.log(2 * H / beta)))


def test_derivation_checkers_accept_the_reference(capsys):
    lab02.check_noisy_min_sample_complexity(noisy_min_right)
    lab02.check_bounded_loss_sample_complexity(bounded_loss_right)
    assert capsys.readouterr().out.count("all checks passed") == 2


def _n(sampling, noise):
    return lambda *case: math.ceil(max(sampling(*case), noise(*case)))


@pytest.mark.parametrize("wrong, hint", [
    (_n(lambda H, e, a, b: 9 / (2 * a**2) * math.log(4 * H / b), lambda H, e, a, b: 6 / (e * a) * math.log(2 * H / b)),
     "monotone"),                                                    # Lap(1/ε), or the exponential mechanism's term
    (_n(lambda H, e, a, b: 9 / (2 * a**2) * math.log(4 * H / b), lambda H, e, a, b: 12 / (e * a) * math.log(H / b)),
     "each failure event gets β/2"),
    (lambda H, e, a, b: math.ceil(12 / (e * a) * math.log(2 * H / b)), "sample term is unchanged"),
    (_n(lambda H, e, a, b: 9 / (2 * a**2) * math.log(4 * H / b), lambda H, e, a, b: 24 / (e * a) * math.log(2 * H / b)),
     "not 4t"),
    (lambda H, e, a, b: noisy_min_right(H, e, a, b) + 1, "too large: the proof already goes through with fewer"),
    (lambda H, e, a, b: float(noisy_min_right(H, e, a, b)), "integer value but the type float"),
])
def test_noisy_min_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab02.check_noisy_min_sample_complexity(wrong)


@pytest.mark.parametrize("wrong, hint", [
    (_n(lambda H, L, e, a, b: 9 * L / (2 * a**2) * math.log(4 * H / b),
        lambda H, L, e, a, b: 6 * L / (e * a) * math.log(2 * H / b)), "enters squared"),
    (_n(lambda H, L, e, a, b: 9 * L**2 / (2 * a**2) * math.log(4 * H / b),
        lambda H, L, e, a, b: 6 / (e * a) * math.log(2 * H / b)), "not by 1"),
    (_n(lambda H, L, e, a, b: 9 * L**2 / (2 * a**2) * math.log(4 * H / b),
        lambda H, L, e, a, b: 12 * L / (e * a) * math.log(2 * H / b)), "not 2L"),
    (_n(lambda H, L, e, a, b: 9 * L**2 / (2 * a**2) * math.log(4 * H / b),
        lambda H, L, e, a, b: 6 * L**2 / (e * a) * math.log(2 * H / b)), "linearly"),
    (_n(lambda H, L, e, a, b: 9 / (2 * a**2) * math.log(4 * H / b),
        lambda H, L, e, a, b: 6 * L / (e * a) * math.log(2 * H / b)), "kept the 0/1 loss"),
])
def test_bounded_loss_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab02.check_bounded_loss_sample_complexity(wrong)


def test_sample_complexity_hints_point_first_and_give_the_formula_only_after_repeated_tries(monkeypatch):
    from dpteach.labs import checking

    monkeypatch.setattr(checking, "_failed_tries", checking.collections.Counter())
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab02.check_noisy_min_sample_complexity(lambda H, e, a, b: 2 * noisy_min_right(H, e, a, b))
        messages.append(str(caught.value))
    assert all("Theorem 1.24" in m for m in messages)
    assert all("12/(εα)" not in m for m in messages[:-1])
    assert "12/(εα)" in messages[-1]


@pytest.mark.parametrize("check, wrong, right", [
    (lab02.check_sample_complexity, lambda *a: complexity_right(*a) + 1, complexity_right),
    (lab02.check_sample_complexity, lambda *a: complexity_right(*a) - 1, complexity_right),
    (lab02.check_noisy_min_sample_complexity, lambda *a: noisy_min_right(*a) + 1, noisy_min_right),
    (lab02.check_noisy_min_sample_complexity, lambda *a: noisy_min_right(*a) - 1, noisy_min_right),
    (lab02.check_bounded_loss_sample_complexity, lambda *a: bounded_loss_right(*a) + 1, bounded_loss_right),
])
def test_integer_feedback_says_too_large_or_small_without_the_right_value(check, wrong, right):
    """The cases are fixed: feedback printing the right n could be collected into a table of answers."""
    with pytest.raises(LabCheckError) as caught:
        check(wrong)
    message = str(caught.value)
    case = tuple(float(v) for v in re.search(r"fn\(([^)]*)\)", message).group(1).split(", ")) \
        if "fn(" in message else None
    assert "too large" in message or "too small" in message
    if case is not None:
        assert f" {right(*case)}" not in message.replace(f" {wrong(*case)}", "")


def test_named_slip_of_a_derivation_points_first_and_gives_the_formula_from_the_third_try(monkeypatch):
    from dpteach.labs import checking

    monkeypatch.setattr(checking, "_failed_tries", checking.collections.Counter())
    slip = _n(lambda H, e, a, b: 9 / (2 * a**2) * math.log(4 * H / b), lambda H, e, a, b: 24 / (e * a) * math.log(2 * H / b))
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab02.check_noisy_min_sample_complexity(slip)
        messages.append(str(caught.value))
    assert all("not 4t" in m for m in messages)
    assert all("12/(εα)" not in m for m in messages[:-1]) and "12/(εα)" in messages[-1]
