"""The runners behind chapter 3's figures (local privacy and statistical queries)."""

from __future__ import annotations

import numpy as np

from .._validation import as_rng, check_choice, check_epsilon, check_int, check_probability
from ..data import (masked_parity_data, masked_parity_distribution, sphere_halfspace_data,
                    threshold_distribution, threshold_error)
from ..local import FastLocalSQOracle, GROUP_SIZE_RULES, group_size, query_plan, simulate_sq_locally, sample_group_averages
from ..local_learners import LocalHalfspaceLearner, smallest_feasible_alpha
from ..mechanisms import laplace_mechanism
from ..randomizers import LaplaceRandomizer, RandomizedResponse, default_randomizer, make_randomizer, rr_debias
from ..sq_algorithms import (masked_parity_bruteforce, masked_parity_interactive, sq_threshold_binary_search,
                             sq_threshold_grid)
from ._progress import check_repetitions, progress

__all__ = ["mean_estimation_experiment", "group_size_validity_experiment", "threshold_experiment",
           "halfspace_experiment", "masked_parity_experiment"]


# =============================================================================


def mean_estimation_experiment(ns, epsilon, p=0.3, n_reps=200, target="sample", rng=None):
    """RMSE of estimating p = Pr[bit = 1] locally (RR, Laplace) and centrally (chapter 3, fig. sqrt-n gap).

    For each n: the data count k ~ Binomial(n, p); randomized response's
    released ones ~ Binomial(k, q) + Binomial(n − k, 1 − q), debiased by
    Eq. (eq-rr-debias); the local Laplace randomizer on φ = 2b − 1 adds a sum
    of n Lap(2/ε) = Gamma(n, 2/ε) − Gamma(n, 2/ε); the central Laplace
    mechanism releases k/n + Lap(1/(nε)) (:func:`dpteach.mechanisms.laplace_mechanism`,
    sensitivity 1/n). All exact in law, O(1) per repetition.

    ``target="sample"`` measures the error against the data's own mean k/n
    (the error privacy adds); ``"population"`` against p (adds the sampling
    error √(p(1−p)/n) that every estimator has).

    Returns
    -------
    dict
        "n" and the RMSE arrays "rr", "laplace", "central" (one entry per n).
    """
    ns = np.asarray(ns, dtype=np.int64)
    epsilon = check_epsilon(epsilon)
    p = check_probability(p, "p", low_open=False, high_open=False)
    n_reps = check_int(n_reps, "n_reps", minimum=2)
    check_choice(target, "target", ("sample", "population"))
    rng = as_rng(rng)
    q = RandomizedResponse(epsilon).keep_probability
    laplace_randomizer = LaplaceRandomizer(epsilon)
    result = {"n": ns, "rr": [], "laplace": [], "central": []}
    for n in ns:
        n = check_int(int(n), "n", minimum=1)
        k = rng.binomial(n, p, size=n_reps)
        truth = k / n if target == "sample" else p
        ones = rng.binomial(k, q) + rng.binomial(n - k, 1 - q)
        rr = rr_debias(ones / n, epsilon)
        noise = laplace_randomizer.noise_sum(n, rng, size=n_reps)
        laplace = 0.5 * ((2.0 * k - n + noise) / n + 1)
        central = laplace_mechanism(k / n, 1.0 / n, epsilon, rng)
        for name, estimate in (("rr", rr), ("laplace", laplace), ("central", central)):
            result[name].append(float(np.sqrt(np.mean((np.asarray(estimate) - truth) ** 2))))
    for name in ("rr", "laplace", "central"):
        result[name] = np.array(result[name])
    return result


def group_size_validity_experiment(settings, beta=0.05, rules=GROUP_SIZE_RULES, n_reps=2000, mean_phi=0.0,
                                   rng=None):
    """Invalid-answer rate of one simulated query for each group-size rule (chapter 3, table S2).

    For each (ε, τ) in ``settings`` and each rule, m = group_size(ε, τ, β, rule)
    and ``n_reps`` group averages of a ±1-valued query with mean ``mean_phi``
    are drawn exactly (:func:`sample_group_averages`; Laplace randomizer,
    one-bit for rule "rr"). Returns a list of dicts with keys epsilon, tau,
    rule, m, failure_rate (fraction with |answer − E φ| > τ).
    """
    rng = as_rng(rng)
    rows = []
    for epsilon, tau in settings:
        for rule in rules:
            name = default_randomizer(rule)
            m = group_size(epsilon, tau, beta, rule, name)
            answers = sample_group_averages(m, mean_phi, make_randomizer(name, epsilon), size=n_reps, rng=rng)
            rows.append(dict(epsilon=epsilon, tau=tau, rule=rule, m=m,
                             failure_rate=float(np.mean(np.abs(answers - mean_phi) > tau))))
    return rows


def threshold_experiment(ns, epsilon, beta=0.05, n_reps=20, theta=0.37, rule="theorem", randomizer=None,
                         n_grid=2048, rng=None):
    """Error of the grid (B1) and binary-search (B2) threshold learners vs users (chapter 3, fig. thresholds).

    For each n: α = :func:`smallest_feasible_alpha` for each algorithm, then
    ``n_reps`` runs through :class:`FastLocalSQOracle` (the exact law of the
    local simulation with the proved group sizes) on the realizable
    threshold distribution with a uniform marginal discretised to ``n_grid``
    points (:func:`dpteach.data.threshold_distribution`). Errors are
    :func:`dpteach.data.threshold_error`.

    Returns
    -------
    dict
        "n"; for "grid" and "binary_search": "alpha" (array over n, NaN if
        infeasible) and "errors" (array n_reps × len(ns), NaN if infeasible),
        "rounds" and "queries" (per n).
    """

    ns = np.asarray(ns, dtype=float)
    rng = as_rng(rng)
    support, weights = threshold_distribution(theta, n_grid=n_grid)
    out = {"n": ns}
    for name, algorithm in (("grid", sq_threshold_grid), ("binary_search", sq_threshold_binary_search)):
        alphas = np.full(ns.size, np.nan)
        errors = np.full((n_reps, ns.size), np.nan)
        rounds = np.zeros(ns.size, dtype=int)
        queries = np.zeros(ns.size, dtype=int)
        for i, n in enumerate(ns):
            alpha = smallest_feasible_alpha(algorithm, n, epsilon, beta, rule, randomizer)
            if alpha is None:
                continue
            alphas[i] = alpha
            plan = query_plan(algorithm, alpha=alpha)
            rounds[i], queries[i] = plan.rounds, plan.n_queries
            for rep in range(n_reps):
                oracle = FastLocalSQOracle(support, weights, epsilon, beta, plan.n_queries,
                                           randomizer=randomizer or default_randomizer(rule),
                                           rule=rule, rng=rng)
                errors[rep, i] = threshold_error(algorithm(oracle, alpha=alpha), theta)
        out[name] = dict(alpha=alphas, errors=errors, rounds=rounds, queries=queries)
    return out


def halfspace_experiment(ns, d, epsilon, marginal="sphere", n_reps=3, n_steps=20, eta=5.0, n_test=20000,
                         rng=None):
    """Test error of averaging (C1, 1 round) vs SQ gradient descent (C2, K rounds) (chapter 3, fig. halfspaces).

    Real users: for each n and repetition, draw n users from
    :func:`dpteach.data.sphere_halfspace_data`, fit :class:`LocalHalfspaceLearner`
    (equal disjoint groups, Laplace randomizer) and measure the error on
    ``n_test`` fresh clean points. Returns dict "n", "averaging", "gd"
    (arrays n_reps × len(ns)). Cost O(n·(1 + n_steps)) per fit.
    """

    rng = as_rng(rng)
    ns = np.asarray(ns, dtype=np.int64)
    X_test, y_test, w_star = sphere_halfspace_data(n_test, d, marginal=marginal, rng=rng)
    out = {"n": ns, "averaging": np.zeros((n_reps, ns.size)), "gd": np.zeros((n_reps, ns.size))}
    for i, n in enumerate(ns):
        for rep in range(n_reps):
            X, y, _ = sphere_halfspace_data(int(n), d, marginal=marginal, w_star=w_star, rng=rng)
            for method in ("averaging", "gd"):
                model = LocalHalfspaceLearner(epsilon, method=method, n_steps=n_steps, eta=eta, random_state=rng)
                out[method][rep, i] = 1 - model.fit(X, y).score(X_test, y_test)
    return out


def masked_parity_experiment(ds, ns, epsilon, n_reps=10, method="interactive", users="real", rng=None):
    """Success rate of recovering (r, a) for masked parities vs users (chapter 3, fig. masked parity).

    A fresh uniform secret (r, a) per repetition; equal disjoint groups per
    query (split="equal"; t = d + 1 for "interactive", 2^d for
    "bruteforce"), Laplace randomizer. ``users="real"`` simulates int8 records
    (:func:`dpteach.data.masked_parity_data`) through
    :func:`simulate_sq_locally`; ``users="fast"`` uses :class:`FastLocalSQOracle`
    on the exact law (:func:`dpteach.data.masked_parity_distribution`), the
    same law of answers in O(2^d·d) per query instead of O(n).
    Returns an array of success rates, shape (len(ds), len(ns)); n < t counts as failure.
    """

    rng = as_rng(rng)
    check_choice(method, "method", ("interactive", "bruteforce"))
    check_choice(users, "users", ("real", "fast"))
    algorithm = masked_parity_interactive if method == "interactive" else masked_parity_bruteforce
    success = np.zeros((len(ds), len(ns)))
    for a_index, d in enumerate(ds):
        t = d + 1 if method == "interactive" else 2 ** d
        for b_index, n in enumerate(ns):
            hits = 0
            for _ in range(n_reps):
                r = rng.integers(0, 2, size=d).astype(np.int8)
                a = int(rng.integers(0, 2))
                if int(n) < t:
                    continue
                if users == "real":
                    data = masked_parity_data(int(n), d, r, a, rng=rng)
                    r_hat, a_hat = simulate_sq_locally(algorithm, data, epsilon, 0.05, max_queries=t,
                                                       split="equal", rng=rng, d=d).output
                else:
                    support, weights = masked_parity_distribution(d, r, a)
                    oracle = FastLocalSQOracle(support, weights, epsilon, 0.05, t, split="equal",
                                               n_users=int(n), rng=rng)
                    r_hat, a_hat = algorithm(oracle, d=d)
                hits += int(np.array_equal(r_hat, r) and a_hat == a)
            success[a_index, b_index] = hits / n_reps
    return success
