"""ju2022 summaries: chunks -> one file per experiment, and the unit's tables.

- :func:`aggregate`: stack the chunk summaries of an experiment into (epsilon, replicate, ...)
  arrays.
- table targets: :func:`tab1` (log-linear coverage), :func:`tabS1` (regression coverage),
  :func:`runtime` (seconds per chain), :func:`experiments` (the summary table of any configured
  experiment, ``experiments/<name>``).

Coverage is of central credible intervals at the level given to the table step, computed from
where the reference value sits in each posterior sample (:func:`interval_hits`), so changing
the level never reruns a chain.
"""

from __future__ import annotations

import logging

import numpy as np

from ... import diagnostics
from ...grid import fmt_eps
from ...io import load_npz, save_npz, write_csv, write_markdown, write_table
from ...proportions import format_interval, pooled_z, wilson_interval
from ..document_settings import document
from ..scorecard import Setting
from .paper_values import AUTHORS_R_2CORE_SECONDS, PAPER_COVERAGE, PAPER_SECONDS

__all__ = [
    "PAPER",
    "MODEL_NAMES",
    "paper_settings",
    "param_labels",
    "aggregate",
    "interval_hits",
    "coverage_rows",
    "paper_hits",
    "tab1",
    "tabS1",
    "runtime",
    "degenerate_chains",
    "experiments",
]

log = logging.getLogger("dpinfer.ju2022")
PAPER = document("ju2022")  # the paper's settings (settings.yaml)
PAPER_REPLICATES = PAPER.paper("replicates")
MODEL_NAMES = {"loglinear": "log-linear", "linreg": "linear regression"}


def paper_settings(
    model: str,
    summary: dict,
    *,
    level: float,
    burnin: int,
    model_cfg: dict,
    n_records: int | None = None,
) -> dict[str, tuple[Setting, ...]]:
    """The paper's settings beside this run's, by kind: ``chain`` (what a chain's acceptance
    and mixing refer to: chain length, mechanism, prior), ``cell`` (what one coverage cell or
    posterior mean refers to: the chain's, replicates and, given ``n_records``, N), ``interval``
    (a cell's and the credible level) and ``grid`` (the epsilon grid a statement over "every
    epsilon" refers to)."""
    at = PAPER.at(
        {
            "iterations": int(summary["iterations"]),
            "burnin": int(burnin),
            "level": float(level),
            "replicates": int(summary["post_mean"].shape[1]),
            "n_records": None if n_records is None else int(n_records),
            "epsilons": [float(e) for e in summary["epsilons"]],
            **{k: model_cfg.get(k.removeprefix(f"{model}_")) for k in PAPER.keys(model)},
        }
    )
    chain = at("chain", model)
    cell = chain + at("replicates") + (() if n_records is None else at("n_records"))
    return {"chain": chain, "cell": cell, "interval": at("level") + cell, "grid": at("epsilons")}


def param_labels(model: str, dim: int) -> list[str]:
    return (
        [f"p_{i + 1}" for i in range(dim)]
        if model == "loglinear"
        else [f"beta_{j}" for j in range(dim)]
    )


def aggregate(input, output, *, epsilons: list) -> None:
    """Stack chunk summaries into arrays indexed (epsilon, replicate, ...)."""
    by_eps: dict[float, list[dict]] = {}
    for path in input.chunks:
        d = load_npz(path)
        by_eps.setdefault(float(d["epsilon"]), []).append(d)
    eps_sorted = sorted(float(e) for e in epsilons)
    if sorted(by_eps) != eps_sorted:
        raise ValueError(f"chunks cover epsilons {sorted(by_eps)}, expected {eps_sorted}")
    # each epsilon's chunks in replicate order
    parts = [sorted(by_eps[e], key=lambda d: int(d["replicate"][0])) for e in eps_sorted]
    out = {"epsilons": np.asarray(eps_sorted), "iterations": parts[0][0]["iterations"]}
    for k in parts[0][0]:
        if k not in ("epsilon", "iterations"):
            out[k] = np.asarray([np.concatenate([d[k] for d in chunks]) for chunks in parts])
    save_npz(output.summary, **out)


def interval_hits(summary: dict, level: float) -> np.ndarray:
    """(E, R, D) whether the central ``level`` credible interval of each chain contains its
    reference value: Q((1-L)/2) <= truth <= Q((1+L)/2), from the stored levels of
    :func:`.run.truth_levels`."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    return (summary["truth_q_hi"] >= (1.0 - level) / 2.0) & (
        summary["truth_q_lo"] <= (1.0 + level) / 2.0
    )


# ----------------------------------------------------------------------------- coverage tables
def coverage_rows(
    summary: dict, model: str, level: float, *, at_paper_setting: bool = True
) -> list[dict]:
    """One row per (epsilon, parameter): our coverage as hits of replicates with its 95% Wilson
    interval, the paper's, and the pooled two-proportion z of the difference (ours and the
    paper's are independent replicates, the paper's 100 of them;
    :func:`dpinfer.proportions.pooled_z`, whose SE is never zero unless both are 0 or both 1).
    The paper's value is left out (None) unless ``at_paper_setting``: it refers to the paper's
    level, chain length, replicates and model (:func:`paper_settings`)."""
    hits = interval_hits(summary, level)  # (E, R, D)
    eps = summary["epsilons"]
    R = hits.shape[1]
    labels = param_labels(model, hits.shape[2])
    paper = PAPER_COVERAGE.get(model, {}) if at_paper_setting else {}
    rows = []
    for e, epsilon in enumerate(eps):
        for j, lab in enumerate(labels):
            k = int(hits[e, :, j].sum())
            lo, hi = wilson_interval(k, R)
            pv = paper.get(float(epsilon))
            pv = None if pv is None or j >= len(pv) else float(pv[j])
            z = None if pv is None else pooled_z(k, R, paper_hits(pv), PAPER_REPLICATES)[0]
            rows.append(
                {
                    "epsilon": fmt_eps(epsilon),
                    "parameter": lab,
                    "true_value": float(summary["truth"][e, 0, j]),
                    "coverage": k / R,
                    "hits": k,
                    "replicates": R,
                    "wilson_low": lo,
                    "wilson_high": hi,
                    "paper_coverage": pv,
                    "gap_in_se": z,
                    "beyond_3se": None if z is None else bool(abs(z) > 3),
                }
            )
    return rows


def paper_hits(coverage: float) -> int:
    """The paper's hits behind a printed coverage (two decimals of its 100 replicates)."""
    return round(coverage * PAPER_REPLICATES)


def _coverage_table(input, output, model: str, level: float, run: dict) -> None:
    d = load_npz(input.summary)
    at = paper_settings(model, d, level=level, **run)["interval"]
    differ = [s.describe() for s in at if not s.same]
    rows = coverage_rows(d, model, level, at_paper_setting=not differ)
    write_csv(output.csv, rows, list(rows[0]))
    labels = param_labels(model, d["truth"].shape[2])
    truth = d["truth"][0, 0]
    columns = {lab: f"{lab} = {truth[j]:.3f}" for j, lab in enumerate(labels)}
    wide = {}
    for r in rows:
        paper = "n/a" if r["paper_coverage"] is None else f"{r['paper_coverage']:.2f}"
        flag = " *" if r["beyond_3se"] else ""
        wide.setdefault(r["epsilon"], {"epsilon": r["epsilon"]})[columns[r["parameter"]]] = (
            f"{r['coverage']:.2f} [{r['wilson_low']:.2f}, {r['wilson_high']:.2f}] ({paper}){flag}"
        )
    write_markdown(
        output.md,
        list(wide.values()),
        ["epsilon"] + list(columns.values()),
        title=f"Coverage of {round(level * 100)}% credible intervals ({MODEL_NAMES[model]} model)",
        notes=(
            f"Cells: ours [95% Wilson interval] (paper). {d['truth'].shape[1]} replicates per "
            f"epsilon here, {PAPER_REPLICATES} in the paper. * marks a difference from the "
            "paper's value beyond three standard errors of the pooled two-proportion test "
            "(column gap_in_se of the CSV; explained in docs/deviations.md). Header: the true "
            "parameter values used here."
            + (
                ""
                if not differ
                else " The paper's values (n/a here) refer to another setting: "
                + "; ".join(differ)
                + "."
            )
        ),
    )


def tab1(input, output, *, level: float, **run) -> None:
    """tab1: coverage of central credible intervals of p_1..p_5 (log-linear model), the
    paper's Table 1 beside ours (``run``: burn-in, model config, N; what the paper's values
    refer to)."""
    _coverage_table(input, output, "loglinear", level, run)


def tabS1(input, output, *, level: float, **run) -> None:
    """tabS1: coverage of central credible intervals of beta_0..beta_2 (linear regression),
    the supplement's Table 1 beside ours."""
    _coverage_table(input, output, "linreg", level, run)


# ----------------------------------------------------------------------------- runtime
def seconds_per_chain(summary: dict) -> float:
    """Median CPU seconds of one chain, scaled to the paper's 10,000 sweeps."""
    per_iter = summary["seconds"] / float(summary["iterations"])
    return float(np.median(per_iter)) * 10000.0


def runtime(input, output) -> None:
    """runtime: seconds per 10,000-iteration chain, ours (this machine) beside the paper's."""
    rows = []
    for model in MODEL_NAMES:
        d = load_npz(getattr(input, model))
        ours = seconds_per_chain(d)
        lo, hi = AUTHORS_R_2CORE_SECONDS[model]
        rows.append(
            {
                "model": model,
                "chains": int(d["seconds"].size),
                "seconds_per_chain_ours": ours,
                "seconds_per_chain_paper": PAPER_SECONDS[model],
                "speedup_vs_paper": PAPER_SECONDS[model] / ours,
                "seconds_authors_R_2core": f"{lo:.0f}-{hi:.0f}",
                "speedup_vs_authors_R_2core": (lo + hi) / 2 / ours,
            }
        )
    write_table(
        output.csv,
        output.md,
        rows,
        list(rows[0]),
        digits=3,
        title="Seconds per 10,000-iteration chain (N = 100)",
        notes=(
            "Ours: median CPU time (process time) of the sampler kernel over the fixed-data chains "
            "of this run, scaled to 10,000 iterations, on the machine that ran the pipeline "
            "(numba). Paper: R on AMD EPYC 7662 (Sec. S-6). Authors' R code re-measured on a "
            "2-core machine: reference/ju2022/FACTS.md. "
            "This is the one ju2022 table that differs between runs: it measures time."
        ),
    )


# ----------------------------------------------------------------------------- any experiment
def degenerate_chains(summary: dict, health: dict) -> np.ndarray:
    """(epsilon, replicate) booleans: chains whose mean acceptance or minimum ESS collapsed
    (:func:`dpinfer.diagnostics.degenerate`, thresholds from config ``ju2022.health``)."""
    return diagnostics.degenerate(
        summary["acc_mean"],
        summary["ess_min"],
        min_acceptance=float(health["min_acceptance"]),
        min_ess=float(health["min_ess"]),
    )


def experiments(
    input, output, *, experiment: str, model: str, design: str, level: float, health: dict
) -> None:
    """experiments/<name>: per (epsilon, parameter) the mean and spread of posterior means, the
    mean posterior sd, coverage of the true parameter (fixed_parameters designs), acceptance,
    the smallest bulk ESS and largest split-chain R-hat over the chains, the number of chains that
    fail them, and the number of degenerate chains (logged as a warning)."""
    d = load_npz(input.summary)
    labels = param_labels(model, d["post_mean"].shape[2])
    hits = interval_hits(d, level)
    bad = degenerate_chains(d, health)
    unconverged = diagnostics.unconverged(
        d["rhat_max"], d["ess_min"], max_rhat=health["max_rhat"], min_ess=health["converged_ess"]
    )
    covered, R = design == "fixed_parameters", hits.shape[1]
    rows = []
    for e, epsilon in enumerate(d["epsilons"]):
        if bad[e].any():
            log.warning(
                "%s eps=%s: %d of %d chains degenerate (mean acceptance < %s or ESS < %s)",
                experiment,
                fmt_eps(epsilon),
                int(bad[e].sum()),
                bad.shape[1],
                health["min_acceptance"],
                health["min_ess"],
            )
        for j, lab in enumerate(labels):
            rows.append(
                {
                    "epsilon": fmt_eps(epsilon),
                    "parameter": lab,
                    "reference_value": float(d["truth"][e, 0, j]),
                    "mean_posterior_mean": float(d["post_mean"][e, :, j].mean()),
                    "sd_posterior_mean": float(d["post_mean"][e, :, j].std(ddof=1))
                    if d["post_mean"].shape[1] > 1
                    else 0.0,
                    "mean_posterior_sd": float(d["post_sd"][e, :, j].mean()),
                    "coverage": float(hits[e, :, j].mean()) if covered else None,
                    "coverage_wilson_95": format_interval(int(hits[e, :, j].sum()), R)
                    if covered
                    else None,
                    "acceptance_mean": float(d["acc_mean"][e].mean()),
                    "acceptance_min": float(d["acc_min"][e].min()),
                    "min_single_acceptance": float(np.exp(d["min_log_alpha"][e].min())),
                    "ess_min": float(d["ess_min"][e].min()),
                    "rhat_max": float(d["rhat_max"][e].max()),
                    "unconverged_chains": int(unconverged[e].sum()),
                    "degenerate_chains": int(bad[e].sum()),
                    "replicates": int(d["post_mean"].shape[1]),
                }
            )
    ref = "true parameter" if design == "fixed_parameters" else "confidential-data posterior mean"
    write_table(
        output.csv,
        output.md,
        rows,
        list(rows[0]),
        digits=4,
        title=f"Experiment {experiment} ({model}, {design})",
        notes=(
            f"reference_value: the {ref}. Coverage (with its 95% Wilson interval over the "
            "replicates) only for designs with a true parameter. "
            "ess_min: the smallest bulk effective sample size of any parameter over the chains; "
            "rhat_max: the largest split-chain R-hat; unconverged_chains: chains with R-hat > "
            f"{health['max_rhat']} or bulk ESS < {health['converged_ess']:g}; "
            f"degenerate_chains: chains with mean acceptance < {health['min_acceptance']} or ESS < "
            f"{health['min_ess']} (config ju2022.health): their summaries stand for few draws."
        ),
    )
