"""Workflow tests: the whole DAG at smoke scale, each study alone, narrow jobs (no rerun storms),
parse-time checks, config refusal, resumption and determinism.

Each test runs Snakemake in a temporary copy of the workflow (Snakefile, workflow/, config/,
docs/), so the developer's own results/ are never touched. Compute rules (simulate, release,
sample) are named ``<unit>_run_<what>``.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
TARGETS_TSV = Path(__file__).parent / "data" / "targets.tsv"  # copy of shared/targets.tsv
SMOKE = ("--configfile", "config/smoke.yaml")

# Targets of TARGETS.md that no issue has implemented yet (documented in README.md).
NOT_IMPLEMENTED_STUDIES: set[str] = set()
NOT_IMPLEMENTED_IDS: set[tuple[str, str]] = set()
# targets beyond the source documents' (targets.tsv): the comparison study (issue 15)
EXTRA_TARGETS = [("comparison", tid, kind) for tid, kind in (
    ("accuracy_vs_eps", "figure"), ("accuracy_vs_n", "figure"), ("ess_per_second", "figure"),
    ("metrics", "table"), ("cost", "table"), ("recommended", "table"))]
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
}
TIMING_TABLES = {"ju2022/runtime.csv", "ju2022/runtime.md", "raim2021/timing.csv", "raim2021/timing.md",
                 "bernstein2020/ch3/runtime.csv", "bernstein2020/ch3/runtime.md",
                 "bernstein2020/case/runtime.csv", "bernstein2020/case/runtime.md",
                 # the comparison study's cost and the recommendation derived from it
                 "comparison/cost.csv", "comparison/cost.md", "comparison/recommended.csv",
                 "comparison/recommended.md"}
# scorecard rows about measured time (they differ between runs like the timing tables)
TIMING_CLAIMS = ("runtime,", "timing,", "fig5_8,", "fig3_4,runtime", "fig3_6,runtime", "fig5_14,runtime",
                 "cost,", "ess_per_second,")

pytestmark = pytest.mark.workflow


def target_rows() -> list[tuple[str, str, str]]:
    """(study, id, kind) of every implemented target: targets.tsv's and EXTRA_TARGETS."""
    with open(TARGETS_TSV, encoding="utf-8") as fh:
        rows = [(r["study"], r["id"], r["kind"]) for r in csv.DictReader(fh, delimiter="\t")]
    return [(study, tid, kind) for study, tid, kind in rows + EXTRA_TARGETS
            if study not in NOT_IMPLEMENTED_STUDIES and (study, tid) not in NOT_IMPLEMENTED_IDS]


def expected_targets() -> list[Path]:
    paths = []
    for study, tid, kind in target_rows():
        for suffix in ((".pdf", ".png") if kind == "figure" else (".csv", ".md")):
            paths.append(Path("results") / study / f"{tid}{suffix}")
    return paths


def copy_workflow(dest: Path) -> Path:
    shutil.copy(ROOT / "Snakefile", dest / "Snakefile")
    for d in ("workflow", "config", "docs", "profiles"):
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
                lines = data.decode().splitlines(keepends=True)
                data = "".join(x for x in lines if not x.startswith(TIMING_CLAIMS)).encode()
            out[rel] = data
    return out


def write_yaml(path: Path, data) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def nested(keys, value) -> dict:
    out = value
    for key in reversed(keys):
        out = {key: out}
    return out


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    work = copy_workflow(tmp_path_factory.mktemp("smoke"))
    snakemake(work, "--cores", "2", *SMOKE)
    return work


def test_smoke_run_builds_every_implemented_target(smoke_run):
    missing = [str(p) for p in expected_targets() if not (smoke_run / p).is_file()]
    assert not missing, f"targets not built: {missing}"
    empty = [str(p) for p in expected_targets() if (smoke_run / p).stat().st_size == 0]
    assert not empty, f"empty targets: {empty}"


def scorecard_rows(work: Path) -> list[dict]:
    with open(work / "results" / "fidelity.csv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_scorecard_lists_claims_of_every_study(smoke_run):
    rows = scorecard_rows(smoke_run)
    assert {r["study"] for r in rows} == {"ju2022", "bernstein2020", "raim2021", "raisa2021", "comparison"}
    assert {r["verdict"] for r in rows} <= {"holds", "differs (explained)", "differs (unexplained)", "not comparable",
                                            "not run"}
    text = (smoke_run / "results" / "fidelity.md").read_text()
    assert text.startswith("# Fidelity scorecard") and f"{len(rows)} checkable statements" in text
    summary = (smoke_run / "results" / "summary.md").read_text()
    assert summary.startswith("# Results at a glance") and "| all |" in summary


def test_smoke_scorecard_judges_only_at_the_documents_settings(smoke_run):
    """Issue 29: the smoke scale shrinks replicates, chains and grids, so its rows are 'not
    comparable' (naming what differs) or hold; none says 'differs (unexplained)', and a 'differs'
    row is one whose settings all match the document's."""
    rows = scorecard_rows(smoke_run)
    unexplained = [f"{r['study']}/{r['target']}: {r['statement'][:90]}" for r in rows
                   if r["verdict"] == "differs (unexplained)"]
    assert not unexplained, "\n".join(unexplained)
    assert all(not r["not_comparable"] for r in rows if r["verdict"].startswith("differs"))
    assert all(r["not_comparable"] for r in rows if r["verdict"] == "not comparable")


def test_tables_print_the_paper_values(smoke_run):
    for table in ("tab1", "tabS1", "runtime"):
        text = (smoke_run / "results" / "ju2022" / f"{table}.md").read_text()
        assert "paper" in text.lower()
    header = (smoke_run / "results" / "ju2022" / "tab1.csv").read_text().splitlines()[0]
    assert "paper_coverage" in header


def test_finished_run_has_nothing_to_do_and_resumes_only_lost_work(smoke_run):
    proc = snakemake(smoke_run, "-n", *SMOKE)
    assert "Nothing to be done" in proc.stdout + proc.stderr
    # an interrupted run: one chunk and what is built from it never got written
    res = smoke_run / "results" / "ju2022"
    lost = [next((res / "runs" / "linreg_coverage").rglob("chunk0.npz")),
            res / "experiments" / "linreg_coverage.npz", res / "tabS1.md"]
    for path in lost:
        path.unlink()
    jobs = planned_jobs(snakemake(smoke_run, "-n", *SMOKE))
    assert compute_jobs(jobs) == {"ju2022_run_chunk": 1}, jobs
    snakemake(smoke_run, "--cores", "2", *SMOKE)
    assert all(path.is_file() for path in lost)


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill"])
def test_an_interrupted_run_resumes_with_the_same_command(smoke_run, tmp_path, sig):
    """Interrupt a real run (raim2021 alone, the quickest unit) after its first chunk, as Ctrl-C or
    a lost login node would, then run the same command again: it finishes, with the tables of an
    uninterrupted run."""
    keys, prefix = UNITS["raim2021"]
    work = copy_workflow(tmp_path)
    for name in ("config.yaml", "smoke.yaml"):
        path = work / "config" / name
        write_yaml(path, _only(yaml.safe_load(path.read_text()), keys))
    cmd = [sys.executable, "-m", "snakemake", "--directory", str(work), "--snakefile", str(work / "Snakefile"),
           "--cores", "2", *SMOKE]
    # a terminal's Ctrl-C: SIGINT handled by default, even when this test runs as a background job
    # (which starts with SIGINT ignored, and Python then never raises KeyboardInterrupt)
    run = subprocess.Popen(cmd, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True, preexec_fn=_default_sigint)
    runs = work / "results" / "raim2021" / "runs"
    deadline = time.time() + 300
    while time.time() < deadline and run.poll() is None and not any(runs.rglob("chunk*.npz")):
        time.sleep(0.1)
    assert run.poll() is None, "the run ended before it could be interrupted"
    os.killpg(run.pid, sig)
    run.wait(timeout=120)
    assert run.returncode != 0
    assert not (work / "results" / "raim2021" / "mse_densities.pdf").exists()
    snakemake(work, "--cores", "2", *SMOKE)  # the same command, no extra flags
    assert tables(work, prefix) == tables(smoke_run, prefix)


def test_tables_are_identical_with_other_core_counts(smoke_run):
    """Rebuild one experiment and everything downstream with one core: the same tables (and the
    run is left complete, with no file older than its inputs, for the tests below)."""
    before = tables(smoke_run, "ju2022/")
    shutil.rmtree(smoke_run / "results" / "ju2022" / "runs" / "loglinear_coverage")
    (smoke_run / "results" / "ju2022" / "experiments" / "loglinear_coverage.npz").unlink()
    for path in tables(smoke_run, "ju2022/tab1"):
        (smoke_run / "results" / path).unlink()
    snakemake(smoke_run, "--cores", "1", *SMOKE)
    assert tables(smoke_run, "ju2022/") == before


# ----------------------------------------------------------------------------- narrow jobs
# (config keys, new value, compute rules allowed to rerun): settings that only a figure, a table,
# a summary or one dedicated job reads must not rerun any other sampler job.
FIGURE_ONLY_SETTINGS = [
    (("ju2022", "credible_level"), 0.8, set()),
    (("bernstein2020", "chapter5", "cirrhosis", "levels"), [0.5, 0.8], set()),
    (("bernstein2020", "chapter4", "ecdf"), {"n": 10, "epsilon": 0.01}, set()),
    (("bernstein2020", "chapter5", "health"), {"max_rhat": 1.05, "min_ess": 50}, set()),
    (("ju2022", "health"), {"min_acceptance": 0.05, "min_ess": 5, "max_rhat": 1.05, "converged_ess": 50}, set()),
    (("raim2021", "timing"), {"rho": 0.1, "lambda": 0.1}, {"raim2021_run_timing"}),
    (("raim2021", "traces"), {"rho": 0.1, "lambdas": [0.2]}, {"raim2021_run_traces"}),
    (("raisa2021", "health"), {"max_rhat": 1.05, "min_ess": 50}, set()),
    (("raisa2021", "fig6_1"), {"n": 3000, "points": 4}, {"raisa2021_run_accountants"}),
    (("raisa2021", "fig4_1"), {"iteration": 1}, {"raisa2021_run_trajectory"}),
    (("raisa2021", "clipping", "threshold"), "sum_of_differences", {"raisa2021_run_clipping"}),
    (("bernstein2020", "chapter3", "fig3_3", "lambdas"), [0.001, 1], set()),
    (("bernstein2020", "case_study", "fig5_11"), {"sizes": [40, 80]}, set()),
    (("bernstein2020", "case_study", "health"), {"max_rhat": 1.05, "min_ess": 50}, set()),
    (("comparison", "recommend"), {"max_flagged": 0.2, "max_mean_error": 0.1, "max_sd_error": 0.1, "ks_alpha": 0.05},
     set()),
]


@pytest.mark.parametrize("keys, value, allowed", FIGURE_ONLY_SETTINGS, ids=lambda v: ".".join(v) if isinstance(v, tuple) else None)
def test_editing_a_figure_setting_reruns_no_sampler(smoke_run, keys, value, allowed):
    edit = smoke_run / "config" / "edit.yaml"
    write_yaml(edit, nested(keys, value))
    try:
        jobs = planned_jobs(snakemake(smoke_run, "-n", *SMOKE, "config/edit.yaml"))
    finally:
        edit.unlink()
    assert set(compute_jobs(jobs)) <= allowed, jobs


# (config keys, new value): table- and figure-only settings that a scorecard row's paper value
# refers to. Editing one rebuilds only claims and tables; no row may then be judged against the
# document's value of another setting.
CLAIM_SETTINGS = [
    (("ju2022", "credible_level"), 0.8),
    (("bernstein2020", "chapter3", "fig3_3", "lambdas"), [0.001, 1]),
    (("bernstein2020", "chapter4", "ecdf"), {"n": 10, "epsilon": 0.01}),
    (("bernstein2020", "chapter4", "health"), {"max_rhat": 1.05, "min_ess": 50}),
    (("bernstein2020", "chapter5", "health"), {"max_rhat": 1.05, "min_ess": 50}),
    (("bernstein2020", "case_study", "health"), {"max_rhat": 1.05, "min_ess": 50}),
    (("raim2021", "timing"), {"rho": 0.1, "lambda": 0.1}),
    (("raisa2021", "fig6_1"), {"n": 3000, "points": 4}),
    (("raisa2021", "fig4_1", "panels"), 6),
    (("comparison", "recommend"), {"max_flagged": 0.2, "max_mean_error": 0.3, "max_sd_error": 0.3, "ks_alpha": 0.05}),
]


@pytest.mark.parametrize("keys, value", CLAIM_SETTINGS, ids=lambda v: ".".join(v) if isinstance(v, tuple) else None)
def test_an_edited_setting_is_never_judged_against_the_papers_value(smoke_run, tmp_path, keys, value):
    """Issue 29: every scorecard row that the edit changes is 'not comparable' (or 'not run'),
    never 'holds' or 'differs' against the document's value of another setting."""
    work = tmp_path / "w"
    shutil.copytree(smoke_run, work, symlinks=True)
    write_yaml(work / "config" / "edit.yaml", nested(keys, value))
    snakemake(work, "--cores", "2", *SMOKE, "config/edit.yaml", "--", "results/fidelity.csv")
    before = {tuple(r[k] for k in ("study", "target", "statement", "ours", "verdict")) for r in scorecard_rows(smoke_run)}
    after = scorecard_rows(work)
    changed = [r for r in after if tuple(r[k] for k in ("study", "target", "statement", "ours", "verdict")) not in before]
    assert changed, "the edit changed no scorecard row: is the setting still read by a claim?"
    judged = [f"{r['target']}: {r['statement'][:80]} -> {r['verdict']}" for r in changed
              if r["verdict"] not in ("not comparable", "not run")]
    assert not judged, "\n".join(judged)
    assert any(r["verdict"] == "not comparable" for r in changed)


def test_more_replicates_add_chunks_instead_of_rerunning_them(smoke_run):
    """ju2022 smoke: 4 replicates in one chunk of 4; a fifth replicate adds chunk 1 and reruns no
    other chunk."""
    exp = "loglinear_coverage"
    smoke = yaml.safe_load((smoke_run / "config" / "smoke.yaml").read_text())
    eps = smoke["ju2022"]["experiments"][exp]["epsilons"]
    edit = smoke_run / "config" / "edit.yaml"
    write_yaml(edit, {"ju2022": {"experiments": {exp: {"epsilons": eps, "replicates": 5}}}})
    try:
        jobs = planned_jobs(snakemake(smoke_run, "-n", *SMOKE, "config/edit.yaml"))
    finally:
        edit.unlink()
    assert compute_jobs(jobs) == {"ju2022_run_chunk": len(eps)}, jobs


# ----------------------------------------------------------------------------- study subsets
def _only(cfg: dict, keys: tuple) -> dict:
    out = {"seed": cfg["seed"]} if "seed" in cfg else {}
    node = cfg
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return out
        node = node[key]
    out.update(nested(keys, node))
    return out


def _merge(a: dict, b: dict) -> dict:
    out = dict(a)
    for key, value in b.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


@pytest.mark.parametrize("unit", sorted(UNITS))
def test_each_study_runs_alone_with_the_same_jobs(smoke_run, unit):
    """With every other unit switched off (``enabled: false``), a unit plans exactly the jobs, with
    the same params and inputs, that built it in the full smoke run: a dry run over the finished
    run plans no compute, summary, figure or claims job (a changed param or input would rerun
    it), only the scorecard, whose claim files change. Its streams are keyed by (seed, study,
    experiment, replicate, stage), so the same jobs give the same tables; the test below runs
    one unit alone for real and compares them byte for byte."""
    overlay = {}
    for other, (keys, _) in UNITS.items():
        if other != unit:
            overlay = _merge(overlay, nested(keys, {"enabled": False}))
    path = smoke_run / "config" / f"alone_{unit}.yaml"
    write_yaml(path, overlay)
    try:
        # every rerun trigger but file times: earlier tests rebuild some ju2022 files in place
        jobs = planned_jobs(snakemake(smoke_run, "-n", "--rerun-triggers", "params", "input", "software-env",
                                      "code", *SMOKE, path.relative_to(smoke_run).as_posix()))
    finally:
        path.unlink()
    assert set(jobs) == {"fidelity", "results_summary", "all"}, jobs


def test_a_study_run_alone_gives_the_same_tables(smoke_run, tmp_path):
    """raim2021 (the quickest unit) with every other section removed: same tables, and a
    scorecard of its own statements only."""
    keys, prefix = UNITS["raim2021"]
    work = copy_workflow(tmp_path)
    for name in ("config.yaml", "smoke.yaml"):
        path = work / "config" / name
        write_yaml(path, _only(yaml.safe_load(path.read_text()), keys))
    snakemake(work, "--cores", "2", *SMOKE)
    alone = tables(work, prefix)
    assert alone and alone == tables(smoke_run, prefix)
    with open(work / "results" / "fidelity.csv", encoding="utf-8") as fh:
        assert {r["study"] for r in csv.DictReader(fh)} == {keys[0]}


def test_no_study_section_runs_only_the_scorecard(tmp_path):
    work = copy_workflow(tmp_path)
    write_yaml(work / "config" / "config.yaml", {"seed": 1})
    write_yaml(work / "config" / "smoke.yaml", {})
    jobs = planned_jobs(snakemake(work, "-n", *SMOKE))
    assert set(jobs) == {"fidelity", "results_summary", "all"}, jobs


# ----------------------------------------------------------------------------- figures
def figure_ids() -> list[str]:
    return [tid for _, tid, kind in target_rows() if kind == "figure"]


def test_every_figure_passes_the_layout_check(smoke_run):
    """Every figure job of the smoke run checked its figure as it saved it (save_figure logs the
    result): no two texts overlap, no text leaves the canvas, no legend covers data. A figure a
    later issue adds is covered as soon as it is a target."""
    logs = {p: p.read_text(encoding="utf-8") for p in (smoke_run / "logs").rglob("*.log")}
    checked, problems = {}, []
    for path, text in logs.items():
        problems += [f"{path.relative_to(smoke_run)}: {line.split('figure layout problem: ')[1]}"
                     for line in text.splitlines() if "figure layout problem: " in line]
        for fid in re.findall(r"step \S+\.figures:(\w+) \(rule", text):
            checked[fid] = re.findall(r"figure layout checked: (\d+) texts, \d+ legends, (\d+) problems", text)
    missing = [fid for fid in figure_ids() if not checked.get(fid)]
    assert not missing, f"figures whose log has no layout check: {missing}"
    assert all(int(t) > 0 for reports in checked.values() for t, _ in reports)
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------------------------- report
def test_report_has_the_scorecard_and_every_target_with_its_own_caption(smoke_run):
    proc = snakemake(smoke_run, "--report", "report.html", check=False)  # paper config: not the run's
    assert proc.returncode != 0
    _assert_refused_with(proc, "results/ were built with another config than this report command's")
    proc = snakemake(smoke_run, "--report", "smoke-report.html", *SMOKE)
    assert "Missing metadata" not in proc.stdout + proc.stderr
    html = (smoke_run / "smoke-report.html").read_text()
    cats = json.loads(re.search(r"categories\s*=\s*(\{.*?\});", html, re.S).group(1))
    assert list(cats)[0] == "Fidelity scorecard"
    items = [path for sub in cats.values() for paths in sub.values() for path in paths]
    figures = [p for p in expected_targets() if p.suffix == ".png"]
    tables = [p for p in expected_targets() if p.suffix == ".csv"]
    assert {str(p) for p in figures + tables} <= set(items)  # PNG previews, CSV tables
    assert not [p for p in items if p.endswith(".pdf")]
    assert len(items) == len(figures) + len(tables) + 1 + len(_experiments(smoke_run))
    for caption in ("Fig 5.7", "Table 1", "knots"):
        assert caption in html


def _experiments(work):
    return yaml.safe_load((work / "config" / "config.yaml").read_text())["ju2022"]["experiments"]


# ----------------------------------------------------------------------------- cluster
def test_slurm_profile_keeps_its_resources_and_takes_the_account_from_the_environment(tmp_path):
    """docs/cluster.md: SLURM_ACCOUNT=... SLURM_PARTITION=... snakemake --profile profiles/slurm.
    Every job gets the account, the partition, one CPU and the profile's memory (per-rule
    values where the profile sets them, 2,000 MB otherwise); the default workflow profile,
    loaded as well, must not replace any of it."""
    work = copy_workflow(tmp_path)
    profile = yaml.safe_load((work / "profiles" / "slurm" / "config.yaml").read_text())
    env = dict(os.environ, SLURM_ACCOUNT="proj42", SLURM_PARTITION="short")
    cmd = [sys.executable, "-m", "snakemake", "--directory", str(work), "--snakefile", str(work / "Snakefile"),
           "-n", "--profile", "profiles/slurm", *SMOKE]
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rule, jobs = None, {}
    for line in proc.stdout.splitlines():
        if line.startswith("rule ") or line.startswith("localrule "):
            rule = line.split()[1].rstrip(":")
        elif line.strip().startswith("resources:") and rule:
            jobs[rule] = dict(kv.split("=", 1) for kv in line.split(":", 1)[1].strip().split(", "))
    assert len(jobs) > 20
    for rule, res in jobs.items():
        if rule == "all":
            continue
        assert res["slurm_account"] == "proj42" and res["slurm_partition"] == "short", (rule, res)
        assert res["cpus_per_task"] == "1", (rule, res)
        want = profile["set-resources"].get(rule, {}).get("mem_mb", profile["default-resources"]["mem_mb"])
        assert res["mem_mb"] == str(want), (rule, res)


# ----------------------------------------------------------------------------- parse-time checks
def test_misspelt_step_fails_the_dry_run(tmp_path):
    work = copy_workflow(tmp_path)
    rules = work / "workflow" / "rules" / "scorecard.smk"
    rules.write_text(rules.read_text().replace('step("scorecard:fidelity")', 'step("scorecard:fidelty")'))
    proc = snakemake(work, "-n", check=False)
    assert proc.returncode != 0
    assert "has no function 'fidelty'" in proc.stdout + proc.stderr


def test_parsing_loads_no_numerical_stack(smoke_run):
    """A dry run (and so every cluster job's parse) imports neither numba, scipy nor matplotlib."""
    code = (
        "import sys\n"
        "from snakemake.cli import main\n"
        "try:\n"
        f"    main(['-n', '--quiet', '--directory', {str(smoke_run)!r}, '--snakefile', "
        f"{str(smoke_run / 'Snakefile')!r}, '--configfile', 'config/smoke.yaml'])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "print(sorted(m for m in ('numba', 'scipy', 'matplotlib') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=smoke_run, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout[-2000:]


def test_lint_gives_only_the_per_rule_conda_advice(smoke_run):
    proc = snakemake(smoke_run, "--lint", *SMOKE, check=False)
    lints = {line.strip() for line in (proc.stdout + proc.stderr).splitlines() if line.strip().startswith("* ")}
    assert lints == {"* Specify a conda environment or container for each rule.:"}, lints


# ----------------------------------------------------------------------------- config refusal
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
    # values the schema alone lets through
    (("seed",), 7.0, "'seed': must be a whole number"),
    (("ju2022", "experiments", "loglinear_coverage", "replicates"), 4.0,
     "'ju2022.experiments.loglinear_coverage.replicates': must be a whole number"),
    (("ju2022", "experiments", "loglinear_coverage", "epsilons"), [0.1, float("inf")],
     "'ju2022.experiments.loglinear_coverage.epsilons.1': must be a finite number, got inf"),
    (("ju2022", "experiments", "loglinear_coverage", "epsilons"), [float("nan")],
     "'ju2022.experiments.loglinear_coverage.epsilons.0': must be a finite number, got nan"),
    (("raim2021", "lambdas"), [float("nan")], "'raim2021.lambdas.0': must be a finite number, got nan"),
    (("bernstein2020", "chapter4", "replicates"), 12.0, "'bernstein2020.chapter4.replicates': must be a whole"),
    (("raisa2021", "models"), ["easy-2d", "banana-3d"], "'raisa2021.models.1'"),
    (("raisa2021", "version"), "final", "'raisa2021.version'"),
    (("raisa2021", "start_rule"), "origin", "'raisa2021.start_rule'"),
    (("raisa2021", "params"), "config/data/raisa2021/missing.yaml", "'raisa2021.params': missing params file"),
    (("raisa2021", "fig6_1", "epsilon_min"), 7, "'raisa2021.fig6_1.epsilon_min': must be below"),
    (("raisa2021", "vcorr"), "config/data/raisa2021/missing.tsv", "'raisa2021.vcorr': missing V_corr file"),
    (("raisa2021", "clipping", "threshold"), "manhattan", "'raisa2021.clipping.threshold'"),
    (("bernstein2020", "chapter3", "fig3_1", "model"), "chain9", "'bernstein2020.chapter3.fig3_1.model'"),
    (("bernstein2020", "chapter3", "fig3_6", "train_sizes"), [200000],
     "'bernstein2020.chapter3.fig3_6.train_sizes': must not exceed the training split"),
    (("bernstein2020", "chapter3", "cgm", "inference"), "gibbs", "'bernstein2020.chapter3.cgm.inference'"),
    (("bernstein2020", "case_study", "headline_epsilon"), 3.0,
     "'bernstein2020.case_study.headline_epsilon': must be one of case_study.epsilons"),
    (("bernstein2020", "case_study", "methods"), ["naive", "mcmc_ind"], "'bernstein2020.case_study.methods.1'"),
    (("comparison", "figure", "n"), 50, "'comparison.figure.n': must be one of comparison.n_values"),
    (("comparison", "binomial", "methods"), ["exact", "ops"], "'comparison.binomial.methods.1'"),
    (("comparison", "accuracy_trials"), 500, "'comparison.accuracy_trials': must not exceed"),
])
def test_bad_config_is_refused_before_any_job_naming_the_key(tmp_path, path, value, expected):
    work = _edit_config(tmp_path, _set(path, value))
    proc = snakemake(work, "-n", check=False)
    assert proc.returncode != 0
    _assert_refused_with(proc, expected)
    assert not (work / "results").exists() or not any((work / "results").rglob("*.npz"))


def _assert_refused_with(proc, expected):
    """The message comes first and alone: no traceback into the rule files."""
    out = proc.stdout + proc.stderr
    assert expected in out, out[-3000:]
    lines = [x for x in out.splitlines() if x.strip() and not x.startswith("Using workflow specific profile")]
    assert expected in lines[0], lines[:3]
    assert "Traceback" not in out and "File \"" not in out, out[-3000:]


def test_clamped_releases_without_the_collapsed_move_are_refused(tmp_path):
    """On clamped releases Gibbs-SS-Update moves its parameters by the collapsed moves alone."""
    def edit(cfg):
        cfg["bernstein2020"]["chapter5"]["synthetic"]["clamp"] = True
        cfg["bernstein2020"]["chapter5"]["gibbs"]["collapsed_moves"] = 0
    proc = snakemake(_edit_config(tmp_path, edit), "-n", check=False)
    assert proc.returncode != 0
    _assert_refused_with(proc, "'bernstein2020.chapter5.gibbs.collapsed_moves': must be >= 1 with synthetic.clamp")


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    work = copy_workflow(tmp_path)
    path = work / "config" / "config.yaml"
    text = path.read_text().replace("  iterations: 10000", "  iterations: [10000", 1)
    path.write_text(text)
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "iterations: [10000" in x)
    proc = snakemake(work, "-n", check=False)
    assert proc.returncode != 0
    _assert_refused_with(proc, f"invalid config file config/config.yaml, line {line}, column")


def test_smoke_run_says_which_settings_of_config_yaml_it_replaces(smoke_run):
    proc = snakemake(smoke_run, "-n", *SMOKE)
    out = proc.stdout + proc.stderr
    assert "config/smoke.yaml replaces" in out and "settings of config/config.yaml" in out
    assert "ju2022.experiments.loglinear_fixed_data.epsilons" in out or ", ..." in out
