"""Workflow tests that need no smoke run: a bad config is refused before any job with a message
naming the key, a misspelt step fails the dry run, a config without study sections, and a study
deleted at smoke scale (the SLURM profile: tests/test_cluster.py).

Each test's dry run works on its own copy of the workflow; all of them run in one Snakemake process
(``snakemake_batch``), built when the first test asks, which gives each the exit code and output a
``snakemake -n`` of its own would."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.workflow import (
    SMOKE,
    assert_refused_with,
    copy_workflow,
    planned_jobs,
    snakemake_batch,
    write_yaml,
)

pytestmark = pytest.mark.workflow


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

BAD_CONFIGS = [
    (
        ("ju2022", "experiments", "loglinear_coverage", "epsilons"),
        [0.1, -0.3],
        "'ju2022.experiments.loglinear_coverage.epsilons.1'",
    ),
    (("ju2022", "loglinear", "mechanism"), "laplacian", "'ju2022.loglinear.mechanism'"),
    (("ju2022", "linreg", "sampler"), "hamiltonian", "'ju2022.linreg.sampler'"),
    (("ju2022", "iterations"), "many", "'ju2022.iterations'"),
    (("ju2022", "credible_level"), _DELETE, "'credible_level' is a required property"),
    (("ju2022", "burnin"), 20000, "'ju2022.burnin'"),
    (("ju2022", "linreg", "clamp"), [10, -10], "'ju2022.linreg.clamp'"),
    (
        ("ju2022", "experiments", "loglinear_coverage", "replicats"),
        5,
        "'ju2022.experiments.loglinear_coverage'",
    ),
    (("seed",), -5, "'seed'"),
    # values the schema alone lets through
    (("seed",), 7.0, "'seed': must be a whole number"),
    (
        ("ju2022", "experiments", "loglinear_coverage", "replicates"),
        4.0,
        "'ju2022.experiments.loglinear_coverage.replicates': must be a whole number",
    ),
    (
        ("ju2022", "experiments", "loglinear_coverage", "epsilons"),
        [0.1, float("inf")],
        "'ju2022.experiments.loglinear_coverage.epsilons.1': must be a finite number, got inf",
    ),
    (
        ("ju2022", "experiments", "loglinear_coverage", "epsilons"),
        [float("nan")],
        "'ju2022.experiments.loglinear_coverage.epsilons.0': must be a finite number, got nan",
    ),
    (
        ("raim2021", "lambdas"),
        [float("nan")],
        "'raim2021.lambdas.0': must be a finite number, got nan",
    ),
    (
        ("bernstein2020", "chapter4", "replicates"),
        12.0,
        "'bernstein2020.chapter4.replicates': must be a whole",
    ),
    (("raisa2021", "models"), ["easy-2d", "banana-3d"], "'raisa2021.models.1'"),
    (("raisa2021", "version"), "final", "'raisa2021.version'"),
    (("raisa2021", "start_rule"), "origin", "'raisa2021.start_rule'"),
    (
        ("raisa2021", "params"),
        "config/data/raisa2021/missing.yaml",
        "'raisa2021.params': missing params file",
    ),
    (("raisa2021", "fig6_1", "epsilon_min"), 7, "'raisa2021.fig6_1.epsilon_min': must be below"),
    (
        ("raisa2021", "vcorr"),
        "config/data/raisa2021/missing.tsv",
        "'raisa2021.vcorr': missing V_corr file",
    ),
    (("raisa2021", "clipping", "threshold"), "manhattan", "'raisa2021.clipping.threshold'"),
    (
        ("bernstein2020", "chapter3", "fig3_1", "model"),
        "chain9",
        "'bernstein2020.chapter3.fig3_1.model'",
    ),
    (
        ("bernstein2020", "chapter3", "fig3_6", "train_sizes"),
        [200000],
        "'bernstein2020.chapter3.fig3_6.train_sizes': must not exceed the training split",
    ),
    (
        ("bernstein2020", "chapter3", "cgm", "inference"),
        "gibbs",
        "'bernstein2020.chapter3.cgm.inference'",
    ),
    (
        ("bernstein2020", "case_study", "headline_epsilon"),
        3.0,
        "'bernstein2020.case_study.headline_epsilon': must be one of case_study.epsilons",
    ),
    (
        ("bernstein2020", "case_study", "methods"),
        ["naive", "mcmc_ind"],
        "'bernstein2020.case_study.methods.1'",
    ),
    (
        ("comparison", "figure", "n"),
        50,
        "'comparison.figure.n': must be one of comparison.n_values",
    ),
    (("comparison", "binomial", "methods"), ["exact", "ops"], "'comparison.binomial.methods.1'"),
    (("comparison", "accuracy_trials"), 500, "'comparison.accuracy_trials': must not exceed"),
    # a release entry: its keys by the schema, its mechanism and file by dpinfer.releases.spec
    (("releases", "entries", "ju2022_tables", "n"), _DELETE, "'n' is a required property"),
    (
        ("releases", "entries", "ju2022_tables", "mechanism"),
        {"kind": "laplace", "scale": -1.0},
        "releases.entries.ju2022_tables.mechanism.scale must be a finite positive number",
    ),
    (
        ("releases", "entries", "ju2022_regression", "clamp"),
        [10.0, -10.0],
        "releases.entries.ju2022_regression.clamp needs lower < upper",
    ),
    (
        ("releases", "entries", "ju2022_tables", "object"),
        "mijk_noiselevel9_eps7",
        "releases.entries.ju2022_tables.object must name one of the file's 5 tables",
    ),
    (
        ("releases", "entries", "ju2022_tables", "file"),
        "data/user/missing.json",
        "release 'ju2022_tables': file 'data/user/missing.json'",
    ),
]


def _edit_config(edit):
    def prepare(work: Path) -> None:
        path = work / "config" / "config.yaml"
        cfg = yaml.safe_load(path.read_text())
        edit(cfg)
        path.write_text(yaml.safe_dump(cfg, sort_keys=False))

    return prepare


def _no_study_section(work: Path) -> None:
    write_yaml(work / "config" / "config.yaml", {"seed": 1})
    write_yaml(work / "config" / "smoke.yaml", {})


def _delete_two_studies(cfg: dict) -> None:
    del cfg["raim2021"], cfg["bernstein2020"]["chapter4"]


def _misspell_a_step(work: Path) -> None:
    rules = work / "workflow" / "rules" / "scorecard.smk"
    rules.write_text(
        rules.read_text().replace('step("scorecard:fidelity")', 'step("scorecard:fidelty")')
    )


def _clamp_without_collapsed_moves(cfg: dict) -> None:
    cfg["bernstein2020"]["chapter5"]["synthetic"]["clamp"] = True
    cfg["bernstein2020"]["chapter5"]["gibbs"]["collapsed_moves"] = 0


def _break_the_yaml(work: Path) -> None:
    path = work / "config" / "config.yaml"
    path.write_text(path.read_text().replace("  iterations: 10000", "  iterations: [10000", 1))


# name -> (prepare(workdir), the dry run's arguments)
SCENARIOS = {
    "no-study-section": (_no_study_section, ("-n", *SMOKE)),
    "deleted-study": (_edit_config(_delete_two_studies), ("-n", *SMOKE)),
    "misspelt-step": (_misspell_a_step, ("-n",)),
    "clamped-without-collapsed-moves": (_edit_config(_clamp_without_collapsed_moves), ("-n",)),
    "yaml-syntax-error": (_break_the_yaml, ("-n",)),
    **{
        f"bad-config-{i}": (_edit_config(_set(path, value)), ("-n",))
        for i, (path, value, _) in enumerate(BAD_CONFIGS)
    },
}


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory):
    """name -> (its workdir, its dry run's CompletedProcess)."""
    root = tmp_path_factory.mktemp("config-dry-runs")
    works = {}
    for name, (prepare, _) in SCENARIOS.items():
        (root / name).mkdir()
        works[name] = copy_workflow(root / name)
        prepare(works[name])
    procs = snakemake_batch([(works[name], args) for name, (_, args) in SCENARIOS.items()], root)
    return {name: (works[name], proc) for name, proc in zip(SCENARIOS, procs)}


def test_no_study_section_runs_only_the_scorecard(dry_run):
    _, proc = dry_run["no-study-section"]
    jobs = planned_jobs(proc)
    assert set(jobs) == {"fidelity", "results_summary", "all"}, jobs


def test_a_deleted_study_section_is_skipped_at_smoke_scale(dry_run):
    """Issue 30: deleting a study from config.yaml works at smoke scale too (smoke.yaml's rules for
    it are skipped, not left as a partial section that fails validation)."""
    _, proc = dry_run["deleted-study"]
    jobs = planned_jobs(proc)
    assert jobs and not [r for r in jobs if r.startswith(("raim2021", "bernstein2020_ch4"))], jobs
    assert "ju2022_run_chunk" in jobs


def test_misspelt_step_fails_the_dry_run(dry_run):
    _, proc = dry_run["misspelt-step"]
    assert proc.returncode != 0
    assert "has no function 'fidelty'" in proc.stdout + proc.stderr


# ----------------------------------------------------------------------------- config refusal
@pytest.mark.parametrize("case", range(len(BAD_CONFIGS)), ids=lambda i: str(BAD_CONFIGS[i][2]))
def test_bad_config_is_refused_before_any_job_naming_the_key(dry_run, case):
    work, proc = dry_run[f"bad-config-{case}"]
    assert proc.returncode != 0
    assert_refused_with(proc, BAD_CONFIGS[case][2])
    assert not (work / "results").exists() or not any((work / "results").rglob("*.npz"))


def test_clamped_releases_without_the_collapsed_move_are_refused(dry_run):
    """On clamped releases Gibbs-SS-Update moves its parameters by the collapsed moves alone."""
    _, proc = dry_run["clamped-without-collapsed-moves"]
    assert proc.returncode != 0
    assert_refused_with(
        proc, "'bernstein2020.chapter5.gibbs.collapsed_moves': must be >= 1 with synthetic.clamp"
    )


def test_yaml_syntax_error_names_file_and_line(dry_run):
    work, proc = dry_run["yaml-syntax-error"]
    text = (work / "config" / "config.yaml").read_text()
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "iterations: [10000" in x)
    assert proc.returncode != 0
    assert_refused_with(proc, f"invalid config file config/config.yaml, line {line}, column")
