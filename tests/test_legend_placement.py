"""Legends sit on blank space, not over the data (reader review D8): dpteach.plotting.legends_over_data."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dpteach import plotting  # noqa: E402


@pytest.fixture
def figure():
    fig, ax = plotting.new_figure()
    yield fig, ax
    plt.close(fig)


def test_a_curve_through_the_legend_is_reported(figure):
    fig, ax = figure
    x = np.linspace(0, 1, 50)
    ax.plot(x, np.full_like(x, 0.95), label="high")     # runs along the top, through an upper-right legend
    ax.plot(x, x / 10, label="low")
    ax.legend(loc="upper right")
    assert plotting.legends_over_data(fig) == [(0, "", ["high"])]


def test_a_straight_segment_crossing_the_legend_between_its_vertices_counts(figure):
    fig, ax = figure
    ax.plot([0, 1], [1, 0], label="diagonal")           # two vertices, both outside the legend box
    ax.plot([0, 1], [0, 0], label="floor")
    ax.legend(loc="center")
    assert plotting.legends_over_data(fig)[0][2] == ["diagonal"]


def test_legends_on_blank_space_or_below_the_axes_pass(figure):
    fig, ax = figure
    x = np.linspace(0, 1, 50)
    ax.plot(x, x / 10, label="low")
    ax.scatter([0.1, 0.2], [0.05, 0.02], label="points")
    ax.legend(loc="upper left")
    assert plotting.legends_over_data(fig) == []
    ax.plot(x, np.full_like(x, 0.95), label="high")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3)  # as chapter 2 places it
    assert plotting.legends_over_data(fig) == []


def test_a_legend_that_runs_out_of_its_axes_is_reported(figure):
    # Chapter 6's first figure (N6): a long entry ran past the right edge of a narrow panel.
    fig, ax = figure
    x = np.linspace(0, 1, 50)
    ax.plot(x, np.full_like(x, 0.95), label="high")             # along the top, away from the legend
    ax.legend(loc="lower left", bbox_to_anchor=(0.2, 0.0))      # shifted right: its box leaves the axes
    ax.get_legend().get_texts()[0].set_text("a label long enough to run past the right-hand frame of the axes")
    assert plotting.legends_over_data(fig) == [(0, "", [plotting.LEGEND_CROSSES_AXES])]
    ax.get_legend().get_texts()[0].set_text("short")             # the same legend, now inside: fine
    assert plotting.legends_over_data(fig) == []


def test_scatter_points_under_the_legend_are_reported(figure):
    fig, ax = figure
    ax.scatter([0.95, 0.1], [0.95, 0.1], label="points")
    ax.plot([0, 1], [0.1, 0.1], label="floor")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(loc="upper right")
    assert plotting.legends_over_data(fig)[0][2] == ["points"]


def test_log_axes_and_nan_gaps(figure):
    fig, ax = figure
    n = np.logspace(1, 4, 40)
    y = 1 / np.sqrt(n)
    y[5] = np.nan                                           # a gap, as theory_line allows
    ax.plot(n, y, label="rate")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.legend(loc="upper right")                            # the curve falls from the upper left
    assert plotting.legends_over_data(fig) == []
    ax.legend(loc="upper left")
    assert plotting.legends_over_data(fig)[0][2] == ["rate"]


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="fig"):
        plotting.legends_over_data(None)
    fig, _ = plotting.new_figure()
    with pytest.raises(ValueError, match="margin_px"):
        plotting.legends_over_data(fig, margin_px=-1)
    plt.close(fig)


# Chapter 7's cover-size figure is drawn by a dpteach helper (dpteach.experiments.proper_figures), so the
# real figure can be checked here, at every stop of its resolution slider (book/07_proper.ipynb's settings;
# the sizes do not depend on n, so n = 300 keeps this fast, as in tests/test_proper_figures.py).
@pytest.mark.parametrize("resolution", [0.3, 0.2, 0.15, 0.1, 0.07, 0.05])
def test_chapter_7_cover_figure_keeps_its_legends_off_the_curves(resolution):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from dpteach.experiments import proper as experiments
    from dpteach.experiments import proper_figures

    resolutions = [0.3, 0.2, 0.15, 0.1, 0.07, 0.05]
    costs = experiments.cover_costs([0, 1, 2, 3], resolutions, n=300, d=5, rng=20240707)
    rounding = experiments.discretization_excess(resolutions)
    plotting.use_style()
    fig = Figure(figsize=(10, 4))  # the notebook's live_figure(..., figsize=(10, 4))
    FigureCanvasAgg(fig)
    proper_figures.draw_covers(fig, costs, rounding, resolution)
    plotting.readable_legends(fig)  # as LiveFigure does before it shows a frame
    assert plotting.legends_over_data(fig) == []
