"""Exact targets of the raisa2021 samplers (registry model ``dp_mcmc``): DP penalty (dpps,
dppa) and DP HMC (both gradient counts) on a small banana (n = 20, a = 0.3) whose exact
posterior is Theorem 12's, with clip bounds no ratio or gradient reaches (each case asserts
that nothing was clipped): with nothing clipped, the penalty makes the chains exact. The
penalty noise sd T tau sqrt(n) 2 b d is about 4 d, large enough that dropping the penalty is
detected (tests/test_raisa2021_samplers.py).

The batch samplers (minibatch DP penalty, DP Barker) are exact when the batch variance vanishes:
on a banana of n = 400 identical rows (Theorem 12 holds for any data) every batch mean is the
full mean. Minibatch DP penalty with B = 100 < n and a clip bound above every ratio (asserted)
is then DP penalty with the sensitivity of Theorem 8; DP Barker with B = n clips only ratio
sums beyond 0.99 sqrt(B) = 19.8, whose acceptance probability is within 3e-9 of 0 or 1 either
way (fewer than 0.1% of proposals, asserted), and its test N(0, 2) + V_corr is within
the mixture's error of the logistic (tests/test_raisa2021_minibatch.py bounds that error).
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from pathlib import Path

import numpy as np

from dpinfer.models import dp_mcmc
from dpinfer.models.barker_correction import load_vcorr
from dpinfer.samplers.registry import dp_chain_lengths, options_of, sampler

from ..harness import ExactCase

__all__ = [
    "CASES",
    "SPEC",
    "B_LLR",
    "B_GRAD",
    "small_banana",
    "exact_moments",
    "penalty_hyper",
    "hmc_hyper",
    "identical_rows",
    "identical_moments",
    "minibatch_hyper",
    "barker_hyper",
    "VCORR_FILE",
]

SPEC = dict(
    family="banana", dim=2, n=20, a=0.3, temperature=1.0, prior_variance=1000, theta_true=[0, 3]
)
B_LLR, B_GRAD = 60.0, 200.0


@lru_cache(maxsize=1)
def small_banana() -> dp_mcmc.Problem:
    return dp_mcmc.make_problem("small-banana", SPEC, np.random.default_rng(3))


@lru_cache(maxsize=1)
def exact_moments() -> tuple[np.ndarray, np.ndarray]:
    """Mean and sd of 10^6 Theorem-12 draws (their Monte Carlo error is 1/1000 of a posterior
    sd)."""
    draws = dp_mcmc.exact_posterior_draws(small_banana(), 1_000_000, np.random.default_rng(4))
    return draws.mean(axis=0), draws.std(axis=0)


def penalty_hyper(one_component: bool) -> dict:
    return {
        "tau": 0.008,
        "prop_sd": exact_moments()[1] * (1.0 if one_component else 0.8),
        "clip_bound": B_LLR,
    }


def hmc_hyper(reuse: bool) -> dict:
    # gradient noise sd 2 tau_g sqrt(n) b_g = 1.8: noisy gradients keep the chain exact (dp_hmc)
    return {
        "tau_l": 0.01,
        "tau_g": 0.001,
        "L": 2,
        "eta": 0.3,
        "mass_diag": 1.0,
        "clip_bound_llr": B_LLR,
        "clip_bound_grad": B_GRAD,
        "gradient_reuse": reuse,
    }


VCORR_FILE = (
    Path(__file__).resolve().parents[2] / "config" / "data" / "raisa2021" / "vcorr_C2.0_K100.tsv"
)
B_MINIBATCH = 0.5  # above every |r_j| / d of the identical-rows banana's moves (largest about 0.15)


@lru_cache(maxsize=1)
def identical_rows() -> dp_mcmc.Problem:
    """The n = 400 banana whose rows all equal the mean row of a simulated data set."""
    spec = dict(SPEC, n=400)
    problem = dp_mcmc.make_problem("identical-rows", spec, np.random.default_rng(3))
    row = problem.data.astype(np.float64).mean(axis=1).astype(np.float32)
    data = np.ascontiguousarray(np.repeat(row[:, None], problem.n, axis=1))
    params = problem.params.copy()
    params[-data.shape[0] :] = data.sum(axis=1, dtype=np.float64)
    return dataclasses.replace(problem, data=data, params=params)


@lru_cache(maxsize=1)
def identical_moments() -> tuple[np.ndarray, np.ndarray]:
    draws = dp_mcmc.exact_posterior_draws(identical_rows(), 1_000_000, np.random.default_rng(4))
    return draws.mean(axis=0), draws.std(axis=0)


def minibatch_hyper(one_component: bool) -> dict:
    # noise sd sqrt(tau) c about 1.2 at a typical move: dropping the corrections is detected
    return {
        "tau_variance_multiplier": 0.5,
        "clip_bound": B_MINIBATCH,
        "batch_size": 100,
        "prop_sd": identical_moments()[1] * (1.5 if one_component else 0.8),
    }


def barker_hyper() -> dict:
    return {
        "prop_sd": identical_moments()[1],
        "batch_size": identical_rows().n,
        "vcorr": load_vcorr(VCORR_FILE),
    }


def _case(
    algo: str, hyper: dict, iterations: int, seed: int, problem=None, moments=None
) -> ExactCase:
    problem = problem or small_banana()
    run = sampler("dp_mcmc", algo)
    chain = run(
        problem,
        np.random.default_rng(seed),
        start=problem.theta_true,
        **options_of(run, hyper),
        **dp_chain_lengths(iterations),
    )
    if algo == "barker":  # clipped only where |lambda| > 19.8: the test's answer moves by < 3e-9
        assert (
            chain.info.detail.llr_clip_fraction < 1e-3 and chain.info.clipped["batch_variance"] == 0
        )
    else:
        assert all(v == 0 for v in chain.info.clipped.values()), chain.info.clipped
    assert 0.05 < chain.info.acceptance < 0.6, chain.info.acceptance
    mean, sd = (moments or exact_moments)()
    return ExactCase(chain.kept, mean, sd)


def _batch_case(algo: str, hyper: dict, seed: int) -> ExactCase:
    return _case(algo, hyper, 300_000, seed, identical_rows(), identical_moments)


def _clipping_case(algo: str, hyper: dict, iterations: int, seed: int) -> ExactCase:
    """The clipping study's non-DP samplers with a bound no ratio reaches: exact MH and HMC."""
    problem = small_banana()
    hyper = dict(hyper, clip_bound=1e6, clip_rule="euclidean")
    run = sampler("dp_mcmc", algo)
    chain = run(
        problem,
        np.random.default_rng(seed),
        start=problem.theta_true,
        **options_of(run, hyper),
        **dp_chain_lengths(iterations),
    )
    assert all(v == 0 for v in chain.info.clipped.values()), chain.info.clipped
    assert 0.05 < chain.info.acceptance < 0.99, chain.info.acceptance
    mean, sd = exact_moments()
    return ExactCase(chain.kept, mean, sd)


CASES = {
    ("dp_mcmc", "dpps"): lambda: _case("dpps", penalty_hyper(False), 400_000, 21),
    ("dp_mcmc", "dppa"): lambda: _case("dppa", penalty_hyper(True), 400_000, 21),
    ("dp_mcmc", "hmc"): lambda: [
        _case("hmc", hmc_hyper(True), 300_000, 22),
        _case("hmc", hmc_hyper(False), 300_000, 22),
    ],
    ("dp_mcmc", "mdpps"): lambda: _batch_case("mdpps", minibatch_hyper(False), 23),
    ("dp_mcmc", "mdppa"): lambda: _batch_case("mdppa", minibatch_hyper(True), 23),
    ("dp_mcmc", "barker"): lambda: _batch_case("barker", barker_hyper(), 24),
    ("dp_mcmc", "rwmh_nondp"): lambda: _clipping_case(
        "rwmh_nondp", {"prop_sd": exact_moments()[1]}, 300_000, 25
    ),
    ("dp_mcmc", "hmc_nondp"): lambda: _clipping_case(
        "hmc_nondp", {"L": 2, "eta": 0.3, "mass_diag": 1.0}, 100_000, 26
    ),
}
