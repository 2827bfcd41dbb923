"""The declared range of a scale parameter: a clip norm, a radius, a sensitivity, a Lipschitz bound, a truncation.

A scale T enters the releases as T, T² and T times a noise multiplier. With
1e-150 <= T <= 1e150, T and T² are normal doubles, so every sensitivity and
noise scale the package derives from T is a finite, nonzero float. Outside
that range an accepted value released ±inf or NaN (T near the largest double:
a Laplace or Gaussian scale of inf) or failed in ``math`` (a subnormal T: log of
an underflowed 0, a division by zero), or gave a zero noise scale for a nonzero
sensitivity (the reliability review's F1 and F3). Refusing it here, in the
contract, names the user's parameter, its value and this range.

(A candidate for ``dpteach._constraints``, next to ``POSITIVE``; kept apart so that
module has one owner in this round.)
"""

from __future__ import annotations

from numbers import Real

from ._constraints import Interval, OrNone

#: The smallest and largest scale parameter a release accepts (T and T² normal doubles).
SCALE_MIN, SCALE_MAX = 1e-150, 1e150

#: A scale parameter: a finite real in [SCALE_MIN, SCALE_MAX].
NORMAL_SCALE = Interval(Real, SCALE_MIN, SCALE_MAX, closed="both")

#: A scale parameter, or None (the routine derives it).
NORMAL_SCALE_OR_NONE = OrNone(NORMAL_SCALE)
