"""Knots of the step-function envelope by the 2021 package's Stepdown (slides "Bisection
search", "Step function", "Knot selection"; FACTS.md Sec. 2.2-2.4).

Knots live in log scale: positions are lu = log u and heights lh = log P(A_u), so u_L far below
the smallest double (the z = 2 example, u_L = 2.9e-261) and P(A_u) below 1e-300 do not
underflow. The knot array is [u = 0 pseudo-knot (height P(A_0)), u_L = u_0 < ... < u_N = u_H,
closing knot u = 1 (height P(A_1) = 0)].

- u_L, u_H: bisection in log u (FACTS.md 2.2, 2.3) on the package's plain CDF difference;
- ``equal_steps``: u_j = u_L + (j/N)(u_H - u_L);
- ``small_rects``: the Small Rectangles algorithm, N - 1 times split the interval of largest
  rectangle area |R_j| = (P(A_{u_{j-1}}) - P(A_{u_j}))(u_j - u_{j-1}) at its midpoint in u.

:func:`small_rects` and :func:`insert_knot` also serve the ``quantile`` rule
(:mod:`.quantile_knots`) and the adaptive accept-reject step (:mod:`.envelope`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .weights_bases import LOG_HALF, NEG_INF, log_prob_au, log_prob_au_plain

__all__ = ["METHODS", "M_SMALL_RECTS", "M_EQUAL_STEPS", "M_QUANTILE"]

METHODS = {"small_rects": 0, "equal_steps": 1, "quantile": 2}
M_SMALL_RECTS = 0
M_EQUAL_STEPS = 1
M_QUANTILE = 2


@njit(cache=True)
def log_sub(a, b):
    """log(e^a - e^b) for a >= b; -inf when equal (widths and heights of the rectangles R_j)."""
    if b == NEG_INF:
        return a
    if not a > b:
        return NEG_INF
    return a + math.log(-math.expm1(b - a))


@njit(cache=True)
def log_mid(a, b):
    """log((e^a + e^b) / 2): the arithmetic midpoint in u of two log-u values, a <= b (the
    ``mid`` of the Small Rectangles algorithm, FACTS.md 2.4)."""
    if a == NEG_INF:
        return b + LOG_HALF
    return b + math.log1p(math.exp(a - b)) + LOG_HALF


@njit(cache=True)
def _bisect_log_u(target, lo, hi, delta, threshold, strict):
    """The slides' Bisection Search Algorithm on [lo, hi] in log u, activation zeta(x) =
    [log P(A_u) < threshold] (``strict``) or [log P(A_u) <= threshold]; returns the midpoint
    (FACTS.md 2.2: stop at distance <= delta or when the midpoint stops moving)."""
    wt, z, mu, s2, bt, par = target
    x = 0.5 * (lo + hi)
    while hi - lo > delta:
        lp = log_prob_au_plain(wt, z, mu, s2, bt, par, x)
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
def _bisect_u_lower(target, lpmax, tol):
    """log u_L, the smallest u with P(A_u) < P(A_0): lower bracket -1, -2, -4, ... until P(A_u)
    ties P(A_0), then bisection on [lo, 0] with delta = tol (0 - lo) (FACTS.md 2.2)."""
    wt, z, mu, s2, bt, par = target
    lo = -1.0
    for _ in range(1100):
        if not log_prob_au_plain(wt, z, mu, s2, bt, par, lo) < lpmax:
            break
        lo *= 2.0
    hi = 0.0
    delta = tol * (0.0 - lo)
    return _bisect_log_u(target, lo, hi, delta, lpmax, True)


@njit(cache=True)
def _rect_log_area(lu, lh, j):
    """log |R| of the slides' rectangle between knots j and j+1 ("Approximation error bound"):
    (P_j - P_{j+1}) (u_{j+1} - u_j)."""
    lw = log_sub(lu[j + 1], lu[j])
    lhgt = log_sub(lh[j], lh[j + 1])
    if lw == NEG_INF or lhgt == NEG_INF:
        return NEG_INF
    return lw + lhgt


@njit(cache=True)
def insert_knot(lu, lh, m, pos, lu_new, lh_new):
    """Insert a knot (log u, log height) at index pos of the first m entries; returns the new
    count (the bookkeeping of Small Rectangles and of the adaptive accept-reject step)."""
    for k in range(m, pos, -1):
        lu[k] = lu[k - 1]
        lh[k] = lh[k - 1]
    lu[pos] = lu_new
    lh[pos] = lh_new
    return m + 1


@njit(cache=True)
def small_rects(target, lu, lh, m, first, last, n_split):
    """The slides' Small Rectangles Algorithm: n_split times, split the knot interval (among
    first..last-1) of largest rectangle area |R_j| at its arithmetic midpoint in u. Areas are
    cached in place of the package's priority queue, so a split costs one P(A_u) evaluation
    and O(knots) comparisons. Returns the new knot count."""
    wt, z, mu, s2, bt, par = target
    if n_split <= 0:
        return m
    area = np.empty(m + n_split)
    for j in range(first, last):
        area[j] = _rect_log_area(lu, lh, j)
    for _ in range(n_split):
        best = -1
        best_area = NEG_INF
        for j in range(first, last):
            if area[j] > best_area:
                best_area = area[j]
                best = j
        if best < 0:
            break
        lm = log_mid(lu[best], lu[best + 1])
        if not (lu[best] < lm < lu[best + 1]):
            break
        m = insert_knot(lu, lh, m, best + 1, lm, log_prob_au(wt, z, mu, s2, bt, par, lm))
        for k in range(last, best + 1, -1):
            area[k] = area[k - 1]
        last += 1
        area[best] = _rect_log_area(lu, lh, best)
        area[best + 1] = _rect_log_area(lu, lh, best + 1)
    return m


@njit(cache=True)
def stepdown_knots(target, method, n_knots, tol, lu, lh):
    """Knots of the 2021 Stepdown (slides "Step function", "Knot selection"; FACTS.md 2.4):
    [u = 0 pseudo-knot, u_L, ..., u_H (N + 1 knots by equal steps or Small Rectangles), u = 1].

    Fills lu (log u) and lh (log P(A_u)); returns the count, or 0 when P(A_0) = 0.
    """
    wt, z, mu, s2, bt, par = target
    lpmax = log_prob_au(wt, z, mu, s2, bt, par, NEG_INF)
    if lpmax == NEG_INF:
        return 0
    lu_l = _bisect_u_lower(target, log_prob_au_plain(wt, z, mu, s2, bt, par, NEG_INF), tol)
    # log u_H, the smallest u with P(A_u) = 0 in double precision: bisection on [log u_L, 0]
    # (FACTS.md 2.3, v0.1.0 predicate)
    lu_h = _bisect_log_u(target, lu_l, 0.0, tol * (0.0 - lu_l), NEG_INF, False)
    lu[0] = NEG_INF
    lh[0] = lpmax
    if method == M_EQUAL_STEPS:
        r = math.exp(lu_l - lu_h)
        for j in range(n_knots + 1):
            lu[1 + j] = lu_h + math.log(r + (j / n_knots) * (1.0 - r))
            lh[1 + j] = log_prob_au(wt, z, mu, s2, bt, par, lu[1 + j])
        m = n_knots + 2
    else:
        lu[1] = lu_l
        lh[1] = log_prob_au(wt, z, mu, s2, bt, par, lu_l)
        lu[2] = lu_h
        lh[2] = log_prob_au(wt, z, mu, s2, bt, par, lu_h)
        m = small_rects(target, lu, lh, 3, 1, 2, n_knots - 1)
    # Close the envelope at u = 1 (P(A_1) = 0) so h* >= P(A_u) holds above u_H too.
    if lu[m - 1] < 0.0:
        lu[m] = 0.0
        lh[m] = NEG_INF
        m += 1
    return m
