"""raisa2021 clipping study (Section 6.2, Fig 6.2; FACTS 3.5): non-DP random-walk Metropolis and
HMC with exact gradients whose log-likelihood ratios are clipped at bound x distance, on the flat
banana (d = 2 and 10, n = 1e5), every chain started at the true theta.

Steps (rules ``raisa2021_run_clipping_reference``, ``raisa2021_run_clipping``,
``raisa2021_summarise_clipping``): one model's reference sample and baselines; the chains of
one (sampler, dimension, bound); every setting gathered for the figure and the claims.
RWMH is DP penalty with tau = 0, HMC is DP HMC with tau_l = tau_g = 0 and unclipped gradients.
"""

from __future__ import annotations

import logging

import numpy as np

from ...io import load_npz, save_npz, write_table
from ...methods import stream_stage
from ...seeding import rng_for
from .run import STUDY, problem_of, reference_and_baselines, run_algorithm, sample_errors
from .settings import CLIPPING_ALGORITHMS
from .summarise import baseline_mmds

__all__ = [
    "model_key",
    "setting_key",
    "clipping_reference",
    "clipping_chains",
    "summarise_clipping",
]

log = logging.getLogger("dpinfer.raisa2021")
PER_CHAIN = (
    "llr_clip",
    "acceptance",
    "decisions_changed",
    "mmd",
    "mean_error",
    "cov_error",
    "cpu_seconds",
)


def model_key(dim: int) -> str:
    """The clipping model's name: its data and reference streams are its own."""
    return f"clipping-d{int(dim)}"


def setting_key(algo: str, dim: int, bound: float) -> str:
    return f"{algo}|{int(dim)}|{float(bound)!r}"


def clipping_reference(
    input,
    output,
    seed: int,
    dim: int,
    spec: dict,
    reference_draws: int,
    baseline_samples: int,
    mmd_bandwidth_pairs: int,
) -> None:
    """The clipping model's reference sample and baseline MMDs (its own data, not easy-10d's)."""
    problem = problem_of(seed, model_key(dim), spec)
    save_npz(
        output.reference,
        n=np.int64(problem.n),
        dim=np.int64(problem.dim),
        **reference_and_baselines(
            seed, model_key(dim), problem, reference_draws, baseline_samples, mmd_bandwidth_pairs
        ),
    )


def clipping_chains(
    input,
    output,
    seed: int,
    dim: int,
    spec: dict,
    algo: str,
    bound: float,
    hyper: dict,
    chains: int,
    threshold: str,
    mmd_bandwidth_pairs: int,
) -> None:
    """``chains`` chains of one (sampler, dimension, clip bound): clipped fraction (clipped /
    n / iterations), acceptance, accept decisions the clipping reversed, and the kept second half
    against the reference (MMD, mean and covariance error)."""
    problem = problem_of(seed, model_key(dim), spec)
    ref = load_npz(input.reference)
    reference = ref["reference"]
    ref_mean, ref_cov = reference.mean(axis=0), np.atleast_2d(np.cov(reference, rowvar=False))
    setting = f"clipping/{algo}/d{int(dim)}/bound{float(bound):g}"
    rows = {k: [] for k in PER_CHAIN}
    method = CLIPPING_ALGORITHMS[algo]
    clipping = dict(hyper, clip_bound=float(bound), clip_rule=threshold)
    for i in range(chains):
        chain = run_algorithm(
            problem,
            problem.theta_true,
            hyper["iterations"],
            method,
            clipping,
            rng_for(seed, STUDY, setting, i, stream_stage(method, study=STUDY)),
        )
        errors = sample_errors(
            chain.kept,
            reference,
            ref_mean,
            ref_cov,
            mmd_bandwidth_pairs,
            rng_for(seed, STUDY, setting, i, "mmd"),
        )
        rows["llr_clip"].append(chain.info.detail.llr_clip_fraction)
        rows["acceptance"].append(chain.info.acceptance)
        rows["decisions_changed"].append(chain.info.detail.decisions_changed)
        rows["cpu_seconds"].append(chain.info.cpu_seconds)
        for k in ("mmd", "mean_error", "cov_error"):
            rows[k].append(errors[k])
        log.info(
            "%s chain %d: clipped %.4f, acceptance %.3f, %d decisions changed, MMD %.4f, %.2f s",
            setting,
            i,
            rows["llr_clip"][-1],
            chain.info.acceptance,
            rows["decisions_changed"][-1],
            errors["mmd"],
            chain.info.cpu_seconds,
        )
    save_npz(
        output.chains,
        iterations=np.int64(hyper["iterations"]),
        **{k: np.asarray(v, float) for k, v in rows.items()},
    )


def summarise_clipping(input, output, settings: list, threshold: str) -> None:
    """Every clipping setting in one record (per-chain metrics and the baselines, for Fig 6.2 and
    the claims) and one table row of medians per setting."""
    rec, rows = {}, []
    for s in settings:
        d = load_npz(s["file"])
        key = setting_key(s["algo"], s["dim"], s["bound"])
        for k in PER_CHAIN:
            rec[f"{key}/{k}"] = d[k]
        rows.append(
            {
                "sampler": s["algo"],
                "dim": int(s["dim"]),
                "clip bound": float(s["bound"]),
                "iterations": int(d["iterations"]),
                "median clipped": float(np.median(d["llr_clip"])),
                "median acceptance": float(np.median(d["acceptance"])),
                "decisions changed (total)": int(d["decisions_changed"].sum()),
                "median MMD": float(np.median(d["mmd"])),
                "max MMD": float(d["mmd"].max()),
            }
        )
    for model, base in baseline_mmds(input.references).items():  # model_key: clipping-d<dim>
        rec[f"{model.removeprefix('clipping-d')}/baseline_mmd"] = base
    rec["keys"] = np.array([setting_key(s["algo"], s["dim"], s["bound"]) for s in settings])
    rec["threshold"] = np.array(threshold)
    save_npz(output.summary, **rec)
    write_table(
        output.csv,
        output.md,
        rows,
        list(rows[0]),
        digits=4,
        title="raisa2021: clipping study, non-DP chains per (sampler, dimension, clip bound) "
        "(intermediate)",
        notes=f"Medians over the chains of a setting; clip threshold = bound x {threshold} "
        "distance between the current and proposed (or trajectory end) point; 'decisions changed' "
        "counts accept decisions that the unclipped ratio sum would have reversed (same uniform).",
    )
