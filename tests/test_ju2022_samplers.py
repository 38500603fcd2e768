"""Statistical tests of Algorithm 1 (ju2022): exact enumeration, conjugacy, calibration, bounds."""

import itertools

import numpy as np
import pytest
from scipy.special import gammaln

from dpinfer import diagnostics
from dpinfer.models import gaussian_linreg, naive_bayes
from dpinfer.samplers.data_augmentation import run_linreg, run_loglinear
from tests.conftest import DATA_JU2022
from tests.harness import assert_mean_matches


# ----------------------------------------------------------------------------- log-linear, exact
def _log_dirmult_sequence(counts, alpha):
    """log P(one particular sequence with these counts) under a Dirichlet-categorical model."""
    counts, alpha = np.asarray(counts, float), np.asarray(alpha, float)
    return gammaln(alpha.sum()) - gammaln(alpha.sum() + counts.sum()) + np.sum(gammaln(alpha + counts) - gammaln(alpha))


def exact_private_posterior_means(released, scale, alpha_p, alpha, n_records):
    """E[p | s_dp] and E[pi | s_dp] by enumerating every data set of n_records records.

    p(x | s_dp) is proportional to prod_cells Laplace(m - n(x)) times the Dirichlet-multinomial
    marginal of the sequence x; given x the posterior means are conjugate.
    """
    K, J, I = released.shape
    values = list(itertools.product(range(I), *[range(J)] * K))  # a record: (class, answer_1..K)
    logw, mean_p, mean_pi = [], [], []
    for data in itertools.product(values, repeat=n_records):
        t = np.zeros((K, J, I))
        for rec in data:
            for k in range(K):
                t[k, rec[1 + k], rec[0]] += 1
        ncls = t[0].sum(axis=0)
        lw = -np.abs(released - t).sum() / scale + _log_dirmult_sequence(ncls, alpha_p)
        for k in range(K):
            for i in range(I):
                lw += _log_dirmult_sequence(t[k, :, i], alpha[k, :, i])
        logw.append(lw)
        mean_p.append((ncls + alpha_p) / (n_records + alpha_p.sum()))
        post = t + alpha
        mean_pi.append(post / post.sum(axis=1, keepdims=True))
    w = np.exp(np.asarray(logw) - max(logw))
    w /= w.sum()
    return np.tensordot(w, np.asarray(mean_p), 1), np.tensordot(w, np.asarray(mean_pi), 1)


@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_loglinear_sampler_matches_enumerated_private_posterior(scale):
    K, J, I, N = 2, 2, 2, 3
    alpha_p = np.array([1.5, 2.5])
    alpha = np.full((K, J, I), 2.0)
    alpha[0, 0, 1] = 1.0
    # noisy tables that no confidential data set matches exactly
    released = np.array([[[2.3, -0.4], [0.2, 1.1]], [[0.7, 0.9], [1.6, -0.2]]])
    exact_p, exact_pi = exact_private_posterior_means(released, scale, alpha_p, alpha, N)
    chain = run_loglinear(released, scale=scale, alpha_p=alpha_p, alpha=alpha, n_records=N,
                          iterations=120_000, burnin=2_000, rng=np.random.default_rng(11))
    assert_mean_matches(chain.draws, exact_p)
    # the exact answer is informative: it differs from the prior mean by many standard errors
    prior = alpha_p / alpha_p.sum()
    assert abs(exact_p[0] - prior[0]) > 10 * diagnostics.mc_standard_error(chain.draws)[0]


def test_enumeration_catches_a_wrong_scale():
    """The harness has power: the exact posterior at a wrong noise scale is rejected."""
    K, J, I, N = 2, 2, 2, 3
    alpha_p, alpha = np.array([1.5, 2.5]), np.full((K, J, I), 2.0)
    released = np.array([[[2.3, -0.4], [0.2, 1.1]], [[0.7, 0.9], [1.6, -0.2]]])
    wrong_p, _ = exact_private_posterior_means(released, 2.0, alpha_p, alpha, N)
    chain = run_loglinear(released, scale=0.5, alpha_p=alpha_p, alpha=alpha, n_records=N,
                          iterations=120_000, burnin=2_000, rng=np.random.default_rng(12))
    with pytest.raises(AssertionError):
        assert_mean_matches(chain.draws, wrong_p)


# ----------------------------------------------------------------------------- acceptance bound
@pytest.mark.parametrize("eps", [0.1, 1.0, 10.0])
def test_every_loglinear_acceptance_is_at_least_exp_minus_eps(eps, rng):
    ref = naive_bayes.load_reference(DATA_JU2022)
    K = ref.shape[0]
    scale = naive_bayes.sensitivity_l1(K) / eps
    released = ref.counts + rng.laplace(0.0, scale, ref.counts.shape)
    chain = run_loglinear(released, scale=scale, alpha_p=ref.alpha_p, alpha=ref.alpha, n_records=ref.n_records,
                          iterations=300, burnin=0, rng=rng)
    assert chain.info["min_log_alpha"] >= -eps * (1 + 1e-12)
    assert chain.info["min_log_alpha"] < -0.5 * eps  # the bound is nearly attained: it is a real check


def _heavy_clamp_chain(sensitivity, eps, rng):
    ref = gaussian_linreg.load_reference(DATA_JU2022)
    clamp = (-0.5, 0.5)  # most values clamped: record contributions reach the corners of [-1, 1]
    s = gaussian_linreg.released_statistic(ref.X, ref.y, clamp)
    scale = sensitivity / eps
    released = s + rng.laplace(0.0, scale, s.shape)
    return run_linreg(released, scale=scale, mean_x=ref.mean_x, cov_x=ref.cov_x, sigma2=ref.sigma2, tau=ref.tau,
                      clamp=clamp, n_records=len(ref.y), iterations=400, burnin=0, rng=rng)


def _record_contribution(z):
    """t(x, y) for p = 2 of one record already in [-1, 1]: z = (x1, x2, y)."""
    x1, x2, y = z
    return np.array([y, x1 * y, x2 * y, y * y, x1, x2, x1 * x1, x1 * x2, x2 * x2])


def test_exact_replace_one_sensitivity_is_below_the_printed_13():
    """sup over record pairs in [-1, 1]^3 of the L1 change of t: grid search, then local ascent."""
    from scipy.optimize import minimize

    g = np.linspace(-1.0, 1.0, 13)
    pts = np.array(list(itertools.product(g, g, g)))
    T = np.array([_record_contribution(z) for z in pts])
    D = np.abs(T[:, None, :] - T[None, :, :]).sum(axis=2)
    i, j = np.unravel_index(D.argmax(), D.shape)
    best = D.max()
    for start in (np.concatenate([pts[i], pts[j]]), np.concatenate([pts[j], pts[i]])):
        res = minimize(lambda z: -np.abs(_record_contribution(z[:3]) - _record_contribution(z[3:])).sum(),
                       start, bounds=[(-1, 1)] * 6, method="Powell")
        best = max(best, -res.fun)
    assert 9.3 < best < 9.4  # 9.375: far below both the printed 13 and the entrywise 15
    assert gaussian_linreg.sensitivity_l1_printed(2) == 13
    assert gaussian_linreg.sensitivity_l1_entrywise(2) == 15
    assert gaussian_linreg.stat_dim(2) == 9


def test_regression_acceptance_bound_holds_with_printed_sensitivity(rng):
    eps = 1.0
    chain = _heavy_clamp_chain(13.0, eps, rng)
    assert -eps * (1 + 1e-12) <= chain.info["min_log_alpha"] < -0.2 * eps


# ----------------------------------------------------------------------------- regression
def test_regression_matches_conjugate_posterior_when_noise_vanishes():
    """Nothing clamped and a tiny noise scale: beta | s_dp is the conjugate posterior given (X, y).

    With n = 1 the latent record is pinned by the nearly exact statistics, so the posterior of
    beta is N(mu_n, Sigma_n) from supplement S-5, up to an O(noise) shift (abs_slack).
    """
    rng = np.random.default_rng(5)
    beta, mean_x, cov_x, sigma2, tau = np.array([0.5, -1.0]), np.array([0.3]), np.eye(1), 0.5, 2.0
    X = np.array([[1.0, 0.8]])
    y = np.array([-0.2])
    clamp = (-50.0, 50.0)
    s = gaussian_linreg.released_statistic(X, y, clamp)
    scale = 0.002  # in rescaled units: 0.1 in the data's units
    released = s + rng.laplace(0.0, scale, s.shape)
    chain = run_linreg(released, scale=scale, mean_x=mean_x, cov_x=cov_x, sigma2=sigma2, tau=tau, clamp=clamp,
                       n_records=1, iterations=60_000, burnin=5_000, rng=rng)
    mu, cov = gaussian_linreg.conjugate_posterior(X, y, sigma2, tau)
    assert_mean_matches(chain.draws, mu, abs_slack=0.05)
    assert np.allclose(np.cov(chain.draws.T), cov, rtol=0.1, atol=0.02)
    assert chain.info["acceptance"].mean() > 0.001  # the chain moves: the record is resampled
    del beta


def _sbc_ks(noise_factor: float) -> list[float]:
    """Simulation-based calibration over 300 replicates: KS distance of the posterior quantiles
    of the true beta from U(0, 1). The sampler is told the noise scale times ``noise_factor``."""
    rng = np.random.default_rng(2022)
    n, mean_x, cov_x, sigma2, tau, clamp = 20, np.array([0.5]), np.eye(1), 0.5, 1.0, (-1.5, 1.5)
    scale = 2.0  # noise comparable to the sampling error of the statistics: the release matters
    q = []
    for _ in range(300):
        beta = rng.normal(0.0, tau, 2)
        X, y = gaussian_linreg.simulate_data(rng, beta, mean_x, cov_x, sigma2, n)
        released = gaussian_linreg.released_statistic(X, y, clamp) + rng.laplace(0.0, scale, 5)
        chain = run_linreg(released, scale=scale * noise_factor, mean_x=mean_x, cov_x=cov_x, sigma2=sigma2,
                           tau=tau, clamp=clamp, n_records=n, iterations=3000, burnin=500, rng=rng)
        q.append(diagnostics.quantile_of_truth(chain.draws[::5], beta))
    q = np.asarray(q)
    return [diagnostics.ks_uniform(q[:, j]) for j in range(2)]


def test_regression_sampler_is_calibrated():
    """The posterior quantile of the true beta is U(0, 1) for an exact sampler (KS, alpha = 0.001).
    Some values are clamped, so the clamp inside the likelihood is exercised too."""
    crit = diagnostics.ks_critical_value(300, 0.001)
    assert max(_sbc_ks(1.0)) < crit


def test_calibration_check_has_power():
    """A sampler that ignores most of the noise (scale x 0.3) is overconfident and fails."""
    crit = diagnostics.ks_critical_value(300, 0.001)
    assert max(_sbc_ks(0.3)) > crit
