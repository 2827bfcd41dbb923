"""Tests of dpteach.mechanisms: samplers, calibrations, selection mechanisms, bad input.

Goodness-of-fit tests run at a false-alarm rate of 1e-6 against scales that
the test computes itself from the theorem (never from the code under test),
and each is paired with a broken variant (a scale 30 % off, half the noise,
a missing factor 2) that the same test must reject.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from dpteach import mechanisms as m

FALSE_ALARM = 1e-6


# --- Laplace -----------------------------------------------------------------

def _ks_pvalue(samples, distribution):
    return stats.kstest(samples, distribution.cdf).pvalue


@pytest.mark.parametrize("sensitivity, epsilon", [(1.0, 1.0), (2.0, 0.25), (0.5, 5.0)])
def test_laplace_noise_has_scale_sensitivity_over_epsilon(sensitivity, epsilon):
    # n = 20_000 draws. Against the right scale the KS p-value is uniform, so it
    # falls below 1e-6 with probability 1e-6. Against a scale 30 % off the KS
    # distance is 0.048 (max over x of |F_b − F_1.3b|, computed by hand: at
    # x = 1.137 b), far above the 1e-6 critical value sqrt(ln(2/1e-6)/(2n)) = 0.019.
    rng = np.random.default_rng(2024)
    noise = m.laplace_mechanism(np.zeros(20_000), sensitivity, epsilon, rng)
    scale = sensitivity / epsilon
    assert _ks_pvalue(noise, stats.laplace(scale=scale)) > FALSE_ALARM
    assert _ks_pvalue(noise, stats.laplace(scale=1.3 * scale)) < FALSE_ALARM
    assert _ks_pvalue(noise, stats.laplace(scale=scale / 1.3)) < FALSE_ALARM


def test_laplace_test_catches_half_the_noise():
    # The same KS test, applied to a broken mechanism with scale Δ/(2ε), rejects it.
    rng = np.random.default_rng(7)
    broken = rng.laplace(0.0, 0.5, size=20_000)
    assert _ks_pvalue(broken, stats.laplace(scale=1.0)) < FALSE_ALARM


def test_laplace_adds_noise_around_the_value_and_keeps_shape():
    value = np.array([[10.0, -3.0], [0.0, 7.5]])
    out = m.laplace_mechanism(value, 1.0, 1.0, rng=0)
    assert out.shape == value.shape and not np.array_equal(out, value)
    many = m.laplace_mechanism(np.full(40_000, 10.0), 1.0, 1.0, rng=1)
    # mean of 40k Lap(1) draws: sd sqrt(2/40k) = 0.0071; 6-sigma band.
    assert abs(many.mean() - 10.0) < 6 * math.sqrt(2 / 40_000)
    assert isinstance(m.laplace_mechanism(3.0, 1.0, 1.0, rng=0), float)


def test_laplace_same_seed_same_result():
    assert m.laplace_mechanism(1.0, 1.0, 0.5, rng=42) == m.laplace_mechanism(1.0, 1.0, 0.5, rng=42)


# --- Gaussian: calibration ---------------------------------------------------

def _balle_wang_delta(sigma, sensitivity, epsilon):
    """δ(σ) of the Gaussian mechanism, written from the theorem with scipy.stats (independent code)."""
    a, b = sensitivity / (2 * sigma), epsilon * sigma / sensitivity
    return stats.norm.cdf(a - b) - math.exp(epsilon) * stats.norm.cdf(-a - b)


def test_classic_sigma_is_the_textbook_formula():
    for sensitivity, epsilon, delta in [(1, 0.5, 1e-5), (3, 0.1, 1e-8), (0.2, 0.99, 0.01)]:
        expected = sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon
        assert m.gaussian_sigma(sensitivity, epsilon, delta, method="classic") == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("epsilon", [1.0, 1.5, 10.0])
def test_classic_sigma_refuses_epsilon_at_least_one(epsilon):
    with pytest.raises(ValueError, match=r"epsilon must satisfy 0 < epsilon < 1 for method='classic'"):
        m.gaussian_sigma(1.0, epsilon, 1e-5, method="classic")


@pytest.mark.parametrize("sensitivity, epsilon, delta",
                         [(1, 1, 1e-5), (1, 0.1, 1e-5), (2, 5, 1e-8), (1, 0.01, 1e-3), (0.3, 20, 1e-10)])
def test_analytic_sigma_meets_balle_wang_condition_with_equality(sensitivity, epsilon, delta):
    sigma = m.gaussian_sigma(sensitivity, epsilon, delta)
    # Feasible: δ(σ) <= δ (up to floating point of the independent formula) ...
    assert _balle_wang_delta(sigma, sensitivity, epsilon) <= delta * (1 + 1e-8)
    # ... and minimal: equality up to the solver tolerance, and a σ 1e-6 smaller is infeasible.
    assert _balle_wang_delta(sigma, sensitivity, epsilon) == pytest.approx(delta, rel=1e-6)
    assert _balle_wang_delta(sigma * (1 - 1e-6), sensitivity, epsilon) > delta


def test_gaussian_delta_matches_independent_formula():
    for sigma in (0.5, 1.0, 3.7, 20.0):
        assert m.gaussian_delta(sigma, 1.0, 1.0) == pytest.approx(_balle_wang_delta(sigma, 1.0, 1.0), rel=1e-9)


def test_analytic_sigma_is_monotone_and_never_above_classic():
    epsilons = np.geomspace(0.01, 0.99, 15)
    sig_eps = [m.gaussian_sigma(1, e, 1e-5) for e in epsilons]
    assert np.all(np.diff(sig_eps) < 0)  # more privacy budget, less noise
    deltas = np.geomspace(1e-12, 0.1, 15)
    sig_delta = [m.gaussian_sigma(1, 0.5, d) for d in deltas]
    assert np.all(np.diff(sig_delta) < 0)
    for e in epsilons:
        assert m.gaussian_sigma(1, e, 1e-5) <= m.gaussian_sigma(1, e, 1e-5, method="classic")


def test_analytic_sigma_scales_linearly_with_sensitivity():
    assert m.gaussian_sigma(4.0, 0.7, 1e-6) == pytest.approx(4 * m.gaussian_sigma(1.0, 0.7, 1e-6), rel=1e-9)


def test_analytic_sigma_checks_its_inputs_once_not_in_the_root_finder():
    # Issue 23: the root finder evaluated the self-validating gaussian_delta ~40 times per σ, which was 9 of
    # every 10 validator calls of a learner's fit. Now gaussian_sigma checks Δ, ε, δ and the method once:
    # 4 public checks, whatever the number of root-finder steps (ε = 1e3 needs a long bracket walk).
    import cProfile
    import pstats

    from dpteach import _validation
    for epsilon in (0.7, 1e3):
        profile = cProfile.Profile()
        profile.runcall(m.gaussian_sigma, 1.0, epsilon, 1e-6)
        calls = sum(record[1] for (path, _, name), record in pstats.Stats(profile).stats.items()
                    if path == _validation.__file__ and name in _validation.__all__)
        assert calls == 4, (epsilon, calls)


# --- Gaussian: sampler -------------------------------------------------------

@pytest.mark.parametrize("method, epsilon", [("classic", 0.5), ("analytic", 2.0)])
def test_gaussian_noise_has_the_calibrated_scale(method, epsilon):
    # Same KS argument as for Laplace: σ 30 % off gives a KS distance of 0.065 > 0.019.
    sensitivity, delta = 1.0, 1e-5
    if method == "classic":
        sigma = sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    else:
        sigma = m.gaussian_sigma(sensitivity, epsilon, delta)  # calibration tested separately above
    noise = m.gaussian_mechanism(np.zeros(20_000), sensitivity, epsilon, delta, rng=3, method=method)
    assert _ks_pvalue(noise, stats.norm(scale=sigma)) > FALSE_ALARM
    assert _ks_pvalue(noise, stats.norm(scale=1.3 * sigma)) < FALSE_ALARM
    assert _ks_pvalue(noise, stats.norm(scale=sigma / 1.3)) < FALSE_ALARM


# --- Randomized response -----------------------------------------------------

@pytest.mark.checks("def-randomized-response", "thm-randomized-response")
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_randomized_response_keeps_bits_with_probability_e_eps_over_one_plus_e_eps(epsilon):
    n = 100_000
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    bits = np.random.default_rng(0).integers(0, 2, n)
    out = m.randomized_response(bits, epsilon, rng=11)
    kept = np.mean(out == bits)
    # Binomial(n, keep)/n has sd sqrt(keep(1-keep)/n) <= 0.0016; a 6-sigma band.
    band = 6 * math.sqrt(keep * (1 - keep) / n)
    assert abs(kept - keep) < band
    # The same band around the keep probability of RR run at 2ε excludes what we
    # observed: the test would catch that bug (the gap is >= 0.025 > 2 bands at ε = 0.1).
    broken_keep = math.exp(2 * epsilon) / (1 + math.exp(2 * epsilon))
    assert abs(kept - broken_keep) > band


def test_randomized_response_preserves_dtype_and_shape():
    assert m.randomized_response(np.array([True, False]), 1.0, rng=0).dtype == bool
    out = m.randomized_response(np.array([[0, 1], [1, 1]]), 1.0, rng=0)
    assert out.shape == (2, 2) and set(np.unique(out)) <= {0, 1}


def test_randomized_response_huge_epsilon_keeps_everything():
    bits = np.array([0, 1, 1, 0] * 100)
    assert np.array_equal(m.randomized_response(bits, 800.0, rng=0), bits)  # expit(800) == 1, no overflow


# --- Exponential mechanism ---------------------------------------------------

def _naive_em_probabilities(scores, sensitivity, epsilon):
    """exp(ε s / 2Δ) / Σ exp(...) for small scores only (overflows otherwise): independent reference."""
    weights = np.exp(epsilon * np.asarray(scores, dtype=float) / (2 * sensitivity))
    return weights / weights.sum()


def test_em_probabilities_match_definition():
    scores = np.array([3.0, 1.0, 0.0, 2.5, -1.0])
    expected = _naive_em_probabilities(scores, 1.0, 0.8)
    assert np.allclose(m.exponential_mechanism_probabilities(scores, 1.0, 0.8), expected, rtol=1e-12)


def test_em_probabilities_survive_huge_scores():
    scores = np.array([1e6, 1e6 - 1.0, 1e6 - 3.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Underflow to 0 is the right answer for the far candidate; overflow would not be.
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            probs = m.exponential_mechanism_probabilities(scores, 1.0, 10.0)
            draw = m.exponential_mechanism(scores, 1.0, 10.0, rng=0)
    # Shift invariance: same distribution as scores (0, -1, -3, -1e6).
    assert np.allclose(probs, _naive_em_probabilities([0.0, -1.0, -3.0, -1e6], 1.0, 10.0), rtol=1e-12)
    assert draw in (0, 1, 2)


def _chi_square_pvalue(samples, probabilities):
    counts = np.bincount(samples, minlength=len(probabilities))
    return stats.chisquare(counts, len(samples) * probabilities).pvalue


def test_em_sampler_matches_exact_probabilities_and_rejects_missing_factor_two():
    scores = np.array([5.0, 4.0, 4.0, 2.0, 0.0])
    sensitivity, epsilon, n = 1.0, 1.0, 40_000
    samples = m.exponential_mechanism(scores, sensitivity, epsilon, rng=5, size=n)
    right = _naive_em_probabilities(scores, sensitivity, epsilon)
    assert _chi_square_pvalue(samples, right) > FALSE_ALARM
    # The distribution without the factor 2, exp(ε s/Δ), differs by >0.1 in the top
    # probability: with 40k samples the χ² statistic is in the thousands.
    wrong = _naive_em_probabilities(scores, sensitivity / 2, epsilon)
    assert _chi_square_pvalue(samples, wrong) < FALSE_ALARM


def test_em_single_and_batch_draws_agree_with_seed():
    scores = np.arange(6.0)
    single = m.exponential_mechanism(scores, 1.0, 1.0, rng=9)
    assert isinstance(single, int)
    assert m.exponential_mechanism(scores, 1.0, 1.0, rng=9) == single
    batch = m.exponential_mechanism(scores, 1.0, 1.0, rng=9, size=5)
    assert batch.shape == (5,) and batch[0] == single


def test_em_privacy_ratio_is_at_most_e_eps_on_worst_case_neighbours():
    # Scores moving in both directions (candidate 0 down by Δ, the rest up by Δ)
    # are the worst case; the exact probability ratio must stay <= e^ε, and
    # approach it as the number of candidates grows.
    epsilon, k = 1.0, 200
    d = np.zeros(k)
    d_prime = np.ones(k)
    d_prime[0] = -1.0
    p, q = (m.exponential_mechanism_probabilities(s, 1.0, epsilon) for s in (d, d_prime))
    worst = np.max(np.abs(np.log(p / q)))
    assert worst <= epsilon + 1e-12
    assert worst > epsilon - 0.02
    # Without the factor 2 (sensitivity halved) the same neighbours exceed e^ε.
    p_bad, q_bad = (m.exponential_mechanism_probabilities(s, 0.5, epsilon) for s in (d, d_prime))
    assert np.max(np.abs(np.log(p_bad / q_bad))) > 1.5 * epsilon


# --- Report noisy max --------------------------------------------------------

def _rnm_two_candidate_probability(gap, scale):
    """P[candidate with the higher score (by ``gap`` >= 0) wins] under Lap(scale) noise.

    The difference of two i.i.d. Lap(b) has tail P(Z > t) = e^{-t/b}(2 + t/b)/4
    for t >= 0 (integrate the density (1 + |z|/b) e^{-|z|/b} / (4b)).
    """
    return 1 - math.exp(-gap / scale) * (2 + gap / scale) / 4


def test_report_noisy_max_uses_laplace_two_delta_over_epsilon():
    epsilon, sensitivity, n = 1.0, 1.0, 60_000
    wins = np.mean(m.report_noisy_max([0.0, 1.0], sensitivity, epsilon, rng=4, size=n) == 1)
    right = _rnm_two_candidate_probability(1.0, 2 * sensitivity / epsilon)   # 0.606
    wrong = _rnm_two_candidate_probability(1.0, sensitivity / epsilon)       # 0.724 (monotone-only scale)
    sd = math.sqrt(right * (1 - right) / n)                                  # 0.002
    assert abs(wins - right) < 6 * sd
    assert abs(wins - wrong) > 6 * sd


def test_report_noisy_max_returns_argmax_for_huge_gaps():
    assert m.report_noisy_max([0.0, 1e9, 5.0], 1.0, 1.0, rng=0) == 1


# --- Bad input, every public function ----------------------------------------

BAD_EPSILONS = [0, -1, math.nan, math.inf]

CALLS = {
    "laplace_mechanism": lambda eps: m.laplace_mechanism(1.0, 1.0, eps),
    "gaussian_sigma": lambda eps: m.gaussian_sigma(1.0, eps, 1e-5),
    "gaussian_delta": lambda eps: m.gaussian_delta(1.0, 1.0, eps),
    "gaussian_mechanism": lambda eps: m.gaussian_mechanism(1.0, 1.0, eps, 1e-5),
    "randomized_response": lambda eps: m.randomized_response([0, 1], eps),
    "exponential_mechanism": lambda eps: m.exponential_mechanism([1.0, 2.0], 1.0, eps),
    "exponential_mechanism_probabilities": lambda eps: m.exponential_mechanism_probabilities([1.0], 1.0, eps),
    "report_noisy_max": lambda eps: m.report_noisy_max([1.0, 2.0], 1.0, eps),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("bad", BAD_EPSILONS)
def test_every_mechanism_rejects_bad_epsilon(name, bad):
    with pytest.raises(ValueError, match=r"epsilon must be finite and > 0"):
        CALLS[name](bad)


@pytest.mark.parametrize("bad_delta", [0.0, 1.0, 1.5, -0.1, math.nan])
def test_gaussian_rejects_delta_outside_open_unit_interval(bad_delta):
    with pytest.raises(ValueError, match=r"delta must satisfy 0 < delta < 1"):
        m.gaussian_sigma(1.0, 0.5, bad_delta)
    with pytest.raises(ValueError, match=r"delta must satisfy 0 < delta < 1"):
        m.gaussian_mechanism(0.0, 1.0, 0.5, bad_delta)


@pytest.mark.parametrize("bad_sensitivity", [0, -2, math.nan, math.inf])
def test_sensitivity_must_be_positive_and_finite(bad_sensitivity):
    with pytest.raises(ValueError, match="sensitivity must be finite and > 0"):
        m.laplace_mechanism(0.0, bad_sensitivity, 1.0)
    with pytest.raises(ValueError, match="sensitivity must be finite and > 0"):
        m.exponential_mechanism([0.0, 1.0], bad_sensitivity, 1.0)


def test_unknown_gaussian_method_is_named():
    with pytest.raises(ValueError, match=r"method must be one of 'analytic', 'classic', got 'renyi'"):
        m.gaussian_sigma(1.0, 0.5, 1e-5, method="renyi")


def test_values_with_nan_are_rejected():
    with pytest.raises(ValueError, match="value must contain only finite values"):
        m.laplace_mechanism([1.0, np.nan], 1.0, 1.0)
    with pytest.raises(ValueError, match="value must contain only finite values"):
        m.gaussian_mechanism(np.inf, 1.0, 1.0, 1e-5)


@pytest.mark.parametrize("bits", [[0, 2], [0.5], [-1, 1]])
def test_randomized_response_rejects_non_bits(bits):
    with pytest.raises(ValueError, match="bits must contain only 0 and 1"):
        m.randomized_response(bits, 1.0)


@pytest.mark.parametrize("fn", [m.exponential_mechanism, m.exponential_mechanism_probabilities,
                                m.report_noisy_max])
def test_selection_rejects_empty_nan_and_2d_scores(fn):
    with pytest.raises(ValueError, match="scores must not be empty"):
        fn([], 1.0, 1.0)
    with pytest.raises(ValueError, match="scores must contain only finite values"):
        fn([1.0, np.nan], 1.0, 1.0)
    with pytest.raises(ValueError, match=r"scores must have 1 dimension"):
        fn([[1.0, 2.0]], 1.0, 1.0)


def test_batch_size_must_be_positive_integer():
    with pytest.raises(ValueError, match=r"size must be an integer in \[1, inf\], got 0"):
        m.exponential_mechanism([1.0, 2.0], 1.0, 1.0, size=0)


# --- Chapter 1's claim about the two Gaussian calibrations (Theorems 1.9 and 1.10) -------------------

def test_analytic_sigma_below_classic_for_every_epsilon_below_one_but_not_at_ten():
    # For ε < 1 the classic σ is valid (Theorem 1.9) and the analytic σ is the smallest valid one
    # (Theorem 1.10), so analytic <= classic on the whole grid; the chapter says so only for ε < 1.
    for delta in [1e-12, 1e-8, 1e-5, 1e-2, 0.3]:
        for epsilon in np.geomspace(1e-3, 0.999, 12):
            assert m.gaussian_sigma(1, epsilon, delta) <= m.gaussian_sigma(1, epsilon, delta, method="classic")
    # At ε = 10 the claim fails, with the numbers printed in the chapter and in Exercise 1.5:
    # the classic formula gives 0.4845 (not a valid σ: its exact δ is 2.3e-5 > 1e-5), the analytic σ 0.4999.
    classic_formula = math.sqrt(2 * math.log(1.25 / 1e-5)) / 10
    analytic = m.gaussian_sigma(1, 10, 1e-5)
    assert round(classic_formula, 4) == 0.4845 and round(analytic, 4) == 0.4999
    assert analytic > classic_formula
    assert m.gaussian_delta(classic_formula, 1, 10) == pytest.approx(2.27e-5, rel=0.01)
    assert m.gaussian_delta(math.sqrt(2 * math.log(1.25e5)) / 20, 1, 20) / 1e-5 == pytest.approx(153, rel=0.01)


# --- What a reader sees: chapter 1's markup (issue: garbled proofs, raw labels, numbering) ------------

import json  # noqa: E402
import pathlib  # noqa: E402
import re  # noqa: E402

BOOK = pathlib.Path(__file__).resolve().parents[1] / "book"
MACROS = re.compile(r"\\(eps|R|E|Lap|err|OPT|sign|N|D|H)(?![A-Za-z])")
INTERNAL_LABEL = re.compile(r"\b(thm|lem|def|alg|cor|rem|prop|eq|ex)-[a-z][a-z0-9-]*")
BOX = re.compile(r"^`{3,4}\{(prf:(definition|theorem|lemma|algorithm|corollary|remark|proposition)|exercise)\}(.*)$")


def chapter_markup_problems(path, chapter):
    """Every markup problem a reader of the web book or of the notebook on Binder would see.

    * a ``$$`` display without a blank line before or after it (MyST then pairs the dollars as inline math);
    * a macro defined only in ``_config.yml`` (``\\err``, ``\\H``, ...): an error box in JupyterLab;
    * a box without the per-chapter number in its title, without ``:nonumber:``, or out of order
      (boxes share one counter, exercises have their own);
    * a reference without explicit text, a ``{cite}`` (citations are plain author–year text);
    * workshop talk in student-facing text ("spec", "[D?]"-style tags, text dumps);
    * in code cells: internal labels such as "thm-laplace" or equation numbers (which differ between the web
      book and a notebook) in strings, and legends below 9 pt.
    """
    problems = []
    cells = json.loads(path.read_text())["cells"]
    counters = {"box": 0, "exercise": 0}
    for index, cell in enumerate(cells):
        text = "".join(cell["source"])
        where = f"{path.name} cell {index}"
        if cell["cell_type"] == "code":
            for string in re.findall(r"\"[^\"\n]*\"|'[^'\n]*'", text):
                if INTERNAL_LABEL.search(string):
                    problems.append(f"{where}: internal label in a printed string {string}")
                if re.search(r"Eq\. ?\(\d+\)", string):
                    # The web book numbers equations through the whole book, a notebook from 1: cite the box.
                    problems.append(f"{where}: equation number in a printed string {string}")
            if re.search(r"fontsize=[0-8](\.\d*)?\b", text):
                problems.append(f"{where}: legend or text below 9 pt")
            continue
        lines = text.split("\n")
        in_display, fence = False, None
        for number, line in enumerate(lines):
            stripped = line.strip()
            if fence is None and re.match(r"^```+\s*(python|bash)?$", stripped) and stripped.strip("`") in ("python", "bash"):
                fence = stripped[:3]
                continue
            if fence is not None:
                if stripped.startswith("```"):
                    fence = None
                continue
            if stripped.startswith("$$"):
                if not in_display and number > 0 and lines[number - 1].strip():
                    problems.append(f"{where}: `$$` right after a text line: {lines[number - 1][:60]!r}")
                closing = in_display or (stripped.count("$$") >= 2)
                in_display = not in_display if stripped.count("$$") == 1 else False
                if closing and not in_display and number + 1 < len(lines) and lines[number + 1].strip() \
                        and not lines[number + 1].startswith("```"):
                    problems.append(f"{where}: text right after a closing `$$`: {lines[number + 1][:60]!r}")
            match = BOX.match(stripped)
            if match:
                kind = "exercise" if match.group(1) == "exercise" else "box"
                counters[kind] += 1
                expected = f"{chapter}.{counters[kind]}"
                title = match.group(3).strip()
                options = []
                for option in lines[number + 1:]:
                    if not option.startswith(":"):
                        break
                    options.append(option)
                # The number is the :enumerator: option (tools/notebook_xrefs.py: JupyterLab titles the box
                # "Lemma 6.2 (Name)" from it, and _ext/dpteach_xrefs.py gives the web the same title).
                if f":enumerator: {expected}" not in options:
                    problems.append(f"{where}: box {title!r} should have ':enumerator: {expected}'")
                if ":nonumber:" not in options:
                    problems.append(f"{where}: box {expected} lacks :nonumber:")
        if MACROS.search(text):
            problems.append(f"{where}: non-standard macro {MACROS.search(text).group(0)}")
        for role, target in re.findall(r"\{(prf:ref|ref|doc|eq|numref)\}`([^`]*)`", text):
            if role in ("prf:ref", "ref", "doc") and "<" not in target:
                problems.append(f"{where}: {{{role}}}`{target}` has no explicit text")
        if "{cite}" in text:
            problems.append(f"{where}: {{cite}} (write the citation as plain author–year text)")
        for talk in [r"\bspecs?\b", r"\[(D\??|O|M|S)\]", r"\bdump\b", r"\bseeds?/"]:
            if re.search(talk, text):
                problems.append(f"{where}: workshop talk {re.search(talk, text).group(0)!r}")
    return problems


#: Chapter 1's boxes: other chapters and the labs cite these numbers, so they must not drift.
CHAPTER_1_NUMBERS = {
    "def-neighbours": "1.1", "def-dp": "1.2", "def-privacy-loss": "1.3", "lem-privacy-loss-tail": "1.4",
    "def-sensitivity": "1.5", "alg-laplace": "1.6", "thm-laplace": "1.7", "alg-gaussian": "1.8",
    "thm-gaussian-classic": "1.9", "thm-gaussian-analytic": "1.10", "def-randomized-response": "1.11",
    "alg-randomized-response": "1.12", "thm-randomized-response": "1.13", "thm-post-processing": "1.14",
    "thm-group-privacy": "1.15", "thm-basic-composition": "1.16", "thm-advanced-composition": "1.17",
    "thm-parallel-composition": "1.18", "def-exponential-mechanism": "1.19", "alg-exponential-mechanism": "1.20",
    "thm-exponential-mechanism-privacy": "1.21", "thm-exponential-mechanism-utility": "1.22",
    "alg-report-noisy-max": "1.23", "thm-report-noisy-max": "1.24",
    "ex-private-mean": "1.1", "ex-randomized-response": "1.2", "ex-report-noisy-max": "1.3",
    "ex-composition": "1.4", "ex-classic-gaussian": "1.5",
}


def box_numbers(path):
    """label → the number of its box (the :enumerator: option), read from the notebook."""
    numbers = {}
    for cell in json.loads(path.read_text())["cells"]:
        lines = "".join(cell["source"]).split("\n")
        for number, line in enumerate(lines):
            match = BOX.match(line.strip())
            if match:
                options = []
                for option in lines[number + 1:]:
                    if not option.startswith(":"):
                        break
                    options.append(option)
                label = [m.group(1) for o in options for m in [re.match(r":label:\s*(\S+)", o)] if m]
                enumerator = [m.group(1) for o in options for m in [re.match(r":enumerator:\s*(\S+)", o)] if m]
                if label:
                    numbers[label[0]] = enumerator[0] if enumerator else match.group(3).split()[0]
    return numbers


def test_chapter_1_markup_reads_the_same_on_the_web_and_on_binder():
    assert chapter_markup_problems(BOOK / "01_dp_basics.ipynb", 1) == []


def test_chapter_1_box_numbers_are_the_ones_other_chapters_cite():
    assert box_numbers(BOOK / "01_dp_basics.ipynb") == CHAPTER_1_NUMBERS


def test_markup_checker_catches_what_the_readers_saw(tmp_path):
    # The garbled proofs of chapter 1 (`$$` right after text), a macro, an unnumbered box, a bare reference,
    # a tag, and an internal label in a legend: each must be reported.
    bad = {"cells": [
        {"cell_type": "markdown", "source": ["so by the triangle inequality\n$$\nx\n$$\nThe same bound"]},
        {"cell_type": "markdown", "source": ["$\\err(h)$ and {prf:ref}`thm-laplace` **[D?]**\n\n"
                                             "```{prf:theorem} Laplace mechanism\n:label: thm-x\n```"]},
        {"cell_type": "code", "source": ["ax.plot(x, y, label=\"±ε (thm-laplace)\")\nax.legend(fontsize=7)\n"
                                         "print(\"failure bound, Eq. (6)\")"]},
    ]}
    path = tmp_path / "bad.ipynb"
    path.write_text(json.dumps(bad))
    problems = "\n".join(chapter_markup_problems(path, 1))
    for fragment in ["right after a text line", "text right after a closing", "non-standard macro",
                     "should have ':enumerator: 1.1'", "lacks :nonumber:", "no explicit text", "workshop talk",
                     "internal label", "below 9 pt", "equation number"]:
        assert fragment in problems


def test_gaussian_sigma_meets_delta_exactly_not_only_in_floating_point():
    # Theory review ch01-05, N6: the computed δ(σ) = Φ(a − b) − e^ε Φ(−a − b) cancels, so a σ whose *computed* δ meets
    # the target could have an exact δ above it (on main: 1 + 8.4e-10 relative at ε = 1e-4, δ = 1e-12, Δ = 1e7, and
    # 1 + 2.5e-10 at ε = 3e-4, δ = 1e-10, Δ = 1). The exact δ here is a 60-digit mpmath evaluation, independent of
    # scipy; the calibration adds a bound on the rounding error of both terms, so the exact δ meets the target.
    mpmath = pytest.importorskip("mpmath")

    def exact_delta(sigma, sensitivity, epsilon):
        with mpmath.workdps(60):
            a = mpmath.mpf(sensitivity) / (2 * mpmath.mpf(sigma))
            b = mpmath.mpf(epsilon) * mpmath.mpf(sigma) / mpmath.mpf(sensitivity)
            return mpmath.ncdf(a - b) - mpmath.exp(mpmath.mpf(epsilon)) * mpmath.ncdf(-a - b)

    for epsilon in (1e-4, 3e-4, 1e-3, 0.1, 1.0, 8.0):
        for delta in (1e-5, 1e-10, 1e-12, 1e-15):
            for sensitivity in (1.0, 1e7):
                sigma = m.gaussian_sigma(sensitivity, epsilon, delta)
                assert exact_delta(sigma, sensitivity, epsilon) <= delta, (epsilon, delta, sensitivity)
                # still the smallest σ to 1e-6 relative: the margin is a rounding bound, not a loose calibration
                assert exact_delta(sigma * (1 - 1e-6), sensitivity, epsilon) > delta
                # and the inverse in ε meets δ too
                back = m.gaussian_epsilon(sigma, sensitivity, delta)
                assert exact_delta(sigma, sensitivity, back) <= delta and back <= epsilon * (1 + 1e-6)


def test_gaussian_sigma_refuses_a_sensitivity_whose_noise_overflows_by_name():
    # Was a raw "OverflowError: math range error" (architecture review F2).
    for method, epsilon in (("analytic", 1.0), ("classic", 0.5)):
        with pytest.raises(ValueError, match=r"^sensitivity = 1\.7e\+308 .*valid range"):
            m.gaussian_sigma(1.7e308, epsilon, 1e-5, method=method)
    with pytest.raises(ValueError, match=r"^sensitivity = 1\.7e\+308"):
        m.gaussian_mechanism(np.zeros(2), 1.7e308, 1.0, 1e-5, rng=0)


@pytest.mark.parametrize("call", [
    lambda: m.laplace_mechanism(np.zeros(3), 1.0, 1e-310, rng=0),
    lambda: m.laplace_mechanism(np.zeros(3), 1.0, 5e-324, rng=0),
    lambda: m.gaussian_mechanism(np.zeros(3), 1.0, 1.0, 5e-324, rng=0),
    lambda: m.gaussian_sigma(1.0, 1e-310, 1e-5)])
def test_subnormal_epsilon_and_delta_are_refused_by_name(call):
    # Were inf releases (Lap(1/1e-310)) and a ZeroDivisionError downstream (δ = 5e-324 in dp_sgd_sigma).
    with pytest.raises(ValueError, match=r"^(epsilon|delta) = [0-9.e+-]+ is subnormal .*valid range: 2\.2250738585072014e-308 <="):
        call()


def test_subnormal_delta_is_refused_by_dp_sgd_sigma_by_name():
    from dpteach.dp_logistic import dp_sgd_sigma
    with pytest.raises(ValueError, match=r"^delta = 5e-324 is subnormal"):
        dp_sgd_sigma(1.0, 5, 1.0, 5e-324)
