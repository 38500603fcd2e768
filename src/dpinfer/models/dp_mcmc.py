"""The eight models of raisa2021 (Table 5.1) -- banana family (easy/tempered/hard banana and
gauss-30d = banana with a = 0), correlated Gauss (hard-gauss-2d), circle -- with the full-data
numba kernels of the DP penalty and DP HMC samplers. Per-row log-likelihoods (constants dropped):

- banana (kind 0): -1/2 sum_k tau_k (x_k - m_k(theta))^2, m(theta) = (theta_1, theta_2 +
  a theta_1^2, theta_3, ...); prior Ban(0, I/tau_0, a): theta_1, u = theta_2 + a theta_1^2 and
  theta_i (i >= 3) iid N(0, 1/tau_0). ``params = [a, tau_0, tau_1, ..., tau_d, S]``.
- gauss (kind 1): -1/2 (x - theta)' P (x - theta), P = Sigma^-1; prior N(0, I/tau_0) with the
  variance 100 of Table 5.1 (the author's sampler used sd 100, not copied).
  ``params = [tau_0, P (row-major), S]``.
- circle (kind 2): -a (||theta||^2 - r^2)^2, flat prior; ``params = [a, S]``.

Ratios and per-row gradients are affine in a row of the stored data, so a pass is a few
multiply-adds per stored value. ``Problem.data`` is column-major (p, n) float32, one contiguous
row per data column (p = d; circle p = 1: r^2, sorted, as row order does not matter). The data
set IS these float32 values: make_problem rounds the simulated data once, and the column sums,
the exact posterior, log_posterior and the kernels all use them converted to float64 (all
arithmetic is float64), so every result is exact for that data set; float32 halves the memory
traffic of the passes (gauss-30d: 24 MB). ``S`` (last p entries of ``params``) are the column
sums: the unclipped sums are O(d^2) from them, so a pass only has to find the clipped rows.
Tempering (T = n0/n) multiplies the likelihood only; the kernels return untempered sums. The
numba kernels live in :mod:`dpinfer.models.dp_mcmc_kernels`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .dp_mcmc_kernels import (
    clip_threshold,
    clipped_grad_sum,
    clipped_llr_sum,
    grad_log_prior,
    llr_sum,
    log_prior,
)

__all__ = [
    "Problem",
    "ProblemRecord",
    "make_problem",
    "exact_posterior_draws",
    "log_posterior",
    "clipped_llr_sum",
    "llr_sum",
    "clip_threshold",
    "clipped_grad_sum",
    "log_prior",
    "grad_log_prior",
    "KINDS",
]

KINDS = {"banana": 0, "gauss": 1, "circle": 2}


class ProblemRecord(NamedTuple):
    """What the sampler kernels read of a :class:`Problem` (a record numba takes as one
    argument): the family code ``kind``, ``params``, the (p, n) ``data`` and the temperature."""

    kind: int
    params: np.ndarray
    data: np.ndarray
    temperature: float


@dataclass(frozen=True)
class Problem:
    """One model with its data; see the module docstring for ``data`` and ``params``."""

    name: str
    family: str
    kind: int
    data: np.ndarray
    params: np.ndarray
    temperature: float
    theta_true: np.ndarray
    start_centre: np.ndarray

    @property
    def n(self) -> int:
        return int(self.data.shape[1])

    @property
    def dim(self) -> int:
        return int(self.theta_true.shape[0])

    @property
    def record(self) -> ProblemRecord:
        """The kernels' record of this problem."""
        return ProblemRecord(int(self.kind), self.params, self.data, float(self.temperature))


def make_problem(name: str, spec: Mapping, rng: np.random.Generator) -> Problem:
    """Build model ``name`` from one entry of params.yaml ``models`` with data drawn from ``rng``
    (the author's JAX keys cannot be reproduced): banana x_k ~ N(m_k(theta_true), sigma_k^2);
    gauss x ~ N(theta_true, Sigma); circle r ~ N(3, 1) (spec keys ``r_mean``, ``r_sd`` override)."""
    family = str(spec.get("family", "banana"))
    if family not in KINDS:
        raise ValueError(f"unknown family {family!r}")
    d, n = int(spec["dim"]), int(spec["n"])
    temperature = float(spec.get("temperature") or 1.0)
    if d < 2 or n < 1 or not temperature > 0:
        raise ValueError(f"need dim >= 2, n >= 1, temperature > 0; got {d}, {n}, {temperature}")
    if family == "circle":
        if d != 2:
            raise ValueError("the circle model is 2-d")
        r = rng.normal(float(spec.get("r_mean", 3.0)), float(spec.get("r_sd", 1.0)), n)
        data = np.sort(r * r)[None, :].copy()
        params = np.array([float(spec.get("a", 1e-5))])
        theta_true = np.zeros(2)
        start = np.asarray(spec.get("start_centre", [0.0, 1.0]), float)
    else:
        theta_true = np.asarray(spec.get("theta_true", [0.0, 3.0] + [0.0] * (d - 2)), float)
        if theta_true.shape != (d,):
            raise ValueError(f"theta_true must have {d} entries")
        if family == "banana":
            a = float(spec.get("a", 0.0))
            lv = spec.get("likelihood_variance") or {}
            var = np.full(d, float(lv.get("coord3_and_up", 1.0)))
            var[:2] = float(lv.get("coord1", 20.0)), float(lv.get("coord2", 2.5))
            mean = theta_true.copy()
            mean[1] += a * theta_true[0] ** 2
            data = mean[:, None] + np.sqrt(var)[:, None] * rng.standard_normal((d, n))
            params = np.concatenate(
                [[a, 1.0 / float(spec.get("prior_variance", 1000.0))], 1.0 / var]
            )
        else:
            cov = np.asarray(spec.get("likelihood_cov", [[1.0, 0.999], [0.999, 1.0]]), float)
            if cov.shape != (d, d):
                raise ValueError(f"likelihood_cov must be {d} x {d}")
            data = (rng.multivariate_normal(theta_true, cov, n, method="cholesky")).T.copy()
            prior_var = float(
                spec.get("prior_variance_table_and_reference", spec.get("prior_variance", 100.0))
            )
            params = np.concatenate([[1.0 / prior_var], np.linalg.inv(cov).ravel()])
        start = theta_true.copy()
    data = np.ascontiguousarray(data, dtype=np.float32)  # the data set: these float32 values
    params = np.concatenate(
        [params, data.sum(axis=1, dtype=np.float64)]
    )  # column sums S: the unclipped sums
    return Problem(name, family, KINDS[family], data, params, temperature, theta_true, start)


def exact_posterior_draws(problem: Problem, m: int, rng: np.random.Generator) -> np.ndarray:
    """(m, d) exact draws of the tempered posterior: Theorem 12 (banana) or the Gaussian closed
    form (gauss). The circle has no exact sampler (ValueError)."""
    p, tn, d = problem.params, problem.temperature * problem.n, problem.dim
    xbar = problem.data.mean(axis=1, dtype=np.float64)
    if problem.kind == 0:
        tau = p[2 : 2 + d]
        prec = tn * tau + p[1]
        mu = tn * tau * xbar / prec
        draws = mu + rng.standard_normal((m, d)) / np.sqrt(prec)
        draws[:, 1] -= p[0] * draws[:, 0] ** 2  # theta_2 = u - a theta_1^2
        return draws
    if problem.kind == 1:
        prec_lik = p[1 : 1 + d * d].reshape(d, d)
        post_prec = p[0] * np.eye(d) + tn * prec_lik
        cov = np.linalg.inv(post_prec)
        mu = cov @ (tn * prec_lik @ xbar)
        return rng.multivariate_normal(mu, (cov + cov.T) / 2, m, method="cholesky")
    raise ValueError("the circle model has no exact posterior sampler")


def log_posterior(problem: Problem, thetas: np.ndarray) -> np.ndarray:
    """(k,) log of the tempered posterior density at ``thetas`` (k, d), up to a constant,
    from the data's sums (O(d^2) per theta)."""
    th = np.atleast_2d(np.asarray(thetas, float))
    p, n, T, x = problem.params, problem.n, problem.temperature, problem.data.astype(np.float64)
    s1 = x.sum(axis=1)
    if problem.kind == 2:
        s = (th**2).sum(axis=1)
        return -T * p[0] * (n * s * s - 2.0 * s * s1[0] + float((x[0] * x[0]).sum()))
    if problem.kind == 0:
        m = th.copy()
        m[:, 1] += p[0] * th[:, 0] ** 2
        s2 = (x * x).sum(axis=1)
        loglik = -0.5 * ((s2 - 2.0 * m * s1 + n * m * m) * p[2 : 2 + problem.dim]).sum(axis=1)
        u = m[:, 1]
        prior = -0.5 * p[1] * ((th**2).sum(axis=1) - th[:, 1] ** 2 + u * u)
    else:
        prec = p[1 : 1 + problem.dim**2].reshape(problem.dim, problem.dim)
        loglik = th @ (prec @ s1) - 0.5 * n * np.einsum("ki,ij,kj->k", th, prec, th)
        prior = -0.5 * p[0] * (th**2).sum(axis=1)
    return T * loglik + prior
