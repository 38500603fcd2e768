"""A synthetic state of census tracts for the social-mobility case study (bernstein2020, Sec. 5.4).

The Opportunity Insights tract data the thesis used (Illinois, 3,108 tracts) are not public, so
the study generates a state that matches what the thesis states about them: tracts of 20 to 446
individuals with a long-tailed size distribution, parental income rank ``pir`` and adult income
rank ``kir`` in [0, 1], one regression line per tract, and the thesis's filter (drop tracts whose
median ``kir`` is below 0.1 or above 0.9; the thesis drops 363 and keeps 2,745).

Generator (every number is a key of ``bernstein2020.case_study.tracts``), per tract t:

- size n_t = min_size + round(LogNormal(log size_scale, size_sigma)), redrawn above max_size;
- the tract's mean parental rank m_t ~ Beta(2, 2), and pir ~ Beta(c m_t, c (1 - m_t)) with
  c = ``pir_concentration`` (a wide spread of parental income in every tract, Fig 5.10);
- the tract's outcome at pir = 0.25, L_t ~ N(level_mean + level_gradient (m_t - 1/2), level_sd^2),
  and its slope b_t ~ N(slope_mean, slope_sd^2): kir = L_t + b_t (pir - 0.25) + e, e ~ N(0,
  s_t^2) with s_t ~ LogNormal(log noise_sd, noise_sigma), clipped to [0, 1].

The within-tract noise is small (sd about 0.025) because the thesis's model prior,
NIG([.1, .5], diag(.001, .001), 1000, .5), puts sigma^2 near 0.5/999 (sd 0.022) with the weight
of 2,000 records, and the thesis says this prior "reasonably matches" the tract data and that
Non-Private's 90% predictive intervals span the full height of a tract's scatter
(docs/deviations.md, "Case study: synthetic tract data").
"""

from __future__ import annotations

import numpy as np

__all__ = ["synthetic_state", "tract_records", "keep_mask"]


def _sizes(rng: np.random.Generator, count: int, cfg: dict) -> np.ndarray:
    lo, hi = int(cfg["min_size"]), int(cfg["max_size"])
    sizes = np.empty(count, dtype=np.int64)
    todo = np.arange(count)
    while todo.size:
        draw = lo + np.rint(
            rng.lognormal(np.log(cfg["size_scale"]), cfg["size_sigma"], todo.size)
        ).astype(np.int64)
        ok = draw <= hi
        sizes[todo[ok]] = draw[ok]
        todo = todo[~ok]
    return sizes


def synthetic_state(rng: np.random.Generator, cfg: dict) -> dict:
    """Every tract of the state: ``sizes`` (T), ``offsets`` (T + 1; tract t's records are
    ``offsets[t]:offsets[t+1]``), ``pir`` and ``kir`` (all records), and the generating
    ``level`` (kir at pir = 0.25 without noise), ``slope`` and ``noise_sd`` per tract."""
    count = int(cfg["count"])
    sizes = _sizes(rng, count, cfg)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    mean_pir = rng.beta(2.0, 2.0, count)
    level = rng.normal(
        cfg["level_mean"] + cfg["level_gradient"] * (mean_pir - 0.5), cfg["level_sd"]
    )
    slope = rng.normal(cfg["slope_mean"], cfg["slope_sd"], count)
    noise_sd = rng.lognormal(np.log(cfg["noise_sd"]), cfg["noise_sigma"], count)
    c = float(cfg["pir_concentration"])
    per_record = np.repeat(np.arange(count), sizes)
    pir = rng.beta(c * mean_pir[per_record], c * (1.0 - mean_pir[per_record]))
    kir = (
        level[per_record]
        + slope[per_record] * (pir - 0.25)
        + noise_sd[per_record] * rng.standard_normal(pir.size)
    )
    return {
        "sizes": sizes,
        "offsets": offsets,
        "pir": pir,
        "kir": np.clip(kir, 0.0, 1.0),
        "level": level,
        "slope": slope,
        "noise_sd": noise_sd,
    }


def tract_records(state: dict, t: int) -> tuple[np.ndarray, np.ndarray]:
    """(pir, kir) of tract t."""
    a, b = int(state["offsets"][t]), int(state["offsets"][t + 1])
    return state["pir"][a:b], state["kir"][a:b]


def keep_mask(state: dict, low: float, high: float) -> np.ndarray:
    """The thesis's filter: keep a tract iff the median of its kir lies in [low, high]."""
    med = np.array([np.median(tract_records(state, t)[1]) for t in range(len(state["sizes"]))])
    return (med >= low) & (med <= high)
