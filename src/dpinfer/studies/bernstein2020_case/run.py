"""Case-study compute steps (bernstein2020, Sec. 5.4): the synthetic state, the Non-Private and
OLS reference of every kept tract, and the private methods on one batch of tracts at one epsilon.

Random streams (``rng_for``, study "bernstein2020"): the state from ("case_state", 0,
"simulate"); the reference of tract t from ("case_reference", t, ...); at epsilon e the release
of tract t from ("case_eps<e>", t, "release"), method m's chain from ("case_eps<e>", t,
"sample_<m>"), its predictive draws from ("case_eps<e>", t, "predict_<m>") and the OI release
from ("case_eps<e>", t, "release_oi"). A tract's numbers so depend on its index only, never on
the batch it falls in, and adding a method or an epsilon changes no other number.

Every method runs through the model's method table (:mod:`dpinfer.studies.nig_methods`). From
the posterior draws (theta_0 slope, theta_1 intercept, sigma^2) the predictive distribution of
kir at pir = x0 is one draw theta_0 x0 + theta_1 + sigma e per posterior draw; its mean is the
point estimate (the thesis), its central quantiles the intervals.
"""

from __future__ import annotations

import logging

import numpy as np

from ...diagnostics import central_interval
from ...grid import fmt_eps
from ...io import load_npz, save_npz
from ...models.linreg_nig import NIGPrior, NIWPrior, release_statistics
from ...seeding import rng_for
from ..nig_methods import run_chain
from .oi import local_sensitivity, oi_release, ols_prediction
from .tracts import keep_mask, synthetic_state, tract_records

log = logging.getLogger("dpinfer.bernstein2020_case")

STUDY = "bernstein2020"
REFERENCE = {"method": "non_private", "burnin": 0, "chains": 1, "options": {}}

__all__ = ["state", "reference", "run_batch", "predictive", "data_share"]


def state(input, output, *, seed: int, tracts: dict, drop: list) -> None:
    """Rule step: generate the synthetic state and mark the tracts the thesis's filter keeps."""
    st = synthetic_state(rng_for(seed, STUDY, "case_state", 0, "simulate"), tracts)
    keep = keep_mask(st, drop[0], drop[1])
    log.info(
        "%d tracts, %d dropped by the median-kir filter, %d kept; sizes %d-%d",
        keep.size,
        int((~keep).sum()),
        int(keep.sum()),
        st["sizes"].min(),
        st["sizes"].max(),
    )
    save_npz(output.state, keep=keep, **st)


def predictive(
    rng: np.random.Generator, draws: np.ndarray, x0: float, levels
) -> tuple[float, np.ndarray, np.ndarray]:
    """Point estimate (predictive mean) and central intervals (lo, hi per level) of kir at x0."""
    pred = (
        draws[:, 0] * x0 + draws[:, 1] + np.sqrt(draws[:, 2]) * rng.standard_normal(draws.shape[0])
    )
    ends = np.array([np.ravel(central_interval(pred, lev)) for lev in levels])
    return float(pred.mean()), ends[:, 0], ends[:, 1]


def data_share(lo, hi, x, y, x0: float, window: float) -> np.ndarray:
    """Per level, the share of the tract's records with |pir - x0| <= window whose kir lies in
    the interval [lo, hi] (NaN when no record is that close to x0; summaries skip those)."""
    near = np.abs(x - x0) <= window
    if not near.any():
        return np.full(len(lo), np.nan)
    yy = y[near]
    return np.array([np.mean((yy >= a) & (yy <= b)) for a, b in zip(lo, hi)])


def _kept_tracts(st: dict, tracts, every: int = 1) -> np.ndarray:
    """Indices of the kept tracts in ``tracts = [start, stop)`` (all kept tracts if None); with
    ``every`` = k only every k-th kept tract of the state, counted from the first."""
    idx = np.flatnonzero(st["keep"])[:: int(every)]
    if tracts is None:
        return idx
    return idx[(idx >= tracts[0]) & (idx < tracts[1])]


def reference(
    input,
    output,
    *,
    seed: int,
    prior: dict,
    data_prior: dict,
    conjugate_draws: int,
    bounds,
    pir: float,
    levels,
    window: float,
    oi_grid: int,
) -> None:
    """Rule step: Non-Private predictive at pir = x0 for every kept tract (the thesis's yardstick
    for every private method), the tract's OLS prediction at x0 and its local sensitivity, and
    chi = max_t n_t Delta_t of the OI baseline (:mod:`.oi`)."""
    st = load_npz(input.state)
    nig, niw = NIGPrior.from_config(prior), NIWPrior.from_config(data_prior)
    kept = _kept_tracts(st, None)
    spec = dict(REFERENCE, keep=int(conjugate_draws))
    T, L = kept.size, len(levels)
    out = {
        "point": np.empty(T),
        "lo": np.empty((T, L)),
        "hi": np.empty((T, L)),
        "share": np.empty((T, L)),
        "ols": np.empty(T),
        "sensitivity": np.empty(T),
    }
    for j, t in enumerate(kept):
        x, y = tract_records(st, t)
        stream = lambda stage, t=t: rng_for(seed, STUDY, "case_reference", int(t), stage)  # noqa: E731
        # Non-Private reads the confidential statistics only; the release is never used
        release = release_statistics(stream("release"), x, y, 1.0, bounds)
        draws = run_chain(spec, release, nig, niw, stream)[0]
        out["point"][j], out["lo"][j], out["hi"][j] = predictive(
            stream("predict_non_private"), draws, pir, levels
        )
        out["share"][j] = data_share(out["lo"][j], out["hi"][j], x, y, pir, window)
        out["ols"][j] = ols_prediction(x, y, pir)
        out["sensitivity"][j] = local_sensitivity(x, y, pir, oi_grid)
        if j % 500 == 0:
            log.info("reference: tract %d of %d", j + 1, T)
    sizes = st["sizes"][kept]
    chi = float(np.max(sizes * out["sensitivity"]))
    log.info("OI: chi = max n_t Delta_t = %.4g", chi)
    save_npz(
        output.reference,
        tracts=kept,
        sizes=sizes,
        chi=np.array(chi),
        levels=np.asarray(levels, float),
        **out,
    )


def run_batch(
    input,
    output,
    *,
    seed: int,
    epsilon: float,
    tracts,
    chains,
    prior: dict,
    data_prior: dict,
    bounds,
    pir: float,
    levels,
    window: float,
    every: int = 1,
) -> None:
    """Rule step: the private methods of ``chains`` (one chain spec each) and the OI release at
    ``epsilon`` on the kept tracts of ``tracts = [start, stop)`` (with ``every`` = k, every k-th
    kept tract of the state: the converged companion's subset); per (method, tract) the
    predictive point estimate and intervals at pir = x0, the data share of the intervals, R-hat
    and bulk ESS per parameter, and CPU seconds."""
    st = load_npz(input.state)
    ref = load_npz(input.reference)
    chi = float(ref["chi"])
    nig, niw = NIGPrior.from_config(prior), NIWPrior.from_config(data_prior)
    kept = _kept_tracts(st, tracts, every)
    methods = [spec["method"] for spec in chains]
    M, T, L = len(methods), kept.size, len(levels)
    point, cpu = np.empty((M, T)), np.empty((M, T))
    lo, hi, share = np.empty((M, T, L)), np.empty((M, T, L)), np.empty((M, T, L))
    rhat, ess = np.empty((M, T, 3)), np.empty((M, T, 3))
    iterations = np.zeros(M, dtype=np.int64)
    oi = np.empty(T)
    exp = f"case_eps{fmt_eps(epsilon)}"
    ols = dict(zip(ref["tracts"].tolist(), ref["ols"].tolist()))
    for j, t in enumerate(kept):
        x, y = tract_records(st, t)
        stream = lambda stage, t=t: rng_for(seed, STUDY, exp, int(t), stage)  # noqa: E731
        release = release_statistics(stream("release"), x, y, epsilon, bounds)
        for i, spec in enumerate(chains):
            draws, rhat[i, j], ess[i, j], cpu[i, j], its = run_chain(
                spec, release, nig, niw, stream
            )
            iterations[i] += its
            point[i, j], lo[i, j], hi[i, j] = predictive(
                stream(f"predict_{spec['method']}"), draws, pir, levels
            )
            share[i, j] = data_share(lo[i, j], hi[i, j], x, y, pir, window)
        oi[j] = oi_release(stream("release_oi"), ols[int(t)], x.size, chi, epsilon)
    log.info("epsilon %s: %d tracts in [%d, %d) done", fmt_eps(epsilon), T, tracts[0], tracts[1])
    save_npz(
        output.batch,
        methods=np.array(methods),
        tracts=kept,
        eps=np.array(float(epsilon)),
        point=point,
        lo=lo,
        hi=hi,
        share=share,
        rhat=rhat,
        ess=ess,
        cpu=cpu,
        iterations=iterations,
        oi=oi,
    )
