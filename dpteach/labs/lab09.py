"""Checkers for Lab 9, "Table 1 in practice" (book/labs/lab09_table1.ipynb, chapter 9).

The tasks and their checkers:

1. :func:`check_clipping` — ``fn(gradients, clip_norm)``: per-example clipping, and the sensitivity 2C of the
   clipped sum it buys (Lemma 9.1);
2. :func:`check_dp_sgd_sigma` — ``fn(n, batch_size, clip_norm, n_epochs, epsilon, delta)``: the zCDP calibration
   of DP-SGD's noise for a budget (Theorem 9.3);
3. :func:`check_choose_learner` — ``fn(n, d, degree, alpha, epsilon, need_proper, need_agnostic)``: the Table 1
   learner with the smallest shape sample size that meets the requirements, or None;
5. :func:`check_row_clip_sigma` — ``fn(row_norm, n_epochs, epsilon, delta)``: the zCDP σ of DP-SGD when the feature
   rows are clipped instead of the gradients (a sensitivity the chapter does not derive);
6. :func:`check_clip_schedule_sigma` — ``fn(clip_norms, n_epochs, epsilon, delta)``: the exact (Gaussian-DP) σ of
   DP-SGD whose clip norm changes between phases (a composition of unequal Gaussian mechanisms).

(Task 4 is the written proof.)

Each checker computes its reference *here* (closed forms; ``dpteach.dp_erm.zcdp_rho``, which the students may
call, for task 2), tries the inputs the lab itself uses, and names the likely bug of a wrong answer. Tasks 5 and 6
check the privacy their σ certifies (the zCDP budget spent; the δ(ε) of the composed Gaussian mechanisms) on inputs
drawn inside the checker, and their fallback hints give the formula only after repeated tries.
"""

from __future__ import annotations

import math

import numpy as np

from ..dp_erm import zcdp_rho
from ..hermite import feature_dimension
from ..mechanisms import gaussian_sigma
from . import LabCheckError, call_student, passed, require, require_own_code, require_real
from .checking import (VECTORISED_SIZE, check_formula_answers, require_float_array, require_vectorised,
                       teaching_hint)

__all__ = ["check_clipping", "check_dp_sgd_sigma", "check_choose_learner", "check_row_clip_sigma",
           "check_clip_schedule_sigma"]


# --- Task 1: per-example clipping ---------------------------------------------------------------

def _clip_reference(G, C):
    norms = np.linalg.norm(G, axis=1)
    return G * np.minimum(1.0, C / np.maximum(norms, 1e-300))[:, None]


def _clip_cases():
    """Gradient matrices with long, short and zero rows, including the lab's own (logistic gradients, C = 1)."""
    cases = []
    for seed, (n, D, C) in enumerate([(50, 3, 1.0), (200, 6, 0.5), (7, 2, 3.0)]):
        rng = np.random.default_rng(900 + seed)
        G = rng.standard_normal((n, D)) * rng.exponential(2 * C, (n, 1))
        G[1] = 0.0                              # a zero gradient (a point classified with a huge margin)
        G[2] *= 0.5 * C / np.linalg.norm(G[2])  # a short one, which must stay as it is
        cases.append((G, C))
    cases.append((np.zeros((3, 2)), 1.0))       # only zero rows: nothing to clip, nothing to divide by
    return cases


_ZERO_ROW_HINT = ("\n  Hint: a zero gradient has norm 0, and C/‖g‖ divides by zero there (numpy warns, then gives inf "
                  "or NaN; the checker turns the warning into this error). Keep such rows as they are, e.g. divide "
                  "by max(‖g‖, tiny).")


def _call_clip(fn, G, C, task):
    """The student's ``fn(G, C)`` with numpy's divide/invalid warnings raised, and ``G`` checked unchanged after."""
    before = G.copy()
    with np.errstate(divide="raise", invalid="raise"):
        out = call_student(fn, (G, C), task, hint=_ZERO_ROW_HINT)
    require(np.array_equal(G, before), f"{task}: your function changed the gradients it was given (in place). "
                                      f"Hint: DP-SGD still needs the raw gradients' array; build a new array "
                                      f"(g * factor) instead of writing into the input (g *= factor, out=...).")
    return out


def check_clipping(fn):
    """Task 1: ``fn(gradients, clip_norm)`` clips each row to norm ≤ C, keeping short rows and directions.

    Checks the type and shape; agreement with g·min(1, C/‖g‖) on three matrices (with zero and short rows);
    and, with the student's own function, that replacing one example moves the clipped sum by at most 2C
    on a worst-case pair. Diagnoses batch clipping (one factor for the whole matrix), normalising every
    row to norm C, NaN on zero rows, and clipping each coordinate.
    """
    task = "Task 1 (per-example clipping)"
    require_own_code(fn, ("clip_gradients", "_clip", "clip_per_example", "clip_features", "_clip_scale", "clip_scale"), task)
    for G, C in _clip_cases():
        where = f"with {G.shape[0]} gradients of dimension {G.shape[1]} and C = {C}"
        out = _call_clip(fn, G.copy(), C, task)
        out = require_float_array(out, G.shape, task, where, hint=" Hint: a zero gradient has norm 0; C/‖g‖ "
                                  "divides by zero there. Keep such rows as they are (e.g. divide by max(‖g‖, tiny)).")
        right = _clip_reference(G, C)
        if np.allclose(out, right, rtol=1e-9, atol=1e-12):
            continue
        norms = np.linalg.norm(G, axis=1)
        batch = G * min(1.0, C / np.linalg.norm(G))
        if np.allclose(out, batch, rtol=1e-9, atol=1e-12) or np.allclose(out, G * min(1.0, C * G.shape[0]
                                                                                      / np.linalg.norm(G)),
                                                                         rtol=1e-9, atol=1e-12):
            hint = ("you scaled the whole batch by one factor. DP-SGD clips each example's gradient on its own "
                    "(row by row), so that one example's contribution is bounded whatever the others are")
        elif np.allclose(np.linalg.norm(out[norms > 0], axis=1), C):
            hint = ("every row now has norm exactly C: rows shorter than C must stay unchanged, the factor is "
                    "min(1, C/‖g‖)")
        elif np.allclose(out, np.clip(G, -C, C)):
            hint = ("you clipped each coordinate to [−C, C]: that bounds the L∞ norm, and the Gaussian mechanism "
                    "needs the L2 norm of each row ≤ C")
        else:
            hint = "each row g becomes g·min(1, C/‖g‖₂), with ‖·‖₂ the Euclidean norm of the row"
        raise LabCheckError(f"{task}: {where} your clipped gradients differ from the right ones by "
                            f"{np.abs(out - right).max():.3g}. Hint: {hint}.")
    # The sensitivity the clipping buys: a far example whose label flips, at θ = 0.
    C = 1.0
    g = np.zeros((10, 3))
    g[0] = [10.0, 0.0, 0.5]
    g_flipped = g.copy()
    g_flipped[0] *= -1
    shift = np.linalg.norm(np.asarray(_call_clip(fn, g, C, task), dtype=float).sum(axis=0)
                           - np.asarray(_call_clip(fn, g_flipped, C, task), dtype=float).sum(axis=0))
    require(shift <= 2 * C * (1 + 1e-9), f"{task}: replacing one example moved your clipped sum by {shift:.3g} "
                                         f"> 2C = {2 * C}. Hint: every row must have norm ≤ C after clipping.")
    require_vectorised(fn, (np.random.default_rng(91).standard_normal((VECTORISED_SIZE, 4)), 1.0), task, "rows")
    print(f"Rows clipped to norm ≤ C; replacing one example moves the clipped sum by {shift:.3f} = 2C at most.")
    passed(task)


# --- Task 2: the noise for a budget ---------------------------------------------------------------

#: Inputs tried, including the lab's own final cell (n = 20 000, B = 1000, C = 1, E = 5, ε = 1).
SIGMA_CASES = ((20_000, 1000, 1.0, 5, 1.0, 1e-5), (5000, 50, 0.5, 1, 0.5, 1e-6), (100_000, 4000, 2.0, 20, 4.0, 1e-5))


def _sigma_reference(n, batch, C, E, epsilon, delta):
    return 2 * C * math.sqrt(E / (2 * zcdp_rho(epsilon, delta)))


_SIGMA_BUGS = (
    ("your σ is for sensitivity C, half the right one. Replacing one example removes one clipped gradient and "
     "adds another, which may point the other way: Δ = 2C (C is the add/remove sensitivity)",
     lambda n, B, C, E, e, dl: C * math.sqrt(E / (2 * zcdp_rho(e, dl)))),
    ("you charged every step, not every epoch. Inside an epoch the batches are disjoint, so an example is in "
     "one step only: E compositions, not E·⌊n/B⌋",
     lambda n, B, C, E, e, dl: 2 * C * math.sqrt(E * (n // B) / (2 * zcdp_rho(e, dl)))),
    ("σ is the noise on the *sum* of the clipped gradients (sensitivity 2C); dividing by B gives the noise on "
     "the mean, which is not what the checker asks",
     lambda n, B, C, E, e, dl: 2 * C / B * math.sqrt(E / (2 * zcdp_rho(e, dl)))),
    ("the epochs compose: E Gaussian mechanisms of ρ₀ = Δ²/(2σ²) each give Eρ₀, so σ grows like √E",
     lambda n, B, C, E, e, dl: 2 * C * math.sqrt(1 / (2 * zcdp_rho(e, dl)))),
    ("σ grows like √E, not E: zCDP adds the ρ's, and ρ is quadratic in 1/σ",
     lambda n, B, C, E, e, dl: 2 * C * E * math.sqrt(1 / (2 * zcdp_rho(e, dl)))),
    ("you used ρ = ε²/2 or similar; convert (ε, δ) to ρ with dpteach.dp_erm.zcdp_rho(ε, δ), the ρ with "
     "ρ + 2√(ρ log(1/δ)) = ε",
     lambda n, B, C, E, e, dl: 2 * C * math.sqrt(E / (e ** 2))),
)


def check_dp_sgd_sigma(fn):
    """Task 2: ``fn(n, batch_size, clip_norm, n_epochs, epsilon, delta)`` returns σ on each batch sum (a float).

    Reference (Theorem 9.3, zCDP accountant): σ = 2C·√(E/(2ρ)), ρ = zcdp_rho(ε, δ); independent of n and B.
    Tried on :data:`SIGMA_CASES`; a wrong value is matched against the typical bugs.
    """
    task = "Task 2 (DP-SGD noise)"
    require_own_code(fn, ("dp_sgd_sigma", "_sigma", "dpsas_noise_sigma", "dpsas_noise_sigma_prechecked", "_sigma_zcdp", "dp_erm_sigma"), task)
    check_formula_answers(fn, SIGMA_CASES, _sigma_reference, _SIGMA_BUGS, task, "σ",
                          "Theorem 9.3: each epoch is one Gaussian mechanism per example (disjoint batches); "
                          "compose the epochs in zCDP, match the total to ρ(ε, δ) = zcdp_rho(ε, δ), and take the "
                          "sensitivity of a batch sum under replacing one example (Lemma 9.1).",
                          formula="E·(2C)²/(2σ²) = ρ, i.e. σ = 2C·√(E/(2ρ)).")
    print(f"σ = {_sigma_reference(*SIGMA_CASES[0]):.4f} for C = 1, E = 5, ε = 1, δ = 1e-5 (whatever n and B).")
    passed(task)


# --- Task 3: choosing a learner from the rates ------------------------------------------------------

LEARNER_NAMES = ("improper", "proper", "semi_agnostic")

#: (n, d, degree, alpha, epsilon, need_proper, need_agnostic), including the lab's final cell.
CHOICE_CASES = (
    (10 ** 5, 3, 3, 0.1, 1.0, False, True),
    (10 ** 5, 3, 3, 0.1, 1.0, True, True),
    (2 * 10 ** 6, 3, 4, 0.1, 1.0, True, True),
    (10 ** 5, 50, 3, 0.1, 1.0, False, False),
    (10 ** 5, 50, 3, 0.1, 1.0, False, True),
    (3 * 10 ** 4, 10, 2, 0.05, 0.05, False, False),
    (10 ** 4, 5, 3, 0.2, 4.0, True, False),
    (5000, 3, 3, 0.1, 0.05, False, True),
    (10 ** 4, 10, 2, 0.1, 1.0, False, True),
    (2000, 3, 2, 0.2, 1.0, False, True),
    (2 * 10 ** 6, 3, 4, 0.1, 1.0, False, False),
    # shapes exactly n ("at most n" is feasible): D = C(5, 2) = 10, α = 1/2, ε = 1 give improper 40 + 20 = 60 and
    # proper 60 + 2⁶ + 2⁵ = 156, both exact in floating point
    (60, 3, 2, 0.5, 1.0, False, True),
    (156, 3, 2, 0.5, 1.0, True, True),
    # A sign slip in one exponent of one shape (α^k for α^−k, ε for 1/ε, in one learner or in the part that
    # improper and proper share) changes the choice in at least one of these six (tests/test_lab09.py checks
    # every such slip). Proper wins only when it is required, and semi-agnostic is the smallest whenever it is
    # allowed, so a slip that shrinks their shapes shows only where the right answer is None: the last two.
    (30_000, 3, 2, 0.05, 0.01, False, False),
    (1322, 3, 2, 0.05, 4.0, False, False),
    (892, 10, 2, 0.5, 0.25, False, True),
    (64_804_800, 3, 2, 0.05, 4.0, True, True),
    (130, 3, 2, 0.5, 1.0, True, True),
    (15, 3, 2, 0.5, 1.0, False, False),
)


def _requirements(d, degree, alpha, epsilon):
    D = feature_dimension(d, degree)
    base = D / alpha ** 2 + D / (epsilon * alpha)
    return {"improper": base, "proper": base + alpha ** -6 + 1 / (epsilon * alpha ** 5),
            "semi_agnostic": d / alpha ** 2 + d / (epsilon * alpha)}


def _choice_reference(n, d, degree, alpha, epsilon, need_proper, need_agnostic, requirements=None):
    needed = _requirements(d, degree, alpha, epsilon) if requirements is None else requirements
    allowed = [name for name in LEARNER_NAMES
               if not (need_proper and name == "improper") and not (need_agnostic and name == "semi_agnostic")]
    feasible = [name for name in allowed if needed[name] <= n]
    return min(feasible, key=needed.get) if feasible else None


def _wrong_d_power(d, degree, alpha, epsilon):
    needed = _requirements(d, degree, alpha, epsilon)
    D = d ** degree
    needed["improper"] = D / alpha ** 2 + D / (epsilon * alpha)
    needed["proper"] = needed["improper"] + alpha ** -6 + 1 / (epsilon * alpha ** 5)
    return needed


def _no_privacy_terms(d, degree, alpha, epsilon):
    D = feature_dimension(d, degree)
    return {"improper": D / alpha ** 2, "proper": D / alpha ** 2 + alpha ** -6, "semi_agnostic": d / alpha ** 2}


def _short(value):
    """A student's return value for a message: its repr, cut short (an array can print hundreds of lines)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_choose_learner(fn):
    """Task 3: ``fn(n, d, degree, alpha, epsilon, need_proper, need_agnostic)`` returns a name or None.

    Reference: the Table 1 shapes with constants 1 (improper D_p/α² + D_p/(εα); proper the same plus
    α⁻⁶ + 1/(εα⁵); semi-agnostic d/α² + d/(εα)), D_p = C(d + p, p); keep the learners that meet the
    requirements (a proper output excludes "improper"; an OPT + α guarantee excludes "semi_agnostic") and
    whose shape is ≤ n; return the one with the smallest shape, or None.
    """
    task = "Task 3 (choosing a learner)"
    require_own_code(fn, ("sample_complexity_shape", "hermite_l1_sample_complexity", "proper_sample_complexity_shape",
                          "dpsas_sample_complexity_rate", "_requirements", "_choice_reference"), task)
    for case in CHOICE_CASES:
        out = call_student(fn, case, task)
        # isinstance first: `array in LEARNER_NAMES` compares elementwise and raises instead of reporting.
        if isinstance(out, (np.ndarray, list, tuple)):
            raise LabCheckError(f"{task}: fn{case} returned {_short(out)}, an array or a sequence. Return "
                                f"one name, e.g. \"proper\" (a str), or None when no learner is feasible.")
        require(out is None or (type(out) is str and out in LEARNER_NAMES),
                f"{task}: fn{case} should return one of {LEARNER_NAMES} (a Python str) or None, got "
                f"{_short(out)} of type {type(out).__name__}.")
        right = _choice_reference(*case)
        if out == right:
            continue
        n, d, degree, alpha, epsilon, need_proper, need_agnostic = case
        if need_proper and out == "improper":
            hint = "a proper learner must output a halfspace: Algorithm 6.10's thresholded polynomial is excluded"
        elif need_agnostic and out == "semi_agnostic":
            hint = ("Algorithm 8.9 only promises C·OPT + α; when OPT + α is required it is excluded")
        elif out == _choice_reference(*case[:5], need_proper, need_agnostic,
                                      requirements=_wrong_d_power(d, degree, alpha, epsilon)):
            hint = "D_p counts the monomials of degree ≤ p in d variables: C(d + p, p) (math.comb), not d^p"
        elif out == _choice_reference(*case, requirements=_no_privacy_terms(d, degree, alpha, epsilon)):
            # The same choice also comes from other slips (a wrong D_p, a wrong power of α), so say what it matches.
            hint = (f"your choice is the one the shapes give without their privacy terms (those with ε = {epsilon}), "
                    f"which decide here: each shape is its α-term plus its ε-term (if you kept them, check "
                    f"D_p = C(d + p, p) = {feature_dimension(d, degree)} and the powers of α)")
        elif out is not None and _requirements(d, degree, alpha, epsilon)[out] > n:
            hint = (f"{out} needs about {_requirements(d, degree, alpha, epsilon)[out]:.3g} examples by its Table 1 "
                    f"shape, more than n = {n}: return only feasible learners (None if none is)")
        elif out is None and n in _requirements(d, degree, alpha, epsilon).values():
            hint = "a learner's shape is exactly n here, and the task says at most n: use <= n, not < n"
        elif out is None:
            hint = (f"at least one allowed learner is feasible here (its shape ≤ n = {n}): compare each shape with "
                    f"n again, checking the sign of every power of α and ε")
        else:
            hint = ("another feasible learner has a smaller shape: return the smallest (check the sign of every "
                    "power of α and ε in each shape)")
        # The right choice itself is not printed: the cases are fixed, so printing it would hand out a table.
        raise LabCheckError(f"{task}: fn{case} returned {out!r}, which is not the right choice. Hint: {hint}.")
    print(f"All {len(CHOICE_CASES)} settings chosen as the Table 1 shapes say.")
    passed(task)


# --- shared by tasks 5 and 6: a σ checked against its reference, named bugs, then the privacy it buys ------

def _check_sigma(fn, cases, reference, bugs, task, privacy_report, pointer, formula):
    """``fn(*case)`` must equal ``reference(*case)`` (rtol 1e-6); else a named bug, else what privacy it buys.

    A bug whose value is 0 or equal to the reference at a case (e.g. a single phase) is skipped there.
    """
    for case in cases:
        right = reference(*case)  # before the call, which gets copies: an answer that edits its input changes nothing
        copies = tuple(list(c) if isinstance(c, list) else c.copy() if isinstance(c, np.ndarray) else c for c in case)
        out = require_real(call_student(fn, copies, task), task, f"fn{_shown(case)}")
        if abs(out / right - 1) <= 1e-6:
            continue
        for hint, bug in bugs:
            value = bug(*case)
            if value > 0 and abs(value / right - 1) > 1e-6 and abs(out / value - 1) <= 1e-6:
                raise LabCheckError(f"{task}: fn{_shown(case)} returned {out:.5g}, the right σ is {right:.5g}. "
                                    f"Hint: {hint}.")
        raise LabCheckError(f"{task}: fn{_shown(case)} returned {out:.5g}, the right σ is {right:.5g}. "
                            f"{privacy_report(out, case)} Hint: {teaching_hint(task, pointer, formula)}")


def _shown(case):
    return "(" + ", ".join(repr(tuple(float(v) for v in c)) if isinstance(c, (list, tuple, np.ndarray)) else repr(c)
                           for c in case) + ")"


# --- Task 5: clip the rows, not the gradients ------------------------------------------------------------

def _row_clip_sensitivity(R):
    """Δ of a batch sum: the supremum 2√(R² + 1) for R > 0; exactly 1 at R = 0.

    ‖∇ℓ‖ = σ(−y(⟨w,x⟩+b))·‖(x, 1)‖ < √(R² + 1) at every θ, and replace-one approaches twice that with two
    different rows of norm R. At R = 0 every row is 0 and ∇ℓ = −y·σ(−yb)·(0, 1): a label flip moves the sum by
    σ(b) + σ(−b) = 1 at every θ (theory review ch09-A N3), so the smallest σ is half the general formula's.
    """
    return 1.0 if R == 0 else 2 * math.sqrt(R ** 2 + 1)


def _row_clip_reference(R, E, epsilon, delta):
    # Δ at every θ (above), E epochs in zCDP
    return _row_clip_sensitivity(R) * math.sqrt(E / (2 * zcdp_rho(epsilon, delta)))


def _row_clip_cases():
    rng = np.random.default_rng(9500)
    cases = [(2 * math.sqrt(3), 5, 1.0, 1e-5), (1.0, 1, 0.5, 1e-6), (0.0, 3, 2.0, 1e-5)]
    for _ in range(3):
        cases.append((float(rng.uniform(0.2, 8.0)), int(rng.integers(1, 40)), float(rng.choice([0.3, 1.0, 4.0])),
                      float(rng.choice([1e-5, 1e-7]))))
    return tuple(cases)


def _zcdp_sigma(sensitivity, E, epsilon, delta):
    return sensitivity * math.sqrt(E / (2 * zcdp_rho(epsilon, delta)))


_ROW_CLIP_BUGS = (
    ("your σ is valid but larger than needed at R = 0: every clipped row is then 0, the gradient is "
     "−y·σ(−yb)·(0, 1), and replacing (0, +1) by (0, −1) moves a batch sum by σ(b) + σ(−b) = 1 at every θ, not 2 "
     "(the supremum 2√(R² + 1) needs two different rows, so R > 0)",
     lambda R, E, e, dl: _zcdp_sigma(2.0, E, e, dl) if R == 0 else 0.0),
    ("you left out the intercept: θ = (w, b), and one example's gradient points along (x, 1), whose norm is not ‖x‖",
     lambda R, E, e, dl: _zcdp_sigma(2 * R, E, e, dl)),
    ("your σ is valid but larger than needed: ‖(x, 1)‖ ≤ ‖x‖ + 1 is the triangle inequality, and the two parts "
     "of (x, 0) + (0, 1) are orthogonal, so Pythagoras gives the smallest bound",
     lambda R, E, e, dl: _zcdp_sigma(2 * (R + 1), E, e, dl)),
    ("your σ is half the right one. Either you bounded the logistic factor σ(−y(⟨w, x⟩ + b)) by 1/2, its value "
     "at θ = 0 only (θ moves during training, and the factor tends to 1 on a badly classified point), or you "
     "used the add/remove sensitivity: replacing an example removes one gradient and adds another",
     lambda R, E, e, dl: _zcdp_sigma(math.sqrt(R ** 2 + 1), E, e, dl)),
    ("1/4 bounds σ(z)(1 − σ(z)), the loss's second derivative; the gradient carries the factor σ(−y z) itself, "
     "which is below 1 but not below 1/4",
     lambda R, E, e, dl: _zcdp_sigma(math.sqrt(R ** 2 + 1) / 2, E, e, dl)),
    ("the E epochs compose: each is one Gaussian mechanism for every example (disjoint batches), and their zCDP "
     "costs add, so σ grows like √E",
     lambda R, E, e, dl: _zcdp_sigma(2 * math.sqrt(R ** 2 + 1), 1, e, dl)),
    ("σ grows like √E, not E: zCDP adds the ρ's, and ρ is quadratic in 1/σ",
     lambda R, E, e, dl: E * _zcdp_sigma(2 * math.sqrt(R ** 2 + 1), 1, e, dl)),
    ("that is the exact (Gaussian-DP) calibration gaussian_sigma(Δ√E, ε, δ); this task asks for the zCDP "
     "accountant: the E epochs' zCDP costs must add up to zcdp_rho(ε, δ)",
     lambda R, E, e, dl: gaussian_sigma(2 * math.sqrt(R ** 2 + 1) * math.sqrt(E), e, dl)),
    ("convert (ε, δ) to ρ with zcdp_rho(ε, δ) (ρ + 2√(ρ ln(1/δ)) = ε), not ρ = ε²/2",
     lambda R, E, e, dl: 2 * math.sqrt(R ** 2 + 1) * math.sqrt(E) / e),
)


def check_row_clip_sigma(fn):
    """Task 5: ``fn(row_norm, n_epochs, epsilon, delta)`` returns σ of DP-SGD on rows clipped to ‖x‖ ≤ R (a float).

    No gradient is clipped: the logistic gradient −y·σ(−y(⟨w, x⟩ + b))·(x, 1) has norm below √(R² + 1) at
    every θ, so replacing one example moves a batch sum by less than 2√(R² + 1), and this supremum is
    approached (large ‖w‖, two nearly equal rows with opposite labels); at R = 0 every row is 0 and Δ = 1
    exactly (a label flip moves the intercept's gradient by σ(b) + σ(−b) = 1). The property checked: with the
    student's σ, E epochs spend exactly ρ = zcdp_rho(ε, δ) for that sensitivity. Tried on the lab's
    setting (R = 2√3), R = 0 and 1, and inputs drawn here; typical bugs named.
    """
    task = "Task 5 (row clipping σ)"
    require_own_code(fn, ("dp_sgd_sigma", "_sigma", "dpsas_noise_sigma", "dpsas_noise_sigma_prechecked", "_sigma_zcdp", "gradient_sum_sensitivity", "_calibration"), task)

    def report(out, case):
        R, E, e, dl = case
        spent = E * _row_clip_sensitivity(R) ** 2 / (2 * out ** 2) if out > 0 else math.inf
        budget = zcdp_rho(e, dl)
        return (f"With your σ the worst-case pair of neighbours costs ρ = {spent:.4g} over the E = {E} epochs, against "
                f"the budget {budget:.4g}: " + ("not (ε, δ)-DP." if spent > budget else "more noise than needed."))

    _check_sigma(fn, _row_clip_cases(), _row_clip_reference, _ROW_CLIP_BUGS, task, report,
                 "bound the norm of one example's logistic gradient (Eq. 9.1's formula) over every θ that training "
                 "may reach and every row of norm ≤ R; replacing an example changes a batch sum by a difference of "
                 "two such gradients; then compose the E epochs in zCDP as in Theorem 9.3.",
                 "‖−yσ(·)(x, 1)‖ < √(R² + 1), so Δ = 2√(R² + 1) (Δ = 1 at R = 0, where every row is 0) and "
                 "σ = Δ·√(E/(2ρ)) with ρ = zcdp_rho(ε, δ).")
    print(f"σ = {_row_clip_reference(2 * math.sqrt(3), 5, 1.0, 1e-5):.4f} for rows clipped to 2√3, E = 5, ε = 1, "
          f"δ = 1e-5 (gradients clipped to C = 1: {_sigma_reference(1, 1, 1.0, 5, 1.0, 1e-5):.4f}).")
    passed(task)


# --- Task 6: a clip-norm schedule, exact (Gaussian-DP) accountant ---------------------------------------

def _schedule_mu_times_sigma(clip_norms, n_epochs):
    """√(Σ_e Δ_e²) over all epochs (Δ = 2C of the phase): the GDP μ of the composition, times σ."""
    return 2 * math.sqrt(sum(E * C ** 2 for C, E in zip(clip_norms, n_epochs)))


def _schedule_reference(clip_norms, n_epochs, epsilon, delta):
    return gaussian_sigma(_schedule_mu_times_sigma(clip_norms, n_epochs), epsilon, delta)


def _gdp_delta(mu, epsilon):
    """δ(ε) of a μ-GDP mechanism (Dong, Roth & Su 2022): Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)."""
    def phi(x):
        return 0.5 * math.erfc(-x / math.sqrt(2))
    return phi(-epsilon / mu + mu / 2) - math.exp(epsilon) * phi(-epsilon / mu - mu / 2)


def _schedule_cases():
    """Phases (clip norms, epochs) as lists, tuples and arrays; a single phase, a phase of 0 epochs; random ones."""
    rng = np.random.default_rng(9600)
    cases = [([4.0, 1.0], [1, 4], 1.0, 1e-5), ((0.5, 2.0, 1.0), (3, 2, 5), 0.5, 1e-6),
             (np.array([2.0, 1.0]), np.array([0, 3]), 2.0, 1e-5), ([1.0], [5], 1.0, 1e-5)]
    for _ in range(2):
        k = int(rng.integers(2, 5))
        cases.append((list(np.round(rng.uniform(0.2, 5.0, k), 3)), [int(v) for v in rng.integers(1, 10, k)],
                      float(rng.choice([0.3, 1.0, 4.0])), float(rng.choice([1e-5, 1e-7]))))
    return tuple(cases)


def _phases(clip_norms, n_epochs):
    return [float(c) for c in clip_norms], [int(e) for e in n_epochs]


_SCHEDULE_BUGS = (
    ("your σ is valid but larger than needed: an epoch with a smaller clip norm has a smaller sensitivity and costs "
     "less privacy, so weigh each epoch by its own clip norm instead of the largest one",
     lambda C, E, e, dl: gaussian_sigma(2 * max(_phases(C, E)[0]) * math.sqrt(sum(_phases(C, E)[1])), e, dl)),
    ("Gaussian-DP composes in quadrature, μ = √(Σ μ_e²), not by adding the μ's (or the per-phase √E_j·2C_j)",
     lambda C, E, e, dl: gaussian_sigma(2 * sum(c * math.sqrt(k) for c, k in zip(*_phases(C, E))), e, dl)),
    ("square the clip norms: an epoch's μ is Δ/σ = 2C/σ, and it is μ² that adds over epochs",
     lambda C, E, e, dl: gaussian_sigma(2 * math.sqrt(sum(c * k for c, k in zip(*_phases(C, E)))), e, dl)),
    ("every phase reads every example, so all the phases compose: you calibrated for one phase only",
     lambda C, E, e, dl: max(gaussian_sigma(2 * c * math.sqrt(k), e, dl) for c, k in zip(*_phases(C, E)) if k > 0)),
    ("that is the zCDP accountant; this task asks for the exact one: the composition of Gaussian mechanisms is "
     "one Gaussian mechanism (Gaussian DP, the proof of Theorem 9.3), calibrated with gaussian_sigma",
     lambda C, E, e, dl: _schedule_mu_times_sigma(C, E) / math.sqrt(2 * zcdp_rho(e, dl))),
    ("your σ is half the right one: under replace-one the sensitivity of a batch sum is 2C, not C (Lemma 9.1)",
     lambda C, E, e, dl: gaussian_sigma(_schedule_mu_times_sigma(C, E) / 2, e, dl)),
)


def check_clip_schedule_sigma(fn):
    """Task 6: ``fn(clip_norms, n_epochs, epsilon, delta)`` returns one σ for DP-SGD with phases of clip norms.

    Phase j runs ``n_epochs[j]`` epochs with clip norm ``clip_norms[j]``, all with the same σ. Each epoch
    is, for every example, one Gaussian mechanism of sensitivity 2C_j, i.e. (2C_j/σ)-GDP; the composition is
    μ-GDP with μ = 2√(Σ_j E_j C_j²)/σ, exactly as private as one Gaussian mechanism of that sensitivity, so
    the smallest σ is ``gaussian_sigma(2√(Σ E_j C_j²), ε, δ)``. The property checked: the δ(ε) of the
    student's μ-GDP composition equals δ. Inputs: lists, tuples and arrays, a single phase, a phase of
    zero epochs, and random schedules drawn here.
    """
    task = "Task 6 (clip schedule σ)"
    require_own_code(fn, ("dp_sgd_sigma", "_sigma", "dpsas_noise_sigma", "dpsas_noise_sigma_prechecked", "_sigma_exact", "_calibration", "gradient_sum_sensitivity"), task)

    def report(out, case):
        C, E, e, dl = case
        mu = _schedule_mu_times_sigma(*_phases(C, E)) / out if out > 0 else math.inf
        achieved = _gdp_delta(mu, e) if math.isfinite(mu) else 1.0
        return (f"With your σ the whole run is μ-GDP with μ = {mu:.4g}, whose δ at ε = {e} is {achieved:.3g} against "
                f"δ = {dl:g}: " + ("not (ε, δ)-DP." if achieved > dl else "more noise than needed."))

    _check_sigma(fn, _schedule_cases(), _schedule_reference, _SCHEDULE_BUGS, task, report,
                 "each epoch is, for the changed example, one Gaussian mechanism with the sensitivity of its phase "
                 "(Lemma 9.1); compose all the epochs as the exact accountant of Theorem 9.3 does (Gaussian DP) and "
                 "find the one Gaussian mechanism the composition equals.",
                 "μ² = Σ_j E_j (2C_j)²/σ², so σ = gaussian_sigma(2√(Σ_j E_j C_j²), ε, δ).")
    print(f"σ = {_schedule_reference([4.0, 1.0], [1, 4], 1.0, 1e-5):.4f} for 1 epoch at C = 4 then 4 at C = 1 "
          f"(5 epochs at C = 4: {_schedule_reference([4.0], [5], 1.0, 1e-5):.4f}).")
    passed(task)
