"""Chapter 4, "Lower bounds by fingerprinting": the fingerprinting lemmas, checked by Monte Carlo.

The chapter's lower bound rests on two identities that tie a statistic's accuracy to its
correlation with the data (the tracing attack of :mod:`dpteach.fingerprinting` exploits
the same correlation):

- the Bernoulli fingerprinting lemma (Lemma 4.7): for p ~ U[−1, 1] and x ∈ {±1}ⁿ with
  mean p, E[f(x)·Σᵢ(xᵢ − p)] + 2E|f(x) − p| >= 2/3 for every f with values in [−1, 1]
  (:func:`fingerprinting_lemma_mc`);
- the Gaussian fingerprinting lemma (Lemma 4.8, Stein's identity):
  E_μ[f(x)·Σᵢ(xᵢ − μ)] = σ²·d/dμ E_μ f(x) (:func:`gaussian_fingerprinting_mc`).

Both estimate the two sides from draws of a user's function ``f``, which maps an
(n_draws, n) array to one value per row.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from ._constraints import POSITIVE, POSITIVE_INT, FiniteInterval, OrNone, validate_params
from ._array_constraints import Array, Callable
from ._validation import check_memory

__all__ = ["fingerprinting_lemma_mc", "gaussian_fingerprinting_mc"]

# At least two draws: the standard errors divide by n_draws − 1.
N_DRAWS = FiniteInterval(Integral, 2, None, closed="left")


def _call_f(f, x, name="f"):
    values = np.asarray(f(x), dtype=float)
    if values.shape != x.shape[:1]:
        raise ValueError(f"{name} must return one value per row of its (n_draws, n) input, shape "
                         f"({x.shape[0]},), got {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} returned NaN or inf")
    return values


# Both run the caller's f (a student's, perhaps): the routines it calls check their own arguments
# (skip_nested=False), as if called from the top.
@validate_params({"f": Callable("f(x) -> one value in [-1, 1] per row of x"), "n": POSITIVE_INT,
                  "n_draws": N_DRAWS, "rng": "random_state"}, skip_nested=False)
def fingerprinting_lemma_mc(f, n, n_draws, rng=None):
    """Monte-Carlo check of the Bernoulli fingerprinting lemma (chapter 4, Lemma 4.7).

    Draws p ~ U[−1, 1] and x ∈ {±1}ⁿ i.i.d. with mean p, and estimates the
    correlation term E[f(x)·Σᵢ(xᵢ − p)], the accuracy term 2E|f(x) − p| and
    their sum, which the lemma bounds below by 2/3. For f = mean the
    correlation term is exactly E[1 − p²] = 2/3; for f ≡ 0 the sum is
    2E|p| = 1.

    Parameters
    ----------
    f : callable
        ``f(x)`` maps an (n_draws, n) array of ±1 to n_draws values in [−1, 1]
        (row-wise; f may be randomised through its own generator).
    n : int, >= 1
    n_draws : int, >= 2
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``correlation``, ``accuracy``, ``total`` and their Monte-Carlo standard
        errors ``correlation_se``, ``accuracy_se``, ``total_se``.

    Raises
    ------
    ValueError, TypeError
        For bad n, n_draws or rng, a non-callable f, or f values outside [−1, 1].
        Cost O(n_draws·n) plus the cost of f.

    Examples
    --------
    >>> result = fingerprinting_lemma_mc(lambda x: x.mean(axis=1), n=3, n_draws=20, rng=0)
    >>> round(result["total"], 4), round(result["total_se"], 4)
    (1.3516, 0.2643)
    """
    check_memory(("n_draws", n_draws), ("n", n))
    p = rng.uniform(-1.0, 1.0, size=n_draws)
    x = np.where(rng.random((n_draws, n)) < (1 + p[:, None]) / 2, 1.0, -1.0)
    values = _call_f(f, x)
    if np.any(np.abs(values) > 1 + 1e-12):
        raise ValueError(f"f must take values in [-1, 1] (the lemma's hypothesis), found {values[np.abs(values) > 1][0]!r}")
    correlation = values * (x - p[:, None]).sum(axis=1)
    accuracy = 2 * np.abs(values - p)
    total = correlation + accuracy
    root = math.sqrt(n_draws)
    return {"correlation": float(correlation.mean()), "accuracy": float(accuracy.mean()),
            "total": float(total.mean()), "correlation_se": float(correlation.std(ddof=1) / root),
            "accuracy_se": float(accuracy.std(ddof=1) / root), "total_se": float(total.std(ddof=1) / root)}


@validate_params({"f": Callable("f(x) -> one finite value per row of x"), "n": POSITIVE_INT,
                  "mu": Array(ndim=0), "sigma": POSITIVE, "n_draws": N_DRAWS, "step": OrNone(POSITIVE),
                  "rng": "random_state"}, skip_nested=False)
def gaussian_fingerprinting_mc(f, n, mu, sigma, n_draws, rng=None, step=None):
    """Monte-Carlo check of the Gaussian fingerprinting lemma (Stein's identity; chapter 4, Lemma 4.8).

    For x₁, …, xₙ i.i.d. N(μ, σ²) and g(μ) = E_μ f(x), Stein's identity says
    E_μ[f(x)·Σᵢ(xᵢ − μ)] = σ²·g′(μ). Estimates the left side, and g′(μ) by a
    central difference (g(μ + h) − g(μ − h))/(2h) with common random numbers
    (the same standard normals shifted by ±h).

    Parameters
    ----------
    f : callable
        ``f(x)`` maps (n_draws, n) to n_draws finite values.
    n : int, >= 1
    mu : float, finite
    sigma : float, > 0
    n_draws : int, >= 2
    rng : None, int or numpy.random.Generator
    step : float or None
        h > 0 (default σ/√n · 0.05).

    Returns
    -------
    dict with ``correlation`` (left side), ``stein`` (σ²·g′(μ)) and the
    standard error ``correlation_se`` of the left side.

    Raises
    ------
    ValueError, TypeError
        For bad n, μ, σ, n_draws, step or rng, or a non-callable f.
        Cost O(n_draws·n) plus three calls of f.

    Examples
    --------
    >>> result = gaussian_fingerprinting_mc(lambda x: x.mean(axis=1), n=3, mu=0.1, sigma=1.0, n_draws=20, rng=0)
    >>> round(result["correlation"], 4), round(result["stein"], 4)
    (1.0707, 1.0)
    """
    mu = float(mu)
    check_memory(("n_draws", n_draws), ("n", n))
    if step is None:
        step = 0.05 * sigma / math.sqrt(n)
    noise = rng.standard_normal((n_draws, n)) * sigma
    values = _call_f(f, mu + noise)
    correlation = values * noise.sum(axis=1)
    derivative = (_call_f(f, mu + step + noise) - _call_f(f, mu - step + noise)).mean() / (2 * step)
    try:
        stein = float(sigma ** 2 * derivative)
    except OverflowError:  # σ² beyond the floats (σ ≈ 1e300); σ·(σ·f') is the same product, finite when it is
        stein = float(sigma * (sigma * derivative))
    return {"correlation": float(correlation.mean()), "stein": stein,
            "correlation_se": float(correlation.std(ddof=1) / math.sqrt(n_draws))}
