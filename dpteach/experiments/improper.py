"""Chapter 6 runners: the figures of "Agnostic halfspaces I" (approximation, error vs n / α / d / ε, L1 vs LS).

Test errors of the (improper) classifiers are Monte Carlo estimates on
``n_test`` fresh points (standard error ≤ 0.5/√n_test); OPT is exact (RCN:
η; structured noise: :func:`dpteach.data.structured_noise_opt`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from .. import data, dp_erm
from .._constraints import (Check, Count, Delta, Epsilon, Integral, FiniteInterval, OPEN_UNIT, Options, OrNone,
                            POSITIVE, POSITIVE_INT, Real, validate_params)
from .._array_constraints import Sweep
from .._validation import check_int, check_memory
from ..bounds.improper import algorithm_6_7_error_terms
from ..hermite import clip_features, feature_dimension, hermite_1d, hermite_features
from ..hermite_coefficients import threshold_hermite_coefficients
from ..improper import PrivateHermiteL1Learner, practical_parameters, threshold_grid, threshold_error_counts
from ._progress import EPSILONS, SIZES, check_repetitions
from .._progress import progress

__all__ = ["approximation_errors", "sample_halfspace_problem", "learner_test_error", "excess_error_vs_n",
           "error_grid", "error_vs_alpha", "error_vs_d", "l1_vs_least_squares", "optimiser_bound_vs_epsilon"]

KINDS = ("rcn", "structured")
NONPRIVATE_EPSILON = 1e6  # "ε = ∞": the same code path with negligible noise

FINITE = FiniteInterval(Real, None, None)
"""Any finite real (a threshold t*, a θ)."""
NOISE = FiniteInterval(Real, 0, 1, closed="left")
"""η in [0, 1) (RCN); under ``kind="structured"`` the body also refuses η ≥ 1/2 (a noise mass)."""
SAMPLE_SIZES = Sweep(Count(10))
"""A sweep of sample sizes n ≥ 10."""
SAMPLE_SIZE = FiniteInterval(Integral, 10, None, closed="left")
"""A training sample size n ≥ 10."""


#: A sweep of target accuracies: a scalar or a non-empty 1-D sequence, each in (0, 1).
ALPHAS = Sweep(OPEN_UNIT)


@validate_params({"degrees": SIZES, "theta": FINITE, "n_grid": FiniteInterval(Integral, 101, None, closed="left"),
                  "coefficient_bound": OrNone(POSITIVE)})
def approximation_errors(degrees, theta=0.0, n_grid=4001, coefficient_bound=None):
    """L1 error of degree-p approximations of sign(z − θ) under N(0, 1), and their coefficient norms.

    ``projection``: the L² projection Σ_k c_k h_k (exact coefficients); ``l1``:
    the L1-optimal polynomial (a linear program on a quadrature grid):
    unconstrained by default, whose coefficient norm explodes as p grows
    (Section 6.3); with ``coefficient_bound = b``, the best one with every
    Hermite coefficient in [−b, b]. For b = 1 that is a weaker condition than
    Lemma 6.3's ‖v‖₂ ≤ 1, so its error is (up to the grid) a lower bound on the
    lemma's accuracy at degree p.

    Returns
    -------
    dict of arrays over ``degrees``: projection_error, projection_norm, l1_error, l1_norm.

    Examples
    --------
    >>> out = approximation_errors(degrees=[1, 3], n_grid=101)
    >>> {key: np.round(value, 3).tolist() for key, value in out.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'projection_error': [0.524, 0.418], 'projection_norm': [0.798, 0.862],
     'l1_error': [0.52, 0.397], 'l1_norm': [0.842, 0.833]}
    """
    check_memory(("n_grid", n_grid), ("degrees", max(degrees) + 1))  # the Hermite table (degree + 1, grid)
    z = np.linspace(-7, 7, n_grid)
    w = stats.norm.pdf(z) * (z[1] - z[0])
    w /= w.sum()
    f = np.where(z >= theta, 1.0, -1.0)
    out = {key: [] for key in ("projection_error", "projection_norm", "l1_error", "l1_norm")}
    for p in degrees:
        c = threshold_hermite_coefficients(theta, p)
        H = hermite_1d(z, p)
        out["projection_error"].append(float(w @ np.abs(f - H @ c)))
        out["projection_norm"].append(float(np.linalg.norm(c)))
        # min Σ w_i u_i  s.t. −u ≤ Hv − f ≤ u, on a coarser grid (the LP has one variable per node).
        sub = slice(None, None, max(1, n_grid // 600))
        Hs, fs, ws = H[sub], f[sub], w[sub] / w[sub].sum()
        m, D = Hs.shape
        res = optimize.linprog(np.concatenate([np.zeros(D), ws]),
                               A_ub=np.block([[Hs, -np.eye(m)], [-Hs, -np.eye(m)]]),
                               b_ub=np.concatenate([fs, -fs]),
                               bounds=[(None if coefficient_bound is None else -coefficient_bound,
                                        coefficient_bound)] * D + [(0, None)] * m,
                               method="highs")
        v = res.x[:D]
        out["l1_error"].append(float(w @ np.abs(f - H @ v)))
        out["l1_norm"].append(float(np.linalg.norm(v)))
    return {key: np.array(value) for key, value in out.items()}


@validate_params({"kind": Options(KINDS), "n": POSITIVE_INT, "d": POSITIVE_INT, "rng": "random_state",
                  "threshold": FINITE, "noise": NOISE})
def sample_halfspace_problem(kind, n, d, rng, threshold=0.3, noise=0.1):
    """(X, y, OPT) for ``kind`` "rcn" (OPT = η) or "structured" (OPT computed).

    Examples
    --------
    >>> X, y, opt = sample_halfspace_problem(kind="rcn", n=5, d=2, rng=0)
    >>> X.shape, y.shape, opt
    ((5, 2), (5,), 0.1)
    """
    if kind == "structured":  # the structured noise's limits (they depend on kind, so checked here)
        if noise >= 0.5:
            raise ValueError(f"noise must lie in [0, 0.5) for kind='structured' (a noise mass), got {noise!r}")
        check_int(d, "d", minimum=2)
    if kind == "rcn":
        X, y, _ = data.gaussian_halfspace_data(n, d, threshold=threshold, noise_rate=noise, rng=rng)
        return X, y, noise
    X, y = data.structured_noise_halfspace_data(n, d, threshold=threshold, noise_mass=noise, rng=rng)
    return X, y, data.structured_noise_opt(threshold, noise)[0]


def _check_classifier(learner, name):
    if not callable(getattr(learner, "score", None)):
        raise TypeError(f"{name} must be a fitted classifier with score(X, y), got {type(learner).__name__}")
    return learner


# Check: a fitted classifier with score(X, y) (a duck type: Callable checks a function, InstanceOf a class)
@validate_params({"learner": Check(_check_classifier, invalid=[(None, "None"), ("model", "'model'")]),
                  "kind": Options(KINDS), "d": POSITIVE_INT, "rng": "random_state", "n_test": Count(),
                  "threshold": FINITE, "noise": NOISE})
def learner_test_error(learner, kind, d, rng, n_test=20_000, threshold=0.3, noise=0.1):
    """Monte Carlo test error of a fitted classifier on n_test fresh points.

    Examples
    --------
    >>> X, y, _ = sample_halfspace_problem("rcn", 200, 2, rng=0)
    >>> learner = PrivateHermiteL1Learner(0.3, 1.0, 1e-5, degree=2, n_iterations=5, random_state=0).fit(X, y)
    >>> round(learner_test_error(learner, kind="rcn", d=2, rng=0, n_test=50), 3)
    0.4
    """
    check_memory(("n_test", n_test), ("d", d))
    X, y, _ = sample_halfspace_problem(kind, n_test, d, rng, threshold, noise)
    return 1.0 - learner.score(X, y)


def _one_run(kind, n, d, alpha, epsilon, rng, beta=0.25, degree=None):
    X, y, opt = sample_halfspace_problem(kind, n, d, rng)
    learner = PrivateHermiteL1Learner(alpha, epsilon, 1e-5, beta=beta, degree=degree, random_state=rng).fit(X, y)
    return learner_test_error(learner, kind, d, rng) - opt, learner


@validate_params({"ns": SAMPLE_SIZES, "epsilons": EPSILONS, "d": POSITIVE_INT, "alpha": OPEN_UNIT,
                  "n_reps": POSITIVE_INT, "kind": Options(KINDS), "rng": "random_state"})
def excess_error_vs_n(ns, epsilons, d=3, alpha=0.1, n_reps=2, kind="rcn", rng=0):
    """Excess error err − OPT of Algorithm 6.10 for each (ε, n), ``n_reps`` seeds: array (len ε, len n, reps).

    Examples
    --------
    >>> np.round(excess_error_vs_n(ns=[200], epsilons=[1.0], d=2, alpha=0.3, n_reps=1, rng=0), 3)
    array([[[0.129]]])
    """
    n_reps = check_repetitions(n_reps, per_repetition=[("len(ns)", len(ns)), ("len(epsilons)", len(epsilons)),
                                                       ("ns", max(ns))])
    out = np.empty((len(epsilons), len(ns), n_reps))
    for i, eps in enumerate(progress(list(epsilons), "ε")):
        for j, n in enumerate(ns):
            for r in range(n_reps):
                out[i, j, r] = _one_run(kind, n, d, alpha, float(eps), rng)[0]
    return out


@validate_params({"epsilons": EPSILONS, "alphas": ALPHAS, "ds": SIZES, "n": SAMPLE_SIZE, "n_reps": POSITIVE_INT,
                  "kind": Options(KINDS), "rng": "random_state"})
def error_grid(epsilons, alphas, ds, n=4000, n_reps=1, kind="rcn", rng=0):
    """Excess error on the grid ε × α × d at fixed n (the degree follows α): array (ε, α, d), mean over reps.

    Also returns the degrees used, array (α, d). Precomputed for the chapter's sliders.

    Examples
    --------
    >>> excess, degrees = error_grid(epsilons=[1.0], alphas=[0.3], ds=[2], n=200, n_reps=1, rng=0)
    >>> np.round(excess, 3), degrees
    (array([[[0.129]]]), array([[1]]))
    """
    n_reps = check_repetitions(n_reps, per_repetition=[("len(epsilons)", len(epsilons)), ("len(alphas)", len(alphas)),
                                                       ("len(ds)", len(ds)), ("n", n), ("ds", max(ds))])
    out = np.zeros((len(epsilons), len(alphas), len(ds)))
    degrees = np.zeros((len(alphas), len(ds)), dtype=int)
    for i, eps in enumerate(progress(list(epsilons), "ε")):
        for a, alpha in enumerate(alphas):
            for k, d in enumerate(ds):
                for _ in range(n_reps):
                    excess, learner = _one_run(kind, n, d, float(alpha), float(eps), rng)
                    out[i, a, k] += excess / n_reps
                degrees[a, k] = learner.degree_
    return out, degrees


def _seeded_sweep(settings, n, epsilon, n_reps, kind, rng, desc):
    """Test error of Algorithm 6.10 for each (d, α) in ``settings``, ``n_reps`` independent data sets each."""
    errors = np.empty((len(settings), n_reps))
    degrees = np.empty(len(settings), dtype=int)
    for j, (d, alpha) in enumerate(progress(settings, desc)):
        for r in range(n_reps):
            excess, learner = _one_run(kind, n, d, alpha, epsilon, rng)
            errors[j, r] = excess + _opt_of(kind)
        degrees[j] = learner.degree_
    return errors, degrees


def _opt_of(kind, threshold=0.3, noise=0.1):
    """OPT of :func:`sample_halfspace_problem`'s distribution: η under RCN, computed under structured noise."""
    return noise if kind == "rcn" else data.structured_noise_opt(threshold, noise)[0]


def _summary(errors, degrees, opt, d_values):
    excess = errors - opt
    return {"errors": errors, "excess": excess, "mean_excess": excess.mean(axis=1),
            "std_excess": excess.std(axis=1, ddof=1) if errors.shape[1] > 1 else np.zeros(len(errors)),
            "degrees": degrees, "n_features": np.array([feature_dimension(d, p) for d, p in zip(d_values, degrees)]),
            "opt": opt}


@validate_params({"alphas": ALPHAS, "n": SAMPLE_SIZE, "d": POSITIVE_INT, "epsilon": Epsilon(), "n_reps": POSITIVE_INT,
                  "kind": Options(KINDS), "rng": "random_state"})
def error_vs_alpha(alphas, n=4000, d=3, epsilon=1.0, n_reps=3, kind="rcn", rng=0):
    """Test error of Algorithm 6.10 against the target α, the degree following the practical rule p = min(5, ⌈0.3/α⌉).

    Each α gets ``n_reps`` independent training sets (and fresh test sets of 20 000 points, so each
    error carries a Monte Carlo standard error ≤ 0.0035); the learner's defaults follow
    :func:`dpteach.improper.practical_parameters`, so p, M and the clipping radius all change with α.

    Parameters
    ----------
    alphas : sequence of floats in (0, 1)
    n : int ≥ 10, training sample size
    d : int ≥ 1
    epsilon : float > 0 (privacy of each fit; δ = 10⁻⁵)
    n_reps : int ≥ 1 (the chapter uses 3)
    kind : "rcn" or "structured"
    rng : seed or Generator

    Returns
    -------
    dict: "errors", "excess" (err − OPT) arrays (len α, n_reps); "mean_excess", "std_excess"
    (sample standard deviation over the reps; zeros when n_reps = 1); "degrees" and "n_features"
    (p and D_p used for each α); "opt". Cost O(len α · n_reps · (K·n·D_p + 20 000·D_p)).

    Raises
    ------
    TypeError, ValueError
        For any argument out of range (empty or non-finite α, α ∉ (0, 1), n < 10, ...).

    Examples
    --------
    >>> out = error_vs_alpha(alphas=[0.3], n=200, d=2, n_reps=1, rng=0)
    >>> np.round(out["excess"], 3), out["degrees"], out["n_features"]
    (array([[0.129]]), array([1]), array([3]))
    """
    n_reps = check_repetitions(n_reps, per_repetition=[("len(alphas)", len(alphas)), ("n", n), ("d", d)])
    errors, degrees = _seeded_sweep([(d, float(a)) for a in alphas], n, epsilon, n_reps, kind, rng, "α")
    return _summary(errors, degrees, _opt_of(kind), [d] * len(alphas))


@validate_params({"ds": SIZES, "n": SAMPLE_SIZE, "alpha": OPEN_UNIT, "epsilon": Epsilon(), "n_reps": POSITIVE_INT,
                  "kind": Options(KINDS), "rng": "random_state"})
def error_vs_d(ds, n=4000, alpha=0.1, epsilon=1.0, n_reps=3, kind="rcn", rng=0):
    """Test error of Algorithm 6.10 against the dimension d at fixed n and α (so fixed p, growing D_p = C(d + p, p)).

    Same protocol as :func:`error_vs_alpha` (``n_reps`` independent training sets, 20 000 fresh test
    points each).

    Parameters
    ----------
    ds : sequence of ints ≥ 1
    n : int ≥ 10
    alpha : float in (0, 1) (sets p = min(5, ⌈0.3/α⌉))
    epsilon : float > 0
    n_reps : int ≥ 1
    kind : "rcn" or "structured"
    rng : seed or Generator

    Returns
    -------
    dict with the keys of :func:`error_vs_alpha`, indexed by d. Cost O(len d · n_reps · (K·n·D_p + 20 000·D_p)).

    Raises
    ------
    TypeError, ValueError
        For any argument out of range.

    Examples
    --------
    >>> out = error_vs_d(ds=[2], n=200, alpha=0.3, n_reps=1, rng=0)
    >>> np.round(out["excess"], 3), out["degrees"], out["n_features"]
    (array([[0.129]]), array([1]), array([3]))
    """
    n_reps = check_repetitions(n_reps, per_repetition=[("len(ds)", len(ds)), ("n", n), ("ds", max(ds))])
    errors, degrees = _seeded_sweep([(int(d), alpha) for d in ds], n, epsilon, n_reps, kind, rng, "d")
    return _summary(errors, degrees, _opt_of(kind), [int(d) for d in ds])


def _least_squares_classifier(X, y, degree, rng):
    """Non-private: least-squares fit of y on clipped ψ_p (first 80 %), threshold chosen on the last 20 %."""
    m = len(y) // 5
    order = rng.permutation(len(y))
    train, val = order[m:], order[:m]
    T = 2 * math.sqrt(feature_dimension(X.shape[1], degree))
    F, _ = clip_features(hermite_features(X[train], degree), T)
    v = np.linalg.lstsq(F, y[train], rcond=None)[0]
    z = clip_features(hermite_features(X[val], degree), T)[0] @ v
    grid = threshold_grid(20)
    t = grid[int(np.argmin(threshold_error_counts(z, y[val], grid)))]
    return v, t, T


@validate_params({"ns": SAMPLE_SIZES, "d": FiniteInterval(Integral, 2, None, closed="left"), "degree": POSITIVE_INT,
                  "epsilon": Epsilon(), "n_reps": POSITIVE_INT, "rng": "random_state",
                  "noise": FiniteInterval(Real, 0, 0.5, closed="left")})
def l1_vs_least_squares(ns, d=3, degree=3, epsilon=1.0, n_reps=2, rng=0, noise=0.1):
    """Under structured noise: test error of private L1 (ε), non-private L1, and least squares, vs n.

    Returns
    -------
    dict: "private_l1", "nonprivate_l1", "least_squares" arrays (len n, reps), and "opt".

    Examples
    --------
    >>> out = l1_vs_least_squares(ns=[200], d=2, degree=2, n_reps=1, rng=0)
    >>> {key: np.round(value, 3).tolist() for key, value in out.items()}
    {'private_l1': [[0.342]], 'nonprivate_l1': [[0.105]], 'least_squares': [[0.068]], 'opt': 0.1}
    """
    n_reps = check_repetitions(n_reps, per_repetition=[("len(ns)", len(ns)), ("ns", max(ns))])
    out = {key: np.empty((len(ns), n_reps)) for key in ("private_l1", "nonprivate_l1", "least_squares")}
    opt = data.structured_noise_opt(0.3, noise)[0]
    for j, n in enumerate(progress(ns, "n")):
        for r in range(n_reps):
            X, y = data.structured_noise_halfspace_data(n, d, 0.3, noise, rng=rng)
            Xt, yt = data.structured_noise_halfspace_data(20_000, d, 0.3, noise, rng=rng)
            for key, eps in (("private_l1", epsilon), ("nonprivate_l1", NONPRIVATE_EPSILON)):
                learner = PrivateHermiteL1Learner(0.1, eps, 1e-5, beta=0.25, degree=degree,
                                                  random_state=rng).fit(X, y)
                out[key][j, r] = 1 - learner.score(Xt, yt)
            v, t, T = _least_squares_classifier(X, y, degree, rng)
            z = clip_features(hermite_features(Xt, degree), T)[0] @ v
            out["least_squares"][j, r] = np.mean(np.where(z - t >= 0, 1.0, -1.0) != yt)
    out["opt"] = opt
    return out


@validate_params({"epsilons": EPSILONS, "n": SAMPLE_SIZE, "d": POSITIVE_INT, "alpha": OPEN_UNIT,
                  "delta": Delta(allow_zero=False), "beta": OPEN_UNIT})
def optimiser_bound_vs_epsilon(epsilons, n=4000, d=3, alpha=0.1, delta=1e-5, beta=0.25):
    """The three terms of Algorithm 6.7's bound at the learner's own n₀, K, T for each ε (why Remark 2 is asymptotic).

    Uses the sizes :class:`~dpteach.improper.PrivateHermiteL1Learner` picks by default
    (:func:`dpteach.improper.practical_parameters`, as in :func:`excess_error_vs_n`) and
    :func:`dpteach.bounds.algorithm_6_7_error_terms` with radius 1. The privacy term
    2D√(2/ρ)/n₀ hides ρ ≈ ε²/(4 log(1/δ)); ``crossing_epsilon`` is the ε at which it
    equals the statistical term 2√(D/n₀) (found by root finding on the terms). The optimisation
    term 2√D/√K falls with ε too, as long as the default K (which grows like ε²) is below its cap.

    Parameters
    ----------
    epsilons : sequence of floats > 0
    n : int ≥ 10; d : int ≥ 1; alpha, beta : float in (0, 1); delta : float in (0, 1)

    Returns
    -------
    dict: "statistical", "optimisation", "privacy", "n_iterations" (arrays over ε),
    "block_size", "n_features" (ints), "crossing_epsilon" and "iterations_cap_epsilon" (the ε from
    which the learner's default step count K stays at its cap; floats). Cost O(len ε).

    Raises
    ------
    TypeError, ValueError
        For any argument out of range.

    Examples
    --------
    >>> out = optimiser_bound_vs_epsilon(epsilons=[1.0], n=400, d=2, alpha=0.3)
    >>> out["block_size"], out["n_features"], round(out["crossing_epsilon"], 3)
    (106, 3, 1.671)
    """

    def terms(eps):
        P = practical_parameters(n, d, alpha, eps, delta, beta)
        out = algorithm_6_7_error_terms(P["block_size"], P["n_features"], P["clip_radius"], 1.0,
                                        dp_erm.zcdp_rho(eps, delta), P["n_iterations"])
        return out, P

    rows = [terms(float(eps)) for eps in epsilons]
    result = {key: np.array([r[0][key] for r in rows]) for key in ("statistical", "optimisation", "privacy")}
    result["n_iterations"] = np.array([r[1]["n_iterations"] for r in rows])
    result["block_size"], result["n_features"] = rows[0][1]["block_size"], rows[0][1]["n_features"]
    def gap(log_eps):
        t = terms(math.exp(log_eps))[0]
        return t["privacy"] - t["statistical"]

    def steps_below_cap(log_eps):   # the practical K is non-decreasing in ε and capped: > 0 below the cap
        return (k_max - 0.5) - terms(math.exp(log_eps))[1]["n_iterations"]

    result["crossing_epsilon"] = math.exp(_root_in_log_epsilon(gap, "n", n))
    k_max = terms(1e4)[1]["n_iterations"]
    result["iterations_cap_epsilon"] = math.exp(_root_in_log_epsilon(steps_below_cap, "n", n))
    return result


def _root_in_log_epsilon(f, name, value, widenings=30):
    """The root in log ε of ``f``, positive at small ε and negative at large ε (``f`` is monotone in ε).

    The search starts on [10⁻⁴, 10⁴], which brackets the root at the book's sizes; at a larger n the
    crossing moves below 10⁻⁴ (the privacy term ∝ 1/(n₀ε) meets the statistical term ∝ 1/√n₀ at
    ε ∝ 1/√n₀), so each end is widened by factors of 100 until ``f`` changes sign across the bracket.
    Raises a ValueError naming ``name`` if 30 widenings (ε in [10⁻⁶⁴, 10⁶⁴]) do not bracket it.
    """
    low, high = math.log(1e-4), math.log(1e4)
    step = math.log(100.0)
    for _ in range(widenings):
        if f(low) > 0:
            break
        low -= step
    for _ in range(widenings):
        if f(high) < 0:
            break
        high += step
    if not (f(low) > 0 > f(high)):
        raise ValueError(f"{name}={value}: no sign change of the bound's terms for ε in "
                         f"[{math.exp(low):.3g}, {math.exp(high):.3g}]; use a {name} nearer the book's sizes")
    return optimize.brentq(f, low, high)
