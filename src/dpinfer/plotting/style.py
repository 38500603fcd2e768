"""The shared figure style: fonts, sizes, colours, and how a figure is saved.

Figures are written as PDF (vector) and PNG (300 dpi) at the same time, with fixed metadata so
the PDF bytes do not depend on the clock.
"""

from __future__ import annotations

import logging
import math

import matplotlib

matplotlib.use("Agg")  # no display on cluster nodes or CI

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

from ..io import atomic_path  # noqa: E402
from .layout import check_layout  # noqa: E402
from .methods import PALETTE  # noqa: E402

__all__ = ["COLORS", "apply_style", "subplots", "log_axis", "legend_below", "save_figure"]

# Colours for what is not a method (lines per epsilon, scatter clouds); methods take theirs from
# methods.METHOD_STYLES. Both come from seaborn's colour-blind palette.
COLORS = list(PALETTE)

_RC = {
    "figure.dpi": 100,
    "savefig.dpi": 300,
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": matplotlib.cycler(color=COLORS),
    "lines.linewidth": 1.2,
    "pdf.fonttype": 42,
    "svg.hashsalt": "dpinfer",
}


def apply_style() -> None:
    plt.rcParams.update(_RC)


def subplots(nrows: int = 1, ncols: int = 1, *, width: float = 6.5, height: float = 2.4, **kw):
    """``plt.subplots`` with the pipeline style and a size in inches (height per row)."""
    apply_style()
    return plt.subplots(nrows, ncols, figsize=(width, height * nrows), **kw)


def _minor_log_labels(axis) -> FuncFormatter:
    """Minor tick labels of a log axis at 2 and 5 times a power of ten, and only while its view
    holds fewer than two powers of ten (then the major ticks alone would leave it unreadable;
    on a longer range matplotlib's own minor labels collide)."""

    def label(value, _pos) -> str:
        lo, hi = sorted(axis.get_view_interval())
        if lo <= 0 or value <= 0 or math.floor(math.log10(hi)) - math.ceil(math.log10(lo)) + 1 >= 2:
            return ""
        mantissa = value / 10.0 ** math.floor(math.log10(value) + 1e-9)
        return f"{value:g}" if min(abs(mantissa - 2), abs(mantissa - 5)) < 1e-6 else ""

    return FuncFormatter(label)


def log_axis(ax, which: str = "x", ticks=None, labels=None) -> None:
    """A log-scaled ``which`` axis whose values can be read: major ticks at the powers of ten,
    and minor labels (at 2 and 5 times a power of ten) only where the view holds fewer than two
    of them. ``ticks`` (and their ``labels``) replace the major ticks, e.g. the epsilons of a
    grid, and then the minor ticks are dropped."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    if ticks is not None:
        axis.set_ticks(list(ticks), labels=labels)
        axis.set_ticks([], minor=True)
        axis.set_minor_formatter(NullFormatter())
    else:
        axis.set_minor_formatter(_minor_log_labels(axis))


def legend_below(fig, ax=None, *, ncol: int | None = None, **legend) -> None:
    """One figure-level legend, centred under the panels, of the labelled artists of ``ax`` and
    then of every other panel (each label once, so a method missing from one panel still shows).

    The legend takes as many columns as fit the canvas width (at most ``ncol``), and the panels
    are laid out above its measured height (tight_layout keeps room for a suptitle itself).
    """
    handles, labels = [], []
    for panel in ([ax] if ax is not None else []) + [a for a in fig.axes if a is not ax]:
        for h, lab in zip(*panel.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    bottom = 0.0
    renderer = fig.canvas.get_renderer()  # the legend's size needs only its own layout, no draw
    for cols in range(min(ncol or len(labels), len(labels)), 0, -1):
        lg = fig.legend(handles, labels, loc="lower center", ncol=cols, frameon=False, **legend)
        box = lg.get_window_extent(renderer)
        bottom = box.height / fig.bbox.height + 0.01
        if box.width <= 0.98 * fig.bbox.width or cols == 1:
            break
        lg.remove()
    fig.tight_layout(rect=(0, bottom, 1, 1))


def save_figure(fig, pdf_path, png_path) -> None:
    """Save ``fig`` as PDF and PNG atomically, with clock-free metadata, then close it.

    The layout is checked first (:func:`check_layout`) and the result logged: one warning per
    overlap or cut text, and a closing "figure layout checked" line that the tests read.
    A figure with a figure-level legend keeps the layout its renderer chose (tight_layout with a
    ``rect`` that leaves room for the legend); any other figure gets a plain tight_layout.
    """
    if not fig.legends:
        fig.tight_layout()
    report = check_layout(fig)
    log = logging.getLogger("dpinfer.figures")
    for problem in report.problems:
        log.warning("figure layout problem: %s", problem)
    log.info(
        "figure layout checked: %d texts, %d legends, %d problems",
        report.texts,
        report.legends,
        len(report.problems),
    )
    with atomic_path(pdf_path) as tmp:
        fig.savefig(
            tmp,
            format="pdf",
            metadata={"CreationDate": None, "ModDate": None, "Producer": "dpinfer"},
        )
    with atomic_path(png_path) as tmp:
        fig.savefig(tmp, format="png", metadata={"Software": "dpinfer"})
    plt.close(fig)
