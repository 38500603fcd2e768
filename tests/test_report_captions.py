"""The HTML report's captions (workflow/report/**/*.rst) render, every target has its own, and
its links stay inside the report.

Snakemake renders a caption as a Jinja2 template (a ``snakemake`` object with the run's
``config``, ``wildcards`` and ``rule``), appends link targets named after the report's
categories and hands the text to docutils. This does the same without the rule files: with the
paper config and at smoke scale (shrunk by config/smoke.yaml, as the Snakefile does), with
undefined names refused, and fails on any docutils system message (warning or error).

A caption links its target's rows and the deviation entries it names on the scorecard page
(``results/fidelity.html#target-<study>-<id>``, ``#deviation-<anchor>``) and a table by its
page, through the one-line Jinja macros ``scorecard`` and ``page`` (:data:`MACROS`): the report
shows a page as a ``data:`` URI, so only the report's own app can open one at an anchor. The
landing page (Snakemake's global description, workflow/report/workflow.rst) renders the same way.
"""

from __future__ import annotations

import copy
import csv
import io
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import snakemake as snakemake_package
from docutils.core import publish_parts
from jinja2 import Environment, StrictUndefined

from dpinfer.studies.scorecard import deviation_sections
from tests.configs import config as load_config
from tests.workflow import (
    EXTRA_TARGETS,
    NOT_IMPLEMENTED_IDS,
    NOT_IMPLEMENTED_STUDIES,
    expected_targets,
)

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "workflow" / "report"
CAPTIONS = sorted(REPORT.rglob("*.rst"))
# the link target Snakemake appends for the scorecard's category
LINK_TARGETS = "\n\n.. _Fidelity scorecard: x\n"
# every caption defines the macros it uses as these, on its first line
MACROS = {
    "scorecard": "{% macro scorecard(anchor, text) %}`{{ text }} <javascript:app.setView({"
    "content:'html',contentPath:results['results/fidelity.html'].data_uri+'#{{ anchor }}'})>`__"
    "{% endmacro %}",
    "page": "{% macro page(path, text) %}`{{ text }} <javascript:app.setView({content:'html',"
    "contentPath:results['{{ path }}'].data_uri,navbarMode:'resultinfo',resultPath:'{{ path }}'})"
    ">`__{% endmacro %}",
}
LANDING = REPORT / "workflow.rst"
DEVIATIONS = deviation_sections((ROOT / "docs" / "deviations.md").read_text(encoding="utf-8"))
# Snakemake's own call (docutils 0.22 announces the keyword's removal in 2.0)
pytestmark = pytest.mark.filterwarnings('ignore:Argument "writer_name":PendingDeprecationWarning')
# ju2022's per-experiment tables (target experiments/<name>); targets.tsv lists no such id
EXTRA_CAPTIONS = [("ju2022", "experiments", "table")]


CONFIGS = {scale: load_config(scale) for scale in ("paper", "smoke")}


def _output(path: Path, experiment: str) -> str:
    """The first output of the job whose report entry ``path`` captions (captions of per-experiment
    and per-data-set targets read the name from it: their rules have no wildcards)."""
    if path.parent.name == "own_data":
        return f"results/own_data/fair_{path.stem}.{'pdf' if path.stem == 'accuracy' else 'html'}"
    if path.parent.name == "releases":
        kind = "pdf" if path.stem == "marginals" else "html"
        return f"results/releases/ju2022_tables_{path.stem}.{kind}"
    if path.stem == "experiments":
        return f"results/ju2022/experiments/{experiment}.html"
    return f"results/{path.parent.name}/{path.stem}.html"


def _render(path: Path, config: dict, experiment: str = "loglinear_coverage") -> tuple[str, str]:
    """(reStructuredText after Jinja, HTML body); fails on any docutils system message."""
    # the environment of snakemake.report, plus StrictUndefined: a misspelt key fails here
    # instead of rendering as an empty string in the report
    env = Environment(trim_blocks=True, lstrip_blocks=True, undefined=StrictUndefined)
    snakemake = SimpleNamespace(
        config=config,
        wildcards=SimpleNamespace(),  # figure and table rules have none
        output=[_output(path, experiment)],
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
    # an experiment table has no scorecard rows of its own: it links the targets it feeds
    anchor = f"target-{study}-" + ('" ~ t' if target == "experiments" else f'{target}"')
    assert f'{{{{ scorecard("{anchor}' in raw, (
        f"{path.relative_to(ROOT)}: does not open its rows on the scorecard page"
    )
    for scale, config in CONFIGS.items():
        text, body = _render(path, config)
        opens = re.findall(
            r"href=\"javascript:app\.setView\(\{content:'html',contentPath:"
            r"results\['results/fidelity\.html'\]\.data_uri\+'#(target-[\w-]+)'",
            body,
        )
        assert opens and all(a.startswith(f"target-{study}-") for a in opens), (scale, body)
        if target != "experiments":
            assert f"target-{study}-{target}" in opens, (scale, opens)
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
    assert 3 <= len((REPORT / "fidelity.rst").read_text(encoding="utf-8").splitlines()) <= 6


def _macro_calls(raw: str, name: str) -> list[tuple[str, str]]:
    return re.findall(name + r'\("([^"]*)"(?:\s*~\s*\w+)?,\s*"?([^")]*)"?\)', raw)


@pytest.mark.parametrize("path", CAPTIONS, ids=lambda p: str(p.relative_to(REPORT)))
def test_caption_links_open_pages_the_report_carries(path):
    """A caption defines the macros it calls as :data:`MACROS` (one definition, no drift), every
    deviation entry it links is a heading of docs/deviations.md, which the scorecard page
    carries whole, and every page it opens is a page the report carries."""
    raw = path.read_text(encoding="utf-8")
    first = raw.splitlines()[0]
    for name, macro in MACROS.items():
        called = f"{{{{ {name}(" in raw
        assert (macro in first) == called, f"{path.relative_to(ROOT)}: macro {name!r}"
        assert raw.count(f"macro {name}(") == int(called)
    anchors = [a for a, _ in _macro_calls(raw, "scorecard")]
    # the scorecard page's anchors: an entry, a target's rows, a study, a verdict, its top
    kinds = ("deviation-", "target-", "study-", "verdict-")
    assert all(a.startswith(kinds) or a == "top" for a in anchors), anchors
    entries = [a.removeprefix("deviation-") for a in anchors if a.startswith("deviation-")]
    missing = [a for a in entries if a not in DEVIATIONS]
    assert not missing, (
        f"{path.relative_to(ROOT)} links entries docs/deviations.md lacks: {missing}"
    )
    pages = {str(p.with_suffix(".html")) for p in expected_targets() if p.suffix == ".csv"}
    for target, _ in _macro_calls(raw, "page"):
        assert target in pages, f"{path.relative_to(ROOT)}: no page {target} in the report"


def test_captions_point_to_the_reports_pages_not_to_markdown_files():
    """A caption that names another table's Markdown or CSV file, where the report carries that
    table's page, links the page instead (the Markdown file is not in the report)."""
    carried = {
        p.with_suffix("").as_posix().removeprefix("results/")
        for p in expected_targets()
        if p.suffix == ".csv"
    }
    named = []
    for path in CAPTIONS:
        own = path.relative_to(REPORT).with_suffix("").as_posix()
        for stem in re.findall(r"``(?:results/)?([\w/{}. ]+)\.(?:md|csv)``", path.read_text()):
            if stem in carried and stem != own:
                named.append((path.relative_to(REPORT).as_posix(), stem))
    assert not named, named


def test_landing_page_introduces_the_report():
    """Snakemake's global report description: registered in the Snakefile, renders, says what
    the report is, that smoke-scale verdicts are not comparable and where to start, with a link
    that opens the scorecard."""
    assert re.search(
        r'^report: "workflow/report/workflow\.rst"$', (ROOT / "Snakefile").read_text(), re.M
    )
    raw = LANDING.read_text(encoding="utf-8")
    assert raw.splitlines()[0] == MACROS["scorecard"]
    # its style puts the text above the rule graph, found by the graph's id: fails when
    # Snakemake renames it
    components = Path(snakemake_package.__file__).parent / "report" / "html_reporter"
    graph = (components / "template" / "components" / "rule_graph.js").read_text()
    assert 'id: "rulegraph"' in graph and "#rulegraph" in raw
    for scale in CONFIGS:
        text, body = _render(LANDING, CONFIGS[scale])
        words = " ".join(text.split())
        assert "Start at" in words and "Smoke-scale verdicts are not comparable" in words
        assert "data_uri+'#top'" in body and "data_uri+'#verdict-differs'" in body


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
