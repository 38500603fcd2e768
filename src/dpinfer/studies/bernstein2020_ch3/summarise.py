"""bernstein2020 Chapter 3: merge the cell files (step ``summarise``).

``summary.npz`` holds every array of every cell file under ``<figure>__<cell>__<name>`` and the
wifi data's description under ``wifi__<name>``; the figures and the claims read only it. The
table ``ch3/summary.{csv,md}`` prints per (figure, cell, method) the mean KL divergence from the
true model (holdout log-likelihood for fig3_6) with its standard error over the trials, the mean
MSE of the learned marginals and the share of fits whose optimiser converged (with its Wilson
interval). The thesis prints
no numbers for these figures. CPU times are in ``ch3/runtime.{csv,md}``, never in the summary,
so the summary is byte-identical across runs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...io import load_npz, save_npz, write_table
from ...proportions import format_interval

__all__ = ["summary_key", "cell_array", "mean_se", "summarise"]


def summary_key(figure: str, cell: str, name: str) -> str:
    return f"{figure}__{cell}__{name}"


def cell_array(d: dict, figure: str, cell: str, name: str) -> np.ndarray:
    """One array of a cell in the summary (a NaN where the cell did not record it)."""
    key = summary_key(figure, cell, name)
    return d[key] if key in d else np.array([np.nan])


def mean_se(x: np.ndarray) -> tuple[float, float, int]:
    """(mean, standard error, number) of the finite entries of ``x`` (SE 0 for one entry)."""
    x = x[np.isfinite(x)]
    if x.size == 0:
        return float("nan"), float("nan"), 0
    se = float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else 0.0
    return float(x.mean()), se, int(x.size)


def summarise(input, output):
    """Rule step: cell files and the wifi data -> summary npz, summary table, runtime table."""
    arrays, rows, times = {}, [], {}
    for path in sorted(input.runs):
        figure, cell = Path(path).parent.name, Path(path).stem
        d = load_npz(path)
        for name, value in d.items():
            arrays[summary_key(figure, cell, name)] = value
        metric = "loglik" if figure == "fig3_6" else "kl"
        for m in (str(v) for v in d["methods"]):
            mean, se, k = mean_se(d[f"{m}_{metric}"])
            if k == 0:  # e.g. PSGD where (epsilon, 1/N) is not attainable
                continue
            conv = d[f"{m}_converged"]
            conv = conv[np.isfinite(conv)]
            mse = d[f"{m}_mse"] if f"{m}_mse" in d else np.array([np.nan])
            rows.append(
                {
                    "figure": figure,
                    "cell": cell,
                    "method": m,
                    "trials": k,
                    "mean": mean,
                    "se": se,
                    "mse_marginals": mean_se(mse)[0] if np.isfinite(mse).any() else "",
                    "converged": float(np.mean(conv)),
                    "converged_interval": format_interval(int(np.sum(conv == 1)), conv.size),
                }
            )
            sec = d[f"{m}_seconds"]
            key = (figure, cell.split("_n")[0] if figure == "fig3_4" else "", m)
            times.setdefault(key, []).extend(sec[np.isfinite(sec)].tolist())
    for name, value in load_npz(input.data).items():
        if not name.startswith("train_records"):
            arrays[f"wifi__{name}"] = value
    save_npz(output.summary, **arrays)
    if not rows:
        raise ValueError("no fitted method in any cell: nothing to summarise")
    notes = (
        "mean = mean KL(p_true || p_learned) over the cell's trials (fig3_6: mean holdout "
        "log-likelihood per test individual), se = its standard error; mse_marginals = mean "
        "squared error of the learned edge marginals; converged = share of fits whose optimiser "
        "met its tolerance, converged_interval its 95% Wilson interval. The thesis prints no "
        "numbers for these figures (only plots): nothing to print beside them."
    )
    write_table(
        output.csv,
        output.md,
        rows,
        list(rows[0]),  # the columns in the order of the rows' keys
        title="bernstein2020 chapter 3: fitted models",
        notes=notes,
        digits=5,
    )
    trows = []
    for (figure, model, m), secs in sorted(times.items()):
        base = times.get((figure, model, "naive_mle"))
        ratio = float(np.mean(secs) / np.mean(base)) if base else ""
        trows.append(
            {
                "figure": figure,
                "model": model,
                "method": m,
                "fits": len(secs),
                "mean_cpu_seconds": float(np.mean(secs)),
                "ratio_to_naive": ratio,
            }
        )
    write_table(
        output.runtime_csv,
        output.runtime_md,
        trows,
        ["figure", "model", "method", "fits", "mean_cpu_seconds", "ratio_to_naive"],
        title="bernstein2020 chapter 3: CPU seconds per fit",
        notes=(
            "Thesis (Section 3.3.3): CGM about 4x / 8x and PSGD about 27x / 40x the time of naive "
            "MLE on third-order chains / ER graphs; wifi: CGM 15x, PSGD 46x. CGM's time includes "
            "the naive fit it starts from. Measured on this run's machine: differs between runs."
        ),
        digits=4,
    )
