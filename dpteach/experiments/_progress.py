"""Shared by every runner: the repetitions check (work and memory budgets) and the contracts several runners declare."""

from __future__ import annotations

from .._constraints import Count, Epsilon
from .._array_constraints import Sweep
from .._validation import MAX_MEMORY_BYTES, check_int, check_memory, check_work


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


#: The contracts several runners share, declared once (issue 32: one contract layer).
#: A number of repetitions (trials, seeds) >= 1: each stores at least one float, so at most MAX_MEMORY_BYTES / 8
#: (the lone cap check_repetitions applies; a runner's body still checks n_reps times its sweep against MAX_WORK).
REPETITIONS = Count(1, MAX_MEMORY_BYTES // 8)
#: A sweep of ε: a scalar or a non-empty 1-D sequence, each 0 < ε < inf, as a list of floats.
EPSILONS = Sweep(Epsilon())
#: A sweep of ε in which inf (the non-private reference curve) may appear.
EPSILONS_OR_INF = Sweep(Epsilon(allow_inf=True))
#: A sweep of sizes (sample sizes, dimensions, degrees): whole numbers >= 1, as a list of ints.
SIZES = Sweep(Count(1))
#: A sweep of dimensions d of the parities on {0, 1}^d: whole numbers in [1, 30] (2^d candidates, enumerated).
PARITY_DIMENSIONS = Sweep(Count(1, 30))
