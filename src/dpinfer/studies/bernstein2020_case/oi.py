"""The OI baseline of the case study (Chetty & Friedman 2019, as the thesis describes it):
ordinary least squares per tract, then one noisy point estimate of kir at pir = x0.

The thesis says only that OI "tightly bounds local sensitivity of the released coefficient by
using state-wide statistics" and is "not fully differentially private". We implement Chetty &
Friedman's maximum-observed-sensitivity rule:

- Delta_t, the *local* sensitivity of tract t's prediction yhat_t(x0) = a_t + b_t x0: the largest
  change of yhat_t(x0) when one of the tract's records is replaced by any (x', y') in [0, 1]^2
  (n_t is public, as in the Bayesian methods). yhat is linear in y', so y' in {0, 1}; over x' it
  is a smooth ratio of quadratics, maximised on a grid of ``grid`` points (``_local_sensitivity``;
  tests compare it with a finer brute force);
- chi = max_t n_t Delta_t over the state's kept tracts (local sensitivity falls like 1/n_t);
- release yhat_t(x0) + Laplace(chi / (n_t epsilon));
- score the release clamped to [0, 1] (:func:`oi_estimate`): kir lies in [0, 1], so clamping is
  free post-processing that never moves the estimate further from any value in [0, 1] (the
  Non-Private estimate it is scored against included).

Why this bound is valid, and for what: chi / n_t >= Delta_t for every tract, so each tract's
noise is calibrated to at least its own local sensitivity, and the rule needs only one
state-wide statistic. It is *not* a global sensitivity (a neighbouring state can have a larger
chi, and chi itself is released without noise), so OI is not epsilon-DP in the worst case, which
is the thesis's own caveat (docs/deviations.md, "Case study: the OI baseline").
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...mechanisms import Laplace

__all__ = ["ols_prediction", "local_sensitivity", "oi_release", "oi_estimate"]


def ols_prediction(x, y, x0: float) -> float:
    """The OLS fit of y on [1, x] (statsmodels), evaluated at x0."""
    import statsmodels.api as sm

    fit = sm.OLS(
        np.asarray(y, float), sm.add_constant(np.asarray(x, float), has_constant="add")
    ).fit()
    return float(fit.params[0] + fit.params[1] * x0)


@njit(cache=True)
def _prediction(n, sx, sxx, sy, sxy, x0):
    """OLS prediction at x0 from the sums of one data set (inf if the design is singular)."""
    den = n * sxx - sx * sx
    if not den > 0.0:
        return math.inf
    slope = (n * sxy - sx * sy) / den
    return sy / n + slope * (x0 - sx / n)


@njit(cache=True)
def _local_sensitivity(x, y, x0, grid):
    """max over records k, x' in ``grid`` and y' in {0, 1} of the change of the OLS prediction
    at x0 when record k is replaced by (x', y')."""
    n = x.shape[0]
    sx = 0.0
    sxx = 0.0
    sy = 0.0
    sxy = 0.0
    for i in range(n):
        sx += x[i]
        sxx += x[i] * x[i]
        sy += y[i]
        sxy += x[i] * y[i]
    base = _prediction(n, sx, sxx, sy, sxy, x0)
    worst = 0.0
    for k in range(n):
        ax = sx - x[k]
        axx = sxx - x[k] * x[k]
        ay = sy - y[k]
        axy = sxy - x[k] * y[k]
        for g in range(grid.shape[0]):
            xp = grid[g]
            for yp in (0.0, 1.0):
                d = abs(_prediction(n, ax + xp, axx + xp * xp, ay + yp, axy + xp * yp, x0) - base)
                if d > worst:
                    worst = d
    return worst


def local_sensitivity(x, y, x0: float, grid_points: int = 401) -> float:
    """Delta of one tract (module docstring): records replaced within [0, 1]^2."""
    return float(
        _local_sensitivity(
            np.asarray(x, float),
            np.asarray(y, float),
            float(x0),
            np.linspace(0.0, 1.0, int(grid_points)),
        )
    )


def oi_release(
    rng: np.random.Generator, prediction: float, n: int, chi: float, epsilon: float
) -> float:
    """One noisy OI point estimate: prediction + Laplace(chi / (n epsilon))."""
    return float(Laplace.calibrated(epsilon, chi / n).release(rng, prediction))


def oi_estimate(release):
    """OI's point estimate from its releases: each clamped to [0, 1], the range of kir
    (post-processing, so no privacy cost)."""
    return np.clip(np.asarray(release, float), 0.0, 1.0)
