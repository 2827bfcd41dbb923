"""Tests of dpteach.dp_erm: the zCDP accounting, convergence, an audited step, bad input."""

import math

import numpy as np
import pytest
from scipy import optimize

from dpteach import audit
from dpteach import dp_erm as E


def _problem(n=400, D=3, T=2.0, seed=0):
    """Rows of norm ≤ T and targets y = ⟨v*, F⟩ + Laplace noise, with ‖v*‖ = 0.5 (inside the unit ball)."""
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((n, D))
    F *= np.minimum(1.0, T / np.linalg.norm(F, axis=1))[:, None]
    v_star = np.full(D, 0.5 / math.sqrt(D))
    return F, F @ v_star + rng.laplace(0, 0.3, n)


def _l1_optimum(F, y):
    """Unconstrained L1 regression by linear programming: min Σ u_i s.t. −u ≤ Fv − y ≤ u."""
    n, D = F.shape
    c = np.concatenate([np.zeros(D), np.ones(n)])
    A = np.block([[F, -np.eye(n)], [-F, -np.eye(n)]])
    b = np.concatenate([y, -y])
    res = optimize.linprog(c, A_ub=A, b_ub=b, bounds=[(None, None)] * D + [(0, None)] * n)
    return res.x[:D], res.fun / n


# --- accounting -----------------------------------------------------------------------

@pytest.mark.parametrize("epsilon, delta", [(0.1, 1e-5), (1.0, 1e-6), (8.0, 1e-3)])
def test_rho_converts_back_to_epsilon(epsilon, delta):
    rho = E.zcdp_rho(epsilon, delta)
    # Independent formula: ρ-zCDP ⇒ (ρ + 2√(ρ log 1/δ), δ)-DP (Bun & Steinke 2016).
    assert rho + 2 * math.sqrt(rho * math.log(1 / delta)) == pytest.approx(epsilon, rel=1e-12)
    assert E.zcdp_epsilon(rho, delta) == pytest.approx(epsilon, rel=1e-12)


@pytest.mark.parametrize("T, n, K, epsilon, delta", [(2.0, 500, 100, 0.5, 1e-5), (10.0, 10_000, 3000, 3.0, 1e-6)])
def test_accounting_round_trip_from_sigma(T, n, K, epsilon, delta):
    F, y = _problem(n=n, T=T)
    _, sigma = E.noisy_projected_subgradient_descent(F, y, T, 1.0, epsilon, delta, K, rng=0)
    assert sigma == pytest.approx(E.dp_erm_sigma(T, n, epsilon, delta, K))
    # Recompute ε from σ, K and Δ = 2T/n alone: K Gaussian steps are K Δ²/(2σ²)-zCDP.
    sensitivity = 2 * T / n
    rho = K * sensitivity ** 2 / (2 * sigma ** 2)
    assert rho + 2 * math.sqrt(rho * math.log(1 / delta)) == pytest.approx(epsilon, rel=1e-10)
    assert E.l1_subgradient_sensitivity(T, n) == pytest.approx(sensitivity)


def test_sigma_monotone():
    base = E.dp_erm_sigma(2.0, 1000, 1.0, 1e-5, 100)
    assert E.dp_erm_sigma(2.0, 1000, 2.0, 1e-5, 100) < base       # more ε, less noise
    assert E.dp_erm_sigma(2.0, 1000, 1.0, 1e-5, 400) == pytest.approx(2 * base)  # σ ∝ √K
    assert E.dp_erm_sigma(2.0, 2000, 1.0, 1e-5, 100) == pytest.approx(base / 2)  # σ ∝ 1/n


# --- optimisation -----------------------------------------------------------------------

def test_converges_to_the_non_private_optimum_as_epsilon_grows():
    F, y = _problem()
    v_opt, loss_opt = _l1_optimum(F, y)
    assert np.linalg.norm(v_opt) < 1  # the ball constraint is inactive, so the LP solves the constrained problem
    K, T = 2000, 2.0
    excess = {}
    for epsilon in [0.05, 1.0, 1e6]:
        runs = [E.noisy_projected_subgradient_descent(F, y, T, 1.0, epsilon, 1e-5, K, rng=s) for s in range(4)]
        excess[epsilon] = np.mean([E.l1_loss(F, y, v) - loss_opt for v, _ in runs])
        assert all(np.linalg.norm(v) <= 1 + 1e-12 for v, _ in runs)
    assert excess[0.05] > excess[1.0] > excess[1e6] >= -1e-9
    # At ε = 1e6 the noise is negligible (Dσ² ≪ T²) and the subgradient bound RT/√K = 0.045 is
    # deterministic up to that noise; the averaged iterate is within it.
    sigma = E.dp_erm_sigma(T, 400, 1e6, 1e-5, K)
    assert excess[1e6] <= math.sqrt(T ** 2 + 3 * sigma ** 2) / math.sqrt(K)
    assert excess[1e6] < 0.02


def test_same_seed_same_result():
    F, y = _problem()
    a = E.noisy_projected_subgradient_descent(F, y, 2.0, 1.0, 1.0, 1e-5, 50, rng=3)[0]
    b = E.noisy_projected_subgradient_descent(F, y, 2.0, 1.0, 1.0, 1e-5, 50, rng=3)[0]
    assert np.array_equal(a, b)


# --- audit of one step ----------------------------------------------------------------------

def _neighbours(T=4.0, n=50, D=2):
    """Replace-one pair at the clipping bound with the subgradient term flipping sign: Δ = 2T/n exactly.

    At v = 0 the record (T e₁, −1) contributes sign(0 + 1)·T e₁ = +T e₁/n; its replacement
    (T e₁, +1) contributes −T e₁/n. All other records are zero rows (contributing nothing).
    """
    F = np.zeros((n, D))
    F[0, 0] = T
    y = np.ones(n)
    y_bad = y.copy()
    y[0] = -1.0
    return (F, y), (F, y_bad)


def _step_mechanism(step_fn, T, epsilon, delta):
    def mechanism(data, n_trials, rng):
        F, y = data
        return step_fn(F, y, np.zeros(F.shape[1]), T, epsilon, delta, 1, rng=rng, size=n_trials)[:, 0]
    return mechanism


def test_one_noisy_step_audit_passes_and_forgotten_sensitivity_is_caught():
    T, epsilon, delta = 4.0, 1.0, 1e-5
    data, neighbour = _neighbours(T)
    sigma = E.dp_erm_sigma(T, 50, epsilon, delta, 1)
    # Events {g₀ > t}: the tail where the shifted Gaussian's likelihood ratio is largest.
    events = audit.threshold_events(np.linspace(0, 6, 13) * sigma / 4 + 2 * T / 50 / 2)
    good = audit.audit(_step_mechanism(E.noisy_average_subgradient, T, epsilon, delta),
                       data, neighbour, events, n_trials=200_000, delta=delta, rng=1)
    assert good.epsilon_lower <= epsilon
    broken = audit.audit(_step_mechanism(E.broken_noisy_average_subgradient_forgotten_sensitivity, T, epsilon, delta),
                         data, neighbour, audit.threshold_events(np.linspace(0.1, 0.6, 11)),
                         n_trials=200_000, delta=delta, rng=1)
    # The broken step adds T = 4 times too little noise: its lower bound must exceed the claim.
    assert broken.epsilon_lower > epsilon


# --- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("call, match", [
    (lambda: E.zcdp_rho(0.0, 1e-5), "epsilon"),
    (lambda: E.zcdp_rho(1.0, 0.0), "delta"),
    (lambda: E.zcdp_rho("1", 1e-5), "epsilon"),
    (lambda: E.zcdp_epsilon(-1.0, 1e-5), "rho"),
    (lambda: E.l1_subgradient_sensitivity(1.0, 0), "n"),
    (lambda: E.dp_erm_sigma(1.0, 10, 1.0, 1e-5, 0), "n_iterations"),
    (lambda: E.noisy_projected_subgradient_descent(np.ones((3, 2)), np.ones(3), 1.0, 1.0, 1.0, 1e-5, 5),
     "lipschitz"),
    (lambda: E.noisy_projected_subgradient_descent(np.ones((3, 2)), np.ones(4), 2.0, 1.0, 1.0, 1e-5, 5),
     "targets"),
    (lambda: E.noisy_projected_subgradient_descent(np.ones((3, 2)), [1, np.nan, 1], 2.0, 1.0, 1.0, 1e-5, 5),
     "targets"),
    (lambda: E.noisy_projected_subgradient_descent(np.ones((3, 2)), np.ones(3), 2.0, 0.0, 1.0, 1e-5, 5),
     "radius"),
    (lambda: E.noisy_projected_subgradient_descent(np.ones((3, 2)), np.ones(3), 2.0, 1.0, 1.0, 1e-5, 5,
                                                   rng="x"), None),
    (lambda: E.noisy_average_subgradient(np.ones((3, 2)), np.ones(3), np.zeros(3), 2.0, 1.0, 1e-5), "point"),
    (lambda: E.l1_loss(np.ones((3, 2)), np.ones(3), np.zeros(5)), "coef"),
])
def test_bad_input_raises_named_errors(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
