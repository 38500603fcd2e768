"""Exact targets of the p-covariate NIG regression methods (model ``nig_linreg_p``), at
p = 1, 2 and 5:

- Non-Private: the conjugate posterior given the confidential s (Eq. 5.1 in p dimensions: theta
  marginally multivariate t, sigma^2 inverse gamma); Naive: the same given the projected z;
- Gibbs-SS-Update, -Prior and -Noisy, with and without collapsed moves: with a negligible noise
  scale (2e-4 on every statistic at the full budget; 0.002, chapter 5's, moves the p = 5
  posterior by up to 0.18 sd) the private posterior is the conjugate posterior given s, slack
  0.1 posterior sd;
- MCMC-Ind: the exact private posterior p(theta, sigma^2 | z) at n = 3 records by self-normalised
  importance sampling (IS) from the joint prior of every parameter and record, weights
  exp(-|z - s|_1 / b) (s of the clamped records on a clamped release), slack 3 sd / sqrt(IS
  ESS): p = 1 with chapter 5's priors (unclamped), p = 2 and 5 with wider priors where the
  slopes and Sigma_x move the statistics, on clamped releases (the clamping moves the posterior).

The power of these checks (a wrong target is rejected) is tested in
tests/test_linreg_multi_gibbs_ss.py and tests/test_linreg_multi_mcmc_ind.py.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
from scipy import stats

from dpinfer.mechanisms import Gaussian
from dpinfer.models import linreg_nig_multi
from dpinfer.models.linreg_nig_multi import (
    NIWPriorP,
    nig_posterior_p,
    nig_prior_p,
    project_statistics_p,
    release_statistics_p,
    sensitivity_p,
    simulate_dataset_p,
    stat_pairs,
)
from dpinfer.samplers.conjugate import run_naive_nig, run_non_private_nig
from dpinfer.samplers.gibbs_ss import (
    run_gibbs_ss_noisy,
    run_gibbs_ss_prior,
    run_gibbs_ss_update,
)
from dpinfer.samplers.mcmc_ind import run_mcmc_ind

from ..harness import ExactCase

__all__ = [
    "CASES",
    "P_VALUES",
    "FLAVOURS",
    "N_GIBBS",
    "NEGLIGIBLE_SCALE",
    "GIBBS_BURNIN",
    "GIBBS_KEEP",
    "IS_CASES",
    "IS_DRAWS",
    "N_IS",
    "CHAINS",
    "priors",
    "wide_priors",
    "nig_moments_p",
    "simulated_release",
    "gibbs_data",
    "gibbs_chain",
    "negligible_case",
    "private_posterior_moments_p",
    "mcmc_case",
    "is_exact_case",
]

P_VALUES = (1, 2, 5)
N_IS = 3
IS_DRAWS = 1_000_000


def priors(p: int):
    """Chapter 5's NIG(0, .5/19 I, 20, .5) and NIW(0, 1, I, 50) in p dimensions."""
    return nig_prior_p(p, 0.0, 0.5 / 19, 20.0, 0.5), NIWPriorP.isotropic(p, 0.0, 1.0, 1.0, 50.0)


def nig_moments_p(s, n: int, p: int, prior) -> tuple[np.ndarray, np.ndarray]:
    """Exact posterior means and sds of (theta, sigma^2) given s."""
    mu_n, lam_n, a_n, b_n = nig_posterior_p(s, n, p, prior)
    e_s2 = b_n / (a_n - 1.0)
    sd_theta = np.sqrt(e_s2 * np.diag(np.linalg.inv(lam_n)))
    return np.append(mu_n, e_s2), np.append(sd_theta, e_s2 / np.sqrt(a_n - 2.0))


def simulated_release(p: int, n: int, epsilon: float, seed: int, clamp: bool = True):
    """A data set of n records from the model at p covariates and its release."""
    prior, data_prior = priors(p)
    rng = np.random.default_rng(seed)
    sim = simulate_dataset_p(rng, n, prior, data_prior)
    return release_statistics_p(rng, sim["X"], sim["y"], epsilon, clamp=clamp)


def _conjugate(run, p: int, of_release) -> ExactCase:
    prior, data_prior = priors(p)
    release = simulated_release(p, 30, 1.0, 40 + p)
    mean, sd = nig_moments_p(of_release(release), release.n, p, prior)
    problem = linreg_nig_multi.ProblemP(release, prior, data_prior)
    chain = run(problem, np.random.default_rng(50 + p), burnin=0, keep=20000)
    return ExactCase(chain.kept, mean, sd)


def _non_private():
    return [_conjugate(run_non_private_nig, p, lambda r: r.s) for p in P_VALUES]


def _naive():
    def projected(r):
        return project_statistics_p(r.z, r.n, r.p)

    return [_conjugate(run_naive_nig, p, projected) for p in P_VALUES]


NEGLIGIBLE_SCALE = 2e-4  # Laplace scale on every statistic
N_GIBBS = {1: 10, 2: 15, 5: 30}  # records of the negligible-noise data sets
GIBBS_BURNIN, GIBBS_KEEP = 1000, 8000
FLAVOURS = {
    "noisy": run_gibbs_ss_noisy,
    "prior": run_gibbs_ss_prior,
    "update": run_gibbs_ss_update,
}


@functools.lru_cache
def gibbs_data(p: int, seed: int = 12):
    """(X, y) of N_GIBBS[p] records simulated from the model, and the negligible-noise release."""
    prior, data_prior = priors(p)
    rng = np.random.default_rng(seed + p)
    sim = simulate_dataset_p(rng, N_GIBBS[p], prior, data_prior)
    eps = sensitivity_p(p) / NEGLIGIBLE_SCALE
    return sim["X"], sim["y"], release_statistics_p(rng, sim["X"], sim["y"], eps, clamp=False)


@functools.lru_cache
def gibbs_chain(p: int, flavour: str, moves: int, seed: int = 7):
    """One Gibbs-SS chain of ``flavour`` on the negligible-noise release of p covariates."""
    prior, data_prior = priors(p)
    run = FLAVOURS[flavour]
    rng = np.random.default_rng(seed)
    return run(
        linreg_nig_multi.ProblemP(gibbs_data(p)[2], prior, data_prior),
        rng,
        burnin=GIBBS_BURNIN,
        keep=GIBBS_KEEP,
        collapsed_moves=moves,
    )


def negligible_case(p: int, flavour: str, moves: int, s=None) -> ExactCase:
    """Gibbs-SS against the conjugate posterior given s (default: the confidential statistics),
    slack 0.1 posterior sd (the noise is not exactly zero)."""
    prior, _ = priors(p)
    release = gibbs_data(p)[2]
    mean, sd = nig_moments_p(release.s if s is None else s, N_GIBBS[p], p, prior)
    return ExactCase(gibbs_chain(p, flavour, moves).kept, mean, sd, 0.1 * sd, 0.1 * sd)


def wide_priors(p: int):
    """Covariates of sd about 0.8 (E Sigma_x = 0.3 I, mu_x ~ N_IS(0, Sigma_x)) and a loose
    (theta, sigma^2): slopes, intercept and Sigma_x all move the statistics."""
    return nig_prior_p(p, 0.0, 1.0, 3.0, 1.0), NIWPriorP.isotropic(p, 0.0, 1.0, 1.5, p + 6.0)


def private_posterior_moments_p(
    z, scale, clamp, prior, data_prior, draws, seed, chunk=250_000, gaussian=False
):
    """(mean, sd, ESS, prior mean, prior sd) of (theta, sigma^2) under p(theta, sigma^2 | z) with
    z = s + Laplace(scale) (N(0, scale^2) if ``gaussian``), by self-normalised importance
    sampling from the joint prior of
    (theta, sigma^2, mu_x, Sigma_x, X, y) (Sigma_x by scipy's inverse Wishart, independently of
    the sampler's own draws); s is that of the records clamped to [-1, 1] if ``clamp``."""
    rng = np.random.default_rng(seed)
    p = data_prior.m0.shape[0]
    pairs = stat_pairs(p)
    c0 = np.linalg.cholesky(np.linalg.inv(prior.lam0))
    logw, par = np.empty(draws), np.empty((draws, p + 2))
    for lo in range(0, draws, chunk):
        m = min(chunk, draws - lo)
        sig2 = prior.b0 / rng.gamma(prior.a0, 1.0, m)
        theta = prior.mu0 + np.sqrt(sig2)[:, None] * (rng.standard_normal((m, p + 1)) @ c0.T)
        cov = stats.invwishart.rvs(df=data_prior.nu, scale=data_prior.psi, size=m, random_state=rng)
        chol = np.linalg.cholesky(np.reshape(cov, (m, p, p)))
        mu = data_prior.m0 + np.einsum("mij,mj->mi", chol, rng.standard_normal((m, p))) / np.sqrt(
            data_prior.kappa
        )
        x = mu[:, None, :] + np.einsum("mij,mnj->mni", chol, rng.standard_normal((m, N_IS, p)))
        y = np.einsum("mni,mi->mn", x, theta[:, :p]) + theta[:, p:]
        y += np.sqrt(sig2)[:, None] * rng.standard_normal((m, N_IS))
        a = np.concatenate([x, np.ones((m, N_IS, 1)), y[:, :, None]], axis=2)
        if clamp:
            a = np.clip(a, -1.0, 1.0)
        s = np.einsum("mni,mni->mi", a[:, :, pairs[:, 0]], a[:, :, pairs[:, 1]])
        r = np.asarray(z) - s
        logw[lo : lo + m] = (
            -(r * r).sum(axis=1) / (2.0 * scale * scale)
            if gaussian
            else -np.abs(r).sum(axis=1) / scale
        )
        par[lo : lo + m, : p + 1] = theta
        par[lo : lo + m, p + 1] = sig2
    w = np.exp(logw - logw.max())
    w /= w.sum()
    mean = w @ par
    sd = np.sqrt(w @ (par - mean) ** 2)
    return mean, sd, 1.0 / np.sum(w**2), par.mean(axis=0), par.std(axis=0)


# (p, priors, epsilon, clamp, data seed): epsilon puts the Laplace scale where the release moves
# the posterior by 0.3-1 sd from the prior while the IS ESS stays in the thousands
IS_CASES = {
    "p1": (1, priors, 48.0, False, 31),
    "p2_clamped": (2, wide_priors, 32.0, True, 33),
    "p5_clamped": (5, wide_priors, 80.0, True, 31),
    "p3": (3, wide_priors, 60.0, False, 33),  # unclamped: the O(q^3) non-centred statistics
    # Gaussian noise of the Laplace case's variance (the releases section's nig_regression)
    "p1_gaussian": (1, priors, 48.0, False, 31),
}
CHAINS = {
    "p1": (2000, 40000),
    "p2_clamped": (3000, 60000),
    "p5_clamped": (3000, 60000),
    "p3": (3000, 60000),
    "p1_gaussian": (2000, 40000),
}


@functools.cache
def mcmc_case(name: str):
    """(release, priors, IS moments (mean, sd, ESS, prior mean, prior sd), chain) of a case."""
    p, priors, eps, clamp, seed = IS_CASES[name]
    prior, data_prior = priors(p)
    sim = simulate_dataset_p(np.random.default_rng(seed), N_IS, prior, data_prior)
    release = release_statistics_p(np.random.default_rng(1), sim["X"], sim["y"], eps, clamp)
    scale, noise = release.mechanism.scale, "laplace"
    if name.endswith("_gaussian"):
        noise, gauss = "gaussian", Gaussian(sigma=math.sqrt(2.0) * scale)  # the same variance
        assert not clamp  # then s is the released statistic
        z = gauss.release(np.random.default_rng(2), release.s)
        release = dataclasses.replace(release, z=z, mechanism=gauss)
        scale = gauss.sigma
    exact = private_posterior_moments_p(
        release.z, scale, clamp, prior, data_prior, IS_DRAWS, seed=5, gaussian=noise == "gaussian"
    )
    burnin, keep = CHAINS[name]
    chain = run_mcmc_ind(
        linreg_nig_multi.ProblemP(release, prior, data_prior, noise),
        np.random.default_rng(23),
        burnin=burnin,
        keep=keep,
    )
    return release, (prior, data_prior), exact, chain


def is_exact_case(draws, mean, sd, ess) -> ExactCase:
    slack = 3.0 * sd / np.sqrt(ess)
    return ExactCase(draws, mean, sd, mean_slack=slack, sd_slack=slack)


def _gibbs(flavour: str):
    return [negligible_case(p, flavour, moves) for p in P_VALUES for moves in (0, 1)]


def _mcmc_ind():
    out = []
    for name in IS_CASES:
        _, _, (mean, sd, ess, *_), chain = mcmc_case(name)
        out.append(is_exact_case(chain.kept, mean, sd, ess))
    return out


CASES = {
    ("nig_linreg_p", "non_private"): _non_private,
    ("nig_linreg_p", "naive"): _naive,
    ("nig_linreg_p", "gibbs_ss_update"): lambda: _gibbs("update"),
    ("nig_linreg_p", "gibbs_ss_prior"): lambda: _gibbs("prior"),
    ("nig_linreg_p", "gibbs_ss_noisy"): lambda: _gibbs("noisy"),
    ("nig_linreg_p", "mcmc_ind"): _mcmc_ind,
}
