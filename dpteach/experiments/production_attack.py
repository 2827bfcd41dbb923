"""The runner behind appendix A's floating-point attack (Section A.3, "Why production libraries exist").

:func:`floating_point_attack` runs the distinguisher of :mod:`dpteach.float_attack`
(Algorithm A.3) against dpteach's Laplace mechanism and, with the same
distinguisher and the same certified audit, against OpenDP's and
diffprivlib's samplers (:func:`attack_samplers`). The analysis itself (which
doubles a sampler can output, the lattice table, the bound of Theorem A.1)
lives in the algorithm module :mod:`dpteach.float_attack`; this module only
draws releases and audits them, so it is the one that touches the optional
libraries (through :func:`dpteach.experiments.production.require_libraries`).
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from .._constraints import OPEN_UNIT, Check, Epsilon, FiniteInterval, OrNone, validate_params
from .._progress import progress
from ..audit import epsilon_lower_bound
from ..float_attack import max_guess_success, reachable_outputs, support_attack
from ..mechanisms import laplace_mechanism
from .production import SAMPLES, diffprivlib_seed, require_libraries

__all__ = ["attack_samplers", "floating_point_attack"]


def attack_samplers():
    """The Laplace samplers the attack is run against: name → ``sample(value, sensitivity, epsilon, n, rng)``.

    - "dpteach": :func:`dpteach.mechanisms.laplace_mechanism` (numpy's
      floating-point sampler);
    - "OpenDP": ``make_laplace`` on floats (exact discrete Laplace on a
      2⁻¹⁰⁷⁴ grid, then rounded), if installed;
    - "diffprivlib": ``Laplace`` (four uniforms per draw, Holohan & Braghin
      2021), if installed.

    Examples
    --------
    >>> sorted(attack_samplers())
    ['OpenDP', 'diffprivlib', 'dpteach']
    """
    def ours(value, sensitivity, epsilon, n_samples, rng):
        return laplace_mechanism(np.full(n_samples, value), sensitivity, epsilon, rng)

    samplers = {"dpteach": ours}
    try:
        dp, dpl = require_libraries()
    except ImportError:
        return samplers

    def opendp_sampler(value, sensitivity, epsilon, n_samples, rng):
        measurement = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                                        dp.l1_distance(T=float), scale=sensitivity / epsilon)
        return np.asarray(measurement([float(value)] * n_samples))

    def diffprivlib_sampler(value, sensitivity, epsilon, n_samples, rng):
        mechanism = dpl.mechanisms.Laplace(epsilon=epsilon, sensitivity=sensitivity, random_state=diffprivlib_seed(rng))
        return np.array([mechanism.randomise(float(value)) for _ in range(n_samples)])

    return {**samplers, "OpenDP": opendp_sampler, "diffprivlib": diffprivlib_sampler}


def _check_samplers(samplers, name):
    """A non-empty dict of name → sampler callable, or a TypeError naming ``name``."""
    if not isinstance(samplers, dict) or not samplers or not all(callable(s) for s in samplers.values()):
        raise TypeError(f"{name} must be a non-empty dict of name → callable, got {samplers!r}")
    return samplers


_ANSWER = FiniteInterval(Real, None, None)


# It runs the caller's samplers (a student's, perhaps): the routines they call check their own arguments
# (skip_nested=False), as if called from the top.
# Check: samplers is a non-empty dict of name → callable (no class checks a mapping's values)
@validate_params({"epsilon": Epsilon(), "n_trials": SAMPLES, "value0": _ANSWER, "value1": _ANSWER,
                  "samplers": OrNone(Check(_check_samplers, invalid=[({}, "{}"), ({"x": 1}, "{'x': 1}")])),
                  "confidence": OPEN_UNIT, "rng": "random_state"}, skip_nested=False)
def floating_point_attack(epsilon, n_trials, value0=0.0, value1=1.0, samplers=None, confidence=0.95, rng=None):
    """Run the support attack (Algorithm A.3) against each sampler and audit it (appendix A).

    For each sampler: ``n_trials`` releases of ``value0`` and of ``value1``
    (neighbouring counts, sensitivity |value1 − value0|, scale
    |value1 − value0|/ε), the distinguisher's success rate with a balanced
    prior and its Hoeffding confidence interval, the ε-DP bound of
    Theorem A.1, and the certified ε lower bound of
    :func:`dpteach.audit.epsilon_lower_bound` for the fixed event "the output
    is reachable from ``value0``".

    Parameters
    ----------
    epsilon : float, 0 < ε < inf
        The ε each sampler claims.
    n_trials : int, 1 <= n_trials <= MAX_SAMPLES (10⁶)
        Releases per hypothesis (diffprivlib's sampler draws one per Python call).
    value0, value1 : float
        The neighbouring answers (finite, different).
    samplers : None or dict
        name → ``sample(value, sensitivity, epsilon, n, rng)``; None uses :func:`attack_samplers`.
    confidence : float in (0, 1)
        For the success interval and the audit.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict
        name → dict with ``success``, ``success_low``, ``success_high``,
        ``bound`` (e^ε/(1 + e^ε)), ``reach_0`` and ``reach_1`` (the fraction of
        releases of value0 / value1 reachable from value0) and ``audit``
        (an :class:`~dpteach.audit.AuditResult`). Cost O(n_trials) per sampler.

    Examples
    --------
    >>> result = floating_point_attack(epsilon=1.0, n_trials=20, value0=0.0, value1=1.0, confidence=0.9, rng=0)
    >>> sorted(result), round(result["dpteach"]["bound"], 4)
    (['OpenDP', 'diffprivlib', 'dpteach'], 0.7311)
    """
    if value0 == value1:
        raise ValueError(f"value0 and value1 must differ (two neighbouring answers), got {value0!r} twice")
    if samplers is None:
        samplers = attack_samplers()
    sensitivity = abs(value1 - value0)
    # The attacker recomputes the scale exactly as laplace_mechanism does.
    scale = sensitivity / epsilon
    # Hoeffding: the success is a mean of 2·n_trials scores in [0, 1].
    half_width = math.sqrt(math.log(2 / (1 - confidence)) / (4 * n_trials))
    results = {}
    for name, sample in progress(list(samplers.items()), "samplers"):
        out0 = sample(value0, sensitivity, epsilon, n_trials, rng)
        out1 = sample(value1, sensitivity, epsilon, n_trials, rng)
        success = 0.5 * (np.mean(1 - support_attack(out0, value0, value1, scale))
                         + np.mean(support_attack(out1, value0, value1, scale)))

        def mechanism(value, n, generator, _sample=sample):
            return _sample(value, sensitivity, epsilon, n, generator)

        def reachable_from_value0(outputs):
            return reachable_outputs(outputs, value0, scale)

        audit_result = epsilon_lower_bound(mechanism, value0, value1, reachable_from_value0, n_trials,
                                           confidence=confidence, rng=rng)
        results[name] = {"success": float(success), "success_low": float(max(0.0, success - half_width)),
                         "success_high": float(min(1.0, success + half_width)),
                         "bound": max_guess_success(epsilon),
                         "reach_0": float(np.mean(reachable_outputs(out0, value0, scale))),
                         "reach_1": float(np.mean(reachable_outputs(out1, value0, scale))),
                         "audit": audit_result}
    return results
