"""Exact targets of the raim2021 samplers (slides, Algorithms 2 and 4).

Both are checked against the posterior of (beta_1, beta_2, sigma^2) given noise-free data, by
quadrature over sigma^2 with beta integrated exactly
(:func:`dpinfer.models.lognormal_regression.exact_posterior_moments`):

- ``("lognormal_regression", "alg4_noise_free")``: Algorithm 4 on the confidential data; means
  and sds.
- ``("lognormal_regression", "alg2_noisy")``: Algorithm 2 with both noises negligible
  (rho = 0.9999, lambda = 1e-6), so every direct-sampler step runs on near-degenerate
  conditionals and the posterior is the noise-free one up to an O(noise) slack.

The direct sampler itself is checked draw by draw against integrated CDFs and enumerated pmfs
in ``tests/test_direct_sampler.py``.
"""

from __future__ import annotations

import numpy as np

from dpinfer.models.lognormal_regression import (
    Problem,
    ReleaseNoise,
    Truth,
    exact_posterior_moments,
    release,
    simulate_design,
    simulate_outcomes,
)
from dpinfer.samplers.lognormal_gibbs import run_noise_free, run_noisy
from tests.harness import ExactCase

MODEL = "lognormal_regression"
NEGLIGIBLE = ReleaseNoise.of(0.9999, 1e-6)


def small_data(n: int = 40, seed: int = 2021):
    """(X, y) of a small data set from the slides' model (beta = (5, -1), sigma = 1)."""
    rng = np.random.default_rng(seed)
    truth = Truth(n=n)
    X = simulate_design(rng, truth.n)
    return X, simulate_outcomes(rng, X, truth)


def non_private() -> ExactCase:
    X, y = small_data()
    chain = run_noise_free(Problem(y, X), burnin=1000, keep=39_000, rng=np.random.default_rng(1))
    exact = exact_posterior_moments(np.log(y), X)
    return ExactCase(chain.kept, exact["mean"], exact["sd"])


def noise_aware_gibbs() -> ExactCase:
    X, y = small_data()
    rng = np.random.default_rng(2)
    y_noisy, X_noisy = release(rng, y, X, NEGLIGIBLE)
    chain = run_noisy(Problem(y_noisy, X_noisy, NEGLIGIBLE), burnin=500, keep=5500, rng=rng)
    exact = exact_posterior_moments(np.log(y), X)
    return ExactCase(chain.kept, exact["mean"], exact["sd"], mean_slack=1e-3, sd_slack=1e-3)


CASES = {
    (MODEL, "alg4_noise_free"): non_private,
    (MODEL, "alg2_noisy"): noise_aware_gibbs,
}
