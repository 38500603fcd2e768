"""Shared numba draws that several samplers build on (one implementation each).

- :func:`metropolis_accept`: the accept step of a Metropolis-Hastings ratio given in log scale.
- :func:`dirichlet`, :func:`categorical`: conjugate and model draws of discrete models.
- :func:`wald_draw`, :func:`laplace_mixture_precision`: the Park and Casella (2008) update of
  bernstein2020 Appendix B.2. Laplace(0, b) noise is the scale mixture N(0, omega^2),
  omega^2 ~ Exp(rate 1 / (2 b^2)), and 1/omega^2 | residual ~ Wald(1 / (b |residual|), 1 / b^2).
- :func:`norm_product_1d`, :func:`norm_product_moments`, :func:`norm_product_draw`: the
  subroutine NormProduct of bernstein2020 (Algorithms 3 and 7): N(mu1, S1) N(mu2, S2) is
  proportional to N(mu3, S3) with S3 = S1 - S1 (S1 + S2)^-1 S1 and
  mu3 = mu1 + S1 (S1 + S2)^-1 (mu2 - mu1), written without inverting S1 so it stays finite when
  S1 is singular (S2 = diag(omega^2) > 0 keeps S1 + S2 definite).
- :func:`truncated_normal`: exact draws of N(mu, sd^2) restricted to [lo, hi].

Every function takes an explicit ``np.random.Generator`` where it draws, and none allocates in
the common path.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .linalg import psd_factor

__all__ = [
    "metropolis_accept",
    "robbins_monro",
    "dirichlet",
    "categorical",
    "wald_draw",
    "laplace_mixture_precision",
    "initial_mixture_precision",
    "norm_product_1d",
    "NormProductWork",
    "norm_product_work",
    "norm_product_moments",
    "norm_product_draw",
    "norm_product",
    "truncated_normal",
]

_TINY = 1e-12


# ----------------------------------------------------------------------------- Metropolis
@njit(cache=True)
def metropolis_accept(rng, log_ratio):
    """Accept with probability min(1, exp(log_ratio)): no draw when log_ratio >= 0, otherwise
    compare an Exp(1) draw with -log_ratio (log U = -Exp(1))."""
    return log_ratio >= 0.0 or rng.standard_exponential() > -log_ratio


@njit(cache=True)
def robbins_monro(log_step, accepted, it, target):
    """One Robbins-Monro update of a log step size towards the acceptance rate ``target``
    (burn-in only: adapting after it would change the chain's stationary law)."""
    return log_step + ((1.0 if accepted else 0.0) - target) / math.sqrt(it + 1.0)


# ----------------------------------------------------------------------------- discrete models
@njit(cache=True)
def dirichlet(rng, conc, out):
    """out ~ Dirichlet(conc) by normalised Gamma(conc_i, 1) draws."""
    s = 0.0
    for i in range(conc.size):
        out[i] = rng.gamma(conc[i], 1.0)
        s += out[i]
    for i in range(conc.size):
        out[i] /= s


@njit(cache=True)
def categorical(rng, probs):
    """Index k with probability probs[k] (inverse CDF; the last index takes the round-off)."""
    u = rng.random()
    c = 0.0
    last = probs.size - 1
    for k in range(last):
        c += probs[k]
        if u < c:
            return k
    return last


# ----------------------------------------------------------------------------- Laplace as a mixture
@njit(cache=True)
def wald_draw(rng, mean, shape):
    """One inverse-Gaussian draw, numpy's parameterisation Wald(mean, shape) (Michael, Schucany
    and Haas 1976). The smaller root is mean^2 / (larger root), so a huge mean (a tiny residual)
    loses no precision where ``Generator.wald`` returns exactly 0."""
    nu = rng.standard_normal()
    nu = nu * nu
    mu2 = mean * mean
    big = (
        mean
        + mu2 * nu / (2.0 * shape)
        + mean / (2.0 * shape) * math.sqrt(4.0 * mean * shape * nu + mu2 * nu * nu)
    )
    small = mu2 / big
    if rng.random() * (mean + small) <= mean:
        return small
    return big


@njit(cache=True)
def laplace_mixture_precision(rng, residual, scale):
    """1/omega^2 | residual for Laplace(0, scale) noise written as N(0, omega^2) (Appendix B.2):
    Wald(1 / (scale |residual|), 1 / scale^2); |residual| is floored at 1e-12 scale."""
    r = abs(residual)
    if r < _TINY * scale:
        r = _TINY * scale
    return wald_draw(rng, 1.0 / (scale * r), 1.0 / (scale * scale))


@njit(cache=True)
def initial_mixture_precision(rng, scale):
    """1/omega^2 with omega^2 from its prior Exp(rate 1 / (2 scale^2)): the released code's
    start."""
    sig2 = rng.exponential(2.0 * scale * scale)
    if sig2 < 1e-300:
        sig2 = 1e-300
    return 1.0 / sig2


# ----------------------------------------------------------------------------- NormProduct
@njit(cache=True)
def norm_product_1d(m1, v1, m2, v2):
    """NormProduct for scalars: (mu3, S3) of N(m1, v1) N(m2, v2)."""
    g = v1 / (v1 + v2)
    return m1 + g * (m2 - m1), v1 - g * v1


class NormProductWork(NamedTuple):
    """Scratch of the NormProduct helpers for k statistics: a, l, w (k, k) and v (3, k)."""

    a: np.ndarray
    l: np.ndarray
    w: np.ndarray
    v: np.ndarray


@njit(cache=True)
def norm_product_work(k):
    """A :class:`NormProductWork` for k statistics."""
    return NormProductWork(np.empty((k, k)), np.empty((k, k)), np.empty((k, k)), np.empty((3, k)))


@njit(cache=True)
def norm_product_moments(mean, v, z, omega2, mu3, cov3, work):
    """NormProduct(mean, V, z, diag(omega2)) moments into mu3 (k) and cov3 (k, k).

    ``work`` is a :class:`NormProductWork` (cov3 may be its ``a``). The gain
    W = (V + D)^-1 V comes from a Cholesky factor of V + D and two triangular solves per column;
    mu3 = mean + W' (z - mean), S3 = V - V W, symmetrised from its upper triangle.
    """
    work_a = work.a
    work_l = work.l
    work_w = work.w
    r = work.v[0]
    k = mean.shape[0]
    for i in range(k):
        for j in range(k):
            work_a[i, j] = v[i, j]
        work_a[i, i] += omega2[i]
    psd_factor(work_a, work_l)
    for c in range(k):
        for i in range(k):
            acc = v[i, c]
            for p in range(i):
                acc -= work_l[i, p] * work_w[p, c]
            work_w[i, c] = acc / work_l[i, i]
        for i in range(k - 1, -1, -1):
            acc = work_w[i, c]
            for p in range(i + 1, k):
                acc -= work_l[p, i] * work_w[p, c]
            work_w[i, c] = acc / work_l[i, i]
    for i in range(k):
        r[i] = z[i] - mean[i]
    for i in range(k):
        acc = mean[i]
        for p in range(k):
            acc += work_w[p, i] * r[p]  # V (V + D)^-1 r = W' r (V, D symmetric)
        mu3[i] = acc
    for i in range(k):
        for j in range(i, k):
            acc = v[i, j]
            for p in range(k):
                acc -= v[i, p] * work_w[p, j]
            cov3[i, j] = acc
    for i in range(k):
        for j in range(i + 1, k):
            cov3[j, i] = cov3[i, j]


@njit(cache=True)
def norm_product_draw(rng, mean, v, z, omega2, s, work):
    """s ~ NormProduct(mean, V, z, diag(omega2)) (subroutine of Algorithm 7); ``work`` a
    :class:`NormProductWork`."""
    k = mean.shape[0]
    work_a = work.a
    work_l = work.l
    mu3 = work.v[1]
    e = work.v[2]
    norm_product_moments(mean, v, z, omega2, mu3, work_a, work)
    psd_factor(work_a, work_l)
    for i in range(k):
        e[i] = rng.standard_normal()
    for i in range(k):
        acc = mu3[i]
        for p in range(k):
            acc += work_l[i, p] * e[p]
        s[i] = acc


def norm_product(mean, cov, z, omega2):
    """(mu3, S3) of NormProduct(mean, cov, z, diag(omega2)); scalars or vectors (for callers
    outside kernels and for tests)."""
    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    k = mean.shape[0]
    cov = np.atleast_2d(np.asarray(cov, dtype=float))
    z = np.atleast_1d(np.asarray(z, dtype=float))
    omega2 = np.atleast_1d(np.asarray(omega2, dtype=float))
    if cov.shape != (k, k) or z.shape != (k,) or omega2.shape != (k,) or np.any(omega2 <= 0):
        raise ValueError("norm_product: need mean (k,), cov (k, k), z (k,), omega2 (k,) > 0")
    mu3, cov3 = np.empty(k), np.empty((k, k))
    norm_product_moments(mean, cov, z, omega2, mu3, cov3, norm_product_work(k))
    return mu3, cov3


# ----------------------------------------------------------------------------- truncated normal
@njit(cache=True)
def _tail_std(rng, lo, hi):
    """Standard normal restricted to [lo, hi] with 0 <= lo < hi (hi may be inf), Robert (1995):
    uniform proposal on narrow intervals, half-normal near the mode, else exponential."""
    if hi * hi - lo * lo < 2.0:
        while True:  # acceptance >= e^-1
            z = lo + (hi - lo) * rng.random()
            if math.log(rng.random()) <= 0.5 * (lo * lo - z * z):
                return z
    if lo < 0.3:
        while True:  # acceptance >= ~0.5
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
    """Standard normal restricted to [lo, hi]: tails by :func:`_tail_std`, intervals around 0 by
    plain normal (wide) or uniform (narrow) proposals; acceptance stays above ~0.04."""
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
    """One exact draw of N(mu, sd^2) restricted to [lo, hi] (lo < hi; either may be infinite).
    It replaces the thesis's "redraw until valid" loops by the law they converge to."""
    if sd <= 0.0:
        return min(max(mu, lo), hi)
    return mu + sd * _truncated_std(rng, (lo - mu) / sd, (hi - mu) / sd)
