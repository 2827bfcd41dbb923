"""Every qualitative claim the book makes about an experiment, rerun on seeds the book does not use.

How a claim is tied to its test
-------------------------------
A sentence in a chapter that says what an experiment shows ("L1 beats least
squares here", "the curve flattens past ε ≈ 3") is followed, in the same
markdown cell, by an HTML comment naming the claim::

    ... the private curves stay under the envelope. <!-- claim: ch04-private-auc-under-envelope -->

The comment renders as nothing in the web book and in JupyterLab; it is for
the maintainers. The test that checks the sentence is marked with the same
label, ``@pytest.mark.claim("ch04-private-auc-under-envelope")``, reruns the
chapter's setting (the same dpteach runner with the chapter's parameters) on
seeds from :data:`CLAIM_SEEDS` -- never the book's own -- and asserts the
claim with a tolerance derived in a comment. ``test_claim_labels_match``
fails for a label in a chapter without a test, or a test without a label.

A claim that does not survive its test is rewritten in the chapter, never tuned.

Numbers that an experiment produces are not typed in the prose by hand: the
chapter computes them in a cell and glues them (myst-nb's ``glue``), and
``tools/glued_numbers.py`` writes each into the prose as a literal in a marker,
``<!--glue:key:fmt-->3.41<!--/glue-->``, which the book build and nbval check
against the executed cell.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np  # noqa: F401  (used by the chapter sections below)
import pytest
from dpteach import dpsas_steps, fingerprinting_lemmas, hypotheses, peeling, randomizers, sq, sq_algorithms
from dpteach.experiments import production_laws, table1_tables

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"

#: Seeds for the claim tests. The chapters seed their experiments with SEED = 2024MMDD-style
#: constants, 6 or 14; these are disjoint from all of them.
CLAIM_SEEDS = (9001, 9002, 9003)

_LABEL = re.compile(r"<!--\s*claim:\s*([a-z0-9][a-z0-9-]*[a-z0-9])\s*-->")


def claim_labels_in_book():
    """{label: [page, ...]} for every ``<!-- claim: label -->`` in a markdown cell or page of the book."""
    found = {}
    for path in sorted(BOOK.glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for label in _LABEL.findall(text):
            found.setdefault(label, []).append(path.name)
    for path in sorted(BOOK.glob("*.md")):
        for label in _LABEL.findall(path.read_text(encoding="utf-8")):
            found.setdefault(label, []).append(path.name)
    return found


def claim_labels_in_tests():
    """{label: [test name, ...]} for every test function in this module marked ``@pytest.mark.claim``."""
    found = {}
    module = sys.modules[__name__]
    for name, obj in vars(module).items():
        if not name.startswith("test_"):
            continue
        for mark in getattr(obj, "pytestmark", []):
            if mark.name == "claim":
                for label in mark.args:
                    found.setdefault(label, []).append(name)
    return found


def test_claim_labels_match():
    in_book, in_tests = claim_labels_in_book(), claim_labels_in_tests()
    untested = sorted(set(in_book) - set(in_tests))
    unclaimed = sorted(set(in_tests) - set(in_book))
    assert not untested, f"claims in the book without a test in tests/test_claims.py: {untested}"
    assert not unclaimed, f"claim tests whose label appears in no chapter: {unclaimed}"
    twice = sorted(label for label, tests in in_tests.items() if len(tests) > 1)
    assert not twice, f"one test per claim label: {twice}"


# ---------------------------------------------------------------------------------------------
# Chapter 1
# ---------------------------------------------------------------------------------------------


_CH01_EPSILONS = (0.25, 0.5, 1.0, 2.0, 4.0)


def _ch01_audit_setups():
    from dpteach.audit import threshold_events, value_events
    from dpteach.data import replace_one
    from dpteach.mechanisms import (broken_laplace_half_noise, broken_report_noisy_max_half_scale,
                                    laplace_mechanism, report_noisy_max)

    def count(mechanism):
        return lambda data, n, rng, epsilon: mechanism(np.full(n, float(np.sum(data))), 1.0, epsilon, rng)

    def noisy_max(mechanism):
        return lambda scores, n, rng, epsilon: mechanism(scores, 1.0, epsilon, rng, size=n)

    count_d = np.zeros(20, dtype=int)
    count_neighbour = replace_one(count_d, 0, 1)
    scores_d, scores_neighbour = np.r_[1.0, np.zeros(10)], np.r_[0.0, np.ones(10)]
    count_events, winner_events = threshold_events(np.linspace(-2, 3, 26)), value_events(range(11))
    return {"laplace": (count(laplace_mechanism), count_d, count_neighbour, count_events),
            "laplace_broken": (count(broken_laplace_half_noise), count_d, count_neighbour, count_events),
            "max": (noisy_max(report_noisy_max), scores_d, scores_neighbour, winner_events),
            "max_broken": (noisy_max(broken_report_noisy_max_half_scale), scores_d, scores_neighbour,
                           winner_events)}


_CH01_AUDIT_CACHE = {}


def _ch01_audit_ratios(seed):
    """{setup: audited lower bound / claimed ε at each ε of _CH01_EPSILONS}, on one seed (about 2 s)."""
    from dpteach.experiments.basics import audit_sweep
    if seed not in _CH01_AUDIT_CACHE:
        results = audit_sweep(_ch01_audit_setups(), _CH01_EPSILONS, 50_000, np.random.default_rng(seed))
        _CH01_AUDIT_CACHE[seed] = {name: np.array([r.epsilon_lower for r in rs]) / np.array(_CH01_EPSILONS)
                                   for name, rs in results.items()}
    return _CH01_AUDIT_CACHE[seed]


@pytest.mark.claim("ch01-audit-correct-below-claim")
def test_ch01_audit_of_correct_mechanisms_stays_below_claim():
    # Each audit's bound is a 95 % lower confidence bound on the true ε, which is the claimed ε for
    # the correct mechanisms, so it crosses the claim with probability at most 5 %. Over
    # 3 seeds x 2 mechanisms x 5 ε = 30 audits the number of crossings is at most Binomial(30, 0.05),
    # and P[Binomial(30, 0.05) >= 5] = 0.016: allow at most 4. (A mechanism with the noise halved
    # is caught by the next test, so this one is not vacuous: its bound would cross in all 30.)
    ratios = [_ch01_audit_ratios(seed)[name] for seed in CLAIM_SEEDS for name in ("laplace", "max")]
    crossings = int(np.sum(np.concatenate(ratios) > 1.0))
    assert crossings <= 4, f"{crossings} of 30 audits of correct mechanisms exceed the claimed ε: {ratios}"


@pytest.mark.claim("ch01-audit-broken-above-claim")
def test_ch01_audit_catches_both_broken_variants():
    # The broken variants' true ε is 2ε on these pairs (half the noise; the factor 2 missing on a
    # non-monotone pair), so a bound above the claimed ε is the audit doing its job. The claim is that
    # 50 000 runs suffice at every claimed ε: required on every seed and ε, no exceptions.
    for seed in CLAIM_SEEDS:
        ratios = _ch01_audit_ratios(seed)
        for name in ("laplace_broken", "max_broken"):
            assert np.all(ratios[name] > 1.0), (seed, name, ratios[name])


@pytest.mark.claim("ch01-audit-broken-short-at-large-eps")
def test_ch01_audit_of_broken_variants_falls_short_at_large_epsilon():
    # The most revealing events have probability about e^(-2ε) under one neighbour, so at ε = 4 the
    # Clopper-Pearson interval of a 50 000-run estimate is far wider than at ε = 1 and the certified
    # bound falls further below the true 2ε. Checked on every seed for both broken variants.
    for seed in CLAIM_SEEDS:
        ratios = _ch01_audit_ratios(seed)
        for name in ("laplace_broken", "max_broken"):
            at_1, at_4 = ratios[name][_CH01_EPSILONS.index(1.0)], ratios[name][-1]
            assert at_4 < at_1 < 2.0, (seed, name, at_1, at_4)


@pytest.mark.claim("ch01-em-bound-loose-on-votes")
def test_ch01_exponential_mechanism_bound_is_loose_on_random_votes():
    # The chapter's vote (200 voters, 8 candidates with the chapter's shares) redrawn on each seed; the
    # expected loss is computed exactly, so the only randomness is the vote. Theorem 1.22's bound is
    # within a factor 1/0.316 ≈ 3.2 of the worst score vector (the chapter's hard instance), so "at least
    # three times" is a property of typical votes, not of every score vector: a vote with tied
    # runners-up at the worst gap would break it, and this test would then fail.
    from dpteach.bounds import exponential_mechanism_utility_bound
    from dpteach.data import vote_counts
    from dpteach.mechanisms import exponential_mechanism_probabilities
    epsilons = np.logspace(-1, 1, 41)
    for seed in CLAIM_SEEDS:
        votes = vote_counts(200, [0.22, 0.20, 0.16, 0.12, 0.10, 0.08, 0.07, 0.05], np.random.default_rng(seed))
        loss = np.array([votes.max() - exponential_mechanism_probabilities(votes, 1.0, e) @ votes
                         for e in epsilons])
        bound = exponential_mechanism_utility_bound(len(votes), 1.0, epsilons)
        assert np.all(bound >= 3 * loss), (seed, votes, (bound / loss).min())
        at_1, at_5 = (int(np.argmin(np.abs(epsilons - e))) for e in (1.0, 5.0))
        # the ratio bound/loss grows from ε = 1 to ε = 5 (cross-multiplied: the loss may underflow to 0)
        assert loss[at_5] * bound[at_1] < loss[at_1] * bound[at_5], (seed, votes)


import functools  # noqa: E402,F811  (here too, so that this section stands on its own)

# The tight-accounting figure (issue 24): k Gaussian counting queries at one total (ε, δ) = (1, 1e-5).
_CH01_TIGHT_KS = (1, 2, 5, 10, 20, 50, 100)


@functools.lru_cache(maxsize=None)
def _ch01_tight(seed):
    from dpteach.experiments.basics import composition_noise_sweep
    return composition_noise_sweep(_CH01_TIGHT_KS, epsilon=1.0, delta=1e-5, n=1000, n_reps=1000,
                                   rng=np.random.default_rng([seed, 24]))


@pytest.mark.claim("ch01-tight-saving-grows-with-k")
def test_ch01_tight_noise_saving_is_positive_and_grows_with_k():
    # Both σ's are functions of (k, ε, δ) alone, so this is exact on every seed (no tolerance): the tight σ is below
    # the textbook one at every k, and the relative saving 1 − σ_tight/σ_textbook increases along the grid.
    for seed in CLAIM_SEEDS:
        result = _ch01_tight(seed)
        saving = 1 - result["sigma_tight"] / result["sigma_textbook"]
        assert np.all(saving > 0) and np.all(np.diff(saving) > 0), (seed, saving)


@pytest.mark.claim("ch01-tight-error-below-textbook")
def test_ch01_tight_error_below_textbook_from_k_2_and_tracks_the_noise():
    # Each RMSE is estimated from N = 1000·k Gaussian draws: relative standard error 1/√(2N) ≤ 1.6 % at k = 2, where
    # the σ's differ by 31 % (about 14 standard errors of the ratio), so "below at every k ≥ 2" fails only if the
    # errors do not follow σ. At k = 100 (N = 10⁵) the ratio of the two RMSEs has relative standard error
    # √2·0.22 % ≈ 0.32 %: it must equal the σ ratio within 6 of them, 2 %.
    for seed in CLAIM_SEEDS:
        result = _ch01_tight(seed)
        assert np.all(result["rmse_tight"][1:] < result["rmse_textbook"][1:]), (seed, result)
        measured = result["rmse_textbook"][-1] / result["rmse_tight"][-1]
        predicted = result["sigma_textbook"][-1] / result["sigma_tight"][-1]
        assert abs(measured / predicted - 1) < 0.02, (seed, measured, predicted)


# ---------------------------------------------------------------------------------------------
# Chapter 2
# ---------------------------------------------------------------------------------------------


_CH02_CACHE = {}


def _ch02_main(seed):
    """(n values, {ε: (mean, q90) excess error}) of the chapter's main experiment on one seed (about 1.5 s)."""
    if seed not in _CH02_CACHE:
        from functools import partial

        from dpteach import data, generic
        from dpteach.experiments import generic as ge
        rng = np.random.default_rng(seed)
        H = hypotheses.thresholds(100)
        true_errors = H.true_errors_uniform(0.37, 0.1)
        n_values = np.unique(np.round(np.logspace(1, 4, 13)).astype(int))
        sample = partial(data.threshold_data, theta=0.37, noise_rate=0.1)
        table = ge.error_count_table(H, sample, n_values, 200, rng=rng)
        _CH02_CACHE[seed] = (n_values, {e: ge.excess_error_summary(table, true_errors, e, rng)
                                        for e in (0.1, 0.5, 1.0, 10.0, np.inf)})
    return _CH02_CACHE[seed]


@pytest.mark.claim("ch02-private-error-falls-like-1-over-n")
def test_ch02_private_error_falls_like_one_over_n():
    # At ε = 0.1 the privacy term ln|H|/(εn) dominates for 56 <= n <= 3162 (εn from 5.6 to 316; below,
    # the error saturates near its maximum, above it reaches exact zeros on the grid). A log-log fit of
    # the mean over these 9 sizes must be near -1 and clearly away from the sampling rate -1/2. With
    # 200 datasets a mean has relative standard error about 10 %, which moves a slope fitted over
    # 1.75 decades by about 0.05; the band [-1.3, -0.7] also allows for the curve not being an exact power law.
    for seed in CLAIM_SEEDS:
        n_values, summary = _ch02_main(seed)
        keep = (n_values >= 56) & (n_values <= 3162)
        slope = np.polyfit(np.log(n_values[keep]), np.log(summary[0.1][0][keep]), 1)[0]
        assert -1.3 <= slope <= -0.7, (seed, slope)


@pytest.mark.claim("ch02-large-eps-approaches-erm")
def test_ch02_large_epsilon_matches_erm():
    # ε = 10 versus ERM (ε = ∞) on the same 200 datasets. Where ERM's mean excess error is at least 0.005
    # (below that both are a few non-zero datasets), each mean has relative standard error about 10 %
    # and the two are positively correlated (same data), so their ratio is within 1 ± 0.4 at > 3 sigma.
    for seed in CLAIM_SEEDS:
        _, summary = _ch02_main(seed)
        erm, large = summary[np.inf][0], summary[10.0][0]
        keep = erm >= 0.005
        assert keep.sum() >= 4 and np.all(np.abs(large[keep] / erm[keep] - 1) <= 0.4), (seed, large, erm)


@pytest.mark.claim("ch02-bound-holds-everywhere")
def test_ch02_bound_holds_at_every_n():
    # Theorem 2.6 at β = 0.1 bounds the true 90 % quantile; the empirical one of 200 datasets exceeds the
    # true 95 % quantile with probability < 1e-3, and the measured values sit about 10x below the bound.
    from dpteach import bounds
    for seed in CLAIM_SEEDS:
        n_values, summary = _ch02_main(seed)
        for epsilon in (0.1, 0.5, 1.0):
            bound = bounds.generic_learner_accuracy(202, epsilon, n_values.astype(float), 0.1)
            assert np.all(summary[epsilon][1] <= bound), (seed, epsilon)


@pytest.mark.claim("ch02-bound-asks-far-more-examples")
def test_ch02_bound_asks_for_far_more_examples():
    # At the default sliders (ε = 0.5, α = 0.05) the measured 90 % quantile reaches α at n of a few hundred
    # while the bound asks for 16 195. The grid of n steps by 1.78, so the measured n is known only to
    # that factor: "about 50 to 100 times" is checked as a ratio of at least 20 on every seed.
    from dpteach import bounds
    asked = bounds.generic_learner_sample_complexity(202, 0.5, 0.05, 0.1)
    for seed in CLAIM_SEEDS:
        n_values, summary = _ch02_main(seed)
        needed = n_values[np.flatnonzero(summary[0.5][1] <= 0.05)[0]]
        assert asked / needed >= 20, (seed, asked, needed)


@pytest.mark.claim("ch02-finer-grid-saturates")
def test_ch02_finer_grid_costs_little_estimation_error():
    # Figure (a): n = 300, θ = 1/√7, 100 datasets per grid, ε = 0.5. From N = 100 to N = 3000 the
    # bound grows by 0.10; the claim is that the learner's estimation error grows by much less. A mean
    # of 100 datasets has standard error about 0.0015 here, so a growth below 0.01 is a 4-sigma margin
    # over a change of the order of the bound's (which would be 0.1).
    from dpteach.experiments import generic as ge
    for seed in CLAIM_SEEDS:
        setups = ge.grid_size_setups([100, 3000], 1 / np.sqrt(7), 0.1, 300, 100, np.random.default_rng(seed))
        estimation = [ge.excess_error_summary(c, t, 0.5, np.random.default_rng(seed))[0][0] for _, c, t in setups]
        assert estimation[1] - estimation[0] < 0.01, (seed, estimation)


@pytest.mark.claim("ch02-halfspace-error-far-below-bound")
def test_ch02_halfspace_error_stays_far_below_bound():
    # Figure (b): halfspaces over the public net, d = 1..5, n = 300, 100 datasets, ε = 0.5. The bound is
    # 0.33 to 0.49; the measured means are about 0.005 to 0.03 with standard error < 0.003, so "below a
    # fifth of the bound" (0.067 or more) holds with a wide margin on each seed.
    from dpteach import bounds
    from dpteach.experiments import generic as ge
    for seed in CLAIM_SEEDS:
        setups = ge.dimension_setups(np.arange(1, 6), 0.1, 0.1, 300, 100, rng=np.random.default_rng(seed))
        for H, counts, true_errors in setups:
            mean = ge.excess_error_summary(counts, true_errors, 0.5, np.random.default_rng(seed))[0][0]
            assert mean < bounds.generic_learner_accuracy(len(H), 0.5, 300, 0.1) / 5, (seed, len(H), mean)


@pytest.mark.claim("ch02-padding-takes-over")
def test_ch02_padding_takes_over_between_1e4_and_1e6():
    # Figure (c): N = 100, n = 100, 100 datasets, ε = 0.5, so εn/4 = 12.5 (M ≈ 2.7e5). The share of padding
    # outputs is a mean of 100 Bernoulli draws (standard error <= 0.05); measured about 0.1 at M = 1e4 and
    # 0.88 at M = 1e6, so "below one half" and "above one half" hold with >= 7 standard errors to spare.
    from functools import partial

    from dpteach import data, generic
    from dpteach.experiments import generic as ge
    for seed in CLAIM_SEEDS:
        rng = np.random.default_rng(seed)
        sample = partial(data.threshold_data, theta=0.37, noise_rate=0.1)
        counts = ge.error_count_table(hypotheses.thresholds(100), sample, [100], 100, rng)[0]
        share = {M: np.mean(ge.select_with_padding(counts, ge.padding_group_sizes(100, M, 100, rng), 0.5, rng) < 0)
                 for M in (10**4, 10**6)}
        # "well under half" at 1e4 (Exercise 2.3) is checked as < 0.3, 5 standard errors above the measured 0.13
        assert share[10**4] < 0.3 and share[10**6] > 0.5, (seed, share)


def _ch02_needle(seed, epsilon):
    from dpteach.experiments import generic as ge
    sizes = np.unique(np.round(np.logspace(0.3, 12, 24)).astype(np.int64))
    success = ge.packing_success_probabilities(ge.packing_group_sizes(30, sizes, 200, np.random.default_rng(seed)),
                                               epsilon)
    return sizes, success


@pytest.mark.claim("ch02-needle-under-ceiling")
def test_ch02_needle_success_stays_under_the_ceiling():
    # Theorem 2.12 bounds the expected success (over datasets) by min{1, e^{εn}/M}; each point is the mean of
    # 200 exact per-dataset probabilities, so allow 4 standard errors of that mean above the ceiling.
    # A ceiling 4.5 times too strong is crossed (tests/test_generic.py checks that); here only the claim.
    from dpteach import bounds
    for seed in CLAIM_SEEDS:
        for epsilon in (0.1, 0.5, 1.0, 3.0):
            sizes, success = _ch02_needle(seed, epsilon)
            standard_error = success.std(axis=1, ddof=1) / np.sqrt(success.shape[1])
            ceiling = bounds.packing_success_upper_bound(sizes, epsilon, 30)
            assert np.all(success.mean(axis=1) <= ceiling + 4 * standard_error), (seed, epsilon)


@pytest.mark.claim("ch02-needle-half-at-quarter-log")
def test_ch02_needle_success_halves_at_a_quarter_of_the_log():
    # n = 30, ε = 0.5: the ceiling e^{εn}/M falls to 1/2 at ln M = εn + ln 2 = 15.7. The generic learner's
    # success (mean of 200 exact probabilities, standard error <= 0.035) crosses 1/2 where ln M is about
    # n ln(2/(1 + e^{-ε/2})) = 3.5, i.e. 0.22 of 15.7 (Jensen's inequality puts it at or above that).
    # "About a quarter" is checked as a log-ratio in [0.15, 0.4] (the grid of M steps by 0.49 in ln M).
    for seed in CLAIM_SEEDS:
        sizes, success = _ch02_needle(seed, 0.5)
        mean = success.mean(axis=1)
        crossing = np.log(sizes[np.flatnonzero(mean < 0.5)[0]])
        assert 0.15 <= crossing / (0.5 * 30 + np.log(2)) <= 0.4, (seed, crossing)


def _ch02_noise(seed):
    if ("noise", seed) in _CH02_CACHE:
        return _CH02_CACHE["noise", seed]
    from dpteach import generic
    from dpteach.experiments import generic as ge
    n_values = np.unique(np.round(np.logspace(1, 4, 8)).astype(int))
    setups = ge.noise_level_setups(hypotheses.thresholds(100), [0.0, 0.1, 0.3], 0.37, n_values, 100,
                                   np.random.default_rng(seed))
    private = [ge.excess_error_summary(t, e, 0.1, np.random.default_rng(seed))[0] for t, e, _ in setups]
    _CH02_CACHE["noise", seed] = n_values, np.array(private), np.array([erm for _, _, erm in setups])
    return _CH02_CACHE["noise", seed]


@pytest.mark.claim("ch02-noise-free-under-privacy")
def test_ch02_label_noise_costs_nothing_where_privacy_dominates():
    # ε = 0.1, n = 193..1389 (εn from 19 to 139, error well above 0): the means for η = 0, 0.1, 0.3 are
    # within a factor 1.6 of each other. Each mean of 100 datasets has relative standard error about 10 %,
    # so the max/min of three is below 1.6 unless two of them are 2.5 standard errors apart.
    for seed in CLAIM_SEEDS:
        n_values, private, _ = _ch02_noise(seed)
        keep = (n_values >= 193) & (n_values <= 1389)
        spread = private[:, keep].max(axis=0) / private[:, keep].min(axis=0)
        assert np.all(spread <= 1.6), (seed, spread)


@pytest.mark.claim("ch02-noise-shifts-erm-right")
def test_ch02_label_noise_shifts_erm_by_one_grid_step():
    # ERM at η = 0.3 against η = 0 where η = 0's mean is at least 0.005 (n = 10, 27, 72). "Shifted right by
    # one step of the grid (factor 2.7)": one step later the η = 0.3 curve is within a factor 2 of the η = 0
    # one, while at the same n it is at least 1.5 times higher (so it is shifted). Relative standard errors
    # are 10-15 %, so both bands hold with >= 3 standard errors to spare.
    for seed in CLAIM_SEEDS:
        _, _, erm = _ch02_noise(seed)
        clean, noisy = erm[0], erm[2]
        for k in np.flatnonzero(clean >= 0.005)[:3]:
            assert noisy[k] >= 1.5 * clean[k], (seed, k, noisy[k], clean[k])
            assert 0.5 <= noisy[k + 1] / clean[k] <= 2.0, (seed, k, noisy[k + 1], clean[k])


def _ch02_exact(seed):
    if ("exact", seed) in _CH02_CACHE:
        return _CH02_CACHE["exact", seed]
    from dpteach import data, generic
    from dpteach.experiments import generic as ge
    H = hypotheses.thresholds(10)
    X, y = data.threshold_data(20, theta=0.37, noise_rate=0.1, rng=np.random.default_rng(seed))
    epsilons = np.logspace(-2, 1, 13)
    sweep = ge.exact_privacy_loss_sweep(H, X, y, epsilons, np.repeat(H.grid, 2), np.tile([-1, 1], H.grid.size),
                                        sensitivities=(1.0, 0.5))
    _CH02_CACHE["exact", seed] = epsilons, sweep[1.0] / epsilons, sweep[0.5] / epsilons
    return _CH02_CACHE["exact", seed]


@pytest.mark.claim("ch02-exact-loss-below-eps")
def test_ch02_exact_loss_of_learner_is_below_epsilon():
    # Exact computation (no sampling) on a fresh dataset per seed; Theorem 2.5 makes it a hard bound, up to
    # floating-point rounding of the log-probabilities (1e-9).
    for seed in CLAIM_SEEDS:
        _, correct, _ = _ch02_exact(seed)
        assert np.all(correct <= 1 + 1e-9), (seed, correct)


@pytest.mark.claim("ch02-exact-loss-shape")
def test_ch02_exact_loss_is_half_at_small_and_close_at_large_epsilon():
    # Exact: at ε = 0.01 (εn = 0.2) the normaliser barely moves and the loss is about ε/2 (measured 0.51 to
    # 0.52 on these seeds; band [0.45, 0.6]); for ε >= 1 the worst neighbour is within 5 % of ε.
    for seed in CLAIM_SEEDS:
        epsilons, correct, _ = _ch02_exact(seed)
        assert 0.45 <= correct[0] <= 0.6, (seed, correct[0])
        assert np.all(correct[epsilons >= 1] >= 0.95), (seed, correct)


@pytest.mark.claim("ch02-exact-loss-broken-exceeds")
def test_ch02_exact_loss_without_factor_2_exceeds_epsilon():
    # Exact: the variant with weights e^{-ε·errors} exceeds ε at every ε of the grid, and by a factor close to 2
    # at ε = 10 (>= 1.95).
    for seed in CLAIM_SEEDS:
        _, _, broken = _ch02_exact(seed)
        assert np.all(broken > 1) and broken[-1] >= 1.95, (seed, broken)


@pytest.mark.claim("ch02-audit-catches-no-factor-2")
def test_ch02_audit_of_learner_and_broken_variant():
    # The chapter's audit (thresholds(4), relabel x = 1, 50 000 runs, claimed ε = 1). The learner's 95 %
    # lower bound exceeds 1 with probability <= 5 % per seed (its worst event's true loss is below 1), and
    # measured about 0.65; the broken variant's true loss on this event is close to 2 (measured bound 1.6).
    from functools import partial

    from dpteach import audit, generic
    H = hypotheses.thresholds(4)
    X = np.array([0.1, 0.3, 0.6, 0.9, 1.0])
    y, y_relabelled = np.array([-1, -1, 1, 1, 1]), np.array([-1, -1, 1, 1, -1])

    def runs(dataset, n_trials, rng, broken):
        learner = generic.broken_generic_learner_no_factor_2 if broken else generic.generic_private_learner
        return learner(H, dataset[0], dataset[1], 1.0, rng=rng, size=n_trials)

    for seed in CLAIM_SEEDS:
        rng = np.random.default_rng(seed)
        bound = {broken: audit.audit(partial(runs, broken=broken), (X, y), (X, y_relabelled),
                                     [lambda o: o >= len(H) // 2], n_trials=50_000, rng=rng).epsilon_lower
                 for broken in (False, True)}
        assert bound[False] <= 1.0 < bound[True], (seed, bound)


_CH02_PARITY = {}


def _ch02_parity_first_n(seed):
    """{(d, ε): (first n of the chapter's grid with success >= 0.9, Corollary 2.8's n)} over 60 datasets."""
    if seed not in _CH02_PARITY:
        from dpteach import bounds, generic
        from dpteach.experiments import generic as ge
        n_values = np.unique(np.round(np.logspace(np.log10(5), np.log10(800), 12)).astype(int))
        tables = ge.parity_tables([8, 12], n_values, 60, np.random.default_rng(seed))
        found = {}
        for d in (8, 12):
            for epsilon in (1.0, 0.1):
                success = np.array([np.mean(generic.select_hypotheses(counts, epsilon, np.random.default_rng(seed))
                                            == 2**d - 3) for counts in tables[d]])
                reached = n_values[np.flatnonzero(success >= 0.9)]
                found[d, epsilon] = (reached[0] if reached.size else np.inf,
                                     bounds.generic_learner_sample_complexity(2.0**d, epsilon, 0.49, 0.1,
                                                                              form="realizable"))
        _CH02_PARITY[seed] = found
    return _CH02_PARITY[seed]


@pytest.mark.claim("ch02-parity-examples-per-dimension")
def test_ch02_parity_needs_few_examples_per_dimension():
    # The chapter's parity setting (secret 2^d - 3, 60 datasets per n, the n grid 5..800). Jensen's bound
    # (eq-generic-parity-success) puts 90 % success near n = 4(d ln 2 + ln 10)/ε, i.e. 31/ε at d = 8 and
    # 43/ε at d = 12; the claim n <= 8d/ε (64/ε and 96/ε) leaves a factor 2 for the grid (steps of 1.6)
    # and for a 60-dataset success rate (standard error <= 0.04 near 0.9).
    for seed in CLAIM_SEEDS:
        for (d, epsilon), (first, _) in _ch02_parity_first_n(seed).items():
            assert first <= 8 * d / epsilon, (seed, d, epsilon, first)


@pytest.mark.claim("ch02-parity-corollary-conservative")
def test_ch02_parity_corollary_asks_for_more_than_needed():
    # Corollary 2.8 at α = 0.49, β = 0.1 asks for 140 (d = 8) to 924 (d = 12, ε = 0.1) examples; the measured
    # success reaches 0.9 = 1 - β no later on every seed (measured 50 to 504).
    for seed in CLAIM_SEEDS:
        for (d, epsilon), (first, asked) in _ch02_parity_first_n(seed).items():
            assert first <= asked, (seed, d, epsilon, first, asked)


# ---------------------------------------------------------------------------------------------
# Chapter 3
# ---------------------------------------------------------------------------------------------


@pytest.mark.claim("ch03-randomizer-audits")
def test_ch03_audits_of_the_randomizers():
    # The chapter's audits (10^5 runs, 99 % confidence, claimed ε = 1) on each seed. A correct randomizer's
    # bound exceeds 1 with probability <= 1 % per audit: over 3 seeds x 3 randomizers at most one crossing
    # (P[Binomial(9, 0.01) >= 2] = 0.003). The broken Laplace randomizer (scale 1/ε, true ε = 2) must be
    # caught on every seed.
    from dpteach import audit, local
    laplace_events = audit.threshold_events(np.linspace(-1, 3, 9))
    crossings = 0
    for seed in CLAIM_SEEDS:
        rng = np.random.default_rng(seed)
        cases = [(randomizers.RandomizedResponse(1.0), 1, 0, audit.value_events([0, 1]), False),
                 (randomizers.LaplaceRandomizer(1.0), 1.0, -1.0, laplace_events, False),
                 (randomizers.OneBitRandomizer(1.0), 1.0, -1.0, audit.threshold_events([0.0]), False),
                 (randomizers.HalfNoiseLaplaceRandomizer(1.0), 1.0, -1.0, laplace_events, True)]
        for randomizer, d0, d1, events, broken in cases:
            bound = audit.audit(randomizer.as_audit_mechanism(), d0, d1, events, 100_000, confidence=0.99,
                                rng=rng).epsilon_lower
            if broken:
                assert bound > 1.0, (seed, bound)
            else:
                crossings += bound > 1.0
    assert crossings <= 1, crossings


def _ch03_mean(seed, epsilon):
    from dpteach.experiments import local as le
    ns = np.unique(np.logspace(2, 7, 16).astype(int))
    return ns, le.mean_estimation_experiment(ns, epsilon, p=0.3, n_reps=200, target="sample", rng=seed)


@pytest.mark.claim("ch03-local-central-slopes")
def test_ch03_local_and_central_slopes():
    # RMSE over 200 repetitions has relative standard error about 1/sqrt(2*200) = 5 % per point; a log-log
    # fit over 16 sizes spanning 5 decades then has slope standard error about 0.005, so +-0.05 around
    # -1/2 (local) and -1 (central) is a 10-sigma band that still rejects a local slope of -1.
    for seed in CLAIM_SEEDS:
        for epsilon in (0.1, 1.0, 5.0):
            ns, res = _ch03_mean(seed, epsilon)
            slope = {k: np.polyfit(np.log(ns), np.log(res[k]), 1)[0] for k in ("rr", "laplace", "central")}
            assert abs(slope["rr"] + 0.5) <= 0.05 and abs(slope["laplace"] + 0.5) <= 0.05, (seed, epsilon, slope)
            assert abs(slope["central"] + 1) <= 0.05, (seed, epsilon, slope)


@pytest.mark.claim("ch03-rr-beats-laplace")
def test_ch03_randomized_response_beats_laplace_on_bits():
    # Ratio of RMSEs Laplace/RR: theory sqrt((2/ε^2) / (e^ε/(e^ε-1)^2)) = 1.415 at ε = 0.1 and 3.41 at ε = 5.
    # The median over 16 sizes of a ratio of two 5 %-accurate RMSEs is within 0.15 of the theory at small ε;
    # at ε = 5 "much more" is checked as > 2.5.
    for seed in CLAIM_SEEDS:
        _, small = _ch03_mean(seed, 0.1)
        _, large = _ch03_mean(seed, 5.0)
        assert abs(np.median(small["laplace"] / small["rr"]) - np.sqrt(2)) <= 0.15, seed
        assert np.median(large["laplace"] / large["rr"]) > 2.5, seed


@pytest.mark.claim("ch03-argmin-trap")
def test_ch03_argmin_trap_is_worse_but_within_guarantee():
    # Both oracles are deterministic (no seed): the trap's pick is never better than the honest one's and never
    # beyond OPT + α = 0.1 + α, for every α of the slider's range; at the default α = 0.1 it is strictly worse.
    from dpteach import data, local
    support, weights = data.threshold_distribution(theta=0.37, noise_rate=0.1, n_grid=2000)
    honest = sq.ExactSQOracle(support, weights)
    trap = sq.NoisySQOracle(honest, "adversarial", "argmin_trap")
    for alpha in np.round(np.arange(0.05, 0.501, 0.01), 2):
        errors = [data.threshold_error(sq_algorithms.sq_threshold_grid(o, alpha), 0.37, 0.1) for o in (honest, trap)]
        assert errors[0] - 1e-12 <= errors[1] <= 0.1 + alpha, (alpha, errors)
        if alpha == 0.1:
            assert errors[1] > errors[0] + 1e-12, errors


def _ch03_group_sizes(seed):
    from dpteach.experiments import local as le
    settings = [(0.5, 0.1), (1.0, 0.1), (1.0, 0.05), (2.0, 0.1), (4.0, 0.05)]
    return le.group_size_validity_experiment(settings, beta=0.05, n_reps=2000, rng=seed)


@pytest.mark.claim("ch03-proved-group-size-never-fails")
def test_ch03_proved_group_size_never_fails():
    # The proved m is >= 6.1 times the CLT's m, so an invalid answer is a deviation of at least
    # 1.96*sqrt(6.1) = 4.8 standard deviations of a near-normal average: about 1.5e-6 per try, 0.05 over
    # all 3 x 5 x 2000 tries. The claim "never fails in 2000 tries" is checked on every seed and setting.
    for seed in CLAIM_SEEDS:
        rates = [row["failure_rate"] for row in _ch03_group_sizes(seed) if row["rule"] == "theorem"]
        assert max(rates) == 0.0, (seed, rates)


@pytest.mark.claim("ch03-clt-group-size-fails-about-beta")
def test_ch03_clt_group_size_fails_about_beta():
    # The CLT rule targets a failure rate β = 0.05; a rate from 2000 tries has standard error 0.0049, so
    # [0.03, 0.075] is about 4 standard errors on the low side and 5 on the high side (the normal
    # approximation of a Laplace average is slightly light-tailed at m ~ 1000).
    for seed in CLAIM_SEEDS:
        rates = [row["failure_rate"] for row in _ch03_group_sizes(seed) if row["rule"] == "clt"]
        assert all(0.03 <= r <= 0.075 for r in rates), (seed, rates)


@pytest.mark.claim("ch03-threshold-errors-below-guarantee")
def test_ch03_threshold_learners_stay_below_their_guarantee():
    # ε = 1, the chapter's 11 sizes and 8 runs each, proved group sizes. Every run is valid with probability
    # >= 0.95 (Theorem 3.10), and the proved sizes are so conservative (test above) that an invalid run
    # is a ~5-sigma event: every run must be within its α. The medians are at most 0.6 α (measured up to
    # 0.49 α; the errors are quantised by the grid of thresholds, so a tighter band would test the grid).
    from dpteach.experiments import local as le
    for seed in CLAIM_SEEDS:
        res = le.threshold_experiment(np.round(np.logspace(5, 10, 11)), 1.0, n_reps=8, rng=seed)
        for name in ("grid", "binary_search"):
            alpha, errors = res[name]["alpha"], res[name]["errors"]
            assert np.all(np.nan_to_num(errors, nan=0.0) <= alpha + 1e-12), (seed, name)
            assert np.all(np.nanmedian(errors, axis=0) <= 0.6 * alpha), (seed, name)


_CH03_HALFSPACE = {}


def _ch03_halfspace(seed):
    """Test errors of averaging and SQ gradient descent at n = 1e4, 1e5, 1e6 (d = 5, ε = 1), one run (about 4 s)."""
    if seed not in _CH03_HALFSPACE:
        from dpteach.experiments import local as le
        _CH03_HALFSPACE[seed] = {m: le.halfspace_experiment(np.array([10_000, 100_000, 1_000_000]), 5, 1.0,
                                                            marginal=m, n_reps=1, n_test=20_000, rng=seed)
                                 for m in ("sphere", "skewed")}
    return _CH03_HALFSPACE[seed]


@pytest.mark.claim("ch03-halfspace-sphere-averaging-wins")
def test_ch03_averaging_wins_on_the_sphere():
    # Summed over the three n, averaging's test error is below gradient descent's on every seed (measured
    # 0.10-0.24 against 0.25-0.43); it also improves with n (1e6 below half of 1e4). The test error of a
    # run is estimated on 20 000 points (standard error <= 0.004), far below these gaps.
    for seed in CLAIM_SEEDS:
        res = _ch03_halfspace(seed)["sphere"]
        averaging, gd = res["averaging"][0], res["gd"][0]
        assert averaging.sum() < gd.sum(), (seed, averaging, gd)
        assert averaging[-1] < 0.5 * averaging[0], (seed, averaging)


@pytest.mark.claim("ch03-halfspace-skewed-plateau")
def test_ch03_averaging_plateaus_on_the_skewed_marginal():
    # Skewed marginal: averaging's error at n = 1e6 stays above 0.1 (a bias: measured 0.135 at every seed,
    # and not below 0.8 of its error at 1e4), while gradient descent at 1e6 is below 0.6 of averaging's and
    # below its own error at 1e4 (measured 0.06-0.08 against 0.11-0.20).
    for seed in CLAIM_SEEDS:
        res = _ch03_halfspace(seed)["skewed"]
        averaging, gd = res["averaging"][0], res["gd"][0]
        assert averaging[-1] > 0.1 and averaging[-1] > 0.8 * averaging[0], (seed, averaging)
        assert gd[-1] < 0.6 * averaging[-1] and gd[-1] < gd[0], (seed, gd, averaging)


@pytest.mark.claim("ch03-parity-majority-three-times")
def test_ch03_majority_queries_need_about_three_times_the_line():
    # d = 8, τ = 0.2, 40 secrets, worst-case oracle. Theorem 3.17's line (q/τ² + 1)/2^d reaches 1 at q = 10.2;
    # the claim is that the majority-of-15 search identifies every secret only after about three times as
    # many queries: checked as a first q with all 40 identified in [2, 4] x 10.2. The success fractions also
    # stay under the line, up to 3 binomial standard errors of a 40-secret fraction.
    from dpteach import bounds
    from dpteach.experiments import local as le
    for seed in CLAIM_SEEDS:
        res = le.parity_sq_experiment(8, 0.2, 45, bucket_sizes=(1, 15), n_secrets=40, rng=seed)
        q = np.asarray(res["queries"])
        line = bounds.parity_sq_success_bound(q, 8, 0.2)
        for bucket in (1, 15):
            assert np.all(res[bucket] <= line + 3 * np.sqrt(line * (1 - line) / 40) + 1e-12), (seed, bucket)
        done = q[np.flatnonzero(np.asarray(res[15]) >= 1.0)]
        assert done.size and 2 <= done[0] / (0.2**2 * (2**8 - 1)) <= 4, (seed, done[:1])


@pytest.mark.claim("ch03-masked-one-round-comparable")
def test_ch03_one_round_is_comparable_for_small_d():
    # d = 4, 6, 8, ε = 1, n = 3e3, 3e4, 3e5, 8 repetitions each: the first n at which each method succeeds in
    # at least 3/4 of the runs differs by at most one grid step (a factor 10) between one round (brute force,
    # user-level data) and two rounds. With 8 runs a true rate near 3/4 can land on either side of the
    # cut, which moves the first n by one step at most; a method needing 100x more users would fail this.
    from dpteach.experiments import local as le
    ns = (3_000, 30_000, 300_000)

    def first_index(seed, d, **method):
        # the larger n are run only if needed: user-level brute force at n = 3e5 is the slow part
        for index, n in enumerate(ns):
            success = le.masked_parity_experiment([d], np.array([n]), 1.0, n_reps=8, rng=seed, **method)
            if success.ravel()[0] >= 0.75:
                return index
        return len(ns)

    for seed in CLAIM_SEEDS:
        for d in (4, 6, 8):
            one = first_index(seed, d, method="bruteforce")
            two = first_index(seed, d, users="fast")
            assert abs(one - two) <= 1, (seed, d, one, two)


# ---------------------------------------------------------------------------------------------
# Chapter 4
# ---------------------------------------------------------------------------------------------

# Chapter 4 runs its experiments with SEED = 20240604; these tests rerun the same dpteach runners on CLAIM_SEEDS.
# AUC standard errors: for m member and m non-member scores, the null-hypothesis SE of a Mann-Whitney AUC is
# sqrt((2m + 1)/(12 m^2)), 0.0129 at m = 1000; pooling the scores of one trial adds a little (they share M).


@pytest.fixture(scope="module")
def ch04_t1():
    from dpteach.experiments import fingerprinting as ex
    # The chapter's T1 grid at d, n in {10, 100, 1000}, epsilon = 1, 1000 member scores per cell.
    return [ex.auc_vs_ratio([10, 100, 1000], [10, 100, 1000], [1.0], n_scores=1000, rng=seed) for seed in CLAIM_SEEDS]


@pytest.mark.claim("ch04-exact-mean-follows-prediction")
def test_ch04_exact_mean_auc_follows_phi_sqrt_d_over_2n(ch04_t1):
    from dpteach import bounds
    # SE <= 0.0129 per cell (1000 scores); the Gaussian approximation of Proposition 4.9 was within 0.015 on the book's
    # grid. "Follows" is asserted as every cell within 0.05 (3.9 SE); "almost perfectly at d/n = 10" as AUC > 0.95.
    for t1 in ch04_t1:
        predicted = bounds.predicted_auc(1.0, t1["d"][:, None], t1["n"][None, :], t1["alpha_exact"])
        assert np.max(np.abs(t1["exact"] - predicted)) < 0.05
        assert t1["exact"][2, 1] > 0.95  # d = 1000, n = 100


@pytest.mark.claim("ch04-private-means-far-below-exact")
def test_ch04_private_means_are_far_below_the_exact_mean_and_under_the_cap(ch04_t1):
    import math
    # Under the cap e/(1+e) + delta of any (1, delta)-DP attack (delta = n^-1.1 <= 0.08), up to 4 SE = 0.052; and,
    # wherever d >= n, at least 0.1 below the exact mean's AUC (which is >= Phi(1/sqrt 2) = 0.76 there).
    for t1 in ch04_t1:
        cap = math.e / (1 + math.e) + t1["n"][None, :] ** -1.1
        assert np.all(t1["dp"][1.0] <= cap + 0.052)
        above = t1["d"][:, None] >= t1["n"][None, :]
        assert np.all((t1["exact"] - t1["dp"][1.0])[above] > 0.1)


@pytest.fixture(scope="module")
def ch04_roc():
    from dpteach import fingerprinting as fp
    from dpteach.experiments import fingerprinting as ex
    out = []
    for seed in CLAIM_SEEDS:
        res = ex.roc_experiment(200, 100, 1.0, n_trials=20, rng=seed, estimators=("exact", "dp"))
        for key in ("exact", "dp"):
            fpr, tpr = fp.roc_curve(*res[key])
            out.append((key, tpr - fp.dp_roc_envelope(fpr, 1.0, res["delta"]), np.abs(tpr - fpr)))
    return out


@pytest.mark.claim("ch04-exact-roc-leaves-envelope")
def test_ch04_exact_mean_roc_rises_above_the_envelope(ch04_roc):
    # 2000 member scores: a TPR has binomial sd <= 0.011; an excess above 0.15 is > 13 sd (the book measured 0.30).
    assert all(np.max(excess) > 0.15 for key, excess, _ in ch04_roc if key == "exact")


@pytest.mark.claim("ch04-private-roc-inside-envelope")
def test_ch04_private_mean_roc_stays_inside_the_envelope_near_the_diagonal(ch04_roc):
    # Inside: no point above the envelope by more than 0.05 (4.5 binomial sd). Near the diagonal: |TPR - FPR| < 0.15
    # (the book measured 0.06-0.09 on four seeds).
    for key, excess, diagonal in ch04_roc:
        if key == "dp":
            assert np.max(excess) < 0.05 and np.max(diagonal) < 0.15


@pytest.mark.claim("ch04-lemma-private-mean-trades-terms")
def test_ch04_private_mean_trades_accuracy_for_correlation_in_lemma_4_7():
    from dpteach import fingerprinting as fp
    # The chapter's statistic clip(mean + Lap(2/(n eps))) at n = 5 and the slider's ends eps = 0.05 and 20, 10 000
    # draws (SEs about 0.018 for the correlation term, 0.005 for the accuracy term, 0.019 for the sum).
    # Small eps: accuracy term > 4 x correlation term (measured 0.90 vs 0.12). Large eps: correlation within 0.06 (~5 SE)
    # of the mean's exact 2/3 and above the accuracy term. Every sum above 2/3 - 4 SE (the lemma).
    for seed in CLAIM_SEEDS:
        results = {}
        for epsilon in (0.05, 20.0):
            noise = np.random.default_rng(seed)
            f = lambda x, e=epsilon: np.clip(x.mean(axis=1) + noise.laplace(0, 2 / (5 * e), len(x)), -1, 1)  # noqa
            results[epsilon] = fingerprinting_lemmas.fingerprinting_lemma_mc(f, 5, 10_000, rng=seed)
        small, large = results[0.05], results[20.0]
        assert small["accuracy"] > 4 * (small["correlation"] + 4 * small["correlation_se"])
        assert abs(large["correlation"] - 2 / 3) < 0.06 and large["correlation"] > large["accuracy"]
        assert all(r["total"] + 4 * r["total_se"] >= 2 / 3 for r in results.values())


@pytest.mark.claim("ch04-private-mean-above-proved-bound")
def test_ch04_private_mean_lies_above_the_proved_bound():
    from dpteach.experiments import fingerprinting as ex
    # Theorem 4.10 bounds E_pi E_mu ||M - mu|| for every DP M; lower_bound_experiment estimates exactly that average
    # for Algorithm 4.4. With 20 trials per n the mean error minus 4 standard errors (one-sided t_19 tail ~4e-4) must
    # still clear the bound; the chapter's margin is a factor >= 20, so this is far from the edge.
    for seed in CLAIM_SEEDS:
        lb = ex.lower_bound_experiment(100, [10, 100, 1000, 10000], 1.0, 1e-6, n_trials=20, rng=seed)
        assert np.all(lb["bound"] > 0)
        assert np.all(lb["error"] - 4 * lb["error_se"] > lb["bound"]), (seed, lb["error"], lb["bound"])


@pytest.mark.claim("ch04-printed-sparse-threshold-unsound")
def test_ch04_lemma_18_printed_threshold_is_not_sound_on_the_design():
    from dpteach.experiments import fingerprinting as ex
    # "Not sound" = the false-positive rate is far above delta; we assert FPR > 10 delta. With 2e5 draws the binomial
    # SE is sqrt(p(1-p)/2e5) <= 2.8e-4 at p ~ 0.015, so FPR - 5 SE > 10 delta is a 5-sigma statement.
    for seed in CLAIM_SEEDS:
        for s, deltas in ((5, [1e-3, 1e-4]), (10, [1e-3])):
            res = ex.sparse_threshold_fpr(s, deltas, n_draws=200_000, rng=seed)
            assert np.all(res["fpr"] - 5 * res["fpr_se"] > 10 * res["delta"]), (seed, s, res)


@pytest.fixture(scope="module")
def ch04_thresholds():
    from dpteach.experiments import fingerprinting as ex
    return [ex.threshold_experiment(500, 50, [1e-2, 1e-3], n_trials=200, rng=seed) for seed in CLAIM_SEEDS]


@pytest.mark.claim("ch04-printed-mean-threshold-powerless")
def test_ch04_printed_mean_threshold_catches_almost_no_member(ch04_thresholds):
    # The printed threshold sits ~sqrt(8 n log(1/delta)) >= 43 null SDs out (Exercise 4.2) and a member's mean score
    # is only sqrt(d/n) ~ 3 SDs out: its TPR is essentially 0. "No power" is asserted as TPR < 0.01 (of 10 000).
    for t8 in ch04_thresholds:
        assert max(row["printed_tpr"] for row in t8["rows"]) < 0.01
        assert max(row["printed_fpr"] for row in t8["rows"]) == 0


@pytest.mark.claim("ch04-calibrated-threshold-power")
def test_ch04_calibrated_threshold_keeps_its_fpr_and_catches_half(ch04_thresholds):
    # The calibrated threshold is the empirical (1 - 1e-3)-quantile of 10 000 null scores: its true exceedance
    # probability is Beta(10, 9991) (sd 3.2e-4), and the evaluation's 10 000 null scores add binomial sd 3.2e-4, so the
    # measured FPR is 1e-3 +- 4.5e-4; "near the target" is asserted as FPR <= 3e-3 (4.5 sd).
    # "About half": Proposition 4.9 predicts TPR = Phi(sqrt(d/n) - z_0.999) = 0.53; the threshold's sd of 0.094 null
    # SDs (3.2e-4 / phi(3.09)) moves the TPR by sd ~0.04, so |TPR - 1/2| < 0.15 is a ~4-sd band.
    # (The chapter once said "more than half"; seed 9001..9003 gave 0.49, so the sentence was rewritten.)
    for t8 in ch04_thresholds:
        row = {r["target"]: r for r in t8["rows"]}[1e-3]
        assert row["calibrated_fpr"] <= 3e-3
        assert abs(row["calibrated_tpr"] - 0.5) < 0.15


@pytest.mark.claim("ch04-phase-follows-prediction")
def test_ch04_phase_diagram_follows_proposition_4_9():
    from dpteach import bounds
    from dpteach.experiments import fingerprinting as ex
    # Each cell's AUC has SE <= 0.0129 (2000 member scores); Proposition 4.9 is a large-d Gaussian approximation,
    # with a relative variance error O(1/n). "Follows" is asserted as: every feasible cell within 0.06 (4.6 SE) of
    # the prediction.
    ns = np.array([10, 20, 50, 100, 200, 500, 1000])
    for seed in CLAIM_SEEDS:
        phase = ex.phase_diagram(200, ns, [0.02, 0.05, 0.1, 0.2, 0.5, 1.0], n_scores=2000, rng=seed)
        predicted = bounds.predicted_auc(1.0, 200, phase["n"][None, :], phase["alpha"][:, None])
        feasible = ~np.isnan(phase["auc"])
        assert feasible.sum() > 20
        assert np.max(np.abs(phase["auc"] - predicted)[feasible]) < 0.06


@pytest.fixture(scope="module")
def ch04_t7():
    from dpteach.experiments import fingerprinting as ex
    # The chapter's T7 at its extreme ratios (1.2 and 20) and at epsilon = 1 and 10, 1000 member scores per cell.
    return [ex.regression_experiment(50, 5, [1.2, 20.0], [1.0, 10.0], n_scores=1000, rng=seed)
            for seed in CLAIM_SEEDS]


@pytest.mark.claim("ch04-ols-traceable-score-strongest")
def test_ch04_ols_is_traceable_near_d_and_the_score_statistic_is_strongest(ch04_t7):
    # AUC SE <= 0.013 per cell; both statistics see the same records, so their difference is less noisy still.
    # Traceable: AUC > 0.5 + 0.05 (3.9 SE); strongest: score above Lemma 19's statistic on every seed.
    for t7 in ch04_t7:
        ols = t7["auc"]["ols"]
        assert ols["score"][0] > 0.55 and ols["classical"][0] > 0.5
        assert ols["score"][0] > ols["classical"][0]


@pytest.mark.claim("ch04-ols-power-falls-with-n")
def test_ch04_ols_power_falls_as_n_over_d_grows(ch04_t7):
    for t7 in ch04_t7:
        for stat in ("score", "classical"):
            assert t7["auc"]["ols"][stat][1] < t7["auc"]["ols"][stat][0]


@pytest.mark.claim("ch04-noisy-ols-near-half")
def test_ch04_noisy_ols_is_near_half_at_every_epsilon(ch04_t7):
    # "Near 1/2" at every epsilon of the grid, epsilon = 10 included (Chapter 5's default noise, calibrated for the
    # sensitivity 8 sqrt(d) T / n): within 0.06 of 1/2, 4.6 SE of an AUC over 1000 member and 1000 non-member
    # scores (SE <= sqrt(1/12 (1/1000 + 1/1000)) = 0.013).
    for t7 in ch04_t7:
        for epsilon in (1.0, 10.0):
            for stat in ("score", "classical"):
                assert np.all(np.abs(t7["auc"][("noisy_ols", epsilon)][stat] - 0.5) < 0.06)


@pytest.mark.claim("ch04-lasso-only-sign-weighted")
def test_ch04_lasso_is_traced_only_by_the_sign_weighted_statistic(ch04_t7):
    # Printed statistic: within 0.06 of 1/2 at both ratios (4.6 SE). Sign-weighted: above the printed one at
    # n/d = 1.2 on every seed, and below 0.65 ("weakly").
    for t7 in ch04_t7:
        lasso = t7["auc"]["lasso"]
        assert np.all(np.abs(lasso["sparse"] - 0.5) < 0.06)
        assert lasso["sparse_sign"][0] > lasso["sparse"][0]
        assert np.all(lasso["sparse_sign"] < 0.65)


@pytest.mark.claim("ch04-private-lasso-near-half")
def test_ch04_private_lasso_stays_near_half(ch04_t7):
    for t7 in ch04_t7:
        for epsilon in (1.0, 10.0):
            for stat in ("sparse", "sparse_sign"):
                assert np.all(np.abs(t7["auc"][("dp_lasso", epsilon)][stat] - 0.5) < 0.06)



# ---------------------------------------------------------------------------------------------
# Chapter 5
# ---------------------------------------------------------------------------------------------

import functools  # noqa: E402  (imported here, not at the top, so that chapter sections merge cleanly)
import math  # noqa: E402

_CH05_E1_EPSILONS = (0.5, 1.0, 2.0, 4.0, 16.0)
_CH05_E1_NS = (3_000, 10_000, 30_000, 100_000)


@functools.lru_cache(maxsize=None)
def _ch05_e1(seed):
    """E1 of chapter 5 on one claim seed: the chapter's grid of n, d = 200, s = 5, 2 runs (no LASSO baseline)."""
    from dpteach.experiments import regression as experiments
    return experiments.error_vs_n(list(_CH05_E1_NS), list(_CH05_E1_EPSILONS), d=200, s=5, n_reps=2, lasso_max_n=0,
                                  rng=seed)


def _ch05_e1_mean(seed, epsilon):
    """Mean error over the 2 runs at each n of E1, for one ε."""
    return _ch05_e1(seed)["dp"][_CH05_E1_EPSILONS.index(epsilon)].mean(axis=-1)


# Run-to-run spread used below: the chapter's reference setting (ε = 4, n = 1e5, tests/test_regression.py) has
# error 0.17 with standard deviation 0.05, i.e. about 30 % per run, 21 % for a mean of 2 runs and ≈ 0.2 in log.


@pytest.mark.claim("ch05-e1-crosses-one")
def test_ch05_e1_private_lasso_crosses_the_trivial_error_between_3000_and_30000():
    # Measured 2.6–3.6 at n = 3000 and 0.40–0.61 at n = 3e4: each side is more than 2.5 log-sds (≥ 0.5 in log,
    # against ≈ 0.2) from the line 1, so it holds on every seed.
    for seed in CLAIM_SEEDS:
        mean = _ch05_e1_mean(seed, 4.0)
        assert mean[0] > 1.0 and mean[2] < 1.0, (seed, mean)


@pytest.mark.claim("ch05-e1-private-slope-steeper")
def test_ch05_e1_private_curve_falls_faster_than_one_over_root_n():
    # Log-log slope between n = 3e4 and 1e5 at ε = 4, pooled over 3 seeds × 2 runs: the log of a 6-run mean has sd
    # ≈ 0.3/√6 ≈ 0.12 per n, so the slope has sd ≈ 0.12·√2 / ln(10/3) ≈ 0.14. Predicted ≈ −1 (privacy term ∝ 1/n);
    # asserting < −0.5 (the non-private slope) leaves more than 3 sds. Split IHT's slope is checked near −1/2.
    private = np.mean([_ch05_e1(seed)["dp"][_CH05_E1_EPSILONS.index(4.0), 2:] for seed in CLAIM_SEEDS], axis=(0, 2))
    iht = np.mean([_ch05_e1(seed)["iht"][2:] for seed in CLAIM_SEEDS], axis=(0, 2))
    run = math.log(_CH05_E1_NS[3] / _CH05_E1_NS[2])
    slope = math.log(private[1] / private[0]) / run
    assert slope < -0.5, slope
    assert -0.5 - 0.25 < math.log(iht[1] / iht[0]) / run < -0.5 + 0.25  # IHT: ≈ −1/2, ± ~2 sds (its spread is smaller)


@pytest.mark.claim("ch05-e1-joins-iht-at-large-epsilon")
def test_ch05_e1_private_lasso_reaches_split_iht_at_epsilon_16_and_not_at_4():
    # At ε = 16, n = 1e5 measured ratios private/IHT 0.88–1.06; at ε = 4, 1.5–2.9. A ratio of two 2-run means has a
    # log-sd ≈ 0.3; "reaches" is asserted as ratio < 1.5 (≥ 1.3 log-sds above the worst measured), "still above" as > 1.
    for seed in CLAIM_SEEDS:
        iht = _ch05_e1(seed)["iht"][-1].mean()
        assert _ch05_e1_mean(seed, 16.0)[-1] < 1.5 * iht, seed
        assert _ch05_e1_mean(seed, 4.0)[-1] > iht, seed


@pytest.mark.claim("ch05-e1-shapes-flatter-than-measured")
def test_ch05_e1_theory_shapes_fall_more_slowly_than_the_measured_curve():
    # err(3000)/err(1e5) at ε = 4 measured 13–35; the shapes' ratios are computed (≈ 6.9 upper, 6.0 lower). A ratio of
    # 2-run means has log-sd ≈ 0.3, and ln(13/6.9) ≈ 0.6 is 2 sds: asserted on every seed.
    from dpteach import bounds
    from dpteach.experiments import regression as experiments
    ns = np.array([_CH05_E1_NS[0], _CH05_E1_NS[-1]], dtype=float)
    delta = experiments.default_delta(_CH05_E1_NS[-1])
    shapes = [rate(ns, 200, 5, 4.0, delta) for rate in (bounds.sparse_regression_upper_rate,
                                                         bounds.sparse_regression_lower_rate)]
    steepest_shape = max(shape[0] / shape[1] for shape in shapes)
    for seed in CLAIM_SEEDS:
        mean = _ch05_e1_mean(seed, 4.0)
        assert mean[0] / mean[-1] > steepest_shape, seed


@pytest.mark.claim("ch05-e2-error-falls-like-one-over-epsilon")
def test_ch05_e2_epsilon_times_error_is_nearly_constant_while_privacy_dominates():
    # At n = 3000, 1e4 and 3e4, ε·error over ε ∈ {0.5, 1, 2, 4} measured max/min 1.1–1.6. Under 1/√ε the ratio would be
    # √8 ≈ 2.8, with no ε-dependence 8: the bound 2 separates 1/ε from both. Two-run means (log-sd ≈ 0.2 each) make
    # the ratio's log-sd ≈ 0.3 at worst; the worst measured 1.6 is ≈ 0.7 sd below 2, so the claim is "less than 2".
    epsilons = np.array(_CH05_E1_EPSILONS[:4])
    for seed in CLAIM_SEEDS:
        for j in (0, 1, 2):
            scaled = epsilons * np.array([_ch05_e1_mean(seed, e)[j] for e in epsilons])
            assert scaled.max() / scaled.min() < 2.0, (seed, _CH05_E1_NS[j], scaled)


_CH05_E34_EPSILONS = (1.0, 4.0, 16.0)


@functools.lru_cache(maxsize=None)
def _ch05_e34(seed):
    """E3 and E4 of chapter 5 on one claim seed (n = 2e4, 2 runs), as in the chapter."""
    from dpteach.experiments import regression as experiments
    e3 = experiments.error_vs_sparsity([2, 5, 10, 20], list(_CH05_E34_EPSILONS), n=20_000, d=200, n_reps=2, rng=seed)
    e4 = experiments.error_vs_dimension([20, 50, 200, 500], list(_CH05_E34_EPSILONS), n=20_000, s=5, n_reps=2,
                                        rng=seed)
    return e3, e4


@pytest.mark.claim("ch05-e3-error-about-linear-in-s")
def test_ch05_e3_error_grows_about_linearly_in_s():
    # Log-log slope from s = 5 to 20 (predicted 1). Each 2-run mean has log-sd ≈ 0.25, the slope ≈ 0.35/ln 4 ≈ 0.25:
    # the band [0.5, 1.5] is 2 sds each side; measured 0.62–1.04 on the claim seeds.
    for seed in CLAIM_SEEDS:
        e3, _ = _ch05_e34(seed)
        for epsilon in (4.0, 16.0):
            mean = e3["dp"][_CH05_E34_EPSILONS.index(epsilon)].mean(axis=-1)
            slope = math.log(mean[3] / mean[1]) / math.log(20 / 5)
            assert 0.5 < slope < 1.5, (seed, epsilon, slope)


@pytest.mark.claim("ch05-e3-support-share-falls-with-s")
def test_ch05_e3_support_share_falls_with_s_at_epsilon_4_and_stays_high_at_16():
    # Shares are means of 2 runs of |Ŝ ∩ S|/s. Measured at ε = 4: 1.0 at s = 2 and 0.23–0.33 at s = 20; at ε = 16,
    # ≥ 0.875 everywhere. Bounds 0.9, 0.5 and 0.75 leave at least 0.1 (about one selection in 2s = 40 draws at s = 20).
    for seed in CLAIM_SEEDS:
        e3, _ = _ch05_e34(seed)
        share = e3["support"].mean(axis=-1)
        at4, at16 = share[_CH05_E34_EPSILONS.index(4.0)], share[_CH05_E34_EPSILONS.index(16.0)]
        assert at4[0] >= 0.9 and at4[-1] <= 0.5, (seed, at4)
        assert at16.min() >= 0.75, (seed, at16)


@pytest.mark.claim("ch05-e4-error-at-most-log-d")
def test_ch05_e4_error_grows_at_most_like_log_d():
    # err(d = 500)/err(d = 20) against log 500/log 20 ≈ 2.07. Measured 0.57–1.16; a ratio of 2-run means has
    # log-sd ≈ 0.35, and ln(2.07/1.16) ≈ 0.58 is 1.7 sds: asserted on every seed and ε.
    for seed in CLAIM_SEEDS:
        _, e4 = _ch05_e34(seed)
        mean = e4["dp"].mean(axis=-1)
        assert np.all(mean[:, -1] / mean[:, 0] <= math.log(500) / math.log(20)), (seed, mean)


@functools.lru_cache(maxsize=None)
def _ch05_e5(seed):
    """E5 of chapter 5 (ablations at n = 3e4, ε = 4, d = 200, s = 5), 2 runs, on one claim seed."""
    from dpteach.experiments import regression as experiments
    return {name: errors.mean(axis=1) for name, (_, errors) in
            experiments.ablations(n=30_000, d=200, s=5, epsilon=4.0, n_reps=2, rng=seed).items()}


@pytest.mark.claim("ch05-e5-fewer-selected-coordinates-better")
def test_ch05_e5_selecting_4s_is_worse_and_s_is_as_good_as_2s():
    # Measured err(4s)/err(2s) 1.6–2.1 and err(s)/err(2s) 0.21–0.93. The runs share data and seed across options,
    # so ratios are less noisy than independent 2-run means (log-sd ≤ 0.3): "worse" is asserted as > 1.2, "as good"
    # as < 1.25.
    for seed in CLAIM_SEEDS:
        one, two, four = _ch05_e5(seed)["ŝ / s"]
        assert four > 1.2 * two and one < 1.25 * two, (seed, one, two, four)


@pytest.mark.claim("ch05-e5-fewer-iterations-better")
def test_ch05_e5_two_iterations_beat_the_default():
    # Measured err(N₀ = 2)/err(N₀ = ⌈ln n⌉) 0.10–0.22; the claim says "less than half" (≥ 2 log-sds of margin).
    for seed in CLAIM_SEEDS:
        errors = _ch05_e5(seed)["N₀"]
        assert errors[0] < 0.5 * errors[2], (seed, errors)


@pytest.mark.claim("ch05-e5-half-truncation-better")
def test_ch05_e5_half_the_default_truncation_is_better():
    # Measured err(T/2)/err(T) 0.45–0.53 (shared data and seed): asserted < 1, more than 2 log-sds away.
    for seed in CLAIM_SEEDS:
        errors = _ch05_e5(seed)["T / default"]
        assert errors[0] < errors[1], (seed, errors)


@pytest.mark.claim("ch05-e5-clipping-changes-nothing")
def test_ch05_e5_residual_clipping_never_acts_on_this_data():
    # Same data, same seed: if the clipping never acts, the two fits are the same computation, bit for bit.
    for seed in CLAIM_SEEDS:
        on, off = _ch05_e5(seed)["residual clipping"]
        assert on == off, seed


_CH05_E6_NS = (1_000, 3_000, 10_000)


@functools.lru_cache(maxsize=None)
def _ch05_e6(seed):
    """E6 of chapter 5 at ε = 1 (d = 20, the chapter's c_W = 1, 6, 128), 2 runs, on one claim seed."""
    from dpteach.experiments import regression as experiments
    return experiments.classical_experiment(list(_CH05_E6_NS), [1.0], d=20, n_reps=2, rng=seed)


@pytest.mark.claim("ch05-e6-private-slope-about-minus-one")
def test_ch05_e6_private_curves_fall_like_one_over_n_and_ols_like_one_over_root_n():
    # Slopes between n = 1e3 and 1e4 (one decade). The error of a 20-dimensional Gaussian noise vector, averaged over
    # 2 runs, has relative sd ≈ 1/√(2·2·20) ≈ 0.11, so a one-decade slope has sd ≈ 0.16/ln 10 ≈ 0.07. Measured
    # −0.75 … −0.97 for c_W = 128 and DP-GD: asserted < −0.65 (≥ 1.4 sds of margin, predicted −1), and OLS (measured
    # −0.48 … −0.51) in [−0.65, −0.35].
    for seed in CLAIM_SEEDS:
        e6 = _ch05_e6(seed)
        for curve in (e6["noisy_ols"][2, 0].mean(-1), e6["dp_gd"][0].mean(-1)):
            assert math.log10(curve[2] / curve[0]) < -0.65, (seed, curve)
        ols = e6["ols"].mean(-1)
        assert -0.65 < math.log10(ols[2] / ols[0]) < -0.35, (seed, ols)


@pytest.mark.claim("ch05-e6-gd-within-two-of-cw128")
def test_ch05_e6_dp_gradient_descent_within_a_factor_two_of_noisy_ols_cw128():
    # Where privacy dominates both errors are ≈ noise sd × √d, and σ_GD/σ_W(c_W = 128) is 1.0–1.25 at these n
    # (formulas, checked here); with the 11 % relative sd of each mean the ratio stays well inside [1/2, 2]
    # (measured 0.86–1.41).
    from dpteach import regression
    from dpteach.experiments import regression as experiments
    for n in _CH05_E6_NS:
        args = (n, 20, 1.0, experiments.default_delta(n), regression.default_truncation(n))
        ratio = regression.dp_gradient_descent_sigma(*args) / regression.noisy_ols_noise_std(*args, noise_multiplier=128.0)
        assert 1.0 < ratio < 1.3, (n, ratio)
    for seed in CLAIM_SEEDS:
        e6 = _ch05_e6(seed)
        ratio = e6["dp_gd"][0].mean(-1) / e6["noisy_ols"][2, 0].mean(-1)
        assert np.all((0.5 < ratio) & (ratio < 2.0)), (seed, ratio)


@pytest.mark.claim("ch05-e6-gd-far-above-cw1")
def test_ch05_e6_dp_gradient_descent_several_times_above_noisy_ols_cw1():
    # At n <= 3000 measured DP-GD/c_W = 1 error ratios 8.6–12 (noise ratio σ_GD/σ_W ≈ 11.5 by the formulas, the c_W = 1
    # error partly OLS's own): "several times" asserted as > 5, far beyond the 11 % spread of each mean.
    for seed in CLAIM_SEEDS:
        e6 = _ch05_e6(seed)
        ratio = e6["dp_gd"][0].mean(-1)[:2] / e6["noisy_ols"][0, 0].mean(-1)[:2]
        assert np.all(ratio > 5.0), (seed, ratio)


@pytest.mark.claim("ch05-e6-gd-noise-grows-like-root-k")
def test_ch05_gd_noise_over_noisy_ols_grows_like_root_k():
    # A formula claim (no randomness), checked at the book's two n and at n the book does not print. Against noisy
    # OLS's own calibration on the event (analytic σ for Δ₂ = 8√d·T/n) DP-GD's σ is the analytic σ for
    # Δ₂√K = 4√d·T√K/n, and gaussian_sigma is linear in the sensitivity, so the ratio is √K/2 up to rounding
    # (asserted to 1e-9 relative). Against c_W = 1, σ_W = √(d·T²·ln(1.25/δ))/(nε): the ratio over √K is
    # 4·σ_analytic(1, ε, δ)/√ln(1.25/δ), a function of δ(n) only. The analytic σ at ε = 1 lies between
    # √ln(1.25/δ) (measured above it by 9-18 % at these δ) and the classic √(2 ln(1.25/δ)) (Theorem 1.10 at ε ≤ 1),
    # so the ratio/√K must stay in [4, 4√2]: "grows like √K", and above 10 at every n >= 1000.
    from dpteach import regression
    from dpteach.experiments import regression as experiments
    for n in (1_000, 2_500, 40_000, 10_000_000, 300_000_000):
        args = (n, 20, 1.0, experiments.default_delta(n), regression.default_truncation(n))
        sigma_gd, n_steps = regression.dp_gradient_descent_sigma(*args), math.ceil(math.log(n))
        over_event = sigma_gd / regression.noisy_ols_noise_std(*args)
        assert over_event == pytest.approx(math.sqrt(n_steps) / 2, rel=1e-9), (n, over_event)
        over_cw1 = sigma_gd / regression.noisy_ols_noise_std(*args, noise_multiplier=1.0)
        assert 4.0 <= over_cw1 / math.sqrt(n_steps) <= 4.0 * math.sqrt(2.0), (n, over_cw1)
        assert over_cw1 > 10.0, (n, over_cw1)


@functools.lru_cache(maxsize=None)
def _ch05_tracing(seed):
    """The chapter's tracing experiment (ε = 1, 30 trials) on one claim seed."""
    from dpteach.experiments import regression as experiments
    return experiments.tracing_experiment(epsilon=1.0, n_reps=30, rng=seed)


# AUC standard errors for independent scores: √((1/12)(1/m + 1/m')) ≈ 0.012 for 1200 members and 1200 non-members
# (classical half), 0.0037 for 12 000 (sparse half). Pooling shares M within a trial, which inflates them; the
# margins below are stated in these units and are meant generously.


@pytest.mark.claim("ch05-tracing-non-private-leak")
def test_ch05_tracing_non_private_estimators_leak():
    # Measured OLS 0.553–0.579 (Lemma 19) and 0.651–0.670 (score), LASSO 0.549–0.554 (Lemma 19). "Clearly above ½":
    # OLS > 0.525 (2 SE) and > 0.6 (8 SE), LASSO > 0.52 (5 SE).
    for seed in CLAIM_SEEDS:
        auc = _ch05_tracing(seed)
        assert auc["OLS"]["classical"] > 0.525 and auc["OLS"]["score"] > 0.6, (seed, auc["OLS"])
        assert auc["LASSO"]["classical"] > 0.52, (seed, auc["LASSO"])


@pytest.mark.claim("ch05-tracing-sparse-statistics-weak")
def test_ch05_tracing_lemma_18_statistic_blind_and_sign_weighted_weak():
    # Measured printed 0.498–0.512, sign-weighted 0.530–0.534 (SE 0.0037 for independent scores). "Sees nothing":
    # within 0.02 (5 SE) of ½; "only a little": sign-weighted above printed, and below 0.56.
    for seed in CLAIM_SEEDS:
        lasso = _ch05_tracing(seed)["LASSO"]
        assert abs(lasso["sparse"] - 0.5) < 0.02, (seed, lasso)
        assert lasso["sparse"] < lasso["sparse_sign"] < 0.56, (seed, lasso)


@pytest.mark.claim("ch05-tracing-private-near-half")
def test_ch05_tracing_private_estimators_near_half():
    # Every private AUC measured within 0.032 of ½ (noisy OLS with the paper's c_W = 1, the least noise, the
    # farthest): asserted within 0.05 (4 SE of the classical half) and below the DP cap e/(1 + e) + δ ≈ 0.73.
    cap = math.e / (1 + math.e) + 1e-5
    for seed in CLAIM_SEEDS:
        auc = _ch05_tracing(seed)
        for name, values in auc.items():
            if "ε =" in name:
                assert all(abs(v - 0.5) < 0.05 and v < cap for v in values.values()), (seed, name, values)


@functools.lru_cache(maxsize=None)
def _ch05_e7(seed):
    """E7 of chapter 5 (audit of Peeling and of its forgotten-√s copy, 4000 runs per neighbour) on one claim seed."""
    from dpteach.experiments import regression as experiments
    return experiments.peeling_audit_experiment([1, 2, 5, 10, 20], epsilon=1.0, delta=1e-3, n_trials=4_000, rng=seed)


@pytest.mark.claim("ch05-e7-correct-peeling-near-zero")
def test_ch05_e7_correct_peeling_audits_near_zero_below_its_certificate():
    # Measured ≤ 0.07 at every s; asserted ≤ 0.15 and below the certificate (≈ 0.8–0.97). Holds on every seed.
    for seed in CLAIM_SEEDS:
        e7 = _ch05_e7(seed)
        assert np.all(e7["right"] <= 0.15) and np.all(e7["right"] < e7["certified"]), (seed, e7["right"])


@pytest.mark.claim("ch05-e7-broken-above-correct-below-claim")
def test_ch05_e7_broken_peeling_above_correct_from_s_10_but_not_caught():
    # Measured gaps broken − correct at s = 10, 20: 0.40–0.81 (asserted ≥ 0.3); broken bounds ≤ 0.83 (asserted < 1,
    # the claim: this budget does not catch the bug; tests/test_peeling.py does at s = 50). Holds on every seed.
    for seed in CLAIM_SEEDS:
        e7 = _ch05_e7(seed)
        assert np.all(e7["broken"][3:] - e7["right"][3:] >= 0.3), (seed, e7["broken"], e7["right"])
        assert np.all(e7["broken"] < 1.0), (seed, e7["broken"])


def test_ch05_typed_formula_numbers():
    """Numbers of chapter 5 that follow from formulas and stay typed in the prose (exercises 5.1–5.3)."""
    from dpteach import regression
    from dpteach.peeling import peeling_noise_scale
    # Exercise 5.1: λ and b·log d at n = 3e4 and 1e5 (ŝ = 10, ε = 4, δ = 1e-5).
    for n, lam_typed, spread_typed in ((30_000, 9.4e-3, 0.46), (100_000, 3.3e-3, 0.16)):
        blocks, T = math.ceil(math.log(n)), regression.default_truncation(n)
        lam = regression.dp_lasso_sensitivity(n // blocks, T)
        assert lam == pytest.approx(lam_typed, rel=0.02)
        assert peeling_noise_scale(10, 4.0, 1e-5, lam) * math.log(200) == pytest.approx(spread_typed, abs=0.01)
    # Exercise 5.2: b_full ≈ 0.11 and b_split ≈ 0.35 at n = 3e4 (N₀ = 11), ŝ = 10, ε = 1, δ = 1e-5; ratio 1/√N₀.
    n, blocks = 30_000, 11
    T = regression.default_truncation(n)
    b_split = peeling_noise_scale(10, 1.0, 1e-5, 4 * T * blocks / n)
    b_full = peeling_noise_scale(10 * blocks, 1.0, 1e-5, 4 * T / n)
    assert (round(b_full, 2), round(b_split, 2)) == (0.11, 0.35)
    assert b_full / b_split == pytest.approx(1 / math.sqrt(blocks))
    # Exercise 5.3: the ε-inside-the-root bug at ε = 4 is Peeling at ε = 2, certified ε' ≈ 1.6.
    assert peeling.peeling_epsilon(10, 2.0, 1e-5) == pytest.approx(1.6, abs=0.05)
    # Theorem 5.3's remark: the first-order term is √(2.5/3)·ε ≈ 0.913·ε, leaving 0.087·ε for the rest.
    assert math.sqrt(2.5 / 3) == pytest.approx(0.913, abs=5e-4)
    # Exercise 5.1's intermediate values at n = 3e4: T ≈ 6.4, N₀ = 11, 3ŝ ln(1/δ) ≈ 345, b ≈ 0.087.
    assert (round(regression.default_truncation(30_000), 1), math.ceil(math.log(30_000))) == (6.4, 11)
    assert 3 * 10 * math.log(1e5) == pytest.approx(345, abs=0.5)
    T = regression.default_truncation(30_000)
    assert peeling_noise_scale(10, 4.0, 1e-5, regression.dp_lasso_sensitivity(30_000 // 11, T)) == pytest.approx(
        0.087, abs=0.001)
    # E2's remark: ŝ = 10 <= (4/3) ln(1/δ) at every n of E1, so basic composition certifies every ε there.
    from dpteach.experiments import regression as experiments
    assert all(10 <= 4 / 3 * math.log(1 / experiments.default_delta(n)) for n in _CH05_E1_NS)


# The tight-accounting figure for Peeling (issue 24): ε = 1, δ = 1e-3, n = d = 200, 400 releases per s.
_CH05_TIGHT_SPARSITIES = (1, 2, 5, 10, 20, 50)


@functools.lru_cache(maxsize=None)
def _ch05_tight(seed):
    pytest.importorskip("dp_accounting", reason="the PLD accountant needs dp-accounting")
    from dpteach.experiments.regression import peeling_accounting_sweep
    return peeling_accounting_sweep(_CH05_TIGHT_SPARSITIES, epsilon=1.0, delta=1e-3, n=200, d=200, n_reps=400,
                                    rng=np.random.default_rng([seed, 24]))


@pytest.mark.claim("ch05-tight-peeling-less-noise-less-error")
def test_ch05_tight_peeling_scale_smaller_and_error_lower_from_s_5():
    # The scales depend on (s, ε, δ) only: exact on every seed. For s ≤ 2 they agree within 2 % (the sentence says
    # "nearly coincide"); from s = 5 the tight one is smaller. The errors are means of 400 independent releases; their
    # per-release spread measured on CLAIM_SEEDS is ≤ 0.06 at s = 5, so the difference of two means has standard
    # error ≤ 0.06·√(2/400) ≈ 0.004, and the smallest difference from s = 5 on is about 0.017 (4 standard errors):
    # asserting it positive fails by chance with probability below 10⁻⁴ per comparison.
    for seed in CLAIM_SEEDS:
        result = _ch05_tight(seed)
        small = result["sparsities"] <= 2
        ratio = result["scale_tight"] / result["scale_textbook"]
        assert np.all(np.abs(ratio[small] - 1) < 0.02), (seed, ratio)
        assert np.all(ratio[~small] < 1), (seed, ratio)
        gain = result["error_textbook"] - result["error_tight"]
        assert np.all(gain[~small] > 0), (seed, gain)


# ---------------------------------------------------------------------------------------------
# Chapter 6
# ---------------------------------------------------------------------------------------------

import functools  # noqa: E402,F811  (imported here too, so that this section stands on its own)
import math  # noqa: E402,F811

# Chapter 6 runs its experiments with SEED = 6; these tests rerun the same dpteach runners on CLAIM_SEEDS.
# Every test error is measured on 20 000 fresh points: standard error ≤ 0.5/√20000 ≈ 0.0035 per error, about 0.005
# for a difference of two errors. Run-to-run (training-set) spreads quoted below were measured on CLAIM_SEEDS and
# on the book's seed with the same runners.

_CH06_DEGREES = (1, 3, 5, 7, 9, 13, 17)
_CH06_EPSILONS = (0.1, 0.3, 3.0, 10.0)
_CH06_ALPHAS = (0.06, 0.1, 0.15, 0.2, 0.3)
_CH06_DIMS = (2, 3, 4, 6, 8)


@functools.lru_cache(maxsize=None)
def _ch06_approximation():
    """Section 6.2's figure (deterministic: exact coefficients and a linear program on a fixed grid)."""
    from dpteach.experiments import improper as runs
    return runs.approximation_errors(np.array(_CH06_DEGREES), theta=0.0)


@pytest.mark.claim("ch06-approximation-slower-than-rate")
def test_ch06_approximation_errors_fall_more_slowly_than_p_to_minus_half():
    # Deterministic computation, measured log-slopes −0.27 (projection) and −0.33 (best L1 fit) between p = 1 and 17.
    # The claim is "not −0.5": asserted > −0.45, a margin far above the LP's grid error (the LP uses ~600 nodes).
    approx = _ch06_approximation()
    span = math.log(_CH06_DEGREES[-1] / _CH06_DEGREES[0])
    for key in ("projection_error", "l1_error"):
        slope = math.log(approx[key][-1] / approx[key][0]) / span
        assert -0.45 < slope < 0, (key, slope)


@pytest.mark.claim("ch06-l1-coefficients-explode")
def test_ch06_unconstrained_l1_coefficients_explode_while_projections_stay_in_the_unit_ball():
    # Measured norms 0.84 (p = 1) and 38.0 (p = 17); Bessel keeps the L² projection's norm ≤ 1 at every p.
    approx = _ch06_approximation()
    assert approx["l1_norm"][-1] > 10 * approx["l1_norm"][0] and approx["l1_norm"][-1] > 10
    assert np.all(approx["projection_norm"] <= 1)


@pytest.mark.claim("ch06-audit-catches-forgotten-radius")
def test_ch06_one_step_audit_passes_the_correct_step_and_catches_the_forgotten_radius():
    # The chapter's audit (T = 4, n = 50, ε = 1, δ = 1e-5, 16 threshold events, 1e5 trials per neighbour). The audit's
    # ε is a confidence lower bound, so a correct mechanism stays ≤ ε except with the audit's small failure probability
    # (measured 0.38 on the book's seed); the broken step adds T = 4 times too little noise, so its true loss on these
    # events is far above 1 (measured 2.26).
    from dpteach import audit, dp_erm
    T, n, epsilon, delta = 4.0, 50, 1.0, 1e-5
    F = np.zeros((n, 2))
    F[0, 0] = T
    y_a = np.ones(n)
    y_b = y_a.copy()
    y_a[0] = -1.0

    def one_step(step):
        def mechanism(data_, n_trials, rng_):
            return step(data_[0], data_[1], np.zeros(2), T, epsilon, delta, rng=rng_, size=n_trials)[:, 0]
        return mechanism

    events = audit.threshold_events(np.linspace(0.1, 1.6, 16))
    for seed in CLAIM_SEEDS:
        good = audit.audit(one_step(dp_erm.noisy_average_subgradient), (F, y_a), (F, y_b), events,
                           n_trials=100_000, delta=delta, rng=seed)
        broken = audit.audit(one_step(dp_erm.broken_noisy_average_subgradient_forgotten_sensitivity), (F, y_a), (F, y_b),
                             events, n_trials=100_000, delta=delta, rng=seed)
        assert good.epsilon_lower <= epsilon < broken.epsilon_lower, (seed, good.epsilon_lower, broken.epsilon_lower)


@functools.lru_cache(maxsize=None)
def _ch06_flat(seed):
    """Section 6.5's Remark 2 measurement (n = 4000, d = 3, α = 0.1), mean excess of 3 data sets per ε."""
    from dpteach.experiments import improper as runs
    excess = runs.excess_error_vs_n([4000], list(_CH06_EPSILONS), d=3, alpha=0.1, n_reps=3, rng=seed)
    return dict(zip(_CH06_EPSILONS, excess[:, 0, :].mean(axis=1)))


@pytest.mark.claim("ch06-privacy-keeps-costing-past-alpha")
def test_ch06_excess_error_keeps_falling_well_past_epsilon_equal_alpha():
    # Measured means: 0.22–0.25 at ε = 0.1, 0.13–0.14 at ε = 0.3, 0.029–0.034 at ε = 3 (ratios 8–9 and 4.2–4.9).
    # Per-run sds ≤ 0.08 / 0.05 / 0.005, so means of 3 have s.e. ≤ 0.046 / 0.029 / 0.003: even 1.5 s.e. low at small ε
    # and high at ε = 3 the ratios stay above the asserted 4 (ε = 0.1) and 2.5 (ε = 0.3 = 3α).
    for seed in CLAIM_SEEDS:
        flat = _ch06_flat(seed)
        assert flat[0.1] > 4 * flat[3.0] and flat[0.3] > 2.5 * flat[3.0], (seed, flat)


@pytest.mark.claim("ch06-flat-past-epsilon-3")
def test_ch06_excess_error_changes_by_less_than_0_02_from_epsilon_3_to_10():
    # Measured differences 0.005–0.012; each mean of 3 runs has s.e. ≈ 0.003, the difference ≈ 0.004: 0.02 is ≥ 2 s.e.
    # above the largest measured value.
    for seed in CLAIM_SEEDS:
        flat = _ch06_flat(seed)
        assert abs(flat[3.0] - flat[10.0]) < 0.02, (seed, flat)


@functools.lru_cache(maxsize=None)
def _ch06_alpha(seed):
    """Section 6.5's error-against-α panel (n = 6000, d = 3, ε = 1), one data set per α."""
    from dpteach.experiments import improper as runs
    return runs.error_vs_alpha(list(_CH06_ALPHAS), n=6000, d=3, epsilon=1.0, n_reps=1, rng=seed)["mean_excess"]


@pytest.mark.claim("ch06-error-rises-as-alpha-falls")
def test_ch06_excess_error_is_larger_at_the_smallest_alpha_than_at_the_largest():
    # Measured per seed: 0.08–0.11 at α = 0.06 and 0.004–0.024 at α = 0.3; one-run sds ≈ 0.015. The mean over the
    # three seeds (s.e. ≈ 0.009) must exceed by 0.03 (measured gap 0.08).
    means = np.mean([_ch06_alpha(seed) for seed in CLAIM_SEEDS], axis=0)
    assert means[0] > means[-1] + 0.03, means


@pytest.mark.claim("ch06-target-met-down-to-alpha-0-1")
def test_ch06_target_alpha_is_met_for_alpha_at_least_0_1_and_missed_at_0_06():
    # Mean over the three seeds (s.e. ≈ 0.009): measured 0.096 at α = 0.06 (asserted > 0.06, 4 s.e.), and at most
    # 0.05 for α = 0.1 … 0.3 (asserted ≤ α, ≥ 5 s.e.).
    means = np.mean([_ch06_alpha(seed) for seed in CLAIM_SEEDS], axis=0)
    assert means[0] > _CH06_ALPHAS[0], means
    assert np.all(means[1:] <= np.array(_CH06_ALPHAS[1:])), means


@functools.lru_cache(maxsize=None)
def _ch06_dims(seed):
    """Section 6.5's error-against-d panel (n = 6000, α = 0.1 so p = 3, ε = 1), one data set per d."""
    from dpteach.experiments import improper as runs
    return runs.error_vs_d(list(_CH06_DIMS), n=6000, alpha=0.1, epsilon=1.0, n_reps=1, rng=seed)["mean_excess"]


@pytest.mark.claim("ch06-error-grows-faster-than-shape-in-d")
def test_ch06_excess_error_grows_faster_in_d_than_the_theorem_shape():
    # Shape √(D/n) + D/(εn) grows 4.5× from d = 2 (D = 10) to d = 8 (D = 165); measured error ratio 13–14. With
    # one-run sds ≈ 0.005 at d = 2 and 0.01 at d = 8, the ratio of 3-seed means stays above 8: asserted > the shape's.
    from dpteach import bounds
    means = np.mean([_ch06_dims(seed) for seed in CLAIM_SEEDS], axis=0)
    shape = [bounds.hermite_l1_excess_error(6000, d, 3, 1.0) for d in (_CH06_DIMS[0], _CH06_DIMS[-1])]
    assert means[-1] / means[0] > shape[1] / shape[0], (means, shape)


@pytest.mark.claim("ch06-d8-near-trivial")
def test_ch06_excess_error_at_d8_is_more_than_70_percent_of_the_constant_classifiers():
    # The constant −1 has excess 0.9·Φ(−0.3) + 0.1·Φ(0.3) − 0.1 = 0.306; measured excess at d = 8: 0.25–0.27 per seed
    # (sd ≈ 0.01), asserted > 0.7 · 0.306 = 0.214 for each seed.
    from scipy.stats import norm
    trivial = 0.9 * norm.sf(0.3) + 0.1 * norm.cdf(0.3) - 0.1
    for seed in CLAIM_SEEDS:
        assert _ch06_dims(seed)[-1] > 0.7 * trivial, (seed, _ch06_dims(seed))


@functools.lru_cache(maxsize=None)
def _ch06_least_squares(seed):
    """Section 6.5's structured-noise comparison (d = 3, p = 3, ε = 1), one data set per n."""
    from dpteach.experiments import improper as runs
    return runs.l1_vs_least_squares([1000, 3000, 10_000], d=3, degree=3, epsilon=1.0, n_reps=1, rng=seed)


@pytest.mark.claim("ch06-least-squares-beats-l1-structured")
def test_ch06_least_squares_has_lower_error_than_nonprivate_l1_at_every_n():
    # Measured gaps 0.016–0.034 (9 of 9 (n, seed) pairs, as in the review's runs); the difference of two errors on
    # the same test set has s.e. ≤ 0.005, so the smallest gap is 3 s.e. from 0.
    for seed in CLAIM_SEEDS:
        ls = _ch06_least_squares(seed)
        assert np.all(ls["least_squares"] < ls["nonprivate_l1"]), (seed, ls)


@pytest.mark.claim("ch06-least-squares-below-opt")
def test_ch06_least_squares_ends_well_below_opt():
    # OPT = 0.1; measured least-squares error at n = 1e4: 0.065–0.066. Asserted < OPT − 0.01 (≥ 4 s.e. of margin).
    for seed in CLAIM_SEEDS:
        ls = _ch06_least_squares(seed)
        assert ls["least_squares"][-1, 0] < ls["opt"] - 0.01, (seed, ls)


@pytest.mark.claim("ch06-nonprivate-l1-near-opt")
def test_ch06_nonprivate_l1_ends_within_0_02_of_opt_usually_below():
    # Measured non-private L1 error at n = 1e4: 0.088–0.100 against OPT = 0.1 (|gap| ≤ 0.012, test s.e. 0.0035);
    # the review's seeds 777 and 4242 gave 0.081 and 0.087. "Within 0.02": each gap. "Usually slightly below": the
    # mean gap over the claim seeds is negative (measured ≈ −0.007, the s.e. of a mean of three is ≈ 0.002).
    gaps = []
    for seed in CLAIM_SEEDS:
        ls = _ch06_least_squares(seed)
        gaps.append(ls["nonprivate_l1"][-1, 0] - ls["opt"])
        assert abs(gaps[-1]) < 0.02, (seed, ls)
    assert np.mean(gaps) < 0.0, gaps


@pytest.mark.claim("ch06-theorem-degree-above-grid-constant")
def test_ch06_degree_200_misses_lemma_6_3_accuracy_at_alpha_0_1():
    # Deterministic (no seed), rerun on a finer grid than the chapter's (12001 nodes, against 4001). Lemma 6.3 at
    # α = 0.1 needs L1 accuracy cα = 0.025 with ‖v‖₂ ≤ 1; a polynomial with all |v_m| ≤ 1 is a weaker constraint, so
    # its best error bounds the lemma's from below. Measured 0.077 at p = 200 (3× cα; the grid moves it by < 0.001),
    # and between p = 50 and 200 a slope of −0.43, flatter than −1/2, so the p^(−1/2) extrapolation 200·(err/cα)²
    # (measured ≈ 1900) is the optimistic one; "an order of magnitude above 200" is asserted as ≥ 10·200 / 1.2.
    from dpteach.experiments import improper as runs
    box = runs.approximation_errors([50, 200], theta=0.0, n_grid=12_001, coefficient_bound=1.0)["l1_error"]
    assert box[1] > 2.5 * 0.025, box
    assert math.log(box[1] / box[0]) / math.log(4) > -0.5, box
    assert 200 * (box[1] / 0.025) ** 2 > 2000 / 1.2, box



# ---------------------------------------------------------------------------------------------
# Chapter 7
# ---------------------------------------------------------------------------------------------


# Chapter 7 runs its experiments with SEED = 20240707 and DELTA = 1e-6; these tests rerun the same dpteach runners on
# CLAIM_SEEDS with the chapter's parameters (the preset: d = 5, w* = (0.6, 0.8, 0, ...), t* = 0.4, RCN eta = 0.1).
# The cover sizes and the rounding cost are deterministic (no seed enters them); those tests say so.
CH07_DELTA = 1e-6
CH07_ALPHA = 0.1
CH07_N_SPECTRUM = [1_000, 3_000, 10_000, 30_000, 100_000]
CH07_RESOLUTIONS = [0.3, 0.2, 0.15, 0.1, 0.07, 0.05]
# The better near-constant errs on Pr[Y = +1] = 0.1 + 0.8·Pr[<w*, X> >= 0.4]; its excess over OPT = 0.1 is 0.2757.
def _ch07_near_constant_excess():
    import math
    return 0.8 * 0.5 * math.erfc(0.4 / math.sqrt(2))


CH07_NEAR_CONSTANT_EXCESS = _ch07_near_constant_excess()


@pytest.mark.claim("ch07-preset-within-alpha")
def test_ch07_preset_learner_is_within_alpha_of_opt():
    from dpteach import data, proper
    from dpteach.experiments import proper as ex
    # Cell 18's fit (n = 20 000, eps = 1): the exact error is below OPT + alpha = 0.2. The book's run gives 0.108; the
    # near-constant fallback (0.376) is the only way to miss, and at n = 20 000 V contains w* (transition ~ 10⁴).
    w_star = ex.preset_normal(5)
    for seed in CLAIM_SEEDS:
        rng = np.random.default_rng(seed)
        X, y, _ = data.gaussian_halfspace_data(20_000, 5, w_star, 0.4, 0.1, rng=rng)
        learner = proper.PrivateProperLearner(alpha=0.1, epsilon=1.0, delta=CH07_DELTA, random_state=rng).fit(X, y)
        error = data.rcn_halfspace_error(learner.coef_, -learner.intercept_, w_star, 0.4, 0.1)
        assert error < 0.1 + CH07_ALPHA, (seed, error)


@pytest.mark.claim("ch07-audit-catches-half-noise")
def test_ch07_audit_catches_the_half_noise_release_and_not_the_correct_one():
    import math
    from dpteach import audit, proper
    from dpteach.hermite import hermite_features
    # Cell 20's audit. audit.audit returns a lower confidence bound on epsilon, so the correct release certifies at most
    # the claimed eps = 2 (except with the audit's small failure probability); the broken one (noise / 2, true eps far
    # above 2) must certify more than 2.
    n_audit, p_audit, T_audit, eps_audit = 100, 2, 2 * math.sqrt(3), 2.0
    for seed in CLAIM_SEEDS:
        rng = np.random.default_rng(seed)
        X_a = rng.standard_normal((n_audit, 1))
        X_a[0] = 3.0
        y_a = np.where(np.arange(n_audit) % 2 == 0, 1.0, -1.0)
        y_b = y_a.copy()
        y_b[0] = -y_a[0]
        direction = hermite_features(X_a[:1], p_audit)[0]
        direction /= np.linalg.norm(direction)
        sigma = proper.private_hermite_correlations(X_a, y_a, p_audit, T_audit, eps_audit, 1e-5)[1]
        centre = proper.private_hermite_correlations(X_a, y_a, p_audit, T_audit, math.inf, 1e-5)[0] @ direction
        certified = {}
        for name, release in [("correct", proper.private_hermite_correlations_batch),
                              ("broken", proper.broken_private_hermite_correlations_half_noise)]:
            def mechanism(labels, n_trials, rng, release=release):
                return release(X_a, labels, p_audit, T_audit, eps_audit, 1e-5, rng=rng, size=n_trials)[0] @ direction
            events = audit.threshold_events(centre + sigma * np.array([1.0, 2.0, 2.5, 3.0]))
            certified[name] = audit.audit(mechanism, y_a, y_b, events, n_trials=40_000, delta=1e-5,
                                          rng=rng).epsilon_lower
        assert certified["correct"] <= eps_audit < certified["broken"], (seed, certified)


@pytest.fixture(scope="module")
def ch07_spectra():
    from dpteach.experiments import proper as ex
    # Cell 22: one dataset per n and d, p = 4 (alpha = 0.1), the sliders' defaults eps = 1.
    return [{d: ex.correlation_means(d, [4], CH07_N_SPECTRUM, rng=np.random.default_rng(seed)) for d in (3, 5, 8)}
            for seed in CLAIM_SEEDS]


@pytest.mark.claim("ch07-spectrum-small-n-empty")
def test_ch07_v_is_empty_at_small_n_or_small_epsilon(ch07_spectra):
    from dpteach.experiments import proper as ex
    # At n = 10³ and eps = 1 the threshold 2·floor is above 2 (sigma²·C(d+4, 3) with sigma ~ 0.2), far above the
    # signal 0.6; at eps = 0.1 sigma is ten times larger, so V is still empty at n = 10⁴ (measured: empty up to 3·10⁴).
    for spectra in ch07_spectra:
        for d, precomputed in spectra.items():
            assert ex.spectrum_at(precomputed, 4, 1.0, delta=CH07_DELTA)["dim"][0] == 0, d
            assert np.all(ex.spectrum_at(precomputed, 4, 0.1, delta=CH07_DELTA)["dim"][:3] == 0), d


@pytest.mark.claim("ch07-spectrum-signal-eigenvalue")
def test_ch07_top_eigenvalue_sits_at_the_signal_level(ch07_spectra):
    from dpteach.experiments import proper as ex
    from dpteach.hermite_coefficients import threshold_hermite_coefficients
    # At n = 10⁵, eps = 1 the top eigenvalue is the signal (1 - 2 eta)² Σ k c_k² = 0.600 plus a perturbation of the
    # order of the noise floor (sigma² + 1/n1)·C(d+4, 3) <= 0.02 (d = 8) and its cross term with the signal
    # (~ 2·sqrt(0.6·0.02) ~ 0.2 at worst, ~ 0.02 typical along one direction): |lambda1 - signal| < 0.1.
    signal = 0.64 * float(np.sum(np.arange(5) * threshold_hermite_coefficients(0.4, 4) ** 2))
    for spectra in ch07_spectra:
        for d, precomputed in spectra.items():
            top = ex.spectrum_at(precomputed, 4, 1.0, delta=CH07_DELTA)["eigenvalues"][-1, 0]
            assert abs(top - signal) < 0.1, (d, top, signal)


@pytest.mark.claim("ch07-spectrum-angle-shrinks")
def test_ch07_angle_between_w_star_and_v_shrinks_with_n(ch07_spectra):
    import math
    from dpteach.experiments import proper as ex
    # Without noise at d = 5 the angle is the size of a (d-1)-dimensional Gaussian perturbation of m̂ over the
    # signal, so it scales like 1/sqrt(n): from n = 10³ to 10⁵ it should fall 10-fold. We require 3-fold: a ratio of
    # two independent chi_4 draws exceeds 10/3 times its typical value with probability well under 1 %.
    for spectra in ch07_spectra:
        angle = ex.spectrum_at(spectra[5], 4, math.inf, delta=CH07_DELTA)["angle"]
        assert angle[0] < math.pi / 2 and angle[-1] < angle[0] / 3, np.degrees(angle)


@pytest.mark.claim("ch07-spectrum-larger-d-later")
def test_ch07_larger_dimension_delays_the_subspace(ch07_spectra):
    from dpteach.experiments import proper as ex
    # The first n with dim V >= 1 at eps = 1 does not decrease with d and is strictly later at d = 8 than at d = 3
    # (the floor grows with C(d+4, 3): 35, 126, 495 at d = 3, 5, 8).
    for spectra in ch07_spectra:
        first = {}
        for d, precomputed in spectra.items():
            found = ex.spectrum_at(precomputed, 4, 1.0, delta=CH07_DELTA)["dim"] > 0
            first[d] = CH07_N_SPECTRUM[int(np.argmax(found))] if found.any() else np.inf
        assert first[3] <= first[5] <= first[8] and first[3] < first[8], first


CH07_EPS_CURVE = [0.1, 0.3, 1.0, float("inf")]


@pytest.fixture(scope="module")
def ch07_curves():
    from dpteach.experiments import proper as ex
    # Cell 24's setting: n in 10³..10⁵, eps in {0.1, 0.3, 1, inf}, 5 datasets per n, alpha = 0.1.
    return [ex.excess_error_curves(CH07_N_SPECTRUM, CH07_EPS_CURVE, n_reps=5, alpha=CH07_ALPHA, delta=CH07_DELTA,
                                   rng=np.random.default_rng(seed)) for seed in CLAIM_SEEDS]


@pytest.mark.claim("ch07-plateau-is-near-constant")
def test_ch07_plateau_is_the_near_constant_classifier(ch07_curves):
    # Where every run has V = {0}, the median excess is that of the better near-constant, 0.2757: its proper stand-in
    # sign(x1 - R) differs from the constant -1 with probability Phi(-3.1) < 0.001, and the exponential mechanism picks
    # the worse near-constant (0.25·n2 more errors) with probability < e^{-6} per run; the median ignores a rare one.
    for curves in ch07_curves:
        empty = np.all(curves["dim"] == 0, axis=2)
        assert empty.any()
        medians = np.median(curves["excess"], axis=2)[empty]
        assert np.all(np.abs(medians - CH07_NEAR_CONSTANT_EXCESS) < 0.002), medians


@pytest.mark.claim("ch07-excess-below-alpha-once-v-found")
def test_ch07_excess_falls_below_alpha_and_keeps_falling(ch07_curves):
    from dpteach.experiments import proper as ex
    # For every eps: from the transition on, the median excess stays below alpha, and it is smaller at n = 10⁵ than at
    # the transition (when the transition is earlier than 10⁵).
    for curves in ch07_curves:
        for i, epsilon in enumerate(CH07_EPS_CURVE):
            medians = np.median(curves["excess"][i], axis=1)
            transition = ex.transition_sample_size(CH07_N_SPECTRUM, curves["excess"][i], CH07_ALPHA)
            assert np.isfinite(transition), epsilon
            j = CH07_N_SPECTRUM.index(int(transition))
            assert np.all(medians[j:] < CH07_ALPHA), (epsilon, medians)
            if j < len(CH07_N_SPECTRUM) - 1:
                assert medians[-1] < medians[j], (epsilon, medians)


@pytest.mark.claim("ch07-excess-below-selection-slack")
def test_ch07_excess_stays_below_the_selection_slack_at_epsilon_one(ch07_curves):
    from dpteach import bounds
    from dpteach.experiments import proper as ex
    # eps = 1, n from the transition on: median excess < the slack for K = 128 (the dim V = 1 cover), beta = 0.1, as the
    # figure draws it. The slack bounds the selection's excess over the best member with probability 0.95.
    for curves in ch07_curves:
        excess = curves["excess"][CH07_EPS_CURVE.index(1.0)]
        transition = ex.transition_sample_size(CH07_N_SPECTRUM, excess, CH07_ALPHA)
        for j, n in enumerate(CH07_N_SPECTRUM):
            if n >= transition:
                assert np.median(excess[j]) < bounds.selection_slack(128, n, 1.0, 0.1), (n, excess[j])


@pytest.mark.claim("ch07-transition-moves-with-epsilon")
def test_ch07_transition_moves_to_larger_n_as_epsilon_falls(ch07_curves):
    from dpteach.experiments import proper as ex
    # Transitions ordered inf <= 1 <= 0.3 <= 0.1, and n(0.1)/n(1) between 3 and 30: proportional to 1/eps predicts 10,
    # and the grid of n steps by sqrt(10), so one grid step either way is allowed.
    for curves in ch07_curves:
        n = [ex.transition_sample_size(CH07_N_SPECTRUM, curves["excess"][i], CH07_ALPHA)
             for i in range(len(CH07_EPS_CURVE))]
        assert n[3] <= n[2] <= n[1] <= n[0], n
        assert 3 <= n[0] / n[2] <= 30, n


@pytest.fixture(scope="module")
def ch07_cover_sizes():
    from dpteach.experiments import proper as ex
    # Cover sizes depend on (dim V, a) only, not on the data or a seed: a small n suffices.
    return ex.cover_costs([0, 1, 2, 3], CH07_RESOLUTIONS, n=200, d=5, rng=CLAIM_SEEDS[0])["size"]


@pytest.mark.claim("ch07-cover-grows-by-order-one-over-a")
def test_ch07_each_dimension_multiplies_the_cover_by_order_one_over_a(ch07_cover_sizes):
    # Deterministic. |H| ratio between dim V = k and k - 1 (k = 2, 3) lies in [1/a, 4/a] at every a (the nets:
    # 2 -> pi/a -> (2.8/a)² directions, so the ratios are ~pi/(2a) and ~2.5/a).
    a = np.array(CH07_RESOLUTIONS)
    for k in (2, 3):
        ratio = ch07_cover_sizes[k] / ch07_cover_sizes[k - 1]
        assert np.all((ratio >= 1 / a) & (ratio <= 4 / a)), (k, ratio * a)


@pytest.mark.claim("ch07-cover-size-follows-shape")
def test_ch07_cover_sizes_follow_the_shape_line(ch07_cover_sizes):
    from dpteach import bounds
    # Deterministic. Measured / (3/a)^{k-1}·2K0·sqrt(log(1/a))/a: within [0.8, 1.4] for dim V = 2 and 3 (circle net
    # pi/a vs 3/a, ceilings of the grid); dim V = 1 within [2, 2.5] (S⁰ has 2 points, the line counts 1).
    a = np.array(CH07_RESOLUTIONS)
    for k, (low, high) in {1: (2.0, 2.5), 2: (0.8, 1.4), 3: (0.8, 1.4)}.items():
        ratio = ch07_cover_sizes[k] / bounds.cover_size_shape(k, a)
        assert np.all((ratio >= low) & (ratio <= high)), (k, ratio)


@pytest.mark.claim("ch07-cover-time-grows")
def test_ch07_scoring_time_grows_with_the_cover():
    from dpteach.experiments import proper as ex
    # n2 = 20 000 as in the chapter. The 451 202-member cover (dim V = 3, a = 0.05) needs 36 times the directions and
    # 300 times the members of the 1 515-member one (a = 0.3): its time must be larger, whatever the machine's load.
    costs = ex.cover_costs([3], [0.3, 0.05], n=20_000, d=5, rng=CLAIM_SEEDS[0])
    assert costs["seconds"][0, 1] > costs["seconds"][0, 0], costs["seconds"]


@pytest.mark.claim("ch07-rounding-below-reference")
def test_ch07_rounding_cost_stays_below_the_reference_line():
    from dpteach.experiments import proper as ex
    # Deterministic (exact errors of the nearest member): below 0.2·a at each of the chapter's resolutions.
    rounding = ex.discretization_excess(CH07_RESOLUTIONS)
    assert np.all(rounding < 0.2 * np.array(CH07_RESOLUTIONS)), rounding


@pytest.mark.claim("ch07-rounding-not-linear")
def test_ch07_rounding_cost_is_not_linear_in_a():
    from dpteach.experiments import proper as ex
    # Deterministic. Linear in a would make the cost at a = 0.07 0.7 times that at a = 0.1; it is above 0.9 times.
    rounding = ex.discretization_excess(CH07_RESOLUTIONS)
    assert rounding[CH07_RESOLUTIONS.index(0.07)] > 0.9 * rounding[CH07_RESOLUTIONS.index(0.1)], rounding


CH07_N_COMPARE = [2_000, 5_000, 10_000, 20_000]


@pytest.fixture(scope="module")
def ch07_comparison():
    from dpteach.experiments import proper as ex
    # Cell 30's setting: eps = 1, alpha = 0.1, 2 datasets per n.
    return [ex.proper_vs_improper(CH07_N_COMPARE, n_reps=2, epsilon=1.0, alpha=CH07_ALPHA, delta=CH07_DELTA,
                                  rng=np.random.default_rng(seed)) for seed in CLAIM_SEEDS]


@pytest.mark.claim("ch07-proper-wins-once-v-found")
def test_ch07_proper_learner_wins_from_its_transition_on(ch07_comparison):
    from dpteach.experiments import proper as ex
    # From the first n with median proper excess < alpha on, the proper median is below the improper median (no
    # tolerance: "wins").
    for comparison in ch07_comparison:
        transition = ex.transition_sample_size(CH07_N_COMPARE, comparison["proper"], CH07_ALPHA)
        assert np.isfinite(transition)
        for j, n in enumerate(CH07_N_COMPARE):
            if n >= transition:
                assert np.median(comparison["proper"][j]) < np.median(comparison["improper"][j]), n


@pytest.mark.claim("ch07-improper-better-at-5000")
def test_ch07_improper_learner_is_better_while_the_proper_one_is_near_constant(ch07_comparison):
    # n = 5 000: both proper runs are the near-constant (excess within 0.002 of 0.2757, as in the plateau test) and the
    # improper median is below it (no tolerance; measured 0.16-0.22).
    for comparison in ch07_comparison:
        j = CH07_N_COMPARE.index(5_000)
        assert np.all(np.abs(comparison["proper"][j] - CH07_NEAR_CONSTANT_EXCESS) < 0.002), comparison["proper"][j]
        assert np.median(comparison["improper"][j]) < np.median(comparison["proper"][j])


@pytest.mark.claim("ch07-improper-slower")
def test_ch07_improper_learner_runs_much_longer(ch07_comparison):
    # At n = 20 000 the improper fit takes more than 10 times as long (measured about 100-300 times): a margin that
    # the load of a shared machine, which slows both fits alike within one run, does not erase.
    for comparison in ch07_comparison:
        assert comparison["seconds_improper"][-1] > 10 * comparison["seconds_proper"][-1], comparison


@pytest.mark.claim("ch07-structured-within-alpha")
def test_ch07_structured_noise_runs_end_within_alpha_of_opt():
    import math
    from dpteach.experiments import proper as ex
    # The last experiment: structured noise (t* = 0.3, eta0 = 0.1, d = 5), n in {2·10⁴, 10⁵}, eps in {1, inf}, 3
    # datasets; every run's exact excess over OPT is below alpha (measured at most 0.02).
    for seed in CLAIM_SEEDS:
        result = ex.structured_noise_excess([20_000, 100_000], [1.0, math.inf], n_reps=3, alpha=CH07_ALPHA,
                                            delta=CH07_DELTA, rng=np.random.default_rng(seed))
        assert np.all(result["excess"] < CH07_ALPHA), result["excess"]


# ---------------------------------------------------------------------------------------------
# Chapter 8
# ---------------------------------------------------------------------------------------------


# Chapter 8 runs its experiments with SEED = 20240808 and DELTA = 5e-8; these tests rerun the same dpteach runners on
# CLAIM_SEEDS (smaller repetition counts where the chapter's sizes would break the time budget).
CH08_DELTA = 5e-8


@pytest.mark.claim("ch08-trajectory-large-eps-follows")
def test_ch08_private_trajectory_follows_the_non_private_one_at_large_epsilon():
    import math
    from dpteach.experiments import dpsas as ex
    # The slider's upper end eps = 20 at d = 5, n = 1e5: sigma is 20 times smaller than at eps = 1, so the private
    # final angle must be within 2 degrees of the non-private one (the non-private angle itself is ~1-2 degrees).
    for seed in CLAIM_SEEDS:
        X, y, normal = ex.DatasetCache(100_000, noise_rate=0.05, threshold=0.5, seed=seed).get(5)
        runs = ex.trajectories(X, y, normal, [20.0, math.inf], delta=CH08_DELTA, rng=seed)
        assert abs(runs[20.0]["angle_deg"][-1] - runs[math.inf]["angle_deg"][-1]) < 2.0


@pytest.mark.claim("ch08-trajectory-small-eps-floor")
def test_ch08_private_trajectory_stalls_far_above_the_non_private_one_at_small_epsilon():
    import math
    from dpteach.experiments import dpsas as ex
    # eps = 0.1, d = 20: "far above" = more than 3 times the non-private final angle and above 10 degrees.
    for seed in CLAIM_SEEDS:
        X, y, normal = ex.DatasetCache(100_000, noise_rate=0.05, threshold=0.5, seed=seed).get(20)
        runs = ex.trajectories(X, y, normal, [0.1, math.inf], delta=CH08_DELTA, rng=seed)
        private, plain = runs[0.1]["angle_deg"][-1], runs[math.inf]["angle_deg"][-1]
        assert private > max(3 * plain, 10.0), (private, plain)


@pytest.fixture(scope="module")
def ch08_ablation():
    import math
    from dpteach import dpsas
    from dpteach.experiments import dpsas as ex
    # The chapter's ablation (d = 10, n = 1e5, eta0 = eta = 0.05, 4 datasets per t*), with all three rules.
    return [ex.step_rule_ablation_seeds([0.0, 1.0, 2.0], [1.0, math.inf], n_seeds=4, rules=dpsas_steps.STEP_RULES,
                                        delta=CH08_DELTA, rng=seed) for seed in CLAIM_SEEDS]


@pytest.mark.claim("ch08-printed-step-stalls")
def test_ch08_printed_step_size_ends_far_from_the_target(ch08_ablation):
    import math
    # "Overshoots ... keeps jumping around the sphere": the printed rule's median final angle is above 20 degrees at
    # every (eps, t*), while without noise at t* = 0 the other two rules end below 5 degrees (measured ~2).
    for ablation in ch08_ablation:
        for key, by_rule in ablation.items():
            assert np.median(by_rule["as_printed"]["angle_deg"]) > 20.0, key
        for rule in ("reconstructed", "constant"):
            assert np.median(ablation[(math.inf, 0.0)][rule]["angle_deg"]) < 5.0


@pytest.mark.claim("ch08-step-rules-tie-without-privacy")
def test_ch08_reading_and_constant_step_tie_without_privacy(ch08_ablation):
    import math
    # Without noise the two rules' mean errors over 4 datasets differ by at most 0.02: the per-run sd of the error is
    # about 0.01 here (measured), so the sd of a difference of two 4-run means is about 0.007 and 0.02 is ~3 sd.
    for ablation in ch08_ablation:
        for t_star in (0.0, 1.0, 2.0):
            runs = ablation[(math.inf, t_star)]
            assert abs(runs["reconstructed"]["error"].mean() - runs["constant"]["error"].mean()) <= 0.02, t_star


@pytest.mark.claim("ch08-constant-step-better-with-privacy-at-t2")
def test_ch08_constant_step_beats_the_reading_with_privacy_at_t_star_2(ch08_ablation):
    # eps = 1, t* = 2: the mean error of lambda = s is below that of the reading, and its median final angle is smaller.
    # The review measured lambda = s ahead on every seed it ran (by 0.009-0.023; angles 46 vs 77, 51 vs 87 degrees),
    # the claim seeds by 0.012-0.016 (angles 46-55 vs 78-85 degrees):
    # a strict inequality, no tolerance in the claim's favour.
    for ablation in ch08_ablation:
        runs = ablation[(1.0, 2.0)]
        assert runs["constant"]["error"].mean() < runs["reconstructed"]["error"].mean()
        assert np.median(runs["constant"]["angle_deg"]) < np.median(runs["reconstructed"]["angle_deg"])


@pytest.mark.claim("ch08-constant-step-not-worse-with-privacy-at-t1")
def test_ch08_constant_step_not_worse_than_noise_with_privacy_at_t_star_1(ch08_ablation):
    # eps = 1, t* = 1: "within the noise of four runs or in favour of lambda = s". Per-run sds of the error here are
    # 0.005-0.038 (measured on the claim seeds), typically 0.02, so the sd of a difference of two 4-run means is
    # about sqrt(2·0.02²/4) ≈ 0.015. Asserted one-sided: lambda = s is not worse than the reading by more than 3 such
    # sds (0.045). Measured differences (constant − reading): −0.049, −0.011, −0.026 on the claim seeds; the review's
    # seeds: +0.001 (777), −0.012 (4242), −0.017 … −0.057 (others). A two-sided "tie" fails on seed 9001.
    for ablation in ch08_ablation:
        runs = ablation[(1.0, 1.0)]
        difference = runs["constant"]["error"].mean() - runs["reconstructed"]["error"].mean()
        assert difference <= 0.045, difference


@pytest.fixture(scope="module")
def ch08_versus_opt():
    import math
    from dpteach.experiments import dpsas as ex
    rates = np.array([0.01, 0.02, 0.05, 0.1, 0.2])
    return rates, [ex.error_vs_opt(rates, [1.0, math.inf], n_reps=3, delta=CH08_DELTA, rng=seed)
                   for seed in CLAIM_SEEDS]


@pytest.mark.claim("ch08-learner-above-opt-without-privacy")
def test_ch08_non_private_learner_lands_above_opt(ch08_versus_opt):
    import math
    # "Above OPT, at a multiple of it": every 3-run mean error is at least 1.1 OPT (the threshold bias alone gives
    # 1.345 OPT at t* = 0.5; the book measured 1.18-2.1) and at most 2 OPT + alpha (the learner's test target).
    rates, results = ch08_versus_opt
    for result in results:
        ratio = result[math.inf].mean(axis=1) / rates
        assert np.all(ratio >= 1.1) and np.all(result[math.inf].mean(axis=1) <= 2 * rates + 0.05), ratio


@pytest.mark.claim("ch08-learner-privacy-adds-error")
def test_ch08_privacy_adds_error_at_every_opt(ch08_versus_opt):
    import math
    # On the same datasets, the eps = 1 mean error exceeds the non-private one at every OPT of the grid.
    rates, results = ch08_versus_opt
    for result in results:
        assert np.all(result[1.0].mean(axis=1) > result[math.inf].mean(axis=1)), (result[1.0], result[math.inf])


@pytest.mark.claim("ch08-plateau-is-threshold-bias")
def test_ch08_single_run_plateau_is_the_threshold_bias():
    import math
    from dpteach import bounds, dpsas
    from dpteach.experiments import dpsas as ex
    # 9 noise-free runs (d = 10, n = 2e5, t* = 0.5, eta0 = eta = 0.05). err/OPT from tau_hat has sd 0.14 per run (the
    # chapter's formula: 0.9 sqrt(p(1-p)/m0)/0.05, m0 = 3571), so the mean of 9 has sd 0.047; we allow 4 sd = 0.19
    # around the closed form 1.345. The direction must be good (final angle < 5 degrees), else the plateau could
    # come from the angle.
    closed_form = bounds.rcn_threshold_bias_error(0.5, 0.05) / 0.05
    ratios = []
    for seed in CLAIM_SEEDS:
        for rep in range(3):
            X, y, normal = ex.rcn_dataset(200_000, 10, 0.5, 0.05, np.random.default_rng([seed, rep]))
            w, tau, trace = dpsas.dpsas(X, y, math.inf, CH08_DELTA, 0.05, rng=rep, w_star=normal)
            assert trace["angle_deg"][-1] < 5.0
            ratios.append(ex.halfspace_error(w, tau, normal, 0.5, 0.05) / 0.05)
    assert abs(np.mean(ratios) - closed_form) < 0.19, ratios


@pytest.fixture(scope="module")
def ch08_structured():
    import math
    from dpteach.experiments import dpsas as ex
    # The chapter's setting exactly: 3 datasets, n = 2e5, d = 10, t* = 0.5, eta0 = eta = 0.05, eps in {1, inf}.
    return [ex.structured_noise_runs([1.0, math.inf], n_reps=3, n=200_000, d=10, threshold=0.5, noise_mass=0.05,
                                     eta=0.05, delta=CH08_DELTA, rng=seed) for seed in CLAIM_SEEDS]


@pytest.mark.claim("ch08-structured-noise-nonprivate-below-two-opt")
def test_ch08_structured_noise_non_private_errors_below_two_opt(ch08_structured):
    import math
    # Every non-private run below 2 OPT (the book measured 1.27-1.48 OPT). (A first version also claimed this with
    # eps = 1; one claim-seed run reached 2.36 OPT, so the chapter no longer says it.)
    for result in ch08_structured:
        assert np.all(result["errors"][math.inf] < 2 * result["opt"]), result["errors"][math.inf] / result["opt"]


@pytest.mark.claim("ch08-structured-noise-privacy-adds-error")
def test_ch08_structured_noise_privacy_adds_error(ch08_structured):
    import math
    # "On every dataset": the eps = 1 error exceeds the non-private error on the same dataset, run by run.
    for result in ch08_structured:
        assert np.all(result["errors"][1.0] > result["errors"][math.inf]), result["errors"]


@pytest.fixture(scope="module")
def ch08_needed():
    import math
    from dpteach.experiments import dpsas as ex
    # The chapter's sweep (target 0.1, 40 rounds, 3 runs, doubling grid from 2500) in full without privacy, and at
    # eps = 1 for d = 4 and 16 only (the full private sweep takes ~9 s per seed).
    grid = 2500 * 2 ** np.arange(10)
    out = []
    for seed in CLAIM_SEEDS:
        plain = ex.samples_needed_vs_d([2, 4, 8, 16, 32], math.inf, 0.1, grid, n_reps=3, delta=CH08_DELTA, rng=seed)
        private = ex.samples_needed_vs_d([4, 16], 1.0, 0.1, grid, n_reps=3, delta=CH08_DELTA, rng=seed)
        out.append((plain, private))
    return out


@pytest.mark.claim("ch08-samples-grow-far-slower-than-d4")
def test_ch08_samples_needed_grow_far_slower_than_d4(ch08_needed):
    # "Far slower than d^4": the fitted log-log slope without privacy is below 2 (d^4 has slope 4), and with privacy
    # n(16)/n(4) <= 16 = 4^2 (d^4 would give 256). Each grid point is known up to a factor 2, which moves a slope over
    # d = 2..32 by at most log 2/log 16 = 0.25 per end.
    for plain, private in ch08_needed:
        assert np.all(np.isfinite(plain)) and np.all(np.isfinite(private))
        slope = np.polyfit(np.log([2, 4, 8, 16, 32]), np.log(plain), 1)[0]
        assert slope < 2.0 and private[1] / private[0] <= 16, (slope, private)


@pytest.mark.claim("ch08-privacy-needs-more-samples")
def test_ch08_private_runs_need_more_samples(ch08_needed):
    # "More": at d = 4 and 16 the private n is at least 2 grid steps (4x) above the non-private one (the book: 4-32x).
    for plain, private in ch08_needed:
        assert np.all(private >= 4 * plain[[1, 3]]), (plain, private)


@pytest.fixture(scope="module")
def ch08_reuse():
    from dpteach.experiments import dpsas as ex
    # The chapter's comparison at its smallest and largest n (d = 10, eps = 1, 40 rounds, 3 repetitions).
    return [ex.fresh_vs_reuse([20_000, 200_000], 1.0, n_reps=3, delta=CH08_DELTA, rng=seed) for seed in CLAIM_SEEDS]


@pytest.mark.claim("ch08-reuse-better-at-small-n")
def test_ch08_sample_reuse_is_much_better_at_small_n(ch08_reuse):
    # "Much better": the reuse mean error is below the fresh one by at least 0.05 at n = 2e4.
    for result in ch08_reuse:
        assert result["reuse"][0].mean() < result["fresh"][0].mean() - 0.05, result


@pytest.mark.claim("ch08-reuse-and-fresh-close-at-large-n")
def test_ch08_sample_reuse_and_fresh_blocks_are_close_at_large_n(ch08_reuse):
    # "Close": 3-run means within 0.02 at n = 2e5 (per-run sd about 0.01 there, so a difference of means has sd ~0.008).
    for result in ch08_reuse:
        assert abs(result["reuse"][1].mean() - result["fresh"][1].mean()) <= 0.02, result


# ---------------------------------------------------------------------------------------------
# Chapter 9
# ---------------------------------------------------------------------------------------------

# Chapter 9 runs its experiments with SEED = 20240909; these tests rerun the same table1 runners on CLAIM_SEEDS, with
# one data set per seed (the book averages 2), n ∈ {2000, 15 000, 10⁵} and the chapter's four ε, one noise kind per
# cached run (≈ 3–4 s each, so no single test waits for more than three of them). A test error
# is measured on 50 000 fresh points: standard error ≤ 0.5/√50 000 ≈ 0.0022 for one error, and much less for the
# difference of two learners on the same test set when they disagree on few points (√(P[disagree]/50 000) ≈ 0.0014 at
# 10 % disagreement). Margins below are stated in these units.

_CH09_NS = (2000, 15_000, 100_000)


@functools.lru_cache(maxsize=None)
def _ch09_comparison(seed, kind):
    """Chapter 9's comparison on one noise kind (ε ∈ {0.5, 1, 2, 4}, d = 3, every learner) at claim size."""
    pytest.importorskip("sklearn", reason="scikit-learn is not installed (pip install -r requirements.txt)")
    pytest.importorskip("diffprivlib", reason="diffprivlib is not installed (pip install -r requirements.txt)")
    from dpteach.experiments import table1
    result = table1.run_comparison(kinds=(kind,), ns=_CH09_NS, n_reps=1, n_test=50_000, rng=seed)
    assert result["skipped"] == ""
    return result


def _ch09_excess(seed, name, kind):
    """Excess test error over OPT, array (ε, n), of one learner on one data kind."""
    result = _ch09_comparison(seed, kind)
    return result["error"][name][0, :, :, 0] - result["opt"][0]


_CH09_CONVEX = ("dp_sgd", "diffprivlib", "logistic")


@pytest.mark.claim("ch09-rcn-convex-and-proper-reach-opt-improper-stalls")
def test_ch09_rcn_convex_peers_and_proper_within_001_of_opt_improper_stalls_above():
    # At n = 1e5 the book and the claim seeds measure ≤ 0.0075 for the convex peers and the proper learner (asserted
    # < 0.01, > 1 SE above the largest) and 0.015–0.025 for Algorithm 6.10 (asserted > 0.01, > 2 SE below the smallest).
    for seed in CLAIM_SEEDS:
        for name in _CH09_CONVEX + ("proper",):
            assert np.all(_ch09_excess(seed, name, "rcn")[:, -1] < 0.01), (seed, name)
        assert np.all(_ch09_excess(seed, "improper", "rcn")[:, -1] > 0.01), seed


@pytest.mark.claim("ch09-structured-logistic-plateau")
def test_ch09_structured_logistic_levels_off_about_002_above_opt():
    # Population excess ≈ 0.023 (Table 9.3's setting); measured 0.023–0.030 at n = 15 000 and 1e5. "About 0.02 and stays
    # there": > 0.015 at both n (≥ 3 SE below the measured values) and the two within 0.01 of each other.
    for seed in CLAIM_SEEDS:
        excess = _ch09_excess(seed, "logistic", "structured")[0]
        assert excess[1] > 0.015 and excess[2] > 0.015 and abs(excess[2] - excess[1]) < 0.01, (seed, excess)


@pytest.mark.claim("ch09-structured-diffprivlib-follows-logistic")
def test_ch09_structured_diffprivlib_within_0005_of_logistic_at_the_largest_n():
    # Measured |diffprivlib − logistic| ≤ 0.0023 at n = 1e5 (nearly the same halfspace: a paired difference has SE
    # well under 0.001); asserted < 0.005.
    for seed in CLAIM_SEEDS:
        gap = _ch09_excess(seed, "diffprivlib", "structured")[:, -1] - _ch09_excess(seed, "logistic", "structured")[0, -1]
        assert np.all(np.abs(gap) < 0.005), (seed, gap)


@pytest.mark.claim("ch09-structured-dpsgd-closer-but-gap")
def test_ch09_structured_dp_sgd_below_logistic_but_above_opt_plus_001():
    # Measured DP-SGD 0.016–0.023 against logistic 0.023–0.028 at n = 1e5 (differences ≥ 0.005, about 3 paired SE).
    for seed in CLAIM_SEEDS:
        dp_sgd = _ch09_excess(seed, "dp_sgd", "structured")[:, -1]
        logistic = _ch09_excess(seed, "logistic", "structured")[0, -1]
        assert np.all(dp_sgd < logistic) and np.all(dp_sgd > 0.01), (seed, dp_sgd, logistic)


@pytest.mark.claim("ch09-structured-proper-closer-than-convex")
def test_ch09_structured_proper_ends_closer_to_opt_than_every_convex_peer():
    # Measured proper ≤ 0.0095 against convex peers ≥ 0.016 at n = 1e5: ≥ 3 SE apart.
    for seed in CLAIM_SEEDS:
        proper = _ch09_excess(seed, "proper", "structured")[:, -1]
        convex = np.min([_ch09_excess(seed, name, "structured")[:, -1] for name in _CH09_CONVEX], axis=0)
        assert np.all(proper < convex), (seed, proper, convex)


@pytest.mark.claim("ch09-structured-improper-below-opt")
def test_ch09_structured_improper_below_opt_at_the_largest_n():
    # Measured −0.013 … −0.019 at n = 1e5 (6 SE below 0); asserted < 0.
    for seed in CLAIM_SEEDS:
        assert np.all(_ch09_excess(seed, "improper", "structured")[:, -1] < 0), seed


@pytest.mark.claim("ch09-semi-agnostic-needs-most-examples")
def test_ch09_semi_agnostic_has_the_largest_eps_averaged_error_up_to_15000():
    # Averaged over the four ε, Algorithm 8.9's excess at n ≤ 15 000 is 0.06–0.37 against ≤ 0.09 for the others
    # (the largest other: Algorithm 7.7 at n = 2000, which fails at ε = 0.5). Margins ≥ 0.02, many SE.
    from dpteach.experiments import table1
    for seed in CLAIM_SEEDS:
        for kind in ("rcn", "structured"):
            average = {name: _ch09_excess(seed, name, kind)[:, :2].mean(axis=0) for name in table1.LEARNERS}
            others = np.max([v for name, v in average.items() if name != "semi_agnostic"], axis=0)
            assert np.all(average["semi_agnostic"] > others), (seed, kind, average)


@pytest.mark.claim("ch09-structured-convex-peers-miss-opt-plus-001")
def test_ch09_structured_no_convex_peer_within_001_of_opt():
    # Measured ≥ 0.016 at n = 1e5 for every convex peer and ε (≥ 2.5 SE above 0.01).
    for seed in CLAIM_SEEDS:
        for name in _CH09_CONVEX:
            assert np.all(_ch09_excess(seed, name, "structured")[:, -1] > 0.01), (seed, name)


def _ch09_winners(seed, kind):
    from dpteach.experiments import table1
    rows = table1_tables.winner_table(_ch09_comparison(seed, kind))
    return {(row["epsilon"], row["n"]): row["winner"] for row in rows}


@pytest.mark.claim("ch09-diffprivlib-default-c-handicap")
def test_ch09_diffprivlib_default_c_at_least_doubles_its_excess_at_eps_05():
    # The chapter's paired call (ε = 0.5, n = 2000, 3 data sets per kind, the same for both C) on the claim seeds.
    # Why a factor 2 is safe: with C = 1 the noise b has ε' = 0.054, with C = 0.1 ε' = 0.45, 8.3 times less noise, and at
    # n = 2000 the noise dominates the excess (at ε = 1, where ε' = 0.55 for C = 1, the two C differ by < 0.01).
    # Measured ratios of the mean excesses (C = 1 over C = 0.1, RCN/structured): 7.1/3.7, 5.5/3.6, 6.8/4.1 on the claim
    # seeds, 6.6/7.5 on the book's; with other n and ε in the same call (other data sets) as low as 2.4.
    pytest.importorskip("diffprivlib")
    from dpteach.experiments import table1
    for seed in CLAIM_SEEDS:
        excess = {}
        for c_value in (1.0, 0.1):
            run = table1.run_comparison(epsilons=[0.5], ns=[2000], learners=("diffprivlib",), n_reps=3,
                                        settings={"diffprivlib": {"C": c_value}}, rng=seed)
            excess[c_value] = np.mean(run["error"]["diffprivlib"], axis=-1)[:, 0, 0] - run["opt"]
        assert np.all(excess[1.0] > 2.0 * excess[0.1]), (seed, excess)


@pytest.mark.claim("ch09-structured-winners-convex-then-improper")
def test_ch09_structured_convex_peer_wins_at_2000_and_eps_05_improper_from_15000():
    # At n = 2000, ε = 0.5 DP-SGD's excess is 0.05–0.12 against ≥ 0.15 for every agnostic learner on the claim seeds
    # (at ε = 1 an agnostic learner won on two of three, so the book claims ε = 0.5 only); from n = 15 000
    # Algorithm 6.10 beats the runner-up by ≥ 0.007 (3 paired SE).
    for seed in CLAIM_SEEDS:
        winners = _ch09_winners(seed, "structured")
        assert winners[0.5, 2000] in ("dp_sgd", "diffprivlib"), (seed, winners[0.5, 2000])
        for eps in (0.5, 1.0, 2.0, 4.0):
            assert winners[eps, 15_000] == winners[eps, 100_000] == "improper", (seed, eps)


@pytest.mark.claim("ch09-rcn-winners-convex-or-proper")
def test_ch09_rcn_wins_go_to_convex_peers_and_proper_only():
    # Algorithm 6.10 stalls ≥ 0.015 above OPT and Algorithm 8.9 needs more examples: neither wins a cell under RCN.
    for seed in CLAIM_SEEDS:
        assert set(_ch09_winners(seed, "rcn").values()) <= {"dp_sgd", "diffprivlib", "proper"}, seed


@pytest.mark.claim("ch09-audit-catches-missing-clipping")
def test_ch09_one_step_audit_passes_the_correct_step_and_catches_the_unclipped_one():
    # The chapter's audit (far point at 20, C = 1, ε = 1, 50 000 runs per neighbour). The correct step's certified
    # lower bound is a 95 % lower confidence bound on a true ε ≤ 1; the unclipped step shifts by 20/2 = 10
    # sensitivities, so its true ε is far beyond 1 and the bound measured ≥ 3.
    from dpteach import audit, dp_logistic
    sigma = dp_logistic.dp_sgd_sigma(1.0, 1, 1.0, 1e-5)
    X = np.zeros((40, 2))
    X[0, 0] = 20.0
    y = np.ones(40)
    y_flipped = y.copy()
    y_flipped[0] = -1.0
    events = [lambda out, t=t: np.asarray(out) < t for t in np.linspace(-4, 0, 9) * sigma]

    def mechanism(step):
        def run(labels, n_trials, rng):
            return step(X, labels, np.zeros(2), 0.0, 1.0, sigma, rng=rng, size=n_trials)[:, 0]
        return run

    for seed in CLAIM_SEEDS:
        good = audit.audit(mechanism(dp_logistic.noisy_clipped_gradient_sum), y, y_flipped, events,
                           n_trials=50_000, delta=1e-5, rng=seed)
        broken = audit.audit(mechanism(dp_logistic.broken_noisy_gradient_sum_without_clipping), y, y_flipped,
                             events, n_trials=50_000, delta=1e-5, rng=seed)
        assert good.epsilon_lower <= 1.0 < 2.0 < broken.epsilon_lower, (seed, good.epsilon_lower, broken.epsilon_lower)


@pytest.mark.claim("ch09-pipeline-scaler-leak-caught")
def test_ch09_audit_certifies_a_pipeline_scaler_leak_above_the_receipt_and_none_for_the_learner_alone():
    # The chapter's audit (n = 1000, far record (10⁶, 0), ε = 1, 150 certifying fits per data set) on seeds the book
    # does not use. Alone, DP-SGD is 1-DP, so its 95 % lower confidence bound exceeds 1 with probability ≤ 5 % per
    # seed. In the pipeline the scaled rows of D′ collapse to ≈ 0 (the far row sets the scale, 10⁶/√n ≈ 3·10⁴), so
    # the learner's first weight loses its signal: on the book's seed the frequencies were 0.995 against 0.46, a
    # bound of 2.7 at 200 fits; at 150 fits one miss in 150 still leaves the bound above 2 (Clopper–Pearson), so > 1
    # is far from the edge. The scaler's mean moves by far/n = 1000 exactly (released as mean_).
    from dpteach.experiments.table1_receipt import pipeline_scaler_audit
    for seed in CLAIM_SEEDS[:2]:
        out = pipeline_scaler_audit(rng=seed)
        assert out["alone"].epsilon_lower <= out["receipt_epsilon"] == 1.0 < out["pipeline"].epsilon_lower, (seed, out)
        assert abs(out["mean_D_prime"] - out["mean_D"] - 1000.0) < 1.0, (seed, out)


@pytest.mark.claim("ch09-surrogate-gap-grows-with-threshold")
def test_ch09_surrogate_gap_is_near_zero_at_t0_and_above_002_at_t1():
    # Table 9.3 at n = 20 000 (the book uses 5e4): the estimation error of logistic regression in d = 3 is ≈ d/n in
    # excess-error terms plus test noise (SE ≤ 0.0022): |excess| < 0.008 at t* = 0. At t* = 1 the population excess
    # is 0.03–0.044 (book: 0.042 / 0.044 / 0.031): asserted > 0.02 for every η₀, ≥ 4 SE below.
    from dpteach.experiments import table1
    for seed in CLAIM_SEEDS:
        gap = table1.surrogate_gap([0.0, 1.0], [0.05, 0.1, 0.2], n=20_000, n_test=50_000, rng=seed)["excess"]
        assert np.all(np.abs(gap[0]) < 0.008) and np.all(gap[1] > 0.02), (seed, gap)


@pytest.mark.claim("ch09-massart-breaks-surrogate")
def test_ch09_massart_example_logistic_error_far_above_bayes():
    # An exact computation (no seed): Bayes error 0.45·Φ(−0.5)/2 ≈ 0.069; the population logistic minimiser's error
    # (Monte Carlo checked in tests/test_table1.py) more than twice that.
    from dpteach.experiments import table1_surrogate
    result = table1_surrogate.massart_example(0.5, 0.45)
    assert result["logistic_error"] > 2 * result["bayes_error"], result


# The tight-accounting figure (issue 24): DP-SGD at ε = 1, δ = 1e-5 against E, n = 2000, d = 3, 10 data sets.
_CH09_TIGHT_EPOCHS = (1, 2, 5, 10, 20)


@functools.lru_cache(maxsize=None)
def _ch09_tight(seed):
    from dpteach.experiments.table1_accounting import dpsgd_accounting_sweep
    return dpsgd_accounting_sweep(_CH09_TIGHT_EPOCHS, n=2000, d=3, epsilon=1.0, delta=1e-5, n_reps=10,
                                  rng=np.random.default_rng([seed, 24]))


@pytest.mark.claim("ch09-tight-sigma-fraction-below-textbook")
def test_ch09_exact_sigma_same_fraction_below_textbook_from_e_2():
    # The σ's depend on (C, E, ε, δ) only: exact, no tolerance beyond rounding. The issue's target: at E = 5 at least
    # 20 % below the older accountants' 21.9; for E ≥ 2 the fraction is the same (both σ's are ∝ √E) to 1e-9.
    result = _ch09_tight(CLAIM_SEEDS[0])
    fraction = 1 - result["sigma_tight"] / result["sigma_textbook"]
    at_5 = _CH09_TIGHT_EPOCHS.index(5)
    assert result["sigma_textbook"][at_5] == pytest.approx(21.9, abs=0.05) and fraction[at_5] >= 0.20, result
    assert np.all(np.abs(fraction[1:] - fraction[at_5]) < 1e-9), fraction
    assert np.all(fraction > 0), fraction


@pytest.mark.claim("ch09-tight-sigma-lower-error")
def test_ch09_exact_sigma_gives_lower_mean_error_at_every_e():
    # Paired design: each data set and noise seed is fitted with both σ's, so the difference isolates σ. On the book's
    # seed and CLAIM_SEEDS the mean paired difference is 5 to 10 of its standard errors at every E (smallest at E = 2,
    # 0.005 ± 0.001): asserting it positive fails by chance with probability below 10⁻⁶ per comparison.
    for seed in CLAIM_SEEDS:
        result = _ch09_tight(seed)
        gain = (result["error_textbook"] - result["error_tight"]).mean(axis=1)
        assert np.all(gain > 0), (seed, gain)


@pytest.mark.claim("ch09-defaults-match-diffprivlib-on-unit-rows")
def test_ch09_default_dp_sgd_within_002_of_diffprivlib_on_unit_norm_rows():
    # benchmarks/dpsgd_defaults.py's setting (n = 2·10⁵ training and test rows of norm ≤ 1, d = 10, ε = 1) on the claim
    # seeds. A test error on 2·10⁵ points has standard error ≤ 0.5/√(2·10⁵) ≈ 0.0011, the gap of two such ≈ 0.0016;
    # the benchmark's seeds measure a gap of 0.004–0.010, so "within 0.02" holds with ≥ 6 standard errors to spare.
    pytest.importorskip("diffprivlib", reason="diffprivlib is not installed (pip install -r requirements.txt)")
    import importlib.util
    spec = importlib.util.spec_from_file_location("dpsgd_defaults", ROOT / "benchmarks" / "dpsgd_defaults.py")
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    from dpteach.dp_logistic import DPSGDLogisticRegression
    for seed in CLAIM_SEEDS:
        X, y, X_test, y_test = benchmark._problem(seed)
        ours, _ = benchmark._timed_error(DPSGDLogisticRegression(benchmark.EPSILON, benchmark.DELTA, random_state=seed),
                                         X, y, X_test, y_test)
        theirs, _ = benchmark._timed_error(benchmark._diffprivlib(seed), X, y, X_test, y_test)
        assert ours - theirs <= 0.02, (seed, ours, theirs)


# ---------------------------------------------------------------------------------------------
# Chapter 10
# ---------------------------------------------------------------------------------------------

import functools  # noqa: E402,F811  (here too, so that this section stands on its own)

# Chapter 10 runs real_data.run(rng=SEED) with SEED = 20241010: 10 splits drawn from that seed. These tests run the
# same table (every learner, data set and ε, 10 splits) with rng = each of CLAIM_SEEDS, so the splits and every
# learner's noise are other draws (≈ 16 s of CPU per seed, cached). A mean over 10 splits has the standard error the
# chapter's table prints: ≤ 0.015 for the DP-SGD learners, ≤ 0.05 for the others; margins below are in those units.

_CH10_EPSILONS = (0.5, 1.0, 2.0)
_CH10_DPSGD = ("dpsgd", "poisson_dpsgd")
_CH10_HALFSPACE = ("improper", "proper", "semi_agnostic")
_CH10_SETS = ("breast_cancer", "digits_3", "wine_0")


@functools.lru_cache(maxsize=None)
def _ch10_table(seed):
    pytest.importorskip("sklearn", reason="scikit-learn is not installed (pip install -r requirements.txt)")
    pytest.importorskip("diffprivlib", reason="diffprivlib is not installed (pip install -r requirements.txt)")
    from dpteach.experiments import real_data
    rows = real_data.run(epsilons=_CH10_EPSILONS, n_seeds=10, rng=seed)
    return {(row["data"], row["epsilon"], row["learner"]): row for row in rows}


def _ch10_mean(seed, data, epsilon, name):
    return _ch10_table(seed)[data, epsilon, name]["mean"]


def _ch10_above_majority(seed, data, epsilon, name):
    return _ch10_mean(seed, data, epsilon, name) - _ch10_table(seed)[data, epsilon, "majority"]["majority_rate"]


@pytest.mark.claim("ch10-dpsgd-beats-diffprivlib-breast-wine")
def test_ch10_default_dp_sgd_beats_diffprivlib_on_breast_cancer_and_wine():
    # Book and claim seeds: the smallest margin is 0.068–0.077 (wine, ε = 0.5, where diffprivlib's SE is ≈ 0.05 and
    # DP-SGD's ≈ 0.03): more than one SE of the difference; asserted > 0.
    for seed in CLAIM_SEEDS:
        for data in ("breast_cancer", "wine_0"):
            for epsilon in _CH10_EPSILONS:
                for name in _CH10_DPSGD:
                    gap = _ch10_mean(seed, data, epsilon, name) - _ch10_mean(seed, data, epsilon, "diffprivlib")
                    assert gap > 0, (seed, data, epsilon, name, gap)


@pytest.mark.claim("ch10-digits-dpsgd-at-majority")
def test_ch10_default_dp_sgd_stays_at_the_majority_rate_on_digits():
    # Measured |DP-SGD − majority| ≤ 0.014 (Poisson at ε = 2; SE ≈ 0.003), 0 for the shuffled learner at ε ≤ 1;
    # "within 0.02". Non-private logistic regression measured 0.976: "far above" asserted as > majority + 0.05.
    for seed in CLAIM_SEEDS:
        for epsilon in _CH10_EPSILONS:
            for name in _CH10_DPSGD:
                assert abs(_ch10_above_majority(seed, "digits_3", epsilon, name)) < 0.02, (seed, epsilon, name)
        assert _ch10_above_majority(seed, "digits_3", 1.0, "sklearn") > 0.05, seed


@pytest.mark.claim("ch10-digits-diffprivlib-climbs")
def test_ch10_diffprivlib_on_digits_below_majority_until_eps_2_and_no_private_learner_far_above():
    # diffprivlib measured 0.78–0.83 at ε = 0.5 and 0.83–0.87 at ε = 1 against 0.898 (≥ 2 SE below), rising with ε;
    # at ε = 2 0.891–0.908 (|· − majority| ≤ 0.01, SE ≈ 0.01). The largest private margin above the majority rate
    # on digits is 0.014 (Poisson DP-SGD at ε = 2).
    for seed in CLAIM_SEEDS:
        diffprivlib = [_ch10_mean(seed, "digits_3", e, "diffprivlib") for e in _CH10_EPSILONS]
        assert np.all(np.diff(diffprivlib) > 0), (seed, diffprivlib)
        assert _ch10_above_majority(seed, "digits_3", 0.5, "diffprivlib") < 0, seed
        assert _ch10_above_majority(seed, "digits_3", 1.0, "diffprivlib") < 0, seed
        assert abs(_ch10_above_majority(seed, "digits_3", 2.0, "diffprivlib")) < 0.02, seed
        for epsilon in (0.5, 1.0):  # "DP-SGD's constant answer still beats it there": measured by ≥ 0.03
            for name in _CH10_DPSGD:
                assert _ch10_mean(seed, "digits_3", epsilon, name) > diffprivlib[_CH10_EPSILONS.index(epsilon)], seed
        for epsilon in _CH10_EPSILONS:
            for name in _CH10_DPSGD + _CH10_HALFSPACE + ("diffprivlib",):
                assert _ch10_above_majority(seed, "digits_3", epsilon, name) < 0.02, (seed, epsilon, name)


@pytest.mark.claim("ch10-halfspace-near-majority")
def test_ch10_halfspace_learners_near_majority_and_below_dp_sgd():
    # Largest margin above the majority rate measured 0.064–0.077 (Algorithm 6.10 or 8.9 on breast_cancer, SE ≈ 0.02–
    # 0.045): "not more than 0.15" leaves ≥ 1.5 SE of the worst. The smallest DP-SGD lead on breast_cancer and wine is
    # 0.10–0.14 (wine, ε = 0.5): asserted > 0.
    for seed in CLAIM_SEEDS:
        for data in _CH10_SETS:
            for epsilon in _CH10_EPSILONS:
                for name in _CH10_HALFSPACE:
                    assert _ch10_above_majority(seed, data, epsilon, name) < 0.15, (seed, data, epsilon, name)
                    if data != "digits_3":
                        for peer in _CH10_DPSGD:
                            lead = _ch10_mean(seed, data, epsilon, peer) - _ch10_mean(seed, data, epsilon, name)
                            assert lead > 0, (seed, data, epsilon, name, peer, lead)


@pytest.mark.claim("ch10-proper-at-majority")
def test_ch10_proper_learner_scores_the_majority_rate():
    # Measured exactly the majority rate (SE 0) on every set and ε, book and claim seeds; asserted within 0.01.
    for seed in CLAIM_SEEDS:
        for data in _CH10_SETS:
            for epsilon in _CH10_EPSILONS:
                assert abs(_ch10_above_majority(seed, data, epsilon, "proper")) < 0.01, (seed, data, epsilon)


@pytest.mark.claim("ch10-semi-agnostic-below-majority")
def test_ch10_semi_agnostic_below_majority_on_digits():
    # Measured 0.12–0.17 below the majority rate (SE ≈ 0.015): asserted < 0. (On wine it was below on the book's seed
    # and above on one claim seed, so the chapter claims digits only.)
    for seed in CLAIM_SEEDS:
        for epsilon in _CH10_EPSILONS:
            assert _ch10_above_majority(seed, "digits_3", epsilon, "semi_agnostic") < 0, (seed, epsilon)


@pytest.mark.claim("ch10-fit-times-milliseconds")
def test_ch10_dp_sgd_and_diffprivlib_fits_take_milliseconds():
    # CPU time (time.process_time), not wall time. Measured medians ≤ 7 ms on a loaded 2-core machine; "instantaneous"
    # asserted as < 0.1 s, a margin of more than 10× for a slower CPU.
    for seed in CLAIM_SEEDS:
        for data in _CH10_SETS:
            for name in _CH10_DPSGD + ("diffprivlib",):
                assert _ch10_table(seed)[data, 1.0, name]["fit_cpu_seconds"] < 0.1, (seed, data, name)


@pytest.mark.claim("ch10-improper-slowest-on-digits")
def test_ch10_improper_learner_slowest_on_digits_by_ten_times():
    # Median CPU times of the same fits on the same rows: measured ratio 21–23 (2 145 degree-2 features against at most
    # 64 + 1 parameters for the others); asserted > 10.
    from dpteach.experiments import real_data
    for seed in CLAIM_SEEDS:
        seconds = {name: _ch10_table(seed)["digits_3", 1.0, name]["fit_cpu_seconds"] for name in real_data.CLASSIFIERS}
        slowest_other = max(value for name, value in seconds.items() if name != "improper")
        assert seconds["improper"] > 10 * slowest_other, (seed, seconds)


@pytest.mark.claim("ch10-diabetes-diffprivlib-far-worse")
def test_ch10_diffprivlib_regression_far_worse_than_noisy_gd():
    # Measured ratios ≥ 5·10⁵ (diffprivlib's MSE 10⁶–10¹³ against noisy GD's 1–20); asserted ≥ 10³ at every ε.
    for seed in CLAIM_SEEDS:
        for epsilon in _CH10_EPSILONS:
            ratio = _ch10_mean(seed, "diabetes", epsilon, "diffprivlib") / _ch10_mean(seed, "diabetes", epsilon, "dp_gd")
            assert ratio > 1e3, (seed, epsilon, ratio)


@pytest.mark.claim("ch10-diabetes-private-worse-than-zero")
def test_ch10_private_regressions_do_not_beat_zero_and_noisy_gd_improves():
    # Noisy GD measured 10–19, 3.1–5.5, 1.24–1.96 at ε = 0.5, 1, 2 against 0.95–1.06 for 0 (the closest: 1.24 ± 0.2
    # against 0.955 ± 0.04); DPLasso ≥ 4.6. Least squares 0.49–0.52.
    for seed in CLAIM_SEEDS:
        zero = _ch10_mean(seed, "diabetes", 1.0, "zero")
        gd = [_ch10_mean(seed, "diabetes", e, "dp_gd") for e in _CH10_EPSILONS]
        assert np.all(np.diff(gd) < 0), (seed, gd)
        for epsilon in _CH10_EPSILONS:
            for name in ("dp_gd", "dp_lasso", "diffprivlib"):
                assert _ch10_mean(seed, "diabetes", epsilon, name) > zero, (seed, epsilon, name)
        assert _ch10_mean(seed, "diabetes", 1.0, "sklearn") < zero, seed


@pytest.mark.claim("ch10-diabetes-noise-exceeds-gradient")
def test_ch10_noisy_gd_noise_norm_exceeds_the_gradient_at_zero():
    # σ_GD depends on public values only (n = 309, d = 10, T = 3, ε = 1, δ = 1e-5): √d·σ_GD ≈ 3.55. The gradient at
    # β = 0, (1/n) Σ x_i y_i, measured 0.38–0.42 on the book's and the claim seeds' splits: asserted smaller.
    pytest.importorskip("sklearn", reason="scikit-learn is not installed (pip install -r requirements.txt)")
    from dpteach import regression
    from dpteach.experiments import real_data
    X, y = real_data.load_dataset("diabetes")
    for seed in CLAIM_SEEDS:
        X_train, _, y_train, _ = real_data.split_and_scale(X, y, "regression", seed)
        n, d = X_train.shape
        sigma = regression.dp_gradient_descent_sigma(n, d, 1.0, real_data.DELTA, real_data.TRUNCATION)
        assert np.sqrt(d) * sigma > np.linalg.norm(X_train.T @ y_train / n), seed


# ---------------------------------------------------------------------------------------------
# Appendix A
# ---------------------------------------------------------------------------------------------

# The appendix's setting: the comparison tables at ε = 1 (10 000 draws for the Laplace count, 4 000 for the rest),
# the support attack at ε = 0.5 with 10 000 releases per count and at ε = 4 with 2 000 (the sweep's largest ε).
# OpenDP cannot be seeded; its draws are fresh on every run, which the tolerances below allow for.

_APPA_FALSE_ALARM = 1e-6  # the tables' per-test level (dpteach.experiments.production_laws.FALSE_ALARM)


def _appa_check_rows(rows):
    """Every correct sampler passes at 1e-6, every deliberately wrong variant is rejected (the tables' own test)."""
    for row in rows:
        assert row["rejected"] == row["expect_reject"], row


@pytest.mark.claim("appa-laplace-count-table", "appa-mis-scaled-leaves-band")
def test_appa_laplace_count_table_and_the_band():
    # False alarm: at most 5 correct-sampler tests per seed at 1e-6 each (union bound 1.5e-5 over the seeds).
    # Power (derived in the appendix and in tests/test_production.py): the 30 % scale error moves the CDF by 0.048,
    # the DKW band is t_α(10⁴) = 0.027, and a correct sampler's distance exceeds t_α with probability ≤ 1e-6, a
    # mis-scaled one stays below it only if its distance falls 0.021 (≈ 4 standard deviations of 0.005) short.
    from dpteach.experiments import production as prod
    for seed in CLAIM_SEEDS:
        rows = prod.laplace_count_rows(60, 1.0, 10_000, rng=seed)
        _appa_check_rows(rows)
        band = production_laws.ks_critical_value(10_000)
        for row in rows:
            if row["test"] == "KS":
                assert (row["statistic"] > band) == row["expect_reject"], (seed, row["library"], row["statistic"])


@pytest.mark.claim("appa-three-more-tables")
def test_appa_mean_selection_and_response_tables():
    # The same test as the tables; χ² power of each wrong variant at n = 4 000 is derived in tests/test_production.py
    # (noncentralities 82-110 against 1e-6 critical values of 24-31). The selection rows of the same table are
    # checked by the next test (appa-noisy-max-is-permute-and-flip).
    from dpteach.experiments import production as prod
    for seed in CLAIM_SEEDS:
        data = np.random.default_rng(seed).random(100)
        rows, _ = prod.gaussian_mean_rows(data, 1.0, 1e-5, 4_000, rng=seed)
        _appa_check_rows(rows)
        _appa_check_rows(prod.randomized_response_rows(1.0, 4_000, rng=seed))


@pytest.mark.claim("appa-noisy-max-is-permute-and-flip")
def test_appa_both_exponential_noise_maxima_are_permute_and_flip():
    # Both of OpenDP's exponential-noise maxima (make_noisy_max(max_divergence) and the deprecated
    # make_report_noisy_max_gumbel) pass as permute-and-flip and are rejected as the exponential mechanism
    # (noncentrality n·0.027 ≈ 110 at n = 4 000, 3 df, 1e-6 critical value 30.7); the Gumbel version passes as
    # the exponential mechanism.
    from dpteach.experiments import production as prod
    for seed in CLAIM_SEEDS:
        rows = prod.exponential_mechanism_rows([0.0, 1.0, 2.0, 3.0], 1.0, 1.0, 4_000, rng=seed)
        _appa_check_rows(rows)
        flips = [row["library"] for row in rows if row["release"] == "permute-and-flip"]
        assert flips == ["OpenDP", "OpenDP make_report_noisy_max_gumbel"], flips
        rejected = [row["library"] for row in rows if row["release"] == "exponential mechanism" and row["rejected"]]
        assert sum("OpenDP" in name for name in rejected) == 2, rejected


_APPA_ATTACK_RUNS = {}


def _appa_attack(seed, epsilon, n_trials):
    """floating_point_attack at the appendix's setting, once per (seed, ε), shared by the claims below.

    The audit is run at confidence 1 − 10⁻⁶ instead of the book's 0.95, so that a sampler that really is ε-DP
    certifies more than ε with probability at most 10⁻⁶ (the audit's guarantee); a certified ε is monotone in
    the confidence, so a bound asserted here holds a fortiori at 0.95.
    """
    key = (seed, epsilon, n_trials)
    if key not in _APPA_ATTACK_RUNS:
        from dpteach.experiments.production_attack import floating_point_attack
        _APPA_ATTACK_RUNS[key] = floating_point_attack(epsilon, n_trials, confidence=1 - 1e-6, rng=seed)
    return _APPA_ATTACK_RUNS[key]


@pytest.mark.claim("appa-attack-beats-limit")
def test_appa_attack_on_dpteach_beats_the_dp_limit():
    # The success is a mean of 2n = 20 000 scores in [0, 1]: its standard deviation is at most 1/(2√20 000) =
    # 0.0035. Measured ≈ 0.905 against the limit 0.622; asserting a gap > 0.2 leaves 0.08 ≈ 23 σ.
    for seed in CLAIM_SEEDS:
        ours = _appa_attack(seed, 0.5, 10_000)["dpteach"]
        assert ours["success"] - ours["bound"] > 0.2, (seed, ours["success"])


@pytest.mark.claim("appa-count-zero-always-in-s0")
def test_appa_every_release_of_zero_is_in_s0():
    # Exact: membership is decided by recomputing numpy's formula with the C library's log, so no release of 0
    # may be missed (also tested bit for bit in tests/test_float_attack.py, with numpy's SIMD code off).
    for seed in CLAIM_SEEDS:
        assert _appa_attack(seed, 0.5, 10_000)["dpteach"]["reach_0"] == 1.0, seed


@pytest.mark.claim("appa-count-one-mostly-outside-s0")
def test_appa_few_releases_of_one_are_in_s0():
    # Measured ≈ 0.19; binomial sd √(0.19·0.81/10⁴) = 0.004, so (0.1, 0.3) is more than 20 σ wide on each side.
    for seed in CLAIM_SEEDS:
        reach_1 = _appa_attack(seed, 0.5, 10_000)["dpteach"]["reach_1"]
        assert 0.1 < reach_1 < 0.3, (seed, reach_1)


@pytest.mark.claim("appa-audit-over-ten-times-claim")
def test_appa_audit_certifies_more_than_ten_times_epsilon():
    # With 0 of 10⁴ releases of 0 outside S₀ and ≈ 81 % of the releases of 1 outside, the bound is about
    # ln(0.80 / (16/10⁴)) ≈ 6.2 at confidence 1 − 10⁻⁶ (≈ 7.5 at the book's 0.95), above 10·0.5 = 5.
    for seed in CLAIM_SEEDS:
        certified = _appa_attack(seed, 0.5, 10_000)["dpteach"]["audit"].epsilon_lower
        assert certified > 10 * 0.5, (seed, certified)


@pytest.mark.claim("appa-production-within-limit")
def test_appa_production_samplers_stay_within_the_limit():
    # Measured ≈ 0.51-0.52 (sd ≤ 0.0035, see above); the book's 95 % Hoeffding half-width is
    # √(ln 40 / (4·10⁴)) = 0.0096. Asserting success + half-width ≤ 0.622 leaves ≈ 0.09 ≈ 25 σ.
    import math
    half_width = math.sqrt(math.log(2 / 0.05) / (4 * 10_000))
    for seed in CLAIM_SEEDS:
        results = _appa_attack(seed, 0.5, 10_000)
        for name in ("OpenDP", "diffprivlib"):
            assert results[name]["success"] + half_width <= results[name]["bound"], (seed, name, results[name])


@pytest.mark.claim("appa-production-audit-within-claim")
def test_appa_production_audit_certifies_no_more_than_epsilon():
    # The audit's guarantee at confidence 1 − 10⁻⁶: an ε-DP sampler certifies more than ε with probability ≤ 10⁻⁶.
    for seed in CLAIM_SEEDS:
        results = _appa_attack(seed, 0.5, 10_000)
        for name in ("OpenDP", "diffprivlib"):
            assert results[name]["audit"].epsilon_lower <= 0.5, (seed, name, results[name]["audit"])


@pytest.mark.claim("appa-support-density-differs")
def test_appa_support_density_differs_between_places():
    # OpenDP's releases at ε = 4 (b = 1/4), 10 000 per count. Measured: of the releases of 1 in [1, 2) (≈ 49 %),
    # ≈ 0.86 in S₁ and ≈ 0.04 in S₀; of the releases of 0 in (−1, 1) (≈ 98 %), ≈ 0.18 in S₀ and ≈ 0.05 in S₁.
    # Binomial sds are below 0.006 (≈ 4 900 and 9 800 releases), so the thresholds 0.5, 0.2 and the ordering hold by
    # more than 20 σ.
    from dpteach.experiments.production_attack import attack_samplers
    from dpteach.float_attack import reachable_outputs
    sample = attack_samplers()["OpenDP"]
    scale = 0.25
    for seed in CLAIM_SEEDS:
        ones = sample(1.0, 1.0, 4.0, 10_000, np.random.default_rng(seed))
        near_one = ones[(ones >= 1) & (ones < 2)]
        assert reachable_outputs(near_one, 1.0, scale).mean() > 0.5
        assert reachable_outputs(near_one, 0.0, scale).mean() < 0.2
        zeros = sample(0.0, 1.0, 4.0, 10_000, np.random.default_rng(seed))
        near_zero = zeros[np.abs(zeros) < 1]
        assert reachable_outputs(near_zero, 0.0, scale).mean() > reachable_outputs(near_zero, 1.0, scale).mean()


@pytest.mark.claim("appa-production-edge-below-limit")
def test_appa_production_edge_grows_with_epsilon_but_stays_below_the_limit():
    # At ε = 4 (2 000 releases per count): sd of the success ≤ 1/(2√4 000) = 0.0079; measured ≈ 0.71, limit 0.982.
    # "Clearly better than a coin": > 0.6 (14 σ below); below the limit by 34 σ; larger than at ε = 0.5 (≈ 0.515)
    # by more than 0.1 (≈ 11 σ of the difference).
    for seed in CLAIM_SEEDS:
        large, small = _appa_attack(seed, 4.0, 2_000), _appa_attack(seed, 0.5, 10_000)
        for name in ("OpenDP", "diffprivlib"):
            success = large[name]["success"]
            assert 0.6 < success < large[name]["bound"], (seed, name, success)
            assert success > small[name]["success"] + 0.1, (seed, name, success, small[name]["success"])


@pytest.mark.claim("appa-gap-closes-at-large-eps")
def test_appa_dpteach_no_longer_above_the_limit_at_eps_4():
    # At ε = 4 the attack scores ≈ 0.969 against the limit 0.982. Its scores are 1 or 1/2 (abstentions, ≈ 6 %):
    # per-score variance ≈ 0.25·0.06·0.94 = 0.014, sd of the mean of 4 000 ≈ 0.0019, so the 0.013 margin is ≈ 7 σ.
    for seed in CLAIM_SEEDS:
        ours = _appa_attack(seed, 4.0, 2_000)["dpteach"]
        assert ours["success"] <= ours["bound"], (seed, ours["success"])


@pytest.mark.claim("appa-large-count-abstains")
def test_appa_attack_abstains_near_a_million():
    # Exact: near 10⁶ the doubles are spaced 1.2·10⁻¹⁰ apart, coarser than the noise's lattice, so every release of
    # 10⁶ or 10⁶ + 1 is reachable from both counts and Algorithm A.3 abstains (score 1/2) on each.
    from dpteach.float_attack import support_attack
    from dpteach.mechanisms import laplace_mechanism
    for seed in CLAIM_SEEDS:
        rng = np.random.default_rng(seed)
        for value in (1e6, 1e6 + 1):
            releases = laplace_mechanism(np.full(5_000, value), 1.0, 0.5, rng)
            assert np.all(support_attack(releases, 1e6, 1e6 + 1, 2.0) == 0.5), (seed, value)
