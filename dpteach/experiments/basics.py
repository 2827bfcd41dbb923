"""The runners behind chapter 1's figures (DP basics and the exponential mechanism)."""

from __future__ import annotations

import functools

import numpy as np

from .._validation import (as_rng, check_callable, check_epsilon, check_epsilon_sweep, check_int, check_memory,
                           check_real_array)
from ..audit import audit
from ._progress import check_repetitions
from .._progress import progress

__all__ = ["audit_sweep", "plug_in_log_ratios"]


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
