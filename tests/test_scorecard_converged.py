"""The scorecard's second verdict (issue 33): a claim computed from chains the diagnostics flag
carries what converged chains say of it, or why no converged companion can exist."""

from __future__ import annotations

import csv
from types import SimpleNamespace

import pytest

from dpinfer.studies.companions import (
    from_chains,
    privacy_budget,
    second_verdicts,
    subset_setting,
)
from dpinfer.studies.report_pages import read_csv_table, render_scorecard_page
from dpinfer.studies.scorecard import (
    CONVERGED_VERDICTS,
    Claim,
    Converged,
    converged_verdict,
    fidelity,
    read_claims,
    setting,
    write_claims,
)

from .test_raisa2021_claims import fake_claims as raisa_claims

SUBSET = setting("replicates", 500, 80, at_least=True)


def _claim(holds=False, **kw) -> Claim:
    return Claim("tab1", "coverage within 3 SE", "0.90", "0.80", "0.01", holds, **kw)


@pytest.mark.parametrize(
    "converged, settings, expect",
    [
        (None, (), ""),
        (Converged("privacy_budget"), (), CONVERGED_VERDICTS[-1]),
        (Converged("companion"), (), "not run"),
        (Converged("companion", "0.89", "0.01", True), (), "holds"),
        (Converged("companion", "0.70", "0.01", False), (), "differs"),
        # the companion ran on fewer replicates than the document's: not its setting
        (Converged("companion", "0.89", "0.02", True, (SUBSET,)), (), "not comparable"),
        # the row itself is at another setting: so is its companion
        (
            Converged("companion", "0.89", "0.01", True),
            (setting("credible level", 0.9, 0.8),),
            "not comparable",
        ),
        # the row's chains were shorter than the document's and the companion replaces them
        (
            Converged("companion", "0.89", "0.01", True, replaces=("burn-in",)),
            (setting("burn-in", 5000, 1000, at_least=True),),
            "holds",
        ),
        # ... but not a setting it does not replace
        (
            Converged("companion", "0.89", "0.01", True, replaces=("burn-in",)),
            (setting("burn-in", 5000, 1000, at_least=True), setting("credible level", 0.9, 0.8)),
            "not comparable",
        ),
    ],
)
def test_the_second_verdict(converged, settings, expect):
    assert converged_verdict(_claim(converged=converged, settings=settings)) == expect


def test_a_converged_record_names_its_kind():
    with pytest.raises(ValueError, match="kind"):
        Converged("longer")


def test_claims_round_trip_with_and_without_the_column(tmp_path):
    claims = [
        _claim(),
        _claim(converged=Converged("privacy_budget", note="fixed by the budget")),
        _claim(converged=Converged("companion", "0.89", "0.02", True, (SUBSET,), "first 80")),
        _claim(converged=Converged("companion", "0.9", "0.01", True, replaces=("burn-in",))),
    ]
    path = tmp_path / "claims.csv"
    write_claims(path, claims)
    assert read_claims(path) == claims
    # a claims file written before the column reads as claims without a second verdict
    with open(path, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    old = tmp_path / "old.csv"
    with open(old, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, [k for k in rows[0] if k != "converged"], extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    assert [c.converged for c in read_claims(old)] == [None] * len(claims)


def _scorecard(tmp_path, study: str, claims) -> SimpleNamespace:
    """Write ``claims`` as one study's claims file and render the scorecard from it; the
    scorecard's output paths."""
    (tmp_path / study / "claims").mkdir(parents=True)
    path = tmp_path / study / "claims" / f"{study}.csv"
    write_claims(path, claims)
    (tmp_path / "dev.md").write_text("# Deviations\n")
    out = SimpleNamespace(
        md=tmp_path / "fidelity.md", csv=tmp_path / "fidelity.csv", html=tmp_path / "fidelity.html"
    )
    fidelity(SimpleNamespace(claims=[str(path)], deviations=str(tmp_path / "dev.md")), out)
    return out


def test_the_scorecard_counts_and_shows_the_second_verdicts(tmp_path):
    claims = [
        _claim(),
        _claim(converged=Converged("privacy_budget")),
        _claim(converged=Converged("companion", "0.89", "0.01", True, note="4 chains")),
        _claim(converged=Converged("companion", "0.70", "0.01", False)),
        _claim(converged=Converged("companion", "0.89", "0.02", True, (SUBSET,))),
    ]
    out = _scorecard(tmp_path, "ju2022", claims)
    with open(out.csv, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["converged_verdict"] for r in rows] == [
        "",
        CONVERGED_VERDICTS[-1],
        "holds",
        "differs",
        "not comparable",
    ]
    assert rows[2]["converged_ours"] == "0.89" and rows[2]["converged_note"] == "4 chains"
    assert rows[4]["converged_note"] == "replicates 80 here, 500 in the paper"
    text = out.md.read_text()
    assert (
        "4 rows are computed from chains the convergence diagnostics can flag; with converged "
        "chains 1 hold, 1 differ, 1 are not comparable and 0 were not run; for 1 the privacy "
        "budget fixes the iterations" in text
    )
    assert "| differs: not reproduced | holds: 0.89 (MC error 0.01); 4 chains |" in text
    # the closing section names the conclusion that changes (differs -> holds), with both numbers
    section = text.split("## Conclusions that change with converged chains")[1]
    assert section.count("| ju2022 |") == 1
    assert (
        "| 0.80 (MC error 0.01) | differs: not reproduced | 0.89 (MC error 0.01) | holds |"
        in section
    )
    html = render_scorecard_page(*read_csv_table(out.csv), {})
    assert "<th>with converged chains</th>" in html and "ours 0.89 (MC error 0.01)" in html
    # a scorecard written before the columns renders with empty cells
    header, table = read_csv_table(out.csv)
    keep = [i for i, h in enumerate(header) if not h.startswith("converged_")]
    old = render_scorecard_page(
        [header[i] for i in keep], [[r[i] for i in keep] for r in table], {}
    )
    assert old.count("<td></td>") == len(table)


def test_privacy_budget_marks_every_claim_and_keeps_the_rest():
    claims = [_claim(), _claim(headline=True)]
    marked = privacy_budget(claims, "why")
    assert [c.converged for c in marked] == [Converged("privacy_budget", note="why")] * 2
    assert [c.headline for c in marked] == [False, True]


def test_raisa2021_dp_chain_claims_say_the_budget_fixes_their_length(tmp_path):
    """Item 4 of issue 33: every raisa2021 claim computed from the DP chains (orderings, clipping,
    convergence) says no companion exists; the accountant's counts, the table, the non-DP
    clipping study (fig6_2, whose claim is the non-convergence) and the curves carry none."""
    claims = raisa_claims(tmp_path)
    marked = [c for c in claims if c.converged is not None]
    assert marked and all(c.converged.kind == "privacy_budget" for c in marked)
    assert {c.target for c in marked} == {f"fig6_{k}" for k in range(3, 9)}
    assert any("R-hat" in c.statement for c in marked)
    blank = {c.target for c in claims if c.converged is None}
    assert {"tab5_1", "fig5_1", "fig4_1", "fig6_1", "fig6_2"} <= blank
    assert not [c for c in marked if "iteration counts" in c.statement]


def test_no_changed_conclusion_says_so(tmp_path):
    claims = [_claim(holds=True, converged=Converged("companion", "0.9", "", True))]
    out = _scorecard(tmp_path, "s", claims)
    assert "None: every one of the 1 rows judged with converged chains keeps" in out.md.read_text()


def test_a_subset_judges_only_rows_whose_verdict_it_keeps():
    """A companion on a subset of replicates judges a row only where the original chains give
    the same verdict on the subset as on the whole run; otherwise the subset lacks the power for
    that verdict and the companion's reads "not comparable", naming both verdicts."""
    whole, kept, lost = _claim(holds=True), _claim(holds=True), _claim(holds=False)
    on = subset_setting(whole, kept, "the first 80 replicates")
    assert on.same
    row = _claim(holds=True, converged=Converged("companion", "0.7", "0.01", False, (on,)))
    assert converged_verdict(row) == "differs"
    off = subset_setting(whole, lost, "the first 80 replicates")
    row = _claim(holds=True, converged=Converged("companion", "0.7", "0.01", False, (off,)))
    assert converged_verdict(row) == "not comparable"
    assert off.describe() == (
        "the original chains' verdict on the first 80 replicates differs here, holds on the "
        "whole run"
    )


def test_the_one_health_claim_counts_flagged_chains_and_names_the_worst():
    """scorecard.health_claim, the builder of every study's convergence-diagnostics row: a chain
    is flagged when any of its parameters fails R-hat or ESS; the worst values carry their group's
    label; the error is the flagged share's Wilson interval (never a zero error)."""
    import numpy as np

    from dpinfer.studies.scorecard import health_claim

    health = {"max_rhat": 1.01, "min_ess": 400, "min_passing": 0.95}
    groups = [
        ("a", np.array([1.001, 1.02]), np.array([900.0, 800.0])),  # 1 of 2 flagged (R-hat)
        ("b", np.array([[1.0, 1.005], [1.0, 1.0]]), np.array([[500.0, 120.0], [450.0, 700.0]])),
    ]
    c = health_claim("fig", "every chain passes", "(none)", groups, health, "dev", ())
    assert c.ours == "2 of 4 flagged; max R-hat 1.0200 (a), min ESS 120 (b)"
    assert c.mc_error == "flagged share 95% Wilson [0.150, 0.850]"
    assert c.holds is False and c.diagnostics
    ok = [("a", np.array([1.001]), np.array([900.0]))]
    assert health_claim("fig", "s", "p", ok, health, "", ()).holds is True


def test_one_mechanism_gives_the_marked_claims_their_second_verdict(tmp_path):
    """from_chains marks a claim where a study builds it; second_verdicts answers every mark
    (and only marks) from the companion's twin, on a subset only where the original chains keep
    their verdict there; an unanswered mark cannot be written."""
    plain, marked = _claim(holds=True), from_chains([_claim(holds=False)], ("lengths",))[0]
    twins = [_claim(holds=True), Claim("tab1", "coverage within 3 SE", "0.90", "0.89", "", True)]
    plain_out, marked_out = second_verdicts([plain, marked], twins, "4 chains")
    assert plain_out == plain
    assert (marked_out.converged.ours, marked_out.converged.holds) == ("0.89", True)
    assert marked_out.converged.replaces == ("lengths",) and marked_out.converged.note == "4 chains"
    assert converged_verdict(marked_out) == "holds"
    off = second_verdicts([marked], None, "switched off")[0]
    assert converged_verdict(off) == "not run" and off.converged.note == "switched off"
    # on a subset where the original chains change their verdict: not comparable
    first = Claim("tab1", "coverage within 3 SE", "0.90", "0.91", "", True)
    sub = second_verdicts(
        [marked], twins[1:], "4 chains", on_subset=[first], subset="the first 80", same="same"
    )[0]
    assert (
        converged_verdict(sub) == "not comparable" and sub.converged.note == "4 chains; same: 0.91"
    )
    with pytest.raises(ValueError, match="without a second verdict"):
        write_claims(tmp_path / "c.csv", [marked])
