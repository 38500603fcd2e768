"""Every method's look: colour, marker, line style and display label (from :mod:`dpinfer.methods`).

Every figure of every study draws a method through :func:`method_style`, so a method looks the
same wherever it appears (Naive is always vermillion squares, Non-Private always black crosses).
Colours come from seaborn's colour-blind palette. Families share a colour on purpose: the
noise-aware method of a study is blue, the naive plug-in vermillion, the non-private reference
black. Methods that share a colour never share a figure, and their markers differ; a test checks
both.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..methods import METHODS, PALETTE

__all__ = [
    "PALETTE",
    "MethodStyle",
    "METHOD_STYLES",
    "method_style",
    "method_label",
    "method_color",
]


@dataclass(frozen=True)
class MethodStyle:
    label: str
    color: str
    marker: str
    linestyle: str | tuple


# every method's look, from the one method table (dpinfer.methods.METHODS)
METHOD_STYLES: dict[str, MethodStyle] = {
    name: MethodStyle(m.label, m.color, m.marker, m.linestyle) for name, m in METHODS.items()
}


def _look(method: str) -> MethodStyle:
    try:
        return METHOD_STYLES[method]
    except KeyError:
        raise KeyError(
            f"method {method!r} has no style; add it to dpinfer.methods.METHODS"
        ) from None


def method_label(method: str) -> str:
    """The display label of ``method``."""
    return _look(method).label


def method_color(method: str) -> str:
    """The colour of ``method`` (for box plots, scatter points and shaded areas)."""
    return _look(method).color


def method_style(method: str, *, marker: bool = True, label: bool = True) -> dict:
    """Keyword arguments for ``ax.plot`` / ``ax.errorbar``: colour, line style, label and (unless
    ``marker=False``, e.g. for densities and traces) the marker."""
    look = _look(method)
    kw = {"color": look.color, "linestyle": look.linestyle}
    if marker:
        kw.update(marker=look.marker, markersize=3.5)
    if label:
        kw["label"] = look.label
    return kw
