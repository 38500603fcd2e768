"""bernstein2020 chapter 4's converged companion (issue 33): the same trials (data, release,
non-private draws) with more and longer Gibbs chains of the same kernel, and the second verdict
it gives every claim computed from the Gibbs chains."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from dpinfer.diagnostics import passing_share
from dpinfer.models import expfam
from dpinfer.models.expfam_release import release
from dpinfer.samplers.registry import sampler
from dpinfer.studies.bernstein2020_ch4 import converged as comp
from dpinfer.studies.bernstein2020_ch4 import run as ch4
from dpinfer.studies.scorecard import converged_verdict

from .conftest import ROOT
from .test_bernstein2020_ch4 import CFG, ch4_claims, small_settings

MODELS = ("binomial", "multinomial", "exponential")


@pytest.mark.parametrize("model", MODELS)
def test_one_companion_chain_of_the_original_length_is_the_original_trial(model):
    """Same streams for the data, the release, the non-private and the first Gibbs chain: with
    one chain of the original length the companion's U and MMD^2 are the original trial's."""
    settings = small_settings(model)
    for rep in (0, 3):
        original = ch4.trial(model, 100, 0.1, rep, settings, seed=5)
        same = comp.CompanionSettings(1, settings.burnin, settings.iterations)
        twin = comp.companion_trial(model, 100, 0.1, rep, settings, same, seed=5)
        assert twin["u"] == original["u"]["gibbs"]
        assert twin["mmd"] == original["mmd"]["gibbs"]


@pytest.mark.parametrize("model", MODELS)
def test_a_longer_chain_starts_with_the_shorter_ones_draws(model):
    """The companion's chain 0 extends the original chain: its first kept draws are the same."""
    settings = small_settings(model)
    rel = release(
        model, 100, 0.1, settings.model, np.random.default_rng(1), np.random.default_rng(2)
    )
    _, kw = ch4.call_settings(model, "gibbs", rel, settings)
    problem = expfam.Problem(rel.statistics["gibbs"], 100, rel.prior, rel.mechanism)
    run = sampler(model, "gibbs")
    short = run(problem, np.random.default_rng(3), keep=200, **kw).kept
    long = run(problem, np.random.default_rng(3), keep=500, **kw).kept
    np.testing.assert_array_equal(long[:200], short)


def test_companion_chains_pass_where_the_original_is_flagged():
    """Power of the companion where it matters (binomial, n = 1000, eps = 0.01: the thesis's
    length flags about 4 in 5 chains at paper scale): 4 chains of 25,000 kept draws give a
    pooled bulk ESS above 400 and R-hat <= 1.01 in most trials, one 5,000-draw chain does not."""
    settings = ch4.TrialSettings.from_section(copy.deepcopy(CFG), "binomial")
    conv = CFG["converged"]
    long = comp.CompanionSettings(conv["chains"], conv["burnin"], conv["keep"]["binomial"])
    short = comp.CompanionSettings(2, settings.burnin, settings.iterations // 2)
    res = [comp.companion_trial("binomial", 1000, 0.01, r, settings, long, 11) for r in range(8)]
    old = [comp.companion_trial("binomial", 1000, 0.01, r, settings, short, 11) for r in range(8)]
    health = conv["health"]
    new_pass = passing_share([r["rhat"] for r in res], [r["ess"] for r in res], health)
    old_pass = passing_share([r["rhat"] for r in old], [r["ess"] for r in old], health)
    assert new_pass >= 6 / 8 and new_pass > old_pass, (new_pass, old_pass)


# the statements computed from the noise-aware Gibbs chains of the calibration trials (the test's
# own list: the claims step marks them where it builds them)
GIBBS_CLAIMS = (
    "Noise-aware Gibbs calibrated",
    "Gibbs and Non-private both calibrated",
    "Gibbs utility at least as good",
    "every trial's noise-aware Gibbs chain passes",
)


def _gibbs_rows(claims):
    return [c for c in claims if any(w in c.statement for w in GIBBS_CLAIMS)]


def test_every_claim_on_the_gibbs_chains_gets_a_second_verdict(tmp_path):
    """A companion identical to the original gives each Gibbs claim its own verdict again; no
    other claim gets one; 4 + 3 + 16 + 3 rows at paper scale."""
    claims = ch4_claims(tmp_path, companion=lambda d: {k: v for k, v in d.items() if "_gibbs" in k})
    rows = _gibbs_rows(claims)
    assert len(rows) == 3 + 3 + 16 + 3
    assert all(c.converged is None for c in claims if c not in rows)
    for c in rows:
        assert (c.converged.ours, c.converged.holds) == (c.ours, c.holds), c.statement
        assert converged_verdict(c) == ("holds" if c.holds else "differs")
        assert "4 chains per trial" in c.converged.note


def test_a_miscalibrated_companion_changes_the_second_verdict_only(tmp_path):
    def broken(d):
        out = {k: v for k, v in d.items() if "_gibbs" in k}
        out.update({k: np.full_like(v, 0.01) for k, v in out.items() if "__u_gibbs" in k})
        return out

    claims = ch4_claims(tmp_path, companion=broken)
    alone = ch4_claims(tmp_path / "alone")
    assert [(c.ours, c.holds) for c in claims] == [(c.ours, c.holds) for c in alone]
    calibrated = [c for c in claims if c.statement.startswith("Noise-aware Gibbs calibrated")]
    assert len(calibrated) == 3
    assert all(converged_verdict(c) == "differs" for c in calibrated)


def test_switched_off_the_rows_say_their_companion_did_not_run(tmp_path):
    claims = ch4_claims(tmp_path)
    rows = _gibbs_rows(claims)
    assert rows and all(converged_verdict(c) == "not run" for c in rows)
    assert "switched off" in rows[0].converged.note


def test_smoke_rows_and_their_companions_are_not_comparable(tmp_path):
    claims = ch4_claims(
        tmp_path, smoke=True, companion=lambda d: {k: v for k, v in d.items() if "_gibbs" in k}
    )
    rows = _gibbs_rows(claims)
    assert rows and all(converged_verdict(c) == "not comparable" for c in rows)


def test_schema_refuses_a_bad_companion_block():
    from snakemake.utils import validate

    schema = str(ROOT / "workflow" / "schemas" / "bernstein2020_ch4.schema.yaml")
    for edit in (
        lambda c: c.update(chains=1),
        lambda c: c["health"].pop("min_passing"),
        lambda c: c["keep"].update(poisson=10),
        lambda c: c["health"].update(min_passing=1.5),
    ):
        bad = copy.deepcopy(CFG)
        edit(bad["converged"])
        with pytest.raises(Exception):
            validate(bad, schema)


def test_the_companion_table_gives_each_pass_share_a_wilson_interval(tmp_path):
    """Every cell's share of passing trials is printed with its 95% Wilson interval (9 of 10:
    [0.596, 0.982]), never a zero error."""
    import csv
    from types import SimpleNamespace

    from dpinfer.io import save_npz

    path = tmp_path / "chunk.npz"
    rhat = np.r_[np.full(9, 1.001), 1.02]  # one trial of ten fails R-hat
    save_npz(
        str(path),
        model=np.array("binomial"),
        n=np.int64(10),
        epsilon=np.float64(0.1),
        replicates=np.arange(10),
        u=np.linspace(0.05, 0.95, 10),
        mmd=np.zeros(10),
        rhat=rhat,
        ess=np.full(10, 1000.0),
        cpu=np.zeros(10),
    )
    out = SimpleNamespace(**{k: str(tmp_path / f"out.{k}") for k in ("summary", "csv", "md")})
    out.summary += ".npz"
    conv = {**CFG["converged"], "health": {"max_rhat": 1.01, "min_ess": 400, "min_passing": 0.95}}
    comp.summarise(SimpleNamespace(runs=[str(path)]), out, replicates=10, converged=conv)
    (row,) = list(csv.DictReader(open(out.csv)))
    assert float(row["passing"]) == 0.9
    assert round(float(row["passing_lo"]), 3) == 0.596
    assert round(float(row["passing_hi"]), 3) == 0.982
    assert "Wilson" in open(out.md).read()
