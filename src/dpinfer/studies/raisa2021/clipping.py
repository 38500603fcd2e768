"""raisa2021 clipping study (Section 6.2, Fig 6.2; FACTS 3.5): non-DP random-walk Metropolis and
HMC with exact gradients whose log-likelihood ratios are clipped at bound x distance, on the flat
banana (d = 2 and 10, n = 1e5), every chain started at the true theta.

Steps (rules ``raisa2021_run_clipping_reference``, ``raisa2021_run_clipping``,
``raisa2021_summarise_clipping``): one model's reference sample and baselines; the chains of
one (sampler, dimension, bound); every setting gathered for the figure and the claims.
RWMH is DP penalty with tau = 0, HMC is DP HMC with tau_l = tau_g = 0 and unclipped gradients.
"""

from __future__ import annotations

import numpy as np

from ...io import load_npz, save_npz, write_table
from . import summarise
from .run import problem_of, reference_and_baselines, run_chains
from .settings import CLIPPING_ALGORITHMS

__all__ = [
    "model_key",
    "setting_key",
    "clipping_reference",
    "clipping_chains",
    "summarise_clipping",
]

# the DP chains' per-chain metrics (grad_clip: 0, the gradients are not clipped) and the accept
# decisions clipping reversed
PER_CHAIN = (*summarise.PER_CHAIN, "decisions_changed")


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
    rows, _ = run_chains(
        seed,
        f"clipping/{algo}/d{int(dim)}/bound{float(bound):g}",
        problem,
        [problem.theta_true] * chains,
        hyper["iterations"],
        CLIPPING_ALGORITHMS[algo],
        dict(hyper, clip_bound=float(bound), clip_rule=threshold),
        load_npz(input.reference)["reference"],
        mmd_bandwidth_pairs,
    )
    save_npz(output.chains, iterations=np.int64(hyper["iterations"]), **rows)


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
    for model, base in summarise.baseline_mmds(input.references).items():  # clipping-d<dim>
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
