"""Chapter 10's runner: the private learners on data nobody here made (issue 33).

The data are scikit-learn's bundled sets (no download): ``breast_cancer`` (malignant or benign),
``digits`` (3 against the rest), ``wine`` (class 0 against the rest) and ``diabetes`` (a regression).
Every learner sees the same split and the same rows (:func:`split_and_scale`) at the same (ε, δ);
diffprivlib's learners are pure ε-DP (δ = 0), so they are held to a stricter guarantee.

The learners (one key each):

* classification: ``"dpsgd"`` and ``"poisson_dpsgd"`` (dpteach's DP-SGD logistic regressions at their
  defaults, told ``data_norm = 1``); ``"improper"``, ``"proper"``, ``"semi_agnostic"`` (Algorithms 6.10,
  7.7 and 8.9 at the public settings of :data:`HALFSPACE_SETTINGS`, on the same rows times √d, a fixed
  public rescaling that gives every row the norm √d a standard Gaussian row has on average);
  ``"diffprivlib"`` (``LogisticRegression(data_norm=1)`` at its defaults); ``"sklearn"`` (non-private
  logistic regression); ``"majority"`` (the training split's majority label, a non-private reference);
* regression: ``"dp_gd"`` (:func:`dpteach.regression.dp_gradient_descent_ols`, T = 3, default K),
  ``"dp_lasso"`` (:class:`dpteach.regression.DPLasso`, ŝ = 4, T = 3, default calibration);
  ``"diffprivlib"`` (``LinearRegression`` with the public bounds of the scaled data); ``"sklearn"``
  (least squares); ``"zero"`` (the predictor 0, the mean of the standardised training targets).

Fit times are CPU seconds (``time.process_time``), so a busy machine changes them little; no time
limit decides what runs. scikit-learn and diffprivlib are imported inside the functions that use them.
"""

from __future__ import annotations

import time
import warnings
from numbers import Integral

import numpy as np

from .._constraints import Delta, FiniteInterval, Options, OrNone, POSITIVE_INT, SameLength, validate_params
from .._array_constraints import Array, Sequence
from .._validation import check_labels
from ..dp_logistic import DPSGDLogisticRegression
from ..dp_sgd_poisson import PoissonDPSGDLogisticRegression
from ..dpsas import PrivateSemiAgnosticLearner
from ..improper import PrivateHermiteL1Learner
from ..proper import PrivateProperLearner
from ..regression import DPLasso, dp_gradient_descent_ols
from ._progress import EPSILONS as _EPSILON_SWEEP, check_repetitions
from .._progress import progress

__all__ = ["DATASETS", "CLASSIFIERS", "REGRESSORS", "LABELS", "EPSILONS", "DELTA", "HALFSPACE_SETTINGS",
           "load_dataset", "split_and_scale", "run"]

#: name -> task. The classification labels are ±1 (the named class is +1).
DATASETS = {"breast_cancer": "classification", "digits_3": "classification", "wine_0": "classification",
            "diabetes": "regression"}
CLASSIFIERS = ("dpsgd", "poisson_dpsgd", "improper", "proper", "semi_agnostic", "diffprivlib", "sklearn", "majority")
REGRESSORS = ("dp_gd", "dp_lasso", "diffprivlib", "sklearn", "zero")
#: Table and legend labels (chapter numbers, no internal names).
LABELS = {"dpsgd": "DP-SGD (Algorithm 9.2), defaults", "poisson_dpsgd": "Poisson DP-SGD, defaults",
          "improper": "Algorithm 6.10 (improper)", "proper": "Algorithm 7.7 (proper)",
          "semi_agnostic": "Algorithm 8.9 (semi-agnostic)", "diffprivlib": "diffprivlib (pure ε-DP)",
          "sklearn": "scikit-learn (not private)", "majority": "majority label (not private)",
          "dp_gd": "noisy gradient descent (Algorithm 5.11)", "dp_lasso": "private LASSO (Algorithm 5.4)",
          "zero": "predict 0 (the training mean)"}
EPSILONS = (0.5, 1.0, 2.0)
DELTA = 1e-5
#: The halfspace learners' public settings (our choices, the same on every data set): degree 2, α = 0.1.
HALFSPACE_SETTINGS = {"improper": {"alpha": 0.1, "beta": 0.25, "degree": 2, "n_iterations": 100},
                      "proper": {"alpha": 0.1, "degree": 2},
                      "semi_agnostic": {"alpha": 0.1}}
#: Regression: targets and the residual truncation T live in [−3, 3]; DPLasso keeps ŝ = 4 of 10 coefficients.
TRUNCATION = 3.0
SPARSITY = 4

_SEED = FiniteInterval(Integral, 0, 2 ** 32 - 1, closed="both")


def _names(allowed):
    """A non-empty sequence (not a bare string) of names, each one of ``allowed``."""
    return Sequence("names", entry=Options(allowed), nonempty=True)


@validate_params({"name": Options(tuple(DATASETS))})
def load_dataset(name):
    """(X, y) of one of :data:`DATASETS`, from scikit-learn's bundled files (no download).

    Classification labels are ±1: +1 for breast_cancer's class 1 (benign), for the digit 3 and for wine's
    class 0; −1 for the rest. diabetes keeps its raw target (a disease progression score).

    Examples
    --------
    >>> X, y = load_dataset(name="wine_0")
    >>> X.shape, sorted(set(y.tolist()))
    ((178, 13), [-1.0, 1.0])
    """
    from sklearn import datasets

    if name == "diabetes":
        bunch = datasets.load_diabetes()
        return bunch.data, bunch.target.astype(float)
    loader, positive = {"breast_cancer": (datasets.load_breast_cancer, 1), "digits_3": (datasets.load_digits, 3),
                        "wine_0": (datasets.load_wine, 0)}[name]
    bunch = loader()
    return bunch.data.astype(float), np.where(bunch.target == positive, 1.0, -1.0)


@validate_params({"X": Array(ndim=2), "y": Array(ndim=1), "task": Options(("classification", "regression")),
                  "seed": _SEED}, relations=[SameLength("X", "y")])
def split_and_scale(X, y, task, seed):
    """The benchmark's split and preprocessing: ``(X_train, X_test, y_train, y_test)``. NOT private.

    A 70/30 split (stratified by label for classification), then

    * classification: each feature standardised with the *training* split's mean and standard deviation,
      then each row scaled to unit ℓ₂ norm, so that ``data_norm = 1`` really holds;
    * regression: X standardised the same way, divided by 3 and clipped to [−1, 1] (so ``x_bound = 1``
      and diffprivlib's ``bounds_X = (−1, 1)`` hold); y centred and scaled by the training mean and
      standard deviation and clipped to [−3, 3].

    What it leaks: the training split's per-feature means and standard deviations (and the target's)
    are computed without noise and shape every row every learner sees, so the pipeline as a whole is
    not differentially private; only the learners after it are. Every DP benchmark of this kind
    does the same. A fully private pipeline would spend budget on private means and scales, or use
    public bounds known before seeing the data. The unit-norm scaling and the clipping themselves are
    record-by-record maps with public constants and leak nothing beyond those statistics.

    Examples
    --------
    >>> X, y = load_dataset(name="wine_0")
    >>> X_train, X_test, y_train, y_test = split_and_scale(X=X, y=y, task="classification", seed=0)
    >>> X_train.shape, bool(np.allclose(np.linalg.norm(X_test, axis=1), 1.0))
    ((124, 13), True)
    """
    from sklearn.model_selection import train_test_split

    if task == "classification":
        check_labels(y, "y")
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y if task == "classification" else None)
    mean, sd = X_train.mean(axis=0), X_train.std(axis=0)
    sd[sd == 0] = 1.0  # a constant feature (digits' blank border pixels) stays 0

    def scale(Z):
        Z = (Z - mean) / sd
        if task == "regression":
            return np.clip(Z / 3.0, -1.0, 1.0)
        return Z / np.maximum(np.linalg.norm(Z, axis=1, keepdims=True), 1e-12)

    if task == "regression":
        y_mean, y_sd = y_train.mean(), max(float(y_train.std()), 1e-12)
        y_train, y_test = (np.clip((t - y_mean) / y_sd, -TRUNCATION, TRUNCATION) for t in (y_train, y_test))
    return scale(X_train), scale(X_test), y_train, y_test


def _classifier(name, epsilon, delta, seed):
    if name in ("dpsgd", "poisson_dpsgd"):
        sgd = DPSGDLogisticRegression if name == "dpsgd" else PoissonDPSGDLogisticRegression
        return sgd(epsilon, delta, random_state=seed, data_norm=1.0)
    if name in HALFSPACE_SETTINGS:
        learner = {"improper": PrivateHermiteL1Learner, "proper": PrivateProperLearner,
                   "semi_agnostic": PrivateSemiAgnosticLearner}[name]
        return learner(epsilon=epsilon, delta=delta, random_state=seed, **HALFSPACE_SETTINGS[name])
    if name == "diffprivlib":
        from diffprivlib.accountant import BudgetAccountant
        from diffprivlib.models import LogisticRegression

        # A fresh accountant per fit: diffprivlib's default one is global and would add up every fit.
        return LogisticRegression(epsilon=epsilon, data_norm=1.0, random_state=seed, accountant=BudgetAccountant())
    if name == "sklearn":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression()
    return _Majority()


class _Majority:
    def fit(self, X, y):
        self.label_ = 1.0 if np.mean(y == 1) >= 0.5 else -1.0
        return self

    def predict(self, X):
        return np.full(len(X), self.label_)


def _fit_classifier(name, epsilon, delta, seed, X_train, y_train, X_test):
    """(predictions on X_test, fit CPU seconds)."""
    # The halfspace learners' theory assumes N(0, I_d) rows, of norm ≈ √d: the same unit rows times √d.
    scale = np.sqrt(X_train.shape[1]) if name in HALFSPACE_SETTINGS else 1.0
    model = _classifier(name, epsilon, delta, seed)
    start = time.process_time()
    model.fit(X_train * scale, y_train)
    seconds = time.process_time() - start
    return model.predict(X_test * scale), seconds


def _fit_regressor(name, epsilon, delta, seed, X_train, y_train, X_test):
    start = time.process_time()
    if name == "dp_gd":
        coef = dp_gradient_descent_ols(X_train, y_train, epsilon, delta, TRUNCATION, rng=seed)
        return X_test @ coef, time.process_time() - start
    if name == "zero":
        return np.zeros(len(X_test)), time.process_time() - start
    if name == "dp_lasso":
        model = DPLasso(epsilon, delta, SPARSITY, truncation=TRUNCATION, random_state=seed)
    elif name == "diffprivlib":
        from diffprivlib.accountant import BudgetAccountant
        from diffprivlib.models import LinearRegression

        d = X_train.shape[1]
        model = LinearRegression(epsilon=epsilon, bounds_X=(-np.ones(d), np.ones(d)),
                                 bounds_y=(-TRUNCATION, TRUNCATION), random_state=seed, accountant=BudgetAccountant())
    else:
        from sklearn.linear_model import LinearRegression

        model = LinearRegression()
    model.fit(X_train, y_train)
    seconds = time.process_time() - start
    return model.predict(X_test), seconds


def _standard_error(scores):
    """sd/√(number of splits); exactly 0 when every split scored the same (np.std leaves rounding noise there)."""
    if len(scores) < 2:
        return float("nan")
    return 0.0 if np.ptp(scores) == 0 else float(np.std(scores, ddof=1) / np.sqrt(len(scores)))


@validate_params({"datasets": _names(tuple(DATASETS)), "epsilons": _EPSILON_SWEEP,
                  "delta": Delta(allow_zero=False), "n_seeds": POSITIVE_INT,
                  "learners": OrNone(_names(CLASSIFIERS + REGRESSORS)),
                  "rng": "random_state"})
def run(datasets=tuple(DATASETS), epsilons=EPSILONS, delta=DELTA, n_seeds=10, learners=None, rng=None):
    """The side-by-side table: every learner on every data set at every ε, on ``n_seeds`` random splits.

    Parameters
    ----------
    datasets : sequence of names from :data:`DATASETS`
    epsilons : sequence of float, each 0 < ε < inf
    delta : float in (0, 1), dpteach's δ (diffprivlib's learners are pure ε-DP)
    n_seeds : int ≥ 1, the number of splits; split ``i`` and every learner's noise on it use seed ``seeds[i]``
    learners : None (all of :data:`CLASSIFIERS` / :data:`REGRESSORS`) or a sequence of learner names;
        a name that does not fit a data set's task is skipped there
    rng : None, int or Generator, draws the ``n_seeds`` seeds

    Returns
    -------
    list of dict, one per (data set, ε, learner): ``"data"``, ``"epsilon"``, ``"learner"``, ``"metric"``
    ("accuracy" or "mse"), ``"mean"``, ``"se"`` (standard error over the splits: sd/√n_seeds), ``"scores"``
    (one per split), ``"fit_cpu_seconds"`` (median), ``"majority_rate"`` (classification: the test
    splits' mean share of the larger class). The non-private learners (``"sklearn"``, ``"majority"``,
    ``"zero"``) do not depend on ε and are repeated at each ε with the same scores.

    Examples
    --------
    >>> rows = run(datasets=["wine_0"], epsilons=[1.0], n_seeds=2, learners=["dpsgd", "sklearn"], rng=0)
    >>> [(row["learner"], row["metric"], len(row["scores"])) for row in rows]
    [('dpsgd', 'accuracy', 2), ('sklearn', 'accuracy', 2)]
    """
    n_seeds = check_repetitions(n_seeds, "n_seeds", per_repetition=[("len(datasets)", len(datasets)),
                                                                     ("len(epsilons)", len(epsilons))])
    seeds = [int(s) for s in rng.integers(2 ** 31, size=n_seeds)]
    rows = []
    for data in progress(datasets, "real data sets"):
        task = DATASETS[data]
        fits_task = CLASSIFIERS if task == "classification" else REGRESSORS
        names = [n for n in (learners or fits_task) if n in fits_task]
        X, y = load_dataset(data)
        splits = [split_and_scale(X, y, task, seed) for seed in seeds]
        majority = float(np.mean([max(np.mean(s[3] == 1), np.mean(s[3] == -1)) for s in splits]))
        fit = _fit_classifier if task == "classification" else _fit_regressor
        for epsilon in epsilons:
            for name in names:
                scores, seconds = [], []
                for seed, (X_train, X_test, y_train, y_test) in zip(seeds, splits):
                    with warnings.catch_warnings():
                        # diffprivlib's PrivacyLeakWarning and SciPy's deprecation notes: reported, not our reader's.
                        warnings.simplefilter("ignore")
                        predictions, cpu = fit(name, epsilon, delta, seed, X_train, y_train, X_test)
                    with np.errstate(over="ignore"):
                        score = (np.mean(predictions == y_test) if task == "classification"
                                 else np.mean((predictions - y_test) ** 2))
                    scores.append(float(score))
                    seconds.append(cpu)
                rows.append({"data": data, "epsilon": float(epsilon), "learner": name,
                             "metric": "accuracy" if task == "classification" else "mse",
                             "mean": float(np.mean(scores)), "se": _standard_error(scores), "scores": scores,
                             "fit_cpu_seconds": float(np.median(seconds)),
                             "majority_rate": majority if task == "classification" else float("nan")})
    return rows
