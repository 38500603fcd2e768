"""raisa2021 scorecard rows (issue 29): every claim records the settings its thesis value refers
to; at the paper-scale config they are the thesis's, and a run at another setting is never
judged against the thesis. The step is run on fake summaries shaped like the real ones."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from dpinfer.io import save_npz
from dpinfer.studies.raisa2021 import paper, settings, thesis_settings
from dpinfer.studies.raisa2021.summarise import setting_key, summarise, tab5_1
from dpinfer.studies.scorecard import mismatches, read_claims, verdict

from .configs import config as load_config

ROOT = Path(__file__).resolve().parents[1]
PARAMS = settings.load_params(ROOT / "config" / "data" / "raisa2021" / "params.yaml")


def _config() -> dict:
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))[
        "raisa2021"
    ]


def test_the_references_the_thesis_leaves_open_are_the_paper_scale_config():
    """Rule 3 of issue 29: where the thesis gives no value, thesis_settings.py's constant is our
    paper-scale config value (and the thesis's own values are the config's too)."""
    cfg, ts = _config(), thesis_settings
    assert ts.VERSION == cfg["version"] and ts.START_RULE == cfg["start_rule"]
    assert (
        ts.REFERENCE_DRAWS == cfg["reference_draws"] and ts.MMD_PAIRS == cfg["mmd_bandwidth_pairs"]
    )
    assert ts.FIG6_1 == cfg["fig6_1"] and ts.FIG4_1 == cfg["fig4_1"]
    assert ts.CLIPPING == {k: cfg["clipping"][k] for k in ts.CLIPPING}
    assert list(ts.CLIPPING_DIMS) == cfg["clipping"]["dims"]
    assert (
        ts.THESIS_EPSILONS == cfg["epsilons"]
        and ts.THESIS_CIRCLE_EPSILONS == cfg["circle_epsilons"]
    )
    assert ts.THESIS_CHAINS == cfg["chains"] and ts.THESIS_DELTA_FACTOR == cfg["delta_factor"]
    assert ts.THESIS_BASELINES == cfg["baseline_samples"] and cfg["data_fraction"] == 1.0
    for model in ts.NAMES:
        spec = settings.model_spec(PARAMS, model, cfg["data_fraction"])
        assert not [
            s for s in ts.table_5_1_settings(model, spec, cfg["start_rule"]) if not s.same
        ], model


# ----------------------------------------------------------------------------- fake inputs
def _settings_of(cfg) -> list[tuple[str, str, float]]:
    return [
        (m, a, float(e))
        for m in cfg["models"]
        for a in cfg["algorithms"]
        if settings.runs(PARAMS, m, a)
        for e in (cfg["circle_epsilons"] if m == "circle" else cfg["epsilons"])
    ]


def _inputs(tmp_path: Path, cfg: dict, rng) -> SimpleNamespace:
    """Fake summary, curves, references, trajectory and clipping summary for ``cfg``."""
    chains = int(cfg["chains"])
    rec, keys = {}, []
    for m, a, e in _settings_of(cfg):
        key = setting_key(m, a, e)
        keys.append(key)
        for name in ("mmd", "llr_clip", "grad_clip", "mean_error"):
            rec[f"{key}/{name}"] = rng.uniform(0.0, 0.2, chains)
        count = settings.author_iterations(PARAMS, m, a, e, "seed")
        rec[f"{key}/iterations"] = np.int64(count or 100)
        if count is not None:
            rec[f"{key}/author_iterations"] = np.int64(count)
        rec[f"{key}/flagged"] = np.bool_(False)
    rec["keys"] = np.array(keys)
    save_npz(tmp_path / "summary.npz", **rec)
    grid = np.linspace(
        cfg["fig6_1"]["epsilon_min"], cfg["fig6_1"]["epsilon_max"], cfg["fig6_1"]["points"]
    )
    curves = {"epsilons": grid}
    for key, value in paper.FIG6_1_AT_6["seed"].items():
        curves[key] = np.linspace(1, value, grid.size).round()
    save_npz(tmp_path / "curves.npz", **curves)
    refs = []
    for m in cfg["models"]:
        refs.append(str(tmp_path / f"{m}.npz"))
        n = settings.model_spec(PARAMS, m, cfg["data_fraction"])["n"]
        save_npz(refs[-1], reference=rng.standard_normal((200, 2)), n=np.int64(n))
    angle = np.linspace(0.0, 1.0, cfg["fig4_1"]["steps"] + 1)
    save_npz(
        tmp_path / "trajectory.npz",
        trajectory=3.0 * np.c_[np.cos(angle), np.sin(angle)],
        path_logp=-rng.uniform(0, 1, angle.size),
    )
    clip, ckeys = {}, []
    for algo in settings.CLIPPING_ALGORITHMS:
        for dim in cfg["clipping"]["dims"]:
            clip[f"{dim}/baseline_mmd"] = rng.uniform(0.0, 0.05, cfg["baseline_samples"])
            for bound in cfg["clipping"]["bounds"]:
                key = f"{algo}|{int(dim)}|{float(bound)!r}"
                ckeys.append(key)
                clip[f"{key}/mmd"] = rng.uniform(0.0, 0.1, cfg["clipping"]["chains"])
                clip[f"{key}/llr_clip"] = rng.uniform(0.0, 0.2, cfg["clipping"]["chains"])
    clip["keys"] = np.array(ckeys)
    save_npz(tmp_path / "clipping.npz", **clip)
    return SimpleNamespace(
        summary=str(tmp_path / "summary.npz"),
        curves=str(tmp_path / "curves.npz"),
        references=refs,
        trajectory=str(tmp_path / "trajectory.npz"),
        clipping=str(tmp_path / "clipping.npz"),
    )


def _params(cfg: dict) -> dict:
    """The claims rule's params for a config section (as workflow/rules/raisa2021.smk builds
    them)."""
    clip_n = settings.clipping_spec(PARAMS, 2, cfg["clipping"]["n"], cfg["data_fraction"])["n"]
    return dict(
        version=cfg["version"],
        epsilons=cfg["epsilons"],
        circle_epsilons=cfg["circle_epsilons"],
        chains=cfg["chains"],
        delta_factor=cfg["delta_factor"],
        start_rule=cfg["start_rule"],
        reference_draws=cfg["reference_draws"],
        mmd_bandwidth_pairs=cfg["mmd_bandwidth_pairs"],
        baseline_samples=cfg["baseline_samples"],
        specs={m: settings.model_spec(PARAMS, m, cfg["data_fraction"]) for m in cfg["models"]},
        fig6_1=cfg["fig6_1"],
        fig4_1=cfg["fig4_1"],
        clipping=dict(cfg["clipping"], n=clip_n),
    )


def fake_claims(tmp_path: Path, edit=lambda cfg: None, data=lambda cfg: None):
    """The claims step on fake inputs: ``data`` edits the config the inputs are made at (what
    ran), ``edit`` the config the claims rule passes (both start from the paper-scale config)."""
    cfg = _config()
    data(cfg)
    inputs = _inputs(tmp_path, cfg, np.random.default_rng(0))
    edit(cfg)
    out = tmp_path / "claims.csv"
    paper.claims(inputs, SimpleNamespace(claims=str(out)), **_params(cfg))
    return read_claims(out)


def test_at_paper_scale_every_claim_is_at_the_theses_setting(tmp_path):
    claims = fake_claims(tmp_path)
    assert not [c for c in claims if mismatches(c)], [
        (c.statement, mismatches(c)) for c in claims if mismatches(c)
    ]
    assert all(c.holds is not None for c in claims), "every statement is computed at paper scale"
    targets = {c.target for c in claims}
    assert targets == {
        "tab5_1",
        "fig5_1",
        "fig4_1",
        "fig6_1",
        "fig6_2",
        "fig6_3",
        "fig6_4",
        "fig6_5",
        "fig6_6",
        "fig6_7",
        "fig6_8",
    }
    # every row but the theorem-like tempering check names its settings
    assert all(c.settings for c in claims if c.target != "fig5_1")


def _smoke(cfg):
    """The section at smoke scale (config/smoke.yaml's rules on the paper-scale config)."""
    cfg.clear()
    cfg.update(load_config("smoke")["raisa2021"])


def test_at_smoke_scale_no_row_is_judged_against_the_thesis_unless_at_its_setting(tmp_path):
    claims = fake_claims(tmp_path, edit=_smoke, data=_smoke)
    judged = [c for c in claims if verdict(c, set()) in ("holds", "differs (unexplained)")]
    # only Fig 6.1's accountant values at epsilon 6 are at the thesis's setting here
    # (n = 1e5, delta = 1e-6)
    assert judged and all(c.target == "fig6_1" and "epsilon = 6" in c.statement for c in judged)
    assert all(not mismatches(c) for c in judged)
    text = "; ".join(s.describe() for c in claims for s in mismatches(c))
    assert "n easy-2d 10000 here, easy-2d 100000 in the thesis" in text
    assert "chains per setting 3 here, 20 in the thesis" in text


@pytest.mark.parametrize(
    "edit, target, expect",
    [
        (lambda c: c.update(chains=10), "fig6_3", "chains per setting 10 here, 20 in the thesis"),
        (
            lambda c: c.update(version="head"),
            "fig6_1",
            "hyperparameters head here, seed at paper scale",
        ),
        (
            lambda c: c.update(start_rule="ref_sd_1.5"),
            "fig6_4",
            "start rule ref_sd_1.5 here, start_sd",
        ),
        (lambda c: c.update(mmd_bandwidth_pairs=50), "fig6_3", "MMD bandwidth pairs 50 here, 500"),
        (
            lambda c: c["fig4_1"].update(panels=6),
            "fig4_1",
            "Fig 4.1 panels (first position, every, count) [4, 4, 6]",
        ),
        (
            lambda c: c["fig6_1"].update(points=10),
            "fig6_1",
            "Fig 6.1 epsilon grid (from, to, points) [0.5, 6, 10]",
        ),
        (
            lambda c: c["clipping"].update(threshold="sum_of_differences"),
            "fig6_2",
            "clip threshold sum_of_differences",
        ),
        (lambda c: c.update(delta_factor=0.5), "fig6_7", "delta x n 0.5 here, 0.1 in the thesis"),
    ],
)
def test_a_setting_other_than_the_theses_is_never_judged(tmp_path, edit, target, expect):
    claims = fake_claims(tmp_path, edit=edit, data=edit)
    affected = [
        c
        for c in claims
        if c.target == target and expect in "; ".join(s.describe() for s in mismatches(c))
    ]
    assert affected, [
        (c.statement, [s.describe() for s in mismatches(c)]) for c in claims if c.target == target
    ]
    assert all(verdict(c, set()) in ("not comparable", "not run") for c in affected)


def test_more_chains_than_the_thesis_stay_comparable(tmp_path):
    claims = fake_claims(
        tmp_path, edit=lambda c: c.update(chains=25), data=lambda c: c.update(chains=25)
    )
    assert not [c for c in claims if mismatches(c)]


def test_the_trajectory_claims_check_the_positions_the_figure_shows(tmp_path):
    """Fig 4.1's claims cover the leapfrog path up to the last panel's position (the figure's
    own rule, shown_positions), so a figure with fewer panels is checked on what it shows."""
    assert thesis_settings.shown_positions(49, 4, 4, 12) == list(range(4, 49, 4))
    claims = fake_claims(tmp_path, edit=lambda c: c["fig4_1"].update(panels=3))
    rows = [c for c in claims if c.target == "fig4_1"]
    assert len(rows) == 2 and all("0 to 12" in c.statement for c in rows)


def _chain_file(path: Path, rng, chains: int = 3) -> str:
    save_npz(
        path,
        **{
            k: rng.uniform(0.01, 0.2, chains)
            for k in (
                "acceptance",
                "llr_clip",
                "grad_clip",
                "mmd",
                "mean_error",
                "cov_error",
                "cpu_seconds",
            )
        },
        rhat=np.array([1.2, 1.1]),
        ess=np.array([30.0, 40.0]),
        iterations=np.int64(171),
        has_reference=np.bool_(True),
    )
    return str(path)


@pytest.mark.parametrize("fraction, printed", [(1.0, True), (0.1, False)])
def test_the_summary_prints_the_authors_counts_only_at_the_theses_setting(
    tmp_path, fraction, printed
):
    rng = np.random.default_rng(1)
    spec = settings.model_spec(PARAMS, "easy-2d", fraction)
    rows = [
        {
            "model": "easy-2d",
            "algo": "dpps",
            "epsilon": 6.0,
            "n": spec["n"],
            "file": _chain_file(tmp_path / "c.npz", rng),
            "author_iterations": 1431,
        }
    ]
    save_npz(tmp_path / "easy-2d.npz", reference=rng.standard_normal((10, 2)))
    out = SimpleNamespace(
        summary=str(tmp_path / "s.npz"), csv=str(tmp_path / "s.csv"), md=str(tmp_path / "s.md")
    )
    summarise(
        SimpleNamespace(references=[str(tmp_path / "easy-2d.npz")]),
        out,
        settings=rows,
        models=["easy-2d"],
        health={"max_rhat": 1.01, "min_ess": 100},
        delta_factor=0.1,
        version="seed",
    )
    text = Path(out.md).read_text()
    assert ("| 1431 |" in text) == printed and ("n/a" in text) == (not printed), text
    assert ("n easy-2d 10000 here, easy-2d 100000 in the thesis" in text) == (not printed)


def test_table_5_1_and_its_claims_share_one_comparison(tmp_path):
    cfg = _config()
    specs = {m: settings.model_spec(PARAMS, m, 0.1) for m in cfg["models"]}
    out = SimpleNamespace(csv=str(tmp_path / "t.csv"), md=str(tmp_path / "t.md"))
    tab5_1(None, out, models=cfg["models"], specs=specs, start_rule="ref_sd_1.5")
    text = Path(out.md).read_text()
    assert (
        "| 1.5 x reference sd | 0.02 |" in text and "| False |" in text and "| True |" not in text
    )
    tab5_1(
        None,
        out,
        models=cfg["models"],
        specs={m: settings.model_spec(PARAMS, m, 1.0) for m in cfg["models"]},
        start_rule="start_sd",
    )
    assert "| False |" not in Path(out.md).read_text()


def test_claims_rule_gets_the_settings_as_params():
    """The claims rule receives every config value its settings read (issue 29, rule 7)."""
    text = (ROOT / "workflow" / "rules" / "raisa2021.smk").read_text(encoding="utf-8")
    block = text[text.index("rule raisa2021_claims:") :]
    block = block[block.index("params:") : block.index("script:")]
    for name in (
        "version",
        "epsilons",
        "circle_epsilons",
        "chains",
        "delta_factor",
        "start_rule",
        "reference_draws",
        "mmd_bandwidth_pairs",
        "baseline_samples",
        "specs",
        "fig6_1",
        "fig4_1",
        "clipping",
    ):
        assert f"        {name}=" in block, name
    assert "full_scale" not in text
