"""raisa2021 summaries: every chain setting in one record and table; Table 5.1."""

from __future__ import annotations

import logging

import numpy as np

from ...diagnostics import passing_share
from ...io import load_npz, save_npz, write_table
from ..document_settings import document
from ..scorecard import Setting, setting

__all__ = [
    "THESIS",
    "NAMES",
    "TABLE_5_1",
    "summarise",
    "baseline_mmds",
    "tab5_1",
    "setting_key",
    "table_5_1_settings",
    "n_setting",
]

log = logging.getLogger("dpinfer.raisa2021")
PER_CHAIN = ("acceptance", "llr_clip", "grad_clip", "mmd", "mean_error", "cov_error", "cpu_seconds")
THESIS = document("raisa2021")  # the thesis's settings (settings.yaml)
NAMES = THESIS.paper("models")  # the models' names in Table 5.1 (figure titles use them too)
TABLE_5_1 = THESIS.paper("table_5_1")  # as printed ("" = blank cell)
_BLANK = {"n0": "none (T = 1)", "sigma_0^2": "none (flat prior)"}
_START_RULES = {"ref_sd_1.5": "1.5 x reference sd", "ref_sd_mean": "mean reference sd"}


def _blank(column: str, value):
    return _BLANK.get(column, "") if value in ("", None) else value


def table_5_1_settings(model: str, spec: dict, start_rule: str) -> tuple[Setting, ...]:
    """Table 5.1's columns of one model beside this run's (the params file, n scaled by
    ``data_fraction``, the start rule): the tab5_1 table's "same as thesis" and the tab5_1
    claims use this one function."""
    paper = TABLE_5_1[model]
    start = (
        float(spec["start_sd_seed_text"])
        if start_rule == THESIS.paper("start_rule")
        else _START_RULES.get(start_rule, f"start rule {start_rule}")
    )
    ours = {
        "dim": int(spec["dim"]),
        "n": int(spec["n"]),
        "n0": spec.get("n0"),
        "start deviation": start,
        "a": float(spec["a"]),
        "sigma_0^2": spec.get("prior_variance"),
    }
    source = THESIS.source("table_5_1")
    return tuple(
        setting(col, _blank(col, paper[col]), _blank(col, ours[col]), source=source) for col in ours
    )


def n_setting(models, n: dict) -> Setting:
    """Each model's n (Table 5.1) beside this run's (``n``: model -> n as run)."""
    models = [m for m in models if m in n]
    return setting(
        "n",
        {m: TABLE_5_1[m]["n"] for m in models},
        {m: int(n[m]) for m in models},
        source=THESIS.source("table_5_1"),
    )


def setting_key(model: str, algo: str, epsilon: float) -> str:
    return f"{model}|{algo}|{float(epsilon)!r}"


def baseline_mmds(references) -> dict:
    """{model: MMDs of fresh exact samples to its reference (the figures' dashed lines)} of the
    reference files (``<model>.npz``) that have them (the circle has none)."""
    out = {}
    for f in references:
        ref = load_npz(f)
        if "baseline_mmd" in ref:
            out[f.rsplit("/", 1)[-1].removesuffix(".npz")] = ref["baseline_mmd"]
    return out


def summarise(
    input, output, settings: list, health: dict, delta_factor: float, version: str
) -> None:
    """Gather the chain files: per setting the per-chain metrics (npz, for the figures and
    claims) and one table row of medians, the iteration count beside the author's (the thesis
    text's code state: printed only at its n and the ``iterations`` settings, as the claims
    compare them), the largest R-hat and smallest bulk ESS over the chains, and whether the
    setting is flagged."""
    rec, rows, differ = {}, [], {}
    run = THESIS.at({"delta_factor": float(delta_factor), "version": version})
    for s in settings:
        at = (n_setting([s["model"]], {s["model"]: s["n"]}),) + run("iterations")
        if not all(x.same for x in at):
            differ.setdefault(s["model"], "; ".join(x.describe() for x in at if not x.same))
        d = load_npz(s["file"])
        key = setting_key(s["model"], s["algo"], s["epsilon"])
        for k in PER_CHAIN + ("rhat", "ess", "iterations"):
            rec[f"{key}/{k}"] = d[k]
        flagged = passing_share(d["rhat"], d["ess"], health) < 1.0  # some coordinate fails
        has_ref = bool(d["has_reference"])
        rec[f"{key}/flagged"] = np.bool_(flagged)
        if s["author_iterations"] is not None:
            rec[f"{key}/author_iterations"] = np.int64(s["author_iterations"])
        rows.append(
            {
                "model": s["model"],
                "algorithm": s["algo"],
                "epsilon": s["epsilon"],
                "iterations": int(d["iterations"]),
                "author iterations": (
                    ""
                    if s["author_iterations"] is None
                    else "n/a"
                    if s["model"] in differ
                    else int(s["author_iterations"])
                ),
                "median acceptance": float(np.median(d["acceptance"])),
                "median llr clipped": float(np.median(d["llr_clip"])),
                "median grad clipped": float(np.median(d["grad_clip"]))
                if s["algo"] == "hmc"
                else "",
                "median MMD": float(np.median(d["mmd"])) if has_ref else "",
                "median mean error": float(np.median(d["mean_error"])),
                "max R-hat": _finite_or_note(d["rhat"].max()),
                "min bulk ESS": _finite_or_note(d["ess"].min()),
                "flagged": flagged,
            }
        )
    for m, base in baseline_mmds(input.references).items():
        rec[f"{m}/baseline_mmd"] = base
    rec["keys"] = np.array([setting_key(s["model"], s["algo"], s["epsilon"]) for s in settings])
    save_npz(output.summary, **rec)
    n_flag = sum(r["flagged"] for r in rows)
    log.info(
        "%d settings, %d flagged by R-hat > %.3g or bulk ESS < %g",
        len(rows),
        n_flag,
        health["max_rhat"],
        health["min_ess"],
    )
    write_table(
        output.csv,
        output.md,
        rows,
        list(rows[0]),
        digits=4,
        title="raisa2021: chains per (model, algorithm, epsilon) (intermediate)",
        notes="Medians over the chains of a setting; the second half of each chain is kept. "
        "R-hat (rank-normalised split) and bulk ESS are computed over all chains of a "
        f"setting, which start at different points; 'flagged' = R-hat > {health['max_rhat']} "
        f"or ESS < {health['min_ess']} for some coordinate. The thesis reports neither: "
        "a chain of a biased (clipped) or slowly mixing sampler is flagged, not hidden. "
        "Author iterations: the author's counts for the thesis text's hyperparameters (code "
        "state 9c834d7, FACTS.md 5)"
        + (
            "."
            if not differ
            else "; n/a where this run's setting is another: " + "; ".join(differ.values()) + "."
        ),
    )


def tab5_1(input, output, specs: dict, start_rule: str) -> None:
    """Table 5.1: each configured model's parameters as this run uses them (``specs``; the start
    deviation is the start rule's), the thesis's value beside; "same as thesis" from
    :func:`table_5_1_settings` (the claims' function)."""
    rows, thesis_rule = [], THESIS.paper("start_rule")
    for m, s in specs.items():
        paper = TABLE_5_1[m]
        at = {x.name: x for x in table_5_1_settings(m, s, start_rule)}
        row = {"model": NAMES.get(m, s["label"])}
        for col in paper:  # as printed numbers (%g), so 1e-05 and 1000 read as in the thesis
            row[col] = _g(at[col].ours)
            row[f"{col} (thesis)"] = _g(paper[col])
        row["same as thesis"] = all(x.same for x in at.values())
        rows.append(row)
    write_table(
        output.csv,
        output.md,
        rows,
        list(rows[0]),
        title="Table 5.1: model parameters (ours beside the thesis)",
        notes="n0 sets the tempering T = n0 / n (blank: T = 1); start deviation is the sd of the "
        f"random starting points (start_rule: {thesis_rule}"
        + ("" if start_rule == thesis_rule else f"; this run: {start_rule}")
        + "); sigma_0^2 is the prior variance (blank: flat prior). Ours are read from "
        "config/data/raisa2021/params.yaml.",
    )


def _finite_or_note(value):
    """A diagnostic for the table: R-hat is infinite when a coordinate never moved in any chain
    (e.g. 7 one-coordinate iterations); the setting is flagged and the cell says why."""
    return float(value) if np.isfinite(value) else "not finite (a coordinate never moved)"


def _g(value) -> str:
    """A cell as printed: numbers by %g; a blank cell (no n0, a flat prior) stays blank."""
    if value in ("", None) or (isinstance(value, str) and value.startswith("none")):
        return ""
    try:
        return f"{float(value):g}"
    except ValueError:
        return str(value)  # a start rule other than Table 5.1's start deviation
