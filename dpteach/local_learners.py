"""Locally private learners in the scikit-learn style (chapter 3).

Each runs an SQ algorithm of :mod:`dpteach.sq_algorithms` through the SQ →
local simulation (:func:`dpteach.local.simulate_sq_locally`), so every user
reports once and the learner is ε-local.
"""

from __future__ import annotations

import math

import numpy as np

from ._constraints import (POSITIVE, POSITIVE_INT, Check, Count, Epsilon, Integral, FiniteInterval, Options,
                           fit_context, validate_params)
from ._array_constraints import Array, Callable
from ._estimator import BinaryClasses, ClassLabels, Estimator, linear_scores
from .privacy import PrivacyReceipt, PrivacyStep, privacy_claim
from ._validation import check_finite_array, check_sweep
from .group_sizes import RULE_CONSTRAINTS, UNIT, check_rule_randomizer, group_size
from .local import query_plan, query_plan_prechecked, simulate_sq_locally, users_needed, users_needed_prechecked
from .sq_algorithms import (records, sq_averaging_halfspace, sq_gd_logistic,
                            sq_threshold_binary_search, sq_threshold_grid)
from .composition import parallel_composition

__all__ = ["smallest_feasible_alpha", "masked_parity_users", "LocalThresholdLearner", "LocalHalfspaceLearner"]


# =============================================================================


@validate_params({"d": FiniteInterval(Integral, 1, 60, closed="both"), "epsilon": Epsilon(), "beta": UNIT,
                  "method": Options(("interactive", "bruteforce")), **RULE_CONSTRAINTS})
def masked_parity_users(d, epsilon, beta, method="interactive", rule="theorem", randomizer=None):
    """Users the masked-parity learners need under the SQ → local simulation (chapter 3, the cost figure of the masked-parity section).

    ``"interactive"``: d queries at τ = 1/(4d) and one at 1/4 (t = d + 1).
    ``"bruteforce"``: 2^d queries at τ = 1/5. Each query gets
    ``group_size(ε, τ, β/t, rule)`` users. Works for d up to 60 (t = 2^d is
    handled analytically). Returns a float (may exceed the int64 range in plots).

    Examples
    --------
    >>> masked_parity_users(d=2, epsilon=1.0, beta=0.05)
    101021.0
    """
    if method == "interactive":
        t = d + 1
        return float(d * group_size(epsilon, 1 / (4 * d), beta / t, rule, randomizer)
                     + group_size(epsilon, 0.25, beta / t, rule, randomizer))
    t = 2.0 ** d
    return float(t * group_size(epsilon, 0.2, beta / t, rule, randomizer))


def _check_alpha_range(alpha_range, name="alpha_range"):
    """(low, high) with 0 < low < high < 1, or an error naming ``alpha_range``."""
    values = check_sweep(alpha_range, name)
    if len(values) != 2 or not 0 < values[0] < values[1] < 1:
        raise ValueError(f"{name} must be a pair (low, high) with 0 < low < high < 1, got {alpha_range!r}")
    return values[0], values[1]


# The algorithm is only dry-run (against a recording oracle, by query_plan_prechecked) at the α this bisection
# picks inside the checked alpha_range, so the nested checks are skipped (84 plans per call).
@validate_params({"sq_algorithm": Callable("sq_algorithm(oracle, alpha=...)"),
                  "n_users": Count(), "epsilon": Epsilon(), "beta": UNIT, **RULE_CONSTRAINTS,
                  # Check: a pair (low, high) with 0 < low < high < 1: one routine's rule.
                  "alpha_range": Check(_check_alpha_range, invalid=[((0.5, 0.1), "(0.5, 0.1)"), ("a", "'a'")])})
def smallest_feasible_alpha(sq_algorithm, n_users, epsilon, beta, rule="theorem", randomizer=None,
                            alpha_range=(1e-3, 0.99)):
    """The smallest α in ``alpha_range`` for which ``sq_algorithm(oracle, alpha=α)`` fits in n users.

    Bisection on log α of users_needed(query_plan(sq_algorithm, alpha=α)),
    which decreases in α up to rounding (K = ⌈1/α⌉ steps); the result is
    checked to be feasible. Returns None if even ``alpha_range[1]`` needs more
    than ``n_users`` users.

    Examples
    --------
    >>> from dpteach.sq_algorithms import sq_threshold_binary_search
    >>> round(smallest_feasible_alpha(sq_threshold_binary_search, n_users=10 ** 6, epsilon=1.0, beta=0.05), 4)
    0.2174
    """
    low, high = alpha_range
    randomizer = check_rule_randomizer(rule, randomizer)

    def fits(alpha):  # the loop calls the bodies: its arguments were checked once, above
        plan = query_plan_prechecked(sq_algorithm, alpha=alpha)
        return users_needed_prechecked(plan, epsilon, beta, rule, randomizer) <= n_users

    if not fits(high):
        return None
    if fits(low):
        return low
    for _ in range(40):
        mid = math.sqrt(low * high)
        low, high = (low, mid) if fits(mid) else (mid, high)
    return high


def _local_receipt(run, epsilon, randomizer):
    """The receipt of a local learner's run: query j is answered once by each user of its own group, ε-locally."""
    return PrivacyReceipt(
        steps=[PrivacyStep(f"query {j + 1}: one {randomizer} report per user", f"group {j + 1} ({size} users)",
                           epsilon, 0.0, "thm-randomizers-private") for j, size in enumerate(run.group_sizes)],
        composition=parallel_composition, theorem="thm-sq-to-local",
        why="each user answers one query once, through an epsilon-local randomizer")


@privacy_claim(theorem="thm-sq-to-local", epsilon="epsilon", delta=0.0, model="local")
class LocalThresholdLearner(Estimator):
    """An ε-local learner of thresholds on [0, 1] via an SQ algorithm (chapter 3).

    ``fit`` picks the smallest accuracy α whose query plan fits in the n users
    (:func:`smallest_feasible_alpha`), then runs ``sq_threshold_binary_search``
    (method "binary_search", interactive, realizable data) or
    ``sq_threshold_grid`` (method "grid", non-interactive, agnostic) through
    :func:`simulate_sq_locally`. Every user reports once: ε-local.

    Parameters
    ----------
    epsilon : float, 0 < ε < inf
    method : {"binary_search", "grid"}
    beta : float in (0, 1)
    rule, randomizer : as in :func:`group_size`
    random_state : None, int or Generator
    classes : pair of labels, keyword-only
        (negative, positive), default (-1, 1): the labels of ``y`` and of ``predict``, mapped to the algorithm's
        ∓1. Public: ``classes_`` is this parameter, never read from the data (``np.unique(y)`` would release
        which labels occur). A label of ``y`` outside it is refused, by name.

    Attributes after fit: ``threshold_``, ``alpha_``, ``run_`` (:class:`LocalRun`), ``privacy_``
    (:class:`~dpteach.privacy.PrivacyReceipt`, ε-local: δ = 0).

    Examples
    --------
    >>> X = np.linspace(0, 1, 2000)
    >>> y = np.where(X > 0.37, 1.0, -1.0)
    >>> model = LocalThresholdLearner(epsilon=1.0, rule="clt", random_state=0).fit(X, y)
    >>> round(model.threshold_, 3), round(model.alpha_, 3), model.privacy_.epsilon
    (0.75, 0.851, 1.0)
    """

    _parameter_constraints = {"epsilon": Epsilon(), "method": Options(("binary_search", "grid")), "beta": UNIT,
                              **RULE_CONSTRAINTS, "random_state": "random_state", "classes": BinaryClasses()}

    def __init__(self, epsilon=1.0, method="binary_search", beta=0.05, rule="theorem",
                 randomizer="laplace", random_state=None, *, classes=(-1, 1)):
        self.epsilon = epsilon
        self.method = method
        self.beta = beta
        self.rule = rule
        self.randomizer = randomizer
        self.random_state = random_state
        self.classes = classes

    @fit_context({"X": Array(ndim=(1, 2)), "y": ClassLabels()})
    def fit(self, X, y):
        y = self._fit_labels(y)  # the labels of the public classes as ±1 (never read from y)
        epsilon, beta = float(self.epsilon), float(self.beta)
        rng = np.random.default_rng(self.random_state)
        Z = records(X, y)
        if Z.shape[1] != 2:
            raise ValueError(f"X must have one feature (thresholds on [0, 1]), got {Z.shape[1] - 1}")
        outside = (Z[:, 0] < 0) | (Z[:, 0] > 1)
        if np.any(outside):
            raise ValueError(f"X must lie in [0, 1] (thresholds on the unit interval), "
                             f"found {Z[outside, 0][0].item()!r}")
        algorithm = sq_threshold_binary_search if self.method == "binary_search" else sq_threshold_grid
        n = Z.shape[0]
        alpha = smallest_feasible_alpha(algorithm, n, epsilon, beta, self.rule, self.randomizer)
        if alpha is None:
            needed = users_needed(query_plan(algorithm, alpha=0.99), epsilon, beta, self.rule, self.randomizer)
            raise ValueError(f"X has n = {n} users; the {self.method} learner needs at least {needed} "
                             f"users at epsilon = {epsilon:g} (rule {self.rule!r})")
        self.alpha_ = alpha
        self.run_ = simulate_sq_locally(algorithm, Z, epsilon, beta, randomizer=self.randomizer,
                                        rule=self.rule, rng=rng, alpha=alpha)
        self.threshold_ = float(self.run_.output)
        self.n_features_in_ = 1
        self.privacy_ = _local_receipt(self.run_, epsilon, self.randomizer)
        return self

    def predict(self, X):
        """+1 iff x >= the learned threshold, as a label of ``classes_``. ``X`` of shape (n,) or (n, 1)."""
        self._check_fitted()
        x = check_finite_array(X, "X", ndim=(1, 2))
        if x.ndim == 2 and x.shape[1] != 1:
            raise ValueError(f"X must have 1 feature (column), as in fit, got {x.shape[1]}")
        return self._labels(np.where(x.reshape(-1) >= self.threshold_, 1, -1))


@privacy_claim(theorem="thm-sq-to-local", epsilon="epsilon", delta=0.0, model="local")
class LocalHalfspaceLearner(Estimator):
    """An ε-local learner of halfspaces sign⟨w, x⟩ via SQ averaging or SQ gradient descent (chapter 3).

    The n users are split into t equal disjoint groups, one per query
    (split="equal"), and the SQ algorithm runs through
    :func:`simulate_sq_locally`: ``method="averaging"`` is non-interactive
    (t = d, one round); ``method="gd"`` uses ``n_steps`` rounds (t = n_steps·d).
    ``tolerance_`` reports what each answer guarantees at failure β/t under
    the "theorem" rule (>= 1 means no guarantee, only an unbiased noisy answer).

    Parameters
    ----------
    epsilon : float
    method : {"gd", "averaging"}
    n_steps : int (gd)
    eta : float (gd step size)
    beta : float in (0, 1)
    randomizer : {"laplace", "onebit"}
    random_state : None, int or Generator
    classes : pair of labels, keyword-only
        (negative, positive), default (-1, 1): the labels of ``y`` and of ``predict``, mapped to the algorithm's
        ∓1. Public: ``classes_`` is this parameter, never read from the data (``np.unique(y)`` would release
        which labels occur). A label of ``y`` outside it is refused, by name.

    Examples
    --------
    >>> X = np.linspace(-1, 1, 400).reshape(200, 2)
    >>> y = np.array([1.0, -1.0] * 100)
    >>> model = LocalHalfspaceLearner(epsilon=1.0, n_steps=2, random_state=0).fit(X, y)
    >>> model.coef_.round(3), model.privacy_.epsilon
    (array([-3.468, -1.662]), 1.0)
    """

    _parameter_constraints = {"epsilon": Epsilon(), "method": Options(("gd", "averaging")), "n_steps": POSITIVE_INT,
                              "eta": POSITIVE, "beta": UNIT, "randomizer": RULE_CONSTRAINTS["randomizer"],
                              "random_state": "random_state", "classes": BinaryClasses()}

    def __init__(self, epsilon=1.0, method="gd", n_steps=20, eta=5.0, beta=0.05, randomizer="laplace",
                 random_state=None, *, classes=(-1, 1)):
        self.epsilon = epsilon
        self.method = method
        self.n_steps = n_steps
        self.eta = eta
        self.beta = beta
        self.randomizer = randomizer
        self.random_state = random_state
        self.classes = classes

    @fit_context({"X": Array(ndim=2), "y": ClassLabels()})
    def fit(self, X, y):
        y = self._fit_labels(y)  # the labels of the public classes as ±1 (never read from y)
        epsilon, beta = float(self.epsilon), float(self.beta)
        rng = np.random.default_rng(self.random_state)
        if np.any(np.abs(X) > 1):
            raise ValueError(f"X must lie in [-1, 1]^d (bounded queries), found {X[np.abs(X) > 1][0].item()!r}")
        Z = records(X, y)
        d = X.shape[1]
        if self.method == "gd":
            algorithm, kwargs = sq_gd_logistic, dict(d=d, tau=0.5, n_steps=self.n_steps, eta=self.eta)
        else:
            algorithm, kwargs = sq_averaging_halfspace, dict(d=d, tau=0.5)
        t = query_plan(algorithm, **kwargs).n_queries
        if Z.shape[0] < t:
            raise ValueError(f"X has n = {Z.shape[0]} users but the {self.method} learner asks t = {t} "
                             f"queries and needs at least one user per query")
        self.run_ = simulate_sq_locally(algorithm, Z, epsilon, beta, max_queries=t,
                                        randomizer=self.randomizer, split="equal",
                                        rng=rng, **kwargs)
        self.coef_ = np.asarray(self.run_.output, dtype=float)
        self.tolerance_ = float(self.run_.achieved_tolerances[0])
        self.n_features_in_ = d
        self.privacy_ = _local_receipt(self.run_, epsilon, self.randomizer)
        return self

    def predict(self, X):
        """sign⟨ŵ, x⟩ (ties +1), as a label of ``classes_``."""
        X = self._check_predict_input(X)
        with np.errstate(over="ignore", invalid="ignore"):
            margins = np.einsum("ij,j->i", X, self.coef_)
        wild = ~np.isfinite(margins)  # a huge row: inf − inf = NaN gave −1 whatever the true sign
        if wild.any():
            margins[wild] = linear_scores(X[wild], self.coef_)  # ±inf with the true margin's sign
        return self._labels(np.where(margins >= 0, 1, -1))
