"""MCMC-Ind for p covariates (:mod:`dpinfer.samplers.mcmc_ind_multi`) against the exact private
posterior of its target, p(theta, sigma^2 | z), at n = 3 records: self-normalised importance
sampling (IS) from the joint prior of every parameter and record, with weights
exp(-|z - s|_1 / b) (s of the clamped records on a clamped release), as
tests/exact/bernstein2020_ch5.py does for the scalar sampler; the slack is 3 sd / sqrt(IS ESS).

Cases: p = 1 with the thesis's priors (unclamped), p = 2 and p = 5 with wider priors (the
slopes and Sigma_x matter; clamped releases, the clamping moves the posterior). The harness
rejects a wrong target (the IS posterior at 4 times the noise scale, and the prior); at p = 1
the scalar sampler :func:`dpinfer.samplers.mcmc_ind.run_mcmc_ind` on the same (reordered)
release matches the same target and this sampler's chain. The chains store (theta, sigma^2)
only, which a small error in the NIW density of the (mu_x, Sigma_x) move barely moves, so that
density (log-Cholesky Jacobian included) is checked directly against scipy's.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpinfer import diagnostics
from dpinfer.models import linreg_nig, linreg_nig_multi
from dpinfer.models.linreg_nig import NIGPrior, NIWPrior, log_niw, release_statistics
from dpinfer.models.linreg_nig_multi import (
    NIWPriorP,
    ReleaseP,
    log_niw_chol,
    simulate_dataset_p,
    sufficient_statistics_p,
)
from dpinfer.samplers.mcmc_ind import run_mcmc_ind
from dpinfer.samplers.mcmc_ind_multi import run_mcmc_ind_p
from tests.exact.linreg_nig_multi import (
    CHAINS,
    IS_CASES,
    IS_DRAWS,
    N_IS,
    is_exact_case,
    mcmc_case,
    priors,
    private_posterior_moments_p,
)
from tests.harness import ExactCase, check_exact

SCALAR_ORDER = [1, 0, 3, 2, 4]  # scalar [Sx, Sxx, Sy, Sxy, Syy] -> stat_pairs(1) order


@pytest.mark.parametrize("name", list(IS_CASES))
def test_each_case_is_informative_and_its_chain_mixes(name):
    """The exact-target check is the harness's (tests/exact): here, that its target is
    trustworthy and not the prior, and the chain's record."""
    release, _, (mean, sd, ess, prior_mean, prior_sd), chain = mcmc_case(name)
    assert ess > 2000  # the target is trustworthy
    assert np.max(np.abs(mean - prior_mean) / sd) > 0.3  # and not the prior
    assert chain.kept.shape == (CHAINS[name][1], release.p + 2)
    info = chain.info
    assert 0.05 < info.acceptance < 1.0
    assert 0.1 < info.detail.acceptance_theta < 0.6
    assert 0.1 < info.detail.acceptance_data_prior < 0.6


def test_the_clamping_moves_the_p2_posterior():
    """The clamped case is one where modelling the clamping matters."""
    release, (prior, data_prior), (mean, sd, *_), _ = mcmc_case("p2_clamped")
    unclamped = private_posterior_moments_p(
        release.z, release.mechanism.scale, False, prior, data_prior, IS_DRAWS // 2, seed=6
    )[0]
    assert np.max(np.abs(unclamped - mean) / sd) > 0.2


def test_the_harness_rejects_a_wrong_target():
    """Power: the p = 2 chain fails against the posterior at 4 times the noise scale and against
    the prior, with the same tolerances."""
    release, (prior, data_prior), (*_, prior_mean, prior_sd), chain = mcmc_case("p2_clamped")
    wrong = private_posterior_moments_p(
        release.z, 4.0 * release.mechanism.scale, True, prior, data_prior, IS_DRAWS // 2, seed=7
    )
    with pytest.raises(AssertionError):
        check_exact(is_exact_case(chain.kept, *wrong[:3]))
    with pytest.raises(AssertionError):
        check_exact(ExactCase(chain.kept, prior_mean, prior_sd))
    _, _, (*_, prior_mean5, prior_sd5), chain5 = mcmc_case("p5_clamped")
    with pytest.raises(AssertionError):
        check_exact(ExactCase(chain5.kept, prior_mean5, prior_sd5))


def test_p1_matches_the_scalar_sampler_on_a_clamped_release():
    """At p = 1 the two samplers target the same posterior: the scalar release (its statistics
    reordered) as a ReleaseP, both chains against one IS target, and against each other."""
    prior, data_prior = priors(1)
    prior_s = NIGPrior(prior.mu0, prior.lam0, prior.a0, prior.b0)
    data_prior_s = NIWPrior(0.0, 1.0, 1.0, 50.0)
    rng = np.random.default_rng(31)
    while True:  # a data set with a record outside [-1, 1]: the clamping matters
        sim = simulate_dataset_p(rng, N_IS, prior, data_prior)
        if np.any(np.abs(sim["y"]) > 1.2):
            break
    x, y = sim["X"][:, 0], sim["y"]
    scalar = release_statistics(rng, x, y, 48.0, (-1.0, 1.0), clamp=True)
    np.testing.assert_allclose(scalar.s[SCALAR_ORDER], sufficient_statistics_p(x, y), atol=1e-12)
    release = ReleaseP(
        scalar.s[SCALAR_ORDER],
        N_IS,
        1,
        scalar.z[SCALAR_ORDER],
        scalar.mechanism,
        scalar.z_half[SCALAR_ORDER],
        scalar.mechanism_half,
        True,
    )
    mean, sd, ess, *_ = private_posterior_moments_p(
        release.z, release.mechanism.scale, True, prior, data_prior, IS_DRAWS, seed=5
    )
    assert ess > 2000
    chain_p = run_mcmc_ind_p(
        linreg_nig_multi.ProblemP(release, prior, data_prior),
        np.random.default_rng(23),
        burnin=2000,
        keep=40000,
    )
    chain_s = run_mcmc_ind(
        linreg_nig.Problem(scalar, prior_s, data_prior_s),
        np.random.default_rng(24),
        burnin=2000,
        keep=40000,
    )
    check_exact(is_exact_case(chain_p.kept, mean, sd, ess))
    check_exact(is_exact_case(chain_s.kept, mean, sd, ess))
    se = np.hypot(
        diagnostics.mc_standard_error(chain_p.kept), diagnostics.mc_standard_error(chain_s.kept)
    )
    diff = np.abs(chain_p.kept.mean(axis=0) - chain_s.kept.mean(axis=0))
    assert np.all(diff < 5.0 * se), (diff / se, chain_p.kept.mean(0), chain_s.kept.mean(0))


def _cholesky_of(coords, p):
    """L from the move's coordinates: row-major lower triangle, log on the diagonal."""
    chol = np.zeros((p, p))
    chol[np.tril_indices(p)] = coords
    chol[np.diag_indices(p)] = np.exp(np.diag(chol))
    return chol


def _log_niw_in_coords(mu, coords, data_prior):
    """log NIW(mu, Sigma = L L') by scipy plus log |d vech(Sigma) / d coords| (central
    differences): the density of (mu, coords) that the move must use, up to a constant."""
    p = mu.shape[0]
    chol = _cholesky_of(coords, p)
    sigma = chol @ chol.T
    dens = stats.invwishart.logpdf(sigma, df=data_prior.nu, scale=data_prior.psi)
    dens += stats.multivariate_normal.logpdf(mu, data_prior.m0, sigma / data_prior.kappa)
    h, jac = 1e-6, np.empty((coords.size, coords.size))
    for k in range(coords.size):
        up, dn = coords.copy(), coords.copy()
        up[k] += h
        dn[k] -= h
        lu, ld = _cholesky_of(up, p), _cholesky_of(dn, p)
        jac[:, k] = ((lu @ lu.T - ld @ ld.T) / (2 * h))[np.tril_indices(p)]
    return dens + np.linalg.slogdet(jac)[1]


@pytest.mark.parametrize("p", [1, 2, 3])
def test_the_niw_density_of_the_log_cholesky_move(p):
    """Differences of log_niw_chol between random points equal those of the NIW density times the
    Jacobian of Sigma = L L' in (mu, log diag L, offdiag L) (an error of one power of L_ii in the
    Jacobian or of 1 in the determinant's exponent fails); at p = 1 they are the scalar
    sampler's log_niw differences."""
    rng = np.random.default_rng(p)
    a = rng.normal(size=(p, p))
    psi = a @ a.T + p * np.eye(p)
    data_prior = NIWPriorP(rng.normal(size=p), 1.7, psi, p + 4.5)
    vals, ref, scalar_vals = [], [], []
    for _ in range(4):
        mu = rng.normal(size=p)
        coords = rng.normal(scale=0.5, size=p * (p + 1) // 2)
        chol = _cholesky_of(coords, p)
        vals.append(log_niw_chol(mu, chol, data_prior, np.empty((p, p))))
        ref.append(_log_niw_in_coords(mu, coords, data_prior))
        if p == 1:  # the scalar density is in (mu, log tau^2): a constant Jacobian away
            scalar = NIWPrior(float(data_prior.m0[0]), 1.7, float(psi[0, 0]), p + 4.5)
            scalar_vals.append(log_niw(mu[0], chol[0, 0] ** 2, scalar))
    np.testing.assert_allclose(np.diff(vals), np.diff(ref), rtol=0, atol=1e-6)
    if p == 1:
        np.testing.assert_allclose(np.diff(vals), np.diff(scalar_vals), rtol=0, atol=1e-9)
