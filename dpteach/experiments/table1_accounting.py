"""Chapter 9: what the tight accountant buys DP-SGD, the noise at equal ε and the test error it gives.

Algorithm 9.2 at the chapter's settings (C = 1, learning rate 0.5, 20 steps per epoch; ``table1.SETTINGS``)
is calibrated twice at the same (ε, δ) for each number of epochs E: by the better of the two older
accountants of Theorem 9.3 (zCDP, or per-epoch Gaussian mechanisms with advanced composition, whichever
gives the smaller σ for this E; the "textbook" bound) and by the exact one, σ = σ_G(2C√E, ε, δ)
(``dp_logistic.dp_sgd_sigma(..., "exact")``). Both are chosen from (C, E, ε, δ) alone, never the data.
The utility is the exact 0-1 error of the fitted halfspace on the chapter's RCN distribution
(x ~ N(0, I_d), target sign(x₁ − 0.3), labels flipped with probability 0.1), computed in closed form by
``data.rcn_halfspace_error``, averaged over ``n_reps`` training sets.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from .._constraints import Count, Delta, Epsilon, FiniteInterval, POSITIVE_INT, validate_params
from .._array_constraints import Sweep
from .._validation import check_work
from ..data import gaussian_halfspace_data, rcn_halfspace_error
from ..dp_logistic import MAX_EPOCHS, DPSGDLogisticRegression, dp_sgd_sigma
from ._progress import REPETITIONS
from .._progress import progress
from .table1 import SETTINGS

__all__ = ["dpsgd_accounting_sweep"]

_THRESHOLD, _NOISE = 0.3, 0.1


def _textbook_accountant(clip_norm, n_epochs, epsilon, delta):
    """The older accountant ("zcdp" or "composition") with the smaller σ at these public parameters."""
    return min(("zcdp", "composition"), key=lambda name: dp_sgd_sigma(clip_norm, n_epochs, epsilon, delta, name))


@validate_params({"epochs": Sweep(Count(1, min(MAX_EPOCHS, 1000))),
                  "n": FiniteInterval(Integral, 20, None, closed="left"), "d": POSITIVE_INT, "epsilon": Epsilon(),
                  "delta": Delta(allow_zero=False),
                  "n_reps": REPETITIONS,
                  "rng": "random_state"})
def dpsgd_accounting_sweep(epochs, n=2000, d=3, epsilon=1.0, delta=1e-5, n_reps=10, rng=None):
    """σ and test error of DP-SGD at one (ε, δ) against the number of epochs E: textbook against exact accounting.

    Parameters
    ----------
    epochs : int or sequence of int, 1 <= E <= 1000
    n : int >= 20
        Training set size (the same sets for both accountants).
    d : int >= 1
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    n_reps : int >= 1
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict with ``"epochs"``, ``"sigma_textbook"``, ``"sigma_tight"``, ``"accountant_textbook"`` (which older
    accountant gave the textbook σ) and ``"error_textbook"``, ``"error_tight"`` of shape (len(epochs), n_reps).
    Cost O(n_reps·ΣE·n·d).

    Raises
    ------
    TypeError, ValueError
        For sizes out of range, ε or δ out of range, a bad rng.

    Examples
    --------
    >>> out = dpsgd_accounting_sweep(epochs=[1], n=20, d=2, epsilon=1.0, delta=1e-5, n_reps=1, rng=0)
    >>> out["error_tight"].shape, bool(out["sigma_tight"][0] <= out["sigma_textbook"][0])
    ((1, 1), True)
    """
    check_work(("n_reps", n_reps), ("sum(epochs)", sum(epochs)), ("n", n), ("d", d))
    s = SETTINGS["dp_sgd"]
    batch = max(1, math.ceil(n / s["steps_per_epoch"]))
    names = [_textbook_accountant(s["clip_norm"], E, epsilon, delta) for E in epochs]
    out = {"epochs": np.array(epochs), "accountant_textbook": names,
           "sigma_textbook": np.array([dp_sgd_sigma(s["clip_norm"], E, epsilon, delta, name)
                                       for E, name in zip(epochs, names)]),
           "sigma_tight": np.array([dp_sgd_sigma(s["clip_norm"], E, epsilon, delta, "exact") for E in epochs]),
           "error_textbook": np.full((len(epochs), n_reps), np.nan),
           "error_tight": np.full((len(epochs), n_reps), np.nan)}
    for rep in progress(range(n_reps), "DP-SGD accounting: repetitions"):
        X, y, normal = gaussian_halfspace_data(n, d, threshold=_THRESHOLD, noise_rate=_NOISE, rng=rng)
        for i, (E, name) in enumerate(zip(epochs, names)):
            seed = int(rng.integers(2 ** 31))  # the same noise seed for both accountants: only σ differs
            for key, accountant in (("error_textbook", name), ("error_tight", "exact")):
                model = DPSGDLogisticRegression(epsilon, delta, clip_norm=s["clip_norm"], n_epochs=E,
                                                batch_size=batch, learning_rate=s["learning_rate"],
                                                accountant=accountant, random_state=seed).fit(X, y)
                norm = float(np.linalg.norm(model.coef_))
                out[key][i, rep] = (0.5 if norm == 0 else
                                    rcn_halfspace_error(model.coef_ / norm, -model.intercept_ / norm, normal,
                                                        _THRESHOLD, _NOISE))
    return out
