"""Chapter 2 data: thresholds, halfspaces and parities with agnostic label noise.

Each generator returns (X, y) with labels ±1; ``n_datasets=S`` adds a
leading axis of S independent datasets (the chapter's experiments run
hundreds of seeds in one vectorised call).
"""

from __future__ import annotations

import numpy as np

from .._validation import as_rng, check_finite_array, check_int, check_memory, check_probability, check_real_array

__all__ = ["threshold_data", "halfspace_data", "parity_data", "flip_labels"]


def _chapter2_shape(n, n_datasets, d=None):
    """Validate n (and n_datasets) and return the leading shape (n,) or (n_datasets, n).

    ``d`` (already validated) is the number of features per point: the (n_datasets, n, d) array is
    refused up front when it would exceed the memory limit.
    """
    n = check_int(n, "n", minimum=1)
    shape = (n,) if n_datasets is None else (check_int(n_datasets, "n_datasets", minimum=1), n)
    names = ("n",) if n_datasets is None else ("n_datasets", "n")
    check_memory(*zip(names, shape), *([("d", d)] if d is not None else []))
    return shape


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
    """
    arr = check_real_array(labels, "labels", ndim=(1, 2))
    bad = ~np.isin(arr, (-1.0, 1.0))
    if np.any(bad):
        raise ValueError(f"labels must contain only -1 and +1, found {arr[bad][0].item()!r}")
    noise_rate = check_probability(noise_rate, "noise_rate", low_open=False)
    return flip_labels_prechecked(np.asarray(labels), noise_rate, as_rng(rng))


def flip_labels_prechecked(labels, noise_rate, rng):
    """:func:`flip_labels` on inputs its caller has validated (the generators below)."""
    return np.where(rng.random(labels.shape) < noise_rate, -labels, labels)


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
    """
    shape = _chapter2_shape(n, n_datasets)
    theta = check_probability(theta, "theta", low_open=False, high_open=False)
    noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
    rng = as_rng(rng)
    X = rng.random(shape)
    return X, flip_labels_prechecked(np.where(X >= theta, 1, -1), noise_rate, rng)


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
    """
    normal = check_finite_array(normal, "normal", ndim=1)
    offset = float(check_finite_array(offset, "offset", ndim=0))
    noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
    rng = as_rng(rng)
    X = rng.uniform(-1.0, 1.0, _chapter2_shape(n, n_datasets, normal.size) + (normal.size,))
    labels = np.where(X @ normal >= offset, 1, -1)
    return X, (labels if clean else flip_labels_prechecked(labels, noise_rate, rng))


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
    """
    d = check_int(d, "d", minimum=1, maximum=30)
    secret = check_int(secret, "secret", minimum=0, maximum=2 ** d - 1)
    noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
    rng = as_rng(rng)
    X = rng.integers(0, 2, size=_chapter2_shape(n, n_datasets, d) + (d,))
    secret_bits = (secret >> np.arange(d)) & 1
    labels = 1 - 2 * ((X @ secret_bits) & 1)
    return X, flip_labels_prechecked(labels, noise_rate, rng)
