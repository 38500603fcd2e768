"""Shared fixtures. The statistical checks live in tests/harness.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA_JU2022 = ROOT / "config" / "data" / "ju2022"


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory):
    """The whole workflow run once at smoke scale, shared by the workflow test files (read-only)."""
    from tests.workflow import build_smoke_run

    return build_smoke_run(tmp_path_factory)


@pytest.fixture
def rng():
    return np.random.default_rng(20221128)
