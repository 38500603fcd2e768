"""Static checks of the house rules (issue 7): one concept, one place; findable targets; small
documented modules. Each test fails if a removed dialect or smell comes back."""

from __future__ import annotations

import ast
import csv
import functools
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "dpinfer"
RULES = ROOT / "workflow" / "rules"
# a guard against files that hold more than one concept; the formatter and linter below keep it
# from being met by density (long lines, joined statements) rather than by smaller modules
MAX_LINES = 650
MODULES = sorted(SRC.rglob("*.py"))


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _is_njit(node: ast.AST) -> bool:
    for dec in getattr(node, "decorator_list", []):
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Name) and target.id in ("njit", "jit"):
            return True
        if isinstance(target, ast.Attribute) and target.attr in ("njit", "jit"):
            return True
    return False


def test_every_numba_kernel_has_a_docstring_and_one_decorator_style():
    missing, styles = [], set()
    for path in MODULES:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.FunctionDef) and _is_njit(node):
                if not ast.get_docstring(node):
                    missing.append(f"{path.relative_to(ROOT)}::{node.name}")
                styles |= {ast.unparse(d) for d in node.decorator_list}
    assert not missing, f"kernels without a docstring: {missing}"
    # inline='always' is the one variant: the direct sampler's per-draw kernels are inlined
    # into the Gibbs sweeps, which saves a call and the refcounting of its array arguments
    assert styles <= {"njit(cache=True)", "njit(cache=True, inline='always')"}, styles


def test_no_module_is_too_long_to_read_in_one_sitting():
    long = {
        str(p.relative_to(ROOT)): n
        for p in MODULES
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"


@pytest.mark.parametrize(
    "command", [["check", "--no-fix"], ["format", "--check"]], ids=["lint", "format"]
)
def test_ruff_accepts_every_python_file(command):
    """``ruff check`` and ``ruff format --check`` with the project's settings (pyproject.toml:
    a 100-character line); fix with ``ruff format . && ruff check --fix .``."""
    run = subprocess.run(
        [sys.executable, "-m", "ruff", *command, "."], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_snakefmt_accepts_every_rule_file():
    """``snakefmt --check`` on the Snakefile and every rule file, with the project's settings
    (pyproject.toml: a 100-character line, as ruff); fix with ``snakefmt Snakefile workflow/``.
    snakefmt leaves comments and strings alone, so the line limit is checked here too."""
    files = [ROOT / "Snakefile", *sorted(RULES.glob("*.smk"))]
    run = subprocess.run(
        [sys.executable, "-m", "snakefmt", "--check", *map(str, files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    long = [
        f"{f.relative_to(ROOT)}:{i}"
        for f in files
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if len(line) > 100
    ]
    assert not long, f"lines over 100 characters: {long}"


def test_figure_and_table_rules_come_from_the_target_rows():
    """A figure or table target is one ``figure(...)``/``table(...)`` call in its study's rule
    file; ``targets.smk`` makes the rules. A hand-written rule with a report entry elsewhere
    (apart from the scorecard's page) fails here."""
    hand = [
        f.name
        for f in sorted(RULES.glob("*.smk"))
        if f.name not in ("targets.smk", "scorecard.smk") and "report(" in f.read_text()
    ]
    assert not hand, f"rule files writing report entries by hand: {hand}"


def test_config_checks_live_in_one_module_not_in_rule_files():
    """A study's cross-key config checks are a function of dpinfer.study_config_checks (tested
    without Snakemake); its rule file only calls ``check_config``."""
    inline = [
        f.name
        for f in sorted(RULES.glob("*.smk"))
        if f.name != "common.smk" and "config_error(" in f.read_text()
    ]
    assert not inline, f"rule files with their own config checks: {inline}"


def test_a_chains_diagnostics_are_typed_fields_not_string_keys():
    """A sampler family's diagnostics are the attributes of its ``info.detail`` record (typed per
    family in dpinfer.samplers.base); Info has no free-form mapping of named scalars or traces
    (``clipped`` counts events by name, for tables that list them all)."""
    from dataclasses import fields

    from dpinfer.samplers.base import Info

    assert [f.name for f in fields(Info)] == [
        "cpu_seconds",
        "iterations",
        "thin",
        "acceptance",
        "clipped",
        "detail",
    ]


def test_no_kernel_takes_more_than_ten_positional_arguments():
    """A kernel takes records (NamedTuples of arrays and scalars, e.g. the direct sampler's
    ``Target``) instead of long positional lists."""
    long = {
        f"{p.relative_to(SRC).as_posix()}::{n.name}"
        for p in MODULES
        for n in ast.walk(_tree(p))
        if isinstance(n, ast.FunctionDef) and _is_njit(n) and len(n.args.args) > 10
    }
    assert not long, f"kernels with more than 10 arguments: {sorted(long)}"


def test_one_chain_record_for_every_sampler():
    owners = [
        (p.relative_to(SRC).as_posix(), n.name)
        for p in MODULES
        for n in ast.walk(_tree(p))
        if isinstance(n, ast.ClassDef) and n.name in ("Chain", "Info")
    ]
    assert sorted(owners) == [("samplers/base.py", "Chain"), ("samplers/base.py", "Info")], owners


def test_privacy_noise_is_drawn_only_by_the_mechanisms():
    """Studies and models release through dpinfer.mechanisms records, never by drawing noise."""
    pattern = re.compile(r"\.(laplace|geometric)\(")
    offenders = [
        f"{p.relative_to(ROOT)}:{i}"
        for d in ("studies", "models")
        for p in (SRC / d).rglob("*.py")
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert not offenders, offenders


def test_declared_dependencies_are_used():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {re.split(r"[<>=!\[ ]", d)[0].lower().replace("-", "_") for d in deps}
    imported = set()
    for path in MODULES + sorted(ROOT.glob("workflow/**/*.py")):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])
    # used without an import statement: snakemake runs the workflow, its slurm plugin is
    # loaded by name from the cluster profile, pyyaml by snakemake's config loading
    implicit = {"snakemake", "snakemake_executor_plugin_slurm", "pyyaml"}
    unused = sorted(n for n in names - implicit if n not in imported)
    assert not unused, f"declared but never imported: {unused}"


def _implemented_targets():
    with open(ROOT / "tests" / "data" / "targets.tsv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    from tests.workflow import NOT_IMPLEMENTED_IDS, NOT_IMPLEMENTED_STUDIES

    return [
        (r["study"], r["id"])
        for r in rows
        if r["study"] not in NOT_IMPLEMENTED_STUDIES
        and (r["study"], r["id"]) not in NOT_IMPLEMENTED_IDS
    ]


@functools.cache
def _rule_names() -> set[str]:
    """The workflow's rules at the default config, as Snakemake parses them (the figure and table
    rules are made from the studies' figure()/table() rows, so no rule file spells them)."""
    run = subprocess.run(
        [sys.executable, "-m", "snakemake", "--list-rules"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return set(run.stdout.split())


@pytest.mark.parametrize("study, target", _implemented_targets(), ids=lambda v: str(v))
def test_each_target_has_one_renderer_and_one_rule_by_name(study, target):
    renderers = [
        f"{p.relative_to(SRC)}"
        for p in (SRC / "studies").rglob("*.py")
        for n in _tree(p).body
        if isinstance(n, ast.FunctionDef) and n.name == target
    ]
    assert len(renderers) == 1, f"{target}: renderer functions {renderers}"
    assert f"{study}_{target}" in _rule_names(), f"the workflow has no rule {study}_{target}"
