"""Local differential privacy and statistical queries (chapter 3; Kasiviswanathan et al. 2011).

Read top to bottom, this module follows the chapter (book/03_local_sq.ipynb):

1. ε-local randomizers (def-local-randomizer): randomized response on bits,
   the Laplace randomizer R_φ(z) = φ(z) + Lap(2/ε) for a query φ: Z → [−1, 1],
   and the one-bit randomizer [−1, 1] → {±c}; each with an unbiased estimate
   and its exact output law (thm-randomizers-private).
2. Statistical queries (def-sq-oracle): :class:`ExactSQOracle` (exact
   expectation under a known finite distribution, or the empirical mean of a
   sample) and :class:`NoisySQOracle`, which answers anywhere within ±τ —
   at random or adversarially, so that SQ algorithms are tested against the
   worst case the definition allows.
3. SQ → local (alg-sq-to-local, thm-one-query, thm-sq-to-local): answer every
   query by a fresh, disjoint group of m users (:func:`group_size`), keep a
   per-user privacy ledger, and bound the failure probability by the union
   bound (:class:`LocalSimulatedSQOracle`, :func:`simulate_sq_locally`).
4. Local → SQ (alg-local-to-sq, thm-local-to-sq; a reconstruction, the slides
   do not contain it): rejection sampling (:func:`simulate_local_with_sq`).
5. Example SQ algorithms, each written against ``oracle.query(phi, tau)`` /
   ``oracle.query_batch([(phi, tau), ...])`` so that the same code runs on an
   exact, a noisy, an adversarial and a locally simulated oracle: mean
   estimation, thresholds by grid (non-adaptive) and by binary search
   (adaptive), halfspaces by averaging and by SQ gradient descent, and the
   masked-parity learners that separate interactive from non-interactive
   local learning.
6. Experiment runners used by the chapter's figures.

Conventions. A *record* (one user's data) is a row of a 2-D array; a query
``phi`` is a vectorised callable mapping an (m, p) array of records to m
values in [−1, 1]. Tolerances τ refer to these [−1, 1]-valued queries; a
{0, 1}-valued indicator 1{·} is asked as 2·1{·} − 1 with twice the tolerance.

Inner products in the per-query hot paths use ``np.einsum`` rather than
``@``: a multithreaded BLAS can take milliseconds to wake its threads for a
vector product on a busy 2-core machine, and these run thousands of times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

from ._validation import (as_rng, check_bits, check_choice, check_epsilon, check_finite_array,
                          check_int, check_labels, check_positive, check_probability,
                          check_same_length)
from .composition import parallel_composition
from .mechanisms import laplace_mechanism, randomized_response

__all__ = [
    # randomizers
    "LocalRandomizer", "RandomizedResponse", "LaplaceRandomizer", "OneBitRandomizer",
    "HalfNoiseLaplaceRandomizer",
    "make_randomizer", "debias_randomized_response",
    # group sizes
    "GROUP_SIZE_RULES", "group_size", "tolerance_for_group",
    # oracles
    "SQOracle", "ExactSQOracle", "NoisySQOracle", "ADVERSARIAL_STRATEGIES",
    "LocalSimulatedSQOracle", "ReusingLocalSQOracle", "FastLocalSQOracle",
    "NotEnoughUsersError", "PrivacyLedgerError", "QueryBudgetError",
    # SQ -> local
    "QueryPlan", "query_plan", "users_needed", "LocalRun", "simulate_sq_locally",
    "sample_group_averages",
    # local -> SQ
    "RejectionSamples", "simulate_local_with_sq", "rejection_output_law",
    "worst_case_rejection_tv",
    # SQ algorithms
    "records", "sq_mean", "sq_threshold_grid", "sq_threshold_binary_search",
    "sq_averaging_halfspace", "sq_gd_logistic", "masked_parity_interactive",
    "masked_parity_bruteforce", "smallest_feasible_alpha", "masked_parity_users",
    # estimators
    "LocalThresholdLearner", "LocalHalfspaceLearner",
    # experiments
    "mean_estimation_experiment", "group_size_validity_experiment", "threshold_experiment",
    "halfspace_experiment", "masked_parity_experiment",
]


# =============================================================================
# 1. Local randomizers (def-local-randomizer, thm-randomizers-private)
# =============================================================================


def _check_unit_interval_values(values, name="values"):
    """Return ``values`` as a float array after checking every entry is finite and in [−1, 1]."""
    arr = check_finite_array(values, name, ndim=None)
    if np.any(np.abs(arr) > 1):
        bad = arr[np.abs(arr) > 1].ravel()[0]
        raise ValueError(f"{name} must lie in [-1, 1] (a query φ: Z → [-1, 1]), found {bad!r}")
    return arr


class LocalRandomizer:
    """An ε-local randomizer R (def-local-randomizer): ε-DP on a database of one record.

    For all inputs u, u' and outputs w: Pr[R(u) = w] <= e^ε Pr[R(u') = w]
    (densities for continuous outputs). Subclasses provide

    * ``randomize(values, rng)`` — apply R independently to every entry;
    * ``estimate(outputs)`` — an unbiased per-user estimate of the input
      (its average over users is unbiased for the population mean);
    * ``probability(outputs, values)`` — the exact pmf/density Pr[R(value) = output];
    * ``variance_bound`` — the largest per-user variance of ``estimate`` over
      every input law (used by the CLT group-size rule and the theory curves).
    """

    name = "randomizer"

    def __init__(self, epsilon):
        self.epsilon = check_epsilon(epsilon)

    def randomize(self, values, rng=None):  # pragma: no cover - abstract
        raise NotImplementedError

    def estimate(self, outputs):
        """The unbiased estimate of each user's input; the identity unless overridden."""
        return np.asarray(outputs, dtype=float)

    def probability(self, outputs, values):  # pragma: no cover - abstract
        raise NotImplementedError

    def as_audit_mechanism(self):
        """The vectorised form ``mechanism(value, n_trials, rng)`` that :mod:`dpteach.audit` expects.

        Runs the randomizer ``n_trials`` times on the one-record database ``value``.
        """
        def mechanism(value, n_trials, rng):
            return self.randomize(np.full(n_trials, value), rng)
        mechanism.__name__ = type(self).__name__
        return mechanism

    def __repr__(self):
        return f"{type(self).__name__}(epsilon={self.epsilon:g})"


class RandomizedResponse(LocalRandomizer):
    """Warner's randomized response on bits (chapter 3, eq-rr): keep w.p. e^ε/(1+e^ε), else flip.

    ``randomize`` is :func:`dpteach.mechanisms.randomized_response` itself.
    The debiased estimate of a bit b from the released bit o is

        b̂ = ((1 + e^ε)·o − 1) / (e^ε − 1),                   (eq-rr-debias)

    unbiased because E[o | b] = (1−q) + (2q−1)·b with q = e^ε/(1+e^ε); its
    variance given b is e^ε/(e^ε − 1)² ("noise variance"), so for a
    population with Pr[b = 1] = p a user's b̂ has variance
    p(1−p) + e^ε/(e^ε − 1)² <= 1/4 + e^ε/(e^ε − 1)² (``variance_bound``).
    """

    name = "randomized response"

    @property
    def keep_probability(self):
        return float(special.expit(self.epsilon))

    @property
    def noise_variance(self):
        """Var[b̂ | b] = e^ε/(e^ε − 1)² = 1/(4 sinh²(ε/2)), computed without overflow."""
        return 1.0 / (4.0 * math.sinh(self.epsilon / 2) ** 2)

    @property
    def variance_bound(self):
        return 0.25 + self.noise_variance

    def randomize(self, bits, rng=None):
        return randomized_response(bits, self.epsilon, rng)

    def estimate(self, outputs):
        """Per-output unbiased estimate of the input bit, Eq. (eq-rr-debias).

        Written as (o − 1/(1+e^ε)) / tanh(ε/2), the same number without overflow for large ε.
        """
        o = check_bits(outputs, "outputs").astype(float)
        return (o - special.expit(-self.epsilon)) / math.tanh(self.epsilon / 2)

    def probability(self, outputs, values):
        """Pr[R(b) = o] = q if o == b else 1 − q (broadcast over both arguments)."""
        o = check_bits(outputs, "outputs")
        b = check_bits(values, "values")
        q = self.keep_probability
        return np.where(o == b, q, 1.0 - q)


def debias_randomized_response(outputs, epsilon):
    """Unbiased estimate of the fraction of ones from randomized-response outputs (eq-rr-debias).

    Parameters
    ----------
    outputs : array_like of bits
        The released bits o_1..o_n of :func:`dpteach.mechanisms.randomized_response`.
    epsilon : float
        The ε the bits were released with, 0 < ε < inf.

    Returns
    -------
    float
        p̂ = ((1 + e^ε)·ō − 1)/(e^ε − 1), with E p̂ = (1/n) Σ b_i exactly and
        Var p̂ = e^ε/(n (e^ε − 1)²) given the true bits. Not clipped to [0, 1]
        (clipping would bias it). Cost O(n).
    """
    return float(np.mean(RandomizedResponse(epsilon).estimate(outputs)))


class LaplaceRandomizer(LocalRandomizer):
    """The Laplace randomizer R_φ(z) = φ(z) + Lap(2/ε) of the slides (chapter 3, eq-laplace-randomizer).

    For a query φ: Z → [−1, 1] two inputs differ by at most 2 (the
    sensitivity of a one-record database), so Laplace noise of scale 2/ε makes
    the density ratio at most e^{ε·2/2} = e^ε. Implemented with
    :func:`dpteach.mechanisms.laplace_mechanism` (sensitivity 2). The output
    is its own unbiased estimate; noise variance 2·(2/ε)² = 8/ε², so a user's
    output has variance Var φ + 8/ε² <= 1 + 8/ε².
    """

    name = "Laplace"
    #: Largest |φ(z) − φ(z')| for φ with values in [−1, 1].
    sensitivity = 2.0

    @property
    def scale(self):
        return self.sensitivity / self.epsilon

    @property
    def noise_variance(self):
        return 2.0 * self.scale ** 2

    @property
    def variance_bound(self):
        return 1.0 + self.noise_variance

    def randomize(self, values, rng=None):
        exact = _check_unit_interval_values(values)
        return np.asarray(laplace_mechanism(exact, self.sensitivity, self.epsilon, rng), dtype=float)

    def probability(self, outputs, values):
        """Density of φ + Lap(b) at ``outputs``: exp(−|w − v|/b)/(2b), b = 2/ε."""
        w = check_finite_array(outputs, "outputs", ndim=None)
        v = _check_unit_interval_values(values)
        b = self.scale
        return np.exp(-np.abs(w - v) / b) / (2 * b)


class HalfNoiseLaplaceRandomizer(LaplaceRandomizer):
    """A deliberately WRONG Laplace randomizer: scale 1/ε, as if a [−1, 1] query had sensitivity 1.

    Only ln-ratio e^{2ε} is guaranteed, i.e. it is 2ε-local, not ε-local.
    For the chapter's audit demonstration (an audit must catch it) and the tests.
    """

    name = "Laplace with scale 1/ε (broken)"
    sensitivity = 1.0


class OneBitRandomizer(LocalRandomizer):
    """The one-bit randomizer [−1, 1] → {±c}, c = (e^ε + 1)/(e^ε − 1) (chapter 3, eq-onebit).

    Round v ∈ [−1, 1] to s = ±1 with Pr[s = 1] = (1 + v)/2, release s by
    randomized response (:func:`dpteach.mechanisms.randomized_response`) and
    output c·s'. Then Pr[c·s' = +c | v] = (1 + v/c)/2, so E[c s'] = v
    (unbiased) and the two output probabilities of any two inputs differ by
    the factor (1 + 1/c)/(1 − 1/c) = e^ε at most. Outputs lie in [−c, c]
    (Hoeffding applies directly); variance c² − v² <= c² (``variance_bound``).
    """

    name = "one-bit"

    @property
    def c(self):
        """c = (e^ε + 1)/(e^ε − 1) = coth(ε/2), computed without overflow."""
        return 1.0 / math.tanh(self.epsilon / 2)

    @property
    def variance_bound(self):
        return self.c ** 2

    def randomize(self, values, rng=None):
        v = _check_unit_interval_values(values)
        rng = as_rng(rng)
        s = rng.random(v.shape) < (1 + v) / 2
        released = randomized_response(s, self.epsilon, rng)
        return self.c * (2.0 * released - 1.0)

    def probability(self, outputs, values):
        """Pr[output | v]: (1 + v/c)/2 for +c and (1 − v/c)/2 for −c."""
        w = check_finite_array(outputs, "outputs", ndim=None)
        v = _check_unit_interval_values(values)
        c = self.c
        if not np.all(np.isclose(np.abs(w), c, rtol=1e-12, atol=0.0)):
            raise ValueError(f"outputs of the one-bit randomizer must be ±c = ±{c:.6g}, "
                             f"found {w[~np.isclose(np.abs(w), c)].ravel()[0].item()!r}")
        return np.where(w > 0, (1 + v / c) / 2, (1 - v / c) / 2)


_RANDOMIZERS = {"rr": RandomizedResponse, "laplace": LaplaceRandomizer, "onebit": OneBitRandomizer}


def make_randomizer(name, epsilon):
    """The randomizer called ``name`` ("rr", "laplace" or "onebit") at privacy ε."""
    check_choice(name, "randomizer", tuple(_RANDOMIZERS))
    return _RANDOMIZERS[name](epsilon)


# =============================================================================
# 2. Group sizes: how many users answer one query (thm-one-query)
# =============================================================================

#: The rules of :func:`group_size`; "theorem" is the one proved in the chapter.
GROUP_SIZE_RULES = ("theorem", "slide", "rr", "clt")


def _check_group_inputs(epsilon, tau, beta, rule, randomizer):
    epsilon = check_epsilon(epsilon)
    tau = check_probability(tau, "tau")
    beta = check_probability(beta, "beta")
    check_choice(rule, "rule", GROUP_SIZE_RULES)
    if randomizer is None:
        randomizer = "onebit" if rule == "rr" else "laplace"
    check_choice(randomizer, "randomizer", ("laplace", "onebit"))
    if rule == "slide" and randomizer != "laplace":
        raise ValueError("rule 'slide' is the slides' bound for the Laplace randomizer; "
                         f"use randomizer='laplace', got randomizer={randomizer!r}")
    if rule == "rr" and randomizer != "onebit":
        raise ValueError("rule 'rr' is Hoeffding's bound for the one-bit (randomized-response) "
                         f"randomizer; use randomizer='onebit', got randomizer={randomizer!r}")
    return epsilon, tau, beta, randomizer


def _laplace_theorem_size(epsilon, tau, beta):
    """Real-valued m of thm-one-query for the Laplace randomizer (before rounding up)."""
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


def group_size(epsilon, tau, beta, rule="theorem", randomizer=None, var_phi=1.0):
    """Users m per query so that one simulated answer is within τ w.p. >= 1 − β (chapter 3, thm-one-query).

    Rules (c = (e^ε + 1)/(e^ε − 1), z = Φ⁻¹(1 − β/2)):

    * ``"theorem"`` (default; proved in the chapter, Eq. (eq-m-theorem)):
      Laplace randomizer m = ⌈max{8 ln(4/β)/τ², 128 ln(4/β)/(ε²τ²)}⌉
      (Hoeffding for the data + Chernoff for the Laplace average, β/2 each;
      for ετ > 8√2 the second term becomes 8√2 ln(4/β)/(ετ));
      one-bit randomizer: the ``"rr"`` bound below, also a theorem.
    * ``"slide"``: the smallest m with 2e^{−τ²m/8} + e^{−ε²τ²m/64} <= β, the
      slides' tail constants as we read them (Laplace only; [D?]).
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
        ε, τ, β, var_phi out of range; unknown rule; rule/randomizer mismatch.
    """
    epsilon, tau, beta, randomizer = _check_group_inputs(epsilon, tau, beta, rule, randomizer)
    var_phi = check_probability(var_phi, "var_phi", low_open=False, high_open=False)
    c = 1.0 / math.tanh(epsilon / 2)
    if rule == "slide":
        high = max(8 * math.log(4 / beta) / tau ** 2, 64 * math.log(2 / beta) / (epsilon * tau) ** 2)
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
    return max(1, math.ceil(size))


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
    """
    m = check_int(m, "m", minimum=1)
    epsilon, _, beta, randomizer = _check_group_inputs(epsilon, 0.5, beta, rule, randomizer)
    var_phi = check_probability(var_phi, "var_phi", low_open=False, high_open=False)
    c = 1.0 / math.tanh(epsilon / 2)
    if rule == "slide":
        low, high = 1e-12, 1.0
        while _slide_failure(m, epsilon, high) > beta:
            high *= 2
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


# =============================================================================
# 3. Statistical-query oracles (def-sq-oracle)
# =============================================================================


class NotEnoughUsersError(ValueError):
    """The local simulation ran out of fresh users for a query."""


class PrivacyLedgerError(AssertionError):
    """Some user's privacy ledger exceeds the ε the local protocol promised."""


class QueryBudgetError(ValueError):
    """An SQ algorithm asked more queries than the ``max_queries`` the simulation was sized for."""


def _as_records(data, name="data"):
    """Return ``data`` as a 2-D array of records (rows), without copying integer data to float."""
    arr = np.asarray(data)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must be a numeric array of records, got dtype {arr.dtype}")
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise ValueError(f"{name} must have 1 or 2 dimension(s) (rows are records), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must not be empty, got an array of shape {arr.shape}")
    if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf), "
                         f"found {arr[~np.isfinite(arr)][0].item()!r}")
    return arr


def _evaluate(phi, rows):
    """φ(rows) as a float array after checking one finite value in [−1, 1] per row."""
    values = np.asarray(phi(rows), dtype=float)
    if values.shape != (rows.shape[0],):
        raise ValueError(f"phi must return one value per record (shape ({rows.shape[0]},)), "
                         f"got shape {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"phi must return finite values in [-1, 1], "
                         f"found {values[~np.isfinite(values)][0].item()!r}")
    if np.any(np.abs(values) > 1):
        raise ValueError(f"phi must map records into [-1, 1] (statistical queries are bounded), "
                         f"found {values[np.abs(values) > 1][0].item()!r}; rescale it, e.g. 2·1{{·}} − 1")
    return values


def _check_queries(queries):
    """Validate a batch [(phi, tau), ...]; return (list of phis, array of taus)."""
    if isinstance(queries, tuple) and len(queries) == 2 and callable(queries[0]):
        raise TypeError("queries must be a list of (phi, tau) pairs; for one query use query(phi, tau)")
    queries = list(queries)
    if not queries:
        raise ValueError("queries must be a non-empty list of (phi, tau) pairs, got an empty one")
    phis, taus = [], []
    for j, pair in enumerate(queries):
        try:
            phi, tau = pair
        except (TypeError, ValueError):
            raise TypeError(f"queries[{j}] must be a pair (phi, tau), got {pair!r}") from None
        if not callable(phi):
            raise TypeError(f"phi must be callable (records -> values in [-1, 1]), "
                            f"got {type(phi).__name__} in queries[{j}]")
        phis.append(phi)
        taus.append(check_probability(tau, "tau"))
    return phis, np.array(taus)


class SQOracle:
    """A statistical-query oracle SQ_P (def-sq-oracle): (φ, τ) ↦ any v with |v − E_P φ| <= τ.

    ``query(phi, tau)`` asks one query (one round); ``query_batch([(phi, tau),
    ...])`` asks a whole non-adaptive batch at once (one round). The oracle
    counts ``n_queries`` and ``rounds`` and keeps the list of ``tolerances``.
    Subclasses implement ``_answer_batch(phis, taus)``.
    """

    def __init__(self):
        self.n_queries = 0
        self.rounds = 0
        self.tolerances = []

    def query(self, phi, tau):
        """Answer one statistical query; returns a float."""
        return float(self.query_batch([(phi, tau)])[0])

    def query_batch(self, queries):
        """Answer a non-adaptive batch of queries in one round; returns an array of answers."""
        phis, taus = _check_queries(queries)
        answers = np.asarray(self._answer_batch(phis, taus), dtype=float)
        self.n_queries += len(phis)
        self.rounds += 1
        self.tolerances.extend(taus.tolist())
        return answers

    def _answer_batch(self, phis, taus):  # pragma: no cover - abstract
        raise NotImplementedError


class ExactSQOracle(SQOracle):
    """Answers E_P φ exactly for a known finite distribution P, or for the empirical law of a sample.

    Parameters
    ----------
    support : array_like, shape (k, p) or (k,)
        The k support points (records) of P; or a sample of k records.
    weights : array_like, shape (k,), optional
        Pr[z = support[i]] (non-negative, summing to 1). None: uniform, i.e.
        the empirical distribution of a sample.

    Answers are exact (error 0 <= τ). Identical query objects in one batch are
    evaluated once. Cost O(k) per distinct query.
    """

    def __init__(self, support, weights=None):
        super().__init__()
        self.support = _as_records(support, "support")
        k = self.support.shape[0]
        if weights is None:
            self.weights = np.full(k, 1.0 / k)
        else:
            w = check_finite_array(weights, "weights", ndim=1)
            if w.shape != (k,):
                raise ValueError(f"weights must have one entry per support point ({k}), got shape {w.shape}")
            if np.any(w < 0) or not np.isclose(w.sum(), 1.0, rtol=0, atol=1e-9):
                raise ValueError(f"weights must be non-negative and sum to 1, got sum {w.sum()!r}")
            self.weights = w / w.sum()

    def expectation(self, phi):
        """E_P φ exactly (not counted as a query: for evaluation and for noisy oracles)."""
        if not callable(phi):
            raise TypeError(f"phi must be callable, got {type(phi).__name__}")
        return float(np.einsum("i,i->", self.weights, _evaluate(phi, self.support)))

    def expectations(self, phis):
        """E_P φ_j for a list of queries, evaluating each distinct query object once."""
        cache = {}
        for phi in phis:
            if id(phi) not in cache:
                cache[id(phi)] = self.expectation(phi)
        return np.array([cache[id(phi)] for phi in phis])

    def _answer_batch(self, phis, taus):
        return self.expectations(phis)


def _strategy_shrink(values, taus, phis):
    return values - taus * np.sign(values)


def _strategy_inflate(values, taus, phis):
    return values + taus * np.sign(values)


def _strategy_plus(values, taus, phis):
    return values + taus


def _strategy_minus(values, taus, phis):
    return values - taus


def _strategy_argmin_trap(values, taus, phis):
    # Make the algorithm's argmin pick the worst query it can be fooled into: the largest true
    # value j* with v_j* − τ_j* <= min_k (v_k + τ_k); push j* down and every other answer up.
    ceiling = np.min(values + taus)
    candidates = np.flatnonzero(values - taus <= ceiling)
    target = candidates[np.argmax(values[candidates])]
    answers = values + taus
    answers[target] = values[target] - taus[target]
    return answers


def _strategy_argmax_trap(values, taus, phis):
    return -_strategy_argmin_trap(-values, taus, phis)


#: Named adversaries of :class:`NoisySQOracle` (mode "adversarial"); each returns answers within ±τ.
ADVERSARIAL_STRATEGIES = {
    "shrink": _strategy_shrink,          # towards (and across) 0: hurts sign decisions
    "inflate": _strategy_inflate,        # away from 0
    "plus": _strategy_plus,              # every answer τ too high
    "minus": _strategy_minus,            # every answer τ too low
    "argmin_trap": _strategy_argmin_trap,  # worst case for "pick the smallest answer"
    "argmax_trap": _strategy_argmax_trap,  # worst case for "pick the largest answer"
}


class NoisySQOracle(SQOracle):
    """An SQ oracle that uses its whole tolerance: random or adversarial answers within ±τ (def-sq-oracle).

    Parameters
    ----------
    base : ExactSQOracle
        Supplies the exact expectations E_P φ.
    mode : {"random", "adversarial"}
        "random": v = E φ + U(−τ, τ), independently per query. "adversarial":
        v = strategy(E φ, τ, φ) for the whole batch.
    strategy : str or callable
        A name in :data:`ADVERSARIAL_STRATEGIES` (default "shrink"), or
        ``strategy(values, taus, phis) -> answers`` seeing the exact values of
        the whole batch. Every answer is checked to lie within τ (the oracle
        raises ValueError otherwise), so a test against this oracle is a test
        against an oracle the SQ definition allows.
    rng : None, int or Generator
        For mode "random".
    """

    def __init__(self, base, mode="adversarial", strategy="shrink", rng=None):
        super().__init__()
        if not isinstance(base, ExactSQOracle):
            raise TypeError(f"base must be an ExactSQOracle, got {type(base).__name__}")
        self.base = base
        self.mode = check_choice(mode, "mode", ("random", "adversarial"))
        if isinstance(strategy, str):
            check_choice(strategy, "strategy", tuple(ADVERSARIAL_STRATEGIES))
            self.strategy = ADVERSARIAL_STRATEGIES[strategy]
        elif callable(strategy):
            self.strategy = strategy
        else:
            raise TypeError(f"strategy must be a name in {tuple(ADVERSARIAL_STRATEGIES)} or a callable, "
                            f"got {type(strategy).__name__}")
        self.rng = as_rng(rng)

    def _answer_batch(self, phis, taus):
        values = self.base.expectations(phis)
        if self.mode == "random":
            return values + self.rng.uniform(-taus, taus)
        answers = np.asarray(self.strategy(values.copy(), taus.copy(), list(phis)), dtype=float)
        if answers.shape != values.shape or not np.all(np.isfinite(answers)):
            raise ValueError(f"strategy must return {values.size} finite answers, got {answers!r}")
        slack = np.abs(answers - values) - taus
        if np.any(slack > 1e-12):
            j = int(np.argmax(slack))
            raise ValueError(f"strategy returned an answer outside the tolerance: query {j} has "
                             f"E phi = {values[j]!r}, tau = {taus[j]!r}, answer {answers[j]!r}")
        return answers


# =============================================================================
# 4. SQ -> local: disjoint user groups (alg-sq-to-local, thm-sq-to-local)
# =============================================================================


class _LocalSQOracleBase(SQOracle):
    """Shared bookkeeping of the local simulations: group sizes, query budget, union bound."""

    def __init__(self, n_users, epsilon, beta, max_queries, randomizer, rule, split, rng):
        super().__init__()
        self.epsilon = check_epsilon(epsilon)
        self.beta = check_probability(beta, "beta")
        self.max_queries = check_int(max_queries, "max_queries", minimum=1)
        check_choice(randomizer, "randomizer", ("laplace", "onebit"))
        self.randomizer = make_randomizer(randomizer, epsilon)
        self.rule = check_choice(rule, "rule", GROUP_SIZE_RULES)
        _check_group_inputs(epsilon, 0.5, beta, rule, randomizer)  # rule/randomizer compatibility
        self.split = check_choice(split, "split", ("tolerance", "equal"))
        self.n_users = n_users
        if split == "equal":
            if n_users is None:
                raise ValueError("split='equal' needs n_users (the users to divide among max_queries groups)")
            if n_users < self.max_queries:
                raise NotEnoughUsersError(f"n_users = {n_users} is smaller than max_queries = "
                                          f"{self.max_queries}: split='equal' needs >= 1 user per query")
        self.rng = as_rng(rng)
        self.users_used = 0
        self.group_sizes = []
        self.achieved_tolerances = []

    @property
    def beta_per_query(self):
        """β/t: the failure probability allowed to each query by the union bound."""
        return self.beta / self.max_queries

    def _size(self, tau):
        if self.split == "equal":
            return self.n_users // self.max_queries
        return group_size(self.epsilon, tau, self.beta_per_query, self.rule, self.randomizer_name)

    @property
    def randomizer_name(self):
        return "laplace" if isinstance(self.randomizer, LaplaceRandomizer) else "onebit"

    @property
    def failure_probability(self):
        """Union bound on Pr[some answer so far is invalid]: n_queries·β/t <= β (thm-sq-to-local)."""
        return self.n_queries * self.beta_per_query

    def _answer_batch(self, phis, taus):
        if self.n_queries + len(phis) > self.max_queries:
            raise QueryBudgetError(
                f"max_queries = {self.max_queries} exceeded: the algorithm asks query "
                f"{self.n_queries + len(phis)}. The union bound gave each query β/t for t = "
                f"max_queries, so a larger t must be declared up front.")
        answers = np.empty(len(phis))
        for j, (phi, tau) in enumerate(zip(phis, taus)):
            m = self._size(tau)
            answers[j] = self._group_answer(phi, m)
            self.group_sizes.append(m)
            self.achieved_tolerances.append(
                tolerance_for_group(self.epsilon, m, self.beta_per_query, self.rule, self.randomizer_name))
        return answers


class LocalSimulatedSQOracle(_LocalSQOracleBase):
    """An SQ oracle simulated by ε-local randomizers on real users (alg-sq-to-local).

    Query j (tolerance τ_j) is answered by a fresh group S_j of
    m_j = ``group_size(ε, τ_j, β/t, rule)`` users, disjoint from all earlier
    groups: each user in S_j releases R(φ_j(z_i)) once (Laplace or one-bit
    randomizer) and the answer is the average. By thm-sq-to-local every answer
    is within τ_j with probability >= 1 − β/t, so all t are valid with
    probability >= 1 − β (union bound, ``failure_probability``). Every user
    is touched at most once, so the protocol is ε-local; the per-user
    ``ledger`` records this and :meth:`check_privacy` asserts max <= ε.

    Parameters
    ----------
    data : array_like, shape (n, p)
        One record per user (rows); the users are assigned to groups in a
        random order drawn from ``rng`` before any query (data-independent).
    epsilon : float
        Each user's privacy, 0 < ε < inf.
    beta : float
        Total failure probability over all queries, 0 < β < 1.
    max_queries : int
        t, the most queries the SQ algorithm will ask (union bound over t).
    randomizer : {"laplace", "onebit"}
    rule : {"theorem", "slide", "rr", "clt"}
        Group-size rule (:func:`group_size`); "theorem" is the proved one.
    split : {"tolerance", "equal"}
        "tolerance": m_j from τ_j as above. "equal": every query gets
        n // t users whatever its τ (for learners with a fixed budget of
        users); ``achieved_tolerances`` then says what each answer guarantees.
    rng : None, int or Generator

    Raises
    ------
    NotEnoughUsersError (a ValueError)
        When the next group does not fit in the remaining users.
    QueryBudgetError (a ValueError)
        When the algorithm asks more than ``max_queries`` queries.

    Cost O(m_j) per query; O(n) memory for the ledger.
    """

    def __init__(self, data, epsilon, beta, max_queries, randomizer="laplace", rule="theorem",
                 split="tolerance", rng=None):
        self.data = _as_records(data, "data")
        n = self.data.shape[0]
        super().__init__(n, epsilon, beta, max_queries, randomizer, rule, split, rng)
        self.order = self.rng.permutation(n)
        self.ledger = np.zeros(n)
        self.groups = []

    def _take_users(self, m):
        """The next m users of the random order: a fresh group, disjoint from all earlier ones."""
        start = self.users_used
        if start + m > self.n_users:
            raise NotEnoughUsersError(
                f"data has n = {self.n_users} users, {start} already answered a query, and the next "
                f"query needs m = {m} fresh users; supply more users (n >= sum of group sizes), a "
                f"larger tolerance, or a smaller group-size rule")
        self.users_used = start + m
        return self.order[start:start + m]

    def _group_answer(self, phi, m):
        group = self._take_users(m)
        values = _evaluate(phi, self.data[group])
        outputs = self.randomizer.randomize(values, self.rng)  # one ε-local report per user
        self.ledger[group] += self.epsilon
        self.groups.append(group)
        return float(np.mean(self.randomizer.estimate(outputs)))

    @property
    def max_user_epsilon(self):
        """max_i (sum of the ε of every randomizer applied to user i): the protocol's local ε."""
        return float(self.ledger.max())

    def privacy_guarantee(self):
        """(ε, 0) by parallel composition over the disjoint groups (thm-parallel-composition).

        Each group ran ε-local randomizers on its own users; the groups are
        disjoint and chosen without looking at the data, so the whole
        transcript is (max_j ε_j, 0) = (ε, 0)-DP. Raises
        :class:`PrivacyLedgerError` if the ledger contradicts disjointness.
        """
        self.check_privacy()
        if not self.groups:
            return 0.0, 0.0
        return parallel_composition(np.full(len(self.groups), self.epsilon))

    def check_privacy(self):
        """Assert that no user's ledger exceeds ε; raise :class:`PrivacyLedgerError` otherwise."""
        worst = self.max_user_epsilon
        if worst > self.epsilon * (1 + 1e-12):
            most = int(np.argmax(self.ledger))
            raise PrivacyLedgerError(
                f"privacy ledger: user {most} answered {worst / self.epsilon:.0f} queries, so the "
                f"protocol is only {worst:g}-local (t·ε with t = {worst / self.epsilon:.0f}), not "
                f"epsilon = {self.epsilon:g}-local; the groups of thm-sq-to-local must be disjoint")
        return worst


class ReusingLocalSQOracle(LocalSimulatedSQOracle):
    """A deliberately WRONG local simulation: every query asks the *same* first users again.

    Its answers look just as good, but a user in every group answers t
    queries with ε-local randomizers, so by composition the protocol is only
    tε-local. The per-user ledger exposes it: :meth:`check_privacy` raises
    :class:`PrivacyLedgerError` reporting t·ε. For the chapter's demonstration
    and the tests only.
    """

    def _take_users(self, m):
        if m > self.n_users:
            raise NotEnoughUsersError(f"data has n = {self.n_users} users, the query needs m = {m}")
        self.users_used = max(self.users_used, m)
        return self.order[:m]


def sample_group_averages(m, mean_phi, randomizer, size=None, rng=None):
    """Exact samples of the average of m randomized ±1-valued query values, via sufficient statistics.

    If φ(z) ∈ {−1, +1} with E φ = ``mean_phi`` and z_1..z_m are i.i.d., then
    the number of +1 values is Binomial(m, (1 + μ)/2); the sum of m
    Lap(b) variables is Gamma(m, b) − Gamma(m, b) (a Laplace variable is a
    difference of two exponentials); and a one-bit output is +c with
    probability E(1 + φ/c)/2 = (1 + μ/c)/2 independently per user. So the
    group average is drawn *exactly in law* in O(1), whatever m (10⁹ is fine).

    Parameters
    ----------
    m : int, >= 1
    mean_phi : float in [−1, 1]
    randomizer : LaplaceRandomizer or OneBitRandomizer
    size : None or int
        Number of independent averages (None: one float).
    rng : None, int or Generator
    """
    m = check_int(m, "m", minimum=1)
    mu = float(_check_unit_interval_values(mean_phi, "mean_phi"))
    rng = as_rng(rng)
    shape = () if size is None else (check_int(size, "size", minimum=1),)
    if isinstance(randomizer, OneBitRandomizer):
        c = randomizer.c
        plus = rng.binomial(m, (1 + mu / c) / 2, size=shape)
        out = c * (2.0 * plus - m) / m
    elif isinstance(randomizer, LaplaceRandomizer):
        plus = rng.binomial(m, (1 + mu) / 2, size=shape)
        noise = rng.gamma(m, randomizer.scale, size=shape) - rng.gamma(m, randomizer.scale, size=shape)
        out = (2.0 * plus - m + noise) / m
    else:
        raise TypeError(f"randomizer must be a LaplaceRandomizer or OneBitRandomizer, "
                        f"got {type(randomizer).__name__}")
    return float(out) if size is None else out


class FastLocalSQOracle(_LocalSQOracleBase):
    """The local simulation of :class:`LocalSimulatedSQOracle`, sampled exactly in law without users.

    For users drawn i.i.d. from a *known finite* distribution P = (support,
    weights), the average of a group's m randomized reports has a law that
    depends only on the law of φ(z): for a ±1-valued φ it is drawn by
    :func:`sample_group_averages`; otherwise the counts of the m users over
    the distinct values of φ are drawn from a multinomial. Either way the
    answer has exactly the law of the real simulation, in O(|support|) per
    query instead of O(m), so the chapter can sweep n up to 10¹⁰ users
    with the proved ("theorem") group sizes. Users are counted, not
    stored: the groups are disjoint by construction, so every user's
    ledger is ε (``max_user_epsilon``).

    Parameters are as in :class:`LocalSimulatedSQOracle`, except ``support``,
    ``weights`` (as in :class:`ExactSQOracle`) and ``n_users`` (None:
    unlimited; required for split="equal").
    """

    def __init__(self, support, weights, epsilon, beta, max_queries, randomizer="laplace",
                 rule="theorem", split="tolerance", n_users=None, rng=None):
        self.population = ExactSQOracle(support, weights)
        if n_users is not None:
            n_users = check_int(n_users, "n_users", minimum=1)
        super().__init__(n_users, epsilon, beta, max_queries, randomizer, rule, split, rng)

    def _group_answer(self, phi, m):
        if self.n_users is not None and self.users_used + m > self.n_users:
            raise NotEnoughUsersError(
                f"n_users = {self.n_users}, {self.users_used} already used, and the next query needs "
                f"m = {m} fresh users")
        self.users_used += m
        values = _evaluate(phi, self.population.support)
        weights = self.population.weights
        mu = float(np.clip(np.einsum("i,i->", weights, values), -1, 1))
        # One-bit: every user's output is +c w.p. E(1 + φ/c)/2 = (1 + μ/c)/2, whatever the law of φ;
        # Laplace with a ±1-valued φ: the count of +1 values is Binomial(m, (1 + μ)/2).
        if isinstance(self.randomizer, OneBitRandomizer) or np.all(np.abs(values) == 1):
            return sample_group_averages(m, mu, self.randomizer, rng=self.rng)
        if np.all((values == 0) | (np.abs(values) == 1)):  # {−1, 0, 1}-valued: skip the sort
            distinct = np.array([-1.0, 0.0, 1.0])
            probs = np.bincount((values + 1).astype(np.intp), weights=weights, minlength=3)
        else:
            distinct, inverse = np.unique(values, return_inverse=True)
            probs = np.bincount(inverse, weights=weights, minlength=distinct.size)
        counts = self.rng.multinomial(m, probs / probs.sum())
        scale = self.randomizer.scale
        noise = self.rng.gamma(m, scale) - self.rng.gamma(m, scale)
        return float((np.dot(counts, distinct) + noise) / m)

    @property
    def max_user_epsilon(self):
        return self.epsilon if self.n_queries else 0.0

    def check_privacy(self):
        return self.max_user_epsilon


class _RecordingOracle(SQOracle):
    """Answers 0 to everything and records the tolerances: for :func:`query_plan`."""

    def _answer_batch(self, phis, taus):
        return np.zeros(len(phis))


@dataclass(frozen=True)
class QueryPlan:
    """The tolerances an SQ algorithm asks, and in how many rounds (batches)."""

    tolerances: tuple
    rounds: int

    @property
    def n_queries(self):
        return len(self.tolerances)


def query_plan(sq_algorithm, **algorithm_kwargs):
    """Dry-run ``sq_algorithm(oracle, **kwargs)`` against an oracle answering 0 and record its queries.

    Valid for algorithms whose number of queries and tolerances do not depend
    on the answers — true for every algorithm in this module — which is what
    the simulation needs to size its groups (t and the τ_j) up front.
    """
    recorder = _RecordingOracle()
    sq_algorithm(recorder, **algorithm_kwargs)
    return QueryPlan(tuple(recorder.tolerances), recorder.rounds)


def users_needed(plan, epsilon, beta, rule="theorem", randomizer=None):
    """n = Σ_j group_size(ε, τ_j, β/t) users to simulate a plan of t queries (thm-sq-to-local).

    ``plan`` is a :class:`QueryPlan` or a sequence of tolerances. Equal τ_j
    share one group-size computation. Returns an int.
    """
    taus = np.asarray(plan.tolerances if isinstance(plan, QueryPlan) else plan, dtype=float).ravel()
    if taus.size == 0:
        raise ValueError("plan must contain at least one query tolerance")
    per_query_beta = check_probability(beta, "beta") / taus.size
    distinct, counts = np.unique(taus, return_counts=True)
    return int(sum(int(k) * group_size(epsilon, tau, per_query_beta, rule, randomizer)
                   for tau, k in zip(distinct, counts)))


@dataclass
class LocalRun:
    """What :func:`simulate_sq_locally` reports about one local run of an SQ algorithm.

    ``epsilon`` is the protocol's guarantee from parallel composition over
    the disjoint groups; ``max_user_epsilon`` is the per-user ledger's
    maximum (equal to ε for a correct run); ``failure_probability`` is the
    union bound n_queries·β/t <= β on an invalid answer; ``interactive`` is
    True when the algorithm used more than one round.
    """

    output: object
    n_users: int
    users_used: int
    n_queries: int
    max_queries: int
    rounds: int
    epsilon: float
    max_user_epsilon: float
    failure_probability: float
    group_sizes: list = field(default_factory=list)
    achieved_tolerances: list = field(default_factory=list)

    @property
    def interactive(self):
        return self.rounds > 1

    def summary(self):
        kind = "interactive" if self.interactive else "non-interactive"
        return (f"{self.n_queries} queries in {self.rounds} round(s) ({kind}); "
                f"{self.users_used:,} of {self.n_users:,} users, each used once; "
                f"ε = {self.epsilon:g} per user (ledger max {self.max_user_epsilon:g}); "
                f"Pr[some answer invalid] <= {self.failure_probability:.3g}")


def simulate_sq_locally(sq_algorithm, data, epsilon, beta, max_queries=None, randomizer="laplace",
                        rule="theorem", split="tolerance", reuse_users=False, rng=None,
                        **algorithm_kwargs):
    """Run an SQ algorithm as an ε-local algorithm on the users in ``data`` (chapter 3, thm-sq-to-local).

    Every query is answered by a fresh disjoint group of users (see
    :class:`LocalSimulatedSQOracle`). A non-adaptive algorithm (one
    ``query_batch``) becomes a non-interactive local algorithm (one round);
    in general the local rounds equal the SQ algorithm's batches.

    Parameters
    ----------
    sq_algorithm : callable
        ``sq_algorithm(oracle, **algorithm_kwargs)``; its return value is the output.
    data : array_like, shape (n, p)
        One record per user.
    epsilon, beta, randomizer, rule, split, rng
        As in :class:`LocalSimulatedSQOracle`.
    max_queries : int, optional
        t for the union bound; default: counted by :func:`query_plan`.
    reuse_users : bool
        False (correct). True uses :class:`ReusingLocalSQOracle`, the wrong
        variant whose users answer every query: the ledger check then raises
        :class:`PrivacyLedgerError` reporting t·ε.

    Returns
    -------
    LocalRun

    Raises
    ------
    PrivacyLedgerError
        If some user's ledger exceeds ε (only with ``reuse_users=True``).
    NotEnoughUsersError, QueryBudgetError, ValueError
        See :class:`LocalSimulatedSQOracle`.
    """
    if not callable(sq_algorithm):
        raise TypeError(f"sq_algorithm must be callable, got {type(sq_algorithm).__name__}")
    if max_queries is None:
        max_queries = query_plan(sq_algorithm, **algorithm_kwargs).n_queries
    oracle_class = ReusingLocalSQOracle if reuse_users else LocalSimulatedSQOracle
    oracle = oracle_class(data, epsilon, beta, max_queries, randomizer=randomizer, rule=rule,
                          split=split, rng=rng)
    output = sq_algorithm(oracle, **algorithm_kwargs)
    total_epsilon, _ = oracle.privacy_guarantee()  # raises PrivacyLedgerError for a reusing oracle
    return LocalRun(output, oracle.n_users, oracle.users_used, oracle.n_queries, oracle.max_queries,
                    oracle.rounds, total_epsilon, oracle.max_user_epsilon, oracle.failure_probability,
                    list(oracle.group_sizes), list(oracle.achieved_tolerances))


# =============================================================================
# 5. Local -> SQ: rejection sampling (alg-local-to-sq, thm-local-to-sq) [reconstruction]
# =============================================================================


@dataclass
class RejectionSamples:
    """Output of :func:`simulate_local_with_sq`.

    ``samples[i]`` is the simulated output of the i-th randomizer call (NaN
    if a non-adaptive run found no accepted proposal); ``queries_per_call[i]``
    the SQ queries it used; ``tau`` the tolerance asked; ``rounds`` the
    oracle rounds; ``failures`` the calls without an accepted proposal.
    """

    samples: np.ndarray
    queries_per_call: np.ndarray
    tau: float
    rounds: int
    failures: int = 0

    @property
    def mean_queries(self):
        return float(np.mean(self.queries_per_call))

    @property
    def n_queries(self):
        return int(np.sum(self.queries_per_call))


def _proposal_query(randomizer, w, reference, feature):
    """φ_w(z) = Pr[R(feature(z)) = w] / (e^ε Pr[R(z0) = w]) ∈ [e^{−2ε}, 1] (alg-local-to-sq)."""
    denominator = math.exp(randomizer.epsilon) * float(randomizer.probability(np.array([w]),
                                                                               np.array([reference]))[0])

    def phi(rows):
        inputs = feature(rows)
        ratio = randomizer.probability(np.full(inputs.shape, w), inputs) / denominator
        return np.minimum(ratio, 1.0)  # <= 1 by ε-local privacy; the min only removes rounding error

    phi.output = w  # lets a custom adversary see which output a query is about
    return phi


def simulate_local_with_sq(randomizer, oracle, n_calls, tau, feature=None, reference=None,
                           non_adaptive=False, beta=0.05, rng=None):
    """Simulate ``n_calls`` reports R(z), z ~ P, using only statistical queries to P (chapter 3, alg-local-to-sq).

    Rejection sampling (our reconstruction; the slides state only the
    result): propose w ~ R(z0) for a fixed public input z0, ask
    φ_w(z) = Pr[R(z) = w]/(e^ε Pr[R(z0) = w]) ∈ [e^{−2ε}, 1] at tolerance τ,
    and accept w with probability clip(v, 0, 1). With an exact oracle the
    accepted w has exactly the law q(w) = E_P Pr[R(z) = w] and a call needs
    e^ε queries on average (thm-local-to-sq); with tolerance τ the law is
    within total variation about 2τe^{2ε} of q per call.

    Parameters
    ----------
    randomizer : LocalRandomizer
        With ``randomize`` and ``probability`` (pmf or density).
    oracle : SQOracle
        Any oracle for P (exact, noisy, adversarial, locally simulated).
    n_calls : int, >= 1
        How many reports to simulate (independent users).
    tau : float in (0, 1)
        Tolerance of every query; thm-local-to-sq suggests τ = β/(2 t e^{2ε}).
    feature : callable, optional
        Records → the randomizer's inputs (default: the first column).
    reference : optional
        z0, a public input of the randomizer (default 0 for randomized
        response, 0.0 otherwise).
    non_adaptive : bool
        False: propose until acceptance, one query per proposal (adaptive;
        the proposals of all pending calls are batched per round).
        True: pre-draw k = ⌈e^ε ln(n_calls/β)/(1 − τe^{2ε})⌉ proposals per
        call and ask all queries in one batch (non-adaptive); a call fails
        (NaN) with probability <= β/n_calls.
    beta : float in (0, 1)
        Only for ``non_adaptive``.
    rng : None, int or Generator

    Returns
    -------
    RejectionSamples

    Raises
    ------
    ValueError
        Bad ε/τ/β/n_calls; ``non_adaptive`` with τe^{2ε} >= 1 (no guarantee).

    Cost: e^ε/(1 − τe^{2ε}) queries per call on average (adaptive).
    """
    if not isinstance(randomizer, LocalRandomizer):
        raise TypeError(f"randomizer must be a LocalRandomizer, got {type(randomizer).__name__}")
    if not isinstance(oracle, SQOracle):
        raise TypeError(f"oracle must be an SQOracle, got {type(oracle).__name__}")
    n_calls = check_int(n_calls, "n_calls", minimum=1)
    tau = check_probability(tau, "tau")
    beta = check_probability(beta, "beta")
    rng = as_rng(rng)
    feature = feature if feature is not None else (lambda rows: rows[:, 0])
    if reference is None:
        reference = 0 if isinstance(randomizer, RandomizedResponse) else 0.0
    epsilon = randomizer.epsilon
    is_discrete = isinstance(randomizer, (RandomizedResponse, OneBitRandomizer))
    cache = {}

    def queries_for(proposals):
        phis = []
        for w in proposals:
            key = float(w)
            if not is_discrete or key not in cache:
                cache[key] = _proposal_query(randomizer, w, reference, feature)
            phis.append(cache[key])
        return phis

    samples = np.full(n_calls, np.nan)
    counts = np.zeros(n_calls, dtype=np.int64)
    rounds_before = oracle.rounds
    if non_adaptive:
        relative = tau * math.exp(2 * epsilon)
        if relative >= 1:
            raise ValueError(f"tau = {tau!r} is too large for a non-adaptive simulation at epsilon = "
                             f"{epsilon:g}: need tau·e^(2ε) < 1")
        k = math.ceil(math.exp(epsilon) * math.log(n_calls / beta) / (1 - relative))
        proposals = randomizer.randomize(np.full(n_calls * k, reference), rng)
        answers = oracle.query_batch([(phi, tau) for phi in queries_for(proposals)])
        accept = (rng.random(n_calls * k) < np.clip(answers, 0, 1)).reshape(n_calls, k)
        found = accept.any(axis=1)
        first = np.argmax(accept, axis=1)
        samples[found] = proposals.reshape(n_calls, k)[found, first[found]]
        counts[:] = k
        return RejectionSamples(samples, counts, tau, oracle.rounds - rounds_before,
                                int(n_calls - found.sum()))
    pending = np.arange(n_calls)
    while pending.size:
        proposals = randomizer.randomize(np.full(pending.size, reference), rng)
        answers = oracle.query_batch([(phi, tau) for phi in queries_for(proposals)])
        counts[pending] += 1
        accept = rng.random(pending.size) < np.clip(answers, 0, 1)
        samples[pending[accept]] = proposals[accept]
        pending = pending[~accept]
    return RejectionSamples(samples, counts, tau, oracle.rounds - rounds_before)


def rejection_output_law(proposal_probabilities, answers):
    """Exact law of the rejection sampler for a finite output set, given the oracle's answers.

    With proposals w ~ p0 and acceptance probability a_w = clip(answer_w, 0, 1),
    the accepted output has law ∝ p0(w)·a_w and each call asks
    1/Σ_w p0(w) a_w queries on average (geometric number of proposals).

    Returns
    -------
    (law, expected_queries) : (ndarray, float)
    """
    p0 = check_finite_array(proposal_probabilities, "proposal_probabilities", ndim=1)
    a = np.clip(check_finite_array(answers, "answers", shape=p0.shape), 0, 1)
    if np.any(p0 < 0) or not np.isclose(p0.sum(), 1.0):
        raise ValueError(f"proposal_probabilities must be non-negative and sum to 1, got sum {p0.sum()!r}")
    accept = float(np.dot(p0, a))
    if accept <= 0:
        raise ValueError("answers must accept some proposal (all acceptance probabilities are 0)")
    return p0 * a / accept, 1.0 / accept


def worst_case_rejection_tv(randomizer, values, value_probabilities, reference, tau):
    """Largest total variation between the simulated and the true output law over all answers within ±τ.

    For a randomizer with finitely many outputs (randomized response, one-bit)
    and an input law P over ``values``: q(w) = Σ_v P(v) Pr[R(v) = w]. Each
    answer may be moved by ±τ. With two outputs the simulated π(w) is
    monotone in each answer, so the extremes of TV = |π(1) − q(1)| lie at the
    four corners (each answer pushed fully up or down), which are all tried.
    Compared in the chapter with the bound 2τe^{2ε} of thm-local-to-sq.
    """
    tau = check_probability(tau, "tau")
    if isinstance(randomizer, RandomizedResponse):
        outputs = np.array([0, 1])
    elif isinstance(randomizer, OneBitRandomizer):
        outputs = np.array([-randomizer.c, randomizer.c])
    else:
        raise TypeError("worst_case_rejection_tv needs a randomizer with finitely many outputs "
                        f"(RandomizedResponse or OneBitRandomizer), got {type(randomizer).__name__}")
    values = np.asarray(values)
    prior = check_finite_array(value_probabilities, "value_probabilities", shape=(values.size,))
    p0 = np.array([float(randomizer.probability(np.array([w]), np.array([reference]))[0]) for w in outputs])
    q = np.array([float(np.dot(prior, randomizer.probability(np.full(values.shape, w), values))) for w in outputs])
    exact = q / (math.exp(randomizer.epsilon) * p0)
    worst = 0.0
    for signs in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        law, _ = rejection_output_law(p0, exact + tau * np.array(signs))
        worst = max(worst, 0.5 * float(np.abs(law - q).sum()))
    return worst


# =============================================================================
# 6. Example SQ algorithms (each oracle-agnostic)
# =============================================================================


def records(X, y):
    """Stack features and labels into the records (rows [x_1, ..., x_d, y]) the SQ queries read."""
    X = check_finite_array(X, "X", ndim=(1, 2))
    X = X.reshape(-1, 1) if X.ndim == 1 else X
    y = check_labels(y, "y")
    check_same_length(X, y, "X", "y")
    return np.column_stack([X, y])


def _coordinate_query(j):
    def phi(rows):
        return rows[:, j]
    return phi


def sq_mean(oracle, d, tau):
    """Mean estimation (chapter 3, algorithm A): E z_j for z ∈ [−1, 1]^d with d non-adaptive queries φ_j(z) = z_j.

    One batch (non-adaptive), so locally it is non-interactive. Every
    coordinate of the output is within τ of E z_j whenever the oracle is
    valid. Returns an array of shape (d,).
    """
    d = check_int(d, "d", minimum=1)
    return oracle.query_batch([(_coordinate_query(j), tau) for j in range(d)])


def _threshold_error_query(threshold):
    """φ(x, y) = 2·1{h_threshold(x) ≠ y} − 1 with h(x) = +1 iff x >= threshold."""
    def phi(rows):
        predicted = np.where(rows[:, 0] >= threshold, 1.0, -1.0)
        return np.where(predicted != rows[:, 1], 1.0, -1.0)
    phi.threshold = threshold
    return phi


def sq_threshold_grid(oracle, alpha):
    """Thresholds by a grid, non-adaptive (chapter 3, alg-threshold-grid; spec B1).

    Candidates h_k(x) = +1 iff x >= k/K, K = ⌈1/α⌉, k = 0..K. One batch of
    K + 1 error queries φ_k = 2·1{h_k(x) ≠ y} − 1 at tolerance α/2 (i.e.
    error tolerance α/4); output the argmin. If the oracle is valid,
    err(output) <= min_k err(h_k) + α/2, and under a uniform marginal on [0, 1]
    min_k err(h_k) <= OPT + α/2, so err <= OPT + α. Records are rows (x, y).
    Returns the threshold k/K.
    """
    alpha = check_probability(alpha, "alpha")
    n_cells = math.ceil(1 / alpha)
    thresholds = np.arange(n_cells + 1) / n_cells
    answers = oracle.query_batch([(_threshold_error_query(t), alpha / 2) for t in thresholds])
    return float(thresholds[int(np.argmin(answers))])


def _positive_below_query(cut):
    """φ(x, y) = 2·1{x < cut, y = +1} − 1."""
    def phi(rows):
        return np.where((rows[:, 0] < cut) & (rows[:, 1] > 0), 1.0, -1.0)
    phi.cut = cut
    return phi


def sq_threshold_binary_search(oracle, alpha):
    """Thresholds by binary search, adaptive (chapter 3, alg-threshold-binary; spec B2, our variant).

    Realizable case, y = +1 iff x >= θ, x uniform on [0, 1]. Keep [lo, hi]
    with θ <= hi and θ >= lo − 3α/8. Each round asks the mass
    μ = Pr[x < mid, y = +1] (= (mid − θ)₊) by φ = 2·1{x < mid, y = +1} − 1 at
    tolerance α/4 (mass tolerance α/8). If the mass estimate exceeds α/4
    then μ > α/8 > 0, so θ < mid: hi ← mid; otherwise μ <= 3α/8, so
    θ >= mid − 3α/8: lo ← mid. After T = ⌈log₂(2/α)⌉ rounds hi − lo <= α/2, and
    the output hi has error hi − θ <= α/2 + 3α/8 < α. (The spec queries the
    mass of [lo, mid); querying [0, mid) keeps the slack from accumulating.)
    One query per round: T rounds. Returns hi.
    """
    alpha = check_probability(alpha, "alpha")
    low, high = 0.0, 1.0
    for _ in range(math.ceil(math.log2(2 / alpha))):
        mid = 0.5 * (low + high)
        mass = 0.5 * (oracle.query(_positive_below_query(mid), alpha / 4) + 1)
        if mass > alpha / 4:
            high = mid
        else:
            low = mid
    return float(high)


def _label_times_coordinate_query(j, d):
    def phi(rows):
        return rows[:, d] * rows[:, j]
    return phi


def sq_averaging_halfspace(oracle, d, tau):
    """Halfspaces by averaging, non-adaptive (chapter 3, algorithm C1): ŵ_j ≈ E[y·x_j].

    d queries φ_j(x, y) = y·x_j (in [−1, 1] when ‖x‖_∞ <= 1) in one batch.
    For a rotation-invariant marginal (e.g. uniform on the sphere) and
    y = sign⟨w*, x⟩, E[y x] is a positive multiple of w*, so sign⟨ŵ, x⟩ is
    consistent as τ → 0; for other marginals it is biased (the chapter shows
    the plateau). Records are rows (x_1..x_d, y). Returns ŵ, shape (d,).
    """
    d = check_int(d, "d", minimum=1)
    return oracle.query_batch([(_label_times_coordinate_query(j, d), tau) for j in range(d)])


def _logistic_gradient_query(w, j, d):
    """φ_{w,j}(x, y) = −y x_j σ(−y⟨w, x⟩) ∈ [−1, 1]: coordinate j of the logistic-loss gradient."""
    def phi(rows):
        x, y = rows[:, :d], rows[:, d]
        return -y * x[:, j] * special.expit(-y * np.einsum("ij,j->i", x, w))
    return phi


def sq_gd_logistic(oracle, d, tau, n_steps=20, eta=5.0):
    """SQ gradient descent on the logistic loss (chapter 3, algorithm C2): K adaptive rounds of d queries.

    w_0 = 0; in round k ask ĝ_k,j ≈ E[−y x_j σ(−y⟨w_k, x⟩)] (one batch of d
    queries at tolerance τ) and set w_{k+1} = w_k − η ĝ_k. Needs ‖x‖_∞ <= 1.
    Rounds: n_steps; queries: n_steps·d. Returns w_K, shape (d,).
    """
    d = check_int(d, "d", minimum=1)
    n_steps = check_int(n_steps, "n_steps", minimum=1)
    eta = check_positive(eta, "eta")
    w = np.zeros(d)
    for _ in range(n_steps):
        gradient = oracle.query_batch([(_logistic_gradient_query(w.copy(), j, d), tau) for j in range(d)])
        w = w - eta * gradient
    return w


# Masked parity records: columns x_0..x_{d-1} (bits), index i, mask bit b, label y (bit).

def _index_query(i, d):
    """φ_i = 1{b = 1, idx = i}·(−1)^y; E φ_i = (−1)^{r_i}/(2d)."""
    def phi(rows):
        selected = (rows[:, d] == i) & (rows[:, d + 1] == 1)
        return selected * (1.0 - 2.0 * rows[:, d + 2])
    return phi


def _parity_query(r, d):
    """φ_r = 1{b = 0}·(−1)^{y + r·x}; E φ_r = (−1)^a/2 if r is the secret, 0 otherwise."""
    r = np.asarray(r, dtype=np.int64)

    def phi(rows):
        parity = (rows[:, :d].astype(np.int64) @ r + rows[:, d + 2]) % 2
        return (rows[:, d + 1] == 0) * (1.0 - 2.0 * parity)
    return phi


def masked_parity_interactive(oracle, d, tau_index=None, tau_parity=0.25):
    """The 2-round learner of masked parities (chapter 3, alg-masked-parity; spec E).

    Round 1 (d non-adaptive queries): φ_i = 1{b = 1, idx = i}·(−1)^y has
    E φ_i = (−1)^{r_i}/(2d), so tolerance 1/(4d) recovers r_i by the sign.
    Round 2 (depends on r̂): φ = 1{b = 0}(−1)^{y + r̂·x} has E φ = (−1)^a/2
    when r̂ = r, so tolerance 1/4 recovers a. Exact against any valid oracle.
    Records are int rows (x_1..x_d, idx, b, y). Returns (r̂, â).
    """
    d = check_int(d, "d", minimum=1)
    tau_index = 1 / (4 * d) if tau_index is None else tau_index
    first = oracle.query_batch([(_index_query(i, d), tau_index) for i in range(d)])
    r_hat = (first < 0).astype(np.int8)
    second = oracle.query(_parity_query(r_hat, d), tau_parity)
    return r_hat, int(second < 0)


def masked_parity_bruteforce(oracle, d, tau=0.2):
    """Non-interactive brute force for masked parities (chapter 3; spec §7): all 2^d candidates in one batch.

    Query φ_{r'} = 1{b = 0}(−1)^{y + r'·x} for every r' ∈ {0,1}^d; the secret
    gives ±1/2 and every other r' gives 0. With τ < 1/4 the largest |answer|
    is the secret (|·| >= 1/2 − τ > τ) and its sign gives a. (The spec's τ = 1/4
    allows a tie with an adversarial oracle; we use 1/5.) Cost 2^d queries.
    Returns (r̂, â).
    """
    d = check_int(d, "d", minimum=1, maximum=20)
    candidates = ((np.arange(2 ** d)[:, None] >> np.arange(d)) & 1).astype(np.int8)
    answers = oracle.query_batch([(_parity_query(r, d), tau) for r in candidates])
    best = int(np.argmax(np.abs(answers)))
    return candidates[best], int(answers[best] < 0)


def masked_parity_users(d, epsilon, beta, method="interactive", rule="theorem", randomizer=None):
    """Users the masked-parity learners need under the SQ → local simulation (chapter 3, fig. costs).

    ``"interactive"``: d queries at τ = 1/(4d) and one at 1/4 (t = d + 1).
    ``"bruteforce"``: 2^d queries at τ = 1/5. Each query gets
    ``group_size(ε, τ, β/t, rule)`` users. Works for d up to 60 (t = 2^d is
    handled analytically). Returns a float (may exceed the int64 range in plots).
    """
    d = check_int(d, "d", minimum=1, maximum=60)
    check_choice(method, "method", ("interactive", "bruteforce"))
    beta = check_probability(beta, "beta")
    if method == "interactive":
        t = d + 1
        return float(d * group_size(epsilon, 1 / (4 * d), beta / t, rule, randomizer)
                     + group_size(epsilon, 0.25, beta / t, rule, randomizer))
    t = 2.0 ** d
    return float(t * group_size(epsilon, 0.2, beta / t, rule, randomizer))


def smallest_feasible_alpha(sq_algorithm, n_users, epsilon, beta, rule="theorem", randomizer=None,
                            alpha_range=(1e-3, 0.99)):
    """The smallest α in ``alpha_range`` for which ``sq_algorithm(oracle, alpha=α)`` fits in n users.

    Bisection on log α of users_needed(query_plan(sq_algorithm, alpha=α)),
    which decreases in α up to rounding (K = ⌈1/α⌉ steps); the result is
    checked to be feasible. Returns None if even ``alpha_range[1]`` needs more
    than ``n_users`` users.
    """
    n_users = check_positive(n_users, "n_users")

    def fits(alpha):
        return users_needed(query_plan(sq_algorithm, alpha=alpha), epsilon, beta, rule, randomizer) <= n_users

    low, high = (float(a) for a in alpha_range)
    if not fits(high):
        return None
    if fits(low):
        return low
    for _ in range(40):
        mid = math.sqrt(low * high)
        low, high = (low, mid) if fits(mid) else (mid, high)
    return high


# =============================================================================
# 7. Estimators (scikit-learn style)
# =============================================================================


class LocalThresholdLearner:
    """An ε-local learner of thresholds on [0, 1] via an SQ algorithm (chapter 3).

    ``fit`` picks the smallest accuracy α whose query plan fits in the n users
    (:func:`smallest_feasible_alpha`), then runs ``sq_threshold_binary_search``
    (method "binary_search", interactive, realizable data) or
    ``sq_threshold_grid`` (method "grid", non-interactive, agnostic) through
    :func:`simulate_sq_locally`. Every user reports once: ε-local.

    Parameters
    ----------
    epsilon : float, 0 < ε < inf
    method : {"binary_search", "grid"}
    beta : float in (0, 1)
    rule, randomizer : as in :func:`group_size`
    random_state : None, int or Generator

    Attributes after fit: ``threshold_``, ``alpha_``, ``run_`` (:class:`LocalRun`).
    """

    def __init__(self, epsilon=1.0, method="binary_search", beta=0.05, rule="theorem",
                 randomizer="laplace", random_state=None):
        self.epsilon = epsilon
        self.method = method
        self.beta = beta
        self.rule = rule
        self.randomizer = randomizer
        self.random_state = random_state

    def fit(self, X, y):
        check_epsilon(self.epsilon)
        check_choice(self.method, "method", ("binary_search", "grid"))
        Z = records(X, y)
        if Z.shape[1] != 2:
            raise ValueError(f"X must have one feature (thresholds on [0, 1]), got {Z.shape[1] - 1}")
        outside = (Z[:, 0] < 0) | (Z[:, 0] > 1)
        if np.any(outside):
            raise ValueError(f"X must lie in [0, 1] (thresholds on the unit interval), "
                             f"found {Z[outside, 0][0].item()!r}")
        algorithm = sq_threshold_binary_search if self.method == "binary_search" else sq_threshold_grid
        n = Z.shape[0]
        alpha = smallest_feasible_alpha(algorithm, n, self.epsilon, self.beta, self.rule, self.randomizer)
        if alpha is None:
            needed = users_needed(query_plan(algorithm, alpha=0.99), self.epsilon, self.beta, self.rule,
                                  self.randomizer)
            raise ValueError(f"X has n = {n} users; the {self.method} learner needs at least {needed} "
                             f"users at epsilon = {self.epsilon:g} (rule {self.rule!r})")
        self.alpha_ = alpha
        self.run_ = simulate_sq_locally(algorithm, Z, self.epsilon, self.beta, randomizer=self.randomizer,
                                        rule=self.rule, rng=self.random_state, alpha=alpha)
        self.threshold_ = float(self.run_.output)
        return self

    def predict(self, X):
        x = check_finite_array(X, "X", ndim=(1, 2)).reshape(-1)
        return np.where(x >= self.threshold_, 1, -1)

    def score(self, X, y):
        return float(np.mean(self.predict(X) == check_labels(y, "y")))


class LocalHalfspaceLearner:
    """An ε-local learner of halfspaces sign⟨w, x⟩ via SQ averaging (C1) or SQ gradient descent (C2).

    The n users are split into t equal disjoint groups, one per query
    (split="equal"), and the SQ algorithm runs through
    :func:`simulate_sq_locally`: ``method="averaging"`` is non-interactive
    (t = d, one round); ``method="gd"`` uses ``n_steps`` rounds (t = n_steps·d).
    ``tolerance_`` reports what each answer guarantees at failure β/t under
    the "theorem" rule (>= 1 means no guarantee, only an unbiased noisy answer).

    Parameters
    ----------
    epsilon : float
    method : {"gd", "averaging"}
    n_steps : int (gd)
    eta : float (gd step size)
    beta : float in (0, 1)
    randomizer : {"laplace", "onebit"}
    random_state : None, int or Generator
    """

    def __init__(self, epsilon=1.0, method="gd", n_steps=20, eta=5.0, beta=0.05, randomizer="laplace",
                 random_state=None):
        self.epsilon = epsilon
        self.method = method
        self.n_steps = n_steps
        self.eta = eta
        self.beta = beta
        self.randomizer = randomizer
        self.random_state = random_state

    def fit(self, X, y):
        check_epsilon(self.epsilon)
        check_choice(self.method, "method", ("gd", "averaging"))
        X = check_finite_array(X, "X", ndim=2)
        if np.any(np.abs(X) > 1):
            raise ValueError(f"X must lie in [-1, 1]^d (bounded queries), found {X[np.abs(X) > 1][0].item()!r}")
        Z = records(X, y)
        d = X.shape[1]
        if self.method == "gd":
            algorithm, kwargs = sq_gd_logistic, dict(d=d, tau=0.5, n_steps=self.n_steps, eta=self.eta)
        else:
            algorithm, kwargs = sq_averaging_halfspace, dict(d=d, tau=0.5)
        t = query_plan(algorithm, **kwargs).n_queries
        if Z.shape[0] < t:
            raise ValueError(f"X has n = {Z.shape[0]} users but the {self.method} learner asks t = {t} "
                             f"queries and needs at least one user per query")
        self.run_ = simulate_sq_locally(algorithm, Z, self.epsilon, self.beta, max_queries=t,
                                        randomizer=self.randomizer, split="equal",
                                        rng=self.random_state, **kwargs)
        self.coef_ = np.asarray(self.run_.output, dtype=float)
        self.tolerance_ = float(self.run_.achieved_tolerances[0])
        return self

    def predict(self, X):
        X = check_finite_array(X, "X", ndim=2)
        return np.where(np.einsum("ij,j->i", X, self.coef_) >= 0, 1, -1)

    def score(self, X, y):
        return float(np.mean(self.predict(X) == check_labels(y, "y")))


# =============================================================================
# 8. Experiments of the chapter
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
    q = float(special.expit(epsilon))
    scale = 2.0 / epsilon
    result = {"n": ns, "rr": [], "laplace": [], "central": []}
    for n in ns:
        n = check_int(int(n), "n", minimum=1)
        k = rng.binomial(n, p, size=n_reps)
        truth = k / n if target == "sample" else p
        ones = rng.binomial(k, q) + rng.binomial(n - k, 1 - q)
        rr = ((1 + math.exp(epsilon)) * ones / n - 1) / math.expm1(epsilon)
        noise = rng.gamma(n, scale, size=n_reps) - rng.gamma(n, scale, size=n_reps)
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
            name = "onebit" if rule == "rr" else "laplace"
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
    from .data import threshold_distribution, threshold_error

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
                                           randomizer=randomizer or ("onebit" if rule == "rr" else "laplace"),
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
    from .data import sphere_halfspace_data

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
    from .data import masked_parity_data, masked_parity_distribution

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
