"""Chapter 9: the Table 1 rates as shapes (constants unknown) fitted to the measurements, and each learner's stated cost."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from .. import bounds
from ..bounds.proper import ALPHAS
from .._constraints import Check, Epsilon, OrNone, Options, POSITIVE, POSITIVE_INT, validate_params
from .._array_constraints import PositiveArray
from .._validation import check_sizes
from ..hermite import feature_dimension
from ..improper import practical_degree
from ..proper import degree_for_accuracy
from .table1 import AGNOSTIC_LEARNERS, SETTINGS, SETTINGS_OVERRIDES, check_with_gaps

_NOT_A_NUMBER = [("1", "'1'"), (True, "True"), (None, "None")]


def _check_dims(values, name):
    """d ≥ 1 or a non-empty 1-D sequence of them, returned as given (its shape says the output's)."""
    check_sizes(values, name, 1)
    return values


# NaN marks a missing measurement in these arrays (documented, allowed): the bad values are listed by hand.
_NOT_MEASURED = [(np.zeros(0), "empty"), (np.array([1.0, np.inf]), "inf"), (np.array(["1"]), "str"), (None, "None")]

__all__ = ["sample_complexity_shape", "excess_error_shape", "fit_shape_constant", "complexity_shape"]


def _shape_degree(name, settings):
    if name == "improper":
        return practical_degree(settings["improper"]["alpha"])  # the degree PrivateHermiteL1Learner uses
    return degree_for_accuracy(settings["proper"]["alpha"])


@validate_params({"name": Options(AGNOSTIC_LEARNERS),
                  "alpha": ALPHAS,  # Theorem 7.8's range 0 < α < 1/2, a scalar or an array (one rule, in bounds)
                  "epsilon": Epsilon(), "d": POSITIVE_INT, "degree": OrNone(POSITIVE_INT)})
def sample_complexity_shape(name, alpha, epsilon, d, degree=None):
    """Table 1's sample size of ``name`` at accuracy α, **shape only** (constants and logs dropped).

    * ``"improper"``: D_p/α² + D_p/(εα) (Theorem 6.12; ``bounds.hermite_l1_sample_complexity``);
    * ``"proper"``: D_p/α² + D_p/(εα) + α⁻⁶ + 1/(εα⁵) (Theorem 7.8; ``bounds.proper_sample_complexity_shape``);
    * ``"semi_agnostic"``: d/α² + d/(εα) (Theorem 8.11; ``bounds.dpsas_sample_complexity_rate``).

    The degree p is held fixed (the learners' practical degree; the theorems take p ≈ 1/α²).

    Parameters
    ----------
    name : {"improper", "proper", "semi_agnostic"}
    alpha : float or array_like in (0, 1/2)
    epsilon : float > 0
    d : int ≥ 1
    degree : int ≥ 1, optional (default: the practical degree, 3 or 4)

    Returns
    -------
    float or numpy.ndarray. Cost O(len(α)).

    Raises
    ------
    TypeError, ValueError
        For an unknown name or arguments out of range.

    Examples
    --------
    >>> round(sample_complexity_shape(name="improper", alpha=0.1, epsilon=1.0, d=2), 6)
    1100.0
    """
    alphas = alpha
    degree = _shape_degree(name, SETTINGS) if degree is None else degree
    if name == "improper":
        values = [bounds.hermite_l1_sample_complexity(d, degree, float(a), epsilon) for a in alphas.ravel()]
    elif name == "proper":
        values = [bounds.proper_sample_complexity_shape(float(a), epsilon, d, degree) for a in alphas.ravel()]
    else:
        values = [bounds.dpsas_sample_complexity_rate(d, float(a), epsilon) for a in alphas.ravel()]
    values = np.array(values, dtype=float).reshape(alphas.shape)
    return float(values) if values.ndim == 0 else values


@validate_params({"name": Options(AGNOSTIC_LEARNERS),
                  "ns": PositiveArray(),
                  "epsilon": Epsilon(), "d": POSITIVE_INT, "constant": POSITIVE, "degree": OrNone(POSITIVE_INT)})
def excess_error_shape(name, ns, epsilon, d, constant=1.0, degree=None):
    """The α at which ``constant · sample_complexity_shape(name, α, ε, d) = n``, for each n: the excess-error shape.

    Inverts the Table 1 rate numerically (the shape decreases in α), so a figure can draw
    "excess ≈ α(n)" next to the measured excess. **Shape only**; ``constant`` is fitted by
    :func:`fit_shape_constant`. Values are capped at 0.5 (no excess above 1/2 makes sense).

    Parameters
    ----------
    name : {"improper", "proper", "semi_agnostic"}
    ns : array_like of float > 0
    epsilon : float > 0
    d : int ≥ 1
    constant : float > 0
    degree : int ≥ 1, optional

    Returns
    -------
    numpy.ndarray, same shape as ns. Cost O(len(ns)·root finding).

    Raises
    ------
    TypeError, ValueError
        For an unknown name or arguments out of range.

    Examples
    --------
    >>> excess_error_shape(name="improper", ns=[1000.0, 5000.0], epsilon=1.0, d=2).round(4)
    array([0.1051, 0.0457])
    """
    degree = _shape_degree(name, SETTINGS) if degree is None else degree
    out = np.empty(ns.shape)
    for index, n in np.ndenumerate(ns):
        def gap(log_alpha):
            return math.log(constant * sample_complexity_shape(name, math.exp(log_alpha), epsilon, d, degree)) \
                - math.log(n)
        low, high = math.log(1e-8), math.log(0.4999)
        if gap(high) >= 0:
            out[index] = 0.5
        elif gap(low) < 0:  # brentq would fail with "f(a) and f(b) must have different signs"
            raise ValueError(f"constant = {constant!r} and ns entry {n:g} put the excess-error shape below α = 1e-8, "
                             f"the end of the root search; valid range: constant·shape(α = 1e-8) >= n")
        else:
            out[index] = math.exp(optimize.brentq(gap, low, high, xtol=1e-10))
    return out


# Check: arrays in which NaN marks a missing measurement (every array class refuses NaN)
@validate_params({"measured": Check(check_with_gaps, invalid=_NOT_MEASURED),
                  "shape": Check(check_with_gaps, invalid=_NOT_MEASURED)})
def fit_shape_constant(measured, shape):
    """The c minimising Σ (log measured − log(c·shape))² over the pairs where both are finite and > 0.

    The Table 1 rates are shapes; one fitted constant per learner puts the curve on the figure's
    scale (geometric mean of measured/shape). Returns NaN when no pair is usable.

    Parameters
    ----------
    measured, shape : array_like of the same shape, non-empty (NaN marks a missing value; no ±inf)

    Returns
    -------
    float. Cost O(size).

    Raises
    ------
    TypeError, ValueError
        For arrays of different shapes, empty or non-numeric arrays, ±inf.

    Examples
    --------
    >>> round(fit_shape_constant(measured=np.array([3.0, 30.0]), shape=np.array([1.0, 10.0])), 6)
    3.0
    """
    if measured.shape != shape.shape:
        raise ValueError(f"measured and shape must have the same shape, got {measured.shape} and {shape.shape}")
    usable = np.isfinite(measured) & np.isfinite(shape) & (measured > 0) & (shape > 0)
    if not np.any(usable):
        return math.nan
    return float(np.exp(np.mean(np.log(measured[usable]) - np.log(shape[usable]))))


# settings' values reach practical_degree and degree_for_accuracy, which check them: their checks stay on.
@validate_params({"name": Options(("improper", "proper", "semi_agnostic", "dp_sgd")),
                  # Check: sizes returned as given, not as a list (the output's shape follows d's)
                  "d": Check(_check_dims, invalid=[(0, "0"), (2.5, "2.5")] + _NOT_A_NUMBER, array_ndim=(0, 1)),
                  "n": POSITIVE_INT, "settings": SETTINGS_OVERRIDES}, skip_nested=False)
def complexity_shape(name, d, n, settings=None):
    """The stated running time of ``name`` at dimension d and sample size n, **shape only** (constants 1).

    * ``"improper"``: n·D_p (features) plus K·n·D_p (K = the fixed iteration count): K·n·D_p;
    * ``"proper"``: n·D_p (one pass of Hermite correlations) plus n·|H(q)|, |H(q)| independent of d
      with dim V capped (Table 1's exp(O(α⁻⁴ log 1/α)) factor is then a constant): n·D_p;
    * ``"semi_agnostic"``: n·d·log(1/α) (Table 1, row 4);
    * ``"dp_sgd"``: E·n·d (Algorithm 9.2).

    Parameters
    ----------
    name : {"improper", "proper", "semi_agnostic", "dp_sgd"}
    d : int ≥ 1 or non-empty 1-D sequence of them
    n : int ≥ 1
    settings : dict, optional (see :func:`fit_learner`)

    Returns
    -------
    float or numpy.ndarray. Cost O(len(d)).

    Raises
    ------
    TypeError, ValueError
        For an unknown name or arguments out of range.

    Examples
    --------
    >>> complexity_shape(name="dp_sgd", d=[2, 3], n=1000)
    array([10000., 15000.])
    """
    s = settings
    ds = [int(v) for v in np.atleast_1d(d).tolist()]
    out = []
    for dim in ds:
        if name == "improper":
            out.append(s["improper"]["n_iterations"] * n * feature_dimension(dim, _shape_degree(name, s)))
        elif name == "proper":
            out.append(n * feature_dimension(dim, _shape_degree(name, s)))
        elif name == "semi_agnostic":
            out.append(n * dim * math.log(1 / s["semi_agnostic"]["alpha"]))
        else:
            out.append(s["dp_sgd"]["n_epochs"] * n * dim)
    out = np.array(out, dtype=float)
    return float(out[0]) if np.ndim(d) == 0 else out
