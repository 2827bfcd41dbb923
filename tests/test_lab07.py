"""Tests of the Lab 7 checkers (dpteach.labs.lab07) and of the generated student notebook.

Reference solutions are written here (not read from the notebook); every
checker must accept them and reject each typical wrong answer with the hint
that names that mistake.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpteach import halfspace_cover, proper, subspace
from dpteach.hermite import hermite_features, multi_indices
from dpteach.labs import LabCheckError, lab07
from lab_helpers import check_student_version

NOTEBOOK = Path(__file__).resolve().parents[1] / "book" / "labs" / "solutions" / "lab07_proper.ipynb"


# --- Task 1 -----------------------------------------------------------------------------------------------------

def moment_with(weight=math.sqrt, gram="GGt", diagonal_only=False):
    def moment(coefficients, kappas):
        kappas = np.asarray(kappas)
        d = kappas.shape[1]
        row_of = {tuple(k): j for j, k in enumerate(kappas.tolist())}
        G = np.zeros((d, len(kappas)))
        for j, kappa in enumerate(kappas.tolist()):
            for i, k in enumerate(kappa):
                if k > 0:
                    lower = list(kappa)
                    lower[i] -= 1
                    G[i, row_of[tuple(lower)]] = weight(k) * coefficients[j]
        M = G @ G.T if gram == "GGt" else G.T @ G
        return np.diag(np.diag(M)) if diagonal_only else M
    return moment


def moment_as_string(coefficients, kappas):
    return str(moment_with()(coefficients, kappas))


def moment_via_dpteach(coefficients, kappas):
    return subspace.gradient_second_moment(coefficients, int(np.max(kappas.sum(axis=1))), kappas.shape[1])


def test_gradient_moment_accepts_reference():
    lab07.check_gradient_moment(moment_with())


@pytest.mark.parametrize("wrong,hint", [
    (moment_with(weight=float), "without the square root"),
    (moment_with(weight=lambda k: math.sqrt(k - 1)), "off by one"),
    (moment_with(weight=lambda k: 1.0), "factor √κ_i"),
    (moment_with(gram="GtG"), "not Gᵀ G"),
    (moment_with(diagonal_only=True), "off-diagonal"),
    (moment_as_string, "numpy array"),
    (moment_via_dpteach, "write this yourself"),
])
def test_gradient_moment_rejects(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab07.check_gradient_moment(wrong)


# --- Task 2 -----------------------------------------------------------------------------------------------------

def direction_with(pick="top", normalise=True, linear=False, fixed_degree=None):
    def direction(X, y, degree):
        degree = degree if fixed_degree is None else fixed_degree
        if linear:
            v = X.T @ y / len(y)
        elif pick in ("eig first", "eig last"):  # np.linalg.eig: eigenvalues in no particular order
            m_hat = hermite_features(X, degree).T @ y / len(y)
            _, vectors = np.linalg.eig(subspace.gradient_second_moment(m_hat, degree, X.shape[1]))
            v = np.real(vectors[:, 0 if pick == "eig first" else -1])
        else:
            m_hat = hermite_features(X, degree).T @ y / len(y)
            _, vectors = np.linalg.eigh(subspace.gradient_second_moment(m_hat, degree, X.shape[1]))
            v = vectors[:, -1] if pick == "top" else vectors[:, 0]
        return v / np.linalg.norm(v) if normalise else 3 * v / np.linalg.norm(v)
    return direction


def direction_random(X, y, degree):
    v = np.random.default_rng(0).standard_normal(X.shape[1])
    return v / np.linalg.norm(v)


def test_relevant_direction_accepts_reference():
    lab07.check_relevant_direction(direction_with())


@pytest.mark.parametrize("wrong,hint", [
    (direction_with(pick="bottom"), "smallest"),
    (direction_with(linear=True), "first-order correlation"),
    (direction_with(normalise=False), "unit vector"),
    (direction_random, "away from the true one"),
    (direction_with(fixed_degree=2), "you used degree 2"),
    # np.linalg.eig's first or last column: on the sign-symmetrised axis cases M is diagonal with its top entry
    # in the middle, where eig keeps the diagonal's order.
    (direction_with(pick="eig last"), "not the top one|smallest"),
    (direction_with(pick="eig first"), "not the top one"),
])
def test_relevant_direction_rejects(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab07.check_relevant_direction(wrong)


# --- Task 3 -----------------------------------------------------------------------------------------------------

def circle_net_with(count, half=False, scale=1.0):
    def net(resolution):
        n_points = count(resolution)
        span = math.pi if half else 2 * math.pi
        angles = span * np.arange(n_points) / (n_points - 1 if half else n_points)
        return scale * np.column_stack([np.cos(angles), np.sin(angles)])
    return net


def test_circle_net_accepts_reference_and_pi_over_a():
    lab07.check_circle_net(circle_net_with(lambda a: math.ceil(math.pi / (2 * math.asin(a / 2)))))
    lab07.check_circle_net(circle_net_with(lambda a: math.ceil(math.pi / a)))  # also valid: 2 sin(a/2) ≤ a


@pytest.mark.parametrize("wrong,hint", [
    (circle_net_with(lambda a: math.ceil(math.pi / (2 * a))), "chord"),
    (circle_net_with(lambda a: math.ceil(math.pi / a), half=True), "half of the circle"),
    (circle_net_with(lambda a: math.ceil(math.pi / a), scale=2.0), "unit vector"),
    (circle_net_with(lambda a: math.ceil(20 / a)), "do not waste"),
    (lambda a: [[1.0, 0.0], [-1.0, 0.0]], "numpy array"),
])
def test_circle_net_rejects(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab07.check_circle_net(wrong)


def circle_net_with_endpoint(a):
    """The minimal N, but from np.linspace(0, 2π, N): the last point repeats the first."""
    n_points = math.ceil(math.pi / (2 * math.asin(a / 2)))
    angles = np.linspace(0, 2 * math.pi, n_points)
    return np.column_stack([np.cos(angles), np.sin(angles)])


@pytest.mark.parametrize("wrong,hint", [(circle_net_with_endpoint, "repeat another one.*endpoint=False")])
def test_circle_net_names_a_duplicated_point_instead_of_asking_for_more_points(wrong, hint):
    """The review's misleading hint: this net has N ≥ the minimum, so "you need N ≥ ..." blamed the wrong thing."""
    with pytest.raises(LabCheckError, match=hint):
        lab07.check_circle_net(wrong)


def circle_net_uneven(a):
    """Enough points (twice the minimum) but squeezed into three quarters of the circle."""
    n_points = 2 * math.ceil(math.pi / (2 * math.asin(a / 2)))
    angles = 1.5 * math.pi * np.arange(n_points) / n_points
    return np.column_stack([np.cos(angles), np.sin(angles)])


def test_circle_net_names_uneven_spacing_instead_of_asking_for_more_points():
    """A net with more points than needed must not be told "you need N ≥ …" (a misleading hint of the review)."""
    with pytest.raises(LabCheckError, match="enough in number but not evenly spread") as caught:
        lab07.check_circle_net(circle_net_uneven)
    assert "you need" not in str(caught.value)


def test_circle_net_hint_gives_the_formula_only_after_repeated_tries():
    from dpteach.labs import checking
    wrong = circle_net_with(lambda a: math.ceil(math.pi / (2 * a)))  # angle a/2 taken for the distance
    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab07.check_circle_net(wrong)
        messages.append(str(caught.value))
    assert all("chord" in m for m in messages)
    assert all("2·sin(π/(2N))" not in m for m in messages[:-1]) and "2·sin(π/(2N))" in messages[-1]
    checking._failed_tries.clear()


# --- Task 4 -----------------------------------------------------------------------------------------------------

def radius_with(form="right", wrap=True):
    def radius(net):
        angles = np.sort(np.arctan2(net[:, 1], net[:, 0]))
        gaps = np.diff(np.append(angles, angles[0] + 2 * math.pi)) if wrap else np.diff(angles)
        g = gaps.max()
        return float({"right": 2 * math.sin(g / 4), "whole": 2 * math.sin(g / 2), "arc": g / 2, "gap": g}[form])
    return radius


def radius_sampled(net):
    rng = np.random.default_rng(0)
    U = rng.standard_normal((2000, 2))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    return float(np.min(np.linalg.norm(U[:, None] - net[None], axis=2), axis=1).max())


def test_covering_radius_accepts_reference():
    lab07.check_covering_radius(radius_with())


@pytest.mark.parametrize("wrong,hint", [
    (radius_with(form="whole"), "half that angle"),
    (radius_with(form="arc"), "arc length"),
    (radius_with(form="gap"), "largest angular gap"),
    (radius_with(wrap=False), "wrap-around"),
    (radius_sampled, "sampled"),
    (lambda net: radius_with()(net) / 2, "check the chord"),  # sin(gap/4) without the factor 2
    (lambda net: "0.5", "one float"),
    (lambda net: halfspace_cover.covering_radius(net), "write this yourself"),
])
def test_covering_radius_rejects(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab07.check_covering_radius(wrong)


# --- Task 5: ridge coefficients -----------------------------------------------------------------------------------

def ridge_with(weight="sqrt", absolute=False, ignore_order=False):
    def coefficients(c, u, kappas):
        kappas = np.asarray(kappas)
        if ignore_order:
            kappas = multi_indices(kappas.shape[1], int(kappas.sum(axis=1).max()))
        total = kappas.sum(axis=1)
        multinomial = np.array([math.factorial(int(m)) for m in total]) / np.prod(
            [[math.factorial(int(k)) for k in row] for row in kappas], axis=1)
        factor = {"sqrt": np.sqrt(multinomial), "none": 1.0, "full": multinomial}[weight]
        base = np.abs(u) if absolute else np.asarray(u)
        return np.asarray(c)[total] * factor * np.prod(base[None, :] ** kappas, axis=1)
    return coefficients


def ridge_via_dpteach(c, u, kappas):
    from dpteach.hermite_coefficients import halfspace_hermite_coefficients
    return halfspace_hermite_coefficients(u, 0.0, len(c) - 1)


def test_ridge_coefficients_accept_reference_and_agree_with_the_library(capsys):
    from dpteach.hermite_coefficients import halfspace_hermite_coefficients, threshold_hermite_coefficients
    lab07.check_ridge_coefficients(ridge_with())
    assert "passed" in capsys.readouterr().out
    u = np.array([0.6, -0.8, 0.0])
    kappas = multi_indices(3, 4)
    assert np.allclose(ridge_with()(threshold_hermite_coefficients(0.3, 4), u, kappas),
                       halfspace_hermite_coefficients(u, 0.3, 4), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("wrong,hint", [
    (ridge_with(weight="none"), r"too small"),           # u^κ only: the multinomial weight forgotten
    (ridge_with(weight="full"), r"too large"),           # |κ|!/κ! without the square root
    (ridge_with(absolute=True), "signs"),                # |u_i|^κ_i
    (ridge_with(ignore_order=True), "order of the rows of `kappas`"),
    (lambda c, u, kappas: list(ridge_with()(c, u, kappas)[:-1]), "shape"),
    (ridge_via_dpteach, "write this yourself"),
])
def test_ridge_coefficients_reject(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab07.check_ridge_coefficients(wrong)


def test_ridge_hint_gives_the_formula_only_after_repeated_tries():
    from dpteach.labs import checking
    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab07.check_ridge_coefficients(ridge_with(weight="none"))
        messages.append(str(caught.value))
    assert all("Parseval" in m for m in messages)
    assert all("√(|κ|!/κ!)" not in m for m in messages[:-1]) and "√(|κ|!/κ!)" in messages[-1]
    checking._failed_tries.clear()


# --- Task 6: a net on the sphere ----------------------------------------------------------------------------------

def sphere_net_with(factor=1.0, uniform=False, poles_cut=False, hemisphere=False, repeat_pole=False, scale=1.0):
    def net(a):
        delta = 2 * math.asin(a / 2) * factor
        bands = math.ceil(math.pi / delta)
        height = math.pi / bands
        points = []
        for j in range(bands):
            theta = (j + 0.5) * height
            low, high = j * height, (j + 1) * height
            widest = 1.0 if low <= math.pi / 2 <= high else max(math.sin(low), math.sin(high))
            if poles_cut and j in (0, bands - 1):  # the two polar bands left out
                continue
            count = math.ceil(2 * math.pi / delta) if uniform else max(1, math.ceil(2 * math.pi * widest / delta))
            phi = 2 * math.pi * np.arange(count) / count
            points.append(np.column_stack([math.sin(theta) * np.cos(phi), math.sin(theta) * np.sin(phi),
                                           np.full(count, math.cos(theta))]))
        out = np.vstack(points)
        if hemisphere:
            out[:, 2] = np.abs(out[:, 2])
            out = np.unique(np.round(out, 12), axis=0)
            out /= np.linalg.norm(out, axis=1, keepdims=True)
        if repeat_pole:
            out = np.vstack([out, np.tile([0.0, 0.0, 1.0], (5, 1))])
        return scale * out
    return net


def sphere_net_fibonacci(a):
    n = math.ceil(8 / a ** 2) + 10
    index = np.arange(n) + 0.5
    z = 1 - 2 * index / n
    phi = math.pi * (1 + math.sqrt(5)) * index
    r = np.sqrt(1 - z ** 2)
    return np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def test_sphere_net_accepts_the_band_construction_and_a_fibonacci_sphere(capsys):
    lab07.check_sphere_net(sphere_net_with())
    lab07.check_sphere_net(sphere_net_fibonacci)
    assert capsys.readouterr().out.count("passed") == 2


def sphere_net_via_dpteach(a):
    from dpteach.halfspace_cover import sphere_net
    return sphere_net(3, a)


def sphere_net_random(a):
    x = np.random.default_rng(0).standard_normal((math.ceil(8 / a ** 2), 3))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("wrong,hint", [
    (sphere_net_with(factor=2.2), "do not cover the sphere.*gap between your points"),   # angle/spacing too coarse
    (sphere_net_with(poles_cut=True), "near a pole"),
    (sphere_net_with(hemisphere=True), "one hemisphere"),
    (sphere_net_with(uniform=True), "fewer longitudes suffice near the poles"),
    # valid but over-dense band nets (30 % and 50 % finer than needed) are too large, not badly shaped
    (sphere_net_with(factor=0.7), "proportion to sin θ, so the excess is in the spacing"),
    (sphere_net_with(factor=0.5), "proportion to sin θ, so the excess is in the spacing"),
    (sphere_net_with(repeat_pole=True), "repeat another one"),
    (sphere_net_with(scale=2.0), "unit vector"),
    (sphere_net_random, "do not cover the sphere"),
    (sphere_net_via_dpteach, "write this yourself"),
])
def test_sphere_net_rejects(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab07.check_sphere_net(wrong)


# --- the notebook -------------------------------------------------------------------------------------------------

DUMMY_ARGUMENTS = {"coefficients": np.ones(4), "kappas": np.array([[0, 0], [1, 0], [0, 1], [1, 1]]),
                   "X": np.zeros((3, 2)), "y": np.ones(3), "degree": 2, "resolution": 0.1,
                   "net": np.eye(2), "c": np.ones(3), "u": np.array([1.0, 0.0])}


def test_student_version_has_no_solutions_and_raises(tmp_path):
    check_student_version(NOTEBOOK, lab07, DUMMY_ARGUMENTS, tmp_path)


def test_nbgrader_metadata():
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    ids = [c["metadata"]["nbgrader"]["grade_id"] for c in cells if "nbgrader" in c["metadata"]]
    assert len(ids) == len(set(ids))
    graded = {c["metadata"]["nbgrader"]["grade_id"]: c for c in cells
              if c["metadata"].get("nbgrader", {}).get("grade")}
    assert {f"task{n}-check" for n in range(1, 7)} <= set(graded) and "task7-proof" in graded
    assert graded["task7-proof"]["cell_type"] == "markdown"
    for c in cells:
        meta = c["metadata"].get("nbgrader")
        if meta and meta["solution"] and c["cell_type"] == "code":
            assert "### BEGIN SOLUTION" in "".join(c["source"])


def test_the_grade_refuses_the_library_net_reached_by_a_run_time_name():
    """Task 6's answer calls dpteach's own sphere net through importlib: the public checker cannot see it, the grade
    (run in a separate process whose library routine the task asks for raises) can."""
    from test_lab_grading import grade, notebook
    cheat = ("import importlib\n"
             "def my_sphere_net(resolution):\n"
             "    return getattr(importlib.import_module('dpteach.halfspace_' + 'cover'), 'sphere_' + 'net')(3, resolution)\n")
    namespace = {}
    exec(cheat, namespace)
    lab07.check_sphere_net(namespace["my_sphere_net"])  # the public, formative checker accepts it
    result = grade(notebook(NOTEBOOK, replace={"task6-solution": cheat}), "task6-check")
    assert not result.passed and "task asks you to write" in result.message, result.message


def test_sphere_net_hint_gives_the_band_spacing_only_after_repeated_tries():
    from dpteach.labs import checking
    wrong = sphere_net_with(factor=2.2)
    checking._failed_tries.clear()
    messages = []
    for _ in range(checking.FORMULA_AFTER):
        with pytest.raises(LabCheckError) as caught:
            lab07.check_sphere_net(wrong)
        messages.append(str(caught.value))
    assert all("chords" in m for m in messages)
    assert all("B = ⌈π/δ⌉" not in m for m in messages[:-1]) and "B = ⌈π/δ⌉" in messages[-1]
    checking._failed_tries.clear()
