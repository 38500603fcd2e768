"""Second verdicts: what converged chains say of a claim computed from chains the diagnostics
flag (:class:`~dpinfer.studies.scorecard.Converged`), or why no converged companion can exist.

A study marks the claims it computes from such chains where it builds them
(:func:`from_chains`), builds the same claims again from its converged companion's chains, and
hands both to :func:`second_verdicts`, the one mechanism that answers every mark. A companion run
on a subset of the replicates or tracts judges a row only where the original chains keep their
verdict on that subset (:func:`subset_setting`). Claims from DP chains whose length the privacy
budget fixes say so instead (:func:`privacy_budget`).
"""

from __future__ import annotations

from dataclasses import replace

from .scorecard import PENDING, Claim, Converged, Setting, pending

__all__ = [
    "subset_setting",
    "companion_on_subset",
    "from_chains",
    "second_verdicts",
    "privacy_budget",
]


def subset_setting(whole: Claim, on_subset: Claim, subset: str) -> Setting:
    """Whether a companion run on ``subset`` (of the replicates or tracts) can judge ``whole``'s
    row: the original chains' verdict on the subset (``on_subset``) must be their verdict on the
    whole run. Otherwise the subset lacks the power (or the luck) for this verdict, and the
    companion's reads "not comparable" rather than blaming, or crediting, the chains."""

    def word(holds):
        return "not run" if holds is None else ("holds" if holds else "differs")

    return Setting(
        f"the original chains' verdict on {subset}",
        word(whole.holds),
        word(on_subset.holds),
        on_subset.holds == whole.holds,
        "on the whole run",
    )


def companion_on_subset(
    row: Claim, twin: Claim, first: Claim, subset: str, note: str, replaces: tuple = ()
) -> Converged:
    """``row``'s second verdict from a companion run on ``subset`` of the replicates or tracts:
    ``twin`` is the row computed from the companion, ``first`` from the original chains on the
    same subset. Judged only where ``first`` keeps ``row``'s verdict (:func:`subset_setting`);
    the note is ``note`` followed by the original chains' value on the subset."""
    return Converged(
        "companion",
        twin.ours,
        twin.mc_error,
        twin.holds,
        (subset_setting(row, first, subset),),
        note=f"{note}: {first.ours}",
        replaces=tuple(replaces),
    )


def from_chains(claims: list[Claim], replaces: tuple[str, ...] = ()) -> list[Claim]:
    """``claims`` marked as computed from chains the diagnostics can flag: their ``converged``
    field asks :func:`second_verdicts` for the companion's verdict. ``replaces``: the names of
    the claims' settings whose chain lengths the companion's chains replace
    (:attr:`Converged.replaces`). :func:`write_claims` refuses a mark left unanswered."""
    mark = Converged(PENDING, replaces=tuple(replaces))
    return [replace(c, converged=mark) for c in claims]


def second_verdicts(
    rows: list[Claim],
    twins: list[Claim] | None,
    note: str,
    *,
    on_subset: list[Claim] | None = None,
    subset: str = "",
    same: str = "",
    notes: dict[str, str] | None = None,
) -> list[Claim]:
    """The one way a study gives its claims their second verdict: every row marked by
    :func:`from_chains` gets the verdict of ``twins[i]``, the same claim built from the
    converged companion's chains (``twins`` None: the companion did not run, and ``note`` says
    why); other rows pass unchanged.

    A companion on ``subset`` of the replicates or tracts only judges a row where the original
    chains keep its verdict there (``on_subset[i]``: the row built from the original chains on
    the same subset, described by ``same``; :func:`companion_on_subset`). ``notes``: statement
    (or its part before the first colon) -> a remark added to that row's note (a paired
    comparison, say)."""
    out = []
    for i, c in enumerate(rows):
        if not pending(c):
            out.append(c)
            continue
        replaces = c.converged.replaces
        t = twins[i] if twins is not None else None
        extra = (notes or {}).get(c.statement) or (notes or {}).get(c.statement.split(":")[0])
        here = f"{note}; {extra}" if extra else note
        if t is None:  # not run: there are no companion chains to replace any lengths
            second = Converged("companion", note=note)
        elif on_subset is None:
            second = Converged(
                "companion", t.ours, t.mc_error, t.holds, note=here, replaces=replaces
            )
        else:
            first = f"{here}; {same}" if same else here
            second = companion_on_subset(c, t, on_subset[i], subset, first, replaces)
        out.append(replace(c, converged=second))
    return out


def privacy_budget(claims: list[Claim], note: str = "") -> list[Claim]:
    """``claims`` (computed from DP chains whose length the privacy budget sets) marked as such:
    their second verdict says why no converged companion exists."""
    return [replace(c, converged=Converged("privacy_budget", note=note)) for c in claims]
