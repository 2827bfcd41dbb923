"""Tests of dpteach.hermite and dpteach.hermite_coefficients: recurrence, orthonormality, features, clipping, bad input.

Monte Carlo checks use a band of 6 standard errors, where the standard error
is estimated from the same draws (the sample standard deviation of the
averaged quantity over √N); a Gaussian 6σ event has probability 2e-9, so with
at most a few hundred entries per test the false-alarm rate stays below 1e-6.
Each such test is paired with a plausible wrong basis that the same band rejects.
"""

import math

import numpy as np
import pytest
from numpy.polynomial import hermite as phys
from numpy.polynomial import hermite_e as prob
from scipy import integrate, stats

from dpteach import hermite as H
from dpteach import hermite_coefficients as HC


def _reference_h(x, degree):
    """h_m = He_m/√(m!) from numpy's probabilists' Hermite series (independent of the recurrence)."""
    return np.stack([prob.hermeval(x, np.eye(degree + 1)[m]) / math.sqrt(math.factorial(m))
                     for m in range(degree + 1)], axis=-1)


def _mc_band(products):
    """6 standard errors of the column means of ``products`` (N, k)."""
    return 6 * products.std(axis=0, ddof=1) / math.sqrt(products.shape[0])


# --- multi-indices --------------------------------------------------------------

@pytest.mark.parametrize("d, degree", [(1, 4), (2, 3), (3, 5), (5, 6)])
def test_multi_indices_graded_complete_and_unique(d, degree):
    kappas = H.multi_indices(d, degree)
    assert kappas.shape == (math.comb(d + degree, degree), d)
    assert kappas.dtype == np.int64 and kappas.min() >= 0
    total = kappas.sum(axis=1)
    assert np.all(np.diff(total) >= 0) and total.max() == degree  # graded
    assert len({tuple(k) for k in kappas.tolist()}) == len(kappas)
    assert H.feature_dimension(d, degree) == len(kappas)


def test_multi_indices_order_for_two_variables():
    assert H.multi_indices(2, 2).tolist() == [[0, 0], [1, 0], [0, 1], [2, 0], [1, 1], [0, 2]]


# --- the univariate recurrence -------------------------------------------------------

def test_recurrence_matches_numpy_hermite_e():
    x = np.linspace(-6, 6, 241)
    got = H.hermite_1d(x, 12)
    want = _reference_h(x, 12)
    # Relative accuracy: both are exact up to rounding; scale by the column's magnitude.
    assert np.allclose(got, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())


def test_recurrence_is_not_the_physicists_basis():
    # The physicists' H_m/√(2^m m!) is orthonormal for weight e^{−x²}, not N(0, 1): it differs.
    x = np.linspace(-3, 3, 61)
    physicists = np.stack([phys.hermval(x, np.eye(5)[m]) / math.sqrt(2.0 ** m * math.factorial(m))
                           for m in range(5)], axis=-1)
    assert np.abs(H.hermite_1d(x, 4) - physicists).max() > 0.5


def test_hermite_1d_shapes():
    assert H.hermite_1d(0.5, 3).shape == (4,)
    assert H.hermite_1d(np.zeros((2, 5)), 3).shape == (2, 5, 4)
    assert np.allclose(H.hermite_1d(0.0, 4), [1, 0, -1 / math.sqrt(2), 0, 3 / math.sqrt(24)])


def test_derivative_identity():
    # h_m′ = √m h_{m−1}. Central difference with step s: error ≤ s²/6·max|h'''| + ε_mach/s,
    # both below 1e-6 for |x| ≤ 3, m ≤ 8 (|h'''| ≤ 1e4 there, s = 1e-5).
    x = np.linspace(-3, 3, 121)
    s = 1e-5
    numeric = (H.hermite_1d(x + s, 8) - H.hermite_1d(x - s, 8)) / (2 * s)
    identity = np.sqrt(np.arange(1, 9)) * H.hermite_1d(x, 8)[:, :-1]
    assert np.abs(numeric[:, 1:] - identity).max() < 1e-5
    assert np.abs(numeric[:, 0]).max() < 1e-8


def test_univariate_orthonormality_by_quadrature():
    # Gauss–Hermite_e quadrature with 40 nodes integrates degree ≤ 79 exactly.
    nodes, weights = prob.hermegauss(40)
    weights = weights / math.sqrt(2 * math.pi)
    h = H.hermite_1d(nodes, 10)
    assert np.allclose(h.T @ (weights[:, None] * h), np.eye(11), atol=1e-10)


# --- the multivariate feature map -------------------------------------------------------

def test_features_equal_products_of_univariate_factors():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((50, 4))
    F = H.hermite_features(X, 4)
    uni = _reference_h(X, 4)  # (50, 4, 5)
    kappas = H.multi_indices(4, 4)
    want = np.prod(uni[:, np.arange(4)[None, :], kappas], axis=2)
    assert np.allclose(F, want, rtol=1e-12, atol=1e-12)
    assert F.shape == (50, 70)


@pytest.mark.parametrize("d, degree", [(2, 3), (3, 2)])
def test_monte_carlo_gram_is_identity(d, degree):
    # E[ψψᵀ] = I (Lemma B.8). Each Gram entry is a mean of N products; 6-s.e. band.
    N = 200_000
    X = np.random.default_rng(11).standard_normal((N, d))
    F = H.hermite_features(X, degree)
    D = F.shape[1]
    products = (F[:, :, None] * F[:, None, :]).reshape(N, D * D)
    gram = products.mean(axis=0)
    band = _mc_band(products)
    assert np.all(np.abs(gram - np.eye(D).ravel()) <= band)
    # The same test rejects the basis without the 1/√(k!) normalisation:
    # E[He_2²] = 2, so the (2,0) diagonal entry is off by 1 ≫ band.
    factorial = np.prod([[math.factorial(k) for k in row] for row in H.multi_indices(d, degree)], axis=1)
    unnormalised = F * np.sqrt(factorial)
    gram_bad = (unnormalised.T @ unnormalised / N).ravel()
    assert np.any(np.abs(gram_bad - np.eye(D).ravel()) > band)


def test_expected_squared_norm_is_D():
    N = 200_000
    X = np.random.default_rng(5).standard_normal((N, 3))
    sq = np.sum(H.hermite_features(X, 4) ** 2, axis=1)
    D = math.comb(7, 4)
    assert abs(sq.mean() - D) <= _mc_band(sq[:, None])[0]


def test_lemma_c2_second_moment_formula():
    # E[K_p²] = Σ_k 4^k (d/2)_k / k! · C(d+p, p−k)² (proof of Lemma C.2): 116 at (d, p) = (2, 2).
    d, p = 2, 2
    exact = sum(4 ** k * math.prod(d / 2 + j for j in range(k)) / math.factorial(k)
                * math.comb(d + p, p - k) ** 2 for k in range(p + 1))
    assert exact == pytest.approx(116)
    N = 400_000
    X = np.random.default_rng(8).standard_normal((N, d))
    K2 = np.sum(H.hermite_features(X, p) ** 2, axis=1) ** 2
    assert abs(K2.mean() - exact) <= _mc_band(K2[:, None])[0]


def test_chunked_sum_equals_full_product():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((1003, 3))
    y = rng.choice([-1.0, 1.0], size=1003)
    F = H.hermite_features(X, 3)
    assert np.allclose(H.hermite_feature_sum(X, 3, weights=y, chunk_size=100), y @ F)
    assert np.allclose(H.hermite_feature_sum(X, 3), F.sum(axis=0))
    Fc, _ = H.clip_features(F, 3.0)
    assert np.allclose(H.hermite_feature_sum(X, 3, weights=y, radius=3.0, chunk_size=17), y @ Fc)
    chunks = list(H.iter_hermite_features(X, 3, chunk_size=500))
    assert [s for s, _ in chunks] == [0, 500, 1000]
    assert np.allclose(np.vstack([c for _, c in chunks]), F)


# --- exact coefficients --------------------------------------------------------------

@pytest.mark.parametrize("theta", [-1.3, 0.0, 0.7])
def test_threshold_coefficients_match_quadrature(theta):
    c = HC.threshold_hermite_coefficients(theta, 6)

    def integrand(z, k):
        return np.sign(z - theta) * _reference_h(z, 6)[k] * stats.norm.pdf(z)

    for k in range(7):
        value = (integrate.quad(integrand, -12, theta, args=(k,))[0]
                 + integrate.quad(integrand, theta, 12, args=(k,))[0])
        assert c[k] == pytest.approx(value, abs=1e-8)
    assert np.sum(c ** 2) <= 1.0


def test_halfspace_coefficients_are_the_projection():
    # [Π_p h]_κ = E[sign(⟨w,x⟩ − t) h_κ(x)]; Monte Carlo with a 6-s.e. band per entry.
    N = 200_000
    rng = np.random.default_rng(9)
    X = rng.standard_normal((N, 3))
    w = np.array([0.6, -0.8, 0.0])
    y = np.where(X @ w - 0.4 >= 0, 1.0, -1.0)
    F = H.hermite_features(X, 3)
    c = HC.halfspace_hermite_coefficients(w, 0.4, 3)
    products = y[:, None] * F
    assert np.all(np.abs(products.mean(axis=0) - c) <= _mc_band(products) + 1e-12)
    assert np.linalg.norm(c) <= 1.0


# --- clipping -----------------------------------------------------------------------

def test_clipped_norms_at_most_radius_and_inside_rows_unchanged():
    X = np.random.default_rng(4).standard_normal((5000, 3)) * 1.5
    F = H.hermite_features(X, 4)
    T = 2 * math.sqrt(F.shape[1])
    Fc, scale = H.clip_features(F, T)
    norms = np.linalg.norm(F, axis=1)
    assert np.all(np.linalg.norm(Fc, axis=1) <= T * (1 + 1e-12))
    inside = norms <= T
    assert inside.any() and (~inside).any()
    assert np.array_equal(Fc[inside], F[inside]) and np.all(scale[inside] == 1)
    assert np.allclose(scale[~inside], T / norms[~inside])


def test_clip_radius_rules():
    D = math.comb(5, 3)
    assert H.clip_radius(2, 3, 0.05, "2sqrtD") == pytest.approx(2 * math.sqrt(D))
    assert H.clip_radius(2, 3, 0.05, "markov") == pytest.approx(math.sqrt(D / 0.05))
    T = H.clip_radius(2, 3, 0.05, "eq25", n_draws=100_000, rng=1)
    # Eq. (25) holds at T on fresh draws (6-s.e. band), T is below Markov's, and ≥ 1 − cα.
    X = np.random.default_rng(2).standard_normal((100_000, 2))
    r = np.linalg.norm(H.hermite_features(X, 3), axis=1)
    bias = np.maximum(0.0, 1 - T / r)
    assert bias.mean() <= 0.05 + _mc_band(bias[:, None])[0]
    assert 1 - 0.05 <= T <= math.sqrt(D / 0.05)
    assert H.clip_radius(2, 3, 0.05, "eq25", n_draws=1000, rng=1) == \
        H.clip_radius(2, 3, 0.05, "eq25", n_draws=1000, rng=1)


def test_eq25_solver_on_a_hand_example():
    # Norms {1, 2, 4}: f(t) = mean((1 − t/r)_+). At cα = 0.25: on t ∈ [2, 4], f = (1 − t/4)/3 = 0.25 → t = 1,
    # outside; on [1, 2], f = (2 − t(1/4 + 1/2))/3 = 0.25 → t = 1.25/0.75 = 5/3.
    assert H.eq25_radius(np.array([1.0, 2.0, 4.0]), 0.25) == pytest.approx(5 / 3)


# --- bad input -----------------------------------------------------------------------

@pytest.mark.parametrize("call, match", [
    (lambda: H.multi_indices(0, 2), "d"),
    (lambda: H.multi_indices(2, 0), "degree"),
    (lambda: H.multi_indices(2, 1.5), "degree"),
    (lambda: H.hermite_1d([0.0, np.nan], 3), "x"),
    (lambda: H.hermite_1d([0.0], 0), "degree"),
    (lambda: H.hermite_features(np.ones(3), 2), "X"),
    (lambda: H.hermite_features([[np.inf, 0.0]], 2), "X"),
    (lambda: H.hermite_features(np.ones((3, 2)), 0), "degree"),
    (lambda: H.hermite_features(np.ones((0, 2)), 2), "X"),
    (lambda: H.clip_features(np.ones((3, 2)), 0.0), "radius"),
    (lambda: H.clip_features(np.ones((3, 2)), np.nan), "radius"),
    (lambda: H.clip_radius(2, 3, 1.0), "c_alpha"),
    (lambda: H.clip_radius(2, 3, 0.1, rule="median"), "rule"),
    (lambda: H.clip_radius(2, 3, 0.1, rule="eq25", rng="seed"), None),
    (lambda: H.hermite_feature_sum(np.ones((3, 2)), 2, weights=np.ones(4)), "weights"),
    (lambda: H.hermite_feature_sum(np.ones((3, 2)), 2, chunk_size=0), "chunk_size"),
    (lambda: HC.threshold_hermite_coefficients(np.nan, 3), "theta"),
    (lambda: HC.halfspace_hermite_coefficients(np.zeros(2), 0.0, 3), "normal"),
])
def test_bad_input_raises_named_errors(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


@pytest.mark.parametrize("d, expected", [(1, [6, 33, 204, 1395]), (2, [13, 116, 964, 7985])])
def test_second_moment_of_the_feature_norm_matches_the_mehler_formula(d, expected):
    # Lemma 6.4's proof: E[K_p(X)²] = Σ_k 4^k (d/2)_k / k! · C(d+p, p−k)², with K_p = ‖ψ_p‖². K_p² is a polynomial of
    # degree 4p ≤ 16, so a 20-node Gauss–Hermite_e rule per coordinate integrates it exactly (up to rounding).
    # The expected values are the review's independent quadrature; a wrong exponent (4^k → 2^k) or a missing
    # square misses them by far more than the 1e-8 relative tolerance.
    from numpy.polynomial.hermite_e import hermegauss
    from scipy.special import poch
    nodes, weights = hermegauss(20)
    weights = weights / weights.sum()
    grid = np.stack(np.meshgrid(*[nodes] * d, indexing="ij"), -1).reshape(-1, d)
    w = np.prod(np.stack(np.meshgrid(*[weights] * d, indexing="ij"), -1).reshape(-1, d), axis=1)
    for p, value in zip(range(1, 5), expected):
        K = np.sum(H.hermite_features(grid, p) ** 2, axis=1)
        formula = sum(4 ** k * poch(d / 2, k) / math.factorial(k) * math.comb(d + p, p - k) ** 2 for k in range(p + 1))
        assert formula == pytest.approx(value, rel=1e-12)
        assert w @ K ** 2 == pytest.approx(value, rel=1e-8)
