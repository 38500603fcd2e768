"""The CLT moments of one record's statistics for NIG regression with p covariates
(:mod:`dpinfer.models.linreg_nig_multi`): what Gibbs-SS needs in p dimensions (Eqs. 5.2-5.3 of
bernstein2020 for p = 1, :mod:`dpinfer.samplers.clt_moments`).

Records a = [x, 1, y] carry a constant, so one 4-index tensor E[a_i a_j a_k a_l] holds every
lower moment (E[a_i a_j] = E[a_i a_j 1 1]) and :func:`clt_moments_into` needs only the raw
fourth-moment tensor of b = [x, 1]: :func:`gaussian_tensor_into` for x ~ N(mu_x, Sigma_x)
(Isserlis; Gibbs-SS-Update) and :func:`predictive_tensor` for the data prior's predictive
(inverse-Wishart moments; Gibbs-SS-Prior).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..models.linreg_nig_multi import NIWPriorP, n_stats, stat_pairs

__all__ = ["gaussian_tensor_into", "predictive_tensor", "clt_moments_into", "clt_moments_p"]


@njit(cache=True)
def gaussian_tensor_into(mean, cov, t4):
    """t4[i, j, k, l] = E[b_i b_j b_k b_l] for b = [x, 1], x ~ N(mean, cov) (Isserlis)."""
    r = mean.shape[0] + 1
    m = np.empty(r)
    s = np.zeros((r, r))
    for i in range(r - 1):
        m[i] = mean[i]
        for j in range(r - 1):
            s[i, j] = cov[i, j]
    m[r - 1] = 1.0
    for i in range(r):
        for j in range(r):
            for k in range(r):
                for l in range(r):
                    t4[i, j, k, l] = (
                        m[i] * m[j] * m[k] * m[l]
                        + m[i] * m[j] * s[k, l]
                        + m[i] * m[k] * s[j, l]
                        + m[i] * m[l] * s[j, k]
                        + m[j] * m[k] * s[i, l]
                        + m[j] * m[l] * s[i, k]
                        + m[k] * m[l] * s[i, j]
                        + s[i, j] * s[k, l]
                        + s[i, k] * s[j, l]
                        + s[i, l] * s[j, k]
                    )


def predictive_tensor(prior: NIWPriorP) -> np.ndarray:
    """Raw fourth-moment tensor of b = [x, 1] for x from the data prior's predictive:
    x | Sigma ~ N(m0, c Sigma), c = 1 + 1/kappa, averaged over Sigma ~ IW(Psi, nu) with
    E Sigma = Psi/(nu - p - 1) and Cov(Sigma_ij, Sigma_kl) =
    (2 Psi_ij Psi_kl + (nu - p - 1)(Psi_ik Psi_jl + Psi_il Psi_jk)) /
    ((nu - p)(nu - p - 1)^2 (nu - p - 3)) (needs nu > p + 3)."""
    p = prior.m0.shape[0]
    nu, psi = prior.nu, np.asarray(prior.psi, dtype=float)
    if not nu > p + 3:
        raise ValueError("the predictive's fourth moments need nu > p + 3")
    c = 1.0 + 1.0 / prior.kappa
    e1 = psi / (nu - p - 1.0)
    den = (nu - p) * (nu - p - 1.0) ** 2 * (nu - p - 3.0)
    pp = np.einsum
    cov2 = (
        2.0 * pp("ij,kl->ijkl", psi, psi)
        + (nu - p - 1.0) * (pp("ik,jl->ijkl", psi, psi) + pp("il,jk->ijkl", psi, psi))
    ) / den
    es = np.zeros((p + 1, p + 1))
    es[:p, :p] = c * e1
    ess = np.zeros((p + 1,) * 4)
    ess[:p, :p, :p, :p] = c * c * (cov2 + pp("ij,kl->ijkl", e1, e1))
    m = np.append(np.asarray(prior.m0, dtype=float), 1.0)
    mm = pp("i,j->ij", m, m)
    t4 = pp("ij,kl->ijkl", mm, mm)
    for a, b in (
        ("ij", "kl"),
        ("ik", "jl"),
        ("il", "jk"),
        ("kl", "ij"),
        ("jl", "ik"),
        ("jk", "il"),
    ):
        t4 = t4 + pp(f"{a},{b}->ijkl", mm, es)
    t4 = t4 + ess + ess.transpose(0, 2, 1, 3) + ess.transpose(0, 3, 2, 1)
    return t4


@njit(cache=True)
def clt_moments_into(theta, sigma2, t4, pairs, mu_t, cov_t, w4, e4):
    """Mean mu_t (K) and covariance cov_t (K, K) of t(a) = [a_i a_j over ``pairs``] for
    a = [x, 1, y], y = theta'[x, 1] + sigma e, given t4, the raw fourth-moment tensor of
    b = [x, 1] ((p + 1)^4). ``w4`` and ``e4`` are (q, q, q, q) scratch.

    w = [b, e] (e ~ N(0, 1) apart from b) has the fourth moments of b, those of b times E e^2 = 1
    with two e's, 3 with four, 0 with an odd number; a = B w with B the identity on b and
    y's row [theta, sigma], so E a^{(x)4} = B^{(x)4} E w^{(x)4}, contracted one index at a time."""
    r = t4.shape[0]
    q = r + 1
    c0 = r - 1  # the constant in b and in a
    for i in range(q):
        for j in range(q):
            for k in range(q):
                for l in range(q):
                    ne = (i == r) + (j == r) + (k == r) + (l == r)
                    if ne == 0:
                        v = t4[i, j, k, l]
                    elif ne == 2:
                        # E[b_u0 b_u1] E[e^2]: u0, u1 the two indices of b among i, j, k, l
                        u0 = c0
                        u1 = c0
                        cnt = 0
                        for idx in (i, j, k, l):
                            if idx != r:
                                if cnt == 0:
                                    u0 = idx
                                else:
                                    u1 = idx
                                cnt += 1
                        v = t4[u0, u1, c0, c0]
                    elif ne == 4:
                        v = 3.0
                    else:
                        v = 0.0
                    w4[i, j, k, l] = v
    sigma = math.sqrt(sigma2)
    # contract each index with B: a_m = w_m for m < r, a_r = sum_u theta_u w_u + sigma w_r
    for axis in range(4):
        for i in range(q):
            for j in range(q):
                for k in range(q):
                    for l in range(q):
                        e4[i, j, k, l] = w4[i, j, k, l]
        for i in range(q):
            for j in range(q):
                for k in range(q):
                    acc = 0.0
                    for u in range(r):
                        if axis == 0:
                            acc += theta[u] * e4[u, i, j, k]
                        elif axis == 1:
                            acc += theta[u] * e4[i, u, j, k]
                        elif axis == 2:
                            acc += theta[u] * e4[i, j, u, k]
                        else:
                            acc += theta[u] * e4[i, j, k, u]
                    if axis == 0:
                        w4[r, i, j, k] = acc + sigma * e4[r, i, j, k]
                    elif axis == 1:
                        w4[i, r, j, k] = acc + sigma * e4[i, r, j, k]
                    elif axis == 2:
                        w4[i, j, r, k] = acc + sigma * e4[i, j, r, k]
                    else:
                        w4[i, j, k, r] = acc + sigma * e4[i, j, k, r]
    kk = pairs.shape[0]
    for a_ in range(kk):
        mu_t[a_] = w4[pairs[a_, 0], pairs[a_, 1], c0, c0]
    for a_ in range(kk):
        i, j = pairs[a_, 0], pairs[a_, 1]
        for b_ in range(kk):
            k, l = pairs[b_, 0], pairs[b_, 1]
            cov_t[a_, b_] = w4[i, j, k, l] - mu_t[a_] * mu_t[b_]


def clt_moments_p(theta, sigma2: float, t4) -> tuple[np.ndarray, np.ndarray]:
    """(mu_t, Sigma_t) of one record's statistics (:func:`clt_moments_into`)."""
    t4 = np.ascontiguousarray(t4, dtype=float)
    p = t4.shape[0] - 1
    k, q = n_stats(p), p + 2
    mu_t, cov_t = np.empty(k), np.empty((k, k))
    w4, e4 = np.empty((q,) * 4), np.empty((q,) * 4)
    theta = np.asarray(theta, dtype=float)
    clt_moments_into(theta, float(sigma2), t4, stat_pairs(p), mu_t, cov_t, w4, e4)
    return mu_t, cov_t
