"""Peeling, the private top-s selection of chapter 5 (Algorithm 5.2), and its privacy accountant.

Peeling (Dwork, Su & Zhang 2018; used as a subroutine by the paper's Algorithm 4,
Cai, Wang & Zhang 2021) releases a noisy, s-sparse version of a vector v whose
entries each move by at most λ between neighbouring datasets:

1. s rounds of report-noisy-max on the scores |v_j| (chapter 1, thm-report-noisy-max),
   each with fresh Laplace noise of scale b and with the coordinates already
   chosen masked out;
2. fresh Laplace noise of the same scale b on the s released values.

With b = λ·2√(3s·ln(1/δ))/ε each of the 2s steps is pure DP, and their
composition is (ε', δ)-DP with ε' = :func:`peeling_epsilon` (Theorem 5.3 of the
chapter). This module computes ε' exactly from the composition theorems and so
says for which (s, ε, δ) the paper's constant really delivers ε' <= ε.

Neighbours differ in one replaced record; ``sensitivity`` is the ℓ∞ bound λ on
the change of v. Peeling never looks at the data itself, only at v.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from ._constraints import Delta, Epsilon, Options, OrNone, POSITIVE_INT, validate_params
from ._array_constraints import Array
from ._scales import NORMAL_SCALE
from ._validation import as_rng, check_finite_array, check_int, check_memory
from .composition import advanced_epsilon, pld_epsilon
from .privacy import privacy_claim

__all__ = ["peeling_noise_scale", "peel", "peeling_epsilon"]

CALIBRATIONS = ("paper", "accountant", "pld")
#: How :func:`peeling_epsilon` composes the 2s pure steps: the theorems, or numerically (tight).
ACCOUNTANTS = ("composition", "pld")


# --- the accountant (Theorem 5.3) ---------------------------------------------------------------

def _certified_epsilon(sparsity, epsilon_round, delta, accountant="composition"):
    """ε' of Peeling when each selection round is ε_r-DP (so each release is ε_r/2-DP).

    "composition": the better of advanced composition (the paper's route) and basic composition
    1.5·s·ε_r, which wins for small s·ε_r (both are valid bounds, so is their minimum).
    "pld": the optimal composition of s ε_r-DP and s (ε_r/2)-DP steps, by privacy loss distributions
    (``dpteach.composition.pld_epsilon``; needs dp-accounting).
    """
    if accountant == "pld":
        return pld_epsilon([("pure", epsilon_round, sparsity), ("pure", epsilon_round / 2, sparsity)], delta)
    steps = np.r_[np.full(sparsity, epsilon_round), np.full(sparsity, epsilon_round / 2)]
    advanced = advanced_epsilon(steps, delta)  # Kairouz–Oh–Viswanath with unequal steps
    basic = float(np.sum(steps))
    return min(advanced, basic)


def paper_epsilon_round(sparsity, epsilon, delta):
    """The per-round ε_r of the paper's calibration: b = 2λ/ε_r with b = λ·2√(3s ln(1/δ))/ε, so ε_r = ε/√(3s ln(1/δ)).

    (The accounting oracle, tools/accounting_oracle.py, and lab 5 compare the book's accountant with it.)
    """
    return epsilon / math.sqrt(3 * sparsity * math.log(1 / delta))


def _accountant_epsilon_round(sparsity, epsilon, delta):
    """Largest ε_r whose certified ε' is <= ε (bisection; ε' is increasing in ε_r)."""
    def excess(epsilon_round):
        return _certified_epsilon(sparsity, epsilon_round, delta) - epsilon

    high = epsilon
    while excess(high) < 0:
        high *= 2
    if excess(1e-300) < 0:
        root = optimize.brentq(excess, 1e-300, high, xtol=1e-15, rtol=1e-13)
    else:  # ε itself near 1e-300: solve for ε_r/ε from a lower end that certainly fits (basic composition of
        # the 2s rounds gives 1.5·s·ε_r = 0.75·ε there); a fixed 1e-300 did not bracket the root
        root = epsilon * optimize.brentq(lambda ratio: excess(ratio * epsilon) / epsilon, 1 / (2 * sparsity),
                                         high / epsilon, xtol=1e-15, rtol=1e-13)
    while excess(root) > 0:  # never overspend the budget: step below the solver's tolerance
        root = math.nextafter(root, 0.0) * (1 - 1e-15)
    return root


def _pld_epsilon_round(sparsity, epsilon, delta):
    """Largest ε_r (to 10⁻⁴ relative) whose PLD-composed ε' is <= ε; always a certified one (bisection)."""
    def fits(epsilon_round):
        return _certified_epsilon(sparsity, epsilon_round, delta, "pld") <= epsilon

    low = _accountant_epsilon_round(sparsity, epsilon, delta)  # the theorems' ε_r: almost always fits
    while not fits(low):  # the PLD grid's rounding can exceed a tight theorem (s = 1) by ~10⁻⁴
        low *= 0.99
    high = low * 2
    while fits(high):
        low, high = high, high * 2
    while high - low > 1e-4 * low:  # ε' increases with ε_r; keep `low` certified throughout
        middle = (low + high) / 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low


@validate_params({"sparsity": POSITIVE_INT, "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "accountant": Options(ACCOUNTANTS)})
def peeling_epsilon(sparsity, epsilon, delta, accountant="composition"):
    """The ε' that composition certifies for Peeling with the paper's noise scale (Theorem 5.3).

    With b = λ·2√(3s ln(1/δ))/ε each selection round is ε_r = ε/√(3s ln(1/δ))-DP
    (report-noisy-max with Lap(2λ/ε_r)) and each released value ε_r/2-DP
    (Laplace mechanism, sensitivity λ, scale 2λ/ε_r). Returns the smaller of

    * advanced composition of the 2s pure steps: √(2 ln(1/δ)·1.25 s ε_r²) + Σ ε_i(e^{ε_i} − 1),
      whose first term is √(2.5/3)·ε ≈ 0.913 ε, and
    * basic composition: 1.5 s ε_r = ε·√(0.75 s / ln(1/δ)).

    Peeling is (peeling_epsilon(s, ε, δ), δ)-DP. So the paper's claim "(ε, δ)-DP"
    holds exactly when the value returned is <= ε: for ε <= 1 and δ <= 10⁻³
    (the second-order term of advanced composition stays below 0.087 ε), and for
    every ε when s <= (4/3)·ln(1/δ) (basic composition). For larger ε and s it
    can exceed ε by up to about 60 %; ``peel(..., calibrate="accountant")`` then
    shrinks the noise scale's ε so that the certificate is exactly ε.

    Parameters
    ----------
    sparsity : int
        s >= 1, the number of selected coordinates.
    epsilon : float
        The ε that the paper's constant is calibrated to, 0 < ε < inf.
    delta : float
        0 < δ < 1.
    accountant : {"composition", "pld"}

    Returns
    -------
    float
        ε' > 0. Cost O(s) ("composition"); two PLD self-compositions, about 0.2 s ("pld").

    Raises
    ------
    TypeError, ValueError
        For s not an integer >= 1 (or beyond the memory limit), ε not finite and > 0, δ not in (0, 1),
        an unknown ``accountant``.
    ImportError
        ``accountant="pld"`` without dp-accounting installed.

    Examples
    --------
    >>> round(peeling_epsilon(sparsity=2, epsilon=1.0, delta=1e-5), 4)
    0.361
    """
    check_memory(("sparsity", sparsity), itemsize=16)  # the 2s per-step ε of the composition, O(s)
    return _certified_epsilon(sparsity, paper_epsilon_round(sparsity, epsilon, delta), delta, accountant)


@validate_params({"sparsity": POSITIVE_INT, "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "sensitivity": NORMAL_SCALE, "calibrate": Options(CALIBRATIONS)})
def peeling_noise_scale(sparsity, epsilon, delta, sensitivity, calibrate="paper"):
    """The common Laplace scale b of Peeling's 2s noise draws (Algorithm 5.2, line 1).

    ``calibrate="paper"``: b = λ·2√(3s ln(1/δ))/ε, the constant of the paper
    (certified for the (s, ε, δ) where :func:`peeling_epsilon` <= ε).
    ``calibrate="accountant"``: b = 2λ/ε_r with the largest per-round ε_r whose
    composition :func:`peeling_epsilon` certifies as exactly (ε, δ)-DP, for any ε.
    ``calibrate="pld"``: b = 2λ/ε_r with the largest ε_r (to 10⁻⁴ relative) whose optimal composition
    ``peeling_epsilon(..., accountant="pld")`` is <= ε: less noise at the same (ε, δ) (needs dp-accounting).

    Parameters
    ----------
    sparsity : int, s >= 1
    epsilon : float, 0 < ε < inf
    delta : float, 0 < δ < 1
    sensitivity : float, 1e-150 <= λ <= 1e150
        λ > 0, the ℓ∞ bound on the change of v between neighbours.
    calibrate : {"paper", "accountant", "pld"}

    Returns
    -------
    float
        b > 0. Cost O(s) ("paper"), O(s·60) (bisection) or about 20 PLD evaluations ("pld", seconds).

    Raises
    ------
    TypeError, ValueError
        For out-of-range arguments or an unknown ``calibrate``.

    Examples
    --------
    >>> round(peeling_noise_scale(sparsity=2, epsilon=1.0, delta=1e-5, sensitivity=1.0), 4)
    16.6226
    """
    if calibrate == "paper":
        return sensitivity * 2 * math.sqrt(3 * sparsity * math.log(1 / delta)) / epsilon
    if calibrate == "pld":
        return 2 * sensitivity / _pld_epsilon_round(sparsity, epsilon, delta)
    return 2 * sensitivity / _accountant_epsilon_round(sparsity, epsilon, delta)


# --- Peeling (Algorithm 5.2) ---------------------------------------------------------------------

def _laplace(rng, scale, shape):
    # Lap(b) = b·(E₁ − E₂) with E₁, E₂ i.i.d. Exp(1): exactly the Laplace law, and about
    # twice as fast as rng.laplace, which matters for the audits' 10⁵ repetitions.
    return scale * (rng.standard_exponential(shape) - rng.standard_exponential(shape))


def peel_rows(values, sparsity, scale, rng):
    """Peeling applied independently to each row of ``values`` (k, d); validated inputs.

    Vectorised over rows: each of the s rounds draws a fresh (k, d) noise matrix.
    """
    n_rows, dimension = values.shape
    rows = np.arange(n_rows)
    selected = np.zeros((n_rows, dimension), dtype=bool)
    scores = np.abs(values)
    for _ in range(sparsity):
        noisy = scores + _laplace(rng, scale, (n_rows, dimension))
        noisy[selected] = -np.inf  # masked: a coordinate is selected at most once
        selected[rows, np.argmax(noisy, axis=1)] = True
    released = np.zeros_like(values)
    released[selected] = values[selected] + _laplace(rng, scale, int(selected.sum()))
    return released


@privacy_claim(theorem="thm-peeling-privacy", epsilon="peeling_epsilon(s, epsilon, delta)", delta="delta")
@validate_params({"v": Array(ndim=1), "s": POSITIVE_INT, "epsilon": Epsilon(), "delta": Delta(allow_zero=False),
                  "sensitivity": NORMAL_SCALE, "rng": "random_state", "size": OrNone(POSITIVE_INT),
                  "calibrate": Options(CALIBRATIONS)})
def peel(v, s, epsilon, delta, sensitivity, rng=None, size=None, calibrate="paper"):
    """Peeling: private top-s selection with noisy values (Algorithm 5.2; the paper's Peeling).

    ::

        b ← λ·2√(3s ln(1/δ))/ε
        S ← ∅
        repeat s times:  j* ← argmax_{j ∉ S} |v_j| + w_j,  w_j ~ Lap(b) fresh;  S ← S ∪ {j*}
        return P_S(v + w̃),  w̃_j ~ Lap(b) fresh

    Privacy (Theorem 5.3). If ‖v(D) − v(D')‖∞ <= λ for all replace-one
    neighbours D, D', then each round is report-noisy-max on scores of
    sensitivity λ with Lap(2λ/ε_r), hence ε_r-DP with ε_r = ε/√(3s ln(1/δ));
    each released value is the Laplace mechanism with sensitivity λ and scale
    2λ/ε_r, hence ε_r/2-DP. By composition over these 2s steps Peeling is
    (ε', δ)-DP with ε' = :func:`peeling_epsilon` (s, ε, δ). That is <= ε — the
    paper's claim — for ε <= 1 and δ <= 10⁻³, and for any ε when
    s <= (4/3)·ln(1/δ); otherwise use ``calibrate="accountant"``, which is
    (ε, δ)-DP for every ε; ``calibrate="pld"`` is (ε, δ)-DP by the optimal composition of the same
    2s steps, with less noise. Peeling reads only v, never the data.

    Parameters
    ----------
    v : array_like, shape (d,)
        The vector to sparsify, finite.
    s : int
        Number of coordinates to release, 1 <= s <= d.
    epsilon : float
        0 < ε < inf.
    delta : float
        0 < δ < 1.
    sensitivity : float, 1e-150 <= λ <= 1e150
        λ > 0, the ℓ∞ bound on v(D) − v(D') between neighbours.
    rng : None, int or numpy.random.Generator
    size : None or int
        None returns one release (shape (d,)); an int returns that many
        independent releases (shape (size, d)), for audits.
    calibrate : {"paper", "accountant", "pld"}
        How the noise scale is set, see :func:`peeling_noise_scale`.

    Returns
    -------
    ndarray, shape (d,) or (size, d)
        Exactly s nonzero entries per release (almost surely). Cost O(s·d) per release.

    Raises
    ------
    TypeError, ValueError
        For v empty/not 1-D/non-finite, s < 1 or s > d, ε <= 0, δ not in (0, 1),
        λ <= 0, a bad ``size``, ``calibrate`` or ``rng``.

    Examples
    --------
    >>> peel(np.array([0.5, 1.5, -0.2, 0.9]), s=2, epsilon=1.0, delta=1e-5, sensitivity=1.0, rng=0, size=2).shape
    (2, 4)
    """
    s = check_int(s, "s", minimum=1, maximum=v.size)  # s <= d relates s to v
    n_releases = 1 if size is None else size
    check_memory(("size", n_releases), ("len(v)", v.size))
    scale = peeling_noise_scale(s, epsilon, delta, sensitivity, calibrate)
    released = peel_rows(np.broadcast_to(v, (n_releases, v.size)), s, scale, rng)
    return released[0] if size is None else released


def broken_peel_forgotten_sqrt_s(v, s, epsilon, delta, sensitivity, rng=None, size=None):
    """BROKEN on purpose (audit demo): Peeling with b = λ·2√(3 ln(1/δ))/ε, the √s forgotten.

    Each round then costs √s times the budget the proof allows, and the s rounds
    together lose about √s·ε. Not private; the chapter's audit (E7) and the tests catch it.
    """
    v = check_finite_array(v, "v", ndim=1)
    n_releases = 1 if size is None else size
    scale = sensitivity * 2 * math.sqrt(3 * math.log(1 / delta)) / epsilon
    released = peel_rows(np.broadcast_to(v, (n_releases, v.size)), s, scale, as_rng(rng))
    return released[0] if size is None else released
