"""Fig 3.1's rate claims, judged where Proposition 3 predicts them.

Proposition 3 (Eq. 3.4) gives the MSE of the noisy pseudo-marginals y/N as a sampling term s/N
plus a privacy term 2|C|^2/(N^2 eps^2); a learned model's MSE follows it only below the bounded
MSE every tuned fit attains (the uniform model's). :func:`prop3_range` derives the N range where
one term dominates and the bound is far, and :func:`fig3_1_claims` judges naive MLE's slope there
(docs/deviations.md, "Ch. 3: Fig 3.1's slopes, where Proposition 3 predicts them").
"""

from __future__ import annotations

import math

import numpy as np

from ...grid import fmt_eps
from ..scorecard import Claim
from .grid import ch3_cell_name
from .summarise import cell_array, mean_se

__all__ = ["DOMINANCE", "MIN_SLOPE_POINTS", "slope", "prop3_range", "fig3_1_claims"]

_DEV_SLOPES = "ch-3-fig-31s-slopes-where-proposition-3-predicts-them"
SLOPE_TOLERANCE = 0.3  # our reading of "slope -1 / -2" on a log-log plot
# Fig 3.1's slope is judged where one term of Eq. 3.4 is at least DOMINANCE times the other (the
# local slope of Eq. 3.4 is then within 1 / (DOMINANCE + 1) = 0.09 of the target) and Eq. 3.4 is
# at most 1 / DOMINANCE of the uniform model's MSE (the bound every tuned fit attains)
DOMINANCE = 10.0
MIN_SLOPE_POINTS = 3  # grid points a slope verdict needs (two give only a secant)


def slope(ns, values) -> float:
    """Least-squares slope of log(values) on log(ns)."""
    return float(np.polyfit(np.log(np.asarray(ns, float)), np.log(np.asarray(values, float)), 1)[0])


def slope_se(ns, values, ses) -> float:
    """Monte Carlo standard error of :func:`slope` from the standard errors of the means
    ``values`` (delta method: sd of log(mean) ~ se / mean; the slope is linear in the logs)."""
    x = np.log(np.asarray(ns, float))
    w = (x - x.mean()) / np.sum((x - x.mean()) ** 2)
    rel = np.asarray(ses, float) / np.asarray(values, float)
    return float(np.sqrt(np.sum(w**2 * rel**2)))


def prop3_range(
    regime, epsilon, cliques, sampling_variance, bounded_mse, dominance=DOMINANCE
) -> tuple[float, float]:
    """The N range (lo, hi) where Proposition 3's Eq. 3.4,
    MSE(N) = s / N + 2 |C|^2 / (N^2 eps^2) (s: mu (1 - mu) averaged over the edge cells),
    is in one regime and below the bounded MSE of a learned model:

    - ``"privacy"`` (slope -2): 2|C|^2 / (N^2 eps^2) >= dominance x s / N, i.e.
      N <= 2|C|^2 / (dominance s eps^2);
    - ``"sampling"`` (slope -1): s / N >= dominance x 2|C|^2 / (N^2 eps^2), i.e.
      N >= dominance 2|C|^2 / (s eps^2);

    and in both MSE(N) <= bounded_mse / dominance (the uniform model's MSE bounds what a tuned fit
    of any lambda attains, so above it the fit's MSE is flat, not Eq. 3.4): with a = 2|C|^2/eps^2
    the root of a x^2 + s x = bounded_mse / dominance in x = 1 / N gives the lower end. lo > hi
    when the range is empty."""
    a = 2.0 * float(cliques) ** 2 / float(epsilon) ** 2
    s, cap = float(sampling_variance), float(bounded_mse) / float(dominance)
    x = (-s + math.sqrt(s * s + 4.0 * a * cap)) / (2.0 * a)
    lo, hi = 1.0 / x, math.inf
    if regime == "privacy":
        hi = a / (float(dominance) * s)
    elif regime == "sampling":
        lo = max(lo, float(dominance) * a / s)
    else:
        raise ValueError(f"regime must be 'privacy' or 'sampling', got {regime!r}")
    return lo, hi


def _mean_se(d, figure, cell, name) -> tuple[float, float]:
    mean, se, k = mean_se(cell_array(d, figure, cell, name))
    return mean, se if k > 1 else float("nan")


def fig3_1_claims(d, s, at) -> list[Claim]:
    """Fig 3.1's slopes, judged where Eq. 3.4 predicts them (:func:`prop3_range`): the range is
    derived from the chain's own edge marginals (s), its |C| and the uniform model's MSE, which
    the cell files carry."""
    ns = sorted(int(n) for n in s["n_grid"])
    trials = int(s.get("trials", 25))
    out = []
    for eps, target, regime, label in (
        (max(s["epsilons"]), -1.0, "sampling", "largest"),
        (min(s["epsilons"]), -2.0, "privacy", "smallest"),
    ):
        cells = [ch3_cell_name("fig3_1", n=n, epsilon=eps) for n in ns]
        stats = [_mean_se(d, "fig3_1", c, "naive_mle_mse") for c in cells]
        mse = [m for m, _ in stats]
        first = cells[0]
        cliques = float(np.ravel(cell_array(d, "fig3_1", first, "cliques"))[0])
        svar = float(np.ravel(cell_array(d, "fig3_1", first, "sampling_variance"))[0])
        bound = float(np.ravel(cell_array(d, "fig3_1", first, "uniform_mse"))[0])
        if not all(np.isfinite([cliques, svar, bound])):
            out.append(
                Claim(
                    "fig3_1",
                    f"MSE slope {target:g} at eps {fmt_eps(eps)}",
                    f"slope {target:g}",
                    "no cell data",
                    "",
                    None,
                    _DEV_SLOPES,
                    at,
                    headline=True,
                )
            )
            continue
        lo, hi = prop3_range(regime, eps, cliques, svar, bound)
        lo_bound = prop3_range("privacy", eps, cliques, svar, bound)[0]  # the bound's end alone
        inside = [i for i, n in enumerate(ns) if lo <= n <= hi]
        pts = [ns[i] for i in inside]
        ok = [i for i in inside if np.isfinite(mse[i]) and mse[i] > 0]
        xs, ys = [ns[i] for i in ok], [mse[i] for i in ok]
        k, k_se = (
            (slope(xs, ys), slope_se(xs, ys, [stats[i][1] for i in ok]))
            if len(ok) >= 2
            else (float("nan"), float("nan"))
        )
        full = slope(ns, mse) if all(np.isfinite(mse)) and min(mse) > 0 and len(ns) > 1 else np.nan
        a = 2 * cliques**2 / eps**2
        if regime == "privacy":
            why = (
                f"2|C|^2/(N^2 eps^2) >= {DOMINANCE:g} x s/N for N <= 2|C|^2/({DOMINANCE:g} s "
                f"eps^2) = {hi:.3g}"
            )
        else:
            why = (
                f"s/N >= {DOMINANCE:g} x 2|C|^2/(N^2 eps^2) for N >= {DOMINANCE:g} 2|C|^2/(s "
                f"eps^2) = {DOMINANCE * a / svar:.3g}"
            )
        few = len(ok) < MIN_SLOPE_POINTS
        range_txt = f"[{lo:.3g}, {hi:.3g}]" if math.isfinite(hi) else f"[{lo:.3g}, inf)"
        out.append(
            Claim(
                "fig3_1",
                f"MSE of naive MLE's marginals falls with slope {target:g} on the log-log plot at "
                f"the {label} epsilon ({fmt_eps(eps)}), judged where Prop. 3 predicts it: Eq. 3.4 "
                f"MSE = s/N + 2|C|^2/(N^2 eps^2) with |C| = {cliques:g}, s = mean mu(1-mu) = "
                f"{svar:.3g} over the chain's edge cells; {why}; and Eq. 3.4 <= 1/{DOMINANCE:g} of "
                f"the uniform model's MSE {bound:.3g} (the bound a tuned fit attains, where its "
                f"MSE is flat) for N >= {lo_bound:.3g}. Least-squares slope over the grid's N in "
                f"{range_txt} within +-{SLOPE_TOLERANCE} (at least {MIN_SLOPE_POINTS} N values)",
                f"slope {target:g}",
                (
                    f"only {len(ok)} N value(s) of the grid in the range ({pts}): no verdict"
                    if few
                    else f"{k:.2f} over N = {', '.join(f'{n:g}' for n in pts)}"
                )
                + f" (whole grid {ns[0]:g}..{ns[-1]:g}: {full:.2f})",
                f"slope SE {k_se:.2g} ({len(ok)} N values x {trials} trials)",
                None if few else bool(abs(k - target) <= SLOPE_TOLERANCE),
                _DEV_SLOPES,
                at,
                headline=True,
            )
        )
    return out
