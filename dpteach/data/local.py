"""Chapter 3 data: known distributions for the SQ oracles, and their closed-form errors.

Finite support + weights, so that an ExactSQOracle can answer E φ exactly;
the records the SQ queries read (rows [x..., y]). The threshold *sampler* is
chapter 2's threshold_data (same law).
"""

from __future__ import annotations

import numpy as np

from .._validation import (as_rng, check_bits, check_choice, check_finite_array, check_int, check_memory,
                           check_probability)
from .generic import flip_labels

__all__ = ["threshold_distribution", "threshold_error", "sphere_halfspace_data", "masked_parity_data",
           "masked_parity_distribution", "masked_parity_error"]


def threshold_distribution(theta=0.37, noise_rate=0.0, n_grid=2048):
    """threshold_data's law discretised: x on the midpoints (i + ½)/G, y = ±1 (chapter 3, thresholds).

    Returns (support, weights): support rows (x, y) with y = +1 iff x >= θ
    (weight (1 − η)/G) and, if η > 0, the flipped label (weight η/G). An
    ExactSQOracle over it answers every threshold query exactly; its errors
    differ from the continuous law's by at most 1/(2G).
    """
    theta = check_probability(theta, "theta", low_open=False, high_open=False)
    noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
    n_grid = check_int(n_grid, "n_grid", minimum=2)
    check_memory(("n_grid", n_grid), itemsize=32)  # support (G·2 floats, twice with noise) and weights
    x = (np.arange(n_grid) + 0.5) / n_grid
    clean = np.where(x >= theta, 1.0, -1.0)
    support = np.column_stack([x, clean])
    weights = np.full(n_grid, (1 - noise_rate) / n_grid)
    if noise_rate > 0:
        support = np.vstack([support, np.column_stack([x, -clean])])
        weights = np.concatenate([weights, np.full(n_grid, noise_rate / n_grid)])
    return support, weights


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
    """
    if isinstance(threshold, (bool, str, bytes)) or not isinstance(threshold, (int, float, np.integer, np.floating,
                                                                                np.ndarray)):
        raise TypeError(f"threshold must be a real number, got {threshold!r} of type {type(threshold).__name__}")
    threshold = float(np.clip(float(check_finite_array(threshold, "threshold", ndim=0)), 0.0, 1.0))
    theta = check_probability(theta, "theta", low_open=False, high_open=False)
    noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
    return noise_rate + (1 - 2 * noise_rate) * abs(threshold - theta)


def sphere_halfspace_data(n, d, marginal="sphere", w_star=None, noise_rate=0.0, rng=None):
    """Halfspace data with ‖x‖₂ = 1 (so ‖x‖_∞ <= 1 for SQ queries) (chapter 3, halfspaces).

    ``marginal="sphere"``: x uniform on S^{d−1} (rotation invariant, where
    averaging E[yx] is consistent). ``"skewed"``: x = g/‖g‖ with g ~ N(0, I),
    g₁ scaled by 4 and g₂ shifted by 1.5 (d >= 2), where averaging is biased.
    Labels y = sign⟨w*, x⟩ (ties +1), flipped w.p. η. Default w* = (1, ..., 1)/√d.

    Returns
    -------
    (X, y, w_star) : shapes (n, d), (n,), (d,)
    """
    n = check_int(n, "n", minimum=1)
    d = check_int(d, "d", minimum=1)
    check_memory(("n", n), ("d", d))
    marginal = check_choice(marginal, "marginal", ("sphere", "skewed"))
    noise_rate = check_probability(noise_rate, "noise_rate", low_open=False, high_open=True)
    if w_star is None:
        w_star = np.full(d, 1 / np.sqrt(d))
    w_star = check_finite_array(w_star, "w_star", shape=(d,))
    if marginal == "skewed" and d < 2:
        raise ValueError(f"d must be >= 2 for marginal='skewed', got {d!r}")
    rng = as_rng(rng)
    g = rng.standard_normal((n, d))
    if marginal == "skewed":
        g[:, 0] *= 4.0
        g[:, 1] += 1.5
    X = g / np.linalg.norm(g, axis=1, keepdims=True)
    labels = np.where(X @ w_star >= 0, 1.0, -1.0)
    return X, flip_labels(labels, noise_rate, rng), w_star


def _check_secret(d, r, a):
    d = check_int(d, "d", minimum=1, maximum=30)
    r = check_bits(r, "r").astype(np.int64)
    if r.shape != (d,):
        raise ValueError(f"r must have shape ({d},) (one bit per coordinate), got {r.shape}")
    a = check_int(a, "a", minimum=0, maximum=1)
    return d, r, a


def masked_parity_data(n, d, r, a, rng=None):
    """n users of the masked-parity problem (chapter 3, Definition 3.18).

    A record is (x ∈ {0,1}^d, i ∈ {0..d−1}, b ∈ {0,1}, y) with x, i, b uniform
    and y = r·x + a mod 2 if b = 0 (masked parity), y = r_i if b = 1 (a bit of
    the secret). Returns an int8 array of shape (n, d + 3): columns x, i, b, y.
    """
    n = check_int(n, "n", minimum=1)
    d, r, a = _check_secret(d, r, a)
    check_memory(("n", n), ("d", d + 3), itemsize=1)  # one int8 array of (n, d + 3)
    rng = as_rng(rng)
    out = np.empty((n, d + 3), dtype=np.int8)
    x = out[:, :d]
    x[...] = rng.integers(0, 2, size=(n, d), dtype=np.int8)
    out[:, d] = rng.integers(0, d, size=n, dtype=np.int8)
    out[:, d + 1] = rng.integers(0, 2, size=n, dtype=np.int8)
    # r·x <= d <= 30 fits in int8, so the parity is computed without widening the array.
    parity = (np.einsum("ij,j->i", x, r.astype(np.int8)) + a) & 1
    out[:, d + 2] = np.where(out[:, d + 1] == 0, parity, r.astype(np.int8)[out[:, d]])
    return out


def masked_parity_distribution(d, r, a):
    """The exact (uniform) masked-parity law: all 2^d·d·2 records and their weights (for an ExactSQOracle)."""
    d, r, a = _check_secret(d, r, a)
    x = ((np.arange(2 ** d)[:, None] >> np.arange(d)) & 1).astype(np.int64)
    rows = []
    for mask in (0, 1):
        for i in range(d):
            y = (x @ r + a) % 2 if mask == 0 else np.full(2 ** d, r[i])
            rows.append(np.column_stack([x, np.full(2 ** d, i), np.full(2 ** d, mask), y]))
    support = np.vstack(rows).astype(np.int8)
    return support, np.full(support.shape[0], 1.0 / support.shape[0])


def masked_parity_error(r_hat, a_hat, r, a):
    """True error of c_{r̂,â} under the uniform law: ½·(wrong bits)/d + ½·(½ if r̂ ≠ r else 1{â ≠ a})."""
    r = check_bits(r, "r").astype(int)
    d, r, a = _check_secret(r.size, r, a)
    r_hat = check_bits(r_hat, "r_hat").astype(int)
    if r_hat.shape != r.shape:
        raise ValueError(f"r_hat must have shape {r.shape}, got {r_hat.shape}")
    a_hat = check_int(a_hat, "a_hat", minimum=0, maximum=1)
    masked = 0.5 if np.any(r_hat != r) else float(a_hat != a)
    return 0.5 * float(np.sum(r_hat != r)) / d + 0.5 * masked
