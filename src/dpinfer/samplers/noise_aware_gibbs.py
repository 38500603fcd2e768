"""Noise-aware Gibbs samplers over sufficient statistics (bernstein2020, Chapter 4).

Algorithm 3 (bounded statistics: binomial, multinomial) and Algorithm 2 (unbounded statistics
with truncation: exponential). Every sampler sees only the released statistic y = s + Lap(b)
and the release record (``mechanism.scale`` = b = Delta / epsilon). The shared pieces come from
:mod:`.conditionals`: NormProduct (``norm_product_1d``, ``norm_product_moments``), the Laplace
scale-mixture update of Appendix B.2 (``laplace_mixture_precision``, started from
``initial_mixture_precision``) and exact truncated-normal draws (``truncated_normal``), which
replace the thesis's "redraw until valid" loops by the law they converge to.

Each ``run_*`` is a registered sampler with the contract of :mod:`dpinfer.samplers.registry`,
``run(problem, rng, *, burnin, keep, **options) -> Chain``, shared with the baselines
(:mod:`.conjugate`, :mod:`.ops`, :mod:`.record_wise_binomial`); ``problem`` is a
:class:`dpinfer.models.expfam.Problem` whose ``statistic`` is here the release y, ``burnin`` /
``keep`` are counted in stored draws. The chain's draws hold every
stored iteration, burn-in first (:class:`~dpinfer.samplers.base.Chain`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..models.expfam import Problem, rs_clt, truncated_exponential_moments
from .base import Chain, ExpfamDetail, Info, check_lengths, timed
from .conditionals import (
    initial_mixture_precision,
    laplace_mixture_precision,
    norm_product_1d,
    norm_product_moments,
    norm_product_work,
    truncated_normal,
)
from .linalg import psd_factor, solve_in_place

__all__ = [
    "run_binomial",
    "run_multinomial",
    "run_truncated_exponential",
    "outer_given_centre",
    "clt_log_marginal",
    "clt_posterior_mode",
]


# ----------------------------------------------------------------------------- binomial (Alg. 3)
@njit(cache=True)
def _binomial_kernel(rng, y, n, a0, b0, scale, theta, prec, out):
    """Algorithm 3 (bounded Delta_s) for Bernoulli data, Beta(a0, b0) prior;
    order s, sigma^2, theta.

    s | theta, sigma^2, y ~ NormProduct(n theta, n theta (1 - theta), y, sigma^2) restricted to
    [0, n]; 1/sigma^2 | s ~ Wald(1 / (b |y - s|), 1 / b^2) (Appendix B.2);
    theta | s ~ Beta(a0 + s, b0 + n - s) (Conjugate-Update, Appendix B.1.1).
    """
    for it in range(out.shape[0]):
        m3, v3 = norm_product_1d(n * theta, n * theta * (1.0 - theta), y, 1.0 / prec)
        s = truncated_normal(rng, m3, math.sqrt(max(v3, 0.0)), 0.0, n)
        prec = laplace_mixture_precision(rng, y - s, scale)
        theta = rng.beta(a0 + s, b0 + n - s)
        out[it] = theta


def run_binomial(problem: Problem, rng: np.random.Generator, *, burnin: int, keep: int) -> Chain:
    """Noise-aware Gibbs for theta | y, y = s + Lap(mechanism.scale), s ~ Binomial(n, theta).

    ``prior`` = (a, b) of the Beta prior. Starts from theta ~ prior and sigma^2 from its
    Exp(rate 1 / (2 b^2)) prior, as the released code does. Draws: (burnin + keep, 1).
    """
    burnin, keep = check_lengths(burnin, keep)
    y, n = problem.statistic, problem.n
    a0, b0 = (float(v) for v in problem.prior)
    scale = float(problem.mechanism.scale)
    if n < 1 or not (a0 > 0 and b0 > 0):
        raise ValueError("run_binomial: need n >= 1 and a positive Beta prior")
    out = np.empty(burnin + keep)
    theta0 = rng.beta(a0, b0)
    prec0 = initial_mixture_precision(rng, scale)
    _, seconds = timed(_binomial_kernel, rng, float(y), float(n), a0, b0, scale, theta0, prec0, out)
    return Chain(out[:, None], burnin, Info(cpu_seconds=seconds, iterations=burnin + keep))


# ----------------------------------------------------------------------------- multinomial (Alg. 3)
@njit(cache=True)
def _multinomial_kernel(rng, y, n, alpha, scale, p, prec, max_tries, out):
    """Algorithm 3 (bounded Delta_s) for K-category data; s = the first K-1 counts;
    order s, sigma^2, p.

    s | p, sigma^2, y ~ NormProduct(n p, n (diag p - p p^T), y, diag(sigma^2)) restricted to the
    simplex {s >= 0, sum s <= n}: joint draws until valid (at most ``max_tries``), else one sweep
    of exact one-coordinate truncated conditionals. Both moves leave the restricted conditional
    invariant and the choice between them does not depend on the current s. Then
    1/sigma_j^2 ~ Wald (Appendix B.2) and p ~ Dirichlet(alpha + [s, n - sum s]). Returns the
    number of iterations that needed the coordinate sweep.
    """
    d = y.shape[0]
    K = d + 1
    cov1 = np.empty((d, d))
    m1 = np.empty(d)
    omega2 = np.empty(d)
    m3 = np.empty(d)
    cov3 = np.empty((d, d))
    work = norm_product_work(d)
    chol = np.empty((d, d))
    z = np.empty(d)
    cand = np.empty(d)
    s = np.empty(d)
    g = np.empty(K)
    sweeps = 0
    for j in range(d):
        s[j] = min(max(y[j], 0.0), n / K)
    for it in range(out.shape[0]):
        for i in range(d):
            m1[i] = n * p[i]
            omega2[i] = 1.0 / prec[i]
            for j in range(d):
                cov1[i, j] = n * ((p[i] if i == j else 0.0) - p[i] * p[j])
        norm_product_moments(m1, cov1, y, omega2, m3, cov3, work)
        psd_factor(cov3, chol)
        ok = False
        for _ in range(max_tries):
            for i in range(d):
                z[i] = rng.standard_normal()
            tot = 0.0
            valid = True
            for i in range(d):
                acc = m3[i]
                for k in range(i + 1):
                    acc += chol[i, k] * z[k]
                if acc < 0.0:
                    valid = False
                tot += acc
                cand[i] = acc
            if valid and tot <= n:
                for i in range(d):
                    s[i] = cand[i]
                ok = True
                break
        if not ok:
            # one Gibbs sweep over coordinates of N(m3, cov3) restricted to the simplex
            sweeps += 1
            prec3 = np.eye(d)
            solve_in_place(cov3, prec3)
            for i in range(d):
                cm = m3[i]
                for k in range(d):
                    if k != i:
                        cm -= prec3[i, k] / prec3[i, i] * (s[k] - m3[k])
                rest = 0.0
                for k in range(d):
                    if k != i:
                        rest += s[k]
                hi = n - rest
                if hi < 0.0:
                    hi = 0.0
                s[i] = truncated_normal(rng, cm, 1.0 / math.sqrt(prec3[i, i]), 0.0, hi + 1e-12)
        for j in range(d):
            prec[j] = laplace_mixture_precision(rng, y[j] - s[j], scale)
        tot = 0.0
        gsum = 0.0
        for j in range(d):
            g[j] = rng.gamma(alpha[j] + s[j], 1.0)
            tot += s[j]
        last = n - tot
        if last < 0.0:
            last = 0.0
        g[d] = rng.gamma(alpha[d] + last, 1.0)
        for j in range(K):
            gsum += g[j]
        for j in range(K):
            p[j] = max(g[j] / gsum, 1e-300)
            out[it, j] = p[j]
    return sweeps


def run_multinomial(
    problem: Problem, rng: np.random.Generator, *, burnin: int, keep: int, max_tries: int = 100
) -> Chain:
    """Noise-aware Gibbs for p | y, y = first K-1 counts + Lap(mechanism.scale) each.

    ``prior`` = the K Dirichlet concentrations. Draws of p: (burnin + keep, K).
    ``info.clipped["coordinate_sweeps"]`` counts the iterations whose joint draw found no valid
    count vector in ``max_tries`` tries.
    """
    burnin, keep = check_lengths(burnin, keep)
    y, n = np.asarray(problem.statistic, dtype=float).ravel(), problem.n
    alpha = np.asarray(problem.prior, dtype=float).ravel()
    scale = float(problem.mechanism.scale)
    if alpha.shape[0] != y.shape[0] + 1 or np.any(alpha <= 0):
        raise ValueError("run_multinomial: need K positive concentrations and K-1 released counts")
    if n < 1 or max_tries < 1:
        raise ValueError("run_multinomial: need n >= 1 and max_tries >= 1")
    out = np.empty((burnin + keep, alpha.shape[0]))
    p0 = rng.dirichlet(alpha)
    prec0 = np.array([initial_mixture_precision(rng, scale) for _ in range(y.shape[0])])
    args = (rng, y, float(n), alpha, scale, p0, prec0, int(max_tries), out)
    sweeps, seconds = timed(_multinomial_kernel, *args)
    info = Info(
        cpu_seconds=seconds,
        iterations=burnin + keep,
        clipped={"coordinate_sweeps": int(sweeps)},
    )
    return Chain(out, burnin, info)


# ----------------------------------------------------------------------------- exponential (Alg. 2)
@njit(cache=True)
def _region_terms(lam, v, w, n):
    """(q, mu_hat, m, V) of one region [v, w]: mass, truncated mean (Lemma 1) and the RS-CLT
    mean and variance of Proposition 5 (as :func:`dpinfer.models.expfam.rs_clt`)."""
    q, mu, var = truncated_exponential_moments(lam, v, w)
    return q, mu, n * q * mu, n * q * var + n * q * (1.0 - q) * mu * mu


@njit(cache=True)
def outer_given_centre(lam, a, b, n, s_c):
    """Mean and variance of s_out = s_l + s_u given s_c under the joint RS-CLT of the three
    regions of Eqs. (4.5)-(4.7) (Proposition 5 with the multinomial region counts).

    The region counts are Multinomial(n, (q_l, q_c, q_u)), so the region sums are jointly normal
    with Cov(s_r, s_t) = -n q_r q_t mu_r mu_t (r != t) besides the RS-CLT variances V_r; the
    total then has the exact mean n / lam and variance n / lam^2. Conditioning on s_c:
    E = m_out + k (s_c - m_c), Var = V_out - k^2 V_c, k = Cov(s_c, s_out) / V_c.
    """
    q_l, mu_l, m_l, v_l = _region_terms(lam, 0.0, a, n)
    q_c, mu_c, m_c, v_c = _region_terms(lam, a, b, n)
    q_u, mu_u, m_u, v_u = _region_terms(lam, b, math.inf, n)
    m_out = m_l + m_u
    v_out = v_l + v_u - 2.0 * n * q_l * q_u * mu_l * mu_u
    cov = -n * q_c * mu_c * (q_l * mu_l + q_u * mu_u)
    if v_c <= 0.0:
        return m_out, max(v_out, 0.0)
    k = cov / v_c
    return m_out + k * (s_c - m_c), max(v_out - k * cov, 0.0)


class _TruncatedRelease(NamedTuple):
    """What the truncated-exponential kernel conditions on: the noisy sum y of n records, the
    Gamma prior (shape0, rate0), the truncation bounds [a, b] and the Laplace scale."""

    y: float
    n: float
    shape0: float
    rate0: float
    a: float
    b: float
    scale: float


@njit(cache=True)
def _truncated_exponential_kernel(rng, release, lam, prec, thin, out):
    """Algorithm 2 (unbounded Delta_s) for Exp(lam) data truncated to [a, b], Gamma prior, given a
    :class:`_TruncatedRelease`; starts at (lam, prec).

    Per iteration, with (m_c, V_c) = RS-CLT(lam, [a, b]) (Algorithm 3 'RS-CLT', m = n q mu_hat):
    s_c | lam, sigma^2, y ~ NormProduct(m_c, V_c, y, sigma^2) restricted to [0, n b]; then
    s_out = s_l + s_u | s_c, lam from the *joint* RS-CLT normal of the three region sums
    (:func:`outer_given_centre`: the region counts are multinomial, so the sums are negatively
    correlated), restricted so that s = s_c + s_out >= 0 (the code's validity rule);
    1/sigma^2 from |y - s_c| (Appendix B.2); lam ~ Gamma(shape0 + n, rate0 + s). The
    (s_c, s_out) draw is one block from its conditional, so the scan is a Gibbs sampler of the
    augmented model. Every ``thin``-th lam is stored.

    Drawing s_l + s_u independently of s_c (the thesis's generative process) lets the lam update
    see s_c pulled towards y without the compensating drop of the outer sums: at n = 10000 such
    a chain drifts far from the posterior. Restricting s_l and s_u separately at 0 biases s
    upwards at small n (their CLT means are near 0). See docs/deviations.md.
    """
    y, n, shape0, rate0, a, b, scale = release
    for it in range(out.shape[0] * thin):
        m_c, v_c = rs_clt(lam, a, b, n)
        m3, v3 = norm_product_1d(m_c, v_c, y, 1.0 / prec)
        s_c = truncated_normal(rng, m3, math.sqrt(max(v3, 0.0)), 0.0, n * b)
        # lower + upper regions together given s_c, restricted so that the total s stays >= 0
        m_o, v_o = outer_given_centre(lam, a, b, n, s_c)
        s_out = truncated_normal(rng, m_o, math.sqrt(v_o), -s_c, math.inf)
        prec = laplace_mixture_precision(rng, y - s_c, scale)
        lam = rng.gamma(shape0 + n, 1.0 / (rate0 + s_c + s_out))
        if (it + 1) % thin == 0:
            out[it // thin] = lam


def clt_log_marginal(lam, y, n, bounds, scale):
    """log p(y | lam) under the RS-CLT: N(s_c; m_c, V_c) convolved with Lap(scale), closed form.

    Vectorised over ``lam``. With d = y - m_c and sd = sqrt(V_c):
    p = e^{V_c / (2 scale^2)} / (2 scale) [e^{-d/scale} Phi(d/sd - sd/scale)
    + e^{d/scale} Phi(-d/sd - sd/scale)].
    Used for the start of the exponential chain and by the tests as the CLT posterior.
    """
    from scipy.special import log_ndtr

    a, b = (float(v) for v in bounds)
    lam = np.atleast_1d(np.asarray(lam, dtype=float))
    mv = np.array([rs_clt(float(v), a, b, float(n)) for v in lam])
    V = np.maximum(mv[:, 1], 1e-300)
    sd, d = np.sqrt(V), float(y) - mv[:, 0]
    return (
        np.logaddexp(
            -d / scale + log_ndtr(d / sd - sd / scale), d / scale + log_ndtr(-d / sd - sd / scale)
        )
        + V / (2.0 * scale * scale)
        - math.log(2.0 * scale)
    )


def clt_posterior_mode(y, n, prior, bounds, scale, points: int = 4000) -> float:
    """Mode of Gamma prior x :func:`clt_log_marginal` on a log grid over the prior's 1e-9..1-1e-9
    range.

    m_c(lam) rises and then falls in lam (a small rate puts most individuals above b), so p(y | lam)
    can have a second, tiny mode at small lam; a chain started there stays for >> 10^5 iterations.
    """
    from scipy import stats

    shape0, rate0 = (float(v) for v in prior)
    lo, hi = stats.gamma.ppf([1e-9, 1.0 - 1e-9], shape0, scale=1.0 / rate0)
    grid = np.geomspace(lo, hi, points)
    lp = stats.gamma.logpdf(grid, shape0, scale=1.0 / rate0) + clt_log_marginal(
        grid, y, n, bounds, scale
    )
    return float(grid[int(np.nanargmax(lp))])


def run_truncated_exponential(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    bounds: tuple[float, float],
    thin: int = 1,
    init: str = "mode",
) -> Chain:
    """Noise-aware Gibbs for lam | y, y = sum of x_i in [a, b] + Lap(mechanism.scale),
    x_i ~ Exp(lam).

    ``prior`` = (shape, rate) of the Gamma prior; ``bounds`` = (a, b) with 0 <= a < b, public.
    Stores every ``thin``-th iteration: draws of lam (burnin + keep, 1) from
    (burnin + keep) * thin Gibbs iterations. Start: sigma^2 from its prior; lam at the mode of
    the RS-CLT marginal posterior (``init="mode"``, :func:`clt_posterior_mode`, deterministic) or
    from the prior (``init="prior"``, the released code, which can start in the basin of a
    negligible low-lam mode and stay there). ``info.detail.lam0`` is the start.
    """
    burnin, keep = check_lengths(burnin, keep)
    y, n, prior = problem.statistic, problem.n, problem.prior
    shape0, rate0 = (float(v) for v in prior)
    a, b = (float(v) for v in bounds)
    scale = float(problem.mechanism.scale)
    thin = int(thin)
    if not (0.0 <= a < b < math.inf) or n < 1 or thin < 1:
        raise ValueError("run_truncated_exponential: need 0 <= a < b < inf, n >= 1, thin >= 1")
    out = np.empty(burnin + keep)
    if init == "prior":
        lam0 = rng.gamma(shape0, 1.0 / rate0)
    elif init == "mode":
        lam0 = clt_posterior_mode(y, n, prior, bounds, scale)
    else:
        raise ValueError(f"run_truncated_exponential: unknown init {init!r}")
    prec0 = initial_mixture_precision(rng, scale)
    release = _TruncatedRelease(float(y), float(n), shape0, rate0, a, b, scale)
    _, seconds = timed(_truncated_exponential_kernel, rng, release, lam0, prec0, thin, out)
    info = Info(
        cpu_seconds=seconds,
        iterations=(burnin + keep) * thin,
        thin=thin,
        detail=ExpfamDetail(lam0=float(lam0)),
    )
    return Chain(out[:, None], burnin, info)
