"""Checkers for Lab 1, "Mechanisms" (book/labs/lab01_mechanisms.ipynb, chapter 1).

Each checker takes the student's function, runs it, and compares it with
reference behaviour computed *here*, independently of the student's code:
closed forms, scipy distributions, and (only for the analytic Gaussian task,
whose answer has no closed form) :func:`dpteach.mechanisms.gaussian_sigma`.
A right answer prints one "passed" line (plus a few measured numbers); a wrong
one raises :class:`~dpteach.labs.LabCheckError` whose message says what was
measured and names the likely bug.

The tasks and their checkers:

1. :func:`check_laplace_mechanism`  — ``fn(value, sensitivity, epsilon, rng)``
2. :func:`check_gaussian_sigma`     — ``fn(sensitivity, epsilon, delta)``, classic σ
3. :func:`check_gaussian_sigma_analytic` — same signature, analytic σ by bisection
4. :func:`check_exponential_mechanism` — ``fn(scores, sensitivity, epsilon, rng)``
5. :func:`check_audit` — ``fn()`` returns ``(dataset, neighbour, event)`` that make
   :func:`dpteach.audit.epsilon_lower_bound` catch :func:`unclipped_noisy_sum` (in
   :mod:`dpteach.labs.lab01_audit`, with the two releases, and re-exported here).
6. :func:`check_clipped_sum_sensitivity` and 7. :func:`check_laplace_delta` — derivations the chapter does not
   print, in :mod:`dpteach.labs.lab01_derivations` and re-exported here.

Statistical checks run at a false-alarm rate of 1e-6 each, so a correct
answer is wrongly rejected about once in a million runs; the seeds are fixed,
so a given function gets the same verdict every time.

Design decision (task 1): the Laplace mechanism must accept arrays, because
the chapter's Laplace mechanism releases vector-valued queries (L1
sensitivity). The checker therefore draws its 20 000 samples with *one* call
on an array of 20 000 entries instead of looping over scalar calls; a function
that fails on arrays is rejected by the shape check with a hint (draw
``size=np.shape(value)``), before any statistics run. This keeps the check
well under a second.

The student's own functions may not call dpteach.mechanisms (that would
make the task trivial); the checkers may, and each rejects a function that
visibly does (a light check of the names the function uses, not a sandbox).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import special, stats

from .checking import LabCheckError, call_student, passed, require, require_own_code, require_real

__all__ = [
    "check_laplace_mechanism",
    "check_gaussian_sigma",
    "check_gaussian_sigma_analytic",
    "check_exponential_mechanism",
    "check_audit",
    "check_clipped_sum_sensitivity",
    "check_laplace_delta",
    "unclipped_noisy_sum",
    "clipped_noisy_sum",
    "AUDIT_EPSILON",
]

FALSE_ALARM = 1e-6
N_DRAWS = 20_000

# --- helpers -------------------------------------------------------------------------------


def _seeded(seed):
    return np.random.default_rng(seed)


# --- Task 1: the Laplace mechanism -----------------------------------------------------------

# Two (Δ, ε) settings, one with ε < 1 and one with ε > 1. They are chosen so that
# the scales of all the bugs in _LAPLACE_BUGS are at least 25 % apart from each
# other and from Δ/ε at *each* setting (tests/test_lab01.py checks this), so a
# measured scale names one bug unambiguously.
LAPLACE_SETTINGS = ((3.0, 0.25), (5.0, 3.0))

_LAPLACE_BUGS = (
    ("Δ/(2ε)", lambda d, e: d / (2 * e),
     "half the noise: the Laplace mechanism needs scale Δ/ε, not Δ/(2ε)"),
    ("2Δ/ε", lambda d, e: 2 * d / e,
     "twice the noise: that is private but wastes accuracy; the scale is Δ/ε"),
    ("ε/Δ", lambda d, e: e / d, "the fraction is upside down: the scale is Δ/ε"),
    ("1/ε", lambda d, e: 1 / e,
     "your function ignores the sensitivity: the scale is Δ/ε, not 1/ε"),
    ("1/(2ε)", lambda d, e: 1 / (2 * e),
     "your function ignores the sensitivity and halves the noise: the scale is Δ/ε"),
    ("Δ", lambda d, e: d, "your function ignores ε: the scale is Δ/ε"),
    ("Δ·ε", lambda d, e: d * e, "you multiplied by ε instead of dividing: the scale is Δ/ε"),
    ("Δ/(√2·ε)", lambda d, e: d / (math.sqrt(2) * e),
     "you set the standard deviation to Δ/ε; numpy's Laplace takes the scale b, "
     "whose standard deviation is √2·b. Pass scale=Δ/ε"),
)


def _laplace_diagnosis(noise, sensitivity, epsilon):
    """Name the likely bug from the measured noise (called only after the KS test failed)."""
    scale = sensitivity / epsilon
    # For Lap(b), |X| ~ Exp(b): the mean absolute deviation estimates b with relative
    # standard error 1/√n = 0.7 % at n = 20 000, far below the 25 % gaps between bugs.
    b_hat = float(np.mean(np.abs(noise - np.median(noise))))
    kurtosis = float(stats.kurtosis(noise))  # excess kurtosis: Laplace 3, Gaussian 0, uniform −1.2
    measured = (f"With Δ = {sensitivity:g}, ε = {epsilon:g} the noise should be Lap(0, b) with "
                f"b = Δ/ε = {scale:.4g}; yours has mean |noise| ≈ {b_hat:.4g} and excess kurtosis "
                f"≈ {kurtosis:.2f} (Laplace: 3).")
    # By the delta method the sample excess kurtosis of n Laplace draws has variance
    # [(μ8 − μ4²)/μ2⁴ − 4μ4(μ6 − μ4μ2)/μ2⁵ + 4μ4²(μ4 − μ2²)/μ2⁶]/n = (2484 − 2016 + 720)/n,
    # a standard error of 0.24 at n = 20 000, so 1.5 is 6 standard errors below 3; a
    # Gaussian's is √(24/n) = 0.035 around 0. (Only used to word the hint.)
    if kurtosis < 1.5:
        return (f"{measured}\nHint: the tails of your noise are too light for Laplace noise — "
                f"it looks Gaussian (kurtosis ≈ 0) or uniform (≈ −1.2). Draw rng.laplace(0.0, Δ/ε, ...), "
                f"not rng.normal or rng.uniform.")
    for name, formula, hint in _LAPLACE_BUGS:
        if abs(b_hat / formula(sensitivity, epsilon) - 1) < 0.05:
            return f"{measured}\nYour scale looks like {name}. Hint: {hint}."
    direction = "too much" if b_hat > scale else "too little"
    return (f"{measured}\nThat is {direction} noise ({b_hat / scale:.2f} × Δ/ε). "
            f"Hint: the scale of the Laplace noise must be exactly Δ/ε.")


# The tails are part of the guarantee: noise bounded by ±T (clipped at T, or redrawn beyond T) gives an
# output above f(D) + T that a neighbour D' with f(D') > f(D) can produce and D cannot, so no finite ε holds
# (the lab's Task 8), whatever T is. A sample sees the support only up to where Lap(b) still puts mass:
# the largest |noise| of N i.i.d. Lap(b) draws is below t·b with probability (1 − e^{−t})^N, which is
# FALSE_ALARM at t₀ = −ln(1 − FALSE_ALARM^{1/N}) ≈ ln(N / ln(1/FALSE_ALARM)) = 11.88 for N = 2·10⁶.
# So the test "reject when max |noise| < t₀·b" has false-alarm rate exactly 1e-6 for Laplace noise and
# power 1 against any noise bounded by T ≤ t₀·b (clipping at 5b, 6b or 10b; a tail redrawn beyond
# such a T), at both settings — also when T is a fixed number rather than a multiple of b, as long as it
# is below 11.88·b = 20 at the second setting. A bound beyond t₀·b changes the output with probability
# below e^{−11.88} ≈ 7e-6 per draw: no affordable sample sees it, which is why the hint says why any bound
# breaks DP rather than only that this one was seen.
TAIL_DRAWS = 2_000_000
TAIL_MULTIPLE = -math.log(-math.expm1(math.log(FALSE_ALARM) / TAIL_DRAWS))


def _require_unbounded_tails(fn, sensitivity, epsilon, where, task):
    """Reject noise whose largest |value| in TAIL_DRAWS draws is below TAIL_MULTIPLE·b (see above)."""
    b = sensitivity / epsilon
    value = np.zeros(TAIL_DRAWS)
    noise = np.asarray(call_student(fn, (value, sensitivity, epsilon, _seeded(12)), task), dtype=float)
    require(noise.shape == value.shape and np.all(np.isfinite(noise)),
            f"{task}: {where}, an array of {TAIL_DRAWS} zeros gave shape {noise.shape}"
            f"{'' if np.all(np.isfinite(noise)) else ' with non-finite entries'}.")
    largest = float(np.max(np.abs(noise)))
    if largest < TAIL_MULTIPLE * b:
        raise LabCheckError(
            f"{task}: {where}, the largest |noise| of {TAIL_DRAWS:,} draws is {largest:.4g} = "
            f"{largest / b:.2f}·b (b = Δ/ε = {b:.4g}); Lap(0, b) noise exceeds {TAIL_MULTIPLE:.2f}·b in at "
            f"least one of {TAIL_DRAWS:,} draws except with probability {FALSE_ALARM:g}.\n"
            f"Hint: your noise looks clipped or truncated (bounded by some T). Do not bound the noise, at any "
            f"T: with noise bounded by ±T, an output above f(D) + T is possible for a neighbour D' with "
            f"f(D') > f(D) and impossible for D, so the mechanism is not ε-DP for any ε. Use "
            f"rng.laplace(0.0, Δ/ε, ...) as it is.")


def check_laplace_mechanism(fn):
    """Task 1: ``fn(value, sensitivity, epsilon, rng)`` must return ``value + Lap(Δ/ε)`` (chapter 1, the Laplace mechanism theorem).

    Checks, in order: a scalar in gives a scalar out; an array keeps its shape
    and gets independent noise per entry; the same seed gives the same output
    and another seed another one (the noise comes from ``rng``); and, for the
    two settings in ``LAPLACE_SETTINGS``, 20 000 outputs are centred on the value
    (6-σ band) and pass a Kolmogorov–Smirnov test against Lap(0, Δ/ε) at false-alarm
    rate 1e-6 (on failure the measured scale names the bug); and the noise must be unbounded: the
    largest |noise| of 2·10⁶ draws must reach 11.88·b (see ``_require_unbounded_tails``). Runs in ~0.5 s.

    Raises
    ------
    LabCheckError
        With what was measured and a hint, on the first failed check.
    """
    task = "Task 1 (Laplace mechanism)"
    require_own_code(fn, ("laplace_mechanism",), task)

    out = call_student(fn, (2.0, 1.0, 1.0, _seeded(1)), task,
                "\nHint: value may be a plain number; np.asarray(value) handles numbers and arrays alike.")
    require_real(out, task, "fn(2.0, 1.0, 1.0, rng)")

    value = np.full(200, 2.0)
    noise = np.asarray(call_student(fn, (value, 1.0, 1.0, _seeded(3)), task,
                                    "\nHint: value may be an array; use np.asarray(value) and draw the noise "
                                    "with size=np.shape(value)."), dtype=float) - value
    require(noise.shape == value.shape,
            f"{task}: for an array value of shape {value.shape} your function returned shape {noise.shape}. "
            f"Hint: every entry gets its own noise — draw rng.laplace(0.0, scale, size=np.shape(value)).")
    require(np.any(noise != 0),
            f"{task}: fn(an array of 200 values 2.0, Δ = 1, ε = 1, rng) returned the values unchanged — "
            f"no noise was added. Add rng.laplace(0.0, Δ/ε, size=np.shape(value)).")
    # Exact Laplace draws are distinct almost surely; 200 draws on a lattice of step 1e-3 or coarser
    # (rounded outputs) share values with probability 1 − ∏(1 − k/L), far from 0.
    on_grid = next((step for step in (1.0, 0.5, 0.1, 0.05, 0.01, 0.001)
                    if np.allclose(noise / step, np.round(noise / step), rtol=0, atol=1e-9)), None)
    if on_grid is not None:
        raise LabCheckError(
            f"{task}: your outputs are rounded (all 200 noisy values lie on multiples of {on_grid:g}). Rounding "
            f"after adding the noise is harmless post-processing, but this task asks for the exact release "
            f"value + Lap(Δ/ε): do not round.")

    value = np.arange(6.0).reshape(2, 3)
    out = np.asarray(call_student(fn, (value, 1.0, 1.0, _seeded(2)), task,
                           "\nHint: value may be an array; use np.asarray(value) and draw the noise with "
                           "size=np.shape(value)."), dtype=float)
    require(out.shape == value.shape,
            f"{task}: for an array value of shape {value.shape} your function returned shape "
            f"{out.shape}. Hint: every entry gets its own noise — draw rng.laplace(0.0, scale, "
            f"size=np.shape(value)).")

    first = np.asarray(call_student(fn, (value, 1.0, 1.0, _seeded(5)), task), dtype=float)
    again = np.asarray(call_student(fn, (value, 1.0, 1.0, _seeded(5)), task), dtype=float)
    other = np.asarray(call_student(fn, (value, 1.0, 1.0, _seeded(6)), task), dtype=float)
    require(np.array_equal(first, again),
            f"{task}: two calls with the same seed gave different outputs. Hint: draw the noise "
            f"from the rng argument (rng.laplace(...)), not from np.random.laplace.")
    require(not np.array_equal(first, other),
            f"{task}: two different seeds gave the same output, so your noise does not come from "
            f"the rng argument. Hint: use rng.laplace(...) with the rng you are given.")

    p_values = []
    for sensitivity, epsilon in LAPLACE_SETTINGS:
        where = f"with Δ = {sensitivity:g}, ε = {epsilon:g}"
        exact = np.full(N_DRAWS, 10.0)
        out = np.asarray(call_student(fn, (exact, sensitivity, epsilon, _seeded(11)), task), dtype=float)
        require(out.shape == exact.shape and np.all(np.isfinite(out)),
                f"{task}: {where}, an array of {N_DRAWS} values gave shape {out.shape}"
                f"{'' if np.all(np.isfinite(out)) else ' with non-finite entries'}.")
        noise = out - exact
        require(np.unique(noise).size > N_DRAWS // 2,
                f"{task}: {where}, the {N_DRAWS} entries of an array got (almost) the same noise. "
                f"Hint: draw one independent noise value per entry: size=np.shape(value).")
        # Unbiasedness: the mean of n i.i.d. draws has standard deviation sd/√n; a 6-sd band
        # has false-alarm rate 2e-9. The sd is measured, so a wrong scale is not flagged
        # here but by the KS test below, which names it.
        band = 6 * float(np.std(noise)) / math.sqrt(N_DRAWS)
        require(abs(float(np.mean(noise))) <= band,
                f"{task}: {where}, your outputs are not centred on the true value 10.0: "
                f"mean(output − value) = {np.mean(noise):.4g} (allowed ±{band:.2g}). Hint: return "
                f"value + noise with noise symmetric around 0 (Laplace, not one-sided exponential).")
        # KS test at false-alarm rate 1e-6 against Lap(0, Δ/ε), scale computed here.
        # Why it catches a scale 30 % off: sup_x |F_b(x) − F_1.3b(x)| = ½(e^{−u/1.3} − e^{−u})
        # at u = x/b = 1.3·ln(1.3)/0.3 = 1.137, i.e. 0.048 (0.048 again for b/1.3; 0.065 for
        # 0.7b). The test rejects when the KS distance exceeds about
        # sqrt(ln(2/1e-6)/(2n)) = 0.019 at n = 20 000 (the DKW bound). By DKW the empirical cdf
        # is within t of the true one except with probability 2·exp(−2nt²); with t = 0.048 −
        # 0.019 = 0.029 that is 2·exp(−33.6) ≈ 5e-15, so a 30 % wrong scale passes with
        # probability below 1e-14.
        p_value = float(stats.kstest(noise, stats.laplace(scale=sensitivity / epsilon).cdf).pvalue)
        if p_value < FALSE_ALARM:
            raise LabCheckError(f"{task}: {where}, your noise is not Lap(0, Δ/ε) "
                                f"(KS test p-value {p_value:.1e} < {FALSE_ALARM:g}).\n"
                                + _laplace_diagnosis(noise, sensitivity, epsilon))
        _require_unbounded_tails(fn, sensitivity, epsilon, where, task)
        p_values.append(p_value)
    print(f"KS tests against Lap(0, Δ/ε): p-values {', '.join(f'{p:.2f}' for p in p_values)} "
          f"(rejected below {FALSE_ALARM:g}).")
    passed(task)


# --- Task 2: the classic Gaussian σ ----------------------------------------------------------

_SIGMA_GRID = tuple((d, e, dl) for d in (0.5, 1.0, 3.0) for e in (0.1, 0.5, 0.9)
                    for dl in (1e-3, 1e-5, 1e-9))


def _classic_sigma(sensitivity, epsilon, delta):
    # Dwork & Roth, Thm A.1 — computed here, independently of dpteach.
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


_SIGMA_BUGS = (
    ("the square root is missing", lambda d, e, dl: d * 2 * math.log(1.25 / dl) / e),
    ("you used ln(1/δ) instead of ln(1.25/δ)", lambda d, e, dl: d * math.sqrt(2 * math.log(1 / dl)) / e),
    ("the sensitivity Δ is missing", lambda d, e, dl: math.sqrt(2 * math.log(1.25 / dl)) / e),
    ("you divided by ε² instead of ε", lambda d, e, dl: d * math.sqrt(2 * math.log(1.25 / dl)) / e**2),
    ("the factor 2 under the square root is missing", lambda d, e, dl: d * math.sqrt(math.log(1.25 / dl)) / e),
    ("you used log10 instead of the natural log (math.log)",
     lambda d, e, dl: d * math.sqrt(2 * math.log10(1.25 / dl)) / e),
    ("you returned the variance σ² instead of σ",
     lambda d, e, dl: (d * math.sqrt(2 * math.log(1.25 / dl)) / e) ** 2),
    ("you used ln(1.25)/δ instead of ln(1.25/δ)",
     lambda d, e, dl: d * math.sqrt(2 * math.log(1.25) / dl) / e),
    ("you multiplied by ε instead of dividing", lambda d, e, dl: d * math.sqrt(2 * math.log(1.25 / dl)) * e),
)


def _sigmas(fn, grid, task):
    values = []
    for sensitivity, epsilon, delta in grid:
        sigma = call_student(fn, (sensitivity, epsilon, delta), task,
                      "\nHint: a math domain error means a log or square root of a negative number; "
                      "ln(1.25/δ) > 0 for δ < 1 (ln(1.25·δ) is negative).")
        if isinstance(sigma, (float, np.floating)) and not math.isfinite(sigma):
            raise LabCheckError(f"{task}: fn({sensitivity}, {epsilon}, {delta}) returned {sigma!r}; σ must be "
                                f"finite and > 0. Hint: the log is ln(1.25/δ) > 0 (not ln(1.25·δ), which is "
                                f"negative).")
        sigma = require_real(sigma, task, f"fn({sensitivity}, {epsilon}, {delta})")
        require(math.isfinite(sigma) and sigma > 0,
                f"{task}: fn({sensitivity}, {epsilon}, {delta}) returned {sigma!r}; σ must be finite "
                f"and > 0. Hint: the log is ln(1.25/δ) > 0 (not ln(1.25·δ), which is negative).")
        values.append(sigma)
    return np.array(values)


def check_gaussian_sigma(fn):
    """Task 2: ``fn(sensitivity, epsilon, delta)`` must return the classic σ = Δ√(2 ln(1.25/δ))/ε (chapter 1, classic calibration).

    Compared on a grid of 27 settings (Δ ∈ {0.5, 1, 3}, ε ∈ {0.1, 0.5, 0.9} — the
    formula is valid only for ε < 1 —, δ ∈ {1e-3, 1e-5, 1e-9}) with the formula
    evaluated here, to relative tolerance 1e-9. A wrong answer that matches a
    typical mistake on the whole grid is named.
    """
    task = "Task 2 (classic Gaussian σ)"
    require_own_code(fn, ("gaussian_sigma",), task)
    got = _sigmas(fn, _SIGMA_GRID, task)
    want = np.array([_classic_sigma(*point) for point in _SIGMA_GRID])
    wrong = ~np.isclose(got, want, rtol=1e-9, atol=0.0)
    if np.any(wrong):
        i = int(np.flatnonzero(wrong)[0])
        d, e, dl = _SIGMA_GRID[i]
        message = (f"{task}: for Δ = {d:g}, ε = {e:g}, δ = {dl:g} you return σ = {got[i]:.6g}, "
                   f"but Δ√(2 ln(1.25/δ))/ε = {want[i]:.6g} ({int(wrong.sum())} of {len(got)} "
                   f"grid points are wrong).")
        for name, formula in _SIGMA_BUGS:
            if np.allclose(got, [formula(*point) for point in _SIGMA_GRID], rtol=1e-6, atol=0.0):
                raise LabCheckError(f"{message}\nHint: {name}.")
        raise LabCheckError(f"{message}\nHint: check each factor of σ = Δ·√(2·ln(1.25/δ))/ε.")
    print(f"σ matches Δ√(2 ln(1.25/δ))/ε on {len(got)} settings (relative tolerance 1e-9).")
    passed(task)


# --- Task 3: the analytic Gaussian σ ----------------------------------------------------------

# ε from 0.05 to 8: the analytic calibration also works for ε >= 1, where the classic one fails.
_ANALYTIC_GRID = ((1.0, 0.05, 1e-5), (1.0, 0.5, 1e-5), (2.0, 0.9, 1e-8), (0.5, 1.0, 1e-3),
                  (3.0, 3.0, 1e-6), (1.0, 8.0, 1e-10))


def _analytic_bugs(d, e, dl):
    """(hint, (Δ, ε, δ) actually used) for the typical slips of Task 3."""
    return (
        ("your σ is the one for Δ = 1: pass the sensitivity on, gaussian_delta(sigma, sensitivity, "
         "epsilon) (σ scales linearly with Δ).", (1.0, e, dl)),
        ("your σ is the analytic σ for ε/2: it is private but twice too careful about ε. Pass epsilon "
         "itself to gaussian_delta (no composition is involved here).", (d, e / 2, dl)),
        ("your σ is the analytic σ for δ/2: pass delta itself (the task asks for δ(σ) <= δ, not a split "
         "of δ).", (d, e, dl / 2)),
        ("your σ is the analytic σ for 2ε: it is not (ε, δ)-DP. Pass epsilon itself.", (d, 2 * e, dl)),
        ("your σ is the analytic σ for 2δ: it is not (ε, δ)-DP. Pass delta itself.", (d, e, 2 * dl)),
        ("your σ is the analytic σ for sensitivity 2Δ: pass the sensitivity itself.", (2 * d, e, dl)),
    )


def check_gaussian_sigma_analytic(fn):
    """Task 3: ``fn(sensitivity, epsilon, delta)`` must return the analytic σ of Balle & Wang (chapter 1, analytic calibration).

    The smallest σ with δ(σ) = ``gaussian_delta(σ, Δ, ε)`` <= δ. For six settings
    (ε from 0.05 to 8) the checker requires δ(σ) <= δ exactly (a σ on the wrong side
    of the root is not private) and σ within relative 1e-6 of
    ``dpteach.mechanisms.gaussian_sigma(..., method="analytic")`` (not much
    larger: the point is the smallest valid noise).
    """
    from ..mechanisms import gaussian_delta, gaussian_sigma

    task = "Task 3 (analytic Gaussian σ)"
    require_own_code(fn, ("gaussian_sigma",), task)
    got = _sigmas(fn, _ANALYTIC_GRID, task)
    for sigma, (d, e, dl) in zip(got, _ANALYTIC_GRID):
        where = f"for Δ = {d:g}, ε = {e:g}, δ = {dl:g}"
        best = gaussian_sigma(d, e, dl, method="analytic")
        reached = gaussian_delta(sigma, d, e)
        # A slip is named only where it changes σ (at Δ = 1, "σ for Δ = 1" is the right σ, and a bisection
        # end a hair below it must not be told to pass the sensitivity on).
        variant = next((hint for hint, (dd, ee, dd_l) in _analytic_bugs(d, e, dl)
                        if (dd, ee, dd_l) != (d, e, dl)
                        and abs(sigma / gaussian_sigma(dd, ee, dd_l, method="analytic") - 1) < 1e-6), None)
        if variant is not None:
            hint = variant
        elif e < 1 and abs(sigma / _classic_sigma(d, e, dl) - 1) < 1e-6:
            hint = ("that is the classic formula; this task asks for the smallest σ with "
                    "gaussian_delta(σ, Δ, ε) <= δ, found by bisection.")
        elif reached > dl and sigma > best * (1 - 1e-3):
            hint = ("return the end of your bisection bracket on which δ(σ) <= δ (the upper end, "
                    "since δ(σ) decreases in σ), not the midpoint or the lower end.")
        elif reached > dl:
            hint = ("your σ is far too small. δ(σ) decreases in σ: if δ(mid) > δ the noise is too "
                    "small, so move the lower end up (lo = mid), else hi = mid. Start with a bracket "
                    "where δ(lo) > δ >= δ(hi).")
        elif sigma < best * (1 + 1e-3):
            hint = ("it is private but not the smallest: bisect longer (until hi/lo < 1 + 1e-12) "
                    "and make sure the bracket starts with δ(lo) > δ >= δ(hi).")
        else:
            hint = ("it is private but far from the smallest: your bisection does not converge to the root "
                    "of δ(σ) = δ (check the bracket update: δ(mid) > δ means lo = mid, else hi = mid).")
        if reached > dl:
            raise LabCheckError(f"{task}: {where} your σ = {sigma:.10g} gives δ(σ) = {reached:.6e} > "
                                f"δ = {dl:.6e} (by a factor {reached / dl:.6g}), so it is not (ε, δ)-DP. "
                                f"Hint: {hint}")
        if sigma > best * (1 + 1e-6):
            raise LabCheckError(f"{task}: {where} your σ = {sigma:.10g} is {100 * (sigma / best - 1):.3g} % "
                                f"larger than the analytic σ = {best:.10g}. Hint: {hint}")
    print(f"δ(σ) <= δ and σ within 1e-6 of the analytic optimum on {len(got)} settings "
          f"(ε from {min(e for _, e, _ in _ANALYTIC_GRID):g} to {max(e for _, e, _ in _ANALYTIC_GRID):g}).")
    passed(task)


# --- Task 4: the exponential mechanism --------------------------------------------------------

# Scores 0..8 with Δ = 3 and ε = 1.5 give logits ε·s/(2Δ) = 0, ½, 1, 3/2, 2: every
# candidate has probability >= 0.058 (>= 1 160 expected counts), and each bug below
# gives a clearly different distribution.
_EM_SCORES = np.array([0.0, 2.0, 4.0, 6.0, 8.0])
_EM_SENSITIVITY, _EM_EPSILON = 3.0, 1.5
_EM_BUGS = (
    ("the factor 2 is missing: your frequencies match exp(ε·s/Δ), which is only 2ε-DP. Between "
     "neighbours the numerator exp(ε·s_r/(2Δ)) and the normaliser can each change by a factor "
     "e^{ε/2}; the 2 in 2Δ pays for both", 1 / _EM_SENSITIVITY),
    ("your mechanism picks the *worst* candidates most often: the scores are negated "
     "(use exp(+ε·s/(2Δ)))", -1 / (2 * _EM_SENSITIVITY)),
    ("your frequencies match exp(ε·s/2): the sensitivity Δ is missing", 1 / 2),
    ("your frequencies match exp(ε·s/(4Δ)): the factor in the denominator is 2, not 4",
     1 / (4 * _EM_SENSITIVITY)),
    ("your frequencies are uniform: the scores (or ε) do not influence your sampler", 0.0),
)


def _is_index(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _draw_indices(fn, scores, sensitivity, epsilon, rng, n, task):
    draws = np.empty(n, dtype=np.int64)
    for i in range(n):  # one call per sample: the student's function returns one index
        index = call_student(fn, (scores, sensitivity, epsilon, rng), task)
        require(_is_index(index) and 0 <= index < scores.size,
                f"{task}: fn(scores, {sensitivity}, {epsilon}, rng) with {scores.size} scores returned "
                f"{index!r}; it must return one integer index in 0..{scores.size - 1} (hint: int(...) "
                f"of the sampled index, not the score and not an array).")
        draws[i] = index
    return draws


def _chi_square_pvalue(counts, probabilities):
    return float(stats.chisquare(counts, counts.sum() * probabilities).pvalue)


def check_exponential_mechanism(fn):
    """Task 4: ``fn(scores, sensitivity, epsilon, rng)`` must sample index r with probability ∝ exp(ε·s_r/(2Δ)).

    Chapter 1, the exponential mechanism. Checks: a valid int index; seeds
    reproduce and matter (and the output is random, not an argmax); scores
    around 1e6 with ε = 10 run with overflow, invalid operations and warnings
    turned into errors; 20 000 draws pass a chi-square goodness-of-fit test
    against the exact probabilities softmax(ε·s/(2Δ)) (computed here with
    scipy) at false-alarm rate 1e-6; and with the huge scores the best
    candidate wins as often as it should (binomial test at 1e-6). The typical
    bugs are named. Runs in ~0.5 s (one call of ``fn`` per sample).
    """
    task = "Task 4 (exponential mechanism)"
    require_own_code(fn, ("exponential_mechanism", "exponential_mechanism_probabilities",
                           "report_noisy_max"), task)

    _draw_indices(fn, np.array([1.0, 2.0, 3.0]), 1.0, 1.0, _seeded(0), 1, task)
    require(_draw_indices(fn, np.array([5.0]), 1.0, 1.0, _seeded(0), 1, task)[0] == 0,
            f"{task}: with a single candidate the answer must be index 0.")

    ties = np.zeros(4)
    first = _draw_indices(fn, ties, 1.0, 1.0, _seeded(3), 20, task)
    again = _draw_indices(fn, ties, 1.0, 1.0, _seeded(3), 20, task)
    other = _draw_indices(fn, ties, 1.0, 1.0, _seeded(4), 20, task)
    require(not (np.all(first == first[0]) and np.array_equal(first, other)),
            f"{task}: with 4 equal scores, 20 calls all returned index {first[0]}. The exponential "
            f"mechanism must *sample* (here uniformly); an argmax has no randomness and is not private.")
    require(np.array_equal(first, again),
            f"{task}: the same seed gave different samples. Hint: sample with the rng argument "
            f"(rng.choice, rng.gumbel, rng.random), not with np.random.*.")
    require(not np.array_equal(first, other),
            f"{task}: two seeds gave the same 20 samples, so your sampler does not use the rng argument.")

    # Huge scores: e^{ε·s/(2Δ)} = e^{5·10⁶} overflows unless the largest logit is subtracted
    # first (softmax is shift-invariant) or the Gumbel-max trick is used. Underflow to 0 of
    # hopeless candidates is fine, so only overflow/invalid/divide raise.
    huge = np.array([1e6, 1e6 - 1, 1e6 - 5, 0.0])
    n_huge = 2_000
    try:
        with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise", divide="raise",
                                                    under="ignore"):
            warnings.simplefilter("error")
            huge_draws = _draw_indices(fn, huge, 1.0, 10.0, _seeded(8), n_huge, task)
    except LabCheckError as err:
        cause = str(err).removeprefix(f"{task}: ")
        raise LabCheckError(f"{task}: with scores near 1e6 and ε = 10 your function failed "
                            f"(overflow turned into an error):\n  {cause}\nHint: exp(ε·s/(2Δ)) = "
                            f"exp(5e6) overflows. Subtract the largest logit before exponentiating (it "
                            f"cancels in the normalisation) or use the Gumbel-max trick.") from None

    draws = _draw_indices(fn, _EM_SCORES, _EM_SENSITIVITY, _EM_EPSILON, _seeded(2024), N_DRAWS, task)
    counts = np.bincount(draws, minlength=_EM_SCORES.size)
    exact = special.softmax(_EM_EPSILON * _EM_SCORES / (2 * _EM_SENSITIVITY))
    # Chi-square with 4 degrees of freedom at false-alarm rate 1e-6 (critical value 33.4).
    # Against ε 30 % off (logits ×1.3 or ÷1.3) the non-centrality n·Σ(p'−p)²/p is 565 or 448
    # at n = 20 000, so the statistic exceeds 33.4 except with probability < 1e-25.
    chi_square_p = _chi_square_pvalue(counts, exact)
    if chi_square_p < FALSE_ALARM:
        table = "\n".join(f"    score {s:4g}: yours {c / N_DRAWS:.4f}, expected {p:.4f}"
                          for s, c, p in zip(_EM_SCORES, counts, exact))
        message = (f"{task}: with scores {_EM_SCORES.tolist()}, Δ = {_EM_SENSITIVITY:g}, "
                   f"ε = {_EM_EPSILON:g}, the frequencies of {N_DRAWS} draws do not match "
                   f"exp(ε·s/(2Δ)) (chi-square p-value {chi_square_p:.1e}):\n{table}")
        for hint, factor in _EM_BUGS:
            if _chi_square_pvalue(counts, special.softmax(_EM_EPSILON * factor * _EM_SCORES)) >= FALSE_ALARM:
                raise LabCheckError(f"{message}\nHint: {hint}.")
        raise LabCheckError(f"{message}\nHint: sample index r with probability "
                            f"exp(ε·s_r/(2Δ)) / Σ_r' exp(ε·s_r'/(2Δ)).")
    # Exact probability of the best candidate: 1/(1 + e^{−5} + e^{−25}) (logits 5e6, 5e6−5,
    # 5e6−25, 0). Binomial test at false-alarm 1e-6; catches e.g. logits clipped to avoid overflow.
    best_probability = float(special.softmax(10.0 * huge / 2.0)[0])
    huge_p = float(stats.binomtest(int(np.sum(huge_draws == 0)), n_huge, best_probability).pvalue)
    require(huge_p >= FALSE_ALARM and not np.any(huge_draws == 3),
            f"{task}: with scores near 1e6 and ε = 10 the best candidate should win with probability "
            f"{best_probability:.4f}; it won {np.mean(huge_draws == 0):.4f} of {n_huge} draws "
            f"(binomial test p = {huge_p:.1e}). Hint: compute in log space: subtract the largest "
            f"logit, exponentiate, normalise — or use the Gumbel-max trick.")
    print(f"Chi-square test of {N_DRAWS} draws against exp(ε·s/(2Δ)): p-value {chi_square_p:.2f}; "
          f"scores near 1e6: best candidate won {np.mean(huge_draws == 0):.4f} "
          f"(exact {best_probability:.4f}, binomial p-value {huge_p:.2f}); "
          f"tests reject below {FALSE_ALARM:g}.")
    passed(task)


from .lab01_audit import AUDIT_EPSILON, check_audit, clipped_noisy_sum, unclipped_noisy_sum  # noqa: E402
from .lab01_derivations import check_clipped_sum_sensitivity, check_laplace_delta  # noqa: E402
