"""Tests of the Lab 3 checkers (dpteach.labs.lab03) and of the generated student notebook.

Every checker must accept a correct reference solution (defined here, not taken
from the notebook, so a broken notebook cannot make a checker look right) and
reject the typical wrong answers with a hint that names the bug. The checkers'
statistical tests run at false-alarm rate 1e-6 with fixed seeds, so these tests
are deterministic.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpteach import group_sizes, local, randomizers, sq
from dpteach import sq_algorithms
from dpteach.labs import BEGIN, LabCheckError, lab03
from lab_helpers import check_student_version, code_cells

NOTEBOOK = Path(__file__).resolve().parents[1] / "book" / "labs" / "solutions" / "lab03_local_sq.ipynb"


# --- Task 1: debiasing ---------------------------------------------------------------------

def debias_right(outputs, epsilon):
    return float(((1 + math.exp(epsilon)) * np.mean(outputs) - 1) / math.expm1(epsilon))


def debias_q_form(outputs, epsilon):  # the same estimate written with q
    q = math.exp(epsilon) / (1 + math.exp(epsilon))
    return float((np.mean(outputs) - (1 - q)) / (2 * q - 1))


@pytest.mark.parametrize("right", [debias_right, debias_q_form, lambda o, e: randomizers.RandomizedResponse(e)
                                   .estimate(o).mean()])
def test_debias_checker_accepts_equivalent_forms(right, capsys):
    lab03.check_debias(right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda o, e: float(np.mean(o)), "raw average"),
    (lambda o, e: min(1.0, max(0.0, debias_right(o, e))), "clipped"),
    (lambda o, e: float((np.mean(o) - math.exp(e) / (1 + math.exp(e))) / math.tanh(e / 2)), "subtracted q"),
    (lambda o, e: float((np.mean(o) - 1 / (1 + math.exp(e))) * (1 + math.exp(e)) / math.exp(e)), "divided by q"),
    (lambda o, e: np.asarray(o, dtype=float) * 2, "one number"),
    (lambda o, e: float(np.mean(o) * 1.01), "unbiased estimate is"),
])
def test_debias_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab03.check_debias(wrong)


def test_debias_checker_refuses_the_dpteach_answer():
    def uses_module(outputs, epsilon):
        return randomizers.debias_randomized_response(outputs, epsilon)
    with pytest.raises(LabCheckError, match="write this yourself"):
        lab03.check_debias(uses_module)


# --- Task 2: group sizes -------------------------------------------------------------------

def group_sizes_right(epsilon, tau, beta, t):
    log_term = math.log(4 * t / beta)
    m = math.ceil(max(8 * log_term / tau ** 2, 128 * log_term / (epsilon * tau) ** 2))
    return m, t * m


def test_group_sizes_checker_accepts_reference_and_agrees_with_the_module(capsys):
    lab03.check_group_sizes(group_sizes_right)
    assert "all checks passed" in capsys.readouterr().out
    for epsilon, tau, beta, t in lab03._GROUP_GRID:  # the checker's formula is the module's rule
        assert group_sizes_right(epsilon, tau, beta, t)[0] == group_sizes.group_size(epsilon, tau, beta / t)


# The checker's own diagnosis formulas, kept in a dict: the public checker refuses an answer that visibly uses
# anything of dpteach.labs (a reference helper), and these test answers are wrong on purpose, not cheats.
_CHECKER_FORMULAS = {"m": lab03._m_variant}


def _variant(name):
    def wrong(epsilon, tau, beta, t):
        m = _CHECKER_FORMULAS["m"](epsilon, tau, beta, t, name)
        return m, t * m
    return wrong


@pytest.mark.parametrize("name, hint", [("no_union", "union bound"), ("ln2", r"ln\(2/β'\): count the factors of 2"),
                                        ("no_hoeffding", "data term"), ("epsilon_not_squared", "power of ε"),
                                        ("no_ceil", "math.ceil"), ("sum", "max")])
def test_group_sizes_checker_names_typical_mistakes(name, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab03.check_group_sizes(_variant(name))


def test_group_sizes_checker_rejects_wrong_total_and_shape():
    with pytest.raises(LabCheckError, match="n = t·m"):
        lab03.check_group_sizes(lambda e, tau, b, t: (group_sizes_right(e, tau, b, t)[0],
                                                      group_sizes_right(e, tau, b, t)[0]))
    with pytest.raises(LabCheckError, match="pair"):
        lab03.check_group_sizes(lambda e, tau, b, t: group_sizes_right(e, tau, b, t)[0])


# --- Task 3: the Laplace randomizer ----------------------------------------------------------

def laplace_right(values, epsilon, rng):
    values = np.asarray(values, dtype=float)
    if np.any(np.abs(values) > 1):
        raise ValueError("values must lie in [-1, 1]")
    return values + rng.laplace(0.0, 2 / epsilon, size=values.shape)


def laplace_with_scale(scale_of):
    def randomizer(values, epsilon, rng):
        values = np.asarray(values, dtype=float)
        if np.any(np.abs(values) > 1):
            raise ValueError("out of range")
        return values + rng.laplace(0.0, scale_of(epsilon), size=values.shape)
    return randomizer


def checked_range(noisy):
    """A randomizer that validates its input like the reference but adds noise by ``noisy``."""
    def randomizer(values, epsilon, rng):
        values = np.asarray(values, dtype=float)
        if np.any(np.abs(values) > 1):
            raise ValueError("out of range")
        return noisy(values, epsilon, rng)
    return randomizer


def test_laplace_checker_accepts_reference(capsys):
    lab03.check_laplace_randomizer(laplace_right)
    assert "all checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (laplace_with_scale(lambda e: 1 / e), "looks like 1/ε"),
    (laplace_with_scale(lambda e: 2 * e), "looks like 2ε"),
    (laplace_with_scale(lambda e: 1.3 * 2 / e), "not Lap"),  # 30 % too much noise
    (checked_range(lambda v, e, rng: v + rng.normal(0, 2 / e, size=v.shape)), "too light"),
    (checked_range(lambda v, e, rng: v + np.random.default_rng().laplace(0, 2 / e, v.shape)), "same seed"),
    (checked_range(lambda v, e, rng: v + rng.laplace(0, 2 / e)), "independent noise"),
    (lambda v, e, rng: np.asarray(v, dtype=float) + rng.laplace(0, 2 / e, size=np.shape(v)), "ValueError"),
])
def test_laplace_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab03.check_laplace_randomizer(wrong)


# --- Task 4: the threshold query -------------------------------------------------------------

def threshold_query_right(theta):
    def phi(rows):
        predicted = np.where(rows[:, 0] >= theta, 1.0, -1.0)
        return np.where(predicted != rows[:, 1], 1.0, -1.0)
    return phi


def test_threshold_query_checker_accepts_reference_and_the_module_query(capsys):
    lab03.check_threshold_query(threshold_query_right)
    lab03.check_threshold_query(sq_algorithms._threshold_error_query)
    assert capsys.readouterr().out.count("all checks passed") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda th: (lambda r: (np.where(r[:, 0] >= th, 1.0, -1.0) != r[:, 1]).astype(float)), "indicator"),
    (lambda th: (lambda r: np.where(np.where(r[:, 0] >= th, 1.0, -1.0) == r[:, 1], 1.0, -1.0)), "sign is flipped"),
    (lambda th: (lambda r: np.where(np.where(r[:, 0] < th, 1.0, -1.0) != r[:, 1], 1.0, -1.0)), "direction"),
    (lambda th: (lambda r: 0.5), "one value per record"),
    (lambda th: 0.3, "return a function"),
])
def test_threshold_query_checker_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab03.check_threshold_query(wrong)


# --- the notebook and its student version ---------------------------------------------------

DUMMY_ARGUMENTS = {"outputs": np.array([0, 1]), "epsilon": 1.0, "tau": 0.1, "beta": 0.05, "t": 3,
                   "values": np.zeros(3), "rng": np.random.default_rng(0), "theta": 0.5,
                   "data": np.zeros((10, 2)), "max_queries": 2, "randomizer": randomizers.RandomizedResponse(1.0),
                   "oracle": sq.ExactSQOracle(np.zeros((2, 2))), "alpha": 0.1, "k": 3,
                   "reports": np.array([0, 2, 1])}


def test_lab_notebook_calls_every_checker_and_has_no_outputs():
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    assert all(not c.get("outputs") for c in notebook["cells"] if c["cell_type"] == "code")
    sources = code_cells(NOTEBOOK)
    assert len([s for s in sources if BEGIN in s]) >= 3
    called = {name for s in sources for name in lab03.__all__ if f"lab03.{name}(" in s}
    assert called == set(lab03.__all__)


def test_student_version_has_no_solutions_and_raises(tmp_path):
    check_student_version(NOTEBOOK, lab03, DUMMY_ARGUMENTS, tmp_path)


# --- issue table: wrong answers → the hint for their mistake ------------------------------------

class OracleRight(sq.SQOracle):
    """Reference SQ -> local oracle, with switches that build the typical mistakes."""

    shuffle, beta_split, noise_scale, central, fresh, budget = True, True, 2.0, False, True, True

    def __init__(self, data, epsilon, beta, max_queries, rng):
        super().__init__()
        self.data = np.asarray(data, dtype=float).reshape(len(data), -1)
        self.epsilon, self.beta, self.max_queries = epsilon, beta, max_queries
        self.rng = np.random.default_rng(rng)
        n = len(self.data)
        self.order = self.rng.permutation(n) if self.shuffle else np.arange(n)
        self.ledger, self.users_used = np.zeros(n), 0

    def _answer_batch(self, phis, taus):
        if self.budget and self.n_queries + len(phis) > self.max_queries:
            raise sq.QueryBudgetError("budget")
        answers = []
        for phi, tau in zip(phis, taus):
            m = group_sizes.group_size(self.epsilon, tau, self.beta / self.max_queries if self.beta_split else self.beta)
            start = self.users_used if self.fresh else 0
            if start + m > len(self.data):
                raise sq.NotEnoughUsersError("users")
            group = self.order[start:start + m]
            self.users_used = start + m
            values = np.asarray(phi(self.data[group]), dtype=float)
            if self.central:
                answers.append(values.mean() + self.rng.laplace(0.0, 2 / self.epsilon))
            else:
                answers.append(np.mean(values + self.rng.laplace(0.0, self.noise_scale / self.epsilon, size=m)))
            self.ledger[group] += self.epsilon
        return np.array(answers)


def oracle_with(**switches):
    return type("WrongOracle", (OracleRight,), switches)


def rejection_right(randomizer, oracle, tau, rng, normaliser=1.0, accept_all=False, threshold=False):
    reference, queries = np.array([0]), 0
    while True:
        w = randomizer.randomize(reference, rng)[0]
        bound = normaliser * math.exp(randomizer.epsilon) * float(randomizer.probability(np.array([w]), reference)[0])

        def phi(rows, w=w, bound=bound):
            return np.minimum(randomizer.probability(np.full(len(rows), w), rows[:, 0]) / bound, 1.0)

        answer = oracle.query(phi, tau)
        queries += 1
        if accept_all or (answer > 0.5 if threshold else rng.random() < min(max(answer, 0.0), 1.0)):
            return int(w), queries


def rejection_no_exp(randomizer, oracle, tau, rng):
    return rejection_right(randomizer, oracle, tau, rng, normaliser=math.exp(-randomizer.epsilon))


def grid_learner(step_factor=1.0, tolerance_factor=0.5):
    def learn(oracle, alpha):
        cells = math.ceil(1 / (step_factor * alpha))
        thresholds = np.arange(cells + 1) / cells
        answers = oracle.query_batch([(threshold_query_right(t), tolerance_factor * alpha) for t in thresholds])
        return float(thresholds[int(np.argmin(answers))])
    return learn


def binary_search_learner(oracle, alpha):
    low, high = 0.0, 1.0
    for _ in range(math.ceil(math.log2(2 / alpha))):
        mid = 0.5 * (low + high)
        mass = 0.5 * (oracle.query(lambda r, c=mid: np.where((r[:, 0] < c) & (r[:, 1] > 0), 1.0, -1.0),
                                   alpha / 4) + 1)
        low, high = (low, mid) if mass > alpha / 4 else (mid, high)
    return high


def laplace_randomizer_with_assert(values, epsilon, rng):
    values = np.asarray(values, dtype=float)
    assert np.all(np.abs(values) <= 1), "values out of range"
    return values + rng.laplace(0.0, 2 / epsilon, size=values.shape)


@pytest.mark.parametrize("step_factor, tolerance_factor", [(1.0, 0.5), (0.5, 0.75), (1.75, 0.125)])
def test_threshold_learner_checker_accepts_grids_with_tau_plus_half_step_at_most_alpha(step_factor, tolerance_factor):
    # τ + s/2 = α exactly (the two-basin law must not reject a learner the bound allows); the last at τ = α/8
    lab03.check_threshold_learner(grid_learner(step_factor=step_factor, tolerance_factor=tolerance_factor))


def test_construction_checkers_accept_the_references(capsys):
    lab03.check_local_oracle(OracleRight)
    lab03.check_rejection_sampler(rejection_right)
    lab03.check_threshold_learner(grid_learner())
    lab03.check_threshold_learner(grid_learner(step_factor=0.5, tolerance_factor=0.5))   # finer grid: fine too
    assert capsys.readouterr().out.count("all checks passed") == 4


LAB03_WRONG_ANSWERS = [  # (checker, wrong answer, expected hint fragment)
    (lab03.check_laplace_randomizer, laplace_randomizer_with_assert, "raised AssertionError"),
    (lab03.check_debias, lambda o, e: str(debias_right(o, e)), "real number"),
    (lab03.check_local_oracle, oracle_with(shuffle=False), "random order"),
    (lab03.check_local_oracle, oracle_with(beta_split=False), "union bound"),
    (lab03.check_local_oracle, oracle_with(fresh=False), "fresh"),
    (lab03.check_local_oracle, oracle_with(noise_scale=1.0), "1/ε"),
    (lab03.check_local_oracle, oracle_with(central=True), "central"),
    (lab03.check_local_oracle, oracle_with(noise_scale=0.0), "no noise"),
    (lab03.check_local_oracle, oracle_with(budget=False), "QueryBudgetError"),
    (lab03.check_local_oracle, type("Subclass", (local.LocalSimulatedSQOracle,), {}), "write this yourself"),
    (lab03.check_rejection_sampler, lambda *a: rejection_right(*a, accept_all=True), "R\\(z0\\) itself"),
    (lab03.check_rejection_sampler, rejection_no_exp, "factor e\\^ε is missing"),
    # no rejection at all (returns R(z0)'s draw and 0 queries): was told "reported 0 queries but asked the oracle 0"
    (lab03.check_rejection_sampler, lambda r, o, t, rng: (int(r.randomize(np.array([0]), rng)[0]), 0),
     "without asking the oracle anything"),
    (lab03.check_rejection_sampler, lambda *a: rejection_right(*a, normaliser=math.e), "too many queries"),
    (lab03.check_rejection_sampler, lambda *a: rejection_right(*a, threshold=True), "exceeds 1/2"),
    (lab03.check_threshold_learner, grid_learner(tolerance_factor=1.0), "τ \\+ s/2 <= α"),
    (lab03.check_threshold_learner, grid_learner(step_factor=3.0), "τ \\+ s/2 <= α"),
    # too coarse by a quarter (τ + s/2 = 1.25α): passed the single-basin laws
    (lab03.check_threshold_learner, grid_learner(step_factor=1.5), "two near-optimal basins"),
    (lab03.check_threshold_learner, grid_learner(step_factor=1.3, tolerance_factor=0.4), "two near-optimal basins"),
    (lab03.check_threshold_learner, binary_search_learner, "noiseless"),
    (lab03.check_threshold_learner, grid_learner(tolerance_factor=0.01), "α/8"),
    (lab03.check_threshold_learner, lambda o, a: sq_algorithms.sq_threshold_grid(o, a), "write this yourself"),
]


@pytest.mark.parametrize("checker, wrong, hint", LAB03_WRONG_ANSWERS)
def test_lab03_wrong_answer_table(checker, wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        checker(wrong)


# --- Tasks 8 and 9: k-ary randomized response, which the chapter does not print (issue 22) ---------

def _keep(k, epsilon):
    return math.exp(epsilon) / (math.exp(epsilon) + k - 1)


def krr_right(values, k, epsilon, rng):
    values = np.asarray(values)
    keep = rng.random(values.shape) < _keep(k, epsilon)
    return np.where(keep, values, (values + rng.integers(1, k, size=values.shape)) % k)


def krr_with_keep(keep_probability, other="uniform"):
    def randomize(values, k, epsilon, rng):
        values = np.asarray(values)
        keep = rng.random(values.shape) < keep_probability(k, epsilon)
        if other == "uniform":
            replacement = (values + rng.integers(1, k, size=values.shape)) % k
        elif other == "any":
            replacement = rng.integers(0, k, size=values.shape)
        else:
            replacement = (values + 1) % k
        return np.where(keep, values, replacement)
    return randomize


def krr_estimate_right(reports, k, epsilon):
    p = _keep(k, epsilon)
    q = (1 - p) / (k - 1)
    return (np.bincount(reports, minlength=k) / len(reports) - q) / (p - q)


def test_krr_checkers_accept_the_reference(capsys):
    lab03.check_krr_randomizer(krr_right)
    lab03.check_krr_estimate(krr_estimate_right)
    assert capsys.readouterr().out.count("all checks passed") == 2


@pytest.mark.parametrize("wrong, hint", [
    (krr_with_keep(lambda k, e: math.exp(e) / (1 + math.exp(e))), "binary keep probability"),
    (krr_with_keep(lambda k, e: math.exp(e) / (math.exp(e) + k)), "normaliser is e\\^ε \\+ k − 1"),
    (krr_with_keep(_keep, other="any"), "not ε-local"),
    (krr_with_keep(_keep, other="next"), "not equally likely"),
    (krr_with_keep(lambda k, e: 0.5 * _keep(k, e)), "keeps less often than it could"),
    (lambda values, k, epsilon, rng: krr_right(values, k, epsilon, np.random.default_rng()), "same rng seed"),
    (lambda values, k, epsilon, rng: krr_right(np.ravel(values), k, epsilon, rng), "shape of `values`"),
    (lambda values, k, epsilon, rng: krr_right(values, k, epsilon, rng).astype(float), "integer array"),  # used to pass
])
def test_krr_randomizer_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab03.check_krr_randomizer(wrong)


@pytest.mark.parametrize("wrong, hint", [
    (lambda r, k, e: ((1 + math.exp(e)) * np.bincount(r, minlength=k) / len(r) - 1) / (math.exp(e) - 1),
     "assumes k = 2"),
    (lambda r, k, e: np.bincount(r, minlength=k) / len(r) / _keep(k, e), "subtract q"),
    (lambda r, k, e: (np.bincount(r, minlength=k) / len(r) - (1 - _keep(k, e)) / (k - 1)) / _keep(k, e),
     "divide by p − q"),
    (lambda r, k, e: np.clip(krr_estimate_right(r, k, e), 0, 1), "do not clip"),
    # the raw report frequencies equal the clipped estimate on one report: they used to be told "do not clip"
    (lambda r, k, e: np.bincount(r, minlength=k) / len(r), "observed frequencies of the reports"),
    (lambda r, k, e: krr_estimate_right(r, k, e) * len(r), "not counts"),
    (lambda r, k, e: krr_estimate_right(r, k, e)[:-1], "array of the k"),
])
def test_krr_estimate_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab03.check_krr_estimate(wrong)


def test_krr_hints_point_first_and_give_the_formula_only_after_repeated_tries(monkeypatch):
    from dpteach.labs import checking

    monkeypatch.setattr(checking, "_failed_tries", checking.collections.Counter())
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab03.check_krr_estimate(lambda r, k, e: 0.5 * krr_estimate_right(r, k, e))
        messages.append(str(caught.value))
    assert all("solve" in m for m in messages)
    assert all("(fraction_v − q)/(p − q)" not in m for m in messages[:-1])
    assert "(fraction_v − q)/(p − q)" in messages[-1]


def _no_union_group_sizes(epsilon, tau, beta, t):
    m = group_sizes_right(epsilon, tau, beta, 1)[0]
    return m, t * m


@pytest.mark.parametrize("check, wrong", [
    (lab03.check_debias, lambda o, e: float(np.mean(o))),                   # the raw average: a named slip
    (lab03.check_group_sizes, lambda e, tau, b, t: _no_union_group_sizes(e, tau, b, t)),  # no union bound: a named slip
])
def test_named_slips_of_derivations_point_first_and_give_the_formula_from_the_third_try(check, wrong):
    from dpteach.labs import checking
    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            check(wrong)
        messages.append(str(caught.value))
    assert all("formula itself is shown from the 3rd" in m for m in messages[:-1])
    assert "here is the formula" in messages[-1]
    checking._failed_tries.clear()


def test_group_size_feedback_does_not_print_the_right_m():
    right = group_sizes_right(0.5, 0.05, 0.05, 1)[0]
    with pytest.raises(LabCheckError) as caught:
        lab03.check_group_sizes(lambda e, tau, b, t: (group_sizes_right(e, tau, b, t)[0] + 1,
                                                      t * (group_sizes_right(e, tau, b, t)[0] + 1)))
    assert "too large" in str(caught.value) and str(right) not in str(caught.value)
