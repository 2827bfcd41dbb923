"""Each theorem's rate as a plain function, for theory-versus-experiment plots.

A function here returns exactly the right-hand side of the theorem it cites,
constants included, so a figure can draw the guarantee next to the
measurement and the text can say honestly where the constants are loose.
Sections follow the chapters; later chapters append their own section.
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import check_epsilon, check_int, check_positive, check_probability

__all__ = [
    "laplace_expected_absolute_error",
    "laplace_tail_bound",
    "exponential_mechanism_utility_bound",
]

# --- Chapter 1: DP basics and the exponential mechanism ---------------------


def laplace_expected_absolute_error(sensitivity, epsilon):
    """E|Lap(Δ/ε)| = Δ/ε: the expected error of the Laplace mechanism (chapter 1, thm-laplace)."""
    return check_positive(sensitivity, "sensitivity") / check_epsilon(epsilon)


def laplace_tail_bound(sensitivity, epsilon, beta):
    """The t with Pr[|Lap(Δ/ε)| > t] = β, i.e. t = (Δ/ε) ln(1/β) (chapter 1, thm-laplace, accuracy part)."""
    beta = check_probability(beta, "beta")
    return laplace_expected_absolute_error(sensitivity, epsilon) * math.log(1 / beta)


def exponential_mechanism_utility_bound(n_candidates, sensitivity, epsilon, t=None):
    """Utility of the exponential mechanism (chapter 1, thm-exponential-mechanism-utility; Dwork–Roth Thm 3.11).

    With ``t=None``: the bound on the expected loss,
    E[OPT − q(D, M(D))] <= (2Δ/ε)(ln R + 1).
    With ``t > 0``: the loss exceeded with probability at most e^{-t},
    (2Δ/ε)(ln R + t).

    Parameters
    ----------
    n_candidates : int
        R, the number of candidates, >= 1.
    sensitivity : float
        Δq > 0.
    epsilon : float
        ε > 0 (array_like is accepted for plotting: evaluated elementwise).
    """
    n_candidates = check_int(n_candidates, "n_candidates", minimum=1)
    sensitivity = check_positive(sensitivity, "sensitivity")
    slack = 1.0 if t is None else check_positive(t, "t")
    epsilon = np.asarray(epsilon, dtype=float)
    for e in epsilon.ravel():
        check_epsilon(e)
    value = 2 * sensitivity / epsilon * (math.log(n_candidates) + slack)
    return float(value) if value.ndim == 0 else value


# --- Chapter 2: the generic private learner ---------------------------------
#
# Sample complexities of thm-generic-utility (Kasiviswanathan et al.), the
# realizable corollary, and the non-private ERM baselines they are compared
# with. ``n_hypotheses`` is a real number >= 1 (|H| = 2^d overflows an int
# quickly in plots); ``epsilon`` and ``n`` may be arrays for plotting.


def _chapter2_inputs(n_hypotheses, beta):
    size = check_positive(n_hypotheses, "n_hypotheses")
    if size < 1:
        raise ValueError(f"n_hypotheses must be >= 1 (the size |H| of a non-empty class), got {n_hypotheses!r}")
    return size, check_probability(beta, "beta")


def _epsilons(epsilon):
    eps = np.asarray(epsilon, dtype=float)
    for e in eps.ravel():
        check_epsilon(e)
    return eps


def _positive_array(values, name):
    arr = np.asarray(values, dtype=float)
    for v in arr.ravel():
        check_positive(v, name)
    return arr


def _scalar_or_array(value, as_int=False):
    value = np.ceil(value).astype(np.int64) if as_int else value
    return (int(value) if as_int else float(value)) if np.ndim(value) == 0 else value


def generic_learner_sample_complexity(n_hypotheses, epsilon, alpha, beta, form="exact"):
    """Examples the generic private learner needs for excess error <= α w.p. >= 1 − β (chapter 2, thm-generic-utility).

    ``form="exact"``: n >= max{ (9/(2α²)) ln(4|H|/β), (6/(εα)) ln(2|H|/β) },
    the version of the slides' proof whose two failure terms are each <= β/2
    (Eq. (eq-generic-exact) of chapter 2).

    ``form="slide"``: n = 6 (ln|H| + ln(1/β)) · max{1/(εα), 1/α²}, the
    constant printed on the slides. It is slightly too small: at this n the
    failure bound of the proof is up to β + 2β^{4/3}|H|^{−1/3}, not β (see
    :func:`generic_learner_failure_bound` and the chapter's constant check).

    ``form="realizable"`` (OPT = 0; chapter 2, cor-generic-realizable):
    n >= max{ (8/α) ln(2|H|/β), (4/(εα)) ln(2|H|/β) }.

    Parameters
    ----------
    n_hypotheses : float, |H| >= 1
    epsilon : float or array_like, 0 < ε < inf
    alpha : float, 0 < α < 1
    beta : float, 0 < β < 1
    form : {"exact", "slide", "realizable"}

    Returns
    -------
    int or ndarray of int
        The smallest integer n satisfying the bound (elementwise in ε).
    """
    size, beta = _chapter2_inputs(n_hypotheses, beta)
    eps = _epsilons(epsilon)
    alpha = check_probability(alpha, "alpha")
    if form == "exact":
        n = np.maximum(9 / (2 * alpha ** 2) * math.log(4 * size / beta),
                       6 / (eps * alpha) * math.log(2 * size / beta))
    elif form == "slide":
        n = 6 * (math.log(size) + math.log(1 / beta)) * np.maximum(1 / (eps * alpha), 1 / alpha ** 2)
    elif form == "realizable":
        n = np.maximum(8 / alpha, 4 / (eps * alpha)) * math.log(2 * size / beta)
    else:
        raise ValueError(f"form must be one of 'exact', 'slide', 'realizable', got {form!r}")
    return _scalar_or_array(n, as_int=True)


def generic_learner_failure_bound(n_hypotheses, epsilon, alpha, n):
    """The failure probability bound of the utility proof: 2|H| e^{−2nα²/9} + |H| e^{−εnα/6} (chapter 2, Eq. (eq-generic-failure)).

    Pr[err(A(z)) > OPT + α] is below this value (ρ = α/3 in the proof).
    Vectorised over ``epsilon`` and ``n``; may exceed 1 (then it says nothing).
    """
    size = check_positive(n_hypotheses, "n_hypotheses")
    eps = _epsilons(epsilon)
    alpha = check_probability(alpha, "alpha")
    n = _positive_array(n, "n")
    value = 2 * size * np.exp(-2 * n * alpha ** 2 / 9) + size * np.exp(-eps * n * alpha / 6)
    return _scalar_or_array(value)


def generic_learner_accuracy(n_hypotheses, epsilon, n, beta, form="exact"):
    """The excess error α that thm-generic-utility guarantees with n examples (w.p. >= 1 − β).

    The sample complexity solved for α, for theory curves in error-versus-n plots:

    * ``"exact"``: α(n) = max{ √(9 ln(4|H|/β)/(2n)), 6 ln(2|H|/β)/(εn) };
    * ``"slide"``: α(n) = max{ √(6L/n), 6L/(εn) } with L = ln|H| + ln(1/β);
    * ``"realizable"``: α(n) = max{ 8, 4/ε } · ln(2|H|/β)/n.

    The 1/n term (privacy) dominates for small ε·n, the 1/√n term (sampling)
    otherwise. Vectorised over ``epsilon`` and ``n``.
    """
    size, beta = _chapter2_inputs(n_hypotheses, beta)
    eps = _epsilons(epsilon)
    n = _positive_array(n, "n")
    if form == "exact":
        alpha = np.maximum(np.sqrt(9 * math.log(4 * size / beta) / (2 * n)),
                           6 * math.log(2 * size / beta) / (eps * n))
    elif form == "slide":
        log_term = math.log(size) + math.log(1 / beta)
        alpha = np.maximum(np.sqrt(6 * log_term / n), 6 * log_term / (eps * n))
    elif form == "realizable":
        alpha = np.maximum(8.0, 4 / eps) * math.log(2 * size / beta) / n
    else:
        raise ValueError(f"form must be one of 'exact', 'slide', 'realizable', got {form!r}")
    return _scalar_or_array(alpha)


def erm_sample_complexity(n_hypotheses, alpha, beta, realizable=False):
    """Examples that non-private ERM over a finite class needs (chapter 2, thm-generic-erm).

    Agnostic: n >= (2/α²) ln(2|H|/β) (Hoeffding + union bound give uniform
    convergence at α/2). Realizable: n >= (1/α) ln(|H|/β) (a consistent
    hypothesis with error > α survives n examples w.p. <= (1 − α)^n).
    Returns the smallest such integer n.
    """
    size, beta = _chapter2_inputs(n_hypotheses, beta)
    alpha = check_probability(alpha, "alpha")
    if realizable:
        n = math.log(size / beta) / alpha
    else:
        n = 2 / alpha ** 2 * math.log(2 * size / beta)
    return _scalar_or_array(np.asarray(n), as_int=True)


def erm_accuracy(n_hypotheses, n, beta, realizable=False):
    """The excess error ERM guarantees with n examples: √(2 ln(2|H|/β)/n), or ln(|H|/β)/n if realizable (thm-generic-erm)."""
    size, beta = _chapter2_inputs(n_hypotheses, beta)
    n = _positive_array(n, "n")
    value = math.log(size / beta) / n if realizable else np.sqrt(2 * math.log(2 * size / beta) / n)
    return _scalar_or_array(value)


def parity_success_lower_bound(d, n, epsilon):
    """Lower bound on Pr[the generic learner outputs the right parity] (chapter 2, Eq. (eq-generic-parity-success)).

    Realizable parities on x ~ U{0,1}^d: the right parity has no errors and
    each of the 2^d − 1 others has Bin(n, 1/2) errors, so by Jensen's
    inequality Pr[correct] >= 1 / (1 + (2^d − 1)((1 + e^{−ε/2})/2)^n).
    Vectorised over ``n`` and ``epsilon``.
    """
    d = check_int(d, "d", minimum=1)
    eps = _epsilons(epsilon)
    n = np.asarray(n, dtype=float)
    if np.any(n < 0) or not np.all(np.isfinite(n)):
        raise ValueError(f"n must be finite and >= 0, got {n!r}")
    log_wrong = math.log(2.0 ** d - 1) + n * np.log((1 + np.exp(-eps / 2)) / 2)
    return _scalar_or_array(1 / (1 + np.exp(log_wrong)))


__all__ += [
    "generic_learner_sample_complexity",
    "generic_learner_failure_bound",
    "generic_learner_accuracy",
    "erm_sample_complexity",
    "erm_accuracy",
    "parity_success_lower_bound",
]


# --- Chapter 3: local privacy and statistical queries -----------------------
#
# ``n``, ``m`` and ``tau`` may be arrays (for plotting); ε and p are scalars.


def _chapter3_array(values, name):
    arr = np.asarray(values, dtype=float)
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be finite and > 0 (valid range: 0 < {name} < inf), got {values!r}")
    return arr


def local_mean_rmse(n, epsilon, p, randomizer="rr", include_sampling=True):
    """RMSE of the local estimate of p = Pr[b = 1] from n users (chapter 3, eq-local-rmse).

    √((p(1 − p) + v)/n) with the randomizer's noise variance v:
    e^ε/(e^ε − 1)² for randomized response (debiased, eq-rr-debias) and 2/ε²
    for the Laplace randomizer on φ = 2b − 1 (its 8/ε², divided by 4 for the
    map back to p). Θ(1/(ε√n)) for small ε. ``include_sampling=False`` drops
    p(1 − p): the error against the data's own mean.
    """
    n = _chapter3_array(n, "n")
    epsilon = check_epsilon(epsilon)
    p = check_probability(p, "p", low_open=False, high_open=False)
    if randomizer == "rr":
        noise = 1.0 / (4.0 * math.sinh(epsilon / 2) ** 2)
    elif randomizer == "laplace":
        noise = 2.0 / epsilon ** 2
    else:
        raise ValueError(f"randomizer must be one of 'rr', 'laplace', got {randomizer!r}")
    value = np.sqrt((p * (1 - p) * bool(include_sampling) + noise) / n)
    return float(value) if value.ndim == 0 else value


def central_mean_rmse(n, epsilon, p, include_sampling=True):
    """RMSE of the central Laplace mean k/n + Lap(1/(nε)): √(p(1 − p)/n + 2/(nε)²) (chapter 3, eq-central-rmse).

    The privacy part √2/(nε) is Θ(1/(εn)), a factor √n below the local
    Θ(1/(ε√n)). ``include_sampling=False`` drops p(1 − p)/n.
    """
    n = _chapter3_array(n, "n")
    epsilon = check_epsilon(epsilon)
    p = check_probability(p, "p", low_open=False, high_open=False)
    value = np.sqrt(p * (1 - p) / n * bool(include_sampling) + 2.0 / (n * epsilon) ** 2)
    return float(value) if value.ndim == 0 else value


def sq_answer_failure_bound(m, epsilon, tau, constants="theorem"):
    """Pr[one simulated SQ answer is off by more than τ] for a group of m users (chapter 3, thm-one-query).

    ``"theorem"`` (our constants, valid for ετ <= 8√2): 2e^{−τ²m/8} + 2e^{−mε²τ²/128}.
    ``"slide"`` (the slides' constants as we read them, [D?]): 2e^{−τ²m/8} + e^{−ε²τ²m/64}.
    Clipped to 1.
    """
    m = _chapter3_array(m, "m")
    epsilon = check_epsilon(epsilon)
    tau = check_probability(tau, "tau")
    if constants == "theorem":
        if epsilon * tau > 8 * math.sqrt(2):
            raise ValueError(f"epsilon·tau must be <= 8√2 for the theorem's Chernoff step, got {epsilon * tau!r}")
        value = 2 * np.exp(-tau ** 2 * m / 8) + 2 * np.exp(-m * (epsilon * tau) ** 2 / 128)
    elif constants == "slide":
        value = 2 * np.exp(-tau ** 2 * m / 8) + np.exp(-(epsilon * tau) ** 2 * m / 64)
    else:
        raise ValueError(f"constants must be one of 'theorem', 'slide', got {constants!r}")
    value = np.minimum(value, 1.0)
    return float(value) if value.ndim == 0 else value


def rejection_sampling_tv_bound(tau, epsilon, t=1):
    """Total variation between t simulated and t real local reports: 2tτe^{2ε} (chapter 3, thm-local-to-sq) [O].

    Our reconstruction's bound (the slides do not contain the local → SQ
    direction); clipped to 1.
    """
    tau = _chapter3_array(tau, "tau")
    epsilon = check_epsilon(epsilon)
    t = check_int(t, "t", minimum=1)
    value = np.minimum(2 * t * tau * math.exp(2 * epsilon), 1.0)
    return float(value) if value.ndim == 0 else value


def rejection_sampling_queries(epsilon, tau=0.0):
    """Expected SQ queries per simulated report: e^ε/(1 − τe^{2ε}) (e^ε with an exact oracle) (chapter 3, thm-local-to-sq) [O]."""
    epsilon = check_epsilon(epsilon)
    tau = np.asarray(tau, dtype=float)
    relative = tau * math.exp(2 * epsilon)
    if np.any(tau < 0) or np.any(relative >= 1):
        raise ValueError(f"tau must satisfy 0 <= tau < e^(-2ε) = {math.exp(-2 * epsilon):.4g}, got {tau!r}")
    value = math.exp(epsilon) / (1 - relative)
    return float(value) if value.ndim == 0 else value


def masked_parity_lower_bound_shape(d, epsilon):
    """The shape 2^d/ε² of the non-interactive lower bound for masked parities (chapter 3, sketch; constants unknown) [M+O].

    From the Parseval argument: t fixed queries of tolerance τ can be
    correlated with at most t/τ² of the 2^d characters, and n users give
    t/τ² ≈ ε²n. Only the growth in d is meaningful.
    """
    d = np.asarray(d, dtype=float)
    epsilon = check_epsilon(epsilon)
    value = 2.0 ** d / epsilon ** 2
    return float(value) if value.ndim == 0 else value


__all__ += [
    "local_mean_rmse",
    "central_mean_rmse",
    "sq_answer_failure_bound",
    "rejection_sampling_tv_bound",
    "rejection_sampling_queries",
    "masked_parity_lower_bound_shape",
]
