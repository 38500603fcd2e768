"""Gibbs samplers for the noisy lognormal regression of raim2021 (numba kernels).

Algorithm 2 of the slides (``run_noisy``), one iteration:

1. y_i | -  for each i: xi^y_i = y~_i - y_i by the direct sampler with the lognormal weight
   (z = y~_i, mu = x_i'beta, s2 = sigma^2) and DGeom(rho) base; y_i = y~_i - xi^y_i > 0;
2. xi^x_i | - for each i: direct sampler with the normal weight (z = x~_i1,
   mu = (log y_i - x_i2 beta_2) / beta_1, s2 = sigma^2 / beta_1^2) and Laplace(0, lambda) base;
   x_i1 = x~_i1 - xi^x_i;
3. beta | - ~ N_2(vartheta, Omega^{-1}), Omega = X'X / sigma^2 + I / sigma_beta^2;
4. sigma^2 | - ~ IG(a + n/2, b + SSR/2).

Algorithm 4 (``run_noise_free``) runs steps 3-4 on the confidential y and X. Start values
follow the author's code: beta = 0, sigma^2 = 1, xi = 0. Every direct-sampler call builds a
fresh envelope and accepts/rejects, so each latent draw is exact.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ..models.lognormal_regression import Prior
from .direct import (B_DGEOM, B_LAPLACE, W_LOGNORMAL, W_NORMAL, Base, DirectSettings,
                     base_quantile_points, direct_draw)

__all__ = ["Chain", "run_noisy", "run_noise_free", "GIBBS"]


@dataclass
class Chain:
    """All iterations' (beta_1, beta_2, sigma^2), shape (iterations, 3), and an info record."""

    draws: np.ndarray
    info: dict = field(default_factory=dict)

    def kept(self, burnin: int) -> np.ndarray:
        return self.draws[burnin:]


@njit(cache=True)
def _y_sweep(y_noisy, X, beta, s2, rho, method, n_knots, tol, qpts, adapt, max_prop,
             lu, lh, cum, rng, log_y):
    """Step 1: every y_i by the direct sampler; returns (proposals, failures)."""
    props = 0
    fails = 0
    for i in range(y_noisy.size):
        mu = X[i, 0] * beta[0] + X[i, 1] * beta[1]
        xi, p = direct_draw(W_LOGNORMAL, y_noisy[i], mu, s2, B_DGEOM, rho, method, n_knots,
                            tol, qpts, adapt, max_prop, lu, lh, cum, rng)
        props += p
        if math.isnan(xi):
            fails += 1
            continue  # keep the previous y_i
        log_y[i] = math.log(y_noisy[i] - xi)
    return props, fails


@njit(cache=True)
def _x_sweep(x_noisy, X, log_y, beta, s2, lam, method, n_knots, tol, qpts, adapt, max_prop,
             lu, lh, cum, rng):
    """Step 2: every xi^x_i; updates column 0 of X. Returns (proposals, failures)."""
    props = 0
    fails = 0
    b1 = beta[0]
    for i in range(x_noisy.size):
        if abs(b1) < 1e-12:
            # y carries no information on x_i1: the conditional is the Laplace base itself
            xi = rng.laplace(0.0, lam)
        else:
            mu = (log_y[i] - X[i, 1] * beta[1]) / b1
            xi, p = direct_draw(W_NORMAL, x_noisy[i], mu, s2 / (b1 * b1), B_LAPLACE, lam,
                                method, n_knots, tol, qpts, adapt, max_prop, lu, lh, cum, rng)
            props += p
            if math.isnan(xi):
                fails += 1
                continue
        X[i, 0] = x_noisy[i] - xi
    return props, fails


@njit(cache=True)
def _theta_step(X, log_y, beta, s2, sb2, a_sigma, b_sigma, rng):
    """Steps 3-4: beta | - then sigma^2 | - by conjugacy (2 x 2 closed forms). Returns s2."""
    n = log_y.size
    s00 = 0.0
    s01 = 0.0
    s11 = 0.0
    r0 = 0.0
    r1 = 0.0
    for i in range(n):
        x0 = X[i, 0]
        x1 = X[i, 1]
        s00 += x0 * x0
        s01 += x0 * x1
        s11 += x1 * x1
        r0 += x0 * log_y[i]
        r1 += x1 * log_y[i]
    o00 = s00 / s2 + 1.0 / sb2
    o01 = s01 / s2
    o11 = s11 / s2 + 1.0 / sb2
    r0 /= s2
    r1 /= s2
    det = o00 * o11 - o01 * o01
    m0 = (o11 * r0 - o01 * r1) / det
    m1 = (o00 * r1 - o01 * r0) / det
    # Omega = U'U with U upper triangular; beta = m + U^{-1} Z has covariance Omega^{-1}
    u00 = math.sqrt(o00)
    u01 = o01 / u00
    u11 = math.sqrt(o11 - u01 * u01)
    z0 = rng.standard_normal()
    z1 = rng.standard_normal()
    w1 = z1 / u11
    w0 = (z0 - u01 * w1) / u00
    beta[0] = m0 + w0
    beta[1] = m1 + w1
    ssr = 0.0
    for i in range(n):
        e = log_y[i] - X[i, 0] * beta[0] - X[i, 1] * beta[1]
        ssr += e * e
    return 1.0 / rng.gamma(a_sigma + 0.5 * n, 1.0 / (b_sigma + 0.5 * ssr))


@njit(cache=True)
def _noisy_chain(y_noisy, x_noisy, X, log_y, beta, s2, rho, lam, iterations, sb2, a_sigma,
                 b_sigma, method, n_knots, tol, qpts_y, qpts_x, adapt, max_prop, lu, lh, cum,
                 rng, draws, counts):
    for t in range(iterations):
        p, f = _y_sweep(y_noisy, X, beta, s2, rho, method, n_knots, tol, qpts_y, adapt,
                        max_prop, lu, lh, cum, rng, log_y)
        counts[0] += p
        counts[1] += f
        p, f = _x_sweep(x_noisy, X, log_y, beta, s2, lam, method, n_knots, tol, qpts_x, adapt,
                        max_prop, lu, lh, cum, rng)
        counts[2] += p
        counts[3] += f
        s2 = _theta_step(X, log_y, beta, s2, sb2, a_sigma, b_sigma, rng)
        draws[t, 0] = beta[0]
        draws[t, 1] = beta[1]
        draws[t, 2] = s2


@njit(cache=True)
def _noise_free_chain(X, log_y, beta, s2, iterations, sb2, a_sigma, b_sigma, rng, draws):
    for t in range(iterations):
        s2 = _theta_step(X, log_y, beta, s2, sb2, a_sigma, b_sigma, rng)
        draws[t, 0] = beta[0]
        draws[t, 1] = beta[1]
        draws[t, 2] = s2


def _check_data(y, X):
    y = np.ascontiguousarray(y, dtype=float)
    X = np.ascontiguousarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] != y.size:
        raise ValueError(f"X must be (n, 2) with n = len(y); got {X.shape} and {y.shape}")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(X))):
        raise ValueError("data must be finite")
    return y, X


def run_noisy(y_noisy, X_noisy, rho: float, lam: float, iterations: int,
              rng: np.random.Generator, prior: Prior = Prior(),
              direct: DirectSettings = DirectSettings(), timed: bool = False) -> Chain:
    """Algorithm 2: Gibbs sampler given the noisy release (y~, X~); column 1 of X~ is noisy.

    ``timed=True`` drives the same kernels from Python one step at a time and records the
    seconds spent drawing y's, xi^x's and the rest (same draws as ``timed=False``).
    """
    y_noisy, X_noisy = _check_data(y_noisy, X_noisy)
    if not 0 < rho < 1 or not lam > 0:
        raise ValueError(f"need 0 < rho < 1 and lambda > 0, got {rho}, {lam}")
    if iterations < 1:
        raise ValueError("iterations must be positive")
    x_noisy = X_noisy[:, 0].copy()
    X = X_noisy.copy()
    log_y = np.zeros(y_noisy.size)
    beta = np.zeros(2)
    s2 = 1.0
    qy = base_quantile_points(Base("dgeom", rho), direct.levels, direct.weight_sds)
    qx = base_quantile_points(Base("laplace", lam), direct.levels, direct.weight_sds)
    cap = direct.capacity()
    lu, lh, cum = np.empty(cap), np.empty(cap), np.empty((4, cap))
    draws = np.empty((iterations, 3))
    counts = np.zeros(4, dtype=np.int64)
    sb2 = prior.sigma_beta**2
    dargs = (direct.code, direct.n_knots, direct.tol)
    t0 = time.perf_counter()
    timings = {"y": 0.0, "xi_x": 0.0, "rest": 0.0}
    if not timed:
        _noisy_chain(y_noisy, x_noisy, X, log_y, beta, s2, rho, lam, iterations, sb2,
                     prior.a_sigma, prior.b_sigma, *dargs, qy, qx, direct.adapt,
                     direct.max_proposals, lu, lh, cum, rng, draws, counts)
    else:
        for t in range(iterations):
            ta = time.perf_counter()
            p, f = _y_sweep(y_noisy, X, beta, s2, rho, *dargs, qy, direct.adapt,
                            direct.max_proposals, lu, lh, cum, rng, log_y)
            tb = time.perf_counter()
            counts[0] += p
            counts[1] += f
            p, f = _x_sweep(x_noisy, X, log_y, beta, s2, lam, *dargs, qx, direct.adapt,
                            direct.max_proposals, lu, lh, cum, rng)
            tc = time.perf_counter()
            counts[2] += p
            counts[3] += f
            s2 = _theta_step(X, log_y, beta, s2, sb2, prior.a_sigma, prior.b_sigma, rng)
            draws[t] = (beta[0], beta[1], s2)
            td = time.perf_counter()
            timings["y"] += tb - ta
            timings["xi_x"] += tc - tb
            timings["rest"] += td - tc
    seconds = time.perf_counter() - t0
    if counts[1] or counts[3]:
        raise RuntimeError(f"direct sampler failed {counts[1]} (y) / {counts[3]} (xi^x) times")
    n = y_noisy.size
    info = {
        "seconds": seconds,
        "proposals_per_y": counts[0] / (n * iterations),
        "proposals_per_xi": counts[2] / max(1, n * iterations),
    }
    if timed:
        info["timings"] = timings
    return Chain(draws, info)


def run_noise_free(y, X, iterations: int, rng: np.random.Generator,
                   prior: Prior = Prior()) -> Chain:
    """Algorithm 4: the same Gibbs sampler on the confidential y and X (steps 3-4 only)."""
    y, X = _check_data(y, X)
    if np.any(y <= 0):
        raise ValueError("y must be positive")
    draws = np.empty((iterations, 3))
    t0 = time.perf_counter()
    _noise_free_chain(X, np.log(y), np.zeros(2), 1.0, iterations, prior.sigma_beta**2,
                      prior.a_sigma, prior.b_sigma, rng, draws)
    return Chain(draws, {"seconds": time.perf_counter() - t0})


# config name -> sampler
GIBBS = {"noisy": run_noisy, "noise_free": run_noise_free}
