"""Bayesian linear regression with p >= 1 covariates from noisy sufficient statistics: the
thesis's model (bernstein2020, Sec. 5.2) in the p dimensions it is written for.

Every regression sampler is written for this model: a user's own data (:mod:`dpinfer.own_data`)
with p covariates, and chapter 5's one covariate (:mod:`dpinfer.models.linreg_nig`) as its
p = 1 case (:func:`as_p`). Model, here on records rescaled to [-1, 1] by public bounds:

    x ~ N(mu_x, Sigma_x),  (mu_x, Sigma_x) ~ NIW(m0, kappa, Psi, nu)
    y | x ~ N(theta' [x, 1], sigma^2),  (theta, sigma^2) ~ NIG(mu0, Lambda0, a0, b0)

with theta = [beta_1, ..., beta_p, intercept] and Lambda0 a precision (as in chapter 5).
Records are a = [x_1, ..., x_p, 1, y] (q = p + 2 entries, the constant at index p); the
statistics are the K = q (q + 1)/2 - 1 distinct entries of A'A other than n (public), in the
row-major order of the upper triangle (:func:`stat_pairs`). The thesis's sensitivity with
d = p + 1 covariates counting the unit feature (Sec. 5.2.1) holds for records in [-1, 1].

The CLT moments of one record's statistics that Gibbs-SS needs are in
:mod:`dpinfer.samplers.clt_moments`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import comb
from typing import NamedTuple

import numpy as np
from numba import njit

from ..mechanisms import Laplace
from .linreg_nig import NIGPrior, sensitivity_moments, sensitivity_statistics

__all__ = [
    "NIGPrior",
    "NIWPriorP",
    "ReleaseP",
    "ProblemP",
    "noise_law",
    "ChainTargetP",
    "n_stats",
    "stat_pairs",
    "pair_index",
    "sufficient_statistics_p",
    "sensitivity_p",
    "moment_monomials",
    "moment_sums_p",
    "sensitivity_moments_p",
    "release_statistics_p",
    "nig_prior_p",
    "gram_into",
    "nig_update_p",
    "nig_draw_p",
    "nig_posterior_p",
    "nig_draws_p",
    "niw_draw_p",
    "project_statistics_p",
    "project_into",
    "log_nig_p",
    "log_niw_chol",
    "ConjugateWork",
    "conjugate_work",
    "nig_conjugate_draw_p",
    "naive_start_p",
    "simulate_dataset_p",
    "chain_target_p",
    "as_p",
    "SCALAR_ORDER",
]


def n_stats(p: int) -> int:
    """K = q (q + 1)/2 - 1 released statistics for p covariates (q = p + 2)."""
    q = int(p) + 2
    return q * (q + 1) // 2 - 1


def stat_pairs(p: int) -> np.ndarray:
    """(K, 2) indices (i, j), i <= j, of a = [x, 1, y] whose sums sum a_i a_j are the
    statistics, in row-major upper-triangle order without (p, p) (= n)."""
    q = int(p) + 2
    return np.array([(i, j) for i in range(q) for j in range(i, q) if (i, j) != (p, p)], np.int64)


def pair_index(p: int) -> np.ndarray:
    """(q, q) position of sum a_i a_j in s (symmetric); -1 at the constant's (p, p)."""
    q = int(p) + 2
    out = -np.ones((q, q), np.int64)
    for k, (i, j) in enumerate(stat_pairs(p)):
        out[i, j] = out[j, i] = k
    return out


def sufficient_statistics_p(X, y) -> np.ndarray:
    """s: the K distinct entries of A'A (A = [X, 1, y]) other than n."""
    X = np.asarray(X, dtype=float)
    X = X[:, None] if X.ndim == 1 else X
    p = X.shape[1]
    a = np.column_stack([X, np.ones(X.shape[0]), np.asarray(y, dtype=float)])
    g = a.T @ a
    ij = stat_pairs(p)
    return g[ij[:, 0], ij[:, 1]]


def sensitivity_p(p: int) -> float:
    """L1 sensitivity of s for records in [-1, 1] (width 2): the thesis's Delta_s with
    d = p + 1 (Sec. 5.2.1)."""
    return sensitivity_statistics(2.0, 2.0, int(p) + 1)


class NIWPriorP(NamedTuple):
    """NIW(m0, kappa, Psi, nu) on (mu_x, Sigma_x): Sigma_x ~ IW(Psi, nu),
    mu_x | Sigma_x ~ N(m0, Sigma_x / kappa). At p = 1 it is chapter 5's scalar NIW
    (IW_1(psi, nu) = InvGamma(nu/2, psi/2))."""

    m0: np.ndarray
    kappa: float
    psi: np.ndarray
    nu: float

    @classmethod
    def isotropic(cls, p: int, m0: float, kappa: float, psi: float, nu: float) -> NIWPriorP:
        """m0 and psi on every covariate, no prior correlation; needs nu > p + 3 (finite fourth
        moments of the predictive)."""
        p = int(p)
        if p < 1 or kappa <= 0 or psi <= 0 or nu <= p + 3:
            raise ValueError(f"NIW prior needs p >= 1, kappa > 0, psi > 0 and nu > p + 3 = {p + 3}")
        return cls(np.full(p, float(m0)), float(kappa), np.eye(p) * float(psi), float(nu))


def nig_prior_p(p: int, mu0: float, precision: float, a0: float, b0: float) -> NIGPrior:
    """NIG(mu0 1, precision I, a0, b0) on the p + 1 coefficients (chapter 5's prior at p = 1)."""
    if precision <= 0 or a0 <= 0 or b0 <= 0:
        raise ValueError("NIG prior needs a positive precision, a0 and b0")
    d = int(p) + 1
    return NIGPrior(np.full(d, float(mu0)), np.eye(d) * float(precision), float(a0), float(b0))


# ----------------------------------------------------------------------------- the release
@dataclass(frozen=True)
class ReleaseP:
    """What the methods see of one data set of n records with p covariates (n, p public):

    - ``s``: the confidential statistics (Non-Private only);
    - ``z = s_c + Lap(mechanism.scale)`` at the full budget, s_c those of the records clamped
      to [-1, 1] when ``clamped`` (then epsilon-DP), else s;
    - ``z_half``: the same at half the budget (``mechanism_half``; Gibbs-SS-Noisy's share);
    - ``moment_sums``: the sums over records of every monomial of x of degree 1 to 4
      (:func:`moment_monomials`), released at the other half (``mechanism_moments``;
      Gibbs-SS-Noisy's moments of x);
    - ``bounds``: the interval every covariate and the response are clamped to when ``clamped``
      ([-1, 1] for rescaled records; chapter 5's public bounds, :func:`as_p`);
    - ``exact_moment_sums``: the confidential moment sums (the released code's non-private
      variant of Gibbs-SS-Noisy only).
    """

    s: np.ndarray
    n: int
    p: int
    z: np.ndarray
    mechanism: Laplace
    z_half: np.ndarray
    mechanism_half: Laplace
    clamped: bool = True
    moment_sums: np.ndarray | None = None
    mechanism_moments: Laplace | None = None
    bounds: tuple[float, float] = (-1.0, 1.0)
    exact_moment_sums: np.ndarray | None = None


def moment_monomials(p: int) -> np.ndarray:
    """(D, 4) indices into b = [x, 1] (the constant at index p), sorted, of every monomial of x of
    degree 1 to 4: D = C(p + 4, 4) - 1, the distinct entries of E[b b b b] other than 1."""
    q = int(p) + 1
    return np.array([c for c in combinations_with_replacement(range(q), 4) if c[0] != p], np.int64)


def moment_sums_p(X) -> np.ndarray:
    """Sums over records of the monomials of :func:`moment_monomials`."""
    X = np.asarray(X, dtype=float)
    b = np.column_stack([X, np.ones(X.shape[0])])
    idx = moment_monomials(X.shape[1])
    return np.prod(b[:, idx], axis=2).sum(axis=0)


def sensitivity_moments_p(p: int) -> float:
    """L1 sensitivity of the moment sums for x in [-1, 1]: the thesis's D w^4 (Sec. 5.2.4.4) with
    D = C(p + 4, 4) unique entries of the fourth-moment tensor of [x, 1] (5 at p = 1) and w = 2."""
    return sensitivity_moments(2.0, comb(int(p) + 4, 4))


def release_statistics_p(rng: np.random.Generator, X, y, epsilon: float, clamp: bool = True):
    """The Laplace releases of one data set, drawn in this order from ``rng``: z at epsilon, z_half
    at epsilon/2 and the moment sums of x at epsilon/2 (Gibbs-SS-Noisy's split, Sec. 5.2.4.4);
    records are clamped to [-1, 1] first unless ``clamp`` is False (the thesis's experiments,
    not DP when a record leaves the bounds)."""
    X = np.asarray(X, dtype=float)
    X = X[:, None] if X.ndim == 1 else X
    y = np.asarray(y, dtype=float)
    n, p = X.shape
    s = sufficient_statistics_p(X, y)
    released = sufficient_statistics_p(np.clip(X, -1, 1), np.clip(y, -1, 1)) if clamp else s
    full = Laplace.calibrated(epsilon, sensitivity_p(p))
    half = Laplace.calibrated(epsilon / 2.0, sensitivity_p(p))
    moments = Laplace.calibrated(epsilon / 2.0, sensitivity_moments_p(p))
    z = full.release(rng, released)
    z_half = half.release(rng, released)
    exact = moment_sums_p(np.clip(X, -1, 1) if clamp else X)
    sums = moments.release(rng, exact)
    return ReleaseP(
        s, int(n), int(p), z, full, z_half, half, bool(clamp), sums, moments, (-1.0, 1.0), exact
    )


@dataclass(frozen=True)
class ProblemP:
    """What a sampler of this model conditions on: the release, the two priors and the law of
    the release's noise, ``noise`` "laplace" (mechanisms with ``.scale``) or "gaussian" (with
    ``.sigma``; MCMC-Ind and Gibbs-SS-Update/-Prior, :func:`noise_law`)."""

    release: ReleaseP
    prior: NIGPrior
    data_prior: NIWPriorP
    noise: str = "laplace"


def noise_law(noise: str, mechanism) -> tuple[bool, float]:
    """(gaussian, scale) of a release's noise: Laplace scale b, or Gaussian sd sigma if
    ``noise`` is "gaussian"; refuses a mechanism record without that parameter."""
    if noise not in ("laplace", "gaussian"):
        raise ValueError(f"noise must be 'laplace' or 'gaussian', got {noise!r}")
    gaussian = noise == "gaussian"
    scale = getattr(mechanism, "sigma" if gaussian else "scale", None)
    if scale is None:
        raise ValueError(f"{noise} noise needs its mechanism's scale: {type(mechanism).__name__}")
    return gaussian, float(scale)


SCALAR_ORDER = np.array([1, 0, 3, 2, 4])  # chapter 5's [Sx, Sxx, Sy, Sxy, Syy] as stat_pairs(1)


def as_p(problem) -> ProblemP:
    """The p-covariate record of a regression problem: a :class:`ProblemP` as it is, chapter 5's
    one-covariate :class:`dpinfer.models.linreg_nig.Problem` as the p = 1 case (statistics in
    :func:`stat_pairs` order, moment sums of x, x^2, x^3, x^4 in :func:`moment_monomials` order,
    the scalar NIW as its 1 x 1 NIW, the public bounds kept)."""
    if isinstance(problem, ProblemP):
        return problem
    r, dp = problem.release, problem.data_prior
    release = ReleaseP(
        r.s[SCALAR_ORDER],
        int(r.n),
        1,
        r.z[SCALAR_ORDER],
        r.mechanism,
        r.z_half[SCALAR_ORDER],
        r.mechanism_half,
        bool(r.clamped),
        r.moment_sums[::-1],
        r.mechanism_moments,
        (float(r.bounds[0]), float(r.bounds[1])),
        r.exact_moment_sums[::-1],
    )
    data_prior = NIWPriorP(np.array([dp.m0], float), dp.kappa, np.array([[dp.psi]], float), dp.nu)
    return ProblemP(release, problem.prior, data_prior)


class ChainTargetP(NamedTuple):
    """A noise-aware chain's target as its kernel takes it: release z of n records with p
    covariates, noise scale b (Laplace scale or Gaussian sd), the priors and the (q, q) map of
    :func:`pair_index`."""

    z: np.ndarray
    n: float
    b: float
    prior: NIGPrior
    data_prior: NIWPriorP
    index: np.ndarray


def chain_target_p(z, n: int, p: int, scale: float, prior, data_prior) -> ChainTargetP:
    """The :class:`ChainTargetP` of a release, after checking its shapes and values."""
    z = np.asarray(z, dtype=float)
    if z.shape != (n_stats(p),) or not np.all(np.isfinite(z)):
        raise ValueError(f"z must be {n_stats(p)} finite released statistics for p = {p}")
    if n < 1 or not scale > 0:
        raise ValueError("need n >= 1 and a positive noise scale")
    if prior.mu0.shape != (p + 1,) or data_prior.m0.shape != (p,):
        raise ValueError(f"priors must be of p + 1 = {p + 1} coefficients and p = {p} covariates")
    return ChainTargetP(z, float(n), float(scale), prior, data_prior, pair_index(p))


# ----------------------------------------------------------------------------- NIG, p dims
@njit(cache=True, inline="always")
def gram_into(s, n, index, g):
    """g (q, q) = A'A from the statistics s and n."""
    q = index.shape[0]
    for i in range(q):
        for j in range(q):
            k = index[i, j]
            g[i, j] = n if k < 0 else s[k]


@njit(cache=True, inline="always")
def _chol_solve(l, b, out):
    """out = (L L')^{-1} b for lower-triangular l."""
    d = l.shape[0]
    for i in range(d):
        acc = b[i]
        for j in range(i):
            acc -= l[i, j] * out[j]
        out[i] = acc / l[i, i]
    for i in range(d - 1, -1, -1):
        acc = out[i]
        for j in range(i + 1, d):
            acc -= l[j, i] * out[j]
        out[i] = acc / l[i, i]


@njit(cache=True, inline="always")
def nig_update_p(g, n, prior, mu_n, chol_n, r):
    """The conjugate NIG update (Eq. 5.1) from the Gram matrix g of [X, 1, y]: fills mu_n
    (p + 1), the lower Cholesky factor chol_n of Lambda_n and r = X'y + Lambda0 mu0 (scratch);
    returns (a_n, b_n), b_n <= 0 (or Lambda_n not positive definite: b_n = -inf) flagging
    statistics that need projecting."""
    d = mu_n.shape[0]
    lam0 = prior.lam0
    mu0 = prior.mu0
    for i in range(d):
        acc = g[i, d]
        for j in range(d):
            chol_n[i, j] = g[i, j] + lam0[i, j]
            acc += lam0[i, j] * mu0[j]
        r[i] = acc
    if not _cholesky(chol_n, chol_n, 0.0):  # in place: Lambda_n -> its lower factor
        return prior.a0 + 0.5 * n, -np.inf
    _chol_solve(chol_n, r, mu_n)
    q0 = 0.0
    qn = 0.0
    for i in range(d):
        qn += mu_n[i] * r[i]
        for j in range(d):
            q0 += mu0[i] * lam0[i, j] * mu0[j]
    return prior.a0 + 0.5 * n, prior.b0 + 0.5 * (g[d, d] + q0 - qn)


@njit(cache=True, inline="always")
def nig_draw_p(rng, mu_n, chol_n, a_n, b_n, theta):
    """(theta, sigma^2) ~ NIG(mu_n, L L', a_n, b_n): fills theta, returns sigma^2."""
    d = mu_n.shape[0]
    sigma2 = b_n / rng.gamma(a_n, 1.0)
    sd = math.sqrt(sigma2)
    for i in range(d):
        theta[i] = rng.standard_normal()
    for i in range(d - 1, -1, -1):  # L' v = e
        acc = theta[i]
        for j in range(i + 1, d):
            acc -= chol_n[j, i] * theta[j]
        theta[i] = acc / chol_n[i, i]
    for i in range(d):
        theta[i] = mu_n[i] + sd * theta[i]
    return sigma2


def nig_posterior_p(s, n: int, p: int, prior: NIGPrior):
    """(mu_n, Lambda_n, a_n, b_n) of Eq. (5.1) given s and n (p covariates)."""
    s = np.asarray(s, dtype=float)
    if s.shape != (n_stats(p),):
        raise ValueError(f"s must have {n_stats(p)} entries for p = {p}")
    g = np.empty((p + 2, p + 2))
    gram_into(s, float(n), pair_index(p), g)
    mu_n, chol, r = np.empty(p + 1), np.empty((p + 1, p + 1)), np.empty(p + 1)
    a_n, b_n = nig_update_p(g, float(n), prior, mu_n, chol, r)
    if not b_n > 0:
        raise ValueError("b_n <= 0: project the statistics first (project_statistics_p)")
    return mu_n, chol @ chol.T, a_n, b_n


@njit(cache=True)
def _nig_draws_kernel(rng, mu_n, chol, a_n, b_n, out):
    """out[k] = (theta, sigma^2), independent draws of NIG(mu_n, chol chol', a_n, b_n)."""
    d = mu_n.shape[0]
    theta = np.empty(d)
    for k in range(out.shape[0]):
        out[k, d] = nig_draw_p(rng, mu_n, chol, a_n, b_n, theta)
        out[k, :d] = theta


def nig_draws_p(rng, s, n: int, p: int, prior: NIGPrior, size: int) -> np.ndarray:
    """``size`` draws of (theta (p + 1), sigma^2) of the NIG posterior given s."""
    mu_n, lam_n, a_n, b_n = nig_posterior_p(s, n, p, prior)
    out = np.empty((int(size), p + 2))
    _nig_draws_kernel(rng, mu_n, np.linalg.cholesky(lam_n), a_n, b_n, out)
    return out


# ----------------------------------------------------------------------------- NIW, p dims
@njit(cache=True, inline="always")
def niw_draw_p(rng, g, n, data_prior, mu, sigma, work):
    """(mu_x, Sigma_x) ~ NIW posterior given the covariates' sums in the Gram matrix g (sum x =
    g[:p, p], sum x x' = g[:p, :p]) and n (n = 0: the prior); fills mu (p) and sigma (p, p).
    ``work`` is (4, p, p) scratch; work[3] is left holding the Cholesky factor of Sigma_x.

    Sigma_x ~ IW(Psi_n, nu_n) by Bartlett: with Psi_n = C C' and A lower triangular,
    A_ii^2 ~ chi^2(nu_n - i), A_ij ~ N(0, 1), Sigma_x = B B' with B = C A^{-T}."""
    p = mu.shape[0]
    m0 = data_prior.m0
    kappa = data_prior.kappa
    kn = kappa + n
    psi_n = work[0]
    for i in range(p):
        mu[i] = (kappa * m0[i] + g[i, p]) / kn
    for i in range(p):
        for j in range(p):
            psi_n[i, j] = data_prior.psi[i, j]
            if n > 0:
                xi = g[i, p] / n
                xj = g[j, p] / n
                psi_n[i, j] += g[i, j] - n * xi * xj + kappa * n / kn * (xi - m0[i]) * (xj - m0[j])
    c = work[1]
    _cholesky_or_clip(psi_n, c)
    a = work[2]
    nu_n = data_prior.nu + n
    for i in range(p):
        a[i, i] = math.sqrt(2.0 * rng.gamma(0.5 * (nu_n - i), 1.0))
        for j in range(i):
            a[i, j] = rng.standard_normal()
        for j in range(i + 1, p):
            a[i, j] = 0.0
    # B' = A^{-1} C' by forward substitution, column by column of C'; stored in work[3]
    bt = work[3]
    for col in range(p):
        for i in range(p):
            acc = c[col, i]  # (C')[i, col]
            for j in range(i):
                acc -= a[i, j] * bt[j, col]
            bt[i, col] = acc / a[i, i]
    for i in range(p):
        for j in range(p):
            acc = 0.0
            for k in range(p):
                acc += bt[k, i] * bt[k, j]
            sigma[i, j] = acc
    _cholesky_or_clip(sigma, bt)
    sd = 1.0 / math.sqrt(kn)
    for i in range(p):
        a[0, i] = rng.standard_normal()
    for i in range(p):
        acc = 0.0
        for j in range(i + 1):
            acc += bt[i, j] * a[0, j]
        mu[i] += sd * acc


@njit(cache=True, inline="always")
def _cholesky(a, out, jitter):
    """Lower Cholesky factor of a + jitter I into out (out may be a: the factor then replaces it);
    False if that matrix is not (numerically) positive definite."""
    d = a.shape[0]
    for i in range(d):
        for j in range(i + 1):
            acc = a[i, j] + (jitter if i == j else 0.0)
            for k in range(j):
                acc -= out[i, k] * out[j, k]
            if i == j:
                if not acc > 0.0:
                    return False
                out[i, i] = math.sqrt(acc)
            else:
                out[i, j] = acc / out[j, j]
        for j in range(i + 1, d):
            out[i, j] = 0.0
    return True


@njit(cache=True)
def _cholesky_or_clip(a, out):
    """Lower Cholesky factor of the symmetric a into out, with a tiny jitter when round-off
    leaves a borderline matrix."""
    jitter = 0.0
    for _ in range(8):
        if _cholesky(a, out, jitter):
            return
        big = 1e-300
        for i in range(a.shape[0]):
            big = max(big, abs(a[i, i]))
        jitter = 1e-12 * big if jitter == 0.0 else 100.0 * jitter


# ----------------------------------------------------------------------------- projection
@njit(cache=True)
def project_into(s, n, index, g, work):
    """Project s in place so that A'A is PSD; returns True if s changed (Sec. 5.2.4.3 in p
    dimensions). With n > 0, A'A is PSD iff the centred scatter C = G_rr - g_r g_r'/n of the
    other q - 1 entries is; C is replaced by its eigenvalue-clipped version (the nearest PSD
    matrix in Frobenius norm), the sums and n kept. ``g`` (q, q), ``work`` (2, q - 1, q - 1):
    C and the scratch of the Cholesky factor that settles the common, valid case without an
    eigendecomposition."""
    q = index.shape[0]
    c0 = q - 2  # the constant's index
    gram_into(s, n, index, g)
    m = q - 1
    for a_ in range(m):
        i = a_ if a_ < c0 else a_ + 1
        for b_ in range(m):
            j = b_ if b_ < c0 else b_ + 1
            work[0, a_, b_] = g[i, j] - g[i, c0] * g[j, c0] / n
    if _cholesky(work[0], work[1], 0.0):  # positive definite: valid as it is
        return False
    w, v = np.linalg.eigh(work[0])
    if w[0] >= 0.0:
        return False
    for a_ in range(m):
        i = a_ if a_ < c0 else a_ + 1
        for b_ in range(a_, m):
            j = b_ if b_ < c0 else b_ + 1
            acc = 0.0
            for k in range(m):
                if w[k] > 0.0:
                    acc += v[a_, k] * w[k] * v[b_, k]
            s[index[i, j]] = acc + g[i, c0] * g[j, c0] / n
    return True


def project_statistics_p(s, n: int, p: int) -> np.ndarray:
    """Copy of s projected to valid statistics (:func:`project_into`)."""
    out = np.array(s, dtype=float)
    if out.shape != (n_stats(p),) or n < 1:
        raise ValueError(f"s must have {n_stats(p)} entries and n must be positive")
    project_into(
        out, float(n), pair_index(p), np.empty((p + 2, p + 2)), np.empty((2, p + 1, p + 1))
    )
    return out


# ----------------------------------------------------------------------------- conjugate steps
class ConjugateWork(NamedTuple):
    """Scratch of the conjugate steps for p covariates: g (q, q), proj (2, q - 1, q - 1), mu_n and
    r (p + 1), chol_n (p + 1, p + 1), niw (4, p, p)."""

    g: np.ndarray
    proj: np.ndarray
    mu_n: np.ndarray
    r: np.ndarray
    chol_n: np.ndarray
    niw: np.ndarray


@njit(cache=True)
def conjugate_work(p):
    """A :class:`ConjugateWork` for p covariates."""
    q = p + 2
    return ConjugateWork(
        np.empty((q, q)),
        np.empty((2, q - 1, q - 1)),
        np.empty(p + 1),
        np.empty(p + 1),
        np.empty((p + 1, p + 1)),
        np.empty((4, p, p)),
    )


@njit(cache=True, inline="always")
def nig_conjugate_draw_p(rng, s, n, index, prior, theta, cw):
    """(theta, sigma^2) ~ NIG posterior given valid statistics s (Eq. 5.1); fills theta,
    returns sigma^2 (``cw`` a :class:`ConjugateWork`; cw.g is left holding A'A)."""
    gram_into(s, n, index, cw.g)
    a_n, b_n = nig_update_p(cw.g, n, prior, cw.mu_n, cw.chol_n, cw.r)
    return nig_draw_p(rng, cw.mu_n, cw.chol_n, a_n, max(b_n, 1e-300), theta)


@njit(cache=True)
def naive_start_p(rng, z, n, index, prior, data_prior, theta, mu_x, sigma_x, cw):
    """A chain's start: one draw of the Naive posterior given the projected release z, (theta,
    sigma^2) and (mu_x, Sigma_x) by the conjugate updates; fills theta, mu_x, sigma_x (and the
    Cholesky factor of sigma_x in cw.niw[3]) and returns sigma^2."""
    s0 = z.copy()
    project_into(s0, n, index, cw.g, cw.proj)
    sigma2 = nig_conjugate_draw_p(rng, s0, n, index, prior, theta, cw)
    niw_draw_p(rng, cw.g, n, data_prior, mu_x, sigma_x, cw.niw)
    return sigma2


# ----------------------------------------------------------------------------- log prior
@njit(cache=True, inline="always")
def log_nig_p(theta, sigma2, prior):
    """log NIG(theta, sigma^2) up to a constant, plus log sigma^2 (the Jacobian of log sigma^2)."""
    d = theta.shape[0]
    quad = 0.0
    for i in range(d):
        for j in range(d):
            quad += (theta[i] - prior.mu0[i]) * prior.lam0[i, j] * (theta[j] - prior.mu0[j])
    return -(prior.a0 + 0.5 * d) * math.log(sigma2) - prior.b0 / sigma2 - quad / (2.0 * sigma2)


@njit(cache=True, inline="always")
def log_niw_chol(mu, l, data_prior, linv):
    """log NIW(mu, Sigma | m0, kappa, Psi, nu) up to a constant, Sigma = L L' (``l`` lower
    triangular, positive diagonal), in the coordinates (mu, log L_ii, L_ij (i > j)):
    log IW(Sigma | Psi, nu) + log N(mu | m0, Sigma/kappa) + sum_i (p - i + 2) log L_ii
    (i = 1..p), the last the log-Jacobian of L -> Sigma (prod L_ii^(p - i + 1), up to 2^p) and of
    the log diagonal. ``linv`` (p, p) is scratch (left holding L^-1)."""
    p = mu.shape[0]
    for c in range(p):  # L^-1 column by column (lower triangular)
        for i in range(p):
            if i < c:
                linv[i, c] = 0.0
            else:
                acc = 1.0 if i == c else 0.0
                for j in range(c, i):
                    acc -= l[i, j] * linv[j, c]
                linv[i, c] = acc / l[i, i]
    psi = data_prior.psi
    m0 = data_prior.m0
    lp = 0.0
    tr = 0.0
    quad = 0.0
    for i in range(p):
        # -(nu + p + 1)/2 log|Sigma| - 1/2 log|Sigma| + (p - i + 2) log L_ii (1-indexed i)
        lp += (p - i + 1.0 - (data_prior.nu + p + 2.0)) * math.log(l[i, i])
        r = 0.0
        for j in range(i + 1):
            r += linv[i, j] * (mu[j] - m0[j])
            for k in range(i + 1):
                tr += linv[i, j] * psi[j, k] * linv[i, k]  # tr(Psi Sigma^-1)
        quad += r * r
    return lp - 0.5 * tr - 0.5 * data_prior.kappa * quad


def simulate_dataset_p(rng: np.random.Generator, n: int, prior: NIGPrior, data_prior: NIWPriorP):
    """Draw (theta, sigma^2), (mu_x, Sigma_x) and a data set (X (n, p), y) from the model."""
    p = data_prior.m0.shape[0]
    sigma2 = prior.b0 / rng.gamma(prior.a0, 1.0)
    theta = rng.multivariate_normal(
        prior.mu0, sigma2 * np.linalg.inv(prior.lam0), method="cholesky"
    )
    mu, sig = np.empty(p), np.empty((p, p))
    niw_draw_p(rng, np.zeros((p + 2, p + 2)), 0.0, data_prior, mu, sig, np.empty((4, p, p)))
    X = mu + rng.standard_normal((n, p)) @ np.linalg.cholesky(sig).T
    y = X @ theta[:p] + theta[p] + math.sqrt(sigma2) * rng.standard_normal(n)
    return {"theta": theta, "sigma2": sigma2, "mu_x": mu, "sigma_x": sig, "X": X, "y": y}
