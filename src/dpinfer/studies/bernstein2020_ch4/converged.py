"""bernstein2020 Chapter 4: the converged companion of the noise-aware Gibbs chains (issue 33).

At the thesis's lengths (2000 burn-in, 5000 kept) the diagnostics flag Gibbs chains in some
cells (mostly n = 1000, epsilon = 0.01). The companion reruns each calibration trial with the
same data and release (the original ``simulate`` and ``release`` streams), the same non-private
draws (its stream and count), and ``chains`` longer Gibbs chains of the same kernel: chain 0 on
the original ``sample_gibbs`` stream (its first kept draws are the original chain's), chain c on
``sample_gibbs_chain<c>``. No move is added: the kernel draws s from the CLT normal and theta from
its conjugate update, so its stationary law is defined by the kernel itself, and a move aimed at
the exact posterior would change it (docs/deviations.md, "Ch. 4: converged companion").

Steps: ``run_chunk`` (trials [start, stop) of one cell) and ``summarise`` (the cells' arrays under
the keys of :func:`.summarise.summary_key`, and a table of how many trials pass).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from ...diagnostics import MmdReference, passing_share, quantile_of_truth
from ...grid import fmt_eps
from ...io import save_npz, write_table
from ...methods import stream_stage
from ...models import expfam
from ...models.expfam_release import release
from ...proportions import wilson_interval
from ...samplers.pooled import run_pooled
from ...samplers.registry import sampler
from ...seeding import rng_for
from .grid import ch4_experiment
from .run import STUDY, UNIT, TrialSettings, call_settings, thin_to
from .summarise import cells, summary_key

__all__ = ["CompanionSettings", "companion_trial", "run_chunk", "summarise"]

log = logging.getLogger("dpinfer.bernstein2020_ch4")


@dataclass(frozen=True)
class CompanionSettings:
    """The companion's chains (config ``chapter4.converged``): ``chains`` per trial, ``burnin``
    and the model's ``keep`` (kept draws per chain, after the exponential chain's thinning)."""

    chains: int
    burnin: int
    keep: int


def companion_trial(
    model: str,
    n: int,
    epsilon: float,
    replicate: int,
    trial: TrialSettings,
    companion: CompanionSettings,
    seed: int,
) -> dict:
    """One calibration trial with converged Gibbs chains: U of the pooled draws, their MMD^2 to
    the (original) non-private draws, R-hat and bulk ESS over the chains, and CPU seconds."""

    def rng(stage):
        return rng_for(seed, STUDY, ch4_experiment(model, n, epsilon), replicate, stage)

    rel = release(model, n, epsilon, trial.model, rng("simulate"), rng("release"))
    keep, kw = call_settings(model, "non_private", rel, trial)
    exact = expfam.Problem(rel.statistics["non_private"], n, rel.prior, rel.mechanism)
    reference = sampler(model, "non_private")(
        exact, rng(stream_stage("non_private", study=UNIT)), keep=keep, **kw
    ).kept
    _, kw = call_settings(model, "gibbs", rel, trial)
    kw["burnin"] = companion.burnin
    problem = expfam.Problem(rel.statistics["gibbs"], n, rel.prior, rel.mechanism)
    run = sampler(model, "gibbs")
    pooled = run_pooled(
        lambda r: run(problem, r, keep=companion.keep, **kw),
        "gibbs",
        companion.chains,
        rng,
        study=UNIT,
    )
    ref = MmdReference.of(thin_to(reference, trial.mmd_draws), trial.mmd_bandwidth)
    return {
        "u": float(quantile_of_truth(pooled.draws[:, 0], rel.truth)[0]),
        "mmd": ref.mmd2(thin_to(pooled.draws, trial.mmd_draws)),
        "rhat": float(pooled.rhat.max()),
        "ess": float(pooled.ess.min()),
        "cpu": pooled.cpu,
    }


def run_chunk(input, output, *, seed, model, n, epsilon, replicates, trial, converged):
    """Rule step: companion trials ``replicates`` = [start, stop) of one (model, n, epsilon).

    ``trial``: the original chunk's settings (iterations, burnin, mmd_draws, mmd_bandwidth, the
    model's block), so the release and the non-private draws are the original's; ``converged``:
    the companion's chains for this model (``chains``, ``burnin``, ``keep``)."""
    n, epsilon = int(n), float(epsilon)
    start, stop = (int(v) for v in replicates)
    settings = TrialSettings(
        int(trial["iterations"]),
        int(trial["burnin"]),
        int(trial["mmd_draws"]),
        float(trial["mmd_bandwidth"]),
        dict(trial["model"]),
    )
    companion = CompanionSettings(
        int(converged["chains"]), int(converged["burnin"]), int(converged["keep"])
    )
    log.info(
        "converged companion %s n=%d eps=%s replicates %d..%d (%d chains x %d kept)",
        model,
        n,
        epsilon,
        start,
        stop - 1,
        companion.chains,
        companion.keep,
    )
    rows = [
        companion_trial(model, n, epsilon, r, settings, companion, int(seed))
        for r in range(start, stop)
    ]
    save_npz(
        output.runs,
        model=np.array(model),
        n=np.int64(n),
        epsilon=np.float64(epsilon),
        replicates=np.arange(start, stop, dtype=np.int64),
        **{k: np.array([r[k] for r in rows]) for k in ("u", "mmd", "rhat", "ess", "cpu")},
    )


def summarise(input, output, *, replicates, converged):
    """Rule step: companion chunks -> ``converged/summary.npz`` (keys ``u_gibbs``, ``mmd_gibbs``,
    ``rhat_gibbs``, ``ess_gibbs`` of :func:`.summarise.summary_key`, the keys the claims read) and
    a table of the trials that pass ``converged.health`` per cell."""
    M, health = int(replicates), converged["health"]
    arrays, rows = {}, []
    for (model, n, eps), parts in cells(input.runs, M).items():
        col = {k: np.concatenate([d[k] for d in parts]) for k in ("u", "mmd", "rhat", "ess", "cpu")}
        for k in ("u", "mmd", "rhat", "ess"):
            arrays[summary_key(model, n, eps, f"{k}_gibbs")] = col[k]
        share = passing_share(col["rhat"], col["ess"], health)
        lo, hi = wilson_interval(round(share * col["rhat"].size), col["rhat"].size)
        rows.append(
            {
                "model": model,
                "n": n,
                "epsilon": fmt_eps(eps),
                "chains": int(converged["chains"]),
                "keep": int(converged["keep"][model]),
                "rhat_max": float(col["rhat"].max()),
                "ess_min": float(col["ess"].min()),
                "passing": share,
                "passing_lo": lo,
                "passing_hi": hi,
                "meets_target": share >= float(health["min_passing"]),
            }
        )
    save_npz(output.summary, **arrays)
    write_table(
        output.csv,
        output.md,
        rows,
        list(rows[0]) if rows else ["model", "n", "epsilon"],
        title="bernstein2020 chapter 4: converged companion of the noise-aware Gibbs chains",
        notes=(
            f"Per (model, n, epsilon): {M} trials, each with {converged['chains']} chains of "
            f"{converged['burnin']} burn-in and `keep` kept draws (same data, release and "
            "non-private draws as the thesis-length run). passing: share of trials with R-hat <= "
            f"{health['max_rhat']} and bulk ESS >= {health['min_ess']:g} over the pooled chains, "
            "with its 95% Wilson interval [passing_lo, passing_hi]; meets_target: passing >= "
            f"{health['min_passing']}. The lengths were chosen by a pilot so that the chains "
            "pass: this table checks that choice."
        ),
        digits=4,
    )
