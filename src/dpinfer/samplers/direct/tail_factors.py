"""Interval masses and truncated draws of the two bases from tail factors, in linear scale.

Both bases are two-sided exponential: Laplace(0, lambda) has P(X > a) = exp(-a/lambda)/2 for
a >= 0, and the double geometric DGeom(rho) has P(K >= k) = q^k/(2 - rho) for integers k >= 1
(q = 1 - rho; FACTS.md 4), each mirrored below 0. So the base mass of an open interval (a, b),
and the inverse-CDF draw of g truncated to it, need only one *tail factor* per end:

- Laplace: e(p) = exp(-|p|/lambda);
- DGeom: e(p) = q^|k| at the end's integer, k = floor(a) + 1 for a lower end a and
  k = ceil(b) - 1 for an upper end b (the integers strictly inside, as the log-scale kernels).

The quantile rule (:mod:`.quantile_knots`) computes a factor once per end point (one exp, or a
table entry for base quantiles) and every piece's mass by a subtraction, where the log-scale
kernels (:func:`~.weights_bases.base_interval_log_pr`) spend two to four logarithms and
exponentials per interval. Factors underflow about 745 scale units from 0: the caller checks
that the envelope's area is representable and otherwise uses the log-scale kernels.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .weights_bases import B_LAPLACE, dgeom_quantile_q, laplace_quantile

__all__ = ["base_rate", "end_factor", "interval_mass", "truncated_draw"]


@njit(cache=True)
def base_rate(bt, par):
    """Decay rate of the base's tails: 1/lambda (Laplace) or -log(1 - rho) (DGeom)."""
    if bt == B_LAPLACE:
        return 1.0 / par
    return -math.log1p(-par)


@njit(cache=True)
def end_factor(bt, rate, p, upper):
    """Tail factor of the end p of an open interval, a lower end (``upper`` False) or an upper
    end; 0 for an infinite end."""
    if bt == B_LAPLACE:
        return math.exp(-abs(p) * rate)
    k = np.ceil(p) - 1.0 if upper else np.floor(p) + 1.0
    return math.exp(-abs(k) * rate)


@njit(cache=True)
def interval_mass(bt, par, lo, hi, elo, ehi):
    """P(lo < X < hi) from the ends' tail factors elo, ehi (:func:`end_factor`)."""
    if bt == B_LAPLACE:
        if not hi > lo:
            return 0.0
        if lo >= 0.0:
            return 0.5 * (elo - ehi)
        if hi <= 0.0:
            return 0.5 * (ehi - elo)
        return 1.0 - 0.5 * (elo + ehi)
    ia = np.floor(lo) + 1.0
    ib = np.ceil(hi) - 1.0
    if ia > ib:
        return 0.0
    q = 1.0 - par
    if ia >= 1.0:  # P(K >= ia) - P(K >= ib + 1)
        return (elo - ehi * q) * (1.0 / (2.0 - par))
    if ib <= -1.0:  # P(K <= ib) - P(K <= ia - 1)
        return (ehi - elo * q) * (1.0 / (2.0 - par))
    return 1.0 - q * (elo + ehi) * (1.0 / (2.0 - par))


@njit(cache=True)
def truncated_draw(bt, par, rate, lo, hi, elo, ehi, v):
    """Inverse-CDF draw of g truncated to (lo, hi) for v ~ U(0, 1), from the ends' tail factors:
    one logarithm (the slides' "Drawing from [x | u]"; same formulas as
    :func:`~.weights_bases.base_truncated_draw`, clamped into the interval)."""
    if bt == B_LAPLACE:
        if lo >= 0.0:  # lo + Exp(lambda) truncated to (0, hi - lo)
            x = lo - math.log1p(-v * (1.0 - ehi / elo)) * (1.0 / rate)
        elif hi <= 0.0:
            x = hi + math.log1p(-v * (1.0 - elo / ehi)) * (1.0 / rate)
        else:
            g1 = 0.5 * elo
            x = laplace_quantile(par, g1 + v * (1.0 - 0.5 * ehi - g1))
        return min(max(x, lo), hi)
    ia = np.floor(lo) + 1.0
    ib = np.ceil(hi) - 1.0
    if ia >= ib:  # one integer (a narrow weight's top pieces): no logarithm
        return ia
    q = 1.0 - par
    if ia >= 1.0 or ib <= -1.0:  # a geometric number of steps from the end nearer 0
        r = ehi * q / elo if ia >= 1.0 else elo * q / ehi  # q^(number of integers)
        j = np.ceil(math.log1p(-v * (1.0 - r)) * (-1.0 / rate)) - 1.0
        j = min(max(j, 0.0), ib - ia)
        return ia + j if ia >= 1.0 else ib - j
    g1 = q * elo / (2.0 - par)
    k = dgeom_quantile_q(par, -rate, g1 + v * (1.0 - q * ehi / (2.0 - par) - g1))
    return min(max(k, ia), ib)
