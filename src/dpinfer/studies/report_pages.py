"""The HTML pages of the Snakemake report: every reported table and the fidelity scorecard.

Snakemake's report shows a result inline only when it is an image, a PDF or an HTML page (in an
iframe); a CSV or a Markdown file is a download link. So each table target also gets
``<table>.html`` beside its CSV and Markdown (rule ``<study>_<target>_page``, step
:func:`table_page`), and the scorecard rule writes ``results/fidelity.html``
(:func:`render_scorecard_page`); the report flags the pages, not the CSVs.

A page is self-contained (inline CSS, no outside resource: the report embeds it as a ``data:``
URI in an iframe), every text is HTML-escaped, and every cell is the CSV's text as written: a
page renders a table, it never formats a number. The CSV and Markdown files are not touched.
A link on a page is an in-page anchor or nothing: any other target (a file of the repository,
another result) is outside the ``data:`` URI and would leave the report's pane blank.

- A table page: the Markdown file's title (its ``# `` line), its table where it lays the numbers
  out otherwise than the CSV (the paper's layout: "ours (paper)" per cell), the CSV's rows, and
  the Markdown file's notes (the text below its table, which may describe that layout).
- The scorecard page: the verdict counts, filters (study, target, verdict or difference class,
  the second verdict, text; a small inline script, which also reads them from the address's
  ``#target-<study>-<target>``, so that a caption opens its target's rows), the rows grouped by
  target with their verdicts coloured, and every entry of ``docs/deviations.md`` (what the rows
  and the captions cite), each verdict linked to its entry.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..io import write_text
from .deviations import CLASSES, entry_class, slug
from .report_html import (
    Link,
    escape,
    inline,
    markdown_blocks,
    markdown_table,
    markdown_title_and_notes,
    plain_link,
    read_csv_table,
)
from .report_html import cell as _cell
from .report_html import page as _page
from .report_html import table as _table

__all__ = [
    "VERDICT_COLOURS",
    "CONVERGED_COLOURS",
    "read_csv_table",
    "markdown_title_and_notes",
    "markdown_table",
    "render_table_page",
    "render_scorecard_page",
    "table_page",
    "target_anchor",
    "deviation_anchor",
]

# verdict -> (background, text colour): one colour per verdict and difference class; the keys
# are dpinfer.studies.scorecard.VERDICTS
VERDICT_COLOURS = {
    "holds": ("#d1f0d8", "#14532d"),
    "differs: document in error": ("#e4dcfb", "#3b0764"),
    "differs: stand-in data": ("#cbeef5", "#134e4a"),
    "differs: our choice": ("#fdeeb8", "#713f12"),
    "differs: not reproduced": ("#f9c9c9", "#7f1d1d"),
    "not comparable": ("#dde3ea", "#1e293b"),
    "not run": ("#f3f4f6", "#6b7280"),
}
# the second verdict ("with converged chains") -> colours; scorecard.CONVERGED_VERDICTS
CONVERGED_COLOURS = {
    "holds": ("#d1f0d8", "#14532d"),
    "differs": ("#fbd5b5", "#7c2d12"),
    "not comparable": ("#dde3ea", "#1e293b"),
    "not run": ("#f3f4f6", "#6b7280"),
    "not applicable: iterations fixed by the privacy budget": ("#eef2ff", "#3730a3"),
}
_HEADING = re.compile(r"^(#+)\s+(.*)$", re.MULTILINE)
_ASSETS = Path(__file__).parent / "report_assets"  # the scorecard page's CSS and script
_SCORECARD_STYLE = (_ASSETS / "scorecard.css").read_text(encoding="utf-8")
# Filters the rows by the controls, and by the address: #target-<study>-<target> (what a
# caption's link opens), #study-<study>, #verdict-<verdict as in its CSS class>; no network, no
# outside resource.
_SCRIPT = (_ASSETS / "scorecard.js").read_text(encoding="utf-8")


def _css_class(prefix: str, verdict: str) -> str:
    return prefix + re.sub(r"[^a-z]+", "-", verdict.lower()).strip("-")


def _verdict_class(verdict: str) -> str:
    return _css_class("v-", verdict)


def _id_part(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")


def target_anchor(study: str, target: str) -> str:
    """The scorecard page's anchor of one target's rows (``fidelity.html#target-<study>-<id>``
    opens them, filtered)."""
    return f"target-{_id_part(study)}-{_id_part(target)}"


def deviation_anchor(anchor: str) -> str:
    """The scorecard page's anchor of the ``docs/deviations.md`` entry ``anchor``."""
    return f"deviation-{anchor}"


def _entry_links(anchors) -> Link:
    """Markdown links as the scorecard page shows them: an in-page anchor when the link points to
    an entry the page carries (``#x``, ``deviations.md#x``), plain text otherwise."""

    def link(text: str, target: str) -> str:
        path, _, anchor = target.partition("#")
        if anchor in anchors and (not path or path.endswith("deviations.md")):
            return f'<a href="#{deviation_anchor(anchor)}">{text}</a>'
        return plain_link(text, target)

    return link


def render_table_page(
    title: str,
    columns: list[str],
    rows: list[list[str]],
    notes: str = "",
    source: str = "",
    markdown: str = "",
    laid_out: tuple[list[str], list[list[str]]] | None = None,
) -> str:
    """One table as a self-contained HTML page: title, the table, the file it renders (``source``)
    and the notes of its Markdown version (``markdown``). ``laid_out``: the Markdown's own table
    (header, rows) where it lays the numbers out otherwise (the paper's layout, say): shown
    first, since its notes describe it."""
    body = [f"<h1>{escape(title)}</h1>"] if title else []
    if laid_out and laid_out[0] and list(laid_out[0]) != list(columns):
        body.append(f'<p class="small">As laid out in <code>{escape(markdown)}</code>:</p>')
        body += _table(*laid_out)
        body.append(f'<p class="small">Every column of <code>{escape(source)}</code>:</p>')
    body += _table(columns, rows)
    if source:
        body.append(
            f'<p class="small">{len(rows)} rows of <code>{escape(source)}</code>; the cells are '
            "its text as written.</p>"
        )
    if notes:
        lead = (
            f'<p class="small">Notes of <code>{escape(markdown)}</code>, the same numbers laid out '
            "for reading:</p>"
            if markdown
            else ""
        )
        body.append('<div class="notes">' + lead + "".join(markdown_blocks(notes)) + "</div>")
    return _page(title or source or "table", body)


def table_page(input, output) -> None:
    """Rule step: ``input.csv`` and ``input.md`` (title and notes) -> ``output.html``."""
    columns, rows = read_csv_table(input.csv)
    text = Path(input.md).read_text(encoding="utf-8")
    title, notes = markdown_title_and_notes(text)
    write_text(
        output.html,
        render_table_page(
            title,
            columns,
            rows,
            notes,
            source=Path(input.csv).name,
            markdown=Path(input.md).name,
            laid_out=markdown_table(text),
        ),
    )


# ----------------------------------------------------------------------------- the scorecard
def _anchor_of(explanation: str) -> str:
    return explanation.split("#", 1)[1] if "#" in explanation else ""


def _badge(verdict: str, prefix: str = "v-") -> str:
    return f'<span class="badge {_css_class(prefix, verdict)}">{escape(verdict)}</span>'


def _colour_rules(colours: dict, prefix: str) -> str:
    return "".join(
        f".{_css_class(prefix, v)} {{ background: {bg}; color: {fg}; }}\n"
        for v, (bg, fg) in colours.items()
    )


def _verdict_td(r: dict, deviations: dict) -> str:
    """The verdict cell, coloured as its verdict (a difference as its class): the verdict, and
    the title of the entry it cites, linked to the entry's text further down the page."""
    v = r.get("verdict", "")
    anchor = _anchor_of(r.get("explanation", ""))
    parts = [f'<strong class="name">{escape(v)}</strong>']
    if anchor in deviations:
        parts.append(
            f'<a class="entry" href="#{escape(deviation_anchor(anchor))}">'
            f"{inline(deviations[anchor][0])}</a>"
        )
    elif anchor:
        parts.append(f'<div class="small">{escape(r["explanation"])}: no such entry</div>')
    return f'<td class="verdict {_verdict_class(v)}">{"".join(parts)}</td>'


def _converged_td(r: dict) -> str:
    """The second verdict's cell (issue 33): the verdict coloured, then the companion's value;
    empty for a row that does not rest on flagged chains (and for a scorecard written before
    the column). Its note goes to the row's detail line."""
    v = r.get("converged_verdict", "")
    if not v:
        return "<td></td>"
    parts = [_badge(v, "c-")]
    if r.get("converged_ours"):
        err = r.get("converged_mc_error", "")
        value = f"ours {escape(r['converged_ours'])}" + (
            f" (MC error {escape(err)})" if err else ""
        )
        parts.append(f'<div class="value">{value}</div>')
    return f'<td class="converged">{"".join(parts)}</td>'


def _detail(r: dict) -> str:
    """What a row needs beside its cells, on a full-width line under it: why it is not
    comparable, the second verdict's note."""
    parts = []
    if r.get("not_comparable"):
        parts.append(f"<strong>Not comparable:</strong> {escape(r['not_comparable'])}")
    if r.get("converged_note"):
        parts.append(f"<strong>With converged chains:</strong> {escape(r['converged_note'])}")
    return "<br>".join(parts)


def _statement_td(r: dict) -> str:
    tags = ""
    if r.get("headline") == "True":
        tags += '<span class="tag">headline</span>'
    if r.get("stand_in"):
        tags += f'<span class="tag">on {escape(r["stand_in"])}</span>'
    return f"<td>{escape(r.get('statement', ''))}{tags}</td>"


def _row(r: dict, deviations: dict) -> list[str]:
    v = r.get("verdict", "")
    detail = _detail(r)
    attrs = (
        f'data-verdict="{escape(v)}" data-converged="{escape(r.get("converged_verdict", ""))}" '
        f'data-headline="{1 if r.get("headline") == "True" else 0}"'
    )
    cells = (
        _statement_td(r)
        + "".join(
            _cell(r.get(c, ""), f' data-label="{label}"')
            for c, label in (("paper", "paper"), ("ours", "ours"), ("mc_error", "MC error"))
        )
        + _verdict_td(r, deviations)
        + _converged_td(r)
    )
    cls = "row has-detail" if detail else "row"
    out = [f'<tr class="{cls}" {attrs}>{cells}</tr>']
    if detail:
        out.append(f'<tr class="detail"><td colspan="6">{detail}</td></tr>')
    return out


def _summary(verdicts: list[str]) -> str:
    counts = Counter(verdicts)
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items(), key=lambda x: -x[1]))


def _entries(deviations: dict[str, tuple[str, str]]) -> list[tuple[int, str, str, str]]:
    """(level, anchor, heading, its own text) of every heading of ``docs/deviations.md`` in the
    document's order, from its sections (anchor -> (heading, text up to the next heading of the
    same or a higher level)): the sections no other section contains are the document."""
    inner = {slug(m.group(2)) for _, text in deviations.values() for m in _HEADING.finditer(text)}
    document = "\n\n".join(
        f"# {heading}\n\n{text}" for a, (heading, text) in deviations.items() if a not in inner
    )
    heads = list(_HEADING.finditer(document))
    out, seen = [], Counter()
    for i, m in enumerate(heads):
        stop = heads[i + 1].start() if i + 1 < len(heads) else len(document)
        anchor = slug(m.group(2))
        seen[anchor] += 1
        if seen[anchor] > 1:  # GitHub's anchor of a repeated heading
            anchor = f"{anchor}-{seen[anchor] - 1}"
        own = document[m.end() : stop].strip()
        out.append((len(m.group(1)), anchor, m.group(2).strip(), own))
    return out


def _class_line(text: str) -> str:
    """The class an entry declares, coloured, and how the scorecard counts it when the evidence
    is missing."""
    cls = entry_class(text)
    if not cls.declared:
        return ""
    shown = _badge(f"differs: {cls.declared}") if cls.declared in CLASSES else escape(cls.declared)
    if cls.problem:
        shown += (
            f' <span class="small">counted as {_badge("differs: " + cls.name)}: '
            f"{escape(cls.problem)}</span>"
        )
    return f'<p class="small">Class of the rows citing it: {shown}</p>'


def _deviations_part(deviations: dict, cited: dict[str, list[tuple[str, str, int]]]) -> list[str]:
    """Every entry of docs/deviations.md, each with the targets whose rows cite it."""
    entries = _entries(deviations)
    link = _entry_links(set(deviations))
    chapters = [(a, h) for level, a, h, _ in entries if level == 2]
    body = [
        '<h2 id="deviations">Deviations and free choices (docs/deviations.md)</h2>',
        '<p class="intro">Every entry of <code>docs/deviations.md</code> as the run found it, so '
        "that every entry a row or a caption cites is on this page. A verdict's link leads to "
        "its entry; an entry lists the targets whose rows cite it (a click filters the rows); "
        '<a href="#rows">back to the rows</a>.</p>',
    ]
    if chapters:
        body.append(
            '<ul class="small">'
            + "".join(
                f'<li><a href="#{escape(deviation_anchor(a))}">{inline(h)}</a></li>'
                for a, h in chapters
            )
            + "</ul>"
        )
    for level, anchor, heading, text in entries:
        if level <= 1:
            body += markdown_blocks(text, link)
            continue
        tag = "h3" if level == 2 else "h4"
        cls = "chapter" if level == 2 else "deviation"
        body.append(f'<div class="{cls}" id="{escape(deviation_anchor(anchor))}">')
        body.append(f"<{tag}>{inline(heading)}</{tag}>")
        body.append(_class_line(text))
        body += markdown_blocks(text, link)
        if anchor in cited:
            links = ", ".join(
                f'<a href="#{escape(target_anchor(s, t))}">{escape(s)} {escape(t)}</a> ({n} '
                f"{'row' if n == 1 else 'rows'})"
                for s, t, n in cited[anchor]
            )
            body.append(f'<p class="cited">Cited by the rows of {links}.</p>')
        body.append("</div>")
    return body


def _options(values: list[str], counts: Counter, label: str) -> str:
    return f'<option value="">{escape(label)}</option>' + "".join(
        f'<option value="{escape(v)}">{escape(v)} ({counts.get(v, 0)})</option>' for v in values
    )


def render_scorecard_page(
    columns: list[str],
    rows: list[list[str]],
    deviations: dict[str, tuple[str, str]],
    deviations_href: str = "",
) -> str:
    """The scorecard (``results/fidelity.csv``: header and rows as written) as an HTML page.

    ``deviations``: anchor -> (heading, Markdown text) of the entries of docs/deviations.md
    (:func:`dpinfer.studies.deviations.sections`); the page carries every one of them. A
    verdict whose row names an entry (column ``explanation``, ``docs/deviations.md#<anchor>``)
    links to that entry's text further down the page. ``deviations_href`` is not used: a link
    into the repository would leave the report's pane blank (kept for the old call)."""
    del deviations_href
    recs = [dict(zip(columns, r)) for r in rows]
    counts = Counter(r.get("verdict", "") for r in recs)
    second = Counter(r.get("converged_verdict", "") for r in recs)
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in recs:
        groups.setdefault((r.get("study", ""), r.get("target", "")), []).append(r)
    studies = list(dict.fromkeys(s for s, _ in groups))
    verdicts = list(VERDICT_COLOURS) + [v for v in counts if v not in VERDICT_COLOURS]
    differ = sum(n for v, n in counts.items() if v.startswith("differs"))
    style = (
        _SCORECARD_STYLE
        + _colour_rules(VERDICT_COLOURS, "v-")
        + _colour_rules(CONVERGED_COLOURS, "c-")
    )
    title = "Fidelity scorecard"
    body = [
        f'<h1 id="top">{title}</h1>',
        f'<p class="intro">{len(recs)} checkable statements of the source documents, grouped by '
        "target (a figure or table of the report). A row is judged only when this run is at the "
        "setting the document's value refers to; the Monte Carlo error is that of our value. A "
        "row that differs is classed by the entry of docs/deviations.md it cites: <em>document "
        "in error</em> (a command of the project shows the document's statement is wrong), "
        "<em>stand-in data</em> (ours are synthetic), <em>our choice</em> (a setting the "
        "document leaves open, measured at two or more values) or <em>not reproduced</em> (we "
        "cannot show why). Every entry is carried at the end of this page. A smoke-scale run "
        "is not at the documents' settings: its verdicts are not comparable with a paper-scale "
        "run's. The report's search box matches file names only: filter the rows here.</p>",
        '<p class="counts">Verdicts (a click filters the rows): '
        + " ".join(
            f'<button type="button" class="badge {_verdict_class(v)}" data-verdict="{escape(v)}">'
            f"{escape(v)}: {counts.get(v, 0)}</button>"
            for v in verdicts
        )
        + f' <button type="button" class="badge" data-verdict="differs">differs, every class: '
        f"{differ}</button></p>",
    ]
    if any(second.get(v) for v in CONVERGED_COLOURS):
        body.append(
            '<p class="small">With converged chains (the second verdict of the rows computed '
            "from chains the diagnostics can flag): "
            + ", ".join(f"{_badge(v, 'c-')} {second.get(v, 0)}" for v in CONVERGED_COLOURS)
            + ".</p>"
        )
    body += [
        # the filters stay in view while the rows scroll (sticky within this section only)
        '<section id="rows">',
        '<div id="filters" hidden>',
        '<label>Study <select id="f-study">'
        + _options(studies, Counter(r.get("study", "") for r in recs), "every study")
        + "</select></label>",
        '<label>Target <select id="f-target"><option value="">every target</option>'
        "</select></label>",
        '<label>Verdict <select id="f-verdict">'
        + _options(verdicts[:1], counts, "every verdict")
        + f'<option value="differs">differs, every class ({differ})</option>'
        + "".join(
            f'<option value="{escape(v)}">{escape(v)} ({counts.get(v, 0)})</option>'
            for v in verdicts[1:]
        )
        + "</select></label>",
        '<label>With converged chains <select id="f-converged">'
        + _options(list(CONVERGED_COLOURS), second, "any")
        + "</select></label>",
        '<label>Text <input type="search" id="f-text" placeholder="e.g. coverage"></label>',
        '<label><input type="checkbox" id="f-headline"> headline rows only</label>',
        '<button type="button" id="f-reset">Show every row</button>',
        '<span id="f-count"></span>',
        "</div>",
        '<p id="f-missing" class="small" hidden>This run has no rows for target '
        '<code id="f-missing-id"></code> (its study or setting is not part of the run).</p>',
        '<p id="f-none" class="small" hidden>No row matches the filters.</p>',
        '<table class="scorecard" id="scorecard">',
        '<colgroup><col class="c-statement"><col class="c-paper"><col class="c-ours">'
        '<col class="c-mc"><col class="c-verdict"><col class="c-converged"></colgroup>',
        "<thead><tr><th>statement</th><th>paper</th><th>ours</th><th>MC error</th>"
        "<th>verdict</th><th>with converged chains</th></tr></thead>",
    ]
    cited: dict[str, list[tuple[str, str, int]]] = {}
    for (study, target), members in groups.items():
        label = f"{study} {target}"
        body.append(
            f'<tbody class="group" id="{escape(target_anchor(study, target))}" '
            f'data-study="{escape(study)}" data-label="{escape(label)}">'
        )
        body.append(
            f'<tr class="group-head"><th colspan="6">{escape(study)} <code>{escape(target)}</code> '
            f'<span class="small">{len(members)} {"row" if len(members) == 1 else "rows"}: '
            f"{escape(_summary([r.get('verdict', '') for r in members]))}</span></th></tr>"
        )
        for r in members:
            body += _row(r, deviations)
        body.append("</tbody>")
        for anchor, n in Counter(_anchor_of(r.get("explanation", "")) for r in members).items():
            if anchor in deviations:
                cited.setdefault(anchor, []).append((study, target, n))
    body += ["</table>", "</section>"]
    body += _deviations_part(deviations, cited)
    return _page(title, body, style, _SCRIPT)
