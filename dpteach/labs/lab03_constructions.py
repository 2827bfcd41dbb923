"""Checkers for the construction tasks 5–7 of Lab 3 (re-exported by :mod:`dpteach.labs.lab03`).

5. :func:`check_local_oracle` — the SQ → local oracle, run with the chapter's
   own SQ algorithms (``sq_algorithms.sq_mean``, ``sq_algorithms.sq_threshold_grid``);
6. :func:`check_rejection_sampler` — local → SQ by rejection sampling,
   checked on its output law, its e^ε queries per report and, against
   adversarial oracles, on the law the answers imply (whose distance from
   the true law is within the TV bound of Task 8);
7. :func:`check_threshold_learner` — a threshold learner that must reach
   err <= OPT + α against every adversary of ``sq.NoisySQOracle``.

Reference values are computed here: exact expectations over finite
distributions, :func:`dpteach.group_sizes.group_size` for the group sizes (the
task allows the student to call it too), and
:func:`dpteach.local_to_sq.rejection_output_law` for the law implied by a given
set of oracle answers. Statistical checks run at false-alarm rate 1e-6 with
fixed seeds.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .. import local
from .. import sq_algorithms
from .. import sq
from .. import randomizers
from .. import local_to_sq
from .. import group_sizes
from .checking import (LabCheckError, call_student, expect_student_raises, passed, require, require_integer,
                       require_own_code, require_real)

__all__ = ["check_local_oracle", "check_rejection_sampler", "check_threshold_learner"]

FALSE_ALARM = 1e-6


# --- Task 5: the SQ -> local oracle ----------------------------------------------------------

def _make_oracle(cls, args, task):
    oracle = call_student(cls, args, task)
    require(isinstance(oracle, sq.SQOracle),
            f"{task}: MyLocalOracle must subclass sq.SQOracle (so that query and query_batch work).")
    return oracle


def _ledger(oracle, n, task):
    for name in ("ledger", "users_used"):
        require(hasattr(oracle, name), f"{task}: your oracle has no attribute `{name}` (the privacy ledger: "
                                       f"`ledger[i]` = total ε spent by user i, `users_used` = users so far).")
    ledger = np.asarray(oracle.ledger, dtype=float)
    require(ledger.shape == (n,), f"{task}: `ledger` must have one entry per user (shape ({n},)), "
                                  f"got shape {ledger.shape}.")
    return ledger, require_integer(oracle.users_used, task, "oracle.users_used", "an int")


def _sorted_mean_data(n):
    """Three columns stored in a sorted order: consecutive rows are far from a random sample."""
    index = np.arange(n)
    return np.column_stack([np.where(index < 0.4 * n, 1.0, -1.0),      # mean -0.2
                            np.where(index < 0.7 * n, 1.0, -1.0),      # mean 0.4
                            np.linspace(-1.0, 1.0, n)])                # mean 0


def check_local_oracle(cls):
    """Task 5: ``cls(data, epsilon, beta, max_queries, rng)`` must be the SQ → local simulation of chapter 3.

    Checks, with ε = 1, β = 0.05: ``sq_algorithms.sq_mean`` (3 queries at τ = 0.1) on
    data stored in sorted order returns answers within τ of the true means
    (groups taken in the stored order fail here); exactly 3·m users are used
    with m = ``group_sizes.group_size(ε, τ, β/3)`` (the union bound: β/t per query);
    the ledger has ε for exactly the used users and 0 elsewhere (disjoint
    groups); a 4th query raises ``sq.QueryBudgetError`` and a group larger
    than the remaining users ``sq.NotEnoughUsersError``; 200 answers of a
    constant query have the variance 8/(ε²m) of m Laplace(2/ε) reports
    (chi-square band at 1e-6: catches scale 1/ε, no noise, and one noise
    draw on the average instead of one per user); and
    ``sq_algorithms.sq_threshold_grid`` (α = 0.25) through the oracle, in one round,
    returns a threshold with empirical error <= OPT + α.
    """
    task = "Task 5 (SQ → local oracle)"
    require(isinstance(cls, type), f"{task}: pass your class itself, check_local_oracle(MyLocalOracle), "
                                   f"got {type(cls).__name__}.")
    require_own_code(cls, ("LocalSimulatedSQOracle", "ReusingLocalSQOracle", "FastLocalSQOracle",
                           "simulate_sq_locally", "_LocalSQOracleBase", "sample_group_averages"), task)
    epsilon, beta, tau, t = 1.0, 0.05, 0.1, 3
    m = group_sizes.group_size(epsilon, tau, beta / t)
    n = (t + 1) * m + 1000  # room for one query too many: the budget, not the users, must stop it
    data = _sorted_mean_data(n)
    means = data.mean(axis=0)
    oracle = _make_oracle(cls, (data.copy(), epsilon, beta, t, np.random.default_rng(51)), task)
    answers = np.asarray(call_student(sq_algorithms.sq_mean, (oracle, t, tau), task), dtype=float)
    require(answers.shape == (t,), f"{task}: sq_algorithms.sq_mean asked 3 queries in one batch; your _answer_batch "
                                   f"must return 3 answers, got shape {answers.shape}.")
    ledger, used = _ledger(oracle, n, task)
    off = np.abs(answers - means)
    if np.any(off > tau):
        j = int(np.argmax(off))
        stored_order = float(data[:m, j].mean())
        if abs(answers[j] - stored_order) <= tau:
            hint = ("your first group looks like the first rows of the data as stored. Rows of a dataset "
                    "are not a random sample (this one is sorted): draw a random order of the users with "
                    "rng.permutation before any query and take the groups from it.")
        else:
            hint = ("the answer is the average of the group's reports φ(z_i) + Lap(2/ε), one noise draw per "
                    "user, so its noise is small (standard deviation √8/(ε√m)). One Laplace draw added to the "
                    "group's average would be central DP, not local, and far noisier; check also that each "
                    "report uses its own user's φ(z_i).")
        raise LabCheckError(f"{task}: sq_algorithms.sq_mean through your oracle answered {answers.round(4).tolist()} "
                            f"for true means {means.round(4).tolist()}; query {j} is off by {off[j]:.3g} > τ = "
                            f"{tau}.\nHint: {hint}")
    if used != t * m:
        if used == t * group_sizes.group_size(epsilon, tau, beta):
            hint = (f"each group has group_sizes.group_size(ε, τ, β) users, so each answer fails with probability β "
                    f"and all {t} together with up to {t}β. Give each query β/t (union bound): "
                    f"group_sizes.group_size(ε, τ, β / max_queries).")
        else:
            hint = f"each query needs m = group_sizes.group_size(ε, τ, β/t) = {m} fresh users (β/t by the union bound)."
        raise LabCheckError(f"{task}: 3 queries at τ = {tau} (ε = {epsilon}, β = {beta}, max_queries = {t}) used "
                            f"users_used = {used} users; expected {t} × {m} = {t * m}.\nHint: {hint}")
    if ledger.max() > epsilon * (1 + 1e-9):
        raise LabCheckError(f"{task}: the ledger shows a user who spent ε = {ledger.max():g} over several "
                            f"queries (the protocol is then only {ledger.max():g}-local).\nHint: every query "
                            f"needs a *fresh* group, disjoint from all earlier groups.")
    require(np.all(np.isclose(ledger, 0) | np.isclose(ledger, epsilon)) and np.sum(ledger > 0) == used,
            f"{task}: the ledger must hold ε = {epsilon:g} for each of the {used} users who reported once and 0 "
            f"for the others; it has {int(np.sum(ledger > 0))} non-zero entries (sum {ledger.sum():.6g}). "
            f"Hint: add ε to ledger[group] for every group you use.")
    expect_student_raises(lambda: oracle.query(lambda rows: rows[:, 0], tau), (), sq.QueryBudgetError, task,
                          f"The oracle was built for max_queries = {t}; a 4th query breaks the union bound "
                          f"(its β/t was never budgeted): raise sq.QueryBudgetError.")
    small = _make_oracle(cls, (np.zeros((100, 1)), epsilon, beta, 1, np.random.default_rng(52)), task)
    expect_student_raises(lambda: small.query(lambda rows: rows[:, 0], tau), (), sq.NotEnoughUsersError, task,
                          f"With 100 users a query at τ = {tau} needs {group_sizes.group_size(epsilon, tau, beta)} fresh "
                          f"users: raise sq.NotEnoughUsersError instead of reusing users or using fewer.")
    _check_oracle_noise(cls, task)
    _check_oracle_threshold_grid(cls, task)
    print(f"sq_mean: answers within τ = {tau} of the means with {t} × {m:,} users (β/t per query); ledger "
          f"max {ledger.max():g} = ε; budget and user limits enforced; noise variance and the grid learner "
          f"as expected.")
    passed(task)


def _check_oracle_noise(cls, task):
    # A constant query φ ≡ 0: each answer is the average of m Lap(2/ε) reports, variance 8/(ε²m).
    # The mean of the 200 squared answers over 8/(ε²m) is ~ χ²(200)/200 (the averages are near
    # normal: excess kurtosis 3/m); its 1e-6 quantiles are about 0.64 and 1.5, while scale 1/ε gives
    # 0.25, no noise 0, and one Lap(2/ε) on the average (central noise) gives m ≈ 3800.
    epsilon, beta, tau, t = 1.0, 0.5, 0.5, 200
    m = group_sizes.group_size(epsilon, tau, beta / t)
    oracle = _make_oracle(cls, (np.zeros((t * m + 10, 1)), epsilon, beta, t, np.random.default_rng(53)), task)
    answers = np.asarray(call_student(oracle.query_batch, ([(lambda rows: rows[:, 0], tau)] * t,), task), float)
    require(answers.shape == (t,), f"{task}: a batch of {t} queries must give {t} answers, got {answers.shape}.")
    ratio = float(np.mean(answers ** 2)) / (8 / (epsilon ** 2 * m))
    low, high = (stats.chi2.ppf(FALSE_ALARM / 2, t) / t, stats.chi2.isf(FALSE_ALARM / 2, t) / t)
    if low <= ratio <= high:
        return
    if ratio == 0:
        hint = "no noise was added: every user in the group releases φ(z_i) + Lap(2/ε), not φ(z_i)."
    elif abs(ratio - 0.25) < 0.12:
        hint = ("the noise scale looks like 1/ε. φ has values in [-1, 1], so two users' values differ by up "
                "to 2: the Laplace scale is 2/ε.")
    elif ratio > 50:
        hint = ("the answers are far noisier than m local reports: it looks like one Laplace draw was added to "
                "the group's average (central DP). In the local model every *user* adds their own noise, and "
                "the average of m reports has noise of standard deviation √8/(ε√m).")
    else:
        hint = "each of the m users must add independent Lap(2/ε) noise to φ(z_i); the answer is their average."
    raise LabCheckError(f"{task}: 200 answers of the constant query φ = 0 (ε = 1, m = {m} users each) have mean "
                        f"square {np.mean(answers ** 2):.3g}, {ratio:.3g} × the variance 8/(ε²m) = {8 / m:.3g} "
                        f"of an average of m Lap(2/ε) reports (accepted: {low:.2f}–{high:.2f} ×).\nHint: {hint}")


def _check_oracle_threshold_grid(cls, task):
    epsilon, beta, alpha = 1.0, 0.05, 0.25
    t = math.ceil(1 / alpha) + 1
    m = group_sizes.group_size(epsilon, alpha / 2, beta / t)
    n = t * m + 1000
    rng = np.random.default_rng(54)
    x = (np.arange(n) + 0.5) / n                       # stored sorted by x
    y = np.where(x >= 0.37, 1.0, -1.0) * np.where(rng.random(n) < 0.1, -1.0, 1.0)
    oracle = _make_oracle(cls, (np.column_stack([x, y]), epsilon, beta, t, np.random.default_rng(55)), task)
    theta = require_real(call_student(sq_algorithms.sq_threshold_grid, (oracle, alpha), task), task,
                         "sq_algorithms.sq_threshold_grid through your oracle")
    grid = np.concatenate([np.sort(x), [1.0]])
    errors = np.array([np.mean(np.where(x >= g, 1.0, -1.0) != y) for g in grid[::max(1, n // 2000)]])
    error = float(np.mean(np.where(x >= theta, 1.0, -1.0) != y))
    optimum = min(float(errors.min()), float(np.mean(np.where(x >= 0.37, 1.0, -1.0) != y)))
    require(error <= optimum + alpha,
            f"{task}: sq_algorithms.sq_threshold_grid(oracle, α = {alpha}) through your oracle chose θ = {theta:g} with "
            f"empirical error {error:.3f} > OPT + α = {optimum + alpha:.3f}. Hint: every answer must be within "
            f"its τ of the query's mean over the users; check the group sizes and the noise.")
    require(oracle.rounds == 1, f"{task}: one batch of queries must be one round, got {oracle.rounds}.")


# --- Task 6: the rejection sampler --------------------------------------------------------------

_SUPPORT = np.array([[0.0], [1.0]])
_WEIGHTS = np.array([0.2, 0.8])   # P: a user's bit is 1 with probability 0.8


class _RandomizedResponse:
    """Randomized response with the interface of ``randomizers.RandomizedResponse`` (epsilon, randomize, probability).

    The checker calls the student's sampler thousands of times; the library class validates its inputs
    on every call (about 0.2 ms), this one does not, which keeps the check under a second.
    """

    def __init__(self, epsilon):
        self.epsilon = epsilon
        self.keep_probability = math.exp(epsilon) / (1 + math.exp(epsilon))

    def randomize(self, values, rng=None):
        values = np.asarray(values).astype(np.int64)
        flip = np.random.default_rng(rng).random(values.shape) >= self.keep_probability
        return np.where(flip, 1 - values, values)

    def probability(self, outputs, values):
        return np.where(np.asarray(outputs) == np.asarray(values), self.keep_probability, 1 - self.keep_probability)

    def __repr__(self):
        return f"RandomizedResponse(epsilon={self.epsilon:g})"


class _TwoPointOracle(sq.SQOracle):
    """Exact SQ oracle for P over the bits {0, 1}, optionally shifting every answer by ``shift`` (|shift| <= τ)."""

    def __init__(self, shift=0.0):
        super().__init__()
        self.shift = shift

    def _answer_batch(self, phis, taus):
        answers = []
        for phi in phis:
            values = np.asarray(phi(_SUPPORT), dtype=float)
            if values.shape != (2,) or not np.all(np.abs(values) <= 1):
                raise ValueError(f"phi must map each record to a value in [-1, 1]; on the records "
                                 f"[[0], [1]] it gave {values!r}")
            answers.append(float(np.dot(_WEIGHTS, values)) + self.shift)
        return np.array(answers)


def _rr_laws(epsilon):
    """(p0, q, r) for randomized response at ε, reference input 0, P = _WEIGHTS; index = the output bit."""
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    p0 = np.array([keep, 1 - keep])                                   # Pr[R(0) = w]
    q = np.array([_WEIGHTS[0] * keep + _WEIGHTS[1] * (1 - keep),      # E_P Pr[R(z) = w]
                  _WEIGHTS[0] * (1 - keep) + _WEIGHTS[1] * keep])
    return p0, q, q / (math.exp(epsilon) * p0)


def _draw_reports(fn, epsilon, oracle, tau, n_calls, seed, task):
    randomizer = _RandomizedResponse(epsilon)
    rng = np.random.default_rng(seed)
    reports = np.empty(n_calls, dtype=np.int64)
    queries = np.empty(n_calls, dtype=np.int64)
    for i in range(n_calls):
        before = oracle.n_queries
        out = call_student(fn, (randomizer, oracle, tau, rng), task,
                           "\nHint: if the oracle says phi must map into [-1, 1], clip the ratio with "
                           "np.minimum(ratio, 1.0) (round-off).")
        require(isinstance(out, tuple) and len(out) == 2,
                f"{task}: return a pair (report, n_queries), got {out!r}.")
        w = require_integer(out[0], task, "the report", "a bit (an int, 0 or 1)")
        k = require_integer(out[1], task, "the number of queries", "an int")
        require(w in (0, 1), f"{task}: a randomized-response report is a bit 0 or 1, got {w}.")
        asked = oracle.n_queries - before
        require(asked >= 1,
                f"{task}: your function returned without asking the oracle anything (it reported {k} queries). "
                f"Without a query nothing depends on the data: a proposal w drawn from R(z0) must be accepted "
                f"with probability E φ_w, which only the oracle can tell you — ask one query per proposal.")
        require(k == asked,
                f"{task}: your function reported {k} queries but asked the oracle {asked} (count every query; "
                f"each proposal needs one).")
        reports[i], queries[i] = w, k
    require(all(abs(tol - tau) < 1e-12 for tol in oracle.tolerances),
            f"{task}: ask every query at the tolerance tau = {tau} you are given.")
    return reports, queries


def _law_hint(share_one, epsilon):
    p0, q, r = _rr_laws(epsilon)
    candidates = (
        (p0[1], "your reports have the law of R(z0) itself: every proposal is accepted. Accept w with "
                "probability E φ_w (the oracle's answer), where φ_w(z) = Pr[R(z) = w]/(e^ε Pr[R(z0) = w])"),
        (p0[1] * min(1, r[1] * math.exp(epsilon)) / np.dot(p0, np.minimum(1, r * math.exp(epsilon))),
         "the factor e^ε is missing in φ_w: Pr[R(z) = w]/Pr[R(z0) = w] can exceed 1, the clip at 1 then "
         "changes the law. Divide by e^ε·Pr[R(z0) = w], which bounds it by ε-local privacy"),
        (float(p0[1] * (r[1] > 0.5) / np.dot(p0, r > 0.5)),
         "you accept when the answer exceeds 1/2; accept with probability equal to the answer "
         "(rng.random() < answer)"),
    )
    for value, hint in candidates:
        if abs(share_one - value) < 0.03:
            return hint
    return "accept the proposal w with probability E φ_w, φ_w(z) = Pr[R(z) = w]/(e^ε Pr[R(z0) = w])"


def _binomial_p(successes, n, p):
    return float(stats.binomtest(int(successes), int(n), float(p)).pvalue)


def check_rejection_sampler(fn):
    """Task 6: ``fn(randomizer, oracle, tau, rng)`` → ``(w, n_queries)``, one report simulated by rejection.

    With randomized response and P(bit = 1) = 0.8: against an exact oracle
    the reports must have the law q(w) = E_P Pr[R(z) = w] (binomial test at
    1e-6 on 3000 reports at ε = 1) and the queries per report must average
    e^ε (a 1e-6 CLT band for the geometric law, at ε = 1 and ε = 2; a
    normaliser larger than e^ε keeps the law but costs more and is named);
    the reported query count must equal the queries the oracle saw, at the
    given τ. Against ``NoisySQOracle`` adversaries ("plus", "minus", τ = 0.05)
    the reports must follow the law that the clipped answers imply
    (:func:`dpteach.local_to_sq.rejection_output_law`), whose TV distance from q
    is printed next to the bound τe^ε/(1 − τe^ε) of Task 8.
    """
    task = "Task 6 (rejection sampler)"
    require_own_code(fn, ("simulate_local_with_sq", "rejection_output_law", "worst_case_rejection_tv",
                          "_proposal_query"), task)
    for epsilon, n_calls, seed in ((1.0, 3000, 61), (2.0, 500, 62)):
        oracle = _TwoPointOracle()
        reports, queries = _draw_reports(fn, epsilon, oracle, 0.01, n_calls, seed, task)
        p0, q, _ = _rr_laws(epsilon)
        p_law = _binomial_p(reports.sum(), n_calls, q[1])
        if p_law < FALSE_ALARM:
            raise LabCheckError(f"{task}: at ε = {epsilon:g} with an exact oracle, {reports.mean():.4f} of your "
                                f"{n_calls} reports are 1; the randomizer on a fresh user gives 1 with probability "
                                f"q(1) = {q[1]:.4f} (binomial p = {p_law:.1e}).\n"
                                f"Hint: {_law_hint(reports.mean(), epsilon)}.")
        # The number of proposals is geometric with success probability e^{−ε}: mean e^ε, variance
        # (1 − p)/p². A band of 5.5 standard errors has false-alarm rate below 1e-7 (CLT).
        p = math.exp(-epsilon)
        band = 5.5 * math.sqrt((1 - p) / p ** 2 / n_calls)
        mean = float(queries.mean())
        if abs(mean - math.exp(epsilon)) > band:
            if mean > math.exp(epsilon):
                hint = ("your reports have the right law but cost too many queries: the acceptance probability "
                        "is smaller than it needs to be. ε-local privacy gives Pr[R(z) = w] <= e^ε Pr[R(z0) = w], "
                        "so dividing by e^ε·Pr[R(z0) = w] already keeps φ_w <= 1 (a larger normaliser, e.g. "
                        "e^{2ε}, wastes queries).")
            else:
                hint = "a report must be accepted with probability E φ_w; a proposal costs one query."
            raise LabCheckError(f"{task}: at ε = {epsilon:g} your reports took {mean:.3f} queries on average; "
                                f"rejection sampling with an exact oracle needs e^ε = {math.exp(epsilon):.3f} "
                                f"(±{band:.2f}).\nHint: {hint}")
    epsilon, tau, n_calls = 1.0, 0.05, 2000
    p0, q, r = _rr_laws(epsilon)
    bound = tau * math.exp(epsilon) / (1 - tau * math.exp(epsilon))
    distances = []
    for strategy, seed in (("plus", 63), ("minus", 64)):
        shift = tau if strategy == "plus" else -tau
        oracle = _TwoPointOracle(shift)   # the adversaries "plus" / "minus" of sq.NoisySQOracle
        reports, _ = _draw_reports(fn, epsilon, oracle, tau, n_calls, seed, task)
        law, _ = local_to_sq.rejection_output_law(p0, r + shift)
        p_law = _binomial_p(reports.sum(), n_calls, law[1])
        require(p_law >= FALSE_ALARM,
                f"{task}: against an oracle that answers every query {tau} too {'high' if shift > 0 else 'low'}, "
                f"{reports.mean():.4f} of your reports are 1, but accepting w with probability clip(answer, 0, 1) "
                f"gives {law[1]:.4f} (binomial p = {p_law:.1e}). Hint: use the oracle's answer as the acceptance "
                f"probability (clipped to [0, 1]); do not compute the acceptance probability another way.")
        distances.append(0.5 * float(np.abs(law - q).sum()))
    print(f"Exact oracle: law q(1) = {q[1]:.3f} and e^ε queries per report at ε = 1 and 2. Adversarial oracles "
          f"(τ = {tau}): your reports follow the implied law, at TV {max(distances):.4f} from q <= the bound "
          f"τe^ε/(1 − τe^ε) = {bound:.4f}.")
    passed(task)


# --- Task 7: a threshold learner against any legal oracle ---------------------------------------

N_SUPPORT = 1000
_X = (np.arange(N_SUPPORT) + 0.5) / N_SUPPORT
_LABEL_LAWS = (   # (name, Pr[y = +1 | x] on _X)
    ("noiseless labels, θ = 0.27", (_X >= 0.27).astype(float)),
    ("20 % label noise, θ = 0.62", np.where(_X >= 0.62, 0.8, 0.2)),
    ("labels +1 mostly on [0.3, 0.5) and [0.7, 1] (no noisy threshold)",
     np.where(((_X >= 0.3) & (_X < 0.5)) | (_X >= 0.7), 0.9, 0.1)),
)


def _law_oracle_parts(p_plus):
    records = np.vstack([np.column_stack([_X, np.ones(N_SUPPORT)]), np.column_stack([_X, -np.ones(N_SUPPORT)])])
    weights = np.concatenate([p_plus, 1 - p_plus]) / N_SUPPORT
    return records, weights


def _threshold_error(theta, p_plus):
    """err(h_θ) exactly: h_θ(x) = +1 iff x >= θ."""
    predicted_plus = _X >= theta
    return float(np.sum(np.where(predicted_plus, 1 - p_plus, p_plus)) / N_SUPPORT)


def _optimum(p_plus):
    # θ at a support point x_k predicts +1 on x_k..x_{N−1}; θ = 1 predicts −1 everywhere.
    below = np.concatenate([[0.0], np.cumsum(p_plus)])            # positives missed below x_k
    above = np.concatenate([np.cumsum((1 - p_plus)[::-1])[::-1], [0.0]])  # negatives hit from x_k on
    return float(np.min(below + above) / N_SUPPORT)


def _probe_grid(fn, alpha):
    """(support indices of the thresholds the learner's first batch asks, smallest tolerance), or None.

    Runs ``fn`` once against an exact oracle on the noiseless law and reads each query on the records (x, +1):
    the error query of h_t is +1 exactly below t, so the number of +1 values is t's index on the support. A
    learner whose queries are not such steps (or asks several batches) gets None: its grid cannot be read.
    """
    seen = []

    def record(values, taus, phis):
        seen.append((phis, taus))
        return values

    records, weights = _law_oracle_parts(_LABEL_LAWS[0][1])
    oracle = sq.NoisySQOracle(sq.ExactSQOracle(records, weights), mode="adversarial", strategy=record)
    call_student(fn, (oracle, alpha), "Task 7 (threshold learner)")
    if len(seen) != 1:
        return None
    positives = np.column_stack([_X, np.ones(N_SUPPORT)])
    indices = []
    for phi in seen[0][0]:
        try:
            values = np.asarray(phi(positives), dtype=float)
        except Exception:  # not a query on (x, y) rows: no grid to read
            return None
        k = int(np.sum(values > 0))
        if values.shape != (N_SUPPORT,) or not (np.all(values[:k] == 1) and np.all(values[k:] == -1)):
            return None
        indices.append(k)
    return np.unique(indices), float(np.min(seen[0][1]))


def _two_basin_law(grid, tau):
    """Pr[y = +1 | x] with two near-optimal basins, adapted to a learner's grid (support indices) and tolerance.

    err(h_t) decreases where Pr[y = +1 | x] < 1/2 and increases where it is > 1/2. With p = 0 on [0, a),
    1 on [a, b), 0 on [b, c), 1 on [c, 1] it has two local minima: err(a) = (c − b)/N and err(c) = OPT = (b − a)/N.
    c is the middle of the learner's widest gap (to the right of the middle of [0, 1]), so its best grid point
    loses d = half that gap; a is a grid point, and b is chosen so that err(a) = err(c) + d/N + τ − O(1/N): the
    two answers are then within the 2τ that 'argmin_trap' may move them apart, and it makes the argmin pick a.
    The learner then errs by d/N + τ − O(1/N) over OPT, more than α exactly when its grid step and tolerance
    break τ + s/2 <= α (by more than the 3/N of rounding). None if the grid leaves no room for the two basins.
    """
    points = np.unique(np.concatenate([[0, N_SUPPORT], grid]))
    gaps = np.diff(points)
    right = [j for j in range(gaps.size) if points[j] + gaps[j] // 2 >= N_SUPPORT // 2]
    if not right:
        return None
    j = max(right, key=lambda i: (gaps[i], i))
    c, d = int(points[j] + gaps[j] // 2), int(gaps[j] // 2)
    margin = d + tau * N_SUPPORT + 0.05 * N_SUPPORT     # b − a = OPT·N >= about 0.025·N
    lefts = [int(g) for g in grid if c - g > margin]
    if not lefts:
        return None
    a = min(lefts)
    b = math.ceil((c + a - d - tau * N_SUPPORT) / 2)
    if not a < b < c:
        return None
    index = np.arange(N_SUPPORT)
    return np.where((index >= c) | ((index >= a) & (index < b)), 1.0, 0.0)


def check_threshold_learner(fn):
    """Task 7: ``fn(oracle, alpha)`` must return θ̂ with err(h_θ̂) <= OPT + α against every legal SQ oracle.

    x uniform on 1000 evenly spaced points of [0, 1] (so the mass of an
    interval of length L is at most L + 1/1000, which is added to the
    allowance), three conditional label laws (noiseless, 20 % noise, and a
    law that is not a noisy threshold), α ∈ {0.2, 0.1}, and every adversary
    of ``sq.NoisySQOracle`` plus random answers: 42 runs, each with the
    exact error of θ̂ computed here. The learner must use tolerances >= α/8
    and at most 8/α + 8 queries.
    """
    task = "Task 7 (threshold learner)"
    require_own_code(fn, ("sq_threshold_grid", "sq_threshold_binary_search", "LocalThresholdLearner",
                          "_threshold_error_query"), task)
    strategies = [("adversarial", name) for name in sq.ADVERSARIAL_STRATEGIES] + [("random", "shrink")]
    runs = 0
    for alpha in (0.2, 0.1):
        for law_name, p_plus in _LABEL_LAWS:
            records, weights = _law_oracle_parts(p_plus)
            optimum = _optimum(p_plus)
            for mode, strategy in strategies:
                oracle = sq.NoisySQOracle(sq.ExactSQOracle(records, weights), mode=mode, strategy=strategy,
                                             rng=np.random.default_rng(71 + runs))
                who = f"the {'random' if mode == 'random' else repr(strategy)} oracle"
                theta = require_real(call_student(fn, (oracle, alpha), task), task, f"fn(oracle, {alpha})")
                require(0 <= theta <= 1, f"{task}: θ̂ must lie in [0, 1], got {theta!r}.")
                require(oracle.n_queries >= 1, f"{task}: your learner asked no query; it only learns about the "
                                               f"data through the oracle.")
                require(min(oracle.tolerances) >= alpha / 8 - 1e-12,
                        f"{task}: at α = {alpha} you asked a query at tolerance {min(oracle.tolerances):.3g} < α/8. "
                        f"An SQ learner must work with tolerances polynomial in α; a grid and tolerance "
                        f"proportional to α suffice.")
                require(oracle.n_queries <= 8 / alpha + 8,
                        f"{task}: at α = {alpha} you asked {oracle.n_queries} queries, more than 8/α + 8.")
                error = _threshold_error(theta, p_plus)
                allowed = optimum + alpha + 1 / N_SUPPORT
                if error > allowed:
                    tau = min(oracle.tolerances)
                    hint = ("An oracle may move every answer by its full tolerance in the worst direction "
                            "('argmin_trap' makes the argmin pick the worst candidate it can). With "
                            "φ = 2·1{h ≠ y} − 1 an answer within τ gives the error within τ/2, so picking the "
                            "smallest answer can lose τ in error; a grid of step s loses up to s/2 more (the "
                            "best threshold's nearest grid point). Choose τ and s so that τ + s/2 <= α.")
                    if oracle.rounds > 1:
                        hint += (" (Several rounds: a binary search on the positive mass assumes noiseless "
                                 "labels; here the labels are arbitrary.)")
                    raise LabCheckError(f"{task}: against {who} at α = {alpha}, with {law_name}, your θ̂ = "
                                        f"{theta:.4g} has err = {error:.4f} > OPT + α = {optimum + alpha:.4f} "
                                        f"(smallest tolerance you asked: {tau:.3g}; {oracle.n_queries} queries).\n"
                                        f"Hint: {hint}")
                runs += 1
    # A law with two near-optimal basins, built for the learner's own grid: the single-basin laws above cannot
    # make the grid's loss (half a step) and the oracle's (τ) add up, and a too-coarse grid passed them all.
    for alpha in (0.2, 0.1):
        probe = _probe_grid(fn, alpha)
        law = None if probe is None else _two_basin_law(*probe)
        if law is None:
            continue
        records, weights = _law_oracle_parts(law)
        oracle = sq.NoisySQOracle(sq.ExactSQOracle(records, weights), mode="adversarial", strategy="argmin_trap")
        theta = require_real(call_student(fn, (oracle, alpha), task), task, f"fn(oracle, {alpha})")
        error, optimum = _threshold_error(theta, law), _optimum(law)
        if error > optimum + alpha + 1 / N_SUPPORT:
            step = float(np.max(np.diff(np.unique(np.concatenate([[0, N_SUPPORT], probe[0]]))))) / N_SUPPORT
            raise LabCheckError(
                f"{task}: at α = {alpha}, on a label law with two near-optimal basins built for your grid (the "
                f"best threshold in the middle of your widest gap, of width {step:.3g}; the other basin on one of "
                f"your grid points, just under τ worse than your best grid point), 'argmin_trap' made your learner "
                f"pick the other basin: err = {error:.4f} > OPT + α = {optimum + alpha:.4f} (your smallest "
                f"tolerance: {probe[1]:.3g}).\nHint: the grid loses up to half a step to the best threshold and the "
                f"oracle up to τ more, and with two basins both losses happen at once. Choose the step s and τ with "
                f"τ + s/2 <= α.")
        runs += 1
    print(f"err(θ̂) <= OPT + α in all {runs} runs: α ∈ {{0.2, 0.1}}, 3 label laws and one with two basins built "
          f"for your grid, {len(strategies) - 1} adversaries and random answers.")
    passed(task)
