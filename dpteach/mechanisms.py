"""The basic mechanisms of chapter 1 ("Differential privacy and the exponential mechanism").

Read top to bottom, this module follows the chapter: the Laplace mechanism
(Theorem 1.7), the Gaussian mechanism with the classic calibration
(Theorem 1.9) and the analytic one of Balle & Wang (2018; Theorem 1.10),
randomized response, the exponential mechanism (Algorithm 1.20,
Theorem 1.21) and report-noisy-max (Theorem 1.24). The numbers are those
of chapter 1's boxes.

Neighbouring datasets differ in one record (replace-one); ``sensitivity``
is always the largest change of the released quantity between neighbours,
measured in the norm the mechanism needs (L1 for Laplace, L2 for Gaussian,
the largest change of any single score for the selection mechanisms).

dpteach is a teaching library: its samplers use floating-point numpy noise,
which is not safe against the attacks on low-order bits described by
Mironov (2012). Do not use it to protect real data.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from scipy import optimize, special

from ._constraints import Check, Delta, Epsilon, Options, OrNone, POSITIVE, POSITIVE_INT, validate_params
from ._array_constraints import Array
from ._validation import check_bits, check_memory, check_positive
from .privacy import privacy_claim

__all__ = [
    "laplace_mechanism",
    "gaussian_sigma",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_mechanism",
    "randomized_response",
    "exponential_mechanism_probabilities",
    "exponential_mechanism",
    "exponential_mechanism_on_errors",
    "report_noisy_max",
]


@privacy_claim(theorem="thm-laplace", epsilon="epsilon")
@validate_params({"epsilon": Epsilon(), "sensitivity": POSITIVE, "value": Array(skip_nested=False),
                  "rng": "random_state"})
def laplace_mechanism(value, sensitivity, epsilon, rng=None):
    """Release ``value + Lap(sensitivity / epsilon)`` (chapter 1, Theorem 1.7).

    Parameters
    ----------
    value : float or array_like
        The exact answer f(D); every entry gets independent noise.
    sensitivity : float
        L1 sensitivity Δ₁ of f, the largest ``sum |f(D) - f(D')|`` over
        neighbours; 0 < Δ₁ < inf.
    epsilon : float
        Privacy parameter, 0 < ε < inf.
    rng : None, int or numpy.random.Generator
        Source of randomness (anything ``numpy.random.default_rng`` accepts).

    Returns
    -------
    float or ndarray
        The noisy answer, same shape as ``value``. The release is ε-DP because
        the density ratio of Lap(b) at points Δ₁ apart is at most e^{Δ₁/b} = e^ε.

    Raises
    ------
    ValueError
        If ε or Δ₁ is not finite and positive, or ``value`` has NaN/inf.

    Examples
    --------
    >>> round(laplace_mechanism(value=1.0, sensitivity=1.0, epsilon=1.0, rng=0), 3)
    1.32
    """
    return laplace_mechanism_prechecked(value, sensitivity, epsilon, rng)


def laplace_mechanism_prechecked(value, sensitivity, epsilon, rng):
    """:func:`laplace_mechanism`'s body on checked arguments (``value`` a finite float array, ``rng`` a Generator).

    The local simulation's loop calls it (one release per query), on φ values it checked itself.
    """
    exact = value
    scale = sensitivity / epsilon
    noisy = exact + rng.laplace(0.0, scale, size=exact.shape)
    return float(noisy) if noisy.ndim == 0 else noisy


def broken_laplace_half_noise(value, sensitivity, epsilon, rng=None):
    """DELIBERATELY BROKEN (for audit demonstrations and tests): Laplace noise of scale Δ/(2ε).

    Half the noise of :func:`laplace_mechanism`, so it is only 2ε-DP: the
    density ratio of Lap(Δ/(2ε)) at points Δ apart is e^{2ε}. Chapter 1's
    audit must catch it. Never use it to release data; not in ``__all__``.
    """
    return laplace_mechanism(value, sensitivity / 2, epsilon, rng)


#: A bound on the relative rounding error of each term of δ(ε) = Φ(a − b) − e^ε Φ(−a − b) as computed below (scipy's
#: ``ndtr``/``log_ndtr`` are accurate to a few ulps, ~1e-15; this is 1000 times that). The difference of the two
#: terms cancels (at small ε and δ it is far smaller than either), so its relative error can be large: the
#: theory review (ch01-05, N6) found calibrated σ whose exact δ (60-digit mpmath) exceeded the target by 1e-11
#: relative, and at ε = 1e-4, δ = 1e-12 by 8e-10. The calibrations therefore compare :func:`_delta_upper`, the
#: computed δ plus this error bound on both terms, with the target: then the *exact* δ(σ) <= δ, not only the computed
#: one. It costs nothing visible (σ grows by ~1e-10 relative in chapter 1's settings).
TERM_RELATIVE_ERROR = 1e-12


@validate_params({"sigma": POSITIVE, "sensitivity": POSITIVE, "epsilon": Epsilon()})
def gaussian_delta(sigma, sensitivity, epsilon):
    """The exact δ(ε) of the Gaussian mechanism with noise N(0, σ²) (Balle & Wang 2018, Thm 8).

    δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ), Theorem 1.10 of chapter 1:
    the smallest δ for which adding N(0, σ²) to a query of L2 sensitivity Δ
    is (ε, δ)-DP. Computed in log space so that e^ε Φ(·) does not overflow.
    (:func:`gaussian_sigma`'s root finder evaluates the formula itself ~40 times per σ.)

    Examples
    --------
    >>> round(gaussian_delta(sigma=1.0, sensitivity=1.0, epsilon=1.0), 4)
    0.1269
    """
    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    first = special.ndtr(a - b)
    log_second = epsilon + special.log_ndtr(-a - b)
    if log_second >= 0:  # second >= 1 >= first: δ = 0 exactly (e^log_second would overflow at ε ≈ 1e300)
        return 0.0
    return max(first - math.exp(log_second), 0.0)


def _delta_upper(sigma, sensitivity, epsilon):
    """An upper bound on the exact δ(ε) of :func:`gaussian_delta`: its computed value plus the rounding error of its two
    terms (TERM_RELATIVE_ERROR each, and for e^ε Φ(−a − b) the error of exp on a log of size |ε| + |ln Φ|)."""
    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    first = special.ndtr(a - b)
    log_phi = special.log_ndtr(-a - b)
    log_second = epsilon + log_phi
    if log_second >= 0:  # e^ε Φ(−a − b) >= 1 >= Φ(a − b) up to rounding: δ is 0 up to the terms' error
        return TERM_RELATIVE_ERROR * (1 + first)
    second = math.exp(log_second)
    error = TERM_RELATIVE_ERROR * (first + second)
    if second > 0:  # (at ε ≈ 1e300, ln Φ = −inf and second = 0: no exp error to add, and inf·0 would be NaN)
        error += 4 * sys.float_info.epsilon * (epsilon + abs(log_phi)) * second
    return max(first - second, 0.0) + error


@validate_params({"sigma": POSITIVE, "sensitivity": POSITIVE, "delta": Delta(allow_zero=False)})
def gaussian_epsilon(sigma, sensitivity, delta):
    """The ε at which the Gaussian mechanism N(0, σ²) on a query of L2 sensitivity Δ is (ε, δ)-DP: Theorem 1.10 inverted.

    The smallest ε (at least 10⁻¹²) whose computed ``gaussian_delta(σ, Δ, ε)`` plus its rounding error bound
    (TERM_RELATIVE_ERROR) is <= δ, rounded up, so the exact δ(ε) <= δ (chapter 1, Theorem 1.10; Balle & Wang 2018). The one home of this
    inverse: DP-SGD's "exact" accountant and the Gaussian path of ``composition.pld_epsilon`` call it.

    Parameters
    ----------
    sigma : float, 0 < σ < inf
    sensitivity : float, 0 < Δ < inf
    delta : float, 0 < δ < 1

    Returns
    -------
    float
        ε > 0, or ``inf`` when σ is so small against Δ that no finite ε can be certified in floating point
        (never an under-report). Cost: one root finding, about 40 evaluations of the formula.

    Raises
    ------
    ValueError, TypeError
        σ, Δ or δ outside the ranges above.

    Examples
    --------
    >>> round(gaussian_epsilon(sigma=3.7306316, sensitivity=1.0, delta=1e-5), 4)
    1.0
    """
    def excess(epsilon):
        return _delta_upper(sigma, sensitivity, epsilon) - delta

    # gaussian_delta decreases in ε. For σ ≪ Δ the root lies near ε ≈ Δ²/(2σ²), where e^ε·Φ(·) can overflow in
    # floating point: no ε is then certified (inf), which never under-reports.
    try:
        if excess(1e-12) <= 0:
            return 1e-12
        high = 1.0
        while excess(high) > 0:
            high *= 2.0
            if high > 1e300:
                return math.inf  # so little noise that no finite ε can be certified
        epsilon = optimize.brentq(excess, 1e-12, high, xtol=1e-13, rtol=1e-12) * (1 + 1e-9)
        while excess(epsilon) > 0:  # round up until the computed δ meets the bound (an accountant never under-reports)
            epsilon = math.nextafter(epsilon, math.inf) * (1 + 1e-12)
    except OverflowError:
        return math.inf
    return epsilon


@validate_params({"sensitivity": POSITIVE, "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "method": Options(("analytic", "classic"))})
def gaussian_sigma(sensitivity, epsilon, delta, method="analytic"):
    """Noise standard deviation σ for the (ε, δ)-DP Gaussian mechanism.

    ``method="classic"`` (chapter 1, Theorem 1.9; Dwork & Roth Thm A.1):
    σ = Δ √(2 ln(1.25/δ)) / ε, a valid bound only for ε < 1.

    ``method="analytic"`` (chapter 1, Theorem 1.10; Balle & Wang 2018): the smallest σ with
    ``gaussian_delta(σ, Δ, ε) <= δ(1 − 10⁻⁹)``, found by root finding in log σ (the margin
    ``TERM_RELATIVE_ERROR`` covers the floating-point rounding of δ(σ), so the exact δ(σ) <= δ). Valid for
    every ε > 0 and never larger than the classic σ where that applies.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity Δ₂, 0 < Δ₂ < inf.
    epsilon : float
        0 < ε < inf ("classic": 0 < ε < 1).
    delta : float
        0 < δ < 1 (δ = 0 is impossible with Gaussian noise).
    method : {"analytic", "classic"}

    Raises
    ------
    ValueError
        For ε, δ or Δ out of range, for ε >= 1 with "classic", an unknown method, or a Δ/ε so large
        that σ would exceed the largest float (the message names sensitivity).

    Examples
    --------
    >>> round(gaussian_sigma(sensitivity=1.0, epsilon=1.0, delta=1e-5), 4)
    3.7306
    """
    if method == "classic":
        if epsilon >= 1:
            raise ValueError(f"epsilon must satisfy 0 < epsilon < 1 for method='classic' "
                             f"(the classic bound is not valid beyond), got {epsilon!r}; "
                             f"use method='analytic'")
        sigma = sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon
        if not sigma < math.inf:
            raise ValueError(f"sensitivity = {sensitivity!r} at epsilon = {epsilon!r} and delta = {delta!r} needs a "
                             f"noise σ beyond the largest float (valid range: sensitivity·√(2 ln(1.25/δ))/ε below "
                             f"{sys.float_info.max:.4g})")
        return sigma

    # Δ and ε are checked above, so the root finder evaluates the bare formula plus its error bound, _delta_upper
    # (~40 calls per σ, each a float in, a float out, without the decorator). A σ that underflowed in exp is refused
    # by name; one that overflowed, below.
    def delta_of(sigma):
        if sigma == math.inf:
            raise OverflowError("σ overflowed")
        if not sigma > 0:
            check_positive(sigma, "sigma")
        return _delta_upper(sigma, sensitivity, epsilon)

    # δ(σ) decreases from 1 (σ → 0) to 0 (σ → ∞); bracket the root in log σ.
    # The computed δ(σ) plus its rounding error bound must meet δ, so that the exact δ(σ) <= δ too (N6).
    target = delta

    def excess(log_sigma):
        return delta_of(math.exp(log_sigma)) - target

    try:
        low, high = math.log(sensitivity) - 1.0, math.log(sensitivity) + 1.0
        while excess(low) < 0:
            low -= 2.0
        while excess(high) > 0:
            high += 2.0
        log_sigma = optimize.brentq(excess, low, high, xtol=1e-14, rtol=1e-14, maxiter=500)
        # Round up to the bracket end whose computed δ(σ) meets the target.
        sigma = math.exp(log_sigma)
        while delta_of(sigma) > target:
            sigma = math.nextafter(sigma, math.inf) * (1 + 1e-15)
    except OverflowError:  # σ beyond the largest float
        raise ValueError(f"sensitivity = {sensitivity!r} at epsilon = {epsilon!r} and delta = {delta!r} needs a "
                         f"noise σ beyond the largest float (valid range: sensitivity small enough that σ, about "
                         f"sensitivity·√(2 ln(1.25/δ))/ε, stays below {sys.float_info.max:.4g})") from None
    return sigma


@privacy_claim(theorem="thm-gaussian-analytic", epsilon="epsilon", delta="delta")
@validate_params({"sensitivity": POSITIVE, "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "method": Options(("analytic", "classic")), "value": Array(skip_nested=False), "rng": "random_state"})
def gaussian_mechanism(value, sensitivity, epsilon, delta, rng=None, method="analytic"):
    """Release ``value + N(0, σ² I)`` with σ = ``gaussian_sigma(...)`` ((ε, δ)-DP, Theorems 1.9 / 1.10).

    Parameters are as in :func:`gaussian_sigma`; ``value`` is a scalar or array
    whose L2 sensitivity is ``sensitivity``. Returns the noisy value (same shape).
    (The claim names Theorem 1.10, the default ``method="analytic"``; "classic" is Theorem 1.9.)

    Examples
    --------
    >>> value = np.zeros(2)
    >>> gaussian_mechanism(value=value, sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0).round(3)
    array([ 0.469, -0.493])
    """
    sigma = gaussian_sigma(sensitivity, epsilon, delta, method=method)
    exact = value
    noisy = exact + rng.normal(0.0, sigma, size=exact.shape)
    return float(noisy) if noisy.ndim == 0 else noisy


def _checked_bits(bits, name):
    """``bits`` unchanged once :func:`~dpteach._validation.check_bits` accepts it (the release keeps its dtype)."""
    check_bits(bits, name)
    return bits


@privacy_claim(theorem="thm-randomized-response", epsilon="epsilon", model="local")
# Check: the release keeps the bits' own dtype (bool or int), so the bits are returned unchanged.
@validate_params({"bits": Check(_checked_bits, array_ndim=None, invalid=[([2], "[2]"), (None, "None"), ("1", "'1'")]),
                  "epsilon": Epsilon(), "rng": "random_state"})
def randomized_response(bits, epsilon, rng=None):
    """Warner's randomized response: keep each bit with probability e^ε / (1 + e^ε), else flip it.

    Each bit is released ε-DP (locally): Pr[out = b | in = b] / Pr[out = b | in = 1 − b]
    = e^ε. Returns an array of the same shape (and bool/int dtype as given).

    Raises
    ------
    ValueError
        If ε is out of range or ``bits`` is empty or contains values other than 0/1.

    Examples
    --------
    >>> bits = np.array([0, 1, 1, 0, 1])
    >>> randomized_response(bits=bits, epsilon=1.0, rng=0)
    array([0, 1, 1, 0, 0])
    """
    as_bool = np.asarray(bits).astype(bool)  # 0/1 or booleans (checked above)
    keep_probability = special.expit(epsilon)  # e^ε/(1+e^ε) without overflow
    flip = rng.random(as_bool.shape) >= keep_probability
    released = np.logical_xor(as_bool, flip)
    original_dtype = np.asarray(bits).dtype
    return released if original_dtype == bool else released.astype(original_dtype)


def _shifted(scores):
    """Shift the (declared, checked) scores so that the best is 0.

    Selection is invariant under adding a constant to every score, and the
    shift keeps the arithmetic exact: at scores near 10¹⁶ the noise (or the
    Gumbel perturbation) would otherwise be below the floating-point spacing
    and every tie would go to the first index.
    """
    return scores - scores.max()


def _logits(shifted_scores, sensitivity, epsilon):
    """ε·q/(2Δ) for scores shifted to max 0; the best candidate's logit is exactly 0 even if ε/(2Δ) = inf."""
    with np.errstate(over="ignore", invalid="ignore"):
        logits = shifted_scores * (epsilon / (2 * sensitivity))
    return np.where(shifted_scores == 0, 0.0, logits)


@validate_params({"scores": Array(ndim=1), "sensitivity": POSITIVE, "epsilon": Epsilon()})
def exponential_mechanism_probabilities(scores, sensitivity, epsilon):
    """Exact output distribution of the exponential mechanism (chapter 1, Definition 1.19).

    Pr[r] = exp(ε·q(r)/(2Δ)) / Σ_r' exp(ε·q(r')/(2Δ)). Normalised with
    log-sum-exp, so scores of 10⁶ with ε = 10 do not overflow.

    Parameters
    ----------
    scores : array_like, shape (R,)
        Score q(D, r) of each candidate; higher is better; non-empty, finite.
    sensitivity : float
        Δq: the largest change of any single score between neighbours, > 0.
    epsilon : float
        0 < ε < inf.

    Examples
    --------
    >>> scores = np.array([0.5, 1.5, -0.2, 0.9])
    >>> exponential_mechanism_probabilities(scores=scores, sensitivity=1.0, epsilon=1.0).round(3)
    array([0.219, 0.36 , 0.154, 0.267])
    """
    logits = _logits(_shifted(scores), sensitivity, epsilon)
    return np.exp(logits - special.logsumexp(logits))


@privacy_claim(theorem="thm-exponential-mechanism-privacy", epsilon="epsilon")
@validate_params({"scores": Array(ndim=1), "sensitivity": POSITIVE, "epsilon": Epsilon(), "rng": "random_state",
                  "size": OrNone(POSITIVE_INT)})
def exponential_mechanism(scores, sensitivity, epsilon, rng=None, size=None):
    """Sample a candidate index with probability ∝ exp(ε·score/(2Δ)) (chapter 1, Algorithm 1.20).

    Uses the Gumbel-max trick: argmax_r (ε q(r)/(2Δ) + G_r) with G_r i.i.d.
    standard Gumbel is an exact sample, computed without ever exponentiating a
    score. ε-DP (Theorem 1.21). Cost O(R) per sample.

    Parameters
    ----------
    scores, sensitivity, epsilon
        As in :func:`exponential_mechanism_probabilities`.
    rng : None, int or numpy.random.Generator
    size : None or int
        None returns one index (int); an int returns that many independent samples.

    Examples
    --------
    >>> scores = np.array([0.5, 1.5, -0.2, 0.9])
    >>> exponential_mechanism(scores=scores, sensitivity=1.0, epsilon=1.0, rng=0, size=3)
    array([3, 3, 3])
    """
    scores = _shifted(scores)
    n_samples = 1 if size is None else size
    check_memory(("size", n_samples), ("len(scores)", scores.size))
    logits = _logits(scores, sensitivity, epsilon)
    gumbel = rng.gumbel(size=(n_samples, scores.size))
    choices = np.argmax(logits + gumbel, axis=1)
    return int(choices[0]) if size is None else choices


@privacy_claim(theorem="thm-exponential-mechanism-privacy", epsilon="epsilon")
@validate_params({"error_counts": Array(ndim=1), "epsilon": Epsilon(allow_inf=True), "rng": "random_state",
                  "size": OrNone(POSITIVE_INT)})
def exponential_mechanism_on_errors(error_counts, epsilon, rng=None, size=None):
    """Sample a candidate with probability ∝ exp(−ε·errors/2): the exponential mechanism on error counts.

    The selection step of every learner in the book (the generic learner, Algorithm 6.10's step 5,
    Algorithm 7.7's line 7, DPSAS's line 9): the score of a candidate is minus its number of errors
    on a dataset, which changes by at most 1 when one example is replaced, so this is
    :func:`exponential_mechanism` with sensitivity 1 and is ε-DP (Theorem 1.21). ε = inf is the
    non-private reference: the candidate with the fewest errors, ties broken uniformly at random.

    Parameters
    ----------
    error_counts : array_like, shape (R,), finite
        Number of errors of each candidate.
    epsilon : float, 0 < ε <= inf
    rng : None, int or numpy.random.Generator
    size : None or int
        None returns one index (int); an int returns that many independent samples.

    Returns
    -------
    int or numpy.ndarray of int. Cost O(R) per sample.

    Examples
    --------
    >>> error_counts = np.array([3.0, 1.0, 2.0])
    >>> exponential_mechanism_on_errors(error_counts=error_counts, epsilon=1.0, rng=0, size=3)
    array([2, 0, 2])
    """
    counts = error_counts
    if epsilon == math.inf:
        # Counts are integers, so a U[0, 1/2) jitter only reorders ties: uniform tie-breaking.
        n_samples = 1 if size is None else size
        check_memory(("size", n_samples), ("len(error_counts)", counts.size))
        choices = np.argmin(counts + 0.5 * rng.random((n_samples, counts.size)), axis=1)
        return int(choices[0]) if size is None else choices
    return exponential_mechanism(-counts, 1.0, epsilon, rng=rng, size=size)


@privacy_claim(theorem="thm-report-noisy-max", epsilon="epsilon")
@validate_params({"scores": Array(ndim=1), "sensitivity": POSITIVE, "epsilon": Epsilon(), "rng": "random_state",
                  "size": OrNone(POSITIVE_INT)})
def report_noisy_max(scores, sensitivity, epsilon, rng=None, size=None):
    """Report the index of the largest ``score + Lap(2Δ/ε)`` (chapter 1, Theorem 1.24).

    ε-DP for any score vector whose entries each change by at most Δ between
    neighbours, in either direction. (The familiar scale Δ/ε is enough only
    for monotone scores such as counts, where all scores move the same way;
    the chapter's proof shows where the factor 2 comes from.)

    Parameters are as in :func:`exponential_mechanism`.

    Examples
    --------
    >>> scores = np.array([0.5, 1.5, -0.2, 0.9])
    >>> report_noisy_max(scores=scores, sensitivity=1.0, epsilon=1.0, rng=0, size=3)
    array([0, 1, 1])
    """
    scores = _shifted(scores)
    n_samples = 1 if size is None else size
    check_memory(("size", n_samples), ("len(scores)", scores.size))
    noise = rng.laplace(0.0, 2 * sensitivity / epsilon, size=(n_samples, scores.size))
    choices = np.argmax(scores + noise, axis=1)
    return int(choices[0]) if size is None else choices


def broken_report_noisy_max_half_scale(scores, sensitivity, epsilon, rng=None, size=None):
    """DELIBERATELY BROKEN (for audit demonstrations and tests): report-noisy-max with Lap(Δ/ε).

    The scale that suffices for monotone scores, used on scores that may move
    in opposite directions: it is not ε-DP there (the chapter's audit shows a
    loss near 2ε). Never use it to release data; not in ``__all__``.
    """
    return report_noisy_max(scores, sensitivity / 2, epsilon, rng, size)
