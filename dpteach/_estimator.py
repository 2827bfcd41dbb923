"""The small fit/predict base every dpteach learner shares (scikit-learn conventions, scikit-learn optional).

- ``__init__`` only stores its arguments, under the same names;
- ``fit(X, y)`` validates, learns, sets attributes ending in ``_`` and returns ``self``;
- ``predict`` before ``fit`` raises :class:`NotFittedError` (scikit-learn's, subclassed), which names the class;
- a classifier's labels are its **public** parameter ``classes`` (default ``(-1, 1)``): ``fit`` maps ``y``
  through it to the ±1 of the algorithm, ``predict`` maps back, ``classes_`` is the parameter. They are never
  read from the data: ``np.unique(y)`` would release which labels occur;
- ``score(X, y)`` is the accuracy of ``predict`` (regressors override it with R²);
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
import warnings
from numbers import Real

import numpy as np

from ._constraints import Constraint, Unchecked, validate_params
from ._validation import check_finite_array, check_same_length

__all__ = ["NotFittedError", "Estimator", "LinearClassifierMixin", "check_fitted"]


try:  # scikit-learn is optional: requirements.txt pins it (chapters 9-10), pyproject.toml does not require it
    from sklearn.exceptions import DataConversionWarning
    from sklearn.exceptions import NotFittedError as _BaseNotFittedError
except ImportError:  # pragma: no cover - the book's environment has scikit-learn
    DataConversionWarning = UserWarning
    _BaseNotFittedError = type("NotFittedError", (ValueError, AttributeError), {})  # scikit-learn's own bases


class NotFittedError(_BaseNotFittedError):
    """Raised by ``predict``/``score`` before ``fit``: scikit-learn's ``NotFittedError`` (a subclass of it).

    So ``except sklearn.exceptions.NotFittedError`` and scikit-learn's own checks catch it. It is a ValueError
    and an AttributeError (scikit-learn's bases, kept without scikit-learn too), so code that probed for a
    fitted attribute with ``hasattr`` keeps working.

    Examples
    --------
    >>> error = NotFittedError("this DPLasso is not fitted yet: call DPLasso.fit(X, y) before using it")
    >>> isinstance(error, ValueError), isinstance(error, AttributeError)
    (True, True)
    """


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


# --- labels: the public ``classes`` of a binary classifier ---------------------------------------------------------

def class_array(classes, name="classes"):
    """``classes`` as a 2-entry array (negative label, positive label), after checking it is two distinct labels.

    Both strings, or both finite real numbers (their array keeps numpy's dtype: ``(-1, 1)`` gives ints).
    """
    if isinstance(classes, (str, bytes)) or not hasattr(classes, "__len__"):
        raise TypeError(f"{name} must be a pair (negative label, positive label) such as (-1, 1) or ('no', 'yes'), "
                        f"got {classes!r}")
    labels = list(classes)
    if len(labels) != 2:
        raise ValueError(f"{name} must hold exactly two labels (a binary classifier: negative, positive), "
                         f"got {len(labels)}: {classes!r}")
    if all(isinstance(label, str) for label in labels):
        array = np.array(labels)
    elif all(isinstance(label, Real) for label in labels) and all(np.isfinite(float(label)) for label in labels):
        array = np.array(labels)
    else:
        raise TypeError(f"{name} must hold two strings or two finite real numbers, got {classes!r}")
    if array[0] == array[1]:
        raise ValueError(f"{name} must hold two distinct labels, got {classes!r}")
    return array


def check_label_array(y, name="y"):
    """``y`` as a 1-D array of labels (any dtype: which labels may occur is the learner's ``classes``).

    A column ``(n, 1)`` is raveled with a ``DataConversionWarning``, as scikit-learn does: the warning
    depends on the shape the caller chose, never on a record.
    """
    if y is None:
        raise ValueError(f"{name} must be an array of labels, got None: fit requires y to be passed, "
                         f"but the target y is None")
    try:
        array = np.asarray(y)
    except (TypeError, ValueError) as err:  # a ragged list
        raise TypeError(f"{name} must be an array of labels, got {type(y).__name__} ({err})") from None
    if array.ndim == 2 and array.shape[1] == 1:
        warnings.warn(DataConversionWarning(
            f"A column-vector {name} was passed when a 1d array was expected. Please change the shape of {name} "
            f"to (n_samples,), for example using ravel()."), stacklevel=4)
        array = array.ravel()
    if array.ndim != 1:
        raise ValueError(f"{name} must have 1 dimension (or be a column (n, 1)), got an array of shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty, got an array of shape {array.shape}")
    return array


def encode_labels(y, classes, name="y"):
    """The labels ``y`` as the algorithm's ±1: ``classes[0]`` → −1.0, ``classes[1]`` → +1.0; any other label is refused.

    ``classes`` is the learner's public parameter (:func:`class_array`), never ``np.unique(y)``: reading the
    labels from the data would release which labels occur. Cost O(n).
    """
    labels = np.asarray(y)
    numeric = classes.dtype.kind in "biuf"
    if labels.dtype.kind == "O" or labels.dtype.kind in ("biufc" if numeric else "U"):
        positive = labels == classes[1]
        known = positive | (labels == classes[0])
    else:  # strings against numbers (or numbers, bytes against strings): no label can match
        positive = known = np.zeros(labels.shape, dtype=bool)
    if not known.all():
        index = int(np.flatnonzero(~known)[0])
        value = labels[index].item() if isinstance(labels[index], np.generic) else labels[index]
        allowed = tuple(classes.tolist())
        found = f"{name} must contain only the labels of classes={allowed}, found {value!r} (at index {index})"
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(f"{found}. Unknown label type: continuous (a classifier's labels are its two classes)")
        raise ValueError(f"{found}. Only binary classification is supported: the two labels are the parameter classes")
    return np.where(positive, 1.0, -1.0)


class BinaryClasses(Constraint):
    """A classifier's ``classes``: two distinct labels (negative, positive), two strings or two finite numbers.

    Public, so it is a parameter: the labels are never read from the data. Checked on every fit, nested
    ones too (two values; ``fit`` maps ``y`` through them).
    """

    skip_nested = False

    def validate(self, value, name):
        return class_array(value, name)

    nested = validate

    def invalid_values(self):
        return [((1, 1), "(1, 1)"), ((-1, 0, 1), "(-1, 0, 1)"), ("ab", "'ab'"), (None, "None"),
                ((0, float("nan")), "(0, nan)"), ((0, "yes"), "(0, 'yes')")]


class ClassLabels(Constraint):
    """A classifier's ``y``: a 1-D array (or a column) of labels; ``fit`` maps them through ``classes``.

    Checked on every call (an ``np.asarray`` and a shape): a nested fit needs the 1-D array too.
    ``array_ndim`` tells the fuzz that a column is accepted.
    """

    skip_nested = False
    array_ndim = (1, 2)

    def validate(self, value, name):
        return check_label_array(value, name)

    nested = validate

    def invalid_values(self):
        return [([0.5], "[0.5]"), (None, "None"), (["1"], "['1']"), (np.zeros((3, 2)), "shape (3, 2)")]


class Estimator:
    """Base class: parameter ``repr``, the not-fitted check and the accuracy ``score``.

    Subclasses list their constructor arguments in ``__init__`` and store each
    one unchanged as an attribute of the same name (all checks happen in ``fit``:
    ``clone`` rebuilds a learner from ``get_params`` and requires the very same
    objects back); they set ``_fitted_attribute`` to an attribute that ``fit``
    creates, and ``_estimator_type`` to "classifier" or "regressor".

    Each subclass declares its hyperparameters' constraints in ``_parameter_constraints`` (checked at the
    top of ``fit`` by :func:`dpteach._constraints.fit_context`). A classifier takes ``classes`` (declared
    ``BinaryClasses()``), maps ``y`` with :meth:`_fit_labels` in ``fit`` and its ±1 outputs with
    :meth:`_labels` in ``predict``.

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

    @classmethod
    def _parameter_names(cls):
        signature = inspect.signature(cls.__init__)
        return [p.name for p in signature.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

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
        """Validate ``X`` at predict time: fitted first, then finite values and the fitted number of features.

        Worded as scikit-learn words it (its checks match "Reshape your data" and "X has 3 features, but").
        """
        self._check_fitted()
        X = check_finite_array(X, "X")
        if X.ndim != ndim:
            reshape = (": Reshape your data either using X.reshape(-1, 1) if your data has a single feature or "
                       "X.reshape(1, -1) if it contains a single sample") if X.ndim == 1 else ""
            raise ValueError(f"X must have {ndim} dimension(s), got an array of shape {X.shape}{reshape}")
        expected = getattr(self, "n_features_in_", None)
        if ndim == 2 and expected is not None and X.shape[1] != expected:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting {expected} "
                             f"features as input (as in fit)")
        return X

    def _fit_labels(self, y):
        """``y`` as the algorithm's ±1 (``classes[0]`` → −1, ``classes[1]`` → +1); sets ``classes_``.

        ``classes_`` is the public parameter ``classes``, never ``np.unique(y)``: reading the labels from the
        data would release which labels occur (a data set whose labels are all +1 would be told apart from its
        neighbour with one −1 by the fitted attribute alone, whatever the noise).
        """
        self.classes_ = class_array(self.classes)
        return encode_labels(y, self.classes_)

    def _labels(self, signs):
        """The algorithm's ±1 outputs as labels of ``classes_`` (post-processing). The default (-1, 1) returns
        ``signs`` itself: the same values and dtype as before ``classes`` existed."""
        negative, positive = self.classes_
        if negative == -1 and positive == 1:
            return signs
        return np.where(signs > 0, positive, negative)

    def score(self, X, y):
        """Accuracy of ``predict(X)`` against labels ``y`` (labels of ``classes``): the fraction predicted right."""
        self._check_fitted()
        y = check_label_array(y, "y")
        encode_labels(y, self.classes_)  # refuses a label outside classes, by name
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
    hyperparameter.

    Examples
    --------
    >>> mixin = LinearClassifierMixin()
    >>> class Halfspace(LinearClassifierMixin, Estimator):
    ...     _fitted_attribute = "coef_"
    >>> model = Halfspace()
    >>> model.coef_, model.intercept_, model.n_features_in_ = np.array([1.0, -1.0]), 0.0, 2
    >>> model.classes_ = np.array(["no", "yes"])
    >>> model.predict(np.array([[2.0, 1.0], [0.0, 3.0]]))
    array(['yes', 'no'], dtype='<U3')
    """

    def decision_function(self, X):
        """⟨coef_, x⟩ + intercept_ for each row of X (post-processing). Cost O(n·d)."""
        X = self._check_predict_input(X)
        # feature_scaling.linear_scores: the plain X @ coef_ + intercept_, except that a huge finite row
        # gets the sign of its true margin (±inf), not inf − inf = NaN and an overflow warning.
        return linear_scores(X, self.coef_, self.intercept_)

    def predict(self, X):
        """sign(⟨coef_, x⟩ + intercept_), ties +1, as a label of ``classes_``: a halfspace (post-processing). Cost O(n·d)."""
        return self._labels(np.where(self.decision_function(X) >= 0, 1.0, -1.0))
