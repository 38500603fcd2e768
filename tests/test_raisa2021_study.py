"""raisa2021 study steps: the params file as the rules read it, start points, the MMD of a
chain, and one real chain job end to end (a small model through the step functions)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from dpinfer.io import load_npz
from dpinfer.studies.raisa2021 import clipping, run, settings

ROOT = Path(__file__).resolve().parents[1]
PARAMS = settings.load_params(ROOT / "config" / "data" / "raisa2021" / "params.yaml")


def test_seed_version_applies_the_overrides_of_the_thesis_text():
    seed = settings.hyperparameters(PARAMS, "hard-2d", "dppa", "seed")
    head = settings.hyperparameters(PARAMS, "hard-2d", "dppa", "head")
    assert (seed["tau"], seed["clip_bound"]) == (0.2, 4.5)
    assert (head["tau"], head["clip_bound"]) == (0.1, 8.5)
    assert settings.hyperparameters(PARAMS, "easy-2d", "dpps", "seed") == settings.hyperparameters(
        PARAMS, "easy-2d", "dpps", "head"
    )
    with pytest.raises(ValueError, match="version"):
        settings.hyperparameters(PARAMS, "easy-2d", "dpps", "final")
    with pytest.raises(ValueError, match="no mdpps settings"):
        settings.hyperparameters(PARAMS, "circle", "mdpps", "seed")


def test_model_spec_scales_n_and_keeps_n0():
    spec = settings.model_spec(PARAMS, "tempered-2d", 0.1)
    assert spec["n"] == 10000 and spec["temperature"] == pytest.approx(1000 / 10000)
    assert settings.model_spec(PARAMS, "tempered-2d")["temperature"] == 0.01
    assert settings.model_spec(PARAMS, "hard-gauss-2d")["prior_variance"] == 100
    assert settings.model_spec(PARAMS, "easy-2d", 1e-9)["n"] == 20


def test_author_iterations_by_version():
    assert settings.author_iterations(PARAMS, "easy-2d", "hmc", 6.0, "seed") == 880
    assert settings.author_iterations(PARAMS, "easy-2d", "hmc", 6.0, "head") == 848
    assert settings.author_iterations(PARAMS, "circle", "dpps", 0.75, "seed") == 52511
    assert settings.author_iterations(PARAMS, "easy-2d", "hmc", 7.0, "seed") is None


def _problem(model="easy-2d", fraction=0.01):
    spec = settings.model_spec(PARAMS, model, fraction)
    return spec, run.problem_of(5, model, spec)


@pytest.mark.parametrize("rule", ["start_sd", "ref_sd_1.5", "ref_sd_mean"])
def test_start_points_follow_the_rule_and_do_not_depend_on_the_algorithm(rule):
    spec, problem = _problem()
    ref = np.random.default_rng(0).normal([0.0, 3.0], [0.1, 0.4], size=(4000, 2))
    a = run.start_points(5, "easy-2d", problem, spec, rule, 400, ref)
    b = run.start_points(5, "easy-2d", problem, spec, rule, 400, ref)
    assert np.array_equal(a, b) and a.shape == (400, 2)
    sd = a.std(axis=0, ddof=1)
    want = {
        "start_sd": np.array([0.02, 0.02]),
        "ref_sd_1.5": np.array([0.15, 0.6]),
        "ref_sd_mean": np.array([0.25, 0.25]),
    }[rule]
    # sd of 400 normal draws: relative standard error 1/sqrt(798) = 0.035; 5 SE
    assert np.all(np.abs(sd / want - 1) < 5 * 0.035), (sd, want)
    assert np.all(np.abs(a.mean(axis=0) - [0.0, 3.0]) < 5 * want / 20)


def test_mmd_separates_a_shifted_sample_and_is_seeded():
    rng = np.random.default_rng(1)
    ref = rng.standard_normal((500, 2))
    same = rng.standard_normal((500, 2))
    shifted = same + [1.0, 0.0]
    m_same, h = run.mmd(same, ref, 200, np.random.default_rng(3))
    assert (m_same, h) == run.mmd(same, ref, 200, np.random.default_rng(3))
    m_shift, _ = run.mmd(shifted, ref, 200, np.random.default_rng(3))
    # unbiased MMD^2 of two 500-draw samples of one law has sd about 1e-3: sqrt|.| below 0.1
    assert m_same < 0.1 < 0.3 < m_shift


def test_a_chain_job_writes_every_metric_without_nan(tmp_path):
    spec = settings.model_spec(PARAMS, "easy-2d", 0.05)
    ref_file = tmp_path / "ref.npz"
    run.model_reference(
        None,
        SimpleNamespace(reference=str(ref_file)),
        seed=5,
        model="easy-2d",
        spec=spec,
        reference_draws=200,
        baseline_samples=2,
        chains=3,
        start_rule="start_sd",
        mmd_bandwidth_pairs=100,
    )
    ref = load_npz(ref_file)
    assert ref["reference"].shape == (200, 2) and ref["starts"].shape == (3, 2)
    assert ref["grid_logp"].shape == (200, 200) and ref["grid_logp"].max() == 0.0
    out = tmp_path / "chains.npz"
    vcorr = str(ROOT / "config" / "data" / "raisa2021" / "vcorr_C2.0_K100.tsv")
    for algo in ("dpps", "dppa", "hmc", "mdpps", "mdppa", "barker"):
        run.chains(
            SimpleNamespace(reference=str(ref_file), vcorr=vcorr),
            SimpleNamespace(chains=str(out)),
            seed=5,
            model="easy-2d",
            spec=spec,
            algo=algo,
            epsilon=6.0,
            hyper=settings.hyperparameters(PARAMS, "easy-2d", algo, "seed"),
            delta_factor=0.1,
            hmc_gradients="seed",
            mmd_bandwidth_pairs=100,
        )
        d = load_npz(out)
        assert int(d["iterations"]) >= 3
        for key in ("acceptance", "llr_clip", "grad_clip", "mmd", "mean_error", "cov_error"):
            assert d[key].shape == (3,) and np.all(np.isfinite(d[key])), (algo, key)
        assert np.all((d["acceptance"] >= 0) & (d["acceptance"] <= 1))
        assert np.all(d["mmd"] > 0) and d["rhat"].shape == (2,)
        if algo != "hmc":
            assert np.all(d["grad_clip"] == 0)  # no gradients, nothing clipped
        assert np.all(d["batch_variance_rejections"] == 0)


def test_a_clipping_job_writes_every_metric_and_the_rule_matters(tmp_path):
    spec = settings.clipping_spec(PARAMS, 2, 100000, 0.02)
    assert spec["n"] == 2000 and spec["dim"] == 2 and spec["a"] == 20
    ref_file = tmp_path / "ref.npz"
    clipping.clipping_reference(
        None,
        SimpleNamespace(reference=str(ref_file)),
        seed=5,
        dim=2,
        spec=spec,
        reference_draws=200,
        baseline_samples=2,
        mmd_bandwidth_pairs=100,
    )
    out = {}
    for algo in settings.CLIPPING_ALGORITHMS:
        for rule in ("euclidean", "sum_of_differences"):
            hyper = dict(settings.clipping_hyper(PARAMS, algo, 2), iterations=200)
            path = tmp_path / f"{algo}_{rule}.npz"
            clipping.clipping_chains(
                SimpleNamespace(reference=str(ref_file)),
                SimpleNamespace(chains=str(path)),
                seed=5,
                dim=2,
                spec=spec,
                algo=algo,
                bound=1.0,
                hyper=hyper,
                chains=2,
                threshold=rule,
                mmd_bandwidth_pairs=100,
            )
            d = out[algo, rule] = load_npz(path)
            for key in clipping.PER_CHAIN:
                assert d[key].shape == (2,) and np.all(np.isfinite(d[key])), (algo, rule, key)
        # the author's |sum of differences| is at most sqrt(d) times the Euclidean distance, and
        # often near 0: it never clips less here and usually more
        assert (
            out[algo, "sum_of_differences"]["llr_clip"].sum()
            > out[algo, "euclidean"]["llr_clip"].sum()
        )


def test_accountant_curves_also_give_the_counts_at_the_chains_epsilons(tmp_path):
    """Fig 6.1's job computes every curve at the chains' epsilons too, where the author's easy-2d
    counts are known (the claims compare them): DP penalty and DP HMC as the author's."""
    hyper = {a: settings.hyperparameters(PARAMS, "easy-2d", a, "seed") for a in ("dpps", "hmc")}
    out = SimpleNamespace(curves=str(tmp_path / "curves.npz"))
    run.accountant_curves(
        None,
        out,
        n=100000,
        delta=1e-6,
        epsilon_min=0.5,
        epsilon_max=6.0,
        points=2,
        penalty=hyper["dpps"],
        minibatch=settings.hyperparameters(PARAMS, "easy-2d", "mdpps", "seed"),
        hmc=hyper["hmc"],
        hmc_gradients="seed",
        check_epsilons=[1, 6],
    )
    c = load_npz(out.curves)
    np.testing.assert_array_equal(c["check_epsilons"], [1.0, 6.0])
    np.testing.assert_array_equal(c["check_penalty_pld"], [56, 1431])
    np.testing.assert_array_equal(c["check_hmc_pld"], [34, 880])
    np.testing.assert_array_equal(c["check_penalty_zcdp"], [34, 1079])
    # the figure's grid ends at epsilon 6 too: the two routes agree there
    assert all(int(c[k][-1]) == int(c[f"check_{k}"][-1]) for k in ("penalty_pld", "hmc_zcdp"))
