"""Own-data study, summary step of one data set: per (epsilon, method) over its trials, and the
recommendation rule of the comparison study without its calibration check.

Per row (the worst parameter is reported, since a method is only as good as its worst; every
number carries its Monte Carlo error or its diagnostics):

- accuracy, over the accuracy trials: |posterior mean - reference mean| / reference sd
  (``mean_err``), |posterior sd / reference sd - 1| (``sd_err``) and MMD^2 of the standardised
  draws (``mmd``), each a mean over trials with its standard error, the reference a long
  MCMC-Ind run;
- what privacy costs, over all trials: |posterior mean - non-private mean| / non-private sd
  (``np_err``) and posterior sd / non-private sd (``sd_ratio``, the widening), means with
  standard errors, and the share of trials whose central interval covers the non-private
  posterior mean (``np_coverage``, the lowest over parameters, with its 95% Wilson interval
  ``np_coverage_lo``, ``np_coverage_hi``);
- diagnostics: the largest R-hat, the share of trials whose chains fail R-hat or bulk ESS
  (``flagged``, with its Wilson interval), the same for the reference;
- cost (measured time): the median over trials of the bulk ESS of the slowest parameter per CPU
  second of all chains (``ess_per_s``).

These numbers compare methods on the user's confidential records and are for the data holder:
each trial is a fresh release, so together they are not one differentially private release.
Some are derived from the non-private posterior (:data:`FROM_NON_PRIVATE`): the ``np_*`` and
``sd_ratio`` columns and every number of the Non-Private row; the tables' notes say so.
"""

from __future__ import annotations

import logging

import numpy as np

from ...grid import fmt_eps
from ...io import write_table
from ...plotting.methods import method_label
from ...proportions import wilson_interval
from ..comparison.summarise import (
    RECOMMENDED_COLUMNS,
    chain_columns,
    failed_checks,
    judge,
    mean_se,
    merged_settings,
    reference_flags,
    save_summary,
)

__all__ = ["FROM_NON_PRIVATE", "summarise_epsilon", "own_failed_checks", "summarise"]

log = logging.getLogger("dpinfer.own_data")
# The label every output derived in part from the non-private posterior carries (README: such
# numbers reach only the files labelled so).
FROM_NON_PRIVATE = (
    "Derived in part from the non-private posterior of the confidential records: the np_err, "
    "sd_ratio and np_coverage columns (each method against the non-private posterior mean and "
    "sd) and every number of the Non-Private row."
)


def _worst(x: np.ndarray, row: dict, key: str, far_from: float = 0.0) -> None:
    """row[key], row[key_se]: the mean over trials of the parameter farthest from ``far_from``."""
    mean, se = mean_se(x)
    if not np.isfinite(mean).any():
        row[key], row[f"{key}_se"] = 0.0, 0.0
        return
    i = int(np.nanargmax(np.abs(mean - far_from)))
    row[key], row[f"{key}_se"] = float(mean[i]), float(se[i])


def summarise_epsilon(d: dict, *, health: dict) -> list[dict]:
    """Rows (one per method) of one merged (data set, epsilon)."""
    trials = d["np_err"].shape[1]
    ref_flags = reference_flags(d, health)
    rows = []
    for i, method in enumerate(str(m) for m in d["methods"]):
        row = {
            "dataset": str(d["dataset"]),
            "epsilon": float(d["epsilon"]),
            "method": method,
            "label": method_label(method),
            "trials": trials,
            "accuracy_trials": int(d["mean_err"].shape[1]),
        }
        for key in ("mean_err", "sd_err", "mmd", "np_err"):
            _worst(d[key][i], row, key)
        _worst(d["sd_ratio"][i], row, "sd_ratio", far_from=1.0)
        hits = d["cover"][i].sum(axis=0)
        low = int(np.argmin(hits))
        row["np_coverage"] = float(hits[low] / trials)
        row["np_coverage_lo"], row["np_coverage_hi"] = wilson_interval(int(hits[low]), trials)
        row.update(chain_columns(d, i, health, ref_flags))
        rows.append(row)
    return rows


def own_failed_checks(row: dict, rule: dict) -> list[str]:
    """The comparison study's checks (:func:`~dpinfer.studies.comparison.summarise.failed_checks`;
    no calibration without a truth) plus one: accuracy must have been judged, since without a
    truth it is the only check of bias (a method far from the posterior can mix well)."""
    failed = failed_checks(row, rule)
    if not (row["accuracy_trials"] and row["ref_flagged"] <= rule["max_flagged"]):
        failed.append("accuracy not judged (reference flagged)")
    return failed


METRIC_COLUMNS = [
    "epsilon",
    "label",
    "trials",
    "accuracy_trials",
    "mean_err",
    "mean_err_se",
    "sd_err",
    "sd_err_se",
    "np_err",
    "np_err_se",
    "sd_ratio",
    "sd_ratio_se",
    "np_coverage",
    "np_coverage_lo",
    "np_coverage_hi",
    "rhat_max",
    "flagged",
    "flagged_lo",
    "flagged_hi",
    "ref_rhat_max",
    "ref_flagged",
    "checks_failed",
]
COST_COLUMNS = ["epsilon", "label", "ess_per_s", "cpu_per_trial", "rhat_max", "flagged"]
# every number of a row the summary keeps
NUMERIC = (
    *(c for c in METRIC_COLUMNS if c not in ("label", "checks_failed")),
    "mmd",
    "mmd_se",
    "ess_per_s",
    "cpu_per_trial",
)
# how an epsilon's chunks merge (:func:`~dpinfer.studies.comparison.summarise.merged_settings`)
MERGE = (
    ("dataset", "epsilon", "methods"),
    ("ref_rhat", "ref_ess", "reps"),
    ("cover", "np_err", "sd_ratio", "rhat", "ess", "cpu", "mean_err", "sd_err", "mmd"),
)


def summarise(input, output, *, dataset, parameters, credible_level, health, recommend_rule):
    """Rule step: one data set's chunks -> summary.npz, metrics, cost and recommended tables.
    ``parameters``: the parameter names (its covariates, the intercept, sigma^2)."""
    settings = merged_settings(input.runs, lambda c: float(c["epsilon"]), *MERGE)
    health = {"max_rhat": float(health["max_rhat"]), "min_ess": float(health["min_ess"])}
    rule = {k: float(v) for k, v in recommend_rule.items()}
    rows, recs = [], []
    for eps, merged in settings.items():
        setting = summarise_epsilon(merged, health=health)
        rows += setting
        rec = judge(setting, rule, own_failed_checks)
        recs.append({"epsilon": eps, **rec})
        log.info("%s eps=%s: recommended %s", dataset, fmt_eps(eps), rec["recommended"])
    save_summary(
        output.summary,
        rows,
        NUMERIC,
        ("method",),
        dataset=np.array(dataset),
        level=np.float64(credible_level),
        note=np.array(FROM_NON_PRIVATE),
    )
    names = ", ".join(parameters)
    holder = (
        "Computed from the confidential records for the data holder: the trials are separate "
        "releases, so these numbers together are not one differentially private release."
    )
    write_table(
        output.metrics_csv,
        output.metrics_md,
        rows,
        METRIC_COLUMNS,
        title=f"Own data, {dataset}: accuracy, what privacy costs, diagnostics per method",
        notes=(
            f"Worst parameter of ({names}) in the data's units. mean_err, sd_err: against a long "
            "MCMC-Ind reference, in reference sds, +- SE over the accuracy trials; np_err: "
            "distance of the posterior mean from the non-private posterior mean in non-private "
            "sds; sd_ratio: posterior sd over the non-private sd (the parameter farthest from 1); "
            f"np_coverage: share of trials whose central {credible_level:g} interval covers the "
            "non-private posterior mean (lowest parameter) with its 95% Wilson interval "
            "[np_coverage_lo, np_coverage_hi]; flagged: share of trials with R-hat > "
            f"{health['max_rhat']:g} or bulk ESS < {health['min_ess']:g}, with its Wilson "
            "interval. No source document has these numbers: the paper column is empty by "
            f"design. {FROM_NON_PRIVATE} " + holder
        ),
    )
    write_table(
        output.cost_csv,
        output.cost_md,
        rows,
        COST_COLUMNS,
        title=f"Own data, {dataset}: effective samples per CPU second",
        notes="Median over trials of the bulk ESS of the slowest parameter over the CPU seconds of "
        "all chains; measured time, so it varies between machines and runs. The Non-Private row "
        "times draws from the non-private posterior of the confidential records.",
    )
    write_table(
        output.recommended_csv,
        output.recommended_md,
        recs,
        ["epsilon", *RECOMMENDED_COLUMNS],
        title=f"Own data, {dataset}: recommended method by epsilon",
        notes=_rule_text(rule, health) + " " + holder,
    )


def _rule_text(rule: dict, health: dict) -> str:
    return (
        "Rule (the comparison study's, without its calibration check: a data set has no known "
        "truth): among the private methods, keep those whose trials are flagged by R-hat > "
        f"{health['max_rhat']:g} or bulk ESS < {health['min_ess']:g} at most "
        f"{rule['max_flagged']:g} of the time and whose mean error is at most "
        f"{rule['max_mean_error']:g} and sd error at most {rule['max_sd_error']:g} reference sds "
        "for every parameter, judged where the reference passes the same check (a method whose "
        "accuracy could not be judged does not qualify); recommend the one with the most "
        "effective samples per CPU second ('none qualifies' when no method passes)."
    )
