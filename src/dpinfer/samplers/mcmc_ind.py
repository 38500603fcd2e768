"""MCMC-Ind for private Bayesian linear regression (bernstein2020, Sec. 5.2.3): a noise-aware
sampler that instantiates every individual and targets the exact private posterior.

The thesis runs PyMC3 NUTS on (X, y, theta, sigma^2, mu_x, tau^2). PyMC is not in the stack,
so this module builds the same target with the record-wise privacy-aware data-augmentation
sampler of ju2022 (Algorithm 1, Sec. 3), written here for the NIG regression model with the
hierarchical normal data prior x ~ N(mu_x, tau^2), (mu_x, tau^2) ~ NIW:

1. for each record i (systematic scan): propose (x_i', y_i') from the model,
   x_i' ~ N(mu_x, tau^2), y_i' ~ N(theta_0 x_i' + theta_1, sigma^2); the statistics change by
   t(x_i', y_i') - t(x_i, y_i) (additivity, O(1)); accept by the shared Metropolis step
   (``conditionals.metropolis_accept``) with the Laplace log-likelihood ratio of the released z,
   (|z - s|_1 - |z - s'|_1) / b, b the mechanism's scale;
2. a sign flip (theta, y) -> (-theta, -y), accepted with the prior of theta times the release's
   likelihood (every record's likelihood is unchanged): the mirror mode that sum y^2 leaves is
   otherwise never left once a chain falls into it in its first sweeps;
   then (theta, sigma^2) | X, y by NIG conjugacy (Eq. 5.1);
3. (mu_x, tau^2) | X by NIW conjugacy;
4. non-centred moves (the released PyMC code also used a non-centred parameterisation):
   random-walk Metropolis on (theta, log sigma^2) with the standardised residuals
   e_i = (y_i - theta'x_i)/sigma held fixed, and on (mu_x, log tau^2) with
   u_i = (x_i - mu_x)/tau (and e_i) held fixed; the records move with the parameters and the
   ratio is prior x Jacobian x Laplace likelihood of z. Steps 1-3 alone mix very slowly when
   the release is weak (theta | X, y is tight while X, y | theta, z barely moves theta); the
   non-centred moves fix that without changing the target. Step sizes adapt during burn-in
   only (Robbins-Monro towards 30% acceptance); the accept step is the same shared one.

The proposal is the prior conditional of the record, so the Metropolis-Hastings ratio is the
likelihood ratio of the release alone and the chain leaves p(X, y, theta, sigma^2, mu_x, tau^2 | z)
invariant. One sweep costs O(n): the runtime grows with n, as for the thesis's MCMC-Ind.

On a clamped release (records clamped to the bounds before release; ``release.clamped``) the
release's likelihood in steps 1, 2 and 4 uses the statistics of the clamped latent records,
while the conjugate steps 2-3 condition on the records themselves: the chain then targets the
exact posterior of that mechanism (tests/test_bernstein2020_ch5_clamping.py).

Public function: :func:`run_mcmc_ind`, with the model's call signature
``run(problem, rng, *, burnin, keep) -> Chain`` (one stored row per sweep).
``Chain.info.acceptance`` is the record-move acceptance rate; ``info.detail``
(:class:`~dpinfer.samplers.base.NigChainDetail`) holds the acceptance rates of the two
non-centred moves and the number of accepted sign flips. Chains
start from one draw of the Naive posterior (conjugate updates given the projected release),
records from the model given it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..models.linreg_nig import (
    Problem,
    chain_target,
    log_nig,
    log_niw,
    naive_start,
    nig_conjugate_draw,
    niw_draw,
)
from .base import Chain, Info, NigChainDetail, check_lengths, timed
from .conditionals import metropolis_accept, robbins_monro

__all__ = ["run_mcmc_ind", "chain_info"]


class _Settings(NamedTuple):
    """Burn-in length (step sizes adapt within it) and non-centred moves of each kind per sweep."""

    n_burn: int
    n_nc: int


class _Latent(NamedTuple):
    """The standardised records of the non-centred moves, u_i = (x_i - mu_x)/tau and
    e_i = (y_i - theta'x_i)/sigma, the bounds [lo, hi] the released records are clamped to, the
    release z and 1/b, b its Laplace scale."""

    u: np.ndarray
    e: np.ndarray
    lo: float
    hi: float
    z: np.ndarray
    inv_b: float


@njit(cache=True)
def _l1(z, s):
    """|z - s|_1: minus b times the Laplace log-likelihood of the release z given s."""
    acc = 0.0
    for j in range(z.shape[0]):
        acc += abs(z[j] - s[j])
    return acc


@njit(cache=True)
def _add_record(s, x, y, lo, hi, sign):
    """s += sign * t(clamp(x), clamp(y)) (no clamping when lo, hi = -inf, inf)."""
    cx = min(max(x, lo), hi)
    cy = min(max(y, lo), hi)
    s[0] += sign * cx
    s[1] += sign * cx * cx
    s[2] += sign * cy
    s[3] += sign * cx * cy
    s[4] += sign * cy * cy


@njit(cache=True, inline="always")
def _draw_record(rng, mu_x, sd_x, theta0, theta1, sd_y):
    """One record from the model: x ~ N(mu_x, sd_x^2), then y ~ N(theta0 x + theta1, sd_y^2).
    Inlined: a call would reference-count the Generator per record (about 10% of a chain)."""
    x = mu_x + sd_x * rng.standard_normal()
    return x, theta0 * x + theta1 + sd_y * rng.standard_normal()


@njit(cache=True)
def _stats_from(lat, mu_x, tau, theta0, theta1, sigma, s):
    """Released-domain s of the records x_i = mu_x + tau u_i, y_i = theta0 x_i + theta1 + sigma e_i
    (the non-centred parameterisation of step 4), clamped to [lo, hi] (``lat`` a _Latent)."""
    u = lat.u
    e = lat.e
    lo = lat.lo
    hi = lat.hi
    for j in range(5):
        s[j] = 0.0
    for i in range(u.shape[0]):
        xi = mu_x + tau * u[i]
        _add_record(s, xi, theta0 * xi + theta1 + sigma * e[i], lo, hi, 1.0)


@njit(cache=True, inline="always")
def _nc_accept(rng, log_prior_ratio, lat, cur, params, sp):
    """Metropolis step of one non-centred move: sp = the statistics of the records at the
    proposed ``params`` = (mu_x, tau, theta0, theta1, sigma), accepted with the prior ratio times
    the Laplace likelihood ratio of lat.z (``cur`` = |z - s|_1 now).
    Returns (accepted, |z - sp|_1)."""
    _stats_from(lat, params[0], params[1], params[2], params[3], params[4], sp)
    new = _l1(lat.z, sp)
    return metropolis_accept(rng, log_prior_ratio + (cur - new) * lat.inv_b), new


@njit(cache=True)
def _recompute(x, y, lo, hi, sign_y, s):
    """s = [sum x, sum x^2, sum y, sum xy, sum y^2] of the records (x_i, sign_y * y_i), clamped
    to [lo, hi]."""
    for j in range(5):
        s[j] = 0.0
    for i in range(x.shape[0]):
        _add_record(s, x[i], sign_y * y[i], lo, hi, 1.0)


@njit(cache=True)
def _mcmc_ind_kernel(rng, target, bounds, settings, out, accepted):
    """MCMC-Ind (bernstein2020, Sec. 5.2.3) as Algorithm 1 of ju2022 for the NIG regression model
    plus non-centred moves (steps 1-4 of the module docstring); row t of out is
    (theta_0, theta_1, sigma^2) after sweep t, every sweep stored; step sizes adapt while
    t < n_burn.

    accepted[0] counts accepted record proposals, accepted[1] and accepted[2] the accepted
    non-centred moves on (theta, sigma^2) and (mu_x, tau^2) (n_nc moves of each per sweep),
    accepted[3] the accepted sign flips (one proposed per sweep). The release is of records
    clamped to [lo, hi] (lo, hi = -inf, inf: no clamping); s holds those released-domain
    statistics and ``raw`` the unclamped ones that the conjugate steps condition on.
    ``target`` is a :class:`dpinfer.models.linreg_nig.ChainTarget`, ``bounds`` = (lo, hi),
    ``settings`` a :class:`_Settings`.
    """
    z = target.z
    n = int(target.n)
    b = target.b
    lo, hi = bounds
    prior = target.prior
    data_prior = target.data_prior
    n_burn = settings.n_burn
    clamp = math.isfinite(lo) or math.isfinite(hi)
    raw = np.empty(5)
    u = np.empty(n)
    e = np.empty(n)
    inv_b = 1.0 / b
    lat = _Latent(u, e, lo, hi, z, inv_b)
    # base step scales from the priors; log multipliers adapted during burn-in
    base_t = np.empty(3)
    e_s2 = prior.b0 / (prior.a0 - 1.0)
    base_t[0] = math.sqrt(e_s2 / prior.lam0[0, 0])
    base_t[1] = math.sqrt(e_s2 / prior.lam0[1, 1])
    base_t[2] = 1.0 / math.sqrt(prior.a0)
    base_m0 = math.sqrt(data_prior.psi / (data_prior.nu - 2.0) / data_prior.kappa)
    base_m1 = math.sqrt(2.0 / data_prior.nu)
    log_step_t = math.log(0.5)
    log_step_m = math.log(0.5)
    theta = np.empty(2)
    mu_n = np.empty(2)
    lam_n = np.empty((2, 2))
    s = np.zeros(5)
    sp = np.empty(5)
    # start: parameters from one draw of the Naive posterior (conjugate updates given the
    # projected release, as Gibbs-SS), records from the model given them
    sigma2, mu_x, tau2 = naive_start(rng, z, float(n), prior, data_prior, mu_n, lam_n, theta)
    x = np.empty(n)
    y = np.empty(n)
    sd_x = math.sqrt(tau2)
    sd_y = math.sqrt(sigma2)
    for i in range(n):
        x[i], y[i] = _draw_record(rng, mu_x, sd_x, theta[0], theta[1], sd_y)
    for it in range(out.shape[0]):
        _recompute(
            x, y, lo, hi, 1.0, s
        )  # removes round-off drift of the O(1) updates once per sweep
        cur = _l1(z, s)
        sd_x = math.sqrt(tau2)
        sd_y = math.sqrt(sigma2)
        for i in range(n):
            xn, yn = _draw_record(rng, mu_x, sd_x, theta[0], theta[1], sd_y)
            xo = x[i]
            yo = y[i]
            for j in range(5):
                sp[j] = s[j]
            _add_record(sp, xn, yn, lo, hi, 1.0)
            _add_record(sp, xo, yo, lo, hi, -1.0)
            new = _l1(z, sp)
            if metropolis_accept(rng, (cur - new) * inv_b):
                x[i] = xn
                y[i] = yn
                for j in range(5):
                    s[j] = sp[j]
                cur = new
                accepted[0] += 1
        _recompute(x, y, lo, hi, 1.0, s)
        # sign flip (theta, y) -> (-theta, -y): leaves every record's likelihood unchanged, so the
        # ratio is the prior of theta times the release's; reaches a mirror mode that the other
        # moves cannot cross (sum y^2 fixes |theta_1|)
        if (
            lo == -hi
        ):  # symmetric bounds (or none): clamp(-y) = -clamp(y), the flip negates sums of y
            for j in range(5):
                sp[j] = s[j]
            sp[2] = -s[2]
            sp[3] = -s[3]
        else:
            _recompute(x, y, lo, hi, -1.0, sp)
        log_r = (
            log_nig(-theta[0], -theta[1], sigma2, prior)
            - log_nig(theta[0], theta[1], sigma2, prior)
            + (_l1(z, s) - _l1(z, sp)) * inv_b
        )
        if metropolis_accept(rng, log_r):
            theta[0] = -theta[0]
            theta[1] = -theta[1]
            for i in range(n):
                y[i] = -y[i]
            for j in range(5):
                s[j] = sp[j]
            accepted[3] += 1
        if clamp:  # the conjugate steps condition on the records themselves
            _recompute(x, y, -math.inf, math.inf, 1.0, raw)
        else:
            for j in range(5):
                raw[j] = s[j]
        sigma2 = nig_conjugate_draw(rng, raw, float(n), prior, mu_n, lam_n, theta)
        mu_x, tau2 = niw_draw(rng, raw[0], raw[1], float(n), data_prior)
        # non-centred moves: records follow the parameters through fixed u_i, e_i
        tau = math.sqrt(tau2)
        sigma = math.sqrt(sigma2)
        for i in range(n):
            u[i] = (x[i] - mu_x) / tau
            e[i] = (y[i] - theta[0] * x[i] - theta[1]) / sigma
        _stats_from(lat, mu_x, tau, theta[0], theta[1], sigma, s)
        cur = _l1(z, s)
        for _ in range(settings.n_nc):
            h = math.exp(log_step_t)
            t0n = theta[0] + h * base_t[0] * rng.standard_normal()
            t1n = theta[1] + h * base_t[1] * rng.standard_normal()
            s2n = sigma2 * math.exp(h * base_t[2] * rng.standard_normal())
            lpr = log_nig(t0n, t1n, s2n, prior) - log_nig(theta[0], theta[1], sigma2, prior)
            ok, new = _nc_accept(rng, lpr, lat, cur, (mu_x, tau, t0n, t1n, math.sqrt(s2n)), sp)
            if ok:
                theta[0] = t0n
                theta[1] = t1n
                sigma2 = s2n
                cur = new
                accepted[1] += 1
            if it < n_burn:
                log_step_t = robbins_monro(log_step_t, ok, it, 0.3)
            h = math.exp(log_step_m)
            mun = mu_x + h * base_m0 * rng.standard_normal()
            t2n = tau2 * math.exp(h * base_m1 * rng.standard_normal())
            lpr = log_niw(mun, t2n, data_prior) - log_niw(mu_x, tau2, data_prior)
            params = (mun, math.sqrt(t2n), theta[0], theta[1], math.sqrt(sigma2))
            ok, new = _nc_accept(rng, lpr, lat, cur, params, sp)
            if ok:
                mu_x, tau2, cur = mun, t2n, new
                accepted[2] += 1
            if it < n_burn:
                log_step_m = robbins_monro(log_step_m, ok, it, 0.3)
        tau = math.sqrt(tau2)
        sigma = math.sqrt(sigma2)
        for i in range(n):
            x[i] = mu_x + tau * u[i]
            y[i] = theta[0] * x[i] + theta[1] + sigma * e[i]
        out[it, 0] = theta[0]
        out[it, 1] = theta[1]
        out[it, 2] = sigma2


def run_mcmc_ind(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    noncentred_moves: int = 5,
) -> Chain:
    """MCMC-Ind on the full-budget release z = s + Laplace(b) (``release.z``,
    ``release.mechanism.scale``); ``noncentred_moves`` moves of each kind per sweep. On a
    clamped release (``release.clamped``) the latent records are clamped to ``release.bounds``
    in the release's likelihood, so the chain targets the exact posterior of that mechanism."""
    release, prior, data_prior = problem.release, problem.prior, problem.data_prior
    lo, hi = (
        (float(release.bounds[0]), float(release.bounds[1]))
        if release.clamped
        else (-np.inf, np.inf)
    )
    n = int(release.n)
    target = chain_target(release.z, n, release.mechanism.scale, prior, data_prior)
    burnin, keep = check_lengths(burnin, keep)
    settings = _Settings(burnin, int(noncentred_moves))
    sweeps = burnin + keep
    out = np.empty((sweeps, 3))
    acc = np.zeros(4, dtype=np.int64)
    _, seconds = timed(_mcmc_ind_kernel, rng, target, (lo, hi), settings, out, acc)
    return Chain(out, burnin, chain_info(seconds, sweeps, n, noncentred_moves, acc))


def chain_info(seconds, sweeps: int, n: int, noncentred_moves: int, accepted) -> Info:
    """The Info of an MCMC-Ind chain (any number of covariates) from its kernel's counts:
    accepted record proposals, non-centred moves of each kind and sign flips."""
    moves = max(sweeps * int(noncentred_moves), 1)
    return Info(
        cpu_seconds=seconds,
        iterations=sweeps,
        acceptance=float(accepted[0]) / (sweeps * n),
        detail=NigChainDetail(
            sign_flips=float(accepted[3]),
            acceptance_theta=float(accepted[1]) / moves,
            acceptance_data_prior=float(accepted[2]) / moves,
        ),
    )
