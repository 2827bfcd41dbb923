"""Checkers for the two derivation tasks of Lab 5 (re-exported by :mod:`dpteach.labs.lab05`).

Neither answer is printed in chapter 5; the student derives it from what the chapter proves.

4. :func:`check_norm_clipped_step` — ``fn(X, y, beta, step_size, clip_norm)`` →
   ``(v, sensitivity)``: a variant of the private LASSO's step in which each
   record's gradient x_i r_i is clipped to ℓ2 norm C (the residuals are not
   clipped), and the smallest ℓ∞ sensitivity of v under replace-one neighbours
   with features in [−1, 1]^d. The sensitivity is checked by its defining
   property: it must bound the change on every pair of neighbouring blocks
   the checker builds, and a pair it builds attains it.
5. :func:`check_support_scale` — ``fn(s, epsilon, delta, sensitivity)`` → ``b``:
   the smallest Laplace scale for a variant of Peeling that releases only the
   support S (the s selection rounds, no values), certified (ε, δ)-DP by the
   composition bounds of the proof of Theorem 5.3 (basic, or the heterogeneous
   advanced bound with all of δ in its tail). Checked by its property: at the
   answer the certified ε' is <= ε, and no smaller scale certifies ε.

Their hints name the typical mistakes; a wrong answer that no named mistake
explains gets a pointer first and the formula only after repeated tries
(:func:`dpteach.labs.checking.teaching_hint`).
"""

from __future__ import annotations

import math

import numpy as np

from .checking import (LabCheckError, call_student, passed, require, require_own_code, require_real,
                       teaching_hint)

__all__ = ["check_norm_clipped_step", "check_support_scale"]


# --- Task 4: per-record l2 clipping of the gradient ----------------------------------------------------

def _clipped_gradients(X, y, beta, clip_norm, how="l2"):
    gradients = X * (X @ beta - y)[:, None]
    if how == "none":
        return gradients
    if how == "coordinates":
        return np.clip(gradients, -clip_norm, clip_norm)
    norms = np.linalg.norm(gradients, axis=1)
    with np.errstate(divide="ignore"):
        factor = np.where(norms > 0, clip_norm / norms, 1.0)
    if how == "normalised":
        return gradients * factor[:, None]
    return gradients * np.minimum(1.0, factor)[:, None]


def _norm_step(X, y, beta, step_size, clip_norm, how="l2", mean=True):
    if how == "residual":
        residual = np.clip(X @ beta - y, -clip_norm, clip_norm)
        total = X.T @ residual
    elif how == "mean_then_clip":
        mean_gradient = _clipped_gradients(X, y, beta, clip_norm, "none").mean(axis=0)
        norm = np.linalg.norm(mean_gradient)
        return beta - step_size * mean_gradient * min(1.0, clip_norm / norm if norm > 0 else 1.0)
    else:
        total = _clipped_gradients(X, y, beta, clip_norm, how).sum(axis=0)
    return beta - (step_size / X.shape[0] if mean else step_size) * total


_NORM_STEP_BUGS = (
    ("you clipped each coordinate of x_i r_i to [−C, C]; the variant clips the whole vector to ℓ2 norm C "
     "(scale it by min(1, C/‖x_i r_i‖₂))", dict(how="coordinates")),
    ("you clipped the residual r_i to [−C, C], as the chapter's step does; this variant leaves r_i alone and "
     "clips the vector x_i r_i to ℓ2 norm C", dict(how="residual")),
    ("no clipping: without it one record can move the step without bound", dict(how="none")),
    ("you rescaled every gradient to norm C, also those already shorter: the factor is min(1, C/‖x_i r_i‖₂)",
     dict(how="normalised")),
    ("you clipped the mean gradient; clip each record's gradient x_i r_i first, then average: only then does one "
     "record's influence stay bounded", dict(how="mean_then_clip")),
    ("a sum instead of a mean: the step is β − (η/m)·Σ g_i, divide by the block size m", dict(mean=False)),
)

#: (m, d, η, C) of the neighbour pairs: η ≠ 1 and d > 1, so that a forgotten η or a √d is visible.
NORM_STEP_SETTINGS = ((15, 5, 0.7, 1.3), (40, 9, 1.5, 0.4))
_PAIRS = 60


def _norm_sensitivity_hint(lam, m, d, eta, C, task):
    named = ((eta * C / m, "one record's term is replaced by another's: the change is (η/m)(g_i − g'_i), and "
                           "both terms can be as large as C, with opposite signs"),
             (2 * eta * C / (m * math.sqrt(d)), "that bound holds only for features in {−1, +1}^d; here a record "
                                                "may be any x in [−1, 1]^d, e.g. a unit vector, which puts its whole "
                                                "norm C in one coordinate"),
             (2 * eta * C * math.sqrt(d) / m, "valid but not the smallest: |g_j| <= ‖g‖₂ for every coordinate j, "
                                              "so no factor √d is needed"),
             (4 * eta * C / m, "twice too large: the two records' terms differ by at most ‖g_i‖ + ‖g'_i‖"),
             (2 * C / m, "the step size η multiplies the gradient, so it multiplies the sensitivity"),
             (2 * eta * C, "one record is one of m terms of the mean: divide by m"))
    for value, hint in named:
        if math.isclose(lam, value, rel_tol=1e-9):
            return hint + "."
    return teaching_hint(task, "Bound one coordinate of (η/m)(g_i − g'_i) using only ‖g_i‖₂ <= C and "
                               "‖g'_i‖₂ <= C, then ask which pair of records attains the bound.",
                         "λ = 2ηC/m (attained by x = x' = e_j with residuals of opposite signs).")


def _neighbours(rng, m, d, k):
    """A block and a neighbour that differs in one row; every other pair is built to attain the bound."""
    X = rng.uniform(-1, 1, size=(m, d))
    y = rng.normal(0, 3, size=m)
    X2, y2 = X.copy(), y.copy()
    i = int(rng.integers(m))
    if k % 2:  # x = x' = e_j, residuals of opposite signs and large: g = C e_j, g' = −C e_j
        j = int(rng.integers(d))
        X[i] = X2[i] = np.eye(d)[j]
        y[i], y2[i] = -1e3, 1e3
    else:
        X2[i], y2[i] = rng.uniform(-1, 1, size=d), rng.normal(0, 30)
    return X, y, X2, y2


def _step_output(out, d, task):
    require(isinstance(out, tuple) and len(out) == 2,
            f"{task}: return a tuple (v, sensitivity), got {type(out).__name__}.")
    v, sensitivity = out
    try:
        v = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise LabCheckError(f"{task}: v must be an array of numbers, got {type(out[0]).__name__}.") from None
    require(v.shape == (d,), f"{task}: v must have shape ({d},) (one entry per feature), got {v.shape}.")
    return v, require_real(sensitivity, task, "the sensitivity (second element of the tuple)")


def check_norm_clipped_step(fn):
    """Task 4: ``fn(X, y, beta, step_size, clip_norm)`` → ``(v, sensitivity)``: the ℓ2-clipped step and its λ.

    ``v`` must equal β − (η/m)·Σ_i g_i with g_i = x_i r_i·min(1, C/‖x_i r_i‖₂), r_i = x_iᵀβ − y_i, on four
    blocks (d = 1 among them) where C is the median gradient norm, so that some gradients are clipped and some
    are not (to 1e-9). Then, at the two settings of :data:`NORM_STEP_SETTINGS`, ``sensitivity`` must bound
    ‖v(D) − v(D')‖∞ on 60 replace-one neighbour pairs with features in [−1, 1]^d (valid), must not depend on
    the data, and must not exceed the largest change observed (smallest): every other pair is built to attain
    2ηC/m (x = x' = e_j, residuals ±1000), so only the exact bound passes both.
    """
    task = "Task 4 (ℓ2-clipped step)"
    require_own_code(fn, ("lasso_gradient_step", "dp_lasso_sensitivity", "_gradient_step", "gradient_step", "DPLasso",
                          "clip_gradients", "clip_factor"), task)
    rng = np.random.default_rng(54)
    for m, d, eta in ((20, 6, 1.0), (50, 10, 0.5), (7, 3, 0.8), (12, 1, 1.3)):
        X = rng.uniform(-1, 1, size=(m, d))
        X[0] = 0.0  # a zero gradient must stay zero (no division by 0)
        y = rng.normal(0, 3, size=m)
        beta = rng.normal(0, 1, size=d)
        clip_norm = float(np.round(np.median(np.linalg.norm(_clipped_gradients(X, y, beta, 0, "none"), axis=1)), 3))
        v, _ = _step_output(call_student(fn, (X.copy(), y.copy(), beta.copy(), eta, clip_norm), task), d, task)
        want = _norm_step(X, y, beta, eta, clip_norm)
        if not np.allclose(v, want, rtol=1e-9, atol=1e-9):
            for hint, options in _NORM_STEP_BUGS:
                if np.allclose(v, _norm_step(X, y, beta, eta, clip_norm, **options), rtol=1e-9, atol=1e-9):
                    raise LabCheckError(f"{task}: your step v differs from the ℓ2-clipped step (m = {m}, d = {d}, "
                                        f"η = {eta}, C = {clip_norm}). Hint: {hint}.")
            raise LabCheckError(f"{task}: your step v differs from β − (η/m)·Σ clip_C(x_i r_i) by up to "
                                f"{np.max(np.abs(v - want)):.3g} (m = {m}, d = {d}, η = {eta}, C = {clip_norm}). "
                                f"Hint: r_i = x_iᵀβ − y_i (not clipped); clip_C(g) = g·min(1, C/‖g‖₂).")

    report = []
    for m, d, eta, C in NORM_STEP_SETTINGS:
        worst, claimed = 0.0, None
        for k in range(_PAIRS):
            X, y, X2, y2 = _neighbours(rng, m, d, k)
            beta = rng.normal(0, 1, size=d)
            v1, lam1 = _step_output(call_student(fn, (X, y, beta, eta, C), task), d, task)
            v2, lam2 = _step_output(call_student(fn, (X2, y2, beta, eta, C), task), d, task)
            require(lam1 == lam2 and (claimed is None or lam1 == claimed),
                    f"{task}: your sensitivity changes with the data ({lam1:.6g}, {lam2:.6g}"
                    f"{'' if claimed is None else f', {claimed:.6g}'}). Hint: λ must bound the change for *every* "
                    f"pair of neighbouring blocks, so it may depend on m, η and C only, never on the records.")
            claimed = lam1
            worst = max(worst, float(np.max(np.abs(v1 - v2))))
            if worst > claimed * (1 + 1e-9):
                raise LabCheckError(f"{task}: with m = {m}, d = {d}, η = {eta}, C = {C}, a pair of neighbouring "
                                    f"blocks (features in [−1, 1]^d) moves v by ‖v(D) − v(D')‖∞ = {worst:.6g}, more "
                                    f"than your sensitivity {claimed:.6g}, so Peeling would be calibrated too "
                                    f"small. Hint: {_norm_sensitivity_hint(claimed, m, d, eta, C, task)}")
        if claimed > worst * (1 + 1e-6):
            raise LabCheckError(f"{task}: with m = {m}, d = {d}, η = {eta}, C = {C} your sensitivity {claimed:.6g} "
                                f"holds, but the largest change over {_PAIRS} neighbour pairs (some built to be as "
                                f"large as possible) is {worst:.6g}: a larger λ costs noise for nothing. Hint: "
                                f"{_norm_sensitivity_hint(claimed, m, d, eta, C, task)}")
        report.append(f"λ = {claimed:.4g} at (m, η, C) = ({m}, {eta}, {C})")
    print(f"v matches the ℓ2-clipped step on 4 blocks; {'; '.join(report)}: bounds every neighbour pair, and a pair "
          f"attains it.")
    passed(task)


# --- Task 5: calibrating Peeling's support-only variant --------------------------------------------------

def _advanced(epsilon_round, s, delta):
    # The heterogeneous advanced bound of the proof of Theorem 5.3 for s pure steps of epsilon_round each.
    return math.sqrt(2 * s * math.log(1 / delta)) * epsilon_round + s * epsilon_round * math.expm1(epsilon_round)


def _with_release(epsilon_round, s, delta):
    # Full Peeling (s rounds at ε_r and s released values at ε_r/2), the chapter's accounting: the wrong task.
    half = epsilon_round / 2
    return (math.sqrt(2 * math.log(1 / delta) * 1.25 * s * epsilon_round ** 2)
            + s * epsilon_round * math.expm1(epsilon_round) + s * half * math.expm1(half))


def _largest_round(bound, epsilon, s, delta):
    """The largest ε_r with bound(ε_r, s, δ) <= ε, by bisection (the bound increases in ε_r)."""
    low, high = 0.0, epsilon
    for _ in range(200):
        middle = (low + high) / 2
        if bound(middle, s, delta) <= epsilon:
            low = middle
        else:
            high = middle
    return low


def _certified(b, s, delta, lam):
    """The ε that the composition bounds certify for the s selection rounds at Laplace scale b."""
    epsilon_round = 2 * lam / b
    return min(s * epsilon_round, _advanced(epsilon_round, s, delta))


def _support_scale(s, epsilon, delta, lam):
    epsilon_round = max(epsilon / s, _largest_round(_advanced, epsilon, s, delta))
    return 2 * lam / epsilon_round


def _support_variant(name, s, epsilon, delta, lam):
    if name == "printed":
        return lam * 2 * math.sqrt(3 * s * math.log(1 / delta)) / epsilon
    if name == "no_two":
        return _support_scale(s, epsilon, delta, lam) / 2
    if name == "first_order":
        return 2 * lam * math.sqrt(2 * s * math.log(1 / delta)) / epsilon
    if name == "first_order_or_basic":
        return 2 * lam / max(epsilon / s, epsilon / math.sqrt(2 * s * math.log(1 / delta)))
    if name == "basic_only":
        return 2 * lam * s / epsilon
    if name == "advanced_only":
        return 2 * lam / _largest_round(_advanced, epsilon, s, delta)
    if name == "with_release":
        return 2 * lam / max(epsilon / (1.5 * s), _largest_round(_with_release, epsilon, s, delta))
    raise ValueError(name)


_SUPPORT_HINTS = (
    ("printed", "that is Peeling's printed scale, made for the full algorithm (with its released values) and "
                "with a rounded constant; this variant has only the s selection rounds: calibrate them exactly"),
    ("no_two", "a round is report-noisy-max on the scores |v_j|, which can move by λ in either direction: "
               "with Lap(b) noise it is (2λ/b)-DP (Theorem 1.24), not (λ/b)-DP"),
    ("first_order", "you kept only the first-order term √(2s ln(1/δ))·ε_r of the advanced bound; its "
                    "second-order term s·ε_r(e^{ε_r} − 1) counts too"),
    ("first_order_or_basic", "you kept only the first-order term √(2s ln(1/δ))·ε_r of the advanced bound; its "
                             "second-order term s·ε_r(e^{ε_r} − 1) counts too"),
    ("basic_only", "basic composition alone is valid, but here the advanced bound certifies (ε, δ) with less "
                   "noise: use whichever of the two bounds is smaller"),
    ("advanced_only", "the advanced bound alone is valid, but here basic composition s·ε_r is smaller (few rounds "
                      "or a large ε): use whichever of the two bounds is smaller"),
    ("with_release", "you counted the s released values as well; this variant releases only the support S, so "
                     "only the s selection rounds compose"),
)

_SUPPORT_FORMULA = ("b = 2λ/ε_r with ε_r = max(ε/s, the root of √(2s ln(1/δ))·x + s·x(e^x − 1) = ε), found by "
                    "bisection on [0, ε].")


def _support_cases():
    """(s, ε, δ, λ): four fixed edge cases (basic or advanced smaller, second-order term large) and four random."""
    rng = np.random.default_rng(55)
    cases = [(1, 1.0, 1e-5, 1.0), (10, 0.5, 1e-6, 0.2), (40, 4.0, 1e-3, 1.0), (3, 8.0, 1e-2, 2.0)]
    for _ in range(4):
        cases.append((int(rng.integers(2, 61)), float(10 ** rng.uniform(-1, 0.9)), float(10 ** rng.uniform(-9, -2)),
                      float(10 ** rng.uniform(-2, 0.7))))
    return tuple(cases)


SUPPORT_CASES = _support_cases()


def check_support_scale(fn):
    """Task 5: ``fn(s, epsilon, delta, sensitivity)`` → the smallest scale b that certifies support-only Peeling.

    At each (s, ε, δ, λ) of :data:`SUPPORT_CASES` (four fixed: basic smaller, advanced smaller, a large
    second-order term, large ε; four drawn at random), the answer must be a positive number b at which the
    s selection rounds, each (2λ/b)-DP, are certified (ε, δ)-DP by the smaller of basic composition s·ε_r and
    the advanced bound √(2s ln(1/δ))·ε_r + s·ε_r(e^{ε_r} − 1) (ε' <= ε up to 1e-9: private), and no scale
    1e-6 smaller may be (smallest). The typical mistakes are named by the formula they match at every case.
    """
    task = "Task 5 (support-only Peeling)"
    require_own_code(fn, ("peel", "peeling_epsilon", "peeling_noise_scale", "_noise_scale", "peeling_noise_scale_prechecked", "_certified_epsilon",
                          "paper_epsilon_round", "_accountant_epsilon_round", "_pld_epsilon_round"), task)
    answers = []
    for case in SUPPORT_CASES:
        b = require_real(call_student(fn, case, task), task, f"fn{case}")
        require(b > 0, f"{task}: fn{case} returned {b:.6g}; a Laplace scale is positive.")
        answers.append(b)
    for (s, epsilon, delta, lam), b in zip(SUPPORT_CASES, answers):
        right = _support_scale(s, epsilon, delta, lam)
        certified = _certified(b, s, delta, lam)
        private = certified <= epsilon * (1 + 1e-9)
        smallest = b <= right * (1 + 1e-6)
        if private and smallest:
            continue
        hint = None
        for name, text in _SUPPORT_HINTS:
            if all(math.isclose(a, _support_variant(name, *c), rel_tol=1e-6) for a, c in zip(answers, SUPPORT_CASES)):
                hint = text + "."
                break
        if hint is None:
            hint = teaching_hint(task, "Each round is report-noisy-max with Lap(b) noise on scores that move by at "
                                       "most λ; the s rounds compose. Find the largest per-round ε_r for which the "
                                       "smaller of the two composition bounds is <= ε (the advanced one needs a "
                                       "root-finder, e.g. bisection), then b from ε_r.", _SUPPORT_FORMULA)
        if not private:
            verdict = (f"at your b = {b:.6g} the {s} rounds are certified only ε' = {certified:.6g} > ε = "
                       f"{epsilon:g}: not private enough")
        else:
            verdict = (f"your b = {b:.6g} is private but wasteful: b = {right:.6g} already certifies ε = {epsilon:g} "
                       f"({b / right:.3g} × the noise needed)")
        raise LabCheckError(f"{task}: with s = {s}, ε = {epsilon:g}, δ = {delta:.3g}, λ = {lam:.4g}, {verdict}.\n"
                            f"Hint: {hint}")
    print(f"At {len(SUPPORT_CASES)} settings your scale certifies (ε, δ) and no smaller scale does.")
    passed(task)
