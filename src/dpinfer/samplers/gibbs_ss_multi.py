"""Gibbs-SS for Bayesian linear regression with p >= 1 covariates (Algorithm 7 of bernstein2020,
Sec. 5.2.4, in the p dimensions it is written for), with the optional collapsed Metropolis move
of :mod:`dpinfer.samplers.gibbs_ss` (its one-covariate version, whose docstring this follows).

Model and statistics are those of :mod:`dpinfer.models.linreg_nig_multi`: records
a = [x_1, ..., x_p, 1, y], s the K = n_stats(p) distinct entries of A'A other than n (public),
theta = [beta_1, ..., beta_p, intercept]. State: s, (theta, sigma^2), the Laplace augmentation
variances omega^2 (one per released entry) and, for the Update flavour, the data-prior
parameters (mu_x, Sigma_x). One iteration:

0. (``collapsed_moves`` > 0) random-walk Metropolis moves on phi = (theta, log sigma^2[, mu_x,
   the log-Cholesky entries of Sigma_x]) targeting p(phi | z, omega^2) with s integrated out,
   p(phi) N(z; n mu_t, n Sigma_t + diag(omega^2)) (:func:`dpinfer.samplers.gibbs_ss.
   log_gaussian_release`), then one sign flip theta -> -theta (``sign_flip``). With step 2 this
   is a joint update of (phi, s) given omega^2. Sigma_x = L L' with L lower triangular, its
   diagonal on the log scale and the entries below it as they are, row by row; the NIW prior in
   these coordinates carries the Jacobian prod_i L_ii^(p - i + 2), i = 1..p
   (:func:`~dpinfer.models.linreg_nig_multi.log_niw_chol`; at p = 1 chapter 5's log_niw up to a
   constant). The proposal covariance is (2.38^2/d) times the burn-in covariance of phi (d its
   dimension), its scale adapted towards 23.4% acceptance; both are frozen after burn-in.
1. The raw fourth-moment tensor of [x, 1]: fixed at the data prior's predictive (Prior) or at
   the released moments of x (Noisy), or that of N(mu_x, Sigma_x) (Update); mu_t, Sigma_t of
   t(a) = vech(a a') from it (:func:`dpinfer.samplers.clt_moments_multi.clt_moments_into`);
   n Sigma_t projected to PSD if needed.
2. s ~ NormProduct(n mu_t, n Sigma_t, z, diag(omega^2)) (Laplace as a scale mixture of normals).
3. s projected so that A'A is PSD (Sec. 5.2.4.3, :func:`~dpinfer.models.linreg_nig_multi.
   project_into`).
4. (theta, sigma^2) ~ NIG posterior given s (Eq. 5.1).
5. Update flavour: (mu_x, Sigma_x) ~ NIW posterior given the covariate sums in s (Fig. 5.3c).
6. 1/omega_j^2 ~ InverseGaussian(1/(b |z_j - s_j|), 1/b^2), b the Laplace scale (App. B.2).

With ``collapsed_moves=0`` the sampler is Algorithm 7 as printed. As in one dimension, the
conditionals (a CLT for s | theta, the exact-model NIG for theta | s, the projections) are not
those of one joint distribution; the chain's law is defined by the kernel
(docs/deviations.md, "Convergence diagnostics of the regression chains"). Chains start from one
draw of the Naive posterior (:func:`~dpinfer.models.linreg_nig_multi.naive_start_p`) for
(theta, sigma^2) and (mu_x, Sigma_x), omega^2 from its prior Exp(mean 2 b^2).

Clamped releases (``release.clamped``) are not modelled: both flavours treat z as the Laplace
release of the unclamped records' statistics, as the one-covariate Noisy and Prior flavours do
(the clamped CLT of :mod:`dpinfer.samplers.clt_moments` exists for p = 1 only).

Flavours, one public function each with the model's call signature
``run(problem, rng, *, burnin, keep, collapsed_moves=1, sign_flip=True)``
returning a ``Chain`` of rows (theta_0, ..., theta_p, sigma^2), every iteration stored, burn-in
first: :func:`run_gibbs_ss_prior_p` (tensor of the data prior's predictive, closed form) and
:func:`run_gibbs_ss_update_p` (hierarchical normal data prior updated every iteration), both on
the full-budget release ``release.z``, and :func:`run_gibbs_ss_noisy_p` (tensor of the moment
sums released at half the budget, statistics at the other half). ``Chain.info.clipped`` counts
the projections of n Sigma_t (``cov_projections``) and of s (``stat_projections``) over all
iterations;
``info.acceptance`` is the collapsed move's acceptance rate and ``info.detail.sign_flips`` the
accepted flips (None without moves).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..models.linreg_nig_multi import (
    NIGPrior,
    NIWPriorP,
    ProblemP,
    ReleaseP,
    chain_target_p,
    conjugate_work,
    log_nig_p,
    log_niw_chol,
    naive_start_p,
    nig_conjugate_draw_p,
    niw_draw_p,
    project_into,
    stat_pairs,
)
from .base import Chain, check_lengths, timed
from .clt_moments_multi import (
    clt_moments_into,
    gaussian_tensor_into,
    noisy_tensor,
    predictive_tensor,
)
from .conditionals import (
    laplace_mixture_precision,
    metropolis_accept,
    norm_product_draw,
    norm_product_work,
    robbins_monro,
)
from .gibbs_ss import chain_info, log_gaussian_release
from .linalg import cholesky_lower, make_psd

__all__ = [
    "run_gibbs_ss_prior_p",
    "run_gibbs_ss_noisy_p",
    "run_gibbs_ss_update_p",
    "phi_dimension",
]


class _Settings(NamedTuple):
    """Burn-in length (adaptation), collapsed moves per iteration, sign flip on/off, Update
    flavour on/off."""

    n_burn: int
    n_moves: int
    flip: bool
    update: bool


def phi_dimension(p: int, update: bool) -> int:
    """Dimension d of the collapsed move's phi: p + 2 (theta, log sigma^2), plus p + p (p + 1)/2
    (mu_x and the log-Cholesky entries of Sigma_x) for the Update flavour."""
    p = int(p)
    return p + 2 + (p + p * (p + 1) // 2 if update else 0)


# ----------------------------------------------------------------------------- priors of phi
@njit(cache=True)
def _log_prior_phi(phi, p, target, update, mu_w, l_w, linv):
    """log p(phi) up to a constant: the NIG prior with the Jacobian of log sigma^2[, the NIW
    prior in log-Cholesky coordinates (``update``)]; ``mu_w``, ``l_w``, ``linv`` scratch."""
    lp = log_nig_p(phi[: p + 1], math.exp(phi[p + 1]), target.prior)
    if update:
        _unpack_data(phi, p, mu_w, l_w)
        lp += log_niw_chol(mu_w, l_w, target.data_prior, linv)
    return lp


# ----------------------------------------------------------------------------- phi <-> state
@njit(cache=True)
def _pack(phi, p, theta, sigma2, mu_x, lchol, update):
    """phi = (theta, log sigma^2[, mu_x, log-Cholesky entries of Sigma_x row by row])."""
    for i in range(p + 1):
        phi[i] = theta[i]
    phi[p + 1] = math.log(sigma2)
    if update:
        m = p + 2
        for i in range(p):
            phi[m + i] = mu_x[i]
        m += p
        for i in range(p):
            for j in range(i + 1):
                phi[m] = math.log(lchol[i, i]) if i == j else lchol[i, j]
                m += 1


@njit(cache=True)
def _unpack_data(phi, p, mu_x, lchol):
    """(mu_x, L) from the Update part of phi (L's upper triangle zeroed)."""
    m = p + 2
    for i in range(p):
        mu_x[i] = phi[m + i]
    m += p
    for i in range(p):
        for j in range(p):
            if j <= i:
                lchol[i, j] = math.exp(phi[m]) if i == j else phi[m]
                m += 1
            else:
                lchol[i, j] = 0.0


@njit(cache=True)
def _outer_into(l, sigma):
    """sigma = L L'."""
    p = l.shape[0]
    for i in range(p):
        for j in range(i + 1):
            acc = 0.0
            for k in range(j + 1):
                acc += l[i, k] * l[j, k]
            sigma[i, j] = acc
            sigma[j, i] = acc


class _MomentWork(NamedTuple):
    """Scratch of the CLT moments: the tensor t4 ((p + 1)^4; the Prior flavour's fixed one), w4
    and e4 (q^4), mu_x (p), L and Sigma_x (p, p), pairs (K, 2) of stat_pairs(p)."""

    t4: np.ndarray
    w4: np.ndarray
    e4: np.ndarray
    mu_x: np.ndarray
    lchol: np.ndarray
    sigma_x: np.ndarray
    pairs: np.ndarray


@njit(cache=True)
def _moments_at(phi, p, update, mw, mu_t, cov_t):
    """mu_t, Sigma_t of one record's statistics at phi (Update: t4 of N(mu_x, L L'))."""
    if update:
        _unpack_data(phi, p, mw.mu_x, mw.lchol)
        _outer_into(mw.lchol, mw.sigma_x)
        gaussian_tensor_into(mw.mu_x, mw.sigma_x, mw.t4)
    clt_moments_into(phi[: p + 1], math.exp(phi[p + 1]), mw.t4, mw.pairs, mu_t, cov_t, mw.w4, mw.e4)


@njit(cache=True)
def _finite_moments(phi, p, update, mw, mu_t, cov_t):
    """The moments at phi (:func:`_moments_at`) when phi and they are finite; False (moments not
    usable) when a random-walk step has gone so far that they overflow."""
    for i in range(phi.shape[0]):
        if not abs(phi[i]) < 700.0:  # exp(log sigma^2) and exp(log L_ii) stay finite
            return False
    _moments_at(phi, p, update, mw, mu_t, cov_t)
    for i in range(mu_t.shape[0]):
        if not math.isfinite(mu_t[i]):
            return False
        for j in range(mu_t.shape[0]):
            if not math.isfinite(cov_t[i, j]):
                return False
    return True


@njit(cache=True)
def _same(a, b):
    """a == b elementwise, without allocating."""
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


# ----------------------------------------------------------------------------- Algorithm 7
@njit(cache=True)
def _gibbs_ss_kernel(rng, target, mw, settings, out, counts):
    """Algorithm 7 (bernstein2020, Sec. 5.2.4) for p covariates plus ``n_moves`` collapsed
    Metropolis moves per iteration; row t of out is (theta_0, ..., theta_p, sigma^2) of iteration
    t, every iteration stored.

    ``target`` is a :class:`dpinfer.models.linreg_nig_multi.ChainTargetP`, ``mw`` a
    :class:`_MomentWork` (its t4 the fixed tensor unless ``settings.update``), ``settings`` a
    :class:`_Settings`. counts[0] counts projections of n Sigma_t, counts[1] projections of s,
    counts[2] accepted collapsed moves, counts[3] accepted sign flips. The collapsed move's
    proposal covariance and scale adapt while t < n_burn."""
    z = target.z
    n = target.n
    b = target.b
    index = target.index
    prior = target.prior
    data_prior = target.data_prior
    update = settings.update
    n_burn = settings.n_burn
    n_moves = settings.n_moves
    k = z.shape[0]
    p = index.shape[0] - 2
    d = p + 2 + (p + p * (p + 1) // 2 if update else 0)
    theta = np.empty(p + 1)
    mu_x = np.empty(p)
    sigma_x = np.empty((p, p))
    lchol = np.zeros((p, p))
    linv = np.empty((p, p))
    mu_w = np.empty(p)
    l_w = np.empty((p, p))
    cw = conjugate_work(p)
    mu_t = np.empty(k)  # moments at the current phi (cur_phi), kept between evaluations
    cov_t = np.empty((k, k))
    mu_p = np.empty(k)  # moments at a proposal
    cov_p_t = np.empty((k, k))
    res = np.empty(k)
    mean = np.empty(k)
    v = np.empty((k, k))
    s = np.empty(k)
    omega2 = np.empty(k)
    npw = norm_product_work(k)  # also scratch of the release density
    wb = np.empty((k, k))
    xi = np.empty(d)
    phi = np.empty(d)
    cur_phi = np.empty(d)  # phi of the moments in mu_t, cov_t
    prop = np.empty(d)
    # collapsed-move proposal: h * L xi, L from the burn-in covariance of phi (Welford sums)
    chol_p = np.zeros((d, d))
    cov_p = np.empty((d, d))
    chol_w = np.empty((d, d))
    wel_mean = np.zeros(d)
    wel_m2 = np.zeros((d, d))
    wel_n = 0
    e_s2 = prior.b0 / (prior.a0 - 1.0) if prior.a0 > 1.0 else prior.b0 / prior.a0
    for i in range(p + 1):
        chol_p[i, i] = math.sqrt(e_s2 / prior.lam0[i, i])
    chol_p[p + 1, p + 1] = 1.0 / math.sqrt(prior.a0)
    if update:
        nu = data_prior.nu
        m = p + 2
        for i in range(p):
            e_sig = data_prior.psi[i, i] / max(nu - p - 1.0, 1.0)
            chol_p[m + i, m + i] = math.sqrt(e_sig / data_prior.kappa)
        m += p
        for i in range(p):
            for j in range(i + 1):
                if i == j:
                    chol_p[m, m] = math.sqrt(0.5 / nu)
                else:
                    chol_p[m, m] = math.sqrt(data_prior.psi[i, i] / max(nu - p - 1.0, 1.0) / nu)
                m += 1
    log_h = math.log(0.5)
    tuned = False
    # start: (theta, sigma^2) and (mu_x, Sigma_x) from one draw of the Naive posterior, omega^2
    # from its prior Exp(mean 2 b^2)
    sigma2 = naive_start_p(rng, z, n, index, prior, data_prior, theta, mu_x, sigma_x, cw)
    if not cholesky_lower(sigma_x, lchol):
        lchol[:, :] = cw.niw[3]
    for j in range(k):
        omega2[j] = rng.exponential(2.0 * b * b)
    for it in range(out.shape[0]):
        if n_moves > 0:
            # phi | z, omega^2 with s integrated out; s is drawn fresh below
            _pack(phi, p, theta, sigma2, mu_x, lchol, update)
            if it == 0 or not _same(phi, cur_phi):  # the Gibbs steps moved phi since its moments
                _moments_at(phi, p, update, mw, mu_t, cov_t)
                cur_phi[:] = phi
            cur = _log_prior_phi(phi, p, target, update, mu_w, l_w, linv) + log_gaussian_release(
                n, z, omega2, mu_t, cov_t, npw.a, npw.l, wb, res
            )
            h = math.exp(log_h)
            for mv in range(n_moves + 1):
                if mv == n_moves and not settings.flip:
                    break
                if mv < n_moves:
                    for i in range(d):
                        xi[i] = rng.standard_normal()
                    for i in range(d):
                        acc = phi[i]
                        for j in range(i + 1):
                            acc += h * chol_p[i, j] * xi[j]
                        prop[i] = acc
                else:
                    # sign flip theta -> -theta (y -> -y): the mirror mode that random-walk
                    # steps never leave
                    for i in range(d):
                        prop[i] = phi[i]
                    for i in range(p + 1):
                        prop[i] = -phi[i]
                new = -np.inf  # a proposal whose moments overflow has no density
                if _finite_moments(prop, p, update, mw, mu_p, cov_p_t):
                    new = _log_prior_phi(
                        prop, p, target, update, mu_w, l_w, linv
                    ) + log_gaussian_release(n, z, omega2, mu_p, cov_p_t, npw.a, npw.l, wb, res)
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
            for i in range(p + 1):
                theta[i] = phi[i]
            sigma2 = math.exp(phi[p + 1])
            if update:
                _unpack_data(phi, p, mu_x, lchol)
                _outer_into(lchol, sigma_x)
        else:  # Algorithm 7 as printed: step 1's moments at the current parameters
            if update:
                gaussian_tensor_into(mu_x, sigma_x, mw.t4)
            clt_moments_into(theta, sigma2, mw.t4, mw.pairs, mu_t, cov_t, mw.w4, mw.e4)
        for i in range(k):
            mean[i] = n * mu_t[i]
            for j in range(k):
                v[i, j] = n * cov_t[i, j]
        if make_psd(v, wb, npw.l):
            counts[0] += 1
        norm_product_draw(rng, mean, v, z, omega2, s, npw)
        if project_into(s, n, index, cw.g, cw.proj):
            counts[1] += 1
        sigma2 = nig_conjugate_draw_p(rng, s, n, index, prior, theta, cw)  # cw.g = A'A of s
        if update:
            niw_draw_p(rng, cw.g, n, data_prior, mu_x, sigma_x, cw.niw)
            lchol[:, :] = cw.niw[3]  # the Cholesky factor of sigma_x
        for j in range(k):
            omega2[j] = 1.0 / laplace_mixture_precision(rng, z[j] - s[j], b)
        for i in range(p + 1):
            out[it, i] = theta[i]
        out[it, p + 1] = sigma2
        if n_moves > 0 and it < n_burn:
            # proposal covariance: (2.38^2 / d) Cov(phi) over the second half of burn-in so far
            # (Roberts & Rosenthal 2001), refreshed every 100 iterations
            if 2 * it >= n_burn or it >= 1000:
                _pack(phi, p, theta, sigma2, mu_x, lchol, update)
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
                    if cholesky_lower(cov_p, chol_w):
                        chol_p[:, :] = chol_w
                        if not tuned:  # the 2.38^2/d factor replaces the start multiplier
                            log_h = 0.0
                            tuned = True


def _run(
    release: ReleaseP,
    prior: NIGPrior,
    data_prior: NIWPriorP,
    rng: np.random.Generator,
    t4: np.ndarray | None,
    *,
    burnin: int,
    keep: int,
    collapsed_moves: int = 1,
    sign_flip: bool = True,
    half: bool = False,
) -> Chain:
    """Validate, allocate and run one chain: the x-tensor ``t4`` fixed, or None for the Update
    flavour; on the full-budget release z, or on z_half (``half``, Gibbs-SS-Noisy)."""
    p = int(release.p)
    update = t4 is None
    z, mech = (release.z_half, release.mechanism_half) if half else (release.z, release.mechanism)
    target = chain_target_p(z, release.n, p, mech.scale, prior, data_prior)
    burnin, keep = check_lengths(burnin, keep)
    if int(collapsed_moves) < 0:
        raise ValueError(f"collapsed_moves must be >= 0, got {collapsed_moves}")
    if data_prior.psi.shape != (p, p) or not data_prior.nu > p - 1 or not data_prior.kappa > 0:
        raise ValueError(f"NIW prior needs psi ({p}, {p}), kappa > 0 and nu > p - 1")
    q = p + 2
    t4 = np.zeros((p + 1,) * 4) if update else np.ascontiguousarray(t4, dtype=float)
    mw = _MomentWork(
        t4,
        np.empty((q,) * 4),
        np.empty((q,) * 4),
        np.empty(p),
        np.zeros((p, p)),
        np.empty((p, p)),
        stat_pairs(p),
    )
    settings = _Settings(burnin, int(collapsed_moves), bool(sign_flip), bool(update))
    iterations = burnin + keep
    out = np.empty((iterations, p + 2))
    counts = np.zeros(4, dtype=np.int64)
    _, seconds = timed(_gibbs_ss_kernel, rng, target, mw, settings, out, counts)
    return Chain(out, burnin, chain_info(seconds, iterations, collapsed_moves, sign_flip, counts))


def run_gibbs_ss_prior_p(
    problem: ProblemP,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    collapsed_moves: int = 1,
    sign_flip: bool = True,
) -> Chain:
    """Gibbs-SS-Prior for p covariates: the x-tensor fixed at the data prior's predictive one
    (:func:`~dpinfer.samplers.clt_moments_multi.predictive_tensor`, needs nu > p + 3), full-budget
    z; ``collapsed_moves`` and ``sign_flip`` as in :func:`run_gibbs_ss_update_p`. Clamping is not
    modelled (module docstring)."""
    release, prior, data_prior = problem.release, problem.prior, problem.data_prior
    moves = {"collapsed_moves": collapsed_moves, "sign_flip": sign_flip}
    t4 = predictive_tensor(data_prior)
    return _run(release, prior, data_prior, rng, t4, burnin=burnin, keep=keep, **moves)


def run_gibbs_ss_noisy_p(
    problem: ProblemP,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    collapsed_moves: int = 1,
    sign_flip: bool = True,
    moments: str = "released",
) -> Chain:
    """Gibbs-SS-Noisy for p covariates: statistics released at epsilon/2 (``release.z_half``),
    the x-tensor fixed at the one of the moment sums released at the other half
    (:func:`~dpinfer.samplers.clt_moments_multi.noisy_tensor`). ``moments`` must be
    ``"released"`` (the one-covariate sampler's ``"exact"``, the released code's non-private
    variant, has no p-covariate form). ``collapsed_moves`` and ``sign_flip`` as in
    :func:`run_gibbs_ss_update_p`. Clamping is not modelled (module docstring)."""
    release, prior, data_prior = problem.release, problem.prior, problem.data_prior
    if moments != "released":
        raise ValueError(f"moments must be 'released' for p covariates, got {moments!r}")
    if release.moment_sums is None:
        raise ValueError("the release has no moment sums (release_statistics_p draws them)")
    t4 = noisy_tensor(release.moment_sums, release.n, release.p)
    moves = {"collapsed_moves": collapsed_moves, "sign_flip": sign_flip}
    return _run(release, prior, data_prior, rng, t4, half=True, burnin=burnin, keep=keep, **moves)


def run_gibbs_ss_update_p(
    problem: ProblemP,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    collapsed_moves: int = 1,
    sign_flip: bool = True,
) -> Chain:
    """Gibbs-SS-Update for p covariates: hierarchical normal data prior, (mu_x, Sigma_x) updated
    every iteration by NIW conjugacy given the covariate sums of the projected s, full-budget z.
    Clamping is not modelled (module docstring)."""
    release, prior, data_prior = problem.release, problem.prior, problem.data_prior
    moves = {"collapsed_moves": collapsed_moves, "sign_flip": sign_flip}
    return _run(release, prior, data_prior, rng, None, burnin=burnin, keep=keep, **moves)
