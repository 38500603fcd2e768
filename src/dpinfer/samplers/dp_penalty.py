"""DP penalty (raisa2021 Sec. 4.2 / FACTS 3.1): full-data Metropolis-Hastings whose
log-likelihood ratio is released with the Gaussian mechanism and corrected by the penalty
method (Ceperley and Dewing 1999).

One iteration from theta, with r_j = log p(x_j|theta') - log p(x_j|theta), d = ||theta' - theta||:

- proposal: ``dpps`` theta' ~ N(theta, diag(prop_sd^2)); ``dppa`` (one-component updates with a
  guided walk): coordinate c uniform, theta'_c = theta_c + dir_c |N(0, prop_sd_c^2)|, dir_c
  flipped after a rejection and kept after an acceptance (directions start uniformly +-1);
- each r_j clipped to [-b d, b d]; s ~ N(0, (tau sqrt(n) 2 b d)^2);
  lambda = T (sum_j clip(r_j) + s) + log prior ratio;
- accept iff log U < lambda - (T tau sqrt(n) 2 b d)^2 / 2 (the penalty; ``penalty_correction=False``
  drops it, which makes the chain wrong: only for tests).

With no ratio clipped the chain is exact: the penalty makes the expected acceptance
probability satisfy detailed balance, also for the guided walk's lifted kernel.
``Chain.info``: acceptance = accepts / iterations; ``clipped["llr"]`` = clipped ratios over all
iterations; ``extra["llr_clip_fraction"]`` = that / n / iterations; ``extra["decisions_changed"]``
= accept decisions the unclipped ratio sum would have reversed (same noise and uniform).
The proposal and distance helpers are shared with the minibatch samplers, the noisy accept step
(:func:`penalty_accept`) with the minibatch and HMC samplers.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..models.dp_mcmc import Problem, clipped_llr_sum, llr_sum, log_prior
from .base import Chain, CpuTimer, Info

__all__ = [
    "run_dp_penalty",
    "run_dpps",
    "run_dppa",
    "run_clipped_rwmh",
    "burnin_rows",
    "chain_inputs",
    "clip_rule_code",
    "propose",
    "init_directions",
    "distance",
    "settle",
    "penalty_accept",
    "decision_changed",
    "CLIP_RULES",
]

# the clip threshold's distance: the thesis's Euclidean norm, or the author's clipping-study
# |sum of coordinate differences| (FACTS 3.5; docs/deviations.md)
CLIP_RULES = {"euclidean": 0, "sum_of_differences": 1}


def burnin_rows(iterations: int) -> int:
    """Stored rows dropped as burn-in: rows with index >= floor((iters - 1)/2) + 1 are kept."""
    return (int(iterations) - 1) // 2 + 1


@njit(cache=True)
def init_directions(d, rng):
    """The guided walk's directions, uniformly +-1 per coordinate."""
    direction = np.empty(d)
    for k in range(d):
        direction[k] = 1.0 if rng.random() < 0.5 else -1.0
    return direction


@njit(cache=True)
def propose(theta, prop, prop_sd, direction, one_component, rng):
    """prop[:] = a proposal from theta (Gaussian, or one coordinate along its guided-walk
    direction); returns the moved coordinate (0 for the Gaussian proposal)."""
    prop[:] = theta
    c = 0
    if one_component:
        c = rng.integers(0, theta.shape[0])
        prop[c] += direction[c] * abs(prop_sd[c] * rng.standard_normal())
    else:
        for k in range(theta.shape[0]):
            prop[k] += prop_sd[k] * rng.standard_normal()
    return c


@njit(cache=True)
def distance(theta, prop):
    """||prop - theta||_2."""
    acc = 0.0
    for k in range(theta.shape[0]):
        acc += (prop[k] - theta[k]) ** 2
    return math.sqrt(acc)


@njit(cache=True)
def settle(accept, theta, prop, direction, c, one_component):
    """Apply an accept decision: theta moves to prop, or the guided walk flips direction c."""
    if accept:
        theta[:] = prop
    elif one_component:
        direction[c] = -direction[c]


@njit(cache=True)
def _penalised_ratio(base, noise, lp_new, lp, correction):
    """The log acceptance ratio base + noise + log prior ratio, minus the penalty correction."""
    return base + noise + lp_new - lp - correction


@njit(cache=True)
def penalty_accept(rng, base, noise_sd, correction, lp_new, lp):
    """The penalty method's test: accept iff log U < base + noise_sd N(0, 1) + lp_new - lp -
    correction. Draws the normal, then the uniform, both even when noise_sd = 0 (the chain's
    random stream does not depend on the noise level); returns (accept, noise, log U)."""
    noise = noise_sd * rng.standard_normal()
    lam = _penalised_ratio(base, noise, lp_new, lp, correction)
    log_u = math.log(rng.random())
    return log_u < lam, noise, log_u


@njit(cache=True)
def decision_changed(accept, log_u, base_exact, noise, lp_new, lp, correction):
    """1 if the ratio with base_exact (the unclipped sum) in place of base would have reversed
    the decision of :func:`penalty_accept` (same noise and uniform), else 0."""
    return np.int64(accept != (log_u < _penalised_ratio(base_exact, noise, lp_new, lp, correction)))


@njit(cache=True)
def _dp_penalty_kernel(
    kind,
    params,
    data,
    temperature,
    tau,
    prop_sd,
    bound,
    one_component,
    penalty,
    clip_rule,
    rng,
    out,
    counts,
):
    """Fill out[1:] (out[0] = start) with the chain; counts = [accepts, clipped ratios, accept
    decisions that the unclipped ratio sum would have changed (same noise and uniform)]."""
    iters = out.shape[0] - 1
    d = out.shape[1]
    n = data.shape[1]
    theta = out[0].copy()
    prop = np.empty(d)
    direction = init_directions(d, rng)
    lp = log_prior(kind, params, theta)
    noise_per_dist = tau * math.sqrt(n) * 2.0 * bound
    accepts = 0
    clipped = 0
    changed = 0
    for t in range(iters):
        c = propose(theta, prop, prop_sd, direction, one_component, rng)
        dist = distance(theta, prop)
        llr, cnt = clipped_llr_sum(kind, params, data, theta, prop, bound, clip_rule)
        clipped += cnt
        sigma = temperature * noise_per_dist * dist
        lp_new = log_prior(kind, params, prop)
        corr = 0.5 * sigma * sigma if penalty else 0.0
        accept, noise, log_u = penalty_accept(rng, temperature * llr, sigma, corr, lp_new, lp)
        if cnt > 0:  # would the unclipped sum have decided otherwise?
            exact = temperature * llr_sum(kind, params, n, theta, prop)
            changed += decision_changed(accept, log_u, exact, noise, lp_new, lp, corr)
        settle(accept, theta, prop, direction, c, one_component)
        lp = lp_new if accept else lp
        accepts += accept
        out[t + 1] = theta
    counts[0] = accepts
    counts[1] = clipped
    counts[2] = changed


def chain_inputs(
    problem: Problem, start, iterations: int, prop_sd
) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """Checked (start, iterations, prop_sd as a (d,) array, out) of a chain whose draws have
    iterations + 1 rows (row 0 = start)."""
    d = problem.dim
    iterations = int(iterations)
    if iterations < 1:
        raise ValueError(f"need iterations >= 1, got {iterations}")
    start = np.asarray(start, dtype=np.float64)
    if start.shape != (d,):
        raise ValueError(f"start must have shape ({d},), got {start.shape}")
    sd = np.broadcast_to(np.asarray(prop_sd, dtype=np.float64), (d,)).copy()
    if not np.all(sd > 0):
        raise ValueError("need prop_sd > 0")
    out = np.empty((iterations + 1, d))
    out[0] = start
    return start, iterations, sd, out


def clip_rule_code(rule: str) -> int:
    """Kernel code of a clip-threshold rule (:func:`dpinfer.models.dp_mcmc.clip_threshold`)."""
    if rule not in CLIP_RULES:
        raise ValueError(f"clip_rule must be one of {sorted(CLIP_RULES)}, got {rule!r}")
    return CLIP_RULES[rule]


def run_dp_penalty(
    problem: Problem,
    start,
    iterations: int,
    *,
    tau: float,
    prop_sd,
    clip_bound: float,
    rng: np.random.Generator,
    one_component: bool = False,
    penalty_correction: bool = True,
    clip_rule: str = "euclidean",
) -> Chain:
    """DP penalty chain of ``iterations`` steps from ``start``; draws has iterations + 1 rows
    (row 0 = start), burn-in = :func:`burnin_rows`. ``prop_sd`` is a scalar or a (d,) array.
    ``tau = 0`` is plain random-walk Metropolis with clipped ratios (the clipping study);
    ``clip_rule`` "sum_of_differences" is the author's clipping-study threshold."""
    start, iterations, sd, out = chain_inputs(problem, start, iterations, prop_sd)
    if not (tau >= 0 and clip_bound >= 0):
        raise ValueError("need tau >= 0 and clip_bound >= 0")
    counts = np.zeros(3, dtype=np.int64)
    with CpuTimer() as timer:
        _dp_penalty_kernel(
            problem.kind,
            problem.params,
            problem.data,
            float(problem.temperature),
            float(tau),
            sd,
            float(clip_bound),
            bool(one_component),
            bool(penalty_correction),
            clip_rule_code(clip_rule),
            rng,
            out,
            counts,
        )
    clipped = int(counts[1])
    info = Info(
        cpu_seconds=timer.seconds,
        iterations=iterations,
        acceptance=counts[0] / iterations,
        clipped={"llr": clipped},
        extra={
            "llr_clip_fraction": clipped / problem.n / iterations,
            "decisions_changed": int(counts[2]),
        },
    )
    return Chain(out, burnin_rows(iterations), info)


def run_dpps(problem: Problem, start, iterations: int, hyper, rng: np.random.Generator) -> Chain:
    """Registry entry ``dpps``: DP penalty with the params-file keys tau, prop_sd, clip_bound."""
    return run_dp_penalty(
        problem,
        start,
        iterations,
        tau=hyper["tau"],
        prop_sd=hyper["prop_sd"],
        clip_bound=hyper["clip_bound"],
        rng=rng,
    )


def run_dppa(problem: Problem, start, iterations: int, hyper, rng: np.random.Generator) -> Chain:
    """Registry entry ``dppa``: DP penalty with one-component updates and the guided walk."""
    return run_dp_penalty(
        problem,
        start,
        iterations,
        tau=hyper["tau"],
        prop_sd=hyper["prop_sd"],
        clip_bound=hyper["clip_bound"],
        rng=rng,
        one_component=True,
    )


def run_clipped_rwmh(
    problem: Problem, start, iterations: int, hyper, rng: np.random.Generator
) -> Chain:
    """Registry entry ``rwmh_nondp`` (the clipping study): random-walk Metropolis, not DP
    (tau = 0), with the log-likelihood ratios clipped at ``hyper["clip_bound"]`` x distance
    under ``hyper["clip_rule"]``; proposal sd ``hyper["prop_sd"]``."""
    return run_dp_penalty(
        problem,
        start,
        iterations,
        tau=0.0,
        prop_sd=hyper["prop_sd"],
        clip_bound=hyper["clip_bound"],
        rng=rng,
        clip_rule=hyper["clip_rule"],
    )
