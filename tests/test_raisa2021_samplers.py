"""raisa2021 samplers: the exact-posterior check of tests/exact/raisa2021.py detects the bias of
the uncorrected penalty; bookkeeping (clip fractions, burn-in, determinism, trajectories)."""

from __future__ import annotations

import numpy as np
import pytest

from dpinfer.samplers.dp_hmc import run_dp_hmc
from dpinfer.samplers.dp_penalty import run_dp_penalty
from tests.exact.raisa2021 import B_GRAD, B_LLR, exact_moments, penalty_hyper, small_banana
from tests.harness import ExactCase, check_exact, z_scores

# The exact-posterior checks of the three samplers are in tests/exact/raisa2021.py (run by
# tests/test_exact_targets.py); here: the same setting without the penalty must fail them.


@pytest.fixture(scope="module")
def problem():
    return small_banana()


@pytest.fixture(scope="module")
def exact():
    return exact_moments()


def _penalty(problem, exact, seed, one_component, correction, iterations=400_000):
    return run_dp_penalty(
        problem,
        problem.theta_true,
        iterations,
        **penalty_hyper(one_component),
        rng=np.random.default_rng(seed),
        one_component=one_component,
        penalty_correction=correction,
    )


def _hmc(problem, seed, reuse, correction, iterations=300_000, **kw):
    args = dict(
        tau_l=0.01,
        tau_g=0.001,
        steps=2,
        step_size=0.3,
        mass=1.0,
        clip_llr=B_LLR,
        clip_grad=B_GRAD,
        rng=np.random.default_rng(seed),
        gradient_reuse=reuse,
        penalty_correction=correction,
    )
    args.update(kw)
    return run_dp_hmc(problem, problem.theta_true, iterations, **args)


def _max_z(chain, exact):
    _, _, z_mean, z_sd = z_scores(chain.kept, exact[0], exact[1], 0.0, 0.0)
    return max(z_mean.max(), z_sd.max())


@pytest.mark.parametrize("one_component", [False, True], ids=["dpps", "dppa"])
def test_dp_penalty_without_the_penalty_is_detected(problem, exact, one_component):
    chain = _penalty(problem, exact, 21, one_component, False)
    assert chain.info.clipped["llr"] == 0
    assert _max_z(chain, exact) > 5.0
    with pytest.raises(AssertionError):
        check_exact(ExactCase(chain.kept, exact[0], exact[1]))


def test_dp_hmc_without_the_penalty_is_detected(problem, exact):
    # HMC conserves energy, so the missing penalty biases it less than the random walk: the
    # check needs the long chain (z about 5-8 at 600,000 iterations over seeds; the corrected
    # chain of the same length stays below 2).
    chain = _hmc(problem, 22, True, False, iterations=600_000)
    assert chain.info.clipped == {"llr": 0, "grad": 0}
    assert _max_z(chain, exact) > 4.0


def test_clip_fractions_are_zero_with_a_huge_bound_and_one_with_a_zero_bound(problem):
    rng = np.random.default_rng(0)
    for one in (False, True):
        huge = run_dp_penalty(
            problem,
            problem.theta_true,
            50,
            tau=0.0,
            prop_sd=0.1,
            clip_bound=1e12,
            rng=rng,
            one_component=one,
        )
        zero = run_dp_penalty(
            problem,
            problem.theta_true,
            50,
            tau=0.5,
            prop_sd=0.1,
            clip_bound=0.0,
            rng=rng,
            one_component=one,
        )
        assert huge.info.detail.llr_clip_fraction == 0.0 and huge.info.clipped["llr"] == 0
        assert (
            zero.info.detail.llr_clip_fraction == 1.0 and zero.info.clipped["llr"] == 50 * problem.n
        )
    kw = dict(tau_l=0.0, tau_g=0.0, steps=3, step_size=0.1, mass=1.0, rng=rng)
    huge = run_dp_hmc(problem, problem.theta_true, 20, clip_llr=1e12, clip_grad=1e12, **kw)
    zero = run_dp_hmc(problem, problem.theta_true, 20, clip_llr=0.0, clip_grad=0.0, **kw)
    assert huge.info.detail.llr_clip_fraction == 0.0 and huge.info.detail.grad_clip_fraction == 0.0
    # clip_grad = 0: zero gradients, so the trajectory still moves (momentum) and every ratio is
    # clipped
    assert zero.info.detail.llr_clip_fraction == 1.0 and zero.info.detail.grad_clip_fraction == 1.0


def test_gradient_evaluation_counts_and_burnin(problem):
    kw = dict(
        tau_l=0.01,
        tau_g=0.01,
        steps=4,
        step_size=0.1,
        mass=[1.0, 0.5],
        clip_llr=B_LLR,
        clip_grad=B_GRAD,
    )
    reuse = run_dp_hmc(problem, problem.theta_true, 11, rng=np.random.default_rng(1), **kw)
    fresh = run_dp_hmc(
        problem, problem.theta_true, 11, rng=np.random.default_rng(1), gradient_reuse=False, **kw
    )
    assert reuse.info.detail.gradient_evaluations == 11 * 4 + 1
    assert fresh.info.detail.gradient_evaluations == 11 * (4 + 1)
    for iters in (1, 2, 11, 12):
        ch = run_dp_penalty(
            problem,
            problem.theta_true,
            iters,
            tau=0.01,
            prop_sd=0.1,
            clip_bound=B_LLR,
            rng=np.random.default_rng(2),
        )
        assert ch.draws.shape == (iters + 1, 2) and ch.burnin == (iters - 1) // 2 + 1
        np.testing.assert_array_equal(ch.draws[0], problem.theta_true)
    assert reuse.burnin == 6 and reuse.draws.shape == (12, 2)
    with pytest.raises(ValueError):
        run_dp_penalty(
            problem,
            problem.theta_true,
            0,
            tau=0.01,
            prop_sd=0.1,
            clip_bound=1.0,
            rng=np.random.default_rng(2),
        )


def test_same_seed_gives_identical_draws(problem):
    for one in (False, True):
        a, b = (
            run_dp_penalty(
                problem,
                problem.theta_true,
                300,
                tau=0.01,
                prop_sd=[0.5, 0.8],
                clip_bound=B_LLR,
                rng=np.random.default_rng(7),
                one_component=one,
            )
            for _ in range(2)
        )
        np.testing.assert_array_equal(a.draws, b.draws)
    a, b = (_hmc(problem, 7, True, True, iterations=300) for _ in range(2))
    np.testing.assert_array_equal(a.draws, b.draws)
    c = _hmc(problem, 8, True, True, iterations=300)
    assert not np.array_equal(a.draws, c.draws)


def test_trajectory_record_ends_at_the_next_draw_when_accepted(problem):
    iters, steps = 200, 5
    chain = _hmc(problem, 9, True, True, iterations=iters, steps=steps, record_trajectory=True)
    traj = chain.info.detail.trajectory
    assert traj.shape == (iters, steps + 1, 2)
    np.testing.assert_array_equal(traj[:, 0], chain.draws[:-1])
    moved = np.any(chain.draws[1:] != chain.draws[:-1], axis=1)
    assert 0 < moved.sum() < iters
    np.testing.assert_array_equal(traj[moved, -1], chain.draws[1:][moved])
    assert np.all(
        np.any(traj[:, 1:] != traj[:, :-1], axis=2)
    )  # every leapfrog step moves: no aliasing
    assert _hmc(problem, 9, True, True, iterations=5).info.detail.trajectory is None
