"""ju2022's Algorithm 1 under every noise law a release can carry: the log-linear sampler with
Gaussian and discrete Gaussian noise against the enumerated posterior of tests/exact/ju2022.py,
the regression sampler with Gaussian noise against importance sampling from the prior predictive
(exact as the draws grow), each rejecting a sampler told the wrong sigma; and the map from a
mechanism to the law the kernels read (:func:`dpinfer.releases.tables.noise_law`)."""

from __future__ import annotations

import numpy as np
import pytest

from dpinfer import diagnostics
from dpinfer.mechanisms import DiscreteGaussian, DoubleGeometric, Gaussian, Laplace
from dpinfer.models import gaussian_linreg, naive_bayes
from dpinfer.releases.tables import TableError, noise_law
from dpinfer.samplers.data_augmentation import run_linreg, run_loglinear
from dpinfer.studies.ju2022.exact_posterior import prior_predictive
from tests.exact.ju2022 import (
    ALPHA,
    ALPHA_P,
    LOGLINEAR,
    N,
    exact_private_posterior,
    loglinear_chain,
)
from tests.harness import ExactCase, check_exact

GAUSSIAN_CASES = [case for case in LOGLINEAR if not isinstance(case[0], Laplace)]


@pytest.mark.parametrize("mechanism, released, seed", GAUSSIAN_CASES, ids=["gauss", "dgauss"])
def test_loglinear_gaussian_noise_matches_the_enumerated_posterior(mechanism, released, seed):
    """Means and sds within 4 Monte Carlo errors of the enumeration (120,000 sweeps); a chain
    told twice the sigma fails the same check (its z is about 30)."""
    mean, sd = exact_private_posterior(released, mechanism, ALPHA_P, ALPHA, N)
    check_exact(ExactCase(loglinear_chain(mechanism, seed, released).kept, mean, sd), z_max=4.0)
    wrong = type(mechanism)(sigma=2.0 * mechanism.sigma, sensitivity=1.0)
    with pytest.raises(AssertionError, match="means"):
        check_exact(ExactCase(loglinear_chain(wrong, seed, released).kept, mean, sd), z_max=4.0)


# regression: p = 1, 4 records, Gaussian noise of sd 0.4 on the rescaled statistics
CLAMP, SIGMA = (-3.0, 3.0), 0.4
X = np.array([[1.0, -1.2], [1.0, 0.3], [1.0, 0.9], [1.0, 2.1]])
Y = np.array([-0.5, 0.8, 1.1, 2.9])


def _regression(sigma: float, released) -> gaussian_linreg.Problem:
    return gaussian_linreg.Problem(
        released, sigma, np.zeros(1), np.eye(1), 1.0, 1.5, CLAMP, len(Y), "gaussian"
    )


def test_regression_gaussian_noise_matches_importance_sampling():
    """Chain means within 4 combined errors (the chain's MCSE and the importance estimate's)
    of the prior-predictive importance-sampling posterior (400,000 draws, Kish ESS > 5,000),
    weighted by the Gaussian density of the release; a chain told twice the sigma fails."""
    rng = np.random.default_rng(7)
    noise = Gaussian(sigma=SIGMA, sensitivity=1.0)
    released = noise.release(rng, gaussian_linreg.released_statistic(X, Y, CLAMP))
    beta, stats = prior_predictive(_regression(SIGMA, released), 400_000, rng)
    logw = noise.logpdf(released - stats).sum(axis=1)
    w = np.exp(logw - logw.max())
    w /= w.sum()
    assert 1.0 / np.sum(w * w) > 5_000
    exact = w @ beta
    exact_se = np.sqrt(np.sum(w[:, None] ** 2 * (beta - exact) ** 2, axis=0))

    def z(sigma: float) -> np.ndarray:
        chain = run_linreg(
            _regression(sigma, released),
            np.random.default_rng(9),
            burnin=2_000,
            keep=40_000,
            noncentred_moves=10,
        ).kept
        mcse = diagnostics.mc_standard_error(chain)
        return np.abs(chain.mean(axis=0) - exact) / np.hypot(mcse, exact_se)

    assert np.all(z(SIGMA) < 4.0)
    assert np.any(z(2.0 * SIGMA) > 4.0)


def test_each_mechanism_maps_to_the_law_the_kernels_read():
    table = np.array([[[2.0, -1.0]]])
    assert noise_law(Laplace(scale=1.5), table, "r") == ("laplace", 1.5)
    assert noise_law(Gaussian(sigma=0.7), table + 0.5, "r") == ("gaussian", 0.7)
    assert noise_law(DiscreteGaussian(sigma=0.7), table, "r") == ("gaussian", 0.7)
    kind, t = noise_law(DoubleGeometric(rho=0.3), table, "r")
    # the double geometric's mass ratio between neighbours is 1 - rho = exp(-1 / t)
    assert kind == "laplace" and np.exp(-1.0 / t) == pytest.approx(0.7)
    with pytest.raises(TableError, match="1 values do not"):
        noise_law(DiscreteGaussian(sigma=0.7), table + [[[0.5, 0.0]]], "release 'r'")


def test_an_unknown_noise_law_is_refused():
    problem = naive_bayes.Problem(np.ones((1, 2, 2)), 1.0, np.ones(2), np.ones((1, 2, 2)), 3, "t")
    with pytest.raises(ValueError, match="noise must be one of"):
        run_loglinear(problem, np.random.default_rng(0), burnin=1, keep=1)
