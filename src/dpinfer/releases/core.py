"""What every release model returns: a :class:`Posterior`, its chains extended until they pass the
diagnostics (:func:`run_until_converged`), and the per-parameter table (:func:`summary_rows`).

An analyst holds a released (privatized) statistic and the mechanism's public parameters; each
model module of this package (counts, tables, regression, nig) turns them into one ``Posterior`` per
noise-aware method, with draws of the noise-ignoring (naive) posterior beside it.

Convergence: R-hat <= ``max_rhat`` (1.01) and bulk ESS >= ``min_ess`` (400) for every parameter
(Vehtari et al. 2021, via :mod:`dpinfer.diagnostics`). Chains are rerun from the same streams with
twice as many kept draws until they pass or the cap is reached, so a longer run extends the
shorter one draw for draw and the reported draws do not depend on how often the check ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..diagnostics import bulk_ess, split_rhat, unconverged
from ..seeding import rng_for

__all__ = [
    "MAX_RHAT",
    "MIN_ESS",
    "Posterior",
    "run_until_converged",
    "Streams",
    "converged_chains",
    "iid_diagnostics",
    "chain_rngs",
    "quantile_mcse",
    "summary_rows",
]

MAX_RHAT = 1.01
MIN_ESS = 400.0


class Posterior(NamedTuple):
    """One noise-aware method's posterior of one release, with the naive posterior beside it."""

    model: str  # "binomial" | "multinomial" | "loglinear" | "linreg" | "nig_regression"
    method: str  # a name of dpinfer.methods.METHODS
    parameters: tuple[str, ...]  # parameter names, in the draws' column order
    chains: np.ndarray  # (chains, keep, n_params) kept draws of the noise-aware method
    rhat: np.ndarray  # (n_params,) split R-hat (1.0 for iid draws)
    ess: np.ndarray  # (n_params,) bulk ESS (= draws for iid draws)
    converged: bool  # rhat <= 1.01 and ess >= 400 for every parameter
    keep: int  # kept draws per chain at the end
    naive: np.ndarray  # (m, n_params) draws of the noise-ignoring posterior
    seconds: float  # CPU seconds of the noise-aware chains

    @property
    def draws(self) -> np.ndarray:
        """The pooled kept draws, (chains * keep, n_params)."""
        return self.chains.reshape(-1, self.chains.shape[2])


def _passes(rhat, ess, max_rhat: float, min_ess: float) -> bool:
    return not bool(np.any(unconverged(rhat, ess, max_rhat=max_rhat, min_ess=min_ess)))


def run_until_converged(
    run_chains: Callable[[int], np.ndarray],
    *,
    keep: int,
    max_keep: int,
    max_rhat: float = MAX_RHAT,
    min_ess: float = MIN_ESS,
):
    """run_chains(keep) -> (chains, keep, n_params) array, the same streams each call, so a
    longer call extends the shorter one (a sampler's draws for a seed are a prefix of a longer
    run's). Doubles keep until converged or keep would exceed max_keep; returns
    (chains_array, rhat, ess, converged, keep).

    R-hat is the rank-normalised split R-hat across all chains, ESS the bulk ESS of the pool
    (:func:`dpinfer.diagnostics.split_rhat`, :func:`~dpinfer.diagnostics.bulk_ess`).
    """
    keep, max_keep = int(keep), int(max_keep)
    if keep < 4 or max_keep < keep:
        raise ValueError(f"need 4 <= keep <= max_keep, got keep={keep}, max_keep={max_keep}")
    while True:
        chains = np.asarray(run_chains(keep), dtype=float)
        if chains.ndim != 3 or chains.shape[1] != keep:
            raise ValueError(
                f"run_chains({keep}) must return (chains, {keep}, n_params), got {chains.shape}"
            )
        if not np.all(np.isfinite(chains)):
            raise FloatingPointError("the chains hold non-finite draws")
        rhat, ess = split_rhat(chains), bulk_ess(chains)
        converged = _passes(rhat, ess, max_rhat, min_ess)
        if converged or 2 * keep > max_keep:
            return chains, rhat, ess, converged, keep
        keep *= 2


# a fresh list of generators, one per chain, on every call (so a longer run extends the shorter)
Streams = Callable[[], list[np.random.Generator]]


def converged_chains(
    model: str,
    method: str,
    problem,
    streams: Streams,
    *,
    burnin: int,
    keep: int,
    max_keep: int,
    options: dict | None = None,
    transform: Callable[[np.ndarray], np.ndarray] | None = None,
):
    """Chains of the registered sampler ``(model, method)`` on ``problem``, one per generator of
    ``streams()``, rerun with doubled ``keep`` until they pass or reach ``max_keep``
    (:func:`run_until_converged`). ``options``: the sampler's keywords; ``transform``: maps the
    pooled draws (draws, n_params) to the reported parameters, on which the diagnostics are read.

    Returns (chains, rhat, ess, converged, keep, seconds); seconds are the kernels' CPU seconds
    over every run, the shorter ones the doubling replaced included."""
    from ..samplers.registry import sampler

    run, spent = sampler(model, method), [0.0]

    def run_chains(k: int) -> np.ndarray:
        runs = [run(problem, rng, burnin=burnin, keep=k, **(options or {})) for rng in streams()]
        spent[0] += sum(c.info.cpu_seconds for c in runs)
        kept = np.stack([c.kept for c in runs])
        if transform is None:
            return kept
        return transform(kept.reshape(-1, kept.shape[2])).reshape(kept.shape[0], k, -1)

    chains, rhat, ess, converged, keep = run_until_converged(
        run_chains, keep=keep, max_keep=max_keep
    )
    return chains, rhat, ess, converged, keep, spent[0]


def iid_diagnostics(chains: np.ndarray, min_ess: float = MIN_ESS):
    """(rhat, ess, converged) of independent draws: R-hat 1, ESS = number of draws."""
    chains = np.asarray(chains)
    total = float(chains.shape[0] * chains.shape[1])
    rhat, ess = np.ones(chains.shape[2]), np.full(chains.shape[2], total)
    return rhat, ess, _passes(rhat, ess, MAX_RHAT, min_ess)


def chain_rngs(seed: int, release: str, method: str, chains: int) -> list[np.random.Generator]:
    """One generator per chain, from the key (seed, "releases", release name, chain, method):
    adding a chain or a method changes no other chain's draws (:mod:`dpinfer.seeding`)."""
    return [rng_for(int(seed), "releases", release, c, method) for c in range(int(chains))]


def quantile_mcse(chains: np.ndarray, prob: float) -> np.ndarray:
    """Monte Carlo standard error of the ``prob`` sample quantile, per parameter.

    Vehtari et al. (2021, Sec. 4.3): the quantile's MCSE is read on the draws' scale from the
    standard error of the indicator I(x <= q), sqrt(p (1 - p) / ESS_I), with ESS_I the bulk ESS of
    that indicator over the chains; the MCSE is half the distance between the sample quantiles at
    p -/+ that standard error. ``chains``: (chains, draws, n_params)."""
    a = np.asarray(chains, dtype=float)
    flat = a.reshape(-1, a.shape[2])
    out = np.empty(a.shape[2])
    for j in range(a.shape[2]):
        q = np.quantile(flat[:, j], prob)
        indicator = (a[:, :, j] <= q).astype(float)
        ess = float(bulk_ess(indicator)[0]) if a.shape[1] >= 4 else 1.0
        se = np.sqrt(prob * (1.0 - prob) / max(ess, 1.0))
        lo, hi = np.quantile(flat[:, j], [max(prob - se, 0.0), min(prob + se, 1.0)])
        out[j] = 0.5 * (hi - lo)
    return out


def summary_rows(posterior: Posterior, level: float = 0.9) -> list[dict]:
    """One row per parameter: posterior mean and sd, the central ``level`` interval with the
    Monte Carlo error of each end (:func:`quantile_mcse`), the naive posterior's mean and
    interval beside it, R-hat, ESS, convergence and the method."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    probs = ((1.0 - level) / 2.0, (1.0 + level) / 2.0)
    draws = posterior.draws
    lower, upper = np.quantile(draws, probs, axis=0)
    lower_mcse, upper_mcse = (quantile_mcse(posterior.chains, p) for p in probs)
    naive_lower, naive_upper = np.quantile(posterior.naive, probs, axis=0)
    mean, sd = draws.mean(axis=0), draws.std(axis=0, ddof=1)
    naive_mean = posterior.naive.mean(axis=0)
    return [
        {
            "model": posterior.model,
            "parameter": name,
            "method": posterior.method,
            "mean": float(mean[j]),
            "sd": float(sd[j]),
            "level": level,
            "lower": float(lower[j]),
            "lower_mcse": float(lower_mcse[j]),
            "upper": float(upper[j]),
            "upper_mcse": float(upper_mcse[j]),
            "naive_mean": float(naive_mean[j]),
            "naive_lower": float(naive_lower[j]),
            "naive_upper": float(naive_upper[j]),
            "rhat": float(posterior.rhat[j]),
            "ess": float(posterior.ess[j]),
            "converged": bool(posterior.converged),
            "draws": int(draws.shape[0]),
        }
        for j, name in enumerate(posterior.parameters)
    ]
