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
5. :func:`check_group_envelope` — ``fn(fpr, epsilon, delta, k)``: the largest
   TPR against datasets that differ in k records that follows from chaining
   Theorem 4.3 along k neighbours: the envelope applied k times (not printed in
   the chapter, whose group-privacy sketch uses the cruder (kε, k e^{kε}δ)).

Tasks 3 and 5 are derivations: their hints point to the inequality first and
give the formula only after repeated failed tries (:func:`teaching_hint`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from . import LabCheckError, call_student, passed, require, require_own_code
from .checking import teaching_hint

__all__ = ["check_score_statistic", "check_dp_envelope", "check_certified_epsilon", "check_calibrate_threshold",
           "check_group_envelope"]


def _array(value, task, call, shape):
    require(isinstance(value, np.ndarray),
            f"{task}: {call} should return a numpy array, got {type(value).__name__}. Compute with numpy arrays "
            f"(np.asarray(...) the inputs) rather than building a list.")
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
    ("first_only", "you used only the inequality for the event IN. The complement event OUT gives a second "
                   "constraint on every point, which binds at large FPR"),
    ("second_only", "you used only the complement constraint; the inequality for the event IN must hold too"),
    ("no_delta", "δ is missing: both inequalities of Theorem 4.3 carry an additive δ; keep it when you solve for "
                 "e^ε"),
    ("min_over_points", "every point of the curve must lie under the envelope, so take the max over the points, "
                        "not the min"),
)

_CERTIFY_FORMULA = ("for each point (f, t): e^ε >= (t − δ)/f (if t > δ) and e^ε >= (1 − δ − f)/(1 − t) (if "
                    "1 − δ − f > 0); ε = max(0, max over the points of the logs).")


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
            hint = None
            for name, text in _CERTIFY_HINTS:
                if all(math.isclose(r, _certify_variant(name, *_gaussian_roc(s), dd), rel_tol=1e-8, abs_tol=1e-10)
                       for r, (s, dd) in zip(results, _CERTIFY_CASES)):
                    hint = text + "."
                    break
            if hint is None:
                hint = teaching_hint(task, "Solve each of the two inequalities of Theorem 4.3 for e^ε at each point "
                                           "(a point with TPR <= δ puts no constraint from the first); every point "
                                           "must satisfy both.", _CERTIFY_FORMULA)
            raise LabCheckError(f"{task}: for the ROC of a Gaussian shift {shift:g} with δ = {delta:g} you return "
                                f"ε = {got:.6g}, but the smallest ε that keeps the curve under the envelope is "
                                f"{want:.6g}.\nHint: {hint}")
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
            interpolated = not np.any(scores == t)
            rounded_up = fpr * m - allowed > 1e-9 and above == math.ceil(fpr * m - 1e-9)
            if above == allowed + 1 and rounded_up and not interpolated:
                hint = (f"you rounded fpr·m = {fpr * m:g} up to {above}; the target FPR is ⌊fpr·m⌋/m, so at most "
                        f"{allowed} scores may lie above the threshold: round down (math.floor)")
            elif above == allowed + 1 and interpolated:
                hint = (f"off by one: {above} scores lie above your threshold, the target allows {allowed}. Your "
                        f"threshold is not one of the scores: np.quantile interpolates between two order statistics "
                        f"and can let one score too many through. Return an order statistic of the sorted scores")
            else:
                hint = teaching_hint(task, f"off by one: {above} scores lie above your threshold, the target allows "
                                           f"{allowed}. Count how many sorted scores lie strictly above the one you "
                                           f"return.",
                                     "sort the scores ascending; with k = ⌊fpr·m⌋ the threshold is the order "
                                     "statistic at 0-based index m − k − 1, so exactly k scores are strictly above "
                                     "it.")
        elif above == m - allowed or abs(above - (m - allowed)) <= 1:
            hint = "you took the fpr-quantile; the threshold must leave only a fraction fpr *above* it: the (1 − fpr)-quantile"
        else:
            hint = f"{above} of {m} scores lie above your threshold, {allowed} should"
        raise LabCheckError(f"{task}: for {call} your threshold {t:.4g} has {above} non-member scores above it "
                            f"(FPR {above / m:.4f}); exactly {allowed} (FPR {allowed / m:.4f}) should be.\n"
                            f"Hint: {hint.rstrip('.')}.")
    print(f"Exact empirical FPR ⌊fpr·m⌋/m on {len(_CALIBRATE_CASES)} score arrays.")
    passed(task)


# --- Task 5: the envelope for a group of k records ----------------------------------------------------

def _group_envelope(fpr, epsilon, delta, k):
    # Chain D' = D_0 ~ D_1 ~ ... ~ D_k = D: P(M(D_{i+1}) ∈ E) <= env(P(M(D_i) ∈ E)), and env is nondecreasing,
    # so the best bound the chain gives is env applied k times.
    value = np.asarray(fpr, dtype=float)
    for _ in range(k):
        value = _envelope(value, epsilon, delta)
    return value


def _group_cases():
    """(ε, δ, k) for the check: four fixed edge cases (k = 1, δ = 0, large k) and four drawn at random."""
    rng = np.random.default_rng(45)
    cases = [(0.5, 0.0, 1), (1.0, 0.0, 2), (0.3, 1e-3, 5), (0.1, 0.02, 12)]
    for _ in range(4):
        cases.append((float(rng.uniform(0.05, 1.5)), float(10 ** rng.uniform(-5, -1.5)), int(rng.integers(2, 9))))
    return tuple(cases)


_GROUP_CASES = _group_cases()


def _group_variant(name, f, e, d, k):
    if name == "scaled":
        return _envelope(f, k * e, k * d)
    if name == "scaled_eps":
        return _envelope(f, k * e, d)
    if name == "group_theorem":
        return _envelope(f, k * e, k * math.exp((k - 1) * e) * d)
    if name == "group_chapter":
        return _envelope(f, k * e, k * math.exp(k * e) * d)
    if name == "first_line":
        value = np.asarray(f, dtype=float)
        for _ in range(k):
            value = np.clip(math.exp(e) * value + d, 0, 1)
        return value
    if name == "off_by_one":
        return _group_envelope(f, e, d, k - 1) if k > 1 else np.asarray(f, dtype=float)
    raise ValueError(name)


_GROUP_HINTS = (
    ("scaled", "you replaced (ε, δ) by (kε, kδ) in one envelope. The chain does not give an envelope of that "
               "form (even with δ = 0 its curve has more than two pieces): follow the chain link by link"),
    ("scaled_eps", "you replaced ε by kε and kept δ. The chain does not give an envelope of that form: follow "
                   "the chain link by link, each link with the (ε, δ) of one neighbour"),
    ("group_theorem", "(kε, k e^{(k−1)ε} δ) is the group-privacy theorem: a valid bound, but the chain gives a "
                      "smaller one. Apply Theorem 4.3 to each link of the chain, not once to the whole group"),
    ("group_chapter", "(kε, k e^{kε} δ) is the chapter's crude group-privacy bound: valid, but the chain gives a "
                      "smaller one. Apply Theorem 4.3 to each link of the chain"),
    ("first_line", "you chained only the inequality for the event IN. Each link also obeys the inequality for the "
                   "complement event OUT, which binds at large FPR"),
    ("off_by_one", "off by one: a chain from D' to D that changes one record at a time has k links, not k − 1"),
)

_GROUP_FORMULA = ("TPR_0 = FPR and TPR_{i+1} = min{e^ε·TPR_i + δ, 1 − e^{−ε}(1 − δ − TPR_i)} clipped to [0, 1], "
                  "for i = 0, …, k − 1: the envelope of Task 2 applied k times.")


def check_group_envelope(fn):
    """Task 5: ``fn(fpr, epsilon, delta, k)``: the largest TPR that chaining Theorem 4.3 over k neighbours allows.

    If M is (ε, δ)-DP for neighbours and D, D' differ in k records, the chain D' = D_0 ~ … ~ D_k = D gives
    P(M(D_{i+1}) ∈ E) <= env(P(M(D_i) ∈ E)) for every event E, with env the (nondecreasing) envelope of
    Theorem 4.3; the best bound is env applied k times. Compared elementwise (relative tolerance 1e-9) on the
    43-point FPR grid of Task 2 at eight (ε, δ, k): k = 1 (must be the envelope itself), δ = 0, k = 12 and
    four drawn at random. Named mistakes: (kε, kδ) or (kε, δ) in one envelope (wrong even at δ = 0: the
    chained curve has a middle piece 1 − e^{−ε} + FPR at k = 2), the group-privacy theorem's
    (kε, k e^{(k−1)ε}δ) or the chapter's (kε, k e^{kε}δ) (valid but larger), only the IN inequality chained,
    k − 1 links.
    """
    task = "Task 5 (group envelope)"
    require_own_code(fn, ("dp_roc_envelope",), task)
    results = []
    for epsilon, delta, k in _GROUP_CASES:
        call = f"fn(fpr grid, epsilon={epsilon:.4g}, delta={delta:.3g}, k={k})"
        results.append(_array(call_student(fn, (_ENVELOPE_GRID.copy(), epsilon, delta, k), task), task, call,
                              _ENVELOPE_GRID.shape))
    for (epsilon, delta, k), got in zip(_GROUP_CASES, results):
        want = _group_envelope(_ENVELOPE_GRID, epsilon, delta, k)
        if np.allclose(got, want, rtol=1e-9, atol=1e-12):
            continue
        hint = None
        for name, text in _GROUP_HINTS:
            if all(np.allclose(r, _group_variant(name, _ENVELOPE_GRID, e, d, kk), rtol=1e-9, atol=1e-12)
                   for r, (e, d, kk) in zip(results, _GROUP_CASES)):
                hint = text + "."
                break
        if hint is None:
            larger = bool(np.any(got > want + 1e-9))
            hint = teaching_hint(task, ("Somewhere your bound is above what the chain allows. " if larger else
                                        "Your bound is below what the chain allows: a valid test could beat it. ")
                                 + "Write the chain D' = D_0 ~ D_1 ~ … ~ D_k = D; Theorem 4.3 bounds "
                                   "P(M(D_{i+1}) ∈ E) through P(M(D_i) ∈ E), and its envelope is nondecreasing.",
                                 _GROUP_FORMULA)
        i = int(np.argmax(~np.isclose(got, want, rtol=1e-9, atol=1e-12)))
        raise LabCheckError(f"{task}: at FPR = {_ENVELOPE_GRID[i]:.3g}, ε = {epsilon:.4g}, δ = {delta:.3g}, k = {k} "
                            f"you return {got[i]:.6g}, but the chained bound is {want[i]:.6g}.\nHint: {hint}")
    print(f"Matches the chained envelope at {len(_GROUP_CASES)} (ε, δ, k), k from 1 to 12, "
          f"{_ENVELOPE_GRID.size} FPRs each.")
    passed(task)
