"""Record-wise data augmentation (ju2022's Algorithm 1) for a binomial proportion released as a
Laplace-noised count: the chapter-4 binomial release y = s + Laplace(scale), s = sum of n
Bernoulli(theta) records, theta ~ Beta(a, b).

One sweep: for each record i (systematic scan) propose x_i' ~ Bernoulli(theta), its prior
conditional, and accept with the release's likelihood ratio
exp((|y - s| - |y - s'|) / scale), s' = s - x_i + x_i' (the proposal cancels the model term, as in
Algorithm 1); then theta | x ~ Beta(a + s, b + n - s). The chain leaves p(theta, x | y) invariant,
so theta targets the exact posterior (:mod:`dpinfer.models.private_binomial`); one sweep costs
O(n). Chains start from theta ~ prior and records from the model given it.

Call signature of the chapter-4 binomial model (:mod:`dpinfer.samplers.noise_aware_gibbs`)::

    run(y, n, prior, mechanism, *, burnin, keep, rng) -> Chain

``Chain.info.acceptance`` is the acceptance rate of record proposals that change the record.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..models.expfam import Problem
from .base import Chain, Info, check_lengths, timed

__all__ = ["run_record_wise_binomial"]


@njit(cache=True)
def _record_wise_kernel(rng, y, a0, b0, scale, x, theta, out):
    """Sweeps of Algorithm 1 over the 0/1 records ``x`` (updated in place); theta per sweep into
    ``out``. Returns (accepted, proposed) counts of record moves that change the count."""
    n = x.shape[0]
    s = 0
    for i in range(n):
        s += x[i]
    accepted = 0
    proposed = 0
    for it in range(out.shape[0]):
        for i in range(n):
            new = 1 if rng.random() < theta else 0
            if new == x[i]:
                continue
            proposed += 1
            s_new = s + new - x[i]
            log_ratio = (abs(y - s) - abs(y - s_new)) / scale
            if log_ratio >= 0.0 or math.log(rng.random()) < log_ratio:
                x[i] = new
                s = s_new
                accepted += 1
        theta = rng.beta(a0 + s, b0 + n - s)
        out[it] = theta
    return accepted, proposed


def run_record_wise_binomial(
    problem: Problem, rng: np.random.Generator, *, burnin: int, keep: int
) -> Chain:
    """Algorithm 1 for theta | y, y = s + Lap(mechanism.scale), s ~ Binomial(n, theta), Beta prior
    ``prior`` = (a, b). Draws: (burnin + keep, 1), one per sweep."""
    burnin, keep = check_lengths(burnin, keep)
    y, n, mechanism = problem.statistic, problem.n, problem.mechanism
    a0, b0 = (float(v) for v in problem.prior)
    if int(n) < 1 or not (a0 > 0 and b0 > 0):
        raise ValueError("run_record_wise_binomial: need n >= 1 and a positive Beta prior")
    theta0 = rng.beta(a0, b0)
    x = (rng.random(int(n)) < theta0).astype(np.int64)
    out = np.empty(burnin + keep)
    args = (rng, float(y), a0, b0, float(mechanism.scale), x, theta0, out)
    (accepted, proposed), seconds = timed(_record_wise_kernel, *args)
    return Chain(
        out[:, None],
        burnin,
        Info(
            cpu_seconds=seconds,
            iterations=burnin + keep,
            acceptance=accepted / proposed if proposed else 1.0,
        ),
    )
