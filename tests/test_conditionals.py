"""The shared njit draws of dpinfer.samplers.conditionals against their exact laws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from scipy import integrate, stats

from dpinfer.samplers.conditionals import (
    laplace_mixture_precision,
    metropolis_accept,
    norm_product,
    norm_product_draw,
    norm_product_work,
    truncated_normal,
    wald_draw,
)


@pytest.mark.parametrize("mean,shape", [(0.5, 2.0), (3.0, 0.01), (1e7, 1e-2), (2e-3, 5.0)])
def test_wald_draw_matches_inverse_gaussian(mean, shape):
    rng = np.random.default_rng(11)
    draws = np.array([wald_draw(rng, mean, shape) for _ in range(20000)])
    p = stats.kstest(draws, stats.invgauss(mu=mean / shape, scale=shape).cdf).pvalue
    assert p > 1e-3


@pytest.mark.parametrize("z,b", [(0.7, 1.0), (15.0, 100.0), (0.01, 10.0)])
def test_laplace_mixture_precision_matches_full_conditional(z, b):
    """Appendix B.2: p(t | z) proportional to t^{-3/2} exp(-z^2 t / 2 - 1 / (2 b^2 t)),
    t = 1/sigma^2."""
    rng = np.random.default_rng(5)
    t = np.array([laplace_mixture_precision(rng, z, b) for _ in range(20000)])
    log_k = lambda u: -1.5 * np.log(u) - 0.5 * z * z * u - 1.0 / (2 * b * b * u)  # noqa: E731
    lo, hi = np.quantile(t, [1e-4, 1 - 1e-4])
    grid = np.geomspace(lo / 50, hi * 50, 200001)
    dens = np.exp(log_k(grid) - log_k(grid).max())
    cdf = integrate.cumulative_trapezoid(dens, grid, initial=0.0)
    cdf /= cdf[-1]
    assert stats.kstest(t, lambda u: np.interp(u, grid, cdf)).pvalue > 1e-3


def test_laplace_is_a_scale_mixture_of_normals():
    rng = np.random.default_rng(2)
    b = 3.0
    sig2 = rng.exponential(2 * b * b, size=50000)
    z = rng.normal(0, np.sqrt(sig2))
    assert stats.kstest(z, stats.laplace(scale=b).cdf).pvalue > 1e-3


def test_norm_product_moments_match_closed_form():
    m3, v3 = norm_product(2.0, 4.0, -1.0, 1.0)
    assert v3[0, 0] == pytest.approx(1 / (1 / 4 + 1))
    assert m3[0] == pytest.approx((2 / 4 - 1) * v3[0, 0])
    s1 = np.array([[2.0, 0.6], [0.6, 1.0]])
    s2 = np.diag([0.5, 3.0])
    mu1, mu2 = np.array([1.0, -2.0]), np.array([0.0, 4.0])
    m3, v3 = norm_product(mu1, s1, mu2, np.diag(s2))
    ref_v = np.linalg.inv(np.linalg.inv(s1) + np.linalg.inv(s2))
    np.testing.assert_allclose(v3, ref_v, rtol=1e-12)
    np.testing.assert_allclose(
        m3, ref_v @ (np.linalg.solve(s1, mu1) + np.linalg.solve(s2, mu2)), rtol=1e-12
    )


@pytest.mark.parametrize(
    "mu,sd,lo,hi",
    [
        (0, 1, -1, 1),
        (0, 1, -0.1, 5),
        (0, 1, 3, 3.2),
        (0, 1, 5, np.inf),
        (0, 1, -np.inf, -6),
        (0, 1, 0.1, 0.15),
        (2, 3, -50, -49.9),
        (10, 2, 0, np.inf),
        (0, 1, 0.2, 9),
    ],
)
def test_truncated_normal_matches_scipy(mu, sd, lo, hi):
    rng = np.random.default_rng(7)
    draws = np.array([truncated_normal(rng, mu, sd, lo, hi) for _ in range(20000)])
    ref = stats.truncnorm((lo - mu) / sd, (hi - mu) / sd, loc=mu, scale=sd)
    assert draws.min() >= lo and draws.max() <= hi
    assert stats.kstest(draws, ref.cdf).pvalue > 1e-3


def test_wald_augmentation_recovers_the_laplace_conditional():
    """With s | omega^2 Gaussian, alternating omega^2 and s must give the exact
    p(s | z) proportional to N(s; m, v) Lap(z; s, b) (1-d, quadrature)."""
    rng = np.random.default_rng(6)
    m, v, z, b = 0.0, 1.0, 2.0, 0.8
    s, draws = 0.0, []
    for it in range(60_000):
        w2 = 1.0 / laplace_mixture_precision(rng, z - s, b)
        s = _norm_product_sample(rng, [m], [[v]], [z], [w2])[0]
        if it >= 1000:
            draws.append(s)
    grid = np.linspace(-6, 8, 20001)
    logp = stats.norm.logpdf(grid, m, math.sqrt(v)) - np.abs(z - grid) / b
    p = np.exp(logp - logp.max())
    p /= p.sum()
    exact_mean = (grid * p).sum()
    exact_sd = math.sqrt(((grid - exact_mean) ** 2 * p).sum())
    draws = np.array(draws)
    assert abs(draws.mean() - exact_mean) < 0.03
    assert abs(draws.std() - exact_sd) < 0.03


def _norm_product_sample(rng, mean, cov, z, omega2):
    mean = np.asarray(mean, dtype=float)
    k = mean.shape[0]
    s = np.empty(k)
    norm_product_draw(
        rng,
        mean,
        np.array(cov, dtype=float),
        np.asarray(z, dtype=float),
        np.asarray(omega2, dtype=float),
        s,
        norm_product_work(k),
    )
    return s


def test_norm_product_draws_match_closed_form():
    rng = np.random.default_rng(7)
    mean = np.array([1.0, -1.0, 0.5])
    a = rng.normal(size=(3, 3))
    cov = a @ a.T + 0.5 * np.eye(3)
    z = np.array([0.3, 0.2, -0.4])
    om = np.array([0.5, 2.0, 0.1])
    prec = np.linalg.inv(cov) + np.diag(1 / om)
    c3 = np.linalg.inv(prec)
    m3 = c3 @ (np.linalg.solve(cov, mean) + z / om)
    d = np.array([_norm_product_sample(rng, mean, cov, z, om) for _ in range(40_000)])
    assert np.all(np.abs(d.mean(0) - m3) < 5 * np.sqrt(np.diag(c3) / d.shape[0]))
    np.testing.assert_allclose(np.cov(d.T), c3, atol=0.03 * np.abs(c3).max())


def test_wald_draw_stays_positive_where_numpy_underflows():
    """A residual near 0 gives an inverse-Gaussian mean of ~1e16 x its shape. numpy's
    Generator.wald then returns exactly 0 in most draws (the 1 / precision of Gibbs-SS divided
    by it at paper scale); the sampler's draw keeps the small root as mean^2 / large root."""

    @njit
    def draws(rng, mean, shape, n):
        out = np.empty(n)
        for i in range(n):
            out[i] = wald_draw(rng, mean, shape)
        return out

    rng = np.random.default_rng(0)
    assert (rng.wald(1e16, 1e-2, 10_000) == 0).mean() > 0.5  # the failure this guards against
    ours = draws(rng, 1e16, 1e-2, 10_000)
    assert np.all(ours > 0) and np.all(np.isfinite(ours))
    # for mean >> shape the law tends to shape / chi^2_1: median shape / 0.4549
    assert np.median(ours) == pytest.approx(1e-2 / 0.45494, rel=0.05)
    assert laplace_mixture_precision(rng, 0.0, 1.0) > 0


def test_metropolis_accept_has_the_acceptance_probability():
    rng = np.random.default_rng(3)
    assert metropolis_accept(rng, 0.0) and metropolis_accept(rng, 2.5)
    for log_ratio in (-0.1, -1.0, -4.0):
        hits = np.mean([metropolis_accept(rng, log_ratio) for _ in range(40_000)])
        p = math.exp(log_ratio)
        assert abs(hits - p) < 5 * math.sqrt(p * (1 - p) / 40_000)
