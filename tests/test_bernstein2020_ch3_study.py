"""bernstein2020 chapter 3 at study level: cell jobs, the wifi jobs, summary and claims."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dpinfer.grid import ch3_cell_name
from dpinfer.io import load_npz
from dpinfer.studies.bernstein2020_ch3 import paper, problems, run, summarise, wifi_run

MODELS = {"chain1": {"structure": "chain", "order": 1}, "er": {"structure": "erdos_renyi", "edge_probability": 0.5}}
CGM = {"inference": "exact", "damping": 0.5, "nlbp_tol": 1e-4, "nlbp_max_iter": 200, "em_tol": 1e-6, "em_max_iter": 20,
       "mstep_tol": 1e-5, "mstep_max_iter": 30}
PSGD = {"learning_rate_scales": [1.0], "clip": 1.0, "lot_fraction": 0.05, "epochs": 1, "max_noise_multiplier": 50,
        "trials": 1}
LAMS = {"naive": [1.0, 10.0], "cgm": 1.0, "nonprivate": 1.0, "random": 1.0}


def _cell(name, model, n, eps, methods, **kw):
    return dict(name=name, model=model, spec=MODELS[model], states=3, n=n, epsilon=eps, methods=methods, releases=2,
                lambdas=LAMS, keep_marginals=kw.get("keep", False), cgm=CGM, psgd=PSGD)


def _run(tmp_path, cell, **kw):
    out = tmp_path / f"{cell['name']}.npz"
    run.run_cell(None, SimpleNamespace(cell=str(out)), seed=7, cell=cell, nodes=5, populations=2,
                 records_max_n=kw.get("records_max_n", 10**6))
    return load_npz(out)


def test_cell_names_are_distinct_and_stable():
    names = {ch3_cell_name("fig3_1", n=100, epsilon=0.1), ch3_cell_name("fig3_2", n=100),
             ch3_cell_name("fig3_3", lam=0.01), ch3_cell_name("fig3_4", model="er", n=100, epsilon=1),
             ch3_cell_name("fig3_4", model="er", n=100), ch3_cell_name("fig3_6", n=10, epsilon=1)}
    assert len(names) == 6
    assert ch3_cell_name("fig3_4", model="chain1", n=1000, epsilon=0.1) == "chain1_n1000_eps0.1"
    with pytest.raises(ValueError):
        ch3_cell_name("fig4_2")


def test_instances_are_drawn_once_per_name_and_populations_are_shared(tmp_path):
    a = problems.build_instance(7, "er", MODELS["er"], 5, 3)
    b = problems.build_instance(7, "er", dict(MODELS["er"]), 5, 3)
    assert np.array_equal(a.theta, b.theta) and np.array_equal(a.model.edges, b.model.edges)
    p1 = problems.population(7, a, 500, 1, 10**6)
    p2 = problems.population(7, a, 500, 1, 10**6)
    assert np.array_equal(p1.tables, p2.tables) and p1.tables.sum() == 500 * a.model.n_edges
    big = problems.population(7, a, 500, 1, 100)  # drawn as tables: no records
    assert big.records is None and big.tables.sum() == 500 * a.model.n_edges


def test_a_private_cell_writes_every_metric_without_nan(tmp_path):
    d = _run(tmp_path, _cell("t_private", "chain1", 2000, 1.0, ["naive", "naive_unprojected", "cgm", "psgd"]))
    for m in ("naive", "naive_unprojected", "cgm"):
        assert np.all(np.isfinite(d[f"{m}_kl"])) and np.all(d[f"{m}_kl"] >= 0)
        assert np.all(np.isfinite(d[f"{m}_mse"]))
    assert np.isfinite(d["psgd_kl"]).sum() == 1  # one PSGD trial
    assert np.all(np.isfinite(d["noisy_mse"]))
    # the same cell gives the same numbers
    again = _run(tmp_path / "..", _cell("t_private", "chain1", 2000, 1.0, ["naive", "naive_unprojected", "cgm", "psgd"]))
    assert np.array_equal(d["cgm_kl"], again["cgm_kl"])


def test_a_reference_cell_fits_without_a_release(tmp_path):
    d = _run(tmp_path, _cell("t_ref", "er", 2000, None, ["nonprivate", "random"], keep=True))
    assert np.isfinite(d["nonprivate_kl"]).sum() == 2  # one per population
    assert np.all(np.isfinite(d["random_kl"]))
    assert np.nanmean(d["nonprivate_kl"]) < np.nanmean(d["random_kl"])
    assert np.all(np.isnan(d["noisy_mse"]))


def test_wifi_jobs_and_claims_run_on_a_tiny_data_set(tmp_path):
    data = tmp_path / "data.npz"
    wifi_run.wifi_data(None, SimpleNamespace(data=str(data)), seed=3, individuals=600, train_fraction=0.75, locations=2)
    fit = {"lambdas": LAMS, "cgm": CGM, "psgd": PSGD, "releases": 2}
    for cell, eps in (("size400_ref", None), ("size400_eps1", 1.0)):
        wifi_run.wifi_cell(SimpleNamespace(data=str(data)), SimpleNamespace(cell=str(tmp_path / f"{cell}.npz")),
                           seed=3, cell={"train_size": 400, "epsilon": eps}, fit=fit)
    d = load_npz(tmp_path / "size400_eps1.npz")
    assert np.all(np.isfinite(d["naive_loglik"])) and np.all(np.isfinite(d["cgm_loglik"]))
    ref = load_npz(tmp_path / "size400_ref.npz")
    # the non-private fit scores at least as well as the private ones up to noise
    assert ref["nonprivate_loglik"][0] > np.nanmean(d["naive_loglik"]) - 0.5


def test_slope_of_a_power_law():
    ns = np.array([10, 100, 1000])
    assert paper.slope(ns, 3.0 / ns**2) == pytest.approx(-2.0)
    assert summarise.summary_key("fig3_1", "n10_eps1", "naive_kl") == "fig3_1__n10_eps1__naive_kl"
