"""Chapter 5's records of Bayesian linear regression with one covariate (bernstein2020, Ch. 5):
the priors, the release of a simulated data set and the problem a sampler conditions on.

Model (one covariate plus an intercept, as in the thesis's experiments): x ~ p(x),
y | x ~ N(theta_0 x + theta_1, sigma^2), theta = [slope, intercept], and
(theta, sigma^2) ~ NIG(mu0, Lambda0, a0, b0) with Lambda0 a *precision*:
theta | sigma^2 ~ N(mu0, sigma^2 Lambda0^{-1}), sigma^2 ~ InvGamma(a0, b0); the hierarchical
normal data prior x ~ N(mu_x, tau^2), (mu_x, tau^2) ~ NIW(m0, kappa, psi, nu) (Fig. 5.3).
The statistics are kept as the 5-vector of the distinct non-constant entries of
[X'X, X'y, y'y] with X = [x, 1]:

    s = [sum x, sum x^2, sum y, sum x y, sum y^2]      (n = sum 1 is public)

Every method of this model (registry model ``"nig_linreg"``: ``non_private``, ``naive``,
``mcmc_ind``, ``gibbs_ss_noisy``, ``gibbs_ss_prior``, ``gibbs_ss_update``) is called as
``run(problem, rng, *, burnin, keep, **options)`` with :class:`Problem` and returns draws of
(theta_0 = slope, theta_1 = intercept, sigma^2), burn-in rows first. The samplers are written
for p covariates (:mod:`dpinfer.models.linreg_nig_multi`) and read this problem as their p = 1
case (:func:`~dpinfer.models.linreg_nig_multi.as_p`); the conjugate update (Eq. 5.1), the
projection (Sec. 5.2.4.3) and the CLT moments (Eqs. 5.2-5.3) are theirs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..mechanisms import ClampRescale, Laplace

__all__ = [
    "Problem",
    "NIGPrior",
    "NIWPrior",
    "Release",
    "release_statistics",
    "sufficient_statistics",
    "sensitivity_statistics",
    "sensitivity_moments",
    "simulate_dataset",
]


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
