"""Tests of the Chapter 3 point estimators (bernstein2020): simplex projection, MLE, NLBP, CGM-EM.

Small models (T = 4..6, K = 3..4) with exact junction-tree inference; noise is drawn only through
:class:`dpinfer.mechanisms.Laplace`. Every check can fail: tolerances are stated next to each.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpinfer.estimators.cgm import cgm_em, edge_model, nlbp, stalled
from dpinfer.estimators.mle import (
    fit_mle,
    naive_mle,
    nonprivate_mle,
    project_simplex,
    random_estimator,
)
from dpinfer.mechanisms import Laplace
from dpinfer.models.mrf_inference import exact_marginals, kl_divergence
from dpinfer.models.mrf_sampling import sample_tables
from dpinfer.models.pairwise_mrf import (
    chain,
    dirichlet_theta,
    edge_log_potentials,
    statistics,
    tied_chain,
)


def _simplex_reference(v):
    """Exact projection by enumerating supports S: x_S = v_S - (sum v_S - 1) / |S| must be > 0."""
    best, best_d = None, np.inf
    for r in range(1, len(v) + 1):
        for S in itertools.combinations(range(len(v)), r):
            S = list(S)
            x = np.zeros_like(v)
            x[S] = v[S] - (v[S].sum() - 1.0) / r
            if np.all(x[S] >= 0) and (d := np.sum((x - v) ** 2)) < best_d:
                best, best_d = x, d
    return best


def test_project_simplex_matches_exhaustive_reference_and_keeps_feasible_points():
    rng = np.random.default_rng(0)
    v = np.concatenate(
        [rng.normal(0, 1, (30, 6)), rng.normal(0.2, 0.5, (30, 6)), -rng.random((5, 6))]
    )
    got = project_simplex(v)
    ref = np.array([_simplex_reference(row) for row in v])
    np.testing.assert_allclose(got, ref, atol=1e-12)
    feasible = rng.dirichlet(np.ones(6), size=20)
    feasible[:5, :2] = 0.0
    feasible /= feasible.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(project_simplex(feasible), feasible, atol=1e-15)
    assert project_simplex(v.reshape(5, 13, 6)).shape == (5, 13, 6)


@pytest.mark.parametrize(
    "make",
    [lambda: chain(5, 3), lambda: chain(5, 3, order=2), lambda: tied_chain(6, 3)],
    ids=["chain", "order2", "tied"],
)
def test_mle_on_exact_marginals_recovers_the_distribution(make):
    model = make()
    rng = np.random.default_rng(1)
    theta = dirichlet_theta(model, rng)
    theta[model.n_blocks * 9 :] = rng.normal(
        0, 1, model.dim - model.n_blocks * 9
    )  # node potentials
    truth = exact_marginals(model, theta)
    N = 1000.0
    fit = fit_mle(model, statistics(model, N * truth.edge), N, 1e-6, tol=1e-9, max_iter=2000)
    assert fit.converged and np.all(np.isfinite(fit.theta))
    np.testing.assert_allclose(exact_marginals(model, fit.theta).edge, truth.edge, atol=1e-6)
    assert kl_divergence(model, theta, fit.theta, truth) < 1e-8


def test_own_lbfgs_agrees_with_scipy():
    model = chain(5, 3)
    rng = np.random.default_rng(2)
    theta = dirichlet_theta(model, rng)
    y = Laplace.calibrated(1.0, model.n_cliques).release(rng, sample_tables(model, theta, 500, rng))
    a, b = (
        naive_mle(model, y, 500, 0.5, project=False, tol=1e-8, method=m) for m in ("lbfgs", "scipy")
    )
    assert a.converged  # scipy's own stop (ftol / line search) may end just short of gtol = 1e-8
    np.testing.assert_allclose(a.objective, b.objective, rtol=1e-9)
    np.testing.assert_allclose(a.theta, b.theta, atol=1e-5)


def test_reference_estimators_are_finite_and_ordered():
    model = chain(5, 3)
    rng = np.random.default_rng(3)
    theta = dirichlet_theta(model, rng)
    n = sample_tables(model, theta, 5000, rng)
    kl_np = kl_divergence(model, theta, nonprivate_mle(model, n, 5000, 0.1).theta)
    kl_rand = kl_divergence(model, theta, random_estimator(model, 5000, 0.1, rng).theta)
    assert np.isfinite(kl_np) and np.isfinite(kl_rand) and kl_np < 0.05 < kl_rand


def test_nlbp_without_noise_gives_bp_marginals():
    model = chain(5, 3)
    theta = dirichlet_theta(model, np.random.default_rng(4))
    y = np.zeros((model.n_edges, 3, 3))
    n, info = nlbp(model, theta, y, 1000.0, 1e12, tol=1e-10)
    assert info.converged
    np.testing.assert_allclose(n, 1000.0 * exact_marginals(model, theta).edge, atol=1e-6)


def test_nlbp_fixed_point_without_kinks():
    """y far from every BP count: sign(y - n) is fixed, so n = N mu(theta + sign(y - n) / b)
    exactly."""
    model, N, b = chain(4, 3), 1000.0, 3.0
    theta = dirichlet_theta(model, np.random.default_rng(5))
    sgn = np.random.default_rng(6).choice([-1.0, 1.0], size=(model.n_edges, 3, 3))
    y = N * exact_marginals(model, theta).edge + sgn * N
    for damp_on in ("gradient", "counts"):
        n, info = nlbp(model, theta, y, N, b, tol=1e-9, max_iter=500, damp_on=damp_on)
        assert info.converged and info.step < 1e-9
        expect = (
            N
            * exact_marginals(
                edge_model(model), (edge_log_potentials(model, theta) + np.sign(y - n) / b).ravel()
            ).edge
        )
        assert np.abs(n - expect).sum(axis=(1, 2)).max() / N < 1e-8


def _tree_objective(model, theta, n, y, b, N):
    """theta.n + H(n) + log p(y | n) on a chain, with the exact tree entropy of the tables n."""
    mu = n / N
    h_edge = -np.sum(mu * np.log(mu))
    node = np.concatenate([mu[:1].sum(axis=2), mu.sum(axis=1)])
    h_node = -np.sum(node * np.log(node), axis=1)
    deg = np.bincount(model.edges.ravel())
    return (
        np.sum(edge_log_potentials(model, theta) * n)
        + N * (h_edge - np.sum((deg - 1) * h_node))
        + np.sum(Laplace(scale=b).logpdf(y - n))
    )


def test_nlbp_with_laplace_noise_converges_to_the_map():
    """Eq. (3.6) is concave on a tree: no mix towards another feasible n may improve it."""
    model, N = chain(5, 3), 1000.0
    rng = np.random.default_rng(7)
    theta = dirichlet_theta(model, rng)
    mech = Laplace.calibrated(0.5, model.n_cliques)
    y = mech.release(rng, sample_tables(model, theta, int(N), rng))
    n, info = nlbp(model, theta, y, N, mech.scale, tol=1e-6, max_iter=2000, min_damping=1e-5)
    assert info.converged
    assert np.all(np.abs(info.gradient) <= 1.0 + 1e-12)
    base = _tree_objective(model, theta, n, y, mech.scale, N)
    um, lp = edge_model(model), edge_log_potentials(model, theta)
    for _ in range(30):
        other = N * exact_marginals(um, (lp + rng.normal(0, 0.5, lp.shape)).ravel()).edge
        for delta in (1e-1, 1e-2):
            # allowance: the NLBP step tolerance times the largest |d objective / d n|
            # (~ |log mu| + 1/b)
            assert (
                _tree_objective(model, theta, n + delta * (other - n), y, mech.scale, N)
                <= base + 1e-3
            )


def _noisy_chain(seed, T=5, K=3, N=1000, eps=0.5):
    rng = np.random.default_rng(seed)
    model = chain(T, K)
    theta = dirichlet_theta(model, rng)
    mech = Laplace.calibrated(eps, model.n_cliques)
    return model, theta, mech.release(rng, sample_tables(model, theta, N, rng)), mech.scale, N


def test_cgm_em_objective_does_not_decrease():
    model, theta, y, b, N = _noisy_chain(8)
    start = naive_mle(model, y, N, 1.0)
    fit = cgm_em(model, y, N, b, 1.0, theta0=start.theta, nlbp_tol=1e-6, em_max_iter=30)
    assert np.all(np.isfinite(fit.objective)) and len(fit.objective) >= 3
    # each E-step is solved to step < nlbp_tol in L1 / N; its objective error is
    # ~ N * tol * |d J / d n|
    assert np.diff(fit.objective).min() > -0.05, np.diff(fit.objective)
    assert fit.objective[-1] > fit.objective[0] + 1.0


def test_cgm_beats_naive_mle_in_kl():
    """Averaged over 4 seeds at eps = 0.2, N = 1000 (noise dominates): CGM at most 0.8 x naive
    KL."""
    kl_naive, kl_cgm = [], []
    for seed in range(4):
        model, theta, y, b, N = _noisy_chain(100 + seed, T=5, K=3, N=1000, eps=0.2)
        naive = naive_mle(model, y, N, 0.1)
        cgm = cgm_em(model, y, N, b, 0.1, theta0=naive.theta)
        kl_naive.append(kl_divergence(model, theta, naive.theta))
        kl_cgm.append(kl_divergence(model, theta, cgm.theta))
    assert np.mean(kl_cgm) < 0.8 * np.mean(kl_naive), (kl_naive, kl_cgm)


def test_em_stops_when_its_best_objective_stalls_not_on_one_steps_jitter():
    """The stopping rule (cgm.em_tol over cgm.em_window iterations): a geometric ascent stops once
    a window gains at most tol; a plateau with jitter much larger than tol (an E-step solved to a
    tolerance) stops after one window without a new best; a rise with jitter does not stop."""
    tol, w = 1e-3, 10
    ascent = 1.0 - 0.5 ** np.arange(40)
    stops = [k for k in range(1, 41) if stalled(ascent[:k], tol, w)]
    assert stops and ascent[stops[0] - 1] - ascent[stops[0] - 1 - w] <= tol
    assert not stalled(ascent[: stops[0] - 1], tol, w)  # not before
    rng = np.random.default_rng(0)
    plateau = np.r_[np.linspace(0, 5, 20), 5 + 0.1 * rng.standard_normal(400)]
    first = next(k for k in range(1, plateau.size + 1) if stalled(plateau[:k], tol, w))
    assert 20 < first < 400  # stops on the plateau, although single steps move by ~0.1 >> tol
    assert not any(stalled(plateau[:k], tol, w) for k in range(1, 21))
    rising = np.linspace(0, 5, 200) + 0.1 * rng.standard_normal(200)
    assert not any(stalled(rising[:k], tol, w) for k in range(1, 201))
    assert not stalled(ascent[:w], tol, w)  # never within the first window
