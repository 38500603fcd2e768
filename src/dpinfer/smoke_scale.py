"""Smoke scale: the user's config shrunk by the rules of config/smoke.yaml (pure Python).

config/smoke.yaml holds one key, ``smoke``: a tree of rules in the shape of config/config.yaml.
It is passed with ``--configfile`` and the Snakefile applies it to the config the user wrote
(config.yaml and any other ``--configfile``), so an edit of config.yaml takes effect at both
scales. The rules, one per setting:

- a number caps the setting: smoke scale runs min(your value, the number);
- ``{drop: [...]}`` removes those values from your grid, so a value you add runs at smoke scale
  too; if nothing is left, your grid's first value runs;
- ``{map: {a: b}}`` runs b where your list has a (values it does not name pass unchanged);
- ``"*"`` under a map of experiments holds the rules of every experiment that has none of its
  own, so an experiment you add is shrunk as well.

A rule for a study section you deleted (a top-level key, or a chapter of bernstein2020) is
skipped; a number rule for a setting you deleted inside a section gives the setting that value.
"""

from __future__ import annotations

import copy
from numbers import Real

from .config_checks import dotted

__all__ = ["SMOKE_KEY", "SmokeRuleError", "shrink"]

SMOKE_KEY = "smoke"
_LIST_RULES = ({"drop"}, {"map"})


class SmokeRuleError(ValueError):
    """A rule of config/smoke.yaml that cannot apply to the user's config; names the key."""

    def __init__(self, keys, message):
        self.key, self.reason = dotted(keys), message
        super().__init__(f"'{self.key}': {message}")


def shrink(config: dict, rules: dict) -> dict:
    """A copy of ``config`` at smoke scale under ``rules`` (the value of the ``smoke`` key)."""
    out = copy.deepcopy(config)
    _apply(out, rules or {}, ())
    return out


def _is_section(rule) -> bool:
    return isinstance(rule, dict) and set(rule) not in _LIST_RULES


def _is_study(keys: tuple) -> bool:
    return len(keys) == 1 or (len(keys) == 2 and keys[0] == "bernstein2020")


def _apply(node: dict, rules: dict, keys: tuple) -> None:
    if not isinstance(rules, dict):
        raise SmokeRuleError(
            keys,
            f"a smoke rule must be a number, {{drop: [...]}}, {{map: {{...}}}} "
            f"or a section of rules, got {rules!r}",
        )
    for key, rule in rules.items():
        if key == "*":
            continue
        here = keys + (key,)
        if _is_section(rule):
            if key not in node:
                if _is_study(here):
                    continue  # the user deleted this study: its rules have nothing to shrink
                node[key] = {}
            if not isinstance(node[key], dict):
                raise SmokeRuleError(
                    here,
                    f"config/smoke.yaml shrinks a section here, but the config has {node[key]!r}",
                )
            _apply(node[key], rule, here)
        elif key in node or _is_number(rule):
            node[key] = _leaf(node.get(key), rule, here)
    if "*" in rules:
        for key, value in node.items():
            if key not in rules and isinstance(value, dict):
                _apply(value, rules["*"], keys + (key,))


def _is_number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _leaf(value, rule, keys):
    if _is_number(rule):
        if value is None:
            return rule
        if not _is_number(value):
            raise SmokeRuleError(
                keys, f"config/smoke.yaml caps this number at {rule}, but the config has {value!r}"
            )
        return min(value, rule)
    if not isinstance(rule, dict) or set(rule) not in _LIST_RULES:
        raise SmokeRuleError(
            keys, f"unknown smoke rule {rule!r}: a number, {{drop: [...]}} or {{map: {{...}}}}"
        )
    if not isinstance(value, list):
        raise SmokeRuleError(
            keys, f"config/smoke.yaml thins a list here, but the config has {value!r}"
        )
    if set(rule) == {"drop"}:
        kept = [v for v in value if v not in rule["drop"]]
        return kept or value[:1]
    return [rule["map"].get(v, v) for v in value]
