"""Chapter 9 runners: the three halfspace learners of Table 1 side by side, and against convex-surrogate peers.

The learners (one name each, used as keys everywhere):

* ``"improper"`` — :class:`dpteach.improper.PrivateHermiteL1Learner` (Algorithm 6.10; Table 1, row 1);
* ``"proper"`` — :class:`dpteach.proper.PrivateProperLearner` (Algorithm 7.7; row 3);
* ``"semi_agnostic"`` — :class:`dpteach.dpsas.PrivateSemiAgnosticLearner` (Algorithm 8.9; row 4);
* ``"dp_sgd"`` — :class:`dpteach.dp_logistic.DPSGDLogisticRegression` (Algorithm 9.2);
* ``"diffprivlib"`` — ``diffprivlib.models.LogisticRegression`` (objective perturbation), run where Chaudhuri,
  Monteleoni & Sarwate's Theorem 9 covers it: on the rows of :func:`unit_ball_rows` (a constant feature appended,
  scaled to norm ≤ 1) with ``data_norm=1, fit_intercept=False`` (see :func:`fit_learner`);
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

import contextlib
import math
import time
import warnings
from numbers import Integral, Real

import numpy as np

from .. import data
from .._constraints import (Check, Count, Delta, Epsilon, FiniteInterval, Options, POSITIVE, SameLength,
                            validate_params)
from .._array_constraints import Array, Labels, Sequence, Sweep
from .._validation import check_choice, check_memory, check_work
from ..dp_logistic import DPSGDLogisticRegression
from ..dpsas import PrivateSemiAgnosticLearner
from ..improper import PrivateHermiteL1Learner
from ..proper import PrivateProperLearner
from ._progress import EPSILONS, REPETITIONS
from .._progress import progress

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
    "runtime_vs_d",
    "surrogate_gap",
    "unit_ball_rows",
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
#: ``data_norm_factor``: the public bound on ‖x‖ for diffprivlib is this times √d; :func:`unit_ball_rows` maps
#: (x, 1) divided by √(bound² + 1) onto the unit ball (the rows with ‖x‖ beyond the bound are shrunk onto it).
#: ``C``: diffprivlib's inverse regularisation (nΛ = 1/C), its library default 1; a public constant, so any value
#: keeps Theorem 9's ε (chapter 9 measures what the default costs at ε = 0.5).
SETTINGS = {
    "improper": {"alpha": 0.1, "beta": 0.25, "n_iterations": 300},
    "proper": {"alpha": 0.1},
    "semi_agnostic": {"alpha": 0.05},
    "dp_sgd": {"clip_norm": 1.0, "n_epochs": 5, "learning_rate": 0.5, "steps_per_epoch": 20},
    "diffprivlib": {"data_norm_factor": 2.0, "C": 1.0},
    "logistic": {},
}
#: The chapter's quick settings (notebook ≤ 60 s on 2 cores).
QUICK = {"d": 3, "ns": (2000, 5000, 15_000, 40_000, 100_000), "epsilons": (0.5, 1.0, 2.0, 4.0), "n_reps": 2,
         "n_test": 50_000, "threshold": 0.3, "noise": 0.1, "delta": 1e-5}


#: Any finite real (the target threshold t*).
FINITE = FiniteInterval(Real, None, None)
#: η₀ ∈ [0, 1/2): the RCN rate, or the mass of the flipped slab.
NOISE = FiniteInterval(Real, 0, 0.5, closed="left")
#: 0 < δ < 1.
DELTA = Delta(allow_zero=False)
#: An integer ≥ 2 (a dimension: the targets use x₁ and x₂) and ≥ 100 (a sample or test size).
AT_LEAST_TWO = FiniteInterval(Integral, 2, None, closed="left")
AT_LEAST_100 = FiniteInterval(Integral, 100, None, closed="left")
#: A non-empty sequence of learner names (not a bare string), each one of :data:`LEARNERS`.
LEARNER_NAMES = Sequence("learner names", entry=Options(LEARNERS), nonempty=True)


def merged_settings(settings, name="settings"):
    """SETTINGS with the caller's per-learner overrides merged in (shared with table1_rates).

    The overrides themselves are passed on to the learners, which check them (the runners that take
    ``settings`` leave the learners' checks on: ``skip_nested=False``).
    """
    merged = {learner: dict(values) for learner, values in SETTINGS.items()}
    if settings is not None and not isinstance(settings, dict):
        raise TypeError(f"{name} must be None or a dict {{learner: {{parameter: value}}}}, got {settings!r}")
    for learner, values in (settings or {}).items():
        check_choice(learner, f"{name} key", LEARNERS)
        if not isinstance(values, dict):
            raise TypeError(f"{name}[{learner!r}] must be a dict {{parameter: value}}, got {values!r}")
        merged[learner].update(values)
    return merged


#: ``settings``: None or {learner: {parameter: value}} overriding :data:`SETTINGS`.
# Check: a dict of dicts keyed by learner name, merged into SETTINGS (a record type of this module)
SETTINGS_OVERRIDES = Check(merged_settings, invalid=[("fast", "'fast'"), ({"no-such-learner": {}}, "unknown key"),
                                                     ({"proper": 0.1}, "not a dict")])


@validate_params({"learners": LEARNER_NAMES})
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

    Examples
    --------
    >>> peers_available(learners=("dp_sgd",))
    (True, '')
    """
    needed = list(dict.fromkeys(p for name in learners for p in _REQUIRES.get(name, ())))
    missing = [p for p in needed if p not in _importable(needed)]
    if not missing:
        return True, ""
    names = {"sklearn": "scikit-learn"}
    wanted = ", ".join(names.get(p, p) for p in missing)
    return False, (f"skipped the peers that need {wanted}: not installed "
                   f"(pip install -r requirements.txt installs them)")


def check_names(names, name, choices=LEARNERS):
    """``names`` as a list of learner names, each one of ``choices`` (shared with table1_tables)."""
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


def check_with_gaps(values, name, ndim=None):
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


@validate_params({"kind": Options(KINDS), "n": FiniteInterval(Integral, 1, None, closed="left"), "d": AT_LEAST_TWO,
                  "rng": "random_state", "threshold": FINITE, "noise": NOISE})
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

    Examples
    --------
    >>> X, y, opt = make_problem(kind="rcn", n=5, d=2, rng=0)
    >>> X.shape, opt
    ((5, 2), 0.1)
    """
    return _problem(kind, n, d, rng, threshold, noise)


@validate_params({"X": Array(ndim=2), "x_bound": POSITIVE})
def unit_ball_rows(X, x_bound):
    """The fixed record-by-record map x ↦ (x, 1)/√(x_bound² + 1), then projected onto the unit ball.

    What diffprivlib's objective perturbation needs to be covered by Chaudhuri, Monteleoni & Sarwate (2011),
    Theorem 9: every row of norm ≤ 1, and no unregularised intercept (the constant feature carries it and
    is regularised like every other weight). A row with ‖x‖ ≤ x_bound keeps its direction and has norm ≤ 1;
    a longer one is shrunk to norm 1. The map uses only the public ``x_bound`` and the row itself, so
    replace-one neighbours stay replace-one neighbours: an ε-DP learner run on the mapped rows is ε-DP
    with respect to the raw rows. A halfspace sign(⟨v, x̃⟩) on the mapped rows is the halfspace
    sign(⟨v[:d], x⟩ + v[d]) on the raw ones (the scaling is positive).

    Parameters
    ----------
    X : array_like, shape (n, d), finite
    x_bound : float > 0
        The public bound on ‖x‖₂.

    Returns
    -------
    numpy.ndarray, shape (n, d + 1), every row of norm ≤ 1. Cost O(n·d).

    Raises
    ------
    TypeError, ValueError
        For NaN/inf or a non-2-D X, x_bound ≤ 0.

    Examples
    --------
    >>> rows = unit_ball_rows(X=np.array([[3.0, 4.0], [0.1, 0.2]]), x_bound=2.0)
    >>> rows.shape, bool(np.all(np.linalg.norm(rows, axis=1) <= 1 + 1e-12))
    ((2, 3), True)
    """
    rows = np.hstack([X, np.ones((X.shape[0], 1))]) / math.hypot(x_bound, 1.0)
    # Norms computed on rows divided by their largest entry (≥ the constant feature > 0), so that a huge
    # row (1e155) cannot overflow to inf and be shrunk to 0: it keeps its direction like any other.
    top = np.max(np.abs(rows), axis=1, keepdims=True)
    unit = rows / top
    unit_norm = np.sqrt(np.einsum("ij,ij->i", unit, unit))[:, None]
    with np.errstate(over="ignore"):
        too_long = top * unit_norm > 1.0
    return np.where(too_long, unit / unit_norm, rows)


class _UnitBallModel:
    """A model fitted on :func:`unit_ball_rows` of the data; predicts raw rows through the same fixed map."""

    def __init__(self, model, x_bound):
        self.model, self.x_bound = model, x_bound

    def predict(self, X):
        return self.model.predict(unit_ball_rows(X, self.x_bound))

    def score(self, X, y):
        return float(np.mean(self.predict(X) == np.asarray(y)))


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
        # Raw Gaussian rows (no declared bound): the chapter's explicit settings, B = ⌈n/20⌉.
        batch = max(1, math.ceil(len(X) / s["steps_per_epoch"]))
        return DPSGDLogisticRegression(epsilon, delta, clip_norm=s["clip_norm"], n_epochs=s["n_epochs"],
                                       batch_size=batch, learning_rate=s["learning_rate"],
                                       random_state=seed).fit(X, y)
    if name == "diffprivlib":
        from diffprivlib.accountant import BudgetAccountant
        from diffprivlib.models import LogisticRegression

        # Theorem 9's setting: rows of norm ≤ 1 with a constant feature, data_norm = 1 and no separate
        # (unregularised) intercept. Then diffprivlib's ε' = ε − 2 ln(1 + c/(nΛ)) and its noise density
        # ∝ e^{−ε'‖b‖/2} are those of Chaudhuri et al.'s Algorithm 2 (c = 1/4, nΛ = 1/C). With data_norm = R ≠ 1
        # diffprivlib subtracts 2 ln(1 + cR/(nΛ)) where the proof needs cR², and with fit_intercept=True the
        # intercept is not regularised: neither is covered by the theorem.
        # A fresh accountant per fit: diffprivlib's default one is global and would add up every fit.
        x_bound = s["data_norm_factor"] * math.sqrt(X.shape[1])
        model = LogisticRegression(epsilon=epsilon, data_norm=1.0, fit_intercept=False, C=s["C"], random_state=seed,
                                   accountant=BudgetAccountant())
        with warnings.catch_warnings():
            # diffprivlib 0.6.6 passes an L-BFGS-B option that SciPy ≥ 1.15 deprecates: not our reader's concern.
            warnings.filterwarnings("ignore", message=".*L-BFGS-B.*", category=DeprecationWarning)
            return _UnitBallModel(model.fit(unit_ball_rows(X, x_bound), y), x_bound)
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression().fit(X, y)


# The runners that take ``settings`` pass the overrides on to the learners unchecked: the learners' own checks
# stay on (skip_nested=False), as for a routine that runs user code.
@validate_params({"name": Options(LEARNERS), "X": Array(ndim=2), "y": Labels(), "epsilon": Epsilon(), "delta": DELTA,
                  "rng": "random_state", "settings": SETTINGS_OVERRIDES}, skip_nested=False,
                 relations=[SameLength("X", "y")])  # declared here, so the optional peers get the same named error
def fit_learner(name, X, y, epsilon, delta=1e-5, rng=None, settings=None):
    """Fit one of :data:`LEARNERS` with the chapter's settings (:data:`SETTINGS`, overridable); returns it.

    The private learners are (ε, δ)-DP; diffprivlib's is ε-DP by Chaudhuri, Monteleoni & Sarwate (2011),
    Theorem 9, for its exact minimiser: it is fitted on :func:`unit_ball_rows` (public bound
    ``data_norm_factor``·√d on ‖x‖) with ``data_norm=1, fit_intercept=False``, and the returned object
    applies the same map before predicting (its diffprivlib model is ``.model``). Every other learner
    gets the raw rows. ``"logistic"`` ignores ε and δ and is not private.

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

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(12, 2))
    >>> model = fit_learner(name="dp_sgd", X=X, y=np.array([1.0, -1.0] * 6), epsilon=1.0, delta=1e-5, rng=0)
    >>> model.coef_.shape
    (2,)
    """
    return _fit(name, X, y, epsilon, delta, rng, settings)


@validate_params({
    "kinds": Sequence("kinds", entry=Options(KINDS), nonempty=True), "epsilons": EPSILONS, "ns": Sweep(Count(100)),
    "learners": LEARNER_NAMES, "d": AT_LEAST_TWO, "n_reps": REPETITIONS, "n_test": AT_LEAST_100,
    "threshold": FINITE, "noise": NOISE, "delta": DELTA, "settings": SETTINGS_OVERRIDES, "rng": "random_state",
}, skip_nested=False)
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

    Examples
    --------
    >>> result = run_comparison(kinds=("rcn",), epsilons=[1.0], ns=[100], learners=("dp_sgd",), d=2, n_reps=1,
    ...                         n_test=100, delta=1e-5, rng=0)
    >>> result["error"]["dp_sgd"].shape
    (1, 1, 1, 1)
    """
    check_work(("n_reps", n_reps), ("len(kinds)", len(kinds)), ("len(epsilons)", len(epsilons)), ("len(ns)", len(ns)),
               ("ns", max(ns)), ("d", d))
    check_memory(("n_test", n_test), ("d", d))
    check_memory(("ns", max(ns)), ("d", d))

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


def _importable(packages=("diffprivlib", "sklearn")):
    found = set()
    for package in packages:
        with contextlib.suppress(ImportError):
            __import__(package)
            found.add(package)
    return found


@validate_params({"ds": Sweep(Count(2)), "n": AT_LEAST_100, "epsilon": Epsilon(), "learners": LEARNER_NAMES,
                  "n_reps": REPETITIONS,
                  "kind": Options(KINDS), "settings": SETTINGS_OVERRIDES, "rng": "random_state"}, skip_nested=False)
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

    Examples
    --------
    >>> runtime_vs_d(ds=[2], n=100, epsilon=1.0, learners=("dp_sgd",), n_reps=1, rng=0)["dp_sgd"].shape
    (1,)
    """
    check_work(("n_reps", n_reps), ("len(ds)", len(ds)), ("n", n), ("ds", max(ds)))
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


@validate_params({"thresholds": Sweep(), "noises": Sweep(NOISE),
                  "n": AT_LEAST_100, "d": AT_LEAST_TWO, "n_test": AT_LEAST_100, "rng": "random_state"})
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

    Examples
    --------
    >>> surrogate_gap(thresholds=[0.3], noises=[0.1], n=100, d=2, n_test=100, rng=0)["excess"].shape
    (1, 1)
    """
    check_memory(("n", n), ("d", d))
    check_memory(("n_test", n_test), ("d", d))
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
