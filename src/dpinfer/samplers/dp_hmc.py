"""DP HMC (raisa2021 Sec. 4.4 / FACTS 3.4): HMC with clipped, Gaussian-noised gradients in the
leapfrog and a DP-penalty accept step.

Noisy gradient: g(theta) = T (sum_j clip_{b_g}(grad log p(x_j|theta))
+ N(0, (2 tau_g sqrt(n) b_g)^2 I)) + grad log prior, per-example gradients clipped to Euclidean
norm b_g.
One iteration from theta_0 with momentum p_0 ~ N(0, M) (M diagonal, ``mass``): L leapfrog steps
p <- p + eta/2 g; theta <- theta + eta p / M; g <- g(theta); p <- p + eta/2 g. Accept step with
d = ||theta_L - theta_0||, ratios clipped to +-b_l d, s ~ N(0, (tau_l sqrt(n) 2 b_l d)^2):
dH = p_0'M^-1 p_0/2 - p_L'M^-1 p_L/2 + T (sum clip(r_j) + s) + log prior ratio;
accept iff log U < dH - (T tau_l sqrt(n) 2 b_l d)^2 / 2.

``gradient_reuse=True`` (the seed thesis text, kL + 1 gradient releases): the noisy gradient at
the current point is the one computed at the end of the last accepted trajectory; one extra
gradient is released at the chain's start (the author's code evaluated it at the true theta, a
bug not copied). ``gradient_reuse=False`` (final thesis, k(L + 1) releases): a fresh noisy
gradient at the current point every iteration.

Exactness (no ratio clipped): for a fixed noise sequence the leapfrog map is volume preserving
and reversed by the reversed sequence, which has the same law, so both variants are exact for any
tau_g (with reuse, the stored gradient noise is part of the state and its density cancels);
gradient noise and clipping only lower the acceptance rate.
``Chain.info``: acceptance; ``clipped`` = {"llr", "grad"}; ``detail``
(:class:`dpinfer.samplers.base.DPChainDetail`) = llr_clip_fraction (llr / n / iterations),
grad_clip_fraction (grad / n / gradient_evaluations), gradient_evaluations, decisions_changed (as
in DP penalty); ``record_trajectory=True`` fills its ``trajectory`` (iterations, steps + 1, d),
the leapfrog positions of every iteration (position 0 = its start).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..models.dp_mcmc import Problem, clipped_grad_sum, grad_log_prior, log_prior
from .base import Chain, timed
from .dp_penalty import (
    Clip,
    Penalty,
    chain_draws,
    chain_iterations,
    clip_rule_code,
    dp_chain,
    penalised_step,
    positive_diagonal,
)

__all__ = ["run_dp_hmc", "run_hmc", "run_clipped_hmc", "Leapfrog", "GradientRelease"]


class Leapfrog(NamedTuple):
    """The trajectory: ``steps`` leapfrog steps of size ``eta`` with the diagonal ``mass``;
    ``record``: keep every position."""

    steps: int
    eta: float
    mass: np.ndarray
    record: bool


class GradientRelease(NamedTuple):
    """The noisy gradients: per-row clip ``bound``, noise level ``tau`` and whether the last
    accepted trajectory's end gradient is reused."""

    tau: float
    bound: float
    reuse: bool


@njit(cache=True)
def _noisy_gradient(problem, theta, bound, noise_sd, rng, out, work):
    """out[:] = the noisy clipped gradient at theta; returns the rows clipped."""
    kind, params, data, temperature = problem
    cnt = clipped_grad_sum(kind, params, data, theta, bound, out)
    grad_log_prior(kind, params, theta, work)
    for k in range(out.shape[0]):
        out[k] = temperature * (out[k] + noise_sd * rng.standard_normal()) + work[k]
    return cnt


@njit(cache=True)
def _dp_hmc_kernel(problem, leapfrog, gradient, penalty, clip, rng, out, traj):
    """Fill out[1:] (out[0] = start); traj[t] = leapfrog positions of iteration t if
    leapfrog.record; returns (accepts, clipped ratios, clipped gradients, gradient evaluations,
    accept decisions the unclipped ratio sum would have reversed)."""
    kind, params = problem.kind, problem.params
    steps, eta, mass, record = leapfrog
    tau_g, clip_grad, reuse = gradient
    iters = out.shape[0] - 1
    d = out.shape[1]
    n = problem.data.shape[1]
    # exact gradients: no 0 * inf
    gsd = 2.0 * tau_g * math.sqrt(n) * clip_grad if tau_g > 0 else 0.0
    theta = out[0].copy()
    th = np.empty(d)
    p = np.empty(d)
    p0 = np.empty(d)
    g = np.empty(d)
    g_cur = np.empty(d)
    work = np.empty(d)
    sqrt_m = np.sqrt(mass)
    accepts = 0
    clipped_l = 0
    clipped_g = 0
    evals = 0
    changed = 0
    lp = log_prior(kind, params, theta)
    if reuse:
        clipped_g += _noisy_gradient(problem, theta, clip_grad, gsd, rng, g_cur, work)
        evals += 1
    for t in range(iters):
        if not reuse:
            clipped_g += _noisy_gradient(problem, theta, clip_grad, gsd, rng, g_cur, work)
            evals += 1
        for k in range(d):
            p0[k] = sqrt_m[k] * rng.standard_normal()
        p[:] = p0
        th[:] = theta
        g[:] = g_cur
        if record:
            traj[t, 0] = th
        for step in range(steps):
            for k in range(d):
                p[k] += 0.5 * eta * g[k]
                th[k] += eta * p[k] / mass[k]
            clipped_g += _noisy_gradient(problem, th, clip_grad, gsd, rng, g, work)
            evals += 1
            for k in range(d):
                p[k] += 0.5 * eta * g[k]
            if record:
                traj[t, step + 1] = th
        kinetic = 0.0
        for k in range(d):
            kinetic += 0.5 * (p0[k] * p0[k] - p[k] * p[k]) / mass[k]
        accept, lp_new, cnt, chg = penalised_step(
            problem, clip, penalty, theta, th, kinetic, lp, rng
        )
        clipped_l += cnt
        changed += chg
        if accept:
            theta[:] = th
            lp = lp_new
            g_cur[:] = g
            accepts += 1
        out[t + 1] = theta
    return accepts, clipped_l, clipped_g, evals, changed


def run_dp_hmc(
    problem: Problem,
    start,
    iterations: int,
    *,
    tau_l: float,
    tau_g: float,
    steps: int,
    step_size: float,
    mass,
    clip_llr: float,
    clip_grad: float,
    rng: np.random.Generator,
    gradient_reuse: bool = True,
    penalty_correction: bool = True,
    record_trajectory: bool = False,
    clip_rule: str = "euclidean",
) -> Chain:
    """DP HMC chain of ``iterations`` steps from ``start``; draws has iterations + 1 rows (row 0 =
    start), burn-in as in :func:`dpinfer.samplers.dp_penalty.burnin_rows`. ``mass`` is a scalar
    or a (d,) diagonal. ``tau_l = tau_g = 0`` with ``clip_grad = inf`` is plain HMC with exact
    gradients and clipped ratios (the clipping study); ``clip_rule`` as in DP penalty."""
    out = chain_draws(problem, start, iterations)
    d, steps = problem.dim, int(steps)
    if steps < 1:
        raise ValueError(f"need steps >= 1, got {steps}")
    m = positive_diagonal(mass, d, "mass")
    if not (tau_l >= 0 and tau_g >= 0 and step_size > 0 and clip_llr >= 0 and clip_grad >= 0):
        raise ValueError("need step_size > 0 and non-negative taus and clip bounds")
    if tau_g > 0 and not math.isfinite(clip_grad):
        raise ValueError("an unbounded gradient clip needs tau_g = 0 (no gradient noise)")
    iterations = out.shape[0] - 1
    traj = np.empty((iterations, steps + 1, d) if record_trajectory else (1, steps + 1, d))
    counts, seconds = timed(
        _dp_hmc_kernel,
        problem.record,
        Leapfrog(steps, float(step_size), m, bool(record_trajectory)),
        GradientRelease(float(tau_g), float(clip_grad), bool(gradient_reuse)),
        Penalty(float(tau_l), bool(penalty_correction)),
        Clip(float(clip_llr), clip_rule_code(clip_rule)),
        rng,
        out,
        traj,
    )
    grad, evals = int(counts[2]), int(counts[3])
    return dp_chain(
        out,
        counts,
        seconds,
        problem.n,
        clipped={"grad": grad},
        trajectory=traj if record_trajectory else None,
        grad_clip_fraction=grad / problem.n / evals,
        gradient_evaluations=evals,
        decisions_changed=int(counts[4]),
    )


def run_hmc(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    start: np.ndarray,
    tau_l: float,
    tau_g: float,
    L: int,
    eta: float,
    mass_diag: float | np.ndarray,
    clip_bound_llr: float,
    clip_bound_grad: float,
    gradient_reuse: bool = True,
    record_trajectory: bool = False,
) -> Chain:
    """Registry entry ``hmc``: DP HMC with the params-file's hyperparameters (tau_l, tau_g, L
    leapfrog steps of size eta, diagonal mass, clip bounds of the ratios and the gradients);
    ``gradient_reuse``: kL + 1 gradient releases (the thesis text) or, when False, k(L + 1) (the
    final thesis); ``record_trajectory``: keep every leapfrog path (Fig 4.1)."""
    return run_dp_hmc(
        problem,
        start,
        chain_iterations(burnin, keep),
        tau_l=tau_l,
        tau_g=tau_g,
        steps=L,
        step_size=eta,
        mass=mass_diag,
        clip_llr=clip_bound_llr,
        clip_grad=clip_bound_grad,
        rng=rng,
        gradient_reuse=bool(gradient_reuse),
        record_trajectory=bool(record_trajectory),
    )


def run_clipped_hmc(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    start: np.ndarray,
    L: int,
    eta: float,
    mass_diag: float | np.ndarray,
    clip_bound: float,
    clip_rule: str,
) -> Chain:
    """Registry entry ``hmc_nondp`` (the clipping study): HMC with exact gradients, not DP
    (tau_l = tau_g = 0, gradients unclipped), the log-likelihood ratios clipped at
    ``clip_bound`` x distance under ``clip_rule``."""
    return run_dp_hmc(
        problem,
        start,
        chain_iterations(burnin, keep),
        tau_l=0.0,
        tau_g=0.0,
        steps=L,
        step_size=eta,
        mass=mass_diag,
        clip_llr=clip_bound,
        clip_grad=np.inf,
        rng=rng,
        gradient_reuse=True,
        clip_rule=clip_rule,
    )
