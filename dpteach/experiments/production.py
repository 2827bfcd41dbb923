"""The runners behind appendix A ("From dpteach to production").

Two kinds of experiment:

1. The same four releases (a Laplace count, a Gaussian-mechanism mean, the
   exponential mechanism, randomized response) done with dpteach, OpenDP and
   diffprivlib, each library's samples tested against the exact law the
   release should follow (KS for continuous outputs, χ² for discrete ones) at
   the false-alarm level :data:`FALSE_ALARM`; a deliberately mis-scaled
   variant is run through the same test and must be rejected.
2. The floating-point attack of :mod:`dpteach.float_attack` against
   dpteach's Laplace mechanism and, with the same distinguisher, against
   OpenDP's and diffprivlib's samplers: its runner lives in
   :mod:`dpteach.experiments.production_attack` (and the lattice table in
   :mod:`dpteach.float_attack`).

The exact reference laws and the KS threshold live in
:mod:`dpteach.experiments.production_laws`.

OpenDP and diffprivlib are optional: they are imported here (never in an
algorithm module), and :func:`require_libraries` raises an ``ImportError``
that says how to install them. OpenDP draws its noise from the operating
system's cryptographic generator and cannot be seeded, so its rows change
from run to run (the tests' tolerances allow for that); diffprivlib is seeded
from ``rng``.
"""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real

import numpy as np
from scipy import special, stats

from .._constraints import POSITIVE, Delta, Epsilon, FiniteInterval, validate_params
from .._array_constraints import Array
from ..mechanisms import (exponential_mechanism, exponential_mechanism_probabilities, gaussian_mechanism,
                          gaussian_sigma, laplace_mechanism, randomized_response)
# The reference laws and the χ² cells of the integer releases have their own home, production_laws (module size).
from .production_laws import (FALSE_ALARM, discrete_laplace_cells, integer_counts, permute_and_flip_probabilities,
                              pool_small_cells)

__all__ = [
    "MAX_SAMPLES",
    "require_libraries",
    "library_versions",
    "laplace_count_rows",
    "gaussian_mean_rows",
    "exponential_mechanism_rows",
    "randomized_response_rows",
    "privacy_claims",
]

# OpenDP and diffprivlib release one sample per Python call: 10⁶ releases is minutes already, and a
# larger request is refused by name rather than left to run (or to fail inside numpy).
MAX_SAMPLES = 10 ** 6
# OpenDP's integer domains are 32-bit: a count or a data set size beyond this fails inside OpenDP.
_MAX_INT32 = 2 ** 31 - 1

_INSTALL_HINT = ("the appendix's comparisons need OpenDP and diffprivlib: "
                 "pip install opendp diffprivlib (both are in requirements.txt)")


def require_libraries():
    """Import OpenDP (with the "contrib" features enabled) and diffprivlib, or raise a clear ImportError.

    Returns
    -------
    (module, module)
        ``opendp.prelude`` (as ``dp``) and ``diffprivlib``.

    Raises
    ------
    ImportError
        If either library is missing, with the command that installs both.

    Examples
    --------
    >>> dp, dpl = require_libraries()
    >>> dp.__name__, dpl.__name__
    ('opendp.prelude', 'diffprivlib')
    """
    try:
        import diffprivlib
        import opendp.prelude as dp
    except ImportError as err:
        raise ImportError(f"{_INSTALL_HINT} ({err})") from None
    # OpenDP ships its mechanisms behind feature flags; "contrib" are the
    # proven-but-not-yet-vetted constructors used here.
    dp.enable_features("contrib")
    return dp, diffprivlib


def library_versions():
    """The versions of numpy and the two production libraries (None where missing), for the appendix's tables.

    Examples
    --------
    >>> sorted(library_versions())
    ['diffprivlib', 'numpy', 'opendp']
    """
    from importlib import metadata

    versions = {"numpy": np.__version__}
    for name in ("opendp", "diffprivlib"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def _ks_row(release, library, call, samples, cdf, expect_reject=False):
    samples = np.asarray(samples, dtype=float)
    result = stats.kstest(samples, cdf)
    return {"release": release, "library": library, "call": call, "test": "KS",
            "n": samples.size, "statistic": float(result.statistic), "p_value": float(result.pvalue),
            "rejected": bool(result.pvalue < FALSE_ALARM), "expect_reject": expect_reject,
            "samples": samples}


def _chi2_row(release, library, call, observed, probabilities, expect_reject=False):
    """χ² goodness of fit; cells with expected count < 5 are pooled into their neighbour first."""
    counts = np.asarray(observed, dtype=float)
    probabilities = np.asarray(probabilities, dtype=float)
    observed, expected = pool_small_cells(counts, probabilities * counts.sum())
    statistic, p_value = stats.chisquare(observed, expected)
    return {"release": release, "library": library, "call": call, "test": f"χ² ({observed.size - 1} df)",
            "n": int(observed.sum()), "statistic": float(statistic), "p_value": float(p_value),
            "rejected": bool(p_value < FALSE_ALARM), "expect_reject": expect_reject,
            "counts": counts, "probabilities": probabilities}


#: A number of releases per library: 1 <= n_samples <= MAX_SAMPLES.
SAMPLES = FiniteInterval(Integral, 1, MAX_SAMPLES, closed="both")
#: 0 < ε <= 36, not subnormal: beyond 36, e^ε/(1 + e^ε) rounds to 1 as a double (randomized response never
#: flips) and OpenDP's privacy map is infinite.
KEEP_EPSILON = FiniteInterval(Real, 0, 36.0, closed="right", normal=True)


def _keep_probability(epsilon):
    """e^ε/(1 + e^ε) for a checked ε <= 36 (:data:`KEEP_EPSILON`)."""
    return float(special.expit(epsilon))


# diffprivlib's GaussianAnalytic finds σ by bisection on exp(ε)·Φ(·): beyond ε = ln(largest float) ≈ 709.78
# exp(ε) is inf, inf·0 is NaN, and the bisection returns a wrong σ (46 % above the analytic σ at ε = 800).
_MAX_GAUSSIAN_EPSILON = math.log(np.finfo(float).max)


#: 0 < ε <= 709.78, not subnormal: diffprivlib's analytic σ needs e^ε as a float.
GAUSSIAN_EPSILON = FiniteInterval(Real, 0, _MAX_GAUSSIAN_EPSILON, closed="right", normal=True)


def diffprivlib_seed(rng):
    """A seed for diffprivlib's legacy ``random_state``, drawn from our generator (so runs stay reproducible).

    diffprivlib takes a seed, not a numpy Generator: one draw from ``rng`` (an int in [0, 2³¹ − 1))
    seeds each of its mechanisms. Shared with :mod:`dpteach.experiments.production_attack`.

    Parameters
    ----------
    rng : numpy.random.Generator

    Returns
    -------
    int
    """
    return int(rng.integers(2 ** 31 - 1))


# ---------------------------------------------------------------- the four releases

@validate_params({"count": FiniteInterval(Integral, None, None), "epsilon": Epsilon(), "n_samples": SAMPLES,
                  "rng": "random_state"})
def laplace_count_rows(count, epsilon, n_samples, rng=None):
    """A count released with Laplace noise by the three libraries, each against its exact law (appendix A, first table).

    Continuous outputs (dpteach's :func:`~dpteach.mechanisms.laplace_mechanism`,
    OpenDP's ``make_laplace`` on floats, diffprivlib's ``Laplace``) are
    tested by KS against Lap(count, 1/ε); integer outputs (OpenDP's
    ``make_laplace`` on integers, diffprivlib's ``Geometric``) by χ² against
    the discrete Laplace law with the same scale. Two rows must be rejected:
    dpteach with the scale 30 % too large, and dpteach's continuous release
    rounded to an integer (which is *not* the discrete Laplace law).

    Parameters
    ----------
    count : int
        The exact count (replace-one sensitivity 1). OpenDP's integers are
        32-bit, so |count| + (1/ε)·ln(2·n_samples/FALSE_ALARM) <= 2³¹ − 1
        (every noisy count inside, but for FALSE_ALARM).
    epsilon : float, 0 < ε < inf
    n_samples : int, 1 <= n_samples <= MAX_SAMPLES (10⁶)
        Releases per library.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    list of dict
        One row per library/variant: release, library, call, test, n,
        statistic, p_value, rejected, expect_reject, and the data tested
        (``samples`` for KS rows; ``counts`` and the reference ``probabilities``
        of the cells for χ² rows). At an ε so large that a law is a point
        mass (ε ≳ 1000 here), its goodness-of-fit test has nothing to test:
        ``statistic`` and ``p_value`` are then NaN (and ``rejected`` False).
        Cost O(n_samples) per library
        (diffprivlib's is a Python loop).

    Raises
    ------
    ValueError, TypeError
        For a non-integer count, or one whose noisy releases would leave
        32-bit integers, bad ε, ``n_samples`` or ``rng``; ImportError without
        OpenDP or diffprivlib.

    Examples
    --------
    >>> rows = laplace_count_rows(count=3, epsilon=1.0, n_samples=20, rng=0)
    >>> len(rows), rows[0]["library"], rows[0]["test"], rows[0]["n"]
    (7, 'dpteach', 'KS', 20)
    """
    scale = 1.0 / epsilon
    # OpenDP adds integer noise in 32 bits and saturates: the noisy counts must stay inside. With
    # P[|Z| > t] <= 2e^{-t/b} per release, t = b·ln(2n/FALSE_ALARM) bounds all n of them but for FALSE_ALARM.
    reach = abs(count) + scale * math.log(2 * n_samples / FALSE_ALARM)
    if reach > _MAX_INT32:
        raise ValueError(f"count ± noise must stay within OpenDP's 32-bit integers (|count| + (1/epsilon)·"
                         f"ln(2·n_samples/{FALSE_ALARM:g}) <= 2³¹ − 1), got count={count!r}, epsilon={epsilon!r}")
    dp, dpl = require_libraries()
    reference = stats.laplace(loc=count, scale=scale).cdf
    release = "Laplace count"
    rows = []

    exact = np.full(n_samples, float(count))
    ours = laplace_mechanism(exact, 1.0, epsilon, rng)
    rows.append(_ks_row(release, "dpteach", "laplace_mechanism(count, 1, ε)", ours, reference))
    float_laplace = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                                      dp.l1_distance(T=float), scale=scale)
    rows.append(_ks_row(release, "OpenDP", "make_laplace(float, scale=1/ε)", float_laplace(list(exact)),
                        reference))
    mechanism = dpl.mechanisms.Laplace(epsilon=epsilon, sensitivity=1.0, random_state=diffprivlib_seed(rng))
    rows.append(_ks_row(release, "diffprivlib", "Laplace(ε, sensitivity=1)",
                        [mechanism.randomise(float(count)) for _ in range(n_samples)], reference))
    rows.append(_ks_row(release, "dpteach, scale ×1.3 (deliberately wrong)", "laplace_mechanism(count, 1.3, ε)",
                        laplace_mechanism(exact, 1.3, epsilon, rng), reference, expect_reject=True))

    half_width = max(2, math.ceil(scale * math.log(n_samples / 5.0)))
    cells = discrete_laplace_cells(scale, half_width)
    int_laplace = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=scale)
    rows.append(_chi2_row(release, "OpenDP", "make_laplace(int, scale=1/ε)",
                          integer_counts(np.asarray(int_laplace([count] * n_samples)), count, half_width), cells))
    geometric = dpl.mechanisms.Geometric(epsilon=epsilon, sensitivity=1, random_state=diffprivlib_seed(rng))
    rows.append(_chi2_row(release, "diffprivlib", "Geometric(ε, sensitivity=1)",
                          integer_counts(np.array([geometric.randomise(count) for _ in range(n_samples)]),
                                          count, half_width), cells))
    rows.append(_chi2_row(release, "dpteach rounded (not the discrete law)", "round(laplace_mechanism(...))",
                          integer_counts(laplace_mechanism(exact, 1.0, epsilon, rng), count, half_width), cells,
                          expect_reject=True))
    return rows


@validate_params({"data": Array(ndim=1), "epsilon": GAUSSIAN_EPSILON, "delta": Delta(allow_zero=False),
                  "n_samples": SAMPLES, "rng": "random_state"})
def gaussian_mean_rows(data, epsilon, delta, n_samples, rng=None):
    """The mean of data in [0, 1] released with the Gaussian mechanism by the three libraries (appendix A).

    Replace-one sensitivity of the mean of n records in [0, 1] is 1/n. dpteach
    calibrates σ with the analytic Gaussian mechanism
    (:func:`~dpteach.mechanisms.gaussian_sigma`); OpenDP is given the same σ
    through its chain ``mean >> gaussian(scale=σ)`` (its scale *is* σ);
    diffprivlib's ``GaussianAnalytic`` computes its own σ from (ε, δ). Every
    library is tested by KS against N(mean, σ²); dpteach with σ×1.3 must be
    rejected.

    Parameters
    ----------
    data : array_like, shape (n,), values in [0, 1]
    epsilon : float, 0 < ε <= 709.78 (beyond it diffprivlib's analytic σ overflows)
    delta : float, 0 < δ < 1
    n_samples : int, 1 <= n_samples <= MAX_SAMPLES (10⁶)
    rng : None, int or numpy.random.Generator

    Returns
    -------
    (list of dict, float)
        The rows (as in :func:`laplace_count_rows`) and σ.

    Examples
    --------
    >>> rows, sigma = gaussian_mean_rows(np.linspace(0.05, 0.95, 8), epsilon=1.0, delta=1e-5, n_samples=20, rng=0)
    >>> len(rows), round(sigma, 4)
    (4, 0.4663)
    """
    if np.any((data < 0) | (data > 1)):
        raise ValueError("data must lie in [0, 1] (the mean's sensitivity 1/n assumes it), "
                         f"found {data[(data < 0) | (data > 1)][0]!r}")
    dp, dpl = require_libraries()
    n_records = data.size
    sensitivity = 1.0 / n_records
    sigma = gaussian_sigma(sensitivity, epsilon, delta)
    mean = float(np.mean(data))
    reference = stats.norm(loc=mean, scale=sigma).cdf
    release = "Gaussian mean"
    exact = np.full(n_samples, mean)
    rows = [_ks_row(release, "dpteach", "gaussian_mechanism(mean, 1/n, ε, δ)",
                    gaussian_mechanism(exact, sensitivity, epsilon, delta, rng), reference)]
    chain = _opendp_mean_chain(dp, n_records, sigma)
    records = list(data)
    rows.append(_ks_row(release, "OpenDP", "mean >> then_gaussian(scale=σ)",
                        [chain(records) for _ in range(n_samples)], reference))
    mechanism = dpl.mechanisms.GaussianAnalytic(epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                                                random_state=diffprivlib_seed(rng))
    rows.append(_ks_row(release, "diffprivlib", "GaussianAnalytic(ε, δ, 1/n)",
                        [mechanism.randomise(mean) for _ in range(n_samples)], reference))
    rows.append(_ks_row(release, "dpteach, σ ×1.3 (deliberately wrong)", "mean + N(0, (1.3σ)²)",
                        exact + rng.normal(0.0, 1.3 * sigma, n_samples), reference, expect_reject=True))
    return rows, sigma


def _opendp_count_chain(dp, scale):
    """OpenDP's measurement for the number of 1s among 0/1 records plus discrete Laplace noise of the given scale.

    Clamping to [0, 1] and summing is the count of ones (``make_count``
    would count the records); under the symmetric distance one added or
    removed record moves it by at most 1.
    """
    space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
    return space >> dp.t.then_clamp(bounds=(0, 1)) >> dp.t.then_sum() >> dp.m.then_laplace(scale=scale)


def _opendp_mean_chain(dp, n_records, sigma):
    """OpenDP's measurement for the mean of n records in [0, 1] plus N(0, σ²): a transformation chained with a measurement.

    The data set's size is public (``size=n``), so replacing one record is a
    symmetric distance of 2 and ``chain.map(2)`` is the zero-concentrated
    privacy loss ρ of a replace-one change.
    """
    space = (dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0), nan=False), size=n_records),
             dp.symmetric_distance())
    return space >> dp.t.then_mean() >> dp.m.then_gaussian(scale=sigma)


@validate_params({"scores": Array(ndim=1), "sensitivity": POSITIVE, "epsilon": Epsilon(), "n_samples": SAMPLES,
                  "rng": "random_state"})
def exponential_mechanism_rows(scores, sensitivity, epsilon, n_samples, rng=None):
    """The exponential mechanism done three ways, and OpenDP's pure-DP noisy max, each against its exact law (appendix A).

    - dpteach :func:`~dpteach.mechanisms.exponential_mechanism` (Gumbel-max);
    - OpenDP ``make_noisy_max`` with the zero-concentrated measure: Gumbel
      noise of scale 2Δ/ε, the same law;
    - diffprivlib ``Exponential``;
    all by χ² against exp(εq/(2Δ))/Σ. OpenDP's ``make_noisy_max`` with the
    *pure-DP* measure adds exponential noise instead: that is permute-and-flip,
    a different law with the same ε, tested against both (it must fail the
    exponential mechanism's and pass :func:`permute_and_flip_probabilities`);
    so is the deprecated ``make_report_noisy_max_gumbel``, despite its name
    (two more rows, the same two tests; omitted if OpenDP no longer has it).
    dpteach with ε×1.3 (a mis-scaled exponent) must be rejected.

    Parameters
    ----------
    scores : array_like, shape (R,), finite
    sensitivity : float, > 0
    epsilon : float, 0 < ε < inf
    n_samples : int, 1 <= n_samples <= MAX_SAMPLES (10⁶)
    rng : None, int or numpy.random.Generator

    Returns
    -------
    list of dict
        Rows as in :func:`laplace_count_rows` (NaN statistics for a point-mass law, at a
        huge ε or a tiny sensitivity). OpenDP and diffprivlib draw one
        selection per call: cost O(n_samples·R) in Python calls.

    Examples
    --------
    >>> scores = np.array([0.5, 1.5, -0.2, 0.9])
    >>> rows = exponential_mechanism_rows(scores, sensitivity=1.0, epsilon=1.0, n_samples=20, rng=0)
    >>> rows[0]["library"], rows[0]["counts"]
    ('dpteach', array([3., 6., 2., 9.]))
    """
    dp, dpl = require_libraries()
    n_candidates = scores.size
    exponential = exponential_mechanism_probabilities(scores, sensitivity, epsilon)
    flip = permute_and_flip_probabilities(scores, sensitivity, epsilon)
    release = "exponential mechanism"

    def counts(choices):
        return np.bincount(np.asarray(choices, dtype=np.int64), minlength=n_candidates)

    rows = [_chi2_row(release, "dpteach", "exponential_mechanism(q, Δ, ε)",
                      counts(exponential_mechanism(scores, sensitivity, epsilon, rng, size=n_samples)), exponential)]
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
    gumbel = dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=2 * sensitivity / epsilon)
    as_list = list(scores)
    rows.append(_chi2_row(release, "OpenDP", "make_noisy_max(zCDP, scale=2Δ/ε)",
                          counts([gumbel(as_list) for _ in range(n_samples)]), exponential))
    mechanism = dpl.mechanisms.Exponential(epsilon=epsilon, sensitivity=sensitivity, utility=as_list,
                                           random_state=diffprivlib_seed(rng))
    rows.append(_chi2_row(release, "diffprivlib", "Exponential(ε, Δ, utility)",
                          counts([mechanism.randomise() for _ in range(n_samples)]), exponential))
    rows.append(_chi2_row(release, "dpteach, ε ×1.3 (deliberately wrong)", "exponential_mechanism(q, Δ, 1.3ε)",
                          counts(exponential_mechanism(scores, sensitivity, 1.3 * epsilon, rng, size=n_samples)),
                          exponential, expect_reject=True))
    pure = dp.m.make_noisy_max(*space, dp.max_divergence(), scale=2 * sensitivity / epsilon)
    pure_counts = counts([pure(as_list) for _ in range(n_samples)])
    rows.append(_chi2_row(release, "OpenDP pure-DP noisy max vs the exponential mechanism",
                          "make_noisy_max(max_divergence, scale=2Δ/ε)", pure_counts, exponential,
                          expect_reject=True))
    rows.append(_chi2_row("permute-and-flip", "OpenDP", "make_noisy_max(max_divergence, scale=2Δ/ε)",
                          pure_counts, flip))
    # The deprecated make_report_noisy_max_gumbel (still in OpenDP 0.16): despite its name, it is the
    # exponential-noise (pure-DP) noisy max. Its output law must fail the exponential mechanism's and pass
    # permute-and-flip's, like the pure-DP rows above. Skipped if a later OpenDP removes it.
    alias_maker = getattr(dp.m, "make_report_noisy_max_gumbel", None)
    if alias_maker is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            alias = alias_maker(*space, scale=2 * sensitivity / epsilon)
        call = f"make_report_noisy_max_gumbel(scale=2Δ/ε), measure {alias.output_measure}"
        alias_counts = counts([alias(as_list) for _ in range(n_samples)])
        rows.append(_chi2_row(release, "OpenDP make_report_noisy_max_gumbel vs the exponential mechanism", call,
                              alias_counts, exponential, expect_reject=True))
        rows.append(_chi2_row("permute-and-flip", "OpenDP make_report_noisy_max_gumbel", call, alias_counts, flip))
    return rows


@validate_params({"epsilon": KEEP_EPSILON, "n_samples": SAMPLES, "rng": "random_state"})
def randomized_response_rows(epsilon, n_samples, rng=None):
    """Randomized response on one bit (the true answer 1) by the three libraries (appendix A).

    Each release keeps the bit with probability e^ε/(1 + e^ε): dpteach
    :func:`~dpteach.mechanisms.randomized_response`, OpenDP
    ``make_randomized_response_bool(prob)`` (it takes the keep probability,
    not ε), diffprivlib ``Binary(ε)``. χ² with 2 cells (1 df); dpteach at
    1.3ε must be rejected.

    Parameters
    ----------
    epsilon : float, 0 < ε <= 36
        (Beyond 36 the keep probability rounds to 1 in floating point.)
    n_samples : int, 1 <= n_samples <= MAX_SAMPLES (10⁶)
    rng : None, int or numpy.random.Generator

    Returns
    -------
    list of dict
        Rows as in :func:`laplace_count_rows`. Cost O(n_samples) per library.

    Raises
    ------
    ValueError, TypeError
        For ε outside (0, 36], bad ``n_samples`` or ``rng``; ImportError
        without OpenDP or diffprivlib.

    Examples
    --------
    >>> rows = randomized_response_rows(epsilon=1.0, n_samples=20, rng=0)
    >>> rows[0]["library"], rows[0]["counts"]
    ('dpteach', array([ 6., 14.]))
    """
    keep = _keep_probability(epsilon)
    dp, dpl = require_libraries()
    cells = np.array([1 - keep, keep])
    release = "randomized response"

    def counts(bits):
        ones = int(np.sum(np.asarray(bits, dtype=float)))
        return np.array([n_samples - ones, ones])

    truth = np.ones(n_samples, dtype=bool)
    rows = [_chi2_row(release, "dpteach", "randomized_response(1, ε)", counts(randomized_response(truth, epsilon, rng)),
                      cells)]
    opendp_rr = dp.m.make_randomized_response_bool(prob=keep)
    rows.append(_chi2_row(release, "OpenDP", "make_randomized_response_bool(prob=e^ε/(1+e^ε))",
                          counts([opendp_rr(True) for _ in range(n_samples)]), cells))
    binary = dpl.mechanisms.Binary(epsilon=epsilon, value0="0", value1="1", random_state=diffprivlib_seed(rng))
    rows.append(_chi2_row(release, "diffprivlib", "Binary(ε, '0', '1')",
                          counts([binary.randomise("1") == "1" for _ in range(n_samples)]), cells))
    rows.append(_chi2_row(release, "dpteach, ε ×1.3 (deliberately wrong)", "randomized_response(1, 1.3ε)",
                          counts(randomized_response(truth, 1.3 * epsilon, rng)), cells, expect_reject=True))
    return rows


@validate_params({"epsilon": KEEP_EPSILON, "delta": Delta(allow_zero=False),
                  "n_records": FiniteInterval(Integral, 1, _MAX_INT32, closed="both"), "scores_sensitivity": POSITIVE})
def privacy_claims(epsilon, delta, n_records, scores_sensitivity=1.0):
    """What each library's own accounting says about the same four releases (appendix A, the API table).

    dpteach's functions *take* ε (and δ) and calibrate the noise; OpenDP's
    measurements take the noise scale and *report* the privacy loss through
    their map ``m.map(d_in)``; diffprivlib's mechanisms take ε and charge a
    ``BudgetAccountant``. Neighbours are replace-one throughout, which is a
    symmetric distance of 2 in OpenDP's add/remove metric.

    Parameters
    ----------
    epsilon : float, 0 < ε <= 36 (randomized response's keep probability must stay below 1)
    delta : float, 0 < δ < 1 (for the Gaussian mean)
    n_records : int, 1 <= n_records <= 2³¹ − 1 (the mean's data set size; OpenDP's sizes are 32-bit)
    scores_sensitivity : float, > 0 (Δ of the exponential mechanism's scores)

    Returns
    -------
    list of dict
        release, dpteach, OpenDP, diffprivlib: strings for a table.

    Examples
    --------
    >>> rows = privacy_claims(epsilon=1.0, delta=1e-5, n_records=10, scores_sensitivity=1.0)
    >>> rows[0]["OpenDP"]
    'map(1) = 1 (add/remove); map(2) = 2 (replace-one)'
    """
    keep = _keep_probability(epsilon)
    dp, dpl = require_libraries()
    rows = []

    count = _opendp_count_chain(dp, 1.0 / epsilon)
    accountant = dpl.BudgetAccountant()
    dpl.tools.count_nonzero(np.ones(10), epsilon=epsilon, accountant=accountant)
    rows.append({"release": "Laplace count (scale 1/ε)",
                 "dpteach": f"ε = {epsilon:g} (you pass ε; sensitivity 1)",
                 "OpenDP": f"map(1) = {count.map(1):.4g} (add/remove); map(2) = {count.map(2):.4g} (replace-one)",
                 "diffprivlib": f"accountant.total() = {_total(accountant)}"})

    sigma = gaussian_sigma(1.0 / n_records, epsilon, delta)
    chain = _opendp_mean_chain(dp, n_records, sigma)
    rho = chain.map(2)
    profile = dp.c.make_zCDP_to_approxDP(chain).map(2)
    diffprivlib_sigma = dpl.mechanisms.GaussianAnalytic(epsilon=epsilon, delta=delta,
                                                        sensitivity=1.0 / n_records)._scale
    rows.append({"release": f"Gaussian mean (n = {n_records}, σ = {sigma:.4g})",
                 "dpteach": f"(ε, δ) = ({epsilon:g}, {delta:g}), analytic σ",
                 "OpenDP": f"map(2) = ρ = {rho:.4g} (zCDP) → ε = {profile.epsilon(delta):.4g} at δ = {delta:g}",
                 "diffprivlib": f"GaussianAnalytic picks σ = {diffprivlib_sigma:.4g}"})

    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
    scale = 2 * scores_sensitivity / epsilon
    gumbel = dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=scale)
    pure = dp.m.make_noisy_max(*space, dp.max_divergence(), scale=scale)
    rows.append({"release": "exponential mechanism (scale 2Δ/ε)",
                 "dpteach": f"ε = {epsilon:g}",
                 "OpenDP": f"Gumbel: map(Δ) = ρ = {gumbel.map(scores_sensitivity):.4g} (= ε²/8); "
                           f"permute-and-flip: map(Δ) = ε = {pure.map(scores_sensitivity):.4g}",
                 "diffprivlib": f"Exponential(ε = {epsilon:g})"})

    response = dp.m.make_randomized_response_bool(prob=keep)
    rows.append({"release": "randomized response",
                 "dpteach": f"ε = {epsilon:g}",
                 "OpenDP": f"prob = {keep:.4g}; map(1) = {response.map(1):.4g}",
                 "diffprivlib": f"Binary(ε = {epsilon:g})"})
    return rows


def _total(accountant):
    spent = accountant.total()
    return f"(ε, δ) = ({spent[0]:.4g}, {spent[1]:g})"
