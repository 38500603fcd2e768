"""Numba kernels of the raisa2021 models (:mod:`dpinfer.models.dp_mcmc`, which re-exports
the public ones): log prior and its gradient, and the full-data passes of the DP penalty and DP
HMC samplers -- the clipped log-likelihood-ratio sum and the clipped gradient sum.

``data`` is the column-major (p, n) array of ``Problem.data`` (float32 or float64 values; all
arithmetic is float64) and ``params`` ends with its column sums S, so the unclipped sums are
O(d^2) and a pass only finds the clipped rows and corrects for them. Passes work on blocks of
rows whose work buffers stay in L1/L2.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_BLOCK = 1024  # rows per block of the ratio pass and the 2-d gradient pass
_BLOCK_WIDE = 128  # rows per block of the banana gradient pass (d buffers of this length)


@njit(cache=True)
def log_prior(kind, params, theta):
    """log prior density at theta up to a constant (banana: Ban(0, I/tau_0, a); gauss:
    N(0, I/tau_0); circle: flat)."""
    tau0 = params[1] if kind == 0 else (params[0] if kind == 1 else 0.0)
    acc = 0.0
    for k in range(theta.shape[0]):
        acc += theta[k] * theta[k]
    if kind == 0:
        u = theta[1] + params[0] * theta[0] * theta[0]
        acc += u * u - theta[1] * theta[1]
    return 0.0 if kind == 2 else -0.5 * tau0 * acc


@njit(cache=True)
def grad_log_prior(kind, params, theta, out):
    """out[:] = gradient of :func:`log_prior` at theta."""
    tau0 = params[1] if kind == 0 else (params[0] if kind == 1 else 0.0)
    for k in range(theta.shape[0]):
        out[k] = 0.0 if kind == 2 else -tau0 * theta[k]
    if kind == 0:
        u = theta[1] + params[0] * theta[0] * theta[0]
        out[0] = -tau0 * (theta[0] + 2.0 * params[0] * theta[0] * u)
        out[1] = -tau0 * u


@njit(cache=True)
def llr_coefficients(kind, params, theta, theta_new, coef):
    """Per-row ratio r_j = c0 + coef . x_j (x_j the stored data row); fills coef, returns c0."""
    d = theta.shape[0]
    if kind == 2:
        s = theta[0] * theta[0] + theta[1] * theta[1]
        sn = theta_new[0] * theta_new[0] + theta_new[1] * theta_new[1]
        coef[0] = 2.0 * params[0] * (sn - s)
        return -params[0] * (sn - s) * (sn + s)
    c0 = 0.0
    if kind == 0:
        for k in range(d):
            m, mn = theta[k], theta_new[k]
            if k == 1:
                m += params[0] * theta[0] * theta[0]
                mn += params[0] * theta_new[0] * theta_new[0]
            coef[k] = params[2 + k] * (mn - m)
            c0 -= 0.5 * coef[k] * (mn + m)
        return c0
    # gauss: r = (theta' - theta)' P x - 1/2 (theta' - theta)' P (theta' + theta)
    for k in range(d):
        acc = 0.0
        for l in range(d):
            acc += params[1 + k * d + l] * (theta_new[l] - theta[l])
        coef[k] = acc
        c0 -= 0.5 * acc * (theta_new[k] + theta[k])
    return c0


@njit(cache=True)
def _grad_coefficients(kind, params, theta, amat, bvec):
    """Per-row gradient g_j = amat @ x_j + bvec of log p(x_j | theta); fills amat (d, p), bvec."""
    d = theta.shape[0]
    amat[:, :] = 0.0
    if kind == 2:
        s = theta[0] * theta[0] + theta[1] * theta[1]
        for k in range(2):  # -4a (s - r^2) theta
            amat[k, 0] = 4.0 * params[0] * theta[k]
            bvec[k] = -4.0 * params[0] * s * theta[k]
        return
    if kind == 0:
        a = params[0]
        for k in range(d):
            amat[k, k] = params[2 + k]
            bvec[k] = -params[2 + k] * theta[k]
        m1 = theta[1] + a * theta[0] * theta[0]
        bvec[1] = -params[3] * m1
        amat[0, 1] = 2.0 * a * theta[0] * params[3]
        bvec[0] -= amat[0, 1] * m1
        return
    for k in range(d):
        acc = 0.0
        for l in range(d):
            amat[k, l] = params[1 + k * d + l]
            acc += amat[k, l] * theta[l]
        bvec[k] = -acc


@njit(cache=True)
def _affine_block(buf, c0, coef, cols, nnz, data, start, m):
    """buf[:m] = c0 + sum_q coef[cols[q]] * data[cols[q], start:start + m], four columns a sweep
    (the first sweep writes c0 + ..., so there is no separate fill pass)."""
    buf[: m if nnz == 0 else 0] = c0
    q = 0
    while q + 4 <= nnz:
        k0, k1, k2, k3 = cols[q], cols[q + 1], cols[q + 2], cols[q + 3]
        a0, a1, a2, a3 = coef[k0], coef[k1], coef[k2], coef[k3]
        x0, x1 = data[k0, start : start + m], data[k1, start : start + m]
        x2, x3 = data[k2, start : start + m], data[k3, start : start + m]
        for i in range(m):
            buf[i] = (
                (c0 if q == 0 else buf[i]) + (a0 * x0[i] + a1 * x1[i]) + (a2 * x2[i] + a3 * x3[i])
            )
        q += 4
    for r in range(q, nnz):
        a0 = coef[cols[r]]
        x0 = data[cols[r], start : start + m]
        for i in range(m):
            buf[i] = (c0 if r == 0 else buf[i]) + a0 * x0[i]


@njit(cache=True)
def _nonzero(coef, cols):
    """Indices of the non-zero entries of coef into cols; returns their number."""
    nnz = 0
    for k in range(coef.shape[0]):
        if coef[k] != 0.0:
            cols[nnz] = k
            nnz += 1
    return nnz


@njit(cache=True)
def _sum(acc):
    """Sum of a 1-d array (four accumulators; the arrays are multiples of 4 long)."""
    s0 = s1 = s2 = s3 = 0.0
    for i in range(0, acc.shape[0], 4):
        s0 += acc[i]
        s1 += acc[i + 1]
        s2 += acc[i + 2]
        s3 += acc[i + 3]
    return (s0 + s1) + (s2 + s3)


@njit(cache=True)
def clip_threshold(theta, theta_new, bound, rule):
    """The per-row clip threshold b * dist: rule 0 dist = ||theta_new - theta||_2 (the thesis);
    rule 1 dist = |sum_i (theta_new_i - theta_i)| (the author's clipping-study code, a misplaced
    parenthesis; docs/deviations.md)."""
    acc = 0.0
    for k in range(theta.shape[0]):
        diff = theta_new[k] - theta[k]
        acc += diff if rule == 1 else diff * diff
    return bound * (abs(acc) if rule == 1 else math.sqrt(acc))


@njit(cache=True)
def _sum_from_column_sums(params, n, c0, coef):
    """n c0 + coef . S: the unclipped ratio sum from the column sums S (last entries of params)."""
    total, first = n * c0, params.shape[0] - coef.shape[0]
    for k in range(coef.shape[0]):
        total += coef[k] * params[first + k]
    return total


@njit(cache=True)
def llr_sum(kind, params, n, theta, theta_new):
    """The unclipped sum_j r_j over the n stored rows, O(d) from the column sums S."""
    coef = np.empty(1 if kind == 2 else theta.shape[0])
    return _sum_from_column_sums(
        params, n, llr_coefficients(kind, params, theta, theta_new, coef), coef
    )


@njit(cache=True)
def clipped_llr_sum(kind, params, data, theta, theta_new, bound, rule=0):
    """(sum_j clip(r_j, -thr, thr), #rows with |r_j| > thr), untempered, r_j =
    log p(x_j|theta_new) - log p(x_j|theta), thr = :func:`clip_threshold` (b = ``bound`` times
    the Euclidean distance; ``rule`` 1: the author's clipping-study distance). Unclipped sum from
    the column sums (as :func:`llr_sum`); the pass counts |r_j| > thr per block and accumulates the
    excess of clipped rows. Columns whose coefficient is exactly zero are not read."""
    p, n = data.shape
    thr = clip_threshold(theta, theta_new, bound, rule)
    coef = np.empty(p)
    c0 = llr_coefficients(kind, params, theta, theta_new, coef)
    cols = np.empty(p, dtype=np.int64)
    nnz = _nonzero(coef, cols)
    total = _sum_from_column_sums(params, n, c0, coef)  # the coefficients once per pass
    buf = np.empty(_BLOCK)
    acc = np.zeros(_BLOCK)
    count = 0
    if nnz <= 2:  # fused fast path: r_j = c0 + ca xa_j + cb xb_j, no buffer
        ka, kb = (cols[0], cols[nnz - 1]) if nnz > 0 else (0, 0)
        ca = coef[ka] if nnz > 0 else 0.0
        cb = coef[kb] if nnz == 2 else 0.0
        for start in range(0, n, _BLOCK):
            m = min(_BLOCK, n - start)
            xa, xb = data[ka, start : start + m], data[kb, start : start + m]
            cnt = 0
            for i in range(m):
                cnt += np.int64(abs(c0 + ca * xa[i] + cb * xb[i]) > thr)
            if cnt > 0:
                count += cnt
                for i in range(m):
                    v = c0 + ca * xa[i] + cb * xb[i]
                    acc[i] += min(max(v, -thr), thr) - v
        return total + _sum(acc), count
    for start in range(0, n, _BLOCK):
        m = min(_BLOCK, n - start)
        _affine_block(buf, c0, coef, cols, nnz, data, start, m)
        cnt = 0
        for i in range(m):
            cnt += np.int64(abs(buf[i]) > thr)
        if cnt > 0:
            count += cnt
            for i in range(m):
                v = buf[i]
                acc[i] += min(max(v, -thr), thr) - v
    return total + _sum(acc), count


@njit(cache=True)
def _clip_weights(nrm, w, m, bound):
    """Number of rows with nrm[i] > bound^2 among the first m; when there are any, also
    w[i] = 1 - bound/sqrt(nrm[i]) for those rows and 0 for the others (branch-free, vectorised)."""
    b2 = bound * bound
    cnt = 0
    for i in range(m):
        cnt += np.int64(nrm[i] > b2)
    if cnt == 0:
        return cnt
    for i in range(m):
        v = nrm[i]
        r = math.sqrt(v if v > b2 else b2)
        w[i] = (r - bound) * (1.0 / r) if r > 0.0 else 0.0
    return cnt


@njit(cache=True)
def _grad_pass_2d(amat, bvec, data, bound, acc):
    """Clipped-row corrections of the 2-d gradient pass (g_j = amat @ x_j + bvec, p <= 2):
    acc[k, i mod _BLOCK] += (1 - bound/||g_j||) g_jk over the clipped rows; returns their number."""
    p, n = data.shape
    a00, a10, b0, b1 = amat[0, 0], amat[1, 0], bvec[0], bvec[1]
    a01, a11 = (amat[0, 1], amat[1, 1]) if p == 2 else (0.0, 0.0)
    acc0, acc1 = acc[0], acc[1]
    nrm = np.empty(_BLOCK)
    b2 = bound * bound
    count = 0
    for start in range(0, n, _BLOCK):
        m = min(_BLOCK, n - start)
        x0, x1 = data[0, start : start + m], data[p - 1, start : start + m]
        cnt = 0
        for i in range(m):
            g0 = b0 + a00 * x0[i] + a01 * x1[i]
            g1 = b1 + a10 * x0[i] + a11 * x1[i]
            nrm[i] = g0 * g0 + g1 * g1
            cnt += np.int64(nrm[i] > b2)
        count += cnt
        if cnt == 0:
            continue
        if cnt <= m // 16:  # few clipped rows: sqrt and division only for those
            for i in range(m):
                if nrm[i] > b2:
                    wi = 1.0 - bound / math.sqrt(nrm[i])
                    acc0[i] += wi * (b0 + a00 * x0[i] + a01 * x1[i])
                    acc1[i] += wi * (b1 + a10 * x0[i] + a11 * x1[i])
            continue
        for i in range(m):  # many: branch-free, vectorised
            v = nrm[i]
            r = math.sqrt(v if v > b2 else b2)
            wi = (r - bound) * (1.0 / r) if r > 0.0 else 0.0
            acc0[i] += wi * (b0 + a00 * x0[i] + a01 * x1[i])
            acc1[i] += wi * (b1 + a10 * x0[i] + a11 * x1[i])
    return count


@njit(cache=True)
def _grad_pass_banana(params, data, theta, bound, acc):
    """Clipped-row corrections of the banana gradient pass, fused: per block the squared norms
    are accumulated straight from the columns (g_k = tau_k (x_k - theta_k), k >= 3, four columns
    a sweep), g_1, g_2 added, and only blocks with clipped rows re-read their columns (from
    cache) to add w_j (x_jk - theta_k), w_j = 1 - bound/||g_j||, into acc[k] (acc[0], acc[1]:
    w_j g_j1, w_j g_j2). Returns the number of clipped rows."""
    d, n = data.shape
    a, t0, t1, tau0, tau1 = params[0], theta[0], theta[1], params[2], params[3]
    m1 = t1 + a * t0 * t0
    c = 2.0 * a * t0  # g_1 = tau_1 (x_1 - theta_1) + c g_2
    nrm = np.empty(_BLOCK_WIDE)
    w = np.empty(_BLOCK_WIDE)
    g0 = np.empty(_BLOCK_WIDE)
    g1 = np.empty(_BLOCK_WIDE)
    count = 0
    for start in range(0, n, _BLOCK_WIDE):
        m = min(_BLOCK_WIDE, n - start)
        x0, x1 = data[0, start : start + m], data[1, start : start + m]
        for i in range(m):
            h1 = tau1 * (x1[i] - m1)
            h0 = tau0 * (x0[i] - t0) + c * h1
            g0[i] = h0
            g1[i] = h1
            nrm[i] = h0 * h0 + h1 * h1
        k = 2
        while k + 4 <= d:
            s0, s1, s2, s3 = params[2 + k], params[3 + k], params[4 + k], params[5 + k]
            u0, u1, u2, u3 = theta[k], theta[k + 1], theta[k + 2], theta[k + 3]
            y0, y1 = data[k, start : start + m], data[k + 1, start : start + m]
            y2, y3 = data[k + 2, start : start + m], data[k + 3, start : start + m]
            for i in range(m):
                e0, e1 = s0 * (y0[i] - u0), s1 * (y1[i] - u1)
                e2, e3 = s2 * (y2[i] - u2), s3 * (y3[i] - u3)
                nrm[i] += (e0 * e0 + e1 * e1) + (e2 * e2 + e3 * e3)
            k += 4
        for q in range(k, d):
            s0, u0, y0 = params[2 + q], theta[q], data[q, start : start + m]
            for i in range(m):
                e0 = s0 * (y0[i] - u0)
                nrm[i] += e0 * e0
        cnt = _clip_weights(nrm, w, m, bound)
        count += cnt
        if cnt == 0:
            continue
        acc0, acc1 = acc[0], acc[1]
        for i in range(m):
            acc0[i] += w[i] * g0[i]
            acc1[i] += w[i] * g1[i]
        for q in range(2, d):
            u0, y0, aq = theta[q], data[q, start : start + m], acc[q]
            for i in range(m):
                aq[i] += w[i] * (y0[i] - u0)
    return count


@njit(cache=True)
def _grad_pass_general(amat, bvec, data, bound, acc):
    """Clipped-row corrections of a gradient pass for any affine g_j = amat @ x_j + bvec (the
    gauss family with d > 2): g buffered per block. Returns the number of clipped rows."""
    p, n = data.shape
    d = amat.shape[0]
    g = np.empty((d, _BLOCK))
    nrm = np.empty(_BLOCK)
    w = np.empty(_BLOCK)
    cols = np.empty((d, p), dtype=np.int64)
    nnz = np.empty(d, dtype=np.int64)
    for k in range(d):
        nnz[k] = _nonzero(amat[k], cols[k])
    count = 0
    for start in range(0, n, _BLOCK):
        m = min(_BLOCK, n - start)
        nrm[:m] = 0.0
        for k in range(d):
            gk = g[k]
            _affine_block(gk, bvec[k], amat[k], cols[k], nnz[k], data, start, m)
            for i in range(m):
                nrm[i] += gk[i] * gk[i]
        cnt = _clip_weights(nrm, w, m, bound)
        count += cnt
        if cnt == 0:
            continue
        for k in range(d):
            gk, ak = g[k], acc[k]
            for i in range(m):
                ak[i] += w[i] * gk[i]
    return count


@njit(cache=True)
def clipped_grad_sum(kind, params, data, theta, bound, out):
    """out[:] = sum_j g_j min(1, bound/||g_j||), g_j = gradient of log p(x_j|theta) (untempered);
    returns the number of rows with ||g_j|| > bound (bound = inf: the exact sum, no pass).
    g_j = A x_j + b: unclipped sum A S + n b;
    the pass subtracts (1 - bound/||g_j||) g_j of the clipped rows (banana with d > 2: the
    per-column part w_j (x_jk - theta_k), scaled by tau_k at the end)."""
    p, n = data.shape
    d = theta.shape[0]
    amat = np.empty((d, p))
    bvec = np.empty(d)
    _grad_coefficients(kind, params, theta, amat, bvec)
    sums = params[params.shape[0] - p :]
    wide = kind == 0 and d > 2
    acc = np.zeros((d, _BLOCK_WIDE if wide else _BLOCK))
    if bound == np.inf:  # exact gradients (the non-DP clipping study): nothing to clip, no pass
        count = 0
    elif wide:
        count = _grad_pass_banana(params, data, theta, bound, acc)
    elif d == 2:
        count = _grad_pass_2d(amat, bvec, data, bound, acc)
    else:
        count = _grad_pass_general(amat, bvec, data, bound, acc)
    for k in range(d):
        tot = n * bvec[k]
        for l in range(p):
            tot += amat[k, l] * sums[l]
        corr = _sum(acc[k])
        out[k] = tot - (params[2 + k] * corr if wide and k >= 2 else corr)
    return count
