"""The SQ lower bound for parities, made visible (chapter 3, Theorem 3.17).

The worst-case oracle of the proof answers every query as if the labels were
random. A query φ(x, y) splits as g(x) + y·h(x) with |h| <= 1, so for the
parity χ_r(x) = (−1)^{r·x} as the label, E φ = E g + ĥ(r), where ĥ(r) is the
Fourier (Walsh–Hadamard) coefficient of h at r. By Parseval Σ_r ĥ(r)² = E h² <= 1,
so fewer than 1/τ² secrets r have |ĥ(r)| > τ: the answer E g is legal for
all other secrets, and the query rules out fewer than 1/τ² of them.

:class:`RandomLabelParityOracle` is that oracle, with the set of secrets
still consistent with every answer; :func:`label_correlations` computes the
ĥ(r) of any query exactly in O(d·2^d) with the fast Walsh–Hadamard transform.

Records are rows (x_1, ..., x_d, y) with bits x_j ∈ {0, 1} and y ∈ {−1, +1}.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._constraints import OPEN_UNIT, Check, Integral, FiniteInterval, validate_params
from ._array_constraints import Bits
from ._validation import check_finite_array
from .hypotheses import walsh_hadamard_butterfly
from .sq import QUERY, SQ_ORACLE, SQOracle, query_values

__all__ = ["MAX_PARITY_BITS", "all_bit_vectors", "walsh_hadamard", "label_correlations",
           "RandomLabelParityOracle", "majority_parity_query", "single_parity_query",
           "parity_candidate_search"]

#: Largest d for which the exact computations over all 2^d points are allowed (2^20 ≈ 10⁶ points).
MAX_PARITY_BITS = 20
#: The number of bits d of the parities, 1 <= d <= ``MAX_PARITY_BITS``.
BITS = FiniteInterval(Integral, 1, MAX_PARITY_BITS, closed="both")
#: An index r of {0, 1}^d (its bits are r's); at most 2^d − 1, which the routines check against their d.
INDEX = FiniteInterval(Integral, 0, 2 ** MAX_PARITY_BITS - 1, closed="both")


@validate_params({"d": BITS})
def all_bit_vectors(d):
    """All 2^d points of {0, 1}^d as an int8 array of shape (2^d, d); row k holds the bits of k (bit j = x_j).

    Cost O(d·2^d); d <= ``MAX_PARITY_BITS``.

    Examples
    --------
    >>> all_bit_vectors(d=2)
    array([[0, 0],
           [1, 0],
           [0, 1],
           [1, 1]], dtype=int8)
    """
    return ((np.arange(2 ** d)[:, None] >> np.arange(d)) & 1).astype(np.int8)


@functools.lru_cache(maxsize=8)
def _labelled_points_cached(d, label):
    x = all_bit_vectors(d).astype(float)
    points = np.column_stack([x, np.full(len(x), label)])
    points.flags.writeable = False  # shared between calls: a query must not modify its records
    return points


def _labelled_points(d, label):
    """All records (x, label) for x ∈ {0,1}^d, cached (d is already validated by the caller)."""
    return _labelled_points_cached(int(d), float(label))


def _check_transform_values(values, name):
    """f on all of {0, 1}^d: a finite 1-D array whose length is a power of two, 2 <= 2^d <= 2^MAX_PARITY_BITS."""
    arr = check_finite_array(values, name, ndim=1)
    if arr.size < 2 or arr.size & (arr.size - 1):
        raise ValueError(f"{name} must be a 1-D array whose length is a power of two >= 2, got shape {arr.shape}")
    if arr.size > 2 ** MAX_PARITY_BITS:
        raise ValueError(f"{name} must have at most 2^{MAX_PARITY_BITS} entries, got {arr.size}")
    return arr


# Check: a 1-D array whose length is a power of two within MAX_PARITY_BITS.
@validate_params({"values": Check(_check_transform_values, array_ndim=1, invalid=[([], "[]"), ([math.nan], "[nan]"),
                                                                                 ([[[1.0]]], "[[[1.0]]]"),
                                                                                 ([1.0, 2.0, 3.0], "length 3")],
                                  convert_nested=lambda values: np.asarray(values, dtype=float))})
def walsh_hadamard(values):
    """Fourier coefficients f̂(r) = 2^{−d} Σ_x f(x)(−1)^{r·x} of f given on all x ∈ {0,1}^d (in the order of :func:`all_bit_vectors`).

    Parameters
    ----------
    values : array_like, shape (2^d,)
        f(x) for every x; finite, length a power of two with d <= ``MAX_PARITY_BITS``.

    Returns
    -------
    ndarray, shape (2^d,)
        f̂(r), indexed like the points (r's bits = the index's bits). Cost O(d·2^d): chapter 2's
        butterfly (:func:`dpteach.hypotheses.walsh_hadamard`), normalised by 2^{−d}.

    Examples
    --------
    >>> walsh_hadamard(values=np.arange(4.0))
    array([ 1.5, -0.5, -1. ,  0. ])
    """
    return walsh_hadamard_butterfly(values) / values.size


@validate_params({"phi": QUERY, "d": BITS})
def label_correlations(phi, d):
    """Split a query as φ(x, y) = g(x) + y·h(x) and return (E g, ĥ) under the uniform x (Theorem 3.17).

    With the parity χ_r as label, E φ = E g + ĥ(r). Parseval: Σ_r ĥ(r)² = E h² <= 1.

    Parameters
    ----------
    phi : callable
        Records (x_1..x_d, y) -> values in [−1, 1].
    d : int, 1 <= d <= ``MAX_PARITY_BITS``

    Returns
    -------
    (mean_g, h_hat) : (float, ndarray of shape (2^d,))
        Cost: two evaluations of φ on 2^d records and one transform, O(d·2^d).

    Examples
    --------
    >>> mean_g, h_hat = label_correlations(phi=lambda rows: rows[:, -1], d=2)
    >>> mean_g, h_hat
    (0.0, array([1., 0., 0., 0.]))
    """
    plus = query_values(phi, _labelled_points(d, 1.0))
    minus = query_values(phi, _labelled_points(d, -1.0))
    return float(np.mean((plus + minus) / 2)), walsh_hadamard((plus - minus) / 2)


class RandomLabelParityOracle(SQOracle):
    """The worst-case SQ oracle of Theorem 3.17 for the parity χ_secret under uniform x.

    Answers E g (the value the query would have if the labels were random
    coins) whenever that is within τ of the truth E g + ĥ(secret), and the
    truth otherwise, so it is a legal oracle. It keeps ``alive``: the
    secrets r for which every answer so far is legal, i.e. the secrets the
    algorithm cannot yet rule out. While the oracle answers E g, a query
    removes fewer than 1/τ² secrets (Parseval), so after q queries at least
    2^d − q/τ² secrets are alive.

    Parameters
    ----------
    d : int, 1 <= d <= ``MAX_PARITY_BITS``
    secret : array_like of d bits
        The target r.

    Attributes
    ----------
    alive : ndarray of bool, shape (2^d,)
    alive_history : list of int
        Alive secrets after each query.
    deviations : int
        Queries where the random-label answer was illegal for the secret.

    Examples
    --------
    >>> oracle = RandomLabelParityOracle(d=2, secret=np.array([1, 0]))
    >>> oracle.query(single_parity_query(2, 2), tau=0.3), oracle.n_alive
    (0.0, 3)
    """

    @validate_params({"d": BITS, "secret": Bits(ndim=1)})
    def __init__(self, d, secret):
        super().__init__()
        self.d = d
        bits = secret.astype(np.int64)
        if bits.shape != (self.d,):
            raise ValueError(f"secret must have shape ({self.d},) (one bit per coordinate), got {bits.shape}")
        self.secret = bits
        self.secret_index = int(np.dot(bits, 1 << np.arange(self.d)))
        self.alive = np.ones(2 ** self.d, dtype=bool)
        self.alive_history = []
        self.deviations = 0

    @property
    def n_alive(self):
        return int(self.alive.sum())

    def _answer_batch(self, phis, taus):
        answers = np.empty(len(phis))
        for j, (phi, tau) in enumerate(zip(phis, taus)):
            mean_g, h_hat = label_correlations(phi, self.d)
            truth = mean_g + h_hat[self.secret_index]
            answer = mean_g if abs(truth - mean_g) <= tau else truth
            self.deviations += int(answer != mean_g)
            self.alive &= np.abs(answer - (mean_g + h_hat)) <= tau
            self.alive_history.append(self.n_alive)
            answers[j] = answer
        return answers


def _characters(d, candidates):
    """χ_r(x) = (−1)^{r·x} for every x (rows) and candidate index r (columns), as an int8 array.

    r·x mod 2 is the parity of the number of common one-bits of the two indices.
    """
    common = np.arange(2 ** d, dtype=np.int64)[:, None] & np.asarray(candidates, dtype=np.int64)[None, :]
    return (1 - 2 * (np.bitwise_count(common) & 1)).astype(np.int8)


def _check_index(value, name, d):
    """The joint rule of an index r and its d (each declared): 0 <= r <= 2^d − 1, named as check_int words it."""
    if value > 2 ** d - 1:
        raise ValueError(f"{name} must be an integer in [0, {2 ** d - 1}] (an index of {{0, 1}}^d, d = {d}), "
                         f"got {value!r}")


@validate_params({"d": BITS, "candidate": INDEX})
def single_parity_query(d, candidate):
    """φ(x, y) = y·χ_r(x) for one candidate index r: E φ = 1 if r is the secret, else 0. Rules out one secret.

    Examples
    --------
    >>> phi = single_parity_query(d=2, candidate=1)
    >>> phi(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]))
    array([-1.,  1.])
    """
    _check_index(candidate, "candidate", d)
    r = (candidate >> np.arange(d)) & 1

    def phi(rows):
        parity = (rows[:, :d].astype(np.int64) @ r) & 1
        return rows[:, d] * (1.0 - 2.0 * parity)
    return phi


def _check_candidates(candidates, name):
    """An odd number of distinct integer indices (1-D), returned sorted as int64; their range is checked against d."""
    raw = np.asarray(candidates)
    if raw.dtype == bool or raw.dtype.kind not in "iu" or raw.ndim != 1:
        raise TypeError(f"{name} must be a 1-D array of integer indices, got {candidates!r}")
    unique = np.unique(raw.astype(np.int64))
    if unique.size == 0 or unique.size % 2 == 0:
        raise ValueError(f"{name} must be an odd number of distinct indices, got {unique.size}")
    return unique


@validate_params({"d": BITS,
                  # Check: an odd number of distinct integer indices, returned sorted.
                  "candidates": Check(_check_candidates, array_ndim=1,
                                      invalid=[([], "[]"), ([math.nan], "[nan]"), ([[[1.0]]], "[[[1.0]]]"),
                                               ([1, 2], "[1, 2]"), (None, "None")],
                                      convert_nested=lambda candidates: np.unique(np.asarray(candidates, np.int64)))})
def majority_parity_query(d, candidates):
    """φ(x, y) = y·sign(Σ_{r∈S} χ_r(x)) for an odd set S of candidate indices: correlated ≈ √(2/(π|S|)) with each.

    A query that tries to see many parities at once: with |S| a little
    below 2/(πτ²) it rules out about |S| secrets per query, close to the
    Parseval limit 1/τ² of Theorem 3.17.

    Examples
    --------
    >>> phi = majority_parity_query(d=2, candidates=np.array([1, 2, 3]))
    >>> phi(np.array([[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]))
    array([ 1., -1.])
    """
    if candidates.min() < 0 or candidates.max() >= 2 ** d:  # the joint rule on two declared parameters
        raise ValueError(f"candidates must lie in [0, 2^d − 1] = [0, {2 ** d - 1}]")
    vote = np.sign(_characters(d, candidates).sum(axis=1, dtype=np.int64)).astype(float)
    weights = 1 << np.arange(d)

    def phi(rows):
        index = rows[:, :d].astype(np.int64) @ weights
        return rows[:, d] * vote[index]
    return phi


@validate_params({"oracle": SQ_ORACLE, "d": BITS, "tau": OPEN_UNIT,
                  "n_queries": FiniteInterval(Integral, 1, 10 ** 5, closed="both"),
                  "bucket_size": FiniteInterval(Integral, 1, 2 ** MAX_PARITY_BITS, closed="both"), "rng": "random_state"})
def parity_candidate_search(oracle, d, tau, n_queries, bucket_size=1, rng=None):
    """An SQ algorithm for parities that keeps the secrets consistent with its answers (Theorem 3.17's figure).

    Each query is a majority query (:func:`majority_parity_query`) over
    ``bucket_size`` random candidates (fewer, at most half of them, once few
    are left; ``bucket_size=1`` asks y·χ_r for one candidate). After each
    answer v it keeps the candidates r with |v − (E g + ĥ(r))| <= τ, which it
    computes itself (:func:`label_correlations`). It has identified the
    secret once one candidate is left.

    Parameters
    ----------
    oracle : SQOracle
        Over records (x_1..x_d, y).
    d : int, 1 <= d <= ``MAX_PARITY_BITS``
    tau : float in (0, 1)
    n_queries : int >= 1
        Queries asked (one per round: adaptive).
    bucket_size : int >= 1
        Largest |S|; rounded down to an odd number.
    rng : None, int or Generator

    Returns
    -------
    ndarray of int, shape (n_queries,)
        The number of consistent candidates after each query.

    Examples
    --------
    >>> oracle = RandomLabelParityOracle(2, np.array([1, 0]))
    >>> parity_candidate_search(oracle=oracle, d=2, tau=0.3, n_queries=2, rng=0)
    array([3, 1])
    """
    if bucket_size > 2 ** d:  # the joint rule on two declared parameters
        raise ValueError(f"bucket_size must be an integer in [1, {2 ** d}] (at most 2^d candidates), "
                         f"got {bucket_size!r}")
    candidates = np.ones(2 ** d, dtype=bool)
    history = np.empty(n_queries, dtype=np.int64)
    for q in range(n_queries):
        alive = np.flatnonzero(candidates)
        size = min(bucket_size, max(1, alive.size // 2))
        size -= 1 - size % 2  # odd, so that the majority has no ties
        phi = majority_parity_query(d, rng.choice(alive, size=size, replace=False))
        answer = oracle.query(phi, tau)
        mean_g, h_hat = label_correlations(phi, d)
        candidates &= np.abs(answer - (mean_g + h_hat)) <= tau + 1e-12
        history[q] = candidates.sum()
    return history
