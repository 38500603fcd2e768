"""Rule step of a release: its posteriors, their draws and the per-parameter table.

The table (``results/releases/<name>_posterior.csv`` and ``.md``) has one row per parameter
and noise-aware method: posterior mean and sd, the central interval with the Monte Carlo error
of each end, the naive interval beside it, R-hat, bulk ESS, the kept draws and whether the
chains passed R-hat <= 1.01 and ESS >= 400 (a method still flagged at the cap says "no"). CPU
seconds go to the job's log, not the table, so the same config gives the same bytes.
"""

from __future__ import annotations

import logging

import numpy as np

from ...io import save_npz, write_json, write_table
from ...releases.core import summary_rows
from ...releases.mechanism_spec import describe, mechanism_of
from ...releases.model_methods import ChainSettings, posteriors
from ...releases.spec import release_of
from ...user_files import warn_if_few_records

__all__ = ["COLUMNS", "posterior"]

log = logging.getLogger("dpinfer")

COLUMNS = [
    "parameter",
    "method",
    "mean",
    "sd",
    "lower",
    "lower_mcse",
    "upper",
    "upper_mcse",
    "naive_mean",
    "naive_lower",
    "naive_upper",
    "rhat",
    "ess",
    "draws",
    "converged",
]


def posterior(input, output, *, name, entry, settings, credible_level) -> None:
    """Rule step: the release's file -> draws (npz), the table (csv, md), a digest (json)."""
    release = release_of(name, entry, ".")
    covariates = {  # a regression's p, for the minimum-n warning (docs/deviations.md)
        "linreg": len(release.public.get("mean_x", ())),
        "nig_regression": len(release.public.get("bounds", ())) - 1,
    }
    if release.model in covariates:
        warn_if_few_records(release.n, covariates[release.model], owner=f"release {name!r}")
    chains = ChainSettings(**settings)
    results = posteriors(release, chains)
    rows = []
    for post in results:
        rows += summary_rows(post, credible_level)
        state = "converged" if post.converged else "NOT converged at the cap"
        log.info(
            "release %s: %s %s, keep %d per chain, %.2f CPU s",
            name,
            post.method,
            state,
            post.keep,
            post.seconds,
        )
    for r in rows:
        r["converged"] = "yes" if r["converged"] else "no"
        r["ess"] = int(r["ess"])  # an effective count: its decimals are noise
    noise = describe(mechanism_of(release.mechanism))
    level = f"{credible_level:.0%}"
    write_table(
        output.csv,
        output.md,
        rows,
        COLUMNS,
        title=f"Release {name}: {release.model} posterior, {noise}",
        notes=(
            f"{release.model} model, n = {release.n}, {noise}; prior {release.prior}. "
            f"lower/upper: the central {level} interval of the noise-aware posterior, with the "
            f"Monte Carlo error of each end; naive_*: the posterior that takes the released "
            f"values as exact. A row with converged = no comes from chains still flagged by "
            f"R-hat > 1.01 or bulk ESS < 400 at max_keep = {chains.max_keep}: do not use it."
        ),
        digits=4,
    )
    save_npz(
        output.draws,
        parameters=np.array(results[0].parameters),
        methods=np.array([p.method for p in results]),
        **{f"draws_{p.method}": p.draws for p in results},
        naive=results[0].naive,
    )
    write_json(
        output.digest,
        {
            "name": name,
            "model": release.model,
            "mechanism": noise,
            "n": release.n,
            "level": credible_level,
            "rows": [{k: r[k] for k in COLUMNS} for r in rows],
        },
    )
