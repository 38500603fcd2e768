"""Workflow tests that need no smoke run: a bad config is refused before any job with a message
naming the key, a misspelt step fails the dry run, a config without study sections, and a study
deleted at smoke scale (the SLURM profile: tests/test_cluster.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.workflow import (
    SMOKE,
    assert_refused_with,
    copy_workflow,
    planned_jobs,
    snakemake,
    write_yaml,
)

pytestmark = pytest.mark.workflow


def test_no_study_section_runs_only_the_scorecard(tmp_path):
    work = copy_workflow(tmp_path)
    write_yaml(work / "config" / "config.yaml", {"seed": 1})
    write_yaml(work / "config" / "smoke.yaml", {})
    jobs = planned_jobs(snakemake(work, "-n", *SMOKE))
    assert set(jobs) == {"fidelity", "results_summary", "all"}, jobs


def test_a_deleted_study_section_is_skipped_at_smoke_scale(tmp_path):
    """Issue 30: deleting a study from config.yaml works at smoke scale too (smoke.yaml's rules for
    it are skipped, not left as a partial section that fails validation)."""
    work = copy_workflow(tmp_path)
    path = work / "config" / "config.yaml"
    cfg = yaml.safe_load(path.read_text(encoding="utf-8"))
    del cfg["raim2021"], cfg["bernstein2020"]["chapter4"]
    write_yaml(path, cfg)
    jobs = planned_jobs(snakemake(work, "-n", *SMOKE))
    assert jobs and not [r for r in jobs if r.startswith(("raim2021", "bernstein2020_ch4"))], jobs
    assert "ju2022_run_chunk" in jobs


def test_misspelt_step_fails_the_dry_run(tmp_path):
    work = copy_workflow(tmp_path)
    rules = work / "workflow" / "rules" / "scorecard.smk"
    rules.write_text(rules.read_text().replace('step("scorecard:fidelity")', 'step("scorecard:fidelty")'))
    proc = snakemake(work, "-n", check=False)
    assert proc.returncode != 0
    assert "has no function 'fidelty'" in proc.stdout + proc.stderr


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
    assert_refused_with(proc, expected)
    assert not (work / "results").exists() or not any((work / "results").rglob("*.npz"))


def test_clamped_releases_without_the_collapsed_move_are_refused(tmp_path):
    """On clamped releases Gibbs-SS-Update moves its parameters by the collapsed moves alone."""
    def edit(cfg):
        cfg["bernstein2020"]["chapter5"]["synthetic"]["clamp"] = True
        cfg["bernstein2020"]["chapter5"]["gibbs"]["collapsed_moves"] = 0
    proc = snakemake(_edit_config(tmp_path, edit), "-n", check=False)
    assert proc.returncode != 0
    assert_refused_with(proc, "'bernstein2020.chapter5.gibbs.collapsed_moves': must be >= 1 with synthetic.clamp")


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    work = copy_workflow(tmp_path)
    path = work / "config" / "config.yaml"
    text = path.read_text().replace("  iterations: 10000", "  iterations: [10000", 1)
    path.write_text(text)
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "iterations: [10000" in x)
    proc = snakemake(work, "-n", check=False)
    assert proc.returncode != 0
    assert_refused_with(proc, f"invalid config file config/config.yaml, line {line}, column")


