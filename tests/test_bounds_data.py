"""Chapter-1 parts of dpteach.bounds and dpteach.data."""

import math

import numpy as np
import pytest

from dpteach import bounds, data, mechanisms


def test_laplace_error_bounds():
    assert bounds.laplace_expected_absolute_error(2.0, 0.5) == pytest.approx(4.0)
    # P[|Lap(b)| > b ln(1/β)] = β exactly.
    t = bounds.laplace_tail_bound(1.0, 1.0, 0.05)
    assert math.exp(-t) == pytest.approx(0.05)


def test_exponential_mechanism_bound_holds_for_exact_expected_loss():
    scores = np.array([100.0, 99.0, 90.0, 50.0, 10.0, 0.0])
    for epsilon in (0.1, 1.0, 10.0):
        p = mechanisms.exponential_mechanism_probabilities(scores, 1.0, epsilon)
        loss = scores.max() - p @ scores
        assert loss <= bounds.exponential_mechanism_utility_bound(len(scores), 1.0, epsilon)
    expected = 2 / 0.5 * (math.log(6) + 1)
    assert bounds.exponential_mechanism_utility_bound(6, 1.0, 0.5) == pytest.approx(expected)
    assert bounds.exponential_mechanism_utility_bound(6, 1.0, 0.5, t=3.0) == pytest.approx(2 / 0.5 * (math.log(6) + 3))
    curve = bounds.exponential_mechanism_utility_bound(6, 1.0, np.array([0.5, 1.0]))
    assert curve.shape == (2,) and curve[0] > curve[1]


def test_bounds_bad_input():
    with pytest.raises(ValueError, match="epsilon"):
        bounds.exponential_mechanism_utility_bound(5, 1.0, 0.0)
    with pytest.raises(ValueError, match="n_candidates"):
        bounds.exponential_mechanism_utility_bound(0, 1.0, 1.0)
    with pytest.raises(ValueError, match="beta"):
        bounds.laplace_tail_bound(1.0, 1.0, 1.5)


def test_data_generators():
    bits = data.bernoulli_bits(50_000, 0.3, rng=0)
    # Bernoulli mean: sd sqrt(0.21/50k) = 0.002; 6-sigma band.
    assert set(np.unique(bits)) <= {0, 1} and abs(bits.mean() - 0.3) < 6 * math.sqrt(0.21 / 50_000)
    neighbour = data.replace_one(bits, 0, 1 - bits[0])
    assert np.sum(neighbour != bits) == 1 and bits is not neighbour
    votes = data.vote_counts(1000, [0.5, 0.3, 0.2], rng=1)
    assert votes.sum() == 1000 and votes.shape == (3,)
    with pytest.raises(ValueError, match="preferences must be non-negative and sum to 1"):
        data.vote_counts(10, [0.5, 0.6])
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]"):
        data.bernoulli_bits(10, 1.5)
