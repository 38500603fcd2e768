"""bernstein2020 Chapter 3, Fig 3.6: the synthetic mobility data job and its cells.

``wifi_data`` generates the data set once (:mod:`.wifi`; no all-day-absent type, since a
(user, day) pair of a wifi log exists only if the user connected that day), splits it 75/25 and
stores the training records in a seeded random order, so a training size s is the first s rows.
``wifi_cell`` fits one (training size, epsilon) cell: per release, the Laplace(|C|/eps) release
of the 1/K-weighted edge tables, naive MLE and CGM-EM (exact chain inference) with N estimated
from the noisy tables, and PSGD on the unweighted training records; a reference cell fits the
non-private MLE on the weighted tables. The score is the holdout log-likelihood per test
individual under the test set's empirical distribution (unweighted: the weights are the
release's pre-processing, not part of the evaluation).
"""

from __future__ import annotations

import logging

import numpy as np

from ...estimators import estimator
from ...io import load_npz, save_npz
from ...models.pairwise_mrf import tables_from_records
from ...seeding import rng_for
from . import wifi
from .problems import STUDY, release
from .run import Record, Tuned, cgm_fit, lambda_grid, psgd_fit, tune_psgd

__all__ = ["generator", "wifi_data", "wifi_cell"]

log = logging.getLogger("dpinfer.bernstein2020_ch3")


def generator(locations: int) -> wifi.WifiGenerator:
    return wifi.WifiGenerator(n_locations=int(locations), type_probs=(0.0, 0.5, 0.5))


def wifi_data(input, output, *, seed, individuals, train_fraction, locations):
    """Rule step: generate, split and describe the synthetic mobility data."""
    gen = generator(locations)
    records = wifi.generate(
        gen, int(individuals), rng_for(int(seed), STUDY, "ch3_wifi", 0, "generate")
    )
    train, test = wifi.split(
        records.shape[0], float(train_fraction), rng_for(int(seed), STUDY, "ch3_wifi", 0, "split")
    )
    order = rng_for(int(seed), STUDY, "ch3_wifi", 0, "train_order").permutation(train)
    model = wifi.wifi_model(gen)
    test_tables = np.asarray(tables_from_records(model, records[test]), dtype=float)
    desc = wifi.summary(records)
    log.info("wifi data: %s", desc)
    save_npz(
        output.data,
        train_records=records[order],
        test_tables=test_tables,
        n_test=np.int64(test.size),
        n_train=np.int64(train.size),
        locations=np.int64(locations),
        **{k: np.asarray(v) for k, v in desc.items()},
    )


def wifi_cell(input, output, *, seed, cell, fit):
    """Rule step: one (training size, epsilon) cell of Fig 3.6
    (epsilon None: the non-private reference)."""
    d = load_npz(input.data)
    gen = generator(int(d["locations"]))
    model = wifi.wifi_model(gen)
    size, eps = int(cell["train_size"]), cell.get("epsilon")
    train = d["train_records"][:size]
    w = wifi.weights(train)
    tables = wifi.weighted_tables(model, train, w)
    n_test, test_tables = float(d["n_test"]), d["test_tables"]
    lams = fit["lambdas"]

    def score(theta):
        return wifi.holdout_loglik(model, theta, test_tables, n_test)

    R = 1 if eps is None else int(fit["releases"])
    methods = ["non_private"] if eps is None else ["naive_mle", "cgm", "psgd"]
    # the kl and mse columns stay NaN: the score here is the holdout log-likelihood
    rec = Record(methods, R, size, lambda theta: {"loglik": score(theta)}, ("kl", "mse", "loglik"))
    naive_tuning = Tuned(lambda_grid(lams["naive_mle"]), score)
    cgm_tuning = Tuned(lambda_grid(lams["cgm"]), score)  # the same rule and score as naive MLE's
    experiment = f"ch3_wifi_size{size}"
    setting, grid_scores = None, np.array([])
    if eps is None:
        fit = estimator("non_private")(model, tables, float(w.sum()), float(lams["non_private"]))
        rec.put("non_private", 0, fit)
    else:
        eps = float(eps)
        psgd = fit["psgd"]
        setting, grid_scores = tune_psgd(
            model,
            train,
            eps,
            psgd,
            score,
            lambda g: rng_for(int(seed), STUDY, experiment, g, "psgd_tuning"),
        )
        for r in range(R):
            y, mech = release(int(seed), f"wifi_size{size}", size, eps, r, tables, model.n_cliques)
            n_hat = wifi.population_size(y)
            naive = naive_tuning.fit(
                lambda v: estimator("naive_mle")(model, y, n_hat, v, project=True)
            )
            rec.put("naive_mle", r, naive)

            def cgm_at(v, y=y, n_hat=n_hat, scale=mech.scale, start=naive.theta):
                return cgm_fit(model, y, n_hat, scale, v, start, fit["cgm"])

            em = cgm_tuning.fit(cgm_at)
            rec.put("cgm", r, em, extra_seconds=naive.seconds, n=n_hat)
            if setting is not None and r < int(psgd["trials"]):
                rng = rng_for(int(seed), STUDY, experiment, r, "psgd")
                rec.put("psgd", r, psgd_fit(model, train, eps, setting, psgd, rng))
    log.info(
        "wifi cell size=%d eps=%s: %s",
        size,
        eps,
        {
            m: np.nanmean(rec.cols[f"{m}_loglik"])
            for m in methods
            if np.isfinite(rec.cols[f"{m}_loglik"]).any()
        },
    )
    save_npz(
        output.cell,
        methods=np.array(methods),
        n=np.int64(size),
        epsilon=np.float64(np.nan if eps is None else eps),
        psgd_scale=np.float64(np.nan if setting is None else setting),
        psgd_tuning_score=grid_scores,
        naive_mle_lambda=np.float64(naive_tuning.lam),
        naive_mle_lambda_grid=np.asarray(naive_tuning.grid, dtype=float),
        naive_mle_tuning_score=np.asarray(naive_tuning.scores, dtype=float),
        cgm_lambda=np.float64(cgm_tuning.lam),
        cgm_lambda_grid=np.asarray(cgm_tuning.grid, dtype=float),
        cgm_tuning_score=np.asarray(cgm_tuning.scores, dtype=float),
        **rec.cols,
    )
