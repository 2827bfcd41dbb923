"""Checkers for Lab 3, "Local privacy and statistical queries" (book/labs/lab03_local_sq.ipynb, chapter 3).

Each checker runs the student's function and compares it with reference
behaviour computed *here*: closed forms written out in this file, scipy
distributions, and (for the group sizes, whose formula the student writes
from the chapter) the same formula evaluated independently. A right answer
prints one "passed" line; a wrong one raises
:class:`~dpteach.labs.LabCheckError` whose message says what was measured
and names the likely bug.

The tasks and their checkers:

1. :func:`check_debias` — ``fn(outputs, epsilon)``: the unbiased estimate of
   the fraction of ones from randomized-response outputs.
2. :func:`check_group_sizes` — ``fn(epsilon, tau, beta, t)``: the users per
   query m (the chapter's one-query bound at β/t) and the total n = t·m of the SQ → local
   simulation.
3. :func:`check_laplace_randomizer` — ``fn(values, epsilon, rng)``: the
   Laplace randomizer φ(z) + Lap(2/ε) for values in [−1, 1].
4. :func:`check_threshold_query` — ``fn(theta)`` returns the statistical
   query φ(x, y) = 2·1{h_θ(x) ≠ y} − 1 of the grid learner.
5. :func:`check_local_oracle` — a class ``MyLocalOracle(data, epsilon, beta,
   max_queries, rng)``: the SQ → local simulation (disjoint groups, β/t
   sizing, ledger), run with the chapter's SQ algorithms.
6. :func:`check_rejection_sampler` — ``fn(randomizer, oracle, tau, rng)``:
   local → SQ by rejection sampling; law, e^ε queries, and the TV bound.
7. :func:`check_threshold_learner` — ``fn(oracle, alpha)``: a threshold
   learner that must survive every adversary of ``NoisySQOracle``.

Tasks 5–7 are in :mod:`dpteach.labs.lab03_constructions` and re-exported here; the derivation tasks 8 and 9
(:func:`check_krr_randomizer`, :func:`check_krr_estimate`: randomized response on k values, which the chapter
does not print) are in :mod:`dpteach.labs.lab03_derivations`.

Statistical checks run at a false-alarm rate of 1e-6 with fixed seeds, so a
given function always gets the same verdict.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .checking import (LabCheckError, call_student, expect_student_raises, passed, require, require_own_code,
                       require_real, teaching_hint)

__all__ = ["check_debias", "check_group_sizes", "check_laplace_randomizer", "check_threshold_query",
           "check_local_oracle", "check_rejection_sampler", "check_threshold_learner", "check_krr_randomizer",
           "check_krr_estimate"]

FALSE_ALARM = 1e-6
N_DRAWS = 20_000


# --- helpers -------------------------------------------------------------------------------

def _number(value, task, call):
    require(np.ndim(value) == 0, f"{task}: {call} should return one number, got an array of shape {np.shape(value)}. "
                                 f"Hint: average the per-user estimates (np.mean).")
    return require_real(value, task, call)


# --- Task 1: debiasing randomized response ---------------------------------------------------

def _debiased(mean_output, epsilon):
    # ((1 + e^ε)·ō − 1)/(e^ε − 1), written out here independently of dpteach.local
    return ((1 + math.exp(epsilon)) * mean_output - 1) / (math.exp(epsilon) - 1)


_DEBIAS_CASES = (  # (outputs, ε): means 0, 1/2, 1, 0.3 and 0.8 at four ε
    (np.zeros(10, dtype=int), 1.0),
    (np.array([0, 1] * 5), 0.5),
    (np.ones(7, dtype=int), 2.0),
    (np.array([1, 1, 1] + [0] * 7), 0.1),
    (np.array([1] * 8 + [0] * 2), 3.0),
)


def _debias_diagnosis(got, cases, task):
    q = [math.exp(e) / (1 + math.exp(e)) for _, e in cases]
    means = [float(np.mean(o)) for o, _ in cases]
    candidates = (
        ("you returned the raw average of the outputs. Randomized response flips a bit with probability "
         "1/(1 + e^ε), which pulls the average towards 1/2: write E[o | b] as a function of b and solve for b",
         [m for m in means]),
        ("you clipped the estimate to [0, 1]. Clipping makes it biased; the unbiased estimate can be "
         "negative or above 1 for small groups",
         [min(1.0, max(0.0, _debiased(m, e))) for m, (_, e) in zip(means, cases)]),
        ("you subtracted q, but E[o | b = 0] is the probability of a flip, 1 − q",
         [(m - qq) / (2 * qq - 1) for m, qq in zip(means, q)]),
        ("you divided by q, but E[o | b] grows by less than q when b goes from 0 to 1 (a flip can also "
         "turn a 1 into a 0)",
         [(m - (1 - qq)) / qq for m, qq in zip(means, q)]),
        ("you multiplied ō by q = e^ε/(1 + e^ε); solving E[o | b] for b gives another factor",
         [(qq * m - 1) / (math.exp(e) - 1) for m, qq, (_, e) in zip(means, q, cases)]),
    )
    formula = "b̂ = ((1 + e^ε)·ō − 1)/(e^ε − 1) = (ō − (1 − q))/(2q − 1) with q = e^ε/(1 + e^ε)."
    for hint, values in candidates:  # a named slip is a pointer too: the formula only after repeated tries
        if np.allclose(got, values, rtol=1e-9, atol=1e-12):
            return teaching_hint(task, hint + ".", formula)
    return teaching_hint(task, "write E[o | b] for a true bit b (kept with probability q = e^ε/(1 + e^ε)), "
                               "average it over the users and solve for the mean of b.", formula)


def check_debias(fn):
    """Task 1: ``fn(outputs, epsilon)`` must return ((1 + e^ε)·ō − 1)/(e^ε − 1) (chapter 3, debiased randomized response).

    Checked on five output vectors (means 0, 1/2, 1, 0.3, 0.8; ε from 0.1 to 3)
    against the formula evaluated here, to relative tolerance 1e-9, then for
    unbiasedness on 200 000 simulated users (6-sigma band). A wrong answer
    that matches a typical mistake on every case is named.
    """
    task = "Task 1 (debias randomized response)"
    require_own_code(fn, ("debias_randomized_response",), task)
    got = []
    for outputs, epsilon in _DEBIAS_CASES:
        got.append(_number(call_student(fn, (outputs.copy(), epsilon), task), task,
                           f"fn(outputs with mean {np.mean(outputs):.2g}, epsilon={epsilon:g})"))
    want = [_debiased(float(np.mean(o)), e) for o, e in _DEBIAS_CASES]
    if not np.allclose(got, want, rtol=1e-9, atol=1e-12):
        i = int(np.argmax(~np.isclose(got, want, rtol=1e-9, atol=1e-12)))
        outputs, epsilon = _DEBIAS_CASES[i]
        raise LabCheckError(f"{task}: for outputs with mean ō = {np.mean(outputs):.3g} at ε = {epsilon:g} you "
                            f"return {got[i]:.6g}, but the unbiased estimate is {want[i]:.6g}.\n"
                            f"Hint: {_debias_diagnosis(got, _DEBIAS_CASES, task)}")
    # Unbiasedness on simulated users: 30 % ones, ε = 0.5, n = 200 000. Given the bits the estimate
    # has sd sqrt(e^ε/(n (e^ε − 1)²)) = 0.0044; a 6-sigma band has false alarm 2e-9.
    rng = np.random.default_rng(3)
    n, epsilon = 200_000, 0.5
    bits = (np.arange(n) < 0.3 * n).astype(int)
    keep = rng.random(n) < math.exp(epsilon) / (1 + math.exp(epsilon))
    outputs = np.where(keep, bits, 1 - bits)
    estimate = _number(call_student(fn, (outputs, epsilon), task), task, "fn(200 000 outputs, 0.5)")
    sd = math.sqrt(math.exp(epsilon) / (n * math.expm1(epsilon) ** 2))
    require(abs(estimate - 0.3) <= 6 * sd,
            f"{task}: on 200 000 simulated users with 30 % ones (ε = 0.5) your estimate is {estimate:.4f}; "
            f"an unbiased one is within ±{6 * sd:.4f} of 0.3.")
    print(f"Matches ((1 + e^ε)·ō − 1)/(e^ε − 1) on {len(want)} cases; on 200 000 simulated users it estimates "
          f"{estimate:.4f} for the true 0.3 (sd {sd:.4f}).")
    passed(task)


# --- Task 2: group sizes of the SQ -> local simulation --------------------------------------

_GROUP_GRID = tuple((e, tau, b, t) for e in (0.5, 1.0, 8.0) for tau in (0.05, 0.2) for b in (0.05, 1e-4)
                    for t in (1, 20))


def _m_theorem(epsilon, tau, beta):
    # The chapter's group size: Hoeffding and the Laplace Chernoff bound, β/2 each (ετ <= 8√2 on this grid)
    log_term = math.log(4 / beta)
    return math.ceil(max(8 * log_term / tau ** 2, 128 * log_term / (epsilon * tau) ** 2))


def _m_variant(epsilon, tau, beta, t, variant):
    log4 = math.log(4 / (beta / t))
    if variant == "no_union":
        return _m_theorem(epsilon, tau, beta)
    if variant == "ln2":
        log2 = math.log(2 / (beta / t))
        return math.ceil(max(8 * log2 / tau ** 2, 128 * log2 / (epsilon * tau) ** 2))
    if variant == "no_hoeffding":
        return math.ceil(128 * log4 / (epsilon * tau) ** 2)
    if variant == "epsilon_not_squared":
        return math.ceil(max(8 * log4 / tau ** 2, 128 * log4 / (epsilon * tau ** 2)))
    if variant == "no_ceil":
        return max(8 * log4 / tau ** 2, 128 * log4 / (epsilon * tau) ** 2)
    if variant == "sum":
        return math.ceil(8 * log4 / tau ** 2 + 128 * log4 / (epsilon * tau) ** 2)
    raise ValueError(variant)


_GROUP_HINTS = (
    ("no_union", "you gave every query failure probability β. With t queries the union bound needs β/t per "
                 "query, so that all t answers are valid together with probability 1 − β"),
    ("ln2", "you used ln(2/β'): count the factors of 2 — each of the two events (data, noise) gets β'/2, and each "
            "two-sided tail bound has a factor 2 in front (β' = β/t)"),
    ("no_hoeffding", "the data term (Hoeffding for the values φ(z_i)) is missing: it is the larger one when ε > 4"),
    ("epsilon_not_squared", "check the power of ε in the noise term: the Laplace average's bound has b² = 4/ε² in "
                            "its exponent"),
    ("no_ceil", "a group size is a number of users: round up with math.ceil"),
    ("sum", "you added the two terms; the theorem needs m at least the larger of them (max), each event gets β'/2"),
)


_GROUP_FORMULA = "m = ⌈max(8 ln(4t/β)/τ², 128 ln(4t/β)/(ε²τ²))⌉."


def _too(m, want):
    """Too large or too small, without the right integer (fixed cases: printed answers would make a table)."""
    try:
        return "too large" if float(m) > want else "too small"
    except (TypeError, ValueError):
        return "not a number of users"


def check_group_sizes(fn):
    """Task 2: ``fn(epsilon, tau, beta, t)`` must return (m, n): m from the one-query bound at β/t, n = t·m.

    Compared on a grid of 24 settings (ε ∈ {0.5, 1, 8}, τ ∈ {0.05, 0.2},
    β ∈ {0.05, 1e-4}, t ∈ {1, 20}) with the formula evaluated here; must
    match exactly (integers). Typical mistakes (no union bound, ln(2/β),
    missing Hoeffding term, ε not squared, no rounding, sum instead of max)
    are named.
    """
    task = "Task 2 (group sizes)"
    require_own_code(fn, ("group_size", "users_needed", "tolerance_for_group"), task)
    results = []
    for epsilon, tau, beta, t in _GROUP_GRID:
        call = f"fn(epsilon={epsilon:g}, tau={tau:g}, beta={beta:g}, t={t})"
        out = call_student(fn, (epsilon, tau, beta, t), task)
        require(isinstance(out, tuple) and len(out) == 2,
                f"{task}: {call} should return a pair (m, n), got {out!r}.")
        results.append(out)
    for (epsilon, tau, beta, t), (m, n) in zip(_GROUP_GRID, results):
        call = f"fn(epsilon={epsilon:g}, tau={tau:g}, beta={beta:g}, t={t})"
        want_m = _m_theorem(epsilon, tau, beta / t)
        if isinstance(m, (str, bytes)) or isinstance(n, (str, bytes)):
            raise LabCheckError(f"{task}: {call} should return two integers (m, n), got {m!r}, {n!r}.")
        if m != want_m:
            for variant, hint in _GROUP_HINTS:
                if all(np.isclose(float(mm), float(_m_variant(e, ta, b, tt, variant)), rtol=1e-12)
                       for (e, ta, b, tt), (mm, _) in zip(_GROUP_GRID, results)):
                    raise LabCheckError(f"{task}: {call} gives m = {m!r}, {_too(m, want_m)} for the union bound with "
                                        f"β/t per query.\nHint: {teaching_hint(task, hint + '.', _GROUP_FORMULA)}")
            raise LabCheckError(f"{task}: {call} gives m = {m!r}, {_too(m, want_m)} for the union bound with β/t per "
                                f"query.\nHint: " + teaching_hint(
                                    task, "give each query failure β/t, split it between the data (Hoeffding) and "
                                          "the noise (the Laplace average's bound), solve each for m and take the "
                                          "larger, rounded up.", _GROUP_FORMULA))
        require(isinstance(m, (int, np.integer)) and isinstance(n, (int, np.integer)),
                f"{task}: {call} should return integers (numbers of users), got m = {m!r}, n = {n!r}.")
        require(n == t * m, f"{task}: {call} gives n = {n}, but t disjoint groups of m = {m} users are n = t·m = "
                            f"{t * m} users (each user answers one query).")
    example = results[_GROUP_GRID.index((1.0, 0.05, 0.05, 20))]
    print(f"m and n match the chapter's simulation theorem on {len(_GROUP_GRID)} settings; e.g. ε = 1, τ = 0.05, β = 0.05, t = 20: "
          f"m = {example[0]:,} users per query, n = {example[1]:,} in total.")
    passed(task)


# --- Task 3: the Laplace randomizer ---------------------------------------------------------

def check_laplace_randomizer(fn):
    """Task 3: ``fn(values, epsilon, rng)`` must return values + Lap(2/ε), values in [−1, 1] (chapter 3).

    Checks: same shape out; noise from ``rng`` (same seed, same output;
    other seed, other output); a ValueError for a value outside [−1, 1]; and,
    for ε ∈ {0.5, 2}, 20 000 outputs pass a KS test against Lap(value, 2/ε) at
    false alarm 1e-6 (scale computed here). A scale 1/ε (sensitivity 1 instead
    of 2) is at KS distance max_u ½(e^{−u} − e^{−2u}) = 0.125 from Lap(2/ε),
    far beyond the critical 0.019 (DKW: sqrt(ln(2/1e-6)/(2n)) at n = 20 000),
    so it is rejected and named.
    """
    task = "Task 3 (Laplace randomizer)"
    require_own_code(fn, ("LaplaceRandomizer", "laplace_mechanism", "make_randomizer"), task)
    values = np.linspace(-1, 1, 6)
    out = np.asarray(call_student(fn, (values, 1.0, np.random.default_rng(1)), task), dtype=float)
    require(out.shape == values.shape, f"{task}: for values of shape {values.shape} you return shape {out.shape}; "
                                       f"every user gets their own noise: size=np.shape(values).")
    again = np.asarray(call_student(fn, (values, 1.0, np.random.default_rng(1)), task), dtype=float)
    other = np.asarray(call_student(fn, (values, 1.0, np.random.default_rng(2)), task), dtype=float)
    require(np.array_equal(out, again), f"{task}: the same seed gave different outputs. Hint: draw the noise "
                                        f"from the rng argument (rng.laplace(...)), not np.random.")
    require(not np.array_equal(out, other), f"{task}: two different seeds gave the same output; use the rng argument.")
    expect_student_raises(fn, (np.array([0.5, 1.5]), 1.0, np.random.default_rng(0)), ValueError, task,
                          "A statistical query has values in [-1, 1], and the noise scale protects only values "
                          "in that range: refuse anything else with ValueError.")
    p_values = []
    for epsilon in (0.5, 2.0):
        exact = np.full(N_DRAWS, 0.25)
        noise = np.asarray(call_student(fn, (exact, epsilon, np.random.default_rng(7 + int(10 * epsilon))), task),
                           dtype=float) - 0.25
        require(noise.shape == exact.shape and np.unique(noise).size > N_DRAWS // 2,
                f"{task}: at ε = {epsilon:g} the {N_DRAWS} users did not get independent noise each.")
        p_value = float(stats.kstest(noise, stats.laplace(scale=2 / epsilon).cdf).pvalue)
        if p_value < FALSE_ALARM:
            scale = float(np.mean(np.abs(noise - np.median(noise))))  # |Lap(b)| has mean b
            hint = "the noise must be Laplace with scale b = 2/ε"
            if abs(scale * epsilon - 1) < 0.05:
                hint = ("your scale looks like 1/ε. A query with values in [-1, 1] has sensitivity 2 "
                        "(two users' values can differ by 2), so the scale is 2/ε")
            elif abs(scale / epsilon - 2) < 0.1:
                hint = "your scale looks like 2ε: divide by ε, b = 2/ε"
            elif stats.kurtosis(noise) < 1.5:
                hint = "the tails of your noise are too light for Laplace noise; use rng.laplace, not rng.normal"
            raise LabCheckError(f"{task}: at ε = {epsilon:g} your noise is not Lap(0, 2/ε) = Lap(0, {2 / epsilon:g}) "
                                f"(KS p-value {p_value:.1e}; measured scale ≈ {scale:.3g}).\nHint: {hint}.")
        p_values.append(p_value)
    print(f"KS tests against Lap(2/ε) at ε = 0.5 and 2: p-values {p_values[0]:.2f}, {p_values[1]:.2f} "
          f"(rejected below {FALSE_ALARM:g}).")
    passed(task)


# --- Task 4: a statistical query ------------------------------------------------------------

def _threshold_law(theta, noise_rate=0.2, n_grid=400):
    """Labelled points (x, y) on a grid with label noise: (records, weights), written out here."""
    x = (np.arange(n_grid) + 0.5) / n_grid
    clean = np.where(x >= theta, 1.0, -1.0)
    records = np.vstack([np.column_stack([x, clean]), np.column_stack([x, -clean])])
    weights = np.concatenate([np.full(n_grid, (1 - noise_rate) / n_grid), np.full(n_grid, noise_rate / n_grid)])
    return records, weights


def check_threshold_query(fn):
    """Task 4: ``fn(theta)`` must return φ with φ(rows) = 2·1{h_θ(x) ≠ y} − 1, h_θ(x) = +1 iff x >= θ.

    Checks that φ returns one value in [−1, 1] per record (rows (x, y)), and
    that E φ = 2·err(h_θ) − 1 under a known noisy law for θ ∈ {0.1, 0.37, 0.8},
    computed here. Typical mistakes named: the {0, 1} indicator without the
    map 2·1{·} − 1, and the sign flipped (1{h = y}, or equivalently the
    threshold direction reversed, which gives the same −φ).
    """
    task = "Task 4 (threshold query)"
    for theta in (0.1, 0.37, 0.8):
        phi = call_student(fn, (theta,), task)
        require(callable(phi), f"{task}: fn({theta}) should return a function of the records (the query φ), "
                               f"got {type(phi).__name__}. Hint: define `def phi(rows): ...` inside and return phi.")
        rows, weights = _threshold_law(theta)
        values = np.asarray(call_student(phi, (rows,), task), dtype=float)
        require(values.shape == (rows.shape[0],),
                f"{task}: φ(rows) must return one value per record (shape ({rows.shape[0]},)), got {values.shape}. "
                f"Hint: work with the columns rows[:, 0] (x) and rows[:, 1] (y) elementwise.")
        require(np.all(np.isfinite(values)) and np.all(np.abs(values) <= 1),
                f"{task}: φ must map into [-1, 1]; found {values[~(np.abs(values) <= 1)][:3]}.")
        got = float(np.dot(weights, values))
        x, y = rows[:, 0], rows[:, 1]
        h = np.where(x >= theta, 1.0, -1.0)
        error = float(np.dot(weights, h != y))
        want = 2 * error - 1
        if not math.isclose(got, want, abs_tol=1e-9):
            if math.isclose(got, error, abs_tol=1e-9):
                hint = ("your φ is the indicator 1{h(x) ≠ y} ∈ {0, 1}; a statistical query here is "
                        "2·1{·} − 1 ∈ {−1, 1}")
            elif math.isclose(got, 1 - 2 * error, abs_tol=1e-9):
                # 1{h = y} and a reversed threshold (h = +1 iff x < θ, i.e. −h_θ) give the same −φ
                hint = ("the sign is flipped: φ must be +1 where the threshold errs (h_θ(x) ≠ y) and −1 "
                        "where it is right, with h_θ(x) = +1 iff x >= θ (check both the comparison and the "
                        "direction)")
            else:
                hint = "φ(x, y) = +1 if h_θ(x) ≠ y else −1, with h_θ(x) = +1 iff x >= θ"
            raise LabCheckError(f"{task}: at θ = {theta} the expectation of your φ is {got:.4f}, but "
                                f"2·err(h_θ) − 1 = {want:.4f} (err = {error:.3f} under 20 % label noise)."
                                f"\nHint: {hint}.")
    print("E φ = 2·err(h_θ) − 1 for θ = 0.1, 0.37, 0.8 under a noisy law; values in [−1, 1].")
    passed(task)


from .lab03_constructions import (check_local_oracle, check_rejection_sampler,  # noqa: E402
                                 check_threshold_learner)
from .lab03_derivations import check_krr_estimate, check_krr_randomizer  # noqa: E402
