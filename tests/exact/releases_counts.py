"""Exact target of the latent-count MCMC of a noisy table (samplers/latent_counts.py): the
posterior of p given every released cell, enumerated over all count vectors (a Dirichlet mixture
with weights DirichletMultinomial(c) prod_k f(y_k - c_k)), for a discrete mechanism and for a
release of only the first K - 1 cells (bernstein2020's convention)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from dpinfer.mechanisms import DoubleGeometric, Gaussian
from dpinfer.models import expfam
from dpinfer.samplers.latent_counts import run_latent_counts

from ..harness import ExactCase

__all__ = ["CASES", "enumerated_dirichlet_mixture"]


def enumerated_dirichlet_mixture(y, n, alpha, mechanism):
    """(mean, sd) of p | y for K = 3 cells by enumeration of every composition of n; ``y`` holds
    the released cells (the first len(y))."""
    alpha = np.asarray(alpha, dtype=float)
    c1, c2 = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = c1 + c2 <= n
    c = np.stack([c1[ok], c2[ok], n - c1[ok] - c2[ok]], axis=1).astype(float)
    logw = stats.dirichlet_multinomial.logpmf(c, alpha, n)
    for k, yk in enumerate(np.asarray(y, dtype=float)):
        logw = logw + mechanism.logpdf(yk - c[:, k])
    w = np.exp(logw - logw.max())
    w /= w.sum()
    post = alpha + c
    tot = post.sum(axis=1, keepdims=True)
    mean = w @ (post / tot)
    sd = np.sqrt(w @ (post * (post + 1) / (tot * (tot + 1))) - mean**2)
    return mean, sd


def multinomial_latent_counts() -> list[ExactCase]:
    cases = []
    for seed, (y, n, alpha, mech) in enumerate(
        [
            (np.array([3, 14, 1]), 20, np.array([1.0, 2.0, 1.0]), DoubleGeometric(0.3)),
            (np.array([6.0, 30.0]), 60, np.array([5.0, 5.0, 5.0]), Gaussian(4.0)),
        ]
    ):
        mean, sd = enumerated_dirichlet_mixture(y, n, alpha, mech)
        chain = run_latent_counts(
            expfam.Problem(y, n, alpha, mech),
            burnin=1000,
            keep=40000,
            rng=np.random.default_rng(40 + seed),
        )
        cases.append(ExactCase(chain.kept, mean, sd))
    return cases


CASES = {("multinomial", "latent_counts"): multinomial_latent_counts}
