"""Own-data study, compute step: one chunk of trials of one (data set, epsilon) -> npz.

Each trial releases the statistics of the same clamped records, rescaled to [-1, 1] by their
public bounds (:class:`dpinfer.own_data.UnitScaling`), with fresh Laplace noise, runs every
method and maps its draws back to the data's units. Arrays (methods M, trials R, parameters P
= p coefficients, the intercept and sigma^2): ``cover`` (the central interval covers the
non-private posterior mean), ``np_err`` (|posterior mean - non-private mean| / non-private sd),
``sd_ratio`` (posterior sd / non-private sd), ``rhat``, ``ess`` (M, R, P), ``cpu`` (M, R);
on the first ``accuracy_trials`` trials also ``mean_err``, ``sd_err``, ``mmd`` (M, A, P)
against the long MCMC-Ind reference and its own ``ref_rhat``, ``ref_ess`` (A, P). Only these
comparisons are stored: no draw, no posterior mean and no statistic of the confidential records
itself. ``cover``, ``np_err``, ``sd_ratio`` and Non-Private's entries of every array are derived
from the non-private posterior, and the file says so in its ``note``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable

import numpy as np

from ...diagnostics import bulk_ess, split_rhat
from ...grid import fmt_eps
from ...io import save_npz
from ...methods import method as table_entry
from ...models.linreg_nig_multi import NIWPriorP, nig_prior_p, release_statistics_p
from ...own_data import UnitScaling, load, spec_from_config
from ...samplers.pooled import Pooled
from ...seeding import rng_for
from .. import nig_methods
from ..comparison.problems import Reference, method_record, regression_reference
from ..comparison.run import chunk_arrays
from ..nig_specs import nig_chain_spec
from .summarise import FROM_NON_PRIVATE

__all__ = ["STUDY", "experiment", "priors", "trial", "run_chunk"]

STUDY = "own_data"
log = logging.getLogger("dpinfer.own_data")
Stream = Callable[[str], np.random.Generator]


def experiment(dataset: str, epsilon: float) -> str:
    """Seed-key experiment of one (data set, epsilon)."""
    return f"{dataset}_eps{fmt_eps(epsilon)}"


def priors(settings: dict, p: int):
    """The NIG prior of the p + 1 coefficients and sigma^2 and the NIW data prior of the p
    covariates, isotropic on the unit scale, from the study's ``prior`` and ``data_prior``."""
    g, d = settings["prior"], settings["data_prior"]
    nig = nig_prior_p(p, g["mu0"], g["precision"], g["a0"], g["b0"])
    return nig, NIWPriorP.isotropic(p, d["m0"], d["kappa"], d["psi"], d["nu"])


def _to_original(pooled: Pooled, scaling: UnitScaling, chains: int, iid: bool) -> Pooled:
    """The pooled draws in the data's units, R-hat and ESS recomputed there (the intercept is a
    combination of the unit-scale coefficients)."""
    draws = scaling.to_original(pooled.draws)
    if iid:
        return dataclasses.replace(pooled, draws=draws)
    stacked = draws.reshape(chains, -1, draws.shape[1])
    return dataclasses.replace(pooled, draws=draws, rhat=split_rhat(stacked), ess=bulk_ess(stacked))


def trial(
    X,
    y,
    scaling: UnitScaling,
    epsilon: float,
    settings: dict,
    stream: Stream,
    *,
    accuracy: bool,
    level: float,
    mmd_draws: int,
    health: dict,
) -> tuple[dict, Reference | None]:
    """One release of the unit-scale records (X, y) at ``epsilon`` and every method on it:
    (per-method records, the reference or None). Non-Private runs first: its posterior mean and
    sd are what the others are compared with (kept in memory only)."""
    p = X.shape[1]
    nig, niw = priors(settings, p)
    # the records lie in [-1, 1] (clamped to their bounds, then rescaled), so the thesis's
    # sensitivity holds and the release is epsilon-DP as it is; ``clamp=False`` tells the
    # methods to model the records as Gaussian without clamping, the model Non-Private fits
    # (docs/deviations.md, "Your own data")
    if np.abs(X).max() > 1.0 or np.abs(y).max() > 1.0:
        raise ValueError("records must be clamped to their bounds before release")
    release = release_statistics_p(stream("release"), X, y, epsilon, clamp=False)
    model = nig_methods.MODEL_P
    pooled = {}
    for method in settings["methods"]:
        spec = nig_chain_spec(method, settings, release.n)
        run = nig_methods.pooled_chain(spec, release, nig, niw, stream, model)
        iid = table_entry(method).iid
        pooled[method] = _to_original(run, scaling, spec["chains"], iid)
    exact = pooled["non_private"].draws
    np_mean, np_sd = exact.mean(axis=0), exact.std(axis=0, ddof=1)
    reference = None
    if accuracy:
        ref = regression_reference(release, nig, niw, settings["reference"], stream, health, model)
        ref = _to_original(ref, scaling, settings["reference"]["chains"], False)
        reference = Reference.of_pooled(ref, mmd_draws)
    records = {}
    for method, run in pooled.items():
        rec = method_record(run, np_mean, level, reference, mmd_draws)
        rec["np_err"] = np.abs(run.draws.mean(axis=0) - np_mean) / np_sd
        rec["sd_ratio"] = run.draws.std(axis=0, ddof=1) / np_sd
        records[method] = rec
    return records, reference


def run_chunk(
    input,
    output,
    *,
    seed,
    dataset,
    entry,
    epsilon,
    replicates,
    accuracy_trials,
    credible_level,
    mmd_draws,
    settings,
    health,
):
    """Rule step: trials ``replicates`` = [start, stop) of data set ``dataset`` (its config
    ``entry``) at ``epsilon``; ``health``: the diagnostics the reference must pass before it
    stops growing."""
    epsilon, seed = float(epsilon), int(seed)
    start, stop = (int(v) for v in replicates)
    spec = spec_from_config(dataset, entry)
    scaling = UnitScaling.of(spec)
    X, y = scaling.to_unit(load(spec))
    methods = list(settings["methods"])
    health = {k: float(health[k]) for k in ("max_rhat", "min_ess")}
    records, references = [], []
    for rep in range(start, stop):
        rec, reference = trial(
            X,
            y,
            scaling,
            epsilon,
            settings,
            lambda stage, rep=rep: rng_for(seed, STUDY, experiment(dataset, epsilon), rep, stage),
            accuracy=rep < int(accuracy_trials),
            level=float(credible_level),
            mmd_draws=int(mmd_draws),
            health=health,
        )
        records.append(rec)
        references.append(reference)
        # the private methods only: Non-Private's draws come from the confidential records
        worst = max(float(rec[m]["rhat"].max()) for m in methods if m != "non_private")
        log.info(
            "%s eps=%s trial %d done (largest R-hat over the private methods %.3f)",
            dataset,
            fmt_eps(epsilon),
            rep,
            worst,
        )

    keys = ("cover", "np_err", "sd_ratio", "rhat", "ess", "cpu")
    save_npz(
        output.runs,
        dataset=np.array(dataset),
        epsilon=np.float64(epsilon),
        note=np.array(FROM_NON_PRIVATE.replace("np_coverage", "cover")),
        **chunk_arrays(range(start, stop), methods, records, references, keys),
    )
