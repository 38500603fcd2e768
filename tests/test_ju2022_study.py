"""ju2022 study steps: coverage from stored levels equals coverage of np.quantile intervals, and
the claims step covers every printed cell and statement."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from dpinfer import diagnostics
from dpinfer.io import save_npz
from dpinfer.studies.ju2022 import paper
from dpinfer.studies.ju2022.run import truth_levels
from dpinfer.studies.ju2022.summarise import interval_hits
from dpinfer.studies.scorecard import converged_verdict, mismatches, read_claims, verdict

LEVELS = [0.5, 0.8, 0.9, 0.95, 0.99]


def _hits_both_ways(draws, truth):
    q_lo, q_hi = truth_levels(draws, truth)
    for level in LEVELS:
        lo, hi = diagnostics.central_interval(draws, level)
        direct = diagnostics.covers(lo, hi, truth)
        stored = interval_hits({"truth_q_lo": q_lo, "truth_q_hi": q_hi}, level)
        assert np.array_equal(direct, stored), (level, draws.shape)


@pytest.mark.parametrize("n", [1, 2, 3, 200, 5000])
def test_stored_levels_give_the_coverage_of_central_intervals(n):
    rng = np.random.default_rng(n)
    for _ in range(200):
        draws = rng.normal(size=(n, 4))
        truth = rng.normal(0.0, 1.5, 4)
        truth[3] = draws[rng.integers(n), 3]  # a truth equal to a draw
        _hits_both_ways(draws, truth)


def test_stored_levels_with_tied_draws():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(1, 60))
        draws = rng.integers(0, 5, size=(n, 3)).astype(float)
        truth = rng.integers(-1, 6, size=3).astype(float)
        _hits_both_ways(draws, truth)


def _fake_summary(model: str, eps, R: int, rng) -> dict:
    D = 5 if model == "loglinear" else 3
    E = len(eps)
    truth = np.broadcast_to(
        np.asarray(paper.PAPER_COVERAGE[model]["truth"], float), (E, R, D)
    ).copy()
    q = rng.uniform(0, 1, (E, R, D))
    spread = np.linspace(1.0, 0.1, E)[:, None, None]
    return {
        "epsilons": np.asarray(eps, float),
        "iterations": np.int64(10000),
        "post_mean": truth + spread * rng.normal(size=(E, R, D)),
        "post_sd": np.ones((E, R, D)),
        "truth_q_lo": q,
        "truth_q_hi": q,
        "truth": truth,
        "acc_mean": np.linspace(0.99, 0.3, E)[:, None] + np.zeros((E, R)),
        "acc_min": np.linspace(0.9, 0.1, E)[:, None] + np.zeros((E, R)),
        "min_log_alpha": -0.5 * np.asarray(eps, float)[:, None] + np.zeros((E, R)),
        "seconds": np.full((E, R), 0.2),
        "ess_min": np.full((E, R), 150.0),
        "rhat_max": np.full((E, R), 1.002),
    }


def _paper_scale_config() -> dict:
    root = Path(__file__).resolve().parents[1]
    return yaml.safe_load((root / "config" / "config.yaml").read_text(encoding="utf-8"))["ju2022"]


_PAPER_SEED = yaml.safe_load(
    (Path(__file__).resolve().parents[1] / "config" / "config.yaml").read_text(encoding="utf-8")
)["seed"]


def _claims(
    tmp_path, *, level=None, edit=lambda cfg: None, replicates=100, companion=None, shape=None
):
    """The claims step on fake summaries at the paper's epsilons, with the paper-scale config
    (after ``edit``) as the run's settings. ``companion``: an experiment's summary -> its
    converged companion's, the regression's cut to the companion's first replicates (None: the
    companion is switched off). ``shape``: (experiment, summary) -> the summary the paper's
    chains give (None: the fake one as drawn)."""
    cfg = _paper_scale_config()
    edit(cfg)
    cfg["converged"]["enabled"] = companion is not None
    rng = np.random.default_rng(0)
    files = {}
    for name, model in (
        ("loglinear_fixed_data", "loglinear"),
        ("linreg_fixed_data", "linreg"),
        ("loglinear_coverage", "loglinear"),
        ("linreg_coverage", "linreg"),
    ):
        files[name] = str(tmp_path / f"{name}.npz")
        summary = _fake_summary(model, paper.PAPER_EPSILONS, replicates, rng)
        if shape is not None:
            summary = shape(name, summary)
        save_npz(files[name], **summary)
        if companion is not None:
            if model == "linreg":
                count = cfg["converged"]["linreg"]["replicates"]
                summary = {
                    k: v if k in ("epsilons", "iterations") else v[:, :count]
                    for k, v in summary.items()
                }
            files[f"converged_{name}"] = str(tmp_path / f"converged_{name}.npz")
            save_npz(files[f"converged_{name}"], **companion(summary))
    out = tmp_path / "claims.csv"
    paper.claims(
        SimpleNamespace(**files),
        SimpleNamespace(csv=str(out)),
        level=level or cfg["credible_level"],
        health={"min_acceptance": 0.05, "min_ess": 5, "max_rhat": 1.01, "converged_ess": 100},
        burnin=cfg["burnin"],
        models={m: cfg[m] for m in ("loglinear", "linreg")},
        n_records={
            m: cfg["experiments"][f"{m}_coverage"]["n_records"] for m in ("loglinear", "linreg")
        },
        converged=cfg["converged"],
    )
    return read_claims(out)


_TARGETS = {"loglinear": ("tab1", "fig1a", "fig1b"), "linreg": ("tabS1", "fig2", "figS1")}


@pytest.mark.parametrize("count", [100, 20])
def test_every_claim_on_the_chains_gets_a_second_verdict(tmp_path, count):
    """Issue 33: a companion identical to the original gives every log-linear chain claim its
    own verdict again; the regression's companion on all 100 replicates (the paper-scale config,
    issue 46) likewise, and on its first ``count`` replicates every regression claim the paper's
    chains' verdict on them, judged only where it is their verdict on all of them; the table
    header's truth and the runtime rows rest on no chain."""
    claims = _claims(
        tmp_path,
        edit=lambda cfg: cfg["converged"]["linreg"].update(replicates=count),
        companion=lambda s: dict(s, ess_min=np.full_like(s["ess_min"], 900)),
    )
    for c in claims:
        chain_row = c.target not in ("runtime",) and not c.statement.startswith("true parameters")
        assert (c.converged is not None) == chain_row, c.statement
    log = [c for c in claims if c.converged and c.target in _TARGETS["loglinear"]]
    reg = [c for c in claims if c.converged and c.target in _TARGETS["linreg"]]
    assert len(log) == 25 + 1 + 2 + 2 + 2 + 7 + 2 and len(reg) == 15 + 1 + 1 + 2 + 2 + 7 + 2
    for c in log + (reg if count == 100 else []):
        assert not c.converged.settings, c.statement
        if c.statement.startswith("experiment "):
            continue  # the companion's ESS (900) is printed; judged by its own thresholds
        assert (c.converged.ours, c.converged.holds) == (c.ours, c.holds), c.statement
    which = "all 100 replicates" if count == 100 else f"the first {count} replicates"
    for c in reg:
        assert which in c.converged.note, c.converged.note
        if count == 100:
            continue
        (on,) = c.converged.settings
        if c.statement.startswith("experiment "):
            continue
        expect = ("holds" if c.converged.holds else "differs") if on.same else "not comparable"
        assert converged_verdict(c) == expect, c.statement
        assert on.same == (on.ours == on.paper)
    assert "4 chains per replicate" in log[0].converged.note
    health = [c for c in log if "convergence diagnostics" in c.statement]
    assert len(health) == 2 and all(c.converged.holds for c in health)
    assert all(c.diagnostics == c.statement.startswith("experiment ") for c in claims)


def test_a_companion_that_moves_coverage_changes_the_second_verdict(tmp_path):
    def narrow(s):  # every truth far in a tail: coverage 0
        return dict(
            s,
            truth_q_lo=np.full_like(s["truth_q_lo"], 0.001),
            truth_q_hi=np.full_like(s["truth_q_hi"], 0.001),
        )

    claims = _claims(tmp_path, companion=narrow)
    alone = _claims(tmp_path / "alone")
    assert [(c.ours, c.holds) for c in claims] == [(c.ours, c.holds) for c in alone]
    cells = [c for c in claims if c.target == "tab1" and c.statement.startswith("coverage of")]
    assert len(cells) == 25 and all(converged_verdict(c) == "differs" for c in cells)


def test_claims_cover_every_printed_cell_and_statement(tmp_path):
    claims = _claims(tmp_path)
    assert not any(mismatches(c) for c in claims), "the paper-scale config is the paper's setting"
    per_target = {t: sum(c.target == t for c in claims) for t in {c.target for c in claims}}
    # cells + every cell at once (the headline) + header + remarks + chain health (degenerate,
    # converged); 2 posterior-mean claims;
    # 5 bounds + 2 acceptance claims + chain health; 2 timings
    assert per_target == {
        "tab1": 25 + 1 + 3 + 2,
        "tabS1": 15 + 1 + 2 + 2,
        "fig1a": 2,
        "fig2": 2,
        "fig1b": 7 + 2,
        "figS1": 7 + 2,
        "runtime": 2,
    }
    assert all(c.holds for c in claims if c.statement.startswith("experiment "))
    bounds = [c for c in claims if c.statement.startswith("Proposition 3.1")]
    assert all(c.holds for c in bounds)
    runtime = [c for c in claims if c.target == "runtime"]
    assert all(not c.holds and c.deviation == paper.DEV_RUNTIME for c in runtime)


@pytest.mark.parametrize(
    "level, edit, expect",
    [
        (0.8, lambda cfg: None, "credible level 0.8 here, 0.9 in the paper"),
        (
            None,
            lambda cfg: cfg["linreg"].update(sensitivity=15),
            "sensitivity 15 here, 13 in the paper",
        ),
        (None, lambda cfg: cfg.update(burnin=2000), "burn-in sweeps 2000 here, 5000 in the paper"),
    ],
)
def test_a_setting_other_than_the_papers_is_never_judged(tmp_path, level, edit, expect):
    """Issue 29: a coverage cell at another credible level (or model, or chain length) is 'not
    comparable', naming the setting, never 'holds' or 'differs' against the paper's value."""
    claims = _claims(tmp_path, level=level, edit=edit)
    cells = [
        c
        for c in claims
        if c.target in ("tab1", "tabS1") and "central credible interval" in c.statement
    ]
    model = "linreg" if "sensitivity" in expect else None
    affected = [c for c in cells if model is None or c.target == "tabS1"]
    assert affected and all(verdict(c, set()) == "not comparable" for c in affected)
    assert all(expect in "; ".join(s.describe() for s in mismatches(c)) for c in affected)


def test_fewer_replicates_are_not_comparable_more_are(tmp_path):
    few = _claims(tmp_path, replicates=20)
    cells = [c for c in few if "central credible interval" in c.statement]
    assert all(verdict(c, set()) == "not comparable" for c in cells)
    more = _claims(tmp_path, replicates=150)
    assert not any(mismatches(c) for c in more)


def test_tables_print_the_papers_value_only_at_its_setting(tmp_path):
    from dpinfer.studies.ju2022.summarise import tab1

    cfg = _paper_scale_config()
    path = tmp_path / "s.npz"
    save_npz(
        path, **_fake_summary("loglinear", paper.PAPER_EPSILONS, 100, np.random.default_rng(1))
    )
    run = dict(burnin=cfg["burnin"], model_cfg=cfg["loglinear"], n_records=100)
    for level, printed in ((0.9, True), (0.8, False)):
        out = SimpleNamespace(csv=tmp_path / "t.csv", md=tmp_path / "t.md")
        tab1(SimpleNamespace(summary=str(path)), out, level=level, **run)
        text = out.md.read_text()
        assert ("(1.00)" in text) == printed, text
        assert ("credible level 0.8 here, 0.9 in the paper" in text) == (not printed)


def test_a_chain_that_stops_moving_is_flagged_degenerate():
    """Issue 8: at epsilon = 1000 the record moves of Algorithm 1 are almost never accepted
    (the release pins the latent statistic); such chains must be flagged, ordinary ones not."""
    from dpinfer import diagnostics
    from dpinfer.mechanisms import calibrate
    from dpinfer.models import gaussian_linreg, naive_bayes
    from dpinfer.samplers.data_augmentation import run_linreg, run_loglinear
    from dpinfer.studies.ju2022.summarise import degenerate_chains

    data = Path(__file__).resolve().parents[1] / "config" / "data" / "ju2022"
    ref = naive_bayes.load_reference(*naive_bayes.reference_files(data), 2.0)
    flags = {}
    for eps in (10.0, 1000.0):
        mech = calibrate("laplace", eps, 10)
        rng = np.random.default_rng(3)
        chain = run_loglinear(
            naive_bayes.Problem(
                mech.release(rng, ref.counts),
                scale=mech.scale,
                alpha_p=ref.alpha_p,
                alpha=ref.alpha,
                n_records=ref.n_records,
            ),
            burnin=1000,
            keep=2000,
            rng=rng,
        )
        ess = diagnostics.effective_sample_size(chain.kept).min()
        flags[eps] = bool(diagnostics.degenerate(chain.info.acceptance, ess))
    lin = gaussian_linreg.load_reference(*gaussian_linreg.reference_files(data))
    mech = calibrate("laplace", 1000.0, 13)
    rng = np.random.default_rng(4)
    chain = run_linreg(
        gaussian_linreg.Problem(
            mech.release(rng, gaussian_linreg.released_statistic(lin.X, lin.y, lin.clamp)),
            scale=mech.scale,
            mean_x=lin.mean_x,
            cov_x=lin.cov_x,
            sigma2=lin.sigma2,
            tau=2.0,
            clamp=lin.clamp,
            n_records=len(lin.y),
        ),
        burnin=1000,
        keep=2000,
        rng=rng,
    )
    assert chain.info.acceptance < 0.02
    assert flags == {10.0: False, 1000.0: True}
    summary = {"acc_mean": np.array([[0.3, 0.006]]), "ess_min": np.array([[200.0, 300.0]])}
    assert degenerate_chains(summary, {"min_acceptance": 0.05, "min_ess": 5}).tolist() == [
        [False, True]
    ]


def test_the_paper_scale_config_runs_the_papers_five_epsilons():
    """The default config is the paper's scale: every experiment of ju2022 runs every epsilon the
    paper's tables and figures print (a narrower grid leaves scorecard cells "not run"), at least
    its replicates, and N records where the design draws them (settings.yaml names one
    experiment's keys; tests/test_document_settings.py holds those)."""
    n = paper.PAPER.paper("n_records")
    for name, exp in _paper_scale_config()["experiments"].items():
        assert set(paper.PAPER_EPSILONS) <= {float(e) for e in exp["epsilons"]}, name
        assert exp["replicates"] >= paper.PAPER.paper("replicates") and exp.get("n_records", n) == n


@pytest.mark.parametrize("model", ["loglinear", "linreg"])
def test_a_fixed_parameters_job_needs_no_data_file_and_fixed_data_reads_it(tmp_path, model):
    """Issue 30, item 4: a fixed_parameters chunk simulates its data from the authors' parameters,
    so its job lists (and reads) only the parameter file; the same replicate with the data file
    given is identical. A fixed_data job without the data file fails."""
    from dpinfer.io import load_npz
    from dpinfer.models import gaussian_linreg, naive_bayes
    from dpinfer.studies.ju2022.run import run_chunk

    from .conftest import DATA_JU2022

    cfg = _paper_scale_config()
    files = (naive_bayes if model == "loglinear" else gaussian_linreg).reference_files(DATA_JU2022)
    args = dict(
        seed=1,
        experiment="e",
        model=model,
        epsilon=1.0,
        replicates=[0, 2],
        burnin=20,
        keep=30,
        model_config=cfg[model],
    )
    out = {}
    for name, inputs in (
        ("without", SimpleNamespace(parameters=str(files[0]))),
        ("with", SimpleNamespace(parameters=str(files[0]), data=str(files[1]))),
    ):
        run_chunk(
            inputs,
            SimpleNamespace(summary=str(tmp_path / f"{name}.npz")),
            design="fixed_parameters",
            n_records=50,
            **args,
        )
        out[name] = load_npz(tmp_path / f"{name}.npz")
    for key in out["with"]:
        if key != "seconds":
            np.testing.assert_array_equal(out["with"][key], out["without"][key], err_msg=key)
    with pytest.raises(AttributeError):
        run_chunk(
            SimpleNamespace(parameters=str(files[0])),
            SimpleNamespace(summary=str(tmp_path / "x.npz")),
            design="fixed_data",
            n_records=None,
            **args,
        )


def test_a_coverage_of_0_against_the_papers_1_is_beyond_3_se():
    """Both binomial SEs vanish at 0 and 1: the gap then uses the pooled two-proportion SE
    (found by the companion test above: 0.00 against the paper's 1 read "within 3 SE")."""
    from dpinfer.studies.ju2022.summarise import coverage_rows

    rng = np.random.default_rng(1)
    s = _fake_summary("loglinear", paper.PAPER_EPSILONS, 100, rng)
    s["truth_q_lo"] = s["truth_q_hi"] = np.full_like(s["truth_q_lo"], 0.001)  # never covered
    rows = coverage_rows(s, "loglinear", 0.9)
    cell = next(r for r in rows if r["epsilon"] == "0.1" and r["parameter"] == "p_1")
    assert cell["coverage"] == 0.0 and cell["paper_coverage"] == 1.0
    assert cell["beyond_3se"] and np.isfinite(cell["gap_in_se"]) and cell["gap_in_se"] < -3
    s["truth_q_lo"] = s["truth_q_hi"] = np.full_like(s["truth_q_lo"], 0.5)  # always covered
    same = next(r for r in coverage_rows(s, "loglinear", 0.9) if r["epsilon"] == "0.1")
    assert same["coverage"] == 1.0 and same["gap_in_se"] == 0.0 and not same["beyond_3se"]


@pytest.mark.parametrize(
    "experiment, design, n_records",
    [("loglinear_fixed_data", "fixed_data", None), ("loglinear_coverage", "fixed_parameters", 100)],
)
def test_one_companion_chain_of_the_original_length_is_the_original_replicate(
    tmp_path, experiment, design, n_records
):
    """The companion's streams: the same data, release and first chain (stage ``sample``); with
    one chain of the paper's length its summaries are the original's (time aside); a second
    chain changes the pooled numbers."""
    from dpinfer.io import load_npz
    from dpinfer.studies.ju2022 import run

    cfg = _paper_scale_config()
    d = Path(__file__).resolve().parents[1] / cfg["data_dir"]
    files = SimpleNamespace(
        parameters=str(d / "loglinear_datageneratingparameters.json"),
        data=str(d / "loglinear_notdpdata_N100.json"),
    )
    common = dict(
        seed=3,
        experiment=experiment,
        model="loglinear",
        design=design,
        epsilon=0.3,
        replicates=[2, 4],
        n_records=n_records,
        model_config=cfg["loglinear"],
    )
    paths = {k: SimpleNamespace(summary=str(tmp_path / f"{k}.npz")) for k in ("a", "b", "c")}
    run.run_chunk(files, paths["a"], burnin=100, keep=300, **common)
    one = {"chains": 1, "burnin": 100, "keep": 300}
    run.run_converged_chunk(files, paths["b"], converged=one, **common)
    run.run_converged_chunk(files, paths["c"], converged=dict(one, chains=2), **common)
    a, b, c = (load_npz(p.summary) for p in paths.values())
    assert a.keys() == b.keys()
    for k in a:
        if k != "seconds":
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    np.testing.assert_array_equal(a["truth"], c["truth"])
    assert not np.array_equal(a["post_mean"], c["post_mean"])


def test_the_papers_chain_length_leaves_the_regression_chains_unconverged(tmp_path, capsys):
    """Document in error (docs/deviations.md, "Mixing of the regression chain"): Algorithm 1 as
    printed, at the paper's 10,000 sweeps with the first 5,000 discarded, on the study's own
    releases (the first 10 replicates of linreg_fixed_data at epsilon 0.1, the pipeline's
    streams) does not converge by any usual standard: every chain's bulk ESS is below 100 (the
    5% and 95% quantiles of 5,000 draws then carry a Monte Carlo sd above 0.02 in probability),
    half of them have split R-hat above 1.1, and some are degenerate (ESS below 5)."""
    from dpinfer.io import load_npz
    from dpinfer.models import gaussian_linreg
    from dpinfer.studies.ju2022.run import run_chunk

    from .conftest import DATA_JU2022

    cfg = _paper_scale_config()
    parameters, data = gaussian_linreg.reference_files(DATA_JU2022)
    out = SimpleNamespace(summary=str(tmp_path / "paper_length.npz"))
    run_chunk(
        SimpleNamespace(parameters=str(parameters), data=str(data)),
        out,
        burnin=cfg["burnin"],
        keep=cfg["iterations"] - cfg["burnin"],
        seed=_PAPER_SEED,
        experiment="linreg_fixed_data",
        model="linreg",
        design="fixed_data",
        epsilon=0.1,
        replicates=[0, 10],
        n_records=None,
        model_config=cfg["linreg"],
    )
    s = load_npz(out.summary)
    ess, rhat = s["ess_min"], s["rhat_max"]
    with capsys.disabled():
        print(
            f"\npaper-length regression chains at epsilon 0.1: bulk ESS {np.round(ess, 1)}, "
            f"split R-hat {np.round(rhat, 3)}"
        )
    assert (cfg["iterations"], cfg["burnin"]) == (10_000, 5_000)  # the paper's lengths
    assert np.all(ess < 100), ess
    assert np.sum(rhat > 1.1) >= 5, rhat
    assert np.any(ess < 5), ess


# ----------------------------------------------------------------------------- proportions
def _with_hits(summary: dict, j: int, hits_per_eps) -> dict:
    """``summary`` whose interval of parameter ``j`` covers the truth in the first
    ``hits_per_eps[e]`` replicates of epsilon e and misses it in the rest."""
    q = summary["truth_q_lo"].copy()
    R = q.shape[1]
    for e, k in enumerate(hits_per_eps):
        q[e, :, j] = np.where(np.arange(R) < k, 0.5, 0.001)
    return dict(summary, truth_q_lo=q, truth_q_hi=q.copy())


def test_a_full_coverage_is_judged_by_the_pooled_test_not_a_zero_se():
    """Issue 46: 20 of 20 hits against the paper's 60 of 100 has a plug-in binomial SE of 0
    (the old gap read 8.2 SE); the pooled two-proportion SE gives z = 3.46, and the cell's
    interval is Wilson's [0.84, 1], never of zero width."""
    from dpinfer.studies.ju2022.summarise import coverage_rows

    s = _fake_summary("linreg", paper.PAPER_EPSILONS, 20, np.random.default_rng(2))
    s = _with_hits(s, 1, [20, 20, 20, 20, 20])
    cell = next(
        r
        for r in coverage_rows(s, "linreg", 0.9)
        if r["epsilon"] == "0.1" and r["parameter"] == "beta_1"
    )
    assert (cell["hits"], cell["replicates"], cell["paper_coverage"]) == (20, 20, 0.6)
    assert cell["gap_in_se"] == pytest.approx(0.4 / np.sqrt(80 / 120 * 40 / 120 * 0.06))
    assert 3.4 < cell["gap_in_se"] < 3.5 and cell["beyond_3se"]
    assert cell["wilson_low"] == pytest.approx(0.8389, abs=1e-4) and cell["wilson_high"] == 1.0
    # the same on 100 replicates: 100 of 100 against 60 of 100
    s = _with_hits(_fake_summary("linreg", [0.1], 100, np.random.default_rng(2)), 1, [100])
    (row,) = [r for r in coverage_rows(s, "linreg", 0.9) if r["parameter"] == "beta_1"]
    assert row["gap_in_se"] == pytest.approx(0.4 / np.sqrt(0.8 * 0.2 * 0.02))


@pytest.mark.parametrize(
    "hits, holds",
    [
        ([84] * 5, True),  # 420 of 500: Wilson [0.81, 0.87], below 0.9
        ([90] * 5, False),  # 450 of 500: the old "mean 0.90 < 0.9" read False by a hair
        ([89] * 5, False),  # 445 of 500, mean 0.89: the old rule said True; [0.86, 0.92]
        ([60, 66, 84, 84, 87], True),  # the paper's own cells, 381 of 500
    ],
)
def test_beta_1_lower_than_90_percent_is_a_test_with_an_interval(tmp_path, hits, holds):
    """Issue 46: the remark is judged by the 95% Wilson interval of beta_1's coverage pooled
    over the grid lying below 0.9, not by a strict mean < 0.9 that one miss flips; the row
    states the fixed-truth caveat with the prior's interval."""

    def shape(name, s):
        return _with_hits(s, 1, hits) if name == "linreg_coverage" else s

    claims = _claims(tmp_path, shape=shape)
    (row,) = [c for c in claims if c.statement.startswith("the coverage of beta_1")]
    assert row.holds is holds, (row.ours, row.mc_error)
    assert f"({sum(hits)} of 500)" in row.ours and row.mc_error.startswith("95% Wilson [")
    assert row.paper.startswith("0.76 (381 of 500; 95% Wilson [0.72, 0.80])")
    assert "lies inside the prior's 90% interval [-3.29, 3.29]" in row.statement


def test_the_second_verdict_pairs_the_same_replicates_with_mcnemar(tmp_path):
    """Issue 46: the companion's coverage of each cell is set beside the paper's chains' on the
    same replicates with McNemar's exact test of the paired hits; here the companion covers
    every replicate at epsilon 0.1 where the paper's chains cover 62."""
    from scipy import stats

    def shape(name, s):
        return _with_hits(s, 1, [62, 66, 84, 84, 87]) if name == "linreg_coverage" else s

    def companion(s):
        hits = [s["truth"].shape[1]] * 5 if s["truth"].shape[2] == 3 else None
        return s if hits is None else _with_hits(s, 1, hits)

    claims = _claims(tmp_path, shape=shape, companion=companion)
    cell = next(
        c
        for c in claims
        if c.target == "tabS1"
        and c.statement.startswith("coverage of the 90% central")
        and "beta_1 at epsilon = 0.1:" in c.statement
    )
    note = cell.converged.note
    p = stats.binomtest(0, 38, 0.5).pvalue
    assert "on the same 100 replicates converged chains move the coverage from 0.62" in note
    assert "to 1.00 (100 of 100; 95% Wilson [0.96, 1.00])" in note
    assert (
        "0 covered only by the paper's chains, 38 only by the converged ones; "
        f"McNemar exact p = {p:.2g}" in note
    )
    assert cell.holds and not cell.converged.holds  # 62 vs 60 of 100; 100 vs 60 of 100
    pooled = next(c for c in claims if c.statement.startswith("the coverage of beta_1"))
    assert (
        "from 0.77 (383 of 500" in pooled.converged.note
        and "to 1.00 (500 of 500" in pooled.converged.note
    )
