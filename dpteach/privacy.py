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
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field, fields

__all__ = ["PrivacyStep", "PrivacyReceipt"]


def _as_float(value, name):
    # As _validation's checks do: a bool or a string is not a number, a NumPy scalar is.
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}")
    return float(value)


def _check_guarantee(epsilon, delta):
    """ε ∈ [0, inf] (0: a step that reads no data; inf: no guarantee) and δ ∈ [0, 1), as floats."""
    epsilon, delta = _as_float(epsilon, "epsilon"), _as_float(delta, "delta")
    if not epsilon >= 0:  # also refuses NaN
        raise ValueError(f"epsilon must satisfy 0 <= epsilon <= inf (inf: no guarantee), got {epsilon!r}")
    if not 0 <= delta < 1:  # also refuses NaN
        raise ValueError(f"delta must satisfy 0 <= delta < 1, got {delta!r}")
    return epsilon, delta


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


@dataclass(frozen=True)
class PrivacyStep:
    """One step of a fit that reads data: what it releases, which rows, and its own (ε, δ)."""

    name: str
    rows: str
    epsilon: float
    delta: float = 0.0

    def __post_init__(self):
        _check_text(self.name, "name")
        _check_text(self.rows, "rows")
        epsilon, delta = _check_guarantee(self.epsilon, self.delta)
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)


@dataclass(frozen=True)
class PrivacyReceipt(Mapping):
    """The guarantee of one fit: (ε, δ), the accountant, the theorem, and optionally its steps.

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
    """

    epsilon: float
    delta: float
    accountant: str
    theorem: str
    why: str = ""
    steps: tuple = ()
    details: Mapping = field(default_factory=dict, hash=False)

    def __post_init__(self):
        epsilon, delta = _check_guarantee(self.epsilon, self.delta)
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)
        for name in ("accountant", "theorem", "why"):
            _check_text(getattr(self, name), name)
        steps = tuple(self.steps)
        for step in steps:
            if not isinstance(step, PrivacyStep):
                raise TypeError(f"steps must hold PrivacyStep records, got {step!r}")
        object.__setattr__(self, "steps", steps)
        if not isinstance(self.details, Mapping):
            raise TypeError(f"details must be a mapping, got {self.details!r}")
        clash = sorted(set(self.details) & {f.name for f in fields(self)})
        if clash:
            raise ValueError(f"details must not repeat a field of the receipt, got key(s) {clash}")
        object.__setattr__(self, "details", _ReadOnlyDict(self.details))

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
