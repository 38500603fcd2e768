"""MCMC-Ind for p covariates (:mod:`dpinfer.samplers.mcmc_ind`) against the exact private
posterior of its target, p(theta, sigma^2 | z), at n = 3 records: self-normalised importance
sampling (IS) from the joint prior of every parameter and record, with weights
exp(-|z - s|_1 / b) (s of the clamped records on a clamped release), as
tests/exact/bernstein2020_ch5.py does for the scalar sampler; the slack is 3 sd / sqrt(IS ESS).

Cases: p = 1 with the thesis's priors (unclamped), p = 2 and p = 5 with wider priors (the
slopes and Sigma_x matter; clamped releases, the clamping moves the posterior). The harness
rejects a wrong target (the IS posterior at 4 times the noise scale, and the prior); chapter
5's one-covariate problem with asymmetric clamping bounds matches its own IS target. The chains
store (theta, sigma^2) only, which a small error in the NIW density of the (mu_x, Sigma_x) move
barely moves, so that density (log-Cholesky Jacobian included) is checked directly against scipy's.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpinfer.models import linreg_nig
from dpinfer.models.linreg_nig import NIWPrior, release_statistics, simulate_dataset
from dpinfer.models.linreg_nig_multi import (
    NIWPriorP,
    log_niw_chol,
)
from dpinfer.samplers.mcmc_ind import run_mcmc_ind
from tests.exact.bernstein2020_ch5 import DATA_PRIOR as SCALAR_DATA_PRIOR
from tests.exact.bernstein2020_ch5 import PRIOR as SCALAR_PRIOR
from tests.exact.bernstein2020_ch5 import log_niw, private_posterior_moments
from tests.exact.linreg_nig_multi import (
    CHAINS,
    IS_CASES,
    IS_DRAWS,
    is_exact_case,
    mcmc_case,
    private_posterior_moments_p,
)
from tests.harness import ExactCase, check_exact


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


def test_chapter5_problem_with_asymmetric_bounds_matches_its_exact_target():
    """Chapter 5's one-covariate problem is the p = 1 case (``as_p``): on a release clamped to
    asymmetric bounds (the sign flip then recomputes the clamped statistics instead of negating
    them) the chain matches importance sampling from the joint prior with records clamped to
    those bounds (tests/exact/bernstein2020_ch5.py), and not the same target clamped to
    [-1, 1]."""
    bounds = (-0.6, 1.4)
    rng = np.random.default_rng(31)
    while True:  # records on both sides of the bounds: the clamping matters
        sim = simulate_dataset(rng, 3, SCALAR_PRIOR, SCALAR_DATA_PRIOR)
        if np.max(sim["y"]) > 1.6 and np.min(sim["y"]) < -0.8:
            break
    release = release_statistics(rng, sim["x"], sim["y"], 48.0, bounds, clamp=True)
    chain = run_mcmc_ind(
        linreg_nig.Problem(release, SCALAR_PRIOR, SCALAR_DATA_PRIOR),
        np.random.default_rng(23),
        burnin=3000,
        keep=30000,
    )
    assert chain.info.detail.sign_flips > 0  # the asymmetric flip path ran
    for clamp_to, holds in ((bounds, True), ((-1.0, 1.0), False)):
        mean, sd, ess = private_posterior_moments(
            release.z, 3, release.mechanism.scale, 1_000_000, np.random.default_rng(5), clamp_to
        )
        slack = 3.0 * sd / np.sqrt(ess)
        case = ExactCase(chain.kept, mean, sd, mean_slack=slack, sd_slack=slack)
        if holds:
            check_exact(case)
        else:
            with pytest.raises(AssertionError):
                check_exact(case)


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
