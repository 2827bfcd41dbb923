"""Chapter 8, "Semi-agnostic halfspaces": DPSAS and the private semi-agnostic learner.

The paper's Algorithm 3 (DPSAS, the chapter's Algorithm 8.3) privatises the
online projected gradient descent of Diakonikolas, Kontonis, Tzamos &
Zarifis (2022): given an upper bound η ≥ OPT it returns a halfspace
sign(⟨ŵ, x⟩ + τ̂) with error O(η) from Õ(d/η² + d/(εη)) examples per block.
The paper's Algorithm 4 (the chapter's Algorithm 8.9) does not know OPT: it runs
DPSAS on disjoint parts for a doubling grid of η and picks one output with
the exponential mechanism on a validation split, for error C·OPT + α
(Theorem 8.11, the paper's Theorem 4.1).

The building blocks live in their one home each: the ramp loss and its gradient in
:mod:`dpteach.dpsas_ramp`, the private threshold and direction, the schedule, the noise and
one round in :mod:`dpteach.dpsas_steps`.

Conventions: h(x) = sign(⟨w, x⟩ + τ) (ties +1), as in the paper;
``dpteach.data.gaussian_halfspace_data`` writes sign(⟨w, x⟩ − t), so τ = −t.
Replace-one neighbours. ``epsilon = inf`` selects the identical, non-private
code path (no noise), for reference curves only.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from ._constraints import Check, OPEN_UNIT, Options, OrNone, POSITIVE_INT, fit_context, validate_params, SameLength
from ._array_constraints import Array, Labels, Flag
from ._estimator import BinaryClasses, ClassLabels, Estimator, LinearClassifierMixin
from .privacy import PrivacyReceipt, PrivacyStep, privacy_claim
from ._validation import check_normal_double, check_probability, check_representable
from .dpsas_ramp import check_unit_vector
from .dpsas_steps import (DELTA, EPSILON_OR_INF, ETA, SCALE, STEP_RULES, clip_rows, default_n_rounds,
                          dpsas_noise_sigma, dpsas_round_prechecked, private_initial_direction, private_threshold,
                          round_schedule, step_size)
from .composition import parallel_composition
from .mechanisms import exponential_mechanism_on_errors

# The building blocks of Algorithm 8.3 have one home each (dpteach.dpsas_ramp, dpteach.dpsas_steps); import them
# from there.
__all__ = [
    "dpsas",
    "dpsas_sample_reuse",
    "eta_grid",
    "validation_size",
    "PrivateSemiAgnosticLearner",
]

#: The grid of Algorithm 8.9 doubles η from 1.5α until it passes this value.
ETA_MAX = 0.25
#: η₁ = C_η·α with C_η = 1.5 (the paper: any C_η > 1).
C_ETA = 1.5
#: The practical validation split when the Lemma B.5 size is larger: at most this fraction of n.
VALIDATION_FRACTION = 0.2


# --- Algorithm 8.3 (the paper's Algorithm 3): DPSAS ---------------------------------------------

#: The keys of the trace :func:`dpsas` returns by default. Each is a function of the private outputs
#: (τ̂ and ŵ₀..ŵ_{T_r}), of public parameters (n, d, ε, δ, η, s) or of the caller's ``w_star``: releasing the
#: trace costs no privacy beyond the run's (ε, δ).
PRIVATE_TRACE_KEYS = ("phi", "a", "b", "w", "w0", "step_size", "sigma", "block_size", "n_rounds", "clip_norm",
                      "kappa", "angle_deg")


#: The contract of :func:`dpsas` and :func:`dpsas_sample_reuse` (the latter has no step rule and no debug trace).
DPSAS_CONSTRAINTS = {
    "X": Array(ndim=2), "y": Labels(), "epsilon": EPSILON_OR_INF, "delta": DELTA, "eta": ETA,
    "step_size_scale": SCALE, "n_rounds": OrNone(POSITIVE_INT), "step_rule": Options(STEP_RULES),
    "rng": "random_state", "w_star": OrNone(Array(ndim=1)),
    "debug_nonprivate_grad_norm": Flag(),
}


@privacy_claim(theorem="prop-dpsas-privacy", epsilon="epsilon", delta="delta")
@validate_params(DPSAS_CONSTRAINTS, relations=[SameLength("X", "y")])
def dpsas(X, y, epsilon, delta, eta, step_size_scale=2.0, n_rounds=None, step_rule="reconstructed",
          rng=None, w_star=None, debug_nonprivate_grad_norm=False):
    """DPSAS, the DP semi-agnostic subroutine (chapter 8, Algorithm 8.3; the paper's Algorithm 3).

    1. s = ``step_size_scale``, T_r = ``n_rounds`` (default :func:`default_n_rounds`);
    2. a data-independent random partition into D_init, D_τ, D_0, ..., D_{T_r−1}
       of m₀ = ⌊n/(T_r + 2)⌋ examples each (left-over rows are unused);
    3. L = 2√d and every feature vector clipped to norm L;
    4–5. τ̂ = :func:`private_threshold` on D_τ with κ = η;
    6–7. ŵ₀ = :func:`private_initial_direction` on D_init;
    8. λ from :func:`step_size` (rule ``step_rule``);
    9–13. for t < T_r: φ_t, a_t, b_t from :func:`round_schedule`, then one
       :func:`dpsas_round` on the fresh block D_t with noise N(0, σ²(I − wwᵀ)),
       σ = :func:`dpsas_noise_sigma` (m₀, L, ε, δ);
    14. return (ŵ_{T_r}, τ̂).

    Parameters
    ----------
    X : array_like, shape (n, d); y : array_like of ±1, shape (n,)
    epsilon : float
        0 < ε < inf, or inf for the same algorithm without noise (not private).
    delta : float
        0 < δ < 1.
    eta : float
        η ∈ (0, 1/2), an upper bound on OPT.
    step_size_scale : float
        s ∈ (0, 8). Our demo default is s = 2 (the paper: Θ(log^{−3/2}(1/η))).
    n_rounds : None or int ≥ 1
        T_r; None gives :func:`default_n_rounds` (η, s).
    step_rule : {"reconstructed", "as_printed", "constant"}
        λ = e^{τ̂²/2}s (our reading, default; not proven to converge), e^{π²/2}s (printed), or s.
    rng : None, int or numpy.random.Generator
    w_star : None or array_like, shape (d,)
        A reference normal, *only* to record the angle θ_t = ∠(ŵ_t, w*) in the
        trace for plots; it does not influence the algorithm.
    debug_nonprivate_grad_norm : bool
        False (default): the trace holds only private quantities
        (:data:`PRIVATE_TRACE_KEYS`). True adds ``grad_norm``, the norms of the
        *noise-free* block gradients: a statistic of the raw data that is
        **not** covered by the privacy guarantee (for debugging only).

    Returns
    -------
    (w, tau, trace)
        ``w`` the unit normal ŵ_{T_r}; ``tau`` the threshold τ̂ of
        h(x) = sign(⟨w, x⟩ + τ̂); ``trace`` a dict with arrays ``phi``, ``a``,
        ``b`` (shape (T_r,)), ``w`` (shape (T_r + 1, d), ŵ₀..ŵ_{T_r}),
        ``angle_deg`` (T_r + 1 angles in degrees, only with ``w_star``), and
        scalars ``step_size``, ``sigma``, ``block_size``, ``n_rounds``,
        ``clip_norm``, ``kappa``, ``w0``; plus ``grad_norm`` (shape (T_r,),
        not private) only if ``debug_nonprivate_grad_norm`` is True.

    Privacy
    -------
    The output (ŵ, τ̂) and the default trace are together
    (ε, δ)-DP (Proposition 8.4; the paper's Prop. F.1, which states O(ε), O(δ)):
    each example lies in exactly one block, and each block is read by one
    mechanism only: D_τ by an ε-DP Laplace mechanism, D_init and each D_t by an
    (ε, δ)-DP Gaussian mechanism (adaptively chosen w_t is fine: it depends on
    other blocks only). Parallel composition over disjoint blocks gives (ε, δ).
    With ``debug_nonprivate_grad_norm=True`` the extra ``grad_norm`` is not private.

    Cost
    ----
    O(n·d) time; O(n) extra memory for the partition.

    Raises
    ------
    ValueError, TypeError
        For bad X/y, ε ≤ 0, δ ∉ (0, 1), η ∉ (0, 1/2), s ∉ (0, 8), T_r < 1, an
        unknown step rule, a bad w_star or rng, or n < T_r + 2 (no room for a block).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> y = np.where(X @ np.array([0.6, 0.8]) > 0.2, 1.0, -1.0)
    >>> w, tau, trace = dpsas(X=X, y=y, epsilon=1.0, delta=1e-5, eta=0.2, n_rounds=3, rng=0)
    >>> w.shape, trace["w"].shape, trace["block_size"]
    ((2,), (4, 2), 80)
    """
    n, d = X.shape
    if n_rounds is None:
        n_rounds = default_n_rounds(eta, step_size_scale)
    reference = None if w_star is None else check_unit_vector(w_star, "w_star", d)
    block = n // (n_rounds + 2)
    if block < 1:
        raise ValueError(f"X has {n} rows, too few for {n_rounds} rounds: DPSAS needs "
                         f"n >= n_rounds + 2 = {n_rounds + 2} (one fresh block per round)")
    s = step_size_scale
    clip_norm = 2.0 * math.sqrt(d)
    order = rng.permutation(n)[: (n_rounds + 2) * block].reshape(n_rounds + 2, block)
    X = clip_rows(X, clip_norm)  # line 3, once for every block
    kappa = eta
    tau = private_threshold(y[order[1]], epsilon, kappa, rng)
    w = private_initial_direction(X[order[0]], y[order[0]], clip_norm, epsilon, delta, rng)
    lam = step_size(step_rule, s, tau)
    sigma = dpsas_noise_sigma(block, clip_norm, epsilon, delta)
    phi, a, b = round_schedule(n_rounds, s, tau)
    path = np.empty((n_rounds + 1, d))
    path[0] = w
    grad_norm = np.empty(n_rounds)
    for t in range(n_rounds):
        rows = order[t + 2]
        w, gradient = dpsas_round_prechecked(w, X[rows], y[rows], a[t], b[t], lam, sigma, rng)
        path[t + 1] = w
        grad_norm[t] = np.linalg.norm(gradient)  # noise-free: kept only on explicit request, below
    trace = {"phi": phi, "a": a, "b": b, "w": path, "w0": path[0].copy(),
             "step_size": lam, "sigma": sigma, "block_size": block, "n_rounds": n_rounds,
             "clip_norm": clip_norm, "kappa": kappa}
    if debug_nonprivate_grad_norm:
        trace["grad_norm"] = grad_norm  # NOT private: a statistic of the raw blocks
    if reference is not None:
        trace["angle_deg"] = np.degrees(np.arccos(np.clip(path @ reference, -1.0, 1.0)))
    return w, tau, trace


@privacy_claim(theorem="prop-dpsas-privacy", epsilon="epsilon", delta="delta")
@validate_params({name: DPSAS_CONSTRAINTS[name] for name in ("X", "y", "epsilon", "delta", "eta", "step_size_scale",
                                                            "n_rounds", "rng", "w_star")},
                 relations=[SameLength("X", "y")])
def dpsas_sample_reuse(X, y, epsilon, delta, eta, step_size_scale=2.0, n_rounds=None, rng=None,
                       w_star=None):
    """DPSAS with sample reuse: a variant *outside the paper*, for the chapter's engineering discussion.

    The threshold τ̂ still reads its own block D_τ of ⌊n/(T_r + 2)⌋ examples.
    All other examples form one set D_rest that ŵ₀ and *every* round reuse.
    The T_r + 1 Gaussian releases on D_rest compose like one Gaussian
    mechanism of sensitivity (2L/|D_rest|)·√(T_r + 1), so each gets
    σ = ``gaussian_sigma((2L/|D_rest|)·√(T_r + 1), ε, δ)``: about √T_r times
    less noise than fresh blocks of size n/(T_r + 2). The price: the rounds are
    no longer independent, and the paper's accuracy analysis (which needs a
    fresh block per round) does not apply.

    Parameters, returns and errors as :func:`dpsas` (with ``step_rule="reconstructed"``).

    Privacy
    -------
    (ε, δ)-DP: D_τ (Laplace, ε-DP) and D_rest ((ε, δ)-DP by Gaussian-DP
    composition of the T_r + 1 releases) are disjoint. Cost O(n·d·T_r).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> y = np.where(X @ np.array([0.6, 0.8]) > 0.2, 1.0, -1.0)
    >>> w, tau, trace = dpsas_sample_reuse(X=X, y=y, epsilon=1.0, delta=1e-5, eta=0.2, n_rounds=3, rng=0)
    >>> w.shape, trace["block_size"]
    ((2,), 320)
    """
    s = step_size_scale
    if n_rounds is None:
        n_rounds = default_n_rounds(eta, s)
    n, d = X.shape
    reference = None if w_star is None else check_unit_vector(w_star, "w_star", d)
    block = n // (n_rounds + 2)
    if block < 1:
        raise ValueError(f"X has {n} rows, too few for n_rounds={n_rounds} rounds: "
                         f"need n >= n_rounds + 2 = {n_rounds + 2}")
    clip_norm = 2.0 * math.sqrt(d)
    order = rng.permutation(n)
    threshold_rows, rest = order[:block], order[block:]
    X_rest, y_rest = clip_rows(X[rest], clip_norm), y[rest]
    tau = private_threshold(y[threshold_rows], epsilon, eta, rng)
    w = private_initial_direction(X_rest, y_rest, clip_norm, epsilon, delta, rng, n_releases=n_rounds + 1)
    lam = step_size("reconstructed", s, tau)
    sigma = dpsas_noise_sigma(rest.size, clip_norm, epsilon, delta, n_releases=n_rounds + 1)
    phi, a, b = round_schedule(n_rounds, s, tau)
    path = [w]
    for t in range(n_rounds):
        w, _ = dpsas_round_prechecked(w, X_rest, y_rest, a[t], b[t], lam, sigma, rng)
        path.append(w)
    path = np.array(path)
    trace = {"phi": phi, "a": a, "b": b, "w": path, "step_size": lam, "sigma": sigma,
             "block_size": rest.size, "n_rounds": n_rounds, "clip_norm": clip_norm, "kappa": eta}
    if reference is not None:
        trace["angle_deg"] = np.degrees(np.arccos(np.clip(path @ reference, -1.0, 1.0)))
    return w, tau, trace


# --- Algorithm 8.9 (the paper's Algorithm 4): unknown OPT ----------------------------------------

def check_alpha(alpha, name="alpha"):
    """α ∈ (0, 1/3), so that the first grid value 1.5·α is below 1/2 (Proposition 8.8 needs η < 1/2)."""
    alpha = check_probability(alpha, name)
    if C_ETA * alpha >= 0.5:
        raise ValueError(f"{name} must lie in (0, 1/3) so that the first grid value 1.5·alpha is below "
                         f"1/2 (Proposition 8.8 needs eta < 1/2), got {alpha!r}")
    # the grid size log₂(0.25/(1.5α)) and every η of the grid must be normal doubles
    return check_normal_double(alpha, name, f"{sys.float_info.min!r} <= {name} < 1/3")


# Check: α < 1/3 is defined by C_ETA·α < 1/2 in floating point (the grid's first η), not by the literal 1/3.
#: α ∈ (0, 1/3) (the message says why).
ALPHA = Check(check_alpha, invalid=[(0, "0"), (0.4, "0.4"), ("1", "'1'"), (True, "True"), (None, "None"),
                                    (math.nan, "nan")], convert_nested=float)


@validate_params({"alpha": ALPHA})
def eta_grid(alpha):
    """The η grid of Algorithm 8.9: η_k = 2^{k−1}·1.5α for k = 1..K, K = 1 + ⌈log₂(0.25/(1.5α))⌉.

    The grid doubles until it passes 0.25, so every OPT ≤ 0.25 has a grid
    value with OPT ≤ η_k ≤ 2·OPT (or OPT < η₁), which is what the proof of
    Theorem 4.1 needs; every η_k is below 1/2, as Proposition 4.2 requires.
    (The paper: K = C_K log(1/α), η₁ = C_η α with C_η > 1; our constants.)

    Parameters
    ----------
    alpha : float
        α ∈ (0, 1/3).

    Returns
    -------
    ndarray, shape (K,), increasing.

    Raises
    ------
    ValueError, TypeError
        For α ∉ (0, 1/3).

    Examples
    --------
    >>> eta_grid(alpha=0.2)
    array([0.3])
    """
    first = C_ETA * alpha
    n_values = 1 + max(0, math.ceil(math.log2(ETA_MAX / first) - 1e-12))
    return first * 2.0 ** np.arange(n_values)


@validate_params({"alpha": OPEN_UNIT, "epsilon": EPSILON_OR_INF, "beta": OPEN_UNIT, "n_candidates": POSITIVE_INT})
def validation_size(alpha, epsilon, beta, n_candidates):
    """|D_val| from Lemma B.5 for selection slack α with probability 1 − β/2 (Algorithm 8.9 line 2).

    m = ⌈8 ln(8K/β)/α² + 4 ln(4K/β)/(εα)⌉: each of the two slack terms of
    Lemma B.5, 2√(ln(4K/η)/(2m)) and 2 ln(2K/η)/(εm) with failure η = β/2,
    is then ≤ α/2. This is the paper's O(log(K/β)/α² + log(K/β)/(αε)) with our
    constants. At α = 0.02, K = 5, β = 0.1, ε = 1 it is about 1.2·10⁵, so the
    learner uses min(this, 20 % of n) by default and says so.

    Parameters
    ----------
    alpha : float, α ∈ (0, 1)
    epsilon : float, 0 < ε < inf, or inf (then only the first term)
    beta : float, β ∈ (0, 1)
    n_candidates : int, K ≥ 1

    Returns
    -------
    int

    Raises
    ------
    ValueError, TypeError
        For parameters out of range.

    Examples
    --------
    >>> validation_size(alpha=0.2, epsilon=1.0, beta=0.1, n_candidates=3)
    1192
    """
    try:
        size = 8 * math.log(8 * n_candidates / beta) / alpha ** 2
        if epsilon != math.inf:
            size += 4 * math.log(4 * n_candidates / beta) / (epsilon * alpha)
    except ZeroDivisionError:  # α² (or εα) underflowed to 0 at α = 1e-300: no finite validation set exists
        size = math.inf
    smallest_alpha = math.sqrt(8 * math.log(8 * n_candidates / beta) / sys.float_info.max)
    check_representable(size, "the validation set size 8 ln(8K/β)/α² + 4 ln(4K/β)/(εα)",
                        f"alpha >= {smallest_alpha:.2g}, with epsilon·alpha not too small", alpha=alpha,
                        epsilon=epsilon)
    return math.ceil(size)


def _select(correct_counts, epsilon, rng):
    """Line 9: Score = accuracy (sensitivity 1/|D_val|) in the exponential mechanism; arg-max if ε = inf.

    At ε = inf (the non-private reference) ties are broken uniformly at random, as in every other learner's
    selection (:func:`~dpteach.mechanisms.exponential_mechanism_on_errors`); without a tie nothing is drawn.
    """
    counts = np.asarray(correct_counts, dtype=float)
    if epsilon == math.inf:
        best = np.flatnonzero(counts == counts.max())
        return int(best[0]) if best.size == 1 else int(rng.choice(best))
    # exp(ε·accuracy/(2/|D_val|)) = exp(ε·#correct/2) ∝ exp(−ε·#errors/2), as #errors = |D_val| − #correct:
    # −#correct are the error counts up to the constant |D_val|, which the exponential mechanism ignores.
    return exponential_mechanism_on_errors(-counts, epsilon, rng)


def _predict(X, w, tau):
    return np.where(X @ w + tau >= 0, 1.0, -1.0)


@privacy_claim(theorem="thm-dpsas-learner", epsilon="epsilon", delta="delta")
class PrivateSemiAgnosticLearner(LinearClassifierMixin, Estimator):
    """DP semi-agnostic proper learner (chapter 8: Algorithm 8.9, Theorem 8.11; the paper's Algorithm 4, Theorem 4.1).

    ``fit`` splits the data (a data-independent random partition) into a
    validation part D_val and K equal parts D¹..D^K; runs :func:`dpsas` with
    η_k (from :func:`eta_grid`) on D^k; and selects one of the K halfspaces by
    the exponential mechanism with score = validation accuracy (raw, unclipped
    x), sensitivity 1/|D_val|.

    Parameters
    ----------
    alpha : float
        Target additive error α ∈ (0, 1/3).
    epsilon : float
        0 < ε < inf (inf: the non-private reference, argmax selection).
    delta : float
        0 < δ < 1.
    beta : float
        Failure probability β ∈ (0, 1), used for |D_val| (Lemma B.5).
    random_state : None, int or numpy.random.Generator
    classes : pair of labels, keyword-only
        (negative, positive), default (-1, 1): the labels of ``y`` and of ``predict``, mapped to the algorithm's
        ∓1. Public: ``classes_`` is this parameter, never read from the data (``np.unique(y)`` would release
        which labels occur). A label of ``y`` outside it is refused, by name.

    Attributes
    ----------
    coef_ : ndarray, shape (d,)
        The chosen unit normal ŵ.
    intercept_ : float
        The chosen τ̂; predictions are sign(⟨ŵ, x⟩ + τ̂) (ties +1).
    candidates_ : list of dict
        The K DPSAS outputs, each {"eta", "coef", "intercept"}; each is (ε, δ)-DP,
        so keeping them costs nothing. Their validation scores are *not* kept.
    chosen_index_ : int
        Index k of the selected candidate.
    eta_grid_ : ndarray, shape (K,)
    n_validation_ : int
        |D_val| used: min(:func:`validation_size`, 20 % of n).
    n_validation_theory_ : int
        The Lemma B.5 size (Theorem 4.1's), for comparison.
    part_size_ : int
        |D^k| = ⌊(n − |D_val|)/K⌋.
    privacy_ : PrivacyReceipt
        The guarantee and why.
    n_features_in_ : int

    Privacy
    -------
    (ε, δ)-DP: D_val and the parts D^k are disjoint; each DPSAS run is (ε, δ)-DP
    in its part, the selection is ε-DP in D_val (Lemma B.5), so parallel
    composition gives (ε, δ) overall (the paper states (O(ε), O(δ))).

    Cost
    ----
    O(n·d) time for fit (K runs on disjoint parts plus K validation passes); O(d) per prediction row.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> y = np.where(X @ np.array([0.6, 0.8]) > 0.2, 1.0, -1.0)
    >>> model = PrivateSemiAgnosticLearner(alpha=0.3, epsilon=1.0, delta=1e-5, random_state=0).fit(X, y)
    >>> model.coef_.shape, model.privacy_.epsilon
    ((2,), 1.0)
    """

    _parameter_constraints = {"alpha": ALPHA, "epsilon": EPSILON_OR_INF, "delta": DELTA, "beta": OPEN_UNIT,
                              "random_state": "random_state", "classes": BinaryClasses()}

    def __init__(self, alpha, epsilon, delta, beta=0.1, random_state=None, *, classes=(-1, 1)):
        self.alpha = alpha
        self.epsilon = epsilon
        self.delta = delta
        self.beta = beta
        self.random_state = random_state
        self.classes = classes

    @fit_context({"X": Array(ndim=2), "y": ClassLabels()}, relations=[SameLength("X", "y")])
    def fit(self, X, y):
        """Run Algorithm 8.9 on (X, y); returns self.

        Raises
        ------
        ValueError, TypeError
            For bad X/y, hyper-parameters out of range, or n too small to give
            every DPSAS run one example per block (the message gives the n needed).
        """
        y = self._fit_labels(y)  # the labels of the public classes as ±1 (never read from y)
        alpha, epsilon, delta, beta = float(self.alpha), float(self.epsilon), float(self.delta), float(self.beta)
        rng = np.random.default_rng(self.random_state)
        n, d = X.shape
        grid = eta_grid(alpha)
        n_parts = grid.size
        theory = validation_size(alpha, epsilon, beta, n_parts)
        n_val = max(1, min(theory, int(VALIDATION_FRACTION * n)))
        part = (n - n_val) // n_parts
        rounds = [default_n_rounds(eta, 2.0) for eta in grid]
        if part < max(rounds) + 2:
            needed = n_parts * (max(rounds) + 2) + n_val
            raise ValueError(f"X has n_samples = {n} rows; Algorithm 8.9 with alpha={alpha!r} runs {n_parts} DPSAS "
                             f"parts of up to {max(rounds)} rounds and needs at least n >= {needed}")
        order = rng.permutation(n)
        validation = order[:n_val]
        candidates = []
        for k, eta in enumerate(grid):
            rows = order[n_val + k * part: n_val + (k + 1) * part]
            w, tau, _ = dpsas(X[rows], y[rows], epsilon, delta, float(eta), 2.0, rounds[k], "reconstructed", rng)
            candidates.append({"eta": float(eta), "coef": w, "intercept": tau})
        X_val, y_val = X[validation], y[validation]
        correct = [np.sum(_predict(X_val, c["coef"], c["intercept"]) == y_val) for c in candidates]
        self.chosen_index_ = _select(correct, epsilon, rng)
        chosen = candidates[self.chosen_index_]
        self.coef_, self.intercept_ = chosen["coef"].copy(), float(chosen["intercept"])
        self.candidates_ = candidates
        self.eta_grid_ = grid
        self.n_validation_, self.n_validation_theory_, self.part_size_ = n_val, theory, part
        self.privacy_ = PrivacyReceipt(
            steps=[*(PrivacyStep(f"DPSAS run {k + 1} (Algorithm 8.3, eta = {eta:.4g}, {rounds[k]} rounds)",
                                 f"{part} examples of part {k + 1}", epsilon, delta, "prop-dpsas-privacy")
                     for k, eta in enumerate(grid)),
                   PrivacyStep(f"exponential mechanism over the K = {n_parts} candidates (accuracy, sensitivity 1/m)",
                               f"{n_val} validation examples", epsilon, 0.0, "thm-exponential-mechanism-privacy")],
            composition=parallel_composition, theorem="thm-dpsas-learner",
            why="disjoint parts: K DPSAS runs, each (epsilon, delta)-DP, and the epsilon-DP exponential "
                "mechanism on the validation part")
        self.n_features_in_ = d
        return self
