"""Each job measures its cost and the run writes its cost profile (issue 31, item 1): nested
kernel timers count each second once; a job's record separates kernel CPU from overhead; the
smoke run's results/cost.{md,csv} cover every job with a kernel and say the run's efficiency."""

from __future__ import annotations

import csv
import json
import re
import time

import pytest

from dpinfer import job_cost
from dpinfer.kernel_time import CpuTimer, kernel_seconds


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_nested_timers_add_each_second_once():
    before = kernel_seconds()
    with CpuTimer() as outer:
        _burn(0.05)
        inner = CpuTimer().start()
        _burn(0.05)
        inner.stop()
    _burn(0.05)  # outside every timer: overhead, not kernel
    added = kernel_seconds() - before
    assert inner.seconds >= 0.05 and outer.seconds >= 0.1
    assert added == pytest.approx(outer.seconds, abs=1e-9), "only the outermost timer counts"


def test_a_job_record_separates_kernel_cpu_from_overhead():
    with CpuTimer():
        _burn(0.05)
    r = job_cost.job_record("ju2022_run_chunk", step_wall=0.06, kernel_cpu=0.05)
    assert r["rule"] == "ju2022_run_chunk" and r["kernel_cpu_s"] == 0.05
    assert r["cpu_s"] > r["kernel_cpu_s"], (
        "this process has spent CPU outside kernels (imports, pytest)"
    )
    assert r["wall_s"] >= r["step_wall_s"]


def _log(path, rule, wall, cpu, kernel):
    path.parent.mkdir(parents=True, exist_ok=True)
    rec = {
        "rule": rule,
        "wall_s": wall,
        "cpu_s": cpu,
        "kernel_cpu_s": kernel,
        "step_wall_s": wall / 2,
    }
    path.write_text(
        f"2026 dpinfer: step x starts\n2026 dpinfer: cost {json.dumps(rec)}\n", encoding="utf-8"
    )


def test_the_profile_sums_per_rule_and_study_and_rates_this_run(tmp_path):
    logs = tmp_path / "logs"
    _log(logs / "old.log", "raim2021_run_gibbs", 10.0, 9.0, 6.0)
    started = time.time()
    _log(logs / "a" / "1.log", "raim2021_run_gibbs", 4.0, 3.5, 3.0)
    _log(logs / "a" / "2.log", "fidelity", 2.0, 1.0, 0.0)
    (logs / "no_record.log").write_text("2026 dpinfer: step y starts\n")
    p = job_cost.profile(job_cost.read_records(logs), started=started, cores=2, workflow_cpu=7.4)
    assert p["rules"]["raim2021_run_gibbs"] == {
        "jobs": 2,
        "wall_s": 14.0,
        "cpu_s": 12.5,
        "kernel_cpu_s": 9.0,
        "overhead_s": 3.5,
    }
    assert set(p["units"]) == {"raim2021", "scorecard and summary"}
    assert job_cost.unit_of("bernstein2020_fig3_1") == "bernstein2020"
    assert job_cost.unit_of("bernstein2020_case_run_batch") == "bernstein2020_case"
    assert p["run"]["jobs"] == 2 and p["run"]["kernel_cpu_s"] == 3.0 and p["run"]["cores"] == 2
    md, table = job_cost.render(p)
    assert "| raim2021 | 2 | 14.0 | 12.5 | 9.0 | 3.5 | 0.64 |" in md and "efficiency" in md
    assert "The Snakemake process itself (parsing, scheduling) used 7 CPU-s." in md
    assert list(csv.DictReader(table.splitlines()))[1]["rule"] == "raim2021_run_gibbs"


@pytest.mark.workflow
def test_the_smoke_run_writes_its_cost_profile_from_every_job(smoke_run):
    logs = sorted((smoke_run / "logs").rglob("*.log"))
    records = job_cost.read_records(smoke_run / "logs")
    assert len(records) == len(logs), "every job log ends with its cost record"
    rows = {
        r["rule"]: r
        for r in csv.DictReader((smoke_run / "results" / "cost.csv").open(encoding="utf-8"))
    }
    assert set(rows) == {r["rule"] for r in records}
    kernel = {rule for rule, r in rows.items() if float(r["kernel_cpu_s"]) > 0}
    assert {
        "ju2022_run_chunk",
        "raim2021_run_gibbs",
        "raisa2021_run_chains",
        "bernstein2020_ch3_run_cell",
        "comparison_run_chunk",
    } <= kernel, kernel
    assert all(
        float(r["cpu_s"]) >= float(r["kernel_cpu_s"]) - 0.05 * int(r["jobs"]) for r in rows.values()
    )
    md = (smoke_run / "results" / "cost.md").read_text(encoding="utf-8")
    assert "efficiency kernel CPU / (cores x wall) =" in md and "## Per study" in md
    assert re.search(
        r"The Snakemake process itself \(parsing, scheduling\) used \d+ CPU-s\.", md
    ), md[:800]
