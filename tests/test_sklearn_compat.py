"""scikit-learn compatibility and the privacy receipt of every dpteach learner (issue 23, first step).

The learners are found by walking the package (every class in an ``__all__`` that derives from
``dpteach._estimator.Estimator`` or has a ``fit``), so a new learner fails
``test_every_learner_has_a_setting`` until it gets a small, fast setting in ``SETTINGS`` below,
and is then held to the same checks:

- ``sklearn.base.clone`` rebuilds it with the very same parameters (and no fitted state);
- ``get_params(deep=True)`` / ``set_params`` round-trip, and ``set_params`` refuses an unknown
  name by name;
- ``cross_val_score`` (cv = 2 and 3) and ``GridSearchCV`` over ε run and give finite scores;
- ``fit`` leaves the parameters alone, the same seed gives the same model;
- the fitted ``privacy_`` is a :class:`dpteach.privacy.PrivacyReceipt` whose ε and δ are the composition of
  its steps by the theorem's rule (``COMPOSITION``) and the ones the learner was asked for (or, for the LASSO,
  the ε' its accountant certifies), under the box label of the class's privacy claim.

No statistical claim is made here: accuracy is the chapters' business, so no tolerance is needed
beyond "a finite score in the score's range".
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import pickle
import pkgutil
from copy import deepcopy

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone, is_classifier, is_regressor  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402

import dpteach  # noqa: E402
from dpteach import data, hypotheses  # noqa: E402
from dpteach._estimator import Estimator  # noqa: E402
from dpteach.peeling import peeling_epsilon  # noqa: E402
from dpteach.composition import basic_composition, parallel_composition  # noqa: E402
from dpteach.privacy import COVERS, PrivacyReceipt, claim_of  # noqa: E402


def _learner_classes():
    """{"module.Class": class} for every estimator class in the ``__all__`` of every dpteach module."""
    found = {}
    for info in pkgutil.walk_packages(dpteach.__path__, "dpteach."):
        if info.name.endswith(".__main__"):  # command-line entry points run on import
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name, None)
            if (inspect.isclass(obj) and obj is not Estimator
                    and (issubclass(obj, Estimator) or callable(getattr(obj, "fit", None)))):
                found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    return found


LEARNERS = _learner_classes()

# --- small data sets (fixed seeds) -------------------------------------------------------------


def _halfspace(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    y = np.where(X @ np.array([0.6, 0.8]) > 0.2, 1.0, -1.0)
    flip = rng.random(n) < 0.05
    return X, np.where(flip, -y, y)


def _unit_interval(n, seed=0):
    X = np.random.default_rng(seed).uniform(size=n)
    return X, np.where(X > 0.37, 1.0, -1.0)


def _cube(n, seed=0):
    X = np.random.default_rng(seed).uniform(-1, 1, size=(n, 2))
    return X, np.where(X @ np.array([0.6, 0.8]) > 0, 1.0, -1.0)


def _sparse(n, seed=0):
    X, y, _ = data.sparse_regression_data(n, 6, 2, rng=seed)
    return X, y


@dataclasses.dataclass
class Setting:
    kwargs: dict             # a fast valid configuration
    data: tuple              # (X, y) large enough for cv = 3
    delta: float | None      # the δ asked for (None: a pure ε-DP / ε-local learner, δ = 0)
    grid: tuple = (0.5, 1.0)  # ε values for GridSearchCV


_TH = hypotheses.thresholds(np.linspace(0, 1, 11))
SETTINGS = {
    "dpteach.generic.GenericPrivateLearner":
        Setting(dict(hypotheses=_TH, epsilon=1.0, random_state=0), _unit_interval(300), None),
    "dpteach.local_learners.LocalThresholdLearner":
        Setting(dict(epsilon=1.0, rule="clt", random_state=0), _unit_interval(6000), None,
                grid=(1.0, 2.0)),  # at ε = 0.5 a fold of 3000 users is too few (5414 needed)
    "dpteach.local_learners.LocalHalfspaceLearner":
        Setting(dict(epsilon=1.0, n_steps=2, random_state=0), _cube(600), None),
    "dpteach.regression.DPLasso":
        Setting(dict(epsilon=1.0, delta=1e-5, sparsity=2, random_state=0), _sparse(300), 1e-5),
    "dpteach.improper.PrivateHermiteL1Learner":
        Setting(dict(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2, n_iterations=5, random_state=0),
                _halfspace(600), 1e-5),
    "dpteach.logconcave.PrivateLogConcaveL1Learner":
        Setting(dict(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2, n_iterations=5, random_state=0),
                _halfspace(600), 1e-5),
    "dpteach.proper.PrivateProperLearner":
        Setting(dict(alpha=0.3, epsilon=1.0, delta=1e-5, degree=2, max_subspace_dim=1, cover_resolution=0.5,
                     random_state=0), _halfspace(600), 1e-5),
    "dpteach.dpsas.PrivateSemiAgnosticLearner":
        Setting(dict(alpha=0.3, epsilon=1.0, delta=1e-5, random_state=0), _halfspace(1500), 1e-5),
    "dpteach.dp_logistic.DPSGDLogisticRegression":
        Setting(dict(epsilon=1.0, delta=1e-5, n_epochs=2, random_state=0), _halfspace(300), 1e-5),
    "dpteach.dp_sgd_poisson.PoissonDPSGDLogisticRegression":
        Setting(dict(epsilon=1.0, delta=1e-5, n_epochs=1, batch_size=50, random_state=0), _halfspace(300), 1e-5),
}

KEYS = sorted(LEARNERS)


def _needs(key):
    """Skip the PLD learner when its optional accountant (dp-accounting) is missing."""
    if "Poisson" in key:
        pytest.importorskip("dp_accounting")


def _make(key):
    _needs(key)
    return LEARNERS[key](**SETTINGS[key].kwargs)


def _expected_epsilon(learner, asked):
    """The ε the receipt must carry: the one asked for, except for the LASSO's certified ε' (Theorem 5.6)."""
    if type(learner).__name__ == "DPLasso" and learner.calibrate == "paper":
        return peeling_epsilon(learner.sparsity, asked, learner.delta)
    return asked


def _same(a, b):
    """Equal parameter values; an object without __eq__ (a hypothesis class) is compared by type and state."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if hasattr(a, "__dict__") and type(a).__eq__ is object.__eq__:
        return repr(sorted(vars(a))) == repr(sorted(vars(b)))
    return bool(np.all(a == b))


# --- the walk finds every learner ---------------------------------------------------------------

def test_every_learner_has_a_setting():
    # A floor against a broken walk: ten learners existed when this test was written.
    assert len(LEARNERS) >= 10, sorted(LEARNERS)
    missing = sorted(set(LEARNERS) - set(SETTINGS))
    assert not missing, (f"learner(s) {missing} have no fast setting: add one to SETTINGS in "
                         f"tests/test_sklearn_compat.py (kwargs, data for cv = 3, the δ asked for)")
    stale = sorted(set(SETTINGS) - set(LEARNERS))
    assert not stale, f"SETTINGS has entries for learners that no longer exist: {stale}"


@pytest.mark.parametrize("key", KEYS)
def test_kind_is_declared(key):
    learner = _make(key)
    regression = key.endswith("DPLasso")
    assert is_regressor(learner) is regression and is_classifier(learner) is not regression


# --- get_params / set_params / clone --------------------------------------------------------------

@pytest.mark.parametrize("key", KEYS)
def test_clone_gives_the_same_parameters_and_no_fitted_state(key):
    learner = _make(key)
    copy = clone(learner)
    assert type(copy) is type(learner) and copy is not learner
    params, copied = learner.get_params(deep=False), copy.get_params(deep=False)
    assert params.keys() == copied.keys() == set(inspect.signature(type(learner)).parameters)
    assert all(_same(params[name], copied[name]) for name in params)
    fitted = learner.fit(*SETTINGS[key].data)
    assert not hasattr(clone(fitted), "privacy_")


@pytest.mark.parametrize("key", KEYS)
def test_set_params_round_trips_and_refuses_unknown_names(key):
    learner = _make(key)
    params = learner.get_params(deep=True)
    assert learner.set_params(**params) is learner
    assert learner.set_params(epsilon=0.5).epsilon == 0.5 and learner.get_params()["epsilon"] == 0.5
    with pytest.raises(ValueError, match="no_such_parameter") as error:
        learner.set_params(no_such_parameter=1)
    assert "epsilon" in str(error.value)  # the message lists the valid names
    with pytest.raises(ValueError, match="epsilon__x"):
        learner.set_params(epsilon__x=1)  # ε is not an estimator: no nested parameters


@pytest.mark.parametrize("key", KEYS)
def test_fitted_learner_pickles_and_deep_copies(key):
    # joblib (GridSearchCV(n_jobs=2)) pickles learners, and the fuzz deep-copies fitted ones.
    X, y = SETTINGS[key].data
    learner = _make(key).fit(X, y)
    for copy in (pickle.loads(pickle.dumps(learner)), deepcopy(learner)):
        assert copy.privacy_ == learner.privacy_ and type(copy.privacy_) is PrivacyReceipt
        np.testing.assert_array_equal(copy.predict(X[:20]), learner.predict(X[:20]))


@pytest.mark.parametrize("key", KEYS)
def test_fit_leaves_parameters_alone_and_same_seed_same_model(key):
    X, y = SETTINGS[key].data
    learner = _make(key)
    before = learner.get_params(deep=False)
    first = learner.fit(X, y).predict(X[:50])
    assert all(before[name] is value for name, value in learner.get_params(deep=False).items())
    second = clone(learner).fit(X, y).predict(X[:50])  # random_state is an int: the same stream again
    np.testing.assert_array_equal(first, second)


# --- model selection ------------------------------------------------------------------------------

@pytest.mark.parametrize("cv", [2, 3])
@pytest.mark.parametrize("key", KEYS)
def test_cross_val_score_runs(key, cv):
    X, y = SETTINGS[key].data
    scores = cross_val_score(_make(key), X, y, cv=cv, error_score="raise")
    assert scores.shape == (cv,) and np.all(np.isfinite(scores))
    if not key.endswith("DPLasso"):
        assert np.all((0 <= scores) & (scores <= 1))  # accuracies


@pytest.mark.parametrize("key", KEYS)
def test_grid_search_over_epsilon_runs(key):
    setting = SETTINGS[key]
    search = GridSearchCV(_make(key), {"epsilon": list(setting.grid)}, cv=2, error_score="raise")
    search.fit(*setting.data)
    assert search.best_params_["epsilon"] in setting.grid and math.isfinite(search.best_score_)
    # The search ran len(grid)·cv fits plus the refit, on overlapping rows, and selected without noise: it is not
    # (ε, δ)-DP at the refit's ε (architecture review F1). The refit's receipt is the refit's only, and says so.
    receipt = search.best_estimator_.privacy_
    assert len(search.cv_results_["params"]) * 2 + 1 > 1
    assert receipt.epsilon == _expected_epsilon(search.best_estimator_, search.best_params_["epsilon"])
    assert receipt.covers == COVERS and f"covers={COVERS!r}" in repr(receipt)


def test_the_docs_say_a_receipt_covers_one_fit_on_the_data_passed_to_it():
    # Where users look (F1): the receipt (docstring, repr), the estimator base's docs, the README's conventions.
    import pathlib
    import dpteach._estimator as estimator
    import dpteach.privacy as privacy
    readme = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert COVERS.startswith("this one fit on the data passed to it") and "Pipeline" in COVERS and "search" in COVERS
    for text in (privacy.PrivacyReceipt.__doc__, estimator.__doc__, " ".join(readme.split())):
        text = " ".join(text.replace("*", "").split())  # bold markers aside
        assert "one fit" in text or "one `fit`" in text or "one ``fit``" in text, text[:200]
        assert "StandardScaler" in text or "scaler" in text
        assert "GridSearchCV" in text or "search" in text


# --- the privacy receipt --------------------------------------------------------------------------
# A receipt computes (ε, δ) from its steps by the composition its theorem uses (issue 32). These checks hold
# each learner's receipt to that: the composition named in the proof of its box, a total that *is* that
# composition of the steps (written out here, not read from dpteach) and the budget asked for, and steps that
# make the composition matter (a parallel receipt reading the same rows, or summed where the proof takes the
# maximum, fails: test_a_broken_composition_fails_the_receipt_checks).

#: The composition the proof of each learner's privacy theorem applies over its distinct steps.
COMPOSITION = {
    "dpteach.generic.GenericPrivateLearner": basic_composition,            # one exponential mechanism (Thm 2.5)
    "dpteach.local_learners.LocalThresholdLearner": parallel_composition,  # disjoint groups of users (Thm 3.10)
    "dpteach.local_learners.LocalHalfspaceLearner": parallel_composition,
    "dpteach.regression.DPLasso": parallel_composition,                    # one block per Peeling step (Thm 5.6)
    "dpteach.improper.PrivateHermiteL1Learner": parallel_composition,      # k blocks and a validation set (Thm 6.11)
    "dpteach.logconcave.PrivateLogConcaveL1Learner": parallel_composition,  # the same split (Thm 6.13)
    "dpteach.proper.PrivateProperLearner": parallel_composition,           # S1 and S2 (Thm 7.8)
    "dpteach.dpsas.PrivateSemiAgnosticLearner": parallel_composition,      # K parts and a validation part (Thm 8.11)
    "dpteach.dp_logistic.DPSGDLogisticRegression": basic_composition,      # one step: E epochs under an accountant
    "dpteach.dp_sgd_poisson.PoissonDPSGDLogisticRegression": basic_composition,  # one step: T steps under PLD
}
#: What a step's ``accountant`` may name besides a box of the book: the accountant of an iterated mechanism.
ITERATION_ACCOUNTANTS = {"zcdp", "composition", "exact", "pld"}


@pytest.fixture(scope="module")
def book_labels():
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tools/ is a folder of the repository
    from tools import theorem_index
    return {box.label for box in theorem_index.collect_boxes()}


def _composed(rule, steps):
    """(ε, δ) of the steps by the composition theorem, written out: the maxima (parallel) or the sums (basic)."""
    epsilons, deltas = [step.epsilon for step in steps], [step.delta for step in steps]
    if rule is parallel_composition:
        return max(epsilons), max(deltas)
    return math.fsum(epsilons), math.fsum(deltas)


def _receipt_problems(key, learner, asked_epsilon, asked_delta, labels):
    """What is wrong with a fitted learner's receipt (an empty list: nothing)."""
    receipt, rule = learner.privacy_, COMPOSITION[key]
    problems = []
    if type(receipt) is not PrivacyReceipt:
        return [f"privacy_ is a {type(receipt).__name__}"]
    if receipt.composition is not rule:
        problems.append(f"composes by {receipt.composition.__name__}, the theorem by {rule.__name__}")
    if (receipt.epsilon, receipt.delta) != _composed(rule, receipt.steps):
        problems.append(f"(ε, δ) = {(receipt.epsilon, receipt.delta)} is not the {rule.__name__} of its steps")
    if (receipt.epsilon, receipt.delta) != (_expected_epsilon(learner, asked_epsilon), asked_delta):
        problems.append(f"(ε, δ) = {(receipt.epsilon, receipt.delta)}, asked {(asked_epsilon, asked_delta)}")
    if rule is parallel_composition:
        rows = [step.rows for step in receipt.steps]
        if len(set(rows)) < len(rows):
            problems.append(f"parallel composition over steps that read the same rows: {rows}")
        if math.isfinite(receipt.epsilon) and len(rows) < 2:
            problems.append("parallel composition of one step: the check above would be vacuous")
    if receipt.theorem != claim_of(type(learner)).theorem or receipt.theorem not in labels:
        problems.append(f"theorem {receipt.theorem!r}: not the box label {claim_of(type(learner)).theorem!r} "
                        f"of the class's claim, or not a box of the book")
    unknown = [step.accountant for step in receipt.steps
               if step.accountant not in labels | ITERATION_ACCOUNTANTS]
    if unknown:
        problems.append(f"step accountants that are neither a box of the book nor an accountant: {unknown}")
    return problems


def test_every_learner_states_its_composition():
    assert set(COMPOSITION) == set(LEARNERS), sorted(set(COMPOSITION) ^ set(LEARNERS))


@pytest.mark.parametrize("key", KEYS)
def test_privacy_receipt_is_the_composition_of_its_steps_and_the_asked_budget(key, book_labels):
    setting = SETTINGS[key]
    learner = _make(key).fit(*setting.data)
    delta = 0.0 if setting.delta is None else setting.delta
    assert _receipt_problems(key, learner, setting.kwargs["epsilon"], delta, book_labels) == []
    assert learner.privacy_.why and learner.privacy_.is_private


@pytest.mark.parametrize("key, name", [("dpteach.dpsas.PrivateSemiAgnosticLearner", "parallel_composition"),
                                       ("dpteach.generic.GenericPrivateLearner", "basic_composition")])
def test_a_broken_composition_fails_the_receipt_checks(key, name, monkeypatch, book_labels):
    # The mutation: the learner's module composes by the other theorem. Summing the DPSAS runs and the selection
    # (basic where the proof takes the maximum over disjoint parts) gives (K + 1)·ε; a single exponential mechanism
    # "composed in parallel" is numerically the same, but names a theorem that its proof does not use.
    module = importlib.import_module(key.rpartition(".")[0])
    other = basic_composition if name == "parallel_composition" else parallel_composition
    monkeypatch.setattr(module, name, other)
    setting = SETTINGS[key]
    learner = _make(key).fit(*setting.data)
    delta = 0.0 if setting.delta is None else setting.delta
    assert _receipt_problems(key, learner, setting.kwargs["epsilon"], delta, book_labels) != []


@pytest.mark.parametrize("key", ["dpteach.dpsas.PrivateSemiAgnosticLearner", "dpteach.proper.PrivateProperLearner"])
def test_non_private_reference_run_has_a_receipt_without_guarantee(key, book_labels):
    setting = SETTINGS[key]
    learner = LEARNERS[key](**(setting.kwargs | {"epsilon": math.inf})).fit(*setting.data)
    assert _receipt_problems(key, learner, math.inf, setting.delta, book_labels) == []
    assert learner.privacy_.epsilon == math.inf and not learner.privacy_.is_private


def test_lasso_receipt_says_no_guarantee_without_residual_clipping():
    X, y = SETTINGS["dpteach.regression.DPLasso"].data
    receipt = LEARNERS["dpteach.regression.DPLasso"](1.0, 1e-5, 2, clip_residual=False, random_state=0).fit(X, y).privacy_
    assert receipt.epsilon == math.inf and not receipt.is_private
    assert all(step.epsilon == math.inf for step in receipt.steps) and receipt.delta == 1e-5


def test_lasso_receipt_with_the_accountant_calibration_is_the_asked_epsilon():
    X, y = SETTINGS["dpteach.regression.DPLasso"].data
    lasso = LEARNERS["dpteach.regression.DPLasso"](0.7, 1e-5, 2, calibrate="accountant", random_state=0)
    assert lasso.fit(X, y).privacy_.epsilon == 0.7


# --- labels: the public classes (issue 32) ------------------------------------------------------------------------

CLASSIFIER_KEYS = [key for key in KEYS if not key.endswith("DPLasso")]


@pytest.mark.parametrize("key", CLASSIFIER_KEYS)
def test_any_two_labels_through_classes_give_the_same_model_as_signs(key):
    X, y = SETTINGS[key].data
    names = np.where(y > 0, "yes", "no")
    signs = _make(key).fit(X, y)
    labelled = _make(key).set_params(classes=("no", "yes")).fit(X, names)
    # The same seed and the same ±1 inside: the same predictions, relabelled (the map is post-processing).
    np.testing.assert_array_equal(labelled.predict(X[:50]), np.where(signs.predict(X[:50]) > 0, "yes", "no"))
    assert list(labelled.classes_) == ["no", "yes"] and labelled.score(X, names) == signs.score(X, y)


@pytest.mark.parametrize("key", CLASSIFIER_KEYS)
def test_classes_come_from_the_parameter_never_from_the_data(key):
    # A y whose labels are all 1 (0 never occurs): classes_ is still (0, 1). np.unique(y) would give [1] and so
    # release that no record has the label 0.
    X, y = SETTINGS[key].data
    learner = _make(key).set_params(classes=(0, 1)).fit(X, np.ones(len(y), dtype=int))
    assert list(learner.classes_) == [0, 1]
    assert set(np.unique(learner.predict(X))) <= {0, 1}


@pytest.mark.parametrize("key", CLASSIFIER_KEYS)
def test_a_label_outside_classes_is_refused_naming_y_the_value_and_the_classes(key):
    X, y = SETTINGS[key].data
    bad = np.where(y > 0, 1, 0)
    with pytest.raises(ValueError, match=r"y must contain only the labels of classes=\(-1, 1\), found 0 \(at index"):
        _make(key).fit(X, bad)
    with pytest.raises(ValueError, match=r"classes=\(-1, 1\), found -?0.5 .*Unknown label type: continuous"):
        _make(key).fit(X, y * 0.5)  # a continuous target
    with pytest.raises(ValueError, match="y must contain only the labels of classes"):
        _make(key).fit(X, y).score(X, bad)


@pytest.mark.parametrize("classes, error", [((1, 1), ValueError), ((0, 1, 2), ValueError), ("ab", TypeError),
                                            (None, TypeError), ((0, float("nan")), TypeError), ((0, "yes"), TypeError)])
def test_bad_classes_are_refused_by_name(classes, error):
    key = "dpteach.dp_logistic.DPSGDLogisticRegression"
    with pytest.raises(error, match="classes"):
        _make(key).set_params(classes=classes).fit(*SETTINGS[key].data)


def test_a_column_y_is_raveled_with_scikit_learns_warning_and_other_shapes_are_refused():
    from sklearn.exceptions import DataConversionWarning
    key = "dpteach.dp_logistic.DPSGDLogisticRegression"
    X, y = SETTINGS[key].data
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        column = _make(key).fit(X, y[:, None])
    np.testing.assert_array_equal(column.coef_, _make(key).fit(X, y).coef_)
    with pytest.raises(ValueError, match=r"y must have 1 dimension.*\(300, 2\)"):
        _make(key).fit(X, np.stack([y, y], axis=1))
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        _make(key).fit(X, None)


@pytest.mark.parametrize("key", KEYS)
def test_not_fitted_error_is_scikit_learns(key):
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError
    from dpteach._estimator import NotFittedError
    assert issubclass(NotFittedError, SklearnNotFittedError)
    with pytest.raises(SklearnNotFittedError, match=f"this {key.rsplit('.', 1)[1]} is not fitted yet"):
        _make(key).predict(SETTINGS[key].data[0])
    error = NotFittedError("message")
    assert type(pickle.loads(pickle.dumps(error))) is NotFittedError  # joblib sends errors between processes
