"""Chapter 2 data: thresholds, halfspaces and parities with agnostic label noise.

Each generator returns (X, y) with labels ±1; ``n_datasets=S`` adds a
leading axis of S independent datasets (the chapter's experiments run
hundreds of seeds in one vectorised call).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._constraints import Check, FiniteInterval, Options, OrNone, POSITIVE_INT, validate_params
from .._array_constraints import Array
from .._validation import check_int, check_memory, check_finite_array

__all__ = ["threshold_data", "halfspace_data", "parity_data", "flip_labels"]

# Shared by the generators: a label noise rate η ∈ [0, 1), None or a number of datasets, a point of [0, 1].
NOISE_RATE = FiniteInterval(Real, 0, 1, closed="left")
N_DATASETS = OrNone(POSITIVE_INT)
UNIT_CLOSED = FiniteInterval(Real, 0, 1, closed="both")


def _chapter2_shape(n, n_datasets, d=None):
    """The leading shape (n,) or (n_datasets, n) of the checked sizes, refused if the arrays would not fit.

    ``d`` is the number of features per point: the (n_datasets, n, d) array is refused up front when
    it would exceed the memory limit.
    """
    shape = (n,) if n_datasets is None else (n_datasets, n)
    names = ("n",) if n_datasets is None else ("n_datasets", "n")
    check_memory(*zip(names, shape), *([("d", d)] if d is not None else []))
    return shape


def _check_pm_labels(labels, name):
    """The rule of :func:`flip_labels`' labels: a non-empty 1-D or 2-D array of ±1, returned with its own dtype."""
    arr = check_finite_array(labels, name, ndim=(1, 2))
    bad = ~np.isin(arr, (-1.0, 1.0))
    if np.any(bad):
        raise ValueError(f"{name} must contain only -1 and +1, found {arr[bad][0].item()!r}")
    return np.asarray(labels)


# Check: labels ±1 in 1-D or 2-D returned with their own dtype (Labels is 1-D float).
@validate_params({"labels": Check(_check_pm_labels, array_ndim=(1, 2), convert_nested=np.asarray,
                                  invalid=[(None, "None"), ([0.5], "[0.5]"), ([[[1.0]]], "3-D")]),
                  "noise_rate": NOISE_RATE, "rng": "random_state"})
def flip_labels(labels, noise_rate, rng):
    """Flip each ±1 label independently with probability η (random classification noise).

    Parameters
    ----------
    labels : array_like of ±1, shape (n,) or (n_datasets, n), non-empty
    noise_rate : float, 0 <= η < 1
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray, the same shape as ``labels``.

    Raises
    ------
    ValueError, TypeError
        Labels other than ±1 (or NaN, empty, more than 2 dimensions), η outside [0, 1), a bad ``rng``.

    Examples
    --------
    >>> flip_labels(labels=np.array([1.0, -1.0] * 6), noise_rate=0.1, rng=0).tolist()
    [1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, 1.0]
    """
    return flip_labels_prechecked(labels, noise_rate, rng)


def flip_labels_prechecked(labels, noise_rate, rng):
    """:func:`flip_labels` on an ndarray of ±1, η and a Generator its caller checked (the one home of the flip)."""
    return np.where(rng.random(labels.shape) < noise_rate, -labels, labels)


@validate_params({"n": POSITIVE_INT, "theta": UNIT_CLOSED, "noise_rate": NOISE_RATE,
                  "n_datasets": N_DATASETS, "rng": "random_state"})
def threshold_data(n, theta=0.37, noise_rate=0.1, n_datasets=None, rng=None):
    """x ~ U[0, 1], label +1 iff x >= θ, each label flipped w.p. η (chapter 2's threshold experiments).

    OPT over thresholds containing θ is η; the true error of any threshold is
    in closed form (``hypotheses.Thresholds.true_errors_uniform``).

    Parameters
    ----------
    n : int, >= 1
    theta : float, 0 <= θ <= 1
    noise_rate : float, 0 <= η < 1
    n_datasets : None or int >= 1
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (X, y)
        X of shape (n,) (or (n_datasets, n)) and y of the same shape, labels ±1.

    Raises
    ------
    ValueError, TypeError
        Any argument outside the ranges above.

    Examples
    --------
    >>> X, y = threshold_data(n=5, rng=0)
    >>> X.round(2).tolist(), y.tolist()
    ([0.64, 0.27, 0.04, 0.02, 0.81], [1, -1, -1, -1, 1])
    """
    X = rng.random(_chapter2_shape(n, n_datasets))
    return X, flip_labels_prechecked(np.where(X >= theta, 1, -1), noise_rate, rng)


@validate_params({"n": POSITIVE_INT, "normal": Array(ndim=1), "offset": FiniteInterval(Real, None, None),
                  "noise_rate": NOISE_RATE, "n_datasets": N_DATASETS, "rng": "random_state",
                  "clean": Options((False, True))})
def halfspace_data(n, normal, offset=0.0, noise_rate=0.0, n_datasets=None, rng=None, clean=False):
    """x ~ U[−1, 1]^d, label +1 iff ⟨w*, x⟩ >= b*, flipped w.p. η (chapter 2's halfspace experiments).

    ``clean=True`` returns the noise-free labels (for estimating true errors
    on a test sample).

    Parameters
    ----------
    n : int, >= 1
    normal : array_like of shape (d,)
        The target's normal w* (finite; need not be unit length).
    offset : float
        The target's offset b*.
    noise_rate : float, 0 <= η < 1
    n_datasets : None or int >= 1
    rng : None, int or numpy.random.Generator
    clean : bool

    Returns
    -------
    (X, y)
        X of shape (n, d) (or (n_datasets, n, d)), y of shape (n,) (or (n_datasets, n)).

    Raises
    ------
    ValueError, TypeError
        Any argument outside the ranges above.

    Examples
    --------
    >>> X, y = halfspace_data(n=5, normal=np.array([1.0, 0.0]), rng=0)
    >>> X.shape, y.tolist()
    ((5, 2), [1, -1, 1, 1, 1])
    """
    X = rng.uniform(-1.0, 1.0, _chapter2_shape(n, n_datasets, normal.size) + (normal.size,))
    labels = np.where(X @ normal >= offset, 1, -1)
    return X, (labels if clean else flip_labels_prechecked(labels, noise_rate, rng))


@validate_params({"n": POSITIVE_INT, "d": FiniteInterval(Integral, 1, 30, closed="both"),
                  "secret": FiniteInterval(Integral, 0, None, closed="left"), "noise_rate": NOISE_RATE,
                  "n_datasets": N_DATASETS, "rng": "random_state"})
def parity_data(n, d, secret, noise_rate=0.0, n_datasets=None, rng=None):
    """x ~ U{0,1}^d (int 0/1), label (−1)^{⟨r*, x⟩ mod 2} for the secret r* (bit j of ``secret`` is r*_j), noise η.

    Parameters
    ----------
    n : int, >= 1
    d : int, 1 <= d <= 30
    secret : int, 0 <= secret < 2^d
    noise_rate : float, 0 <= η < 1
    n_datasets : None or int >= 1
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (X, y)
        X (int 0/1) of shape (n, d) (or (n_datasets, n, d)); y (±1) of shape (n,) (or (n_datasets, n)).

    Raises
    ------
    ValueError, TypeError
        Any argument outside the ranges above.

    Examples
    --------
    >>> X, y = parity_data(n=5, d=3, secret=5, rng=0)
    >>> X.tolist(), y.tolist()
    ([[1, 1, 1], [0, 0, 0], [0, 0, 0], [1, 1, 1], [1, 1, 1]], [1, 1, 1, 1, 1])
    """
    check_int(secret, "secret", minimum=0, maximum=2 ** d - 1)  # its range depends on d
    X = rng.integers(0, 2, size=_chapter2_shape(n, n_datasets, d) + (d,))
    secret_bits = (secret >> np.arange(d)) & 1
    labels = 1 - 2 * ((X @ secret_bits) & 1)
    return X, flip_labels_prechecked(labels, noise_rate, rng)
