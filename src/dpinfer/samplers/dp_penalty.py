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
iterations; ``detail`` (:class:`dpinfer.samplers.base.DPChainDetail`): ``llr_clip_fraction`` =
that / n / iterations, ``decisions_changed`` = accept decisions the unclipped ratio sum would
have reversed (same noise and uniform).
The proposal and distance helpers are shared with the minibatch samplers, the noisy accept step
(:func:`penalty_accept`) with the minibatch and HMC samplers, the whole full-data accept step
(:func:`penalised_step`) with DP HMC; so are the kernels' settings records
(:class:`Proposal`, :class:`Clip`, :class:`Penalty`; the problem is
:class:`dpinfer.models.dp_mcmc.ProblemRecord`) and the chain's set-up and packing
(:func:`chain_draws`, :func:`random_walk`, :func:`dp_chain`), with DP Barker and DP HMC.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..models.dp_mcmc import Problem, clipped_llr_sum, llr_sum, log_prior
from .base import Chain, DPChainDetail, Info, timed

__all__ = [
    "run_dp_penalty",
    "run_dpps",
    "run_dppa",
    "run_clipped_rwmh",
    "Proposal",
    "Clip",
    "Penalty",
    "burnin_rows",
    "chain_draws",
    "positive_diagonal",
    "random_walk",
    "penalty_chain",
    "dp_chain",
    "chain_iterations",
    "clip_rule_code",
    "propose",
    "init_directions",
    "distance",
    "settle",
    "penalty_accept",
    "penalised_step",
    "CLIP_RULES",
]

# the clip threshold's distance: the thesis's Euclidean norm, or the author's clipping-study
# |sum of coordinate differences| (FACTS 3.5; docs/deviations.md)
CLIP_RULES = {"euclidean": 0, "sum_of_differences": 1}


class Proposal(NamedTuple):
    """The random-walk proposal: sd per coordinate, and one-component guided-walk updates
    (else all coordinates move, Gaussian)."""

    sd: np.ndarray
    one_component: bool


class Clip(NamedTuple):
    """Per-row log-likelihood ratios clipped at ``bound`` x distance, ``rule`` a
    :data:`CLIP_RULES` code."""

    bound: float
    rule: int


class Penalty(NamedTuple):
    """The released ratio's noise level ``tau`` and whether the penalty ``correction`` of the
    accept step is applied."""

    tau: float
    correction: bool


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
def penalised_step(problem, clip, penalty, theta, prop, kinetic, lp, rng):
    """The full-data accept step from theta to prop (DP penalty and DP HMC): the ratio kinetic +
    T (sum of the clipped ratios) tested by :func:`penalty_accept` with noise sd T tau sqrt(n)
    2 b d; returns (accept, log prior at prop, clipped ratios, 1 if the unclipped ratio sum would
    have reversed the decision (same noise and uniform) else 0)."""
    kind, params, data, temperature = problem
    bound, clip_rule = clip
    n = data.shape[1]
    dist = distance(theta, prop)
    llr, cnt = clipped_llr_sum(kind, params, data, theta, prop, bound, clip_rule)
    sigma = temperature * (penalty.tau * math.sqrt(n) * 2.0 * bound) * dist
    lp_new = log_prior(kind, params, prop)
    corr = 0.5 * sigma * sigma if penalty.correction else 0.0
    accept, noise, log_u = penalty_accept(rng, kinetic + temperature * llr, sigma, corr, lp_new, lp)
    changed = np.int64(0)
    if cnt > 0:  # would the unclipped sum have decided otherwise?
        exact = kinetic + temperature * llr_sum(kind, params, n, theta, prop)
        changed = np.int64(accept != (log_u < _penalised_ratio(exact, noise, lp_new, lp, corr)))
    return accept, lp_new, cnt, changed


@njit(cache=True)
def _dp_penalty_kernel(problem, proposal, clip, penalty, rng, out):
    """Fill out[1:] (out[0] = start) with the chain; returns (accepts, clipped ratios, accept
    decisions that the unclipped ratio sum would have changed (same noise and uniform))."""
    kind, params = problem.kind, problem.params
    prop_sd, one_component = proposal
    iters = out.shape[0] - 1
    d = out.shape[1]
    theta = out[0].copy()
    prop = np.empty(d)
    direction = init_directions(d, rng)
    lp = log_prior(kind, params, theta)
    accepts = 0
    clipped = 0
    changed = 0
    for t in range(iters):
        c = propose(theta, prop, prop_sd, direction, one_component, rng)
        accept, lp_new, cnt, chg = penalised_step(problem, clip, penalty, theta, prop, 0.0, lp, rng)
        clipped += cnt
        changed += chg
        settle(accept, theta, prop, direction, c, one_component)
        lp = lp_new if accept else lp
        accepts += accept
        out[t + 1] = theta
    return accepts, clipped, changed


def chain_draws(problem: Problem, start, iterations: int) -> np.ndarray:
    """The draws of a chain of ``iterations`` >= 1 steps from ``start`` (d,): iterations + 1
    rows, row 0 = start (checked), the others for the kernel to fill."""
    d = problem.dim
    iterations = int(iterations)
    if iterations < 1:
        raise ValueError(f"need iterations >= 1, got {iterations}")
    start = np.asarray(start, dtype=np.float64)
    if start.shape != (d,):
        raise ValueError(f"start must have shape ({d},), got {start.shape}")
    out = np.empty((iterations + 1, d))
    out[0] = start
    return out


def positive_diagonal(value, d: int, name: str) -> np.ndarray:
    """A scalar or (d,) ``value`` as a new (d,) float array, checked > 0."""
    diag = np.broadcast_to(np.asarray(value, dtype=np.float64), (d,)).copy()
    if not np.all(diag > 0):
        raise ValueError(f"need {name} > 0")
    return diag


def random_walk(
    problem: Problem, start, iterations: int, prop_sd, one_component: bool
) -> tuple[np.ndarray, Proposal]:
    """The draws (:func:`chain_draws`) and the checked proposal of a random-walk chain;
    ``prop_sd`` is a scalar or a (d,) array."""
    out = chain_draws(problem, start, iterations)
    sd = positive_diagonal(prop_sd, problem.dim, "prop_sd")
    return out, Proposal(sd, bool(one_component))


def penalty_chain(
    problem: Problem,
    start,
    iterations: int,
    *,
    tau: float,
    prop_sd: float | np.ndarray,
    clip_bound: float,
    one_component: bool = False,
    penalty_correction: bool = True,
) -> tuple[np.ndarray, Proposal, float, Penalty]:
    """The settings of a DP penalty chain (full data or minibatch), checked, as (draws
    (:func:`chain_draws`), proposal, clip bound, penalty): ``tau`` multiplies the noise variance
    (``tau = 0``: plain random-walk Metropolis with clipped ratios), ``prop_sd`` is a scalar or a
    (d,) array, ratios are clipped at ``clip_bound``; ``one_component`` moves one coordinate per
    step; ``penalty_correction`` subtracts the penalty's variance term."""
    out, proposal = random_walk(problem, start, iterations, prop_sd, one_component)
    if not (tau >= 0 and clip_bound >= 0):
        raise ValueError("need tau >= 0 and clip_bound >= 0")
    return out, proposal, float(clip_bound), Penalty(float(tau), bool(penalty_correction))


def dp_chain(draws, counts, seconds: float, rows: int, clipped=(), **detail) -> Chain:
    """The :class:`Chain` of a kernel's ``draws`` and ``counts`` (accepts, clipped ratios, ...):
    acceptance = accepts / iterations, ``clipped["llr"]`` and the detail's ``llr_clip_fraction``
    = clipped ratios / ``rows`` / iterations, then the sampler's own ``clipped`` and ``detail``
    fields (:class:`DPChainDetail`); burn-in = :func:`burnin_rows`."""
    iterations = draws.shape[0] - 1
    llr = int(counts[1])
    info = Info(
        cpu_seconds=seconds,
        iterations=iterations,
        acceptance=counts[0] / iterations,
        clipped={"llr": llr, **dict(clipped)},
        detail=DPChainDetail(llr_clip_fraction=llr / rows / iterations, **detail),
    )
    return Chain(draws, burnin_rows(iterations), info)


def chain_iterations(burnin: int, keep: int) -> int:
    """The iteration count of a chain of ``burnin + keep`` stored rows (row 0 = start) whose
    burn-in is the thesis's first half (:func:`burnin_rows`); any other split is refused."""
    iterations = int(burnin) + int(keep) - 1
    if iterations < 1 or burnin_rows(iterations) != int(burnin):
        raise ValueError(
            f"dp_mcmc chains discard the first half of their draws: burnin={burnin}, keep={keep} "
            f"is not the split of {iterations} iterations (burnin {burnin_rows(iterations)})"
        )
    return iterations


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
    rng: np.random.Generator,
    clip_rule: str = "euclidean",
    **settings,
) -> Chain:
    """DP penalty chain of ``iterations`` steps from ``start``; draws has iterations + 1 rows
    (row 0 = start), burn-in = :func:`burnin_rows`. ``settings`` are the keywords of
    :func:`penalty_chain` (``tau``, ``prop_sd``, ``clip_bound``, ``one_component``,
    ``penalty_correction``); ``tau = 0`` is the clipping study's plain random-walk Metropolis,
    and ``clip_rule`` "sum_of_differences" the author's clipping-study threshold."""
    out, proposal, bound, penalty = penalty_chain(problem, start, iterations, **settings)
    clip = Clip(bound, clip_rule_code(clip_rule))
    counts, seconds = timed(_dp_penalty_kernel, problem.record, proposal, clip, penalty, rng, out)
    return dp_chain(out, counts, seconds, problem.n, decisions_changed=int(counts[2]))


def run_dpps(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    start: np.ndarray,
    tau: float,
    prop_sd: float | np.ndarray,
    clip_bound: float,
) -> Chain:
    """Registry entry ``dpps``: DP penalty with the params-file's tau, prop_sd and clip_bound."""
    iterations = chain_iterations(burnin, keep)
    settings = {"tau": tau, "prop_sd": prop_sd, "clip_bound": clip_bound}
    return run_dp_penalty(problem, start, iterations, rng=rng, **settings)


def run_dppa(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    start: np.ndarray,
    tau: float,
    prop_sd: float | np.ndarray,
    clip_bound: float,
) -> Chain:
    """Registry entry ``dppa``: DP penalty with one-component updates and the guided walk."""
    iterations = chain_iterations(burnin, keep)
    settings = {"tau": tau, "prop_sd": prop_sd, "clip_bound": clip_bound, "one_component": True}
    return run_dp_penalty(problem, start, iterations, rng=rng, **settings)


def run_clipped_rwmh(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    start: np.ndarray,
    prop_sd: float | np.ndarray,
    clip_bound: float,
    clip_rule: str,
) -> Chain:
    """Registry entry ``rwmh_nondp`` (the clipping study): random-walk Metropolis, not DP
    (tau = 0), with the log-likelihood ratios clipped at ``clip_bound`` x distance under
    ``clip_rule``; proposal sd ``prop_sd``."""
    iterations = chain_iterations(burnin, keep)
    settings = {"tau": 0.0, "prop_sd": prop_sd, "clip_bound": clip_bound, "clip_rule": clip_rule}
    return run_dp_penalty(problem, start, iterations, rng=rng, **settings)
