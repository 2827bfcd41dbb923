"""Chapter 1 data: survey bits, votes, and replace-one neighbours."""

from __future__ import annotations

import numpy as np

from .._constraints import POSITIVE_INT, Check, Integral, FiniteInterval, Real, validate_params
from .._array_constraints import Array
from .._validation import check_bits, check_finite_array, check_int, check_memory

__all__ = ["bernoulli_bits", "replace_one", "vote_counts"]


@validate_params({"n": POSITIVE_INT, "p": FiniteInterval(Real, 0, 1, closed="both"), "rng": "random_state"})
def bernoulli_bits(n, p, rng=None):
    """n i.i.d. Bernoulli(p) bits (int 0/1): the "smokers" survey of chapter 1.

    Parameters
    ----------
    n : int, n >= 1
    p : float, 0 <= p <= 1
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (n,)

    Raises
    ------
    ValueError, TypeError
        n < 1, n beyond the memory limit (``MAX_MEMORY_BYTES``), p outside [0, 1], a bad ``rng``.

    Examples
    --------
    >>> bernoulli_bits(n=5, p=0.3, rng=0)
    array([0, 1, 1, 1, 0])
    """
    check_memory(("n", n))
    return (rng.random(n) < p).astype(int)


def _check_records(data, name):
    """A copy of ``data`` as an array of numbers or booleans, non-empty, finite (its dtype kept)."""
    data = np.array(data, copy=True)
    if data.dtype.kind not in "iufb":
        raise TypeError(f"{name} must be an array of numbers or booleans, got dtype {data.dtype}")
    if data.ndim == 0 or data.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty array of records, got shape {data.shape}")
    if data.dtype.kind in "fc" and not np.all(np.isfinite(data)):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf), found "
                         f"{data[~np.isfinite(data)][0]!r}")
    return data


def _check_record_values(new_record, name):
    """``new_record`` unchanged once it holds booleans or finite numbers (whether it fits ``data`` is a relation)."""
    if np.asarray(new_record).dtype != bool:
        check_finite_array(new_record, name)
    return new_record


# Check: records of numbers or booleans, copied with their own dtype (a bool data set stays bool).
@validate_params({"data": Check(_check_records, array_ndim=(1, 2, 3), convert_nested=lambda data: np.array(data),
                                invalid=[(None, "None"), ([], "[]")]),
                  "index": FiniteInterval(Integral, None, None),
                  # Check: a record of booleans or finite numbers, returned unchanged (its fit to data is a relation).
                  "new_record": Check(_check_record_values, invalid=[("1", "'1'"), (None, "None"),
                                                                     (float("nan"), "nan")])})
def replace_one(data, index, new_record):
    """A replace-one neighbour: a copy of ``data`` with row ``index`` set to ``new_record``.

    Parameters
    ----------
    data : array_like, non-empty
    index : int, −len(data) <= index < len(data)
    new_record : scalar or array_like
        Broadcastable to one row of ``data``.

    Returns
    -------
    ndarray
        A new array; ``data`` is not modified.

    Raises
    ------
    ValueError, TypeError
        Empty ``data`` or with NaN/inf, an index out of range, or a record of the wrong shape.

    Examples
    --------
    >>> bits = np.array([0, 1, 1, 0, 1])
    >>> replace_one(data=bits, index=1, new_record=0)
    array([0, 0, 1, 0, 1])
    """
    index = check_int(index, "index", minimum=-len(data), maximum=len(data) - 1)  # a relation: needs len(data)
    data[index] = _check_new_record(new_record, data)
    return data


def _check_new_record(new_record, data):
    """``new_record`` as a finite row for ``data`` (booleans only for boolean data); never silently truncated."""
    if data.dtype == bool:
        return check_bits(new_record, "new_record")
    record = check_finite_array(new_record, "new_record")
    if data.dtype.kind in "iu" and not np.all(record == np.round(record)):
        raise ValueError(f"new_record must hold whole numbers, as data has integer dtype {data.dtype} (assigning "
                         f"{record.ravel()[0].item()!r} would truncate it), got {new_record!r}")
    try:
        np.broadcast_to(record, data.shape[1:])
    except ValueError:
        raise ValueError(f"new_record must be broadcastable to one row of data, shape {data.shape[1:]}, "
                         f"got shape {record.shape}") from None
    return record


def _check_preferences(preferences, name):
    """Candidate probabilities: a non-empty finite 1-D array, non-negative, summing to 1."""
    prefs = check_finite_array(preferences, name, ndim=1)
    if np.any(prefs < 0) or not np.isclose(prefs.sum(), 1.0):
        raise ValueError(f"{name} must be non-negative and sum to 1, got sum {prefs.sum()!r}")
    return prefs


@validate_params({"n_voters": POSITIVE_INT, "rng": "random_state",
                  # Check: a probability vector (non-negative, summing to 1): one routine's rule.
                  "preferences": Check(_check_preferences, array_ndim=1, convert_nested=Array.convert_nested,
                                       invalid=[([0.5, 0.6], "sum 1.1"), ([-0.5, 1.5], "negative"), (None, "None")])})
def vote_counts(n_voters, preferences, rng=None):
    """Votes of ``n_voters`` for candidates drawn with probabilities ``preferences``.

    Returns the count per candidate: a score vector of sensitivity 1 for the
    exponential mechanism (one voter changing their vote moves two counts by 1).

    Parameters
    ----------
    n_voters : int, >= 1
    preferences : array_like of float
        Candidate probabilities, non-negative and summing to 1.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (len(preferences),)

    Raises
    ------
    ValueError, TypeError
        n_voters < 1, preferences empty, negative, non-finite or not summing to 1.

    Examples
    --------
    >>> vote_counts(n_voters=10, preferences=[0.2, 0.3, 0.5], rng=0)
    array([2, 2, 6])
    """
    return rng.multinomial(n_voters, preferences)
