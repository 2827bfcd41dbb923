"""Lab 1, Task 5: audit a buggy mechanism (re-exported by :mod:`dpteach.labs.lab01`).

:func:`unclipped_noisy_sum` claims ε = 1 but never clips its records; the student builds neighbouring
datasets and an event with which :func:`dpteach.audit.epsilon_lower_bound` proves ε > 1, and
:func:`check_audit` then runs the same audit on the corrected :func:`clipped_noisy_sum`, which stays below 1.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_rng, check_finite_array, check_int
from .checking import LabCheckError, call_student, passed, require

__all__ = ["check_audit", "unclipped_noisy_sum", "clipped_noisy_sum", "AUDIT_EPSILON"]

# --- Task 5: auditing a buggy mechanism -------------------------------------------------------

AUDIT_EPSILON = 1.0
AUDIT_TRIALS = 20_000


def unclipped_noisy_sum(data, n_trials, rng):
    """Release the sum of the records, claimed ε-DP with ε = AUDIT_EPSILON = 1 (audited in Task 5).

    The records are meant to lie in [0, 1], so one record moves the sum by at
    most 1 and Lap(1/ε) noise is calibrated to that. Returns ``n_trials``
    independent releases (the vectorised form :mod:`dpteach.audit` expects).
    """
    data, n_trials, rng = _check_release_inputs(data, n_trials, rng)
    total = float(np.sum(data))
    return total + rng.laplace(0.0, 1.0 / AUDIT_EPSILON, size=n_trials)


def _check_release_inputs(data, n_trials, rng):
    """The two releases' inputs, checked by name: finite real records, n_trials >= 1, a seed or Generator.

    (The bug the audit must find is the missing clipping, not missing input checks: a NaN record
    would otherwise give a NaN release.)
    """
    return check_finite_array(data, "data"), check_int(n_trials, "n_trials", minimum=1), as_rng(rng)


def clipped_noisy_sum(data, n_trials, rng):
    """The corrected version: clip every record to [0, 1] first, so the sum has sensitivity 1 and Lap(1/ε) is ε-DP."""
    data, n_trials, rng = _check_release_inputs(data, n_trials, rng)
    total = float(np.sum(np.clip(data, 0.0, 1.0)))
    return total + rng.laplace(0.0, 1.0 / AUDIT_EPSILON, size=n_trials)


def check_audit(fn):
    """Task 5: ``fn()`` → ``(dataset, neighbour, event)`` for an audit that catches :func:`unclipped_noisy_sum`.

    ``dataset`` and ``neighbour`` are 1-D arrays of the same length that differ
    in exactly one record; ``event(outputs)`` maps an array of releases to a
    boolean array. The checker runs :func:`dpteach.audit.epsilon_lower_bound`
    with 20 000 trials on each dataset at 95 % confidence and requires the
    lower bound to exceed the claimed ε = 1. It then runs the same audit on
    :func:`clipped_noisy_sum` and reports that bound, which stays below 1.

    (For instructors: the bug is that nothing enforces records in [0, 1]; a
    neighbour with one record far outside moves the sum by more than the
    sensitivity 1 the noise is calibrated for.)
    """
    from ..audit import epsilon_lower_bound

    task = "Task 5 (audit)"
    answer = call_student(fn, (), task)
    require(isinstance(answer, tuple) and len(answer) == 3,
            f"{task}: return a tuple (dataset, neighbour, event), got {type(answer).__name__}.")
    dataset, neighbour, event = answer
    try:
        dataset = np.asarray(dataset, dtype=float)
        neighbour = np.asarray(neighbour, dtype=float)
    except (TypeError, ValueError) as err:
        raise LabCheckError(f"{task}: dataset and neighbour must be arrays of numbers ({err}).") from None
    require(dataset.ndim == 1 and dataset.shape == neighbour.shape and dataset.size > 0,
            f"{task}: dataset and neighbour must be 1-D arrays of the same length (replace-one "
            f"neighbours), got shapes {dataset.shape} and {neighbour.shape}.")
    require(np.all(np.isfinite(dataset)) and np.all(np.isfinite(neighbour)),
            f"{task}: records must be finite numbers.")
    differ = np.flatnonzero(dataset != neighbour)
    require(differ.size == 1,
            f"{task}: neighbouring datasets differ in exactly one record; yours differ in "
            f"{differ.size}. (DP says nothing about datasets further apart.)")
    require(callable(event), f"{task}: event must be a function of the outputs, got {type(event).__name__}.")

    try:
        result = epsilon_lower_bound(unclipped_noisy_sum, dataset, neighbour, event, AUDIT_TRIALS,
                                     confidence=0.95, rng=np.random.default_rng(55))
    except NotImplementedError:
        raise LabCheckError(f"{task}: not implemented yet — replace the `raise NotImplementedError` "
                            f"line by your code.") from None
    except Exception as err:  # a broken event (wrong shape, crash) becomes feedback
        raise LabCheckError(f"{task}: the audit failed with your event: {type(err).__name__}: {err}\n"
                            f"Hint: event(outputs) gets an array of {AUDIT_TRIALS} releases and must "
                            f"return one boolean per release, e.g. outputs > 3.0.") from None
    gap = abs(float(np.sum(neighbour) - np.sum(dataset)))
    old, new = float(dataset[differ[0]]), float(neighbour[differ[0]])
    if result.epsilon_lower <= AUDIT_EPSILON:
        if gap <= 1.0:
            hint = (f"your two datasets' sums differ by only {gap:g} <= 1 (records {old:g} and {new:g}). "
                    f"Where one record moves the sum by at most 1, the mechanism is correct and no "
                    f"audit can catch it. Read its code: what happens to a record outside [0, 1]?")
        else:
            hint = (f"your neighbours do expose the bug (the sums differ by {gap:g}), but the event "
                    f"does not separate the outputs: P[M(D)∈E] ≈ {result.p_hat:.3f} and "
                    f"P[M(D')∈E] ≈ {result.q_hat:.3f}. Try a threshold event between the two sums, "
                    f"e.g. outputs > (sum(D) + sum(D'))/2.")
        raise LabCheckError(f"{task}: the audit only proves ε >= {result.epsilon_lower:.3f}, not more "
                            f"than the claimed ε = {AUDIT_EPSILON:g}. Hint: {hint}")
    fixed = epsilon_lower_bound(clipped_noisy_sum, dataset, neighbour, event, AUDIT_TRIALS,
                                confidence=0.95, rng=np.random.default_rng(56))
    print(f"Buggy mechanism: P[M(D)∈E] ≈ {result.p_hat:.4f}, P[M(D')∈E] ≈ {result.q_hat:.4f} "
          f"over {AUDIT_TRIALS} runs each\n  → proves ε >= {result.epsilon_lower:.2f} > "
          f"{AUDIT_EPSILON:g} = the claimed ε (at 95 % confidence).")
    print(f"Same audit on the clipped version: ε >= {fixed.epsilon_lower:.2f} "
          f"(a correct ε = {AUDIT_EPSILON:g} mechanism stays below {AUDIT_EPSILON:g}).")
    passed(task)
