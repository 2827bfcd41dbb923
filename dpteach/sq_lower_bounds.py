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

import numpy as np

from ._validation import as_rng, check_bits, check_int, check_probability, check_real_array
from .hypotheses import walsh_hadamard_butterfly
from .sq import SQOracle, query_values

__all__ = ["MAX_PARITY_BITS", "all_bit_vectors", "walsh_hadamard", "label_correlations",
           "RandomLabelParityOracle", "majority_parity_query", "single_parity_query",
           "parity_candidate_search"]

#: Largest d for which the exact computations over all 2^d points are allowed (2^20 ≈ 10⁶ points).
MAX_PARITY_BITS = 20


def all_bit_vectors(d):
    """All 2^d points of {0, 1}^d as an int8 array of shape (2^d, d); row k holds the bits of k (bit j = x_j).

    Cost O(d·2^d); d <= ``MAX_PARITY_BITS``.
    """
    d = check_int(d, "d", minimum=1, maximum=MAX_PARITY_BITS)
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


def walsh_hadamard(values):
    """Fourier coefficients f̂(r) = 2^{−d} Σ_x f(x)(−1)^{r·x} of f given on all x ∈ {0,1}^d (in the order of :func:`all_bit_vectors`).

    Parameters
    ----------
    values : array_like, shape (2^d,)
        f(x) for every x; finite, length a power of two with d <= ``MAX_PARITY_BITS``.

    Returns
    -------
    ndarray, shape (2^d,)
        f̂(r), indexed like the points (r's bits = the index's bits). Cost O(d·2^d).
    """
    arr = check_real_array(values, "values", ndim=1)
    if arr.size < 2 or arr.size & (arr.size - 1):
        raise ValueError(f"values must be a 1-D array whose length is a power of two >= 2, got shape {arr.shape}")
    if arr.size > 2 ** MAX_PARITY_BITS:
        raise ValueError(f"values must have at most 2^{MAX_PARITY_BITS} entries, got {arr.size}")
    return _walsh_hadamard(arr)


def _walsh_hadamard(arr):
    """The transform of :func:`walsh_hadamard` on a validated float array of length 2^d: chapter 2's
    butterfly (:func:`dpteach.hypotheses.walsh_hadamard`), normalised by 2^{−d}."""
    return walsh_hadamard_butterfly(np.asarray(arr, dtype=float)) / arr.size


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
    """
    if not callable(phi):
        raise TypeError(f"phi must be callable (records -> values in [-1, 1]), got {type(phi).__name__}")
    d = check_int(d, "d", minimum=1, maximum=MAX_PARITY_BITS)
    return _label_correlations(phi, d)


def _label_correlations(phi, d):
    """:func:`label_correlations` for a callable φ and a validated d (called per query by the oracle and the search)."""
    plus = query_values(phi, _labelled_points(d, 1.0))
    minus = query_values(phi, _labelled_points(d, -1.0))
    return float(np.mean((plus + minus) / 2)), _walsh_hadamard((plus - minus) / 2)


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
    """

    def __init__(self, d, secret):
        super().__init__()
        self.d = check_int(d, "d", minimum=1, maximum=MAX_PARITY_BITS)
        bits = check_bits(secret, "secret").astype(np.int64)
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
            mean_g, h_hat = _label_correlations(phi, self.d)
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


def single_parity_query(d, candidate):
    """φ(x, y) = y·χ_r(x) for one candidate index r: E φ = 1 if r is the secret, else 0. Rules out one secret."""
    d = check_int(d, "d", minimum=1, maximum=MAX_PARITY_BITS)
    candidate = check_int(candidate, "candidate", minimum=0, maximum=2 ** d - 1)
    r = (candidate >> np.arange(d)) & 1

    def phi(rows):
        parity = (rows[:, :d].astype(np.int64) @ r) & 1
        return rows[:, d] * (1.0 - 2.0 * parity)
    return phi


def majority_parity_query(d, candidates):
    """φ(x, y) = y·sign(Σ_{r∈S} χ_r(x)) for an odd set S of candidate indices: correlated ≈ √(2/(π|S|)) with each.

    A query that tries to see many parities at once: with |S| a little
    below 2/(πτ²) it rules out about |S| secrets per query, close to the
    Parseval limit 1/τ² of Theorem 3.17.
    """
    d = check_int(d, "d", minimum=1, maximum=MAX_PARITY_BITS)
    raw = np.asarray(candidates)
    if raw.dtype == bool or raw.dtype.kind not in "iu" or raw.ndim != 1:
        raise TypeError(f"candidates must be a 1-D array of integer indices, got {candidates!r}")
    candidates = np.unique(raw.astype(np.int64))
    if candidates.size == 0 or candidates.size % 2 == 0:
        raise ValueError(f"candidates must be an odd number of distinct indices, got {candidates.size}")
    if candidates.min() < 0 or candidates.max() >= 2 ** d:
        raise ValueError(f"candidates must lie in [0, 2^d − 1] = [0, {2 ** d - 1}]")
    return _majority_parity_query(d, candidates)


def _majority_parity_query(d, candidates):
    """:func:`majority_parity_query` for a validated d and an odd set of distinct valid indices."""
    vote = np.sign(_characters(d, candidates).sum(axis=1, dtype=np.int64)).astype(float)
    weights = 1 << np.arange(d)

    def phi(rows):
        index = rows[:, :d].astype(np.int64) @ weights
        return rows[:, d] * vote[index]
    return phi


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
    """
    if not isinstance(oracle, SQOracle):
        raise TypeError(f"oracle must be an SQOracle, got {type(oracle).__name__}")
    d = check_int(d, "d", minimum=1, maximum=MAX_PARITY_BITS)
    tau = check_probability(tau, "tau")
    n_queries = check_int(n_queries, "n_queries", minimum=1, maximum=10 ** 5)
    bucket_size = check_int(bucket_size, "bucket_size", minimum=1, maximum=2 ** d)
    rng = as_rng(rng)
    candidates = np.ones(2 ** d, dtype=bool)
    history = np.empty(n_queries, dtype=np.int64)
    for q in range(n_queries):
        alive = np.flatnonzero(candidates)
        size = min(bucket_size, max(1, alive.size // 2))
        size -= 1 - size % 2  # odd, so that the majority has no ties
        phi = _majority_parity_query(d, rng.choice(alive, size=size, replace=False))
        answer = oracle.query(phi, tau)
        mean_g, h_hat = _label_correlations(phi, d)
        candidates &= np.abs(answer - (mean_g + h_hat)) <= tau + 1e-12
        history[q] = candidates.sum()
    return history
