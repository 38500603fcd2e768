"""Direct samplers for weighted densities f(x) = w(x) g(x) / psi (raim2021).

The direct sampler (Walker et al. 2011) augments u | x ~ U(0, w(x)/c), c = sup w, so that

    p(u) = (c / psi) P(A_u),  A_u = {x : w(x) > u c},   x | u ~ g truncated to A_u.

Weights (unimodal, closed-form log c and level-set roots; slides "Back to disclosure avoidance
example" and FACTS.md Sec. 4):

- ``lognormal`` (z, mu, s2): log w(x) = -log(z-x) - (log(z-x) - mu)^2 / (2 s2), x < z
  (the lognormal density of y = z - x);
- ``normal`` (z, mu, s2): log w(x) = -(z - x - mu)^2 / (2 s2).

Bases (CDF, quantile, truncated quantile): ``laplace`` Laplace(0, lambda) and ``dgeom`` the
double geometric DGeom(rho), P(k) = rho/(2-rho) (1-rho)^|k| on the integers.

Customised direct sampler (CD, slides "A customized direct sampler"): a step function h* >= P(A_u)
is built on knots in [0, 1], u is drawn from h = h*/a and accepted with probability
P(A_u)/h*(u) (slides "Accept-reject algorithm"), which makes every draw exact whatever the
knots; the 2021 package skipped this step (FACTS.md Sec. 2.7). x | u is then drawn by the
inverse CDF of g truncated to A_u. Knot rules (``METHODS``):

- ``small_rects`` / ``equal_steps``: the 2021 package's Stepdown: bisection in log u for u_L
  (the first u with P(A_u) < P(A_0)) and u_H (the first u with P(A_u) = 0), then N+1 knots by the
  Small Rectangles algorithm (split the largest rectangle |R_j| at its midpoint) or equal steps;
- ``quantile``: our fast rule for the Gibbs sampler. Knots at u = w(q_k)/c for a few base
  quantiles q_k (so every piece spans at most one quantile step of base mass on each side of
  A_u), refined by a few small-rectangle splits. No bisection, so about 10 evaluations of
  P(A_u) per draw instead of about 180.

Rejected proposals are added as knots (``adapt``), as the slides suggest. Everything runs in
log scale: knot positions are log u, heights log P(A_u), areas by log-sum-exp, so u_L far below
the smallest double (the z = 2 case) or P(A_u) below 1e-300 do not underflow.

The basic direct sampler (BD, slides "Basic direct sampler") is here for comparison: knots k/N,
Bernstein-polynomial mixture for u, rejection from g for x | u (approximate in u).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = [
    "WEIGHTS",
    "BASES",
    "METHODS",
    "Weight",
    "Base",
    "DirectSettings",
    "base_quantile_points",
    "log_weight",
    "log_p_of_u",
    "base_cdf",
    "base_log_pr",
    "stepdown",
    "direct_sample",
    "basic_direct_sample",
    "envelope_acceptance",
]

WEIGHTS = {"lognormal": 0, "normal": 1}
BASES = {"laplace": 0, "dgeom": 1}
METHODS = {"small_rects": 0, "equal_steps": 1, "quantile": 2}

W_LOGNORMAL = 0
W_NORMAL = 1
B_LAPLACE = 0
B_DGEOM = 1
M_SMALL_RECTS = 0
M_EQUAL_STEPS = 1
M_QUANTILE = 2

_LOG_HALF = math.log(0.5)
_NEG_INF = -np.inf

# Default base-quantile levels of the ``quantile`` knot rule (see docs/deviations.md).
DEFAULT_LEVELS = (1e-12, 0.1, 0.5, 0.9, 1.0 - 1e-12)
# Double geometric base: integers on each side of the weight's mode that become knots.
N_MODE_INTEGERS = 2
# ... and weight-sd multiples k whose level sets u = exp(-k^2/2) are always knots.
DEFAULT_WEIGHT_SDS = (0.5, 1.5, 3.0)


# ============================================================================ weights
@njit(cache=True)
def _log_c(wt, mu, s2):
    """log sup w."""
    if wt == W_LOGNORMAL:
        return -mu + 0.5 * s2
    return 0.0


@njit(cache=True)
def _log_w(wt, z, mu, s2, x):
    """log w(x) (unnormalised, -inf outside the support)."""
    if wt == W_LOGNORMAL:
        if not x < z:
            return _NEG_INF
        r = math.log(z - x)
        d = r - mu
        return -r - d * d / (2.0 * s2)
    d = z - x - mu
    return -d * d / (2.0 * s2)


@njit(cache=True)
def _roots(wt, z, mu, s2, lu):
    """Ends (x1, x2) of A_u = {x : log w(x) > log c + lu}, lu = log u <= 0."""
    if lu == _NEG_INF:
        if wt == W_LOGNORMAL:
            return _NEG_INF, z
        return _NEG_INF, np.inf
    if lu > 0.0:
        lu = 0.0
    d = math.sqrt(-2.0 * s2 * lu)
    if wt == W_LOGNORMAL:
        m = mu - s2
        return z - math.exp(m + d), z - math.exp(m - d)
    return z - mu - d, z - mu + d


# ============================================================================ bases
@njit(cache=True)
def _laplace_log_pr(lam, x1, x2):
    """log P(x1 < X < x2), X ~ Laplace(0, lam); one-sided intervals use the tail formula."""
    if not x2 > x1:
        return _NEG_INF
    if x1 >= 0.0:
        return _LOG_HALF - x1 / lam + math.log(-math.expm1(-(x2 - x1) / lam))
    if x2 <= 0.0:
        return _LOG_HALF + x2 / lam + math.log(-math.expm1(-(x2 - x1) / lam))
    p = 1.0 - 0.5 * math.exp(x1 / lam) - 0.5 * math.exp(-x2 / lam)
    if p <= 0.0:
        return _NEG_INF
    return math.log(p)


@njit(cache=True)
def _laplace_cdf(lam, x):
    if x <= 0.0:
        return 0.5 * math.exp(x / lam)
    return 1.0 - 0.5 * math.exp(-x / lam)


@njit(cache=True)
def _laplace_quantile(lam, p):
    if p <= 0.5:
        return lam * math.log(2.0 * p)
    return -lam * math.log(2.0 - 2.0 * p)


@njit(cache=True)
def _laplace_trunc(lam, x1, x2, v):
    """Inverse-CDF draw of Laplace(0, lam) truncated to (x1, x2) from v ~ U(0, 1)."""
    if x1 >= 0.0:
        x = x1 - lam * math.log1p(v * math.expm1(-(x2 - x1) / lam))
    elif x2 <= 0.0:
        x = x2 + lam * math.log1p(v * math.expm1(-(x2 - x1) / lam))
    else:
        g1 = _laplace_cdf(lam, x1)
        g2 = _laplace_cdf(lam, x2)
        x = _laplace_quantile(lam, g1 + v * (g2 - g1))
    return min(max(x, x1), x2)


@njit(cache=True)
def _dgeom_range(x1, x2):
    """Integers a..b strictly inside (x1, x2) (floats, may be infinite)."""
    return np.floor(x1) + 1.0, np.ceil(x2) - 1.0


@njit(cache=True)
def _dgeom_log_pr(rho, x1, x2):
    """log P(x1 < K < x2), K ~ DGeom(rho); one-sided ranges use the geometric tail."""
    a, b = _dgeom_range(x1, x2)
    if a > b:
        return _NEG_INF
    lq = math.log1p(-rho)
    l2r = math.log(2.0 - rho)
    if a >= 1.0:
        return a * lq + math.log(-math.expm1((b - a + 1.0) * lq)) - l2r
    if b <= -1.0:
        return -b * lq + math.log(-math.expm1((b - a + 1.0) * lq)) - l2r
    p = 1.0 - math.exp((1.0 - a) * lq - l2r) - math.exp((b + 1.0) * lq - l2r)
    if p <= 0.0:
        return _NEG_INF
    return math.log(p)


@njit(cache=True)
def _dgeom_cdf(rho, x):
    k = np.floor(x)
    lq = math.log1p(-rho)
    if k >= 0.0:
        return 1.0 - math.exp((k + 1.0) * lq) / (2.0 - rho)
    return math.exp(-k * lq) / (2.0 - rho)


@njit(cache=True)
def _dgeom_quantile(rho, p):
    """Smallest integer k with F(k) >= p."""
    lq = math.log1p(-rho)
    if p <= (1.0 - rho) / (2.0 - rho):  # F(-1)
        return np.ceil(-math.log(p * (2.0 - rho)) / lq)
    return max(0.0, np.ceil(math.log((1.0 - p) * (2.0 - rho)) / lq) - 1.0)


@njit(cache=True)
def _dgeom_trunc(rho, x1, x2, v):
    """Inverse-CDF draw of DGeom(rho) truncated to the integers in (x1, x2)."""
    a, b = _dgeom_range(x1, x2)
    lq = math.log1p(-rho)
    if a >= 1.0 or b <= -1.0:
        m = b - a + 1.0
        j = np.ceil(math.log1p(v * math.expm1(m * lq)) / lq) - 1.0
        j = min(max(j, 0.0), m - 1.0)
        return a + j if a >= 1.0 else b - j
    g1 = _dgeom_cdf(rho, a - 1.0)
    g2 = _dgeom_cdf(rho, b)
    k = _dgeom_quantile(rho, g1 + v * (g2 - g1))
    return min(max(k, a), b)


@njit(cache=True)
def _log_pr(bt, par, x1, x2):
    if bt == B_LAPLACE:
        return _laplace_log_pr(par, x1, x2)
    return _dgeom_log_pr(par, x1, x2)


@njit(cache=True)
def _trunc(bt, par, x1, x2, v):
    if bt == B_LAPLACE:
        return _laplace_trunc(par, x1, x2, v)
    return _dgeom_trunc(par, x1, x2, v)


@njit(cache=True)
def _quantile(bt, par, p):
    if bt == B_LAPLACE:
        return _laplace_quantile(par, p)
    return _dgeom_quantile(par, p)


@njit(cache=True)
def _log_p(wt, z, mu, s2, bt, par, lu):
    """log P(A_u) as a function of lu = log u."""
    x1, x2 = _roots(wt, z, mu, s2, lu)
    return _log_pr(bt, par, x1, x2)


@njit(cache=True)
def _log_p_plain(wt, z, mu, s2, bt, par, lu):
    """log P(A_u) as the 2021 package computed it: a plain difference of CDFs, logged after.

    Used only by the u_L / u_H bisections, whose end points are floating-point ties of these
    differences (FACTS.md 2.3); the envelope heights use the accurate :func:`_log_p`.
    """
    x1, x2 = _roots(wt, z, mu, s2, lu)
    if bt == B_LAPLACE:
        p = _laplace_cdf(par, x2) - _laplace_cdf(par, x1)
    else:
        a, b = _dgeom_range(x1, x2)
        p = _dgeom_cdf(par, b) - _dgeom_cdf(par, a - 1.0) if a <= b else 0.0
    return math.log(p) if p > 0.0 else _NEG_INF


# ============================================================================ knots
@njit(cache=True)
def _log_sub(a, b):
    """log(e^a - e^b) for a >= b; -inf when equal."""
    if b == _NEG_INF:
        return a
    if not a > b:
        return _NEG_INF
    return a + math.log(-math.expm1(b - a))


@njit(cache=True)
def _log_mid(a, b):
    """log((e^a + e^b) / 2): arithmetic midpoint in u of two log-u values, a <= b."""
    if a == _NEG_INF:
        return b + _LOG_HALF
    return b + math.log1p(math.exp(a - b)) + _LOG_HALF


@njit(cache=True)
def _bisect_log_u(wt, z, mu, s2, bt, par, lo, hi, delta, threshold, strict):
    """Bisect [lo, hi] in log u for where log P(A_u) first falls below ``threshold``
    (``strict``: lp < threshold; otherwise lp <= threshold, i.e. lp == -inf for -inf)."""
    x = 0.5 * (lo + hi)
    while hi - lo > delta:
        lp = _log_p_plain(wt, z, mu, s2, bt, par, x)
        if (lp < threshold) if strict else (lp <= threshold):
            hi = x
        else:
            lo = x
        xn = 0.5 * (lo + hi)
        if not (lo < xn < hi):
            break
        x = xn
    return x


@njit(cache=True)
def _bisect_u_lower(wt, z, mu, s2, bt, par, lpmax, tol):
    """log u_L: bisection in log u on the predicate log P(A_u) < log P(A_0) (FACTS.md 2.2)."""
    lo = -1.0
    for _ in range(1100):
        if not _log_p_plain(wt, z, mu, s2, bt, par, lo) < lpmax:
            break
        lo *= 2.0
    hi = 0.0
    delta = tol * (0.0 - lo)
    return _bisect_log_u(wt, z, mu, s2, bt, par, lo, hi, delta, lpmax, True)


@njit(cache=True)
def _bisect_u_upper(wt, z, mu, s2, bt, par, lu_lower, tol):
    """log u_H: bisection on [log u_L, 0] for the first u with P(A_u) = 0 (FACTS.md 2.3)."""
    lo = lu_lower
    hi = 0.0
    delta = tol * (0.0 - lu_lower)
    return _bisect_log_u(wt, z, mu, s2, bt, par, lo, hi, delta, _NEG_INF, False)


@njit(cache=True)
def _rect_log_area(lu, lh, j):
    """log |R| of the rectangle between knots j and j+1: (P_j - P_{j+1}) (u_{j+1} - u_j)."""
    lw = _log_sub(lu[j + 1], lu[j])
    lhgt = _log_sub(lh[j], lh[j + 1])
    if lw == _NEG_INF or lhgt == _NEG_INF:
        return _NEG_INF
    return lw + lhgt


@njit(cache=True)
def _insert(lu, lh, m, pos, lu_new, lh_new):
    """Insert a knot at index pos of the first m entries; returns the new count."""
    for k in range(m, pos, -1):
        lu[k] = lu[k - 1]
        lh[k] = lh[k - 1]
    lu[pos] = lu_new
    lh[pos] = lh_new
    return m + 1


@njit(cache=True)
def _small_rects(wt, z, mu, s2, bt, par, lu, lh, m, first, last, n_split):
    """Small Rectangles algorithm: n_split times, split the knot interval (among first..last-1)
    of largest rectangle area |R_j| at its arithmetic midpoint in u. Areas are cached, so a
    split costs one P(A_u) evaluation and O(knots) comparisons. Returns the new knot count."""
    if n_split <= 0:
        return m
    area = np.empty(m + n_split)
    for j in range(first, last):
        area[j] = _rect_log_area(lu, lh, j)
    for _ in range(n_split):
        best = -1
        best_area = _NEG_INF
        for j in range(first, last):
            if area[j] > best_area:
                best_area = area[j]
                best = j
        if best < 0:
            break
        lm = _log_mid(lu[best], lu[best + 1])
        if not (lu[best] < lm < lu[best + 1]):
            break
        m = _insert(lu, lh, m, best + 1, lm, _log_p(wt, z, mu, s2, bt, par, lm))
        for k in range(last, best + 1, -1):
            area[k] = area[k - 1]
        last += 1
        area[best] = _rect_log_area(lu, lh, best)
        area[best + 1] = _rect_log_area(lu, lh, best + 1)
    return m


@njit(cache=True)
def _stepdown_knots(wt, z, mu, s2, bt, par, method, n_knots, tol, lu, lh):
    """Knots of the 2021 Stepdown: [u=0 pseudo-knot, u_L, ..., u_H (N+1 knots), u=1].

    Fills lu (log u) and lh (log P(A_u)); returns the count, or 0 when P(A_0) = 0.
    """
    lpmax = _log_p(wt, z, mu, s2, bt, par, _NEG_INF)
    if lpmax == _NEG_INF:
        return 0
    lu_l = _bisect_u_lower(wt, z, mu, s2, bt, par,
                           _log_p_plain(wt, z, mu, s2, bt, par, _NEG_INF), tol)
    lu_h = _bisect_u_upper(wt, z, mu, s2, bt, par, lu_l, tol)
    lu[0] = _NEG_INF
    lh[0] = lpmax
    if method == M_EQUAL_STEPS:
        r = math.exp(lu_l - lu_h)
        for j in range(n_knots + 1):
            lu[1 + j] = lu_h + math.log(r + (j / n_knots) * (1.0 - r))
            lh[1 + j] = _log_p(wt, z, mu, s2, bt, par, lu[1 + j])
        m = n_knots + 2
    else:
        lu[1] = lu_l
        lh[1] = _log_p(wt, z, mu, s2, bt, par, lu_l)
        lu[2] = lu_h
        lh[2] = _log_p(wt, z, mu, s2, bt, par, lu_h)
        m = _small_rects(wt, z, mu, s2, bt, par, lu, lh, 3, 1, 2, n_knots - 1)
    # Close the envelope at u = 1 (P(A_1) = 0) so h* >= P(A_u) holds above u_H too.
    if lu[m - 1] < 0.0:
        lu[m] = 0.0
        lh[m] = _NEG_INF
        m += 1
    return m


@njit(cache=True)
def _add_knot(lu, lh, m, v):
    """Insert log u = v (height to be filled) into the sorted knots 1..m-1; skip duplicates,
    v = -inf and v >= 0. Returns the new count."""
    if v == _NEG_INF or not v < 0.0 or m >= lu.size - 1:
        return m
    pos = m
    while pos > 1 and lu[pos - 1] > v:
        pos -= 1
    if lu[pos - 1] == v:
        return m
    return _insert(lu, lh, m, pos, v, np.nan)


@njit(cache=True)
def _tail_point(bt, par, log_level):
    """|q| with P(X < -|q|) = exp(log_level): base quantile far in the tail, from the log level."""
    if bt == B_LAPLACE:
        return -par * (log_level + math.log(2.0))
    lq = math.log1p(-par)
    return np.floor((log_level + math.log(2.0 - par)) / lq)


@njit(cache=True)
def _integer_bound(rho, x_end, qs, kl, lo, hi, fm, luj):
    """log upper bound on P(A_u), DGeom base: A_u lies strictly between the nearest excluded
    points on either side of the mode (quantile points qs[lo], qs[hi], the mode integers
    fm - j / fm + 1 + j whose knots are <= u, and the support end x_end), so P(A_u) is at most
    (number of integers strictly between) x (largest pmf among them)."""
    nq = qs.size
    a = qs[lo] if lo >= 0 else -np.inf
    b = qs[hi] if hi < nq else np.inf
    b = min(b, x_end)
    for j in range(N_MODE_INTEGERS):
        if kl[nq + 2 * j] <= luj:
            a = max(a, fm - j)
        if kl[nq + 2 * j + 1] <= luj:
            b = min(b, fm + 1.0 + j)
    if a == -np.inf or b == np.inf:
        return np.inf
    ia = np.floor(a) + 1.0
    ib = np.ceil(b) - 1.0
    if ia > ib:
        return _NEG_INF
    d0 = 0.0 if ia <= 0.0 <= ib else min(abs(ia), abs(ib))
    return math.log(ib - ia + 1.0) + math.log(rho / (2.0 - rho)) + d0 * math.log1p(-rho)


@njit(cache=True)
def _quantile_knots(wt, z, mu, s2, bt, par, qs, ugrid, table, n_split, lu, lh, cum):
    """Knots of our fast rule (``quantile``). Candidate knots (log u):

    - u = w(q_k)/c at base quantiles q_k: between two consecutive knots neither end of A_u
      crosses a q_k, so P(A_u) drops by at most one quantile cell per end (base-dominated case);
    - fixed u = exp(-k^2/2) (``ugrid``): the level sets of w at k weight-sds from its mode
      (weight-dominated case);
    - double geometric base: N_MODE_INTEGERS integers on each side of the mode of w, where
      P(A_u) jumps when w is narrow next to the integer grid (small y);
    - when the mode of w lies beyond the outermost base quantiles and the first knot is below
      1e-12 (w far out in the base's tail): two base tail points of mass 1e-4 u_1, evaluated
      exactly, so the envelope above the knots has negligible area.

    Heights cost no evaluation of P(A_u): A_u lies strictly between the nearest quantile points
    on either side of the mode of w whose knots are <= u, so P(A_u) is at most the base mass
    between them, read from ``table`` (precomputed per base). These bounds go to cum[2]; lh is
    NaN (not evaluated) and becomes exact when a proposal in the piece is rejected. With
    n_split > 0 all heights are evaluated and n_split small-rectangle splits follow.
    """
    lpmax = _log_p(wt, z, mu, s2, bt, par, _NEG_INF)
    if lpmax == _NEG_INF:
        return 0
    lc = _log_c(wt, mu, s2)
    nq = qs.size
    kl = cum[0]  # scratch: log u of each quantile point
    lu[0] = _NEG_INF
    lh[0] = lpmax
    m = 1
    for k in range(nq):
        kl[k] = _log_w(wt, z, mu, s2, qs[k]) - lc
        m = _add_knot(lu, lh, m, kl[k])
    for k in range(ugrid.size):
        m = _add_knot(lu, lh, m, ugrid[k])
    xm = z - math.exp(mu - s2) if wt == W_LOGNORMAL else z - mu
    fm = np.floor(xm)
    if bt == B_DGEOM:
        for j in range(N_MODE_INTEGERS):
            kl[nq + 2 * j] = _log_w(wt, z, mu, s2, fm - j) - lc
            kl[nq + 2 * j + 1] = _log_w(wt, z, mu, s2, fm + 1.0 + j) - lc
            m = _add_knot(lu, lh, m, kl[nq + 2 * j])
            m = _add_knot(lu, lh, m, kl[nq + 2 * j + 1])
    t1 = np.nan
    t2 = np.nan
    if m > 1 and lu[1] < -27.6 and nq > 0 and (xm < qs[0] or xm > qs[nq - 1]):
        q = _tail_point(bt, par, lu[1] + math.log(1e-4))
        t1 = _log_w(wt, z, mu, s2, q) - lc
        t2 = _log_w(wt, z, mu, s2, -q) - lc
        m = _add_knot(lu, lh, m, t1)
        m = _add_knot(lu, lh, m, t2)
    lu[m] = 0.0
    lh[m] = _NEG_INF  # P(A_1) = 0
    m += 1
    lb = cum[2]
    lb[0] = lpmax
    lb[m - 1] = _NEG_INF
    for j in range(1, m - 1):
        lo = -1
        hi = nq
        for k in range(nq):
            if kl[k] <= lu[j]:
                if qs[k] < xm:
                    lo = k
                elif qs[k] > xm and hi == nq:
                    hi = k
        lb[j] = min(table[(lo + 1) * (nq + 1) + hi], lpmax)
        if bt == B_DGEOM:
            lb[j] = min(lb[j], _integer_bound(par, z if wt == W_LOGNORMAL else np.inf, qs, kl,
                                              lo, hi, fm, lu[j]))
    if not math.isnan(t1):  # the tail knots carry the top of the envelope: evaluate them
        for j in range(1, m - 1):
            if lu[j] == t1 or lu[j] == t2:
                lh[j] = _log_p(wt, z, mu, s2, bt, par, lu[j])
    if n_split > 0:
        for k in range(1, m - 1):
            lh[k] = _log_p(wt, z, mu, s2, bt, par, lu[k])
        return _small_rects(wt, z, mu, s2, bt, par, lu, lh, m, 0, m - 1, n_split)
    return m


@njit(cache=True)
def _build(wt, z, mu, s2, bt, par, method, n_knots, tol, anchors, lu, lh, cum):
    """Envelope knots for one (w, g); returns the knot count (0 when P(A_0) = 0).
    ``anchors`` is the array of :func:`base_quantile_points` (quantile rule only)."""
    if method == M_QUANTILE:
        nq = int(anchors[0])
        ng = int(anchors[1])
        qs = anchors[2:2 + nq]
        ugrid = anchors[2 + nq:2 + nq + ng]
        table = anchors[2 + nq + ng:]
        return _quantile_knots(wt, z, mu, s2, bt, par, qs, ugrid, table, n_knots, lu, lh, cum)
    return _stepdown_knots(wt, z, mu, s2, bt, par, method, n_knots, tol, lu, lh)


# ============================================================================ drawing
@njit(cache=True)
def _widths(lu, m, cum):
    """cum[3, j] = log(u_{j+1} - u_j) for every piece."""
    for j in range(m - 1):
        cum[3, j] = _log_sub(lu[j + 1], lu[j])


@njit(cache=True)
def _cumulate(lu, lh, m, cum):
    """Piece heights and cumulative areas of the envelope.

    Piece j spans [u_j, u_{j+1}) with height H_j = P(A_{u_j}) when knot j is evaluated, and
    otherwise (lh[j] is NaN) the smaller of its bound cum[2, j] and H_{j-1}: both bound
    P(A_u) on the piece because P(A_u) is non-increasing. Fills cum[1, j] = log H_j and
    cum[0, j] = cumulative max-scaled area; returns the max log area. cum[3, j] caches the
    log width of piece j (see :func:`_widths`).
    """
    top = _NEG_INF
    h = lh[0]
    for j in range(m - 1):
        if not math.isnan(lh[j]):
            h = lh[j]
        elif cum[2, j] < h:
            h = cum[2, j]
        cum[1, j] = h
        a = h + cum[3, j]
        cum[0, j] = a
        if a > top:
            top = a
    s = 0.0
    for j in range(m - 1):
        s += math.exp(cum[0, j] - top) if cum[0, j] > _NEG_INF else 0.0
        cum[0, j] = s
    return top


@njit(cache=True)
def _draw_from_envelope(wt, z, mu, s2, bt, par, lu, lh, m, cum, adapt, max_prop, rng):
    """Accept-reject draw of u from p(u) under the step envelope, then x | u.

    After a rejection the envelope is refined (adaptive rejection): the rejected u becomes a
    knot (``adapt``) and, if its piece's height was only a bound, that knot (first rejection)
    or every knot (later rejections) gets its exact height. The
    envelope of each round depends only on earlier rounds, so an accepted u is exact.
    Returns (x, number of proposals, new knot count); x is NaN after max_prop rejections.
    """
    _widths(lu, m, cum)
    _cumulate(lu, lh, m, cum)
    n_prop = 0
    cap = lu.size
    while n_prop < max_prop:
        n_prop += 1
        total = cum[0, m - 2]
        v = rng.random() * total
        j = 0
        while j < m - 2 and cum[0, j] <= v:
            j += 1
        r = math.exp(lu[j] - lu[j + 1])
        lu_prop = lu[j + 1] + math.log(r + rng.random() * (1.0 - r))
        x1, x2 = _roots(wt, z, mu, s2, lu_prop)
        lp = _log_pr(bt, par, x1, x2)
        if math.log(rng.random()) < lp - cum[1, j]:
            return _trunc(bt, par, x1, x2, rng.random()), n_prop, m
        if math.isnan(lh[j]):
            if n_prop == 1:  # first rejection: make this piece's knot exact
                lh[j] = _log_p(wt, z, mu, s2, bt, par, lu[j])
            else:  # the bound envelope keeps failing: make every knot exact
                for k in range(1, m - 1):
                    if math.isnan(lh[k]):
                        lh[k] = _log_p(wt, z, mu, s2, bt, par, lu[k])
        if adapt and m < cap and lu[j] < lu_prop < lu[j + 1]:
            for k in range(m, j + 1, -1):
                cum[2, k] = cum[2, k - 1]
                cum[3, k] = cum[3, k - 1]
            cum[2, j + 1] = lp
            m = _insert(lu, lh, m, j + 1, lu_prop, lp)
            cum[3, j] = _log_sub(lu[j + 1], lu[j])
            cum[3, j + 1] = _log_sub(lu[j + 2], lu[j + 1])
        _cumulate(lu, lh, m, cum)
    return np.nan, n_prop, m


@njit(cache=True)
def direct_draw(wt, z, mu, s2, bt, par, method, n_knots, tol, qpts, adapt, max_prop,
                lu, lh, cum, rng):
    """One exact CD-sampler draw with a fresh envelope (the Gibbs sampler's unit of work).

    lu, lh (size cap) and cum (4 x cap) are workspace arrays, cap >= knots + adaptations.
    Returns (x, proposals).
    """
    m = _build(wt, z, mu, s2, bt, par, method, n_knots, tol, qpts, lu, lh, cum)
    if m == 0:
        return np.nan, 0
    x, n_prop, _ = _draw_from_envelope(wt, z, mu, s2, bt, par, lu, lh, m, cum, adapt,
                                       max_prop, rng)
    return x, n_prop


@njit(cache=True)
def _direct_many(n, wt, z, mu, s2, bt, par, method, n_knots, tol, qpts, adapt, max_prop,
                 rebuild, cap, rng, out, props):
    lu = np.empty(cap)
    lh = np.empty(cap)
    cum = np.empty((4, cap))
    m = _build(wt, z, mu, s2, bt, par, method, n_knots, tol, qpts, lu, lh, cum)
    if m == 0:
        out[:] = np.nan
        return
    for i in range(n):
        if rebuild and i > 0:
            m = _build(wt, z, mu, s2, bt, par, method, n_knots, tol, qpts, lu, lh, cum)
        out[i], props[i], m = _draw_from_envelope(wt, z, mu, s2, bt, par, lu, lh, m, cum,
                                                  adapt, max_prop, rng)


# ============================================================================ basic direct sampler
@njit(cache=True)
def _base_draw(bt, par, rng):
    if bt == B_LAPLACE:
        return rng.laplace(0.0, par)
    return float(rng.geometric(par) - rng.geometric(par))


@njit(cache=True)
def _basic_many(n, wt, z, mu, s2, bt, par, n_knots, max_iter, rng, out, tries):
    """BD sampler: k ~ q, u ~ Beta(k+1, N-k+1), x ~ g until w(x) > u c (at most max_iter)."""
    q = np.empty(n_knots + 1)
    for k in range(n_knots + 1):
        lu = math.log(k / n_knots) if k > 0 else _NEG_INF
        q[k] = math.exp(_log_p(wt, z, mu, s2, bt, par, lu))
    cum = np.cumsum(q)
    lc = _log_c(wt, mu, s2)
    for i in range(n):
        v = rng.random() * cum[n_knots]
        k = 0
        while k < n_knots and cum[k] <= v:
            k += 1
        lu = math.log(rng.beta(k + 1.0, n_knots - k + 1.0))
        out[i] = np.nan
        t = 0
        while t < max_iter:
            t += 1
            x = _base_draw(bt, par, rng)
            if _log_w(wt, z, mu, s2, x) > lc + lu:
                out[i] = x
                break
        tries[i] = t


# ============================================================================ public API
@dataclass(frozen=True)
class Weight:
    """Unimodal weight w: ``kind`` in WEIGHTS, location z, mu, variance s2 (FACTS.md Sec. 4)."""

    kind: str
    z: float
    mu: float
    s2: float

    def __post_init__(self):
        if self.kind not in WEIGHTS:
            raise ValueError(f"weight kind must be one of {sorted(WEIGHTS)}, got {self.kind!r}")
        if not (math.isfinite(self.z) and math.isfinite(self.mu)):
            raise ValueError("z and mu must be finite")
        if not (math.isfinite(self.s2) and self.s2 > 0):
            raise ValueError(f"s2 must be finite and positive, got {self.s2!r}")

    @property
    def code(self) -> int:
        return WEIGHTS[self.kind]

    @property
    def log_c(self) -> float:
        return float(_log_c(self.code, self.mu, self.s2))


@dataclass(frozen=True)
class Base:
    """Base g: ``laplace`` with par = lambda > 0, or ``dgeom`` with par = rho in (0, 1)."""

    kind: str
    par: float

    def __post_init__(self):
        if self.kind not in BASES:
            raise ValueError(f"base kind must be one of {sorted(BASES)}, got {self.kind!r}")
        ok = self.par > 0 and (self.kind == "laplace" or self.par < 1)
        if not (math.isfinite(self.par) and ok):
            raise ValueError(f"invalid {self.kind} parameter {self.par!r}")

    @property
    def code(self) -> int:
        return BASES[self.kind]


@dataclass(frozen=True)
class DirectSettings:
    """Knot rule and its size: ``n_knots`` is N for small_rects/equal_steps (N+1 knots in
    [u_L, u_H]); for ``quantile`` it is the number of small-rectangle refinements, and 0 (the
    default) leaves the knot heights to be evaluated lazily."""

    method: str = "quantile"
    n_knots: int = 0
    tol: float = 1e-10
    levels: tuple = DEFAULT_LEVELS
    weight_sds: tuple = DEFAULT_WEIGHT_SDS
    adapt: bool = True
    max_proposals: int = 10_000

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {sorted(METHODS)}, got {self.method!r}")
        if self.n_knots < (0 if self.method == "quantile" else 1):
            raise ValueError(f"n_knots too small: {self.n_knots}")
        if not 0 < self.tol < 1:
            raise ValueError(f"tol must lie in (0, 1), got {self.tol}")
        if any(not 0 < p < 1 for p in self.levels):
            raise ValueError("quantile levels must lie in (0, 1)")

    @property
    def code(self) -> int:
        return METHODS[self.method]

    def capacity(self) -> int:
        """Workspace size: knots + pseudo-knots + room for adaptations."""
        return (self.n_knots + len(self.levels) + len(self.weight_sds) + 2 * N_MODE_INTEGERS + 8
                + (64 if self.adapt else 0))


def base_quantile_points(base: Base, levels=DEFAULT_LEVELS, weight_sds=DEFAULT_WEIGHT_SDS) -> np.ndarray:
    """Anchor array of the ``quantile`` knot rule for one base: [nq, ng, the nq distinct base
    quantiles G^-(p) at ``levels``, the ng values log u = -k^2/2 for k in ``weight_sds``, the
    (nq+1)^2 table of log base masses between quantile points]."""
    qs = np.unique([_quantile(base.code, base.par, float(p)) for p in levels])
    nq = qs.size
    ext = np.r_[-np.inf, qs, np.inf]
    # table[(a+1)(nq+1) + b] = log P(q_a < X < q_b), a = -1 / b = nq meaning no end point
    table = np.array([[_log_pr(base.code, base.par, ext[a], ext[b + 1]) for b in range(nq + 1)]
                      for a in range(nq + 1)]).ravel()
    grid = [-0.5 * k * k for k in weight_sds]
    return np.r_[nq, len(grid), qs, grid, table].astype(float)


def log_weight(weight: Weight, x) -> np.ndarray:
    x = np.atleast_1d(np.asarray(x, dtype=float))
    return np.array([_log_w(weight.code, weight.z, weight.mu, weight.s2, v) for v in x])


def base_cdf(base: Base, x) -> np.ndarray:
    x = np.atleast_1d(np.asarray(x, dtype=float))
    f = _laplace_cdf if base.code == B_LAPLACE else _dgeom_cdf
    return np.array([f(base.par, v) for v in x])


def base_log_pr(base: Base, x1: float, x2: float) -> float:
    return float(_log_pr(base.code, base.par, float(x1), float(x2)))


def log_p_of_u(weight: Weight, base: Base, log_u) -> np.ndarray:
    """log P(A_u) at each log u (the curve of the knots figure)."""
    lu = np.atleast_1d(np.asarray(log_u, dtype=float))
    w = (weight.code, weight.z, weight.mu, weight.s2, base.code, base.par)
    return np.array([_log_p(*w, v) for v in lu])


def stepdown(weight: Weight, base: Base, settings: DirectSettings) -> dict:
    """The step-function envelope: knots (log u, log P(A_u)) including the u = 0 pseudo-knot
    and the closing knot u = 1, the log normaliser a, and (small_rects/equal_steps) u_L, u_H."""
    cap = settings.capacity() + 4
    lu = np.empty(cap)
    lh = np.empty(cap)
    qpts = base_quantile_points(base, settings.levels, settings.weight_sds)
    cum = np.empty((4, cap))
    m = _build(weight.code, weight.z, weight.mu, weight.s2, base.code, base.par,
               settings.code, settings.n_knots, settings.tol, qpts, lu, lh, cum)
    if m == 0:
        raise ValueError("P(A_0) = 0: no u with P(A_u) > 0")
    _widths(lu, m, cum)
    top = _cumulate(lu, lh, m, cum)
    return {"log_u": lu[:m].copy(), "log_h": lh[:m].copy(),
            "log_a": float(top + math.log(cum[0, m - 2]))}


def envelope_acceptance(weight: Weight, base: Base, settings: DirectSettings) -> float:
    """Acceptance probability (psi/c)/a of the accept step, psi/c = int_0^1 P(A_u) du by
    quadrature in t = -log u (for tests and the error-bound figure)."""
    from scipy.integrate import quad

    env = stepdown(weight, base, settings)
    w = (weight.code, weight.z, weight.mu, weight.s2, base.code, base.par)
    knots = env["log_u"][1:-1]
    pts = sorted(set(float(-k) for k in knots if np.isfinite(k) and k < 0))
    # int_0^1 P(A_u) du = int_0^inf P(A_{e^-t}) e^-t dt, in pieces between the knots
    edges = [0.0] + pts + [max(pts[-1] * 2 if pts else 50.0, 800.0)]
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        if b > a:
            total += quad(lambda t: math.exp(_log_p(*w, -t) - t), a, b, limit=200,
                          epsabs=0, epsrel=1e-10)[0]
    return total / math.exp(env["log_a"])


def direct_sample(n: int, weight: Weight, base: Base, rng: np.random.Generator,
                  settings: DirectSettings = DirectSettings(), rebuild: bool = False):
    """n exact draws from f(x) proportional to w(x) g(x) by the CD sampler.

    ``rebuild=True`` builds a fresh envelope for every draw (as the Gibbs sampler does).
    Returns (x, proposals per draw).
    """
    if n < 0:
        raise ValueError("n must be non-negative")
    out = np.empty(n)
    props = np.zeros(n, dtype=np.int64)
    qpts = base_quantile_points(base, settings.levels, settings.weight_sds)
    _direct_many(n, weight.code, float(weight.z), float(weight.mu), float(weight.s2),
                 base.code, float(base.par), settings.code, settings.n_knots, settings.tol,
                 qpts, settings.adapt, settings.max_proposals, rebuild, settings.capacity(),
                 rng, out, props)
    if np.isnan(out).any():
        raise RuntimeError("direct sampler failed (P(A_0) = 0 or too many rejections)")
    return out, props


def basic_direct_sample(n: int, weight: Weight, base: Base, rng: np.random.Generator,
                        n_knots: int = 100, max_iter: int = 10_000):
    """n draws by the basic direct sampler (approximate in u); NaN where x | u hit max_iter.

    Returns (x, tries per draw)."""
    out = np.empty(n)
    tries = np.zeros(n, dtype=np.int64)
    _basic_many(n, weight.code, float(weight.z), float(weight.mu), float(weight.s2),
                base.code, float(base.par), n_knots, max_iter, rng, out, tries)
    return out, tries
