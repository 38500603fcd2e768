"""The basic direct sampler (BD) of Walker et al. (2011), for comparison only.

Slides "Basic direct sampler" and FACTS.md Sec. 3: knots u_k = k/N, k ~ q with
q_k proportional to P(A_{k/N}), u ~ Beta(k + 1, N - k + 1) (a Bernstein-polynomial
approximation of p(u), so the draws are approximate in u), then x | u by proposing from the
untruncated base g until w(x) > u c. The slides ("Some issues with the BD sampler") warn that
this rejection step is hopeless when A_u has small base probability; the tests show it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .weights_bases import (
    NEG_INF,
    Base,
    Target,
    Weight,
    base_draw,
    log_prob_au,
    weight_log,
    weight_log_c,
)

__all__ = ["basic_direct_sample"]


@njit(cache=True)
def _basic_many(target, n_knots, max_iter, rng, out, tries):
    """The BD sampler (slides "Basic direct sampler") from the :class:`Target`, out.size draws:
    k ~ q, u ~ Beta(k+1, N-k+1), then x ~ g until w(x) > u c (at most max_iter tries; NaN
    after that)."""
    wt, z, mu, s2, bt, par = target
    n = out.size
    q = np.empty(n_knots + 1)
    for k in range(n_knots + 1):
        lu = math.log(k / n_knots) if k > 0 else NEG_INF
        q[k] = math.exp(log_prob_au(wt, z, mu, s2, bt, par, lu))
    cum = np.cumsum(q)
    lc = weight_log_c(wt, mu, s2)
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
            x = base_draw(bt, par, rng)
            if weight_log(wt, z, mu, s2, x) > lc + lu:
                out[i] = x
                break
        tries[i] = t


def basic_direct_sample(
    n: int,
    weight: Weight,
    base: Base,
    rng: np.random.Generator,
    n_knots: int = 100,
    max_iter: int = 10_000,
):
    """n draws by the basic direct sampler (approximate in u); NaN where x | u hit max_iter.

    Returns (x, tries per draw)."""
    out = np.empty(n)
    tries = np.zeros(n, dtype=np.int64)
    _basic_many(Target.of(weight, base), n_knots, max_iter, rng, out, tries)
    return out, tries
