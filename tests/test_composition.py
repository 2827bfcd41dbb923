"""Composition theorems: closed forms, invariants and round trips."""

import math
import re

import numpy as np
import pytest

from dpteach import composition as c


def test_basic_composition_sums():
    assert c.basic_composition([0.1, 0.2, 0.7]) == pytest.approx((1.0, 0.0))
    assert c.basic_composition([0.5, 0.5], [1e-6, 2e-6]) == pytest.approx((1.0, 3e-6))


def test_parallel_composition_takes_the_maximum():
    assert c.parallel_composition([0.1, 0.9, 0.3], [0.0, 1e-6, 1e-5]) == pytest.approx((0.9, 1e-5))


@pytest.mark.parametrize("epsilon, delta, k, delta_prime",
                         [(0.1, 0.0, 100, 1e-5), (0.01, 1e-7, 1000, 1e-6), (1.0, 1e-6, 10, 1e-3)])
def test_advanced_composition_closed_form(epsilon, delta, k, delta_prime):
    # ε' = ε sqrt(2k ln(1/δ')) + k ε (e^ε − 1), written out independently here.
    expected_eps = epsilon * math.sqrt(2 * k * math.log(1 / delta_prime)) + k * epsilon * (math.exp(epsilon) - 1)
    eps_total, delta_total = c.advanced_composition(epsilon, delta, k, delta_prime)
    assert eps_total == pytest.approx(expected_eps, rel=1e-12)
    assert delta_total == pytest.approx(k * delta + delta_prime, rel=1e-12)


def test_advanced_beats_basic_in_its_regime_and_not_outside():
    # Small ε, many steps: sqrt(k) growth beats k.
    assert c.advanced_composition(0.01, 0, 10_000, 1e-6)[0] < c.basic_composition([0.01] * 10_000)[0]
    # Large ε: the kε(e^ε − 1) term makes it worse than basic composition.
    assert c.advanced_composition(2.0, 0, 10, 1e-6)[0] > 10 * 2.0


def test_advanced_composition_is_monotone():
    ks = [1, 10, 100, 1000]
    totals = [c.advanced_composition(0.1, 0, k, 1e-5)[0] for k in ks]
    assert np.all(np.diff(totals) > 0)
    epsilons = np.geomspace(1e-3, 3, 12)
    totals = [c.advanced_composition(e, 0, 50, 1e-5)[0] for e in epsilons]
    assert np.all(np.diff(totals) > 0)
    delta_primes = np.geomspace(1e-12, 0.5, 12)
    totals = [c.advanced_composition(0.1, 0, 50, d)[0] for d in delta_primes]
    assert np.all(np.diff(totals) < 0)  # more slack δ', smaller ε'


@pytest.mark.parametrize("epsilon_total, k, delta_prime",
                         [(1.0, 100, 1e-5), (1.0, 100, 1e-6), (0.5, 10_000, 1e-8), (3.0, 5, 1e-3), (0.3, 7, 0.9)])
def test_per_step_epsilon_round_trip(epsilon_total, k, delta_prime):
    per_step = c.advanced_composition_epsilon_per_step(epsilon_total, k, delta_prime)
    advanced = c.advanced_composition(per_step, 0, k, delta_prime)[0]
    basic = k * per_step
    # The composed budget never exceeds the target (exactly, not up to tolerance),
    # and one of the two bounds meets it.
    assert min(advanced, basic) <= epsilon_total
    assert min(advanced, basic) == pytest.approx(epsilon_total, rel=1e-8)


def test_per_step_uses_advanced_when_it_allows_more():
    per_step = c.advanced_composition_epsilon_per_step(1.0, 10_000, 1e-6)
    assert per_step > 1.0 / 10_000 * 5  # sqrt(k) scaling gives far more than ε/k


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf])
def test_bad_epsilons_named(bad):
    with pytest.raises(ValueError, match="epsilon"):
        c.advanced_composition(bad, 0, 10, 1e-5)
    with pytest.raises(ValueError, match="epsilons"):
        c.basic_composition([0.1, bad])
    with pytest.raises(ValueError, match="epsilons"):
        c.parallel_composition([bad])
    with pytest.raises(ValueError, match="epsilon_total"):
        c.advanced_composition_epsilon_per_step(bad, 10, 1e-5)


def test_bad_deltas_and_k_named():
    with pytest.raises(ValueError, match=r"delta must satisfy 0 <= delta < 1, got 1"):
        c.advanced_composition(0.1, 1, 10, 1e-5)
    with pytest.raises(ValueError, match=r"delta_prime must satisfy 0 < delta_prime < 1, got 0"):
        c.advanced_composition(0.1, 0, 10, 0)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, inf\], got 0"):
        c.advanced_composition(0.1, 0, 0, 1e-5)
    with pytest.raises(ValueError, match=r"deltas must all satisfy 0 <= delta < 1, found 1.0"):
        c.basic_composition([0.1, 0.2], [0.0, 1.0])
    with pytest.raises(ValueError, match=r"deltas must have one entry per epsilon \(2\), got 1"):
        c.basic_composition([0.1, 0.2], [0.0])
    with pytest.raises(ValueError, match="epsilons must not be empty"):
        c.basic_composition([])


@pytest.mark.parametrize("epsilon_total", [1e-300, 1e-10, 0.5, 10.0, 1e5, 1e300])
@pytest.mark.parametrize("k", [1, 10, 1000])
def test_per_step_inverse_at_extreme_budgets(epsilon_total, k):
    # The per-step ε never overspends the budget, even where e^ε overflows or ε is subnormal.
    step = c.advanced_composition_epsilon_per_step(epsilon_total, k, 1e-5)
    assert 0 < step <= epsilon_total
    assert min(c.advanced_composition(step, 0.0, k, 1e-5)[0], k * step) <= epsilon_total
    # ... and it is not wastefully small: basic composition alone already allows ε_total / k.
    assert step >= epsilon_total / k * (1 - 1e-12)


def test_advanced_composition_overflow_is_a_vacuous_bound():
    eps_total, delta_total = c.advanced_composition(1000.0, 0.0, 3, 1e-5)
    assert eps_total == math.inf and delta_total == pytest.approx(1e-5)


def test_heterogeneous_advanced_composition_formula_and_reduction():
    # Hand value: steps (0.1, 0.2, 0.4), δ' = e^{-2}: √(2·2·0.21) + Σ ε(e^ε − 1).
    steps = np.array([0.1, 0.2, 0.4])
    expected = math.sqrt(4 * 0.21) + float(np.sum(steps * np.expm1(steps)))
    assert c.heterogeneous_advanced_composition(steps, math.exp(-2)) == pytest.approx(expected, rel=1e-12)
    # Equal steps: exactly the advanced composition theorem (one home for the formula).
    assert c.heterogeneous_advanced_composition(np.full(7, 0.3), 1e-6) == pytest.approx(
        c.advanced_composition(0.3, 0.0, 7, 1e-6)[0], rel=1e-12)
    with pytest.raises(ValueError, match="delta_prime"):
        c.heterogeneous_advanced_composition(steps, 0.0)
    with pytest.raises(ValueError, match="epsilons"):
        c.heterogeneous_advanced_composition([0.1, -0.2], 1e-5)


def test_pld_epsilon_without_dp_accounting_names_the_package(monkeypatch):
    # The algorithm modules import without dp-accounting; only the "pld" accountant needs it, and says so.
    import sys
    monkeypatch.setitem(sys.modules, "dp_accounting", None)
    monkeypatch.setitem(sys.modules, "dp_accounting.pld", None)
    with pytest.raises(ImportError, match="dp-accounting"):
        c.pld_epsilon([("laplace", 10.0, 3)], 1e-5)
    from dpteach import peeling
    with pytest.raises(ImportError, match="dp-accounting"):
        peeling.peeling_epsilon(5, 1.0, 1e-3, accountant="pld")
    assert peeling.peeling_epsilon(5, 1.0, 1e-3) > 0  # the theorems' accountant still works


@pytest.mark.parametrize("steps, name", [([], "steps"), ([("laplace", 1.0)], "steps[0]"),
                                         ([("gauss", 1.0, 2)], "steps[0][0]"), ([("laplace", 0.0, 2)], "steps[0][1]"),
                                         ([("laplace", 1.0, 0)], "steps[0][2]"),
                                         ([("poisson_gaussian", 1.0, 2, 1.5)], "steps[0][3]"),
                                         ([("laplace", 1.0, 10 ** 6), ("pure", 1.0, 1)], "steps")])
def test_pld_epsilon_names_bad_steps(steps, name):
    with pytest.raises(ValueError, match=re.escape(name)):
        c.pld_epsilon(steps, 1e-5)
