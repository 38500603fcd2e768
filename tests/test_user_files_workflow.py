"""A user's files in the workflow (issue 48, item 5), in a temporary copy with two own-data sets
and two releases whose files live in data/user/:

- after a complete run, an edit of one data set's CSV reruns exactly the jobs that read it
  (its check and run chunks), what they feed (its summary, figure and table pages) and the
  digests that read every target; the other data set's jobs stay done; the same for a release
  file (its posterior, figure and table page);
- a bad file fails its check job with one line, printed once, that names the data set, the file
  and the column, with no traceback and no value of the file.
"""

from __future__ import annotations

import json
import os
import re
import time

import pytest

from tests.test_own_data_study import own_config, own_entry, own_records, write_own_csv
from tests.workflow import copy_workflow, planned_jobs, snakemake, write_yaml

SENTINEL = "8675309.125"
# rules that read every target, so any changed target reruns them
DIGESTS = {"fidelity", "results_summary", "all"}


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    work = copy_workflow(tmp_path_factory.mktemp("user_files"))
    (work / "data" / "user").mkdir(parents=True)
    for name, seed in (("mine", 1), ("other", 2)):
        write_own_csv(work / "data" / "user" / f"{name}.csv", own_records(seed))
    datasets = {n: own_entry(f"data/user/{n}.csv") for n in ("mine", "other")}
    config = own_config(datasets)
    for name, count in (("count_a", 12), ("count_b", 30)):
        (work / "data" / "user" / f"{name}.json").write_text(json.dumps({"released": [count]}))
    config["releases"] = {
        "chains": 2,
        "burnin": 50,
        "keep": 200,
        "max_keep": 400,
        "draws": 200,
        "entries": {
            name: {
                "file": f"data/user/{name}.json",
                "model": "binomial",
                "n": 40,
                "mechanism": {"kind": "laplace", "scale": 2.0},
            }
            for name in ("count_a", "count_b")
        },
    }
    write_yaml(work / "config" / "config.yaml", config)
    snakemake(work, "--cores", "2")
    return work


def test_an_edited_csv_reruns_exactly_the_jobs_that_read_it(done):
    assert not planned_jobs(snakemake(done, "-n", "--cores", "2"))  # the run is complete
    path = done / "data" / "user" / "mine.csv"
    write_own_csv(path, own_records(3))
    later = time.time() + 5  # newer than every output, whatever the file system's resolution
    os.utime(path, (later, later))
    proc = snakemake(done, "-n", "--cores", "2")
    jobs = planned_jobs(proc)
    own = {rule: n for rule, n in jobs.items() if rule.startswith("own_data_")}
    assert own == {
        "own_data_check": 1,
        "own_data_run_chunk": 1,  # one epsilon, one chunk
        "own_data_summarise": 1,
        "own_data_mine_accuracy": 1,
        "own_data_mine_metrics_page": 1,
        "own_data_mine_cost_page": 1,
        "own_data_mine_recommended_page": 1,
    }, jobs
    assert set(jobs) - set(own) <= DIGESTS, jobs
    outputs = re.findall(r"rule (own_data_\w+):\n(?:.*\n)*?    output: (.*)", proc.stdout)
    assert outputs and all("mine" in out and "other" not in out for _, out in outputs), outputs
    assert "Updated input files: data/user/mine.csv" in proc.stdout


def test_an_edited_release_file_reruns_exactly_its_entrys_jobs(done):
    path = done / "data" / "user" / "count_a.json"
    path.write_text(json.dumps({"released": [17]}))
    later = time.time() + 10
    os.utime(path, (later, later))
    proc = snakemake(done, "-n", "--cores", "2")
    jobs = planned_jobs(proc)
    mine = {rule: n for rule, n in jobs.items() if rule.startswith("releases_")}
    assert mine == {
        "releases_posterior": 1,
        "releases_count_a_marginals": 1,
        "releases_count_a_posterior_page": 1,
    }, jobs
    assert set(jobs) - set(mine) - {r for r in jobs if r.startswith("own_data_")} <= DIGESTS
    assert "Updated input files: data/user/count_a.json" in proc.stdout
    assert "count_b" not in "".join(re.findall(r"output: (.*)", proc.stdout))


def test_a_bad_csv_fails_its_check_with_one_line_printed_once(done, tmp_path):
    (done / "data" / "user" / "bad.csv").write_text(f"y,x1,x1,x2\n{SENTINEL},1,2,3\n")
    write_yaml(
        tmp_path / "bad.yaml", {"own_data": {"datasets": {"bad": own_entry("data/user/bad.csv")}}}
    )
    proc = snakemake(
        done,
        "results/own_data/bad/nonprivate_check.md",  # before --configfile, which takes a list
        "--cores",
        "2",
        "--configfile",
        tmp_path / "bad.yaml",
        check=False,
    )
    out = proc.stdout + proc.stderr
    expected = "data set 'bad': file 'data/user/bad.csv': column 'x1' is named 2 times"
    assert proc.returncode != 0 and out.count(expected) == 1, out[-3000:]
    assert SENTINEL not in out and "Traceback" not in out, out[-3000:]
    log = (done / "logs" / "own_data" / "bad" / "check.log").read_text()
    assert log.count(expected) == 1 and SENTINEL not in log and "Traceback" not in log
