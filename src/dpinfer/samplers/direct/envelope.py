"""The customised direct sampler (CD): step-function envelope, exact accept-reject draw of u,
inverse-CDF draw of x | u; and its public API.

Slides "A customized direct sampler", "Step function", "Accept-reject algorithm" and
"Drawing from [x | u]". The envelope h* >= P(A_u) is a step function on the knots of
:mod:`.knots` (``small_rects`` / ``equal_steps``, in log scale: piece areas are max-scaled
before they are summed) or :mod:`.quantile_knots` (``quantile``, which draws the same accept
coin in x). u is drawn from h = h*/a (a = the integral of h*) and accepted with probability
P(A_u)/h*(u), which makes every draw exact whatever the knots. The 2021 package skipped the
accept step (FACTS.md 2.7); the slides describe it. Rejected proposals become knots
(``adapt``), as the slides suggest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from .borrowed import borrow, borrow_generator
from .knots import M_QUANTILE, METHODS, insert_knot, log_sub, stepdown_knots
from .quantile_knots import (
    DEFAULT_LEVELS,
    DEFAULT_WEIGHT_SDS,
    N_MODE_INTEGERS,
    R_SCALED,
    R_STATE,
    S_LIN,
    S_P0,
    WORKSPACE_ROWS,
    base_quantile_points,
    quantile_accept_reject,
    quantile_envelope,
)
from .weights_bases import (
    NEG_INF,
    Base,
    Target,
    Weight,
    base_interval_log_pr,
    base_truncated_draw,
    log_prob_au,
    weight_roots,
)

__all__ = [
    "DirectSettings",
    "DirectKernel",
    "Workspace",
    "target_draw",
    "stepdown",
    "psi_over_c",
    "envelope_acceptance",
    "direct_sample",
]


@njit(cache=True, inline="always")
def build_envelope(target, method, n_knots, tol, anchors, lu, lh, cum):
    """Knots of the step function h* for one (w, g) by the knot rule ``method`` (slides "Step
    function" with the Stepdown's knots, FACTS.md 2.2-2.4, or our quantile rule of
    :mod:`.quantile_knots`); returns the knot count (0 when P(A_0) = 0). ``anchors`` is
    :func:`base_quantile_points` (quantile rule only)."""
    if method == M_QUANTILE:
        # linear scale first; an area below double precision rebuilds in log scale. One call
        # site, so the inlined envelope is compiled once per caller, not twice.
        scaled = True
        while True:
            m = quantile_envelope(target, anchors, lu, lh, cum, scaled)
            if m >= 0 or not scaled:
                return m
            scaled = False
    return stepdown_knots(target, method, n_knots, tol, lu, lh)


@njit(cache=True, inline="always")
def draw_from_envelope(target, method, anchors, lu, lh, m, cum, adapt, max_prop, rng):
    """One exact draw from a built envelope: the quantile rule's accept coin drawn in x
    (:mod:`.quantile_knots`) or the slides' accept-reject in u (the Stepdown's rules).
    Returns (x, proposals, new knot count)."""
    if method == M_QUANTILE:
        return quantile_accept_reject(target, anchors, lu, lh, cum, m, adapt, max_prop, rng)
    return _draw_from_envelope(target, lu, lh, m, cum, adapt, max_prop, rng)


@njit(cache=True)
def _widths(lu, m, cum):
    """Step function h*: cum[3, j] = log(u_{j+1} - u_j), the log width of every piece."""
    for j in range(m - 1):
        cum[3, j] = log_sub(lu[j + 1], lu[j])


@njit(cache=True)
def _cumulate(lu, lh, m, cum):
    """Cumulative areas of the envelope h* (slides "Step function":
    a = P(A_{u_0}) u_0 + sum_j P(A_{u_j}) (u_{j+1} - u_j); FACTS.md 2.5): piece j spans
    [u_j, u_{j+1}) with height P(A_{u_j}) (lh[j], log scale). Fills cum[0, j] = cumulative
    max-scaled area; returns the max log area. cum[3, j] caches the log width of piece j
    (see :func:`_widths`)."""
    top = NEG_INF
    for j in range(m - 1):
        a = lh[j] + cum[3, j]
        cum[0, j] = a
        if a > top:
            top = a
    s = 0.0
    for j in range(m - 1):
        s += math.exp(cum[0, j] - top) if cum[0, j] > NEG_INF else 0.0
        cum[0, j] = s
    return top


@njit(cache=True)
def _draw_from_envelope(target, lu, lh, m, cum, adapt, max_prop, rng):
    """The slides' Accept-Reject Algorithm on the Stepdown's envelope: u ~ h (piece by its
    area, then uniform within the piece, FACTS.md 2.6), accepted if v < P(A_u)/h*(u); then
    x | u by the inverse CDF of g truncated to A_u (slides "Drawing from [x | u]"). A rejected
    u becomes a knot (``adapt``, adaptive rejection); the envelope of each round depends only
    on earlier rounds, so an accepted u is exact.
    Returns (x, number of proposals, new knot count); x is NaN after max_prop rejections.
    """
    wt, z, mu, s2, bt, par = target
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
        x1, x2 = weight_roots(wt, z, mu, s2, lu_prop)
        lp = base_interval_log_pr(bt, par, x1, x2)
        if math.log(rng.random()) < lp - lh[j]:
            return base_truncated_draw(bt, par, x1, x2, rng.random()), n_prop, m
        if adapt and m < cap and lu[j] < lu_prop < lu[j + 1]:
            for k in range(m, j + 1, -1):
                cum[3, k] = cum[3, k - 1]
            m = insert_knot(lu, lh, m, j + 1, lu_prop, lp)
            cum[3, j] = log_sub(lu[j + 1], lu[j])
            cum[3, j + 1] = log_sub(lu[j + 2], lu[j + 1])
        _cumulate(lu, lh, m, cum)
    return np.nan, n_prop, m


@njit(cache=True, inline="always")
def target_draw(target, direct, qpts, ws, rng):
    """One exact CD-sampler draw of a :class:`Target` with a fresh envelope (the Gibbs sampler's
    unit of work, one per latent per iteration as in FACTS.md 2.6): build the knots, then
    accept-reject, with :class:`DirectKernel` settings in a :class:`Workspace` (borrowed views
    inside the Gibbs sweeps). Inlined into the callers' loops (no per-draw call).

    Returns (x, proposals); x is NaN when P(A_0) = 0 or after max_prop rejections.
    """
    m = build_envelope(
        target, direct.method, direct.n_knots, direct.tol, qpts, ws.lu, ws.lh, ws.cum
    )
    if m == 0:
        return np.nan, 0
    x, n_prop, _ = draw_from_envelope(
        target, direct.method, qpts, ws.lu, ws.lh, m, ws.cum, direct.adapt, direct.max_prop, rng
    )
    return x, n_prop


@njit(cache=True)
def _direct_many(target, direct, qpts, rebuild, ws, rng, out, props):
    """out.size CD-sampler draws (slides "Code example": ``direct_sampler(n, w, g)``) from the
    :class:`Target` with the :class:`DirectKernel` settings: one envelope shared by all draws
    (adapted by rejections), or a fresh one per draw (``rebuild``)."""
    method, n_knots, tol, adapt, max_prop = direct
    qpts, lu, lh, cum = borrow(qpts), borrow(ws.lu), borrow(ws.lh), borrow(ws.cum)  # no refcounts
    rng = borrow_generator(rng)
    m = 0
    for i in range(out.size):
        if i == 0 or rebuild:  # one call site: the inlined envelope is compiled once
            m = build_envelope(target, method, n_knots, tol, qpts, lu, lh, cum)
            if m == 0:
                out[i:] = np.nan
                return
        out[i], props[i], m = draw_from_envelope(
            target, method, qpts, lu, lh, m, cum, adapt, max_prop, rng
        )


# ============================================================================ public API
class DirectKernel(NamedTuple):
    """The kernels' view of :class:`DirectSettings` (:meth:`DirectSettings.kernel`): knot rule
    code, n_knots, tol, adapt and max_proposals."""

    method: int
    n_knots: int
    tol: float
    adapt: bool
    max_prop: int


class Workspace(NamedTuple):
    """The scratch arrays every envelope kernel works in (:meth:`DirectSettings.workspace`):
    knot positions lu, heights lh and the rows ``cum`` (areas, pieces, points, state)."""

    lu: np.ndarray
    lh: np.ndarray
    cum: np.ndarray


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
        if self.method == "quantile" and self.n_knots != 0:
            raise ValueError(
                "n_knots must be 0 for the quantile rule (its knots come from "
                f"levels and weight_sds), got {self.n_knots}"
            )

    @classmethod
    def from_config(cls, cfg: dict) -> DirectSettings:
        """From a config section such as ``raim2021.direct`` (keys named as the fields)."""
        return cls(
            method=cfg["method"],
            n_knots=int(cfg["n_knots"]),
            tol=float(cfg["tol"]),
            levels=tuple(float(v) for v in cfg["levels"]),
            weight_sds=tuple(float(v) for v in cfg["weight_sds"]),
            adapt=bool(cfg["adapt"]),
            max_proposals=int(cfg["max_proposals"]),
        )

    @property
    def code(self) -> int:
        return METHODS[self.method]

    def kernel(self) -> DirectKernel:
        """The settings as the kernels take them (the knot rule as its code)."""
        return DirectKernel(self.code, self.n_knots, self.tol, self.adapt, self.max_proposals)

    def capacity(self) -> int:
        """Workspace size: knots + pseudo-knots + room for adaptations."""
        return (
            self.n_knots
            + len(self.levels)
            + 2 * len(self.weight_sds)
            + 2 * N_MODE_INTEGERS
            + 8
            + (64 if self.adapt else 0)
        )

    def workspace(self, extra: int = 0) -> Workspace:
        """(lu, lh, cum): the arrays every envelope kernel works in, allocated once per chain."""
        cap = self.capacity() + extra
        return Workspace(np.empty(cap), np.empty(cap), np.full((WORKSPACE_ROWS, cap), np.nan))


def stepdown(weight: Weight, base: Base, settings: DirectSettings) -> dict:
    """The step-function envelope: knots (log u, log P(A_u)) including the u = 0 pseudo-knot
    and the closing knot u = 1, and the log normaliser a of h*."""
    lu, lh, cum = settings.workspace(extra=4)
    qpts = base_quantile_points(base, settings.levels, settings.weight_sds)
    m = build_envelope(
        Target.of(weight, base),
        settings.code,
        settings.n_knots,
        settings.tol,
        qpts,
        lu,
        lh,
        cum,
    )
    if m == 0:
        raise ValueError("P(A_0) = 0: no u with P(A_u) > 0")
    # cum[0] holds the cumulative areas divided by exp(log_scale)
    if settings.method == "quantile":  # heights P(B_j); areas are scaled by 1/P(A_0)
        log_scale = math.log(cum[R_STATE, S_P0]) if cum[R_STATE, S_LIN] == 1.0 else lh[0]
        with np.errstate(divide="ignore"):
            log_h = np.r_[log_scale + np.log(cum[R_SCALED, : m - 1]), -np.inf]
    else:
        _widths(lu, m, cum)
        log_scale = _cumulate(lu, lh, m, cum)
        log_h = lh[:m].copy()
    return {
        "log_u": lu[:m].copy(),
        "log_h": log_h,
        "log_a": float(log_scale + math.log(cum[0, m - 2])),
    }


def psi_over_c(weight: Weight, base: Base, knots_log_u=()) -> float:
    """psi/c = int_0^1 P(A_u) du by quadrature in t = -log u, in pieces between the given knots
    (slides "Direct sampling idea": p(u) = (c/psi) P(A_u) integrates to 1)."""
    from scipy.integrate import quad

    w = (weight.code, weight.z, weight.mu, weight.s2, base.code, base.par)
    pts = sorted(set(float(-k) for k in knots_log_u if np.isfinite(k) and k < 0))
    # int_0^1 P(A_u) du = int_0^inf P(A_{e^-t}) e^-t dt, in pieces between the knots
    edges = [0.0] + pts + [max(pts[-1] * 2 if pts else 50.0, 800.0)]
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        if b > a:
            total += quad(
                lambda t: math.exp(log_prob_au(*w, -t) - t), a, b, limit=200, epsabs=0, epsrel=1e-10
            )[0]
    return total


def envelope_acceptance(weight: Weight, base: Base, settings: DirectSettings) -> float:
    """Acceptance probability (psi/c)/a of the accept step (slides "Accept-reject algorithm"),
    psi/c by quadrature (for tests and the figures)."""
    env = stepdown(weight, base, settings)
    return psi_over_c(weight, base, env["log_u"][1:-1]) / math.exp(env["log_a"])


def direct_sample(
    n: int,
    weight: Weight,
    base: Base,
    rng: np.random.Generator,
    settings: DirectSettings = DirectSettings(),
    rebuild: bool = False,
):
    """n exact draws from f(x) proportional to w(x) g(x) by the CD sampler.

    ``rebuild=True`` builds a fresh envelope for every draw (as the Gibbs sampler does).
    Returns (x, proposals per draw).
    """
    if n < 0:
        raise ValueError("n must be non-negative")
    out = np.empty(n)
    props = np.zeros(n, dtype=np.int64)
    qpts = base_quantile_points(base, settings.levels, settings.weight_sds)
    _direct_many(
        Target.of(weight, base),
        settings.kernel(),
        qpts,
        rebuild,
        settings.workspace(),
        rng,
        out,
        props,
    )
    if np.isnan(out).any():
        raise RuntimeError("direct sampler failed (P(A_0) = 0 or too many rejections)")
    return out, props
