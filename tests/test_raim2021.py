"""raim2021: the Gibbs samplers (Algorithms 2 and 4), the study steps and the config schema."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from dpinfer.io import load_npz
from dpinfer.models.lognormal_regression import (Prior, Truth, exact_posterior_moments,
                                                  mse_of_chain, release, simulate_design,
                                                  simulate_outcomes)
from dpinfer.samplers.direct import DirectSettings
from dpinfer.samplers.lognormal_gibbs import run_noise_free, run_noisy
from dpinfer.studies import raim2021

from .conftest import ROOT
from .harness import assert_mean_matches


@pytest.fixture(scope="module")
def small_data():
    rng = np.random.default_rng(2021)
    truth = Truth(n=40)
    X = simulate_design(rng, truth.n)
    y = simulate_outcomes(rng, X, truth)
    return X, y


def test_exact_posterior_quadrature_matches_known_limit():
    """With a flat-ish prior and many records, the quadrature posterior mean of beta is OLS."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 2))
    ly = X @ [1.0, -2.0] + 0.5 * rng.standard_normal(400)
    ex = exact_posterior_moments(ly, X, Prior(sigma_beta=1e3, a_sigma=0.01, b_sigma=0.01))
    ols = np.linalg.lstsq(X, ly, rcond=None)[0]
    np.testing.assert_allclose(ex["mean"][:2], ols, atol=1e-4)
    resid = ly - X @ ols
    np.testing.assert_allclose(ex["mean"][2], resid @ resid / (400 - 2 - 2), rtol=0.01)


def test_noise_free_gibbs_matches_conjugate_posterior(small_data):
    """Algorithm 4 against the posterior by quadrature over sigma^2 (beta integrated exactly)."""
    X, y = small_data
    chain = run_noise_free(y, X, 40_000, np.random.default_rng(1))
    exact = exact_posterior_moments(np.log(y), X)
    assert_mean_matches(chain.kept(1000), exact["mean"])
    sd = chain.kept(1000).std(axis=0)
    np.testing.assert_allclose(sd, exact["sd"], rtol=0.05)


def test_noisy_gibbs_with_negligible_noise_matches_conjugate_posterior(small_data):
    """Algorithm 2 with both noises essentially zero (rho = 0.9999, lambda = 1e-6) must
    reproduce the noise-free posterior: every direct-sampler step runs, on near-degenerate
    conditionals."""
    X, y = small_data
    rng = np.random.default_rng(2)
    y_noisy, X_noisy = release(rng, y, X, 0.9999, 1e-6)
    chain = run_noisy(y_noisy, X_noisy, 0.9999, 1e-6, 6000, rng)
    exact = exact_posterior_moments(np.log(y), X)
    assert_mean_matches(chain.kept(500), exact["mean"], abs_slack=1e-3)
    assert chain.info["proposals_per_y"] < 1.5 and chain.info["proposals_per_xi"] < 1.5


def test_noisy_gibbs_detects_noise(small_data):
    """With real noise on x_1 the posterior of beta_1 must move away from the noise-free one
    (attenuation): a check that the xi^x step actually changes X."""
    X, y = small_data
    rng = np.random.default_rng(3)
    y_noisy, X_noisy = release(rng, y, X, 0.4, 0.5)
    noisy = run_noisy(y_noisy, X_noisy, 0.4, 0.5, 1500, rng).kept(500)
    # naive fit that ignores the noise (Algorithm 4 on the released data)
    naive = run_noise_free(np.maximum(y_noisy, 1e-3), X_noisy, 1500, rng).kept(500)
    assert noisy[:, 0].mean() > naive[:, 0].mean() + 0.3


def test_timed_run_gives_the_same_draws(small_data):
    X, y = small_data
    y_noisy, X_noisy = release(np.random.default_rng(4), y, X, 0.1, 0.1)
    a = run_noisy(y_noisy, X_noisy, 0.1, 0.1, 30, np.random.default_rng(5))
    b = run_noisy(y_noisy, X_noisy, 0.1, 0.1, 30, np.random.default_rng(5), timed=True)
    np.testing.assert_array_equal(a.draws, b.draws)
    assert set(b.info["timings"]) == {"y", "xi_x", "rest"}


def test_the_2021_knot_rule_gives_the_same_posterior(small_data):
    """Both envelopes are exact, so the chains target the same posterior (compared loosely on
    a short run; the exactness itself is tested draw by draw in test_direct_sampler.py)."""
    X, y = small_data
    y_noisy, X_noisy = release(np.random.default_rng(6), y, X, 0.1, 0.2)
    a = run_noisy(y_noisy, X_noisy, 0.1, 0.2, 3000, np.random.default_rng(7)).kept(500)
    b = run_noisy(y_noisy, X_noisy, 0.1, 0.2, 3000, np.random.default_rng(8),
                  direct=DirectSettings(method="small_rects", n_knots=10, tol=1e-6)).kept(500)
    assert_mean_matches(a, b.mean(axis=0), z_max=5.0)


def test_mse_of_chain():
    draws = np.array([[5.0, -1.0, 1.0], [6.0, -1.0, 3.0]])
    assert mse_of_chain(draws, Truth().theta) == pytest.approx((0 + 1 + 4) / 2)


def test_setting_names_round_trip():
    for rho in (0.01, 0.1, 0.4):
        for lam in (0.05, 0.1, 0.2):
            g = raim2021.parse_setting(raim2021.setting_name(rho, lam))
            assert g == {"rho": rho, "lam": lam}
    with pytest.raises(ValueError):
        raim2021.parse_setting("rho0.1")


def _smoke_cfg():
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["raim2021"]
    cfg.update({"iterations": 40, "burnin": 20, "replicates": 3, "chunk_size": 2})
    cfg["model"] = dict(cfg["model"], n=30)
    return cfg


def test_gibbs_chunk_is_deterministic(tmp_path: Path):
    cfg = _smoke_cfg()
    outs = []
    for k in range(2):
        out = SimpleNamespace(summary=str(tmp_path / f"chunk{k}.npz"))
        raim2021.run_gibbs_chunk(None, out, 7, "rho0.1_lambda0.2", 1, cfg)
        outs.append(load_npz(out.summary))
    assert list(outs[0]["replicate"]) == [2]
    for key in ("mse_noisy", "mse_free", "mean_noisy"):
        np.testing.assert_array_equal(outs[0][key], outs[1][key])


def test_config_schema_refuses_bad_values():
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    schema = str(ROOT / "workflow" / "schemas" / "raim2021.schema.yaml")
    good = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["raim2021"]
    validate(dict(good), schema)
    for key, value in (("rhos", [1.5]), ("lambdas", [-0.1]), ("chunk_siz", 3)):
        bad = dict(good)
        bad[key] = value
        with pytest.raises(WorkflowError):
            validate(bad, schema)
    bad = dict(good, direct=dict(good["direct"], method="bisection"))
    with pytest.raises(WorkflowError):
        validate(bad, schema)
