"""Checkers for Lab 2's derivation tasks (re-exported by :mod:`dpteach.labs.lab02`).

Chapter 2 proves the generic learner's sample complexity (Theorem 2.6) for the exponential mechanism over
0/1 error counts. These tasks ask for two variants it does not print, derived with the same proof structure
(α split in thirds, β in halves, Hoeffding plus a union bound for the sample):

5. :func:`check_noisy_min_sample_complexity` — ``fn(n_hypotheses, epsilon, alpha, beta)``: the learner that
   reports the hypothesis with the smallest *noisy* error count (report-noisy-max on −counts, Theorem 1.24);
6. :func:`check_bounded_loss_sample_complexity` — ``fn(n_hypotheses, loss_bound, epsilon, alpha, beta)``: the
   exponential mechanism on the total of a loss with values in [0, L] instead of the 0/1 error.

The defining property of each answer is "the smallest integer n at which both failure bounds of the
proof are at most β/2": the checker evaluates the two bounds, written here as probabilities, at the
returned n and at n − 1, on cases drawn from a seed. Typical slips get the hint naming them; any other wrong
value gets a pointer, and the formula only after repeated tries.
"""

from __future__ import annotations

import math

import numpy as np

from .checking import LabCheckError, call_student, passed, require_integer, require_own_code, teaching_hint

__all__ = ["check_noisy_min_sample_complexity", "check_bounded_loss_sample_complexity"]


def _sample_failure(n, n_hypotheses, alpha, loss_bound=1.0):
    """Hoeffding + union bound: Pr[some h has |err_S(h) − err(h)| > α/3] <= 2|H| exp(−2n(α/3)²/L²)."""
    return 2 * n_hypotheses * math.exp(-2 * n * (alpha / 3) ** 2 / loss_bound ** 2)


def _noisy_min_failure(n, n_hypotheses, epsilon, alpha):
    """Pr[some |Z_h| > nα/6] = |H| e^{−(nα/6)/b} with b = 2/ε (counts are not monotone under replace-one)."""
    return n_hypotheses * math.exp(-(n * alpha / 6) / (2 / epsilon))


def _bounded_loss_failure(n, n_hypotheses, loss_bound, epsilon, alpha):
    """Exponential mechanism on −Σℓ (sensitivity L) at u = nα/3: |H| exp(−ε u / (2L))."""
    return n_hypotheses * math.exp(-epsilon * (n * alpha / 3) / (2 * loss_bound))


def _cases(seed, with_loss):
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(6):
        case = [int(rng.choice([2, 10, 202, 5000])), round(float(rng.uniform(0.05, 4.0)), 3),
                round(float(rng.uniform(0.02, 0.3)), 3), round(float(rng.choice([0.01, 0.05, 0.2])), 3)]
        if with_loss:
            case.insert(1, round(float(rng.choice([0.25, 3.0, 10.0])), 3))  # L, L², 2L and 1 all distinct
        cases.append(tuple(case))
    # both regimes: privacy term dominating (small ε) and sampling term dominating (large ε)
    cases += [(100, 0.01, 0.1, 0.05), (100, 50.0, 0.1, 0.05)] if not with_loss else \
             [(100, 4.0, 0.05, 0.1, 0.05), (100, 0.5, 50.0, 0.1, 0.05)]
    return cases


def _smallest(fails):
    """Smallest integer n >= 1 with fails(n) False (fails is monotone: True below a threshold)."""
    high = 1
    while fails(high):
        high *= 2
    low = high // 2  # fails(low) or low = 0
    while high - low > 1:
        middle = (low + high) // 2
        if fails(middle):
            low = middle
        else:
            high = middle
    return high


def _check_smallest_n(fn, cases, failures, bugs, task, pointer, formula):
    """``fn(*case)`` must be the smallest integer n with every bound in ``failures(n, *case)`` at most β/2."""
    for case in cases:
        call = f"fn{case}"
        out = require_integer(call_student(fn, case, task), task, call)
        if out < 1:
            raise LabCheckError(f"{task}: {call} returned {out}; a number of examples is a positive integer.")
        beta = case[-1]
        bounds = failures(out, *case)
        right = _smallest(lambda n: any(b > beta / 2 for b in failures(n, *case)))
        if out == right:
            continue
        # The right n is never printed (fixed cases: printed answers would make a table); the feedback says
        # too large or too small and which bound fails, and a named slip is a pointer (formula from the 3rd try).
        if out > right:
            detail = "too large: the proof already goes through with fewer examples"
        else:
            which = " and ".join(name for name, b in zip(("the sample's", "the noise's"), bounds) if b > beta / 2)
            detail = f"too small: at n = {out} {which} failure bound exceeds β/2 = {beta / 2:g}"
        named = next((hint for hint, bug in bugs if out == bug(*case)), None)
        hint = teaching_hint(task, pointer if named is None else named + ".", formula)
        raise LabCheckError(f"{task}: {call} returned {out}, {detail}. Hint: {hint}")


_NOISY_MIN_BUGS = (
    # Lap(1/ε) with t = nα/6 and Lap(2/ε) with t = nα/3 give the same number (the exponential mechanism's
    # term), so one hint names both slips.
    ("that is the exponential mechanism's term. Either you used Lap(1/ε), which suffices only for monotone scores "
     "(under replace-one one error count can go up while another goes down, so Theorem 1.24 needs Lap(2/ε)), or "
     "you let the noise cost t = nα/3, while the noisy winner can lose 2t against the best count (its own noise "
     "and the best one's)",
     lambda H, e, a, b: math.ceil(max(9 / (2 * a ** 2) * math.log(4 * H / b), 6 / (e * a) * math.log(2 * H / b)))),
    ("each failure event gets β/2: the noise term needs |H| e^{−t/b} <= β/2, so the log is ln(2|H|/β)",
     lambda H, e, a, b: math.ceil(max(9 / (2 * a ** 2) * math.log(4 * H / b), 12 / (e * a) * math.log(H / b)))),
    ("the sample term is unchanged by the noise: Hoeffding at t = α/3 for every h with the union bound, "
     "2|H| e^{−2n(α/3)²} <= β/2",
     lambda H, e, a, b: math.ceil(12 / (e * a) * math.log(2 * H / b))),
    ("the noise can make the winner lose 2t, not 4t: t = nα/6 is enough",
     lambda H, e, a, b: math.ceil(max(9 / (2 * a ** 2) * math.log(4 * H / b), 24 / (e * a) * math.log(2 * H / b)))),
)


def check_noisy_min_sample_complexity(fn):
    """Task 5: ``fn(n_hypotheses, epsilon, alpha, beta)`` is the smallest n for which the noisy-min learner's proof goes
    through (checked by evaluating both failure bounds at n and n − 1; see :func:`_check_smallest_n`)."""
    task = "Task 5 (noisy-min sample complexity)"
    require_own_code(fn, ("generic_learner_sample_complexity", "sample_complexity"), task)
    _check_smallest_n(
        fn, _cases(6206, with_loss=False),
        lambda n, H, e, a, b: (_sample_failure(n, H, a), _noisy_min_failure(n, H, e, a)),
        _NOISY_MIN_BUGS, task,
        "Theorem 1.24 gives the noise scale for error counts under replace-one (are they monotone?). If every "
        "|Z_h| <= t, how much worse than the best count can the noisy winner's count be? Make that fit in nα/3, bound "
        "Pr[some |Z_h| > t] with Pr[|Z| > t] = e^{−t/b} and a union bound, and give each failure event β/2.",
        "n = ⌈max{9/(2α²)·ln(4|H|/β), 12/(εα)·ln(2|H|/β)}⌉ (b = 2/ε, t = nα/6).")
    print("|H| = 202, ε = 0.5, α = 0.05, β = 0.1: noisy-min needs "
          f"{_smallest(lambda n: max(_sample_failure(n, 202, 0.05), _noisy_min_failure(n, 202, 0.5, 0.05)) > 0.05)}"
          " examples (the exponential mechanism: half the noise term).")
    passed(task)


_LOSS_BUGS = (
    ("Hoeffding for values in an interval of length L has exponent −2nt²/L²: the range enters squared",
     lambda H, L, e, a, b: math.ceil(max(9 * L / (2 * a ** 2) * math.log(4 * H / b),
                                         6 * L / (e * a) * math.log(2 * H / b)))),
    ("the score −Σℓ(h, z_i) changes by up to L when one example is replaced, not by 1: the sensitivity scales the "
     "noise term",
     lambda H, L, e, a, b: math.ceil(max(9 * L ** 2 / (2 * a ** 2) * math.log(4 * H / b),
                                         6 / (e * a) * math.log(2 * H / b)))),
    ("replacing one example changes one term of the sum, from one value in [0, L] to another: the sensitivity is L, "
     "not 2L",
     lambda H, L, e, a, b: math.ceil(max(9 * L ** 2 / (2 * a ** 2) * math.log(4 * H / b),
                                         12 * L / (e * a) * math.log(2 * H / b)))),
    ("the sensitivity L enters the exponential mechanism's bound linearly (e^{−εu/(2Δ)}), not squared",
     lambda H, L, e, a, b: math.ceil(max(9 * L ** 2 / (2 * a ** 2) * math.log(4 * H / b),
                                         6 * L ** 2 / (e * a) * math.log(2 * H / b)))),
    ("you kept the 0/1 loss: the sample term must scale with the loss range L as well",
     lambda H, L, e, a, b: math.ceil(max(9 / (2 * a ** 2) * math.log(4 * H / b),
                                         6 * L / (e * a) * math.log(2 * H / b)))),
)


def check_bounded_loss_sample_complexity(fn):
    """Task 6: ``fn(n_hypotheses, loss_bound, epsilon, alpha, beta)`` is the smallest n for which Theorem 2.6's proof
    goes through for a loss in [0, loss_bound] (both failure bounds checked at n and n − 1)."""
    task = "Task 6 (bounded-loss sample complexity)"
    require_own_code(fn, ("generic_learner_sample_complexity", "sample_complexity"), task)
    _check_smallest_n(
        fn, _cases(6207, with_loss=True),
        lambda n, H, L, e, a, b: (_sample_failure(n, H, a, L), _bounded_loss_failure(n, H, L, e, a)),
        _LOSS_BUGS, task,
        "follow the proof of Theorem 2.6 with the loss in [0, L]: which sensitivity does the score −Σℓ(h, z_i) have "
        "under replace-one, and how does the range L enter Hoeffding's inequality?",
        "n = ⌈max{9L²/(2α²)·ln(4|H|/β), 6L/(εα)·ln(2|H|/β)}⌉ (Δ = L).")
    print("|H| = 202, L = 3, ε = 0.5, α = 0.05, β = 0.1: "
          f"{_smallest(lambda n: max(_sample_failure(n, 202, 0.05, 3.0), _bounded_loss_failure(n, 202, 3.0, 0.5, 0.05)) > 0.05)}"
          " examples.")
    passed(task)
