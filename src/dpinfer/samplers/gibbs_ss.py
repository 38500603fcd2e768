"""Gibbs-SS: the Gibbs sampler over sufficient statistics for private linear regression
(Algorithm 7 of bernstein2020, Sec. 5.2.4), in its three flavours.

State: s = [sum x, sum x^2, sum y, sum xy, sum y^2] (n public), (theta, sigma^2), the Laplace
augmentation variances omega^2 (one per released entry) and, for the Update flavour, the
data-prior parameters (mu_x, tau^2). One iteration, in the released code's order:

1. x-moments E[x^k], k <= 4: fixed (Noisy, Prior) or those of N(mu_x, tau^2) (Update);
   mu_t, Sigma_t of t(x, y) by Eqs. (5.2)-(5.3); n Sigma_t projected to PSD if needed.
2. s ~ NormProduct(n mu_t, n Sigma_t, z, diag(omega^2)) (Laplace as a scale mixture of normals).
3. s projected so that [X, 1, y]'[X, 1, y] is PSD (Sec. 5.2.4.3).
4. (theta, sigma^2) ~ NIG posterior given s (Eq. 5.1).
5. Update flavour: (mu_x, tau^2) ~ NIW posterior given (sum x, sum x^2, n) (Fig. 5.3c).
6. 1/omega_j^2 ~ InverseGaussian(1/(b |z_j - s_j|), 1/b^2), b the Laplace scale (App. B.2).

Flavours (Sec. 5.2.4.4), one public function each with the model's call signature
``run(release, prior, data_prior, rng, *, burnin, keep) -> Chain``:
:func:`run_gibbs_ss_noisy` (moments released with half the budget, statistics with the other
half), :func:`run_gibbs_ss_prior` (moments of the data prior's predictive),
:func:`run_gibbs_ss_update` (hierarchical normal data prior updated every iteration).
``Chain.info.clipped`` counts the projections of n Sigma_t (``cov_projections``) and of s
(``stat_projections``) over all iterations. :func:`clt_mean_cov` exposes the moments of step 1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..models.linreg_nig import (
    N_STATS,
    NIGPrior,
    NIWPrior,
    Release,
    _gaussian_moments,
    _nig_draw,
    _nig_update,
    _niw_draw,
    _project_statistics,
    prior_predictive_moments,
)
from .base import Chain, CpuTimer, Info, check_lengths
from .conditionals import laplace_mixture_precision, norm_product_draw
from .linalg import make_psd

__all__ = ["run_gibbs_ss_noisy", "run_gibbs_ss_prior", "run_gibbs_ss_update", "clt_mean_cov"]


# ----------------------------------------------------------------------------- Eqs. 5.2-5.3
@njit(cache=True)
def _clt_mean_cov(theta0, theta1, sigma2, m, mu_t, cov_t, work):
    """Mean (5) and covariance (5, 5) of t(x, y) = [x, x^2, y, xy, y^2] for one individual.

    ``m`` holds the raw moments E[x^k], k = 0..4. With l = theta0 x + theta1, the conditional
    moments E[y^q | x] are polynomials in x (q <= 4), so every E[x^p y^q] with p + q <= 4 is a
    linear combination of m; this is Eqs. (5.2)-(5.3) of the thesis written out for x = [x, 1].
    """
    # powers of l as coefficient vectors in x (degree <= 4); work is a (3, 5, 5) scratch array
    lp = work[0]
    cy = work[1]
    e = work[2]
    lp[:, :] = 0.0
    lp[0, 0] = 1.0
    for k in range(1, 5):
        for j in range(k + 1):
            c = 0.0
            if j >= 1:
                c += theta0 * lp[k - 1, j - 1]
            if j <= k - 1:
                c += theta1 * lp[k - 1, j]
            lp[k, j] = c
    # E[y^q | x] as polynomials: q = 0..4
    s2 = sigma2
    for j in range(5):
        cy[0, j] = lp[0, j]
        cy[1, j] = lp[1, j]
        cy[2, j] = lp[2, j] + s2 * lp[0, j]
        cy[3, j] = lp[3, j] + 3.0 * s2 * lp[1, j]
        cy[4, j] = lp[4, j] + 6.0 * s2 * lp[2, j] + 3.0 * s2 * s2 * lp[0, j]
    # E[x^p y^q] for p + q <= 4 (entries with p + q > 4 are never read)
    for q in range(5):
        for p in range(5 - q):
            acc = 0.0
            for j in range(q + 1):
                acc += cy[q, j] * m[p + j]
            e[p, q] = acc
    pp = (1, 2, 0, 1, 0)
    qq = (0, 0, 1, 1, 2)
    for i in range(5):
        mu_t[i] = e[pp[i], qq[i]]
    for i in range(5):
        for j in range(i, 5):
            v = e[pp[i] + pp[j], qq[i] + qq[j]] - mu_t[i] * mu_t[j]
            cov_t[i, j] = v
            cov_t[j, i] = v


def clt_mean_cov(theta, sigma2: float, moments):
    """(mu_t, Sigma_t) of t(x, y) for one individual; ``moments`` = E[x^k], k = 1..4."""
    m = np.concatenate([[1.0], np.asarray(moments, dtype=float)])
    if m.shape != (5,):
        raise ValueError("moments must hold E[x], E[x^2], E[x^3], E[x^4]")
    theta = np.asarray(theta, dtype=float)
    mu_t, cov_t = np.empty(5), np.empty((5, 5))
    _clt_mean_cov(float(theta[0]), float(theta[1]), float(sigma2), m, mu_t, cov_t, np.empty((3, 5, 5)))
    return mu_t, cov_t


# ----------------------------------------------------------------------------- Algorithm 7
@njit(cache=True)
def _gibbs_ss_kernel(rng, z, n, b, update, fixed_m, mu0, lam0, a0, b0, m0x, kappa, psi, nu, out, n_psd):
    """Algorithm 7 (bernstein2020, Sec. 5.2.4); row t of out is (theta_0, theta_1, sigma^2) of
    iteration t, every iteration stored.

    ``update`` selects the hierarchical normal data prior (moments of N(mu_x, tau^2), updated by
    NIW conjugacy); otherwise ``fixed_m`` (E[x^k], k = 0..4) is used throughout.
    n_psd[0] counts projections of n Sigma_t, n_psd[1] projections of s.
    """
    k = z.shape[0]
    theta = np.empty(2)
    mu_n = np.empty(2)
    lam_n = np.empty((2, 2))
    m = fixed_m.copy()
    mu_t = np.empty(k)
    cov_t = np.empty((k, k))
    mean = np.empty(k)
    v = np.empty((k, k))
    s = np.empty(k)
    omega2 = np.empty(k)
    wa = np.empty((k, k))
    wl = np.empty((k, k))
    ww = np.empty((k, k))
    wb = np.empty((k, k))
    wv = np.empty((3, k))
    poly = np.empty((3, 5, 5))
    # start as the released code: every parameter from its prior (so all three flavours draw
    # (mu_x, tau^2), used by Update only), omega^2 from its prior Exp(mean 2 b^2)
    s0 = np.zeros(k)
    a_n, b_n = _nig_update(s0, 0.0, mu0, lam0, a0, b0, mu_n, lam_n)
    sigma2 = _nig_draw(rng, mu_n, lam_n, a_n, b_n, theta)
    mu_x, tau2 = _niw_draw(rng, 0.0, 0.0, 0.0, m0x, kappa, psi, nu)
    for j in range(k):
        omega2[j] = rng.exponential(2.0 * b * b)
    for it in range(out.shape[0]):
        if update:
            _gaussian_moments(mu_x, tau2, m)
        _clt_mean_cov(theta[0], theta[1], sigma2, m, mu_t, cov_t, poly)
        for i in range(k):
            mean[i] = n * mu_t[i]
            for j in range(k):
                v[i, j] = n * cov_t[i, j]
        if make_psd(v, wb, wl):
            n_psd[0] += 1
        norm_product_draw(rng, mean, v, z, omega2, s, wa, wl, ww, wv)
        if _project_statistics(s, n):
            n_psd[1] += 1
        a_n, b_n = _nig_update(s, n, mu0, lam0, a0, b0, mu_n, lam_n)
        sigma2 = _nig_draw(rng, mu_n, lam_n, a_n, b_n, theta)
        if update:
            mu_x, tau2 = _niw_draw(rng, s[0], s[1], n, m0x, kappa, psi, nu)
        for j in range(k):
            omega2[j] = 1.0 / laplace_mixture_precision(rng, z[j] - s[j], b)
        out[it, 0] = theta[0]
        out[it, 1] = theta[1]
        out[it, 2] = sigma2


def _run(z, n: int, scale: float, moments, update: bool, prior: NIGPrior, data_prior: NIWPrior,
         rng: np.random.Generator, burnin: int, keep: int) -> Chain:
    """Validate, allocate and run one chain; ``moments`` = E[x^k], k = 1..4 (start values for
    the Update flavour)."""
    z = np.asarray(z, dtype=float)
    if z.shape != (N_STATS,) or not np.all(np.isfinite(z)):
        raise ValueError("z must be 5 finite released statistics")
    if n < 1 or not scale > 0:
        raise ValueError("need n >= 1 and a positive noise scale")
    burnin, keep = check_lengths(burnin, keep)
    fixed = np.concatenate([[1.0], np.asarray(moments, dtype=float)])
    out = np.empty((burnin + keep, 3))
    n_psd = np.zeros(2, dtype=np.int64)
    with CpuTimer() as timer:
        _gibbs_ss_kernel(rng, z, float(n), float(scale), update, fixed, prior.mu0, prior.lam0, prior.a0,
                         prior.b0, data_prior.m0, data_prior.kappa, data_prior.psi, data_prior.nu, out, n_psd)
    info = Info(cpu_seconds=timer.seconds, iterations=burnin + keep,
                clipped={"cov_projections": int(n_psd[0]), "stat_projections": int(n_psd[1])})
    return Chain(out, burnin, info)


def run_gibbs_ss_noisy(release: Release, prior: NIGPrior, data_prior: NIWPrior, rng, *, burnin: int,
                       keep: int) -> Chain:
    """Gibbs-SS-Noisy: statistics released at epsilon/2 (``release.z_half``), moments from the
    sums of x^k released at epsilon/2 (``release.noisy_moments()``); ``data_prior`` only sets the
    unused start of (mu_x, tau^2)."""
    return _run(release.z_half, release.n, release.mechanism_half.scale, release.noisy_moments(), False,
                prior, data_prior, rng, burnin, keep)


def run_gibbs_ss_prior(release: Release, prior: NIGPrior, data_prior: NIWPrior, rng, *, burnin: int,
                       keep: int) -> Chain:
    """Gibbs-SS-Prior: moments of the data prior's predictive (closed form), full-budget z."""
    return _run(release.z, release.n, release.mechanism.scale, prior_predictive_moments(data_prior), False,
                prior, data_prior, rng, burnin, keep)


def run_gibbs_ss_update(release: Release, prior: NIGPrior, data_prior: NIWPrior, rng, *, burnin: int,
                        keep: int) -> Chain:
    """Gibbs-SS-Update: hierarchical normal data prior, (mu_x, tau^2) updated every iteration."""
    return _run(release.z, release.n, release.mechanism.scale, prior_predictive_moments(data_prior), True,
                prior, data_prior, rng, burnin, keep)
