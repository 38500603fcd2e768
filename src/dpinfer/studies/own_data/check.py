"""Own-data study, check step: read and check one data set before any sampler runs.

:func:`dpinfer.own_data.load` refuses a missing file or column, non-numeric, NaN or infinite
entries, too few records and a constant covariate, naming the data set, the column and the
record count. What passes is summarised in ``nonprivate_check.md``: the record count and the
share of each column clamped to its bounds. Those shares are statistics of the confidential
records, so the file is labelled non-private and reaches no log, no other results file and
not the report.
"""

from __future__ import annotations

import logging

from ...io import write_text
from ...own_data import load, spec_from_config

__all__ = ["check_dataset"]

log = logging.getLogger("dpinfer.own_data")


def check_dataset(input, output, *, dataset, entry) -> None:
    """Rule step: load and check ``dataset`` (its config ``entry``); write the non-private
    check file."""
    spec = spec_from_config(dataset, entry)
    data = load(spec)
    lines = [
        f"# NON-PRIVATE: data set {dataset}",
        "",
        "Computed from the confidential records without noise: keep this file with the data.",
        "",
        f"- records: {data.n}",
        f"- covariates: {', '.join(spec.covariates)}; response: {spec.response}",
        "",
        "| column | bounds | share clamped |",
        "|---|---|---|",
    ]
    for column in (spec.response, *spec.covariates):
        lo, hi = spec.bounds[column]
        lines.append(f"| {column} | [{lo:g}, {hi:g}] | {data.clamped[column]:.4f} |")
    write_text(output.check, "\n".join(lines) + "\n")
    log.info("data set %s passed its checks (%d columns)", dataset, 1 + len(spec.covariates))
