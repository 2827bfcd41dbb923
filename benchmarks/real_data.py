"""Chapter 10's table in one run: every learner beside diffprivlib and scikit-learn on real data (issue 33).

    .venv/bin/python benchmarks/real_data.py [--seeds 10] [--rng 20241010] [--json benchmarks/real_data.json]

Data nobody here made: scikit-learn's bundled ``breast_cancer``, ``digits`` (3 against the rest), ``wine``
(class 0 against the rest) and ``diabetes`` (regression). The runner is ``dpteach.experiments.real_data.run``,
the one the chapter (book/10_real_data.ipynb) executes; its ``split_and_scale`` says what the preprocessing
leaks (the training split's means and scales: not private, as in every DP benchmark of this kind). All learners
see the same split and rows at the same (ε, δ); diffprivlib's are pure ε-DP (δ = 0). The table holds the mean
test accuracy (MSE for diabetes), its standard error over the splits and the median fit CPU time
(time.process_time, so a busy machine changes it little). The default seed is the chapter's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("DPTEACH_PROGRESS", "0")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpteach.experiments import real_data  # noqa: E402

BOOK_SEED = 20241010  # book/10_real_data.ipynb's SEED


def print_table(rows):
    """One block per data set: a line per learner, its score at every ε side by side, and the fit time at ε = 1."""
    epsilons = sorted({row["epsilon"] for row in rows})
    by_key = {(row["data"], row["epsilon"], row["learner"]): row for row in rows}
    for data in dict.fromkeys(row["data"] for row in rows):
        names = list(dict.fromkeys(row["learner"] for row in rows if row["data"] == data))
        metric = by_key[data, epsilons[0], names[0]]["metric"]
        print(f"\n{data} ({metric}, mean ± standard error over the splits; fit: median CPU ms at the middle ε)")
        print(f"{'learner':42s}" + "".join(f"{'ε = ' + format(e, 'g'):>22s}" for e in epsilons) + f"{'fit ms':>10s}")
        for name in names:
            cells = "".join(f"{by_key[data, e, name]['mean']:>12.4g} ± {by_key[data, e, name]['se']:<7.2g}"
                            for e in epsilons)
            middle = by_key[data, epsilons[len(epsilons) // 2], name]["fit_cpu_seconds"] * 1e3
            print(f"{real_data.LABELS[name]:42s}{cells}{middle:10.1f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="number of random splits")
    parser.add_argument("--rng", type=int, default=BOOK_SEED, help="seed that draws the splits' seeds")
    parser.add_argument("--json", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    rows = real_data.run(n_seeds=args.seeds, rng=args.rng)
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps({"delta": real_data.DELTA, "seeds": args.seeds, "rng": args.rng,
                                         "settings": real_data.HALFSPACE_SETTINGS, "rows": rows},
                                        indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
