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
from dpteach.hermite import hermite_features
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
    # np.linalg.eig's *last* column; its first column happens to be the top eigenvector on every input the
    # checker tries (LAPACK's order for a nearly rank-one M), so that slip is not caught.
    (direction_with(pick="eig last"), "not the top one|smallest"),
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
    (lambda net: "0.5", "one float"),
    (lambda net: halfspace_cover.covering_radius(net), "write this yourself"),
])
def test_covering_radius_rejects(wrong, hint):
    with pytest.raises(LabCheckError, match=hint):
        lab07.check_covering_radius(wrong)


# --- the notebook -------------------------------------------------------------------------------------------------

DUMMY_ARGUMENTS = {"coefficients": np.ones(4), "kappas": np.array([[0, 0], [1, 0], [0, 1], [1, 1]]),
                   "X": np.zeros((3, 2)), "y": np.ones(3), "degree": 2, "resolution": 0.1,
                   "net": np.eye(2)}


def test_student_version_has_no_solutions_and_raises(tmp_path):
    check_student_version(NOTEBOOK, lab07, DUMMY_ARGUMENTS, tmp_path)


def test_nbgrader_metadata():
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    ids = [c["metadata"]["nbgrader"]["grade_id"] for c in cells if "nbgrader" in c["metadata"]]
    assert len(ids) == len(set(ids))
    graded = {c["metadata"]["nbgrader"]["grade_id"]: c for c in cells
              if c["metadata"].get("nbgrader", {}).get("grade")}
    assert {f"task{n}-check" for n in range(1, 5)} <= set(graded) and "task5-proof" in graded
    assert graded["task5-proof"]["cell_type"] == "markdown"
    for c in cells:
        meta = c["metadata"].get("nbgrader")
        if meta and meta["solution"] and c["cell_type"] == "code":
            assert "### BEGIN SOLUTION" in "".join(c["source"])
