"""Checkers for Lab 2, "The generic private learner" (book/labs/lab02_generic_learner.ipynb, chapter 2).

Each checker runs the student's function and compares it with reference
behaviour computed here: the tested fast paths of :mod:`dpteach.generic`,
:func:`dpteach.mechanisms.exponential_mechanism_probabilities` and the
formulas of :mod:`dpteach.bounds`. A right answer prints one "passed" line;
a wrong one raises :class:`~dpteach.labs.LabCheckError` with what was
measured and a hint naming the likely bug.

The tasks and their checkers:

1. :func:`check_threshold_error_counts` — ``fn(x, y, grid)``: training errors
   of every threshold, vectorised;
2. :func:`check_sampling_step` — ``fn(error_counts, epsilon, rng)``: one draw of
   the generic learner's exponential mechanism, in log space;
3. :func:`check_sample_complexity` — ``fn(n_hypotheses, epsilon, alpha, beta)``:
   the exact-constant sample complexity of the utility theorem;
4. :func:`check_privacy_loss` — ``fn(errors, errors_neighbour, epsilon)``: the
   exact privacy loss max_h |ln p(h) − ln p′(h)| between two neighbours;
5. :func:`check_noisy_min_sample_complexity` and 6. :func:`check_bounded_loss_sample_complexity` — variants
   of the utility theorem that the chapter does not print, in :mod:`dpteach.labs.lab02_derivations`.

The statistical check (task 2) runs chi-square tests at a false-alarm rate of
1e-6 with fixed seeds, so a given function always gets the same verdict.
Students may not call the reference implementations (dpteach.generic,
dpteach.mechanisms); a light check of the names their function uses rejects
that.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .checking import (LabCheckError, call_student, call_student_counting_lines, passed, require, require_integer, require_own_code,
                       require_real, teaching_hint)
from .. import bounds, generic
from .. import hypotheses
from ..mechanisms import exponential_mechanism_probabilities

__all__ = [
    "check_threshold_error_counts",
    "check_sampling_step",
    "check_sample_complexity",
    "check_privacy_loss",
    "check_noisy_min_sample_complexity",
    "check_bounded_loss_sample_complexity",
]

FALSE_ALARM = 1e-6

# --- Task 1: error counts of thresholds ---------------------------------------------------


def _threshold_cases():
    """Small inputs that exercise ties (points exactly on grid points) and both label signs."""
    rng = np.random.default_rng(202)
    cases = []
    grid = np.linspace(0, 1, 11)
    x = np.concatenate([rng.random(40), grid[[0, 3, 3, 7, 10]]])
    cases.append((x, rng.choice([-1, 1], size=x.size), grid))
    grid = np.array([-0.2, 0.15, 0.5, 0.51, 2.0])
    x = np.concatenate([rng.uniform(-1, 3, 30), [0.5, 0.51, 0.15]])
    cases.append((x, rng.choice([-1, 1], size=x.size), grid))
    x = rng.random(7)
    cases.append((x, np.ones(7, dtype=int), np.linspace(0, 1, 5)))
    return cases


def _threshold_diagnosis(answer, x, y, grid):
    """Compare a wrong answer with the usual slips and return a hint."""
    n = len(y)
    expected = hypotheses.thresholds(grid).error_counts(x, y)
    plus = expected[:grid.size]
    # "x > g" instead of "x >= g" is the same as a grid moved up by one floating-point step.
    strict_plus = hypotheses.thresholds(np.nextafter(grid, np.inf)).error_counts(x, y)[:grid.size]
    if answer.shape == (grid.size,) and np.array_equal(answer, plus):
        return ("you returned only the N + 1 thresholds h_{k,+}; append the opposite orientations "
                "h_{k,−} = −h_{k,+}, whose error counts are n − errors(h_{k,+})")
    if answer.shape != expected.shape:
        return f"expected an array of shape {expected.shape} (one count per hypothesis), got {answer.shape}"
    if np.allclose(answer, expected / n):
        return "you returned error *rates*; return the counts |{i : h(x_i) ≠ y_i}| (integers)"
    if np.array_equal(answer, np.concatenate([n - plus, plus])):
        return "the two orientations are swapped: first h_{k,+} (+1 iff x ≥ g_k), then h_{k,−}"
    if np.array_equal(answer, np.concatenate([strict_plus, n - strict_plus])):
        return ("points lying exactly on a grid point are treated as below it: h_{k,+} says +1 iff x ≥ g_k, "
                "so count the grid points <= x (np.searchsorted(grid, x, side='right')) or compare with >=")
    if np.array_equal(answer, np.concatenate([plus[::-1], (n - plus)[::-1]])):
        return "the order is reversed; index k must belong to the grid point g_k"
    wrong = np.flatnonzero(answer != expected)
    k = int(wrong[0])
    # The right count is not printed (fixed cases: printed answers would make a table of them).
    return (f"{wrong.size} of {expected.size} counts differ, e.g. index {k}: your {answer[k]!r} is too "
            f"{'large' if answer[k] > expected[k] else 'small'}")


def check_threshold_error_counts(fn):
    """Task 1: ``fn(x, y, grid)`` must return the error counts of all 2·len(grid) thresholds.

    Order: h_{k,+}(x) = +1 iff x >= grid[k] for k = 0..N, then h_{k,−} = −h_{k,+}.
    Checked against :meth:`dpteach.hypotheses.Thresholds.error_counts` (tested
    against a naive loop in the test suite) on inputs with points exactly on
    grid points, then for speed: on n = 5000 points and a grid of 501 the
    student's own code may execute at most 50 000 Python lines. A vectorised
    answer runs a few lines; a loop over the thresholds (1002 iterations) or
    over the points (5000) fits; a double loop over points and thresholds
    (5 million iterations, seconds of work) does not. Lines are counted, not
    timed, so the verdict does not depend on how busy the machine is.
    """
    task = "Task 1 (error counts of thresholds)"
    require_own_code(fn, ("thresholds", "error_counts"), task)
    for x, y, grid in _threshold_cases():
        answer = call_student(fn, (x.copy(), y.copy(), grid.copy()), task)
        answer = np.asarray(answer)
        expected = hypotheses.thresholds(grid).error_counts(x, y)
        if answer.shape != expected.shape or not np.array_equal(answer, expected):
            raise LabCheckError(f"{task}: wrong counts for n = {len(y)} points and a grid of {grid.size}.\n"
                                f"Hint: {_threshold_diagnosis(answer, x, y, grid)}.")
        require(np.issubdtype(answer.dtype, np.integer),
                f"{task}: the counts are right but have dtype {answer.dtype}: the task asks for an integer array "
                f"(counts of examples). np.cumsum of a float array, or np.zeros without dtype=int, gives floats.")
    rng = np.random.default_rng(203)
    x, y, grid = rng.random(5000), rng.choice([-1, 1], size=5000), np.linspace(0, 1, 501)
    budget = 50_000
    answer, lines = call_student_counting_lines(fn, (x, y, grid), task, budget)
    require(lines <= budget,
            f"{task}: correct on small inputs, but for n = 5000 points and 1002 thresholds your code ran more "
            f"than {budget:,} lines of Python (a loop over points and thresholds). Vectorise it: sort or bin the "
            f"points once (np.searchsorted(grid, x, side='right')), count positives and negatives per bin "
            f"(np.bincount) and take prefix sums (np.cumsum).")
    require(np.array_equal(np.asarray(answer), hypotheses.thresholds(grid).error_counts(x, y)),
            f"{task}: right on small inputs but wrong for n = 5000, N = 500.")
    passed(task)
    print(f"   n = 5000, |H| = 1002 in {lines} lines of Python.")


# --- Task 2: the sampling step ----------------------------------------------------------------

N_DRAWS = 10_000
# Two score vectors: a small one (wrong variants differ strongly) and one whose counts are
# so large that exp(−ε·e/2) underflows to 0 for every hypothesis unless the draw is in log space.
SAMPLING_SETTINGS = (
    (np.array([3, 4, 4, 5, 7, 9, 12, 20]), 1.0),
    # Widely spread counts, as in the lab's own last cell: shifting by the *largest* count makes
    # exp(ε·(max − e)/2) = e^{1500} overflow.
    (np.array([0, 1, 3, 40, 400, 3000]), 1.0),
    (np.array([100_000, 100_001, 100_003, 100_002, 100_010, 100_001]), 2.0),
    # One good hypothesis among 30 equal ones: report-noisy-max with Lap(2/ε) noise gives the best one
    # probability 0.457 instead of the exponential mechanism's 0.401 (measured by simulation), a
    # chi-square non-centrality of about 130 at 10 000 draws, far beyond the 1e-6 critical value 75.
    (np.concatenate([[0], np.full(30, 6)]), 1.0),
)
_SETTING_HINTS = (
    "",
    "\nHint: with counts spread from 0 to 3000, exp(−ε·(e − max e)/2) = e^{1500} overflows. Shift by the "
    "*smallest* count (the largest weight becomes 1), or take argmax(−ε·e/2 + Gumbel noise).",
    "\nHint: with error counts near 10⁵, exp(−ε·e/2) underflows to 0 for every hypothesis. Work in "
    "log space: shift by the smallest count before exponentiating, or take argmax(−ε·e/2 + Gumbel noise).",
    "",
)


def _report_noisy_max_law(errors, epsilon, n=200_000):
    """Law of argmax(−e + Lap(2/ε)) by simulation (fixed seed): report-noisy-max with Laplace noise."""
    rng = np.random.default_rng(77)
    scores = -np.asarray(errors, dtype=float)
    noisy = scores[None, :] + rng.laplace(0.0, 2 / epsilon, size=(n, scores.size))
    return np.bincount(np.argmax(noisy, axis=1), minlength=scores.size) / n


def _probabilities(errors, epsilon):
    return exponential_mechanism_probabilities(-np.asarray(errors, dtype=float), 1.0, epsilon)


def _chi_square_p(counts, probabilities):
    """Pearson chi-square p-value, pooling cells with expected count < 5 (the test's validity condition)."""
    expected = probabilities * counts.sum()
    small = expected < 5
    observed = np.append(counts[~small], counts[small].sum())
    expected = np.append(expected[~small], expected[small].sum())
    keep = expected > 0
    if np.any(observed[~keep] > 0):
        return 0.0  # a draw where the probability is 0
    if np.count_nonzero(keep) == 1:
        return 1.0  # all mass on one cell, and every draw is in it
    return float(stats.chisquare(observed[keep], expected[keep]).pvalue)


_SAMPLING_BUGS = (
    ("the factor 2 is missing: you sample ∝ exp(−ε·e), which is only 2ε-DP. Use exp(−ε·e/2)",
     lambda e, eps: _probabilities(e, 2 * eps)),
    ("the sign is flipped: you favour hypotheses with *more* errors. The weight is exp(−ε·e/2), "
     "so fewer errors must mean more weight", lambda e, eps: _probabilities(-np.asarray(e), eps)),
    ("you sample uniformly at random; the weights exp(−ε·e/2) are missing",
     lambda e, eps: np.full(len(e), 1 / len(e))),
    ("you always output a hypothesis with the fewest errors (ERM); that is not private — sample with "
     "probability ∝ exp(−ε·e/2)", lambda e, eps: (np.asarray(e) == np.min(e)) / np.sum(np.asarray(e) == np.min(e))),
    ("you divided by ε instead of multiplying: the weight is exp(−ε·e/2)",
     lambda e, eps: _probabilities(e, 1 / eps)),
    ("that is report-noisy-max with Laplace noise, argmax(−e + Lap(2/ε)): it is ε-DP too, but it is a "
     "different distribution, not the generic learner's exp(−ε·e/2) weights. For an exact sample of the "
     "exponential mechanism add *Gumbel* noise to −ε·e/2 (or normalise the shifted weights)",
     _report_noisy_max_law),
)


def check_sampling_step(fn):
    """Task 2: ``fn(error_counts, epsilon, rng)`` must return an index h with probability ∝ exp(−ε·e_h/2).

    Checks: an int index in range; the same seed gives the same index (20 seeds); and,
    for both ``SAMPLING_SETTINGS`` (the second with error counts near 10⁵,
    where exp(−ε·e/2) underflows unless the draw is done in log space),
    10 000 draws pass a chi-square test against the exact distribution at
    false-alarm rate 1e-6. A failing distribution is compared with the
    usual bugs (missing factor 2, flipped sign, uniform, ERM, ε upside down).
    Runs in about 1 s.
    """
    task = "Task 2 (sampling step)"
    require_own_code(fn, ("exponential_mechanism", "exponential_mechanism_probabilities", "report_noisy_max",
                          "generic_private_learner", "select_hypotheses"), task)
    errors, epsilon = SAMPLING_SETTINGS[0]
    first = call_student(fn, (errors.copy(), epsilon, np.random.default_rng(5)), task)
    first = require_integer(first, task, f"fn(error_counts, {epsilon}, rng)", "one index (an int)")
    require(0 <= first < len(errors),
            f"{task}: return one index between 0 and {len(errors) - 1}, got {first!r}")
    # Same seed, same index, for 20 seeds. A function that ignores rng repeats itself by chance with
    # probability Σ_h p_h² ≈ 0.25 per seed here, so all 20 agree with probability about 1e-12.
    for seed in range(20):
        runs = [call_student(fn, (errors.copy(), epsilon, np.random.default_rng(seed)), task) for _ in range(2)]
        require(runs[0] == runs[1], f"{task}: the same seed ({seed}) gave different outputs ({runs[0]} and "
                                    f"{runs[1]}). Draw all randomness from the rng argument.")
    for setting, (errors, epsilon) in enumerate(SAMPLING_SETTINGS):
        rng = np.random.default_rng(300 + setting)
        hint = _SETTING_HINTS[setting]
        draws = np.empty(N_DRAWS, dtype=np.int64)
        for i in range(N_DRAWS):
            index = call_student(fn, (errors.copy(), epsilon, rng), task, hint)
            if not isinstance(index, (int, np.integer)) or isinstance(index, (bool, np.bool_)) \
                    or not 0 <= index < len(errors):
                raise LabCheckError(f"{task}: with error counts {errors.tolist()} at ε = {epsilon} your function "
                                    f"returned {index!r}; it must return an int index in 0..{len(errors) - 1}."
                                    f"{hint}")
            draws[i] = index
        counts = np.bincount(draws, minlength=len(errors))
        exact = _probabilities(errors, epsilon)
        if _chi_square_p(counts, exact) > FALSE_ALARM:
            continue
        frequencies = counts / N_DRAWS
        table = "\n".join(f"   h = {h}: e_h = {e}, exact {p:.4f}, yours {f:.4f}"
                          for h, (e, p, f) in enumerate(zip(errors, exact, frequencies)) if h < 8)
        diagnosis = next((hint_text for hint_text, wrong in _SAMPLING_BUGS
                          if _chi_square_p(counts, wrong(errors, epsilon)) > FALSE_ALARM), None)
        raise LabCheckError(f"{task}: the output distribution is wrong (chi-square p < 1e-6, "
                            f"ε = {epsilon}, error counts {errors.tolist()[:8]}{'...' if len(errors) > 8 else ''}):"
                            f"\n{table}\n"
                            f"Hint: {diagnosis or 'sample h with probability exp(−ε·e_h/2) / Σ exp(−ε·e_h′/2)'}."
                            f"{hint}")
    passed(task)


# --- Task 3: the sample-complexity bound -------------------------------------------------------

COMPLEXITY_GRID = [(size, epsilon, alpha, beta) for size in (2, 202, 1e6) for epsilon in (0.01, 0.1, 1.0, 10.0)
                   for alpha in (0.05, 0.2) for beta in (0.01, 0.1)]


def check_sample_complexity(fn):
    """Task 3: ``fn(n_hypotheses, epsilon, alpha, beta)`` must return the smallest integer
    n >= max{(9/(2α²)) ln(4|H|/β), (6/(εα)) ln(2|H|/β)} (chapter 2, the utility theorem with exact constants).

    Compared exactly with :func:`dpteach.bounds.generic_learner_sample_complexity`
    on 48 settings; the slide's form, ERM's bound, a missing round-up and
    wrong logarithms get their own hints.
    """
    task = "Task 3 (sample complexity)"
    require_own_code(fn, ("generic_learner_sample_complexity",), task)
    for size, epsilon, alpha, beta in COMPLEXITY_GRID:
        answer = call_student(fn, (size, epsilon, alpha, beta), task)
        expected = bounds.generic_learner_sample_complexity(size, epsilon, alpha, beta)
        call = f"fn({size:g}, {epsilon}, {alpha}, {beta})"
        if isinstance(answer, (int, np.integer)) and not isinstance(answer, (bool, np.bool_)) \
                and int(answer) == expected:
            continue
        value = require_real(answer, task, call)
        # The right n is not printed: the cases are fixed, and printed answers would make a table of them.
        shown = (f"|H| = {size:g}, ε = {epsilon}, α = {alpha}, β = {beta}: got {answer!r}, "
                 f"{'too large' if value > expected else 'too small'}")
        if value == expected:
            require_integer(answer, task, call, "an int (a number of examples)")
        exact_real = max(9 / (2 * alpha ** 2) * math.log(4 * size / beta),
                         6 / (epsilon * alpha) * math.log(2 * size / beta))
        slide = 6 * math.log(size / beta) * max(1 / (epsilon * alpha), 1 / alpha ** 2)
        erm = 2 / alpha ** 2 * math.log(2 * size / beta)
        formula = "n = ⌈max{(9/(2α²)) ln(4|H|/β), (6/(εα)) ln(2|H|/β)}⌉."
        if math.isclose(value, exact_real, rel_tol=1e-9):
            hint = "the value is right but not rounded up: n must be an integer, so return math.ceil(...)."
        elif math.isclose(value, slide, rel_tol=1e-9) or value == math.ceil(slide):
            hint = teaching_hint(task, "that is the slide's constant 6(ln|H| + ln 1/β)·max{1/(εα), 1/α²}, which is "
                                       "slightly too small: bound each failure event with the proof's constants and "
                                       "give each β/2.", formula)
        elif math.isclose(value, erm, rel_tol=1e-9) or value == math.ceil(erm):
            hint = ("that is the non-private ERM bound (2/α²) ln(2|H|/β); the private bound has two terms (the "
                    "sample and the exponential mechanism).")
        elif value == math.ceil(max(9 / (2 * alpha ** 2), 6 / (epsilon * alpha)) * math.log(2 * size / beta)):
            hint = teaching_hint(task, "the two terms do not share one logarithm: the sampling failure bound "
                                       "2|H|e^{−2n(α/3)²} has its own factor in front. Set it to β/2.", formula)
        else:
            hint = teaching_hint(task, "bound the sampling failure (Hoeffding at t = α/3, union bound over H) and the "
                                       "exponential mechanism's (u = nα/3, Δ = 1), give each β/2, solve each for n, "
                                       "take the larger and round up.", formula)
        raise LabCheckError(f"{task}: {shown}.\nHint: {hint}")
    passed(task)


# --- Task 4: the exact privacy loss ---------------------------------------------------------


def _reference_loss(errors, errors_neighbour, epsilon):
    with np.errstate(divide="ignore"):
        return float(np.max(np.abs(np.log(_probabilities(errors, epsilon))
                                   - np.log(_probabilities(errors_neighbour, epsilon)))))


def _loss_cases():
    """Neighbouring error-count vectors (entries differ by at most 1), incl. huge counts and a one-sided extreme."""
    base = np.array([2, 1, 0, 1, 2, 3, 4, 5, 4, 3])
    relabelled = base + np.array([1, 1, 1, 1, 1, -1, -1, -1, -1, -1])
    large = np.array([50_000, 50_001, 50_003, 50_010])
    large_neighbour = large + np.array([1, -1, 0, 1])
    # Here the largest |log ratio| is attained where p′ < p (a negative log ratio).
    skewed = np.array([0, 5, 5, 5, 5, 5])
    skewed_neighbour = skewed + np.array([1, 0, 0, 0, 0, 0])
    return [(base, relabelled, 1.0), (relabelled, base, 0.3), (large, large_neighbour, 4.0),
            (skewed, skewed_neighbour, 2.0)]


def check_privacy_loss(fn):
    """Task 4: ``fn(errors, errors_neighbour, epsilon)`` must return max_h |ln p(h) − ln p′(h)|.

    p and p′ are the generic learner's output distributions (∝ exp(−ε·e/2)) on
    two neighbouring datasets with the given error counts. Compared with the
    exact value (relative tolerance 1e-6) on four pairs: a relabelling that
    moves scores both ways, its reverse, counts near 5·10⁴ (log space needed)
    and a pair whose extreme log ratio is negative (the absolute value matters).
    """
    task = "Task 4 (exact privacy loss)"
    require_own_code(fn, ("neighbour_privacy_losses", "exponential_mechanism_probabilities"), task)
    for errors, errors_neighbour, epsilon in _loss_cases():
        hint_large = ("\nHint: with counts near 5·10⁴, exp(−ε·e/2) underflows to 0. Compute log-probabilities "
                      "directly: ln p(h) = −ε·e_h/2 − logsumexp(−ε·e/2) (scipy.special.logsumexp).")
        answer = call_student(fn, (errors.copy(), errors_neighbour.copy(), epsilon), task,
                       hint_large if errors.min() > 1000 else "")
        expected = _reference_loss(errors, errors_neighbour, epsilon)
        if isinstance(answer, (float, np.floating)) and not math.isfinite(answer):
            value = float(answer)
        else:
            value = require_real(answer, task, f"fn(errors, errors_neighbour, {epsilon})")
        if math.isclose(value, expected, rel_tol=1e-6):
            continue
        shown = f"for e = {errors.tolist()}, e′ = {errors_neighbour.tolist()}, ε = {epsilon}: expected {expected:.6g}, got {value!r}"
        if not math.isfinite(value) and errors.min() > 1000:
            hint = hint_large.strip()
        elif math.isclose(value, _reference_loss(errors, errors_neighbour, 2 * epsilon), rel_tol=1e-6):
            hint = "Hint: that is the loss without the factor 2: the weights are exp(−ε·e/2), not exp(−ε·e)."
        elif math.isclose(value, float(np.max(np.abs(epsilon * (np.asarray(errors) - errors_neighbour) / 2))),
                          rel_tol=1e-6):
            hint = ("Hint: you compared the unnormalised weights −ε·e_h/2 and −ε·e′_h/2. The probabilities are "
                    "normalised, and the normalisers Σ_h′ exp(−ε·e_h′/2) of the two datasets differ too: "
                    "ln p(h) = −ε·e_h/2 − ln Σ_h′ exp(−ε·e_h′/2).")
        elif math.isclose(value, math.exp(expected), rel_tol=1e-6):
            hint = "Hint: you returned the probability ratio; the privacy loss is its logarithm."
        elif value < expected:
            hint = ("Hint: too small. Take the maximum of the *absolute* log ratio over all hypotheses: "
                    "the worst case may be a hypothesis that becomes less likely.")
        else:
            hint = "Hint: ln p(h) = −ε·e_h/2 − ln Σ_h′ exp(−ε·e_h′/2), and the same for p′ with e′."
        raise LabCheckError(f"{task}: wrong value {shown}.\n{hint}")
    passed(task)


from .lab02_derivations import (check_bounded_loss_sample_complexity,  # noqa: E402
                                check_noisy_min_sample_complexity)
