"""The privacy records (dpteach/privacy.py, issue 32): a receipt computes its (ε, δ) from its steps; claims hold no prose.

Every learner's own receipt is checked in tests/test_sklearn_compat.py (the composition its theorem uses, the
budget asked for); here the records themselves: the composition rules applied, the refusals, ε = inf.
"""

from __future__ import annotations

import dataclasses
import math
import pickle

import pytest

from dpteach.composition import basic_composition, parallel_composition
from dpteach.privacy import COVERS, PrivacyClaim, PrivacyReceipt, PrivacyStep, claim_of, privacy_claim


def _step(rows="rows of part A", epsilon=1.0, delta=0.0):
    return PrivacyStep("a release", rows, epsilon, delta, "thm-gaussian-analytic")


def _receipt(steps, composition=basic_composition):
    return PrivacyReceipt(steps=steps, composition=composition, theorem="thm-my-learner", why="w")


def test_basic_composition_sums_and_parallel_composition_takes_the_maxima():
    # Theorem 1.16 and 1.18 on the same two steps: a receipt that used the wrong one would show another total.
    same_rows = [_step("all rows", 0.5, 1e-6), _step("all rows", 0.25, 2e-6)]
    assert (_receipt(same_rows).epsilon, _receipt(same_rows).delta) == (0.75, 3e-6)
    disjoint = [_step("rows of part A", 0.5, 1e-6), _step("rows of part B", 0.25, 2e-6)]
    receipt = _receipt(disjoint, parallel_composition)
    assert (receipt.epsilon, receipt.delta) == (0.5, 2e-6) and receipt.is_private


def test_parallel_composition_refuses_steps_that_read_the_same_rows():
    with pytest.raises(ValueError, match="same rows"):
        _receipt([_step("all rows", 0.5), _step("all rows", 0.25)], parallel_composition)


def test_a_receipt_takes_no_total_and_reads_by_attribute_only():
    with pytest.raises(TypeError, match="epsilon"):
        PrivacyReceipt(steps=[_step()], composition=basic_composition, theorem="thm-x", why="w", epsilon=1.0)
    receipt = _receipt([_step()])
    with pytest.raises(dataclasses.FrozenInstanceError):
        receipt.epsilon = 2.0
    with pytest.raises(TypeError):
        receipt["epsilon"]  # no Mapping view (issue 32): attributes only
    assert receipt.steps == (_step(),)  # a tuple, whatever sequence was passed
    assert pickle.loads(pickle.dumps(receipt)) == receipt == _receipt((_step(),))
    assert repr(receipt).startswith("PrivacyReceipt(epsilon=1.0, delta=0.0, composition=basic_composition, "
                                    "theorem='thm-my-learner'")
    assert receipt.covers == COVERS and f"covers={COVERS!r}" in repr(receipt)


def test_a_step_without_guarantee_leaves_the_fit_without_one():
    # ε = inf: the non-private reference run. δ is still composed by the theorem's rule.
    steps = [_step("rows of part A", math.inf, 2.0 ** -20), _step("rows of part B", 1.0, 2.0 ** -19)]  # exact sums
    parallel, basic = _receipt(steps, parallel_composition), _receipt(steps)
    assert (parallel.epsilon, parallel.delta) == (math.inf, 2.0 ** -19) and not parallel.is_private
    assert (basic.epsilon, basic.delta) == (math.inf, 3 * 2.0 ** -20)


def test_steps_whose_delta_composes_to_one_are_refused():
    with pytest.raises(ValueError, match="delta"):
        _receipt([_step(delta=0.6), _step(delta=0.6)])


@pytest.mark.parametrize("kwargs, error, word", [
    (dict(steps=[]), ValueError, "steps"),
    (dict(steps=None), TypeError, "steps"),
    (dict(steps=[{"epsilon": 1.0}]), TypeError, "steps"),
    (dict(composition=max), ValueError, "composition"),
    (dict(composition="parallel_composition"), ValueError, "composition"),
    (dict(theorem="Theorem 9.3"), ValueError, "theorem"),
    (dict(why=""), ValueError, "why"),
    (dict(why=None), TypeError, "why"),
])
def test_receipt_refuses_bad_values_by_name(kwargs, error, word):
    arguments = dict(steps=[_step()], composition=basic_composition, theorem="thm-x", why="w") | kwargs
    with pytest.raises(error, match=word):
        PrivacyReceipt(**arguments)


@pytest.mark.parametrize("kwargs, error, word", [
    (dict(epsilon=0.0), ValueError, "epsilon"),
    (dict(epsilon=-1.0), ValueError, "epsilon"),
    (dict(epsilon=math.nan), ValueError, "epsilon"),
    (dict(epsilon=1e-310), ValueError, "epsilon"),
    (dict(epsilon="1"), TypeError, "epsilon"),
    (dict(epsilon=True), TypeError, "epsilon"),
    (dict(delta=1.0), ValueError, "delta"),
    (dict(delta=-0.1), ValueError, "delta"),
    (dict(rows=None), TypeError, "rows"),
    (dict(accountant=""), ValueError, "accountant"),
])
def test_step_refuses_bad_values_by_name(kwargs, error, word):
    arguments = dict(name="a release", rows="all rows", epsilon=1.0, delta=0.0, accountant="zcdp") | kwargs
    with pytest.raises(error, match=word):
        PrivacyStep(**arguments)


def test_a_step_may_have_no_guarantee():
    assert PrivacyStep("a release", "all rows", math.inf, 0.0, "none").epsilon == math.inf


# --- claims ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("epsilon", ["the epsilon of sigma", "epsilon, on the event E only", "any δ in (0, 1)", "1",
                                     ""])
def test_a_claim_refuses_prose_in_epsilon(epsilon):
    with pytest.raises(ValueError, match="condition"):
        privacy_claim(theorem="thm-my-mechanism", epsilon=epsilon)


def test_a_claim_takes_a_number_a_name_or_a_formula_and_its_condition_apart():
    claim = PrivacyClaim(theorem="thm-noisy-ols", epsilon="peeling_epsilon(s, epsilon, delta)", delta=1e-5,
                         condition="on the event E only")
    assert claim.condition == "on the event E only" and PrivacyClaim(theorem="thm-x", epsilon=0.5).epsilon == 0.5
    with pytest.raises(ValueError, match="delta"):
        PrivacyClaim(theorem="thm-x", delta=1.0)
    with pytest.raises(ValueError, match="theorem"):
        PrivacyClaim(theorem="Theorem 8.11")


def test_the_claims_that_held_prose_now_name_their_condition():
    # issue 32: these four put prose in epsilon; the condition has its own field now.
    from dpteach.dp_erm import noisy_average_subgradient
    from dpteach.dp_logistic import noisy_clipped_gradient_sum
    from dpteach.dpsas_steps import dpsas_round
    from dpteach.regression import noisy_ols
    for routine in (noisy_average_subgradient, noisy_clipped_gradient_sum, dpsas_round, noisy_ols):
        claim = claim_of(routine)
        assert claim.condition and claim.epsilon in ("epsilon", "gaussian_epsilon(sigma, 2 * clip_norm, delta)",
                                                     "gaussian_epsilon(sigma, 2 * clip_norm / len(y_block), delta)")


def test_the_dp_sgd_receipt_records_a_sigma_its_accountant_certifies():
    # The one step of DP-SGD is the E epochs with σ. The exact accountant: E Gaussian sums of sensitivity 2C are one
    # of sensitivity 2C·√E, whose δ at the step's ε is at most the step's δ (Theorem 1.10).
    import numpy as np
    from dpteach.dp_logistic import DPSGDLogisticRegression
    from dpteach.mechanisms import gaussian_delta
    X = np.random.default_rng(0).normal(size=(60, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    model = DPSGDLogisticRegression(1.0, 1e-5, n_epochs=3, accountant="exact", random_state=0).fit(X, y)
    (step,) = model.privacy_.steps
    assert step.accountant == "exact" and f"sigma = {model.sigma_:.4g}" in step.name
    assert step.epsilon == 1.0 and gaussian_delta(model.sigma_, 2 * model.clip_norm_ * math.sqrt(3), 1.0) <= step.delta
