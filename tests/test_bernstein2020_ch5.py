"""bernstein2020 Ch. 5: conjugate pieces, CLT moments, NormProduct, Wald update, and the
noise-aware samplers (calibration over replicates; Naive must fail where the thesis says so)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpinfer.diagnostics import ks_critical_value, ks_uniform, quantile_of_truth
from dpinfer.models.linreg_nig import (
    NIGPrior,
    NIWPrior,
    clt_mean_cov,
    gaussian_moments,
    nig_draws,
    nig_posterior,
    niw_posterior,
    prior_predictive_moments,
    project_statistics,
    sensitivity_statistics,
    simulate_dataset,
    sufficient_statistics,
)
from dpinfer.samplers.gibbs_ss import norm_product_draw, run_gibbs_ss, wald_precision_draw
from dpinfer.samplers.mcmc_ind import run_mcmc_ind
from dpinfer.studies.bernstein2020_ch5 import release_statistics, run_method, synthetic_settings

PRIOR = NIGPrior(np.zeros(2), np.diag([0.5 / 19, 0.5 / 19]), 20.0, 0.5)
DATA_PRIOR = NIWPrior(0.0, 1.0, 1.0, 50.0)


def test_sensitivity_matches_thesis_formula():
    # Delta = w^2 d(d+1)/2 + w^2 d + w^2 with d = 2 (unit feature included), w = 2
    assert sensitivity_statistics(2.0, 2.0) == 24.0
    assert sensitivity_statistics(1.0, 1.0) == 6.0


def test_nig_posterior_matches_least_squares_form():
    rng = np.random.default_rng(0)
    x = rng.normal(size=30)
    y = 0.7 * x - 0.2 + 0.3 * rng.normal(size=30)
    prior = NIGPrior(np.array([0.4, -1.0]), np.array([[2.0, 0.3], [0.3, 1.5]]), 3.0, 0.8)
    mu_n, lam_n, a_n, b_n = nig_posterior(sufficient_statistics(x, y), 30, prior)
    X = np.column_stack([x, np.ones_like(x)])
    lam = X.T @ X + prior.lam0
    mu = np.linalg.solve(lam, X.T @ y + prior.lam0 @ prior.mu0)
    resid = y - X @ mu
    b = prior.b0 + 0.5 * (resid @ resid + (mu - prior.mu0) @ prior.lam0 @ (mu - prior.mu0))
    np.testing.assert_allclose(lam_n, lam)
    np.testing.assert_allclose(mu_n, mu, rtol=1e-10)
    assert a_n == prior.a0 + 15
    assert b_n == pytest.approx(b, rel=1e-10)


def test_nig_draws_have_the_closed_form_moments():
    rng = np.random.default_rng(1)
    s = np.array([3.0, 12.0, -2.0, 5.0, 9.0])
    mu_n, lam_n, a_n, b_n = nig_posterior(s, 20, PRIOR)
    d = nig_draws(rng, s, 20, PRIOR, 200_000)
    e_s2 = b_n / (a_n - 1)
    sd_s2 = e_s2 / math.sqrt(a_n - 2)
    assert abs(d[:, 2].mean() - e_s2) < 5 * sd_s2 / math.sqrt(d.shape[0])
    cov = e_s2 * np.linalg.inv(lam_n)  # marginal covariance of theta (Student t)
    se = np.sqrt(np.diag(cov) / d.shape[0])
    assert np.all(np.abs(d[:, :2].mean(0) - mu_n) < 5 * se)
    np.testing.assert_allclose(np.cov(d[:, :2].T), cov, rtol=0.03, atol=1e-4 * np.abs(cov).max())


def test_clt_moments_match_monte_carlo():
    """Eqs. (5.2)-(5.3): mean and covariance of t(x, y) against a large simulation."""
    rng = np.random.default_rng(2)
    theta, sigma2, mu, tau2 = np.array([0.8, -0.3]), 0.4, 0.5, 0.7
    m = 400_000
    x = mu + math.sqrt(tau2) * rng.normal(size=m)
    y = theta[0] * x + theta[1] + math.sqrt(sigma2) * rng.normal(size=m)
    t = np.column_stack([x, x * x, y, x * y, y * y])
    mu_t, cov_t = clt_mean_cov(theta, sigma2, gaussian_moments(mu, tau2))
    se_mean = t.std(0) / math.sqrt(m)
    assert np.all(np.abs(t.mean(0) - mu_t) < 5 * se_mean)
    emp = np.cov(t.T)
    np.testing.assert_allclose(emp, cov_t, rtol=0.04, atol=0.02 * np.abs(cov_t).max())


def test_prior_predictive_moments_match_monte_carlo():
    rng = np.random.default_rng(3)
    dp = NIWPrior(0.3, 2.0, 1.5, 20.0)
    m = 400_000
    tau2 = 0.5 * dp.psi / rng.gamma(0.5 * dp.nu, 1.0, size=m)
    mu = dp.m0 + np.sqrt(tau2 / dp.kappa) * rng.normal(size=m)
    x = mu + np.sqrt(tau2) * rng.normal(size=m)
    mc = np.array([np.mean(x**k) for k in range(1, 5)])
    se = np.array([np.std(x**k) for k in range(1, 5)]) / math.sqrt(m)
    assert np.all(np.abs(mc - prior_predictive_moments(dp)) < 5 * se)


def test_niw_posterior_closed_form():
    x = np.array([0.1, -0.4, 0.3, 0.25])
    m_n, k_n, psi_n, nu_n = niw_posterior(x.sum(), x @ x, 4, NIWPrior(0.2, 1.0, 1.0, 50.0))
    assert k_n == 5 and nu_n == 54
    assert m_n == pytest.approx((0.2 + x.sum()) / 5)
    assert psi_n == pytest.approx(1.0 + ((x - x.mean()) ** 2).sum() + 4 / 5 * (x.mean() - 0.2) ** 2)


def test_projection_makes_statistics_valid_and_keeps_valid_ones():
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=10), rng.normal(size=10)
    s = sufficient_statistics(x, y)
    np.testing.assert_allclose(project_statistics(s, 10), s)
    bad = s + np.array([0.0, -30.0, 0.0, 50.0, -40.0])
    p = project_statistics(bad, 10)
    a = np.array([[p[1], p[0], p[3]], [p[0], 10.0, p[2]], [p[3], p[2], p[4]]])
    assert np.linalg.eigvalsh(a).min() > -1e-9
    assert p[0] == bad[0] and p[2] == bad[2]
    np.testing.assert_allclose(project_statistics(p, 10), p)  # idempotent
    assert nig_posterior(p, 10, PRIOR)[3] >= PRIOR.b0 - 1e-12


def _calibration_u(method, n, eps, trials, seed=11, **kw):
    us, naive_us = [], []
    for r in range(trials):
        rng = np.random.default_rng([seed, r])
        sim = simulate_dataset(rng, n, PRIOR, DATA_PRIOR)
        rel = release_statistics(rng, sim["x"], sim["y"], eps, (-1.0, 1.0))
        truth = np.array([sim["theta"][0], sim["theta"][1], sim["sigma2"]])
        draws, _ = run_method(method, rel, n, PRIOR, DATA_PRIOR, (-1.0, 1.0), rng, **kw)
        us.append(quantile_of_truth(draws, truth))
        nd, _ = run_method("naive", rel, n, PRIOR, DATA_PRIOR, (-1.0, 1.0), rng, **kw)
        naive_us.append(quantile_of_truth(nd, truth))
    return np.array(us), np.array(naive_us)


KW = dict(conjugate_draws=500, gibbs_burnin=1000, gibbs_keep=6000, mcmc_burnin=200, mcmc_keep=500)


@pytest.mark.parametrize("method", ["mcmc_ind", "gibbs_ss_update", "gibbs_ss_prior"])
def test_noise_aware_samplers_are_calibrated_and_naive_is_not(method):
    """Cook et al. calibration at n = 10, eps = 1 (300 trials): noise-aware methods stay
    below the KS critical value (alpha = 0.001, three parameters) for every parameter;
    Naive exceeds the alpha = 0.05 value for sigma^2."""
    trials = 300
    u, u_naive = _calibration_u(method, 10, 1.0, trials, **KW)
    crit = ks_critical_value(trials, 0.001)
    for p in range(3):
        assert ks_uniform(u[:, p]) < crit, (method, p, ks_uniform(u[:, p]))
    assert ks_uniform(u_naive[:, 2]) > ks_critical_value(trials, 0.05)


def test_mcmc_ind_matches_exact_posterior_with_negligible_noise_scale_effect():
    """With a tiny noise scale the private posterior concentrates on s = z, so MCMC-Ind and
    Gibbs-SS must agree with the conjugate posterior given s (theta mean and sigma^2 mean)."""
    rng = np.random.default_rng(12)
    sim = simulate_dataset(rng, 10, PRIOR, DATA_PRIOR)
    s = sufficient_statistics(sim["x"], sim["y"])
    exact = nig_draws(rng, s, 10, PRIOR, 100_000)
    chain = run_mcmc_ind(s, 10, 0.002, PRIOR, DATA_PRIOR, rng=rng, burnin=3000, keep=30_000).draws
    gibbs = run_gibbs_ss(s, 10, 0.002, "gibbs_ss_update", PRIOR, rng=rng, burnin=2000, keep=30_000,
                         data_prior=DATA_PRIOR).draws
    sd = exact.std(0)
    for d in (chain, gibbs):
        assert np.all(np.abs(d.mean(0) - exact.mean(0)) < 0.1 * sd)
        assert np.all(np.abs(d.std(0) / sd - 1) < 0.1)


def test_gibbs_ss_noisy_runs_and_is_finite():
    rng = np.random.default_rng(13)
    sim = simulate_dataset(rng, 100, PRIOR, DATA_PRIOR)
    rel = release_statistics(rng, sim["x"], sim["y"], 0.1, (-1.0, 1.0))
    draws, cpu = run_method("gibbs_ss_noisy", rel, 100, PRIOR, DATA_PRIOR, (-1.0, 1.0), rng, **KW)
    assert draws.shape == (6000, 3) and np.all(np.isfinite(draws)) and np.all(draws[:, 2] > 0)


def test_synthetic_settings_union_of_panels():
    cfg = {"synthetic": {"n_values": [10, 100], "eps_vs_n": 0.1, "n_vs_eps": 10, "epsilons": [0.1, 1.0]}}
    assert synthetic_settings(cfg) == [(10, 0.1), (10, 1.0), (100, 0.1)]


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError):
        run_gibbs_ss(np.zeros(5), 10, 1.0, "gibbs_ss_magic", PRIOR, rng=np.random.default_rng(0),
                     burnin=1, keep=1, data_prior=DATA_PRIOR)
    with pytest.raises(ValueError):
        run_gibbs_ss(np.zeros(5), 10, 1.0, "gibbs_ss_noisy", PRIOR, rng=np.random.default_rng(0),
                     burnin=1, keep=1)
    with pytest.raises(ValueError):
        run_mcmc_ind(np.full(5, np.nan), 10, 1.0, PRIOR, DATA_PRIOR, rng=np.random.default_rng(0),
                     burnin=1, keep=1)
