"""One progress helper for every runner: a tqdm bar for live runs, nothing in static builds."""

from __future__ import annotations

import os

from .._validation import check_int, check_memory, check_work


def progress(iterable, desc, total=None, enabled=None):
    """Wrap ``iterable`` in a ``tqdm.auto`` bar unless progress is disabled.

    Progress bars belong to live runs: the book build and the tests set
    ``DPTEACH_PROGRESS=0`` so that no bar (a widget, in a static page) is left
    in the output. ``enabled`` overrides the environment.
    """
    if enabled is None:
        enabled = os.environ.get("DPTEACH_PROGRESS", "1") != "0"
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False)


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
