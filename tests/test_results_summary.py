"""README's results block and docs/results.md are rendered from the committed paper-scale
snapshot docs/results-digest.json (issue 29: no result number typed by hand)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from dpinfer.studies import results_summary as rs

ROOT = Path(__file__).resolve().parents[1]


def _digest() -> dict:
    return json.loads((ROOT / "docs" / "results-digest.json").read_text(encoding="utf-8"))


def test_readme_block_is_rendered_from_the_committed_digest():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = readme.index(rs.README_BEGIN), readme.index(rs.README_END) + len(rs.README_END)
    assert readme[start:end] == rs.render_readme_block(_digest()), (
        "README's results block differs from docs/results-digest.json: run python -m dpinfer.studies.results_summary "
        "after a paper-scale run instead of editing it by hand")


def test_results_document_is_rendered_from_the_committed_digest():
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert text == rs.render_summary(_digest(), "Results at paper scale")


def test_the_snapshot_is_of_a_complete_paper_scale_run():
    d = _digest()
    assert set(d["counts"]) == set(rs.STUDIES)
    assert all(built == total for built, total in d["built"].values()), d["built"]
    assert sum(c["differs (unexplained)"] for c in d["counts"].values()) == 0
    assert d["commit"]
    assert d["minutes"] is None or d["minutes"] > 0  # None: a run resumed across sessions, not timed
    assert {h["study"] for h in d["headlines"]} == set(rs.STUDIES)


def _rows():
    base = dict(statement="s", paper="p", ours="o", mc_error="0.1", explanation="", setting="", not_comparable="")
    return [dict(base, study="ju2022", target="tab1", verdict="holds", headline="True"),
            dict(base, study="ju2022", target="tab1", verdict="not comparable", not_comparable="level 0.8 here",
                 headline="False"),
            dict(base, study="raim2021", target="knots", verdict="differs (explained)", headline="False")]


def test_counts_and_headlines_come_from_the_scorecard_rows(tmp_path):
    import csv

    path = tmp_path / "fidelity.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(_rows()[0]))
        w.writeheader()
        w.writerows(_rows())
    (tmp_path / "a.png").write_text("x")
    out = SimpleNamespace(md=tmp_path / "summary.md", json=tmp_path / "summary.json")
    rs.summary(SimpleNamespace(fidelity=str(path)), out,
               targets={"ju2022": [[str(tmp_path / "a.png")], [str(tmp_path / "missing.png")]], "raim2021": []})
    d = json.loads(out.json.read_text())
    assert d["counts"]["ju2022"] == {"holds": 1, "differs (explained)": 0, "differs (unexplained)": 0,
                                     "not comparable": 1, "not run": 0}
    assert d["built"]["ju2022"] == [1, 2]
    assert [h["target"] for h in d["headlines"]] == ["tab1"]
    text = out.md.read_text()
    assert "| ju2022 | 1 of 2 | 1 | 0 | 0 | 1 | 0 |" in text and "| all | 1 of 2 | 1 | 1 | 0 | 1 | 0 |" in text
    readme = "intro\n" + rs.README_BEGIN + "\nold numbers\n" + rs.README_END + "\nrest\n"
    new = rs._replace_block(readme, rs.render_readme_block(d))
    assert "old numbers" not in new and new.startswith("intro\n") and new.endswith("\nrest\n")
