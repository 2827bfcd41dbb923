"""The privacy audit report (book/privacy_audit.md): the audits stay ≤ the claims, broken variants are caught.

Runs every entry of dpteach.registry at its quick settings (the same runs the book
build makes; ~25 s single-process): a correct routine's certified lower bound on ε
(95 % confidence) must be ≤ its claimed ε, and each broken variant must be caught
(bound > claim). The numbers of the quick run (ε = 1 unless stated):

    routine                 correct  broken      routine                  correct  broken
    laplace                  0.979   1.981       clipped_gaussian_mean     0.399   3.019
    gaussian (δ=1e-5)        0.592   1.385       peeling (δ=1e-3)          0.076   1.449
    randomized_response      0.981   1.975       dp_gradient_descent       0.000     —   (loose pair)
    exponential_mechanism    0.889   1.820       dp_erm_step               0.368   2.210
    report_noisy_max         0.958   1.946       hermite_correlations(ε=2) 1.081   2.419
    generic_learner          0.679   1.597       dpsas_threshold           0.857   1.719
    laplace / rr / one-bit randomizers  0.967 / 0.981 / 0.981 (Laplace broken: 1.956)
    dpsas_initial_direction  0.181     —         dpsas_round               0.546   1.194

The full settings (`make audit`: ~10× the runs, 99 % confidence) are committed in
benchmarks/audit_full.json; a test below holds them to the same verdicts. With fixed
seeds every bound is deterministic; each correct one has a 5 % (quick) / 1 % (full)
chance of exceeding a true claim, which these seeds do not hit.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tools/ is a folder of the repository, not part of the installed package

from dpteach import registry  # noqa: E402
from tools import audit_report  # noqa: E402
from tools.theorem_index import resolve  # noqa: E402


@pytest.fixture(scope="module")
def quick_rows():
    return audit_report.run_all("quick")


@pytest.fixture(scope="module")
def extreme_rows():
    return audit_report.run_extreme_all()


def test_correct_routines_stay_below_their_claims_and_broken_variants_are_caught(quick_rows):
    assert len(quick_rows) == len(registry.CASES) + sum(map(registry.has_broken, registry.CASES))
    wrong = [f"{r['name']}/{r['variant']}: certified {r['epsilon_lower']:.3f} vs claim {r['epsilon']}"
             for r in quick_rows if audit_report.verdict(r) != "ok"]
    assert not wrong, wrong
    # The verdict itself: above the claim only for the broken variant.
    assert audit_report.verdict({"epsilon_lower": 1.2, "epsilon": 1.0, "variant": "correct"}) == "FAIL"
    assert audit_report.verdict({"epsilon_lower": 0.9, "epsilon": 1.0, "variant": "broken"}) == "FAIL"


def test_every_routine_that_claims_privacy_is_audited_or_explained():
    # A new private routine (chapter 9's DP-SGD, the appendix) fails here until it gets a registry
    # entry (an audit) or a NOT_AUDITED line saying which audited steps its claim rests on.
    claimed = audit_report.claimed_private_routines()
    covered = {name for entry in registry.CASES for name in entry.routines}
    missing = sorted(set(claimed) - covered - set(registry.NOT_AUDITED))
    assert not missing, f"private routines with neither an audit nor a reason: {missing}"
    assert not covered & set(registry.NOT_AUDITED)
    for name in covered | set(registry.NOT_AUDITED):
        assert resolve(name) is not None, f"registry names {name}, which does not exist"
    # The list: every mechanism, randomizer, learner step, Peeling, DP-ERM, correlations, DPSAS steps.
    required = {"laplace_mechanism", "gaussian_mechanism", "randomized_response", "exponential_mechanism",
                "report_noisy_max", "LaplaceRandomizer", "RandomizedResponse", "OneBitRandomizer",
                "generic_private_learner", "peel", "noisy_average_subgradient", "private_hermite_correlations",
                "private_threshold", "private_initial_direction", "dpsas_round", "clipped_gaussian_mean"}
    assert required <= {name.rsplit(".", 1)[1] for name in covered}


def test_the_claim_scan_finds_a_new_private_routine(monkeypatch):
    # The scan is what makes the test above pick up new chapters: a routine whose docstring
    # says "(ε, δ)-DP" is found, one that only mentions privacy is not.
    assert audit_report.CLAIM.search("Release the mean: (ε, δ)-DP by the Gaussian mechanism.")
    assert audit_report.CLAIM.search("DP-SGD: each step is ρ-zCDP")
    assert not audit_report.CLAIM.search("The privacy term of the rate (shape only).")
    assert "dpteach.peeling.peel" in audit_report.claimed_private_routines()


def test_full_audit_results_are_complete_and_stay_below_the_claims():
    full = audit_report.load_full()
    assert full is not None, "run `make audit` and commit benchmarks/audit_full.json"
    rows = {(r["name"], r["variant"]): r for r in full["rows"]}
    for entry in registry.CASES:
        for variant in ("correct", "broken") if registry.has_broken(entry) else ("correct",):
            row = rows.get((entry.name, variant))
            assert row is not None, f"{entry.name}/{variant} missing from the full run: rerun `make audit`"
            # same settings as the registry's today, else the full run is stale
            assert (row["n_trials"], row["confidence"]) == (entry.full.n_trials, entry.full.confidence)
            assert (row["epsilon"], row["delta"]) == (entry.epsilon, entry.delta)
            assert audit_report.verdict(row) == "ok", row


def test_extreme_record_rows_are_all_ok_and_a_failure_shows_on_the_page(quick_rows, extreme_rows):
    assert len(extreme_rows) == len(registry.CASES) * len(registry.EXTREME_VALUES)
    assert all(audit_report.extreme_verdict(r) == "ok" for r in extreme_rows)
    bad = dict(extreme_rows[0], refused=None, finite=False)
    assert audit_report.extreme_verdict(bad) == "FAIL"
    assert "FAILURES" in audit_report.render(quick_rows, None, [bad] + extreme_rows[1:])


def test_committed_page_is_up_to_date(quick_rows, extreme_rows):
    text = audit_report.render(quick_rows, audit_report.load_full(), extreme_rows)
    assert audit_report.PAGE.read_text(encoding="utf-8") == text, "book/privacy_audit.md is stale: run `make pages`"
