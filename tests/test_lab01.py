"""Tests of the Lab 1 checkers (dpteach.labs.lab01) and of the generated student notebook.

Every checker must accept a correct reference solution (defined here, not
taken from the notebook, so a broken notebook cannot make a checker look
right) and reject the typical wrong answers with a hint that names the bug.
The checkers' statistical tests run at false-alarm rate 1e-6 with fixed
seeds, so these tests are deterministic; the derivations of why a 30 %
scale error is rejected are in the comments of dpteach/labs/lab01.py.
"""

import functools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import special

from dpteach import mechanisms
from dpteach.labs import BEGIN, LabCheckError, lab01
from lab_helpers import check_student_version, code_cells

NOTEBOOK = Path(__file__).resolve().parents[1] / "book" / "labs" / "solutions" / "lab01_mechanisms.ipynb"


# --- reference solutions and typical wrong answers ---------------------------------------------

def laplace_with_scale(scale_of):
    """A Laplace mechanism whose noise scale is ``scale_of(Δ, ε)``."""
    def mechanism(value, sensitivity, epsilon, rng):
        rng = np.random.default_rng(rng)
        value = np.asarray(value, dtype=float)
        return value + rng.laplace(0.0, scale_of(sensitivity, epsilon), size=value.shape)
    return mechanism


laplace_right = laplace_with_scale(lambda d, e: d / e)


def laplace_gaussian_noise(value, sensitivity, epsilon, rng):
    rng = np.random.default_rng(rng)
    value = np.asarray(value, dtype=float)
    return value + rng.normal(0.0, sensitivity / epsilon, size=value.shape)


def laplace_one_noise_for_all(value, sensitivity, epsilon, rng):
    return np.asarray(value, dtype=float) + np.random.default_rng(rng).laplace(0.0, sensitivity / epsilon)


def laplace_scalar_only(value, sensitivity, epsilon, rng):
    return float(value) + np.random.default_rng(rng).laplace(0.0, sensitivity / epsilon)


def laplace_global_rng(value, sensitivity, epsilon, rng):
    value = np.asarray(value, dtype=float)
    return value + np.random.laplace(0.0, sensitivity / epsilon, size=value.shape)


def laplace_fixed_seed(value, sensitivity, epsilon, rng):
    value = np.asarray(value, dtype=float)
    return value + np.random.default_rng(0).laplace(0.0, sensitivity / epsilon, size=value.shape)


def laplace_forgets_value(value, sensitivity, epsilon, rng):
    return np.random.default_rng(rng).laplace(0.0, sensitivity / epsilon, size=np.shape(value))


def laplace_one_sided(value, sensitivity, epsilon, rng):
    value = np.asarray(value, dtype=float)
    return value + np.random.default_rng(rng).exponential(sensitivity / epsilon, size=value.shape)


def laplace_via_dpteach(value, sensitivity, epsilon, rng):
    return mechanisms.laplace_mechanism(value, sensitivity, epsilon, rng)


def laplace_not_implemented(value, sensitivity, epsilon, rng):
    raise NotImplementedError


def classic_sigma_right(sensitivity, epsilon, delta):
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


def analytic_sigma_bisection(sensitivity, epsilon, delta, ratio=1e-12, end="high"):
    """Bisection on gaussian_delta; ``end`` chooses which point is returned (to build bugs)."""
    def too_small(sigma):
        return mechanisms.gaussian_delta(sigma, sensitivity, epsilon) > delta

    low = high = float(sensitivity)
    while not too_small(low):
        low /= 2
    while too_small(high):
        high *= 2
    while high / low > 1 + ratio:
        middle = math.sqrt(low * high)
        low, high = (middle, high) if too_small(middle) else (low, middle)
    return {"high": high, "low": low, "middle": math.sqrt(low * high)}[end]


def exponential_softmax(factor=0.5, negate=False):
    """Stable exponential mechanism with logits ±factor·ε·s/Δ (factor ½ is the right one)."""
    def mechanism(scores, sensitivity, epsilon, rng):
        rng = np.random.default_rng(rng)
        logits = factor * epsilon * np.asarray(scores, dtype=float) / sensitivity
        logits = -logits if negate else logits
        weights = np.exp(logits - logits.max())
        return int(rng.choice(logits.size, p=weights / weights.sum()))
    return mechanism


exponential_right = exponential_softmax()


def exponential_gumbel(scores, sensitivity, epsilon, rng):
    logits = epsilon * np.asarray(scores, dtype=float) / (2 * sensitivity)
    return int(np.argmax(logits + np.random.default_rng(rng).gumbel(size=logits.size)))


def exponential_naive(scores, sensitivity, epsilon, rng):
    weights = np.exp(epsilon * np.asarray(scores, dtype=float) / (2 * sensitivity))
    return int(np.random.default_rng(rng).choice(weights.size, p=weights / weights.sum()))


def exponential_clipped_logits(scores, sensitivity, epsilon, rng):
    # "Fixes" overflow by clipping the logits: right for moderate scores, wrong for huge ones.
    logits = np.clip(epsilon * np.asarray(scores, dtype=float) / (2 * sensitivity), -700, 700)
    weights = np.exp(logits)
    return int(np.random.default_rng(rng).choice(weights.size, p=weights / weights.sum()))


def exponential_argmax(scores, sensitivity, epsilon, rng):
    return int(np.argmax(scores))


def exponential_returns_array(scores, sensitivity, epsilon, rng):
    return np.array([exponential_right(scores, sensitivity, epsilon, rng)])


def audit_right():
    dataset = np.zeros(10)
    neighbour = dataset.copy()
    neighbour[0] = 10.0
    return dataset, neighbour, lambda outputs: outputs > 5.0


# --- Task 1: Laplace ------------------------------------------------------------------------------

def test_laplace_checker_accepts_reference_solution(capsys):
    lab01.check_laplace_mechanism(laplace_right)
    assert "all checks passed" in capsys.readouterr().out


def test_laplace_candidate_bug_scales_are_distinguishable_at_each_setting():
    # The diagnosis names a bug when the measured scale is within 5 % of it; that is
    # unambiguous only if the candidates (and the right scale Δ/ε) are > 10 % apart.
    for sensitivity, epsilon in lab01.LAPLACE_SETTINGS:
        scales = [sensitivity / epsilon] + [f(sensitivity, epsilon) for _, f, _ in lab01._LAPLACE_BUGS]
        logs = np.sort(np.log(scales))
        assert np.min(np.diff(logs)) > math.log(1.25)


@pytest.mark.parametrize("scale_of, named", [
    (lambda d, e: d / (2 * e), r"Δ/\(2ε\)"),
    (lambda d, e: 1 / (2 * e), r"1/\(2ε\)"),
    (lambda d, e: 2 * d / e, r"2Δ/ε"),
    (lambda d, e: e / d, r"ε/Δ"),
    (lambda d, e: 1 / e, r"ignores the sensitivity"),
    (lambda d, e: d * e, r"multiplied by ε"),
])
def test_laplace_checker_names_wrong_scale(scale_of, named):
    with pytest.raises(LabCheckError, match=named):
        lab01.check_laplace_mechanism(laplace_with_scale(scale_of))


@pytest.mark.parametrize("factor", [1.3, 1 / 1.3])
def test_laplace_checker_rejects_scale_thirty_percent_off(factor):
    # The lab01 comment derives it: KS distance 0.048 vs critical value 0.019 at n = 20 000.
    with pytest.raises(LabCheckError, match=r"× Δ/ε"):
        lab01.check_laplace_mechanism(laplace_with_scale(lambda d, e: factor * d / e))


def test_laplace_checker_recognises_gaussian_noise():
    with pytest.raises(LabCheckError, match="looks Gaussian"):
        lab01.check_laplace_mechanism(laplace_gaussian_noise)


@pytest.mark.parametrize("wrong, hint", [
    (laplace_one_noise_for_all, "same noise"),
    (laplace_scalar_only, "size=np.shape"),
    (laplace_global_rng, "same seed"),
    (laplace_fixed_seed, "different seeds"),
    (laplace_forgets_value, "not centred"),
    (laplace_one_sided, "symmetric"),
    (laplace_via_dpteach, "yourself"),
    (mechanisms.laplace_mechanism, "yourself"),
    (laplace_not_implemented, "not implemented"),
])
def test_laplace_checker_rejects_structural_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab01.check_laplace_mechanism(wrong)


# --- Tasks 2 and 3: Gaussian σ -----------------------------------------------------------------

def test_classic_sigma_checker_accepts_reference_solution(capsys):
    lab01.check_gaussian_sigma(classic_sigma_right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda d, e, dl: d * 2 * math.log(1.25 / dl) / e, "square root is missing"),
    (lambda d, e, dl: d * math.sqrt(2 * math.log(1 / dl)) / e, r"ln\(1/δ\)"),
    (lambda d, e, dl: math.sqrt(2 * math.log(1.25 / dl)) / e, "Δ is missing"),
    (lambda d, e, dl: d * math.sqrt(2 * math.log(1.25 / dl)) / e**2, "ε²"),
    (lambda d, e, dl: d * math.sqrt(2 * math.log(1.25 * dl)) / e, "ln"),  # sqrt of a negative: nan
    (lambda d, e, dl: 1.0001 * classic_sigma_right(d, e, dl), "check each factor"),
    (mechanisms.gaussian_sigma, "yourself"),
])
def test_classic_sigma_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab01.check_gaussian_sigma(wrong)


def test_analytic_sigma_checker_accepts_bisection(capsys):
    lab01.check_gaussian_sigma_analytic(analytic_sigma_bisection)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda d, e, dl: analytic_sigma_bisection(d, e, dl, ratio=1e-3, end="low"), r"not \(ε, δ\)-DP"),
    (lambda d, e, dl: analytic_sigma_bisection(d, e, dl, ratio=1e-3), "bisect longer"),
    (lambda d, e, dl: analytic_sigma_bisection(1.0, e, dl), "Δ = 1"),
    (lambda d, e, dl: d * math.sqrt(2 * math.log(1.25 / dl)) / e, "classic formula"),
    (lambda d, e, dl: 0.5 * analytic_sigma_bisection(d, e, dl), "far too small"),
])
def test_analytic_sigma_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab01.check_gaussian_sigma_analytic(wrong)


# --- Task 4: exponential mechanism ---------------------------------------------------------------

@pytest.mark.parametrize("right", [exponential_right, exponential_gumbel])
def test_exponential_checker_accepts_softmax_and_gumbel_max(right, capsys):
    # No wall-clock assertion here: it failed on a busy machine. The checker's draw count is fixed
    # (N_DRAWS per setting), so its cost does not grow; `make bench` times the lab notebooks.
    lab01.check_exponential_mechanism(right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (exponential_softmax(factor=1.0), "factor 2 is missing"),
    (exponential_softmax(negate=True), "negated"),
    (exponential_softmax(factor=0.25), "2, not 4"),
    (exponential_softmax(factor=0.5 * 1.3), "do not match"),   # ε 30 % too large
    (exponential_softmax(factor=0.5 / 1.3), "do not match"),   # ε 30 % too small
    (exponential_argmax, "argmax"),
    (exponential_naive, "overflow"),
    (exponential_clipped_logits, "best candidate should win"),
    (exponential_returns_array, "one integer index"),
    (mechanisms.exponential_mechanism, "yourself"),
])
def test_exponential_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab01.check_exponential_mechanism(wrong)


def test_exponential_bug_distributions_differ_from_the_right_one():
    # Each named bug must give a distribution far from softmax(ε s/(2Δ)) (non-centrality
    # n·Σ(p'−p)²/p > 200 at n = 20 000), else its hint could fire for a correct answer.
    exact = special.softmax(lab01._EM_EPSILON * lab01._EM_SCORES / (2 * lab01._EM_SENSITIVITY))
    for _, factor in lab01._EM_BUGS:
        bug = special.softmax(lab01._EM_EPSILON * factor * lab01._EM_SCORES)
        assert lab01.N_DRAWS * np.sum((bug - exact) ** 2 / exact) > 200


# --- Task 5: audit ----------------------------------------------------------------------------

def test_audit_checker_accepts_reference_solution(capsys):
    lab01.check_audit(audit_right)
    out = capsys.readouterr().out
    assert "all checks passed" in out
    assert "clipped version" in out


def test_audit_mechanisms_are_what_they_claim():
    # The clipped version is the ε = 1 Laplace mechanism on a sum of sensitivity 1, so a
    # record moved from 0 to 10 changes its output distribution not at all beyond 1;
    # the unclipped one shifts by 10.
    d, d_prime = np.zeros(5), np.array([10.0, 0, 0, 0, 0])
    # The mean of 20 000 Lap(1) draws has sd sqrt(2/20 000) = 0.01: ±0.1 is a 10-sigma band,
    # while the two claims differ by 9.
    assert np.mean(lab01.clipped_noisy_sum(d_prime, 20_000, 0)) == pytest.approx(1.0, abs=0.1)
    assert np.mean(lab01.unclipped_noisy_sum(d_prime, 20_000, 0)) == pytest.approx(10.0, abs=0.1)
    assert np.mean(lab01.unclipped_noisy_sum(d, 20_000, 0)) == pytest.approx(0.0, abs=0.1)


@pytest.mark.parametrize("answer, hint", [
    ((np.zeros(10), np.r_[1.0, np.zeros(9)], lambda o: o > 0.5), r"outside \[0, 1\]"),
    ((np.zeros(10), np.r_[10.0, 10.0, np.zeros(8)], lambda o: o > 5.0), "exactly one record"),
    ((np.zeros(10), np.r_[10.0, np.zeros(9)], lambda o: o > 1e9), "does not separate"),
    ((np.zeros(10), np.zeros(11), lambda o: o > 5.0), "same length"),
    ((np.zeros(10), np.r_[10.0, np.zeros(9)], lambda o: True), "one boolean per release"),
    ((np.zeros(10), np.r_[10.0, np.zeros(9)]), "tuple"),
])
def test_audit_checker_rejects_weak_or_invalid_audits(answer, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab01.check_audit(lambda: answer)


# --- the notebook and its student version -------------------------------------------------------

DUMMY_ARGUMENTS = {"value": 0.0, "sensitivity": 1.0, "epsilon": 1.0, "delta": 1e-5, "rng": 0,
                   "scores": np.zeros(3), "lower": -1.0, "upper": 1.0, "neighbours": "replace-one",
                   "epsilon_prime": 0.5}


def test_lab_notebook_has_tasks_calling_lab01_checkers_and_no_outputs():
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    assert all(not c.get("outputs") for c in notebook["cells"] if c["cell_type"] == "code")
    sources = code_cells(NOTEBOOK)
    task_cells = [s for s in sources if BEGIN in s]
    assert len(task_cells) >= 3
    checkers = {name for name in lab01.__all__ if name.startswith("check_")}
    called = {name for s in sources for name in checkers if f"lab01.{name}(" in s}
    assert called == checkers  # every checker is used by the lab
    assert not any("dpteach.mechanisms import" in s and "gaussian_delta" not in s for s in sources)


def test_student_version_has_no_solutions_and_raises(tmp_path):
    check_student_version(NOTEBOOK, lab01, DUMMY_ARGUMENTS, tmp_path)


# --- issue table: wrong answers that used to pass or got a misleading hint → the hint for their mistake

def laplace_clipped(value, sensitivity, epsilon, rng):
    b = sensitivity / epsilon
    value = np.asarray(value, dtype=float)
    return value + np.clip(np.random.default_rng(rng).laplace(0.0, b, size=value.shape), -5 * b, 5 * b)


def laplace_clipped_far(value, sensitivity, epsilon, rng):
    # Clipped at 10b: no draw of the 20 000 KS draws is affected at all (e^{−10}·20 000 = 0.9 expected).
    b = sensitivity / epsilon
    value = np.asarray(value, dtype=float)
    return value + np.clip(np.random.default_rng(rng).laplace(0.0, b, size=value.shape), -10 * b, 10 * b)


def laplace_tail_redrawn(value, sensitivity, epsilon, rng):
    # A redrawn tail: draws beyond 6b are replaced by fresh draws until all lie within ±6b.
    b = sensitivity / epsilon
    value = np.asarray(value, dtype=float)
    noise = rng.laplace(0.0, b, size=value.shape)
    while np.any(np.abs(noise) > 6 * b):
        far = np.abs(noise) > 6 * b
        noise[far] = rng.laplace(0.0, b, size=int(far.sum()))
    return value + noise


def laplace_clipped_absolute(value, sensitivity, epsilon, rng):
    # Clipped at a fixed ±100 (not a multiple of b): 100 < 11.88·b = 142.6 at the first setting (b = 12).
    value = np.asarray(value, dtype=float)
    return value + np.clip(rng.laplace(0.0, sensitivity / epsilon, size=value.shape), -100, 100)


def laplace_rounded(value, sensitivity, epsilon, rng):
    return np.round(laplace_right(value, sensitivity, epsilon, rng), 1)


def laplace_string(value, sensitivity, epsilon, rng):
    out = laplace_right(value, sensitivity, epsilon, rng)
    return f"{float(out):.4f}" if np.ndim(out) == 0 else out


def laplace_import_inside(value, sensitivity, epsilon, rng):
    from dpteach.mechanisms import laplace_mechanism
    return laplace_mechanism(value, sensitivity, epsilon, rng)


def laplace_import_module_inside(value, sensitivity, epsilon, rng):
    import dpteach.mechanisms as m
    return m.laplace_mechanism(value, sensitivity, epsilon, rng)


def _helper_calls_library(value, sensitivity, epsilon, rng):
    return mechanisms.laplace_mechanism(value, sensitivity, epsilon, rng)


def laplace_via_helper(value, sensitivity, epsilon, rng):
    return _helper_calls_library(value, sensitivity, epsilon, rng)


def laplace_default_argument(value, sensitivity, epsilon, rng, release=mechanisms.laplace_mechanism):
    return release(value, sensitivity, epsilon, rng)


LAB01_WRONG_ANSWERS = [  # (checker, wrong answer, expected hint fragment)
    (lab01.check_laplace_mechanism, laplace_clipped, "clipped or truncated"),
    (lab01.check_laplace_mechanism, laplace_clipped_far, "clipped or truncated"),
    (lab01.check_laplace_mechanism, laplace_tail_redrawn, "clipped or truncated"),
    (lab01.check_laplace_mechanism, laplace_clipped_absolute, "clipped or truncated"),
    (lab01.check_laplace_mechanism, laplace_rounded, "rounded"),
    (lab01.check_laplace_mechanism, laplace_string, "not its text"),
    (lab01.check_laplace_mechanism, laplace_import_inside, "write this yourself"),
    (lab01.check_laplace_mechanism, laplace_import_module_inside, "write this yourself"),
    (lab01.check_laplace_mechanism, laplace_via_helper, "write this yourself"),
    (lab01.check_laplace_mechanism, laplace_default_argument, "write this yourself"),
    (lab01.check_laplace_mechanism, functools.partial(mechanisms.laplace_mechanism), "write this yourself"),
    (lab01.check_gaussian_sigma, lambda d, e, dl: str(classic_sigma_right(d, e, dl)), "real number"),
    (lab01.check_gaussian_sigma_analytic, lambda d, e, dl: analytic_sigma_bisection(d, e / 2, dl), "ε/2"),
    (lab01.check_gaussian_sigma_analytic, lambda d, e, dl: analytic_sigma_bisection(d, e, dl / 2), "δ/2"),
    (lab01.check_gaussian_sigma_analytic, lambda d, e, dl: analytic_sigma_bisection(d, 2 * e, dl), "2ε"),
    (lab01.check_gaussian_sigma_analytic, lambda d, e, dl: analytic_sigma_bisection(d, e, dl, ratio=1e-3, end="low"),
     r"δ\(σ\) = \d\.\d{6}e-\d+ > δ = \d\.\d{6}e-\d+"),   # enough digits to see the excess
    (lab01.check_exponential_mechanism, lambda s, d, e, rng: float(exponential_right(s, d, e, rng)), "one integer"),
    # a converged bisection that returns its lower (non-private) end: at Δ = 1 it used to be told "pass the
    # sensitivity on", the hint for σ computed with Δ = 1, which there is the right σ
    (lab01.check_gaussian_sigma_analytic, lambda d, e, dl: analytic_sigma_bisection(d, e, dl, end="low"),
     "return the end of your bisection bracket on which δ\\(σ\\) <= δ"),
]


def test_tail_test_threshold_has_the_derived_false_alarm_rate():
    # (1 − e^{−t₀})^N = FALSE_ALARM: the probability that N Laplace draws all stay below t₀·b.
    t0, n = lab01.TAIL_MULTIPLE, lab01.TAIL_DRAWS
    assert n * np.log1p(-np.exp(-t0)) == pytest.approx(np.log(lab01.FALSE_ALARM), rel=1e-9)
    assert 11.8 < t0 < 12.0


@pytest.mark.parametrize("checker, wrong, hint", LAB01_WRONG_ANSWERS)
def test_lab01_wrong_answer_table(checker, wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        checker(wrong)


# --- Tasks 6 and 7: derivations the chapter does not print (issue 22) ----------------------------

def clipped_sum_sensitivity_right(lower, upper, neighbours):
    return upper - lower if neighbours == "replace-one" else max(abs(lower), abs(upper))


def laplace_delta_right(sensitivity, epsilon, epsilon_prime):
    return max(0.0, 1.0 - math.exp((epsilon_prime - epsilon) / 2))


def test_derivation_checkers_accept_the_reference(capsys):
    lab01.check_clipped_sum_sensitivity(clipped_sum_sensitivity_right)
    lab01.check_laplace_delta(laplace_delta_right)
    assert capsys.readouterr().out.count("all checks passed") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda lo, hi, rel: hi - lo, "one record more or fewer"),                              # replace-one everywhere
    (lambda lo, hi, rel: max(abs(lo), abs(hi)), "difference of two values"),                # add/remove everywhere
    (lambda lo, hi, rel: 2 * max(abs(lo), abs(hi)) if rel == "replace-one" else max(abs(lo), abs(hi)),
     "valid bound but not the maximum"),                                                    # add/remove counted twice
    (lambda lo, hi, rel: hi - lo if rel == "replace-one" else abs(hi), r"\|lower\| counts"),  # forgot negative records
    # |lower| + |upper| is the replace-one answer when 0 lies in between, where it is add/remove's first slip
    (lambda lo, hi, rel: abs(lo) + abs(hi), r"one record more or fewer|\|lower\| \+ \|upper\|"),
    (lambda lo, hi, rel: str(hi - lo), "Return the number itself"),
])
def test_clipped_sum_sensitivity_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab01.check_clipped_sum_sensitivity(wrong)


@pytest.mark.parametrize("wrong, hint", [
    (lambda d, e, ep: 1 - math.exp((ep - e) / 2), "return 0, not a negative number"),
    (lambda d, e, ep: max(0.0, 1 - math.exp(ep - e)), "falls \\*linearly\\*"),
    (lambda d, e, ep: max(0.0, 1 - 0.5 * math.exp((ep - e) / 2)) if ep < e else 0.0, r"Pr\[L > ε′\] alone"),
    (lambda d, e, ep: d * max(0.0, 1 - math.exp((ep - e) / 2)), "does not depend on Δ"),
    (lambda d, e, ep: 1 - math.exp(-e / 2), "total-variation distance"),
])
def test_laplace_delta_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab01.check_laplace_delta(wrong)


def test_derivation_hints_point_first_and_give_the_formula_only_after_repeated_tries(monkeypatch):
    from dpteach.labs import checking

    monkeypatch.setattr(checking, "_failed_tries", checking.collections.Counter())
    for checker, wrong, formula in (
            (lab01.check_clipped_sum_sensitivity, lambda lo, hi, rel: 3.0 * (hi - lo), "max(|lower|, |upper|)"),
            (lab01.check_laplace_delta, lambda d, e, ep: 0.123, "1 − e^{(ε′ − ε)/2}")):
        messages = []
        for _ in range(checking.FORMULA_AFTER):
            with pytest.raises(LabCheckError) as caught:
                checker(wrong)
            messages.append(str(caught.value))
        assert all("Definition 1.5" in m or "Lemma 1.4" in m for m in messages)
        assert all(formula not in m for m in messages[:-1])
        assert formula in messages[-1]


def test_laplace_delta_reference_is_the_integral_of_lemma_1_4():
    # The checker's reference integrates numerically; it must agree with the closed form it never uses.
    from dpteach.labs import lab01_derivations

    for case in lab01_derivations._laplace_delta_cases():
        assert abs(lab01_derivations._integrated_laplace_delta(*case) - laplace_delta_right(*case)) < 1e-9
