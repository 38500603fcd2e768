"""The HTML pages of the Snakemake report: every reported table and the fidelity scorecard.

Snakemake's report shows a result inline only when it is an image, a PDF or an HTML page (in an
iframe); a CSV or a Markdown file is a download link. So each table target also gets
``<table>.html`` beside its CSV and Markdown (rule ``<study>_<target>_page``, step
:func:`table_page`), and the scorecard rule writes ``results/fidelity.html``
(:func:`scorecard_page`); the report flags the pages, not the CSVs.

A page is self-contained (inline CSS, no script, no outside resource: the report embeds it as a
``data:`` URI), every text is HTML-escaped, and every cell is the CSV's text as written: a page
renders a table, it never formats a number. The CSV and Markdown files are not touched.

- A table page: the Markdown file's title (its ``# `` line), the CSV's rows, the Markdown
  file's notes (the text below its table, which may describe the Markdown's own layout).
- The scorecard page: the verdict counts, one row per statement with its verdict coloured, and
  for every verdict with a ``docs/deviations.md`` entry a link to that entry's text, which the
  page carries (the report cannot follow a link into the repository) beside a link to the
  entry in the docs, relative to the page.
"""

from __future__ import annotations

import csv
import html
import re
from collections import Counter
from pathlib import Path

from ..io import write_text

__all__ = [
    "VERDICT_COLOURS",
    "read_csv_table",
    "markdown_title_and_notes",
    "render_table_page",
    "render_scorecard_page",
    "table_page",
]

# verdict -> (background, text colour); the keys are dpinfer.studies.scorecard.VERDICTS
VERDICT_COLOURS = {
    "holds": ("#d1f0d8", "#14532d"),
    "differs (explained)": ("#fdeeb8", "#713f12"),
    "differs (unexplained)": ("#f9c9c9", "#7f1d1d"),
    "not comparable": ("#dde3ea", "#1e293b"),
    "not run": ("#f3f4f6", "#6b7280"),
}
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 14px; \
color: #1f2937;
       margin: 1.2em; line-height: 1.4; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.6em; } h3 { font-size: 1em; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #d1d5db; padding: 0.25em 0.5em; vertical-align: top; text-align: left; }
th { background: #f3f4f6; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.notes, .deviation { max-width: 60em; }
.deviation { border-left: 3px solid #d1d5db; padding-left: 0.8em; margin: 1em 0; }
.small { font-size: 0.9em; color: #4b5563; }
td[class^="v-"] a { color: inherit; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 0.92em; }
pre { white-space: pre-wrap; }
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _verdict_class(verdict: str) -> str:
    return "v-" + re.sub(r"[^a-z]+", "-", verdict.lower()).strip("-")


def _page(title: str, body: list[str], style: str = "") -> str:
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f"<title>{_e(title)}</title>",
            f"<style>{_STYLE}{style}</style>",
            "</head>",
            "<body>",
            *body,
            "</body>",
            "</html>",
            "",
        ]
    )


def _cell(text: str, extra: str = "") -> str:
    cls = ' class="num"' if _NUMBER.match(text.strip()) else ""
    return f"<td{cls}>{_e(text)}{extra}</td>"


def _table(columns: list[str], rows: list[list[str]]) -> list[str]:
    out = [
        "<table>",
        "<thead><tr>" + "".join(f"<th>{_e(c)}</th>" for c in columns) + "</tr></thead>",
        "<tbody>",
    ]
    out += ["<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows]
    return out + ["</tbody>", "</table>"]


def _inline(text: str) -> str:
    """Escaped Markdown text with its ``code`` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _e(text))


def _markdown_blocks(text: str) -> list[str]:
    """A little Markdown as HTML: paragraphs, bullet lists, pipe tables (as preformatted text)
    and sub-headings; everything escaped."""
    out = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.splitlines()
        if not lines:
            continue
        if lines[0].startswith("#"):
            out.append(f"<h4>{_inline(lines[0].lstrip('#').strip())}</h4>")
            lines = lines[1:]
            if not lines:
                continue
        if all(x.lstrip().startswith("|") for x in lines):
            out.append("<pre>" + _e("\n".join(lines)) + "</pre>")
            continue
        items, head = [], []
        for line in lines:
            m = re.match(r"^\s*(?:[-*]|\d+\.)\s+(.*)$", line)
            if m:
                items.append(m.group(1))
            elif items:
                items[-1] += " " + line.strip()
            else:
                head.append(line.strip())
        if head:
            out.append(f"<p>{_inline(' '.join(head))}</p>")
        if items:
            out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
    return out


def read_csv_table(path) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a CSV file, every cell the text as written."""
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    return (rows[0], rows[1:]) if rows else ([], [])


def markdown_title_and_notes(markdown: str) -> tuple[str, str]:
    """The title (a leading ``# `` line) and the notes (the text after the pipe table) of a table
    written by :func:`dpinfer.io.write_markdown`."""
    lines = markdown.splitlines()
    title = lines[0][2:].strip() if lines and lines[0].startswith("# ") else ""
    last = max((i for i, x in enumerate(lines) if x.startswith("|")), default=-1)
    notes = "\n".join(lines[last + 1 :]).strip() if last >= 0 else ""
    return title, notes


def render_table_page(
    title: str,
    columns: list[str],
    rows: list[list[str]],
    notes: str = "",
    source: str = "",
    markdown: str = "",
) -> str:
    """One table as a self-contained HTML page: title, the table, the file it renders (``source``)
    and the notes of its Markdown version (``markdown``, which may lay the numbers out
    otherwise)."""
    body = [f"<h1>{_e(title)}</h1>"] if title else []
    body += _table(columns, rows)
    if source:
        body.append(
            f'<p class="small">{len(rows)} rows of <code>{_e(source)}</code>; the cells are its '
            "text as written.</p>"
        )
    if notes:
        lead = (
            f'<p class="small">Notes of <code>{_e(markdown)}</code>, the same numbers laid out for '
            "reading:</p>"
            if markdown
            else ""
        )
        body.append('<div class="notes">' + lead + "".join(_markdown_blocks(notes)) + "</div>")
    return _page(title or source or "table", body)


def table_page(input, output) -> None:
    """Rule step: ``input.csv`` and ``input.md`` (title and notes) -> ``output.html``."""
    columns, rows = read_csv_table(input.csv)
    title, notes = markdown_title_and_notes(Path(input.md).read_text(encoding="utf-8"))
    write_text(
        output.html,
        render_table_page(
            title, columns, rows, notes, source=Path(input.csv).name, markdown=Path(input.md).name
        ),
    )


def _anchor_of(explanation: str) -> str:
    return explanation.split("#", 1)[1] if "#" in explanation else ""


def _converged_td(r: dict) -> str:
    """The second verdict's cell (issue 33): verdict, companion value and note; empty for a row
    that does not rest on flagged chains (and for a scorecard written before the column)."""
    v = r.get("converged_verdict", "")
    if not v:
        return "<td></td>"
    parts = [_e(v)]
    if r.get("converged_ours"):
        err = r.get("converged_mc_error", "")
        parts.append(f"ours {_e(r['converged_ours'])}" + (f" (MC error {_e(err)})" if err else ""))
    if r.get("converged_note"):
        parts.append(f'<div class="small">{_e(r["converged_note"])}</div>')
    return "<td>" + " ".join(parts) + "</td>"


def render_scorecard_page(
    columns: list[str],
    rows: list[list[str]],
    deviations: dict[str, tuple[str, str]],
    deviations_href: str = "../docs/deviations.md",
) -> str:
    """The scorecard (``results/fidelity.csv``: header and rows as written) as an HTML page.

    ``deviations``: anchor -> (heading, Markdown text) of the entries of docs/deviations.md;
    ``deviations_href``: where that file is, seen from the page. A verdict whose row names an
    entry (column ``explanation``, ``docs/deviations.md#<anchor>``) links to the entry's text
    further down the page, which links to the entry in the docs."""
    recs = [dict(zip(columns, r)) for r in rows]
    counts = Counter(r.get("verdict", "") for r in recs)
    style = "".join(
        f".{_verdict_class(v)} {{ background: {bg}; color: {fg}; }}\n"
        for v, (bg, fg) in VERDICT_COLOURS.items()
    )
    title = "Fidelity scorecard"
    body = [
        f"<h1>{title}</h1>",
        f"<p>{len(recs)} checkable statements of the source documents. A row is judged only when "
        "this run is at the setting the document's value refers to; the Monte Carlo error is that "
        "of our value. A coloured verdict that is underlined links to its entry of "
        "docs/deviations.md below.</p>",
        "<table><thead><tr><th>verdict</th><th>rows</th></tr></thead><tbody>",
    ]
    body += [
        f'<tr><td class="{_verdict_class(v)}">{_e(v)}</td><td '
        f'class="num">{counts.get(v, 0)}</td></tr>'
        for v in VERDICT_COLOURS
    ]
    body.append("</tbody></table>")
    shown = [
        ("study", "study"),
        ("target", "target"),
        ("statement", "statement"),
        ("paper", "paper"),
        ("ours", "ours"),
        ("mc_error", "MC error"),
    ]
    body += [
        "<table>",
        "<thead><tr>"
        + "".join(f"<th>{_e(h)}</th>" for _, h in shown)
        + "<th>verdict</th><th>with converged chains</th></tr></thead>",
        "<tbody>",
    ]
    cited = []
    for r in recs:
        v = r.get("verdict", "")
        anchor = _anchor_of(r.get("explanation", ""))
        if anchor in deviations:
            text = (
                f'<a href="#deviation-{_e(anchor)}" title="{_e(deviations[anchor][0])}">{_e(v)}</a>'
            )
            cited += [anchor] if anchor not in cited else []
        elif anchor:
            text = f'{_e(v)} <span class="small">({_e(r["explanation"])}: no such entry)</span>'
        else:
            text = _e(v)
        if r.get("not_comparable"):
            text += f'<div class="small">{_e(r["not_comparable"])}</div>'
        cells = "".join(_cell(r.get(c, "")) for c, _ in shown)
        body.append(
            f'<tr>{cells}<td class="{_verdict_class(v)}">{text}</td>{_converged_td(r)}</tr>'
        )
    body += ["</tbody>", "</table>"]
    if cited:
        body.append("<h2>Explanations (docs/deviations.md)</h2>")
    for anchor in cited:
        heading, text = deviations[anchor]
        body += [
            f'<div class="deviation" id="deviation-{_e(anchor)}">',
            f"<h3>{_inline(heading)}</h3>",
            *_markdown_blocks(text),
            f'<p class="small">In the repository: <a href="{_e(deviations_href)}#{_e(anchor)}">'
            f"docs/deviations.md#{_e(anchor)}</a></p>",
            "</div>",
        ]
    return _page(title, body, style)
