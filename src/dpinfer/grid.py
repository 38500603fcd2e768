"""The generic grid as names and paths: target paths, numbers in file names, chunk ranges.

Pure Python (no numpy, numba, scipy or matplotlib): the Snakemake workflow imports this module
when it is parsed, so a dry run or a cluster job never pays for the numerical stack. The study
packages use the same functions, so a file name written by a rule and read by a step agree.

A study's own grid (its setting names, cells, batches and chain specs) lives in its package,
as light as this module: ``dpinfer.studies.<study>.grid`` and, for the NIG regression methods
that several studies share, :mod:`dpinfer.studies.nig_specs`.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "FIGURE_SUFFIXES",
    "TABLE_SUFFIXES",
    "target_paths",
    "fmt_eps",
    "parse_name",
    "n_chunks",
    "chunk_range",
]

FIGURE_SUFFIXES = (".pdf", ".png")
# a table's data, its Markdown and the HTML page the report shows (dpinfer.studies.report_pages)
TABLE_SUFFIXES = (".csv", ".md", ".html")


def target_paths(study: str, target_id: str, kind: str, results: str = "results") -> list[str]:
    """Final artefact paths of one target, as TARGETS.md fixes them (a table also has the page the
    HTML report shows)."""
    if kind not in ("figure", "table"):
        raise ValueError(f"kind must be 'figure' or 'table', got {kind!r}")
    suffixes = FIGURE_SUFFIXES if kind == "figure" else TABLE_SUFFIXES
    return [f"{results}/{study}/{target_id}{s}" for s in suffixes]


def fmt_eps(eps: float) -> str:
    """A number as it appears in file names: shortest round-trip text ('0.1', '10')."""
    e = float(eps)
    if not math.isfinite(e):
        raise ValueError(f"not a finite number: {eps!r}")
    return str(int(e)) if e.is_integer() else repr(e)


def parse_name(pattern: str, name: str, what: str) -> tuple[str, str]:
    """The two groups of ``pattern`` in a setting name (a study's ``parse_*_setting``); a name
    that does not match is refused, naming ``what`` kind of setting it is not."""
    m = re.match(pattern, name)
    if not m:
        raise ValueError(f"not a {what} setting name: {name!r}")
    return m.group(1), m.group(2)


# ----------------------------------------------------------------------------- chunks
def n_chunks(n_replicates: int, chunk_size: int) -> int:
    """Number of chunk jobs that cover ``n_replicates`` replicates."""
    if n_replicates < 1 or chunk_size < 1:
        raise ValueError("n_replicates and chunk_size must be positive")
    return math.ceil(n_replicates / chunk_size)


def chunk_range(chunk: int, n_replicates: int, chunk_size: int) -> list[int]:
    """[start, stop) of the replicates of one chunk, as a rule param.

    A chunk job receives this pair rather than the replicate count, so raising ``replicates``
    adds chunks (and redoes only the last, partial one) instead of redoing every chunk.
    """
    start = int(chunk) * int(chunk_size)
    if not 0 <= start < n_replicates:
        raise ValueError(f"chunk {chunk} is out of range for {n_replicates} replicates")
    return [start, min(int(n_replicates), start + int(chunk_size))]
