"""The HTML report shows the scorecard first, every table as a page, and no link blanks its pane.

Unit tests of :mod:`dpinfer.studies.report_pages` (escaping, cells as written, verdict colours,
filters, rows grouped by target, every entry of docs/deviations.md carried, in-page links
only), and one report of the session's smoke run: its menu lists the scorecard first (Snakemake 9
sorts the categories by name with the browser's ``localeCompare``), the scorecard and the tables
are HTML pages the report shows inline (``text/html``), every link of a caption, of the landing
page and of a page stays inside the report, and every deviation entry a caption or a row names
is on the scorecard page.

The report embeds each page as a ``data:`` URI in an iframe: a relative link on it (such as
``../docs/deviations.md#x``) resolves against that URI and leaves the pane blank. A caption's
link is ``javascript:`` that the report's own app runs: Snakemake's (``app.showCategory``,
``app.showResultInfo``) or ours (``app.setView`` with a page the report carries and an anchor of
it).
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import tomllib
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote

import pytest
import snakemake

from dpinfer.io import write_table
from dpinfer.studies.report_pages import (
    CONVERGED_COLOURS,
    VERDICT_COLOURS,
    markdown_table,
    markdown_title_and_notes,
    read_csv_table,
    render_scorecard_page,
    render_table_page,
    table_page,
)
from dpinfer.studies.scorecard import (
    COLUMNS_OUT,
    CONVERGED_VERDICTS,
    VERDICTS,
    Claim,
    deviation_sections,
    fidelity,
    write_claims,
)
from tests.workflow import SMOKE, copy_run, expected_targets
from tests.workflow import snakemake as run_snakemake

ROOT = Path(__file__).resolve().parents[1]
SCORECARD = "Fidelity scorecard"
SCORECARD_PAGE = "results/fidelity.html"
MENU_JS = (
    Path(snakemake.__file__).parent
    / "report"
    / "html_reporter"
    / "template"
    / "components"
    / "menu.js"
)


class _Parsed(HTMLParser):
    """The text of every <td>, every tag seen, and the inline scripts."""

    def __init__(self):
        super().__init__()
        self.cells, self.tags, self.scripts, self._td, self._script = [], [], [], None, None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "td":
            self._td = ""
        if tag == "script":
            self._script = ""

    def handle_endtag(self, tag):
        if tag == "td" and self._td is not None:
            self.cells.append(self._td)
            self._td = None
        if tag == "script" and self._script is not None:
            self.scripts.append(self._script)
            self._script = None

    def handle_data(self, data):
        if self._td is not None:
            self._td += data
        if self._script is not None:
            self._script += data

    def ids(self) -> set[str]:
        return {a["id"] for _, a in self.tags if "id" in a}

    def hrefs(self) -> list[str]:
        return [a["href"] for t, a in self.tags if t == "a" and "href" in a]


def _parse(page: str) -> _Parsed:
    p = _Parsed()
    p.feed(page)
    return p


def _self_contained(page: str) -> None:
    """Nothing loaded from outside: no element that fetches, no script with a source, no
    address with a scheme."""
    tags = _parse(page).tags
    assert not [t for t, _ in tags if t in ("img", "link", "iframe", "object")], tags
    assert not [a for t, a in tags if t == "script" and "src" in a], tags
    assert not re.search(r"(src|href)\s*=\s*[\"']?\s*(https?:|//|javascript:|data:)", page, re.I)
    assert not re.search(r"\b(fetch|XMLHttpRequest|import)\s*\(", page)


def _links_stay_on_the_page(page: str) -> list[str]:
    """Every link of a page the report embeds that would blank its pane: not an in-page anchor,
    or one to an id the page lacks."""
    parsed = _parse(page)
    ids = parsed.ids()
    return [h for h in parsed.hrefs() if not h.startswith("#") or h[1:] not in ids]


# ----------------------------------------------------------------------------- table pages
def test_table_page_escapes_every_text_and_keeps_the_cells_as_written():
    columns = ["eps<1", "name", "value"]
    rows = [["0.3", "<script>alert(1)</script>", "0.750"], ["1e-06", 'a & "b"', "-0.000"]]
    page = render_table_page(
        "Title <b>&</b>",
        columns,
        rows,
        notes="A `code` & <i>note</i>, [a link](../docs/x.md).",
        source="t.csv",
    )
    _self_contained(page)
    assert "<script>" not in page and "<b>&</b>" not in page and "<i>note</i>" not in page
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "Title &lt;b&gt;&amp;&lt;/b&gt;" in page
    )
    assert "<code>code</code> &amp; &lt;i&gt;note&lt;/i&gt;" in page
    # a link into the repository would blank the report's pane: its text and target, no <a>
    assert "a link (<code>../docs/x.md</code>)" in page and not _parse(page).hrefs()
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
    # the Markdown has the CSV's columns: one table, the CSV's
    assert (
        _parse(page).cells
        == [c for r in body for c in r]
        == ["0.300", "0.750", "x|y", "1.000", "1.00e-06", ""]
    )
    assert header == ["epsilon", "coverage", "note"]


def test_table_page_shows_the_markdown_layout_its_notes_describe(tmp_path):
    """tab1.md prints "ours (paper)" per cell, one row per epsilon; its notes say so. The page
    shows that layout first, then every column of the CSV."""
    csv_path, md_path = tmp_path / "tab1.csv", tmp_path / "tab1.md"
    csv_path.write_text("epsilon,parameter,coverage,paper\n0.1,p_1,0.95,1\n0.1,p_2,0.90,1\n")
    md_path.write_text(
        "# Coverage\n\n| epsilon | p_1 | p_2 |\n|---|---|---|\n"
        "| 0.1 | 0.95 (1.00) | 0.90 (1.00) |\n\nCells: ours (paper).\n"
    )
    assert markdown_table(md_path.read_text()) == (
        ["epsilon", "p_1", "p_2"],
        [["0.1", "0.95 (1.00)", "0.90 (1.00)"]],
    )
    table_page(
        SimpleNamespace(csv=str(csv_path), md=str(md_path)),
        SimpleNamespace(html=str(tmp_path / "tab1.html")),
    )
    page = (tmp_path / "tab1.html").read_text(encoding="utf-8")
    _self_contained(page)
    assert _parse(page).cells == ["0.1", "0.95 (1.00)", "0.90 (1.00)"] + [
        "0.1",
        "p_1",
        "0.95",
        "1",
        "0.1",
        "p_2",
        "0.90",
        "1",
    ]
    assert page.index("As laid out in <code>tab1.md</code>") < page.index("Every column of")
    assert "Cells: ours (paper)." in page


def test_markdown_without_title_or_notes():
    assert markdown_title_and_notes("| a |\n|---|\n| 1 |\n") == ("", "")


# ----------------------------------------------------------------------------- scorecard page
COLUMNS = COLUMNS_OUT
DEVIATIONS = """# Deviations

Intro, see [the index](#ju2022-ju-et-al) and [privacy](privacy.md#x).

<!-- classes:begin -->
**document in error** (1)

- ju2022: [Index bug <fixed> & more](#index-bug-fixed--more)
<!-- classes:end -->

## ju2022 (Ju et al.)

### Index bug <fixed> & more

Class: **document in error**. Evidence: `pytest tests/test_x.py::test_y` (prints 2).

The authors' code uses `theta[i]` where it means `theta[i-1]`:

- first <item>
- second item
  wrapped

| a | b |
|---|---|
| 1 | 2 |

### Next entry

Other text, named by a caption only; see [the bug](deviations.md#index-bug-fixed--more).

## raim2021

### Stand-in

Class: **stand-in data**. Depends on: the tails.
"""


def _rows():
    def row(verdict, target="tab1", explanation="", statement="s", not_comparable="", **kw):
        r = dict(
            study="ju2022",
            target=target,
            statement=statement,
            paper="0.36",
            ours="0.40",
            mc_error="0.05",
            verdict=verdict,
            explanation=explanation,
            not_comparable=not_comparable,
            headline="False",
        )
        r["class"] = verdict.removeprefix("differs: ") if verdict.startswith("differs") else ""
        r.update(kw)
        return [r.get(c, "") for c in COLUMNS]

    return [
        row("holds", statement="coverage <= 0.9 & > 0.1", headline="True"),
        row("differs: document in error", "fig1a", "docs/deviations.md#index-bug-fixed--more"),
        row("differs: not reproduced", "tab1", "docs/deviations.md#no-such-entry"),
        row("not comparable", "fig1a", not_comparable="credible level 0.8 here, 0.9 in the paper"),
        row("not run", "tab1"),
        row(
            "holds",
            "fig2",
            converged_verdict="differs",
            converged_ours="0.89",
            converged_mc_error="0.01",
            converged_note="4 chains",
        ),
    ]


def _page():
    return render_scorecard_page(COLUMNS, _rows(), deviation_sections(DEVIATIONS))


def test_every_verdict_and_second_verdict_has_its_own_colour():
    assert tuple(VERDICT_COLOURS) == VERDICTS
    assert tuple(CONVERGED_COLOURS) == CONVERGED_VERDICTS
    for colours in (VERDICT_COLOURS, CONVERGED_COLOURS):
        backgrounds = [bg for bg, _ in colours.values()]
        assert len(set(backgrounds)) == len(backgrounds)


def test_deviation_sections_end_at_the_next_heading_of_their_level():
    sections = deviation_sections(DEVIATIONS)
    heading, text = sections["index-bug-fixed--more"]
    assert heading == "Index bug <fixed> & more"
    assert text.startswith("Class:") and text.endswith("| 1 | 2 |") and "Other text" not in text
    assert "Next entry" in sections["ju2022-ju-et-al"][1]  # a chapter holds its entries


def test_scorecard_page_groups_rows_by_target_and_colours_verdicts():
    page = _page()
    _self_contained(page)
    parsed = _parse(page)
    groups = [(a["id"], a["data-study"]) for t, a in parsed.tags if a.get("class") == "group"]
    # one group per target, in the order the CSV first names it
    assert groups == [
        ("target-ju2022-tab1", "ju2022"),
        ("target-ju2022-fig1a", "ju2022"),
        ("target-ju2022-fig2", "ju2022"),
    ]
    tab1 = page[page.index('id="target-ju2022-tab1"') : page.index('id="target-ju2022-fig1a"')]
    assert tab1.count('<tr class="row') == 3 and "3 rows:" in tab1
    for verdict, (bg, _) in VERDICT_COLOURS.items():
        cls = "v-" + re.sub(r"[^a-z]+", "-", verdict).strip("-")
        assert re.search(rf"\.{cls} \{{ background: {bg};", page), verdict
    rows = [a for t, a in parsed.tags if t == "tr" and "row" in a.get("class", "").split()]
    by_target = {}
    for r in _rows():
        by_target.setdefault(r[COLUMNS.index("target")], []).append(r[COLUMNS.index("verdict")])
    assert [a["data-verdict"] for a in rows] == [v for vs in by_target.values() for v in vs]
    assert (
        '<td class="verdict v-differs-document-in-error"><strong class="name">differs: document '
        'in error</strong><a class="entry" href="#deviation-index-bug-fixed--more">' in page
    )
    assert "coverage &lt;= 0.9 &amp; &gt; 0.1" in page and "<= 0.9 &" not in page
    assert '<span class="tag">headline</span>' in page


def test_scorecard_page_separates_the_second_verdict_from_its_value():
    page = _page()
    assert (
        '<td class="converged"><span class="badge c-differs">differs</span>'
        '<div class="value">ours 0.89 (MC error 0.01)</div></td>' in page
    )
    assert re.search(r"\.c-differs \{ background: #\w+;", page)
    # the note goes to the full-width line under the row, as does a setting mismatch
    details = re.findall(r'<tr class="detail"><td colspan="6">(.*?)</td></tr>', page)
    assert details == [
        "<strong>Not comparable:</strong> credible level 0.8 here, 0.9 in the paper",
        "<strong>With converged chains:</strong> 4 chains",
    ]


def test_scorecard_page_has_filters_by_study_target_and_class():
    page = _page()
    parsed = _parse(page)
    selects = {a["id"] for t, a in parsed.tags if t == "select"}
    assert selects == {"f-study", "f-target", "f-verdict", "f-converged"}
    options = [a.get("value") for t, a in parsed.tags if t == "option"]
    assert "ju2022" in options and "differs" in options
    assert all(v in options for v in VERDICTS) and all(v in options for v in CONVERGED_VERDICTS)
    assert 'id="f-text"' in page and 'id="f-headline"' in page
    (script,) = parsed.scripts  # one inline script, which reads the address's #target-...
    assert "hashchange" in script and '"target"' in script and "tbody.group" in script
    # every count button filters by a verdict the select offers
    buttons = [a["data-verdict"] for t, a in parsed.tags if t == "button" and "data-verdict" in a]
    assert set(buttons) <= set(options) and set(VERDICTS) <= set(buttons)


def test_scorecard_page_carries_every_entry_and_links_only_inside_itself():
    page = _page()
    parsed = _parse(page)
    sections = deviation_sections(DEVIATIONS)
    ids = parsed.ids()
    # every entry, cited or not (a caption may name it), once
    assert {f"deviation-{a}" for a in sections if a != "deviations"} <= ids
    assert page.count('id="deviation-next-entry"') == 1
    assert not _links_stay_on_the_page(page), _links_stay_on_the_page(page)
    hrefs = parsed.hrefs()
    # the verdict links its entry; the entry lists the rows that cite it; links between entries
    # are in-page; a link into the repository is plain text
    assert hrefs.count("#deviation-index-bug-fixed--more") == 3
    assert '<p class="cited">Cited by the rows of <a href="#target-ju2022-fig1a">' in page
    assert "#deviation-ju2022-ju-et-al" in hrefs
    assert "privacy (<code>privacy.md#x</code>)" in page
    assert "deviations.md" not in "".join(hrefs) and "classes:begin" not in page
    section = page[page.index('id="deviation-index-bug-fixed--more"') :]
    section = section[: section.index("</div>")]
    assert "<h4>Index bug &lt;fixed&gt; &amp; more</h4>" in section
    assert "<code>theta[i]</code>" in section and "<li>first &lt;item&gt;</li>" in section
    assert "<li>second item wrapped</li>" in section and "Other text" not in section
    assert '<table class="md">' in section and "<td>2</td>" in section
    # its class line, coloured as the rows' verdict
    assert '<span class="badge v-differs-document-in-error">' in section
    # an explanation that names no entry is shown, not linked
    assert "docs/deviations.md#no-such-entry: no such entry" in page
    assert "#deviation-no-such-entry" not in page


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
        assert [r[header.index(c)] for c in ("paper", "ours", "mc_error")] in [
            cells[i : i + 3] for i in range(len(cells))
        ]
    assert '<a class="entry" href="#deviation-index-bug-fixed--more">' in page
    assert not _links_stay_on_the_page(page)


# ----------------------------------------------------------------------------- the report
def test_the_report_command_has_its_dependency():
    """``snakemake --report`` needs pygments (Snakemake's extra ``reports``); README's install is
    ``pip install -e .``, so the package's own dependencies must bring it."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(re.match(r"snakemake\[([\w,]*,)?reports(,[\w,]*)?\]", d) for d in deps), deps


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


def _pages(results: dict) -> dict[str, str]:
    """path -> the HTML of every page the report carries."""
    return {
        path: base64.b64decode(r["data_uri"].split("base64,", 1)[1]).decode("utf-8")
        for path, r in results.items()
        if r["mime_type"] == "text/html"
    }


# what a caption's or the landing page's link may do: Snakemake's own navigation, or open a page
# the report carries at one of its anchors
_SHOW = re.compile(r"javascript:app\.(showCategory|showResultInfo)\('([^']*)'\)$")
_OPEN = re.compile(
    r"javascript:app\.setView\(\{content:'html',contentPath:results\['(?P<path>[^']+)'\]"
    r"\.data_uri(\+'#(?P<anchor>[^']*)')?(,navbarMode:'resultinfo',resultPath:'(?P=path)')?\}\)$"
)


def _anchor_problem(page: str, anchor: str, results: dict) -> str:
    """Why ``anchor`` does not open on ``page`` ("" when it does): an id of the page, or an
    address the scorecard's script reads (a study, a verdict, or a target of the report that
    has no rows in this run: the page says so)."""
    parsed = _parse(page)
    if not anchor or anchor in parsed.ids():
        return ""
    kind, _, rest = anchor.partition("-")
    study, _, target = rest.partition("-")
    if kind == "target" and "f-missing" in parsed.ids():
        if {f"results/{study}/{target}.png", f"results/{study}/{target}.html"} & set(results):
            return ""
    if kind == "study" and rest in {a.get("data-study") for _, a in parsed.tags}:
        return ""
    values = {a.get("value", "") for t, a in parsed.tags if t == "option"}
    if kind == "verdict" and rest in {re.sub(r"[^a-z]+", "-", v).strip("-") for v in values}:
        return ""
    return f"no anchor {anchor!r}"


def _link_problems(hrefs: list[str], categories: dict, results: dict, pages: dict) -> list[str]:
    problems = []
    for href in hrefs:
        show, opened = _SHOW.match(href), _OPEN.match(href)
        if show and unquote(show.group(2)) in (
            categories if show.group(1) == "showCategory" else results
        ):
            continue
        if opened and opened.group("path") in pages:
            why = _anchor_problem(
                pages[opened.group("path")], opened.group("anchor") or "", results
            )
            if not why:
                continue
            problems.append(f"{href}: {why}")
            continue
        problems.append(href)
    return problems


@pytest.fixture(scope="module")
def report(smoke_run, tmp_path_factory):
    work = copy_run(smoke_run, tmp_path_factory.mktemp("report") / "w")
    run_snakemake(work, "--report", "report.html", *SMOKE)
    html = (work / "report.html").read_text(encoding="utf-8")
    return work, _report_data(html, "categories"), _report_data(html, "results"), html


def test_the_report_menu_sorts_categories_by_name():
    """What the category names rely on; fails when Snakemake changes how the menu orders them."""
    assert re.search(
        r"Object\.keys\(categories\)\.sort\(\s*\(a, b\) => a\.localeCompare\(b\)",
        MENU_JS.read_text(),
    )


@pytest.mark.workflow  # reads the shared smoke run
def test_report_lists_the_scorecard_first_then_the_studies(report):
    _, categories, _, _ = report
    order = _menu_order(list(categories))
    assert order[0] == SCORECARD, order
    assert all(c.startswith("Study ") for c in order[1:]), order
    assert [c.removeprefix("Study ") for c in order[1:]] == sorted(
        c.removeprefix("Study ") for c in order[1:]
    )


@pytest.mark.workflow  # reads the shared smoke run
def test_report_shows_the_scorecard_and_every_table_as_a_page(report):
    work, categories, results, _ = report
    assert categories[SCORECARD] == {"Other": [SCORECARD_PAGE]}
    pages = [SCORECARD_PAGE] + [
        str(p.with_suffix(".html")) for p in expected_targets() if p.suffix == ".csv"
    ]
    for path in pages:
        assert results[path]["mime_type"] == "text/html", path  # shown, not downloaded
        uri = results[path]["data_uri"]
        assert uri.startswith("data:text/html;"), path
        assert base64.b64decode(uri.split("base64,", 1)[1]) == (work / path).read_bytes(), path
    assert not [p for p in results if p.endswith((".csv", ".md"))], sorted(results)
    table = work / "results" / "ju2022" / "tab1"
    header, rows = read_csv_table(table.with_suffix(".csv"))
    page = table.with_suffix(".html").read_text(encoding="utf-8")
    assert _parse(page).cells[-len(rows) * len(header) :] == [c for r in rows for c in r]
    assert f"<h1>{markdown_title_and_notes(table.with_suffix('.md').read_text())[0]}</h1>" in page


@pytest.mark.workflow  # reads the shared smoke run
def test_no_link_in_the_report_blanks_its_pane(report):
    """Every link of a caption and of the landing page is the report's own navigation or opens a
    page the report carries at an anchor it has; every link of a page is an in-page anchor."""
    _, categories, results, html = report
    pages = _pages(results)
    hrefs = {path: _parse(r["caption"]).hrefs() for path, r in results.items() if r.get("caption")}
    hrefs["landing page"] = _parse(json.loads(_workflow_desc(html))).hrefs()
    problems = {
        path: p for path, h in hrefs.items() if (p := _link_problems(h, categories, results, pages))
    }
    assert not problems, problems
    assert {
        path: bad for path, page in pages.items() if (bad := _links_stay_on_the_page(page))
    } == {}
    for page in pages.values():
        _self_contained(page)


def _workflow_desc(html: str) -> str:
    """The landing page's text (Snakemake's global report description), as the report holds it."""
    return re.search(r"var workflow_desc\s*=\s*(\".*?\");\s*</script>", html, re.S).group(1)


@pytest.mark.workflow  # reads the shared smoke run
def test_every_caption_opens_its_targets_rows_and_every_entry_named_is_carried(report):
    work, _, results, html = report
    scorecard = _pages(results)[SCORECARD_PAGE]
    ids = _parse(scorecard).ids()
    header, rows = read_csv_table(work / "results" / "fidelity.csv")
    targets = {(r[header.index("study")], r[header.index("target")]) for r in rows}
    # the rows' entries, and the entries the captions name, are on the page
    named = {r[header.index("explanation")].partition("#")[2] for r in rows} - {""}
    for r in results.values():
        named |= set(re.findall(r"#deviation-([\w-]+)'", r.get("caption", "")))
    entries = set(deviation_sections((work / "docs" / "deviations.md").read_text()))
    assert named and named <= entries, named - entries
    assert {f"deviation-{a}" for a in named} <= ids
    # the caption of every result that has scorecard rows opens them
    opened = {}
    for path, r in results.items():
        opened[path] = re.findall(r"#(target-[\w-]+)'", r.get("caption", ""))
    for study, target in targets:
        assert f"target-{study}-{target}" in ids
        for path in (f"results/{study}/{target}.png", f"results/{study}/{target}.html"):
            if path in results:
                assert f"target-{study}-{target}" in opened[path], path
    # the landing page introduces the report and sends the reader to the scorecard
    desc = json.loads(_workflow_desc(html))
    assert "Start at" in desc and "Smoke-scale verdicts are not comparable" in desc
    assert "fidelity.html" in desc
    # the filters are on the page the report carries
    assert {"f-study", "f-target", "f-verdict", "f-text"} <= ids
    studies = {a["value"] for t, a in _parse(scorecard).tags if t == "option" and a.get("value")}
    assert {s for s, _ in targets} <= studies
