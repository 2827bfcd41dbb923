"""Checkers for Lab 8, "Semi-agnostic halfspaces" (book/labs/lab08_dpsas.ipynb, chapter 8).

The tasks and their checkers:

1. :func:`check_ramp_gradient` — ``fn(w, X, y, a, b)``: the gradient of the ramp loss at a unit w (Lemma 8.2);
2. :func:`check_round_sigma` — ``fn(n, d, n_rounds, epsilon, delta)``: the per-round noise σ of DPSAS for a split;
3. :func:`check_eta_grid_and_validation` — ``fn(alpha, epsilon, beta)``: the η grid and |D_val| of Algorithm 8.9;
5. :func:`check_soft_ramp_gradient` — ``fn(w, X, y, a, b)``: the gradient of a *soft* ramp loss at any w ≠ 0
   (a surrogate the chapter does not treat; derived with the chain rule as Lemma 8.2 is);
6. :func:`check_reuse_sigma` — ``fn(n, d, n_rounds, epsilon, delta)``: the per-release σ of DPSAS with sample reuse
   under the zCDP accountant (parallel composition across blocks, sequential composition inside the reused one).

(Task 4 is the written proof.)

Each checker computes the reference *here* (finite differences of the loss for
task 1; ``dpteach.mechanisms.gaussian_sigma``, which the students may call, for
task 2; closed forms for task 3), tries the inputs the lab itself uses, and
names the likely bug of a wrong answer. All checks are deterministic. Tasks 5 and 6 test the defining property
(finite differences of the stated loss at random non-unit w; the zCDP budget that the student's σ spends) on
inputs drawn inside the checker, and their fallback hints give the formula only after repeated tries
(:func:`~dpteach.labs.checking.teaching_hint`).
"""

from __future__ import annotations

import math

import numpy as np

from ..dp_erm import zcdp_rho
from ..mechanisms import gaussian_sigma
from . import LabCheckError, call_student, passed, require, require_own_code, require_real
from .checking import (VECTORISED_SIZE, check_formula_answers, require_float_array, require_vectorised,
                       teaching_hint)

__all__ = ["check_ramp_gradient", "check_round_sigma", "check_eta_grid_and_validation", "check_soft_ramp_gradient",
           "check_reuse_sigma"]


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


def _require_vectorised_gradient(fn, task):
    """The statement asks for no Python loop over the examples: VECTORISED_SIZE of them within the line budget."""
    rng = np.random.default_rng(81)
    X = rng.standard_normal((VECTORISED_SIZE, 5))
    w = np.ones(5) / math.sqrt(5)
    require_vectorised(fn, (w, X, rng.choice([-1.0, 1.0], VECTORISED_SIZE), 1.0, 0.0), task, "examples")


def check_ramp_gradient(fn):
    """Task 1: ``fn(w, X, y, a, b)`` returns ∇L̂(w) at a unit w (Lemma 8.2), an array of shape (d,).

    Checks: the type and shape; orthogonality to w; agreement with central
    finite differences of the ramp loss (computed here) on three inputs whose
    points are all ≥ 1e-3 from the kinks. A mismatch is diagnosed as a sign
    error, a sum instead of a mean, a band centred at −b, or a missing projection.
    """
    task = "Task 1 (ramp-loss gradient)"
    require_own_code(fn, ("ramp_loss_gradient", "dpsas_round", "_ramp_gradient", "unit_ramp_gradient", "dpsas_round_prechecked"), task)
    for w, X, y, a, b in _gradient_cases():
        where = f"with d = {w.size}, m = {len(y)}, a = {a}, b = {b}"
        out = call_student(fn, (w.copy(), X.copy(), y.copy(), a, b), task)
        out = require_float_array(out, w.shape, task, where, "gradient")
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
    _require_vectorised_gradient(fn, task)
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
    require_own_code(fn, ("dpsas_noise_sigma", "_sigma", "dpsas_noise_sigma_prechecked"), task)
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
                        "just below 0.25 has no η_k in [OPT, 2·OPT]")
            elif grid.size and np.isclose(grid[0], right[0]) and grid.size > right.size:
                hint = "the grid goes too far: stop at the first value ≥ 0.25 (every η_k must stay below 1/2)"
            else:
                hint = "η_k = 1.5α·2^(k−1) for k = 1..K, doubling until the first value ≥ 0.25"
            raise LabCheckError(f"{task}: {where} returned the grid {np.round(grid, 4)}. Hint: {hint}.")
        require(_is_number(n_val) and float(n_val) == int(float(n_val)) and not isinstance(n_val, float),
                f"{task}: {where}: n_validation should be an int (a number of examples), got {n_val!r}.")
        k = right.size
        expected = _validation_reference(alpha, epsilon, beta, k)
        if int(n_val) == expected:
            continue
        m1, m2 = 8 * math.log(8 * k / beta) / alpha ** 2, 4 * math.log(4 * k / beta) / (epsilon * alpha)
        if int(n_val) == math.ceil(max(m1, m2)):  # first: it equals ⌈m₁⌉ or ⌈m₂⌉, but nothing was dropped
            hint = ("⌈max(m₁, m₂)⌉ makes each term ≤ α/2 as well, but the task asks for Algorithm 8.9's "
                    "size ⌈m₁ + m₂⌉ (the paper's sum form O(log(K/β)/α² + log(K/β)/(αε)), dpsas.validation_size)")
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
        # The right size is not printed (the cases are fixed: printed sizes would make a table of answers).
        raise LabCheckError(f"{task}: {where}: n_validation = {n_val} is too "
                            f"{'large' if int(n_val) > expected else 'small'}. Hint: {hint}.")
    print(f"At α = 0.05, ε = 1, β = 0.1: grid {np.round(_grid_reference(0.05), 3)}, "
          f"|D_val| = {_validation_reference(0.05, 1.0, 0.1, 3)}.")
    passed(task)


# --- Task 5: the gradient of a soft ramp loss (a surrogate the chapter does not treat) ---------------

def _soft_loss(w, X, y, a, b):
    """L(w) = −mean(r(⟨w,x⟩/‖w‖)·y) with the soft ramp r(z) = a·(1 + tanh((z − b)/a)), as the lab states it."""
    z = X @ w / np.linalg.norm(w)
    return -np.mean(a * (1.0 + np.tanh((z - b) / a)) * y)


def _soft_weighted_gradient(w, X, y, weights):
    """−(1/(m‖w‖))·(I − w̄w̄ᵀ)·Σ y·weight·x: the chain-rule shape shared by the right answer and its variants."""
    norm = np.linalg.norm(w)
    unit = w / norm
    pulled = (y * weights) @ X / len(y)
    return -(pulled - (pulled @ unit) * unit) / norm


def _soft_cases():
    """Random inputs drawn here (seeds the student does not see): non-unit w of norms 0.4 and 3, a ≠ 1, d ≥ 2."""
    cases = []
    for seed, (d, m, a, b, scale) in enumerate([(2, 300, 0.5, 0.2, 0.4), (5, 800, 1.7, -0.4, 3.0),
                                                (12, 1500, 0.8, 0.1, 1.0), (7, 400, 0.3, 0.0, 2.5)]):
        rng = np.random.default_rng(8500 + seed)
        X = rng.standard_normal((m, d))
        y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
        w = rng.standard_normal(d)
        cases.append((scale * w / np.linalg.norm(w), X, y, a, b))
    return cases


def _central_differences(loss, w, *args, h=1e-6):
    return np.array([(loss(w + h * e, *args) - loss(w - h * e, *args)) / (2 * h) for e in np.eye(w.size)])


_SOFT_FORMULA = ("∇L(w) = −(1/(m‖w‖))·(I − w̄w̄ᵀ)·Σᵢ yᵢ·r′(⟨w̄, xᵢ⟩)·xᵢ with w̄ = w/‖w‖ and "
                 "r′(z) = 1 − tanh²((z − b)/a) (the a in front of tanh cancels the 1/a of the inner derivative).")


def check_soft_ramp_gradient(fn):
    """Task 5: ``fn(w, X, y, a, b)`` returns ∇L(w) of the soft-ramp loss at any w ≠ 0, shape (d,).

    The loss is L(w) = −(1/m)·Σ r(⟨w, x⟩/‖w‖)·y with r(z) = a·(1 + tanh((z − b)/a)), a smooth ramp of
    the same range (0, 2a) and the same slope 1 at z = b as Eq. (12)'s. The property checked is the
    definition of a gradient: agreement with central finite differences of L (computed here; L is smooth,
    so they are accurate to ~1e-9) on four random inputs with ‖w‖ ∈ {0.4, 3, 1, 2.5}, and ⟨g, w⟩ = 0. A
    mismatch is diagnosed as a missing projection, a missing 1/‖w‖ (visible only at ‖w‖ ≠ 1), the hard
    band of Lemma 8.2, the ramp's value instead of its derivative, a missing inner derivative, a sign
    error or a sum instead of a mean; otherwise the hint points to the chain rule, with the formula from
    the third failed try on.
    """
    task = "Task 5 (soft-ramp gradient)"
    require_own_code(fn, ("ramp_loss_gradient", "dpsas_round", "_ramp_gradient", "unit_ramp_gradient", "dpsas_round_prechecked"), task)
    for w, X, y, a, b in _soft_cases():
        where = f"with d = {w.size}, m = {len(y)}, ‖w‖ = {np.linalg.norm(w):.2g}, a = {a}, b = {b}"
        out = call_student(fn, (w.copy(), X.copy(), y.copy(), a, b), task)
        out = require_float_array(out, w.shape, task, where, "gradient")
        reference = _central_differences(_soft_loss, w, X, y, a, b)
        scale = max(np.linalg.norm(reference), 1e-12)
        # central differences with h = 1e-6 of a smooth loss: error O(h²) + rounding O(1e-16/h) ≪ 1e-6·scale
        if np.linalg.norm(out - reference) <= 1e-6 * scale + 1e-9:
            continue
        z = X @ w / np.linalg.norm(w)
        u = (z - b) / a
        norm = np.linalg.norm(w)

        def close(candidate):
            return np.allclose(out, candidate, rtol=1e-5, atol=1e-9 * scale)

        if abs(out @ w) > 1e-6 * scale * norm:
            hint = ("the gradient of a function of w/‖w‖ is orthogonal to w (the loss does not change along w): "
                    "project with (I − w̄w̄ᵀ), as in the proof of Lemma 8.2")
        elif not np.isclose(norm, 1.0) and close(norm * reference):
            hint = (f"your gradient is ‖w‖ = {norm:.2g} times the right one: the derivative of ⟨w, x⟩/‖w‖ carries "
                    f"a factor 1/‖w‖ (quotient rule), which disappears only at a unit w")
        elif not np.isclose(norm, 1.0) and close(reference / norm):
            hint = f"your gradient is 1/‖w‖ = {1 / norm:.2g} times the right one: divide by ‖w‖ once, not twice"
        elif close(_soft_weighted_gradient(w, X, y, (np.abs(z - b) <= a).astype(float))):
            hint = ("you used the hard band 1{|z − b| ≤ a}, the derivative of Eq. (12)'s piecewise ramp; this ramp "
                    "is smooth, so every example contributes, with the weight r′ of its projection")
        elif close(_soft_weighted_gradient(w, X, y, a * (1 + np.tanh(u)))):
            hint = "you weighted each example by the ramp's value r(z); the chain rule needs its derivative r′(z)"
        elif close(_soft_weighted_gradient(w, X, y, a * (1 - np.tanh(u) ** 2))):
            hint = (f"your gradient is a = {a} times the right one: differentiating tanh((z − b)/a) brings a "
                    f"factor 1/a (inner derivative), which cancels the a in front")
        elif close(-reference):
            hint = "your gradient has the wrong sign: the loss is −r(·)·y, so more margin means a smaller loss"
        elif close(len(y) * reference):
            hint = f"your gradient is m = {len(y)} times too large: the loss is a mean over the m examples"
        else:
            hint = teaching_hint(task, "differentiate L with the chain rule: the derivative of the soft ramp at "
                                       "z = ⟨w̄, x⟩, times the gradient of ⟨w, x⟩/‖w‖ with respect to w (the "
                                       "quotient rule; see the proof of Lemma 8.2), averaged with the labels.",
                                 _SOFT_FORMULA)
        raise LabCheckError(f"{task}: {where} your gradient differs from the finite differences of the soft-ramp "
                            f"loss by {np.linalg.norm(out - reference):.3g} (norm of the right one: {scale:.3g}). "
                            f"Hint: {hint}")
    _require_vectorised_gradient(fn, task)
    print("Matches finite differences of the soft-ramp loss on 4 random inputs (‖w‖ ≠ 1 included), and ⟨g, w⟩ = 0.")
    passed(task)


# --- Task 6: sample reuse under the zCDP accountant ---------------------------------------------------

def _reuse_sigma_reference(n, d, n_rounds, epsilon, delta):
    rest = n - n // (n_rounds + 2)  # D_τ keeps its block; ŵ₀ and every round read the rest
    return 2 * (2 * math.sqrt(d)) / rest * math.sqrt((n_rounds + 1) / (2 * zcdp_rho(epsilon, delta)))


def _reuse_cases():
    """The lab's demo setting and inputs drawn here (seeded), with a small ε and a 1-round edge case."""
    rng = np.random.default_rng(8600)
    cases = [(200_000, 10, 54, 1.0, 1e-5), (1_000, 2, 1, 0.1, 1e-6)]
    for _ in range(3):
        cases.append((int(rng.integers(5_000, 2_000_000)), int(rng.integers(2, 40)), int(rng.integers(2, 120)),
                      float(rng.choice([0.3, 1.0, 2.0, 8.0])), float(rng.choice([1e-5, 1e-7]))))
    return tuple(cases)


def _rho(sigma, n, d, n_rounds):
    """The zCDP cost on D_rest of n_rounds + 1 Gaussian releases with noise σ (sensitivity 2L/|D_rest|)."""
    sensitivity = 4 * math.sqrt(d) / (n - n // (n_rounds + 2))
    return (n_rounds + 1) * sensitivity ** 2 / (2 * sigma ** 2)


def _rest(n, T):
    return n - n // (T + 2)


_REUSE_BUGS = (
    ("m₀ is a number of examples, an integer: m₀ = n // (n_rounds + 2), not n/(n_rounds + 2) (the difference is "
     "small, but σ must spend exactly the budget, to 1e-6)",
     lambda n, d, T, e, dl: 4 * math.sqrt(d) / (n - n / (T + 2)) * math.sqrt((T + 1) / (2 * zcdp_rho(e, dl)))),
    ("ŵ₀ reads D_rest too: the variant keeps only D_τ apart, so the reused set has n − m₀ examples, not n − 2m₀",
     lambda n, d, T, e, dl: 4 * math.sqrt(d) / (n - 2 * (n // (T + 2))) * math.sqrt((T + 1) / (2 * zcdp_rho(e, dl)))),
    ("count the Gaussian releases that read D_rest: the initial direction ŵ₀ is one as well as the T_r rounds",
     lambda n, d, T, e, dl: 4 * math.sqrt(d) / _rest(n, T) * math.sqrt(T / (2 * zcdp_rho(e, dl)))),
    ("the Laplace step reads D_τ, which is disjoint from D_rest: by parallel composition it costs D_rest "
     "nothing, and each part may spend the whole budget",
     lambda n, d, T, e, dl: 4 * math.sqrt(d) / _rest(n, T) * math.sqrt((T + 2) / (2 * zcdp_rho(e, dl)))),
    ("the releases all read the same examples D_rest, so they compose sequentially: the zCDP costs add up",
     lambda n, d, T, e, dl: 4 * math.sqrt(d) / _rest(n, T) * math.sqrt(1 / (2 * zcdp_rho(e, dl)))),
    ("σ grows like the square root of the number of releases, not linearly: zCDP adds the ρ's, and ρ is "
     "quadratic in 1/σ",
     lambda n, d, T, e, dl: 4 * math.sqrt(d) / _rest(n, T) * (T + 1) * math.sqrt(1 / (2 * zcdp_rho(e, dl)))),
    ("each release averages over all of D_rest, not over a fresh block of m₀: the sensitivity is 2L/|D_rest|",
     lambda n, d, T, e, dl: 4 * math.sqrt(d) / (n // (T + 2)) * math.sqrt((T + 1) / (2 * zcdp_rho(e, dl)))),
    ("your σ is half the right one: replacing one example removes one vector of norm ≤ L and adds another "
     "(Δ = 2L/|D_rest|), or the clipping radius is √d instead of L = 2√d",
     lambda n, d, T, e, dl: 0.5 * _reuse_sigma_reference(n, d, T, e, dl)),
    ("that is the exact Gaussian-DP calibration (what dpsas_sample_reuse uses); this task asks for the zCDP "
     "accountant: each release is Δ²/(2σ²)-zCDP and the total must equal zcdp_rho(ε, δ)",
     lambda n, d, T, e, dl: gaussian_sigma(4 * math.sqrt(d) / _rest(n, T) * math.sqrt(T + 1), e, dl)),
    ("convert (ε, δ) to ρ with zcdp_rho(ε, δ) (ρ + 2√(ρ ln(1/δ)) = ε), not ρ = ε²/2",
     lambda n, d, T, e, dl: 4 * math.sqrt(d) / _rest(n, T) * math.sqrt((T + 1) / e ** 2)),
)


def check_reuse_sigma(fn):
    """Task 6: ``fn(n, d, n_rounds, epsilon, delta)`` returns σ of DPSAS with sample reuse (a float), zCDP accountant.

    The variant: D_τ keeps its block of m₀ = n // (n_rounds + 2) examples (Laplace step); all the other
    n − m₀ examples form D_rest, which ŵ₀ and every round reuse, each release adding N(0, σ²) to a mean
    of clipped vectors (L = 2√d). The property: with the student's σ, the n_rounds + 1 releases on D_rest
    must spend exactly the budget ρ = zcdp_rho(ε, δ) (less noise is not (ε, δ)-DP by this accountant, more
    is wasted), i.e. σ = (2L/(n − m₀))·√((n_rounds + 1)/(2ρ)). Tried on the lab's setting and on inputs
    drawn here; a wrong value is matched against the typical bugs, else the privacy it spends is reported.
    """
    task = "Task 6 (sample-reuse σ)"
    require_own_code(fn, ("dpsas_sample_reuse", "dpsas_noise_sigma", "_sigma", "dpsas_noise_sigma_prechecked", "_initial_direction", "private_initial_direction", "private_initial_direction_prechecked"), task)
    for case in _reuse_cases():
        out = require_real(call_student(fn, case, task), task, f"fn{case}")
        right = _reuse_sigma_reference(*case)
        if abs(out / right - 1) <= 1e-6:
            continue
        for hint, bug in _REUSE_BUGS:
            if abs(out / bug(*case) - 1) <= 1e-6:
                raise LabCheckError(f"{task}: fn{case} returned {out:.8g}, the right σ is {right:.8g}. Hint: {hint}.")
        budget = zcdp_rho(*case[3:])
        spent = _rho(out, *case[:3]) if out > 0 else math.inf
        verdict = ("more than the budget: the run is not (ε, δ)-DP by this accountant" if spent > budget
                   else "less than the budget: more noise than needed")
        hint = teaching_hint(task, "find the block every Gaussian release reads, its sensitivity under replace-one, "
                                   "how many releases read it, and match their summed zCDP cost to zcdp_rho(ε, δ).",
                             "m₀ = n // (n_rounds + 2), Δ = 2L/(n − m₀) with L = 2√d, and (n_rounds + 1)·Δ²/(2σ²) "
                             "= zcdp_rho(ε, δ), i.e. σ = Δ·√((n_rounds + 1)/(2ρ)).")
        # 8 digits: a σ off by 1e-5 relative must not print as the right value (theory review N9).
        raise LabCheckError(f"{task}: fn{case} returned {out:.8g}, the right σ is {right:.8g}. With your σ the "
                            f"releases on D_rest cost ρ = {spent:.8g} against the budget {budget:.8g}: {verdict}. "
                            f"Hint: {hint}")
    print(f"σ = {_reuse_sigma_reference(200_000, 10, 54, 1.0, 1e-5):.5f} at n = 200 000, d = 10, 54 rounds, ε = 1 "
          f"(fresh blocks: {_sigma_reference(200_000, 10, 54, 1.0, 1e-5):.5f}).")
    passed(task)
