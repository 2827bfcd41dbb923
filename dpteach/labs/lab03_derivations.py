"""Checkers for Lab 3's derivation tasks (re-exported by :mod:`dpteach.labs.lab03`): randomized response on k values.

Chapter 3 prints randomized response for one bit and its debiasing (eq. 3.1). These tasks generalise it to a
value in {0, …, k − 1} ("k-ary randomized response"), which the chapter does not treat:

8. :func:`check_krr_randomizer` — ``fn(values, k, epsilon, rng)``: keep each value with the *largest*
   probability p that is still ε-local, otherwise report one of the other k − 1 values uniformly;
9. :func:`check_krr_estimate` — ``fn(reports, k, epsilon)``: the unbiased estimate of the k frequencies.

The randomizer is checked on its law: for each true value, the reports of many users are compared with the law
that the largest ε-local p gives, by a chi-square test at a false-alarm rate of 1e-6 (k and ε drawn from a seed);
a wrong keep probability is measured and named. The estimate is checked on report arrays drawn here: it must equal
the unbiased estimate (the multinomial family of the report counts is complete, so the unbiased estimate that
depends on the reports through their counts is unique) and be unbiased on 200 000 simulated users.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .checking import LabCheckError, call_student, passed, require, require_own_code, teaching_hint

__all__ = ["check_krr_randomizer", "check_krr_estimate"]

FALSE_ALARM = 1e-6


def _krr_keep_probability(k, epsilon):
    """The largest p with p/((1 − p)/(k − 1)) <= e^ε: the ratio of keeping to reporting one given other value."""
    return math.exp(epsilon) / (math.exp(epsilon) + k - 1)


def _krr_law(value, k, p):
    law = np.full(k, (1 - p) / (k - 1))
    law[value] = p
    return law


def _krr_settings(seed=6308):
    rng = np.random.default_rng(seed)
    settings = [(2, 1.0), (3, 0.5), (7, 2.0)]
    settings.append((int(rng.integers(4, 12)), round(float(rng.uniform(0.3, 3.0)), 3)))
    return settings


# (name, keep probability as a function of (k, ε), hint) for the typical slips of the randomizer
_KEEP_BUGS = (
    ("e^ε/(1 + e^ε)", lambda k, e: math.exp(e) / (1 + math.exp(e)),
     "that is the binary keep probability. With k values the report can be any of k − 1 other values: compare "
     "the probability of keeping v with that of reporting one *particular* other value"),
    ("e^ε/(e^ε + k)", lambda k, e: math.exp(e) / (math.exp(e) + k),
     "close, but count the values: the user's own value plus k − 1 others, so the normaliser is e^ε + k − 1"),
)


def _draw_krr_reports(fn, value, k, epsilon, seed, n, task):
    values = np.full(n, value)
    reports = call_student(fn, (values, k, epsilon, np.random.default_rng(seed)), task)
    reports = np.asarray(reports)
    require(reports.shape == (n,), f"{task}: fn(values of shape ({n},), {k}, {epsilon}, rng) returned shape "
                                   f"{reports.shape}; return one report per user.")
    require(np.all(np.isin(reports, np.arange(k))), f"{task}: every report must be an integer value in 0..{k - 1}.")
    require(np.issubdtype(reports.dtype, np.integer),
            f"{task}: the reports are values in 0..{k - 1}, so return an integer array; yours has dtype "
            f"{reports.dtype} (e.g. np.where on a float array gives floats: use .astype(np.int64) or integer inputs).")
    return reports.astype(int)


def check_krr_randomizer(fn):
    """Task 8: ``fn(values, k, epsilon, rng)`` is k-ary randomized response with the largest ε-local keep probability."""
    task = "Task 8 (k-ary randomizer)"
    require_own_code(fn, ("randomized_response",), task)
    n = 20_000
    first = _draw_krr_reports(fn, 0, 3, 1.0, 1, 200, task)
    again = _draw_krr_reports(fn, 0, 3, 1.0, 1, 200, task)
    require(np.array_equal(first, again), f"{task}: the same rng seed gave different reports; draw all randomness "
                                          f"from the rng argument.")
    grid = np.arange(6).reshape(2, 3) % 4  # users arranged in a 2-D array: one report per entry, same shape
    shaped = np.asarray(call_student(fn, (grid, 4, 1.0, np.random.default_rng(2)), task))
    require(shaped.shape == grid.shape, f"{task}: fn(values of shape {grid.shape}, 4, 1.0, rng) returned shape "
                                        f"{shaped.shape}; return an array of the shape of `values`.")
    for index, (k, epsilon) in enumerate(_krr_settings()):
        p = _krr_keep_probability(k, epsilon)
        for value in sorted({0, k - 1, k // 2}):
            reports = _draw_krr_reports(fn, value, k, epsilon, 100 * index + value + 7, n, task)
            counts = np.bincount(reports, minlength=k)
            law = _krr_law(value, k, p)
            others = np.delete(counts, value)
            # chi-square against the exact law with the optimal p
            pvalue = stats.chisquare(counts, n * law).pvalue
            if pvalue >= FALSE_ALARM:
                continue
            kept = counts[value] / n
            measured = (f"{task}: with k = {k}, ε = {epsilon}, true value {value}, your randomizer kept the value "
                        f"in {kept:.4f} of {n} reports; the largest ε-local keep probability gives {p:.4f} "
                        f"(chi-square p-value {pvalue:.1e}).")
            for name, keep, hint in _KEEP_BUGS:
                if abs(kept - keep(k, epsilon)) <= 6 * math.sqrt(p * (1 - p) / n):
                    raise LabCheckError(f"{measured} Your p looks like {name}. Hint: {hint}.")
            if kept > p + 6 * math.sqrt(p * (1 - p) / n):
                raise LabCheckError(f"{measured} Hint: keeping more often than that is not ε-local: the ratio of "
                                    f"Pr[report v | value v] to Pr[report v | another value] would exceed e^ε.")
            if abs(kept - p) <= 6 * math.sqrt(p * (1 - p) / n):
                spread = stats.chisquare(others).pvalue
                if spread < FALSE_ALARM:
                    raise LabCheckError(f"{measured} Hint: the keep frequency is right, but the other k − 1 values "
                                        f"are not equally likely (counts {others.tolist()}): draw uniformly among the "
                                        f"values different from the true one.")
            lower = "It keeps less often than it could: the privacy constraint should be tight. " if kept < p else ""
            pointer = (lower + "write the ratio Pr[R(v) = w] / Pr[R(v′) = w] for every pair v, v′ and report w; the worst "
                       "one is keeping (p) against reporting one particular other value ((1 − p)/(k − 1)). Make it "
                       "at most e^ε with equality.")
            raise LabCheckError(f"{measured} Hint: {teaching_hint(task, pointer, 'p = e^ε/(e^ε + k − 1).')}")
    print(f"k = 7, ε = 2: keep probability {_krr_keep_probability(7, 2.0):.4f} (binary RR's formula would give "
          f"{math.exp(2) / (1 + math.exp(2)):.4f}, which is not 2-local for k = 7).")
    passed(task)


def _krr_reference_estimate(reports, k, epsilon):
    """(frequency_v − q)/(p − q) with q = (1 − p)/(k − 1): solves E[frequency] = q + (p − q)·f for f."""
    p = _krr_keep_probability(k, epsilon)
    q = (1 - p) / (k - 1)
    frequencies = np.bincount(reports, minlength=k) / reports.size
    return (frequencies - q) / (p - q)


def _reference_reports(f, k, epsilon, n, rng):
    values = rng.choice(k, size=n, p=f)
    p = _krr_keep_probability(k, epsilon)
    keep = rng.random(n) < p
    other = (values + rng.integers(1, k, size=n)) % k  # uniform among the k − 1 other values
    return np.where(keep, values, other)


_ESTIMATE_BUGS = (
    ("these are the observed frequencies of the reports: k-RR moves a report to another value with probability "
     "1 − p, so they are biased towards 1/k; debias them",
     lambda fr, k, e: fr),
    ("the binary debiasing ((1 + e^ε)·ō − 1)/(e^ε − 1) applied to each value assumes k = 2: with k values the "
     "wrong reports spread over k − 1 others",
     lambda fr, k, e: ((1 + math.exp(e)) * fr - 1) / (math.exp(e) - 1)),
    ("the frequency of v also collects reports of *other* values turned into v, with probability q = (1 − p)/(k − 1) "
     "each: subtract q before dividing",
     lambda fr, k, e: fr / _krr_keep_probability(k, e)),
    ("the reports of value v are p·f_v + q·(1 − f_v) in expectation: divide by p − q, not by p",
     lambda fr, k, e: (fr - (1 - _krr_keep_probability(k, e)) / (k - 1)) / _krr_keep_probability(k, e)),
    ("do not clip to [0, 1]: clipping biases the estimate (an unbiased estimate of a small frequency must be "
     "negative sometimes)",
     lambda fr, k, e: np.clip((fr - (1 - _krr_keep_probability(k, e)) / (k - 1))
                              / (_krr_keep_probability(k, e) - (1 - _krr_keep_probability(k, e)) / (k - 1)), 0, 1)),
)


def check_krr_estimate(fn):
    """Task 9: ``fn(reports, k, epsilon)`` is the unbiased estimate of the k frequencies from k-RR reports."""
    task = "Task 9 (k-ary estimate)"
    require_own_code(fn, ("randomized_response",), task)
    rng = np.random.default_rng(6309)
    for k, epsilon in _krr_settings():
        f = rng.dirichlet(np.ones(k))
        f[0] = 0.0  # a value nobody holds: its unbiased estimate is negative about half the time
        f /= f.sum()
        # n = 37 first: on one report the clipped estimate *is* the observed frequency (a one-hot vector), so
        # a bug is named where its formula is the only one that fits; n = 1 then catches what breaks on one user.
        for n in (37, 500, 1):
            reports = _reference_reports(f, k, epsilon, n, rng)
            out = call_student(fn, (reports.copy(), k, epsilon), task)
            try:
                out = np.asarray(out, dtype=float) if not isinstance(out, str) else out
            except (TypeError, ValueError):
                pass  # not an array of numbers: the shape check below says so
            call = f"fn(reports of {n} users, k={k}, ε={epsilon})"
            require(isinstance(out, np.ndarray) and out.shape == (k,),
                    f"{task}: {call} should return an array of the k = {k} estimated frequencies, got {out!r:.60}.")
            right = _krr_reference_estimate(reports, k, epsilon)
            if np.allclose(out, right, rtol=1e-9, atol=1e-9):
                continue
            frequencies = np.bincount(reports, minlength=k) / n
            if np.allclose(out, right * n, rtol=1e-9, atol=1e-9) and n > 1:
                raise LabCheckError(f"{task}: {call} is {n} × the unbiased estimate. Hint: estimate frequencies, "
                                    f"not counts: divide by the number of reports.")
            fits = [hint for hint, bug in _ESTIMATE_BUGS
                    if np.allclose(out, bug(frequencies, k, epsilon), rtol=1e-9, atol=1e-9)]
            if len(fits) == 1:  # a bug is named only when it alone fits
                raise LabCheckError(f"{task}: {call} returned {np.round(out, 4)}, the unbiased estimate is "
                                    f"{np.round(right, 4)}. Hint: {fits[0]}.")
            pointer = ("compute E[fraction of reports equal to v] as a function of the true frequency f_v (a report "
                       "equals v if a holder of v keeps it, or a holder of another value moves to v), then solve "
                       "for f_v.")
            formula = "f̂_v = (fraction_v − q)/(p − q) with p = e^ε/(e^ε + k − 1), q = (1 − p)/(k − 1)."
            raise LabCheckError(f"{task}: {call} returned {np.round(out, 4)}, the unbiased estimate is "
                                f"{np.round(right, 4)}. Hint: {teaching_hint(task, pointer, formula)}")
    # unbiasedness on many users, as a statistical property
    k, epsilon, n = 5, 1.0, 200_000
    f = np.array([0.5, 0.25, 0.15, 0.1, 0.0])
    estimate = np.asarray(call_student(fn, (_reference_reports(f, k, epsilon, n, rng), k, epsilon), task), float)
    p = _krr_keep_probability(k, epsilon)
    q = (1 - p) / (k - 1)
    sd = np.sqrt((q + (p - q) * f) * (1 - q - (p - q) * f) / n) / (p - q)
    require(np.all(np.abs(estimate - f) <= 5.3 * sd),  # two-sided normal tail 1e-7 per value, 5 values
            f"{task}: on {n} users with frequencies {f.tolist()} your estimate is {np.round(estimate, 4)}, more "
            f"than 5.3 standard deviations from the truth somewhere: it is biased.")
    print(f"k = 5, ε = 1, {n} users: estimate {np.round(estimate, 3)} for {f.tolist()} "
          f"(sd {sd.max():.4f} per value; the estimates sum to 1).")
    passed(task)
