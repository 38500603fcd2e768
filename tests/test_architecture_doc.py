"""docs/architecture.md names only what exists: every path, every (file, name) step of its
config-to-kernel tables, and every config key it quotes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpinfer.methods import METHODS
from tests.configs import config

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
SPANS = re.findall(r"`([^`\n]+)`", DOC)
PATHS = sorted(
    {s for s in SPANS if re.fullmatch(r"(src|workflow|tests|config|docs)/[\w./-]*", s)}
    | {s for s in SPANS if s in ("Snakefile", "pyproject.toml")}
)
ROWS = re.findall(r"^\| [a-z ]+ \| `([^`]+)` \| `([^`]+)` \|$", DOC, re.M)
CONFIG_KEYS = re.findall(r"config `([a-z0-9_.]+)(?:: [^`]+)?`", DOC) + re.findall(
    r", `([a-z0-9_]+\.[a-z0-9_.]+)`\)", DOC
)


def test_the_page_names_paths_steps_and_keys():
    assert len(PATHS) > 30 and len(ROWS) >= 8 * 5 and len(CONFIG_KEYS) >= 8


@pytest.mark.parametrize("path", PATHS)
def test_every_path_it_names_exists(path):
    assert (ROOT / path).exists(), path


def _defines(text: str, name: str) -> bool:
    return bool(re.search(rf"^\s*(def|class|rule) {re.escape(name)}\b", text, re.M))


@pytest.mark.parametrize("path,name", ROWS, ids=[f"{p}:{n}" for p, n in ROWS])
def test_every_step_of_a_target_path_is_defined_where_it_says(path, name):
    if path == "src/dpinfer/methods.py":
        assert name in METHODS and (METHODS[name].runs or METHODS[name].fits), name
    else:
        assert _defines((ROOT / path).read_text(encoding="utf-8"), name), f"{name} in {path}"


@pytest.mark.parametrize("key", CONFIG_KEYS)
def test_every_config_key_it_quotes_exists(key):
    node = config("paper")
    for part in key.split("."):
        assert isinstance(node, dict) and part in node, key
        node = node[part]
