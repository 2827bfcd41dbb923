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

import math
from numbers import Real

from . import _validation as V
from ._constraints import NOT_A_NUMBER, POSITIVE, FiniteInterval, OrNone

# The contract values, not callables (the fuzz reaches them through every routine that declares them).
__all__ = ["SCALE_MIN", "SCALE_MAX", "NORMAL_SCALE", "NORMAL_SCALE_OR_NONE"]

#: The smallest and largest scale parameter a release accepts (T and T² normal doubles).
SCALE_MIN, SCALE_MAX = 1e-150, 1e150


class NormalScale(FiniteInterval):
    """A finite real in [SCALE_MIN, SCALE_MAX]; the message says why the range is what it is.

    Its fuzz values are really outside the range (FiniteInterval's right + 1 is 1e150 again in floats).
    """

    def __init__(self):
        super().__init__(Real, SCALE_MIN, SCALE_MAX, closed="both")

    def validate(self, value, name):
        x = V.check_finite_scalar(value, name)
        if not SCALE_MIN <= x <= SCALE_MAX:
            raise ValueError(f"{name} must lie in [{SCALE_MIN!r}, {SCALE_MAX!r}] (so that {name} and {name}² are "
                             f"normal doubles and every sensitivity and noise scale derived from it is finite "
                             f"and nonzero), got {value!r}")
        return x

    def nested(self, value, name):
        # A nested scale is often derived (2C, a sensitivity from T and n, Δ/√K) and may leave the normal range
        # legitimately (a tiny sensitivity at a huge n). Its privacy precondition, finite and > 0, holds on every
        # call (POSITIVE's nested check); the range itself is the user's contract, checked where they pass it.
        return POSITIVE.nested(value, name)

    def invalid_values(self):
        return list(NOT_A_NUMBER) + [(math.nan, "nan"), (0.0, "0.0"), (-1.0, "-1.0"), (5e-324, "5e-324"),
                                     (1e-300, "1e-300"), (1e300, "1e300"), (math.inf, "inf")]


#: A scale parameter: a finite real in [SCALE_MIN, SCALE_MAX].
NORMAL_SCALE = NormalScale()

#: A scale parameter, or None (the routine derives it).
NORMAL_SCALE_OR_NONE = OrNone(NORMAL_SCALE)
