"""Checkers for Lab 5, "Private linear regression" (book/labs/lab05_regression.ipynb, chapter 5).

The tasks and their checkers:

1. :func:`check_peel` — ``fn(v, s, epsilon, delta, sensitivity, rng)``: Peeling
   (Algorithm 5.2), checked by its support size, its noiseless limit, its noise
   scale (a Kolmogorov–Smirnov test at false-alarm rate 1e-6 against the scale
   λ·2√(3s ln(1/δ))/ε computed here) and an audit on neighbours at the bound.
2. :func:`check_dp_lasso_step` — ``fn(X, y, beta, step_size, truncation)`` →
   ``(v, sensitivity)``: one clipped gradient step of Algorithm 5.4 and its ℓ∞
   sensitivity (Lemma 5.5), checked against a reference and by a property test
   over neighbours built to break a missing clipping.
3. :func:`check_best_truncation` — ``fn(n, epsilon, candidates, rng)``: choose the
   truncation level T from a grid by simulation, checked against the errors the
   checker measures itself on fresh synthetic data.

Tasks 4 and 5 are derivations the chapter does not print — the ℓ∞ sensitivity of a step with per-record ℓ2
gradient clipping (:func:`check_norm_clipped_step`) and the calibration of a Peeling that releases only its
support (:func:`check_support_scale`); their checkers are in :mod:`dpteach.labs.lab05_derivations` and
re-exported here. Task 6 is a written proof (no checker). Each checker uses only the student's
function of its own task plus dpteach, never another task's answer, and names
the typical mistakes: ε inside the square root, a forgotten √s, no masking, no
noise in the selection, no residual clipping, a wrong sensitivity constant.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import stats

from . import LabCheckError, call_student, passed, require, require_own_code
from .checking import teaching_hint

__all__ = ["check_peel", "check_dp_lasso_step", "check_best_truncation", "check_norm_clipped_step",
           "check_support_scale", "PEEL_SETTINGS", "TRUNCATION_SETTING"]

FALSE_ALARM = 1e-6


def _seeded(seed):
    return np.random.default_rng(seed)


def _peel_scale(s, epsilon, delta, lam):
    # Computed here, independently of dpteach.peeling.
    return lam * 2 * math.sqrt(3 * s * math.log(1 / delta)) / epsilon


# --- Task 1: Peeling ---------------------------------------------------------------------------

# Two settings, ε < 1 and ε > 1, with different s, so the typical wrong scales differ from the
# right one (and from each other) by >= 15 % in at least one setting; tests/test_lab05.py checks it.
PEEL_SETTINGS = ((3, 0.5, 1e-3, 0.2), (9, 4.0, 1e-5, 1.0))   # (s, ε, δ, λ)
_N_RELEASES = 1_500   # per setting: 3·1500 = 4500 and 9·1500 = 13 500 noise values

_PEEL_BUGS = (
    ("ε inside the square root, 2λ√(3s ln(1/δ)/ε)",
     lambda s, e, dl, lam: _peel_scale(s, e, dl, lam) * math.sqrt(e),
     "ε belongs outside the root: b = λ·2√(3s·ln(1/δ))/ε. With ε inside, the noise is too small for ε < 1"),
    ("the √s forgotten, λ·2√(3 ln(1/δ))/ε", lambda s, e, dl, lam: _peel_scale(s, e, dl, lam) / math.sqrt(s),
     "the s rounds compose: each may spend only ε/√(3s·ln(1/δ)), so the scale needs √s: "
     "b = λ·2√(3s·ln(1/δ))/ε"),
    ("the factor 2 missing, λ√(3s ln(1/δ))/ε", lambda s, e, dl, lam: _peel_scale(s, e, dl, lam) / 2,
     "report-noisy-max needs Lap(2λ/ε_r) because the scores |v_j| can move in both directions"),
    ("the √3 missing", lambda s, e, dl, lam: _peel_scale(s, e, dl, lam) / math.sqrt(3),
     "the constant is 2√(3s·ln(1/δ)); the 3 leaves room for the second-order term of composition"),
    ("λ forgotten", lambda s, e, dl, lam: _peel_scale(s, e, dl, lam) / lam,
     "the scale is proportional to the sensitivity λ"),
    ("ln(1/δ) replaced by ln(δ)… or δ", lambda s, e, dl, lam: lam * 2 * math.sqrt(3 * s * dl) / e,
     "use math.log(1 / delta), the natural logarithm of 1/δ"),
)


def _as_release(out, d, task, call):
    try:
        arr = np.asarray(out, dtype=float)
    except (TypeError, ValueError):
        raise LabCheckError(f"{task}: {call} should return a numpy array of {d} numbers, got "
                            f"{type(out).__name__}.") from None
    require(arr.shape == (d,), f"{task}: {call} should return an array of shape ({d},) — the whole vector, "
                               f"zero outside the selected set — got shape {arr.shape}.")
    require(np.all(np.isfinite(arr)), f"{task}: {call} returned non-finite values.")
    return arr


def _released_noise(fn, s, epsilon, delta, lam, task):
    # Selection made deterministic: the s largest |v_j| exceed the rest by 1e7 (>> the noise scale).
    d = s + 4
    v = np.zeros(d)
    v[:s] = -1e7 * (1 + np.arange(s))  # negative: the scores are |v_j|, not v_j
    rng = _seeded(500 + s)
    noise = np.empty((_N_RELEASES, s))
    for k in range(_N_RELEASES):
        out = _as_release(call_student(fn, (v, s, epsilon, delta, lam, rng), task), d, task,
                          f"fn(v, {s}, {epsilon}, {delta}, {lam}, rng)")
        require(np.all(out[s:] == 0),
                f"{task}: with v = (−1e7, −2e7, …, 0, …) and s = {s} the coordinates with the largest |v_j| "
                f"(the first {s}) must be released and the rest be 0; your function released "
                f"{np.flatnonzero(out[s:]) + s}. Hint: select by |v_j| + noise, not by v_j + noise.")
        noise[k] = out[:s] - v[:s]
    return noise.ravel()


def _diagnose_scale(measured):
    """Name the bug whose scale matches the measured one within 5 % in every setting."""
    for name, formula, hint in _PEEL_BUGS:
        if all(abs(b_hat / formula(s, e, dl, lam) - 1) < 0.05
               for b_hat, (s, e, dl, lam) in zip(measured, PEEL_SETTINGS)):
            return f"Your scale looks like {name}. Hint: {hint}."
    return ("Hint: the released values get fresh Lap(b) noise, b = λ·2√(3s·ln(1/δ))/ε, "
            "the same b as the selection.")


def _peel_audit(fn, task):
    """Neighbours at the bound (group A up by λ/2, group B down; reversed in D'), event 'S = A'."""
    from ..audit import epsilon_lower_bound

    s, epsilon, delta, lam = 2, 1.0, 1e-3, 1.0
    v = np.r_[np.full(s, 5.0 + lam / 2), np.full(s, 5.0 - lam / 2)]
    v_prime = np.r_[np.full(s, 5.0 - lam / 2), np.full(s, 5.0 + lam / 2)]

    def mechanism(vector, n_trials, rng):
        return np.array([np.count_nonzero(_as_release(call_student(fn, (vector, s, epsilon, delta, lam, rng), task),
                                                      2 * s, task, "fn(v, 2, 1.0, 1e-3, 1.0, rng)")[:s])
                         for _ in range(n_trials)])

    def all_of_group_a(counts):
        return counts == s

    return epsilon_lower_bound(mechanism, v, v_prime, all_of_group_a, 1_500, delta=delta, confidence=0.95,
                               rng=_seeded(77)), epsilon


def _fresh_noise_exclusion(scale, gap, d, n_runs, rng):
    """Monte Carlo law of Peeling with fresh Lap(scale) noise in every round: P(coordinate 0 is not selected).

    v = (gap, 0, ..., 0) of length d, s = d − 1 rounds with masking; vectorised over ``n_runs`` runs.
    """
    remaining = np.ones((n_runs, d), dtype=bool)
    v = np.zeros(d)
    v[0] = gap
    for _ in range(d - 1):
        noisy = np.where(remaining, v + rng.laplace(scale=scale, size=(n_runs, d)), -np.inf)
        remaining[np.arange(n_runs), np.argmax(noisy, axis=1)] = False
    return float(np.mean(remaining[:, 0]))


def _check_fresh_noise(fn, task):
    """Peeling draws fresh noise in every round; one noise vector reused in every round has another law.

    v = (2b, 0, 0, 0), s = 3: coordinate 0 is left out when it loses three rounds. With fresh Lap(b) noise
    per round that happens with p ≈ 0.008; with one vector reused (top-3 of |v| + w) it is left out whenever
    2b + w₀ is the smallest of four, p ≈ 0.036. In N = 3000 runs the fresh count is 25 ± 5; the test rejects
    above N·p + 4.9·√(Np(1 − p)) (one-sided false alarm below 1e-6) plus the reference's own Monte Carlo
    error (5 sd of 200 000 runs), about 51, while a reused vector gives about 107.
    """
    s, epsilon, delta, lam = 3, 1.0, 1e-5, 1.0
    b = _peel_scale(s, epsilon, delta, lam)
    v = np.array([2 * b, 0.0, 0.0, 0.0])
    rng = _seeded(41)
    n_runs = 3000
    left_out = sum(_as_release(call_student(fn, (v, s, epsilon, delta, lam, rng), task), 4, task,
                               f"fn(v, {s}, {epsilon}, {delta}, {lam}, rng)")[0] == 0 for _ in range(n_runs))
    n_ref = 200_000
    p = _fresh_noise_exclusion(b, 2 * b, 4, n_ref, _seeded(42))
    limit = n_runs * p + 4.9 * math.sqrt(n_runs * p * (1 - p)) + 5 * n_runs * math.sqrt(p * (1 - p) / n_ref)
    require(left_out <= limit,
            f"{task}: with v = (2b, 0, 0, 0), s = 3 and b = {b:.3g}, your function left out the largest |v_j| in "
            f"{left_out} of {n_runs} runs; Peeling does so about {n_runs * p:.0f} times (at most {limit:.0f} by "
            f"chance). That is what happens when one noise vector is drawn once and reused in every round. Hint: "
            f"Algorithm 5.2 draws fresh Lap(b) noise for every remaining coordinate in every round.")


def _check_fresh_release_noise(fn, task):
    """The released values get fresh noise: independent of the selection and of each other.

    v = 10·(1, …, 1) of length 6, s = 2: every coordinate ties, so the winners are those with the largest
    selection noise. Released noise z = out_S − v_S (N = 2000 runs, 4000 values) must then
    * have mean 0: fresh Lap(b) has sd √2·b, so the mean of 4000 lies within 4.9·√2·b/√4000 = 0.11·b
      except with probability 1e-6; releasing v_j plus the noise that made j win (the winner's selection noise,
      the largest of 5 or 6 Lap(b) draws) has mean ≈ 1.7·b;
    * be uncorrelated between the two released coordinates: for independent z₁, z₂ the sample correlation has
      sd 1/√N (Var(z₁z₂) = Var z₁·Var z₂), so |r| ≤ 4.9/√2000 = 0.11 except with probability 1e-6; one noise
      value shared by the released coordinates gives r = 1.
    """
    s, epsilon, delta, lam, d, n_runs = 2, 1.0, 1e-5, 1.0, 6, 2000
    b = _peel_scale(s, epsilon, delta, lam)
    v = np.full(d, 10.0)
    rng = _seeded(43)
    released = np.empty((n_runs, s))
    for k in range(n_runs):
        out = _as_release(call_student(fn, (v, s, epsilon, delta, lam, rng), task), d, task,
                          f"fn(v, {s}, {epsilon}, {delta}, {lam}, rng)")
        chosen = np.flatnonzero(out)
        require(chosen.size == s, f"{task}: with v = 10·(1, …, 1) and s = {s} your function released "
                                  f"{chosen.size} nonzero coordinates, not s = {s}.")
        released[k] = out[chosen] - v[chosen]
    mean, band = float(released.mean()), 4.9 * math.sqrt(2) * b / math.sqrt(released.size)
    require(abs(mean) <= band,
            f"{task}: with v = 10·(1, …, 1) (all coordinates tied), s = {s} and b = {b:.3g}, the noise on your "
            f"released values has mean {mean:.3g} = {mean / b:.2f}·b over {released.size} values; fresh Lap(b) "
            f"noise has mean 0 (within ±{band:.2g} by chance). The winners are the coordinates whose selection "
            f"noise was largest, so reusing that noise for the release biases it and leaks the selection. Hint: "
            f"release v_j + fresh Lap(b), drawn after the selection, for each j ∈ S.")
    r = float(np.corrcoef(released[:, 0], released[:, 1])[0, 1])
    require(abs(r) <= 4.9 / math.sqrt(n_runs),
            f"{task}: the noise on your two released values is correlated (r = {r:.2f} over {n_runs} runs; "
            f"independent noise gives |r| ≤ {4.9 / math.sqrt(n_runs):.2f}). Hint: draw one fresh Lap(b) value per "
            f"released coordinate, size=len(S), not one value for all of them.")


def check_peel(fn):
    """Task 1: ``fn(v, s, epsilon, delta, sensitivity, rng)`` must implement Peeling (Algorithm 5.2).

    Checks, in order: an array of shape (d,) with exactly s nonzeros, also when the
    noise is huge (selected coordinates must be masked); with ε = 1e9 it equals
    exact top-s selection by |v_j|; same seed, same result; for the two settings in
    ``PEEL_SETTINGS`` the released values' noise passes a KS test at 1e-6 against
    Lap(λ·2√(3s ln(1/δ))/ε) (a scale 15 % off is rejected; the measured scale
    names the bug); and an audit (1500 runs per neighbour) on neighbours whose
    top-2 set flips must not find a privacy loss above ε = 1, which catches a
    selection without noise; before it, how often the largest of v = (2b, 0, 0, 0)
    is left out, which catches one noise vector reused in every round; and, with all
    coordinates tied, that the released values' noise has mean 0 and is uncorrelated between
    coordinates (fresh, not the selection's noise, not shared). Runs in about a second.
    """
    task = "Task 1 (Peeling)"
    require_own_code(fn, ("peel", "_peel_rows", "peel_rows", "_peel_forgotten_sqrt_s", "broken_peel_forgotten_sqrt_s", "hard_threshold", "split_iht",
                          "report_noisy_max"), task)

    # Support size and masking: huge noise makes a repeated winner likely without masking.
    rng = _seeded(1)
    for d, s in ((6, 4), (6, 6), (30, 5)):
        v = rng.normal(size=d) * 1e-3
        counts = [np.count_nonzero(_as_release(call_student(fn, (v, s, 0.05, 1e-5, 1.0, rng), task), d, task,
                                               f"fn(v, {s}, 0.05, 1e-5, 1.0, rng)")) for _ in range(30)]
        if min(counts) < s:
            raise LabCheckError(f"{task}: with d = {d}, s = {s} and a large noise scale your function released only "
                                f"{min(counts)} nonzero coordinates in some run (must be exactly s = {s}). Hint: "
                                f"mask the coordinates already selected (set their noisy score to -inf before the "
                                f"argmax), so that no coordinate is picked twice; and add noise only on S.")
        require(max(counts) == s, f"{task}: with d = {d}, s = {s} your function released {max(counts)} nonzero "
                                  f"coordinates; exactly s must be nonzero (the others exactly 0).")

    # Noiseless limit: top-s by |v_j|.
    for seed in range(5):
        v = _seeded(10 + seed).normal(size=12) * 10
        out = _as_release(call_student(fn, (v, 4, 1e9, 1e-5, 1.0, _seeded(seed)), task), 12, task,
                          "fn(v, 4, 1e9, 1e-5, 1.0, rng)")
        top = np.argsort(-np.abs(v))[:4]
        if set(np.flatnonzero(out)) != set(top):
            hint = ("you selected by v_j; Peeling selects by |v_j|." if set(np.flatnonzero(out)) ==
                    set(np.argsort(-v)[:4]) else "with ε = 1e9 the noise is negligible, so the s largest |v_j| win.")
            raise LabCheckError(f"{task}: with ε = 1e9 your function selected {sorted(np.flatnonzero(out))}, "
                                f"but the 4 largest |v_j| are {sorted(top)}. Hint: {hint}")
        # atol 0.05: the noise at ε = 1e9 is about 1e-7 (1e-3 even with ε inside the root), |v_j| about 10.
        require(np.allclose(out[top], v[top], atol=0.05),
                f"{task}: with ε = 1e9 the released values should be v_j (plus negligible noise); yours differ by "
                f"up to {np.max(np.abs(out[top] - v[top])):.3g}. Hint: release v_j + Lap(b) on the selected "
                f"coordinates (keep the sign of v_j; not |v_j|).")

    # Determinism through rng.
    v = np.arange(10.0)
    first = call_student(fn, (v, 3, 1.0, 1e-5, 1.0, _seeded(3)), task)
    again = call_student(fn, (v, 3, 1.0, 1e-5, 1.0, _seeded(3)), task)
    other = call_student(fn, (v, 3, 1.0, 1e-5, 1.0, _seeded(4)), task)
    require(np.array_equal(first, again), f"{task}: the same seed gave different outputs. Hint: draw all noise "
                                          f"from the rng argument (rng.laplace), not np.random.")
    require(not np.array_equal(first, other), f"{task}: two seeds gave the same output: your noise does not "
                                              f"come from rng.")

    # Noise scale of the released values: KS at false-alarm rate 1e-6 against Lap(b), b computed here.
    # The KS critical value is √(ln(2/1e-6)/(2n)) = 0.040 at n = 4500 and 0.023 at n = 13 500. A scale 30 %
    # off has KS distance 0.048 (sup_x |F_b − F_1.3b| at x = 1.14 b), so by the DKW inequality the second
    # setting misses it with probability below 2·exp(−2·13 500·0.025²) ≈ 1e-7. The named bugs are 40 % or
    # more off in at least one setting (tests/test_lab05.py checks the gaps), so they are rejected too.
    measured, p_values = [], []
    for s, epsilon, delta, lam in PEEL_SETTINGS:
        noise = _released_noise(fn, s, epsilon, delta, lam, task)
        scale = _peel_scale(s, epsilon, delta, lam)
        per_release = noise.reshape(-1, s)
        # (1e-6: v_j ≈ −1e7 leaves the noise recovered as out − v with rounding errors of about 1e-9)
        require(np.unique(per_release[:, 0]).size <= len(per_release) // 2
                or not np.allclose(per_release, per_release[:, :1], rtol=0, atol=1e-6),
                f"{task}: in every run your {s} released values carry the same noise value. Hint: draw one fresh "
                f"Lap(b) value per released coordinate, size=len(S), not one value for all of them.")
        require(np.unique(noise).size > noise.size // 2,
                f"{task}: the released values carry (almost) no noise. Hint: add fresh Lap(b) noise to each "
                f"released value v_j, j ∈ S.")
        measured.append(float(np.mean(np.abs(noise - np.median(noise)))))
        p_values.append(float(stats.kstest(noise, stats.laplace(scale=scale).cdf).pvalue))
    if min(p_values) < FALSE_ALARM:
        worst = int(np.argmin(p_values))
        s, epsilon, delta, lam = PEEL_SETTINGS[worst]
        raise LabCheckError(
            f"{task}: with s = {s}, ε = {epsilon:g}, δ = {delta:g}, λ = {lam:g} the released values' noise is not "
            f"Lap(b) with b = λ·2√(3s ln(1/δ))/ε = {_peel_scale(s, epsilon, delta, lam):.4g} (KS p-value "
            f"{p_values[worst]:.1e}); your scale is about {measured[worst]:.4g}.\n" + _diagnose_scale(measured))

    _check_fresh_noise(fn, task)  # after the scale: a wrong scale also changes how often the top one is left out
    _check_fresh_release_noise(fn, task)
    result, epsilon = _peel_audit(fn, task)
    if result.epsilon_lower > epsilon:
        raise LabCheckError(f"{task}: an audit on neighbours at the sensitivity bound proves ε >= "
                            f"{result.epsilon_lower:.2f} > {epsilon:g} ({result}). Hint: the selection itself must be "
                            f"noisy — add fresh Lap(b) noise to |v_j| in every round before the argmax; exact top-s "
                            f"selection reveals which coordinates are largest.")
    print(f"exactly s nonzeros; top-s at ε = 1e9; KS p-values {', '.join(f'{p:.2f}' for p in p_values)} against "
          f"Lap(λ·2√(3s ln(1/δ))/ε); audit lower bound {result.epsilon_lower:.2f} <= ε = {epsilon:g}.")
    passed(task)


# --- Task 2: one step of the private LASSO and its sensitivity ------------------------------------

def _reference_step(X, y, beta, step_size, truncation, clip_low=-2.0, clip_high=2.0, truncate=True,
                    clip=True, mean=True):
    target = np.clip(y, -truncation, truncation) if truncate else y
    residual = X @ beta - target
    if clip:
        residual = np.clip(residual, clip_low * truncation, clip_high * truncation)
    scale = step_size / X.shape[0] if mean else step_size
    return beta - scale * (X.T @ residual)


_STEP_BUGS = (
    ("no residual clipping", dict(clip=False),
     "clip the residuals x'β − f_T(y) to [−2T, 2T]; without it one record can move the step by "
     "|x'β| + T, which is unbounded in β (Lemma 5.5)"),
    ("residuals clipped at T instead of 2T", dict(clip_low=-1.0, clip_high=1.0),
     "clip the residuals at 2T: |x'β| <= T and |f_T(y)| <= T give |r| <= 2T, and clipping there changes nothing "
     "in the regime of the paper's analysis"),
    ("y not truncated", dict(truncate=False), "truncate the response first: f_T(y) = clip(y, −T, T)"),
    ("a sum instead of a mean", dict(mean=False), "the step is β − (η/m)·Xᵀr: divide by the block size m"),
)


def _step_sensitivity_diagnosis(got, m, eta, T, task="Task 2 (one private LASSO step)"):
    """A pointer for a wrong λ (a named slip or not); the formula only from the 3rd failed try (teaching_hint)."""
    right = 4 * eta * T / m
    pointer = ("bound one coordinate of (η/m)(x_i r_i − x'_i r'_i) using |x_ij| <= 1 and the clipping of the "
               "residuals (Lemma 5.5).")
    for value, hint in ((2 * eta * T / m, "the two differing records' terms can each be as large as the clipping "
                                          "allows, with opposite signs: count both."),
                        (4 * T / m, "the step size η multiplies the gradient, so it multiplies λ too."),
                        (eta * T / m, "each residual is clipped at 2T, and the two differing records' terms can "
                                      "have opposite signs."),
                        (4 * eta * T, "divide by the block size m: one record is 1/m of the mean."),
                        (8 * eta * T / m, "that is twice too large: bound each of the two terms by what the "
                                          "clipping allows, once.")):
        if math.isclose(got, value, rel_tol=1e-9) and not math.isclose(value, right, rel_tol=1e-9):
            pointer = hint
            break
    return teaching_hint(task, pointer, "λ = 4·η·c_x·T/m with c_x = 1 here.")


def check_dp_lasso_step(fn):
    """Task 2: ``fn(X, y, beta, step_size, truncation)`` → ``(v, sensitivity)`` (Algorithm 5.4 step 3, Lemma 5.5).

    ``v`` must equal β − (η/m)·Xᵀ clip(Xβ − clip(y, −T, T), −2T, 2T) on blocks where
    every clipping matters (to 1e-9), and ``sensitivity`` must be the float 4ηT/m
    (c_x = 1). Then 300 replace-one neighbours, half of them built at the clipping
    bound with |x'β| > T, must satisfy ‖v(D) − v(D')‖∞ <= sensitivity.
    """
    task = "Task 2 (one private LASSO step)"
    require_own_code(fn, ("lasso_gradient_step", "dp_lasso_sensitivity", "_gradient_step", "gradient_step", "DPLasso"), task)
    rng = _seeded(21)
    for trial, (m, d, eta, T) in enumerate(((20, 6, 1.0, 1.5), (50, 10, 0.5, 2.0), (7, 3, 0.8, 0.7))):
        X = rng.choice([-1.0, 1.0], size=(m, d))
        y = rng.normal(0, 3 * T, size=m)
        beta = rng.normal(0, 1.5 * T, size=d)  # |x'β| > T for most rows: the clipping matters
        out = call_student(fn, (X, y, beta, eta, T), task)
        require(isinstance(out, tuple) and len(out) == 2,
                f"{task}: return a tuple (v, sensitivity), got {type(out).__name__}.")
        v, sensitivity = out
        try:
            v = np.asarray(v, dtype=float)
        except (TypeError, ValueError):
            raise LabCheckError(f"{task}: v must be an array of numbers, got {type(out[0]).__name__}.") from None
        require(v.shape == (d,), f"{task}: v must have shape ({d},) (one entry per feature), got {v.shape}.")
        require(isinstance(sensitivity, (float, int, np.floating, np.integer)) and not isinstance(sensitivity, bool),
                f"{task}: the sensitivity must be a number (float), got {sensitivity!r} of type "
                f"{type(sensitivity).__name__}.")
        want = _reference_step(X, y, beta, eta, T)
        if not np.allclose(v, want, rtol=1e-9, atol=1e-9):
            for name, options, hint in _STEP_BUGS:
                if np.allclose(v, _reference_step(X, y, beta, eta, T, **options), rtol=1e-9, atol=1e-9):
                    raise LabCheckError(f"{task}: your step v differs from the private step ({name}). Hint: {hint}.")
            raise LabCheckError(f"{task}: your step v differs from β − (η/m)·Xᵀ clip(Xβ − f_T(y), −2T, 2T) "
                                f"by up to {np.max(np.abs(v - want)):.3g} (m = {m}, η = {eta}, T = {T}).")
        right = 4 * eta * T / m
        if not math.isclose(float(sensitivity), right, rel_tol=1e-9):
            # The right λ is not printed: with m, η and T shown it would give the formula on the first try.
            raise LabCheckError(f"{task}: with m = {m}, η = {eta}, T = {T} your sensitivity "
                                f"{float(sensitivity):.6g} is too {'large' if sensitivity > right else 'small'} for "
                                f"the largest ℓ∞ change of v between neighbouring blocks. Hint: "
                                f"{_step_sensitivity_diagnosis(float(sensitivity), m, eta, T, task)}")

    # Property test: the claimed bound must hold on neighbours built to break it.
    m, d, eta, T = 15, 5, 1.0, 1.0
    worst = 0.0
    for k in range(300):
        X = rng.choice([-1.0, 1.0], size=(m, d))
        y = rng.normal(0, 2, size=m)
        beta = rng.normal(0, 2, size=d)
        X2, y2 = X.copy(), y.copy()
        i = int(rng.integers(m))
        if k % 2:  # at the clipping bound: x'β large and y at the other end
            X2[i] = np.sign(beta) * rng.choice([-1.0, 1.0])
            y2[i] = -np.sign(X2[i] @ beta) * 10 * T
        else:
            X2[i], y2[i] = rng.choice([-1.0, 1.0], size=d), rng.normal(0, 10)
        v1, lam = call_student(fn, (X, y, beta, eta, T), task)
        v2, _ = call_student(fn, (X2, y2, beta, eta, T), task)
        worst = max(worst, float(np.max(np.abs(np.asarray(v1) - np.asarray(v2)))))
        require(worst <= float(lam) * (1 + 1e-9),
                f"{task}: on a pair of neighbouring blocks ‖v(D) − v(D')‖∞ = {worst:.4g} exceeds your "
                f"sensitivity {float(lam):.4g}. Hint: the residuals must be clipped to [−2T, 2T] for the bound to hold.")
    print(f"v matches the clipped step on 3 blocks; λ = 4ηT/m; worst change over 300 neighbour pairs "
          f"{worst:.3f} <= λ = {4 * eta * T / m:.3f}.")
    passed(task)


# --- Task 3: choosing T ------------------------------------------------------------------------

TRUNCATION_SETTING = dict(n=50_000, epsilon=1.0, d=200, s=5, sparsity=10, delta=1e-5)
_TRUNCATION_MULTIPLIERS = (0.0625, 0.25, 1.0, 4.0)
_CHECK_REPS = 3


#: The second ε the checker tries, not announced in the lab: at ε = 8 the best T is the default (errors 0.77,
#: 0.23, 0.12, 0.51 for the four multipliers, single-run sd <= 0.06), at ε = 1 a quarter of it, so a fixed
#: candidate, the rule of thumb, or a simulation that ignores its ε argument fails one of the two.
SECOND_EPSILON = 8.0


@functools.lru_cache(maxsize=8)
def _truncation_errors(candidates, epsilon=None):
    """Mean error of DPLasso at each candidate T (a tuple) on the checker's own data (3 fixed datasets).

    Deterministic (fixed seeds), so it is cached: a student who re-runs the check waits once.
    """
    from ..data import sparse_regression_data
    from ..regression import DPLasso

    cfg = TRUNCATION_SETTING
    epsilon = cfg["epsilon"] if epsilon is None else epsilon
    errors = np.zeros((len(candidates), _CHECK_REPS))
    for rep in range(_CHECK_REPS):
        X, y, beta = sparse_regression_data(cfg["n"], cfg["d"], cfg["s"], rng=_seeded(9000 + rep))
        for k, T in enumerate(candidates):
            model = DPLasso(epsilon, cfg["delta"], cfg["sparsity"], truncation=T, random_state=rep)
            errors[k, rep] = np.linalg.norm(model.fit(X, y).coef_ - beta)
    return errors.mean(axis=1)


def _truncation_choice(fn, candidates, epsilon, task):
    """The index of the candidate the student's procedure returns at ε = ``epsilon`` (type-checked)."""
    cfg = TRUNCATION_SETTING
    answer = call_student(fn, (cfg["n"], epsilon, list(candidates), _seeded(31)), task)
    require(isinstance(answer, (float, int, np.floating, np.integer)) and not isinstance(answer, bool),
            f"{task}: return one number, the chosen T (an element of candidates), got {answer!r} of type "
            f"{type(answer).__name__}.")
    matches = [k for k, c in enumerate(candidates) if math.isclose(float(answer), c, rel_tol=1e-9)]
    require(matches, f"{task}: your answer {float(answer):.4g} is not one of the candidates "
                     f"{[round(c, 4) for c in candidates]}. Hint: return the candidate T itself, not its error "
                     f"or its index.")
    return matches[0]


def _truncation_hint(chosen, best, base_index, epsilon, first_choice):
    if first_choice is not None and chosen == first_choice:
        return (f"your procedure returned the same candidate at ε = {TRUNCATION_SETTING['epsilon']:g} and at "
                f"ε = {epsilon:g}, but the best T grows with ε (less privacy noise, so less need to truncate). "
                f"Run the simulation with the `epsilon` (and `n`) you are given instead of returning a fixed T")
    if chosen == base_index:
        return "the default T is not the best at this (n, ε): compare the candidates by simulation"
    if chosen > best:
        return (f"your choice would suit a larger ε than {epsilon:g} (or an error that ignores the privacy noise, "
                f"such as the training error): a larger T means more noise, λ = 4ηT/m. Simulate with the given ε, "
                f"n, d = 200, s = 5, and compare the estimation errors ‖β̂ − β‖₂, taking the smallest")
    return ("too small a T truncates the signal (bias): compare the estimation errors ‖β̂ − β‖₂ by simulation, "
            "on data like the checker's (d = 200, s = 5), and take the smallest")


def check_best_truncation(fn):
    """Task 3: ``fn(n, epsilon, candidates, rng)`` must return the T in ``candidates`` with the smallest error.

    Called at ``TRUNCATION_SETTING`` (n = 50 000, ε = 1, d = 200, s = 5, ŝ = 10, δ = 1e-5) and again at
    ε = :data:`SECOND_EPSILON` with candidates ``default_truncation(n) × (1/16, 1/4, 1, 4)``. The checker
    measures the mean error of ``DPLasso`` at each candidate on 3 datasets of its own and accepts an answer
    whose error is within 30 % of the best. At ε = 1 the errors are 0.77, 0.35, 1.18 and 3.26 (single-run
    standard deviations <= 0.15), so only 1/4 × default passes; at ε = 8 only 1 × default does (0.12 against
    0.23 for 1/4). A student's simulation with two or more repetitions finds both reliably. Finally the
    design itself is tested (:mod:`dpteach.labs.lab05_design`): at least two datasets, scored by ‖β̂ − β‖₂.
    """
    from ..regression import default_truncation

    task = "Task 3 (choose T)"
    require_own_code(fn, ("check_best_truncation", "_truncation_errors"), task)
    cfg = TRUNCATION_SETTING
    base = default_truncation(cfg["n"])
    candidates = tuple(m * base for m in _TRUNCATION_MULTIPLIERS)
    base_index = _TRUNCATION_MULTIPLIERS.index(1.0)
    first_choice, report = None, []
    for epsilon in (cfg["epsilon"], SECOND_EPSILON):
        chosen = _truncation_choice(fn, candidates, epsilon, task)
        errors = _truncation_errors(candidates, epsilon)
        best = int(np.argmin(errors))
        table = ", ".join(f"{m:g}·T₀: {e:.3f}" for m, e in zip(_TRUNCATION_MULTIPLIERS, errors))
        if errors[chosen] > 1.3 * errors[best]:
            hint = _truncation_hint(chosen, best, base_index, epsilon, first_choice)
            raise LabCheckError(f"{task}: at ε = {epsilon:g} you chose T = {candidates[chosen]:.4g}, whose mean error "
                                f"on the checker's data is {errors[chosen]:.3f}; the best candidate has "
                                f"{errors[best]:.3f} ({table}). Hint: {hint}.")
        first_choice = chosen
        report.append(f"ε = {epsilon:g}: T = {candidates[chosen]:.3f} ({_TRUNCATION_MULTIPLIERS[chosen]:g} × default)")
    # Right choices can come from a wrong experiment: test the design itself (lab05_design's docstring).
    check_truncation_design(fn, task)
    print(f"{'; '.join(report)} — the best on the checker's own data at both ε.")
    passed(task)


from .lab05_derivations import check_norm_clipped_step, check_support_scale  # noqa: E402
from .lab05_design import check_truncation_design  # noqa: E402
