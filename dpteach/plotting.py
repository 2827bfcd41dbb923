"""One figure style for the whole book.

Every notebook calls :func:`new_figure` (or :func:`use_style` once) so that
fonts, sizes, grids and colours agree across chapters. The style is our own
rcParams rather than a named matplotlib style, because style names change
between matplotlib releases (``seaborn-whitegrid`` disappeared in 3.6).
"""

from __future__ import annotations

import math
import warnings

import matplotlib as mpl
import numpy as np
import matplotlib.pyplot as plt
from matplotlib import ticker

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ._validation import check_int, check_positive, check_same_length

__all__ = ["STYLE", "COLORS", "PLAIN_NUMBERS", "use_style", "new_figure", "label_axes", "theory_line",
           "fast_log_axes", "ReadableLogLocator", "readable_legends", "MIN_TEXT_PX", "min_text_px",
           "legends_over_data"]

#: Colour cycle (Okabe–Ito, readable by colour-blind readers).
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]

STYLE = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 100,
    "savefig.dpi": 100,
    # Opaque white: JupyterLab's dark theme and the PNG frames of the web book show the same figure.
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
    "figure.autolayout": False,
    "figure.constrained_layout.use": True,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    # A 10-inch figure is shrunk to ~700 px in the web book: nothing smaller than 9 pt.
    "legend.fontsize": 9,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.frameon": False,
    "lines.linewidth": 2.0,
    "axes.prop_cycle": mpl.cycler(color=COLORS),
}


_TEXT_SIZE_KEYS = ("axes.titlesize", "axes.labelsize", "legend.fontsize", "xtick.labelsize", "ytick.labelsize")

#: Height in image pixels of the smallest text of a figure drawn in the book's style (points × dpi/72).
#: The web book widens a figure until this is at least 9 CSS px on screen (_static/dpteach-figures.js).
MIN_TEXT_PX = min(STYLE[key] for key in _TEXT_SIZE_KEYS) * STYLE["savefig.dpi"] / 72


def min_text_px(fig):
    """Height in image pixels of the smallest visible text of ``fig`` (font points × dpi / 72).

    The web book records it on each pre-rendered frame: shown ``w`` CSS px wide, a
    figure ``W`` px wide draws that text ``min_text_px × w / W`` CSS px tall.
    Returns :data:`MIN_TEXT_PX` for a figure without text.
    """
    sizes = [text.get_fontsize() for text in fig.findobj(mpl.text.Text)
             if text.get_visible() and text.get_text().strip() and text.get_figure() is fig]
    return min(sizes) * fig.dpi / 72 if sizes else MIN_TEXT_PX


def use_style():
    """Apply the book's rcParams to matplotlib (idempotent).

    Also silences matplotlib's 'Creating legend with loc="best" can be slow'
    warning: matplotlib emits it when placing a legend took more than one
    second of wall-clock time, so on a busy build machine it would print into
    a page (and fail the strict build) although nothing is wrong with the figure.
    """
    mpl.rcParams.update(STYLE)
    warnings.filterwarnings("ignore", message='Creating legend with loc="best" can be slow', category=UserWarning)


#: Most panels per row or column of one figure (more would not be legible in the book's column).
MAX_PANELS = 12


def check_axes(ax, name="ax"):
    """``ax`` if it is a matplotlib Axes, else a TypeError naming ``name`` (not matplotlib's AttributeError)."""
    if not isinstance(ax, Axes):
        raise TypeError(f"{name} must be a matplotlib Axes (e.g. from new_figure), got {type(ax).__name__}")
    return ax


def check_text(value, name, allow_none=False):
    """``value`` if it is a string (or None when allowed), else a TypeError naming ``name``."""
    if (value is None and allow_none) or isinstance(value, str):
        return value
    raise TypeError(f"{name} must be a string{' or None' if allow_none else ''}, got {value!r}")


def _curve(values, name):
    """A 1-D array of real numbers (NaN/inf allowed: gaps in a curve), else an error naming ``name``."""
    kind = "U" if isinstance(values, (str, bytes)) else np.asarray(values).dtype.kind
    if kind not in "iuf":
        raise TypeError(f"{name} must be a 1-D array of real numbers, got {values!r}")
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:  # empty is fine: a masked theory curve with nothing left to draw
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    return arr


def new_figure(nrows=1, ncols=1, width=None, height=None, **subplots_kwargs):
    """Create a figure in the book's style; returns ``(fig, axes)`` like ``plt.subplots``.

    The default size grows with the number of panels so labels never overlap.
    """
    nrows = check_int(nrows, "nrows", minimum=1, maximum=MAX_PANELS)
    ncols = check_int(ncols, "ncols", minimum=1, maximum=MAX_PANELS)
    width = 4.2 * ncols + 0.8 if width is None else check_positive(width, "width")
    height = 3.4 * nrows + 0.4 if height is None else check_positive(height, "height")
    use_style()
    return plt.subplots(nrows, ncols, figsize=(width, height), squeeze=True, **subplots_kwargs)


def label_axes(ax, xlabel, ylabel, title=None, legend=True):
    """Label both axes (and the title); add a legend when the axes has labelled artists."""
    check_axes(ax)
    check_text(xlabel, "xlabel")
    check_text(ylabel, "ylabel")
    check_text(title, "title", allow_none=True)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend()
    return ax


def theory_line(ax, x, y, label="theory", **kwargs):
    """Draw a theorem's prediction in the one style used for theory curves (black, dashed).

    ``x`` and ``y`` are 1-D real arrays of one length. NaN or inf entries are allowed (a bound that
    is infinite below its sample size): matplotlib leaves a gap there.
    """
    check_axes(ax)
    x, y = _curve(x, "x"), _curve(y, "y")
    check_same_length(x, y, "x", "y")
    check_text(label, "label", allow_none=True)
    kwargs.setdefault("color", "black")
    kwargs.setdefault("linestyle", "--")
    kwargs.setdefault("linewidth", 1.5)
    return ax.plot(x, y, label=label, **kwargs)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _decade_label(value, _position=None):
    """'10³' for exact powers of ten, plain numbers ('0.25') otherwise, in plain text (no mathtext)."""
    if value > 0:
        exponent = round(math.log10(value))
        if math.isclose(value, 10.0 ** exponent) and abs(exponent) >= 3:
            return "10" + str(exponent).translate(_SUPERSCRIPT)
    return f"{value:g}"


#: Tick formatter with plain-text labels (0.01, 0.1, 1, 10³) for log axes.
PLAIN_NUMBERS = ticker.FuncFormatter(_decade_label)


class ReadableLogLocator(ticker.LogLocator):
    """Major ticks of a log axis that always label at least two values.

    Over several decades: the powers of ten (thinned to at most ``max_labels``).
    Over one or two decades, where that leaves fewer than two ticks in view:
    1, 2, 5 × 10^k, then 1 … 9 × 10^k. Over less than a factor ~1.3: linear
    round numbers. The default locator shows a single "0.1" on such axes.
    """

    SUBS = ((1.0,), (1.0, 2.0, 5.0), tuple(float(m) for m in range(1, 10)))

    def __init__(self, max_labels=8):
        super().__init__(base=10.0)
        self.max_labels = check_int(max_labels, "max_labels", minimum=1)  # NaN was stored and compared

    def tick_values(self, vmin, vmax):
        if vmin > vmax:
            vmin, vmax = vmax, vmin
        if not (vmin > 0 and math.isfinite(vmin) and math.isfinite(vmax)):
            return super().tick_values(vmin, vmax)
        low, high = math.floor(math.log10(vmin)), math.ceil(math.log10(vmax))
        for subs in self.SUBS:
            ticks = [m * 10.0 ** k for k in range(low, high + 1) for m in subs]
            inside = [t for t in ticks if vmin * (1 - 1e-9) <= t <= vmax * (1 + 1e-9)]
            if len(inside) >= 2:
                if len(inside) > self.max_labels:  # many decades: every n-th power of ten
                    stride = math.ceil(len(inside) / self.max_labels)
                    inside = [t for t in inside if round(math.log10(t)) % stride == 0]
                return np.array(inside)
        linear = ticker.MaxNLocator(nbins=3).tick_values(vmin, vmax)
        return linear[(linear >= vmin) & (linear <= vmax)]


def readable_legends(fig, min_points=9):
    """Enlarge every legend text of ``fig`` smaller than ``min_points`` (the book's floor at ~700 px)."""
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    min_points = check_positive(min_points, "min_points")
    for legend in [ax.get_legend() for ax in fig.axes] + fig.legends:
        for text in legend.get_texts() if legend is not None else ():
            if text.get_fontsize() < min_points:
                text.set_fontsize(min_points)
    return fig


#: What :func:`legends_over_data` lists for a legend that runs across the frame of its axes.
LEGEND_CROSSES_AXES = "<legend crosses the axes frame>"


def legends_over_data(fig, margin_px=1.0):
    """Every legend of ``fig`` that a plotted curve or point runs through (reader review D8).

    Returns ``[(axes index, axes title, [labels of the artists under the legend]), ...]``, empty when
    every legend sits on blank space. The figure is drawn first (legend placement ``"best"`` is only
    decided then). A curve counts where a point of it, or of its straight segments sampled every
    pixel or so, falls inside the legend's box shrunk by ``margin_px`` on each side and inside the
    axes (matplotlib clips what lies outside them); scatter points count by their centres. Lines of
    legends placed outside the axes (``bbox_to_anchor`` below the plot) cannot be covered.

    A legend that straddles the frame of its axes, partly inside and partly outside (a long entry
    running past the right edge, reader review N6), is reported too, with the label
    :data:`LEGEND_CROSSES_AXES` among the artists. A legend wholly outside the axes is deliberate.
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    margin_px = float(margin_px)
    if not (math.isfinite(margin_px) and margin_px >= 0):
        raise ValueError(f"margin_px must be a finite number >= 0, got {margin_px!r}")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    for index, ax in enumerate(fig.axes):
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box = legend.get_window_extent(renderer)
        x0, y0, x1, y1 = box.x0 + margin_px, box.y0 + margin_px, box.x1 - margin_px, box.y1 - margin_px
        axes_box = ax.bbox
        covering = []
        artists = [(line, _dense_points(line.get_transform().transform(line.get_xydata())))
                   for line in ax.get_lines() if line.get_visible() and len(line.get_xydata())]
        artists += [(collection, collection.get_offset_transform().transform(collection.get_offsets()))
                    for collection in ax.collections
                    if collection.get_visible() and len(collection.get_offsets()) and len(collection.get_paths()) <= 1]
        for artist, points in artists:
            points = points[np.all(np.isfinite(points), axis=1)]
            inside = ((points[:, 0] > x0) & (points[:, 0] < x1) & (points[:, 1] > y0) & (points[:, 1] < y1)
                      & (points[:, 0] >= axes_box.x0) & (points[:, 0] <= axes_box.x1)
                      & (points[:, 1] >= axes_box.y0) & (points[:, 1] <= axes_box.y1))
            if inside.any():
                covering.append(artist.get_label())
        inside_axes = (box.x0 >= axes_box.x0 - 0.5 and box.x1 <= axes_box.x1 + 0.5
                       and box.y0 >= axes_box.y0 - 0.5 and box.y1 <= axes_box.y1 + 0.5)
        overlaps_axes = (box.x0 < axes_box.x1 and box.x1 > axes_box.x0
                         and box.y0 < axes_box.y1 and box.y1 > axes_box.y0)
        if overlaps_axes and not inside_axes:
            covering.append(LEGEND_CROSSES_AXES)
        if covering:
            found.append((index, ax.get_title(), covering))
    return found


def _dense_points(xy, step_px=1.0):
    """The vertices of a polyline (display pixels) plus points along each segment about ``step_px`` apart."""
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    if len(xy) < 2:
        return xy
    start, end = xy[:-1], xy[1:]
    lengths = np.hypot(*(end - start).T)
    steps = np.where(np.isfinite(lengths), np.clip(np.ceil(lengths / step_px), 1, 4000), 1).astype(int)
    fractions = np.concatenate([np.arange(n) / n for n in steps])
    origin = np.repeat(start, steps, axis=0)
    return np.vstack([origin + fractions[:, None] * (np.repeat(end, steps, axis=0) - origin), xy[-1:]])


def fast_log_axes(*axes):
    """Plain-text tick labels, at least two of them, and no minor ticks on the log-scaled axes of ``axes``.

    Typesetting mathtext labels such as $10^{-2}$ and the many minor ticks of a
    log axis takes most of a slider redraw; plain text keeps it under 0.3 s.
    :class:`ReadableLogLocator` labels 0.2, 0.5 … where an axis spans less than
    two decades, so no log axis shows a single label.
    """
    for ax in axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "log":
                axis.set_major_locator(ReadableLogLocator())
                axis.set_major_formatter(PLAIN_NUMBERS)
                axis.set_minor_locator(ticker.NullLocator())
