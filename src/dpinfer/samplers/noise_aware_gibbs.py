"""Noise-aware Gibbs samplers over sufficient statistics (bernstein2020, Chapter 4).

Algorithm 3 (bounded statistics: binomial, multinomial) and Algorithm 2 (unbounded statistics
with truncation: exponential), plus the generic pieces chapter 5 reuses:

- :func:`norm_product` (subroutine NormProduct): N(mu1, S1) N(mu2, S2) is proportional to
  N(mu3, S3), S3 = (S1^-1 + S2^-1)^-1, mu3 = S3 (S1^-1 mu1 + S2^-1 mu2). Kernels use the
  equivalent form S3 = S1 - S1 (S1 + S2)^-1 S1, which stays finite when S1 is near singular.
- :func:`wald_draw`: inverse-Gaussian draw (Michael, Schucany and Haas 1976) with the smaller
  root computed as mu^2 / (larger root), so a huge mean (a tiny residual) loses no precision.
- :func:`laplace_mixture_precision` / :func:`sample_laplace_mixture_precisions`: the Park and
  Casella (2008) update of Appendix B.2. With y - s ~ Lap(0, b) written as N(0, sigma^2),
  sigma^2 ~ Exp(rate 1 / (2 b^2)), the full conditional of 1/sigma^2 is
  Wald(mean 1 / (b |y - s|), shape 1 / b^2).
- :func:`truncated_normal`: exact draws from N(mu, sd^2) restricted to [lo, hi] (normal, uniform
  or exponential-proposal rejection by Robert 1995, chosen so acceptance stays above ~0.04). It
  replaces the "redraw until valid" loops of the thesis by the distribution they converge to.

Every kernel is a module-level ``@njit(cache=True)`` function that takes an explicit
``np.random.Generator``. The public ``run_*`` functions validate, allocate and return a
:class:`Chain` of all iterations (burn-in included; callers slice it).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ..models.expfam import rs_clt, truncated_exponential_moments
from .linalg import psd_factor

__all__ = [
    "Chain",
    "norm_product",
    "wald_draw",
    "laplace_mixture_precision",
    "sample_laplace_mixture_precisions",
    "truncated_normal",
    "run_binomial",
    "run_multinomial",
    "run_truncated_exponential",
    "outer_given_centre",
    "clt_log_marginal",
    "clt_posterior_mode",
    "SAMPLERS",
]

_TINY = 1e-12


@dataclass
class Chain:
    """Draws of the parameter (iterations x dim) and an info record (timings, settings)."""

    draws: np.ndarray
    info: dict = field(default_factory=dict)


# ----------------------------------------------------------------------------- generic pieces
def norm_product(mu1, cov1, mu2, cov2):
    """NormProduct(mu1, Sigma1, mu2, Sigma2) -> (mu3, Sigma3) (Algorithm 3 subroutine).

    Accepts scalars or vectors with matrices; uses S3 = S1 - S1 (S1 + S2)^-1 S1 and
    mu3 = mu1 + S1 (S1 + S2)^-1 (mu2 - mu1), the same product written without inverting S1.
    """
    mu1 = np.atleast_1d(np.asarray(mu1, dtype=float))
    mu2 = np.atleast_1d(np.asarray(mu2, dtype=float))
    cov1 = np.atleast_2d(np.asarray(cov1, dtype=float))
    cov2 = np.atleast_2d(np.asarray(cov2, dtype=float))
    d = mu1.shape[0]
    if mu2.shape != (d,) or cov1.shape != (d, d) or cov2.shape != (d, d):
        raise ValueError("norm_product: shapes of means and covariances disagree")
    gain = np.linalg.solve(cov1 + cov2, cov1).T  # S1 (S1 + S2)^-1 (both symmetric)
    mu3 = mu1 + gain @ (mu2 - mu1)
    cov3 = cov1 - gain @ cov1
    return mu3, 0.5 * (cov3 + cov3.T)


@njit(cache=True)
def wald_draw(rng, mean, shape):
    """One inverse-Gaussian draw with the numpy parameterisation Wald(mean, shape)."""
    nu = rng.standard_normal()
    nu = nu * nu
    mu2 = mean * mean
    big = mean + mu2 * nu / (2.0 * shape) + mean / (2.0 * shape) * math.sqrt(4.0 * mean * shape * nu + mu2 * nu * nu)
    small = mu2 / big
    if rng.random() * (mean + small) <= mean:
        return small
    return big


@njit(cache=True)
def laplace_mixture_precision(rng, residual, scale):
    """Draw 1/sigma^2 | residual for Laplace(0, scale) noise as a normal scale mixture (B.2)."""
    r = abs(residual)
    if r < _TINY * scale:
        r = _TINY * scale
    return wald_draw(rng, 1.0 / (scale * r), 1.0 / (scale * scale))


@njit(cache=True)
def sample_laplace_mixture_precisions(rng, residuals, scale):
    """Vector version of :func:`laplace_mixture_precision`: one precision per residual."""
    out = np.empty(residuals.shape[0])
    for j in range(residuals.shape[0]):
        out[j] = laplace_mixture_precision(rng, residuals[j], scale)
    return out


@njit(cache=True)
def _tail_std(rng, lo, hi):
    """Standard normal restricted to [lo, hi] with 0 <= lo < hi (hi may be inf)."""
    if hi * hi - lo * lo < 2.0:
        # narrow interval: uniform proposal, acceptance >= e^-1
        while True:
            z = lo + (hi - lo) * rng.random()
            if math.log(rng.random()) <= 0.5 * (lo * lo - z * z):
                return z
    if lo < 0.3:
        # wide interval near the mode: half-normal rejection, acceptance >= ~0.5
        while True:
            z = abs(rng.standard_normal())
            if lo <= z <= hi:
                return z
    alpha = 0.5 * (lo + math.sqrt(lo * lo + 4.0))
    while True:
        z = lo + rng.exponential(1.0) / alpha
        if z <= hi and math.log(rng.random()) <= -0.5 * (z - alpha) * (z - alpha):
            return z


@njit(cache=True)
def _truncated_std(rng, lo, hi):
    if lo >= 0.0:
        return _tail_std(rng, lo, hi)
    if hi <= 0.0:
        return -_tail_std(rng, -hi, -lo)
    if hi - lo > 2.5:
        while True:
            z = rng.standard_normal()
            if lo <= z <= hi:
                return z
    while True:
        z = lo + (hi - lo) * rng.random()
        if math.log(rng.random()) <= -0.5 * z * z:
            return z


@njit(cache=True)
def truncated_normal(rng, mu, sd, lo, hi):
    """One draw of N(mu, sd^2) restricted to [lo, hi] (lo < hi; either may be infinite)."""
    if sd <= 0.0:
        return min(max(mu, lo), hi)
    return mu + sd * _truncated_std(rng, (lo - mu) / sd, (hi - mu) / sd)


@njit(cache=True)
def _initial_precision(rng, scale):
    """1/sigma^2 with sigma^2 from its prior Exp(rate 1 / (2 scale^2)) (the code's start)."""
    sig2 = rng.exponential(2.0 * scale * scale)
    if sig2 < 1e-300:
        sig2 = 1e-300
    return 1.0 / sig2


# ----------------------------------------------------------------------------- binomial (Alg. 3)
@njit(cache=True)
def _binomial_kernel(rng, y, n, a0, b0, scale, theta, prec, out):
    """Algorithm 3 for Bernoulli data with a Beta(a0, b0) prior; update order s, sigma^2, theta.

    s | theta, sigma^2, y ~ NormProduct(n theta, n theta (1 - theta), y, sigma^2) restricted to
    [0, n]; 1/sigma^2 | s ~ Wald; theta | s ~ Beta(a0 + s, b0 + n - s).
    """
    for it in range(out.shape[0]):
        v1 = n * theta * (1.0 - theta)
        m1 = n * theta
        v2 = 1.0 / prec
        g = v1 / (v1 + v2)
        m3 = m1 + g * (y - m1)
        v3 = v1 - g * v1
        s = truncated_normal(rng, m3, math.sqrt(max(v3, 0.0)), 0.0, n)
        prec = laplace_mixture_precision(rng, y - s, scale)
        theta = rng.beta(a0 + s, b0 + n - s)
        out[it] = theta


def run_binomial(y: float, n: int, prior, scale: float, iterations: int, rng: np.random.Generator) -> Chain:
    """Noise-aware Gibbs for theta | y with y = s + Lap(scale), s ~ Binomial(n, theta).

    Starts from theta ~ prior and sigma^2 ~ Exp(rate 1/(2 scale^2)) as the released code does.
    Returns all ``iterations`` draws of theta (shape (iterations, 1)).
    """
    a0, b0 = (float(v) for v in prior)
    if n < 1 or iterations < 1 or not scale > 0 or not (a0 > 0 and b0 > 0):
        raise ValueError("run_binomial: need n >= 1, iterations >= 1, scale > 0, positive prior")
    out = np.empty(iterations)
    theta0 = rng.beta(a0, b0)
    prec0 = _initial_precision(rng, scale)
    t0 = time.process_time()
    _binomial_kernel(rng, float(y), float(n), a0, b0, float(scale), theta0, prec0, out)
    return Chain(out[:, None], {"cpu_seconds": time.process_time() - t0})


# ----------------------------------------------------------------------------- multinomial (Alg. 3)
@njit(cache=True)
def _chol_solve_inplace(a, b):
    """Solve a x = b (a symmetric positive definite, small) by Gaussian elimination; b -> x."""
    d = a.shape[0]
    m = a.copy()
    for k in range(d):
        piv = m[k, k]
        for i in range(k + 1, d):
            f = m[i, k] / piv
            for j in range(k, d):
                m[i, j] -= f * m[k, j]
            for c in range(b.shape[1]):
                b[i, c] -= f * b[k, c]
    for k in range(d - 1, -1, -1):
        for c in range(b.shape[1]):
            acc = b[k, c]
            for j in range(k + 1, d):
                acc -= m[k, j] * b[j, c]
            b[k, c] = acc / m[k, k]


@njit(cache=True)
def _multinomial_kernel(rng, y, n, alpha, scale, p, prec, max_tries, out):
    """Algorithm 3 for K-category data; s = first K-1 counts; order s, sigma^2, p.

    s | p, sigma^2, y ~ NormProduct(n p, n (diag p - p p^T), y, diag(sigma^2)) restricted to the
    simplex {s >= 0, sum s <= n}: joint draws until valid (at most ``max_tries``), else one sweep
    of exact one-coordinate truncated conditionals. Both moves leave the restricted conditional
    invariant and the choice between them does not depend on the current s. Then
    1/sigma_j^2 ~ Wald and p ~ Dirichlet(alpha + [s, n - sum s]).
    """
    d = y.shape[0]
    K = d + 1
    cov1 = np.empty((d, d))
    m1 = np.empty(d)
    tmp = np.empty((d, d))
    gain = np.empty((d, d))
    cov3 = np.empty((d, d))
    m3 = np.empty(d)
    chol = np.empty((d, d))
    z = np.empty(d)
    s = np.empty(d)
    g = np.empty(K)
    for j in range(d):
        s[j] = min(max(y[j], 0.0), n / K)
    for it in range(out.shape[0]):
        for i in range(d):
            m1[i] = n * p[i]
            for j in range(d):
                cov1[i, j] = n * ((p[i] if i == j else 0.0) - p[i] * p[j])
        # gain = S1 (S1 + D)^-1: solve (S1 + D) X = S1, gain = X^T
        for i in range(d):
            for j in range(d):
                tmp[i, j] = cov1[i, j]
        a = cov1.copy()
        for i in range(d):
            a[i, i] += 1.0 / prec[i]
        _chol_solve_inplace(a, tmp)
        for i in range(d):
            for j in range(d):
                gain[i, j] = tmp[j, i]
        for i in range(d):
            acc = m1[i]
            for j in range(d):
                acc += gain[i, j] * (y[j] - m1[j])
            m3[i] = acc
            for j in range(d):
                acc2 = cov1[i, j]
                for k in range(d):
                    acc2 -= gain[i, k] * cov1[k, j]
                cov3[i, j] = acc2
        for i in range(d):
            for j in range(i):
                c = 0.5 * (cov3[i, j] + cov3[j, i])
                cov3[i, j] = c
                cov3[j, i] = c
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
                s_i = acc
                if s_i < 0.0:
                    valid = False
                tot += s_i
                tmp[0, i] = s_i
            if valid and tot <= n:
                for i in range(d):
                    s[i] = tmp[0, i]
                ok = True
                break
        if not ok:
            # one Gibbs sweep over coordinates of N(m3, cov3) restricted to the simplex
            prec3 = np.eye(d)
            _chol_solve_inplace(cov3, prec3)
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


def run_multinomial(y, n: int, alpha, scale: float, iterations: int, rng: np.random.Generator,
                    max_tries: int = 100) -> Chain:
    """Noise-aware Gibbs for p | y, y = first K-1 counts + Lap(scale) each; draws (iterations, K)."""
    y = np.asarray(y, dtype=float).ravel()
    alpha = np.asarray(alpha, dtype=float).ravel()
    if alpha.shape[0] != y.shape[0] + 1 or np.any(alpha <= 0):
        raise ValueError("run_multinomial: need K positive concentrations and K-1 released counts")
    if n < 1 or iterations < 1 or not scale > 0:
        raise ValueError("run_multinomial: need n >= 1, iterations >= 1, scale > 0")
    out = np.empty((iterations, alpha.shape[0]))
    p0 = rng.dirichlet(alpha)
    prec0 = np.array([_initial_precision(rng, scale) for _ in range(y.shape[0])])
    t0 = time.process_time()
    _multinomial_kernel(rng, y, float(n), alpha, float(scale), p0, prec0, int(max_tries), out)
    return Chain(out, {"cpu_seconds": time.process_time() - t0})


# ----------------------------------------------------------------------------- exponential (Alg. 2)
@njit(cache=True)
def _region_terms(lam, v, w, n):
    """(q, mu_hat, m, V): mass, truncated mean and RS-CLT mean and variance for [v, w] (as rs_clt)."""
    q, mu, var = truncated_exponential_moments(lam, v, w)
    return q, mu, n * q * mu, n * q * var + n * q * (1.0 - q) * mu * mu


@njit(cache=True)
def outer_given_centre(lam, a, b, n, s_c):
    """Mean and variance of s_out = s_l + s_u given s_c under the joint RS-CLT of the three regions.

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


@njit(cache=True)
def _truncated_exponential_kernel(rng, y, n, shape0, rate0, a, b, scale, lam, prec, thin, out):
    """Algorithm 2 (unbounded statistics) for Exp(lam) data truncated to [a, b], Gamma prior.

    Per iteration, with (m_c, V_c) = RS-CLT(lam, [a, b]): s_c | lam, sigma^2, y ~
    NormProduct(m_c, V_c, y, sigma^2) restricted to [0, n b]; then s_out = s_l + s_u | s_c, lam
    from the *joint* RS-CLT normal of the three region sums (:func:`outer_given_centre`: the
    region counts are multinomial, so the sums are negatively correlated), restricted so that
    s = s_c + s_out >= 0 (the code's validity rule); 1/sigma^2 from |y - s_c|;
    lam ~ Gamma(shape0 + n, rate0 + s). The (s_c, s_out) draw is one block from its conditional,
    so the scan is a Gibbs sampler of the augmented model. Every ``thin``-th lam is stored.

    Drawing s_l + s_u independently of s_c (thesis Alg. 2's generative process and the first
    version here) makes the lam update see s_c pulled towards y without the compensating drop of
    the outer sums: at n = 10000 the chain drifts to lam far from the posterior (docs/deviations).
    Restricting s_l and s_u separately at 0 biases s upwards at small n (their CLT means are
    near 0): the KS statistic at n = 10 rose from ~0.05 to ~0.2.
    """
    for it in range(out.shape[0] * thin):
        m_c, v_c = rs_clt(lam, a, b, n)
        v2 = 1.0 / prec
        g = v_c / (v_c + v2)
        m3 = m_c + g * (y - m_c)
        v3 = v_c - g * v_c
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
    p = e^{V_c / (2 scale^2)} / (2 scale) [e^{-d/scale} Phi(d/sd - sd/scale) + e^{d/scale} Phi(-d/sd - sd/scale)].
    Used for the start of the exponential chain and by the tests as the CLT posterior.
    """
    from scipy.special import log_ndtr

    a, b = (float(v) for v in bounds)
    lam = np.atleast_1d(np.asarray(lam, dtype=float))
    mv = np.array([rs_clt(float(v), a, b, float(n)) for v in lam])
    V = np.maximum(mv[:, 1], 1e-300)
    sd, d = np.sqrt(V), float(y) - mv[:, 0]
    return (np.logaddexp(-d / scale + log_ndtr(d / sd - sd / scale), d / scale + log_ndtr(-d / sd - sd / scale))
            + V / (2.0 * scale * scale) - math.log(2.0 * scale))


def clt_posterior_mode(y, n, prior, bounds, scale, points: int = 4000) -> float:
    """Mode of Gamma prior x :func:`clt_log_marginal` on a log grid over the prior's 1e-9..1-1e-9 range.

    m_c(lam) rises and then falls in lam (a small rate puts most individuals above b), so p(y | lam)
    can have a second, tiny mode at small lam; a chain started there stays for >> 10^5 iterations.
    """
    from scipy import stats

    shape0, rate0 = (float(v) for v in prior)
    lo, hi = stats.gamma.ppf([1e-9, 1.0 - 1e-9], shape0, scale=1.0 / rate0)
    grid = np.geomspace(lo, hi, points)
    lp = stats.gamma.logpdf(grid, shape0, scale=1.0 / rate0) + clt_log_marginal(grid, y, n, bounds, scale)
    return float(grid[int(np.nanargmax(lp))])


def run_truncated_exponential(y: float, n: int, prior, bounds, scale: float, iterations: int,
                              rng: np.random.Generator, thin: int = 1, init: str = "mode") -> Chain:
    """Noise-aware Gibbs for lam | y, y = sum of x_i in [a, b] + Lap(scale), x_i ~ Exp(lam).

    ``prior`` = (shape, rate) of the Gamma prior; ``bounds`` = (a, b) with 0 <= a < b.
    Keeps every ``thin``-th iteration: returns ``iterations`` draws of lam (shape (iterations, 1))
    from ``iterations * thin`` Gibbs iterations. Start: sigma^2 from its prior; lam at the mode of
    the RS-CLT marginal posterior (``init="mode"``, :func:`clt_posterior_mode`, deterministic) or
    from the prior (``init="prior"``, the released code, which can start in the basin of a
    negligible low-lam mode and stay there).
    """
    shape0, rate0 = (float(v) for v in prior)
    a, b = (float(v) for v in bounds)
    if not (0.0 <= a < b < math.inf) or n < 1 or iterations < 1 or not scale > 0 or int(thin) < 1:
        raise ValueError("run_truncated_exponential: need 0 <= a < b < inf, n >= 1, scale > 0, thin >= 1")
    out = np.empty(iterations)
    if init == "prior":
        lam0 = rng.gamma(shape0, 1.0 / rate0)
    elif init == "mode":
        lam0 = clt_posterior_mode(y, n, prior, bounds, scale)
    else:
        raise ValueError(f"run_truncated_exponential: unknown init {init!r}")
    prec0 = _initial_precision(rng, scale)
    t0 = time.process_time()
    _truncated_exponential_kernel(rng, float(y), float(n), shape0, rate0, a, b, float(scale), lam0, prec0,
                                  int(thin), out)
    return Chain(out[:, None], {"cpu_seconds": time.process_time() - t0, "thin": int(thin), "lam0": lam0})


SAMPLERS = {
    "binomial": run_binomial,
    "multinomial": run_multinomial,
    "exponential": run_truncated_exponential,
}
