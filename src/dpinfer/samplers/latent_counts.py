"""Exact-target MCMC over the latent counts of a noisy categorical table, for any additive noise.

Model: p ~ Dirichlet(alpha), x ~ Multinomial(n, p) over K cells, n public; the release holds
y_k = x_k + e_k for every released cell k (all K cells, or the first K - 1 as in bernstein2020's
chapter 4), e_k i.i.d. from the mechanism's noise law. Integrating p out, the counts' posterior is

    p(x | y)  proportional to  prod_k Gamma(alpha_k + x_k) / Gamma(x_k + 1)
                               * prod_{k released} f(y_k - x_k)

on {x >= 0, sum x = n} (the Dirichlet-multinomial times the noise). The chain moves x by
transfers: pick an ordered pair of cells (i, j) and an amount d uniform on 1..max_step, propose
x_i - d, x_j + d (symmetric: the reverse move has the same probability), accept by Metropolis.
After ``moves`` proposals per stored iteration it draws p | x ~ Dirichlet(alpha + x), so the
stored p are draws of the exact posterior p(p | y) in the limit, with no CLT or continuous
relaxation. The log-weights log Gamma(alpha_k + x) - log Gamma(x + 1) + log f(y_k - x) are
tabulated for x = 0..n with the mechanism's own ``logpdf``, so any of the four mechanisms (or any
record with a vectorised ``logpdf``) works unchanged; the table holds K (n + 1) floats.

Registered as method ``latent_counts`` on the ``multinomial`` model (contract of
:mod:`dpinfer.samplers.registry`): ``problem.statistic`` is the K or K - 1 released values,
``problem.prior`` the K Dirichlet concentrations.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.special import gammaln

from ..models.expfam import Problem
from .base import Chain, Info, check_lengths, timed

__all__ = ["run_latent_counts", "log_weight_table", "noise_sd", "MAX_TABLE"]

MAX_TABLE = 50_000_000  # K (n + 1) table entries, 400 MB of float64


def noise_sd(mechanism) -> float:
    """Standard deviation of the mechanism's noise (Laplace sqrt(2) b, Gaussian and discrete
    Gaussian about sigma, double geometric sqrt(2 (1 - rho)) / rho): sets the default step."""
    if hasattr(mechanism, "scale"):
        return math.sqrt(2.0) * float(mechanism.scale)
    if hasattr(mechanism, "rho"):
        rho = float(mechanism.rho)
        return math.sqrt(2.0 * (1.0 - rho)) / rho
    return float(mechanism.sigma)


def log_weight_table(released, n: int, alpha, mechanism) -> np.ndarray:
    """(K, n + 1) table of log Gamma(alpha_k + x) - log Gamma(x + 1) + log f(y_k - x), the noise
    term only for the released cells (the first len(released))."""
    alpha = np.asarray(alpha, dtype=float)
    y = np.asarray(released, dtype=float).ravel()
    x = np.arange(n + 1, dtype=float)
    table = gammaln(alpha[:, None] + x[None, :]) - gammaln(x + 1.0)[None, :]
    table[: y.shape[0]] += mechanism.logpdf(y[:, None] - x[None, :])
    return np.ascontiguousarray(table)


@njit(cache=True)
def _transfer_kernel(rng, table, alpha, x, max_step, moves, out):
    """Metropolis transfers between two cells of ``x`` (in place, sum kept), ``moves`` per stored
    row, then p | x ~ Dirichlet(alpha + x) into ``out``. Returns the accepted proposals."""
    K = x.shape[0]
    g = np.empty(K)
    accepted = 0
    for it in range(out.shape[0]):
        for _ in range(moves):
            i = rng.integers(0, K)
            j = rng.integers(0, K - 1)
            if j >= i:
                j += 1
            d = rng.integers(1, max_step + 1)
            if x[i] < d:
                continue  # outside the support: rejected
            xi, xj = x[i], x[j]
            log_ratio = table[i, xi - d] + table[j, xj + d] - table[i, xi] - table[j, xj]
            if log_ratio >= 0.0 or math.log(rng.random()) < log_ratio:
                x[i] = xi - d
                x[j] = xj + d
                accepted += 1
        total = 0.0
        for k in range(K):
            g[k] = rng.gamma(alpha[k] + x[k], 1.0)
            total += g[k]
        for k in range(K):
            out[it, k] = g[k] / total
    return accepted


def run_latent_counts(
    problem: Problem,
    rng: np.random.Generator,
    *,
    burnin: int,
    keep: int,
    max_step: int = 0,
    moves: int = 0,
) -> Chain:
    """Transfer MCMC for p | y of a noisy K-cell table (module docstring). ``max_step``: the
    largest transfer (0: about twice the noise sd, at most n); ``moves``: proposals per stored
    draw (0: 2 K). Starts from p ~ prior and x ~ Multinomial(n, p), so chains start dispersed.
    Draws of p: (burnin + keep, K); ``info.acceptance`` is the share of accepted transfers."""
    burnin, keep = check_lengths(burnin, keep)
    n = int(problem.n)
    alpha = np.asarray(problem.prior, dtype=float).ravel()
    y = np.asarray(problem.statistic, dtype=float).ravel()
    K = alpha.shape[0]
    if n < 1 or K < 2 or np.any(alpha <= 0) or y.shape[0] not in (K - 1, K):
        raise ValueError(
            "run_latent_counts: need n >= 1, K >= 2 positive concentrations and K or K - 1 "
            f"released cells (got n={n}, K={K}, {y.shape[0]} released)"
        )
    if K * (n + 1) > MAX_TABLE:
        raise ValueError(f"run_latent_counts: K (n + 1) = {K * (n + 1)} exceeds {MAX_TABLE}")
    if max_step <= 0:
        max_step = int(math.ceil(2.0 * noise_sd(problem.mechanism)))
    max_step = max(1, min(int(max_step), n))
    moves = int(moves) if moves > 0 else 2 * K
    table = log_weight_table(y, n, alpha, problem.mechanism)
    x = rng.multinomial(n, rng.dirichlet(alpha)).astype(np.int64)
    out = np.empty((burnin + keep, K))
    accepted, seconds = timed(_transfer_kernel, rng, table, alpha, x, max_step, moves, out)
    iterations = burnin + keep
    return Chain(
        out,
        burnin,
        Info(
            cpu_seconds=seconds, iterations=iterations, acceptance=accepted / (iterations * moves)
        ),
    )
