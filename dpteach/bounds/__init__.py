"""Each theorem's rate as a plain function, for theory-versus-experiment plots: one file per chapter.

A function here returns exactly the right-hand side of the theorem it cites,
constants included, so a figure can draw the guarantee next to the
measurement and the text can say honestly where the constants are loose.
Rates whose constants the source leaves open say "shape only" in their
docstring. Everything is re-exported flat: ``dpteach.bounds.laplace_tail_bound``.
"""

from . import basics, dpsas, fingerprinting, generic, improper, local, proper, regression
from .basics import *  # noqa: F401,F403
from .dpsas import *  # noqa: F401,F403
from .fingerprinting import *  # noqa: F401,F403
from .generic import *  # noqa: F401,F403
from .improper import *  # noqa: F401,F403
from .local import *  # noqa: F401,F403
from .proper import *  # noqa: F401,F403
from .regression import *  # noqa: F401,F403

__all__ = (basics.__all__ + generic.__all__ + local.__all__ + fingerprinting.__all__ + regression.__all__
           + improper.__all__ + proper.__all__ + dpsas.__all__)
