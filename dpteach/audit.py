"""Empirical privacy audits: a statistical *lower bound* on a mechanism's ε.

If M is (ε, δ)-DP then for every pair of neighbours D, D' and every event E,

    P[M(D) ∈ E] <= e^ε P[M(D') ∈ E] + δ,                    (eq-audit-inequality)

so ε >= ln((P[M(D) ∈ E] − δ) / P[M(D') ∈ E]). The audit runs M many times on
D and on D', estimates both probabilities with exact Clopper–Pearson
intervals, and turns the pessimistic ends of the intervals into a lower
confidence bound on ε. A correct mechanism must stay below its claimed ε; a
bound above the claim proves (with the stated confidence) a privacy bug.

An audit can only find bugs that the chosen neighbours and event expose, so
choose the differing record at the sensitivity bound and the event in the
tail. Choosing the event on the same runs used to certify it inflates the
bound; :func:`audit` therefore selects on one batch and certifies on a fresh one.

Mechanisms are passed *vectorised*: ``mechanism(data, n_trials, rng)`` returns
an array whose first axis has the n_trials independent outputs. Wrap a
one-output function with :func:`repeat`.
"""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np
from scipy import stats

from ._constraints import OPEN_UNIT, POSITIVE_INT, Delta, OrNone, Unchecked, validate_params
from ._array_constraints import Array, Callable, Sequence
from ._validation import check_memory

__all__ = [
    "AuditResult",
    "clopper_pearson",
    "epsilon_lower_bound",
    "audit",
    "repeat",
    "threshold_events",
    "value_events",
]


@dataclass(frozen=True)
class AuditResult:
    """What an audit measured.

    ``epsilon_lower`` is the lower confidence bound on ε (0 if nothing was
    found); ``p_hat`` and ``q_hat`` are the empirical P[M(D) ∈ E] and
    P[M(D') ∈ E]; ``event_name`` describes the event used. ``degenerate`` is None,
    or why the pair could show nothing (D and D' are the same bits, or the
    mechanism gave one and the same output in every run on both): then
    ε_lower = 0 is "nothing to audit", not a passed audit.

    Examples
    --------
    >>> result = AuditResult(epsilon_lower=0.5, p_hat=0.4, q_hat=0.2, n_trials=100, confidence=0.95, delta=0.0)
    >>> round(float(result.epsilon_point), 4)
    0.6931
    """

    epsilon_lower: float
    p_hat: float
    q_hat: float
    n_trials: int
    confidence: float
    delta: float
    event_name: str = "event"
    degenerate: str | None = None

    # A record the audit fills in from its checked arguments and its counts: nothing to check.
    _parameter_constraints = dict.fromkeys(
        ("epsilon_lower", "p_hat", "q_hat", "n_trials", "confidence", "delta", "event_name", "degenerate"),
        Unchecked("a record dpteach fills in from checked values"))

    @property
    def epsilon_point(self):
        """The plug-in estimate max |ln(p/q)| (no confidence; for plots, never for claims)."""
        return _point_estimate(self.p_hat, self.q_hat, self.delta)

    def __str__(self):
        if self.degenerate is not None:
            return f"nothing to audit: {self.degenerate}"
        return (f"ε lower bound {self.epsilon_lower:.3f} at {self.confidence:.0%} confidence "
                f"(event {self.event_name}: P[M(D)∈E]≈{self.p_hat:.4f}, "
                f"P[M(D')∈E]≈{self.q_hat:.4f}, {self.n_trials} trials each)")


@validate_params({"trials": POSITIVE_INT, "confidence": OPEN_UNIT, "successes": Array()})
def clopper_pearson(successes, trials, confidence):
    """Exact two-sided Clopper–Pearson interval for a binomial proportion.

    Parameters
    ----------
    successes : int or array_like of int
        Counts, each a whole number in [0, trials].
    trials : int, >= 1
    confidence : float in (0, 1)

    Returns
    -------
    (low, high) with P[low <= p <= high] >= ``confidence`` for every p.

    Raises
    ------
    ValueError, TypeError
        A count that is not a whole number in [0, trials] (e.g. 11 successes in 10 trials),
        trials < 1, or a confidence outside (0, 1).

    Examples
    --------
    >>> low, high = clopper_pearson(successes=3, trials=10, confidence=0.95)
    >>> round(float(low), 4), round(float(high), 4)
    (0.0667, 0.6525)
    """
    bad = (successes < 0) | (successes > trials) | (successes != np.round(successes))
    if np.any(bad):
        raise ValueError(f"successes must be whole numbers in [0, trials={trials}], "
                         f"found {successes[bad].ravel()[0].item()!r}")
    alpha = 1.0 - confidence
    low = np.where(successes > 0, stats.beta.ppf(alpha / 2, successes, trials - successes + 1), 0.0)
    high = np.where(successes < trials, stats.beta.ppf(1 - alpha / 2, successes + 1, trials - successes), 1.0)
    return low, high


def _log_ratio(numerator, denominator, delta):
    """ln((numerator − δ)/denominator), or −inf where it is undefined (no evidence)."""
    numerator = np.asarray(numerator, dtype=float) - delta
    denominator = np.asarray(denominator, dtype=float)
    ok = (numerator > 0) & (denominator > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, np.log(np.where(ok, numerator / np.where(ok, denominator, 1), 1)), -np.inf)


def _point_estimate(p, q, delta):
    # The four forms of (eq-audit-inequality): E and its complement, D and D' swapped.
    candidates = [_log_ratio(p, q, delta), _log_ratio(q, p, delta),
                  _log_ratio(1 - p, 1 - q, delta), _log_ratio(1 - q, 1 - p, delta)]
    return np.maximum(np.max(candidates, axis=0), 0.0)


def _lower_bound(count_d, count_neighbour, n_trials, delta, confidence):
    """Lower confidence bound on ε from event counts on D and D' (vectorised over events).

    Each probability gets a two-sided interval at level 1 − (1 − confidence)/2,
    so both intervals hold together with probability >= confidence (Bonferroni);
    on that event all four forms of (eq-audit-inequality) below are valid lower bounds at once.
    """
    per_interval = 1 - (1 - confidence) / 2
    p_low, p_high = clopper_pearson(count_d, n_trials, per_interval)
    q_low, q_high = clopper_pearson(count_neighbour, n_trials, per_interval)
    candidates = [_log_ratio(p_low, q_high, delta), _log_ratio(q_low, p_high, delta),
                  _log_ratio(1 - p_high, 1 - q_low, delta), _log_ratio(1 - q_high, 1 - p_low, delta)]
    return np.maximum(np.max(candidates, axis=0), 0.0)


def _run(mechanism, data, n_trials, rng):
    outputs = mechanism(data, n_trials, rng)
    outputs = np.asarray(outputs)
    if outputs.shape[:1] != (n_trials,):
        raise ValueError(f"mechanism must return an array whose first axis has n_trials={n_trials} "
                         f"outputs, got shape {outputs.shape}; wrap a one-output mechanism with repeat()")
    return outputs


def _count(event, outputs):
    inside = np.asarray(event(outputs), dtype=bool)
    if inside.shape != outputs.shape[:1]:
        raise ValueError(f"event must return one boolean per output (shape {outputs.shape[:1]}), "
                         f"got shape {inside.shape}")
    return int(inside.sum())


def _same_bits(a, b):
    """Whether two audit inputs are bit-for-bit the same (arrays, numbers, or tuples/lists of them)."""
    if a is b:
        return True
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same_bits(x, y) for x, y in zip(a, b))
    try:
        a, b = np.asarray(a), np.asarray(b)
    except Exception:  # an input the audit cannot read (the data are opaque to it): not provably the same
        return False
    if a.dtype.hasobject or b.dtype.hasobject or a.dtype != b.dtype or a.shape != b.shape:
        return False
    return a.tobytes() == b.tobytes()


def _constant(outputs_d, outputs_neighbour):
    """Whether every run on D and on D' gave the same output (NaN never counts as the same)."""
    if outputs_d.dtype.hasobject or outputs_neighbour.dtype.hasobject \
            or outputs_d.shape[1:] != outputs_neighbour.shape[1:]:
        return False
    rows = np.concatenate([outputs_d, outputs_neighbour]).reshape(len(outputs_d) + len(outputs_neighbour), -1)
    return bool(np.all(rows == rows[:1]))


def _degenerate(dataset, neighbour, outputs_d, outputs_neighbour):
    """Why the pair can show nothing (the reliability review's F6), or None."""
    if _same_bits(dataset, neighbour):
        return ("same bits: D and D' are the same doubles (e.g. a record at 1e300 and its neighbour 1e300 − 1), "
                "so no audit can tell them apart")
    if _constant(outputs_d, outputs_neighbour):
        return ("same output: the mechanism gave one output in every run on D and on D' (e.g. a candidate that "
                "wins with probability 1 on both), so the pair exposes nothing")
    return None


_MECHANISM = Callable("mechanism(data, n_trials, rng) -> n_trials outputs")
_DATA = Unchecked("the mechanism's input, whatever it accepts: the audit only passes it on")
_COMMON = {"n_trials": POSITIVE_INT, "delta": Delta(), "confidence": OPEN_UNIT, "mechanism": _MECHANISM,
           "dataset": _DATA, "neighbour": _DATA}


# The audits run the caller's mechanism (a student's, perhaps): the routines it calls check their own
# arguments (skip_nested=False), as if called from the top.
@validate_params({**_COMMON, "event": Callable("event(outputs) -> booleans"),
                  "rng": "random_state"}, skip_nested=False)
def epsilon_lower_bound(mechanism, dataset, neighbour, event, n_trials, delta=0.0,
                        confidence=0.95, rng=None):
    """Lower confidence bound on the ε of ``mechanism`` from one fixed event (Eq. (eq-audit-inequality) of chapter 1).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, n_trials, rng)`` → array with n_trials outputs on axis 0.
    dataset, neighbour
        Two neighbouring inputs (differing in one record).
    event : callable
        ``event(outputs)`` → boolean array, one entry per output. Must be fixed
        before the runs (choosing it on these runs invalidates the bound).
    n_trials : int
        Runs on each of the two inputs, >= 1.
    delta : float
        The δ the mechanism claims, 0 <= δ < 1 (subtracted as in (eq-audit-inequality)).
    confidence : float
        Joint confidence level of the bound, in (0, 1).
    rng : None, int or Generator

    Returns
    -------
    AuditResult
        ``epsilon_lower`` is the largest of the four forms of (eq-audit-inequality) (E or its
        complement; D and D' in either order), at the given confidence.
        ``degenerate`` says why the pair is "nothing to audit" (D and D' the same bits, or one
        constant output on both), else None. Cost: 2·n_trials runs of the mechanism.

    Examples
    --------
    >>> def mechanism(data, n_trials, rng):
    ...     return rng.laplace(float(np.sum(data)), 1.0, size=n_trials)
    >>> event = threshold_events([0.5])[0]
    >>> result = epsilon_lower_bound(mechanism=mechanism, dataset=np.zeros(3), neighbour=np.array([0.0, 0, 1]),
    ...                              event=event, n_trials=50, rng=0)
    >>> result.epsilon_lower <= 1.0
    True
    """
    check_memory(("n_trials", n_trials))  # the mechanism returns n_trials outputs at once, twice
    outputs_d = _run(mechanism, dataset, n_trials, rng)
    outputs_neighbour = _run(mechanism, neighbour, n_trials, rng)
    count_d, count_neighbour = _count(event, outputs_d), _count(event, outputs_neighbour)
    bound = float(_lower_bound(count_d, count_neighbour, n_trials, delta, confidence))
    return AuditResult(bound, count_d / n_trials, count_neighbour / n_trials, n_trials,
                       confidence, delta, getattr(event, "__name__", "event"),
                       _degenerate(dataset, neighbour, outputs_d, outputs_neighbour))


@validate_params({**_COMMON, "n_select": OrNone(POSITIVE_INT),
                  "events": Sequence("callables", Callable("event(outputs) -> booleans"), nonempty=True),
                  "rng": "random_state"},
                 skip_nested=False)
def audit(mechanism, dataset, neighbour, events, n_trials, delta=0.0,
          confidence=0.95, n_select=None, rng=None):
    """Choose the most revealing event on one batch of runs, then certify it on fresh runs.

    Step 1 (selection): run the mechanism ``n_select`` times (default
    n_trials) on D and D', and pick the event in ``events`` with the largest
    lower bound (ties: the larger plug-in estimate). Step 2 (certification):
    :func:`epsilon_lower_bound` with that event on ``n_trials`` *new* runs.
    Because the event is fixed before the certifying runs, the confidence
    statement of step 2 holds as it is; no multiple-testing penalty is needed.

    Parameters are as in :func:`epsilon_lower_bound`; ``events`` is a
    non-empty sequence of event callables, e.g. from :func:`threshold_events`.
    Cost: 2·(n_select + n_trials) runs.

    Examples
    --------
    >>> def mechanism(data, n_trials, rng):
    ...     return rng.laplace(float(np.sum(data)), 1.0, size=n_trials)
    >>> events = threshold_events([0.0, 0.5])
    >>> result = audit(mechanism=mechanism, dataset=np.zeros(3), neighbour=np.array([0.0, 0, 1]),
    ...                events=events, n_trials=50, rng=0)
    >>> result.epsilon_lower <= 1.0
    True
    """
    check_memory(("n_trials", n_trials))
    n_select = n_trials if n_select is None else n_select
    check_memory(("n_select", n_select))
    outputs_d = _run(mechanism, dataset, n_select, rng)
    outputs_neighbour = _run(mechanism, neighbour, n_select, rng)
    counts_d = np.array([_count(e, outputs_d) for e in events])
    counts_neighbour = np.array([_count(e, outputs_neighbour) for e in events])
    bounds = _lower_bound(counts_d, counts_neighbour, n_select, delta, confidence)
    points = _point_estimate(counts_d / n_select, counts_neighbour / n_select, delta)
    best = int(np.lexsort((points, bounds))[-1])
    return epsilon_lower_bound(mechanism, dataset, neighbour, events[best], n_trials,
                               delta=delta, confidence=confidence, rng=rng)


@validate_params({"one_output_mechanism": Callable("f(data, rng) -> one output")})
def repeat(one_output_mechanism):
    """Turn ``f(data, rng) -> output`` into the vectorised form the audit expects.

    Loops in Python, so prefer a vectorised mechanism for large n_trials.

    Examples
    --------
    >>> vectorised = repeat(one_output_mechanism=lambda data, rng: 0.0)
    >>> vectorised(np.zeros(3), 4, np.random.default_rng(0))
    array([0., 0., 0., 0.])
    """
    def vectorised(data, n_trials, rng):
        return np.array([one_output_mechanism(data, rng) for _ in range(n_trials)])
    vectorised.__name__ = getattr(one_output_mechanism, "__name__", "mechanism")
    return vectorised


@validate_params({"thresholds": Array()})
def threshold_events(thresholds):
    """Events {output > t} for scalar outputs, one per threshold (named for reports).

    Examples
    --------
    >>> [event.__name__ for event in threshold_events(thresholds=[0.0, 1.0])]
    ['output > 0', 'output > 1']
    """
    events = []
    for t in thresholds.ravel():
        def event(outputs, t=t):
            return np.asarray(outputs, dtype=float).reshape(len(outputs), -1)[:, 0] > t
        event.__name__ = f"output > {t:.4g}"
        events.append(event)
    return events


@validate_params({"values": Sequence("output values")})
def value_events(values):
    """Events {output == v} for discrete outputs (indices, bits), one per value.

    Examples
    --------
    >>> [event.__name__ for event in value_events(values=[0, 1])]
    ['output == 0', 'output == 1']
    """
    events = []
    for v in values:
        def event(outputs, v=v):
            return np.asarray(outputs).reshape(len(outputs), -1)[:, 0] == v
        event.__name__ = f"output == {v!r}"
        events.append(event)
    return events
