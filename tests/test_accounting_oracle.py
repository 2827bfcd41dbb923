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
