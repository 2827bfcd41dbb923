"""Chapter 6, Section 6.6: Algorithm 6.10 under a known product log-concave marginal (the paper's Appendix D).

The Hermite basis is replaced by ψ_p(x) = G_p^{−1/2} m_p(x), where m_p are
the monomials x^κ (|κ| ≤ p, in ``multi_indices`` order) and G_p = E_μ[m_p m_pᵀ]
is their exact Gram matrix under the known marginal μ; the clipping radius
comes from Eq. (25) on synthetic draws from μ, and the coefficient ball has
radius R₀ (a universal constant the paper leaves unspecified; default 2).
Everything here is public: the marginal is known, nothing reads private data.
"""

from __future__ import annotations

import math

import numpy as np

from ._constraints import (Integral, FiniteInterval, OPEN_UNIT, Options, OrNone, POSITIVE, POSITIVE_INT,
                           validate_params)
from ._array_constraints import Array
from ._validation import check_work
from .feature_scaling import (check_feature_matrix, clip_scaled_rows, feature_dimension_or_refuse,
                              scaled_products, scaled_univariate)
from .marginals import MARGINALS, sample_marginal
from .hermite import clip_scale_or_overflow, eq25_radius, feature_plan, multi_indices
from .hermite import feature_dimension
from .improper import C_SMALL, PrivateHermiteL1Learner, theorem_parameters
from .privacy import privacy_claim

__all__ = [
    "marginal_moments",
    "monomial_features",
    "monomial_gram",
    "orthonormal_map",
    "logconcave_features",
    "logconcave_clip_radius",
    "PrivateLogConcaveL1Learner",
]


@validate_params({"marginal": Options(MARGINALS), "max_order": FiniteInterval(Integral, 0, None, closed="left")})
def marginal_moments(marginal, max_order):
    """E[X^k], k = 0..max_order, for an isotropic 1-D marginal: U[−√3, √3] or Laplace(1/√2).

    Uniform: E X^{2j} = 3^j/(2j + 1); Laplace with variance 1: E X^{2j} = (2j)!/2^j;
    odd moments vanish.

    Parameters
    ----------
    marginal : {"uniform", "laplace"}
    max_order : int ≥ 0

    Returns
    -------
    numpy.ndarray, shape (max_order + 1,). Cost O(max_order).

    Raises
    ------
    ValueError, TypeError
        For an unknown marginal or max_order < 0.

    Examples
    --------
    >>> marginal_moments(marginal="laplace", max_order=4)
    array([1., 0., 1., 0., 6.])
    """
    return _moments(marginal, max_order, "max_order")


def _even_moment(marginal, j):
    """E X^{2j} as a float, or None beyond the largest float (uniform from 2j = 1294, Laplace from 2j = 184)."""
    try:
        if marginal == "uniform":
            return 3.0 ** j / (2 * j + 1)
        # (2j)!/2^j is an integer ((2j − 1)!!·j!); the shift is exact, and rounds as (2j)!/2.0**j did.
        return float(math.factorial(2 * j) >> j)
    except OverflowError:
        return None


def _moments(marginal, max_order, name, orders_per_unit=1):
    """E[X^k], k = 0..max_order, or a ValueError naming ``name`` once a moment overflows.

    ``name`` is the caller's parameter, with max_order = ``orders_per_unit`` × its value (2 for a
    degree p, whose Gram matrix needs moments up to 2p); the message gives its largest valid value.

    The moments grow factorially (Laplace) or geometrically (uniform), so the loop meets the first
    moment beyond the largest float within a few hundred steps: a huge ``max_order`` is refused
    there, before anything of its size is allocated.
    """
    moments = []
    for k in range(max_order + 1):
        moment = 0.0 if k % 2 else _even_moment(marginal, k // 2)
        if moment is None:
            raise ValueError(f"{name} = {max_order // orders_per_unit} needs E[X^k] up to k = {max_order} for the "
                             f"{marginal} marginal, but E[X^{k}] exceeds the largest float (about 1.8e308); "
                             f"valid range: {name} <= {(k - 1) // orders_per_unit}")
        moments.append(moment)
    return np.array(moments)


def _monomials(X, degree):
    """x^κ for validated X, overflow allowed (callers clip or refuse); the (n, D, d) power table is size-checked."""
    D = feature_dimension_or_refuse(X.shape[1], degree)
    check_feature_matrix(X.shape[0], D * X.shape[1], "X", "the monomial power table (n x D x d entries)")
    kappas = multi_indices(X.shape[1], degree)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.prod(X[:, None, :] ** kappas[None, :, :], axis=2)


def _finite_or_refuse(F, X, degree):
    """F, or a ValueError naming X when a record's unclipped monomial features overflow double precision."""
    finite = np.isfinite(F).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise ValueError(f"X row {row} (max |x| = {np.max(np.abs(X[row])):.3g}) has degree-{degree} monomial "
                         "features beyond the largest double; unclipped features cannot represent it (the "
                         "learner's clipped map is finite for every finite record)")
    return F


def _clipped_logconcave_features(X, A, degree, radius):
    """ψ̄_{p,T}(X) = min(1, T/‖A m_p(x)‖)·A m_p(x), finite with rows of norm ≤ T for every finite record.

    A = ``orthonormal_map(monomial_gram(marginal, d, degree))``, computed once by the caller (the same for every block).

    Ordinary rows: exactly ``clip_features(logconcave_features(X), T)``. Rows
    whose monomials or squared norm overflow are clipped in scaled arithmetic
    (mantissa·2^exponent monomials, :mod:`dpteach.feature_scaling`), with A
    applied to the rescaled vector (A is linear, so the scale commutes).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        F = _monomials(X, degree) @ A.T
    scale, overflow = clip_scale_or_overflow(F, radius)
    if overflow.any():
        F[overflow] = 0.0
    clipped = F * scale[:, None]
    if overflow.any():
        rows = X[overflow]
        factors = [scaled_univariate(rows[:, i], degree, "monomial") for i in range(X.shape[1])]
        mantissa, exponent = scaled_products(factors, feature_plan(X.shape[1], degree))
        clipped[overflow] = clip_scaled_rows(mantissa.T, exponent.T, radius, transform=A)
    return clipped


@validate_params({"X": Array(ndim=2), "degree": POSITIVE_INT})
def monomial_features(X, degree):
    """m_p(x) = (x^κ)_{|κ| ≤ p} in ``multi_indices`` order.

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    degree : int ≥ 1

    Returns
    -------
    numpy.ndarray, shape (n, D). Cost O(n·D·d).

    Raises
    ------
    ValueError, TypeError
        For NaN/inf, a non-2-D or empty X, degree < 1; for D or the (n, D, d)
        power table above the limits of :mod:`dpteach.feature_scaling`
        (refused before any work); for a record whose monomials overflow
        double precision.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(12, 2))
    >>> monomial_features(X, degree=2).shape
    (12, 6)
    """
    return _finite_or_refuse(_monomials(X, degree), X, degree)


@validate_params({"d": POSITIVE_INT, "degree": POSITIVE_INT, "marginal": Options(MARGINALS)})
def monomial_gram(marginal, d, degree):
    """Exact G_p[κ, κ'] = Π_j E[X_j^{κ_j + κ'_j}] under the product marginal (Section 6.6).

    Parameters
    ----------
    marginal : {"uniform", "laplace"}
    d, degree : int ≥ 1

    Returns
    -------
    numpy.ndarray, shape (D, D), symmetric positive definite. Cost O(D²·d).

    Raises
    ------
    ValueError, TypeError
        For an unknown marginal or d, degree < 1.

    Examples
    --------
    >>> np.diag(monomial_gram(marginal="laplace", d=2, degree=2))
    array([1., 1., 1., 6., 1., 6.])
    """
    D = feature_dimension_or_refuse(d, degree)
    # κ + κ' and the gathered moments are (D, D, d) tables: D² rows of d entries.
    check_feature_matrix(D * D, d, "degree", "the Gram moment table (D² x d entries)")
    moments = _moments(marginal, 2 * degree, "degree", orders_per_unit=2)  # E X^k up to k = 2p
    kappas = multi_indices(d, degree)
    return np.prod(moments[kappas[:, None, :] + kappas[None, :, :]], axis=2)


@validate_params({"gram": Array(ndim=2), "method": Options(("sym", "chol"))})
def orthonormal_map(gram, method="sym"):
    """A with A G Aᵀ = I: G^{−1/2} (``"sym"``, the paper's choice) or L^{−1} with G = LLᵀ (``"chol"``).

    Every such A has AᵀA = G^{−1}, so ‖A m_p(x)‖ and hence the clipping are
    the same for every choice (basis invariance).

    Parameters
    ----------
    gram : array_like, shape (D, D), symmetric positive definite
    method : {"sym", "chol"}

    Returns
    -------
    numpy.ndarray, shape (D, D). Cost O(D³).

    Raises
    ------
    ValueError, TypeError
        For a non-square, non-finite or not positive definite matrix, an unknown method.

    Examples
    --------
    >>> A = orthonormal_map(gram=np.array([[2.0, 0.5], [0.5, 1.0]]))
    >>> np.round(A, 3)
    array([[ 0.739, -0.159],
           [-0.159,  1.057]])
    """
    G = gram
    if G.shape[0] != G.shape[1] or not np.allclose(G, G.T):
        raise ValueError(f"gram must be a symmetric square matrix, got shape {G.shape}")
    values, vectors = np.linalg.eigh(G)
    if values.min() <= 0:
        raise ValueError(f"gram must be positive definite, smallest eigenvalue {values.min()!r}")
    if method == "sym":
        return (vectors / np.sqrt(values)) @ vectors.T
    return np.linalg.inv(np.linalg.cholesky(G))


# marginal and method go on to monomial_gram and orthonormal_map, which skip their checks here: declared too.
@validate_params({"X": Array(ndim=2), "degree": POSITIVE_INT, "marginal": Options(MARGINALS),
                  "method": Options(("sym", "chol"))})
def logconcave_features(X, marginal, degree, method="sym"):
    """ψ_p(x) = A m_p(x), orthonormal under the product marginal (Section 6.6, the paper's Appendix D).

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    marginal : {"uniform", "laplace"}
    degree : int ≥ 1 (keep p ≤ 6: the monomial Gram matrix is ill-conditioned beyond)
    method : {"sym", "chol"}

    Returns
    -------
    numpy.ndarray, shape (n, D). Cost O(n·D² + D³).

    Raises
    ------
    ValueError, TypeError
        As :func:`monomial_features` and :func:`orthonormal_map`.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(12, 2))
    >>> logconcave_features(X, marginal="laplace", degree=2).shape
    (12, 6)
    """
    A = orthonormal_map(monomial_gram(marginal, X.shape[1], degree), method)
    with np.errstate(over="ignore", invalid="ignore"):
        return _finite_or_refuse(_monomials(X, degree) @ A.T, X, degree)


# marginal and rng go on to sample_marginal, which skips its checks here: declared too.
@validate_params({"c_alpha": OPEN_UNIT, "n_draws": FiniteInterval(Integral, 100, None, closed="left"), "d": POSITIVE_INT,
                  "degree": POSITIVE_INT, "marginal": Options(MARGINALS), "rng": "random_state"})
def logconcave_clip_radius(marginal, d, degree, c_alpha, n_draws=100_000, rng=0):
    """T of Eq. (25): the smallest t with E_μ[(1 − t/‖ψ_p(X)‖)_+] ≤ cα, on synthetic draws from μ.

    Costs no privacy (μ is known). T ≤ √(D_p/(cα)) by Markov.

    Parameters
    ----------
    marginal : {"uniform", "laplace"}
    d, degree : int ≥ 1
    c_alpha : float in (0, 1)
    n_draws : int ≥ 100
    rng : seed or Generator (default 0: reproducible)

    Returns
    -------
    float. Cost O(n_draws·D²).

    Raises
    ------
    ValueError, TypeError
        For any argument out of range.

    Examples
    --------
    >>> round(logconcave_clip_radius(marginal="laplace", d=2, degree=2, c_alpha=0.5, n_draws=100, rng=0), 3)
    0.861
    """
    D = feature_dimension_or_refuse(d, degree)
    # The draws' monomial power table is (n_draws, D, d); ψ = m·Aᵀ costs n_draws·D² steps.
    check_feature_matrix(n_draws, D * d, "n_draws", "the monomial power table of the draws (n_draws x D x d)")
    check_work(("n_draws", n_draws), ("D", D), ("D", D))
    X = sample_marginal(n_draws, d, marginal, rng)
    F = logconcave_features(X, marginal, degree)
    return eq25_radius(np.linalg.norm(F, axis=1), c_alpha)


@privacy_claim(theorem="thm-logconcave", epsilon="epsilon", delta="delta")
class PrivateLogConcaveL1Learner(PrivateHermiteL1Learner):
    """Algorithm 6.10 with the log-concave changes of Theorem 6.13 (the paper's Theorem D.1).

    Same steps and privacy as :class:`~dpteach.improper.PrivateHermiteL1Learner`
    ((ε, δ)-DP, Proposition D.2: the basis, T, the ball and the split are
    public); the features are ψ_p = G_p^{−1/2} m_p for the known product
    marginal, T comes from Eq. (25) (Monte Carlo on synthetic draws), and the
    coefficients lie in the ball of radius R₀ = ``coefficient_radius``. As
    there, every finite record is accepted: a record whose monomials overflow
    double precision is clipped to norm T in scaled arithmetic.

    Parameters
    ----------
    alpha, epsilon, delta, beta, degree, clip_radius, n_blocks, n_thresholds, n_iterations, random_state, classes
        As for :class:`~dpteach.improper.PrivateHermiteL1Learner` (degree default as there, capped at 6).
    marginal : {"uniform", "laplace"}
    coefficient_radius : float > 0
        R₀ (the paper's universal constant; our default 2).

    ``fit`` is the Gaussian learner's; it checks the constraints below (the Gaussian learner's, the
    marginal and R₀, and degree ≤ 6) and raises as there.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> y = np.where(X[:, 0] > 0.3, 1.0, -1.0)
    >>> model = PrivateLogConcaveL1Learner(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2, n_iterations=5,
    ...                                    random_state=0).fit(X, y)
    >>> model.coef_.shape, round(model.clip_radius_, 3), model.privacy_.delta
    ((6,), 2.15, 1e-05)
    """

    # degree is capped at 6: the monomial Gram matrix is ill-conditioned beyond.
    _parameter_constraints = {**PrivateHermiteL1Learner._parameter_constraints,
                              "degree": OrNone(FiniteInterval(Integral, 1, 6, closed="both")),
                              "marginal": Options(MARGINALS), "coefficient_radius": POSITIVE}

    def __init__(self, alpha, epsilon, delta, marginal="laplace", beta=0.1, degree=None, clip_radius=None,
                 coefficient_radius=2.0, n_blocks=None, n_thresholds=None, n_iterations=None, random_state=None, *,
                 classes=(-1, 1)):
        super().__init__(alpha, epsilon, delta, beta=beta, degree=degree, clip_radius=clip_radius,
                         n_blocks=n_blocks, n_thresholds=n_thresholds, n_iterations=n_iterations,
                         random_state=random_state, classes=classes)
        self.marginal = marginal
        self.coefficient_radius = coefficient_radius

    _privacy_theorem = "thm-logconcave"  # the box label of the class's privacy_claim

    def _clipped_feature_map(self, X, radius):
        # A depends on the marginal, d and p only: computed once per fit, not once per block (fit's loop calls this)
        key = (self.marginal, X.shape[1], self.degree_)
        if getattr(self, "_orthonormal_map", (None, None))[0] != key:
            self._orthonormal_map = (key, orthonormal_map(monomial_gram(*key)))
        return _clipped_logconcave_features(X, self._orthonormal_map[1], self.degree_, radius)

    def _default_clip_radius(self, d, degree, alpha):
        return logconcave_clip_radius(self.marginal, d, degree, C_SMALL * alpha, n_draws=20_000, rng=0)

    def _coefficient_radius(self):
        return float(self.coefficient_radius)

    def _theorem(self, d, alpha, epsilon, delta, beta):
        """Theorem 6.13's (the paper's Theorem D.1) parameters, every size recomputed from its own D_p, T and R₀.

        Only k, M and m (which do not depend on the basis) are shared with Theorem 6.12.
        p = exp(C/α) with C = 2 (already e^20 ≈ 5·10⁸ at α = 0.1, so D_p is usually inf);
        T = √(D_p/(cα)), the Markov radius that bounds Eq. (25)'s; radius R₀ = ``coefficient_radius``;
        n₀ and K from :func:`dpteach.bounds.algorithm_6_7_sizes` with these T and R₀.
        """
        from . import dp_erm  # local: keeps this module's import block free of merge conflicts
        from .bounds.improper import algorithm_6_7_sizes
        params = theorem_parameters(d, alpha, epsilon, delta, beta)
        degree = float(math.exp(2.0 / alpha))
        D = math.inf if degree > 1e6 else float(feature_dimension(d, math.ceil(degree)))
        T = math.sqrt(D / (C_SMALL * alpha))
        sizes = algorithm_6_7_sizes(D, T, float(self.coefficient_radius), C_SMALL * alpha,
                                    dp_erm.zcdp_rho(epsilon, delta))
        params.update(degree=degree, n_features=D, clip_radius=T, block_size=sizes["block_size"],
                      n_iterations=sizes["n_iterations"],
                      n_samples=params["n_blocks"] * sizes["block_size"] + params["validation_size"])
        return params
