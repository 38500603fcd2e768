"""One figure style for the whole pipeline, and atomic figure saving."""

from .style import COLORS, apply_style, save_figure, subplots

__all__ = ["COLORS", "apply_style", "save_figure", "subplots"]
