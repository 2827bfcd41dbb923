"""Chapter 9: where the convex surrogate's minimiser lands, computed for the population (no sample), by quadrature.

Two facts the chapter states about logistic regression, each an exact computation rather than a run:

* :func:`rcn_logistic_threshold` — under random classification noise with a Gaussian marginal, the
  population logistic minimiser is the target halfspace only for a centred target (t* = 0); for
  t* ≠ 0 its threshold is slightly off, and this function says by how much;
* :func:`massart_example` — under Massart-type noise (flip probabilities below ½ that depend on x)
  the Bayes classifier is still the target halfspace, yet the logistic minimiser can be a much worse
  halfspace: convex surrogates are not consistent there, even with a Gaussian marginal.

Both use x ~ N(0, I₂) and a P(y = +1 | x) that is constant on axis-aligned cells. The population loss
E[log(1 + e^{−y(⟨w, x⟩ + b)})] is integrated by Gauss–Legendre quadrature on each cell (the integrand is
smooth inside a cell, so the quadrature is accurate to far below the digits quoted) and minimised by BFGS
(the loss is strictly convex here); the 0-1 error of a halfspace is integrated exactly in x₁ (normal CDF
differences) and by quadrature in x₂.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from scipy import optimize, special

from .._constraints import FiniteInterval, validate_params

__all__ = ["rcn_logistic_threshold", "massart_example"]

#: The integration box [−L, L]²: the standard normal mass outside it is below 1e-18.
_LIMIT = 9.0
#: Gauss–Legendre nodes per cell and axis.
_NODES = 96


#: A finite real in [−3, 3]: inside the quadrature box, where the integrals are accurate.
IN_BOX = FiniteInterval(Real, -3, 3, closed="both")
#: A flip probability in [0, 1/2).
FLIP = FiniteInterval(Real, 0, 0.5, closed="left")


def _axis(breaks):
    """Nodes and weights (including the N(0, 1) density) on [−L, L] split at ``breaks``."""
    edges = np.unique(np.clip(np.concatenate([[-_LIMIT, _LIMIT], breaks]), -_LIMIT, _LIMIT))
    base, base_weights = np.polynomial.legendre.leggauss(_NODES)
    nodes, weights = [], []
    for low, high in zip(edges[:-1], edges[1:]):
        half = (high - low) / 2
        nodes.append(low + half * (base + 1))
        weights.append(half * base_weights)
    nodes, weights = np.concatenate(nodes), np.concatenate(weights)
    return nodes, weights * np.exp(-nodes ** 2 / 2) / math.sqrt(2 * math.pi)


def _population_logistic(p_plus, x1_breaks, x2_breaks):
    """(w₁, w₂, b) minimising E[ℓ] when P(y = +1 | x) = p_plus(x₁, x₂), constant between the breaks."""
    x1, w1 = _axis(x1_breaks)
    x2, w2 = _axis(x2_breaks)
    X1, X2 = np.meshgrid(x1, x2, indexing="ij")
    weight = np.outer(w1, w2).ravel()
    features = np.column_stack([X1.ravel(), X2.ravel(), np.ones(X1.size)])
    p = p_plus(X1.ravel(), X2.ravel())

    def loss_and_gradient(theta):
        z = features @ theta
        # p·log(1 + e^{−z}) + (1 − p)·log(1 + e^{z}); its z-derivative is σ(z) − p.
        loss = weight @ (p * np.logaddexp(0.0, -z) + (1 - p) * np.logaddexp(0.0, z))
        return loss, features.T @ (weight * (special.expit(z) - p))

    result = optimize.minimize(loss_and_gradient, np.array([1.0, 0.0, 0.0]), jac=True, method="BFGS",
                               options={"gtol": 1e-12, "maxiter": 1000})
    return result.x


def _zero_one_error(theta, p_plus, x1_breaks, x2_breaks):
    """P[sign(w₁x₁ + w₂x₂ + b) ≠ y] (ties +1), exact in x₁, quadrature in x₂ (split where p or the cut jumps)."""
    w1, w2, b = theta
    if w1 == 0:
        raise ValueError("the halfspace must depend on x1 (w1 != 0) for this integration")
    x2, weights = _axis(np.concatenate([x2_breaks, [(-b - w1 * v) / w2 for v in x1_breaks] if w2 else []]))
    total = 0.0
    for v, weight in zip(x2, weights):
        cut = -(w2 * v + b) / w1  # the decision boundary along x₁ at this x₂
        edges = np.unique(np.concatenate([[-np.inf, np.inf], x1_breaks, [cut]]))
        low, high = edges[:-1], edges[1:]
        middle = np.where(np.isinf(low), high - 1, np.where(np.isinf(high), low + 1, (low + high) / 2))
        positive = w1 * middle + w2 * v + b >= 0
        p = p_plus(middle, np.full_like(middle, v))
        wrong = np.where(positive, 1 - p, p)
        total += weight * np.sum(wrong * (special.ndtr(high) - special.ndtr(low)))
    return float(total)


@validate_params({"threshold": IN_BOX, "noise": FLIP})
def rcn_logistic_threshold(threshold, noise):
    """Population logistic regression under RCN: its threshold and its excess 0-1 error over OPT = η.

    x ~ N(0, I₂), y = sign(x₁ − t*) flipped independently with probability η. By symmetry in x₂ the
    minimiser is sign(w₁x₁ + b) (w₂ = 0 up to the optimiser's tolerance); its threshold −b/w₁ equals t*
    only at t* = 0. The excess error of the threshold τ is (1 − 2η)·|Φ(τ) − Φ(t*)| exactly.

    Parameters
    ----------
    threshold : float, finite, |t*| ≤ 3
    noise : float in [0, 1/2)

    Returns
    -------
    dict {"threshold": −b/w₁, "excess_error": err − η, "coef": (w₁, w₂), "intercept": b}. Cost: about 0.1 s.

    Raises
    ------
    TypeError, ValueError
        For a non-finite or too large threshold, a noise outside [0, 1/2).

    Examples
    --------
    >>> round(rcn_logistic_threshold(threshold=0.3, noise=0.1)["threshold"], 4)
    0.3031
    """

    def p_plus(x1, x2):
        return np.where(x1 > threshold, 1 - noise, noise)

    theta = _population_logistic(p_plus, [threshold], [])
    tau = -theta[2] / theta[0]
    excess = (1 - 2 * noise) * abs(special.ndtr(tau) - special.ndtr(threshold))
    return {"threshold": float(tau), "excess_error": float(excess), "coef": (float(theta[0]), float(theta[1])),
            "intercept": float(theta[2])}


@validate_params({"corner": IN_BOX, "flip": FLIP})
def massart_example(corner=0.5, flip=0.45):
    """A Massart-noise instance on which logistic regression's population minimiser is a poor halfspace.

    x ~ N(0, I₂), target sign(x₁); labels flipped with probability ``flip`` < ½ on the quadrant
    {x₁ > corner, x₂ > 0} and never elsewhere. Every flip probability is below ½, so the Bayes classifier
    is the target sign(x₁), with error flip·P(x₁ > corner)/2 (this is the best halfspace too). The convex
    surrogate does not know that a flipped label is still more likely right than wrong: the +1 region
    with many −1 labels pulls its minimiser away.

    Parameters
    ----------
    corner : float, finite, |corner| ≤ 3
    flip : float in [0, 1/2)

    Returns
    -------
    dict {"bayes_error", "logistic_error" (0-1 error of the logistic minimiser), "coef", "intercept"}.
    Cost: about 0.5 s.

    Raises
    ------
    TypeError, ValueError
        For a non-finite or too large corner, a flip outside [0, 1/2).

    Examples
    --------
    >>> result = massart_example(corner=0.5, flip=0.45)
    >>> round(result["bayes_error"], 4), result["logistic_error"] > result["bayes_error"]
    (0.0694, True)
    """

    def p_plus(x1, x2):
        clean = x1 >= 0
        flipped = (x1 > corner) & (x2 > 0)
        return np.where(clean, np.where(flipped, 1 - flip, 1.0), 0.0)

    x1_breaks, x2_breaks = [0.0, corner], [0.0]
    theta = _population_logistic(p_plus, x1_breaks, x2_breaks)
    return {"bayes_error": float(flip * special.ndtr(-corner) / 2),
            "logistic_error": _zero_one_error(theta, p_plus, x1_breaks, x2_breaks),
            "coef": (float(theta[0]), float(theta[1])), "intercept": float(theta[2])}

