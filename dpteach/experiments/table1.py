"""Chapter 9 runners: the three halfspace learners of Table 1 side by side, and against convex-surrogate peers.

The learners (one name each, used as keys everywhere):

* ``"improper"`` — :class:`dpteach.improper.PrivateHermiteL1Learner` (Algorithm 6.10; Table 1, row 1);
* ``"proper"`` — :class:`dpteach.proper.PrivateProperLearner` (Algorithm 7.7; row 3);
* ``"semi_agnostic"`` — :class:`dpteach.dpsas.PrivateSemiAgnosticLearner` (Algorithm 8.9; row 4);
* ``"dp_sgd"`` — :class:`dpteach.dp_logistic.DPSGDLogisticRegression` (Algorithm 9.2);
* ``"diffprivlib"`` — ``diffprivlib.models.LogisticRegression`` (objective perturbation, ε-DP);
* ``"logistic"`` — ``sklearn.linear_model.LogisticRegression`` (non-private baseline).

diffprivlib and scikit-learn are optional: they are imported inside the functions that use them,
and a comparison that asks for them without them installed skips those peers with a message
(:func:`peers_available`). Nothing else in dpteach depends on them.

Data (``kind``): ``"rcn"`` — x ~ N(0, I_d), y = sign(x₁ − t*) flipped independently with probability
η₀ (OPT = η₀); ``"structured"`` — the same target flipped on the slab {x₂ > z_{1−η₀}} (chapter 6;
OPT from :func:`dpteach.data.structured_noise_opt`). Test errors are Monte Carlo estimates on one
fresh test set per (kind, repetition), shared by every learner, so that differences between
learners are paired (standard error of one estimate ≤ 0.5/√n_test).
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
from scipy import optimize

from .. import bounds, data
from .._validation import (as_rng, check_choice, check_delta, check_epsilon, check_epsilon_sweep,
                           check_int, check_labels, check_positive, check_positive_array,
                           check_probability, check_real_array, check_same_length, check_sizes, check_sweep)
from ..dp_logistic import DPSGDLogisticRegression
from ..dpsas import PrivateSemiAgnosticLearner
from ..hermite import feature_dimension
from ..improper import PrivateHermiteL1Learner
from ..proper import PrivateProperLearner, degree_for_accuracy
from ._progress import check_repetitions, progress

__all__ = [
    "KINDS",
    "LEARNERS",
    "AGNOSTIC_LEARNERS",
    "PEERS",
    "LABELS",
    "SETTINGS",
    "QUICK",
    "peers_available",
    "make_problem",
    "fit_learner",
    "run_comparison",
    "mean_error",
    "n_needed",
    "sample_complexity_shape",
    "excess_error_shape",
    "fit_shape_constant",
    "complexity_shape",
    "runtime_vs_d",
    "winner_table",
    "format_winner_table",
    "surrogate_gap",
]

KINDS = ("rcn", "structured")
AGNOSTIC_LEARNERS = ("improper", "proper", "semi_agnostic")
PEERS = ("dp_sgd", "diffprivlib", "logistic")
LEARNERS = AGNOSTIC_LEARNERS + PEERS
#: Legend labels (chapter numbers, no internal names).
LABELS = {"improper": "Algorithm 6.10 (improper, L1 poly.)", "proper": "Algorithm 7.7 (proper, cover)",
          "semi_agnostic": "Algorithm 8.9 (semi-agnostic)", "dp_sgd": "DP-SGD logistic (Algorithm 9.2)",
          "diffprivlib": "diffprivlib logistic (obj. perturbation)", "logistic": "logistic, non-private"}
#: Which peers need which optional package.
_REQUIRES = {"diffprivlib": ("diffprivlib", "sklearn"), "logistic": ("sklearn",)}

#: The learners' parameters at notebook scale (our choices; the theorems' constants are far larger).
#: ``data_norm_factor``: diffprivlib's public row-norm bound is this times √d (rows beyond it are clipped).
SETTINGS = {
    "improper": {"alpha": 0.1, "beta": 0.25, "n_iterations": 300},
    "proper": {"alpha": 0.1},
    "semi_agnostic": {"alpha": 0.05},
    "dp_sgd": {"clip_norm": 1.0, "n_epochs": 5, "learning_rate": 0.5},
    "diffprivlib": {"data_norm_factor": 2.0},
    "logistic": {},
}
#: The chapter's quick settings (notebook ≤ 60 s on 2 cores).
QUICK = {"d": 3, "ns": (2000, 5000, 15_000, 40_000, 100_000), "epsilons": (0.5, 1.0, 2.0, 4.0), "n_reps": 2,
         "n_test": 50_000, "threshold": 0.3, "noise": 0.1, "delta": 1e-5}


def peers_available(learners=PEERS):
    """(True, "") if every optional package the given learners need imports, else (False, a message naming them).

    Parameters
    ----------
    learners : non-empty sequence of str (not a bare string)
        Names from :data:`LEARNERS`.

    Returns
    -------
    (bool, str). Cost: one import attempt per package.

    Raises
    ------
    TypeError, ValueError
        For an unknown learner name, an empty sequence or one that is not a sequence of names.
    """
    learners = _check_names(learners, "learners")
    missing = []
    for name in learners:
        for package in _REQUIRES.get(name, ()):
            try:
                __import__(package)
            except ImportError:
                if package not in missing:
                    missing.append(package)
    if not missing:
        return True, ""
    names = {"sklearn": "scikit-learn"}
    wanted = ", ".join(names.get(p, p) for p in missing)
    return False, (f"skipped the peers that need {wanted}: not installed "
                   f"(pip install -r requirements.txt installs them)")


def _check_names(names, name, choices=LEARNERS):
    # A bare string would be iterated letter by letter; None or a number is not a sequence at all.
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise TypeError(f"{name} must be a sequence of names from {', '.join(map(repr, choices))}, got {names!r}")
    names = list(names)
    if not names:
        raise ValueError(f"{name} must be a non-empty sequence of names from {', '.join(map(repr, choices))}")
    for value in names:
        if not isinstance(value, str) or value not in choices:
            raise ValueError(f"every entry of {name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return names


def _check_noise(noise, name="noise"):
    noise = check_probability(noise, name, low_open=False)
    if noise >= 0.5:
        raise ValueError(f"{name} must lie in [0, 0.5), got {noise!r}")
    return noise


def _check_kind_problem(kind, threshold, noise):
    check_choice(kind, "kind", KINDS)
    threshold = float(check_real_array(threshold, "threshold", ndim=0))
    return threshold, _check_noise(noise)


def _check_with_gaps(values, name, ndim=None):
    """``values`` as a float array in which NaN marks a missing entry (a skipped run); nothing else non-finite.

    dpteach._validation's array checkers refuse NaN, which here is data, so this one checks type, shape,
    emptiness and ±inf itself.
    """
    try:
        arr = np.asarray(values)
    except ValueError as err:  # a ragged nested list
        raise ValueError(f"{name} must be a rectangular array of numbers: {err}") from None
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an array of real numbers (NaN for a missing entry), got {values!r}")
    arr = arr.astype(float)
    if ndim is not None and arr.ndim not in ndim:
        raise ValueError(f"{name} must have {' or '.join(map(str, ndim))} dimension(s), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got an array of shape {arr.shape}")
    if np.any(np.isinf(arr)):
        raise ValueError(f"{name} must not contain inf (NaN marks a missing entry), found {arr[np.isinf(arr)][0]!r}")
    return arr


def _problem(kind, n, d, rng, threshold, noise):
    if kind == "rcn":
        X, y, _ = data.gaussian_halfspace_data(n, d, threshold=threshold, noise_rate=noise, rng=rng)
        return X, y, noise
    X, y = data.structured_noise_halfspace_data(n, d, threshold=threshold, noise_mass=noise, rng=rng)
    return X, y, data.structured_noise_opt(threshold, noise)[0]


def make_problem(kind, n, d, rng=None, threshold=0.3, noise=0.1):
    """(X, y, OPT) for ``kind`` "rcn" (OPT = η₀ exactly) or "structured" (OPT by the exact 2-D search).

    Parameters
    ----------
    kind : {"rcn", "structured"}
    n : int ≥ 1
    d : int ≥ 2
    rng : seed or Generator
    threshold : float
        t* of the target sign(x₁ − t*).
    noise : float in [0, 1/2)
        η₀: the RCN rate, or the mass of the flipped slab.

    Returns
    -------
    (X, y, opt). Cost O(n·d) (plus about 1 s, once, for a new structured OPT).

    Raises
    ------
    TypeError, ValueError
        For an unknown kind, n < 1, d < 2, a bad threshold, noise or rng.
    """
    threshold, noise = _check_kind_problem(kind, threshold, noise)
    n = check_int(n, "n", minimum=1)
    d = check_int(d, "d", minimum=2)
    return _problem(kind, n, d, as_rng(rng), threshold, noise)


def _fit(name, X, y, epsilon, delta, rng, settings):
    s = settings[name]
    seed = int(rng.integers(2 ** 31))
    if name == "improper":
        return PrivateHermiteL1Learner(s["alpha"], epsilon, delta, beta=s["beta"], n_iterations=s["n_iterations"],
                                       random_state=seed).fit(X, y)
    if name == "proper":
        return PrivateProperLearner(s["alpha"], epsilon, delta, random_state=seed).fit(X, y)
    if name == "semi_agnostic":
        return PrivateSemiAgnosticLearner(s["alpha"], epsilon, delta, random_state=seed).fit(X, y)
    if name == "dp_sgd":
        return DPSGDLogisticRegression(epsilon, delta, clip_norm=s["clip_norm"], n_epochs=s["n_epochs"],
                                       learning_rate=s["learning_rate"], random_state=seed).fit(X, y)
    if name == "diffprivlib":
        from diffprivlib.accountant import BudgetAccountant
        from diffprivlib.models import LogisticRegression

        # A fresh accountant per fit: diffprivlib's default one is global and would add up every fit.
        norm = s["data_norm_factor"] * math.sqrt(X.shape[1])
        model = LogisticRegression(epsilon=epsilon, data_norm=norm, random_state=seed, accountant=BudgetAccountant())
        with warnings.catch_warnings():
            # diffprivlib 0.6.6 passes an L-BFGS-B option that SciPy ≥ 1.15 deprecates: not our reader's concern.
            warnings.filterwarnings("ignore", message=".*L-BFGS-B.*", category=DeprecationWarning)
            return model.fit(X, y)
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression().fit(X, y)


def _settings(settings):
    merged = {name: dict(values) for name, values in SETTINGS.items()}
    if settings is not None and not isinstance(settings, dict):
        raise TypeError(f"settings must be None or a dict {{learner: {{parameter: value}}}}, got {settings!r}")
    for name, values in (settings or {}).items():
        check_choice(name, "settings key", LEARNERS)
        if not isinstance(values, dict):
            raise TypeError(f"settings[{name!r}] must be a dict {{parameter: value}}, got {values!r}")
        merged[name].update(values)
    return merged


def fit_learner(name, X, y, epsilon, delta=1e-5, rng=None, settings=None):
    """Fit one of :data:`LEARNERS` with the chapter's settings (:data:`SETTINGS`, overridable); returns it.

    The private learners are (ε, δ)-DP (diffprivlib's is ε-DP); ``"logistic"`` ignores ε and δ
    and is not private.

    Parameters
    ----------
    name : str in :data:`LEARNERS`
    X : array_like (n, d), y : array_like (n,) in {−1, +1}
    epsilon : float, 0 < ε < inf
    delta : float in (0, 1)
    rng : seed or Generator (draws the learner's seed)
    settings : dict, optional
        {learner: {parameter: value}} overriding :data:`SETTINGS`.

    Returns
    -------
    The fitted estimator (it has ``predict`` and ``score``). Cost: that learner's.

    Raises
    ------
    TypeError, ValueError
        For an unknown name, bad ε, δ or rng, or whatever the learner refuses;
        ImportError for a peer whose package is missing.
    """
    check_choice(name, "name", LEARNERS)
    # Checked here too, so that the optional peers (diffprivlib, scikit-learn) get the same named errors.
    X = check_real_array(X, "X", ndim=2)
    y = check_labels(y, "y")
    check_same_length(X, y)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    rng = as_rng(rng)
    return _fit(name, X, y, epsilon, delta, rng, _settings(settings))


def run_comparison(kinds=KINDS, epsilons=QUICK["epsilons"], ns=QUICK["ns"], learners=LEARNERS, d=QUICK["d"],
                   n_reps=QUICK["n_reps"], n_test=QUICK["n_test"], threshold=QUICK["threshold"],
                   noise=QUICK["noise"], delta=QUICK["delta"], settings=None, rng=0):
    """Test error of every learner on the grid kind × ε × n, over ``n_reps`` datasets (Figures 9.1–9.2, Table 9.1).

    For each kind and repetition one training set of size max(ns) and one test set are drawn; the
    sample of size n is the first n rows (nested prefixes), and every learner and every ε sees the
    same rows. ``"logistic"`` does not depend on ε: it is fitted once per (kind, n, repetition).

    Parameters
    ----------
    kinds : non-empty sequence of {"rcn", "structured"}
    epsilons : float > 0 or non-empty 1-D sequence of them
    ns : int ≥ 100 or non-empty 1-D sequence of them
    learners : non-empty sequence of names from :data:`LEARNERS`
    d : int ≥ 2
    n_reps : int ≥ 1
    n_test : int ≥ 100
    threshold, noise : as in :func:`make_problem`
    delta : float in (0, 1)
    settings : dict, optional (see :func:`fit_learner`)
    rng : seed or Generator

    Returns
    -------
    dict with
        ``"error"``: {learner: array (kinds, ε, n, reps)} test errors (NaN where a learner was skipped
        or refused the sample size); ``"seconds"``: the same shape, fit times;
        ``"opt"``: array (kinds,); ``"kinds"``, ``"epsilons"``, ``"ns"``, ``"learners"``, ``"d"``;
        ``"skipped"``: a message ("" if nothing was skipped).
        Cost: Σ over learners of their fit cost on the whole grid.

    Raises
    ------
    TypeError, ValueError
        For any argument out of range or an unknown name.
    """
    kinds = _check_names(kinds, "kinds", KINDS)
    epsilons = check_epsilon_sweep(epsilons, "epsilons")
    ns = check_sizes(ns, "ns", minimum=100)
    learners = _check_names(learners, "learners")
    d = check_int(d, "d", minimum=2)
    n_reps = check_repetitions(n_reps)
    n_test = check_int(n_test, "n_test", minimum=100)
    threshold, noise = _check_kind_problem(kinds[0], threshold, noise)
    delta = check_delta(delta, allow_zero=False)
    settings = _settings(settings)
    rng = as_rng(rng)

    ok, message = peers_available([name for name in learners if name in PEERS])
    if not ok:
        warnings.warn(message, stacklevel=2)
        learners_run = [name for name in learners if not set(_REQUIRES.get(name, ())) - _importable()]
    else:
        learners_run = list(learners)
    shape = (len(kinds), len(epsilons), len(ns), n_reps)
    error = {name: np.full(shape, np.nan) for name in learners}
    seconds = {name: np.full(shape, np.nan) for name in learners}
    opts = np.empty(len(kinds))
    for a, kind in enumerate(kinds):
        for r in progress(range(n_reps), f"{kind}: datasets"):
            X, y, opt = _problem(kind, max(ns), d, rng, threshold, noise)
            X_test, y_test, _ = _problem(kind, n_test, d, rng, threshold, noise)
            opts[a] = opt
            for c, n in enumerate(ns):
                for name in learners_run:
                    for b, eps in enumerate(epsilons):
                        if name == "logistic" and b > 0:  # ε-independent: copy the first fit
                            error[name][a, b, c, r] = error[name][a, 0, c, r]
                            seconds[name][a, b, c, r] = seconds[name][a, 0, c, r]
                            continue
                        start = time.perf_counter()
                        try:
                            model = _fit(name, X[:n], y[:n], eps, delta, rng, settings)
                        except ValueError:  # e.g. Algorithm 8.9 refuses an n below its block sizes
                            continue
                        seconds[name][a, b, c, r] = time.perf_counter() - start
                        error[name][a, b, c, r] = 1.0 - model.score(X_test, y_test)
    return {"error": error, "seconds": seconds, "opt": opts, "kinds": list(kinds), "epsilons": epsilons,
            "ns": np.array(ns), "learners": list(learners), "d": d, "skipped": "" if ok else message}


def _importable():
    found = set()
    for package in ("diffprivlib", "sklearn"):
        try:
            __import__(package)
            found.add(package)
        except ImportError:
            pass
    return found


def mean_error(errors):
    """Mean over the last axis (repetitions), ignoring NaN; NaN where every repetition is NaN.

    Parameters
    ----------
    errors : array_like, at least 1-D (NaN allowed: skipped runs)

    Returns
    -------
    numpy.ndarray (one axis fewer). Cost O(size).

    Raises
    ------
    TypeError, ValueError
        For a non-numeric (strings, booleans), ragged, empty or 0-D array, or ±inf.
    """
    arr = _check_with_gaps(errors, "errors")
    if arr.ndim < 1:
        raise ValueError(f"errors must be a non-empty array with a repetitions axis, got shape {arr.shape}")
    return _mean_error(arr)


def _mean_error(arr):
    valid = np.isfinite(arr)
    count = valid.sum(axis=-1)
    total = np.where(valid, arr, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def n_needed(ns, errors, target):
    """Smallest n at which the mean error reaches ``target``, interpolating log n linearly between grid points.

    Figure 9.2's measurement: the target is OPT + α for the agnostic learners and C·OPT + α for the
    semi-agnostic one. The first grid point at or below the target is found; between it and the
    previous point the crossing is interpolated in (log n, error). NaN if the target is never reached;
    ns[0] if it is reached at once (the true n may be smaller).

    Parameters
    ----------
    ns : 1-D array_like of whole numbers ≥ 1, strictly increasing
    errors : array_like, shape (len(ns), reps) or (len(ns),) (NaN entries are ignored; no ±inf)
    target : float or array_like of targets

    Returns
    -------
    float or numpy.ndarray (one per target). Cost O(len(ns)·len(target)).

    Raises
    ------
    TypeError, ValueError
        For non-increasing, fractional or non-positive ns, mismatched lengths, a non-numeric errors,
        a non-finite or non-numeric target.
    """
    if np.ndim(ns) != 1:
        raise ValueError(f"ns must be a strictly increasing 1-D array of sample sizes, got {ns!r}")
    ns = np.array(check_sizes(ns, "ns"), dtype=float)
    if np.any(np.diff(ns) <= 0):
        raise ValueError(f"ns must be a strictly increasing 1-D array, got {ns!r}")
    errors = _check_with_gaps(errors, "errors", ndim=(1, 2))
    mean = _mean_error(errors[:, None] if errors.ndim == 1 else errors)
    if mean.shape != ns.shape:
        raise ValueError(f"errors must have one row per n ({ns.size}), got shape {errors.shape}")
    targets = check_real_array(target, "target", ndim=(0, 1))
    out = np.full(targets.shape, np.nan).ravel()
    for i, t in enumerate(targets.ravel()):
        below = np.flatnonzero(np.isfinite(mean) & (mean <= t))
        if below.size == 0:
            continue
        j = below[0]
        if j == 0 or not np.isfinite(mean[j - 1]):
            out[i] = ns[j]
            continue
        # Linear in log n between (n_{j−1}, e_{j−1} > t) and (n_j, e_j ≤ t).
        fraction = (mean[j - 1] - t) / (mean[j - 1] - mean[j])
        out[i] = math.exp(math.log(ns[j - 1]) + fraction * (math.log(ns[j]) - math.log(ns[j - 1])))
    return float(out[0]) if targets.ndim == 0 else out.reshape(targets.shape)


def _shape_degree(name, settings):
    if name == "improper":
        return 3  # the degree PrivateHermiteL1Learner uses at α = 0.1: min(5, ⌈0.3/α⌉) = 3
    return degree_for_accuracy(settings["proper"]["alpha"])


def sample_complexity_shape(name, alpha, epsilon, d, degree=None):
    """Table 1's sample size of ``name`` at accuracy α, **shape only** (constants and logs dropped).

    * ``"improper"``: D_p/α² + D_p/(εα) (Theorem 6.12; ``bounds.hermite_l1_sample_complexity``);
    * ``"proper"``: D_p/α² + D_p/(εα) + α⁻⁶ + 1/(εα⁵) (Theorem 7.8; ``bounds.proper_sample_complexity_shape``);
    * ``"semi_agnostic"``: d/α² + d/(εα) (Theorem 8.10; ``bounds.dpsas_sample_complexity_rate``).

    The degree p is held fixed (the learners' practical degree; the theorems take p ≈ 1/α²).

    Parameters
    ----------
    name : {"improper", "proper", "semi_agnostic"}
    alpha : float or array_like in (0, 1/2)
    epsilon : float > 0
    d : int ≥ 1
    degree : int ≥ 1, optional (default: the practical degree, 3 or 4)

    Returns
    -------
    float or numpy.ndarray. Cost O(len(α)).

    Raises
    ------
    TypeError, ValueError
        For an unknown name or arguments out of range.
    """
    check_choice(name, "name", AGNOSTIC_LEARNERS)
    alphas = check_positive_array(alpha, "alpha")
    if np.any(alphas >= 0.5):
        raise ValueError(f"alpha must lie in (0, 0.5), got {alpha!r}")
    epsilon = check_epsilon(epsilon)
    d = check_int(d, "d", minimum=1)
    degree = _shape_degree(name, SETTINGS) if degree is None else check_int(degree, "degree", minimum=1)
    if name == "improper":
        values = [bounds.hermite_l1_sample_complexity(d, degree, float(a), epsilon) for a in alphas.ravel()]
    elif name == "proper":
        values = [bounds.proper_sample_complexity_shape(float(a), epsilon, d, degree) for a in alphas.ravel()]
    else:
        values = [bounds.dpsas_sample_complexity_rate(d, float(a), epsilon) for a in alphas.ravel()]
    values = np.array(values, dtype=float).reshape(alphas.shape)
    return float(values) if values.ndim == 0 else values


def excess_error_shape(name, ns, epsilon, d, constant=1.0, degree=None):
    """The α at which ``constant · sample_complexity_shape(name, α, ε, d) = n``, for each n: the excess-error shape.

    Inverts the Table 1 rate numerically (the shape decreases in α), so a figure can draw
    "excess ≈ α(n)" next to the measured excess. **Shape only**; ``constant`` is fitted by
    :func:`fit_shape_constant`. Values are capped at 0.5 (no excess above 1/2 makes sense).

    Parameters
    ----------
    name : {"improper", "proper", "semi_agnostic"}
    ns : array_like of float > 0
    epsilon : float > 0
    d : int ≥ 1
    constant : float > 0
    degree : int ≥ 1, optional

    Returns
    -------
    numpy.ndarray, same shape as ns. Cost O(len(ns)·root finding).

    Raises
    ------
    TypeError, ValueError
        For an unknown name or arguments out of range.
    """
    check_choice(name, "name", AGNOSTIC_LEARNERS)
    ns = check_positive_array(ns, "ns")
    epsilon = check_epsilon(epsilon)
    d = check_int(d, "d", minimum=1)
    constant = check_positive(constant, "constant")
    degree = _shape_degree(name, SETTINGS) if degree is None else check_int(degree, "degree", minimum=1)
    out = np.empty(ns.shape)
    for index, n in np.ndenumerate(ns):
        def gap(log_alpha):
            return math.log(constant * sample_complexity_shape(name, math.exp(log_alpha), epsilon, d, degree)) \
                - math.log(n)
        low, high = math.log(1e-8), math.log(0.4999)
        if gap(high) >= 0:
            out[index] = 0.5
        else:
            out[index] = math.exp(optimize.brentq(gap, low, high, xtol=1e-10))
    return out


def fit_shape_constant(measured, shape):
    """The c minimising Σ (log measured − log(c·shape))² over the pairs where both are finite and > 0.

    The Table 1 rates are shapes; one fitted constant per learner puts the curve on the figure's
    scale (geometric mean of measured/shape). Returns NaN when no pair is usable.

    Parameters
    ----------
    measured, shape : array_like of the same shape, non-empty (NaN marks a missing value; no ±inf)

    Returns
    -------
    float. Cost O(size).

    Raises
    ------
    TypeError, ValueError
        For arrays of different shapes, empty or non-numeric arrays, ±inf.
    """
    measured = _check_with_gaps(measured, "measured")
    shape = _check_with_gaps(shape, "shape")
    if measured.shape != shape.shape:
        raise ValueError(f"measured and shape must have the same shape, got {measured.shape} and {shape.shape}")
    usable = np.isfinite(measured) & np.isfinite(shape) & (measured > 0) & (shape > 0)
    if not np.any(usable):
        return math.nan
    return float(np.exp(np.mean(np.log(measured[usable]) - np.log(shape[usable]))))


def complexity_shape(name, d, n, settings=None):
    """The stated running time of ``name`` at dimension d and sample size n, **shape only** (constants 1).

    * ``"improper"``: n·D_p (features) plus K·n·D_p (K = the fixed iteration count): K·n·D_p;
    * ``"proper"``: n·D_p (one pass of Hermite correlations) plus n·|H(q)|, |H(q)| independent of d
      with dim V capped (Table 1's exp(O(α⁻⁴ log 1/α)) factor is then a constant): n·D_p;
    * ``"semi_agnostic"``: n·d·log(1/α) (Table 1, row 4);
    * ``"dp_sgd"``: E·n·d (Algorithm 9.2).

    Parameters
    ----------
    name : {"improper", "proper", "semi_agnostic", "dp_sgd"}
    d : int ≥ 1 or non-empty 1-D sequence of them
    n : int ≥ 1
    settings : dict, optional (see :func:`fit_learner`)

    Returns
    -------
    float or numpy.ndarray. Cost O(len(d)).

    Raises
    ------
    TypeError, ValueError
        For an unknown name or arguments out of range.
    """
    check_choice(name, "name", ("improper", "proper", "semi_agnostic", "dp_sgd"))
    n = check_int(n, "n", minimum=1)
    s = _settings(settings)
    ds = check_sizes(d, "d", minimum=1)
    out = []
    for dim in ds:
        if name == "improper":
            out.append(s["improper"]["n_iterations"] * n * feature_dimension(dim, _shape_degree(name, s)))
        elif name == "proper":
            out.append(n * feature_dimension(dim, _shape_degree(name, s)))
        elif name == "semi_agnostic":
            out.append(n * dim * math.log(1 / s["semi_agnostic"]["alpha"]))
        else:
            out.append(s["dp_sgd"]["n_epochs"] * n * dim)
    out = np.array(out, dtype=float)
    return float(out[0]) if np.ndim(d) == 0 else out


def runtime_vs_d(ds, n=10_000, epsilon=1.0, learners=("improper", "proper", "semi_agnostic", "dp_sgd"),
                 n_reps=1, kind="rcn", settings=None, rng=0):
    """Fit time (seconds, best of ``n_reps``) of each learner for each dimension d (Figure 9.3).

    Wall-clock time on a shared machine is noisy; the best of several runs is the usual estimate of
    the cost itself. Compare with :func:`complexity_shape`.

    Parameters
    ----------
    ds : int ≥ 2 or non-empty 1-D sequence of them
    n : int ≥ 100
    epsilon : float > 0
    learners : sequence of names from :data:`LEARNERS`
    n_reps : int ≥ 1
    kind : {"rcn", "structured"}
    settings : dict, optional
    rng : seed or Generator

    Returns
    -------
    dict {learner: numpy.ndarray (len(ds),)} of seconds (NaN where skipped). Cost Σ fits.

    Raises
    ------
    TypeError, ValueError
        For any argument out of range or an unknown name.
    """
    ds = check_sizes(ds, "ds", minimum=2)
    n = check_int(n, "n", minimum=100)
    epsilon = check_epsilon(epsilon)
    learners = _check_names(learners, "learners")
    n_reps = check_repetitions(n_reps)
    check_choice(kind, "kind", KINDS)
    settings = _settings(settings)
    rng = as_rng(rng)
    available = _importable()
    out = {name: np.full(len(ds), np.nan) for name in learners}
    for i, d in enumerate(progress(ds, "d")):
        X, y, _ = _problem(kind, n, d, rng, QUICK["threshold"], QUICK["noise"])
        for name in learners:
            if set(_REQUIRES.get(name, ())) - available:
                continue
            best = math.inf
            for _ in range(n_reps):
                start = time.perf_counter()
                _fit(name, X, y, epsilon, QUICK["delta"], rng, settings)
                best = min(best, time.perf_counter() - start)
            out[name][i] = best
    return out


def winner_table(result, learners=None):
    """Table 9.1: for each (kind, ε, n), the learner with the smallest mean test error, and by how much.

    Parameters
    ----------
    result : dict from :func:`run_comparison`
    learners : sequence of names, optional
        The contestants (default: every *private* learner in ``result``; the non-private
        ``"logistic"`` is a baseline, not a contestant).

    Returns
    -------
    list of dict rows {"kind", "epsilon", "n", "winner", "error", "runner_up", "runner_up_error",
    "opt", "logistic"} (``logistic`` NaN if it was not run). Cost O(size of result).

    Raises
    ------
    TypeError, ValueError
        For a malformed result or a learner it does not contain.
    """
    keys = {"error", "learners", "kinds", "epsilons", "ns", "opt"}
    if not isinstance(result, dict) or not keys <= set(result) or not isinstance(result["error"], dict):
        raise ValueError(f"result must be the dict returned by run_comparison (keys {', '.join(sorted(keys))}), "
                         f"got {type(result).__name__}")
    shape = (len(result["kinds"]), len(result["epsilons"]), len(result["ns"]))
    for name in result["learners"]:
        if name not in result["error"] or np.shape(result["error"][name])[:3] != shape:
            raise ValueError(f"result['error'][{name!r}] must be an array of shape (kinds, epsilons, ns, reps) = "
                             f"{shape + ('reps',)}: result must be the dict returned by run_comparison")
    contestants = [name for name in result["learners"] if name != "logistic"] if learners is None \
        else _check_names(learners, "learners", list(result["learners"]))
    means = {name: mean_error(result["error"][name]) for name in contestants}
    baseline = mean_error(result["error"]["logistic"]) if "logistic" in result["error"] else None
    rows = []
    for a, kind in enumerate(result["kinds"]):
        for b, eps in enumerate(result["epsilons"]):
            for c, n in enumerate(result["ns"]):
                scores = sorted((means[name][a, b, c], name) for name in contestants
                                if np.isfinite(means[name][a, b, c]))
                if not scores:
                    continue
                first = scores[0]
                second = scores[1] if len(scores) > 1 else (math.nan, "")
                rows.append({"kind": kind, "epsilon": eps, "n": int(n), "winner": first[1], "error": first[0],
                             "runner_up": second[1], "runner_up_error": second[0],
                             "opt": float(result["opt"][a]),
                             "logistic": math.nan if baseline is None else float(baseline[a, b, c])})
    return rows


_SHORT = {"improper": "6.10 improper", "proper": "7.7 proper", "semi_agnostic": "8.9 semi-agn.",
          "dp_sgd": "DP-SGD", "diffprivlib": "diffprivlib", "logistic": "logistic"}


def format_winner_table(rows):
    """Markdown for Table 9.1: one row per (noise, ε), one column per n; a cell is "winner (excess over OPT)".

    Parameters
    ----------
    rows : list of dict from :func:`winner_table`

    Returns
    -------
    str (a Markdown table). Cost O(len(rows)).

    Raises
    ------
    TypeError, ValueError
        For an empty list, or rows that are not :func:`winner_table`'s.
    """
    if isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__iter__"):
        raise TypeError(f"rows must be the list returned by winner_table, got {type(rows).__name__}")
    rows = list(rows)
    if not rows:
        raise ValueError("rows must be a non-empty list from winner_table")
    keys = {"kind", "epsilon", "n", "winner", "error", "opt"}
    for row in rows:
        if not isinstance(row, dict) or not keys <= set(row) or row["winner"] not in _SHORT \
                or row["kind"] not in KINDS:
            raise ValueError(f"rows must be winner_table's rows (dicts with keys {', '.join(sorted(keys))}), "
                             f"got {row!r}")
    ns = sorted({row["n"] for row in rows})
    keys = sorted({(row["kind"], row["epsilon"]) for row in rows}, key=lambda k: (KINDS.index(k[0]), k[1]))
    cells = {(row["kind"], row["epsilon"], row["n"]): row for row in rows}
    lines = ["| noise | ε | " + " | ".join(f"n = {n:,}" for n in ns) + " |",
             "|---|---|" + "---|" * len(ns)]
    for kind, eps in keys:
        entries = []
        for n in ns:
            row = cells.get((kind, eps, n))
            entries.append("–" if row is None else f"{_SHORT[row['winner']]} ({row['error'] - row['opt']:+.3f})")
        lines.append(f"| {kind} | {eps:g} | " + " | ".join(entries) + " |")
    return "\n".join(lines)


def surrogate_gap(thresholds, noises, n=50_000, d=3, n_test=100_000, rng=0):
    """Excess error over OPT of non-private logistic regression under structured noise, for each (t*, η₀) (Table 9.2).

    Needs scikit-learn; returns None (with a warning) without it. At this n the estimation error is
    small (n ≫ d), so what remains is the convex surrogate's bias: the error of the logistic
    minimiser minus the best halfspace's.

    Parameters
    ----------
    thresholds : float or non-empty 1-D sequence of finite floats (t*)
    noises : float or non-empty 1-D sequence of floats in [0, 1/2) (η₀)
    n : int ≥ 100
    d : int ≥ 2
    n_test : int ≥ 100
    rng : seed or Generator

    Returns
    -------
    dict {"excess": array (len t*, len η₀), "opt": same shape} or None. Cost O(len·n·d).

    Raises
    ------
    TypeError, ValueError
        For arguments out of range.
    """
    thresholds = check_sweep(thresholds, "thresholds")
    noises = [_check_noise(v, "noises") for v in check_sweep(noises, "noises")]
    n = check_int(n, "n", minimum=100)
    d = check_int(d, "d", minimum=2)
    n_test = check_int(n_test, "n_test", minimum=100)
    rng = as_rng(rng)
    ok, message = peers_available(["logistic"])
    if not ok:
        warnings.warn(message, stacklevel=2)
        return None
    from sklearn.linear_model import LogisticRegression

    excess = np.empty((len(thresholds), len(noises)))
    opts = np.empty_like(excess)
    for i, t in enumerate(thresholds):
        for j, eta in enumerate(noises):
            X, y, opt = _problem("structured", n, d, rng, t, eta)
            X_test, y_test, _ = _problem("structured", n_test, d, rng, t, eta)
            model = LogisticRegression().fit(X, y)
            excess[i, j] = 1.0 - model.score(X_test, y_test) - opt
            opts[i, j] = opt
    return {"excess": excess, "opt": opts}
