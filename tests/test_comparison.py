"""The comparison study (issue 15): the exact binomial posterior, the record-wise sampler's
calibration, the pooled-chain record, the trial step and the recommendation rule.

The record-wise and exact samplers are also checked against quadrature in
tests/exact/bernstein2020_ch4.py (the registry harness)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import integrate, stats

from dpinfer.io import load_npz
from dpinfer.mechanisms import Laplace
from dpinfer.methods import stream_stage
from dpinfer.models import expfam
from dpinfer.models.private_binomial import (
    exact_cdf,
    exact_draws,
    exact_moments,
    mixture_weights,
)
from dpinfer.samplers.pooled import run_pooled
from dpinfer.samplers.record_wise_binomial import run_record_wise_binomial
from dpinfer.studies.comparison.run import run_chunk
from dpinfer.studies.comparison.summarise import failed_checks, recommend
from tests.configs import config
from tests.harness import assert_calibrated


def exact_mean_error_bound(draws: int, trials: int, z: float = 3.0) -> float:
    """Bound on the mean over ``trials`` of |mean of ``draws`` iid posterior draws - exact mean| in
    posterior sds: each term is |N(0, 1/draws)|, mean sqrt(2/pi)/sqrt(draws) and sd
    sqrt(1 - 2/pi)/sqrt(draws); ``z`` standard errors of the average above its mean."""
    return (
        math.sqrt(2.0 / math.pi) + z * math.sqrt(1.0 - 2.0 / math.pi) / math.sqrt(trials)
    ) / math.sqrt(draws)


def _quadrature_posterior(y, n, a, b, scale):
    """Unnormalised p(theta | y) on a grid, by summing the count out directly
    (no mixture algebra)."""
    grid = np.linspace(1e-6, 1 - 1e-6, 20001)
    s = np.arange(n + 1)
    lik = stats.binom.pmf(s[None, :], n, grid[:, None]) @ stats.laplace.pdf(y - s, scale=scale)
    return grid, stats.beta.pdf(grid, a, b) * lik


@pytest.mark.parametrize(
    "y, n, a, b, scale",
    [(3.2, 12, 2.0, 2.0, 1.0), (-4.0, 30, 1.0, 3.0, 10.0), (71.5, 80, 5.0, 1.0, 0.5)],
)
def test_exact_posterior_moments_and_cdf_equal_quadrature(y, n, a, b, scale):
    grid, dens = _quadrature_posterior(y, n, a, b, scale)
    z = integrate.trapezoid(dens, grid)
    mean = integrate.trapezoid(grid * dens, grid) / z
    sd = math.sqrt(integrate.trapezoid((grid - mean) ** 2 * dens, grid) / z)
    m, s = exact_moments(y, n, a, b, scale)
    assert abs(m - mean) < 1e-6 and abs(s - sd) < 1e-6
    cdf = integrate.cumulative_trapezoid(dens, grid, initial=0.0) / z
    for t in (0.1, 0.3, 0.5, 0.8):
        assert abs(exact_cdf(t, y, n, a, b, scale)[0] - np.interp(t, grid, cdf)) < 1e-5


def test_exact_weights_stay_finite_for_large_n_and_far_releases():
    for y in (-500.0, 5000.0, 20000.0):
        w = mixture_weights(y, 10000, 2.0, 2.0, 0.1)
        assert np.all(np.isfinite(w)) and abs(w.sum() - 1.0) < 1e-12
    draws = exact_draws(np.random.default_rng(0), 1000, 20000.0, 10000, 2.0, 2.0, 0.1)
    assert draws.min() > 0.99  # a release far above n puts the count at n


def test_record_wise_sampler_is_calibrated_and_a_miscalibrated_one_is_caught():
    """Simulation-based calibration over 300 trials at n = 15, epsilon = 0.5."""
    n, a, b = 15, 2.0, 2.0
    mech = Laplace.calibrated(0.5, 1.0)
    rng = np.random.default_rng(11)
    u, u_wrong = [], []
    for _ in range(300):
        theta = rng.beta(a, b)
        y = rng.binomial(n, theta) + rng.laplace(0.0, mech.scale)
        chain = run_record_wise_binomial(
            expfam.Problem(y, n, (a, b), mech), burnin=100, keep=400, rng=rng
        )
        u.append(np.mean(chain.kept[:, 0] < theta))
        wrong = run_record_wise_binomial(
            expfam.Problem(y, n, (a, b), Laplace.calibrated(50.0, 1.0)),
            burnin=100,
            keep=400,
            rng=rng,
        )
        u_wrong.append(np.mean(wrong.kept[:, 0] < theta))
    assert_calibrated(np.array(u)[:, None])
    with pytest.raises(
        AssertionError
    ):  # ignoring most of the noise (scale 50x too small) is caught
        assert_calibrated(np.array(u_wrong)[:, None])


def test_pooled_chains_use_one_stream_per_chain_and_report_iid_diagnostics():
    seen = []

    def stream(stage):
        seen.append(stage)
        return np.random.default_rng(len(stage))

    mech = Laplace.calibrated(1.0, 1.0)
    pooled = run_pooled(
        lambda rng: run_record_wise_binomial(
            expfam.Problem(4.0, 10, (1, 1), mech), burnin=10, keep=50, rng=rng
        ),
        "record_wise",
        3,
        stream,
    )
    assert (
        seen
        == [stream_stage("record_wise", c) for c in range(3)]
        == ["sample_record_wise", "sample_record_wise_chain1", "sample_record_wise_chain2"]
    )
    assert pooled.draws.shape == (150, 1) and pooled.iterations == 180 and pooled.rhat.shape == (1,)
    with pytest.raises(FloatingPointError):
        run_pooled(
            lambda rng: SimpleNamespace(
                kept=np.array([[np.nan]]), info=SimpleNamespace(iterations=1)
            ),
            "naive",
            1,
            stream,
            iid=True,
        )


def _settings():
    return {
        "methods": ["non_private", "naive", "exact", "gibbs", "record_wise"],
        "prior": [2.0, 2.0],
        "sensitivity": 1,
        "draws": 300,
        "burnin": 50,
        "keep": 100,
        "chains": 2,
    }


def test_a_chunk_is_deterministic_and_only_its_first_trials_get_the_reference(tmp_path):
    def run(path, replicates):
        run_chunk(
            None,
            SimpleNamespace(runs=path),
            seed=5,
            problem="binomial",
            n=20,
            epsilon=1.0,
            replicates=replicates,
            accuracy_trials=2,
            credible_level=0.9,
            mmd_draws=50,
            settings=_settings(),
            health={"max_rhat": 1.01, "min_ess": 400},
        )
        return load_npz(path)

    one, two = run(tmp_path / "a.npz", [0, 4]), run(tmp_path / "b.npz", [0, 4])
    for key in ("u", "cover", "rhat", "ess", "mean_err", "sd_err", "mmd", "truth"):
        assert np.array_equal(one[key], two[key]), key
    assert one["u"].shape == (5, 4, 1) and one["mean_err"].shape == (5, 2, 1)
    assert list(one["acc_reps"]) == [0, 1]
    later = run(tmp_path / "c.npz", [2, 4])  # a later chunk: the same trials, no reference
    assert np.array_equal(later["u"], one["u"][:, 2:]) and later["mean_err"].shape == (5, 0, 1)


RULE = {"max_flagged": 0.1, "max_mean_error": 0.2, "max_sd_error": 0.2, "ks_alpha": 0.05}


def _row(method, **kw):
    row = {
        "method": method,
        "label": method,
        "flagged": 0.0,
        "ks": 0.05,
        "ks_critical": 0.15,
        "accuracy_trials": 20,
        "ref_flagged": 0.0,
        "mean_err": 0.05,
        "sd_err": 0.05,
        "ess_per_s": 100.0,
        "rhat_max": 1.003,
    }
    return dict(row, **kw)


def test_recommendation_rule_takes_the_fastest_method_that_passes_every_check():
    rows = [
        _row("non_private", ess_per_s=1e9),
        _row("naive", ess_per_s=1e6, mean_err=0.5),
        _row("gibbs", ess_per_s=1e4, flagged=0.3),
        _row("record_wise", ess_per_s=10.0),
        _row("exact", ess_per_s=50.0, ks=0.2),
    ]
    assert failed_checks(rows[1], RULE) == ["mean"] and failed_checks(rows[2], RULE) == [
        "R-hat/ESS"
    ]
    assert failed_checks(rows[4], RULE) == ["calibration"]
    assert recommend(rows, RULE)["method"] == "record_wise"  # Non-Private is never a candidate
    assert recommend([_row("naive", flagged=1.0)], RULE)["method"] == "none"


def test_accuracy_is_not_judged_against_an_unconverged_reference():
    row = _row("gibbs", mean_err=3.0, ref_flagged=0.5)
    assert failed_checks(row, RULE) == []
    assert failed_checks(dict(row, ref_flagged=0.0), RULE) == ["mean"]


def test_exact_draws_match_the_closed_form_posterior_mean():
    """What was the scorecard's exact-draws row (it holds by theorem, so it is a test): over 20
    releases of each of n = 10, 100, 1000 at epsilon 0.1 and 10, the mean |mean of 4,000 exact
    draws - closed-form mean| in posterior sds is within its Monte Carlo bound; draws from a
    mixture with its weights' argument off by one count are not."""
    rng = np.random.default_rng(4)
    draws, trials, a, b = 4000, 20, 2.0, 2.0
    bound = exact_mean_error_bound(draws, trials)
    for n in (10, 100, 1000):
        for eps in (0.1, 10.0):
            scale = Laplace.calibrated(eps, 1.0).scale
            errs, off = [], []
            for _ in range(trials):
                s = rng.binomial(n, rng.beta(a, b))
                y = s + rng.laplace(0.0, scale)
                mean, sd = exact_moments(y, n, a, b, scale)
                errs.append(abs(exact_draws(rng, draws, y, n, a, b, scale).mean() - mean) / sd)
                shifted = exact_draws(rng, draws, y + 1.0, n, a, b, scale).mean()
                off.append(abs(shifted - mean) / sd)
            assert np.mean(errs) <= bound, (n, eps)
            if eps == 10.0:  # a precise release: one count moves the posterior
                assert np.mean(off) > bound, (n, eps)


def test_exact_error_bound_covers_monte_carlo_error_and_not_a_bias():
    """The bound on the mean |error| of iid draws holds for exact draws and fails for draws off
    by a fifth of a posterior sd."""
    rng = np.random.default_rng(2)
    draws, trials = 4000, 20
    bound = exact_mean_error_bound(draws, trials)
    errs = np.abs(rng.standard_normal((500, trials, draws)).mean(axis=2)).mean(axis=1)
    assert np.mean(errs > bound) < 0.01
    biased = np.abs(0.2 + rng.standard_normal((50, trials, draws)).mean(axis=2)).mean(axis=1)
    assert np.all(biased > bound)


# ----------------------------------------------------------------------------- settings (issue 29)
from pathlib import Path  # noqa: E402

from dpinfer.io import save_npz  # noqa: E402
from dpinfer.studies.comparison import paper  # noqa: E402
from dpinfer.studies.scorecard import mismatches, read_claims, verdict  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _config(scale: str = "paper") -> dict:
    return config(scale)["comparison"]


def _fake_summary(path, cfg: dict) -> None:
    """A summary.npz of the shape summarise writes, every method passing, at ``cfg``'s grid."""
    rows = [
        (p, n, e, m)
        for p in cfg["problems"]
        for n in cfg["n_values"]
        for e in cfg["epsilons"]
        for m in cfg[p]["methods"]
    ]
    k = len(rows)
    col = lambda i: np.array([r[i] for r in rows])  # noqa: E731
    naive = col(3) == "naive"
    save_npz(
        path,
        problem=col(0),
        n=col(1).astype(float),
        epsilon=col(2).astype(float),
        method=col(3),
        trials=np.full(k, float(cfg["replicates"])),
        accuracy_trials=np.full(k, float(cfg["accuracy_trials"])),
        mean_err=np.full(k, 0.01),
        sd_err=np.full(k, 0.01),
        mmd=np.zeros(k),
        mmd_se=np.zeros(k),
        mean_err_se=np.zeros(k),
        sd_err_se=np.zeros(k),
        ks=np.full(k, 0.01),
        ks_critical=np.full(k, 0.2),
        coverage=np.where(naive, 0.5, 0.9),
        coverage_lo=np.where(naive, 0.4, 0.83),
        coverage_hi=np.where(naive, 0.6, 0.95),
        rhat_max=np.ones(k),
        ess_min=np.full(k, 1000.0),
        flagged=np.zeros(k),
        flagged_lo=np.zeros(k),
        flagged_hi=np.full(k, 0.037),
        ref_rhat_max=np.ones(k),
        ref_flagged=np.zeros(k),
        ess_per_s=1e4 / col(1).astype(float),
        cpu_per_trial=np.full(k, 0.01),
        qualifies=col(3) != "non_private",
        level=np.float64(cfg["credible_level"]),
    )


def _claims(tmp_path, cfg: dict, tweak=lambda path: None):
    """The claims step on a fake summary at ``cfg``'s grid; ``tweak`` edits the summary file."""
    summary, out = tmp_path / "summary.npz", tmp_path / "claims.csv"
    _fake_summary(summary, cfg)
    tweak(summary)
    paper.claims(
        SimpleNamespace(summary=str(summary)),
        SimpleNamespace(claims=str(out)),
        credible_level=cfg["credible_level"],
        health=cfg["health"],
        recommend=cfg["recommend"],
        problems={p: cfg[p] for p in cfg["problems"]},
    )
    return read_claims(out)


def test_every_expectation_is_judged_at_paper_scale_and_none_at_smoke_scale(tmp_path):
    claims = _claims(tmp_path, _config())
    assert not any(mismatches(c) for c in claims), [
        s.describe() for c in claims for s in mismatches(c)
    ]
    assert all(c.settings for c in claims)
    smoke = _claims(tmp_path, _config("smoke"))
    assert all(verdict(c, {}) == "not comparable" for c in smoke)


@pytest.mark.parametrize(
    "edit, expect, targets",
    [
        (
            lambda c: c["recommend"].update(max_mean_error=0.3),
            "recommendation rule max mean error 0.3 here, 0.2",
            {"accuracy_vs_n", "recommended"},
        ),
        (
            lambda c: c["health"].update(min_ess=200),
            "diagnostics: min ESS 200 here, 400",
            {"metrics", "recommended"},
        ),
        (
            lambda c: c["regression"]["gibbs"].update(keep=1000),
            "regression gibbs keep 1000 here, 4000",
            {"recommended"},
        ),
        (lambda c: c.update(credible_level=0.8), "credible level 0.8 here, 0.9", {"metrics"}),
    ],
)
def test_a_setting_other_than_the_paper_scales_is_never_judged(tmp_path, edit, expect, targets):
    cfg = _config()
    edit(cfg)
    rows = [
        c
        for c in _claims(tmp_path, cfg)
        if expect in "; ".join(s.describe() for s in mismatches(c))
    ]
    assert {c.target for c in rows} == targets
    assert all(verdict(c, {}) == "not comparable" for c in rows)


def test_the_reference_spec_carries_its_noncentred_moves_and_other_chains_keep_the_default():
    """Issue 33: the comparison study's reference runs MCMC-Ind with the config's
    ``noncentred_moves`` per sweep; a chain spec without the key leaves the sampler's default."""
    import yaml

    from dpinfer.studies.nig_specs import nig_chain_spec

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["comparison"]["regression"]
    ref = nig_chain_spec("mcmc_ind", {"mcmc_ind": cfg["reference"]})
    assert ref["options"] == {"noncentred_moves": 50}
    assert nig_chain_spec("mcmc_ind", cfg, 1000)["options"] == {}


def test_the_reference_grows_until_it_passes_the_health_check():
    """Issue 33: a regression reference that fails the health check keeps each length of
    ``longer`` in turn, extending the same chains (same streams); one that passes stops."""
    import yaml

    from dpinfer.models.linreg_nig import (
        NIGPrior,
        NIWPrior,
        release_statistics,
        simulate_dataset,
    )
    from dpinfer.studies.comparison.problems import regression_reference

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["comparison"]["regression"]
    nig, niw = NIGPrior.from_config(cfg["prior"]), NIWPrior.from_config(cfg["data_prior"])
    rng = np.random.default_rng(3)
    sim = simulate_dataset(rng, 10, nig, niw)
    release = release_statistics(rng, sim["x"], sim["y"], 1.0, (-1.0, 1.0), clamp=True)
    spec = {"burnin": 50, "keep": 60, "chains": 2, "noncentred_moves": 5, "longer": [90, 150]}

    def stream(stage):
        return np.random.default_rng([11, sum(map(ord, stage))])

    easy = regression_reference(release, nig, niw, spec, stream, {"max_rhat": 9.0, "min_ess": 1})
    hard = regression_reference(release, nig, niw, spec, stream, {"max_rhat": 1.0, "min_ess": 1e9})
    assert easy.draws.shape == (2 * 60, 3) and hard.draws.shape == (2 * 150, 3)
    # chain 0's first 60 kept draws are the short try's: the longer try extends it
    np.testing.assert_array_equal(hard.draws[:60], easy.draws[:60])


def test_coverage_and_flagged_shares_carry_wilson_intervals():
    """summarise_setting: a coverage of 1 (every trial covered) gets a Wilson interval below 1,
    not a zero error; the flagged share gets one too."""
    from dpinfer.proportions import wilson_interval
    from dpinfer.studies.comparison.summarise import summarise_setting

    trials = 20
    d = {
        "problem": np.array("binomial"),
        "n": np.int64(10),
        "epsilon": np.float64(1.0),
        "methods": np.array(["exact"]),
        "u": np.linspace(0.02, 0.98, trials)[None, :, None],
        "cover": np.ones((1, trials, 1), bool),
        "rhat": np.r_[np.full(trials - 2, 1.001), 1.1, 1.1][None, :, None],
        "ess": np.full((1, trials, 1), 1000.0),
        "cpu": np.full((1, trials), 0.01),
        "mean_err": np.zeros((1, 2, 1)),
        "sd_err": np.zeros((1, 2, 1)),
        "mmd": np.zeros((1, 2, 1)),
        "ref_rhat": np.ones((2, 1)),
        "ref_ess": np.full((2, 1), 1000.0),
    }
    (row,) = summarise_setting(
        d, level=0.9, health={"max_rhat": 1.01, "min_ess": 400}, ks_alpha=0.01
    )
    assert row["coverage"] == 1.0
    assert (row["coverage_lo"], row["coverage_hi"]) == wilson_interval(20, 20)
    assert row["coverage_lo"] < 0.85 and "coverage_se" not in row
    assert row["flagged"] == 0.1
    assert (row["flagged_lo"], row["flagged_hi"]) == wilson_interval(2, 20)


def test_naive_under_coverage_is_tested_at_the_nominal_se_and_reported_with_wilson(tmp_path):
    """The Naive under-coverage row tests against the binomial SE at the nominal level (0.03 at
    0.9 and 100 trials), never a plug-in SE that is zero at 0: a Naive coverage of 0.85 (1.7
    null SE below) does not count as under-coverage, one of 0.0 does; each coverage is printed
    with its Wilson interval."""
    cfg = _config()

    def naive_at(value):
        def tweak(path):
            d = dict(load_npz(path))
            d["coverage"] = np.where(d["method"] == "naive", value, d["coverage"])
            save_npz(path, **d)

        return tweak

    def rows(value):
        (tmp_path / str(value)).mkdir()
        return [
            c
            for c in _claims(tmp_path / str(value), cfg, naive_at(value))
            if "under-cover" in c.statement
        ]

    near, zero = rows(0.85), rows(0.0)
    assert len(near) == 2 and not any(c.holds for c in near)
    assert all(c.holds for c in zero)
    assert all("(0 of 100; 95% Wilson [0.00, 0.04])" in c.mc_error for c in zero)


def test_a_setting_where_no_method_qualifies_names_its_own_classed_entry(tmp_path):
    """The recommendation row that fails names its own entry of docs/deviations.md, not the
    study's heading, and that entry's class line is "our choice" with its measured sensitivity."""
    from dpinfer.studies.deviations import entry_classes

    def none_at_one_setting(path):
        d = dict(load_npz(path))
        first = (d["problem"] == "regression") & (d["n"] == 1000) & (d["epsilon"] == 10.0)
        d["qualifies"] = d["qualifies"] & ~first
        save_npz(path, **d)

    (row,) = [
        c for c in _claims(tmp_path, _config(), none_at_one_setting) if c.target == "recommended"
    ]
    assert row.holds is False and row.deviation == paper.NONE_QUALIFIES
    assert "none at regression n=1000, eps=10" in row.ours
    cls = entry_classes((ROOT / "docs" / "deviations.md").read_text(encoding="utf-8"))
    assert cls[paper.NONE_QUALIFIES].name == "our choice"
