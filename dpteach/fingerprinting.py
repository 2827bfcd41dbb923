"""Chapter 4, "Lower bounds by fingerprinting": tracing adversaries and why accuracy costs privacy.

Read top to bottom, this module follows the chapter:

1. the tracing statistics: the score statistic ⟨x − c, M − c⟩ of the mean
   attack (Eq. (eq-score-statistic)), and the regression statistics of Cai, Wang
   & Zhang's Lemmas 18 and 19 (as printed, plus the sign-weighted variant and
   the regression score statistic);
2. the membership experiment (members and fresh non-members, pooled over
   trials) and its summaries: the ROC curve, the exact Mann–Whitney AUC, and
   a threshold calibrated to a target false-positive rate;
3. the hypothesis-testing envelope that caps every (ε, δ)-DP membership test
   (Theorem 4.3);
4. the fingerprinting lemma, Bernoulli (Lemma 4.7) and Gaussian (Lemma 4.8),
   by Monte Carlo;
5. the estimators the chapter attacks (their one home is
   :mod:`dpteach.attack_targets`): the exact mean, the clipped Gaussian-mechanism
   mean, a mean with noise at a target accuracy, and (noisy) least squares.

Shapes: an attack scores *records*, an array (..., k, p) of k records; every
function also accepts a leading batch axis of trials, so an experiment with
T trials is one vectorised call. An estimator is a function
``estimator(records, rng=...)`` that maps (..., n, p) to (..., q).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ._validation import (as_rng, check_choice, check_delta, check_epsilon, check_int, check_memory,
                          check_positive, check_probability, check_real_array, check_work)
from .attack_targets import check_records, check_responses

__all__ = [
    "score_statistic",
    "classical_regression_statistic",
    "sparse_regression_statistic",
    "regression_score_statistic",
    "printed_threshold_classical",
    "printed_threshold_sparse",
    "membership_scores",
    "roc_curve",
    "auc",
    "calibrate_threshold",
    "dp_roc_envelope",
    "fingerprinting_lemma_mc",
    "gaussian_fingerprinting_mc",
    # the estimators to attack, defined in dpteach.attack_targets
]


# --- validation helpers (private: inputs are already checked by the public caller) ----------


def _batched_vector(vector, name, records, name_records="records"):
    """A (p,) or (..., p) vector whose last axis and batch axes match ``records`` (..., k, p)."""
    arr = check_real_array(vector, name, ndim=(1, 2))
    if arr.shape[-1] != records.shape[-1]:
        raise ValueError(f"{name} must have {records.shape[-1]} entries on its last axis (the number of columns "
                         f"of {name_records}), got shape {arr.shape}")
    if arr.ndim == 2 and (records.ndim != 3 or arr.shape[0] != records.shape[0]):
        raise ValueError(f"{name} of shape {arr.shape} has a batch axis; {name_records} must then have shape "
                         f"({arr.shape[0]}, k, {arr.shape[1]}), got {records.shape}")
    return arr


def _scores(values, name):
    return check_real_array(values, name, ndim=1)


# --- 1. tracing statistics -------------------------------------------------------------------

def score_statistic(records, estimate, center):
    """The tracing score ⟨x − c, M − c⟩ of every record (chapter 4, Eq. (eq-score-statistic)).

    With ``center`` the true mean μ this is the *score attack* of the chapter
    (the score of N(μ, σ²I) in μ, times σ², paired with the release). With
    ``center`` the mean of a public reference sample it is the attack of Dwork,
    Smith, Steinke, Ullman & Vadhan (2015), which needs no knowledge of μ.
    A member pulls M towards itself, so its score has mean ≈ σ²d/n; a
    non-member's score has mean 0.

    Parameters
    ----------
    records : array_like, shape (k, d) or (T, k, d)
        The records to score (T independent trials, optional), finite.
    estimate : array_like, shape (d,) or (T, d)
        The released estimate M (one per trial).
    center : array_like, shape (d,) or (T, d)
        The centre c (true mean, or a public reference mean).

    Returns
    -------
    ndarray, shape (k,) or (T, k)

    Raises
    ------
    ValueError
        For NaN/inf, empty arrays or mismatched shapes.

    Notes
    -----
    Post-processing of the release M: uses no private data beyond the record
    being scored. Cost O(T·k·d).
    """
    records = check_records(records)
    estimate = _batched_vector(estimate, "estimate", records)
    center = _batched_vector(center, "center", records)
    return _score(records, estimate, center)


def _score(records, estimate, center):
    center = np.asarray(center)
    shift = estimate - center
    return np.einsum("...kd,...d->...k", records - center[..., None, :], shift)


def _regression_inputs(x, y, third, estimate, third_name):
    x = check_records(x, "x")
    y = check_responses(y, "y", x)
    third_arr = (check_responses(third, third_name, x) if third_name == "y_fresh"
                 else _batched_vector(third, third_name, x, "x"))
    estimate = _batched_vector(estimate, "estimate", x, "x")
    return x, y, third_arr, estimate


def classical_regression_statistic(x, y, y_fresh, estimate):
    """Lemma 19's statistic (as printed by Cai, Wang & Zhang): ⟨x·y − x·ỹ, M⟩ (chapter 4, Eq. (eq-cwz-classical)).

    ỹ is a fresh response drawn with the same covariates x, so
    x(y − ỹ) = x(ξ − ξ̃) centres the score without knowing β. The paper's
    adversary says IN when it exceeds :func:`printed_threshold_classical`.

    Parameters
    ----------
    x : array_like, shape (k, d) or (T, k, d)
        Covariates of the records to score.
    y, y_fresh : array_like, shape (k,) or (T, k)
        Their responses, and fresh responses with the same covariates.
    estimate : array_like, shape (d,) or (T, d)
        The released coefficient vector M.

    Returns
    -------
    ndarray, shape (k,) or (T, k). Post-processing; cost O(T·k·d).

    Raises
    ------
    ValueError
        For NaN/inf, empty or mismatched arrays.
    """
    x, y, y_fresh, estimate = _regression_inputs(x, y, y_fresh, estimate, "y_fresh")
    return np.einsum("...kd,...d->...k", x, estimate) * (y - y_fresh)


def sparse_regression_statistic(x, y, y_fresh, estimate, s, weight="none"):
    """Lemma 18's statistic: Σ_{j ∈ S(M)} w_j x_j (y − ỹ) over the s largest |M_j| (chapter 4, Eq. (eq-cwz-sparse)).

    ``weight="none"`` is the statistic as printed by Cai, Wang & Zhang
    (w_j = 1). It uses only the support of M, so on a sign-symmetric β the
    positive and negative coordinates cancel and it has no power; the chapter
    shows this. ``weight="sign"`` (our reconstruction) uses w_j = sign(M_j),
    which restores the correlation with the members' noise.

    Parameters
    ----------
    x, y, y_fresh, estimate
        As in :func:`classical_regression_statistic`.
    s : int
        Support size, 1 <= s <= d ("top s" read as largest in absolute value).
    weight : {"none", "sign"}

    Returns
    -------
    ndarray, shape (k,) or (T, k). Post-processing; cost O(T·(d log d + k·s)).

    Raises
    ------
    ValueError
        For bad arrays, s outside [1, d] or an unknown weight.
    """
    x, y, y_fresh, estimate = _regression_inputs(x, y, y_fresh, estimate, "y_fresh")
    s = check_int(s, "s", minimum=1, maximum=x.shape[-1])
    check_choice(weight, "weight", ("none", "sign"))
    top = np.argsort(-np.abs(estimate), axis=-1)[..., :s]
    mask = np.zeros(estimate.shape)
    np.put_along_axis(mask, top, 1.0, axis=-1)
    if weight == "sign":
        mask = mask * np.sign(estimate)
    return np.einsum("...kd,...d->...k", x, mask) * (y - y_fresh)


def regression_score_statistic(x, y, beta, estimate):
    """The regression score attack ⟨x(y − x·β), M − β⟩ (chapter 4, Eq. (eq-regression-score)).

    x(y − xᵀβ)/σ² is the score of the linear model y = xᵀβ + N(0, σ²) in β:
    the statistic is the mean attack's score statistic with the record's
    score in place of x − μ. It knows β (the adversary knows the hard
    distribution), and was the most powerful statistic in our experiments.

    Parameters
    ----------
    x : array_like, shape (k, d) or (T, k, d)
    y : array_like, shape (k,) or (T, k)
    beta : array_like, shape (d,) or (T, d)
        The true coefficients.
    estimate : array_like, shape (d,) or (T, d)

    Returns
    -------
    ndarray, shape (k,) or (T, k). Post-processing; cost O(T·k·d).

    Raises
    ------
    ValueError
        For NaN/inf, empty or mismatched arrays.
    """
    x, y, beta, estimate = _regression_inputs(x, y, beta, estimate, "beta")
    residual = y - np.einsum("...kd,...d->...k", x, beta)
    return np.einsum("...kd,...d->...k", x, estimate - beta) * residual


def printed_threshold_classical(d, delta, sigma=1.0):
    """The threshold σ²√(8d log(1/δ)) of Lemma 19 (and of the mean adversary), as printed.

    A non-member's score ⟨x − μ, M − μ⟩ given M is N(0, σ²‖M − μ‖²); if
    ‖M − μ‖ <= σ√d it exceeds this threshold with probability at most δ⁴
    (chapter 4, soundness of the score attack). Usually far above the
    calibrated (1 − δ)-quantile, so the printed test is conservative.

    Parameters
    ----------
    d : int, >= 1
    delta : float, 0 < δ < 1
    sigma : float, > 0

    Raises
    ------
    ValueError, TypeError
        For d, δ or σ out of range.
    """
    d = check_int(d, "d", minimum=1)
    delta = check_delta(delta, allow_zero=False)
    sigma = check_positive(sigma, "sigma")
    return sigma ** 2 * math.sqrt(8 * d * math.log(1 / delta))


def printed_threshold_sparse(s, delta, sigma=1.0):
    """The threshold σ√(2s log(1/δ)) of Lemma 18, as printed (chapter 4, Eq. (eq-cwz-sparse)).

    Its soundness rests on the paper's hard instance, which is not available;
    the chapter calibrates thresholds empirically instead (:func:`calibrate_threshold`).

    Raises
    ------
    ValueError, TypeError
        For s, δ or σ out of range.
    """
    s = check_int(s, "s", minimum=1)
    delta = check_delta(delta, allow_zero=False)
    sigma = check_positive(sigma, "sigma")
    return sigma * math.sqrt(2 * s * math.log(1 / delta))


# --- 2. the membership experiment and its summaries ----------------------------------------------

def membership_scores(sample, estimator, statistic, n, n_trials, rng=None, pooled=True, chunk=None,
                      progress=None):
    """Scores of members and non-members of a released estimate (chapter 4, Algorithm 4.2).

    Per trial: draw 2n records; the first n are the members D; release
    M = ``estimator(D, rng=...)``; score the n members and the n fresh
    non-members against M. Pooling all n members (the default) is 10–100×
    cheaper than one pair per trial; scores within a trial are then weakly
    dependent, which is fine for ROC and AUC estimates. ``pooled=False``
    keeps one member and one non-member per trial, so that the pairs are
    independent across trials (for tests with exact binomial margins).

    Trials run in vectorised chunks: ``sample``, ``estimator`` and
    ``statistic`` are called once per chunk with a leading batch axis.

    Parameters
    ----------
    sample : callable
        ``sample(n_trials, n_records, rng=rng)`` → array (n_trials, n_records, p)
        of i.i.d. records.
    estimator : callable
        ``estimator(members, rng=rng)`` maps (T, n, p) to the releases (T, q).
    statistic : callable
        ``statistic(records, releases)`` maps (T, k, p) and (T, q) to (T, k).
    n : int, >= 1
        Number of members per trial.
    n_trials : int, >= 1
    rng : None, int or numpy.random.Generator
    pooled : bool
    chunk : int or None
        Trials per vectorised call (default: about 4·10⁶ record entries per call).
    progress : callable or None
        ``progress(iterable, desc)`` wrapping the chunks, e.g.
        ``dpteach._progress.progress`` (the runners pass it when a
        run is long); None shows nothing.

    Returns
    -------
    (in_scores, out_scores) : ndarrays of shape (n_trials·n,) (or (n_trials,)
        if not pooled), trial-major.

    Raises
    ------
    ValueError, TypeError
        For bad n, n_trials, chunk or rng, a non-callable argument, or callables
        that return arrays of the wrong shape or with NaN/inf.

    Notes
    -----
    The estimator touches only the members; each statistic call touches one
    record and the release. Cost: n_trials × (sampling 2n·p + the estimator +
    2n statistics).
    """
    for name, fn in (("sample", sample), ("estimator", estimator), ("statistic", statistic)):
        if not callable(fn):
            raise TypeError(f"{name} must be callable, got {fn!r} of type {type(fn).__name__}")
    n = check_int(n, "n", minimum=1)
    n_trials = check_int(n_trials, "n_trials", minimum=1)
    check_work(("n_trials", n_trials), ("n", n), per_item=2)  # 2n records drawn per trial (in and out)
    if not isinstance(pooled, (bool, np.bool_)):
        raise TypeError(f"pooled must be True or False, got {pooled!r}")
    rng = as_rng(rng)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or callable, got {progress!r}")
    if chunk is None:  # learn the record width from one trial, to size the chunks
        width = _sample_chunk(sample, 1, n, rng).shape[-1]
        chunk = max(1, int(4e6 // (2 * n * width)))
    chunk = check_int(chunk, "chunk", minimum=1)
    sizes = [min(chunk, n_trials - start) for start in range(0, n_trials, chunk)]
    iterator = progress(sizes, "membership trials") if progress is not None else sizes
    ins, outs = [], []
    for size in iterator:
        records = _sample_chunk(sample, size, n, rng)
        releases = np.asarray(estimator(records[:, :n], rng=rng), dtype=float)
        if releases.ndim != 2 or releases.shape[0] != size:
            raise ValueError(f"estimator must return one release per trial, shape ({size}, q), "
                             f"got {releases.shape}")
        scored = records if pooled else records[:, [0, n]]
        values = np.asarray(statistic(scored, releases), dtype=float)
        k = 2 * n if pooled else 2
        if values.shape != (size, k):
            raise ValueError(f"statistic must return one score per record, shape ({size}, {k}), got {values.shape}")
        if not np.all(np.isfinite(values)):
            raise ValueError("statistic returned NaN or inf scores")
        half = k // 2
        ins.append(values[:, :half].ravel())
        outs.append(values[:, half:].ravel())
    return np.concatenate(ins), np.concatenate(outs)


def _sample_chunk(sample, size, n, rng):
    records = np.asarray(sample(size, 2 * n, rng=rng), dtype=float)
    if records.ndim != 3 or records.shape[:2] != (size, 2 * n):
        raise ValueError(f"sample(n_trials, n_records, rng=rng) must return shape ({size}, {2 * n}, p), "
                         f"got {records.shape}")
    return records


def roc_curve(in_scores, out_scores):
    """Empirical ROC curve of the tests "IN iff score > t" over all thresholds t (chapter 4).

    Parameters
    ----------
    in_scores, out_scores : array_like, 1-D, non-empty, finite
        Scores of members (positives) and non-members (negatives).

    Returns
    -------
    (fpr, tpr) : ndarrays
        Increasing, from (0, 0) to (1, 1), one point per distinct score (tied
        scores move both rates at once). Cost O(m log m), m = total scores.

    Raises
    ------
    ValueError
        For empty arrays or NaN/inf.
    """
    in_scores = _scores(in_scores, "in_scores")
    out_scores = _scores(out_scores, "out_scores")
    values = np.concatenate([in_scores, out_scores])
    is_in = np.concatenate([np.ones(in_scores.size), np.zeros(out_scores.size)])
    order = np.argsort(-values, kind="stable")
    values, is_in = values[order], is_in[order]
    # Keep the last index of each run of equal scores: thresholds sit between distinct values.
    ends = np.flatnonzero(np.diff(values) != 0)
    ends = np.append(ends, values.size - 1)
    true_positives = np.cumsum(is_in)[ends]
    false_positives = (ends + 1) - true_positives
    tpr = np.concatenate([[0.0], true_positives / in_scores.size])
    fpr = np.concatenate([[0.0], false_positives / out_scores.size])
    return fpr, tpr


def auc(in_scores, out_scores):
    """Exact area under the ROC curve: P(member > non-member) + ½ P(tie) (Mann–Whitney; chapter 4).

    Computed from average ranks of the pooled scores, so ties count ½ exactly.
    0.5 means the attack is no better than guessing. Cost O(m log m).

    Raises
    ------
    ValueError
        For empty arrays or NaN/inf.
    """
    in_scores = _scores(in_scores, "in_scores")
    out_scores = _scores(out_scores, "out_scores")
    ranks = stats.rankdata(np.concatenate([in_scores, out_scores]))
    k, m = in_scores.size, out_scores.size
    return float((ranks[:k].sum() - k * (k + 1) / 2) / (k * m))


def calibrate_threshold(out_scores, fpr):
    """The empirical (1 − fpr)-quantile of non-member scores: IN iff score > t has empirical FPR ⌊fpr·m⌋/m.

    Returns the order statistic t = s₍ₘ₋ₖ₎ (1-indexed, ascending) with
    k = ⌊fpr·m⌋, so exactly k of the m non-member scores lie strictly above
    it (at most k with ties). This is soundness in practice (chapter 4, T8):
    a test whose false-positive rate is measured, not bounded by a printed
    constant. Use m >= 10/fpr for a stable estimate.

    Parameters
    ----------
    out_scores : array_like, 1-D, finite
        Fresh non-member scores (not the ones the test will be evaluated on).
    fpr : float
        Target false-positive rate, 0 < fpr < 1.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For fpr outside (0, 1), NaN/inf or empty scores, or fewer than 1/fpr
        scores (then no score can be a false positive). Cost O(m log m).
    """
    out_scores = _scores(out_scores, "out_scores")
    fpr = check_probability(fpr, "fpr")
    m = out_scores.size
    allowed = math.floor(fpr * m + 1e-9)  # tolerance: fpr·m = 10 must not round down to 9
    if allowed < 1:
        raise ValueError(f"out_scores must hold at least 1/fpr = {math.ceil(1 / fpr)} scores to calibrate "
                         f"fpr={fpr!r}, got {m}")
    return float(np.sort(out_scores)[m - allowed - 1])


# --- 3. the envelope of (ε, δ)-DP tests --------------------------------------------------------

def dp_roc_envelope(fpr, epsilon, delta):
    """The largest TPR of any membership test against an (ε, δ)-DP release (chapter 4, Theorem 4.3).

    min{e^ε·FPR + δ, 1 − e^{−ε}(1 − δ − FPR)}, capped to [0, 1]
    (Wasserman & Zhou 2010; Kairouz, Oh & Viswanath 2015). The first term is
    the DP inequality for the event "IN", the second the same inequality for
    "OUT" with the roles of the neighbours swapped.

    Parameters
    ----------
    fpr : float or array_like
        False-positive rates in [0, 1].
    epsilon : float, 0 < ε < inf
    delta : float, 0 <= δ < 1

    Returns
    -------
    float or ndarray (same shape as ``fpr``). Equal to δ at FPR = 0.

    Raises
    ------
    ValueError, TypeError
        For ε, δ out of range or an FPR outside [0, 1] or not finite.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    rates = check_real_array(fpr, "fpr", nonempty=True)
    if np.any((rates < 0) | (rates > 1)):
        bad = rates[(rates < 0) | (rates > 1)].ravel()[0].item()
        raise ValueError(f"fpr must lie in [0, 1], found {bad!r}")
    with np.errstate(over="ignore", invalid="ignore"):  # e^ε = inf at ε = 1e300, and inf·0 = NaN at FPR 0
        first = np.where(rates == 0, delta, np.exp(epsilon) * rates + delta)  # at FPR 0 the envelope is δ
    second = 1 - np.exp(-epsilon) * (1 - delta - rates)
    value = np.clip(np.minimum(first, second), 0.0, 1.0)
    return float(value) if value.ndim == 0 else value


# --- 4. fingerprinting lemmas by Monte Carlo ----------------------------------------------------

def _call_f(f, x, name="f"):
    values = np.asarray(f(x), dtype=float)
    if values.shape != x.shape[:1]:
        raise ValueError(f"{name} must return one value per row of its (n_draws, n) input, shape "
                         f"({x.shape[0]},), got {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} returned NaN or inf")
    return values


def fingerprinting_lemma_mc(f, n, n_draws, rng=None):
    """Monte-Carlo check of the Bernoulli fingerprinting lemma (chapter 4, Lemma 4.7).

    Draws p ~ U[−1, 1] and x ∈ {±1}ⁿ i.i.d. with mean p, and estimates the
    correlation term E[f(x)·Σᵢ(xᵢ − p)], the accuracy term 2E|f(x) − p| and
    their sum, which the lemma bounds below by 2/3. For f = mean the
    correlation term is exactly E[1 − p²] = 2/3; for f ≡ 0 the sum is
    2E|p| = 1.

    Parameters
    ----------
    f : callable
        ``f(x)`` maps an (n_draws, n) array of ±1 to n_draws values in [−1, 1]
        (row-wise; f may be randomised through its own generator).
    n : int, >= 1
    n_draws : int, >= 2
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``correlation``, ``accuracy``, ``total`` and their Monte-Carlo standard
        errors ``correlation_se``, ``accuracy_se``, ``total_se``.

    Raises
    ------
    ValueError, TypeError
        For bad n, n_draws or rng, a non-callable f, or f values outside [−1, 1].
        Cost O(n_draws·n) plus the cost of f.
    """
    if not callable(f):
        raise TypeError(f"f must be callable, got {f!r} of type {type(f).__name__}")
    n = check_int(n, "n", minimum=1)
    n_draws = check_int(n_draws, "n_draws", minimum=2)
    check_memory(("n_draws", n_draws), ("n", n))
    rng = as_rng(rng)
    p = rng.uniform(-1.0, 1.0, size=n_draws)
    x = np.where(rng.random((n_draws, n)) < (1 + p[:, None]) / 2, 1.0, -1.0)
    values = _call_f(f, x)
    if np.any(np.abs(values) > 1 + 1e-12):
        raise ValueError(f"f must take values in [-1, 1] (the lemma's hypothesis), found {values[np.abs(values) > 1][0]!r}")
    correlation = values * (x - p[:, None]).sum(axis=1)
    accuracy = 2 * np.abs(values - p)
    total = correlation + accuracy
    root = math.sqrt(n_draws)
    return {"correlation": float(correlation.mean()), "accuracy": float(accuracy.mean()),
            "total": float(total.mean()), "correlation_se": float(correlation.std(ddof=1) / root),
            "accuracy_se": float(accuracy.std(ddof=1) / root), "total_se": float(total.std(ddof=1) / root)}


def gaussian_fingerprinting_mc(f, n, mu, sigma, n_draws, rng=None, step=None):
    """Monte-Carlo check of the Gaussian fingerprinting lemma (Stein's identity; chapter 4, Lemma 4.8).

    For x₁, …, xₙ i.i.d. N(μ, σ²) and g(μ) = E_μ f(x), Stein's identity says
    E_μ[f(x)·Σᵢ(xᵢ − μ)] = σ²·g′(μ). Estimates the left side, and g′(μ) by a
    central difference (g(μ + h) − g(μ − h))/(2h) with common random numbers
    (the same standard normals shifted by ±h).

    Parameters
    ----------
    f : callable
        ``f(x)`` maps (n_draws, n) to n_draws finite values.
    n : int, >= 1
    mu : float, finite
    sigma : float, > 0
    n_draws : int, >= 2
    rng : None, int or numpy.random.Generator
    step : float or None
        h > 0 (default σ/√n · 0.05).

    Returns
    -------
    dict with ``correlation`` (left side), ``stein`` (σ²·g′(μ)) and the
    standard error ``correlation_se`` of the left side.

    Raises
    ------
    ValueError, TypeError
        For bad n, μ, σ, n_draws, step or rng, or a non-callable f.
        Cost O(n_draws·n) plus three calls of f.
    """
    if not callable(f):
        raise TypeError(f"f must be callable, got {f!r} of type {type(f).__name__}")
    n = check_int(n, "n", minimum=1)
    mu = float(check_real_array(mu, "mu", ndim=0))
    sigma = check_positive(sigma, "sigma")
    n_draws = check_int(n_draws, "n_draws", minimum=2)
    check_memory(("n_draws", n_draws), ("n", n))
    step = 0.05 * sigma / math.sqrt(n) if step is None else check_positive(step, "step")
    rng = as_rng(rng)
    noise = rng.standard_normal((n_draws, n)) * sigma
    values = _call_f(f, mu + noise)
    correlation = values * noise.sum(axis=1)
    derivative = (_call_f(f, mu + step + noise) - _call_f(f, mu - step + noise)).mean() / (2 * step)
    try:
        stein = float(sigma ** 2 * derivative)
    except OverflowError:  # σ² beyond the floats (σ ≈ 1e300); σ·(σ·f') is the same product, finite when it is
        stein = float(sigma * (sigma * derivative))
    return {"correlation": float(correlation.mean()), "stein": stein,
            "correlation_se": float(correlation.std(ddof=1) / math.sqrt(n_draws))}
