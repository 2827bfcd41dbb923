"""The runners behind chapter 1's figures (DP basics and the exponential mechanism)."""

from __future__ import annotations

import functools
import math

import numpy as np

from .._validation import (as_rng, check_callable, check_delta, check_epsilon, check_epsilon_sweep, check_int,
                           check_memory, check_real_array, check_sizes)
from ..audit import audit
from ..composition import advanced_composition_epsilon_per_step
from ..mechanisms import gaussian_sigma
from ._progress import check_repetitions
from .._progress import progress

__all__ = ["audit_sweep", "plug_in_log_ratios", "composition_noise_sweep"]

#: Most composed steps :func:`composition_noise_sweep` accepts (the textbook calibration is one root finding).
MAX_COMPOSED_STEPS = 10 ** 6
#: Most records :func:`composition_noise_sweep` accepts (a stated limit; the counts are drawn, not stored).
MAX_RECORDS = 10 ** 12


def audit_sweep(setups, claimed_epsilons, n_trials, rng=None):
    """Audit each mechanism at each claimed ε (chapter 1, the audit figure).

    Parameters
    ----------
    setups : dict
        name → (mechanism, dataset, neighbour, events), where
        ``mechanism(data, n_trials, rng, epsilon)`` runs ``n_trials`` times
        (vectorised) and ``events`` is a list for :func:`dpteach.audit.audit`.
    claimed_epsilons : sequence of float
        The ε each mechanism claims; the mechanism is called with it.
    n_trials : int, >= 1
        Runs per dataset and audit.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict
        name → list of :class:`dpteach.audit.AuditResult`, one per claimed ε.
    """
    n_trials = check_repetitions(n_trials, "n_trials")
    claimed_epsilons = check_epsilon_sweep(claimed_epsilons, "claimed_epsilons")
    if not isinstance(setups, dict) or not setups:
        raise TypeError(f"setups must be a non-empty dict name -> (mechanism, dataset, neighbour, events), "
                        f"got {type(setups).__name__}")
    rng = as_rng(rng)
    results = {name: [] for name in setups}
    for epsilon in progress(claimed_epsilons, "audits"):
        for name, (mechanism, data, neighbour, events) in setups.items():
            results[name].append(audit(functools.partial(mechanism, epsilon=epsilon), data, neighbour, events,
                                       n_trials, rng=rng))
    return results


def plug_in_log_ratios(mechanism, dataset, neighbour, epsilon, thresholds, n_runs, min_count=400, rng=None):
    """Plug-in estimates of ln(P[Y > t | D′] / P[Y > t | D]) over thresholds t, from fresh runs.

    Thresholds where either survival count is below ``min_count`` runs are
    returned as NaN: too few runs to estimate a ratio.

    Returns
    -------
    ndarray, shape (len(thresholds),)
    """
    n_runs = check_int(n_runs, "n_runs", minimum=1)
    check_callable(mechanism, "mechanism", "mechanism(data, n_runs, rng, epsilon) -> n_runs outputs")
    check_memory(("n_runs", n_runs))  # the mechanism returns n_runs outputs at once
    epsilon = check_epsilon(epsilon)
    min_count = check_int(min_count, "min_count", minimum=0)
    rng = as_rng(rng)
    thresholds = check_real_array(thresholds, "thresholds", ndim=(0, 1))

    def survival(data):
        outputs = np.sort(mechanism(data, n_runs, rng, epsilon))
        return n_runs - np.searchsorted(outputs, thresholds, side="right")

    above_d, above_neighbour = survival(dataset), survival(neighbour)
    enough = np.minimum(above_d, above_neighbour) >= min_count
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(enough, np.log(above_neighbour / above_d), np.nan)


def composition_noise_sweep(ks, epsilon=1.0, delta=1e-5, n=1000, n_reps=1000, rng=None):
    """Noise needed for k Gaussian counting queries at a total (ε, δ): textbook composition against exact (chapter 1).

    k counting queries (each of ℓ₂ sensitivity 1, replace-one) on n records are answered with the Gaussian
    mechanism, all at one total budget (ε, δ):

    * textbook: each query is (ε₀, δ/(2k))-DP with σ = ``gaussian_sigma(1, ε₀, δ/(2k))`` (the analytic
      calibration), ε₀ the largest per-step ε that basic or advanced composition (Theorems 1.16–1.17, slack
      δ' = δ/2) keeps within ε (``advanced_composition_epsilon_per_step``);
    * tight: k Gaussian mechanisms of sensitivity 1 and noise σ compose *exactly* into one of sensitivity √k
      (Gaussian differential privacy; Dong, Roth & Su 2022, Cor. 3.3), so σ = ``gaussian_sigma(√k, ε, δ)``
      is the smallest σ with which the k answers are (ε, δ)-DP (what ``composition.pld_epsilon`` confirms
      numerically).

    The utility: the root-mean-square error of the k released fractions (count + noise)/n on a random
    dataset of n bits, over ``n_reps`` repetitions of the k answers (measured, not computed).

    Parameters
    ----------
    ks : int or sequence of int, 1 <= k <= MAX_COMPOSED_STEPS (10⁶)
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    n : int, 1 <= n <= MAX_RECORDS (10¹²)
    n_reps : int >= 1
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict with ``"ks"``, ``"sigma_textbook"``, ``"sigma_tight"`` (per query, in counts) and ``"rmse_textbook"``,
    ``"rmse_tight"`` (of the fractions), arrays over ks. Cost O(Σk·n_reps) draws and one root finding per k.

    Raises
    ------
    TypeError, ValueError
        For a k, n or n_reps out of range, ε or δ out of range, a bad rng.
    """
    ks = check_sizes(ks, "ks")
    if max(ks) > MAX_COMPOSED_STEPS:
        raise ValueError(f"ks must be at most MAX_COMPOSED_STEPS = {MAX_COMPOSED_STEPS}, got {max(ks)}")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    n = check_int(n, "n", minimum=1, maximum=MAX_RECORDS)
    n_reps = check_repetitions(n_reps, per_repetition=[("sum(ks)", sum(ks))])
    check_memory(("n_reps", n_reps), ("max(ks)", max(ks)))
    rng = as_rng(rng)
    out = {"ks": np.array(ks), "sigma_textbook": [], "sigma_tight": [], "rmse_textbook": [], "rmse_tight": []}
    for k in ks:
        per_step = advanced_composition_epsilon_per_step(epsilon, k, delta / 2)
        sigmas = {"textbook": gaussian_sigma(1.0, per_step, delta / (2 * k)),
                  "tight": gaussian_sigma(math.sqrt(k), epsilon, delta)}
        counts = rng.binomial(n, 0.5, size=k).astype(float)  # the k true counts of a random dataset
        for name, sigma in sigmas.items():
            released = counts + sigma * rng.standard_normal((n_reps, k))
            out["sigma_" + name].append(sigma)
            out["rmse_" + name].append(float(np.sqrt(np.mean(((released - counts) / n) ** 2))))
    return {key: np.array(value) if isinstance(value, list) else value for key, value in out.items()}
