"""Linear regression from released sufficient statistics when the covariates' law is unknown:
bernstein2020 chapter 5's NIG model and its noise-aware samplers (model ``nig_regression``).

The data holder clamped every covariate and the response to its public bounds, rescaled each
column onto [-1, 1] (v~ = (v - centre) / half, centre and half of its bounds) and released the
K = (p + 2)(p + 3)/2 - 1 sums of A'A, A = [x~_1, ..., x~_p, 1, y~], other than n (public), in
:func:`dpinfer.models.linreg_nig_multi.stat_pairs` order (the upper triangle of A'A row by row
without the constant's [p, p] = n), each plus Laplace or Gaussian noise. For p = 1 that is
[sum x~^2, sum x~, sum x~ y~, sum y~, sum y~^2]; for p = 2 [x1 x1, x1 x2, x1, x1 y, x2 x2, x2,
x2 y, y, y y] (sums over records of those products of the rescaled columns).
The thesis's sensitivity of these sums for records in [-1, 1] is
:func:`~dpinfer.models.linreg_nig_multi.sensitivity_p` (24 for p = 1, 40 for p = 2).

Model on the unit scale (:mod:`dpinfer.models.linreg_nig_multi`): x ~ N(mu_x, Sigma_x),
(mu_x, Sigma_x) ~ NIW(m0, kappa, psi I, nu); y | x ~ N(theta'[x, 1], sigma^2),
(theta, sigma^2) ~ NIG(mu0 1, precision I, a0, b0); the defaults are the own-data study's
(:data:`dpinfer.releases.spec.NIG_PRIOR`, :data:`~dpinfer.releases.spec.NIG_DATA_PRIOR`). As in
the own-data study the records are modelled as Gaussian without clamping (the release is
``clamped=False``: docs/deviations.md, "Releases: NIG regression").

Methods (every chain of the registry's ``nig_linreg_p`` model that needs only this release):
``mcmc_ind`` (record-wise data augmentation, 500 non-centred moves per sweep as own_data),
``gibbs_ss_update`` and ``gibbs_ss_prior`` (Gibbs over the statistics with a CLT, 8 collapsed
moves per iteration as own_data); all three take Laplace or Gaussian noise (Gibbs-SS's Laplace
mixture variances are then fixed at sigma^2). ``gibbs_ss_noisy`` needs
a second release (the moment sums of x at half the budget) and is not run. Naive: the
registry's ``naive`` (the NIG posterior of the projected release). Every draw is mapped back to
the data's units by :meth:`dpinfer.own_data.UnitScaling.to_original`; R-hat and ESS are read
there.
"""

from __future__ import annotations

import numpy as np

from ..mechanisms import Gaussian, Laplace
from ..models.linreg_nig_multi import NIWPriorP, ProblemP, ReleaseP, n_stats, nig_prior_p
from ..own_data import UnitScaling
from ..samplers.registry import sampler
from .core import Posterior, chain_rngs, converged_chains
from .spec import NIG_DATA_PRIOR, NIG_PRIOR, ReleaseError

__all__ = ["MODEL", "REGISTRY_MODEL", "METHODS", "OPTIONS", "stat_count", "nig_posteriors"]

MODEL = "nig_regression"
REGISTRY_MODEL = "nig_linreg_p"
METHODS = ("mcmc_ind", "gibbs_ss_update", "gibbs_ss_prior")
OPTIONS = {  # the own-data study's settings (config/config.yaml, own_data)
    "mcmc_ind": {"noncentred_moves": 500},
    "gibbs_ss_update": {"collapsed_moves": 8},
    "gibbs_ss_prior": {"collapsed_moves": 8},
}


def stat_count(p: int) -> int:
    """K, the released statistics of p covariates."""
    return n_stats(p)


def _covariates_of(k: int, where: str) -> int:
    """p with n_stats(p) = k; refuses a length no p gives."""
    p = 1
    while n_stats(p) < k:
        p += 1
    if n_stats(p) != k:
        raise ReleaseError(
            f"{where}: {k} released statistics; a nig_regression release of p covariates has "
            f"(p + 2)(p + 3)/2 - 1 (5 for p = 1, 9 for p = 2, 14 for p = 3)"
        )
    return p


def _scaling(bounds, p: int, where: str) -> UnitScaling:
    """The unit scaling of the p covariates' and the response's bounds (in that order)."""
    try:
        b = np.asarray(bounds, dtype=float)
    except (TypeError, ValueError):
        raise ReleaseError(f"{where}: bounds must be pairs of numbers") from None
    if b.shape != (p + 1, 2):
        raise ReleaseError(
            f"{where}: bounds needs {p + 1} pairs [lower, upper] (the {p} covariates, then the "
            f"response), got {b.shape[0] if b.ndim else 0}"
        )
    if not np.all(np.isfinite(b)) or np.any(b[:, 0] >= b[:, 1]):
        raise ReleaseError(f"{where}: every bounds pair must be finite with lower < upper")
    return UnitScaling(0.5 * (b[:, 0] + b[:, 1]), 0.5 * (b[:, 1] - b[:, 0]))


def _problem(z, n: int, p: int, mechanism, prior, data_prior, where: str) -> ProblemP:
    g = dict(NIG_PRIOR, **(prior or {}))
    d = dict(NIG_DATA_PRIOR, **(data_prior or {}))
    try:
        nig = nig_prior_p(p, g["mu0"], g["precision"], g["a0"], g["b0"])
        niw = NIWPriorP.isotropic(p, d["m0"], d["kappa"], d["psi"], d["nu"])
    except (KeyError, ValueError) as err:
        raise ReleaseError(f"{where}: prior or data_prior: {err}") from None
    # no confidential statistics and no half-budget release: NaN, so a method that would read
    # them (non_private, gibbs_ss_noisy) fails instead of using made-up values
    missing = np.full(z.shape, np.nan)
    release = ReleaseP(missing, n, p, z, mechanism, missing, mechanism, clamped=False)
    noise = "gaussian" if isinstance(mechanism, Gaussian) else "laplace"
    return ProblemP(release, nig, niw, noise)


def nig_posteriors(
    released,
    n: int,
    mechanism,
    *,
    bounds,
    prior: dict | None = None,
    data_prior: dict | None = None,
    release: str = MODEL,
    seed: int = 0,
    draws: int = 4000,
    chains: int = 4,
    keep: int = 1000,
    max_keep: int = 32_000,
    burnin: int = 1000,
) -> list[Posterior]:
    """Posteriors of (beta_1..beta_p, intercept, sigma2) in the data's units from ``released``,
    the K noisy statistics of the n records on the unit scale (module docstring), ``bounds`` the
    p + 1 public pairs [lower, upper] of the covariates, then the response, and a Laplace or
    Gaussian ``mechanism``. One :class:`Posterior` per method of :data:`METHODS`, ``chains``
    chains of ``burnin`` + ``keep`` iterations, ``keep`` doubled on the same streams up to
    ``max_keep`` until R-hat <= 1.01 and bulk ESS >= 400; ``draws`` naive draws beside each.
    ``prior`` {mu0, precision, a0, b0} and ``data_prior`` {m0, kappa, psi, nu} on the unit scale
    (missing keys: the own-data study's). Streams: :func:`~dpinfer.releases.core.chain_rngs`."""
    where = f"release {release!r}"
    if not isinstance(mechanism, (Laplace, Gaussian)):
        raise ReleaseError(
            f"{where}: the {MODEL} model's samplers take Laplace or Gaussian noise, "
            f"not {type(mechanism).__name__}"
        )
    z = np.asarray(released, dtype=float).ravel()
    if not np.all(np.isfinite(z)):
        raise ReleaseError(f"{where}: {int(np.sum(~np.isfinite(z)))} statistics are not finite")
    p = _covariates_of(z.size, where)
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ReleaseError(f"{where}: n must be a positive whole number of records")
    scaling = _scaling(bounds, p, where)
    problem = _problem(z, int(n), p, mechanism, prior, data_prior, where)
    parameters = (*(f"beta_{j + 1}" for j in range(p)), "intercept", "sigma2")

    naive_rng = chain_rngs(seed, release, "naive", 1)[0]
    unit = sampler(REGISTRY_MODEL, "naive")(problem, naive_rng, burnin=0, keep=int(draws)).kept
    naive = scaling.to_original(unit)

    out = []
    for method in METHODS:
        kept, rhat, ess, converged, k, seconds = converged_chains(
            REGISTRY_MODEL,
            method,
            problem,
            lambda method=method: chain_rngs(seed, release, method, chains),
            burnin=burnin,
            keep=keep,
            max_keep=max_keep,
            options=OPTIONS[method],
            transform=scaling.to_original,  # diagnostics on the reported (data-unit) parameters
        )
        out.append(
            Posterior(MODEL, method, parameters, kept, rhat, ess, converged, k, naive, seconds)
        )
    return out
