"""HTML for the report's pages (:mod:`.report_pages`): a self-contained page, a table of cells as
written, and the little Markdown the tables' notes and ``docs/deviations.md`` use.

Everything is HTML-escaped. A page is embedded by the Snakemake report as a ``data:`` URI in an
iframe, so it loads nothing from outside, and a Markdown link becomes what ``link`` makes of it:
by default its text and target as plain text, since a link to a file of the repository (or to
any address outside the page) would leave the report's pane blank.
"""

from __future__ import annotations

import csv
import html
import re
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "escape",
    "page",
    "cell",
    "table",
    "inline",
    "markdown_blocks",
    "read_csv_table",
    "markdown_table",
    "markdown_title_and_notes",
]

_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
# the style every page inlines (a file, so it reads as CSS)
STYLE = (Path(__file__).parent / "report_assets" / "page.css").read_text(encoding="utf-8")


def escape(text) -> str:
    return html.escape(str(text), quote=True)


def page(title: str, body: list[str], style: str = "", script: str = "") -> str:
    """A self-contained HTML page: inline style and (optional) inline script."""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f"<title>{escape(title)}</title>",
            f"<style>{STYLE}{style}</style>",
            "</head>",
            "<body>",
            *body,
            *([f"<script>{script}</script>"] if script else []),
            "</body>",
            "</html>",
            "",
        ]
    )


def cell(text: str, attrs: str = "") -> str:
    """One cell, its text as written; a number right-aligned. ``attrs``: more attributes."""
    cls = ' class="num"' if _NUMBER.match(text.strip()) else ""
    return f"<td{cls}{attrs}>{escape(text)}</td>"


def table(columns: list[str], rows: list[list[str]]) -> list[str]:
    out = [
        "<table>",
        "<thead><tr>" + "".join(f"<th>{escape(c)}</th>" for c in columns) + "</tr></thead>",
        "<tbody>",
    ]
    out += ["<tr>" + "".join(cell(v) for v in row) + "</tr>" for row in rows]
    return out + ["</tbody>", "</table>"]


def plain_link(text: str, target: str) -> str:
    """A Markdown link as plain text (``text`` and ``target`` escaped already)."""
    return f"{text} (<code>{target}</code>)"


Link = Callable[[str, str], str]


def inline(text: str, link: Link = plain_link) -> str:
    """Escaped Markdown text: ``code`` spans as <code>, **bold** as <strong>, ``[text](target)``
    as ``link(text, target)``."""
    out = []
    for i, part in enumerate(re.split(r"(`[^`]+`)", escape(text))):
        if i % 2:
            out.append(f"<code>{part[1:-1]}</code>")
            continue
        part = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", part)
        part = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", lambda m: link(m.group(1), m.group(2)), part)
        out.append(part)
    return "".join(out)


def _pipe_rows(lines: list[str]) -> list[list[str]]:
    """The cells of a Markdown pipe table's lines, its separator line dropped."""
    rows = [[c.strip() for c in x.strip().strip("|").split("|")] for x in lines]
    return [r for r in rows if not all(re.fullmatch(r":?-+:?", c) for c in r if c)]


def _pipe_table(lines: list[str], link: Link) -> str:
    rows = _pipe_rows(lines)
    if not rows:
        return ""
    head, body = rows[0], rows[1:]
    return (
        '<table class="md"><thead><tr>'
        + "".join(f"<th>{inline(c, link)}</th>" for c in head)
        + "</tr></thead><tbody>"
        + "".join(
            "<tr>" + "".join(f"<td>{inline(c, link)}</td>" for c in r) + "</tr>" for r in body
        )
        + "</tbody></table>"
    )


def markdown_blocks(text: str, link: Link = plain_link) -> list[str]:
    """A little Markdown as HTML: paragraphs, bullet lists, pipe tables and sub-headings;
    everything escaped, HTML comments dropped, links as :func:`inline` makes them."""
    out = []
    text = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.splitlines()
        if not lines:
            continue
        if lines[0].startswith("#"):
            out.append(f"<h4>{inline(lines[0].lstrip('#').strip(), link)}</h4>")
            lines = lines[1:]
            if not lines:
                continue
        if all(x.lstrip().startswith("|") for x in lines):
            out.append(_pipe_table(lines, link))
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
            out.append(f"<p>{inline(' '.join(head), link)}</p>")
        if items:
            out.append("<ul>" + "".join(f"<li>{inline(i, link)}</li>" for i in items) + "</ul>")
    return out


def read_csv_table(path) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a CSV file, every cell the text as written."""
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    return (rows[0], rows[1:]) if rows else ([], [])


def markdown_table(markdown: str) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the pipe table of a Markdown file written by
    :func:`dpinfer.io.write_markdown`, every cell as written."""
    cells = _pipe_rows([x for x in markdown.splitlines() if x.startswith("|")])
    return (cells[0], cells[1:]) if cells else ([], [])


def markdown_title_and_notes(markdown: str) -> tuple[str, str]:
    """The title (a leading ``# `` line) and the notes (the text after the pipe table) of a table
    written by :func:`dpinfer.io.write_markdown`."""
    lines = markdown.splitlines()
    title = lines[0][2:].strip() if lines and lines[0].startswith("# ") else ""
    last = max((i for i, x in enumerate(lines) if x.startswith("|")), default=-1)
    notes = "\n".join(lines[last + 1 :]).strip() if last >= 0 else ""
    return title, notes
