"""The config checks JSON Schema cannot express (dpinfer.study_config_checks), without Snakemake:
the shipped configs pass them, and each check refuses a bad value naming its key.
(tests/test_workflow_config.py runs a few of them through the dry run.)"""

from __future__ import annotations

import copy

import pytest

from dpinfer.study_config_checks import UNITS, problems
from tests.configs import ROOT, SECTIONS, config


def _section(unit: str, scale: str = "paper") -> dict:
    node = config(scale)
    for key in SECTIONS[unit]:
        node = node[key]
    return copy.deepcopy(node)


def _set(cfg: dict, path: str, value) -> None:
    *head, last = path.split(".")
    for key in head:
        cfg = cfg[key]
    cfg[last] = value


# (unit, edit: dotted path within the section -> value, the key the refusal must name)
BAD = [
    ("ju2022", {"burnin": 20000}, "ju2022.burnin"),
    ("ju2022", {"linreg.clamp": [3, -3]}, "ju2022.linreg.clamp"),
    ("ju2022", {"data_dir": "no/such/dir"}, "ju2022.data_dir"),
    ("bernstein2020_ch3", {"fig3_1.model": "tree"}, "bernstein2020.chapter3.fig3_1.model"),
    (
        "bernstein2020_ch3",
        {"fig3_4.models": ["chain1", "x"]},
        "bernstein2020.chapter3.fig3_4.models",
    ),
    (
        "bernstein2020_ch3",
        {"models.er": {"structure": "erdos_renyi"}},
        "bernstein2020.chapter3.models.er",
    ),
    (
        "bernstein2020_ch3",
        {"fig3_6.train_sizes": [10**6]},
        "bernstein2020.chapter3.fig3_6.train_sizes",
    ),
    ("bernstein2020_ch4", {"mmd_draws": 10**7}, "bernstein2020.chapter4.mmd_draws"),
    ("bernstein2020_ch4", {"ecdf.n": 7}, "bernstein2020.chapter4.ecdf"),
    ("bernstein2020_ch4", {"chunk_size": 10**6}, "bernstein2020.chapter4.chunk_size"),
    (
        "bernstein2020_ch4",
        {"converged.chunk_size": 10**6},
        "bernstein2020.chapter4.converged.chunk_size",
    ),
    ("bernstein2020_ch4", {"converged.chains": 0}, "bernstein2020.chapter4.converged.keep"),
    (
        "bernstein2020_ch5",
        {"synthetic.eps_vs_n": 123.0},
        "bernstein2020.chapter5.synthetic.eps_vs_n",
    ),
    ("bernstein2020_ch5", {"synthetic.n_vs_eps": 7}, "bernstein2020.chapter5.synthetic.n_vs_eps"),
    ("bernstein2020_ch5", {"synthetic.bounds": [1, 0]}, "bernstein2020.chapter5.synthetic.bounds"),
    (
        "bernstein2020_ch5",
        {"synthetic.clamp": True, "gibbs.collapsed_moves": 0},
        "bernstein2020.chapter5.gibbs.collapsed_moves",
    ),
    ("bernstein2020_ch5", {"mmd.draws": 10**8}, "bernstein2020.chapter5.mmd.draws"),
    (
        "bernstein2020_ch5",
        {"cirrhosis.data": "no/such.csv"},
        "bernstein2020.chapter5.cirrhosis.data",
    ),
    ("bernstein2020_case", {"headline_epsilon": 3.5}, "bernstein2020.case_study.headline_epsilon"),
    ("bernstein2020_case", {"drop": [1, 0]}, "bernstein2020.case_study.drop"),
    ("bernstein2020_case", {"tracts.min_size": 10**6}, "bernstein2020.case_study.tracts.max_size"),
    ("bernstein2020_case", {"levels": [0.9, 0.5]}, "bernstein2020.case_study.levels"),
    ("bernstein2020_case", {"methods": ["gibbs_ss_noisy"]}, "bernstein2020.case_study.methods"),
    ("raim2021", {"burnin": 10**8}, "raim2021.burnin"),
    ("raim2021", {"direct.method": "small_rects", "direct.n_knots": 0}, "raim2021.direct.n_knots"),
    ("raim2021", {"direct.n_knots": 5}, "raim2021.direct.n_knots"),
    ("raim2021", {"converged.replicates": 10**6}, "raim2021.converged.replicates"),
    ("raim2021", {"converged.chunk_size": 10**6}, "raim2021.converged.chunk_size"),
    ("raisa2021", {"params": "no/such.yaml"}, "raisa2021.params"),
    ("raisa2021", {"fig6_1.epsilon_min": 10**6}, "raisa2021.fig6_1.epsilon_min"),
    ("raisa2021", {"fig4_1.first_position": 10**9}, "raisa2021.fig4_1.first_position"),
    ("raisa2021", {"models": ["no_such_model"]}, "raisa2021.models"),
    ("raisa2021", {"vcorr": "no/such.csv"}, "raisa2021.vcorr"),
    ("raisa2021", {"algorithms": []}, "raisa2021.algorithms"),
    ("comparison", {"accuracy_trials": 10**6}, "comparison.accuracy_trials"),
    ("comparison", {"chunk_size": 10**6}, "comparison.chunk_size"),
    ("comparison", {"figure.n": 7}, "comparison.figure.n"),
    ("comparison", {"figure.epsilon": 123.0}, "comparison.figure.epsilon"),
    ("comparison", {"regression.bounds": [1, -1]}, "comparison.regression.bounds"),
    ("comparison", {"regression.reference.longer": [1]}, "comparison.regression.reference.longer"),
    ("own_data", {"accuracy_trials": 10**6}, "own_data.accuracy_trials"),
    ("own_data", {"chunk_size": 10**6}, "own_data.chunk_size"),
    ("own_data", {"reference.longer": [1]}, "own_data.reference.longer"),
    ("own_data", {"data_prior.nu": 1}, "own_data.data_prior.nu"),
    ("releases", {"max_keep": 10}, "releases.max_keep"),
    ("releases", {"entries.ju2022_tables.n": 0}, "releases.entries.ju2022_tables"),
    (
        "releases",
        {"entries.ju2022_regression.clamp": [1, -1]},
        "releases.entries.ju2022_regression",
    ),
]


def test_every_unit_has_a_section_and_every_check_a_case():
    assert set(SECTIONS) == set(UNITS)
    assert {unit for unit, _, _ in BAD} == set(UNITS)


@pytest.mark.parametrize("scale", ["paper", "smoke"])
@pytest.mark.parametrize("unit", sorted(UNITS))
def test_the_shipped_configs_pass(monkeypatch, unit, scale):
    monkeypatch.chdir(ROOT)  # data paths are relative to the repository, as the workflow's
    assert problems(unit, _section(unit, scale)) == []


@pytest.mark.parametrize("unit, edit, key", BAD, ids=[f"{u}-{'+'.join(e)}" for u, e, _ in BAD])
def test_a_bad_value_is_refused_naming_its_key(monkeypatch, unit, edit, key):
    monkeypatch.chdir(ROOT)
    cfg = _section(unit)
    for path, value in edit.items():
        _set(cfg, path, value)
    found = problems(unit, cfg)
    assert found, f"{unit}: {edit} passed"
    assert found[0][0] == key, found
    assert all(isinstance(m, str) and m for _, m in found)
