"""The documents' settings as data: one ``settings.yaml`` per study unit, read by one function.

A claim's paper value refers to the settings the document ran at (its chain lengths, grids,
priors, ...). Each unit's ``settings.yaml`` lists them once::

    config_root: bernstein2020.chapter4   # where the ``config`` paths below start
    sources:                 # the texts a setting's source shows, by short name
      paper: in the paper    # (the default source of every entry)
      scale: at paper scale (the thesis gives none)
    values:                  # one entry per setting, by key
      trials:
        label: calibration trials M   # the name the scorecard shows
        paper: 500                    # the document's value (or our paper-scale choice)
        at_least: true                # a run with more is at the setting (counts)
        source: scale                 # a key of ``sources``, or the text itself
        config: replicates            # the default (paper-scale) config's key that runs this
                                      # setting: a test holds its value equal to ``paper``
      n:
        label: n
        paper: [10, 100, 1000]
        in_grid: true                 # this run's value must be one of the grid's
    groups:                  # the settings one kind of claim refers to: keys or other groups
      chain: [trials, n]

:func:`document` reads a unit's file once; :meth:`Document.at` pairs it with this run's values
(a mapping from the same keys) and gives each key's or group's
:class:`~dpinfer.studies.scorecard.Setting` tuple. The unit's code keeps only what is its own:
how this run's values are read from the config and the summaries.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path

import yaml

from .scorecard import Setting, setting, setting_in

__all__ = ["Document", "document", "settings_path"]

_ENTRY_KEYS = {"label", "paper", "at_least", "in_grid", "source", "config", "note"}


def settings_path(unit: str) -> Path:
    """The settings file of study unit ``unit`` (a package of :mod:`dpinfer.studies`)."""
    return Path(__file__).parent / unit / "settings.yaml"


class Document:
    """One unit's settings file: the document's values and the settings' groups."""

    def __init__(self, unit: str, data: dict):
        self.unit = unit
        self.config_root = data.get("config_root", "")
        self.sources = {"paper": "in the paper", **(data.get("sources") or {})}
        self.values = data.get("values") or {}
        self.groups = data.get("groups") or {}
        for key, entry in self.values.items():
            extra = set(entry) - _ENTRY_KEYS
            if extra or "paper" not in entry or "label" not in entry:
                raise ValueError(
                    f"{settings_path(unit)}: values.{key} needs a label and a paper value"
                    + (f" (unknown keys {sorted(extra)})" if extra else "")
                )
        for name, members in self.groups.items():
            for m in members:
                if m not in self.values and m not in self.groups:
                    raise ValueError(f"{settings_path(unit)}: groups.{name} names unknown {m!r}")

    def paper(self, key: str):
        """The document's value of setting ``key``."""
        return self.values[key]["paper"]

    def source(self, key: str) -> str:
        name = self.values[key].get("source", "paper")
        return self.sources.get(name, name)

    def keys(self, name: str) -> list[str]:
        """The setting keys of a key or a group (groups expanded in order)."""
        if name in self.values:
            return [name]
        return [k for member in self.groups[name] for k in self.keys(member)]

    def config_paths(self) -> dict[str, str]:
        """Setting key -> the dotted path of the config value that runs it (where one does)."""
        root = f"{self.config_root}." if self.config_root else ""
        return {k: root + e["config"] for k, e in self.values.items() if "config" in e}

    def config_values(self, section: Mapping) -> dict:
        """Setting key -> its value in ``section`` (the config at ``config_root``), read at the
        entry's ``config`` path (None where the section lacks it)."""
        out = {}
        for key, entry in self.values.items():
            if "config" in entry:
                value = section
                for part in entry["config"].split("."):
                    value = value.get(part) if isinstance(value, Mapping) else None
                out[key] = value
        return out

    def at(self, ours: Mapping) -> Run:
        """The document beside this run's values (``ours``: setting key -> value)."""
        return Run(self, ours)


class Run:
    """A unit's settings beside this run's values; call it with keys or groups."""

    def __init__(self, doc: Document, ours: Mapping):
        self.doc = doc
        self.ours = dict(ours)

    def setting(self, key: str, ours=None, **label_fields) -> Setting:
        """One setting; ``ours`` overrides this run's value, ``label_fields`` fill the label's
        ``{placeholders}``."""
        entry = self.doc.values[key]
        value = self.ours[key] if ours is None else ours
        name = entry["label"].format(**label_fields) if label_fields else entry["label"]
        if entry.get("in_grid"):
            return setting_in(name, entry["paper"], value, source=self.doc.source(key))
        return setting(
            name,
            entry["paper"],
            value,
            at_least=bool(entry.get("at_least")),
            source=self.doc.source(key),
        )

    def __call__(self, *names: str, **ours) -> tuple[Setting, ...]:
        """The settings of ``names`` (keys or groups), in order; keyword values override this
        run's values of those keys (one cell's n and epsilon, say)."""
        run = Run(self.doc, {**self.ours, **ours}) if ours else self
        return tuple(run.setting(k) for name in names for k in self.doc.keys(name))


@cache
def document(unit: str) -> Document:
    """Study unit ``unit``'s settings file, read once per process."""
    with open(settings_path(unit), encoding="utf-8") as fh:
        return Document(unit, yaml.safe_load(fh) or {})
