"""Issue 24, step 3: DP-SGD with Poisson-subsampled batches, accounted by PLD and audited.

Needs dp-accounting (the accountant and the oracle); skipped with a clear reason without it.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dp_accounting", reason="the Poisson accountant needs dp-accounting "
                                            "(requirements-test.txt pins it; `make test` installs it)")

from dpteach import audit, dp_sgd_poisson as P  # noqa: E402
from dpteach.composition import PLD_DELTA_SLACK  # noqa: E402
from dpteach.dp_logistic import dp_sgd_epsilon, dp_sgd_sigma  # noqa: E402
from tools import accounting_oracle as oracle  # noqa: E402


def test_without_sampling_it_is_the_exact_gaussian_accountant():
    # q = 1: every example in every batch, T steps of sensitivity 2C = the shuffled accountant with T epochs.
    for sigma, steps in ((20.0, 10), (5.0, 3)):
        exact = dp_sgd_epsilon(sigma, 1.0, steps, 1e-5, accountant="exact")
        assert exact - 1e-6 <= P.poisson_sgd_epsilon(sigma, 1.0, 1.0, steps, 1e-5) <= exact + steps * oracle.GRID


@pytest.mark.parametrize("epsilon, rate, steps", [(1.0, 0.01, 500), (2.0, 0.05, 20)])
def test_certified_epsilon_is_what_the_oracle_says(epsilon, rate, steps):
    sigma = P.poisson_sgd_sigma(1.0, rate, steps, epsilon, 1e-5)
    certified = P.poisson_sgd_epsilon(sigma, 1.0, rate, steps, 1e-5)
    lower, _ = oracle.poisson_gaussian(sigma, rate, steps, 1e-5)
    _, upper = oracle.poisson_gaussian(sigma, rate, steps, 1e-5 - PLD_DELTA_SLACK)
    # Never below the tight ε; at most the pessimistic PLD's at δ less the slack reserved for the FFT's rounding
    # (composition.pld_epsilon), which is the tight one up to the grid.
    assert lower * (1 - 1e-9) <= certified <= upper + 1e-9
    assert certified <= epsilon
    # σ is the smallest that fits, to the root finder's 0.5 %: 1 % less noise overspends.
    assert P.poisson_sgd_epsilon(sigma * 0.99, 1.0, rate, steps, 1e-5) > epsilon
    # Amplification: far less noise than the same T steps without subsampling ("exact", T epochs).
    assert sigma < 0.5 * dp_sgd_sigma(1.0, steps, epsilon, 1e-5, accountant="exact")


def test_the_oracle_catches_a_sampler_accounted_without_its_sensitivity_doubling():
    # A Poisson accountant that took the sensitivity of a sampled replacement to be C instead of 2C (σ/Δ
    # twice too large) would certify an ε below the tight one.
    rate, steps, sigma = 0.05, 20, 2.0
    broken = P.poisson_sgd_epsilon(2 * sigma, 1.0, rate, steps, 1e-5)  # as if the noise were 2σ
    lower, _ = oracle.poisson_gaussian(sigma, rate, steps, 1e-5)
    assert broken < lower


def _max_first_coordinate(sums_function, sigma, rate, steps):
    def mechanism(G, n_trials, rng):
        return sums_function(G, 1.0, sigma, rate, steps, rng, n_trials).max(axis=1)[:, 0]
    return mechanism


def test_audit_passes_poisson_and_catches_poisson_accounting_of_shuffled_batches():
    # n = 20 examples, expected batch 1 (q = 1/20), one epoch (20 steps), claimed (2, 1e-5). Worst-case pair
    # (Chua et al. 2024): every other example's clipped gradient is −C e₁, the differing one +C e₁ in D and
    # −C e₁ in D'. With shuffled batches the +C is certainly in one batch, so the largest first coordinate
    # reveals it; a Poisson sample may miss it or repeat it, which the PLD accounts for.
    epsilon, delta, n = 2.0, 1e-5, 20
    rate, steps = 1 / n, n
    sigma = P.poisson_sgd_sigma(1.0, rate, steps, epsilon, delta)
    D = np.zeros((n, 2))
    D[:, 0] = -1.0
    D[0, 0] = 1.0
    D_prime = D.copy()
    D_prime[0, 0] = -1.0
    events = audit.threshold_events(np.linspace(0, 5 * sigma, 40))
    correct = audit.audit(_max_first_coordinate(P._poisson_sums, sigma, rate, steps), D, D_prime, events,
                          20000, delta=delta, rng=0)
    broken = audit.audit(_max_first_coordinate(P.broken_shuffled_sums_with_poisson_accounting, sigma, rate,
                                               steps), D, D_prime, events, 20000, delta=delta, rng=0)
    assert correct.epsilon_lower <= epsilon
    assert broken.epsilon_lower > epsilon  # about 2.6 against the claimed 2


def test_fit_is_private_by_construction_and_learns():
    rng = np.random.default_rng(3)
    n, d = 4000, 5
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    w = np.ones(d) / np.sqrt(d)
    y = np.where(X @ w + 0.1 * rng.normal(size=n) >= 0, 1.0, -1.0)
    model = P.PoissonDPSGDLogisticRegression(epsilon=1.0, delta=1e-5, n_epochs=3, random_state=0).fit(X, y)
    # Default batch (issue 33): the shuffled learner's rule at the shuffled σ (at least the Poisson σ), then the
    # rate 1/⌈n/B⌉ so that the T = E·⌈n/B⌉ steps make exactly E expected passes; C = R = 1 and η = 4/R².
    from dpteach.dp_logistic import dp_sgd_sigma, sgd_batch_size
    B = sgd_batch_size(n, d + 1, dp_sgd_sigma(1.0, 3, 1.0, 1e-5, accountant="exact"), 4.0, 3, 1.0)
    steps_per_epoch = -(-n // B)
    assert model.sampling_rate_ == 1.0 / steps_per_epoch and model.n_steps_ == 3 * steps_per_epoch
    assert model.clip_norm_ == 1.0 and model.learning_rate_ == 4.0
    assert P.poisson_sgd_epsilon(model.sigma_, 1.0, model.sampling_rate_, model.n_steps_, 1e-5) <= 1.0
    # Learns: far better than chance on a separable-ish problem (chance is 0.5).
    assert model.score(X, y) > 0.8


def test_bad_arguments_name_the_parameter():
    with pytest.raises(ValueError, match="sampling_rate"):
        P.poisson_sgd_sigma(1.0, 1.5, 10, 1.0, 1e-5)
    with pytest.raises(ValueError, match="epsilon"):
        P.poisson_sgd_sigma(1.0, 0.1, 10, 1e300, 1e-5)
    with pytest.raises(ValueError, match="sigma"):
        P.poisson_sgd_epsilon(0.01, 1.0, 0.1, 10, 1e-5)
