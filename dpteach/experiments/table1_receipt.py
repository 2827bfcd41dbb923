"""Chapter 9: what a privacy receipt covers, audited — a scaler fitted on the private data leaks (issue 29, item 5).

A learner's ``privacy_`` receipt covers one ``fit`` on the data passed to it (``dpteach.privacy.COVERS``). In
``make_pipeline(StandardScaler(), learner)`` the scaler is fitted on the *same* rows, without noise, and the learner
sees the scaled rows: replacing one raw record by a far one (x₁ = 10⁶) moves the scaler's mean and standard
deviation, so every other scaled row collapses towards 0 and the learner learns from almost nothing. The learner's
own guarantee is about neighbouring *scaled* data sets, which these are not. :func:`pipeline_scaler_audit` runs
``dpteach.audit.audit`` on the learner's released first weight, for the learner alone and inside the pipeline, on
the same neighbouring pair of raw data sets (architecture review F1; the review certified ε >= 2.24 at a claimed 1).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._constraints import Count, FiniteInterval, validate_params
from ..audit import audit, threshold_events
from ..dp_logistic import DPSGDLogisticRegression

__all__ = ["pipeline_scaler_audit"]

#: The thresholds on the released first weight among which the audit's selection step picks its event.
THRESHOLDS = np.linspace(-1.0, 4.0, 26)


def _neighbours(n, far, rng):
    """D: n rows x ~ N(0, I₂), label sign(x₁); D′: row 0 replaced by (far, 0) with the same label (replace-one)."""
    X = rng.standard_normal((n, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    X_far = X.copy()
    X_far[0] = (far, 0.0)
    return (X, y), (X_far, y)


def _first_weight(epsilon, scaled):
    """The mechanism the audit runs: n_trials fits (fresh seeds), each releasing coef_[0] of the learner."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    def mechanism(data, n_trials, rng):
        X, y = data
        out = np.empty(n_trials)
        for trial in range(n_trials):
            learner = DPSGDLogisticRegression(epsilon=epsilon, delta=1e-5, n_epochs=1,
                                              random_state=int(rng.integers(2 ** 63)))
            model = make_pipeline(StandardScaler(), learner) if scaled else learner
            model.fit(X, y)
            out[trial] = learner.coef_[0]
        return out
    return mechanism


@validate_params({"epsilon": FiniteInterval(Real, 0.01, 10, closed="both"), "n": Count(minimum=10, maximum=10 ** 5),
                  "far": FiniteInterval(Real, 1.0, 1e12, closed="both"), "n_trials": Count(minimum=1, maximum=10 ** 4),
                  "rng": "random_state"})
def pipeline_scaler_audit(epsilon=1.0, n=1000, far=1e6, n_trials=150, rng=None):
    """Audit DP-SGD alone and inside ``Pipeline(StandardScaler, DP-SGD)`` on one neighbouring pair of raw data sets.

    Parameters
    ----------
    epsilon : float, 0.01 <= ε <= 10
        The learner's ε (δ = 10⁻⁵, one epoch, C = 1): what its receipt says.
    n : int, 10 <= n <= 10⁵
        Rows of the data set D (x ~ N(0, I₂), label sign(x₁)); D′ replaces row 0 by (far, 0).
    far : float, 1 <= far <= 10¹²
    n_trials : int, 1 <= n_trials <= 10⁴
        Certifying fits per data set and per variant (the selection step runs n_trials/2 more).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict with ``"alone"`` and ``"pipeline"`` (each a ``dpteach.audit.AuditResult``: the certified lower bound on ε
    at 95 % confidence, the event and both frequencies), ``"receipt_epsilon"`` (what both receipts say), and
    ``"mean_D"``, ``"mean_D_prime"`` (the scaler's released ``mean_[0]`` on D and D′, deterministic).
    Cost: 3·n_trials fits of O(n) per data set and variant. Needs scikit-learn.

    Raises
    ------
    TypeError, ValueError
        For an argument out of range. ImportError without scikit-learn.

    Examples
    --------
    >>> out = pipeline_scaler_audit(epsilon=1.0, n=50, n_trials=4, rng=0)
    >>> out["receipt_epsilon"], out["mean_D_prime"] > 1000 * abs(out["mean_D"])
    (1.0, True)
    """
    from sklearn.preprocessing import StandardScaler

    dataset, neighbour = _neighbours(n, far, rng)
    out = {"receipt_epsilon": epsilon}
    for name, scaled in (("alone", False), ("pipeline", True)):
        out[name] = audit(_first_weight(epsilon, scaled), dataset, neighbour, threshold_events(THRESHOLDS),
                          n_trials, delta=1e-5, n_select=max(1, n_trials // 2), rng=rng)
    out["mean_D"] = float(StandardScaler().fit(dataset[0]).mean_[0])
    out["mean_D_prime"] = float(StandardScaler().fit(neighbour[0]).mean_[0])
    return out
