"""Composition theorems of chapter 1: how privacy losses add up.

* basic (sequential) composition, Theorem 1.16: k mechanisms on the same data,
  (ε_i, δ_i)-DP each, are (Σ ε_i, Σ δ_i)-DP;
* advanced composition, Theorem 1.17 (Dwork, Rothblum & Vadhan 2010):
  k-fold adaptive composition of (ε, δ)-DP mechanisms is (ε', kδ + δ')-DP with
  ε' = ε √(2k ln(1/δ')) + k ε (e^ε − 1);
* parallel composition, Theorem 1.18: mechanisms that each read a *disjoint*
  part of the data are (max ε_i, max δ_i)-DP, because a neighbour changes one
  record and so only one part. Later chapters (SQ → local simulation, DPSAS)
  split their data this way and call :func:`parallel_composition` to say so.

The theorems above hold for *any* steps with the stated (ε_i, δ_i), which is why they are loose for a
given mechanism. :func:`pld_epsilon` is the tight accountant (issue 24): it composes the privacy loss
distributions of the actual mechanisms (in closed form when every step is Gaussian; otherwise numerically,
Koskela et al. 2020, with Google's ``dp-accounting``, an optional dependency imported only when it is called)
and returns an ε that is never below the true one, at every δ it accepts (its docstring says why).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from ._constraints import Check, Delta, Epsilon, FiniteInterval, OrNone, POSITIVE_INT, Real, validate_params
from ._validation import check_choice, check_int, check_positive, check_finite_array, check_sequence
from .mechanisms import gaussian_epsilon

__all__ = [
    "basic_composition",
    "advanced_composition",
    "advanced_composition_epsilon_per_step",
    "heterogeneous_advanced_composition",
    "parallel_composition",
    "PLD_STEPS",
    "pld_epsilon",
]

#: The step kinds :func:`pld_epsilon` composes (see its docstring).
PLD_STEPS = ("gaussian", "laplace", "pure", "poisson_gaussian")
#: Width of the privacy-loss grid (dp-accounting's default). Every loss is rounded *up* to it.
PLD_GRID = 1e-4
#: Most steps one :func:`pld_epsilon` call composes (each distinct kind costs one FFT-based self-composition).
MAX_PLD_STEPS = 10 ** 6
#: Stated limits that keep the PLD's grid small (its support is about the losses' range / PLD_GRID): the
#: least noise σ/Δ or b/Δ of one step, the largest ε₀ of a pure step, and the largest expected privacy
#: loss Σ KL of the composition (any ε is then at least about that: nothing to learn from a PLD).
PLD_MIN_NOISE = 0.2
PLD_MAX_PURE_EPSILON = 50.0
PLD_MAX_EXPECTED_LOSS = 200.0
#: The numerical (FFT) path of :func:`pld_epsilon` (any step that is not Gaussian) certifies ε at δ − PLD_DELTA_SLACK,
#: and refuses δ < PLD_MIN_DELTA. Why these suffice: see :func:`pld_epsilon`'s docstring, "Accuracy".
PLD_DELTA_SLACK = 1e-11
PLD_MIN_DELTA = 1e-9


def _check_epsilons(epsilons, name):
    """The ε_i of the composed steps (a scalar or a 1-D array, each finite and > 0) as a flat float array."""
    eps = check_finite_array(epsilons, name, ndim=(0, 1)).ravel()
    if np.any(eps <= 0):
        raise ValueError(f"{name} must all be > 0 (valid range: 0 < epsilon < inf), "
                         f"found {eps[eps <= 0][0].item()!r}")
    return eps


def _check_deltas(deltas, name):
    """The δ_i of the composed steps (a scalar or a 1-D array, each in [0, 1)) as a flat float array."""
    dels = check_finite_array(deltas, name, ndim=(0, 1)).ravel()
    if np.any((dels < 0) | (dels >= 1)):
        raise ValueError(f"{name} must all satisfy 0 <= delta < 1, "
                         f"found {dels[(dels < 0) | (dels >= 1)][0].item()!r}")
    return dels


def _flat(values):
    """A scalar or 1-D sequence as a flat float array (the conversion of the checks above, without them)."""
    return np.asarray(values, dtype=float).ravel()


# Check: the per-step ε_i flattened to a 1-D array, with this module's wording for a list.
EPSILONS = Check(_check_epsilons, array_ndim=(0, 1), convert_nested=_flat,
                 invalid=[([0.5, 0.0], "[0.5, 0]"), ([-1.0], "[-1]"), ([math.inf], "[inf]"), (None, "None"),
                          ("1", "'1'"), (True, "True")])
# Check: the per-step δ_i flattened to a 1-D array, with this module's wording for a list.
DELTAS = OrNone(Check(_check_deltas, array_ndim=(0, 1), convert_nested=_flat,
                      invalid=[([0.0, -0.1], "[0, -0.1]"), ([1.0], "[1]"), ("1", "'1'"), (True, "True")]))


def _matching_deltas(eps, dels):
    """δ_i per ε_i (default all 0): one entry per step, a relation between the two declared arrays."""
    if dels is None:
        return np.zeros_like(eps)
    if dels.shape != eps.shape:
        raise ValueError(f"deltas must have one entry per epsilon ({eps.size}), got {dels.size}")
    return dels


@validate_params({"epsilons": EPSILONS, "deltas": DELTAS})
def basic_composition(epsilons, deltas=None):
    """Total (ε, δ) of running every mechanism on the same data (chapter 1, Theorem 1.16).

    Parameters
    ----------
    epsilons : array_like of float
        ε_i > 0 of each mechanism.
    deltas : array_like of float, optional
        δ_i in [0, 1) of each mechanism (default all 0).

    Returns
    -------
    (float, float)
        (Σ ε_i, Σ δ_i). The δ sum may reach 1 or more, which is a vacuous guarantee.

    Raises
    ------
    ValueError, TypeError
        An empty, non-numeric or non-finite ``epsilons``; an ε_i <= 0; a δ_i
        outside [0, 1); ``deltas`` of another length than ``epsilons``.

    Examples
    --------
    >>> basic_composition(epsilons=[0.5, 1.0], deltas=[0.0, 1e-5])
    (1.5, 1e-05)
    """
    dels = _matching_deltas(epsilons, deltas)
    return float(epsilons.sum()), float(dels.sum())


@validate_params({"epsilon": Epsilon(), "delta": Delta(), "k": POSITIVE_INT,
                  "delta_prime": Delta(allow_zero=False)})
def advanced_composition(epsilon, delta, k, delta_prime):
    """k-fold adaptive composition of (ε, δ)-DP mechanisms (chapter 1, Theorem 1.17; Dwork–Rothblum–Vadhan).

    Returns (ε', δ_total) with ε' = ε √(2k ln(1/δ')) + k ε (e^ε − 1) and
    δ_total = k δ + δ'. Exactly the formula of the theorem; for small ε and
    large k it beats basic composition kε, and for large ε it does not (then
    take the minimum of the two, as :func:`advanced_composition_epsilon_per_step` does).

    Parameters
    ----------
    epsilon : float, 0 < ε < inf
    delta : float, 0 <= δ < 1
    k : int, k >= 1
    delta_prime : float, 0 < δ' < 1

    Returns
    -------
    (float, float)
        (ε', kδ + δ'). ε' is ``inf`` when e^ε overflows (ε > ~709): the
        theorem then says nothing, and basic composition kε is the better bound.

    Raises
    ------
    ValueError, TypeError
        ε, δ, k or δ' outside the ranges above.

    Examples
    --------
    >>> eps_total, delta_total = advanced_composition(epsilon=0.1, delta=1e-6, k=10, delta_prime=1e-5)
    >>> round(eps_total, 4), round(delta_total, 10)
    (1.6226, 2e-05)
    """
    # k equal steps in closed form (k may be astronomically large): √(Σ ε²) = ε√k, Σ ε(e^ε − 1) = kε(e^ε − 1).
    try:
        drift = k * epsilon * math.expm1(epsilon)
    except OverflowError:  # e^ε beyond the float range: the bound is vacuous, not an error
        drift = math.inf
    eps_total = _advanced_bound(epsilon * math.sqrt(k), drift, delta_prime)
    return eps_total, k * delta + delta_prime


def advanced_epsilon(epsilons, delta_prime):
    """ε' = √(2 ln(1/δ') Σ ε_i²) + Σ ε_i (e^{ε_i} − 1) on validated inputs: the one home of the formula.

    ``inf`` where e^{ε_i} overflows (ε_i > ~709): the bound is then vacuous, not an error.
    """
    epsilons = np.asarray(epsilons, dtype=float)
    with np.errstate(over="ignore"):
        drift = float(np.sum(epsilons * np.expm1(epsilons)))
    # √(Σ ε_i²) = m·√(Σ (ε_i/m)²) with m = max ε_i: no underflow at ε ~ 1e-300, no overflow at 1e300.
    largest = float(epsilons.max())
    return _advanced_bound(largest * math.sqrt(float(np.sum((epsilons / largest) ** 2))), drift, delta_prime)


def _advanced_bound(root_sum_of_squares, drift, delta_prime):
    """The advanced composition theorem's ε' = √(2 ln(1/δ'))·√(Σ ε_i²) + Σ ε_i(e^{ε_i} − 1), from its two sums."""
    return root_sum_of_squares * math.sqrt(2 * math.log(1 / delta_prime)) + drift


@validate_params({"epsilons": EPSILONS, "delta_prime": Delta(allow_zero=False)})
def heterogeneous_advanced_composition(epsilons, delta_prime):
    """Adaptive composition of pure ε_i-DP steps with unequal ε_i (Kairouz, Oh & Viswanath 2015; chapter 5's Peeling).

    ε' = √(2 ln(1/δ') Σ ε_i²) + Σ ε_i (e^{ε_i} − 1), with failure probability δ'.
    With k equal steps it is exactly :func:`advanced_composition` (δ = 0), which
    uses the closed form of the same sum (tested to agree).

    Parameters
    ----------
    epsilons : array_like of float
        ε_i > 0 of each step (non-empty, finite).
    delta_prime : float, 0 < δ' < 1

    Returns
    -------
    float
        ε' (``inf`` if some e^{ε_i} overflows).

    Raises
    ------
    ValueError, TypeError
        An empty, non-finite or non-positive ``epsilons``; δ' outside (0, 1).

    Examples
    --------
    >>> round(heterogeneous_advanced_composition(epsilons=[0.5, 1.0], delta_prime=1e-5), 4)
    7.4076
    """
    return advanced_epsilon(epsilons, delta_prime)


@validate_params({"epsilon_total": Epsilon(), "k": POSITIVE_INT,
                  "delta_prime": Delta(allow_zero=False)})
def advanced_composition_epsilon_per_step(epsilon_total, k, delta_prime):
    """Largest per-step ε whose k-fold composition stays within ``epsilon_total``.

    The inverse of the ε-part of :func:`advanced_composition`, combined with
    basic composition: returns the largest ε with
    min(ε √(2k ln(1/δ')) + kε(e^ε − 1), kε) <= ε_total. The map is increasing
    in ε, so the inverse is found by bisection (brentq). The result is
    rounded *down*, so k steps never overspend ``epsilon_total``.

    Parameters
    ----------
    epsilon_total : float, 0 < ε_total < inf
    k : int, k >= 1
    delta_prime : float, 0 < δ' < 1

    Returns
    -------
    float
        The per-step ε (> 0).

    Raises
    ------
    ValueError, TypeError
        ε_total, k or δ' outside the ranges above.

    Examples
    --------
    >>> round(advanced_composition_epsilon_per_step(epsilon_total=1.0, k=10, delta_prime=1e-5), 4)
    0.1
    """

    def excess(eps):
        return advanced_composition(eps, 0.0, k, delta_prime)[0] - epsilon_total

    # Bracket the root. At low = min(ε_total/(√(2k ln(1/δ')) + 2k), 1) the bound is <= ε_total,
    # because e^ε − 1 <= 2ε for ε <= 1; doubling `high` finds a point above it.
    low = min(epsilon_total / (math.sqrt(2 * k * math.log(1 / delta_prime)) + 2 * k), 1.0)
    high = min(max(epsilon_total, low), 710.0)  # beyond ε ≈ 709, e^ε overflows and the bound is inf
    while excess(high) < 0:  # only for tiny k·ln(1/δ'), where one step may exceed ε_total
        high *= 2
    advanced = low if excess(low) == 0 else optimize.brentq(excess, low, high, xtol=1e-300, rtol=1e-13)
    # A budget must never be overspent: step down past the solver's tolerance.
    while excess(advanced) > 0:
        advanced = math.nextafter(advanced, 0.0) * (1 - 1e-15)
    basic = epsilon_total / k
    while k * basic > epsilon_total:
        basic = math.nextafter(basic, 0.0)
    return max(advanced, basic)


@validate_params({"epsilons": EPSILONS, "deltas": DELTAS})
def parallel_composition(epsilons, deltas=None):
    """Total (ε, δ) of mechanisms run on pairwise disjoint parts of the data (chapter 1, Theorem 1.18).

    A replace-one neighbour changes exactly one part, so only one mechanism
    sees a different input: the guarantee is (max ε_i, max δ_i). Valid only if
    the parts are chosen without looking at the data (e.g. by index).

    Parameters
    ----------
    epsilons : array_like of float
        ε_i > 0 of the mechanism run on part i.
    deltas : array_like of float, optional
        δ_i in [0, 1) (default all 0).

    Returns
    -------
    (float, float)
        (max ε_i, max δ_i).

    Raises
    ------
    ValueError, TypeError
        As :func:`basic_composition`.

    Examples
    --------
    >>> parallel_composition(epsilons=[0.5, 1.0], deltas=[0.0, 1e-5])
    (1.0, 1e-05)
    """
    dels = _matching_deltas(epsilons, deltas)
    return float(epsilons.max()), float(dels.max())


def _dp_accounting():
    """dp-accounting's PLD module, imported lazily: no algorithm module needs the package."""
    try:
        from dp_accounting.pld import common, privacy_loss_distribution
    except ImportError as error:
        raise ImportError("the tight (PLD) accountant needs the 'dp-accounting' package (pip install dp-accounting; "
                          "it is in requirements.txt); the other accountants work without it") from error
    return common, privacy_loss_distribution


def _pld_quadruples(steps):
    """(kind, parameter, count, rate) for every step, rate 1 unless given: the form pld_epsilon's body reads."""
    return [(step[0], step[1], step[2], step[3] if len(step) == 4 else 1.0) for step in steps]


def _check_pld_steps(steps, name="steps"):
    steps = check_sequence(steps, "steps", "(kind, parameter, count) triples")
    if not steps:
        raise ValueError("steps must list at least one (kind, parameter, count) triple, got an empty sequence")
    checked = []
    for i, step in enumerate(steps):
        if not isinstance(step, (tuple, list)) or len(step) not in (3, 4):
            raise ValueError(f"steps[{i}] must be a (kind, parameter, count) triple (or (kind, parameter, count, "
                             f"sampling_rate) for 'poisson_gaussian'), got {step!r}")
        kind = check_choice(step[0], f"steps[{i}][0]", PLD_STEPS)
        parameter = check_positive(step[1], f"steps[{i}][1]")
        count = check_int(step[2], f"steps[{i}][2]", minimum=1, maximum=MAX_PLD_STEPS)
        rate = 1.0
        if kind == "poisson_gaussian":
            if len(step) != 4:
                raise ValueError(f"steps[{i}] of kind 'poisson_gaussian' needs a 4th entry, the sampling rate q "
                                 f"(valid range: 0 < q <= 1), got {step!r}")
            rate = check_positive(step[3], f"steps[{i}][3]")
            if rate > 1:
                raise ValueError(f"steps[{i}][3] (the sampling rate) = {rate!r} is outside 0 < q <= 1")
        if kind == "pure" and parameter > PLD_MAX_PURE_EPSILON:
            raise ValueError(f"steps[{i}][1] = {parameter!r} (the ε₀ of a pure step) exceeds the stated limit "
                             f"(valid range: 0 < ε₀ <= {PLD_MAX_PURE_EPSILON:g})")
        if kind != "pure" and parameter < PLD_MIN_NOISE:
            raise ValueError(f"steps[{i}][1] = {parameter!r} (the noise over the sensitivity) is below the stated "
                             f"limit (valid range: {PLD_MIN_NOISE:g} <= σ/Δ or b/Δ < inf)")
        checked.append((kind, parameter, count, rate))
    if sum(count for _, _, count, _ in checked) > MAX_PLD_STEPS:
        raise ValueError(f"steps compose {sum(c for _, _, c, _ in checked)} steps in all; at most "
                         f"MAX_PLD_STEPS = {MAX_PLD_STEPS} (valid range: 1 <= total <= {MAX_PLD_STEPS})")
    expected = sum(count * expected_loss(kind, parameter, rate) for kind, parameter, count, rate in checked)
    if expected > PLD_MAX_EXPECTED_LOSS:
        raise ValueError(f"steps have an expected privacy loss (Σ KL) of {expected:.4g} > {PLD_MAX_EXPECTED_LOSS:g}: "
                         f"every ε of them is about that large or more; use more noise or fewer steps "
                         f"(valid range: Σ KL <= {PLD_MAX_EXPECTED_LOSS:g})")
    return checked


def expected_loss(kind, parameter, rate):
    """An upper bound on one step's KL divergence, i.e. the mean of its privacy loss (to size the PLD).

    Gaussian, σ/Δ = r: Δ²/(2σ²) = 1/(2r²). Poisson-sampled: by convexity of KL at most q times that of the
    sampled pair N(−Δ, σ²), N(Δ, σ²), i.e. q·2/r². Laplace with ε₀ = Δ/b, and pure ε₀-DP steps: ε₀·tanh(ε₀/2).
    """
    if kind == "gaussian":
        return 1.0 / (2 * parameter ** 2)
    if kind == "poisson_gaussian":
        return rate * 2.0 / parameter ** 2
    eps0 = parameter if kind == "pure" else 1.0 / parameter
    return eps0 * math.tanh(eps0 / 2)


def _one_pld(kind, parameter, rate, grid=PLD_GRID):
    common, pld = _dp_accounting()
    if kind == "pure":  # the dominating pair of a generic ε₀-DP step (randomized response)
        return pld.from_privacy_parameters(common.DifferentialPrivacyParameters(parameter, 0.0),
                                           value_discretization_interval=grid)
    if kind == "laplace":
        return pld.from_laplace_mechanism(parameter, value_discretization_interval=grid)
    if kind == "gaussian":
        return pld.from_gaussian_mechanism(parameter, value_discretization_interval=grid)
    # Replace-one neighbours on a Poisson sample: the record's slot is sampled with probability q, and its
    # contribution (norm <= Δ) is swapped for another (norm <= Δ), so the worst pair of outputs is
    # (1−q)N(0, σ²) + qN(−Δ, σ²) against (1−q)N(0, σ²) + qN(Δ, σ²) (dp-accounting's REPLACE_ONE).
    from dp_accounting import privacy_accountant
    return pld.from_gaussian_mechanism(parameter, value_discretization_interval=grid, sampling_prob=rate,
                                       neighboring_relation=privacy_accountant.NeighboringRelation.REPLACE_ONE)


# Check: a list of (ε, δ, count, kind) steps: a record type of this module only.
@validate_params({"steps": Check(_check_pld_steps, convert_nested=_pld_quadruples,
                                 invalid=[([], "[]"), ([("gaussian", -1.0, 1)], "negative noise"), (None, "None")]),
                  "delta": Delta(allow_zero=False), "grid": FiniteInterval(Real, PLD_GRID, 1e-2, closed="both")})
def pld_epsilon(steps, delta, grid=PLD_GRID):
    """The ε at which adaptively composed steps are (ε, δ)-DP, by privacy loss distributions (tight).

    When every step is Gaussian (``"gaussian"``, or ``"poisson_gaussian"`` with q = 1), the composition is
    exact in closed form: k_i Gaussian mechanisms of noise σ_i/Δ_i compose into one Gaussian mechanism of
    noise 1 and sensitivity μ = √(Σ k_i (Δ_i/σ_i)²) (μ-GDP; Dong, Roth & Su 2022, Cor. 3.3), whose ε(δ) is the
    inverse of Theorem 1.10's log-space formula (``mechanisms.gaussian_delta``), rounded up. Otherwise each
    step's privacy loss distribution (PLD) is discretised pessimistically (every loss rounded *up* to a grid of
    width 10⁻⁴) and the composition is their convolution, by FFT (Koskela, Jälkö & Honkela 2020; Doroshenko
    et al. 2022, as implemented by Google's ``dp-accounting``). Either way the returned ε is never below the
    true ε of the composed mechanisms, and exceeds it by at most about k·10⁻⁴ for k steps (by ~10⁻⁹ relative in
    closed form): unlike :func:`advanced_composition`, it is the smallest ε the mechanisms allow, not a bound for
    any steps with the same per-step ε (chapter 1, "Tight accounting").

    Accuracy at small δ (wave-4 review, theory ch09-A row N1). The FFT computes the composed PLD in double
    precision, with an *absolute* rounding error (about 10⁻¹⁷–10⁻¹⁶ per grid point, visible as negative
    probabilities) that the δ(ε) sum collects over up to millions of grid points: at δ = 10⁻¹⁴ and 10⁴ Gaussian
    steps it made the uncorrected PLD report 7.51 where the truth is 7.87. Measured against exact oracles (the
    μ-GDP closed form for Gaussian steps forced through the FFT, Kairouz–Oh–Viswanath's formula for pure steps),
    this error in δ was at most 1.6·10⁻¹³ over pure ε₀ ∈ {0.01, 0.05} with k <= 1000, Gaussian σ/Δ ∈ {5, 50,
    100} with k <= 10⁴ and grids of up to 3.4·10⁶ points (the stated limits below keep every grid to a few
    million points); tests/test_accounting_oracle.py re-checks it. So the FFT path reserves PLD_DELTA_SLACK =
    10⁻¹¹ (60 times the largest error seen) and returns the PLD's ε at δ − 10⁻¹¹; and it refuses δ below
    PLD_MIN_DELTA = 10⁻⁹, where the slack would be more than 1 % of δ and the FFT's error no longer small
    against it. This is a measured bound with a safety factor, not a proof; the closed-form path needs neither
    (it is exact down to the smallest normal δ).

    Parameters
    ----------
    steps : sequence of (kind, parameter, count) triples
        ``("gaussian", σ/Δ, k)``: k Gaussian mechanisms of noise std σ and ℓ₂ sensitivity Δ (replace-one);
        ``("laplace", b/Δ, k)``: k Laplace mechanisms of scale b and ℓ₁ sensitivity Δ;
        ``("pure", ε₀, k)``: k steps known only to be ε₀-DP (e.g. report-noisy-max; their worst case is
        randomized response, so this is the optimal composition of Kairouz, Oh & Viswanath 2015);
        ``("poisson_gaussian", σ/Δ, k, q)``: k Gaussian mechanisms, each on a fresh Poisson sample that
        contains each record independently with probability q, where each record contributes a vector of
        norm <= Δ (so replacing one record moves the sum by up to 2Δ when it is sampled, and not at all
        otherwise); the amplification by subsampling is in the PLD (chapter 9, Poisson DP-SGD). At q = 1 it
        is ``("gaussian", σ/(2Δ), k)``.
        Every parameter finite, noise σ/Δ and b/Δ >= PLD_MIN_NOISE (0.2), pure ε₀ in (0, 50], 1 <= k,
        at most MAX_PLD_STEPS (10⁶) steps in all, 0 < q <= 1, and an expected privacy loss Σ KL <= 200
        (stated limits that keep the PLD's grid to a few million points).
    delta : float, 0 < δ < 1 (PLD_MIN_DELTA = 10⁻⁹ <= δ < 1 unless every step is Gaussian)
    grid : float, PLD_GRID (10⁻⁴) <= h <= 10⁻²
        Width of the pessimistic discretisation of the FFT path. A pessimistic PLD bounds the true ε from above
        on any grid, so a coarser grid never under-claims: it only over-claims a little more (about k·h) and
        runs faster (its support has 1/h points). :func:`dpteach.dp_sgd_poisson.poisson_sgd_sigma` searches
        on 10⁻³ (ten times faster). Ignored by the closed-form path.

    Returns
    -------
    float
        ε >= 0 (``inf`` when no finite ε reaches δ, e.g. almost no noise). Cost: a root finding on one formula
        when every step is Gaussian; otherwise one FFT convolution per distinct step, about 0.1 s each at the
        grid above.

    Raises
    ------
    TypeError, ValueError
        Malformed ``steps``, a kind outside PLD_STEPS, a parameter <= 0 or non-finite, a count < 1, too many
        steps, q outside (0, 1], δ outside (0, 1), δ < PLD_MIN_DELTA for steps that are not all Gaussian.
    ImportError
        If ``dp-accounting`` is not installed and a step is not Gaussian (the message names the package).

    Examples
    --------
    >>> round(pld_epsilon(steps=[("laplace", 10.0, 3)], delta=1e-5), 3)
    0.3
    """
    # A Poisson-sampled Gaussian step at q = 1 is a Gaussian step of σ/(2Δ) (the record is always sampled).
    steps = [("gaussian", parameter / 2, count, 1.0) if kind == "poisson_gaussian" and rate == 1 else
             (kind, parameter, count, rate) for kind, parameter, count, rate in steps]
    if all(kind == "gaussian" for kind, _, _, _ in steps):
        # μ = √(Σ k_i/r_i²), r_i = σ_i/Δ_i, written as √(Σ k_i (min r/r_i)²)/min r: no overflow or underflow.
        ratios = np.array([parameter for _, parameter, _, _ in steps])
        counts = np.array([count for _, _, count, _ in steps], dtype=float)
        smallest = float(ratios.min())
        mu = math.sqrt(float(np.sum(counts * (smallest / ratios) ** 2))) / smallest
        return gaussian_epsilon(1.0, mu, delta)
    if delta < PLD_MIN_DELTA:
        raise ValueError(f"delta = {delta!r} is below PLD_MIN_DELTA = {PLD_MIN_DELTA:g}, the smallest δ the numerical "
                         f"(FFT) accountant certifies for steps that are not all Gaussian (valid range: "
                         f"{PLD_MIN_DELTA:g} <= delta < 1; steps that are all Gaussian are exact at every δ)")
    return _fft_epsilon(steps, delta, grid)


def _fft_epsilon(steps, delta, grid=PLD_GRID):
    """The numerical path of :func:`pld_epsilon` (validated quadruples, δ >= PLD_MIN_DELTA): dp-accounting's PLD at
    δ − PLD_DELTA_SLACK, the FFT's rounding error reserved. A function of its own so the tests can force it."""
    composed = None
    for kind, parameter, count, rate in steps:
        one = _one_pld(kind, parameter, rate, grid).self_compose(count)
        composed = one if composed is None else composed.compose(one)
    epsilon = float(composed.get_epsilon_for_delta(delta - PLD_DELTA_SLACK))
    return max(epsilon, 0.0)
