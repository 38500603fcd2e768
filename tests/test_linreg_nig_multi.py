"""The p-covariate NIG regression model (dpinfer.models.linreg_nig_multi): at p = 1 every piece
equals chapter 5's one-covariate model (linreg_nig); for p > 1 the statistics, the release,
the conjugate updates, the CLT moments and the data prior's moments against simulation, with
tolerances from the Monte Carlo error."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpinfer.models import linreg_nig as one
from dpinfer.models import linreg_nig_multi as multi
from dpinfer.samplers import clt_moments as clt

PRIOR_1 = one.NIGPrior(np.zeros(2), np.diag([0.5 / 19, 0.5 / 19]), 20.0, 0.5)
DATA_PRIOR_1 = one.NIWPrior(0.3, 1.5, 1.0, 50.0)
# chapter 5's order [sx, sxx, sy, sxy, syy] of the p = 1 statistics [sxx, sx, sxy, sy, syy]
TO_CH5 = [1, 0, 3, 2, 4]


def _data(seed: int, n: int, p: int):
    rng = np.random.default_rng(seed)
    X = rng.normal(0.1, 0.5, size=(n, p))
    y = X @ np.linspace(-0.5, 0.5, p) + 0.2 + 0.3 * rng.normal(size=n)
    return X, y


def test_statistics_are_the_distinct_entries_of_the_gram_matrix():
    X, y = _data(1, 30, 3)
    s = multi.sufficient_statistics_p(X, y)
    a = np.column_stack([X, np.ones(30), y])
    g = a.T @ a
    assert s.shape == (multi.n_stats(3),) == (14,)
    index = multi.pair_index(3)
    for i in range(5):
        for j in range(5):
            assert (i, j) == (3, 3) or s[index[i, j]] == pytest.approx(g[i, j])
    rebuilt = np.empty((5, 5))
    multi.gram_into(s, 30.0, index, rebuilt)
    np.testing.assert_allclose(rebuilt, g)


def test_p1_statistics_and_sensitivity_are_chapter_5s():
    X, y = _data(2, 20, 1)
    s = multi.sufficient_statistics_p(X, y)
    s1 = one.sufficient_statistics(X[:, 0], y)
    np.testing.assert_allclose(s[TO_CH5], s1)
    assert multi.sensitivity_p(1) == one.sensitivity_statistics(2.0, 2.0) == 24.0
    # thesis Delta_s with d = p + 1 = 4 at p = 3, width 2: 4 * 10 + 4 * 4 + 4
    assert multi.sensitivity_p(3) == 60.0


def test_nig_posterior_is_the_least_squares_form_in_p_dimensions():
    X, y = _data(3, 40, 3)
    prior = multi.nig_prior_p(3, 0.1, 0.5, 3.0, 0.7)
    mu_n, lam_n, a_n, b_n = multi.nig_posterior_p(multi.sufficient_statistics_p(X, y), 40, 3, prior)
    Z = np.column_stack([X, np.ones(40)])
    lam = Z.T @ Z + prior.lam0
    mu = np.linalg.solve(lam, Z.T @ y + prior.lam0 @ prior.mu0)
    np.testing.assert_allclose(lam_n, lam)
    np.testing.assert_allclose(mu_n, mu)
    assert a_n == 3.0 + 20.0
    assert b_n == pytest.approx(
        0.7 + 0.5 * (y @ y + prior.mu0 @ prior.lam0 @ prior.mu0 - mu @ lam @ mu)
    )


def test_nig_draws_have_the_closed_form_moments():
    X, y = _data(4, 25, 2)
    prior = multi.nig_prior_p(2, 0.0, 0.2, 4.0, 1.0)
    s = multi.sufficient_statistics_p(X, y)
    mu_n, lam_n, a_n, b_n = multi.nig_posterior_p(s, 25, 2, prior)
    d = multi.nig_draws_p(np.random.default_rng(5), s, 25, 2, prior, 200_000)
    e_s2 = b_n / (a_n - 1)
    assert abs(d[:, 3].mean() - e_s2) < 5 * e_s2 / math.sqrt(a_n - 2) / math.sqrt(len(d))
    cov = e_s2 * np.linalg.inv(lam_n)  # theta's marginal covariance (multivariate t)
    assert np.all(np.abs(d[:, :3].mean(0) - mu_n) < 5 * np.sqrt(np.diag(cov) / len(d)))
    np.testing.assert_allclose(np.cov(d[:, :3].T), cov, rtol=0.03, atol=1e-3 * np.abs(cov).max())


@pytest.mark.parametrize("p", [1, 2])
def test_clt_moments_match_monte_carlo(p):
    """Mean and covariance of one record's statistics t(a) against a large simulation."""
    rng = np.random.default_rng(6 + p)
    mean = np.linspace(0.2, -0.1, p)
    cov = 0.2 * np.eye(p) + 0.05
    theta, sigma2 = np.linspace(0.5, -0.3, p + 1), 0.1
    t4 = np.empty((p + 1,) * 4)
    clt.gaussian_tensor_into(mean, cov, t4)
    mu_t, cov_t = clt.clt_moments_p(theta, sigma2, t4)
    m = 400_000
    X = rng.multivariate_normal(mean, cov, m)
    y = X @ theta[:p] + theta[p] + math.sqrt(sigma2) * rng.normal(size=m)
    a = np.column_stack([X, np.ones(m), y])
    ij = multi.stat_pairs(p)
    t = a[:, ij[:, 0]] * a[:, ij[:, 1]]
    assert np.all(np.abs(t.mean(0) - mu_t) < 5 * t.std(0) / math.sqrt(m))
    np.testing.assert_allclose(np.cov(t.T), cov_t, rtol=0.05, atol=0.02 * np.abs(cov_t).max())


def test_predictive_tensor_matches_simulation_at_p2():
    """(p = 1: tests/test_bernstein2020_ch5.py.)"""
    dp = multi.NIWPriorP(np.array([0.1, -0.2]), 2.0, np.array([[1.0, 0.3], [0.3, 0.5]]), 9.0)
    t4 = clt.predictive_tensor(dp)
    m = 400_000
    rng = np.random.default_rng(8)
    sig = stats.invwishart(df=dp.nu, scale=dp.psi).rvs(m, random_state=rng)
    chol = np.linalg.cholesky(sig)
    mu = dp.m0 + np.einsum("nij,nj->ni", chol, rng.normal(size=(m, 2))) / math.sqrt(dp.kappa)
    b = np.column_stack([mu + np.einsum("nij,nj->ni", chol, rng.normal(size=(m, 2))), np.ones(m)])
    for idx in [(0, 0, 2, 2), (0, 1, 2, 2), (0, 0, 0, 2), (0, 0, 1, 1), (1, 1, 1, 1), (0, 0, 0, 1)]:
        v = b[:, idx[0]] * b[:, idx[1]] * b[:, idx[2]] * b[:, idx[3]]
        assert abs(v.mean() - t4[idx]) < 5 * v.std() / math.sqrt(m), idx


def test_niw_draws_have_the_inverse_wishart_moments():
    dp = multi.NIWPriorP(np.array([0.1, -0.2]), 2.0, np.array([[1.0, 0.3], [0.3, 0.5]]), 9.0)
    rng = np.random.default_rng(9)
    X = rng.normal(size=(12, 2))
    a = np.column_stack([X, np.ones(12)])
    g = a.T @ a
    m = 100_000
    mus, sigs = np.empty((m, 2)), np.empty((m, 2, 2))
    work = np.empty((4, 2, 2))
    for k in range(m):
        multi.niw_draw_p(rng, g, 12.0, dp, mus[k], sigs[k], work)
    kn, nun = dp.kappa + 12, dp.nu + 12
    xbar = X.mean(0)
    d = xbar - dp.m0
    psi_n = dp.psi + (X - xbar).T @ (X - xbar) + dp.kappa * 12 / kn * np.outer(d, d)
    e_sig = psi_n / (nun - 3)
    var = stats.invwishart(df=nun, scale=psi_n).var()
    assert np.all(np.abs(sigs.mean(0) - e_sig) < 5 * np.sqrt(var / m))
    m_n = (dp.kappa * dp.m0 + X.sum(0)) / kn
    assert np.all(np.abs(mus.mean(0) - m_n) < 5 * np.sqrt(np.diag(e_sig) / kn / m))
    np.testing.assert_allclose(np.cov(mus.T), e_sig / kn, rtol=0.03)


def test_projection_makes_p3_statistics_valid():
    """(p = 1: tests/test_bernstein2020_ch5.py.)"""
    X, y = _data(11, 10, 3)
    s = multi.sufficient_statistics_p(X, y)
    np.testing.assert_allclose(multi.project_statistics_p(s, 10, 3), s)  # valid: kept
    bad = s + np.random.default_rng(12).normal(0, 20, size=s.size)
    fixed = multi.project_statistics_p(bad, 10, 3)
    g = np.empty((5, 5))
    multi.gram_into(fixed, 10.0, multi.pair_index(3), g)
    assert np.linalg.eigvalsh(g).min() > -1e-8
    sums = multi.pair_index(3)[:, 3]  # sum x_j and sum y: kept
    np.testing.assert_allclose(fixed[sums[sums >= 0]], bad[sums[sums >= 0]])
    np.testing.assert_allclose(multi.project_statistics_p(fixed, 10, 3), fixed, atol=1e-9)


def test_release_clamps_to_unit_bounds_and_draws_in_a_fixed_order():
    X, y = _data(13, 50, 2)
    X[0, 0] = 7.0  # outside [-1, 1]
    rel = multi.release_statistics_p(np.random.default_rng(14), X, y, 0.5)
    assert rel.mechanism.scale == multi.sensitivity_p(2) / 0.5 and rel.clamped
    assert rel.mechanism_half.scale == 2 * rel.mechanism.scale
    np.testing.assert_allclose(rel.s, multi.sufficient_statistics_p(X, y))
    rng = np.random.default_rng(14)
    clamped = multi.sufficient_statistics_p(np.clip(X, -1, 1), np.clip(y, -1, 1))
    np.testing.assert_allclose(rel.z, clamped + rng.laplace(0, rel.mechanism.scale, clamped.size))
    np.testing.assert_allclose(
        rel.z_half, clamped + rng.laplace(0, rel.mechanism_half.scale, clamped.size)
    )


def test_bad_priors_and_targets_are_refused():
    with pytest.raises(ValueError, match="nu > p \\+ 3"):
        multi.NIWPriorP.isotropic(3, 0.0, 1.0, 1.0, 6.0)
    with pytest.raises(ValueError, match="positive"):
        multi.nig_prior_p(2, 0.0, 0.0, 1.0, 1.0)
    prior, dp = multi.nig_prior_p(2, 0, 1, 2, 1), multi.NIWPriorP.isotropic(2, 0, 1, 1, 10)
    with pytest.raises(ValueError, match="9 finite"):
        multi.chain_target_p(np.zeros(5), 10, 2, 1.0, prior, dp)
    with pytest.raises(ValueError, match="p \\+ 1 = 4"):
        multi.chain_target_p(np.zeros(14), 10, 3, 1.0, prior, dp)


def test_moment_release_is_chapter_5s_at_p1():
    X, y = _data(15, 40, 1)
    assert multi.sensitivity_moments_p(1) == 80.0  # chapter 5's 5 w^4 with w = 2
    sums = multi.moment_sums_p(X)
    # monomials x^4, x^3, x^2, x (the constant's index 1 fills the rest)
    np.testing.assert_allclose(sums, [np.sum(X[:, 0] ** k) for k in (4, 3, 2, 1)])
    assert multi.moment_monomials(3).shape == (34, 4)  # C(7, 4) - 1
    rel = multi.release_statistics_p(np.random.default_rng(16), X, y, 2.0)
    assert rel.mechanism_moments.scale == 80.0 / 1.0


def test_noisy_tensor_keeps_valid_moments_and_repairs_invalid_ones():
    X, _ = _data(17, 50, 2)
    b = np.column_stack([X, np.ones(50)])
    emp = np.einsum("ni,nj,nk,nl->ijkl", b, b, b, b) / 50
    np.testing.assert_allclose(clt.noisy_tensor(multi.moment_sums_p(X), 50, 2), emp, atol=1e-12)
    # noise that breaks the moment matrix: the repair is a mixture with the Gaussian of the same
    # mean and covariance, positive definite, symmetric, and the CLT covariance is a covariance
    sums = multi.moment_sums_p(X) + np.random.default_rng(18).normal(0, 3.0, 14)
    fixed = clt.noisy_tensor(sums, 50, 2)
    r = 3
    pairs = [(i, j) for i in range(r) for j in range(i, r)]
    moment = np.array([[fixed[i, j, k, l] for k, l in pairs] for i, j in pairs])
    assert np.linalg.eigvalsh(moment)[0] >= 1e-6 * 0.999
    np.testing.assert_allclose(fixed, fixed.transpose(1, 0, 2, 3))
    np.testing.assert_allclose(fixed, fixed.transpose(0, 2, 1, 3))
    _, cov_t = clt.clt_moments_p(np.array([0.4, -0.2, 0.1]), 0.05, fixed)
    assert np.linalg.eigvalsh(cov_t)[0] > 0
    assert not np.allclose(fixed, emp, atol=1e-3)  # the noise is not undone
