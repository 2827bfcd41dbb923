"""scikit-learn's own estimator checks (``parametrize_with_checks``) on every dpteach learner (issue 32).

The learners are configured as tests/test_sklearn_compat.py configures them (its small, fast ``SETTINGS``),
with ``classes=(0, 1)`` for the classifiers: the labels most checks fit. The labels are a **public**
parameter, never read from ``y`` (``np.unique(y)`` would release which labels occur), so a check that fits
other labels declares them the way a user would (``CHECK_CLASSES``), and a check that fits two label sets
with one learner cannot pass: it is listed below with that reason.

Every check that fails is in ``EXPECTED_FAILURES`` with its reason, and the failures are strict: a check
that starts to pass fails the suite until it leaves the list. Three kinds of reason:

- DP: an ε-DP output is random (an accuracy bar on a few dozen rows at ε = 1, the single class of a
  one-label ``y`` predicted with certainty), an algorithm needs more rows than a check gives, a public
  domain (a hypothesis class fixed before the data, bounded local queries) refuses other features;
- public labels: a check fits labels outside the configured ``classes`` (see above);
- dpteach's data contract, not DP: X of object or complex dtype is refused with a TypeError.

Work: 556 checks on data sets of 1 to 200 rows: ~4 s of CPU for the checks, ~7 s for the file under pytest
(collection aside, shared with tests/test_sklearn_compat.py), measured with ``time`` on the 2-core machine.
An expected failure is reported with ``pytest.xfail`` outside the ``except`` block, so pytest formats no
scikit-learn traceback for it (that formatting alone cost ~50 s of CPU for the 142 expected failures).
"""

from __future__ import annotations

import warnings

import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone, is_classifier  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from test_sklearn_compat import KEYS, LEARNERS, SETTINGS, _needs  # noqa: E402

# Smaller than SETTINGS where a check's data set (10 to 30 rows) is: public sizes, so no DP question.
SMALLER = {
    "dpteach.dp_sgd_poisson.PoissonDPSGDLogisticRegression": dict(batch_size=None),  # B from n, not 50
}


def _configured(key):
    _needs(key)
    kwargs = {**SETTINGS[key].kwargs, **SMALLER.get(key, {})}
    learner = LEARNERS[key](**kwargs)
    return learner.set_params(classes=(0, 1)) if is_classifier(learner) else learner


ESTIMATORS = [_configured(key) for key in KEYS]

# The labels a check fits, declared as a user declares them (a public parameter), when they are not (0, 1).
CHECK_CLASSES = {"check_estimators_dtypes": (1, 2), "check_fit2d_1feature": (1, 2),
                 "check_classifier_data_not_an_array": (1, 2)}

RANDOM = "ε-DP output is random: an accuracy bar on a few dozen rows at ε = 1 is not a DP guarantee"
ONE_LABEL = ("ε-DP output is random: trained on one label, an ε-DP classifier still predicts the other with "
             "positive probability (and refusing a one-label y would release that every label is the same)")
TWO_LABEL_SETS = ("public labels: the check fits ('one', 'two') and then (-1, 1) with one learner, and classes is "
                  "a parameter, never read from y (np.unique(y) would release which labels occur)")
OBJECT_X = "dpteach's data contract, not DP: X must hold real numbers; an object array is refused (TypeError)"
COMPLEX_X = ("dpteach's data contract, not DP: complex X is refused with a TypeError (X must hold real "
             "numbers), where scikit-learn's check asks for a ValueError")
CONTRACT = {"check_dtype_object": OBJECT_X, "check_complex_data": COMPLEX_X}


def _rows(why):
    """The checks that fit fewer rows than an algorithm needs (``why``: the algorithm's reason)."""
    return dict.fromkeys(("check_estimators_overwrite_params", "check_dont_overwrite_parameters",
                          "check_estimators_fit_returns_self", "check_readonly_memmap_input",
                          "check_n_features_in_after_fitting", "check_estimators_nan_inf",
                          "check_f_contiguous_array_estimator", "check_methods_sample_order_invariance",
                          "check_methods_subset_invariance", "check_dict_unchanged", "check_fit2d_predict1d"),
                         why)


DOMAIN_CHECKS = ("check_fit_score_takes_y", "check_estimators_overwrite_params", "check_dont_overwrite_parameters",
                 "check_estimators_fit_returns_self", "check_readonly_memmap_input", "check_n_features_in_after_fitting",
                 "check_positive_only_tag_during_fit", "check_pipeline_consistency", "check_estimators_nan_inf",
                 "check_estimators_pickle", "check_f_contiguous_array_estimator", "check_classifiers_train",
                 "check_supervised_y_2d", "check_methods_sample_order_invariance", "check_methods_subset_invariance",
                 "check_fit2d_1sample", "check_dict_unchanged", "check_fit_idempotent", "check_fit_check_is_fitted",
                 "check_n_features_in", "check_fit2d_predict1d")


def _domain(why, passing=()):
    """The checks whose X lies outside a public domain that the learner fixes before the data (but ``passing``)."""
    return {name: why for name in DOMAIN_CHECKS if name not in passing}


def _too_few(rows, algorithm):
    return f"the check fits fewer rows than {algorithm} needs (n >= {rows}): its sizes come from the privacy budget"


DPSAS_ROWS = _too_few(26, "Algorithm 8.9 (DPSAS: one DPSAS part of up to 20 rounds plus a validation set)")
L1_ROWS = _too_few(12, "Algorithm 6.10 (k = 5 blocks of at least 2 examples plus a validation set)")
LINE = ("the public hypothesis class H (thresholds on [0, 1], Algorithm 2.4) is fixed before the data, so its "
        "dimension is public: X of other features or outside the line is refused")
LOCAL_LINE = ("thresholds on [0, 1] through bounded SQ queries (chapter 3): X must be one feature in [0, 1], so the "
              "ε-local randomizer's input is bounded")
LOCAL_CUBE = ("X must lie in [-1, 1]^d: the ε-local randomizer answers bounded queries (chapter 3), so a row "
              "outside the cube is refused rather than clipped silently")
CLASSIFIER = {"check_classifiers_classes": TWO_LABEL_SETS, **CONTRACT}

EXPECTED_FAILURES = {  # {learner class name: {check name: reason}}
    "DPSGDLogisticRegression": {**CLASSIFIER, "check_classifiers_one_label": ONE_LABEL},
    "PoissonDPSGDLogisticRegression": CLASSIFIER,
    "PrivateProperLearner": {**CLASSIFIER, "check_classifiers_train": RANDOM},
    "PrivateHermiteL1Learner": {**CLASSIFIER, "check_classifiers_one_label": ONE_LABEL + "; and n = 10 is too few rows",
                                "check_n_features_in_after_fitting": L1_ROWS, "check_estimators_nan_inf": L1_ROWS,
                                "check_fit2d_1feature": L1_ROWS},
    "PrivateSemiAgnosticLearner": {**CLASSIFIER, **_rows(DPSAS_ROWS), "check_estimators_dtypes": DPSAS_ROWS,
                                   "check_classifier_data_not_an_array": DPSAS_ROWS, "check_fit2d_1feature": DPSAS_ROWS,
                                   "check_classifiers_one_label": ONE_LABEL + "; and n = 10 is too few rows"},
    "GenericPrivateLearner": {**CLASSIFIER, **_domain(LINE), "check_estimators_dtypes": LINE,
                              "check_classifier_data_not_an_array": LINE,
                              "check_fit1d": "a point of the line may be given as a 1-D X (n,): " + LINE},
    "LocalThresholdLearner": {**CLASSIFIER, **_domain(LOCAL_LINE), "check_estimators_dtypes": LOCAL_LINE,
                              "check_classifier_data_not_an_array": LOCAL_LINE, "check_fit2d_1feature": LOCAL_LINE,
                              "check_classifiers_one_label": ONE_LABEL + "; and n = 10 users are too few"},
    "LocalHalfspaceLearner": {**CLASSIFIER, **_domain(LOCAL_CUBE, passing=("check_estimators_nan_inf",
                                                                         "check_fit_score_takes_y",
                                                                         "check_supervised_y_2d")),
                              "check_estimators_dtypes": LOCAL_CUBE,
                              "check_classifier_data_not_an_array": LOCAL_CUBE, "check_fit2d_1feature": LOCAL_CUBE,
                              "check_classifiers_one_label": ONE_LABEL},
    "DPLasso": {**CONTRACT, "check_regressors_train": ("ε-DP output is random: an R² bar on a few dozen rows at "
                                                       "ε = 1 is not a DP guarantee"),
                "check_fit2d_1feature": "sparsity s = 2 cannot exceed d = 1 feature (Peeling selects s of d)",
                "check_supervised_y_2d": ("dpteach's data contract, not DP: a regressor's y is a 1-D array "
                                          "(Array(ndim=1)); a column is refused, not raveled with a warning"),
                "check_requires_y_none": ("dpteach's data contract, not DP: y = None is a TypeError naming y "
                                          "(the regressor's Array contract), not scikit-learn's ValueError")},
}
EXPECTED_FAILURES["PrivateLogConcaveL1Learner"] = EXPECTED_FAILURES["PrivateHermiteL1Learner"]


def expected_failures(estimator):
    return EXPECTED_FAILURES.get(type(estimator).__name__, {})


def _strict(param):
    """parametrize_with_checks marks expected failures non-strict; strict here, so a fixed check leaves the list."""
    if not hasattr(param, "marks") or not param.marks:
        return param
    marks = [pytest.mark.xfail(strict=True, reason=mark.kwargs["reason"]) for mark in param.marks]
    return pytest.param(*param.values, marks=marks, id=param.id)


with warnings.catch_warnings():  # "does not inherit from BaseEstimator": dpteach has no scikit-learn dependency
    warnings.simplefilter("ignore", UserWarning)
    _CHECKS = parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
    _NAMES, _PARAMS = _CHECKS.args
    _CHECKS = pytest.mark.parametrize(_NAMES, [_strict(param) for param in _PARAMS], **_CHECKS.kwargs)


@_CHECKS
def test_scikit_learn_check(estimator, check):
    name = getattr(check, "func", check).__name__
    if name in CHECK_CLASSES and is_classifier(estimator):
        estimator = clone(estimator).set_params(classes=CHECK_CLASSES[name])
    reason = expected_failures(estimator).get(name)
    failed = False
    try:
        check(estimator)
    except Exception:
        if reason is None:
            raise
        failed = True
    if failed:  # outside the except block: pytest then formats no scikit-learn traceback (~0.3 s of CPU each)
        pytest.xfail(reason)
