"""MCMC-Ind for private Bayesian linear regression with p >= 1 covariates (bernstein2020,
Sec. 5.2.3): a noise-aware sampler that instantiates every individual and targets the exact
private posterior p(theta, sigma^2, mu_x, Sigma_x, X, y | z), z = s_c + Laplace(b), s_c the K
statistics sum a_i a_j (a = [x, 1, y], :func:`~dpinfer.models.linreg_nig_multi.stat_pairs`) of
the latent records, clamped to ``release.bounds`` when ``release.clamped``. Chapter 5's
one-covariate problem is the p = 1 case (:func:`~dpinfer.models.linreg_nig_multi.as_p`).

The thesis runs PyMC3 NUTS on (X, y, theta, sigma^2, mu_x, tau^2). PyMC is not in the stack,
so this module builds the same target with the record-wise privacy-aware data-augmentation
sampler of ju2022 (Algorithm 1, Sec. 3), written for the NIG regression model with the
hierarchical normal data prior x ~ N(mu_x, Sigma_x), (mu_x, Sigma_x) ~ NIW. One sweep:

1. for each record i (systematic scan): propose it from the model, x_i' ~ N(mu_x, Sigma_x)
   (through the Cholesky factor L of Sigma_x), y_i' ~ N(theta'[x_i', 1], sigma^2); the K
   statistics change by t(a_i') - t(a_i) (additivity, O(K)); accept by the shared Metropolis
   step (``conditionals.metropolis_accept``) with the Laplace log-likelihood ratio of the release,
   (|z - s|_1 - |z - s'|_1) / b (Gaussian noise of sd sigma, ``problem.noise``: (|z - s|_2^2 -
   |z - s'|_2^2) / (2 sigma^2)). The proposal is the prior conditional of the record, so the
   ratio is the release's likelihood ratio alone;
2. a sign flip (theta, y) -> (-theta, -y), accepted with the NIG prior ratio times the release's
   likelihood ratio (every record's likelihood is unchanged): the mirror mode that sum y^2 leaves
   is otherwise never left once a chain falls into it in its first sweeps; then (theta, sigma^2)
   | X, y by NIG conjugacy (Eq. 5.1) on the unclamped records' statistics;
3. (mu_x, Sigma_x) | X by NIW conjugacy;
4. non-centred moves, ``noncentred_moves`` of each kind (the released PyMC code also used a
   non-centred parameterisation): random-walk Metropolis on (theta, log sigma^2) with
   e_i = (y_i - theta'[x_i, 1])/sigma held fixed, and jointly on mu_x and the log-Cholesky factor
   of Sigma_x (log of L's diagonal, L's off-diagonal as it is) with u_i = L^{-1}(x_i - mu_x) (and
   e_i) held fixed; the records move with the parameters and the ratio is prior x Jacobian x
   Laplace likelihood of z. Steps 1-3 alone mix very slowly when the release is weak (theta | X,
   y is tight while X, y | theta, z barely moves theta). In the log-Cholesky coordinates the NIW
   density carries the Jacobian prod_i L_ii^(p - i + 2) (i = 1..p) of Sigma = L L'. Step sizes
   come from the priors and adapt during burn-in only (Robbins-Monro towards 30% acceptance).

On a clamped release the release's likelihood in steps 1, 2 and 4 uses the statistics of the
clamped latent records (the constant stays 1), while the conjugate steps 2-3 condition on the
records themselves: the chain then targets the exact posterior of that mechanism
(tests/test_bernstein2020_ch5_clamping.py, tests/test_linreg_multi_mcmc_ind.py). One sweep
costs O(n p^2): the runtime grows with n, as for the thesis's MCMC-Ind. Without clamping a
non-centred move costs O(p^3): the moved records are a_i = A w_i with w_i = [u_i, 1, e_i] fixed,
so their statistics are the entries of A (sum_i w_i w_i') A'; with clamping each move passes
over the records.

Public function: :func:`run_mcmc_ind`, ``run(problem, rng, *, burnin, keep,
noncentred_moves=5) -> Chain`` with rows (theta_1..theta_{p+1}, sigma^2) (theta =
[beta_1, ..., beta_p, intercept]; chapter 5's (theta_0, theta_1, sigma^2)), one stored row per
sweep, burn-in first. ``Chain.info.acceptance`` is the record-move acceptance rate;
``info.detail`` (:class:`~dpinfer.samplers.base.NigChainDetail`) holds the acceptance rates of
the two non-centred moves and the number of accepted sign flips. Chains start from one draw of
the Naive posterior (conjugate updates given the projected release), records from the model
given it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..models.linreg_nig_multi import (
    NIGPrior,
    NIWPriorP,
    as_p,
    chain_target_p,
    conjugate_work,
    log_nig_p,
    log_niw_chol,
    naive_start_p,
    nig_conjugate_draw_p,
    niw_draw_p,
    noise_law,
    stat_pairs,
)
from .base import Chain, Info, NigChainDetail, check_lengths, timed
from .conditionals import metropolis_accept, robbins_monro

__all__ = ["run_mcmc_ind"]


class _Settings(NamedTuple):
    """Burn-in length (step sizes adapt within it), non-centred moves of each kind per sweep,
    the bounds [lo, hi] the released records were clamped to (-inf, inf: not clamped), and
    whether the release's noise is Gaussian (sd target.b) rather than Laplace (scale target.b)."""

    n_burn: int
    n_nc: int
    lo: float
    hi: float
    gaussian: bool


class _Latent(NamedTuple):
    """The standardised records of the non-centred moves, u (n, p) with u_i = L^{-1}(x_i - mu_x)
    and e (n) with e_i = (y_i - theta'[x_i, 1])/sigma, the release z and the noise weight
    (:func:`_misfit`), the (K, 2) statistic pairs, the clamping bounds and flag, a (q) record
    scratch and ``rel`` (n, q), the records as released (the kernel's; scratch of the clamped
    moves); without clamping also ``ww`` = sum_i w_i w_i' of w_i = [u_i, 1, e_i] (q, q) and
    (q, q) scratch ``amat``, ``tmp``: the statistics of the moved records are then A ww A'
    (O(q^3), not O(n))."""

    u: np.ndarray
    e: np.ndarray
    z: np.ndarray
    weight: float
    pairs: np.ndarray
    lo: float
    hi: float
    clamp: bool
    a: np.ndarray
    rel: np.ndarray
    ww: np.ndarray
    amat: np.ndarray
    tmp: np.ndarray


@njit(cache=True, inline="always")
def _draw_record(rng, mu, chol, theta, sd_y, w, rows, i):
    """rows[i] = [x, 1, y], one record from the model: x = mu + L w, w ~ N(0, I), then
    y ~ N(theta'[x, 1], sd_y^2). Inlined: a call per record would reference-count the
    Generator."""
    p = mu.shape[0]
    for j in range(p):
        w[j] = rng.standard_normal()
    yi = theta[p] + sd_y * rng.standard_normal()
    for j in range(p):
        acc = mu[j]
        for m in range(j + 1):
            acc += chol[j, m] * w[m]
        rows[i, j] = acc
        yi += theta[j] * acc
    rows[i, p] = 1.0
    rows[i, p + 1] = yi


@njit(cache=True, inline="always")
def _misfit(z, s, gaussian):
    """|z - s|_1, or |z - s|_2^2 if ``gaussian``: the release's log-likelihood given s is minus
    weight times it, weight = 1/b (Laplace scale b) or 1/(2 sigma^2) (Gaussian sd sigma)."""
    acc = 0.0
    if gaussian:
        for j in range(z.shape[0]):
            r = z[j] - s[j]
            acc += r * r
        return acc
    for j in range(z.shape[0]):
        acc += abs(z[j] - s[j])
    return acc


@njit(cache=True)
def _sums_into(rel, pairs, s):
    """s[k] = sum_i rel[i, a] rel[i, b] over the records, (a, b) = pairs[k]: one pass per
    statistic, the sum in a register (a pass per record would keep the K sums in memory)."""
    for k in range(pairs.shape[0]):
        ia = pairs[k, 0]
        ib = pairs[k, 1]
        acc = 0.0
        for i in range(rel.shape[0]):
            acc += rel[i, ia] * rel[i, ib]
        s[k] = acc


@njit(cache=True)
def _recompute(rows, pairs, lo, hi, sign_y, s, rel):
    """s = the statistics of all records (rows of [x, 1, y], y times sign_y), every entry but
    the constant clamped to [lo, hi] (a no-op for -inf, inf); rel (n, q) receives the records'
    entries as released."""
    q = rows.shape[1]
    for i in range(rows.shape[0]):
        for j in range(q - 2):
            rel[i, j] = min(max(rows[i, j], lo), hi)
        rel[i, q - 2] = 1.0
        rel[i, q - 1] = min(max(sign_y * rows[i, q - 1], lo), hi)
    _sums_into(rel, pairs, s)


@njit(cache=True)
def _stats_from(lat, mu, chol, theta, sigma, s):
    """Released-domain s of the records x_i = mu + L u_i, y_i = theta'[x_i, 1] + sigma e_i (the
    non-centred parameterisation of step 4; ``lat`` a :class:`_Latent`). Unclamped, a_i = A w_i
    with w_i = [u_i, 1, e_i], so s holds the entries of A (sum_i w_i w_i') A' (:func:`_gram_w`):
    O(q^3) per move instead of a pass over the records."""
    if not lat.clamp:
        _stats_from_gram(lat, mu, chol, theta, sigma, s)
        return
    u = lat.u
    e = lat.e
    rel = lat.rel
    lo = lat.lo
    hi = lat.hi
    p = mu.shape[0]
    for i in range(u.shape[0]):
        yi = theta[p] + sigma * e[i]
        for j in range(p):
            acc = mu[j]
            for m in range(j + 1):
                acc += chol[j, m] * u[i, m]
            rel[i, j] = min(max(acc, lo), hi)
            yi += theta[j] * acc
        rel[i, p] = 1.0
        rel[i, p + 1] = min(max(yi, lo), hi)
    _sums_into(rel, lat.pairs, s)


@njit(cache=True)
def _gram_w(lat):
    """lat.ww = sum_i w_i w_i' for w_i = [u_i, 1, e_i] (after the standardised records change)."""
    u = lat.u
    e = lat.e
    ww = lat.ww
    w = lat.a
    n, p = u.shape
    q = p + 2
    for i in range(q):
        for j in range(q):
            ww[i, j] = 0.0
    for r in range(n):
        for j in range(p):
            w[j] = u[r, j]
        w[p] = 1.0
        w[p + 1] = e[r]
        for i in range(q):
            for j in range(i, q):
                ww[i, j] += w[i] * w[j]
    for i in range(q):
        for j in range(i):
            ww[i, j] = ww[j, i]


@njit(cache=True)
def _stats_from_gram(lat, mu, chol, theta, sigma, s):
    """s of the unclamped records a_i = A w_i from lat.ww: A maps [u, 1, e] to [x, 1, y]
    (x = mu + L u, y = theta'[x, 1] + sigma e), and sum_i a_i a_i' = A ww A'."""
    amat = lat.amat
    tmp = lat.tmp
    ww = lat.ww
    pairs = lat.pairs
    p = mu.shape[0]
    q = p + 2
    for i in range(q):
        for j in range(q):
            amat[i, j] = 0.0
    for j in range(p):
        for m in range(j + 1):
            amat[j, m] = chol[j, m]
        amat[j, p] = mu[j]
    amat[p, p] = 1.0
    for m in range(p):
        acc = 0.0
        for j in range(m, p):
            acc += theta[j] * chol[j, m]
        amat[p + 1, m] = acc
    acc = theta[p]
    for j in range(p):
        acc += theta[j] * mu[j]
    amat[p + 1, p] = acc
    amat[p + 1, p + 1] = sigma
    for i in range(q):
        for k in range(q):
            acc = 0.0
            for m in range(q):
                acc += amat[i, m] * ww[m, k]
            tmp[i, k] = acc
    for k in range(pairs.shape[0]):
        i = pairs[k, 0]
        j = pairs[k, 1]
        acc = 0.0
        for m in range(q):
            acc += tmp[i, m] * amat[j, m]
        s[k] = acc


@njit(cache=True)
def _mcmc_ind_kernel(rng, target, settings, out, accepted):
    """MCMC-Ind for p covariates (steps 1-4 of the module docstring); row t of out is
    (theta_1, ..., theta_{p+1}, sigma^2) after sweep t, every sweep stored; step sizes adapt while
    t < n_burn.

    accepted[0] counts accepted record proposals, accepted[1] and accepted[2] the accepted
    non-centred moves on (theta, sigma^2) and (mu_x, Sigma_x) (n_nc moves of each per sweep),
    accepted[3] the accepted sign flips (one proposed per sweep). s holds the released-domain
    statistics (clamped to [settings.lo, settings.hi]) and ``raw`` the unclamped ones that the
    conjugate steps condition on. ``target`` is a
    :class:`dpinfer.models.linreg_nig_multi.ChainTargetP`, ``settings`` a :class:`_Settings`.
    """
    z = target.z
    n_f = target.n
    n = int(n_f)
    index = target.index
    prior = target.prior
    data_prior = target.data_prior
    q = index.shape[0]
    p = q - 2
    kk = z.shape[0]
    n_burn = settings.n_burn
    lo = settings.lo
    hi = settings.hi
    clamp = math.isfinite(lo) or math.isfinite(hi)
    gaussian = settings.gaussian
    weight = 0.5 / (target.b * target.b) if gaussian else 1.0 / target.b
    pairs = np.empty((kk, 2), np.int64)
    for i in range(q):
        for j in range(i, q):
            k = index[i, j]
            if k >= 0:
                pairs[k, 0] = i
                pairs[k, 1] = j
    u = np.empty((n, p))
    e = np.empty(n)
    rel = np.empty((n, q))  # the records as released
    lat = _Latent(
        u,
        e,
        z,
        weight,
        pairs,
        lo,
        hi,
        clamp,
        np.empty(q),
        rel,
        np.empty((q, q)),
        np.empty((q, q)),
        np.empty((q, q)),
    )
    cw = conjugate_work(p)
    # base step scales from the priors; log multipliers adapted during burn-in
    e_s2 = prior.b0 / (prior.a0 - 1.0)
    base_t = np.empty(p + 2)
    for j in range(p + 1):
        base_t[j] = math.sqrt(e_s2 / prior.lam0[j, j])
    base_t[p + 1] = 1.0 / math.sqrt(prior.a0)
    nu = data_prior.nu
    base_mu = np.empty(p)
    base_off = np.empty(p)
    for j in range(p):
        e_sig = data_prior.psi[j, j] / (nu - p - 1.0)
        base_mu[j] = math.sqrt(e_sig / data_prior.kappa)
        base_off[j] = math.sqrt(e_sig / nu)
    base_diag = math.sqrt(0.5 / nu)  # log L_ii; the scalar's sqrt(2/nu) on log tau^2
    log_step_t = math.log(0.5)
    log_step_m = math.log(0.5)
    theta = np.empty(p + 1)
    thn = np.empty(p + 1)
    mu = np.empty(p)
    mun = np.empty(p)
    sig = np.empty((p, p))
    chol = np.empty((p, p))
    choln = np.empty((p, p))
    minv = np.empty((p, p))
    w = np.empty(p)
    s = np.zeros(kk)
    sp = np.empty(kk)
    raw = np.empty(kk)
    rows = np.empty((n, q))
    prop = np.empty((1, q))
    a_new = np.empty(q)
    # start: parameters from one draw of the Naive posterior, records from the model given them
    sigma2 = naive_start_p(rng, z, n_f, index, prior, data_prior, theta, mu, sig, cw)
    for i in range(p):
        for j in range(p):
            chol[i, j] = cw.niw[3][i, j]
    sd_y = math.sqrt(sigma2)
    for i in range(n):
        _draw_record(rng, mu, chol, theta, sd_y, w, rows, i)
    for it in range(out.shape[0]):
        _recompute(rows, pairs, lo, hi, 1.0, s, rel)  # afresh: no round-off drift of O(K) updates
        cur = _misfit(z, s, gaussian)
        sd_y = math.sqrt(sigma2)
        # 1. record moves, proposals from the model (inline: no call per record); ``rel`` holds
        # the released (clamped) entries of every record, ``a_new`` those of the proposal
        for i in range(n):
            _draw_record(rng, mu, chol, theta, sd_y, w, prop, 0)
            for j in range(q):
                a_new[j] = prop[0, j] if j == p else min(max(prop[0, j], lo), hi)
            for k in range(kk):  # t(a') - t(a), O(K)
                u0 = pairs[k, 0]
                u1 = pairs[k, 1]
                sp[k] = s[k] + a_new[u0] * a_new[u1] - rel[i, u0] * rel[i, u1]
            new = _misfit(z, sp, gaussian)
            if metropolis_accept(rng, (cur - new) * weight):
                for j in range(q):
                    rows[i, j] = prop[0, j]
                    rel[i, j] = a_new[j]
                for k in range(kk):
                    s[k] = sp[k]
                cur = new
                accepted[0] += 1
        _recompute(rows, pairs, lo, hi, 1.0, s, rel)
        # 2. sign flip (theta, y) -> (-theta, -y): every record's likelihood is unchanged; with
        # symmetric bounds (or none) clamping commutes with it and the sums linear in y change sign
        if lo == -hi:
            for k in range(kk):
                sp[k] = -s[k] if (pairs[k, 1] == q - 1 and pairs[k, 0] != q - 1) else s[k]
        else:
            _recompute(rows, pairs, lo, hi, -1.0, sp, rel)
        for j in range(p + 1):
            thn[j] = -theta[j]
        log_r = (
            log_nig_p(thn, sigma2, prior)
            - log_nig_p(theta, sigma2, prior)
            + (_misfit(z, s, gaussian) - _misfit(z, sp, gaussian)) * weight
        )
        if metropolis_accept(rng, log_r):
            for j in range(p + 1):
                theta[j] = thn[j]
            for i in range(n):
                rows[i, p + 1] = -rows[i, p + 1]
            for k in range(kk):
                s[k] = sp[k]
            accepted[3] += 1
        # 2-3. conjugate steps, on the records themselves (unclamped)
        if clamp:
            _recompute(rows, pairs, -math.inf, math.inf, 1.0, raw, rel)
        else:
            for k in range(kk):
                raw[k] = s[k]
        sigma2 = nig_conjugate_draw_p(rng, raw, n_f, index, prior, theta, cw)
        niw_draw_p(rng, cw.g, n_f, data_prior, mu, sig, cw.niw)
        for i in range(p):
            for j in range(p):
                chol[i, j] = cw.niw[3][i, j]
        # 4. non-centred moves: records follow the parameters through fixed u_i, e_i
        sigma = math.sqrt(sigma2)
        for i in range(n):
            for j in range(p):  # u_i = L^{-1} (x_i - mu), forward substitution
                acc = rows[i, j] - mu[j]
                for m in range(j):
                    acc -= chol[j, m] * u[i, m]
                u[i, j] = acc / chol[j, j]
            r = rows[i, p + 1] - theta[p]
            for j in range(p):
                r -= theta[j] * rows[i, j]
            e[i] = r / sigma
        if not clamp:
            _gram_w(lat)
        _stats_from(lat, mu, chol, theta, sigma, s)
        cur = _misfit(z, s, gaussian)
        lp_t = log_nig_p(theta, sigma2, prior)
        lp_m = log_niw_chol(mu, chol, data_prior, minv)
        for _ in range(settings.n_nc):
            h = math.exp(log_step_t)
            for j in range(p + 1):
                thn[j] = theta[j] + h * base_t[j] * rng.standard_normal()
            s2n = sigma2 * math.exp(h * base_t[p + 1] * rng.standard_normal())
            lp_new = log_nig_p(thn, s2n, prior)
            _stats_from(lat, mu, chol, thn, math.sqrt(s2n), sp)
            new = _misfit(z, sp, gaussian)
            ok = metropolis_accept(rng, lp_new - lp_t + (cur - new) * weight)
            if ok:
                for j in range(p + 1):
                    theta[j] = thn[j]
                sigma2 = s2n
                lp_t = lp_new
                cur = new
                accepted[1] += 1
            if it < n_burn:
                log_step_t = robbins_monro(log_step_t, ok, it, 0.3)
            h = math.exp(log_step_m)
            for j in range(p):
                mun[j] = mu[j] + h * base_mu[j] * rng.standard_normal()
                for m in range(j):
                    choln[j, m] = chol[j, m] + h * base_off[j] * rng.standard_normal()
                choln[j, j] = chol[j, j] * math.exp(h * base_diag * rng.standard_normal())
                for m in range(j + 1, p):
                    choln[j, m] = 0.0
            lp_new = log_niw_chol(mun, choln, data_prior, minv)
            _stats_from(lat, mun, choln, theta, math.sqrt(sigma2), sp)
            new = _misfit(z, sp, gaussian)
            ok = metropolis_accept(rng, lp_new - lp_m + (cur - new) * weight)
            if ok:
                for j in range(p):
                    mu[j] = mun[j]
                    for m in range(p):
                        chol[j, m] = choln[j, m]
                lp_m = lp_new
                cur = new
                accepted[2] += 1
            if it < n_burn:
                log_step_m = robbins_monro(log_step_m, ok, it, 0.3)
        sigma = math.sqrt(sigma2)
        for i in range(n):
            yi = theta[p] + sigma * e[i]
            for j in range(p):
                acc = mu[j]
                for m in range(j + 1):
                    acc += chol[j, m] * u[i, m]
                rows[i, j] = acc
                yi += theta[j] * acc
            rows[i, p + 1] = yi
        for j in range(p + 1):
            out[it, j] = theta[j]
        out[it, p + 1] = sigma2


def _float_priors(prior: NIGPrior, data_prior: NIWPriorP) -> tuple[NIGPrior, NIWPriorP]:
    """The priors with float arrays and scalars (one compiled kernel for every caller)."""
    prior = NIGPrior(
        np.ascontiguousarray(prior.mu0, dtype=float),
        np.ascontiguousarray(prior.lam0, dtype=float),
        float(prior.a0),
        float(prior.b0),
    )
    data_prior = NIWPriorP(
        np.ascontiguousarray(data_prior.m0, dtype=float),
        float(data_prior.kappa),
        np.ascontiguousarray(data_prior.psi, dtype=float),
        float(data_prior.nu),
    )
    return prior, data_prior


def run_mcmc_ind(
    problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    noncentred_moves: int = 5,
) -> Chain:
    """MCMC-Ind on the full-budget release z = s_c + Laplace(b) (``release.z``,
    ``release.mechanism.scale``), or s_c + N(0, sigma^2 I) (``problem.noise`` "gaussian",
    ``release.mechanism.sigma``), of a :class:`~dpinfer.models.linreg_nig_multi.ProblemP` or
    chapter 5's :class:`~dpinfer.models.linreg_nig.Problem` (p = 1); ``noncentred_moves`` moves
    of each kind per sweep. On a clamped release (``release.clamped``) the latent records are
    clamped to ``release.bounds`` in the release's likelihood, so the chain targets the exact
    posterior of that mechanism. Rows: (theta_1, ..., theta_{p+1}, sigma^2)."""
    problem = as_p(problem)
    release, prior, data_prior = problem.release, problem.prior, problem.data_prior
    n, p = int(release.n), int(release.p)
    if p < 1 or stat_pairs(p).shape[0] != np.asarray(release.z).shape[0]:
        raise ValueError(f"release of p = {p} covariates must have n_stats(p) statistics")
    if int(noncentred_moves) < 0:
        raise ValueError("noncentred_moves must be >= 0")
    prior, data_prior = _float_priors(prior, data_prior)
    if not prior.a0 > 1.0 or not data_prior.nu > p + 1:
        raise ValueError("step sizes need a0 > 1 and nu > p + 1 (finite prior means)")
    gaussian, scale = noise_law(problem.noise, release.mechanism)
    target = chain_target_p(release.z, n, p, scale, prior, data_prior)
    burnin, keep = check_lengths(burnin, keep)
    lo, hi = (float(b) for b in release.bounds) if release.clamped else (-np.inf, np.inf)
    if not lo < hi:
        raise ValueError(f"clamping bounds must satisfy lo < hi, got ({lo}, {hi})")
    settings = _Settings(burnin, int(noncentred_moves), lo, hi, gaussian)
    sweeps = burnin + keep
    out = np.empty((sweeps, p + 2))
    acc = np.zeros(4, dtype=np.int64)
    _, seconds = timed(_mcmc_ind_kernel, rng, target, settings, out, acc)
    moves = max(sweeps * int(noncentred_moves), 1)
    info = Info(
        cpu_seconds=seconds,
        iterations=sweeps,
        acceptance=float(acc[0]) / (sweeps * n),
        detail=NigChainDetail(
            sign_flips=float(acc[3]),
            acceptance_theta=float(acc[1]) / moves,
            acceptance_data_prior=float(acc[2]) / moves,
        ),
    )
    return Chain(out, burnin, info)
