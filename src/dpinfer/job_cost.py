"""What each job costs, and the run's cost profile (pure Python: the workflow process runs it).

Every job measures itself (:func:`job_record`, logged by :func:`dpinfer.pipeline.run_step` as the
last line of its log, ``... dpinfer: cost {json}``):

- ``wall_s``: wall time since the job's process started (interpreter start and imports included;
  Linux ``/proc``; the step's wall time elsewhere);
- ``cpu_s``: the process's CPU time, user + system;
- ``kernel_cpu_s``: CPU time inside the samplers' and estimators' timers
  (:mod:`dpinfer.kernel_time`), the useful work;
- ``step_wall_s``: wall time of the step itself (imports excluded).

:func:`write_profile` gathers the records of a run's logs into ``results/cost.md`` and
``results/cost.csv`` (per rule and per study: jobs, wall, CPU, kernel CPU, overhead = CPU -
kernel CPU), and, for the jobs run by this invocation, the efficiency kernel CPU / (cores x wall)
and the CPU time of the Snakemake process itself (parsing, scheduling: no job's record has it).
The workflow writes them after every successful run; they measure time (``dpinfer.measured_time``)
and are no scorecard input. ``python -m dpinfer.job_cost --logs logs --results results`` redoes it.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import resource
import time
from collections import defaultdict
from pathlib import Path

__all__ = ["job_record", "read_records", "write_profile", "UNITS"]

# a rule belongs to the first unit its name starts with (bernstein2020's figure and table rules
# are named after the target, not the chapter, so they count as "bernstein2020")
UNITS = (
    "bernstein2020_ch3",
    "bernstein2020_ch4",
    "bernstein2020_ch5",
    "bernstein2020_case",
    "bernstein2020",
    "ju2022",
    "raim2021",
    "raisa2021",
    "comparison",
)
_OTHER = "scorecard and summary"
_LINE = re.compile(r"dpinfer: cost (\{.*\})\s*$")
_FIELDS = ("wall_s", "cpu_s", "kernel_cpu_s")


def _process_wall(step_wall: float) -> float:
    """Seconds since this process started (Linux), else ``step_wall``."""
    try:
        start_ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(uptime - start_ticks / os.sysconf("SC_CLK_TCK"), step_wall)
    except (OSError, ValueError, IndexError):
        return step_wall


def job_record(rule: str, step_wall: float, kernel_cpu: float) -> dict:
    """The job's cost so far (see the module docstring)."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = use.ru_utime + use.ru_stime + kids.ru_utime + kids.ru_stime
    return {
        "rule": rule,
        "wall_s": round(_process_wall(step_wall), 3),
        "cpu_s": round(cpu, 3),
        "kernel_cpu_s": round(kernel_cpu, 3),
        "step_wall_s": round(step_wall, 3),
    }


def read_records(log_dir) -> list[dict]:
    """The cost record of every job log under ``log_dir`` (with the log's mtime), oldest first."""
    out = []
    for path in sorted(Path(log_dir).rglob("*.log")):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        m = next(filter(None, map(_LINE.search, reversed(lines[-5:]))), None)
        if m:
            out.append(dict(json.loads(m.group(1)), mtime=path.stat().st_mtime))
    return sorted(out, key=lambda r: r["mtime"])


def unit_of(rule: str) -> str:
    return next((u for u in UNITS if rule.startswith(u + "_")), _OTHER)


def _sums(records) -> dict:
    s = {k: sum(r[k] for r in records) for k in _FIELDS}
    s["jobs"] = len(records)
    s["overhead_s"] = s["cpu_s"] - s["kernel_cpu_s"]
    return s


def _share(part: float, whole: float) -> str:
    return f"{part / whole:.2f}" if whole > 0 else "n/a"


def profile(
    records: list[dict],
    started: float | None = None,
    cores: int | None = None,
    workflow_cpu: float | None = None,
) -> dict:
    """Per rule and per unit sums; for the jobs that finished after ``started``, the run's
    efficiency kernel CPU / (cores x wall), wall = now - ``started``, and ``workflow_cpu``, the
    Snakemake process's own CPU seconds."""
    by_rule, by_unit = defaultdict(list), defaultdict(list)
    for r in records:
        by_rule[r["rule"]].append(r)
        by_unit[unit_of(r["rule"])].append(r)
    out = {
        "rules": {k: _sums(v) for k, v in sorted(by_rule.items())},
        "units": {k: _sums(v) for k, v in sorted(by_unit.items())},
        "run": None,
    }
    if started is not None and cores:
        mine = [r for r in records if r["mtime"] >= started]
        wall = time.time() - started
        out["run"] = dict(
            _sums(mine),
            run_wall_s=wall,
            cores=int(cores),
            workflow_cpu_s=workflow_cpu,
            efficiency=_share(sum(r["kernel_cpu_s"] for r in mine), cores * wall),
        )
    return out


def _md_table(rows: dict, key: str) -> list[str]:
    lines = [
        f"| {key} | jobs | wall s | CPU s | kernel CPU s | overhead s | kernel / wall |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, s in rows.items():
        lines.append(
            f"| {name} | {s['jobs']} | {s['wall_s']:.1f} | {s['cpu_s']:.1f} | "
            f"{s['kernel_cpu_s']:.1f} | {s['overhead_s']:.1f} | "
            f"{_share(s['kernel_cpu_s'], s['wall_s'])} |"
        )
    return lines


def render(p: dict) -> tuple[str, str]:
    """(cost.md, cost.csv) of a profile."""
    md = [
        "# Cost profile of the run",
        "",
        "Per job: wall time of its process (start-up and imports included), its CPU time, the CPU "
        "time inside the samplers' and estimators' kernels, and the overhead CPU - kernel CPU "
        "(dpinfer.job_cost). Measured time: differs between runs; not a scorecard input.",
        "",
    ]
    if p["run"]:
        r = p["run"]
        md += [
            f"This invocation: {r['jobs']} jobs in {r['run_wall_s'] / 60:.1f} minutes on "
            f"{r['cores']} cores; kernel CPU {r['kernel_cpu_s']:.0f} s; efficiency kernel CPU / "
            f"(cores x wall) = {r['efficiency']}."
            + (
                " The Snakemake process itself (parsing, scheduling) used "
                f"{r['workflow_cpu_s']:.0f} CPU-s."
                if r.get("workflow_cpu_s") is not None
                else ""
            ),
            "",
        ]
    md += (
        ["## Per study", ""]
        + _md_table(p["units"], "study")
        + ["", "## Per rule", ""]
        + _md_table(p["rules"], "rule")
    )
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["unit", "rule", "jobs", "wall_s", "cpu_s", "kernel_cpu_s", "overhead_s"])
    for name, s in p["rules"].items():
        w.writerow(
            [unit_of(name), name, s["jobs"]] + [f"{s[k]:.3f}" for k in (*_FIELDS, "overhead_s")]
        )
    return "\n".join(md) + "\n", buf.getvalue()


def write_profile(
    log_dir,
    results_dir,
    started: float | None = None,
    cores: int | None = None,
    workflow_cpu: float | None = None,
) -> dict:
    """results/cost.md and results/cost.csv from the job logs under ``log_dir``."""
    from .io import write_text  # numpy: not at parse time (dpinfer.pipeline imports this module)

    p = profile(read_records(log_dir), started, cores, workflow_cpu)
    md, table = render(p)
    write_text(Path(results_dir) / "cost.md", md)
    write_text(Path(results_dir) / "cost.csv", table)
    return p


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="Write results/cost.{md,csv} from a run's job logs.")
    ap.add_argument("--logs", default="logs")
    ap.add_argument("--results", default="results")
    a = ap.parse_args(argv)
    print(render(write_profile(a.logs, a.results))[0])


if __name__ == "__main__":
    main()
