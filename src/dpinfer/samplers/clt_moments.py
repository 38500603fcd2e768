"""The CLT moments of one record's statistics for NIG regression with p covariates
(:mod:`dpinfer.models.linreg_nig_multi`): what Gibbs-SS needs (Eqs. 5.2-5.3 of bernstein2020,
written there for p = 1; records clamped before release: :mod:`dpinfer.samplers.clt_clamped`).

Records a = [x, 1, y] carry a constant, so one 4-index tensor E[a_i a_j a_k a_l] holds every
lower moment (E[a_i a_j] = E[a_i a_j 1 1]) and :func:`clt_moments_into` needs only the raw
fourth-moment tensor of b = [x, 1]: :func:`gaussian_tensor_into` for x ~ N(mu_x, Sigma_x)
(Isserlis; Gibbs-SS-Update) and :func:`predictive_tensor` for the data prior's predictive
(inverse-Wishart moments; Gibbs-SS-Prior) and :func:`noisy_tensor` for the released moment
sums of x (Gibbs-SS-Noisy).
"""

from __future__ import annotations

from itertools import permutations

import numpy as np
from numba import njit

from ..models.linreg_nig_multi import NIWPriorP, moment_monomials, n_stats, stat_pairs

__all__ = [
    "gaussian_tensor_into",
    "predictive_tensor",
    "noisy_tensor",
    "valid_moment_tensor",
    "clt_moments_into",
    "clt_moments_p",
]


@njit(cache=True, inline="always")
def _mean_b(mean, i):
    """E[b_i] of b = [x, 1]."""
    return mean[i] if i < mean.shape[0] else 1.0


@njit(cache=True, inline="always")
def _cov_b(cov, i, j):
    """Cov(b_i, b_j) of b = [x, 1]: the constant has none."""
    p = cov.shape[0]
    return cov[i, j] if i < p and j < p else 0.0


@njit(cache=True)
def gaussian_tensor_into(mean, cov, t4):
    """t4[i, j, k, l] = E[b_i b_j b_k b_l] for b = [x, 1], x ~ N(mean, cov) (Isserlis)."""
    r = mean.shape[0] + 1
    for i in range(r):
        mi = _mean_b(mean, i)
        for j in range(r):
            mj = _mean_b(mean, j)
            sij = _cov_b(cov, i, j)
            for k in range(r):
                mk = _mean_b(mean, k)
                sik = _cov_b(cov, i, k)
                sjk = _cov_b(cov, j, k)
                for l in range(r):
                    ml = _mean_b(mean, l)
                    sil = _cov_b(cov, i, l)
                    sjl = _cov_b(cov, j, l)
                    skl = _cov_b(cov, k, l)
                    t4[i, j, k, l] = (
                        mi * mj * mk * ml
                        + mi * mj * skl
                        + mi * mk * sjl
                        + mi * ml * sjk
                        + mj * mk * sil
                        + mj * ml * sik
                        + mk * ml * sij
                        + sij * skl
                        + sik * sjl
                        + sil * sjk
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


def _power_range(lo: float, hi: float, c: int) -> tuple[float, float]:
    """The range of x^c for x in [lo, hi]."""
    points = [lo**c, hi**c] + ([0.0] if lo < 0.0 < hi else [])
    return min(points), max(points)


def noisy_tensor(released_sums, n: int, p: int, bounds=(-1.0, 1.0)) -> np.ndarray:
    """The raw fourth-moment tensor of b = [x, 1] from the released moment sums of x
    (:func:`~dpinfer.models.linreg_nig_multi.moment_monomials`), Gibbs-SS-Noisy's moments: each
    sum divided by n and clipped to the range its monomial takes for x in the public ``bounds``
    (each covariate in [lo, hi]; None: not clipped), then made a valid moment tensor
    (:func:`valid_moment_tensor`; the thesis's one-covariate repair is not stated,
    docs/deviations.md "Gibbs-SS-Noisy: moment release and clean-up")."""
    idx = moment_monomials(p)
    m = np.asarray(released_sums, dtype=float) / float(n)
    if m.shape != (idx.shape[0],):
        raise ValueError(f"need the {idx.shape[0]} released moment sums of p = {p} covariates")
    for k, mono in enumerate(idx if bounds is not None else ()):
        lo, hi = float(bounds[0]), float(bounds[1])
        low, high = 1.0, 1.0
        for c in np.bincount(mono[mono < p], minlength=p):
            a, b = _power_range(lo, hi, int(c))
            ends = (low * a, low * b, high * a, high * b)
            low, high = min(ends), max(ends)
        m[k] = min(max(m[k], low), high)
    t4 = np.empty((p + 1,) * 4)
    t4[p, p, p, p] = 1.0
    for k, mono in enumerate(idx):
        for perm in set(permutations(mono)):
            t4[perm] = m[k]
    return valid_moment_tensor(t4)


def _moment_matrix(t4: np.ndarray) -> np.ndarray:
    """M[(i, j), (k, l)] = E[b_i b_j b_k b_l] over the pairs i <= j of b = [x, 1]: the moment
    matrix of the monomials of x of degree up to 2."""
    r = t4.shape[0]
    ij = [(i, j) for i in range(r) for j in range(i, r)]
    return np.array([[t4[i, j, k, l] for k, l in ij] for i, j in ij])


def valid_moment_tensor(t4: np.ndarray, floor: float = 1e-6) -> np.ndarray:
    """t4 if its moment matrix is positive definite (smallest eigenvalue at least ``floor``),
    else the nearest mixture (1 - lam) t4 + lam g on the way to g, the tensor of the Gaussian with
    t4's mean and (eigenvalue-floored) covariance, whose moment matrix is positive definite.

    A positive definite moment matrix makes the CLT covariance of every record's statistics
    positive definite for every (theta, sigma^2) (a square of a polynomial of degree 2 in x and
    an independent normal error has a positive expectation), so the sampler never projects it;
    projecting it instead (eigenvalues clipped to 0) would fix the statistics to the model's mean
    along the clipped directions whatever the release says. lam is found by bisection (moment
    matrices are linear in the tensor), to 1e-6."""
    t4 = np.asarray(t4, dtype=float)
    if np.linalg.eigvalsh(_moment_matrix(t4))[0] >= floor:
        return t4
    p = t4.shape[0] - 1
    mean = t4[:p, p, p, p]
    cov = t4[:p, :p, p, p] - np.outer(mean, mean)
    w, v = np.linalg.eigh(cov)
    cov = (v * np.maximum(w, floor**0.5)) @ v.T
    g = np.empty_like(t4)
    gaussian_tensor_into(mean, cov, g)
    lo, hi = 0.0, 1.0
    while hi - lo > 1e-6:
        lam = 0.5 * (lo + hi)
        if np.linalg.eigvalsh(_moment_matrix((1 - lam) * t4 + lam * g))[0] >= floor:
            hi = lam
        else:
            lo = lam
    return (1 - hi) * t4 + hi * g


@njit(cache=True)
def clt_moments_into(theta, sigma2, t4, pairs, mu_t, cov_t, t3, t2, t1):
    """Mean mu_t (K) and covariance cov_t (K, K) of t(a) = [a_i a_j over ``pairs``] for
    a = [x, 1, y], y = theta'[x, 1] + sigma e, given t4, the raw fourth-moment tensor of
    b = [x, 1] ((p + 1)^4). ``t3`` (r^3), ``t2`` (r^2) and ``t1`` (r), r = p + 1, are scratch:
    t4 contracted once, twice and three times with theta."""
    r = t4.shape[0]
    for i in range(r):
        for j in range(r):
            for k in range(r):
                acc = 0.0
                for l in range(r):
                    acc += t4[i, j, k, l] * theta[l]
                t3[i, j, k] = acc
    for i in range(r):
        for j in range(r):
            acc = 0.0
            for k in range(r):
                acc += t3[i, j, k] * theta[k]
            t2[i, j] = acc
    t0 = 0.0
    for i in range(r):
        acc = 0.0
        for j in range(r):
            acc += t2[i, j] * theta[j]
        t1[i] = acc
        t0 += acc * theta[i]
    # E[a_i a_j a_k a_l] for a = [b, y], y = theta'b + sigma e (index r): with m of the indices on
    # y and the others (padded by the constant c) the b-indices, the binomial sum over u = theta'b
    # of E[b... u^k] E[(sigma e)^(m - k)] (E e^2 = 1, E e^4 = 3, odd powers 0), E[b... u^k]
    # being t4 contracted k times with theta. Pairs are sorted, so y is j (and i) and l (and k).
    # b_ = -1 is the pair (c, c): the means. Written out in the loop: a helper call per entry
    # costs more than the arithmetic.
    c = r - 1
    s2 = sigma2
    kk = pairs.shape[0]
    for a_ in range(kk):
        i, j = pairs[a_, 0], pairs[a_, 1]
        ni = (i != r) + (j != r)
        for b_ in range(-1, kk):
            if b_ >= 0 and b_ < a_:
                continue
            k, l = (c, c) if b_ < 0 else (pairs[b_, 0], pairs[b_, 1])
            nk = (k != r) + (l != r)
            m = 4 - ni - nk
            if m == 0:
                v = t4[i, j, k, l]
            elif m == 1:
                v = t3[i, k, l] if ni == 1 else t3[i, j, k]
            elif m == 2:
                if ni == 0:
                    v = t2[k, l] + s2 * t4[k, l, c, c]
                elif nk == 0:
                    v = t2[i, j] + s2 * t4[i, j, c, c]
                else:
                    v = t2[i, k] + s2 * t4[i, k, c, c]
            elif m == 3:
                u = k if ni == 0 else i
                v = t1[u] + 3.0 * s2 * t3[u, c, c]
            else:
                v = t0 + 6.0 * s2 * t2[c, c] + 3.0 * s2 * s2
            if b_ < 0:
                mu_t[a_] = v
            else:
                cov_t[a_, b_] = v
    for a_ in range(kk):
        for b_ in range(a_, kk):
            v = cov_t[a_, b_] - mu_t[a_] * mu_t[b_]
            cov_t[a_, b_] = v
            cov_t[b_, a_] = v


def clt_moments_p(theta, sigma2: float, t4) -> tuple[np.ndarray, np.ndarray]:
    """(mu_t, Sigma_t) of one record's statistics (:func:`clt_moments_into`)."""
    t4 = np.ascontiguousarray(t4, dtype=float)
    p = t4.shape[0] - 1
    k, r = n_stats(p), p + 1
    mu_t, cov_t = np.empty(k), np.empty((k, k))
    scratch = (np.empty((r, r, r)), np.empty((r, r)), np.empty(r))
    theta = np.asarray(theta, dtype=float)
    clt_moments_into(theta, float(sigma2), t4, stat_pairs(p), mu_t, cov_t, *scratch)
    return mu_t, cov_t
