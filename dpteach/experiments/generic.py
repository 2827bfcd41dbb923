"""The runners behind chapter 2's figures (the generic private learner).

Many datasets at once, the excess error of the learner against closed-form
true errors, the padding experiment behind the pure-DP lower bound, the exact
privacy loss over all neighbouring datasets, and timings of the error counts.
"""

from __future__ import annotations

import math
import time
from functools import partial

import numpy as np

from .._validation import (as_rng, check_callable, check_epsilon, check_epsilon_sweep, check_finite_array, check_int,
                           check_labels, check_memory, check_positive, check_probability, check_real_array,
                           check_same_length, check_sequence, check_size, check_sizes, check_sweep, check_work)
from ..data import halfspace_data, parity_data, threshold_data
from ..generic import select_hypotheses
from ..hypotheses import check_class, halfspaces, parities, thresholds
from ..mechanisms import exponential_mechanism, exponential_mechanism_probabilities
from ._progress import check_repetitions
from .._progress import progress as _progress_bar

__all__ = ["excess_errors", "error_count_table", "excess_error_summary", "padding_group_sizes",
           "select_with_padding", "estimated_true_errors", "neighbour_privacy_losses", "time_error_counts",
           "grid_size_setups", "dimension_setups", "noise_level_setups", "exact_privacy_loss_sweep",
           "parity_timings", "parity_tables"]


def excess_errors(indices, true_errors):
    """err(h) − OPT for the chosen indices, with OPT = min_{h ∈ H} err(h) (the agnostic benchmark)."""
    true_errors = check_finite_array(true_errors, "true_errors", ndim=1)
    chosen = check_real_array(indices, "indices")
    bad = (chosen != np.round(chosen)) | (chosen < 0) | (chosen >= true_errors.size)
    if np.any(bad):
        raise ValueError(f"indices must be whole numbers in [0, {true_errors.size - 1}] (indices into true_errors), "
                         f"found {chosen[bad].ravel()[0].item()!r}")
    return true_errors[chosen.astype(np.int64)] - true_errors.min()


def error_count_table(hypotheses, sample, n_values, n_datasets, rng=None, progress=False):
    """Error counts of every h ∈ H on ``n_datasets`` fresh datasets for each sample size n.

    ``sample(n, n_datasets=..., rng=...)`` must return (X, y) with a leading
    axis of n_datasets (e.g. ``functools.partial(data.threshold_data, theta=0.37)``). Returns a list (one entry per n) of int64 arrays of shape
    (n_datasets, |H|): the slider-independent part of an experiment, so a
    figure only has to call :func:`select_hypotheses` when ε changes.
    Cost: Σ_n n_datasets × (one fast error-count pass of size n).
    """
    hypotheses = check_class(hypotheses)
    check_callable(sample, "sample", "sample(n, n_datasets=..., rng=...) -> (X, y)")
    n_datasets = check_int(n_datasets, "n_datasets", minimum=1)
    rng = as_rng(rng)
    n_values = check_sizes(n_values, "n_values")
    # Per n: n_datasets samples of n points and an (n_datasets, |H|) int64 table, refused before drawing.
    check_memory(("n_datasets", n_datasets), ("n_values", max(n_values)))
    check_memory(("n_datasets", n_datasets), ("|H|", len(hypotheses)))
    n_values_iter = _progress_bar(n_values, f"error counts ({hypotheses.name})", enabled=None if progress else False)
    table = []
    for n in n_values_iter:
        X, y = sample(n, n_datasets=n_datasets, rng=rng)
        table.append(hypotheses.batch_error_counts(X, y))
    return table


def excess_error_summary(count_table, true_errors, epsilon, rng=None, quantile=0.9):
    """Mean and ``quantile`` of the learner's excess error for each entry of an :func:`error_count_table`.

    Runs :func:`select_hypotheses` (ε = inf: ERM) on every dataset and
    returns two arrays (one value per sample size): the mean of
    err(h) − OPT over datasets and its empirical ``quantile``, which a
    theorem with failure probability β = 1 − quantile bounds.
    """
    quantile = check_probability(quantile, "quantile", low_open=False, high_open=False)
    rng = as_rng(rng)
    count_table = check_sequence(count_table, "count_table", "error-count arrays (one per sample size)")
    excess = [excess_errors(select_hypotheses(counts, epsilon, rng), true_errors) for counts in count_table]
    return (np.array([e.mean() for e in excess]),
            np.array([np.quantile(e, quantile) for e in excess]))


def padding_group_sizes(n, n_padding, n_datasets, rng=None):
    """How many of M useless public hypotheses make k = 0..n errors, for each of S datasets (padding experiment).

    A padding hypothesis labels every point by its own fair coin, flipped
    before the data is seen, so its true error is exactly 1/2 and its error
    count on n distinct points is Bin(n, 1/2), independently across padding
    hypotheses. The multiplicities (c_0, …, c_n) are therefore
    Multinomial(M; Bin(n, 1/2)): an int array of shape (S, n + 1). They do not
    depend on ε, so a figure draws them once.
    """
    from scipy import stats

    n = check_int(n, "n", minimum=1)
    n_padding = check_int(n_padding, "n_padding", minimum=0)
    n_datasets = check_int(n_datasets, "n_datasets", minimum=1)
    check_memory(("n_datasets", n_datasets), ("n", n + 1))  # the (S, n + 1) table of counts
    probabilities = stats.binom.pmf(np.arange(n + 1), n, 0.5)
    return as_rng(rng).multinomial(n_padding, probabilities / probabilities.sum(), size=n_datasets)


def select_with_padding(error_counts, group_sizes, epsilon, rng=None):
    """The learner's selection over H plus M useless public hypotheses (chapter 2, padding experiment).

    Only how many padding hypotheses have k errors matters
    (``group_sizes`` from :func:`padding_group_sizes`), so instead of
    materialising M of them the k-error group gets the score
    −k + (2/ε) ln c_k: its exponential-mechanism weight
    exp(ε·score/2) = c_k·e^{−εk/2} is the total weight of the group. One
    ``mechanisms.exponential_mechanism`` call over |H| + (n + 1) candidates is
    then an exact sample of the learner over H ∪ padding.

    Parameters
    ----------
    error_counts : array_like, shape (S, |H|)
        Error counts of the real hypotheses on S datasets of n points each.
    group_sizes : array_like of int, shape (S, n + 1)
    epsilon : float, 0 < ε < inf.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (S,)
        The chosen index in H, or −1 where a padding hypothesis was chosen.
        Cost O(|H| + n) per dataset, whatever M.
    """
    counts = check_finite_array(error_counts, "error_counts", ndim=2)
    sizes = check_finite_array(group_sizes, "group_sizes", ndim=2)
    if sizes.shape[0] != counts.shape[0] or np.any(sizes < 0):
        raise ValueError(f"group_sizes must be non-negative with one row per dataset "
                         f"({counts.shape[0]}), got shape {sizes.shape}")
    epsilon = check_epsilon(epsilon)
    rng = as_rng(rng)
    chosen = np.empty(counts.shape[0], dtype=np.int64)
    for row, (errors, size) in enumerate(zip(counts, sizes)):
        present = size > 0
        group_scores = -np.flatnonzero(present) + (2 / epsilon) * np.log(size[present])
        index = exponential_mechanism(np.concatenate([-errors, group_scores]), 1.0, epsilon, rng)
        chosen[row] = index if index < errors.size else -1
    return chosen


def estimated_true_errors(hypotheses, X_test, y_clean, noise_rate=0.0):
    """True errors from a large public test sample with *clean* labels: η + (1 − 2η)·disagreement.

    With independent label noise η, err(h) = η + (1 − 2η)·Pr[h(x) ≠ h*(x)];
    the disagreement is estimated on (X_test, y_clean) with standard error at
    most 1/(2√m) for m test points. For classes without a closed form
    (halfspaces on the cube).
    """
    noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
    hypotheses = check_class(hypotheses)
    X_test = check_finite_array(X_test, "X_test", ndim=(1, 2))  # bits (parities) allowed
    y_clean = check_labels(y_clean, "y_clean")
    check_same_length(X_test, y_clean, "X_test", "y_clean")
    disagreement = hypotheses.error_counts(X_test, y_clean) / len(y_clean)
    return noise_rate + (1 - 2 * noise_rate) * disagreement


def neighbour_privacy_losses(hypotheses, X, y, epsilon, candidate_X, candidate_y, sensitivity=1.0):
    """Exact privacy losses of the generic learner over replace-one neighbours (no sampling).

    For every neighbour z' of z = (X, y) obtained by replacing example i by
    candidate j, computes max_h |ln Pr[A(z) = h] − ln Pr[A(z') = h]| with the
    exact output distributions from ``mechanisms.exponential_mechanism_probabilities``
    (score −errors, the given ``sensitivity``). ε-DP means every entry is <= ε.
    ``sensitivity=1`` is the learner; ``sensitivity=0.5`` is the classic bug
    of dropping the factor 2 in exp(ε q / 2Δ), which the chapter shows
    exceeds ε.

    Returns
    -------
    ndarray, shape (n, number of candidates)
        Entry [i, j]: the loss of the neighbour with example i replaced by candidate j.

    Cost: O((n + c)·|H|) to tabulate mistakes plus one exact distribution per
    *distinct* change of the error counts (at most n·c), each O(|H|).
    """
    hypotheses = check_class(hypotheses)
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    labels = check_labels(y, "y")
    candidate_labels = check_labels(candidate_y, "candidate_y")
    # Checked under their own names first (predict_all would call them X).
    check_finite_array(X, "X", ndim=(1, 2))  # bits (parities) allowed
    check_finite_array(candidate_X, "candidate_X", ndim=(1, 2))
    predictions = hypotheses.predict_all(X)                             # (|H|, n)
    check_same_length(predictions.T, labels, "X", "y")
    candidate_predictions = hypotheses.predict_all(candidate_X)
    check_same_length(candidate_predictions.T, candidate_labels, "candidate_X", "candidate_y")
    mistakes = predictions != labels
    candidate_mistakes = candidate_predictions != candidate_labels
    errors = mistakes.sum(axis=1)
    base = np.log(exponential_mechanism_probabilities(-errors, sensitivity, epsilon))
    # The change of every error count when example i is replaced by candidate j.
    changes = candidate_mistakes.T[None, :, :].astype(np.int8) - mistakes.T[:, None, :].astype(np.int8)
    distinct, inverse = np.unique(changes.reshape(-1, len(hypotheses)), axis=0, return_inverse=True)
    losses = np.empty(len(distinct))
    with np.errstate(divide="ignore"):
        for row, change in enumerate(distinct):
            moved = np.log(exponential_mechanism_probabilities(-(errors + change), sensitivity, epsilon))
            losses[row] = np.max(np.abs(moved - base))
    if not np.all(np.isfinite(losses)):
        raise ValueError(f"an output probability underflowed to 0 at epsilon={epsilon!r}; "
                         f"use a smaller instance (epsilon·n below about 1000)")
    return losses[np.ravel(inverse)].reshape(changes.shape[:2])


def time_error_counts(hypotheses, X, y, method="fast", repeats=3):
    """Best-of-``repeats`` wall-clock seconds of ``hypotheses.error_counts(X, y, method)``.

    For the chapter's runtime figure (naive O(n·|H|) counting against the
    fast paths). ``repeats`` >= 1.
    """
    repeats = check_int(repeats, "repeats", minimum=1)
    hypotheses = check_class(hypotheses)
    # Each repeat counts the errors of every hypothesis on every point (O(n·|H|) naively).
    # (X itself is validated by error_counts, which names it; here only its number of rows is read.)
    n_points = int(np.shape(X)[0]) if np.ndim(X) else 1
    check_work(("repeats", repeats), ("n", n_points), ("|H|", len(hypotheses)))
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        hypotheses.error_counts(X, y, method=method)
        best = min(best, time.perf_counter() - start)
    return best


# --- Sweeps behind the chapter's figures -----------------------------------------------------------
# Each returns the slider-independent part of a figure (error-count tables, true errors, timings),
# so that a redraw only runs the cheap selection step. They draw from ``rng`` in a fixed order:
# the same seed gives the same figure.


def grid_size_setups(grid_sizes, theta, noise_rate, n, n_datasets, rng=None):
    """(a) Thresholds on grids of N cuts: for each N, (H_N, error-count table at n, true errors).

    Data ~ ``data.threshold_data(theta, noise_rate)``; an irrational θ keeps every grid's
    approximation error OPT − η positive. Returns a list of (HypothesisClass, table, true_errors).
    """
    n_datasets = check_repetitions(n_datasets, "n_datasets")
    n = check_size(n, "n")
    grid_sizes = check_sizes(grid_sizes, "grid_sizes")
    # Per grid: n_datasets samples of n points and an (n_datasets, 2(N + 1)) table of error counts.
    check_memory(("n_datasets", n_datasets), ("n", n))
    check_memory(("n_datasets", n_datasets), ("grid_sizes", max(grid_sizes) + 1), itemsize=16)
    rng = as_rng(rng)
    sample = partial(threshold_data, theta=theta, noise_rate=noise_rate)
    setups = []
    for grid_size in _progress_bar(grid_sizes, "(a) thresholds"):
        H = thresholds(grid_size)
        table = error_count_table(H, sample, [n], n_datasets, rng)
        setups.append((H, table, H.true_errors_uniform(theta, noise_rate)))
    return setups


def dimension_setups(dimensions, offset, noise_rate, n, n_datasets, n_public=10_000, rng=None):
    """(b) Halfspaces over a public net in d = 1..D: for each d, (H_d, error-count table at n, true errors).

    The normal is drawn from ``rng``; true errors are estimated on ``n_public`` clean public points
    (:func:`estimated_true_errors`). Returns a list of (HypothesisClass, table, true_errors).
    """
    n_datasets = check_repetitions(n_datasets, "n_datasets")
    n = check_size(n, "n")
    n_public = check_size(n_public, "n_public")  # halfspace_data would call it n
    dimensions = check_sizes(dimensions, "dimensions")
    check_memory(("n_public", n_public), ("dimensions", max(dimensions)))
    check_memory(("n_datasets", n_datasets), ("n", n), ("dimensions", max(dimensions)))
    rng = as_rng(rng)
    setups = []
    for d in _progress_bar(dimensions, "(b) halfspaces"):
        H = halfspaces(d, n_offsets=21, max_offset=1.0)
        normal = rng.standard_normal(d)
        normal /= np.linalg.norm(normal)
        X_public, y_public = halfspace_data(n_public, normal, offset, rng=rng, clean=True)
        true_errors = estimated_true_errors(H, X_public, y_public, noise_rate=noise_rate)
        sample = partial(halfspace_data, normal=normal, offset=offset, noise_rate=noise_rate)
        setups.append((H, error_count_table(H, sample, [n], n_datasets, rng), true_errors))
    return setups


def noise_level_setups(hypotheses, noise_rates, theta, n_values, n_datasets, rng=None):
    """Thresholds under label noise η: for each η, (error-count table over n, true errors, ERM's mean excess error)."""
    n_datasets = check_repetitions(n_datasets, "n_datasets")
    noise_rates = check_sweep(noise_rates, "noise_rates")
    n_values = check_sizes(n_values, "n_values")
    rng = as_rng(rng)
    setups = []
    for eta in _progress_bar(noise_rates, "noise levels"):
        sample = partial(threshold_data, theta=theta, noise_rate=eta)
        table = error_count_table(hypotheses, sample, n_values, n_datasets, rng)
        true_errors = hypotheses.true_errors_uniform(theta, eta)
        setups.append((table, true_errors, excess_error_summary(table, true_errors, math.inf, rng)[0]))
    return setups


def exact_privacy_loss_sweep(hypotheses, X, y, epsilons, candidate_X, candidate_y, sensitivities):
    """Worst exact privacy loss over all replace-one neighbours, for each ε and each assumed sensitivity.

    Returns a dict sensitivity → array over ``epsilons`` of max |ln p/p′|
    (:func:`neighbour_privacy_losses`). Sensitivity 1 is the learner; 0.5 is
    the broken variant that drops the factor 2 of the exponential mechanism.
    """
    epsilons = check_epsilon_sweep(epsilons)
    sensitivities = check_sweep(sensitivities, "sensitivities")
    for s in sensitivities:  # checked here so that a bad one is reported under the caller's plural name
        check_positive(s, "sensitivities")
    worst = {s: [] for s in sensitivities}
    for epsilon in _progress_bar(epsilons, "exact privacy losses"):
        for s in sensitivities:
            worst[s].append(neighbour_privacy_losses(hypotheses, X, y, epsilon, candidate_X, candidate_y,
                                                     sensitivity=s).max())
    return {s: np.array(values) for s, values in worst.items()}


def parity_timings(naive_dims, fast_dims, n, rng=None):
    """Seconds to count the errors of all 2^d parities on n examples: naive vs Walsh–Hadamard.

    Returns {"naive": array over ``naive_dims``, "fast": array over ``fast_dims``};
    the naive count is timed only for d in ``naive_dims`` (it is 2^d × n).
    """
    rng = as_rng(rng)
    naive_dims = set(check_sizes(naive_dims, "naive_dims"))
    runtimes = {"naive": [], "fast": []}
    for d in _progress_bar(check_sizes(fast_dims, "fast_dims"), "parity timings"):
        d = check_size(d, "d", minimum=1, maximum=30)
        H = parities(d)
        X, y = parity_data(n, d, secret=1, rng=rng)
        runtimes["fast"].append(time_error_counts(H, X, y, method="fast", repeats=3))
        if d in naive_dims:
            runtimes["naive"].append(time_error_counts(H, X, y, method="naive", repeats=1))
    return {k: np.array(v) for k, v in runtimes.items()}


def parity_tables(dimensions, n_values, n_datasets, rng=None):
    """Error-count tables of all parities for each d, on data with the secret 2^d − 3: {d: table}."""
    n_datasets = check_repetitions(n_datasets, "n_datasets")
    rng = as_rng(rng)
    tables = {}
    n_values = check_sizes(n_values, "n_values")
    for d in _progress_bar(check_sizes(dimensions, "dimensions"), "parity error counts"):
        d = check_size(d, "d", minimum=1, maximum=30)
        sample = partial(parity_data, d=d, secret=int(2 ** d - 3))
        tables[d] = error_count_table(parities(d), sample, n_values, n_datasets, rng)
    return tables


# --- The packing ("needle") experiment behind chapter 2's lower-bound figure (Theorem 2.12) -------

__all__ += ["packing_group_sizes", "packing_success_probabilities"]


def packing_group_sizes(n, n_hypotheses, n_datasets, rng=None):
    """Error-count multiplicities of the M − 1 wrong hypotheses of a packing of coin-flip hypotheses.

    The instance of chapter 2's lower-bound figure: M public hypotheses, each
    labelling every point of a large domain by its own fair coin flipped
    before the data is seen (pairwise 1/2 apart), one of them the target.
    On n distinct points the target makes no error and each of the M − 1
    others makes Bin(n, 1/2) errors, independently, so only how many make
    k = 0..n errors matters: Multinomial(M − 1; Bin(n, 1/2)), drawn with
    :func:`padding_group_sizes`. The result does not depend on ε.

    Parameters
    ----------
    n : int >= 1, the number of examples
    n_hypotheses : array_like of int >= 1, the sizes M of the packings
    n_datasets : int >= 1, datasets per M
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (len(n_hypotheses), n_datasets, n + 1)
        Cost O(len(M)·n_datasets·n), whatever M.
    """
    n = check_int(n, "n", minimum=1)
    n_datasets = check_repetitions(n_datasets, "n_datasets")
    rng = as_rng(rng)
    sizes = check_sizes(n_hypotheses, "n_hypotheses")
    return np.stack([padding_group_sizes(n, M - 1, n_datasets, rng) for M in sizes])


def packing_success_probabilities(group_sizes, epsilon):
    """Pr[the generic learner outputs the target] on each dataset of a packing, exactly.

    Given the multiplicities c_k of wrong hypotheses with k errors (from
    :func:`packing_group_sizes`), the learner of Algorithm 2.4 outputs the
    error-free target with probability 1 / (1 + Σ_k c_k e^{−εk/2}): the
    conditional law of its output, not a sample of it. The mean over the
    datasets estimates the success probability that Theorem 2.12 bounds by
    min{1, e^{εn}/M} for *every* ε-DP algorithm, and Jensen's inequality
    (as for parities in chapter 2) bounds from below by
    1 / (1 + (M − 1)((1 + e^{−ε/2})/2)^n).

    Parameters
    ----------
    group_sizes : array_like of int >= 0, shape (..., n + 1)
    epsilon : float, 0 < ε < inf

    Returns
    -------
    ndarray, shape group_sizes.shape[:-1], entries in (0, 1]
        Cost O(size of group_sizes).
    """
    sizes = check_finite_array(group_sizes, "group_sizes")
    if sizes.ndim < 1 or np.any(sizes < 0):
        raise ValueError(f"group_sizes must be non-negative counts with a last axis k = 0..n, got shape {sizes.shape}")
    epsilon = check_epsilon(epsilon)
    weights = np.exp(-epsilon * np.arange(sizes.shape[-1]) / 2)
    return 1.0 / (1.0 + sizes @ weights)
