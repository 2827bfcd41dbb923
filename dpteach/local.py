"""SQ → local: answering statistical queries with ε-local randomizers (chapter 3).

Every query is answered by a fresh, disjoint group of m users
(Algorithm 3.8; :func:`group_size` from Theorem 3.9), with a per-user
privacy ledger, and the failure probability is bounded by the union bound
(Theorem 3.10): :class:`LocalSimulatedSQOracle`, :func:`simulate_sq_locally`.

The rest of chapter 3 has one home each (import it from there): the group
sizes (:mod:`dpteach.group_sizes`), the randomizers (:mod:`dpteach.randomizers`),
the oracles (:mod:`dpteach.sq`), the SQ algorithms (:mod:`dpteach.sq_algorithms`),
local → SQ (:mod:`dpteach.local_to_sq`), the learners (:mod:`dpteach.local_learners`)
and the experiment runners (:mod:`dpteach.experiments.local`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from numbers import Real

from ._validation import check_finite_array, check_memory
from ._constraints import Check, Epsilon, FiniteInterval, Options, OrNone, POSITIVE_INT, Unchecked, validate_params
from ._array_constraints import Callable, InstanceOf
from .composition import parallel_composition
from .group_sizes import (RULE_CONSTRAINTS, UNIT, check_rule_randomizer, group_size_prechecked,
                          tolerance_for_group_prechecked)
from .privacy import privacy_claim
from .randomizers import LaplaceRandomizer, OneBitRandomizer, make_randomizer
from .sq import (FILLED_IN, RECORDS, WEIGHTS, ExactSQOracle, NotEnoughUsersError, PrivacyLedgerError,
                 QueryBudgetError, SQOracle, query_values)

__all__ = ["LocalSimulatedSQOracle", "ReusingLocalSQOracle", "FastLocalSQOracle",
           "QueryPlan", "query_plan", "users_needed", "LocalRun", "simulate_sq_locally",
           "sample_group_averages"]


# =============================================================================


# The contract shared by the local simulations (each parameter as in LocalSimulatedSQOracle's docstring).
SIMULATION_CONSTRAINTS = {"epsilon": Epsilon(), "beta": UNIT, "max_queries": POSITIVE_INT, **RULE_CONSTRAINTS,
                          "split": Options(("tolerance", "equal")), "rng": "random_state"}


class _LocalSQOracleBase(SQOracle):
    """Shared bookkeeping of the local simulations: group sizes, query budget, union bound.

    Takes the values its subclasses' declared constraints checked (only the joint rules are checked here).
    """

    def __init__(self, n_users, epsilon, beta, max_queries, randomizer, rule, split, rng):
        super().__init__()
        self.epsilon = epsilon
        self.beta = beta
        self.max_queries = max_queries
        self.rule = rule
        self.randomizer_name = check_rule_randomizer(rule, randomizer)
        self.randomizer = make_randomizer(self.randomizer_name, self.epsilon)
        self.split = split
        self.n_users = n_users
        if split == "equal":
            if n_users is None:
                raise ValueError("split='equal' needs n_users (the users to divide among max_queries groups)")
            if n_users < self.max_queries:
                raise NotEnoughUsersError(f"n_users = {n_users} is smaller than max_queries = "
                                          f"{self.max_queries}: split='equal' needs >= 1 user per query")
        self.rng = rng
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
        return group_size_prechecked(self.epsilon, tau, self.beta_per_query, self.rule, self.randomizer_name)

    @property
    def failure_probability(self):
        """Union bound on Pr[some answer so far is invalid]: n_queries·β/t <= β (Theorem 3.10)."""
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
                tolerance_for_group_prechecked(self.epsilon, m, self.beta_per_query, self.rule, self.randomizer_name))
        return answers


@privacy_claim(theorem="thm-sq-to-local", epsilon="epsilon", delta=0.0, model="local")
class LocalSimulatedSQOracle(_LocalSQOracleBase):
    """An SQ oracle simulated by ε-local randomizers on real users (Algorithm 3.8).

    Query j (tolerance τ_j) is answered by a fresh group S_j of
    m_j = ``group_size(ε, τ_j, β/t, rule)`` users, disjoint from all earlier
    groups: each user in S_j releases R(φ_j(z_i)) once (Laplace or one-bit
    randomizer) and the answer is the average. By Theorem 3.10 every answer
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

    Examples
    --------
    >>> from dpteach.sq_algorithms import sq_mean
    >>> data = np.linspace(-1, 1, 400).reshape(-1, 1)
    >>> oracle = LocalSimulatedSQOracle(data=data, epsilon=1.0, beta=0.05, max_queries=2, rule="clt", rng=0)
    >>> sq_mean(oracle, d=1, tau=0.5).round(3), oracle.users_used, oracle.max_user_epsilon
    (array([0.358]), 181, 1.0)
    """

    @validate_params({"data": RECORDS, **SIMULATION_CONSTRAINTS})
    def __init__(self, data, epsilon, beta, max_queries, randomizer="laplace", rule="theorem",
                 split="tolerance", rng=None):
        self.data = data
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
        values = query_values(phi, self.data[group])
        outputs = self.randomizer.randomize_prechecked(values, self.rng)  # one ε-local report per user (φ checked)
        self.ledger[group] += self.epsilon
        self.groups.append(group)
        return float(np.mean(self.randomizer.estimate(outputs)))

    @property
    def max_user_epsilon(self):
        """max_i (sum of the ε of every randomizer applied to user i): the protocol's local ε."""
        return float(self.ledger.max())

    def privacy_guarantee(self):
        """(ε, 0) by parallel composition over the disjoint groups (parallel composition, chapter 1).

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
                f"epsilon = {self.epsilon:g}-local; the groups of Theorem 3.10 must be disjoint")
        return worst


class ReusingLocalSQOracle(LocalSimulatedSQOracle):
    """A deliberately WRONG local simulation: every query asks the *same* first users again.

    Its answers look just as good, but a user in every group answers t
    queries with ε-local randomizers, so by composition the protocol is only
    tε-local. The per-user ledger exposes it: :meth:`check_privacy` raises
    :class:`PrivacyLedgerError` reporting t·ε. For the chapter's demonstration
    and the tests only.

    Examples
    --------
    >>> from dpteach.sq_algorithms import sq_mean
    >>> data = np.linspace(-1, 1, 400).reshape(-1, 1)
    >>> oracle = ReusingLocalSQOracle(data=data, epsilon=1.0, beta=0.05, max_queries=2, rule="clt", rng=0)
    >>> _ = sq_mean(oracle, d=1, tau=0.5), sq_mean(oracle, d=1, tau=0.5)
    >>> oracle.max_user_epsilon
    2.0
    """

    def _take_users(self, m):
        if m > self.n_users:
            raise NotEnoughUsersError(f"data has n = {self.n_users} users, the query needs m = {m}")
        self.users_used = max(self.users_used, m)
        return self.order[:m]


@validate_params({"m": POSITIVE_INT, "mean_phi": FiniteInterval(Real, -1, 1, closed="both"),
                  "randomizer": InstanceOf((LaplaceRandomizer, OneBitRandomizer), "a LaplaceRandomizer or OneBitRandomizer"),
                  "size": OrNone(POSITIVE_INT), "rng": "random_state"})
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

    Examples
    --------
    >>> from dpteach.randomizers import LaplaceRandomizer
    >>> sample_group_averages(m=10, mean_phi=0.0, randomizer=LaplaceRandomizer(1.0), size=3, rng=0).round(3)
    array([0.951, 0.008, 0.184])
    """
    mu = mean_phi
    shape = () if size is None else (size,)
    check_memory(*[("size", s) for s in shape])
    if isinstance(randomizer, OneBitRandomizer):
        c = randomizer.c
        plus = rng.binomial(m, (1 + mu / c) / 2, size=shape)
        out = c * (2.0 * plus - m) / m
    else:
        plus = rng.binomial(m, (1 + mu) / 2, size=shape)
        noise = randomizer.noise_sum(m, rng, size=shape)
        out = (2.0 * plus - m + noise) / m
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

    Examples
    --------
    >>> from dpteach.sq_algorithms import sq_mean
    >>> support = np.array([[0.2, 1.0], [0.8, -1.0]])
    >>> oracle = FastLocalSQOracle(support=support, weights=np.array([0.5, 0.5]), epsilon=1.0, beta=0.05,
    ...                            max_queries=2, rng=0)
    >>> sq_mean(oracle, d=1, tau=0.5).round(3), oracle.users_used
    (array([0.539]), 2599)
    """

    @validate_params({"support": RECORDS, "weights": WEIGHTS, **SIMULATION_CONSTRAINTS,
                      "n_users": OrNone(POSITIVE_INT)})
    def __init__(self, support, weights, epsilon, beta, max_queries, randomizer="laplace",
                 rule="theorem", split="tolerance", n_users=None, rng=None):
        self.population = ExactSQOracle(support, weights)
        super().__init__(n_users, epsilon, beta, max_queries, randomizer, rule, split, rng)

    def _group_answer(self, phi, m):
        if self.n_users is not None and self.users_used + m > self.n_users:
            raise NotEnoughUsersError(
                f"n_users = {self.n_users}, {self.users_used} already used, and the next query needs "
                f"m = {m} fresh users")
        self.users_used += m
        values = query_values(phi, self.population.support)
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
        noise = self.randomizer.noise_sum(m, self.rng)
        return float((np.dot(counts, distinct) + noise) / m)

    @property
    def max_user_epsilon(self):
        return self.epsilon if self.n_queries else 0.0

    def check_privacy(self):
        return self.max_user_epsilon


class _RecordingOracle(SQOracle):
    """Answers 0 to everything and records the tolerances as asked: for :func:`query_plan_prechecked`.

    Its ``query_batch`` checks nothing (a dry run releases nothing, and the bisection of
    ``smallest_feasible_alpha`` asks some 40 plans): :func:`query_plan` checks the tolerances once, at the end, and
    the simulation's oracle checks every query it answers.
    """

    def __init__(self):  # SQOracle's fields, without its (empty) contract's entry: one recorder per plan
        self.n_queries, self.rounds, self.tolerances = 0, 0, []

    def query_batch(self, queries):
        taus = [tau for _, tau in queries]
        self.n_queries += len(taus)
        self.rounds += 1
        self.tolerances.extend(taus)
        return np.zeros(len(taus))


@dataclass(frozen=True)
class QueryPlan:
    """The tolerances an SQ algorithm asks, and in how many rounds (batches).

    Examples
    --------
    >>> QueryPlan(tolerances=(0.1,), rounds=1).n_queries
    1
    """

    _parameter_constraints = dict.fromkeys(("tolerances", "rounds"), FILLED_IN)

    tolerances: tuple
    rounds: int

    @property
    def n_queries(self):
        return len(self.tolerances)


# query_plan runs the caller's algorithm (a student's, perhaps): called from the top, the routines that
# algorithm calls check their arguments again (skip_nested=False).
@validate_params({"sq_algorithm": Callable("sq_algorithm(oracle, **kwargs)")}, skip_nested=False)
def query_plan(sq_algorithm, **algorithm_kwargs):
    """Dry-run ``sq_algorithm(oracle, **kwargs)`` against an oracle answering 0 and record its queries.

    Valid for algorithms whose number of queries and tolerances do not depend
    on the answers — true for every algorithm in this module — which is what
    the simulation needs to size its groups (t and the τ_j) up front.

    Examples
    --------
    >>> from dpteach.sq_algorithms import sq_threshold_binary_search
    >>> query_plan(sq_threshold_binary_search, alpha=0.2)
    QueryPlan(tolerances=(0.05, 0.05, 0.05, 0.05), rounds=4)
    """
    plan = query_plan_prechecked(sq_algorithm, **algorithm_kwargs)
    # the tolerances the algorithm asked, checked once (the recorder does not check each query)
    return QueryPlan(tuple(_check_plan(plan, "tau").tolist()) if plan.n_queries else (), plan.rounds)


def query_plan_prechecked(sq_algorithm, **algorithm_kwargs):
    """:func:`query_plan`'s body on a checked callable: the bisection of ``smallest_feasible_alpha`` calls it."""
    recorder = _RecordingOracle()
    sq_algorithm(recorder, **algorithm_kwargs)
    return QueryPlan(tuple(recorder.tolerances), recorder.rounds)


def _check_plan(plan, name):
    """The tolerances of a :class:`QueryPlan` (or a sequence of them) as a 1-D float array, each in (0, 1)."""
    taus = check_finite_array(plan.tolerances if isinstance(plan, QueryPlan) else plan, name, ndim=1)
    if np.any((taus <= 0) | (taus >= 1)):
        raise ValueError(f"{name} must contain tolerances in (0, 1), got {taus[(taus <= 0) | (taus >= 1)][0]!r}")
    return taus


# Check: a QueryPlan or a sequence of tolerances, returned as the tolerances.
@validate_params({"plan": Check(_check_plan, invalid=[([], "empty"), ([1.5], "[1.5]"), ("a", "'a'"),
                                                       ([math.nan], "[nan]"), ([[[1.0]]], "[[[1.0]]]")]),
                  "epsilon": Epsilon(), "beta": UNIT, **RULE_CONSTRAINTS})
def users_needed(plan, epsilon, beta, rule="theorem", randomizer=None):
    """n = Σ_j group_size(ε, τ_j, β/t) users to simulate a plan of t queries (Theorem 3.10).

    ``plan`` is a :class:`QueryPlan` or a sequence of tolerances. Equal τ_j
    share one group-size computation. Returns an int.

    Examples
    --------
    >>> from dpteach.sq_algorithms import sq_threshold_binary_search
    >>> users_needed(plan=query_plan(sq_threshold_binary_search, alpha=0.2), epsilon=1.0, beta=0.05)
    1181356
    """
    return users_needed_prechecked(plan, epsilon, beta, rule, check_rule_randomizer(rule, randomizer))


def users_needed_prechecked(plan, epsilon, beta, rule, randomizer):
    """:func:`users_needed`'s body on checked arguments (``randomizer`` a name, as ``check_rule_randomizer`` gives it).

    The bisection of ``smallest_feasible_alpha`` calls it once per α it tries.
    """
    taus = np.asarray(plan.tolerances if isinstance(plan, QueryPlan) else plan, dtype=float)
    per_query_beta = beta / taus.size
    distinct, counts = np.unique(taus, return_counts=True)
    return int(sum(int(k) * group_size_prechecked(epsilon, float(tau), per_query_beta, rule, randomizer)
                   for tau, k in zip(distinct, counts)))


@dataclass
class LocalRun:
    """What :func:`simulate_sq_locally` reports about one local run of an SQ algorithm.

    ``epsilon`` is the protocol's guarantee from parallel composition over
    the disjoint groups; ``max_user_epsilon`` is the per-user ledger's
    maximum (equal to ε for a correct run); ``failure_probability`` is the
    union bound n_queries·β/t <= β on an invalid answer; ``interactive`` is
    True when the algorithm used more than one round.

    Examples
    --------
    >>> run = LocalRun(output=None, n_users=10, users_used=8, n_queries=2, max_queries=2, rounds=1, epsilon=1.0,
    ...                max_user_epsilon=1.0, failure_probability=0.05)
    >>> run.interactive, run.guaranteed
    (False, True)
    """

    _parameter_constraints = dict.fromkeys(
        ("output", "n_users", "users_used", "n_queries", "max_queries", "rounds", "epsilon", "max_user_epsilon",
         "failure_probability", "group_sizes", "achieved_tolerances", "rule"), FILLED_IN)

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
    rule: str = "theorem"

    @property
    def interactive(self):
        return self.rounds > 1

    @property
    def guaranteed(self):
        """True when the group sizes come from a proved bound (every rule but "clt")."""
        return self.rule != "clt"

    def summary(self):
        kind = "interactive" if self.interactive else "non-interactive"
        if self.guaranteed:
            validity = f"Pr[some answer invalid] <= {self.failure_probability:.3g}"
        else:
            validity = (f"rule 'clt': Pr[some answer invalid] ≈ {self.failure_probability:.3g} by a normal "
                        "approximation, not a guarantee")
        return (f"{self.n_queries} queries in {self.rounds} round(s) ({kind});\n"
                f"  {self.users_used:,} of {self.n_users:,} users, each used once; "
                f"ε = {self.epsilon:g} per user (ledger max {self.max_user_epsilon:g});\n"
                f"  {validity}")


# simulate_sq_locally runs the caller's algorithm (a student's, perhaps) with the caller's keyword arguments:
# called from the top, the routines it calls check their arguments again (skip_nested=False).
@privacy_claim(theorem="thm-sq-to-local", epsilon="epsilon", delta=0.0, model="local")
@validate_params({"sq_algorithm": Callable("sq_algorithm(oracle, **kwargs)"),
                  "data": RECORDS, **SIMULATION_CONSTRAINTS, "max_queries": OrNone(POSITIVE_INT),
                  "reuse_users": Options((False, True)),
                  "algorithm_kwargs": Unchecked("passed on to sq_algorithm, whose own contract checks them")},
                 skip_nested=False)
def simulate_sq_locally(sq_algorithm, data, epsilon, beta, max_queries=None, randomizer="laplace",
                        rule="theorem", split="tolerance", reuse_users=False, rng=None,
                        **algorithm_kwargs):
    """Run an SQ algorithm as an ε-local algorithm on the users in ``data`` (chapter 3, Theorem 3.10).

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

    Examples
    --------
    >>> from dpteach.sq_algorithms import sq_mean
    >>> data = np.linspace(-1, 1, 400).reshape(-1, 1)
    >>> run = simulate_sq_locally(sq_mean, data, 1.0, 0.05, rule="clt", rng=0, d=1, tau=0.5)
    >>> run.output.round(3), run.users_used, run.epsilon
    (array([0.269]), 139, 1.0)
    """
    if max_queries is None:
        max_queries = query_plan(sq_algorithm, **algorithm_kwargs).n_queries
    oracle_class = ReusingLocalSQOracle if reuse_users else LocalSimulatedSQOracle
    oracle = oracle_class(data, epsilon, beta, max_queries, randomizer=randomizer, rule=rule,
                          split=split, rng=rng)
    output = sq_algorithm(oracle, **algorithm_kwargs)
    total_epsilon, _ = oracle.privacy_guarantee()  # raises PrivacyLedgerError for a reusing oracle
    return LocalRun(output, oracle.n_users, oracle.users_used, oracle.n_queries, oracle.max_queries,
                    oracle.rounds, total_epsilon, oracle.max_user_epsilon, oracle.failure_probability,
                    list(oracle.group_sizes), list(oracle.achieved_tolerances), rule)
