"""Bayesian linear regression with a normal-inverse-gamma prior (bernstein2020, Ch. 5).

Model (one covariate plus an intercept, as in the thesis's experiments): x ~ p(x),
y | x ~ N(theta_0 x + theta_1, sigma^2), theta = [slope, intercept], and
(theta, sigma^2) ~ NIG(mu0, Lambda0, a0, b0) with Lambda0 a *precision*:
theta | sigma^2 ~ N(mu0, sigma^2 Lambda0^{-1}), sigma^2 ~ InvGamma(a0, b0).

The sufficient statistics are kept as the 5-vector of the distinct non-constant entries of
[X'X, X'y, y'y] with X = [x, 1]:

    s = [sum x, sum x^2, sum y, sum x y, sum y^2]      (n = sum 1 is public)

Every method of this model (registry model ``"nig_linreg"``: ``non_private``, ``naive``,
``mcmc_ind``, ``gibbs_ss_noisy``, ``gibbs_ss_prior``, ``gibbs_ss_update``) has one signature

    run(release: Release, prior: NIGPrior, data_prior: NIWPrior, rng, *, burnin, keep) -> Chain

and the registry calls it as ``run(problem, rng, *, burnin, keep, **options)`` with
:class:`Problem` (the release and both priors); draws of (theta_0 = slope, theta_1 =
intercept, sigma^2), burn-in rows first.
Non-Private and Naive are in ``dpinfer.samplers.conjugate``, the noise-aware samplers in
``dpinfer.samplers.mcmc_ind`` and ``dpinfer.samplers.gibbs_ss`` (which share the kernels here).

Also here: :class:`Release` (the Laplace releases of one data set), the conjugate update of
Eq. (5.1), the projection to valid statistics (Sec. 5.2.4.3) and the hierarchical normal data
prior x ~ N(mu_x, tau^2), (mu_x, tau^2) ~ NIW(m0, kappa, psi, nu) (Fig. 5.3). The CLT moments
of t(x, y) (Eqs. 5.2-5.3) are Gibbs-SS's approximation and live with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ..mechanisms import ClampRescale, Laplace

__all__ = [
    "Problem",
    "N_STATS",
    "NIGPrior",
    "NIWPrior",
    "Release",
    "release_statistics",
    "sufficient_statistics",
    "sensitivity_statistics",
    "sensitivity_moments",
    "clean_noisy_moments",
    "nig_posterior",
    "nig_draws",
    "nig_update",
    "nig_draw",
    "log_nig",
    "log_niw",
    "project_statistics",
    "project_statistics_inplace",
    "ChainTarget",
    "chain_target",
    "niw_posterior",
    "niw_draw",
    "naive_start",
    "nig_conjugate_draw",
    "gaussian_moments",
    "gaussian_moments_into",
    "prior_predictive_moments",
    "simulate_dataset",
]

N_STATS = 5  # [sum x, sum x^2, sum y, sum xy, sum y^2]


class NIGPrior(NamedTuple):
    """NIG(mu0, Lambda0, a0, b0) on (theta, sigma^2); ``lam0`` is the 2x2 prior precision.

    A named tuple, so the kernels take it as it is (no second record to keep in step)."""

    mu0: np.ndarray
    lam0: np.ndarray
    a0: float
    b0: float

    @classmethod
    def from_config(cls, cfg: dict) -> NIGPrior:
        mu0 = np.asarray(cfg["mu0"], dtype=float)
        lam0 = np.diag(np.asarray(cfg["lambda0_diag"], dtype=float))
        if mu0.shape != (2,) or lam0.shape != (2, 2) or np.any(np.diag(lam0) <= 0):
            raise ValueError("NIG prior needs mu0 of length 2 and two positive precisions")
        if cfg["a0"] <= 0 or cfg["b0"] <= 0:
            raise ValueError("a0 and b0 must be positive")
        return cls(mu0, lam0, float(cfg["a0"]), float(cfg["b0"]))


class NIWPrior(NamedTuple):
    """Scalar NIW(m0, kappa, psi, nu): tau^2 ~ InvGamma(nu/2, psi/2),
    mu_x | tau^2 ~ N(m0, tau^2/kappa). A named tuple the kernels take as it is."""

    m0: float
    kappa: float
    psi: float
    nu: float

    @classmethod
    def from_config(cls, cfg: dict) -> NIWPrior:
        p = cls(float(cfg["m0"]), float(cfg["kappa"]), float(cfg["psi"]), float(cfg["nu"]))
        if p.kappa <= 0 or p.psi <= 0 or p.nu <= 4:
            raise ValueError(
                "NIW prior needs kappa > 0, psi > 0 and nu > 4 (finite fourth moments)"
            )
        return p


# ----------------------------------------------------------------------------- statistics
def sufficient_statistics(x, y) -> np.ndarray:
    """s = [sum x, sum x^2, sum y, sum x y, sum y^2] of one data set."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    return np.array([x.sum(), x @ x, y.sum(), x @ y, y @ y])


def sensitivity_statistics(width_x: float, width_y: float, d: int = 2) -> float:
    """Thesis Sec. 5.2.1: Delta_s = w_x^2 d(d+1)/2 + w_x w_y d + w_y^2 (d counts the unit
    feature)."""
    return width_x**2 * d * (d + 1) / 2 + width_x * width_y * d + width_y**2


def sensitivity_moments(width_x: float, n_unique: int = 5) -> float:
    """Thesis Sec. 5.2.4.4: D w_x^4 for the D = 5 unique fourth-moment entries (d = 2)."""
    return n_unique * width_x**4


def clean_noisy_moments(released_sums, n: int, bounds) -> np.ndarray:
    """E[x^k], k = 1..4, from noisy sums of x^k (thesis, Gibbs-SS-Noisy).

    The noisy sums are divided by n, clipped to the range x^k can take for x inside the public
    bounds, then E x^2 and E x^4 are raised just above (E x)^2 and (E x^2)^2 and E x^3 is clipped
    into the interval that makes (E x, ..., E x^4) the moments of some distribution (positive
    definite Hankel matrix).
    """
    m = np.asarray(released_sums, dtype=float) / float(n)
    if m.shape != (4,):
        raise ValueError("need the four released moment sums")
    lo, hi = float(bounds[0]), float(bounds[1])
    grid = np.array([lo, hi, 0.0]) if lo < 0 < hi else np.array([lo, hi])
    powers = grid[None, :] ** np.arange(1, 5)[:, None]  # (4, points): the range of x^k
    m = np.clip(m, powers.min(axis=1), powers.max(axis=1))
    # a valid moment sequence: the Hankel matrix [[1, m1, m2], [m1, m2, m3], [m2, m3, m4]] is
    # positive definite iff var = m2 - m1^2 > 0, m4 > m2^2 and (m3 - m1 m2)^2 < var (m4 - m2^2);
    # then some distribution of x has these moments, Sigma_t is a true covariance for every
    # (theta, sigma^2) and the sampler never has to project it. m3, the least constrained, moves.
    m[1] = max(m[1], m[0] ** 2 + 1e-8)
    m[3] = max(m[3], m[1] ** 2 + 1e-8)
    half_width = math.sqrt((m[1] - m[0] ** 2) * (m[3] - m[1] ** 2)) * (1.0 - 1e-6)
    m[2] = min(max(m[2], m[0] * m[1] - half_width), m[0] * m[1] + half_width)
    return m


# ----------------------------------------------------------------------------- the release
@dataclass(frozen=True)
class Release:
    """What the methods see of one data set: n and the bounds are public, ``s`` is not.

    - ``s``: the confidential statistics (read by Non-Private only), and ``exact_moment_sums``
      the confidential sums of x^k, k = 1..4 (read only by the non-private "exact" variant of
      Gibbs-SS-Noisy);
    - ``z = s + Lap(mechanism.scale)``: the full-budget release (Naive, MCMC-Ind,
      Gibbs-SS-Prior/Update);
    - ``z_half``: s released at half the budget (``mechanism_half``), and ``moment_sums``: the
      sums of x^k, k = 1..4, released at the other half (``mechanism_moments``) (Gibbs-SS-Noisy,
      budget split evenly as in Sec. 5.2.4.4);
    - ``clamped``: records were clamped to ``bounds`` before z, z_half and the moment sums (then
      epsilon-DP; without, as in the thesis, not when a record leaves the bounds); ``s`` stays
      that of the unclamped records (Non-Private), ``exact_moment_sums`` are clamped.
    """

    s: np.ndarray
    n: int
    z: np.ndarray
    mechanism: Laplace
    z_half: np.ndarray
    mechanism_half: Laplace
    moment_sums: np.ndarray
    mechanism_moments: Laplace
    bounds: tuple[float, float]
    exact_moment_sums: np.ndarray
    clamped: bool = False

    def noisy_moments(self) -> np.ndarray:
        """E[x^k], k = 1..4, from the released moment sums (:func:`clean_noisy_moments`)."""
        return clean_noisy_moments(self.moment_sums, self.n, self.bounds)


def release_statistics(
    rng: np.random.Generator, x, y, epsilon: float, bounds, clamp: bool = False
) -> Release:
    """The three Laplace releases of one data set, drawn in a fixed order from ``rng``: s at
    epsilon, s at epsilon/2, the moment sums at epsilon/2. Sensitivities come from the public
    bounds of x and y (Secs. 5.2.1 and 5.2.4.4); n is public and is not perturbed. ``clamp``:
    records are clamped to the bounds before the statistics are released (not in the thesis)."""
    lo, hi = float(bounds[0]), float(bounds[1])
    w = hi - lo
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    s = sufficient_statistics(x, y)
    if clamp:  # the mechanism's clamping step (no rescaling)
        x, y = (ClampRescale(lo, hi, lo, hi).apply(v) for v in (x, y))
    full = Laplace.calibrated(epsilon, sensitivity_statistics(w, w))
    half = Laplace.calibrated(epsilon / 2.0, sensitivity_statistics(w, w))
    moments = Laplace.calibrated(epsilon / 2.0, sensitivity_moments(w))
    sums = np.array([np.sum(x**k) for k in range(1, 5)])
    released = sufficient_statistics(x, y)
    z = full.release(rng, released)
    z_half = half.release(rng, released)
    return Release(
        s,
        int(len(x)),
        z,
        full,
        z_half,
        half,
        moments.release(rng, sums),
        moments,
        (lo, hi),
        sums,
        bool(clamp),
    )


# ----------------------------------------------------------------------------- NIG conjugacy
@njit(cache=True, inline="always")
def nig_update(s, n, prior, mu_n, lam_n):
    """Eq. (5.1) from s and the prior (:class:`NIGPrior`); fills mu_n (2) and lam_n (2, 2);
    returns (a_n, b_n)."""
    mu0 = prior.mu0
    lam0 = prior.lam0
    # X = [x, 1]: X'X = [[sxx, sx], [sx, n]], X'y = [sxy, sy]
    lam_n[0, 0] = s[1] + lam0[0, 0]
    lam_n[0, 1] = s[0] + lam0[0, 1]
    lam_n[1, 0] = s[0] + lam0[1, 0]
    lam_n[1, 1] = n + lam0[1, 1]
    r0 = s[3] + lam0[0, 0] * mu0[0] + lam0[0, 1] * mu0[1]
    r1 = s[2] + lam0[1, 0] * mu0[0] + lam0[1, 1] * mu0[1]
    det = lam_n[0, 0] * lam_n[1, 1] - lam_n[0, 1] * lam_n[1, 0]
    mu_n[0] = (lam_n[1, 1] * r0 - lam_n[0, 1] * r1) / det
    mu_n[1] = (lam_n[0, 0] * r1 - lam_n[1, 0] * r0) / det
    q0 = mu0[0] * (lam0[0, 0] * mu0[0] + lam0[0, 1] * mu0[1]) + mu0[1] * (
        lam0[1, 0] * mu0[0] + lam0[1, 1] * mu0[1]
    )
    qn = mu_n[0] * r0 + mu_n[1] * r1  # mu_n' Lambda_n mu_n = mu_n' r
    a_n = prior.a0 + 0.5 * n
    b_n = prior.b0 + 0.5 * (s[4] + q0 - qn)
    return a_n, b_n


@njit(cache=True, inline="always")
def nig_draw(rng, mu_n, lam_n, a_n, b_n, theta):
    """One (theta, sigma^2) ~ NIG(mu_n, lam_n, a_n, b_n); fills theta, returns sigma^2."""
    sigma2 = b_n / rng.gamma(a_n, 1.0)
    # theta = mu_n + sigma * L'^{-1} xi with lam_n = L L' (2x2 Cholesky)
    l00 = math.sqrt(lam_n[0, 0])
    l10 = lam_n[1, 0] / l00
    l11 = math.sqrt(max(lam_n[1, 1] - l10 * l10, 1e-300))
    sd = math.sqrt(sigma2)
    e0 = rng.standard_normal()
    e1 = rng.standard_normal()
    v1 = e1 / l11
    v0 = (e0 - l10 * v1) / l00
    theta[0] = mu_n[0] + sd * v0
    theta[1] = mu_n[1] + sd * v1
    return sigma2


@njit(cache=True)
def _nig_draws_kernel(rng, mu_n, lam_n, a_n, b_n, out):
    """out[k] = (theta_0, theta_1, sigma^2), independent draws of the NIG posterior (Eq. 5.1)."""
    theta = np.empty(2)
    for k in range(out.shape[0]):
        out[k, 2] = nig_draw(rng, mu_n, lam_n, a_n, b_n, theta)
        out[k, 0] = theta[0]
        out[k, 1] = theta[1]


def nig_posterior(s, n: int, prior: NIGPrior):
    """(mu_n, Lambda_n, a_n, b_n) of Eq. (5.1) from s = [sx, sxx, sy, sxy, syy] and public n."""
    s = np.asarray(s, dtype=float)
    if s.shape != (N_STATS,):
        raise ValueError(f"s must have {N_STATS} entries")
    mu_n, lam_n = np.empty(2), np.empty((2, 2))
    a_n, b_n = nig_update(s, float(n), prior, mu_n, lam_n)
    if not b_n > 0:
        raise ValueError("b_n <= 0: project the statistics first (project_statistics)")
    return mu_n, lam_n, a_n, b_n


def nig_draws(rng: np.random.Generator, s, n: int, prior: NIGPrior, size: int) -> np.ndarray:
    """``size`` draws of (theta_0, theta_1, sigma^2) from the NIG posterior given s."""
    mu_n, lam_n, a_n, b_n = nig_posterior(s, n, prior)
    out = np.empty((int(size), 3))
    _nig_draws_kernel(rng, mu_n, lam_n, a_n, b_n, out)
    return out


# ----------------------------------------------------------------------------- log prior densities
@njit(cache=True, inline="always")
def log_nig(theta0, theta1, sigma2, prior):
    """log NIG(theta, sigma^2) density up to a constant, plus log sigma^2 (Jacobian of
    log sigma^2); ``prior`` a :class:`NIGPrior`."""
    mu0 = prior.mu0
    lam0 = prior.lam0
    d0 = theta0 - mu0[0]
    d1 = theta1 - mu0[1]
    q = lam0[0, 0] * d0 * d0 + 2.0 * lam0[0, 1] * d0 * d1 + lam0[1, 1] * d1 * d1
    return -(prior.a0 + 1.0) * math.log(sigma2) - prior.b0 / sigma2 - q / (2.0 * sigma2)


@njit(cache=True, inline="always")
def log_niw(mu, tau2, data_prior):
    """log NIW(mu, tau^2) density up to a constant, plus log tau^2 (Jacobian of log tau^2);
    ``data_prior`` a :class:`NIWPrior`."""
    return (
        -(0.5 * data_prior.nu + 0.5) * math.log(tau2)
        - 0.5 * data_prior.psi / tau2
        - data_prior.kappa * (mu - data_prior.m0) ** 2 / (2.0 * tau2)
    )


# ----------------------------------------------------------------------------- PSD projection
@njit(cache=True)
def project_statistics_inplace(s, n):
    """Project s in place so A'A (A = [x, 1, y]) is PSD; returns True if s changed.

    With n > 0, A'A is PSD iff the Schur complement of n, the centred scatter matrix
    C = [[Sxx - Sx^2/n, Sxy - Sx Sy/n], [., Syy - Sy^2/n]], is PSD. C is replaced by its
    eigenvalue-clipped version (nearest PSD matrix in Frobenius norm); n, Sx, Sy are kept.
    """
    c00 = s[1] - s[0] * s[0] / n
    c01 = s[3] - s[0] * s[2] / n
    c11 = s[4] - s[2] * s[2] / n
    tr = c00 + c11
    det = c00 * c11 - c01 * c01
    if c00 >= 0.0 and c11 >= 0.0 and det >= 0.0:
        return False
    half = 0.5 * tr
    disc = math.sqrt(max(half * half - det, 0.0))
    l1 = half + disc  # larger eigenvalue
    if l1 <= 0.0:
        c00 = 0.0
        c01 = 0.0
        c11 = 0.0
    else:
        # eigenvector of l1
        if abs(c01) > 1e-300:
            v0 = l1 - c11
            v1 = c01
        elif c00 >= c11:
            v0 = 1.0
            v1 = 0.0
        else:
            v0 = 0.0
            v1 = 1.0
        nv = math.sqrt(v0 * v0 + v1 * v1)
        v0 /= nv
        v1 /= nv
        c00 = l1 * v0 * v0
        c01 = l1 * v0 * v1
        c11 = l1 * v1 * v1
    s[1] = c00 + s[0] * s[0] / n
    s[3] = c01 + s[0] * s[2] / n
    s[4] = c11 + s[2] * s[2] / n
    return True


class ChainTarget(NamedTuple):
    """What a noise-aware chain of this model conditions on, as its kernel takes it: the release
    z of n records, its Laplace scale b, the NIG prior and the NIW data prior."""

    z: np.ndarray
    n: float
    b: float
    prior: NIGPrior
    data_prior: NIWPrior


def chain_target(z, n: int, scale: float, prior: NIGPrior, data_prior: NIWPrior) -> ChainTarget:
    """The :class:`ChainTarget` of a release z of n records with Laplace scale ``scale``, after
    checking it is 5 finite statistics of n >= 1 records with a positive scale (what every
    noise-aware sampler of this model needs)."""
    z = np.asarray(z, dtype=float)
    if z.shape != (N_STATS,) or not np.all(np.isfinite(z)):
        raise ValueError("z must be 5 finite released statistics")
    if n < 1 or not scale > 0:
        raise ValueError("need n >= 1 and a positive noise scale")
    return ChainTarget(z, float(n), float(scale), prior, data_prior)


def project_statistics(s, n: int) -> np.ndarray:
    """Copy of s projected to valid sufficient statistics (:func:`project_statistics_inplace`)."""
    out = np.array(s, dtype=float)
    if out.shape != (N_STATS,) or n < 1:
        raise ValueError("s must have 5 entries and n must be positive")
    project_statistics_inplace(out, float(n))
    return out


# ----------------------------------------------------------------------------- data prior
@njit(cache=True)
def gaussian_moments_into(mu, tau2, m):
    """Raw moments E[x^k], k = 0..4, of N(mu, tau2) into m (closed form)."""
    m[0] = 1.0
    m[1] = mu
    m[2] = mu * mu + tau2
    m[3] = mu * mu * mu + 3.0 * mu * tau2
    m[4] = mu**4 + 6.0 * mu * mu * tau2 + 3.0 * tau2 * tau2


@njit(cache=True)
def _niw_params(sx, sxx, n, data_prior):
    """Scalar NIW posterior (m_n, kappa_n, psi_n, nu_n) given sum x, sum x^2 and n (n = 0: the
    prior, a :class:`NIWPrior`); the conjugate update of the data prior in Gibbs-SS-Update
    (Fig. 5.3c)."""
    m0 = data_prior.m0
    kappa = data_prior.kappa
    psi = data_prior.psi
    nu = data_prior.nu
    kn = kappa + n
    psin = psi
    if n > 0:
        psin = psi + max(sxx - sx * sx / n, 0.0) + kappa * n / kn * (sx / n - m0) ** 2
    return (kappa * m0 + sx) / kn, kn, psin, nu + n


@njit(cache=True, inline="always")
def niw_draw(rng, sx, sxx, n, data_prior):
    """(mu_x, tau^2) ~ NIW posterior given sum x, sum x^2 and n (:func:`_niw_params`)."""
    mn, kn, psin, nun = _niw_params(sx, sxx, n, data_prior)
    tau2 = 0.5 * psin / rng.gamma(0.5 * nun, 1.0)
    mu = mn + math.sqrt(tau2 / kn) * rng.standard_normal()
    return mu, tau2


@njit(cache=True, inline="always")
def nig_conjugate_draw(rng, s, n, prior, mu_n, lam_n, theta):
    """(theta, sigma^2) ~ NIG posterior given s (Eq. 5.1): fills theta, returns sigma^2;
    ``mu_n``, ``lam_n`` are scratch (left holding the posterior's mu_n, Lambda_n)."""
    a_n, b_n = nig_update(s, n, prior, mu_n, lam_n)
    return nig_draw(rng, mu_n, lam_n, a_n, b_n, theta)


@njit(cache=True)
def naive_start(rng, z, n, prior, data_prior, mu_n, lam_n, theta):
    """A chain's start: one draw of the Naive posterior, (theta, sigma^2) and (mu_x, tau^2) by the
    conjugate updates given the projected release z; fills theta, returns (sigma^2, mu_x, tau^2).
    ``mu_n``, ``lam_n`` are scratch."""
    s0 = z.copy()
    project_statistics_inplace(s0, n)
    sigma2 = nig_conjugate_draw(rng, s0, n, prior, mu_n, lam_n, theta)
    mu_x, tau2 = niw_draw(rng, s0[0], s0[1], n, data_prior)
    return sigma2, mu_x, tau2


def niw_posterior(sx: float, sxx: float, n: int, prior: NIWPrior):
    """Parameters (m_n, kappa_n, psi_n, nu_n) of the scalar NIW posterior given sum x, sum x^2."""
    return _niw_params(float(sx), float(sxx), float(n), prior)


def gaussian_moments(mu: float, tau2: float) -> np.ndarray:
    """E[x^k], k = 1..4, of N(mu, tau2)."""
    m = np.empty(5)
    gaussian_moments_into(float(mu), float(tau2), m)
    return m[1:]


def prior_predictive_moments(prior: NIWPrior) -> np.ndarray:
    """E[x^k], k = 1..4, of x ~ N(mu_x, tau^2) with (mu_x, tau^2) ~ NIW (closed form).

    tau^2 ~ InvGamma(alpha = nu/2, beta = psi/2): E tau^2 = beta/(alpha-1),
    E tau^4 = beta^2/((alpha-1)(alpha-2)); mu_x = m0 + tau u / sqrt(kappa) with u ~ N(0, 1).
    """
    al, be = prior.nu / 2.0, prior.psi / 2.0
    t2 = be / (al - 1.0)
    t4 = be * be / ((al - 1.0) * (al - 2.0))
    m0, k = prior.m0, prior.kappa
    # E[mu^j] and E[mu^j tau^2] terms, expanding x = m0 + tau (u/sqrt(k) + w), u, w ~ N(0, 1)
    v2 = 1.0 / k + 1.0  # variance factor of (u/sqrt(k) + w)
    e1 = m0
    e2 = m0**2 + v2 * t2
    e3 = m0**3 + 3.0 * m0 * v2 * t2
    e4 = m0**4 + 6.0 * m0**2 * v2 * t2 + 3.0 * v2 * v2 * t4
    return np.array([e1, e2, e3, e4])


def simulate_dataset(rng: np.random.Generator, n: int, prior: NIGPrior, data_prior: NIWPrior):
    """Draw (theta, sigma^2), (mu_x, tau^2) and a data set (x, y) of n records from the model."""
    sigma2 = prior.b0 / rng.gamma(prior.a0, 1.0)
    cov = sigma2 * np.linalg.inv(prior.lam0)
    theta = rng.multivariate_normal(prior.mu0, cov, method="cholesky")
    tau2 = 0.5 * data_prior.psi / rng.gamma(0.5 * data_prior.nu, 1.0)
    mu_x = data_prior.m0 + math.sqrt(tau2 / data_prior.kappa) * rng.standard_normal()
    x = mu_x + math.sqrt(tau2) * rng.standard_normal(n)
    y = theta[0] * x + theta[1] + math.sqrt(sigma2) * rng.standard_normal(n)
    return {"theta": theta, "sigma2": sigma2, "mu_x": mu_x, "tau2": tau2, "x": x, "y": y}


@dataclass(frozen=True)
class Problem:
    """What a sampler of this model conditions on: the release and the two priors."""

    release: Release
    prior: NIGPrior
    data_prior: NIWPrior
