"""The regression companion's posterior against one reached without MCMC (issue 46): at epsilon
0.1 and 0.3 the exact private posterior of beta given the study's own releases is importance
sampling from the prior predictive (weights: the Laplace density of the release), and the
companion's 90% interval endpoints must agree with it within Monte Carlo error; weights at a
wrong noise scale must not."""

from functools import cache
from pathlib import Path

import numpy as np
import pytest
import yaml

from dpinfer.models import gaussian_linreg
from dpinfer.studies.ju2022.exact_posterior import (
    batch_statistics,
    companion_chains,
    exact_coverage,
    importance_weights,
    interval_check,
    prior_predictive,
)

ROOT = Path(__file__).resolve().parents[1]
EPSILONS = (0.1, 0.3)
REPLICATES = (0, 1)
DRAWS = 60_000
Z_MAX = 4.0  # 2 epsilons x 2 replicates x 3 parameters x 2 endpoints: P(any |z| > 4) ~ 0.002


def _config() -> dict:
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    cfg["ju2022"]["data_dir"] = str(ROOT / cfg["ju2022"]["data_dir"])
    return cfg


@cache
def _replicate(epsilon: float, rep: int):
    """(problem, companion chains, prior-predictive beta, statistics) of one study release."""
    problem, chains = companion_chains(_config(), epsilon, rep)
    beta, stats = prior_predictive(problem, DRAWS, np.random.default_rng([rep, 46]))
    return problem, chains, beta, stats


def test_batch_statistics_are_the_released_statistic():
    rng = np.random.default_rng(3)
    x0 = rng.normal(0.0, 6.0, (5, 40, 2))  # wide enough that some values are clamped
    y = rng.normal(0.0, 8.0, (5, 40))
    got = batch_statistics(x0, y, (-10.0, 10.0))
    for i in range(5):
        X = np.column_stack([np.ones(40), x0[i]])
        want = gaussian_linreg.released_statistic(X, y[i], (-10.0, 10.0))
        np.testing.assert_allclose(got[i], want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("rep", REPLICATES)
def test_companion_intervals_match_the_exact_private_posterior(epsilon, rep):
    """Every endpoint of every parameter's 90% interval within Z_MAX Monte Carlo errors (the
    chains' from the ESS of the endpoint's indicator, the weights' from its importance
    variance); the weights do not degenerate (Kish ESS above a quarter of the draws)."""
    problem, chains, beta, stats = _replicate(epsilon, rep)
    w, kish = importance_weights(problem.released, stats, problem.scale)
    assert kish > DRAWS / 4, f"weights degenerate: Kish ESS {kish:.0f} of {DRAWS}"
    rows = interval_check(chains, beta, w, _config()["ju2022"]["credible_level"])
    worst = max(rows, key=lambda r: abs(r["z"]))
    assert abs(worst["z"]) < Z_MAX, worst
    # the errors are those of a converged sample, small next to the interval
    assert all(r["chains_se"] < 0.1 and r["importance_se"] < 0.1 for r in rows), rows


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("factor", [0.5, 2.0])
def test_a_wrong_noise_scale_is_rejected(epsilon, factor):
    """The check has power: the same chains against weights at half or twice the release's
    noise scale disagree beyond Z_MAX on some endpoint, at every epsilon checked."""
    problem, chains, beta, stats = _replicate(epsilon, REPLICATES[0])
    w, _ = importance_weights(problem.released, stats, problem.scale * factor)
    rows = interval_check(chains, beta, w, _config()["ju2022"]["credible_level"])
    assert max(abs(r["z"]) for r in rows) > Z_MAX, rows


def test_exact_coverage_over_releases():
    """The exact intervals' coverage of the true beta (the command's --coverage): one
    prior-predictive sample serves every release; at epsilon 0.1, where the posterior is close
    to the N(0, 2^2) prior whose 90% interval [-3.29, 3.29] holds every true beta, every
    release's exact interval covers it, and the weights stay even."""
    hits, kish = exact_coverage(_config(), 0.1, 5, 20_000)
    assert hits.shape == (5, 3) and hits.dtype == bool
    assert hits.all(), hits
    assert kish > 20_000 / 2
