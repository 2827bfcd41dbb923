"""Checkers for Lab 9, "Table 1 in practice" (book/labs/lab09_table1.ipynb, chapter 9).

The tasks and their checkers:

1. :func:`check_clipping` — ``fn(gradients, clip_norm)``: per-example clipping, and the sensitivity 2C of the
   clipped sum it buys (Lemma 9.1);
2. :func:`check_dp_sgd_sigma` — ``fn(n, batch_size, clip_norm, n_epochs, epsilon, delta)``: the zCDP calibration
   of DP-SGD's noise for a budget (Theorem 9.3);
3. :func:`check_choose_learner` — ``fn(n, d, degree, alpha, epsilon, need_proper, need_agnostic)``: the Table 1
   learner with the smallest shape sample size that meets the requirements, or None.

Each checker computes its reference *here* (closed forms; ``dpteach.dp_erm.zcdp_rho``, which the students may
call, for task 2), tries the inputs the lab itself uses, and names the likely bug of a wrong answer.
"""

from __future__ import annotations

import math

import numpy as np

from ..dp_erm import zcdp_rho
from . import LabCheckError, call_student, passed, require, require_own_code
from .checking import check_formula_answers

__all__ = ["check_clipping", "check_dp_sgd_sigma", "check_choose_learner"]


def _is_number(x):
    try:
        return np.ndim(x) == 0 and not isinstance(x, (str, bytes, bool)) and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


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
    require_own_code(fn, ("clip_gradients", "_clip", "clip_features", "_clip_scale"), task)
    for G, C in _clip_cases():
        where = f"with {G.shape[0]} gradients of dimension {G.shape[1]} and C = {C}"
        out = _call_clip(fn, G.copy(), C, task)
        require(isinstance(out, np.ndarray) and out.shape == G.shape and np.issubdtype(out.dtype, np.number),
                f"{task}: {where} your function should return a numpy array of shape {G.shape}, got "
                f"{type(out).__name__} {getattr(out, 'shape', '')}.")
        out = out.astype(float)
        if not np.all(np.isfinite(out)):
            raise LabCheckError(f"{task}: {where} your result has NaN or inf entries. Hint: a zero gradient "
                                f"has norm 0; C/‖g‖ divides by zero there. Keep such rows as they are "
                                f"(e.g. divide by max(‖g‖, tiny)).")
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
    require_own_code(fn, ("dp_sgd_sigma", "_sigma", "_sigma_zcdp", "dp_erm_sigma"), task)
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
)


def _requirements(d, degree, alpha, epsilon):
    D = math.comb(d + degree, degree)
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
    D = math.comb(d + degree, degree)
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
                    f"D_p = C(d + p, p) = {math.comb(d + degree, degree)} and the powers of α)")
        elif out is not None and _requirements(d, degree, alpha, epsilon)[out] > n:
            hint = (f"{out} needs about {_requirements(d, degree, alpha, epsilon)[out]:.3g} examples by its Table 1 "
                    f"shape, more than n = {n}: return only feasible learners (None if none is)")
        elif out is None and _requirements(d, degree, alpha, epsilon)[right] == n:
            hint = (f"{right}'s shape is exactly n = {n}, and the task says at most n: use <= n, not < n")
        elif out is None:
            hint = (f"{right} is feasible: its shape {_requirements(d, degree, alpha, epsilon)[right]:.3g} ≤ n = {n}")
        else:
            hint = "among the feasible learners, return the one whose shape sample size is smallest"
        raise LabCheckError(f"{task}: fn{case} returned {out!r}, the right choice is {right!r}. Hint: {hint}.")
    print(f"All {len(CHOICE_CASES)} settings chosen as the Table 1 shapes say.")
    passed(task)
