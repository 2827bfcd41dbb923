"""Checkers for Lab 8, "Semi-agnostic halfspaces" (book/labs/lab08_dpsas.ipynb, chapter 8).

The tasks and their checkers:

1. :func:`check_ramp_gradient` — ``fn(w, X, y, a, b)``: the gradient of the ramp loss at a unit w (Lemma 8.2);
2. :func:`check_round_sigma` — ``fn(n, d, n_rounds, epsilon, delta)``: the per-round noise σ of DPSAS for a split;
3. :func:`check_eta_grid_and_validation` — ``fn(alpha, epsilon, beta)``: the η grid and |D_val| of Algorithm 8.9.

Each checker computes the reference *here* (finite differences of the loss for
task 1; ``dpteach.mechanisms.gaussian_sigma``, which the students may call, for
task 2; closed forms for task 3), tries the inputs the lab itself uses, and
names the likely bug of a wrong answer. All checks are deterministic.
"""

from __future__ import annotations

import math

import numpy as np

from ..mechanisms import gaussian_sigma
from . import LabCheckError, call_student, passed, require, require_own_code
from .checking import check_formula_answers

__all__ = ["check_ramp_gradient", "check_round_sigma", "check_eta_grid_and_validation"]


def _is_number(x):
    try:
        return np.ndim(x) == 0 and not isinstance(x, (str, bytes, bool)) and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


# --- Task 1: the ramp-loss gradient ----------------------------------------------------------------

def _loss(w, X, y, a, b):
    z = X @ w / np.linalg.norm(w)
    return -np.mean(np.clip(z - b + a, 0.0, 2.0 * a) * y)


def _finite_difference_gradient(w, X, y, a, b, h=1e-6):
    return np.array([(_loss(w + h * e, X, y, a, b) - _loss(w - h * e, X, y, a, b)) / (2 * h)
                     for e in np.eye(w.size)])


def _gradient_cases():
    """Inputs with no example within 1e-3 of a kink (so finite differences are exact), including the lab's own."""
    cases = []
    for seed, (d, m, a, b) in enumerate([(3, 200, 0.5, -0.2), (6, 500, 0.8, 0.3), (10, 2000, 1.0, -0.5)]):
        rng = np.random.default_rng(800 + seed)
        X = rng.standard_normal((m, d))
        y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
        while True:
            w = rng.standard_normal(d)
            w /= np.linalg.norm(w)
            if np.min(np.abs(np.abs(X @ w - b) - a)) > 1e-3:
                break
        cases.append((w, X, y, a, b))
    return cases


def check_ramp_gradient(fn):
    """Task 1: ``fn(w, X, y, a, b)`` returns ∇L̂(w) at a unit w (Lemma 8.2), an array of shape (d,).

    Checks: the type and shape; orthogonality to w; agreement with central
    finite differences of the ramp loss (computed here) on three inputs whose
    points are all ≥ 1e-3 from the kinks. A mismatch is diagnosed as a sign
    error, a sum instead of a mean, a band centred at −b, or a missing projection.
    """
    task = "Task 1 (ramp-loss gradient)"
    require_own_code(fn, ("ramp_loss_gradient", "dpsas_round", "_ramp_gradient"), task)
    for w, X, y, a, b in _gradient_cases():
        where = f"with d = {w.size}, m = {len(y)}, a = {a}, b = {b}"
        out = call_student(fn, (w.copy(), X.copy(), y.copy(), a, b), task)
        require(isinstance(out, np.ndarray) and out.shape == w.shape and np.issubdtype(out.dtype, np.number),
                f"{task}: {where} your function should return a numpy array of shape {w.shape}, got "
                f"{type(out).__name__} {getattr(out, 'shape', '')}.")
        out = out.astype(float)
        require(np.all(np.isfinite(out)), f"{task}: {where} your gradient has NaN or inf entries.")
        reference = _finite_difference_gradient(w, X, y, a, b)
        scale = max(np.linalg.norm(reference), 1e-12)
        if np.linalg.norm(out - reference) <= 1e-6 * scale + 1e-9:
            continue
        if abs(out @ w) > 1e-6 * scale:
            active = np.abs(X @ w - b) <= a
            unprojected = -((y * active) @ X) / len(y)
            hint = ("you returned −mean(y·1{band}·x) without projecting out w. The derivative of ⟨w,x⟩/‖w‖ is "
                    "(I − wwᵀ)x at a unit w: subtract (g·w)·w" if np.allclose(out, unprojected)
                    else "the gradient of a function of w/‖w‖ is orthogonal to w; multiply by (I − wwᵀ)")
            raise LabCheckError(f"{task}: {where} your gradient is not orthogonal to w "
                                  f"(⟨g, w⟩ = {out @ w:.3g}). Hint: {hint}.")
        if np.allclose(out, -reference, rtol=1e-6, atol=1e-9):
            raise LabCheckError(f"{task}: {where} your gradient has the wrong sign. Hint: the loss is "
                                  f"−r(⟨w,x⟩)·y, so the gradient is −mean(y·1{{band}}·(I − wwᵀ)x).")
        if np.allclose(out, len(y) * reference, rtol=1e-6, atol=1e-9):
            raise LabCheckError(f"{task}: {where} your gradient is m = {len(y)} times too large. Hint: the "
                                  f"loss is an average over the block: divide the sum by m.")
        flipped = _finite_difference_gradient(w, X, y, a, -b)
        if np.allclose(out, flipped, rtol=1e-6, atol=1e-9):
            raise LabCheckError(f"{task}: {where} your band is centred at −b. Hint: the band is "
                                  f"|⟨w, x⟩ − b| ≤ a (with b = b_t = −τ̂ cos φ_t already carrying the sign).")
        raise LabCheckError(f"{task}: {where} your gradient differs from the finite differences of the ramp "
                              f"loss by {np.linalg.norm(out - reference):.3g} (norm of the right one: {scale:.3g}). "
                              f"Hint: only examples with |⟨w, x⟩ − b| ≤ a contribute, each y·(I − wwᵀ)x; use "
                              f"the indicator of the band (the ramp's derivative), not the ramp's value.")
    print("Matches finite differences of the ramp loss on 3 inputs, and ⟨g, w⟩ = 0.")
    passed(task)


# --- Task 2: the per-round noise for a split ----------------------------------------------------

#: Inputs tried, including the lab's own final cell (n = 200 000, d = 10, 54 rounds).
SIGMA_CASES = ((200_000, 10, 54, 1.0, 1e-5), (50_000, 5, 40, 0.5, 1e-6), (1_000_003, 20, 60, 3.0, 1e-5))


def _sigma_reference(n, d, n_rounds, epsilon, delta):
    block = n // (n_rounds + 2)
    return gaussian_sigma(2 * (2 * math.sqrt(d)) / block, epsilon, delta)


_SIGMA_BUGS = (
    ("the block size ignores D_init and D_τ: DPSAS has n_rounds + 2 blocks, m₀ = n // (n_rounds + 2)",
     lambda n, d, T, e, dl: gaussian_sigma(4 * math.sqrt(d) / (n // T), e, dl)),
    ("your σ is for sensitivity 2√d/m₀, half the right one. Either the factor 2 is missing (replacing an "
     "example removes one vector of norm ≤ L and adds another, so Δ = 2L/m₀) or the clipping radius is √d "
     "instead of L = 2√d", lambda n, d, T, e, dl: gaussian_sigma(2 * math.sqrt(d) / (n // (T + 2)), e, dl)),
    ("each round reads only its own fresh block of m₀ = n // (n_rounds + 2) examples, not all n",
     lambda n, d, T, e, dl: gaussian_sigma(4 * math.sqrt(d) / n, e, dl)),
    ("the blocks are disjoint, so the rounds compose in parallel: no √n_rounds factor",
     lambda n, d, T, e, dl: math.sqrt(T) * _sigma_reference(n, d, T, e, dl)),
    ("you used the classic calibration Δ√(2 ln(1.25/δ))/ε; use the analytic one, "
     "dpteach.mechanisms.gaussian_sigma(Δ, ε, δ), which is valid for every ε",
     lambda n, d, T, e, dl: 4 * math.sqrt(d) / (n // (T + 2)) * math.sqrt(2 * math.log(1.25 / dl)) / e),
)


def check_round_sigma(fn):
    """Task 2: ``fn(n, d, n_rounds, epsilon, delta)`` returns the σ of DPSAS's per-round noise (a float).

    Reference: m₀ = n // (n_rounds + 2), L = 2√d, σ = gaussian_sigma(2L/m₀, ε, δ).
    Tried on :data:`SIGMA_CASES`; a wrong value is matched against the typical bugs.
    """
    task = "Task 2 (per-round noise)"
    require_own_code(fn, ("dpsas_noise_sigma", "_sigma"), task)
    # Δ = L/m₀ and L = √d give the same number: one hint names both.
    check_formula_answers(fn, SIGMA_CASES, _sigma_reference, _SIGMA_BUGS, task, "σ",
                          "Algorithm 8.3 splits the data into n_rounds + 2 disjoint blocks, one per round, so "
                          "each round is one Gaussian mechanism on its own block: find the block size, the "
                          "sensitivity of the block's mean gradient under replace-one (the clipping bound L of Algorithm 8.3), and calibrate.",
                          formula="m₀ = n // (n_rounds + 2), L = 2√d, σ = gaussian_sigma(2L/m₀, ε, δ) (the "
                                  "analytic Gaussian σ).")
    print(f"σ = {_sigma_reference(*SIGMA_CASES[0]):.5f} at n = 200 000, d = 10, 54 rounds, ε = 1.")
    passed(task)


# --- Task 3: the η grid and the validation size -------------------------------------------------

#: (α, ε, β). The first has a small ε, where the privacy term m₂ exceeds the statistical m₁, so that dropping
#: either term gives a size that differs from ⌈max(m₁, m₂)⌉ and its own hint.
GRID_CASES = ((0.1, 0.01, 0.1), (0.05, 1.0, 0.1), (0.02, 0.5, 0.05), (0.01, 2.0, 0.1), (0.2, 1.0, 0.1))


def _grid_reference(alpha):
    grid = [1.5 * alpha]
    while grid[-1] < 0.25:
        grid.append(2 * grid[-1])
    return np.array(grid)


def _validation_reference(alpha, epsilon, beta, k):
    return math.ceil(8 * math.log(8 * k / beta) / alpha ** 2 + 4 * math.log(4 * k / beta) / (epsilon * alpha))


def check_eta_grid_and_validation(fn):
    """Task 3: ``fn(alpha, epsilon, beta)`` returns ``(grid, n_validation)`` for Algorithm 8.9.

    grid: η_k = 1.5α·2^{k−1}, doubling until the first value ≥ 0.25 (so every
    OPT ≤ 0.25 has OPT ≤ η_k ≤ 2·OPT, or OPT < η₁); n_validation: Algorithm
    8.9's ⌈m₁ + m₂⌉, where m₁ = 8 ln(8K/β)/α² and m₂ = 4 ln(4K/β)/(εα) make
    each term of Lemma 8.10 (failure β/2) at most α/2 — the paper's sum form
    O(log(K/β)/α² + log(K/β)/(αε)), as ``dpsas.validation_size`` computes.
    """
    task = "Task 3 (η grid and validation size)"
    require_own_code(fn, ("eta_grid", "validation_size", "_eta_grid", "_validation_size"), task)
    for alpha, epsilon, beta in GRID_CASES:
        where = f"fn({alpha}, {epsilon}, {beta})"
        out = call_student(fn, (alpha, epsilon, beta), task)
        require(isinstance(out, tuple) and len(out) == 2,
                f"{task}: {where} should return a tuple (grid, n_validation), got {type(out).__name__}.")
        grid, n_val = np.asarray(out[0], dtype=float).ravel(), out[1]
        right = _grid_reference(alpha)
        if not (grid.shape == right.shape and np.allclose(grid, right)):
            if grid.size and np.isclose(grid[0], alpha):
                hint = "the grid starts at η₁ = 1.5α (the paper: C_η·α with C_η > 1), not at α"
            elif grid.size and np.isclose(grid[0], right[0]) and grid.size < right.size:
                hint = ("the grid stops too early: keep doubling until a value ≥ 0.25 is reached, or an OPT "
                        f"just below 0.25 has no η_k in [OPT, 2·OPT] (the right grid is {np.round(right, 4)})")
            elif grid.size and np.isclose(grid[0], right[0]) and grid.size > right.size:
                hint = "the grid goes too far: stop at the first value ≥ 0.25 (every η_k must stay below 1/2)"
            else:
                hint = f"η_k = 1.5α·2^(k−1) for k = 1..K; the right grid is {np.round(right, 4)}"
            raise LabCheckError(f"{task}: {where} returned the grid {np.round(grid, 4)}. Hint: {hint}.")
        require(_is_number(n_val) and float(n_val) == int(float(n_val)) and not isinstance(n_val, float),
                f"{task}: {where}: n_validation should be an int (a number of examples), got {n_val!r}.")
        k = right.size
        expected = _validation_reference(alpha, epsilon, beta, k)
        if int(n_val) == expected:
            continue
        m1, m2 = 8 * math.log(8 * k / beta) / alpha ** 2, 4 * math.log(4 * k / beta) / (epsilon * alpha)
        if int(n_val) == math.ceil(max(m1, m2)):  # first: it equals ⌈m₁⌉ or ⌈m₂⌉, but nothing was dropped
            hint = (f"⌈max(m₁, m₂)⌉ = {n_val} makes each term ≤ α/2 as well, but the task asks for Algorithm 8.9's "
                    f"size ⌈m₁ + m₂⌉ (the paper's sum form O(log(K/β)/α² + log(K/β)/(αε)), dpsas.validation_size), "
                    f"with m₁ = {m1:.1f} and m₂ = {m2:.1f}")
        elif int(n_val) == math.ceil(m1):
            hint = "you dropped the exponential mechanism's term 4 ln(4K/β)/(εα): privacy costs examples too"
        elif int(n_val) == math.ceil(m2):
            hint = "you dropped the statistical term 8 ln(8K/β)/α² (the validation error of each candidate)"
        elif int(n_val) == math.ceil(8 * math.log(4 * k / beta) / alpha ** 2 + 4 * math.log(2 * k / beta)
                                     / (epsilon * alpha)):
            hint = "Lemma 8.10 is applied with failure probability β/2 (the DPSAS runs take the other β/2)"
        elif int(n_val) == math.ceil(2 * math.log(4 * k / (beta / 2)) / alpha ** 2
                                     + 2 * math.log(2 * k / (beta / 2)) / (epsilon * alpha)):
            hint = "make each of the two terms ≤ α/2, not ≤ α (their sum must be ≤ α)"
        else:
            hint = ("solve 2√(ln(4K/β′)/(2m)) ≤ α/2 and 2 ln(2K/β′)/(εm) ≤ α/2 for m with β′ = β/2, "
                    "add the two solutions and round up")
        raise LabCheckError(f"{task}: {where}: n_validation = {n_val}, the right value is {expected}. Hint: {hint}.")
    print(f"At α = 0.05, ε = 1, β = 0.1: grid {np.round(_grid_reference(0.05), 3)}, "
          f"|D_val| = {_validation_reference(0.05, 1.0, 0.1, 3)}.")
    passed(task)
