"""One-posterior sampling (OPS) baseline for the binomial model (bernstein2020, Section 4.4.1).

Each of the ``keep`` released draws is one sample of a tempered posterior on the truncated
support [a0, 1 - a0] (Foulds et al. 2016; Wang et al. 2015), so the whole release is
epsilon-DP by composition with epsilon_ops = epsilon / keep per draw. On [a0, 1 - a0] the
Bernoulli log-likelihood is bounded by B = log(1 / a0); one sample of p(theta) prod p(x|theta)^t
is 4 B t-DP (Wang et al. 2015), so t = epsilon_ops / (4 B).

The thesis does not give the tempering (FACTS.md); two variants, both epsilon-DP:

- ``likelihood``: Beta(a + t s, b + t (n - s)) restricted to [a0, 1 - a0] (the prior untempered).
- ``posterior``: the whole posterior raised to t, Beta(1 + t (a + s - 1), 1 + t (b + n - s - 1))
  restricted to [a0, 1 - a0] (tempering the prior costs no privacy).

Draws use the inverse CDF of the Beta law on [F(a0), F(1 - a0)]; this is not a hot loop.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ..models.expfam import Problem
from .base import Chain, CpuTimer, ExpfamDetail, Info, check_lengths

__all__ = ["TEMPERINGS", "ops_exponent", "ops_beta_parameters", "run_ops_binomial"]

TEMPERINGS = ("likelihood", "posterior")


def ops_exponent(epsilon: float, n_samples: int, support_lower: float) -> float:
    """Tempering exponent t = (epsilon / n_samples) / (4 log(1 / a0))."""
    if not (epsilon > 0 and n_samples >= 1 and 0 < support_lower < 0.5):
        raise ValueError("ops_exponent: need epsilon > 0, n_samples >= 1, 0 < a0 < 0.5")
    return (epsilon / n_samples) / (4.0 * math.log(1.0 / support_lower))


def ops_beta_parameters(
    s: float, n: int, prior, exponent: float, tempering: str
) -> tuple[float, float]:
    """Beta parameters of the tempered posterior before restriction to [a0, 1 - a0]."""
    a, b = (float(v) for v in prior)
    if tempering == "likelihood":
        return a + exponent * s, b + exponent * (n - s)
    if tempering == "posterior":
        return 1.0 + exponent * (a + s - 1.0), 1.0 + exponent * (b + n - s - 1.0)
    raise ValueError(f"unknown OPS tempering {tempering!r}; expected one of {TEMPERINGS}")


def run_ops_binomial(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int = 0,
    keep: int,
    support_lower: float = 0.1,
    tempering: str = "posterior",
) -> Chain:
    """``keep`` released OPS draws of theta from the confidential count s; draws (burnin + keep, 1).

    OPS is itself the private mechanism (it releases posterior draws, no noisy count), so it
    reads the confidential ``s`` and spends the budget ``mechanism.epsilon`` of the setting's
    release record over its ``keep`` released draws. Draws are iid; ``burnin`` ones are drawn
    first and not released. ``info.detail.exponent`` is the tempering exponent t.
    """
    burnin, keep = check_lengths(burnin, keep)
    t = ops_exponent(float(problem.mechanism.epsilon), keep, support_lower)
    s, n = float(problem.statistic), int(problem.n)
    pa, pb = ops_beta_parameters(s, n, problem.prior, t, tempering)
    with CpuTimer() as timer:
        dist = stats.beta(pa, pb)
        lo, hi = dist.cdf(support_lower), dist.cdf(1.0 - support_lower)
        u = lo + (hi - lo) * rng.random(burnin + keep)
        theta = np.clip(dist.ppf(u), support_lower, 1.0 - support_lower)
    return Chain(
        theta[:, None],
        burnin,
        Info(cpu_seconds=timer.seconds, iterations=burnin + keep, detail=ExpfamDetail(exponent=t)),
    )
