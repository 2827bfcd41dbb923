"""The runners behind chapter 5's figures (E1–E7 and the tracing attack).

Each runner draws fresh synthetic data (``dpteach.data``), fits the private
and non-private estimators over a grid and several repetitions, and returns
plain dicts of numpy arrays that the notebook plots. Errors are
‖β̂ − β‖₂ with ‖β‖₂ = 1, so an error of 1 is what the estimator β̂ = 0 achieves.
A dataset is generated once per (n, repetition) and shared by every method and
every ε, so the curves differ by the methods, not by the data.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import audit, fingerprinting
from .._constraints import Count, Delta, Epsilon, Integral, FiniteInterval, OPEN_UNIT, POSITIVE_INT, validate_params
from .._array_constraints import Sweep
from .._validation import check_int, check_memory
from ..data import linear_regression_data, regression_records, sparse_regression_data
from ..peeling import broken_peel_forgotten_sqrt_s, peel, peel_rows, peeling_epsilon, peeling_noise_scale
from ..regression import DPLasso, default_truncation, dp_gradient_descent_ols, noisy_ols
from ..regression_baselines import lasso_ista, ols, split_iht
from ._progress import EPSILONS, SIZES, check_repetitions
from .fingerprinting import per_trial, regression_statistics
from .._progress import progress

__all__ = [
    "default_delta",
    "error_vs_n",
    "error_vs_sparsity",
    "error_vs_dimension",
    "ablations",
    "classical_experiment",
    "peeling_audit_experiment",
    "peeling_accounting_sweep",
    "tracing_experiment",
]


@validate_params({"n": POSITIVE_INT})
def default_delta(n):
    """δ = min(10⁻⁵, n^{−1.1}): inside Theorem 5.8's range δ <= n^{−(1+τ)} (τ = 0.1).

    Examples
    --------
    >>> default_delta(n=100)
    1e-05
    """
    return min(1e-5, n ** -1.1)


#: Repetitions n_reps >= 1 (their work against the sweep's size is checked in the body, by ``check_repetitions``).
REPS = POSITIVE_INT


def _error(estimate, beta):
    """‖β̂ − β‖₂; where the sum of squares overflows (ε = 1e-300 gives entries near 1e300) math.hypot's scaled sum."""
    difference = np.asarray(estimate - beta, dtype=float)
    with np.errstate(over="ignore"):
        value = float(np.linalg.norm(difference))
    if math.isinf(value) and np.all(np.isfinite(difference)):
        value = math.hypot(*difference.ravel())
    return value


def _private_and_iht_errors(n, d, s, epsilons, delta, rng):
    """One sparse-regression draw; the private LASSO (ŝ = 2s) at every ε and split IHT on it, with one shared seed.

    Returns (errors per ε, support recovery per ε, IHT error, (X, y, beta)). Draws from ``rng`` in a
    fixed order (data, then the seed), so the E1/E3/E4 runners give the same numbers for the same seed.
    """
    X, y, beta = sparse_regression_data(n, d, s, rng=rng)
    seed = int(rng.integers(2 ** 31))
    errors, support = np.empty(len(epsilons)), np.empty(len(epsilons))
    for i, eps in enumerate(epsilons):
        coef = DPLasso(eps, delta, 2 * s, random_state=seed, calibrate="paper").fit(X, y).coef_
        errors[i], support[i] = _error(coef, beta), np.mean(coef[beta != 0] != 0)
    return errors, support, _error(split_iht(X, y, 2 * s, rng=seed), beta), (X, y, beta)


@validate_params({"ns": Sweep(Count(20)), "epsilons": EPSILONS, "d": FiniteInterval(Integral, 2, None, closed="left"),
                  "s": POSITIVE_INT, "n_reps": REPS, "lasso_max_n": FiniteInterval(Integral, 0, None, closed="left"),
                  "rng": "random_state"})
def error_vs_n(ns, epsilons, d=200, s=5, n_reps=3, lasso_max_n=30_000, rng=None):
    """E1 (and E2): ‖β̂ − β‖₂ of the private LASSO (ŝ = 2s) against n, for each ε, with the baselines.

    Parameters
    ----------
    ns : sequence of int, each >= 20
    epsilons : sequence of float, each 0 < ε < inf
    d, s : int, 1 <= s < d
    n_reps : int >= 1
    lasso_max_n : int, run the (O(n·d²)) LASSO only for n <= this
    rng : None, int or Generator

    Returns
    -------
    dict
        ``"dp"``: array (len(epsilons), len(ns), n_reps); ``"iht"``, ``"lasso"``: arrays
        (len(ns), n_reps) (NaN where the LASSO was skipped); ``"support"``: fraction of the
        true support recovered by the private LASSO, shaped like ``"dp"``; plus the grids.

    Examples
    --------
    >>> out = error_vs_n(ns=[20], epsilons=[1.0], d=4, s=1, n_reps=1, lasso_max_n=20, rng=0)
    >>> out["dp"].shape, out["lasso"].shape
    ((1, 1, 1), (1, 1))
    """
    s = check_int(s, "s", minimum=1, maximum=d - 1)  # s < d relates s to d
    n_reps = check_repetitions(n_reps, per_repetition=[("len(ns)", len(ns)), ("len(epsilons)", len(epsilons)),
                                                       ("ns", max(ns)), ("d", d)])
    dp = np.full((len(epsilons), len(ns), n_reps), np.nan)
    support = np.full_like(dp, np.nan)
    iht = np.full((len(ns), n_reps), np.nan)
    lasso = np.full_like(iht, np.nan)
    for j, n in enumerate(progress(ns, "E1: n")):
        delta = default_delta(n)
        for rep in range(n_reps):
            dp[:, j, rep], support[:, j, rep], iht[j, rep], (X, y, beta) = _private_and_iht_errors(
                n, d, s, epsilons, delta, rng)
            if n <= lasso_max_n:
                lasso[j, rep] = _error(lasso_ista(X, y), beta)
    return {"ns": np.array(ns), "epsilons": np.array(epsilons), "dp": dp, "support": support, "iht": iht,
            "lasso": lasso, "d": d, "s": s}


@validate_params({"sparsities": SIZES, "epsilons": EPSILONS, "n": FiniteInterval(Integral, 20, None, closed="left"),
                  "d": FiniteInterval(Integral, 2, None, closed="left"), "n_reps": REPS, "rng": "random_state"})
def error_vs_sparsity(sparsities, epsilons, n=30_000, d=200, n_reps=2, rng=None):
    """E3: error and support recovery |Ŝ ∩ S|/s of the private LASSO (ŝ = 2s) against s, per ε.

    Returns a dict with ``"dp"`` and ``"support"`` of shape (len(epsilons), len(sparsities), n_reps)
    and ``"iht"`` of shape (len(sparsities), n_reps).

    Examples
    --------
    >>> error_vs_sparsity(sparsities=[1], epsilons=[1.0], n=20, d=4, n_reps=1, rng=0)["dp"].shape
    (1, 1, 1)
    """
    if max(sparsities) >= d / 2:
        raise ValueError(f"sparsities must all be < d/2 = {d / 2} (ŝ = 2s <= d), got {max(sparsities)}")
    n_reps = check_repetitions(n_reps, per_repetition=[("len(sparsities)", len(sparsities)),
                                                       ("len(epsilons)", len(epsilons)), ("n", n), ("d", d)])
    delta = default_delta(n)
    dp = np.full((len(epsilons), len(sparsities), n_reps), np.nan)
    support = np.full_like(dp, np.nan)
    iht = np.full((len(sparsities), n_reps), np.nan)
    for j, s in enumerate(progress(sparsities, "E3: s")):
        for rep in range(n_reps):
            dp[:, j, rep], support[:, j, rep], iht[j, rep], _ = _private_and_iht_errors(n, d, s, epsilons, delta,
                                                                                       rng)
    return {"sparsities": np.array(sparsities), "epsilons": np.array(epsilons), "dp": dp, "support": support,
            "iht": iht, "n": n, "d": d}


@validate_params({"dimensions": Sweep(Count(2)), "epsilons": EPSILONS, "n": FiniteInterval(Integral, 20, None, closed="left"),
                  "s": POSITIVE_INT, "n_reps": REPS, "rng": "random_state"})
def error_vs_dimension(dimensions, epsilons, n=30_000, s=5, n_reps=2, rng=None):
    """E4: error of the private LASSO (ŝ = 2s) against d, per ε (only log d is predicted).

    Returns a dict with ``"dp"`` (len(epsilons), len(dimensions), n_reps) and ``"iht"``.

    Examples
    --------
    >>> error_vs_dimension(dimensions=[4], epsilons=[1.0], n=20, s=1, n_reps=1, rng=0)["dp"].shape
    (1, 1, 1)
    """
    if 2 * s > min(dimensions):
        raise ValueError(f"dimensions must all be >= 2 * s = {2 * s} (s={s}), got {min(dimensions)}")
    n_reps = check_repetitions(n_reps, per_repetition=[("len(dimensions)", len(dimensions)),
                                                       ("len(epsilons)", len(epsilons)), ("n", n),
                                                       ("dimensions", max(dimensions))])
    delta = default_delta(n)
    dp = np.full((len(epsilons), len(dimensions), n_reps), np.nan)
    iht = np.full((len(dimensions), n_reps), np.nan)
    for j, d in enumerate(progress(dimensions, "E4: d")):
        for rep in range(n_reps):
            dp[:, j, rep], _, iht[j, rep], _ = _private_and_iht_errors(n, d, s, epsilons, delta, rng)
    return {"dimensions": np.array(dimensions), "epsilons": np.array(epsilons), "dp": dp, "iht": iht,
            "n": n, "s": s}


@validate_params({"n": FiniteInterval(Integral, 100, None, closed="left"), "d": FiniteInterval(Integral, 2, None, closed="left"),
                  "s": POSITIVE_INT, "epsilon": Epsilon(), "n_reps": REPS, "rng": "random_state"})
def ablations(n=30_000, d=200, s=5, epsilon=4.0, n_reps=3, rng=None):
    """E5: the private LASSO's error as one tuning choice varies, the others at their defaults.

    Varies ŝ/s ∈ {1, 2, 4}; N₀ ∈ {2, 5, ⌈ln n⌉, 2⌈ln n⌉}; T ∈ {0.5, 1, 2} × default;
    residual clipping on/off. Returns ``{name: (labels, errors (len(labels), n_reps))}``.

    Examples
    --------
    >>> sorted(ablations(n=100, d=8, s=2, epsilon=1.0, n_reps=1, rng=0))
    ['N₀', 'T / default', 'residual clipping', 'ŝ / s']
    """
    s = check_int(s, "s", minimum=1, maximum=d // 4)  # ŝ = 4s <= d relates s to d
    n_reps = check_repetitions(n_reps, per_repetition=[("n", n), ("d", d)])
    delta = default_delta(n)
    log_n = math.ceil(math.log(n))
    T = default_truncation(n)
    variants = {
        "ŝ / s": [(f"{k}", dict(sparsity=k * s)) for k in (1, 2, 4)],
        "N₀": [(f"{k}", dict(n_iterations=k)) for k in (2, 5, log_n, 2 * log_n)],
        "T / default": [(f"{k:g}", dict(truncation=k * T)) for k in (0.5, 1.0, 2.0)],
        "residual clipping": [("on", dict(clip_residual=True)), ("off (not private)", dict(clip_residual=False))],
    }
    results = {name: ([label for label, _ in options], np.full((len(options), n_reps), np.nan))
               for name, options in variants.items()}
    for rep in progress(range(n_reps), "E5: repetitions"):
        X, y, beta = sparse_regression_data(n, d, s, rng=rng)
        seed = int(rng.integers(2 ** 31))
        for name, options in variants.items():
            for k, (_, overrides) in enumerate(options):
                params = {"sparsity": 2 * s, "random_state": seed, "calibrate": "paper", **overrides}
                results[name][1][k, rep] = _error(DPLasso(epsilon, delta, **params).fit(X, y).coef_, beta)
    return results


@validate_params({"ns": Sweep(Count(2)), "epsilons": EPSILONS, "d": POSITIVE_INT,
                  "noise_multipliers": Sweep(),
                  "n_reps": REPS, "rng": "random_state"})
def classical_experiment(ns, epsilons, d=20, noise_multipliers=(1.0, 6.0, 128.0), n_reps=3, rng=None):
    """E6: noisy OLS (several c_W), DP gradient descent and OLS against n, per ε (dense β, ‖β‖₂ = 1).

    Returns a dict with ``"noisy_ols"`` (len(noise_multipliers), len(epsilons), len(ns), n_reps),
    ``"dp_gd"`` (len(epsilons), len(ns), n_reps) and ``"ols"`` (len(ns), n_reps).

    Examples
    --------
    >>> out = classical_experiment(ns=[10], epsilons=[1.0], d=2, noise_multipliers=[1.0], n_reps=1, rng=0)
    >>> out["noisy_ols"].shape, out["dp_gd"].shape
    ((1, 1, 1, 1), (1, 1, 1))
    """
    if min(ns) < d:
        raise ValueError(f"ns must all be >= d = {d} for OLS, got {min(ns)}")
    multipliers = noise_multipliers
    if min(multipliers) <= 0:
        raise ValueError(f"noise_multipliers must all be > 0, got {noise_multipliers!r}")
    # OLS costs n·d² per fit.
    n_reps = check_repetitions(n_reps, per_repetition=[("len(ns)", len(ns)), ("len(epsilons)", len(epsilons)),
                                                       ("ns", max(ns)), ("d^2", d * d)])
    noisy = np.full((len(multipliers), len(epsilons), len(ns), n_reps), np.nan)
    gd = np.full((len(epsilons), len(ns), n_reps), np.nan)
    plain = np.full((len(ns), n_reps), np.nan)
    for j, n in enumerate(progress(ns, "E6: n")):
        delta = default_delta(n)
        T = default_truncation(n)
        for rep in range(n_reps):
            X, y, beta = linear_regression_data(n, d, rng=rng)
            plain[j, rep] = _error(ols(X, y), beta)
            for i, eps in enumerate(epsilons):
                for k, c_w in enumerate(multipliers):
                    noisy[k, i, j, rep] = _error(noisy_ols(X, y, eps, delta, T, rng=rng, noise_multiplier=c_w), beta)
                gd[i, j, rep] = _error(dp_gradient_descent_ols(X, y, eps, delta, T, rng=rng), beta)
    return {"ns": np.array(ns), "epsilons": np.array(epsilons), "noise_multipliers": np.array(multipliers),
            "noisy_ols": noisy, "dp_gd": gd, "ols": plain, "d": d}


@validate_params({"sparsities": SIZES, "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "n_trials": FiniteInterval(Integral, 10, None, closed="left"), "confidence": OPEN_UNIT,
                  "rng": "random_state"})
def peeling_audit_experiment(sparsities, epsilon=1.0, delta=1e-3, n_trials=4_000, confidence=0.95, rng=None):
    """E7: audited lower bounds on ε for Peeling and for its forgotten-√s variant, against s.

    For each s the neighbours are v, v' in dimension 2s + 1 with |v_j| moving by exactly λ,
    up on a group A of s coordinates and down on a group B of s (the clipping-bound pair of
    the chapter); the mechanism's output is post-processed to the number of selections from
    A, and :func:`dpteach.audit.audit` picks the best event {count > k} on ``n_trials`` runs and
    certifies it on fresh ones. Returns a dict with ``"right"``, ``"broken"`` (lower bounds),
    ``"certified"`` (peeling_epsilon of the right one) and the AuditResults.

    Examples
    --------
    >>> out = peeling_audit_experiment(sparsities=[1], epsilon=1.0, delta=1e-3, n_trials=20, rng=0)
    >>> out["right"].shape, out["certified"].shape
    ((1,), (1,))
    """
    # Each audit releases n_trials vectors of 2s + 1 <= 3s coordinates at once.
    check_memory(("n_trials", n_trials), ("sparsities", max(sparsities)), itemsize=24)
    out = {"sparsities": np.array(sparsities), "right": [], "broken": [], "certified": [], "results": []}
    for s in progress(sparsities, "E7: s"):
        lam = 1.0
        v = np.r_[np.full(s, 10 + lam / 2), np.full(s, 10 - lam / 2), 0.0]
        v_prime = np.r_[np.full(s, 10 - lam / 2), np.full(s, 10 + lam / 2), 0.0]
        events = audit.threshold_events(np.arange(s) + 0.5)
        for key, fn in (("right", peel), ("broken", broken_peel_forgotten_sqrt_s)):
            def mechanism(vector, trials, generator, fn=fn, s=s):
                return np.count_nonzero(fn(vector, s, epsilon, delta, lam, rng=generator, size=trials)[:, :s], axis=1)
            result = audit.audit(mechanism, v, v_prime, events, n_trials, delta=delta, confidence=confidence,
                                 rng=rng)
            out[key].append(result.epsilon_lower)
            out["results"].append((key, s, result))
        out["certified"].append(peeling_epsilon(s, epsilon, delta))
    for key in ("right", "broken", "certified"):
        out[key] = np.array(out[key])
    return out


#: Largest sparsity :func:`peeling_accounting_sweep` accepts: the PLD calibration composes 2s steps, about 1 s each s.
MAX_ACCOUNTING_SPARSITY = 1000
#: The ε range of :func:`peeling_accounting_sweep` (stated limits of its PLD calibration).
MIN_ACCOUNTING_EPSILON, MAX_ACCOUNTING_EPSILON = 1e-3, 20.0
#: Most records (λ = 1/n) :func:`peeling_accounting_sweep` accepts, a stated limit.
MAX_ACCOUNTING_RECORDS = 10 ** 12


@validate_params({"sparsities": SIZES, "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "n": FiniteInterval(Integral, 1, MAX_ACCOUNTING_RECORDS, closed="both"), "d": POSITIVE_INT, "n_reps": REPS,
                  "rng": "random_state"})
def peeling_accounting_sweep(sparsities, epsilon=1.0, delta=1e-3, n=200, d=200, n_reps=400, rng=None):
    """Peeling's noise scale at one (ε, δ) by the composition theorems and by the tight (PLD) accountant (chapter 5).

    For each s: b = ``peeling_noise_scale(s, ε, δ, λ, calibrate)`` with ``"accountant"`` (the largest
    per-round ε_r that basic or advanced composition certifies) and ``"pld"`` (the largest ε_r whose
    optimal composition of the 2s pure steps, by privacy loss distributions, is ≤ ε; needs dp-accounting).
    The utility: Peeling (Algorithm 5.2) with each b on the mean of n records in [0, 1]^d whose first s
    coordinates are 1 and the others 0 (sensitivity λ = 1/n, replace-one), and the relative error
    ‖P_S(v + w) − v‖₂/‖v‖₂ of the release (1 is what releasing 0 achieves), averaged over ``n_reps`` releases.

    Parameters
    ----------
    sparsities : int or sequence of int, 1 <= s <= min(d, MAX_ACCOUNTING_SPARSITY)
    epsilon : float, 10⁻³ <= ε <= 20 (stated limits of the PLD calibration)
    delta : float, 0 < δ < 1
    n : int, 1 <= n <= MAX_ACCOUNTING_RECORDS (10¹²)
    d : int >= 1
    n_reps : int >= 1
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict with ``"sparsities"``, ``"scale_textbook"``, ``"scale_tight"`` (b/λ) and ``"error_textbook"``,
    ``"error_tight"`` (mean relative errors), arrays over the sparsities. Cost: about 1 s of PLD
    calibration per s, plus O(n_reps·s·d) draws.

    Raises
    ------
    TypeError, ValueError
        For sizes out of range, ε or δ out of range, a bad rng.
    ImportError
        Without dp-accounting (the tight accountant needs it).

    Examples
    --------
    >>> out = peeling_accounting_sweep(sparsities=[1], epsilon=1.0, delta=1e-3, n=10, d=3, n_reps=2, rng=0)
    >>> len(out["scale_tight"])
    1
    """
    if max(sparsities) > min(d, MAX_ACCOUNTING_SPARSITY):
        raise ValueError(f"sparsities must be at most min(d, MAX_ACCOUNTING_SPARSITY) = "
                         f"{min(d, MAX_ACCOUNTING_SPARSITY)}, got {max(sparsities)}")
    if not MIN_ACCOUNTING_EPSILON <= epsilon <= MAX_ACCOUNTING_EPSILON:
        raise ValueError(f"epsilon = {epsilon!r} is outside the stated range {MIN_ACCOUNTING_EPSILON} <= epsilon <= "
                         f"{MAX_ACCOUNTING_EPSILON} of this sweep (the PLD grid has width 1e-4, and its pure steps "
                         f"must stay <= 50)")
    n_reps = check_repetitions(n_reps, per_repetition=[("sum(sparsities)", sum(sparsities)), ("d", d)])
    check_memory(("n_reps", n_reps), ("d", d))
    out = {"sparsities": np.array(sparsities), "scale_textbook": [], "scale_tight": [], "error_textbook": [],
           "error_tight": []}
    for s in progress(sparsities, "Peeling accounting: s"):
        v = np.zeros(d)
        v[:s] = 1.0
        for name, calibrate in (("textbook", "accountant"), ("tight", "pld")):
            scale = peeling_noise_scale(s, epsilon, delta, 1.0 / n, calibrate)
            released = peel_rows(np.broadcast_to(v, (n_reps, d)), s, scale, rng)
            out["scale_" + name].append(scale * n)
            out["error_" + name].append(float(np.mean(np.linalg.norm(released - v, axis=1)) / math.sqrt(s)))
    return {key: np.array(value) if isinstance(value, list) else value for key, value in out.items()}


# (n, d) of the two halves of the tracing experiment (chapter 5's classical and sparse settings).
_TRACING_SIZES = {"classical": (40, 20), "sparse": (400, 200)}


def _tracing_setup(kind, epsilon, rng):
    """One half of the tracing experiment: (n, sample, {estimator: fn}, {statistic: fn}).

    ``kind="classical"``: d = 20, n = 40, a dense unit β (chapter 5's class P(σ, d)); OLS, noisy OLS
    and DP-GD, attacked with Lemma 19's statistic and the regression score statistic.
    ``kind="sparse"``: d = 200, s = 5, n = 400, an s-sparse unit β; the LASSO (penalty 0.02) and the
    private LASSO (ŝ = 10, N₀ = 2), attacked with Lemma 18's statistic (over the ŝ = 10 largest
    |M_j|, as printed and sign-weighted) and Lemma 19's. β is drawn once with chapter 5's
    generators; records come from ``dpteach.data.regression_records`` (the same Rademacher design
    and N(0, 1) noise), with the adversary's fresh response ỹ in the last column.
    """
    n, d = _TRACING_SIZES[kind]
    if kind == "classical":
        beta = linear_regression_data(1, d, rng=rng)[2]
    else:
        s = 5
        beta = sparse_regression_data(1, d, s, rng=rng)[2]
    sample = functools.partial(regression_records, beta=beta)
    delta, T = default_delta(n), default_truncation(n)
    every = regression_statistics(d, beta, 10)  # the sparse statistics over the ŝ = 10 largest |M_j|
    names = ("classical", "score") if kind == "classical" else ("classical", "sparse", "sparse_sign")
    statistics = {name: every[name] for name in names}
    if kind == "classical":
        estimators = {
            "OLS": per_trial(lambda X, y, g: ols(X, y), d),
            f"noisy OLS (ε = {epsilon:g})": per_trial(lambda X, y, g: noisy_ols(X, y, epsilon, delta, T, rng=g), d),
            f"DP-GD (ε = {epsilon:g})": per_trial(
                lambda X, y, g: dp_gradient_descent_ols(X, y, epsilon, delta, T, rng=g), d)}
    else:
        estimators = {
            "LASSO": per_trial(lambda X, y, g: lasso_ista(X, y, penalty=0.02), d),
            f"private LASSO (ε = {epsilon:g})": per_trial(
                lambda X, y, g: DPLasso(epsilon, delta, 10, n_iterations=2, random_state=g,
                                        calibrate="paper").fit(X, y).coef_, d)}
    return n, sample, estimators, statistics


@validate_params({"epsilon": Epsilon(), "n_reps": REPS, "rng": "random_state"})
def tracing_experiment(epsilon=1.0, n_reps=40, rng=None):
    """Chapter 4's tracing attacks run against OLS / LASSO and their private versions.

    Classical: d = 20, n = 40 (OLS overfits: leverage d/n = 1/2); sparse: d = 200, s = 5,
    n = 400 (the LASSO with the small penalty 0.02, so that it overfits; the private LASSO with
    ŝ = 10 and N₀ = 2 blocks, since 400 records leave little to split). The membership
    experiment, the statistics and the AUC are chapter 4's
    (:func:`dpteach.fingerprinting.membership_scores`, ``classical_regression_statistic``,
    ``sparse_regression_statistic``, ``regression_score_statistic``, ``auc``): per trial, n
    members and n fresh non-members are scored against the release, pooled over ``n_reps``
    trials. Every estimator and statistic of one half sees the same draws (one seed).

    Parameters
    ----------
    epsilon : float, 0 < ε < inf
    n_reps : int >= 1, trials (datasets) per estimator
    rng : None, int or Generator

    Returns
    -------
    dict {estimator name: {statistic: AUC}}, with statistics "classical" and "score" for
    OLS, noisy OLS and DP-GD, and "classical", "sparse", "sparse_sign" for the (private)
    LASSO; 0.5 means the attack learns nothing. Cost O(n_reps·(n·d² + d³)) per estimator.

    Examples
    --------
    >>> sorted(tracing_experiment(epsilon=1.0, n_reps=1, rng=0))
    ['DP-GD (ε = 1)', 'LASSO', 'OLS', 'noisy OLS (ε = 1)', 'private LASSO (ε = 1)']
    """
    # Each repetition scores 2n records of dimension d in both settings.
    entries = sum(2 * n * d for n, d in _TRACING_SIZES.values())
    n_reps = check_repetitions(n_reps, per_repetition=[("record entries per repetition", entries)])
    out = {}
    for kind in progress(("classical", "sparse"), "tracing"):
        n, sample, estimators, statistics = _tracing_setup(kind, epsilon, rng)
        seed = int(rng.integers(2 ** 63))
        for name, estimator in estimators.items():
            out[name] = {stat: fingerprinting.auc(*fingerprinting.membership_scores(sample, estimator, fn, n, n_reps,
                                                                                    rng=seed))
                         for stat, fn in statistics.items()}
    return out
