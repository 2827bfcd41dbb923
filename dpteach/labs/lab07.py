"""Checkers for Lab 7, "A proper private learner" (book/labs/lab07_proper.ipynb, chapter 7).

Each checker runs the student's function on inputs generated here and
compares with references computed here (closed forms, or dpteach.proper,
which the student's function may not call for its own task). A right answer
prints one "passed" line; a wrong one raises
:class:`~dpteach.labs.LabCheckError` with a hint for the likely bug.

1. :func:`check_gradient_moment` — ``fn(coefficients, kappas)`` → M = E[∇q∇qᵀ] (d × d);
2. :func:`check_relevant_direction` — ``fn(X, y, degree)`` → unit vector of the ridge direction;
3. :func:`check_circle_net` — ``fn(resolution)`` → (N, 2) unit vectors with covering radius ≤ a;
4. :func:`check_covering_radius` — ``fn(net)`` → the exact covering radius of a net on the circle.

The tasks are graded independently: no checker uses another task's answer.
"""

from __future__ import annotations

import math

import numpy as np

from .. import proper
from .. import subspace
from .._validation import as_rng, check_choice, check_finite_array, check_int, check_positive
from ..hermite import hermite_feature_sum, multi_indices
from . import LabCheckError, call_student, passed, require, require_own_code

__all__ = ["check_gradient_moment", "check_relevant_direction", "check_circle_net", "check_covering_radius",
           "ridge_data"]


def _as_matrix(value, shape, task, what):
    require(isinstance(value, np.ndarray) or isinstance(value, (list, tuple)),
            f"{task}: return a numpy array ({what}), got {type(value).__name__}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise LabCheckError(f"{task}: return an array of numbers ({what}), got {value!r:.80}") from None
    require(arr.shape == shape, f"{task}: expected {what} of shape {shape}, got shape {arr.shape}."
            + (" M is d × d: form G Gᵀ (d × D'), not Gᵀ G." if arr.ndim == 2 and arr.shape[0] == arr.shape[1]
               and arr.shape[0] > shape[0] else ""))
    require(np.all(np.isfinite(arr)), f"{task}: your {what} contains NaN or inf")
    return arr


# --- Task 1: M = G Gᵀ ------------------------------------------------------------------------------------------


def _moment_with(a, kappas, weight):
    """G Gᵀ with G[i, κ − e_i] = weight(κ_i)·a_κ (weight = √ for the right answer)."""
    lookup = {tuple(k): j for j, k in enumerate(kappas.tolist())}
    d = kappas.shape[1]
    G = np.zeros((d, len(kappas)))
    for j, kappa in enumerate(kappas.tolist()):
        for i, k in enumerate(kappa):
            if k:
                lower = list(kappa)
                lower[i] -= 1
                G[i, lookup[tuple(lower)]] += weight(k) * a[j]
    return G @ G.T


_MOMENT_BUGS = [
    (lambda k: float(k), "you use λ_i + 1 (= κ_i) without the square root: ∂_i h_κ = √κ_i · h_{κ−e_i}, "
                         "so G[i, λ] = √(λ_i + 1)·a_{λ+e_i}."),
    (lambda k: math.sqrt(k - 1), "off by one: the weight is √(λ_i + 1) = √κ_i, not √λ_i."),
    (lambda k: 1.0, "the derivative of h_m is √m·h_{m−1}, not h_{m−1}: each entry of G needs the factor √κ_i."),
]


def check_gradient_moment(fn):
    """Task 1: ``fn(coefficients, kappas)`` returns M = E_{X~N(0,I)}[∇q∇qᵀ] for q = Σ_κ a_κ h_κ."""
    task = "Task 1 (gradient second moment)"
    require_own_code(fn, {"gradient_second_moment"}, task)
    rng = np.random.default_rng(701)
    for d, degree in [(1, 3), (2, 3), (3, 2), (4, 3)]:
        kappas = multi_indices(d, degree)
        order = rng.permutation(len(kappas))  # any row order must work, not only the graded one
        a = rng.standard_normal(len(kappas))
        reference = subspace.gradient_second_moment(a, degree, d)
        answer = _as_matrix(call_student(fn, (a[order].copy(), kappas[order].copy()), task), (d, d), task,
                            "the d × d matrix M")
        if np.allclose(answer, reference, rtol=1e-8, atol=1e-10):
            continue
        for weight, hint in _MOMENT_BUGS:
            if np.allclose(answer, _moment_with(a, kappas, weight), rtol=1e-8, atol=1e-10):
                raise LabCheckError(f"{task}: wrong M for d = {d}, p = {degree}: {hint}")
        if np.allclose(np.diag(answer), np.diag(reference), rtol=1e-8, atol=1e-10):
            raise LabCheckError(f"{task}: the diagonal of M is right but not the off-diagonal entries: "
                                f"M_ij = Σ_λ G[i, λ]·G[j, λ] pairs a_{{λ+e_i}} with a_{{λ+e_j}} for the same λ.")
        if math.isclose(np.trace(answer), np.trace(reference), rel_tol=1e-8):
            raise LabCheckError(f"{task}: tr M is right (Σ|κ| a_κ²) but the matrix is not; check which column "
                                f"λ = κ − e_i each coefficient goes to.")
        raise LabCheckError(f"{task}: wrong M for d = {d}, p = {degree} (max error "
                            f"{np.abs(answer - reference).max():.3g}); tr M should be Σ_κ |κ|·a_κ² = "
                            f"{np.trace(reference):.4f}, yours is {np.trace(answer):.4f}.")
    passed(task)


# --- Task 2: the relevant direction of a noisy ridge function ----------------------------------------------------


def ridge_data(n, d, direction, kind, noise=0.5, rng=None):
    """Noisy ridge data y = g(⟨u, x⟩) + N(0, noise²), x ~ N(0, I_d); g odd ("sign") or even ("square").

    ``kind="sign"``: g(z) = sign(z − 0.3); ``kind="square"``: g(z) = (z² − 1)/√2, whose first-order
    correlations E[y·x] vanish, so only the gradient moment finds u; ``kind="cubic"``: g(z) = (z³ − 3z)/√6
    = h₃(z), orthogonal to every polynomial of degree ≤ 2, so only degree ≥ 3 finds u.
    """
    n = check_int(n, "n", minimum=1)
    d = check_int(d, "d", minimum=1)
    u = check_finite_array(direction, "direction", shape=(d,))
    if not np.any(u):
        raise ValueError("direction must be a non-zero vector (it is normalised to unit length), got all zeros")
    check_choice(kind, "kind", ("sign", "square", "cubic"))
    noise = check_positive(noise, "noise", allow_zero=True)
    rng = as_rng(rng)
    u = u / np.linalg.norm(u)
    X = rng.standard_normal((n, d))
    z = X @ u
    if kind == "sign":
        g = np.where(z >= 0.3, 1.0, -1.0)
    elif kind == "square":
        g = (z ** 2 - 1) / math.sqrt(2)
    else:
        g = (z ** 3 - 3 * z) / math.sqrt(6)
    return X, g + noise * rng.standard_normal(n), u


def _angle(u, v):
    return math.degrees(math.acos(min(1.0, abs(float(u @ v)) / (np.linalg.norm(u) * np.linalg.norm(v)))))


def check_relevant_direction(fn):
    """Task 2: ``fn(X, y, degree)`` returns a unit vector along the ridge direction (sign ignored)."""
    task = "Task 2 (relevant direction)"
    require_own_code(fn, {"relevant_subspace", "PrivateProperLearner"}, task)
    rng = np.random.default_rng(702)
    # The cubic ridge is invisible at degree 2 (h₃ is orthogonal to all quadratics): an answer that ignores its
    # `degree` argument finds noise there. The axis cases (u = e₂ of R⁴) make M nearly diagonal with its top
    # entry in the middle, where np.linalg.eig, which returns eigenvalues unsorted, tends to keep the diagonal's
    # order: neither its first nor its last column is then the top eigenvector.
    for kind, d, degree in [("sign", 4, 2), ("square", 5, 2), ("square", 3, 2), ("cubic", 3, 3), ("sign", 4, "axis"),
                            ("square", 4, "axis"), ("cubic", 4, 3)]:
        u = rng.standard_normal(d)
        if degree == "axis":
            u, degree = np.eye(d)[1], 2
        X, y, u = ridge_data(20_000, d, u, kind, rng=rng)
        answer = call_student(fn, (X, y, degree), task)
        answer = _as_matrix(answer, (d,), task, "the direction, a vector of length d")
        norm = np.linalg.norm(answer)
        require(abs(norm - 1) < 1e-6, f"{task}: return a unit vector (‖u‖ = 1), yours has norm {norm:.4g}")
        angle = _angle(answer, u)
        # With n = 20 000 the top eigenvector of the estimated M is within ~2° of u (sampling error √(D/n));
        # 10° leaves room, while a wrong eigenvector or a random direction is at 60–90° in these draws.
        if angle <= 10:
            continue
        linear = X.T @ y / len(y)
        if _angle(answer, linear) < 1:
            raise LabCheckError(f"{task}: your direction is E[y·x], the first-order correlation. For the even "
                                f"ridge function y = (⟨u, x⟩² − 1)/√2 + noise it carries no signal; use the "
                                f"degree-{2} Hermite correlations and the top eigenvector of M.")
        features = hermite_feature_sum(X, degree, weights=y) / len(y)
        M = subspace.gradient_second_moment(features, degree, d)
        values, vectors = np.linalg.eigh(M)
        if _angle(answer, vectors[:, 0]) < 1:
            raise LabCheckError(f"{task}: you returned the eigenvector of the *smallest* eigenvalue: "
                                f"np.linalg.eigh sorts eigenvalues in increasing order, so take the last column.")
        if any(_angle(answer, vectors[:, j]) < 1 for j in range(d - 1)):
            raise LabCheckError(f"{task}: you returned an eigenvector of M, but not the top one ({kind} ridge, "
                                f"d = {d}). Hint: np.linalg.eig returns the eigenvalues in no particular order; "
                                f"use np.linalg.eigh (increasing order, for symmetric M) and its last column, or "
                                f"the column of the largest eigenvalue.")
        if degree != 2:
            low = subspace.gradient_second_moment(hermite_feature_sum(X, 2, weights=y) / len(y), 2, d)
            if _angle(answer, np.linalg.eigh(low)[1][:, -1]) < 1:
                raise LabCheckError(f"{task}: called with degree = {degree} you used degree 2: for the cubic ridge "
                                    f"y = h₃(⟨u, x⟩) + noise every correlation of degree ≤ 2 is zero. Hint: use the "
                                    f"`degree` argument for ψ_p and for gradient_second_moment.")
        raise LabCheckError(f"{task}: your direction is {angle:.0f}° away from the true one ({kind} ridge, d = {d}, "
                            f"degree {degree}); compute m̂ = mean of y·ψ_p(x), M = G Gᵀ, and return M's top "
                            f"eigenvector.")
    passed(task)


# --- Task 3: a net on the circle ---------------------------------------------------------------------------------


def _circle_radius(net):
    angles = np.sort(np.arctan2(net[:, 1], net[:, 0]))
    gaps = np.diff(np.append(angles, angles[0] + 2 * math.pi))
    return 2.0 * math.sin(gaps.max() / 4.0)


def check_circle_net(fn):
    """Task 3: ``fn(resolution)`` returns an (N, 2) array of unit vectors with covering radius ≤ resolution."""
    task = "Task 3 (a net on the circle)"
    require_own_code(fn, {"sphere_net", "halfspace_cover"}, task)
    for a in [0.5, 0.3, 0.1, 0.05, 0.01]:
        answer = call_student(fn, (a,), task)
        require(isinstance(answer, np.ndarray), f"{task}: return a numpy array of shape (N, 2), "
                                                f"got {type(answer).__name__}")
        require(answer.ndim == 2 and answer.shape[1] == 2 and answer.shape[0] >= 2,
                f"{task}: return an array of shape (N, 2) with N ≥ 2, got shape {answer.shape}")
        require(np.all(np.isfinite(answer)), f"{task}: your net contains NaN or inf")
        norms = np.linalg.norm(answer, axis=1)
        require(np.allclose(norms, 1.0, atol=1e-9), f"{task}: every point must be a unit vector (norms "
                                                     f"between {norms.min():.3g} and {norms.max():.3g}).")
        radius = _circle_radius(answer)
        minimal = math.ceil(math.pi / (2 * math.asin(a / 2)) - 1e-9)
        if radius > a:
            angles = np.mod(np.arctan2(answer[:, 1], answer[:, 0]), 2 * math.pi)
            if angles.max() < math.pi + 1e-9:
                raise LabCheckError(f"{task}: your points only cover half of the circle (angles in [0, π]); "
                                    f"the unit sphere of V contains u and −u.")
            distinct = np.unique(np.round(answer, 9), axis=0)
            if len(distinct) < len(answer):
                raise LabCheckError(f"{task}: at resolution a = {a}, {len(answer) - len(distinct)} of your "
                                    f"{len(answer)} points repeat another one, so only {len(distinct)} count, and "
                                    f"they leave a point of the circle at distance {radius:.4f} > a. Hint: "
                                    f"np.linspace(0, 2π, N) contains both 0 and 2π, the same point; use "
                                    f"endpoint=False.")
            raise LabCheckError(f"{task}: at resolution a = {a} your {len(answer)} points leave a point of the circle "
                                f"at distance {radius:.4f} > a. N equally spaced points have covering radius "
                                f"2·sin(π/(2N)) (a chord, not the arc 2π/N); you need N ≥ {minimal}.")
        require(len(answer) <= 2.5 * minimal + 2,
                f"{task}: at a = {a} your net has {len(answer)} points, more than 2.5× the {minimal} that suffice; "
                f"the cover's size drives the running time, so do not waste points.")
    passed(task)


# --- Task 4: the exact covering radius ---------------------------------------------------------------------------


def check_covering_radius(fn):
    """Task 4: ``fn(net)`` returns the exact covering radius max_u min_v ‖u − v‖ of a net on the unit circle."""
    task = "Task 4 (covering radius)"
    require_own_code(fn, {"covering_radius"}, task)
    rng = np.random.default_rng(704)
    nets = [np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])]
    for n_points in [3, 7, 40]:
        angles = rng.uniform(0, 2 * math.pi, n_points)
        nets.append(np.column_stack([np.cos(angles), np.sin(angles)]))
    # The largest gap straddles the angle ±π (the wrap-around): sorted angles must close the circle.
    angles = np.array([-3.0, -2.0, -1.0, 0.0, 1.0, 2.0])
    nets.append(np.column_stack([np.cos(angles), np.sin(angles)]))
    for net in nets:
        answer = call_student(fn, (net.copy(),), task)
        require(isinstance(answer, (float, np.floating)) or (isinstance(answer, np.ndarray) and answer.ndim == 0),
                f"{task}: return one float, got {type(answer).__name__} {answer!r:.60}")
        answer = float(answer)
        truth = _circle_radius(net)
        if math.isclose(answer, truth, rel_tol=1e-9, abs_tol=1e-12):
            continue
        angles = np.sort(np.arctan2(net[:, 1], net[:, 0]))
        gaps = np.diff(np.append(angles, angles[0] + 2 * math.pi))
        inner = np.diff(angles).max()
        hints = [
            (2 * math.sin(gaps.max() / 2), "you return the chord of the whole largest gap; the worst point sits "
                                           "in the middle of the gap, at half that angle: 2·sin(gap/4)."),
            (gaps.max() / 2, "you return the arc length gap/2; the distance is the chord 2·sin(gap/4)."),
            (gaps.max(), "you return the largest angular gap; the covering radius is the chord 2·sin(gap/4)."),
            (2 * math.sin(inner / 4), "you forgot the wrap-around gap between the last and the first angle "
                                      "(add 2π to the first sorted angle)."),
        ]
        for value, hint in hints:
            if math.isclose(answer, value, rel_tol=1e-9):
                raise LabCheckError(f"{task}: {hint}")
        if answer < truth:
            raise LabCheckError(f"{task}: your radius {answer:.6f} is below the true {truth:.6f}: a sampled "
                                f"estimate misses the worst point; compute it exactly from the gaps.")
        raise LabCheckError(f"{task}: wrong covering radius for a net of {len(net)} points: {answer:.6f} "
                            f"instead of {truth:.6f}.")
    passed(task)
