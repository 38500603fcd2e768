"""Gibbs-SS: the Gibbs sampler over sufficient statistics for private linear regression with
p >= 1 covariates (Algorithm 7 of bernstein2020, Sec. 5.2.4, in the p dimensions it is written
for), in its three flavours, with an optional collapsed Metropolis move that makes it mix at
large n. Chapter 5's one-covariate problem is the p = 1 case
(:func:`~dpinfer.models.linreg_nig_multi.as_p`).

Model and statistics are those of :mod:`dpinfer.models.linreg_nig_multi`: records
a = [x_1, ..., x_p, 1, y], s the K = n_stats(p) distinct entries of A'A other than n (public),
theta = [beta_1, ..., beta_p, intercept]. State: s, (theta, sigma^2), the Laplace augmentation
variances omega^2 (one per released entry) and, for the Update flavour, the data-prior
parameters (mu_x, Sigma_x). One iteration:

0. (``collapsed_moves`` > 0) random-walk Metropolis moves on phi = (theta, log sigma^2[, mu_x,
   the log-Cholesky entries of Sigma_x]) targeting p(phi | z, omega^2) with s integrated out,
   p(phi) N(z; n mu_t, n Sigma_t + diag(omega^2)) (:func:`log_gaussian_release`), then one sign
   flip theta -> -theta (``sign_flip``; the mirror mode that |sum y| leaves when the release is
   weak). Because s is drawn fresh in step 2, 0 + 2 is a joint update of (phi, s) given
   omega^2: steps 2-5 alone move theta only in tiny steps when n is large and the release weak.
   Sigma_x = L L' with L lower triangular, its diagonal on the log scale and the entries below
   it as they are; the NIW prior in these coordinates carries the Jacobian prod_i
   L_ii^(p - i + 2) (:func:`~dpinfer.models.linreg_nig_multi.log_niw_chol`). The proposal
   covariance is (2.38^2/d) times the burn-in covariance of phi (d its dimension), its scale
   adapted towards 23.4% acceptance; both are frozen after burn-in.
1. The raw fourth-moment tensor of [x, 1]: fixed at the data prior's predictive (Prior) or at
   the released moments of x (Noisy), or that of N(mu_x, Sigma_x) (Update); mu_t, Sigma_t of
   t(a) = vech(a a') from it (Eqs. 5.2-5.3, :func:`dpinfer.samplers.clt_moments.
   clt_moments_into`); n Sigma_t projected to PSD if needed.
2. s ~ NormProduct(n mu_t, n Sigma_t, z, diag(omega^2)) (Laplace as a scale mixture of normals).
3. s projected so that A'A is PSD (Sec. 5.2.4.3, :func:`~dpinfer.models.linreg_nig_multi.
   project_into`).
4. (theta, sigma^2) ~ NIG posterior given s (Eq. 5.1).
5. Update flavour: (mu_x, Sigma_x) ~ NIW posterior given the covariate sums in s (Fig. 5.3c).
6. 1/omega_j^2 ~ InverseGaussian(1/(b |z_j - s_j|), 1/b^2), b the Laplace scale (App. B.2).

Gaussian noise of sd sigma (``problem.noise`` "gaussian") is the mixture's special case of a
fixed variance: omega_j^2 = sigma^2 throughout and step 6 is left out (no draw).

Steps 1-6 are the released code's order; with ``collapsed_moves=0`` the sampler is Algorithm 7 as
printed. Algorithm 7's conditionals (a CLT for s | theta, the exact-model NIG for theta | s, the
projections) are not those of one joint distribution, so its stationary law is defined only by
the kernel; the collapsed move targets the CLT model that steps 2 and 6 share, and where the two
differ (small n) the chain's law lies between them (docs/deviations.md, "Convergence diagnostics
of the regression chains"). Chains start from one draw of the Naive posterior
(:func:`~dpinfer.models.linreg_nig_multi.naive_start_p`) for (theta, sigma^2) and (mu_x,
Sigma_x), omega^2 from its prior Exp(mean 2 b^2) (sigma^2 for Gaussian noise).

Clamped releases (``release.clamped``; not in the thesis): with one covariate, Gibbs-SS-Update
takes the moments of the clamped statistics (:mod:`dpinfer.samplers.clt_clamped`) and leaves out
steps 3-5, whose NIG/NIW updates would treat clamped sums as the linear model's; the rest is a
Metropolis-within-Gibbs sampler of p(phi) N(s; n mu_t, n Sigma_t) Lap(z | s), so it needs
``collapsed_moves`` >= 1, and starts from the best of the Naive draw and 20 prior draws (a Naive
start deep in the prior's tail would trap the walk). With p > 1 covariates no clamped CLT
exists here and Update refuses a clamped release; Gibbs-SS-Noisy and -Prior do not model
clamping (they treat z as the release of the unclamped records' statistics).

Flavours, one public function each with the model's call signature
``run(problem, rng, *, burnin, keep, collapsed_moves=1, sign_flip=True)`` returning a ``Chain``
of rows (theta_1, ..., theta_{p+1}, sigma^2), every iteration stored, burn-in first
(``sign_flip=False`` leaves out the flip of step 0, e.g. where the data fix the sign of theta):
:func:`run_gibbs_ss_noisy` (statistics released at half the budget, the x-tensor of the moment
sums released at the other half; ``moments="exact"`` uses the confidential moments as the
released code did), :func:`run_gibbs_ss_prior` (tensor of the data prior's predictive, closed
form), :func:`run_gibbs_ss_update` (hierarchical normal data prior updated every iteration).
``Chain.info.clipped`` counts the projections of n Sigma_t (``cov_projections``) and of s
(``stat_projections``) over all iterations; ``info.acceptance`` is the collapsed move's
acceptance rate and ``info.detail.sign_flips`` the accepted flips (None without moves).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..models.linreg_nig_multi import (
    as_p,
    chain_target_p,
    conjugate_work,
    log_nig_p,
    log_niw_chol,
    naive_start_p,
    nig_conjugate_draw_p,
    nig_draw_p,
    niw_draw_p,
    noise_law,
    project_into,
    stat_pairs,
)
from .base import Chain, Info, NigChainDetail, check_lengths, timed
from .clt_clamped import clamped_clt_into
from .clt_moments import (
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
from .linalg import cholesky_lower, make_psd

_PRIOR_STARTS = 20  # prior draws that compete with the Naive draw for the start of a clamped chain

__all__ = [
    "run_gibbs_ss_noisy",
    "run_gibbs_ss_prior",
    "run_gibbs_ss_update",
    "log_gaussian_release",
    "phi_dimension",
]


class _Settings(NamedTuple):
    """Burn-in length (adaptation), collapsed moves per iteration, sign flip on/off, Update
    flavour on/off, the bounds [lo, hi] of a clamped release (``clamp``: Update with one
    covariate only), and whether the noise is Gaussian (sd target.b: omega^2 fixed at b^2)."""

    n_burn: int
    n_moves: int
    flip: bool
    update: bool
    clamp: bool
    lo: float
    hi: float
    gaussian: bool = False


def phi_dimension(p: int, update: bool) -> int:
    """Dimension d of the collapsed move's phi: p + 2 (theta, log sigma^2), plus p + p (p + 1)/2
    (mu_x and the log-Cholesky entries of Sigma_x) for the Update flavour."""
    p = int(p)
    return p + 2 + (p + p * (p + 1) // 2 if update else 0)


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


# ----------------------------------------------------------------------------- priors of phi
@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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
    """Scratch of the CLT moments: the tensor t4 ((p + 1)^4; the Prior flavour's fixed one), its
    contractions t3, t2, t1 with theta ((p + 1)^3, (p + 1)^2, p + 1), mu_x (p), L and Sigma_x
    (p, p), pairs (K, 2) of stat_pairs(p), and the (2, 5, 5) scratch of the clamped CLT."""

    t4: np.ndarray
    t3: np.ndarray
    t2: np.ndarray
    t1: np.ndarray
    mu_x: np.ndarray
    lchol: np.ndarray
    sigma_x: np.ndarray
    pairs: np.ndarray
    clamped: np.ndarray


@njit(cache=True, inline="always")
def _moments_at(phi, p, settings, mw, mu_t, cov_t):
    """mu_t, Sigma_t of one record's statistics at phi (Update: t4 of N(mu_x, L L'); clamped,
    p = 1: the clamped CLT with tau^2 = L_11^2)."""
    if settings.clamp:
        sig2 = math.exp(phi[2])
        tau2 = math.exp(2.0 * phi[4])
        lo, hi = settings.lo, settings.hi
        clamped_clt_into(phi, sig2, phi[3], tau2, lo, hi, mu_t, cov_t, mw.clamped)
        return
    if settings.update:
        _unpack_data(phi, p, mw.mu_x, mw.lchol)
        _outer_into(mw.lchol, mw.sigma_x)
        gaussian_tensor_into(mw.mu_x, mw.sigma_x, mw.t4)
    theta, sigma2 = phi[: p + 1], math.exp(phi[p + 1])
    clt_moments_into(theta, sigma2, mw.t4, mw.pairs, mu_t, cov_t, mw.t3, mw.t2, mw.t1)


@njit(cache=True, inline="always")
def _finite_moments(phi, p, settings, mw, mu_t, cov_t):
    """The moments at phi (:func:`_moments_at`) when phi and they are finite; False (moments not
    usable) when a random-walk step has gone so far that they overflow."""
    for i in range(phi.shape[0]):
        if not abs(phi[i]) < 700.0:  # exp(log sigma^2) and exp(log L_ii) stay finite
            return False
    _moments_at(phi, p, settings, mw, mu_t, cov_t)
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


class _Scratch(NamedTuple):
    """Scratch of :func:`_log_collapsed`: a, l, wb (K, K) and res (K) of
    :func:`log_gaussian_release`, mu_w (p), l_w and linv (p, p) of :func:`_log_prior_phi`."""

    a: np.ndarray
    l: np.ndarray
    wb: np.ndarray
    res: np.ndarray
    mu_w: np.ndarray
    l_w: np.ndarray
    linv: np.ndarray


@njit(cache=True, inline="always")
def _log_collapsed(phi, p, target, settings, omega2, mw, mu_t, cov_t, sw):
    """log p(phi | z, omega^2) up to a constant (the priors times the collapsed release
    density), leaving the moments at phi in mu_t, cov_t; -inf when they overflow."""
    if not _finite_moments(phi, p, settings, mw, mu_t, cov_t):
        return -np.inf
    lp = _log_prior_phi(phi, p, target, settings.update, sw.mu_w, sw.l_w, sw.linv)
    n, z = target.n, target.z
    return lp + log_gaussian_release(n, z, omega2, mu_t, cov_t, sw.a, sw.l, sw.wb, sw.res)


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
    gaussian = settings.gaussian
    n_burn = settings.n_burn
    n_moves = settings.n_moves
    k = z.shape[0]
    p = index.shape[0] - 2
    d = p + 2 + (p + p * (p + 1) // 2 if update else 0)
    theta = np.empty(p + 1)
    mu_x = np.empty(p)
    sigma_x = np.empty((p, p))
    lchol = np.zeros((p, p))
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
    sw = _Scratch(npw.a, npw.l, wb, res, np.empty(p), np.empty((p, p)), np.empty((p, p)))
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
    if settings.clamp:
        # with no conjugate steps to leave it, a Naive start far in the prior's tail (a weak
        # release: z is mostly noise) traps the random walk; start instead from the best of the
        # Naive draw and _PRIOR_STARTS prior draws under the collapsed density, omega^2 at its
        # prior mean (any start is valid; this one only shortens the burn-in)
        for j in range(k):
            omega2[j] = b * b if gaussian else 2.0 * b * b
        _pack(phi, p, theta, sigma2, mu_x, lchol, update)
        best = _log_collapsed(phi, p, target, settings, omega2, mw, mu_p, cov_p_t, sw)
        chol0 = np.linalg.cholesky(prior.lam0)
        no_data = np.zeros((p + 2, p + 2))  # n = 0: niw_draw_p draws from the prior
        for _ in range(_PRIOR_STARTS):
            s2_c = nig_draw_p(rng, prior.mu0, chol0, prior.a0, prior.b0, theta)
            niw_draw_p(rng, no_data, 0.0, data_prior, mu_x, sigma_x, cw.niw)
            _pack(prop, p, theta, s2_c, mu_x, cw.niw[3], update)
            cand = _log_collapsed(prop, p, target, settings, omega2, mw, mu_p, cov_p_t, sw)
            if cand > best:
                best = cand
                phi[:] = prop
        theta[:] = phi[: p + 1]
        sigma2 = math.exp(phi[p + 1])
        _unpack_data(phi, p, mu_x, lchol)
        _outer_into(lchol, sigma_x)
    for j in range(k):  # Gaussian noise: the fixed variance, no draw
        omega2[j] = b * b if gaussian else rng.exponential(2.0 * b * b)
    for it in range(out.shape[0]):
        if n_moves > 0:
            # phi | z, omega^2 with s integrated out; s is drawn fresh below
            _pack(phi, p, theta, sigma2, mu_x, lchol, update)
            if it == 0 or not _same(phi, cur_phi):  # the Gibbs steps moved phi since its moments
                _moments_at(phi, p, settings, mw, mu_t, cov_t)
                cur_phi[:] = phi
            lp = _log_prior_phi(phi, p, target, update, sw.mu_w, sw.l_w, sw.linv)
            cur = lp + log_gaussian_release(n, z, omega2, mu_t, cov_t, npw.a, npw.l, wb, res)
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
                    prop[:] = phi
                    for i in range(p + 1):
                        prop[i] = -phi[i]
                new = _log_collapsed(prop, p, target, settings, omega2, mw, mu_p, cov_p_t, sw)
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
            theta[:] = phi[: p + 1]
            sigma2 = math.exp(phi[p + 1])
            if update:
                _unpack_data(phi, p, mu_x, lchol)
                _outer_into(lchol, sigma_x)
        else:  # Algorithm 7 as printed: step 1's moments at the current parameters
            if update:
                gaussian_tensor_into(mu_x, sigma_x, mw.t4)
            clt_moments_into(theta, sigma2, mw.t4, mw.pairs, mu_t, cov_t, mw.t3, mw.t2, mw.t1)
        for i in range(k):
            mean[i] = n * mu_t[i]
            for j in range(k):
                v[i, j] = n * cov_t[i, j]
        if make_psd(v, wb, npw.l):
            counts[0] += 1
        norm_product_draw(rng, mean, v, z, omega2, s, npw)
        if not settings.clamp:
            # steps 3-5; clamped statistics are not sufficient statistics of the linear model,
            # so with clamping the parameters move by the collapsed moves alone (a Metropolis-
            # within-Gibbs sampler of the clamped CLT model: phi | omega^2, then s, then omega^2)
            if project_into(s, n, index, cw.g, cw.proj):
                counts[1] += 1
            sigma2 = nig_conjugate_draw_p(rng, s, n, index, prior, theta, cw)  # cw.g = A'A of s
            if update:
                niw_draw_p(rng, cw.g, n, data_prior, mu_x, sigma_x, cw.niw)
                lchol[:, :] = cw.niw[3]  # the Cholesky factor of sigma_x
        if not gaussian:
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
    problem,
    rng: np.random.Generator,
    t4: np.ndarray | None,
    burnin: int,
    keep: int,
    collapsed_moves: int,
    sign_flip: bool,
    half: bool = False,
) -> Chain:
    """Validate, allocate and run one chain: the x-tensor ``t4`` fixed, or None for the Update
    flavour (which models a clamped release of one covariate); on the full-budget release z, or
    on z_half (``half``, Gibbs-SS-Noisy). ``problem`` is a ProblemP (:func:`as_p` applied)."""
    release, prior, data_prior = problem.release, problem.prior, problem.data_prior
    p = int(release.p)
    update = t4 is None
    clamp = update and bool(release.clamped)
    if clamp and p > 1:
        raise ValueError(
            "Gibbs-SS-Update models a clamped release of one covariate only (the clamped CLT); "
            f"this release of p = {p} covariates is clamped"
        )
    if clamp and int(collapsed_moves) < 1:
        raise ValueError(
            "a clamped release needs collapsed_moves >= 1 (its parameters move by them alone)"
        )
    lo, hi = (float(v) for v in release.bounds) if clamp else (-np.inf, np.inf)
    z, mech = (release.z_half, release.mechanism_half) if half else (release.z, release.mechanism)
    gaussian, scale = noise_law(problem.noise, mech)
    target = chain_target_p(z, release.n, p, scale, prior, data_prior)
    burnin, keep = check_lengths(burnin, keep)
    if int(collapsed_moves) < 0:
        raise ValueError(f"collapsed_moves must be >= 0, got {collapsed_moves}")
    if data_prior.psi.shape != (p, p) or not data_prior.nu > p - 1 or not data_prior.kappa > 0:
        raise ValueError(f"NIW prior needs psi ({p}, {p}), kappa > 0 and nu > p - 1")
    r = p + 1
    t4 = np.zeros((r,) * 4) if update else np.ascontiguousarray(t4, dtype=float)
    mw = _MomentWork(
        t4,
        np.empty((r, r, r)),
        np.empty((r, r)),
        np.empty(r),
        np.empty(p),
        np.zeros((p, p)),
        np.empty((p, p)),
        stat_pairs(p),
        np.empty((2, 5, 5)),
    )
    flip = bool(sign_flip)
    settings = _Settings(burnin, int(collapsed_moves), flip, update, clamp, lo, hi, gaussian)
    iterations = burnin + keep
    out = np.empty((iterations, p + 2))
    counts = np.zeros(4, dtype=np.int64)
    _, seconds = timed(_gibbs_ss_kernel, rng, target, mw, settings, out, counts)
    moves = iterations * int(collapsed_moves)
    info = Info(
        cpu_seconds=seconds,
        iterations=iterations,
        acceptance=float(counts[2]) / moves if moves else None,
        clipped={"cov_projections": int(counts[0]), "stat_projections": int(counts[1])},
        detail=NigChainDetail(sign_flips=float(counts[3]) if moves and flip else None),
    )
    return Chain(out, burnin, info)


def run_gibbs_ss_noisy(
    problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    collapsed_moves: int = 1,
    sign_flip: bool = True,
    moments: str = "released",
) -> Chain:
    """Gibbs-SS-Noisy: statistics released at epsilon/2 (``release.z_half``), the x-tensor fixed
    at the one of the moment sums released at the other half (``moments="released"``, the
    thesis; clipped to what records inside the public bounds allow) or of the confidential sums
    (``moments="exact"``, what the released code fed the sampler; not private), made a valid
    moment tensor (:func:`~dpinfer.samplers.clt_moments.noisy_tensor`).
    ``collapsed_moves`` and ``sign_flip`` as in :func:`run_gibbs_ss_update`. Clamping is not
    modelled (module docstring)."""
    problem = as_p(problem)
    release = problem.release
    if moments not in ("released", "exact"):
        raise ValueError(f"moments must be 'released' or 'exact', got {moments!r}")
    released = moments == "released"
    sums = release.moment_sums if released else release.exact_moment_sums
    if sums is None:
        raise ValueError(f"the release has no {moments} moment sums")
    t4 = noisy_tensor(sums, release.n, release.p, release.bounds if released else None)
    return _run(problem, rng, t4, burnin, keep, collapsed_moves, sign_flip, half=True)


def run_gibbs_ss_prior(
    problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    collapsed_moves: int = 1,
    sign_flip: bool = True,
) -> Chain:
    """Gibbs-SS-Prior: the x-tensor fixed at the data prior's predictive one
    (:func:`~dpinfer.samplers.clt_moments.predictive_tensor`, needs nu > p + 3),
    full-budget z; ``collapsed_moves`` and ``sign_flip`` as in :func:`run_gibbs_ss_update`.
    Clamping is not modelled (module docstring)."""
    problem = as_p(problem)
    t4 = predictive_tensor(problem.data_prior)
    return _run(problem, rng, t4, burnin, keep, collapsed_moves, sign_flip)


def run_gibbs_ss_update(
    problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    collapsed_moves: int = 1,
    sign_flip: bool = True,
) -> Chain:
    """Gibbs-SS-Update: hierarchical normal data prior, (mu_x, Sigma_x) updated every iteration
    by NIW conjugacy given the covariate sums of the projected s, full-budget z. On a clamped
    release of one covariate the CLT is that of the clamped statistics
    (:mod:`dpinfer.samplers.clt_clamped`) and steps 3-5 are left out (module docstring)."""
    return _run(as_p(problem), rng, None, burnin, keep, collapsed_moves, sign_flip)
