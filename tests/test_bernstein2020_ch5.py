"""bernstein2020 Ch. 5: conjugate pieces, CLT moments, the release record, the methods' one
signature, calibration over replicates (noise-aware methods pass, Naive fails where the thesis
says so), the prior-limit over-dispersion of Gibbs-SS, and the coverage rule of Fig 5.9.
Sampler-vs-exact checks are in tests/exact/bernstein2020_ch5.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpinfer.mechanisms import Laplace
from dpinfer.models import linreg_nig
from dpinfer.models.linreg_nig import (
    NIGPrior,
    NIWPrior,
    Problem,
    Release,
    release_statistics,
    sensitivity_statistics,
    simulate_dataset,
    sufficient_statistics,
)
from dpinfer.models.linreg_nig_multi import (
    SCALAR_ORDER,
    NIWPriorP,
    nig_posterior_p,
    project_statistics_p,
)
from dpinfer.samplers.base import Chain
from dpinfer.samplers.clt_moments import noisy_tensor, predictive_tensor
from dpinfer.samplers.gibbs_ss import run_gibbs_ss_noisy, run_gibbs_ss_update
from dpinfer.samplers.mcmc_ind import run_mcmc_ind
from dpinfer.samplers.registry import SAMPLERS
from dpinfer.studies.bernstein2020_ch5.summarise import covered
from dpinfer.studies.nig_methods import METHODS
from tests.exact.bernstein2020_ch5 import clt_mean_cov, gaussian_moments
from tests.harness import assert_calibrated, assert_miscalibrated, posterior_quantiles

PRIOR = NIGPrior(np.zeros(2), np.diag([0.5 / 19, 0.5 / 19]), 20.0, 0.5)
DATA_PRIOR = NIWPrior(0.0, 1.0, 1.0, 50.0)
BOUNDS = (-1.0, 1.0)


def test_sensitivity_matches_thesis_formula():
    # Delta = w^2 d(d+1)/2 + w^2 d + w^2 with d = 2 (unit feature included), w = 2
    assert sensitivity_statistics(2.0, 2.0) == 24.0
    assert sensitivity_statistics(1.0, 1.0) == 6.0


def test_release_draws_through_the_mechanism_records_in_a_fixed_order():
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=7), rng.normal(size=7)
    rel = release_statistics(np.random.default_rng(9), x, y, 0.5, BOUNDS)
    assert rel.mechanism == Laplace(48.0, 24.0) and rel.mechanism_half == Laplace(96.0, 24.0)
    assert (
        rel.mechanism_moments == Laplace(80.0 / 0.25, 80.0) and rel.n == 7 and rel.bounds == BOUNDS
    )
    again = np.random.default_rng(9)
    s = sufficient_statistics(x, y)
    np.testing.assert_array_equal(rel.s, s)
    np.testing.assert_array_equal(rel.z, s + again.laplace(0.0, 48.0, size=5))
    np.testing.assert_array_equal(rel.z_half, s + again.laplace(0.0, 96.0, size=5))
    sums = np.array([np.sum(x**k) for k in range(1, 5)])
    np.testing.assert_array_equal(rel.moment_sums, sums + again.laplace(0.0, 320.0, size=4))


def test_noisy_moments_are_clipped_to_the_bounds_and_form_a_moment_tensor():
    """Gibbs-SS-Noisy's moments of one covariate: valid sums (of records inside the bounds) are
    kept; sums outside what the bounds allow are clipped and repaired into a moment tensor whose
    CLT covariance is positive semi-definite for any parameters (no projection needed)."""
    rng = np.random.default_rng(4)
    x = rng.uniform(-1.0, 1.0, size=10)
    sums = np.array([np.sum(x**k) for k in (4, 3, 2, 1)])  # moment_monomials(1) order
    t4 = noisy_tensor(sums, 10, 1, BOUNDS)
    np.testing.assert_allclose([t4[0, 0, 0, 0], t4[0, 0, 0, 1], t4[0, 0, 1, 1]], sums[:3] / 10)
    t4 = noisy_tensor(np.array([0.0, 30.0, 0.0, 20.0]), 10, 1, BOUNDS)  # E x = 2: clipped to 1
    assert t4[0, 1, 1, 1] <= 1.0
    for sums in [[0.1, 0.0, 0.5, 3.0]] + list(rng.normal(0.0, 30.0, size=(200, 4))):
        t4 = noisy_tensor(np.asarray(sums), 10, 1, BOUNDS)
        m = [t4[0, 1, 1, 1], t4[0, 0, 1, 1], t4[0, 0, 0, 1], t4[0, 0, 0, 0]]
        for theta0, theta1, sigma2 in rng.normal(size=(5, 3)) ** 2:
            assert np.linalg.eigvalsh(clt_mean_cov([theta0, theta1], sigma2, m)[1]).min() > -1e-9


def test_clt_moments_match_monte_carlo():
    """Eqs. (5.2)-(5.3): mean and covariance of t(x, y) against a large simulation."""
    rng = np.random.default_rng(2)
    theta, sigma2, mu, tau2 = np.array([0.8, -0.3]), 0.4, 0.5, 0.7
    m = 400_000
    x = mu + math.sqrt(tau2) * rng.normal(size=m)
    y = theta[0] * x + theta[1] + math.sqrt(sigma2) * rng.normal(size=m)
    t = np.column_stack([x * x, x, x * y, y, y * y])
    mu_t, cov_t = clt_mean_cov(theta, sigma2, gaussian_moments(mu, tau2))
    se_mean = t.std(0) / math.sqrt(m)
    assert np.all(np.abs(t.mean(0) - mu_t) < 5 * se_mean)
    emp = np.cov(t.T)
    np.testing.assert_allclose(emp, cov_t, rtol=0.04, atol=0.02 * np.abs(cov_t).max())


def test_prior_predictive_moments_match_monte_carlo():
    """Gibbs-SS-Prior's moments E[x^k] of the data prior's predictive at p = 1, closed form."""
    rng = np.random.default_rng(3)
    dp = NIWPrior(0.3, 2.0, 1.5, 20.0)
    t4 = predictive_tensor(NIWPriorP(np.array([dp.m0]), dp.kappa, np.array([[dp.psi]]), dp.nu))
    closed = [t4[0, 1, 1, 1], t4[0, 0, 1, 1], t4[0, 0, 0, 1], t4[0, 0, 0, 0]]
    m = 400_000
    tau2 = 0.5 * dp.psi / rng.gamma(0.5 * dp.nu, 1.0, size=m)
    mu = dp.m0 + np.sqrt(tau2 / dp.kappa) * rng.normal(size=m)
    x = mu + np.sqrt(tau2) * rng.normal(size=m)
    mc = np.array([np.mean(x**k) for k in range(1, 5)])
    se = np.array([np.std(x**k) for k in range(1, 5)]) / math.sqrt(m)
    assert np.all(np.abs(mc - closed) < 5 * se)


def test_projection_makes_statistics_valid_and_keeps_valid_ones():
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=10), rng.normal(size=10)
    s = sufficient_statistics(x, y)[SCALAR_ORDER]  # [Sxx, Sx, Sxy, Sy, Syy]
    np.testing.assert_allclose(project_statistics_p(s, 10, 1), s)
    bad = s + np.array([-30.0, 0.0, 50.0, 0.0, -40.0])
    p = project_statistics_p(bad, 10, 1)
    a = np.array([[p[0], p[1], p[2]], [p[1], 10.0, p[3]], [p[2], p[3], p[4]]])
    assert np.linalg.eigvalsh(a).min() > -1e-9
    assert p[1] == bad[1] and p[3] == bad[3]  # the sums are kept
    np.testing.assert_allclose(project_statistics_p(p, 10, 1), p)  # idempotent
    assert nig_posterior_p(p, 10, 1, PRIOR)[3] >= PRIOR.b0 - 1e-12


def _release(seed: int, n: int, eps: float) -> Release:
    rng = np.random.default_rng(seed)
    sim = simulate_dataset(rng, n, PRIOR, DATA_PRIOR)
    return release_statistics(rng, sim["x"], sim["y"], eps, BOUNDS)


@pytest.mark.parametrize("method", METHODS)
def test_every_method_has_the_model_signature_and_returns_burnin_plus_kept(method):
    assert {m for model, m in SAMPLERS if model == "nig_linreg"} == set(METHODS)
    problem = Problem(_release(13, 100, 0.1), PRIOR, DATA_PRIOR)
    chain = SAMPLERS[("nig_linreg", method)](problem, np.random.default_rng(0), burnin=30, keep=70)
    assert (
        isinstance(chain, Chain) and chain.draws.shape == (100, 3) and chain.kept.shape == (70, 3)
    )
    assert chain.info.iterations == 100 and chain.info.cpu_seconds >= 0
    assert np.all(np.isfinite(chain.draws)) and np.all(chain.draws[:, 2] > 0)


def test_chain_info_reports_acceptance_and_projections():
    rel = _release(14, 10, 1.0)
    mc = run_mcmc_ind(
        linreg_nig.Problem(rel, PRIOR, DATA_PRIOR), np.random.default_rng(1), burnin=20, keep=50
    )
    d = mc.info.detail
    assert 0 < mc.info.acceptance < 1 and 0 < d.acceptance_theta < 1
    assert 0 < d.acceptance_data_prior < 1 and d.sign_flips >= 0
    gs = run_gibbs_ss_noisy(
        linreg_nig.Problem(rel, PRIOR, DATA_PRIOR), np.random.default_rng(1), burnin=20, keep=50
    )
    assert (
        set(gs.info.clipped) == {"cov_projections", "stat_projections"}
        and 0 < gs.info.acceptance < 1
    )
    plain = run_gibbs_ss_noisy(
        linreg_nig.Problem(rel, PRIOR, DATA_PRIOR),
        np.random.default_rng(1),
        burnin=20,
        keep=50,
        collapsed_moves=0,
    )
    assert plain.info.acceptance is None  # Algorithm 7 as printed has no Metropolis step


def _calibration(method: str, trials: int, n: int = 10, eps: float = 1.0, seed: int = 11):
    """Posterior quantiles of the truth over trials (parameters and data from the model)."""

    def trial(r):
        rng = np.random.default_rng([seed, r])
        sim = simulate_dataset(rng, n, PRIOR, DATA_PRIOR)
        release = release_statistics(rng, sim["x"], sim["y"], eps, BOUNDS)
        problem = Problem(release, PRIOR, DATA_PRIOR)
        chain = SAMPLERS[("nig_linreg", method)](problem, rng, **LENGTHS[method])
        return chain.kept, np.array([sim["theta"][0], sim["theta"][1], sim["sigma2"]])

    return posterior_quantiles(trial, trials)


LENGTHS = {
    "naive": dict(burnin=0, keep=500),
    "mcmc_ind": dict(burnin=200, keep=500),
    "gibbs_ss_update": dict(burnin=1000, keep=6000),
    "gibbs_ss_prior": dict(burnin=1000, keep=6000),
}


@pytest.mark.parametrize("method", ["mcmc_ind", "gibbs_ss_update", "gibbs_ss_prior"])
def test_noise_aware_samplers_are_calibrated(method):
    """Cook et al. calibration at n = 10, eps = 1 (300 trials): KS below the alpha = 0.001
    critical value for every parameter."""
    assert_calibrated(_calibration(method, 300), alpha=0.001)


def test_naive_is_miscalibrated_for_sigma2():
    """The same trials: Naive's sigma^2 exceeds the alpha = 0.05 critical value (power)."""
    assert_miscalibrated(_calibration("naive", 300), alpha=0.05, parameters=[2])


def test_prior_limit_gibbs_ss_over_disperses_the_slope_and_mcmc_ind_does_not():
    """Issue 9, finding 2 (docs/deviations.md, 'Gibbs-SS over-disperses the slope at small n'):
    with an uninformative release (eps = 1e-4, n = 10) the exact posterior is the prior, slope
    sd 1. MCMC-Ind gets it; Gibbs-SS-Update's CLT of the x-scatter gives about 1.17. When a fix
    lands, this test must be turned into an exact case."""
    rel = _release(1, 10, 1e-4)
    mc = run_mcmc_ind(
        linreg_nig.Problem(rel, PRIOR, DATA_PRIOR),
        np.random.default_rng(7),
        burnin=2000,
        keep=40000,
    ).kept
    gs = run_gibbs_ss_update(
        linreg_nig.Problem(rel, PRIOR, DATA_PRIOR),
        np.random.default_rng(7),
        burnin=2000,
        keep=40000,
    ).kept
    assert abs(mc[:, 0].std() - 1.0) < 0.05
    assert gs[:, 0].std() > 1.1


def test_pit_coverage_matches_quantile_intervals():
    """Fig 5.9's rule: inside the central interval iff (1 - L)/2 <= PIT <= (1 + L)/2; for many
    draws it agrees with the interval of sample quantiles except at its edges."""
    rng = np.random.default_rng(3)
    pred = rng.normal(size=(50, 4000))
    y = rng.normal(size=50) * 1.3
    pit = (pred < y[:, None]).mean(axis=1)
    for level in (0.5, 0.9):
        lo, hi = np.quantile(pred, [(1 - level) / 2, (1 + level) / 2], axis=1)
        assert np.mean(covered(pit, level) == ((lo <= y) & (y <= hi))) >= 0.98
    assert covered([0.25, 0.75, 0.2499, 0.7501], 0.5).tolist() == [True, True, False, False]


def test_bad_inputs_are_refused():
    rel = _release(15, 10, 1.0)
    bad = Release(
        rel.s,
        rel.n,
        np.full(5, np.nan),
        rel.mechanism,
        rel.z_half,
        rel.mechanism_half,
        rel.moment_sums,
        rel.mechanism_moments,
        rel.bounds,
        rel.exact_moment_sums,
    )
    for method in ("mcmc_ind", "gibbs_ss_prior", "gibbs_ss_update"):
        with pytest.raises(ValueError):
            SAMPLERS[("nig_linreg", method)](
                Problem(bad, PRIOR, DATA_PRIOR), np.random.default_rng(0), burnin=1, keep=1
            )
    for method in METHODS:
        with pytest.raises(ValueError):
            SAMPLERS[("nig_linreg", method)](
                Problem(rel, PRIOR, DATA_PRIOR), np.random.default_rng(0), burnin=-1, keep=1
            )


def test_collapsed_density_is_the_gaussian_marginal_of_the_release():
    """The collapsed move's log density of z (s integrated out given omega^2) differs between two
    parameter values exactly as scipy's N(z; n mu_t, n Sigma_t + diag(omega^2)) does."""
    from scipy.stats import multivariate_normal

    from dpinfer.samplers.gibbs_ss import log_gaussian_release

    n, z, omega2 = (
        50.0,
        np.array([3.0, 20.0, -4.0, 2.0, 30.0]),
        np.array([4.0, 9.0, 1.0, 2.5, 16.0]),
    )
    m = np.concatenate([[1.0], gaussian_moments(0.1, 0.3)])
    work = [np.empty((5, 5)), np.empty((5, 5)), np.empty((5, 5)), np.empty(5)]
    ours, ref = [], []
    for theta0, theta1, sigma2 in ((0.5, -0.2, 0.3), (-1.0, 0.4, 0.05)):
        mu, cov = clt_mean_cov([theta0, theta1], sigma2, m[1:])
        ours.append(log_gaussian_release(n, z, omega2, mu, cov, *work))
        ref.append(multivariate_normal(n * mu, n * cov + np.diag(omega2)).logpdf(z))
    assert ours[0] - ours[1] == pytest.approx(ref[0] - ref[1], rel=1e-9, abs=1e-9)


def test_collapsed_move_mixes_where_algorithm_7_does_not():
    """Issue 9, finding 1: at n = 1000, eps = 0.1 four Gibbs-SS-Update chains of Algorithm 7 as
    printed disagree on the intercept (R-hat well above 1.01); with one collapsed move per
    iteration they agree (R-hat <= 1.01) and the pooled bulk ESS exceeds 400."""
    from dpinfer.diagnostics import bulk_ess, split_rhat

    rel = _release(4, 1000, 0.1)
    stacked = {}
    for moves in (0, 1):
        stacked[moves] = np.stack(
            [
                run_gibbs_ss_update(
                    linreg_nig.Problem(rel, PRIOR, DATA_PRIOR),
                    np.random.default_rng(c),
                    burnin=5000,
                    keep=10000,
                    collapsed_moves=moves,
                ).kept
                for c in range(4)
            ]
        )
    assert split_rhat(stacked[0])[1] > 1.05
    assert np.all(split_rhat(stacked[1]) <= 1.01)
    assert np.all(bulk_ess(stacked[1]) >= 400)


def test_gibbs_ss_noisy_is_only_slightly_miscalibrated_with_valid_moments():
    """Issue 9, finding 3, resolved: once the released moments are cleaned into a valid moment
    sequence (test above), Gibbs-SS-Noisy run as Algorithm 7 is printed (no collapsed move) is
    calibrated within the alpha = 0.001 KS bound at n = 10, eps = 1, with the moments released at
    eps/2 (the thesis) and with the confidential ones (the released code) alike; the 95%
    coverage of the released variant stays below the exact variant's (the thesis's "slight
    miscalibration"). docs/deviations.md, "Gibbs-SS-Noisy is far from calibrated"."""

    def trial_for(moments):
        def trial(r):
            rng = np.random.default_rng([21, r])
            sim = simulate_dataset(rng, 10, PRIOR, DATA_PRIOR)
            release = release_statistics(rng, sim["x"], sim["y"], 1.0, BOUNDS)
            chain = run_gibbs_ss_noisy(
                linreg_nig.Problem(release, PRIOR, DATA_PRIOR),
                rng,
                burnin=500,
                keep=3000,
                moments=moments,
                collapsed_moves=0,
            )
            return chain.kept, np.array([sim["theta"][0], sim["theta"][1], sim["sigma2"]])

        return trial

    u = {m: posterior_quantiles(trial_for(m), 200) for m in ("released", "exact")}
    for m in u:
        assert_calibrated(u[m], alpha=0.001)
    inside = {m: np.mean((u[m][:, :2] > 0.025) & (u[m][:, :2] < 0.975)) for m in u}
    assert inside["released"] < inside["exact"]
    with pytest.raises(ValueError, match="moments"):
        run_gibbs_ss_noisy(
            linreg_nig.Problem(_release(1, 10, 1.0), PRIOR, DATA_PRIOR),
            np.random.default_rng(0),
            burnin=1,
            keep=1,
            moments="other",
        )


def test_gibbs_ss_noisy_is_far_from_calibrated_where_the_statistics_are_informative():
    """Document in error (Sec. 5.3.2: Gibbs-SS-Noisy "suffers slight miscalibration"): at n = 10,
    eps = 10 the statistics' release is informative while the moments' (sensitivity 80 at
    eps/2) is noise, so with the moments released as the method is written the slope's 95%
    intervals cover far less than 95% over 300 trials; with the confidential moments (what the
    released code passed) they do not, on the same data and releases (McNemar's exact test).
    docs/deviations.md, "Gibbs-SS-Noisy is far from calibrated"."""
    from dpinfer.proportions import format_proportion, mcnemar, wilson_interval

    trials = 300

    def covered(moments):
        hits = []
        for r in range(trials):
            rng = np.random.default_rng([31, r])
            sim = simulate_dataset(rng, 10, PRIOR, DATA_PRIOR)
            release = release_statistics(rng, sim["x"], sim["y"], 10.0, BOUNDS)
            kept = run_gibbs_ss_noisy(
                linreg_nig.Problem(release, PRIOR, DATA_PRIOR),
                rng,
                burnin=1000,
                keep=4000,
                moments=moments,
            ).kept[:, 0]
            lo, hi = np.quantile(kept, [0.025, 0.975])
            hits.append(lo <= sim["theta"][0] <= hi)
        return np.array(hits)

    released, exact = covered("released"), covered("exact")
    print(
        "slope 95% coverage at n = 10, eps = 10: released moments "
        f"{format_proportion(released.sum(), trials)}, confidential moments "
        f"{format_proportion(exact.sum(), trials)}"
    )
    assert wilson_interval(released.sum(), trials)[1] < 0.93
    only_released, only_exact, p = mcnemar(released, exact)
    assert only_exact > only_released and p < 1e-3
