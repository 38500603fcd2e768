"""Gibbs-SS: the Gibbs sampler over sufficient statistics for private linear regression
(Algorithm 7 of bernstein2020, Sec. 5.2.4), in its three flavours, with an optional collapsed
Metropolis move that makes it mix at large n.

State: s = [sum x, sum x^2, sum y, sum xy, sum y^2] (n public), (theta, sigma^2), the Laplace
augmentation variances omega^2 (one per released entry) and, for the Update flavour, the
data-prior parameters (mu_x, tau^2). One iteration:

0. (``collapsed_moves`` > 0) random-walk Metropolis moves on phi = (theta, log sigma^2[, mu_x,
   log tau^2]) targeting p(phi | z, omega^2) with s integrated out,
   p(phi) N(z; n mu_t, n Sigma_t + diag(omega^2)), then one sign flip theta -> -theta (the
   mirror mode that |sum y| leaves when the release is weak). Because s is drawn fresh in step 2,
   0 + 2 is a joint update of (phi, s) given omega^2: steps 2-5 alone move theta only in tiny
   steps when n is large and the release weak (theta | s is tight, s | theta barely informed by
   z). The proposal covariance is (2.38^2/d) times the burn-in covariance of phi, its scale
   adapted towards 23.4% acceptance; both are frozen after burn-in.
1. x-moments E[x^k], k <= 4: fixed (Noisy, Prior) or those of N(mu_x, tau^2) (Update);
   mu_t, Sigma_t of t(x, y) by Eqs. (5.2)-(5.3); n Sigma_t projected to PSD if needed.
2. s ~ NormProduct(n mu_t, n Sigma_t, z, diag(omega^2)) (Laplace as a scale mixture of normals).
3. s projected so that [X, 1, y]'[X, 1, y] is PSD (Sec. 5.2.4.3).
4. (theta, sigma^2) ~ NIG posterior given s (Eq. 5.1).
5. Update flavour: (mu_x, tau^2) ~ NIW posterior given (sum x, sum x^2, n) (Fig. 5.3c).
6. 1/omega_j^2 ~ InverseGaussian(1/(b |z_j - s_j|), 1/b^2), b the Laplace scale (App. B.2).

Steps 1-6 are the released code's order; with ``collapsed_moves=0`` the sampler is Algorithm 7 as
printed. Algorithm 7's conditionals (a CLT for s | theta, the exact-model NIG for theta | s, the
projections) are not those of one joint distribution, so its stationary law is defined only by
the kernel; the collapsed move targets the CLT model that steps 2 and 6 share, and where the two
differ (small n) the chain's law lies between them (docs/deviations.md, "Convergence diagnostics
of the regression chains"). Chains start from one draw of the Naive posterior (conjugate
updates given the projected release) for (theta, sigma^2) and (mu_x, tau^2), omega^2 from its prior.

Clamped releases (``release.clamped``; not in the thesis): Gibbs-SS-Update takes the moments of
the clamped statistics (:mod:`dpinfer.samplers.clt_moments`) and leaves out steps 3-5, whose
NIG/NIW updates would treat clamped sums as the linear model's; the rest is a Metropolis-within-
Gibbs sampler of p(phi) N(s; n mu_t, n Sigma_t) Lap(z | s), so it needs ``collapsed_moves`` >= 1,
and starts from the best of the Naive draw and 20 prior draws (a Naive start deep in the prior's
tail would trap the walk). Gibbs-SS-Noisy and -Prior do not model clamping.

Flavours (Sec. 5.2.4.4), one public function each with the model's call signature
``run(problem, rng, *, burnin, keep, collapsed_moves=1, sign_flip=True)``
returning a ``Chain`` (``sign_flip=False`` leaves out the flip of step 0, e.g. where the data fix
the sign of theta):
:func:`run_gibbs_ss_noisy` (moments released with half the budget, statistics with the other
half; ``moments="exact"`` uses the confidential moments as the released code did),
:func:`run_gibbs_ss_prior` (moments of the data prior's predictive),
:func:`run_gibbs_ss_update` (hierarchical normal data prior updated every iteration).
``Chain.info.clipped`` counts the projections of n Sigma_t (``cov_projections``) and of s
(``stat_projections``) over all iterations; ``info.acceptance`` is the collapsed move's
acceptance rate and ``info.detail.sign_flips`` the accepted flips (None without moves).
:func:`dpinfer.samplers.clt_moments.clt_mean_cov` exposes the moments of step 1.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..models.linreg_nig import (
    NIGPrior,
    NIWPrior,
    Problem,
    chain_target,
    gaussian_moments_into,
    log_nig,
    log_niw,
    naive_start,
    nig_conjugate_draw,
    nig_draw,
    niw_draw,
    prior_predictive_moments,
    project_statistics_inplace,
)
from .base import Chain, Info, NigChainDetail, check_lengths, timed
from .clt_moments import MomentModel, MomentWork, clt_mean_cov_into, moments_at
from .conditionals import (
    laplace_mixture_precision,
    metropolis_accept,
    norm_product_draw,
    norm_product_work,
    robbins_monro,
)
from .linalg import cholesky_lower, make_psd

_PRIOR_STARTS = 20  # prior draws that compete with the Naive draw for the start of a clamped chain

__all__ = [
    "run_gibbs_ss_noisy",
    "run_gibbs_ss_prior",
    "run_gibbs_ss_update",
    "log_gaussian_release",
    "chain_info",
]


class _Settings(NamedTuple):
    """Burn-in length (adaptation), collapsed moves per iteration, sign flip on/off."""

    n_burn: int
    n_moves: int
    flip: bool


class _ReleaseWork(NamedTuple):
    """Scratch of :func:`log_gaussian_release`: a, l, wb (5, 5) and res (5)."""

    a: np.ndarray
    l: np.ndarray
    wb: np.ndarray
    res: np.ndarray


# ----------------------------------------------------------------------------- collapsed move
@njit(cache=True)
def log_gaussian_release(n, z, omega2, mu_t, cov_t, a, l, wb, res):
    """log N(z; n mu_t, n Sigma_t + diag(omega^2)) up to a constant (n Sigma_t made PSD as in
    step 1): the release's density with the statistics s integrated out, given the mixture
    variances omega^2. ``a``, ``l``, ``wb`` are (5, 5) work arrays, ``res`` (5) the residual."""
    k = z.shape[0]
    for i in range(k):
        for j in range(k):
            a[i, j] = n * cov_t[i, j]
    make_psd(a, wb, l)
    for i in range(k):
        a[i, i] += omega2[i]
    if not cholesky_lower(a, l):
        return -np.inf
    logdet = 0.0
    quad = 0.0
    for i in range(k):  # forward substitution L w = z - n mu_t
        acc = z[i] - n * mu_t[i]
        for j in range(i):
            acc -= l[i, j] * res[j]
        res[i] = acc / l[i, i]
        quad += res[i] * res[i]
        logdet += math.log(l[i, i])
    return -logdet - 0.5 * quad


@njit(cache=True, inline="always")
def _log_prior_phi(phi, target, update):
    """log p(phi) up to a constant: the NIG[ and NIW (``update``)] priors with the Jacobians of
    the logs."""
    lp = log_nig(phi[0], phi[1], math.exp(phi[2]), target.prior)
    if update:
        lp += log_niw(phi[3], math.exp(phi[4]), target.data_prior)
    return lp


@njit(cache=True, inline="always")
def _log_target(phi, target, model, omega2, mw, rw):
    """log p(phi | z, omega^2) up to a constant given the moments at phi in ``mw`` (a
    MomentWork) of ``model`` (a MomentModel); ``rw`` is the scratch of
    :func:`log_gaussian_release`."""
    return _log_prior_phi(phi, target, model.update) + log_gaussian_release(
        target.n, target.z, omega2, mw.mu_t, mw.cov_t, rw.a, rw.l, rw.wb, rw.res
    )


@njit(cache=True, inline="always")
def _log_collapsed(phi, target, model, omega2, mw, rw):
    """log p(phi | z, omega^2) up to a constant: the priors times the collapsed release density;
    leaves the moments at phi in ``mw`` (the kernel keeps those of the current phi apart)."""
    moments_at(phi, model, mw)
    return _log_target(phi, target, model, omega2, mw, rw)


@njit(cache=True)
def _same(a, b):
    """a == b elementwise, without allocating."""
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def _pack(phi, theta, sigma2, mu_x, tau2, update):
    """phi = (theta_0, theta_1, log sigma^2[, mu_x, log tau^2]): the collapsed move's
    coordinates."""
    phi[0] = theta[0]
    phi[1] = theta[1]
    phi[2] = math.log(sigma2)
    if update:
        phi[3] = mu_x
        phi[4] = math.log(tau2)


# ----------------------------------------------------------------------------- Algorithm 7
@njit(cache=True)
def _gibbs_ss_kernel(rng, target, model, settings, out, counts):
    """Algorithm 7 (bernstein2020, Sec. 5.2.4) plus ``n_moves`` collapsed Metropolis moves per
    iteration; row t of out is (theta_0, theta_1, sigma^2) of iteration t, every iteration stored.

    ``target`` is a :class:`dpinfer.models.linreg_nig.ChainTarget`, ``model`` a
    :class:`MomentModel`, ``settings`` a :class:`_Settings`. ``model.update`` selects the
    hierarchical normal data prior (moments of N(mu_x, tau^2), updated by NIW conjugacy and
    written into ``model.m``); otherwise ``model.m`` (E[x^k], k = 0..4) is used throughout.
    counts[0] counts projections of n Sigma_t, counts[1] projections of s, counts[2] accepted
    collapsed moves, counts[3] accepted sign flips (one proposed per iteration with the moves when
    ``settings.flip``). The collapsed move's proposal covariance and scale adapt while t < n_burn.
    """
    z = target.z
    n = target.n
    b = target.b
    update = model.update
    clamp = model.clamp
    m = model.m
    prior = target.prior
    data_prior = target.data_prior
    n_burn = settings.n_burn
    n_moves = settings.n_moves
    k = z.shape[0]
    d = 5 if update else 3
    theta = np.empty(2)
    mu_n = np.empty(2)
    lam_n = np.empty((2, 2))
    mu_t = np.empty(k)  # moments at the current phi (cur_phi), kept between evaluations
    cov_t = np.empty((k, k))
    mu_p = np.empty(k)  # moments at a proposal
    cov_p_t = np.empty((k, k))
    res = np.empty(k)
    mean = np.empty(k)
    v = np.empty((k, k))
    s = np.empty(k)
    omega2 = np.empty(k)
    npw = norm_product_work(k)  # also scratch of the release density and the proposal
    wb = np.empty((k, k))
    poly = np.empty((3, 5, 5))
    cur_work = MomentWork(mu_t, cov_t, poly)
    prop_work = MomentWork(mu_p, cov_p_t, poly)
    rw = _ReleaseWork(npw.a, npw.l, wb, res)
    phi = np.empty(d)
    cur_phi = np.empty(d)  # phi of the moments in mu_t, cov_t
    prop = np.empty(d)
    # collapsed-move proposal: h * L xi, L from the burn-in covariance of phi (Welford sums)
    chol_p = np.zeros((d, d))
    cov_p = np.empty((d, d))
    wel_mean = np.zeros(d)
    wel_m2 = np.zeros((d, d))
    wel_n = 0
    e_s2 = prior.b0 / (prior.a0 - 1.0)
    chol_p[0, 0] = math.sqrt(e_s2 / prior.lam0[0, 0])
    chol_p[1, 1] = math.sqrt(e_s2 / prior.lam0[1, 1])
    chol_p[2, 2] = 1.0 / math.sqrt(prior.a0)
    if update:
        chol_p[3, 3] = math.sqrt(data_prior.psi / (data_prior.nu - 2.0) / data_prior.kappa)
        chol_p[4, 4] = math.sqrt(2.0 / data_prior.nu)
    log_h = math.log(0.5)
    tuned = False
    # start: (theta, sigma^2) and (mu_x, tau^2) from one draw of the Naive posterior (conjugate
    # updates given the projected release; all three flavours draw (mu_x, tau^2), used by Update
    # only), omega^2 from its prior Exp(mean 2 b^2). Prior starts (the released code) can leave a
    # chain in a mode of negligible mass that no move leaves (docs/deviations.md)
    sigma2, mu_x, tau2 = naive_start(rng, z, n, prior, data_prior, mu_n, lam_n, theta)
    if clamp:
        # with no conjugate steps to leave it, a Naive start far in the prior's tail (a weak
        # release: z is mostly noise) traps the random walk; start instead from the best of the
        # Naive draw and _PRIOR_STARTS prior draws under the collapsed density, omega^2 at its
        # prior mean (any start is valid; this one only shortens the burn-in)
        for j in range(k):
            omega2[j] = 2.0 * b * b
        _pack(phi, theta, sigma2, mu_x, tau2, update)
        best = _log_collapsed(phi, target, model, omega2, prop_work, rw)
        for _ in range(_PRIOR_STARTS):
            s2_c = nig_draw(rng, prior.mu0, prior.lam0, prior.a0, prior.b0, mu_n)
            mx_c, t2_c = niw_draw(rng, 0.0, 0.0, 0.0, data_prior)
            _pack(prop, mu_n, s2_c, mx_c, t2_c, update)
            cand = _log_collapsed(prop, target, model, omega2, prop_work, rw)
            if cand > best:
                best = cand
                theta[0] = mu_n[0]
                theta[1] = mu_n[1]
                sigma2, mu_x, tau2 = s2_c, mx_c, t2_c
    for j in range(k):
        omega2[j] = rng.exponential(2.0 * b * b)
    for it in range(out.shape[0]):
        if n_moves > 0:
            # (theta, sigma^2[, mu_x, tau^2]) | z, omega^2 with s integrated out, then s is drawn
            # fresh below: together a joint draw of (parameters, s) that Gibbs steps 2-5 alone
            # make only in tiny increments when the release is weak and n large
            _pack(phi, theta, sigma2, mu_x, tau2, update)
            if it == 0 or not _same(phi, cur_phi):  # the Gibbs steps moved phi since its moments
                moments_at(phi, model, cur_work)
                cur_phi[:] = phi
            cur = _log_target(phi, target, model, omega2, cur_work, rw)
            h = math.exp(log_h)
            for mv in range(n_moves + 1):
                if mv == n_moves and not settings.flip:
                    break
                if mv < n_moves:
                    for i in range(d):
                        npw.v[0, i] = rng.standard_normal()
                    for i in range(d):
                        acc = phi[i]
                        for j in range(i + 1):
                            acc += h * chol_p[i, j] * npw.v[0, j]
                        prop[i] = acc
                else:
                    # sign flip theta -> -theta (y -> -y in the model): the posterior can have a
                    # mirror mode of negligible mass (sum y^2 fixes |theta_1|) that random-walk
                    # steps never leave
                    for i in range(d):
                        prop[i] = phi[i]
                    prop[0] = -phi[0]
                    prop[1] = -phi[1]
                new = _log_collapsed(prop, target, model, omega2, prop_work, rw)
                ok = metropolis_accept(rng, new - cur)
                if ok:
                    phi[:] = prop
                    cur_phi[:] = prop
                    mu_t[:] = mu_p
                    cov_t[:, :] = cov_p_t
                    cur = new
                    counts[2 if mv < n_moves else 3] += 1
                if mv < n_moves and it < n_burn:
                    log_h = robbins_monro(log_h, ok, it, 0.234)
            theta[0] = phi[0]
            theta[1] = phi[1]
            sigma2 = math.exp(phi[2])
            if update:
                mu_x = phi[3]
                tau2 = math.exp(phi[4])
        else:  # Algorithm 7 as printed: step 1's moments at the current parameters
            if update:
                gaussian_moments_into(mu_x, tau2, m)
            clt_mean_cov_into(theta[0], theta[1], sigma2, m, mu_t, cov_t, poly)
        for i in range(k):
            mean[i] = n * mu_t[i]
            for j in range(k):
                v[i, j] = n * cov_t[i, j]
        if make_psd(v, wb, npw.l):
            counts[0] += 1
        norm_product_draw(rng, mean, v, z, omega2, s, npw)
        if not clamp:
            # steps 3-5; clamped statistics are not sufficient statistics of the linear model, so
            # with clamping the parameters move by the collapsed moves alone (a Metropolis-within-
            # Gibbs sampler of the clamped CLT model: phi | omega^2, then s, then omega^2)
            if project_statistics_inplace(s, n):
                counts[1] += 1
            sigma2 = nig_conjugate_draw(rng, s, n, prior, mu_n, lam_n, theta)
            if update:
                mu_x, tau2 = niw_draw(rng, s[0], s[1], n, data_prior)
        for j in range(k):
            omega2[j] = 1.0 / laplace_mixture_precision(rng, z[j] - s[j], b)
        out[it, 0] = theta[0]
        out[it, 1] = theta[1]
        out[it, 2] = sigma2
        if n_moves > 0 and it < n_burn:
            # proposal covariance: (2.38^2 / d) Cov(phi) over the second half of burn-in so far
            # (Roberts & Rosenthal 2001), refreshed every 100 iterations
            if 2 * it >= n_burn or it >= 1000:
                _pack(phi, theta, sigma2, mu_x, tau2, update)
                wel_n += 1
                for i in range(d):
                    prop[i] = phi[i] - wel_mean[i]
                    wel_mean[i] += prop[i] / wel_n
                for i in range(d):
                    for j in range(d):
                        wel_m2[i, j] += prop[i] * (phi[j] - wel_mean[j])
                if wel_n >= 200 and wel_n % 100 == 0:
                    for i in range(d):
                        for j in range(d):
                            cov_p[i, j] = wel_m2[i, j] / (wel_n - 1.0) * (2.38 * 2.38 / d)
                        cov_p[i, i] += 1e-12
                    if cholesky_lower(cov_p, npw.w[:d, :d]):
                        chol_p[:, :] = npw.w[:d, :d]
                        if not tuned:  # the 2.38^2/d factor replaces the start multiplier
                            log_h = 0.0
                            tuned = True


class _Flavour(NamedTuple):
    """What a Gibbs-SS flavour conditions on: the release z of n records and its Laplace scale,
    the moments E[x^k], k = 1..4 (start values for Update), ``update`` (the hierarchical data
    prior) and ``clamp_to`` = (lo, hi), the bounds the records were clamped to before release
    (Update flavour, collapsed moves only; None: not clamped)."""

    z: np.ndarray
    n: int
    scale: float
    moments: np.ndarray
    update: bool
    clamp_to: tuple | None = None


def _run(
    flavour: _Flavour,
    prior: NIGPrior,
    data_prior: NIWPrior,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    collapsed_moves: int = 1,
    sign_flip: bool = True,
) -> Chain:
    """Validate, allocate and run one chain of ``flavour``."""
    z, n, scale, moments, update, clamp_to = flavour
    if clamp_to is not None and int(collapsed_moves) < 1:
        raise ValueError(
            "a clamped release needs collapsed_moves >= 1 (its parameters move by them alone)"
        )
    lo, hi = (-np.inf, np.inf) if clamp_to is None else (float(clamp_to[0]), float(clamp_to[1]))
    target = chain_target(z, n, scale, prior, data_prior)
    burnin, keep = check_lengths(burnin, keep)
    if int(collapsed_moves) < 0:
        raise ValueError(f"collapsed_moves must be >= 0, got {collapsed_moves}")
    fixed = np.concatenate([[1.0], np.asarray(moments, dtype=float)])  # overwritten by Update
    model = MomentModel(update, clamp_to is not None, lo, hi, fixed)
    settings = _Settings(burnin, int(collapsed_moves), bool(sign_flip))
    iterations = burnin + keep
    out = np.empty((iterations, 3))
    counts = np.zeros(4, dtype=np.int64)
    _, seconds = timed(_gibbs_ss_kernel, rng, target, model, settings, out, counts)
    return Chain(out, burnin, chain_info(seconds, iterations, collapsed_moves, sign_flip, counts))


def chain_info(seconds, iterations: int, collapsed_moves: int, sign_flip: bool, counts) -> Info:
    """The Info of a Gibbs-SS chain (any number of covariates) from its kernel's counts:
    projections of n Sigma_t and of s, accepted collapsed moves and sign flips."""
    moves = iterations * int(collapsed_moves)
    return Info(
        cpu_seconds=seconds,
        iterations=iterations,
        acceptance=float(counts[2]) / moves if moves else None,
        clipped={"cov_projections": int(counts[0]), "stat_projections": int(counts[1])},
        detail=NigChainDetail(sign_flips=float(counts[3]) if moves and sign_flip else None),
    )


def run_gibbs_ss_noisy(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    collapsed_moves: int = 1,
    sign_flip: bool = True,
    moments: str = "released",
) -> Chain:
    """Gibbs-SS-Noisy: statistics released at epsilon/2 (``release.z_half``); moments E[x^k] from
    the sums of x^k released at epsilon/2 (``moments="released"``, the thesis) or the confidential
    ones (``moments="exact"``, what the released code fed the sampler; not private). ``data_prior``
    only sets the unused start of (mu_x, tau^2). ``collapsed_moves`` and ``sign_flip`` as in
    :func:`run_gibbs_ss_update`."""
    release, prior, data_prior = problem.release, problem.prior, problem.data_prior
    if moments == "released":
        m = release.noisy_moments()
    elif moments == "exact":
        m = release.exact_moment_sums / release.n
    else:
        raise ValueError(f"moments must be 'released' or 'exact', got {moments!r}")
    flavour = _Flavour(release.z_half, release.n, release.mechanism_half.scale, m, False)
    moves = {"collapsed_moves": collapsed_moves, "sign_flip": sign_flip}
    return _run(flavour, prior, data_prior, rng, burnin=burnin, keep=keep, **moves)


def run_gibbs_ss_prior(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    collapsed_moves: int = 1,
    sign_flip: bool = True,
) -> Chain:
    """Gibbs-SS-Prior: Gibbs-SS-Update without the update, the moments E[x^k] fixed at the data
    prior's predictive ones (closed form), full-budget z; ``collapsed_moves`` and ``sign_flip`` as
    in :func:`run_gibbs_ss_update`."""
    release, prior, data_prior = problem.release, problem.prior, problem.data_prior
    m = prior_predictive_moments(data_prior)
    flavour = _Flavour(release.z, release.n, release.mechanism.scale, m, False)
    moves = {"collapsed_moves": collapsed_moves, "sign_flip": sign_flip}
    return _run(flavour, prior, data_prior, rng, burnin=burnin, keep=keep, **moves)


def run_gibbs_ss_update(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    collapsed_moves: int = 1,
    sign_flip: bool = True,
) -> Chain:
    """Gibbs-SS-Update: hierarchical normal data prior, (mu_x, tau^2) updated every iteration.
    On a clamped release (``release.clamped``) the CLT is that of the clamped statistics
    (:mod:`dpinfer.samplers.clt_moments`) and steps 3-5 are left out (module docstring)."""
    release, prior, data_prior = problem.release, problem.prior, problem.data_prior
    m = prior_predictive_moments(data_prior)
    clamp_to = release.bounds if release.clamped else None
    flavour = _Flavour(release.z, release.n, release.mechanism.scale, m, True, clamp_to)
    moves = {"collapsed_moves": collapsed_moves, "sign_flip": sign_flip}
    return _run(flavour, prior, data_prior, rng, burnin=burnin, keep=keep, **moves)
