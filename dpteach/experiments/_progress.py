"""One progress helper for every runner: a tqdm bar for live runs, nothing in static builds."""

from __future__ import annotations

from .._validation import check_int, check_memory, check_work


def check_repetitions(n_reps, name="n_reps", per_repetition=()):
    """Return ``n_reps`` as an int >= 1 (runners refuse 0, negative, fractional or None repetitions).

    Each repetition is at least one step of work and one stored float, so a count beyond ``MAX_WORK``
    or ``MAX_MEMORY_BYTES`` is refused here by name. ``per_repetition`` lists the (name, value) sizes
    that one repetition multiplies (sweep lengths, the largest n, d): their product with n_reps is
    checked against ``MAX_WORK`` too, before the first repetition runs.
    """
    n_reps = check_int(n_reps, name, minimum=1)
    check_work((name, n_reps), *per_repetition)
    check_memory((name, n_reps))
    return n_reps
