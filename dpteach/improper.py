"""Chapter 6: private L1 polynomial regression, the improper learner of Algorithm 6.10 (the paper's Algorithm 1).

Split the sample into k disjoint blocks and a validation set; on each block
minimise the clipped L1 loss over the unit ball of Hermite coefficients with
(ε, δ)-DP (Algorithm 6.7, ``dpteach.dp_erm``); threshold each of the k
polynomials at M grid points; pick one of the k·M classifiers with the
exponential mechanism on the validation set. Privacy: parallel composition
over disjoint blocks, post-processing, and the exponential mechanism.

The theorem's constants (p = ⌈C/α²⌉, a block size from Eq. (16), …) are
astronomically large at notebook scale, so the learner's defaults are
practical choices; ``parameters_`` records both.
"""

from __future__ import annotations

import math

import numpy as np

from . import dp_erm
from ._constraints import (Delta, Epsilon, Integral, FiniteInterval, OPEN_UNIT, OrNone, POSITIVE, POSITIVE_INT,
                           fit_context, validate_params, SameLength)
from ._array_constraints import Array, Labels
from ._scales import NORMAL_SCALE_OR_NONE
from ._estimator import BinaryClasses, ClassLabels, Estimator
from .privacy import PrivacyReceipt, PrivacyStep, privacy_claim
from .bounds.improper import algorithm_6_7_sizes
from ._validation import check_memory, check_representable
from ._progress import progress
from .feature_scaling import MAX_FEATURE_BYTES, check_feature_matrix, feature_dimension_or_refuse
from .hermite import clip_features_prechecked, hermite_features_unchecked, clip_features, clip_radius as _hermite_clip_radius
from .dpsas import validation_size
from .hermite import feature_dimension
from .composition import parallel_composition
from .mechanisms import exponential_mechanism_on_errors

__all__ = [
    "threshold_grid",
    "threshold_error_counts",
    "select_hypothesis",
    "theorem_parameters",
    "practical_parameters",
    "practical_degree",
    "PrivateHermiteL1Learner",
]

# The constant c ∈ (0, 1/4] of the analysis: every error term is ≤ cα, four of them add up to α.
C_SMALL = 0.25


@validate_params({"n_thresholds": POSITIVE_INT})
def threshold_grid(n_thresholds):
    """The M thresholds t_ℓ = −1 + (2ℓ − 1)/M, ℓ = 1..M: midpoints of M equal cells of [−1, 1] (step 4).

    Replacing τ ~ U[−1, 1] in random thresholding (Lemma 6.8) by the uniform
    average over these midpoints costs at most 1/(2M) (our reading of the
    paper's garbled sentence; see the chapter).

    Parameters
    ----------
    n_thresholds : int ≥ 1

    Returns
    -------
    numpy.ndarray, shape (M,). Cost O(M).

    Raises
    ------
    TypeError, ValueError
        For a non-integer or M < 1.

    Examples
    --------
    >>> threshold_grid(n_thresholds=5)
    array([-0.8, -0.4,  0. ,  0.4,  0.8])
    """
    M = n_thresholds
    check_memory(("n_thresholds", M), itemsize=16)  # the index range and the grid, M floats each
    return -1.0 + (2.0 * np.arange(1, M + 1) - 1.0) / M


def _error_counts(z, y, thresholds):
    # h(x) = sign(z − t) with sign(0) = +1: predicts +1 iff z ≥ t.
    predicts_positive = z[:, None] >= thresholds[None, :]
    return np.sum(predicts_positive != (y[:, None] > 0), axis=0)


@validate_params({"scores": Array(ndim=1), "y": Labels(), "thresholds": Array(ndim=1)},
                 relations=[SameLength("scores", "y")])
def threshold_error_counts(scores, y, thresholds):
    """Number of validation errors of sign(z_i − t_ℓ) for every threshold t_ℓ. Not private on its own.

    These are the scores of the exponential mechanism (with a minus sign);
    each count changes by at most 1 when one example is replaced.

    Parameters
    ----------
    scores : array_like, shape (m,), finite
        z_i = ⟨v̂, ψ̄(x_i)⟩ on the validation set.
    y : array_like, shape (m,), labels ±1
    thresholds : array_like, shape (M,), finite

    Returns
    -------
    numpy.ndarray of int, shape (M,). Cost O(m·M).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf, mismatched lengths or labels ∉ {±1}.

    Examples
    --------
    >>> scores = np.linspace(0.05, 0.95, 8)
    >>> y = np.array([1.0, -1.0] * 4)
    >>> threshold_error_counts(scores, y, thresholds=np.array([0.2, 0.5])).tolist()
    [4, 4]
    """
    return _error_counts(scores, y, thresholds)


# rng and size go on to exponential_mechanism_on_errors, which skips its checks here: every parameter is declared.
@privacy_claim(theorem="thm-exponential-mechanism-privacy", epsilon="epsilon", delta=0.0)
@validate_params({"error_counts": Array(), "epsilon": Epsilon(), "rng": "random_state", "size": OrNone(POSITIVE_INT)})
def select_hypothesis(error_counts, epsilon, rng=None, size=None):
    """Step 5: sample a candidate with probability ∝ exp(−ε·errors/2) (the exponential mechanism).

    The score of a candidate is minus its number of validation errors, which
    has sensitivity 1 under replace-one; ``dpteach.mechanisms.exponential_mechanism_on_errors``
    samples in log space (Gumbel-max). ε-DP with respect to the validation set.

    Parameters
    ----------
    error_counts : array_like, any shape, finite, ≥ 0
        Error counts of the k·M candidates (e.g. shape (k, M)).
    epsilon : float > 0
    rng : seed or Generator
    size : None or int ≥ 1
        None returns one flat index; an int that many (for tests of the law).

    Returns
    -------
    int or numpy.ndarray of int
        Flat index (row-major) into ``error_counts``. Cost O(size·k·M).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf or negative counts, an empty array, ε ≤ 0, a bad rng.

    Examples
    --------
    >>> select_hypothesis(error_counts=np.array([3, 1, 2]), epsilon=1.0, rng=0)
    2
    """
    counts = error_counts
    if np.any(counts < 0):
        raise ValueError("error_counts must be >= 0 (numbers of validation errors), "
                         f"found {counts[counts < 0].ravel()[0]!r}")
    return exponential_mechanism_on_errors(counts.ravel(), epsilon, rng=rng, size=size)


@validate_params({"d": POSITIVE_INT, "alpha": OPEN_UNIT, "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "beta": OPEN_UNIT, "constant": OrNone(POSITIVE)})
def theorem_parameters(d, alpha, epsilon, delta, beta=0.1, constant=None):
    """The parameters Theorem 6.12 (the paper's Theorem 2.1) prescribes, with explicit constants.

    c = 1/4. The paper's universal constant C is unknown; by default we take
    C = 1/(2c) = 2, the smallest value the threshold grid allows
    (M = ⌈C/α⌉ ≥ 1/(2cα)), for p = ⌈C/α²⌉ and M. It is *not* an admissible
    constant for Lemma 6.3, which needs accuracy cα at degree p: at α = 0.1,
    p = 200 misses cα = 0.025 about threefold, and the degree Lemma 6.3 asks for
    is roughly ten times larger (chapter 6 computes it). So the default values
    understate the theorem's. The block size n₀ and iteration count K are those that make
    each of the three error terms of Algorithm 6.7's bound ≤ cα/3
    (2√(D/n₀), 2D√(2/ρ)/n₀ and 2√(D/K);
    :func:`dpteach.bounds.algorithm_6_7_sizes`), and m inverts Lemma 6.9. All of this
    is our reconstruction of Eqs. (15)–(17); the point is the order of magnitude.

    Parameters
    ----------
    d : int ≥ 1
    alpha, beta : float in (0, 1)
    epsilon : float > 0
    delta : float in (0, 1)
    constant : float > 0, optional
        C (default 1/(2c) = 2, the threshold grid's minimum, below Lemma 6.3's constant).

    Returns
    -------
    dict with keys degree, n_features, clip_radius, n_blocks, n_thresholds,
    block_size, validation_size, n_iterations, n_samples (floats may be huge). Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For any argument out of range.

    Examples
    --------
    >>> params = theorem_parameters(d=2, alpha=0.1, epsilon=1.0, delta=1e-5)
    >>> params["degree"], params["n_features"], params["n_blocks"], params["n_thresholds"]
    (200, 20301, 5, 20)
    """
    constant = 1.0 / (2 * C_SMALL) if constant is None else constant
    degree = math.ceil(check_representable(_or_inf(lambda: constant / alpha ** 2), "the degree C/α²",
                                           "alpha >= 1e-150", alpha=alpha))
    D = feature_dimension(d, degree)
    T = _or_inf(lambda: 2 * math.sqrt(D))  # inf once D is beyond the largest float (α ≲ 1e-100)
    rho = dp_erm.zcdp_rho(epsilon, delta)
    check_representable(_or_inf(lambda: 1 / rho), "1/ρ, the zCDP noise scale", "epsilon >= 1e-150", epsilon=epsilon)
    k = math.ceil(math.log2(2 / beta))
    M = math.ceil(constant / alpha)
    # n₀ = max(36D/(cα)², 6D√(2/ρ)/(cα)) and K = 36D/(cα)²: Algorithm 6.7's terms at R = 1, T = 2√D.
    sizes = algorithm_6_7_sizes(_or_inf(lambda: float(D)), T, 1.0, C_SMALL * alpha, rho)
    # D = C(d + p, p) grows with d as well as with 1/α: d = 10¹⁸ overflows n₀ at any α, so d is named too.
    n0 = check_representable(sizes["block_size"], "the block size n₀",
                             "d, alpha and epsilon with 36·D/(cα)² and 6·D·√(2/ρ)/(cα) below 1.8e308",
                             d=d, alpha=alpha, epsilon=epsilon)
    # m inverts Lemma 6.9 (the paper's Lemma B.5) with slack cα over the K = kM candidates.
    m = validation_size(C_SMALL * alpha, epsilon, beta, k * M)
    return {"degree": degree, "n_features": D, "clip_radius": T, "n_blocks": k,
            "n_thresholds": M, "block_size": n0, "validation_size": m,
            "n_iterations": sizes["n_iterations"], "n_samples": k * n0 + m}


def _or_inf(compute):
    """``compute()``, or inf where a positive quantity overflows or divides by an underflowed zero (α = 1e-300)."""
    try:
        return compute()
    except (OverflowError, ZeroDivisionError):
        return math.inf


# The threshold grid M = ⌈2/α⌉ is allocated and scanned per block: α = 1e-300 would ask for 2e300 points.
MAX_THRESHOLDS = 10 ** 7


@validate_params({"alpha": OPEN_UNIT})
def practical_degree(alpha):
    """p = min(5, max(1, ⌈0.3/α⌉)): the degree :class:`PrivateHermiteL1Learner` uses by default (our choice).

    The theorem's ⌈C/α²⌉ is in the hundreds at notebook scale; this keeps D_p = C(d + p, p) small.

    Parameters
    ----------
    alpha : float in (0, 1)

    Returns
    -------
    int in [1, 5]. Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For α ∉ (0, 1).

    Examples
    --------
    >>> practical_degree(alpha=0.1)
    3
    """
    return max(1, math.ceil(min(0.3 / alpha, 5.0)))  # = min(5, ⌈0.3/α⌉); 0.3/α is inf for a subnormal α


#: Work K·n₀·D (multiply-adds of the DP-ERM iterations) above which ``fit`` shows a progress bar
#: (about a few seconds on one core); ``TQDM_DISABLE=1`` turns every bar off.
_PROGRESS_WORK = 3 * 10 ** 9


def _check_fit_size(d, degree, params, degree_given):
    """Refuse, before any feature is computed, a block or validation feature matrix above MAX_FEATURE_BYTES.

    The message names ``degree`` (or the data size when the degree was the default)
    and what would fit. D itself is limited by feature_scaling.MAX_FEATURE_DIMENSION.
    """
    D = feature_dimension_or_refuse(d, degree)
    rows = max(params["block_size"], params["validation_size"])
    if 8 * rows * D <= MAX_FEATURE_BYTES:
        return
    largest = degree - 1
    while largest >= 1 and 8 * rows * feature_dimension(d, largest) > MAX_FEATURE_BYTES:
        largest -= 1
    name = "degree" if degree_given else "X"
    check_feature_matrix(rows, D, name, f"the clipped feature matrix of one block (degree {degree}, d = {d}; "
                                        f"degree <= {largest} fits with these rows)")


@validate_params({"n": FiniteInterval(Integral, 4, None, closed="left"), "d": POSITIVE_INT, "alpha": OPEN_UNIT,
                  "epsilon": Epsilon(), "delta": Delta(allow_zero=False), "beta": OPEN_UNIT,
                  "degree": OrNone(POSITIVE_INT), "clip_radius": NORMAL_SCALE_OR_NONE, "n_blocks": OrNone(POSITIVE_INT),
                  "n_thresholds": OrNone(POSITIVE_INT), "n_iterations": OrNone(POSITIVE_INT)})
def practical_parameters(n, d, alpha, epsilon, delta, beta=0.1, degree=None, clip_radius=None, n_blocks=None,
                         n_thresholds=None, n_iterations=None):
    """The defaults :class:`PrivateHermiteL1Learner` uses at notebook scale (our choices, not the paper's).

    - p = min(5, max(1, ⌈0.3/α⌉)) (the theorem's ⌈C/α²⌉ is in the hundreds);
    - T = 2√D_p (the paper's Section 2);
    - k = ⌈log₂(2/β)⌉ (as the theorem);
    - M = ⌈2/α⌉, the smallest grid with 1/(2M) ≤ cα, c = 1/4 (as the theorem);
    - m = ⌊n/5⌋ validation examples, the rest split into k equal blocks;
    - K = clip(⌈n₀²ε²/(8 D log(1/δ))⌉, 100, 2000) iterations.

    Parameters
    ----------
    n : int ≥ 4
    d : int ≥ 1
    alpha, beta : float in (0, 1)
    epsilon : float > 0
    delta : float in (0, 1)
    degree, n_blocks, n_thresholds, n_iterations : int ≥ 1, optional (override)
    clip_radius : float, 1e-150 <= T <= 1e150, optional (override)

    Returns
    -------
    dict with keys degree, n_features, clip_radius, n_blocks, n_thresholds,
    block_size, validation_size, n_iterations. Cost O(1).

    Raises
    ------
    TypeError, ValueError
        For any argument out of range, or n too small for the blocks.

    Examples
    --------
    >>> params = practical_parameters(n=200, d=2, alpha=0.2, epsilon=1.0, delta=1e-5)
    >>> params["degree"], params["n_blocks"], params["block_size"], params["validation_size"], params["n_iterations"]
    (2, 5, 32, 40, 100)
    """
    p = practical_degree(alpha) if degree is None else degree
    D = feature_dimension(d, p)
    # The grid check comes first: at a tiny α the radius below would be asked of c·α = 0 (an internal name).
    if n_thresholds is None and _or_inf(lambda: 1 / (2 * C_SMALL * alpha)) > MAX_THRESHOLDS:
        raise ValueError(f"alpha = {alpha!r} needs a threshold grid of M = ⌈2/α⌉ = {2 / alpha:.3g} points, more "
                         f"than MAX_THRESHOLDS = {MAX_THRESHOLDS:,}; valid range: alpha >= {2 / MAX_THRESHOLDS:g} "
                         f"(or pass n_thresholds)")
    T = _hermite_clip_radius(d, p, C_SMALL * alpha, "2sqrtD") if clip_radius is None else clip_radius
    k = math.ceil(math.log2(2 / beta)) if n_blocks is None else n_blocks
    M = math.ceil(1 / (2 * C_SMALL * alpha)) if n_thresholds is None else n_thresholds
    m = max(1, n // 5)
    n0 = (n - m) // k
    if n0 < 2:
        raise ValueError(f"n = {n} examples are too few for n_blocks = {k} blocks of at least 2 examples "
                         f"plus a validation set; need n >= {2 * k + 2}")
    if n_iterations is None:
        # K ≈ n₀²ε²/(8D log(1/δ)) balances the two terms of the utility bound (Algorithm 6.7).
        # At ε ≈ 1e300 the ratio overflows: the cap of 2000 is then exactly the answer.
        n_iterations = min(2000, max(100, math.ceil(min(
            _or_inf(lambda: n0 ** 2 * epsilon ** 2 / (8 * D * math.log(1 / delta))), 2000))))
    return {"degree": p, "n_features": D, "clip_radius": T, "n_blocks": k, "n_thresholds": M,
            "block_size": n0, "validation_size": m, "n_iterations": n_iterations}


@privacy_claim(theorem="thm-l1-privacy", epsilon="epsilon", delta="delta")
class PrivateHermiteL1Learner(Estimator):
    """Algorithm 6.10 (the paper's Algorithm 1): (ε, δ)-DP improper learner of halfspaces, Gaussian marginal.

    Parameters
    ----------
    alpha : float in (0, 1)
        Target excess error α (sets the defaults of p and M).
    epsilon : float > 0
    delta : float in (0, 1)
    beta : float in (0, 1)
        Failure probability (sets k = ⌈log₂(2/β)⌉).
    degree : int ≥ 1, optional
        Hermite degree p (default: :func:`practical_parameters`).
    clip_radius : float, 1e-150 <= T <= 1e150, optional
        T (default 2√D_p). Must not depend on the data.
    n_blocks, n_thresholds, n_iterations : int ≥ 1, optional
        k, M, K (defaults: :func:`practical_parameters`).
    random_state : seed or Generator, optional
    classes : pair of labels, keyword-only
        (negative, positive), default (-1, 1): the labels of ``y`` and of ``predict``, mapped to the algorithm's
        ∓1. Public: ``classes_`` is this parameter, never read from the data (``np.unique(y)`` would release
        which labels occur). A label of ``y`` outside it is refused, by name.

    Attributes (after fit)
    ----------------------
    coef_ : (D,) the selected polynomial's coefficients v̂_ĵ (‖·‖ ≤ 1)
    threshold_ : the selected threshold t_ℓ̂
    candidate_coefs_ : (k, D) the k private regression outputs
    selected_ : (ĵ, ℓ̂)
    n_features_in_ : d
    privacy_ : PrivacyReceipt — the guarantee, and in ``steps`` what each step spends, on which rows
    parameters_ : dict — p, D, T, k, M, n₀, m, K and σ used, and ``theorem``: the theorem's values

    Privacy: (ε, δ)-DP. Every block feeds one (ε, δ)-DP run of Algorithm 6.7
    and the blocks are disjoint (parallel composition); thresholds are
    post-processing; the selection is ε-DP on the disjoint validation rows.
    The split is a data-independent random permutation. Every finite record
    is accepted: its clipped features have norm ≤ T even when its raw
    features overflow double precision (computed in scaled arithmetic,
    :func:`dpteach.hermite.clipped_hermite_features`), so no record can make
    ``fit`` fail or return NaN. Cost O(n·D + k·K·n₀·D + k·m·M); a block's
    feature matrix above ``feature_scaling.MAX_FEATURE_BYTES`` is refused
    before it is built, and long fits show a progress bar.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> y = np.where(X[:, 0] > 0.3, 1.0, -1.0)
    >>> model = PrivateHermiteL1Learner(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2, n_iterations=5,
    ...                                 random_state=0).fit(X, y)
    >>> model.coef_.shape, model.selected_, model.privacy_.delta
    ((6,), (4, 5), 1e-05)
    """

    _parameter_constraints = {
        "alpha": OPEN_UNIT, "epsilon": Epsilon(), "delta": Delta(allow_zero=False), "beta": OPEN_UNIT,
        "degree": OrNone(POSITIVE_INT), "clip_radius": NORMAL_SCALE_OR_NONE, "n_blocks": OrNone(POSITIVE_INT),
        "n_thresholds": OrNone(POSITIVE_INT), "n_iterations": OrNone(POSITIVE_INT), "random_state": "random_state",
        "classes": BinaryClasses(),
    }
    _fitted_attribute = "coef_"
    _radius = 1.0
    _privacy_theorem = "thm-l1-privacy"  # the box label of the class's privacy_claim

    def __init__(self, alpha, epsilon, delta, beta=0.1, degree=None, clip_radius=None, n_blocks=None,
                 n_thresholds=None, n_iterations=None, random_state=None, *, classes=(-1, 1)):
        self.alpha = alpha
        self.epsilon = epsilon
        self.delta = delta
        self.beta = beta
        self.degree = degree
        self.clip_radius = clip_radius
        self.n_blocks = n_blocks
        self.n_thresholds = n_thresholds
        self.n_iterations = n_iterations
        self.random_state = random_state
        self.classes = classes

    # Subclasses (the log-concave learner) change the basis and the default radius.
    def _clipped_feature_map(self, X, radius):
        """ψ̄_{p,T}(X): finite with rows of norm ≤ T for every finite record (hermite.clipped_hermite_features)."""
        return clip_features_prechecked(X, self.degree_, radius)

    def _default_clip_radius(self, d, degree, alpha):
        return None

    def _coefficient_radius(self):
        return self._radius

    def _theorem(self, d, alpha, epsilon, delta, beta):
        return theorem_parameters(d, alpha, epsilon, delta, beta)

    @fit_context({"X": Array(ndim=2), "y": ClassLabels()}, relations=[SameLength("X", "y")])
    def fit(self, X, y):
        """Run Algorithm 6.10 on (X, y) and return self.

        The hyperparameters are checked by ``_parameter_constraints`` at the top of ``fit``; read here as given.

        Raises
        ------
        TypeError, ValueError
            For α or β ∉ (0, 1), ε ≤ 0, δ ∉ (0, 1), degree < 1, labels ∉ classes,
            NaN/inf, mismatched lengths, or too few examples for the blocks; for a
            block feature matrix above ``feature_scaling.MAX_FEATURE_BYTES`` (before it is built).
        """
        alpha, epsilon, delta, beta = (float(v) for v in (self.alpha, self.epsilon, self.delta, self.beta))
        y = self._fit_labels(y)  # the labels of the public classes as ±1 (never read from y)
        n, d = X.shape
        degree = None if self.degree is None else int(self.degree)
        radius = None if self.clip_radius is None else float(self.clip_radius)
        if radius is None and degree is not None:
            radius = self._default_clip_radius(d, degree, alpha)
        n_blocks, n_thresholds, n_iterations = (None if v is None else int(v)
                                                for v in (self.n_blocks, self.n_thresholds, self.n_iterations))
        rng = np.random.default_rng(self.random_state)
        if n < 4:
            raise ValueError(f"X must have at least 4 examples (blocks plus a validation set), got n_samples = {n}")
        params = practical_parameters(n, d, alpha, epsilon, delta, beta, degree, radius, n_blocks, n_thresholds,
                                      n_iterations)
        if radius is None and degree is None:
            own = self._default_clip_radius(d, params["degree"], alpha)
            params["clip_radius"] = params["clip_radius"] if own is None else own
        self.degree_ = p = params["degree"]
        _check_fit_size(d, p, params, degree_given=self.degree is not None)
        T, k, M, n0, m, K = (params[key] for key in ("clip_radius", "n_blocks", "n_thresholds", "block_size",
                                                      "validation_size", "n_iterations"))
        R = self._coefficient_radius()

        # Step 2: a data-independent partition into k blocks of n₀ and a validation set of m.
        order = rng.permutation(n)
        blocks = [order[j * n0:(j + 1) * n0] for j in range(k)]
        validation = order[n - m:]

        # Step 3: one (ε, δ)-DP regression per block (Algorithm 6.7), on clipped features.
        coefs = np.empty((k, params["n_features"]))
        slow = K * n0 * params["n_features"] > _PROGRESS_WORK  # a bar for fits of more than a few seconds
        dp_erm.check_descent_work(K, n0, params["n_features"])  # once: every block has n₀ rows of D features
        for j, rows in enumerate(progress(blocks, "DP-ERM blocks", enabled=None if slow else False)):
            F = self._clipped_feature_map(X[rows], T)
            coefs[j], sigma = dp_erm.noisy_projected_subgradient_descent_prechecked(F, y[rows], T, R, epsilon, delta,
                                                                                    K, rng)

        # Steps 4–5: the threshold grid, then the exponential mechanism on the validation errors.
        thresholds = threshold_grid(M)
        F_val = self._clipped_feature_map(X[validation], T)
        z = F_val @ coefs.T                                   # (m, k)
        counts = np.stack([_error_counts(z[:, j], y[validation], thresholds) for j in range(k)])
        index = select_hypothesis(counts, epsilon, rng=rng)
        j_hat, l_hat = divmod(int(index), M)

        self.coef_ = coefs[j_hat].copy()
        self.threshold_ = float(thresholds[l_hat])
        self.candidate_coefs_ = coefs
        self.selected_ = (j_hat, l_hat)
        self.clip_radius_ = T
        self.n_features_in_ = d
        self.parameters_ = dict(params, sigma=sigma, coefficient_radius=R,
                                theorem=self._theorem(d, alpha, epsilon, delta, beta))
        # The threshold grid reads no data (post-processing of the k coefficient vectors): it is no step.
        self.privacy_ = PrivacyReceipt(
            steps=[*(PrivacyStep(f"DP-ERM on block {j + 1} (Algorithm 6.7, {K} Gaussian steps, sigma = {sigma:.4g})",
                                 f"{n0} examples of block {j + 1}", epsilon, delta, "zcdp") for j in range(k)),
                   PrivacyStep(f"exponential mechanism over {k * M} classifiers (sensitivity 1)",
                               f"{m} validation examples", epsilon, 0.0, "thm-exponential-mechanism-privacy")],
            composition=parallel_composition, theorem=self._privacy_theorem,
            why="every example is in exactly one of the k blocks or the validation set")
        return self

    def _scores(self, X):
        check_feature_matrix(X.shape[0], self.coef_.size)
        return self._clipped_feature_map(X, self.clip_radius_) @ self.coef_

    def decision_function(self, X):
        """⟨v̂, ψ̄_{p,T}(x)⟩ − t̂ for each row (the same clipped map as in fit; T is public). Cost O(n·D)."""
        X = self._check_predict_input(X)
        return self._scores(X) - self.threshold_

    def predict(self, X):
        """sign(⟨v̂, ψ̄_{p,T}(x)⟩ − t̂), ties +1, as a label of ``classes_``. Cost O(n·D)."""
        X = self._check_predict_input(X)
        return self._labels(np.where(self._scores(X) - self.threshold_ >= 0, 1.0, -1.0))


class _PrivateHermiteL1LearnerOverflowBroken(PrivateHermiteL1Learner):
    """BROKEN on purpose (P2, for the extreme-record audit): the old "features, then clip_features" order.

    A record whose Hermite features overflow makes ``clip_features`` raise
    "F must contain only finite values" after the data were read, so whether
    ``fit`` raises reveals that one record. Everything else is the learner's.
    """

    def _clipped_feature_map(self, X, radius):
        with np.errstate(over="ignore", invalid="ignore"):
            return clip_features(hermite_features_unchecked(X, self.degree_), radius)[0]
