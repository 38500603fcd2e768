"""Linear regression from released sufficient statistics (ju2022, Sec. 5).

The model: x ~ N_p(m, Sigma), y | x ~ N((1, x)'beta, sigma^2), beta ~ N(0, tau^2 I), with m,
Sigma and sigma^2 known (:class:`RegressionModel`; ju2022 takes them as known, and tau = 2).
The mechanism clamps every covariate and the response to [a, b] (``clamp``, one pair for all),
rescales to [-1, 1], and adds Laplace (ju2022) or Gaussian noise to the d statistics of the n
rescaled records, in
:func:`dpinfer.models.gaussian_linreg.stat_labels` order:

    x~'y~ (p + 1 entries, the first the sum of y~), y~'y~, then the upper triangle of x~'x~
    row by row without its [0, 0] entry (which is n).

The noise-aware posterior of beta is ju2022's Algorithm 1
(:func:`dpinfer.samplers.data_augmentation.run_linreg`, method ``record_wise``), with
``noncentred_moves`` non-centred moves of beta per sweep (10 by default, as the ju2022 study's
converged companion: without them the chains need far more sweeps), on chains extended until
they pass the diagnostics (:func:`dpinfer.releases.core.converged_chains`). ju2022 calibrates
the Laplace scale as Delta / epsilon with the printed Delta = p^2 + 3p + 3 (13 for p = 2).
The discrete mechanisms are refused: they add integer noise to integer statistics, and these
statistics are real numbers, so no latent data set is consistent with such a release.

Naive (noise-ignoring) posterior: the conjugate posterior of supplement S-5 (what
:func:`dpinfer.models.gaussian_linreg.conjugate_posterior` computes from X and y, the ju2022
study's non-private reference), with the released statistics taken as exact: mapped back from
[-1, 1] to the data's scale (as if nothing had been clamped), X'X replaced by its nearest
positive semi-definite matrix when the noise made it indefinite, and the same N(0, tau^2 I) prior
as the only regularisation.

Worked example (:func:`dpinfer.releases.formats.regression_from_ju2022`): the one release the
ju2022 authors shipped,
``config/data/ju2022/linearregression_sdpfixxy_N100p2noiselevel1iexp1.json``: objects
``sdp_T1`` = x~'y~ (p + 1), ``sdp_T2`` = y~'y~, ``sdp_T3`` = x~'x~ ((p + 1, p + 1), symmetric,
mirrored entries sharing one noise draw, [0][0] = n exactly), ``eps`` (10) and ``deltaa`` (the
sensitivity, 13); clamp [-10, 10] and m, Sigma, sigma^2 from the authors'
``linearregression_datageneratingparam_N100p2.json`` (m_star, Sigma_star, sigma2_star).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..mechanisms import ClampRescale, Gaussian, Laplace
from ..models import gaussian_linreg
from .core import Posterior, Streams, chain_rngs, converged_chains
from .tables import METHOD, noise_law

__all__ = [
    "RegressionError",
    "RegressionModel",
    "gram_of",
    "naive_posterior",
    "linreg_posterior",
]


class RegressionError(ValueError):
    """A regression release the model cannot take; the message names the release, never a
    value."""


class RegressionModel(NamedTuple):
    """What the model takes as known: the covariates' mean (p,) and covariance (p, p), the
    residual variance, and the prior sd of each coefficient (ju2022: 2)."""

    mean_x: np.ndarray
    cov_x: np.ndarray
    sigma2: float
    tau: float = 2.0


def gram_of(statistics, n_records: int, p: int) -> tuple[np.ndarray, np.ndarray]:
    """(x~'x~ (p+1, p+1) with [0, 0] = n, x~'y~ (p+1,)) from statistics in stat_labels order."""
    s = np.asarray(statistics, dtype=float)
    q = p + 1
    xy = s[:q]
    xx = np.empty((q, q))
    upper = [(j, k) for j in range(q) for k in range(j, q) if (j, k) != (0, 0)]
    xx[0, 0] = n_records
    for value, (j, k) in zip(s[q + 1 :], upper, strict=True):
        xx[j, k] = xx[k, j] = value
    return xx, xy


def naive_posterior(
    statistics, n_records: int, p: int, clamp, model: RegressionModel
) -> tuple[np.ndarray, np.ndarray]:
    """(mean (p+1,), covariance) of the naive posterior of beta (module docstring)."""
    xx_t, xy_t = gram_of(statistics, n_records, p)
    # x~ = offset + slope x on each rescaled column: undo it on the Gram matrix
    unit = ClampRescale(*clamp)
    slope = 2.0 / (unit.upper - unit.lower)
    offset = -(unit.upper + unit.lower) / (unit.upper - unit.lower)
    back = np.eye(p + 1) / slope  # X = X~ back, the intercept column kept
    back[0, 0] = 1.0
    back[0, 1:] = -offset / slope
    xx = back.T @ xx_t @ back
    xy = back.T @ (xy_t - offset * xx_t[:, 0]) / slope
    w, v = np.linalg.eigh(xx)
    if w[0] < 0.0:  # nearest PSD matrix in Frobenius norm
        xx = (v * np.clip(w, 0.0, None)) @ v.T
    prec = xx / model.sigma2 + np.eye(p + 1) / model.tau**2
    cov = np.linalg.inv(prec)
    return cov @ xy / model.sigma2, cov


def _checked(statistics, mechanism, n_records, clamp, model, where) -> tuple:
    """(statistics, p, clamp) after checking the release against the model; messages name
    ``where`` and counts, never a value."""
    s = np.asarray(statistics, dtype=float)
    mean_x = np.asarray(model.mean_x, dtype=float)
    p = mean_x.size
    d = gaussian_linreg.stat_dim(p)
    if s.shape != (d,):
        raise RegressionError(f"{where}: {s.size} statistics given, {d} needed for p = {p}")
    if not np.all(np.isfinite(s)):
        raise RegressionError(f"{where}: {int(np.sum(~np.isfinite(s)))} statistics not finite")
    if np.asarray(model.cov_x).shape != (p, p):
        raise RegressionError(f"{where}: cov_x must be ({p}, {p})")
    if not isinstance(mechanism, (Laplace, Gaussian)):
        raise RegressionError(
            f"{where}: the regression sampler takes a Laplace or Gaussian mechanism "
            f"(the statistics are not integers), not {type(mechanism).__name__}"
        )
    if int(n_records) != n_records or n_records < 1:
        raise RegressionError(f"{where}: n_records must be a positive integer")
    lo, hi = (float(b) for b in clamp)
    if not lo < hi:
        raise RegressionError(f"{where}: clamp bounds must satisfy lower < upper")
    return s, p, (lo, hi)


def linreg_posterior(
    statistics,
    mechanism,
    *,
    n_records: int,
    clamp,
    model: RegressionModel,
    name: str,
    seed: int,
    chains: int = 4,
    burnin: int = 1000,
    keep: int = 1000,
    max_keep: int = 32_000,
    noncentred_moves: int = 10,
    naive_draws: int = 4000,
    streams: Streams | None = None,
) -> Posterior:
    """The posterior of beta (intercept first) given the released ``statistics`` (module
    docstring's order, on the rescaled scale) of ``n_records`` records clamped to ``clamp`` =
    (a, b), under a Laplace or Gaussian ``mechanism``, in ``model``.

    ``chains`` chains of ``burnin`` + ``keep`` sweeps, ``keep`` doubled up to ``max_keep`` until
    R-hat <= 1.01 and bulk ESS >= 400. Streams: one generator per chain from (``seed``, release
    ``name``, method, chain), or ``streams`` (a test runs the ju2022 study's). ``naive_draws``
    iid draws of the naive posterior on the stream of method ``naive``.
    """
    where = f"release {name!r}"
    s, p, clamp = _checked(statistics, mechanism, n_records, clamp, model, where)
    noise, scale = noise_law(mechanism, s, where)
    problem = gaussian_linreg.Problem(
        s,
        scale,
        np.asarray(model.mean_x, float),
        np.asarray(model.cov_x, float),
        float(model.sigma2),
        float(model.tau),
        clamp,
        int(n_records),
        noise,
    )
    if streams is None:
        streams = lambda: chain_rngs(seed, name, METHOD, chains)  # noqa: E731
    draws, rhat, ess, converged, keep, seconds = converged_chains(
        "linreg",
        METHOD,
        problem,
        streams,
        burnin=burnin,
        keep=keep,
        max_keep=max_keep,
        options={"noncentred_moves": int(noncentred_moves)},
    )
    mean, cov = naive_posterior(s, int(n_records), p, clamp, model)
    rng = chain_rngs(seed, name, "naive", 1)[0]
    naive = rng.multivariate_normal(mean, cov, size=int(naive_draws), method="cholesky")
    return Posterior(
        model="linreg",
        method=METHOD,
        parameters=tuple(f"beta[{j}]" for j in range(p + 1)),
        chains=draws,
        rhat=rhat,
        ess=ess,
        converged=converged,
        keep=keep,
        naive=naive,
        seconds=seconds,
    )
