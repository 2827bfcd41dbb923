"""The book's sliders: ε on a log scale, α and d on linear ones, one live figure.

Every experiment cell calls :func:`live_figure` with a drawing function and
its sliders. In a live kernel (Binder, JupyterLab, Colab, nbval) the cell

* draws the figure once at the sliders' default values and shows it as an
  ordinary image;
* shows the sliders underneath, which redraw the *same* image in place when a
  slider is released (``continuous_update=False``), never on every pixel of a drag.

When the book is built (``make book`` sets ``DPTEACH_STATIC_FRAMES=1``) there is
no kernel behind the page, so the cell instead pre-renders the figure at a
handful of values of its *main* slider (the first one, or ``main_slider=``) and
emits a small HTML frame switcher: an ``<input type=range>`` that shows one of
the embedded images, with no kernel and no widget JavaScript. The other sliders
are listed at their default values, "live on Binder".

Keep ``draw`` fast (< 0.3 s): precompute whatever does not depend on the
sliders outside it; :meth:`LiveFigure.time_redraw` measures a redraw and
:meth:`LiveFigure.profile_redraw` splits it into drawing and rendering.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import re
import time

import ipywidgets as w
import numpy as np
from IPython.display import Image, display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib import ticker
from matplotlib.figure import Figure
from PIL import Image as PILImage

from . import plotting
from ._validation import check_finite_scalar, check_int, check_positive, check_sequence
from .plotting import check_text

__all__ = ["epsilon_slider", "alpha_slider", "dimension_slider", "int_slider", "float_slider",
           "choice_slider", "LiveFigure", "live_figure", "frame_values", "static_frames_enabled", "describe_figure"]

_LAYOUT = dict(style={"description_width": "initial"}, layout=w.Layout(width="380px"))


def _check_range(value, low, high, name):
    # ipywidgets would silently clip a default outside the range; say so instead.
    value, low, high = (check_finite_scalar(value, "value"), check_finite_scalar(low, "min"),
                        check_finite_scalar(high, "max"))
    if not (low < high and low <= value <= high):
        raise ValueError(f"{name}: need min < max and min <= value <= max, "
                         f"got min={low!r}, value={value!r}, max={high!r}")


def epsilon_slider(value=1.0, min=0.01, max=10.0, description="ε (privacy)"):
    """A log-scale slider for ε in [min, max] (base 10), redrawing on release."""
    check_text(description, "description")
    _check_range(value, check_positive(min, "min"), check_positive(max, "max"), "epsilon_slider")
    return w.FloatLogSlider(value=value, base=10, min=math.log10(min), max=math.log10(max), step=0.05,
                            description=description, continuous_update=False, readout_format=".3g",
                            **_LAYOUT)


def alpha_slider(value=0.1, min=0.01, max=0.5, step=0.01, description="α (accuracy)"):
    """A linear slider for the accuracy α, redrawing on release."""
    check_positive(min, "min")
    _check_range(value, min, max, "alpha_slider")
    return float_slider(value, min, max, step, description)


def dimension_slider(value=5, min=1, max=20, step=1, description="d (dimension)"):
    """An integer slider for the dimension d, redrawing on release."""
    _check_range(check_int(value, "value"), min, max, "dimension_slider")
    return int_slider(value, min, max, step, description)


def int_slider(value, min, max, step=1, description=""):
    """Any other integer parameter (n, k, number of candidates)."""
    check_int(step, "step", minimum=1)
    check_text(description, "description")
    _check_range(check_int(value, "value"), check_int(min, "min"), check_int(max, "max"), "int_slider")
    return w.IntSlider(value=value, min=min, max=max, step=step, description=description,
                       continuous_update=False, **_LAYOUT)


def float_slider(value, min, max, step, description=""):
    """Any other linear real parameter (δ exponent, noise rate η)."""
    check_positive(step, "step")
    check_text(description, "description")
    _check_range(value, min, max, "float_slider")
    return w.FloatSlider(value=value, min=min, max=max, step=step, description=description,
                         continuous_update=False, readout_format=".3g", **_LAYOUT)


def choice_slider(options, value=None, description=""):
    """A slider over fixed values (e.g. the ε grid of a precomputed experiment)."""
    options = list(check_sequence(options, "options", "slider values"))
    if not options:
        raise ValueError("options must be a non-empty sequence of slider values, got an empty one")
    if value is not None and value not in options:
        raise ValueError(f"value must be one of options {options!r}, got {value!r}")
    check_text(description, "description")
    return w.SelectionSlider(options=options, value=options[0] if value is None else value,
                             description=description, continuous_update=False, **_LAYOUT)


#: Environment variable that switches :meth:`LiveFigure.show` to pre-rendered frames (set by ``make book``).
STATIC_FRAMES_ENV = "DPTEACH_STATIC_FRAMES"


def static_frames_enabled():
    """True when figures are being pre-rendered for the static web book (``DPTEACH_STATIC_FRAMES=1``)."""
    return os.environ.get(STATIC_FRAMES_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def _round(value, digits=12):
    # Strip the float noise of 10**log10(x), so 0.05 stays 0.05 in labels and in draw().
    return float(f"{value:.{digits}g}")


def _nice_numbers(low, high):
    """1, 2, 3, 5 × 10^k inside [low, high] (the values a reader would type)."""
    numbers = []
    for exponent in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1):
        numbers += [float(f"{m}e{exponent}") for m in (1, 2, 3, 5)]
    return [x for x in numbers if low * (1 - 1e-9) <= x <= high * (1 + 1e-9)]


def frame_values(slider, n_frames=7):
    """The values of ``slider`` at which the static book pre-renders a figure.

    ``n_frames`` values spread over the slider's range (log-spaced for a
    :class:`~ipywidgets.FloatLogSlider`, preferring round numbers such as 0.1,
    0.3, 1, 3; evenly spaced on the step grid for linear sliders; evenly spaced
    options for a selection slider), always including the slider's current
    value, which replaces the grid value nearest to it. Sorted by position.

    Raises
    ------
    TypeError
        ``slider`` is not one of the book's slider types.
    ValueError
        ``n_frames`` is not an integer in [2, 12].
    """
    _check_n_frames(n_frames)
    if isinstance(slider, w.FloatLogSlider):
        low, high = _round(slider.base ** slider.min), _round(slider.base ** slider.max)
        candidates = np.array(sorted(set(_nice_numbers(low, high)) | {low, high}))
        picks = {float(candidates[np.argmin(np.abs(np.log(candidates) - np.log(t)))])
                 for t in np.geomspace(low, high, n_frames)}
        spacing = (math.log(high) - math.log(low)) / (n_frames - 1)
        return _with_default(picks, slider.value, n_frames, spacing, math.log)
    if isinstance(slider, w.IntSlider):
        return _linear_frames(slider.min, slider.max, slider.step, slider.value, n_frames, int)
    if isinstance(slider, w.FloatSlider):
        return _linear_frames(slider.min, slider.max, slider.step, slider.value, n_frames,
                              lambda x: _round(x, 10))
    if isinstance(slider, w.SelectionSlider):
        options = list(slider.options)  # choice_slider passes plain values
        if len(options) == 1:
            return options
        chosen = _linear_frames(0, len(options) - 1, 1, options.index(slider.value),
                                min(n_frames, len(options)), int)
        return [options[i] for i in chosen]
    raise TypeError(f"slider must be one of the dpteach.widgets sliders, got {type(slider).__name__}")


def _check_n_frames(n_frames):
    check_int(n_frames, "n_frames")
    if not 2 <= n_frames <= 12:
        raise ValueError(f"n_frames must be an integer in [2, 12], got {n_frames!r}")


def _linear_frames(low, high, step, default, n_frames, kind):
    # Round values (0.5, 1, 1.5 …) on the slider's step grid, plus both ends of the range.
    ticks = ticker.MaxNLocator(nbins=n_frames - 1, steps=[1, 2, 2.5, 5, 10]).tick_values(low, high)
    spacing = (high - low) / (n_frames - 1)
    inner = {kind(low + step * round((t - low) / step)) for t in ticks}
    picks = {v for v in inner if low + spacing / 3 <= v <= high - spacing / 3} | {kind(low), kind(high)}
    return _with_default(picks, default, n_frames, spacing, float)


def _with_default(picks, default, n_frames, spacing, position):
    # The default replaces the grid value nearest to it if that is within half a grid step.
    picks = sorted(picks, key=position)
    nearest = min(picks, key=lambda v: abs(position(v) - position(default)))
    if abs(position(nearest) - position(default)) <= spacing / 2 and len(picks) >= n_frames:
        picks.remove(nearest)
    return sorted(set(picks) | {default}, key=position)


_NUMBER_WORDS = {2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six"}
_TEX_WORDS = {"varepsilon": "ε", "epsilon": "ε", "delta": "δ", "alpha": "α", "sigma": "σ", "Delta": "Δ",
              "tau": "τ", "mu": "μ", "sqrt": "√", "le": "≤", "ge": "≥"}


def _plain(text):
    # Mathtext ("$e^\varepsilon$") as a screen reader should say it: no dollars, braces or backslashes.
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _TEX_WORDS.get(m.group(1), m.group(1)), text)
    return " ".join(text.replace("$", "").replace("{", "").replace("}", "").replace("\\", "").split())


def describe_figure(fig):
    """A figure's alt text from what it shows: per panel its title, its axes, their scales and its legend.

    The frame switcher's images carry it (with the slider value), so a screen reader hears what the
    picture is, not only "ε (privacy) = 1" (reader review N7). Axes without labels or title
    (colour bars, insets) are left out.
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    panels = [ax for ax in fig.axes if ax.get_visible() and (ax.get_title() or ax.get_xlabel() or ax.get_ylabel())]
    described = []
    for ax in panels:
        x, y = _plain(ax.get_xlabel()), _plain(ax.get_ylabel())
        scales = [name for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)) if axis.get_scale() == "log"]
        scale = {0: "", 1: f", log {scales[0]} axis" if scales else "", 2: ", log-log"}[len(scales)]
        text = _plain(ax.get_title())
        if x and y:
            text += f"{': ' if text else ''}{y} against {x}{scale}"
        legend = ax.get_legend()
        if legend is not None:
            entries = [_plain(t.get_text()) for t in legend.get_texts() if t.get_text()]
            if entries:
                text += "; shows " + "; ".join(entries)
        described.append(text)
    described += [f"legend: {'; '.join(_plain(t.get_text()) for t in legend.get_texts())}" for legend in fig.legends]
    if len(panels) <= 1:
        return ". ".join(described) or "A figure"
    count = _NUMBER_WORDS.get(len(panels), str(len(panels)))
    return f"{count} panels. " + " ".join(f"Panel {i}: {text}." for i, text in enumerate(described, start=1))


def _label(value):
    return f"{value:.3g}" if isinstance(value, float) else str(value)


class LiveFigure:
    """A figure redrawn in place by ``draw(fig, **values)`` whenever a slider is released.

    Parameters
    ----------
    draw : callable
        ``draw(fig, **values)`` draws onto the (cleared) figure; ``values`` maps
        each slider's keyword to its current value.
    sliders : dict
        keyword → ipywidgets slider (from :func:`epsilon_slider` etc.).
    figsize : tuple, optional
        (width, height) in inches; the book's style renders at 100 dpi.
    main_slider : str, optional
        The keyword of the slider the static book pre-renders (default: the first).
    n_frames : int, optional
        How many values of the main slider the static book pre-renders (2–12, default 7).

    Raises
    ------
    TypeError
        ``draw`` is not callable, or a slider is not an ipywidgets slider.
    ValueError
        ``main_slider`` names no slider, or ``n_frames`` is outside [2, 12].
    """

    #: Text size below which legends are enlarged, so figures stay readable at ~700 px.
    MIN_LEGEND_POINTS = 9

    def __init__(self, draw, sliders, figsize=None, main_slider=None, n_frames=7):
        if not callable(draw):
            raise TypeError(f"draw must be callable, got {draw!r}")
        if not isinstance(sliders, dict):
            raise TypeError(f"sliders must be a dict of name -> ipywidgets slider, got {type(sliders).__name__}")
        self.sliders = dict(sliders)
        if figsize is not None:
            if not isinstance(figsize, (tuple, list)) or len(figsize) != 2:
                raise TypeError(f"figsize must be None or a (width, height) pair in inches, got {figsize!r}")
            figsize = (check_positive(figsize[0], "figsize"), check_positive(figsize[1], "figsize"))
        for name, slider in self.sliders.items():
            if not isinstance(slider, w.ValueWidget):
                raise TypeError(f"slider {name!r} must be an ipywidgets slider, got {slider!r}")
        if main_slider is None:
            main_slider = next(iter(self.sliders), None)
        elif main_slider not in self.sliders:
            raise ValueError(f"main_slider must be one of {sorted(self.sliders)}, got {main_slider!r}")
        _check_n_frames(n_frames)
        plotting.use_style()
        self.draw = draw
        self.main_slider = main_slider
        self.n_frames = n_frames
        # A bare Agg figure, not pyplot's: nothing is registered with (or shown by) the inline backend.
        self.figure = Figure(figsize=figsize)
        self._canvas = FigureCanvasAgg(self.figure)
        self._handle = None
        self._positions = None  # axes positions of the first layout, reused by later redraws
        self._frame_text_px = None  # smallest text of the last pre-rendered frames, in image pixels
        self._frame_alts = {}  # frame position -> describe_figure() of that frame

    @property
    def values(self):
        return {name: slider.value for name, slider in self.sliders.items()}

    def redraw(self, **overrides):
        """Draw at the sliders' values (or ``overrides``) and update the shown image.

        The first drawing is laid out by matplotlib's constrained layout; later
        ones reuse the axes positions it found, since the layout does not
        depend on the sliders and recomputing it takes about a third of a redraw.
        If a redraw has a different number of axes, it is laid out afresh.
        """
        self._draw({**self.values, **overrides})
        if self._handle is not None:
            self._handle.update(self._png())
        return self.figure

    def _draw(self, values):
        self.figure.clear()
        reuse = self._positions is not None
        if reuse:
            self.figure.set_layout_engine("none")
        self.draw(self.figure, **values)
        if reuse:
            if len(self.figure.axes) == len(self._positions):
                for ax, position in zip(self.figure.axes, self._positions):
                    ax.set_position(position)
            else:
                self.figure.set_layout_engine("constrained")
        plotting.readable_legends(self.figure, self.MIN_LEGEND_POINTS)

    def _render(self):
        """Rasterise the figure once (savefig would lay it out and draw it twice)."""
        self._canvas.draw()
        if self._positions is None:
            self._positions = [ax.get_position() for ax in self.figure.axes]
        return PILImage.fromarray(np.asarray(self._canvas.buffer_rgba()))

    def _png_bytes(self):
        # Fast zlib level: this image goes from the kernel to the browser next to it.
        buffer = io.BytesIO()
        self._render().save(buffer, format="png", compress_level=1)
        return buffer.getvalue()

    def _frame_png_bytes(self):
        # Frames are embedded in the web page: a 256-colour palette (no dithering)
        # keeps line plots visually identical at about a third of the bytes.
        image = self._render().convert("RGB").quantize(256, method=PILImage.Quantize.FASTOCTREE,
                                                       dither=PILImage.Dither.NONE)
        buffer = io.BytesIO()
        image.save(buffer, format="png", optimize=True)
        return buffer.getvalue()

    def _png(self):
        return Image(data=self._png_bytes(), format="png")

    def profile_redraw(self, repeats=3, **overrides):
        """Best-of-``repeats`` redraw, split into seconds spent drawing and rendering.

        Returns a dict with ``draw`` (clearing the figure and running the draw
        function: the cell author's part), ``render`` (rasterising the artists
        it made and encoding the PNG a reader sees) and their ``total``.
        """
        check_int(repeats, "repeats")
        values = {**self.values, **overrides}
        best = None
        for _ in range(max(1, repeats)):
            start = time.perf_counter()
            self._draw(values)
            drawn = time.perf_counter()
            self._png_bytes()
            end = time.perf_counter()
            if best is None or end - start < best["total"]:
                best = {"draw": drawn - start, "render": end - drawn, "total": end - start}
        return best

    def time_redraw(self, repeats=3, **overrides):
        """Best-of-``repeats`` seconds for one redraw, including rendering the PNG a reader sees."""
        return self.profile_redraw(repeats, **overrides)["total"]

    def show(self):
        """Display the figure at the current values with its sliders (or, in the book build, its frames)."""
        if static_frames_enabled() and self.main_slider is not None:
            return self._show_frames()
        self._draw(self.values)
        self._handle = display(self._png(), display_id=True)
        for slider in self.sliders.values():
            slider.observe(lambda change: self.redraw(), names="value")
        if self.sliders:  # a figure without sliders shows no (empty) widget box
            display(w.VBox(list(self.sliders.values())))
        return self

    def frames(self):
        """Pre-render the main slider's :func:`frame_values`: a list of (value, PNG bytes), in slider order."""
        slider = self.sliders[self.main_slider]
        values = frame_values(slider, self.n_frames)
        default = slider.value
        pngs, text_px = {}, []
        # The default first: its layout is the one every other frame reuses, as live redraws do.
        for position in [values.index(default)] + [i for i in range(len(values)) if values[i] != default]:
            self._draw({**self.values, self.main_slider: values[position]})
            pngs[position] = self._frame_png_bytes()
            text_px.append(plotting.min_text_px(self.figure))
            self._frame_alts[position] = describe_figure(self.figure)
        self._frame_text_px = min(text_px)
        return [(values[i], pngs[i]) for i in range(len(values))]

    def _show_frames(self):
        frames = self.frames()
        slider = self.sliders[self.main_slider]
        index = [value for value, _ in frames].index(slider.value)
        display({"text/html": self.frames_html(frames, index),
                 "image/png": base64.b64encode(frames[index][1]).decode("ascii"),
                 "text/plain": f"<figure: {len(frames)} pre-rendered values of {self.main_slider}>"}, raw=True)
        return self

    def frames_html(self, frames, index):
        """The static frame switcher: images, a range input that shows one of them, and the fixed sliders."""
        slider = self.sliders[self.main_slider]
        name = html.escape(slider.description or self.main_slider)
        labels = [_label(value) for value, _ in frames]
        # The smallest text of the frames, in image pixels: the page keeps it legible (D6).
        text_px = self._frame_text_px or plotting.MIN_TEXT_PX
        # What the frame shows, then the value it shows it at (N7): "… Shown at ε (privacy) = 1."
        alts = [f"{self._frame_alts[i].rstrip('.')}. " if i in self._frame_alts else "" for i in range(len(frames))]
        images = "".join(
            f'<img src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}" '
            f'alt="{html.escape(alts[i])}Shown at {name} = {html.escape(labels[i])}." '
            f'data-value="{html.escape(labels[i])}" '
            f'data-min-text-px="{text_px:.4g}" '
            f'style="max-width:100%;height:auto;{"" if i == index else "display:none;"}">'
            for i, (_, png) in enumerate(frames))
        # One inline handler, no <script>: show image i, hide the others, print the value.
        on_input = ("var f=this.closest('.dpteach-frames'),i=+this.value;"
                    "f.querySelectorAll('.dpteach-frames-images img').forEach(function(m,j){"
                    "m.style.display=(j===i)?'':'none';});"
                    "f.querySelector('output').textContent=JSON.parse(f.dataset.labels)[i];")
        fixed = [f"{html.escape(s.description or n)} = {html.escape(_label(s.value))}"
                 for n, s in self.sliders.items() if n != self.main_slider]
        note = ("" if not fixed else
                '<div class="dpteach-frames-fixed" style="font-size:90%;opacity:.8">'
                f'{", ".join(fixed)}: live on Binder (launch button at the top of the page).</div>')
        return (f'<div class="dpteach-frames" data-slider="{html.escape(self.main_slider)}" '
                f'data-labels="{html.escape(json.dumps(labels))}">'
                f'<div class="dpteach-frames-images">{images}</div>'
                '<div class="dpteach-frames-controls" style="display:flex;align-items:center;gap:.6em">'
                f'<label for="dpteach-{id(self)}">{name}</label>'
                f'<input id="dpteach-{id(self)}" class="dpteach-frames-slider" type="range" min="0" '
                f'max="{len(frames) - 1}" step="1" value="{index}" aria-label="{name}" '
                f'style="width:240px" oninput="{html.escape(on_input)}">'
                f'<output>{html.escape(labels[index])}</output>'
                f'<span style="font-size:90%;opacity:.8">({len(frames)} pre-rendered values)</span></div>'
                f'{note}</div>')


def live_figure(draw, figsize=None, main_slider=None, n_frames=7, **sliders):
    """Build a :class:`LiveFigure`, show it at the default values, and return it.

    Example::

        def draw(fig, epsilon, d):
            ax = fig.subplots()
            ...
        live_figure(draw, epsilon=epsilon_slider(), d=dimension_slider())

    In the static book the first slider (or ``main_slider``) is pre-rendered at
    ``n_frames`` values; see :class:`LiveFigure`.
    """
    return LiveFigure(draw, sliders, figsize=figsize, main_slider=main_slider, n_frames=n_frames).show()
