"""The documents' settings files (studies/<unit>/settings.yaml) and the one function that reads
them: every file loads, the default config runs each setting it names at the document's value,
and a malformed file is refused naming the entry."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dpinfer.studies import document_settings as ds
from dpinfer.studies.scorecard import setting

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
UNITS = sorted(p.parent.name for p in (ROOT / "src/dpinfer/studies").glob("*/settings.yaml"))


def _at(cfg: dict, path: str):
    for part in path.split("."):
        cfg = cfg[part]
    return cfg


def test_every_study_unit_with_settings_has_a_file():
    assert UNITS, "no settings.yaml found"


@pytest.mark.parametrize("unit", UNITS)
def test_the_default_config_runs_each_named_setting_at_the_documents_value(unit):
    """A free choice's paper-scale value stands for the document's setting only while the
    default config runs it; a printed value named with its config key must be the config's."""
    doc = ds.document(unit)
    paths = doc.config_paths()
    for key, path in paths.items():
        assert setting(key, doc.paper(key), _at(CONFIG, path)).same, f"{unit}: {key} vs {path}"
    for name in doc.groups:  # every group resolves to known keys
        assert doc.keys(name)


def test_a_run_pairs_each_setting_with_ours():
    doc = ds.Document(
        "x",
        {
            "sources": {"scale": "at paper scale"},
            "values": {
                "m": {"label": "trials", "paper": 500, "at_least": True, "source": "scale"},
                "n": {"label": "n", "paper": [10, 100], "in_grid": True},
                "b": {"label": "burn-in {where}", "paper": 20},
            },
            "groups": {"g": ["m", "n"], "h": ["g", "b"]},
        },
    )
    run = doc.at({"m": 600, "n": 100, "b": 20})
    m, n, b = run("h")
    assert (m.same, m.source, m.paper, m.ours) == (True, "at paper scale", "500", "600")
    assert n.same and n.paper == "10 or 100"
    assert b.name == "burn-in {where}" and run.setting("b", where="here").name == "burn-in here"
    assert not run("m", m=499)[0].same and not run("n", n=1000)[0].same
    assert not run.setting("b", 19).same and b.source == "in the paper"


@pytest.mark.parametrize(
    "data, message",
    [
        ({"values": {"m": {"paper": 1}}}, "values.m needs a label"),
        ({"values": {"m": {"label": "m"}}}, "values.m needs a label and a paper value"),
        ({"values": {"m": {"label": "m", "paper": 1, "atleast": 1}}}, "unknown keys"),
        ({"values": {}, "groups": {"g": ["m"]}}, "groups.g names unknown 'm'"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_entry(data, message):
    with pytest.raises(ValueError, match=message):
        ds.Document("x", data)
