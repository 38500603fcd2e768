"""What the workflow tests share: the targets, a temporary copy of the workflow, Snakemake in a
subprocess, and one smoke run per test session that every workflow test file reads.

The smoke run is built once, by whichever pytest worker asks first (the others wait on a lock),
and is read-only afterwards: a test that reruns or edits results works on its own copy
(``copy_run``), and a dry run's config overlay is written outside it.
"""

from __future__ import annotations

import csv
import fcntl
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from dpinfer.measured_time import is_timing_claim, timing_files

ROOT = Path(__file__).resolve().parents[1]
TARGETS_TSV = Path(__file__).parent / "data" / "targets.tsv"  # copy of shared/targets.tsv
SMOKE = ("--configfile", "config/smoke.yaml")

# Targets of TARGETS.md that no issue has implemented yet (documented in README.md).
NOT_IMPLEMENTED_STUDIES: set[str] = set()
NOT_IMPLEMENTED_IDS: set[tuple[str, str]] = set()
# targets beyond the source documents' (targets.tsv): the comparison study (issue 15)
EXTRA_TARGETS = [
    ("comparison", tid, kind)
    for tid, kind in (
        ("accuracy_vs_eps", "figure"),
        ("accuracy_vs_n", "figure"),
        ("ess_per_second", "figure"),
        ("metrics", "table"),
        ("cost", "table"),
        ("recommended", "table"),
    )
]
# the own-data study's targets for the default config's worked example: ids per data set, one
# caption and one renderer per kind (workflow/report/own_data/, own_data/figures.py)
OWN_DATA_TARGETS = [
    ("own_data", f"fair_{tid}", kind)
    for tid, kind in (
        ("accuracy", "figure"),
        ("metrics", "table"),
        ("cost", "table"),
        ("recommended", "table"),
    )
]
# the releases section's targets for the default config's worked examples (report/releases/)
RELEASE_TARGETS = [
    ("releases", f"{name}_{tid}", kind)
    for name in ("ju2022_tables", "ju2022_regression")
    for tid, kind in (("marginals", "figure"), ("posterior", "table"))
]
# study units: (config path of the section, results prefix of its tables)
UNITS = {
    "ju2022": (("ju2022",), "ju2022/"),
    "bernstein2020_ch3": (("bernstein2020", "chapter3"), "bernstein2020/ch3/"),
    "bernstein2020_ch4": (("bernstein2020", "chapter4"), "bernstein2020/ch4/"),
    "bernstein2020_ch5": (("bernstein2020", "chapter5"), "bernstein2020/ch5/"),
    "bernstein2020_case": (("bernstein2020", "case_study"), "bernstein2020/case/"),
    "raim2021": (("raim2021",), "raim2021/"),
    "raisa2021": (("raisa2021",), "raisa2021/"),
    "comparison": (("comparison",), "comparison/"),
    "own_data": (("own_data",), "own_data/"),
}
# the tables that measure time, CSV and Markdown (docs/cluster.md, "Timing tables")
TIMING_TABLES = timing_files()


def _without_timing_rows(data: bytes) -> bytes:
    """A claims CSV without its rows about measured time (dpinfer.measured_time.TIMING_CLAIMS),
    matched on the parsed target and statement (a statement with a comma is quoted)."""
    rows = list(csv.reader(io.StringIO(data.decode(), newline="")))
    i, j = rows[0].index("target"), rows[0].index("statement")
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(
        r for r in rows if r is rows[0] or not is_timing_claim(r[i], r[j])
    )
    return out.getvalue().encode()


def target_rows() -> list[tuple[str, str, str]]:
    """(study, id, kind) of every implemented target: targets.tsv's and EXTRA_TARGETS."""
    with open(TARGETS_TSV, encoding="utf-8") as fh:
        rows = [(r["study"], r["id"], r["kind"]) for r in csv.DictReader(fh, delimiter="\t")]
    return [
        (study, tid, kind)
        for study, tid, kind in rows + EXTRA_TARGETS
        if study not in NOT_IMPLEMENTED_STUDIES and (study, tid) not in NOT_IMPLEMENTED_IDS
    ]


def expected_targets() -> list[Path]:
    paths = []
    for study, tid, kind in target_rows() + OWN_DATA_TARGETS + RELEASE_TARGETS:
        for suffix in (".pdf", ".png") if kind == "figure" else (".csv", ".md"):
            paths.append(Path("results") / study / f"{tid}{suffix}")
    return paths


def copy_workflow(dest: Path) -> Path:
    shutil.copy(ROOT / "Snakefile", dest / "Snakefile")
    for d in ("workflow", "config", "docs", "profiles"):
        shutil.copytree(ROOT / d, dest / d, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--directory",
        str(workdir),
        "--snakefile",
        str(workdir / "Snakefile"),
        *args,
    ]
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"snakemake {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"
        )
    return proc


def snakemake_batch(
    calls: list[tuple[Path, tuple[str, ...]]], scratch: Path
) -> list[subprocess.CompletedProcess]:
    """Several Snakemake command lines, (workdir, args) each, run one after another in one Python
    process (tests/snakemake_batch.py): for each, the exit code and output that
    ``snakemake(workdir, *args, check=False)`` gives, without a Snakemake import per call."""
    request, answer = scratch / "snakemake-calls.json", scratch / "snakemake-results.json"
    request.write_text(json.dumps([[str(work), list(args)] for work, args in calls]))
    runner = Path(__file__).with_name("snakemake_batch.py")
    proc = subprocess.run(
        [sys.executable, str(runner), str(request), str(answer)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise AssertionError(
            f"the Snakemake batch failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"
        )
    results = json.loads(answer.read_text())
    return [
        subprocess.CompletedProcess(["snakemake", *args], r["returncode"], r["stdout"], r["stderr"])
        for (_, args), r in zip(calls, results)
    ]


def planned_jobs(proc: subprocess.CompletedProcess) -> dict[str, int]:
    """Rule -> count from the 'Job stats' table of a dry run."""
    counts = {}
    for line in (proc.stdout + proc.stderr).splitlines():
        m = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if m and m.group(1) != "total":
            counts[m.group(1)] = int(m.group(2))
    return counts


def compute_jobs(jobs: dict[str, int]) -> dict[str, int]:
    return {rule: n for rule, n in jobs.items() if "_run_" in rule}


def tables(workdir: Path, prefix: str = "") -> dict[str, bytes]:
    """Every table of a run except those that measure time (claims without their timing rows)."""
    res = workdir / "results"
    out = {}
    for p in sorted(res.rglob("*")):
        rel = p.relative_to(res).as_posix()
        if p.suffix in (".csv", ".md") and rel.startswith(prefix) and rel not in TIMING_TABLES:
            data = p.read_bytes()
            if "/claims/" in rel:
                data = _without_timing_rows(data)
            out[rel] = data
    return out


def write_yaml(path: Path, data) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def nested(keys, value) -> dict:
    out = value
    for key in reversed(keys):
        out = {key: out}
    return out


def scorecard_rows(work: Path) -> list[dict]:
    with open(work / "results" / "fidelity.csv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def only_section(cfg: dict, keys: tuple) -> dict:
    out = {"seed": cfg["seed"]} if "seed" in cfg else {}
    node = cfg
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return out
        node = node[key]
    out.update(nested(keys, node))
    return out


def merge(a: dict, b: dict) -> dict:
    out = dict(a)
    for key, value in b.items():
        out[key] = (
            merge(out[key], value)
            if isinstance(value, dict) and isinstance(out.get(key), dict)
            else value
        )
    return out


def assert_refused_with(proc, expected):
    """The message comes first and alone: no traceback into the rule files."""
    out = proc.stdout + proc.stderr
    assert expected in out, out[-3000:]
    lines = [
        x
        for x in out.splitlines()
        if x.strip() and not x.startswith("Using workflow specific profile")
    ]
    assert expected in lines[0], lines[:3]
    assert "Traceback" not in out and 'File "' not in out, out[-3000:]


def build_smoke_run(tmp_path_factory) -> Path:
    """The session's smoke run: built once under the session's temporary root, which pytest-xdist
    workers share (without xdist, this process's own temporary directory)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    work = root / "smoke-run"
    with open(root / "smoke-run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (work / "BUILT").is_file():
            if work.exists():
                shutil.rmtree(work)  # a build that failed in another worker: start again
            work.mkdir()
            copy_workflow(work)
            snakemake(work, "--cores", "2", *SMOKE)
            (work / "BUILT").write_text("")
    return work


def copy_run(smoke_run: Path, dest: Path) -> Path:
    """A private copy of the finished smoke run, file times and Snakemake's records kept (so it is
    as complete as the original), without Snakemake's own logs."""

    def ignore(directory, names):
        return {"log"} & set(names) if Path(directory).name == ".snakemake" else set()

    shutil.copytree(smoke_run, dest, symlinks=True, ignore=ignore)
    return dest
