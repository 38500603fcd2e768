"""docs/privacy.md agrees with config/config.yaml: one row per release the config runs, and every
sensitivity, epsilon grid, delta and config value the table quotes is the one that is run.

The table's conventions (stated in the document): the first cell starts with the release id in
backticks; the as-run sensitivities are the bold numbers of the "Sensitivity as run" column;
grids are written ``eps in {...}`` (``rho in {...}``, ``lambda in {...}``); raisa2021's delta as
``delta = c/n``; a config value as ``<key>: <value>`` in backticks, the key read under the row's
study section (outside the table: from the top of the config). The verdict column starts with
"Yes" or "No", and where the verdict depends on a config switch (clamping, a sensitivity, the
moment release) it must follow the config.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.configs import SECTIONS
from tests.doc_quotes import close as _close
from tests.doc_quotes import lookup, quotes
from tests.doc_quotes import same_value as _same_value

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "privacy.md"
CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))

# row-id prefix -> the config section its quoted keys are read under: SECTIONS
COLUMNS = {"release": "Release", "sensitivity": "Sensitivity as run", "verdict": "eps-DP as run"}
CELL_SPLIT = re.compile(r"(?<!\\)\|")
BOLD = re.compile(r"\*\*([0-9][0-9.]*)\*\*")
GRID = re.compile(r"\b(eps|rho|lambda) in \{([^}]*)\}")
DELTA_PER_N = re.compile(r"delta = ([0-9.]+)/n\b")


# ----------------------------------------------------------------------------- parsing the document
def _table() -> tuple[list[str], dict[str, list[str]]]:
    """(header cells, row id -> cells) of the document's one table."""
    lines = [ln for ln in DOC.read_text(encoding="utf-8").splitlines() if ln.startswith("|")]
    assert lines, "docs/privacy.md has no table"
    split = [[c.strip() for c in CELL_SPLIT.split(ln.strip())[1:-1]] for ln in lines]
    header, body = split[0], [r for r in split[1:] if not set("".join(r)) <= set("-: ")]
    rows = {}
    for cells in body:
        assert len(cells) == len(header), (
            f"row with {len(cells)} cells, header has {len(header)}: {cells[0]}"
        )
        m = re.match(r"`([a-z0-9_]+/[a-z0-9_]+)`", cells[0])
        assert m, f"a row's first cell must start with its release id in backticks: {cells[0][:60]}"
        assert m.group(1) not in rows, f"release {m.group(1)} has two rows"
        rows[m.group(1)] = cells
    return header, rows


HEADER, ROWS = _table()


def _column(name: str) -> int:
    hits = [i for i, h in enumerate(HEADER) if h.startswith(COLUMNS[name])]
    assert len(hits) == 1, f"no single column starting {COLUMNS[name]!r} in {HEADER}"
    return hits[0]


def _same_numbers(quoted, expected) -> bool:
    quoted, expected = sorted(float(q) for q in quoted), sorted(float(e) for e in expected)
    return len(quoted) == len(expected) and all(_close(q, e) for q, e in zip(quoted, expected))


def _lookup(section: tuple, dotted: str):
    return lookup(CONFIG, (*section, *dotted.split(".")))


# ----------------------------------------------------------------------------- what the config runs
def _enabled(block) -> bool:
    return bool(block) and block.get("enabled", True)


def _ju2022(cfg: dict) -> dict:
    out = {}
    experiments = cfg["experiments"].values()
    for model in sorted({e["model"] for e in experiments}):
        sens = float(cfg[model]["sensitivity"])
        eps = {float(x) for e in experiments if e["model"] == model for x in e["epsilons"]}
        # loglinear: replace-one sensitivity 2K, K = 5 features of the authors' data; linreg: the
        # exact replace-one supremum 9.375 (tests/test_ju2022_samplers.py)
        needed = 10.0 if model == "loglinear" else 9.375
        out[f"ju2022/{model}"] = {"sensitivity": [sens], "eps": eps, "verdict": sens >= needed}
    return out


def _ch3(cfg: dict) -> dict:
    from dpinfer.studies.bernstein2020_ch3.problems import build_instance
    from dpinfer.studies.bernstein2020_ch3.wifi import wifi_model
    from dpinfer.studies.bernstein2020_ch3.wifi_run import generator

    figs = [cfg[f] for f in ("fig3_1", "fig3_2", "fig3_3", "fig3_4", "fig3_5")]
    instances = set()
    eps = set()
    for f in figs:
        for model in f.get("models", [f.get("model")]):
            instances.add((model, int(f["states"])))
        eps |= {float(e) for e in f.get("epsilons", [f.get("epsilon")])}
    cliques = {
        build_instance(CONFIG["seed"], m, cfg["models"][m], cfg["nodes"], k).model.n_cliques
        for m, k in instances
    }
    wifi = cfg["fig3_6"]
    wifi_eps = {float(e) for e in wifi["epsilons"]}
    return {
        "bernstein2020_ch3/tables": {"sensitivity": sorted(cliques), "eps": eps, "verdict": False},
        "bernstein2020_ch3/wifi_tables": {
            "sensitivity": [wifi_model(generator(int(wifi["locations"]))).n_cliques],
            "eps": wifi_eps,
            "verdict": False,
        },
        "bernstein2020_ch3/psgd": {
            "sensitivity": [float(cfg["psgd"]["clip"])],
            "eps": {float(e) for e in cfg["fig3_4"]["epsilons"]} | wifi_eps,
            "verdict": False,
            "text": ["delta = 1/N", "ADD_OR_REMOVE_ONE"],
        },
    }


def _ch4(cfg: dict) -> dict:
    from dpinfer.models import expfam

    eps = {float(e) for e in cfg["epsilons"]} | {
        float(cfg["ecdf"]["epsilon"]),
        float(cfg["trace"]["epsilon"]),
    }
    out = {}
    for model in cfg["models"]:
        block = cfg[model]
        if model == "exponential":
            assert block["truncation"] == "prior_predictive", (
                "docs/privacy.md quotes one sensitivity b for the exponential; oracle bounds vary "
                "per trial"
            )
            a, b = expfam.prior_predictive_bounds(
                block["prior_shape"], block["prior_rate"], block["truncation_mass"]
            )
            out["bernstein2020_ch4/exponential"] = {
                "sensitivity": [expfam.truncation_sensitivity(a, b, block["sensitivity"])],
                "eps": eps,
                # the replace-one sensitivity of the redacted sum is b; the code's b - a is smaller
                "verdict": block["sensitivity"] == "thesis",
            }
            out["bernstein2020_ch4/exponential_naive"] = {
                "sensitivity": [],
                "eps": eps,
                "verdict": False,
            }
        else:
            sens = float(block["sensitivity"])
            # replace-one: 1 for one Bernoulli count, 2 for K - 1 >= 2 multinomial counts
            needed = 1.0 if model == "binomial" else 2.0
            out[f"bernstein2020_ch4/{model}"] = {
                "sensitivity": [sens],
                "eps": eps,
                "verdict": sens >= needed,
            }
    if "binomial" in cfg["models"]:
        out["bernstein2020_ch4/ops"] = {"sensitivity": [], "eps": eps, "verdict": True}
    return out


def _nig_rows(prefix: str, methods, bounds, eps: set, private: bool, noisy_moments: str) -> dict:
    """Rows of a NIG-regression release: the eps release (every method but Gibbs-SS-Noisy and
    Non-Private) and Gibbs-SS-Noisy's split release."""
    from dpinfer.models.linreg_nig import sensitivity_moments, sensitivity_statistics

    w = float(bounds[1]) - float(bounds[0])
    out = {}
    if set(methods) - {"non_private", "gibbs_ss_noisy"}:
        out[prefix] = {
            "sensitivity": [sensitivity_statistics(w, w)],
            "eps": eps,
            "verdict": private,
        }
    if "gibbs_ss_noisy" in methods:
        out[f"{prefix}_noisy"] = {
            "sensitivity": [sensitivity_statistics(w, w), sensitivity_moments(w)],
            "eps": eps,
            "verdict": private and noisy_moments == "released",
        }
    return out


def _ch5(cfg: dict) -> dict:
    syn, cir = cfg["synthetic"], cfg["cirrhosis"]
    moments = cfg["gibbs"]["noisy_moments"]
    eps = {float(e) for e in syn["epsilons"]} | {float(syn["eps_vs_n"])}
    out = _nig_rows(
        "bernstein2020_ch5/synthetic",
        cfg["methods"],
        syn["bounds"],
        eps,
        bool(syn["clamp"]),
        moments,
    )
    # cirrhosis: min-max scaled to [0, 1] with the data's own min and max (never private)
    out.update(
        _nig_rows(
            "bernstein2020_ch5/cirrhosis",
            cir["methods"],
            (0.0, 1.0),
            {float(e) for e in cir["epsilons"]},
            False,
            moments,
        )
    )
    return out


def _case(cfg: dict) -> dict:
    eps = {float(e) for e in cfg["epsilons"]} | {float(cfg["headline_epsilon"])}
    # bounds [0, 1] are fixed in workflow/rules/bernstein2020_case.smk (pir and kir are ranks);
    # the tract filter reads confidential medians: eps-DP only without it
    out = _nig_rows(
        "bernstein2020_case/statistics",
        cfg["methods"],
        (0.0, 1.0),
        eps,
        [float(v) for v in cfg["drop"]] == [0.0, 1.0],
        cfg["gibbs"]["noisy_moments"],
    )
    out["bernstein2020_case/oi"] = {"sensitivity": [], "eps": eps, "verdict": False}
    return out


def _raim(cfg: dict) -> dict:
    rho = {float(r) for r in cfg["rhos"]} | {
        float(cfg["traces"]["rho"]),
        float(cfg["timing"]["rho"]),
    }
    lam = (
        {float(v) for v in cfg["lambdas"]}
        | {float(v) for v in cfg["traces"]["lambdas"]}
        | {float(cfg["timing"]["lambda"])}
    )
    return {"raim2021/release": {"sensitivity": [], "rho": rho, "lambda": lam, "verdict": False}}


def _raisa(cfg: dict) -> dict:
    params = yaml.safe_load((ROOT / cfg["params"]).read_text(encoding="utf-8"))["models"]
    out = {}
    for algo in cfg["algorithms"]:
        models = [m for m in cfg["models"] if algo in params[m].get("algorithms", {})]
        eps = set()
        if any(m != "circle" for m in models):
            eps |= {float(e) for e in cfg["epsilons"]}
        if "circle" in models:
            eps |= {float(e) for e in cfg["circle_epsilons"]}
        if models:
            out[f"raisa2021/{algo}"] = {
                "sensitivity": [],
                "eps": eps,
                "delta_factor": float(cfg["delta_factor"]),
                "verdict": True,
            }
    if cfg.get("clipping"):
        out["raisa2021/clipping"] = {"sensitivity": [], "verdict": False}
    return out


def _comparison(cfg: dict) -> dict:
    eps = {float(e) for e in cfg["epsilons"]}
    out = {}
    if "binomial" in cfg["problems"]:
        sens = float(cfg["binomial"]["sensitivity"])
        out["comparison/binomial"] = {"sensitivity": [sens], "eps": eps, "verdict": sens >= 1.0}
    if "regression" in cfg["problems"]:
        reg = cfg[
            "regression"
        ]  # records are always clamped to the bounds (problems.regression_trial)
        out.update(
            _nig_rows(
                "comparison/regression",
                reg["methods"],
                reg["bounds"],
                eps,
                True,
                reg["gibbs"]["noisy_moments"],
            )
        )
    return out


def _own_data(cfg: dict) -> dict:
    """One release id per kind; the bold sensitivities are every data set's (by its p)."""
    from dpinfer.models.linreg_nig_multi import sensitivity_moments_p, sensitivity_p

    eps = {float(e) for e in cfg["epsilons"]}
    ps = sorted({len(d["covariates"]) for d in cfg["datasets"].values()})
    out = {}
    if set(cfg["methods"]) - {"non_private", "gibbs_ss_noisy"}:
        # repeated releases of the same records: never DP together (docs/privacy.md)
        out["own_data/statistics"] = {
            "sensitivity": [sensitivity_p(p) for p in ps],
            "eps": eps,
            "verdict": False,
        }
    if "gibbs_ss_noisy" in cfg["methods"]:
        out["own_data/statistics_noisy"] = {
            "sensitivity": [f(p) for p in ps for f in (sensitivity_p, sensitivity_moments_p)],
            "eps": eps,
            "verdict": False,
        }
    return out


def expected_releases() -> dict[str, dict]:
    """Release id -> what docs/privacy.md must quote for it, from the paper-scale config."""
    b = CONFIG.get("bernstein2020", {})
    out = {}
    for block, rows in (
        (CONFIG.get("ju2022"), _ju2022),
        (b.get("chapter3"), _ch3),
        (b.get("chapter4"), _ch4),
        (b.get("chapter5"), _ch5),
        (b.get("case_study"), _case),
        (CONFIG.get("raim2021"), _raim),
        (CONFIG.get("raisa2021"), _raisa),
        (CONFIG.get("comparison"), _comparison),
        (CONFIG.get("own_data"), _own_data),
    ):
        if _enabled(block):
            out.update(rows(block))
    return out


EXPECTED = expected_releases()


# ----------------------------------------------------------------------------- the tests
def _row(release: str) -> list[str]:
    if release not in ROWS:
        pytest.skip("no row (test_every_release_of_the_config_has_a_row fails)")
    return ROWS[release]


def test_every_release_of_the_config_has_a_row():
    missing = sorted(set(EXPECTED) - set(ROWS))
    assert not missing, (
        f"releases run by config/config.yaml without a row in docs/privacy.md: {missing}"
    )


def test_every_row_is_a_release_of_the_config():
    stale = sorted(set(ROWS) - set(EXPECTED))
    assert not stale, f"rows of docs/privacy.md for releases the config does not run: {stale}"


@pytest.mark.parametrize("release", sorted(EXPECTED))
def test_quoted_sensitivities_are_those_run(release):
    cells = _row(release)
    quoted = BOLD.findall(cells[_column("sensitivity")])
    expected = EXPECTED[release]["sensitivity"]
    assert _same_numbers(quoted, expected), (
        f"{release}: the sensitivity column quotes {quoted} (bold), the config runs {expected}"
    )
    # bold numbers elsewhere would escape this check
    others = [c for i, c in enumerate(cells) if i != _column("sensitivity") and BOLD.search(c)]
    assert not others, f"{release}: bold numbers outside the sensitivity column: {others}"


@pytest.mark.parametrize("release", sorted(EXPECTED))
def test_quoted_grids_are_those_run(release):
    row = " ".join(_row(release))
    quoted: dict[str, set] = {}
    for name, values in GRID.findall(row):
        quoted.setdefault(name, set()).update(float(v) for v in values.split(","))
    expected = {k: v for k, v in EXPECTED[release].items() if k in ("eps", "rho", "lambda")}
    assert set(quoted) == set(expected), (
        f"{release}: grids quoted for {sorted(quoted)}, run for {sorted(expected)}"
    )
    for name, values in expected.items():
        assert _same_numbers(sorted(quoted[name]), sorted(values)), (
            f"{release}: {name} in {sorted(quoted[name])} quoted, {sorted(values)} run"
        )
    if "delta_factor" in EXPECTED[release]:
        factors = {float(f) for f in DELTA_PER_N.findall(row)}
        assert factors and all(_close(f, EXPECTED[release]["delta_factor"]) for f in factors), (
            f"{release}: delta = c/n with c = {factors}, config delta_factor "
            f"{EXPECTED[release]['delta_factor']}"
        )
    for text in EXPECTED[release].get("text", []):
        assert text in row, f"{release}: the row should say {text!r}"


def test_quoted_config_values_are_those_of_the_config():
    checked = 0
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*`([a-z0-9_]+)/", line)
        section = SECTIONS[m.group(1)] if m else ()
        for key, value in quotes(line):
            actual = _lookup(section, key)
            assert _same_value(yaml.safe_load(value), actual), (
                f"docs/privacy.md quotes `{key}: {value}`, config/config.yaml has {actual!r}"
            )
            checked += 1
    assert checked >= 10, (
        f"only {checked} quoted config values found: has the quoting convention changed?"
    )


@pytest.mark.parametrize("release", sorted(EXPECTED))
def test_verdicts_follow_the_config(release):
    verdict = _row(release)[_column("verdict")]
    word = "Yes" if EXPECTED[release]["verdict"] else "No"
    assert verdict.startswith(word), (
        f"{release}: verdict should start with {word!r} for this config: {verdict[:80]}"
    )


def test_every_row_names_its_neighbouring_relation():
    relation = [i for i, h in enumerate(HEADER) if h.startswith("Relation")]
    assert len(relation) == 1
    for release, cells in ROWS.items():
        text = cells[relation[0]]
        assert "replace-one" in text or "add/remove-one" in text or text == "none", (
            f"{release}: the relation column names no neighbouring relation: {text[:80]}"
        )
