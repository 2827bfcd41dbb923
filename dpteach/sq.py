"""Statistical-query oracles (chapter 3, Definition 3.4).

:class:`SQOracle` is the interface every SQ algorithm is written against:
``query(phi, tau)`` and ``query_batch([(phi, tau), ...])``.
:class:`ExactSQOracle` answers exactly under a known finite distribution (or
a sample's empirical law); :class:`NoisySQOracle` uses its whole tolerance,
at random or adversarially, so that SQ algorithms are tested against the
worst case the definition allows.

Conventions. A *record* (one user's data) is a row of a 2-D array; a query
``phi`` is a vectorised callable mapping an (m, p) array of records to m
values in [−1, 1]. Inner products in the per-query hot paths use
``np.einsum`` rather than ``@``: a multithreaded BLAS can take milliseconds to
wake its threads for a vector product on a busy 2-core machine.
"""

from __future__ import annotations

import math

import numpy as np

from ._constraints import Check, Options, OrNone, Unchecked, validate_params
from ._array_constraints import Array, Callable, InstanceOf
from ._validation import check_choice, check_probability

__all__ = ["SQOracle", "ExactSQOracle", "NoisySQOracle", "ADVERSARIAL_STRATEGIES",
           "NotEnoughUsersError", "PrivacyLedgerError", "QueryBudgetError", "as_records", "evaluate_query"]


# =============================================================================


#: The fields of a result record of chapter 3 (LocalRun, QueryPlan, RejectionSamples, BoostedRun).
FILLED_IN = Unchecked("a record dpteach fills in from checked values")


class NotEnoughUsersError(ValueError):
    """The local simulation ran out of fresh users for a query.

    Examples
    --------
    >>> isinstance(NotEnoughUsersError("the next query needs 10 fresh users"), ValueError)
    True
    """


class PrivacyLedgerError(AssertionError):
    """Some user's privacy ledger exceeds the ε the local protocol promised.

    Examples
    --------
    >>> str(PrivacyLedgerError("user 3 answered 2 queries"))
    'user 3 answered 2 queries'
    """


class QueryBudgetError(ValueError):
    """An SQ algorithm asked more queries than the ``max_queries`` the simulation was sized for.

    Examples
    --------
    >>> isinstance(QueryBudgetError("max_queries = 2 exceeded"), ValueError)
    True
    """


def check_record_rows(data, name, allow_1d=True):
    """``data`` as a 2-D array of records, integer and boolean dtypes kept (a float copy is not needed).

    The rule of every records argument of chapter 3 (``data``, ``support``, ``rows``): numeric, 2-D (or
    1-D, read as one feature per record, when ``allow_1d``), not empty, finite.
    """
    arr = np.asarray(data)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a numeric array of records, got dtype {arr.dtype}")
    if allow_1d and arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        allowed = "1 or 2 dimension(s)" if allow_1d else "2 dimensions"
        raise ValueError(f"{name} must have {allowed} (rows are records), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must not be empty, got an array of shape {arr.shape}")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf), "
                         f"found {arr[~np.isfinite(arr)][0].item()!r}")
    return arr


def record_rows(data):
    """``data`` as a 2-D array of records without checks (a 1-D array is one feature per record), dtype kept.

    What :func:`check_record_rows` returns for valid records: the conversion a nested call still needs.
    """
    arr = np.asarray(data)
    return arr.reshape(-1, 1) if arr.ndim == 1 else arr


# Check: records as 1-D or 2-D rows with this module's conversion (record_rows).
#: The records of a distribution or a sample: 1-D (one feature) or 2-D, numeric, non-empty, finite.
RECORDS = Check(check_record_rows, array_ndim=(1, 2), convert_nested=record_rows,
                invalid=[([], "[]"), ([math.nan], "[nan]"), ([[[1.0]]], "[[[1.0]]]"), (None, "None"), ("a", "'a'")])


@validate_params({"data": RECORDS})
def as_records(data):
    """Return ``data`` as a 2-D array of records (rows), without copying integer data to float.

    A 1-D array is read as one feature per record (shape (k, 1)).

    Raises
    ------
    TypeError
        For a non-numeric dtype (strings, objects).
    ValueError
        For more than 2 dimensions, no records or no columns, NaN or inf.

    Examples
    --------
    >>> as_records(data=np.array([0.2, 0.8])).shape
    (2, 1)
    """
    return data


def query_values(phi, rows):
    """φ(rows) for validated records: checks only φ's output (one finite value in [−1, 1] per row)."""
    try:
        values = np.asarray(phi(rows), dtype=float)
    except IndexError as err:  # a shape mismatch (public), e.g. an algorithm run with d = 3 on 1-column data
        raise ValueError(f"phi reads a column the records do not have: the data has {rows.shape[1]} column(s) "
                         f"per record ({err}); give data the columns the algorithm expects (its d)") from None
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


#: A statistical query: a vectorised callable, records -> values in [−1, 1].
QUERY = Callable("records -> values in [-1, 1]")


@validate_params({"phi": QUERY,
                  # Check: 2-D records with this module's conversion (check_record_rows).
                  "rows": Check(check_record_rows, allow_1d=False, array_ndim=2, convert_nested=np.asarray,
                                invalid=[(None, "None"), ("a", "'a'")])})
def evaluate_query(phi, rows):
    """φ(rows): the values of a statistical query (Definition 3.4) on a 2-D array of records.

    Parameters
    ----------
    phi : callable
        An (m, p) array of records -> m values in [−1, 1].
    rows : array_like, shape (m, p)
        m >= 1 records, finite; integer and boolean dtypes are passed to φ unchanged.

    Returns
    -------
    ndarray of float, shape (m,)
        Cost: one call of φ plus O(m·p) for the checks.

    Raises
    ------
    TypeError
        If ``phi`` is not callable or ``rows`` is not numeric.
    ValueError
        If ``rows`` is not 2-D, is empty or holds NaN/inf, or if φ does not return
        one finite value in [−1, 1] per record.

    Examples
    --------
    >>> evaluate_query(phi=lambda rows: rows[:, 1], rows=np.array([[0.2, 1.0], [0.8, -1.0]]))
    array([ 1., -1.])
    """
    return query_values(phi, rows)


def _check_queries(queries, name="queries"):
    """Validate a batch [(phi, tau), ...]; return it as a list of pairs (phi, float tau)."""
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
    return list(zip(phis, taus))


class SQOracle:
    """A statistical-query oracle SQ_P (Definition 3.4): (φ, τ) ↦ any v with |v − E_P φ| <= τ.

    ``query(phi, tau)`` asks one query (one round); ``query_batch([(phi, tau),
    ...])`` asks a whole non-adaptive batch at once (one round). The oracle
    counts ``n_queries`` and ``rounds`` and keeps the list of ``tolerances``.
    Subclasses implement ``_answer_batch(phis, taus)``.

    Examples
    --------
    >>> SQOracle().n_queries
    0
    """

    def __init__(self):
        self.n_queries = 0
        self.rounds = 0
        self.tolerances = []

    def query(self, phi, tau):
        """Answer one statistical query; returns a float."""
        return float(self.query_batch([(phi, tau)])[0])

    # Check: a batch of (phi, tau) pairs, each pair checked: one routine's rule.
    @validate_params({"queries": Check(_check_queries, invalid=[([], "[]"), (None, "None")])})
    def query_batch(self, queries):
        """Answer a non-adaptive batch of queries in one round; returns an array of answers."""
        queries = list(queries)
        phis, taus = [phi for phi, _ in queries], np.array([tau for _, tau in queries])
        answers = np.asarray(self._answer_batch(phis, taus), dtype=float)
        self.n_queries += len(phis)
        self.rounds += 1
        self.tolerances.extend(taus.tolist())
        return answers

    def _answer_batch(self, phis, taus):  # pragma: no cover - abstract
        raise NotImplementedError


#: The weights of a finite law over records (None: uniform); their length and sum are checked against the support.
WEIGHTS = OrNone(Array(ndim=1))
#: An oracle of this module's interface (an instance of :class:`SQOracle`).
SQ_ORACLE = InstanceOf(SQOracle, "an SQOracle")


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

    Examples
    --------
    >>> oracle = ExactSQOracle(support=np.array([[0.2, 1.0], [0.8, -1.0]]), weights=np.array([0.5, 0.5]))
    >>> oracle.query(lambda rows: rows[:, 1], tau=0.1)
    0.0
    """

    @validate_params({"support": RECORDS, "weights": WEIGHTS})
    def __init__(self, support, weights=None):
        super().__init__()
        self.support = support
        k = self.support.shape[0]
        if weights is None:
            self.weights = np.full(k, 1.0 / k)
        else:
            w = weights
            if w.shape != (k,):
                raise ValueError(f"weights must have one entry per support point ({k}), got shape {w.shape}")
            if np.any(w < 0) or not np.isclose(w.sum(), 1.0, rtol=0, atol=1e-9):
                raise ValueError(f"weights must be non-negative and sum to 1, got sum {w.sum()!r}")
            self.weights = w / w.sum()

    def expectation(self, phi):
        """E_P φ exactly (not counted as a query: for evaluation and for noisy oracles)."""
        if not callable(phi):
            raise TypeError(f"phi must be callable, got {type(phi).__name__}")
        return float(np.einsum("i,i->", self.weights, query_values(phi, self.support)))

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


def _strategy_function(strategy):
    """The adversary ``strategy`` names (a name of :data:`ADVERSARIAL_STRATEGIES`), or the callable itself."""
    return ADVERSARIAL_STRATEGIES[strategy] if isinstance(strategy, str) else strategy


def _check_strategy(strategy, name):
    """A name in :data:`ADVERSARIAL_STRATEGIES` or a callable; returned as the callable."""
    if isinstance(strategy, str):
        check_choice(strategy, name, tuple(ADVERSARIAL_STRATEGIES))
    elif not callable(strategy):
        raise TypeError(f"{name} must be a name in {tuple(ADVERSARIAL_STRATEGIES)} or a callable, "
                        f"got {type(strategy).__name__}")
    return _strategy_function(strategy)


class NoisySQOracle(SQOracle):
    """An SQ oracle that uses its whole tolerance: random or adversarial answers within ±τ (Definition 3.4).

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

    Examples
    --------
    >>> base = ExactSQOracle(support=np.array([[0.2, 1.0], [0.8, -1.0]]))
    >>> oracle = NoisySQOracle(base=base, mode="adversarial", strategy="plus", rng=0)
    >>> oracle.query(lambda rows: rows[:, 1], tau=0.1)
    0.1
    """

    @validate_params({"base": InstanceOf(ExactSQOracle, "an ExactSQOracle"),
                      "mode": Options(("random", "adversarial")),
                      # Check: a strategy name or a callable, returned as the callable.
                      "strategy": Check(_check_strategy, convert_nested=_strategy_function,
                                        invalid=[("no-such-strategy", "'no-such-strategy'"), (None, "None")]),
                      "rng": "random_state"})
    def __init__(self, base, mode="adversarial", strategy="shrink", rng=None):
        super().__init__()
        self.base = base
        self.mode = mode
        self.strategy = strategy
        self.rng = rng

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
