"""Checkers for Lab 7, "A proper private learner" (book/labs/lab07_proper.ipynb, chapter 7).

Each checker runs the student's function on inputs generated here and
compares with references computed here (closed forms, or dpteach.proper,
which the student's function may not call for its own task). A right answer
prints one "passed" line; a wrong one raises
:class:`~dpteach.labs.LabCheckError` with a hint for the likely bug.

1. :func:`check_gradient_moment` — ``fn(coefficients, kappas)`` → M = E[∇q∇qᵀ] (d × d);
2. :func:`check_relevant_direction` — ``fn(X, y, degree)`` → unit vector of the ridge direction;
3. :func:`check_circle_net` — ``fn(resolution)`` → (N, 2) unit vectors with covering radius ≤ a;
4. :func:`check_covering_radius` — ``fn(net)`` → the exact covering radius of a net on the circle;
5. :func:`check_ridge_coefficients` — ``fn(c, u, kappas)`` → the h_κ coefficients of Σ_m c_m h_m(⟨u, x⟩);
6. :func:`check_sphere_net` — ``fn(resolution)`` → (N, 3) unit vectors with covering radius ≤ a, not too many.

The tasks are graded independently: no checker uses another task's answer.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import hermite_e as _prob
from scipy import spatial, special

from .. import proper
from .. import subspace
from .._validation import as_rng, check_choice, check_finite_array, check_int, check_positive
from ..hermite import hermite_feature_sum, hermite_features, multi_indices
from . import LabCheckError, call_student, passed, require, require_own_code
from .checking import teaching_hint

__all__ = ["check_gradient_moment", "check_relevant_direction", "check_circle_net", "check_covering_radius",
           "check_ridge_coefficients", "check_sphere_net", "ridge_data"]


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


def _sign_symmetrised(X, y, axis):
    """The data with every sign pattern of the coordinates other than ``axis`` (2^(d−1) copies, same y).

    y depends on x_axis only, so the copies are as likely as the original. In this data every Hermite
    correlation m̂_κ with an odd κ_j (j ≠ axis) cancels, so M = G Gᵀ is diagonal up to rounding (each of its
    off-diagonal entries pairs a κ odd in coordinate i with one even in it): an exactly diagonal matrix,
    whatever the sampling error, on which every LAPACK's np.linalg.eig deflates at once and returns the
    eigenvalues in diagonal order, top in the middle.
    """
    d = X.shape[1]
    others = [j for j in range(d) if j != axis]
    signs = np.ones((2 ** len(others), d))
    for k, j in enumerate(others):
        signs[:, j] = np.where((np.arange(len(signs)) >> k) & 1, -1.0, 1.0)
    return (X[None, :, :] * signs[:, None, :]).reshape(-1, d), np.tile(y, len(signs))


def check_relevant_direction(fn):
    """Task 2: ``fn(X, y, degree)`` returns a unit vector along the ridge direction (sign ignored)."""
    task = "Task 2 (relevant direction)"
    require_own_code(fn, {"relevant_subspace", "PrivateProperLearner"}, task)
    rng = np.random.default_rng(702)
    # The cubic ridge is invisible at degree 2 (h₃ is orthogonal to all quadratics): an answer that ignores its
    # `degree` argument finds noise there. The axis cases (u = e₂ of R⁴) make M diagonal with its top entry in
    # the middle, where np.linalg.eig, which returns eigenvalues unsorted, keeps the diagonal's order: neither
    # its first nor its last column is then the top eigenvector (see _sign_symmetrised).
    for kind, d, degree in [("sign", 4, 2), ("square", 5, 2), ("square", 3, 2), ("cubic", 3, 3), ("sign", 4, "axis"),
                            ("square", 4, "axis"), ("cubic", 4, 3)]:
        u = rng.standard_normal(d)
        if degree == "axis":
            u, degree = np.eye(d)[1], 2
            X, y, u = ridge_data(20_000 >> (d - 1), d, u, kind, rng=rng)
            X, y = _sign_symmetrised(X, y, axis=1)
        else:
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
            shape = {"square": "the even ridge function y = (⟨u, x⟩² − 1)/√2 + noise",
                     "cubic": "the ridge function y = h₃(⟨u, x⟩) + noise, orthogonal to every linear function,"}
            raise LabCheckError(f"{task}: your direction is E[y·x], the first-order correlation. For "
                                f"{shape.get(kind, 'this ridge function')} it carries no signal; use the "
                                f"degree-{degree} Hermite correlations (the `degree` argument) and the top "
                                f"eigenvector of M.")
        features = hermite_feature_sum(X, degree, weights=y) / len(y)
        M = subspace.gradient_second_moment(features, degree, d)
        values, vectors = np.linalg.eigh(M)
        match = next((j for j in range(d - 1) if _angle(answer, vectors[:, j]) < 1), None)
        if match is not None:  # an eigenvector, not the top one: say which, and where each numpy routine puts it
            which = "the *smallest* eigenvalue" if match == 0 else f"eigenvalue {values[match]:.3g}"
            raise LabCheckError(f"{task}: you returned the eigenvector of {which} of M, not the top one "
                                f"({values[-1]:.3g}; {kind} ridge, d = {d}). Hint: np.linalg.eigh sorts the "
                                f"eigenvalues in increasing order (take its last column); np.linalg.eig returns "
                                f"them in no particular order (take the column of the largest eigenvalue).")
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
            if len(answer) >= minimal:
                raise LabCheckError(f"{task}: at resolution a = {a} your {len(answer)} points are enough in number "
                                    f"but not evenly spread: they leave a point of the circle at distance "
                                    f"{radius:.4f} > a, in the middle of your largest angular gap. Hint: space the "
                                    f"angles equally, 2π·k/N for k = 0..N−1.")
            hint = teaching_hint(task, "the distance to the nearest point is a chord, 2·sin(angle/2), not an angle; "
                                       "the worst point sits in the middle of a gap.",
                                 f"N equally spaced points have covering radius 2·sin(π/(2N)), so N ≥ "
                                 f"π/(2·arcsin(a/2)), here N ≥ {minimal}.")
            raise LabCheckError(f"{task}: at resolution a = {a} your {len(answer)} points leave a point of the circle "
                                f"at distance {radius:.4f} > a. Hint: {hint}")
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
            raise LabCheckError(f"{task}: your radius {answer:.6f} is below the true {truth:.6f}, so some point of "
                                f"the circle is farther from the net than you say. If you sampled u, a sample misses "
                                f"the worst point: compute it exactly from the gaps. Otherwise check the chord: an "
                                f"angle θ between unit vectors is a distance 2·sin(θ/2).")
        raise LabCheckError(f"{task}: wrong covering radius for a net of {len(net)} points: {answer:.6f} "
                            f"instead of {truth:.6f}.")
    passed(task)


# --- Task 5: the Hermite coefficients of a ridge polynomial (derived, not printed in the chapter) ----------------

def _ridge_reference(c, u, kappas):
    """a_κ = c_{|κ|}·√(|κ|!/κ!)·u^κ: from e^{t⟨u,x⟩ − t²/2} = Π_i e^{t u_i x_i − (t u_i)²/2} when ‖u‖ = 1."""
    total = kappas.sum(axis=1)
    log_multinomial = special.gammaln(total + 1) - special.gammaln(kappas + 1).sum(axis=1)
    return np.asarray(c)[total] * np.exp(0.5 * log_multinomial) * np.prod(u[None, :] ** kappas, axis=1)


def _ridge_values(c, u, X):
    """q(x) = Σ_m c_m h_m(⟨u, x⟩), h_m = He_m/√(m!), evaluated directly in one dimension."""
    z = X @ u
    scaled = np.asarray(c, dtype=float) / np.sqrt([math.factorial(m) for m in range(len(c))])
    return _prob.hermeval(z, scaled)


def check_ridge_coefficients(fn):
    """Task 5: ``fn(c, u, kappas)`` → a with Σ_j a[j]·h_{kappas[j]}(x) = Σ_m c_m h_m(⟨u, x⟩) for unit u."""
    task = "Task 5 (ridge coefficients)"
    require_own_code(fn, {"halfspace_hermite_coefficients"}, task)
    rng = np.random.default_rng(705)
    for d, degree in [(1, 3), (2, 2), (2, 4), (3, 3), (4, 2), (3, 5)]:
        kappas = multi_indices(d, degree)
        order = rng.permutation(len(kappas))  # any row order must work
        u = rng.standard_normal(d)
        u /= np.linalg.norm(u)
        c = rng.standard_normal(degree + 1)
        answer = _as_matrix(call_student(fn, (c.copy(), u.copy(), kappas[order].copy()), task), (len(kappas),), task,
                            "the coefficient vector, one entry per row of kappas")
        X = rng.standard_normal((40, d))
        values = hermite_features(X, degree)[:, order] @ answer
        want = _ridge_values(c, u, X)
        if np.allclose(values, want, rtol=1e-8, atol=1e-8 * np.abs(want).max()):
            continue
        reference = _ridge_reference(c, u, kappas[order])
        if np.allclose(answer, _ridge_reference(c, u, kappas), rtol=1e-8, atol=1e-12) and len(kappas) > 1:
            raise LabCheckError(f"{task}: your coefficients are in the order of multi_indices(d, p), not in the "
                                f"order of the rows of `kappas` you were given (d = {d}, p = {degree}): a[j] belongs "
                                f"to kappas[j].")
        total = kappas[order].sum(axis=1)
        levels = np.array([np.sum(answer[total == m] ** 2) for m in range(degree + 1)])
        # Parseval: h_m(⟨u, X⟩) has unit norm for unit u, so level m of a must have squared norm exactly c_m².
        bad = [m for m in range(degree + 1) if not math.isclose(levels[m], c[m] ** 2, rel_tol=1e-8, abs_tol=1e-12)]
        if bad:
            m = bad[0]
            ratio = levels[m] / c[m] ** 2
            direction = "too small" if ratio < 1 else "too large"
            hint = teaching_hint(task, f"for unit u, h_m(⟨u, X⟩) has L² norm 1, so by Parseval Σ_{{|κ| = m}} a_κ² "
                                       f"must equal c_m²; yours is {ratio:.4g} × c_m² at m = {m} ({direction}). "
                                       f"Expand the generating function e^(t·z − t²/2) = Σ_m He_m(z)·t^m/m! at "
                                       f"z = ⟨u, x⟩: it factorises over the coordinates because Σ u_i² = 1.",
                                 "a_κ = c_|κ| · √(|κ|!/κ!) · Π_i u_i^κ_i.")
            raise LabCheckError(f"{task}: wrong coefficients for d = {d}, p = {degree}. Hint: {hint}")
        if np.allclose(np.abs(answer), np.abs(reference), rtol=1e-8, atol=1e-12):
            raise LabCheckError(f"{task}: the sizes of your coefficients are right but some signs are not "
                                f"(d = {d}, p = {degree}): u^κ = Π_i u_i^κ_i keeps the sign of a negative u_i to an "
                                f"odd power; do not use |u_i|.")
        raise LabCheckError(f"{task}: the level norms are right (Parseval) but the polynomial differs from "
                            f"Σ c_m h_m(⟨u, x⟩) at random x (d = {d}, p = {degree}): check which multi-index each "
                            f"coefficient goes to.")
    passed(task)


# --- Task 6: a net on the sphere S² -------------------------------------------------------------------------------

def _sphere_radius_and_worst(net):
    """Exact covering radius of a net on S² and the farthest point (a vertex of the spherical Voronoi diagram)."""
    try:
        voronoi = spatial.SphericalVoronoi(net, radius=1.0, threshold=1e-6)
    except (ValueError, RuntimeError, spatial.QhullError):
        # Degenerate nets (all points on one great circle, …): the poles of the dense Fibonacci points below give
        # a lower bound, which is enough to refute such a net.
        probes = _fibonacci_probes(200_000)
        distances, _ = spatial.cKDTree(net).query(probes)
        worst = int(np.argmax(distances))
        return float(distances[worst]), probes[worst]
    vertices = voronoi.vertices / np.linalg.norm(voronoi.vertices, axis=1, keepdims=True)
    distances, _ = spatial.cKDTree(net).query(vertices)
    worst = int(np.argmax(distances))
    return float(distances[worst]), vertices[worst]


def _fibonacci_probes(n_points):
    index = np.arange(n_points) + 0.5
    z = 1.0 - 2.0 * index / n_points
    phi = math.pi * (1.0 + math.sqrt(5.0)) * index
    r = np.sqrt(1.0 - z ** 2)
    return np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def _dense_net_hint(net):
    """What makes a covering net too large, tested before it is named (the net already covers the sphere).

    A band net whose polar bands hold (almost) as many longitudes as the widest band ignores that a parallel
    at polar angle θ has length 2π·sin θ. Measured per band: bands are the distinct heights z; a band of
    sin θ < 1/4 needs at most ⌈2π·2·sin θ/δ⌉ ≤ (c/2) + 1 longitudes when the widest needs c = ⌈2π/δ⌉ (the
    max of sin θ over the band nearest a pole is at most twice its centre's), under 3/4 of c from c ≥ 4 on.
    Anything else that is valid but too large gets the size comparison only.
    """
    heights, counts = np.unique(np.round(net[:, 2], 9), return_counts=True)
    if len(heights) > len(net) / 3:  # not bands of latitude: no count per band to compare
        return " Space your points as far apart as the covering radius allows."
    sines = np.sqrt(np.clip(1 - heights ** 2, 0, 1))
    polar = (sines < 0.25) & (sines > 0)
    if counts.max() >= 4 and np.any(counts[polar] > 0.75 * counts.max()):
        return (f" Your band nearest a pole holds {counts[polar].max()} points, your widest band {counts.max()}: "
                f"a parallel at polar angle θ has length 2π·sin θ, so fewer longitudes suffice near the poles.")
    return (" Your bands hold longitudes in proportion to sin θ, so the excess is in the spacing: space the bands "
            "and the longitudes as far apart as the covering radius allows (chords, 2·sin(angle/2)).")


def check_sphere_net(fn):
    """Task 6: ``fn(resolution)`` → (N, 3) unit vectors with covering radius ≤ a and N ≤ 19/a² + 8."""
    task = "Task 6 (a net on the sphere)"
    require_own_code(fn, {"sphere_net", "halfspace_cover", "_sphere_net", "_fibonacci_sphere"}, task)
    for a in [0.5, 0.3, 0.15, 0.08]:
        answer = call_student(fn, (a,), task)
        require(isinstance(answer, np.ndarray), f"{task}: return a numpy array of shape (N, 3), "
                                                f"got {type(answer).__name__}")
        require(answer.ndim == 2 and answer.shape[1] == 3 and answer.shape[0] >= 4,
                f"{task}: return an array of shape (N, 3) with N ≥ 4, got shape {answer.shape}")
        require(np.all(np.isfinite(answer)), f"{task}: your net contains NaN or inf")
        answer = answer.astype(float)
        norms = np.linalg.norm(answer, axis=1)
        require(np.allclose(norms, 1.0, atol=1e-9), f"{task}: every point must be a unit vector (norms "
                                                     f"between {norms.min():.3g} and {norms.max():.3g}).")
        distinct = np.unique(np.round(answer, 9), axis=0)
        require(len(distinct) == len(answer),
                f"{task}: at a = {a}, {len(answer) - len(distinct)} of your {len(answer)} points repeat another one "
                f"(a pole listed once per longitude, or longitudes from np.linspace(0, 2π, N) with both ends). "
                f"Repeated points cost without covering anything: list each point once.")
        radius, worst = _sphere_radius_and_worst(answer)
        if radius > a * (1 + 1e-9):
            where = f"the point ({worst[0]:.3f}, {worst[1]:.3f}, {worst[2]:.3f}) is at distance {radius:.4f} > a"
            if answer[:, 2].min() > -1e-9 or answer[:, 2].max() < 1e-9:
                hint = "your points lie in one hemisphere; the net must cover the whole sphere (z from −1 to 1)."
            elif abs(worst[2]) > 0.6 and not np.any(answer[:, 2] * np.sign(worst[2]) >= abs(worst[2])):
                hint = ("that point is near a pole, and none of your points is closer to that pole: the polar cap is "
                        "uncovered (bands of latitude that stop short of the pole; the band nearest a pole must reach "
                        "polar angle 0, or the pole itself must be a point of the net).")
            else:
                hint = teaching_hint(task, "a gap between your points is too wide there. Distances on the sphere are "
                                           "chords (2·sin(angle/2)), and a point of a latitude band is far from the "
                                           "net in two directions at once: half the band height along the meridian "
                                           "and half the longitude spacing along its parallel, whose radius is "
                                           "sin θ.",
                                     "with δ = 2·arcsin(a/2), take B = ⌈π/δ⌉ bands of polar angle centred at "
                                     "θ_j = (j + ½)π/B, and in band j N_j = ⌈2π·max_(θ in the band) sin θ / δ⌉ "
                                     "equally spaced longitudes: every point is then within a geodesic δ, a chord a.")
            raise LabCheckError(f"{task}: at resolution a = {a} your {len(answer)} points do not cover the sphere: "
                                f"{where}. Hint: {hint}")
        limit = 19 / a ** 2 + 8
        if len(answer) > limit:
            extra = _dense_net_hint(answer)
            raise LabCheckError(f"{task}: at a = {a} your net has {len(answer)} points, more than 19/a² + 8 = "
                                f"{limit:.0f} (any net needs at least 4/a² = {4 / a ** 2:.0f}; the size of the "
                                f"cover drives the running time).{extra}")
    passed(task)
