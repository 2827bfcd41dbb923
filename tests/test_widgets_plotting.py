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


def test_live_figure_keeps_no_class_level_bookkeeping():
    # Benchmarks find figures themselves; a class-level list grew on every re-run of a cell.
    assert not hasattr(widgets.LiveFigure, "shown")


def _two_slider_figure(seen):
    def draw(fig, epsilon, d):
        seen.append((epsilon, d))
        ax = fig.subplots()
        ax.plot([0, 1], [0, epsilon], color="C0")
        ax.set_ylim(0, 10)
        plotting.label_axes(ax, "x", "y", title=f"ε = {epsilon:.3g}")
    return draw


def test_profile_redraw_splits_drawing_and_rendering():
    live = widgets.LiveFigure(_two_slider_figure([]), {"epsilon": widgets.epsilon_slider(),
                                                       "d": widgets.dimension_slider()})
    profile = live.profile_redraw(repeats=2)
    assert set(profile) == {"draw", "render", "total"}
    assert profile["draw"] > 0 and profile["render"] > 0
    assert profile["total"] == pytest.approx(profile["draw"] + profile["render"])
    png = live._png_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # Same size and DPI as savefig at the book's style: 6.4 x 4.0 in at 100 dpi.
    from PIL import Image
    import io
    assert Image.open(io.BytesIO(png)).size == (640, 400)


@pytest.mark.parametrize("slider, expected", [
    (lambda: widgets.epsilon_slider(1.0, 0.05, 5.0), [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0]),
    (lambda: widgets.epsilon_slider(0.5, 0.01, 10.0), [0.01, 0.03, 0.1, 0.5, 1.0, 3.0, 10.0]),
    (lambda: widgets.int_slider(-5, -12, -2, 1), [-12, -10, -8, -6, -5, -4, -2]),
    (lambda: widgets.alpha_slider(0.05, 0.01, 0.3), [0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]),
    (lambda: widgets.dimension_slider(8, 4, 12, 2), [4, 6, 8, 10, 12]),
    (lambda: widgets.choice_slider([0.25, 0.5, 1.0, 2.0, 4.0], value=1.0), [0.25, 0.5, 1.0, 2.0, 4.0]),
])
def test_frame_values_span_the_range_and_include_the_default(slider, expected):
    slider = slider()
    values = widgets.frame_values(slider)
    assert values == pytest.approx(expected)
    assert slider.value in values and len(values) <= 8


def test_frame_values_are_log_spaced_for_epsilon():
    values = widgets.frame_values(widgets.epsilon_slider(1.0, 0.001, 10.0), n_frames=5)
    ratios = [b / a for a, b in zip(values, values[1:])]
    assert values[0] == pytest.approx(0.001) and values[-1] == pytest.approx(10.0)
    assert all(3 <= r <= 20 for r in ratios)  # ~ a factor 10 per step over 4 decades, not linear


def test_frame_values_reject_bad_arguments():
    with pytest.raises(ValueError, match=r"n_frames must be an integer in \[2, 12\], got 1"):
        widgets.frame_values(widgets.epsilon_slider(), n_frames=1)
    with pytest.raises(TypeError, match="slider must be one of the dpteach.widgets sliders"):
        widgets.frame_values(w.Text("x"))
    with pytest.raises(ValueError, match=r"main_slider must be one of \['d', 'epsilon'\], got 'alpha'"):
        widgets.LiveFigure(lambda fig, **v: None, {"epsilon": widgets.epsilon_slider(),
                                                   "d": widgets.dimension_slider()}, main_slider="alpha")
    with pytest.raises(TypeError, match="draw must be callable"):
        widgets.LiveFigure(None, {"epsilon": widgets.epsilon_slider()})


def test_static_book_gets_a_frame_switcher_instead_of_widgets(monkeypatch):
    import base64
    import re
    shown = []
    monkeypatch.setattr(widgets, "display", lambda obj, **kw: shown.append((obj, kw)))
    monkeypatch.setenv("DPTEACH_STATIC_FRAMES", "1")
    seen = []
    eps = widgets.epsilon_slider(value=1.0, min=0.05, max=5.0)
    widgets.live_figure(_two_slider_figure(seen), epsilon=eps, d=widgets.dimension_slider(value=4))
    ((bundle, kwargs),) = shown  # one output, no ipywidgets
    assert kwargs == {"raw": True}
    assert set(bundle) == {"text/html", "image/png", "text/plain"}
    page = bundle["text/html"]
    frames = widgets.frame_values(eps)
    assert seen[0] == (1.0, 4)                                  # the default first, for the layout
    assert sorted(e for e, _ in seen) == sorted(frames)         # then every frame, other slider fixed
    assert all(d == 4 for _, d in seen)
    images = re.findall(r'<img src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == len(frames) == len(set(images))      # distinct pictures
    default = frames.index(1.0)
    assert f'value="{default}"' in page and f'max="{len(frames) - 1}"' in page
    assert images[default] == bundle["image/png"]               # the PNG fallback is the default frame
    hidden = re.findall(r'<img [^>]*style="([^"]*)"', page)
    assert [("display:none" in h) for h in hidden] == [i != default for i in range(len(frames))]
    assert "d (dimension) = 4: live on Binder" in page
    assert "<script" not in page and 'oninput="' in page
    assert all(base64.b64decode(i)[:4] == b"\x89PNG" for i in images)


def test_live_kernel_gets_ipywidgets_without_the_environment_variable(monkeypatch):
    shown = []
    monkeypatch.setattr(widgets, "display", lambda obj, **kw: shown.append(obj))
    monkeypatch.delenv("DPTEACH_STATIC_FRAMES", raising=False)
    widgets.live_figure(_two_slider_figure([]), epsilon=widgets.epsilon_slider(), d=widgets.dimension_slider())
    assert len(shown) == 2 and isinstance(shown[1], w.VBox)
    assert not widgets.static_frames_enabled()
    monkeypatch.setenv("DPTEACH_STATIC_FRAMES", "0")
    assert not widgets.static_frames_enabled()


def test_legends_are_enlarged_to_nine_points():
    def draw(fig, epsilon):
        ax = fig.subplots()
        ax.plot([0, 1], [0, epsilon], label="tiny")
        ax.legend(fontsize=7)
    live = widgets.LiveFigure(draw, {"epsilon": widgets.epsilon_slider()})
    live.redraw()
    assert live.figure.axes[0].get_legend().get_texts()[0].get_fontsize() == 9
    assert plt.rcParams["legend.fontsize"] >= 9


@pytest.mark.parametrize("low, high", [(0.05, 0.5), (0.08, 0.3), (0.5, 0.6), (3, 8), (1, 1e4), (1e-12, 1)])
def test_fast_log_axes_labels_at_least_two_ticks_on_every_log_axis(low, high):
    fig, ax = plotting.new_figure()
    ax.plot([low, high], [low, high])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, high)
    ax.set_ylim(low, high)
    plotting.fast_log_axes(ax)
    fig.canvas.draw()
    for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        visible = [t.get_text() for t in axis.get_ticklabels() if t.get_text()
                   and lo * (1 - 1e-9) <= t.get_position()[0 if axis is ax.xaxis else 1] <= hi * (1 + 1e-9)]
        assert 2 <= len(visible) <= 9, visible
        assert all("$" not in label for label in visible)  # plain text, no mathtext
    plt.close(fig)


# Bad arguments of the figure helpers (reliability review: 150 raw traitlets/matplotlib errors). Each must
# raise ValueError/TypeError naming the parameter the caller passed, before ipywidgets or matplotlib sees it.
def _bad_helper_calls():
    from dpteach import plotting as p, widgets as wd
    fig, ax = p.new_figure()
    slider = wd.epsilon_slider()
    return [
        ("step", lambda: wd.int_slider(5, 1, 10, step=0)),
        ("step", lambda: wd.int_slider(5, 1, 10, step=2.5)),
        ("step", lambda: wd.float_slider(0.5, 0.0, 1.0, step=-0.1)),
        ("step", lambda: wd.alpha_slider(step=float("nan"))),
        ("step", lambda: wd.dimension_slider(step="1")),
        ("min", lambda: wd.float_slider(0.5, "0", 1.0, 0.1)),
        ("max", lambda: wd.float_slider(0.5, 0.0, None, 0.1)),
        ("value", lambda: wd.float_slider(float("nan"), 0.0, 1.0, 0.1)),
        ("min", lambda: wd.alpha_slider(min=-1.0)),
        ("description", lambda: wd.float_slider(0.5, 0.0, 1.0, 0.1, description=None)),
        ("description", lambda: wd.epsilon_slider(description=3)),
        ("options", lambda: wd.choice_slider([])),
        ("options", lambda: wd.choice_slider(None)),
        ("value", lambda: wd.choice_slider([1, 2], value=3)),
        ("sliders", lambda: wd.LiveFigure(lambda fig, epsilon: None, "x")),
        ("figsize", lambda: wd.LiveFigure(lambda fig, epsilon: None, {"epsilon": slider}, figsize=(-1, 3))),
        ("figsize", lambda: wd.LiveFigure(lambda fig, epsilon: None, {"epsilon": slider}, figsize="big")),
        ("nrows", lambda: p.new_figure(nrows=0)),
        ("ncols", lambda: p.new_figure(ncols=10 ** 18)),
        ("nrows", lambda: p.new_figure(nrows="1")),
        ("width", lambda: p.new_figure(width=-1)),
        ("height", lambda: p.new_figure(height=float("inf"))),
        ("ax", lambda: p.label_axes(None, "x", "y")),
        ("xlabel", lambda: p.label_axes(ax, None, "y")),
        ("title", lambda: p.label_axes(ax, "x", "y", title=5)),
        ("ax", lambda: p.theory_line("ax", [1, 2], [1, 2])),
        ("x", lambda: p.theory_line(ax, ["a", "b"], [1, 2])),
        ("y", lambda: p.theory_line(ax, [1, 2], [[1, 2]])),
        ("x", lambda: p.theory_line(ax, [1, 2, 3], [1, 2])),
        ("fig", lambda: p.readable_legends(None)),
        ("min_points", lambda: p.readable_legends(fig, min_points=0)),
    ]


@pytest.mark.parametrize("index", range(31))
def test_figure_helpers_refuse_bad_arguments_by_name(index):
    import re
    name, call = _bad_helper_calls()[index]
    try:
        with pytest.raises((ValueError, TypeError)) as info:
            call()
    finally:
        plt.close("all")
    assert re.search(rf"\b{re.escape(name)}\b", str(info.value)), (name, str(info.value))


def test_theory_line_leaves_gaps_for_infinite_bounds():
    # A bound that is infinite below its sample size is drawn with a gap, not refused.
    from dpteach import plotting as p
    fig, ax = p.new_figure()
    (line,) = p.theory_line(ax, [1.0, 2.0, 3.0], [float("inf"), 2.0, 1.0])
    assert line.get_ydata()[0] == float("inf")
    plt.close(fig)
def test_frames_record_their_smallest_text_for_the_web_page():
    # D6: the page keeps a frame's smallest text legible from data-min-text-px; a record of the
    # style's size instead of the figure's own would let a 6-pt annotation shrink unseen.
    import re

    def draw(fig, epsilon):
        ax = fig.subplots()
        ax.plot([0, 1], [0, epsilon])
        ax.text(0.5, 0.5, "note", fontsize=6)
        ax.set_xlabel("x")
    live = widgets.LiveFigure(draw, {"epsilon": widgets.epsilon_slider()})
    page = live.frames_html(live.frames(), 0)
    recorded = [float(v) for v in re.findall(r'data-min-text-px="([^"]+)"', page)]
    assert len(recorded) == len(widgets.frame_values(live.sliders["epsilon"]))  # one per frame image
    assert recorded == pytest.approx([6 * live.figure.dpi / 72] * len(recorded), rel=1e-3)
    # The style's own floor: its smallest text (9-pt legends) at 100 dpi is 12.5 image pixels.
    assert plotting.MIN_TEXT_PX == pytest.approx(9 * 100 / 72)
    fig = plt.figure(dpi=100)
    fig.text(0.1, 0.1, "a", fontsize=14)
    fig.text(0.1, 0.5, "hidden", fontsize=3).set_visible(False)   # invisible text does not count
    assert plotting.min_text_px(fig) == pytest.approx(14 * 100 / 72)
    assert plotting.min_text_px(plt.figure()) == plotting.MIN_TEXT_PX
    plt.close("all")


def _chapter9_slider_expressions():
    import json
    import re
    from pathlib import Path
    notebook = Path(__file__).resolve().parent.parent / "book" / "09_table1.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                     for c in cells if c["cell_type"] == "code")
    return re.findall(r"live_figure\([^\n]*\n\s*epsilon=(.+?),\n", code)


def test_chapter9_switchers_stop_only_at_the_computed_epsilons():
    # D3: the switchers offered a stop at ε = 3 (frame_values of a 0.5..4 log slider), and the
    # figure drawn there was the nearest computed run, ε = 4, labelled 3. Every stop must be an ε
    # the comparison computed, so that the stop shows the figure of its own value.
    from dpteach.experiments import table1
    epsilons = [float(e) for e in table1.QUICK["epsilons"]]  # run_comparison's default grid
    expressions = _chapter9_slider_expressions()
    assert len(expressions) == 2, expressions  # both switchers of the chapter were found
    names = {"choice_slider": widgets.choice_slider, "epsilon_slider": widgets.epsilon_slider,
             "EPSILONS": epsilons}
    for expression in expressions:
        slider = eval(expression, names)  # noqa: S307 (the chapter's own source)
        assert widgets.frame_values(slider) == epsilons, expression
    # The old slider, as it stood, fails this test: it stops at 3, which was never computed.
    old = widgets.epsilon_slider(1.0, 0.5, 4.0, "ε (nearest of 0.5, 1, 2, 4)")
    assert 3.0 in widgets.frame_values(old) and 3.0 not in epsilons


def test_frame_alt_texts_describe_the_figure_and_its_value():
    # N7: a frame's alt text was only "ε (privacy) = 1". Now each frame says what it shows (its own
    # title, axes and legend, drawn at that value) and then the value.
    import html
    import re

    def draw(fig, epsilon):
        left, right = fig.subplots(1, 2)
        left.loglog([1, 10], [1, epsilon], label=r"cap $e^\varepsilon$")
        left.legend()
        left.set(title=f"tracing, ε = {epsilon:g}", xlabel="d / n", ylabel="AUC")
        right.plot([0, 1], [0, 1])
        right.set(xlabel="n", ylabel="error")
    live = widgets.LiveFigure(draw, {"epsilon": widgets.choice_slider([0.5, 2.0], 0.5, "ε (privacy)")})
    alts = [html.unescape(a) for a in re.findall(r'<img [^>]*?alt="([^"]*)"', live.frames_html(live.frames(), 0))]
    assert alts == [f"Two panels. Panel 1: tracing, ε = {e:g}: AUC against d / n, log-log; shows cap e^ε. "
                    f"Panel 2: error against n. Shown at ε (privacy) = {e:g}." for e in (0.5, 2.0)]
    plt.close("all")
