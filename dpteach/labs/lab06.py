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

__all__ = ["check_hermite_1d", "check_step_sigma", "check_select_threshold"]


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
    passed(task)


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
            raise LabCheckError(f"{task}: σ = {sigma:.4g}, expected {want_sigma:.4g} for T = {T}, n = {n}, "
                                f"ε = {eps}, δ = {delta}, K = {K}. Hint: ρ = (√(log(1/δ)+ε) − √log(1/δ))², "
                                "σ = Δ·√(K/(2ρ)).")
    passed(task)


def _selection_problem():
    rng = np.random.default_rng(606)
    z = rng.uniform(-1.2, 1.2, 60)
    y = np.where(z - 0.1 + rng.normal(0, 0.4, 60) >= 0, 1.0, -1.0)
    return z, y


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
        raise LabCheckError(f"{task}: {first!r} is not on the grid t_ℓ = −1 + (2ℓ − 1)/M, ℓ = 1..M "
                            f"(for M = {M}: {np.round(grid, 3).tolist()}). Hint: use the cell *midpoints*, not "
                            "the cell edges −1 + 2ℓ/M.")
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
            raise LabCheckError(f"{task}: your selection law is ∝ exp(−ε·errors), missing the 1/2. Hint: the "
                                "exponential mechanism uses exp(ε·score/(2Δ)), with Δ = 1 for an error count.")
        raise LabCheckError(f"{task}: the frequencies of your thresholds do not follow "
                            "exp(−ε·errors/2)/Z (χ² test at 1e-6). Hint: count errors with sign(0) = +1, "
                            "and sample in log space (Gumbel-max or subtract the maximum).")
    passed(task)
