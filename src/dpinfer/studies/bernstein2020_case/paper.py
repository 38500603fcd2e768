"""What bernstein2020 states about its social-mobility case study (Sec. 5.4), and its checks.

The thesis prints no numbers in Figs 5.10-5.16; it states the data's counts, the settings and
qualitative results. :func:`claims` turns each into a computed check on ``summary.npz`` and
writes ``results/bernstein2020/claims/bernstein2020_case.csv``. Comparisons of two methods are
paired over the same tracts: point-estimate errors by the paired difference and its standard
error ("by 2 SE": the difference exceeds twice that), coverage hits by McNemar's exact test
(:func:`dpinfer.proportions.mcnemar`, level :data:`PAIRED_LEVEL`). Every coverage, share or pass
rate is printed with its 95% Wilson interval over the tracts. The data are synthetic, so a row
that holds says our pipeline reproduces the thesis's *finding* on a state built to match the
thesis's description.

Every row carries the settings its statement refers to (settings.yaml): the state (the
thesis's counts, sizes and filter; our generator's paper-scale choices), the model, the chain
lengths of every epsilon it reads, the headline epsilon or the epsilon grid, the interval levels,
and what the check itself depends on (data window, OI's grid, the diagnostics). A statement over
epsilon whose rule holds per epsilon is judged on two rows, at the headline epsilon and at the
other epsilons, since at paper scale Gibbs-SS runs the thesis's chain lengths at the headline
epsilon only: the second row is "not comparable" there (docs/deviations.md, "Case study: chain
lengths"), the first is judged. A run at other settings (the smoke scale, an edited config) gets
"not comparable" rows, never a verdict against the thesis.
"""

from __future__ import annotations

import csv
import math
from dataclasses import replace

import numpy as np

from ...grid import fmt_eps
from ...io import load_npz
from ...proportions import mcnemar
from ..companions import from_chains, second_verdicts
from ..nig_methods import LABELS
from ..scorecard import Claim, health_claim, write_claims
from .chain_settings import GRID_CHAINS, CaseSettings
from .summarise import (
    AUTHOR_UPDATE_ITERATIONS_PER_SECOND,
    STATE_ROWS,
    THESIS,
    abs_errors,
    coverage_hits,
    decile_confusion,
    eps_index,
    mae,
    passing,
    state_counts,
    tract_subset,
    wilson,
)

__all__ = [
    "COVERAGE_TOLERANCE",
    "PAIRED_LEVEL",
    "claims",
    "size_slope",
]

COVERAGE_TOLERANCE = 0.1  # our reading of "reasonably close to the target coverage rate"
PAIRED_LEVEL = 0.05  # McNemar's two-sided level for paired coverage hits (about "by 2 SE")
KEPT_TOLERANCE = 0.02  # kept tracts within 2% of the thesis's 2,745
# the docs/deviations.md entry each kind of row names (one class per entry)
_DEV = "case-study-how-the-scorecard-judges-the-thesis-claims"
_DEV_COVERAGE = "case-study-gibbs-ss-coverage-is-conservative"
_DEV_DECILES = "case-study-decile-containment"
_DEV_OI = "case-study-the-oi-baseline"
_DEV_DIAGNOSTICS = "case-study-convergence-diagnostics"
_DEV_STATE = "case-study-synthetic-tract-data"
# what every row computed on the state is computed on (the thesis's tract data are not public)
STAND_IN = "synthetic census tracts"


def _p(p: float) -> str:
    """A p-value as printed (an exact test's p below the double range prints as a bound)."""
    return f"{p:.2g}" if p > 0 else "< 1e-300"


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    """Mean over the finite entries and its SE over them (a mean of per-tract shares, or of
    paired differences)."""
    x = x[np.isfinite(x)]
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.inf


def size_slope(sizes: np.ndarray, residual: np.ndarray) -> tuple[float, float]:
    """Least-squares slope of log|residual| on log(size) and its standard error."""
    x, y = np.log(sizes.astype(float)), np.log(np.maximum(np.abs(residual), 1e-12))
    xc = x - x.mean()
    b = float(xc @ (y - y.mean()) / (xc @ xc))
    r = y - y.mean() - b * xc
    return b, float(math.sqrt(r @ r / (x.size - 2) / (xc @ xc)))


def _state_claims(s, at: CaseSettings) -> list[Claim]:
    ours, paper = state_counts(s), {k: THESIS.paper(k) for k in STATE_ROWS}
    kept, total, lo, hi = (ours[k] for k in ("kept", "tracts", "min_size", "max_size"))
    # per count (its settings: the state table's group of it): statement, paper, ours, holds
    rows = {
        "tracts": (
            "tracts in the state before the median-kir filter (Sec. 5.4.1; synthetic here)",
            str(paper["tracts"]),
            str(total),
            total == paper["tracts"],
        ),
        "kept": (
            f"tracts kept by the filter (median kir in [.1, .9]) within {100 * KEPT_TOLERANCE:g}% "
            "of the thesis's count",
            f"{paper['kept']} kept, {paper['dropped']} dropped",
            f"{kept} kept, {ours['dropped']} dropped",
            abs(kept - paper["kept"]) <= KEPT_TOLERANCE * paper["kept"],
        ),
        "min_size": (
            f"tract sizes lie in {paper['min_size']}..{paper['max_size']} (Sec. 5.4.1)",
            f"{paper['min_size']}-{paper['max_size']}",
            f"{lo}-{hi}",
            lo >= paper["min_size"] and hi <= paper["max_size"],
        ),
    }
    return [
        Claim(
            "fig5_10", statement, p, o, "", holds, _DEV_STATE, at(STATE_ROWS[k]), stand_in=STAND_IN
        )
        for k, (statement, p, o, holds) in rows.items()
    ]


def _settings_claims(s, at: CaseSettings) -> list[Claim]:
    """The chain lengths as printed (each row carries the printed lengths as its settings, so a
    run below them is "not comparable" and one above them differs, naming the departure)."""
    headline, gibbs, grid_gibbs = at.headline, at.case["gibbs"], at.case["grid_gibbs"]
    conjugate_draws = at.case["conjugate_draws"]
    grid = [float(e) for e in s["eps"] if not np.isclose(e, headline)]
    burnin, keep, draws = (THESIS.paper(k) for k in ("burnin", "keep", "conjugate_draws"))

    def lengths(target, where, g, epsilons, extra=""):
        """Gibbs-SS's lengths ``g`` (``gibbs`` or ``grid_gibbs``) at ``epsilons``."""
        return Claim(
            target,
            f"Gibbs-SS keeps {keep} draws after {burnin} burn-in {where}",
            f"{burnin} + {keep}",
            f"{g['burnin']} + {g['keep']} x {gibbs['chains']} chain(s){extra}",
            "",
            (g["burnin"], g["keep"] * gibbs["chains"]) == (burnin, keep),
            "case-study-chain-lengths",
            at.lengths(epsilons),
        )

    out = [
        lengths("fig5_12", f"(epsilon = {fmt_eps(headline)})", gibbs, [headline]),
        Claim(
            "fig5_12",
            f"Non-Private and Naive draw {draws} samples",
            str(draws),
            str(conjugate_draws),
            "",
            conjugate_draws == draws,
            "case-study-chain-lengths",
            at("conjugate_draws"),
        ),
    ]
    if grid:
        moves = grid_gibbs.get("collapsed_moves", gibbs["collapsed_moves"])
        where = f"at every epsilon (ours at {', '.join(fmt_eps(e) for e in grid)})"
        extra = f", {moves} collapsed move(s) per iteration"
        out.append(lengths("fig5_13", where, grid_gibbs, grid, extra))
    return out


def _share(s, e, m) -> tuple[float, float]:
    """Mean over tracts of the share of a tract's records near x0 inside the widest interval,
    and its SE over tracts (tracts without such records skipped)."""
    x = s["np_share"][:, -1] if m == "non_private" else s["share"][e, m, :, -1]
    return _mean_se(np.asarray(x, float))


def _scopes(s, at: CaseSettings) -> list[tuple[str, list[int], tuple]]:
    """A per-epsilon statement's two scopes, each judged on its own row: the headline epsilon
    (the thesis's chain lengths at paper scale) and every other epsilon of the grid
    (``grid_gibbs``'s shorter chains at paper scale). Per scope: its words, its epsilon indices
    and the settings that choose them (the headline epsilon, or the grid)."""
    h = eps_index(s, at.headline)
    others = [e for e in range(s["eps"].size) if e != h]
    out = [(f"at epsilon = {fmt_eps(at.headline)}", [h], at("headline_epsilon"))]
    if others:
        words = f"at every other epsilon ({', '.join(fmt_eps(s['eps'][e]) for e in others)})"
        out.append((words, others, at.grid(s["eps"])))
    return out


def _interval_claims(s, at: CaseSettings) -> list[Claim]:
    methods = [str(m) for m in s["methods"]]
    lev = f"{100 * s['levels'][-1]:g}%"
    np_share = _share(s, 0, "non_private")
    h = eps_index(s, at.headline)
    out = []
    for e in sorted({0, h}):
        naive = _share(s, e, methods.index("naive"))
        update = _share(s, e, methods.index("gibbs_ss_update"))
        eps = float(s["eps"][e])
        where = at("headline_epsilon") if e == h else at.smallest_epsilon(s["eps"])
        out.append(
            Claim(
                "fig5_11",
                f"epsilon = {fmt_eps(eps)}: Naive's {lev} predictive intervals at pir = .25 are "
                "biased and too tight, holding under half of a tract's records near pir = .25, "
                "while Non-Private's and Gibbs-SS-Update's hold at least half (mean share over "
                "tracts)",
                "Naive misses the data; Non-Private, Gibbs-SS-Update span it",
                f"Naive {naive[0]:.2f}, Non-Private {np_share[0]:.2f}, Gibbs-SS-Update "
                f"{update[0]:.2f}",
                "SE over tracts "
                + "/".join(f"{x[1]:.3f}" for x in (naive, np_share, update))
                + " (a mean of per-tract shares)",
                naive[0] < 0.5 <= min(np_share[0], update[0]),
                _DEV,
                at("against_non_private")
                + where
                + at("widest_level")
                + at("data_window")
                + at.gibbs([eps]),
            )
        )
    return out


def _coverage_claims(s, at: CaseSettings) -> list[Claim]:
    methods = [str(m) for m in s["methods"]]
    T, E = s["tracts"].size, s["eps"].size
    eps = [float(e) for e in s["eps"]]
    levels = [float(v) for v in s["levels"]]
    hits = {m: [coverage_hits(s, e, i) for e in range(E)] for i, m in enumerate(methods)}
    cov = {m: np.array([h.mean(axis=0) for h in hits[m]]) for m in methods}
    out = []
    for m in (m for m in methods if m.startswith("gibbs_ss")):
        for where, idx, scope in _scopes(s, at):
            worst = np.abs(cov[m][idx] - np.array(levels)[None, :]).max()
            out.append(
                Claim(
                    "fig5_13",
                    f"{LABELS[m]}: coverage of the Non-Private estimate by the "
                    f"{' and '.join(f'{100 * v:g}%' for v in levels)} intervals within "
                    f"{COVERAGE_TOLERANCE} of nominal {where}",
                    "near nominal at every epsilon",
                    "; ".join(
                        f"eps {fmt_eps(eps[i])}: " + "/".join(f"{c:.3f}" for c in cov[m][i])
                        for i in idx
                    ),
                    f"95% Wilson over {T} tracts: "
                    + "; ".join(
                        "/".join(wilson(k, T) for k in hits[m][i].sum(axis=0)) for i in idx
                    ),
                    bool(worst <= COVERAGE_TOLERANCE),
                    _DEV_COVERAGE,
                    at("against_non_private")
                    + at("levels")
                    + scope
                    + at.gibbs([eps[i] for i in idx], (m,)),
                )
            )
    if "naive" in cov and E > 1:
        nv = cov["naive"][:, -1]
        first, last = hits["naive"][0][:, -1], hits["naive"][-1][:, -1]
        b, c, p = mcnemar(last, first)
        flavours = [m for m in methods if m.startswith("gibbs_ss")]
        common = at("against_non_private") + at("widest_level")
        out.append(
            Claim(
                "fig5_13",
                f"Naive: {100 * levels[-1]:g}% coverage rises with epsilon (largest above "
                f"smallest, McNemar's test paired over tracts, p < {PAIRED_LEVEL})",
                "Naive improves only with epsilon",
                " -> ".join(f"{v:.3f}" for v in nv),
                f"95% Wilson over {T} tracts: {wilson(first.sum(), T)} -> {wilson(last.sum(), T)}"
                f"; McNemar: {b} tracts covered only at eps {fmt_eps(eps[-1])}, {c} only at "
                f"eps {fmt_eps(eps[0])}, p = {_p(p)}",
                bool(nv[-1] > nv[0] and p < PAIRED_LEVEL),
                _DEV,
                common + at.grid(eps),
            )
        )
        if flavours:
            tests = {m: mcnemar(hits[m][0][:, -1], first) for m in flavours}
            out.append(
                Claim(
                    "fig5_13",
                    f"at the smallest epsilon ({fmt_eps(eps[0])}) Naive's {100 * levels[-1]:g}% "
                    "coverage lies below every Gibbs-SS flavour's (McNemar's test paired over "
                    f"tracts, p < {PAIRED_LEVEL})",
                    "Gibbs-SS near nominal, Naive not",
                    f"Naive {nv[0]:.3f}; "
                    + ", ".join(f"{LABELS[m]} {cov[m][0, -1]:.3f}" for m in flavours),
                    f"95% Wilson over {T} tracts: Naive {wilson(first.sum(), T)}; "
                    + "; ".join(
                        f"{LABELS[m]} {wilson(hits[m][0][:, -1].sum(), T)}, McNemar: "
                        f"{tests[m][0]} tracts covered by it only, {tests[m][1]} by Naive only, "
                        f"p = {_p(tests[m][2])}"
                        for m in flavours
                    ),
                    bool(
                        all(nv[0] < cov[m][0, -1] and tests[m][2] < PAIRED_LEVEL for m in flavours)
                    ),
                    _DEV,
                    common + at.smallest_epsilon(eps) + at.gibbs([eps[0]], flavours),
                )
            )
    return out


def _mae_claims(s, at: CaseSettings) -> list[Claim]:
    methods = [str(m) for m in s["methods"]]
    E = s["eps"].size
    eps = [float(e) for e in s["eps"]]
    out = []
    for i, m in enumerate(methods):
        (a, sa), (b, sb) = mae(s, 0, i), mae(s, E - 1, i)
        if E > 1:
            chains = () if m == "naive" else at.gibbs([eps[0], eps[-1]], (m,))
            out.append(
                Claim(
                    "fig5_14",
                    f"{LABELS[m]}: MAE against Non-Private falls from the smallest to the largest "
                    "epsilon by 2 SE",
                    "MAE falls with epsilon",
                    " -> ".join(f"{mae(s, e, i)[0]:.4f}" for e in range(E)),
                    f"SE {sa:.4f} / {sb:.4f}",
                    bool(a - b > 2 * math.hypot(sa, sb)),
                    _DEV,
                    at("against_non_private") + at.grid(eps) + chains,
                )
            )
    if "naive" in methods:
        nv = methods.index("naive")
        for i, m in enumerate(methods):
            if not m.startswith("gibbs_ss"):
                continue
            for where, idx, scope in _scopes(s, at):
                diffs = [_mean_se(abs_errors(s, e, i) - abs_errors(s, e, nv)) for e in idx]
                out.append(
                    Claim(
                        "fig5_14",
                        f"{LABELS[m]} has a lower MAE than Naive {where} (paired over tracts, by 2 "
                        "SE)",
                        "Gibbs-SS significantly better than Naive",
                        "; ".join(
                            f"eps {fmt_eps(eps[e])}: {d:+.4f}" for e, (d, _) in zip(idx, diffs)
                        ),
                        "SE " + "/".join(f"{se:.4f}" for _, se in diffs),
                        all(d + 2 * se < 0 for d, se in diffs),
                        _DEV,
                        at("against_non_private") + scope + at.gibbs([eps[e] for e in idx], (m,)),
                        headline=m == "gibbs_ss_update" and idx == [eps_index(s, at.headline)],
                    )
                )
    e = eps_index(s, at.headline)
    up = methods.index("gibbs_ss_update")
    d, se = _mean_se(abs_errors(s, e, "oi") - abs_errors(s, e, up))
    raw = ""
    if "oi_release" in s:  # what clamping to [0, 1] changes, for the reader
        raw_mae = float(np.mean(np.abs(s["oi_release"][e] - s["np_point"])))
        raw = f"; unclamped release {raw_mae:.4f}"
    out.append(
        Claim(
            "fig5_14",
            f"epsilon = {fmt_eps(at.headline)}: OI's point estimate (its release clamped to "
            "[0, 1]) beats Gibbs-SS-Update's (Ch. 6: OI 'outperforms the more general Bayesian "
            "methods'; paired MAE difference by 2 SE)",
            "OI better",
            f"OI {mae(s, e, 'oi')[0]:.4f} vs {mae(s, e, up)[0]:.4f} (difference {d:+.4f}{raw})",
            f"SE {se:.4f}",
            bool(d + 2 * se < 0),
            _DEV_OI,
            at("against_non_private")
            + at("headline_epsilon")
            + at.gibbs([at.headline])
            + at("oi_grid"),
            headline=True,
        )
    )
    return out


def _size_claims(s, at: CaseSettings) -> list[Claim]:
    up = list(s["methods"]).index("gibbs_ss_update")
    eps = [float(e) for e in s["eps"]]
    slopes = [size_slope(s["sizes"], s["point"][e, up] - s["np_point"]) for e in range(len(eps))]
    out = []
    for where, idx, scope in _scopes(s, at):
        out.append(
            Claim(
                "fig5_15",
                f"Gibbs-SS-Update's residual shrinks with tract size {where} (slope of "
                "log|residual| on log size below 0 by 2 SE)",
                "decreasing error vs sample size",
                "; ".join(f"eps {fmt_eps(eps[e])}: {slopes[e][0]:.2f}" for e in idx),
                "SE " + "/".join(f"{slopes[e][1]:.2f}" for e in idx),
                all(slopes[e][0] + 2 * slopes[e][1] < 0 for e in idx),
                _DEV,
                at("against_non_private") + scope + at.gibbs([eps[e] for e in idx]),
            )
        )
    if len(slopes) > 1:
        (b0, s0), (b1, s1) = slopes[0], slopes[-1]
        out.append(
            Claim(
                "fig5_15",
                "the rate changes favourably as epsilon increases: the slope at the largest "
                "epsilon is below the slope at the smallest by 2 SE",
                "steeper at larger epsilon",
                f"{b0:.2f} -> {b1:.2f}",
                f"SE {s0:.2f} / {s1:.2f}",
                bool(b1 - b0 + 2 * math.hypot(s0, s1) < 0),
                _DEV,
                at("against_non_private") + at.grid(eps) + at.gibbs([eps[0], eps[-1]]),
            )
        )
    return out


def _decile_claims(s, at: CaseSettings) -> list[Claim]:
    e = eps_index(s, at.headline)
    up = list(s["methods"]).index("gibbs_ss_update")
    c = decile_confusion(s["np_point"], s["point"][e, up])
    diag_max = sum(c[r, r] == c[r].max() for r in range(10))  # rows with the diagonal largest
    inside = {"bottom": (c[0, :2].sum(), c[0].sum()), "top": (c[9, 8:].sum(), c[9].sum())}
    share = {k: a / b for k, (a, b) in inside.items()}
    where = at("against_non_private") + at("headline_epsilon") + at.gibbs([at.headline])
    return [
        Claim(
            "fig5_16",
            f"epsilon = {fmt_eps(at.headline)}: the decile confusion matrix of Gibbs-SS-Update vs "
            "Non-Private is diagonal-heavy (every row's largest count on the diagonal)",
            "diagonal heavy",
            f"diagonal share {np.trace(c) / c.sum():.3f}; rows with the diagonal largest: "
            f"{diag_max} of 10",
            f"diagonal share 95% Wilson {wilson(np.trace(c), c.sum())}",
            bool(diag_max == 10),
            _DEV_DECILES,
            where,
        ),
        Claim(
            "fig5_16",
            f"epsilon = {fmt_eps(at.headline)}: the bottom and top Non-Private deciles are almost "
            "fully (>= 90%) contained in the two bottom and two top Gibbs-SS-Update deciles",
            "almost fully contained",
            ", ".join(f"{k} {share[k]:.3f} ({a} of {b})" for k, (a, b) in inside.items()),
            "95% Wilson " + ", ".join(f"{k} {wilson(a, b)}" for k, (a, b) in inside.items()),
            bool(min(share.values()) >= 0.9),
            _DEV_DECILES,
            where,
        ),
    ]


def _convergence_claims(s, at: CaseSettings, health) -> list[Claim]:
    """Per Gibbs-SS flavour and scope of epsilons, the one diagnostics row (a tract's chain is
    flagged when any parameter fails)."""
    eps = [float(e) for e in s["eps"]]
    out = []
    for i, m in enumerate(str(v) for v in s["methods"]):
        if not m.startswith("gibbs_ss"):
            continue
        for where, idx, scope in _scopes(s, at):
            chosen = [eps[e] for e in idx]
            statement = (
                f"{LABELS[m]}: every one of the {s['tracts'].size * len(idx)} tract chains "
                f"{where} passes the convergence diagnostics (split R-hat <= "
                f"{health['max_rhat']}, bulk ESS >= {health['min_ess']})"
            )
            groups = [(f"eps={fmt_eps(eps[e])}", s["rhat"][e, i], s["ess"][e, i]) for e in idx]
            settings = at("data") + scope + at.gibbs(chosen, (m,)) + at.diagnostics(chosen)
            out.append(
                health_claim(
                    "fig5_13",
                    statement,
                    "(not reported)",
                    groups,
                    health,
                    _DEV_DIAGNOSTICS,
                    settings,
                )
            )
    return out


def _chain_claims(s, at: CaseSettings, health) -> list[Claim]:
    """Every claim computed from the private methods' draws (Figs 5.11 to 5.16, diagnostics);
    those on the Gibbs-SS chains at the epsilons other than the headline one marked
    :func:`~dpinfer.studies.companions.from_chains` (their second verdict comes from the
    companion, whose chains replace those chains' lengths)."""
    rows = (
        _interval_claims(s, at)
        + _coverage_claims(s, at)
        + _mae_claims(s, at)
        + _size_claims(s, at)
        + _decile_claims(s, at)
        + _convergence_claims(s, at, health)
    )
    # a row reads the chains at the epsilons other than the headline one when it names their
    # settings (every such setting is Gibbs-SS's)
    grids = [tuple(x.name for x in c.settings if x.name.endswith(GRID_CHAINS)) for c in rows]
    return [from_chains([c], grid)[0] if grid else c for c, grid in zip(rows, grids)]


def _second_verdicts(rows, s, comp, at: CaseSettings, health, converged) -> list[Claim]:
    """``rows`` (:func:`_chain_claims` of the whole run) with the companion's verdict on every row
    that reads the Gibbs-SS chains at the epsilons other than the headline one; its note names
    the tract subset and what the original chains give on it. The companion's chains replace the
    original chains' lengths at those epsilons, so those settings do not make it "not
    comparable" (:attr:`~dpinfer.studies.scorecard.Converged.replaces`); the subset does where
    the original chains' verdict on it is not their verdict on every tract
    (:func:`~dpinfer.studies.companions.companion_on_subset`)."""
    limits = {k: converged["health"][k] for k in ("max_rhat", "min_ess")}
    first = tract_subset(s, comp["tracts"])
    twins = _chain_claims(comp, at, limits)
    same = _chain_claims(first, at, health)
    grid = [e for e in range(comp["eps"].size) if not np.isclose(comp["eps"][e], at.headline)]
    gibbs = [i for i, m in enumerate(str(v) for v in comp["methods"]) if m.startswith("gibbs_ss")]
    worst = min(passing(comp, e, i, limits) for e in grid for i in gibbs)
    subset = (
        f"{converged['chains']} chains of {converged['burnin']} + {converged['keep']} draws on "
        f"one kept tract in every {converged['every']} ({comp['tracts'].size} of "
        f"{s['tracts'].size}; converged.every); tracts passing R-hat <= {limits['max_rhat']} and "
        f"bulk ESS >= {limits['min_ess']:g}: {worst:.3f} in the worst (epsilon, method) (target "
        f"{converged['health']['min_passing']})"
    )
    return second_verdicts(
        rows,
        twins,
        subset,
        on_subset=same,
        subset=f"one kept tract in {converged['every']}",
        same="the original chains on the same tracts",
    )


def _runtime_claims(path) -> list[Claim]:
    with open(path, encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["method"] == "Gibbs-SS-Update"]
    rate = min(float(r["iterations_per_second"]) for r in rows)
    return [
        Claim(
            "fig5_14",
            "runtime: Gibbs-SS-Update iterations per CPU second (slowest epsilon; the author's "
            "code, measured)",
            f"{AUTHOR_UPDATE_ITERATIONS_PER_SECOND:g}",
            f"{rate:,.0f}",
            "",
            rate >= AUTHOR_UPDATE_ITERATIONS_PER_SECOND,
            "",
        )
    ]


def claims(input, output, *, converged: dict, **case) -> None:
    """Rule step: every checkable statement of Sec. 5.4 -> the study unit's claims CSV. ``case``:
    the config keys of ``bernstein2020.case_study`` the claims depend on (the chains, the
    diagnostics, the state, the model, the levels, the data window and OI's grid): each row
    records, beside the thesis's, the settings its statement refers to (settings.yaml,
    :class:`.chain_settings.CaseSettings`). Rows on the chains at the epsilons other than the
    headline one get a second verdict from the converged companion (``input.converged``, when
    ``converged.enabled``)."""
    s = load_npz(input.summary)
    at, health = CaseSettings(case), case["health"]
    chain = _chain_claims(s, at, health)
    if getattr(input, "converged", None):
        comp = load_npz(input.converged)
        chain = _second_verdicts(chain, s, comp, at, health, converged)
    else:
        off = "the converged companion is switched off (case_study.converged.enabled)"
        chain = second_verdicts(chain, None, off)
    chain = [replace(c, stand_in=STAND_IN) for c in chain]
    rows = _state_claims(s, at) + _settings_claims(s, at) + chain + _runtime_claims(input.runtime)
    write_claims(output.claims, rows)
