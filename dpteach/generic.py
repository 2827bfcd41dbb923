"""The generic private learner of chapter 2 ("What can we learn privately?").

Kasiviswanathan, Lee, Nissim, Raskhodnikova & Smith (2011) show that every
finite hypothesis class H can be learned privately: run the exponential
mechanism over H with the score q(z, h) = −(number of training errors of h).
This module holds the learner, :func:`generic_private_learner`
(Algorithm 2.4 of chapter 2, ε-DP by Theorem 2.5), its estimator form
:class:`GenericPrivateLearner`, non-private :func:`erm`, and the selection
step on precomputed error counts (:func:`select_hypotheses`). The classes
live in :mod:`dpteach.hypotheses` and the chapter's experiment helpers in
:mod:`dpteach.experiments.generic` (import them from there).
"""

from __future__ import annotations

import math

import numpy as np

from ._constraints import Epsilon, OrNone, POSITIVE_INT, fit_context, validate_params
from ._array_constraints import Array, Labels
from ._estimator import BinaryClasses, ClassLabels, Estimator
from .hypotheses import HYPOTHESIS_CLASS
from .mechanisms import exponential_mechanism, exponential_mechanism_on_errors
from .privacy import PrivacyReceipt, PrivacyStep, privacy_claim
from .composition import basic_composition

__all__ = ["generic_private_learner", "GenericPrivateLearner", "erm", "select_hypotheses"]

# The data of every routine here: n points X (on the line: shape (n,) or (n, 1); in R^d: (n, d)) and ±1 labels y.
DATA = {"X": Array(ndim=(1, 2)), "y": Labels()}
# The contract of the learner and of its broken variant (the same inputs, so the audit compares like with like).
LEARNER = {"hypotheses": HYPOTHESIS_CLASS, **DATA, "epsilon": Epsilon(), "rng": "random_state",
           "size": OrNone(POSITIVE_INT)}


@privacy_claim(theorem="thm-generic-privacy", epsilon="epsilon", delta=0.0)
@validate_params(LEARNER)
def generic_private_learner(hypotheses, X, y, epsilon, rng=None, size=None):
    """The generic private learner A_q of Kasiviswanathan et al. (chapter 2, Algorithm 2.4).

    Outputs h ∈ H with probability ∝ exp(−ε·errors_z(h)/2): the exponential
    mechanism with score q(z, h) = −|{i : h(x_i) ≠ y_i}|, whose sensitivity
    is 1 because replacing one labelled example changes every error count
    by at most 1. Hence ε-DP with respect to replacing one example
    (Theorem 2.5), and an agnostic PAC learner once n is as large as
    ``bounds.generic_learner_sample_complexity`` (Theorem 2.6).

    Parameters
    ----------
    hypotheses : HypothesisClass
        A finite, public class H with |H| >= 1.
    X, y : array_like
        The n labelled examples; y in {−1, +1}.
    epsilon : float
        0 < ε < inf.
    rng : None, int or numpy.random.Generator
    size : None or int
        None returns one index; an int returns that many independent runs
        (on the same data) as an array.

    Returns
    -------
    int or ndarray of int
        Index of the chosen hypothesis in H.

    Raises
    ------
    ValueError / TypeError
        Empty class, ε out of range, labels not ±1, NaN/inf in X, X and y of
        different lengths.

    Cost: one :meth:`~HypothesisClass.error_counts` call plus O(|H|) per sample.

    Examples
    --------
    >>> from dpteach.hypotheses import thresholds
    >>> X, y = np.linspace(0.05, 0.95, 8), np.array([1.0, -1.0] * 4)
    >>> generic_private_learner(hypotheses=thresholds(np.linspace(0, 1, 5)), X=X, y=y, epsilon=1.0, rng=0)
    3
    """
    errors = hypotheses.error_counts(X, y)
    return exponential_mechanism_on_errors(errors, epsilon, rng=rng, size=size)  # score −errors, sensitivity 1


@validate_params(LEARNER)
def broken_generic_learner_no_factor_2(hypotheses, X, y, epsilon, rng=None, size=None):
    """DELIBERATELY BROKEN (for audit demonstrations and tests): weights exp(−ε·errors), the factor 2 dropped.

    Passing sensitivity 1/2 to the exponential mechanism makes the weights
    exp(−ε·e_h) instead of exp(−ε·e_h/2): the output is only 2ε-DP, because
    error counts can move in opposite directions between neighbours
    (Theorem 2.5's proof needs the 2). Chapter 2's audit catches it. Never use
    it to release data; not in ``__all__``.
    """
    errors = hypotheses.error_counts(X, y)
    return exponential_mechanism(-errors, sensitivity=0.5, epsilon=epsilon, rng=rng, size=size)


@privacy_claim(theorem="thm-generic-privacy", epsilon="epsilon", delta=0.0)
class GenericPrivateLearner(Estimator):
    """Estimator form of the generic private learner (Algorithm 2.4), ε-DP.

    Parameters
    ----------
    hypotheses : HypothesisClass
        A finite, public class H (fixed before seeing the data).
    epsilon : float
        0 < ε < inf.
    random_state : None, int or numpy.random.Generator
    classes : pair of labels, keyword-only
        (negative, positive), default (-1, 1): the labels of ``y`` and of ``predict``, mapped to the algorithm's
        ∓1. Public: ``classes_`` is this parameter, never read from the data (``np.unique(y)`` would release
        which labels occur). A label of ``y`` outside it is refused, by name.

    Attributes
    ----------
    index_ : int
        Index in H of the hypothesis chosen by :meth:`fit`.
    hypothesis_ : Hypothesis
        That hypothesis (``hypothesis_.params`` describes it). Nothing else
        about the data is stored: the training error counts are not private.
    privacy_ : PrivacyReceipt
        ε-DP (δ = 0) by Theorem 2.5.

    Raises
    ------
    NotFittedError
        ``predict``/``score`` before ``fit``.
    ValueError, TypeError
        At ``fit``: as :func:`generic_private_learner`.

    Examples
    --------
    >>> from dpteach.hypotheses import thresholds
    >>> X, y = np.linspace(0.05, 0.95, 8), np.array([1.0, -1.0] * 4)
    >>> model = GenericPrivateLearner(thresholds(np.linspace(0, 1, 5)), epsilon=1.0, random_state=0).fit(X, y)
    >>> model.index_, model.predict(X).tolist()
    (3, [-1, -1, -1, -1, -1, -1, 1, 1])
    """

    _fitted_attribute = "index_"
    _parameter_constraints = {"hypotheses": HYPOTHESIS_CLASS, "epsilon": Epsilon(), "random_state": "random_state",
                              "classes": BinaryClasses()}

    def __init__(self, hypotheses, epsilon, random_state=None, *, classes=(-1, 1)):
        self.hypotheses = hypotheses
        self.epsilon = epsilon
        self.random_state = random_state
        self.classes = classes

    @fit_context({"X": DATA["X"], "y": ClassLabels()})
    def fit(self, X, y):
        """Choose h ∈ H with probability ∝ exp(−ε·errors(h)/2); returns self. Cost: one error count pass."""
        y = self._fit_labels(y)  # the labels of the public classes as ±1 (never read from y)
        self.index_ = int(generic_private_learner(self.hypotheses, X, y, self.epsilon,
                                                  rng=np.random.default_rng(self.random_state)))
        self.hypothesis_ = self.hypotheses[self.index_]
        self.privacy_ = PrivacyReceipt(
            steps=[PrivacyStep(f"exponential mechanism over {len(self.hypotheses)} hypotheses (error count, "
                               f"sensitivity 1)", f"all {len(y)} examples", float(self.epsilon), 0.0,
                               "thm-exponential-mechanism-privacy")],
            composition=basic_composition, theorem="thm-generic-privacy",
            why="the error count has sensitivity 1 and H is fixed before the data")
        return self

    def predict(self, X):
        """The chosen hypothesis's ±1 as labels of ``classes_`` (post-processing: no extra privacy cost)."""
        self._check_fitted()
        return self._labels(self.hypotheses.predict(self.index_, X))


@validate_params({"hypotheses": HYPOTHESIS_CLASS, **DATA, "rng": "random_state"})
def erm(hypotheses, X, y, rng=None):
    """Non-private empirical risk minimisation over H: an h with the fewest training errors.

    Ties are broken uniformly at random (so ERM is the ε → ∞ limit of the
    generic learner). Not private. Cost as :meth:`~HypothesisClass.error_counts`.

    Examples
    --------
    >>> from dpteach.hypotheses import thresholds
    >>> X, y = np.linspace(0.05, 0.95, 8), np.array([1.0, -1.0] * 4)
    >>> erm(hypotheses=thresholds(np.linspace(0, 1, 5)), X=X, y=y, rng=0)
    3
    """
    return int(select_hypotheses(hypotheses.error_counts(X, y)[None], math.inf, rng)[0])


@validate_params({"error_counts": Array(ndim=(1, 2, 3, 4)), "epsilon": Epsilon(allow_inf=True), "rng": "random_state"})
def select_hypotheses(error_counts, epsilon, rng=None):
    """Run the learner's selection step on each row of an array of error counts.

    Each row goes through ``mechanisms.exponential_mechanism_on_errors``
    (score −errors, sensitivity 1: exactly what :func:`generic_private_learner`
    does after counting); ε = inf means ERM with uniform tie-breaking
    (non-private, for reference curves).

    Parameters
    ----------
    error_counts : array_like, shape (..., |H|)
    epsilon : float, 0 < ε <= inf
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (...)
        The chosen index per row. Cost O(|H|) per row.

    Examples
    --------
    >>> select_hypotheses(error_counts=np.array([3, 1, 2]), epsilon=1.0, rng=0)
    array(2)
    >>> select_hypotheses(np.array([[3, 1, 2], [0, 4, 4]]), epsilon=np.inf, rng=0).tolist()   # ERM
    [1, 0]
    """
    counts = error_counts
    rows = counts.reshape(-1, counts.shape[-1])
    chosen = np.array([exponential_mechanism_on_errors(row, epsilon, rng) for row in rows], dtype=np.int64)
    return chosen.reshape(counts.shape[:-1])
