"""The exact laws appendix A tests the libraries' samples against, and the KS threshold.

The releases of :mod:`dpteach.experiments.production` are compared with
these closed forms: the discrete Laplace law (what OpenDP adds to an integer
count, and diffprivlib's ``Geometric``), the output law of permute-and-flip
(OpenDP's pure-DP noisy max) and the Dvoretzky–Kiefer–Wolfowitz threshold of
a one-sample KS test. None of them needs OpenDP or diffprivlib.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import polynomial

from .._validation import check_epsilon, check_int, check_positive, check_probability, check_real_array

__all__ = ["FALSE_ALARM", "discrete_laplace_pmf", "permute_and_flip_probabilities", "ks_critical_value"]

# Per test. With m tests in a run the chance of any false alarm is at most
# m·1e-6 (union bound): the appendix runs a few dozen, so a rejection of a
# correct sampler would be a 1-in-10⁴ event, not noise.
FALSE_ALARM = 1e-6


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
    """
    scale = check_positive(scale, "scale")
    k = check_real_array(k, "k")
    fractional = k != np.round(k)
    if np.any(fractional):
        raise ValueError(f"k must contain integers (the law lives on the integers), found {k[fractional][0]!r}")
    return np.tanh(0.5 / scale) * np.exp(-np.abs(k) / scale)


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
    """
    scores = check_real_array(scores, "scores", ndim=1)
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    accept = np.exp(epsilon * (scores - scores.max()) / (2 * sensitivity))
    probabilities = np.empty(scores.size)
    for r in range(scores.size):
        product = np.array([1.0])
        for j in np.flatnonzero(np.arange(scores.size) != r):
            product = polynomial.polymul(product, [1.0, -accept[j]])
        antiderivative = polynomial.polyint(product)
        probabilities[r] = accept[r] * polynomial.polyval(1.0, antiderivative)
    return probabilities


def ks_critical_value(n_samples, false_alarm=FALSE_ALARM):
    """The KS distance above which a one-sample test of n samples rejects at level ``false_alarm``.

    Massart's form of the Dvoretzky–Kiefer–Wolfowitz inequality,
    P[sup|F_n − F| > t] <= 2 e^{−2nt²}, gives t = sqrt(ln(2/α)/(2n)): a
    slightly conservative threshold, valid for every n (appendix A, Eq. (eq-ks-critical)).
    """
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    false_alarm = check_probability(false_alarm, "false_alarm")
    return math.sqrt(math.log(2 / false_alarm) / (2 * n_samples))
