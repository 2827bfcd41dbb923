"""ε-local randomizers (chapter 3, Definition 3.1, Theorem 3.3).

Randomized response on bits, the Laplace randomizer R_φ(z) = φ(z) + Lap(2/ε)
for a query φ: Z → [−1, 1], and the one-bit randomizer [−1, 1] → {±c}; each
with an unbiased estimate and its exact output law. The constant
c = coth(ε/2) = (e^ε + 1)/(e^ε − 1) and the randomized-response debiasing
have their one home here (:func:`onebit_constant`, :meth:`RandomizedResponse.estimate`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ._constraints import Epsilon, Options, Unchecked, validate_params
from ._array_constraints import PositiveArray, Bits
from ._validation import as_rng, check_bits, check_finite_array, check_unit_interval
from .mechanisms import laplace_mechanism_prechecked, randomized_response
from .privacy import privacy_claim

__all__ = ["LocalRandomizer", "RandomizedResponse", "LaplaceRandomizer", "OneBitRandomizer",
           "HalfNoiseLaplaceRandomizer", "make_randomizer", "debias_randomized_response",
           "onebit_constant", "rr_debias", "default_randomizer"]


# =============================================================================


class LocalRandomizer:
    """An ε-local randomizer R (Definition 3.1): ε-DP on a database of one record.

    For all inputs u, u' and outputs w: Pr[R(u) = w] <= e^ε Pr[R(u') = w]
    (densities for continuous outputs). Subclasses provide

    * ``randomize(values, rng)`` — apply R independently to every entry;
    * ``estimate(outputs)`` — an unbiased per-user estimate of the input
      (its average over users is unbiased for the population mean);
    * ``probability(outputs, values)`` — the exact pmf/density Pr[R(value) = output];
    * ``variance_bound`` — the largest per-user variance of ``estimate`` over
      every input law (used by the CLT group-size rule and the theory curves).

    Examples
    --------
    >>> LocalRandomizer(epsilon=1.0)
    LocalRandomizer(epsilon=1)
    """

    name = "randomizer"

    @validate_params({"epsilon": Epsilon()})
    def __init__(self, epsilon):
        self.epsilon = epsilon

    def randomize(self, values, rng=None):  # pragma: no cover - abstract
        raise NotImplementedError

    def estimate(self, outputs):
        """The unbiased estimate of each user's input; the identity unless overridden."""
        return np.asarray(outputs, dtype=float)

    def probability(self, outputs, values):  # pragma: no cover - abstract
        raise NotImplementedError

    def as_audit_mechanism(self):
        """The vectorised form ``mechanism(value, n_trials, rng)`` that :mod:`dpteach.audit` expects.

        Runs the randomizer ``n_trials`` times on the one-record database ``value``.
        """
        def mechanism(value, n_trials, rng):
            return self.randomize(np.full(n_trials, value), rng)
        mechanism.__name__ = type(self).__name__
        return mechanism

    def __repr__(self):
        return f"{type(self).__name__}(epsilon={self.epsilon:g})"


@validate_params({"epsilon": Epsilon()})
def onebit_constant(epsilon):
    """c = (e^ε + 1)/(e^ε − 1) = coth(ε/2), computed without overflow (chapter 3, the one-bit randomizer before Theorem 3.3).

    The output magnitude of the one-bit randomizer and the scale of every
    bound on it. ``epsilon``: 0 < ε < inf, a normal float (validated; the check is O(1)).

    Examples
    --------
    >>> round(onebit_constant(epsilon=1.0), 4)
    2.164
    """
    return onebit_constant_prechecked(epsilon)


def onebit_constant_prechecked(epsilon):
    """:func:`onebit_constant` on a checked ε, for the group-size loops (one call per query or bisection step).

    A normal ε > 0 (ε >= 2.2e-308, as ``Epsilon`` asks) has tanh(ε/2) >= 1.1e-308 > 0, so c <= 9e307 is finite.
    """
    return 1.0 / math.tanh(epsilon / 2)


# Released bits (0/1) or their means: a real scalar or array (any shape) in [0, 1].
@validate_params({"released": PositiveArray(allow_zero=True, maximum=1, include_maximum=True),
                  "epsilon": Epsilon()})
def rr_debias(released, epsilon):
    """Unbiased estimate of bits (or of their mean) from randomized-response outputs (the debiasing formula before Theorem 3.3).

    b̂ = ((1 + e^ε)·o − 1)/(e^ε − 1), written as (o − 1/(1 + e^ε))/tanh(ε/2):
    the same number without overflow for large ε. Linear in o, so it maps
    the mean of the released bits to the debiased mean.

    Parameters
    ----------
    released : float or array_like
        Released bits (0/1) or their means, finite values in [0, 1].
    epsilon : float
        0 < ε < inf.

    Examples
    --------
    >>> rr_debias(released=np.array([0, 1, 1, 0, 1]), epsilon=1.0).round(3)
    array([-0.582,  1.582,  1.582, -0.582,  1.582])
    """
    return (released - special.expit(-epsilon)) / math.tanh(epsilon / 2)


@validate_params({"rule": Unchecked("a group-size rule of dpteach.group_sizes (GROUP_SIZE_RULES), checked by "
                                    "the routines that take one; any rule but 'rr' is stated for 'laplace'")})
def default_randomizer(rule):
    """The randomizer a group-size rule is stated for: "onebit" for rule "rr", else "laplace".

    Examples
    --------
    >>> default_randomizer(rule="theorem")
    'laplace'
    """
    return "onebit" if rule == "rr" else "laplace"


@privacy_claim(theorem="thm-randomizers-private", epsilon="epsilon", delta=0.0, model="local")
class RandomizedResponse(LocalRandomizer):
    """Warner's randomized response on bits (chapter 1; chapter 3, Theorem 3.3): keep w.p. e^ε/(1+e^ε), else flip.

    ``randomize`` is :func:`dpteach.mechanisms.randomized_response` itself.
    The debiased estimate of a bit b from the released bit o is

        b̂ = ((1 + e^ε)·o − 1) / (e^ε − 1),

    unbiased because E[o | b] = (1−q) + (2q−1)·b with q = e^ε/(1+e^ε); its
    variance given b is e^ε/(e^ε − 1)² ("noise variance"), so for a
    population with Pr[b = 1] = p a user's b̂ has variance
    p(1−p) + e^ε/(e^ε − 1)² <= 1/4 + e^ε/(e^ε − 1)² (``variance_bound``).

    Examples
    --------
    >>> round(RandomizedResponse(epsilon=1.0).keep_probability, 4)
    0.7311
    """

    name = "randomized response"

    @property
    def keep_probability(self):
        return float(special.expit(self.epsilon))

    @property
    def noise_variance(self):
        """Var[b̂ | b] = e^ε/(e^ε − 1)² = 1/(4 sinh²(ε/2)), computed without overflow."""
        return 1.0 / (4.0 * math.sinh(self.epsilon / 2) ** 2)

    @property
    def variance_bound(self):
        return 0.25 + self.noise_variance

    def randomize(self, bits, rng=None):
        return randomized_response(bits, self.epsilon, rng)

    def estimate(self, outputs):
        """Per-output unbiased estimate of the input bit (the debiasing formula before Theorem 3.3).

        Written as (o − 1/(1+e^ε)) / tanh(ε/2), the same number without overflow for large ε.
        """
        return rr_debias(check_bits(outputs, "outputs").astype(float), self.epsilon)

    def probability(self, outputs, values):
        """Pr[R(b) = o] = q if o == b else 1 − q (broadcast over both arguments)."""
        o = check_bits(outputs, "outputs")
        b = check_bits(values, "values")
        q = self.keep_probability
        return np.where(o == b, q, 1.0 - q)


@validate_params({"outputs": Bits(ndim=1),
                  "epsilon": Epsilon()})
def debias_randomized_response(outputs, epsilon):
    """Unbiased estimate of the fraction of ones from randomized-response outputs (the debiasing formula before Theorem 3.3).

    Parameters
    ----------
    outputs : array_like of bits
        The released bits o_1..o_n of :func:`dpteach.mechanisms.randomized_response`.
    epsilon : float
        The ε the bits were released with, 0 < ε < inf.

    Returns
    -------
    float
        p̂ = ((1 + e^ε)·ō − 1)/(e^ε − 1), with E p̂ = (1/n) Σ b_i exactly and
        Var p̂ = e^ε/(n (e^ε − 1)²) given the true bits. Not clipped to [0, 1]
        (clipping would bias it). Cost O(n).

    Examples
    --------
    >>> round(debias_randomized_response(outputs=np.array([0, 1, 1, 0, 1]), epsilon=1.0), 4)
    0.7164
    """
    return float(np.mean(RandomizedResponse(epsilon).estimate(outputs)))


@privacy_claim(theorem="thm-randomizers-private", epsilon="epsilon", delta=0.0, model="local")
class LaplaceRandomizer(LocalRandomizer):
    """The Laplace randomizer R_φ(z) = φ(z) + Lap(2/ε) of the slides (chapter 3, before Theorem 3.3).

    For a query φ: Z → [−1, 1] two inputs differ by at most 2 (the
    sensitivity of a one-record database), so Laplace noise of scale 2/ε makes
    the density ratio at most e^{ε·2/2} = e^ε. Implemented with
    :func:`dpteach.mechanisms.laplace_mechanism` (sensitivity 2). The output
    is its own unbiased estimate; noise variance 2·(2/ε)² = 8/ε², so a user's
    output has variance Var φ + 8/ε² <= 1 + 8/ε².

    Examples
    --------
    >>> LaplaceRandomizer(epsilon=1.0).scale
    2.0
    """

    name = "Laplace"
    #: Largest |φ(z) − φ(z')| for φ with values in [−1, 1].
    sensitivity = 2.0

    @property
    def scale(self):
        return self.sensitivity / self.epsilon

    @property
    def noise_variance(self):
        return 2.0 * self.scale ** 2

    @property
    def variance_bound(self):
        return 1.0 + self.noise_variance

    def noise_sum(self, m, rng, size=None):
        """The sum of m independent Lap(b) noises, drawn exactly in law in O(1): Gamma(m, b) − Gamma(m, b).

        A Laplace variable is the difference of two exponentials, and a sum of m
        Exp(b) is Gamma(m, b). ``m`` and ``rng`` (a Generator) must already be valid.
        """
        return rng.gamma(m, self.scale, size=size) - rng.gamma(m, self.scale, size=size)

    def randomize(self, values, rng=None):
        return self.randomize_prechecked(check_unit_interval(values), as_rng(rng))

    def randomize_prechecked(self, values, rng):
        """:meth:`randomize` on values already in [−1, 1] (a float array) and a Generator: the simulation's loop."""
        return np.asarray(laplace_mechanism_prechecked(values, self.sensitivity, self.epsilon, rng), dtype=float)

    def probability(self, outputs, values):
        """Density of φ + Lap(b) at ``outputs``: exp(−|w − v|/b)/(2b), b = 2/ε."""
        w = check_finite_array(outputs, "outputs", ndim=None)
        v = check_unit_interval(values)
        b = self.scale
        return np.exp(-np.abs(w - v) / b) / (2 * b)


class HalfNoiseLaplaceRandomizer(LaplaceRandomizer):
    """A deliberately WRONG Laplace randomizer: scale 1/ε, as if a [−1, 1] query had sensitivity 1.

    Only ln-ratio e^{2ε} is guaranteed, i.e. it is 2ε-local, not ε-local.
    For the chapter's audit demonstration (an audit must catch it) and the tests.

    Examples
    --------
    >>> HalfNoiseLaplaceRandomizer(epsilon=1.0).scale
    1.0
    """

    name = "Laplace with scale 1/ε (broken)"
    sensitivity = 1.0


@privacy_claim(theorem="thm-randomizers-private", epsilon="epsilon", delta=0.0, model="local")
class OneBitRandomizer(LocalRandomizer):
    """The one-bit randomizer [−1, 1] → {±c}, c = (e^ε + 1)/(e^ε − 1) (chapter 3, the one-bit randomizer before Theorem 3.3).

    Round v ∈ [−1, 1] to s = ±1 with Pr[s = 1] = (1 + v)/2, release s by
    randomized response (:func:`dpteach.mechanisms.randomized_response`) and
    output c·s'. Then Pr[c·s' = +c | v] = (1 + v/c)/2, so E[c s'] = v
    (unbiased) and the two output probabilities of any two inputs differ by
    the factor (1 + 1/c)/(1 − 1/c) = e^ε at most. Outputs lie in [−c, c]
    (Hoeffding applies directly); variance c² − v² <= c² (``variance_bound``).

    Examples
    --------
    >>> round(OneBitRandomizer(epsilon=1.0).c, 4)
    2.164
    """

    name = "one-bit"

    @property
    def c(self):
        """c = (e^ε + 1)/(e^ε − 1) = coth(ε/2) (:func:`onebit_constant`)."""
        return onebit_constant_prechecked(self.epsilon)  # ε was checked when the randomizer was made

    @property
    def variance_bound(self):
        return self.c ** 2

    def randomize(self, values, rng=None):
        return self.randomize_prechecked(check_unit_interval(values), as_rng(rng))

    def randomize_prechecked(self, v, rng):
        """:meth:`randomize` on values already in [−1, 1] (a float array) and a Generator: the simulation's loop."""
        s = rng.random(v.shape) < (1 + v) / 2
        released = randomized_response(s, self.epsilon, rng)
        return self.c * (2.0 * released - 1.0)

    def probability(self, outputs, values):
        """Pr[output | v]: (1 + v/c)/2 for +c and (1 − v/c)/2 for −c."""
        w = check_finite_array(outputs, "outputs", ndim=None)
        v = check_unit_interval(values)
        c = self.c
        if not np.all(np.isclose(np.abs(w), c, rtol=1e-12, atol=0.0)):
            raise ValueError(f"outputs of the one-bit randomizer must be ±c = ±{c:.6g}, "
                             f"found {w[~np.isclose(np.abs(w), c)].ravel()[0].item()!r}")
        return np.where(w > 0, (1 + v / c) / 2, (1 - v / c) / 2)


_RANDOMIZERS = {"rr": RandomizedResponse, "laplace": LaplaceRandomizer, "onebit": OneBitRandomizer}


@validate_params({"name": Options(tuple(_RANDOMIZERS)), "epsilon": Epsilon()})
def make_randomizer(name, epsilon):
    """The randomizer called ``name`` ("rr", "laplace" or "onebit") at privacy ε.

    Examples
    --------
    >>> make_randomizer(name="laplace", epsilon=1.0)
    LaplaceRandomizer(epsilon=1)
    """
    return _RANDOMIZERS[name](epsilon)
