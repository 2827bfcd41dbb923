"""One progress helper for every runner: a tqdm bar for live runs, nothing in static builds."""

from __future__ import annotations

from .._progress import progress  # noqa: F401 (the one home of the helper; re-exported for the runners)
from .._validation import check_int


def check_repetitions(n_reps, name="n_reps"):
    """Return ``n_reps`` as an int >= 1 (runners refuse 0, negative, fractional or None repetitions)."""
    return check_int(n_reps, name, minimum=1)
