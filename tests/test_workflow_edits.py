"""Narrow jobs on the session's smoke run: editing a figure- or table-only setting reruns no
sampler, an edited setting a claim depends on is never judged against the document's value, more
replicates add chunks, an edit of config.yaml (the docs' example experiment) takes effect at smoke
scale and is shrunk there, and each study unit runs alone with the same jobs and tables."""

from __future__ import annotations

import re

import pytest
import yaml

from dpinfer.grid import fmt_eps
from tests.configs import config as load_config
from tests.workflow import (
    ROOT,
    SMOKE,
    UNITS,
    compute_jobs,
    copy_run,
    merge,
    nested,
    planned_jobs,
    scorecard_rows,
    snakemake,
    snakemake_batch,
    write_yaml,
)

pytestmark = pytest.mark.workflow


# ----------------------------------------------------------------------------- narrow jobs
# (config keys, new value, compute rules allowed to rerun): settings that only a figure, a table,
# a summary or one dedicated job reads must not rerun any other sampler job.
FIGURE_ONLY_SETTINGS = [
    (("ju2022", "credible_level"), 0.8, set()),
    (("bernstein2020", "chapter5", "cirrhosis", "levels"), [0.5, 0.8], set()),
    (("bernstein2020", "chapter4", "ecdf"), {"n": 10, "epsilon": 0.01}, set()),
    (("bernstein2020", "chapter5", "health"), {"max_rhat": 1.05, "min_ess": 50}, set()),
    (
        ("ju2022", "health"),
        {"min_acceptance": 0.05, "min_ess": 5, "max_rhat": 1.05, "converged_ess": 50},
        set(),
    ),
    (("raim2021", "timing"), {"rho": 0.1, "lambda": 0.1}, {"raim2021_run_timing"}),
    (("raim2021", "traces"), {"rho": 0.1, "lambdas": [0.2]}, {"raim2021_run_traces"}),
    (("raisa2021", "health"), {"max_rhat": 1.05, "min_ess": 50}, set()),
    (("raisa2021", "fig6_1"), {"n": 3000, "points": 4}, {"raisa2021_run_accountants"}),
    (("raisa2021", "fig4_1"), {"iteration": 1}, {"raisa2021_run_trajectory"}),
    (("raisa2021", "clipping", "threshold"), "sum_of_differences", {"raisa2021_run_clipping"}),
    (("bernstein2020", "chapter3", "fig3_3", "lambdas"), [0.001, 1], set()),
    (("bernstein2020", "case_study", "fig5_11"), {"sizes": [40, 80]}, set()),
    (("bernstein2020", "case_study", "health"), {"max_rhat": 1.05, "min_ess": 50}, set()),
    (
        ("comparison", "recommend"),
        {"max_flagged": 0.2, "max_mean_error": 0.1, "max_sd_error": 0.1, "ks_alpha": 0.05},
        set(),
    ),
]


def _more_replicates() -> dict:
    """ju2022 smoke: the smoke cap of one experiment's replicates raised from 4 to 5."""
    return {"smoke": {"ju2022": {"experiments": {"loglinear_coverage": {"replicates": 5}}}}}


def _alone(unit: str) -> dict:
    """Every study unit but ``unit`` switched off."""
    overlay = {}
    for other, (keys, _) in UNITS.items():
        if other != unit:
            overlay = merge(overlay, nested(keys, {"enabled": False}))
    return overlay


# name -> the config overlay of a dry run over the session's smoke run
DRY_RUN_OVERLAYS = {
    **{"figure:" + ".".join(keys): nested(keys, value) for keys, value, _ in FIGURE_ONLY_SETTINGS},
    "more-replicates": _more_replicates(),
    **{f"alone:{unit}": _alone(unit) for unit in UNITS},
}


@pytest.fixture(scope="module")
def dry_run(smoke_run, tmp_path_factory):
    """name -> the planned jobs of ``snakemake -n --configfile config/smoke.yaml <overlay>`` over
    the smoke run, for every overlay of DRY_RUN_OVERLAYS. The overlays are written outside the
    shared run, which other tests copy meanwhile; the dry runs run in one Snakemake process
    (``snakemake_batch``), each as a ``snakemake -n`` of its own would."""
    root = tmp_path_factory.mktemp("edit-dry-runs")
    calls = []
    for i, overlay in enumerate(DRY_RUN_OVERLAYS.values()):
        write_yaml(root / f"edit{i}.yaml", overlay)
        calls.append((smoke_run, ("-n", *SMOKE, str(root / f"edit{i}.yaml"))))
    procs = snakemake_batch(calls, root)
    for name, proc in zip(DRY_RUN_OVERLAYS, procs):
        assert proc.returncode == 0, (
            f"dry run {name} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"
        )
    return {name: planned_jobs(proc) for name, proc in zip(DRY_RUN_OVERLAYS, procs)}


@pytest.mark.parametrize(
    "keys, value, allowed",
    FIGURE_ONLY_SETTINGS,
    ids=lambda v: ".".join(v) if isinstance(v, tuple) else None,
)
def test_editing_a_figure_setting_reruns_no_sampler(dry_run, keys, value, allowed):
    jobs = dry_run["figure:" + ".".join(keys)]
    assert set(compute_jobs(jobs)) <= allowed, jobs


# (config keys, new value, target of a row that must name it, the setting's name in that row):
# table- and figure-only settings that a scorecard row's paper value refers to. Editing them
# rebuilds only claims and tables; no row may then be judged against the document's value of
# another setting.
CLAIM_SETTINGS = [
    (("ju2022", "credible_level"), 0.8, r"tab1", "credible level 0.8 here"),
    (
        ("bernstein2020", "chapter3", "fig3_3", "lambdas"),
        [0.001, 1],
        r"fig3_3",
        "lambdas [0.001, 1] here",
    ),
    (
        ("bernstein2020", "chapter4", "ecdf"),
        {"n": 10, "epsilon": 0.01},
        r"fig4_3",
        "fig4_3 n 10 here",
    ),
    (
        ("bernstein2020", "chapter4", "health"),
        {"max_rhat": 1.05, "min_ess": 50},
        r"fig4_\d|figB_1",
        "diagnostics: max R-hat 1.05 here",
    ),
    (
        ("bernstein2020", "chapter5", "health"),
        {"max_rhat": 1.05, "min_ess": 50},
        r"fig5_[4-9]",
        "diagnostics: max R-hat 1.05 here",
    ),
    (
        ("bernstein2020", "case_study", "health"),
        {"max_rhat": 1.05, "min_ess": 50},
        r"fig5_1[0-6]",
        "diagnostics: max R-hat 1.05 here",
    ),
    (("raim2021", "timing"), {"rho": 0.1, "lambda": 0.1}, r"timing", "rho 0.1 here"),
    (("raisa2021", "fig6_1"), {"n": 3000, "points": 4}, r"fig6_1", "Fig 6.1 n 3000 here"),
    (("raisa2021", "fig4_1", "panels"), 6, r"fig4_1", "Fig 4.1 panels"),
    (
        ("comparison", "recommend"),
        {"max_flagged": 0.2, "max_mean_error": 0.3, "max_sd_error": 0.3, "ks_alpha": 0.05},
        r"recommended",
        "recommendation rule max flagged 0.2 here",
    ),
]


def test_an_edited_setting_is_never_judged_against_the_papers_value(smoke_run, tmp_path):
    """Issue 29: after editing every setting of CLAIM_SETTINGS at once (one rebuild of the claims),
    every scorecard row that changed is 'not comparable' (or 'not run'), never 'holds' or
    'differs' against the document's value of another setting; and each edit is named by a
    changed row of the target that reads it."""
    work = copy_run(smoke_run, tmp_path / "w")
    overlay = {}
    for keys, value, _, _ in CLAIM_SETTINGS:
        overlay = merge(overlay, nested(keys, value))
    write_yaml(work / "config" / "edit.yaml", overlay)
    snakemake(work, "--cores", "2", *SMOKE, "config/edit.yaml", "--", "results/fidelity.csv")
    key = ("study", "target", "statement", "ours", "verdict")
    before = {tuple(r[k] for k in key) for r in scorecard_rows(smoke_run)}
    changed = [r for r in scorecard_rows(work) if tuple(r[k] for k in key) not in before]
    judged = [
        f"{r['target']}: {r['statement'][:80]} -> {r['verdict']}"
        for r in changed
        if r["verdict"] not in ("not comparable", "not run")
    ]
    assert not judged, "\n".join(judged)
    unnamed = [
        ".".join(keys)
        for keys, _, target, name in CLAIM_SETTINGS
        if not any(
            re.fullmatch(target, r["target"]) and name in r["not_comparable"] for r in changed
        )
    ]
    assert not unnamed, (
        f"no changed row names these edits (is the setting still read by a claim?): {unnamed}"
    )


def _docs_example_experiment() -> dict:
    """The first YAML block of docs/adding-an-experiment.md (a new ju2022 experiment)."""
    text = (ROOT / "docs" / "adding-an-experiment.md").read_text(encoding="utf-8")
    return yaml.safe_load(re.search(r"```yaml\n(.*?)```", text, flags=re.S).group(1))


def test_an_edit_of_config_yaml_takes_effect_at_smoke_scale_and_is_shrunk(smoke_run, tmp_path):
    """Issue 30: config/smoke.yaml shrinks config.yaml instead of replacing its settings. Pasting
    the docs' example experiment into config.yaml and adding a grid value plans, at smoke scale,
    only the new chunks, each at the smoke caps (once 202 jobs: every replicate at paper scale)."""
    work = copy_run(smoke_run, tmp_path / "w")
    path = work / "config" / "config.yaml"
    cfg = yaml.safe_load(path.read_text(encoding="utf-8"))
    example = _docs_example_experiment()["ju2022"]["experiments"]
    ((name, experiment),) = example.items()
    cfg["ju2022"]["experiments"].update(example)
    cfg["bernstein2020"]["chapter4"]["epsilons"].append(0.05)
    write_yaml(path, cfg)
    proc = snakemake(work, "-n", "-p", *SMOKE)
    smoke = load_config("smoke")
    per_eps = len(smoke["bernstein2020"]["chapter4"]["n_grid"]) * len(
        smoke["bernstein2020"]["chapter4"]["models"]
    )
    assert compute_jobs(planned_jobs(proc)) == {
        "ju2022_run_chunk": len(experiment["epsilons"]),
        "bernstein2020_ch4_run_chunk": per_eps,
        "bernstein2020_ch4_run_converged": per_eps,  # the new cell's converged companion
    }, planned_jobs(proc)
    blocks = [
        b
        for b in re.split(r"\n(?=rule )", proc.stdout + proc.stderr)
        if re.match(r"rule \w+_run_chunk:", b)
    ]
    outputs = {b.split("rule ")[1].split(":")[0]: set() for b in blocks}
    for b in blocks:
        outputs[b.split("rule ")[1].split(":")[0]].add(re.search(r"output: ([^\s,]+)", b).group(1))
    # the new experiment runs at the smoke cap (one chunk per epsilon), not its own 200 replicates
    assert outputs["ju2022_run_chunk"] == {
        f"results/ju2022/runs/{name}/eps{fmt_eps(e)}/chunk0.npz" for e in experiment["epsilons"]
    }, outputs
    assert all("_eps0.05/" in p for p in outputs["bernstein2020_ch4_run_chunk"]), outputs
    # item 4: a fixed_parameters job lists the authors' parameter file, not their data set
    ju = [b for b in blocks if b.startswith("rule ju2022_run_chunk")]
    assert all("datageneratingparameters" in b and "notdpdata" not in b for b in ju), ju[:1]


def test_more_replicates_add_chunks_instead_of_rerunning_them(dry_run):
    """ju2022 smoke: 4 replicates in one chunk of 4; a fifth replicate (the smoke cap raised to 5,
    as a user's own --configfile can) adds chunk 1 and reruns no other chunk."""
    eps = load_config("smoke")["ju2022"]["experiments"]["loglinear_coverage"]["epsilons"]
    jobs = dry_run["more-replicates"]
    # the converged companion of the log-linear experiments adds its chunk 1 the same way
    assert compute_jobs(jobs) == {"ju2022_run_chunk": len(eps), "ju2022_run_converged": len(eps)}, (
        jobs
    )


@pytest.mark.parametrize("unit", sorted(UNITS))
def test_each_study_runs_alone_with_the_same_jobs(dry_run, unit):
    """With every other unit switched off (``enabled: false``), a unit plans exactly the jobs, with
    the same params and inputs, that built it in the full smoke run: a dry run over the finished
    run plans no compute, summary, figure or claims job (a changed param or input would rerun
    it), only the scorecard, whose claim files change. Its streams are keyed by (seed, study,
    experiment, replicate, stage), so the same jobs give the same tables; the interrupted-run
    tests (test_workflow.py) run one unit alone for real and compare them byte for byte."""
    jobs = dry_run[f"alone:{unit}"]
    assert set(jobs) == {"fidelity", "results_summary", "all"}, jobs
