"""Shared fixtures and the statistical harness used by the sampler tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dpinfer import metrics

ROOT = Path(__file__).resolve().parents[1]
DATA_JU2022 = ROOT / "config" / "data" / "ju2022"


@pytest.fixture
def rng():
    return np.random.default_rng(20221128)


def assert_mean_matches(draws, exact, z_max: float = 4.5, abs_slack: float = 0.0):
    """Check MCMC means against exact values within ``z_max`` Monte Carlo standard errors.

    The standard error uses the ESS of each coordinate (Geyer's initial positive sequence), so
    the tolerance shrinks with chain length and a biased sampler fails once the chain is long.
    ``abs_slack`` admits a known approximation error (e.g. vanishing-but-nonzero noise).
    """
    draws = np.asarray(draws, float)
    mean = draws.mean(axis=0)
    se = metrics.mc_standard_error(draws)
    z = (np.abs(mean - np.asarray(exact)) - abs_slack).clip(min=0) / se
    assert np.all(z < z_max), f"means {mean} vs exact {exact}: z = {z}, mcse = {se}"
