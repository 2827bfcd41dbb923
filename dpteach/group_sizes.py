"""How many users one simulated statistical query needs (chapter 3, Theorem 3.9 "One simulated query").

Algorithm 3.8 (SQ → local simulation) answers each query (φ, τ) by the average of the
randomized reports of a fresh group of m users. This module computes that m:
:func:`group_size` gives, under a rule, the m for which one simulated answer is within τ
of E_P φ with probability at least 1 − β (the rule ``"theorem"`` is Theorem 3.9's bound:
Hoeffding for the data plus a Chernoff bound for the Laplace noise, or Hoeffding for the
one-bit randomizer), and :func:`tolerance_for_group` inverts it. ``GROUP_SIZE_RULES``
lists the rules. :mod:`dpteach.local` runs the simulation with these sizes and
re-exports every name here (``from dpteach.local import group_size`` keeps working).

Privacy: these are public functions of (ε, τ, β); they read no data.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ._constraints import Epsilon, FiniteInterval, OPEN_UNIT, Options, OrNone, POSITIVE_INT, Real, validate_params
from ._validation import check_choice
from .randomizers import default_randomizer, onebit_constant_prechecked

__all__ = ["GROUP_SIZE_RULES", "MAX_GROUP_SIZE", "group_size", "tolerance_for_group"]


#: The rules of :func:`group_size`; "theorem" is the one proved in the chapter.
GROUP_SIZE_RULES = ("theorem", "slide", "rr", "clt")
RANDOMIZERS = ("laplace", "onebit")

# The contract shared by group_size, tolerance_for_group and their callers in dpteach.local.
RULE_CONSTRAINTS = {"rule": Options(GROUP_SIZE_RULES), "randomizer": OrNone(Options(RANDOMIZERS))}
UNIT = OPEN_UNIT
UNIT_CLOSED = FiniteInterval(Real, 0, 1, closed="both")


def check_rule_randomizer(rule, randomizer):
    """Validate the rule and the randomizer it is stated for; return the randomizer's name."""
    check_choice(rule, "rule", GROUP_SIZE_RULES)
    randomizer = default_randomizer(rule) if randomizer is None else randomizer
    check_choice(randomizer, "randomizer", RANDOMIZERS)
    return _resolve_randomizer(rule, randomizer)


def _resolve_randomizer(rule, randomizer):
    """The randomizer's name for ``rule`` (None: the rule's default); refuses a rule stated for the other one.

    A joint rule on two declared parameters (each checked by its own constraint), so it runs in the body.
    """
    if randomizer is None:
        randomizer = default_randomizer(rule)
    if rule == "slide" and randomizer != "laplace":
        raise ValueError("rule 'slide' is the slides' bound for the Laplace randomizer; "
                         f"use randomizer='laplace', got randomizer={randomizer!r}")
    if rule == "rr" and randomizer != "onebit":
        raise ValueError("rule 'rr' is Hoeffding's bound for the one-bit (randomized-response) "
                         f"randomizer; use randomizer='onebit', got randomizer={randomizer!r}")
    return randomizer


def _laplace_theorem_size(epsilon, tau, beta):
    """Real-valued m of Theorem 3.9 for the Laplace randomizer (before rounding up)."""
    log_term = math.log(4 / beta)
    hoeffding = 8 * log_term / tau ** 2
    # The Chernoff bound on the Laplace average needs t = τ/2 <= 2√2·b (b = 2/ε), i.e.
    # ετ <= 8√2; beyond it the bound with s = 1/(√2 b) gives m >= 8√2 ln(4/β)/(ετ).
    if epsilon * tau <= 8 * math.sqrt(2):
        noise = 128 * log_term / (epsilon * tau) ** 2
    else:
        noise = 8 * math.sqrt(2) * log_term / (epsilon * tau)
    return max(hoeffding, noise)


def _slide_failure(m, epsilon, tau):
    return 2 * math.exp(-tau ** 2 * m / 8) + math.exp(-(epsilon * tau) ** 2 * m / 64)


@validate_params({"epsilon": Epsilon(), "tau": UNIT, "beta": UNIT, **RULE_CONSTRAINTS, "var_phi": UNIT_CLOSED})
def group_size(epsilon, tau, beta, rule="theorem", randomizer=None, var_phi=1.0):
    """Users m per query so that one simulated answer is within τ w.p. >= 1 − β (chapter 3, Theorem 3.9).

    Rules (c = (e^ε + 1)/(e^ε − 1), z = Φ⁻¹(1 − β/2)):

    * ``"theorem"`` (default; proved in the chapter, the group size of Theorem 3.9):
      Laplace randomizer: the smallest m for which Hoeffding's bound for the data
      and the Chernoff bound for the Laplace average together give failure ≤ β
      (Theorem 3.9 states it; Lab 3's Task 2 asks for it, so it is not spelled
      out here); one-bit randomizer: the ``"rr"`` bound below, also a theorem.
    * ``"slide"``: the smallest m with 2e^{−τ²m/8} + e^{−ε²τ²m/64} <= β, the
      slides' tail constants in our reading of a garbled line (Laplace only).
    * ``"rr"``: Hoeffding on the one-bit outputs in [−c, c]: m = ⌈2c² ln(2/β)/τ²⌉.
    * ``"clt"``: the normal approximation m = ⌈z² v/τ²⌉ with
      v = var_phi + 8/ε² (Laplace) or v = c² (one-bit). Not a guarantee:
      about β failures, not at most β.

    Parameters
    ----------
    epsilon : float
        0 < ε < inf.
    tau : float
        Tolerance, 0 < τ < 1.
    beta : float
        Failure probability of this one query, 0 < β < 1.
    rule : {"theorem", "slide", "rr", "clt"}
    randomizer : {"laplace", "onebit"} or None
        None: "onebit" for rule "rr", else "laplace".
    var_phi : float
        Upper bound on Var φ(z) in [0, 1] (rule "clt" with Laplace only).

    Returns
    -------
    int
        m >= 1. Cost O(1) (O(log m) for "slide", found by bisection).

    Raises
    ------
    ValueError
        ε, τ, β, var_phi out of range; unknown rule; rule/randomizer mismatch;
        a group larger than ``MAX_GROUP_SIZE`` = 2^62 users (e.g. ε = 1e-300).

    Examples
    --------
    >>> group_size(epsilon=1.0, tau=0.2, beta=0.05)
    14023
    """
    randomizer = _resolve_randomizer(rule, randomizer)
    return group_size_prechecked(epsilon, tau, beta, rule, randomizer, var_phi)


#: Largest group size :func:`group_size` returns (2^62 users); beyond it the inputs are refused by name.
MAX_GROUP_SIZE = 2 ** 62


def group_size_prechecked(epsilon, tau, beta, rule, randomizer, var_phi=1.0):
    """:func:`group_size` on validated inputs (the simulation calls it once per query)."""
    try:
        with np.errstate(over="raise", divide="raise"):
            size = _group_size_unchecked(epsilon, tau, beta, rule, randomizer, var_phi)
    except (OverflowError, ZeroDivisionError, FloatingPointError):
        size = math.inf
    if not size <= MAX_GROUP_SIZE:
        raise ValueError(f"the group size at epsilon = {epsilon!r}, tau = {tau!r}, beta = {beta!r} exceeds the "
                         f"limit {MAX_GROUP_SIZE:.3g} users (2^62): epsilon·tau is too small to be simulated "
                         f"(the size grows like 1/(epsilon·tau)^2)")
    return int(size)


def _group_size_unchecked(epsilon, tau, beta, rule, randomizer, var_phi=1.0):
    c = onebit_constant_prechecked(epsilon)
    if rule == "slide":
        high = max(8 * math.log(4 / beta) / tau ** 2, 64 * math.log(2 / beta) / (epsilon * tau) ** 2)
        if not high <= MAX_GROUP_SIZE:
            return math.inf
        low, high = 0, max(1, math.ceil(high))  # each term <= β/2 at `high`
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (low, mid) if _slide_failure(mid, epsilon, tau) <= beta else (mid, high)
        return int(high)
    if rule == "clt":
        z = float(stats.norm.isf(beta / 2))
        variance = var_phi + 8 / epsilon ** 2 if randomizer == "laplace" else c ** 2
        size = z ** 2 * variance / tau ** 2
    elif randomizer == "onebit":  # "theorem" or "rr"
        size = 2 * c ** 2 * math.log(2 / beta) / tau ** 2
    else:
        size = _laplace_theorem_size(epsilon, tau, beta)
    if not math.isfinite(size):
        return math.inf
    return max(1, math.ceil(size))


@validate_params({"m": POSITIVE_INT, "epsilon": Epsilon(), "beta": UNIT,
                  **RULE_CONSTRAINTS, "var_phi": UNIT_CLOSED})
def tolerance_for_group(epsilon, m, beta, rule="theorem", randomizer=None, var_phi=1.0):
    """The smallest tolerance τ that m users guarantee under ``rule`` (inverse of :func:`group_size`).

    Returns τ such that ``group_size(epsilon, τ, beta, rule, randomizer) <= m``
    whenever τ < 1. The value may be >= 1: then m users guarantee nothing
    useful (every answer in [−1, 1] is within 1 of the truth). Cost O(1)
    (bisection for "slide").

    Raises
    ------
    ValueError
        As :func:`group_size`, and for m < 1.

    Examples
    --------
    >>> round(tolerance_for_group(epsilon=1.0, m=100, beta=0.05), 4)
    2.3683
    """
    randomizer = _resolve_randomizer(rule, randomizer)
    return tolerance_for_group_prechecked(epsilon, m, beta, rule, randomizer, var_phi)


def tolerance_for_group_prechecked(epsilon, m, beta, rule, randomizer, var_phi=1.0):
    """:func:`tolerance_for_group` on validated inputs (inf when ε is so small that nothing is guaranteed)."""
    try:
        return _tolerance_for_group_unchecked(epsilon, m, beta, rule, randomizer, var_phi)
    except (OverflowError, ZeroDivisionError):
        return math.inf


def _tolerance_for_group_unchecked(epsilon, m, beta, rule, randomizer, var_phi=1.0):
    c = onebit_constant_prechecked(epsilon)
    if rule == "slide":
        low, high = 1e-12, 1.0
        while _slide_failure(m, epsilon, high) > beta:
            high *= 2
            if high > 1e300:
                return math.inf
        for _ in range(200):
            mid = 0.5 * (low + high)
            low, high = (low, mid) if _slide_failure(m, epsilon, mid) <= beta else (mid, high)
        tau = high
    elif rule == "clt":
        variance = var_phi + 8 / epsilon ** 2 if randomizer == "laplace" else c ** 2
        tau = float(stats.norm.isf(beta / 2)) * math.sqrt(variance / m)
    elif randomizer == "onebit":
        tau = math.sqrt(2 * c ** 2 * math.log(2 / beta) / m)
    else:
        log_term = math.log(4 / beta)
        hoeffding = math.sqrt(8 * log_term / m)
        if m >= log_term:  # the ετ <= 8√2 branch of _laplace_theorem_size
            noise = math.sqrt(128 * log_term / m) / epsilon
        else:
            noise = 8 * math.sqrt(2) * log_term / (epsilon * m)
        tau = max(hoeffding, noise)
    return tau * (1 + 1e-12)  # absorb rounding so that group_size(τ) <= m
