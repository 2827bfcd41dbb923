"""Chapter 1 data: survey bits, votes, and replace-one neighbours."""

from __future__ import annotations

import numpy as np

from .._validation import as_rng, check_bits, check_finite_array, check_int, check_memory, check_probability

__all__ = ["bernoulli_bits", "replace_one", "vote_counts"]

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
    """
    n = check_int(n, "n", minimum=1)
    check_memory(("n", n))
    p = check_probability(p, "p", low_open=False, high_open=False)
    return (as_rng(rng).random(n) < p).astype(int)


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
    """
    data = np.array(data, copy=True)
    if data.dtype.kind not in "iufb":
        raise TypeError(f"data must be an array of numbers or booleans, got dtype {data.dtype}")
    if data.ndim == 0 or data.shape[0] == 0:
        raise ValueError(f"data must be a non-empty array of records, got shape {data.shape}")
    if data.dtype.kind in "fc" and not np.all(np.isfinite(data)):
        raise ValueError(f"data must contain only finite values (no NaN or inf), found {data[~np.isfinite(data)][0]!r}")
    index = check_int(index, "index", minimum=-len(data), maximum=len(data) - 1)
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
    """
    n_voters = check_int(n_voters, "n_voters", minimum=1)
    prefs = check_finite_array(preferences, "preferences", ndim=1)
    if np.any(prefs < 0) or not np.isclose(prefs.sum(), 1.0):
        raise ValueError(f"preferences must be non-negative and sum to 1, got sum {prefs.sum()!r}")
    return as_rng(rng).multinomial(n_voters, prefs)
