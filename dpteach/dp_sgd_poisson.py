"""Chapter 9: DP-SGD as used in practice — Poisson-subsampled batches and their accountant (issue 24).

Algorithm 9.2 (``dpteach.dp_logistic``) cuts each epoch into disjoint batches by a random permutation,
so every example is in exactly one batch per epoch and pays one full Gaussian mechanism per epoch.
Production DP-SGD (Abadi et al. 2016; Opacus, TensorFlow Privacy) instead forms every batch by
**Poisson sampling**: each example joins each step's batch independently with probability q = B/n.

Why the two need different accountants. Under Poisson sampling the differing example is in a given
batch only with probability q, and *nobody* — not the adversary, not the other steps — learns whether
it was: the step's output is a mixture (1−q)·N(s, σ²I) + q·N(s + g, σ²I). That mixture is far more
private than N(s + g, σ²I) alone (amplification by subsampling), and its privacy loss distribution is
what :func:`dpteach.composition.pld_epsilon` composes over the T = E/q steps. A shuffle gives no such
mixture: the permutation is hidden, but the example is *certainly* in one batch of the epoch, so an
adversary who watches all the epoch's releases sees its full contribution once. Claiming Poisson
amplification for shuffled batches is a privacy bug; :func:`broken_shuffled_sums_with_poisson_accounting`
does exactly that and the audit in tests/test_dp_sgd_poisson.py catches it.

Neighbours are replace-one with n public (as everywhere in dpteach): each example's clipped gradient
has norm ≤ C, so a sampled replacement moves the batch sum by up to 2C. The batch sum is divided by the
*expected* batch size B = qn, never by the realised one (which depends on the sample). Accounting needs
Google's ``dp-accounting`` (imported lazily by ``pld_epsilon``), and δ >= ``composition.PLD_MIN_DELTA`` (10⁻⁹)
for q < 1, where its FFT is accurate enough (at q = 1 the composition is exact at every δ).

The PLD takes the one-dimensional antipodal pair (1−q)N(0, σ²) + qN(∓C, σ²) (dp-accounting's REPLACE_ONE) as the
dominating pair of a step in d dimensions, an assumption in the sense of Zhu, Dong & Wang (2022, dominating pairs);
the wave-4 review checked single steps in 2-D: δ(ε) grows with the angle between the two contributions up to π.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import optimize

from ._constraints import (Delta, Integral, FiniteInterval, OrNone, POSITIVE, POSITIVE_INT, Real, fit_context,
                           validate_params, SameLength, AtMost)
from ._array_constraints import Array
from ._estimator import BinaryClasses, ClassLabels, Estimator, LinearClassifierMixin
from ._scales import NORMAL_SCALE, NORMAL_SCALE_OR_NONE
from .privacy import PrivacyReceipt, PrivacyStep, privacy_claim
from ._validation import check_int
from .composition import (PLD_GRID, PLD_MAX_EXPECTED_LOSS, PLD_MIN_NOISE, basic_composition, expected_loss,
                          pld_epsilon)
from .mechanisms import gaussian_epsilon
from .dp_logistic import MAX_EPOCHS, MAX_FIT_WORK, default_step_size, dp_sgd_sigma, sgd_batch_size
from .logistic_loss import clip_per_example, per_example_gradients

__all__ = ["poisson_sgd_epsilon", "poisson_sgd_sigma", "PoissonDPSGDLogisticRegression"]

#: Most steps one accountant call composes (the PLD's cost grows with log T; the fit's with T).
MAX_STEPS = 10 ** 6


#: The public parameters of the Poisson accountant (each example's sampling rate 0 < q <= 1, T steps, δ).
STEPS = {"sampling_rate": FiniteInterval(Real, 0, 1, closed="right"),
         "n_steps": FiniteInterval(Integral, 1, MAX_STEPS, closed="both"), "delta": Delta(allow_zero=False)}


def _in_pld_limits(sigma, clip_norm, sampling_rate, n_steps):
    """Whether pld_epsilon accepts these steps (its stated limits PLD_MIN_NOISE and PLD_MAX_EXPECTED_LOSS)."""
    ratio = sigma / clip_norm
    return (ratio >= PLD_MIN_NOISE
            and n_steps * expected_loss("poisson_gaussian", ratio, sampling_rate) <= PLD_MAX_EXPECTED_LOSS)


def _epsilon(sigma, clip_norm, sampling_rate, n_steps, delta, grid=PLD_GRID):
    # Each record contributes a clipped gradient of norm <= C: σ/Δ with Δ = C (see pld_epsilon's docstring).
    return pld_epsilon([("poisson_gaussian", sigma / clip_norm, n_steps, sampling_rate)], delta, grid)


#: The PLD grid of the σ search: ten times coarser than pld_epsilon's default and ten times faster; the σ it
#: certifies is certified (a pessimistic PLD bounds ε from above on any grid) and at most ~T·10⁻³ in ε larger.
CALIBRATION_GRID = 1e-3


def _clt_sigma(clip_norm, sampling_rate, n_steps, epsilon, delta):
    """A cheap estimate of the Poisson σ, the start of the exact search (not a certificate).

    The central limit theorem of Gaussian DP (Bu, Dong, Long & Su 2020): T Poisson-subsampled Gaussian steps of
    noise multiplier r = σ/(2C) (a replaced record moves a sampled sum by up to 2C) are about μ-GDP with
    μ = q√(T(e^{1/r²} − 1)); μ-GDP is (ε, δ)-DP at the ε of one Gaussian mechanism of sensitivity μ and noise 1.
    """
    def excess(log_sigma):
        ratio = math.exp(log_sigma) / (2 * clip_norm)
        mu = sampling_rate * math.sqrt(n_steps * math.expm1(min(1.0 / ratio ** 2, 600.0)))
        return math.log(gaussian_epsilon(1.0, mu, delta) / epsilon) if math.isfinite(mu) else math.inf

    low, high = math.log(1e-3 * clip_norm), math.log(1e3 * clip_norm)
    if excess(low) <= 0 or excess(high) > 0:
        return None
    return math.exp(optimize.brentq(excess, low, high, xtol=1e-3))


@validate_params({"sigma": POSITIVE, "clip_norm": POSITIVE, **STEPS})
def poisson_sgd_epsilon(sigma, clip_norm, sampling_rate, n_steps, delta):
    """The ε that T Poisson-subsampled DP-SGD steps with noise σ spend at δ (tight, by PLD).

    Parameters
    ----------
    sigma : float > 0
        Noise std on each batch's sum of clipped gradients.
    clip_norm : float > 0
        C.
    sampling_rate : float, 0 < q <= 1
        Each example's probability of joining each batch.
    n_steps : int, 1 <= T <= MAX_STEPS (10⁶)
    delta : float, 0 < δ < 1 (10⁻⁹ <= δ for q < 1: ``composition.PLD_MIN_DELTA``)

    Returns
    -------
    float. The PLD's pessimistic ε (never below the true one, the FFT's rounding error reserved as
    ``pld_epsilon`` says; at most about T·10⁻⁴ above). Cost: one PLD self-composition, well under a second.

    Raises
    ------
    TypeError, ValueError
        For any argument out of range. ImportError without dp-accounting (the message names it).

    Examples
    --------
    >>> round(poisson_sgd_epsilon(sigma=5.0, clip_norm=1.0, sampling_rate=0.5, n_steps=2, delta=1e-5), 4)
    1.0552
    """
    if not _in_pld_limits(sigma, clip_norm, sampling_rate, n_steps):
        raise ValueError(f"sigma = {sigma!r} is too small for n_steps = {n_steps} at sampling_rate = "
                         f"{sampling_rate!r} and clip_norm = {clip_norm!r} (valid range: sigma >= "
                         f"{PLD_MIN_NOISE:g}·clip_norm and expected privacy loss T·q·2(C/σ)² <= "
                         f"{PLD_MAX_EXPECTED_LOSS:g}; below that every ε is huge)")
    return _epsilon(sigma, clip_norm, sampling_rate, n_steps, delta)


#: The ε range :func:`poisson_sgd_sigma` calibrates to (a stated limit: beyond it the bisection's bracket
#: spans hundreds of PLD evaluations, and ε > 100 protects nothing).
EPSILON_RANGE = (1e-3, 100.0)


#: The target ε of :func:`poisson_sgd_sigma` and of the learner: a number in EPSILON_RANGE.
TARGET = FiniteInterval(Real, EPSILON_RANGE[0], EPSILON_RANGE[1], closed="both")


@validate_params({"clip_norm": POSITIVE, "sampling_rate": STEPS["sampling_rate"], "n_steps": STEPS["n_steps"],
                  "epsilon": TARGET, "delta": STEPS["delta"]})
def poisson_sgd_sigma(clip_norm, sampling_rate, n_steps, epsilon, delta):
    """Noise σ on each batch sum so that T Poisson-subsampled DP-SGD steps are (ε, δ)-DP (tight, by PLD).

    The smallest σ (to 0.5 % relative, rounded up) whose PLD ε, on the grid CALIBRATION_GRID (10⁻³), is <= ε.
    That grid's pessimistic PLD bounds the true ε from above as the finer default does, ten times faster.
    ε(σ) decreases in σ and is close to a power of σ, so the root of log ε(σ) − log ε in log σ is found by
    regula falsi with the Illinois modification, from a bracket around the Gaussian-DP central-limit estimate
    (:func:`_clt_sigma`), always keeping a certified upper end of the bracket.

    Parameters
    ----------
    clip_norm : float > 0
    sampling_rate : float, 0 < q <= 1
    n_steps : int, 1 <= T <= MAX_STEPS (10⁶)
    epsilon : float, 10⁻³ <= ε <= 100 (EPSILON_RANGE)
    delta : float, 0 < δ < 1 (10⁻⁹ <= δ for q < 1: ``composition.PLD_MIN_DELTA``)

    Returns
    -------
    float > 0 with ``poisson_sgd_epsilon(σ, C, q, T, δ) <= ε``, within 0.5 % (and the coarser grid's ~T·10⁻³
    in ε) of the smallest such σ. At q = 1 it is the σ of ``dp_logistic.dp_sgd_sigma(C, T, ε, δ, "exact")``.
    Cost: about 5–8 PLD evaluations on the coarse grid (well under a second for a few hundred steps).

    Raises
    ------
    TypeError, ValueError
        For any argument out of range. ImportError without dp-accounting.

    Examples
    --------
    >>> round(poisson_sgd_sigma(clip_norm=1.0, sampling_rate=0.5, n_steps=2, epsilon=1.0, delta=1e-5), 4)
    5.2528
    """
    def excess(sigma):  # below the PLD's stated limits: treated as overspending (σ then never below 0.2·C)
        if not _in_pld_limits(sigma, clip_norm, sampling_rate, n_steps):
            return math.inf
        return math.log(max(_epsilon(sigma, clip_norm, sampling_rate, n_steps, delta, CALIBRATION_GRID), 1e-300)
                        / epsilon)

    # Without amplification T steps of sensitivity 2C need σ = gaussian_sigma(2C√T, ε, δ) ("exact"); the
    # Poisson version never needs more (its outputs are a post-processing of that mechanism's, up to the grid).
    ceiling = dp_sgd_sigma(clip_norm, n_steps, epsilon, delta, accountant="exact")
    # Bracket the root around the CLT estimate (a few PLD evaluations near the answer, where each is cheapest to
    # be wrong about), widening by 10 % steps; without an estimate, start from the ceiling and halve.
    guess = _clt_sigma(clip_norm, sampling_rate, n_steps, epsilon, delta)
    high = ceiling if guess is None else min(1.1 * guess, ceiling)
    f_high = excess(high)
    while f_high > 0:  # the estimate was low, or the PLD grid rounds a tight case up by ~T·10⁻³
        high *= 1.1 if high < ceiling else 1.01
        f_high = excess(high)
    low = high / (2 if guess is None else 1.2)
    f_low = excess(low)
    while f_low <= 0:
        high, f_high = low, f_low
        low = low / (2 if guess is None else 1.2)
        f_low = excess(low)
    side = 0
    while high - low > 5e-3 * high:
        if math.isinf(f_low):  # no slope to follow: bisect
            middle = math.sqrt(low * high)
        else:
            t = f_low / (f_low - f_high)
            middle = math.exp(math.log(low) + t * (math.log(high) - math.log(low)))
            middle = min(max(middle, low + 1e-4 * (high - low)), high - 1e-4 * (high - low))
        f_middle = excess(middle)
        if f_middle <= 0:
            high, f_high = middle, f_middle
            if side == 1:
                f_low /= 2  # Illinois: stop the stale end from pinning the interpolation
            side = 1
        else:
            low, f_low = middle, f_middle
            if side == -1:
                f_high /= 2
            side = -1
    return high


def _poisson_sums(G, clip_norm, sigma, sampling_rate, n_steps, rng, n_trials):
    """n_trials independent runs of T steps: Σ_{i sampled} clip_C(g_i) + N(0, σ²I), shape (n_trials, T, d).

    G is fixed (the audits' gradients do not depend on θ). Each example joins each step's batch
    independently with probability q.
    """
    clipped = clip_per_example(np.asarray(G, dtype=float), clip_norm)
    masks = rng.random((n_trials, n_steps, clipped.shape[0])) < sampling_rate
    return masks @ clipped + sigma * rng.standard_normal((n_trials, n_steps, clipped.shape[1]))


def broken_shuffled_sums_with_poisson_accounting(G, clip_norm, sigma, sampling_rate, n_steps, rng, n_trials):
    """BROKEN on purpose: shuffled disjoint batches of B = qn (each example in exactly one per epoch), noised
    with a σ from the *Poisson* accountant. No mixture hides whether the example took part, so the
    amplification is not there and the claimed ε is not met. Not in ``__all__``."""
    clipped = clip_per_example(np.asarray(G, dtype=float), clip_norm)
    n = clipped.shape[0]
    batch = max(1, round(sampling_rate * n))
    per_epoch = n // batch
    epochs = -(-n_steps // per_epoch)
    # One permutation per (trial, epoch), cut into per_epoch disjoint batches of `batch` rows.
    orders = rng.permuted(np.broadcast_to(np.arange(n), (n_trials, epochs, n)), axis=2)
    rows = orders[:, :, :per_epoch * batch].reshape(n_trials, epochs * per_epoch, batch)[:, :n_steps]
    sums = clipped[rows].sum(axis=2)
    return sums + sigma * rng.standard_normal(sums.shape)


@functools.lru_cache(maxsize=256)
def cached_poisson_sgd_sigma(clip_norm, sampling_rate, n_steps, epsilon, delta):
    """:func:`poisson_sgd_sigma`, computed once per setting (issue 33).

    σ depends only on public values (C, q, T, ε, δ), never on the data, so every fit with the same public
    settings (cross-validation folds, seeds, refits) reuses one calibration instead of a dozen PLD evaluations.
    """
    return poisson_sgd_sigma(clip_norm, sampling_rate, n_steps, epsilon, delta)


@privacy_claim(theorem="thm-dpsgd-privacy", epsilon="epsilon", delta="delta")
class PoissonDPSGDLogisticRegression(LinearClassifierMixin, Estimator):
    """DP-SGD logistic regression with Poisson-subsampled batches, accounted by PLD (chapter 9, issue 24).

    Parameters
    ----------
    epsilon : float, 10⁻³ <= ε <= 100 (EPSILON_RANGE)
    delta : float, 0 < δ < 1
    clip_norm : float > 0, optional
        C (public). Default R, the declared row bound ``data_norm``, as in
        :class:`dpteach.dp_logistic.DPSGDLogisticRegression`.
    n_epochs : int, 1 <= E <= MAX_EPOCHS
        Expected passes over the data: T = E·⌈n/B⌉ steps.
    batch_size : int >= 1, optional
        Expected batch size B; the sampling rate is q = B/n. Default: :func:`dpteach.dp_logistic.sgd_batch_size`
        evaluated at the shuffled learner's σ for the same (C, E, ε, δ), which is at least the Poisson σ
        (amplification only lowers it), so the noise that rule balances is never underestimated; public values only.
    learning_rate : float > 0, optional
        Default 4/R² = 1/β, as the shuffled learner (the logistic loss is R²/4-smooth on rows of norm ≤ R).
    l2_penalty : float >= 0
    random_state : seed or Generator, optional
    data_norm : float, 1e-150 <= R <= 1e150, keyword-only
        R, the declared bound on the rows' norm (default 1); it sets the defaults of clip_norm and
        learning_rate and nothing else.
    classes : pair of labels, keyword-only
        (negative, positive), default (-1, 1): the labels of ``y`` and of ``predict``, mapped to the algorithm's
        ∓1. Public: ``classes_`` is this parameter, never read from the data (``np.unique(y)`` would release
        which labels occur). A label of ``y`` outside it is refused, by name.

    Attributes
    ----------
    coef_, intercept_ : the average iterate of the last ⌈n/B⌉ steps.
    sigma_ : float; sampling_rate_ : float; n_steps_ : int
    clip_norm_, learning_rate_ : float; batch_size_ : int
        The C, η and expected B used (the defaults resolved from ``data_norm``).
    privacy_ : PrivacyReceipt
        The guarantee and how it was computed.

    Privacy
    -------
    Replace-one neighbours (n public). Step t samples its batch with fresh coins (independent of the data)
    and releases Σ_{i in batch} clip_C(∇ℓ(θ_t; x_i, y_i)) + N(0, σ²I): a Poisson-subsampled Gaussian mechanism
    whose privacy loss distribution, composed adaptively over the T steps by
    :func:`dpteach.composition.pld_epsilon`, gives (ε, δ) for σ = :func:`poisson_sgd_sigma`. Dividing by the
    expected B (public), the updates and the averaging are post-processing. Needs dp-accounting.

    Cost: O(E·n·d) time in expectation.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(12, 2))
    >>> y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> model = PoissonDPSGDLogisticRegression(epsilon=1.0, delta=1e-5, n_epochs=1, batch_size=6, random_state=0)
    >>> model.fit(X, y).coef_.shape
    (2,)
    """

    _fitted_attribute = "coef_"
    _parameter_constraints = {"epsilon": TARGET, "delta": Delta(allow_zero=False), "clip_norm": NORMAL_SCALE_OR_NONE,
                              "n_epochs": FiniteInterval(Integral, 1, MAX_EPOCHS, closed="both"),
                              "batch_size": OrNone(POSITIVE_INT), "learning_rate": OrNone(POSITIVE),
                              "l2_penalty": FiniteInterval(Real, 0, None, closed="left"), "random_state": "random_state",
                              "data_norm": NORMAL_SCALE, "classes": BinaryClasses()}

    # data_norm is keyword-only, as in DPSGDLogisticRegression: a positional clip_norm keeps its meaning.
    def __init__(self, epsilon, delta, clip_norm=None, n_epochs=5, batch_size=None, learning_rate=None,
                 l2_penalty=0.0, random_state=None, *, data_norm=1.0, classes=(-1, 1)):
        self.epsilon = epsilon
        self.delta = delta
        self.clip_norm = clip_norm
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.l2_penalty = l2_penalty
        self.random_state = random_state
        self.data_norm = data_norm
        self.classes = classes

    @fit_context({"X": Array(ndim=2), "y": ClassLabels()}, relations=[SameLength("X", "y"), AtMost("batch_size", "X")])
    def fit(self, X, y):
        """Run Poisson DP-SGD on (X, y); returns self.

        Raises
        ------
        TypeError, ValueError
            As :class:`dpteach.dp_logistic.DPSGDLogisticRegression`; ImportError without dp-accounting.
        """
        y = self._fit_labels(y)  # the labels of the public classes as ±1 (never read from y)
        # The defaults follow the declared bound R (a public parameter), never the data: C = R, η = 4/R².
        data_norm, epsilon, delta = float(self.data_norm), float(self.epsilon), float(self.delta)
        clip_norm = data_norm if self.clip_norm is None else float(self.clip_norm)
        learning_rate = default_step_size(data_norm) if self.learning_rate is None else float(self.learning_rate)
        n_epochs, l2_penalty = int(self.n_epochs), float(self.l2_penalty)
        n, d = X.shape
        if self.batch_size is None:
            shuffled_sigma = dp_sgd_sigma(clip_norm, n_epochs, epsilon, delta, accountant="exact")
            batch = sgd_batch_size(n, d + 1, shuffled_sigma, learning_rate, n_epochs, data_norm)
            # ⌈n/B⌉ steps per epoch at rate B/n would sample up to twice E passes when B is near n: use the
            # rate 1/⌈n/B⌉ (expected batch n/⌈n/B⌉ >= B), so the T steps make E expected passes exactly.
            steps_per_epoch = math.ceil(n / batch)
            rate = 1.0 / steps_per_epoch
            batch = n * rate
        else:
            batch = int(self.batch_size)
            rate, steps_per_epoch = batch / n, math.ceil(n / batch)
        if n_epochs * n * (d + 1) > MAX_FIT_WORK:
            raise ValueError(f"n_epochs·n·(d + 1) = {n_epochs}·{n}·{d + 1} exceeds the stated limit "
                             f"MAX_FIT_WORK = {MAX_FIT_WORK:.0e} gradient coordinates; use fewer n_epochs or rows")
        n_steps = check_int(n_epochs * steps_per_epoch, "n_epochs·⌈n/batch_size⌉", maximum=MAX_STEPS)
        rng = np.random.default_rng(self.random_state)
        sigma = cached_poisson_sgd_sigma(clip_norm, rate, n_steps, epsilon, delta)

        theta, average = np.zeros(d + 1), np.zeros(d + 1)
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is reported below, by name
            for step in range(n_steps):
                rows = np.flatnonzero(rng.random(n) < rate)  # Poisson sampling: data-independent coins
                total = clip_per_example(per_example_gradients(X[rows], y[rows], theta[:d], theta[d]),
                                         clip_norm).sum(axis=0)
                theta = theta - learning_rate * ((total + sigma * rng.standard_normal(d + 1)) / batch
                                                 + l2_penalty * theta)
                if step >= n_steps - steps_per_epoch:
                    average += theta
        if not np.all(np.isfinite(average)):  # θ is a function of the released sums: post-processing
            raise ValueError(f"the iterates diverged (non-finite θ) with learning_rate = {learning_rate!r}, "
                             f"l2_penalty = {l2_penalty!r} and noise σ = {sigma:.3g}; use a smaller learning_rate")
        theta = average / steps_per_epoch
        self.coef_, self.intercept_ = theta[:d].copy(), float(theta[d])
        self.sigma_, self.sampling_rate_, self.n_steps_ = sigma, rate, n_steps
        self.clip_norm_, self.learning_rate_, self.batch_size_ = clip_norm, learning_rate, batch
        self.n_features_in_ = d
        # One step: the T subsampled Gaussian sums, composed by their privacy loss distributions (σ calibrated to it).
        self.privacy_ = PrivacyReceipt(
            steps=[PrivacyStep(f"{n_steps} Poisson-subsampled noisy clipped gradient sums (rate q = {rate:.4g}, "
                               f"sensitivity 2C = {2 * clip_norm:.4g} when sampled, sigma = {sigma:.4g})",
                               f"all {n} examples, each sampled with probability q per step", epsilon, delta, "pld")],
            composition=basic_composition, theorem="thm-dpsgd-privacy",
            why="T Poisson-subsampled Gaussian mechanisms (rate q, sensitivity 2C when sampled), "
                "composed by their privacy loss distributions")
        return self
