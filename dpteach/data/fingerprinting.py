"""Chapter 4 data: populations for the tracing experiments, drawn as (trials, records, columns) arrays.

Every sampler has the signature ``sampler(n_trials, n_records, ..., rng=None)`` and
returns i.i.d. records with a leading trial axis, so that
``dpteach.fingerprinting.membership_scores`` runs all trials of a chunk in
one vectorised call (bind the population parameters with ``functools.partial``).
"""

from __future__ import annotations

import numpy as np

from .._constraints import POSITIVE, POSITIVE_INT, Options, validate_params
from .._array_constraints import Array
from .._validation import check_int, check_memory

__all__ = ["uniform_box_mean", "cosine_prior_mean", "gaussian_records", "sign_records", "sparse_coefficients",
           "regression_records"]

_SIZES = {"n_trials": POSITIVE_INT, "n_records": POSITIVE_INT}

@validate_params({"d": POSITIVE_INT, "half_width": POSITIVE, "rng": "random_state"})
def uniform_box_mean(d, half_width=1.0, rng=None):
    """A population mean μ ~ U[−a, a]^d (the prior of the fingerprinting argument; chapter 4, T1).

    Examples
    --------
    >>> uniform_box_mean(3, rng=0).round(4)
    array([ 0.2739, -0.4604, -0.9181])
    """
    check_memory(("d", d))
    return rng.uniform(-half_width, half_width, size=d)


@validate_params({"d": POSITIVE_INT, "half_width": POSITIVE, "rng": "random_state"})
def cosine_prior_mean(d, half_width=1.0, rng=None):
    """μ with i.i.d. coordinates of density cos²(πt/(2a))/a on [−a, a]: the prior of chapter 4, Theorem 4.10.

    The density vanishes at ±a (so the integration by parts of the proof has no
    boundary term) and has Fisher information π²/a², the least of any density on
    [−a, a]. Drawn by rejection from U[−a, a] (accept with probability
    cos²(πt/(2a)); acceptance rate 1/2), so the draw count is random but the law is exact.

    Examples
    --------
    >>> cosine_prior_mean(3, rng=0).round(4)
    array([0.2739, 0.8255, 0.4593])
    """
    # Peak memory: the 2d proposals, 2d uniforms for the test and the accepted draws (< 4d more floats).
    check_memory(("d", d), itemsize=64)
    out = np.empty(0)
    while out.size < d:
        proposal = rng.uniform(-half_width, half_width, size=2 * d)
        accept = rng.random(2 * d) < np.cos(np.pi * proposal / (2 * half_width)) ** 2
        out = np.concatenate([out, proposal[accept]])
    return out[:d]


@validate_params({**_SIZES, "mu": Array(ndim=1), "sigma": POSITIVE, "rng": "random_state"})
def gaussian_records(n_trials, n_records, mu, sigma=1.0, rng=None):
    """Records x ~ N(μ, σ²I_d): shape (n_trials, n_records, d) (chapter 4, mean estimation).

    Parameters
    ----------
    n_trials, n_records : int, >= 1
    mu : array_like, shape (d,)
    sigma : float, > 0
    rng : None, int or numpy.random.Generator

    Examples
    --------
    >>> gaussian_records(n_trials=2, n_records=3, mu=np.zeros(2), rng=0).shape
    (2, 3, 2)
    """
    check_memory(("n_trials", n_trials), ("n_records", n_records), ("d", mu.size))
    noise = rng.standard_normal((n_trials, n_records, mu.size))
    return mu + sigma * noise


@validate_params({**_SIZES, "p": Array(ndim=1), "rng": "random_state"})
def sign_records(n_trials, n_records, p, rng=None):
    """Records x ∈ {±1}^d with independent coordinates of mean p_j (chapter 4, Lemma 4.7's population).

    Parameters
    ----------
    p : array_like, shape (d,), entries in [−1, 1]

    Examples
    --------
    >>> sign_records(n_trials=1, n_records=3, p=np.array([0.1, -0.2]), rng=0)
    array([[[-1.,  1.],
            [ 1.,  1.],
            [-1., -1.]]])
    """
    if np.any(np.abs(p) > 1):
        raise ValueError(f"p must lie in [-1, 1] (coordinate means of ±1 data), found {p[np.abs(p) > 1][0]!r}")
    check_memory(("n_trials", n_trials), ("n_records", n_records), ("d", p.size))
    uniform = rng.random((n_trials, n_records, p.size))
    return np.where(uniform < (1 + p) / 2, 1.0, -1.0)


@validate_params({"d": POSITIVE_INT, "s": POSITIVE_INT, "magnitude": POSITIVE,
                  "signs": Options(("symmetric", "positive")), "rng": "random_state"})
def sparse_coefficients(d, s, magnitude=1.0, signs="symmetric", rng=None):
    """An s-sparse β with |β_j| = magnitude on a random support (chapter 4, T7).

    ``signs="symmetric"`` gives half the support each sign (in random
    positions), the case where Lemma 18's unweighted statistic cancels;
    ``"positive"`` makes every non-zero coefficient positive.

    Examples
    --------
    >>> sparse_coefficients(d=5, s=2, rng=0)
    array([ 0.,  0.,  0.,  1., -1.])
    """
    check_memory(("d", d))
    check_int(s, "s", minimum=1, maximum=d)  # s <= d: a bound set by another argument
    beta = np.zeros(d)
    support = rng.choice(d, size=s, replace=False)
    values = np.full(s, magnitude)
    if signs == "symmetric":
        values[rng.permutation(s)[: s // 2]] *= -1
    beta[support] = values
    return beta


@validate_params({**_SIZES, "beta": Array(ndim=1), "sigma": POSITIVE, "rng": "random_state"})
def regression_records(n_trials, n_records, beta, sigma=1.0, rng=None):
    """Linear-model records with a fresh response: rows [x (d), y, ỹ], shape (n_trials, n_records, d + 2).

    x has independent Rademacher (±1) entries (so ‖x‖_∞ <= 1 as in Cai, Wang &
    Zhang's class), y = xᵀβ + ξ and ỹ = xᵀβ + ξ̃ with ξ, ξ̃ i.i.d. N(0, σ²).
    ỹ is the adversary's fresh draw with the same covariates (Lemmas 18, 19);
    an estimator must use only the first d + 1 columns.

    Examples
    --------
    >>> regression_records(n_trials=2, n_records=3, beta=np.array([0.5, 0.0]), rng=0).shape
    (2, 3, 4)
    """
    check_memory(("n_trials", n_trials), ("n_records", n_records), ("d", beta.size + 2))
    x = np.where(rng.random((n_trials, n_records, beta.size)) < 0.5, 1.0, -1.0)
    mean = x @ beta
    noise = sigma * rng.standard_normal((2, n_trials, n_records))
    return np.concatenate([x, (mean + noise[0])[..., None], (mean + noise[1])[..., None]], axis=-1)
