"""Chapter-5 compute steps: simulate, release and sample, one chunk of replicates per job.

Random streams (``rng_for``): "simulate" depends on (n, trial) only, so the epsilon panels share
data sets; "release" on (n, epsilon, trial); each method samples from its own stream
("sample_<method>"), so adding or dropping a method changes no other method's numbers. The
cirrhosis splits depend on the split index only, releases on (epsilon, split).

Every method runs through the model's one method table (:mod:`dpinfer.studies.nig_methods`);
a job's ``chains`` param lists one chain spec per method it runs
(:func:`dpinfer.studies.nig_specs.nig_chain_spec`).
"""

from __future__ import annotations

import csv
import logging
from functools import partial

import numpy as np

from ...diagnostics import MmdReference, central_interval, quantile_of_truth
from ...grid import fmt_eps
from ...io import save_npz
from ...models.linreg_nig import (
    NIGPrior,
    NIWPrior,
    release_statistics,
    simulate_dataset,
)
from ...samplers.pooled import thin
from ...seeding import rng_for
from ..nig_methods import run_chain
from .grid import parse_ch5_setting

log = logging.getLogger("dpinfer.bernstein2020_ch5")

STUDY = "bernstein2020"


# ----------------------------------------------------------------------------- synthetic trials
def run_synthetic(
    input,
    output,
    *,
    seed: int,
    setting: str,
    replicates,
    chains,
    prior: dict,
    data_prior: dict,
    bounds,
    mmd_draws: int,
    mmd_bandwidth: float,
    credible_level: float,
    clamp: bool = False,
) -> None:
    """Trials ``replicates = [start, stop)`` of one (n, epsilon) setting: draw parameters and data
    from the model, release, run every method of ``chains`` and keep per trial the posterior
    quantile of the truth (u), whether the central ``credible_level`` interval covers it, the
    MMD^2 per parameter to Non-Private (first method, thinned to ``mmd_draws``) and CPU seconds.
    ``clamp``: records are clamped to ``bounds`` before release (``release_statistics``)."""
    n, eps = parse_ch5_setting(setting)
    nig, niw = NIGPrior.from_config(prior), NIWPrior.from_config(data_prior)
    methods = [spec["method"] for spec in chains]
    reps = range(*replicates)
    shape = (len(methods), len(reps))
    truth = np.empty((len(reps), 3))
    u = np.empty(shape + (3,))
    cover = np.zeros(shape + (3,), dtype=bool)
    mmd = np.zeros(shape + (3,))
    cpu = np.empty(shape)
    rhat = np.empty(shape + (3,))
    ess = np.empty(shape + (3,))
    iterations = np.zeros(len(methods), dtype=np.int64)
    exp = f"ch5_synthetic_{setting}"
    for j, rep in enumerate(reps):
        sim = simulate_dataset(
            rng_for(seed, STUDY, f"ch5_synthetic_n{n}", rep, "simulate"), n, nig, niw
        )
        release = release_statistics(
            rng_for(seed, STUDY, exp, rep, "release"), sim["x"], sim["y"], eps, bounds, clamp=clamp
        )
        truth[j] = [sim["theta"][0], sim["theta"][1], sim["sigma2"]]
        reference = None
        for i, spec in enumerate(chains):
            method = spec["method"]
            # the streams of trial ``rep`` of ``exp``
            draws, rhat[i, j], ess[i, j], cpu[i, j], iterations[i] = run_chain(
                spec, release, nig, niw, partial(rng_for, seed, STUDY, exp, rep)
            )
            u[i, j] = quantile_of_truth(draws, truth[j])
            lo, hi = central_interval(draws, credible_level)
            cover[i, j] = (lo <= truth[j]) & (truth[j] <= hi)
            if method == "non_private":  # each parameter's reference term once for all methods
                ref = thin(draws, mmd_draws)
                reference = [MmdReference.of(ref[:, p], mmd_bandwidth) for p in range(3)]
            elif reference is not None:
                mine = thin(draws, mmd_draws)
                for p in range(3):
                    mmd[i, j, p] = reference[p].mmd2(mine[:, p])
        log.info("%s trial %d done", setting, rep)
    save_npz(
        output.summary,
        methods=np.array(methods),
        reps=np.array(list(reps)),
        truth=truth,
        u=u,
        cover=cover,
        mmd=mmd,
        cpu=cpu,
        iterations=iterations,
        rhat=rhat,
        ess=ess,
        n=np.array(n),
        eps=np.array(eps),
        credible_level=np.array(float(credible_level)),
    )


# ----------------------------------------------------------------------------- cirrhosis (Fig 5.9)
def load_cirrhosis(path, covariate: str, response: str):
    """Covariate and response columns, min-max scaled to [0, 1] over all rows (Sec. 5.3.3)."""
    with open(path, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    x = np.array([float(r[covariate]) for r in rows])
    y = np.array([float(r[response]) for r in rows])

    def scale(v):
        return (v - v.min()) / (v.max() - v.min())

    return scale(x), scale(y)


def predictive_pit(rng, draws, x_test, y_test) -> np.ndarray:
    """Per test point, the fraction of posterior-predictive draws below the test value (ties
    count half): one predictive draw y ~ N(theta_0 x + theta_1, sigma^2) per posterior draw."""
    pit = np.empty(len(x_test))
    for t, (xs, ys) in enumerate(zip(x_test, y_test)):
        pred = (
            draws[:, 0] * xs
            + draws[:, 1]
            + np.sqrt(draws[:, 2]) * rng.standard_normal(draws.shape[0])
        )
        pit[t] = np.mean(pred < ys) + 0.5 * np.mean(pred == ys)
    return pit


def run_cirrhosis(
    input,
    output,
    *,
    seed: int,
    epsilon: float,
    replicates,
    n_train: int,
    covariate: str,
    response: str,
    chains,
    prior: dict,
    data_prior: dict,
) -> None:
    """Splits ``replicates = [start, stop)`` of the cirrhosis data into n_train training rows and
    test rows, release the training statistics at ``epsilon`` (bounds [0, 1] after scaling) and
    store each method's predictive PIT value of every test point (coverage at any level is
    computed from them in the figure step)."""
    x, y = load_cirrhosis(input.data, covariate, response)
    nig, niw = NIGPrior.from_config(prior), NIWPrior.from_config(data_prior)
    methods = [spec["method"] for spec in chains]
    splits = range(*replicates)
    n_test = x.size - int(n_train)
    pit = np.empty((len(methods), len(splits), n_test))
    rhat = np.empty((len(methods), len(splits), 3))
    ess = np.empty((len(methods), len(splits), 3))
    exp = f"ch5_cirrhosis_eps{fmt_eps(epsilon)}"
    for j, split in enumerate(splits):
        perm = rng_for(seed, STUDY, "ch5_cirrhosis", split, "split").permutation(x.size)
        tr, te = perm[:n_train], perm[n_train:]
        release = release_statistics(
            rng_for(seed, STUDY, exp, split, "release"), x[tr], y[tr], epsilon, (0.0, 1.0)
        )
        for i, spec in enumerate(chains):
            draws, rhat[i, j], ess[i, j], _, _ = run_chain(
                spec, release, nig, niw, partial(rng_for, seed, STUDY, exp, split)
            )
            rng = rng_for(seed, STUDY, exp, split, f"predict_{spec['method']}")
            pit[i, j] = predictive_pit(rng, draws, x[te], y[te])
    save_npz(
        output.summary,
        methods=np.array(methods),
        splits=np.array(list(splits)),
        pit=pit,
        rhat=rhat,
        ess=ess,
        eps=np.array(float(epsilon)),
        n_total=np.array(x.size),
    )
