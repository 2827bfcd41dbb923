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
from .._validation import (as_rng, check_choice, check_epsilon, check_epsilon_sweep, check_finite_array,
                           check_finite_scalar, check_int, check_memory, check_probability, check_size, check_sizes,
                           check_sweep)
from ..bounds.improper import algorithm_6_7_error_terms
from ..hermite import clip_features, feature_dimension, hermite_1d, hermite_features
from ..hermite_coefficients import threshold_hermite_coefficients
from ..improper import PrivateHermiteL1Learner, practical_parameters, threshold_grid, threshold_error_counts
from ._progress import check_repetitions
from .._progress import progress

__all__ = ["approximation_errors", "sample_halfspace_problem", "learner_test_error", "excess_error_vs_n",
           "error_grid", "error_vs_alpha", "error_vs_d", "l1_vs_least_squares", "optimiser_bound_vs_epsilon"]

KINDS = ("rcn", "structured")
NONPRIVATE_EPSILON = 1e6  # "ε = ∞": the same code path with negligible noise


def approximation_errors(degrees, theta=0.0, n_grid=4001):
    """L1 error of degree-p approximations of sign(z − θ) under N(0, 1), and their coefficient norms.

    ``projection``: the L² projection Σ_k c_k h_k (exact coefficients); ``l1``:
    the unconstrained L1-optimal polynomial (a linear program on a quadrature
    grid), whose coefficient norm explodes as p grows (Section 6.3).

    Returns
    -------
    dict of arrays over ``degrees``: projection_error, projection_norm, l1_error, l1_norm.
    """
    degrees = check_sizes(degrees, "degrees")
    theta = float(check_finite_array(theta, "theta", ndim=0))
    n_grid = check_int(n_grid, "n_grid", minimum=101)
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
                               b_ub=np.concatenate([fs, -fs]), bounds=[(None, None)] * D + [(0, None)] * m,
                               method="highs")
        v = res.x[:D]
        out["l1_error"].append(float(w @ np.abs(f - H @ v)))
        out["l1_norm"].append(float(np.linalg.norm(v)))
    return {key: np.array(value) for key, value in out.items()}


def _check_noise(noise, kind):
    """η under RCN (in [0, 1)) or the structured noise mass (in [0, 0.5)), named ``noise`` as callers spell it."""
    noise = check_probability(noise, "noise", low_open=False, high_open=True)
    if kind == "structured" and noise >= 0.5:
        raise ValueError(f"noise must lie in [0, 0.5) for kind='structured' (a noise mass), got {noise!r}")
    return noise


def sample_halfspace_problem(kind, n, d, rng, threshold=0.3, noise=0.1):
    """(X, y, OPT) for ``kind`` "rcn" (OPT = η) or "structured" (OPT computed)."""
    check_choice(kind, "kind", KINDS)
    noise = _check_noise(noise, kind)
    threshold = check_finite_scalar(threshold, "threshold")
    if kind == "rcn":
        X, y, _ = data.gaussian_halfspace_data(n, d, threshold=threshold, noise_rate=noise, rng=rng)
        return X, y, noise
    X, y = data.structured_noise_halfspace_data(n, d, threshold=threshold, noise_mass=noise, rng=rng)
    return X, y, data.structured_noise_opt(threshold, noise)[0]


def learner_test_error(learner, kind, d, rng, n_test=20_000, threshold=0.3, noise=0.1):
    """Monte Carlo test error of a fitted classifier on n_test fresh points."""
    n_test = check_size(n_test, "n_test")
    if not callable(getattr(learner, "score", None)):
        raise TypeError(f"learner must be a fitted classifier with score(X, y), got {type(learner).__name__}")
    check_memory(("n_test", n_test), ("d", check_int(d, "d", minimum=1)))
    X, y, _ = sample_halfspace_problem(kind, n_test, d, rng, threshold, noise)
    return 1.0 - learner.score(X, y)


def _one_run(kind, n, d, alpha, epsilon, rng, beta=0.25, degree=None):
    X, y, opt = sample_halfspace_problem(kind, n, d, rng)
    learner = PrivateHermiteL1Learner(alpha, epsilon, 1e-5, beta=beta, degree=degree, random_state=rng).fit(X, y)
    return learner_test_error(learner, kind, d, rng) - opt, learner


def excess_error_vs_n(ns, epsilons, d=3, alpha=0.1, n_reps=2, kind="rcn", rng=0):
    """Excess error err − OPT of Algorithm 6.10 for each (ε, n), ``n_reps`` seeds: array (len ε, len n, reps)."""
    ns = check_sizes(ns, "ns", minimum=10)
    epsilons = check_epsilon_sweep(epsilons)
    n_reps = check_repetitions(n_reps, per_repetition=[("len(ns)", len(ns)), ("len(epsilons)", len(epsilons)),
                                                       ("ns", max(ns))])
    rng = as_rng(rng)
    out = np.empty((len(epsilons), len(ns), n_reps))
    for i, eps in enumerate(progress(list(epsilons), "ε")):
        for j, n in enumerate(ns):
            for r in range(n_reps):
                out[i, j, r] = _one_run(kind, n, d, alpha, float(eps), rng)[0]
    return out


def error_grid(epsilons, alphas, ds, n=4000, n_reps=1, kind="rcn", rng=0):
    """Excess error on the grid ε × α × d at fixed n (the degree follows α): array (ε, α, d), mean over reps.

    Also returns the degrees used, array (α, d). Precomputed for the chapter's sliders.
    """
    epsilons = check_epsilon_sweep(epsilons)
    alphas = [check_probability(a, "alphas") for a in check_sweep(alphas, "alphas")]
    ds = check_sizes(ds, "ds")
    n = check_int(n, "n", minimum=10)
    n_reps = check_repetitions(n_reps, per_repetition=[("len(epsilons)", len(epsilons)), ("len(alphas)", len(alphas)),
                                                       ("len(ds)", len(ds)), ("n", n), ("ds", max(ds))])
    rng = as_rng(rng)
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
    """
    alphas = [check_probability(a, "alphas") for a in check_sweep(alphas, "alphas")]
    n = check_int(n, "n", minimum=10)
    d = check_int(d, "d", minimum=1)
    epsilon = check_epsilon(epsilon)
    n_reps = check_repetitions(n_reps, per_repetition=[("len(alphas)", len(alphas)), ("n", n), ("d", d)])
    check_choice(kind, "kind", KINDS)
    rng = as_rng(rng)
    errors, degrees = _seeded_sweep([(d, float(a)) for a in alphas], n, epsilon, n_reps, kind, rng, "α")
    return _summary(errors, degrees, _opt_of(kind), [d] * len(alphas))


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
    """
    ds = check_sizes(ds, "ds")
    n = check_int(n, "n", minimum=10)
    alpha = check_probability(alpha, "alpha")
    epsilon = check_epsilon(epsilon)
    n_reps = check_repetitions(n_reps, per_repetition=[("len(ds)", len(ds)), ("n", n), ("ds", max(ds))])
    check_choice(kind, "kind", KINDS)
    rng = as_rng(rng)
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


def l1_vs_least_squares(ns, d=3, degree=3, epsilon=1.0, n_reps=2, rng=0, noise=0.1):
    """Under structured noise: test error of private L1 (ε), non-private L1, and least squares, vs n.

    Returns
    -------
    dict: "private_l1", "nonprivate_l1", "least_squares" arrays (len n, reps), and "opt".
    """
    ns = check_sizes(ns, "ns", minimum=10)
    n_reps = check_repetitions(n_reps, per_repetition=[("len(ns)", len(ns)), ("ns", max(ns))])
    degree = check_int(degree, "degree", minimum=1)
    noise = _check_noise(noise, "structured")
    rng = as_rng(rng)
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
    """
    epsilons = check_epsilon_sweep(epsilons)
    n = check_int(n, "n", minimum=10)
    d = check_int(d, "d", minimum=1)
    alpha = check_probability(alpha, "alpha")
    delta = check_probability(delta, "delta")
    beta = check_probability(beta, "beta")

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
