"""Chapter 4 data: populations for the tracing experiments, drawn as (trials, records, columns) arrays.

Every sampler has the signature ``sampler(n_trials, n_records, ..., rng=None)`` and
returns i.i.d. records with a leading trial axis, so that
``dpteach.fingerprinting.membership_scores`` runs all trials of a chunk in
one vectorised call (bind the population parameters with ``functools.partial``).
"""

from __future__ import annotations

import numpy as np

from .._validation import as_rng, check_choice, check_int, check_memory, check_positive, check_real_array

__all__ = ["uniform_box_mean", "cosine_prior_mean", "gaussian_records", "sign_records", "sparse_coefficients", "regression_records"]



def uniform_box_mean(d, half_width=1.0, rng=None):
    """A population mean μ ~ U[−a, a]^d (the prior of the fingerprinting argument; chapter 4, T1)."""
    d = check_int(d, "d", minimum=1)
    check_memory(("d", d))
    half_width = check_positive(half_width, "half_width")
    return as_rng(rng).uniform(-half_width, half_width, size=d)


def cosine_prior_mean(d, half_width=1.0, rng=None):
    """μ with i.i.d. coordinates of density cos²(πt/(2a))/a on [−a, a]: the prior of chapter 4, Theorem 4.10.

    The density vanishes at ±a (so the integration by parts of the proof has no
    boundary term) and has Fisher information π²/a², the least of any density on
    [−a, a]. Drawn by rejection from U[−a, a] (accept with probability
    cos²(πt/(2a)); acceptance rate 1/2), so the draw count is random but the law is exact.
    """
    d = check_int(d, "d", minimum=1)
    half_width = check_positive(half_width, "half_width")
    rng = as_rng(rng)
    # Peak memory: the 2d proposals, 2d uniforms for the test and the accepted draws (< 4d more floats).
    check_memory(("d", d), itemsize=64)
    out = np.empty(0)
    while out.size < d:
        proposal = rng.uniform(-half_width, half_width, size=2 * d)
        accept = rng.random(2 * d) < np.cos(np.pi * proposal / (2 * half_width)) ** 2
        out = np.concatenate([out, proposal[accept]])
    return out[:d]


def gaussian_records(n_trials, n_records, mu, sigma=1.0, rng=None):
    """Records x ~ N(μ, σ²I_d): shape (n_trials, n_records, d) (chapter 4, mean estimation).

    Parameters
    ----------
    n_trials, n_records : int, >= 1
    mu : array_like, shape (d,)
    sigma : float, > 0
    rng : None, int or numpy.random.Generator
    """
    n_trials = check_int(n_trials, "n_trials", minimum=1)
    n_records = check_int(n_records, "n_records", minimum=1)
    mu = check_real_array(mu, "mu", ndim=1)
    sigma = check_positive(sigma, "sigma")
    check_memory(("n_trials", n_trials), ("n_records", n_records), ("d", mu.size))
    noise = as_rng(rng).standard_normal((n_trials, n_records, mu.size))
    return mu + sigma * noise


def sign_records(n_trials, n_records, p, rng=None):
    """Records x ∈ {±1}^d with independent coordinates of mean p_j (chapter 4, Lemma 4.7's population).

    Parameters
    ----------
    p : array_like, shape (d,), entries in [−1, 1]
    """
    n_trials = check_int(n_trials, "n_trials", minimum=1)
    n_records = check_int(n_records, "n_records", minimum=1)
    p = check_real_array(p, "p", ndim=1)
    if np.any(np.abs(p) > 1):
        raise ValueError(f"p must lie in [-1, 1] (coordinate means of ±1 data), found {p[np.abs(p) > 1][0]!r}")
    check_memory(("n_trials", n_trials), ("n_records", n_records), ("d", p.size))
    uniform = as_rng(rng).random((n_trials, n_records, p.size))
    return np.where(uniform < (1 + p) / 2, 1.0, -1.0)


def sparse_coefficients(d, s, magnitude=1.0, signs="symmetric", rng=None):
    """An s-sparse β with |β_j| = magnitude on a random support (chapter 4, T7).

    ``signs="symmetric"`` gives half the support each sign (in random
    positions), the case where Lemma 18's unweighted statistic cancels;
    ``"positive"`` makes every non-zero coefficient positive.
    """
    d = check_int(d, "d", minimum=1)
    check_memory(("d", d))
    s = check_int(s, "s", minimum=1, maximum=d)
    magnitude = check_positive(magnitude, "magnitude")
    check_choice(signs, "signs", ("symmetric", "positive"))
    rng = as_rng(rng)
    beta = np.zeros(d)
    support = rng.choice(d, size=s, replace=False)
    values = np.full(s, magnitude)
    if signs == "symmetric":
        values[rng.permutation(s)[: s // 2]] *= -1
    beta[support] = values
    return beta


def regression_records(n_trials, n_records, beta, sigma=1.0, rng=None):
    """Linear-model records with a fresh response: rows [x (d), y, ỹ], shape (n_trials, n_records, d + 2).

    x has independent Rademacher (±1) entries (so ‖x‖_∞ <= 1 as in Cai, Wang &
    Zhang's class), y = xᵀβ + ξ and ỹ = xᵀβ + ξ̃ with ξ, ξ̃ i.i.d. N(0, σ²).
    ỹ is the adversary's fresh draw with the same covariates (Lemmas 18, 19);
    an estimator must use only the first d + 1 columns.
    """
    n_trials = check_int(n_trials, "n_trials", minimum=1)
    n_records = check_int(n_records, "n_records", minimum=1)
    beta = check_real_array(beta, "beta", ndim=1)
    sigma = check_positive(sigma, "sigma")
    rng = as_rng(rng)
    check_memory(("n_trials", n_trials), ("n_records", n_records), ("d", beta.size + 2))
    x = np.where(rng.random((n_trials, n_records, beta.size)) < 0.5, 1.0, -1.0)
    mean = x @ beta
    noise = sigma * rng.standard_normal((2, n_trials, n_records))
    return np.concatenate([x, (mean + noise[0])[..., None], (mean + noise[1])[..., None]], axis=-1)
