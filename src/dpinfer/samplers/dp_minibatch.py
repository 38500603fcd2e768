"""Minibatch DP penalty (raisa2021 Sec. 3.3 / FACTS 3.2): DP penalty whose log-likelihood ratio
sum is estimated from a batch of B rows drawn without replacement, the batch's CLT variance
corrected by the penalty method as well.

One iteration from theta, proposal as in :mod:`dpinfer.samplers.dp_penalty` (``mdpps`` Gaussian,
``mdppa`` one component with the guided walk), d = ||theta' - theta||, ratios clipped to +-b d:

- R = batch mean of the clipped ratios; sigma_b^2 = (nT)^2 / B * (their population variance);
- lambda = n T R + log prior ratio;
- sensitivity of lambda - sigma_b^2 / 2 (Theorem 8 with Lemma 1):
  c = (n/B) T 2 b d + (1 - 1/B)(nT/B)^2 b^2 d^2 + (2/B)(nT/B)^2 (B - 1) b^2 d^2;
- noise sd sqrt(tau) c (tau multiplies the noise *variance* here, unlike DP penalty);
- accept iff log U < lambda + N(0, tau c^2) - (tau c^2 + sigma_b^2) / 2.

The batch estimate is only approximately Gaussian (CLT), so the chain is approximate unless
the batch variance vanishes (e.g. identical rows), where it is exact as DP penalty is
(``penalty_correction=False`` drops both corrections: only for tests).
``Chain.info``: acceptance; ``clipped["llr"]``; ``detail.llr_clip_fraction`` = clipped / B /
iterations (the author's bookkeeping).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..models.dp_mcmc import Problem, log_prior
from ..models.dp_mcmc_batch import clipped_llr_batch, draw_batch
from .base import Chain, timed
from .dp_penalty import (
    chain_iterations,
    distance,
    dp_chain,
    init_directions,
    penalty_accept,
    penalty_chain,
    propose,
    settle,
)

__all__ = [
    "run_minibatch_penalty",
    "run_mdpps",
    "run_mdppa",
    "minibatch_sensitivity",
    "checked_batch_size",
]


@njit(cache=True)
def minibatch_sensitivity(n, batch, temperature, bound, dist):
    """c(theta, theta') of Theorem 8: the sensitivity of lambda - sigma_b^2 / 2."""
    nt_b = n * temperature / batch
    lb2 = (bound * dist) ** 2
    return (
        2.0 * nt_b * bound * dist
        + (1.0 - 1.0 / batch) * nt_b * nt_b * lb2
        + (2.0 / batch) * nt_b * nt_b * (batch - 1) * lb2
    )


@njit(cache=True)
def _minibatch_kernel(problem, proposal, bound, batch, penalty, rng, out):
    """Fill out[1:] (out[0] = start); returns (accepts, clipped ratios in the batches)."""
    kind, params, data, temperature = problem
    prop_sd, one_component = proposal
    iters = out.shape[0] - 1
    d = out.shape[1]
    n = data.shape[1]
    nt = n * temperature
    theta = out[0].copy()
    prop = np.empty(d)
    perm = np.arange(n)
    direction = init_directions(d, rng)
    lp = log_prior(kind, params, theta)
    sqrt_tau = math.sqrt(penalty.tau)
    accepts = 0
    clipped = 0
    for t in range(iters):
        c = propose(theta, prop, prop_sd, direction, one_component, rng)
        dist = distance(theta, prop)
        draw_batch(perm, batch, rng)
        mean, var, cnt = clipped_llr_batch(
            kind, params, data, theta, prop, bound * dist, perm, batch
        )
        clipped += cnt
        var_b = nt * nt / batch * var
        sd = sqrt_tau * minibatch_sensitivity(n, batch, temperature, bound, dist)
        lp_new = log_prior(kind, params, prop)
        corr = 0.5 * (sd * sd + var_b) if penalty.correction else 0.0
        accept = penalty_accept(rng, nt * mean, sd, corr, lp_new, lp)[0]
        settle(accept, theta, prop, direction, c, one_component)
        lp = lp_new if accept else lp
        accepts += accept
        out[t + 1] = theta
    return accepts, clipped


def checked_batch_size(problem: Problem, batch_size) -> int:
    """B as an int in 1..n (a batch is drawn without replacement)."""
    batch = int(batch_size)
    if not 1 <= batch <= problem.n:
        raise ValueError(f"batch_size must be in 1..n = {problem.n}, got {batch}")
    return batch


def run_minibatch_penalty(
    problem: Problem,
    start,
    iterations: int,
    *,
    batch_size: int,
    rng: np.random.Generator,
    **settings,
) -> Chain:
    """Minibatch DP penalty chain on batches of ``batch_size`` records; draws has iterations + 1
    rows (row 0 = start), burn-in = :func:`dpinfer.samplers.dp_penalty.burnin_rows`. ``settings``
    are the keywords of :func:`dpinfer.samplers.dp_penalty.penalty_chain` (``tau`` multiplies the
    noise variance)."""
    out, proposal, bound, penalty = penalty_chain(problem, start, iterations, **settings)
    batch = checked_batch_size(problem, batch_size)
    args = (problem.record, proposal, bound, batch, penalty, rng, out)
    counts, seconds = timed(_minibatch_kernel, *args)
    return dp_chain(out, counts, seconds, batch)


def run_mdpps(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    start: np.ndarray,
    tau_variance_multiplier: float,
    prop_sd: float | np.ndarray,
    clip_bound: float,
    batch_size: int,
) -> Chain:
    """Registry entry ``mdpps``: minibatch DP penalty with the params-file's
    tau_variance_multiplier (multiplies the noise variance), prop_sd, clip_bound, batch_size."""
    settings = {"tau": tau_variance_multiplier, "prop_sd": prop_sd, "clip_bound": clip_bound}
    iterations = chain_iterations(burnin, keep)
    return run_minibatch_penalty(
        problem, start, iterations, batch_size=batch_size, rng=rng, **settings
    )


def run_mdppa(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    start: np.ndarray,
    tau_variance_multiplier: float,
    prop_sd: float | np.ndarray,
    clip_bound: float,
    batch_size: int,
) -> Chain:
    """Registry entry ``mdppa``: as ``mdpps`` with one-component updates and the guided walk."""
    settings = {"tau": tau_variance_multiplier, "prop_sd": prop_sd, "clip_bound": clip_bound}
    iterations = chain_iterations(burnin, keep)
    return run_minibatch_penalty(
        problem, start, iterations, batch_size=batch_size, rng=rng, one_component=True, **settings
    )
