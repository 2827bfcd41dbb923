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
   (Theorem 4.3).

The fingerprinting lemmas behind the chapter's lower bound, Bernoulli (Lemma 4.7) and
Gaussian (Lemma 4.8), checked by Monte Carlo, are in :mod:`dpteach.fingerprinting_lemmas`;
the estimators the chapter attacks (the exact mean, the clipped Gaussian-mechanism mean, a
mean with noise at a target accuracy, and (noisy) least squares) in :mod:`dpteach.attack_targets`.

Shapes: an attack scores *records*, an array (..., k, p) of k records; every
function also accepts a leading batch axis of trials, so an experiment with
T trials is one vectorised call. An estimator is a function
``estimator(records, rng=...)`` that maps (..., n, p) to (..., q).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ._constraints import OPEN_UNIT, POSITIVE, POSITIVE_INT, Delta, Epsilon, Options, OrNone, validate_params
from ._array_constraints import Array, Callable, Flag
from ._validation import check_int, check_memory, check_work

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
]

# The shapes of chapter 4's arrays: k records (..., k, p) with an optional batch axis of trials, one vector
# (..., p) per trial (a release, a centre, β), one response (..., k) per record, and 1-D score arrays.
RECORDS = Array(ndim=(2, 3))
VECTOR = Array(ndim=(1, 2))
RESPONSES = Array(ndim=(1, 2))
SCORES = Array(ndim=1)


# --- shape relations between checked arrays (they need two arguments, so they run in the body) ----------


def _batched_vector(arr, name, records, name_records="records"):
    """Check that a (p,) or (..., p) vector's last axis and batch axes match ``records`` (..., k, p)."""
    if arr.shape[-1] != records.shape[-1]:
        raise ValueError(f"{name} must have {records.shape[-1]} entries on its last axis (the number of columns "
                         f"of {name_records}), got shape {arr.shape}")
    if arr.ndim == 2 and (records.ndim != 3 or arr.shape[0] != records.shape[0]):
        raise ValueError(f"{name} of shape {arr.shape} has a batch axis; {name_records} must then have shape "
                         f"({arr.shape[0]}, k, {arr.shape[1]}), got {records.shape}")
    return arr


def _responses(arr, name, x):
    """Check that a response array has the shape of ``x`` without its last axis (one response per record)."""
    if arr.shape != x.shape[:-1]:
        raise ValueError(f"{name} must have shape {x.shape[:-1]} (one response per row of x), got {arr.shape}")
    return arr


# --- 1. tracing statistics -------------------------------------------------------------------

@validate_params({"records": RECORDS, "estimate": VECTOR, "center": VECTOR})
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

    Examples
    --------
    >>> records = np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 0.0], [-1.0, 1.0, 1.0]])
    >>> score_statistic(records, estimate=np.zeros(3), center=np.ones(3))
    array([0. , 3.5, 2. ])
    """
    _batched_vector(estimate, "estimate", records)
    _batched_vector(center, "center", records)
    shift = estimate - center
    return np.einsum("...kd,...d->...k", records - center[..., None, :], shift)


def _regression_shapes(x, y, third, estimate, third_name):
    """Check the shapes of the regression statistics' arrays against the covariates ``x``."""
    _responses(y, "y", x)
    if third_name == "y_fresh":
        _responses(third, third_name, x)
    else:
        _batched_vector(third, third_name, x, "x")
    _batched_vector(estimate, "estimate", x, "x")


_REGRESSION = {"x": RECORDS, "y": RESPONSES}


@validate_params({**_REGRESSION, "y_fresh": RESPONSES, "estimate": VECTOR})
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

    Examples
    --------
    >>> x = np.array([[1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    >>> y, y_fresh = np.array([0.5, -0.2, 1.0]), np.array([0.1, 0.3, -0.4])
    >>> classical_regression_statistic(x, y, y_fresh, estimate=np.ones(2))
    array([ 0., -1.,  0.])
    """
    _regression_shapes(x, y, y_fresh, estimate, "y_fresh")
    return np.einsum("...kd,...d->...k", x, estimate) * (y - y_fresh)


@validate_params({**_REGRESSION, "y_fresh": RESPONSES, "estimate": VECTOR, "s": POSITIVE_INT,
                  "weight": Options(("none", "sign"))})
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

    Examples
    --------
    >>> x = np.array([[1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    >>> y, y_fresh = np.array([0.5, -0.2, 1.0]), np.array([0.1, 0.3, -0.4])
    >>> sparse_regression_statistic(x, y, y_fresh, estimate=np.array([2.0, -1.0]), s=1)
    array([ 0.4, -0.5, -1.4])
    """
    _regression_shapes(x, y, y_fresh, estimate, "y_fresh")
    check_int(s, "s", minimum=1, maximum=x.shape[-1])  # s <= d: a bound set by x
    top = np.argsort(-np.abs(estimate), axis=-1)[..., :s]
    mask = np.zeros(estimate.shape)
    np.put_along_axis(mask, top, 1.0, axis=-1)
    if weight == "sign":
        mask = mask * np.sign(estimate)
    return np.einsum("...kd,...d->...k", x, mask) * (y - y_fresh)


@validate_params({**_REGRESSION, "beta": VECTOR, "estimate": VECTOR})
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

    Examples
    --------
    >>> x = np.array([[1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    >>> regression_score_statistic(x, np.array([0.5, -0.2, 1.0]), beta=np.zeros(2), estimate=np.ones(2))
    array([ 0. , -0.4,  0. ])
    """
    _regression_shapes(x, y, beta, estimate, "beta")
    residual = y - np.einsum("...kd,...d->...k", x, beta)
    return np.einsum("...kd,...d->...k", x, estimate - beta) * residual


_THRESHOLD = {"delta": Delta(allow_zero=False), "sigma": POSITIVE}


@validate_params({"d": POSITIVE_INT, **_THRESHOLD})
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

    Examples
    --------
    >>> round(printed_threshold_classical(d=3, delta=1e-5), 4)
    16.6226
    """
    return sigma ** 2 * math.sqrt(8 * d * math.log(1 / delta))


@validate_params({"s": POSITIVE_INT, **_THRESHOLD})
def printed_threshold_sparse(s, delta, sigma=1.0):
    """The threshold σ√(2s log(1/δ)) of Lemma 18, as printed (chapter 4, Eq. (eq-cwz-sparse)).

    Its soundness rests on the paper's hard instance, which is not available;
    the chapter calibrates thresholds empirically instead (:func:`calibrate_threshold`).

    Raises
    ------
    ValueError, TypeError
        For s, δ or σ out of range.

    Examples
    --------
    >>> round(printed_threshold_sparse(s=2, delta=1e-5), 4)
    6.7861
    """
    return sigma * math.sqrt(2 * s * math.log(1 / delta))


# --- 2. the membership experiment and its summaries ----------------------------------------------

# It runs the caller's sample, estimator and statistic (a student's, perhaps): the routines they call check
# their own arguments (skip_nested=False), as if called from the top.
@validate_params({"sample": Callable("sample(n_trials, n_records, rng=rng) -> (n_trials, n_records, p)"),
                  "estimator": Callable("estimator(members, rng=rng) -> (n_trials, q)"),
                  "statistic": Callable("statistic(records, releases) -> (n_trials, k)"),
                  "n": POSITIVE_INT, "n_trials": POSITIVE_INT, "rng": "random_state",
                  "pooled": Flag(), "chunk": OrNone(POSITIVE_INT),
                  "progress": OrNone(Callable("progress(iterable, desc) -> iterable"))},
                 skip_nested=False)
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

    Examples
    --------
    >>> def sample(n_trials, n_records, rng=None):
    ...     return rng.normal(size=(n_trials, n_records, 2))
    >>> def estimator(members, rng=None):
    ...     return members.mean(axis=-2)
    >>> def statistic(records, releases):
    ...     return np.einsum("...kd,...d->...k", records, releases)
    >>> members, non_members = membership_scores(sample, estimator, statistic, n=4, n_trials=3, rng=0)
    >>> members.shape, non_members.shape
    ((12,), (12,))
    """
    check_work(("n_trials", n_trials), ("n", n), per_item=2)  # 2n records drawn per trial (in and out)
    check_memory(("n", n), itemsize=16)  # one trial's 2n records of >= 1 float each, before numpy is asked
    if chunk is None:  # learn the record width from one trial, to size the chunks
        width = _sample_chunk(sample, 1, n, rng).shape[-1]
        chunk = max(1, int(4e6 // (2 * n * width)))
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


@validate_params({"in_scores": SCORES, "out_scores": SCORES})
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

    Examples
    --------
    >>> fpr, tpr = roc_curve(np.array([0.5, 1.5, -0.2, 0.9]), np.array([0.0, 1.0, -0.7, 0.4]))
    >>> fpr[:4], tpr[:4]
    (array([0.  , 0.  , 0.25, 0.25]), array([0.  , 0.25, 0.25, 0.5 ]))
    """
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


@validate_params({"in_scores": SCORES, "out_scores": SCORES})
def auc(in_scores, out_scores):
    """Exact area under the ROC curve: P(member > non-member) + ½ P(tie) (Mann–Whitney; chapter 4).

    Computed from average ranks of the pooled scores, so ties count ½ exactly.
    0.5 means the attack is no better than guessing. Cost O(m log m).

    Raises
    ------
    ValueError
        For empty arrays or NaN/inf.

    Examples
    --------
    >>> auc(np.array([0.5, 1.5, -0.2, 0.9]), np.array([0.0, 1.0, -0.7, 0.4]))
    0.6875
    """
    ranks = stats.rankdata(np.concatenate([in_scores, out_scores]))
    k, m = in_scores.size, out_scores.size
    return float((ranks[:k].sum() - k * (k + 1) / 2) / (k * m))


@validate_params({"out_scores": SCORES, "fpr": OPEN_UNIT})
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

    Examples
    --------
    >>> calibrate_threshold(np.array([0.5, 1.5, -0.2, 0.9]), fpr=0.25)
    0.9
    """
    m = out_scores.size
    allowed = math.floor(fpr * m + 1e-9)  # tolerance: fpr·m = 10 must not round down to 9
    if allowed < 1:
        needed = 1 / fpr  # inf for a subnormal fpr: no array is that long (math.ceil would raise)
        needed = f"{math.ceil(needed)}" if math.isfinite(needed) else f"{needed} (more than any array holds)"
        raise ValueError(f"out_scores must hold at least 1/fpr = {needed} scores to calibrate "
                         f"fpr={fpr!r}, got {m}")
    return float(np.sort(out_scores)[m - allowed - 1])


# --- 3. the envelope of (ε, δ)-DP tests --------------------------------------------------------

@validate_params({"epsilon": Epsilon(), "delta": Delta(), "fpr": Array()})
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

    Examples
    --------
    >>> dp_roc_envelope(np.array([0.0, 0.1, 1.0]), epsilon=1.0, delta=1e-5).round(4)
    array([0.    , 0.2718, 1.    ])
    """
    rates = fpr
    if np.any((rates < 0) | (rates > 1)):
        bad = rates[(rates < 0) | (rates > 1)].ravel()[0].item()
        raise ValueError(f"fpr must lie in [0, 1], found {bad!r}")
    with np.errstate(over="ignore", invalid="ignore"):  # e^ε = inf at ε = 1e300, and inf·0 = NaN at FPR 0
        first = np.where(rates == 0, delta, np.exp(epsilon) * rates + delta)  # at FPR 0 the envelope is δ
    second = 1 - np.exp(-epsilon) * (1 - delta - rates)
    value = np.clip(np.minimum(first, second), 0.0, 1.0)
    return float(value) if value.ndim == 0 else value
