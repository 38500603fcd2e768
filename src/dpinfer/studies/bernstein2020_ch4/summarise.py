"""bernstein2020 Chapter 4: merge the calibration chunks (step ``calibration_utility``).

``summary.npz`` holds, per (model, n, epsilon), the posterior quantiles U of every method and the
per-trial MMD^2 of Gibbs and Naive, under the keys of :func:`summary_key`; the figures and the
claims read it. The table ``ch4/calibration_utility.{csv,md}`` prints the KS statistic of U per
method and the mean MMD^2 (the thesis shows these only as figures 4.2 and 4.4).
"""

from __future__ import annotations

import numpy as np

from ...diagnostics import ks_critical_value, ks_uniform, unconverged
from ...grid import fmt_eps
from ...io import load_npz, save_npz, write_table
from .run import METHODS, MMD_METHODS

__all__ = ["summary_key", "cells", "calibration_utility"]


def summary_key(model: str, n: int, eps: float, what: str) -> str:
    """Key of one array of ``summary.npz``, e.g. ``binomial__n10__eps0.01__u_gibbs``."""
    return f"{model}__n{int(n)}__eps{fmt_eps(eps)}__{what}"


def cells(paths, replicates: int) -> dict[tuple[str, int, float], list[dict]]:
    """Chunk files grouped by (model, n, epsilon), sorted, each cell's chunks in replicate order.

    Refuses a cell whose chunks do not cover replicates 0..M-1 exactly once."""
    groups = {}
    for path in paths:
        d = load_npz(path)
        groups.setdefault((str(d["model"]), int(d["n"]), float(d["epsilon"])), []).append(d)
    out = {}
    for (model, n, eps), parts in sorted(groups.items()):
        parts = sorted(parts, key=lambda d: int(d["replicates"][0]))
        reps = np.concatenate([d["replicates"] for d in parts])
        if not np.array_equal(reps, np.arange(replicates)):
            raise ValueError(
                f"{model} n={n} eps={eps}: replicates {reps.min()}..{reps.max()} do not cover "
                f"0..{replicates - 1}"
            )
        out[(model, n, eps)] = parts
    return out


def calibration_utility(input, output, *, replicates, mmd_bandwidth, health):
    """Rule step: chunk files -> summary npz and the calibration/utility table (csv + md), with
    the noise-aware Gibbs chains' convergence diagnostics (largest split-chain R-hat, smallest
    bulk ESS, trials flagged by ``health``: R-hat > max_rhat or ESS < min_ess).

    Refuses chunks that do not cover replicates 0..M-1 of every setting exactly once.
    """
    arrays, rows = {}, []
    M = int(replicates)
    for (model, n, eps), parts in cells(input.runs, M).items():
        methods = [str(m) for m in parts[0]["methods"]]
        u = np.concatenate([d["u"] for d in parts], axis=1)
        mmd = np.concatenate([d["mmd"] for d in parts], axis=1)
        for i, m in enumerate(methods):
            arrays[summary_key(model, n, eps, f"u_{m}")] = u[i]
        row = {"model": model, "n": n, "epsilon": fmt_eps(eps)}
        for m in METHODS:
            row[f"ks_{m}"] = ks_uniform(u[methods.index(m)]) if m in methods else ""
        for i, m in enumerate(MMD_METHODS):
            arrays[summary_key(model, n, eps, f"mmd_{m}")] = mmd[i]
            row[f"mmd_{m}"] = float(mmd[i].mean())
        rhat = np.concatenate([d["gibbs_rhat"] for d in parts])
        ess = np.concatenate([d["gibbs_ess"] for d in parts])
        arrays[summary_key(model, n, eps, "rhat_gibbs")] = rhat
        arrays[summary_key(model, n, eps, "ess_gibbs")] = ess
        row.update(
            rhat_max_gibbs=float(rhat.max()),
            ess_min_gibbs=float(ess.min()),
            flagged_gibbs=int(unconverged(rhat, ess, **health).sum()),
        )
        rows.append(row)
    save_npz(output.summary, **arrays)
    cols = (
        ["model", "n", "epsilon"]
        + [f"ks_{m}" for m in METHODS]
        + [f"mmd_{m}" for m in MMD_METHODS]
        + ["rhat_max_gibbs", "ess_min_gibbs", "flagged_gibbs"]
    )
    notes = (
        f"KS statistic of the posterior quantiles of the true parameter over M = {M} trials "
        f"(5% critical value {ks_critical_value(M):.3f}); mean unbiased MMD^2 (bandwidth "
        f"{mmd_bandwidth}) to the non-private posterior. Noise-aware Gibbs chains (one per trial): "
        "largest split-chain R-hat, smallest bulk ESS, and trials with R-hat > "
        f"{health['max_rhat']} or ESS < {health['min_ess']:g} (flagged). The thesis reports these "
        "only as figures (4.2, 4.4): no paper values to print beside them. Timings are in the run "
        "files and benchmarks/, never in this table, so it is byte-identical across runs."
    )
    write_table(
        output.csv,
        output.md,
        rows,
        cols,
        title="bernstein2020 chapter 4: calibration and utility",
        notes=notes,
        digits=4,
    )
