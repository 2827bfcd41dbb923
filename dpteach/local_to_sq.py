"""Local → SQ: simulating an ε-local randomizer with statistical queries (chapter 3, Algorithm 3.14).

Rejection sampling: propose an output from a fixed reference law, accept it
with probability proportional to its likelihood ratio, estimated by one
statistical query (Theorem 3.15; our reconstruction, the slides state this
direction without its construction). Theorem 3.16's confidence boosting by
repetition and SQ validation is :func:`validate_hypotheses` and
:func:`boosting_repetitions`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numbers import Real

from ._constraints import FiniteInterval, OPEN_UNIT, Options, OrNone, POSITIVE_INT, validate_params
from ._array_constraints import Array, Callable, InstanceOf, Sequence
from ._validation import check_bits, check_memory, check_unit_interval
from .randomizers import LocalRandomizer, OneBitRandomizer, RandomizedResponse
from .sq import FILLED_IN, SQ_ORACLE

__all__ = ["RejectionSamples", "simulate_local_with_sq", "rejection_output_law", "worst_case_rejection_tv",
           "MAX_SIMULATED_QUERIES", "boosting_repetitions", "validate_hypotheses", "BoostedRun", "boost_confidence"]


# =============================================================================


@dataclass
class RejectionSamples:
    """Output of :func:`simulate_local_with_sq`.

    ``samples[i]`` is the simulated output of the i-th randomizer call (NaN
    if a non-adaptive run found no accepted proposal); ``queries_per_call[i]``
    the SQ queries it used; ``tau`` the tolerance asked; ``rounds`` the
    oracle rounds; ``failures`` the calls without an accepted proposal.

    Examples
    --------
    >>> RejectionSamples(samples=np.zeros(2), queries_per_call=np.ones(2), tau=0.1, rounds=1).n_queries
    2
    """

    _parameter_constraints = dict.fromkeys(("samples", "queries_per_call", "tau", "rounds", "failures"), FILLED_IN)

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
    """φ_w(z) = Pr[R(feature(z)) = w] / (e^ε Pr[R(z₀) = w]) ∈ [e^{−2ε}, 1] (the proposal query of Algorithm 3.14)."""
    denominator = math.exp(randomizer.epsilon) * float(randomizer.probability(np.array([w]),
                                                                               np.array([reference]))[0])

    def phi(rows):
        inputs = feature(rows)
        ratio = randomizer.probability(np.full(inputs.shape, w), inputs) / denominator
        return np.minimum(ratio, 1.0)  # <= 1 by ε-local privacy; the min only removes rounding error

    phi.output = w  # lets a custom adversary see which output a query is about
    return phi


def _check_epsilon_for_exp(epsilon):
    """e^ε and e^{2ε} must be finite floats for the proposal query; refuse ε > 350 by name."""
    if epsilon > 350:
        raise ValueError(f"epsilon = {epsilon!r} is too large for rejection sampling: the acceptance "
                         f"probabilities e^(-2ε) underflow (limit: epsilon <= 350)")


def _rejection_loop(randomizer, oracle, n_calls, tau, reference, queries_for, max_queries, rng):
    """Algorithm 3.14, adaptive: propose w ~ R(z₀), ask φ_w, accept w.p. clip(v, 0, 1); stop at the budget.

    The proposals of all pending calls are asked in one batch per round. With
    ``max_queries`` (Markov truncation, Theorem 3.16) the loop stops before
    the budget would be exceeded; calls still pending then fail (NaN).
    """
    samples = np.full(n_calls, np.nan)
    counts = np.zeros(n_calls, dtype=np.int64)
    pending = np.arange(n_calls)
    used = 0
    while pending.size:
        if max_queries is not None:
            pending = pending[:max(0, max_queries - used)]  # the budget left; the rest fail
            if not pending.size:
                break
        proposals = randomizer.randomize(np.full(pending.size, reference), rng)
        answers = oracle.query_batch([(phi, tau) for phi in queries_for(proposals)])
        used += pending.size
        counts[pending] += 1
        accept = rng.random(pending.size) < np.clip(answers, 0, 1)
        samples[pending[accept]] = proposals[accept]
        pending = pending[~accept]
    return samples, counts


def _non_adaptive_rejection(randomizer, oracle, n_calls, tau, reference, queries_for, beta, rng):
    """Algorithm 3.14, non-adaptive: k = ⌈e^ε ln(n_calls/β)/(1 − τe^ε)⌉ proposals per call in one batch.

    Each proposal is accepted with probability >= e^{−ε}(1 − τe^ε), so a call
    finds no accepted proposal with probability <= β/n_calls (then NaN).
    """
    epsilon = randomizer.epsilon
    relative = tau * math.exp(epsilon)
    if relative >= 1:
        raise ValueError(f"tau = {tau!r} is too large for a non-adaptive simulation at epsilon = "
                         f"{epsilon:g}: need tau·e^ε < 1")
    k = math.ceil(math.exp(epsilon) * math.log(n_calls / beta) / (1 - relative))
    proposals = randomizer.randomize(np.full(n_calls * k, reference), rng)
    answers = oracle.query_batch([(phi, tau) for phi in queries_for(proposals)])
    accept = (rng.random(n_calls * k) < np.clip(answers, 0, 1)).reshape(n_calls, k)
    found = accept.any(axis=1)
    first = np.argmax(accept, axis=1)
    samples = np.full(n_calls, np.nan)
    samples[found] = proposals.reshape(n_calls, k)[found, first[found]]
    return samples, np.full(n_calls, k, dtype=np.int64)


#: Largest number of proposals the simulation will ask in one call of :func:`simulate_local_with_sq`.
MAX_SIMULATED_QUERIES = 10 ** 7


#: A public input z₀ of a randomizer (a bit for randomized response: checked against it in the body).
REFERENCE = FiniteInterval(Real, None, None)


@validate_params({"randomizer": InstanceOf(LocalRandomizer, "a LocalRandomizer"),
                  "oracle": SQ_ORACLE, "n_calls": POSITIVE_INT, "tau": OPEN_UNIT,
                  "feature": OrNone(Callable("(records -> randomizer inputs)")),
                  "reference": OrNone(REFERENCE), "non_adaptive": Options((False, True)),
                  "beta": OPEN_UNIT, "max_queries": OrNone(POSITIVE_INT), "rng": "random_state"})
def simulate_local_with_sq(randomizer, oracle, n_calls, tau, feature=None, reference=None,
                           non_adaptive=False, beta=0.05, max_queries=None, rng=None):
    """Simulate ``n_calls`` reports R(z), z ~ P, using only statistical queries to P (chapter 3, Algorithm 3.14).

    Rejection sampling (our reconstruction; the slides state only the
    result): propose w ~ R(z₀) for a fixed public input z₀, ask
    φ_w(z) = Pr[R(z) = w]/(e^ε Pr[R(z₀) = w]) ∈ [e^{−2ε}, 1] at tolerance τ,
    and accept w with probability clip(v, 0, 1). With an exact oracle the
    accepted w has exactly the law q(w) = E_P Pr[R(z) = w] and a call needs
    e^ε queries on average (Theorem 3.15); with tolerance τ the law is within
    total variation τe^ε/(1 − τe^ε) of q per call
    (:func:`dpteach.bounds.rejection_sampling_tv_bound`).

    Parameters
    ----------
    randomizer : LocalRandomizer
        With ``randomize`` and ``probability`` (pmf or density); ε <= 350.
    oracle : SQOracle
        Any oracle for P (exact, noisy, adversarial, locally simulated).
    n_calls : int, >= 1
        How many reports to simulate (independent users, one report each).
    tau : float in (0, 1)
        Tolerance of every query; Theorem 3.15 suggests τ = β/(2 t e^ε).
    feature : callable, optional
        Records → the randomizer's inputs (default: the first column).
    reference : optional
        z₀, a public input of the randomizer (default 0 for randomized
        response, 0.0 otherwise).
    non_adaptive : bool
        False: propose until acceptance, one query per proposal (adaptive;
        the proposals of all pending calls are batched per round).
        True: pre-draw k = ⌈e^ε ln(n_calls/β)/(1 − τe^ε)⌉ proposals per
        call and ask all queries in one batch (non-adaptive); a call fails
        (NaN) with probability <= β/n_calls.
    beta : float in (0, 1)
        Only for ``non_adaptive``.
    max_queries : int or None
        Adaptive only: a worst-case budget for the total number of queries
        (Markov truncation, Theorem 3.16;
        :func:`dpteach.bounds.rejection_sampling_query_budget`). Calls not
        finished within it fail (NaN) and are counted in ``failures``.
    rng : None, int or Generator
        The simulator's own randomness (proposals and acceptance coins).

    Returns
    -------
    RejectionSamples

    Raises
    ------
    ValueError
        Bad ε/τ/β/n_calls/max_queries; ``non_adaptive`` with τe^ε >= 1 (no
        guarantee); a non-adaptive batch of more than
        ``MAX_SIMULATED_QUERIES`` queries.

    Privacy is not at stake here (the SQ algorithm sees no user). Cost:
    at most e^ε/(1 − τe^ε) queries per call on average (adaptive), each
    costing one oracle evaluation.

    Examples
    --------
    >>> from dpteach.randomizers import RandomizedResponse
    >>> from dpteach.sq import ExactSQOracle
    >>> oracle = ExactSQOracle(np.array([[1]]))
    >>> run = simulate_local_with_sq(randomizer=RandomizedResponse(1.0), oracle=oracle, n_calls=3, tau=0.01,
    ...                              feature=lambda rows: rows[:, 0], reference=0, rng=0)
    >>> run.samples, run.n_queries
    (array([0., 1., 0.]), 7)
    """
    check_memory(("n_calls", n_calls))
    _check_epsilon_for_exp(randomizer.epsilon)
    feature = feature if feature is not None else (lambda rows: rows[:, 0])
    if reference is None:
        reference = 0 if isinstance(randomizer, RandomizedResponse) else 0.0
    else:
        reference = _check_reference(reference, randomizer)
    if non_adaptive:
        relative = tau * math.exp(randomizer.epsilon)
        if relative < 1:
            k = math.ceil(math.exp(randomizer.epsilon) * math.log(n_calls / beta) / (1 - relative))
            if n_calls * k > MAX_SIMULATED_QUERIES:
                raise ValueError(f"n_calls = {n_calls} needs {n_calls * k:,} queries in one batch, more than "
                                 f"the limit {MAX_SIMULATED_QUERIES:,}; simulate fewer calls")
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

    rounds_before = oracle.rounds
    if non_adaptive:
        samples, counts = _non_adaptive_rejection(randomizer, oracle, n_calls, tau, reference, queries_for,
                                                  beta, rng)
    else:
        samples, counts = _rejection_loop(randomizer, oracle, n_calls, tau, reference, queries_for,
                                          max_queries, rng)
    return RejectionSamples(samples, counts, tau, oracle.rounds - rounds_before, int(np.isnan(samples).sum()))


@validate_params({"proposal_probabilities": Array(ndim=1), "answers": Array(ndim=1)})
def rejection_output_law(proposal_probabilities, answers):
    """Exact law of the rejection sampler for a finite output set, given the oracle's answers.

    With proposals w ~ p0 and acceptance probability a_w = clip(answer_w, 0, 1),
    the accepted output has law ∝ p0(w)·a_w and each call asks
    1/Σ_w p0(w) a_w queries on average (geometric number of proposals).

    Returns
    -------
    (law, expected_queries) : (ndarray, float)

    Examples
    --------
    >>> law, queries = rejection_output_law(proposal_probabilities=np.array([0.5, 0.5]), answers=np.array([0.6, 0.4]))
    >>> law, queries
    (array([0.6, 0.4]), 2.0)
    """
    p0 = proposal_probabilities
    if answers.shape != p0.shape:  # a joint rule on two declared parameters
        raise ValueError(f"answers must have shape {p0.shape} (one answer per proposal), got {answers.shape}")
    a = np.clip(answers, 0, 1)
    if np.any(p0 < 0) or not np.isclose(p0.sum(), 1.0):
        raise ValueError(f"proposal_probabilities must be non-negative and sum to 1, got sum {p0.sum()!r}")
    accept = float(np.dot(p0, a))
    if accept <= 0:
        raise ValueError("answers must accept some proposal (all acceptance probabilities are 0)")
    return p0 * a / accept, 1.0 / accept


def _check_reference(reference, randomizer):
    """z₀ (a finite real, declared as ``REFERENCE``) as an input of ``randomizer``: a bit for randomized response."""
    if isinstance(randomizer, RandomizedResponse):
        if reference not in (0.0, 1.0):
            raise ValueError(f"reference must be a bit (0 or 1) for randomized response, got {reference!r}")
        return int(reference)
    return reference


@validate_params({"randomizer": InstanceOf((RandomizedResponse, OneBitRandomizer), "a randomizer with finitely many outputs "
                                            "(RandomizedResponse or OneBitRandomizer) for worst_case_rejection_tv"),
                  "values": Array(ndim=1), "value_probabilities": Array(ndim=1), "reference": REFERENCE,
                  "tau": OPEN_UNIT})
def worst_case_rejection_tv(randomizer, values, value_probabilities, reference, tau):
    """Largest total variation between the simulated and the true output law over all answers within ±τ.

    For a randomizer with finitely many outputs (randomized response, one-bit)
    and an input law P over ``values``: q(w) = Σ_v P(v) Pr[R(v) = w]. Each
    answer may be moved by ±τ. With two outputs the simulated π(w) is
    monotone in each answer, so the extremes of TV = |π(1) − q(1)| lie at the
    four corners (each answer pushed fully up or down), which are all tried.
    Compared in the chapter with the bound τe^ε/(1 − τe^ε) of Theorem 3.15;
    its worst input law is a point mass opposite the reference z₀.

    Parameters
    ----------
    randomizer : RandomizedResponse or OneBitRandomizer
    values : array_like, shape (k,)
        The randomizer inputs the law P puts mass on.
    value_probabilities : array_like, shape (k,)
        P(v) for each value (non-negative, summing to 1).
    reference : input
        The public z₀ of the proposals.
    tau : float in (0, 1)

    Returns
    -------
    float
        The worst total variation, in [0, 1]. Cost O(k).

    Examples
    --------
    >>> from dpteach.randomizers import RandomizedResponse
    >>> tv = worst_case_rejection_tv(randomizer=RandomizedResponse(1.0), values=np.array([0, 1]),
    ...                              value_probabilities=np.array([0.0, 1.0]), reference=0, tau=0.01)
    >>> round(tv, 4)
    0.0163
    """
    _check_epsilon_for_exp(randomizer.epsilon)
    if isinstance(randomizer, RandomizedResponse):
        outputs = np.array([0, 1])
    else:
        outputs = np.array([-randomizer.c, randomizer.c])
    reference = _check_reference(reference, randomizer)
    prior = value_probabilities
    if prior.shape != values.shape:  # a joint rule on two declared parameters
        raise ValueError(f"value_probabilities must have shape {values.shape} (one per value), got {prior.shape}")
    if np.any(prior < 0) or not np.isclose(prior.sum(), 1.0):
        raise ValueError(f"value_probabilities must be non-negative and sum to 1, got sum {prior.sum()!r}")
    if isinstance(randomizer, RandomizedResponse):
        values = check_bits(values, "values").astype(int)
        reference = int(check_bits(np.array([reference]), "reference")[0])
    else:
        values = check_unit_interval(values, "values")
        reference = float(check_unit_interval(np.array([reference], dtype=float), "reference")[0])
    p0 = np.array([float(randomizer.probability(np.array([w]), np.array([reference]))[0]) for w in outputs])
    q = np.array([float(np.dot(prior, randomizer.probability(np.full(values.shape, w), values))) for w in outputs])
    exact = q / (math.exp(randomizer.epsilon) * p0)
    worst = 0.0
    for signs in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        law, _ = rejection_output_law(p0, exact + tau * np.array(signs))
        worst = max(worst, 0.5 * float(np.abs(law - q).sum()))
    return worst


# --- Theorem 3.16: from constant confidence to confidence 1 − β -------------------------------------------


@validate_params({"beta": OPEN_UNIT, "base_failure": OPEN_UNIT})
def boosting_repetitions(beta, base_failure):
    """k = ⌈ln(2/β)/ln(1/β₀)⌉ independent runs, so that all k fail with probability <= β/2 (Theorem 3.16).

    Each run of a learner that fails with probability at most β₀ (against
    any legal oracle, given the earlier runs) fails independently of the
    others' coins, so all k fail with probability <= β₀^k <= β/2.

    Parameters
    ----------
    beta : float in (0, 1)
        The target failure probability of the boosted learner.
    base_failure : float in (0, 1)
        β₀, the failure probability of one run.

    Returns
    -------
    int
        k >= 1; O(log(1/β)) for a constant β₀.

    Examples
    --------
    >>> boosting_repetitions(beta=0.05, base_failure=0.25)
    3
    """
    return max(1, math.ceil(math.log(2 / beta) / math.log(1 / base_failure)))


def _error_query(hypothesis):
    """φ_h(x, y) = 2·1{h(x) ≠ y} − 1 on records whose last column is the label y ∈ {−1, +1}."""
    def phi(rows):
        predicted = np.asarray(hypothesis(rows[:, :-1]), dtype=float).reshape(-1)
        return np.where(predicted != rows[:, -1], 1.0, -1.0)
    return phi


@validate_params({"oracle": SQ_ORACLE,
                  "hypotheses": Sequence("callables h(X) -> ±1 labels", Callable("(features -> labels ±1)"),
                                         nonempty=True),
                  "alpha": OPEN_UNIT})
def validate_hypotheses(oracle, hypotheses, alpha):
    """Choose among candidate hypotheses with one batch of SQ error queries (Theorem 3.16, validation step).

    Asks φ_j = 2·1{h_j(x) ≠ y} − 1 at tolerance α/2 for every candidate (one
    non-adaptive batch; error tolerance α/4) and returns the candidate with
    the smallest answer. Against any legal oracle its error is at most
    min_j err(h_j) + α/2.

    Parameters
    ----------
    oracle : SQOracle
        Over records whose last column is the label y ∈ {−1, +1}.
    hypotheses : sequence of callables
        h_j(X) -> labels ±1 for an (m, p) array of features.
    alpha : float in (0, 1)

    Returns
    -------
    (index, error_estimates) : (int, ndarray)
        The chosen candidate and the k estimated errors (v + 1)/2.

    Cost: k queries in one round.

    Examples
    --------
    >>> from dpteach.sq import ExactSQOracle
    >>> oracle = ExactSQOracle(np.array([[0.2, 1.0], [0.8, -1.0]]), np.array([0.5, 0.5]))
    >>> hypotheses = [lambda X: np.ones(len(X)), lambda X: np.where(np.ravel(X) > 0.5, -1.0, 1.0)]
    >>> validate_hypotheses(oracle=oracle, hypotheses=hypotheses, alpha=0.2)
    (1, array([0.5, 0. ]))
    """
    answers = oracle.query_batch([(_error_query(h), alpha / 2) for h in hypotheses])
    estimates = (np.asarray(answers) + 1) / 2
    return int(np.argmin(estimates)), estimates


@dataclass
class BoostedRun:
    """Output of :func:`boost_confidence`: the chosen hypothesis, all candidates and their estimated errors.

    Examples
    --------
    >>> BoostedRun(hypothesis=abs, index=0, candidates=[abs], error_estimates=np.array([0.5])).n_runs
    1
    """

    _parameter_constraints = dict.fromkeys(("hypothesis", "index", "candidates", "error_estimates"), FILLED_IN)

    hypothesis: object
    index: int
    candidates: list
    error_estimates: np.ndarray

    @property
    def n_runs(self):
        return len(self.candidates)


# boost_confidence runs the caller's learner (a student's, perhaps): called from the top, the routines that
# learner calls check their arguments again (skip_nested=False).
@validate_params({"learner": Callable("(oracle, rng) -> hypothesis"),
                  "oracle": SQ_ORACLE, "alpha": OPEN_UNIT, "beta": OPEN_UNIT, "base_failure": OPEN_UNIT,
                  "rng": "random_state"}, skip_nested=False)
def boost_confidence(learner, oracle, alpha, beta, base_failure=0.25, rng=None):
    """Theorem 3.16's boosting: k = O(log 1/β) runs of a constant-confidence SQ learner, then SQ validation.

    Runs ``learner(oracle, rng)`` k = :func:`boosting_repetitions` (β, β₀)
    times with independent coins (each returns a hypothesis, a callable
    features -> ±1), then keeps the candidate that :func:`validate_hypotheses`
    picks at accuracy α. If each run has error <= OPT + α with probability
    >= 1 − β₀ whatever the earlier runs did, the result has error
    <= OPT + 3α/2 with probability >= 1 − β/2 (all runs failing) against
    any legal oracle. The tolerances stay those of one run and α/2: 1/τ does
    not grow with 1/β, and the number of queries grows by the factor k.

    Parameters
    ----------
    learner : callable
        ``learner(oracle, rng) -> hypothesis``.
    oracle : SQOracle
    alpha, beta, base_failure : float in (0, 1)
    rng : None, int or Generator

    Returns
    -------
    BoostedRun

    Examples
    --------
    >>> from dpteach.sq import ExactSQOracle
    >>> oracle = ExactSQOracle(np.array([[0.2, 1.0], [0.8, -1.0]]), np.array([0.5, 0.5]))
    >>> def learner(oracle, rng):
    ...     return lambda X: np.where(np.ravel(X) > 0.5, -1.0, 1.0)
    >>> run = boost_confidence(learner=learner, oracle=oracle, alpha=0.2, beta=0.05, rng=0)
    >>> run.n_runs, run.index
    (3, 0)
    """
    k = boosting_repetitions(beta, base_failure)
    candidates = [learner(oracle, rng) for _ in range(k)]
    index, estimates = validate_hypotheses(oracle, candidates, alpha)
    return BoostedRun(candidates[index], index, candidates, estimates)
