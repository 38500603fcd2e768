"""The workflow's side of the package: pure-Python grid, parse-time step names, the scorecard."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import dpinfer.studies
from dpinfer import grid
from dpinfer.pipeline import resolve_step
from dpinfer.studies.bernstein2020_ch5.grid import (
    ch5_setting,
    ch5_synthetic_settings,
    parse_ch5_setting,
)
from dpinfer.studies.deviations import entry_classes
from dpinfer.studies.raim2021.grid import parse_raim_setting, raim_setting
from dpinfer.studies.scorecard import (
    Claim,
    fidelity,
    heading_anchors,
    read_claims,
    setting,
    verdict,
    write_claims,
)


def test_workflow_imports_are_pure_python():
    """What the Snakefile imports must not load the numerical stack (a dry run stays fast): the
    step runner, the generic grid and every study's grid module (package ``__init__`` included),
    the NIG chain specs and raisa2021's params reader."""
    studies = Path(dpinfer.studies.__file__).parent
    grids = sorted(f"dpinfer.studies.{p.parent.name}.grid" for p in studies.glob("*/grid.py"))
    assert len(grids) >= 5, grids
    modules = [
        "dpinfer.grid",
        "dpinfer.pipeline",
        "dpinfer.studies.nig_specs",
        "dpinfer.studies.raisa2021.settings",
        *grids,
    ]
    code = (
        "import importlib, sys\n"
        "for m in sys.argv[1:]:\n"
        "    importlib.import_module(m)\n"
        "print(sorted(m for m in ('numpy', 'numba', 'scipy', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *modules], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_compute_and_summary_steps_load_no_plotting_stack():
    """Sampler, summary and claim jobs never import matplotlib or seaborn (0.5 s and 1.5 s of every
    job that did); only figure steps and the report's pages draw."""
    studies = Path(dpinfer.studies.__file__).parent
    modules = sorted(
        f"dpinfer.studies.{p.parent.name}.{p.stem}"
        for p in studies.glob("*/*.py")
        if p.stem in ("run", "wifi_run", "clipping", "summarise", "paper")
    )
    assert len(modules) >= 20, modules
    # one process: the first module that loads either is named (the import order is fixed)
    code = (
        "import importlib, sys\n"
        "for m in sys.argv[1:]:\n"
        "    importlib.import_module(m)\n"
        "    drawn = [x for x in ('matplotlib', 'seaborn') if x in sys.modules]\n"
        "    if drawn:\n"
        "        print(m, drawn); break"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *modules], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""


def test_step_names_resolve_without_importing():
    assert resolve_step("scorecard:fidelity") == "scorecard:fidelity"
    for bad, why in [
        ("scorecard:fidelty", "no function"),
        ("scorcard:fidelity", "no module"),
        ("scorecard.fidelity", "not of the form"),
        ("../x:y", "not of the form"),
    ]:
        with pytest.raises(ValueError, match=why):
            resolve_step(bad)


def test_chunk_ranges_cover_the_replicates_once():
    reps = [r for c in range(grid.n_chunks(11, 4)) for r in range(*grid.chunk_range(c, 11, 4))]
    assert reps == list(range(11))
    assert grid.chunk_range(2, 11, 4) == [8, 11]
    with pytest.raises(ValueError):
        grid.chunk_range(3, 11, 4)


def test_setting_names_round_trip():
    assert parse_raim_setting(raim_setting(0.01, 0.2)) == (0.01, 0.2)
    assert parse_ch5_setting(ch5_setting(100, 0.1)) == (100, 0.1)
    assert grid.fmt_eps(10.0) == "10" and grid.fmt_eps(0.1) == "0.1"
    with pytest.raises(ValueError):
        parse_raim_setting("rho0.1")
    with pytest.raises(ValueError):
        grid.fmt_eps(float("inf"))
    syn = {"eps_vs_n": 0.1, "n_values": [10, 100], "n_vs_eps": 10, "epsilons": [0.1, 1.0]}
    assert ch5_synthetic_settings(syn) == [(10, 0.1), (10, 1.0), (100, 0.1)]


def test_a_setting_other_than_the_documents_makes_a_row_not_comparable():
    from dpinfer.studies.scorecard import mismatches, setting, setting_in

    level = setting("credible level", 0.9, 0.8)
    assert not level.same and level.describe() == "credible level 0.8 here, 0.9 in the paper"
    assert setting("n", 100, 100.0).same and setting("grid", [0.1, 1], [0.1, 1.0]).same
    assert not setting("grid", [0.1, 1], [1, 0.1]).same  # a grid in another order is another grid
    assert (
        setting("replicates", 100, 150, at_least=True).same
        and not setting("replicates", 100, 4, at_least=True).same
    )
    assert (
        setting_in("epsilon", [0.01, 0.1], 0.1).same
        and not setting_in("epsilon", [0.01, 0.1], 1).same
    )
    judged = Claim(
        "tab1",
        "coverage",
        "0.97",
        "0.95",
        "0.02",
        True,
        settings=(setting("credible level", 0.9, 0.9),),
    )
    other = Claim("tab1", "coverage", "0.97", "0.80", "0.02", False, "no-such-entry", (level,))
    assert verdict(judged, {}) == "holds" and not mismatches(judged)
    assert verdict(other, {}) == "not comparable" and mismatches(other) == [level]


def test_scorecard_verdicts_and_tables(tmp_path):
    doc = (
        "# Deviations\n\n## ju2022 (Ju et al.)\n\n### Index bug in the acceptance ratio (fixed)\n\n"
        "Class: **document in error**. Evidence: `pytest tests/test_a.py::test_b` shows it.\n"
    )
    anchors = heading_anchors(doc)
    assert "index-bug-in-the-acceptance-ratio-fixed" in anchors
    classes = entry_classes(doc)
    ok = Claim("tab1", "coverage within 3 SE", "0.36", "0.40", "se 0.05", True)
    explained = Claim(
        "runtime",
        "404 s per chain",
        "404",
        "0.2",
        "",
        False,
        "index-bug-in-the-acceptance-ratio-fixed",
    )
    unexplained = Claim("fig1b", "acceptance >= exp(-eps)", "yes", "no", "", False, "no-such-entry")
    not_run = Claim("tab1", "coverage within 3 SE", "0.36", "not run", "", None)
    other = Claim(
        "tab1",
        "coverage within 3 SE",
        "0.36",
        "0.80",
        "",
        True,
        settings=(setting("credible level", 0.9, 0.8),),
        headline=True,
    )
    assert [verdict(c, classes) for c in (ok, explained, unexplained, not_run, other)] == [
        "holds",
        "differs: document in error",
        "differs: not reproduced",
        "not run",
        "not comparable",
    ]
    (tmp_path / "ju2022" / "claims").mkdir(parents=True)
    path = tmp_path / "ju2022" / "claims" / "ju2022.csv"
    write_claims(path, [ok, explained, unexplained, not_run, other])
    assert read_claims(path) == [ok, explained, unexplained, not_run, other]
    (tmp_path / "dev.md").write_text(doc)
    out = SimpleNamespace(
        md=tmp_path / "fidelity.md", csv=tmp_path / "fidelity.csv", html=tmp_path / "fidelity.html"
    )
    fidelity(SimpleNamespace(claims=[str(path)], deviations=str(tmp_path / "dev.md")), out)
    text = out.md.read_text()
    assert "5 checkable statements" in text and "1 hold; 2 differ (1 document in error, " in text
    assert "0 stand-in data, 0 our choice, 1 not reproduced)" in text
    assert "not comparable: credible level 0.8 here, 0.9 in the paper" in text
    assert "1 are about settings this run does not compute" in text
    assert "(docs/deviations.md#index-bug-in-the-acceptance-ratio-fixed)" in text
