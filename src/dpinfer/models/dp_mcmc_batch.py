"""Minibatch passes of the raisa2021 models: a batch drawn without replacement and the clipped
log-likelihood ratios over it (minibatch DP penalty and DP Barker, FACTS 3.2-3.3).

A batch is the first ``size`` entries of a permutation of 0..n-1 that the chain keeps: a partial
Fisher-Yates shuffle of any permutation yields a uniformly random subset, so each draw is O(size)
and never allocates. Ratios are r_j = c0 + coef . x_j as in the full-data passes of
:mod:`dpinfer.models.dp_mcmc_kernels` (untempered; ``data`` column-major (p, n)).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .dp_mcmc_kernels import llr_coefficients

__all__ = ["draw_batch", "clipped_llr_batch", "uniform_below"]


_TWO32 = 4294967296


@njit(cache=True)
def uniform_below(m, rng):
    """An exactly uniform integer in [0, m), m <= 2^31: Lemire's multiply-shift on the top 32
    bits of one uniform double, rejecting the few values that would bias it. About 5x cheaper
    than ``rng.integers`` in numba (6 vs 30 ns)."""
    while True:
        prod = np.int64(rng.random() * _TWO32) * m
        low = prod & (_TWO32 - 1)
        if low >= m or low >= (_TWO32 - m) % m:
            return prod >> 32


@njit(cache=True)
def draw_batch(perm, size, rng):
    """Make perm[:size] a uniformly random size-subset of 0..n-1, without replacement (partial
    Fisher-Yates on the permutation ``perm``, which stays a permutation)."""
    n = perm.shape[0]
    for i in range(size):
        j = i + uniform_below(n - i, rng)
        tmp = perm[i]
        perm[i] = perm[j]
        perm[j] = tmp


@njit(cache=True)
def clipped_llr_batch(kind, params, data, theta, theta_new, thr, rows, size):
    """(mean, population variance, #clipped) of r_j clipped to [-thr, thr] over the rows
    rows[:size]. The variance is accumulated shifted by the first clipped ratio, so it keeps its
    digits when the mean is large against the spread."""
    p = data.shape[0]
    coef = np.empty(p)
    c0 = llr_coefficients(kind, params, theta, theta_new, coef)
    shift = 0.0
    s = 0.0
    ss = 0.0
    count = 0
    for i in range(size):
        j = rows[i]
        v = c0
        for k in range(p):
            v += coef[k] * data[k, j]
        if v > thr:
            v = thr
            count += 1
        elif v < -thr:
            v = -thr
            count += 1
        if i == 0:
            shift = v
        v -= shift
        s += v
        ss += v * v
    mean = s / size
    return shift + mean, max(ss / size - mean * mean, 0.0), count
