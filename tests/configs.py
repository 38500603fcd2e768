"""The pipeline's config as the workflow reads it, for tests: paper scale (config/config.yaml) or
smoke scale (config/smoke.yaml merged over it, as ``snakemake --configfile`` merges)."""

from __future__ import annotations

from pathlib import Path

import yaml
from snakemake.utils import update_config

ROOT = Path(__file__).resolve().parents[1]


def config(scale: str = "paper") -> dict:
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    if scale == "smoke":
        update_config(cfg, yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text(encoding="utf-8")))
    elif scale != "paper":
        raise ValueError(f"scale must be 'paper' or 'smoke', got {scale!r}")
    return cfg
