"""Checkers of Lab 6 (chapter 6, "Agnostic halfspaces I"): Hermite basis, one DP-ERM step, threshold selection.

Each checker calls the student's function on the inputs the lab uses,
checks the return type, compares with an independent reference and, on a
mismatch, names the likely mistake (physicists' Hermite, a missing 1/√(k!),
sensitivity T/n instead of 2T/n, a missing 1/2 in the exponential mechanism…).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.polynomial import hermite as _phys
from numpy.polynomial import hermite_e as _prob
from scipy import stats

from . import LabCheckError, call_student, passed, require, require_own_code
from .checking import call_student_counting_lines, teaching_hint

__all__ = ["check_hermite_1d", "check_step_sigma", "check_select_threshold", "check_coordinate_clip_sigma",
           "check_feature_norms"]


def _reference_h(x, degree):
    return np.stack([_prob.hermeval(x, np.eye(degree + 1)[m]) / math.sqrt(math.factorial(m))
                     for m in range(degree + 1)], axis=-1)


def check_hermite_1d(fn):
    """Task 1: ``fn(x, degree)`` → array of shape x.shape + (degree + 1,), [..., k] = He_k(x)/√(k!)."""
    task = "Task 1 (hermite_1d)"
    require_own_code(fn, {"hermite_1d", "hermite_features"}, task)
    x = np.linspace(-4, 4, 81)
    for degree in (1, 4, 10):
        out = call_student(fn, (x, degree), task)
        require(isinstance(out, np.ndarray), f"{task}: return a numpy array, got {type(out).__name__}")
        require(out.shape == (x.size, degree + 1),
                f"{task}: for x of shape {x.shape} and degree {degree} the result must have shape "
                f"{(x.size, degree + 1)} (one column per h_0..h_degree), got {out.shape}")
        want = _reference_h(x, degree)
        if np.allclose(out, want, rtol=1e-8, atol=1e-8 * np.abs(want).max()):
            continue
        raw_prob = np.stack([_prob.hermeval(x, np.eye(degree + 1)[m]) for m in range(degree + 1)], axis=-1)
        raw_phys = np.stack([_phys.hermval(x, np.eye(degree + 1)[m]) for m in range(degree + 1)], axis=-1)
        norm_phys = raw_phys / np.sqrt([2.0 ** m * math.factorial(m) for m in range(degree + 1)])
        if np.allclose(out, raw_prob, rtol=1e-8, atol=1e-8):
            raise LabCheckError(f"{task}: your columns are He_k(x) without the normalisation. Hint: divide "
                                "He_k by √(k!) — equivalently use h_(k+1) = (x·h_k − √k·h_(k−1))/√(k+1) — "
                                "so that E[h_k(Z)²] = 1 (your E[He_2²] = 2).")
        if np.allclose(out, raw_phys, rtol=1e-8, atol=1e-8) or np.allclose(out, norm_phys, rtol=1e-8, atol=1e-8):
            raise LabCheckError(f"{task}: these are the physicists' Hermite polynomials H_k (H_1(x) = 2x), "
                                "orthogonal for the weight e^(−x²), not for N(0, 1). Hint: use the "
                                "probabilists' recurrence He_(k+1) = x·He_k − k·He_(k−1) (He_1(x) = x).")
        k = int(np.argmax(np.max(np.abs(out - want), axis=0)))
        raise LabCheckError(f"{task}: column {k} (h_{k}) is wrong at degree {degree}: e.g. at x = {x[0]:g} "
                            f"you return {out[0, k]:.6g}, expected {want[0, k]:.6g}. Hint: h_0 = 1, h_1 = x, "
                            "h_(k+1) = (x·h_k − √k·h_(k−1))/√(k+1).")
    _check_hermite_shapes_and_stability(fn, task)
    passed(task)


def _check_hermite_shapes_and_stability(fn, task):
    """A 2-D input keeps its shape; degree 50 stays accurate (the recurrence does, monomial coefficients do not).

    At degree 50 on [−6, 6] the recurrence is within 1e-11 of numpy's Clenshaw evaluation, while summing
    monomial coefficients (herme2poly, then polyval) is off by about 1e-2 — cancellation between terms of
    size up to 10²⁰; the tolerance 1e-8·max|h| ≈ 6e-5 separates them by three orders of magnitude either way.
    """
    x = np.random.default_rng(61).normal(size=(4, 6))
    out = call_student(fn, (x, 3), task)
    require(isinstance(out, np.ndarray) and out.shape == (4, 6, 4),
            f"{task}: for x of shape (4, 6) and degree 3 the result must have shape (4, 6, 4) (x.shape + "
            f"(degree + 1,)), got {getattr(out, 'shape', type(out).__name__)}. Hint: work with x[..., None] or "
            f"out[..., k], not with x.ravel() or a loop over a 1-D x.")
    require(np.allclose(out, _reference_h(x, 3), rtol=1e-10, atol=1e-10),
            f"{task}: for a 2-D x of shape (4, 6) your values differ from h_k(x) entry by entry. Hint: each entry "
            f"of x gets its own h_0..h_degree; do not flatten or sort x.")
    x = np.linspace(-6, 6, 121)
    out = np.asarray(call_student(fn, (x, 50), task), dtype=float)
    want = _reference_h(x, 50)
    error = float(np.max(np.abs(out - want))) if out.shape == want.shape else math.inf
    require(error <= 1e-8 * np.abs(want).max(),
            f"{task}: at degree 50 on [−6, 6] your values are off by {error:.3g} (h_50 is at most "
            f"{np.abs(want).max():.4g} there). Hint: expanding He_k in monomials cancels terms of size up to 1e20; "
            f"the three-term recurrence h_(k+1) = (x·h_k − √k·h_(k−1))/√(k+1) (Lemma 6.2) is stable — use it.")


def _is_real(value):
    return isinstance(value, (numbers.Real, np.floating)) and not isinstance(value, (bool, np.bool_))


def check_step_sigma(fn):
    """Task 2: ``fn(lipschitz, n, epsilon, delta, n_iterations)`` → (sensitivity, sigma) of one DP-ERM step."""
    task = "Task 2 (step_sigma)"
    require_own_code(fn, {"dp_erm_sigma", "l1_subgradient_sensitivity", "zcdp_rho", "noisy_projected_subgradient_descent"},
                     task)
    for T, n, eps, delta, K in [(8.9, 1600, 1.0, 1e-5, 1390), (2.0, 500, 0.3, 1e-6, 100), (5.0, 10_000, 4.0, 1e-3, 1)]:
        out = call_student(fn, (T, n, eps, delta, K), task)
        require(isinstance(out, tuple) and len(out) == 2,
                f"{task}: return a tuple (sensitivity, sigma), got {out!r}")
        sens, sigma = out
        require(_is_real(sens) and _is_real(sigma),
                f"{task}: both entries must be real numbers (floats), got {type(sens).__name__} and "
                f"{type(sigma).__name__}")
        L = math.log(1 / delta)
        rho = (math.sqrt(L + eps) - math.sqrt(L)) ** 2
        want_sens = 2 * T / n
        want_sigma = want_sens * math.sqrt(K / (2 * rho))
        if not math.isclose(sens, want_sens, rel_tol=1e-9):
            if math.isclose(sens, T / n, rel_tol=1e-9):
                raise LabCheckError(f"{task}: sensitivity T/n = {sens:.4g} is half the truth. Hint: neighbours "
                                    "differ by *replacing* one example — one term sign(·)F_i/n leaves and another "
                                    "enters, and they can point in opposite directions: 2T/n.")
            raise LabCheckError(f"{task}: sensitivity {sens:.4g} for T = {T}, n = {n}; expected "
                                f"{want_sens:.4g}. Hint: bound ‖ḡ(S) − ḡ(S')‖ for one replaced example.")
        if not math.isclose(sigma, want_sigma, rel_tol=1e-6):
            if math.isclose(sigma, want_sens * math.sqrt(1 / (2 * rho)), rel_tol=1e-6) and K > 1:
                raise LabCheckError(f"{task}: σ = {sigma:.4g} pays for one step only. Hint: K steps of "
                                    "Δ²/(2σ²)-zCDP compose to K·Δ²/(2σ²); set that equal to ρ.")
            hint = teaching_hint(task, "convert (ε, δ) to a zCDP budget ρ (the chapter's zCDP-to-(ε, δ) "
                                       "conversion, solved for ρ), and spend it on K Gaussian steps of "
                                       "sensitivity Δ, each Δ²/(2σ²)-zCDP.",
                                 "ρ = (√(log(1/δ) + ε) − √log(1/δ))², σ = Δ·√(K/(2ρ)).")
            raise LabCheckError(f"{task}: σ = {sigma:.4g}, expected {want_sigma:.4g} for T = {T}, n = {n}, "
                                f"ε = {eps}, δ = {delta}, K = {K} ({sigma / want_sigma:.3g} × the right σ). "
                                f"Hint: {hint}")
    passed(task)


def _selection_problem():
    rng = np.random.default_rng(606)
    z = rng.uniform(-1.2, 1.2, 60)
    y = np.where(z - 0.1 + rng.normal(0, 0.4, 60) >= 0, 1.0, -1.0)
    return z, y


_STABLE_HINT = ("\n  Hint: with 5000 validation points every error count is large, so exp(−ε·errors/2) underflows to 0 "
                "for every threshold and the normalisation divides 0 by 0. Sample stably: subtract the largest logit "
                "before exponentiating, or use the Gumbel-max trick (argmax of logits + Gumbel noise).")


def _check_selection_properties(fn, task):
    """sign(0) = +1, stability on many points, the rng argument used, and the exponential mechanism's law itself.

    Each is a property a plausible wrong answer breaks (see tests/test_lab06.py), checked on inputs built for it.
    """
    # sign(0) = +1: 50 scores exactly on t₃ = 0.25 with label +1. With sign(0) = +1 the thresholds t₁, t₂, t₃ all
    # make 0 errors (t₄ makes 50); with sign(0) = −1 only t₁, t₂ do. At ε = 50 the selection is uniform on the
    # zero-error set, so t₃ appears in 300 draws except with probability (2/3)³⁰⁰ < 1e-50.
    z = np.concatenate([np.full(50, 0.25), np.full(50, -0.9), np.full(50, 0.9)])
    y = np.concatenate([np.ones(50), -np.ones(50), np.ones(50)])
    rng = np.random.default_rng(11)
    picks = [call_student(fn, (z, y, 4, 50.0, rng), task) for _ in range(300)]
    require(any(np.isclose(p, 0.25) for p in picks),
            f"{task}: with 50 scores exactly at the threshold 0.25 (label +1), your function never chose 0.25, "
            f"which makes no error there. Hint: sign(0) = +1 (predict +1 when z − t = 0: use >= 0), as the task says.")
    # Stability: 5000 points with coin-flip labels, so the smallest error count is about 2500.
    rng = np.random.default_rng(12)
    z, y = rng.uniform(-1, 1, 5000), rng.choice([-1.0, 1.0], 5000)
    with np.errstate(all="ignore"):
        out = call_student(fn, (z, y, 8, 1.0, rng), task, hint=_STABLE_HINT)
    require(_is_real(out) and math.isfinite(float(out)),
            f"{task}: on 5000 points your function returned {out!r}, not a threshold.{_STABLE_HINT}")
    # The rng argument: the same seed must give the same choice (a flat law, ε = 0.05, so that 20 draws from
    # another generator all agree with probability below 1e-6).
    z, y = _selection_problem()
    same = {float(call_student(fn, (z, y, 8, 0.05, np.random.default_rng(5)), task)) for _ in range(20)}
    require(len(same) == 1, f"{task}: called 20 times with np.random.default_rng(5) your function chose "
                            f"{len(same)} different thresholds. Hint: draw all randomness from the rng argument "
                            f"(rng.gumbel, rng.choice), not from np.random.* or a new generator.")
    _check_two_candidate_law(fn, task)


def _check_two_candidate_law(fn, task):
    """The law on two thresholds whose error counts differ by 16, at ε = 0.5 (u = ε·16/2 = 4).

    The exponential mechanism picks the worse one with p = 1/(1 + e⁴) = 0.0180. Report-noisy-min with Laplace
    noise of scale b on each count picks it with P(L₁ − L₂ > 16) = e^(−16/b)(2 + 16/b)/4: 0.0275 for b = 2/ε and
    0.00084 for b = 1/ε. With N = 20 000 draws the count of the worse pick has sd √(Np(1 − p)) = 18.8; a
    deviation beyond 4.9 sd (two-sided false alarm 1e-6) is 92, while the Laplace variants are off by 190 and 343.
    """
    z = np.concatenate([np.zeros(16), np.full(10, 0.9), np.full(10, -0.9)])
    y = np.concatenate([np.ones(16), np.ones(10), -np.ones(10)])
    rng = np.random.default_rng(13)
    N, eps = 20_000, 0.5
    worse = sum(np.isclose(call_student(fn, (z, y, 2, eps, rng), task), 0.5) for _ in range(N))
    p = 1 / (1 + math.exp(4))
    if abs(worse - N * p) <= 4.9 * math.sqrt(N * p * (1 - p)):
        return
    laplace = {b: math.exp(-16 / b) * (2 + 16 / b) / 4 for b in (2 / eps, 1 / eps)}
    if any(abs(worse - N * q) <= 4.9 * math.sqrt(N * q * (1 - q)) for q in laplace.values()):
        hint = ("that is report-noisy-min with Laplace noise on the error counts, a different mechanism with a "
                "different law. The task asks for the exponential mechanism: probability ∝ exp(−ε·errors/2) "
                "(Gumbel noise on the logits gives exactly that law; Laplace noise does not)")
    else:
        hint = "the probabilities must be exp(−ε·errors_ℓ/2)/Z"
    raise LabCheckError(f"{task}: on two thresholds whose error counts differ by 16 (ε = {eps}), your function "
                        f"chose the worse one {worse} times in {N}; the exponential mechanism does so "
                        f"{N * p:.0f} ± {math.sqrt(N * p * (1 - p)):.0f} times. Hint: {hint}.")


def check_select_threshold(fn):
    """Task 3: ``fn(scores, y, n_thresholds, epsilon, rng)`` → the threshold chosen by the exponential mechanism."""
    task = "Task 3 (select_threshold)"
    require_own_code(fn, {"select_hypothesis", "threshold_grid", "exponential_mechanism"}, task)
    z, y = _selection_problem()
    M, eps = 8, 0.5
    grid = -1 + (2 * np.arange(1, M + 1) - 1) / M
    first = call_student(fn, (z, y, M, eps, np.random.default_rng(0)), task)
    require(_is_real(first), f"{task}: return the chosen threshold as a float, got {type(first).__name__}")
    if not np.any(np.isclose(first, grid)):
        edges = -1 + 2 * np.arange(M + 1) / M
        if isinstance(first, numbers.Integral) or (float(first).is_integer() and 1 < first <= M):
            hint = f"{first!r} looks like an index ℓ: return the threshold t_ℓ itself, a number in (−1, 1)."
        elif np.any(np.isclose(first, edges)):
            hint = "that is a cell edge −1 + 2ℓ/M: use the cell *midpoints*."
        else:
            hint = "return one of the M grid thresholds t_ℓ (the cell midpoints)."
        raise LabCheckError(f"{task}: {first!r} is not on the grid t_ℓ = −1 + (2ℓ − 1)/M, ℓ = 1..M "
                            f"(for M = {M}: {np.round(grid, 3).tolist()}). Hint: {hint}")
    N = 3000
    rng = np.random.default_rng(1)
    draws = np.array([call_student(fn, (z, y, M, eps, rng), task) for _ in range(N)])
    idx = np.argmin(np.abs(draws[:, None] - grid[None, :]), axis=1)
    observed = np.bincount(idx, minlength=M)
    errors = np.array([np.sum(np.where(z - t >= 0, 1.0, -1.0) != y) for t in grid])
    law = np.exp(-eps * (errors - errors.min()) / 2)
    law /= law.sum()
    # χ² at false alarm 1e-6 over the cells with expected count ≥ 5 (pooled rest).
    def pvalue(p):
        expected = N * p
        keep = expected >= 5
        obs = np.append(observed[keep], observed[~keep].sum())
        exp = np.append(expected[keep], expected[~keep].sum())
        if exp[-1] == 0:
            obs, exp = obs[:-1], exp[:-1]
        return stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue
    if pvalue(law) < 1e-6:
        if len(np.unique(idx)) == 1:
            raise LabCheckError(f"{task}: you always return the same threshold ({draws[0]:.3g}). That is the "
                                "non-private argmin. Hint: sample ℓ with probability ∝ exp(−ε·errors_ℓ/2).")
        too_sharp = np.exp(-eps * (errors - errors.min()))
        if pvalue(too_sharp / too_sharp.sum()) > 1e-6:
            # Report-noisy-min with Laplace(1/ε) noise has a law close to this one, too close to tell apart here.
            raise LabCheckError(f"{task}: your selection law looks like ∝ exp(−ε·errors): either the 1/2 is missing "
                                "(the exponential mechanism uses exp(ε·score/(2Δ)), with Δ = 1 for an error count), "
                                "or this is report-noisy-min with Laplace(1/ε) noise, a different mechanism. Hint: "
                                "sample ℓ with probability ∝ exp(−ε·errors_ℓ/2) (Gumbel-max does exactly that).")
        # Name a slip only if its own law fits the draws (χ² at 1e-6 as above).
        rates = np.exp(-eps * (errors - errors.min()) / (2 * len(z)))
        strict = np.array([np.sum(np.where(z - t > 0, 1.0, -1.0) != y) for t in grid])
        strict_law = np.exp(-eps * (strict - strict.min()) / 2)
        if pvalue(rates / rates.sum()) > 1e-6:
            hint = ("your law fits exp(−ε·rate/2) with the error *rate* errors/n: the score of the exponential "
                    "mechanism here is the error *count*, whose sensitivity is 1 (a rate would need Δ = 1/n).")
        elif not np.array_equal(strict, errors) and pvalue(strict_law / strict_law.sum()) > 1e-6:
            hint = "count errors with sign(0) = +1 (predict +1 when z − t = 0: use >= 0)."
        else:
            hint = ("the probabilities must be exp(−ε·errors_ℓ/2)/Z with the error counts; sample in log space "
                    "(Gumbel-max or subtract the maximum).")
        raise LabCheckError(f"{task}: the frequencies of your thresholds do not follow "
                            f"exp(−ε·errors/2)/Z (χ² test at 1e-6). Hint: {hint}")
    _check_selection_properties(fn, task)
    passed(task)


# --- Task 4: a sensitivity the chapter does not print (coordinatewise clipping, add/remove neighbours) ----------

def _zcdp_epsilon(rho, delta):
    """ε of ρ-zCDP at δ (Lemma 6.6 (iii)): ρ + 2√(ρ·log(1/δ))."""
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def _extremal_gap(clip, dimension, n):
    """‖ḡ_S(v) − ḡ_S'(v)‖ on a worst pair built here: S' adds one row at the corner (c, …, c) whose sign is +1.

    With the public normaliser n only that term differs, so the gap is c·‖(1, …, 1)‖/n = c√D/n — computed from
    the rows themselves (not from the formula) so that a Δ below it is refuted by an explicit pair.
    """
    rows = np.full((3, dimension), clip)  # S: three rows on the corner, with residual signs −1
    added = np.full(dimension, clip)      # S' = S + one corner row with residual sign +1
    g_S = -rows.sum(axis=0) / n
    g_S_prime = (-rows.sum(axis=0) + added) / n
    return float(np.linalg.norm(g_S - g_S_prime))


_CLIP_CASES = [(1.0, 1, 100, 1.0, 1e-5, 1), (0.5, 16, 2000, 0.5, 1e-6, 300)]


def check_coordinate_clip_sigma(fn):
    """Task 4: ``fn(clip, dimension, n, epsilon, delta, n_iterations)`` → (sensitivity, sigma).

    Features clipped coordinatewise to [−c, c] (D coordinates), ḡ(v) = (1/n)·Σ_{i∈S} sign(⟨v, F_i⟩ − y_i)F_i with
    a public n, add/remove-one neighbours. The defining properties: Δ bounds ‖ḡ_S − ḡ_S'‖ on every neighbouring
    pair, and is attained (so no larger); σ makes K Gaussian steps spend exactly the budget ε at δ through zCDP.
    """
    task = "Task 4 (coordinate_clip_sigma)"
    require_own_code(fn, {"dp_erm_sigma", "l1_subgradient_sensitivity", "zcdp_rho", "zcdp_epsilon",
                          "noisy_projected_subgradient_descent"}, task)
    rng = np.random.default_rng(604)
    cases = list(_CLIP_CASES)
    for _ in range(4):  # parameters the student cannot know in advance
        cases.append((float(rng.uniform(0.1, 3.0)), int(rng.integers(2, 400)), int(rng.integers(50, 50_000)),
                      float(rng.uniform(0.1, 5.0)), float(10.0 ** -rng.uniform(3, 8)), int(rng.integers(1, 3000))))
    for c, D, n, eps, delta, K in cases:
        out = call_student(fn, (c, D, n, eps, delta, K), task)
        require(isinstance(out, tuple) and len(out) == 2, f"{task}: return a tuple (sensitivity, sigma), got {out!r:.80}")
        sens, sigma = out
        require(_is_real(sens) and _is_real(sigma),
                f"{task}: both entries must be real numbers (floats), got {type(sens).__name__} and "
                f"{type(sigma).__name__}")
        sens, sigma = float(sens), float(sigma)
        gap = _extremal_gap(c, D, n)
        call = f"for c = {c:.4g}, D = {D}, n = {n}"
        if sens < gap * (1 - 1e-9):
            if D > 1 and math.isclose(sens, 2 * c / n, rel_tol=1e-9) or math.isclose(sens, c / n, rel_tol=1e-9):
                why = ("a clipped row is not of norm c: every coordinate may be ±c, so the corner (c, …, c) has "
                       "ℓ2 norm c√D")
            else:
                why = teaching_hint(task, "build the worst pair yourself: which row of the clipped box is longest in "
                                          "ℓ2, and how many terms of the sum differ between S and S + {z}?",
                                    "Δ = c·√D/n.")
            raise LabCheckError(f"{task}: Δ = {sens:.4g} {call} is too small: adding one corner row (c, …, c) to S "
                                f"moves ḡ by {gap:.4g} > Δ, so your noise would not hide that example. Hint: {why}")
        if not math.isclose(sens, gap, rel_tol=1e-9):
            bugs = [(2 * gap, "that is the replace-one bound (one term leaves and another enters). Under add/remove "
                              "one term appears or disappears, and the normaliser n is public, so no other term moves"),
                    (c * D / n, "c·D/n is the ℓ1 norm of the corner; the Gaussian mechanism needs the ℓ2 "
                                "sensitivity"),
                    (2 * c * D / n, "c·D/n is the ℓ1 norm of the corner, and the factor 2 is the replace-one habit; "
                                    "use the ℓ2 norm, and count the terms that differ under add/remove")]
            for value, hint in bugs:
                if math.isclose(sens, value, rel_tol=1e-9):
                    raise LabCheckError(f"{task}: Δ = {sens:.4g} {call}, larger than the largest possible move "
                                        f"{gap:.4g} of ḡ. Hint: {hint}.")
            raise LabCheckError(f"{task}: Δ = {sens:.4g} {call} is {sens / gap:.3g} × the largest possible move of ḡ "
                                f"between neighbours. A larger Δ is safe but wastes accuracy; the task asks for the "
                                f"sensitivity itself. Hint: " + teaching_hint(
                                    task, "bound ‖ḡ_S − ḡ_S'‖ for S' = S + {z} term by term, then find a pair where "
                                          "the bound is reached.", "Δ = c·√D/n."))
        require(sigma > 0, f"{task}: σ must be positive, got {sigma!r} {call}")
        spent = _zcdp_epsilon(K * gap ** 2 / (2 * sigma ** 2), delta)
        if math.isclose(spent, eps, rel_tol=1e-6):
            continue
        if K > 1 and math.isclose(_zcdp_epsilon(gap ** 2 / (2 * sigma ** 2), delta), eps, rel_tol=1e-6):
            raise LabCheckError(f"{task}: with your σ = {sigma:.4g} the K = {K} steps spend ε = {spent:.4g}, not "
                                f"{eps:.4g}: σ pays for one step only. Hint: K steps of Δ²/(2σ²)-zCDP compose to "
                                f"K·Δ²/(2σ²); set that equal to the budget ρ.")
        hint = teaching_hint(task, "convert (ε, δ) to a zCDP budget ρ (Lemma 6.6 (iii) solved for ρ) and spend it on "
                                   "K Gaussian steps of sensitivity Δ, each Δ²/(2σ²)-zCDP.",
                             "ρ = (√(log(1/δ) + ε) − √log(1/δ))², σ = Δ·√(K/(2ρ)).")
        raise LabCheckError(f"{task}: with your σ = {sigma:.4g} (and the right Δ) the K = {K} steps are "
                            f"(ε = {spent:.4g}, δ = {delta:.3g})-DP, but the budget is ε = {eps:.4g} "
                            f"({'too much noise' if spent < eps else 'too little noise: not private'}). Hint: {hint}")
    passed(task)


# --- Task 5: ‖ψ_p(x)‖² without the D_p features (a recurrence over the coordinates) -----------------------------

def _level_norms(H):
    """H[..., i, m] = h_m(x_i)²; returns L[..., m] = Σ_{|κ| = m} Π_i h_{κ_i}(x_i)² by convolution over coordinates."""
    levels = H[..., 0, :]
    degree = H.shape[-1] - 1
    for i in range(1, H.shape[-2]):
        new = np.zeros_like(levels)
        for m in range(degree + 1):
            new[..., m] = np.sum(levels[..., :m + 1] * H[..., i, m::-1], axis=-1)
        levels = new
    return levels


def _squared_1d(X, degree, normalised=True):
    H = _reference_h(X, degree) ** 2
    if not normalised:
        H = H * np.array([math.factorial(m) for m in range(degree + 1)], dtype=float)
    return H


def _feature_norm_reference(X, degree):
    return _level_norms(_squared_1d(X, degree)).sum(axis=-1)


def check_feature_norms(fn):
    """Task 5: ``fn(X, degree)`` → array (n,) of ‖ψ_p(x_i)‖² = Σ_{|κ| ≤ p} Π_j h_{κ_j}(x_ij)², for X of shape (n, d)."""
    task = "Task 5 (feature_norms)"
    require_own_code(fn, {"hermite_features", "iter_hermite_features", "hermite_feature_sum",
                          "clipped_hermite_features", "clip_features", "clip_radius", "_features",
                          "_unchecked_features", "hermite_features_unchecked", "_norm_sample"}, task)
    rng = np.random.default_rng(605)
    shapes = [(5, 1, 3), (6, 2, 2), (7, 3, 4), (4, 5, 3), (3, 8, 5), (6, 4, 1), (2, 6, 2)]  # degree ≥ 1, as in Task 1
    for n, d, degree in shapes:
        X = rng.normal(scale=rng.uniform(0.5, 2.0), size=(n, d))
        out = call_student(fn, (X.copy(), degree), task)
        require(isinstance(out, np.ndarray), f"{task}: return a numpy array of shape (n,), got {type(out).__name__}")
        require(out.shape == (n,), f"{task}: for X of shape {(n, d)} return one norm per row, shape {(n,)}; got "
                                   f"{out.shape}" + (" (did you sum over the wrong axis?)" if out.shape == (d,) else ""))
        want = _feature_norm_reference(X, degree)
        if np.allclose(out, want, rtol=1e-9, atol=1e-12):
            continue
        H = _squared_1d(X, degree)
        level_p = _level_norms(H)[:, -1]
        box = np.prod(H.sum(axis=-1), axis=-1)
        pure = 1 + np.sum(H[..., 1:], axis=(-1, -2))
        raw = _level_norms(_squared_1d(X, degree, normalised=False)).sum(axis=-1)
        unsquared = _level_norms(np.sqrt(H) * np.sign(_reference_h(X, degree))).sum(axis=-1)
        mistakes = [
            (level_p, "you kept only the multi-indices with |κ| = p. ψ_p has every κ with |κ| ≤ p, all levels 0..p"),
            (box, "Π_j Σ_{m≤p} h_m(x_j)² counts every κ with each κ_j ≤ p (a box of (p+1)^d indices), not the "
                  "|κ| = κ_1 + … + κ_d ≤ p of ψ_p: the degrees of the coordinates share one budget p"),
            (pure, "you summed h_m(x_j)² coordinate by coordinate, which keeps only the κ with one non-zero entry. "
                   "h_κ is a product over the coordinates, so the mixed κ (e.g. h_1(x_1)h_1(x_2)) count too"),
            (raw, "these are the unnormalised He_m: ψ_p uses h_m = He_m/√(m!)"),
            (unsquared, "you summed the products h_κ(x) themselves; the task asks for Σ_κ h_κ(x)²"),
        ]
        for value, hint in mistakes:
            if d > 1 or not (value is box or value is pure):  # for d = 1 those two are right
                if np.allclose(out, value, rtol=1e-9, atol=1e-12):
                    raise LabCheckError(f"{task}: wrong ‖ψ_p(x)‖² for d = {d}, p = {degree}: {hint}.")
        i = int(np.argmax(np.abs(out - want)))
        hint = teaching_hint(task, "‖ψ_p(x)‖² = Σ_{|κ|≤p} Π_j h_{κ_j}(x_j)²: process the coordinates one at a time "
                                   "and keep, for each total degree m ≤ p, the sum over the coordinates seen so far "
                                   "(a polynomial in r truncated at r^p). A check: the mean over Gaussian x is D_p.",
                             "with L_m the level sums after coordinates 1..j−1, the new levels are "
                             "L'_m = Σ_{k=0..m} L_(m−k)·h_k(x_j)²; the answer is Σ_{m≤p} L_m.")
        raise LabCheckError(f"{task}: for d = {d}, p = {degree}, row {i} you return {out[i]:.6g}, expected "
                            f"{want[i]:.6g}. Hint: {hint}")
    _check_feature_norms_work(fn, task)
    passed(task)


#: The work budget of Task 5 (theory review N8): Python lines the student's code may run for 2 rows at d = 50,
#: p = 5, where D_p = C(55, 5) = 3 478 761. The recurrence over the coordinates runs O(d·p²) steps: even written
#: as three nested Python loops over rows, coordinates and (m, k) it is 2·50·21 = 2100 iterations of a few
#: lines, ~10⁴; vectorised over rows, a few hundred. Any enumeration of the multi-indices in Python runs at least
#: one line per κ, 3.5·10⁶. 100 000 lies between with a factor ≥ 10 on each side. Lines are counted, not timed
#: (checking.call_student_counting_lines), so the verdict does not depend on the machine or its load.
FEATURE_NORM_BUDGET = 100_000


def _check_feature_norms_work(fn, task):
    d, degree = 50, 5
    X = np.random.default_rng(606).normal(size=(2, d))
    out, lines = call_student_counting_lines(fn, (X.copy(), degree), task, FEATURE_NORM_BUDGET)
    require(lines <= FEATURE_NORM_BUDGET,
            f"{task}: right on small inputs, but for 2 rows at d = {d}, p = {degree} (D_p = "
            f"{math.comb(d + degree, degree):,} multi-indices) your code ran more than {FEATURE_NORM_BUDGET:,} lines "
            f"of Python: it enumerates the multi-indices κ. The task asks for O(n·d·p²) work without building the "
            f"features: carry, coordinate by coordinate, the sums for each total degree m ≤ p.")
    want = _feature_norm_reference(X, degree)
    require(isinstance(out, np.ndarray) and out.shape == (2,) and np.allclose(out, want, rtol=1e-9, atol=1e-12),
            f"{task}: right on small inputs but wrong for 2 rows at d = {d}, p = {degree}.")
