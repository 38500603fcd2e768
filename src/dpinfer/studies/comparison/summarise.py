"""Comparison study, summary step: accuracy, calibration, diagnostics and cost per (problem, n,
epsilon, method), and the recommendation rule.

Per row, over the setting's trials (every number carries its Monte Carlo error or its
diagnostics; the worst parameter is reported, since a method is only as good as its worst):

- accuracy, over the accuracy trials: mean over trials of |posterior mean - reference mean| /
  reference sd (``mean_err``), of |posterior sd / reference sd - 1| (``sd_err``) and of the
  MMD^2 of the standardised draws to the reference's (``mmd``), each with its standard error;
- calibration, over all trials: KS distance of the posterior quantiles of the truth to U(0, 1)
  (``ks``) with its critical value at ``ks_alpha`` Bonferroni over the parameters, and coverage
  of the central credible interval (the parameter farthest from nominal) with its 95% Wilson
  interval (``coverage_lo``, ``coverage_hi``: never of zero width, even at 0 or 1);
- diagnostics: the largest R-hat over trials and parameters, the fraction of trials whose
  pooled chains fail R-hat or bulk ESS (``flagged``, with its Wilson interval ``flagged_lo``,
  ``flagged_hi``), and the same for the reference (``ref_flagged``);
- cost (measured time, so not byte-reproducible): median over trials of the bulk ESS of the
  slowest parameter per CPU second of all chains (``ess_per_s``; CPU floored at 1 us).

:func:`recommend` is the rule of the "recommended method by (n, epsilon)" table.
"""

from __future__ import annotations

import logging
from collections import defaultdict

import numpy as np

from ...diagnostics import ks_critical_value, ks_uniform, unconverged
from ...grid import fmt_eps
from ...io import load_npz, save_npz, write_table
from ...plotting.methods import method_label
from ...proportions import wilson_interval
from .problems import PARAMETERS

__all__ = [
    "mean_se",
    "reference_flags",
    "chain_columns",
    "merged_settings",
    "summarise_setting",
    "failed_checks",
    "recommend",
    "judge",
    "save_summary",
    "summarise",
]

MIN_CPU = 1e-6  # seconds: iid draws can finish below the clock's resolution
log = logging.getLogger("dpinfer.comparison")


def mean_se(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-parameter mean over trials (axis 0) and its standard error."""
    if x.shape[0] == 0:
        return np.full(x.shape[1], np.nan), np.full(x.shape[1], np.nan)
    se = x.std(axis=0, ddof=1) / np.sqrt(x.shape[0]) if x.shape[0] > 1 else np.zeros(x.shape[1])
    return x.mean(axis=0), se


def merged_settings(paths, key, fixed, per_trial, per_method) -> dict:
    """The chunks at ``paths`` grouped by ``key(chunk)``, in key order; each group's chunks in
    trial order, concatenated along the trial axis: ``fixed`` entries from the first chunk,
    ``per_trial`` arrays (trials first) and ``per_method`` arrays (methods, trials, ...)."""
    groups = defaultdict(list)
    for path in paths:
        c = load_npz(path)
        groups[key(c)].append(c)
    settings = {}
    for k in sorted(groups):
        chunks = sorted(groups[k], key=lambda c: int(c["reps"][0]))
        merged = {f: chunks[0][f] for f in fixed}
        for axis, fields in ((0, per_trial), (1, per_method)):
            for f in fields:
                merged[f] = np.concatenate([c[f] for c in chunks], axis=axis)
        settings[k] = merged
    return settings


def summarise_setting(d: dict, *, level: float, health: dict, ks_alpha: float) -> list[dict]:
    """Rows (one per method) of one merged setting."""
    problem, n, eps = str(d["problem"]), int(d["n"]), float(d["epsilon"])
    trials, n_par = d["u"].shape[1], d["u"].shape[2]
    ref_flags = reference_flags(d, health)
    rows = []
    for i, method in enumerate(str(m) for m in d["methods"]):
        row = {
            "problem": problem,
            "n": n,
            "epsilon": eps,
            "method": method,
            "label": method_label(method),
            "trials": trials,
            "accuracy_trials": int(d["mean_err"].shape[1]),
        }
        for key in ("mean_err", "sd_err", "mmd"):
            mean, se = mean_se(d[key][i])
            worst = int(np.nanargmax(mean)) if np.isfinite(mean).any() else 0
            row[key], row[f"{key}_se"] = float(mean[worst]), float(se[worst])
        ks = np.array([ks_uniform(d["u"][i, :, p]) for p in range(n_par)])
        row["ks"], row["ks_critical"] = float(ks.max()), ks_critical_value(trials, ks_alpha / n_par)
        hits = d["cover"][i].sum(axis=0)
        far = int(np.argmax(np.abs(hits / trials - level)))
        row["coverage"] = float(hits[far] / trials)
        row["coverage_lo"], row["coverage_hi"] = wilson_interval(int(hits[far]), trials)
        row.update(chain_columns(d, i, health, ref_flags))
        rows.append(row)
    return rows


def reference_flags(d: dict, health: dict) -> np.ndarray:
    """Which accuracy trials' references fail ``health`` (R-hat or bulk ESS)."""
    if not d["ref_rhat"].size:
        return np.zeros(0, bool)
    return unconverged(d["ref_rhat"].max(axis=1), d["ref_ess"].min(axis=1), **health)


def chain_columns(d: dict, i: int, health: dict, ref_flags: np.ndarray) -> dict:
    """Diagnostics and cost of method ``i`` over a setting's trials: the largest R-hat, the
    smallest bulk ESS, the share of trials flagged by ``health`` with its 95% Wilson interval,
    the reference's largest R-hat and flagged share, and the medians of ESS per CPU second and
    of CPU seconds."""
    per_trial = d["ess"][i].min(axis=1) / np.maximum(d["cpu"][i], MIN_CPU)
    bad = unconverged(d["rhat"][i].max(axis=1), d["ess"][i].min(axis=1), **health)
    lo, hi = wilson_interval(int(bad.sum()), bad.size)
    return {
        "rhat_max": float(d["rhat"][i].max()),
        "ess_min": float(d["ess"][i].min()),
        "flagged": float(bad.mean()),
        "flagged_lo": lo,
        "flagged_hi": hi,
        "ref_rhat_max": float(d["ref_rhat"].max()) if d["ref_rhat"].size else 1.0,
        "ref_flagged": float(ref_flags.mean()) if ref_flags.size else 0.0,
        "ess_per_s": float(np.median(per_trial)),
        "cpu_per_trial": float(np.median(d["cpu"][i])),
    }


def failed_checks(row: dict, rule: dict) -> list[str]:
    """The checks of the recommendation rule a row fails (empty: it qualifies). Accuracy is only
    judged where the reference itself passes the health check on enough trials; calibration only
    where the row has one (``ks``: simulated truths; a user's data set has none)."""
    failed = []
    if row["flagged"] > rule["max_flagged"]:
        failed.append("R-hat/ESS")
    if "ks" in row and row["ks"] > row["ks_critical"]:
        failed.append("calibration")
    if row["accuracy_trials"] and row["ref_flagged"] <= rule["max_flagged"]:
        if row["mean_err"] > rule["max_mean_error"]:
            failed.append("mean")
        if row["sd_err"] > rule["max_sd_error"]:
            failed.append("sd")
    return failed


def recommend(rows: list[dict], rule: dict, checks=failed_checks) -> dict:
    """The recommendation of one setting, as columns of the recommended table (and ``method``):
    among private methods (not Non-Private) that pass every check of ``checks`` (default
    :func:`failed_checks`), the one with the most effective samples per CPU second."""
    private = [r for r in rows if r["method"] != "non_private"]
    ok = [r for r in private if not checks(r, rule)]
    if not ok:
        return {"method": "none", "recommended": "none qualifies"} | dict.fromkeys(
            ("ess_per_s", "rhat_max", "flagged", "also_qualify"), ""
        )
    best = max(ok, key=lambda r: r["ess_per_s"])
    return {
        "method": best["method"],
        "recommended": best["label"],
        **{k: best[k] for k in ("ess_per_s", "rhat_max", "flagged")},
        "also_qualify": ", ".join(r["label"] for r in ok),
    }


def judge(setting: list[dict], rule: dict, checks=failed_checks) -> dict:
    """Mark each row of one setting with ``qualifies`` and ``checks_failed`` under ``checks``
    (Non-Private is the reference, never a candidate) and return its :func:`recommend`."""
    for r in setting:
        failed = checks(r, rule)
        r["qualifies"] = r["method"] != "non_private" and not failed
        r["checks_failed"] = (
            "reference (not private)"
            if r["method"] == "non_private"
            else ", ".join(failed) or "none"
        )
    return recommend(setting, rule, checks)


def save_summary(path, rows: list[dict], numeric, labels, **extra) -> None:
    """Every ``numeric`` column of ``rows`` (refused if one is not finite), ``qualifies``, the
    ``labels`` columns and ``extra`` -> the summary npz."""
    bad = [
        ({k: r[k] for k in ("dataset", "problem", "n", "epsilon", "method") if k in r}, c)
        for r in rows
        for c in numeric
        if not np.isfinite(r[c])
    ]
    if bad:
        raise FloatingPointError(f"non-finite summary values: {bad[:5]}")
    save_npz(
        path,
        **{c: np.array([r[c] for r in rows]) for c in numeric},
        qualifies=np.array([r["qualifies"] for r in rows]),
        **{c: np.array([r[c] for r in rows]) for c in labels},
        **extra,
    )


METRIC_COLUMNS = [
    "problem",
    "n",
    "epsilon",
    "label",
    "trials",
    "accuracy_trials",
    "mean_err",
    "mean_err_se",
    "sd_err",
    "sd_err_se",
    "mmd",
    "mmd_se",
    "ks",
    "ks_critical",
    "coverage",
    "coverage_lo",
    "coverage_hi",
    "rhat_max",
    "flagged",
    "flagged_lo",
    "flagged_hi",
    "ref_rhat_max",
    "ref_flagged",
    "checks_failed",
]
COST_COLUMNS = [
    "problem",
    "n",
    "epsilon",
    "label",
    "ess_per_s",
    "cpu_per_trial",
    "ess_min",
    "rhat_max",
    "flagged",
]
RECOMMENDED_COLUMNS = ["recommended", "ess_per_s", "rhat_max", "flagged", "also_qualify"]
# every number of a row the summary keeps
NUMERIC = tuple(
    dict.fromkeys(
        c for c in METRIC_COLUMNS + COST_COLUMNS if c not in ("problem", "label", "checks_failed")
    )
)
# how a setting's chunks merge (:func:`merged_settings`)
MERGE = (
    ("problem", "n", "epsilon", "methods"),
    ("truth", "ref_rhat", "ref_ess", "reps"),
    ("u", "cover", "rhat", "ess", "cpu", "mean_err", "sd_err", "mmd"),
)


def summarise(input, output, *, credible_level, health, recommend_rule) -> None:
    """Rule step: every chunk -> summary.npz, metrics (deterministic), cost and recommended
    (measured time) tables."""
    settings = merged_settings(
        input.runs, lambda c: (str(c["problem"]), int(c["n"]), float(c["epsilon"])), *MERGE
    )
    health = {"max_rhat": float(health["max_rhat"]), "min_ess": float(health["min_ess"])}
    rule = {k: float(v) for k, v in recommend_rule.items()}
    rows, recs = [], []
    for key, merged in settings.items():
        setting = summarise_setting(
            merged, level=float(credible_level), health=health, ks_alpha=rule["ks_alpha"]
        )
        rows += setting
        rec = judge(setting, rule)
        recs.append({"problem": key[0], "n": key[1], "epsilon": key[2], **rec})
        log.info(
            "%s n=%d eps=%s: recommended %s", key[0], key[1], fmt_eps(key[2]), rec["recommended"]
        )
    save_summary(
        output.summary, rows, NUMERIC, ("problem", "method"), level=np.float64(credible_level)
    )
    params = "; ".join(
        f"{p}: {', '.join(PARAMETERS[p])}" for p in sorted({r["problem"] for r in rows})
    )
    write_table(
        output.metrics_csv,
        output.metrics_md,
        rows,
        METRIC_COLUMNS,
        title="Comparison: accuracy, calibration and diagnostics per method",
        notes=(
            f"Worst parameter of each problem ({params}). Errors in reference sds, "
            "MMD^2 of standardised draws, each +- its standard error over the accuracy trials; "
            "KS over all trials beside its critical value; coverage of the central "
            f"{credible_level:g} interval (parameter farthest from nominal) with its 95% Wilson "
            f"interval [coverage_lo, coverage_hi]; flagged = fraction of trials with R-hat > "
            f"{health['max_rhat']:g} or bulk ESS < {health['min_ess']:g}, with its 95% Wilson "
            "interval [flagged_lo, flagged_hi]. No source document has these numbers: the "
            "paper column is empty by design (docs/deviations.md, comparison study)."
        ),
    )
    write_table(
        output.cost_csv,
        output.cost_md,
        rows,
        COST_COLUMNS,
        title="Comparison: cost, effective samples per CPU second",
        notes="Median over trials of the bulk ESS of the slowest parameter over the CPU seconds of "
        "all chains; measured time, so it varies between machines and runs.",
    )
    write_table(
        output.recommended_csv,
        output.recommended_md,
        recs,
        ["problem", "n", "epsilon", *RECOMMENDED_COLUMNS],
        title="Recommended method by (problem, n, epsilon)",
        notes=_rule_text(rule, health),
    )


def _rule_text(rule: dict, health: dict) -> str:
    return (
        "Rule: among the private methods (Non-Private is the reference, not a candidate), keep "
        f"those whose trials are flagged by R-hat > {health['max_rhat']:g} or bulk ESS < "
        f"{health['min_ess']:g} at most {rule['max_flagged']:g} of the time; that are calibrated "
        f"(KS of the posterior quantiles below its {rule['ks_alpha']:g} critical value, Bonferroni "
        "over parameters); and, where the reference passes the same health check, whose mean error "
        f"is at most {rule['max_mean_error']:g} and sd error at most {rule['max_sd_error']:g} "
        "reference sds for every parameter. Recommend the one with the most effective samples per "
        "CPU second; 'none qualifies' when no method passes. rhat_max and flagged: the recommended "
        "method's largest R-hat over trials and parameters and its fraction of flagged trials (0 "
        "for independent draws)."
    )
