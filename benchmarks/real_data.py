"""dpteach's default private logistic learners beside diffprivlib on real data (issue 33).

    .venv/bin/python benchmarks/real_data.py [--seeds 10] [--json benchmarks/real_data.json]

Data nobody here made: scikit-learn's bundled ``breast_cancer``, ``digits`` (3 against the rest) and
``wine`` (class 0 against the rest). Each seed draws a 70/30 stratified split; the rows are
standardised with the *training* split's mean and standard deviation (the usual benchmark
preprocessing: those statistics are not private, which every DP benchmark of this kind concedes)
and then scaled to unit ℓ2 norm, so ``data_norm = 1`` really holds for every learner. All learners
see the same split and rows, at the same (ε, δ) (diffprivlib's learner is pure ε-DP, δ = 0).
Accuracy is on the test split; fit times are CPU times (time.process_time), so a busy machine
does not change them much.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EPSILONS = (0.5, 1.0, 2.0)
DELTA = 1e-5


def datasets():
    from sklearn import datasets as sk

    cancer = sk.load_breast_cancer()
    digits = sk.load_digits()
    wine = sk.load_wine()
    return {"breast_cancer": (cancer.data, np.where(cancer.target == 1, 1.0, -1.0)),
            "digits 3 vs rest": (digits.data, np.where(digits.target == 3, 1.0, -1.0)),
            "wine 0 vs rest": (wine.data, np.where(wine.target == 0, 1.0, -1.0))}


def split(X, y, seed):
    from sklearn.model_selection import train_test_split

    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    std[std == 0] = 1.0

    def unit_rows(Z):
        Z = (Z - mean) / std
        return Z / np.maximum(np.linalg.norm(Z, axis=1, keepdims=True), 1e-12)

    return unit_rows(X_train), unit_rows(X_test), y_train, y_test


def learners(epsilon, seed):
    from diffprivlib.models import LogisticRegression as DiffprivlibLR
    from sklearn.linear_model import LogisticRegression

    from dpteach.dp_logistic import DPSGDLogisticRegression
    from dpteach.dp_sgd_poisson import PoissonDPSGDLogisticRegression

    return {"dpteach DPSGD (default)": DPSGDLogisticRegression(epsilon, DELTA, random_state=seed),
            "dpteach Poisson DPSGD (default)": PoissonDPSGDLogisticRegression(epsilon, DELTA, random_state=seed),
            "diffprivlib LR (data_norm=1)": DiffprivlibLR(epsilon=epsilon, data_norm=1.0, random_state=seed),
            "scikit-learn LR (not private)": LogisticRegression()}


def run(n_seeds):
    rows = []
    for name, (X, y) in datasets().items():
        for epsilon in EPSILONS:
            scores, times = {}, {}
            for seed in range(n_seeds):
                X_train, X_test, y_train, y_test = split(X, y, seed)
                for label, model in learners(epsilon, seed).items():
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # diffprivlib's PrivacyLeakWarning etc.
                        start = time.process_time()
                        model.fit(X_train, y_train)
                        times.setdefault(label, []).append(time.process_time() - start)
                        scores.setdefault(label, []).append(float(np.mean(model.predict(X_test) == y_test)))
            for label in scores:
                rows.append({"data": name, "epsilon": epsilon, "learner": label,
                             "accuracy": float(np.mean(scores[label])), "accuracy_sd": float(np.std(scores[label])),
                             "fit_cpu_seconds": float(np.median(times[label]))})
                print(f"{name:18s} ε={epsilon:<4} {label:34s} acc {rows[-1]['accuracy']:.3f} "
                      f"± {rows[-1]['accuracy_sd']:.3f}  fit {rows[-1]['fit_cpu_seconds'] * 1e3:8.1f} ms", flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = run(args.seeds)
    if args.json:
        args.json.write_text(json.dumps({"delta": DELTA, "seeds": args.seeds, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
