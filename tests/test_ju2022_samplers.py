"""Statistical tests of Algorithm 1 (ju2022) beyond its exact cases (tests/exact/ju2022.py):
power of the enumeration check, Proposition 3.1's bound, the regression release's sensitivity,
the full posterior covariance when the noise vanishes, and calibration over replicates."""

import itertools

import numpy as np
import pytest

from dpinfer import diagnostics
from dpinfer.mechanisms import Laplace
from dpinfer.models import gaussian_linreg, naive_bayes
from dpinfer.samplers.data_augmentation import run_linreg, run_loglinear
from tests.conftest import DATA_JU2022
from tests.exact import ju2022 as exact
from tests.harness import (
    ExactCase,
    assert_calibrated,
    assert_miscalibrated,
    check_exact,
    posterior_quantiles,
)


# ----------------------------------------------------------------------------- log-linear, exact
def test_enumerated_target_is_informative():
    """The exact answer differs from the prior mean by many Monte Carlo errors, so matching it
    is a real check of the privacy-aware update."""
    mean, _ = exact.exact_private_posterior(
        exact.RELEASED, 0.5, exact.ALPHA_P, exact.ALPHA, exact.N
    )
    chain = exact.loglinear_chain(0.5, 11)
    prior = exact.ALPHA_P / exact.ALPHA_P.sum()
    assert abs(mean[0] - prior[0]) > 10 * diagnostics.mc_standard_error(chain.kept)[0]


def test_enumeration_catches_a_wrong_scale():
    """The harness has power: the exact posterior at a wrong noise scale is rejected."""
    wrong_mean, wrong_sd = exact.exact_private_posterior(
        exact.RELEASED, 2.0, exact.ALPHA_P, exact.ALPHA, exact.N
    )
    chain = exact.loglinear_chain(0.5, 12)
    with pytest.raises(AssertionError):
        check_exact(ExactCase(chain.kept, wrong_mean, wrong_sd))


def test_chain_contract():
    """Chain of every sweep (burn-in first) with the Info the study reads."""
    chain = run_loglinear(
        naive_bayes.Problem(
            exact.RELEASED, scale=1.0, alpha_p=exact.ALPHA_P, alpha=exact.ALPHA, n_records=exact.N
        ),
        burnin=30,
        keep=70,
        rng=np.random.default_rng(1),
    )
    assert chain.draws.shape == (100, 2) and chain.burnin == 30 and chain.kept.shape == (70, 2)
    acc = chain.info.detail.acceptance
    assert acc.shape == (100,) and chain.info.iterations == 100
    assert chain.info.acceptance == pytest.approx(acc[30:].mean())
    assert chain.info.detail.min_log_alpha <= 0 and chain.info.cpu_seconds >= 0
    with pytest.raises(ValueError):
        run_loglinear(
            naive_bayes.Problem(
                exact.RELEASED,
                scale=1.0,
                alpha_p=exact.ALPHA_P,
                alpha=exact.ALPHA,
                n_records=exact.N,
            ),
            burnin=10,
            keep=0,
            rng=np.random.default_rng(1),
        )


# ----------------------------------------------------------------------------- acceptance bound
@pytest.mark.parametrize("eps", [0.1, 1.0, 10.0])
def test_every_loglinear_acceptance_is_at_least_exp_minus_eps(eps, rng):
    ref = naive_bayes.load_reference(*naive_bayes.reference_files(DATA_JU2022))
    mech = Laplace.calibrated(eps, naive_bayes.sensitivity_l1(ref.shape[0]))
    released = mech.release(rng, ref.counts)
    chain = run_loglinear(
        naive_bayes.Problem(
            released,
            scale=mech.scale,
            alpha_p=ref.alpha_p,
            alpha=ref.alpha,
            n_records=ref.n_records,
        ),
        burnin=0,
        keep=300,
        rng=rng,
    )
    min_log_alpha = chain.info.detail.min_log_alpha
    assert min_log_alpha >= -eps * (1 + 1e-12)
    assert min_log_alpha < -0.5 * eps  # the bound is nearly attained: it is a real check


def _heavy_clamp_chain(sensitivity, eps, rng):
    ref = gaussian_linreg.load_reference(*gaussian_linreg.reference_files(DATA_JU2022))
    clamp = (-0.5, 0.5)  # most values clamped: record contributions reach the corners of [-1, 1]
    mech = Laplace.calibrated(eps, sensitivity)
    released = mech.release(rng, gaussian_linreg.released_statistic(ref.X, ref.y, clamp))
    return run_linreg(
        gaussian_linreg.Problem(
            released,
            scale=mech.scale,
            mean_x=ref.mean_x,
            cov_x=ref.cov_x,
            sigma2=ref.sigma2,
            tau=ref.tau,
            clamp=clamp,
            n_records=len(ref.y),
        ),
        burnin=0,
        keep=400,
        rng=rng,
    )


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
        res = minimize(
            lambda z: -np.abs(_record_contribution(z[:3]) - _record_contribution(z[3:])).sum(),
            start,
            bounds=[(-1, 1)] * 6,
            method="Powell",
        )
        best = max(best, -res.fun)
    assert 9.3 < best < 9.4  # 9.375: far below both the printed 13 and the entrywise 15
    assert gaussian_linreg.sensitivity_l1_printed(2) == 13
    assert gaussian_linreg.sensitivity_l1_entrywise(2) == 15
    assert gaussian_linreg.stat_dim(2) == 9
    # the order of _record_contribution, of released_statistic and of the kernel's statistics
    assert gaussian_linreg.stat_labels(2) == [
        "xy[0]",
        "xy[1]",
        "xy[2]",
        "yy",
        "xx[0,1]",
        "xx[0,2]",
        "xx[1,1]",
        "xx[1,2]",
        "xx[2,2]",
    ]
    z = np.array([0.3, -0.7, 0.5])
    X, y = np.array([[1.0, *(10 * z[:2])]]), np.array([10 * z[2]])
    assert np.allclose(
        gaussian_linreg.released_statistic(X, y, (-10.0, 10.0)), _record_contribution(z)
    )


def test_regression_acceptance_bound_holds_with_printed_sensitivity(rng):
    eps = 1.0
    chain = _heavy_clamp_chain(13.0, eps, rng)
    assert -eps * (1 + 1e-12) <= chain.info.detail.min_log_alpha < -0.2 * eps


# ----------------------------------------------------------------------------- regression
def test_regression_covariance_matches_conjugate_posterior_when_noise_vanishes():
    """The exact case checks means and sds; here the full covariance, and that the chain moves."""
    chain, _, cov = exact.linreg_vanishing_noise()
    assert np.allclose(np.cov(chain.kept.T), cov, rtol=0.1, atol=0.02)
    assert chain.info.acceptance > 0.001  # the record is resampled


def _sbc_quantiles(noise_factor: float, noncentred_moves: int = 0) -> np.ndarray:
    """Simulation-based calibration over 300 replicates: posterior quantiles of the true beta.
    The sampler is told the noise scale times ``noise_factor``; ``noncentred_moves`` per sweep
    (issue 33's added move)."""
    rng = np.random.default_rng(2022)
    n, mean_x, cov_x, sigma2, tau, clamp = 20, np.array([0.5]), np.eye(1), 0.5, 1.0, (-1.5, 1.5)
    mech = Laplace(
        scale=2.0
    )  # noise comparable to the sampling error of the statistics: the release matters

    def trial(_):
        beta = rng.normal(0.0, tau, 2)
        X, y = gaussian_linreg.simulate_data(rng, beta, mean_x, cov_x, sigma2, n)
        released = mech.release(rng, gaussian_linreg.released_statistic(X, y, clamp))
        chain = run_linreg(
            gaussian_linreg.Problem(
                released,
                scale=mech.scale * noise_factor,
                mean_x=mean_x,
                cov_x=cov_x,
                sigma2=sigma2,
                tau=tau,
                clamp=clamp,
                n_records=n,
            ),
            burnin=500,
            keep=2500,
            rng=rng,
            noncentred_moves=noncentred_moves,
        )
        return chain.kept[::5], beta

    return posterior_quantiles(trial, 300)


@pytest.mark.parametrize("noncentred_moves", [0, 3])
def test_regression_sampler_is_calibrated(noncentred_moves):
    """The posterior quantile of the true beta is U(0, 1) for an exact sampler (KS, alpha = 0.001).
    Some values are clamped, so the clamp inside the likelihood is exercised too. With and
    without the non-centred moves of beta."""
    assert_calibrated(_sbc_quantiles(1.0, noncentred_moves), alpha=0.001)


@pytest.mark.parametrize("noncentred_moves", [0, 3])
def test_calibration_check_has_power(noncentred_moves):
    """A sampler that ignores most of the noise (scale x 0.3) is overconfident and fails."""
    assert_miscalibrated(_sbc_quantiles(0.3, noncentred_moves), alpha=0.001)


def _private_posterior_is(released, scale, n, mean_x, sigma2, tau, clamp, draws, rng):
    """Mean and sd of beta | released for one covariate (p = 1) by importance sampling from the
    joint prior: beta ~ N(0, tau^2 I), x ~ N(mean_x, 1), y from the model, weights the Laplace
    density of the released statistics of the clamped records; and the weights' ESS."""
    beta = rng.normal(0.0, tau, (draws, 2))
    x = mean_x + rng.standard_normal((draws, n))
    y = beta[:, :1] + beta[:, 1:] * x + np.sqrt(sigma2) * rng.standard_normal((draws, n))
    lo, hi = clamp

    def rescale(v):
        return 2.0 * (np.clip(v, lo, hi) - lo) / (hi - lo) - 1.0

    xt, yt = rescale(x), rescale(y)
    stats = np.stack(
        [yt.sum(1), (xt * yt).sum(1), (yt * yt).sum(1), xt.sum(1), (xt * xt).sum(1)], axis=1
    )
    logw = -np.abs(released - stats).sum(axis=1) / scale
    w = np.exp(logw - logw.max())
    w /= w.sum()
    mean = w @ beta
    return mean, np.sqrt(w @ (beta - mean) ** 2), 1.0 / np.sum(w**2)


@pytest.mark.parametrize("noncentred_moves", [0, 5])
def test_regression_sampler_matches_the_exact_private_posterior(noncentred_moves):
    """n = 3 records, one covariate, Laplace scale 1 on statistics in [-3, 3], y partly clamped:
    the chain's means and sds of beta match importance sampling from the joint prior (slack 3
    sd of its own error), with and without the non-centred moves. The target is a real test:
    it lies far from both the prior and the non-private posterior of the confidential data."""
    rng = np.random.default_rng(33)
    n, mean_x, sigma2, tau, clamp, scale = 3, 0.5, 0.5, 1.0, (-1.5, 1.5), 1.0
    X, y = gaussian_linreg.simulate_data(
        rng, np.array([1.0, 1.5]), np.array([mean_x]), np.eye(1), sigma2, n
    )
    released = Laplace(scale=scale).release(rng, gaussian_linreg.released_statistic(X, y, clamp))
    mean, sd, ess = _private_posterior_is(
        released, scale, n, mean_x, sigma2, tau, clamp, 1_000_000, np.random.default_rng(5)
    )
    chain = run_linreg(
        gaussian_linreg.Problem(
            released,
            scale=scale,
            mean_x=np.array([mean_x]),
            cov_x=np.eye(1),
            sigma2=sigma2,
            tau=tau,
            clamp=clamp,
            n_records=n,
        ),
        burnin=2000,
        keep=40000,
        rng=np.random.default_rng(8),
        noncentred_moves=noncentred_moves,
    )
    slack = 3.0 * sd / np.sqrt(ess)
    check_exact(ExactCase(chain.kept, mean, sd, mean_slack=slack, sd_slack=slack))
    np_mean, np_cov = gaussian_linreg.conjugate_posterior(X, y, sigma2, tau)
    assert np.max(np.abs(mean - np_mean) / sd) > 0.5  # not the non-private posterior
    assert np.max(sd / tau) < 0.9  # nor the prior
    if noncentred_moves:
        assert 0.1 < chain.info.detail.noncentred_acceptance < 0.6
