"""The statistical harness every sampler test uses: exact targets with ESS-gated tolerances,
and calibration over replicates, each written once.

- :class:`ExactCase` + :func:`check_exact`: a chain against the exact posterior mean and sd of
  its target (enumeration, quadrature or conjugacy). Tolerances are ``z_max`` Monte Carlo
  standard errors from the chain's own effective sample size (of x for the mean, of
  (x - mean)^2 for the sd), plus an explicit ``slack`` for a known approximation (a CLT, a
  vanishing but non-zero noise). A biased sampler fails once the chain is long enough.
- :func:`posterior_quantiles`, :func:`ks_per_parameter`, :func:`assert_calibrated`,
  :func:`assert_miscalibrated`: simulation-based calibration (Cook, Gelman and Rubin 2006): the
  posterior quantile of the true parameter is U(0, 1) over replicates for an exact sampler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpinfer import diagnostics

__all__ = [
    "ExactCase",
    "check_exact",
    "z_scores",
    "assert_mean_matches",
    "posterior_quantiles",
    "ks_per_parameter",
    "assert_calibrated",
    "assert_miscalibrated",
]


@dataclass
class ExactCase:
    """Kept draws (n, d) of a sampler and the exact posterior they must match."""

    draws: np.ndarray
    mean: np.ndarray
    sd: np.ndarray | None = None
    mean_slack: float | np.ndarray = 0.0
    sd_slack: float | np.ndarray = 0.0


def z_scores(draws, exact_mean, exact_sd, mean_slack, sd_slack):
    x = np.asarray(draws, float)
    if x.ndim == 1:
        x = x[:, None]
    mean = x.mean(axis=0)
    z_mean = (np.abs(mean - np.asarray(exact_mean, float)) - mean_slack).clip(
        min=0
    ) / diagnostics.mc_standard_error(x)
    if exact_sd is None:
        return mean, None, z_mean, None
    sq = (x - mean) ** 2
    se_var = sq.std(axis=0, ddof=1) / np.sqrt(diagnostics.effective_sample_size(sq))
    sd = np.sqrt(sq.mean(axis=0))
    se_sd = se_var / (2.0 * np.asarray(exact_sd, float))
    z_sd = (np.abs(sd - np.asarray(exact_sd, float)) - sd_slack).clip(min=0) / se_sd
    return mean, sd, z_mean, z_sd


def check_exact(case: ExactCase, z_max: float = 5.0) -> None:
    """Assert the chain's mean (and sd) agree with the exact values within z_max MC errors."""
    mean, sd, z_mean, z_sd = z_scores(
        case.draws, case.mean, case.sd, case.mean_slack, case.sd_slack
    )
    assert np.all(z_mean < z_max), f"means {mean} vs exact {case.mean}: z = {z_mean}"
    if z_sd is not None:
        assert np.all(z_sd < z_max), f"sds {sd} vs exact {case.sd}: z = {z_sd}"


def assert_mean_matches(draws, exact, z_max: float = 4.5, abs_slack: float = 0.0) -> None:
    """Means only (see :func:`check_exact`)."""
    check_exact(
        ExactCase(np.asarray(draws, float), np.asarray(exact, float), mean_slack=abs_slack), z_max
    )


def posterior_quantiles(
    trial: Callable[[int], tuple[np.ndarray, np.ndarray]], trials: int
) -> np.ndarray:
    """(trials, d) posterior quantiles of the truth; ``trial(r)`` returns (draws, truth) of a
    replicate whose truth was drawn from the prior and whose data from the model."""
    return np.array([diagnostics.quantile_of_truth(*trial(r)) for r in range(trials)])


def ks_per_parameter(u: np.ndarray) -> np.ndarray:
    u = np.asarray(u, float)
    return np.array([diagnostics.ks_uniform(u[:, j]) for j in range(u.shape[1])])


def assert_calibrated(u: np.ndarray, alpha: float = 0.001) -> None:
    """Every parameter's KS distance below the critical value at level ``alpha``."""
    ks = ks_per_parameter(u)
    crit = diagnostics.ks_critical_value(u.shape[0], alpha)
    assert np.all(ks < crit), f"KS {ks} vs critical value {crit:.4f} (alpha {alpha})"


def assert_miscalibrated(u: np.ndarray, alpha: float = 0.05, parameters=None) -> None:
    """Some parameter (among ``parameters``, default all) above the critical value: the
    calibration check has power against this sampler."""
    ks = ks_per_parameter(u)
    crit = diagnostics.ks_critical_value(u.shape[0], alpha)
    pick = ks if parameters is None else ks[list(parameters)]
    assert np.any(pick > crit), f"KS {ks} all below critical value {crit:.4f}: no power"
