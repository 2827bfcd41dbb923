"""The registry of private routines and the audits that back their privacy claims.

One entry (:class:`AuditCase`) per private routine of the book: the (ε, δ) it
claims, the pair of neighbouring inputs and the family of events an audit with
:mod:`dpteach.audit` uses, and, where the package has one, the deliberately
broken variant that the same audit must catch. The privacy-audit page of the
book (``book/privacy_audit.md``), ``make audit`` and ``tests/test_audit_report.py``
all run these entries, so the page shows exactly what the tests check.

The neighbours and events (built by :mod:`dpteach.audit_setups`, one setup per
routine) are those of the unit tests named in each entry's
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

from . import audit, audit_setups as setups
from .audit_setups import Refused

__all__ = ["AuditCase", "Settings", "CASES", "NOT_AUDITED", "case", "run_case", "canonical_name",
           "EXTREME_VALUES", "EXTREME_SETTINGS", "extreme_setup", "run_extreme"]


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


def canonical_name(obj):
    """``module.qualname`` of a function or class, where it is defined (re-exports resolved)."""
    return f"{obj.__module__}.{obj.__qualname__}"


_Q95 = 0.95
CASES = (
    AuditCase("laplace", "Laplace mechanism", 1, ("dpteach.mechanisms.laplace_mechanism",), 1.0, 0.0,
              "one value, 0 vs 1 (sensitivity 1)", "{output > t}, 25 thresholds in [−2, 4]", setups.laplace_setup,
              Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="dpteach.mechanisms.broken_laplace_half_noise", mirrors="tests/test_audit.py", seed=11,
              extreme=functools.partial(setups.laplace_setup, "correct"), bound=1.0),
    AuditCase("gaussian", "Gaussian mechanism (analytic σ)", 1, ("dpteach.mechanisms.gaussian_mechanism",),
              1.0, 1e-5, "one value, 0 vs 1 (L2 sensitivity 1)", "{output > t}, 41 thresholds in [−2, 8]",
              setups.gaussian_setup, Settings(200_000, 200_000, _Q95), Settings(2_000_000, 400_000, 0.99),
              broken="(in the audit) σ/2", mirrors="tests/test_audit.py", seed=11,
              extreme=functools.partial(setups.gaussian_setup, "correct"), bound=1.0),
    AuditCase("randomized_response", "Randomized response", 1, ("dpteach.mechanisms.randomized_response",),
              1.0, 0.0, "one bit, 1 vs 0", "{output = v}, v ∈ {0, 1}", setups.randomized_response_setup,
              Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="(in the audit) keep probability of 2ε", mirrors="tests/test_audit.py", seed=11,
              extreme=functools.partial(setups.randomized_response_setup, "correct"), bound=1),
    AuditCase("exponential_mechanism", "Exponential mechanism", 1,
              ("dpteach.mechanisms.exponential_mechanism",), 1.0, 0.0,
              "10 scores, 0 vs (−1, 1, …, 1) (Δ = 1, both directions)", "{output = k}, k = 0…9",
              setups.exponential_mechanism_setup, Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="(in the audit) exp(εs/Δ), factor 2 forgotten", mirrors="tests/test_audit.py", seed=11,
              extreme=functools.partial(setups.exponential_mechanism_setup, "correct"), bound=0.0),
    AuditCase("report_noisy_max", "Report-noisy-max", 1, ("dpteach.mechanisms.report_noisy_max",), 1.0, 0.0,
              "10 scores, 0 vs (−1, 1, …, 1) (Δ = 1, both directions)", "{output = k}, k = 0…9",
              setups.report_noisy_max_setup, Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="dpteach.mechanisms.broken_report_noisy_max_half_scale", mirrors="tests/test_audit.py",
              seed=11,
              extreme=functools.partial(setups.report_noisy_max_setup, "correct"), bound=0.0),
    AuditCase("generic_learner", "Generic private learner", 2,
              ("dpteach.generic.generic_private_learner", "dpteach.generic.GenericPrivateLearner"), 1.0, 0.0,
              "5 points, thresholds; the label of x = 1 flips (scores move both ways)",
              "{a negative-orientation threshold}, {output = h}", setups.generic_learner_setup,
              Settings(200_000, 200_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="dpteach.generic.broken_generic_learner_no_factor_2", mirrors="tests/test_generic.py", seed=3,
              extreme=functools.partial(setups.generic_learner_setup, "correct"), bound=1.0),
    AuditCase("laplace_randomizer", "ε-local Laplace randomizer", 3, ("dpteach.randomizers.LaplaceRandomizer",),
              1.0, 0.0, "one record, +1 vs −1 (the ends of [−1, 1])", "{output > t}, 9 thresholds in [−1, 3]",
              setups.laplace_randomizer_setup, Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="dpteach.randomizers.HalfNoiseLaplaceRandomizer", mirrors="tests/test_local.py", seed=11,
              extreme=functools.partial(setups.laplace_randomizer_setup, "correct"), bound=1.0),
    AuditCase("rr_randomizer", "ε-local randomized response", 3, ("dpteach.randomizers.RandomizedResponse",),
              1.0, 0.0, "one bit, 1 vs 0", "{output = v}, v ∈ {0, 1}", setups.rr_randomizer_setup,
              Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99), mirrors="tests/test_local.py",
              seed=11,
              extreme=functools.partial(setups.rr_randomizer_setup, "correct"), bound=1),
    AuditCase("onebit_randomizer", "ε-local one-bit randomizer", 3, ("dpteach.randomizers.OneBitRandomizer",),
              1.0, 0.0, "one record, +1 vs −1", "{output > 0}", setups.onebit_randomizer_setup,
              Settings(100_000, 100_000, _Q95), Settings(1_000_000, 200_000, 0.99), mirrors="tests/test_local.py",
              seed=11,
              extreme=functools.partial(setups.onebit_randomizer_setup, "correct"), bound=1.0),
    AuditCase("clipped_gaussian_mean", "Clipped Gaussian mean", 4,
              ("dpteach.attack_targets.clipped_gaussian_mean",), 1.0, 1e-5,
              "5 records in R²; record 0 is +R·e₁ vs −R·e₁ (the clipping bound)",
              "{first coordinate > t}, 7 thresholds in [0, 1.5]", setups.clipped_gaussian_mean_setup,
              Settings(200_000, 200_000, _Q95), Settings(1_000_000, 200_000, 0.99),
              broken="dpteach.attack_targets.broken_clipped_gaussian_mean_quarter_noise",
              mirrors="tests/test_fingerprinting.py", seed=5,
              extreme=functools.partial(setups.clipped_gaussian_mean_setup, "correct"), bound=1.0),
    AuditCase("peeling", "Peeling (s = 50, δ = 10⁻³)", 5, ("dpteach.peeling.peel",), 1.0, 1e-3,
              "one clipped LASSO step; the replaced record's residual is +2T vs −2T (|v_j| moves by λ, "
              "up on 50 coordinates, down on 50)", "{≥ 30 of the 50 selections in the up group}", setups.peel_setup,
              Settings(10_000, 1, _Q95), Settings(100_000, 1, 0.99),
              broken="dpteach.peeling.broken_peel_forgotten_sqrt_s", mirrors="tests/test_peeling.py", seed=1,
              extreme=functools.partial(setups.peel_setup, "correct"), bound=1.0),
    AuditCase("dp_gradient_descent", "DP gradient descent for least squares (one step)", 5,
              ("dpteach.regression.dp_gradient_descent_ols",), 1.0, 1e-5,
              "20 records; record 0 is x = (1, 1), y = +T vs −T (half the calibrated Δ₂: loose)",
              "{⟨β̂, (1,1)/√2⟩ > t}, 7 thresholds", setups.dp_gradient_descent_setup,
              Settings(2_000, 500, _Q95), Settings(30_000, 5_000, 0.99), mirrors="(new in this registry)",
              seed=4,
              extreme=functools.partial(setups.dp_gradient_descent_setup, "correct"), bound=1.0),
    AuditCase("dp_erm_step", "One DP-ERM step (noisy average subgradient)", 6,
              ("dpteach.dp_erm.noisy_average_subgradient", "dpteach.dp_erm.noisy_projected_subgradient_descent"),
              1.0, 1e-5, "50 records; (T e₁, −1) vs (T e₁, +1): the subgradient term flips (Δ = 2T/n)",
              "{g₀ > t}, 13 (broken: 11) thresholds in the tail", setups.dp_erm_step_setup,
              Settings(200_000, 200_000, _Q95), Settings(2_000_000, 400_000, 0.99),
              broken="dpteach.dp_erm.broken_noisy_average_subgradient_forgotten_sensitivity",
              mirrors="tests/test_dp_erm.py", seed=1,
              extreme=functools.partial(setups.dp_erm_step_setup, "correct"), bound=4.0),
    AuditCase("hermite_correlations", "Private Hermite correlations", 7,
              ("dpteach.proper.private_hermite_correlations",), 2.0, 1e-5,
              "100 records, d = 1, degree 2; x = 3 (feature clipped to norm T) with its label flipped",
              "{⟨m̃, u⟩ > centre + kσ}, k ∈ {1, 2, 2.5, 3}", setups.correlations_setup,
              Settings(40_000, 40_000, _Q95), Settings(400_000, 100_000, 0.99),
              broken="dpteach.proper.broken_private_hermite_correlations_half_noise",
              mirrors="tests/test_proper.py", seed=5,
              extreme=functools.partial(setups.correlations_setup, "correct"), bound=3.0),
    AuditCase("dpsas_threshold", "DPSAS private threshold", 8, ("dpteach.dpsas_steps.private_threshold",),
              1.0, 0.0, "10 labels; one flips from −1 to +1", "{output > t}, 21 thresholds in [−1, 1]",
              setups.dpsas_threshold_setup, Settings(5_000, 2_000, _Q95), Settings(50_000, 10_000, 0.99),
              broken="dpteach.dpsas_steps.broken_threshold_sensitivity_forgot_factor_two", mirrors="tests/test_dpsas.py",
              seed=8,
              extreme=functools.partial(setups.dpsas_threshold_setup, "correct"), bound=1),
    AuditCase("dpsas_initial_direction", "DPSAS initial direction", 8,
              ("dpteach.dpsas_steps.private_initial_direction",), 1.0, 1e-5,
              "10 examples in R²; x = L·e₁ with label +1 vs −1 (the clipping bound)",
              "{ŵ₀[0] > t}, 19 thresholds in [−0.9, 0.9]", setups.dpsas_initial_direction_setup,
              Settings(3_000, 1_000, _Q95), Settings(40_000, 10_000, 0.99), mirrors="(new in this registry)",
              seed=9,
              extreme=functools.partial(setups.dpsas_initial_direction_setup, "correct"), bound=2 * math.sqrt(2)),
    AuditCase("dpsas_round", "One DPSAS round", 8, ("dpteach.dpsas_steps.dpsas_round",), 1.0, 1e-5,
              "20 examples; x = L·e₂ ⊥ w in the band, label +1 vs −1", "{ŵ_{t+1}[1] > t}, 50 thresholds",
              setups.dpsas_round_setup, Settings(100_000, 20_000, _Q95), Settings(1_000_000, 100_000, 0.99),
              broken="dpteach.dpsas_steps.broken_dpsas_noise_sigma_forgot_factor_two", mirrors="tests/test_dpsas.py",
              seed=7,
              extreme=functools.partial(setups.dpsas_round_setup, "correct"), bound=2 * math.sqrt(2)),
    AuditCase("dp_sgd_step", "One DP-SGD step (noisy clipped gradient sum)", 9,
              ("dpteach.dp_logistic.noisy_clipped_gradient_sum",), 1.0, 1e-5,
              "20 examples; a record at 20 ≫ C = 1 whose label flips", "{sum[0] < t}, 9 thresholds in [−4σ, 0]",
              setups.dp_sgd_step_setup, Settings(100_000, 20_000, _Q95), Settings(1_000_000, 100_000, 0.99),
              broken="dpteach.dp_logistic.broken_noisy_gradient_sum_without_clipping",
              mirrors="tests/test_dp_logistic.py", seed=5,
              extreme=functools.partial(setups.dp_sgd_step_setup, "correct"), bound=20.0),
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
    output on both inputs finite), epsilon_lower (certified, at ``settings``), claim,
    degenerate (None, or why the pair is "nothing to audit": D and D' the same
    double, e.g. 1e300 and 1e300 − 1, or one output with probability 1 on both;
    ``audit.AuditResult.degenerate``; such a row is not a passed audit).
    Warnings are raised as errors: a warning that appears for one record and not
    for its neighbour is itself an observable difference.
    """
    row = {"name": entry.name, "value": value, "claim": entry.epsilon, "delta": entry.delta, "refused": None,
           "finite": True, "epsilon_lower": 0.0, "n_trials": settings.n_trials, "confidence": settings.confidence,
           "degenerate": None}
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
    row["epsilon_lower"], row["degenerate"] = result.epsilon_lower, result.degenerate
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
