"""One figure style for the whole pipeline: the look of every method, atomic figure saving with a
layout check.

The names load on first use (PEP 562), so a compute job that needs only a method's label
(``dpinfer.plotting.methods``) does not import matplotlib: about 0.5 s of every such job.
"""

from importlib import import_module

_HOME = {
    "LayoutReport": "layout",
    "check_layout": "layout",
    "METHOD_STYLES": "methods",
    "PALETTE": "methods",
    "method_color": "methods",
    "method_label": "methods",
    "method_style": "methods",
    "COLORS": "style",
    "apply_style": "style",
    "legend_below": "style",
    "log_axis": "style",
    "save_figure": "style",
    "subplots": "style",
}

__all__ = list(_HOME)


def __getattr__(name):
    if name in _HOME:
        return getattr(import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
