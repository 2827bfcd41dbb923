"""The one progress helper: a tqdm bar for live runs, nothing in static builds (shared layer).

A computation that takes more than about 2 s shows progress (README, "Where things go"). The
runners in ``dpteach.experiments`` and the few algorithm fits that can run that
long (the improper learner at large D) both use :func:`progress`; ``tqdm`` is
imported only when a bar is actually shown, so an algorithm module stays free of it.
"""

from __future__ import annotations

import os


def progress(iterable, desc, total=None, enabled=None):
    """Wrap ``iterable`` in a ``tqdm.auto`` bar unless progress is disabled.

    Progress bars belong to live runs: the book build and the tests set tqdm's own switch
    ``TQDM_DISABLE=1`` so that no bar (a widget, in a static page) is left in the output.
    The variable is read here, on every call, as tqdm reads it (any non-empty value disables):
    tqdm's console bar reads it once, at import, and its notebook bar (the one ``tqdm.auto``
    picks in a Jupyter kernel) ignores it. ``enabled`` overrides the environment.
    """
    if enabled is None:
        enabled = not os.environ.get("TQDM_DISABLE")
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False)
