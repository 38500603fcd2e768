"""The config's ``releases`` section: each bad entry refused naming its key or file, a release of
every model and mechanism the section takes run at smoke scale, the rule step's table equal to
``dpinfer.posterior``'s, and the two worked examples read as the ju2022 study reads them."""

from __future__ import annotations

import csv
import json
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

import dpinfer
from dpinfer.io import read_json
from dpinfer.releases.core import summary_rows
from dpinfer.releases.formats import regression_from_ju2022, tables_from_ju2022
from dpinfer.releases.mechanism_spec import mechanism_of
from dpinfer.releases.model_methods import ChainSettings
from dpinfer.releases.spec import ReleaseError, release_of
from dpinfer.studies.releases.run import posterior as posterior_step
from tests.conftest import ROOT

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
SMOKE = ChainSettings(seed=1, chains=2, burnin=100, keep=200, max_keep=800, draws=500)


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def _entry(tmp_path, values, **entry):
    base = {"model": "binomial", "n": 20, "mechanism": {"kind": "laplace", "scale": 2.0}}
    return dict(base, file=_write(tmp_path, "r.json", {"released": values}), **entry)


@pytest.mark.parametrize(
    "values, change, says",
    [
        ([3.5, 1.0], {}, "2 released values in file"),  # a binomial release has one value
        ([3.5], {"mechanism": {"kind": "laplace", "scale": -1}}, "mechanism.scale"),
        ([3.5], {"mechanism": {"kind": "discrete_laplace", "scale": 1}}, "whole numbers"),
        ([3.5], {"n": 0}, "releases.entries.r.n"),
        ([3.5], {"model": "poisson"}, "releases.entries.r.model"),
        ([3.5], {"prior": {"alpha": 1}}, "prior.alpha"),
        ([[1, 2], [3, 4]], {"model": "loglinear"}, "shape"),
        ([1.0] * 8, {"model": "linreg", "clamp": [1, -1]}, "covariate_mean"),
    ],
)
def test_a_bad_entry_is_refused_naming_its_key_or_file(tmp_path, values, change, says):
    entry = _entry(tmp_path, values, **change)
    with pytest.raises(ReleaseError) as err:
        release_of("r", entry)
    message = str(err.value)
    assert says in message and "\n" not in message
    assert "3.5" not in message  # never a released value


def test_missing_n_and_reversed_clamp_are_refused(tmp_path):
    entry = _entry(tmp_path, [3.5])
    del entry["n"]
    with pytest.raises(ReleaseError, match=r"releases\.entries\.r\.n is missing"):
        release_of("r", entry)
    regression = dict(
        _entry(tmp_path, [1.0] * 9, model="linreg"),
        clamp=[1.0, -1.0],
        covariate_mean=[0.0, 0.0],
        covariate_cov=[[1.0, 0.0], [0.0, 1.0]],
        noise_variance=1.0,
    )
    with pytest.raises(ReleaseError, match=r"releases\.entries\.r\.clamp needs lower < upper"):
        release_of("r", regression)


def test_a_csv_release_is_read_by_its_released_column(tmp_path):
    path = _write(tmp_path, "r.csv", "released\n4\n9\n7\n")
    entry = {
        "file": path,
        "model": "multinomial",
        "n": 20,
        "mechanism": {"kind": "laplace", "scale": 1},
    }
    assert release_of("r", entry).values.tolist() == [4.0, 9.0, 7.0]
    path = _write(tmp_path, "bad.csv", "count\n4\n")
    with pytest.raises(ReleaseError, match="column 'released'"):
        release_of("r", dict(entry, file=path))


MECHANISMS = {
    "laplace": {"kind": "laplace", "scale": 1.5},
    "gaussian": {"kind": "gaussian", "epsilon": 0.8, "delta": 1e-5, "sensitivity": 1},
    "discrete_laplace": {"kind": "discrete_laplace", "epsilon": 1.0, "sensitivity": 1},
    "discrete_gaussian": {"kind": "discrete_gaussian", "scale": 1.5},
}
RUNS = [("binomial", m, [13]) for m in MECHANISMS]
RUNS += [("multinomial", m, [6, 3, 9]) for m in MECHANISMS]
RUNS += [("loglinear", m, np.full((2, 2, 3), 3).tolist()) for m in MECHANISMS]
# p = 1: sum y~, x~'y~, y~'y~, sum x~, x~'x~ of 20 records on the [-1, 1] scale
LINREG = [2.0, 3.0, 6.0, 1.0, 7.0]
LINREG_PUBLIC = dict(
    clamp=[-3.0, 3.0], covariate_mean=[0.0], covariate_cov=[[1.0]], noise_variance=1.0
)
RUNS += [("linreg", m, LINREG) for m in ("laplace", "gaussian")]
# p = 1: sum x~^2, sum x~, sum x~y~, sum y~, sum y~^2 of 20 records on the [-1, 1] scale
NIG = [7.0, 1.0, 3.0, 2.0, 6.0]
PUBLIC = {"linreg": LINREG_PUBLIC, "nig_regression": {"bounds": [[0.0, 10.0], [-5.0, 5.0]]}}
RUNS += [("nig_regression", m, NIG) for m in ("laplace", "gaussian")]


@pytest.mark.parametrize("model, kind, values", RUNS)
def test_each_model_and_mechanism_runs_at_smoke_scale(model, kind, values):
    """Every pair the section takes gives finite posteriors on the model's parameters, the
    chains' diagnostics and the naive draws beside them."""
    public = PUBLIC.get(model, {})
    posts = dpinfer.posterior(
        values, model=model, mechanism=MECHANISMS[kind], n=20, settings=SMOKE, **public
    )
    assert posts
    for p in posts:
        rows = summary_rows(p)
        assert len(rows) == p.chains.shape[2] == p.naive.shape[1]
        assert all(np.isfinite([r["mean"], r["lower"], r["upper"], r["rhat"]]).all() for r in rows)
        if model != "binomial" or p.method != "exact":
            assert p.keep >= SMOKE.keep


@pytest.mark.parametrize(
    "kind, name",
    [("discrete_laplace", "DoubleGeometric"), ("discrete_gaussian", "DiscreteGaussian")],
)
def test_a_pair_without_a_sampler_is_refused_naming_both(kind, name):
    """The one pair without a sampler: integer noise on the regression's real statistics."""
    with pytest.raises(ReleaseError, match=f"linreg.*{name}"):
        dpinfer.posterior(
            LINREG,
            model="linreg",
            mechanism=MECHANISMS[kind],
            n=20,
            settings=SMOKE,
            **LINREG_PUBLIC,
        )


def test_the_entry_point_reproduces_the_config_paths_table(tmp_path):
    """The rule step on an entry and ``dpinfer.posterior`` on the same values give the same
    table, cell for cell."""
    entry = _entry(tmp_path, [6, 3, 9], model="multinomial", prior={"alpha": 0.5})
    out = SimpleNamespace(
        csv=tmp_path / "t.csv",
        md=tmp_path / "t.md",
        draws=tmp_path / "d.npz",
        digest=tmp_path / "g.json",
    )
    posterior_step(None, out, name="r", entry=entry, settings=SMOKE._asdict(), credible_level=0.9)
    with open(out.csv, encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    posts = dpinfer.posterior(
        [6, 3, 9],
        model="multinomial",
        mechanism=entry["mechanism"],
        n=20,
        prior={"alpha": 0.5},
        name="r",
        settings=SMOKE,
    )
    rows = [r for p in posts for r in summary_rows(p, 0.9)]
    assert len(table) == len(rows)
    for got, want in zip(table, rows):
        assert (got["parameter"], got["method"]) == (want["parameter"], want["method"])
        for key in ("mean", "sd", "lower", "upper", "naive_lower", "naive_upper", "rhat"):
            assert float(got[key]) == pytest.approx(want[key], rel=1e-3, abs=1e-4), key


def test_the_worked_examples_are_the_ju2022_studys_releases():
    """The default config's two entries read the authors' files to the arrays and noise the
    ju2022 study uses for the same release (tests/test_releases_ju2022.py checks that the
    posteriors agree with the study's)."""
    entries, ju = CONFIG["releases"]["entries"], CONFIG["ju2022"]
    tables = release_of("ju2022_tables", entries["ju2022_tables"], ROOT)
    files = ROOT / ju["data_dir"]
    epsilon, table = tables_from_ju2022(
        read_json(files / "derived_loglinear_privatized_tables_iexp1.json"), "f"
    )["mijk_noiselevel1_eps10"]
    np.testing.assert_array_equal(tables.values, table)
    noise = mechanism_of(tables.mechanism)
    assert noise.scale == pytest.approx(ju["loglinear"]["sensitivity"] / epsilon)
    reg = release_of("ju2022_regression", entries["ju2022_regression"], ROOT)
    rel = regression_from_ju2022(
        read_json(files / "linearregression_sdpfixxy_N100p2noiselevel1iexp1.json"), "f"
    )
    np.testing.assert_array_equal(reg.values, rel.statistics)
    assert mechanism_of(reg.mechanism).scale == pytest.approx(rel.sensitivity / rel.epsilon)
    assert reg.public["clamp"] == tuple(ju["linreg"]["clamp"]) and reg.n == rel.n_records
    truth = read_json(files / "linearregression_datageneratingparam_N100p2.json")["objects"]
    np.testing.assert_array_equal(reg.public["mean_x"], truth["m_star"]["values"])
    assert reg.public["sigma2"] == truth["sigma2_star"]["values"]


def test_the_readme_example_runs_and_its_chains_converge(capsys):
    """README's ten-line example, as printed: every method of the binomial release converges."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## You hold a release", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) <= 12
    exec(compile(code, "README.md", "exec"), {})
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["exact", "True"],
        ["gibbs", "True"],
        ["record_wise", "True"],
    ]


def test_a_regression_release_of_few_records_runs_with_the_minimum_n_warning(tmp_path, caplog):
    entry = dict(
        _entry(tmp_path, [0.5, 0.2, 1.1, 0.1, 0.9], model="linreg", n=5),
        clamp=[-1.0, 1.0],
        covariate_mean=[0.0],
        covariate_cov=[[1.0]],
        noise_variance=1.0,
    )
    out = SimpleNamespace(
        csv=tmp_path / "t.csv",
        md=tmp_path / "t.md",
        draws=tmp_path / "d.npz",
        digest=tmp_path / "g.json",
    )
    with caplog.at_level("WARNING"):
        posterior_step(
            None, out, name="r", entry=entry, settings=SMOKE._asdict(), credible_level=0.9
        )
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("release 'r': only 5 records" in m for m in warned), warned
    assert out.csv.exists()
