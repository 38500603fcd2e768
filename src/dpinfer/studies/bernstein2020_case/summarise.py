"""Case-study aggregation: the state, the reference and every batch -> one summary and tables.

``summary.npz`` (read by the figures and the claims): ``eps`` (E), ``methods`` (M), kept
``tracts`` (T) and their ``sizes``, ``levels`` (L); Non-Private's ``np_point``, ``np_lo``,
``np_hi``, ``np_share``; per (epsilon, method, tract) ``point``, ``lo``, ``hi``, ``share``
(L per tract), ``rhat`` and ``ess`` (3 parameters); OI's releases ``oi_release`` (E, T) and its
point estimates ``oi``, the releases clamped to [0, 1] (:func:`.oi.oi_estimate`: what every
table, figure and claim scores); and the state's counts.
CPU times go to ``runtime.{csv,md}`` only, so the summary and its tables are byte-identical
across runs.

Tables: ``summary.{csv,md}`` per (epsilon, method): the mean absolute error of the point
estimate against Non-Private's with its SE over tracts, coverage of Non-Private's point estimate
by the central intervals, the share of the data near pir = x0 inside them, and the chains that
fail R-hat or ESS; ``state.{csv,md}``: the synthetic state's counts beside the thesis's, the
thesis's value printed only where our state is at its setting (settings.yaml's groups of
:data:`STATE_ROWS`, the claims' settings too), "n/a" otherwise with a note naming what differs.
"""

from __future__ import annotations

import math

import numpy as np

from ...diagnostics import unconverged
from ...grid import fmt_eps
from ...io import load_npz, save_npz, write_table
from ...plotting.methods import method_label
from ...proportions import wilson_interval
from ..document_settings import document
from ..nig_methods import LABELS
from .oi import oi_estimate

__all__ = [
    "THESIS",
    "AUTHOR_UPDATE_ITERATIONS_PER_SECOND",
    "STATE_ROWS",
    "state_counts",
    "summarise",
    "eps_index",
    "wilson",
    "abs_errors",
    "mae",
    "coverage_hits",
    "flagged",
    "passing",
    "decile_confusion",
    "tract_subset",
    "converged_summary",
]

THESIS = document("bernstein2020_case")  # the thesis's settings (settings.yaml)
AUTHOR_UPDATE_ITERATIONS_PER_SECOND = 136.0  # FACTS.md, measured on the author's code
# the state table's rows: each count the thesis prints and the group of settings it refers to
STATE_ROWS = {
    "tracts": "tract_count",
    "dropped": "state",
    "kept": "state",
    "min_size": "size_range",
    "max_size": "size_range",
}


def state_counts(summary: dict) -> dict:
    """The synthetic state's counts the thesis prints (the keys of :data:`STATE_ROWS`)."""
    return {
        "tracts": int(summary["state_tracts"]),
        "dropped": int(summary["state_dropped"]),
        "kept": int(summary["tracts"].size),
        "min_size": int(summary["state_min_size"]),
        "max_size": int(summary["state_max_size"]),
    }


# a batch's results per (method, tract), each per epsilon in the summary
PER_CHAIN = ("point", "lo", "hi", "share", "rhat", "ess")
# the axis of the kept tracts in each per-tract array of the summary
TRACT_AXIS = {
    **dict.fromkeys(("tracts", "sizes", "ols", "sensitivity"), 0),
    **dict.fromkeys(("np_point", "np_lo", "np_hi", "np_share"), 0),
    **dict.fromkeys(("oi", "oi_release"), 1),
    **dict.fromkeys(PER_CHAIN, 2),
}


def eps_index(summary: dict, eps: float) -> int:
    """The index of ``eps`` in the summary's epsilons."""
    return int(np.flatnonzero(np.isclose(summary["eps"], float(eps)))[0])


def wilson(k, n) -> str:
    """The 95% Wilson interval of k / n as the tables and claims print it."""
    lo, hi = wilson_interval(k, n)
    return f"[{lo:.3f}, {hi:.3f}]"


def abs_errors(summary: dict, e: int, m) -> np.ndarray:
    """Per tract, |method m's point estimate - Non-Private's| at epsilon index e
    (m = "oi" for OI)."""
    est = summary["oi"][e] if m == "oi" else summary["point"][e, m]
    return np.abs(est - summary["np_point"])


def mae(summary: dict, e: int, m) -> tuple[float, float]:
    """Mean absolute error of method m's point estimates against Non-Private's at epsilon index e,
    and its SE over tracts (m = "oi" for the OI baseline)."""
    err = abs_errors(summary, e, m)
    return float(err.mean()), float(err.std(ddof=1) / math.sqrt(err.size)) if err.size > 1 else 0.0


def coverage_hits(summary: dict, e: int, m: int) -> np.ndarray:
    """(tracts, levels): whether method m's central interval at epsilon index e covers
    Non-Private's point estimate (the paired hits of a McNemar test)."""
    ref = summary["np_point"][:, None]
    return (summary["lo"][e, m] <= ref) & (ref <= summary["hi"][e, m])


def flagged(summary: dict, e: int, m: int, health: dict) -> np.ndarray:
    """Per tract, whether method m's chain fails R-hat or bulk ESS (worst parameter)."""
    return unconverged(
        summary["rhat"][e, m].max(axis=1),
        summary["ess"][e, m].min(axis=1),
        max_rhat=health["max_rhat"],
        min_ess=health["min_ess"],
    )


def passing(summary: dict, e: int, m: int, health: dict) -> float:
    """The share of the tracts whose chain of method m at epsilon index e passes ``health``."""
    return float(1.0 - np.mean(flagged(summary, e, m, health)))


def _placed(batches, epsilons, tracts):
    """Each batch with its epsilon's index in ``epsilons`` and its tracts' positions in
    ``tracts``."""
    index_of = {float(e): i for i, e in enumerate(epsilons)}
    where = {int(t): j for j, t in enumerate(tracts)}
    for b in batches:
        cols = np.array([where[int(t)] for t in b["tracts"]], dtype=np.int64)
        yield b, index_of[float(b["eps"])], cols


def summarise(input, output, *, epsilons, health: dict, tracts: dict, drop) -> None:
    """Rule step: merge the batches of every epsilon into ``summary.npz`` and write the tables
    (``tracts``, ``drop``: the state's config, what the thesis's counts in the state table refer
    to)."""
    st, ref = load_npz(input.state), load_npz(input.reference)
    kept = ref["tracts"]
    batches = [load_npz(p) for p in input.batches]
    methods = [str(m) for m in batches[0]["methods"]]
    E, M, T, L = len(epsilons), len(methods), kept.size, ref["levels"].size
    tail = {"point": (), "lo": (L,), "hi": (L,), "share": (L,), "rhat": (3,), "ess": (3,)}
    per = {k: np.full((E, M, T, *shape), np.nan) for k, shape in tail.items()}
    oi = np.full((E, T), np.nan)
    cpu, its = np.zeros((E, M)), np.zeros((E, M), dtype=np.int64)
    for b, e, cols in _placed(batches, epsilons, kept):
        for k, v in per.items():
            v[e][:, cols] = b[k]
        oi[e][cols] = b["oi"]
        cpu[e] += b["cpu"].sum(axis=1)
        its[e] += b["iterations"]
    if np.isnan(per["point"]).any() or np.isnan(oi).any():
        raise ValueError(
            "some (epsilon, tract) has no batch result: the batches do not cover every kept tract"
        )
    keep = st["keep"]
    summary = {
        "eps": np.asarray(epsilons, float),
        "methods": np.array(methods),
        "tracts": kept,
        **{k: ref[k] for k in ("sizes", "levels")},
        **{f"np_{k}": ref[k] for k in ("point", "lo", "hi", "share")},  # Non-Private's
        **{k: ref[k] for k in ("ols", "sensitivity", "chi")},
        **per,
        "oi": oi_estimate(oi),
        "oi_release": oi,
        "state_tracts": np.array(keep.size),
        "state_dropped": np.array(int((~keep).sum())),
        "state_min_size": np.array(int(st["sizes"].min())),
        "state_max_size": np.array(int(st["sizes"].max())),
    }
    save_npz(output.summary, **summary)
    _tables(summary, output, health)
    _state_table(summary, output, tracts, drop)
    _runtime(output, epsilons, methods, cpu, its, T)


def _tables(s: dict, output, health: dict) -> None:
    levels = [float(v) for v in s["levels"]]
    rows = []
    for e, eps in enumerate(s["eps"]):
        # every method, then OI (its point estimate only)
        for m, name in [*enumerate(str(v) for v in s["methods"]), ("oi", "oi")]:
            mean, se = mae(s, e, m)
            row = {
                "epsilon": fmt_eps(eps),
                "method": method_label(name),
                "tracts": s["tracts"].size,
                "mae": mean,
                "mae_se": se,
            }
            rows.append(row)
            if m == "oi":
                continue
            hits = coverage_hits(s, e, m)
            for lev, c, k in zip(levels, hits.mean(axis=0), hits.sum(axis=0)):
                row[f"covers_np_{100 * lev:g}"] = c
                row[f"covers_np_{100 * lev:g}_wilson"] = wilson(k, hits.shape[0])
            row[f"data_in_{100 * levels[-1]:g}"] = float(np.nanmean(s["share"][e, m, :, -1]))
            row["unconverged"] = int(flagged(s, e, m, health).sum())
    write_table(
        output.csv,
        output.md,
        rows,
        list(rows[0]),  # a method's row: every column (OI's has its point estimate's only)
        title="Case study: private point estimates and intervals of kir at pir = 0.25 against "
        "Non-Private",
        notes=(
            "mae: mean |private - Non-Private| point estimate over the kept tracts (SE over "
            "tracts; OI's release clamped to [0, 1], the range of kir); covers_np: share of "
            "tracts whose central predictive interval covers the Non-Private point estimate "
            "(_wilson: its 95% Wilson interval over the tracts); data_in: share of a tract's "
            "records near pir = 0.25 inside the interval; unconverged: chains with R-hat > "
            f"{health['max_rhat']} or bulk "
            f"ESS < {health['min_ess']}. Synthetic tract data (the thesis's are not public); the "
            "thesis prints no numbers here."
        ),
    )


def _state_table(s: dict, output, tracts: dict, drop) -> None:
    """The synthetic state's counts beside the thesis's, each only where our state is at the
    setting the thesis's count refers to."""
    ours = state_counts(s)
    at = THESIS.at(THESIS.config_values({"tracts": tracts, "drop": drop}))
    differ = {k: [x.describe() for x in at(g) if not x.same] for k, g in STATE_ROWS.items()}
    rows = [
        {"quantity": k, "paper": "n/a" if differ[k] else THESIS.paper(k), "ours": ours[k]}
        for k in STATE_ROWS
    ]
    notes = "dropped: tracts whose median kir is below 0.1 or above 0.9."
    other = list(dict.fromkeys(d for k in STATE_ROWS for d in differ[k]))
    if other:
        notes += (
            " The thesis's values (n/a here) refer to another setting: " + "; ".join(other) + "."
        )
    write_table(
        output.state_csv,
        output.state_md,
        rows,
        ["quantity", "paper", "ours"],
        title="Case study: the synthetic state against the thesis's (Sec. 5.4.1)",
        notes=notes,
    )


def _runtime(output, epsilons, methods, cpu, its, tracts: int) -> None:
    rows = [
        {
            "epsilon": fmt_eps(e),
            "method": LABELS[m],
            "cpu_seconds": cpu[i, j],
            "seconds_per_tract": cpu[i, j] / tracts,
            "iterations_per_second": its[i, j] / cpu[i, j] if cpu[i, j] > 0 else 0.0,
        }
        for i, e in enumerate(epsilons)
        for j, m in enumerate(methods)
    ]
    write_table(
        output.runtime_csv,
        output.runtime_md,
        rows,
        ["epsilon", "method", "cpu_seconds", "seconds_per_tract", "iterations_per_second"],
        title="Case study: CPU time of the private methods (sampler calls only)",
        notes=f"The author's Gibbs-SS-Update ran at about {AUTHOR_UPDATE_ITERATIONS_PER_SECOND:g} "
        "iterations per CPU second (FACTS.md).",
    )


def decile_confusion(reference: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """10 x 10 counts: row = decile of the reference, column = decile of the estimate (ranks)."""

    def decile(v):
        rank = np.argsort(np.argsort(v, kind="stable"), kind="stable")
        return (10 * rank) // v.size

    out = np.zeros((10, 10), dtype=np.int64)
    np.add.at(out, (decile(reference), decile(estimate)), 1)
    return out


def tract_subset(summary: dict, tracts) -> dict:
    """The summary restricted to the kept tracts ``tracts`` (state indices; every per-tract
    array)."""
    pos = {int(t): j for j, t in enumerate(summary["tracts"])}
    cols = np.array([pos[int(t)] for t in tracts], dtype=np.int64)
    return {
        k: np.take(v, cols, axis=TRACT_AXIS[k]) if k in TRACT_AXIS else v
        for k, v in summary.items()
    }


def converged_summary(input, output, *, headline_epsilon: float, health: dict, converged: dict):
    """Rule step: the converged companion's batches (issue 33) -> ``converged/summary.npz``, the
    summary of :func:`summarise` on the companion's tract subset with every method's results at
    the epsilons other than the headline one replaced by the companion's (the headline epsilon's
    are the original chains', which pass the diagnostics), and a table of the tracts whose
    chains pass ``converged.health`` beside the original chains' share on the same tracts."""
    s = load_npz(input.summary)
    batches = [load_npz(p) for p in input.batches]
    subset = np.unique(np.concatenate([b["tracts"] for b in batches]))
    first = tract_subset(s, subset)
    comp = {k: np.array(v, copy=True) for k, v in first.items()}
    done = np.zeros((s["eps"].size, subset.size), dtype=bool)
    for b, e, cols in _placed(batches, s["eps"], subset):
        if [str(m) for m in b["methods"]] != [str(m) for m in s["methods"]]:
            raise ValueError("the companion's methods differ from the summary's")
        for k in PER_CHAIN:
            comp[k][e][:, cols] = b[k]
        comp["oi"][e][cols] = oi_estimate(b["oi"])
        comp["oi_release"][e][cols] = b["oi"]
        done[e, cols] = True
    grid = [e for e in range(s["eps"].size) if not np.isclose(s["eps"][e], headline_epsilon)]
    if not done[grid].all() or done[[e for e in range(s["eps"].size) if e not in grid]].any():
        raise ValueError(
            "the companion's batches must cover every subset tract at every epsilon "
            "other than the headline one, and no other"
        )
    save_npz(output.summary, **comp)
    h = converged["health"]
    gibbs = [(m, str(v)) for m, v in enumerate(s["methods"]) if str(v).startswith("gibbs_ss")]
    rows = [
        {
            "epsilon": fmt_eps(s["eps"][e]),
            "method": method_label(name),
            "tracts": int(subset.size),
            "passing": passing(comp, e, m, h),
            "rhat_max": float(comp["rhat"][e, m].max()),
            "ess_min": float(comp["ess"][e, m].min()),
            "original_passing": passing(first, e, m, health),
        }
        for e in grid
        for m, name in gibbs
    ]
    write_table(
        output.csv,
        output.md,
        rows,
        list(rows[0]),
        digits=4,
        title="Case study: converged companion of the Gibbs-SS chains (intermediate)",
        notes=(
            f"One kept tract in every {converged['every']} again at the epsilons other than "
            f"{fmt_eps(headline_epsilon)}, with {converged['chains']} chains of "
            f"{converged['burnin']} + {converged['keep']} draws (same release). passing: share "
            f"with R-hat <= {h['max_rhat']} and bulk ESS >= {h['min_ess']:g} over the chains "
            f"(target {h['min_passing']}); original_passing: the original single chains on the "
            f"same tracts, R-hat <= {health['max_rhat']} and bulk ESS >= {health['min_ess']:g}."
        ),
    )
