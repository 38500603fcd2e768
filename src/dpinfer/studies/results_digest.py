"""The paper-scale snapshot ``docs/results-digest.json`` (the verdict counts, the headline rows,
the targets built and the run's wall time), refreshed after a paper-scale run by

    python -m dpinfer.studies.results_digest [--results results] [--log-dir .snakemake/log]
                                             [--smoke-log-dir SMOKE_RUN/.snakemake/log]
                                             [--studies ju2022,raim2021]

which also rewrites ``docs/results.md`` and the block of README.md between the
``<!-- results:begin -->`` and ``<!-- results:end -->`` markers from the digest
(:mod:`.results_summary` renders them). ``--studies`` takes only those studies' entries from a run
that finished them (a paper-scale run outlasts a working session on 2 cores); the digest's
``runs`` then says which run each study comes from. A run of some studies only is the default
config with the others switched off by an overlay (``--configfile config/config.yaml
only.yaml``, ``only.yaml`` holding ``<study>: {enabled: false}`` per other study): a study's jobs,
claims and scorecard rows do not depend on the others. A test renders both files again from the
committed digest and fails when they differ, so no result number in README or docs/results.md
can drift from the results it came from.
"""

from __future__ import annotations

import argparse
import re
import subprocess
from datetime import timedelta
from pathlib import Path

from ..io import read_json, write_json, write_text
from .results_summary import (
    README_BEGIN,
    README_END,
    STUDIES,
    read_rows,
    render_readme_block,
    render_summary,
)

__all__ = ["refresh", "merge", "render_files"]


def _wall_minutes(log_dir: Path) -> float | None:
    """Sum of 'Elapsed time' over the Snakemake logs of runs that finished jobs. Only runs that
    ended by themselves log it: for a run that was killed and resumed, pass no log folder (the
    snapshot then says its time was not measured) rather than undercount."""
    total = timedelta()
    for path in sorted(Path(log_dir).glob("*.snakemake.log")):
        text = path.read_text(encoding="utf-8", errors="replace")
        m = re.search(r"Elapsed time: (\d+):(\d+):(\d+(?:\.\d+)?)", text)
        if m and "Finished jobid" in text:
            total += timedelta(
                hours=int(m.group(1)), minutes=int(m.group(2)), seconds=float(m.group(3))
            )
    return total.total_seconds() / 60 if total else None


def _study_minutes(cost_csv: Path, cores: int = 2, rule_part: str = "") -> dict[str, float] | None:
    """Per study, its jobs' wall time summed over its units (dpinfer.job_cost), / cores, in
    minutes; with ``rule_part``, only the rules whose name contains it."""
    if not cost_csv.exists():
        return None
    out = {}
    for row in read_rows(cost_csv):
        study = next((s for s in STUDIES if row["unit"].startswith(s)), None)
        if study and rule_part in row["rule"]:
            out[study] = out.get(study, 0.0) + float(row["wall_s"]) / cores / 60
    return {k: round(v, 2) for k, v in sorted(out.items())}


def _companion_minutes(cost_csv: Path, cores: int = 2) -> dict[str, float] | None:
    """Per study, the minutes of its converged companions' jobs (rules ``*_converged*``,
    issue 33)."""
    return _study_minutes(cost_csv, cores, rule_part="_converged")


def _efficiency(cost_csv: Path, minutes: float, cores: int = 2) -> float | None:
    """The run's kernel CPU seconds (every job's, dpinfer.job_cost) over cores x its wall time."""
    if not cost_csv.exists() or minutes <= 0:
        return None
    kernel = sum(float(row["kernel_cpu_s"]) for row in read_rows(cost_csv))
    return round(kernel / (cores * minutes * 60), 3)


def _replace_block(readme: str, block: str) -> str:
    start, end = readme.find(README_BEGIN), readme.find(README_END)
    if start < 0 or end < start:
        raise ValueError("README.md has no results block (its begin and end markers)")
    return readme[:start] + block + readme[end + len(README_END) :]


def _commit(checkout: Path) -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True
    ).stdout.strip()


def refresh(
    results: Path | None,
    root: Path,
    log_dir: Path | None,
    smoke_log_dir: Path | None = None,
    studies=None,
) -> dict:
    """docs/results-digest.json from a finished paper-scale run (its results/summary.json, the wall
    time of its Snakemake logs, the commit) and/or the Snakemake logs of a smoke run (its wall
    time and commit; the digest keeps the other part as it was), then docs/results.md and
    README's block from it."""
    path = root / "docs" / "results-digest.json"
    old = read_json(path) if path.exists() else {}
    if results is not None:
        d = read_json(results / "summary.json")
        d["minutes"] = _wall_minutes(log_dir) if log_dir else None
        # the commit of the checkout that ran (the results folder's parent), not of the one that
        # renders
        d["commit"] = _commit(results.resolve().parent)
        d["study_minutes"] = (
            _study_minutes(results / "cost.csv") if d["minutes"] is not None else None
        )
        d["efficiency"] = (
            _efficiency(results / "cost.csv", d["minutes"]) if d["minutes"] is not None else None
        )
        d["companion_minutes"] = (
            _companion_minutes(results / "cost.csv") if d["minutes"] is not None else None
        )
        if "smoke" in old:
            d["smoke"] = old["smoke"]
        if studies:
            d = merge(old, d, studies)
    else:
        d = old
    if smoke_log_dir is not None:
        minutes = _wall_minutes(smoke_log_dir)
        if minutes is None:
            raise ValueError(f"no finished smoke run in {smoke_log_dir}")
        d["smoke"] = {
            "minutes": round(minutes, 2),
            "commit": _commit(smoke_log_dir.resolve().parents[1]),
        }
    write_json(path, d)
    render_files(root, d)
    return d


def merge(old: dict, new: dict, studies) -> dict:
    """The digest ``old`` with every entry of ``studies`` (counts, targets built, second verdicts,
    headline and changed rows, minutes) taken from ``new``, a digest of a run of those studies,
    and ``runs`` saying which run each study's entries come from. A paper-scale run outlasts a
    working session on 2 cores, so the snapshot can be refreshed one study at a time."""
    studies = sorted(set(studies))
    missing = [s for s in studies if s not in new.get("counts", {})]
    if missing:
        raise ValueError(f"the run has no scorecard rows of {missing}")
    d = {}
    for key in ("counts", "built", "converged"):
        d[key] = {s: v for s, v in old.get(key, {}).items() if s not in studies}
        d[key].update({s: new[key][s] for s in studies if s in new.get(key, {})})
    for key in ("headlines", "changed"):
        d[key] = [r for r in old.get(key, []) if r["study"] not in studies]
        d[key] += [r for r in new.get(key, []) if r["study"] in studies]
    for key in ("study_minutes", "companion_minutes"):
        merged = {s: v for s, v in (old.get(key) or {}).items() if s not in studies}
        merged.update({s: v for s, v in (new.get(key) or {}).items() if s in studies})
        d[key] = merged or None
    runs = old.get("runs") or [
        {
            "commit": old.get("commit", ""),
            "studies": sorted(old.get("counts", {})),
            "minutes": old.get("minutes"),
            **({"classes_from": old["classes_from"]} if old.get("classes_from") else {}),
        }
    ]
    runs = [dict(r, studies=[s for s in r["studies"] if s not in studies]) for r in runs]
    runs = [r for r in runs if r["studies"]]
    fresh = {"commit": new.get("commit", ""), "studies": studies, "minutes": new.get("minutes")}
    same = [r for r in runs if set(r) == set(fresh) and r["commit"] == fresh["commit"]]
    if same and fresh["minutes"] is None and same[0]["minutes"] is None:
        # another part of the same untimed run (the study-by-study refresh of one checkout)
        same[0]["studies"] = sorted(same[0]["studies"] + studies)
    else:
        runs.append(fresh)
    d.update(minutes=None, commit="", efficiency=None, runs=runs)
    if "smoke" in old:
        d["smoke"] = old["smoke"]
    return d


def render_files(root: Path, d: dict) -> None:
    """docs/results.md and README's block from the digest ``d``."""
    write_text(root / "docs" / "results.md", render_summary(d, "Results at paper scale"))
    readme = root / "README.md"
    write_text(readme, _replace_block(readme.read_text(encoding="utf-8"), render_readme_block(d)))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description="Refresh docs/results-digest.json, docs/results.md and README's "
        "results block from a finished paper-scale run."
    )
    ap.add_argument(
        "--results",
        default="results",
        help="the paper-scale run's results folder (with summary.json); '' to keep the digest's",
    )
    ap.add_argument(
        "--log-dir",
        default=".snakemake/log",
        help="its Snakemake logs, for the wall time ('' for a run that was killed and resumed: "
        "not measured)",
    )
    ap.add_argument(
        "--smoke-log-dir",
        default=None,
        help="the Snakemake logs (.snakemake/log) of a smoke run that ran alone as the first run "
        "of a fresh clone and install, for its wall time",
    )
    ap.add_argument(
        "--studies",
        default="",
        help="comma-separated: refresh only these studies' entries from --results (a run that "
        "finished them), keeping the others' from the committed digest",
    )
    ap.add_argument("--root", default=".", help="the repository (README.md, docs/)")
    a = ap.parse_args(argv)
    d = refresh(
        Path(a.results) if a.results else None,
        Path(a.root),
        Path(a.log_dir) if a.log_dir else None,
        Path(a.smoke_log_dir) if a.smoke_log_dir else None,
        [s for s in a.studies.split(",") if s],
    )
    print(render_summary(d))


if __name__ == "__main__":
    main()
