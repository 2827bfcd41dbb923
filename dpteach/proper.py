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

from ._estimator import BinaryClasses, ClassLabels, Estimator, LinearClassifierMixin
from .privacy import PrivacyReceipt, PrivacyStep, privacy_claim
from ._constraints import (Delta, Epsilon, Integral, FiniteInterval, OPEN_UNIT, OrNone, POSITIVE, POSITIVE_INT,
                           fit_context, validate_params, SameLength)
from ._array_constraints import Array, Labels
from ._scales import NORMAL_SCALE, NORMAL_SCALE_OR_NONE
from ._validation import check_representable
# The teaching constants of the learner, each defined beside the formula it sets:
# C₀/c² (degree rule and eigenvalue threshold) and γ (noise floor) in dpteach.subspace,
# K₀ (threshold range) and the candidate cap in dpteach.halfspace_cover.
from .halfspace_cover import halfspace_cover, select_halfspace
from .feature_scaling import feature_dimension_or_refuse
from .hermite import clip_scale as _clip_scale, hermite_features_unchecked as _unchecked_features, hermite_feature_sum
from .composition import parallel_composition
from .mechanisms import gaussian_sigma
from .subspace import (ALPHA, TEACHING_DEGREE_CONSTANT, gradient_second_moment, relevant_subspace,
                       subspace_threshold)

__all__ = [
    "degree_for_accuracy",
    "private_hermite_correlations",
    "project_unit_ball",
    "PrivateProperLearner",
]


@validate_params({"alpha": ALPHA, "constant": POSITIVE})
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

    Examples
    --------
    >>> degree_for_accuracy(alpha=0.3), degree_for_accuracy(alpha=0.1)
    (1, 4)
    """
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

    Examples
    --------
    >>> project_unit_ball(values=np.array([0.6, 0.9])).round(4)
    array([0.5547, 0.8321])
    """
    if values.ndim == 0:  # vectors on the last axis: any ndim ≥ 1
        raise ValueError(f"values must have at least 1 dimension (vectors on the last axis), got shape {values.shape}")
    return _project_unit_ball(values)


def _project_unit_ball(values):
    norms = np.linalg.norm(values, axis=-1, keepdims=True)
    return values / np.maximum(1.0, norms)


# The contract of the release of Algorithm 7.7 line 3, shared by its audit variants below (which add ``size``).
CORRELATION_CONSTRAINTS = {"X": Array(ndim=2), "y": Labels(), "degree": POSITIVE_INT, "clip_radius": NORMAL_SCALE,
                           "epsilon": Epsilon(allow_inf=True), "delta": Delta(allow_zero=False), "rng": "random_state"}
_AUDIT_CONSTRAINTS = {**CORRELATION_CONSTRAINTS, "size": OrNone(POSITIVE_INT)}


def _correlation_sigma(n_correlation, clip_radius, epsilon, delta):
    """σ for the mean of n₁ summands of norm ≤ T: replace-one L2 sensitivity 2T/n₁ (= 4T/n for n₁ = n/2)."""
    if epsilon == math.inf:
        return 0.0
    return gaussian_sigma(2.0 * clip_radius / n_correlation, epsilon, delta)


def _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, rng, *, size=None, noise_factor=1.0,
                        feature_sum=hermite_feature_sum):
    """The release of Algorithm 7.7 line 3 on validated inputs; ``size`` independent draws (None: one).

    The public routine and its audit variants differ only in the keywords: ``size``, ``noise_factor`` (σ times it:
    0.5 is the half-noise bug) and ``feature_sum`` (the old clipping arithmetic is the overflow bug).
    """
    mean = feature_sum(X, degree, weights=y, radius=clip_radius) / X.shape[0]
    sigma = noise_factor * _correlation_sigma(X.shape[0], clip_radius, epsilon, delta)
    shape = mean.shape if size is None else (size,) + mean.shape
    noise = rng.normal(0.0, 1.0, size=shape) * sigma if sigma > 0 else np.zeros(shape)
    return _project_unit_ball(mean + noise), sigma


@privacy_claim(theorem="lem-proper-private-polynomial", epsilon="epsilon", delta="delta")
@validate_params(CORRELATION_CONSTRAINTS, relations=[SameLength("X", "y")])
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
    clip_radius : float, 1e-150 <= T <= 1e150
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

    Examples
    --------
    >>> X = np.array([[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8], [2.0, 1.0]])
    >>> m_tilde, sigma = private_hermite_correlations(X, np.array([1.0, 1.0, -1.0, 1.0]), degree=2, clip_radius=5.0,
    ...                                               epsilon=1.0, delta=1e-5, rng=0)
    >>> m_tilde.shape, round(sigma, 3)
    ((6,), 9.327)
    """
    return _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, rng)


@validate_params(_AUDIT_CONSTRAINTS, relations=[SameLength("X", "y")])
def broken_private_hermite_correlations_half_noise(X, y, degree, clip_radius, epsilon, delta, rng=None,
                                                    size=None):
    """BROKEN on purpose (for the audit test and the chapter's audit demo): σ is half the calibrated value.

    Everything else is :func:`private_hermite_correlations`; the claimed (ε, δ)
    no longer holds. ``size`` draws several releases at once for the audit.
    """
    return _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, rng, size=size, noise_factor=0.5)


def broken_feature_sum_clipped_after_overflow(X, degree, weights, radius):
    """BROKEN on purpose: the old arithmetic Σ w_i·min(1, T/‖ψ(x_i)‖)·ψ(x_i) on the raw features.

    For a record with |x| ≳ 1e154 (degree 2) ψ(x) overflows and the clipping
    computes 0·inf = NaN, so one record turns the whole release into NaN (the
    reliability review's P1, audited ε ≥ 7.6 against a claim of 1).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        F = _unchecked_features(X, degree)
        return (weights * _clip_scale(F, radius)) @ F


@validate_params(_AUDIT_CONSTRAINTS, relations=[SameLength("X", "y")])
def broken_private_hermite_correlations_overflow(X, y, degree, clip_radius, epsilon, delta, rng=None,
                                                 size=None):
    """BROKEN on purpose (P1, for the extreme-record audit): the correlations with the old clipping arithmetic.

    Same noise and projection as :func:`private_hermite_correlations`; the mean
    is :func:`broken_feature_sum_clipped_after_overflow`, NaN when one record is huge.
    """
    with np.errstate(invalid="ignore"):
        return _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, rng, size=size,
                                   feature_sum=broken_feature_sum_clipped_after_overflow)


@validate_params(_AUDIT_CONSTRAINTS, relations=[SameLength("X", "y")])
def private_hermite_correlations_batch(X, y, degree, clip_radius, epsilon, delta, rng=None, size=None):
    """``size`` independent releases of :func:`private_hermite_correlations` (same code path; for audits)."""
    return _noisy_correlations(X, y, degree, clip_radius, epsilon, delta, rng, size=size)


# --- The estimator (steps 1–5 together) -----------------------------------------------------------------


@privacy_claim(theorem="thm-proper-learner", epsilon="epsilon", delta="delta")
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
    clip_radius : float, 1e-150 <= T <= 1e150, optional
        T; default 2√D_p (the paper's choice).
    max_subspace_dim : int ≥ 0
        Cap on dim V (the paper has none; the cover grows like (C/a)^{dim V}).
    cover_resolution : float in (0, 1), optional
        The cover's accuracy a; default α.
    random_state : None, int or numpy.random.Generator
    classes : pair of labels, keyword-only
        (negative, positive), default (-1, 1): the labels of ``y`` and of ``predict``, mapped to the algorithm's
        ∓1. Public: ``classes_`` is this parameter, never read from the data (``np.unique(y)`` would release
        which labels occur). A label of ``y`` outside it is refused, by name.

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

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> y = np.where(X[:, 0] > 0.3, 1.0, -1.0)
    >>> model = PrivateProperLearner(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2, max_subspace_dim=1,
    ...                              cover_resolution=0.5, random_state=0).fit(X, y)
    >>> model.coef_.shape, model.cover_size_
    ((2,), 2)
    """

    _fitted_attribute = "coef_"
    # ε = inf is the documented non-private reference run (as for the other halfspace learners that offer one).
    _parameter_constraints = {
        "alpha": ALPHA, "epsilon": Epsilon(allow_inf=True), "delta": Delta(allow_zero=False),
        "degree": OrNone(POSITIVE_INT), "clip_radius": NORMAL_SCALE_OR_NONE,
        "max_subspace_dim": FiniteInterval(Integral, 0, None, closed="left"), "cover_resolution": OrNone(OPEN_UNIT),
        "random_state": "random_state", "classes": BinaryClasses(),
    }

    def __init__(self, alpha, epsilon, delta, degree=None, clip_radius=None, max_subspace_dim=2,
                 cover_resolution=None, random_state=None, *, classes=(-1, 1)):
        self.alpha = alpha
        self.epsilon = epsilon
        self.delta = delta
        self.degree = degree
        self.clip_radius = clip_radius
        self.max_subspace_dim = max_subspace_dim
        self.cover_resolution = cover_resolution
        self.random_state = random_state
        self.classes = classes

    def _resolved_parameters(self, d):
        """The checked hyperparameters (``_parameter_constraints``) with their defaults filled in for d features."""
        alpha = float(self.alpha)
        degree = degree_for_accuracy(alpha) if self.degree is None else int(self.degree)
        size = feature_dimension_or_refuse(d, degree)  # refused before any work above MAX_FEATURE_DIMENSION
        clip = 2.0 * math.sqrt(size) if self.clip_radius is None else float(self.clip_radius)
        resolution = alpha if self.cover_resolution is None else float(self.cover_resolution)
        return alpha, float(self.epsilon), float(self.delta), degree, clip, int(self.max_subspace_dim), resolution

    @fit_context({"X": Array(ndim=2), "y": ClassLabels()}, relations=[SameLength("X", "y")])
    def fit(self, X, y):
        """Run Algorithm 7.7 on (X, y); returns self. Cost O(n·D_p + n·|𝒱| + |H(q)|).

        Raises
        ------
        TypeError, ValueError
            For bad parameters or data (NaN/inf, labels ∉ classes, fewer than 2 examples).
        """
        y = self._fit_labels(y)  # the labels of the public classes as ±1 (never read from y)
        if X.shape[0] < 2:
            raise ValueError(f"X must have at least 2 examples (one for each half), got n_samples = {X.shape[0]}")
        d = X.shape[1]
        alpha, epsilon, delta, degree, clip, max_dim, resolution = self._resolved_parameters(d)
        rng = np.random.default_rng(self.random_state)  # checked by fit_context: a seed or a Generator
        order = rng.permutation(X.shape[0])  # a data-independent split
        first, second = order[:X.shape[0] // 2], order[X.shape[0] // 2:]
        m_tilde, sigma = private_hermite_correlations(X[first], y[first], degree, clip, epsilon, delta, rng)
        M = gradient_second_moment(m_tilde, degree, d)
        threshold = subspace_threshold(alpha, d, degree, first.size, sigma)
        basis, eigenvalues = relevant_subspace(M, threshold, min(max_dim, d))
        try:
            cover = halfspace_cover(basis, resolution)
        except ValueError as error:  # a cover too large to build: name the learner's parameter, not the helper's
            name = "cover_resolution" if self.cover_resolution is not None else "alpha (the default cover_resolution)"
            raise ValueError(f"{name}: {error}") from error
        index, coef, intercept = select_halfspace(X[second], y[second], cover, epsilon, rng)

        self.n_features_in_ = d
        self.degree_, self.clip_radius_, self.sigma_ = degree, clip, sigma
        self.correlations_ = m_tilde
        self.gradient_moment_ = M
        self.eigenvalues_, self.subspace_, self.threshold_ = eigenvalues, basis, threshold
        self.cover_ = cover
        self.cover_size_ = cover.size
        self.coef_, self.intercept_ = coef, float(intercept)
        self.privacy_ = PrivacyReceipt(
            steps=[PrivacyStep(f"Hermite correlations (Gaussian mechanism, sigma = {sigma:.4g})",
                               f"{first.size} examples of S1", epsilon, delta, "lem-proper-private-polynomial"),
                   PrivacyStep(f"exponential mechanism over the cover of {cover.size} halfspaces",
                               f"{second.size} examples of S2", epsilon, 0.0, "thm-exponential-mechanism-privacy")],
            composition=parallel_composition, theorem="thm-proper-learner",
            why="the split is data-independent: the correlations read only S1, the selection only S2")
        return self

