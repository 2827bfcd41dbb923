"""Tests of dpteach.float_attack: the floating-point attack on dpteach's own Laplace mechanism (appendix A).

The attack is asserted, not just shown: on ``dpteach.mechanisms.laplace_mechanism``
the distinguisher's success rate lies far above the largest success that
ε-DP allows (Theorem A.1), with the measured figure stated below, and the
audit certifies an ε far above the claim. The reconstruction of numpy's
sampler is checked bit for bit, and the reachability test both ways
(every real output is found; a brute-force search agrees on the rest).
"""

import math

import numpy as np
import pytest
from scipy import special

from dpteach import float_attack as fa
from dpteach.audit import epsilon_lower_bound
from dpteach.mechanisms import laplace_mechanism, randomized_response

FALSE_ALARM = 1e-6


def _hoeffding(n_scores, level=FALSE_ALARM):
    """Half-width of a two-sided Hoeffding interval for a mean of n scores in [0, 1] at level 1 − ``level``."""
    return math.sqrt(math.log(2 / level) / (2 * n_scores))


# --- the reconstruction of numpy's sampler ----------------------------------------------------

@pytest.mark.parametrize("scale", [1.0, 2.0, 10.0, 0.37])
def test_formula_reproduces_numpy_laplace_bit_for_bit(scale):
    # Generator.random() and Generator.laplace() consume the same 53-bit uniforms
    # (one per draw), so the same seed gives the same U for both.
    uniforms = np.random.default_rng(11).random(50_000)
    noise = np.random.default_rng(11).laplace(0.0, scale, 50_000)
    assert np.array_equal(fa.numpy_laplace_from_uniforms(uniforms, scale), noise)


def _simd_log_reconstruction(uniforms, scale):
    """Broken variant: numpy's formula with ``np.log``, which on AVX-512 CPUs is numpy's SIMD log, not C's."""
    return np.where(uniforms >= 0.5, 0.0 - scale * np.log((2.0 - uniforms) - uniforms),
                    0.0 + scale * np.log(uniforms + uniforms))


def test_bit_for_bit_test_catches_a_reconstruction_with_numpys_simd_log():
    # The old reconstruction used np.log. Where numpy dispatches a SIMD log (AVX-512 here), it
    # differs from the C library's log by one ulp on ~0.35 % of inputs, so of 200 000 draws
    # about 700 differ and the bit-for-bit comparison above must reject it. On a CPU where
    # np.log *is* C's log the variant is not broken, and there is nothing to catch.
    uniforms = np.random.default_rng(11).random(200_000)
    noise = np.random.default_rng(11).laplace(0.0, 1.0, 200_000)
    broken = _simd_log_reconstruction(uniforms, 1.0)
    if np.array_equal(broken, noise):
        pytest.skip("np.log is the C library's log on this CPU (no SIMD log dispatched)")
    assert not np.array_equal(broken, noise)
    assert np.array_equal(fa.numpy_laplace_from_uniforms(uniforms, 1.0), noise)


def test_formula_matches_laplace_mechanism_itself():
    # laplace_mechanism(value, Δ, ε) = value + numpy noise of scale Δ/ε, with the
    # addition done in floating point: the attack targets exactly this.
    epsilon = 0.5
    released = laplace_mechanism(np.ones(1000), 1.0, epsilon, rng=5)
    uniforms = np.random.default_rng(5).random(1000)
    assert np.array_equal(released, 1.0 + fa.numpy_laplace_from_uniforms(uniforms, 1.0 / epsilon))


# --- reachability ---------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [0.0, 1.0, 0.3, -7.25, 1e6])
def test_every_real_output_is_reachable(value):
    # Completeness: no output the mechanism actually produced may be declared
    # unreachable, or the attack would accuse the truth.
    outputs = laplace_mechanism(np.full(30_000, value), 1.0, 0.5, rng=7)
    assert fa.reachable_outputs(outputs, value, 2.0).all()


def test_reachability_of_one_output_agrees_with_the_array_version():
    # The same answer for a scalar, a 1-d and a 2-d array of the same releases (a scalar once came back False).
    outputs = laplace_mechanism(np.zeros(6), 1.0, 0.5, rng=9)
    assert fa.reachable_outputs(outputs, 0.0, 2.0).all()
    assert [bool(fa.reachable_outputs(float(y), 0.0, 2.0)) for y in outputs] == [True] * 6
    assert fa.reachable_outputs(outputs.reshape(2, 3), 0.0, 2.0).shape == (2, 3)
    assert np.shape(fa.reachable_outputs(float(outputs[0]), 0.0, 2.0)) == ()


def _brute_force_reachable(y, value, scale, window=200):
    """Search 2·window + 1 grid uniforms around the inverse: independent of the module's candidate logic."""
    noise = y - value
    u = 1 - math.exp(-noise / scale) / 2 if noise >= 0 else math.exp(noise / scale) / 2
    centre = int(u * 2.0 ** 53)
    # numpy's random_laplace, one uniform at a time, with the C library's log (math.log), as numpy's C code
    # calls it; np.log would be numpy's SIMD log on some CPUs, one ulp off on ~0.35 % of inputs.
    for k in range(max(1, centre - window), min(2 ** 53 - 1, centre + window) + 1):
        u = k / 2.0 ** 53
        noise = 0.0 - scale * math.log((2.0 - u) - u) if u >= 0.5 else 0.0 + scale * math.log(u + u)
        if value + noise == y:
            return True
    return False


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_reachability_agrees_with_brute_force_on_neighbouring_doubles(value):
    # Soundness: take real outputs and the 3 doubles on each side of them (most
    # of which are unreachable) and compare with an exhaustive search.
    scale = 2.0
    centres = laplace_mechanism(np.full(40, value), 1.0, 0.5, rng=8)
    doubles = []
    for y in centres:
        doubles.append(y)
        low = high = y
        for _ in range(3):
            low, high = math.nextafter(low, -math.inf), math.nextafter(high, math.inf)
            doubles += [low, high]
    doubles = np.array(doubles)
    fast = fa.reachable_outputs(doubles, value, scale)
    slow = np.array([_brute_force_reachable(y, value, scale) for y in doubles])
    assert np.array_equal(fast, slow)
    # The doubles next to an output are mostly unreachable: the sampler's
    # outputs are sparse (appendix A: a noise gap is at least e ulps).
    assert 0.05 < fast.mean() < 0.6


# --- the attack on dpteach's Laplace mechanism --------------------------------------------------

@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0])
def test_attack_success_lies_far_outside_what_epsilon_dp_allows(epsilon):
    # Neighbouring counts 0 and 1 (sensitivity 1), n = 10_000 releases of each.
    # Measured (seeds below): success 0.905 at ε = 0.1, 0.904 at ε = 0.5, 0.904 at
    # ε = 1; the ε-DP limits are 0.525, 0.622, 0.731 (Theorem A.1).
    # The success is a mean of 2n scores in [0, 1]; Hoeffding at 1e-6 gives a
    # half-width of sqrt(ln(2e6)/(4n)) = 0.019. "Far outside": the lower end
    # clears the limit by 0.15 at every ε (the largest limit, 0.731, leaves 0.15).
    n = 10_000
    scale = 1.0 / epsilon
    out0 = laplace_mechanism(np.zeros(n), 1.0, epsilon, rng=100)
    out1 = laplace_mechanism(np.ones(n), 1.0, epsilon, rng=101)
    success = 0.5 * (np.mean(1 - fa.support_attack(out0, 0.0, 1.0, scale))
                     + np.mean(fa.support_attack(out1, 0.0, 1.0, scale)))
    assert success - _hoeffding(2 * n) > fa.max_guess_success(epsilon) + 0.15
    assert success > 0.88


def test_audit_certifies_an_epsilon_far_above_the_claim():
    # Event E = "the output is reachable from 0". P[M(0) ∈ E] = 1 exactly, while
    # P[M(1) ∈ E] ≈ 0.19, so the complement has probability 0 under D and 0.81
    # under D′: no finite ε satisfies (eq-audit-inequality). With 5_000 runs
    # the Clopper–Pearson bound certifies ε >= ln(0.8/(3.7/5000)) ≈ 7 at 95 %.
    epsilon = 0.5

    def mechanism(value, n, rng):
        return laplace_mechanism(np.full(n, float(value)), 1.0, epsilon, rng)

    def reachable_from_zero(outputs):
        return fa.reachable_outputs(outputs, 0.0, 1.0 / epsilon)

    result = epsilon_lower_bound(mechanism, 0, 1, reachable_from_zero, 5_000, rng=9)
    assert result.p_hat == 1.0
    assert 0.1 < result.q_hat < 0.3
    assert result.epsilon_lower > 6.0 > 10 * epsilon


def test_attack_fades_for_large_counts():
    # Honest limits of the demonstration: at count 10⁶ vs 10⁶ + 1 the doubles
    # near 10⁶ are coarser than the noise's lattice, every output is reachable
    # from both hypotheses and the distinguisher abstains (success 1/2).
    scale = 2.0
    out = laplace_mechanism(np.full(5000, 1e6), 1.0, 0.5, rng=10)
    guesses = fa.support_attack(out, 1e6, 1e6 + 1, scale)
    assert np.all(guesses == 0.5)


# --- Theorem A.1 --------------------------------------------------------------------------------

def test_max_guess_success_closed_form_and_linear_program():
    assert fa.max_guess_success(1e-12) == pytest.approx(0.5)
    assert fa.max_guess_success(math.log(3)) == pytest.approx(0.75)
    assert fa.max_guess_success(1.0, 0.1) == pytest.approx((math.e + 0.1) / (1 + math.e))
    assert fa.max_guess_success(800.0) == pytest.approx(1.0)  # no overflow
    # The bound is the optimum of: max (1 + p − q)/2 s.t. p <= e^ε q + δ,
    # 1 − q <= e^ε (1 − p) + δ over p, q in [0, 1]; a grid search agrees.
    p, q = np.meshgrid(np.linspace(0, 1, 1001), np.linspace(0, 1, 1001))
    for epsilon, delta in [(0.5, 0.0), (1.0, 0.05), (2.0, 0.0)]:
        feasible = (p <= math.exp(epsilon) * q + delta) & (1 - q <= math.exp(epsilon) * (1 - p) + delta)
        best = np.max(np.where(feasible, (1 + p - q) / 2, 0))
        assert best == pytest.approx(fa.max_guess_success(epsilon, delta), abs=1e-3)
        assert best <= fa.max_guess_success(epsilon, delta) + 1e-12


def test_randomized_response_meets_the_bound_exactly():
    # Randomized response is the extreme ε-DP mechanism: guessing the released
    # bit succeeds with probability exactly e^ε/(1 + e^ε). 6σ band,
    # σ = sqrt(p(1 − p)/n) <= 0.5/sqrt(40_000) = 0.0025.
    epsilon = 1.0
    bits = np.random.default_rng(12).random(40_000) < 0.5
    released = randomized_response(bits, epsilon, rng=13)
    success = np.mean(released == bits)
    assert abs(success - fa.max_guess_success(epsilon)) < 6 * 0.0025
    assert fa.max_guess_success(epsilon) == pytest.approx(special.expit(epsilon))


def test_lattice_neighbourhood_tabulates_consecutive_doubles_around_a_release():
    scale = 2.0  # sensitivity 1, ε = 0.5, computed as the mechanism does
    out = float(laplace_mechanism(np.array([1.0]), 1.0, 0.5, rng=3)[0])
    table = fa.lattice_neighbourhood(out, 0.0, 1.0, scale, width=3)
    values = [float.fromhex(row["value"]) for row in table]
    assert [row["offset"] for row in table] == list(range(-3, 4))
    assert values[3] == out
    assert all(math.nextafter(a, math.inf) == b for a, b in zip(values, values[1:]))
    # Each flag is the exact membership answer for that double, under each hypothesis.
    assert [row["from_0"] for row in table] == list(fa.reachable_outputs(values, 0.0, scale))
    assert [row["from_1"] for row in table] == list(fa.reachable_outputs(values, 1.0, scale))
    # The release is reachable from the count it came from; not every double next to it is.
    assert table[3]["from_1"]
    assert not all(row["from_1"] for row in table)


# --- bad input ------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, fragment", [
    (lambda: fa.numpy_laplace_from_uniforms([0.5], 0.0), "scale"),
    (lambda: fa.numpy_laplace_from_uniforms([0.0, 0.5], 1.0), "uniforms"),
    (lambda: fa.numpy_laplace_from_uniforms([1.0], 1.0), "uniforms"),
    (lambda: fa.numpy_laplace_from_uniforms([], 1.0), "uniforms"),
    (lambda: fa.numpy_laplace_from_uniforms([np.nan], 1.0), "uniforms"),
    (lambda: fa.reachable_outputs([np.inf], 0.0, 1.0), "outputs"),
    (lambda: fa.reachable_outputs([1.0], np.nan, 1.0), "value"),
    
    (lambda: fa.reachable_outputs([1.0], 0.0, -1.0), "scale"),
    (lambda: fa.reachable_outputs([1.0], 0.0, math.inf), "scale"),
    (lambda: fa.support_attack([1.0], 0.0, 0.0, 1.0), "value0 and value1"),
    (lambda: fa.support_attack([1.0], 0.0, math.inf, 1.0), "value1"),
    (lambda: fa.support_attack([], 0.0, 1.0, 1.0), "outputs"),
    (lambda: fa.max_guess_success(0.0), "epsilon"),
    (lambda: fa.max_guess_success(math.nan), "epsilon"),
    (lambda: fa.max_guess_success(1.0, 1.0), "delta"),
    (lambda: fa.max_guess_success(1.0, -0.1), "delta"),
    (lambda: fa.lattice_neighbourhood(1.0, 0.0, 1.0, 2.0, width=0), "width"),
    (lambda: fa.lattice_neighbourhood(1.0, 0.0, 1.0, 2.0, width=1001), "width"),
    (lambda: fa.lattice_neighbourhood(np.finfo(float).max, 0.0, 1.0, 2.0), "output"),
    (lambda: fa.lattice_neighbourhood(np.nan, 0.0, 1.0, 2.0), "output"),
    (lambda: fa.lattice_neighbourhood(1.0, 0.0, 1.0, 0.0), "scale"),
])
def test_bad_input_raises_value_error_naming_the_parameter(call, fragment):
    with pytest.raises(ValueError, match=fragment):
        call()


@pytest.mark.parametrize("call, fragment", [
    (lambda: fa.max_guess_success("1"), "epsilon"),
    (lambda: fa.max_guess_success(True), "epsilon"),
    (lambda: fa.max_guess_success(None), "epsilon"),
    (lambda: fa.max_guess_success(1.0, None), "delta"),
    (lambda: fa.numpy_laplace_from_uniforms([0.5], "1"), "scale"),
    (lambda: fa.reachable_outputs(["a"], 0.0, 1.0), "outputs"),
    (lambda: fa.support_attack([1.0], None, 1.0, 1.0), "value0"),
    (lambda: fa.reachable_outputs([1.0], [0.0, 1.0], 1.0), "value"),
    (lambda: fa.reachable_outputs([1.0], True, 1.0), "value"),
    (lambda: fa.lattice_neighbourhood("1.0", 0.0, 1.0, 2.0), "output"),
    (lambda: fa.numpy_laplace_from_uniforms(["0.5"], 1.0), "uniforms"),
    (lambda: fa.support_attack([True], 0.0, 1.0, 1.0), "outputs"),
    (lambda: fa.lattice_neighbourhood(1.0, 0.0, None, 2.0), "value1"),
    (lambda: fa.lattice_neighbourhood(1.0, 0.0, 1.0, 2.0, width=2.0), "width"),
])
def test_bad_types_raise_type_error_naming_the_parameter(call, fragment):
    with pytest.raises(TypeError, match=fragment):
        call()


# --- the same bits on every CPU ----------------------------------------------------------------------

def _numpy_simd_targets():
    """numpy's dispatched SIMD targets that this CPU has (e.g. X86_V3, X86_V4, AVX512_ICL for numpy 2.4 on AVX-512)."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    return [name for name in umath.__cpu_dispatch__ if umath.__cpu_features__.get(name)]


_FINGERPRINT = """
import hashlib, json, sys
import numpy as np
from dpteach import float_attack as fa
from dpteach.mechanisms import laplace_mechanism
sys.path.insert(0, {tests!r})
from test_float_attack import _numpy_simd_targets
outputs = laplace_mechanism(np.zeros(20_000), 1.0, 0.5, rng=3)
near = np.concatenate([np.nextafter(outputs, -np.inf), outputs, np.nextafter(outputs, np.inf)])
guesses = fa.support_attack(near, 0.0, 1.0, 2.0)
noise = fa.numpy_laplace_from_uniforms(np.random.default_rng(4).random(100_000), 0.37)
digest = hashlib.sha256(outputs.tobytes() + guesses.tobytes() + noise.tobytes()).hexdigest()
print(json.dumps({{"simd": _numpy_simd_targets(), "digest": digest}}))
"""


def _run_without_simd(args, targets):
    import os
    import subprocess
    import sys
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(targets))
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=600,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_float_attack_gives_the_same_bits_with_numpys_simd_dispatch_switched_off():
    # The issue: on an AVX-512 CPU, np.log is numpy's SIMD log while Generator.laplace calls the
    # C library's log, so "bit for bit" held only on some CPUs. Rerun the float-attack tests and
    # appendix A's attack test in a subprocess where numpy dispatches no SIMD target at all
    # (NPY_DISABLE_CPU_FEATURES lists every dispatched target this CPU has; numpy refuses to
    # disable its baseline, which has no SIMD log), as on a CPU without AVX2/AVX-512; and
    # check that the attack's answers on fixed releases are the same bytes in both processes.
    import json
    import os
    # This CPU's targets, plus any this process was already told to switch off (then it sees them as absent).
    targets = sorted(set(_numpy_simd_targets()) | set(os.environ.get("NPY_DISABLE_CPU_FEATURES", "").split()))
    here = os.path.dirname(os.path.abspath(__file__))
    script = _FINGERPRINT.format(tests=here)
    child = _run_without_simd(["-W", "error::ImportWarning", "-c", script], targets)
    assert child.returncode == 0, child.stderr
    seen = json.loads(child.stdout.strip().splitlines()[-1])
    assert seen["simd"] == [], f"NPY_DISABLE_CPU_FEATURES={' '.join(targets)!r} left {seen['simd']} on"
    ours = _run_without_simd(["-c", script], [])  # this CPU, its SIMD on
    assert ours.returncode == 0, ours.stderr
    assert json.loads(ours.stdout.strip().splitlines()[-1])["digest"] == seen["digest"]
    tests = _run_without_simd(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "not simd_dispatch",
                               os.path.join(here, "test_float_attack.py"),
                               os.path.join(here, "test_production.py")
                               + "::test_attack_separates_dpteach_from_the_production_samplers"], targets)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
