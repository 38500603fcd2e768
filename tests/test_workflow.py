"""Workflow tests: the whole DAG at smoke scale, config refusal, resumption, determinism.

Each test runs Snakemake in a temporary copy of the workflow (Snakefile, workflow/, config/),
so the developer's own results/ are never touched.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
TARGETS_TSV = Path(__file__).parent / "data" / "targets.tsv"  # copy of shared/targets.tsv

# Targets of TARGETS.md that no issue has implemented yet (documented in README.md).
NOT_IMPLEMENTED_STUDIES = {"raisa2021"}
NOT_IMPLEMENTED_IDS = {
    ("bernstein2020", t) for t in
    ["fig3_1", "fig3_2", "fig3_3", "fig3_4", "fig3_5", "fig3_6",
     "fig5_10", "fig5_11", "fig5_12", "fig5_13", "fig5_14", "fig5_15", "fig5_16"]
}

pytestmark = pytest.mark.workflow


def expected_targets() -> list[Path]:
    paths = []
    with open(TARGETS_TSV, encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            study, tid, kind = row["study"], row["id"], row["kind"]
            if study in NOT_IMPLEMENTED_STUDIES or (study, tid) in NOT_IMPLEMENTED_IDS:
                continue
            for suffix in ((".pdf", ".png") if kind == "figure" else (".csv", ".md")):
                paths.append(Path("results") / study / f"{tid}{suffix}")
    return paths


def copy_workflow(dest: Path) -> Path:
    shutil.copy(ROOT / "Snakefile", dest / "Snakefile")
    for d in ("workflow", "config", "docs"):
        shutil.copytree(ROOT / d, dest / d, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--directory", str(workdir), "--snakefile",
           str(workdir / "Snakefile"), *args]
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}")
    return proc


def planned_jobs(proc: subprocess.CompletedProcess) -> dict[str, int]:
    """Rule -> count from the 'Job stats' table of a dry run."""
    counts = {}
    for line in (proc.stdout + proc.stderr).splitlines():
        m = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if m and m.group(1) != "total":
            counts[m.group(1)] = int(m.group(2))
    return counts


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    work = copy_workflow(tmp_path_factory.mktemp("smoke"))
    snakemake(work, "--cores", "2", "--configfile", "config/smoke.yaml")
    return work


def test_smoke_run_builds_every_implemented_target(smoke_run):
    missing = [str(p) for p in expected_targets() if not (smoke_run / p).is_file()]
    assert not missing, f"targets not built: {missing}"
    empty = [str(p) for p in expected_targets() if (smoke_run / p).stat().st_size == 0]
    assert not empty, f"empty targets: {empty}"


def test_tables_print_the_paper_values(smoke_run):
    for table in ("tab1", "tabS1", "runtime"):
        text = (smoke_run / "results" / "ju2022" / f"{table}.md").read_text()
        assert "paper" in text.lower()
    header = (smoke_run / "results" / "ju2022" / "tab1.csv").read_text().splitlines()[0]
    assert "paper_coverage" in header


def test_finished_run_has_nothing_to_do_and_resumes_only_lost_work(smoke_run):
    proc = snakemake(smoke_run, "-n", "--configfile", "config/smoke.yaml")
    assert "Nothing to be done" in proc.stdout + proc.stderr
    # an interrupted run: one chunk and everything downstream of it never got written
    res = smoke_run / "results" / "ju2022"
    lost = [next((res / "runs" / "linreg_coverage").rglob("chunk0.npz")), res / "experiments" / "linreg_coverage.npz",
            res / "experiments" / "linreg_coverage.csv", res / "tabS1.md"]
    for path in lost:
        path.unlink()
    jobs = planned_jobs(snakemake(smoke_run, "-n", "--configfile", "config/smoke.yaml"))
    assert jobs == {"ju2022_chunk": 1, "ju2022_aggregate": 1, "ju2022_experiment_summary": 1, "ju2022_tabS1": 1,
                    "all": 1}, jobs
    snakemake(smoke_run, "--cores", "2", "--configfile", "config/smoke.yaml")
    assert all(path.is_file() for path in lost)


def test_tables_are_identical_with_other_core_counts(smoke_run):
    tab = smoke_run / "results" / "ju2022" / "tab1.csv"
    before = {p: (smoke_run / p).read_bytes() for p in ("results/ju2022/tab1.csv", "results/ju2022/tab1.md")}
    shutil.rmtree(smoke_run / "results" / "ju2022" / "runs" / "loglinear_coverage")
    (smoke_run / "results" / "ju2022" / "experiments" / "loglinear_coverage.npz").unlink()
    tab.unlink()
    snakemake(smoke_run, "results/ju2022/tab1.csv", "--cores", "1", "--configfile", "config/smoke.yaml")
    after = {p: (smoke_run / p).read_bytes() for p in before}
    assert after == before


def _edit_config(tmp_path, edit) -> Path:
    work = copy_workflow(tmp_path)
    path = work / "config" / "config.yaml"
    cfg = yaml.safe_load(path.read_text())
    edit(cfg)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return work


def _set(path, value):
    def edit(cfg):
        node = cfg
        for key in path[:-1]:
            node = node[key]
        if value is _DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value
    return edit


_DELETE = object()


@pytest.mark.parametrize("path, value, expected", [
    (("ju2022", "experiments", "loglinear_coverage", "epsilons"), [0.1, -0.3],
     "'ju2022.experiments.loglinear_coverage.epsilons.1'"),
    (("ju2022", "loglinear", "mechanism"), "laplacian", "'ju2022.loglinear.mechanism'"),
    (("ju2022", "linreg", "sampler"), "hamiltonian", "'ju2022.linreg.sampler'"),
    (("ju2022", "iterations"), "many", "'ju2022.iterations'"),
    (("ju2022", "credible_level"), _DELETE, "'credible_level' is a required property"),
    (("ju2022", "burnin"), 20000, "'ju2022.burnin'"),
    (("ju2022", "linreg", "clamp"), [10, -10], "'ju2022.linreg.clamp'"),
    (("ju2022", "experiments", "loglinear_coverage", "replicats"), 5,
     "'ju2022.experiments.loglinear_coverage'"),
    (("seed",), -5, "'seed'"),
])
def test_bad_config_is_refused_before_any_job_naming_the_key(tmp_path, path, value, expected):
    work = _edit_config(tmp_path, _set(path, value))
    proc = snakemake(work, "-n", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert expected in out, out[-3000:]
    assert not (work / "results").exists() or not any((work / "results").rglob("*.npz"))
