"""CLT moments of one record's regression statistics when the records are clamped (Gibbs-SS-Update
on a clamped release of one covariate, step 1 and the collapsed move of
:mod:`dpinfer.samplers.gibbs_ss`): their mean mu_t and covariance Sigma_t given the parameters.
Without clamping the moments are polynomial in the parameters for any number of covariates
(:func:`dpinfer.samplers.clt_moments.clt_moments_into`; Eqs. 5.2-5.3 of the thesis).

When each record is clamped to the public bounds [lo, hi] before release (the option
``bernstein2020.chapter5.synthetic.clamp``), the released statistics are those of
t(cx, cy) = [cx^2, cx, cx cy, cy, cy^2] (:func:`~dpinfer.models.linreg_nig_multi.stat_pairs`
order at p = 1) with cx = clamp(x), cy = clamp(y), under the model x ~ N(mu_x, tau^2),
y | x ~ N(theta_0 x + theta_1, sigma^2). Their mean and covariance need the joint moments
E[cx^p cy^q], p + q <= 4, which are no longer polynomials in the parameters:

- given x, E[cy^q | x] is a clamped-normal moment in closed form: the mass below lo and above
  hi contributes lo^q Phi(alpha) and hi^q (1 - Phi(beta)), the inside part is the partial
  normal moments M_k = int_alpha^beta z^k phi(z) dz (recursion M_k = (k-1) M_{k-2} +
  alpha^{k-1} phi(alpha) - beta^{k-1} phi(beta)) expanded binomially in y = l + sigma z;
- the outer expectation over x ~ N(mu_x, tau^2) is composite Gauss-Legendre quadrature on
  [mu_x - 8 tau, mu_x + 8 tau] (mass outside below 1.3e-15), broken at lo and hi (where cx has
  kinks) and at the x where theta_0 x + theta_1 crosses a bound (where E[cy^q | x] turns over
  a width sigma / |theta_0|), in pieces of at most 3 tau graded geometrically down to that
  width next to a crossing, 8 nodes each; the weights are normalised to sum to one. The moments
  agree with those of 0.25-tau pieces to 1e-6 (200 random parameter sets); one evaluation
  costs about 7 microseconds.

Accuracy against Monte Carlo: ``tests/test_bernstein2020_ch5_clamping.py``; with bounds at +-inf
the clamped moments equal the polynomial ones to 1e-7.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

__all__ = ["clamped_clt_mean_cov", "clamped_clt_into"]


class _Clamped(NamedTuple):
    """One clamped-moment evaluation: the parameters (sd of y | x, tau of x), the bounds and the
    scratch arrays e (sums of E[cx^p cy^q]), h (E[cy^q | x]), mk (partial normal moments)."""

    theta0: float
    theta1: float
    sd: float
    mu_x: float
    tau: float
    lo: float
    hi: float
    e: np.ndarray
    h: np.ndarray
    mk: np.ndarray


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(8)
_PIECE = 3.0  # longest quadrature piece, in units of tau
_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_BINOM = np.array(
    [[1.0, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0], [1, 4, 6, 4, 1]]
)


@njit(cache=True)
def _stats_mean_cov(e, mu_t, cov_t):
    """Mean (5) and covariance (5, 5) of one record's t = [x^2, x, xy, y, y^2] (stat_pairs(1)
    order) from its joint moments e[p, q] = E[x^p y^q], p + q <= 4."""
    pp = (2, 1, 1, 0, 0)
    qq = (0, 0, 1, 1, 2)
    for i in range(5):
        mu_t[i] = e[pp[i], qq[i]]
    for i in range(5):
        for j in range(i, 5):
            v = e[pp[i] + pp[j], qq[i] + qq[j]] - mu_t[i] * mu_t[j]
            cov_t[i, j] = v
            cov_t[j, i] = v


# ----------------------------------------------------------------------------- clamped records
@njit(cache=True)
def _ipow(v, k):
    """v^k for a small integer k >= 0 by multiplication (math.pow is slower)."""
    r = 1.0
    for _ in range(k):
        r *= v
    return r


@njit(cache=True)
def _clamped_normal_moments(loc, sd, lo, hi, h, mk):
    """h[q] = E[clamp(y, lo, hi)^q], q = 0..4, for y ~ N(loc, sd^2); ``mk`` (5) is scratch for
    the partial moments M_k."""
    alpha = (lo - loc) / sd
    beta = (hi - loc) / sd
    below = 0.5 * math.erfc(-alpha / _SQRT2)  # P(y < lo)
    above = 0.5 * math.erfc(beta / _SQRT2)  # P(y > hi)
    # inside mass from the tail that keeps its precision
    if alpha > 0.0:
        mk[0] = max(0.5 * math.erfc(alpha / _SQRT2) - above, 0.0)
    elif beta < 0.0:
        mk[0] = max(0.5 * math.erfc(-beta / _SQRT2) - below, 0.0)
    else:
        mk[0] = 1.0 - below - above
    # ta = alpha^{k-1} phi(alpha), tb likewise (0 at an infinite bound)
    ta = _INV_SQRT_2PI * math.exp(-0.5 * alpha * alpha) if math.isfinite(alpha) else 0.0
    tb = _INV_SQRT_2PI * math.exp(-0.5 * beta * beta) if math.isfinite(beta) else 0.0
    mk[1] = ta - tb
    for k in range(2, 5):
        if ta != 0.0:
            ta *= alpha
        if tb != 0.0:
            tb *= beta
        mk[k] = (k - 1) * mk[k - 2] + ta - tb
    lo_q = 1.0
    hi_q = 1.0
    for q in range(5):
        # E[(loc + sd z)^q 1{inside}] = sum_j C(q, j) loc^(q-j) sd^j M_j
        inside = 0.0
        sd_j = 1.0
        for j in range(q + 1):
            inside += _BINOM[q, j] * sd_j * mk[j] * _ipow(loc, q - j)
            sd_j *= sd
        h[q] = inside
        if below > 0.0:
            h[q] += lo_q * below
        if above > 0.0:
            h[q] += hi_q * above
        lo_q *= lo
        hi_q *= hi


@njit(cache=True)
def _add_piece(left, right, seg, c):
    """Add the 8-node Gauss-Legendre sums of w cx^p E[cy^q | x] over [left, right] to c.e, w the
    N(mu_x, tau^2) density up to its constant; ``seg`` 0, 1, 2: x below lo, inside, above hi;
    ``c`` a :class:`_Clamped`. Returns the sum of the weights."""
    theta0 = c.theta0
    theta1 = c.theta1
    sd = c.sd
    mu_x = c.mu_x
    tau = c.tau
    lo = c.lo
    hi = c.hi
    e = c.e
    h = c.h
    mk = c.mk
    half = 0.5 * (right - left)
    mid = left + half
    total = 0.0
    for k in range(_GL_NODES.shape[0]):
        x = mid + half * _GL_NODES[k]
        r = (x - mu_x) / tau
        w = half * _GL_WEIGHTS[k] * math.exp(-0.5 * r * r)
        total += w
        cx = lo if seg == 0 else (hi if seg == 2 else x)
        _clamped_normal_moments(theta0 * x + theta1, sd, lo, hi, h, mk)
        cxp = w
        for p in range(5):
            for q in range(5 - p):
                e[p, q] += cxp * h[q]
            cxp *= cx
    return total


@njit(cache=True)
def _add_graded(left, right, sharp_left, sharp_right, scale, seg, c):
    """Pieces of at most _PIECE tau over [left, right], graded geometrically down to ``scale``
    towards an end where E[cy^q | x] turns sharply (l(x) crosses a bound; ``sharp_*``)."""
    tau = c.tau
    total = 0.0
    p = left
    while p < right:
        d = math.inf
        if sharp_left:
            d = p - left
        if sharp_right:
            d = min(d, 0.5 * (right - p))
        w = min(_PIECE * tau, max(scale, d))
        q = p + w
        if q > right or right - q < 1e-3 * w:
            q = right
        total += _add_piece(p, q, seg, c)
        p = q
    return total


@njit(cache=True)
def clamped_clt_into(theta, sigma2, mu_x, tau2, lo, hi, mu_t, cov_t, work):
    """Mean mu_t (5) and covariance cov_t (5, 5) of t(clamp(x), clamp(y)) for one record, theta =
    (slope, intercept); ``work`` is (2, 5, 5) scratch (work[0] collects E[cx^p cy^q])."""
    theta0 = theta[0]
    theta1 = theta[1]
    e = work[0]
    h = work[1, 0]
    mk = work[1, 1]
    e[:, :] = 0.0
    tau = math.sqrt(tau2)
    sd = math.sqrt(sigma2)
    c = _Clamped(theta0, theta1, sd, mu_x, tau, lo, hi, e, h, mk)
    a = mu_x - 8.0 * tau
    b = mu_x + 8.0 * tau
    # where theta0 x + theta1 crosses lo and hi: E[cy^q | x] changes over sd / |theta0| there
    t1 = math.inf
    t2 = math.inf
    scale = math.inf
    if theta0 != 0.0:
        t1 = (lo - theta1) / theta0
        t2 = (hi - theta1) / theta0
        if t1 > t2:
            t1, t2 = t2, t1
        scale = sd / abs(theta0)
    cuts = (a, min(max(lo, a), b), min(max(hi, a), b), b)
    total = 0.0
    for seg in range(3):
        left = cuts[seg]
        right = cuts[seg + 1]
        if not right > left:
            continue
        # split [left, right] at the crossings inside it
        p = left
        sharp = False
        for t in (t1, t2, right):
            if p < t < right or t == right:
                total += _add_graded(p, t, sharp, t < right, scale, seg, c)
                p = t
                sharp = True
    for p in range(5):
        for q in range(5 - p):
            e[p, q] /= total
    _stats_mean_cov(e, mu_t, cov_t)


def clamped_clt_mean_cov(theta, sigma2: float, mu_x: float, tau2: float, bounds):
    """(mu_t, Sigma_t) of t(clamp(x), clamp(y)) for one record (stat_pairs(1) order),
    x ~ N(mu_x, tau2), y | x ~ N(theta_0 x + theta_1, sigma2), both clamped to ``bounds``."""
    lo, hi = float(bounds[0]), float(bounds[1])
    if not lo < hi or sigma2 <= 0 or tau2 <= 0:
        raise ValueError("need lo < hi and positive variances")
    theta = np.asarray(theta, dtype=float)
    mu_t, cov_t = np.empty(5), np.empty((5, 5))
    work = np.empty((2, 5, 5))
    clamped_clt_into(theta, float(sigma2), float(mu_x), float(tau2), lo, hi, mu_t, cov_t, work)
    return mu_t, cov_t
