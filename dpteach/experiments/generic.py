"""The runners behind chapter 2's figures (the generic private learner).

Many datasets at once, the excess error of the learner against closed-form
true errors, the padding experiment behind the pure-DP lower bound, the exact
privacy loss over all neighbouring datasets, and timings of the error counts.
"""

from __future__ import annotations

import math
import time
from functools import partial
from numbers import Integral, Real

import numpy as np

from .._constraints import (Check, Count, Epsilon, FiniteInterval, Options, POSITIVE, POSITIVE_INT, SameLength,
                            validate_params)
from .._array_constraints import Array, Callable, Flag, Sequence, Sweep
from .._validation import check_finite_array, check_memory, check_work
from ..data import halfspace_data, parity_data, threshold_data
from ..data.generic import NOISE_RATE, UNIT_CLOSED
from ..generic import DATA, select_hypotheses
from ..hypotheses import HYPOTHESIS_CLASS, halfspaces, parities, thresholds
from ..mechanisms import exponential_mechanism, exponential_mechanism_probabilities
from ._progress import EPSILONS, PARITY_DIMENSIONS, REPETITIONS, SIZES
from .._progress import progress as _progress_bar

__all__ = ["excess_errors", "error_count_table", "excess_error_summary", "padding_group_sizes",
           "select_with_padding", "estimated_true_errors", "neighbour_privacy_losses", "time_error_counts",
           "grid_size_setups", "dimension_setups", "noise_level_setups", "exact_privacy_loss_sweep",
           "parity_timings", "parity_tables"]


# --- the declared contracts of the runners -------------------------------------------------------------
#: The data and the candidate replacements each come as (X, y) with one label per row.
_PAIRED = [SameLength("X", "y"), SameLength("candidate_X", "candidate_y")]


def _check_group_sizes(group_sizes, name):
    """Multiplicities c_k >= 0 of the error counts k = 0..n along the last axis (at least 1 dimension)."""
    sizes = check_finite_array(group_sizes, name)
    if sizes.ndim < 1 or np.any(sizes < 0):
        raise ValueError(f"{name} must be non-negative counts with a last axis k = 0..n, got shape {sizes.shape}")
    return sizes


#: A sweep of sample sizes (or dimensions, or class sizes): a whole number >= 1 or a 1-D sequence of them.
SIZE_SWEEP = SIZES
SAMPLER = Callable("sample(n, n_datasets=..., rng=...) -> (X, y)")


@validate_params({"indices": Array(), "true_errors": Array(ndim=1)})
def excess_errors(indices, true_errors):
    """err(h) − OPT for the chosen indices, with OPT = min_{h ∈ H} err(h) (the agnostic benchmark).

    Examples
    --------
    >>> excess_errors(indices=np.array([0, 1]), true_errors=np.array([0.3, 0.1, 0.2, 0.35, 0.45])).round(2).tolist()
    [0.2, 0.0]
    """
    chosen = indices
    bad = (chosen != np.round(chosen)) | (chosen < 0) | (chosen >= true_errors.size)
    if np.any(bad):
        raise ValueError(f"indices must be whole numbers in [0, {true_errors.size - 1}] (indices into true_errors), "
                         f"found {chosen[bad].ravel()[0].item()!r}")
    return true_errors[chosen.astype(np.int64)] - true_errors.min()


# ``sample`` is the caller's code (a data generator with its own parameters): the routines it calls check theirs.
@validate_params({"hypotheses": HYPOTHESIS_CLASS, "sample": SAMPLER, "n_values": SIZE_SWEEP,
                  "n_datasets": POSITIVE_INT, "rng": "random_state", "progress": Flag()},
                 skip_nested=False)
def error_count_table(hypotheses, sample, n_values, n_datasets, rng=None, progress=False):
    """Error counts of every h ∈ H on ``n_datasets`` fresh datasets for each sample size n.

    ``sample(n, n_datasets=..., rng=...)`` must return (X, y) with a leading
    axis of n_datasets (e.g. ``functools.partial(data.threshold_data, theta=0.37)``). Returns a list (one entry per n) of int64 arrays of shape
    (n_datasets, |H|): the slider-independent part of an experiment, so a
    figure only has to call :func:`select_hypotheses` when ε changes.
    Cost: Σ_n n_datasets × (one fast error-count pass of size n).

    Examples
    --------
    >>> from dpteach.hypotheses import thresholds
    >>> sample = partial(threshold_data, theta=0.37)
    >>> table = error_count_table(thresholds(np.linspace(0, 1, 5)), sample, n_values=[5], n_datasets=2, rng=0)
    >>> [counts.tolist() for counts in table]
    [[[1, 1, 2, 3, 4, 4, 4, 3, 2, 1], [0, 0, 0, 3, 5, 5, 5, 5, 2, 0]]]
    """
    # Per n: n_datasets samples of n points and an (n_datasets, |H|) int64 table, refused before drawing.
    check_memory(("n_datasets", n_datasets), ("n_values", max(n_values)))
    check_memory(("n_datasets", n_datasets), ("|H|", len(hypotheses)))
    n_values_iter = _progress_bar(n_values, f"error counts ({hypotheses.name})", enabled=None if progress else False)
    table = []
    for n in n_values_iter:
        X, y = sample(n, n_datasets=n_datasets, rng=rng)
        table.append(hypotheses.batch_error_counts(X, y))
    return table


@validate_params({"count_table": Sequence("error-count arrays (one per sample size)", entry=Array(ndim=(1, 2, 3, 4))),
                  "true_errors": Array(ndim=1), "epsilon": Epsilon(allow_inf=True), "rng": "random_state",
                  "quantile": UNIT_CLOSED})
def excess_error_summary(count_table, true_errors, epsilon, rng=None, quantile=0.9):
    """Mean and ``quantile`` of the learner's excess error for each entry of an :func:`error_count_table`.

    Runs :func:`select_hypotheses` (ε = inf: ERM) on every dataset and
    returns two arrays (one value per sample size): the mean of
    err(h) − OPT over datasets and its empirical ``quantile``, which a
    theorem with failure probability β = 1 − quantile bounds. ε = inf gives ERM's.

    Examples
    --------
    >>> table = [np.array([[3, 1, 2, 4, 5], [2, 2, 1, 3, 4]])]
    >>> mean, quantile = excess_error_summary(table, np.array([0.3, 0.1, 0.2, 0.35, 0.45]), epsilon=1.0, rng=0)
    >>> mean.round(3).tolist(), quantile.round(3).tolist()
    ([0.1], [0.1])
    """
    excess = [excess_errors(select_hypotheses(counts, epsilon, rng), true_errors) for counts in count_table]
    return (np.array([e.mean() for e in excess]),
            np.array([np.quantile(e, quantile) for e in excess]))


@validate_params({"n": POSITIVE_INT, "n_padding": FiniteInterval(Integral, 0, None, closed="left"),
                  "n_datasets": POSITIVE_INT, "rng": "random_state"})
def padding_group_sizes(n, n_padding, n_datasets, rng=None):
    """How many of M useless public hypotheses make k = 0..n errors, for each of S datasets (padding experiment).

    A padding hypothesis labels every point by its own fair coin, flipped
    before the data is seen, so its true error is exactly 1/2 and its error
    count on n distinct points is Bin(n, 1/2), independently across padding
    hypotheses. The multiplicities (c_0, …, c_n) are therefore
    Multinomial(M; Bin(n, 1/2)): an int array of shape (S, n + 1). They do not
    depend on ε, so a figure draws them once.

    Examples
    --------
    >>> padding_group_sizes(n=4, n_padding=10, n_datasets=2, rng=0).tolist()
    [[1, 2, 6, 1, 0], [1, 4, 2, 2, 1]]
    """
    from scipy import stats

    check_memory(("n_datasets", n_datasets), ("n", n + 1))  # the (S, n + 1) table of counts
    probabilities = stats.binom.pmf(np.arange(n + 1), n, 0.5)
    return rng.multinomial(n_padding, probabilities / probabilities.sum(), size=n_datasets)


@validate_params({"error_counts": Array(ndim=2), "group_sizes": Array(ndim=2), "epsilon": Epsilon(),
                  "rng": "random_state"})
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

    Examples
    --------
    >>> counts = np.array([[3, 1, 2, 4, 5], [2, 2, 1, 3, 4]])
    >>> select_with_padding(counts, group_sizes=np.array([[1, 2, 3, 2, 2]] * 2), epsilon=1.0, rng=0).tolist()
    [2, 1]
    """
    counts, sizes = error_counts, group_sizes
    if sizes.shape[0] != counts.shape[0] or np.any(sizes < 0):
        raise ValueError(f"group_sizes must be non-negative with one row per dataset "
                         f"({counts.shape[0]}), got shape {sizes.shape}")
    chosen = np.empty(counts.shape[0], dtype=np.int64)
    for row, (errors, size) in enumerate(zip(counts, sizes)):
        present = size > 0
        group_scores = -np.flatnonzero(present) + (2 / epsilon) * np.log(size[present])
        index = exponential_mechanism(np.concatenate([-errors, group_scores]), 1.0, epsilon, rng)
        chosen[row] = index if index < errors.size else -1
    return chosen


@validate_params({"hypotheses": HYPOTHESIS_CLASS, "X_test": DATA["X"], "y_clean": DATA["y"], "noise_rate": NOISE_RATE},
                 relations=[SameLength("X_test", "y_clean")])
def estimated_true_errors(hypotheses, X_test, y_clean, noise_rate=0.0):
    """True errors from a large public test sample with *clean* labels: η + (1 − 2η)·disagreement.

    With independent label noise η, err(h) = η + (1 − 2η)·Pr[h(x) ≠ h*(x)];
    the disagreement is estimated on (X_test, y_clean) with standard error at
    most 1/(2√m) for m test points. For classes without a closed form
    (halfspaces on the cube).

    Examples
    --------
    >>> from dpteach.hypotheses import thresholds
    >>> X_test, y_clean = np.linspace(0.05, 0.95, 8), np.array([1.0, -1.0] * 4)
    >>> estimated_true_errors(thresholds(np.linspace(0, 1, 5)), X_test, y_clean).tolist()
    [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
    """
    disagreement = hypotheses.error_counts(X_test, y_clean) / len(y_clean)
    return noise_rate + (1 - 2 * noise_rate) * disagreement


@validate_params({"hypotheses": HYPOTHESIS_CLASS, **DATA, "epsilon": Epsilon(), "candidate_X": DATA["X"],
                  "candidate_y": DATA["y"], "sensitivity": POSITIVE}, relations=_PAIRED)
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

    Examples
    --------
    >>> from dpteach.hypotheses import thresholds
    >>> X, y = np.array([0.05, 0.18, 0.31, 0.44]), np.array([1.0, -1.0, 1.0, -1.0])
    >>> losses = neighbour_privacy_losses(thresholds(np.linspace(0, 1, 5)), X, y, epsilon=1.0,
    ...                                   candidate_X=np.array([0.5]), candidate_y=np.array([1.0]))
    >>> losses.round(3).tolist()
    [[0.55], [0.574], [0.525], [0.597]]
    """
    labels, candidate_labels = y, candidate_y
    predictions = hypotheses.predict_all(X)                             # (|H|, n)
    candidate_predictions = hypotheses.predict_all(candidate_X)
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


@validate_params({"hypotheses": HYPOTHESIS_CLASS, **DATA, "method": Options(("fast", "naive")),
                  "repeats": POSITIVE_INT})
def time_error_counts(hypotheses, X, y, method="fast", repeats=3):
    """Best-of-``repeats`` wall-clock seconds of ``hypotheses.error_counts(X, y, method)``.

    For the chapter's runtime figure (naive O(n·|H|) counting against the
    fast paths). ``repeats`` >= 1.

    Examples
    --------
    >>> from dpteach.hypotheses import thresholds
    >>> X, y = np.linspace(0.05, 0.95, 8), np.array([1.0, -1.0] * 4)
    >>> time_error_counts(thresholds(np.linspace(0, 1, 5)), X, y, repeats=1) < 1.0
    True
    """
    # Each repeat counts the errors of every hypothesis on every point (O(n·|H|) naively).
    n_points = X.shape[0]
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


@validate_params({"grid_sizes": SIZE_SWEEP, "theta": UNIT_CLOSED, "noise_rate": NOISE_RATE, "n": Count(),
                  "n_datasets": REPETITIONS, "rng": "random_state"})
def grid_size_setups(grid_sizes, theta, noise_rate, n, n_datasets, rng=None):
    """(a) Thresholds on grids of N cuts: for each N, (H_N, error-count table at n, true errors).

    Data ~ ``data.threshold_data(theta, noise_rate)``; an irrational θ keeps every grid's
    approximation error OPT − η positive. Returns a list of (HypothesisClass, table, true_errors).

    Examples
    --------
    >>> [(H, table[0].shape) for H, table, _ in grid_size_setups([3], 0.37, 0.1, n=5, n_datasets=2, rng=0)]
    [(Thresholds(|H|=8), (2, 8))]
    """
    # Per grid: n_datasets samples of n points and an (n_datasets, 2(N + 1)) table of error counts.
    check_memory(("n_datasets", n_datasets), ("n", n))
    check_memory(("n_datasets", n_datasets), ("grid_sizes", max(grid_sizes) + 1), itemsize=16)
    sample = partial(threshold_data, theta=theta, noise_rate=noise_rate)
    setups = []
    for grid_size in _progress_bar(grid_sizes, "(a) thresholds"):
        H = thresholds(grid_size)
        table = error_count_table(H, sample, [n], n_datasets, rng)
        setups.append((H, table, H.true_errors_uniform(theta, noise_rate)))
    return setups


@validate_params({"dimensions": SIZE_SWEEP, "offset": FiniteInterval(Real, None, None), "noise_rate": NOISE_RATE,
                  "n": Count(), "n_datasets": REPETITIONS, "n_public": Count(), "rng": "random_state"})
def dimension_setups(dimensions, offset, noise_rate, n, n_datasets, n_public=10_000, rng=None):
    """(b) Halfspaces over a public net in d = 1..D: for each d, (H_d, error-count table at n, true errors).

    The normal is drawn from ``rng``; true errors are estimated on ``n_public`` clean public points
    (:func:`estimated_true_errors`). Returns a list of (HypothesisClass, table, true_errors).

    Examples
    --------
    >>> setups = dimension_setups([2], offset=0.1, noise_rate=0.1, n=5, n_datasets=2, n_public=20, rng=0)
    >>> [(H, table[0].shape, true_errors.shape) for H, table, true_errors in setups]
    [(Halfspaces(|H|=168), (2, 168), (168,))]
    """
    check_memory(("n_public", n_public), ("dimensions", max(dimensions)))
    check_memory(("n_datasets", n_datasets), ("n", n), ("dimensions", max(dimensions)))
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


@validate_params({"hypotheses": HYPOTHESIS_CLASS,
                  "noise_rates": Sweep(NOISE_RATE),
                  "theta": UNIT_CLOSED, "n_values": SIZE_SWEEP, "n_datasets": REPETITIONS, "rng": "random_state"})
def noise_level_setups(hypotheses, noise_rates, theta, n_values, n_datasets, rng=None):
    """Thresholds under label noise η: for each η, (error-count table over n, true errors, ERM's mean excess error).

    ``hypotheses`` is a class of thresholds (its ``true_errors_uniform(theta, eta)`` gives the true errors).

    Examples
    --------
    >>> from dpteach.hypotheses import thresholds
    >>> setups = noise_level_setups(thresholds(np.linspace(0, 1, 5)), [0.1], 0.37, n_values=[5], n_datasets=2, rng=0)
    >>> [(table[0].shape, erm_excess.round(3).tolist()) for table, _, erm_excess in setups]
    [((2, 10), [0.104])]
    """
    setups = []
    for eta in _progress_bar(noise_rates, "noise levels"):
        sample = partial(threshold_data, theta=theta, noise_rate=eta)
        table = error_count_table(hypotheses, sample, n_values, n_datasets, rng)
        true_errors = hypotheses.true_errors_uniform(theta, eta)
        setups.append((table, true_errors, excess_error_summary(table, true_errors, math.inf, rng)[0]))
    return setups


@validate_params({"hypotheses": HYPOTHESIS_CLASS, **DATA,
                  "epsilons": EPSILONS,
                  "candidate_X": DATA["X"], "candidate_y": DATA["y"],
                  "sensitivities": Sweep(POSITIVE)}, relations=_PAIRED)
def exact_privacy_loss_sweep(hypotheses, X, y, epsilons, candidate_X, candidate_y, sensitivities):
    """Worst exact privacy loss over all replace-one neighbours, for each ε and each assumed sensitivity.

    Returns a dict sensitivity → array over ``epsilons`` of max |ln p/p′|
    (:func:`neighbour_privacy_losses`). Sensitivity 1 is the learner; 0.5 is
    the broken variant that drops the factor 2 of the exponential mechanism.

    Examples
    --------
    >>> from dpteach.hypotheses import thresholds
    >>> X, y = np.array([0.05, 0.18, 0.31, 0.44]), np.array([1.0, -1.0, 1.0, -1.0])
    >>> worst = exact_privacy_loss_sweep(thresholds(np.linspace(0, 1, 5)), X, y, epsilons=[1.0],
    ...                                  candidate_X=np.array([0.5]), candidate_y=np.array([1.0]),
    ...                                  sensitivities=[1.0, 0.5])
    >>> {s: losses.round(3).tolist() for s, losses in worst.items()}
    {1.0: [0.597], 0.5: [1.361]}
    """
    worst = {s: [] for s in sensitivities}
    for epsilon in _progress_bar(epsilons, "exact privacy losses"):
        for s in sensitivities:
            worst[s].append(neighbour_privacy_losses(hypotheses, X, y, epsilon, candidate_X, candidate_y,
                                                     sensitivity=s).max())
    return {s: np.array(values) for s, values in worst.items()}


@validate_params({"naive_dims": SIZE_SWEEP, "fast_dims": PARITY_DIMENSIONS, "n": POSITIVE_INT, "rng": "random_state"})
def parity_timings(naive_dims, fast_dims, n, rng=None):
    """Seconds to count the errors of all 2^d parities on n examples: naive vs Walsh–Hadamard.

    Returns {"naive": array over ``naive_dims``, "fast": array over ``fast_dims``};
    the naive count is timed only for d in ``naive_dims`` (it is 2^d × n).

    Examples
    --------
    >>> {k: v.shape for k, v in parity_timings(naive_dims=[2], fast_dims=[2], n=8, rng=0).items()}
    {'naive': (1,), 'fast': (1,)}
    """
    naive_dims = set(naive_dims)
    runtimes = {"naive": [], "fast": []}
    for d in _progress_bar(fast_dims, "parity timings"):
        H = parities(d)
        X, y = parity_data(n, d, secret=1, rng=rng)
        runtimes["fast"].append(time_error_counts(H, X, y, method="fast", repeats=3))
        if d in naive_dims:
            runtimes["naive"].append(time_error_counts(H, X, y, method="naive", repeats=1))
    return {k: np.array(v) for k, v in runtimes.items()}


@validate_params({"dimensions": Sweep(Count(2, 30)),
                  "n_values": SIZE_SWEEP, "n_datasets": REPETITIONS, "rng": "random_state"})
def parity_tables(dimensions, n_values, n_datasets, rng=None):
    """Error-count tables of all parities for each d >= 2, on data with the secret 2^d − 3: {d: table}.

    Examples
    --------
    >>> {d: [t.shape for t in table] for d, table in parity_tables([2], n_values=[8], n_datasets=2, rng=0).items()}
    {2: [(2, 4)]}
    """
    tables = {}
    for d in _progress_bar(dimensions, "parity error counts"):
        sample = partial(parity_data, d=d, secret=int(2 ** d - 3))
        tables[d] = error_count_table(parities(d), sample, n_values, n_datasets, rng)
    return tables


# --- The packing ("needle") experiment behind chapter 2's lower-bound figure (Theorem 2.12) -------

__all__ += ["packing_group_sizes", "packing_success_probabilities"]


@validate_params({"n": POSITIVE_INT, "n_hypotheses": SIZE_SWEEP, "n_datasets": REPETITIONS, "rng": "random_state"})
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

    Examples
    --------
    >>> packing_group_sizes(n=4, n_hypotheses=[3, 10], n_datasets=2, rng=0).tolist()
    [[[0, 0, 2, 0, 0], [0, 1, 0, 1, 0]], [[1, 2, 1, 3, 2], [0, 4, 5, 0, 0]]]
    """
    return np.stack([padding_group_sizes(n, M - 1, n_datasets, rng) for M in n_hypotheses])


# Check: non-negative counts with at least one axis; PositiveArray also takes a 0-d scalar
@validate_params({"group_sizes": Check(_check_group_sizes, array_ndim=(1, 2, 3), convert_nested=Array.convert_nested,
                                       invalid=[(None, "None"), (3.0, "3.0"), ([-1.0], "[-1.0]")]),
                  "epsilon": Epsilon()})
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

    Examples
    --------
    >>> packing_success_probabilities(group_sizes=np.array([[1, 2, 1], [0, 3, 1]]), epsilon=1.0).round(3).tolist()
    [0.279, 0.314]
    """
    weights = np.exp(-epsilon * np.arange(group_sizes.shape[-1]) / 2)
    return 1.0 / (1.0 + group_sizes @ weights)
