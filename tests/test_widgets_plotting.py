"""The shared slider helper and figure style."""

import math

import ipywidgets as w
import matplotlib.pyplot as plt
from matplotlib.layout_engine import ConstrainedLayoutEngine
import pytest

from dpteach import plotting, widgets


def test_epsilon_slider_is_logarithmic_and_redraws_on_release():
    slider = widgets.epsilon_slider(value=0.5, min=0.01, max=10)
    assert isinstance(slider, w.FloatLogSlider)
    assert slider.min == pytest.approx(math.log10(0.01)) and slider.max == pytest.approx(1.0)
    assert slider.value == pytest.approx(0.5) and slider.continuous_update is False


def test_alpha_and_dimension_sliders_are_linear_and_integer():
    alpha, d = widgets.alpha_slider(), widgets.dimension_slider(value=3, max=8)
    assert isinstance(alpha, w.FloatSlider) and not alpha.continuous_update
    assert isinstance(d, w.IntSlider) and d.value == 3 and d.max == 8 and not d.continuous_update


def test_choice_slider_selects_among_precomputed_values():
    slider = widgets.choice_slider([0.25, 0.5, 1.0], value=0.5, description="ε")
    assert isinstance(slider, w.SelectionSlider) and slider.value == 0.5 and not slider.continuous_update
    assert widgets.choice_slider(["a", "b"]).value == "a"


def test_live_figure_draws_default_values_then_follows_the_sliders(capsys):
    seen = []

    def draw(fig, epsilon, d):
        seen.append((round(epsilon, 6), d))
        ax = fig.subplots()
        ax.plot([0, d], [0, epsilon], label="line")
        plotting.label_axes(ax, "d", "ε")

    eps, dim = widgets.epsilon_slider(value=2.0), widgets.dimension_slider(value=4)
    live = widgets.live_figure(draw, epsilon=eps, d=dim)
    assert seen == [(2.0, 4)]                       # drawn at the defaults for the static book
    dim.value = 6                                   # what a slider release does
    assert seen[-1] == (2.0, 6)
    assert live.figure.axes[0].get_xlabel() == "d"  # redrawn on the same, cleared figure
    assert len(live.figure.axes) == 1
    # The layout of the first drawing is reused, not recomputed.
    assert not isinstance(live.figure.get_layout_engine(), ConstrainedLayoutEngine)
    assert live.figure.axes[0].get_position().bounds == pytest.approx(live._positions[0].bounds)
    assert live.time_redraw(repeats=1) > 0


def test_new_figure_applies_style_and_label_axes_adds_legend():
    fig, ax = plotting.new_figure()
    ax.plot([1, 2], [3, 4], label="data")
    plotting.theory_line(ax, [1, 2], [3, 5])
    plotting.label_axes(ax, "n", "error", title="t")
    assert ax.get_legend() is not None and ax.get_xlabel() == "n"
    assert plt.rcParams["axes.grid"] is True
    plt.close(fig)


def test_fast_log_axes_uses_plain_text_labels_and_drops_minor_ticks():
    fig, ax = plotting.new_figure()
    ax.plot([0.01, 1000], [1, 2])
    ax.set_xscale("log")
    plotting.fast_log_axes(ax)
    labels = [plotting.PLAIN_NUMBERS(v, 0) for v in (0.01, 0.25, 1.0, 1000.0, 1e-4)]
    assert labels == ["0.01", "0.25", "1", "10³", "10⁻⁴"]
    assert len(ax.xaxis.get_minor_locator()()) == 0
    assert ax.yaxis.get_major_formatter() is not plotting.PLAIN_NUMBERS  # linear axis untouched
    plt.close(fig)


def test_live_figure_lays_out_afresh_when_the_number_of_axes_changes():
    def draw(fig, d):
        axes = fig.subplots(1, d, squeeze=False)[0]
        for ax in axes:
            ax.plot([0, 1], [0, 1])
            plotting.label_axes(ax, "x", "y")

    dim = widgets.dimension_slider(value=1, max=3)
    live = widgets.live_figure(draw, d=dim)
    dim.value = 3
    assert len(live.figure.axes) == 3
    assert isinstance(live.figure.get_layout_engine(), ConstrainedLayoutEngine)  # laid out for the new shape
    lefts = [ax.get_position().x0 for ax in live.figure.axes]
    assert lefts == sorted(lefts) and len(set(lefts)) == 3  # side by side, not stacked on the cached spot


def test_sliders_reject_bad_ranges_with_named_errors():
    with pytest.raises(ValueError, match=r"min must be finite and > 0"):
        widgets.epsilon_slider(min=0.0)
    with pytest.raises(ValueError, match=r"epsilon_slider: need min < max and min <= value <= max, got min=0.1, "
                                         r"value=20.0, max=10.0"):
        widgets.epsilon_slider(value=20.0, min=0.1, max=10.0)
    with pytest.raises(ValueError, match="alpha_slider: need min < max"):
        widgets.alpha_slider(value=0.9, max=0.5)
    with pytest.raises(TypeError, match="value must be an integer"):
        widgets.dimension_slider(value=2.5)
