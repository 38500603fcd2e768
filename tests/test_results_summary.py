"""README's results block and docs/results.md are rendered from the committed paper-scale
snapshot docs/results-digest.json (issue 29: no result number typed by hand)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from dpinfer.studies import results_digest as rd
from dpinfer.studies import results_summary as rs
from dpinfer.studies.scorecard import VERDICTS

ROOT = Path(__file__).resolve().parents[1]


def _digest() -> dict:
    return json.loads((ROOT / "docs" / "results-digest.json").read_text(encoding="utf-8"))


def _one_run_digest() -> dict:
    """The committed digest's rows as one run's (no study-by-study ``runs``)."""
    return {k: v for k, v in _digest().items() if k != "runs"}


def test_readme_block_is_rendered_from_the_committed_digest():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = readme.index(rs.README_BEGIN), readme.index(rs.README_END) + len(rs.README_END)
    assert readme[start:end] == rs.render_readme_block(_digest()), (
        "README's results block differs from docs/results-digest.json: run python -m "
        "dpinfer.studies.results_digest after a paper-scale run instead of editing it by hand"
    )


def test_results_document_is_rendered_from_the_committed_digest():
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert text == rs.render_summary(_digest(), "Results at paper scale")


def test_the_snapshot_is_of_a_complete_paper_scale_run():
    d = _digest()
    assert set(d["counts"]) == set(rs.STUDIES)
    assert all(built == total for built, total in d["built"].values()), d["built"]
    assert all(set(c) == set(VERDICTS) for c in d["counts"].values())
    # one run, or runs that refreshed it study by study: each study from exactly one of them
    runs = d.get("runs") or [{"commit": d["commit"], "studies": list(d["counts"])}]
    assert all(r["commit"] for r in runs)
    assert sorted(s for r in runs for s in r["studies"]) == sorted(rs.STUDIES)
    assert (
        d["minutes"] is None or d["minutes"] > 0
    )  # None: a run resumed across sessions, or a study-by-study snapshot, not timed
    assert {h["study"] for h in d["headlines"]} == set(rs.STUDIES)


def _cost_csv(tmp_path, rows: str):
    """A results/cost.csv (dpinfer.job_cost) with these rows."""
    path = tmp_path / "cost.csv"
    path.write_text(
        "unit,rule,jobs,wall_s,cpu_s,kernel_cpu_s,overhead_s\n" + rows, encoding="utf-8"
    )
    return path


def _rows():
    base = dict(
        statement="s",
        paper="p",
        ours="o",
        mc_error="0.1",
        explanation="",
        setting="",
        not_comparable="",
    )
    return [
        dict(base, study="ju2022", target="tab1", verdict="holds", headline="True"),
        dict(
            base,
            study="ju2022",
            target="tab1",
            verdict="not comparable",
            not_comparable="level 0.8 here",
            headline="False",
        ),
        dict(
            base,
            study="raim2021",
            target="knots",
            verdict="differs: our choice",
            headline="False",
        ),
    ]


def test_counts_and_headlines_come_from_the_scorecard_rows(tmp_path):
    import csv

    path = tmp_path / "fidelity.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(_rows()[0]))
        w.writeheader()
        w.writerows(_rows())
    (tmp_path / "a.png").write_text("x")
    out = SimpleNamespace(md=tmp_path / "summary.md", json=tmp_path / "summary.json")
    rs.summary(
        SimpleNamespace(fidelity=str(path)),
        out,
        targets={
            "ju2022": [[str(tmp_path / "a.png")], [str(tmp_path / "missing.png")]],
            "raim2021": [],
        },
    )
    d = json.loads(out.json.read_text())
    assert d["counts"]["ju2022"] == dict.fromkeys(VERDICTS, 0) | {"holds": 1, "not comparable": 1}
    assert d["counts"]["raim2021"]["differs: our choice"] == 1
    assert d["built"]["ju2022"] == [1, 2]
    assert [h["target"] for h in d["headlines"]] == ["tab1"]
    text = out.md.read_text()
    assert (
        "| ju2022 | 1 of 2 | 1 | 0 | 0 | 0 | 0 | 1 | 0 |" in text
        and "| all | 1 of 2 | 1 | 0 | 0 | 1 | 0 | 1 | 0 |" in text
    )
    readme = "intro\n" + rs.README_BEGIN + "\nold numbers\n" + rs.README_END + "\nrest\n"
    new = rd._replace_block(readme, rs.render_readme_block(d))
    assert "old numbers" not in new and new.startswith("intro\n") and new.endswith("\nrest\n")


def test_readme_results_open_with_one_table_at_a_glance():
    """Issue 30, item 10: the section opens with one table (a row per study and one for all), no
    wall of text; the verdict definitions and every headline row are in docs/results.md."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Results at paper scale") : readme.index(rs.README_END)]
    intro, block = section.split(rs.README_BEGIN)
    assert len(intro.splitlines()) < 15 and "\n- " not in intro and "|" not in intro
    rows = [line for line in block.splitlines() if line.startswith("| ")]
    assert rows[0].startswith(
        "| study | targets built | headline result | hold | differ: document in error "
        "| differ: stand-in data | differ: our choice | differ: not reproduced | not comparable"
    )
    assert [r.split(" | ")[0][2:] for r in rows[1:]] == list(rs.STUDIES) + ["all"]
    assert "paper-scale minutes, 2 cores" in rows[0]
    assert "**holds**" in (ROOT / "docs" / "results.md").read_text(encoding="utf-8")


def test_refresh_takes_the_smoke_time_from_its_own_log_and_keeps_the_paper_run(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text(
        f"x\n{rs.README_BEGIN}\n{rs.README_END}\n", encoding="utf-8"
    )
    (tmp_path / "docs" / "results-digest.json").write_text(json.dumps(_digest()), encoding="utf-8")
    logs = tmp_path / "smoke" / ".snakemake" / "log"
    logs.mkdir(parents=True)
    (logs / "a.snakemake.log").write_text("Finished jobid: 1 (Rule: x)\nElapsed time: 0:05:30.6\n")
    d = rd.refresh(None, tmp_path, None, logs)
    assert d["smoke"]["minutes"] == 5.51 and d["counts"] == _digest()["counts"]
    assert (
        "took 5.5 minutes with `--cores 2` on a 2-core machine, as the first run of a fresh clone"
        in (tmp_path / "README.md").read_text(encoding="utf-8")
    )
    with pytest.raises(ValueError, match="no finished smoke run"):
        rd.refresh(None, tmp_path, None, tmp_path / "docs")


def test_a_studys_minutes_are_its_jobs_wall_time_over_two_cores(tmp_path):
    path = _cost_csv(
        tmp_path,
        "bernstein2020_ch3,bernstein2020_ch3_run_cell,2,600.0,590.0,500.0,90.0\n"
        "bernstein2020_case,bernstein2020_case_run_batch,1,120.0,110.0,100.0,10.0\n"
        "raim2021,raim2021_run_gibbs,3,60.0,50.0,40.0,10.0\n"
        "scorecard and summary,fidelity,1,1.0,1.0,0.0,1.0\n",
    )
    assert rd._study_minutes(path) == {"bernstein2020": 6.0, "raim2021": 0.5}
    assert rd._study_minutes(tmp_path / "missing.csv") is None
    d = dict(_one_run_digest(), study_minutes={"raim2021": 0.5}, minutes=40.0)
    block = rs.render_readme_block(d)
    row = next(line for line in block.splitlines() if line.startswith("| raim2021 |"))
    assert row.endswith(" | 0.5 |"), row
    assert next(line for line in block.splitlines() if line.startswith("| all |")).endswith(
        " | 40 |"
    )
    assert (
        "divided by the 2 cores" in block
        and "| all |" in block
        and block.count("not measured") == 4
    )


def test_the_runs_efficiency_is_its_kernel_cpu_over_two_cores_times_wall(tmp_path):
    path = _cost_csv(
        tmp_path,
        "raim2021,raim2021_run_gibbs,3,60.0,50.0,40.0,10.0\n"
        "raisa2021,raisa2021_run_chains,2,300.0,290.0,200.0,90.0\n",
    )
    assert rd._efficiency(path, 4.0) == round(240.0 / (2 * 240.0), 3)
    assert rd._efficiency(tmp_path / "missing.csv", 4.0) is None
    assert "2 cores x wall time: 0.50" in rs.render_readme_block(
        dict(_one_run_digest(), minutes=4.0, efficiency=0.5)
    )
    # refresh leaves the efficiency out (None) of a run whose wall time was not measured
    assert "efficiency" not in rs.render_readme_block(
        dict(_one_run_digest(), minutes=None, efficiency=None)
    )


def test_second_verdicts_are_counted_and_every_changed_conclusion_is_listed(tmp_path):
    """Issue 33: the snapshot counts the second verdicts per study and lists the rows whose
    conclusion changes with converged chains, with both values; README says how many."""
    blank = dict(converged_verdict="", converged_ours="", converged_mc_error="")
    rows = [dict(r, **blank) for r in _rows()]
    rows[0].update(converged_verdict="differs", converged_ours="0.90", converged_mc_error="0.03")
    rows[1].update(converged_verdict="holds", converged_ours="x")  # first not comparable
    rows[2].update(converged_verdict=rs.BUDGET_FIXED)
    d = rs.digest_of(rows, {"ju2022": [1, 1], "raim2021": [1, 1]})
    assert d["converged"]["ju2022"]["differs"] == 1 and d["converged"]["ju2022"]["holds"] == 1
    assert d["converged"]["raim2021"][rs.BUDGET_FIXED] == 1
    assert [(c["target"], c["verdict"], c["converged_verdict"]) for c in d["changed"]] == [
        ("tab1", "holds", "differs")
    ]
    text = rs.render_summary(d)
    assert "| ju2022 | 2 | 1 | 1 | 0 | 0 | 0 | not measured |" in text
    assert "converged chains: 0.90 (MC error 0.03): **differs**" in text
    line = rs._converged_line(dict(d, companion_minutes={"ju2022": 11.6}))
    assert "of the 3 rows" in line and "1 conclusion changes" in line and "took 12 of" in line
    cost = _cost_csv(
        tmp_path,
        "ju2022,ju2022_run_converged,8,1200.0,1100.0,1000.0,100.0\n"
        "ju2022,ju2022_run_chunk,8,600.0,550.0,500.0,50.0\n"
        "bernstein2020_ch4,bernstein2020_ch4_summarise_converged,1,120.0,110.0,0.0,110.0\n",
    )
    assert rd._companion_minutes(cost) == {"bernstein2020": 1.0, "ju2022": 10.0}
    # a digest from before issue 33 renders without the section
    old = {k: v for k, v in d.items() if k not in ("converged", "changed")}
    assert "With converged chains" not in rs.render_summary(old) + rs.render_readme_block(old)


def test_a_snapshot_from_before_the_classes_says_so():
    """A digest whose run predates the difference classes (every difference then reads "not
    reproduced") says so in its run line, and a fresh run's digest does not carry the flag."""
    d = {"minutes": 10.0, "commit": "abc1234"}
    assert "predates the difference classes" not in rs._run_line(d)
    flagged = dict(d, classes_from="commit abc1234")
    assert "predates the difference classes (commit abc1234)" in rs._run_line(flagged)
    assert "predates the difference classes" in rs.render_readme_block(
        dict(_one_run_digest(), classes_from="commit abc1234")
    )
    # a run of a study-by-study digest carries the flag itself
    runs = [dict(r, classes_from="commit abc1234") for r in _digest()["runs"]]
    assert "predates the difference classes" in rs.render_readme_block(dict(_digest(), runs=runs))


def test_no_rendered_value_carries_a_zero_error():
    """A proportion's uncertainty is an interval, never a zero plug-in SE (issue 46)."""
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert not re.search(r"MC error 0(\.0+)?\)", text)


def _study_digest(commit: str, studies: dict[str, str], minutes=None) -> dict:
    """A digest of a run whose only rows are one headline per study with the given verdict."""
    rows = [
        dict(
            study=s,
            target=f"t_{s}",
            statement="s",
            paper="p",
            ours=f"ours {commit}",
            mc_error="0.1",
            verdict=v,
            headline="True",
        )
        for s, v in studies.items()
    ]
    built = {s: [1, 1] for s in studies}
    return rs.digest_of(rows, built, minutes=minutes, commit=commit)


def test_a_study_refreshed_alone_replaces_only_its_entries_and_names_its_run():
    old = dict(
        _study_digest("old1234", {"ju2022": "holds", "raim2021": "differs: not reproduced"}, 120.0),
        classes_from="commit old1234",
        study_minutes={"ju2022": 10.0, "raim2021": 5.0},
    )
    new = _study_digest("new5678", {"raim2021": "differs: our choice"})
    d = rd.merge(old, new, ["raim2021"])
    assert d["counts"]["ju2022"] == old["counts"]["ju2022"]
    assert d["counts"]["raim2021"] == new["counts"]["raim2021"]
    assert [h["ours"] for h in d["headlines"]] == ["ours old1234", "ours new5678"]
    assert d["study_minutes"] == {"ju2022": 10.0}  # the new run was not timed
    assert d["minutes"] is None and d["runs"] == [
        {
            "commit": "old1234",
            "studies": ["ju2022"],
            "minutes": 120.0,
            "classes_from": "commit old1234",
        },
        {"commit": "new5678", "studies": ["raim2021"], "minutes": None},
    ]
    line = rs._run_line(d)
    assert "ju2022 from commit old1234, in a run of 120 minutes" in line
    assert "that run predates the difference classes (commit old1234)" in line
    assert "raim2021 from commit new5678, wall time not measured" in line
    # another part of the same untimed run joins its entry
    more = rd.merge(
        d, _study_digest("new5678", {"ju2022": "holds", "raim2021": "holds"}), ["ju2022"]
    )
    assert more["runs"] == [
        {"commit": "new5678", "studies": ["ju2022", "raim2021"], "minutes": None}
    ]
    # a second refresh of the other study leaves one run, without the old flag
    again = rd.merge(d, _study_digest("new9999", {"ju2022": "holds"}), ["ju2022"])
    assert [r["commit"] for r in again["runs"]] == ["new5678", "new9999"]
    assert "predates" not in rs._run_line(again)
    rs.render_summary(again), rs.render_readme_block(again)  # both render


def test_a_study_the_run_did_not_finish_is_refused():
    old = _study_digest("old1234", {"ju2022": "holds"})
    with pytest.raises(ValueError, match="no scorecard rows of \\['raim2021'\\]"):
        rd.merge(old, _study_digest("new5678", {"ju2022": "holds"}), ["raim2021"])
