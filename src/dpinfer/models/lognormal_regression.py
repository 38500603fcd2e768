"""Lognormal regression with disclosure-avoidance noise (raim2021, slides "Regression model
application").

    y~_i = y_i + xi^y_i,       xi^y_i ~ DGeom(rho)           (double geometric, integers)
    x~_i1 = x_i1 + xi^x_i,     xi^x_i ~ Laplace(0, lambda)
    log y_i = x_i1 beta_1 + x_i2 beta_2 + gamma_i,  gamma_i ~ N(0, sigma^2)
    beta ~ N_2(0, sigma_beta^2 I),  sigma^2 ~ IG(a_sigma, b_sigma)

The noise law is :class:`ReleaseNoise`, two records of :mod:`dpinfer.mechanisms`:
``DoubleGeometric(rho)`` for y (P(k) = rho/(2-rho) (1-rho)^|k|, the slides' DGeom(rho): small
rho = much noise) and ``Laplace(scale=lambda)`` for x_1. :func:`release` draws the noise
through them, and the Gibbs sampler builds its direct-sampler bases from the same records.

Samplers of this model (``dpinfer.samplers.lognormal_gibbs``) share one call signature:

    run(y, X, noise, *, burnin, keep, rng, prior=Prior(), **settings) -> Chain

and the registry calls them as ``run(problem, rng, *, burnin, keep, **settings)`` with
:class:`Problem`; draws (beta_1, beta_2, sigma^2). ``alg2_noisy`` (Algorithm 2, ``run_noisy``)
takes the release (y~, X~) and its ``ReleaseNoise``; ``alg4_noise_free`` (Algorithm 4,
``run_noise_free``) takes the confidential (y, X) and ``noise=None``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..mechanisms import DoubleGeometric, Laplace

__all__ = [
    "Problem",
    "Prior",
    "Truth",
    "ReleaseNoise",
    "simulate_design",
    "simulate_outcomes",
    "release",
    "mse_per_draw",
    "mse_of_chain",
    "exact_posterior_moments",
]


@dataclass(frozen=True)
class Prior:
    """beta ~ N(0, sigma_beta^2 I), sigma^2 ~ IG(a, b) (slides: sigma_beta = 10, a = 2, b = 10)."""

    sigma_beta: float = 10.0
    a_sigma: float = 2.0
    b_sigma: float = 10.0


@dataclass(frozen=True)
class Truth:
    """Data-generating values: n = 200, beta = (5, -1), sigma = 1 in the slides."""

    n: int = 200
    beta: tuple = (5.0, -1.0)
    sigma: float = 1.0

    @property
    def theta(self) -> np.ndarray:
        """theta_0 = (beta_1, beta_2, sigma^2), the point of the MSE."""
        return np.array([*self.beta, self.sigma**2])


@dataclass(frozen=True)
class ReleaseNoise:
    """The release's disclosure-avoidance noise: ``y`` on the outcome, ``x1`` on the first
    covariate (the second is released without noise)."""

    y: DoubleGeometric
    x1: Laplace

    def __post_init__(self):
        if not isinstance(self.y, DoubleGeometric) or not isinstance(self.x1, Laplace):
            raise TypeError("ReleaseNoise needs a DoubleGeometric (y) and a Laplace (x1) record")

    @classmethod
    def of(cls, rho: float, lam: float) -> ReleaseNoise:
        """DGeom(rho) on y and Laplace(0, lambda) on x_1 (the slides' rho and lambda)."""
        return cls(DoubleGeometric(rho=float(rho)), Laplace(scale=float(lam)))

    @property
    def rho(self) -> float:
        return self.y.rho

    @property
    def lam(self) -> float:
        return self.x1.scale


def simulate_design(rng: np.random.Generator, n: int) -> np.ndarray:
    """X with independent N(0, 1) entries, n x 2 (no intercept, as in the slides)."""
    return rng.standard_normal((n, 2))


def simulate_outcomes(rng: np.random.Generator, X: np.ndarray, truth: Truth) -> np.ndarray:
    """y ~ LN(X beta, sigma^2)."""
    return np.exp(X @ np.asarray(truth.beta) + truth.sigma * rng.standard_normal(X.shape[0]))


def release(rng: np.random.Generator, y: np.ndarray, X: np.ndarray, noise: ReleaseNoise):
    """(y~, X~): y through ``noise.y`` (DGeom(rho)), column 1 of X through ``noise.x1``
    (Laplace(0, lambda)); column 2 is released as is. y's noise is drawn first."""
    y_noisy = np.asarray(noise.y.release(rng, y), dtype=float)
    X_noisy = np.array(X, dtype=float)
    X_noisy[:, 0] = noise.x1.release(rng, X[:, 0])
    return y_noisy, X_noisy


def mse_per_draw(draws: np.ndarray, theta0) -> np.ndarray:
    """||theta^(r) - theta_0||^2 for each row of draws (beta_1, beta_2, sigma^2)."""
    d = np.asarray(draws, dtype=float) - np.asarray(theta0, dtype=float)
    return np.sum(d * d, axis=1)


def mse_of_chain(draws: np.ndarray, theta0) -> float:
    """MSE^(s) = (1/R) sum_r ||theta^(r,s) - theta_0||^2 (slides, "Simulation")."""
    return float(np.mean(mse_per_draw(draws, theta0)))


def exact_posterior_moments(
    log_y: np.ndarray, X: np.ndarray, prior: Prior = Prior(), n_grid: int = 4001
) -> dict:
    """Posterior means and sds of (beta_1, beta_2, sigma^2) given noise-free data, by
    quadrature over sigma^2: beta integrates out in closed form,
    log y | sigma^2 ~ N(0, sigma^2 I + sigma_beta^2 X X'), and E[beta | sigma^2, y] is the
    conjugate mean. Used to check Algorithm 4 (and Algorithm 2 with negligible noise)."""
    n, d = X.shape
    sb2 = prior.sigma_beta**2
    XtX = X.T @ X
    Xty = X.T @ log_y
    yty = float(log_y @ log_y)

    def pieces(s2):
        omega = XtX / s2 + np.eye(d) / sb2
        L = np.linalg.cholesky(omega)
        m = np.linalg.solve(omega, Xty / s2)
        # log p(y | s2) up to a constant, via the Woodbury identity
        quad = yty / s2 - float(Xty @ m) / s2
        logdet = n * math.log(s2) + d * math.log(sb2) + 2.0 * np.sum(np.log(np.diag(L)))
        return -0.5 * (quad + logdet), m, np.linalg.inv(omega)

    # a grid in log sigma^2 wide enough for any posterior of this model with n >= 20
    s2_hat = max(1e-8, (yty - float(Xty @ np.linalg.solve(XtX + 1e-12 * np.eye(d), Xty))) / n)
    t = np.linspace(math.log(s2_hat) - 4.0, math.log(s2_hat) + 4.0, n_grid)
    logpost = np.empty(n_grid)
    means = np.empty((n_grid, d))
    covs = np.empty((n_grid, d, d))
    for k, tk in enumerate(t):
        s2 = math.exp(tk)
        ll, m, cov = pieces(s2)
        # IG(a, b) prior density in s2, times the Jacobian s2 of the log-grid
        logpost[k] = ll - (prior.a_sigma + 1.0) * tk - prior.b_sigma / s2 + tk
        means[k] = m
        covs[k] = cov
    wgt = np.exp(logpost - logpost.max())
    wgt /= np.trapezoid(wgt, t)
    s2 = np.exp(t)
    e_s2 = np.trapezoid(wgt * s2, t)
    v_s2 = np.trapezoid(wgt * s2 * s2, t) - e_s2**2
    e_b = np.trapezoid(wgt[:, None] * means, t, axis=0)
    second = np.trapezoid(
        wgt[:, None] * (np.diagonal(covs, axis1=1, axis2=2) + means**2), t, axis=0
    )
    return {"mean": np.array([*e_b, e_s2]), "sd": np.sqrt(np.array([*(second - e_b**2), v_s2]))}


@dataclass(frozen=True)
class Problem:
    """What a sampler of this model conditions on: the data it sees (the release for Algorithm
    2, the confidential data for Algorithm 4), the noise law (None: no noise) and the prior."""

    y: np.ndarray
    X: np.ndarray
    noise: ReleaseNoise | None = None
    prior: Prior = Prior()
