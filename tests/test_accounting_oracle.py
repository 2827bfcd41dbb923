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
                 "peeling.peeling_epsilon", "dp_erm.dp_erm_sigma", "regression.dp_gradient_descent_sigma",
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


def test_audit_page_shows_the_looseness_table():
    from tools import audit_report
    section = "\n".join(audit_report._looseness_section())
    assert "## Looseness against a numerical accountant" in section
    assert "| `peeling.peeling_epsilon` |" in section
