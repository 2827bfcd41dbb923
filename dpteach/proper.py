"""Chapter 7: a proper private learner for agnostic halfspaces (the paper's Algorithm 2, Theorem 3.1).

The learner :class:`PrivateProperLearner` (Algorithm 7.7, Theorem 7.8) runs five steps;
this module holds the first and the estimator, the two modules below it the rest:

1. private Hermite correlations m̃ = Proj_B((1/n₁)Σ y_i ψ̄_{p,T}(x_i) + Z) on the
   first half S₁ of the data (Lemmas 7.1–7.2, the paper's Lemmas 3.3–3.4): here;
2. the gradient second-moment matrix M = E[∇q ∇qᵀ] of q = ⟨m̃, ψ_p⟩ in closed
   form, M = G Gᵀ (Proposition 7.3): :mod:`dpteach.subspace`;
3. the relevant subspace V spanned by the eigenvectors of M above a public
   threshold (the paper's c²α²/C₀, raised to the noise floor, our
   reconstruction): :mod:`dpteach.subspace`;
4. the finite cover H(q) of halfspaces with normals in V (Lemmas 7.5–7.6, the
   paper's Facts B.11/B.12): :mod:`dpteach.halfspace_cover`;
5. the exponential mechanism on the second half S₂ with weights
   exp(−(ε/2)·#errors): :mod:`dpteach.halfspace_cover`.

Each step has one home (import it from there, e.g.
``from dpteach.subspace import relevant_subspace``), as do the teaching
constants, each defined beside the formula it sets (listed below).

Halfspaces here are h(x) = sign(⟨v, x⟩ + t) with sign(0) = +1, the paper's
convention in Lemma 3.2; ``coef_ = v`` and ``intercept_ = t``. (The data
generators write sign(⟨w, x⟩ − t), so t there is −intercept_ here.)

Privacy: steps 2–4 read only m̃ (post-processing); step 1 is (ε, δ)-DP on S₁
and step 5 is ε-DP on S₂; S₁ ∩ S₂ = ∅, so the learner is (ε, δ)-DP
(parallel composition). ``epsilon = math.inf`` runs the same code without
noise and with arg-min selection: a non-private reference, never private.

dpteach is a teaching library (floating-point noise): do not use it on real data.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from ._estimator import Estimator, LinearClassifierMixin
from .privacy import PrivacyReceipt, PrivacyStep
from ._constraints import Array, validate_params
from ._validation import (as_rng, check_delta, check_finite_array, check_int, check_labels, check_positive,
                          check_probability, check_representable, check_same_length)
# The teaching constants of the learner, each defined beside the formula it sets:
# C₀/c² (degree rule and eigenvalue threshold) and γ (noise floor) in dpteach.subspace,
# K₀ (threshold range) and the candidate cap in dpteach.halfspace_cover.
from .halfspace_cover import (_check_data, _check_epsilon_or_inf, _default_max_threshold, _error_counts,
                              _halfspace_cover, _select)
from .feature_scaling import feature_dimension_or_refuse
from .hermite import clip_scale as _clip_scale, hermite_features_unchecked as _unchecked_features, hermite_feature_sum
from .mechanisms import gaussian_sigma
from .subspace import (NOISE_FLOOR_FACTOR, TEACHING_DEGREE_CONSTANT,  # noqa: F401 (γ re-exported)
                       _check_alpha, _gradient_second_moment, _relevant_subspace, subspace_threshold)

__all__ = [
    "degree_for_accuracy",
    "private_hermite_correlations",
    "project_unit_ball",
    "PrivateProperLearner",
]


def degree_for_accuracy(alpha, constant=TEACHING_DEGREE_CONSTANT):
    """The degree p = ⌈C₀/(cα)²⌉ of Algorithm 7.7 (the paper's Theorem 3.1; its Algorithm 2 prints ⌈C₀/(cα)⌉).

    Parameters
    ----------
    alpha : float in (0, 1/2)
        Target excess error α.
    constant : float > 0
        C₀/c²; the paper's constants are unspecified, the default is our teaching choice
        (p = 4 at α = 0.1).

    Returns
    -------
    int ≥ 1. Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For α ∉ (0, 1/2) or a non-positive constant.
    """
    alpha = _check_alpha(alpha)
    constant = check_positive(constant, "constant")
    try:
        degree = constant / alpha ** 2 - 1e-12
    except ZeroDivisionError:  # α² underflows to 0 at α ≈ 1e-300
        degree = math.inf
    check_representable(degree, "the degree C/α²", f"alpha >= {math.sqrt(constant / sys.float_info.max):.2g}",
                        alpha=alpha)
    return max(1, math.ceil(degree))



# --- 1. Private Hermite correlations (Lemmas 7.1–7.2) -------------------------------------------


@validate_params({"values": Array()})
def project_unit_ball(values):
    """Proj_B(u) = u / max(1, ‖u‖₂) along the last axis (Algorithm 7.7 line 3; post-processing).

    Parameters
    ----------
    values : array_like, shape (..., D), finite

    Returns
    -------
    ndarray of the same shape, every row of norm ≤ 1. Cost O(size).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf or an empty array.
    """
    if values.ndim == 0:
        raise ValueError(f"values must have at least 1 dimension (vectors on the last axis), got shape {values.shape}")
    return _project_unit_ball(values)


def _project_unit_ball(values):
    norms = np.linalg.norm(values, axis=-1, keepdims=True)
    return values / np.maximum(1.0, norms)


def _correlation_inputs(X, y, degree, clip_radius, epsilon, delta):
    X = check_finite_array(X, "X", ndim=2)
    y = check_labels(y, "y")
    check_same_length(X, y)
    degree = check_int(degree, "degree", minimum=1)
    clip_radius = check_positive(clip_radius, "clip_radius")
    epsilon = _check_epsilon_or_inf(epsilon)
    delta = check_delta(delta, allow_zero=False)
    return X, y, degree, clip_radius, epsilon, delta


def _correlation_sigma(n_correlation, clip_radius, epsilon, delta):
    """σ for the mean of n₁ summands of norm ≤ T: replace-one L2 sensitivity 2T/n₁ (= 4T/n for n₁ = n/2)."""
    if epsilon == math.inf:
        return 0.0
    return gaussian_sigma(2.0 * clip_radius / n_correlation, epsilon, delta)


def _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, rng, size, noise_factor,
                        feature_sum=hermite_feature_sum):
    """The release of Algorithm 7.7 line 3 on validated inputs; ``size`` independent draws (None: one)."""
    mean = feature_sum(X, degree, weights=y, radius=clip_radius) / X.shape[0]
    sigma = noise_factor * _correlation_sigma(X.shape[0], clip_radius, epsilon, delta)
    shape = mean.shape if size is None else (size,) + mean.shape
    noise = rng.normal(0.0, 1.0, size=shape) * sigma if sigma > 0 else np.zeros(shape)
    return _project_unit_ball(mean + noise), sigma


def private_hermite_correlations(X, y, degree, clip_radius, epsilon, delta, rng=None):
    """m̃ = Proj_B((1/n₁)Σ_{S₁} y_i ψ̄_{p,T}(x_i) + Z), Z ~ N(0, σ²I) (Algorithm 7.7 line 3; the paper's Algorithm 2, step 4).

    ``X, y`` are the n₁ = n/2 examples of S₁; the paper writes the same mean as
    (2/n)Σ_{S₁}. Each clipped feature ψ̄_{p,T}(x) has norm ≤ T, so replacing one
    example moves the mean by at most 2T/n₁ = 4T/n in L2 (Lemma 7.2's proof):
    the Gaussian mechanism with σ = ``gaussian_sigma(2T/n₁, ε, δ)`` (the
    analytic calibration, valid for every ε and never above the paper's
    classic σ) makes m̃ (ε, δ)-DP. Projecting onto the unit ball is
    post-processing and never moves m̃ away from m_T, because ‖m_T‖ ≤ 1.
    Every finite record is accepted: one whose features overflow double
    precision (|x| ≳ 1e154 at degree 2) is still clipped to norm T, exactly,
    in scaled arithmetic (:func:`dpteach.hermite.hermite_feature_sum`), so the
    release is finite whatever the data.

    Parameters
    ----------
    X : array_like, shape (n₁, d), finite
        The points of S₁.
    y : array_like, shape (n₁,), labels in {−1, +1}
    degree : int ≥ 1
        The Hermite degree p; D_p = C(d + p, p) features.
    clip_radius : float > 0
        The public clipping radius T (the paper uses 2√D_p).
    epsilon : float, 0 < ε < inf, or math.inf
        math.inf gives the exact projected mean (σ = 0): non-private, for reference curves.
    delta : float, 0 < δ < 1
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (m_tilde, sigma) : ndarray of shape (D_p,) with ‖m̃‖ ≤ 1, and the float σ.
        Cost O(n₁·D_p) time (features summed in chunks), O(chunk·D_p) memory.

    Raises
    ------
    TypeError, ValueError
        For NaN/inf or wrongly shaped X, labels ∉ {−1, +1}, different lengths,
        degree < 1, T ≤ 0, ε ≤ 0 or nan, δ ∉ (0, 1), or a bad rng.
    """
    X, y, degree, clip_radius, epsilon, delta = _correlation_inputs(X, y, degree, clip_radius, epsilon, delta)
    return _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, as_rng(rng), None, 1.0)


def _private_hermite_correlations_half_noise_broken(X, y, degree, clip_radius, epsilon, delta, rng=None,
                                                    size=None):
    """BROKEN on purpose (for the audit test and the chapter's audit demo): σ is half the calibrated value.

    Everything else is :func:`private_hermite_correlations`; the claimed (ε, δ)
    no longer holds. ``size`` draws several releases at once for the audit.
    """
    X, y, degree, clip_radius, epsilon, delta = _correlation_inputs(X, y, degree, clip_radius, epsilon, delta)
    return _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, as_rng(rng), size, 0.5)


def _feature_sum_clipped_after_overflow_broken(X, degree, weights, radius):
    """BROKEN on purpose: the old arithmetic Σ w_i·min(1, T/‖ψ(x_i)‖)·ψ(x_i) on the raw features.

    For a record with |x| ≳ 1e154 (degree 2) ψ(x) overflows and the clipping
    computes 0·inf = NaN, so one record turns the whole release into NaN (the
    reliability review's P1, audited ε ≥ 7.6 against a claim of 1).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        F = _unchecked_features(X, degree)
        return (weights * _clip_scale(F, radius)) @ F


def _private_hermite_correlations_overflow_broken(X, y, degree, clip_radius, epsilon, delta, rng=None,
                                                  size=None):
    """BROKEN on purpose (P1, for the extreme-record audit): the correlations with the old clipping arithmetic.

    Same noise and projection as :func:`private_hermite_correlations`; the mean
    is :func:`_feature_sum_clipped_after_overflow_broken`, NaN when one record is huge.
    """
    X, y, degree, clip_radius, epsilon, delta = _correlation_inputs(X, y, degree, clip_radius, epsilon, delta)
    with np.errstate(invalid="ignore"):
        return _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, as_rng(rng), size, 1.0,
                                   _feature_sum_clipped_after_overflow_broken)


def _private_hermite_correlations_batch(X, y, degree, clip_radius, epsilon, delta, rng=None, size=None):
    """``size`` independent releases of :func:`private_hermite_correlations` (same code path; for audits)."""
    X, y, degree, clip_radius, epsilon, delta = _correlation_inputs(X, y, degree, clip_radius, epsilon, delta)
    return _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, as_rng(rng), size, 1.0)


# --- The estimator (steps 1–5 together) -----------------------------------------------------------------


class PrivateProperLearner(LinearClassifierMixin, Estimator):
    """Algorithm 7.7 (the paper's Algorithm 2): a proper (ε, δ)-DP learner of halfspaces under N(0, I_d).

    ``fit`` splits the data at random (independently of its values) into S₁ and
    S₂, releases the Hermite correlations of S₁, builds q, M, V and the cover
    H(q) from them, and selects a halfspace on S₂ with the exponential
    mechanism. The output is a halfspace: ``predict(X) == sign(X @ coef_ + intercept_)``
    (sign(0) = +1). (ε, δ)-DP by parallel composition (Theorem 7.8).

    Parameters
    ----------
    alpha : float in (0, 1/2)
        Target accuracy α; sets the degree, the eigenvalue threshold and the default resolution.
    epsilon : float, 0 < ε < inf, or math.inf (non-private reference run)
    delta : float in (0, 1)
    degree : int ≥ 1, optional
        Hermite degree p; default ⌈C₀/(cα)²⌉ with C₀/c² = ``TEACHING_DEGREE_CONSTANT``.
    clip_radius : float > 0, optional
        T; default 2√D_p (the paper's choice).
    max_subspace_dim : int ≥ 0
        Cap on dim V (the paper has none; the cover grows like (C/a)^{dim V}).
    cover_resolution : float in (0, 1), optional
        The cover's accuracy a; default α.
    random_state : None, int or numpy.random.Generator

    Attributes
    ----------
    coef_ : ndarray (d,), intercept_ : float
        The selected halfspace.
    subspace_ : ndarray (d, k)
        Orthonormal basis of V.
    eigenvalues_ : ndarray (d,)
        Spectrum of M, decreasing.
    threshold_ : float
        The eigenvalue threshold θ_V used.
    cover_size_ : int
        |H(q)|.
    correlations_ : ndarray (D_p,)
        The released m̃ (private).
    degree_, clip_radius_, sigma_ : the parameters actually used.
    privacy_ : PrivacyReceipt
        The guarantee and its two steps (the correlations on S₁, the selection on S₂).
    n_features_in_ : int
    """

    _fitted_attribute = "coef_"

    def __init__(self, alpha, epsilon, delta, degree=None, clip_radius=None, max_subspace_dim=2,
                 cover_resolution=None, random_state=None):
        self.alpha = alpha
        self.epsilon = epsilon
        self.delta = delta
        self.degree = degree
        self.clip_radius = clip_radius
        self.max_subspace_dim = max_subspace_dim
        self.cover_resolution = cover_resolution
        self.random_state = random_state

    def _validated_parameters(self, d):
        alpha = _check_alpha(self.alpha)
        epsilon = _check_epsilon_or_inf(self.epsilon)
        delta = check_delta(self.delta, allow_zero=False)
        degree = degree_for_accuracy(alpha) if self.degree is None else check_int(self.degree, "degree", minimum=1)
        size = feature_dimension_or_refuse(d, degree)  # refused before any work above MAX_FEATURE_DIMENSION
        clip = 2.0 * math.sqrt(size) if self.clip_radius is None else check_positive(self.clip_radius,
                                                                                       "clip_radius")
        max_dim = check_int(self.max_subspace_dim, "max_subspace_dim", minimum=0)
        resolution = alpha if self.cover_resolution is None else check_probability(self.cover_resolution,
                                                                                   "cover_resolution")
        return alpha, epsilon, delta, degree, clip, max_dim, resolution

    def fit(self, X, y):
        """Run Algorithm 7.7 on (X, y); returns self. Cost O(n·D_p + n·|𝒱| + |H(q)|).

        Raises
        ------
        TypeError, ValueError
            For bad parameters or data (NaN/inf, labels ∉ {−1, +1}, fewer than 2 examples).
        """
        X, y = _check_data(X, y)
        if X.shape[0] < 2:
            raise ValueError(f"X must have at least 2 examples (one for each half), got {X.shape[0]}")
        d = X.shape[1]
        alpha, epsilon, delta, degree, clip, max_dim, resolution = self._validated_parameters(d)
        rng = as_rng(self.random_state, "random_state")
        order = rng.permutation(X.shape[0])  # a data-independent split
        first, second = order[:X.shape[0] // 2], order[X.shape[0] // 2:]
        m_tilde, sigma = _noisy_correlations(X[first], y[first], degree, clip, epsilon, delta, rng, None, 1.0)
        M = _gradient_second_moment(m_tilde, degree, d)
        threshold = subspace_threshold(alpha, d, degree, first.size, sigma)
        basis, eigenvalues = _relevant_subspace(M, threshold, min(max_dim, d))
        cover = _halfspace_cover(basis, resolution, _default_max_threshold(resolution))
        index = _select(_error_counts(X[second], y[second], cover), epsilon, rng)
        coef, intercept = cover.halfspace(index)

        self.n_features_in_ = d
        self.degree_, self.clip_radius_, self.sigma_ = degree, clip, sigma
        self.correlations_ = m_tilde
        self.gradient_moment_ = M
        self.eigenvalues_, self.subspace_, self.threshold_ = eigenvalues, basis, threshold
        self.cover_ = cover
        self.cover_size_ = cover.size
        self.coef_, self.intercept_ = coef, float(intercept)
        self.privacy_ = PrivacyReceipt(
            epsilon, delta, accountant="parallel composition", theorem="Theorem 7.8",
            why="the split is data-independent: the correlations read only S1, the selection only S2",
            steps=(PrivacyStep("Hermite correlations (Gaussian mechanism)", f"{first.size} examples of S1",
                               epsilon, delta),
                   PrivacyStep(f"exponential mechanism over the cover of {cover.size} halfspaces",
                               f"{second.size} examples of S2", epsilon, 0.0)))
        return self

