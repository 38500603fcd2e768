"""Gibbs-SS for p covariates (:mod:`dpinfer.samplers.gibbs_ss`) against exact targets.

- With a negligible noise scale (2e-4 on every statistic; simulated data, unclamped release) the
  private posterior is the conjugate NIG posterior given s (Eq. 5.1, closed form), checked with
  the harness's ESS-based z-scores plus a slack of 0.1 posterior sd, as for the one-covariate
  sampler (tests/exact/bernstein2020_ch5.py); p = 1, 2, 5, both flavours, with and without the
  collapsed moves. The same check rejects the conjugate posterior of a clearly perturbed s.
- The NIW prior in log-Cholesky coordinates equals scipy's inverse-Wishart times normal density
  plus the stated Jacobian, and reduces to chapter 5's scalar log_niw at p = 1.
- Chapter 5's one-covariate problem is the p = 1 case: converted (``as_p``), each flavour's
  chain equals, seed for seed, the chain of the same release built by hand.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dpinfer.mechanisms import Laplace
from dpinfer.models import linreg_nig, linreg_nig_multi
from dpinfer.models.linreg_nig import NIGPrior, NIWPrior, release_statistics
from dpinfer.models.linreg_nig_multi import (
    NIWPriorP,
    ReleaseP,
    as_p,
    chain_target_p,
    log_nig_p,
    log_niw_chol,
    moment_sums_p,
    n_stats,
    stat_pairs,
    sufficient_statistics_p,
)
from dpinfer.samplers import gibbs_ss as gm
from dpinfer.samplers.clt_moments import predictive_tensor
from dpinfer.samplers.gibbs_ss import (
    phi_dimension,
    run_gibbs_ss_noisy,
    run_gibbs_ss_prior,
    run_gibbs_ss_update,
)
from tests.exact.bernstein2020_ch5 import log_niw
from tests.exact.linreg_nig_multi import (
    FLAVOURS,
    GIBBS_BURNIN,
    GIBBS_KEEP,
    negligible_case,
    priors,
)
from tests.exact.linreg_nig_multi import gibbs_chain as chain
from tests.exact.linreg_nig_multi import gibbs_data as data
from tests.harness import check_exact, z_scores

SCALAR_ORDER = [1, 0, 3, 2, 4]  # [sx, sxx, sy, sxy, syy] -> stat_pairs(1) order
BURNIN, KEEP = GIBBS_BURNIN, GIBBS_KEEP


@pytest.mark.parametrize("moves", [0, 1])
@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
@pytest.mark.parametrize("p", [1, 2, 5])
def test_chain_record_of_each_flavour(p, flavour, moves):
    """The draws and Info of the chains whose exact-target check is in tests/exact."""
    ch = chain(p, flavour, moves)
    assert ch.draws.shape == (BURNIN + KEEP, p + 2) and ch.burnin == BURNIN
    assert ch.info.iterations == BURNIN + KEEP and ch.info.cpu_seconds > 0
    assert set(ch.info.clipped) == {"cov_projections", "stat_projections"}
    if moves:
        assert 0.05 < ch.info.acceptance < 0.6 and ch.info.detail.sign_flips >= 0
    else:
        assert ch.info.acceptance is None and ch.info.detail.sign_flips is None


@pytest.mark.parametrize("flavour,moves", [("update", 1), ("prior", 0)])
def test_the_check_rejects_a_perturbed_target(flavour, moves):
    # the conjugate posterior of the same data with y + 0.5 x_1 + 0.3: the first slope and the
    # intercept move by many posterior sds
    p = 2
    X, y, _ = data(p)
    case = negligible_case(p, flavour, moves, s=sufficient_statistics_p(X, y + 0.5 * X[:, 0] + 0.3))
    with pytest.raises(AssertionError):
        check_exact(case)
    z_mean = z_scores(case.draws, case.mean, case.sd, case.mean_slack, case.sd_slack)[2]
    assert z_mean[0] > 20 and z_mean[p] > 20


def _chol_params(rng, p):
    """A random (mu, L) with positive diagonal."""
    l = np.tril(rng.normal(scale=0.3, size=(p, p)), -1) + np.diag(rng.uniform(0.2, 1.5, p))
    return rng.normal(size=p), l


def test_niw_log_density_reduces_to_the_scalar_one_at_p1():
    scalar = NIWPrior(0.3, 1.5, 0.8, 9.0)
    prior = NIWPriorP(np.array([0.3]), 1.5, np.array([[0.8]]), 9.0)
    pts = [(-0.2, 0.4), (0.5, 1.3), (0.1, 0.05)]
    work = np.empty((1, 1))
    ours = [log_niw_chol(np.array([m]), np.array([[np.sqrt(t2)]]), prior, work) for m, t2 in pts]
    ref = [log_niw(m, t2, scalar) for m, t2 in pts]  # coordinates log tau^2 = 2 log L: constant
    assert np.allclose(np.diff(ours), np.diff(ref), rtol=1e-12, atol=1e-12)


def test_phi_dimension_and_log_cholesky_round_trip():
    assert [phi_dimension(p, False) for p in (1, 2, 5)] == [3, 4, 7]
    assert [phi_dimension(p, True) for p in (1, 2, 5)] == [5, 9, 27]
    p = 3
    rng = np.random.default_rng(8)
    mu, l = _chol_params(rng, p)
    theta = rng.normal(size=p + 1)
    phi = np.empty(phi_dimension(p, True))
    gm._pack(phi, p, theta, 0.7, mu, l, True)
    assert np.allclose(phi[: p + 2], np.append(theta, np.log(0.7)))
    mu2, l2, sigma = np.empty(p), np.full((p, p), 9.0), np.empty((p, p))
    gm._unpack_data(phi, p, mu2, l2)
    gm._outer_into(l2, sigma)
    assert np.allclose(mu2, mu) and np.allclose(l2, l) and np.allclose(sigma, l @ l.T)
    # the prior of phi: NIG (with the log sigma^2 Jacobian) plus the NIW in these coordinates
    prior, data_prior = priors(p)
    target = chain_target_p(np.zeros(n_stats(p)), 5, p, 1.0, prior, data_prior)
    work = [np.empty(p), np.empty((p, p)), np.empty((p, p))]
    lp = gm._log_prior_phi(phi, p, target, True, *work)
    nig = log_nig_p(theta, 0.7, prior)
    assert lp == pytest.approx(nig + log_niw_chol(mu, l, data_prior, np.empty((p, p))))
    assert gm._log_prior_phi(phi[: p + 2], p, target, False, *work) == pytest.approx(nig)


def _paired_releases(scale: float, seed: int = 12):
    """One scalar release (chapter 5's record) and the same release as a p = 1 ReleaseP."""
    prior, data_prior = priors(1)
    X, y, _ = data(1, seed)
    eps = 24.0 / scale  # scalar sensitivity 24 for [-1, 1]
    rel = release_statistics(np.random.default_rng(seed), X[:, 0], y, eps, (-1.0, 1.0))
    assert rel.mechanism.scale == pytest.approx(scale)
    mech, half = rel.mechanism, rel.mechanism_half
    z, z_half = rel.z[SCALAR_ORDER], rel.z_half[SCALAR_ORDER]
    relp = ReleaseP(rel.s[SCALAR_ORDER], rel.n, 1, z, mech, z_half, half, clamped=False)
    assert np.allclose(relp.s, sufficient_statistics_p(X, y))
    scalar_prior = NIGPrior(prior.mu0, prior.lam0, prior.a0, prior.b0)
    return rel, relp, scalar_prior, NIWPrior(0.0, 1.0, 1.0, 50.0), prior, data_prior


def test_chapter5_problem_is_the_p1_case():
    """Chapter 5's one-covariate Problem runs as the p = 1 ProblemP (``as_p``): its statistics and
    moment sums come over in stat_pairs and moment_monomials order, and with the same seed each
    flavour's chain is the one of the same release built as a ReleaseP by hand."""
    rel, relp, sprior, sdata, prior, data_prior = _paired_releases(0.3)
    X = data(1, 12)[0]
    converted = as_p(linreg_nig.Problem(rel, sprior, sdata)).release
    np.testing.assert_array_equal(converted.z, relp.z)
    np.testing.assert_array_equal(converted.z_half, relp.z_half)
    np.testing.assert_allclose(converted.exact_moment_sums, moment_sums_p(X), rtol=1e-12)
    kw = {"burnin": 200, "keep": 1000}
    for run in (run_gibbs_ss_noisy, run_gibbs_ss_prior, run_gibbs_ss_update):
        for moves in (0, 1):
            by_hand = dataclasses.replace(
                relp, moment_sums=converted.moment_sums, mechanism_moments=rel.mechanism_moments
            )
            ours = run(
                linreg_nig_multi.ProblemP(by_hand, prior, data_prior),
                np.random.default_rng(5),
                collapsed_moves=moves,
                **kw,
            )
            theirs = run(
                linreg_nig.Problem(rel, sprior, sdata),
                np.random.default_rng(5),
                collapsed_moves=moves,
                **kw,
            )
            np.testing.assert_array_equal(ours.draws, theirs.draws)


def test_invalid_input_is_rejected():
    prior, data_prior = priors(2)
    release = data(2)[2]
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        run_gibbs_ss_update(
            linreg_nig_multi.ProblemP(release, prior, data_prior), rng, burnin=10, keep=0
        )
    with pytest.raises(ValueError):
        run_gibbs_ss_prior(
            linreg_nig_multi.ProblemP(release, prior, data_prior),
            rng,
            burnin=1,
            keep=5,
            collapsed_moves=-1,
        )
    with pytest.raises(ValueError):  # priors of the wrong dimension
        run_gibbs_ss_update(linreg_nig_multi.ProblemP(release, *priors(1)), rng, burnin=1, keep=5)
    bad = ReleaseP(release.s, release.n, 2, release.z[:-1], Laplace(1.0, 1.0), release.z, None)
    with pytest.raises(ValueError):
        run_gibbs_ss_update(
            linreg_nig_multi.ProblemP(bad, prior, data_prior), rng, burnin=1, keep=5
        )


def test_a_proposal_whose_moments_overflow_has_no_density():
    """A random-walk step far out (log sigma^2 = 800) is rejected instead of producing NaN
    moments (Gibbs-SS-Noisy's early excursions on a weak release ended in a LinAlgError)."""
    p = 2
    mw_fixed = gm._MomentWork(
        predictive_tensor(priors(p)[1]),
        np.empty((p + 1,) * 3),
        np.empty((p + 1,) * 2),
        np.empty(p + 1),
        np.empty(p),
        np.zeros((p, p)),
        np.empty((p, p)),
        stat_pairs(p),
        np.empty((2, 5, 5)),
    )
    fixed = gm._Settings(0, 1, True, False, False, -np.inf, np.inf)
    k = n_stats(p)
    mu_t, cov_t = np.empty(k), np.empty((k, k))
    phi = np.array([0.3, -0.2, 0.1, np.log(0.05)])
    assert gm._finite_moments(phi, p, fixed, mw_fixed, mu_t, cov_t)
    assert np.all(np.isfinite(cov_t))
    phi[p + 1] = 800.0
    assert not gm._finite_moments(phi, p, fixed, mw_fixed, mu_t, cov_t)
