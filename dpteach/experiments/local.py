"""The runners behind chapter 3's figures (local privacy and statistical queries)."""

from __future__ import annotations

import math

import numpy as np

from numbers import Real

from .._constraints import (OPEN_UNIT, POSITIVE, POSITIVE_INT, Check, Count, Epsilon, Integral, FiniteInterval, Options,
                            validate_params)
from .._validation import check_choice, check_epsilon, check_int, check_probability, check_sequence
from ..data.local import THETA
from ..data import (masked_parity_data, masked_parity_distribution, sphere_halfspace_data,
                    threshold_distribution, threshold_error)
from ..local import FastLocalSQOracle, query_plan, sample_group_averages, simulate_sq_locally, users_needed
from ..group_sizes import GROUP_SIZE_RULES, RULE_CONSTRAINTS, UNIT, group_size
from ..local_learners import LocalHalfspaceLearner, smallest_feasible_alpha
from ..mechanisms import laplace_mechanism
from ..randomizers import LaplaceRandomizer, RandomizedResponse, default_randomizer, make_randomizer, rr_debias
from ..sq_algorithms import (masked_parity_bruteforce, masked_parity_interactive, sq_threshold_binary_search,
                             sq_threshold_grid)
from ..sq_lower_bounds import RandomLabelParityOracle, parity_candidate_search
from ._progress import PARITY_DIMENSIONS, REPETITIONS, SIZES, check_repetitions
from .._progress import progress

__all__ = ["mean_estimation_experiment", "group_size_validity_experiment", "threshold_experiment",
           "threshold_crossover", "halfspace_experiment", "masked_parity_experiment", "parity_sq_experiment"]


def _check_user_counts(ns, name="ns", maximum=None):
    """Return ``ns`` as a 1-D int64 array of whole numbers >= 1 (refuses fractional, empty, NaN or bool)."""
    arr = np.asarray(ns)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an array of user counts (whole numbers >= 1), got {ns!r}")
    arr = np.atleast_1d(arr.astype(float))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of user counts, got shape {np.shape(ns)}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 1) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must contain whole numbers >= 1 (user counts), got {ns!r}")
    if maximum is not None and np.any(arr > maximum):
        raise ValueError(f"{name} must be at most {maximum:.3g} here (the cost grows with n), got {arr.max():.3g}")
    if np.any(arr >= 2.0 ** 62):
        raise ValueError(f"{name} must be below 2^62, got {arr.max():.3g}")
    return arr.astype(np.int64)


def _check_settings(settings, name):
    """A non-empty list of (epsilon, tau) pairs, each epsilon and tau checked under its own name."""
    settings = check_sequence(settings, name, "(epsilon, tau) pairs")
    if not settings:
        raise ValueError(f"{name} must be a non-empty list of (epsilon, tau) pairs")
    for pair in settings:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"{name} must contain (epsilon, tau) pairs, got {pair!r}")
        check_epsilon(pair[0])
        check_probability(pair[1], "tau")
    return settings


def _check_rules(rules, name):
    """Group-size rule names (one name or a sequence of them), as a tuple."""
    rules = (rules,) if isinstance(rules, str) else tuple(check_sequence(rules, name, "group-size rule names"))
    for rule in rules:
        check_choice(rule, name, GROUP_SIZE_RULES)
    return rules


def _as_sequence(values):
    return (values,) if isinstance(values, (str, int, np.integer)) else tuple(values)


def _as_user_counts(ns):
    return np.atleast_1d(np.asarray(ns, dtype=float)).astype(np.int64)


# Check: user counts as an int64 array (the exact draws use it), below 2^62; CountArray returns floats
USER_COUNTS = Check(_check_user_counts, array_ndim=(0, 1), convert_nested=_as_user_counts,
                    invalid=[([], "[]"), ([2.5], "[2.5]"), ([0], "[0]"), ([[[10]]], "[[[10]]]"), ([math.nan], "[nan]"),
                             (None, "None")])
MEAN_PHI = FiniteInterval(Real, -1, 1, closed="both")


# =============================================================================


def _rmse(errors):
    """√(mean e²); where e² overflows (errors near 1e300 at ε = 1e-300) the same value as m·√(mean (e/m)²), m = max|e|."""
    with np.errstate(over="ignore"):
        value = float(np.sqrt(np.mean(errors ** 2)))
    if math.isinf(value) and np.all(np.isfinite(errors)):
        scale = float(np.max(np.abs(errors)))
        value = scale * float(np.sqrt(np.mean((errors / scale) ** 2)))
    return value


@validate_params({"ns": USER_COUNTS, "epsilon": Epsilon(), "p": FiniteInterval(Real, 0, 1, closed="both"),
                  "n_reps": Count(2, REPETITIONS.maximum),  # an RMSE needs two repetitions
                  "target": Options(("sample", "population")), "rng": "random_state"})
def mean_estimation_experiment(ns, epsilon, p=0.3, n_reps=200, target="sample", rng=None):
    """RMSE of estimating p = Pr[bit = 1] locally (RR, Laplace) and centrally (chapter 3, the figure of the √n gap).

    For each n: the data count k ~ Binomial(n, p); randomized response's
    released ones ~ Binomial(k, q) + Binomial(n − k, 1 − q), debiased by
    the debiasing formula before Theorem 3.3; the local Laplace randomizer on φ = 2b − 1 adds a sum
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

    Examples
    --------
    >>> mean_estimation_experiment(ns=[20], epsilon=1.0, n_reps=2, rng=0)["rr"].round(3)
    array([0.362])
    """
    q = RandomizedResponse(epsilon).keep_probability
    laplace_randomizer = LaplaceRandomizer(epsilon)
    result = {"n": ns, "rr": [], "laplace": [], "central": []}
    for n in ns:
        n = int(n)
        k = rng.binomial(n, p, size=n_reps)
        truth = k / n if target == "sample" else p
        ones = rng.binomial(k, q) + rng.binomial(n - k, 1 - q)
        rr = rr_debias(ones / n, epsilon)
        noise = laplace_randomizer.noise_sum(n, rng, size=n_reps)
        laplace = 0.5 * ((2.0 * k - n + noise) / n + 1)
        central = laplace_mechanism(k / n, 1.0 / n, epsilon, rng)
        for name, estimate in (("rr", rr), ("laplace", laplace), ("central", central)):
            result[name].append(_rmse(np.asarray(estimate) - truth))
    return {key: value if key == "n" else np.array(value) for key, value in result.items()}


# Check: (ε, τ) pairs, each entry under its own name; rules: one name or a sequence (Sequence refuses a string)
@validate_params({"settings": Check(_check_settings, convert_nested=list,
                                    invalid=[([], "[]"), (None, "None"), ([(1.0,)], "[(1.0,)]")]),
                  "beta": UNIT, "rules": Check(_check_rules, convert_nested=_as_sequence,
                                                invalid=[(None, "None"), (("bogus",), "('bogus',)")]),
                  "n_reps": REPETITIONS, "mean_phi": MEAN_PHI, "rng": "random_state"})
def group_size_validity_experiment(settings, beta=0.05, rules=GROUP_SIZE_RULES, n_reps=2000, mean_phi=0.0,
                                   rng=None):
    """Invalid-answer rate of one simulated query for each group-size rule (chapter 3, the table after Theorem 3.9).

    For each (ε, τ) in ``settings`` and each rule, m = group_size(ε, τ, β, rule)
    and ``n_reps`` group averages of a ±1-valued query with mean ``mean_phi``
    are drawn exactly (:func:`sample_group_averages`; Laplace randomizer,
    one-bit for rule "rr"). Returns a list of dicts with keys epsilon, tau,
    rule, m, failure_rate (fraction with |answer − E φ| > τ).

    Examples
    --------
    >>> rows = group_size_validity_experiment(settings=[(1.0, 0.3)], rules=("clt",), n_reps=5, rng=0)
    >>> rows[0]["m"], rows[0]["failure_rate"]
    (385, 0.0)
    """
    rows = []
    for epsilon, tau in settings:
        for rule in rules:
            name = default_randomizer(rule)
            m = group_size(epsilon, tau, beta, rule, name)
            answers = sample_group_averages(m, mean_phi, make_randomizer(name, epsilon), size=n_reps, rng=rng)
            rows.append(dict(epsilon=epsilon, tau=tau, rule=rule, m=m,
                             failure_rate=float(np.mean(np.abs(answers - mean_phi) > tau))))
    return rows


@validate_params({"ns": USER_COUNTS, "epsilon": Epsilon(), "beta": UNIT, "n_reps": REPETITIONS, "theta": THETA,
                  **RULE_CONSTRAINTS,
                  "n_grid": FiniteInterval(Integral, 2, None, closed="left"),
                  "rng": "random_state"})
def threshold_experiment(ns, epsilon, beta=0.05, n_reps=20, theta=0.37, rule="theorem", randomizer=None,
                         n_grid=2048, rng=None):
    """Error of the grid (Algorithm 3.7) and binary-search (Algorithm 3.12) threshold learners vs users (chapter 3, the threshold figure).

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

    Examples
    --------
    >>> out = threshold_experiment(ns=[200], epsilon=1.0, n_reps=1, rule="clt", n_grid=16, rng=0)
    >>> out["grid"]["alpha"]
    array([nan])
    """
    ns = ns.astype(float)
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


# Check: user counts as an int64 array, at most 10^7 here (the cost grows with n)
@validate_params({"ns": Check(_check_user_counts, maximum=10 ** 7, array_ndim=(0, 1), convert_nested=_as_user_counts,
                              invalid=[([], "[]"), ([2.5], "[2.5]"), ([0], "[0]"), ([10 ** 8], "[10**8]"),
                                       ([math.nan], "[nan]"), ([[[10]]], "[[[10]]]"), (None, "None")]),
                  "d": FiniteInterval(Integral, 1, 1000, closed="both"), "epsilon": Epsilon(),
                  "marginal": Options(("sphere", "skewed")), "n_reps": REPETITIONS, "n_steps": POSITIVE_INT,
                  "eta": POSITIVE, "n_test": FiniteInterval(Integral, 1, 10 ** 7, closed="both"), "rng": "random_state"})
def halfspace_experiment(ns, d, epsilon, marginal="sphere", n_reps=3, n_steps=20, eta=5.0, n_test=20000,
                         rng=None):
    """Test error of averaging (1 round) vs SQ gradient descent (K rounds) (chapter 3, the halfspace figure).

    Real users: for each n and repetition, draw n users from
    :func:`dpteach.data.sphere_halfspace_data`, fit :class:`LocalHalfspaceLearner`
    (equal disjoint groups, Laplace randomizer) and measure the error on
    ``n_test`` fresh clean points. Returns dict "n", "averaging", "gd"
    (arrays n_reps × len(ns)). Cost O(n·(1 + n_steps)) per fit.

    Examples
    --------
    >>> out = halfspace_experiment(ns=[200], d=2, epsilon=1.0, n_reps=1, n_steps=2, n_test=50, rng=0)
    >>> out["averaging"].shape, out["gd"].shape
    ((1, 1), (1, 1))
    """
    check_repetitions(n_reps, per_repetition=[("len(ns)", len(ns)), ("ns", int(max(ns))), ("d", d)])
    X_test, y_test, w_star = sphere_halfspace_data(n_test, d, marginal=marginal, rng=rng)
    out = {"n": ns, "averaging": np.zeros((n_reps, ns.size)), "gd": np.zeros((n_reps, ns.size))}
    for i, n in enumerate(ns):
        for rep in range(n_reps):
            X, y, _ = sphere_halfspace_data(int(n), d, marginal=marginal, w_star=w_star, rng=rng)
            for method in ("averaging", "gd"):
                model = LocalHalfspaceLearner(epsilon, method=method, n_steps=n_steps, eta=eta, random_state=rng)
                out[method][rep, i] = 1 - model.fit(X, y).score(X_test, y_test)
    return out


@validate_params({"ds": PARITY_DIMENSIONS,
                  "ns": USER_COUNTS, "epsilon": Epsilon(), "n_reps": REPETITIONS,
                  "method": Options(("interactive", "bruteforce")), "users": Options(("real", "fast")),
                  "rng": "random_state"})
def masked_parity_experiment(ds, ns, epsilon, n_reps=10, method="interactive", users="real", rng=None):
    """Success rate of recovering (r, a) for masked parities vs users (chapter 3, the masked-parity figure).

    A fresh uniform secret (r, a) per repetition; equal disjoint groups per
    query (split="equal"; t = d + 1 for "interactive", 2^d for
    "bruteforce"), Laplace randomizer. ``users="real"`` simulates int8 records
    (:func:`dpteach.data.masked_parity_data`) through
    :func:`simulate_sq_locally`; ``users="fast"`` uses :class:`FastLocalSQOracle`
    on the exact law (:func:`dpteach.data.masked_parity_distribution`), the
    same law of answers in O(2^d·d) per query instead of O(n).
    Returns an array of success rates, shape (len(ds), len(ns)); n < t counts as failure.

    Examples
    --------
    >>> masked_parity_experiment(ds=[2], ns=[200], epsilon=1.0, n_reps=1, rng=0)
    array([[0.]])
    """
    # The bounds that depend on another parameter: 2^d queries (bruteforce), n real users in memory.
    if method == "bruteforce":
        check_int(max(ds), "ds", minimum=1, maximum=16)
    if users == "real":
        _check_user_counts(ns, maximum=10 ** 7)
    # With real users each repetition draws n records of d + 3 bytes per (d, n) cell.
    per_rep = [("len(ds)", len(ds)), ("len(ns)", len(ns)), ("ns", int(max(ns))), ("ds", int(max(ds)))]
    check_repetitions(n_reps, per_repetition=per_rep if users == "real" else ())
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


@validate_params({"epsilon": Epsilon(), "beta": UNIT, **RULE_CONSTRAINTS,
                  "n_alpha": FiniteInterval(Integral, 10, 10 ** 4, closed="both")})
def threshold_crossover(epsilon, beta=0.05, rule="theorem", randomizer=None, n_alpha=400):
    """The number of users beyond which binary search guarantees a smaller α than the grid (chapter 3, the threshold figure).

    For α on a fine log grid in [10⁻⁴, 0.5] both query plans are sized with
    :func:`dpteach.local.users_needed`; the α an algorithm guarantees with n
    users is the smallest grid α whose plan fits. Returns the smallest n
    (among the plans' sizes) such that for every larger n the binary search
    guarantees a strictly smaller α. With the "theorem" rule both costs
    scale as 1/ε², and so does the crossover. Cost O(n_alpha·(1/α)) for the
    grid plans (about 0.1 s).

    Returns
    -------
    float

    Examples
    --------
    >>> threshold_crossover(epsilon=1.0, n_alpha=10)
    6248497410.0
    """
    alphas = np.logspace(-4, np.log10(0.5), n_alpha)
    # The two query plans (Algorithms 3.7 and 3.12; tests check them against query_plan):
    # K + 1 = ⌈1/α⌉ + 1 queries at tolerance α/2, and T = ⌈log2(2/α)⌉ queries at α/4.
    costs = {"grid": np.array([users_needed(np.full(math.ceil(1 / a) + 1, a / 2), epsilon, beta, rule, randomizer)
                               for a in alphas], dtype=float),
             "binary": np.array([users_needed(np.full(math.ceil(math.log2(2 / a)), a / 4), epsilon, beta, rule,
                                              randomizer) for a in alphas], dtype=float)}
    candidates = np.unique(np.concatenate(list(costs.values())))
    candidates = candidates[candidates <= costs["binary"].max()]  # beyond it the α grid is exhausted

    def guaranteed(cost):
        # smallest α whose plan fits in n, for every candidate n (α grid sorted ascending)
        best = np.full(candidates.size, np.inf)
        for a, c in zip(alphas, cost):
            best[(candidates >= c) & np.isinf(best)] = a
        return best

    better = guaranteed(costs["binary"]) < guaranteed(costs["grid"])
    not_better = np.flatnonzero(~better)
    if not_better.size == 0:
        return float(candidates[0])
    if not_better[-1] + 1 >= candidates.size:
        return float("inf")
    return float(candidates[not_better[-1] + 1])


@validate_params({"d": FiniteInterval(Integral, 1, 14, closed="both"), "tau": OPEN_UNIT,
                  "n_queries": FiniteInterval(Integral, 1, 10 ** 4, closed="both"),
                  "bucket_sizes": SIZES,  # their bound 2^d is checked with d, in the body
                  "n_secrets": REPETITIONS, "rng": "random_state"})
def parity_sq_experiment(d, tau, n_queries, bucket_sizes=(1,), n_secrets=20, rng=None):
    """How fast SQ algorithms can identify a parity against the worst-case oracle (chapter 3, Theorem 3.17).

    For each bucket size and each of ``n_secrets`` uniform secrets, runs
    :func:`dpteach.sq_lower_bounds.parity_candidate_search` against
    :class:`dpteach.sq_lower_bounds.RandomLabelParityOracle` and records
    whether a single candidate is left after each query. Theorem 3.17 bounds
    this rate by (q/τ² + 1)/2^d. Cost O(n_secrets·n_queries·d·2^d) per bucket size.

    Returns
    -------
    dict
        "queries" (1..n_queries) and, per bucket size, the identified fraction
        (array of length n_queries).

    Examples
    --------
    >>> out = parity_sq_experiment(d=2, tau=0.3, n_queries=2, bucket_sizes=[1], n_secrets=2, rng=0)
    >>> out[1]
    array([0.5, 0.5])
    """
    for size in bucket_sizes:  # the bound that depends on d: at most 2^d candidates
        if size > 2 ** d:
            raise ValueError(f"bucket_sizes must be integers in [1, {2 ** d}] (at most 2^d), got {size!r}")
    out = {"queries": np.arange(1, n_queries + 1)}
    for size in bucket_sizes:
        found = np.zeros(n_queries)
        for _ in progress(range(n_secrets), f"parity SQ, |S| = {size}"):
            secret = rng.integers(0, 2, size=d)
            oracle = RandomLabelParityOracle(d, secret)
            history = parity_candidate_search(oracle, d, tau, n_queries, size, rng)
            found += history == 1
        out[size] = found / n_secrets
    return out
