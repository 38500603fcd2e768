"""Several chains of one method on one release, pooled, with the diagnostics behind every number.

:func:`run_pooled` runs a method's ``run_one(rng) -> Chain`` once per chain, each from its own
random stream, and returns the pooled kept draws, per-parameter R-hat and bulk ESS, and the CPU
seconds and iterations summed over chains. Several chains: the rank-normalised R-hat across
them and the bulk ESS of the pool; one chain: split-chain R-hat. Independent draws (``iid``,
conjugate or exact samplers): R-hat 1 and ESS = draws. Every study that pools chains uses it
(the NIG method table :mod:`dpinfer.studies.nig_methods`, the comparison study).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..diagnostics import bulk_ess, split_rhat
from ..methods import stream_stage
from .base import Chain, CpuTimer

__all__ = ["Pooled", "run_pooled", "thin"]


@dataclass(frozen=True)
class Pooled:
    """Pooled kept draws (draws x parameters), per-parameter R-hat and bulk ESS, CPU seconds and
    iterations summed over the chains."""

    draws: np.ndarray
    rhat: np.ndarray
    ess: np.ndarray
    cpu: float
    iterations: int

    def astuple(self):
        return self.draws, self.rhat, self.ess, self.cpu, self.iterations


def run_pooled(
    run_one: Callable[[np.random.Generator], Chain],
    method: str,
    chains: int,
    stream: Callable[[str], np.random.Generator],
    *,
    iid: bool = False,
    diagnostic_draws: int | None = None,
    study: str | None = None,
) -> Pooled:
    """``chains`` runs of ``run_one``, chain c on ``stream(stream_stage(method, c))`` (the stage
    :func:`dpinfer.methods.stream_stage` gives, for ``study`` when a study renames the stream),
    pooled.

    ``diagnostic_draws``: R-hat and ESS read each chain thinned evenly to at most that many
    draws (cheaper; the ESS does not rise, up to estimation noise). Non-finite draws raise."""
    kept, cpu, iterations = [], 0.0, 0
    for c in range(int(chains)):
        rng = stream(stream_stage(method, c, study))
        with CpuTimer() as timer:
            chain = run_one(rng)
        cpu += timer.seconds
        iterations += chain.info.iterations
        kept.append(chain.kept)
    draws = np.concatenate(kept)
    if not np.all(np.isfinite(draws)):
        raise FloatingPointError(f"{method} produced non-finite draws")
    if iid:
        rhat, ess = np.ones(draws.shape[1]), np.full(draws.shape[1], float(draws.shape[0]))
    else:
        stacked = np.stack(
            [thin(k, int(diagnostic_draws)) for k in kept] if diagnostic_draws else kept
        )
        rhat, ess = split_rhat(stacked), bulk_ess(stacked)
    return Pooled(draws, rhat, ess, cpu, iterations)


def thin(draws: np.ndarray, m: int) -> np.ndarray:
    """m draws evenly spaced over the chain (all of them if there are fewer)."""
    if draws.shape[0] <= m:
        return draws
    idx = np.linspace(0, draws.shape[0] - 1, m).round().astype(int)
    return draws[idx]
