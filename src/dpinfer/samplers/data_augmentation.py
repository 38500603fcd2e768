"""Privacy-aware Metropolis-within-Gibbs sampler: Algorithm 1 of ju2022, numba kernels.

One sweep: (1) theta | x by conjugacy; (2) a systematic scan over the N latent records, each
proposed from the model f(. | theta) and accepted with the ratio of the noise densities of the
release given the latent statistic (Eq. 5), which record additivity (Assumption 2) updates in
O(1) per record.

The noise law is the Problem's ``noise`` with its ``scale``: ``"laplace"`` (scale b, ju2022's) or
``"gaussian"`` (sd sigma). A discrete Laplace or discrete Gaussian release of integer statistics
is the same problem: at integer noise its mass has the density ratios of Laplace(t) (t =
-1 / log(1 - rho)) or N(0, sigma^2), and the acceptance step reads only ratios
(:func:`dpinfer.releases.tables.noise_law`).

Two models, registered as ``(model, "privacy_aware_gibbs")`` (call signatures in the model
modules' docstrings):

- :func:`run_loglinear`, ``"naive_bayes_loglinear"`` (:mod:`dpinfer.models.naive_bayes`, Sec. 4).
  The acceptance ratio uses the noisy counts of the cells the record actually leaves and enters
  (the authors' R code looked up the wrong row for the new cell: docs/deviations.md), and a table
  whose cell does not change contributes a factor of exactly 1.
- :func:`run_linreg`, ``"clamped_linreg"`` (:mod:`dpinfer.models.gaussian_linreg`, Sec. 5). The
  latent records are unclamped; clamping is part of the mechanism.

Both return a :class:`~dpinfer.samplers.base.Chain` of every sweep's draw (burn-in first) with
``Info``: ``acceptance`` = mean fraction of records accepted per kept sweep, ``detail`` a
:class:`~dpinfer.samplers.base.RecordWiseDetail` (that fraction for every sweep, the smallest log
acceptance probability of any single proposal over all sweeps: Proposition 3.1 bounds it by
-epsilon under a correctly calibrated pure-DP mechanism), and the kernel's CPU seconds.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..models import gaussian_linreg, naive_bayes
from .base import Chain, Info, RecordWiseDetail, check_lengths, timed
from .conditionals import categorical, dirichlet, metropolis_accept, robbins_monro

__all__ = ["NOISES", "run_loglinear", "run_linreg"]


def _chain(draws, acc, burnin: int, min_log_alpha: float, seconds: float, nc=None) -> Chain:
    info = Info(
        cpu_seconds=seconds,
        iterations=draws.shape[0],
        acceptance=float(acc[burnin:].mean()),
        detail=RecordWiseDetail(acc, float(min_log_alpha), nc),
    )
    return Chain(draws, burnin, info)


NOISES = ("laplace", "gaussian")  # the noise laws the kernels take (Problem.noise)


def _noise_code(problem) -> bool:
    """Whether ``problem``'s noise is Gaussian (the kernels' flag); refuses another law."""
    if problem.noise not in NOISES:
        raise ValueError(f"noise must be one of {NOISES}, got {problem.noise!r}")
    return problem.noise == "gaussian"


# ----------------------------------------------------------------------------- log-linear model
@njit(cache=True)
def _loglinear_kernel(
    rng, released, scale, gaussian, alpha_p, alpha, n_records, iterations, p_draws, acc_rate
):
    """Algorithm 1 of ju2022 for the naive-Bayes log-linear model (Sec. 4).

    Start: theta from the Dirichlet priors and N records from the model (a prior-predictive
    draw, as in the authors' code). Each sweep: (1) p ~ Dirichlet(n_i + alpha_p) and
    pi[k, :, i] ~ Dirichlet(n[k, :, i] + alpha[k, :, i]) from the latent counts; (2) for each
    record, a whole new record (class, K answers) from f(. | theta), accepted with the ratio (5)
    of Laplace(0, scale) densities (N(0, scale^2) if ``gaussian``) of the released counts, which
    changes only in the cell each table's record leaves and the cell it enters. Fills p_draws
    (iterations, I) and acc_rate (iterations,); returns the smallest log acceptance ratio seen.
    """
    K, J, I = released.shape
    inv_b = 1.0 / scale
    inv_v = 1.0 / (scale * scale)
    p = np.empty(I)
    pi = np.empty((K, J, I))
    col = np.empty(J)
    conc_j = np.empty(J)
    dirichlet(rng, alpha_p, p)
    for k in range(K):
        for i in range(I):
            for j in range(J):
                conc_j[j] = alpha[k, j, i]
            dirichlet(rng, conc_j, col)
            for j in range(J):
                pi[k, j, i] = col[j]
    cls = np.empty(n_records, np.int64)
    ans = np.empty((n_records, K), np.int64)
    counts = np.zeros((K, J, I), np.int64)
    ncls = np.zeros(I, np.int64)
    for n in range(n_records):
        c = categorical(rng, p)
        cls[n] = c
        ncls[c] += 1
        for k in range(K):
            for j in range(J):
                col[j] = pi[k, j, c]
            a = categorical(rng, col)
            ans[n, k] = a
            counts[k, a, c] += 1

    new_ans = np.empty(K, np.int64)
    conc_i = np.empty(I)
    min_log_alpha = 0.0
    for t in range(iterations):
        # (1) theta | x: Dirichlet updates from the latent counts
        for i in range(I):
            conc_i[i] = ncls[i] + alpha_p[i]
        dirichlet(rng, conc_i, p)
        for k in range(K):
            for i in range(I):
                for j in range(J):
                    conc_j[j] = counts[k, j, i] + alpha[k, j, i]
                dirichlet(rng, conc_j, col)
                for j in range(J):
                    pi[k, j, i] = col[j]
        # (2) systematic scan over records, independent proposals from the model
        accepted = 0
        for n in range(n_records):
            c_new = categorical(rng, p)
            c_old = cls[n]
            log_ratio = 0.0
            for k in range(K):
                for j in range(J):
                    col[j] = pi[k, j, c_new]
                a_new = categorical(rng, col)
                new_ans[k] = a_new
                a_old = ans[n, k]
                if a_new == a_old and c_new == c_old:
                    continue  # same cell of table k: its factor is exactly 1
                m_new = released[k, a_new, c_new]
                m_old = released[k, a_old, c_old]
                n_new = counts[k, a_new, c_new]
                n_old = counts[k, a_old, c_old]
                if gaussian:
                    # [(n_new - m)^2 - (n_new + 1 - m)^2 + (n_old - m')^2 - (n_old - 1 - m')^2]
                    # / (2 sigma^2), expanded
                    log_ratio += ((n_old - m_old) - (n_new - m_new) - 1.0) * inv_v
                    continue
                log_ratio += (
                    abs(n_new - m_new)
                    - abs(n_new + 1 - m_new)
                    + abs(n_old - m_old)
                    - abs(n_old - 1 - m_old)
                ) * inv_b
            if log_ratio < min_log_alpha:
                min_log_alpha = log_ratio
            if metropolis_accept(rng, log_ratio):
                accepted += 1
                for k in range(K):
                    counts[k, ans[n, k], c_old] -= 1
                    counts[k, new_ans[k], c_new] += 1
                    ans[n, k] = new_ans[k]
                ncls[c_old] -= 1
                ncls[c_new] += 1
                cls[n] = c_new
        acc_rate[t] = accepted / n_records
        p_draws[t] = p
    return min_log_alpha


def run_loglinear(
    problem: naive_bayes.Problem, rng: np.random.Generator, *, burnin: int, keep: int
) -> Chain:
    """Algorithm 1 for the naive-Bayes log-linear model: draws of p, one row per sweep.

    The record (:class:`dpinfer.models.naive_bayes.Problem`): ``released`` (K, J, I) are the
    noisy counts m[k, j, i]; ``noise`` the law of each cell's noise (:data:`NOISES`) and
    ``scale`` its Laplace scale or Gaussian sd; ``alpha_p`` (I,), ``alpha`` (K, J, I) the
    Dirichlet parameters; ``n_records`` the number of latent records N.
    """
    released = np.ascontiguousarray(problem.released, dtype=float)
    alpha = np.ascontiguousarray(problem.alpha, dtype=float)
    alpha_p = np.ascontiguousarray(problem.alpha_p, dtype=float)
    scale, n_records = problem.scale, problem.n_records
    gaussian = _noise_code(problem)
    if released.ndim != 3 or alpha.shape != released.shape or alpha_p.shape != (released.shape[2],):
        raise ValueError("released and alpha must be (K, J, I) and alpha_p (I,)")
    if not (np.all(np.isfinite(released)) and scale > 0 and n_records >= 1):
        raise ValueError("released must be finite, scale > 0 and n_records >= 1")
    if np.any(alpha <= 0) or np.any(alpha_p <= 0):
        raise ValueError("Dirichlet parameters must be positive")
    burnin, keep = check_lengths(burnin, keep)
    iterations = burnin + keep
    p_draws = np.empty((iterations, released.shape[2]))
    acc = np.empty(iterations)
    args = (rng, released, float(scale), gaussian, alpha_p, alpha, int(n_records))
    min_log_alpha, seconds = timed(_loglinear_kernel, *args, iterations, p_draws, acc)
    return _chain(p_draws, acc, burnin, min_log_alpha, seconds)


# ----------------------------------------------------------------------------- linear regression
@njit(cache=True)
def _record_stats(x0, y, lo, hi, xt, out):
    """The record's contribution t(x_i, y_i) of ju2022 Sec. 5: clamp to [lo, hi] and rescale
    to [-1, 1] (Definition 5.1), then (x~'y~, y~^2, x~'x~ without its constant [0, 0] entry), in
    :func:`dpinfer.models.gaussian_linreg.stat_labels` order.

    ``xt`` is a (p+1,) scratch buffer (no allocation in the hot loop).
    """
    p = x0.size
    width = hi - lo
    xt[0] = 1.0
    for j in range(p):
        v = min(max(x0[j], lo), hi)
        xt[j + 1] = 2.0 * (v - lo) / width - 1.0
    yv = min(max(y, lo), hi)
    yt = 2.0 * (yv - lo) / width - 1.0
    idx = 0
    for j in range(p + 1):
        out[idx] = xt[j] * yt
        idx += 1
    out[idx] = yt * yt
    idx += 1
    for j in range(p + 1):
        for k in range(j, p + 1):
            if j == 0 and k == 0:
                continue
            out[idx] = xt[j] * xt[k]
            idx += 1


@njit(cache=True)
def _propose_record(rng, mean_x, chol_x, beta, sigma, z, x_out):
    """The proposal of Algorithm 1, step 2, for the regression model of Sec. 5: a record from
    f(. | beta), x_out ~ N(m, L L'), and return y ~ N((1, x) beta, sigma^2)."""
    p = mean_x.size
    for j in range(p):
        z[j] = rng.standard_normal()
    mu = beta[0]
    for j in range(p):
        s = mean_x[j]
        for k in range(j + 1):
            s += chol_x[j, k] * z[k]
        x_out[j] = s
        mu += beta[j + 1] * s
    return mu + sigma * rng.standard_normal()


@njit(cache=True)
def _precision_cholesky(x0s, sigma2, tau2, L):
    """L with L L' = P = X'X / sigma2 + I / tau2 (the rows of X are (1, x_i)): the precision of
    beta given the latent records, which depends on the covariates only."""
    n, p = x0s.shape
    q = p + 1
    P = np.zeros((q, q))
    xi = np.empty(q)
    for i in range(n):
        xi[0] = 1.0
        for j in range(p):
            xi[j + 1] = x0s[i, j]
        for j in range(q):
            for k in range(q):
                P[j, k] += xi[j] * xi[k] / sigma2
    for j in range(q):
        P[j, j] += 1.0 / tau2
    L[:, :] = np.linalg.cholesky(P)


@njit(cache=True)
def _draw_beta(rng, x0s, ys, sigma2, tau2, beta):
    """Step 1 of Algorithm 1 for Sec. 5: the conjugate update of supplement S-5,
    beta | X, y ~ N(mu_n, Sigma_n), Sigma_n^-1 = P = X'X / sigma2 + I / tau2,
    mu_n = P^-1 X'y / sigma2, drawn as mu_n + L'^-1 z with P = L L'."""
    n, p = x0s.shape
    q = p + 1
    b = np.zeros(q)
    for i in range(n):
        b[0] += ys[i] / sigma2
        for j in range(p):
            b[j + 1] += x0s[i, j] * ys[i] / sigma2
    L = np.empty((q, q))
    _precision_cholesky(x0s, sigma2, tau2, L)
    # L L' mu = b: forward solve for w = L^-1 b, add z, then back solve L' beta = w + z
    w = np.empty(q)
    for j in range(q):
        s = b[j]
        for k in range(j):
            s -= L[j, k] * w[k]
        w[j] = s / L[j, j]
    for j in range(q):
        w[j] += rng.standard_normal()
    for j in range(q - 1, -1, -1):
        s = w[j]
        for k in range(j + 1, q):
            s -= L[k, j] * beta[k]
        beta[j] = s / L[j, j]


@njit(cache=True, inline="always")  # called once per statistic and move: keep the loop tight
def _noise_log_ratio(gaussian, weight, r_cur, r_prop):
    """log f(r_prop) - log f(r_cur) of one statistic's noise, r = released - latent: Laplace
    with weight = 1 / b, or Gaussian with weight = 1 / (2 sigma^2)."""
    if gaussian:
        return (r_cur * r_cur - r_prop * r_prop) * weight
    return (abs(r_cur) - abs(r_prop)) * weight


@njit(cache=True)
def _noncentred_beta_move(rng, mv, log_h, released, gaussian, weight, tau2, lo, hi):
    """One Metropolis move of beta with the covariates and the standardised residuals
    e_i = (y_i - (1, x_i)'beta) / sigma held fixed: beta' = beta + h L'^-1 z (proposal
    covariance h^2 P^-1, symmetric since P depends on the covariates only), every y_i moves by
    (1, x_i)'(beta' - beta), and the ratio is the N(0, tau2 I) prior's times the noise
    likelihood's of the released statistics (:func:`_noise_log_ratio`; the Jacobian of y -> e
    is constant, sigma known). ``mv`` is a :class:`_Moves` of the state and its scratch;
    returns whether it moved."""
    x0s, ys, rec, total, beta = mv.x0s, mv.ys, mv.rec, mv.total, mv.beta
    n, p = x0s.shape
    q = p + 1
    d = released.size
    L, delta, w = mv.chol, mv.delta, mv.w
    h = math.exp(log_h)
    for j in range(q):
        w[j] = rng.standard_normal()
    for j in range(q - 1, -1, -1):  # back solve L' delta = h w
        acc = h * w[j]
        for k in range(j + 1, q):
            acc -= L[k, j] * delta[k]
        delta[j] = acc / L[j, j]
    log_ratio = 0.0
    for j in range(q):
        log_ratio -= ((beta[j] + delta[j]) ** 2 - beta[j] ** 2) / (2.0 * tau2)
    for m in range(d):
        mv.total_new[m] = 0.0
    for i in range(n):
        shift = delta[0]
        for j in range(p):
            shift += delta[j + 1] * x0s[i, j]
        mv.ys_new[i] = ys[i] + shift
        _record_stats(x0s[i], mv.ys_new[i], lo, hi, mv.xt, mv.rec_new[i])
        for m in range(d):
            mv.total_new[m] += mv.rec_new[i, m]
    for m in range(d):
        r_prop = released[m] - mv.total_new[m]
        log_ratio += _noise_log_ratio(gaussian, weight, released[m] - total[m], r_prop)
    if not metropolis_accept(rng, log_ratio):
        return False
    for j in range(q):
        beta[j] += delta[j]
    for i in range(n):
        ys[i] = mv.ys_new[i]
        for m in range(d):
            rec[i, m] = mv.rec_new[i, m]
    for m in range(d):
        total[m] = mv.total_new[m]
    return True


class _ClampedRelease(NamedTuple):
    """What the regression kernel conditions on: the d released statistics, their noise's scale
    (Laplace b, or Gaussian sd if ``gaussian``), the covariates' mean and Cholesky factor,
    sigma^2, the prior variance tau^2, the clamp bounds and the number of latent records."""

    released: np.ndarray
    scale: float
    gaussian: bool
    mean_x: np.ndarray
    chol_x: np.ndarray
    sigma2: float
    tau2: float
    lo: float
    hi: float
    n_records: int


class _Moves(NamedTuple):
    """The latent state the non-centred move changes (records, their statistics, beta) and its
    scratch arrays, allocated once per chain."""

    x0s: np.ndarray
    ys: np.ndarray
    rec: np.ndarray
    total: np.ndarray
    beta: np.ndarray
    chol: np.ndarray
    delta: np.ndarray
    w: np.ndarray
    ys_new: np.ndarray
    rec_new: np.ndarray
    total_new: np.ndarray
    xt: np.ndarray


@njit(cache=True)
def _linreg_kernel(rng, release, iterations, n_burn, nc_moves, beta_draws, acc_rate, nc_accepted):
    """Algorithm 1 of ju2022 for clamped linear regression (Sec. 5) on a :class:`_ClampedRelease`.

    Start: beta from its N(0, tau2 I) prior and N records from the model. Each sweep: (1) beta
    from its conjugate posterior given the unclamped latent records; (2) for each record, a new
    record from the model, accepted with the ratio (5) of Laplace(0, scale) (or N(0, scale^2))
    densities of the d released statistics, the latent statistic changing by t(new) - t(old);
    (3) ``nc_moves`` non-centred moves of beta (:func:`_noncentred_beta_move`; none in the
    paper's algorithm), their step adapting while t < ``n_burn``. Fills beta_draws
    (iterations, p+1) and acc_rate (iterations,); counts accepted non-centred moves in
    nc_accepted[0]; returns the smallest log acceptance ratio seen.
    """
    released, scale, gaussian, mean_x, chol_x, sigma2, tau2, lo, hi, n_records = release
    d = released.size
    p = mean_x.size
    q = p + 1
    weight = 0.5 / (scale * scale) if gaussian else 1.0 / scale
    sigma = math.sqrt(sigma2)
    tau = math.sqrt(tau2)
    beta = np.empty(q)
    for j in range(q):
        beta[j] = tau * rng.standard_normal()
    x0s = np.empty((n_records, p))
    ys = np.empty(n_records)
    rec = np.empty((n_records, d))
    z = np.empty(p)
    x_new = np.empty(p)
    t_new = np.empty(d)
    xt = np.empty(q)
    for i in range(n_records):
        ys[i] = _propose_record(rng, mean_x, chol_x, beta, sigma, z, x0s[i])
        _record_stats(x0s[i], ys[i], lo, hi, xt, rec[i])
    total = np.empty(d)
    mv = _Moves(
        x0s,
        ys,
        rec,
        total,
        beta,
        np.empty((q, q)),
        np.empty(q),
        np.empty(q),
        np.empty(n_records),
        np.empty((n_records, d)),
        np.empty(d),
        np.empty(q),
    )
    log_h = 0.0
    min_log_alpha = 0.0
    for t in range(iterations):
        _draw_beta(rng, x0s, ys, sigma2, tau2, beta)
        # recompute the latent statistic once a sweep so rounding never accumulates
        for m in range(d):
            total[m] = 0.0
        for i in range(n_records):
            for m in range(d):
                total[m] += rec[i, m]
        accepted = 0
        for i in range(n_records):
            y_new = _propose_record(rng, mean_x, chol_x, beta, sigma, z, x_new)
            _record_stats(x_new, y_new, lo, hi, xt, t_new)
            log_ratio = 0.0
            for m in range(d):
                cur = total[m]
                prop = cur - rec[i, m] + t_new[m]
                r_prop = released[m] - prop
                log_ratio += _noise_log_ratio(gaussian, weight, released[m] - cur, r_prop)
            if log_ratio < min_log_alpha:
                min_log_alpha = log_ratio
            if metropolis_accept(rng, log_ratio):
                accepted += 1
                for m in range(d):
                    total[m] += t_new[m] - rec[i, m]
                    rec[i, m] = t_new[m]
                for j in range(p):
                    x0s[i, j] = x_new[j]
                ys[i] = y_new
        acc_rate[t] = accepted / n_records
        if nc_moves > 0:
            _precision_cholesky(x0s, sigma2, tau2, mv.chol)
            for _ in range(nc_moves):
                ok = _noncentred_beta_move(rng, mv, log_h, released, gaussian, weight, tau2, lo, hi)
                if ok:
                    nc_accepted[0] += 1
                if t < n_burn:
                    log_h = robbins_monro(log_h, ok, t, 0.3)
        for j in range(q):
            beta_draws[t, j] = beta[j]
    return min_log_alpha


def run_linreg(
    problem: gaussian_linreg.Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    noncentred_moves: int = 0,
) -> Chain:
    """Algorithm 1 for linear regression with clamping (ju2022 Sec. 5): draws of beta, one row
    per sweep; ``noncentred_moves`` > 0 adds that many non-centred moves of beta per sweep
    (not in the paper; they leave the posterior invariant and make the chain mix where the
    conjugate step and the record moves alone crawl; ``info.detail.noncentred_acceptance``).

    The record (:class:`dpinfer.models.gaussian_linreg.Problem`): ``released`` are the d noisy
    statistics in :func:`dpinfer.models.gaussian_linreg.stat_labels` order; ``noise`` their
    noise's law (:data:`NOISES`) and ``scale`` its Laplace scale or Gaussian sd; m =
    ``mean_x``, Sigma = ``cov_x`` and sigma^2 = ``sigma2`` known; beta ~ N(0, tau^2 I);
    ``clamp`` = (a, b) for every covariate and the response; ``n_records`` the number of
    latent records n.
    """
    released = np.ascontiguousarray(problem.released, dtype=float)
    mean_x = np.ascontiguousarray(problem.mean_x, dtype=float)
    cov_x = np.asarray(problem.cov_x, dtype=float)
    scale, sigma2, tau = problem.scale, problem.sigma2, problem.tau
    clamp, n_records = problem.clamp, problem.n_records
    gaussian = _noise_code(problem)
    p = mean_x.size
    expected = gaussian_linreg.stat_dim(p)
    if released.shape != (expected,) or cov_x.shape != (p, p):
        raise ValueError(f"released must have {expected} entries and cov_x be ({p}, {p})")
    if not (
        np.all(np.isfinite(released)) and scale > 0 and sigma2 > 0 and tau > 0 and n_records >= 1
    ):
        raise ValueError("released must be finite; scale, sigma2, tau and n_records positive")
    lo, hi = float(clamp[0]), float(clamp[1])
    if not lo < hi:
        raise ValueError("clamp must satisfy lower < upper")
    burnin, keep = check_lengths(burnin, keep)
    iterations = burnin + keep
    chol_x = np.ascontiguousarray(np.linalg.cholesky(cov_x))
    draws = np.empty((iterations, p + 1))
    acc = np.empty(iterations)
    nc_accepted = np.zeros(1, dtype=np.int64)
    moves = int(noncentred_moves)
    if moves < 0:
        raise ValueError("noncentred_moves must be >= 0")
    release = _ClampedRelease(
        released,
        float(scale),
        gaussian,
        mean_x,
        chol_x,
        float(sigma2),
        float(tau) ** 2,
        lo,
        hi,
        int(n_records),
    )
    args = (rng, release, iterations, burnin, moves, draws, acc, nc_accepted)
    min_log_alpha, seconds = timed(_linreg_kernel, *args)
    nc = float(nc_accepted[0]) / (iterations * moves) if moves else None
    return _chain(draws, acc, burnin, min_log_alpha, seconds, nc)
