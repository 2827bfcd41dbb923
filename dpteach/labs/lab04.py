"""Checkers for Lab 4, "Lower bounds by fingerprinting" (book/labs/lab04_fingerprinting.ipynb, chapter 4).

Each checker runs the student's function and compares it with reference
behaviour computed *here* (the formulas are written out in this file, not
taken from ``dpteach.fingerprinting``). A right answer prints one "passed"
line; a wrong one raises :class:`~dpteach.labs.LabCheckError` whose message
says what was measured and names the likely bug.

The tasks and their checkers:

1. :func:`check_score_statistic` — ``fn(records, estimate, center)``: the
   tracing score ⟨x − c, M − c⟩ of every row, which must then trace the exact
   mean with AUC >= 0.9 at d = 400, n = 50.
2. :func:`check_dp_envelope` — ``fn(fpr, epsilon, delta)``: the largest TPR
   of an (ε, δ)-DP test, min{e^ε·FPR + δ, 1 − e^{−ε}(1 − δ − FPR)} in [0, 1].
3. :func:`check_certified_epsilon` — ``fn(fpr, tpr, delta)``: the smallest ε
   for which an ROC curve lies under the (ε, δ) envelope.
4. :func:`check_calibrate_threshold` — ``fn(out_scores, fpr)``: a threshold
   with exactly ⌊fpr·m⌋ of the m non-member scores strictly above it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from . import LabCheckError, call_student, passed, require, require_own_code

__all__ = ["check_score_statistic", "check_dp_envelope", "check_certified_epsilon", "check_calibrate_threshold"]


def _array(value, task, call, shape):
    raw = np.asarray(value)
    require(raw.dtype.kind in "iuf", f"{task}: {call} should return an array of numbers (floats), got "
                                     f"{type(value).__name__} with dtype {raw.dtype}.")
    arr = raw.astype(float)
    require(arr.shape == shape, f"{task}: {call} should return an array of shape {shape}, got shape {arr.shape}.")
    require(np.all(np.isfinite(arr)), f"{task}: {call} returned NaN or inf.")
    return arr


def _number(value, task, call):
    require(isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool),
            f"{task}: {call} should return one number (a float), got {value!r} of type {type(value).__name__}.")
    return float(value)


# --- Task 1: the score statistic ----------------------------------------------------------------

def _score_cases():
    rng = np.random.default_rng(41)
    cases = []
    for k, d in ((5, 3), (1, 4), (8, 10)):
        cases.append((rng.normal(size=(k, d)) + 2.0, rng.normal(size=d) + 2.0, rng.normal(size=d) + 1.5))
    return cases


_SCORE_VARIANTS = (
    ("you did not centre: ⟨x, M⟩ mixes in ⟨μ, M⟩, which is huge and the same for members and non-members. "
     "Subtract the centre from both the record and the estimate: ⟨x − c, M − c⟩",
     lambda r, m, c: r @ m),
    ("you centred only the record: ⟨x − c, M⟩. Centre the estimate as well, ⟨x − c, M − c⟩",
     lambda r, m, c: (r - c) @ m),
    ("you centred only the estimate: ⟨x, M − c⟩. Centre the record as well, ⟨x − c, M − c⟩",
     lambda r, m, c: r @ (m - c)),
    ("the sign is flipped: members should get large positive scores", lambda r, m, c: -((r - c) @ (m - c))),
    ("you returned the squared distance ‖x − M‖²; the statistic is an inner product ⟨x − c, M − c⟩",
     lambda r, m, c: np.sum((r - m) ** 2, axis=1)),
)


def check_score_statistic(fn):
    """Task 1: ``fn(records, estimate, center)`` must return ⟨x_k − c, M − c⟩ for every row x_k (chapter 4).

    Compared with the formula on three cases (shapes (5, 3), (1, 4), (8, 10),
    centres far from 0 so that a missing centring is visible) to relative
    tolerance 1e-9. Then the statistic must trace the exact sample mean of
    N(μ, I_400) data with n = 50 members: AUC >= 0.9 over 20 trials (predicted
    Φ(√(d/2n)) = Φ(2) = 0.977; the pooled AUC's sd is about 0.005, so a right
    answer fails with probability far below 1e-6).
    """
    task = "Task 1 (score statistic)"
    require_own_code(fn, ("score_statistic",), task)
    for records, estimate, center in _score_cases():
        call = f"fn(records of shape {records.shape}, estimate, center)"
        got = _array(call_student(fn, (records.copy(), estimate.copy(), center.copy()), task), task, call,
                     (records.shape[0],))
        want = (records - center) @ (estimate - center)
        if not np.allclose(got, want, rtol=1e-9, atol=1e-12):
            hint = "compute np.dot(x − c, M − c) for each row x (records @ v does all rows at once)"
            for text, variant in _SCORE_VARIANTS:
                if np.allclose(got, variant(records, estimate, center), rtol=1e-9, atol=1e-12):
                    hint = text
                    break
            raise LabCheckError(f"{task}: for {call} you return {np.round(got, 4)}, but ⟨x − c, M − c⟩ is "
                                f"{np.round(want, 4)}.\nHint: {hint}.")
    rng = np.random.default_rng(42)
    d, n, trials = 400, 50, 20
    mu = rng.uniform(-1, 1, size=d)
    records = mu + rng.standard_normal((trials, 2 * n, d))
    ins, outs = [], []
    for t in range(trials):
        scores = _array(call_student(fn, (records[t], records[t, :n].mean(axis=0), mu), task), task,
                        "fn(records of one trial, exact mean, mu)", (2 * n,))
        ins.append(scores[:n])
        outs.append(scores[n:])
    ins, outs = np.concatenate(ins), np.concatenate(outs)
    value = float(np.mean(ins[:, None] > outs[None, :]) + 0.5 * np.mean(ins[:, None] == outs[None, :]))
    predicted = special.ndtr(math.sqrt(d / (2 * n)))
    require(value >= 0.9, f"{task}: your statistic traces the exact mean with AUC {value:.3f} at d = {d}, n = {n}; "
                          f"the score attack reaches about {predicted:.3f}. Check the centring.")
    print(f"Matches ⟨x − c, M − c⟩ on 3 cases; traces the exact mean at d = {d}, n = {n} with AUC {value:.3f} "
          f"(predicted Φ(√(d/2n)) = {predicted:.3f}).")
    passed(task)


# --- Task 2: the DP envelope ------------------------------------------------------------------

_ENVELOPE_GRID = np.concatenate([[0.0], np.logspace(-4, -0.01, 40), [0.5, 1.0]])
_ENVELOPE_CASES = ((0.1, 0.0), (1.0, 1e-3), (3.0, 0.05), (0.5, 0.2))


def _envelope(fpr, epsilon, delta):
    # min{e^ε f + δ, 1 − e^{−ε}(1 − δ − f)}, capped to [0, 1]; written out independently of dpteach
    first = math.exp(epsilon) * fpr + delta
    second = 1 - math.exp(-epsilon) * (1 - delta - fpr)
    return np.clip(np.minimum(first, second), 0, 1)


_ENVELOPE_VARIANTS = (
    ("the two terms have their exponents swapped: the first line is e^ε·FPR + δ (steep near FPR = 0), the second "
     "1 − e^{−ε}(1 − δ − FPR)",
     lambda f, e, d: np.clip(np.minimum(math.exp(-e) * f + d, 1 - math.exp(e) * (1 - d - f)), 0, 1)),
    ("you took the max of the two lines; the envelope is their minimum (both inequalities hold at once)",
     lambda f, e, d: np.clip(np.maximum(math.exp(e) * f + d, 1 - math.exp(-e) * (1 - d - f)), 0, 1)),
    ("values must be capped to [0, 1]: a rate is a probability",
     lambda f, e, d: np.minimum(math.exp(e) * f + d, 1 - math.exp(-e) * (1 - d - f))),
    ("δ is missing from the second term: it comes from the DP inequality for the event OUT, "
     "1 − FPR <= e^ε(1 − TPR) + δ",
     lambda f, e, d: np.clip(np.minimum(math.exp(e) * f + d, 1 - math.exp(-e) * (1 - f)), 0, 1)),
    ("δ is missing: TPR <= e^ε·FPR + δ", lambda f, e, d: np.clip(
        np.minimum(math.exp(e) * f, 1 - math.exp(-e) * (1 - f)), 0, 1)),
    ("only the first line: the complement event OUT gives a second bound 1 − e^{−ε}(1 − δ − FPR)",
     lambda f, e, d: np.clip(math.exp(e) * f + d, 0, 1)),
)


def check_dp_envelope(fn):
    """Task 2: ``fn(fpr, epsilon, delta)`` must return min{e^ε f + δ, 1 − e^{−ε}(1 − δ − f)} in [0, 1] (Theorem 4.3).

    Compared elementwise with the formula on an FPR grid from 0 to 1 (43
    points, log-spaced) at four (ε, δ) pairs, to relative tolerance 1e-9.
    Typical mistakes (terms swapped, max instead of min, no cap, δ missing)
    are named.
    """
    task = "Task 2 (DP envelope)"
    require_own_code(fn, ("dp_roc_envelope",), task)
    results = []
    for epsilon, delta in _ENVELOPE_CASES:
        call = f"fn(fpr grid, epsilon={epsilon:g}, delta={delta:g})"
        results.append(_array(call_student(fn, (_ENVELOPE_GRID.copy(), epsilon, delta), task), task, call,
                              _ENVELOPE_GRID.shape))
    for (epsilon, delta), got in zip(_ENVELOPE_CASES, results):
        want = _envelope(_ENVELOPE_GRID, epsilon, delta)
        if not np.allclose(got, want, rtol=1e-9, atol=1e-12):
            hint = "write both lines, take np.minimum, then np.clip to [0, 1]"
            for text, variant in _ENVELOPE_VARIANTS:
                if all(np.allclose(r, variant(_ENVELOPE_GRID, e, d), rtol=1e-9, atol=1e-12)
                       for r, (e, d) in zip(results, _ENVELOPE_CASES)):
                    hint = text
                    break
            i = int(np.argmax(~np.isclose(got, want, rtol=1e-9, atol=1e-12)))
            raise LabCheckError(f"{task}: at FPR = {_ENVELOPE_GRID[i]:.3g}, ε = {epsilon:g}, δ = {delta:g} you return "
                                f"{got[i]:.6g}, but the envelope is {want[i]:.6g}.\nHint: {hint}.")
    print(f"Matches the envelope at {len(_ENVELOPE_CASES)} (ε, δ) pairs, {_ENVELOPE_GRID.size} FPRs each.")
    passed(task)


# --- Task 3: the smallest ε an ROC curve allows ----------------------------------------------------

def _certified_epsilon(fpr, tpr, delta):
    # For each point: e^ε >= (t − δ)/f and e^ε >= (1 − δ − f)/(1 − t); points strictly inside (0, 1)².
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(tpr > delta, np.log(np.maximum(tpr - delta, 1e-300) / fpr), 0.0)
        second = np.where(1 - delta - fpr > 0, np.log(np.maximum(1 - delta - fpr, 1e-300) / (1 - tpr)), 0.0)
    return float(max(0.0, np.max(first), np.max(second)))


def _gaussian_roc(shift, k=60):
    fpr = np.logspace(-3, math.log10(0.98), k)
    return fpr, special.ndtr(shift - special.ndtri(1 - fpr))


_CERTIFY_CASES = tuple((shift, delta) for shift, delta in ((0.5, 0.0), (1.5, 1e-3), (3.0, 1e-2), (0.2, 0.1)))


def _certify_variant(name, fpr, tpr, delta):
    with np.errstate(divide="ignore", invalid="ignore"):
        if name == "first_only":
            return float(max(0.0, np.max(np.log(np.maximum(tpr - delta, 1e-300) / fpr))))
        if name == "no_delta":
            return _certified_epsilon(fpr, tpr, 0.0)
        if name == "min_over_points":
            first = np.log(np.maximum(tpr - delta, 1e-300) / fpr)
            second = np.log((1 - delta - fpr) / (1 - tpr))
            return float(max(0.0, np.min(np.maximum(first, second))))
        if name == "second_only":
            return float(max(0.0, np.max(np.log((1 - delta - fpr) / (1 - tpr)))))
    raise ValueError(name)


_CERTIFY_HINTS = (
    ("first_only", "you used only TPR <= e^ε·FPR + δ. The complement event gives a second constraint, "
                   "1 − FPR <= e^ε(1 − TPR) + δ, which binds at large FPR"),
    ("second_only", "you used only the complement constraint; TPR <= e^ε·FPR + δ must hold too"),
    ("no_delta", "δ is missing: subtract it, e^ε >= (TPR − δ)/FPR and e^ε >= (1 − δ − FPR)/(1 − TPR)"),
    ("min_over_points", "every point of the curve must lie under the envelope, so take the max over the points, "
                        "not the min"),
)


def check_certified_epsilon(fn):
    """Task 3: ``fn(fpr, tpr, delta)`` must return the smallest ε >= 0 with TPR <= envelope(FPR) at every point.

    Each point (f, t) needs e^ε >= (t − δ)/f and e^ε >= (1 − δ − f)/(1 − t)
    (from Theorem 4.3), so the answer is the max over points of the two logs,
    and 0 if the curve is under the diagonal. Checked on the ROC curves of
    Gaussian shifts (60 points each, strictly inside (0, 1)²) at four
    (shift, δ) pairs, to relative tolerance 1e-8.
    """
    task = "Task 3 (certified ε)"
    require_own_code(fn, ("dp_roc_envelope",), task)
    results = []
    for shift, delta in _CERTIFY_CASES:
        fpr, tpr = _gaussian_roc(shift)
        call = f"fn(fpr, tpr of a Gaussian shift {shift:g}, delta={delta:g})"
        results.append(_number(call_student(fn, (fpr.copy(), tpr.copy(), delta), task), task, call))
    for (shift, delta), got in zip(_CERTIFY_CASES, results):
        fpr, tpr = _gaussian_roc(shift)
        want = _certified_epsilon(fpr, tpr, delta)
        if not math.isclose(got, want, rel_tol=1e-8, abs_tol=1e-10):
            hint = "for each point, the smallest ε with both envelope inequalities; then the max over points"
            for name, text in _CERTIFY_HINTS:
                if all(math.isclose(r, _certify_variant(name, *_gaussian_roc(s), dd), rel_tol=1e-8, abs_tol=1e-10)
                       for r, (s, dd) in zip(results, _CERTIFY_CASES)):
                    hint = text
                    break
            raise LabCheckError(f"{task}: for the ROC of a Gaussian shift {shift:g} with δ = {delta:g} you return "
                                f"ε = {got:.6g}, but the smallest ε that keeps the curve under the envelope is "
                                f"{want:.6g}.\nHint: {hint}.")
    print(f"Matches the certified ε on {len(_CERTIFY_CASES)} ROC curves.")
    passed(task)


# --- Task 4: calibrating a threshold --------------------------------------------------------------

_CALIBRATE_CASES = ((1000, 0.01), (1234, 0.01), (500, 0.1), (2000, 0.003), (300, 0.25))


def check_calibrate_threshold(fn):
    """Task 4: ``fn(out_scores, fpr)`` must return t with exactly ⌊fpr·m⌋ of the m scores strictly above it.

    Checked on five tie-free score arrays (m from 300 to 2000; fpr from 0.003
    to 0.25; including m·fpr = 12.34, where np.quantile's interpolation lets
    one score too many through). One more or one fewer score above t is the
    off-by-one of the order statistic; the fpr-quantile instead of the
    (1 − fpr)-quantile is named too.
    """
    task = "Task 4 (calibrate a threshold)"
    require_own_code(fn, ("calibrate_threshold",), task)
    rng = np.random.default_rng(44)
    for m, fpr in _CALIBRATE_CASES:
        scores = rng.normal(size=m) * 3 + 1
        call = f"fn({m} non-member scores, fpr={fpr:g})"
        t = _number(call_student(fn, (scores.copy(), fpr), task), task, call)
        above = int(np.sum(scores > t))
        allowed = math.floor(fpr * m + 1e-9)
        if above == allowed:
            continue
        if above == allowed + 1 or above == allowed - 1:
            hint = (f"off by one: {above} scores lie above your threshold, the target allows {allowed}. Sort the "
                    f"scores ascending; with k = ⌊fpr·m⌋ the threshold is the order statistic at 0-based index m − k − 1, "
                    f"so exactly k scores are strictly above it")
            if above == allowed + 1:
                hint += " (np.quantile interpolates between order statistics and can let one score too many through)"
        elif above == m - allowed or abs(above - (m - allowed)) <= 1:
            hint = "you took the fpr-quantile; the threshold must leave only a fraction fpr *above* it: the (1 − fpr)-quantile"
        else:
            hint = f"{above} of {m} scores lie above your threshold, {allowed} should"
        raise LabCheckError(f"{task}: for {call} your threshold {t:.4g} has {above} non-member scores above it "
                            f"(FPR {above / m:.4f}); exactly {allowed} (FPR {allowed / m:.4f}) should be.\nHint: {hint}.")
    print(f"Exact empirical FPR ⌊fpr·m⌋/m on {len(_CALIBRATE_CASES)} score arrays.")
    passed(task)
