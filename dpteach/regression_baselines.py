"""Non-private baselines for chapter 5, in numpy: split IHT, the LASSO by ISTA, and OLS.

They show what privacy costs: :func:`split_iht` is Algorithm 5.4 with exact
top-ŝ hard thresholding instead of Peeling (same blocks, same truncation, same
clipping), so the gap between the two is the price of privacy alone;
:func:`lasso_ista` is ℓ₁-penalised least squares on the full sample, the
classical estimator whose minimax rate √(s ln d / n) is the first term of
Theorem 5.8; :func:`ols` is ordinary least squares. None of them is private.
"""

from __future__ import annotations

import math

import numpy as np

from ._constraints import OrNone, POSITIVE, POSITIVE_INT, validate_params, SameLength
from ._array_constraints import Array
from ._scales import NORMAL_SCALE_OR_NONE
from ._validation import check_int, check_second_moments, check_work
from .regression import default_truncation
from .regression_steps import FLAG, block_indices, gradient_step

#: The design (X, y) of a regression, each array alone (fit checks that their lengths agree).
DESIGN = {"X": Array(ndim=2), "y": Array(ndim=1)}

__all__ = ["hard_threshold", "split_iht", "lasso_ista", "ols"]


@validate_params({"v": Array(ndim=1), "s": POSITIVE_INT})
def hard_threshold(v, s):
    """P_S(v) with S the s largest |v_j| (ties broken by index): Peeling's noiseless limit.

    Parameters
    ----------
    v : array_like, shape (d,), finite
    s : int, 1 <= s <= d

    Returns
    -------
    ndarray, shape (d,), exactly the s largest-magnitude entries kept. Cost O(d).

    Examples
    --------
    >>> hard_threshold(np.array([0.5, 1.5, -0.2, 0.9]), s=2).tolist()
    [0.0, 1.5, 0.0, 0.9]
    """
    s = check_int(s, "s", minimum=1, maximum=v.size)  # s <= d relates s to v
    keep = np.argsort(-np.abs(v), kind="stable")[:s]
    out = np.zeros_like(v)
    out[keep] = v[keep]
    return out


@validate_params({**DESIGN, "sparsity": POSITIVE_INT, "n_iterations": OrNone(POSITIVE_INT), "step_size": POSITIVE,
                  "truncation": NORMAL_SCALE_OR_NONE, "rng": "random_state", "clip_residual": FLAG},
                 relations=[SameLength("X", "y")])
def split_iht(X, y, sparsity, n_iterations=None, step_size=1.0, truncation=None, rng=None,
              clip_residual=True):
    """Algorithm 5.4 without privacy: the same split gradient steps, exact top-ŝ thresholding.

    With the same ``rng`` (seed) as :class:`~dpteach.regression.DPLasso` it
    uses the same blocks, so the two differ only by Peeling's noise; as ε → ∞
    the private LASSO converges to this estimator.

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    y : array_like, shape (n,), finite
    sparsity : int, 1 <= ŝ <= d
    n_iterations : int or None, N₀ >= 1 (None: ⌈ln n⌉)
    step_size : float, η > 0
    truncation : float or None, 1e-150 <= T <= 1e150 (None: ``default_truncation(n)``)
    rng : None, int or numpy.random.Generator (only the random split uses it)
    clip_residual : bool

    Returns
    -------
    ndarray, shape (d,), at most ŝ nonzeros. Cost O(n·d). Not private.

    Examples
    --------
    >>> X = np.random.default_rng(1).choice([-1.0, 1.0], size=(40, 6))
    >>> split_iht(X, X[:, 0] - 0.5 * X[:, 1], sparsity=2, rng=0).round(2).tolist()
    [1.0, -0.5, 0.0, 0.0, 0.0, 0.0]
    """
    n_samples, n_features = X.shape
    sparsity = check_int(sparsity, "sparsity", minimum=1, maximum=n_features)  # needs d
    n_blocks = (max(1, math.ceil(math.log(n_samples))) if n_iterations is None
                else check_int(n_iterations, "n_iterations", minimum=1, maximum=n_samples))  # needs n
    truncation = default_truncation(max(n_samples, 2)) if truncation is None else truncation
    blocks = block_indices(n_samples, n_blocks, rng)
    beta = np.zeros(n_features)
    for rows in blocks:
        beta = hard_threshold(gradient_step(X[rows], y[rows], beta, step_size, truncation, bool(clip_residual)),
                              sparsity)
    return beta


@validate_params({**DESIGN, "penalty": OrNone(POSITIVE), "n_iterations": POSITIVE_INT},
                 relations=[SameLength("X", "y")])
def lasso_ista(X, y, penalty=None, n_iterations=300):
    """The LASSO argmin (1/2n)‖y − Xβ‖² + λ_reg‖β‖₁ by ISTA (proximal gradient), on the full sample.

    Works on the d × d Gram matrix XᵀX/n (computed once), with step 1/L,
    L = its largest eigenvalue; each iteration is a gradient step followed by
    soft thresholding at λ_reg/L.

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    y : array_like, shape (n,), finite
    penalty : float or None
        λ_reg > 0; None uses 0.5·√(2 ln d / n) (the usual σ√(2 ln d/n) with σ = 1 and a factor 0.5).
    n_iterations : int, >= 1

    Returns
    -------
    ndarray, shape (d,). Cost O(n·d² + K·d²). Not private.

    Examples
    --------
    >>> X = np.random.default_rng(1).choice([-1.0, 1.0], size=(40, 6))
    >>> (lasso_ista(X, X[:, 0] - 0.5 * X[:, 1], n_iterations=5).round(2) + 0.0).tolist()  # + 0.0: no -0.0
    [0.82, -0.32, 0.0, 0.0, 0.0, 0.0]
    """
    n_samples, n_features = X.shape
    if penalty is None:
        penalty = 0.5 * math.sqrt(2 * math.log(max(n_features, 2)) / n_samples)
    check_work(("n_iterations", n_iterations), ("d^2", n_features ** 2))  # a d×d Gram product per step
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below, by name
        gram = X.T @ X / n_samples
        correlation = X.T @ y / n_samples
    check_second_moments(gram, correlation, X, y)
    lipschitz = float(np.linalg.eigvalsh(gram)[-1])
    if lipschitz <= 0:
        return np.zeros(n_features)
    beta = np.zeros(n_features)
    for _ in range(n_iterations):
        z = beta - (gram @ beta - correlation) / lipschitz
        beta = np.sign(z) * np.maximum(np.abs(z) - penalty / lipschitz, 0.0)
    return beta


@validate_params(DESIGN, relations=[SameLength("X", "y")])
def ols(X, y):
    """Ordinary least squares (XᵀX)⁻¹Xᵀy by ``numpy.linalg.lstsq`` (minimum-norm if rank-deficient).

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    y : array_like, shape (n,), finite

    Returns
    -------
    ndarray, shape (d,). Cost O(n·d²). Not private.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> ols(X, np.array([1.0, 2.0, 3.0])).round(4).tolist()
    [1.0, 2.0]
    """
    return np.linalg.lstsq(X, y, rcond=None)[0]
