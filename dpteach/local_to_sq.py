"""Local → SQ: simulating an ε-local randomizer with statistical queries (chapter 3, alg-local-to-sq).

Rejection sampling: propose an output from a fixed reference law, accept it
with probability proportional to its likelihood ratio, estimated by one
statistical query (thm-local-to-sq; our reconstruction, the slides do not
contain this direction).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._validation import as_rng, check_finite_array, check_int, check_probability
from .randomizers import LocalRandomizer, OneBitRandomizer, RandomizedResponse
from .sq import SQOracle

__all__ = ["RejectionSamples", "simulate_local_with_sq", "rejection_output_law", "worst_case_rejection_tv"]


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
