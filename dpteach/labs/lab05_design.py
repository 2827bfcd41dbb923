"""Lab 5 Task 3's experiment design: at least two datasets, scored by the estimation error ‖β̂ − β‖₂.

The choice :func:`dpteach.labs.lab05.check_best_truncation` compares with its own measurements can come out right
from a wrong experiment: one dataset (a noisy choice that happens to match), or the training error ‖y − Xβ̂‖
(on isotropic data it ranks the candidates almost as the estimation error does, so the choices match). This
module tests the design itself, once the choices are right: it calls the student's procedure with the private
LASSO replaced by a stand-in whose estimates are known, and with the data generator counted.

The stand-in returns, for the candidates (0.5, 1, 2, 4): β itself for T = 1 (estimation error 0, training residual
the noise ξ); the least-squares fit of the training data for T = 2 (the smallest training error of all, and an
estimation error ≈ σ√(d/(n − d)) = 0.35 at n = 1800 training rows, d = 200); and β + δ with ‖δ‖₂ = 1 for the
others (training residual ‖ξ − Xδ‖ ≈ √(2n), estimation error 1). So the estimation error picks T = 1 on every
dataset and the training error picks T = 2 on every dataset, whatever the noise: the two designs are told apart
deterministically, and no DPLasso is run (the call costs milliseconds).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from .checking import LabCheckError, call_student, require

__all__ = ["check_truncation_design"]

_CANDIDATES = (0.5, 1.0, 2.0, 4.0)
_BEST, _TRAINING_FIT = 1, 2      # indices: β itself, and the least-squares fit of the training data
_N = 2_000


class _Substitutes:
    """Within ``with``: the data generator counted and DPLasso replaced, wherever the student's code finds them.

    Replaced are the names bound to the originals in the student's function's globals and the attributes of the
    dpteach modules (for an import inside the function body); everything is restored on exit.
    """

    def __init__(self, fn):
        from ..data import sparse_regression_data
        from ..regression import DPLasso
        self.datasets = []
        design = self

        def counted_data(*args, **kwargs):
            X, y, beta = sparse_regression_data(*args, **kwargs)
            design.datasets.append(beta)
            return X, y, beta

        class KnownEstimates:
            """A stand-in for DPLasso whose estimate for each candidate T is known (see the module docstring)."""

            def __init__(self, *args, **kwargs):
                truncation = kwargs.get("truncation", args[4] if len(args) > 4 else None)
                matches = [k for k, c in enumerate(_CANDIDATES)
                           if truncation is not None and math.isclose(float(truncation), c, rel_tol=1e-9)]
                if not matches:
                    raise LabCheckError(f"Task 3 (choose T): DPLasso was constructed with truncation={truncation!r}, "
                                        f"which is not one of the candidates {list(_CANDIDATES)}: pass each "
                                        f"candidate as truncation=T.")
                self.index = matches[0]

            def fit(self, X, y):
                require(design.datasets, "Task 3 (choose T): fit on data from sparse_regression_data(n, 200, 5, rng=rng).")
                beta = design.datasets[-1]
                if self.index == _BEST:
                    self.coef_ = beta.copy()
                elif self.index == _TRAINING_FIT:
                    self.coef_ = np.linalg.lstsq(np.asarray(X, float), np.asarray(y, float), rcond=None)[0]
                else:
                    direction = np.cos(np.arange(beta.size) + self.index)
                    self.coef_ = beta + direction / np.linalg.norm(direction)
                return self

            def predict(self, X):
                return np.asarray(X, float) @ self.coef_

        # Matched by name and defining module, not identity: the hidden grader runs this module from a private
        # copy of dpteach, whose objects are not the ones the student's code imported.
        self.swaps = [(("sparse_regression_data", ".data.regression"), counted_data),
                      (("DPLasso", ".regression"), KnownEstimates)]
        self.fn = fn

    @staticmethod
    def _is(value, key):
        qualname, module = key
        return (callable(value) and getattr(value, "__qualname__", None) == qualname
                and ("." + (getattr(value, "__module__", None) or "")).endswith(module))

    def _places(self, key):
        scope = getattr(self.fn, "__globals__", {})
        yield from ((scope, name) for name, value in list(scope.items()) if self._is(value, key))
        for name, module in list(sys.modules.items()):
            if "dpteach" in name and ".labs" not in name and module is not None:
                yield from ((vars(module), attr) for attr, value in list(vars(module).items()) if self._is(value, key))

    def __enter__(self):
        self.saved = []
        for key, stand_in in self.swaps:
            for space, name in list(self._places(key)):
                self.saved.append((space, name, space[name]))
                space[name] = stand_in
        return self

    def __exit__(self, *exc):
        for space, name, original in reversed(self.saved):
            space[name] = original
        return False


def check_truncation_design(fn, task):
    """Run ``fn(2000, 1.0, candidates, rng)`` with the stand-ins; require ≥ 2 datasets and the estimation error.

    Formative only: in a graded run (``dpteach.labs.isolated``) ``fn`` is a handle on the answer's own process,
    where these stand-ins cannot reach, so the grade rests on the choices alone (book/instructors.md says so).
    """
    if type(fn).__module__ == "dpteach.labs.wire":
        return
    with _Substitutes(fn) as design:
        answer = call_student(fn, (_N, 1.0, list(_CANDIDATES), np.random.default_rng(35)), task)
    require(len(design.datasets) >= 2,
            f"{task}: your procedure drew {len(design.datasets)} dataset(s) with sparse_regression_data; the task "
            f"asks for the mean error over at least two. One dataset gives one noisy draw of each candidate's "
            f"error, so the choice changes with the seed.")
    chosen = [k for k, c in enumerate(_CANDIDATES) if math.isclose(float(answer), c, rel_tol=1e-9)]
    if chosen == [_BEST]:
        return
    if chosen == [_TRAINING_FIT]:
        raise LabCheckError(
            f"{task}: with a stand-in for DPLasso whose estimates are known, your procedure chose the candidate "
            f"with the smallest *training* error: the least-squares fit of the training data, whose ‖β̂ − β‖₂ is "
            f"not the smallest (another candidate returns β itself). Hint: score each candidate by the estimation "
            f"error ‖β̂ − β‖₂ (np.linalg.norm(model.coef_ − beta)); fitting the noise lowers the training error.")
    raise LabCheckError(
        f"{task}: with a stand-in for DPLasso whose estimates are known (one candidate returns β itself), your "
        f"procedure chose T = {answer!r}, not the candidate with the smallest mean ‖β̂ − β‖₂. Hint: compute "
        f"np.linalg.norm(model.coef_ − beta) for each candidate on each dataset, average, and take the smallest.")
