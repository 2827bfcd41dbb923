"""The runners behind chapter 1's figures (DP basics and the exponential mechanism)."""

from __future__ import annotations

import functools
import math

import numpy as np

from .._constraints import (POSITIVE_INT, Check, Count, Delta, Epsilon, Integral, FiniteInterval, Unchecked,
                            validate_params)
from .._array_constraints import Array, Callable, Sweep
from .._validation import check_memory, check_work
from ..audit import audit
from ..composition import advanced_composition_epsilon_per_step
from ..mechanisms import gaussian_sigma
from ._progress import EPSILONS, REPETITIONS
from .._progress import progress

__all__ = ["audit_sweep", "plug_in_log_ratios", "composition_noise_sweep"]

#: Most composed steps :func:`composition_noise_sweep` accepts (the textbook calibration is one root finding).
MAX_COMPOSED_STEPS = 10 ** 6
#: Most records :func:`composition_noise_sweep` accepts (a stated limit; the counts are drawn, not stored).
MAX_RECORDS = 10 ** 12


def _check_setups(setups, name):
    """A non-empty dict name -> (mechanism, dataset, neighbour, events); each audit checks its own entries."""
    if not isinstance(setups, dict) or not setups:
        raise TypeError(f"{name} must be a non-empty dict name -> (mechanism, dataset, neighbour, events), "
                        f"got {type(setups).__name__}")
    return setups


# The audits run the caller's mechanisms (a student's, perhaps): the routines those call check their own
# arguments (skip_nested=False), as if called from the top.
@validate_params({"n_trials": REPETITIONS, "claimed_epsilons": EPSILONS,
                  # Check: a non-empty dict of audit setups; InstanceOf(dict) would let {} through
                  "setups": Check(_check_setups, invalid=[({}, "{}"), (None, "None"), ([1], "[1]")]),
                  "rng": "random_state"}, skip_nested=False)
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

    Examples
    --------
    >>> from dpteach.audit import threshold_events
    >>> def laplace(data, n_trials, rng, epsilon):
    ...     return float(np.sum(data)) + rng.laplace(0.0, 1.0 / epsilon, size=n_trials)
    >>> setups = {"laplace": (laplace, np.zeros(2), np.array([0.0, 1.0]), threshold_events([0.5]))}
    >>> results = audit_sweep(setups=setups, claimed_epsilons=[1.0], n_trials=20, rng=0)
    >>> [result.epsilon_lower <= 1.0 for result in results["laplace"]]
    [True]
    """
    results = {name: [] for name in setups}
    for epsilon in progress(claimed_epsilons, "audits"):
        for name, (mechanism, data, neighbour, events) in setups.items():
            results[name].append(audit(functools.partial(mechanism, epsilon=epsilon), data, neighbour, events,
                                       n_trials, rng=rng))
    return results


_DATA = Unchecked("the mechanism's input, whatever it accepts: the runner only passes it on")


@validate_params({"n_runs": POSITIVE_INT,
                  "mechanism": Callable("mechanism(data, n_runs, rng, epsilon) -> n_runs outputs"),
                  "epsilon": Epsilon(), "min_count": FiniteInterval(Integral, 0, None, closed="left"), "rng": "random_state",
                  "thresholds": Array(ndim=(0, 1)), "dataset": _DATA, "neighbour": _DATA}, skip_nested=False)
def plug_in_log_ratios(mechanism, dataset, neighbour, epsilon, thresholds, n_runs, min_count=400, rng=None):
    """Plug-in estimates of ln(P[Y > t | D′] / P[Y > t | D]) over thresholds t, from fresh runs.

    Thresholds where either survival count is below ``min_count`` runs are
    returned as NaN: too few runs to estimate a ratio.

    Returns
    -------
    ndarray, shape (len(thresholds),)

    Examples
    --------
    >>> def laplace(data, n_runs, rng, epsilon):
    ...     return float(np.sum(data)) + rng.laplace(0.0, 1.0 / epsilon, size=n_runs)
    >>> plug_in_log_ratios(mechanism=laplace, dataset=np.zeros(2), neighbour=np.array([0.0, 1.0]), epsilon=1.0,
    ...                    thresholds=[0.0, 0.5], n_runs=50, min_count=5, rng=0).round(3)
    array([0.37 , 0.903])
    """
    check_memory(("n_runs", n_runs))  # the mechanism returns n_runs outputs at once

    def survival(data):
        outputs = np.sort(mechanism(data, n_runs, rng, epsilon))
        return n_runs - np.searchsorted(outputs, thresholds, side="right")

    above_d, above_neighbour = survival(dataset), survival(neighbour)
    enough = np.minimum(above_d, above_neighbour) >= min_count
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(enough, np.log(above_neighbour / above_d), np.nan)


@validate_params({"ks": Sweep(Count(1, MAX_COMPOSED_STEPS)),
                  "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "n": FiniteInterval(Integral, 1, MAX_RECORDS, closed="both"), "n_reps": POSITIVE_INT,
                  "rng": "random_state"})
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

    Examples
    --------
    >>> out = composition_noise_sweep(ks=[1, 3], epsilon=1.0, delta=1e-5, n=10, n_reps=2, rng=0)
    >>> out["sigma_tight"].round(3)
    array([3.731, 6.462])
    """
    # n_reps times the work of one repetition (Σ k draws): a limit on the two together, checked here.
    check_work(("n_reps", n_reps), ("sum(ks)", sum(ks)))
    check_memory(("n_reps", n_reps))
    check_memory(("n_reps", n_reps), ("max(ks)", max(ks)))
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
