"""Chapter 9: DP-SGD logistic regression, the convex-surrogate peer of the three halfspace learners.

Logistic regression minimises the convex surrogate ℓ(θ; x, y) = log(1 + exp(−y(⟨w, x⟩ + b))) of the
0-1 loss, θ = (w, b); the loss, its per-example gradients and their clipping (Section 9.1, Lemma 9.1)
are in :mod:`dpteach.logistic_loss`. The private version here is DP-SGD (Abadi et al. 2016) in its simplest
provable form (Algorithm 9.2 of the chapter):

1. each epoch, a data-independent random permutation cuts the sample into disjoint batches of B;
2. each step computes every example's gradient, clips it to norm C, sums the batch and adds
   N(0, σ² I) — a Gaussian mechanism whose replace-one L2 sensitivity is 2C (Lemma 9.1);
3. θ moves against the noisy mean gradient; the output is the average of the last epoch's iterates.

Accounting (Theorem 9.3): inside an epoch an example sits in exactly one batch, so one epoch costs
one Gaussian mechanism per example (parallel composition); E epochs compose. Three accountants are
implemented; any of them may be chosen before seeing the data:

* ``"zcdp"``: one epoch is (2C)²/(2σ²)-zCDP, E epochs are E·(2C)²/(2σ²)-zCDP, converted to (ε, δ) by
  ``dpteach.dp_erm.zcdp_rho`` (Bun & Steinke 2016; Lemma 6.6 of chapter 6);
* ``"composition"``: one epoch is (ε₀, δ/(2E))-DP with σ from ``dpteach.mechanisms.gaussian_sigma``
  (the analytic Gaussian mechanism of chapter 1) and E epochs compose by
  ``dpteach.composition.advanced_composition_epsilon_per_step`` (advanced or basic, whichever is smaller);
* ``"exact"``: E adaptively composed Gaussian mechanisms of sensitivity 2C are exactly as private as *one*
  Gaussian mechanism of sensitivity 2C·√E (Gaussian differential privacy: each epoch is (2C/σ)-GDP and
  μ-GDP composes to √(Σμ²)-GDP; Dong, Roth & Su 2022, Cor. 3.3), so σ = ``gaussian_sigma(2C·√E, ε, δ)``
  (the analytic calibration of chapter 1) certifies (ε, δ) with no slack: ``gaussian_delta(σ, 2C√E, ε) = δ``.
  The same pattern as chapter 5's DP-GD (``regression.dp_gradient_descent_sigma``) and chapter 8's
  sample-reuse variant (``dpsas_steps``);
* ``"best"`` (the default): the smallest of the three σ's. All are valid and the choice depends only on
  (C, E, ε, δ), never on the data, so the minimum is valid too. Since the exact accountant is tight, it
  is the one "best" picks (up to rounding); the fitted model says which in ``privacy_.steps[0].accountant``.

Unlike production DP-SGD (Opacus, TensorFlow Privacy) we do **not** use privacy amplification by
subsampling: the batches are a shuffle, not Poisson samples, and the accountant charges every epoch in
full. That costs noise but keeps the proof to one page.

Neighbouring datasets have the same size n and differ in one example (replace-one); n is public.
dpteach is a teaching library (floating-point noise): do not use it to protect real data.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from ._constraints import (Delta, Epsilon, Integral, FiniteInterval, OrNone, Options, POSITIVE, POSITIVE_INT, Real,
                           fit_context, validate_params, SameLength, AtMost)
from ._array_constraints import Array, Labels
from ._scales import NORMAL_SCALE, NORMAL_SCALE_OR_NONE
from ._estimator import BinaryClasses, ClassLabels, Estimator, LinearClassifierMixin
from .privacy import PrivacyReceipt, PrivacyStep, privacy_claim
from .composition import advanced_composition, advanced_composition_epsilon_per_step, basic_composition
from .dp_erm import zcdp_epsilon, zcdp_gaussian_sigma
from .logistic_loss import MODEL, check_model_shapes, clip_per_example, per_example_gradients
from .mechanisms import gaussian_epsilon, gaussian_sigma

__all__ = [
    "ACCOUNTANTS",
    "dp_sgd_sigma",
    "dp_sgd_epsilon",
    "noisy_clipped_gradient_sum",
    "DPSGDLogisticRegression",
]

#: The accountants :func:`dp_sgd_sigma` knows (see the module docstring).
ACCOUNTANTS = ("zcdp", "composition", "exact", "best")

#: Stated limits, refused up front (a teaching library; the chapter needs far less). More epochs than
#: this make the composition accountant's O(E) arithmetic and a fit's O(E·n·d) work unreasonable.
MAX_EPOCHS = 10 ** 6
#: Most per-example gradient coordinates one fit may compute, E·n·(d + 1) (minutes of numpy work).
MAX_FIT_WORK = 10 ** 10
#: Most Gaussian draws one call of :func:`noisy_clipped_gradient_sum` may make, size·(d + 1) (0.8 GB).
MAX_DRAWS = 10 ** 8


#: The public parameters of an accounting (C, E, δ and the accountant), as :func:`dp_sgd_sigma` declares them.
BUDGET = {"clip_norm": NORMAL_SCALE, "n_epochs": FiniteInterval(Integral, 1, MAX_EPOCHS, closed="both"),
          "delta": Delta(allow_zero=False), "accountant": Options(ACCOUNTANTS)}


def _sigma_zcdp(sensitivity, n_epochs, epsilon, delta):
    # E epochs of a Δ-sensitive Gaussian mechanism: E·Δ²/(2σ²) = ρ(ε, δ) (chapter 6's zCDP calibration).
    # At extreme ε the σ may still leave the float range: this accountant then has no finite positive
    # σ to offer (None), and "best" uses the composition accountant alone.
    sigma = zcdp_gaussian_sigma(sensitivity, n_epochs, epsilon, delta)
    return sigma if 0 < sigma < math.inf else None


def _sigma_composition(sensitivity, n_epochs, epsilon, delta):
    # δ/2 for the per-epoch Gaussian mechanisms (δ/(2E) each), δ/2 for advanced composition's δ'.
    per_epoch = advanced_composition_epsilon_per_step(epsilon, n_epochs, delta / 2)
    sigma = gaussian_sigma(sensitivity, per_epoch, delta / (2 * n_epochs), method="analytic")
    return sigma if 0 < sigma < math.inf else None


def _sigma_exact(sensitivity, n_epochs, epsilon, delta):
    # E adaptive Gaussian mechanisms of sensitivity Δ, each (Δ/σ)-GDP, compose to (Δ√E/σ)-GDP (Dong, Roth & Su
    # 2022, Cor. 3.3): one Gaussian mechanism of sensitivity Δ√E, for which the analytic σ is exact.
    # At extreme ε (about 1e150) the analytic calibration's e^ε·Φ(·) overflows: no σ to offer, as for "zcdp".
    try:
        sigma = gaussian_sigma(sensitivity * math.sqrt(n_epochs), epsilon, delta)
    except OverflowError:
        return None
    return sigma if 0 < sigma < math.inf else None


_SIGMA_BY_ACCOUNTANT = {"zcdp": _sigma_zcdp, "composition": _sigma_composition, "exact": _sigma_exact}


def _calibration(clip_norm, n_epochs, epsilon, delta, accountant):
    """(σ, the accountant that gave it): ``accountant``'s σ, or for "best" the smallest of all of them."""
    sensitivity = 2.0 * clip_norm
    names = tuple(_SIGMA_BY_ACCOUNTANT) if accountant == "best" else (accountant,)
    candidates = [(_SIGMA_BY_ACCOUNTANT[name](sensitivity, n_epochs, epsilon, delta), name) for name in names]
    candidates = [(sigma, name) for sigma, name in candidates if sigma is not None]
    if not candidates:
        raise ValueError(f"epsilon = {epsilon!r} is beyond what the {accountant!r} accountant can calibrate in "
                         f"floating point (its σ is 0 or infinite); use accountant='best' or "
                         f"'composition', or an epsilon within about 1e-150 < epsilon < 1e150")
    return min(candidates)


@validate_params({**BUDGET, "epsilon": Epsilon()})
def dp_sgd_sigma(clip_norm, n_epochs, epsilon, delta, accountant="best"):
    """Noise σ on each batch's clipped-gradient sum so that E epochs of Algorithm 9.2 are (ε, δ)-DP (Theorem 9.3).

    * ``"zcdp"``: σ = 2C·√(E/(2ρ)) with ρ = ``dpteach.dp_erm.zcdp_rho(ε, δ)``;
    * ``"composition"``: σ = ``gaussian_sigma(2C, ε₀, δ/(2E))`` (analytic), with ε₀ the per-epoch
      budget of ``advanced_composition_epsilon_per_step(ε, E, δ/2)``;
    * ``"exact"``: σ = ``gaussian_sigma(2C·√E, ε, δ)``: the E epochs compose exactly into one Gaussian
      mechanism of sensitivity 2C·√E (Dong, Roth & Su 2022), so this σ is the smallest that certifies
      (ε, δ) for Algorithm 9.2 as analysed (no slack);
    * ``"best"``: the smallest of the three (data-independent, hence valid; in practice the exact one).

    σ does not depend on the batch size or on n: each example is charged once per epoch whatever
    the batches are (no amplification by subsampling is claimed).

    Parameters
    ----------
    clip_norm : float, 1e-150 <= C <= 1e150
        C.
    n_epochs : int, 1 ≤ E ≤ MAX_EPOCHS (10⁶)
        E.
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    accountant : {"zcdp", "composition", "exact", "best"}

    Returns
    -------
    float > 0. Cost O(1) ("zcdp"), a few root findings otherwise.

    Raises
    ------
    TypeError, ValueError
        For any argument out of range or an unknown accountant; for an ε that the chosen accountant
        cannot calibrate in floating point (``"zcdp"`` outside about 1e-150 < ε < 1e150; ``"best"``
        then falls back to the composition accountant).

    Examples
    --------
    >>> round(dp_sgd_sigma(clip_norm=1.0, n_epochs=2, epsilon=1.0, delta=1e-5, accountant="best"), 4)
    10.5518
    """
    return _calibration(clip_norm, n_epochs, epsilon, delta, accountant)[0]


def _epsilon_zcdp(sigma, sensitivity, n_epochs, delta):
    ratio = sensitivity / sigma  # (Δ/σ)² written so that σ² can neither overflow nor underflow
    rho = n_epochs * ratio * ratio / 2.0
    if not math.isfinite(rho):
        return math.inf  # so little noise that no finite ε can be certified
    # A ρ that underflowed is below the smallest normal float: charging that much keeps ε an upper bound.
    return zcdp_epsilon(max(rho, sys.float_info.min), delta)


def _epsilon_composition(sigma, sensitivity, n_epochs, delta):
    # The smallest per-epoch ε₀ with δ(ε₀) ≤ δ/(2E), then E-fold advanced (or basic) composition at slack δ/2.
    per_epoch = gaussian_epsilon(sigma, sensitivity, delta / (2 * n_epochs))
    if per_epoch == math.inf:
        return math.inf
    advanced = advanced_composition(per_epoch, 0.0, n_epochs, delta / 2)[0]
    return min(advanced, n_epochs * per_epoch)


def _epsilon_exact(sigma, sensitivity, n_epochs, delta):
    # The E epochs are one Gaussian mechanism of sensitivity Δ√E (see _sigma_exact).
    return gaussian_epsilon(sigma, sensitivity * math.sqrt(n_epochs), delta)


_EPSILON_BY_ACCOUNTANT = {"zcdp": _epsilon_zcdp, "composition": _epsilon_composition, "exact": _epsilon_exact}


@validate_params({"sigma": POSITIVE, **BUDGET})
def dp_sgd_epsilon(sigma, clip_norm, n_epochs, delta, accountant="best"):
    """The ε that E epochs of Algorithm 9.2 with noise σ spend at a given δ (the inverse of :func:`dp_sgd_sigma`).

    Parameters
    ----------
    sigma : float > 0
        Noise standard deviation on each batch sum.
    clip_norm : float, 1e-150 <= C <= 1e150
    n_epochs : int, 1 ≤ E ≤ MAX_EPOCHS (10⁶)
    delta : float, 0 < δ < 1
    accountant : {"zcdp", "composition", "exact", "best"}

    Returns
    -------
    float. ``dp_sgd_epsilon(dp_sgd_sigma(C, E, ε, δ, a), C, E, δ, a) ≈ ε`` (≤ ε up to rounding). Cost O(1)
    ("zcdp"), one root finding otherwise. ``inf`` when σ is so small that no finite ε can be
    certified in floating point.

    Raises
    ------
    TypeError, ValueError
        For any argument out of range or an unknown accountant.

    Examples
    --------
    >>> round(dp_sgd_epsilon(sigma=5.0, clip_norm=1.0, n_epochs=2, delta=1e-5, accountant="best"), 4)
    2.2884
    """
    sensitivity = 2.0 * clip_norm
    names = tuple(_EPSILON_BY_ACCOUNTANT) if accountant == "best" else (accountant,)
    return min(_EPSILON_BY_ACCOUNTANT[name](sigma, sensitivity, n_epochs, delta) for name in names)


def _check_size(size, n_features):
    # At most MAX_DRAWS Gaussian draws: refused up front rather than by a MemoryError (a relation to d, so in the body).
    limit = max(1, MAX_DRAWS // (n_features + 1))
    if size is not None and size > limit:
        raise ValueError(f"size must be an integer in [1, {limit}] (at most MAX_DRAWS = {MAX_DRAWS:.0e} Gaussian "
                         f"draws of dimension d + 1 = {n_features + 1}), got {size!r}")
    return 1 if size is None else size


#: The parameters of one step's release (:func:`noisy_clipped_gradient_sum` and its broken copy).
STEP = {"X": Array(ndim=2), "y": Labels(), **MODEL, "clip_norm": NORMAL_SCALE, "sigma": POSITIVE, "rng": "random_state",
        "size": OrNone(POSITIVE_INT)}


@privacy_claim(theorem="lem-clipped-sum-sensitivity", epsilon="gaussian_epsilon(sigma, 2 * clip_norm, delta)",
               delta="delta", condition="for every delta in (0, 1): the Gaussian mechanism of sensitivity 2·clip_norm")
@validate_params(STEP)
def noisy_clipped_gradient_sum(X, y, coef, intercept, clip_norm, sigma, rng=None, size=None):
    """One step's release of Algorithm 9.2: Σ_i clip_C(∇ℓ(θ; x_i, y_i)) + N(0, σ² I).

    A Gaussian mechanism on the batch (X, y) with replace-one L2 sensitivity 2C
    (:func:`gradient_sum_sensitivity`); with σ from :func:`dp_sgd_sigma` one epoch of such steps is
    within the budget of Theorem 9.3. θ = (coef, intercept) is public (a previous private output).
    Exposed on its own so the chapter, the lab and the tests can audit one step.

    Parameters
    ----------
    X : array_like, shape (B, d), finite
        The batch.
    y : array_like, shape (B,), labels ±1
    coef : array_like, shape (d,), intercept : float
        θ.
    clip_norm : float, 1e-150 <= C <= 1e150
        C.
    sigma : float > 0
        Noise standard deviation.
    rng : seed or Generator
    size : None or int, 1 ≤ size ≤ MAX_DRAWS/(d + 1)
        None for one release (shape (d + 1,)); an int for that many independent releases
        (shape (size, d + 1)), for audits (at most :data:`MAX_DRAWS` = 10⁸ Gaussian draws per call).

    Returns
    -------
    numpy.ndarray. Cost O(B·d + size·d).

    Raises
    ------
    TypeError, ValueError
        For bad arrays or labels, C ≤ 0, σ ≤ 0, a bad size or rng.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, -0.5]])
    >>> noisy_clipped_gradient_sum(X, np.array([1.0, -1.0, 1.0]), coef=np.array([0.3, -0.2]), intercept=0.1,
    ...                            clip_norm=1.0, sigma=1.0, rng=0, size=2).shape
    (2, 3)
    """
    check_model_shapes(X, y, coef)  # the declared contract checks each array; these relate them (no validator call)
    noisy, _ = noisy_clipped_gradient_sum_prechecked(X, y, coef, intercept, clip_norm, sigma, rng,
                                                      n_samples=_check_size(size, X.shape[1]))
    return noisy[0] if size is None else noisy


def noisy_clipped_gradient_sum_prechecked(X, y, coef, intercept, clip_norm, sigma, rng, n_samples=1, *, clip=True):
    """The body of :func:`noisy_clipped_gradient_sum` on checked arguments (``rng`` a Generator): the releases,
    shape (n_samples, d + 1), and how many examples had their gradient clipped (a diagnostic, not released).

    The learner's loop calls it directly: one pass of per-example gradients per step, and no validation in the
    hot loop (the fit checked its data and parameters once). ``clip=False`` is the audit's broken variant only.
    """
    G = per_example_gradients(X, y, coef, intercept)
    total = (clip_per_example(G, clip_norm) if clip else G).sum(axis=0)
    noisy = total + sigma * rng.standard_normal((n_samples, total.size))
    return noisy, int(np.count_nonzero(np.einsum("ij,ij->i", G, G) > clip_norm ** 2))


@validate_params(STEP)
def broken_noisy_gradient_sum_without_clipping(X, y, coef, intercept, clip_norm, sigma, rng=None, size=None):
    """BROKEN on purpose (for the audit demo): calibrated for clip norm C but forgets to clip.

    The noise is the right σ for sensitivity 2C, yet an example with a large ‖x‖ moves the sum by
    up to 2‖(x, 1)‖·σ(·): the sensitivity is unbounded and the step is not (ε, δ)-DP. The commonest
    DP-SGD bug (clipping the batch mean instead of each example has the same effect). Not in ``__all__``.
    """
    check_model_shapes(X, y, coef)
    noisy, _ = noisy_clipped_gradient_sum_prechecked(X, y, coef, intercept, clip_norm, sigma, rng,
                                                      n_samples=_check_size(size, X.shape[1]), clip=False)
    return noisy[0] if size is None else noisy


#: Most steps per epoch of the default batch size (see :func:`default_batch_size`).
DEFAULT_STEPS_PER_EPOCH = 100


def default_batch_size(n, steps_per_epoch=DEFAULT_STEPS_PER_EPOCH):
    """⌈n/steps_per_epoch⌉ (at least 1, at most n): a batch size from public n only.

    :func:`sgd_batch_size` uses it as the smallest default batch (at most 100 steps per epoch).
    """
    return max(1, min(n, math.ceil(n / steps_per_epoch)))


def sgd_batch_size(n, n_parameters, sigma, learning_rate, n_epochs, data_norm,
                   steps_per_epoch=DEFAULT_STEPS_PER_EPOCH):
    """The default batch size of the DP-SGD learners: B = ⌈(2η²σ²pEn / D²)^{1/3}⌉ with D = 4/R (issue 33).

    Kept between ⌈n/100⌉ and n. Public values only: n, the p = d + 1 parameters, the noise σ on each batch
    sum, the step size η, the E epochs and the declared row bound R (never the data).

    Why. Each epoch is charged in full whatever its batches (Theorem 9.3 claims no amplification), so steps
    within an epoch cost no privacy, but each adds its own noise Z ~ N(0, σ²I_p) to a sum that is then
    divided by B. The update direction ĝ = (Σ_batch clipped g + Z)/B has E‖ĝ‖² ≤ C² + σ²p/B². Online
    gradient descent with a constant step η on convex losses (Zinkevich 2003), turned into a statistical
    bound by averaging, gives an excess loss of at most D²/(2ηT) + η·E‖ĝ‖²/2 after T = En/B steps, D being
    the norm of the weights sought. As a function of B that is D²B/(2ηEn) + ηC²/2 + ησ²p/(2B²): fewer,
    larger batches cost optimisation steps (the first term grows like B) and more, smaller batches cost
    noise (the last term grows like 1/B²). The minimum is at B³ = 2η²σ²pEn/D². For D we take 4/R, the
    norm of weights that give a row at the bound R a margin of 4 (logistic loss 0.018): a public scale,
    not a fit. At most 100 steps per epoch (B ≥ ⌈n/100⌉), where more steps only add loop overhead.
    """
    weight_norm = 4.0 / data_norm
    # In logs: η², σ² and D² alone can leave the doubles at the ends of R's range, their ratio does not.
    log_optimum = (math.log(2.0 * n_parameters * n_epochs * n) + 2 * math.log(learning_rate) + 2 * math.log(sigma)
                   - 2 * math.log(weight_norm)) / 3
    if log_optimum >= math.log(n):
        return n
    return max(default_batch_size(n, steps_per_epoch), math.ceil(math.exp(log_optimum)))


def default_step_size(data_norm):
    """η = 1/β = 4/R²: the step size for rows of norm ≤ R, from the logistic loss's smoothness (Eq. 9.2).

    The Hessian of ℓ(θ; x, y) in w is σ'(m)·x xᵀ with σ' ≤ 1/4, so ℓ is β-smooth in w with β = ‖x‖²/4 ≤ R²/4,
    and full-gradient descent with step 1/β decreases a β-smooth convex loss at every step (Nesterov 2004,
    Thm. 2.1.14). The intercept's own curvature is at most 1/4, and η < 2/(1/4) keeps its steps stable for
    R > 1/√2. The rule uses the bound R the user declares, never the data: η ∝ 1/R² because the weights a
    good halfspace needs grow like 1/R when the rows shrink like R. ``data_norm`` is validated by the caller.
    """
    return 4.0 / (data_norm * data_norm)


@privacy_claim(theorem="thm-dpsgd-privacy", epsilon="epsilon", delta="delta")
class DPSGDLogisticRegression(LinearClassifierMixin, Estimator):
    """Algorithm 9.2: (ε, δ)-DP logistic regression by DP-SGD with per-example clipping (Theorem 9.3).

    Parameters
    ----------
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    clip_norm : float, 1e-150 <= C <= 1e150, optional
        C, the per-example gradient bound (public). Default R: the w-part of ∇ℓ is −yσ(−m)·x, of norm
        ≤ ‖x‖ ≤ R, so on rows within the declared bound only the intercept's coordinate (at most 1 more)
        can push a gradient past C, and then only for examples misclassified by a wide margin
        (σ(−m) > R/√(R² + 1)); clipping keeps their direction.
    n_epochs : int, 1 ≤ E ≤ MAX_EPOCHS (10⁶)
        E, passes over the data (default 5).
    batch_size : int ≥ 1, optional
        B (default :func:`sgd_batch_size`: the batch that balances the noise each step adds against the
        steps an epoch makes, from public n, d, σ, η, E and R; steps within an epoch cost no privacy, since
        each epoch is charged in full whatever its batches). Examples beyond the last full batch of an
        epoch's permutation are skipped in that epoch.
    learning_rate : float > 0, optional
        Step size η of θ ← θ − η(noisy mean gradient + λθ). Default 4/R² = 1/β, β = R²/4 being the
        smoothness of the logistic loss in w on rows of norm ≤ R (see the chapter's Section 9.2).
    l2_penalty : float ≥ 0
        λ (default 0). The penalty's gradient λθ is data-independent.
    accountant : {"zcdp", "composition", "exact", "best"}
        How σ is calibrated (:func:`dp_sgd_sigma`); "best" (the default) uses the smallest σ, the exact one.
    random_state : seed or Generator, optional
    data_norm : float, 1e-150 <= R <= 1e150, keyword-only
        R, the bound on the rows' norm ‖x‖₂ that the user declares (default 1: rows scaled onto the unit
        ball, as DP practice asks). It sets the defaults of clip_norm and learning_rate and nothing else: it is never checked
        against the data, and privacy never depends on it being true (the gradients are clipped at C
        whatever the rows are).
    classes : pair of labels, keyword-only
        (negative, positive), default (-1, 1): the labels of ``y`` and of ``predict``, mapped to the algorithm's
        ∓1. Public: ``classes_`` is this parameter, never read from the data (``np.unique(y)`` would release
        which labels occur). A label of ``y`` outside it is refused, by name.

    Attributes
    ----------
    coef_ : ndarray (d,), intercept_ : float
        The averaged iterate of the last epoch; ``predict`` is sign(⟨coef_, x⟩ + intercept_), ties +1.
    sigma_ : float
        Noise σ on each batch sum.
    clip_norm_, learning_rate_ : float
        The C and η used (the defaults resolved from ``data_norm``).
    batch_size_, n_steps_ : int
    clipped_fraction_ : float
        Fraction of per-example gradients that were clipped (computed on private data, so it is
        **not** private: for diagnostics only, never release it).
    privacy_ : PrivacyReceipt
        The guarantee: one step, the E epochs, whose ``accountant`` is the one whose σ was used
        (``privacy_.steps[0].accountant``; ``accountant`` is the one asked for).
    n_features_in_ : int

    Privacy (Theorem 9.3)
    ---------------------
    Fix any permutation of each epoch (they are drawn independently of the data). Let S, S' differ in
    example k. In every epoch, exactly one step has k in its batch; every other step computes the
    same function of θ on S and S', so given the past its output has the same distribution. The step
    that contains k releases a sum of clipped gradients, which moves by at most 2C (Lemma 9.1), plus
    N(0, σ²I): a Gaussian mechanism. Hence one epoch is (2C)²/(2σ²)-zCDP — and (ε₀, δ₀)-DP when
    σ = gaussian_sigma(2C, ε₀, δ₀) — with respect to k, and by adaptive composition E epochs are
    E(2C)²/(2σ²)-zCDP, i.e. (ε, δ)-DP for σ from :func:`dp_sgd_sigma` (Lemma 6.6; or, for the
    composition accountant, (ε, δ)-DP by advanced composition; or, for the exact accountant, (2C√E/σ)-GDP,
    i.e. one Gaussian mechanism of sensitivity 2C√E, which is (ε, δ)-DP by Theorem 1.10). The parameter updates, the averaging
    and ``predict`` are post-processing. The data touch: every example, through its clipped gradient
    only, once per epoch.

    Cost: O(E·n·d) time, O(B·d) memory per step.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(12, 2))
    >>> y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> model = DPSGDLogisticRegression(epsilon=1.0, delta=1e-5, n_epochs=2, random_state=0).fit(X, y)
    >>> model.coef_.shape, model.privacy_.epsilon
    ((2,), 1.0)
    """

    _fitted_attribute = "coef_"
    _parameter_constraints = {"epsilon": Epsilon(), "delta": Delta(allow_zero=False), "clip_norm": NORMAL_SCALE_OR_NONE,
                              "n_epochs": BUDGET["n_epochs"], "batch_size": OrNone(POSITIVE_INT),
                              "learning_rate": OrNone(POSITIVE), "l2_penalty": FiniteInterval(Real, 0, None, closed="left"),
                              "accountant": Options(ACCOUNTANTS), "random_state": "random_state",
                              "data_norm": NORMAL_SCALE, "classes": BinaryClasses()}

    # data_norm is keyword-only: it came after clip_norm was the third positional parameter, and a positional
    # clip_norm must not silently become a data bound.
    def __init__(self, epsilon, delta, clip_norm=None, n_epochs=5, batch_size=None, learning_rate=None,
                 l2_penalty=0.0, accountant="best", random_state=None, *, data_norm=1.0, classes=(-1, 1)):
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.clip_norm = clip_norm
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.l2_penalty = l2_penalty
        self.accountant = accountant
        self.random_state = random_state
        self.classes = classes

    @fit_context({"X": Array(ndim=2), "y": ClassLabels()}, relations=[SameLength("X", "y"), AtMost("batch_size", "X")])
    def fit(self, X, y):
        """Run Algorithm 9.2 on (X, y); returns self. Cost O(E·n·d).

        Raises
        ------
        TypeError, ValueError
            For bad data (NaN/inf, labels ∉ classes, mismatched lengths) or parameters out of range
            (including a batch size larger than n, n_epochs > :data:`MAX_EPOCHS`, a fit of more than
            :data:`MAX_FIT_WORK` gradient coordinates E·n·(d + 1), an ε the accountant cannot calibrate
            in floating point), and for iterates that diverge (too large a learning rate).
        """
        y = self._fit_labels(y)  # the labels of the public classes as ±1 (never read from y)
        # The defaults follow the declared bound R (a public parameter), never the data: C = R, η = 4/R².
        data_norm = float(self.data_norm)
        clip_norm = data_norm if self.clip_norm is None else float(self.clip_norm)
        n_epochs, epsilon, delta = int(self.n_epochs), float(self.epsilon), float(self.delta)
        learning_rate = default_step_size(data_norm) if self.learning_rate is None else float(self.learning_rate)
        l2_penalty = float(self.l2_penalty)
        n, d = X.shape
        if n_epochs * n * (d + 1) > MAX_FIT_WORK:
            raise ValueError(f"n_epochs·n·(d + 1) = {n_epochs}·{n}·{d + 1} exceeds the stated limit "
                             f"MAX_FIT_WORK = {MAX_FIT_WORK:.0e} gradient coordinates; use fewer n_epochs or rows")
        rng = np.random.default_rng(self.random_state)
        sigma, calibrated_by = _calibration(clip_norm, n_epochs, epsilon, delta, self.accountant)
        batch = (sgd_batch_size(n, d + 1, sigma, learning_rate, n_epochs, data_norm) if self.batch_size is None
                 else int(self.batch_size))
        steps_per_epoch = n // batch

        theta = np.zeros(d + 1)
        clipped = 0
        for epoch in range(n_epochs):
            order = rng.permutation(n)  # data-independent: the batches are disjoint in each epoch
            average = np.zeros(d + 1)
            with np.errstate(over="ignore", invalid="ignore"):  # divergence is reported below, by name
                for step in range(steps_per_epoch):
                    rows = order[step * batch:(step + 1) * batch]
                    X_batch, y_batch = X[rows], y[rows]
                    # The step's release is the audited one (Lemma 9.1's Gaussian mechanism), not a copy of it: the
                    # body of noisy_clipped_gradient_sum, which also counts the clipped gradients (one pass).
                    noisy, n_clipped = noisy_clipped_gradient_sum_prechecked(X_batch, y_batch, theta[:d], theta[d],
                                                                             clip_norm, sigma, rng)
                    clipped += n_clipped
                    theta = theta - learning_rate * (noisy[0] / batch + l2_penalty * theta)
                    average += theta
                    if not np.all(np.isfinite(theta)):
                        break  # reported below, by name
            # θ is a function of the released noisy sums only, so this check is post-processing.
            if not np.all(np.isfinite(average)):
                raise ValueError(f"the iterates diverged (non-finite θ in epoch {epoch + 1}) with "
                                 f"learning_rate = {learning_rate!r}, l2_penalty = {l2_penalty!r} and noise "
                                 f"σ = {sigma:.3g}; use a smaller learning_rate")
        theta = average / steps_per_epoch  # the last epoch's average iterate (post-processing)

        self.coef_, self.intercept_ = theta[:d].copy(), float(theta[d])
        self.sigma_ = sigma
        self.clip_norm_, self.learning_rate_ = clip_norm, learning_rate
        self.batch_size_, self.n_steps_ = batch, n_epochs * steps_per_epoch
        self.clipped_fraction_ = clipped / (n_epochs * steps_per_epoch * batch)
        self.n_features_in_ = d
        # One step: the E epochs of Gaussian sums (sensitivity 2C), as the accountant that calibrated σ composes them.
        self.privacy_ = PrivacyReceipt(
            steps=[PrivacyStep(f"{n_epochs} epochs of {steps_per_epoch} noisy clipped gradient sums (Gaussian, "
                               f"sensitivity 2C = {2 * clip_norm:.4g}, sigma = {sigma:.4g})",
                               f"all {n} examples, each in at most one batch per epoch", epsilon, delta,
                               calibrated_by)],
            composition=basic_composition, theorem="thm-dpsgd-privacy",
            why="each example is in one batch per epoch (a Gaussian mechanism with sensitivity 2C); "
                "the epochs compose by the accountant")
        return self
