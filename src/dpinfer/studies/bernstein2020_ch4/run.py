"""bernstein2020 Chapter 4: simulate, release and sample (steps ``run_chunk`` and ``run_traces``).

One calibration trial (Section 4.4.2, after Cook et al. 2006): theta ~ prior, data ~ model, one
Laplace release; every method draws from its posterior and records U = the fraction of its
draws below the true parameter (first category for the multinomial) and, against the
non-private draws, the unbiased MMD^2 with a Gaussian kernel (Fig. 4.4). Streams per replicate:
``simulate`` (theta, data), ``release`` (noise), and one sampling stream per method, so a change
to one method never changes the data, the noise or another method's draws.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from ...diagnostics import MmdReference, bulk_ess, quantile_of_truth, split_rhat
from ...io import save_npz
from ...methods import method as table_entry
from ...methods import stream_stage
from ...models import expfam
from ...models.expfam_release import Release, release
from ...samplers.registry import sampler
from ...seeding import rng_for
from .grid import ch4_experiment

__all__ = [
    "STUDY",
    "METHODS",
    "MMD_METHODS",
    "TrialSettings",
    "methods_for",
    "trial",
    "run_trials",
    "run_chunk",
    "run_traces",
    "call_settings",
    "thin_to",
]

STUDY = "bernstein2020"
# Method names of the tables and figures (Section 4.4.1), in column order.
METHODS = ("gibbs", "naive", "ops", "non_private")
MMD_METHODS = ("gibbs", "naive")
UNIT = "bernstein2020_ch4"  # the study unit whose seed streams dpinfer.methods may override
log = logging.getLogger("dpinfer.bernstein2020_ch4")


@dataclass(frozen=True)
class TrialSettings:
    """What one calibration trial reads from config section ``bernstein2020.chapter4``:
    ``iterations`` (kept draws) and ``burnin`` of every chain, the MMD^2 settings, the model's
    own block (``binomial``, ``multinomial`` or ``exponential``) and, for the binomial, ``ops``."""

    iterations: int
    burnin: int
    mmd_draws: int
    mmd_bandwidth: float
    model: dict = field(default_factory=dict)
    ops: dict | None = None

    @classmethod
    def from_section(cls, ch4: dict, model: str) -> TrialSettings:
        return cls(
            int(ch4["iterations"]),
            int(ch4["burnin"]),
            int(ch4["mmd_draws"]),
            float(ch4["mmd_bandwidth"]),
            dict(ch4[model]),
            dict(ch4["ops"]) if model == "binomial" else None,
        )


def methods_for(model: str) -> tuple[str, ...]:
    """Methods run on a model: OPS only for the binomial (Section 4.4.1)."""
    return METHODS if model == "binomial" else tuple(m for m in METHODS if m != "ops")


def thin_to(draws: np.ndarray, m: int) -> np.ndarray:
    """Every k-th draw, k = len // m, cut to m (the thesis's thinning for the MMD^2)."""
    step = max(1, draws.shape[0] // m)
    return draws[::step][:m]


def call_settings(
    model: str, method: str, rel: Release, settings: TrialSettings
) -> tuple[int, dict]:
    """``keep`` and the keyword settings of one method's run call."""
    if method == "ops":  # OPS releases ``samples`` iid draws
        return int(settings.ops["samples"]), dict(
            burnin=0,
            support_lower=float(settings.ops["support_lower"]),
            tempering=settings.ops["tempering"],
        )
    if table_entry(method).iid:  # conjugate draws
        return settings.iterations, dict(burnin=0)
    kw = dict(rel.gibbs_settings, burnin=settings.burnin)
    if model == "exponential":
        kw["thin"] = int(settings.model["thin"])
    return settings.iterations, kw


def trial(
    model: str, n: int, epsilon: float, replicate: int, settings: TrialSettings, seed: int
) -> dict:
    """Run every method of one calibration trial; return U per method, MMD^2, truth and timing."""
    experiment = ch4_experiment(model, n, epsilon)

    def rng(stage):
        return rng_for(seed, STUDY, experiment, replicate, stage)

    rel = release(model, n, epsilon, settings.model, rng("simulate"), rng("release"))
    chains = {}
    for method in methods_for(model):
        run = sampler(model, method)
        keep, kw = call_settings(model, method, rel, settings)
        problem = expfam.Problem(rel.statistics[method], n, rel.prior, rel.mechanism)
        chains[method] = run(problem, rng(stream_stage(method, study=UNIT)), keep=keep, **kw)
    draws = {m: c.kept for m, c in chains.items()}
    u = {m: float(quantile_of_truth(draws[m][:, 0], rel.truth)[0]) for m in draws}
    ref = MmdReference.of(thin_to(draws["non_private"], settings.mmd_draws), settings.mmd_bandwidth)
    mmd = {m: ref.mmd2(thin_to(draws[m], settings.mmd_draws)) for m in MMD_METHODS}
    gibbs = draws["gibbs"][None]  # one chain: split-chain R-hat
    return {
        "u": u,
        "mmd": mmd,
        "truth": rel.truth,
        "gibbs_cpu": float(chains["gibbs"].info.cpu_seconds),
        "gibbs_rhat": float(split_rhat(gibbs).max()),
        "gibbs_ess": float(bulk_ess(gibbs).min()),
    }


def run_trials(
    model: str, n: int, epsilon: float, replicates, settings: TrialSettings, seed: int
) -> dict:
    """Arrays over a set of replicates: u (methods x reps), mmd (MMD methods x reps), truth, cpu."""
    reps = list(replicates)
    methods = methods_for(model)
    rows = [trial(model, n, epsilon, r, settings, seed) for r in reps]
    per_trial = ("truth", "gibbs_cpu", "gibbs_rhat", "gibbs_ess")
    return {
        "methods": np.array(methods),
        "mmd_methods": np.array(MMD_METHODS),
        "u": np.array([[row["u"][m] for row in rows] for m in methods], dtype=float),
        "mmd": np.array([[row["mmd"][m] for row in rows] for m in MMD_METHODS], dtype=float),
        **{k: np.array([row[k] for row in rows], dtype=float) for k in per_trial},
        "replicates": np.array(reps, dtype=np.int64),
        "gibbs_iterations": np.int64(settings.iterations + settings.burnin),
    }


def run_chunk(
    input,
    output,
    *,
    seed,
    model,
    n,
    epsilon,
    replicates,
    iterations,
    burnin,
    mmd_draws,
    mmd_bandwidth,
    settings,
    ops=None,
):
    """Rule step: calibration trials ``replicates`` = [start, stop) of one
    (model, n, epsilon) -> npz.

    ``settings`` is the model's config block; ``ops`` the OPS block (binomial only).
    """
    n, epsilon = int(n), float(epsilon)
    start, stop = (int(v) for v in replicates)
    trial_settings = TrialSettings(
        int(iterations),
        int(burnin),
        int(mmd_draws),
        float(mmd_bandwidth),
        dict(settings),
        dict(ops) if ops else None,
    )
    log.info("%s n=%d eps=%s replicates %d..%d", model, n, epsilon, start, stop - 1)
    res = run_trials(model, n, epsilon, range(start, stop), trial_settings, int(seed))
    save_npz(output.runs, model=np.array(model), n=np.int64(n), epsilon=np.float64(epsilon), **res)


def run_traces(input, output, *, seed, trace, binomial, exponential):
    """Rule step: fig B.1 chains (Appendix B.5), binomial and exponential, started from the
    prior and stored from the first iteration (no burn-in), each on its own data set."""
    n, eps, iters, chains = (
        int(trace["n"]),
        float(trace["epsilon"]),
        int(trace["iterations"]),
        int(trace["chains"]),
    )
    out = {}
    for model, settings in (("binomial", binomial), ("exponential", exponential)):
        tr = np.empty((chains, iters))
        truth = np.empty(chains)
        for c in range(chains):

            def rng(stage):
                return rng_for(int(seed), STUDY, f"ch4_trace_{model}", c, stage)

            rel = release(model, n, eps, settings, rng("simulate"), rng("release"))
            kw = dict(rel.gibbs_settings, init="prior") if model == "exponential" else {}
            run = sampler(model, "gibbs")
            problem = expfam.Problem(rel.statistics["gibbs"], n, rel.prior, rel.mechanism)
            chain = run(problem, rng(stream_stage("gibbs", study=UNIT)), burnin=0, keep=iters, **kw)
            tr[c] = chain.draws[:, 0]
            truth[c] = rel.truth
        out[f"{model}_trace"] = tr
        out[f"{model}_truth"] = truth
    save_npz(output.traces, n=np.int64(n), epsilon=np.float64(eps), **out)
