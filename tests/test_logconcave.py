"""Tests of dpteach.logconcave (Section 6.6): moments, the orthonormal basis, Eq. (25), the learner."""

import math

import numpy as np
import pytest

from dpteach import logconcave as L
from dpteach.marginals import sample_marginal
from dpteach.data import logconcave_halfspace_data, product_logconcave_sample
from dpteach.hermite import hermite_features


def _band(products):
    """6 standard errors of column means (false alarm ≤ 1e-6 over the entries tested)."""
    return 6 * products.std(axis=0, ddof=1) / math.sqrt(products.shape[0])


@pytest.mark.parametrize("marginal", ["uniform", "laplace"])
def test_moments_match_monte_carlo(marginal):
    m = L.marginal_moments(marginal, 6)
    assert m[0] == 1 and m[2] == pytest.approx(1.0)  # isotropic
    assert m[4] == pytest.approx(9 / 5 if marginal == "uniform" else 6.0)
    x = sample_marginal(400_000, 1, marginal, rng=1)[:, 0]
    powers = x[:, None] ** np.arange(7)
    assert np.all(np.abs(powers.mean(axis=0) - m) <= _band(powers) + 1e-12)


@pytest.mark.parametrize("marginal, d, degree", [("uniform", 2, 3), ("laplace", 2, 2), ("laplace", 1, 4)])
def test_basis_is_orthonormal_under_the_marginal(marginal, d, degree):
    N = 200_000
    X = product_logconcave_sample(N, d, marginal, rng=3)
    F = L.logconcave_features(X, marginal, degree)
    D = F.shape[1]
    products = (F[:, :, None] * F[:, None, :]).reshape(N, D * D)
    assert np.all(np.abs(products.mean(axis=0) - np.eye(D).ravel()) <= _band(products))
    # Exactly: A G Aᵀ = I.
    G = L.monomial_gram(marginal, d, degree)
    A = L.orthonormal_map(G)
    assert np.allclose(A @ G @ A.T, np.eye(D), atol=1e-8)


@pytest.mark.parametrize("marginal, largest", [("laplace", 183), ("uniform", 1293)])
def test_moments_are_exact_up_to_the_largest_float_and_refused_by_name_beyond(marginal, largest):
    # Laplace: E X^{2j} = (2j)!/2^j, an integer ((2j − 1)!!·j!), so the float is the exact integer rounded
    # once; (2j)! alone overflows a float from 2j = 172, which the old (2j)!/2.0**j turned into an
    # OverflowError although E X^172 ≈ 2.8e285. Uniform: 3^j/(2j + 1), computed as 3.0**j/(2j + 1) (two
    # roundings, so compared to the exact rational within a few ulp). The first order past the largest
    # float (1.8e308) is 184 (Laplace: 184!/2^92 ≈ 4.5e310) and 1294 (uniform: 3^647 overflows).
    m = L.marginal_moments(marginal, largest)
    for k in (172, largest - 1 if largest % 2 else largest):
        j = k // 2
        if marginal == "laplace":
            assert m[k] == float(math.factorial(k) // 2 ** j)
        else:
            assert m[k] == pytest.approx(3 ** j / (2 * j + 1), rel=1e-14)
        assert math.isfinite(m[k])
    assert np.all(m[1::2] == 0)
    with pytest.raises(ValueError, match=rf"max_order = {largest + 1}\b.*max_order <= {largest}"):
        L.marginal_moments(marginal, largest + 1)
    # Through the Gram matrix the limit is on the degree: moments up to 2p.
    with pytest.raises(ValueError, match=rf"degree <= {largest // 2}"):
        L.monomial_gram(marginal, 1, largest // 2 + 1)


def test_hermite_basis_is_misspecified_for_laplace():
    # Exactly, from the moments: the Hermite Gram matrix under Laplace is not I, and E‖ψ‖² ≠ D.
    # h_2 = (x² − 1)/√2 gives E h_2² = (E x⁴ − 2E x² + 1)/2 = (6 − 2 + 1)/2 = 2.5 under Laplace.
    from numpy.polynomial import hermite_e
    m = L.marginal_moments("laplace", 6)
    coeffs = [hermite_e.herme2poly(np.eye(4)[k]) / math.sqrt(math.factorial(k)) for k in range(4)]
    gram = np.array([[np.dot(np.convolve(a, b), m[:len(a) + len(b) - 1]) for b in coeffs] for a in coeffs])
    assert gram[2, 2] == pytest.approx(2.5)
    assert np.trace(gram) != pytest.approx(4.0)
    # The orthonormalised basis is exact for Laplace.
    G = L.monomial_gram("laplace", 1, 3)
    A = L.orthonormal_map(G)
    assert np.trace(A @ G @ A.T) == pytest.approx(4.0)


def test_basis_invariance_sym_versus_cholesky():
    X = product_logconcave_sample(1000, 2, "uniform", rng=0)
    G = L.monomial_gram("uniform", 2, 3)
    m = L.monomial_features(X, 3)
    sym = m @ L.orthonormal_map(G, "sym").T
    chol = m @ L.orthonormal_map(G, "chol").T
    assert np.allclose(np.linalg.norm(sym, axis=1), np.linalg.norm(chol, axis=1))
    assert not np.allclose(sym, chol)


def test_eq25_radius_between_its_bounds():
    T = L.logconcave_clip_radius("laplace", 2, 3, 0.05, n_draws=50_000, rng=1)
    D = math.comb(5, 3)
    assert 1 - 0.05 <= T <= math.sqrt(D / 0.05)


def test_learner_on_laplace_rcn():
    # OPT = η = 0.1; 10 seeds at n = 6000, α = 0.15; MC test error s.e. ≤ 0.0035.
    ok = 0
    for seed in range(10):
        X, y, _ = logconcave_halfspace_data(6000, 2, "laplace", threshold=0.2, noise_rate=0.1, rng=seed)
        learner = L.PrivateLogConcaveL1Learner(0.15, 1.0, 1e-5, marginal="laplace", beta=0.25,
                                               random_state=seed).fit(X, y)
        Xt, yt, _ = logconcave_halfspace_data(20_000, 2, "laplace", threshold=0.2, noise_rate=0.1, rng=99 + seed)
        ok += 1 - learner.score(Xt, yt) <= 0.1 + 0.15
        assert learner.parameters_["coefficient_radius"] == 2.0
        assert np.linalg.norm(learner.coef_) <= 2.0 + 1e-12
    assert ok >= 9


@pytest.mark.parametrize("call, match", [
    (lambda: L.marginal_moments("gauss", 3), "marginal"),
    (lambda: L.monomial_gram("uniform", 2, 0), "degree"),
    (lambda: L.orthonormal_map(-np.eye(2)), "positive definite"),
    (lambda: L.orthonormal_map(np.eye(2), method="qr"), "method"),
    (lambda: L.logconcave_clip_radius("uniform", 2, 2, 1.5), "c_alpha"),
    (lambda: L.PrivateLogConcaveL1Learner(0.1, 1.0, 1e-5, marginal="cauchy").fit(np.ones((10, 2)), np.ones(10)),
     "marginal"),
    (lambda: L.PrivateLogConcaveL1Learner(0.1, 1.0, 1e-5, degree=9).fit(np.ones((10, 2)), np.ones(10)), "degree"),
])
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_theorem_parameters_are_theorem_6_13s_own_not_theorem_6_12s():
    # Review row 16: _theorem used to replace only degree and n_features, leaving Theorem 6.12's block size,
    # steps and radius 2√D at p = ⌈2/α²⌉ beside a D.1 feature count. Every size must follow D.1's D_p, T, R₀.
    from dpteach import bounds, dp_erm
    from dpteach.improper import C_SMALL, theorem_parameters
    alpha, R0 = 0.5, 3.0
    learner = L.PrivateLogConcaveL1Learner(alpha, 1.0, 1e-5, coefficient_radius=R0)
    params = learner._theorem(2, alpha, 1.0, 1e-5, 0.25)
    D = math.comb(2 + math.ceil(math.exp(2 / alpha)), 2)
    assert params["n_features"] == D
    assert params["clip_radius"] == pytest.approx(math.sqrt(D / (C_SMALL * alpha)))
    sizes = bounds.algorithm_6_7_sizes(D, params["clip_radius"], R0, C_SMALL * alpha, dp_erm.zcdp_rho(1.0, 1e-5))
    assert params["block_size"] == sizes["block_size"] and params["n_iterations"] == sizes["n_iterations"]
    assert params["n_samples"] == params["n_blocks"] * params["block_size"] + params["validation_size"]
    gaussian = theorem_parameters(2, alpha, 1.0, 1e-5, 0.25)
    assert params["block_size"] != gaussian["block_size"] and params["clip_radius"] != gaussian["clip_radius"]
    huge = learner._theorem(2, 0.1, 1.0, 1e-5, 0.25)   # p = e^20: D_p and every size it drives are inf
    assert huge["n_features"] == math.inf and huge["block_size"] == math.inf and huge["n_samples"] == math.inf
