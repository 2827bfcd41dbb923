"""Runners behind chapter 4's figures: tracing the mean (T1–T3), the proved lower bound (Theorem 4.10),
thresholds (T8, and the soundness of Lemma 18's printed threshold) and regression (T7).

T7 attacks chapter 5's estimators: OLS and noisy OLS, the LASSO and the private LASSO.

Each runner draws its population with ``dpteach.data``, runs
``dpteach.fingerprinting.membership_scores`` for every estimator on the
*same* records (common random numbers: each estimator gets the same seed
in a cell, so differences between estimators are not sampling noise), and
returns plain arrays. Long sweeps show a progress bar (silent when
``TQDM_DISABLE=1``).
"""

from __future__ import annotations

import functools
import math
from numbers import Integral, Real

import numpy as np

from .. import bounds, data, fingerprinting, regression, regression_baselines
from .. import peeling
from .. import attack_targets
from .._constraints import OPEN_UNIT, POSITIVE, POSITIVE_INT, Delta, Epsilon, FiniteInterval, Options, validate_params
from .._array_constraints import Sequence, Sweep
from .._validation import check_int, check_memory, check_work
from ..mechanisms import gaussian_sigma
from ._progress import EPSILONS, SIZES, check_repetitions
from .._progress import progress

__all__ = ["clipping_radius", "dp_delta", "auc_vs_ratio", "roc_experiment", "phase_diagram",
           "lower_bound_experiment", "threshold_experiment", "sparse_threshold_fpr", "regression_experiment"]

#: Records × columns above which membership_scores shows its own progress bar.
_SLOW_ENTRIES = 3e7


# --- the runners' sweeps: a scalar or a non-empty 1-D sequence, each entry in range; the bodies read them as arrays ---

#: Dimensions or sample sizes: whole numbers >= 1.
INTS = SIZES
#: n >= 2, so that δ = n^{-1.1} < 1; and at least two trials, for a standard error.
AT_LEAST_2 = FiniteInterval(Integral, 2, None, closed="left")
_COMMON = {"sigma": POSITIVE, "rng": "random_state"}


@validate_params({"d": POSITIVE_INT, "sigma": POSITIVE, "half_width": POSITIVE})
def clipping_radius(d, sigma=1.0, half_width=1.0):
    """R = √(d(a² + σ²)): the ℓ2 radius that N(μ, σ²I) records with μ ∈ [−a, a]^d rarely exceed.

    E‖x‖² = ‖μ‖² + σ²d <= d(a² + σ²); public, since it uses only the prior box.

    Examples
    --------
    >>> round(clipping_radius(d=3), 4)
    2.4495
    """
    return math.sqrt(d * (half_width ** 2 + sigma ** 2))


@validate_params({"n": AT_LEAST_2})
def dp_delta(n):
    """δ = n^{-1.1}: the regime δ <= n^{-(1+τ)} of the lower bounds (τ = 0.1).

    Examples
    --------
    >>> round(dp_delta(n=10), 6)
    0.079433
    """
    return n ** -1.1


def _mean_attack(d, sigma, rng):
    mu = data.uniform_box_mean(d, 1.0, rng)
    sample = functools.partial(data.gaussian_records, mu=mu, sigma=sigma)

    def statistic(records, releases):
        return fingerprinting.score_statistic(records, releases, mu)
    return mu, sample, statistic


def _dp_mean(d, n, epsilon, sigma, quarter=False):
    estimator = attack_targets.broken_clipped_gaussian_mean_quarter_noise if quarter else attack_targets.clipped_gaussian_mean
    return functools.partial(estimator, epsilon=epsilon, delta=dp_delta(n), radius=clipping_radius(d, sigma))


def _dp_mean_error(d, n, epsilon, sigma):
    """ℓ2 error √(σ²d/n + d·s²) of the clipped Gaussian mean (clipping bias ignored)."""
    noise = gaussian_sigma(2 * clipping_radius(d, sigma) / n, epsilon, dp_delta(n))
    return math.sqrt(sigma ** 2 * d / n + d * noise ** 2)


def _scores(sample, estimator, statistic, n, n_trials, seed, d):
    slow = n_trials * 2 * n * d > _SLOW_ENTRIES
    return fingerprinting.membership_scores(sample, estimator, statistic, n, n_trials, rng=seed,
                                            progress=progress if slow else None)


@validate_params({"ds": INTS, "ns": INTS, "epsilons": EPSILONS, "n_scores": POSITIVE_INT, **_COMMON})
def auc_vs_ratio(ds, ns, epsilons, n_scores=2000, sigma=1.0, rng=None):
    """T1: AUC of the score attack against the exact mean and clipped Gaussian means, over a (d, n) grid.

    Parameters
    ----------
    ds, ns : sequences of int >= 1 (n >= 2)
    epsilons : sequence of float > 0
        Privacy levels of the DP means (δ = n^{-1.1}).
    n_scores : int
        Member scores per cell (trials = ⌈n_scores/n⌉, pooled).
    sigma : float > 0
    rng : seed or Generator

    Returns
    -------
    dict with ``d``, ``n`` (grids), ``exact`` (AUC, shape (len(ds), len(ns))),
    ``dp`` {ε: AUC array}, ``alpha_exact`` and ``alpha_dp`` {ε: ℓ2 errors}.

    Examples
    --------
    >>> out = auc_vs_ratio(ds=[2], ns=[4], epsilons=[1.0], n_scores=8, rng=0)
    >>> out["exact"].shape, sorted(out["dp"])
    ((1, 1), [1.0])
    """
    ds, ns = np.asarray(ds), np.asarray(ns)
    if np.any(ns < 2):
        raise ValueError(f"ns must be >= 2 (δ = n^-1.1 < 1), got {ns.tolist()}")
    # Each score draws 2n records of dimension d, for every (d, n) cell of the grid.
    check_repetitions(n_scores, "n_scores", per_repetition=[
        ("len(ds)", ds.size), ("len(ns)", ns.size), ("ns", int(ns.max())), ("ds", int(ds.max()))])
    shape = (ds.size, ns.size)
    out = {"d": ds, "n": ns, "exact": np.empty(shape), "dp": {e: np.empty(shape) for e in epsilons},
           "alpha_exact": np.empty(shape), "alpha_dp": {e: np.empty(shape) for e in epsilons}}
    cells = [(i, j) for i in range(ds.size) for j in range(ns.size)]
    for i, j in progress(cells, "T1: (d, n) grid"):
        d, n = int(ds[i]), int(ns[j])
        _, sample, statistic = _mean_attack(d, sigma, rng)
        trials, seed = math.ceil(n_scores / n), int(rng.integers(2 ** 63))
        out["exact"][i, j] = fingerprinting.auc(*_scores(sample, attack_targets.exact_mean, statistic, n,
                                                         trials, seed, d))
        out["alpha_exact"][i, j] = sigma * math.sqrt(d / n)
        for e in epsilons:
            scores = _scores(sample, _dp_mean(d, n, e, sigma), statistic, n, trials, seed, d)
            out["dp"][e][i, j] = fingerprinting.auc(*scores)
            out["alpha_dp"][e][i, j] = _dp_mean_error(d, n, e, sigma)
    return out


@validate_params({"d": POSITIVE_INT, "n": AT_LEAST_2, "epsilon": Epsilon(), "n_trials": POSITIVE_INT, **_COMMON,
                  "estimators": Sequence("estimators", entry=Options(("exact", "dp", "quarter")))})
def roc_experiment(d, n, epsilon, n_trials=20, sigma=1.0, rng=None, estimators=("exact", "dp", "quarter")):
    """T2: member and non-member scores for the ROC figure at one (d, n, ε).

    ``estimators`` picks from "exact" (sample mean), "dp" (clipped Gaussian
    mean at (ε, n^{-1.1})) and "quarter" (the same with σ/4, not DP). All see
    the same records. Returns {name: (in_scores, out_scores)} plus
    ``alpha`` {name: ℓ2 error} and ``delta``.

    Examples
    --------
    >>> out = roc_experiment(d=2, n=4, epsilon=1.0, n_trials=2, rng=0)
    >>> [scores.shape for scores in out["dp"]], round(out["delta"], 4)
    ([(8,), (8,)], 0.2176)
    """
    check_repetitions(n_trials, "n_trials", per_repetition=[("n", n), ("d", d)])
    _, sample, statistic = _mean_attack(d, sigma, rng)
    seed = int(rng.integers(2 ** 63))
    noise = gaussian_sigma(2 * clipping_radius(d, sigma) / n, epsilon, dp_delta(n))
    out = {"alpha": {}, "delta": dp_delta(n)}
    for name in estimators:
        estimator = (attack_targets.exact_mean if name == "exact"
                     else _dp_mean(d, n, epsilon, sigma, quarter=(name == "quarter")))
        out[name] = _scores(sample, estimator, statistic, n, n_trials, seed, d)
        extra = {"exact": 0.0, "dp": noise, "quarter": noise / 4}[name]
        out["alpha"][name] = math.sqrt(sigma ** 2 * d / n + d * extra ** 2)
    return out


@validate_params({"d": POSITIVE_INT, "ns": INTS, "alpha_fractions": Sweep(POSITIVE),
                  "n_scores": POSITIVE_INT, **_COMMON})
def phase_diagram(d, ns, alpha_fractions, n_scores=2000, sigma=1.0, rng=None):
    """T3: AUC of the score attack on x̄ + W at ℓ2 accuracy α = fraction·σ√d, over (α, n).

    Cells with α < σ√(d/n) (more accurate than the sample mean) are NaN.
    Returns dict ``n``, ``alpha`` (the α values) and ``auc`` (shape
    (len(alpha_fractions), len(ns))).

    Examples
    --------
    >>> phase_diagram(d=2, ns=[4], alpha_fractions=[0.5], n_scores=8, rng=0)["auc"].shape
    (1, 1)
    """
    ns, alpha_fractions = np.asarray(ns), np.asarray(alpha_fractions)
    check_repetitions(n_scores, "n_scores", per_repetition=[
        ("len(ns)", ns.size), ("len(alpha_fractions)", alpha_fractions.size), ("ns", int(ns.max())), ("d", d)])
    alphas = alpha_fractions * sigma * math.sqrt(d)
    _, sample, statistic = _mean_attack(d, sigma, rng)
    grid = np.full((alphas.size, ns.size), np.nan)
    for j in progress(range(ns.size), "T3: n"):
        n = int(ns[j])
        trials, seed = math.ceil(n_scores / n), int(rng.integers(2 ** 63))
        for i, alpha in enumerate(alphas):
            if alpha < sigma * math.sqrt(d / n):
                continue
            noise = attack_targets.accuracy_noise_sd(alpha, sigma, d, n)
            estimator = functools.partial(attack_targets.noisy_mean, noise_sd=noise)
            grid[i, j] = fingerprinting.auc(*_scores(sample, estimator, statistic, n, trials, seed, d))
    return {"n": ns, "alpha": alphas, "auc": grid}


@validate_params({"d": POSITIVE_INT, "ns": INTS, "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "n_trials": AT_LEAST_2, **_COMMON})
def lower_bound_experiment(d, ns, epsilon, delta, n_trials=100, sigma=1.0, rng=None):
    """Theorem 4.10 against the book's private mean: the ℓ2 error of the clipped Gaussian mean over n.

    In every trial μ is drawn from the theorem's prior (:func:`dpteach.data.cosine_prior_mean`,
    half-width σ), then n records N(μ, σ²I_d), and Algorithm 4.4 releases the mean at (ε, δ) with
    the public radius R = √(d(σ² + σ²)) (:func:`clipping_radius`). The average of ‖M − μ‖₂ over the
    trials estimates exactly the Bayes risk E_π E_μ‖M − μ‖₂ that the theorem bounds from below.

    Parameters
    ----------
    d : int >= 1
    ns : sequence of int >= 1
    epsilon : float > 0
    delta : float, 0 < δ < 1 (the mechanism's δ; the bound uses the same)
    n_trials : int >= 2
    sigma : float > 0
    rng : seed or Generator

    Returns
    -------
    dict with ``n``, ``error`` (mean ℓ2 error per n), ``error_se`` (its standard error over the
    trials), ``bound`` (:func:`dpteach.bounds.score_attack_lower_bound`) and ``sample_mean`` (σ√(d/n),
    the error of the exact mean, for reference).

    Examples
    --------
    >>> out = lower_bound_experiment(d=2, ns=[4], epsilon=1.0, delta=1e-3, n_trials=2, rng=0)
    >>> out["error"].round(4), out["bound"].round(4)
    (array([3.2604]), array([0.0179]))
    """
    ns = np.asarray(ns)
    # Each trial draws an (n, d) sample: refuse up front what the loop below could not finish or hold.
    check_work(("len(ns)", ns.size), ("n_trials", n_trials), ("ns", int(ns.max())), ("d", d))
    check_memory(("ns", int(ns.max())), ("d", d))
    check_memory(("len(ns)", ns.size), ("n_trials", n_trials))
    radius = clipping_radius(d, sigma, half_width=sigma)
    errors = np.empty((ns.size, n_trials))
    for j in progress(range(ns.size), "Theorem 4.10: n"):
        n = int(ns[j])
        for t in range(n_trials):
            mu = data.cosine_prior_mean(d, sigma, rng)
            records = data.gaussian_records(1, n, mu, sigma, rng)[0]
            release = attack_targets.clipped_gaussian_mean(records, epsilon, delta, radius, rng=rng)
            errors[j, t] = np.linalg.norm(release - mu)
    return {"n": ns, "error": errors.mean(axis=1), "error_se": errors.std(axis=1, ddof=1) / math.sqrt(n_trials),
            "bound": np.asarray(bounds.score_attack_lower_bound(sigma, d, ns, epsilon, delta), dtype=float),
            "sample_mean": sigma * np.sqrt(d / ns)}


@validate_params({"d": POSITIVE_INT, "n": POSITIVE_INT, "target_fprs": Sweep(OPEN_UNIT),
                  "n_trials": POSITIVE_INT, **_COMMON})
def threshold_experiment(d, n, target_fprs, n_trials=200, sigma=1.0, rng=None):
    """T8: printed vs calibrated thresholds for the score attack on the exact mean.

    A calibration run (non-member scores only) sets each threshold with
    :func:`~dpteach.fingerprinting.calibrate_threshold`; a fresh evaluation
    run measures its FPR and TPR, next to those of the printed threshold
    σ²√(8d log(1/δ)) at δ = target FPR.

    Returns dict with ``in_scores``, ``out_scores`` (evaluation run),
    ``calibration`` (the calibration run's non-member scores) and
    ``rows``: one dict per target FPR with ``target``, ``printed``,
    ``calibrated``, and the measured ``fpr``/``tpr`` of each.

    Examples
    --------
    >>> out = threshold_experiment(d=2, n=4, target_fprs=[0.1], n_trials=20, rng=0)
    >>> round(out["rows"][0]["calibrated"], 4), round(out["rows"][0]["calibrated_fpr"], 4)
    (0.7781, 0.0875)
    """
    check_repetitions(n_trials, "n_trials", per_repetition=[("n", n), ("d", d)])
    _, sample, statistic = _mean_attack(d, sigma, rng)
    seeds = rng.integers(2 ** 63, size=2)
    _, calibration = _scores(sample, attack_targets.exact_mean, statistic, n, n_trials, int(seeds[0]), d)
    in_scores, out_scores = _scores(sample, attack_targets.exact_mean, statistic, n, n_trials, int(seeds[1]), d)
    rows = []
    for target in target_fprs:
        printed = fingerprinting.printed_threshold_classical(d, float(target), sigma)
        calibrated = fingerprinting.calibrate_threshold(calibration, float(target))
        rows.append({"target": float(target), "printed": printed, "calibrated": calibrated,
                     "printed_fpr": float(np.mean(out_scores > printed)),
                     "printed_tpr": float(np.mean(in_scores > printed)),
                     "calibrated_fpr": float(np.mean(out_scores > calibrated)),
                     "calibrated_tpr": float(np.mean(in_scores > calibrated))})
    return {"in_scores": in_scores, "out_scores": out_scores, "calibration": calibration, "rows": rows}


@validate_params({"s": POSITIVE_INT, "deltas": Sweep(FiniteInterval(Real, 0, 1, normal=True)), "n_draws": POSITIVE_INT,
                  **_COMMON})
def sparse_threshold_fpr(s, deltas, n_draws=1_000_000, sigma=1.0, rng=None):
    """The false-positive rate of Lemma 18's printed threshold σ√(2s log(1/δ)) on chapter 4's design.

    A non-member's statistic, on the s coordinates the release selects, is
    (Σ_{j∈S} x_j)(ξ − ξ̃) with Rademacher x_j (independent of S, since the record
    was not used) and ξ, ξ̃ i.i.d. N(0, σ²): a product of two independent
    sub-Gaussians of variances s and 2σ². Its tail decays like e^{−t}, not e^{−t²},
    so the threshold, only √(log(1/δ)) standard deviations out, is exceeded far more
    often than δ. The Rademacher sum is drawn exactly, as 2·Binomial(s, ½) − s.

    Returns dict with ``delta`` (the grid), ``fpr`` (fraction of ``n_draws`` non-member
    statistics above the threshold at each δ) and ``fpr_se`` (binomial standard errors).

    Examples
    --------
    >>> sparse_threshold_fpr(s=2, deltas=[1e-2], n_draws=10, rng=0)["fpr"]
    array([0.])
    """
    deltas = np.asarray(deltas)
    # Five float arrays of n_draws at the peak (the binomial draw, two normals, their product, one
    # comparison), then one comparison per δ. s costs nothing: the sum is one binomial draw, O(1) in s.
    check_memory(("n_draws", n_draws), itemsize=40)
    check_work(("len(deltas)", deltas.size), ("n_draws", n_draws))
    support_sum = 2.0 * rng.binomial(s, 0.5, size=n_draws) - s
    statistic = support_sum * sigma * (rng.standard_normal(n_draws) - rng.standard_normal(n_draws))
    fpr = np.array([np.mean(statistic > fingerprinting.printed_threshold_sparse(s, float(v), sigma)) for v in deltas])
    return {"delta": deltas, "fpr": fpr, "fpr_se": np.sqrt(fpr * (1 - fpr) / n_draws)}


def per_trial(fit, d):
    """Batch a chapter-5 estimator ``fit(X, y, rng)`` over the trial axis of records [x (d), y, ỹ].

    Chapter 5's estimators fit one dataset at a time; a loop over the T trials of a chunk
    (not over records) keeps the per-record work vectorised. The fresh response ỹ (column
    d + 1) is never shown to the estimator.
    """
    def estimator(records, rng=None):
        return np.stack([fit(trial[:, :d], trial[:, d], rng) for trial in records])
    return estimator


def regression_statistics(d, beta, support_size):
    """The tracing statistics of T7 on records [x, y, ỹ] (chapter 4, Eqs. (eq-cwz-classical)–(eq-regression-score))."""
    def columns(records):
        return records[..., :d], records[..., d], records[..., d + 1]

    return {
        "classical": lambda r, m: fingerprinting.classical_regression_statistic(*columns(r), m),
        "score": lambda r, m: fingerprinting.regression_score_statistic(r[..., :d], r[..., d], beta, m),
        "sparse": lambda r, m: fingerprinting.sparse_regression_statistic(*columns(r), m, support_size),
        "sparse_sign": lambda r, m: fingerprinting.sparse_regression_statistic(*columns(r), m, support_size,
                                                                              weight="sign"),
    }


#: Which statistics T7 runs against which estimator family.
_T7_STATISTICS = {"ols": ("classical", "score"), "noisy_ols": ("classical", "score"),
                         "lasso": ("sparse", "sparse_sign"), "dp_lasso": ("sparse", "sparse_sign")}


def _regression_estimators(d, s, n, epsilons, sigma, beta):
    """T7's estimators at sample size n: OLS, noisy OLS, the LASSO and the private LASSO (chapter 5).

    The truncation T = √(σ² + ‖β‖²)·√(2 ln n) and δ = n^{-1.1} depend only on n and on the
    assumed model, never on the data. The private LASSO selects ŝ = 2s coordinates.
    Returns ({name: estimator}, {ε: certified ε' of the private LASSO}).
    """
    truncation = regression.default_truncation(n, sigma, float(np.linalg.norm(beta)))
    delta = dp_delta(n)
    estimators = {"ols": per_trial(lambda X, y, rng: regression_baselines.ols(X, y), d),
                  "lasso": per_trial(lambda X, y, rng: regression_baselines.lasso_ista(X, y), d)}
    for e in epsilons:
        estimators[("noisy_ols", e)] = per_trial(
            lambda X, y, rng, e=e: regression.noisy_ols(X, y, e, delta, truncation, rng=rng), d)
        estimators[("dp_lasso", e)] = per_trial(
            lambda X, y, rng, e=e: regression.DPLasso(e, delta, 2 * s, truncation=truncation,
                                                      random_state=rng, calibrate="paper").fit(X, y).coef_, d)
    certified = {e: peeling.peeling_epsilon(2 * s, e, delta) for e in epsilons}
    return estimators, certified


# ratios n/d >= 1: OLS needs n >= d.
@validate_params({"d": AT_LEAST_2, "s": POSITIVE_INT, "ratios": Sweep(FiniteInterval(Real, 1, None, closed="left")),
                  "epsilons": EPSILONS, "n_scores": POSITIVE_INT, "sigma": POSITIVE, "magnitude": POSITIVE,
                  "rng": "random_state"})
def regression_experiment(d, s, ratios, epsilons, n_scores=3000, sigma=1.0, magnitude=0.5, rng=None):
    """T7: tracing OLS and the LASSO against their private versions from chapter 5, over n/d.

    β is s-sparse and sign-symmetric with |β_j| = magnitude; the design is
    Rademacher and every record carries a fresh response ỹ. Estimators:
    ``"ols"`` (:func:`dpteach.regression_baselines.ols`) and ``("noisy_ols", ε)``
    (:func:`dpteach.regression.noisy_ols`, Theorem 5.10; private only on a
    high-probability event), attacked with Lemma 19's statistic
    (``"classical"``) and the regression score (``"score"``); ``"lasso"``
    (:func:`dpteach.regression_baselines.lasso_ista`, default penalty) and
    ``("dp_lasso", ε)`` (:class:`dpteach.regression.DPLasso`, Algorithm 5.4,
    ŝ = 2s), attacked with Lemma 18's statistic as printed (``"sparse"``) and
    sign-weighted (``"sparse_sign"``), both over the 2s largest |M_j|. δ = n^{-1.1}.
    Every estimator and statistic of a cell sees the same records (one seed per
    n), so differences are not sampling noise.

    Parameters
    ----------
    d, s : int, 1 <= s, 2s <= d
    ratios : sequence of float >= 1 (n = max(d + 1, round(ratio·d)))
    epsilons : sequence of float > 0
    n_scores : int, member scores per cell (trials = ⌈n_scores/n⌉, pooled)
    sigma, magnitude : float > 0
    rng : seed or Generator

    Returns
    -------
    dict with ``n`` (sample sizes), ``beta``, ``auc``: {estimator: {statistic: array over
    ratios}} (OLS-type: "classical", "score"; LASSO-type: "sparse", "sparse_sign") and ``epsilon_certified``:
    {ε: array over ratios} (the ε' that Peeling's composition certifies for the private
    LASSO; <= ε only for ε <= 1 and δ <= 10⁻³, and here δ = n^{-1.1} exceeds 10⁻³ for n < 534,
    e.g. ε' = 1.009 at ε = 1, n = 60). Cost: about n_scores·(#estimators)·(#statistics) fits of
    cost O(n·d² + d³) / n.

    Examples
    --------
    >>> out = regression_experiment(d=4, s=2, ratios=[2.0], epsilons=[1.0], n_scores=8, rng=0)
    >>> out["n"], round(float(out["auc"]["ols"]["score"][0]), 4)
    (array([8]), 0.7812)
    """
    ratios = np.asarray(ratios)
    check_int(s, "s", minimum=1, maximum=d // 2)  # 2s <= d: a bound set by d
    # n_scores scores per ratio, each a record of dimension d scored by every estimator.
    check_repetitions(n_scores, "n_scores", per_repetition=[("len(ratios)", ratios.size), ("d", d)])
    beta = data.sparse_coefficients(d, s, magnitude, "symmetric", rng)
    sample = functools.partial(data.regression_records, beta=beta, sigma=sigma)
    statistics = regression_statistics(d, beta, 2 * s)
    ns = np.maximum(d + 1, np.round(ratios * d)).astype(int)
    names = ["ols", "lasso"] + [(family, e) for family in ("noisy_ols", "dp_lasso") for e in epsilons]
    auc = {name: {stat: np.empty(ns.size) for stat in _T7_STATISTICS[_family(name)]} for name in names}
    certified = {e: np.empty(ns.size) for e in epsilons}
    for j in progress(range(ns.size), "T7: n/d"):
        n = int(ns[j])
        trials, seed = math.ceil(n_scores / n), int(rng.integers(2 ** 63))
        estimators, eps_certified = _regression_estimators(d, s, n, epsilons, sigma, beta)
        for e in epsilons:
            certified[e][j] = eps_certified[e]
        for name in names:
            for stat in _T7_STATISTICS[_family(name)]:
                scores = fingerprinting.membership_scores(sample, estimators[name], statistics[stat], n, trials,
                                                          rng=seed)
                auc[name][stat][j] = fingerprinting.auc(*scores)
    return {"n": ns, "beta": beta, "auc": auc, "epsilon_certified": certified}


def _family(name):
    return name if isinstance(name, str) else name[0]
