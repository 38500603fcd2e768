"""Our fast knot rule ``quantile`` for the direct sampler inside the Gibbs sampler: an envelope
of nested base intervals, and the accept coin drawn in x.

Not in the slides (deviations: "Quantile knot rule inside the Gibbs sampler" and "Accept coin
drawn in x"). The accept step makes every draw exact whatever the knots, so the knots are a
speed knob only, and the bisections for u_L and u_H can be skipped.

**Envelope.** Knots 0 = u_0 < u_1 < ... < u_{m-1} = 1 (log u in ``lu``) and, for every piece
[u_j, u_{j+1}), an open interval B_j that contains A_{u_j} (hence A_u for every u of the piece)
with its exact base mass: the step function h*(u) = P(B_j) >= P(A_u). Candidate knots are
u = w(p)/c at points p: base quantiles, the integers next to the mode of w (double geometric
base, where P(A_u) jumps when w is narrow next to the integer grid) and, when w sits far in
the base's tail, two tail points. Once u passes w(p)/c, p is outside A_u, so A_u lies strictly
between the nearest such points on either side of the mode: that interval (cut at the support
end z of the lognormal weight) is B_j. Its mass is read from a per-base table when both ends
are quantile points, else from the base's CDF. On the double geometric base a point between
the same two integers as the current end leaves B_j's integers, hence P(B_j), unchanged: it
starts no piece. Fixed knots u = exp(-k^2/2), the level sets of
w at k weight-sds, split pieces without a new mass; they pay off once a rejection makes their
piece exact.

**Accept coin drawn in x.** The slides draw u from h = h*/a, accept it with probability
P(A_u)/h*(u) and then draw x from g truncated to A_u. Here: piece j with probability
proportional to P(B_j)(u_{j+1} - u_j), x from g truncated to B_j, u uniform on the piece, and
accept if x lies in A_u (w(x)/c > u). Given u, that happens with probability
P(A_u)/P(B_j) = P(A_u)/h*(u), and an accepted x is g truncated to A_u: the pair (u, x) has the
slides' law and acceptance rate exactly. A proposal costs one evaluation of w instead of the
roots of A_u, P(A_u) and a truncated draw; when x lies in A_{u_{j+1}} no u is drawn at all.

**Adaptive rejection.** A rejected u makes its piece exact (B_j = A_{u_j}) and becomes a knot
with B = A_u, so the envelope of each round depends only on earlier rounds.

**Linear scale.** Masses and truncated draws use the bases' tail factors
(:mod:`.tail_factors`): one exp per end point instead of log-probabilities per piece. When the
envelope's area is not representable in double precision (w far in the base's tail, e.g. the
first Gibbs iterations) the envelope is rebuilt in log scale (``lin`` False).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .tail_factors import base_rate, end_factor, interval_mass, truncated_draw
from .weights_bases import (
    B_DGEOM,
    B_LAPLACE,
    NEG_INF,
    W_LOGNORMAL,
    base_consts,
    base_interval_log_pr_c,
    base_quantile,
    base_truncated_draw_c,
    lognormal_roots_em,
    weight_log,
    weight_log_c,
    weight_roots,
)

__all__ = [
    "DEFAULT_LEVELS",
    "DEFAULT_WEIGHT_SDS",
    "N_MODE_INTEGERS",
    "WORKSPACE_ROWS",
    "base_quantile_points",
    "quantile_envelope",
    "quantile_accept_reject",
]

# Default base-quantile levels of the ``quantile`` knot rule.
DEFAULT_LEVELS = (1e-12, 0.1, 0.5, 0.9, 1.0 - 1e-12)
# Double geometric base: integers on each side of the weight's mode that become knots when the
# weight's sd in x is below MODE_INTEGER_SD (where P(A_u) jumps at the integer grid).
N_MODE_INTEGERS = 2
MODE_INTEGER_SD = 4.0
# ... and weight-sd multiples k whose level sets u = exp(-k^2/2) are always knots.
DEFAULT_WEIGHT_SDS = (0.5, 1.5, 3.0)
# Rows of the workspace ``ws`` (WORKSPACE_ROWS x capacity): per piece j (interval B_j, its
# ends' tail factors, its ends u_j and u_{j+1} and log u_{j+1}, exact flag, P(B_j)/P(A_0),
# cumulative area), per point p (position, log u where it leaves A_u, tail factor) and the
# draw's scalars (R_STATE). Pieces split by a rejection are appended, so they are sorted by
# u only until the first rejection; lu[j] is the log of their lower end.
(
    R_CUM,
    R_LO,
    R_HI,
    R_ELO,
    R_EHI,
    R_U,
    R_UH,
    R_LUH,
    R_EXACT,
    R_SCALED,
    R_PX,
    R_PK,
    R_PE,
    R_PU,
    R_STATE,
) = range(15)
WORKSPACE_ROWS = 15
# R_STATE: linear scale in use, P(A_0), the key s2 of a cache (constant over a Gibbs sweep),
# sqrt(s2), 1/P(A_0), exp(mu - s2) (lognormal weight), then the cache: per weight-sd k,
# exp(k sqrt(s2)) and its inverse (the lognormal level set's end multipliers).
S_LIN, S_P0, S_S2, S_SD, S_IP0, S_EM, S_EXP = 0, 1, 2, 3, 4, 5, 6
# Linear scale is trusted when P(A_0), the envelope's area and the base's tail factor at the
# first weight-sd level set (where the target lives) exceed TINY: mass that underflows then
# carries a negligible share of the target.
TINY = 1e-250
LOG_TINY = math.log(TINY)
# Anchor array: see :func:`base_quantile_points`.
_HEAD = 5


@njit(cache=True)
def _tail_point(bt, par, rate, log_level):
    """|q| with P(X < -|q|) = exp(log_level): a base quantile far in the tail computed from the
    log level (FACTS.md 4 quantiles, in log scale); ``rate`` is :func:`base_rate`."""
    if bt == B_LAPLACE:
        return -par * (log_level + math.log(2.0))
    return np.floor((log_level + math.log(2.0 - par)) / -rate)


@njit(cache=True, inline="always")
def _cumulate(ws, m):
    """Cumulative areas P(B_j)(u_{j+1} - u_j) of the m - 1 pieces, scaled by 1/P(A_0)."""
    s = 0.0
    for j in range(m - 1):
        s += ws[R_SCALED, j] * (ws[R_UH, j] - ws[R_U, j])
        ws[R_CUM, j] = s


@njit(cache=True, inline="always")
def _set_piece(ws, j, lo, hi, elo, ehi, u, scaled):
    """Piece j: interval B_j = (lo, hi), its ends' tail factors, u_j and P(B_j)/P(A_0)."""
    ws[R_LO, j] = lo
    ws[R_HI, j] = hi
    ws[R_ELO, j] = elo
    ws[R_EHI, j] = ehi
    ws[R_U, j] = u
    ws[R_SCALED, j] = scaled
    ws[R_EXACT, j] = 0.0


@njit(cache=True, inline="always")
def _set_exact(target, anchors, lh, ws, j, lu_j):
    """Piece j gets B_j = A_{u_j} exactly (the roots of the weight's level set) and its mass."""
    wt, z, mu, s2, bt, par = target
    if wt == W_LOGNORMAL:  # the envelope's exp(mu - s2) reused
        x1, x2 = lognormal_roots_em(z, ws[R_STATE, S_EM], s2, lu_j)
    else:
        x1, x2 = weight_roots(wt, z, mu, s2, lu_j)
    if ws[R_STATE, S_LIN] == 1.0:
        rate = anchors[4]
        e1 = end_factor(bt, rate, x1, False)
        e2 = end_factor(bt, rate, x2, True)
        s = interval_mass(bt, par, x1, x2, e1, e2) * ws[R_STATE, S_IP0]
        ws[R_ELO, j] = e1
        ws[R_EHI, j] = e2
    else:
        s = math.exp(base_interval_log_pr_c(bt, par, anchors[2], anchors[3], x1, x2) - lh[0])
    ws[R_LO, j] = x1
    ws[R_HI, j] = x2
    ws[R_SCALED, j] = min(s, ws[R_SCALED, j])  # A_{u_j} is inside B_j: rounding only
    ws[R_EXACT, j] = 1.0


@njit(cache=True, inline="always")
def quantile_envelope(target, anchors, lu, lh, ws, lin):
    """Knots and nested intervals of the ``quantile`` rule for one (w, g) (module docstring),
    in linear scale (``lin``) or log scale.

    Points are kept sorted by the log u at which they leave A_u; one sweep over them excludes
    each in turn and starts a piece wherever B changes. Fills lu (log u_j), lh[0] = log P(A_0)
    and the rows of ``ws``; ``anchors`` is :func:`base_quantile_points`. Returns the knot
    count m, 0 when P(A_0) = 0, or -1 when ``lin`` and the envelope's area is not
    representable (then build it with ``lin`` False).
    """
    wt, z, mu, s2, bt, par = target
    nq = int(anchors[0])
    ng = int(anchors[1])
    rate = anchors[4]
    qel = _HEAD + nq + ng  # the quantiles' tail factors (lower ends, then upper ends)
    qeu = qel + nq  # ... then exp(-k^2/2) per weight-sd k, then q^-3 .. q^3 (q = 1 - rho)
    qpw = qeu + nq + ng + 3
    zmax = z if wt == W_LOGNORMAL else np.inf
    ez = 0.0
    p0 = 1.0
    if lin:
        if zmax < np.inf:
            ez = end_factor(bt, rate, zmax, True)
            p0 = interval_mass(bt, par, NEG_INF, zmax, 0.0, ez)
            if not p0 > TINY:
                return -1
        lp0 = np.nan  # not needed in linear scale
    else:
        lp0 = base_interval_log_pr_c(bt, par, anchors[2], anchors[3], NEG_INF, zmax)
        if lp0 == NEG_INF:
            return 0
    ws[R_STATE, S_LIN] = 1.0 if lin else 0.0
    ws[R_STATE, S_P0] = p0
    inv_p0 = 1.0 / p0
    ws[R_STATE, S_IP0] = inv_p0
    lh[0] = lp0
    lc = weight_log_c(wt, mu, s2)
    if ws[R_STATE, S_S2] != s2:  # a new sweep: refresh the cache
        sd = math.sqrt(s2)
        ws[R_STATE, S_S2] = s2
        ws[R_STATE, S_SD] = sd
        for k in range(ng):
            f = math.exp(math.sqrt(-2.0 * anchors[_HEAD + nq + k]) * sd)
            ws[R_STATE, S_EXP + k] = f
            ws[R_STATE, S_EXP + ng + k] = 1.0 / f
    sd = ws[R_STATE, S_SD]
    em = 0.0
    if wt == W_LOGNORMAL:
        em = math.exp(mu - s2)  # the weight's mode is z - em; A_u's ends z - em e^(+-k sd)
        ws[R_STATE, S_EM] = em
        xm = z - em
        sd_x = em * sd
    else:
        xm = z - mu
        sd_x = sd
    n_mode = N_MODE_INTEGERS if bt == B_DGEOM and sd_x < MODE_INTEGER_SD else 0
    fm = np.floor(xm)
    e_fm = math.exp(-abs(fm) * rate) if lin and n_mode > 0 else 0.0
    # Points in one loop (so the sorted insertion is written once): quantiles, mode
    # integers, level-set ends (two per weight-sd), then two tail points if w is far out.
    n_base = nq + 2 * n_mode
    n_all = n_base + 2 * ng
    npt = 0
    kmin = 0.0
    kq = NEG_INF  # largest log w(q)/c over the base quantiles
    x2 = 0.0
    tail = 0.0
    k = 0
    while k < n_all + 2:
        e = np.nan
        pu = np.nan
        if k < nq:
            x = anchors[_HEAD + k]
            kx = weight_log(wt, z, mu, s2, x) - lc
            kq = max(kq, kx)
            if lin:
                e = anchors[qel + k + (nq if x > xm else 0)]
        elif k < n_base:  # the integers next to the mode: fm - i and fm + 1 + i
            i = k - nq
            x = fm - i // 2 if i % 2 == 0 else fm + 1.0 + i // 2
            kx = weight_log(wt, z, mu, s2, x) - lc
            if lin:  # q^|end integer| from q^|fm| by powers of q (|difference| <= 3)
                ki = x - 1.0 if x > xm else x + 1.0
                e = e_fm * anchors[qpw + int(abs(ki) - abs(fm))]
        elif k < n_all:  # the ends of the level set A_u at k weight-sds leave A_u at u
            g = (k - n_base) // 2
            kx = anchors[_HEAD + nq + g]
            pu = anchors[qeu + nq + g]
            if (k - n_base) % 2 == 0:
                if wt == W_LOGNORMAL:
                    f = ws[R_STATE, S_EXP + g]
                    x, x2 = z - em * f, z - em * ws[R_STATE, S_EXP + ng + g]
                else:
                    d = math.sqrt(-2.0 * kx) * sd
                    x, x2 = xm - d, xm + d
                if lin and g == 0 and not (x < 0.0 < x2 or kq > LOG_TINY):
                    # neither the weight's one-sd set nor a base quantile with w/c > TINY
                    # covers the base's bulk: if the tail factor at the set's nearer end
                    # underflows, so may the mass where the target lives
                    e = end_factor(bt, rate, x, False)
                    if not max(e, end_factor(bt, rate, x2, True)) > TINY:
                        return -1
            else:
                x = x2
        else:  # w far in the base's tail: two points of mass 1e-4 u_1 bound the outer pieces
            if k == n_all:
                if not (
                    kmin < -27.6
                    and nq > 0
                    and (xm < anchors[_HEAD] or xm > anchors[_HEAD + nq - 1])
                ):
                    break
                tail = _tail_point(bt, par, rate, kmin + math.log(1e-4))
            x = tail if k == n_all else -tail
            kx = weight_log(wt, z, mu, s2, x) - lc
        k += 1
        if k <= n_base and NEG_INF < kx < kmin:
            kmin = kx
        if not (NEG_INF < kx < 0.0) or npt >= ws.shape[1]:
            continue  # never (the mode) or always (beyond z) outside A_u
        pos = npt  # insert, keeping the points sorted by kx
        while pos > 0 and ws[R_PK, pos - 1] > kx:
            ws[R_PX, pos] = ws[R_PX, pos - 1]
            ws[R_PK, pos] = ws[R_PK, pos - 1]
            ws[R_PE, pos] = ws[R_PE, pos - 1]
            ws[R_PU, pos] = ws[R_PU, pos - 1]
            pos -= 1
        ws[R_PX, pos] = x
        ws[R_PK, pos] = kx
        ws[R_PE, pos] = e
        ws[R_PU, pos] = pu
        npt += 1
    # piece 0: B_0 = A_0, the support of w; then exclude the points in the order they leave
    lo = NEG_INF
    hi = zmax
    elo = 0.0
    ehi = ez
    lu[0] = NEG_INF
    _set_piece(ws, 0, lo, hi, elo, ehi, 0.0, 1.0)
    ws[R_EXACT, 0] = 1.0
    m = 1  # knots so far
    dgeom = bt == B_DGEOM
    p = 0
    while p < npt:
        k = ws[R_PK, p]
        uk = ws[R_PU, p]
        changed = False
        while p < npt and ws[R_PK, p] == k:
            x = ws[R_PX, p]
            # (double geometric: a point between the same two integers as the end is no change)
            if xm > x > lo and not (dgeom and np.floor(x) == np.floor(lo)):
                lo = x
                elo = ws[R_PE, p]
                if lin and math.isnan(elo):
                    elo = end_factor(bt, rate, x, False)
                changed = True
            elif xm < x < hi and not (dgeom and np.ceil(x) == np.ceil(hi)):
                hi = x
                ehi = ws[R_PE, p]
                if lin and math.isnan(ehi):
                    ehi = end_factor(bt, rate, x, True)
                changed = True
            p += 1
        if not changed:
            continue
        if lin:
            s = interval_mass(bt, par, lo, hi, elo, ehi) * inv_p0
        else:
            s = math.exp(base_interval_log_pr_c(bt, par, anchors[2], anchors[3], lo, hi) - lp0)
        lu[m] = k
        _set_piece(ws, m, lo, hi, elo, ehi, math.exp(k) if math.isnan(uk) else uk, min(s, 1.0))
        m += 1
    lu[m] = 0.0
    ws[R_U, m] = 1.0
    m += 1
    for j in range(m - 1):
        ws[R_UH, j] = ws[R_U, j + 1]
        ws[R_LUH, j] = lu[j + 1]
    _cumulate(ws, m)
    if lin and not ws[R_CUM, m - 2] * p0 > TINY:
        return -1
    return m


@njit(cache=True, inline="always")
def quantile_accept_reject(target, anchors, lu, lh, ws, m, adapt, max_prop, rng):
    """One exact draw from the envelope of :func:`quantile_envelope` with the accept coin
    drawn in x (module docstring), refining the envelope after each rejection.
    Returns (x, number of proposals, new knot count); x is NaN after max_prop rejections."""
    wt, z, mu, s2, bt, par = target
    lin = ws[R_STATE, S_LIN] == 1.0
    rate = anchors[4]
    lc = weight_log_c(wt, mu, s2)
    cap = lu.size
    n_prop = 0
    while n_prop < max_prop:
        n_prop += 1
        v = rng.random() * ws[R_CUM, m - 2]
        j = 0
        while j < m - 2 and ws[R_CUM, j] <= v:
            j += 1
        if lin:
            x = truncated_draw(
                bt, par, rate, ws[R_LO, j], ws[R_HI, j], ws[R_ELO, j], ws[R_EHI, j], rng.random()
            )
        else:
            x = base_truncated_draw_c(bt, par, anchors[2], ws[R_LO, j], ws[R_HI, j], rng.random())
        t = weight_log(wt, z, mu, s2, x) - lc  # log w(x)/c: x is in A_u for every u < e^t
        if t >= ws[R_LUH, j]:
            return x, n_prop, m
        if t < lu[j]:  # x is not even in A_{u_j}: reject for every u, make B_j = A_{u_j}
            if ws[R_EXACT, j] == 0.0:
                _set_exact(target, anchors, lh, ws, j, lu[j])
                _cumulate(ws, m)
            continue
        uj = ws[R_U, j]
        u = uj + rng.random() * (ws[R_UH, j] - uj)
        if u < math.exp(t):
            return x, n_prop, m
        lun = math.log(u) if u > 0.0 else NEG_INF
        if adapt and m < cap and lu[j] < lun < ws[R_LUH, j]:
            # split piece j at u: [u_j, u) keeps B_j, [u, u_{j+1}) is appended with B = A_u
            k = m - 1
            lu[k] = lun
            ws[R_U, k] = u
            ws[R_UH, k] = ws[R_UH, j]
            ws[R_LUH, k] = ws[R_LUH, j]
            ws[R_SCALED, k] = ws[R_SCALED, j]
            _set_exact(target, anchors, lh, ws, k, lun)
            ws[R_UH, j] = u
            ws[R_LUH, j] = lun
            m += 1
        _cumulate(ws, m)
    return np.nan, n_prop, m


def base_quantile_points(base, levels=DEFAULT_LEVELS, weight_sds=DEFAULT_WEIGHT_SDS) -> np.ndarray:
    """Anchor array of the ``quantile`` knot rule for one :class:`~.weights_bases.Base`:
    [nq, ng, the base's constants (:func:`base_consts`), its tail rate, the nq distinct base
    quantiles G^-(p) at ``levels``, the ng values log u = -k^2/2 for k in ``weight_sds``, the
    quantiles' tail factors as lower and as upper interval ends (:mod:`.tail_factors`), the ng
    values u = exp(-k^2/2), and exp(-d rate) for d = -3..3 (tail factors of neighbouring
    integers)]. Computed once per base; the Gibbs sampler reuses it for every draw."""
    bt, par = base.code, base.par
    qs = np.unique([base_quantile(bt, par, float(p)) for p in levels])
    grid = [-0.5 * k * k for k in weight_sds]
    rate = base_rate(bt, par)
    factors = [end_factor(bt, rate, q, upper) for upper in (False, True) for q in qs]
    # (double geometric only: rate <= 37 there, so no overflow)
    powers = [math.exp(-d * rate) if bt == B_DGEOM else 0.0 for d in range(-3, 4)]
    return np.r_[
        qs.size, len(grid), base_consts(bt, par), rate, qs, grid, factors, np.exp(grid), powers
    ].astype(float)
