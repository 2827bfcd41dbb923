"""Time one fit of each halfspace learner and of DPLasso at the chapters' demo settings ("presets").

    python benchmarks/learners.py          (prints; benchmarks/run.py --json records the same numbers)

Each fit is timed once, after the data are drawn (data generation is not the learner's
cost). The settings are those of the chapter cells that introduce each learner.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from dpteach import data, dpsas, improper, proper, regression
from dpteach.experiments import dpsas as dpsas_experiments
from dpteach.experiments import proper as proper_experiments

PRESETS = {
    "PrivateHermiteL1Learner": "chapter 6: n = 6 000, d = 3, α = 0.1, ε = 1, δ = 1e-5, β = 0.25 (RCN η = 0.1)",
    "PrivateProperLearner": "chapter 7: n = 20 000, d = 5, α = 0.1, ε = 1, δ = 1e-5 (w* = (0.6, 0.8, 0, 0, 0), "
                            "t = 0.4, RCN η = 0.1)",
    "PrivateSemiAgnosticLearner": "chapter 8: n = 200 000, d = 10, α = 0.05, ε = 1, δ = 1e-5 (RCN η = 0.05)",
    "DPLasso": "chapter 5: n = 40 000, d = 100, s = 5, ŝ = 10, ε = 1, δ = 1e-5",
}


def _fits(seed=0):
    rng = np.random.default_rng(seed)
    X, y, _ = data.gaussian_halfspace_data(6000, 3, threshold=0.3, noise_rate=0.1, rng=rng)
    yield "PrivateHermiteL1Learner", lambda: improper.PrivateHermiteL1Learner(
        alpha=0.1, epsilon=1.0, delta=1e-5, beta=0.25, random_state=1).fit(X, y)
    X2, y2, _ = data.gaussian_halfspace_data(20_000, 5, proper_experiments.preset_normal(5), 0.4, 0.1, rng=rng)
    yield "PrivateProperLearner", lambda: proper.PrivateProperLearner(
        alpha=0.1, epsilon=1.0, delta=1e-5, random_state=1).fit(X2, y2)
    X3, y3, _ = dpsas_experiments.rcn_dataset(200_000, 10, 0.5, 0.05, rng)
    yield "PrivateSemiAgnosticLearner", lambda: dpsas.PrivateSemiAgnosticLearner(
        alpha=0.05, epsilon=1.0, delta=1e-5, random_state=1).fit(X3, y3)
    X4, y4, _ = data.sparse_regression_data(40_000, 100, 5, rng=rng)
    yield "DPLasso", lambda: regression.DPLasso(1.0, 1e-5, 10, random_state=1).fit(X4, y4)


def measure():
    """[{learner, preset, seconds}] for one fit each."""
    results = []
    for name, fit in _fits():
        start = time.perf_counter()
        fit()
        results.append({"learner": name, "preset": PRESETS[name], "seconds": time.perf_counter() - start})
    return results


def main(argv):
    for row in measure():
        print(f"{row['learner']:28s} {row['seconds']:7.2f} s   {row['preset']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
