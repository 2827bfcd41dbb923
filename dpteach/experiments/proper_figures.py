"""The drawing behind chapter 7's cover-size figure, kept out of the notebook so that it is tested.

:func:`draw_covers` draws what :func:`dpteach.experiments.proper.cover_costs`
and :func:`~dpteach.experiments.proper.discretization_excess` computed. It
never fails on an entry it was handed: NaN (a cover that was skipped) and
other non-finite values are left out of the curves, and the panel says which
entries are missing.
"""

from __future__ import annotations

import numpy as np

from .._constraints import Check, OPEN_UNIT, Unchecked, validate_params
from ..bounds import cover_size_shape
from ..halfspace_cover import THRESHOLD_RANGE_CONSTANT
from ..plotting import COLORS, fast_log_axes, label_axes, theory_line

__all__ = ["draw_covers"]


def _size_label(k, size):
    """Legend entry: the cover size at the marked resolution, or why there is none."""
    return f"dim V = {k}: {int(size) if np.isfinite(size) else 'not built'}"


def _missing_note(costs):
    """'not built: dim V = 3 at a = 0.05, …' for every skipped (non-finite) size, or '' if none."""
    missing = [f"dim V = {k} at a = {a:g}" for i, k in enumerate(costs["dims"])
               for j, a in enumerate(costs["resolutions"]) if not np.isfinite(costs["size"][i, j])]
    return f"not built (cover > {costs['max_size']:,} members): " + ", ".join(missing) if missing else ""


def _check_costs(costs, name):
    """The dict :func:`dpteach.experiments.proper.cover_costs` returns (its entries may be NaN: not drawn)."""
    if not isinstance(costs, dict) or not {"size", "dims", "resolutions", "max_size"} <= set(costs):
        raise ValueError(f"{name} must come from cover_costs() (a dict with 'size', 'dims', 'resolutions' and "
                         f"'max_size'), got {type(costs).__name__}")
    return costs


def _check_curve(values, name):
    """One real value per resolution, as a float array; NaN and inf are allowed (left out of the curve)."""
    if isinstance(values, (str, bytes)) or values is None:
        raise TypeError(f"{name} must be an array of real numbers (one per resolution), got {values!r}")
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be an array of real numbers (one per resolution): {err}") from None


# Check: the record cover_costs returns, and a curve that may hold NaN or inf (left out): no class allows them
@validate_params({"fig": Unchecked("a matplotlib Figure to draw on"),
                  "costs": Check(_check_costs, invalid=[(None, "None"), ({}, "{}")]),
                  "rounding": Check(_check_curve, convert_nested=lambda values: np.asarray(values, dtype=float),
                                    invalid=[("a", "'a'"), (None, "None")]),
                  "resolution": OPEN_UNIT})
def draw_covers(fig, costs, rounding, resolution):
    """Chapter 7's figure: |H(q)| against the resolution a for each dim V, and the price of rounding.

    Left: the cover sizes of ``costs`` (from ``cover_costs``) with, for each
    dim V = k ≥ 1, the shape (3/a)^{k−1}·2K₀√log(1/a)/a of
    :func:`dpteach.bounds.cover_size_shape` (a net of S^{k−1} times the
    threshold grid), dashed in the colour of its k; the legend gives the sizes
    at the marked ``resolution``. Right: the excess error of the nearest member
    (``rounding``, from ``discretization_excess``) against the reference 0.2·a:
    Lemma 7.6 bounds it by O(a), with an unspecified constant (0.2 is ours).
    Non-finite entries are not drawn; a note under the left panel lists them.

    Parameters
    ----------
    fig : matplotlib Figure (empty)
    costs : dict from ``cover_costs`` ("size", "dims", "resolutions", "max_size")
    rounding : array, one excess error per resolution
    resolution : float, one of ``costs["resolutions"]``

    Returns
    -------
    (left, right) axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from dpteach.experiments.proper import cover_costs
    >>> costs = cover_costs([1], [0.5], n=20, d=2, rng=0)
    >>> left, right = draw_covers(Figure(), costs, rounding=[0.1], resolution=0.5)
    >>> left.get_xlabel(), right.get_title()
    ('resolution a', 'Price of rounding')
    """
    resolutions = list(costs["resolutions"])
    if resolution not in resolutions:  # relates two arguments: checked here
        raise ValueError(f"resolution must be one of {resolutions}, got {resolution!r}")
    a = np.array(resolutions)
    column = resolutions.index(resolution)
    left, right = fig.subplots(1, 2)
    for i, k in enumerate(costs["dims"]):
        size = np.asarray(costs["size"][i], dtype=float)
        shown = np.isfinite(size) & (size > 0)
        left.plot(a[shown], size[shown], "o-", color=COLORS[i % len(COLORS)],
                  label=_size_label(k, size[column]))
    for i, k in enumerate(costs["dims"]):
        if k >= 1:
            theory_line(left, a, cover_size_shape(k, a, threshold_constant=THRESHOLD_RANGE_CONSTANT),
                        label=None, color=COLORS[i % len(COLORS)], linewidth=1.0)
    theory_line(left, [], [], label="(3/a)ᵏ⁻¹·2K₀√log(1/a)/a (shape, dim V = k)")  # one legend entry for all k
    left.axvline(resolution, color="0.6", linewidth=1)
    finite = np.isfinite(rounding) & (rounding > 0)
    right.plot(a[finite], rounding[finite], "o-", color=COLORS[0], label="nearest member, V ∋ w*")
    theory_line(right, a, 0.2 * a, label="reference 0.2·a (Lemma 7.6: O(a))")
    if finite[column]:
        right.plot([resolution], [rounding[column]], "k*", markersize=12)
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks([0.05, 0.1, 0.2, 0.3])
    fast_log_axes(left, right)
    left.set_ylim(0.5, 3e8)
    right.set_yticks([0.005, 0.01, 0.02, 0.05])
    label_axes(left, "resolution a", "|H(q)|", f"Cover size (a = {resolution})", legend=False)
    # Under the axes: inside, every corner has a curve or the resolution marker running through it
    # (reader review D8; tests/test_legend_placement.py checks every slider stop).
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    label_axes(right, "resolution a", "excess error", "Price of rounding")
    note = _missing_note(costs)
    if note:
        left.text(0.0, -0.62, note, transform=left.transAxes, fontsize=8, va="top", wrap=True)
    return left, right
