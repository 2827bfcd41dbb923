"""The audit setups behind the registry (:mod:`dpteach.registry`): one per private routine, by chapter.

Each ``*_setup(variant, record=...)`` returns ``(mechanism, dataset, neighbour, events)`` for ``variant``
"correct" or "broken" (the package's deliberately broken variant): neighbouring inputs at the sensitivity
bound (a record at ``record``, the neighbour's at the bound on the other side: :func:`away`), scores moving
in both directions, and events in the tail, mirroring the unit test named in each section. A setup whose
routine refuses the record (bits, labels, a bounded domain) returns :class:`Refused` with the message.

Not an algorithm module: it imports the algorithms and ``audit`` only, so a test can import it cheaply.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import attack_targets, audit, dp_erm, dp_logistic, dpsas_steps, generic, mechanisms, peeling, proper, randomizers
from . import regression
from .hermite import hermite_feature_sum
from .hypotheses import thresholds as threshold_class

__all__ = ["Refused", "refusal", "away", "laplace_setup", "gaussian_setup", "randomized_response_setup",
           "exponential_mechanism_setup", "report_noisy_max_setup", "generic_learner_setup",
           "laplace_randomizer_setup", "rr_randomizer_setup", "onebit_randomizer_setup",
           "clipped_gaussian_mean_setup", "peel_setup", "dp_gradient_descent_setup", "dp_erm_step_setup",
           "correlations_setup", "dpsas_threshold_setup", "dpsas_initial_direction_setup", "dpsas_round_setup",
           "dp_sgd_step_setup"]


@dataclass(frozen=True)
class Refused:
    """The routine's validation refuses a record at that value (bits, labels, a bounded domain): the message."""

    message: str


def refusal(call):
    """Refused(message) when ``call`` raises ValueError/TypeError (a named validation error), else an error."""
    try:
        call()
    except (ValueError, TypeError) as error:
        return Refused(str(error))
    raise AssertionError("expected the routine's validation to refuse this record, and it accepted it")


def away(record, bound):
    """The neighbour's record: at the bound on the other side of 0 from ``record`` (maximal move)."""
    return -math.copysign(bound, record)


# --- chapter 1: the mechanisms (tests/test_audit.py) ------------------------------------------------------

EPS = 1.0
K = 10
SCORES = np.zeros(K)
SCORES_NEIGHBOUR = np.ones(K)
SCORES_NEIGHBOUR[0] = -1.0  # candidate 0 loses Δ, every other gains Δ: scores move both ways


def query_pair(record):
    """(f(D), f(D')): the regular 0 vs 1, or a query answer at ``record`` and one sensitivity towards 0."""
    if record is None:
        return 0.0, 1.0, 0.0
    return record, record - math.copysign(1.0, record), record


def laplace_setup(variant, record=None):
    release = mechanisms.laplace_mechanism if variant == "correct" else mechanisms.broken_laplace_half_noise
    value, neighbour, shift = query_pair(record)

    def mechanism(value, n, rng):
        return release(np.full(n, float(value)), 1.0, EPS, rng)
    return mechanism, value, neighbour, audit.threshold_events(shift + np.linspace(-2, 4, 25))


def gaussian_setup(variant, record=None):
    delta = 1e-5
    value, neighbour, shift = query_pair(record)

    def mechanism(value, n, rng):
        if variant == "correct":
            return mechanisms.gaussian_mechanism(np.full(n, float(value)), 1.0, EPS, delta, rng)
        return float(value) + rng.normal(0.0, mechanisms.gaussian_sigma(1.0, EPS, delta) / 2, n)
    return mechanism, value, neighbour, audit.threshold_events(shift + np.linspace(-2, 8, 41))


def randomized_response_setup(variant, record=None):
    if record not in (None, 0, 1):
        return refusal(lambda: mechanisms.randomized_response(np.array([record]), EPS, 0))
    epsilon = EPS if variant == "correct" else 2 * EPS  # broken: the keep probability of 2ε

    def mechanism(bit, n, rng):
        return mechanisms.randomized_response(np.full(n, bit), epsilon, rng)
    return mechanism, 0, 1, audit.value_events([0, 1])


def score_pair(record):
    """The regular scores, or candidate 0's score at ``record`` in D and one Δ lower in magnitude in D'."""
    scores, neighbour = SCORES.copy(), SCORES_NEIGHBOUR.copy()
    if record is not None:
        scores[0], neighbour[0] = record, record - math.copysign(1.0, record)
    return scores, neighbour


def exponential_mechanism_setup(variant, record=None):
    sensitivity = 1.0 if variant == "correct" else 0.5  # broken: exp(ε s/Δ), the factor 2 forgotten

    def mechanism(scores, n, rng):
        return mechanisms.exponential_mechanism(scores, sensitivity, EPS, rng, size=n)
    return (mechanism, *score_pair(record), audit.value_events(range(K)))


def report_noisy_max_setup(variant, record=None):
    release = mechanisms.report_noisy_max if variant == "correct" else mechanisms.broken_report_noisy_max_half_scale

    def mechanism(scores, n, rng):
        return release(scores, 1.0, EPS, rng, size=n)
    return (mechanism, *score_pair(record), audit.value_events(range(K)))


# --- chapter 2: the generic learner (tests/test_generic.py) -----------------------------------------------

def generic_learner_setup(variant, record=1.0):
    # Thresholds on a 5-point grid; D' relabels x = 1 from +1 to −1, which adds an error to every h_{k,+}
    # and removes one from every h_{k,−}: the scores move in both directions. (``record``: that x elsewhere.)
    H = threshold_class(4)
    X = np.array([0.1, 0.3, 0.6, 0.9, record])
    y = np.array([-1, -1, 1, 1, 1])
    y_neighbour = y.copy()
    y_neighbour[-1] = -1

    def mechanism(labels, n, rng):
        if variant == "correct":
            return generic.generic_private_learner(H, X, labels, EPS, rng=rng, size=n)
        return generic.broken_generic_learner_no_factor_2(H, X, labels, EPS, rng=rng, size=n)

    def negative_orientation(outputs):
        return outputs >= len(H) // 2

    return mechanism, y, y_neighbour, [negative_orientation] + audit.value_events(range(len(H)))


# --- chapter 3: local randomizers (tests/test_local.py) ---------------------------------------------------

def laplace_randomizer_setup(variant, record=None):
    randomizer = (randomizers.LaplaceRandomizer if variant == "correct"
                  else randomizers.HalfNoiseLaplaceRandomizer)(EPS)
    if record is not None and abs(record) > 1:  # the domain is [−1, 1]: validation refuses the rest
        return refusal(lambda: randomizer.randomize(np.array([record]), 0))
    record = 1.0 if record is None else record
    return randomizer.as_audit_mechanism(), record, away(record, 1.0), audit.threshold_events(np.linspace(-1, 3, 9))


def rr_randomizer_setup(variant, record=None):
    randomizer = randomizers.RandomizedResponse(EPS)
    if record not in (None, 0, 1):
        return refusal(lambda: randomizer.randomize(np.array([record]), 0))
    return (randomizer.as_audit_mechanism(), 1, 0, audit.value_events([0, 1]))


def onebit_randomizer_setup(variant, record=None):
    randomizer = randomizers.OneBitRandomizer(EPS)
    if record is not None and abs(record) > 1:
        return refusal(lambda: randomizer.randomize(np.array([record]), 0))
    record = 1.0 if record is None else record
    return (randomizer.as_audit_mechanism(), record, away(record, 1.0), audit.threshold_events([0.0]))


# --- chapter 4: the clipped Gaussian mean (tests/test_fingerprinting.py) ----------------------------------

def clipped_gaussian_mean_setup(variant, record=1.0):
    epsilon, delta, radius, n, d = 1.0, 1e-5, 1.0, 5, 2
    release = (attack_targets.clipped_gaussian_mean if variant == "correct"
               else attack_targets.broken_clipped_gaussian_mean_quarter_noise)
    dataset = np.zeros((n, d))
    neighbour = dataset.copy()
    # The differing record at the clipping bound (record = R), both sides; or at ``record`` vs the far bound.
    dataset[0, 0], neighbour[0, 0] = record, away(record, radius)

    def mechanism(records, n_trials, rng):
        return release(np.broadcast_to(records, (n_trials, n, d)), epsilon, delta, radius, rng=rng)[:, 0]
    return mechanism, dataset, neighbour, audit.threshold_events(np.linspace(0.0, 1.5, 7))


# --- chapter 5: Peeling and DP gradient descent (tests/test_peeling.py) -----------------------------------

def peeling_neighbours(s, m=10, truncation=1.0, record=1.0):
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


def peel_setup(variant, record=1.0):
    s, epsilon, delta = 50, 1.0, 1e-3
    release = peeling.peel if variant == "correct" else peeling.broken_peel_forgotten_sqrt_s
    v, v_prime, lam = peeling_neighbours(s, record=record)

    def mechanism(vector, n_trials, rng):  # post-processing: how many of group A were selected
        return np.count_nonzero(release(vector, s, epsilon, delta, lam, rng=rng, size=n_trials)[:, :s], axis=1)
    # {at least 30 of the 50 selections from group A}: fixed on a pilot run in tests/test_peeling.py.
    return mechanism, v, v_prime, audit.threshold_events([29.5])


def dp_gradient_descent_setup(variant, record=1.0):
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

def dp_erm_step_setup(variant, record=4.0):
    T, n, D, epsilon, delta = 4.0, 50, 2, 1.0, 1e-5
    step = (dp_erm.noisy_average_subgradient if variant == "correct"
            else dp_erm.broken_noisy_average_subgradient_forgotten_sensitivity)
    F = np.zeros((n, D))
    F[0, 0] = record  # at T: the record at the clipping bound; its subgradient term flips sign: Δ = 2T/n
    if abs(record) > T:  # rows must have norm ≤ T (the learners clip first): validation refuses the rest
        return refusal(lambda: step(F, np.ones(n), np.zeros(D), T, epsilon, delta, 1, rng=0))
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

def correlations_setup(variant, record=3.0):
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

def dpsas_threshold_setup(variant, record=None):
    if record not in (None, -1, 1):  # labels only: validation refuses every other value
        return refusal(lambda: dpsas_steps.private_threshold(np.array([record, 1.0]), 1.0, 1e-6, 0))
    release = (dpsas_steps.private_threshold if variant == "correct"
               else dpsas_steps.broken_threshold_sensitivity_forgot_factor_two)
    y = np.array([1.0, -1.0] * 5)
    y_neighbour = y.copy()
    y_neighbour[1] = 1.0

    def one(labels, rng):
        return release(labels, 1.0, 1e-6, rng)
    return audit.repeat(one), y, y_neighbour, audit.threshold_events(np.linspace(-1.0, 1.0, 21))


def dpsas_initial_direction_setup(variant, record=None):
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


def dpsas_round_setup(variant, record=None):
    d, m, epsilon, delta = 2, 20, 1.0, 1e-5
    L = 2 * math.sqrt(d)
    w = np.array([1.0, 0.0])
    X = np.zeros((m, d))
    X[0] = [0.0, L if record is None else record]  # at norm L, orthogonal to w, in the band of the ramp
    y = np.ones(m)
    y_neighbour = y.copy()
    y_neighbour[0] = -1.0
    sigma_of = dpsas_steps.dpsas_noise_sigma if variant == "correct" else dpsas_steps.broken_dpsas_noise_sigma_forgot_factor_two
    sigma = sigma_of(m, L, epsilon, delta)

    def mechanism(labels, n_trials, rng):
        # ŵ_{t+1}[1] = −λv/√(1 + λ²v²) is monotone in the noisy gradient's coordinate v.
        return dpsas_steps.dpsas_round(w, X, labels, 1.0, 0.0, 1.0, sigma, L, rng, size=n_trials)[0][:, 1]
    return mechanism, y, y_neighbour, audit.threshold_events(np.linspace(-0.98, 0.98, 50))


# --- chapter 9: DP-SGD logistic regression (tests/test_dp_logistic.py) ----------------------------------------

def dp_sgd_step_setup(variant, record=20.0):
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
