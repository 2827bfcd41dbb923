"""Runners behind the figures of chapter 7 (the proper learner, the paper's Algorithm 2).

Each runner does the slow, slider-independent work once (data, Hermite
correlations, many learner runs) and returns plain arrays; the notebook's
draw functions only add noise, take eigenvalues or pick precomputed curves,
so a slider redraw stays under 0.3 s.

The default target is the chapter's preset: w* = (0.6, 0.8, 0, …, 0),
t* = 0.4 in the data convention sign(⟨w*, x⟩ − t*), random classification
noise η = 0.1 (so OPT = η), under N(0, I_d).
"""

from __future__ import annotations

import math
import time

import numpy as np

from .. import data, proper
from .. import subspace
from .. import halfspace_cover
from .._constraints import (Check, Count, Delta, Epsilon, Integral, FiniteInterval, POSITIVE_INT, Real, Unchecked,
                            validate_params)
from .._array_constraints import Array, Sweep
from .._validation import check_int, check_memory
from ..data import structured_noise_halfspace_data, structured_noise_opt
from ..hermite import feature_dimension, hermite_feature_sum
from ..mechanisms import gaussian_sigma
from ._progress import EPSILONS_OR_INF, SIZES, check_repetitions
from .._progress import progress

__all__ = [
    "preset_normal",
    "correlation_means",
    "spectrum_at",
    "excess_error_curves",
    "COVER_COST_MAX_SIZE",
    "cover_costs",
    "discretization_excess",
    "proper_vs_improper",
    "transition_sample_size",
    "structured_noise_excess",
]

PRESET_THRESHOLD = 0.4
PRESET_NOISE = 0.1

# --- The contracts of the runners: every argument a runner passes on is declared here, since the routines it
# calls (the learner's fit, the data generators) skip their own checks when called from a checked runner.


def _check_precomputed(precomputed, name):
    """The dict :func:`correlation_means` returns (whether it holds the degree asked for is checked in the body)."""
    if not isinstance(precomputed, dict) or not {"d", "degrees", "n_values", "normal", "means", "noise"} <= set(
            precomputed):
        raise ValueError(f"{name} must come from correlation_means(), got {type(precomputed).__name__}")
    return precomputed


SAMPLE_SIZES = Sweep(Count(2))
EPSILON_SWEEP = EPSILONS_OR_INF
#: A sweep of cover resolutions a, each in (0, 1).
RESOLUTION_SWEEP = Sweep(FiniteInterval(Real, 0, 1))
#: d ≥ 2: the preset normal w* = (0.6, 0.8, 0, …) needs two coordinates.
DIMENSION = FiniteInterval(Integral, 2, None, closed="left")
THRESHOLD = FiniteInterval(Real, None, None)  # any finite t*
NOISE_RATE = FiniteInterval(Real, 0, 0.5, closed="left")  # at 1/2 the labels carry no signal
LEARNER = {"alpha": subspace.ALPHA, "delta": Delta(allow_zero=False)}


@validate_params({"d": DIMENSION})
def preset_normal(d):
    """w* = (0.6, 0.8, 0, …, 0) in ℝ^d (d ≥ 2): the chapter's target normal.

    Examples
    --------
    >>> preset_normal(d=3)
    array([0.6, 0.8, 0. ])
    """
    check_memory(("d", d))
    normal = np.zeros(d)
    normal[:2] = (0.6, 0.8)
    return normal


@validate_params({"d": DIMENSION, "degrees": SIZES, "n_values": SAMPLE_SIZES, "threshold": THRESHOLD,
                  "noise_rate": NOISE_RATE, "rng": "random_state"})
def correlation_means(d, degrees, n_values, threshold=PRESET_THRESHOLD, noise_rate=PRESET_NOISE, rng=None):
    """The exact clipped means m̂ = (1/n₁)Σ_{S₁} y ψ̄_{p,T}(x) (T = 2√D_p) for each degree and sample size.

    One dataset of size n per entry of ``n_values`` (S₁ is its first half),
    plus one fixed standard-normal vector per (degree, n) for the noise, so
    that a figure can release m̃ = Proj_B(m̂ + σ·z) at any ε without
    recomputing features. Cost Σ_n Σ_p (n/2)·D_p.

    Returns
    -------
    dict with keys "d", "degrees", "n_values", "normal", "means" ({(p, n): m̂}),
    "noise" ({(p, n): z}).

    Examples
    --------
    >>> precomputed = correlation_means(d=2, degrees=[2], n_values=[50], rng=0)
    >>> precomputed["means"][(2, 50)].shape
    (6,)
    """
    normal = preset_normal(d)
    means, noise = {}, {}
    for n in progress(n_values, "correlations"):
        X, y, _ = data.gaussian_halfspace_data(n, d, normal, threshold, noise_rate, rng=rng)
        first = slice(0, n // 2)
        for p in degrees:
            radius = 2.0 * math.sqrt(feature_dimension(d, p))
            means[(p, n)] = hermite_feature_sum(X[first], p, weights=y[first], radius=radius) / (n // 2)
            noise[(p, n)] = rng.standard_normal(means[(p, n)].size)
    return {"d": d, "degrees": degrees, "n_values": n_values, "normal": normal, "means": means, "noise": noise}


# Check: the record correlation_means returns (a record type of this chapter)
@validate_params({"precomputed": Check(_check_precomputed, invalid=[(None, "None"), ({}, "{}")]),
                  "degree": POSITIVE_INT, "epsilon": Epsilon(allow_inf=True), **LEARNER})
def spectrum_at(precomputed, degree, epsilon, delta=1e-5, alpha=0.1):
    """Eigenvalues of M, the noise floor, the threshold θ_V and the angle of V to w*, for each n.

    Releases m̃ = Proj_B(m̂ + σz) with σ = gaussian_sigma(2T/n₁, ε, δ) (ε = inf: σ = 0)
    from :func:`correlation_means`, then follows :class:`dpteach.proper.PrivateProperLearner`:
    M, θ_V, V. The angle is between w* and its projection onto V (π/2 when V = {0}).

    Returns
    -------
    dict of arrays over n: "eigenvalues" (len(n), d), "floor", "threshold", "dim", "angle".
    Cost O(len(n)·(d·D_p + d³)).

    Examples
    --------
    >>> precomputed = correlation_means(2, [2], [50], rng=0)
    >>> spectrum = spectrum_at(precomputed, degree=2, epsilon=1.0, alpha=0.3)
    >>> spectrum["eigenvalues"].shape, spectrum["dim"]
    ((1, 2), array([0]))
    """
    if degree not in precomputed["degrees"]:  # relates two arguments: checked here
        raise ValueError(f"precomputed must come from correlation_means() and contain degree={degree!r}")
    d, normal = precomputed["d"], precomputed["normal"]
    clip = 2.0 * math.sqrt(feature_dimension(d, degree))
    out = {"eigenvalues": [], "floor": [], "threshold": [], "dim": [], "angle": []}
    for n in precomputed["n_values"]:
        n1 = n // 2
        sigma = 0.0 if epsilon == math.inf else gaussian_sigma(2.0 * clip / n1, epsilon, delta)
        m_tilde = proper.project_unit_ball(precomputed["means"][(degree, n)] + sigma * precomputed["noise"][(degree, n)])
        M = subspace.gradient_second_moment(m_tilde, degree, d)
        threshold = subspace.subspace_threshold(alpha, d, degree, n1, sigma)
        basis, eigenvalues = subspace.relevant_subspace(M, threshold, d)
        inside = np.linalg.norm(basis.T @ normal) if basis.size else 0.0
        out["eigenvalues"].append(eigenvalues)
        out["floor"].append(subspace.noise_floor(d, degree, n1, sigma))
        out["threshold"].append(threshold)
        out["dim"].append(basis.shape[1])
        out["angle"].append(math.acos(min(1.0, inside)))
    return {key: np.array(value) for key, value in out.items()}


@validate_params({"n_values": SAMPLE_SIZES, "epsilons": EPSILON_SWEEP, "n_reps": POSITIVE_INT, **LEARNER,
                  "d": DIMENSION, "max_subspace_dim": FiniteInterval(Integral, 0, None, closed="left"),
                  "threshold": THRESHOLD, "noise_rate": NOISE_RATE, "rng": "random_state"})
def excess_error_curves(n_values, epsilons, n_reps, alpha=0.1, d=5, delta=1e-5, max_subspace_dim=2,
                        threshold=PRESET_THRESHOLD, noise_rate=PRESET_NOISE, rng=None):
    """err_P(ĥ) − OPT of :class:`~dpteach.proper.PrivateProperLearner` for each ε, n and repetition (exact errors).

    The error of a halfspace under RCN is η + (1 − 2η)·Pr[h ≠ h*], computed
    exactly (``dpteach.data.rcn_halfspace_error``). The same datasets are used
    for every ε. Cost n_reps·len(n)·len(ε) fits.

    Returns
    -------
    dict: "excess" (len(ε), len(n), n_reps), "dim" (same shape, dim V), "seconds" (mean fit time per n).
    ε = inf fits the non-private reference, as :class:`~dpteach.proper.PrivateProperLearner` does.

    Examples
    --------
    >>> curves = excess_error_curves(n_values=[200], epsilons=[1.0], n_reps=1, alpha=0.3, d=2, max_subspace_dim=1,
    ...                              rng=0)
    >>> curves["excess"].shape
    (1, 1, 1)
    """
    # the work budget relates the repetitions to the sweeps: checked here
    check_repetitions(n_reps, per_repetition=[("len(epsilons)", len(epsilons)), ("len(n_values)", len(n_values)),
                                              ("n_values", max(n_values))])
    normal = preset_normal(d)
    excess = np.empty((len(epsilons), len(n_values), n_reps))
    dims = np.empty_like(excess)
    seconds = np.zeros(len(n_values))
    for j, n in enumerate(progress(n_values, "learner runs")):
        for r in range(n_reps):
            X, y, _ = data.gaussian_halfspace_data(n, d, normal, threshold, noise_rate, rng=rng)
            for i, epsilon in enumerate(epsilons):
                start = time.perf_counter()
                learner = proper.PrivateProperLearner(alpha, epsilon, delta, max_subspace_dim=max_subspace_dim,
                                                      random_state=rng).fit(X, y)
                seconds[j] += time.perf_counter() - start
                error = data.rcn_halfspace_error(learner.coef_, -learner.intercept_, normal, threshold, noise_rate)
                excess[i, j, r] = error - noise_rate
                dims[i, j, r] = learner.subspace_.shape[1]
    return {"excess": excess, "dim": dims, "seconds": seconds / (n_reps * len(epsilons))}


#: Covers above this many members are not scored by :func:`cover_costs` (the notebook's time budget).
COVER_COST_MAX_SIZE = 1_000_000


@validate_params({"dims": Sweep(Count(0)),
                  "resolutions": RESOLUTION_SWEEP, "n": POSITIVE_INT, "d": POSITIVE_INT, "rng": "random_state",
                  "max_size": FiniteInterval(Integral, 1, halfspace_cover.MAX_CANDIDATES, closed="both")})
def cover_costs(dims, resolutions, n=20_000, d=5, rng=None, max_size=COVER_COST_MAX_SIZE):
    """|H(q)| and the seconds to build the cover and score it on n points, for each dim V and resolution a.

    V is spanned by the first k coordinate axes (the cost does not depend on
    which subspace). What is computed depends on the settings only, never on
    the clock: for each k the resolutions are visited from coarse to fine, and
    the first cover with more than ``max_size`` members is built (its size is
    recorded) but not scored; finer ones, larger still, are skipped. The
    seconds are measured and returned for display; they choose nothing.

    Parameters
    ----------
    dims : sequence of int, 0 <= k <= d
    resolutions : sequence of float in (0, 1)
    n : int >= 1
        Points scored (n₂ of Algorithm 7.7).
    d : int >= 1
    rng : seed or Generator
    max_size : int, 1 <= max_size <= ``MAX_CANDIDATES``
        The largest cover that is scored.

    Returns
    -------
    dict: "size" (len(dims), len(a)); "seconds" (same; NaN where not scored); "dims", "resolutions"
    (as given); "max_size". A size is NaN where the cover was skipped.

    Examples
    --------
    >>> cover_costs(dims=[1], resolutions=[0.5], n=50, d=2, rng=0)["size"]
    array([[20.]])
    """
    check_memory(("n", n), ("d", d))
    dims = [check_int(k, "dims", minimum=0, maximum=d) for k in dims]  # dim V ≤ d relates two arguments
    X = rng.standard_normal((n, d))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    sizes = np.full((len(dims), len(resolutions)), np.nan)
    seconds = np.full_like(sizes, np.nan)
    for i, k in enumerate(progress(dims, "covers")):
        basis = np.eye(d)[:, :k]
        for a in sorted(resolutions, reverse=True):  # coarse to fine: the covers grow
            column = resolutions.index(a)
            start = time.perf_counter()
            cover = halfspace_cover.halfspace_cover(basis, a)
            sizes[i, column] = cover.size
            if cover.size > max_size:
                break
            halfspace_cover.cover_error_counts(X, y, cover)
            seconds[i, column] = time.perf_counter() - start
    return {"size": sizes, "seconds": seconds, "dims": dims, "resolutions": resolutions, "max_size": max_size}


@validate_params({"resolutions": RESOLUTION_SWEEP, "d": DIMENSION, "threshold": THRESHOLD,
                  "noise_rate": NOISE_RATE})
def discretization_excess(resolutions, d=5, threshold=PRESET_THRESHOLD, noise_rate=PRESET_NOISE):
    """err(h) − OPT of the cover member nearest to h* when V ∋ w* exactly (Fact B.12's O(a)), for each a.

    V = span(e₁, e₂) ∋ w*; the nearest member has the net direction closest to
    w* and the grid threshold closest to −t*. Exact errors (bivariate normal CDF).

    Returns
    -------
    ndarray, shape (len(a),).

    Examples
    --------
    >>> discretization_excess(resolutions=[0.5], d=2).round(4)
    array([0.0288])
    """
    normal = preset_normal(d)
    basis = np.eye(d)[:, :2]
    out = []
    for a in resolutions:
        cover = halfspace_cover.halfspace_cover(basis, a)
        direction = cover.directions[np.argmax(cover.directions @ normal)]
        intercept = cover.thresholds[np.argmin(np.abs(cover.thresholds + threshold))]
        out.append(data.rcn_halfspace_error(direction, -intercept, normal, threshold, noise_rate) - noise_rate)
    return np.array(out)


# The chapter 6 learner takes ``improper_kwargs`` as given: this runner leaves nested checks on (skip_nested=False),
# so both learners check their own hyperparameters at fit, as when called from the top.
@validate_params({"n_values": SAMPLE_SIZES, "n_reps": POSITIVE_INT, "epsilon": Epsilon(), **LEARNER,
                  "d": DIMENSION, "n_test": Count(), "threshold": THRESHOLD, "noise_rate": NOISE_RATE,
                  "rng": "random_state",
                  "improper_kwargs": Unchecked("keyword arguments of PrivateHermiteL1Learner, checked by its fit")},
                 skip_nested=False)
def proper_vs_improper(n_values, n_reps, epsilon=1.0, alpha=0.1, d=5, delta=1e-5, n_test=200_000,
                       threshold=PRESET_THRESHOLD, noise_rate=PRESET_NOISE, rng=None, improper_kwargs=None):
    """Excess errors of the proper learner (this chapter) and the improper one (chapter 6) on the same data.

    The proper learner's error is exact; the improper learner's (a
    thresholded polynomial, not a halfspace) is estimated on ``n_test`` fresh
    points with labels from the same RCN model (standard error ≤ 0.0011 at 2·10⁵).

    Returns
    -------
    dict: "proper", "improper" (len(n), n_reps) excess errors, "seconds_proper", "seconds_improper" (len(n),).

    Examples
    --------
    >>> result = proper_vs_improper(n_values=[200], n_reps=1, alpha=0.3, d=2, n_test=100, rng=0)
    >>> result["proper"].shape, result["improper"].shape
    ((1, 1), (1, 1))
    """
    from .. import improper  # chapter 6's learner

    check_repetitions(n_reps, per_repetition=[("len(n_values)", len(n_values)), ("n_values", max(n_values))])
    normal = preset_normal(d)
    check_memory(("n_test", n_test), ("d", d))
    X_test, y_test, _ = data.gaussian_halfspace_data(n_test, d, normal, threshold, noise_rate, rng=rng)
    result = {key: np.empty((len(n_values), n_reps)) for key in ("proper", "improper")}
    seconds = {key: np.zeros(len(n_values)) for key in ("proper", "improper")}
    for j, n in enumerate(progress(n_values, "proper vs improper")):
        for r in range(n_reps):
            X, y, _ = data.gaussian_halfspace_data(n, d, normal, threshold, noise_rate, rng=rng)
            start = time.perf_counter()
            learner = proper.PrivateProperLearner(alpha, epsilon, delta, random_state=rng).fit(X, y)
            seconds["proper"][j] += time.perf_counter() - start
            result["proper"][j, r] = data.rcn_halfspace_error(learner.coef_, -learner.intercept_, normal,
                                                              threshold, noise_rate) - noise_rate
            start = time.perf_counter()
            other = improper.PrivateHermiteL1Learner(alpha, epsilon, delta, random_state=rng,
                                                     **(improper_kwargs or {})).fit(X, y)
            seconds["improper"][j] += time.perf_counter() - start
            result["improper"][j, r] = 1.0 - other.score(X_test, y_test) - noise_rate
    return {**result, "seconds_proper": seconds["proper"] / n_reps, "seconds_improper": seconds["improper"] / n_reps}


@validate_params({"n_values": SIZES, "excess": Array(ndim=2), "level": FiniteInterval(Real, None, None)})
def transition_sample_size(n_values, excess, level):
    """The first n at which the median excess error (over the last axis) is below ``level``; inf if none.

    The chapter's "transition": the sample size at which the subspace V first
    contains w* and the learner leaves the near-constant plateau.

    Parameters
    ----------
    n_values : sequence of int, increasing
    excess : array_like, shape (len(n_values), n_reps)
    level : float (the chapter uses α)

    Returns
    -------
    float (an entry of ``n_values``, or inf).

    Examples
    --------
    >>> transition_sample_size(n_values=[10, 20], excess=np.array([[0.3, 0.3], [0.05, 0.05]]), level=0.1)
    20.0
    """
    if excess.shape[0] != len(n_values):  # relates two arguments: checked here
        raise ValueError(f"excess must have shape (len(n_values), n_reps) = ({len(n_values)}, ·), "
                         f"got {excess.shape}")
    below = np.flatnonzero(np.median(excess, axis=1) < level)
    return float(n_values[below[0]]) if below.size else math.inf


@validate_params({"n_values": SAMPLE_SIZES, "epsilons": EPSILON_SWEEP, "n_reps": POSITIVE_INT, **LEARNER,
                  "d": DIMENSION, "threshold": THRESHOLD, "noise_mass": NOISE_RATE, "rng": "random_state"})
def structured_noise_excess(n_values, epsilons, n_reps, alpha=0.1, d=5, delta=1e-6, threshold=0.3, noise_mass=0.1,
                            rng=None):
    """err_P(ĥ) − OPT of the proper learner on labels that are *not* random classification noise.

    Chapter 6's structured noise: y = sign(x₁ − t*), flipped deterministically
    on the slab {x₂ > z_{1−η₀}} (``dpteach.data.structured_noise_halfspace_data``).
    The flips depend on x, so the Bayes classifier is not a halfspace and the
    semi-agnostic guarantee is tested on labels that RCN never produces. OPT is
    ``structured_noise_opt`` (0.1 at the defaults, attained by the generating
    halfspace); the error of each output halfspace is exact
    (``dpteach.experiments.dpsas.structured_noise_error``). The same datasets
    are used for every ε. Cost n_reps·len(n)·len(ε) fits.

    Returns
    -------
    dict: "excess" and "dim" (len(ε), len(n), n_reps), "opt" (float).

    Examples
    --------
    >>> result = structured_noise_excess(n_values=[200], epsilons=[1.0], n_reps=1, alpha=0.3, d=2, rng=0)
    >>> result["excess"].shape, round(result["opt"], 3)
    ((1, 1, 1), 0.1)
    """
    from .dpsas import structured_noise_error  # exact errors of any halfspace under this noise (chapter 8)

    check_repetitions(n_reps, per_repetition=[("len(epsilons)", len(epsilons)), ("len(n_values)", len(n_values)),
                                              ("n_values", max(n_values))])
    opt = structured_noise_opt(threshold, noise_mass)[0]
    excess = np.empty((len(epsilons), len(n_values), n_reps))
    dims = np.empty_like(excess)
    for j, n in enumerate(progress(n_values, "structured noise")):
        for r in range(n_reps):
            X, y = structured_noise_halfspace_data(n, d, threshold, noise_mass, rng=rng)
            for i, epsilon in enumerate(epsilons):
                learner = proper.PrivateProperLearner(alpha, epsilon, delta, random_state=rng).fit(X, y)
                error = structured_noise_error(learner.coef_, learner.intercept_, threshold, noise_mass)
                excess[i, j, r] = error - opt
                dims[i, j, r] = learner.subspace_.shape[1]
    return {"excess": excess, "dim": dims, "opt": opt}
