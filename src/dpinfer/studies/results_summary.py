"""What a run found, at a glance: per study, the targets built, the scorecard's verdict counts and
the headline results, rendered from the scorecard (``results/fidelity.csv``) and never typed.

- Rule ``results_summary`` writes ``results/summary.md`` for every run (:func:`summary`).
- The paper-scale snapshot in the repository, ``docs/results-digest.json``, is rendered into
  ``docs/results.md`` and README's results block by :func:`render_summary` and
  :func:`render_readme_block`; :mod:`.results_digest` refreshes it after a paper-scale run.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

from ..io import read_json, write_json, write_text
from .deviations import CLASSES
from .scorecard import (
    BUDGET_FIXED,
    CONVERGED_VERDICTS,
    DIFFERS,
    VERDICTS,
    changed_conclusions,
    is_diagnostics,
)

__all__ = [
    "STUDIES",
    "read_rows",
    "digest_of",
    "render_summary",
    "render_readme_block",
    "summary",
    "README_BEGIN",
    "README_END",
]

STUDIES = ("ju2022", "bernstein2020", "raim2021", "raisa2021", "comparison")
README_BEGIN = (
    "<!-- results:begin (generated from docs/results-digest.json; do not edit by hand) -->"
)
README_END = "<!-- results:end -->"
_COUNTS = VERDICTS
_CHANGED_FIELDS = (
    "study",
    "target",
    "statement",
    "ours",
    "mc_error",
    "verdict",
    "converged_ours",
    "converged_mc_error",
    "converged_verdict",
    "diagnostics",
)
_HEADLINE_FIELDS = (
    "study",
    "target",
    "statement",
    "paper",
    "ours",
    "mc_error",
    "verdict",
    "not_comparable",
    "stand_in",
)


def read_rows(path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def digest_of(
    rows: list[dict], built: dict[str, list[int]], minutes: float | None = None, commit: str = ""
) -> dict:
    """The snapshot of a run that README and docs/results.md are rendered from: per study the
    verdict counts and [targets built, targets registered], the headline rows, and (optionally)
    the run's wall minutes and commit."""
    counts = {}
    for study in sorted({r["study"] for r in rows} | set(built)):
        c = Counter(r["verdict"] for r in rows if r["study"] == study)
        unknown = set(c) - set(VERDICTS)
        if unknown:
            raise ValueError(f"unknown verdicts in the scorecard: {sorted(unknown)}")
        counts[study] = {v: c.get(v, 0) for v in _COUNTS}
    headlines = [
        {k: r.get(k, "") for k in _HEADLINE_FIELDS} for r in rows if r.get("headline") == "True"
    ]
    return {
        "minutes": minutes,
        "commit": commit,
        "built": built,
        "counts": counts,
        "headlines": headlines,
        **_second_verdicts(rows),
    }


def _second_verdicts(rows: list[dict]) -> dict:
    """Issue 33: per study the counts of the second verdicts (rows computed from chains the
    diagnostics can flag, judged again from their converged companion), and every row whose
    conclusion changes, with both values."""
    rows = [dict(r, converged_verdict=r.get("converged_verdict", "")) for r in rows]
    converged = {}
    for study in sorted({r["study"] for r in rows if r["converged_verdict"]}):
        c = Counter(r["converged_verdict"] for r in rows if r["study"] == study)
        converged[study] = {v: c.get(v, 0) for v in CONVERGED_VERDICTS}
    changed = [{k: r.get(k, "") for k in _CHANGED_FIELDS} for r in changed_conclusions(rows)]
    return {"converged": converged, "changed": changed}


def _order(studies) -> list[str]:
    return sorted(studies, key=lambda s: (STUDIES.index(s) if s in STUDIES else len(STUDIES), s))


def _verdict_cell(h: dict) -> str:
    v = h["verdict"]
    return f"{v} ({h['not_comparable']})" if v == "not comparable" and h["not_comparable"] else v


def _table(d: dict) -> list[str]:
    heads = ["hold", *(f"differ: {c}" for c in CLASSES), "not comparable", "not run"]
    lines = [
        "| study | targets built | " + " | ".join(heads) + " |",
        "|---|---|" + "---|" * len(heads),
    ]
    for study in _order(d["counts"]):
        c = d["counts"][study]
        b = d["built"].get(study, [0, 0])
        lines.append(
            f"| {study} | {b[0]} of {b[1]} | " + " | ".join(str(c[v]) for v in _COUNTS) + " |"
        )
    total = _totals(d)
    nb = [sum(b[i] for b in d["built"].values()) for i in (0, 1)]
    lines.append(
        f"| all | {nb[0]} of {nb[1]} | " + " | ".join(str(total[v]) for v in _COUNTS) + " |"
    )
    return lines


def _totals(d: dict) -> dict[str, int]:
    return {v: sum(c[v] for c in d["counts"].values()) for v in _COUNTS}


def _stand_in(h: dict) -> str:
    return f" (on {h['stand_in']})" if h.get("stand_in") else ""


def _headlines(d: dict, studies=None) -> list[str]:
    lines = []
    for study in _order({h["study"] for h in d["headlines"]}):
        if studies is not None and study not in studies:
            continue
        lines.append(f"- **{study}**")
        for h in (h for h in d["headlines"] if h["study"] == study):
            err = f" (MC error {h['mc_error']})" if h["mc_error"] else ""
            lines.append(
                f"  - `{h['target']}`{_stand_in(h)}: {h['statement']}. Paper: {h['paper']}; ours: "
                f"{h['ours']}{err}: **{_verdict_cell(h)}**."
            )
    return lines


def _runs_line(runs: list[dict]) -> str:
    """The run line of a digest assembled study by study (:func:`merge`): per run, its studies,
    commit and wall time, and whether it predates the difference classes."""
    parts = []
    for r in runs:
        when = (
            f"in a run of {r['minutes']:.0f} minutes with `--cores 2` on a 2-core machine"
            if r.get("minutes") is not None
            else "wall time not measured (other jobs shared the cores)"
        )
        text = f"{', '.join(_order(r['studies']))} from commit {r['commit']}, {when}"
        if r.get("classes_from"):
            text += (
                f"; that run predates the difference classes ({r['classes_from']}): its entries "
                "of `docs/deviations.md` had no class line, so every difference of these studies "
                "counts as not reproduced until their next paper-scale run"
            )
        parts.append(text)
    return (
        "Runs (the snapshot is refreshed study by study; a study's rows depend only on its own "
        "runs and `docs/deviations.md`): " + "; ".join(parts) + "."
    )


def _run_line(d: dict) -> str:
    if d.get("runs"):
        return _runs_line(d["runs"])
    parts = []
    if d.get("minutes") is not None:
        parts.append(f"wall time {d['minutes']:.0f} minutes with `--cores 2` on a 2-core machine")
    elif "minutes" in d:
        parts.append("wall time not measured (the run was resumed across sessions)")
    if d.get("commit"):
        parts.append(f"commit {d['commit']}")
    if d.get("study_minutes"):
        parts.append(
            "a study's minutes are its jobs' wall time summed and divided by the 2 cores "
            "(the run's `results/cost.csv`)"
        )
    if d.get("efficiency") is not None:
        parts.append(
            f"efficiency, the kernels' CPU time over 2 cores x wall time: {d['efficiency']:.2f}"
        )
    line = ("Run: " + "; ".join(parts) + ".") if parts else ""
    if d.get("classes_from"):
        # a snapshot from before the classes existed (issue 46): say so rather than let its
        # zero counts of the other classes read as measured
        line += (
            f" This run predates the difference classes ({d['classes_from']}): its entries of "
            "`docs/deviations.md` had no class line, so every difference counts as not reproduced "
            "until the next paper-scale run; the file's index lists the classes the code gives now."
        )
    return line


def _smoke_line(d: dict) -> str:
    smoke = d.get("smoke")
    if not smoke:
        return ""
    return (
        "The smoke scale (`--configfile config/smoke.yaml`, every rule) took "
        f"{smoke['minutes']:.1f} minutes with `--cores 2` on a 2-core machine, as the first run of "
        "a fresh clone and install (numba compiles its kernels on the way; commit "
        f"{smoke['commit']}, from its Snakemake log)."
    )


def _minutes_cell(d: dict, study: str) -> str:
    value = (d.get("study_minutes") or {}).get(study)
    if value is None:
        return "not measured"
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def _lead_cell(d: dict, study: str) -> str:
    """The study's first headline row: statement, ours, paper, Monte Carlo error, verdict."""
    h = next((h for h in d["headlines"] if h["study"] == study), None)
    if h is None:
        return "no headline row"
    err = f"; MC error {h['mc_error']}" if h["mc_error"] else ""
    return (
        f"`{h['target']}`{_stand_in(h)}: {h['statement']}. Ours: {h['ours']} (paper: "
        f"{h['paper']}{err}): "
        f"**{_verdict_cell(h)}**"
    )


def _glance(d: dict) -> list[str]:
    """One table: per study the targets built, its lead result, the verdict counts (every
    difference class apart), the minutes."""
    shown = ("holds", *DIFFERS, "not comparable")
    heads = ["hold", *(f"differ: {c}" for c in CLASSES), "not comparable"]
    lines = [
        "| study | targets built | headline result | " + " | ".join(heads) + " "
        "| paper-scale minutes, 2 cores |",
        "|---|---|---|" + "---|" * len(heads) + "---|",
    ]
    for study in _order(d["counts"]):
        c, b = d["counts"][study], d["built"].get(study, [0, 0])
        lines.append(
            f"| {study} | {b[0]} of {b[1]} | {_lead_cell(d, study)} | "
            + " | ".join(str(c[v]) for v in shown)
            + f" | {_minutes_cell(d, study)} |"
        )
    total = _totals(d)
    nb = [sum(b[i] for b in d["built"].values()) for i in (0, 1)]
    run = f"{d['minutes']:.0f}" if d.get("minutes") is not None else "not measured"
    lines.append(
        f"| all | {nb[0]} of {nb[1]} | {total['not run']} rows not run | "
        + " | ".join(str(total[v]) for v in shown)
        + f" | {run} |"
    )
    return lines


VERDICT_GUIDE = [
    "Every checkable statement of the documents (each printed number, each figure's claim) is a "
    "row of the fidelity scorecard (`results/fidelity.md`, first in the HTML report's menu), with "
    "the paper's value, ours, our Monte Carlo error and a verdict:",
    "",
    "- **holds**: our value agrees with the document's at the document's setting, within the rule "
    "the statement gives (usually 2-3 standard errors or a test at the 5% level);",
    "- **differs**, in one of four classes given by the entry of `docs/deviations.md` the row "
    "names (the file's index lists the entries by class):",
    "  - **document in error**: the document's statement is wrong, and a command of the project "
    "(a test or a module, named in the entry, that runs at smoke scale) shows it;",
    "  - **stand-in data**: the document's data are not public; ours are synthetic, and the entry "
    "says which property of the data the verdict depends on;",
    "  - **our choice**: a setting the document leaves open; the entry gives the verdict measured "
    "at two or more of its values;",
    "  - **not reproduced**: we differ and cannot show why (also every row whose entry lacks the "
    "evidence its class needs);",
    "- **not comparable**: this run is not at the setting the document's value refers to (another "
    "credible level, fewer replicates, shorter chains, another grid); the row names what differs "
    "and is never judged;",
    "- **not run**: the run does not compute what the statement is about.",
]


_CONVERGED_HEAD = {
    "holds": "hold",
    "differs": "differ",
    "not comparable": "not comparable",
    "not run": "not run",
    BUDGET_FIXED: "no companion: the privacy budget fixes the iterations",
}


def _converged_totals(d: dict) -> dict[str, int]:
    return {v: sum(c[v] for c in d["converged"].values()) for v in CONVERGED_VERDICTS}


def _converged_section(d: dict) -> list[str]:
    """Issue 33's results: per study the second verdicts (the claims computed from chains the
    diagnostics can flag, judged again from converged companion chains), the companions' minutes,
    and every conclusion that changes."""
    if "converged" not in d:
        return []
    lines = [
        "",
        "## With converged chains",
        "",
        "Every claim computed from chains the convergence diagnostics can flag is judged a second "
        "time from a converged companion: the same data, releases, model and prior, with chains "
        'that pass R-hat <= 1.01 and bulk ESS >= 400 (column "with converged chains" of '
        "`results/fidelity.md`). A companion minute is a `*_converged` job's wall time divided by "
        "the 2 cores (the comparison study's converged reference runs inside its trials and "
        "counts in its own minutes).",
        "",
        "| study | rows | " + " | ".join(_CONVERGED_HEAD.values()) + " | companion minutes |",
        "|---|---|" + "---|" * len(_CONVERGED_HEAD) + "---|",
    ]
    minutes = d.get("companion_minutes") or {}
    for study in _order(d["converged"]):
        c = d["converged"][study]
        m = f"{minutes[study]:.1f}" if study in minutes else "not measured"
        lines.append(
            f"| {study} | {sum(c.values())} | "
            + " | ".join(str(c[v]) for v in _CONVERGED_HEAD)
            + f" | {m} |"
        )
    total = _converged_totals(d)
    m = f"{sum(minutes.values()):.1f}" if minutes and _one_run(d) else "not measured"
    lines.append(
        f"| all | {sum(total.values())} | "
        + " | ".join(str(total[v]) for v in _CONVERGED_HEAD)
        + f" | {m} |"
    )
    lines += ["", "### Conclusions that change with converged chains", ""]
    method, diag = _split_changed(d["changed"])
    lines += [f"About a method ({len(method)}):", ""]
    lines += [_changed_line(r) for r in method] or ["- none"]
    lines += [
        "",
        f"About the chains' convergence diagnostics ({len(diag)}; a companion's lengths were "
        "chosen so that it passes them, so these say the document's chains were too short, not "
        "that a method's conclusion changes):",
        "",
    ]
    lines += [_changed_line(r) for r in diag] or ["- none"]
    return lines


def _split_changed(changed: list[dict]) -> tuple[list[dict], list[dict]]:
    return (
        [r for r in changed if not is_diagnostics(r)],
        [r for r in changed if is_diagnostics(r)],
    )


def _changed_line(r: dict) -> str:
    first = r["ours"] + (f" (MC error {r['mc_error']})" if r["mc_error"] else "")
    second = r["converged_ours"] + (
        f" (MC error {r['converged_mc_error']})" if r["converged_mc_error"] else ""
    )
    return (
        f"- **{r['study']}** `{r['target']}`: {r['statement']}. The document's chains: "
        f"{first}: **{r['verdict']}**; converged chains: {second}: "
        f"**{r['converged_verdict']}**."
    )


def _conclusions(n: int) -> str:
    return "1 conclusion changes" if n == 1 else f"{n} conclusions change"


def _one_run(d: dict) -> bool:
    """Whether the digest's minutes come from one run (a study-by-study digest has no total)."""
    return len(d.get("runs") or [None]) == 1 and all(
        r.get("minutes") is not None for r in d.get("runs") or []
    )


def _converged_line(d: dict) -> str:
    """README's sentence on the second verdicts (issue 33)."""
    if "converged" not in d:
        return ""
    t = _converged_totals(d)
    minutes = d.get("companion_minutes")
    spent = (
        f"; the companion jobs took {sum(minutes.values()):.0f} of the run's minutes"
        if minutes and _one_run(d)
        else ""
    )
    return (
        f"With converged chains: of the {sum(t.values())} rows computed from chains the "
        f"diagnostics can flag, {t['holds']} hold, {t['differs']} differ, "
        f"{t['not comparable']} are not comparable, {t['not run']} were not run and "
        f"{t[BUDGET_FIXED]} have no companion (the privacy budget fixes the "
        f"iterations); {_changed_counts(d['changed'])} (listed in `docs/results.md`)"
        f"{spent}."
    )


def _changed_counts(changed: list[dict]) -> str:
    method, diag = _split_changed(changed)
    return (
        f"{_conclusions(len(method))} about a method, and {len(diag)} rows about the chains' "
        "diagnostics change"
    )


def render_summary(d: dict, title: str = "Results at a glance") -> str:
    """The results document: the verdicts explained, the counts per study and every headline row."""
    lines = [f"# {title}", ""]
    run = _run_line(d)
    if run:
        lines += [run, ""]
    smoke = _smoke_line(d)
    if smoke:
        lines += [smoke, ""]
    lines += VERDICT_GUIDE + [""]
    lines += [
        "Scorecard verdicts per study (`results/fidelity.md` lists every row; a row is judged only "
        'at the setting the document\'s value refers to, otherwise it is "not comparable"):',
        "",
    ]
    lines += _table(d)
    lines += [
        "",
        "## Headline results",
        "",
        "Each line is a scorecard row: the document's statement, its value, ours with its Monte "
        "Carlo error, and the verdict (a row that differs names its class and its entry of "
        "`docs/deviations.md` in the scorecard); a row on a synthetic stand-in for the "
        "document's data says so.",
        "",
    ]
    lines += _headlines(d)
    lines += _converged_section(d)
    return "\n".join(lines) + "\n"


def render_readme_block(d: dict) -> str:
    """README's results block: one table at a glance, the run line and the smoke run's time."""
    lines = [README_BEGIN, ""] + _glance(d) + [""]
    run, smoke = _run_line(d), _smoke_line(d)
    if run:
        lines += [f"Paper scale, {run[0].lower()}{run[1:]}" + (f" {smoke}" if smoke else "")]
    converged = _converged_line(d)
    if converged:
        lines += ["", converged]
    lines += ["", README_END]
    return "\n".join(lines)


def _built(targets: dict[str, list[str]]) -> dict[str, list[int]]:
    """study -> [targets whose every file exists, targets]
    (``targets``: study -> [paths of each target])."""
    out = {}
    for study, groups in targets.items():
        n_ok = sum(all(Path(p).is_file() for p in paths) for paths in groups)
        out[study] = [n_ok, len(groups)]
    return out


def release_lines(digests: list[dict]) -> list[str]:
    """results/summary.md's section on the releases a user holds (no scorecard: no document):
    a line per release and noise-aware method, its first parameter's interval beside the naive
    one, and whether its chains passed the diagnostics."""
    if not digests:
        return []
    lines = ["", "## Your releases", ""]
    for d in digests:
        for method in dict.fromkeys(r["method"] for r in d["rows"]):
            rows = [r for r in d["rows"] if r["method"] == method]
            first, worst = rows[0], max(r["rhat"] for r in rows)
            passed = all(r["converged"] == "yes" for r in rows)
            lines.append(
                f"- `{d['name']}` ({d['model']}, n = {d['n']}, {d['mechanism']}), {method}: "
                f"{first['parameter']} {d['level']:.0%} interval [{first['lower']:.4g}, "
                f"{first['upper']:.4g}] (naive [{first['naive_lower']:.4g}, "
                f"{first['naive_upper']:.4g}]); chains "
                + (
                    "pass R-hat <= 1.01 and ESS >= 400"
                    if passed
                    else f"NOT converged (max R-hat {worst:.3f})"
                )
                + f"; every parameter in `releases/{d['name']}_posterior.md`."
            )
    return lines


def summary(input, output, *, targets: dict) -> None:
    """Rule step: results/fidelity.csv -> results/summary.md and its digest results/summary.json
    (``targets``: study -> the file lists of each of its targets), with a line per release the
    user holds (``input.releases``: their digests)."""
    d = digest_of(read_rows(input.fidelity), _built(targets))
    write_json(output.json, d)
    text = render_summary(d)
    releases = [read_json(p) for p in getattr(input, "releases", [])]
    if releases:
        text += "\n".join(release_lines(releases)) + "\n"
    write_text(output.md, text)
