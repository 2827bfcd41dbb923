"""Privacy receipts and claims: what a fitted learner guarantees, **computed** from its steps; what a routine promises.

Every dpteach learner sets ``privacy_`` to a :class:`PrivacyReceipt` in ``fit``. The receipt is a frozen
record of

- ``steps``: the steps of the fit that read data (:class:`PrivacyStep`: what is released, which rows it
  reads, its own ε and δ, and the ``accountant`` that gives them). A step that iterates a mechanism under
  an accountant (DP-SGD's T noisy gradient sums under zCDP or PLD, Algorithm 6.7's K steps under zCDP) is
  *one* step: the iterated mechanism with its parameters in its name, the accountant's (ε, δ) for it;
- ``composition``: the composition theorem the learner's privacy theorem uses over those steps,
  :func:`dpteach.composition.parallel_composition` (steps on disjoint rows chosen without looking at the
  data: (max ε_i, max δ_i), Theorem 1.18) or :func:`dpteach.composition.basic_composition` (steps on the
  same rows: (Σ ε_i, Σ δ_i), Theorem 1.16). The learner passes the function: the rule has one home, and
  this foundation module does not import chapter 1;
- ``theorem``: the label of the book's box that proves the guarantee (``"thm-dpsas-learner"``), the very key
  the learner's :func:`privacy_claim` declares;
- ``why``: the privacy argument in one sentence;
- ``epsilon``, ``delta``: **computed** from the steps by the composition. A receipt takes no total, so none
  can disagree with its steps (issue 32). A step with ε = inf (the non-private reference run; a LASSO
  without residual clipping) leaves the whole fit without a guarantee, ε = inf.

Parallel composition refuses two steps that read the same rows. Read a receipt by attribute
(``receipt.epsilon``, ``receipt.steps[0].accountant``).

What a receipt covers (:data:`COVERS`, shown in its repr): **one** ``fit`` on **the data passed to it**,
neighbours being data sets that differ in one of those rows. Nothing upstream or around that call:
a ``StandardScaler`` fitted on the same rows in a scikit-learn ``Pipeline`` moves every scaled row when
one record changes, and releases its ``mean_`` exactly (no finite ε; chapter 9, "What a receipt
covers", audits it); ``GridSearchCV`` or ``cross_val_score`` run many fits on overlapping rows and pick
among them without noise, so the total is not any one receipt's ε.

A routine declares what it promises with :func:`privacy_claim` (a :class:`PrivacyClaim`): the box label,
and ε and δ each as a number or as a formula in the routine's parameters (Python syntax: ``"epsilon"``,
``"peeling_epsilon(s, epsilon, delta)"``). A condition under which the claim holds goes in ``condition``
("on the event E(...) only"), never in ε.

The fields are checked by declared constraints (:mod:`dpteach._constraints`: ``Epsilon``, ``Delta``,
``Options``, ``OrNone``, ``check_fields``); the few rules only records of this module need are the private
constraint classes below.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

from . import _validation as V
from ._constraints import Constraint, Delta, Epsilon, Options, OrNone, Unchecked, check_fields, validate_params

__all__ = ["PrivacyStep", "PrivacyReceipt", "PrivacyClaim", "privacy_claim", "claim_of", "COVERS"]

#: What every receipt covers, and what it does not (architecture review F1): part of its repr.
COVERS = ("this one fit on the data passed to it; not preprocessing fitted on the same data (a scaler in a "
          "Pipeline), nor a search or cross-validation over several fits")


# --- the rules only these records need (checked on every construction: a receipt built inside a fit too) ------

class _Record(Constraint):
    """A rule of a record field: cheap, so checked nested as well (``check_fields`` calls ``nested``)."""

    skip_nested = False

    def nested(self, value, name):
        return self.validate(value, name)


class _Text(_Record):
    """A non-empty string (a name, the rows a step reads, a sentence)."""

    def validate(self, value, name):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, got {value!r} of type {type(value).__name__}")
        if not value.strip():
            raise ValueError(f"{name} must be a non-empty string, got {value!r}")
        return value

    def invalid_values(self):
        return [(None, "None"), (1, "1"), ("", "''")]


class _BoxLabel(_Record):
    """The label of a box of the book, such as ``"thm-my-mechanism"`` (the theorem index knows them all)."""

    def validate(self, value, name):
        if not isinstance(value, str) or "-" not in value or not value.replace("-", "").isalnum():
            raise ValueError(f"{name} must be a box label of the book such as 'thm-my-mechanism', got {value!r}")
        return value

    def invalid_values(self):
        return [("Theorem 2.3", "'Theorem 2.3'"), (None, "None")]


class _Amount(_Record):
    """A claimed ε or δ: a number that ``number`` accepts, or a formula in the routine's parameters (Python)."""

    def __init__(self, number):
        self.number = number

    def validate(self, value, name):
        if not isinstance(value, str):
            return self.number.validate(value, name)
        try:
            formula = ast.parse(value, mode="eval")
        except SyntaxError:
            formula = None
        if formula is None or not any(isinstance(node, ast.Name) for node in ast.walk(formula)):
            raise ValueError(f"{name} must be a number, or a parameter name or a formula in parameters (Python "
                             f"syntax, such as 'peeling_epsilon(s, epsilon, delta)'; a condition goes in "
                             f"'condition'), got {value!r}")
        return value

    def invalid_values(self):
        return [("the epsilon of sigma", "prose")] + self.number.invalid_values()  # with "1": a constant is no formula


class _Steps(_Record):
    """A non-empty sequence of :class:`PrivacyStep` records, as a tuple."""

    def validate(self, value, name):
        steps = tuple(V.check_sequence(value, name, "PrivacyStep records"))
        if not steps:
            raise ValueError(f"{name} must list at least one PrivacyStep (the steps of the fit that read data), "
                             f"got none")
        for step in steps:
            if not isinstance(step, PrivacyStep):
                raise TypeError(f"{name} must hold PrivacyStep records, got {step!r}")
        return steps

    def invalid_values(self):
        return [(None, "None"), ([], "[]"), ([1], "[1]")]


#: The composition theorems a receipt applies over its steps (dpteach.composition's functions of these names).
COMPOSITIONS = ("basic_composition", "parallel_composition")


class _Composition(_Record):
    """:func:`dpteach.composition.basic_composition` or :func:`~dpteach.composition.parallel_composition`."""

    def validate(self, value, name):
        if getattr(value, "__module__", None) != "dpteach.composition" or getattr(value, "__name__", None) \
                not in COMPOSITIONS:
            raise ValueError(f"{name} must be dpteach.composition.basic_composition (steps on the same rows, "
                             f"Theorem 1.16) or parallel_composition (steps on disjoint rows, Theorem 1.18), "
                             f"got {value!r}")
        return value

    def invalid_values(self):
        return [(None, "None"), (max, "max"), ("parallel_composition", "'parallel_composition'")]


_TEXT = _Text()


@dataclass(frozen=True)
class PrivacyStep:
    """One step of a fit that reads data: what it releases, which rows, its own (ε, δ) and what gives them.

    ``epsilon`` may be inf (a step without a guarantee); ``accountant`` says how the step's (ε, δ) is
    obtained: the box label of the mechanism's theorem (``"thm-..."``), or the
    accountant that composes an iterated mechanism ("zcdp", "exact", "composition", "pld"). ``rows`` names
    the part of the data the step reads: parallel composition needs the parts of its steps to differ.

    Examples
    --------
    >>> PrivacyStep(name="selection", rows="m validation rows", epsilon=1, delta=0.0, accountant="thm-em")
    PrivacyStep(name='selection', rows='m validation rows', epsilon=1.0, delta=0.0, accountant='thm-em')
    """

    name: str
    rows: str
    epsilon: float
    delta: float
    accountant: str

    _parameter_constraints = {"name": _TEXT, "rows": _TEXT, "epsilon": Epsilon(allow_inf=True), "delta": Delta(),
                              "accountant": _TEXT}

    def __post_init__(self):
        check_fields(self)


@dataclass(frozen=True, repr=False)
class PrivacyReceipt:
    """The guarantee of one fit: its steps, their composition, the theorem; (ε, δ) computed from them.

    It covers this one ``fit`` on the data passed to it (:data:`COVERS`), nothing else: not a scaler
    or other preprocessing fitted on the same data before it (in a ``Pipeline`` the learner's neighbours
    are the *scaled* rows, and one changed record moves all of them; the scaler's own statistics are
    released exactly), and not a hyper-parameter search or cross-validation, which runs many fits on
    overlapping rows and selects among them without noise. Preprocess with public or privately
    released statistics, and account for every fit a search runs.

    Parameters
    ----------
    steps : sequence of PrivacyStep
        The steps of the fit that read data (at least one).
    composition : dpteach.composition.basic_composition or dpteach.composition.parallel_composition
        The composition the theorem uses over the steps (parallel: the steps must name different rows).
    theorem : str
        The label of the book's box that proves the guarantee (``"thm-..."``), as in the learner's claim.
    why : str
        The privacy argument in one sentence.

    Attributes
    ----------
    epsilon : float, 0 < ε <= inf (inf: no guarantee)
    delta : float, 0 <= δ < 1
        ``composition`` applied to the steps' ε and δ.

    Examples
    --------
    >>> from dpteach.composition import parallel_composition
    >>> steps = [PrivacyStep("model", "rows of part A", 1.0, 1e-5, "Gaussian mechanism"),
    ...          PrivacyStep("selection", "rows of part B", 0.5, 0.0, "exponential mechanism")]
    >>> receipt = PrivacyReceipt(steps=steps, composition=parallel_composition, theorem="thm-my-learner",
    ...                          why="each row is in one part")
    >>> receipt.epsilon, receipt.delta, receipt.is_private
    (1.0, 1e-05, True)
    >>> receipt.covers.startswith("this one fit on the data passed to it")
    True
    """

    steps: tuple
    composition: object
    theorem: str
    why: str
    epsilon: float = field(init=False)
    delta: float = field(init=False)

    _parameter_constraints = {"steps": _Steps(), "composition": _Composition(), "theorem": _BoxLabel(), "why": _TEXT}

    def __post_init__(self):
        check_fields(self)
        if self.composition.__name__ == "parallel_composition":
            rows = [step.rows for step in self.steps]
            if len(set(rows)) < len(rows):
                shared = sorted({r for r in rows if rows.count(r) > 1})
                raise ValueError(f"steps read the same rows {shared}: parallel composition (Theorem 1.18) needs "
                                 f"disjoint rows; compose them with basic_composition")
        epsilons, deltas = [step.epsilon for step in self.steps], [step.delta for step in self.steps]
        if math.inf in epsilons:
            # No guarantee for a step, none for the whole. The theorems take finite ε, and their rule for δ does not
            # read ε: δ is composed with every ε set to 1.
            epsilon, delta = math.inf, self.composition([1.0] * len(deltas), deltas)[1]
        else:
            epsilon, delta = self.composition(epsilons, deltas)
        if not delta < 1:
            raise ValueError(f"steps compose to delta = {delta!r} >= 1 by {self.composition.__name__}: no guarantee "
                             f"(valid range: 0 <= delta < 1)")
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)

    def __repr__(self):
        return (f"{type(self).__name__}(epsilon={self.epsilon!r}, delta={self.delta!r}, composition="
                f"{self.composition.__name__}, theorem={self.theorem!r}, why={self.why!r}, steps={self.steps!r}, "
                f"covers={COVERS!r})")

    @property
    def covers(self):
        """What the receipt covers: :data:`COVERS` (one fit on the data passed to it)."""
        return COVERS

    @property
    def is_private(self):
        """Whether the receipt guarantees anything (ε < inf; δ < 1 always)."""
        return math.isfinite(self.epsilon)


@dataclass(frozen=True)
class PrivacyClaim:
    """What a private routine promises, declared next to it (issue 23) with :func:`privacy_claim`.

    - ``theorem``: the label of the book's box that proves it (``"thm-my-mechanism"``), which the
      theorem index links to the routine;
    - ``epsilon``, ``delta``: the guarantee, each as a number (``delta=0.0`` for pure DP), the name of
      the parameter that holds it (``"epsilon"``) or a formula in the parameters, in Python syntax
      (``"k * epsilon"``, ``"peeling_epsilon(s, epsilon, delta)"``);
    - ``model``: "central", "local" (each report is ε-private on its own: local DP) or "zcdp"
      (ρ-zero-concentrated DP, ``epsilon`` names ρ);
    - ``condition``: when the claim holds, if not always (``"on the event E(...) only"``), or None.

    The audit registry (:mod:`dpteach.registry`) and the audit report read the declared claims: a
    routine that declares one is a release whose privacy must be audited or excused.

    >>> PrivacyClaim(theorem="thm-my-mechanism", epsilon="epsilon", delta=0.0).model
    'central'
    """

    theorem: str
    epsilon: object = "epsilon"
    delta: object = 0.0
    model: str = "central"
    condition: str | None = None

    _parameter_constraints = {"theorem": _BoxLabel(), "epsilon": _Amount(Epsilon()), "delta": _Amount(Delta()),
                              "model": Options(("central", "local", "zcdp")), "condition": OrNone(_TEXT)}

    def __post_init__(self):
        check_fields(self)


@validate_params(PrivacyClaim._parameter_constraints)
def privacy_claim(*, theorem, epsilon="epsilon", delta=0.0, model="central", condition=None):
    """Declare the privacy claim of a routine or learner class (see :class:`PrivacyClaim`); returns it unchanged.

    >>> @privacy_claim(theorem="thm-my-mechanism", epsilon="epsilon")
    ... def release(x, epsilon):
    ...     return x
    >>> claim_of(release).theorem
    'thm-my-mechanism'
    """
    claim = PrivacyClaim(theorem=theorem, epsilon=epsilon, delta=delta, model=model, condition=condition)

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
