"""docs/deviations.md: the class of every entry a scorecard row can name, its class index, and
the rerunnable evidence of every "document in error" entry."""

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from dpinfer.studies.deviations import (
    CLASSES,
    NOT_REPRODUCED,
    entry_class,
    entry_classes,
    refresh_table_of_contents,
)
from dpinfer.studies.scorecard import Claim, verdict

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "deviations.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "text,name,command",
    [
        (
            "Class: **document in error**. Evidence: `pytest tests/test_a.py::test_b` fails.\n\nx",
            "document in error",
            "pytest tests/test_a.py::test_b",
        ),
        (
            "Class: **document in error**. Evidence: `python -m dpinfer.x a b` prints 3.",
            "document in error",
            "python -m dpinfer.x a b",
        ),
        (
            "Class: **stand-in data**. Depends on: the share of tracts below 0.5.",
            "stand-in data",
            "",
        ),
        ("Class: **our choice**. Sensitivity: holds at 1, differs at 10.", "our choice", ""),
        ("Class: **not reproduced**. We tried A and B.", "not reproduced", ""),
    ],
)
def test_class_lines_are_read(text, name, command):
    c = entry_class(text)
    assert (c.name, c.command, c.problem) == (name, command, "")


@pytest.mark.parametrize(
    "text,problem",
    [
        ("Some text without a class.", "no class line"),
        ("Class: **document in error**. Trust us.", "no 'Evidence:' in its class line"),
        (
            "Class: **document in error**. Evidence: the thesis says so.",
            "its evidence names no command",
        ),
        ("Class: **document in error**. Evidence: `ls -la`.", "its evidence names no command"),
        ("Class: **our choice**. We picked 3.", "no 'Sensitivity:' in its class line"),
        ("Class: **stand-in data**. Ours are synthetic.", "no 'Depends on:' in its class line"),
        ("Class: **explained**. Evidence: `pytest x`.", "unknown class 'explained'"),
    ],
)
def test_missing_evidence_counts_as_not_reproduced(text, problem):
    c = entry_class(text)
    assert c.name == NOT_REPRODUCED and c.problem == problem


def test_a_rows_verdict_is_its_entrys_class():
    doc = (
        "# D\n\n## S\n\n### A\n\nClass: **our choice**. Sensitivity: x.\n\n"
        "### B\n\nClass: **our choice**. No measurement.\n"
    )
    classes = entry_classes(doc)
    row = Claim("t", "s", "p", "o", "", False, deviation="a")
    assert verdict(row, classes) == "differs: our choice"
    assert verdict(Claim(**{**row.__dict__, "deviation": "b"}), classes) == (
        "differs: not reproduced"
    )
    assert verdict(Claim(**{**row.__dict__, "deviation": ""}), classes) == (
        "differs: not reproduced"
    )
    assert verdict(Claim(**{**row.__dict__, "deviation": "nowhere"}), classes) == (
        "differs: not reproduced"
    )
    assert verdict(Claim(**{**row.__dict__, "holds": True}), classes) == "holds"


def test_class_index_is_current():
    assert refresh_table_of_contents(DOC) == DOC, (
        "docs/deviations.md's class index is stale: run python -m dpinfer.studies.deviations"
    )


def test_every_declared_class_carries_its_evidence():
    bad = {a: c.problem for a, c in entry_classes(DOC).items() if c.declared and c.problem}
    assert not bad, f"entries whose class line lacks its evidence: {bad}"
    assert {c.name for c in entry_classes(DOC).values()} <= set(CLASSES)


def _commands() -> list[tuple[str, str]]:
    return sorted((anchor, c.command) for anchor, c in entry_classes(DOC).items() if c.command)


def test_document_error_commands_exist():
    """Every 'document in error' entry names a command (else its rows count as not
    reproduced); each pytest node must exist (the suite runs it), each module command runs."""
    for anchor, command in _commands():
        argv = shlex.split(command)
        if argv[0] == "pytest":
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "--collect-only",
                    "-q",
                    "-p",
                    "no:xdist",
                    "-o",
                    "addopts=",
                    *argv[1:],
                ],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0 and "1 test" in done.stdout, (
                f"{anchor}: `{command}` does not name exactly one test:\n{done.stdout[-2000:]}"
            )
        else:
            assert argv[:2] == ["python", "-m"], f"{anchor}: `{command}`"
            done = subprocess.run(
                [sys.executable, *argv[1:]],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, f"{anchor}: `{command}` failed:\n{done.stderr[-2000:]}"
