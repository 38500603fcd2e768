"""The pipeline's config as the workflow reads it, for tests: paper scale (config/config.yaml) or
smoke scale (config.yaml shrunk by the rules of config/smoke.yaml, as the Snakefile does)."""

from __future__ import annotations

from pathlib import Path

import yaml

from dpinfer.smoke_scale import SMOKE_KEY, shrink

ROOT = Path(__file__).resolve().parents[1]


def smoke_rules() -> dict:
    return yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text(encoding="utf-8"))[SMOKE_KEY]


def config(scale: str = "paper") -> dict:
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    if scale == "smoke":
        return shrink(cfg, smoke_rules())
    if scale != "paper":
        raise ValueError(f"scale must be 'paper' or 'smoke', got {scale!r}")
    return cfg


# study unit -> the path of its section in the config
SECTIONS = {
    "ju2022": ("ju2022",),
    "bernstein2020_ch3": ("bernstein2020", "chapter3"),
    "bernstein2020_ch4": ("bernstein2020", "chapter4"),
    "bernstein2020_ch5": ("bernstein2020", "chapter5"),
    "bernstein2020_case": ("bernstein2020", "case_study"),
    "raim2021": ("raim2021",),
    "raisa2021": ("raisa2021",),
    "comparison": ("comparison",),
    "own_data": ("own_data",),
    "releases": ("releases",),
}
