"""The entries of ``docs/deviations.md`` and the class of each difference they explain.

A scorecard row that does not hold names an entry (a heading anchor). The entry says what kind
of difference it is in its first paragraph, a class line:

- ``Class: **document in error**. Evidence: `<command>` ...``: the document's statement is wrong
  and a command of the project shows it (a test node ``pytest tests/...::test`` or
  ``python -m dpinfer...``; ``tests/test_deviations.py`` collects or runs every one);
- ``Class: **stand-in data**. Depends on: ...``: the document's data are unavailable, ours are
  synthetic, and the entry says which property of the data the verdict depends on;
- ``Class: **our choice**. Sensitivity: ...``: a setting the document leaves open, with the
  verdict measured at two or more of its values;
- ``Class: **not reproduced**. ...``: we differ and cannot show why.

An entry whose class line lacks its evidence (no command, no "Depends on:", no "Sensitivity:"),
an entry without a class line, and a row that names no entry all count as *not reproduced*:
missing evidence is never read as an explanation. :func:`table_of_contents` renders the index
of classed entries by study and class that heads ``docs/deviations.md`` (between
``<!-- classes:begin -->`` and ``<!-- classes:end -->``; ``python -m
dpinfer.studies.deviations`` rewrites it, and a test fails when it is stale).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CLASSES",
    "NOT_REPRODUCED",
    "EntryClass",
    "slug",
    "sections",
    "entry_class",
    "entry_classes",
    "table_of_contents",
    "refresh_table_of_contents",
]

DOCUMENT_IN_ERROR = "document in error"
STAND_IN = "stand-in data"
OUR_CHOICE = "our choice"
NOT_REPRODUCED = "not reproduced"
CLASSES = (DOCUMENT_IN_ERROR, STAND_IN, OUR_CHOICE, NOT_REPRODUCED)
# what a class line must carry besides the class (a class without it counts as not reproduced)
_EVIDENCE = {
    DOCUMENT_IN_ERROR: "Evidence:",
    STAND_IN: "Depends on:",
    OUR_CHOICE: "Sensitivity:",
    NOT_REPRODUCED: "",
}
_CLASS_LINE = re.compile(r"^Class: \*\*(?P<cls>[^*]+)\*\*\.?(?P<rest>.*)$", re.DOTALL)
# a command that reruns the evidence: a pytest node or a module of the package
_COMMAND = re.compile(r"`((?:pytest|python -m dpinfer)[^`]*)`")
BEGIN, END = "<!-- classes:begin -->", "<!-- classes:end -->"


@dataclass(frozen=True)
class EntryClass:
    """The class of one entry: ``declared`` as its class line says ("" without one), ``name``
    as the scorecard counts it (``not reproduced`` when the evidence is missing), ``command``
    the rerunnable evidence of a document-in-error entry, ``problem`` why a declared class was
    not accepted ("" when it was)."""

    declared: str
    name: str
    command: str = ""
    problem: str = ""


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _headings(markdown: str) -> list[tuple[int, int, int, str]]:
    return [
        (m.start(), m.end(), len(m.group(1)), m.group(2).strip())
        for m in re.finditer(r"^(#+)\s+(.*)$", markdown, flags=re.MULTILINE)
    ]


def sections(markdown: str) -> dict[str, tuple[str, str]]:
    """anchor -> (heading, text up to the next heading of the same or a higher level) of every
    heading of a Markdown document."""
    heads = _headings(markdown)
    out = {}
    for i, (_, end, level, heading) in enumerate(heads):
        stop = next((s for s, _, lv, _ in heads[i + 1 :] if lv <= level), len(markdown))
        out.setdefault(slug(heading), (heading, markdown[end:stop].strip()))
    return out


def entry_class(text: str) -> EntryClass:
    """The class of an entry from the first paragraph of its text."""
    first = text.strip().split("\n\n", 1)[0].replace("\n", " ")
    m = _CLASS_LINE.match(first)
    if m is None:
        return EntryClass("", NOT_REPRODUCED, problem="no class line")
    declared, rest = m.group("cls").strip(), m.group("rest")
    if declared not in CLASSES:
        return EntryClass(declared, NOT_REPRODUCED, problem=f"unknown class {declared!r}")
    need = _EVIDENCE[declared]
    if need and need not in rest:
        return EntryClass(declared, NOT_REPRODUCED, problem=f"no {need!r} in its class line")
    command = ""
    if declared == DOCUMENT_IN_ERROR:
        found = _COMMAND.search(rest.split(need, 1)[1])
        if found is None:
            return EntryClass(declared, NOT_REPRODUCED, problem="its evidence names no command")
        command = found.group(1).strip()
    return EntryClass(declared, declared, command)


def entry_classes(markdown: str) -> dict[str, EntryClass]:
    """anchor -> class of every heading of ``docs/deviations.md``."""
    return {a: entry_class(text) for a, (_, text) in sections(markdown).items()}


def table_of_contents(markdown: str) -> str:
    """The index of every entry that carries a class line: per class, per study (the ``## ``
    heading the entry sits under), its link."""
    study = ""
    rows: dict[str, dict[str, list[str]]] = {c: {} for c in CLASSES}
    texts = sections(markdown)
    for _, _, level, heading in _headings(markdown):
        if level == 2:
            study = heading
            continue
        if level < 2:
            continue
        cls = entry_class(texts[slug(heading)][1])
        if not cls.declared:
            continue
        rows.setdefault(cls.name, {}).setdefault(study, []).append(
            f"[{heading}](#{slug(heading)})"
            + (f" (declared {cls.declared}: {cls.problem})" if cls.problem else "")
        )
    lines = [
        BEGIN,
        "",
        "Entries that explain a scorecard difference, by class and study (generated from each "
        "entry's class line by `python -m dpinfer.studies.deviations`; do not edit by hand).",
        "",
    ]
    for cls in CLASSES:
        by_study = rows.get(cls, {})
        total = sum(len(v) for v in by_study.values())
        lines.append(f"**{cls}** ({total})")
        lines.append("")
        for study, links in by_study.items():
            lines.append(f"- {study}: " + "; ".join(links))
        if not by_study:
            lines.append("- none")
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def refresh_table_of_contents(markdown: str) -> str:
    """``markdown`` with its class index (between the markers) rendered anew."""
    if BEGIN not in markdown or END not in markdown:
        raise ValueError(f"docs/deviations.md lacks the markers {BEGIN} and {END}")
    head, rest = markdown.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + table_of_contents(markdown) + tail


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else "docs/deviations.md")
    text = path.read_text(encoding="utf-8")
    new = refresh_table_of_contents(text)
    if new != text:
        path.write_text(new, encoding="utf-8")
        print(f"{path}: class index rewritten")
    else:
        print(f"{path}: class index up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
