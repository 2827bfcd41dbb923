"""The isotropic log-concave marginals of Section 6.6, and a sampler for their products (shared layer).

One home for the synthetic, public draws that both the log-concave learner
(:mod:`dpteach.logconcave`, its clip radius) and the data generators
(:func:`dpteach.data.product_logconcave_sample`) need: it sits below both, so
the data layer never imports an algorithm module.
"""

from __future__ import annotations

import math

from ._constraints import Options, POSITIVE_INT, validate_params
from ._validation import check_memory

__all__ = ["MARGINALS", "sample_marginal"]

#: The 1-D marginals, each with mean 0 and variance 1: U[−√3, √3] and Laplace(1/√2).
MARGINALS = ("uniform", "laplace")


@validate_params({"n": POSITIVE_INT, "d": POSITIVE_INT, "marginal": Options(MARGINALS), "rng": "random_state"})
def sample_marginal(n, d, marginal, rng=None):
    """n draws from the product of d isotropic copies of the marginal (synthetic, public).

    Parameters
    ----------
    n, d : int ≥ 1
    marginal : {"uniform", "laplace"}
    rng : seed or Generator

    Returns
    -------
    numpy.ndarray, shape (n, d). Cost O(n·d).

    Raises
    ------
    ValueError, TypeError
        For n, d < 1, an unknown marginal or a bad rng.

    Examples
    --------
    >>> sample_marginal(n=5, d=2, marginal="laplace", rng=0).shape
    (5, 2)
    """
    check_memory(("n", n), ("d", d))
    if marginal == "uniform":
        return rng.uniform(-math.sqrt(3.0), math.sqrt(3.0), size=(n, d))
    return rng.laplace(0.0, 1.0 / math.sqrt(2.0), size=(n, d))
