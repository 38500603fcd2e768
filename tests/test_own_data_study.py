"""The own-data study end to end, in a temporary copy of the workflow with only its section:

- confidentiality: a data set whose records carry sentinel values runs through every step, and
  no sentinel, no statistic of the confidential records (their sums, the least-squares fit) and
  no record reaches a log or a results file, except the one file labelled non-private;
- a second data set, added by config alone, adds only its own jobs;
- bad input: a missing bound is refused before any job runs, naming the key; a data set with a
  NaN fails its check job before any of its samplers run, naming the data set, the column and
  the record count, and the other data set's finished results are kept.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest

from tests.workflow import copy_workflow, planned_jobs, snakemake, write_yaml

N = 300
# record values that cannot arise by chance in any output: the first record of each column
SENTINELS = {"y": 3.14159271, "x1": 2.71828163, "x2": -1.41421359}
BOUNDS = {"y": [-5.0, 5.0], "x1": [-4.0, 4.0], "x2": [-3.0, 3.0]}


def own_records(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(0.5, 1.0, N), rng.normal(-0.3, 0.8, N)
    y = 0.8 * x1 - 0.5 * x2 + 0.2 + rng.normal(0, 0.7, N)
    cols = {"y": y, "x1": x1, "x2": x2}
    for name, value in SENTINELS.items():
        cols[name][0] = value
    return cols


def write_own_csv(path: Path, cols: dict[str, np.ndarray]) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(list(cols))
        for i in range(N):
            w.writerow([repr(float(cols[c][i])) for c in cols])


def own_entry(path: str) -> dict:
    return {"source": path, "response": "y", "covariates": ["x1", "x2"], "bounds": BOUNDS}


def own_config(datasets: dict) -> dict:
    return {
        "seed": 7,
        "own_data": {
            "epsilons": [1.0],
            "trials": 2,
            "accuracy_trials": 1,
            "chunk_size": 2,
            "mmd_draws": 50,
            "health": {"max_rhat": 1.01, "min_ess": 50},
            "recommend": {"max_flagged": 0.5, "max_mean_error": 0.5, "max_sd_error": 0.5},
            "methods": ["non_private", "naive", "mcmc_ind", "gibbs_ss_prior", "gibbs_ss_update"],
            "prior": {"mu0": 0.0, "precision": 1.0, "a0": 3.0, "b0": 0.5},
            "data_prior": {"m0": 0.0, "kappa": 1.0, "psi": 1.0, "nu": 12.0},
            "conjugate_draws": 200,
            "gibbs": {"burnin": 100, "keep": 100, "chains": 2, "collapsed_moves": 1},
            "mcmc_ind": {"burnin": 30, "keep": 60, "chains": 2},
            "reference": {"burnin": 50, "keep": 150, "chains": 2, "noncentred_moves": 5},
            "datasets": datasets,
        },
    }


def _forbidden(cols: dict[str, np.ndarray]) -> list[str]:
    """Texts that would betray a record or a statistic of the confidential records: the sentinel
    values and the clamped records' sums and least-squares fit, each at 6 significant digits
    (as any table or log would print them, with or without rounding at 4)."""
    y = np.clip(cols["y"], *BOUNDS["y"])
    X = np.column_stack([np.clip(cols[c], *BOUNDS[c]) for c in ("x1", "x2")])
    Z = np.column_stack([X, np.ones(N)])
    beta = np.linalg.lstsq(Z, y, rcond=None)[0]
    values = [*SENTINELS.values(), y.sum(), X.sum(0)[0], X.sum(0)[1], (y * y).sum(), *beta]
    texts = set()
    for v in values:
        for digits in (6, 5):
            text = f"{v:.{digits}g}"
            if len(text.replace("-", "").replace(".", "")) >= digits:  # skip short coincidences
                texts.add(text)
    return sorted(texts)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = copy_workflow(tmp_path_factory.mktemp("own_data"))
    cols = own_records(1)
    write_own_csv(work / "secret.csv", cols)
    write_yaml(work / "config" / "config.yaml", own_config({"secret": own_entry("secret.csv")}))
    snakemake(work, "--cores", "2")
    return work, cols


def test_no_record_or_statistic_reaches_a_log_or_results_file(run):
    work, cols = run
    forbidden = _forbidden(cols)
    files = [
        p
        for root in ("results", "logs", ".snakemake/log")
        for p in sorted((work / root).rglob("*"))
        if p.is_file()
    ]
    assert any(p.name == "secret_recommended.md" for p in files)
    labelled = [p for p in files if p.name.startswith("nonprivate_")]
    assert [p.name for p in labelled] == ["nonprivate_check.md"]
    leaks = []
    for p in files:
        if p in labelled or p.suffix in (".npz", ".pdf", ".png", ".pickle"):
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        leaks += [f"{p.relative_to(work)}: {t}" for t in forbidden if t in text]
    assert not leaks, leaks
    # binary outputs: the numbers stored are comparisons between methods, no record or sum
    for p in files:
        if p.suffix == ".npz":
            with np.load(p) as z:
                stored = np.concatenate([z[k].ravel() for k in z.files if z[k].dtype.kind == "f"])
            for v in [*SENTINELS.values(), np.clip(cols["y"], -5, 5).sum()]:
                assert not np.any(np.isclose(stored, v, rtol=1e-7, atol=0)), (p.name, v)


def test_the_non_private_file_reports_the_share_clamped(run):
    work, _ = run
    text = (work / "results" / "own_data" / "secret" / "nonprivate_check.md").read_text()
    assert text.startswith("# NON-PRIVATE") and "| x1 | [-4, 4] |" in text


def test_the_tables_say_which_method_and_print_diagnostics(run):
    work, _ = run
    with open(work / "results" / "own_data" / "secret_metrics.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["label"] for r in rows} >= {"Non-Private", "MCMC-Ind", "Gibbs-SS-Update"}
    for r in rows:
        assert float(r["rhat_max"]) >= 0.99 and 0 <= float(r["np_coverage"]) <= 1
    rec = (work / "results" / "own_data" / "secret_recommended.md").read_text()
    assert "Rule (the comparison study's" in rec
    for p in ("secret_accuracy.png", "secret_metrics.html", "secret_cost.html"):
        assert (work / "results" / "own_data" / p).stat().st_size > 0


def test_outputs_derived_from_the_non_private_posterior_say_so(run):
    """Issue 46: the metrics and cost tables, the summary and chunk npz files, the figure's
    report caption and the metrics page's caption name what is derived from the non-private
    posterior; the coverage of the non-private mean carries a Wilson interval, never a zero
    error; the chunk logs report the private methods' R-hat only."""
    from dpinfer.studies.own_data.summarise import FROM_NON_PRIVATE

    work, _ = run
    out = work / "results" / "own_data"
    assert FROM_NON_PRIVATE in (out / "secret_metrics.md").read_text()
    assert (
        "Non-Private row times draws from the non-private" in (out / "secret_cost.md").read_text()
    )
    with open(out / "secret_metrics.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert "np_coverage_se" not in rows[0]
    for r in rows:
        lo, mid, hi = (float(r[k]) for k in ("np_coverage_lo", "np_coverage", "np_coverage_hi"))
        assert lo <= mid <= hi and hi - lo > 0.1  # 2 trials: a wide interval, even at 0 or 1
    chunks = sorted((out / "secret" / "runs").rglob("*.npz"))
    for path in [out / "secret" / "summary.npz", *chunks]:
        with np.load(path) as z:
            assert "non-private posterior" in str(z["note"]), path
    for name in ("accuracy.rst", "metrics.rst"):
        caption = " ".join((work / "workflow" / "report" / "own_data" / name).read_text().split())
        assert "Derived in part from the non-private posterior" in caption, name
    logs = list((work / "logs" / "own_data" / "secret").glob("runs_*.log"))
    assert logs and all("over the private methods" in p.read_text() for p in logs)


def test_a_second_data_set_adds_only_its_own_jobs(run, tmp_path):
    work, _ = run
    write_own_csv(work / "other.csv", own_records(2))
    cfg = own_config({"secret": own_entry("secret.csv"), "other": own_entry("other.csv")})
    write_yaml(tmp_path / "two.yaml", cfg)
    jobs = planned_jobs(
        snakemake(work, "-n", "--cores", "2", "--configfile", tmp_path / "two.yaml")
    )
    assert jobs["own_data_check"] == 1 and jobs["own_data_run_chunk"] == 1
    assert jobs["own_data_summarise"] == 1 and jobs["own_data_other_accuracy"] == 1
    assert "own_data_secret_accuracy" not in jobs
    proc = snakemake(work, "-n", "--cores", "2", "--configfile", tmp_path / "two.yaml")
    # the study's jobs are the new data set's; only the digest and scorecard, which read every
    # target, run again
    own = re.findall(r"rule (own_data_\w+):\n(?:.*\n)*?    output: (.*)", proc.stdout)
    assert own and all("/other" in out and "secret" not in out for _, out in own), own


def test_a_missing_bound_is_refused_naming_the_key(run, tmp_path):
    work, _ = run
    entry = dict(own_entry("secret.csv"), covariates=["x1", "x3"])  # x3 has no bounds
    write_yaml(tmp_path / "bad.yaml", own_config({"secret": entry}))
    proc = snakemake(work, "-n", "--configfile", tmp_path / "bad.yaml", check=False)
    assert proc.returncode != 0
    assert "'own_data.datasets.secret'" in proc.stderr and "bounds.x3 is missing" in proc.stderr


def test_a_nan_stops_its_data_set_before_any_sampler_and_keeps_the_others(run, tmp_path):
    work, _ = run
    cols = own_records(3)
    cols["x2"][41] = np.nan
    write_own_csv(work / "broken.csv", cols)
    cfg = own_config({"secret": own_entry("secret.csv"), "broken": own_entry("broken.csv")})
    write_yaml(tmp_path / "broken.yaml", cfg)
    before = (work / "results" / "own_data" / "secret_metrics.csv").read_bytes()
    proc = snakemake(
        work, "--cores", "2", "--keep-going", "--configfile", tmp_path / "broken.yaml", check=False
    )
    assert proc.returncode != 0
    log = (work / "logs" / "own_data" / "broken" / "check.log").read_text()
    assert "data set 'broken' (300 records): column 'x2' has 1 NaN or infinite entries" in log
    assert not (work / "results" / "own_data" / "broken" / "runs").exists()
    assert (work / "results" / "own_data" / "secret_metrics.csv").read_bytes() == before
