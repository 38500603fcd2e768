"""Pairwise MRF structure, junction-tree and loopy-BP inference, KL, and exact samplers
(bernstein2020 ch. 3).

Every inference result is checked against enumeration of all K^T states on tiny models; the samplers
are checked with tests whose tolerances come from the multinomial variance (and shown to reject
wrong marginals).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpinfer.models.mrf_inference import (
    Marginals,
    exact_marginals,
    junction_tree,
    kl_divergence,
    log_partition,
    loopy_bp,
    scaled_pass,
    treewidth,
)
from dpinfer.models.mrf_sampling import sample_records, sample_tables
from dpinfer.models.pairwise_mrf import (
    PairwiseMRF,
    chain,
    dirichlet_theta,
    edge_log_potentials,
    erdos_renyi,
    statistics,
    tables_from_records,
    theta_dot,
    tied_chain,
)

LOOPY = PairwiseMRF(
    4, 3, np.array([[0, 1], [1, 2], [2, 3], [0, 3], [0, 2]]), node_params=(1, 3)
)  # 4-cycle + chord
TREE = PairwiseMRF(5, 3, np.array([[0, 1], [1, 2], [1, 3], [3, 4]]), node_params=(2, 4))
TIED = tied_chain(6, 3)


def brute_force_marginals(model: PairwiseMRF, theta: np.ndarray) -> Marginals:
    """Marginals and A(theta) by enumerating all K^T joint states (the reference: K^T <= ~5e6)."""
    k, n = model.n_states, model.n_nodes
    if k**n > 5_000_000:
        raise ValueError("too many joint states to enumerate")
    lp = edge_log_potentials(model, theta)
    logp = np.zeros((k,) * n)
    for e, (i, j) in enumerate(model.edges):
        shape = [1] * n
        shape[i], shape[j] = k, k
        logp = logp + lp[e].reshape(shape)
    mx = logp.max()
    log_z = float(mx + np.log(np.exp(logp - mx).sum()))
    p = np.exp(logp - log_z)
    edge = np.stack(
        [p.sum(axis=tuple(a for a in range(n) if a not in (i, j))) for i, j in model.edges]
    )
    node = np.stack([p.sum(axis=tuple(a for a in range(n) if a != v)) for v in range(n)])
    return Marginals(edge, node, log_z)


def _theta(model, seed, scale=1.5):
    return np.random.default_rng(seed).normal(scale=scale, size=model.dim)


def _close(a, b, tol=1e-10):
    np.testing.assert_allclose(a.edge, b.edge, atol=tol, rtol=0)
    np.testing.assert_allclose(a.node, b.node, atol=tol, rtol=0)
    assert abs(a.log_z - b.log_z) < tol


@pytest.mark.parametrize(
    "model", [LOOPY, TREE, TIED, chain(6, 3, order=3)], ids=["loopy", "tree", "tied", "chain3"]
)
@pytest.mark.parametrize("log_domain", [False, True])
def test_exact_marginals_match_enumeration(model, log_domain):
    for seed in range(3):
        theta = _theta(model, seed)
        _close(
            exact_marginals(model, theta, log_domain=log_domain),
            brute_force_marginals(model, theta),
        )
        assert abs(log_partition(model, theta) - brute_force_marginals(model, theta).log_z) < 1e-10


@pytest.mark.parametrize("model", [TREE, TIED], ids=["tree", "tied"])
def test_loopy_bp_is_exact_on_trees(model):
    theta = _theta(model, 4)
    bp = loopy_bp(model, theta, damping=0.5, tol=1e-13, max_iter=2000)
    assert bp.converged
    _close(bp, brute_force_marginals(model, theta))


def test_loopy_bp_on_a_loopy_graph_is_close_but_not_exact():
    theta = _theta(LOOPY, 5, scale=0.3)
    bp, exact = loopy_bp(LOOPY, theta, tol=1e-12), brute_force_marginals(LOOPY, theta)
    assert bp.converged and np.all(np.isfinite(bp.edge))
    assert 1e-12 < np.abs(bp.edge - exact.edge).max() < 0.05
    np.testing.assert_allclose(bp.edge.sum(axis=(1, 2)), 1.0, atol=1e-12)


@pytest.mark.parametrize("values", [(-50.0, 50.0), (-1000.0, 0.0), (-5000.0, 3000.0)])
def test_extreme_theta_gives_finite_exact_results(values):
    rng = np.random.default_rng(6)
    for _ in range(5):
        theta = rng.choice(values, size=LOOPY.dim)
        exact, brute = exact_marginals(LOOPY, theta), brute_force_marginals(LOOPY, theta)
        assert np.all(np.isfinite(exact.edge)) and np.isfinite(exact.log_z)
        _close(exact, brute, tol=1e-9 * max(1.0, abs(brute.log_z)))
        bp = loopy_bp(TREE, rng.choice(values, size=TREE.dim), max_iter=50)
        assert np.all(np.isfinite(bp.edge)) and np.isfinite(bp.log_z)


def test_conflicting_potentials_fall_back_to_log_space():
    # edge (0,1) forces x1 = 0, edge (1,2) forces x1 = 1: every state has weight ~exp(-1000)
    model = chain(3, 2)
    lp = np.full((2, 2, 2), -1000.0)
    lp[0, :, 0], lp[1, 1, :] = 0.0, 0.0
    theta = lp.ravel()
    assert scaled_pass(junction_tree(model), edge_log_potentials(model, theta), 2) is None
    _close(exact_marginals(model, theta), brute_force_marginals(model, theta), tol=1e-9)


def test_wide_edge_spans_do_not_lose_mass_to_underflow():
    """Edge tables spanning more than ~708 nats underflow entries of their max-scaled factors; a
    message can scale those back up until they dominate (A(theta) was 100 nats low on these
    chains, and the KL of an overfitted naive-MLE fit came out negative). The span guard sends
    such potentials to the log-space pass: A and the marginals equal enumeration."""
    model = chain(5, 4)
    for seed in (23, 99, 125):  # seeds where the unguarded scaled pass lost mass
        rng = np.random.default_rng(seed)
        theta = rng.choice([0.0, -400.0, -800.0, 500.0], size=model.dim) + rng.normal(
            0, 1, model.dim
        )
        brute = brute_force_marginals(model, theta)
        assert log_partition(model, theta) == pytest.approx(
            brute.log_z, abs=1e-9 * abs(brute.log_z)
        )
        _close(exact_marginals(model, theta), brute, tol=1e-9 * abs(brute.log_z))


def test_treewidths_and_structures():
    assert treewidth(chain(10, 10)) == 1
    assert treewidth(chain(10, 10, order=3)) == 3
    assert treewidth(LOOPY) == 2
    assert treewidth(tied_chain(24, 6)) == 1
    er = erdos_renyi(10, 4, 1 / 3, np.random.default_rng(0))
    assert np.all(er.edges[:, 0] < er.edges[:, 1])
    assert np.array_equal(er.edges, er.edges[np.lexsort((er.edges[:, 1], er.edges[:, 0]))])
    jt = junction_tree(er)
    for c, cl in enumerate(jt.cliques):  # running intersection: a node's cliques form a subtree
        for v in cl:
            if v in jt.sep[c]:
                assert v in jt.cliques[jt.parent[c]]
    assert TIED.dim == 9 + 3 and TIED.n_blocks == 1 and TIED.n_cliques == 5


def test_dirichlet_theta_is_log_of_a_distribution_per_block():
    model = tied_chain(5, 4)
    theta = dirichlet_theta(model, np.random.default_rng(1))
    assert np.isclose(np.exp(theta[:16]).sum(), 1.0) and np.all(theta[16:] == 0)


def test_kl_is_zero_at_truth_and_matches_enumeration():
    theta, hat = _theta(LOOPY, 7), _theta(LOOPY, 8)
    assert kl_divergence(LOOPY, theta, theta) == 0.0
    grids = []
    for th in (theta, hat):
        lp, logp = edge_log_potentials(LOOPY, th), np.zeros((3,) * 4)
        for e, (i, j) in enumerate(LOOPY.edges):
            shape = [1] * 4
            shape[i], shape[j] = 3, 3
            logp = logp + lp[e].reshape(shape)
        grids.append(logp - brute_force_marginals(LOOPY, th).log_z)
    brute = float(np.sum(np.exp(grids[0]) * (grids[0] - grids[1])))
    assert abs(kl_divergence(LOOPY, theta, hat) - brute) < 1e-10


def test_statistics_are_the_gradient_of_the_log_partition_function():
    theta, h = _theta(TIED, 9), 1e-5
    grad = np.array(
        [
            (log_partition(TIED, theta + h * d) - log_partition(TIED, theta - h * d)) / (2 * h)
            for d in np.eye(TIED.dim)
        ]
    )
    mu = exact_marginals(TIED, theta)
    np.testing.assert_allclose(statistics(TIED, mu.edge), grad, atol=1e-6)
    assert abs(theta_dot(TIED, theta, mu.edge) - theta @ statistics(TIED, mu.edge)) < 1e-12


def test_tables_from_records_counts_and_weights():
    records = np.array([[0, 1, 2, 0, 1, 2], [2, 2, 2, 0, 0, 0]], dtype=np.uint8)
    tables = tables_from_records(TIED, records)
    assert tables.dtype == np.int64 and np.all(tables.sum(axis=(1, 2)) == 2)
    assert tables[0, 0, 1] == 1 and tables[0, 2, 2] == 1
    weighted = tables_from_records(TIED, records, weights=np.array([0.5, 2.0]))
    assert weighted[2, 2, 0] == 2.5 and weighted[1, 2, 2] == 2.0 and weighted[0, 0, 1] == 0.5


SMALL = PairwiseMRF(4, 3, np.array([[0, 1], [0, 2], [1, 2], [2, 3]]), node_params=(3,))


def _pearson(tables, n, mu):
    """Largest Pearson chi-square p-value complement over edge tables (df = K^2 - 1),
    Bonferroni'd."""
    expected = n * mu
    chi = ((tables - expected) ** 2 / expected).sum(axis=(1, 2))
    return stats.chi2.sf(chi, df=mu[0].size - 1).min() * len(chi)


def test_sample_tables_match_exact_marginals_and_reject_wrong_ones():
    theta = _theta(SMALL, 10, scale=0.7)
    mu = exact_marginals(SMALL, theta).edge
    wrong = exact_marginals(SMALL, theta + _theta(SMALL, 11, scale=0.1)).edge
    rng = np.random.default_rng(12)
    reps, n = 100, 2000
    mean = np.mean([sample_tables(SMALL, theta, n, rng) for _ in range(reps)], axis=0)

    def z(m):
        return np.abs(mean - n * m) / np.sqrt(n * m * (1 - m) / reps)

    assert z(mu).max() < 4.5  # Bonferroni over 36 cells: false alarm rate ~2e-4
    assert z(wrong).max() > 6.0
    big = sample_tables(SMALL, theta, 200_000, rng)
    assert _pearson(big, 200_000, mu) > 1e-4
    assert _pearson(big, 200_000, wrong) < 1e-6


def test_sample_tables_large_population_is_consistent():
    model = chain(10, 10)
    theta = dirichlet_theta(model, np.random.default_rng(13))
    tables = sample_tables(model, theta, 10**7, np.random.default_rng(14))
    assert tables.dtype == np.int64 and np.all(tables >= 0)
    assert np.all(tables.sum(axis=(1, 2)) == 10**7)
    # neighbouring tables agree on their shared node's counts, as if from one set of records
    np.testing.assert_array_equal(tables[:-1].sum(axis=1), tables[1:].sum(axis=2))


def test_sample_records_match_exact_marginals():
    theta = _theta(SMALL, 15, scale=0.7)
    mu = exact_marginals(SMALL, theta).edge
    records = sample_records(SMALL, theta, 200_000, np.random.default_rng(16))
    assert records.dtype == np.uint8 and records.shape == (200_000, 4) and records.max() < 3
    tables = tables_from_records(SMALL, records)
    assert _pearson(tables, 200_000, mu) > 1e-4
    wrong = exact_marginals(SMALL, theta + _theta(SMALL, 17, scale=0.1)).edge
    assert _pearson(tables, 200_000, wrong) < 1e-6


def test_samplers_are_deterministic_for_a_seed():
    model = chain(10, 6, order=3)
    theta = dirichlet_theta(model, np.random.default_rng(18))
    for sampler, n in ((sample_tables, 10**6), (sample_records, 1000)):
        a = sampler(model, theta, n, np.random.default_rng(19))
        b = sampler(model, theta, n, np.random.default_rng(19))
        np.testing.assert_array_equal(a, b)


def test_huge_potentials_whose_scaled_beliefs_underflow_fall_back_to_log_space():
    """A draw (sd 300) for which the max-scaled downward pass lost a whole belief to underflow
    (0/0 -> NaN marginals before the fallback)."""
    from dpinfer.models.mrf_inference import exact_marginals
    from dpinfer.models.pairwise_mrf import chain

    model = chain(10, 10)
    theta = np.random.default_rng(0).standard_normal(model.dim) * 300
    m = exact_marginals(model, theta)
    assert np.all(np.isfinite(m.edge)) and np.isfinite(m.log_z)
    assert np.allclose(m.edge.sum(axis=(1, 2)), 1.0)
    ref = exact_marginals(model, theta, log_domain=True)
    assert np.allclose(m.edge, ref.edge, atol=1e-10) and abs(m.log_z - ref.log_z) < 1e-8
