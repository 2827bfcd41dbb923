"""Tests of the Lab 6 checkers (dpteach.labs.lab06) and of the generated student notebook.

Reference solutions are written here (not read from the notebook); each
typical wrong answer must be rejected with the hint for *that* mistake.
"""

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from numpy.polynomial import hermite as phys
from numpy.polynomial import hermite_e as prob

from dpteach.labs import BEGIN, LabCheckError, lab06
from dpteach.labs.checking import call_student_counting_lines
from lab_helpers import check_student_version, code_cells

NOTEBOOK = Path(__file__).resolve().parents[1] / "book" / "labs" / "solutions" / "lab06_hermite.ipynb"


# --- task 1 ---------------------------------------------------------------------------------

def hermite_right(x, degree):
    x = np.asarray(x, dtype=float)
    out = np.empty(x.shape + (degree + 1,))
    out[..., 0] = 1.0
    out[..., 1] = x
    for k in range(1, degree):
        out[..., k + 1] = (x * out[..., k] - math.sqrt(k) * out[..., k - 1]) / math.sqrt(k + 1)
    return out


def hermite_unnormalised(x, degree):
    return np.stack([prob.hermeval(x, np.eye(degree + 1)[k]) for k in range(degree + 1)], axis=-1)


def hermite_physicists(x, degree):
    return np.stack([phys.hermval(x, np.eye(degree + 1)[k]) / math.sqrt(2.0 ** k * math.factorial(k))
                     for k in range(degree + 1)], axis=-1)


def hermite_wrong_shape(x, degree):
    return hermite_right(x, degree).T


def test_task1_accepts_reference(capsys):
    lab06.check_hermite_1d(hermite_right)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (hermite_unnormalised, "without the normalisation"),
    (hermite_physicists, "physicists"),
    (hermite_wrong_shape, "shape"),
    (lambda x, degree: hermite_right(x, degree) * 1.01, "column"),
])
def test_task1_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab06.check_hermite_1d(wrong)


def hermite_monomials(x, degree):
    x = np.asarray(x, dtype=float)
    return np.stack([np.polynomial.polynomial.polyval(x, np.polynomial.hermite_e.herme2poly(np.eye(degree + 1)[m]))
                     / math.sqrt(math.factorial(m)) for m in range(degree + 1)], axis=-1)


def hermite_flattened(x, degree):
    x = np.asarray(x, dtype=float).ravel()
    out = np.empty((x.size, degree + 1))
    out[:, 0], out[:, 1] = 1.0, x
    for k in range(1, degree):
        out[:, k + 1] = (x * out[:, k] - math.sqrt(k) * out[:, k - 1]) / math.sqrt(k + 1)
    return out


@pytest.mark.parametrize("wrong, hint", [(hermite_monomials, "monomials"), (hermite_flattened, r"\(4, 6, 4\)")])
def test_task1_rejects_monomial_coefficients_and_flattened_input(wrong, hint):
    """Both passed the old checker (a 1-D x up to degree 10, where monomial sums are still accurate)."""
    with pytest.raises(LabCheckError, match=hint):
        lab06.check_hermite_1d(wrong)


def test_task1_refuses_the_library():
    from dpteach.hermite import hermite_1d
    with pytest.raises(LabCheckError, match="write this yourself"):
        lab06.check_hermite_1d(hermite_1d)


# --- task 2 ---------------------------------------------------------------------------------

def _rho(eps, delta):
    L = math.log(1 / delta)
    return (math.sqrt(L + eps) - math.sqrt(L)) ** 2


def sigma_right(T, n, eps, delta, K):
    s = 2 * T / n
    return s, s * math.sqrt(K / (2 * _rho(eps, delta)))


def sigma_half_sensitivity(T, n, eps, delta, K):
    s = T / n
    return s, s * math.sqrt(K / (2 * _rho(eps, delta)))


def sigma_one_step(T, n, eps, delta, K):
    s = 2 * T / n
    return s, s * math.sqrt(1 / (2 * _rho(eps, delta)))


def sigma_strings(T, n, eps, delta, K):
    s, sig = sigma_right(T, n, eps, delta, K)
    return f"{s}", f"{sig}"


def test_task2_accepts_reference(capsys):
    lab06.check_step_sigma(sigma_right)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (sigma_half_sensitivity, "2T/n"),
    (sigma_one_step, "K steps"),
    (sigma_strings, "real numbers"),
    (lambda *a: sigma_right(*a)[1], "tuple"),
])
def test_task2_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab06.check_step_sigma(wrong)


def test_task2_hint_gives_the_formula_only_after_repeated_tries():
    """The review: the T2 hints handed over the complete formula at the first wrong σ."""
    from dpteach.labs import checking

    def sigma_eps_squared(T, n, eps, delta, K):  # ρ = ε²/2, a conversion the checker does not name
        s = 2 * T / n
        return s, s * math.sqrt(K / eps ** 2)

    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab06.check_step_sigma(sigma_eps_squared)
        messages.append(str(caught.value))
    assert all("zCDP budget ρ" in m for m in messages)
    assert all("√(K/(2ρ))" not in m for m in messages[:-1]) and "√(K/(2ρ))" in messages[-1]
    checking._failed_tries.clear()


# --- task 3 ---------------------------------------------------------------------------------

def _grid(M):
    return -1.0 + (2.0 * np.arange(1, M + 1) - 1.0) / M


def _errors(z, y, grid):
    return np.sum(np.where(z[:, None] - grid[None, :] >= 0, 1.0, -1.0) != y[:, None], axis=0)


def select_right(z, y, M, eps, rng):
    grid = _grid(M)
    return float(grid[np.argmax(-eps * _errors(z, y, grid) / 2 + rng.gumbel(size=M))])


def select_argmin(z, y, M, eps, rng):
    grid = _grid(M)
    return float(grid[np.argmin(_errors(z, y, grid))])


def select_no_half(z, y, M, eps, rng):
    grid = _grid(M)
    return float(grid[np.argmax(-eps * _errors(z, y, grid) + rng.gumbel(size=M))])


def select_edges(z, y, M, eps, rng):
    grid = -1.0 + 2.0 * np.arange(1, M + 1) / M
    return float(grid[np.argmax(-eps * _errors(z, y, grid) / 2 + rng.gumbel(size=M))])


def select_index(z, y, M, eps, rng):
    grid = _grid(M)
    return int(np.argmax(-eps * _errors(z, y, grid) / 2 + rng.gumbel(size=M)))


def select_error_rate(z, y, M, eps, rng):
    grid = _grid(M)
    return float(grid[np.argmax(-eps * _errors(z, y, grid) / (2 * len(z)) + rng.gumbel(size=M))])


def test_task3_accepts_reference(capsys):
    lab06.check_select_threshold(select_right)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (select_argmin, "non-private argmin"),
    (select_no_half, "1/2 is missing"),
    (select_edges, "midpoints"),
    (lambda *a: str(select_right(*a)), "float"),
    (select_index, "looks like an index"),            # was told "use the midpoints"
    (select_error_rate, "error \\*rate\\*"),           # was told "sign(0) = +1"
])
def test_task3_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab06.check_select_threshold(wrong)


def select_sign0_minus(z, y, M, eps, rng):
    grid = _grid(M)
    errors = np.sum(np.where(z[:, None] - grid[None, :] > 0, 1.0, -1.0) != y[:, None], axis=0)  # sign(0) = −1
    return float(grid[np.argmax(-eps * errors / 2 + rng.gumbel(size=M))])


def select_unstable(z, y, M, eps, rng):
    grid = _grid(M)
    weights = np.exp(-eps * _errors(z, y, grid) / 2)  # no max-shift: 0/0 on many points
    return float(grid[rng.choice(M, p=weights / weights.sum())])


def select_global_rng(z, y, M, eps, rng):
    grid = _grid(M)
    return float(grid[np.argmax(-eps * _errors(z, y, grid) / 2 + np.random.gumbel(size=M))])


def select_noisy_min_laplace(z, y, M, eps, rng):
    grid = _grid(M)
    return float(grid[np.argmin(_errors(z, y, grid) + rng.laplace(scale=2 / eps, size=M))])


def select_noisy_min_laplace_sharp(z, y, M, eps, rng):
    grid = _grid(M)
    return float(grid[np.argmin(_errors(z, y, grid) + rng.laplace(scale=1 / eps, size=M))])


@pytest.mark.parametrize("wrong, hint", [
    (select_sign0_minus, r"sign\(0\) = \+1"),
    (select_unstable, "underflows"),
    (select_global_rng, "rng argument"),
    (select_noisy_min_laplace, "report-noisy-min with Laplace"),
    (select_noisy_min_laplace_sharp, "report-noisy-min with Laplace"),
    (select_no_half, "the 1/2 is missing"),
])
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_task3_rejects_the_reviews_accepted_answers(wrong, hint):
    """Each passed the old χ² test on one 60-point problem; each breaks a property checked on its own input."""
    with pytest.raises(LabCheckError, match=hint):
        lab06.check_select_threshold(wrong)


# --- task 4: coordinatewise clipping, add/remove neighbours -----------------------------------

def clip_sigma_with(sensitivity, steps=True):
    def answer(c, D, n, eps, delta, K):
        s = sensitivity(c, D, n)
        return s, s * math.sqrt((K if steps else 1) / (2 * _rho(eps, delta)))
    return answer


clip_sigma_right = clip_sigma_with(lambda c, D, n: c * math.sqrt(D) / n)


def test_task4_accepts_reference(capsys):
    lab06.check_coordinate_clip_sigma(clip_sigma_right)
    assert "passed" in capsys.readouterr().out


def clip_sigma_classic(c, D, n, eps, delta, K):  # the classic Gaussian calibration per step, no zCDP composition
    s = c * math.sqrt(D) / n
    return s, s * math.sqrt(2 * K * math.log(1.25 / delta)) / eps


@pytest.mark.parametrize("wrong, hint", [
    (clip_sigma_with(lambda c, D, n: 2 * c * math.sqrt(D) / n), "replace-one bound"),   # Lemma 6.5's habit
    (clip_sigma_with(lambda c, D, n: c / n), "corner .* ℓ2 norm c√D"),                  # row norm c, not c√D
    (clip_sigma_with(lambda c, D, n: c * D / n), "ℓ1 norm of the corner"),              # the wrong norm
    (clip_sigma_with(lambda c, D, n: c * math.sqrt(D) / (n + 1)), "too small"),         # self-normalised average
    (clip_sigma_with(lambda c, D, n: c * math.sqrt(D) / n, steps=False), "one step only"),
    (clip_sigma_classic, "budget is ε"),
    (lambda *a: clip_sigma_right(*a)[1], "tuple"),
])
def test_task4_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab06.check_coordinate_clip_sigma(wrong)


def test_task4_hint_gives_the_formula_only_after_repeated_tries():
    from dpteach.labs import checking

    wrong = clip_sigma_with(lambda c, D, n: 3 * c * math.sqrt(D) / n)  # no named mistake: the pointer first
    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab06.check_coordinate_clip_sigma(wrong)
        messages.append(str(caught.value))
    assert all("term by term" in m for m in messages)
    assert all("c·√D/n" not in m for m in messages[:-1]) and "Δ = c·√D/n" in messages[-1]
    checking._failed_tries.clear()


# --- task 5: the feature norm without the features ---------------------------------------------

def _h_table(X, degree, normalised=True):
    X = np.asarray(X, dtype=float)
    h = np.empty(X.shape + (degree + 1,))
    h[..., 0] = 1.0
    if degree >= 1:
        h[..., 1] = X
    for k in range(1, degree):
        h[..., k + 1] = (X * h[..., k] - math.sqrt(k) * h[..., k - 1]) / math.sqrt(k + 1)
    if not normalised:
        h = h * np.sqrt([math.factorial(m) for m in range(degree + 1)])
    return h


def _levels(table, degree):
    levels = table[:, 0, :]
    for j in range(1, table.shape[1]):
        levels = np.stack([sum(levels[:, m - k] * table[:, j, k] for k in range(m + 1)) for m in range(degree + 1)],
                          axis=1)
    return levels


def norms_right(X, degree):
    return _levels(_h_table(X, degree) ** 2, degree).sum(axis=1)


def test_task5_reference_agrees_with_the_features_and_is_accepted(capsys):
    from dpteach.hermite import hermite_features
    X = np.random.default_rng(0).normal(size=(9, 4))
    assert np.allclose(norms_right(X, 3), (hermite_features(X, 3) ** 2).sum(axis=1), rtol=1e-12)
    lab06.check_feature_norms(norms_right)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda X, p: _levels(_h_table(X, p) ** 2, p)[:, -1], r"only the multi-indices with \|κ\| = p"),
    (lambda X, p: np.prod((_h_table(X, p) ** 2).sum(axis=2), axis=1), "a box of"),
    (lambda X, p: 1 + (_h_table(X, p)[..., 1:] ** 2).sum(axis=(1, 2)), "one non-zero entry"),
    (lambda X, p: _levels(_h_table(X, p, normalised=False) ** 2, p).sum(axis=1), "unnormalised He_m"),
    (lambda X, p: _levels(_h_table(X, p), p).sum(axis=1), "h_κ\\(x\\) themselves"),
    (lambda X, p: norms_right(X, p)[:, None], "one norm per row"),
])
def test_task5_rejects_typical_mistakes(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab06.check_feature_norms(wrong)


def norms_brute_force(X, degree):
    # Enumerates every multi-index κ with |κ| <= p (D_p of them), as the task says not to (theory review N8).
    H = _h_table(X, degree) ** 2
    total = np.zeros(len(X))
    for kappa in itertools.product(range(degree + 1), repeat=X.shape[1]):
        if sum(kappa) <= degree:
            total += np.prod(H[:, np.arange(X.shape[1]), kappa], axis=1)
    return total


def test_task5_rejects_brute_force_over_the_multi_indices():
    with pytest.raises(LabCheckError, match="enumerates the multi-indices"):
        lab06.check_feature_norms(norms_brute_force)


def test_task5_work_budget_leaves_room_for_a_loop_over_rows_coordinates_and_levels():
    def norms_loops(X, degree):  # the recurrence with every loop in Python
        H = _h_table(X, degree) ** 2
        out = np.zeros(len(X))
        for i in range(len(X)):
            levels = list(H[i, 0])
            for j in range(1, X.shape[1]):
                levels = [sum(levels[m - k] * H[i, j, k] for k in range(m + 1)) for m in range(degree + 1)]
            out[i] = sum(levels)
        return out
    _, lines = call_student_counting_lines(norms_loops, (np.ones((2, 50)), 5), "t", 10 ** 7)
    assert lines * 3 < lab06.FEATURE_NORM_BUDGET
    lab06.check_feature_norms(norms_loops)


def test_task5_refuses_the_library_features():
    from dpteach.hermite import hermite_features
    with pytest.raises(LabCheckError, match="write this yourself"):
        lab06.check_feature_norms(lambda X, p: (hermite_features(X, p) ** 2).sum(axis=1))


# --- the notebook ---------------------------------------------------------------------------

DUMMY_ARGUMENTS = {"x": np.zeros(3), "degree": 3, "lipschitz": 1.0, "n": 10, "epsilon": 1.0, "delta": 1e-5,
                   "n_iterations": 5, "scores": np.zeros(3), "y": np.ones(3), "n_thresholds": 4, "rng": None,
                   "clip": 1.0, "dimension": 4, "X": np.zeros((3, 2))}


def test_lab_notebook_metadata_and_no_outputs():
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert all(not c.get("outputs") for c in notebook["cells"] if c["cell_type"] == "code")
    sources = code_cells(NOTEBOOK)
    assert sum(BEGIN in s for s in sources) >= 3
    ids = [c["metadata"]["nbgrader"]["grade_id"] for c in notebook["cells"] if "nbgrader" in c["metadata"]]
    assert len(ids) == len(set(ids)) and "task6-proof" in ids
    called = {name for s in sources for name in lab06.__all__ if f"lab06.{name}(" in s}
    assert called == set(lab06.__all__)


def test_student_version_hides_solutions(tmp_path):
    check_student_version(NOTEBOOK, lab06, DUMMY_ARGUMENTS, tmp_path)


def test_task5_hint_gives_the_recurrence_only_after_repeated_tries():
    from dpteach.labs import checking

    def norms_off(X, p):  # no named mistake: a slightly wrong value
        return 1.01 * norms_right(X, p)

    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab06.check_feature_norms(norms_off)
        messages.append(str(caught.value))
    assert all("one at a time" in m for m in messages)
    assert all("L'_m" not in m for m in messages[:-1]) and "L'_m = Σ_{k=0..m}" in messages[-1]
    checking._failed_tries.clear()
