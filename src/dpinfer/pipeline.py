"""How a Snakemake job calls the package: step names, their parse-time check, the step runner.

A rule names its step as ``"<study>.<module>:<function>"`` inside :mod:`dpinfer.studies`, e.g.
``"ju2022.figures:fig1a"``: modules are ``run`` (simulate, release, sample), ``summarise``
(aggregate chunks, render tables), ``figures`` (one function per figure target id) and ``paper``
(the document's checkable claims). Every script is the same adapter that hands ``snakemake`` to
:func:`run_step`, which calls ``function(input, output, **params)``.

:func:`resolve_step` checks a step name when the workflow is parsed, without importing the
study (it reads the module's source), so a misspelt step fails ``snakemake -n`` and parsing
stays free of numba, scipy and matplotlib. Data flow is one way: the workflow imports this
module and the pure-Python grid modules (:mod:`dpinfer.grid`, a study's ``grid``); this module
imports a study only when a job runs it; studies never import this module.
"""

from __future__ import annotations

import ast
import importlib
import json
import logging
import re
import sys
import time
from functools import cache
from pathlib import Path

from .job_cost import job_record
from .kernel_time import kernel_seconds
from .user_files import UserFileError

__all__ = ["STEP_PATTERN", "resolve_step", "run_step"]

STEP_PATTERN = re.compile(r"^([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*):([A-Za-z_][A-Za-z0-9_]*)$")
_STUDIES = Path(__file__).resolve().parent / "studies"


@cache
def _top_level_functions(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return frozenset(n.name for n in tree.body if isinstance(n, ast.FunctionDef))


def resolve_step(step: str) -> str:
    """Return ``step`` if it names a top-level function of a module in ``dpinfer.studies``;
    otherwise raise ValueError saying what is wrong. Reads source only (no import)."""
    m = STEP_PATTERN.match(step)
    if not m:
        raise ValueError(f"step {step!r} is not of the form '<study>.<module>:<function>'")
    module, func = m.groups()
    base = _STUDIES.joinpath(*module.split("."))
    path = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
    if not path.is_file():
        raise ValueError(f"step {step!r}: no module dpinfer.studies.{module}")
    if func not in _top_level_functions(path):
        raise ValueError(f"step {step!r}: dpinfer.studies.{module} has no function {func!r}")
    return step


def _setup_logging(log_path) -> logging.Logger:
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    handlers = [logging.StreamHandler(sys.stderr)]
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", handlers=handlers
    )
    return logging.getLogger("dpinfer")


def _refuse_once(log: logging.Logger, message: str) -> None:
    """Log a refusal once and exit 1 without a traceback. Snakemake prints a failed job's log
    (profiles/default: show-failed-logs), so with a log file the message goes there alone."""
    root = logging.getLogger()
    if any(isinstance(h, logging.FileHandler) for h in root.handlers):
        for h in [h for h in root.handlers if not isinstance(h, logging.FileHandler)]:
            root.removeHandler(h)
    log.error("%s", message)
    raise SystemExit(1)


def run_step(smk) -> None:
    """Run one pipeline step for a Snakemake ``script:`` job.

    ``smk.params.step`` names the function (see :func:`resolve_step`); it is called as
    ``function(smk.input, smk.output, **other_params)``. Progress goes to the rule's log; an
    exception is logged with its traceback and re-raised so the job fails, except a user's file
    refused (:class:`~dpinfer.user_files.UserFileError`): its one-line message, which names the
    file and shows none of it, is logged once and the job exits without a traceback.
    """
    params = dict(smk.params.items())
    step = resolve_step(params.pop("step"))
    log = _setup_logging(smk.log[0] if len(smk.log) else None)
    module, func = step.split(":")
    function = getattr(importlib.import_module(f"dpinfer.studies.{module}"), func)
    t0 = time.perf_counter()
    log.info("step %s (rule %s) starts", step, getattr(smk, "rule", "?"))
    try:
        function(smk.input, smk.output, **params)
    except UserFileError as err:
        _refuse_once(log, f"step {step} refused: {err}")
    except Exception:
        log.exception("step %s failed", step)
        raise
    wall = time.perf_counter() - t0
    log.info("step %s done in %.1f s", step, wall)
    log.info("cost %s", json.dumps(job_record(getattr(smk, "rule", "?"), wall, kernel_seconds())))
