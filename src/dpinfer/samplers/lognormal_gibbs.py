"""Gibbs samplers for the noisy lognormal regression of raim2021 (numba kernels).

Algorithm 2 of the slides (``run_noisy``, registry method ``noise_aware_gibbs``), one
iteration:

1. y_i | -  for each i: xi^y_i = y~_i - y_i by the direct sampler with the lognormal weight
   (z = y~_i, mu = x_i'beta, s2 = sigma^2) and DGeom(rho) base; y_i = y~_i - xi^y_i > 0;
2. xi^x_i | - for each i: direct sampler with the normal weight (z = x~_i1,
   mu = (log y_i - x_i2 beta_2) / beta_1, s2 = sigma^2 / beta_1^2) and Laplace(0, lambda) base;
   x_i1 = x~_i1 - xi^x_i;
3. beta | - ~ N_2(vartheta, Omega^{-1}), Omega = X'X / sigma^2 + I / sigma_beta^2;
4. sigma^2 | - ~ IG(a + n/2, b + SSR/2).

Algorithm 4 (``run_noise_free``, method ``non_private``) runs steps 3-4 on the confidential y
and X. Start values follow the author's code: beta = 0, sigma^2 = 1, xi = 0. Every
direct-sampler call builds a fresh envelope and accepts/rejects, so each latent draw is exact.
The direct-sampler bases come from the release's mechanism records (:class:`ReleaseNoise`).

Both return :class:`~dpinfer.samplers.base.Chain` with draws (beta_1, beta_2, sigma^2) of all
burnin + keep iterations; ``info.cpu_seconds`` is process time. Algorithm 2 also reports
``info.detail`` (:class:`~dpinfer.samplers.base.DirectGibbsDetail`): ``proposals_per_y`` and
``proposals_per_xi`` (accept-reject proposals per latent draw) and, when ``timed``,
``cpu_seconds_y``, ``cpu_seconds_xi_x``, ``cpu_seconds_rest``;
``info.clipped``: ``direct_failures_y`` and ``direct_failures_xi_x``, direct-sampler draws that
failed (P(A_0) = 0 or ``max_proposals`` rejections; the latent then keeps its value).
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np
from numba import njit

from ..models.lognormal_regression import Prior, Problem, ReleaseNoise
from .base import Chain, CpuTimer, DirectGibbsDetail, Info, check_lengths
from .direct import (
    B_DGEOM,
    B_LAPLACE,
    W_LOGNORMAL,
    W_NORMAL,
    Base,
    DirectSettings,
    Target,
    Workspace,
    base_quantile_points,
    target_draw,
)
from .direct.borrowed import borrow, borrow_generator

__all__ = [
    "run_noisy",
    "run_noise_free",
    "y_sweep",
    "x_sweep",
    "theta_step",
    "NoisyRelease",
    "Latents",
    "ConjugatePrior",
]


class NoisyRelease(NamedTuple):
    """The release as the kernels see it: y~, x~_1 (column 0 of X~), the bases' parameters
    rho (DGeom on y) and lambda (Laplace on x_1) and their :func:`base_quantile_points`."""

    y_noisy: np.ndarray
    x_noisy: np.ndarray
    rho: float
    lam: float
    qpts_y: np.ndarray
    qpts_x: np.ndarray


class Latents(NamedTuple):
    """The chain's array state, updated in place: X (column 0 latent), log y and beta."""

    X: np.ndarray
    log_y: np.ndarray
    beta: np.ndarray


class ConjugatePrior(NamedTuple):
    """The prior as :func:`theta_step` takes it: sigma_beta^2, a_sigma, b_sigma."""

    sb2: float
    a_sigma: float
    b_sigma: float

    @classmethod
    def of(cls, prior: Prior) -> ConjugatePrior:
        """From the model's :class:`~dpinfer.models.lognormal_regression.Prior`."""
        return cls(prior.sigma_beta**2, prior.a_sigma, prior.b_sigma)


@njit(cache=True)
def y_sweep(release, state, s2, direct, ws, rng):
    """Algorithm 2, step 1 (slides "Regression model application", f(y | -)): every y_i by
    the CD sampler, lognormal weight w(y_i | x_i'beta, sigma^2) and DGeom(rho) base on
    xi^y_i = y~_i - y_i; updates state.log_y. ``direct`` is a :class:`DirectKernel`, ``ws`` a
    :class:`Workspace`. Returns (proposals, failures)."""
    y_noisy, rho, qpts = release.y_noisy, release.rho, release.qpts_y
    X, log_y, beta = state
    props = 0
    fails = 0
    qpts = borrow(qpts)  # no refcounts per draw
    ws = Workspace(borrow(ws.lu), borrow(ws.lh), borrow(ws.cum))
    rng = borrow_generator(rng)
    for i in range(y_noisy.size):
        mu = X[i, 0] * beta[0] + X[i, 1] * beta[1]
        target = Target(W_LOGNORMAL, y_noisy[i], mu, s2, B_DGEOM, rho)
        xi, p = target_draw(target, direct, qpts, ws, rng)
        props += p
        if math.isnan(xi):
            fails += 1
            continue  # keep the previous y_i
        log_y[i] = math.log(y_noisy[i] - xi)
    return props, fails


@njit(cache=True)
def x_sweep(release, state, s2, direct, ws, rng):
    """Algorithm 2, step 2 (slides, f(xi^x | -)): every xi^x_i by the CD sampler, normal
    weight w(xi^x_i | x~_i1, vartheta_i1, tau^2 = sigma^2/beta_1^2) and Laplace(0, lambda)
    base; updates column 0 of state.X. Returns (proposals, failures)."""
    x_noisy, lam, qpts = release.x_noisy, release.lam, release.qpts_x
    X, log_y, beta = state
    props = 0
    fails = 0
    b1 = beta[0]
    inv_b1 = 1.0 / b1 if abs(b1) >= 1e-12 else 0.0  # (unused below 1e-12)
    s2x = s2 * inv_b1 * inv_b1
    qpts = borrow(qpts)  # no refcounts per draw
    ws = Workspace(borrow(ws.lu), borrow(ws.lh), borrow(ws.cum))
    rng = borrow_generator(rng)
    for i in range(x_noisy.size):
        if abs(b1) < 1e-12:
            # y carries no information on x_i1: the conditional is the Laplace base itself
            xi = rng.laplace(0.0, lam)
        else:
            mu = (log_y[i] - X[i, 1] * beta[1]) * inv_b1
            target = Target(W_NORMAL, x_noisy[i], mu, s2x, B_LAPLACE, lam)
            xi, p = target_draw(target, direct, qpts, ws, rng)
            props += p
            if math.isnan(xi):
                fails += 1
                continue
        X[i, 0] = x_noisy[i] - xi
    return props, fails


@njit(cache=True)
def theta_step(X, log_y, beta, s2, sb2, a_sigma, b_sigma, rng):
    """Algorithms 2 and 4, the slides' "routine Gibbs steps": beta | - ~ N_2(vartheta,
    Omega^-1) then sigma^2 | - ~ IG(a*, b*), by conjugacy (2 x 2 closed forms). Returns s2."""
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
def _noisy_chain(release, state, s2, prior, direct, ws, rng, draws, counts):
    """Algorithm 2 of the slides, draws.shape[0] sweeps (steps 1-4); fills draws (iterations
    x 3) and adds (y proposals, y failures, xi proposals, xi failures) to counts."""
    X, log_y, beta = state
    sb2, a_sigma, b_sigma = prior
    for t in range(draws.shape[0]):
        p, f = y_sweep(release, state, s2, direct, ws, rng)
        counts[0] += p
        counts[1] += f
        p, f = x_sweep(release, state, s2, direct, ws, rng)
        counts[2] += p
        counts[3] += f
        s2 = theta_step(X, log_y, beta, s2, sb2, a_sigma, b_sigma, rng)
        draws[t, 0] = beta[0]
        draws[t, 1] = beta[1]
        draws[t, 2] = s2


@njit(cache=True)
def _noise_free_chain(state, s2, prior, rng, draws):
    """Algorithm 4 of the slides: the routine Gibbs steps on the confidential data."""
    X, log_y, beta = state
    sb2, a_sigma, b_sigma = prior
    for t in range(draws.shape[0]):
        s2 = theta_step(X, log_y, beta, s2, sb2, a_sigma, b_sigma, rng)
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


def run_noisy(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    direct: DirectSettings = DirectSettings(),
    timed: bool = False,
) -> Chain:
    """Algorithm 2: Gibbs sampler given the release (y~, X~) = (``problem.y``, ``problem.X``)
    whose noise law is ``problem.noise`` (column 1 of X~ is noisy), prior ``problem.prior``. Runs
    burnin + keep iterations.

    ``timed=True`` drives the same kernels from Python one step at a time and records the CPU
    seconds spent drawing y's, xi^x's and the rest in ``info.detail`` (same draws as
    ``timed=False``).
    """
    burnin, keep = check_lengths(burnin, keep)
    iterations = burnin + keep
    y_noisy, X_noisy = _check_data(problem.y, problem.X)
    noise, prior = problem.noise, problem.prior
    if not isinstance(noise, ReleaseNoise):
        raise TypeError("noise must be a ReleaseNoise (DoubleGeometric on y, Laplace on x_1)")
    base_y, base_x = Base.of(noise.y), Base.of(noise.x1)
    rho, lam = base_y.par, base_x.par
    qy = base_quantile_points(base_y, direct.levels, direct.weight_sds)
    qx = base_quantile_points(base_x, direct.levels, direct.weight_sds)
    rel = NoisyRelease(y_noisy, X_noisy[:, 0].copy(), rho, lam, qy, qx)
    state = Latents(X_noisy.copy(), np.zeros(y_noisy.size), np.zeros(2))
    s2 = 1.0
    ws = direct.workspace()
    kern = direct.kernel()
    cprior = ConjugatePrior.of(prior)
    draws = np.empty((iterations, 3))
    counts = np.zeros(4, dtype=np.int64)
    split = {"cpu_seconds_y": 0.0, "cpu_seconds_xi_x": 0.0, "cpu_seconds_rest": 0.0}
    with CpuTimer() as timer:
        if not timed:
            _noisy_chain(rel, state, s2, cprior, kern, ws, rng, draws, counts)
        else:
            beta = state.beta
            for t in range(iterations):
                ta = time.process_time()
                p, f = y_sweep(rel, state, s2, kern, ws, rng)
                tb = time.process_time()
                counts[0] += p
                counts[1] += f
                p, f = x_sweep(rel, state, s2, kern, ws, rng)
                tc = time.process_time()
                counts[2] += p
                counts[3] += f
                s2 = theta_step(state.X, state.log_y, beta, s2, *cprior, rng)
                draws[t] = (beta[0], beta[1], s2)
                td = time.process_time()
                split["cpu_seconds_y"] += tb - ta
                split["cpu_seconds_xi_x"] += tc - tb
                split["cpu_seconds_rest"] += td - tc
    n = y_noisy.size
    detail = DirectGibbsDetail(
        proposals_per_y=float(counts[0] / (n * iterations)),
        proposals_per_xi=float(counts[2] / max(1, n * iterations)),
        **(split if timed else {}),
    )
    info = Info(
        cpu_seconds=timer.seconds,
        iterations=iterations,
        detail=detail,
        clipped={"direct_failures_y": int(counts[1]), "direct_failures_xi_x": int(counts[3])},
    )
    return Chain(draws, burnin, info)


def run_noise_free(problem: Problem, rng: np.random.Generator, *, burnin: int, keep: int) -> Chain:
    """Algorithm 4: the same Gibbs sampler on the confidential ``problem.y`` and ``problem.X``
    (steps 3-4 only); ``problem.noise`` must be None (the data carry no noise)."""
    burnin, keep = check_lengths(burnin, keep)
    if problem.noise is not None:
        raise ValueError("run_noise_free conditions on confidential data: pass noise=None")
    y, X = _check_data(problem.y, problem.X)
    prior = problem.prior
    if np.any(y <= 0):
        raise ValueError("y must be positive")
    iterations = burnin + keep
    draws = np.empty((iterations, 3))
    with CpuTimer() as timer:
        _noise_free_chain(
            Latents(X, np.log(y), np.zeros(2)), 1.0, ConjugatePrior.of(prior), rng, draws
        )
    return Chain(draws, burnin, Info(cpu_seconds=timer.seconds, iterations=iterations))
