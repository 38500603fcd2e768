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

__all__ = ["state", "reference", "run_batch", "tract_runs", "predictive", "data_share"]


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


def tract_runs(
    st, kept, chains, epsilon, seed, exp, *, prior, data_prior, bounds, pir, levels, window
):
    """Per chain spec of ``chains`` (axis 0) and tract of ``kept`` (axis 1): on the tract's release
    at ``epsilon``, the chain's predictive point estimate and intervals at pir = x0, the data share
    of the intervals, R-hat and bulk ESS per parameter and CPU seconds; and ``iterations`` per
    spec. Tract t draws from the streams ("<exp>", t, ...) of the module docstring."""
    nig, niw = NIGPrior.from_config(prior), NIWPrior.from_config(data_prior)
    M, T, L = len(chains), kept.size, len(levels)
    tail = dict(point=(), lo=(L,), hi=(L,), share=(L,), rhat=(3,), ess=(3,), cpu=())
    out = {k: np.empty((M, T, *shape)) for k, shape in tail.items()}
    out["iterations"] = np.zeros(M, dtype=np.int64)
    for j, t in enumerate(kept):
        x, y = tract_records(st, t)
        stream = lambda stage, t=t: rng_for(seed, STUDY, exp, int(t), stage)  # noqa: E731
        release = release_statistics(stream("release"), x, y, epsilon, bounds)
        for i, spec in enumerate(chains):
            draws, out["rhat"][i, j], out["ess"][i, j], out["cpu"][i, j], its = run_chain(
                spec, release, nig, niw, stream
            )
            out["iterations"][i] += its
            point, lo, hi = predictive(stream(f"predict_{spec['method']}"), draws, pir, levels)
            out["point"][i, j], out["lo"][i, j], out["hi"][i, j] = point, lo, hi
            out["share"][i, j] = data_share(lo, hi, x, y, pir, window)
        if j % 500 == 0:
            log.info("%s: tract %d of %d", exp, j + 1, T)
    return out


def reference(input, output, *, seed: int, conjugate_draws: int, oi_grid: int, **model) -> None:
    """Rule step: Non-Private predictive at pir = x0 for every kept tract (the thesis's yardstick
    for every private method; it reads the confidential statistics only, its release at epsilon
    1 is never used), the tract's OLS prediction at x0 and its local sensitivity, and
    chi = max_t n_t Delta_t of the OI baseline (:mod:`.oi`). ``model``: the keywords of
    :func:`tract_runs`."""
    st = load_npz(input.state)
    kept = _kept_tracts(st, None)
    spec = dict(REFERENCE, keep=int(conjugate_draws))
    runs = tract_runs(st, kept, [spec], 1.0, seed, "case_reference", **model)
    records, pir = [tract_records(st, t) for t in kept], model["pir"]
    sensitivity = np.array([local_sensitivity(x, y, pir, oi_grid) for x, y in records])
    sizes = st["sizes"][kept]
    chi = float(np.max(sizes * sensitivity))
    log.info("OI: chi = max n_t Delta_t = %.4g", chi)
    save_npz(
        output.reference,
        tracts=kept,
        sizes=sizes,
        chi=np.array(chi),
        levels=np.asarray(model["levels"], float),
        **{k: runs[k][0] for k in ("point", "lo", "hi", "share")},
        ols=np.array([ols_prediction(x, y, pir) for x, y in records]),
        sensitivity=sensitivity,
    )


def run_batch(input, output, *, seed: int, epsilon: float, tracts, chains, every=1, **model):
    """Rule step: the private methods of ``chains`` (one chain spec each; ``model``: the keywords
    of :func:`tract_runs`) and the OI release at ``epsilon`` on the kept tracts of
    ``tracts = [start, stop)`` (with ``every`` = k, every k-th kept tract of the state: the
    converged companion's subset)."""
    st, ref = load_npz(input.state), load_npz(input.reference)
    kept = _kept_tracts(st, tracts, every)
    exp = f"case_eps{fmt_eps(epsilon)}"
    runs = tract_runs(st, kept, chains, epsilon, seed, exp, **model)
    ols = dict(zip(ref["tracts"].tolist(), ref["ols"].tolist()))
    oi = [
        oi_release(
            rng_for(seed, STUDY, exp, int(t), "release_oi"),
            ols[int(t)],
            int(st["sizes"][t]),
            float(ref["chi"]),
            epsilon,
        )
        for t in kept
    ]
    log.info("epsilon %s: %d tracts in [%d, %d) done", fmt_eps(epsilon), kept.size, *tracts)
    save_npz(
        output.batch,
        methods=np.array([spec["method"] for spec in chains]),
        tracts=kept,
        eps=np.array(float(epsilon)),
        **runs,
        oi=np.array(oi),
    )
