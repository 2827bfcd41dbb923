"""Issue 24: every ε dpteach certifies is at least the tight ε of the same mechanism (dp-accounting's PLD).

The grid and the bracketing of the tight ε live in ``tools/accounting_oracle.py`` (one home, also used by
the audit page's looseness table); its docstring derives the only slack allowed (k·h for k generic steps
on a PLD grid of width h; none for the Gaussian and Laplace mechanisms, whose optimistic PLD is a lower
bound by construction). A certified ε below that lower bound would be a privacy bug.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

pytest.importorskip("dp_accounting", reason="the numerical accountant dp-accounting is not installed "
                                            "(requirements-test.txt pins it; `make test` installs it)")

from dpteach import composition  # noqa: E402
from tools import accounting_oracle as oracle  # noqa: E402


@pytest.fixture(scope="module")
def rows():
    return oracle.cases()


def test_every_certified_epsilon_is_at_least_the_tight_one(rows):
    # Relative 1e-9: the accountants round their own answers to that precision (e.g. dp_sgd_epsilon's
    # round-up factor 1 + 1e-9 and the root finders' rtol), far below the PLD grid h = 1e-4.
    below = [row for row in rows if row["certified"] < row["lower"] * (1 - 1e-9)]
    assert not below, f"certified ε below the tight ε (privacy bug): {below}"
    # The bracket itself is sane: lower <= upper, and the grid covers every routine of the issue.
    assert all(row["lower"] <= row["upper"] + 1e-12 for row in rows)
    routines = {row["routine"].split("[")[0] for row in rows}
    for name in ("composition.basic_composition", "composition.advanced_composition",
                 "composition.heterogeneous_advanced_composition", "dp_erm.zcdp_epsilon",
                 "peeling.peeling_epsilon", "dp_erm.dp_erm_sigma", "composition.pld_epsilon", "regression.dp_gradient_descent_sigma",
                 "dp_logistic.dp_sgd_sigma", "dp_logistic.dp_sgd_epsilon", "dpsas_steps.dpsas_noise_sigma",
                 "local.LocalSimulatedSQOracle.max_user_epsilon", "local.ReusingLocalSQOracle.max_user_epsilon"):
        assert name in routines


def test_exact_gaussian_accountants_are_tight(rows):
    # The GDP-based accountants claim to be tight: their ε must also be at most the pessimistic PLD's
    # (which is >= the tight ε), up to the grid: each loss is rounded by < h, so ε moves by < k·h.
    exact = [row for row in rows if row["routine"].endswith(("[exact]", "[gaussian]"))
             or row["routine"] == "dpsas_steps.dpsas_noise_sigma"]
    assert exact
    for row in exact:
        steps = row["params"].get("epochs") or row["params"].get("K") or row["params"].get("releases")
        assert row["certified"] <= row["upper"] + steps * oracle.GRID, row


def test_the_issue_numbers(rows):
    # The issue measured: advanced composition of 50 Laplace steps at ε₀ = 0.1 (δ' = 1e-5) certifies 3.92
    # against a tight 2.80 for generic ε₀-DP steps; Peeling (s = 50, ε = 1, δ = 1e-3) 0.974 against ≈ 0.58.
    by = {(row["routine"], tuple(sorted(row["params"].items()))): row for row in rows}
    adv = by[("composition.advanced_composition",
              (("delta", 0.0), ("delta_prime", 1e-5), ("epsilon", 0.1), ("k", 50)))]
    assert adv["certified"] == pytest.approx(3.92, abs=0.01) and adv["upper"] == pytest.approx(2.84, abs=0.05)
    peel = by[("peeling.peeling_epsilon", (("delta", 1e-3), ("epsilon", 1.0), ("s", 50)))]
    assert peel["certified"] == pytest.approx(0.974, abs=0.01) and peel["upper"] == pytest.approx(0.58, abs=0.01)


# --- the oracle catches broken accountants ------------------------------------------------------

def _advanced_forgot_sqrt_k(eps0, k, delta_prime):
    """Advanced composition without the √k: ε√(2 ln(1/δ')) + kε(e^ε − 1)."""
    return eps0 * math.sqrt(2 * math.log(1 / delta_prime)) + k * eps0 * math.expm1(eps0)


def test_oracle_catches_a_composition_that_forgets_the_sqrt_k():
    eps0, k, delta_prime = 0.1, 50, 1e-5
    lower, _ = oracle.generic([((eps0, 0.0), k)], delta_prime)
    assert composition.advanced_composition(eps0, 0.0, k, delta_prime)[0] >= lower
    assert _advanced_forgot_sqrt_k(eps0, k, delta_prime) < lower  # 1.0 against a tight 2.8


def test_oracle_catches_a_composition_that_forgets_the_delta_prime():
    # Claiming (ε', kδ) instead of (ε', kδ + δ'): with pure steps that is (ε', 0), and the tight ε of 50 pure
    # 0.1-DP steps at δ = 0 is their sum 5 > ε' = 3.92.
    eps0, k, delta_prime = 0.1, 50, 1e-5
    eps, _ = composition.advanced_composition(eps0, 0.0, k, delta_prime)
    lower, _ = oracle.generic([((eps0, 0.0), k)], 0.0)
    assert eps < lower


def test_oracle_catches_dp_sgd_charging_one_epoch():
    # A DP-SGD accountant that charges E epochs like one (σ for sensitivity 2C, not 2C·√E).
    from dpteach.mechanisms import gaussian_sigma
    sigma = gaussian_sigma(2.0, 1.0, 1e-5)
    lower, _ = oracle.gaussian(sigma / 2.0, 5, 1e-5)
    assert lower > 1.5


def test_looseness_file_matches_the_oracle(rows):
    # benchmarks/accounting_looseness.json feeds the audit page; it must be what the oracle computes now.
    record = json.loads(oracle.LOOSENESS.read_text(encoding="utf-8"))
    assert record["looseness"] == oracle.looseness(rows)
    ratios = {name: entry["max_ratio"] for name, entry in record["looseness"].items()}
    assert np.isclose(ratios["dp_logistic.dp_sgd_sigma[exact]"], 1.0, atol=0.01)
    assert ratios["peeling.peeling_epsilon"] > 1.3
    # The PLD accountants are tight up to their grid (pessimistic PLD vs pessimistic PLD: equal).
    assert ratios["peeling.peeling_epsilon[pld]"] == pytest.approx(1.0, abs=0.01)
    assert ratios["composition.pld_epsilon[laplace]"] == pytest.approx(1.0, abs=0.01)


# --- the tight accountant (issue 24, step 2) ----------------------------------------------------

def test_pld_epsilon_reproduces_the_issue_and_beats_the_theorems():
    # 50 Laplace steps at ε₀ = 0.1 (b = 10Δ), δ = 1e-5: advanced composition 3.92, PLD 2.80 (the issue).
    tight = composition.pld_epsilon([("laplace", 10.0, 50)], 1e-5)
    assert tight == pytest.approx(2.80, abs=0.01)
    assert tight < composition.advanced_composition(0.1, 0.0, 50, 1e-5)[0]
    # Generic 0.1-DP steps are worse off than Laplace ones (randomized response is their worst case) ...
    generic = composition.pld_epsilon([("pure", 0.1, 50)], 1e-5)
    assert tight < generic < composition.advanced_composition(0.1, 0.0, 50, 1e-5)[0]
    # ... and composing in one call or in two pieces is the same mechanism.
    split = composition.pld_epsilon([("pure", 0.1, 20), ("pure", 0.1, 30)], 1e-5)
    assert split == pytest.approx(generic, abs=50 * oracle.GRID)


def test_pld_epsilon_gaussian_matches_exact_gaussian_composition():
    # k Gaussian steps of σ/Δ = r are one Gaussian of σ/Δ = r/√k (GDP): dp_sgd_epsilon's "exact" is tight,
    # so the two accountants agree up to the grid (k·h).
    from dpteach.dp_logistic import dp_sgd_epsilon
    exact = dp_sgd_epsilon(20.0, 1.0, 10, 1e-5, accountant="exact")
    pld = composition.pld_epsilon([("gaussian", 10.0, 10)], 1e-5)
    assert exact - 1e-6 <= pld <= exact + 10 * oracle.GRID


def test_peeling_pld_calibration_is_certified_and_needs_less_noise():
    from dpteach import peeling
    s, eps, delta = 50, 1.0, 1e-3
    assert peeling.peeling_epsilon(s, eps, delta, accountant="pld") == pytest.approx(0.58, abs=0.01)
    scale = peeling.peeling_noise_scale(s, eps, delta, 1.0, calibrate="pld")
    theorem = peeling.peeling_noise_scale(s, eps, delta, 1.0, calibrate="accountant")
    assert scale < 0.7 * theorem  # about 40.7 against 62.8
    # b = 2λ/ε_r: the ε_r behind it composes (optimally) to at most ε, and 0.1 % more would not fit.
    eps_round = 2.0 / scale
    assert peeling._certified_epsilon(s, eps_round, delta, "pld") <= eps
    assert peeling._certified_epsilon(s, eps_round * 1.001, delta, "pld") > eps
    # Its tight ε (the oracle's lower bound) is also at most ε: the calibration is private.
    lower, _ = oracle.generic([((eps_round, 0.0), s), ((eps_round / 2, 0.0), s)], delta)
    assert lower <= eps


def test_audit_page_shows_the_looseness_table():
    from tools import audit_report
    section = "\n".join(audit_report._looseness_section())
    assert "## Looseness against a numerical accountant" in section
    assert "| `peeling.peeling_epsilon` |" in section


# --- issue 29 item 2: the PLD accountant never under-claims, down to δ = 1e-15 and 10⁴ steps ----------------------
# The wave-4 review (theory ch09-A, row N1) found pld_epsilon below the true ε at small δ: 7.51 against 7.87 for 10⁴
# Gaussian steps of σ/Δ = 100 at δ = 1e-14; 1.7829316 against 1.7829323 for 1000 pure steps of ε₀ = 0.01 at δ = 1e-9.
# The oracles below are independent of the code under test: 50-digit mpmath evaluations of the exact δ(ε).

mpmath = pytest.importorskip("mpmath")


def _gdp_delta(mu, epsilon):
    """Exact δ(ε) of μ-GDP (one Gaussian mechanism of noise 1 and sensitivity μ), at 50 digits (Balle & Wang, Thm 8)."""
    with mpmath.workdps(50):
        mu, epsilon = mpmath.mpf(mu), mpmath.mpf(epsilon)
        return mpmath.ncdf(-epsilon / mu + mu / 2) - mpmath.exp(epsilon) * mpmath.ncdf(-epsilon / mu - mu / 2)


def _kov_delta(epsilon0, k, epsilon):
    """Exact δ(ε) of k ε₀-DP steps (the k-fold randomized response; Kairouz, Oh & Viswanath 2015), at 50 digits.

    The privacy loss is ε₀(k − 2l) with probability C(k, l) p^(k−l) (1 − p)^l, p = e^ε₀/(1 + e^ε₀), and
    δ(ε) = Σ_l P(l) (1 − e^(ε − loss))₊."""
    with mpmath.workdps(50):
        e0, eps = mpmath.mpf(epsilon0), mpmath.mpf(epsilon)
        p = mpmath.exp(e0) / (1 + mpmath.exp(e0))
        total = mpmath.mpf(0)
        for l in range(k + 1):
            loss = e0 * (k - 2 * l)
            if loss <= eps:
                break
            total += mpmath.binomial(k, l) * p ** (k - l) * (1 - p) ** l * (1 - mpmath.exp(eps - loss))
        return total


TINY_DELTAS = [1e-5, 1e-10, 1e-12, 1e-14, 1e-15]


@pytest.mark.parametrize("ratio, k", [(5.0, 10 ** 4), (50.0, 1000), (100.0, 10 ** 4), (300.0, 10)])
def test_pld_epsilon_of_gaussian_steps_is_never_below_the_exact_one(ratio, k):
    # Before: 7.508 (δ = 1e-14, σ/Δ = 100, k = 10⁴), whose true δ is 14.6 times the target.
    mu = math.sqrt(k) / ratio
    for delta in TINY_DELTAS:
        certified = composition.pld_epsilon([("gaussian", ratio, k)], delta)
        assert _gdp_delta(mu, certified) <= delta, (ratio, k, delta, certified)
        # and tight: 1e-6 relative less would overspend (the closed form rounds up by ~1e-9 relative only)
        assert _gdp_delta(mu, certified * (1 - 1e-6)) > delta, (ratio, k, delta, certified)


def test_pld_epsilon_composes_unequal_gaussian_steps_and_poisson_at_q_1_in_closed_form():
    # μ² = Σ k_i (Δ_i/σ_i)²; a Poisson step at q = 1 is a Gaussian step of σ/(2Δ).
    steps = [("gaussian", 20.0, 300), ("gaussian", 40.0, 2000), ("poisson_gaussian", 80.0, 500, 1.0)]
    mu = math.sqrt(300 / 20.0 ** 2 + 2000 / 40.0 ** 2 + 500 / 40.0 ** 2)
    for delta in (1e-6, 1e-15):
        certified = composition.pld_epsilon(steps, delta)
        assert _gdp_delta(mu, certified) <= delta < _gdp_delta(mu, certified * (1 - 1e-6))


@pytest.mark.parametrize("epsilon0, k, delta", [(0.01, 1000, 1e-9), (0.05, 200, 1e-9), (0.01, 10 ** 4, 1e-9),
                                                 (0.1, 10, 1e-5), (0.5, 100, 1e-7)])
def test_pld_epsilon_of_pure_steps_is_never_below_the_exact_one(epsilon0, k, delta):
    # Before: 1.7829316 against the exact 1.7829323 at (0.01, 1000, 1e-9). The FFT path reserves 1e-11 of δ.
    certified = composition.pld_epsilon([("pure", epsilon0, k)], delta)
    assert _kov_delta(epsilon0, k, certified) <= delta, certified
    # Not vacuous: within k·h (the grid's rounding) plus what the slack of 1 % of δ costs, of the exact ε.
    exact_plus = certified - k * oracle.GRID - 0.01
    assert _kov_delta(epsilon0, k, max(exact_plus, 0.0)) > delta


@pytest.mark.parametrize("ratio, k", [(100.0, 10 ** 4), (20.0, 10 ** 4), (50.0, 1000)])
def test_the_fft_path_with_its_slack_is_never_below_the_exact_gaussian_epsilon(ratio, k):
    # pld_epsilon answers Gaussian steps in closed form; forced through the FFT (the path of every other kind), the
    # certified ε with the reserved slack must still meet the exact δ at every δ the path accepts.
    mu = math.sqrt(k) / ratio
    for delta in (1e-5, 1e-7, composition.PLD_MIN_DELTA):
        certified = composition._fft_epsilon([("gaussian", ratio, k, 1.0)], delta)
        assert _gdp_delta(mu, certified) <= delta, (ratio, k, delta, certified)


@pytest.mark.parametrize("delta", [1e-10, 1e-12, 1e-14, 1e-15])
def test_the_fft_path_refuses_delta_below_its_floor_by_name(delta):
    for steps in ([("pure", 0.01, 1000)], [("laplace", 10.0, 50)], [("poisson_gaussian", 14.238, 10 ** 4, 0.01)],
                  [("gaussian", 10.0, 5), ("pure", 0.1, 5)]):
        with pytest.raises(ValueError, match=rf"^delta = {delta!r} is below PLD_MIN_DELTA = 1e-09, .*valid range: "
                                             r"1e-09 <= delta < 1"):
            composition.pld_epsilon(steps, delta)


@pytest.mark.parametrize("ratio, steps, rate", [(5.8661, 2000, 0.01), (14.238, 10 ** 4, 0.01), (2.0539, 10 ** 4, 0.01),
                                                (3.7309, 100, 0.05)])
def test_poisson_accountant_is_at_least_a_finer_pessimistic_pld(ratio, steps, rate):
    # The review's settings (acct_poisson.py). dp-accounting's pessimistic PLD at a 5 times finer grid (2e-5) is an
    # upper bound on the true ε up to its own FFT error (≤ ~1e-13 in δ, negligible at δ >= 1e-9): the certified ε must
    # not be below it. Below PLD_MIN_DELTA the accountant refuses (the review's δ = 1e-14 case was not certifiable).
    from dpteach import dp_sgd_poisson
    from dp_accounting import privacy_accountant
    from dp_accounting.pld import privacy_loss_distribution
    finer = privacy_loss_distribution.from_gaussian_mechanism(
        ratio, value_discretization_interval=2e-5, sampling_prob=rate,
        neighboring_relation=privacy_accountant.NeighboringRelation.REPLACE_ONE).self_compose(steps)
    for delta in (1e-5, 1e-9):
        certified = dp_sgd_poisson.poisson_sgd_epsilon(ratio, 1.0, rate, steps, delta)
        assert certified >= finer.get_epsilon_for_delta(delta), (ratio, steps, rate, delta)
    with pytest.raises(ValueError, match=r"^delta = 1e-14 is below PLD_MIN_DELTA"):
        dp_sgd_poisson.poisson_sgd_epsilon(ratio, 1.0, rate, steps, 1e-14)
