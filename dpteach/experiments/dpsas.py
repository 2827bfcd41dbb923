"""Runners behind chapter 8's figures (the semi-agnostic learner).

Data: x ~ N(0, I_d), target normal w* = (1, ..., 1)/√d and threshold t*,
labels flipped independently with probability η₀ (random classification
noise), so OPT = η₀ and every halfspace's error is exact
(``dpteach.data.rcn_halfspace_error``). The learners write
h(x) = sign(⟨w, x⟩ + τ), the data sign(⟨w, x⟩ − t): τ = −t.

Every runner takes ``rng`` and returns plain arrays/dicts for plotting.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from scipy import special

from .. import dpsas as _dpsas
from .. import dpsas_steps
from .._constraints import Count, FiniteInterval, Options, OrNone, POSITIVE, POSITIVE_INT, validate_params
from .._array_constraints import Array, Labels, PositiveArray, Sequence
from .._validation import check_int, check_memory, check_finite_array, check_work
from ..data import (gaussian_halfspace_data, rcn_halfspace_error, structured_noise_halfspace_data,
                    structured_noise_halfspace_error, structured_noise_opt)
from ..dpsas import ALPHA
from ..dpsas_steps import DELTA, EPSILON_OR_INF, ETA, STEP_RULES
from ._progress import EPSILONS_OR_INF, REPETITIONS, SIZES
from .._progress import progress

__all__ = [
    "PRESET",
    "DEMO",
    "target_normal",
    "halfspace_error",
    "rcn_dataset",
    "DatasetCache",
    "learner_errors",
    "error_vs_opt",
    "trajectories",
    "error_vs_n",
    "samples_needed_vs_d",
    "step_rule_ablation",
    "step_rule_ablation_seeds",
    "fresh_vs_reuse",
    "structured_noise_error",
    "structured_noise_runs",
]

#: The utility test's preset for Algorithm 8.9: error <= 2·OPT + α in >= 90 % of seeds.
PRESET = {"d": 5, "n": 100_000, "alpha": 0.05, "epsilon": 1.0, "delta": 1e-5, "noise_rate": 0.05,
          "threshold": 0.5}
#: Demo defaults for one DPSAS run (Algorithm 8.3): s = 2, κ = η, T_r from default_n_rounds.
DEMO = {"d": 10, "n": 200_000, "eta": 0.05, "noise_rate": 0.05, "threshold": 0.5, "delta": 1e-5}

#: Any finite real (a threshold t*, a τ).
FINITE = FiniteInterval(Real, None, None)
#: The RCN flip rate η₀ ∈ [0, 1/2) (at 1/2 the labels carry no signal).
NOISE_RATE = FiniteInterval(Real, 0, 0.5, closed="left")
#: A sweep of ε (a scalar or a 1-D sequence); inf: the non-private reference curve.
EPSILONS = EPSILONS_OR_INF


@validate_params({"d": POSITIVE_INT})
def target_normal(d):
    """w* = (1, ..., 1)/√d: every coordinate matters (no axis-aligned shortcut).

    Examples
    --------
    >>> target_normal(d=2)
    array([0.70710678, 0.70710678])
    """
    check_memory(("d", d))
    return np.ones(d) / math.sqrt(d)


def _check_normal_for(X, normal):
    """``normal`` as a 1-D array of X's dimension, named as the runners' callers spell it (dpsas says w_star)."""
    normal = check_finite_array(normal, "normal", ndim=1)
    X = check_finite_array(X, "X", ndim=2)
    if X.shape[1] != normal.size:
        raise ValueError(f"normal must have one entry per column of X (d = {X.shape[1]}), got {normal.size}")
    return normal


@validate_params({"w": Array(ndim=1), "tau": FINITE, "normal": Array(ndim=1), "threshold": FINITE,
                  "noise_rate": NOISE_RATE})
def halfspace_error(w, tau, normal, threshold, noise_rate):
    """Exact error of sign(⟨w, x⟩ + τ) under RCN around sign(⟨w*, x⟩ − t*): the data's t is −τ.

    Examples
    --------
    >>> w = np.array([0.6, 0.8])
    >>> round(halfspace_error(w=w, tau=-0.2, normal=w, threshold=0.2, noise_rate=0.05), 6)
    0.05
    """
    if w.shape != normal.shape:
        raise ValueError(f"w and normal must have the same length (one dimension d), got {w.size} and {normal.size}")
    return rcn_halfspace_error(w, -tau, normal, threshold, noise_rate)


@validate_params({"n": POSITIVE_INT, "d": POSITIVE_INT, "threshold": FINITE, "noise_rate": NOISE_RATE,
                  "rng": "random_state"})
def rcn_dataset(n, d, threshold, noise_rate, rng=None):
    """n examples of the chapter's setup: x ~ N(0, I_d), target (w*, t*) with w* = :func:`target_normal`, RCN η₀.

    Returns (X, y, w*) as ``dpteach.data.gaussian_halfspace_data``, which it calls.

    Examples
    --------
    >>> X, y, normal = rcn_dataset(n=5, d=2, threshold=0.2, noise_rate=0.05, rng=0)
    >>> X.shape, y.shape, normal.shape
    ((5, 2), (5,), (2,))
    """
    check_memory(("n", n), ("d", d))
    return gaussian_halfspace_data(n, d, normal=target_normal(d), threshold=threshold,
                                   noise_rate=noise_rate, rng=rng)


class DatasetCache:
    """One dataset per dimension d, drawn on first use and kept (so a slider redraw only runs the algorithm).

    Parameters: ``n`` rows, RCN rate ``noise_rate`` ∈ [0, 1/2), target threshold ``threshold``, ``seed``.
    ``get(d)`` returns (X, y, normal).

    Examples
    --------
    >>> cache = DatasetCache(n=5, noise_rate=0.05, threshold=0.2)
    >>> cache.get(2)[0].shape
    (5, 2)
    """

    @validate_params({"n": POSITIVE_INT, "noise_rate": NOISE_RATE, "threshold": FINITE,
                      "seed": FiniteInterval(Integral, 0, None, closed="left")})
    def __init__(self, n, noise_rate, threshold, seed=0):
        check_memory(("n", n))  # every dataset it caches has n rows (times d, checked in get)
        self.n, self.noise_rate, self.threshold, self.seed = n, noise_rate, threshold, seed
        self._store = {}

    def get(self, d):
        d = check_int(d, "d", minimum=1)
        if d not in self._store:
            self._store[d] = rcn_dataset(self.n, d, self.threshold, self.noise_rate,
                                   np.random.default_rng([self.seed, d]))
        return self._store[d]


def _learner_error(X, y, normal, threshold, noise_rate, alpha, epsilon, delta, rng):
    learner = _dpsas.PrivateSemiAgnosticLearner(alpha, epsilon, delta, random_state=rng).fit(X, y)
    error = halfspace_error(learner.coef_, learner.intercept_, normal, threshold, noise_rate)
    return error, learner.eta_grid_[learner.chosen_index_]


@validate_params({"n_seeds": REPETITIONS, "rng": "random_state", "d": POSITIVE_INT, "n": POSITIVE_INT,
                  "alpha": ALPHA, "epsilon": EPSILON_OR_INF, "delta": DELTA, "noise_rate": NOISE_RATE,
                  "threshold": FINITE})
def learner_errors(n_seeds, rng=None, d=PRESET["d"], n=PRESET["n"], alpha=PRESET["alpha"],
                   epsilon=PRESET["epsilon"], delta=PRESET["delta"], noise_rate=PRESET["noise_rate"],
                   threshold=PRESET["threshold"]):
    """Algorithm 8.9 at :data:`PRESET` (or the settings given) on ``n_seeds`` fresh datasets.

    Returns
    -------
    dict
        ``errors`` (n_seeds,), ``chosen_eta`` (n_seeds,), ``opt`` = η₀,
        ``bound`` = 2·OPT + α (the utility test's target), and the settings used.

    Examples
    --------
    >>> result = learner_errors(n_seeds=1, rng=0, d=2, n=400, alpha=0.3)
    >>> result["errors"].shape, round(result["bound"], 6)
    ((1,), 0.4)
    """
    settings = {"d": d, "n": n, "alpha": alpha, "epsilon": epsilon, "delta": delta, "noise_rate": noise_rate,
                "threshold": threshold}
    errors, chosen = np.empty(n_seeds), np.empty(n_seeds)
    for i in progress(range(n_seeds), "Algorithm 8.9 seeds"):
        X, y, normal = rcn_dataset(n, d, threshold, noise_rate, rng)
        errors[i], chosen[i] = _learner_error(X, y, normal, threshold, noise_rate, alpha, epsilon, delta, rng)
    return {"errors": errors, "chosen_eta": chosen, "opt": noise_rate, "bound": 2 * noise_rate + alpha,
            "settings": settings}


# noise_rates: RCN flip rates η₀ in [0, 1/2) (at 1/2 the labels carry no signal)
@validate_params({"noise_rates": PositiveArray(allow_zero=True, maximum=0.5),
                  "epsilons": EPSILONS, "n_reps": REPETITIONS, "d": POSITIVE_INT, "n": Count(), "alpha": ALPHA,
                  "threshold": FINITE, "delta": DELTA, "rng": "random_state"})
def error_vs_opt(noise_rates, epsilons, n_reps=3, d=5, n=100_000, alpha=0.05, threshold=0.5, delta=1e-5,
                 rng=None):
    """Figure "where C·OPT comes from": error of Algorithm 8.9 against OPT = η₀ for each ε (inf: non-private).

    Returns
    -------
    dict ε → ndarray of shape (len(noise_rates), n_reps). The same datasets are used for every ε.

    Examples
    --------
    >>> out = error_vs_opt(noise_rates=[0.05], epsilons=[1.0], n_reps=1, d=2, n=400, alpha=0.3, rng=0)
    >>> out[1.0].shape
    (1, 1)
    """
    rates = np.atleast_1d(noise_rates)
    check_work(("n_reps", n_reps), ("len(noise_rates)", rates.size), ("len(epsilons)", len(epsilons)), ("n", n),
               ("d", d))
    out = {eps: np.empty((rates.size, n_reps)) for eps in epsilons}
    for i in progress(range(rates.size), "noise rates"):
        for r in range(n_reps):
            X, y, normal = rcn_dataset(n, d, threshold, float(rates[i]), rng)
            for eps in epsilons:
                out[eps][i, r] = _learner_error(X, y, normal, threshold, float(rates[i]), alpha, eps, delta,
                                                rng)[0]
    return out


@validate_params({"X": Array(ndim=2), "y": Labels(), "normal": Array(ndim=1), "epsilons": EPSILONS, "eta": ETA,
                  "step_rule": _dpsas.DPSAS_CONSTRAINTS["step_rule"], "n_rounds": OrNone(POSITIVE_INT),
                  "delta": DELTA, "rng": "random_state"})
def trajectories(X, y, normal, epsilons, eta=0.05, step_rule="reconstructed", n_rounds=None, delta=1e-5,
                 rng=None):
    """Figure "the angle over the rounds": angle θ_t = ∠(ŵ_t, w*) in degrees over the rounds of one DPSAS run per ε.

    Returns
    -------
    dict ε → trace (the dict returned by :func:`dpteach.dpsas.dpsas`, with ``angle_deg``) plus ``tau``.
    The trace holds only private quantities (no noise-free gradient norms).
    ε = inf runs the non-private reference, as in :func:`dpteach.dpsas.dpsas`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> normal = np.array([0.6, 0.8])
    >>> y = np.where(X @ normal > 0.2, 1.0, -1.0)
    >>> out = trajectories(X=X, y=y, normal=normal, epsilons=[1.0], eta=0.2, n_rounds=3, rng=0)
    >>> out[1.0]["angle_deg"].shape
    (4,)
    """
    normal = _check_normal_for(X, normal)
    out = {}
    for eps in epsilons:
        w, tau, trace = _dpsas.dpsas(X, y, eps, delta, eta, n_rounds=n_rounds, step_rule=step_rule, rng=rng,
                                     w_star=normal)
        out[eps] = {**trace, "tau": tau}
    return out


@validate_params({"n_values": SIZES, "epsilons": EPSILONS, "n_reps": REPETITIONS, "d": POSITIVE_INT, "alpha": ALPHA,
                  "noise_rate": NOISE_RATE, "threshold": FINITE, "delta": DELTA, "rng": "random_state"})
def error_vs_n(n_values, epsilons, n_reps=3, d=5, alpha=0.05, noise_rate=0.05, threshold=0.5, delta=1e-5,
               rng=None):
    """Figure "error against n": error of Algorithm 8.9 against n, for each ε; nested prefixes of one dataset per repetition.

    Returns
    -------
    dict ε → ndarray of shape (len(n_values), n_reps). ε = inf: the non-private reference.

    Examples
    --------
    >>> error_vs_n(n_values=[400], epsilons=[1.0], n_reps=1, d=2, alpha=0.3, rng=0)[1.0].shape
    (1, 1)
    """
    sizes = n_values
    check_work(("n_reps", n_reps), ("len(n_values)", len(sizes)), ("len(epsilons)", len(epsilons)),
               ("n_values", max(sizes)), ("d", d))
    out = {eps: np.empty((len(sizes), n_reps)) for eps in epsilons}
    for r in progress(range(n_reps), "repetitions"):
        X, y, normal = rcn_dataset(max(sizes), d, threshold, noise_rate, rng)
        for j, n in enumerate(sizes):
            for eps in epsilons:
                out[eps][j, r] = _learner_error(X[:n], y[:n], normal, threshold, noise_rate, alpha, eps, delta,
                                                rng)[0]
    return out


@validate_params({"d_values": SIZES, "epsilon": EPSILON_OR_INF, "target": POSITIVE, "n_grid": SIZES,
                  "n_reps": REPETITIONS, "eta": ETA, "noise_rate": NOISE_RATE, "threshold": FINITE,
                  "n_rounds": OrNone(POSITIVE_INT), "delta": DELTA, "rng": "random_state"})
def samples_needed_vs_d(d_values, epsilon, target, n_grid, n_reps=3, eta=0.05, noise_rate=0.05,
                        threshold=0.5, n_rounds=40, delta=1e-5, rng=None):
    """Figure "examples needed against d": the smallest n of ``n_grid`` at which DPSAS (Algorithm 8.3) reaches ``target``.

    For each d the grid is walked upwards on fresh data; n is accepted when the
    *median* error over ``n_reps`` runs is ≤ ``target`` (nan if no grid value does).

    Returns
    -------
    ndarray of shape (len(d_values),). ε = inf runs the non-private reference, as in :func:`dpteach.dpsas.dpsas`.

    Examples
    --------
    >>> samples_needed_vs_d(d_values=[2], epsilon=1.0, target=0.4, n_grid=[400], n_reps=1, eta=0.2, n_rounds=3,
    ...                     rng=0)
    array([400.])
    """
    check_work(("n_reps", n_reps), ("len(d_values)", len(d_values)), ("len(n_grid)", len(n_grid)),
               ("n_grid", max(n_grid)), ("d_values", max(d_values)))
    needed = np.full(len(d_values), np.nan)
    for i in progress(range(len(d_values)), "dimensions"):
        d = d_values[i]
        for n in n_grid:
            errors = []
            for _ in range(n_reps):
                X, y, normal = rcn_dataset(n, d, threshold, noise_rate, rng)
                w, tau, _ = _dpsas.dpsas(X, y, epsilon, delta, eta, n_rounds=n_rounds, rng=rng)
                errors.append(halfspace_error(w, tau, normal, threshold, noise_rate))
            if np.median(errors) <= target:
                needed[i] = n
                break
    return needed


@validate_params({"X": Array(ndim=2), "y": Labels(), "normal": Array(ndim=1), "threshold": FINITE,
                  "noise_rate": NOISE_RATE, "epsilon": EPSILON_OR_INF, "eta": ETA, "n_rounds": OrNone(POSITIVE_INT),
                  "delta": DELTA, "rng": "random_state"})
def step_rule_ablation(X, y, normal, threshold, noise_rate, epsilon=1.0, eta=0.05, n_rounds=None,
                       delta=1e-5, rng=None):
    """Figure "ablation": the three step rules of line 8 on the same data.

    Returns
    -------
    dict rule → {"angle_deg": (T_r + 1,), "error": float, "step_size": float}.
    ε = inf runs the non-private reference, as in :func:`dpteach.dpsas.dpsas`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> normal = np.array([0.6, 0.8])
    >>> y = np.where(X @ normal > 0.2, 1.0, -1.0)
    >>> out = step_rule_ablation(X=X, y=y, normal=normal, threshold=0.2, noise_rate=0.05, eta=0.2, n_rounds=3, rng=0)
    >>> sorted(out)
    ['as_printed', 'constant', 'reconstructed']
    """
    normal = _check_normal_for(X, normal)
    out = {}
    for rule in dpsas_steps.STEP_RULES:
        w, tau, trace = _dpsas.dpsas(X, y, epsilon, delta, eta, n_rounds=n_rounds, step_rule=rule, rng=rng,
                                     w_star=normal)
        out[rule] = {"angle_deg": trace["angle_deg"], "step_size": trace["step_size"],
                     "error": halfspace_error(w, tau, normal, threshold, noise_rate)}
    return out


@validate_params({"thresholds": Array(ndim=1),
                  "epsilons": EPSILONS, "n_seeds": REPETITIONS, "d": POSITIVE_INT, "n": Count(),
                  "noise_rate": NOISE_RATE, "eta": ETA,
                  "rules": Sequence("step rules", entry=Options(STEP_RULES), nonempty=True),
                  "delta": DELTA, "rng": "random_state"})
def step_rule_ablation_seeds(thresholds, epsilons, n_seeds=4, d=10, n=100_000, noise_rate=0.05, eta=0.05,
                             rules=("reconstructed", "constant"), delta=1e-6, rng=None):
    """The step-rule ablation over seeds: final error and final angle for each (ε, t*, rule).

    For each threshold t* and seed one RCN dataset (d, n, η₀) is drawn; every
    rule and every ε runs on it (so the rules are compared on the same data).

    Returns
    -------
    dict (ε, t*) → rule → {"error": ndarray (n_seeds,), "angle_deg": ndarray (n_seeds,)} (final angle θ_{T_r}).
    ε = inf runs the non-private reference, as in :func:`dpteach.dpsas.dpsas`.

    Examples
    --------
    >>> out = step_rule_ablation_seeds(thresholds=[0.2], epsilons=[1.0], n_seeds=1, d=2, n=400, eta=0.2, rng=0)
    >>> out[(1.0, 0.2)]["constant"]["error"].shape
    (1,)
    """
    out = {(eps, float(t)): {rule: {"error": np.empty(n_seeds), "angle_deg": np.empty(n_seeds)} for rule in rules}
           for eps in epsilons for t in thresholds}
    for t in progress(thresholds, "thresholds"):
        for i in range(n_seeds):
            X, y, normal = rcn_dataset(n, d, float(t), noise_rate, rng)
            for eps in epsilons:
                for rule in rules:
                    w, tau, trace = _dpsas.dpsas(X, y, eps, delta, eta, step_rule=rule, rng=rng, w_star=normal)
                    cell = out[(eps, float(t))][rule]
                    cell["error"][i] = halfspace_error(w, tau, normal, float(t), noise_rate)
                    cell["angle_deg"][i] = trace["angle_deg"][-1]
    return out


#: The structured noise's flipped mass η₀ ∈ [0, 1/2).
NOISE_MASS = FiniteInterval(Real, 0, 0.5, closed="left")
_HERMITE_NODES, _HERMITE_WEIGHTS = np.polynomial.hermite_e.hermegauss(80)
_HERMITE_WEIGHTS = _HERMITE_WEIGHTS / math.sqrt(2 * math.pi)  # weights of E over g ~ N(0, 1)


@validate_params({"w": Array(ndim=1), "tau": FINITE, "threshold": FINITE, "noise_mass": NOISE_MASS})
def structured_noise_error(w, tau, threshold=0.5, noise_mass=0.05):
    """Exact error of sign(⟨w, x⟩ + τ), any w ∈ R^d, under chapter 6's structured noise (``structured_noise_halfspace_data``).

    The labels depend on (x₁, x₂) only. Write ⟨w, x⟩ = w₁x₁ + w₂x₂ + r·g with
    r = ‖(w₃, ..., w_d)‖ and g ~ N(0, 1) independent of (x₁, x₂, y); given g the
    halfspace is sign(ρ⟨u, (x₁, x₂)⟩ − (−τ − r g)) with u = (w₁, w₂)/ρ, whose error
    ``structured_noise_halfspace_error`` integrates exactly. The outer mean over g
    uses 80-node Gauss–Hermite quadrature (error far below 10⁻⁶).

    Examples
    --------
    >>> round(structured_noise_error(w=np.array([0.6, 0.8]), tau=-0.2, threshold=0.2, noise_mass=0.05), 4)
    0.2822
    """
    if w.size < 2 or not np.any(w):
        raise ValueError(f"w must be a non-zero vector of length >= 2, got {w!r}")
    w = w / np.linalg.norm(w)
    rho = float(np.hypot(w[0], w[1]))
    r = float(np.linalg.norm(w[2:]))
    plane = w[:2] / rho if rho > 1e-12 else np.array([1.0, 0.0])
    scale = max(rho, 1e-12)
    errors = [structured_noise_halfspace_error(plane, (-tau - r * g) / scale, threshold, noise_mass)
              for g in _HERMITE_NODES]
    return float(np.dot(_HERMITE_WEIGHTS, errors))


@validate_params({"epsilons": EPSILONS, "n_reps": REPETITIONS, "n": Count(),
                  "d": FiniteInterval(Integral, 2, None, closed="left"), "threshold": FINITE, "noise_mass": NOISE_MASS,
                  "eta": ETA, "delta": DELTA, "rng": "random_state"})
def structured_noise_runs(epsilons, n_reps=3, n=200_000, d=10, threshold=0.5, noise_mass=0.05, eta=0.05,
                          delta=1e-7, rng=None):
    """Algorithm 8.3 on labels that are *not* random classification noise: chapter 6's structured noise.

    y = sign(x₁ − t*), flipped deterministically on the slab {x₂ > z_{1−η₀}}
    (``dpteach.data.structured_noise_halfspace_data``). The flips depend on x,
    so the threshold estimate and the gradients see a different bias than
    under RCN. Each repetition draws one dataset and runs every ε on it.

    Returns
    -------
    dict with ``errors`` (ε → ndarray (n_reps,), exact errors by :func:`structured_noise_error`),
    ``angle_deg`` (ε → ndarray (n_reps,), final angle to e₁), ``opt`` (``structured_noise_opt``),
    and ``bias_error`` (the error of sign(x₁ + τ̄) with the population threshold τ̄ of lines 4–5, κ = η).

    Examples
    --------
    >>> out = structured_noise_runs(epsilons=[1.0], n_reps=1, n=400, d=2, eta=0.2, rng=0)
    >>> out["errors"][1.0].shape, round(out["opt"], 4)
    ((1,), 0.05)
    """
    check_work(("n_reps", n_reps), ("len(epsilons)", len(epsilons)), ("n", n), ("d", d))
    opt = structured_noise_opt(threshold, noise_mass)[0]
    # Population Pr[y = +1]: the slab x₂ > z_{1−η₀} is independent of x₁ and flips every label in it.
    clean_positive = float(1.0 - 0.5 * math.erfc(-threshold / math.sqrt(2)))
    p = min(max((1 - noise_mass) * clean_positive + noise_mass * (1 - clean_positive), eta), 1 - eta)
    bias_error = structured_noise_error(np.eye(d)[0], float(special.ndtri(p)), threshold, noise_mass)
    errors = {eps: np.empty(n_reps) for eps in epsilons}
    angles = {eps: np.empty(n_reps) for eps in epsilons}
    for r in progress(range(n_reps), "repetitions"):
        X, y = structured_noise_halfspace_data(n, d, threshold, noise_mass, rng)
        for eps in epsilons:
            w, tau, trace = _dpsas.dpsas(X, y, eps, delta, eta, rng=rng, w_star=np.eye(d)[0])
            errors[eps][r] = structured_noise_error(w, tau, threshold, noise_mass)
            angles[eps][r] = trace["angle_deg"][-1]
    return {"errors": errors, "angle_deg": angles, "opt": opt, "bias_error": bias_error}


@validate_params({"n_values": SIZES, "epsilon": EPSILON_OR_INF, "n_reps": REPETITIONS, "d": POSITIVE_INT,
                  "eta": ETA, "noise_rate": NOISE_RATE, "threshold": FINITE, "n_rounds": OrNone(POSITIVE_INT),
                  "delta": DELTA, "rng": "random_state"})
def fresh_vs_reuse(n_values, epsilon, n_reps=3, d=10, eta=0.05, noise_rate=0.05, threshold=0.5, n_rounds=40,
                   delta=1e-5, rng=None):
    """Fresh blocks per round (the paper) against sample reuse (outside the paper), error against n.

    Returns
    -------
    dict {"fresh", "reuse"} → ndarray (len(n_values), n_reps); prefixes of one dataset per repetition.
    ε = inf runs the non-private reference, as in :func:`dpteach.dpsas.dpsas`.

    Examples
    --------
    >>> out = fresh_vs_reuse(n_values=[400], epsilon=1.0, n_reps=1, d=2, eta=0.2, n_rounds=3, rng=0)
    >>> out["fresh"].shape, out["reuse"].shape
    ((1, 1), (1, 1))
    """
    sizes = n_values
    check_work(("n_reps", n_reps), ("len(n_values)", len(sizes)), ("n_values", max(sizes)), ("d", d))
    out = {"fresh": np.empty((len(sizes), n_reps)), "reuse": np.empty((len(sizes), n_reps))}
    for r in progress(range(n_reps), "repetitions"):
        X, y, normal = rcn_dataset(max(sizes), d, threshold, noise_rate, rng)
        for j, n in enumerate(sizes):
            for name, run in (("fresh", _dpsas.dpsas), ("reuse", _dpsas.dpsas_sample_reuse)):
                w, tau, _ = run(X[:n], y[:n], epsilon, delta, eta, n_rounds=n_rounds, rng=rng)
                out[name][j, r] = halfspace_error(w, tau, normal, threshold, noise_rate)
    return out
