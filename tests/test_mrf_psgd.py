"""dpinfer.estimators.psgd: DP-SGD (Abadi et al. 2016) for pairwise MRFs, bernstein2020 Sec. 3.3.1.

The noise multiplier against dp-accounting's own RdpAccountant; the per-example clipped gradient
sum against a dense numpy reference; the noise sd by a statistical test; convergence to the MLE
when the noise vanishes; determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

from dpinfer.estimators import psgd as P
from dpinfer.estimators.mle import nonprivate_mle
from dpinfer.models.mrf_inference import exact_marginals, kl_divergence
from dpinfer.models.mrf_sampling import sample_records
from dpinfer.models.pairwise_mrf import (
    chain,
    dirichlet_theta,
    statistics,
    tables_from_records,
    tied_chain,
)


def _library_epsilon(sigma, q, steps, delta):
    """epsilon(delta) straight from dp-accounting with its default orders (no code of ours)."""
    acc = RdpAccountant()
    acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps)
    return acc.get_epsilon(delta)


@pytest.mark.parametrize(
    "epsilon, q, steps, delta", [(1.0, 0.01, 300, 1e-4), (0.5, 0.05, 60, 1e-3)]
)
def test_noise_multiplier_is_the_smallest_that_meets_epsilon(epsilon, q, steps, delta):
    sigma = P.dpsgd_noise_multiplier(epsilon, delta, q, steps)
    # the optimal order is below 64 here, where our orders are the library's defaults
    achieved = _library_epsilon(sigma, q, steps, delta)
    assert 0.99 * epsilon <= achieved <= epsilon
    assert _library_epsilon(0.98 * sigma, q, steps, delta) > epsilon


def test_noise_multiplier_is_smooth_where_the_default_orders_jump():
    # q = 1e-3, 3000 steps, delta = 1e-6: the default orders skip 64..127, so there epsilon(sigma)
    # falls ~40% within 1% of sigma; the densified orders keep the answer within 1% of the target
    epsilon, q, steps, delta = 0.1, 1e-3, 3000, 1e-6
    sigma = P.dpsgd_noise_multiplier(epsilon, delta, q, steps)
    assert 0.99 * epsilon <= P.dpsgd_epsilon(sigma, q, steps, delta) <= epsilon
    assert P.dpsgd_epsilon(0.98 * sigma, q, steps, delta) > epsilon
    assert _library_epsilon(sigma, q, steps, delta) >= P.dpsgd_epsilon(
        sigma, q, steps, delta
    )  # a tighter bound


def test_unreachable_settings_return_none():
    assert P.dpsgd_noise_multiplier(0.01, 1e-5, 0.1, 1000, max_noise_multiplier=2.0) is None
    # Abadi et al.'s moments accountant (orders <= 33) cannot go below log(1/delta)/32 at any sigma
    assert (
        P.dpsgd_noise_multiplier(0.1, 1e-4, 0.01, 100, max_noise_multiplier=100.0, max_order=33)
        is None
    )
    model = chain(3, 2)
    records = np.zeros((100, 3), dtype=np.uint8)
    assert (
        P.psgd(
            model,
            records,
            0.01,
            1e-2,
            learning_rate=1.0,
            clip=1.0,
            lot_size=10,
            epochs=2,
            rng=np.random.default_rng(0),
            max_noise_multiplier=1.0,
        )
        is None
    )


@pytest.mark.parametrize(
    "model", [chain(4, 3), chain(5, 3, order=2), tied_chain(4, 3)], ids=["chain", "chain3", "tied"]
)
@pytest.mark.parametrize("clip", [0.2, 1.5, 1e6])
def test_clipped_gradient_sum_equals_dense_reference(model, clip):
    rng = np.random.default_rng(7)
    records = rng.integers(0, model.n_states, size=(40, model.n_nodes)).astype(np.uint8)
    records[:5] = 0  # repeated cells: a tied block counts one record several times
    mu = statistics(model, exact_marginals(model, dirichlet_theta(model, rng)).edge)
    lot = rng.choice(40, size=25, replace=False)
    ref, n_ref = np.zeros(model.dim), 0
    for i in lot:
        g = statistics(model, tables_from_records(model, records[i : i + 1])) - mu
        norm = np.linalg.norm(g)
        ref += g * min(1.0, clip / norm)
        n_ref += norm > clip
    block_row, node_row = P.record_index_map(model)
    got, n_clipped = P.clipped_gradient_sum(
        records, lot, np.asarray(model.edges), block_row, node_row, mu, clip
    )
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
    assert n_clipped == n_ref
    if clip > 100:  # nothing clipped: the plain sum of statistics minus lot size times mu
        plain = statistics(model, tables_from_records(model, records[lot])) - len(lot) * mu
        np.testing.assert_allclose(got, plain, atol=1e-12)


def test_gradient_noise_has_sd_noise_multiplier_times_clip():
    # q = 1 and one step from theta = 0 with learning rate 1: theta_1 N = clipped sum + noise
    model, clip, n = chain(6, 4), 2.5, 50
    rng = np.random.default_rng(3)
    records = rng.integers(0, 4, size=(n, 6)).astype(np.uint8)
    sigma = P.dpsgd_noise_multiplier(2.0, 1e-3, 1.0, 1)
    block_row, node_row = P.record_index_map(model)
    mu0 = statistics(model, exact_marginals(model, np.zeros(model.dim)).edge)
    signal, _ = P.clipped_gradient_sum(
        records, np.arange(n), np.asarray(model.edges), block_row, node_row, mu0, clip
    )
    noise = np.concatenate(
        [
            P.psgd(
                model,
                records,
                2.0,
                1e-3,
                learning_rate=1.0,
                clip=clip,
                lot_size=n,
                epochs=1,
                rng=np.random.default_rng(seed),
                average=False,
            ).theta
            * n
            - signal
            for seed in range(30)
        ]
    )
    m = noise.size  # 30 * 96 draws
    assert abs(noise.mean()) < 5 * sigma * clip / math.sqrt(m)
    assert abs(noise.std() / (sigma * clip) - 1.0) < 5 * math.sqrt(0.5 / m)
    assert abs(noise.std() / sigma - 1.0) > 0.5  # the sd is sigma * clip, not sigma


def test_without_noise_or_clipping_psgd_reaches_the_mle():
    model = chain(4, 3)
    rng = np.random.default_rng(11)
    truth = dirichlet_theta(model, rng)
    records = sample_records(model, truth, 2000, rng)
    mle = nonprivate_mle(model, tables_from_records(model, records), 2000, 0.0)
    fit = P.psgd(
        model,
        records,
        1e8,
        1e-3,
        learning_rate=3.0,
        clip=1e3,
        lot_size=500,
        epochs=200,
        rng=np.random.default_rng(1),
    )
    assert fit.converged and fit.iterations == 800 and np.all(np.isfinite(fit.objective))
    # SGD on lots of 500 leaves a spread that tail averaging shrinks: KL(mle || fit) ~ 1e-4 here,
    # against 5e-3 between the truth and the MLE; learning rate 10 oscillates (KL ~ 0.5)
    assert kl_divergence(model, mle.theta, fit.theta) < 2e-3
    # the MLE maximises the mean log-likelihood; PSGD must get within the same tolerance of it
    s_bar = statistics(model, tables_from_records(model, records)) / 2000
    best = mle.theta @ s_bar - exact_marginals(model, mle.theta).log_z
    assert best - 2e-3 < fit.objective[-1] <= best + 1e-9


def test_psgd_is_deterministic_for_a_seed():
    model = chain(5, 3)
    records = sample_records(
        model, dirichlet_theta(model, np.random.default_rng(2)), 400, np.random.default_rng(4)
    )
    kw = P.tuning_grid(400, 1.0)[1]
    assert kw == dict(learning_rate=pytest.approx(0.6), clip=1.0, lot_size=20, epochs=5)
    a = P.psgd(model, records, 1.0, 1 / 400, rng=np.random.default_rng(5), **kw)
    b = P.psgd(model, records, 1.0, 1 / 400, rng=np.random.default_rng(5), **kw)
    c = P.psgd(model, records, 1.0, 1 / 400, rng=np.random.default_rng(6), **kw)
    np.testing.assert_array_equal(a.theta, b.theta)
    assert not np.array_equal(a.theta, c.theta)
    assert a.iterations == 100 and a.seconds >= 0 and np.all(np.isfinite(a.theta))
