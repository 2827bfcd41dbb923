"""Checkers for Lab 1's derivation tasks (re-exported by :mod:`dpteach.labs.lab01`).

Chapter 1 prints the Laplace mechanism for replace-one neighbours and proves that it is ε-DP; these two tasks
ask for what it does not print:

6. :func:`check_clipped_sum_sensitivity` — ``fn(lower, upper, neighbours)``: the L1 sensitivity of the clipped
   sum ``Σ clip(x_i, lower, upper)`` under replace-one *and* add/remove-one neighbours;
7. :func:`check_laplace_delta` — ``fn(sensitivity, epsilon, epsilon_prime)``: the smallest δ for which the
   Laplace mechanism of scale Δ/ε is (ε′, δ)-DP, for ε′ below ε (its privacy profile).

Each checker tests the *defining property* on inputs drawn here from a seed, not a table of answers: the
sensitivity is compared with a brute-force maximum of |f(D) − f(D′)| over neighbouring datasets built from a
fine grid of record values (clipping makes the extremes attainable), and δ with a numerical integral of
(p_D − e^{ε′} p_{D′})₊ (Lemma 1.4) over the two Laplace densities. A wrong value that matches a typical
slip gets the hint naming it; any other wrong value gets a pointer, and the formula only after repeated
tries (:func:`~dpteach.labs.checking.teaching_hint`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate

from .checking import LabCheckError, call_student, passed, require_own_code, require_real, teaching_hint

__all__ = ["check_clipped_sum_sensitivity", "check_laplace_delta", "NEIGHBOURS"]

NEIGHBOURS = ("replace-one", "add/remove")


# --- Task 6: the sensitivity of a clipped sum under both neighbouring relations -------------------

def _clipped_sum_cases(seed=6106):
    """(lower, upper) pairs: an interval around 0, one on each side of 0, a lopsided one, and random ones."""
    rng = np.random.default_rng(seed)
    cases = [(-1.0, 3.0), (2.0, 5.0), (-7.0, -0.5), (-4.0, 1.0)]
    for _ in range(4):
        a, b = np.sort(rng.uniform(-10, 10, size=2))
        cases.append((round(float(a), 3), round(float(b), 3)))
    return cases


def _brute_force_clipped_sum_sensitivity(lower, upper, neighbours):
    """max |f(D) − f(D')| over neighbours, f(D) = Σ clip(x_i): one record's value (or presence) is all that changes.

    Records range over a grid reaching beyond [lower, upper] (the clip makes both ends attainable); the other
    records cancel in the difference, so one record suffices.
    """
    records = np.clip(np.linspace(lower - 5.0, upper + 5.0, 2001), lower, upper)
    if neighbours == "replace-one":
        return float(np.max(np.abs(records[:, None] - records[None, :])))
    return float(np.max(np.abs(records)))  # add/remove: the sum gains or loses one clipped record


_SENSITIVITY_BUGS = (
    ("under add/remove-one neighbours D′ has one record more or fewer: the sum moves by that one clipped record, "
     "not by the difference of two records",
     lambda lo, hi, rel: hi - lo if rel == "add/remove" else None),
    ("under replace-one neighbours one record is replaced by another: both values are clipped, so the sum moves "
     "by the difference of two values in [lower, upper], not by one value's size",
     lambda lo, hi, rel: max(abs(lo), abs(hi)) if rel == "replace-one" else None),
    ("a replacement is not a removal followed by an addition *counted separately*: 2·max(|lower|, |upper|) is a "
     "valid bound but not the maximum, because the removed and the added value both lie in [lower, upper]",
     lambda lo, hi, rel: 2 * max(abs(lo), abs(hi)) if rel == "replace-one" else None),
    ("a record clipped to `lower` can be added or removed too: its size |lower| counts when lower < 0",
     lambda lo, hi, rel: abs(hi) if rel == "add/remove" else None),
    ("|lower| + |upper| adds the two ends' sizes; that is the replace-one answer only when 0 lies between them",
     lambda lo, hi, rel: abs(lo) + abs(hi)),
)


def check_clipped_sum_sensitivity(fn):
    """Task 6: ``fn(lower, upper, neighbours)`` is the L1 sensitivity of D ↦ Σ_i clip(x_i, lower, upper).

    ``neighbours`` is ``"replace-one"`` or ``"add/remove"``. Compared with a brute-force maximum over neighbours
    (:func:`_brute_force_clipped_sum_sensitivity`) on intervals drawn from a seed, to a relative 1e-9.
    """
    task = "Task 6 (clipped-sum sensitivity)"
    require_own_code(fn, (), task)
    for lower, upper in _clipped_sum_cases():
        for relation in NEIGHBOURS:
            call = f"fn({lower}, {upper}, {relation!r})"
            out = require_real(call_student(fn, (lower, upper, relation), task), task, call)
            right = _brute_force_clipped_sum_sensitivity(lower, upper, relation)
            if abs(out - right) <= 1e-9 * max(1.0, right):
                continue
            for hint, bug in _SENSITIVITY_BUGS:
                value = bug(lower, upper, relation)
                if value is not None and abs(out - value) <= 1e-9 * max(1.0, abs(value)):
                    raise LabCheckError(f"{task}: {call} returned {out:.6g}, but the largest |f(D) − f(D′)| over "
                                        f"{relation} neighbours is {right:.6g}. Hint: {hint}.")
            pointer = ("Definition 1.5: maximise |f(D) − f(D′)| over neighbours. Only one record differs, and after "
                       "clipping its contribution lies in [lower, upper]; ask, for each relation, what can happen to "
                       "that one contribution, and try an interval on each side of 0.")
            formula = "replace-one: upper − lower; add/remove: max(|lower|, |upper|)."
            raise LabCheckError(f"{task}: {call} returned {out:.6g}, but the largest |f(D) − f(D′)| over {relation} "
                                f"neighbours is {right:.6g}. Hint: {teaching_hint(task, pointer, formula)}")
    print("Laplace scales for records clipped to [−1, 3] at ε = 1: replace-one b = 4, add/remove b = 3.")
    passed(task)


# --- Task 7: the privacy profile of the Laplace mechanism ---------------------------------------

def _laplace_delta_cases(seed=6107):
    """(Δ, ε, ε′): ε′ = 0, ε′ ≥ ε (δ = 0), and random ε′ < ε with Δ varied (δ must not depend on it)."""
    rng = np.random.default_rng(seed)
    cases = [(1.0, 1.0, 0.0), (2.0, 0.5, 0.5), (1.0, 0.3, 2.0), (0.5, 4.0, 1.0)]
    for _ in range(4):
        epsilon = round(float(rng.uniform(0.2, 6.0)), 3)
        cases.append((round(float(rng.uniform(0.1, 5.0)), 3), epsilon, round(float(rng.uniform(0, epsilon)), 3)))
    return cases


def _integrated_laplace_delta(sensitivity, epsilon, epsilon_prime):
    """δ = ∫ (p_D − e^{ε′} p_{D′})₊ for p_D = Lap(0, Δ/ε), p_{D′} = Lap(Δ, Δ/ε), by quadrature (Lemma 1.4).

    The pair at distance Δ is the worst one (a smaller distance is the same integral at a smaller ε), and the
    two orders of the pair give the same value by symmetry. Integrated numerically on (−∞, 0], [0, Δ], [Δ, ∞)
    where the densities are smooth, so that this reference does not use the closed form the task asks for.
    """
    b = sensitivity / epsilon

    def excess(y):
        p = math.exp(-abs(y) / b) / (2 * b)
        q = math.exp(-abs(y - sensitivity) / b) / (2 * b)
        return max(0.0, p - math.exp(epsilon_prime) * q)

    pieces = ((-math.inf, 0.0), (0.0, sensitivity), (sensitivity, math.inf))
    return sum(integrate.quad(excess, a, c, epsabs=1e-13, epsrel=1e-11, limit=200)[0] for a, c in pieces)


_DELTA_BUGS = (
    ("for ε′ ≥ ε the mechanism is already ε′-DP, so no δ is needed: return 0, not a negative number",
     lambda d, e, ep: 1 - math.exp((ep - e) / 2) if ep > e else None),
    ("the privacy loss is not ε on a whole half-line and ε′ elsewhere: between the two inputs it falls *linearly* "
     "from ε to −ε, so it exceeds ε′ only left of the point where it crosses ε′ (halve the gap there)",
     lambda d, e, ep: max(0.0, 1 - math.exp(ep - e))),
    ("that is Pr[L > ε′] alone; Lemma 1.4's δ also subtracts e^{ε′}·Pr_{D′}[L > ε′], the mass of the same event "
     "under the neighbour",
     lambda d, e, ep: 1 - 0.5 * math.exp((ep - e) / 2) if ep < e else None),
    ("δ does not depend on Δ: the scale Δ/ε is matched to it, and the integral is the same after substituting "
     "y = Δ·u",
     lambda d, e, ep: d * max(0.0, 1 - math.exp((ep - e) / 2)) if d != 1 else None),
    ("that is the total-variation distance (the value at ε′ = 0) for every ε′: the factor e^{ε′} shrinks δ",
     lambda d, e, ep: 1 - math.exp(-e / 2) if ep > 0 else None),
)


def check_laplace_delta(fn):
    """Task 7: ``fn(sensitivity, epsilon, epsilon_prime)`` is the smallest δ with Lap(Δ/ε) (ε′, δ)-DP.

    Compared with :func:`_integrated_laplace_delta` to an absolute 1e-8 on cases drawn from a seed, including
    ε′ = 0 (the total-variation distance) and ε′ ≥ ε (δ = 0).
    """
    task = "Task 7 (δ of the Laplace mechanism)"
    require_own_code(fn, ("laplace_mechanism",), task)
    for case in _laplace_delta_cases():
        call = f"fn{case}"
        out = require_real(call_student(fn, case, task), task, call)
        right = _integrated_laplace_delta(*case)
        if abs(out - right) <= 1e-8:
            continue
        for hint, bug in _DELTA_BUGS:
            value = bug(*case)
            if value is not None and abs(out - value) <= 1e-8:
                raise LabCheckError(f"{task}: {call} returned {out:.8g}, the smallest δ is {right:.8g}. Hint: {hint}.")
        pointer = ("Lemma 1.4: δ(ε′) = ∫ (p_D − e^{ε′}p_{D′})₊ for the worst pair, |f(D) − f(D′)| = Δ. Write the privacy "
                   "loss ℓ(y) piece by piece (left of both inputs, between them, right of both) and integrate both "
                   "densities over the set where ℓ(y) > ε′.")
        formula = "δ(ε′) = 1 − e^{(ε′ − ε)/2} for ε′ < ε, and 0 for ε′ ≥ ε."
        raise LabCheckError(f"{task}: {call} returned {out:.8g}, the smallest δ is {right:.8g}. "
                            f"Hint: {teaching_hint(task, pointer, formula)}")
    print(f"Lap(1/ε) at ε = 1 is (0.5, {_integrated_laplace_delta(1.0, 1.0, 0.5):.4f})-DP and "
          f"(0, {_integrated_laplace_delta(1.0, 1.0, 0.0):.4f})-DP.")
    passed(task)
