"""The fidelity scorecard: every checkable statement of the documents against our numbers.

Each study's ``paper.py`` turns the document's printed numbers (table cells, timings) and each
figure's qualitative claim into :class:`Claim` records computed from the study's summaries, and
writes them with :func:`write_claims` (one CSV per study unit). :func:`fidelity`, the last rule
of the workflow, gathers them into ``results/fidelity.md`` and ``results/fidelity.csv``: one row
per statement with the paper's value, ours, its Monte Carlo error and a verdict.

A claim records the settings its paper value refers to (:class:`Setting`: credible level,
epsilon, n, trials, chain length ...) beside this run's. A row is judged ("holds" / "differs")
only when every one of them matches; otherwise its verdict is "not comparable", naming what
differs, so an edited config or the smoke scale never compares our number with a paper value
of another setting. A row that does not hold is classed by the entry of ``docs/deviations.md``
it names (:mod:`.deviations`): "differs: document in error" (a command of the project shows
the document's statement is wrong), "differs: stand-in data", "differs: our choice" (with the
verdict's sensitivity measured) or "differs: not reproduced" (no entry, or an entry without its
evidence). The report shows the scorecard as ``results/fidelity.html`` (:mod:`.report_pages`),
which carries the text of every entry of ``docs/deviations.md``.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from ..io import write_csv, write_text
from .deviations import CLASSES, NOT_REPRODUCED, entry_classes, sections
from .report_pages import read_csv_table, render_scorecard_page

__all__ = [
    "health_claim",
    "Setting",
    "setting",
    "setting_in",
    "Claim",
    "write_claims",
    "read_claims",
    "heading_anchors",
    "deviation_sections",
    "verdict",
    "difference_class",
    "mismatches",
    "fidelity",
    "VERDICTS",
    "Converged",
    "PENDING",
    "pending",
    "converged_verdict",
    "CONVERGED_VERDICTS",
    "BUDGET_FIXED",
    "changed_conclusions",
    "is_diagnostics",
    "scorecard_rows",
    "verdict_sentence",
    "DIFFERS",
    "COLUMNS_OUT",
]

DIFFERS = tuple(f"differs: {c}" for c in CLASSES)
VERDICTS = ("holds", *DIFFERS, "not comparable", "not run")
BUDGET_FIXED = "not applicable: iterations fixed by the privacy budget"
# The second verdict of a claim computed from chains the diagnostics flag ("" for any other claim).
CONVERGED_VERDICTS = ("holds", "differs", "not comparable", "not run", BUDGET_FIXED)


@dataclass(frozen=True)
class Setting:
    """One setting a claim's paper value refers to, beside this run's value of it.

    ``paper`` and ``ours`` are formatted for the reader; ``same`` says whether this run is at the
    document's setting (decided by :func:`setting`); ``source`` says where the reference value
    comes from ("in the paper", or e.g. "at paper scale (the thesis gives none)" for a free choice
    the document leaves open, whose paper-scale value then stands for the document's setting).
    """

    name: str
    paper: str
    ours: str
    same: bool
    source: str = "in the paper"

    def describe(self) -> str:
        return f"{self.name} {self.ours} here, {self.paper} {self.source}"


def _fmt(value) -> str:
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_fmt(v)}" for k, v in value.items())
    return str(value)


def _equal(a, b) -> bool:
    """Same value: numbers to a relative 1e-9 (an int and an equal float are the same), sequences
    element-wise in order, mappings key-wise, anything else by ==."""
    if (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    ):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=0.0)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if (
        isinstance(a, Sequence)
        and isinstance(b, Sequence)
        and not isinstance(a, str)
        and not isinstance(b, str)
    ):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return a == b


def setting(
    name: str, paper, ours, *, at_least: bool = False, source: str = "in the paper"
) -> Setting:
    """The document's value of a setting beside this run's.

    ``at_least``: a run with at least the document's value is at its setting (replicate counts:
    more trials only shrink the Monte Carlo error that every rule already allows for); otherwise
    the values must be equal (:func:`_equal`)."""
    if at_least:
        same = float(ours) >= float(paper) * (1 - 1e-12)
    else:
        same = _equal(paper, ours)
    return Setting(name, _fmt(paper), _fmt(ours), bool(same), source)


def setting_in(name: str, grid, ours, *, source: str = "in the paper") -> Setting:
    """One value of this run (a panel's epsilon, a cell's n) beside the document's grid: at its
    setting when the value is one of the grid's."""
    return Setting(
        name,
        " or ".join(_fmt(g) for g in grid),
        _fmt(ours),
        any(_equal(g, ours) for g in grid),
        source,
    )


# Converged.kind of a claim whose second verdict is still to come (companions.from_chains)
PENDING = "pending"


@dataclass(frozen=True)
class Converged:
    """The second verdict of a claim computed from chains the diagnostics flag (issue 33).

    - ``kind``: "companion" (the claim recomputed from chains that pass the diagnostics: the same
      data and releases, more or longer chains or an added move that keeps the target exact) or
      "privacy_budget" (a DP chain whose iteration count the privacy budget fixes: a longer chain
      is another, costlier release, so there is no converged companion), or "pending" (a claim
      marked as computed from chains whose second verdict is still to come:
      :func:`dpinfer.studies.companions.from_chains`; :func:`write_claims` refuses it);
    - ``ours``, ``mc_error``, ``holds``: as :class:`Claim`'s, from the companion (``holds`` None:
      the companion was not run);
    - ``settings``: where the companion differs from the document's setting beyond chain
      lengths (a replicate subset, say) a mismatch makes it "not comparable";
    - ``replaces``: names of the row's settings that the companion's chains replace (the
      original chains' lengths, where those were shorter than the document's): their mismatches
      do not make the companion "not comparable";
    - ``note``: what the reader needs beside the number (the subset, the original chains' verdict
      on it).
    """

    kind: str
    ours: str = ""
    mc_error: str = ""
    holds: bool | None = None
    settings: tuple[Setting, ...] = field(default=())
    note: str = ""
    replaces: tuple[str, ...] = field(default=())

    def __post_init__(self):
        if self.kind not in ("companion", "privacy_budget", PENDING):
            raise ValueError(
                f"Converged.kind must be 'companion', 'privacy_budget' or 'pending': {self.kind}"
            )


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a source document and what this pipeline measured.

    - ``target``: the target id it is about (``tab1``, ``fig5_4``);
    - ``statement``: the document's statement or printed quantity, in words;
    - ``paper``: the document's value as printed, or the qualitative claim in short;
    - ``ours``: our value, formatted; ``mc_error``: its Monte Carlo error ("" when exact);
    - ``holds``: the computed check (its rule is part of ``statement``), or None when this run
      does not compute what the statement is about (e.g. an epsilon outside the smoke grid);
    - ``deviation``: the heading anchor in ``docs/deviations.md`` that explains a difference;
    - ``settings``: the settings ``paper`` refers to, each beside this run's (:class:`Setting`);
      any mismatch makes the row "not comparable" whatever ``holds`` says;
    - ``headline``: the row is one of its study's headline results (the results summary and
      README render these rows, with their verdicts, from the results);
    - ``converged``: for a claim computed from chains the diagnostics flag, its second verdict
      (:class:`Converged`); None for every other claim;
    - ``diagnostics``: the row is about the chains' convergence diagnostics (R-hat, ESS, pass
      shares), not about a method: "conclusions that change with converged chains" lists such
      rows apart, since a companion whose lengths a pilot chose passes them by construction;
    - ``stand_in``: the synthetic stand-in the row is computed on, where the document's data are
      not public ("synthetic census tracts"); "" when the row uses the document's own data or
      simulation. Headline lines name it.
    """

    target: str
    statement: str
    paper: str
    ours: str
    mc_error: str
    holds: bool | None
    deviation: str = ""
    settings: tuple[Setting, ...] = field(default=())
    headline: bool = False
    converged: Converged | None = None
    diagnostics: bool = False
    stand_in: str = ""


COLUMNS = [f.name for f in fields(Claim)]


def health_claim(target, statement, paper, groups, health, deviation, settings) -> Claim:
    """The one convergence-diagnostics row: every chain of ``groups`` passes split-chain R-hat
    <= ``health["max_rhat"]`` and bulk ESS >= ``health["min_ess"]``. ``groups`` = [(label, rhat,
    ess)], arrays with one row per chain (further axes: its parameters; a chain is flagged when any
    fails); ours names the flagged count and the worst R-hat and ESS with their group's label, the
    error is the flagged share's Wilson interval."""
    from ..diagnostics import unconverged
    from ..proportions import format_interval

    limits = {"max_rhat": health["max_rhat"], "min_ess": health["min_ess"]}
    flagged = sum(
        int(unconverged(r, e, **limits).reshape(len(r), -1).any(axis=1).sum()) for _, r, e in groups
    )
    total = sum(len(r) for _, r, _ in groups)
    worst_r = max(groups, key=lambda g: g[1].max())
    worst_e = min(groups, key=lambda g: g[2].min())
    return Claim(
        target,
        statement,
        paper,
        f"{flagged} of {total} flagged; max R-hat {worst_r[1].max():.4f} ({worst_r[0]}), "
        f"min ESS {worst_e[2].min():.0f} ({worst_e[0]})",
        f"flagged share {format_interval(flagged, total, digits=3)}",
        flagged == 0,
        deviation,
        tuple(settings),
        diagnostics=True,
    )


def pending(claim: Claim) -> bool:
    """Whether ``claim`` is marked as computed from chains and still awaits its second verdict."""
    return claim.converged is not None and claim.converged.kind == PENDING


def _settings_json(settings) -> list:
    return [list(asdict(s).values()) for s in settings]


def _converged_json(c: Converged | None) -> str:
    if c is None:
        return ""
    return json.dumps(dict(asdict(c), settings=_settings_json(c.settings)))


def _converged_of(text: str | None) -> Converged | None:
    if not text:
        return None
    d = json.loads(text)
    return Converged(
        **dict(
            d,
            settings=tuple(Setting(*s) for s in d["settings"]),
            replaces=tuple(d.get("replaces", ())),
        )
    )


def write_claims(path, claims: list[Claim]) -> None:
    """One study unit's claims as CSV (the scorecard's input); settings as a JSON list."""
    unanswered = [c.statement for c in claims if pending(c)]
    if unanswered:
        raise ValueError(f"claims marked from_chains without a second verdict: {unanswered[:3]}")
    rows = [
        dict(
            asdict(c),
            holds="" if c.holds is None else bool(c.holds),
            settings=json.dumps(_settings_json(c.settings)),
            headline=c.headline,
            converged=_converged_json(c.converged),
            diagnostics=c.diagnostics,
        )
        for c in claims
    ]
    write_csv(path, rows, COLUMNS)


def read_claims(path) -> list[Claim]:
    with open(path, encoding="utf-8") as fh:
        return [
            Claim(
                **dict(
                    r,
                    holds=None if r["holds"] == "" else r["holds"] == "True",
                    settings=tuple(Setting(*s) for s in json.loads(r.get("settings") or "[]")),
                    headline=r.get("headline") == "True",
                    converged=_converged_of(r.get("converged")),
                    diagnostics=r.get("diagnostics") == "True",
                )
            )
            for r in csv.DictReader(fh)
        ]


def heading_anchors(markdown: str) -> set[str]:
    """Anchors of every heading of a Markdown document."""
    return set(sections(markdown))


def deviation_sections(markdown: str) -> dict[str, tuple[str, str]]:
    """anchor -> (heading, text) of every heading of ``docs/deviations.md``
    (:func:`.deviations.sections`)."""
    return sections(markdown)


def mismatches(claim: Claim) -> list[Setting]:
    """The settings at which this run differs from the document's (empty: comparable)."""
    return [s for s in claim.settings if not s.same]


def difference_class(claim: Claim, classes: dict) -> str:
    """The class of a row that does not hold: its entry's (``classes``: anchor -> class name,
    or anchor -> :class:`.deviations.EntryClass`); "not reproduced" when it names no entry, an
    entry that does not exist, or one whose class line lacks its evidence."""
    cls = classes.get(claim.deviation) if claim.deviation else None
    if cls is None:
        return NOT_REPRODUCED
    return cls if isinstance(cls, str) else cls.name


def verdict(claim: Claim, classes: dict) -> str:
    """The row's verdict (one of :data:`VERDICTS`); ``classes`` as :func:`difference_class`."""
    if claim.holds is None:
        return "not run"
    if mismatches(claim):
        return "not comparable"
    if claim.holds:
        return "holds"
    return f"differs: {difference_class(claim, classes)}"


def converged_verdict(claim: Claim) -> str:
    """The second verdict: "" when the claim does not rest on flagged chains; otherwise how the
    claim fares with converged chains (one of :data:`CONVERGED_VERDICTS`). A companion of a row
    that is itself not comparable is not comparable either, unless only the chain settings the
    companion replaces (``Converged.replaces``) make it so."""
    c = claim.converged
    if c is None:
        return ""
    if c.kind == "privacy_budget":
        return BUDGET_FIXED
    if c.holds is None:
        return "not run"
    kept = [s for s in mismatches(claim) if s.name not in c.replaces]
    if kept or [s for s in c.settings if not s.same]:
        return "not comparable"
    return "holds" if c.holds else "differs"


COLUMNS_OUT = [
    "study",
    "target",
    "statement",
    "paper",
    "ours",
    "mc_error",
    "verdict",
    "class",
    "explanation",
    "setting",
    "not_comparable",
    "headline",
    "diagnostics",
    "stand_in",
    "converged_verdict",
    "converged_ours",
    "converged_mc_error",
    "converged_note",
]


def scorecard_rows(claim_files, deviations_md: str) -> list[dict]:
    """One row per claim of every study's claims file, with its verdicts (the columns of
    ``results/fidelity.csv``)."""
    classes = entry_classes(deviations_md)
    rows = []
    for path in sorted(claim_files):
        study = Path(path).parent.parent.name
        for c in read_claims(path):
            v = verdict(c, classes)
            rows.append(
                dict(
                    study=study,
                    target=c.target,
                    statement=c.statement,
                    paper=c.paper,
                    ours=c.ours,
                    mc_error=c.mc_error,
                    verdict=v,
                    **{"class": v.removeprefix("differs: ") if v in DIFFERS else ""},
                    explanation=f"docs/deviations.md#{c.deviation}" if c.deviation else "",
                    setting="; ".join(f"{s.name} {s.paper}" for s in c.settings),
                    not_comparable="; ".join(s.describe() for s in mismatches(c)),
                    headline=c.headline,
                    diagnostics=c.diagnostics,
                    stand_in=c.stand_in,
                    converged_verdict=converged_verdict(c),
                    converged_ours=c.converged.ours if c.converged else "",
                    converged_mc_error=c.converged.mc_error if c.converged else "",
                    converged_note=_converged_note(c.converged),
                )
            )
    return rows


def verdict_sentence(counts: Counter) -> str:
    """The header count of the verdicts, every difference class named."""
    differ = sum(counts[d] for d in DIFFERS)
    classes = ", ".join(f"{counts[f'differs: {c}']} {c}" for c in CLASSES)
    total = sum(counts.values())
    return (
        f"{total} checkable statements of the source documents: {counts['holds']} hold; "
        f"{differ} differ ({classes}); {counts['not comparable']} are not comparable (this "
        f"run's setting is not the document's) and {counts['not run']} are about settings this "
        "run does not compute."
    )


def fidelity(input, output) -> None:
    """Rule step: every study's claims -> results/fidelity.csv, results/fidelity.md and the
    report's page of it, results/fidelity.html (rendered from the CSV as written)."""
    markdown = Path(input.deviations).read_text(encoding="utf-8")
    rows = scorecard_rows(input.claims, markdown)
    if rows:
        write_csv(output.csv, rows, COLUMNS_OUT)
    else:  # every study is switched off
        write_text(output.csv, ",".join(COLUMNS_OUT) + "\n")
    counts = Counter(r["verdict"] for r in rows)
    lines = [
        "# Fidelity scorecard",
        "",
        verdict_sentence(counts),
        "",
        "Each row is a printed number or a figure's claim turned into a computed check "
        "(the rule is in the statement) at the setting the document's value refers to; the Monte "
        "Carlo error is that of our value. A row is judged only when this run is at that setting. "
        "A row that differs is classed by the entry of docs/deviations.md it names: document in "
        "error (a command of the project shows the document's statement is wrong), stand-in data "
        "(ours are synthetic; the entry says which property the verdict depends on), our choice "
        "(a setting the document leaves open, the verdict measured at two or more values) or not "
        "reproduced (we cannot show why; also every row whose entry lacks that evidence).",
        "",
        _converged_sentence(rows),
        "",
        "| study | target | statement | paper | ours | MC error | verdict "
        "| with converged chains |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        v = r["verdict"] if not r["explanation"] else f"[{r['verdict']}]({r['explanation']})"
        if r["not_comparable"]:
            v += f": {r['not_comparable']}"
        cells = [r["study"], r["target"], r["statement"], r["paper"], r["ours"], r["mc_error"], v]
        cells.append(_converged_cell(r))
        lines.append("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")
    lines += _changed_section(rows)
    write_text(output.md, "\n".join(lines) + "\n")
    href = os.path.relpath(input.deviations, os.path.dirname(output.html) or ".")
    write_text(
        output.html,
        render_scorecard_page(
            *read_csv_table(output.csv), sections(markdown), deviations_href=Path(href).as_posix()
        ),
    )


def _converged_note(c: Converged | None) -> str:
    if c is None:
        return ""
    mism = "; ".join(s.describe() for s in c.settings if not s.same)
    return "; ".join(t for t in (c.note, mism) if t)


def _converged_sentence(rows: list[dict]) -> str:
    """The header count of the second verdicts."""
    counts = Counter(r["converged_verdict"] for r in rows if r["converged_verdict"])
    total = sum(counts.values())
    return (
        f"{total} rows are computed from chains the convergence diagnostics can flag; with "
        f"converged chains {counts['holds']} hold, {counts['differs']} differ, "
        f"{counts['not comparable']} are not comparable and {counts['not run']} were not run; "
        f"for {counts[BUDGET_FIXED]} the privacy budget fixes the iterations, so no converged "
        'companion exists (column "with converged chains").'
    )


def _converged_cell(r: dict) -> str:
    v = r["converged_verdict"]
    if not v or v == BUDGET_FIXED:
        return v
    text = f"{v}: {r['converged_ours']}" if r["converged_ours"] else v
    if r["converged_mc_error"]:
        text += f" (MC error {r['converged_mc_error']})"
    return text + (f"; {r['converged_note']}" if r["converged_note"] else "")


def changed_conclusions(rows: list[dict]) -> list[dict]:
    """The judged rows whose conclusion changes with converged chains: the first verdict holds
    and the second differs, or the first differs and the second holds."""
    return [
        r
        for r in rows
        if r["converged_verdict"] in ("holds", "differs")
        and r["verdict"] != "not comparable"
        and (r["verdict"] == "holds") != (r["converged_verdict"] == "holds")
    ]


def is_diagnostics(row: dict) -> bool:
    """A scorecard row about the chains' convergence diagnostics (CSV text or bool)."""
    return str(row.get("diagnostics", "")) == "True"


def _changed_table(rows: list[dict]) -> list[str]:
    out = [
        "| study | target | statement | ours (document's chains) | verdict | ours (converged) "
        "| verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        first = r["ours"] + (f" (MC error {r['mc_error']})" if r["mc_error"] else "")
        second = r["converged_ours"] + (
            f" (MC error {r['converged_mc_error']})" if r["converged_mc_error"] else ""
        )
        cells = [r["study"], r["target"], r["statement"], first, r["verdict"], second]
        cells.append(r["converged_verdict"])
        out.append("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")
    return out


def _changed_section(rows: list[dict]) -> list[str]:
    """fidelity.md's closing section: every conclusion that changes with converged chains, with
    both numbers and their Monte Carlo errors; conclusions about a method first, then the rows
    about the chains' diagnostics (which a companion whose lengths a pilot chose passes by
    construction)."""
    changed = changed_conclusions(rows)
    out = ["", "## Conclusions that change with converged chains", ""]
    if not changed:
        judged = sum(r["converged_verdict"] in ("holds", "differs") for r in rows)
        return out + [
            f"None: every one of the {judged} rows judged with converged chains keeps "
            "its conclusion."
        ]
    method = [r for r in changed if not is_diagnostics(r)]
    diag = [r for r in changed if is_diagnostics(r)]
    out += [f"### About a method ({len(method)})", ""]
    out += _changed_table(method) if method else ["None."]
    out += [
        "",
        f"### About the chains' convergence diagnostics ({len(diag)})",
        "",
        "A companion's chain lengths were chosen so that it passes these checks; a change here "
        "says the document's chains were too short, not that a method's conclusion changes.",
        "",
    ]
    out += _changed_table(diag) if diag else ["None."]
    return out
