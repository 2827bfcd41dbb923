"""Chapter 6 runners: the figures of "Agnostic halfspaces I" (approximation, error vs n / α / d / ε, L1 vs LS).

Test errors of the (improper) classifiers are Monte Carlo estimates on
``n_test`` fresh points (standard error ≤ 0.5/√n_test); OPT is exact (RCN:
η; structured noise: :func:`dpteach.data.structured_noise_opt`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from .. import data
from .._validation import (as_rng, check_choice, check_epsilon_sweep, check_finite_array, check_int, check_probability,
                           check_sizes, check_sweep)
from ..hermite import clip_features, hermite_1d, hermite_features, threshold_hermite_coefficients
from ..improper import PrivateHermiteL1Learner, threshold_grid, threshold_error_counts
from ._progress import check_repetitions, progress

__all__ = ["approximation_errors", "sample_halfspace_problem", "learner_test_error", "excess_error_vs_n",
           "error_grid", "l1_vs_least_squares"]

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


def sample_halfspace_problem(kind, n, d, rng, threshold=0.3, noise=0.1):
    """(X, y, OPT) for ``kind`` "rcn" (OPT = η) or "structured" (OPT computed)."""
    check_choice(kind, "kind", KINDS)
    if kind == "rcn":
        X, y, _ = data.gaussian_halfspace_data(n, d, threshold=threshold, noise_rate=noise, rng=rng)
        return X, y, noise
    X, y = data.structured_noise_halfspace_data(n, d, threshold=threshold, noise_mass=noise, rng=rng)
    return X, y, data.structured_noise_opt(threshold, noise)[0]


def learner_test_error(learner, kind, d, rng, n_test=20_000, threshold=0.3, noise=0.1):
    """Monte Carlo test error of a fitted classifier on n_test fresh points."""
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
    n_reps = check_repetitions(n_reps)
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
    n_reps = check_repetitions(n_reps)
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


def _least_squares_classifier(X, y, degree, rng):
    """Non-private: least-squares fit of y on clipped ψ_p (first 80 %), threshold chosen on the last 20 %."""
    m = len(y) // 5
    order = rng.permutation(len(y))
    train, val = order[m:], order[:m]
    T = 2 * math.sqrt(math.comb(X.shape[1] + degree, degree))
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
    n_reps = check_repetitions(n_reps)
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
