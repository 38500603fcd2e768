"""Workflow tests on the session's smoke run (tests/workflow.py builds it once): every target
built, the scorecard, resumption after a lost file or an interrupt, determinism over core counts,
figures, the report, parse-time checks.

Each test runs Snakemake in a temporary copy of the workflow (Snakefile, workflow/, config/,
docs/), so the developer's own results/ are never touched. Compute rules (simulate, release,
sample) are named ``<unit>_run_<what>``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest
import yaml

from dpinfer.studies.scorecard import VERDICTS, heading_anchors
from tests.workflow import (
    ROOT,
    SMOKE,
    UNITS,
    assert_refused_with,
    compute_jobs,
    copy_run,
    copy_workflow,
    expected_targets,
    only_section,
    planned_jobs,
    scorecard_rows,
    snakemake,
    snakemake_batch,
    tables,
    target_rows,
    write_yaml,
)

pytestmark = pytest.mark.workflow


def _readme_one_target_args() -> list[str]:
    """README's everyday form (issue 30): one target at smoke scale, after `--`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(
        x
        for x in readme.splitlines()
        if x.startswith("snakemake ") and "--configfile config/smoke.yaml --" in x
    )
    return line.split("#")[0].split()[1:]


@pytest.fixture(scope="module")
def read_only(smoke_run, tmp_path_factory):
    """name -> the CompletedProcess of a Snakemake command that only reads the finished smoke run
    (a dry run, the linter), all run in one Snakemake process (``snakemake_batch``)."""
    calls = {
        "dry run": ("-n", *SMOKE),
        "lint": ("--lint", *SMOKE),
        "readme": ("-n", *_readme_one_target_args()),
    }
    procs = snakemake_batch(
        [(smoke_run, args) for args in calls.values()], tmp_path_factory.mktemp("read-only")
    )
    return dict(zip(calls, procs))


def test_smoke_run_builds_every_implemented_target(smoke_run):
    missing = [str(p) for p in expected_targets() if not (smoke_run / p).is_file()]
    assert not missing, f"targets not built: {missing}"
    empty = [str(p) for p in expected_targets() if (smoke_run / p).stat().st_size == 0]
    assert not empty, f"empty targets: {empty}"


def test_scorecard_lists_claims_of_every_study(smoke_run):
    rows = scorecard_rows(smoke_run)
    assert {r["study"] for r in rows} == {
        "ju2022",
        "bernstein2020",
        "raim2021",
        "raisa2021",
        "comparison",
    }
    assert {r["verdict"] for r in rows} <= set(VERDICTS)
    text = (smoke_run / "results" / "fidelity.md").read_text()
    assert text.startswith("# Fidelity scorecard") and f"{len(rows)} checkable statements" in text
    summary = (smoke_run / "results" / "summary.md").read_text()
    assert summary.startswith("# Results at a glance") and "| all |" in summary


def test_smoke_scorecard_judges_only_at_the_documents_settings(smoke_run):
    """Issue 29: the smoke scale shrinks replicates, chains and grids, so its rows are 'not
    comparable' (naming what differs) or hold; a row that differs names an entry of
    docs/deviations.md that exists, and is one whose settings all match the document's."""
    rows = scorecard_rows(smoke_run)
    anchors = heading_anchors((ROOT / "docs" / "deviations.md").read_text(encoding="utf-8"))
    unexplained = [
        f"{r['study']}/{r['target']}: {r['statement'][:90]}"
        for r in rows
        if r["verdict"].startswith("differs")
        and r["explanation"].removeprefix("docs/deviations.md#") not in anchors
    ]
    assert not unexplained, "\n".join(unexplained)
    assert all(not r["not_comparable"] for r in rows if r["verdict"].startswith("differs"))
    assert all(r["not_comparable"] for r in rows if r["verdict"] == "not comparable")


def test_tables_print_the_paper_values(smoke_run):
    for table in ("tab1", "tabS1", "runtime"):
        text = (smoke_run / "results" / "ju2022" / f"{table}.md").read_text()
        assert "paper" in text.lower()
    header = (smoke_run / "results" / "ju2022" / "tab1.csv").read_text().splitlines()[0]
    assert "paper_coverage" in header


def test_finished_run_has_nothing_to_do_and_resumes_only_lost_work(smoke_run, read_only, tmp_path):
    proc = read_only["dry run"]
    assert proc.returncode == 0
    assert "Nothing to be done" in proc.stdout + proc.stderr
    # an interrupted run: one chunk and what is built from it never got written
    work = copy_run(smoke_run, tmp_path / "w")
    res = work / "results" / "ju2022"
    lost = [
        next((res / "runs" / "linreg_coverage").rglob("chunk0.npz")),
        res / "experiments" / "linreg_coverage.npz",
        res / "tabS1.md",
    ]
    for path in lost:
        path.unlink()
    jobs = planned_jobs(snakemake(work, "-n", *SMOKE))
    assert compute_jobs(jobs) == {"ju2022_run_chunk": 1}, jobs
    snakemake(work, "--cores", "2", *SMOKE)
    assert all(path.is_file() for path in lost)


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill"])
def test_an_interrupted_run_resumes_with_the_same_command(smoke_run, tmp_path, sig):
    """Interrupt a real run (raim2021 alone, the quickest unit) after its first chunk, as Ctrl-C or
    a lost login node would, then run the same command again: it finishes, with the tables of the
    uninterrupted full smoke run."""
    keys, prefix = UNITS["raim2021"]
    work = copy_workflow(tmp_path)
    path = (
        work / "config" / "config.yaml"
    )  # the other studies deleted; smoke.yaml's rules for them are skipped
    write_yaml(path, only_section(yaml.safe_load(path.read_text()), keys))
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--directory",
        str(work),
        "--snakefile",
        str(work / "Snakefile"),
        "--cores",
        "2",
        *SMOKE,
    ]
    # a terminal's Ctrl-C: SIGINT handled by default, even when this test runs as a background job
    # (which starts with SIGINT ignored, and Python then never raises KeyboardInterrupt)
    run = subprocess.Popen(
        cmd,
        cwd=work,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        preexec_fn=_default_sigint,
    )
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
    # a unit run alone gives the tables of the full run, and a scorecard of its own statements
    assert tables(work, prefix) and tables(work, prefix) == tables(smoke_run, prefix)
    assert {r["study"] for r in scorecard_rows(work)} == {keys[0]}


def test_tables_are_identical_with_other_core_counts(smoke_run, tmp_path):
    """Rebuild one experiment and everything downstream with one core: the same tables (and the
    run's own copy)."""
    before = tables(smoke_run, "ju2022/")
    work = copy_run(smoke_run, tmp_path / "w")
    shutil.rmtree(work / "results" / "ju2022" / "runs" / "loglinear_coverage")
    (work / "results" / "ju2022" / "experiments" / "loglinear_coverage.npz").unlink()
    for path in tables(work, "ju2022/tab1"):
        (work / "results" / path).unlink()
    snakemake(work, "--cores", "1", *SMOKE)
    assert tables(work, "ju2022/") == before


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
        problems += [
            f"{path.relative_to(smoke_run)}: {line.split('figure layout problem: ')[1]}"
            for line in text.splitlines()
            if "figure layout problem: " in line
        ]
        for fid in re.findall(r"step \S+\.figures:(\w+) \(rule", text):
            checked[fid] = re.findall(
                r"figure layout checked: (\d+) texts, \d+ legends, (\d+) problems", text
            )
    missing = [fid for fid in figure_ids() if not checked.get(fid)]
    assert not missing, f"figures whose log has no layout check: {missing}"
    assert all(int(t) > 0 for reports in checked.values() for t, _ in reports)
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------------------------- report
def test_report_has_the_scorecard_and_every_target_with_its_own_caption(smoke_run, tmp_path):
    work = copy_run(smoke_run, tmp_path / "w")
    proc = snakemake(work, "--report", "report.html", check=False)  # paper config: not the run's
    assert proc.returncode != 0
    assert_refused_with(proc, "results/ were built with another config than this report command's")
    proc = snakemake(work, "--report", "smoke-report.html", *SMOKE)
    assert "Missing metadata" not in proc.stdout + proc.stderr
    html = (work / "smoke-report.html").read_text()
    cats = json.loads(re.search(r"categories\s*=\s*(\{.*?\});", html, re.S).group(1))
    assert "Fidelity scorecard" in cats  # first in the menu: tests/test_report.py
    items = [path for sub in cats.values() for paths in sub.values() for path in paths]
    figures = [p for p in expected_targets() if p.suffix == ".png"]
    tables = [p.with_suffix(".html") for p in expected_targets() if p.suffix == ".csv"]
    assert {str(p) for p in figures + tables} <= set(items)  # PNG previews, tables as HTML pages
    assert not [p for p in items if p.endswith((".pdf", ".csv", ".md"))]
    assert len(items) == len(figures) + len(tables) + 1 + len(_experiments(work))
    for caption in ("Fig 5.7", "Table 1", "knots"):
        assert caption in html


def _experiments(work):
    return yaml.safe_load((work / "config" / "config.yaml").read_text())["ju2022"]["experiments"]


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
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=smoke_run, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout[-2000:]


def test_lint_gives_only_the_per_rule_conda_advice(read_only):
    proc = read_only["lint"]
    lints = {
        line.strip()
        for line in (proc.stdout + proc.stderr).splitlines()
        if line.strip().startswith("* ")
    }
    assert lints == {"* Specify a conda environment or container for each rule.:"}, lints


def test_readme_command_for_one_target_at_smoke_scale_works(read_only):
    """README's everyday form (issue 30): `--configfile` takes several files, so the target
    follows `--`; on the finished smoke run the command has nothing to do."""
    proc = read_only["readme"]
    assert proc.returncode == 0
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_smoke_run_says_it_shrinks_the_users_settings(read_only):
    """Issue 30: smoke.yaml replaces no setting of config.yaml (no override note), it shrinks
    them."""
    proc = read_only["dry run"]
    out = proc.stdout + proc.stderr
    assert re.search(
        r"smoke scale: the rules of config/smoke.yaml shrink \d+ settings of your config", out
    )
    assert "replaces" not in out
