"""The exact laws appendix A tests the libraries' samples against, the χ² cells and the KS threshold.

The releases of :mod:`dpteach.experiments.production` are compared with
these closed forms: the discrete Laplace law (what OpenDP adds to an integer
count, and diffprivlib's ``Geometric``), the output law of permute-and-flip
(OpenDP's pure-DP noisy max) and the Dvoretzky–Kiefer–Wolfowitz threshold of
a one-sample KS test. The integer releases are tested by χ² on the cells of
:func:`integer_counts` against :func:`discrete_laplace_cells`, with the small
cells pooled (:func:`pool_small_cells`). None of them needs OpenDP or diffprivlib.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import polynomial

from .._constraints import OPEN_UNIT, POSITIVE, POSITIVE_INT, Epsilon, validate_params
from .._array_constraints import Array

__all__ = ["FALSE_ALARM", "discrete_laplace_pmf", "permute_and_flip_probabilities", "ks_critical_value"]

# Per test. With m tests in a run the chance of any false alarm is at most
# m·1e-6 (union bound): the appendix runs a few dozen, so a rejection of a
# correct sampler would be a 1-in-10⁴ event, not noise.
FALSE_ALARM = 1e-6


@validate_params({"scale": POSITIVE, "k": Array()})
def discrete_laplace_pmf(k, scale):
    """P[Z = k] for the discrete Laplace law with P ∝ e^{−|k|/b} on the integers (appendix A, Eq. (eq-discrete-laplace)).

    The normalising constant is Σ_k e^{−|k|/b} = (1 + r)/(1 − r) with r = e^{−1/b},
    so P[Z = k] = tanh(1/(2b))·e^{−|k|/b}. This is what OpenDP adds to an
    integer count and what diffprivlib's ``Geometric`` adds.

    Parameters
    ----------
    k : array_like of integers
        Any shape, not empty.
    scale : float, 0 < b < inf

    Returns
    -------
    ndarray
        Same shape as ``k``. Cost O(size).

    Raises
    ------
    ValueError, TypeError
        For an empty, non-finite, non-numeric or fractional ``k``, or a scale
        that is not finite and positive.

    Examples
    --------
    >>> discrete_laplace_pmf(np.array([-2, 0, 3]), scale=2.0).round(4)
    array([0.0901, 0.2449, 0.0546])
    """
    fractional = k != np.round(k)
    if np.any(fractional):
        raise ValueError(f"k must contain integers (the law lives on the integers), found {k[fractional][0]!r}")
    return np.tanh(0.5 / scale) * np.exp(-np.abs(k) / scale)


def integer_counts(samples, centre, half_width):
    """Counts of integer samples in the cells ≤ c−w, c−w+1, …, c+w−1, ≥ c+w (the tails pooled).

    Samples are rounded to the nearest integer first; ``centre`` c and ``half_width`` w are
    ints (checked by the caller). Returns 2w + 1 counts, the cells of :func:`discrete_laplace_cells`.
    """
    clipped = np.clip(np.rint(samples).astype(np.int64) - centre, -half_width, half_width)
    return np.bincount(clipped + half_width, minlength=2 * half_width + 1)


def discrete_laplace_cells(scale, half_width):
    """Cell probabilities matching :func:`integer_counts` (the two end cells hold the tails).

    The discrete Laplace law of scale b (:func:`discrete_laplace_pmf`) on k = −w, …, w, with
    P[Z <= −w] and P[Z >= w] in the two end cells.
    """
    k = np.arange(-half_width, half_width + 1)
    probabilities = discrete_laplace_pmf(k, scale)
    # P[Z >= w] = e^{-w/b}/(1 + e^{-1/b}) for the discrete Laplace law.
    tail = math.exp(-half_width / scale) / (1 + math.exp(-1 / scale))
    probabilities[0] = probabilities[-1] = tail
    return probabilities


def pool_small_cells(observed, expected, minimum=5.0):
    """Merge end cells whose expected count is below ``minimum`` into their neighbour (χ² needs about 5 per cell).

    Returns the pooled (observed, expected) arrays, at least two cells each.
    """
    # Pool from both ends towards the middle so that the tails (where the
    # expected counts are small) merge and the χ² approximation holds.
    observed, expected = list(observed), list(expected)
    while len(expected) > 2 and expected[0] < minimum:
        first_expected, first_observed = expected.pop(0), observed.pop(0)
        expected[0] += first_expected
        observed[0] += first_observed
    while len(expected) > 2 and expected[-1] < minimum:
        last_expected, last_observed = expected.pop(), observed.pop()
        expected[-1] += last_expected
        observed[-1] += last_observed
    return np.array(observed), np.array(expected)


@validate_params({"scores": Array(ndim=1), "sensitivity": POSITIVE, "epsilon": Epsilon()})
def permute_and_flip_probabilities(scores, sensitivity, epsilon):
    """Exact output law of permute-and-flip (McKenna & Sheldon 2020), the selection behind OpenDP's pure-DP noisy max.

    Visit the candidates in a uniformly random order and stop at r with
    probability p_r = exp(ε(q_r − q*)/(2Δ)) (q* the best score, so the best is
    always accepted). A uniformly random order is the order of i.i.d. uniform
    arrival times t, so

    P[r] = p_r ∫₀¹ Π_{j≠r} (1 − p_j t) dt,

    a polynomial integral computed exactly. Equivalently: report the argmax of
    q_r + Exp(2Δ/ε) noise (Ding et al. 2021). Cost O(R²).

    Parameters
    ----------
    scores : array_like, shape (R,), finite
    sensitivity : float, > 0
    epsilon : float, > 0

    Returns
    -------
    ndarray, shape (R,)

    Examples
    --------
    >>> permute_and_flip_probabilities(np.array([0.5, 1.5, -0.2, 0.9]), sensitivity=1.0, epsilon=1.0).round(4)
    array([0.2012, 0.4063, 0.1337, 0.2588])
    """
    accept = np.exp(epsilon * (scores - scores.max()) / (2 * sensitivity))
    probabilities = np.empty(scores.size)
    for r in range(scores.size):
        product = np.array([1.0])
        for j in np.flatnonzero(np.arange(scores.size) != r):
            product = polynomial.polymul(product, [1.0, -accept[j]])
        antiderivative = polynomial.polyint(product)
        probabilities[r] = accept[r] * polynomial.polyval(1.0, antiderivative)
    return probabilities


@validate_params({"n_samples": POSITIVE_INT, "false_alarm": OPEN_UNIT})
def ks_critical_value(n_samples, false_alarm=FALSE_ALARM):
    """The KS distance above which a one-sample test of n samples rejects at level ``false_alarm``.

    Massart's form of the Dvoretzky–Kiefer–Wolfowitz inequality,
    P[sup|F_n − F| > t] <= 2 e^{−2nt²}, gives t = sqrt(ln(2/α)/(2n)): a
    slightly conservative threshold, valid for every n (appendix A, Eq. (eq-ks-critical)).

    Examples
    --------
    >>> round(ks_critical_value(n_samples=10, false_alarm=1e-3), 4)
    0.6165
    """
    return math.sqrt(math.log(2 / false_alarm) / (2 * n_samples))
