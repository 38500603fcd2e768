"""The one method table of the NIG linear-regression model (bernstein2020 Chapter 5 and its
social-mobility case study): method names and display labels, and :func:`run_chain`, which runs
one method's chain spec on one release.

A chain spec is built from a config section by :func:`dpinfer.grid.nig_chain_spec` (pure
Python, so rule files can build it): ``{"method", "burnin", "keep", "chains", "options"}``.
Every method is looked up in the sampler registry (model ``nig_linreg``) and called with the
model's one signature ``run(release, prior, data_prior, rng, *, burnin, keep, **options)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..diagnostics import bulk_ess, split_rhat
from ..plotting.methods import method_label
from ..samplers.base import CpuTimer
from ..samplers.registry import sampler

__all__ = ["MODEL", "METHODS", "NOISE_AWARE", "CONJUGATE", "LABELS", "run_chain", "thin"]

MODEL = "nig_linreg"
METHODS = ("non_private", "naive", "mcmc_ind", "gibbs_ss_noisy", "gibbs_ss_prior", "gibbs_ss_update")
NOISE_AWARE = ("mcmc_ind", "gibbs_ss_noisy", "gibbs_ss_prior", "gibbs_ss_update")
CONJUGATE = ("non_private", "naive")
LABELS = {m: method_label(m) for m in METHODS}  # the one label map: dpinfer.plotting.methods


def run_chain(spec: dict, release, prior, data_prior, stream: Callable[[str], np.random.Generator]):
    """Pooled kept draws, per-parameter R-hat and bulk ESS, CPU seconds and iterations (both
    summed over chains) of one method's ``spec`` on one release.

    ``stream(stage)`` gives the generator of a random stream: chain c draws from
    ``sample_<method>`` (c = 0) or ``sample_<method>_chain<c>``, so adding or dropping a method
    changes no other method's numbers. Several chains: their kept draws are pooled, with the
    rank-normalised R-hat across them and the bulk ESS of the pool; one chain gets split-chain
    R-hat. Conjugate methods draw independently: R-hat 1 and ESS = draws. ``spec["diagnostic_draws"]``
    (optional): R-hat and ESS read each chain thinned evenly to at most that many draws, which
    is cheaper and does not raise the ESS (up to estimation noise) (docs/deviations.md, "Case study: chain lengths")."""
    method, chains = spec["method"], int(spec.get("chains", 1))
    run = sampler(MODEL, method)
    kept, cpu, iterations = [], 0.0, 0
    for c in range(chains):
        rng = stream(f"sample_{method}" + (f"_chain{c}" if c else ""))
        with CpuTimer() as timer:
            chain = run(release, prior, data_prior, rng, burnin=spec["burnin"], keep=spec["keep"],
                        **spec.get("options", {}))
        cpu += timer.seconds
        iterations += chain.info.iterations
        kept.append(chain.kept)
    draws = np.concatenate(kept)
    if not np.all(np.isfinite(draws)):
        raise FloatingPointError(f"{method} produced non-finite draws")
    if method in CONJUGATE:
        rhat, ess = np.ones(draws.shape[1]), np.full(draws.shape[1], float(draws.shape[0]))
    else:
        cap = spec.get("diagnostic_draws")
        stacked = np.stack([thin(k, int(cap)) for k in kept] if cap else kept)
        rhat, ess = split_rhat(stacked), bulk_ess(stacked)
    return draws, rhat, ess, cpu, iterations


def thin(draws: np.ndarray, m: int) -> np.ndarray:
    """m draws evenly spaced over the chain (all of them if there are fewer)."""
    if draws.shape[0] <= m:
        return draws
    idx = np.linspace(0, draws.shape[0] - 1, m).round().astype(int)
    return draws[idx]
