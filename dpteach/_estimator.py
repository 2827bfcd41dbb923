"""The small fit/predict base every dpteach learner shares (scikit-learn conventions, no scikit-learn).

- ``__init__`` only stores its arguments, under the same names;
- ``fit(X, y)`` validates, learns, sets attributes ending in ``_`` and returns ``self``;
- ``predict`` before ``fit`` raises :class:`NotFittedError`, which names the class;
- ``score(X, y)`` is the accuracy of ``predict`` on ±1 labels (regressors override it with R²);
- ``repr`` shows the constructor's parameters, so a printed learner says how it was configured;
- ``get_params(deep=True)`` and ``set_params(**params)`` follow scikit-learn's protocol, so
  ``sklearn.base.clone``, ``cross_val_score``, ``Pipeline`` and ``GridSearchCV`` run on every learner (issue 23);
- ``fit`` sets ``privacy_`` to a :class:`dpteach.privacy.PrivacyReceipt`.

Running is not being private. The receipt covers **one** ``fit`` on **the data passed to it**
(``PrivacyReceipt.covers``). In ``make_pipeline(StandardScaler(), learner)`` the scaler is fitted on
the same rows without noise: one changed record moves every scaled row, so the learner's (ε, δ) no
longer holds for the raw data, and the scaler's ``mean_`` is released exactly (chapter 9's audit
certifies a leak above the receipt's ε). ``GridSearchCV`` and ``cross_val_score`` run many fits on
overlapping rows and select among them without noise; the refit's receipt is that one refit's, not the
search's. Scale with public bounds (or a private scaler) and account for every fit a search runs.
"""

from __future__ import annotations

import inspect

import numpy as np

from ._constraints import Unchecked, validate_params
from ._validation import check_finite_array, check_labels, check_same_length

__all__ = ["NotFittedError", "Estimator", "LinearClassifierMixin", "check_fitted"]


class NotFittedError(ValueError, AttributeError):
    """Raised by ``predict``/``score`` before ``fit``.

    A ValueError (as in scikit-learn) and an AttributeError, so code that
    probed for a fitted attribute with ``hasattr`` keeps working.

    Examples
    --------
    >>> error = NotFittedError("this DPLasso is not fitted yet: call DPLasso.fit(X, y) before using it")
    >>> isinstance(error, ValueError), isinstance(error, AttributeError)
    (True, True)
    """

    @validate_params({"message": Unchecked("the text of the error, written by dpteach's own check_fitted")})
    def __init__(self, message):
        # One argument, the message (what check_fitted raises): a signature the contract can declare.
        super().__init__(message)


@validate_params({"estimator": Unchecked("any object: the point is to ask whether it was fitted"),
                  "attribute": Unchecked("the name of an attribute that fit sets, passed by dpteach's own code")})
def check_fitted(estimator, attribute):
    """Raise :class:`NotFittedError` naming the class unless ``estimator.<attribute>`` exists.

    Examples
    --------
    >>> check_fitted(estimator=np.zeros(5), attribute="size")  # an array has a size: nothing is raised
    >>> check_fitted(estimator=Estimator(), attribute="coef_")
    Traceback (most recent call last):
    ...
    dpteach._estimator.NotFittedError: this Estimator is not fitted yet: call Estimator.fit(X, y) before using it
    """
    if not hasattr(estimator, attribute):
        name = type(estimator).__name__
        raise NotFittedError(f"this {name} is not fitted yet: call {name}.fit(X, y) before using it")


class Estimator:
    """Base class: parameter ``repr``, the not-fitted check and the accuracy ``score``.

    Subclasses list their constructor arguments in ``__init__`` and store each
    one unchanged as an attribute of the same name (all checks happen in ``fit``:
    ``clone`` rebuilds a learner from ``get_params`` and requires the very same
    objects back); they set ``_fitted_attribute`` to an attribute that ``fit``
    creates, and ``_estimator_type`` to "classifier" or "regressor".

    Each subclass declares its hyperparameters' constraints in ``_parameter_constraints`` (checked at the
    top of ``fit`` by :func:`dpteach._constraints.fit_context`). The base has no hyperparameter: its contract
    is its empty ``__init__``, declared there rather than as ``_parameter_constraints = {}``, which every
    subclass would inherit (a learner that forgot its own declaration would then look declared, and empty).

    Examples
    --------
    >>> Estimator()
    Estimator()
    >>> Estimator().get_params()
    {}
    """

    _fitted_attribute = "n_features_in_"
    # scikit-learn reads this (and __sklearn_tags__ below) to pick stratified folds for classifiers.
    _estimator_type = "classifier"

    @validate_params({})
    def __init__(self):
        """No hyperparameters: a subclass's ``__init__`` lists and stores its own."""

    @classmethod
    def _parameter_names(cls):
        signature = inspect.signature(cls.__init__)
        return [p.name for p in signature.parameters.values()
                if p.name != "self" and p.kind is not p.VAR_KEYWORD]

    def get_params(self, deep=True):
        """The constructor's parameters and their current values, as a dict (scikit-learn's protocol).

        With ``deep=True`` a parameter that is itself an estimator (has ``get_params``) also
        contributes its own parameters as ``"<name>__<its parameter>"``.
        """
        params = {}
        for name in self._parameter_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                params.update((f"{name}__{key}", inner) for key, inner in value.get_params().items())
            params[name] = value
        return params

    def set_params(self, **params):
        """Set constructor parameters (``"<name>__<inner>"`` for a nested estimator); returns self.

        Values are stored unchanged, as in ``__init__``; they are checked by the next ``fit``.

        Raises
        ------
        ValueError
            For a name that is not a parameter of this learner (the message lists the valid ones).
        """
        valid = self._parameter_names()
        nested = {}
        for key, value in params.items():
            name, _, inner = key.partition("__")
            if name not in valid:
                raise ValueError(f"{key!r} is not a parameter of {type(self).__name__}; valid parameters: "
                                 f"{', '.join(valid)}")
            if inner:
                nested.setdefault(name, {})[inner] = value
            else:
                setattr(self, name, value)
        for name, inner_params in nested.items():
            inner = getattr(self, name)
            if not hasattr(inner, "set_params"):
                key = f"{name}__{next(iter(inner_params))}"
                raise ValueError(f"{key!r} names a parameter of {name}, but {name} = {inner!r} is not an "
                                 f"estimator (it has no set_params)")
            inner.set_params(**inner_params)
        return self

    def __sklearn_tags__(self):
        """scikit-learn's estimator tags (called by scikit-learn >= 1.6 only, so the import is lazy)."""
        from sklearn.utils import ClassifierTags, InputTags, RegressorTags, Tags, TargetTags
        kind = self._estimator_type
        return Tags(estimator_type=kind, target_tags=TargetTags(required=True), input_tags=InputTags(),
                    classifier_tags=ClassifierTags(multi_class=False) if kind == "classifier" else None,
                    regressor_tags=RegressorTags() if kind == "regressor" else None)

    def __repr__(self):
        params = ", ".join(f"{name}={value!r}" for name, value in self.get_params(deep=False).items())
        return f"{type(self).__name__}({params})"

    def _check_fitted(self):
        check_fitted(self, self._fitted_attribute)

    def _check_predict_input(self, X, ndim=2):
        """Validate ``X`` at predict time: fitted first, then finite values and the fitted number of features."""
        self._check_fitted()
        X = check_finite_array(X, "X", ndim=ndim)
        expected = getattr(self, "n_features_in_", None)
        if ndim == 2 and expected is not None and X.shape[1] != expected:
            raise ValueError(f"X must have {expected} features (columns), as in fit, got {X.shape[1]}")
        return X

    def score(self, X, y):
        """Accuracy of ``predict(X)`` against labels ``y`` in {−1, +1}: the fraction predicted right."""
        self._check_fitted()
        y = check_labels(y, "y")
        prediction = self.predict(X)
        check_same_length(prediction, y, "X", "y")
        return float(np.mean(prediction == y))


def linear_scores(X, coef, intercept=None):
    """X·coef + intercept for the rows of X, without overflow warnings or NaN, any finite X (the review's F2).

    The plain product first, so ordinary rows get exactly the numbers they always had. A
    row whose plain value is not finite (a coordinate near 1.8e308: inf, or inf − inf =
    NaN) is recomputed as 2^e·(u·coef + 2^−e·intercept) with x = 2^e·u, max|u| < 1 (an
    exact power-of-2 rescaling, as ``feature_scaling.radial_clip_factors`` divides by max|x_j|): the
    result is ±inf exactly when the true value exceeds the largest double, so its sign,
    and hence a prediction sign(·), is that of the true margin.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scores = X @ coef if intercept is None else X @ coef + intercept  # None: no + 0.0 (keeps −0.0)
    wild = ~np.isfinite(scores)
    if wild.any():
        rows = X[wild]
        _, exponent = np.frexp(np.max(np.abs(rows), axis=1))
        with np.errstate(over="ignore", under="ignore"):
            scaled = np.ldexp(rows, -exponent[:, None]) @ coef
            if intercept is not None:
                scaled = scaled + np.ldexp(intercept, -exponent)
            scores[wild] = np.ldexp(scaled, exponent)
    return scores


class LinearClassifierMixin:
    """``decision_function`` and ``predict`` of a learner whose output is a halfspace (coef_, intercept_).

    The halfspace learners (DP-SGD, the proper learner, DPSAS) release θ = (coef_, intercept_)
    privately; scoring and predicting with it are post-processing and cost no privacy. The mixin has no
    hyperparameter (its contract is its empty ``__init__``, as for :class:`Estimator`).

    Examples
    --------
    >>> mixin = LinearClassifierMixin()
    >>> class Halfspace(LinearClassifierMixin, Estimator):
    ...     _fitted_attribute = "coef_"
    >>> model = Halfspace()
    >>> model.coef_, model.intercept_, model.n_features_in_ = np.array([1.0, -1.0]), 0.0, 2
    >>> model.predict(np.array([[2.0, 1.0], [0.0, 3.0]]))
    array([ 1., -1.])
    """

    @validate_params({})
    def __init__(self):
        """No hyperparameters: the learner that mixes it in lists its own."""

    def decision_function(self, X):
        """⟨coef_, x⟩ + intercept_ for each row of X (post-processing). Cost O(n·d)."""
        X = self._check_predict_input(X)
        # feature_scaling.linear_scores: the plain X @ coef_ + intercept_, except that a huge finite row
        # gets the sign of its true margin (±inf), not inf − inf = NaN and an overflow warning.
        return linear_scores(X, self.coef_, self.intercept_)

    def predict(self, X):
        """sign(⟨coef_, x⟩ + intercept_) ∈ {−1, +1}, ties +1: a halfspace (post-processing). Cost O(n·d)."""
        return np.where(self.decision_function(X) >= 0, 1.0, -1.0)
