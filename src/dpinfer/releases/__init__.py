"""Noise-aware inference from a release a user holds (docs/your-release.md).

:func:`posterior` is the Python entry point; the workflow's ``releases`` section runs the same
code per config entry (:mod:`dpinfer.studies.releases`). Modules: :mod:`.spec` (an entry and
its file, checked), :mod:`.mechanism_spec` (the noise law from what the holder published),
:mod:`.formats` (the ju2022 authors' file layouts), :mod:`.model_methods` (which methods run per
model), :mod:`.counts`, :mod:`.tables`, :mod:`.regression`, :mod:`.nig` (the models),
:mod:`.core` (the result record, chains extended until they pass the diagnostics, the
per-parameter table).

Names are imported on first use, so the workflow can check entries (:mod:`.spec`, NumPy only)
without loading the samplers.
"""

from __future__ import annotations

from importlib import import_module

_HOME = {
    "posterior": "entry",
    "Posterior": "core",
    "summary_rows": "core",
    "ChainSettings": "model_methods",
    "posteriors": "model_methods",
    "Release": "spec",
    "ReleaseError": "spec",
    "release_of": "spec",
    "release_from_values": "spec",
}

__all__ = list(_HOME)


def __getattr__(name):
    if name in _HOME:
        return getattr(import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
