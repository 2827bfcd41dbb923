"""dpteach's accountants against a numerical one: Google's ``dp-accounting`` (issue 24).

    python -m tools.accounting_oracle     recompute benchmarks/accounting_looseness.json

For every accountant and every private routine whose privacy composes, :func:`cases` lists a grid of
parameters with the ε that dpteach certifies and the *tight* ε of the same mechanism, bracketed by
privacy-loss-distribution (PLD) accounting:

* ``lower``: a value the tight ε is never below. For the Gaussian and Laplace mechanisms it is
  dp-accounting's *optimistic* PLD (``pessimistic_estimate=False``): every privacy loss is rounded
  *down* to the grid, so its δ(ε) is at most the true one and its ε(δ) at most the true ε, with no
  slack at all. For a generic (ε₀, δ₀)-DP step (``from_privacy_parameters``, the dominating pair of
  Kairouz, Oh & Viswanath 2015, whose composition is the optimal composition of generic steps) the
  library only offers the pessimistic PLD, whose two losses ±ε₀ are rounded *up* by less than the
  discretisation interval h. Coupling the k rounded losses with the exact ones, the composed loss
  moves by less than k·h, so δ_pessimistic(ε + k·h) <= δ_true(ε), hence ε_true(δ) >= ε_pessimistic(δ) − k·h:
  the documented slack, subtracted here;
* ``upper``: dp-accounting's pessimistic PLD, never below the tight ε.

A certified ε below ``lower`` is a privacy bug (tests/test_accounting_oracle.py asserts it never
happens); ``certified / upper`` is the looseness ratio the audit page shows (a ratio of 1 means the
accountant is tight, up to the grid). dp-accounting is imported lazily: nothing in ``dpteach``
needs it.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
LOOSENESS = ROOT / "benchmarks" / "accounting_looseness.json"

#: The PLD discretisation interval h (dp-accounting's default is 1e-4); k·h is the generic-step slack.
GRID = 1e-4


def _pld():
    try:
        from dp_accounting.pld import common, privacy_loss_distribution
    except ImportError as error:  # pragma: no cover - exercised only without the package
        raise ImportError("the accounting oracle needs the 'dp-accounting' package "
                          "(pip install dp-accounting; `make test` installs it)") from error
    return common, privacy_loss_distribution


# --- the tight ε of three mechanism families, bracketed ------------------------------------------

def gaussian(noise_over_sensitivity, steps, delta):
    """(lower, upper) tight ε of ``steps`` Gaussian mechanisms with σ/Δ = ``noise_over_sensitivity`` at δ."""
    _, pld = _pld()
    bounds = []
    for pessimistic in (False, True):
        one = pld.from_gaussian_mechanism(noise_over_sensitivity, pessimistic_estimate=pessimistic,
                                          value_discretization_interval=GRID, use_connect_dots=pessimistic)
        bounds.append(one.self_compose(steps).get_epsilon_for_delta(delta))
    return tuple(bounds)


def laplace(scale_over_sensitivity, steps, delta):
    """(lower, upper) tight ε of ``steps`` Laplace mechanisms with b/Δ = ``scale_over_sensitivity`` at δ."""
    if delta == 0:  # pure DP: the tight ε is the largest privacy loss, k·Δ/b, exactly (no PLD needed)
        return steps / scale_over_sensitivity, steps / scale_over_sensitivity
    _, pld = _pld()
    bounds = []
    for pessimistic in (False, True):
        one = pld.from_laplace_mechanism(scale_over_sensitivity, pessimistic_estimate=pessimistic,
                                         value_discretization_interval=GRID, use_connect_dots=pessimistic)
        bounds.append(one.self_compose(steps).get_epsilon_for_delta(delta))
    return tuple(bounds)


def poisson_gaussian(noise_over_contribution, sampling_rate, steps, delta):
    """(lower, upper) tight ε of ``steps`` Poisson-subsampled Gaussian sums, replace-one neighbours.

    Each record contributes a vector of norm <= Δ and joins each sum with probability q; σ/Δ is
    ``noise_over_contribution``. dp-accounting's REPLACE_ONE pair (1−q)N(0, σ²) + qN(∓Δ, σ²), optimistic
    and pessimistic as for :func:`gaussian`.
    """
    from dp_accounting import privacy_accountant
    _, pld = _pld()
    bounds = []
    for pessimistic in (False, True):
        one = pld.from_gaussian_mechanism(
            noise_over_contribution, pessimistic_estimate=pessimistic, value_discretization_interval=GRID,
            use_connect_dots=pessimistic, sampling_prob=sampling_rate,
            neighboring_relation=privacy_accountant.NeighboringRelation.REPLACE_ONE)
        bounds.append(one.self_compose(steps).get_epsilon_for_delta(delta))
    return tuple(bounds)


def generic(steps, delta):
    """(lower, upper) optimal-composition ε of generic steps at total δ.

    ``steps`` is a list of ((ε₀, δ₀), count): ``count`` steps, each only known to be (ε₀, δ₀)-DP.
    """
    if delta == 0 and all(delta0 == 0 for (_, delta0), _ in steps):
        # Pure steps at δ = 0: the tight ε is the largest privacy loss, Σ ε₀, exactly. (The PLD truncates
        # its tails into an "infinite loss" mass, so its ε at δ = 0 is inf: useless, though valid.)
        total = float(sum(eps0 * count for (eps0, _), count in steps))
        return total, total
    common, pld = _pld()
    composed, n_steps = None, 0
    for (eps0, delta0), count in steps:
        one = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(eps0, delta0),
                                          value_discretization_interval=GRID).self_compose(count)
        composed = one if composed is None else composed.compose(one)
        n_steps += count
    upper = composed.get_epsilon_for_delta(delta)
    return max(upper - n_steps * GRID, 0.0), upper


# --- the grid: (routine, parameters, certified ε, (lower, upper)) --------------------------------

def _row(routine, params, certified, bounds):
    lower, upper = bounds
    return {"routine": routine, "params": params, "certified": float(certified),
            "lower": float(lower), "upper": float(upper)}


def _composition_rows():
    from dpteach import composition
    rows = []
    for eps0 in (0.1, 0.5, 1.0):
        for delta0 in (0.0, 1e-7):
            for k in (1, 10, 50):
                eps, delta = composition.basic_composition(np.full(k, eps0), np.full(k, delta0))
                rows.append(_row("composition.basic_composition", {"epsilon": eps0, "delta": delta0, "k": k},
                                 eps, generic([((eps0, delta0), k)], delta)))
    for eps0 in (0.01, 0.1, 0.5):
        for delta0 in (0.0, 1e-7):
            for k in (10, 50, 200):
                eps, delta = composition.advanced_composition(eps0, delta0, k, 1e-5)
                rows.append(_row("composition.advanced_composition",
                                 {"epsilon": eps0, "delta": delta0, "k": k, "delta_prime": 1e-5},
                                 eps, generic([((eps0, delta0), k)], delta)))
    for scale, k in ((10.0, 50), (2.0, 10), (50.0, 200)):  # the tight accountant itself, on Laplace steps
        rows.append(_row("composition.pld_epsilon[laplace]", {"scale_over_sensitivity": scale, "k": k,
                                                             "delta": 1e-5},
                         composition.pld_epsilon([("laplace", scale, k)], 1e-5), laplace(scale, k, 1e-5)))
    for small, large, count in ((0.05, 0.2, 20), (0.1, 0.5, 50)):
        epsilons = np.r_[np.full(count, small), np.full(count, large)]
        eps = composition.heterogeneous_advanced_composition(epsilons, 1e-5)
        rows.append(_row("composition.heterogeneous_advanced_composition",
                         {"epsilons": f"{count}×{small} + {count}×{large}", "delta_prime": 1e-5},
                         eps, generic([((small, 0.0), count), ((large, 0.0), count)], 1e-5)))
    return rows


def _zcdp_rows():
    from dpteach.dp_erm import zcdp_epsilon
    rows = []
    for ratio in (0.5, 2.0, 10.0):  # σ/Δ
        for k in (1, 20):
            rho = k / (2 * ratio ** 2)  # a Δ-sensitive Gaussian mechanism is Δ²/(2σ²)-zCDP, k of them kΔ²/(2σ²)
            rows.append(_row("dp_erm.zcdp_epsilon", {"sigma_over_sensitivity": ratio, "steps": k, "delta": 1e-5},
                             zcdp_epsilon(rho, 1e-5), gaussian(ratio, k, 1e-5)))
    return rows


def _peeling_rows():
    from dpteach import peeling
    rows = []
    for s in (1, 5, 50):
        for eps in (0.5, 1.0, 4.0):
            delta = 1e-3
            # Each of the s selections is ε_r-DP and each of the s released values ε_r/2-DP (Theorem 5.3).
            eps_round = peeling.paper_epsilon_round(s, eps, delta)
            tight = generic([((eps_round, 0.0), s), ((eps_round / 2, 0.0), s)], delta)
            for accountant in peeling.ACCOUNTANTS:
                name = "peeling.peeling_epsilon" + ("" if accountant == "composition" else f"[{accountant}]")
                rows.append(_row(name, {"s": s, "epsilon": eps, "delta": delta},
                                 peeling.peeling_epsilon(s, eps, delta, accountant=accountant), tight))
    return rows


def _gaussian_calibration_rows():
    from dpteach import dp_erm, dp_logistic, dpsas_steps, regression
    rows = []
    for eps in (0.3, 1.0, 4.0):
        delta = 1e-5
        # DP-ERM (Algorithm 6.7): K steps of sensitivity 2T/n.
        T, n, K = 1.0, 1000, 20
        sigma = dp_erm.dp_erm_sigma(T, n, eps, delta, K)
        rows.append(_row("dp_erm.dp_erm_sigma", {"epsilon": eps, "delta": delta, "K": K},
                         eps, gaussian(sigma / (2 * T / n), K, delta)))
        # DP-GD (Algorithm 5.11): K steps of sensitivity 4·c_x·√d·T/n, both accountants.
        n, d, T, K = 1000, 5, 2.0, 7
        for accountant in ("gaussian", "advanced"):
            sigma = regression.dp_gradient_descent_sigma(n, d, eps, delta, T, K, accountant=accountant)
            rows.append(_row(f"regression.dp_gradient_descent_sigma[{accountant}]",
                             {"epsilon": eps, "delta": delta, "K": K},
                             eps, gaussian(sigma / (4 * math.sqrt(d) * T / n), K, delta)))
        # DP-SGD (Algorithm 9.2): E epochs, each one Gaussian mechanism of sensitivity 2C per example.
        for accountant in dp_logistic.ACCOUNTANTS:
            for epochs in (1, 5, 50):
                sigma = dp_logistic.dp_sgd_sigma(1.0, epochs, eps, delta, accountant=accountant)
                rows.append(_row(f"dp_logistic.dp_sgd_sigma[{accountant}]",
                                 {"epsilon": eps, "delta": delta, "epochs": epochs},
                                 eps, gaussian(sigma / 2.0, epochs, delta)))
        # DPSAS (Algorithm 8.3): each round one Gaussian release of sensitivity 2L/m; the sample-reuse
        # variant releases r times on the same block.
        m, L = 500, 2.0
        for releases in (1, 10):
            sigma = dpsas_steps.dpsas_noise_sigma(m, L, eps, delta, n_releases=releases)
            rows.append(_row("dpsas_steps.dpsas_noise_sigma", {"epsilon": eps, "delta": delta, "releases": releases},
                             eps, gaussian(sigma / (2 * L / m), releases, delta)))
    for sigma in (5.0, 20.0, 100.0):  # the inverse direction: the ε each accountant certifies for a given σ
        for accountant in dp_logistic.ACCOUNTANTS:
            rows.append(_row(f"dp_logistic.dp_sgd_epsilon[{accountant}]",
                             {"sigma": sigma, "delta": 1e-5, "epochs": 10},
                             dp_logistic.dp_sgd_epsilon(sigma, 1.0, 10, 1e-5, accountant=accountant),
                             gaussian(sigma / 2.0, 10, 1e-5)))
    return rows


def _poisson_rows():
    from dpteach import dp_sgd_poisson
    rows = []
    for eps, rate, steps in ((1.0, 0.01, 500), (1.0, 0.1, 50), (4.0, 0.05, 100)):
        sigma = dp_sgd_poisson.poisson_sgd_sigma(1.0, rate, steps, eps, 1e-5)
        rows.append(_row("dp_sgd_poisson.poisson_sgd_sigma", {"epsilon": eps, "q": rate, "steps": steps},
                         eps, poisson_gaussian(sigma, rate, steps, 1e-5)))
    return rows


def _local_rows():
    from dpteach.local import LocalSimulatedSQOracle, ReusingLocalSQOracle
    rows = []
    rng = np.random.default_rng(0)
    data = rng.uniform(-1, 1, size=(400, 2))
    for cls in (LocalSimulatedSQOracle, ReusingLocalSQOracle):
        oracle = cls(data, epsilon=0.5, beta=0.1, max_queries=4, randomizer="laplace", split="equal", rng=1)
        answered = 0
        for _ in range(4):
            oracle.query(lambda x: np.clip(x[:, 0], -1, 1), 0.5)
            answered += 1
        ledger = oracle.max_user_epsilon
        # The worst user's reports, counted from the groups that actually answered (not from the ledger):
        # one Laplace randomizer per query they were in (scale 2/ε, values in [−1, 1], sensitivity 2),
        # pure DP, so δ = 0.
        times = int(np.bincount(np.concatenate(oracle.groups)).max())
        scale = oracle.randomizer.scale
        rows.append(_row(f"local.{cls.__name__}.max_user_epsilon", {"epsilon": 0.5, "queries": answered},
                         ledger, laplace(scale / 2.0, times, 0.0)))
    return rows


def cases():
    """Every (routine, parameters, certified ε, tight ε bracket) row of the grid (about 150 PLDs, ~20 s)."""
    return (_composition_rows() + _zcdp_rows() + _peeling_rows() + _gaussian_calibration_rows()
            + _poisson_rows() + _local_rows())


def looseness(rows):
    """Per routine: the smallest and largest ratio certified/upper over its grid (1 = tight)."""
    table = {}
    for row in rows:
        ratio = row["certified"] / row["upper"] if row["upper"] > 0 else math.inf
        low, high = table.get(row["routine"], (math.inf, 0.0))
        table[row["routine"]] = (min(low, ratio), max(high, ratio))
    return {name: {"min_ratio": round(low, 3), "max_ratio": round(high, 3)} for name, (low, high) in table.items()}


def main(argv=None):
    from importlib import metadata
    rows = cases()
    record = {"dp_accounting": metadata.version("dp-accounting"),
              "grid": GRID, "looseness": looseness(rows), "rows": rows}
    LOOSENESS.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {LOOSENESS.relative_to(ROOT)} ({len(rows)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
