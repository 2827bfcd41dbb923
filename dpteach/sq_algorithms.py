"""Example SQ algorithms (chapter 3), each written against ``oracle.query`` / ``oracle.query_batch``.

The same code runs on an exact, a noisy, an adversarial and a locally
simulated oracle: mean estimation, thresholds by grid (non-adaptive) and by
binary search (adaptive), halfspaces by averaging and by SQ gradient descent,
and the masked-parity learners that separate interactive from
non-interactive local learning. A {0, 1}-valued indicator 1{·} is asked as
2·1{·} − 1 with twice the tolerance.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ._constraints import (OPEN_UNIT, POSITIVE, POSITIVE_INT, Check, Integral, FiniteInterval, OrNone,
                           validate_params, SameLength)
from ._array_constraints import Array, Labels

#: Most queries one SQ algorithm here may ask; larger requests are refused up front (their cost is known).
MAX_QUERIES = 10 ** 6

__all__ = ["MAX_QUERIES", "records", "sq_mean", "sq_threshold_grid", "sq_threshold_binary_search",
           "sq_averaging_halfspace", "sq_gd_logistic", "masked_parity_interactive",
           "masked_parity_bruteforce"]


# =============================================================================


def check_oracle(oracle, name):
    """Refuse, naming ``name``, an argument that cannot answer statistical queries (None, a string...).

    Every algorithm here talks to its oracle only through ``query`` / ``query_batch``; without this
    check a wrong object fails deep inside with an AttributeError that names no parameter.
    """
    if not callable(getattr(oracle, "query_batch", None)):
        raise TypeError(f"{name} must be an SQ oracle (with query / query_batch, e.g. dpteach.sq.ExactSQOracle), "
                        f"got {oracle!r} of type {type(oracle).__name__}")
    return oracle


# Check: duck-typed (anything with query_batch), so a student's oracle passes; InstanceOf would refuse it.
#: The oracle every SQ algorithm talks to (anything with ``query`` / ``query_batch``).
ORACLE = Check(check_oracle, invalid=[(None, "None"), ("oracle", "'oracle'")])
#: At most ``MAX_QUERIES`` coordinates (one query each).
DIMENSION = FiniteInterval(Integral, 1, MAX_QUERIES, closed="both")


@validate_params({"X": Array(ndim=(1, 2)), "y": Labels()}, relations=[SameLength("X", "y")])
def records(X, y):
    """Stack features and labels into the records (rows [x_1, ..., x_d, y]) the SQ queries read.

    Examples
    --------
    >>> records(X=np.array([0.2, 0.8]), y=np.array([1.0, -1.0]))
    array([[ 0.2,  1. ],
           [ 0.8, -1. ]])
    """
    X = X.reshape(-1, 1) if X.ndim == 1 else X
    return np.column_stack([X, y])


def _coordinate_query(j):
    def phi(rows):
        return rows[:, j]
    return phi


@validate_params({"oracle": ORACLE, "d": DIMENSION, "tau": OPEN_UNIT})
def sq_mean(oracle, d, tau):
    """Mean estimation (chapter 3, Theorem 3.10 example): E z_j for z ∈ [−1, 1]^d with d non-adaptive queries φ_j(z) = z_j.

    One batch (non-adaptive), so locally it is non-interactive. Every
    coordinate of the output is within τ of E z_j whenever the oracle is
    valid. Returns an array of shape (d,). d <= ``MAX_QUERIES``.

    Examples
    --------
    >>> from dpteach.sq import ExactSQOracle
    >>> oracle = ExactSQOracle(np.array([[0.2, 1.0], [0.8, -1.0]]), np.array([0.5, 0.5]))
    >>> sq_mean(oracle=oracle, d=1, tau=0.2)
    array([0.5])
    """
    return oracle.query_batch([(_coordinate_query(j), tau) for j in range(d)])


def _threshold_error_query(threshold):
    """φ(x, y) = 2·1{h_threshold(x) ≠ y} − 1 with h(x) = +1 iff x >= threshold."""
    def phi(rows):
        predicted = np.where(rows[:, 0] >= threshold, 1.0, -1.0)
        return np.where(predicted != rows[:, 1], 1.0, -1.0)
    phi.threshold = threshold
    return phi


@validate_params({"oracle": ORACLE, "alpha": OPEN_UNIT})
def sq_threshold_grid(oracle, alpha):
    """Thresholds by a grid, non-adaptive (chapter 3, Algorithm 3.7).

    Candidates h_k(x) = +1 iff x >= k/K, K = ⌈1/α⌉, k = 0..K. One batch of
    K + 1 error queries φ_k = 2·1{h_k(x) ≠ y} − 1 at tolerance α/2 (i.e.
    error tolerance α/4); output the argmin. If the oracle is valid,
    err(output) <= min_k err(h_k) + α/2, and under a uniform marginal on [0, 1]
    min_k err(h_k) <= OPT + α/2, so err <= OPT + α. Records are rows (x, y).
    Returns the threshold k/K.

    Examples
    --------
    >>> from dpteach.sq import ExactSQOracle
    >>> oracle = ExactSQOracle(np.array([[0.2, 1.0], [0.8, -1.0]]), np.array([0.5, 0.5]))
    >>> sq_threshold_grid(oracle=oracle, alpha=0.2)
    0.0
    """
    if alpha < 1 / (MAX_QUERIES - 1):
        raise ValueError(f"alpha = {alpha!r} needs more than MAX_QUERIES = {MAX_QUERIES:,} queries "
                         f"(K + 1 = ⌈1/alpha⌉ + 1); use alpha >= {1 / (MAX_QUERIES - 1):.3g}")
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


@validate_params({"oracle": ORACLE, "alpha": OPEN_UNIT})
def sq_threshold_binary_search(oracle, alpha):
    """Thresholds by binary search, adaptive (chapter 3, Algorithm 3.12; our variant).

    Realizable case, y = +1 iff x >= θ, x uniform on [0, 1]. Keep [lo, hi]
    with θ <= hi and θ >= lo − 3α/8. Each round asks the mass
    μ = Pr[x < mid, y = +1] (= (mid − θ)₊) by φ = 2·1{x < mid, y = +1} − 1 at
    tolerance α/4 (mass tolerance α/8). If the mass estimate exceeds α/4
    then μ > α/8 > 0, so θ < mid: hi ← mid; otherwise μ <= 3α/8, so
    θ >= mid − 3α/8: lo ← mid. After T = ⌈log₂(2/α)⌉ rounds hi − lo <= α/2, and
    the output hi has error hi − θ <= α/2 + 3α/8 < α. (A first draft queried the
    mass of [lo, mid); querying [0, mid) keeps the slack from accumulating.)
    One query per round: T rounds. Returns hi.

    Examples
    --------
    >>> from dpteach.sq import ExactSQOracle
    >>> oracle = ExactSQOracle(np.array([[0.2, 1.0], [0.8, -1.0]]), np.array([0.5, 0.5]))
    >>> sq_threshold_binary_search(oracle=oracle, alpha=0.2)
    0.25
    """
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


@validate_params({"oracle": ORACLE, "d": DIMENSION, "tau": OPEN_UNIT})
def sq_averaging_halfspace(oracle, d, tau):
    """Halfspaces by averaging, non-adaptive (chapter 3, halfspace section): ŵ_j ≈ E[y·x_j].

    d queries φ_j(x, y) = y·x_j (in [−1, 1] when ‖x‖_∞ <= 1) in one batch.
    For a rotation-invariant marginal (e.g. uniform on the sphere) and
    y = sign⟨w*, x⟩, E[y x] is a positive multiple of w*, so sign⟨ŵ, x⟩ is
    consistent as τ → 0; for other marginals it is biased (the chapter shows
    the plateau). Records are rows (x_1..x_d, y). Returns ŵ, shape (d,).

    Examples
    --------
    >>> from dpteach.sq import ExactSQOracle
    >>> oracle = ExactSQOracle(np.array([[0.2, 1.0], [0.8, -1.0]]), np.array([0.5, 0.5]))
    >>> sq_averaging_halfspace(oracle=oracle, d=1, tau=0.2)
    array([-0.3])
    """
    return oracle.query_batch([(_label_times_coordinate_query(j, d), tau) for j in range(d)])


def _logistic_gradient_query(w, j, d):
    """φ_{w,j}(x, y) = −y x_j σ(−y⟨w, x⟩) ∈ [−1, 1]: coordinate j of the logistic-loss gradient."""
    def phi(rows):
        x, y = rows[:, :d], rows[:, d]
        return -y * x[:, j] * special.expit(-y * np.einsum("ij,j->i", x, w))
    return phi


@validate_params({"oracle": ORACLE, "d": DIMENSION, "tau": OPEN_UNIT, "n_steps": POSITIVE_INT, "eta": POSITIVE})
def sq_gd_logistic(oracle, d, tau, n_steps=20, eta=5.0):
    """SQ gradient descent on the logistic loss (chapter 3, halfspace section): K adaptive rounds of d queries.

    w_0 = 0; in round k ask ĝ_k,j ≈ E[−y x_j σ(−y⟨w_k, x⟩)] (one batch of d
    queries at tolerance τ) and set w_{k+1} = w_k − η ĝ_k. Needs ‖x‖_∞ <= 1.
    Rounds: n_steps; queries: n_steps·d (at most ``MAX_QUERIES``). Returns w_K, shape (d,).

    Examples
    --------
    >>> from dpteach.sq import ExactSQOracle
    >>> oracle = ExactSQOracle(np.array([[0.2, 1.0], [0.8, -1.0]]), np.array([0.5, 0.5]))
    >>> sq_gd_logistic(oracle=oracle, d=1, tau=0.2, n_steps=2).round(4)
    array([-1.19])
    """
    if n_steps > MAX_QUERIES // d:  # a joint rule on two declared parameters
        raise ValueError(f"n_steps must be an integer in [1, {MAX_QUERIES // d}] (at most MAX_QUERIES = "
                         f"{MAX_QUERIES:,} queries of d = {d}), got {n_steps!r}")
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


@validate_params({"oracle": ORACLE, "d": FiniteInterval(Integral, 1, MAX_QUERIES - 1, closed="both"),
                  "tau_index": OrNone(OPEN_UNIT), "tau_parity": OPEN_UNIT})
def masked_parity_interactive(oracle, d, tau_index=None, tau_parity=0.25):
    """The 2-round learner of masked parities (chapter 3, Algorithm 3.19).

    Round 1 (d non-adaptive queries): φ_i = 1{b = 1, idx = i}·(−1)^y has
    E φ_i = (−1)^{r_i}/(2d), so tolerance 1/(4d) recovers r_i by the sign.
    Round 2 (depends on r̂): φ = 1{b = 0}(−1)^{y + r̂·x} has E φ = (−1)^a/2
    when r̂ = r, so tolerance 1/4 recovers a. Exact against any valid oracle.
    Records are int rows (x_1..x_d, idx, b, y). Returns (r̂, â).

    Examples
    --------
    >>> from dpteach.data import masked_parity_distribution
    >>> from dpteach.sq import ExactSQOracle
    >>> oracle = ExactSQOracle(*masked_parity_distribution(2, np.array([1, 0]), 1))
    >>> masked_parity_interactive(oracle=oracle, d=2)
    (array([1, 0], dtype=int8), 1)
    """
    tau_index = 1 / (4 * d) if tau_index is None else tau_index
    first = oracle.query_batch([(_index_query(i, d), tau_index) for i in range(d)])
    r_hat = (first < 0).astype(np.int8)
    second = oracle.query(_parity_query(r_hat, d), tau_parity)
    return r_hat, int(second < 0)


@validate_params({"oracle": ORACLE, "d": FiniteInterval(Integral, 1, 20, closed="both"), "tau": OPEN_UNIT})
def masked_parity_bruteforce(oracle, d, tau=0.2):
    """Non-interactive brute force for masked parities (chapter 3, after Theorem 3.21): all 2^d candidates in one batch.

    Query φ_{r'} = 1{b = 0}(−1)^{y + r'·x} for every r' ∈ {0,1}^d; the secret
    gives ±1/2 and every other r' gives 0. With τ < 1/4 the largest |answer|
    is the secret (|·| >= 1/2 − τ > τ) and its sign gives a. (A tolerance of exactly 1/4
    allows a tie with an adversarial oracle; we use 1/5.) Cost 2^d queries.
    Returns (r̂, â).

    Examples
    --------
    >>> from dpteach.data import masked_parity_distribution
    >>> from dpteach.sq import ExactSQOracle
    >>> oracle = ExactSQOracle(*masked_parity_distribution(2, np.array([1, 0]), 1))
    >>> masked_parity_bruteforce(oracle=oracle, d=2)
    (array([1, 0], dtype=int8), 1)
    """
    candidates = ((np.arange(2 ** d)[:, None] >> np.arange(d)) & 1).astype(np.int8)
    answers = oracle.query_batch([(_parity_query(r, d), tau) for r in candidates])
    best = int(np.argmax(np.abs(answers)))
    return candidates[best], int(answers[best] < 0)
