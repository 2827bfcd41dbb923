"""Synthetic datasets with a known truth, and their neighbours: one file per chapter.

Every generator takes ``rng`` and returns numpy arrays; nothing touches global
random state. Everything is re-exported here, so ``dpteach.data.threshold_data``
works whichever chapter file defines it.
"""

from . import basics, fingerprinting, generic, halfspaces, local, regression
from .basics import *  # noqa: F401,F403
from .fingerprinting import *  # noqa: F401,F403
from .generic import *  # noqa: F401,F403
from .halfspaces import *  # noqa: F401,F403
from .local import *  # noqa: F401,F403
from .regression import *  # noqa: F401,F403

__all__ = (basics.__all__ + generic.__all__ + local.__all__ + fingerprinting.__all__ + regression.__all__
           + halfspaces.__all__)
