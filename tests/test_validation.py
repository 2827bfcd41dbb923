"""The one validation module: every message names the parameter, the value and the valid range."""

import math

import numpy as np
import pytest

from dpteach import _validation as v


@pytest.mark.parametrize("bad", [0, -1, -0.0, math.nan, math.inf, -math.inf])
def test_epsilon_rejects_non_positive_and_non_finite(bad):
    with pytest.raises(ValueError, match=r"epsilon must be finite and > 0 .*0 < epsilon < inf.*got"):
        v.check_epsilon(bad)


@pytest.mark.parametrize("bad", ["1", None, [1.0], True])
def test_epsilon_rejects_non_numbers_with_type_error(bad):
    with pytest.raises(TypeError, match="epsilon must be a real number"):
        v.check_epsilon(bad)


def test_epsilon_accepts_numpy_scalars_and_returns_float():
    assert v.check_epsilon(np.float32(0.5)) == pytest.approx(0.5)
    assert isinstance(v.check_epsilon(np.int64(2)), float)
    assert v.check_epsilon(np.array(3.0)) == 3.0


@pytest.mark.parametrize("bad", [1, 1.5, -1e-9, math.nan])
def test_delta_range_is_half_open_unit_interval(bad):
    with pytest.raises(ValueError, match=r"delta must satisfy 0 <= delta < 1, got"):
        v.check_delta(bad)
    assert v.check_delta(0) == 0.0


def test_delta_can_require_strictly_positive():
    with pytest.raises(ValueError, match=r"0 < delta < 1"):
        v.check_delta(0.0, allow_zero=False)


def test_probability_and_int_messages():
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\), got 1"):
        v.check_probability(1, "alpha")
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, inf\], got 0"):
        v.check_int(0, "k", minimum=1)
    with pytest.raises(TypeError, match="k must be an integer"):
        v.check_int(2.0, "k")


def test_arrays_reject_nan_inf_empty_and_wrong_dimension():
    with pytest.raises(ValueError, match=r"X must contain only finite values .*nan"):
        v.check_finite_array([1.0, np.nan], "X")
    with pytest.raises(ValueError, match=r"X must contain only finite values .*inf"):
        v.check_finite_array([[1.0, np.inf]], "X")
    with pytest.raises(ValueError, match=r"X must not be empty"):
        v.check_finite_array([], "X")
    with pytest.raises(ValueError, match=r"X must have 2 dimension\(s\), got an array of shape \(3,\)"):
        v.check_finite_array([1, 2, 3], "X", ndim=2)
    with pytest.raises(ValueError, match=r"X must have shape \(any, 3\), got \(2, 2\)"):
        v.check_finite_array(np.zeros((2, 2)), "X", shape=(None, 3))
    with pytest.raises(TypeError, match="X must be an array of real numbers"):
        v.check_finite_array(["a", "b"], "X")


def test_labels_must_be_plus_minus_one():
    assert np.array_equal(v.check_labels([1, -1, 1]), [1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match=r"y must contain only labels -1 and \+1, found 0.0 \(at index 1\)"):
        v.check_labels([1, 0, -1])


def test_bits_accept_bools_and_01_only():
    assert v.check_bits([True, False]).dtype == bool
    assert np.array_equal(v.check_bits([0, 1, 1]), [False, True, True])
    with pytest.raises(ValueError, match=r"bits must contain only 0 and 1 .*found 2.0"):
        v.check_bits([0, 2])
    with pytest.raises(ValueError, match="bits must not be empty"):
        v.check_bits([])


def test_same_length_and_choice():
    with pytest.raises(ValueError, match="X and y must have the same number of samples, got 3 and 2"):
        v.check_same_length(np.zeros((3, 2)), np.zeros(2))
    with pytest.raises(ValueError, match=r"method must be one of 'a', 'b', got 'c'"):
        v.check_choice("c", "method", ("a", "b"))


def test_rng_same_seed_same_stream_and_generator_passthrough():
    assert v.as_rng(5).random() == v.as_rng(5).random()
    generator = np.random.default_rng(1)
    assert v.as_rng(generator) is generator


def test_check_finite_scalar_accepts_either_sign_and_names_the_parameter():
    assert v.check_finite_scalar(-2.5, "value0") == -2.5
    assert v.check_finite_scalar(0, "value0") == 0.0
    assert isinstance(v.check_finite_scalar(np.int64(3), "value0"), float)
    assert v.check_finite_scalar(np.array(1.5), "value0") == 1.5
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match=r"value0 must be a finite real number \(valid range: -inf < value0"):
            v.check_finite_scalar(bad, "value0")
    # float("1") and float(True) would accept these: they are refused as types, with the valid range.
    for bad in ("1", b"1", None, True, np.bool_(False), [1.0], np.ones(2), 1 + 2j):
        with pytest.raises(TypeError, match=r"value0 must be a finite real number \(valid range"):
            v.check_finite_scalar(bad, "value0")
