"""Plain helpers shared by the Snakemake rules: target paths, chunking, and the step runner.

The rules stay free of logic a test cannot reach: they call these functions, and every script
is the same three lines that hand ``snakemake`` to :func:`run_step`.
"""

from __future__ import annotations

import csv
import importlib
import logging
import math
import sys
import time
from pathlib import Path

__all__ = [
    "FIGURE_SUFFIXES",
    "TABLE_SUFFIXES",
    "target_paths",
    "read_targets_tsv",
    "n_chunks",
    "chunk_replicates",
    "fmt_eps",
    "run_step",
]

FIGURE_SUFFIXES = (".pdf", ".png")
TABLE_SUFFIXES = (".csv", ".md")


def target_paths(study: str, target_id: str, kind: str, results: str = "results") -> list[str]:
    """Final artefact paths of one target, as TARGETS.md fixes them."""
    if kind not in ("figure", "table"):
        raise ValueError(f"kind must be 'figure' or 'table', got {kind!r}")
    suffixes = FIGURE_SUFFIXES if kind == "figure" else TABLE_SUFFIXES
    return [f"{results}/{study}/{target_id}{s}" for s in suffixes]


def read_targets_tsv(path) -> list[tuple[str, str, str]]:
    """(study, id, kind) rows of a targets.tsv file."""
    with open(path, encoding="utf-8") as fh:
        return [(r["study"], r["id"], r["kind"]) for r in csv.DictReader(fh, delimiter="\t")]


def n_chunks(n_replicates: int, chunk_size: int) -> int:
    if n_replicates < 1 or chunk_size < 1:
        raise ValueError("n_replicates and chunk_size must be positive")
    return math.ceil(n_replicates / chunk_size)


def chunk_replicates(chunk: int, n_replicates: int, chunk_size: int) -> range:
    """Replicate indices (0-based) handled by one chunk."""
    start = int(chunk) * chunk_size
    if not 0 <= start < n_replicates:
        raise ValueError(f"chunk {chunk} is out of range for {n_replicates} replicates")
    return range(start, min(n_replicates, start + chunk_size))


def fmt_eps(eps: float) -> str:
    """Epsilon as it appears in file names: shortest round-trip text ('0.1', '10')."""
    e = float(eps)
    return str(int(e)) if e.is_integer() else repr(e)


def _setup_logging(log_path) -> logging.Logger:
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    handlers = [logging.StreamHandler(sys.stderr)]
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", handlers=handlers)
    return logging.getLogger("dpinfer")


def run_step(smk) -> None:
    """Run one pipeline step for a Snakemake ``script:`` job.

    ``smk.params.step`` names the function as ``"module:function"`` inside ``dpinfer.studies``;
    it is called as ``function(smk.input, smk.output, **other_params)``. Progress goes to the
    rule's log; an exception is logged with its traceback and re-raised so the job fails.
    """
    params = dict(smk.params.items())
    step = params.pop("step")
    log = _setup_logging(smk.log[0] if len(smk.log) else None)
    module_name, func_name = step.split(":")
    func = getattr(importlib.import_module(f"dpinfer.studies.{module_name}"), func_name)
    t0 = time.perf_counter()
    log.info("step %s (rule %s) starts", step, getattr(smk, "rule", "?"))
    try:
        func(smk.input, smk.output, **params)
    except Exception:
        log.exception("step %s failed", step)
        raise
    log.info("step %s done in %.1f s", step, time.perf_counter() - t0)
