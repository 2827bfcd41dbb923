"""Time dpteach.hermite.hermite_features against writing an array of the same size.

    python benchmarks/hermite_features.py [n d degree]     (default 100000 5 6, D = 462)

Prints both times (best of 5) and their ratio; the budget is a ratio ≤ 3
(each column is one multiply of an earlier column by one univariate factor,
so computing ψ_p costs about as much as filling the output once). Exits with
status 1 if the ratio exceeds the budget.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from dpteach.hermite import hermite_features

BUDGET = 3.0


def best_of(fn, repeats=5):
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
        del result
    return best


def measure(n=100_000, d=5, degree=6):
    """Both times (best of 5) and their ratio, as a dict (benchmarks/run.py --json records it)."""
    D = math.comb(d + degree, degree)
    X = np.random.default_rng(0).standard_normal((n, d))
    hermite_features(X[:10], degree)  # build the multi-index plan once, outside the timing
    t_ones = best_of(lambda: np.ones((n, D)))
    t_features = best_of(lambda: hermite_features(X, degree))
    return {"n": n, "d": d, "degree": degree, "D": D, "ones_seconds": t_ones, "features_seconds": t_features,
            "ratio": t_features / t_ones, "budget": BUDGET,
            "features_per_second": n * D / t_features}


def main(argv):
    n, d, degree = (int(a) for a in argv) if argv else (100_000, 5, 6)
    result = measure(n, d, degree)
    D, t_ones, t_features, ratio = result["D"], result["ones_seconds"], result["features_seconds"], result["ratio"]
    print(f"n = {n}, d = {d}, degree = {degree}, D = {D}")
    print(f"np.ones((n, D))            {t_ones * 1e3:8.1f} ms")
    print(f"hermite_features(X, p)     {t_features * 1e3:8.1f} ms")
    print(f"ratio                      {ratio:8.2f}  (budget {BUDGET:.0f})")
    return 0 if ratio <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
