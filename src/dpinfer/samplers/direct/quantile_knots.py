"""Our fast knot rule ``quantile`` for the direct sampler inside the Gibbs sampler.

Not in the slides (deviations: "Knot rule used inside the Gibbs sampler"). Because the
accept-reject step makes every draw exact whatever the knots, the knot count is only a speed
knob, and the bisections for u_L and u_H (about 70 evaluations of P(A_u)) can be skipped.
Knots sit at u = w(q)/c for a few base quantiles q (so every piece spans at most one quantile
step of base mass on each side of A_u), at level sets of w a few weight-sds from its mode and,
for the double geometric base, at the integers next to the mode of w. Heights start as free
upper bounds read from a per-base table (:func:`base_quantile_points`); the accept-reject
step (:mod:`.envelope`) makes them exact where proposals are rejected. About 10 evaluations of
P(A_u) per draw instead of about 180.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .knots import insert_knot, small_rects
from .weights_bases import (B_DGEOM, B_LAPLACE, NEG_INF, W_LOGNORMAL, base_interval_log_pr,
                            base_quantile, log_prob_au, weight_log, weight_log_c)

__all__ = ["DEFAULT_LEVELS", "DEFAULT_WEIGHT_SDS", "N_MODE_INTEGERS", "base_quantile_points"]

# Default base-quantile levels of the ``quantile`` knot rule.
DEFAULT_LEVELS = (1e-12, 0.1, 0.5, 0.9, 1.0 - 1e-12)
# Double geometric base: integers on each side of the weight's mode that become knots.
N_MODE_INTEGERS = 2
# ... and weight-sd multiples k whose level sets u = exp(-k^2/2) are always knots.
DEFAULT_WEIGHT_SDS = (0.5, 1.5, 3.0)


@njit(cache=True)
def _add_knot(lu, lh, m, v):
    """Quantile knot rule: insert log u = v (height to be filled) into the sorted knots
    1..m-1; skip duplicates, v = -inf and v >= 0. Returns the new count."""
    if v == NEG_INF or not v < 0.0 or m >= lu.size - 1:
        return m
    pos = m
    while pos > 1 and lu[pos - 1] > v:
        pos -= 1
    if lu[pos - 1] == v:
        return m
    return insert_knot(lu, lh, m, pos, v, np.nan)


@njit(cache=True)
def _tail_point(bt, par, log_level):
    """Quantile knot rule, tail knots: |q| with P(X < -|q|) = exp(log_level), a base quantile
    far in the tail computed from the log level (FACTS.md 4 quantiles, in log scale)."""
    if bt == B_LAPLACE:
        return -par * (log_level + math.log(2.0))
    lq = math.log1p(-par)
    return np.floor((log_level + math.log(2.0 - par)) / lq)


@njit(cache=True)
def _integer_bound(rho, x_end, qs, kl, lo, hi, fm, luj):
    """Quantile knot rule, free envelope heights for the DGeom base: a log upper bound on
    P(A_u). A_u lies strictly between the nearest excluded
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
        return NEG_INF
    d0 = 0.0 if ia <= 0.0 <= ib else min(abs(ia), abs(ib))
    return math.log(ib - ia + 1.0) + math.log(rho / (2.0 - rho)) + d0 * math.log1p(-rho)


@njit(cache=True)
def quantile_knots(wt, z, mu, s2, bt, par, qs, ugrid, table, n_split, lu, lh, cum):
    """Knots and free heights of our ``quantile`` rule (not in the slides: it replaces the
    Stepdown's bisections and Small Rectangles inside the Gibbs sampler; the slides' step
    function h* is then built on these knots). Candidate knots (log u):

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
    lpmax = log_prob_au(wt, z, mu, s2, bt, par, NEG_INF)
    if lpmax == NEG_INF:
        return 0
    lc = weight_log_c(wt, mu, s2)
    nq = qs.size
    kl = cum[0]  # scratch: log u of each quantile point
    lu[0] = NEG_INF
    lh[0] = lpmax
    m = 1
    for k in range(nq):
        kl[k] = weight_log(wt, z, mu, s2, qs[k]) - lc
        m = _add_knot(lu, lh, m, kl[k])
    for k in range(ugrid.size):
        m = _add_knot(lu, lh, m, ugrid[k])
    xm = z - math.exp(mu - s2) if wt == W_LOGNORMAL else z - mu
    fm = np.floor(xm)
    if bt == B_DGEOM:
        for j in range(N_MODE_INTEGERS):
            kl[nq + 2 * j] = weight_log(wt, z, mu, s2, fm - j) - lc
            kl[nq + 2 * j + 1] = weight_log(wt, z, mu, s2, fm + 1.0 + j) - lc
            m = _add_knot(lu, lh, m, kl[nq + 2 * j])
            m = _add_knot(lu, lh, m, kl[nq + 2 * j + 1])
    t1 = np.nan
    t2 = np.nan
    if m > 1 and lu[1] < -27.6 and nq > 0 and (xm < qs[0] or xm > qs[nq - 1]):
        q = _tail_point(bt, par, lu[1] + math.log(1e-4))
        t1 = weight_log(wt, z, mu, s2, q) - lc
        t2 = weight_log(wt, z, mu, s2, -q) - lc
        m = _add_knot(lu, lh, m, t1)
        m = _add_knot(lu, lh, m, t2)
    lu[m] = 0.0
    lh[m] = NEG_INF  # P(A_1) = 0
    m += 1
    lb = cum[2]
    lb[0] = lpmax
    lb[m - 1] = NEG_INF
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
                lh[j] = log_prob_au(wt, z, mu, s2, bt, par, lu[j])
    if n_split > 0:
        for k in range(1, m - 1):
            lh[k] = log_prob_au(wt, z, mu, s2, bt, par, lu[k])
        return small_rects(wt, z, mu, s2, bt, par, lu, lh, m, 0, m - 1, n_split)
    return m




def base_quantile_points(base, levels=DEFAULT_LEVELS, weight_sds=DEFAULT_WEIGHT_SDS) -> np.ndarray:
    """Anchor array of the ``quantile`` knot rule for one :class:`~.weights_bases.Base`:
    [nq, ng, the nq distinct base quantiles G^-(p) at ``levels``, the ng values
    log u = -k^2/2 for k in ``weight_sds``, the (nq+1)^2 table of log base masses between
    quantile points]. Computed once per base; the Gibbs sampler reuses it for every draw."""
    qs = np.unique([base_quantile(base.code, base.par, float(p)) for p in levels])
    nq = qs.size
    ext = np.r_[-np.inf, qs, np.inf]
    # table[(a+1)(nq+1) + b] = log P(q_a < X < q_b), a = -1 / b = nq meaning no end point
    table = np.array([[base_interval_log_pr(base.code, base.par, ext[a], ext[b + 1])
                       for b in range(nq + 1)] for a in range(nq + 1)]).ravel()
    grid = [-0.5 * k * k for k in weight_sds]
    return np.r_[nq, len(grid), qs, grid, table].astype(float)
