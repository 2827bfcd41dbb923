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


#: Public routines whose docstrings say "-DP" (the audit report's CLAIM pattern) but that release nothing, so they
#: declare no privacy claim: accountants and calibrations, exact laws, bounds and comparisons. A routine that says
#: it is private must declare its claim (``@privacy_claim``) or be listed here with the reason.
RELEASE_NOTHING = {
    # chapter 10's runner and its preprocessing: they fit the learners (whose claims are declared) and say
    # plainly that the standardisation is not private; they release nothing of their own
    "dpteach.experiments.real_data.run": "experiment runner over declared learners (tests/test_claims.py, ch10)",
    "dpteach.experiments.real_data.split_and_scale": "benchmark preprocessing, documented as not private",
    # accountants and calibrations: formulas, checked by closed forms and round trips in their tests
    "dpteach.mechanisms.gaussian_sigma": "calibration formula (tests/test_mechanisms.py round trips)",
    "dpteach.mechanisms.gaussian_delta": "calibration formula (tests/test_mechanisms.py round trips)",
    "dpteach.mechanisms.gaussian_epsilon": "accountant: Theorem 1.10 inverted (tests/test_accounting_oracle.py)",
    "dpteach.mechanisms.exponential_mechanism_probabilities": "exact law; its sampler is audited",
    "dpteach.composition.advanced_composition": "accountant (tests/test_composition.py)",
    "dpteach.composition.heterogeneous_advanced_composition": "accountant (tests/test_composition.py)",
    "dpteach.composition.pld_epsilon": "tight accountant (dp-accounting's PLD; tests/test_accounting_oracle.py)",
    "dpteach.dp_sgd_poisson.poisson_sgd_epsilon": "accountant (PLD; tests/test_dp_sgd_poisson.py)",
    "dpteach.dp_sgd_poisson.poisson_sgd_sigma": "calibration of Poisson DP-SGD (tests/test_dp_sgd_poisson.py)",
    "dpteach.dp_erm.zcdp_rho": "accountant (tests/test_dp_erm.py)",
    "dpteach.dp_erm.zcdp_epsilon": "accountant (tests/test_dp_erm.py)",
    "dpteach.dp_erm.dp_erm_sigma": "calibration of the audited DP-ERM step",
    "dpteach.regression.dp_gradient_descent_sigma": "calibration of the audited DP-GD step",
    "dpteach.regression.noisy_ols_noise_std": "calibration of noisy_ols on its event",
    "dpteach.peeling.peeling_epsilon": "accountant of the audited Peeling",
    "dpteach.peeling.peeling_noise_scale": "calibration of the audited Peeling",
    "dpteach.dpsas_steps.dpsas_noise_sigma": "calibration of the audited DPSAS round",
    "dpteach.dp_logistic.dp_sgd_sigma": "calibration of the audited DP-SGD step",
    # simulations, bounds, exact laws and attacks of the chapters' figures
    "dpteach.experiments.basics.composition_noise_sweep": "a simulation of k audited Gaussian mechanisms",
    "dpteach.experiments.table1.fit_learner": "fits one of the audited learners or a production peer (chapter 9)",
    "dpteach.experiments.table1.unit_ball_rows": "a fixed public row-by-row map, not a release",
    "dpteach.fingerprinting.dp_roc_envelope": "a bound every (ε, δ)-DP test obeys, not a release",
    "dpteach.experiments.generic.neighbour_privacy_losses": "exact privacy losses of the audited generic learner",
    "dpteach.experiments.generic.packing_success_probabilities": "exact success probabilities (Theorem 2.12's figure)",
    "dpteach.float_attack.max_guess_success": "a bound every (ε, δ)-DP test obeys (Theorem A.1), not a release",
    "dpteach.experiments.production_laws.permute_and_flip_probabilities": "exact law of OpenDP's noisy max",
    "dpteach.experiments.production.exponential_mechanism_rows": "χ² tests of three libraries' samplers",
    "dpteach.experiments.production_attack.floating_point_attack": "an attack with its own certified audit",
    "dpteach.attack_targets.noisy_mean": "a non-private baseline of chapter 4 (noise of a given sd)",
    "dpteach.attack_targets.noisy_ols": "a non-private baseline of chapter 4 (noise of a given sd)",
    # chapter 3's devices: a base class, a factory, and the deliberately wrong simulation the ledger exposes
    "dpteach.randomizers.LocalRandomizer": "abstract base of the audited randomizers (each declares its claim)",
    "dpteach.randomizers.make_randomizer": "returns one of the audited randomizers",
    "dpteach.local.ReusingLocalSQOracle": "deliberately wrong: only tε-local, as its ledger reports",
}


def test_every_declared_claim_is_audited_or_explained():
    # A new private routine declares its claim (@privacy_claim) and fails here until it gets a registry entry
    # (an audit) or a NOT_AUDITED line saying which audited steps its claim rests on.
    claimed = audit_report.claimed_private_routines()
    covered = {name for entry in registry.CASES for name in entry.routines}
    missing = sorted(set(claimed) - covered - set(registry.NOT_AUDITED))
    assert not missing, f"private routines with neither an audit nor a reason: {missing}"
    assert not covered & set(registry.NOT_AUDITED)
    # the registry audits and excuses declared claims only, and its entries agree with the declarations
    undeclared = sorted((covered | set(registry.NOT_AUDITED)) - set(claimed))
    assert not undeclared, f"registry names routines that declare no privacy claim: {undeclared}"
    for entry in registry.CASES:
        for name in entry.routines:
            declared_delta = claimed[name].delta
            if isinstance(declared_delta, (int, float)) and declared_delta == 0:
                assert entry.delta == 0, f"{entry.name}: {name} declares pure DP, the audit claims δ = {entry.delta}"
    # The list: every mechanism, randomizer, learner step, Peeling, DP-ERM, correlations, DPSAS steps.
    required = {"laplace_mechanism", "gaussian_mechanism", "randomized_response", "exponential_mechanism",
                "report_noisy_max", "LaplaceRandomizer", "RandomizedResponse", "OneBitRandomizer",
                "generic_private_learner", "peel", "noisy_average_subgradient", "private_hermite_correlations",
                "private_threshold", "private_initial_direction", "dpsas_round", "clipped_gaussian_mean"}
    assert required <= {name.rsplit(".", 1)[1] for name in covered}


def test_a_routine_that_says_it_is_private_declares_its_claim():
    # The lint behind the declarations: a docstring that says "ε-DP" belongs to a routine that declares its
    # claim, or to an accountant, a bound or a device that releases nothing (RELEASE_NOTHING, with the reason).
    said = audit_report.docstring_claims()
    claimed = audit_report.claimed_private_routines()
    undeclared = sorted(set(said) - set(claimed) - set(RELEASE_NOTHING))
    assert not undeclared, f"docstrings claim DP but the routines declare no @privacy_claim: {undeclared}"
    assert not set(RELEASE_NOTHING) & set(claimed), "a routine that declares a claim releases something"
    for name in RELEASE_NOTHING:
        assert resolve(name) is not None, f"RELEASE_NOTHING names {name}, which does not exist"
    assert audit_report.CLAIM.search("Release the mean: (ε, δ)-DP by the Gaussian mechanism.")
    assert audit_report.CLAIM.search("DP-SGD: each step is ρ-zCDP")
    assert not audit_report.CLAIM.search("The privacy term of the rate (shape only).")
    assert "dpteach.peeling.peel" in claimed


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
    # "nothing to audit": a pair that rounds to one double or has one sure output (issue 29 item 6), never
    # the registry's own pair
    assert all(audit_report.extreme_verdict(r) in ("ok", "nothing to audit") for r in extreme_rows)
    assert all(audit_report.extreme_verdict(r) == "ok" for r in extreme_rows if r["value"] == "bound")
    bad = dict(extreme_rows[0], refused=None, finite=False)
    assert audit_report.extreme_verdict(bad) == "FAIL"
    assert "FAILURES" in audit_report.render(quick_rows, None, [bad] + extreme_rows[1:])


def test_committed_page_is_up_to_date(quick_rows, extreme_rows):
    text = audit_report.render(quick_rows, audit_report.load_full(), extreme_rows)
    assert audit_report.PAGE.read_text(encoding="utf-8") == text, "book/privacy_audit.md is stale: run `make pages`"
