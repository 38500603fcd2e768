"""DP Barker (raisa2021 Sec. 3.2 / FACTS 3.3, after Heikkilä et al. 2019): the Barker test on a
batch estimate of the log-likelihood ratio sum, its CLT noise topped up to a fixed Gaussian
variance C and corrected towards the logistic by V_corr.

One iteration from theta: theta' ~ N(theta, diag(prop_sd^2)); a batch of B rows without
replacement; ratios clipped to +-0.99 sqrt(B) / (T n) (Theorem 7's bound, 0.99 as the author);
r = batch mean, s^2 = population variance, sigma_b^2 = s^2 (nT)^2 / B;
lambda = n T r + log prior ratio; accept iff lambda + N(0, C - sigma_b^2) + V_corr > 0, where
N(0, C) + V_corr ~ Logistic(0, 1) approximately (V_corr: the author's 100-component Gaussian
mixture for C = 2, ``config/data/raisa2021/vcorr_C2.0_K100.tsv``).

The privacy bound needs sigma_b^2 <= C - 1 = 1. The author's code stopped the chain when the
batch variance exceeded 1 (leaving rows of zeros); here such a proposal is rejected and counted
(``info.detail.batch_variance_rejections``). With the clip bound above it cannot happen:
s^2 <= max r_j^2 <= 0.99^2 B / (Tn)^2, so sigma_b^2 <= 0.9801 (docs/deviations.md).
``Chain.info``: acceptance; ``clipped["llr"]``; ``detail.llr_clip_fraction`` = clipped / B /
iterations (the author's bookkeeping).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..models.dp_mcmc import Problem, log_prior
from ..models.dp_mcmc_batch import clipped_llr_batch, draw_batch
from .base import Chain, timed
from .dp_minibatch import checked_batch_size
from .dp_penalty import chain_iterations, dp_chain, propose, random_walk

__all__ = [
    "run_dp_barker",
    "run_barker",
    "barker_accepts",
    "BarkerTest",
    "CLIP_FACTOR",
]

CLIP_FACTOR = 0.99  # ratios clipped at 0.99 sqrt(B) / (T n), as the author's code


class BarkerTest(NamedTuple):
    """The Barker test's total noise variance C and the V_corr mixture (component means, sds
    and cumulative weights)."""

    total_variance: float
    means: np.ndarray
    sds: np.ndarray
    cum_weights: np.ndarray


@njit(cache=True)
def barker_accepts(lam, batch_variance, total_variance, means, sds, cum_weights, rng):
    """The Barker test: lambda + N(0, C - sigma_b^2) + V_corr > 0, V_corr drawn from the mixture
    (component by its cumulative weight, then mean + sd N(0, 1))."""
    s = math.sqrt(total_variance - batch_variance) * rng.standard_normal()
    k = np.searchsorted(cum_weights, rng.random() * cum_weights[-1], side="right")
    k = min(k, means.shape[0] - 1)
    v = means[k] + sds[k] * rng.standard_normal()
    return lam + s + v > 0.0


@njit(cache=True)
def _barker_kernel(problem, prop_sd, batch, test, rng, out):
    """Fill out[1:] (out[0] = start); returns (accepts, clipped ratios, batch-variance
    rejections)."""
    kind, params, data, temperature = problem
    total_variance, means, sds, cum_weights = test
    iters = out.shape[0] - 1
    d = out.shape[1]
    n = data.shape[1]
    nt = n * temperature
    thr = CLIP_FACTOR * math.sqrt(batch) / nt
    theta = out[0].copy()
    prop = np.empty(d)
    perm = np.arange(n)
    direction = np.empty(d)  # not read by the Gaussian proposal
    lp = log_prior(kind, params, theta)
    accepts = 0
    clipped = 0
    too_noisy = 0
    for t in range(iters):
        propose(theta, prop, prop_sd, direction, False, rng)
        draw_batch(perm, batch, rng)
        mean, var, cnt = clipped_llr_batch(kind, params, data, theta, prop, thr, perm, batch)
        clipped += cnt
        var_b = nt * nt / batch * var
        lp_new = log_prior(kind, params, prop)
        if var_b > total_variance - 1.0:  # outside the privacy bound: reject (the author stopped)
            too_noisy += 1
        elif barker_accepts(
            nt * mean + lp_new - lp, var_b, total_variance, means, sds, cum_weights, rng
        ):
            theta[:] = prop
            lp = lp_new
            accepts += 1
        out[t + 1] = theta
    return accepts, clipped, too_noisy


def run_dp_barker(
    problem: Problem,
    start,
    iterations: int,
    *,
    prop_sd: float | np.ndarray,
    batch_size: int,
    vcorr: dict,
    rng: np.random.Generator,
    total_variance: float = 2.0,
) -> Chain:
    """DP Barker chain; draws has iterations + 1 rows (row 0 = start), burn-in =
    :func:`dpinfer.samplers.dp_penalty.burnin_rows`. ``vcorr`` from
    :func:`dpinfer.models.barker_correction.load_vcorr`, fitted for ``total_variance`` (C)."""
    out, proposal = random_walk(problem, start, iterations, prop_sd, False)
    batch = checked_batch_size(problem, batch_size)
    if not 1.0 <= total_variance < math.pi**2 / 3:
        raise ValueError(f"need 1 <= C < pi^2/3 for the Barker correction, got {total_variance}")
    test = BarkerTest(
        float(total_variance), vcorr["means"], vcorr["sds"], np.cumsum(vcorr["weights"])
    )
    counts, seconds = timed(_barker_kernel, problem.record, proposal.sd, batch, test, rng, out)
    rejections = int(counts[2])
    return dp_chain(
        out,
        counts,
        seconds,
        batch,
        clipped={"batch_variance": rejections},
        batch_variance_rejections=rejections,
    )


def run_barker(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    start: np.ndarray,
    prop_sd: float | np.ndarray,
    batch_size: int,
    vcorr: dict,
    gaussian_noise_total_variance_C: float = 2.0,
) -> Chain:
    """Registry entry ``barker``: DP Barker with the params-file's prop_sd, batch_size and
    gaussian_noise_total_variance_C (C), and ``vcorr`` (the mixture, from
    :func:`dpinfer.models.barker_correction.load_vcorr`)."""
    return run_dp_barker(
        problem,
        start,
        chain_iterations(burnin, keep),
        prop_sd=prop_sd,
        batch_size=batch_size,
        vcorr=vcorr,
        rng=rng,
        total_variance=float(gaussian_noise_total_variance_C),
    )
