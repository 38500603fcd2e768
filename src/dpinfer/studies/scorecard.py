"""The fidelity scorecard: every checkable statement of the documents against our numbers.

Each study's ``paper.py`` turns the document's printed numbers (table cells, timings) and each
figure's qualitative claim into :class:`Claim` records computed from the study's summaries, and
writes them with :func:`write_claims` (one CSV per study unit). :func:`fidelity`, the last rule
of the workflow, gathers them into ``results/fidelity.md`` and ``results/fidelity.csv``: one row
per statement with the paper's value, ours, its Monte Carlo error and a verdict. A difference is
"explained" only when it names a heading of ``docs/deviations.md`` that exists.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from ..io import write_csv, write_text

__all__ = ["Claim", "write_claims", "read_claims", "heading_anchors", "verdict", "fidelity"]


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a source document and what this pipeline measured.

    - ``target``: the target id it is about (``tab1``, ``fig5_4``);
    - ``statement``: the document's statement or printed quantity, in words;
    - ``paper``: the document's value as printed, or the qualitative claim in short;
    - ``ours``: our value, formatted; ``mc_error``: its Monte Carlo error ("" when exact);
    - ``holds``: the computed check (its rule is part of ``statement``), or None when this run
      does not compute what the statement is about (e.g. an epsilon outside the smoke grid);
    - ``deviation``: the heading anchor in ``docs/deviations.md`` that explains a difference.
    """

    target: str
    statement: str
    paper: str
    ours: str
    mc_error: str
    holds: bool | None
    deviation: str = ""


COLUMNS = [f.name for f in fields(Claim)]


def write_claims(path, claims: list[Claim]) -> None:
    """One study unit's claims as CSV (the scorecard's input)."""
    rows = [dict(asdict(c), holds="" if c.holds is None else bool(c.holds)) for c in claims]
    write_csv(path, rows, COLUMNS)


def read_claims(path) -> list[Claim]:
    with open(path, encoding="utf-8") as fh:
        return [Claim(**dict(r, holds=None if r["holds"] == "" else r["holds"] == "True"))
                for r in csv.DictReader(fh)]


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def heading_anchors(markdown: str) -> set[str]:
    """Anchors of every heading of a Markdown document."""
    return {_slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", markdown, flags=re.MULTILINE)}


def verdict(claim: Claim, anchors: set[str]) -> str:
    if claim.holds is None:
        return "not run"
    if claim.holds:
        return "holds"
    if claim.deviation and claim.deviation in anchors:
        return "differs (explained)"
    return "differs (unexplained)"


def fidelity(input, output) -> None:
    """Rule step: every study's claims -> results/fidelity.csv and results/fidelity.md."""
    anchors = heading_anchors(Path(input.deviations).read_text(encoding="utf-8"))
    rows = []
    for path in sorted(input.claims):
        study = Path(path).parent.parent.name
        for c in read_claims(path):
            link = f"docs/deviations.md#{c.deviation}" if c.deviation else ""
            rows.append(dict(study=study, **asdict(c), verdict=verdict(c, anchors), explanation=link))
    columns = ["study", "target", "statement", "paper", "ours", "mc_error", "verdict", "explanation"]
    if rows:
        write_csv(output.csv, rows, columns)
    else:  # every study is switched off
        write_text(output.csv, ",".join(columns) + "\n")
    counts = Counter(r["verdict"] for r in rows)
    lines = [
        "# Fidelity scorecard",
        "",
        f"{len(rows)} checkable statements of the source documents: "
        f"{counts['holds']} hold, {counts['differs (explained)']} differ with an explanation in "
        f"docs/deviations.md, {counts['differs (unexplained)']} differ without one"
        + (f"; {counts['not run']} are about settings this run does not compute." if counts["not run"] else "."),
        "",
        "Each row is a printed number or a figure's claim turned into a computed check "
        "(the rule is in the statement); the Monte Carlo error is that of our value.",
        "",
        "| study | target | statement | paper | ours | MC error | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        v = r["verdict"] if not r["explanation"] else f"[{r['verdict']}]({r['explanation']})"
        cells = [r["study"], r["target"], r["statement"], r["paper"], r["ours"], r["mc_error"], v]
        lines.append("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")
    write_text(output.md, "\n".join(lines) + "\n")
