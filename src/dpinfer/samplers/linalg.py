"""Small dense linear algebra for numba kernels (no allocation in the common path)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["cholesky_lower", "psd_factor"]


@njit(cache=True)
def cholesky_lower(a, out):
    """Lower Cholesky factor of a into out; False if a is not (numerically) positive definite."""
    k = a.shape[0]
    for i in range(k):
        for j in range(i + 1):
            acc = a[i, j]
            for p in range(j):
                acc -= out[i, p] * out[j, p]
            if i == j:
                if not acc > 0.0:
                    return False
                out[i, i] = math.sqrt(acc)
            else:
                out[i, j] = acc / out[j, j]
        for j in range(i + 1, k):
            out[i, j] = 0.0
    return True


@njit(cache=True)
def psd_factor(a, out):
    """A factor L with L L' = a (a symmetric PSD up to round-off): Cholesky with growing
    jitter, falling back to Q diag(sqrt(max(w, 0)))."""
    k = a.shape[0]
    scale = 0.0
    for i in range(k):
        scale = max(scale, abs(a[i, i]))
    if cholesky_lower(a, out):
        return
    b = a.copy()
    jit = 1e-14 * max(scale, 1e-300)
    for _ in range(6):
        for i in range(k):
            b[i, i] = a[i, i] + jit
        if cholesky_lower(b, out):
            return
        jit *= 10.0
    w, q = np.linalg.eigh(a)
    for i in range(k):
        for j in range(k):
            out[i, j] = q[i, j] * math.sqrt(max(w[j], 0.0))
