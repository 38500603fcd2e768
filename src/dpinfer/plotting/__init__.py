"""One figure style for the whole pipeline: the look of every method, atomic figure saving with a
layout check."""

from .layout import LayoutReport, check_layout
from .methods import METHOD_STYLES, PALETTE, method_color, method_label, method_style
from .style import COLORS, apply_style, legend_below, log_axis, save_figure, subplots

__all__ = ["COLORS", "PALETTE", "METHOD_STYLES", "method_style", "method_label", "method_color", "apply_style",
           "legend_below", "log_axis", "save_figure", "subplots", "LayoutReport", "check_layout"]
