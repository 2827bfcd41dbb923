"""Chapter 8 (issue 20): what DPSAS's trace releases, and the closed-form threshold bias behind the C·OPT plateau."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from dpteach import bounds, dpsas, dpsas_steps
from dpteach.data import (rcn_halfspace_error, structured_noise_halfspace_data, structured_noise_halfspace_error)
from dpteach.experiments import dpsas as ex


def _data(seed=0, n=6000, d=4):
    return ex.rcn_dataset(n, d, 0.5, 0.05, np.random.default_rng(seed))


def test_default_trace_holds_only_private_quantities():
    # The old trace carried 'grad_norm', the norms of the noise-free block gradients: a statistic of the raw data
    # outside the (epsilon, delta) claim. Every key of the default trace must be in the documented private list, and
    # the schedule and step size must be functions of the private tau alone (recomputed here from tau).
    X, y, normal = _data()
    w, tau, trace = dpsas.dpsas(X, y, 1.0, 1e-6, 0.1, rng=1, w_star=normal)
    assert set(trace) <= set(dpsas.PRIVATE_TRACE_KEYS)
    assert "grad_norm" not in trace
    phi, a, b = dpsas_steps.round_schedule(trace["n_rounds"], 2.0, tau)
    np.testing.assert_array_equal(trace["phi"], phi)
    np.testing.assert_array_equal(trace["a"], a)
    np.testing.assert_array_equal(trace["b"], b)
    assert trace["step_size"] == dpsas_steps.step_size("reconstructed", 2.0, tau)
    np.testing.assert_array_equal(trace["w"][-1], w)
    np.testing.assert_allclose(np.cos(np.radians(trace["angle_deg"])), trace["w"] @ normal, atol=1e-9)


def test_non_private_gradient_norms_only_on_explicit_request():
    X, y, _ = _data()
    w, tau, trace = dpsas.dpsas(X, y, 1.0, 1e-6, 0.1, rng=1)
    w_dbg, tau_dbg, debug = dpsas.dpsas(X, y, 1.0, 1e-6, 0.1, rng=1, debug_nonprivate_grad_norm=True)
    # Asking for the diagnostic does not change the run (same randomness, same outputs).
    np.testing.assert_array_equal(w, w_dbg)
    assert tau == tau_dbg
    assert set(debug) - set(trace) == {"grad_norm"}
    assert debug["grad_norm"].shape == (debug["n_rounds"],) and np.all(debug["grad_norm"] >= 0)
    with pytest.raises(TypeError, match="debug_nonprivate_grad_norm"):
        dpsas.dpsas(X, y, 1.0, 1e-6, 0.1, rng=1, debug_nonprivate_grad_norm="yes")


def test_sample_reuse_trace_holds_only_private_quantities():
    X, y, normal = _data()
    _, _, trace = dpsas.dpsas_sample_reuse(X, y, 1.0, 1e-6, 0.1, rng=1, w_star=normal)
    assert set(trace) <= set(dpsas.PRIVATE_TRACE_KEYS)


def test_trajectories_release_no_grad_norm():
    X, y, normal = _data()
    runs = ex.trajectories(X, y, normal, [1.0, math.inf], eta=0.1, rng=0)
    assert all("grad_norm" not in run for run in runs.values())


def test_threshold_bias_error_closed_form():
    # Hand derivation at t* = 0.5, eta0 = 0.05: error/OPT = 1 + 2(1 - 2 eta0)(Phi(0.5) - 1/2) = 1 + 1.8*0.191462
    # = 1.344632. A variant that forgets the flips' effect on E[y] (tau = -t*) would give exactly 1.
    assert bounds.rcn_threshold_bias_error(0.5, 0.05) / 0.05 == pytest.approx(1.344632, abs=2e-6)
    assert bounds.rcn_threshold_bias_error(0.0, 0.05) == pytest.approx(0.05, abs=1e-15)
    assert bounds.rcn_threshold_bias_error(-0.5, 0.05) == pytest.approx(bounds.rcn_threshold_bias_error(0.5, 0.05))
    # Independent path: the data module's exact RCN error of sign(<w*, x> + tau_bar), tau_bar = Phi^{-1}(p).
    for t_star, eta0 in [(0.5, 0.05), (1.0, 0.1), (-2.0, 0.2)]:
        p = eta0 + (1 - 2 * eta0) * special.ndtr(-t_star)
        w = np.array([0.6, 0.8])
        expected = rcn_halfspace_error(w, -special.ndtri(p), w, t_star, eta0)
        assert bounds.rcn_threshold_bias_error(t_star, eta0) == pytest.approx(expected, abs=1e-9)
    # With the clip of line 5: at t* = 3, Pr[y = +1] = 0.05 + 0.9*Phi(-3) = 0.0512 is clipped up to kappa = 0.1.
    assert bounds.rcn_threshold_bias_error(3.0, 0.05, kappa=0.1) == pytest.approx(
        0.05 + 0.9 * (0.1 - special.ndtr(-3.0)), abs=1e-12)


def test_threshold_bias_matches_dpsas_threshold_on_a_large_sample():
    # lines 4-5 without noise on m = 4e6 RCN labels: the label mean has SE <= 1/sqrt(m) = 5e-4, so Pr[y=1] has SE
    # 2.5e-4 and tau_hat = Phi^{-1}(.) has SE 2.5e-4/phi(0.45) = 7e-4; 4 SE = 2.8e-3. tau_bar = -0.446 versus the
    # unbiased -0.5: a 0.054 gap, 19 SE.
    rng = np.random.default_rng(11)
    m = 4_000_000
    clean = np.where(rng.standard_normal(m) - 0.5 >= 0, 1.0, -1.0)
    y = np.where(rng.random(m) < 0.05, -clean, clean)
    tau_hat = dpsas_steps.private_threshold(y, math.inf, 0.05)
    tau_bar = special.ndtri(0.05 + 0.9 * special.ndtr(-0.5))
    assert tau_hat == pytest.approx(tau_bar, abs=2.8e-3)
    assert abs(tau_hat - (-0.5)) > 0.04


def test_structured_noise_error_is_exact():
    # In span(e1, e2) it must equal the data module's exact error; elsewhere a Monte Carlo over 1e6 fresh examples
    # (SE <= 5e-4; tolerance 4 SE = 2e-3).
    w2 = np.array([0.8, -0.6, 0.0, 0.0])
    assert ex.structured_noise_error(w2, -0.3, 0.5, 0.05) == pytest.approx(
        structured_noise_halfspace_error(w2[:2], 0.3, 0.5, 0.05), abs=1e-9)
    X, y = structured_noise_halfspace_data(1_000_000, 4, 0.5, 0.05, rng=3)
    for w, tau in [(np.array([0.9, 0.1, 0.3, -0.3]), -0.4), (np.array([0.2, 0.5, 0.7, 0.4]), 0.3)]:
        w = w / np.linalg.norm(w)
        mc = np.mean(np.where(X @ w + tau >= 0, 1.0, -1.0) != y)
        assert ex.structured_noise_error(w, tau, 0.5, 0.05) == pytest.approx(mc, abs=2e-3)
