"""The HTML report shows the scorecard first and every table as a page (issue: report items 5, 6).

Unit tests of :mod:`dpinfer.studies.report_pages` (escaping, cells as written, verdict colours,
links to the deviations entries), and one report of the session's smoke run: its menu lists the
scorecard first (Snakemake 9 sorts the categories by name with the browser's ``localeCompare``),
and the scorecard and the tables are HTML pages the report shows inline (``text/html``), not
CSV downloads.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest
import snakemake

from dpinfer.io import write_table
from dpinfer.studies.report_pages import (
    VERDICT_COLOURS,
    markdown_title_and_notes,
    read_csv_table,
    render_scorecard_page,
    render_table_page,
    table_page,
)
from dpinfer.studies.scorecard import VERDICTS, Claim, deviation_sections, fidelity, write_claims
from tests.workflow import SMOKE, copy_run, expected_targets
from tests.workflow import snakemake as run_snakemake

SCORECARD = "Fidelity scorecard"
MENU_JS = (
    Path(snakemake.__file__).parent
    / "report"
    / "html_reporter"
    / "template"
    / "components"
    / "menu.js"
)


class _Cells(HTMLParser):
    """The text of every <td>, and every tag seen."""

    def __init__(self):
        super().__init__()
        self.cells, self.tags, self._td = [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "td":
            self._td = ""

    def handle_endtag(self, tag):
        if tag == "td" and self._td is not None:
            self.cells.append(self._td)
            self._td = None

    def handle_data(self, data):
        if self._td is not None:
            self._td += data


def _parse(page: str) -> _Cells:
    p = _Cells()
    p.feed(page)
    return p


def _self_contained(page: str) -> None:
    tags = _parse(page).tags
    assert not [t for t, _ in tags if t in ("script", "img", "link", "iframe", "object")], tags
    assert not re.search(r"(src|href)\s*=\s*[\"']?\s*(https?:|//|javascript:)", page, re.I)


# ----------------------------------------------------------------------------- table pages
def test_table_page_escapes_every_text_and_keeps_the_cells_as_written():
    columns = ["eps<1", "name", "value"]
    rows = [["0.3", "<script>alert(1)</script>", "0.750"], ["1e-06", 'a & "b"', "-0.000"]]
    page = render_table_page(
        "Title <b>&</b>", columns, rows, notes="A `code` & <i>note</i>.", source="t.csv"
    )
    _self_contained(page)
    assert "<script>" not in page and "<b>&</b>" not in page and "<i>note</i>" not in page
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "Title &lt;b&gt;&amp;&lt;/b&gt;" in page
    )
    assert "<code>code</code> &amp; &lt;i&gt;note&lt;/i&gt;." in page
    parsed = _parse(page)
    assert parsed.cells == [
        c for r in rows for c in r
    ]  # the text as written, unescaped by a browser
    assert page.count('<td class="num">') == 4  # numbers right-aligned, their text untouched
    assert "<th>eps&lt;1</th>" in page


def test_table_page_step_takes_title_and_notes_from_the_markdown(tmp_path):
    rows = [
        {"epsilon": 0.3, "coverage": 0.75, "note": "x|y"},
        {"epsilon": 1.0, "coverage": 1e-6, "note": ""},
    ]
    csv_path, md_path = tmp_path / "t.csv", tmp_path / "t.md"
    write_table(
        csv_path,
        md_path,
        rows,
        ["epsilon", "coverage", "note"],
        title="Table 1 <x>",
        notes="Notes\n\nmore",
    )
    before = csv_path.read_bytes(), md_path.read_bytes()
    assert markdown_title_and_notes(md_path.read_text()) == ("Table 1 <x>", "Notes\n\nmore")
    table_page(
        SimpleNamespace(csv=str(csv_path), md=str(md_path)),
        SimpleNamespace(html=str(tmp_path / "t.html")),
    )
    page = (tmp_path / "t.html").read_text(encoding="utf-8")
    assert (csv_path.read_bytes(), md_path.read_bytes()) == before
    assert "<h1>Table 1 &lt;x&gt;</h1>" in page and "<p>Notes</p><p>more</p>" in page
    assert "Notes of <code>t.md</code>" in page and "2 rows of <code>t.csv</code>" in page
    header, body = read_csv_table(csv_path)
    assert (
        _parse(page).cells
        == [c for r in body for c in r]
        == ["0.300", "0.750", "x|y", "1.000", "1.00e-06", ""]
    )
    assert header == ["epsilon", "coverage", "note"]


def test_markdown_without_title_or_notes():
    assert markdown_title_and_notes("| a |\n|---|\n| 1 |\n") == ("", "")


# ----------------------------------------------------------------------------- scorecard page
COLUMNS = [
    "study",
    "target",
    "statement",
    "paper",
    "ours",
    "mc_error",
    "verdict",
    "explanation",
    "setting",
    "not_comparable",
    "headline",
]
DEVIATIONS = """# Deviations

Intro.

## ju2022 (Ju et al.)

### Index bug <fixed> & more

The authors' code uses `theta[i]` where it means `theta[i-1]`:

- first <item>
- second item
  wrapped

### Next entry

Other text.
"""


def _rows():
    def row(verdict, explanation="", statement="s", not_comparable=""):
        return [
            "ju2022",
            "tab1",
            statement,
            "0.36",
            "0.40",
            "0.05",
            verdict,
            explanation,
            "",
            not_comparable,
            "False",
        ]

    return [
        row("holds", statement="coverage <= 0.9 & > 0.1"),
        row("differs (explained)", "docs/deviations.md#index-bug-fixed--more"),
        row("differs (unexplained)", "docs/deviations.md#no-such-entry"),
        row("not comparable", not_comparable="credible level 0.8 here, 0.9 in the paper"),
        row("not run"),
    ]


def test_every_verdict_has_its_own_colour():
    assert tuple(VERDICT_COLOURS) == VERDICTS
    backgrounds = [bg for bg, _ in VERDICT_COLOURS.values()]
    assert len(set(backgrounds)) == len(backgrounds)


def test_deviation_sections_end_at_the_next_heading_of_their_level():
    sections = deviation_sections(DEVIATIONS)
    heading, text = sections["index-bug-fixed--more"]
    assert heading == "Index bug <fixed> & more"
    assert (
        text.startswith("The authors' code")
        and text.endswith("wrapped")
        and "Other text" not in text
    )
    assert "Next entry" in sections["ju2022-ju-et-al"][1]  # a chapter holds its entries


def test_scorecard_page_colours_verdicts_and_links_their_explanations():
    page = render_scorecard_page(
        COLUMNS, _rows(), deviation_sections(DEVIATIONS), deviations_href="../docs/deviations.md"
    )
    _self_contained(page)
    parsed = _parse(page)
    for verdict, (bg, _) in VERDICT_COLOURS.items():
        cls = "v-" + re.sub(r"[^a-z]+", "-", verdict).strip("-")
        assert re.search(rf"\.{cls} \{{ background: {bg};", page), verdict
        # its row in the counts table and its row in the scorecard
        assert sum(1 for t, a in parsed.tags if t == "td" and a.get("class") == cls) == 2, verdict
    assert "coverage &lt;= 0.9 &amp; &gt; 0.1" in page and "<= 0.9 &" not in page
    # the explained verdict links to the entry's text in the page, which links to the docs
    links = [a["href"] for t, a in parsed.tags if t == "a"]
    assert links.count("#deviation-index-bug-fixed--more") == 1
    assert "../docs/deviations.md#index-bug-fixed--more" in links
    ids = [a["id"] for _, a in parsed.tags if "id" in a]
    assert ids == ["deviation-index-bug-fixed--more"]
    section = page[page.index('id="deviation-index-bug-fixed--more"') :]
    assert "<h3>Index bug &lt;fixed&gt; &amp; more</h3>" in section
    assert "<code>theta[i]</code>" in section and "<li>first &lt;item&gt;</li>" in section
    assert "<li>second item wrapped</li>" in section and "Other text" not in section
    # an explanation that names no entry is shown, not linked; a setting mismatch is spelt out
    assert (
        "docs/deviations.md#no-such-entry: no such entry" in page
        and "#deviation-no-such-entry" not in page
    )
    assert "credible level 0.8 here, 0.9 in the paper" in page


def test_fidelity_writes_the_page_from_its_csv(tmp_path):
    (tmp_path / "ju2022" / "claims").mkdir(parents=True)
    claims = tmp_path / "ju2022" / "claims" / "ju2022.csv"
    write_claims(
        claims,
        [
            Claim("tab1", "coverage & more", "0.36", "0.40", "0.05", True),
            Claim("runtime", "404 s", "404", "0.2", "", False, "index-bug-fixed--more"),
        ],
    )
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "deviations.md").write_text(DEVIATIONS)
    out = SimpleNamespace(
        md=tmp_path / "results" / "fidelity.md",
        csv=tmp_path / "results" / "fidelity.csv",
        html=tmp_path / "results" / "fidelity.html",
    )
    fidelity(
        SimpleNamespace(claims=[str(claims)], deviations=str(tmp_path / "docs" / "deviations.md")),
        out,
    )
    page = out.html.read_text(encoding="utf-8")
    header, rows = read_csv_table(out.csv)
    cells = _parse(page).cells
    for r in rows:  # every shown cell as the CSV has it
        assert [
            r[header.index(c)]
            for c in ("study", "target", "statement", "paper", "ours", "mc_error")
        ] in [cells[i : i + 6] for i in range(len(cells))]
    assert '<a href="#deviation-index-bug-fixed--more"' in page
    assert 'href="../docs/deviations.md#index-bug-fixed--more"' in page  # relative to results/


# ----------------------------------------------------------------------------- the report
def _menu_order(names: list[str]) -> list[str]:
    """The report menu's order: Snakemake 9 sorts category names with localeCompare (menu.js)."""
    node = shutil.which("node")
    if node is None:
        return sorted(names, key=str.casefold)
    code = (
        "console.log(JSON.stringify(JSON.parse(process.argv[1]).sort((a, b) => "
        "a.localeCompare(b))))"
    )
    return json.loads(
        subprocess.run(
            [node, "-e", code, json.dumps(names)], capture_output=True, text=True, check=True
        ).stdout
    )


def _report_data(html: str, name: str):
    return json.loads(re.search(rf"var {name}\s*=\s*(\{{.*?\}});\s*</script>", html, re.S).group(1))


def test_the_report_menu_sorts_categories_by_name():
    """What the category names rely on; fails when Snakemake changes how the menu orders them."""
    assert re.search(
        r"Object\.keys\(categories\)\.sort\(\s*\(a, b\) => a\.localeCompare\(b\)",
        MENU_JS.read_text(),
    )


@pytest.fixture(scope="module")
def report(smoke_run, tmp_path_factory):
    work = copy_run(smoke_run, tmp_path_factory.mktemp("report") / "w")
    run_snakemake(work, "--report", "report.html", *SMOKE)
    html = (work / "report.html").read_text(encoding="utf-8")
    return work, _report_data(html, "categories"), _report_data(html, "results")


@pytest.mark.workflow  # reads the shared smoke run
def test_report_lists_the_scorecard_first_then_the_studies(report):
    _, categories, _ = report
    order = _menu_order(list(categories))
    assert order[0] == SCORECARD, order
    assert all(c.startswith("Study ") for c in order[1:]), order
    assert [c.removeprefix("Study ") for c in order[1:]] == sorted(
        c.removeprefix("Study ") for c in order[1:]
    )


@pytest.mark.workflow  # reads the shared smoke run
def test_report_shows_the_scorecard_and_every_table_as_a_page(report):
    work, categories, results = report
    assert categories[SCORECARD] == {"Other": ["results/fidelity.html"]}
    pages = ["results/fidelity.html"] + [
        str(p.with_suffix(".html")) for p in expected_targets() if p.suffix == ".csv"
    ]
    for path in pages:
        assert results[path]["mime_type"] == "text/html", (
            path
        )  # shown in the report, not downloaded
        uri = results[path]["data_uri"]
        assert uri.startswith("data:text/html;"), path
        assert base64.b64decode(uri.split("base64,", 1)[1]) == (work / path).read_bytes(), path
    assert not [p for p in results if p.endswith((".csv", ".md"))], sorted(results)
    scorecard = (work / "results" / "fidelity.html").read_text(encoding="utf-8")
    header, rows = read_csv_table(work / "results" / "fidelity.csv")
    assert f"<p>{len(rows)} checkable statements" in scorecard
    verdicts = {r[header.index("verdict")] for r in rows}
    assert verdicts and all(
        f'class="v-{re.sub(r"[^a-z]+", "-", v).strip("-")}"' in scorecard for v in verdicts
    )
    entries = deviation_sections((work / "docs" / "deviations.md").read_text(encoding="utf-8"))
    cited = {r[header.index("explanation")].partition("#")[2] for r in rows} & set(entries)
    assert cited and all(
        f'<a href="#deviation-{a}"' in scorecard and f'id="deviation-{a}"' in scorecard
        for a in cited
    )
    table = work / "results" / "ju2022" / "tab1"
    header, rows = read_csv_table(table.with_suffix(".csv"))
    page = table.with_suffix(".html").read_text(encoding="utf-8")
    assert _parse(page).cells == [c for r in rows for c in r]
    assert f"<h1>{markdown_title_and_notes(table.with_suffix('.md').read_text())[0]}</h1>" in page
