"""One privacy receipt: the (ε, δ) a fitted learner guarantees, how it was accounted and by which theorem.

Every dpteach learner sets ``privacy_`` to a :class:`PrivacyReceipt` in ``fit``
(issue 23). The receipt is a frozen record, so nothing downstream can edit a
guarantee after the fact:

- ``epsilon``, ``delta``: the guarantee of the whole fit (ε = inf means the
  non-private reference run: no guarantee at all);
- ``accountant``: how the total was computed ("parallel composition", "zcdp",
  "pld", ...);
- ``theorem``: the label of the book's theorem that proves it;
- ``why``: the proof in one sentence;
- ``steps``: the steps that read data (:class:`PrivacyStep`: what is released,
  which rows it reads, its own ε and δ), when the learner reports them;
- ``details``: learner-specific extras (e.g. DP-SGD's ``calibrated_by``).

It also reads like the dicts learners used to return: ``receipt["epsilon"]``,
``receipt["calibrated_by"]``, ``dict(receipt)`` (a read-only mapping over the
fields, then the ``details``).

What a receipt covers (:data:`COVERS`, shown in its repr): **one** ``fit`` on **the data passed to it**,
neighbours being data sets that differ in one of those rows. Nothing upstream or around that call:
a ``StandardScaler`` fitted on the same rows in a scikit-learn ``Pipeline`` moves every scaled row when
one record changes, and releases its ``mean_`` exactly (no finite ε; chapter 9, "What a receipt
covers", audits it); ``GridSearchCV`` or ``cross_val_score`` run many fits on overlapping rows and pick
among them without noise, so the total is not any one receipt's ε.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field, fields

from ._constraints import Check, Options, Unchecked, check_fields, validate_params

__all__ = ["PrivacyStep", "PrivacyReceipt", "PrivacyClaim", "privacy_claim", "claim_of", "COVERS"]

#: What every receipt covers, and what it does not (architecture review F1): part of its repr.
COVERS = ("this one fit on the data passed to it; not preprocessing fitted on the same data (a scaler in a "
          "Pipeline), nor a search or cross-validation over several fits")


def _as_float(value, name):
    # As _validation's checks do: a bool or a string is not a number, a NumPy scalar is.
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}")
    return float(value)


def _check_guarantee_epsilon(epsilon, name):
    """ε ∈ [0, inf] as a float (0: a step that reads no data; inf: no guarantee)."""
    epsilon = _as_float(epsilon, name)
    if not epsilon >= 0:  # also refuses NaN
        raise ValueError(f"{name} must satisfy 0 <= epsilon <= inf (inf: no guarantee), got {epsilon!r}")
    return epsilon


def _check_guarantee_delta(delta, name):
    """δ ∈ [0, 1) as a float."""
    delta = _as_float(delta, name)
    if not 0 <= delta < 1:  # also refuses NaN
        raise ValueError(f"{name} must satisfy 0 <= delta < 1, got {delta!r}")
    return delta


class _ReadOnlyDict(dict):
    """A dict that refuses edits (a receipt is frozen), yet pickles and deep-copies like a dict.

    (``types.MappingProxyType`` would refuse edits too, but cannot be pickled, and a fitted learner
    must be: ``copy.deepcopy``, joblib's parallel ``GridSearchCV``.)
    """

    def _refuse(self, *args, **kwargs):
        raise TypeError("the details of a PrivacyReceipt are read-only")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        return type(self), (dict(self),)


def _check_text(value, name):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {value!r} of type {type(value).__name__}")
    return value


def _check_steps(steps, name):
    """The steps as a tuple of :class:`PrivacyStep` records."""
    if isinstance(steps, (str, bytes)) or not hasattr(steps, "__iter__"):
        raise TypeError(f"{name} must be a sequence of PrivacyStep records, got {steps!r}")
    steps = tuple(steps)
    for step in steps:
        if not isinstance(step, PrivacyStep):
            raise TypeError(f"{name} must hold PrivacyStep records, got {step!r}")
    return steps


def _check_details(details, name):
    """The learner's extras as a read-only mapping that repeats no field of the receipt."""
    if not isinstance(details, Mapping):
        raise TypeError(f"{name} must be a mapping, got {details!r}")
    clash = sorted(set(details) & {f.name for f in fields(PrivacyReceipt)})
    if clash:
        raise ValueError(f"{name} must not repeat a field of the receipt, got key(s) {clash}")
    return _ReadOnlyDict(details)


# The rules of the two records. A receipt is a frozen record whose fields are also *converted* (floats, a tuple
# of steps, read-only details), so its __post_init__ applies them on every construction, nested or not (unlike
# check_fields, which skips a record built inside a checked routine): a learner's receipt is frozen the same way.
_TEXT = Check(_check_text, invalid=[(None, "None"), (1, "1")])
_EPSILON = Check(_check_guarantee_epsilon, invalid=[(-1, "-1"), (math.nan, "nan"), ("1", "'1'"), (True, "True"),
                                                    (None, "None")])
_DELTA = Check(_check_guarantee_delta, invalid=[(-0.1, "-0.1"), (1, "1"), (1.5, "1.5"), (math.nan, "nan"),
                                                ("1", "'1'"), (True, "True"), (None, "None")])


def _apply_constraints(record):
    for name, constraint in type(record)._parameter_constraints.items():
        object.__setattr__(record, name, constraint.validate(getattr(record, name), name))


@dataclass(frozen=True)
class PrivacyStep:
    """One step of a fit that reads data: what it releases, which rows, and its own (ε, δ).

    Examples
    --------
    >>> PrivacyStep(name="selection", rows="m rows", epsilon=1, delta=0.0)
    PrivacyStep(name='selection', rows='m rows', epsilon=1.0, delta=0.0)
    """

    name: str
    rows: str
    epsilon: float
    delta: float = 0.0

    _parameter_constraints = {"name": _TEXT, "rows": _TEXT, "epsilon": _EPSILON, "delta": _DELTA}

    def __post_init__(self):
        _apply_constraints(self)


@dataclass(frozen=True, repr=False)
class PrivacyReceipt(Mapping):
    """The guarantee of one fit: (ε, δ), the accountant, the theorem, and optionally its steps.

    It covers this one ``fit`` on the data passed to it (:data:`COVERS`), nothing else: not a scaler
    or other preprocessing fitted on the same data before it (in a ``Pipeline`` the learner's neighbours
    are the *scaled* rows, and one changed record moves all of them; the scaler's own statistics are
    released exactly), and not a hyper-parameter search or cross-validation, which runs many fits on
    overlapping rows and selects among them without noise. Preprocess with public or privately
    released statistics, and account for every fit a search runs.

    Parameters
    ----------
    epsilon : float, 0 <= ε <= inf (inf: the non-private reference run, no guarantee)
    delta : float, 0 <= δ < 1
    accountant : str
        How the total is computed from the steps.
    theorem : str
        The label of the book's theorem box that proves the guarantee ("Theorem" and its number).
    why : str
        The privacy argument in one sentence.
    steps : sequence of PrivacyStep
        The steps that read data (may be empty).
    details : mapping
        Learner-specific extras, read as further keys of the mapping view.

    Examples
    --------
    >>> receipt = PrivacyReceipt(epsilon=1.0, delta=1e-5, accountant="zcdp", theorem="Theorem X.Y")
    >>> receipt["epsilon"], receipt.delta, receipt.is_private
    (1.0, 1e-05, True)
    >>> receipt.covers.startswith("this one fit on the data passed to it")
    True
    """

    epsilon: float
    delta: float
    accountant: str
    theorem: str
    why: str = ""
    steps: tuple = ()
    details: Mapping = field(default_factory=dict, hash=False)

    _parameter_constraints = {
        "epsilon": _EPSILON, "delta": _DELTA, "accountant": _TEXT, "theorem": _TEXT, "why": _TEXT,
        "steps": Check(_check_steps, invalid=[(None, "None"), ([1], "[1]")]),
        "details": Check(_check_details, invalid=[(None, "None"), ({"epsilon": 1.0}, "{'epsilon': 1.0}")]),
    }

    def __post_init__(self):
        _apply_constraints(self)

    def __repr__(self):
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                          if f.name not in ("steps", "details") or getattr(self, f.name))
        return f"{type(self).__name__}({shown}, covers={COVERS!r})"

    @property
    def covers(self):
        """What the receipt covers: :data:`COVERS` (one fit on the data passed to it)."""
        return COVERS

    @property
    def is_private(self):
        """Whether the receipt guarantees anything (ε < inf; δ < 1 always)."""
        return math.isfinite(self.epsilon)

    # --- the read-only mapping view, for readers of the old dict shape ---------------------------
    def _keys(self):
        return [f.name for f in fields(self) if f.name != "details"] + list(self.details)

    def __getitem__(self, key):
        if key in self.details:
            return self.details[key]
        if key != "details" and key in {f.name for f in fields(self)}:
            return getattr(self, key)
        raise KeyError(f"{key!r}: a PrivacyReceipt has the keys {self._keys()}")

    def __iter__(self):
        return iter(self._keys())

    def __len__(self):
        return len(self._keys())


@dataclass(frozen=True)
class PrivacyClaim:
    """What a private routine promises, declared next to it (issue 23) with :func:`privacy_claim`.

    - ``theorem``: the label of the book's box that proves it (``"thm-my-mechanism"``), which the
      theorem index links to the routine;
    - ``epsilon``, ``delta``: the guarantee, each as the name of the parameter that holds it
      (``"epsilon"``) or as a number (``delta=0.0`` for pure DP), or a short formula in words
      (``"k·epsilon"``);
    - ``model``: "central", "local" (each report is ε-private on its own: local DP) or "zcdp"
      (ρ-zero-concentrated DP, ``epsilon`` names ρ).

    The audit registry (:mod:`dpteach.registry`) and the audit report read the declared claims: a
    routine that declares one is a release whose privacy must be audited or excused.

    >>> PrivacyClaim(theorem="thm-my-mechanism", epsilon="epsilon", delta=0.0).model
    'central'
    """

    theorem: str
    epsilon: object = "epsilon"
    delta: object = 0.0
    model: str = "central"

    _parameter_constraints = {
        "theorem": Check(lambda value, name: _check_label(value, name), invalid=[("Theorem 2.3", "'Theorem 2.3'"),
                                                                                 (None, "None")]),
        "epsilon": Check(lambda value, name: _check_amount(value, name, allow_zero=False),
                         invalid=[(0, "0"), (-1, "-1"), (math.nan, "nan"), (math.inf, "inf"), (None, "None"),
                                  (True, "True")]),
        "delta": Check(lambda value, name: _check_amount(value, name, allow_zero=True),
                       invalid=[(-0.1, "-0.1"), (1, "1"), (math.nan, "nan"), (None, "None"), (True, "True")]),
        "model": Options(("central", "local", "zcdp")),
    }

    def __post_init__(self):
        check_fields(self)


def _check_label(value, name):
    if not isinstance(value, str) or not value.replace("-", "").isalnum() or "-" not in value:
        raise ValueError(f"{name} must be a box label of the book such as 'thm-my-mechanism', got {value!r}")
    return value


def _check_amount(value, name, allow_zero):
    """A privacy amount: the name of the parameter that holds it (or a formula in words), or a number."""
    if isinstance(value, str) and value.strip():
        return value
    number = _as_float(value, name)
    if not (0 <= number if allow_zero else 0 < number) or number >= (1 if name == "delta" else math.inf):
        valid = "[0, 1)" if name == "delta" else "(0, inf)"
        raise ValueError(f"{name} must be a parameter name or a number in {valid}, got {value!r}")
    return number


@validate_params(PrivacyClaim._parameter_constraints)
def privacy_claim(*, theorem, epsilon="epsilon", delta=0.0, model="central"):
    """Declare the privacy claim of a routine or learner class (see :class:`PrivacyClaim`); returns it unchanged.

    >>> @privacy_claim(theorem="thm-my-mechanism", epsilon="epsilon")
    ... def release(x, epsilon):
    ...     return x
    >>> claim_of(release).theorem
    'thm-my-mechanism'
    """
    claim = PrivacyClaim(theorem=theorem, epsilon=epsilon, delta=delta, model=model)  # checks each field

    def decorate(obj):
        obj.__dpteach_privacy__ = claim
        return obj

    return decorate


@validate_params({"obj": Unchecked("any object: a routine, a class or anything else (then None)")})
def claim_of(obj):
    """The :class:`PrivacyClaim` that ``obj`` declares (for a learner class: its own), or None.

    >>> claim_of(len) is None
    True
    """
    if isinstance(obj, type):
        return vars(obj).get("__dpteach_privacy__")
    return getattr(obj, "__dpteach_privacy__", None)
