"""Gibbs sampler over sufficient statistics for private linear regression (Algorithm 7 of
bernstein2020, Ch. 5), numba kernels.

State: s = [sum x, sum x^2, sum y, sum xy, sum y^2] (n public), (theta, sigma^2), the Laplace
augmentation variances omega^2 (one per released entry) and, for the Update flavour, the
data-prior parameters (mu_x, tau^2). One iteration, in the released code's order:

1. x-moments E[x^k], k <= 4: fixed (Noisy, Prior) or those of N(mu_x, tau^2) (Update);
   mu_t, Sigma_t of t(x, y) by Eqs. (5.2)-(5.3); n Sigma_t projected to PSD if needed.
2. s ~ NormProduct(n mu_t, n Sigma_t, z, diag(omega^2)) (Laplace as a scale mixture of normals).
3. s projected so that [X, y]'[X, y] is PSD (``linreg_nig._project_statistics``).
4. (theta, sigma^2) ~ NIG posterior given s (Eq. 5.1).
5. Update flavour: (mu_x, tau^2) ~ NIW posterior given (sum x, sum x^2, n) (Fig. 5.3c).
6. 1/omega_j^2 ~ InverseGaussian(1/(b |z_j - s_j|), 1/b^2), b the Laplace scale.

Flavours (config names): ``gibbs_ss_noisy`` (moments privately released with half the budget),
``gibbs_ss_prior`` (moments of the data prior), ``gibbs_ss_update`` (hierarchical normal data
prior updated each iteration).

NormProduct and the Wald update are local helpers here; the chapter-4 module
``noise_aware_gibbs`` has its own versions for the exponential-family samplers.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ..models.linreg_nig import (
    N_STATS,
    NIGPrior,
    NIWPrior,
    _clt_mean_cov_work,
    _gaussian_moments,
    _niw_draw,
    _nig_draw,
    _nig_update,
    _project_statistics,
    moment_bounds,
    prior_predictive_moments,
)
from .data_augmentation import Chain
from .linalg import cholesky_lower, psd_factor
from .noise_aware_gibbs import laplace_mixture_precision

__all__ = ["FLAVOURS", "run_gibbs_ss", "clean_noisy_moments", "norm_product_draw", "wald_precision_draw"]

FLAVOURS = ("gibbs_ss_noisy", "gibbs_ss_prior", "gibbs_ss_update")


# ----------------------------------------------------------------------------- linear algebra
@njit(cache=True)
def _make_psd(a, b, tmp):
    """Replace symmetric a by its eigenvalue-clipped (PSD) version in place; True if changed.

    b and tmp are (k, k) work arrays."""
    k = a.shape[0]
    big = 1e-300
    for i in range(k):
        for j in range(k):
            big = max(big, abs(a[i, j]))
            b[i, j] = a[i, j]
    jit = 1e-12 * big
    for i in range(k):
        b[i, i] += jit
    if cholesky_lower(b, tmp):
        return False
    w, q = np.linalg.eigh(a)
    for i in range(k):
        for j in range(k):
            acc = 0.0
            for p in range(k):
                if w[p] > 0.0:
                    acc += q[i, p] * w[p] * q[j, p]
            a[i, j] = acc
    return True


@njit(cache=True)
def _norm_product_draw(rng, mean, v, z, omega2, s, work_a, work_l, work_w, work_v):
    """s ~ NormProduct(mean, v, z, diag(omega2)) (thesis, subroutine of Algorithm 7).

    Uses the covariance form Sigma_3 = V - V (V + D)^{-1} V, mu_3 = mean + V (V + D)^{-1}(z - mean),
    which stays finite when V is singular (D = diag(omega2) > 0 keeps V + D definite).
    """
    k = mean.shape[0]
    for i in range(k):
        for j in range(k):
            work_a[i, j] = v[i, j]
        work_a[i, i] += omega2[i]
    psd_factor(work_a, work_l)
    # W = (V + D)^{-1} V by two triangular solves per column
    for c in range(k):
        for i in range(k):
            acc = v[i, c]
            for p in range(i):
                acc -= work_l[i, p] * work_w[p, c]
            work_w[i, c] = acc / work_l[i, i]
        for i in range(k - 1, -1, -1):
            acc = work_w[i, c]
            for p in range(i + 1, k):
                acc -= work_l[p, i] * work_w[p, c]
            work_w[i, c] = acc / work_l[i, i]
    r = work_v[0]
    mu3 = work_v[1]
    e = work_v[2]
    for i in range(k):
        r[i] = z[i] - mean[i]
    for i in range(k):
        acc = mean[i]
        for p in range(k):
            acc += work_w[p, i] * r[p]  # V (V + D)^{-1} r = W' r (V, D symmetric)
        mu3[i] = acc
    # Sigma_3 = V - V W, symmetrised
    for i in range(k):
        for j in range(i, k):
            acc = v[i, j]
            for p in range(k):
                acc -= v[i, p] * work_w[p, j]
            work_a[i, j] = acc
    for i in range(k):  # only the upper triangle was computed: mirror it
        for j in range(i + 1, k):
            work_a[j, i] = work_a[i, j]
    psd_factor(work_a, work_l)
    for i in range(k):
        e[i] = rng.standard_normal()
    for i in range(k):
        acc = mu3[i]
        for p in range(k):
            acc += work_l[i, p] * e[p]
        s[i] = acc


@njit(cache=True)
def _wald_precision(rng, resid, b):
    """omega^2 with 1/omega^2 ~ InverseGaussian(mean 1/(b |resid|), shape 1/b^2) (Park & Casella)."""
    return 1.0 / laplace_mixture_precision(rng, resid, b)


@njit(cache=True)
def _wald_draws(rng, resid, b, out):
    for i in range(out.shape[0]):
        out[i] = 1.0 / _wald_precision(rng, resid, b)


# ----------------------------------------------------------------------------- the sampler
@njit(cache=True)
def _gibbs_ss_kernel(rng, z, n, b, update, fixed_m, mu0, lam0, a0, b0,
                     m0x, kappa, psi, nu, n_burn, n_keep, out, n_psd):
    """Algorithm 7; writes (theta_0, theta_1, sigma^2) of kept iterations into out.

    ``update`` selects the hierarchical-normal data prior (moments from (mu_x, tau^2), updated
    by NIW conjugacy); otherwise ``fixed_m`` (E[x^k], k = 0..4) is used throughout.
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
    # initialisation as in the released code: parameters from their priors, omega^2 ~ Exp(2 b^2)
    s0 = np.zeros(k)
    a_n, b_n = _nig_update(s0, 0.0, mu0, lam0, a0, b0, mu_n, lam_n)
    sigma2 = _nig_draw(rng, mu_n, lam_n, a_n, b_n, theta)
    mu_x, tau2 = _niw_draw(rng, 0.0, 0.0, 0.0, m0x, kappa, psi, nu)
    for j in range(k):
        omega2[j] = rng.exponential(2.0 * b * b)
    total = n_burn + n_keep
    for it in range(total):
        if update:
            _gaussian_moments(mu_x, tau2, m)
        _clt_mean_cov_work(theta[0], theta[1], sigma2, m, mu_t, cov_t, poly)
        for i in range(k):
            mean[i] = n * mu_t[i]
            for j in range(k):
                v[i, j] = n * cov_t[i, j]
        if _make_psd(v, wb, wl):
            n_psd[0] += 1
        _norm_product_draw(rng, mean, v, z, omega2, s, wa, wl, ww, wv)
        if _project_statistics(s, n):
            n_psd[1] += 1
        a_n, b_n = _nig_update(s, n, mu0, lam0, a0, b0, mu_n, lam_n)
        sigma2 = _nig_draw(rng, mu_n, lam_n, a_n, b_n, theta)
        if update:
            mu_x, tau2 = _niw_draw(rng, s[0], s[1], n, m0x, kappa, psi, nu)
        for j in range(k):
            omega2[j] = _wald_precision(rng, z[j] - s[j], b)
        if it >= n_burn:
            r = it - n_burn
            out[r, 0] = theta[0]
            out[r, 1] = theta[1]
            out[r, 2] = sigma2


def clean_noisy_moments(released_sums, n: int, bounds) -> np.ndarray:
    """E[x^k], k = 1..4, from noisy sums of x^k (thesis, Gibbs-SS-Noisy).

    The noisy sums are divided by n, clipped to the range x^k can take inside the public data
    bounds, and made consistent with Jensen's inequality (E x^2 >= (E x)^2, E x^4 >= (E x^2)^2);
    remaining inconsistencies are handled by the PSD projection of n Sigma_t in the sampler.
    """
    m = np.asarray(released_sums, dtype=float) / float(n)
    if m.shape != (4,):
        raise ValueError("need the four released moment sums")
    rng_k = moment_bounds(float(bounds[0]), float(bounds[1]))
    m = np.clip(m, rng_k[:, 0], rng_k[:, 1])
    m[1] = max(m[1], m[0] ** 2)
    m[3] = max(m[3], m[1] ** 2)
    return m


def run_gibbs_ss(z, n: int, noise_scale: float, flavour: str, prior: NIGPrior, *,
                 rng: np.random.Generator, burnin: int, keep: int,
                 data_prior: NIWPrior | None = None, moments=None) -> Chain:
    """Run one Gibbs-SS chain on released statistics z (5 entries, Laplace scale noise_scale).

    ``moments`` (E[x^k], k = 1..4) is required for ``gibbs_ss_noisy``; ``data_prior`` for
    ``gibbs_ss_prior`` and ``gibbs_ss_update``. Returns draws (keep, 3) of
    (theta_0 = slope, theta_1 = intercept, sigma^2) and info (projection counts, seconds).
    """
    if flavour not in FLAVOURS:
        raise ValueError(f"unknown Gibbs-SS flavour {flavour!r}; expected one of {FLAVOURS}")
    z = np.asarray(z, dtype=float)
    if z.shape != (N_STATS,) or not np.all(np.isfinite(z)):
        raise ValueError("z must be 5 finite released statistics")
    if n < 1 or not noise_scale > 0 or burnin < 0 or keep < 1:
        raise ValueError("need n >= 1, noise_scale > 0, burnin >= 0, keep >= 1")
    if flavour == "gibbs_ss_noisy":
        if moments is None:
            raise ValueError("gibbs_ss_noisy needs the released moments")
        fixed = np.concatenate([[1.0], np.asarray(moments, dtype=float)])
    elif data_prior is None:
        raise ValueError(f"{flavour} needs a data prior")
    else:
        fixed = np.concatenate([[1.0], prior_predictive_moments(data_prior)])
    dp = data_prior if data_prior is not None else NIWPrior(0.0, 1.0, 1.0, 50.0)
    out = np.empty((int(keep), 3))
    n_psd = np.zeros(2, dtype=np.int64)
    t0 = time.process_time()
    _gibbs_ss_kernel(rng, z, float(n), float(noise_scale), flavour == "gibbs_ss_update", fixed,
                     prior.mu0, prior.lam0, prior.a0, prior.b0, dp.m0, dp.kappa, dp.psi, dp.nu,
                     int(burnin), int(keep), out, n_psd)
    cpu = time.process_time() - t0
    return Chain(out, {"cov_projections": int(n_psd[0]), "stat_projections": int(n_psd[1]),
                       "cpu_seconds": cpu, "iterations": int(burnin) + int(keep)})


# ----------------------------------------------------------------------------- test hooks
def norm_product_draw(rng, mean, cov, z, omega2) -> np.ndarray:
    """One draw of NormProduct(mean, cov, z, diag(omega2)) (exposed for tests)."""
    mean = np.asarray(mean, dtype=float)
    k = mean.shape[0]
    s = np.empty(k)
    _norm_product_draw(rng, mean, np.array(cov, dtype=float), np.asarray(z, dtype=float),
                       np.asarray(omega2, dtype=float), s, np.empty((k, k)), np.empty((k, k)),
                       np.empty((k, k)), np.empty((3, k)))
    return s


def wald_precision_draw(rng, resid: float, b: float, size: int) -> np.ndarray:
    """``size`` draws of 1/omega^2 given a residual z - s and Laplace scale b (for tests)."""
    out = np.empty(int(size))
    _wald_draws(rng, float(resid), float(b), out)
    return out
