"""Proportions (coverages, pass shares, hit rates) with honest uncertainty.

A proportion estimated from k hits in n trials is reported with a Wilson score interval, which
never has zero width (20 of 20 hits give [0.84, 1] at 95%, where the plug-in standard error
sqrt(p (1 - p) / n) is 0). Differences are judged by tests that do not rest on that plug-in
error either:

- two independent proportions (ours against a paper's, from other replicates): the pooled
  two-proportion z statistic (the standard error under the null of one common proportion);
- two proportions on the same replicates (the same releases under two chains): McNemar's exact
  test on the discordant pairs.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

__all__ = [
    "wilson_interval",
    "pooled_z",
    "pooled_se",
    "mcnemar",
    "format_proportion",
    "format_interval",
]


def _check(k, n) -> tuple[float, float]:
    k = float(k)
    n = float(n)
    if not (n > 0 and 0 <= k <= n):
        raise ValueError(f"a proportion needs 0 <= k <= n and n > 0 (k={k}, n={n})")
    return k, n


def wilson_interval(k, n, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of the proportion k / n at ``level``."""
    k, n = _check(k, n)
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def pooled_se(k1, n1, k2, n2) -> float:
    """Standard error of p1 - p2 under the null of one common proportion (pooled)."""
    k1, n1 = _check(k1, n1)
    k2, n2 = _check(k2, n2)
    p = (k1 + k2) / (n1 + n2)
    return math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))


def pooled_z(k1, n1, k2, n2) -> tuple[float, float]:
    """Pooled two-proportion z statistic of k1/n1 - k2/n2 and its two-sided p-value. Two
    proportions that are both 0 or both 1 give z = 0, p = 1."""
    se = pooled_se(k1, n1, k2, n2)
    diff = k1 / n1 - k2 / n2
    if se == 0.0:
        return 0.0, 1.0
    z = diff / se
    return z, float(2 * stats.norm.sf(abs(z)))


def mcnemar(first, second) -> tuple[int, int, float]:
    """McNemar's exact test of paired hits: ``first`` and ``second`` are boolean arrays over the
    same replicates. Returns (b, c, p): b replicates hit only under ``first``, c only under
    ``second``, and the two-sided exact binomial p-value of b against Bin(b + c, 1/2) (1 when no
    pair is discordant)."""
    a = np.asarray(first, dtype=bool)
    s = np.asarray(second, dtype=bool)
    if a.shape != s.shape:
        raise ValueError(f"paired hits need the same shape: {a.shape} vs {s.shape}")
    b = int(np.sum(a & ~s))
    c = int(np.sum(~a & s))
    if b + c == 0:
        return b, c, 1.0
    return b, c, float(stats.binomtest(b, b + c, 0.5).pvalue)


def format_interval(k, n, level: float = 0.95, digits: int = 2) -> str:
    """'95% Wilson [lo, hi]' of k / n."""
    lo, hi = wilson_interval(k, n, level)
    return f"{round(100 * level):d}% Wilson [{lo:.{digits}f}, {hi:.{digits}f}]"


def format_proportion(k, n, level: float = 0.95, digits: int = 2) -> str:
    """'0.90 (90 of 100; 95% Wilson [0.83, 0.95])'."""
    k, n = _check(k, n)
    return f"{k / n:.{digits}f} ({k:.0f} of {n:.0f}; {format_interval(k, n, level, digits)})"
