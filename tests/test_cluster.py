"""docs/cluster.md: the SLURM profile gives each job its rule's threads (as CPUs) and memory, and
measured time is only where dpinfer.measured_time (and the docs, which print it) says."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from dpinfer.measured_time import (
    DOCUMENT_TIMES,
    TIMING_CLAIMS,
    TIMING_TABLES,
    is_timing_claim,
    timing_files,
)
from tests.workflow import SMOKE, copy_workflow

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "profiles" / "slurm" / "config.yaml"

# what the rules declare (MB) and docs/cluster.md lists; every other rule gets the profile's default
RULE_MEM_MB = {
    "ju2022_run_chunk": 1000,
    "ju2022_summarise_experiment": 1000,
    "raim2021_run_gibbs": 1000,
    "bernstein2020_ch4_run_chunk": 1500,
    "bernstein2020_ch5_run_cirrhosis": 1500,
    "bernstein2020_ch5_run_synthetic": 2000,
    "bernstein2020_ch4_run_converged": 1500,
    "ju2022_run_converged": 1500,
    "ju2022_summarise_converged": 1000,
    "raim2021_run_converged": 1000,
}
RULE_CPUS = {"raim2021_run_timing": 2}  # every other rule: 1


# ----------------------------------------------------------------------------- CPUs and memory
def test_no_profile_forces_cpus_threads_or_memory_on_every_rule():
    """A cpus_per_task in default-resources wins over every rule's threads (it gave the timed
    raim2021 job one CPU); set-threads / set-resources would override the rules too, and the
    default profile, loaded under --profile as well, would override the SLURM profile's keys."""
    slurm = yaml.safe_load(PROFILE.read_text(encoding="utf-8"))
    assert "cpus_per_task" not in slurm["default-resources"], slurm["default-resources"]
    assert slurm["default-resources"]["mem_mb"] == 2000
    assert "set-threads" not in slurm
    for rule, res in (slurm.get("set-resources") or {}).items():
        assert not {"cpus_per_task", "threads", "mem_mb", "mem"} & set(res), (rule, res)
    default = yaml.safe_load(
        (ROOT / "profiles" / "default" / "config.yaml").read_text(encoding="utf-8")
    )
    assert not {"default-resources", "set-resources", "set-threads", "resources", "cores"} & set(
        default
    ), default


def _slurm_cpus(threads: int, resources: dict) -> int:
    """The CPUs the slurm executor requests for a job (--cpus-per-task): the plugin's own
    function when it is installed, else its documented rule (cpus_per_task, else threads)."""
    try:
        from snakemake_executor_plugin_slurm.partitions import get_job_cpu_requirement
    except ImportError:
        return int(resources.get("cpus_per_task", threads))
    cpus, kind = get_job_cpu_requirement(SimpleNamespace(threads=threads, resources=resources))
    assert kind == "task"
    return cpus


def test_the_slurm_executor_requests_a_rules_threads_as_cpus():
    """The mapping the profile relies on, pinned against the installed plugin: without
    cpus_per_task a job gets its threads; with it, cpus_per_task wins (the old profile's bug)."""
    pytest.importorskip("snakemake_executor_plugin_slurm")
    defaults = yaml.safe_load(PROFILE.read_text(encoding="utf-8"))["default-resources"]
    assert _slurm_cpus(2, dict(defaults)) == 2
    assert _slurm_cpus(1, dict(defaults)) == 1
    assert _slurm_cpus(2, dict(defaults, cpus_per_task=1)) == 1


def _dry_run_jobs(proc) -> dict[str, list[tuple[int, dict]]]:
    """rule -> [(threads, resources)] of every job a dry run lists."""
    jobs, rule, threads = {}, None, 1
    for line in proc.stdout.splitlines():
        if line.startswith(("rule ", "localrule ")):
            rule, threads = line.split()[1].rstrip(":"), 1
        elif rule and line.strip().startswith("threads:"):
            threads = int(line.split(":", 1)[1])
        elif rule and line.strip().startswith("resources:"):
            res = dict(kv.split("=", 1) for kv in line.split(":", 1)[1].strip().split(", "))
            jobs.setdefault(rule, []).append((threads, res))
    return jobs


@pytest.mark.workflow
def test_slurm_dry_run_gives_each_job_its_rules_cpus_and_memory(tmp_path):
    """docs/cluster.md: SLURM_ACCOUNT=... SLURM_PARTITION=... snakemake --profile profiles/slurm.
    Every job gets the account, the partition, its rule's memory (the profile's 2,000 MB where the
    rule declares none) and its rule's threads as CPUs: 2 for raim2021_run_timing, 1 for every
    other rule. A dry run caps threads at --cores, which defaults to 1 there; a SLURM run has no
    such cap, hence --cores 64."""
    work = copy_workflow(tmp_path)
    env = dict(os.environ, SLURM_ACCOUNT="proj42", SLURM_PARTITION="short")
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--directory",
        str(work),
        "--snakefile",
        str(work / "Snakefile"),
        "-n",
        "--profile",
        "profiles/slurm",
        "--cores",
        "64",
        *SMOKE,
    ]
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    jobs = _dry_run_jobs(proc)
    assert len(jobs) > 20 and "raim2021_run_timing" in jobs and "raim2021_run_gibbs" in jobs, (
        sorted(jobs)
    )
    for rule, listed in jobs.items():
        if rule == "all":
            continue
        for threads, res in listed:
            assert res["slurm_account"] == "proj42" and res["slurm_partition"] == "short", (
                rule,
                res,
            )
            assert _slurm_cpus(threads, res) == RULE_CPUS.get(rule, 1), (rule, threads, res)
            assert int(res["mem_mb"]) == RULE_MEM_MB.get(rule, 2000), (rule, res)


# ----------------------------------------------------------------------------- measured time
# a column named for time; "_s" as a unit suffix is lower case ("S" is a replicate count)
TIME_COLUMN = re.compile(r"(?i:second|cpu|time|wall|minute|hour|speed)|(?:^|_)s$|_s_")
# a scorecard statement about run time
# (plural "seconds": "the chain's second half" is not about time)
TIME_STATEMENT = re.compile(
    r"\bCPU\b|\bseconds\b|per second\b|\brun ?time\b|\bwall\b|\bminutes\b|\bhours\b", re.I
)
TIMING_DOCS = ("cluster.md", "deviations.md")


def _doc_timing_tables(text: str) -> dict[str, tuple[str, ...]]:
    """Rows `| `file.csv` | `col`, `col` |` of a doc: file -> columns."""
    out = {}
    for m in re.finditer(r"^\| `([^`]+\.csv)` \| (.*) \|$", text, flags=re.MULTILINE):
        out[m.group(1)] = tuple(re.findall(r"`([^`]+)`", m.group(2)))
    return out


def _doc_timing_claims(text: str) -> set[tuple[str, str]]:
    """Rows `| `target` | `prefix` (...) |` or `| `target` | every row (...) |` of a doc."""
    out = set()
    for m in re.finditer(
        r"^\| `(\w+)` \| (?:`([^`]+)`|every row)[^|]*\|$", text, flags=re.MULTILINE
    ):
        out.add((m.group(1), m.group(2) or ""))
    return out


@pytest.mark.parametrize("doc", TIMING_DOCS)
def test_the_docs_list_exactly_the_measured_time(doc):
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    assert _doc_timing_tables(text) == TIMING_TABLES
    for path, column in DOCUMENT_TIMES:
        assert path in TIMING_TABLES and column not in TIMING_TABLES[path]
    if doc == "cluster.md":
        assert _doc_timing_claims(text) == set(TIMING_CLAIMS)
    else:
        for target, prefix in TIMING_CLAIMS:
            assert f"`{target}`" in text and (not prefix or f"`{prefix}`" in text), (target, prefix)


def _results_csvs(run: Path) -> dict[str, list[dict]]:
    res = run / "results"
    out = {}
    for p in sorted(res.rglob("*.csv")):
        with open(p, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            out[p.relative_to(res).as_posix()] = (reader.fieldnames or [], list(reader))
    return out


def _is_scorecard(path: str) -> bool:
    return "/claims/" in path or path == "fidelity.csv"


@pytest.mark.workflow
def test_measured_time_is_only_in_the_documented_columns(smoke_run):
    """Every column of the smoke run's tables whose name says time is a documented measured-time
    column (dpinfer.measured_time.TIMING_TABLES) or a document's own time (DOCUMENT_TIMES), and
    every documented column exists; its Markdown twin exists too."""
    tables = _results_csvs(smoke_run)
    found = {
        (path, col)
        for path, (cols, _) in tables.items()
        if not _is_scorecard(path)
        for col in cols
        if TIME_COLUMN.search(col)
    }
    documented = {
        (path, col)
        for path, cols in TIMING_TABLES.items()
        for col in cols
        if TIME_COLUMN.search(col)
    }
    assert found == documented | DOCUMENT_TIMES
    for path, cols in TIMING_TABLES.items():
        assert path in tables, path
        assert set(cols) <= set(tables[path][0]), (path, tables[path][0])
    assert all((smoke_run / "results" / p).is_file() for p in timing_files())


@pytest.mark.workflow
def test_scorecard_rows_about_time_are_the_documented_ones(smoke_run):
    """A scorecard row (claims files, results/fidelity.csv) is a documented timing row exactly when
    its statement speaks of CPU, seconds or run time, and every documented kind of row occurs."""
    seen = set()
    tables = _results_csvs(smoke_run)
    assert "fidelity.csv" in tables and any("/claims/" in p for p in tables)
    for path, (_, rows) in tables.items():
        if not _is_scorecard(path):
            continue
        for r in rows:
            timing = is_timing_claim(r["target"], r["statement"])
            assert timing == bool(TIME_STATEMENT.search(r["statement"])), (
                path,
                r["target"],
                r["statement"],
            )
            seen |= {
                (t, p)
                for t, p in TIMING_CLAIMS
                if r["target"] == t and r["statement"].startswith(p)
            }
    assert seen == set(TIMING_CLAIMS)


@pytest.mark.workflow
def test_the_workflow_tests_compare_everything_but_measured_time(smoke_run):
    """tests/workflow.py's tables() (the byte-identical comparisons) leaves out exactly the timing
    tables and the scorecard's timing rows."""
    from tests.workflow import TIMING_TABLES as EXCLUDED
    from tests.workflow import tables

    assert EXCLUDED == timing_files()
    compared = tables(smoke_run)
    assert not set(compared) & timing_files()
    for path, data in compared.items():
        if "/claims/" not in path:
            continue
        rows = list(csv.DictReader(data.decode().splitlines(keepends=True)))
        assert rows and not [
            r["target"] for r in rows if is_timing_claim(r["target"], r["statement"])
        ], path


def _declared_memory() -> dict[str, int]:
    """rule -> mem_mb of every rule file's rules that declare one."""
    out = {}
    for path in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        rule = None
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"rule (\w+):", line)
            if m:
                rule = m.group(1)
            m = re.search(r"\bmem_mb=(\d+)", line)
            if m and rule:
                out[rule] = int(m.group(1))
    return out


def test_the_docs_list_every_rules_memory():
    """docs/cluster.md's memory list is every rule that declares mem_mb, with its value."""
    text = (ROOT / "docs" / "cluster.md").read_text(encoding="utf-8")
    bullet = text[text.index("- **Memory.**") : text.index("- **Runtime.**")]
    listed = {r: int(mb) for r, mb in re.findall(r"`(\w+)`: (\d+) MB", bullet)}
    assert listed == _declared_memory() == RULE_MEM_MB
