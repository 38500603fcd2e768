"""Small dense linear algebra for numba kernels (no allocation in the common path)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["cholesky_lower", "psd_factor", "make_psd", "solve_in_place"]


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


@njit(cache=True)
def make_psd(a, b, tmp):
    """Replace symmetric a in place by its eigenvalue-clipped (PSD) version when a plus a
    relative jitter of 1e-12 has no Cholesky factor; returns True if a changed.

    b and tmp are (k, k) work arrays."""
    k = a.shape[0]
    big = 1e-300
    for i in range(k):
        for j in range(k):
            big = max(big, abs(a[i, j]))
            b[i, j] = a[i, j]
    jit = 1e-12 * big
    for i in range(k):
        b[i, i] += jit
    if cholesky_lower(b, tmp):
        return False
    w, q = np.linalg.eigh(a)
    for i in range(k):
        for j in range(k):
            acc = 0.0
            for p in range(k):
                if w[p] > 0.0:
                    acc += q[i, p] * w[p] * q[j, p]
            a[i, j] = acc
    return True


@njit(cache=True)
def solve_in_place(a, b):
    """Solve a x = b for every column of b by Gaussian elimination without pivoting (a small
    and symmetric positive definite, left unchanged); b is overwritten by x."""
    d = a.shape[0]
    m = a.copy()
    for k in range(d):
        piv = m[k, k]
        for i in range(k + 1, d):
            f = m[i, k] / piv
            for j in range(k, d):
                m[i, j] -= f * m[k, j]
            for c in range(b.shape[1]):
                b[i, c] -= f * b[k, c]
    for k in range(d - 1, -1, -1):
        for c in range(b.shape[1]):
            acc = b[k, c]
            for j in range(k + 1, d):
                acc -= m[k, j] * b[j, c]
            b[k, c] = acc / m[k, k]
