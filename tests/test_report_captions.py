"""The HTML report's captions (workflow/report/**/*.rst) render, and every target has its own.

Snakemake renders a caption as a Jinja2 template (a ``snakemake`` object with the run's
``config``, ``wildcards`` and ``rule``), appends link targets named after the report's
categories and hands the text to docutils. This does the same without the rule files: with the
paper config and at smoke scale (shrunk by config/smoke.yaml, as the Snakefile does), with
undefined names refused, and fails on any docutils system message (warning or error).
"""

from __future__ import annotations

import copy
import csv
import io
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from docutils.core import publish_parts
from jinja2 import Environment, StrictUndefined

from tests.configs import config as load_config
from tests.workflow import (
    EXTRA_TARGETS,
    NOT_IMPLEMENTED_IDS,
    NOT_IMPLEMENTED_STUDIES,
)

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "workflow" / "report"
CAPTIONS = sorted(REPORT.rglob("*.rst"))
SCORECARD_LINK = "`Fidelity scorecard`_"
# the link target Snakemake appends for the scorecard's category
LINK_TARGETS = "\n\n.. _Fidelity scorecard: x\n"
# Snakemake's own call (docutils 0.22 announces the keyword's removal in 2.0)
pytestmark = pytest.mark.filterwarnings('ignore:Argument "writer_name":PendingDeprecationWarning')
# ju2022's per-experiment table (rule ju2022_experiments); targets.tsv lists no such id
EXTRA_CAPTIONS = [("ju2022", "experiments", "table")]


CONFIGS = {scale: load_config(scale) for scale in ("paper", "smoke")}


def _render(path: Path, config: dict, experiment: str = "loglinear_coverage") -> tuple[str, str]:
    """(reStructuredText after Jinja, HTML body); fails on any docutils system message."""
    # the environment of snakemake.report, plus StrictUndefined: a misspelt key fails here
    # instead of rendering as an empty string in the report
    env = Environment(trim_blocks=True, lstrip_blocks=True, undefined=StrictUndefined)
    snakemake = SimpleNamespace(
        config=config,
        wildcards=SimpleNamespace(experiment=experiment, dataset="fair"),
        rule=f"caption_test_{path.stem}",
        params=SimpleNamespace(),
    )
    text = env.from_string(path.read_text(encoding="utf-8")).render(
        snakemake=snakemake, categories={}, files=[]
    )
    warnings = io.StringIO()
    parts = publish_parts(
        text + LINK_TARGETS,
        writer_name="html",
        settings_overrides={"warning_stream": warnings, "halt_level": 5},
    )
    problems = warnings.getvalue()
    assert "System Message" not in parts["whole"] and not problems, (
        f"{path.relative_to(ROOT)}: docutils reports problems:\n{problems}\n"
        f"--- rendered text ---\n{text}"
    )
    return text, parts["body"]


def _expected_captions() -> list[tuple[str, str, str]]:
    with open(ROOT / "tests" / "data" / "targets.tsv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return (
        [
            (r["study"], r["id"], r["kind"])
            for r in rows
            if r["study"] not in NOT_IMPLEMENTED_STUDIES
            and (r["study"], r["id"]) not in NOT_IMPLEMENTED_IDS
        ]
        + EXTRA_TARGETS
        + EXTRA_CAPTIONS
    )


def test_captions_found():
    assert (REPORT / "fidelity.rst") in CAPTIONS
    assert len(CAPTIONS) >= len(_expected_captions()) + 1


@pytest.mark.parametrize("scale", sorted(CONFIGS))
@pytest.mark.parametrize("path", CAPTIONS, ids=lambda p: str(p.relative_to(REPORT)))
def test_caption_renders_without_docutils_messages(path, scale):
    _render(path, CONFIGS[scale])


@pytest.mark.parametrize("scale", sorted(CONFIGS))
def test_experiments_caption_renders_for_every_configured_experiment(scale):
    config = CONFIGS[scale]
    for name, experiment in config["ju2022"]["experiments"].items():
        text, _ = _render(REPORT / "ju2022" / "experiments.rst", config, experiment=name)
        assert name in text and ", ".join(str(e) for e in experiment["epsilons"]) in text


@pytest.mark.parametrize("study, target, kind", _expected_captions(), ids=lambda v: str(v))
def test_each_target_has_its_own_caption(study, target, kind):
    path = REPORT / study / f"{target}.rst"
    assert path.is_file(), f"no caption {path.relative_to(ROOT)} for target {study}/{target}"
    raw = path.read_text(encoding="utf-8")
    assert 5 <= len(raw.splitlines()) <= 12, f"{path.relative_to(ROOT)}: captions are 5-12 lines"
    assert "snakemake.config" in raw, (
        f"{path.relative_to(ROOT)}: settings must come from the run's config"
    )
    assert SCORECARD_LINK in raw, f"{path.relative_to(ROOT)}: no link to its scorecard rows"
    if target != "experiments":  # an experiment table has no scorecard rows of its own
        assert f"``{target}``" in raw, (
            f"{path.relative_to(ROOT)}: does not name its scorecard target"
        )
    for scale, config in CONFIGS.items():
        text, body = _render(path, config)
        assert '<a class="reference external" href="x">Fidelity scorecard</a>' in body, (
            scale,
            body,
        )
        assert "{{" not in text and "{%" not in text
    if kind == "figure":
        words = " ".join(raw.split())
        assert "PNG preview" in words and f"{target}.pdf" in words, (
            f"{path.relative_to(ROOT)}: a figure caption says its PNG is a preview of the PDF "
            "beside it"
        )


def test_captions_state_the_smoke_settings_truthfully():
    """The same caption says different things at the two scales: its settings are live."""
    for rel, smoke_value in (
        ("ju2022/fig1a.rst", "400 sweeps"),
        ("bernstein2020/fig5_4.rst", "8 trials"),
        ("raim2021/mse_densities.rst", "S = 3 replications"),
    ):
        paper, _ = _render(REPORT / rel, CONFIGS["paper"])
        smoke, _ = _render(REPORT / rel, CONFIGS["smoke"])
        assert smoke_value in smoke and smoke_value not in paper, rel


def test_captions_point_to_no_file_as_beside_them():
    """The report holds the PNG previews and the CSV tables only (issue 30): a caption that names a
    PDF or a markdown table says it is in the results folder, not "beside it"."""
    pattern = re.compile(r"PDF\s+beside\s+it|``[^`]+\.(pdf|md)``,?\s+beside\s+it")
    beside = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "workflow" / "report").rglob("*.rst")
        if pattern.search(p.read_text(encoding="utf-8"))
    ]
    assert not beside, beside


def test_scorecard_caption_is_short():
    assert 3 <= len((REPORT / "fidelity.rst").read_text(encoding="utf-8").splitlines()) <= 5


def test_fig5_4_caption_says_whether_the_releases_were_clamped():
    """Issue 9, privacy honesty: the caption follows ``synthetic.clamp``."""
    clamped = copy.deepcopy(CONFIGS["paper"])
    clamped["bernstein2020"]["chapter5"]["synthetic"]["clamp"] = True
    plain, _ = _render(REPORT / "bernstein2020" / "fig5_4.rst", CONFIGS["paper"])
    text, _ = _render(REPORT / "bernstein2020" / "fig5_4.rst", clamped)
    assert "not epsilon-DP" in " ".join(plain.split()) and "clamps every record" in " ".join(
        text.split()
    )
    assert "not epsilon-DP" not in " ".join(text.split())
