"""Layout check of a finished figure: text that overlaps other text, text cut at the canvas edge,
legends drawn over data, and data axes whose values cannot be read (no tick label drawn).

The check draws the figure once and records every text artist that is actually drawn (tick
labels of ticks outside the view are not), so it sees what the reader sees.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from matplotlib.text import Text
from matplotlib.transforms import Bbox

__all__ = ["LayoutReport", "check_layout"]

_TOL = (
    1.0  # display pixels (at the figure's dpi) two boxes may share before they count as overlapping
)


@contextmanager
def _recording_drawn_texts(drawn: list):
    """Temporarily wrap ``Text.draw`` so every drawn, non-empty text is appended to ``drawn``."""
    original = Text.draw

    def draw(self, renderer):
        if self.get_visible() and self.get_text().strip():
            drawn.append(self)
        return original(self, renderer)

    Text.draw = draw
    try:
        yield
    finally:
        Text.draw = original


def _describe(text: Text) -> str:
    s = text.get_text().replace("\n", " ")
    return repr(s if len(s) <= 40 else s[:37] + "...")


def _overlap(a: Bbox, b: Bbox) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > _TOL and min(a.y1, b.y1) - max(a.y0, b.y0) > _TOL


def _data_points(ax) -> np.ndarray:
    """Display coordinates of ``ax``'s data: line vertices (segments sampled at 9 points) and
    scatter offsets. Reference lines drawn in axes coordinates (axhline, axvline) are not data."""
    out = [np.empty((0, 2))]
    for line in ax.get_lines():
        if not line.get_visible() or not line.get_transform().contains_branch(ax.transData):
            continue
        pts = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        if len(pts) > 1:
            t = np.linspace(0.0, 1.0, 9)[:, None, None]
            pts = (pts[:-1] + t * (pts[1:] - pts[:-1])).reshape(-1, 2)
        out.append(pts)
    for coll in ax.collections:
        offsets = np.asarray(coll.get_offsets(), dtype=float)
        if (
            coll.get_visible()
            and offsets.ndim == 2
            and len(offsets)
            and coll.get_offset_transform().contains_branch(ax.transData)
        ):
            pts = coll.get_offset_transform().transform(offsets)
            out.append(pts[np.all(np.isfinite(pts), axis=1)])
    return np.concatenate(out)


def _axes_name(ax) -> str:
    return (
        repr(ax.get_title())
        if ax.get_title()
        else "at ({:.2f}, {:.2f}, {:.2f}, {:.2f})".format(*ax.get_position().bounds)
    )


def _has_data(ax) -> bool:
    return bool(ax.get_lines() or ax.collections or ax.patches or ax.images)


def _unlabelled_axes(fig, drawn: list[Text]) -> list[str]:
    """Data axes without one drawn, non-empty tick label, unless an axes that shares the axis
    labels it (panels of a shared axis keep the labels on the outer ones)."""
    drawn_ids = {id(t) for t in drawn if t.get_text().strip()}

    def labelled(ax, which: str) -> bool:
        axis = ax.xaxis if which == "x" else ax.yaxis
        return any(
            id(t) in drawn_ids for t in axis.get_majorticklabels() + axis.get_minorticklabels()
        )

    out = []
    for ax in fig.axes:
        if not ax.get_visible() or not ax.axison or not _has_data(ax):
            continue
        for which in ("x", "y"):
            axis = ax.xaxis if which == "x" else ax.yaxis
            if not axis.get_visible() or labelled(ax, which):
                continue
            shared = (
                ax.get_shared_x_axes() if which == "x" else ax.get_shared_y_axes()
            ).get_siblings(ax)
            if any(other is not ax and labelled(other, which) for other in shared):
                continue
            out.append(f"the {which} axis of the axes {_axes_name(ax)} has no tick labels")
    return out


@dataclass(frozen=True)
class LayoutReport:
    """What :func:`check_layout` saw: how many drawn texts and legends it checked, and every
    defect as one readable sentence (none when the figure is clean)."""

    texts: int
    legends: int
    problems: tuple[str, ...]


def check_layout(fig) -> LayoutReport:
    """Draw ``fig`` once and list its layout defects.

    Defects: two drawn texts (titles, axis and tick labels, legend entries, annotations) whose
    boxes overlap by more than a pixel; a text reaching outside the canvas; a legend (of an axes
    or of the figure) drawn over the data points or lines of any axes; an axis of an axes with
    data that shows no tick label (neither it nor an axes sharing it), so its values cannot be read.
    """
    drawn: list[Text] = []
    with _recording_drawn_texts(drawn):
        fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    boxes = [(t, t.get_window_extent(renderer)) for t in drawn]
    problems = []
    for t, b in boxes:
        if (
            b.x0 < canvas.x0 - _TOL
            or b.y0 < canvas.y0 - _TOL
            or b.x1 > canvas.x1 + _TOL
            or b.y1 > canvas.y1 + _TOL
        ):
            problems.append(f"text {_describe(t)} reaches outside the canvas")
    for i, (t, b) in enumerate(boxes):
        for u, c in boxes[i + 1 :]:
            if _overlap(b, c):
                problems.append(f"text {_describe(t)} overlaps text {_describe(u)}")
    legends = list(fig.legends) + [
        ax.get_legend() for ax in fig.axes if ax.get_legend() is not None
    ]
    legends = [lg for lg in legends if lg.get_visible()]
    points = [(ax, _data_points(ax)) for ax in fig.axes] if legends else []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax, pts in points:
            inside = (
                (pts[:, 0] > box.x0)
                & (pts[:, 0] < box.x1)
                & (pts[:, 1] > box.y0)
                & (pts[:, 1] < box.y1)
            )
            if inside.any():
                problems.append(
                    f"a legend covers {int(inside.sum())} data points of the axes {_axes_name(ax)}"
                )
    problems += _unlabelled_axes(fig, drawn)
    return LayoutReport(len(boxes), len(legends), tuple(problems))
