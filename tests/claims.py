"""Checks of a study's scorecard claims shared by the study tests."""

from __future__ import annotations

from dpinfer.studies.scorecard import mismatches, verdict


def assert_judged_only_at_the_documents_setting(
    claims, targets: set[str], expect: str, *, every: bool
) -> None:
    """After a setting edit: exactly the claims of ``targets`` refer to another setting than the
    document's, each is "not comparable", and ``expect`` (the edited setting, described) is named
    by every one of them (``every``) or by at least one."""
    affected = [c for c in claims if mismatches(c)]
    assert affected and {c.target for c in affected} == targets
    assert all(verdict(c, set()) == "not comparable" for c in affected)
    named = ["; ".join(s.describe() for s in mismatches(c)) for c in affected]
    assert (all if every else any)(expect in text for text in named), named
