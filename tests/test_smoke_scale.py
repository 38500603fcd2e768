"""config/smoke.yaml shrinks the user's config (issue 30): each rule on a small config, then every
setting of config/config.yaml that a rule touches: an edit of it still takes effect at smoke
scale (a smaller number runs as written, a value added to a grid runs), and no rule is stale."""

from __future__ import annotations

import copy

import pytest

from dpinfer.smoke_scale import SmokeRuleError, shrink

from .configs import config as load_config
from .configs import smoke_rules


def test_a_number_caps_the_setting():
    cfg = {"s": {"iterations": 10000, "burnin": 50, "fraction": 1.0}}
    out = shrink(cfg, {"s": {"iterations": 400, "burnin": 200, "fraction": 0.1}})
    assert out == {"s": {"iterations": 400, "burnin": 50, "fraction": 0.1}}
    assert cfg["s"]["iterations"] == 10000, "the input is not modified"


def test_drop_keeps_the_values_a_user_adds_and_falls_back_to_the_first():
    rule = {"s": {"eps": {"drop": [0.1, 1, 10]}}}
    assert shrink({"s": {"eps": [0.1, 0.3, 1, 3, 10]}}, rule)["s"]["eps"] == [0.3, 3]
    assert shrink({"s": {"eps": [0.1, 0.3, 0.5, 1]}}, rule)["s"]["eps"] == [0.3, 0.5]
    assert shrink({"s": {"eps": [10, 1]}}, rule)["s"]["eps"] == [10]


def test_map_replaces_only_the_values_it_names():
    rule = {"s": {"sizes": {"map": {100: 60, 400: 150}}}}
    assert shrink({"s": {"sizes": [30, 100, 400, 800]}}, rule)["s"]["sizes"] == [30, 60, 150, 800]


def test_the_wildcard_shrinks_an_experiment_without_rules_of_its_own():
    rules = {
        "s": {"experiments": {"a": {"replicates": 4, "eps": {"drop": [1]}}, "*": {"replicates": 3}}}
    }
    cfg = {
        "s": {
            "experiments": {
                "a": {"replicates": 100, "eps": [1, 2]},
                "new": {"replicates": 200, "eps": [1, 2]},
            }
        }
    }
    assert shrink(cfg, rules)["s"]["experiments"] == {
        "a": {"replicates": 4, "eps": [2]},
        "new": {"replicates": 3, "eps": [1, 2]},
    }


def test_a_deleted_study_is_skipped_and_a_deleted_setting_takes_the_cap():
    rules = {
        "gone": {"n": 5},
        "bernstein2020": {"chapter4": {"n": 5}, "chapter5": {"gibbs": {"keep": 7}}},
        "here": {"n": 5, "grid": {"drop": [1]}},
    }
    cfg = {"bernstein2020": {"chapter5": {}}, "here": {}}
    assert shrink(cfg, rules) == {
        "bernstein2020": {"chapter5": {"gibbs": {"keep": 7}}},
        "here": {"n": 5},
    }


@pytest.mark.parametrize(
    "cfg, rule, key",
    [
        ({"s": {"n": [1, 2]}}, {"s": {"n": 5}}, "s.n"),
        ({"s": {"n": 5}}, {"s": {"n": {"drop": [1]}}}, "s.n"),
        ({"s": {"n": [1]}}, {"s": {"n": [1]}}, "s.n"),
        ({"s": {"n": [1]}}, {"s": {"n": {"keep": [1]}}}, "s.n"),
        ({"s": 3}, {"s": {"n": 1}}, "s"),
    ],
)
def test_a_rule_that_cannot_apply_names_its_key(cfg, rule, key):
    with pytest.raises(SmokeRuleError) as err:
        shrink(cfg, rule)
    assert err.value.key == key


# ----------------------------------------------------------------------------- the shipped files
def _leaves(rules: dict, keys=()):
    """(keys, rule) of every rule of the tree (wildcards left out)."""
    for key, rule in rules.items():
        if key == "*":
            continue
        if isinstance(rule, dict) and set(rule) not in ({"drop"}, {"map"}):
            yield from _leaves(rule, keys + (key,))
        else:
            yield keys + (key,), rule


def _get(cfg, keys):
    for key in keys:
        cfg = cfg[key]
    return cfg


def _set(cfg, keys, value):
    _get(cfg, keys[:-1])[keys[-1]] = value


RULES, PAPER, SMOKE = smoke_rules(), load_config("paper"), load_config("smoke")
LEAVES = list(_leaves(RULES))


@pytest.mark.parametrize("keys, rule", LEAVES, ids=[".".join(map(str, k)) for k, _ in LEAVES])
def test_every_rule_names_a_setting_of_config_yaml_and_values_it_has(keys, rule):
    """A rule whose setting or value left config.yaml would shrink nothing (or invent a setting)."""
    value = _get(PAPER, keys)
    if isinstance(rule, dict):
        named = rule.get("drop") or list(rule["map"])
        assert isinstance(value, list) and set(named) <= set(value), (value, rule)
    else:
        assert rule <= value, f"a cap above the paper-scale value: {rule} > {value}"
        assert rule < value, (
            f"a cap equal to the paper-scale value caps nothing; drop the rule ({rule})"
        )


@pytest.mark.parametrize("keys, rule", LEAVES, ids=[".".join(map(str, k)) for k, _ in LEAVES])
def test_an_edit_of_config_yaml_takes_effect_at_smoke_scale(keys, rule):
    """The old smoke.yaml replaced 114 settings, so editing them in config.yaml did nothing at smoke
    scale. Now: a number lowered below the cap runs as written; a value added to a grid runs."""
    value = _get(PAPER, keys)
    edited = copy.deepcopy(PAPER)
    if isinstance(rule, dict):
        new = "added-value" if isinstance(value[0], str) else 7777
        _set(edited, keys, value + [new])
        got = _get(shrink(edited, RULES), keys)
        assert got == _get(SMOKE, keys) + [new], got
    else:
        lower = rule - 1 if isinstance(rule, int) and rule > 1 else rule / 2
        _set(edited, keys, lower)
        assert _get(shrink(edited, RULES), keys) == lower


def test_every_experiment_a_user_adds_is_shrunk():
    rules, cfg = RULES, copy.deepcopy(PAPER)
    cfg["ju2022"]["experiments"]["mine"] = {
        "model": "loglinear",
        "design": "fixed_parameters",
        "epsilons": [0.1, 1],
        "replicates": 500,
    }
    mine = shrink(cfg, rules)["ju2022"]["experiments"]["mine"]
    assert mine["replicates"] == rules["ju2022"]["experiments"]["*"]["replicates"] < 500
    assert mine["epsilons"] == [0.1, 1]
