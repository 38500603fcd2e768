"""Synthetic wifi data of bernstein2020 figure 3.6: generator, split, 1/K normalisation, holdout
likelihood."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from dpinfer.models.pairwise_mrf import edge_log_potentials, tied_chain
from dpinfer.studies.bernstein2020_ch3 import wifi

GEN = wifi.WifiGenerator()


@pytest.fixture(scope="module")
def records():
    return wifi.generate(GEN, 20_000, np.random.default_rng(11))


def test_records_have_the_shape_range_and_sparsity_of_a_wifi_log(records):
    assert records.shape == (20_000, 24) and records.dtype == np.uint8
    assert records.max() == GEN.n_locations and records.min() == 0
    assert set(np.unique(records)) == set(range(GEN.n_states))
    present = records != 0
    assert 0.7 < 1.0 - present.mean() < 0.95  # most hours null
    by_hour = present.mean(axis=0)
    assert by_hour[3] < 0.01 < 0.3 < by_hour[12]  # daytime peaked, empty at night
    hours = present.sum(axis=1)
    assert 0.02 < (hours == 0).mean() < 0.15  # some all-null days
    assert (hours >= 6).mean() > 0.2  # long stays exist
    assert ((hours >= 1) & (hours <= 3)).mean() > 0.2  # and short visits
    # the most popular location is the most frequent one
    counts = np.bincount(records[present], minlength=GEN.n_states)
    assert counts[1:].argmax() == 0


def test_generator_is_not_a_time_homogeneous_chain(records):
    """The model is misspecified: P(leave | at a location) differs between morning and evening."""

    def leave_rate(t):
        at = records[:, t] != 0
        return (records[at, t + 1] == 0).mean()

    assert leave_rate(17) - leave_rate(10) > 0.1


def test_moves_while_present_are_sticky(records):
    both = (records[:, :-1] != 0) & (records[:, 1:] != 0)
    same = (records[:, :-1] == records[:, 1:])[both].mean()
    assert 0.75 < same < 0.95


def test_generate_is_deterministic_per_seed():
    a = wifi.generate(GEN, 500, np.random.default_rng(3))
    b = wifi.generate(GEN, 500, np.random.default_rng(3))
    c = wifi.generate(GEN, 500, np.random.default_rng(4))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert wifi.generate(GEN, 0, np.random.default_rng(0)).shape == (0, 24)


def test_the_thesis_population_is_generated_in_well_under_a_few_seconds():
    """About 0.5 s on one core; the bound only catches a loop over individuals creeping in."""
    start = time.process_time()
    x = wifi.generate(GEN, wifi.N_INDIVIDUALS, np.random.default_rng(0))
    assert x.shape == (wifi.N_INDIVIDUALS, 24)
    assert time.process_time() - start < 3.0


def test_generator_rejects_bad_parameters():
    with pytest.raises(ValueError):
        wifi.WifiGenerator(type_probs=(0.5, 0.5, 0.5))
    with pytest.raises(ValueError):
        wifi.WifiGenerator(gap_prob=1.5)
    with pytest.raises(ValueError):
        wifi.WifiGenerator(n_locations=255)


def test_split_sizes_disjoint_and_seeded():
    tr, te = wifi.split(1001, 0.75, np.random.default_rng(5))
    assert len(tr) == 751 and len(te) == 250
    assert np.intersect1d(tr, te).size == 0
    assert np.array_equal(np.sort(np.concatenate([tr, te])), np.arange(1001))
    tr2, _ = wifi.split(1001, 0.75, np.random.default_rng(5))
    tr3, _ = wifi.split(1001, 0.75, np.random.default_rng(6))
    assert np.array_equal(tr, tr2) and not np.array_equal(tr, tr3)
    n_train, _ = map(len, wifi.split(wifi.N_INDIVIDUALS, 0.75, np.random.default_rng(0)))
    assert n_train == 93_299


def test_edge_activity_counts_edges_not_both_null():
    x = np.array(
        [[0, 0, 0, 0, 0], [0, 1, 0, 0, 0], [2, 2, 0, 0, 3], [1, 1, 1, 1, 1]], dtype=np.uint8
    )
    assert wifi.edge_activity(x).tolist() == [0, 2, 3, 4]
    assert np.allclose(wifi.weights(x), [1.0, 0.5, 1 / 3, 0.25])


def test_weighted_tables_bound_each_individual_and_sum_to_the_weight_total(records):
    x = records[:3000]
    model = wifi.wifi_model(GEN)
    w = wifi.weights(x)
    assert np.all(w > 0) and np.all(w <= 1)
    tables = wifi.weighted_tables(model, x, w)
    assert tables.shape == (23, 6, 6)
    assert np.allclose(tables.sum(axis=(1, 2)), w.sum(), rtol=1e-12)
    # direct bincount: individual i adds w_i to cell (x_t, x_{t+1}) of table t
    direct = np.zeros((23, 6, 6))
    for t in range(23):
        np.add.at(direct[t], (x[:, t], x[:, t + 1]), w)
    assert np.allclose(tables, direct, rtol=1e-12, atol=1e-12)
    # removing any one individual moves each table by w_i <= 1 and all tables by <= |C| = 23
    for i in (
        0,
        1,
        2,
        int(np.argmin(wifi.edge_activity(x))),
        int(np.argmax(wifi.edge_activity(x))),
    ):
        rest = np.delete(np.arange(len(x)), i)
        diff = np.abs(tables - wifi.weighted_tables(model, x[rest], w[rest]))
        per_table = diff.sum(axis=(1, 2))
        assert np.allclose(per_table, w[i]) and per_table.max() <= 1 + 1e-12
        assert diff.sum() <= model.n_cliques + 1e-9


def test_population_size_is_the_mean_noisy_table_sum():
    tables = np.full((23, 6, 6), 2.0)
    assert wifi.population_size(tables) == pytest.approx(72.0)
    noisy = tables.copy()
    noisy[0, 0, 0] += 23.0  # one table's sum moves by 23 -> the mean moves by 1
    assert wifi.population_size(noisy) == pytest.approx(73.0)
    assert wifi.population_size(-tables) == 1.0  # floored


def _brute_force_loglik(model, theta, x, w):
    """sum_i w_i log p(x_i) / sum_i w_i by enumerating every configuration."""
    lp = edge_log_potentials(model, theta)
    K, T = model.n_states, model.n_nodes

    def score(cfg):
        return sum(lp[e, cfg[i], cfg[j]] for e, (i, j) in enumerate(model.edges))

    configs = list(itertools.product(range(K), repeat=T))
    scores = np.array([score(c) for c in configs])
    log_z = scores.max() + np.log(np.exp(scores - scores.max()).sum())
    logp = np.array([score(tuple(r)) for r in x]) - log_z
    return float((w * logp).sum() / w.sum())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_holdout_loglik_matches_enumeration_on_a_tiny_tied_chain(seed):
    rng = np.random.default_rng(seed)
    model = tied_chain(4, 3)
    theta = rng.normal(0.0, 2.0, model.dim)
    theta[0] = -50.0  # an extreme potential must not break anything
    x = np.where(rng.random((40, 4)) < 0.5, 0, rng.integers(1, 3, (40, 4))).astype(np.uint8)
    w = wifi.weights(x)
    tables = wifi.weighted_tables(model, x, w)
    got = wifi.holdout_loglik(model, theta, tables, w.sum())
    assert got == pytest.approx(_brute_force_loglik(model, theta, x, w), abs=1e-10)


def test_holdout_loglik_of_the_uniform_model_and_of_a_fitted_one(records):
    model = wifi.wifi_model(GEN)
    x = records[:2000]
    w = wifi.weights(x)
    tables = wifi.weighted_tables(model, x, w)
    flat = wifi.holdout_loglik(model, np.zeros(model.dim), tables, w.sum())
    assert flat == pytest.approx(-24 * np.log(6), abs=1e-9)
    # a crude plug-in fit (log of the pooled transition frequencies, node term from the first
    # table) must beat the uniform model by a wide margin on the sparse data
    pooled = tables.sum(axis=0) + 1.0
    trans = np.log(pooled / pooled.sum(axis=1, keepdims=True))
    first = tables[0].sum(axis=1) + 1.0
    theta = np.concatenate([trans.ravel(), np.log(first / first.sum())])
    assert theta.shape == (model.dim,)
    assert wifi.holdout_loglik(model, theta, tables, w.sum()) > flat + 20


def test_summary_reports_the_caption_numbers(records):
    s = wifi.summary(records)
    assert s["n_individuals"] == 20_000 and s["n_hours"] == 24
    k = wifi.edge_activity(records)
    assert s["n_k_zero"] == int((k == 0).sum())
    assert s["weight_total"] == pytest.approx(wifi.weights(records).sum())
    assert s["k_p50"] == np.median(k)
    assert s["fraction_null"] == pytest.approx(1 - (records != 0).mean())
    assert 0.0 < s["weight_share_k_zero"] < 1.0
    assert 9 <= s["busiest_hour"] <= 15
    assert all(np.isscalar(v) for v in s.values())
