"""The registry of private routines and the audits that back their privacy claims.

One entry (:class:`AuditCase`) per private routine of the book: the (ε, δ) it
claims, the pair of neighbouring inputs and the family of events an audit with
:mod:`dpteach.audit` uses, and, where the package has one, the deliberately
broken variant that the same audit must catch. The privacy-audit page of the
book (``book/privacy_audit.md``), ``make audit`` and ``tests/test_audit_report.py``
all run these entries, so the page shows exactly what the tests check.

The neighbours and events are those of the unit tests named in each entry's
``mirrors`` (neighbours at the sensitivity bound, scores moving in both
directions, events in the tail). Two settings: ``quick`` (the book build and
the tests, about 30 s for every entry on 2 cores) and ``full`` (``make audit``,
about ten times the runs and 99 % confidence).

Routines whose docstrings claim privacy but that are not audited on their own
are listed in :data:`NOT_AUDITED` with the reason (accountants that compute a
σ or an ε, learners whose privacy is the composition of audited steps, a
release that is private only on a data-dependent event). The test
``tests/test_audit_report.py`` fails for a routine that claims privacy and is
in neither list, so a new private routine must join one of them.

Not an algorithm module: it imports the algorithms and ``audit`` only (no
``data``, ``experiments`` or ``time``), so a test can import it cheaply.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import audit, dp_erm, dp_logistic, dpsas_steps, generic, mechanisms, peeling, proper, randomizers, regression
from . import attack_targets
from .hermite import hermite_feature_sum
from .hypotheses import thresholds as threshold_class

__all__ = ["AuditCase", "Settings", "CASES", "NOT_AUDITED", "case", "run_case", "canonical_name",
           "EXTREME_VALUES", "EXTREME_SETTINGS", "Refused", "extreme_setup", "run_extreme"]


@dataclass(frozen=True)
class Settings:
    """Runs per input for the certifying audit, runs per input for the event selection, confidence."""

    n_trials: int
    n_select: int
    confidence: float


@dataclass(frozen=True)
class AuditCase:
    """One private routine, its claim, and the audit that tests the claim.

    ``setup(variant)`` returns ``(mechanism, dataset, neighbour, events)`` for
    ``variant`` "correct" or "broken" (the latter only when ``broken`` names a
    broken variant in the package). ``routines`` are the dotted names of the
    public routines whose claim this audit backs.
    """

    name: str
    title: str
    chapter: int
    routines: tuple
    epsilon: float
    delta: float
    neighbours: str
    events: str
    setup: Callable
    quick: Settings
    full: Settings
    broken: str | None = None
    mirrors: str = ""
    seed: int = 0
    notes: str = field(default="")
    #: ``extreme(value)``: the setup with one record of D at ``value`` (see :func:`extreme_setup`).
    extreme: Callable | None = None
    #: the value at which that record sits in the registry's own pair (at or beyond the clipping bound).
    bound: float | None = None


@dataclass(frozen=True)
class Refused:
    """The routine's validation refuses a record at that value (bits, labels, a bounded domain): the message."""

    message: str


def _refusal(call):
    """Refused(message) when ``call`` raises ValueError/TypeError (a named validation error), else an error."""
    try:
        call()
    except (ValueError, TypeError) as error:
        return Refused(str(error))
    raise AssertionError("expected the routine's validation to refuse this record, and it accepted it")


def _away(record, bound):
    """The neighbour's record: at the bound on the other side of 0 from ``record`` (maximal move)."""
    return -math.copysign(bound, record)


def canonical_name(obj):
    """``module.qualname`` of a function or class, where it is defined (re-exports resolved)."""
    return f"{obj.__module__}.{obj.__qualname__}"


# --- chapter 1: the mechanisms (tests/test_audit.py) ------------------------------------------------------

_EPS = 1.0
_K = 10
_SCORES = np.zeros(_K)
_SCORES_NEIGHBOUR = np.ones(_K)
_SCORES_NEIGHBOUR[0] = -1.0  # candidate 0 loses Δ, every other gains Δ: scores move both ways


def _query_pair(record):
    """(f(D), f(D')): the regular 0 vs 1, or a query answer at ``record`` and one sensitivity towards 0."""
    if record is None:
        return 0.0, 1.0, 0.0
    return record, record - math.copysign(1.0, record), record


def _laplace(variant, record=None):
    release = mechanisms.laplace_mechanism if variant == "correct" else mechanisms.broken_laplace_half_noise
    value, neighbour, shift = _query_pair(record)

    def mechanism(value, n, rng):
        return release(np.full(n, float(value)), 1.0, _EPS, rng)
    return mechanism, value, neighbour, audit.threshold_events(shift + np.linspace(-2, 4, 25))


def _gaussian(variant, record=None):
    delta = 1e-5
    value, neighbour, shift = _query_pair(record)

    def mechanism(value, n, rng):
        if variant == "correct":
            return mechanisms.gaussian_mechanism(np.full(n, float(value)), 1.0, _EPS, delta, rng)
        return float(value) + rng.normal(0.0, mechanisms.gaussian_sigma(1.0, _EPS, delta) / 2, n)
    return mechanism, value, neighbour, audit.threshold_events(shift + np.linspace(-2, 8, 41))


def _randomized_response(variant, record=None):
    if record not in (None, 0, 1):
        return _refusal(lambda: mechanisms.randomized_response(np.array([record]), _EPS, 0))
    epsilon = _EPS if variant == "correct" else 2 * _EPS  # broken: the keep probability of 2ε

    def mechanism(bit, n, rng):
        return mechanisms.randomized_response(np.full(n, bit), epsilon, rng)
    return mechanism, 0, 1, audit.value_events([0, 1])


def _score_pair(record):
    """The regular scores, or candidate 0's score at ``record`` in D and one Δ lower in magnitude in D'."""
    scores, neighbour = _SCORES.copy(), _SCORES_NEIGHBOUR.copy()
    if record is not None:
        scores[0], neighbour[0] = record, record - math.copysign(1.0, record)
    return scores, neighbour


def _exponential_mechanism(variant, record=None):
    sensitivity = 1.0 if variant == "correct" else 0.5  # broken: exp(ε s/Δ), the factor 2 forgotten

    def mechanism(scores, n, rng):
        return mechanisms.exponential_mechanism(scores, sensitivity, _EPS, rng, size=n)
    return (mechanism, *_score_pair(record), audit.value_events(range(_K)))


def _report_noisy_max(variant, record=None):
    release = mechanisms.report_noisy_max if variant == "correct" else mechanisms.broken_report_noisy_max_half_scale

    def mechanism(scores, n, rng):
        return release(scores, 1.0, _EPS, rng, size=n)
    return (mechanism, *_score_pair(record), audit.value_events(range(_K)))


# --- chapter 2: the generic learner (tests/test_generic.py) -----------------------------------------------

def _generic_learner(variant, record=1.0):
    # Thresholds on a 5-point grid; D' relabels x = 1 from +1 to −1, which adds an error to every h_{k,+}
    # and removes one from every h_{k,−}: the scores move in both directions. (``record``: that x elsewhere.)
    H = threshold_class(4)
    X = np.array([0.1, 0.3, 0.6, 0.9, record])
    y = np.array([-1, -1, 1, 1, 1])
    y_neighbour = y.copy()
    y_neighbour[-1] = -1

    def mechanism(labels, n, rng):
        if variant == "correct":
            return generic.generic_private_learner(H, X, labels, _EPS, rng=rng, size=n)
        return generic.broken_generic_learner_no_factor_2(H, X, labels, _EPS, rng=rng, size=n)

    def negative_orientation(outputs):
        return outputs >= len(H) // 2

    return mechanism, y, y_neighbour, [negative_orientation] + audit.value_events(range(len(H)))


# --- chapter 3: local randomizers (tests/test_local.py) ---------------------------------------------------

def _laplace_randomizer(variant, record=None):
    randomizer = (randomizers.LaplaceRandomizer if variant == "correct"
                  else randomizers.HalfNoiseLaplaceRandomizer)(_EPS)
    if record is not None and abs(record) > 1:  # the domain is [−1, 1]: validation refuses the rest
        return _refusal(lambda: randomizer.randomize(np.array([record]), 0))
    record = 1.0 if record is None else record
    return randomizer.as_audit_mechanism(), record, _away(record, 1.0), audit.threshold_events(np.linspace(-1, 3, 9))


def _rr_randomizer(variant, record=None):
    randomizer = randomizers.RandomizedResponse(_EPS)
    if record not in (None, 0, 1):
        return _refusal(lambda: randomizer.randomize(np.array([record]), 0))
    return (randomizer.as_audit_mechanism(), 1, 0, audit.value_events([0, 1]))


def _onebit_randomizer(variant, record=None):
    randomizer = randomizers.OneBitRandomizer(_EPS)
    if record is not None and abs(record) > 1:
        return _refusal(lambda: randomizer.randomize(np.array([record]), 0))
    record = 1.0 if record is None else record
    return (randomizer.as_audit_mechanism(), record, _away(record, 1.0), audit.threshold_events([0.0]))


# --- chapter 4: the clipped Gaussian mean (tests/test_fingerprinting.py) ----------------------------------

def _clipped_gaussian_mean(variant, record=1.0):
    epsilon, delta, radius, n, d = 1.0, 1e-5, 1.0, 5, 2
    release = (attack_targets.clipped_gaussian_mean if variant == "correct"
               else attack_targets.broken_clipped_gaussian_mean_quarter_noise)
    dataset = np.zeros((n, d))
    neighbour = dataset.copy()
    # The differing record at the clipping bound (record = R), both sides; or at ``record`` vs the far bound.
    dataset[0, 0], neighbour[0, 0] = record, _away(record, radius)

    def mechanism(records, n_trials, rng):
        return release(np.broadcast_to(records, (n_trials, n, d)), epsilon, delta, radius, rng=rng)[:, 0]
    return mechanism, dataset, neighbour, audit.threshold_events(np.linspace(0.0, 1.5, 7))


# --- chapter 5: Peeling and DP gradient descent (tests/test_peeling.py) -----------------------------------

def _peeling_neighbours(s, m=10, truncation=1.0, record=1.0):
    """v(D), v(D') of one clipped LASSO step at the residual-clipping bound (as in tests/test_peeling.py).

    d = 2s + 1: groups A and B of s coordinates and a pivot carrying β = T e_p; the replaced record
    has residual +2T in D and −2T in D', so |v_j| moves by exactly λ = 4T/m, up on A and down on B.
    ``record`` is that record's first covariate; X is clipped to [−c_x, c_x] = [−1, 1] first, as DPLasso does.
    """
    d = 2 * s + 1
    u = np.r_[np.ones(s), -np.ones(s)]
    beta = np.zeros(d)
    beta[-1] = truncation
    X = np.ones((m, d))
    y = np.zeros(m)
    X[0], y[0] = np.r_[u, 1.0], -truncation
    X_prime, y_prime = X.copy(), y.copy()
    X_prime[0], y_prime[0] = np.r_[u, -1.0], truncation
    X[0, 0] = X_prime[0, 0] = record
    X, X_prime = np.clip(X, -1.0, 1.0), np.clip(X_prime, -1.0, 1.0)  # DPLasso's x_bound = 1
    v = regression.lasso_gradient_step(X, y, beta, 1.0, truncation)
    v_prime = regression.lasso_gradient_step(X_prime, y_prime, beta, 1.0, truncation)
    return v, v_prime, regression.dp_lasso_sensitivity(m, truncation)


def _peel(variant, record=1.0):
    s, epsilon, delta = 50, 1.0, 1e-3
    release = peeling.peel if variant == "correct" else peeling.broken_peel_forgotten_sqrt_s
    v, v_prime, lam = _peeling_neighbours(s, record=record)

    def mechanism(vector, n_trials, rng):  # post-processing: how many of group A were selected
        return np.count_nonzero(release(vector, s, epsilon, delta, lam, rng=rng, size=n_trials)[:, :s], axis=1)
    # {at least 30 of the 50 selections from group A}: fixed on a pilot run in tests/test_peeling.py.
    return mechanism, v, v_prime, audit.threshold_events([29.5])


def _dp_gradient_descent(variant, record=1.0):
    # One step (K = 1) from β = 0: r_i = −f_T(y_i), so the replaced record x = 1, y = ±T moves the
    # gradient by 2T√d/n, half the Δ₂ = 4√d·T/n the noise is calibrated for (from β = 0 the residual
    # cannot reach ±2T). A valid audit, but loose by design: the certified bound stays far below ε.
    epsilon, delta, truncation, n, d = 1.0, 1e-5, 1.0, 20, 2
    X = np.zeros((n, d))
    X[0] = record  # (the routine clips X to [−c_x, c_x], c_x = 1)
    y = np.zeros(n)
    y_neighbour = y.copy()
    y[0], y_neighbour[0] = truncation, -truncation

    def one(labels, rng):
        return regression.dp_gradient_descent_ols(X, labels, epsilon, delta, truncation, n_iterations=1,
                                                  rng=rng) @ np.ones(d) / math.sqrt(d)
    sigma = regression.dp_gradient_descent_sigma(n, d, epsilon, delta, truncation, n_iterations=1)
    return audit.repeat(one), y, y_neighbour, audit.threshold_events(np.linspace(0, 3, 7) * sigma)


# --- chapter 6: one DP-ERM step (tests/test_dp_erm.py) ----------------------------------------------------

def _dp_erm_step(variant, record=4.0):
    T, n, D, epsilon, delta = 4.0, 50, 2, 1.0, 1e-5
    step = (dp_erm.noisy_average_subgradient if variant == "correct"
            else dp_erm.broken_noisy_average_subgradient_forgotten_sensitivity)
    F = np.zeros((n, D))
    F[0, 0] = record  # at T: the record at the clipping bound; its subgradient term flips sign: Δ = 2T/n
    if abs(record) > T:  # rows must have norm ≤ T (the learners clip first): validation refuses the rest
        return _refusal(lambda: step(F, np.ones(n), np.zeros(D), T, epsilon, delta, 1, rng=0))
    y = np.ones(n)
    y_neighbour = y.copy()
    y[0] = -1.0

    def mechanism(labels, n_trials, rng):
        return step(F, labels, np.zeros(D), T, epsilon, delta, 1, rng=rng, size=n_trials)[:, 0]
    if variant == "correct":
        sigma = dp_erm.dp_erm_sigma(T, n, epsilon, delta, 1)
        events = audit.threshold_events(np.linspace(0, 6, 13) * sigma / 4 + T / n)
    else:
        events = audit.threshold_events(np.linspace(0.1, 0.6, 11))
    return mechanism, y, y_neighbour, events


# --- chapter 7: the private Hermite correlations (tests/test_proper.py) -----------------------------------

def _correlations(variant, record=3.0):
    d, degree, n = 1, 2, 100
    radius = 2 * math.sqrt(3)  # the paper's 2√D_p with D_p = 3
    epsilon, delta = 2.0, 1e-5
    rng = np.random.default_rng(21)
    X = rng.standard_normal((n, d))
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X[0] = record  # at 3: ‖ψ₂(3)‖ > T, the clipped feature has norm exactly T
    y_flipped = y.copy()
    y_flipped[0] = -y[0]
    release = (proper.private_hermite_correlations_batch if variant == "correct"
               else proper.broken_private_hermite_correlations_half_noise)
    direction = hermite_feature_sum(X[:1], degree, radius=radius)
    direction /= np.linalg.norm(direction)

    def mechanism(labels, n_trials, rng):
        outputs, _ = release(X, labels, degree, radius, epsilon, delta, rng=rng, size=n_trials)
        return outputs @ direction
    sigma = mechanisms.gaussian_sigma(2 * radius / n, epsilon, delta)  # the n₁ = n examples of S₁ given
    centre = float(hermite_feature_sum(X, degree, weights=y, radius=radius) @ direction) / n
    return mechanism, y, y_flipped, audit.threshold_events(centre + sigma * np.array([1.0, 2.0, 2.5, 3.0]))


# --- chapter 8: the DPSAS steps (tests/test_dpsas.py) -----------------------------------------------------

def _dpsas_threshold(variant, record=None):
    if record not in (None, -1, 1):  # labels only: validation refuses every other value
        return _refusal(lambda: dpsas_steps.private_threshold(np.array([record, 1.0]), 1.0, 1e-6, 0))
    release = (dpsas_steps.private_threshold if variant == "correct"
               else dpsas_steps._threshold_sensitivity_forgot_factor_two)
    y = np.array([1.0, -1.0] * 5)
    y_neighbour = y.copy()
    y_neighbour[1] = 1.0

    def one(labels, rng):
        return release(labels, 1.0, 1e-6, rng)
    return audit.repeat(one), y, y_neighbour, audit.threshold_events(np.linspace(-1.0, 1.0, 21))


def _dpsas_initial_direction(variant, record=None):
    # d = 2, m = 10: the differing example is x = L·e₁ with label +1 in D and −1 in D' (the clipping
    # bound, mean moves by 2L/m along e₁); the event is on the first coordinate of ŵ₀.
    d, m, epsilon, delta = 2, 10, 1.0, 1e-5
    L = 2 * math.sqrt(d)
    X = np.zeros((m, d))
    X[0, 0] = L if record is None else record  # rows are clipped to norm L inside
    X[1:, 1] = 1.0
    y = np.ones(m)
    y_neighbour = y.copy()
    y_neighbour[0] = -1.0

    def one(labels, rng):
        return dpsas_steps.private_initial_direction(X, labels, L, epsilon, delta, rng)[0]
    return audit.repeat(one), y, y_neighbour, audit.threshold_events(np.linspace(-0.9, 0.9, 19))


def _dpsas_round(variant, record=None):
    d, m, epsilon, delta = 2, 20, 1.0, 1e-5
    L = 2 * math.sqrt(d)
    w = np.array([1.0, 0.0])
    X = np.zeros((m, d))
    X[0] = [0.0, L if record is None else record]  # at norm L, orthogonal to w, in the band of the ramp
    y = np.ones(m)
    y_neighbour = y.copy()
    y_neighbour[0] = -1.0
    sigma_of = dpsas_steps.dpsas_noise_sigma if variant == "correct" else dpsas_steps._dpsas_noise_sigma_forgot_factor_two
    sigma = sigma_of(m, L, epsilon, delta)

    def mechanism(labels, n_trials, rng):
        # ŵ_{t+1}[1] = −λv/√(1 + λ²v²) is monotone in the noisy gradient's coordinate v.
        return dpsas_steps.dpsas_round(w, X, labels, 1.0, 0.0, 1.0, sigma, L, rng, size=n_trials)[0][:, 1]
    return mechanism, y, y_neighbour, audit.threshold_events(np.linspace(-0.98, 0.98, 50))


# --- chapter 9: DP-SGD logistic regression (tests/test_dp_logistic.py) ----------------------------------------

def _dp_sgd_step(variant, record=20.0):
    # One epoch = one noisy clipped gradient sum per example. A replace-one pair at (and beyond) the
    # clipping bound: the far record's label flips, which moves the clipped sum by 2C in coordinate 0.
    n, far, epsilon, delta = 20, record, 1.0, 1e-5
    X = np.zeros((n, 2))
    X[0, 0] = far
    y = np.ones(n)
    y_flip = y.copy()
    y_flip[0] = -1.0
    sigma = dp_logistic.dp_sgd_sigma(1.0, 1, epsilon, delta)
    step = (dp_logistic.noisy_clipped_gradient_sum if variant == "correct"
            else dp_logistic.broken_noisy_gradient_sum_without_clipping)

    def mechanism(labels, n_trials, rng):
        return step(X, labels, np.zeros(2), 0.0, 1.0, sigma, rng=rng, size=n_trials)[:, 0]
    return mechanism, y, y_flip, audit.threshold_events(np.linspace(-4, 0, 9) * sigma)


_Q95 = 0.95
CASES = (
    AuditCase("laplace", "Laplace mechanism", 1, ("dpteach.mechanisms.laplace_mechanism",), 1.0, 0.0,
              "one value, 0 vs 1 (sensitivity 1)", "{output > t}, 25 thresholds in [−2, 4]", _laplace,
              Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="dpteach.mechanisms.broken_laplace_half_noise", mirrors="tests/test_audit.py", seed=11,
              extreme=functools.partial(_laplace, "correct"), bound=1.0),
    AuditCase("gaussian", "Gaussian mechanism (analytic σ)", 1, ("dpteach.mechanisms.gaussian_mechanism",),
              1.0, 1e-5, "one value, 0 vs 1 (L2 sensitivity 1)", "{output > t}, 41 thresholds in [−2, 8]",
              _gaussian, Settings(200_000, 200_000, _Q95), Settings(2_000_000, 400_000, 0.99),
              broken="(in the audit) σ/2", mirrors="tests/test_audit.py", seed=11,
              extreme=functools.partial(_gaussian, "correct"), bound=1.0),
    AuditCase("randomized_response", "Randomized response", 1, ("dpteach.mechanisms.randomized_response",),
              1.0, 0.0, "one bit, 1 vs 0", "{output = v}, v ∈ {0, 1}", _randomized_response,
              Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="(in the audit) keep probability of 2ε", mirrors="tests/test_audit.py", seed=11,
              extreme=functools.partial(_randomized_response, "correct"), bound=1),
    AuditCase("exponential_mechanism", "Exponential mechanism", 1,
              ("dpteach.mechanisms.exponential_mechanism",), 1.0, 0.0,
              "10 scores, 0 vs (−1, 1, …, 1) (Δ = 1, both directions)", "{output = k}, k = 0…9",
              _exponential_mechanism, Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="(in the audit) exp(εs/Δ), factor 2 forgotten", mirrors="tests/test_audit.py", seed=11,
              extreme=functools.partial(_exponential_mechanism, "correct"), bound=0.0),
    AuditCase("report_noisy_max", "Report-noisy-max", 1, ("dpteach.mechanisms.report_noisy_max",), 1.0, 0.0,
              "10 scores, 0 vs (−1, 1, …, 1) (Δ = 1, both directions)", "{output = k}, k = 0…9",
              _report_noisy_max, Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="dpteach.mechanisms.broken_report_noisy_max_half_scale", mirrors="tests/test_audit.py",
              seed=11,
              extreme=functools.partial(_report_noisy_max, "correct"), bound=0.0),
    AuditCase("generic_learner", "Generic private learner", 2,
              ("dpteach.generic.generic_private_learner", "dpteach.generic.GenericPrivateLearner"), 1.0, 0.0,
              "5 points, thresholds; the label of x = 1 flips (scores move both ways)",
              "{a negative-orientation threshold}, {output = h}", _generic_learner,
              Settings(200_000, 200_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="dpteach.generic.broken_generic_learner_no_factor_2", mirrors="tests/test_generic.py", seed=3,
              extreme=functools.partial(_generic_learner, "correct"), bound=1.0),
    AuditCase("laplace_randomizer", "ε-local Laplace randomizer", 3, ("dpteach.randomizers.LaplaceRandomizer",),
              1.0, 0.0, "one record, +1 vs −1 (the ends of [−1, 1])", "{output > t}, 9 thresholds in [−1, 3]",
              _laplace_randomizer, Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="dpteach.randomizers.HalfNoiseLaplaceRandomizer", mirrors="tests/test_local.py", seed=11,
              extreme=functools.partial(_laplace_randomizer, "correct"), bound=1.0),
    AuditCase("rr_randomizer", "ε-local randomized response", 3, ("dpteach.randomizers.RandomizedResponse",),
              1.0, 0.0, "one bit, 1 vs 0", "{output = v}, v ∈ {0, 1}", _rr_randomizer,
              Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99), mirrors="tests/test_local.py",
              seed=11,
              extreme=functools.partial(_rr_randomizer, "correct"), bound=1),
    AuditCase("onebit_randomizer", "ε-local one-bit randomizer", 3, ("dpteach.randomizers.OneBitRandomizer",),
              1.0, 0.0, "one record, +1 vs −1", "{output > 0}", _onebit_randomizer,
              Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99), mirrors="tests/test_local.py",
              seed=11,
              extreme=functools.partial(_onebit_randomizer, "correct"), bound=1.0),
    AuditCase("clipped_gaussian_mean", "Clipped Gaussian mean", 4,
              ("dpteach.attack_targets.clipped_gaussian_mean",), 1.0, 1e-5,
              "5 records in R²; record 0 is +R·e₁ vs −R·e₁ (the clipping bound)",
              "{first coordinate > t}, 7 thresholds in [0, 1.5]", _clipped_gaussian_mean,
              Settings(200_000, 200_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="dpteach.attack_targets.broken_clipped_gaussian_mean_quarter_noise",
              mirrors="tests/test_fingerprinting.py", seed=5,
              extreme=functools.partial(_clipped_gaussian_mean, "correct"), bound=1.0),
    AuditCase("peeling", "Peeling (s = 50, δ = 10⁻³)", 5, ("dpteach.peeling.peel",), 1.0, 1e-3,
              "one clipped LASSO step; the replaced record's residual is +2T vs −2T (|v_j| moves by λ, "
              "up on 50 coordinates, down on 50)", "{≥ 30 of the 50 selections in the up group}", _peel,
              Settings(10_000, 1, _Q95), Settings(100_000, 1, 0.99),
              broken="dpteach.peeling.broken_peel_forgotten_sqrt_s", mirrors="tests/test_peeling.py", seed=1,
              extreme=functools.partial(_peel, "correct"), bound=1.0),
    AuditCase("dp_gradient_descent", "DP gradient descent for least squares (one step)", 5,
              ("dpteach.regression.dp_gradient_descent_ols",), 1.0, 1e-5,
              "20 records; record 0 is x = (1, 1), y = +T vs −T (half the calibrated Δ₂: loose)",
              "{⟨β̂, (1,1)/√2⟩ > t}, 7 thresholds", _dp_gradient_descent,
              Settings(2_000, 500, _Q95), Settings(30_000, 5_000, 0.99), mirrors="(new in this registry)",
              seed=4,
              extreme=functools.partial(_dp_gradient_descent, "correct"), bound=1.0),
    AuditCase("dp_erm_step", "One DP-ERM step (noisy average subgradient)", 6,
              ("dpteach.dp_erm.noisy_average_subgradient", "dpteach.dp_erm.noisy_projected_subgradient_descent"),
              1.0, 1e-5, "50 records; (T e₁, −1) vs (T e₁, +1): the subgradient term flips (Δ = 2T/n)",
              "{g₀ > t}, 13 (broken: 11) thresholds in the tail", _dp_erm_step,
              Settings(200_000, 200_000, _Q95), Settings(2_000_000, 400_000, 0.99),
              broken="dpteach.dp_erm.broken_noisy_average_subgradient_forgotten_sensitivity",
              mirrors="tests/test_dp_erm.py", seed=1,
              extreme=functools.partial(_dp_erm_step, "correct"), bound=4.0),
    AuditCase("hermite_correlations", "Private Hermite correlations", 7,
              ("dpteach.proper.private_hermite_correlations",), 2.0, 1e-5,
              "100 records, d = 1, degree 2; x = 3 (feature clipped to norm T) with its label flipped",
              "{⟨m̃, u⟩ > centre + kσ}, k ∈ {1, 2, 2.5, 3}", _correlations,
              Settings(40_000, 40_000, _Q95), Settings(400_000, 100_000, 0.99),
              broken="dpteach.proper.broken_private_hermite_correlations_half_noise",
              mirrors="tests/test_proper.py", seed=5,
              extreme=functools.partial(_correlations, "correct"), bound=3.0),
    AuditCase("dpsas_threshold", "DPSAS private threshold", 8, ("dpteach.dpsas_steps.private_threshold",),
              1.0, 0.0, "10 labels; one flips from −1 to +1", "{output > t}, 21 thresholds in [−1, 1]",
              _dpsas_threshold, Settings(5_000, 2_000, _Q95), Settings(50_000, 10_000, 0.99),
              broken="dpteach.dpsas_steps._threshold_sensitivity_forgot_factor_two", mirrors="tests/test_dpsas.py",
              seed=8,
              extreme=functools.partial(_dpsas_threshold, "correct"), bound=1),
    AuditCase("dpsas_initial_direction", "DPSAS initial direction", 8,
              ("dpteach.dpsas_steps.private_initial_direction",), 1.0, 1e-5,
              "10 examples in R²; x = L·e₁ with label +1 vs −1 (the clipping bound)",
              "{ŵ₀[0] > t}, 19 thresholds in [−0.9, 0.9]", _dpsas_initial_direction,
              Settings(3_000, 1_000, _Q95), Settings(40_000, 10_000, 0.99), mirrors="(new in this registry)",
              seed=9,
              extreme=functools.partial(_dpsas_initial_direction, "correct"), bound=2 * math.sqrt(2)),
    AuditCase("dpsas_round", "One DPSAS round", 8, ("dpteach.dpsas_steps.dpsas_round",), 1.0, 1e-5,
              "20 examples; x = L·e₂ ⊥ w in the band, label +1 vs −1", "{ŵ_{t+1}[1] > t}, 50 thresholds",
              _dpsas_round, Settings(100_000, 20_000, _Q95), Settings(1_000_000, 100_000, 0.99),
              broken="dpteach.dpsas_steps._dpsas_noise_sigma_forgot_factor_two", mirrors="tests/test_dpsas.py",
              seed=7,
              extreme=functools.partial(_dpsas_round, "correct"), bound=2 * math.sqrt(2)),
    AuditCase("dp_sgd_step", "One DP-SGD step (noisy clipped gradient sum)", 9,
              ("dpteach.dp_logistic.noisy_clipped_gradient_sum",), 1.0, 1e-5,
              "20 examples; a record at 20 ≫ C = 1 whose label flips", "{sum[0] < t}, 9 thresholds in [−4σ, 0]",
              _dp_sgd_step, Settings(100_000, 20_000, _Q95), Settings(1_000_000, 100_000, 0.99),
              broken="dpteach.dp_logistic.broken_noisy_gradient_sum_without_clipping",
              mirrors="tests/test_dp_logistic.py", seed=5,
              extreme=functools.partial(_dp_sgd_step, "correct"), bound=20.0),
)


def case(name):
    """The :class:`AuditCase` called ``name``."""
    for entry in CASES:
        if entry.name == name:
            return entry
    raise ValueError(f"name must be one of {[c.name for c in CASES]}, got {name!r}")


def has_broken(entry):
    """Whether ``entry`` has a broken variant to audit."""
    return entry.broken is not None


def run_case(entry, variant="correct", settings="quick"):
    """Run the audit of ``entry`` (an :class:`AuditCase`) on its ``variant``; returns an ``audit.AuditResult``.

    ``settings`` is "quick" or "full". Events are chosen on ``n_select`` runs and
    certified on ``n_trials`` fresh runs (``dpteach.audit.audit``); Peeling's one
    event was fixed on a pilot run, so it is certified directly. Same seed, same result.
    """
    if variant not in ("correct", "broken"):
        raise ValueError(f"variant must be 'correct' or 'broken', got {variant!r}")
    if variant == "broken" and not has_broken(entry):
        raise ValueError(f"{entry.name} has no broken variant")
    if settings not in ("quick", "full"):
        raise ValueError(f"settings must be 'quick' or 'full', got {settings!r}")
    chosen = entry.quick if settings == "quick" else entry.full
    mechanism, dataset, neighbour, events = entry.setup(variant)
    rng = np.random.default_rng([entry.seed, variant == "broken"])
    if len(events) == 1:
        return audit.epsilon_lower_bound(mechanism, dataset, neighbour, events[0], chosen.n_trials,
                                         delta=entry.delta, confidence=chosen.confidence, rng=rng)
    return audit.audit(mechanism, dataset, neighbour, events, chosen.n_trials, delta=entry.delta,
                       confidence=chosen.confidence, n_select=chosen.n_select, rng=rng)


#: Where the extreme-record checks put one record of D: huge, the largest double, huge negative, and
#: "bound", the value of the registry's own pair (at or beyond the routine's clipping bound).
EXTREME_VALUES = (1e300, float(np.finfo(float).max), -1e300, "bound")

#: Runs per input for certifying and for choosing the event in the extreme-record audits (kept small:
#: the check is that nothing breaks, and every routine's full-strength audit is its CASES entry).
EXTREME_SETTINGS = Settings(2_000, 1_000, 0.95)


def extreme_setup(entry, value):
    """``(mechanism, dataset, neighbour, events)`` with record 0 of D at ``value``, or a :class:`Refused`.

    ``value`` is a float or "bound" (``entry.bound``). The neighbour changes that
    record the way the entry's own pair does (its label flips, or it moves to
    the bound on the other side), so D and D' still differ in one record. A
    routine whose records cannot hold the value (bits, ±1 labels, a bounded
    domain, feature rows of norm ≤ T) must refuse it by validation, with a
    message naming the parameter: that is :class:`Refused`.
    """
    return entry.extreme(entry.bound if value == "bound" else value)


def run_extreme(entry, value, settings=EXTREME_SETTINGS):
    """Audit ``entry`` with one record at ``value`` (see :func:`extreme_setup`); a dict for the report.

    Keys: name, value, refused (the validation message or None), finite (every
    output on both inputs finite), epsilon_lower (certified, at ``settings``), claim.
    Warnings are raised as errors: a warning that appears for one record and not
    for its neighbour is itself an observable difference.
    """
    row = {"name": entry.name, "value": value, "claim": entry.epsilon, "delta": entry.delta, "refused": None,
           "finite": True, "epsilon_lower": 0.0, "n_trials": settings.n_trials, "confidence": settings.confidence}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        setup = extreme_setup(entry, value)
        if isinstance(setup, Refused):
            row["refused"] = setup.message
            return row
        mechanism, dataset, neighbour, events = setup
        rng = np.random.default_rng([entry.seed, 17])
        row["finite"] = all(bool(np.all(np.isfinite(np.asarray(mechanism(data, 20, rng), dtype=float))))
                            for data in (dataset, neighbour))
        if len(events) == 1:
            result = audit.epsilon_lower_bound(mechanism, dataset, neighbour, events[0], settings.n_trials,
                                               delta=entry.delta, confidence=settings.confidence, rng=rng)
        else:
            result = audit.audit(mechanism, dataset, neighbour, events, settings.n_trials, delta=entry.delta,
                                 confidence=settings.confidence, n_select=settings.n_select, rng=rng)
    row["epsilon_lower"] = result.epsilon_lower
    return row


#: Routines and learners that declare a privacy claim (``@privacy_claim``) but are not audited on their own, and why.
#: (Accountants, calibrations and exact laws declare no claim: they release nothing. tests/test_audit_report.py
#: lists them with their reasons, and checks that every declared claim is audited here or excused here.)
NOT_AUDITED = {
    # composites: their privacy is the composition (or parallel composition) of audited steps
    "dpteach.regression.DPLasso": "Peeling on disjoint batches (Theorem 5.6): Peeling is audited",
    "dpteach.dp_logistic.DPSGDLogisticRegression": "audited DP-SGD steps on disjoint batches, composed per epoch",
    "dpteach.dp_sgd_poisson.PoissonDPSGDLogisticRegression": "post-processing of the Poisson-sampled noisy sums "
                                                             "audited in tests/test_dp_sgd_poisson.py",
    "dpteach.mechanisms.exponential_mechanism_on_errors": "the exponential mechanism with Δ = 1 (audited); "
                                                          "ε = inf is the non-private arg-min",
    "dpteach.improper.select_hypothesis": "the exponential mechanism with Δ = 1 (audited)",
    "dpteach.improper.PrivateHermiteL1Learner": "DP-ERM steps + selection on disjoint splits (both audited)",
    "dpteach.logconcave.PrivateLogConcaveL1Learner": "the chapter 6 learner's steps with another radius",
    "dpteach.halfspace_cover.select_halfspace": "the exponential mechanism with Δ = 1 (audited)",
    "dpteach.proper.PrivateProperLearner": "correlations + selection on disjoint halves (both audited)",
    "dpteach.dpsas.dpsas": "threshold, initial direction and rounds on disjoint blocks (all audited)",
    "dpteach.dpsas.dpsas_sample_reuse": "the rounds' composition on a reused sample (each step audited)",
    "dpteach.dpsas.PrivateSemiAgnosticLearner": "DPSAS over an η grid + selection (steps audited)",
    "dpteach.local.LocalSimulatedSQOracle": "one audited ε-local randomizer per user",
    "dpteach.local.simulate_sq_locally": "runs an SQ algorithm on LocalSimulatedSQOracle: one audited ε-local "
                                         "randomizer per user, each user asked once (the ledger checks it)",
    "dpteach.local_learners.LocalThresholdLearner": "an SQ learner run by simulate_sq_locally (one audited "
                                                    "randomizer per user)",
    "dpteach.local_learners.LocalHalfspaceLearner": "an SQ learner run by simulate_sq_locally (one audited "
                                                    "randomizer per user)",
    # releases whose privacy holds only on an event
    "dpteach.regression.noisy_ols": "(ε, δ)-DP only on a data-dependent event E (chapter 5's caveat), so an "
                                    "audit on a good pair says nothing about the worst case; its calibration "
                                    "on E is audited at the review's P3 pair in tests/test_regression.py",
}
