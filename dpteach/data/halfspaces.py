"""Chapters 6–9 data: halfspaces under the standard Gaussian marginal, with exact errors.

A halfspace is h_{w,t}(x) = sign(⟨w, x⟩ − t) with ‖w‖₂ = 1 (ties go to +1).
Under random classification noise (RCN) with rate η every label of the target
h* is flipped independently with probability η, so OPT = η exactly and any
classifier h has error η + (1 − 2η)·Pr[h ≠ h*] (halfspace_overview §5.1).
For two halfspaces the disagreement is exact through the bivariate normal
CDF Φ₂: Pr[h_{w₁,t₁} ≠ h_{w₂,t₂}] = Φ(t₁) + Φ(t₂) − 2Φ₂(t₁, t₂; ⟨w₁, w₂⟩).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

import functools
import math

from .._constraints import Integral, FiniteInterval, OrNone, Options, POSITIVE_INT, Real, validate_params, SameLength
from .._array_constraints import Array
from .._validation import check_memory
from ..marginals import MARGINALS, sample_marginal
from .generic import flip_labels_prechecked

__all__ = [
    "gaussian_halfspace_data",
    "halfspace_disagreement",
    "rcn_halfspace_error",
    "structured_noise_halfspace_data",
    "structured_noise_halfspace_error",
    "structured_noise_opt",
    "LOGCONCAVE_MARGINALS",
    "product_logconcave_sample",
    "logconcave_halfspace_data",
]


FINITE = FiniteInterval(Real, None, None)
"""Any finite real (a threshold t, of either sign): ``check_finite_scalar``."""
NOISE = FiniteInterval(Real, 0, 0.5, closed="left")
"""A label-noise rate η (or a flipped mass η₀) in [0, 1/2): at 1/2 the labels carry no signal."""
NORMAL = Array(ndim=1)
"""A normal vector w (finite, 1-D; normalised to unit length where it is used)."""


def _unit_normal(normal, d, name="normal"):
    """``normal`` (a checked 1-D float array, or None for e₁) normalised; its length needs d, so it is checked here."""
    if normal is None:
        normal = np.zeros(d)
        normal[0] = 1.0
    if normal.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},), got {normal.shape}")
    norm = np.linalg.norm(normal)
    if norm == 0:
        raise ValueError(f"{name} must be a non-zero vector (it is normalised to unit length), got all zeros")
    return normal / norm


def _halfspace_labels(X, normal, threshold, noise_rate, rng):
    """y = sign(⟨w*, x⟩ − t*) (ties +1), each flipped independently with probability η (RCN; OPT = η)."""
    clean = np.where(X @ normal - threshold >= 0, 1.0, -1.0)
    return flip_labels_prechecked(clean, noise_rate, rng)


@validate_params({"n": POSITIVE_INT, "d": POSITIVE_INT, "normal": OrNone(NORMAL), "threshold": FINITE,
                  "noise_rate": NOISE, "rng": "random_state"})
def gaussian_halfspace_data(n, d, normal=None, threshold=0.0, noise_rate=0.0, rng=None):
    """x ~ N(0, I_d), y = sign(⟨w*, x⟩ − t*) flipped w.p. η (random classification noise).

    Parameters
    ----------
    n, d : int
        Sample size (n >= 1) and dimension (d >= 1).
    normal : array_like of shape (d,), optional
        The target's normal w* (normalised to unit length); default e₁.
    threshold : float
        The target's threshold t*; any finite real.
    noise_rate : float
        The RCN rate η ∈ [0, 1/2); OPT = η.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (X, y, normal) : shapes (n, d), (n,), (d,); labels ±1 (float), ``normal`` the unit w*.

    Raises
    ------
    ValueError, TypeError
        For n, d < 1, a zero or wrongly shaped ``normal``, a non-finite
        threshold, η outside [0, 1/2), or an (n, d) sample beyond
        ``dpteach._validation.MAX_MEMORY_BYTES`` (refused before drawing).

    Examples
    --------
    >>> X, y, normal = gaussian_halfspace_data(n=5, d=2, rng=0)
    >>> X.shape, y.tolist(), normal.tolist()
    ((5, 2), [1.0, 1.0, -1.0, 1.0, -1.0], [1.0, 0.0])
    """
    check_memory(("n", n), ("d", d))
    normal = _unit_normal(normal, d)
    X = rng.standard_normal((n, d))
    return X, _halfspace_labels(X, normal, threshold, noise_rate, rng), normal


@validate_params({"normal_1": NORMAL, "threshold_1": FINITE, "normal_2": NORMAL, "threshold_2": FINITE})
def halfspace_disagreement(normal_1, threshold_1, normal_2, threshold_2):
    """Pr_{x ~ N(0, I)}[sign(⟨w₁, x⟩ − t₁) ≠ sign(⟨w₂, x⟩ − t₂)] = Φ(t₁) + Φ(t₂) − 2Φ₂(t₁, t₂; ρ).

    ρ = ⟨w₁, w₂⟩ after normalising both normals. Exact (up to scipy's Φ₂),
    with the degenerate ρ = ±1 cases in closed form.

    Raises
    ------
    ValueError, TypeError
        For normals of different length, zero normals, or non-finite thresholds.

    Examples
    --------
    >>> round(halfspace_disagreement(np.array([1.0, 0.0]), 0.1, np.array([0.6, 0.8]), 0.0), 3)
    0.296
    """
    w2 = _unit_normal(normal_2, normal_1.size, "normal_2")
    w1 = _unit_normal(normal_1, normal_1.size, "normal_1")
    t1, t2 = threshold_1, threshold_2
    rho = float(np.clip(w1 @ w2, -1.0, 1.0))
    phi_1, phi_2 = stats.norm.cdf(t1), stats.norm.cdf(t2)
    if rho > 1 - 1e-12:
        both_below = min(phi_1, phi_2)
    elif rho < -1 + 1e-12:
        both_below = max(0.0, phi_1 + phi_2 - 1.0)
    else:
        both_below = stats.multivariate_normal(mean=[0.0, 0.0], cov=[[1.0, rho], [rho, 1.0]]).cdf([t1, t2])
    return float(np.clip(phi_1 + phi_2 - 2.0 * both_below, 0.0, 1.0))


@validate_params({"normal": NORMAL, "threshold": FINITE, "target_normal": NORMAL, "target_threshold": FINITE,
                  "noise_rate": NOISE},
                 # under this function's own names (halfspace_disagreement calls them normal_1/normal_2)
                 relations=[SameLength("normal", "target_normal", what="length (one dimension d)")])
def rcn_halfspace_error(normal, threshold, target_normal, target_threshold, noise_rate):
    """True error of h_{w,t} under N(0, I) with RCN around h*: η + (1 − 2η)·Pr[h ≠ h*].

    Raises
    ------
    ValueError, TypeError
        As :func:`halfspace_disagreement`, and for η outside [0, 1/2).

    Examples
    --------
    >>> round(rcn_halfspace_error(np.array([1.0, 0.0]), 0.1, np.array([0.6, 0.8]), 0.0, noise_rate=0.1), 3)
    0.337
    """
    disagreement = halfspace_disagreement(normal, threshold, target_normal, target_threshold)
    return noise_rate + (1.0 - 2.0 * noise_rate) * disagreement


# --- structured ("adversarial-looking") label noise ----------------------------------------

def _flip_level(noise_mass):
    return math.inf if noise_mass == 0 else float(stats.norm.isf(noise_mass))


@validate_params({"n": POSITIVE_INT, "d": FiniteInterval(Integral, 2, None, closed="left"), "threshold": FINITE,
                  "noise_mass": NOISE, "rng": "random_state"})
def structured_noise_halfspace_data(n, d, threshold=0.3, noise_mass=0.1, rng=None):
    """x ~ N(0, I_d), y = sign(x₁ − t*), flipped deterministically on the slab {x₂ > z_{1−η₀}}.

    The flipped region has probability η₀ and is correlated with x (it sits
    far from the decision boundary, at large |x₁| as often as not), which is
    the kind of noise that pulls convex surrogates such as least squares away
    from the target, while L1 regression is robust to it. Labels depend on
    (x₁, x₂) only, so OPT is attained by halfspaces with normal in
    span(e₁, e₂) (or constants) and :func:`structured_noise_opt` computes it.

    Parameters
    ----------
    n : int ≥ 1
    d : int ≥ 2
    threshold : float
        t* of the clean target sign(x₁ − t*).
    noise_mass : float in [0, 1/2)
        η₀ = Pr[x₂ > z_{1−η₀}], the mass of the flipped slab.
    rng : seed or Generator

    Returns
    -------
    (X, y) : shapes (n, d) and (n,), labels ±1 (float). Cost O(n·d).

    Raises
    ------
    ValueError, TypeError
        For n < 1, d < 2, a non-finite threshold, η₀ ∉ [0, 1/2), or an (n, d)
        sample beyond ``dpteach._validation.MAX_MEMORY_BYTES``.

    Examples
    --------
    >>> X, y = structured_noise_halfspace_data(n=5, d=2, rng=0)
    >>> X.shape, y.tolist()
    ((5, 2), [-1.0, 1.0, -1.0, 1.0, -1.0])
    """
    check_memory(("n", n), ("d", d))
    X = rng.standard_normal((n, d))
    clean = np.where(X[:, 0] - threshold >= 0, 1.0, -1.0)
    return X, np.where(X[:, 1] > _flip_level(noise_mass), -clean, clean)


_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(200)


def _x2_quadrature(level):
    """Gauss–Legendre nodes/weights for E over x₂ ~ N(0,1), split at the flip level, and the flip sign."""
    cuts = [-10.0, min(level, 10.0), 10.0] if math.isfinite(level) else [-10.0, 10.0]
    nodes, weights, flipped = [], [], []
    for a, b in zip(cuts[:-1], cuts[1:]):
        if b <= a:
            continue
        x = 0.5 * (b - a) * _NODES + 0.5 * (a + b)
        nodes.append(x)
        weights.append(0.5 * (b - a) * _WEIGHTS * stats.norm.pdf(x))
        flipped.append(np.full(x.size, a >= level))
    return np.concatenate(nodes), np.concatenate(weights), np.concatenate(flipped)


def _structured_errors(angles, thresholds, target_threshold, level):
    """Errors of sign(cos a·x₁ + sin a·x₂ − t) for arrays of (a, t), by exact integration over x₁ and quadrature over x₂."""
    x2, w2, flipped = _x2_quadrature(level)
    c = np.cos(angles)[..., None]
    s = np.sin(angles)[..., None]
    t = np.asarray(thresholds)[..., None]
    safe_c = np.where(np.abs(c) < 1e-12, 1e-12, c)
    boundary = (t - s * x2) / safe_c                        # h = +1 iff x₁ ≥ b (c > 0) or x₁ ≤ b (c < 0)
    gap = np.abs(stats.norm.cdf(boundary) - stats.norm.cdf(target_threshold))
    clean_error = np.where(c > 0, gap, 1.0 - gap)           # Pr[h ≠ sign(x₁ − t*) | x₂]
    error = np.where(flipped, 1.0 - clean_error, clean_error)
    return error @ w2


@validate_params({"normal": NORMAL, "threshold": FINITE, "target_threshold": FINITE, "noise_mass": NOISE})
def structured_noise_halfspace_error(normal, threshold, target_threshold=0.3, noise_mass=0.1):
    """Exact error of sign(⟨w, x⟩ − t), w ∈ span(e₁, e₂), under :func:`structured_noise_halfspace_data`.

    Integrates Pr[h ≠ y | x₂] (a difference of normal CDFs in x₁) against
    φ(x₂) by Gauss–Legendre quadrature split at the flip level (accurate to
    about 1e-6).

    Parameters
    ----------
    normal : array_like, shape (2,) or (d,) with zeros after the second entry; non-zero
    threshold : float
    target_threshold, noise_mass : as in :func:`structured_noise_halfspace_data`

    Returns
    -------
    float in [0, 1]. Cost O(1).

    Raises
    ------
    ValueError, TypeError
        For a zero or non-finite normal, a normal with weight outside the
        first two coordinates, non-finite thresholds, or η₀ ∉ [0, 1/2).

    Examples
    --------
    >>> round(structured_noise_halfspace_error(np.array([1.0, 0.0]), threshold=0.3), 3)
    0.1
    """
    w = normal
    if w.size < 2 or np.any(w[2:] != 0):
        raise ValueError("normal must lie in span(e1, e2) (entries after the second must be 0), "
                         f"got {w!r}")
    w = _unit_normal(w, w.size)
    angle = math.atan2(w[1], w[0])
    error = _structured_errors(np.array([angle]), np.array([threshold]), target_threshold,
                               _flip_level(noise_mass))
    return float(np.clip(error[0], 0.0, 1.0))


@functools.lru_cache(maxsize=32)
def _structured_opt(target_threshold, noise_mass):
    from scipy import optimize

    level = _flip_level(noise_mass)
    angles = np.linspace(-math.pi, math.pi, 121)[:-1] + 1e-3
    thresholds = np.linspace(-3.0, 3.0, 41)
    A, Tt = np.meshgrid(angles, thresholds, indexing="ij")
    errors = _structured_errors(A, Tt, target_threshold, level)
    i, j = np.unravel_index(np.argmin(errors), errors.shape)
    result = optimize.minimize(
        lambda z: _structured_errors(np.array([z[0]]), np.array([z[1]]), target_threshold, level)[0],
        x0=[A[i, j], Tt[i, j]], method="Nelder-Mead",
        options={"xatol": 1e-6, "fatol": 1e-9, "maxiter": 400})
    best, (angle, thr) = (float(result.fun), result.x) if result.fun < errors[i, j] else \
        (float(errors[i, j]), (A[i, j], Tt[i, j]))
    positive = float(_structured_errors(np.array([0.0]), np.array([-40.0]), target_threshold, level)[0])
    constants = min(positive, 1.0 - positive)
    if constants < best:
        return constants, (1.0, 0.0), (-math.inf if positive < 0.5 else math.inf)
    return best, (math.cos(angle), math.sin(angle)), float(thr)


@validate_params({"threshold": FINITE, "noise_mass": NOISE})
def structured_noise_opt(threshold=0.3, noise_mass=0.1):
    """OPT = min over halfspaces (and constants) of the error under :func:`structured_noise_halfspace_data`.

    The labels depend on (x₁, x₂) only; averaging over the orthogonal
    complement (as in the paper's proof of Lemma 3.2) shows the infimum is
    attained within span(e₁, e₂). We grid-search angle × threshold with the
    exact error of :func:`structured_noise_halfspace_error`, then refine by
    Nelder–Mead (OPT to about 1e-6). Cached per (t*, η₀).

    Parameters
    ----------
    threshold, noise_mass : as in :func:`structured_noise_halfspace_data`

    Returns
    -------
    (opt, normal, best_threshold) : float, the unit 2-vector of the best
        halfspace sign(⟨w, (x₁, x₂)⟩ − t), and its t (±inf for a constant).
        About 1 s the first time, then cached.

    Raises
    ------
    ValueError, TypeError
        For a non-finite threshold or η₀ ∉ [0, 1/2).

    Examples
    --------
    >>> opt, normal, best_threshold = structured_noise_opt()
    >>> round(opt, 3), round(float(normal[0]), 3), round(best_threshold, 3)
    (0.1, 1.0, 0.3)
    """
    opt, normal, best = _structured_opt(threshold, noise_mass)
    return opt, np.array(normal), best


# --- product log-concave marginals (Appendix D) ----------------------------------------------

LOGCONCAVE_MARGINALS = MARGINALS


@validate_params({"n": POSITIVE_INT, "d": POSITIVE_INT, "marginal": Options(MARGINALS), "rng": "random_state"})
def product_logconcave_sample(n, d, marginal="laplace", rng=None):
    """n draws from a product of d isotropic log-concave marginals: :func:`dpteach.marginals.sample_marginal`.

    The data layer's name for the one sampler (which lives with the algorithms because they draw
    public synthetic points from it, and they never import ``data``), with the Laplace marginal by
    default. Parameters, result (shape (n, d)) and errors are those of ``sample_marginal``.

    Examples
    --------
    >>> product_logconcave_sample(n=5, d=2, rng=0).shape
    (5, 2)
    """
    return sample_marginal(n, d, marginal, rng)


@validate_params({"n": POSITIVE_INT, "d": POSITIVE_INT, "marginal": Options(MARGINALS), "normal": OrNone(NORMAL),
                  "threshold": FINITE, "noise_rate": NOISE, "rng": "random_state"})
def logconcave_halfspace_data(n, d, marginal="laplace", normal=None, threshold=0.0, noise_rate=0.0, rng=None):
    """x from a product log-concave marginal, y = sign(⟨w*, x⟩ − t*) flipped w.p. η (RCN; OPT = η).

    Parameters
    ----------
    n, d : int ≥ 1
    marginal : {"uniform", "laplace"}
    normal : array_like, shape (d,), optional (default e₁; normalised)
    threshold : float
    noise_rate : float in [0, 1/2)
    rng : seed or Generator

    Returns
    -------
    (X, y, normal) : shapes (n, d), (n,), (d,). Cost O(n·d).

    Raises
    ------
    ValueError, TypeError
        As :func:`gaussian_halfspace_data`, and for an unknown marginal.

    Examples
    --------
    >>> X, y, normal = logconcave_halfspace_data(n=5, d=2, rng=0)
    >>> X.shape, y.shape, normal.tolist()
    ((5, 2), (5,), [1.0, 0.0])
    """
    check_memory(("n", n), ("d", d))
    normal = _unit_normal(normal, d)
    X = product_logconcave_sample(n, d, marginal, rng)
    return X, _halfspace_labels(X, normal, threshold, noise_rate, rng), normal
