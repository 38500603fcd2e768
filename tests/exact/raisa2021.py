"""Exact targets of the raisa2021 samplers (registry model ``dp_mcmc``): DP penalty (dpps,
dppa) and DP HMC (both gradient counts) on a small banana (n = 20, a = 0.3) whose exact
posterior is Theorem 12's, with clip bounds no ratio or gradient reaches (each case asserts
that nothing was clipped): with nothing clipped, the penalty makes the chains exact. The
penalty noise sd T tau sqrt(n) 2 b d is about 4 d, large enough that dropping the penalty is
detected (tests/test_raisa2021_samplers.py).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from dpinfer.models import dp_mcmc
from dpinfer.samplers.registry import sampler

from ..harness import ExactCase

__all__ = ["CASES", "SPEC", "B_LLR", "B_GRAD", "small_banana", "exact_moments", "penalty_hyper", "hmc_hyper"]

SPEC = dict(family="banana", dim=2, n=20, a=0.3, temperature=1.0, prior_variance=1000, theta_true=[0, 3])
B_LLR, B_GRAD = 60.0, 200.0


@lru_cache(maxsize=1)
def small_banana() -> dp_mcmc.Problem:
    return dp_mcmc.make_problem("small-banana", SPEC, np.random.default_rng(3))


@lru_cache(maxsize=1)
def exact_moments() -> tuple[np.ndarray, np.ndarray]:
    """Mean and sd of 10^6 Theorem-12 draws (their Monte Carlo error is 1/1000 of a posterior sd)."""
    draws = dp_mcmc.exact_posterior_draws(small_banana(), 1_000_000, np.random.default_rng(4))
    return draws.mean(axis=0), draws.std(axis=0)


def penalty_hyper(one_component: bool) -> dict:
    return {"tau": 0.008, "prop_sd": exact_moments()[1] * (1.0 if one_component else 0.8), "clip_bound": B_LLR}


def hmc_hyper(reuse: bool) -> dict:
    # gradient noise sd 2 tau_g sqrt(n) b_g = 1.8: noisy gradients keep the chain exact (dp_hmc)
    return {"tau_l": 0.01, "tau_g": 0.001, "L": 2, "eta": 0.3, "mass_diag": 1.0, "clip_bound_llr": B_LLR,
            "clip_bound_grad": B_GRAD, "gradient_reuse": reuse}


def _case(algo: str, hyper: dict, iterations: int, seed: int) -> ExactCase:
    problem = small_banana()
    chain = sampler("dp_mcmc", algo)(problem, problem.theta_true, iterations, hyper, np.random.default_rng(seed))
    assert all(v == 0 for v in chain.info.clipped.values()), chain.info.clipped
    assert 0.05 < chain.info.acceptance < 0.6, chain.info.acceptance
    mean, sd = exact_moments()
    return ExactCase(chain.kept, mean, sd)


CASES = {
    ("dp_mcmc", "dpps"): lambda: _case("dpps", penalty_hyper(False), 400_000, 21),
    ("dp_mcmc", "dppa"): lambda: _case("dppa", penalty_hyper(True), 400_000, 21),
    ("dp_mcmc", "hmc"): lambda: [_case("hmc", hmc_hyper(True), 300_000, 22),
                                 _case("hmc", hmc_hyper(False), 300_000, 22)],
}
