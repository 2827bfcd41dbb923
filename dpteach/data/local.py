"""Chapter 3 data: known distributions for the SQ oracles, and their closed-form errors.

Finite support + weights, so that an ExactSQOracle can answer E φ exactly;
the records the SQ queries read (rows [x..., y]). The threshold *sampler* is
chapter 2's threshold_data (same law).
"""

from __future__ import annotations

import numpy as np

from numbers import Real

from .._constraints import POSITIVE_INT, Integral, FiniteInterval, Options, OrNone, validate_params
from .._array_constraints import Array, Bits
from .._validation import check_memory
from .generic import flip_labels

__all__ = ["threshold_distribution", "threshold_error", "sphere_halfspace_data", "masked_parity_data",
           "masked_parity_distribution", "masked_parity_error"]


THETA = FiniteInterval(Real, 0, 1, closed="both")
NOISE_RATE = FiniteInterval(Real, 0, 1, closed="left")


@validate_params({"theta": THETA, "noise_rate": NOISE_RATE, "n_grid": FiniteInterval(Integral, 2, None, closed="left")})
def threshold_distribution(theta=0.37, noise_rate=0.0, n_grid=2048):
    """threshold_data's law discretised: x on the midpoints (i + ½)/G, y = ±1 (chapter 3, thresholds).

    Returns (support, weights): support rows (x, y) with y = +1 iff x >= θ
    (weight (1 − η)/G) and, if η > 0, the flipped label (weight η/G). An
    ExactSQOracle over it answers every threshold query exactly; its errors
    differ from the continuous law's by at most 1/(2G).

    Examples
    --------
    >>> support, weights = threshold_distribution(n_grid=16)
    >>> support.shape, weights.sum()
    ((16, 2), 1.0)
    """
    check_memory(("n_grid", n_grid), itemsize=32)  # support (G·2 floats, twice with noise) and weights
    x = (np.arange(n_grid) + 0.5) / n_grid
    clean = np.where(x >= theta, 1.0, -1.0)
    support = np.column_stack([x, clean])
    weights = np.full(n_grid, (1 - noise_rate) / n_grid)
    if noise_rate > 0:
        support = np.vstack([support, np.column_stack([x, -clean])])
        weights = np.concatenate([weights, np.full(n_grid, noise_rate / n_grid)])
    return support, weights


@validate_params({"threshold": FiniteInterval(Real, None, None), "theta": THETA, "noise_rate": NOISE_RATE})
def threshold_error(threshold, theta=0.37, noise_rate=0.0):
    """True error of h(x) = +1 iff x >= t under x ~ U[0, 1], θ and random classification noise η.

    η + (1 − 2η)|t' − θ| with t' = clip(t, 0, 1): a threshold below 0 labels
    every point +1, like t = 0, and one above 1 labels every point −1.

    Parameters
    ----------
    threshold : float
        Any finite real t.
    theta : float in [0, 1]
    noise_rate : float in [0, 1)

    Examples
    --------
    >>> round(threshold_error(threshold=0.5), 2)
    0.13
    """
    threshold = float(np.clip(threshold, 0.0, 1.0))
    return noise_rate + (1 - 2 * noise_rate) * abs(threshold - theta)


@validate_params({"n": POSITIVE_INT, "d": POSITIVE_INT, "marginal": Options(("sphere", "skewed")),
                  "w_star": OrNone(Array(ndim=1)), "noise_rate": NOISE_RATE, "rng": "random_state"})
def sphere_halfspace_data(n, d, marginal="sphere", w_star=None, noise_rate=0.0, rng=None):
    """Halfspace data with ‖x‖₂ = 1 (so ‖x‖_∞ <= 1 for SQ queries) (chapter 3, halfspaces).

    ``marginal="sphere"``: x uniform on S^{d−1} (rotation invariant, where
    averaging E[yx] is consistent). ``"skewed"``: x = g/‖g‖ with g ~ N(0, I),
    g₁ scaled by 4 and g₂ shifted by 1.5 (d >= 2), where averaging is biased.
    Labels y = sign⟨w*, x⟩ (ties +1), flipped w.p. η. Default w* = (1, ..., 1)/√d.

    Returns
    -------
    (X, y, w_star) : shapes (n, d), (n,), (d,)

    Examples
    --------
    >>> X, y, w_star = sphere_halfspace_data(n=5, d=2, rng=0)
    >>> X.shape, y.shape, w_star.round(3)
    ((5, 2), (5,), array([0.707, 0.707]))
    """
    check_memory(("n", n), ("d", d))
    if w_star is None:
        w_star = np.full(d, 1 / np.sqrt(d))
    elif w_star.shape != (d,):  # a joint rule on two declared parameters
        raise ValueError(f"w_star must have shape ({d},), got {w_star.shape}")
    if marginal == "skewed" and d < 2:
        raise ValueError(f"d must be >= 2 for marginal='skewed', got {d!r}")
    g = rng.standard_normal((n, d))
    if marginal == "skewed":
        g[:, 0] *= 4.0
        g[:, 1] += 1.5
    X = g / np.linalg.norm(g, axis=1, keepdims=True)
    labels = np.where(X @ w_star >= 0, 1.0, -1.0)
    return X, flip_labels(labels, noise_rate, rng), w_star


#: d, the bits of a masked parity's secret (1 <= d <= 30: r·x fits in int8); a bit; the secret r.
SECRET_BITS = FiniteInterval(Integral, 1, 30, closed="both")
BIT = FiniteInterval(Integral, 0, 1, closed="both")
SECRET = Bits(ndim=1)


def _secret(d, r):
    """The secret r (declared bits) as int64, of shape (d,): a joint rule on two declared parameters."""
    r = r.astype(np.int64)
    if r.shape != (d,):
        raise ValueError(f"r must have shape ({d},) (one bit per coordinate), got {r.shape}")
    return r


@validate_params({"n": POSITIVE_INT, "d": SECRET_BITS, "r": SECRET, "a": BIT, "rng": "random_state"})
def masked_parity_data(n, d, r, a, rng=None):
    """n users of the masked-parity problem (chapter 3, Definition 3.18).

    A record is (x ∈ {0,1}^d, i ∈ {0..d−1}, b ∈ {0,1}, y) with x, i, b uniform
    and y = r·x + a mod 2 if b = 0 (masked parity), y = r_i if b = 1 (a bit of
    the secret). Returns an int8 array of shape (n, d + 3): columns x, i, b, y.

    Examples
    --------
    >>> masked_parity_data(n=5, d=3, r=np.array([1, 0, 1]), a=1, rng=0).shape
    (5, 6)
    """
    r = _secret(d, r)
    check_memory(("n", n), ("d", d + 3), itemsize=1)  # one int8 array of (n, d + 3)
    out = np.empty((n, d + 3), dtype=np.int8)
    x = out[:, :d]
    x[...] = rng.integers(0, 2, size=(n, d), dtype=np.int8)
    out[:, d] = rng.integers(0, d, size=n, dtype=np.int8)
    out[:, d + 1] = rng.integers(0, 2, size=n, dtype=np.int8)
    # r·x <= d <= 30 fits in int8, so the parity is computed without widening the array.
    parity = (np.einsum("ij,j->i", x, r.astype(np.int8)) + a) & 1
    out[:, d + 2] = np.where(out[:, d + 1] == 0, parity, r.astype(np.int8)[out[:, d]])
    return out


@validate_params({"d": SECRET_BITS, "r": SECRET, "a": BIT})
def masked_parity_distribution(d, r, a):
    """The exact (uniform) masked-parity law: all 2^d·d·2 records and their weights (for an ExactSQOracle).

    Examples
    --------
    >>> support, weights = masked_parity_distribution(d=2, r=np.array([1, 0]), a=1)
    >>> support.shape, weights[0]
    ((16, 5), 0.0625)
    """
    r = _secret(d, r)
    x = ((np.arange(2 ** d)[:, None] >> np.arange(d)) & 1).astype(np.int64)
    rows = []
    for mask in (0, 1):
        for i in range(d):
            y = (x @ r + a) % 2 if mask == 0 else np.full(2 ** d, r[i])
            rows.append(np.column_stack([x, np.full(2 ** d, i), np.full(2 ** d, mask), y]))
    support = np.vstack(rows).astype(np.int8)
    return support, np.full(support.shape[0], 1.0 / support.shape[0])


@validate_params({"r_hat": Bits(ndim=1),
                  "a_hat": BIT, "r": SECRET, "a": BIT})
def masked_parity_error(r_hat, a_hat, r, a):
    """True error of c_{r̂,â} under the uniform law: ½·(wrong bits)/d + ½·(½ if r̂ ≠ r else 1{â ≠ a}).

    Examples
    --------
    >>> masked_parity_error(r_hat=np.array([1, 0]), a_hat=0, r=np.array([1, 0]), a=1)
    0.5
    """
    d = r.size
    if d > 30:
        raise ValueError(f"r must have at most 30 bits (d <= 30), got {d}")
    r = _secret(d, r)
    r_hat = r_hat.astype(int)
    if r_hat.shape != r.shape:  # a joint rule on two declared parameters
        raise ValueError(f"r_hat must have shape {r.shape}, got {r_hat.shape}")
    masked = 0.5 if np.any(r_hat != r) else float(a_hat != a)
    return 0.5 * float(np.sum(r_hat != r)) / d + 0.5 * masked
