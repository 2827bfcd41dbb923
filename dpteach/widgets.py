"""The book's sliders: ε on a log scale, α and d on linear ones, one live figure.

Every experiment cell calls :func:`live_figure` with a drawing function and
its sliders. The cell then

* draws the figure once at the sliders' default values and shows it as an
  ordinary image, so the static online book has a result to look at;
* shows the sliders underneath, which on Binder (or any live kernel) redraw
  the *same* image in place when a slider is released
  (``continuous_update=False``), never on every pixel of a drag.

Keep ``draw`` fast (< 0.3 s): precompute whatever does not depend on the
sliders outside it; :meth:`LiveFigure.time_redraw` measures a redraw.
"""

from __future__ import annotations

import io
import math
import time

import ipywidgets as w
import matplotlib.pyplot as plt
from IPython.display import Image, display

from . import plotting
from ._validation import check_int, check_positive

__all__ = ["epsilon_slider", "alpha_slider", "dimension_slider", "int_slider", "float_slider",
           "choice_slider", "LiveFigure", "live_figure"]

_LAYOUT = dict(style={"description_width": "initial"}, layout=w.Layout(width="380px"))


def _check_range(value, low, high, name):
    # ipywidgets would silently clip a default outside the range; say so instead.
    if not (low < high and low <= value <= high):
        raise ValueError(f"{name}: need min < max and min <= value <= max, "
                         f"got min={low!r}, value={value!r}, max={high!r}")


def epsilon_slider(value=1.0, min=0.01, max=10.0, description="ε (privacy)"):
    """A log-scale slider for ε in [min, max] (base 10), redrawing on release."""
    _check_range(value, check_positive(min, "min"), check_positive(max, "max"), "epsilon_slider")
    return w.FloatLogSlider(value=value, base=10, min=math.log10(min), max=math.log10(max), step=0.05,
                            description=description, continuous_update=False, readout_format=".3g",
                            **_LAYOUT)


def alpha_slider(value=0.1, min=0.01, max=0.5, step=0.01, description="α (accuracy)"):
    """A linear slider for the accuracy α, redrawing on release."""
    _check_range(value, min, max, "alpha_slider")
    return float_slider(value, min, max, step, description)


def dimension_slider(value=5, min=1, max=20, step=1, description="d (dimension)"):
    """An integer slider for the dimension d, redrawing on release."""
    _check_range(check_int(value, "value"), min, max, "dimension_slider")
    return int_slider(value, min, max, step, description)


def int_slider(value, min, max, step=1, description=""):
    """Any other integer parameter (n, k, number of candidates)."""
    _check_range(check_int(value, "value"), check_int(min, "min"), check_int(max, "max"), "int_slider")
    return w.IntSlider(value=value, min=min, max=max, step=step, description=description,
                       continuous_update=False, **_LAYOUT)


def float_slider(value, min, max, step, description=""):
    """Any other linear real parameter (δ exponent, noise rate η)."""
    _check_range(value, min, max, "float_slider")
    return w.FloatSlider(value=value, min=min, max=max, step=step, description=description,
                         continuous_update=False, readout_format=".3g", **_LAYOUT)


def choice_slider(options, value=None, description=""):
    """A slider over fixed values (e.g. the ε grid of a precomputed experiment)."""
    options = list(options)
    return w.SelectionSlider(options=options, value=options[0] if value is None else value,
                             description=description, continuous_update=False, **_LAYOUT)


class LiveFigure:
    """A figure redrawn in place by ``draw(fig, **values)`` whenever a slider is released.

    Parameters
    ----------
    draw : callable
        ``draw(fig, **values)`` draws onto the (cleared) figure; ``values`` maps
        each slider's keyword to its current value.
    sliders : dict
        keyword → ipywidgets slider.
    figsize : tuple, optional
    """

    #: Every LiveFigure shown in this kernel, in order (benchmarks/run.py times their redraws).
    shown = []

    def __init__(self, draw, sliders, figsize=None):
        plotting.use_style()
        self.draw = draw
        self.sliders = dict(sliders)
        self.figure = plt.figure(figsize=figsize)
        plt.close(self.figure)  # shown through display(), not the inline backend
        self._handle = None
        self._positions = None  # axes positions of the first layout, reused by later redraws

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
        values = {**self.values, **overrides}
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
        if self._handle is not None:
            self._handle.update(self._png())
        return self.figure

    def _png(self):
        # Rendered here rather than by IPython's formatter, which asks for a
        # tight bounding box and so draws every figure twice.
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png")
        return Image(data=buffer.getvalue(), format="png")

    def time_redraw(self, repeats=3, **overrides):
        """Best-of-``repeats`` seconds for one redraw, including rendering the PNG a reader sees."""
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            self.redraw(**overrides)
            if self._handle is None:  # not shown: render as show() would
                self._png()
            best = min(best, time.perf_counter() - start)
        return best

    def show(self):
        """Display the figure at the current values, then the sliders beneath it."""
        self.redraw()
        self._handle = display(self._png(), display_id=True)
        self._positions = [ax.get_position() for ax in self.figure.axes]
        for slider in self.sliders.values():
            slider.observe(lambda change: self.redraw(), names="value")
        display(w.VBox(list(self.sliders.values())))
        LiveFigure.shown.append(self)
        return self


def live_figure(draw, figsize=None, **sliders):
    """Build a :class:`LiveFigure`, show it at the default values, and return it.

    Example::

        def draw(fig, epsilon, d):
            ax = fig.subplots()
            ...
        live_figure(draw, epsilon=epsilon_slider(), d=dimension_slider())
    """
    return LiveFigure(draw, sliders, figsize=figsize).show()
