"""The shared figure style: fonts, sizes, colours, and how a figure is saved.

Figures are written as PDF (vector) and PNG (300 dpi) at the same time, with fixed metadata so
the PDF bytes do not depend on the clock.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # no display on cluster nodes or CI

import matplotlib.pyplot as plt  # noqa: E402

from ..io import atomic_path  # noqa: E402

__all__ = ["COLORS", "apply_style", "subplots", "save_figure"]

# Colour-blind safe (Okabe-Ito), in a fixed order so a method keeps its colour across figures.
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

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


def save_figure(fig, pdf_path, png_path) -> None:
    """Save ``fig`` as PDF and PNG atomically, with clock-free metadata, then close it.

    A figure with a figure-level legend keeps the layout its renderer chose (tight_layout with a
    ``rect`` that leaves room for the legend); any other figure gets a plain tight_layout.
    """
    if not fig.legends:
        fig.tight_layout()
    with atomic_path(pdf_path) as tmp:
        fig.savefig(tmp, format="pdf", metadata={"CreationDate": None, "ModDate": None, "Producer": "dpinfer"})
    with atomic_path(png_path) as tmp:
        fig.savefig(tmp, format="png", metadata={"Software": "dpinfer"})
    plt.close(fig)
