"""Tests of dpteach.proper (chapter 7, the paper's Algorithm 2 / Theorem 3.1).

Statistical tolerances are derived in comments; fixed seeds make every test
deterministic. Each closed form is also checked to *reject* a plausible wrong
variant with the same tolerance.
"""

import math

import numpy as np
import pytest
from scipy.spatial import cKDTree

from dpteach import audit, data, halfspace_cover, proper, subspace
from dpteach.hermite import hermite_feature_sum, hermite_features, multi_indices
from dpteach.hermite_coefficients import halfspace_hermite_coefficients, threshold_hermite_coefficients
from dpteach.mechanisms import gaussian_sigma


def _monte_carlo_gradient_moment(a, degree, d, n, rng):
    """Per-entry mean and standard error of ∇q∇qᵀ by central finite differences of ψ_p (independent of G)."""
    X = rng.standard_normal((n, d))
    h = 1e-4
    grads = np.stack([(hermite_features(X + h * e, degree) @ a - hermite_features(X - h * e, degree) @ a) / (2 * h)
                      for e in np.eye(d)], axis=1)
    products = grads[:, :, None] * grads[:, None, :]
    return products.mean(axis=0), products.std(axis=0) / math.sqrt(n)


def _wrong_weights_moment(a, degree, d):
    """A plausible bug: G[i, λ] = (λ_i + 1)·a_{λ+e_i} (no square root)."""
    kappas = multi_indices(d, degree)
    lookup = {tuple(k): j for j, k in enumerate(kappas.tolist())}
    G = np.zeros((d, len(kappas)))
    for j, kappa in enumerate(kappas.tolist()):
        for i, k in enumerate(kappa):
            if k:
                lower = list(kappa)
                lower[i] -= 1
                G[i, lookup[tuple(lower)]] = k * a[j]
    return G @ G.T


def test_gradient_moment_matches_monte_carlo_and_rejects_missing_sqrt():
    d, degree = 3, 3
    rng = np.random.default_rng(7)
    a = rng.standard_normal(math.comb(d + degree, degree))
    a /= np.linalg.norm(a)
    exact = subspace.gradient_second_moment(a, degree, d)
    mc, se = _monte_carlo_gradient_moment(a, degree, d, 100_000, rng)
    # 6 standard errors per entry (false alarm < 1e-8 each); the finite-difference bias is O(h²) ≈ 1e-8.
    band = 6 * se + 1e-6
    assert np.all(np.abs(exact - mc) <= band)
    wrong = _wrong_weights_moment(a, degree, d)
    assert np.any(np.abs(wrong - mc) > band)
    assert np.allclose(exact, exact.T) and np.linalg.eigvalsh(exact).min() > -1e-12


@pytest.mark.parametrize("d,degree", [(1, 1), (2, 4), (5, 4), (4, 2)])
def test_trace_identity(d, degree):
    rng = np.random.default_rng(d * 10 + degree)
    a = rng.standard_normal(math.comb(d + degree, degree))
    M = subspace.gradient_second_moment(a, degree, d)
    weights = multi_indices(d, degree).sum(axis=1)
    assert np.trace(M) == pytest.approx(np.sum(weights * a ** 2), rel=1e-12)
    assert np.trace(M) <= degree * np.sum(a ** 2) + 1e-12


def test_batch_of_coefficients_gives_batch_of_matrices():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((4, math.comb(6, 3)))
    batch = subspace.gradient_second_moment(A, 3, 3)
    assert batch.shape == (4, 3, 3)
    for a, M in zip(A, batch):
        assert np.allclose(M, subspace.gradient_second_moment(a, 3, 3))


@pytest.mark.parametrize("threshold", [0.0, 0.4, -1.1])
def test_ridge_polynomial_gives_rank_one_moment(threshold):
    d, degree = 5, 4
    u = np.array([0.6, 0.8, 0.0, 0.0, 0.0]) @ np.linalg.qr(np.random.default_rng(1).standard_normal((5, 5)))[0]
    a = halfspace_hermite_coefficients(u, threshold, degree)
    M = subspace.gradient_second_moment(a, degree, d)
    eigenvalues, vectors = np.linalg.eigh(M)
    c = threshold_hermite_coefficients(threshold, degree)
    # M = (Σ_k k c_k²) u uᵀ for q(x) = Σ_k c_k h_k(⟨u, x⟩).
    assert eigenvalues[-1] == pytest.approx(np.sum(np.arange(degree + 1) * c ** 2), rel=1e-10)
    assert np.all(np.abs(eigenvalues[:-1]) < 1e-12)
    assert abs(abs(vectors[:, -1] @ u) - 1) < 1e-10
    basis, spectrum = subspace.relevant_subspace(M, 1e-6, 3)
    assert basis.shape == (d, 1) and abs(abs(basis[:, 0] @ u) - 1) < 1e-10
    assert np.all(np.diff(spectrum) <= 1e-15)


def test_noise_floor_is_the_average_moment_of_pure_noise():
    d, degree, sigma, n_draws = 4, 3, 0.3, 4000
    rng = np.random.default_rng(11)
    Z = sigma * rng.standard_normal((n_draws, math.comb(d + degree, degree)))
    moments = subspace.gradient_second_moment(Z, degree, d)
    mean, se = moments.mean(axis=0), moments.std(axis=0) / math.sqrt(n_draws)
    floor = subspace.noise_floor(d, degree, 10 ** 12, sigma)  # n₁ → ∞: the σ² part alone
    assert floor == pytest.approx(sigma ** 2 * math.comb(d + degree, degree - 1), rel=1e-9)
    band = 6 * se  # 6 standard errors per entry
    assert np.all(np.abs(mean - floor * np.eye(d)) <= band)
    # A plausible slip, C(d + p, p) = D_p instead of C(d + p, p − 1), is rejected by the same band.
    wrong = sigma ** 2 * math.comb(d + degree, degree)
    assert np.any(np.abs(mean - wrong * np.eye(d)) > band)
    # The sampling part: + (1/n₁)·C(d + p, p − 1).
    assert subspace.noise_floor(d, degree, 100, 0.0) == pytest.approx(math.comb(d + degree, degree - 1) / 100)


def test_subspace_threshold_is_the_larger_of_paper_and_noise_floor():
    # The paper's term c²α²/C₀ = α²/(C₀/c²) = 0.25 at α = 0.1; the floor at n₁ = 100 dominates.
    assert proper.subspace_threshold(0.1, 5, 4, 10 ** 9, 0.0) == pytest.approx(0.25)
    assert proper.subspace_threshold(0.1, 5, 4, 100, 0.0) == pytest.approx(2 * 126 / 100 * 84 / 126)
    assert proper.degree_for_accuracy(0.1) == 4 and proper.degree_for_accuracy(0.2) == 1


@pytest.mark.checks("lem-proper-covers")
@pytest.mark.parametrize("k,resolution", [(1, 0.3), (2, 0.3), (2, 0.1), (2, 0.05), (3, 0.3), (3, 0.1), (3, 0.07)])
def test_net_covering_radius_at_most_resolution(k, resolution):
    net = halfspace_cover.sphere_net(k, resolution)
    assert np.allclose(np.linalg.norm(net, axis=1), 1.0)
    radius = halfspace_cover.covering_radius(net)
    assert radius <= resolution
    # The exact radius is not beaten by Monte Carlo: random unit vectors are never farther from the net.
    rng = np.random.default_rng(k)
    U = rng.standard_normal((20_000, k))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    far = cKDTree(net).query(U)[0].max() if k > 1 else 0.0
    assert far <= radius + 1e-9


def test_covering_radius_exact_on_known_nets():
    square = np.array([[1.0, 0], [0, 1], [-1, 0], [0, -1]])
    assert halfspace_cover.covering_radius(square) == pytest.approx(2 * math.sin(math.pi / 8))
    octahedron = np.vstack([np.eye(3), -np.eye(3)])
    # The farthest points are the centres of the faces, (1,1,1)/√3, at chord √(2 − 2/√3).
    assert halfspace_cover.covering_radius(octahedron) == pytest.approx(math.sqrt(2 - 2 / math.sqrt(3)))


def test_grid_net_for_four_dimensions_covers():
    net = halfspace_cover.sphere_net(4, 0.5)
    rng = np.random.default_rng(4)
    U = rng.standard_normal((5000, 4))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    assert cKDTree(net).query(U)[0].max() <= 0.5


def test_cover_size_and_members():
    basis = np.linalg.qr(np.random.default_rng(0).standard_normal((6, 2)))[0]
    cover = halfspace_cover.halfspace_cover(basis, 0.1)
    R = 0.1 * math.ceil(2 * math.sqrt(math.log(10)) / 0.1)
    assert cover.max_threshold == pytest.approx(R)
    assert cover.size == 32 * (2 * round(R / 0.1) + 1) + 2
    assert np.allclose(cover.directions @ basis @ basis.T, cover.directions)  # normals lie in V
    coef, intercept = cover.halfspace(cover.size - 2)
    assert coef[0] == 1 and intercept == pytest.approx(R)
    empty = halfspace_cover.halfspace_cover(np.zeros((3, 0)), 0.2)
    assert empty.size == 2


def test_error_counts_equal_brute_force():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((700, 3))
    y = np.where(rng.random(700) < 0.5, 1.0, -1.0)
    basis = np.linalg.qr(rng.standard_normal((3, 2)))[0]
    cover = halfspace_cover.halfspace_cover(basis, 0.2, max_threshold=1.0)
    counts = halfspace_cover.cover_error_counts(X, y, cover)
    brute = [np.sum(np.where(X @ c + t >= 0, 1.0, -1.0) != y)
             for c, t in (cover.halfspace(j) for j in range(cover.size))]
    assert np.array_equal(counts, brute)


# --- privacy of the correlation step ------------------------------------------------------------------

D1, P1 = 1, 2          # ψ₂(x) = (1, x, (x² − 1)/√2): D = 3 features
T1 = 2 * math.sqrt(3)  # the paper's radius 2√D_p
N1 = 100


def _neighbours():
    """D and D' differing in one example at the clipping bound: same x (clipped), opposite label."""
    rng = np.random.default_rng(21)
    X = rng.standard_normal((N1, D1))
    y = np.where(np.arange(N1) % 2 == 0, 1.0, -1.0)
    X[0] = 3.0  # ‖ψ₂(3)‖ = √(1 + 9 + 32) > T, so ψ̄ has norm exactly T
    y_flipped = y.copy()
    y_flipped[0] = -y[0]
    return (X, y), (X, y_flipped)


def test_sensitivity_by_adversarial_neighbours():
    (X, y), (X2, y2) = _neighbours()
    mean = hermite_feature_sum(X, P1, weights=y, radius=T1) / N1
    assert np.linalg.norm(mean) < 1  # the projection is inactive, so the release is mean + noise
    m_a, _ = proper.private_hermite_correlations(X, y, P1, T1, math.inf, 1e-5)
    m_b, _ = proper.private_hermite_correlations(X2, y2, P1, T1, math.inf, 1e-5)
    assert np.linalg.norm(m_a - m_b) == pytest.approx(2 * T1 / N1, rel=1e-12)  # the bound 4T/n is attained
    rng = np.random.default_rng(2)
    worst = 0.0
    for _ in range(300):  # random replacements, including far-out points, never exceed it
        Xr, yr = X.copy(), y.copy()
        i = rng.integers(N1)
        Xr[i] = rng.normal(0, 4, size=D1)
        yr[i] = rng.choice([-1.0, 1.0])
        m_r, _ = proper.private_hermite_correlations(Xr, yr, P1, T1, math.inf, 1e-5)
        worst = max(worst, np.linalg.norm(m_r - m_a))
    assert worst <= 2 * T1 / N1 + 1e-12


def test_sigma_is_the_gaussian_mechanism_at_sensitivity_4T_over_n():
    (X, y), _ = _neighbours()
    _, sigma = proper.private_hermite_correlations(X, y, P1, T1, 0.7, 1e-5, rng=0)
    assert sigma == gaussian_sigma(2 * T1 / N1, 0.7, 1e-5)  # n₁ = n/2 ⇒ 2T/n₁ = 4T/n


def test_batch_release_is_the_public_code_path():
    (X, y), _ = _neighbours()
    one, _ = proper.private_hermite_correlations(X, y, P1, T1, 1.0, 1e-5, rng=123)
    batch, _ = proper.private_hermite_correlations_batch(X, y, P1, T1, 1.0, 1e-5, rng=123, size=1)
    assert np.allclose(one, batch[0])


@pytest.mark.parametrize("variant,should_fail", [("correct", False), ("half noise", True)])
def test_audit_catches_half_noise(variant, should_fail):
    # ε = 2: the half-noise release has shift Δ/(σ/2) ≈ 1.0 σ-units; at the tail event {⟨m̃, u⟩ > 3σ}
    # its likelihood ratio is ≈ 17 (ln ≈ 2.8), certified above 2 with 40 000 trials.
    epsilon, delta = 2.0, 1e-5
    dataset, neighbour = _neighbours()
    direction = hermite_feature_sum(dataset[0][:1], P1, radius=T1)
    direction /= np.linalg.norm(direction)
    release = (proper.private_hermite_correlations_batch if variant == "correct"
               else proper.broken_private_hermite_correlations_half_noise)

    def mechanism(data_pair, n_trials, rng):
        X, y = data_pair
        outputs, _ = release(X, y, P1, T1, epsilon, delta, rng=rng, size=n_trials)
        return outputs @ direction

    sigma = gaussian_sigma(2 * T1 / N1, epsilon, delta)
    centre = float(hermite_feature_sum(*[dataset[0]], P1, weights=dataset[1], radius=T1) @ direction) / N1
    events = audit.threshold_events(centre + sigma * np.array([1.0, 2.0, 2.5, 3.0]))
    result = audit.audit(mechanism, dataset, neighbour, events, n_trials=40_000, delta=delta, rng=5)
    assert (result.epsilon_lower > epsilon) == should_fail


# --- the learner ----------------------------------------------------------------------------------------

W_STAR = np.array([0.6, 0.8, 0.0, 0.0, 0.0])
T_STAR, ETA = 0.4, 0.1


def test_properness_predict_is_sign_of_linear_function():
    X, y, _ = data.gaussian_halfspace_data(4000, 5, W_STAR, T_STAR, ETA, rng=0)
    learner = proper.PrivateProperLearner(0.1, 1.0, 1e-5, random_state=1).fit(X, y)
    X_test = np.random.default_rng(9).standard_normal((5000, 5))
    linear = X_test @ learner.coef_ + learner.intercept_
    assert np.array_equal(learner.predict(X_test), np.where(linear >= 0, 1.0, -1.0))
    assert np.array_equal(learner.predict(X_test)[linear != 0], np.sign(linear[linear != 0]))
    assert np.allclose(learner.decision_function(X_test), linear)
    assert learner.coef_.shape == (5,) and isinstance(learner.intercept_, float)
    assert learner.cover_size_ == learner.cover_.size and learner.subspace_.shape[0] == 5
    assert learner.privacy_.epsilon == 1.0 and learner.privacy_.delta == 1e-5
    assert 0 <= learner.score(X, y) <= 1


def test_same_seed_same_result():
    X, y, _ = data.gaussian_halfspace_data(3000, 4, None, 0.2, ETA, rng=3)
    a = proper.PrivateProperLearner(0.1, 0.5, 1e-5, random_state=4).fit(X, y)
    b = proper.PrivateProperLearner(0.1, 0.5, 1e-5, random_state=4).fit(X, y)
    assert np.array_equal(a.coef_, b.coef_) and a.intercept_ == b.intercept_


def _angle(u, v):
    return math.acos(min(1.0, abs(u @ v) / (np.linalg.norm(u) * np.linalg.norm(v))))


def test_non_private_angle_goes_to_zero():
    angles = []
    for n in [3000, 30_000, 300_000]:
        X, y, _ = data.gaussian_halfspace_data(n, 5, W_STAR, T_STAR, ETA, rng=n)
        learner = proper.PrivateProperLearner(0.1, math.inf, 1e-5, random_state=0).fit(X, y)
        assert learner.sigma_ == 0.0
        angles.append(_angle(learner.subspace_[:, 0], W_STAR))
    # Sampling error of m̂ ~ √(D_p/n₁): the top eigenvector's angle shrinks like 1/√n.
    assert angles[2] < angles[1] < angles[0] and angles[2] < 0.03


def test_utility_at_the_chapter_preset():
    # The chapter's preset: d = 5, α = 0.1 (p = 4, a = 0.1), ε = 1, δ = 1e-5, n = 20 000, RCN η = 0.1.
    alpha, n_seeds = 0.1, 60
    errors = []
    for seed in range(n_seeds):
        X, y, _ = data.gaussian_halfspace_data(20_000, 5, W_STAR, T_STAR, ETA, rng=1000 + seed)
        learner = proper.PrivateProperLearner(alpha, 1.0, 1e-5, random_state=seed).fit(X, y)
        errors.append(data.rcn_halfspace_error(learner.coef_, -learner.intercept_, W_STAR, T_STAR, ETA))
    assert np.mean(np.array(errors) <= ETA + alpha) >= 0.9


# --- bad input -----------------------------------------------------------------------------------------

GOOD_X = np.random.default_rng(0).standard_normal((50, 3))
GOOD_Y = np.where(GOOD_X[:, 0] > 0, 1.0, -1.0)


@pytest.mark.parametrize("kwargs,match", [
    ({"alpha": 0.0}, "alpha"), ({"alpha": 0.5}, "alpha"), ({"alpha": "0.1"}, "alpha"),
    ({"epsilon": 0.0}, "epsilon"), ({"epsilon": float("nan")}, "epsilon"), ({"epsilon": "1"}, "epsilon"),
    ({"epsilon": None}, "epsilon"), ({"epsilon": True}, "epsilon"), ({"epsilon": -math.inf}, "epsilon"),
    ({"delta": 0.0}, "delta"), ({"delta": 1.0}, "delta"),
    ({"degree": 0}, "degree"), ({"degree": 2.5}, "degree"),
    ({"clip_radius": -1.0}, "clip_radius"), ({"max_subspace_dim": -1}, "max_subspace_dim"),
    ({"cover_resolution": 1.5}, "cover_resolution"), ({"random_state": "seed"}, r"\w"),
])
def test_learner_bad_parameters(kwargs, match):
    params = dict(alpha=0.1, epsilon=1.0, delta=1e-5, random_state=0)
    params.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=match):
        proper.PrivateProperLearner(**params).fit(GOOD_X, GOOD_Y)


@pytest.mark.parametrize("X,y,match", [
    (GOOD_X, GOOD_Y * 0, "y"), (GOOD_X[:, 0], GOOD_Y, "X"), (GOOD_X, GOOD_Y[:-1], "same number"),
    (np.where(GOOD_X > 1, np.nan, GOOD_X), GOOD_Y, "X"), (GOOD_X[:1], GOOD_Y[:1], "at least 2"),
    (np.zeros((0, 3)), np.zeros(0), "X"),
])
def test_learner_bad_data(X, y, match):
    with pytest.raises((ValueError, TypeError), match=match):
        proper.PrivateProperLearner(0.1, 1.0, 1e-5).fit(X, y)


def test_predict_before_fit_and_wrong_width():
    from dpteach._estimator import NotFittedError
    with pytest.raises(NotFittedError):
        proper.PrivateProperLearner(0.1, 1.0, 1e-5).predict(GOOD_X)
    learner = proper.PrivateProperLearner(0.1, 1.0, 1e-5, random_state=0).fit(GOOD_X, GOOD_Y)
    with pytest.raises(ValueError, match="features"):
        learner.predict(GOOD_X[:, :2])


@pytest.mark.parametrize("call,match", [
    (lambda: proper.private_hermite_correlations(GOOD_X, GOOD_Y, 2, 0.0, 1.0, 1e-5), "clip_radius"),
    (lambda: proper.private_hermite_correlations(GOOD_X, GOOD_Y, 2, 1.0, 1.0, 0.0), "delta"),
    (lambda: proper.private_hermite_correlations(GOOD_X, GOOD_Y, 2, 1.0, 1.0, 1e-5, rng="x"), r"\w"),
    (lambda: subspace.gradient_second_moment(np.ones(5), 2, 3), "coefficients"),
    (lambda: subspace.gradient_second_moment(np.ones(10), 0, 3), "degree"),
    (lambda: subspace.relevant_subspace(np.ones((2, 3)), 0.1, 1), "square"),
    (lambda: subspace.relevant_subspace(np.array([[1.0, 2.0], [0.0, 1.0]]), 0.1, 1), "symmetric"),
    (lambda: subspace.relevant_subspace(np.eye(2), -0.1, 1), "threshold"),
    (lambda: halfspace_cover.halfspace_cover(np.ones((3, 2)), 0.1), "orthonormal"),
    (lambda: halfspace_cover.halfspace_cover(np.eye(3)[:, :1], 0.0), "resolution"),
    (lambda: halfspace_cover.halfspace_cover(np.eye(3)[:, :1], 0.1, max_threshold=-1.0), "max_threshold"),
    (lambda: halfspace_cover.sphere_net(-1, 0.1), "k"),
    (lambda: halfspace_cover.sphere_net(8, 0.05), "dim V"),
    (lambda: halfspace_cover.covering_radius(np.ones((4, 2))), "unit"),
    (lambda: subspace.noise_floor(3, 2, 0, 0.1), "n_correlation"),
    (lambda: proper.subspace_threshold(0.7, 3, 2, 10, 0.1), "alpha"),
    (lambda: halfspace_cover.select_halfspace(GOOD_X, GOOD_Y, "cover", 1.0), "cover"),
    (lambda: halfspace_cover.select_halfspace(GOOD_X, GOOD_Y, halfspace_cover.halfspace_cover(np.eye(3)[:, :1], 0.2), 0.0),
     "epsilon"),
])
def test_functions_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
