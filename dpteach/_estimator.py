"""The small fit/predict base every dpteach learner shares (scikit-learn conventions, no scikit-learn).

- ``__init__`` only stores its arguments, under the same names;
- ``fit(X, y)`` validates, learns, sets attributes ending in ``_`` and returns ``self``;
- ``predict`` before ``fit`` raises :class:`NotFittedError`, which names the class;
- ``score(X, y)`` is the accuracy of ``predict`` on ±1 labels (regressors override it with R²);
- ``repr`` shows the constructor's parameters, so a printed learner says how it was configured.
"""

from __future__ import annotations

import inspect

import numpy as np

from ._validation import check_finite_array, check_labels, check_same_length

__all__ = ["NotFittedError", "Estimator", "check_fitted"]


class NotFittedError(ValueError, AttributeError):
    """Raised by ``predict``/``score`` before ``fit``.

    A ValueError (as in scikit-learn) and an AttributeError, so code that
    probed for a fitted attribute with ``hasattr`` keeps working.
    """


def check_fitted(estimator, attribute):
    """Raise :class:`NotFittedError` naming the class unless ``estimator.<attribute>`` exists."""
    if not hasattr(estimator, attribute):
        name = type(estimator).__name__
        raise NotFittedError(f"this {name} is not fitted yet: call {name}.fit(X, y) before using it")


class Estimator:
    """Base class: parameter ``repr``, the not-fitted check and the accuracy ``score``.

    Subclasses list their constructor arguments in ``__init__`` and store each
    one unchanged as an attribute of the same name; they set ``_fitted_attribute``
    to an attribute that ``fit`` creates.
    """

    _fitted_attribute = "n_features_in_"

    @classmethod
    def _parameter_names(cls):
        signature = inspect.signature(cls.__init__)
        return [p.name for p in signature.parameters.values()
                if p.name != "self" and p.kind is not p.VAR_KEYWORD]

    def get_params(self):
        """The constructor's parameters and their current values, as a dict."""
        return {name: getattr(self, name) for name in self._parameter_names()}

    def __repr__(self):
        params = ", ".join(f"{name}={value!r}" for name, value in self.get_params().items())
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
