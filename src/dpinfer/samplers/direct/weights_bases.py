"""Weights w and bases g of the direct sampler, and the level-set probability P(A_u).

Slides "Back to disclosure avoidance example" and FACTS.md Sec. 4 (the 2021 package's C++
weights and bases). A target is f(x) = w(x) g(x) / psi; with c = sup w and
A_u = {x : w(x) > u c} the direct sampler needs, in closed form,

- of the weight: log c and the ends (x1, x2) of the interval A_u (``weight_*`` kernels);
- of the base: P(x1 < X < x2) on the open interval, and the inverse-CDF draw of g truncated to
  (x1, x2) (``*_log_pr`` and ``*_trunc`` kernels).

Weights (unimodal): ``lognormal`` (z, mu, s2), log w(x) = -log(z-x) - (log(z-x) - mu)^2/(2 s2)
for x < z (the lognormal density of y = z - x); ``normal`` (z, mu, s2),
log w(x) = -(z - x - mu)^2/(2 s2).

Bases: ``laplace`` Laplace(0, lambda) and ``dgeom`` the double geometric DGeom(rho),
P(k) = rho/(2-rho) (1-rho)^|k| on the integers. The noise law is defined once, in
:mod:`dpinfer.mechanisms`: a :class:`Base` is built from a mechanism record with
:meth:`Base.of`, so the sampler's base and the release's noise cannot disagree.

Kernels take integer codes (``W_*``, ``B_*``) so one compiled kernel serves every pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ...mechanisms import DoubleGeometric, Laplace

__all__ = [
    "WEIGHTS",
    "BASES",
    "W_LOGNORMAL",
    "W_NORMAL",
    "B_LAPLACE",
    "B_DGEOM",
    "Weight",
    "Base",
    "Target",
    "log_p_of_u",
]

WEIGHTS = {"lognormal": 0, "normal": 1}
BASES = {"laplace": 0, "dgeom": 1}

W_LOGNORMAL = 0
W_NORMAL = 1
B_LAPLACE = 0
B_DGEOM = 1

LOG_HALF = math.log(0.5)
NEG_INF = -np.inf


# ============================================================================ weights
@njit(cache=True)
def weight_log_c(wt, mu, s2):
    """log c = log sup w (slides: c = exp{-(mu - sigma^2/2)} for the lognormal weight;
    FACTS.md 4: 0 for the normal weight)."""
    if wt == W_LOGNORMAL:
        return -mu + 0.5 * s2
    return 0.0


@njit(cache=True)
def weight_log(wt, z, mu, s2, x):
    """log w(x) of FACTS.md 4 (unnormalised, -inf outside the support x < z)."""
    if wt == W_LOGNORMAL:
        if not x < z:
            return NEG_INF
        r = math.log(z - x)
        d = r - mu
        return -r - d * d * (0.5 / s2)  # a reciprocal the loops hoist, not a division per call
    d = z - x - mu
    return -d * d * (0.5 / s2)


@njit(cache=True)
def weight_roots(wt, z, mu, s2, lu):
    """Ends (x1, x2) of A_u = {x : log w(x) > log c + lu}, lu = log u <= 0: the slides'
    xi_{1,2}(u) = z - exp{(mu - s2) +- sqrt(-2 s2 log u)} (lognormal) and
    z - mu -+ sqrt(-2 s2 log u) (normal), FACTS.md 4. No integer-z nudge (deviations)."""
    if lu == NEG_INF:
        if wt == W_LOGNORMAL:
            return NEG_INF, z
        return NEG_INF, np.inf
    if lu > 0.0:
        lu = 0.0
    d = math.sqrt(-2.0 * s2 * lu)
    if wt == W_LOGNORMAL:
        m = mu - s2
        return z - math.exp(m + d), z - math.exp(m - d)
    return z - mu - d, z - mu + d


@njit(cache=True)
def lognormal_roots_em(z, em, s2, lu):
    """The lognormal weight's :func:`weight_roots` given em = exp(mu - s2), computed once per
    (w, g) by a caller that needs several level sets: z - em e^(+-sqrt(-2 s2 log u)), one exp."""
    if lu == NEG_INF:
        return NEG_INF, z
    f = math.exp(math.sqrt(-2.0 * s2 * min(lu, 0.0)))
    return z - em * f, z - em / f


# ============================================================================ Laplace base
@njit(cache=True)
def laplace_log_pr(lam, x1, x2):
    """log P(x1 < X < x2), X ~ Laplace(0, lam) (FACTS.md 4); one-sided intervals use the tail
    formula so the probability keeps its precision below 1e-16."""
    if not x2 > x1:
        return NEG_INF
    if x1 >= 0.0:
        return LOG_HALF - x1 / lam + math.log(-math.expm1(-(x2 - x1) / lam))
    if x2 <= 0.0:
        return LOG_HALF + x2 / lam + math.log(-math.expm1(-(x2 - x1) / lam))
    p = 1.0 - 0.5 * math.exp(x1 / lam) - 0.5 * math.exp(-x2 / lam)
    if p <= 0.0:
        return NEG_INF
    return math.log(p)


@njit(cache=True)
def laplace_cdf(lam, x):
    """Laplace(0, lam) CDF G of the slides ("Back to disclosure avoidance example")."""
    if x <= 0.0:
        return 0.5 * math.exp(x / lam)
    return 1.0 - 0.5 * math.exp(-x / lam)


@njit(cache=True)
def laplace_quantile(lam, p):
    """Laplace(0, lam) quantile G^- of the slides."""
    if p <= 0.5:
        return lam * math.log(2.0 * p)
    return -lam * math.log(2.0 - 2.0 * p)


@njit(cache=True)
def laplace_trunc(lam, x1, x2, v):
    """Slides "Drawing from [x | u]": x = G^-((b - a) v + a), a = G(x1), b = G(x2), for
    Laplace(0, lam) truncated to (x1, x2) and v ~ U(0, 1), clamped into [x1, x2] (FACTS.md 2.8);
    one-sided intervals invert the exponential tail directly."""
    if x1 >= 0.0:
        x = x1 - lam * math.log1p(v * math.expm1(-(x2 - x1) / lam))
    elif x2 <= 0.0:
        x = x2 + lam * math.log1p(v * math.expm1(-(x2 - x1) / lam))
    else:
        g1 = laplace_cdf(lam, x1)
        g2 = laplace_cdf(lam, x2)
        x = laplace_quantile(lam, g1 + v * (g2 - g1))
    return min(max(x, x1), x2)


# ============================================================================ double geometric base
@njit(cache=True)
def dgeom_range(x1, x2):
    """Integers a..b strictly inside (x1, x2) (floats, may be infinite): FACTS.md 4,
    a = floor(x1 + 1), b = ceil(x2 - 1)."""
    return np.floor(x1) + 1.0, np.ceil(x2) - 1.0


@njit(cache=True)
def dgeom_consts(rho):
    """(log(1 - rho), log(2 - rho)): the double geometric's constants, computed once per base
    by callers that draw many times (the ``_q`` kernels take them)."""
    return math.log1p(-rho), math.log(2.0 - rho)


@njit(cache=True)
def dgeom_log_pr_q(lq, l2r, x1, x2):
    """log P(x1 < K < x2), K ~ DGeom(rho) (FACTS.md 4, open interval), given
    :func:`dgeom_consts`; one-sided ranges use the geometric tail."""
    a, b = dgeom_range(x1, x2)
    if a > b:
        return NEG_INF
    if a >= 1.0:
        return a * lq + math.log(-math.expm1((b - a + 1.0) * lq)) - l2r
    if b <= -1.0:
        return -b * lq + math.log(-math.expm1((b - a + 1.0) * lq)) - l2r
    p = 1.0 - math.exp((1.0 - a) * lq - l2r) - math.exp((b + 1.0) * lq - l2r)
    if p <= 0.0:
        return NEG_INF
    return math.log(p)


@njit(cache=True)
def dgeom_cdf_q(rho, lq, x):
    """DGeom(rho) CDF at floor(x) (FACTS.md 4), given lq = log(1 - rho)."""
    k = np.floor(x)
    if k >= 0.0:
        return 1.0 - math.exp((k + 1.0) * lq) / (2.0 - rho)
    return math.exp(-k * lq) / (2.0 - rho)


@njit(cache=True)
def dgeom_quantile_q(rho, lq, p):
    """DGeom(rho) quantile: the smallest integer k with F(k) >= p (FACTS.md 4), given lq."""
    if p <= (1.0 - rho) / (2.0 - rho):  # F(-1)
        return np.ceil(-math.log(p * (2.0 - rho)) * (1.0 / lq))
    return max(0.0, np.ceil(math.log((1.0 - p) * (2.0 - rho)) * (1.0 / lq)) - 1.0)


@njit(cache=True)
def dgeom_trunc_q(rho, lq, x1, x2, v):
    """Inverse-CDF draw of DGeom(rho) truncated to the integers in (x1, x2) (slides "Drawing
    from [x | u]", discrete clamp [ceil x1, floor x2] of FACTS.md 2.8), given lq."""
    a, b = dgeom_range(x1, x2)
    if a >= 1.0 or b <= -1.0:
        m = b - a + 1.0
        j = np.ceil(math.log1p(v * math.expm1(m * lq)) / lq) - 1.0
        j = min(max(j, 0.0), m - 1.0)
        return a + j if a >= 1.0 else b - j
    g1 = dgeom_cdf_q(rho, lq, a - 1.0)
    g2 = dgeom_cdf_q(rho, lq, b)
    k = dgeom_quantile_q(rho, lq, g1 + v * (g2 - g1))
    return min(max(k, a), b)


# ============================================================================ by base code
@njit(cache=True)
def base_interval_log_pr(bt, par, x1, x2):
    """log P(x1 < X < x2) under base ``bt`` (the package's ``pr_interval``, FACTS.md 1)."""
    if bt == B_LAPLACE:
        return laplace_log_pr(par, x1, x2)
    lq, l2r = dgeom_consts(par)
    return dgeom_log_pr_q(lq, l2r, x1, x2)


@njit(cache=True)
def base_truncated_draw(bt, par, x1, x2, v):
    """x | u by the inverse CDF of g truncated to (x1, x2) (the package's ``r_truncated``)."""
    if bt == B_LAPLACE:
        return laplace_trunc(par, x1, x2, v)
    return dgeom_trunc_q(par, math.log1p(-par), x1, x2, v)


@njit(cache=True)
def base_consts(bt, par):
    """Per-base constants of the ``_c`` kernels: :func:`dgeom_consts` (Laplace: unused)."""
    if bt == B_LAPLACE:
        return 0.0, 0.0
    return dgeom_consts(par)


@njit(cache=True)
def base_interval_log_pr_c(bt, par, c0, c1, x1, x2):
    """:func:`base_interval_log_pr` given :func:`base_consts` (no logs of constants per call)."""
    if bt == B_LAPLACE:
        return laplace_log_pr(par, x1, x2)
    return dgeom_log_pr_q(c0, c1, x1, x2)


@njit(cache=True)
def base_truncated_draw_c(bt, par, c0, x1, x2, v):
    """:func:`base_truncated_draw` given :func:`base_consts`."""
    if bt == B_LAPLACE:
        return laplace_trunc(par, x1, x2, v)
    return dgeom_trunc_q(par, c0, x1, x2, v)


@njit(cache=True)
def base_quantile(bt, par, p):
    """Quantile G^-(p) of base ``bt``."""
    if bt == B_LAPLACE:
        return laplace_quantile(par, p)
    return dgeom_quantile_q(par, math.log1p(-par), p)


@njit(cache=True)
def base_draw(bt, par, rng):
    """One draw from the untruncated base g (FACTS.md 4: Exp - Exp for Laplace, rgeom - rgeom
    for DGeom): the proposal of the basic direct sampler's x | u step, not a release."""
    if bt == B_LAPLACE:
        return rng.laplace(0.0, par)
    return float(rng.geometric(par) - rng.geometric(par))


# ============================================================================ P(A_u)
@njit(cache=True)
def log_prob_au(wt, z, mu, s2, bt, par, lu):
    """log P(A_u) as a function of lu = log u (slides "Direct sampling idea": p(u) is
    proportional to P(A_u); FACTS.md 1: log_p(log u) = log pr_interval(roots(log c + log u)))."""
    x1, x2 = weight_roots(wt, z, mu, s2, lu)
    return base_interval_log_pr(bt, par, x1, x2)


@njit(cache=True)
def log_prob_au_plain(wt, z, mu, s2, bt, par, lu):
    """log P(A_u) as the 2021 package computed it: a plain difference of CDFs, logged after.

    Used only by the u_L / u_H bisections, whose end points are floating-point ties of these
    differences (FACTS.md 2.3); the envelope heights use the accurate :func:`log_prob_au`.
    """
    x1, x2 = weight_roots(wt, z, mu, s2, lu)
    if bt == B_LAPLACE:
        p = laplace_cdf(par, x2) - laplace_cdf(par, x1)
    else:
        a, b = dgeom_range(x1, x2)
        lq = math.log1p(-par)
        p = dgeom_cdf_q(par, lq, b) - dgeom_cdf_q(par, lq, a - 1.0) if a <= b else 0.0
    return math.log(p) if p > 0.0 else NEG_INF


# ============================================================================ records
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
        return float(weight_log_c(self.code, self.mu, self.s2))


@dataclass(frozen=True)
class Base:
    """Base g: ``laplace`` with par = lambda > 0, or ``dgeom`` with par = rho in (0, 1).

    Build it from the release's mechanism record with :meth:`of`; the plain constructor serves
    the slides' stand-alone examples (the ``knots`` and ``step_function`` figures).
    """

    kind: str
    par: float

    def __post_init__(self):
        if self.kind not in BASES:
            raise ValueError(f"base kind must be one of {sorted(BASES)}, got {self.kind!r}")
        ok = self.par > 0 and (self.kind == "laplace" or self.par < 1)
        if not (math.isfinite(self.par) and ok):
            raise ValueError(f"invalid {self.kind} parameter {self.par!r}")

    @classmethod
    def of(cls, mechanism) -> Base:
        """The base whose law is the noise of a :mod:`dpinfer.mechanisms` record:
        ``Laplace(scale)`` -> Laplace(0, scale), ``DoubleGeometric(rho)`` -> DGeom(rho)."""
        if isinstance(mechanism, Laplace):
            return cls("laplace", float(mechanism.scale))
        if isinstance(mechanism, DoubleGeometric):
            return cls("dgeom", float(mechanism.rho))
        raise TypeError(f"no direct-sampler base for {type(mechanism).__name__}")

    @property
    def code(self) -> int:
        return BASES[self.kind]


class Target(NamedTuple):
    """One direct-sampler target w(x) g(x) as the kernels see it: the weight's code and
    (z, mu, s2), the base's code and parameter (a record passed to the per-chain kernels)."""

    wt: int
    z: float
    mu: float
    s2: float
    bt: int
    par: float

    @classmethod
    def of(cls, weight: Weight, base: Base) -> Target:
        """The kernel record of a :class:`Weight` and a :class:`Base` (floats as floats)."""
        return cls(
            weight.code,
            float(weight.z),
            float(weight.mu),
            float(weight.s2),
            base.code,
            float(base.par),
        )


def log_p_of_u(weight: Weight, base: Base, log_u) -> np.ndarray:
    """log P(A_u) at each log u (the curve of the knots figure)."""
    lu = np.atleast_1d(np.asarray(log_u, dtype=float))
    w = (weight.code, weight.z, weight.mu, weight.s2, base.code, base.par)
    return np.array([log_prob_au(*w, v) for v in lu])
