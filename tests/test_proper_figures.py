"""Chapter 7's cover-size figure is a function of its settings only (issue 18).

``cover_costs`` used to stop a sweep once a timing exceeded a time limit and
left NaN behind, so a busy build machine computed different data, and the
notebook's drawing code crashed on the NaN (``int(nan)``) and shipped a
traceback instead of the figure. Here the figure's data and its PNG bytes are
computed twice, once with the real clock and once with a clock on which every
step seems to take 100 s (a machine under any load), and must be identical.
"""

import io
import math
import warnings

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from dpteach import halfspace_cover, proper
from dpteach.experiments import proper as experiments
from dpteach.experiments import proper_figures
from dpteach.plotting import use_style

# The chapter's settings (book/07_proper.ipynb); the sizes do not depend on n, so a small n keeps this fast.
RESOLUTIONS = [0.3, 0.2, 0.15, 0.1, 0.07, 0.05]
DIMS = [0, 1, 2, 3]


def _png(costs, rounding, resolution):
    """The figure as PNG bytes, with fixed size, dpi and metadata (no version or date in the file)."""
    use_style()
    fig = Figure(figsize=(10, 4), dpi=50)
    FigureCanvasAgg(fig)
    proper_figures.draw_covers(fig, costs, rounding, resolution)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


class _SlowClock:
    """A perf_counter on which every call is 100 s after the previous one: the busiest machine imaginable."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 100.0
        return self.now


def test_cover_figure_data_and_pixels_do_not_depend_on_the_clock(monkeypatch):
    idle = experiments.cover_costs(DIMS, RESOLUTIONS, n=300, d=5, rng=20240707)
    rounding = experiments.discretization_excess(RESOLUTIONS)
    pictures = {a: _png(idle, rounding, a) for a in (0.1, 0.05)}
    monkeypatch.setattr(experiments.time, "perf_counter", _SlowClock())
    loaded = experiments.cover_costs(DIMS, RESOLUTIONS, n=300, d=5, rng=20240707)
    # With the old time limit (2 s by default) the slow clock stopped every sweep after its
    # first resolution: sizes NaN from a = 0.2 on, and the drawing crashed on int(NaN).
    assert np.array_equal(idle["size"], loaded["size"])
    assert np.all(np.isfinite(idle["size"]))  # the chapter's settings score every cover (max 451 202 members)
    assert np.array_equal(np.isnan(idle["seconds"]), np.isnan(loaded["seconds"]))
    assert np.all(loaded["seconds"] >= 100.0)  # the clock was really consulted, and only measured
    for a, picture in pictures.items():
        assert _png(loaded, rounding, a) == picture


def _circle_cover_size(a):
    """|H(q)| for dim V = 2, computed here: ⌈π/(2 arcsin(a/2))⌉ directions × (2⌊R/a⌋ + 1) thresholds + 2."""
    directions = math.ceil(math.pi / (2 * math.asin(a / 2)) - 1e-9)
    reach = a * math.ceil(halfspace_cover.THRESHOLD_RANGE_CONSTANT * math.sqrt(math.log(1 / a)) / a)
    return directions * (2 * math.floor(reach / a + 1e-9) + 1) + 2


def test_cover_costs_skips_by_size_known_before_scoring():
    costs = experiments.cover_costs(DIMS, RESOLUTIONS, n=50, d=5, rng=1, max_size=10_000)
    size, seconds = costs["size"], costs["seconds"]
    assert np.all(size[0] == 2)  # dim V = 0: the two near-constants
    assert list(size[1]) == [36, 56, 80, 128, 192, 284]  # 2 directions × the threshold grid + 2
    assert list(size[2]) == [_circle_cover_size(a) for a in RESOLUTIONS]
    # dim V = 3: 1 515 and 5 402 are scored, 13 886 > 10 000 is built (size known) but not
    # scored, and the finer ones (larger still) are skipped.
    assert list(size[3, :3]) == [1515, 5402, 13886] and np.all(np.isnan(size[3, 3:]))
    assert np.all(np.isfinite(seconds[:3])) and np.all(np.isfinite(seconds[3, :2]))
    assert np.all(np.isnan(seconds[3, 2:]))
    assert costs["dims"] == DIMS and costs["resolutions"] == RESOLUTIONS and costs["max_size"] == 10_000


def test_draw_covers_draws_what_is_finite_and_names_what_is_missing():
    costs = experiments.cover_costs(DIMS, RESOLUTIONS, n=50, d=5, rng=1, max_size=10_000)
    rounding = experiments.discretization_excess(RESOLUTIONS)
    rounding[2] = np.nan
    fig = Figure(figsize=(10, 4))
    FigureCanvasAgg(fig)
    left, right = proper_figures.draw_covers(fig, costs, rounding, 0.05)  # the old code: int(nan) raised here
    labels = [text.get_text() for text in left.get_legend().get_texts()]
    assert "dim V = 3: not built" in labels and "dim V = 2: 8885" in labels
    notes = [text.get_text() for text in left.texts]
    assert notes == ["not built (cover > 10,000 members): dim V = 3 at a = 0.1, dim V = 3 at a = 0.07, "
                     "dim V = 3 at a = 0.05"]
    curve = left.get_lines()[3]  # dim V = 3: only its three finite sizes are drawn
    assert list(curve.get_xdata()) == [0.3, 0.2, 0.15]
    assert len(right.get_lines()[0].get_xdata()) == len(RESOLUTIONS) - 1
    fig.savefig(io.BytesIO(), format="png")  # and it renders


def test_cover_costs_and_draw_covers_refuse_bad_settings():
    with pytest.raises(ValueError, match="max_size"):
        experiments.cover_costs([1], [0.5], n=10, d=2, max_size=0)
    with pytest.raises(ValueError, match="max_size"):
        experiments.cover_costs([1], [0.5], n=10, d=2, max_size=halfspace_cover.MAX_CANDIDATES + 1)
    costs = experiments.cover_costs([1], [0.5], n=10, d=2, rng=0)
    with pytest.raises(ValueError, match="resolution"):
        proper_figures.draw_covers(Figure(), costs, [0.1], 0.4)


def _legend_warnings():
    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ax.plot([1, 2], [1, 2], label="a curve")
    ax.legend()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        use_style()  # its filter goes in front of "always"
        fig.savefig(io.BytesIO(), format="png")
    return [str(w.message) for w in caught]


def test_a_slow_legend_placement_prints_no_warning_into_a_page(monkeypatch):
    # matplotlib warns 'Creating legend with loc="best" can be slow' when placing a legend took
    # more than 1 s by the wall clock: on a busy builder that would print into a page and fail
    # the strict build. use_style silences exactly that warning.
    import matplotlib.legend
    monkeypatch.setattr(matplotlib.legend.time, "perf_counter", _SlowClock())
    assert not [m for m in _legend_warnings() if "can be slow" in m]
    with warnings.catch_warnings(record=True) as caught:  # without the filter it does appear
        warnings.simplefilter("always")
        fig = Figure()
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        ax.plot([1, 2], [1, 2], label="a curve")
        ax.legend()
        fig.savefig(io.BytesIO(), format="png")
    assert [str(w.message) for w in caught if "can be slow" in str(w.message)]
