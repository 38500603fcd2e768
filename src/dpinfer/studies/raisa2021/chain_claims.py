"""The thesis's statements on the DP chains (Section 6.3, Figs 6.3-6.8) as claims: the author's
iteration counts, the orderings of the algorithms, how much they clip and the chains' convergence.

An ordering "A beats B" is decided per epsilon by the medians over the chains of a setting and
holds when it holds at a majority of the epsilons, as the text speaks of the whole panel.
:mod:`.paper` gathers these claims with the thesis's other statements. Each carries the settings
it refers to: ``at`` pairs settings.yaml with this run's values (:func:`.paper.run_settings`).
"""

from __future__ import annotations

import math

import numpy as np

from ...proportions import format_interval, pooled_z
from ..document_settings import Run
from ..scorecard import Claim, Setting, health_claim, setting
from .summarise import NAMES, THESIS, n_setting

__all__ = ["BANANA_MODELS", "HARD_MODELS", "iteration_claims", "ordering_claims", "health_claims"]

_PLD_ANCHOR = (
    "numerical-accountant-of-the-minibatch-dp-penalty-dp-accounting-instead-of-fourier-accountant"
)
# the docs/deviations.md entries of the orderings (one class per entry)
_ORDERINGS = "raisa2021-orderings"
_HARD_GAUSS = "raisa2021-correlated-gauss-hmc-against-the-penalty-algorithms"
# the model groups of the thesis's figures: the bananas of Fig 6.3, the harder posteriors of Fig 6.4
BANANA_MODELS = tuple(THESIS.paper("banana_models"))
HARD_MODELS = tuple(THESIS.paper("hard_models"))
ALGOS_ALL = tuple(THESIS.paper("algorithms"))
_FULL_DATA = ("dpps", "dppa", "hmc")
# the models each algorithm runs on in the thesis (circle: DP penalty and DP HMC; Fig 6.7 shows
# dpps, hmc)
_ALGO_MODELS = {a: (tuple(NAMES) if a in _FULL_DATA else BANANA_MODELS) for a in ALGOS_ALL}


def _chain_settings(at: Run, models) -> tuple[Setting, ...]:
    """What every DP chain of these models refers to: n, delta, hyperparameters, start rule and
    the 20 chains per setting (at least)."""
    return (n_setting(models, at.ours["n"]),) + at("chain")


def _mmd_panel(at: Run, model: str) -> tuple[Setting, ...]:
    """An MMD ordering on one model's panel, over the epsilon grid."""
    return _chain_settings(at, [model]) + at(
        "mmd", "circle_epsilons" if model == "circle" else "epsilons"
    )


def _panels(at: Run, figure_models, ran, *, circle: bool = False) -> tuple[Setting, ...]:
    """A statement over the panels of several models (clip fractions, gradient clipping): the
    models it ranges over beside those this run has, their chains and the epsilon grids."""
    models = setting(
        "models",
        list(figure_models),
        [m for m in figure_models if m in set(ran)],
        source=THESIS.source("models"),
    )
    grids = ("epsilons", "circle_epsilons") if circle else ("epsilons",)
    return _chain_settings(at, figure_models) + (models,) + at(*grids)


def _share(k: int, n: int) -> tuple[str, str]:
    """A share of runs or settings as the scorecard prints it: (value with its counts, its 95%
    Wilson interval, the row's Monte Carlo error)."""
    return f"{k / n:.3f} ({k} of {n})", format_interval(k, n, digits=3)


def iteration_claims(summary, keys, at: Run) -> list[Claim]:
    """One row per (model, algorithm): our counts per epsilon beside the author's (the thesis
    text's code state) at the same epsilons."""
    pairs = {}
    for key in keys:
        model, algo, eps = key.split("|")
        pairs.setdefault((model, algo), []).append((float(eps), key))
    out = []
    for (model, algo), items in pairs.items():
        items.sort()
        ours = [int(summary[f"{k}/iterations"]) for _, k in items]
        theirs = [
            int(summary[f"{k}/author_iterations"])
            for _, k in items
            if f"{k}/author_iterations" in summary
        ]
        known = len(theirs) == len(ours)
        target = (
            "fig6_7" if model == "circle" else ("fig6_3" if model in BANANA_MODELS else "fig6_4")
        )
        # the minibatch counts come from another numerical accountant: one iteration apart is a tie
        tol = 1 if algo in ("mdpps", "mdppa") else 0
        same = known and all(abs(a - b) <= tol for a, b in zip(ours, theirs))
        out.append(
            Claim(
                target,
                f"{model} {algo}: iteration counts per epsilon from our accountant (Algorithm 2)"
                + (" (within one iteration)" if tol else ""),
                " ".join(map(str, theirs)) if known else "(no author count for this grid)",
                " ".join(map(str, ours)),
                "",
                same if known else None,
                _PLD_ANCHOR if known and tol and ours != theirs else "",
                settings=(n_setting([model], at.ours["n"]),) + at("iterations"),
            )
        )
    return out


def _medians(summary, model, algo, epsilons, metric):
    return np.array([float(np.median(summary[f"{model}|{algo}|{e!r}/{metric}"])) for e in epsilons])


def _beats(summary, model, a, others, epsilons, reduce=np.min) -> tuple[int, int]:
    """(epsilons at which a's median MMD is below every other's, number of epsilons); with
    ``reduce=np.max``: below at least one other's."""
    mine = _medians(summary, model, a, epsilons, "mmd")
    rest = reduce([_medians(summary, model, b, epsilons, "mmd") for b in others], axis=0)
    return int(np.sum(mine < rest)), len(epsilons)


# the thesis's orderings of Figs 6.3 and 6.4: (target, models, winner, losers, thesis words)
_ORDERING_STATEMENTS = (
    (
        "fig6_3",
        ("easy-2d", "easy-10d"),
        "dpps",
        ["hmc"],
        "without tempering the penalty algorithms beat HMC",
    ),
    (
        "fig6_3",
        ("tempered-2d", "tempered-10d"),
        "hmc",
        ["dpps", "dppa"],
        "with tempering HMC beats the penalty algorithms",
    ),
    ("fig6_4", ("gauss-30d",), "dppa", ["dpps", "hmc"], "DP penalty OCU+GWMH beats the other two"),
    ("fig6_4", ("gauss-30d",), "hmc", ["dpps"], "DP HMC narrowly beats DP penalty"),
    ("fig6_4", ("hard-gauss-2d",), "hmc", ["dpps", "dppa"], "HMC beats both penalty algorithms"),
)


def _ran(summary) -> tuple[set, set, int]:
    """The summary's setting keys, the models they cover and the chains per setting."""
    have = set(str(k) for k in summary["keys"])
    return have, {k.split("|")[0] for k in have}, int(summary[f"{summary['keys'][0]}/mmd"].size)


def _present(have, model, algos, grid) -> bool:
    """Whether every algorithm of ``algos`` ran on ``model`` at every epsilon of ``grid``."""
    return all(f"{model}|{a}|{e!r}" in have for a in algos for e in grid)


def _clip_runs(summary, have, pairs, grid) -> np.ndarray:
    """Every chain's fraction of ratios clipped, over the (model, algorithm) ``pairs`` that ran at
    the epsilons of ``grid``."""
    return np.concatenate(
        [
            summary[f"{m}|{a}|{e!r}/llr_clip"]
            for m, a in pairs
            for e in grid
            if f"{m}|{a}|{e!r}" in have
        ]
        or [np.zeros(0)]
    )


def _low_clipping(target, statement, words, runs, settings) -> Claim:
    """The share of ``runs`` (their clipped fractions) below 10% clipped is at least 0.9."""
    below = int(np.sum(runs < 0.1))
    return Claim(
        target,
        statement,
        words,
        *_share(below, runs.size),
        below >= 0.9 * runs.size,
        settings=settings,
    )


def ordering_claims(summary, at: Run) -> list[Claim]:
    """Figs 6.3-6.8: the orderings of the algorithms, their clipping and the minibatch ones."""
    have, ran, chains = _ran(summary)
    eps, ceps = at.ours["epsilons"], at.ours["circle_epsilons"]
    out = []
    for target, models, a, others, words in _ORDERING_STATEMENTS:
        for model in models:
            if not _present(have, model, [a] + others, eps):
                continue
            k, m = _beats(summary, model, a, others, eps)
            out.append(
                Claim(
                    target,
                    f"{model}: median MMD of {a} below {', '.join(others)} at a majority of "
                    "epsilons",
                    words,
                    f"{k} of {m} epsilons",
                    f"medians of {chains} chains",
                    k > m / 2,
                    "" if k > m / 2 else (_HARD_GAUSS if model == "hard-gauss-2d" else _ORDERINGS),
                    settings=_mmd_panel(at, model),
                )
            )
    if _present(have, "hard-2d", ["dpps", "dppa", "hmc"], eps):
        hi = [e for e in eps if e >= 5]
        worse = _medians(summary, "hard-2d", "dppa", hi, "mmd")
        best = np.min([_medians(summary, "hard-2d", b, hi, "mmd") for b in ("dpps", "hmc")], axis=0)
        out.append(
            Claim(
                "fig6_4",
                "hard-2d: at epsilon >= 5 the median MMD of dppa is more than twice the best "
                "other's",
                "DP penalty OCU+GWMH performs extremely poorly at the higher epsilons",
                " ".join(f"{w:.3f}/{b:.3f}" for w, b in zip(worse, best)),
                f"medians of {chains} chains",
                bool(hi) and bool(np.all(worse > 2 * best)),
                "raisa2021-narrow-banana-dp-penalty-ocugwmh",
                settings=_mmd_panel(at, "hard-2d"),
            )
        )
        clip = _clip_runs(summary, have, [("hard-2d", "dppa")], eps)
        pairs = [(m, a) for m in HARD_MODELS for a in _FULL_DATA if (m, a) != ("hard-2d", "dppa")]
        out.append(
            _low_clipping(
                "fig6_6",
                "share of runs (other than dppa on hard-2d) with less than 10% of ratios clipped "
                "at least 0.9",
                "almost all runs below 10%",
                _clip_runs(summary, have, pairs, eps),
                _panels(at, HARD_MODELS, ran),
            )
        )
        out.append(
            Claim(
                "fig6_6",
                "dppa on hard-2d: largest clipped fraction over its runs above 10%",
                "high amount of clipping",
                f"{float(clip.max()):.3f}",
                "",
                float(clip.max()) > 0.1,
                _ORDERINGS,
                settings=_panels(at, ["hard-2d"], ran),
            )
        )
    if _present(have, "circle", ["hmc", "dpps"], ceps):
        e0 = min(ceps)
        h, p = (summary[f"circle|{a}|{e0!r}/mean_error"] for a in ("hmc", "dpps"))
        se = math.hypot(*(1.2533 * x.std(ddof=1) / math.sqrt(x.size) for x in (h, p)))
        circle = _chain_settings(at, ["circle"])
        out.append(
            Claim(
                "fig6_7",
                f"circle, epsilon = {e0:g}: median distance of the mean from the origin, HMC below "
                "DP penalty",
                "HMC slightly beats DP penalty on epsilon = 0.5",
                f"{np.median(h):.3f} vs {np.median(p):.3f}",
                f"{se:.3f}",
                bool(np.median(h) < np.median(p)),
                _ORDERINGS,
                settings=circle + at("circle_epsilon", circle_epsilon=e0),
            )
        )
        clips = {a: _clip_runs(summary, have, [("circle", a)], ceps) for a in ("hmc", "dpps")}
        out.append(
            Claim(
                "fig6_7",
                "circle: median clipped fraction below 10% for HMC and DP penalty",
                "clipping is low for both",
                " / ".join(f"{np.median(v):.4f}" for v in clips.values()),
                "",
                all(np.median(v) < 0.1 for v in clips.values()),
                settings=circle + at("circle_epsilons"),
            )
        )
        out.append(
            Claim(
                "fig6_7",
                "circle: the clipped fraction varies more between HMC runs than DP penalty runs "
                "(sd)",
                "HMC has a fairly large variance in clipping",
                " / ".join(f"{v.std(ddof=1):.4f}" for v in clips.values()),
                "",
                bool(clips["hmc"].std() > clips["dpps"].std()),
                _ORDERINGS,
                settings=circle + at("circle_epsilons"),
            )
        )
    out += _gradient_clip_claims(summary, have, at)
    return out + _minibatch_claims(summary, have, ran, chains, at)


def _gradient_clip_claims(summary, have, at: Run) -> list[Claim]:
    """Fig 6.8: gradient clipping is fairly constant across epsilon and spreads most on hard-2d."""
    eps, ceps = at.ours["epsilons"], at.ours["circle_epsilons"]
    grids = {m: ceps if m == "circle" else eps for m in NAMES}
    clip = {
        m: [summary[f"{m}|hmc|{e!r}/grad_clip"] for e in grids[m]]
        for m in NAMES
        if _present(have, m, ["hmc"], grids[m])
    }
    if not clip:
        return []
    where = _panels(at, NAMES, clip, circle="circle" in clip)
    spans = {m: float(np.ptp([np.median(c) for c in v])) for m, v in clip.items()}
    iqrs = {
        m: float(np.mean([np.subtract(*np.percentile(c, [75, 25])) for c in v]))
        for m, v in clip.items()
    }
    worst = max(spans, key=spans.get)
    out = [
        Claim(
            "fig6_8",
            "every model: the median fraction of gradients clipped moves by less than 0.1 across "
            "epsilon",
            "fairly constant across values of epsilon",
            f"largest change {spans[worst]:.3f} ({worst})",
            "",
            spans[worst] < 0.1,
            "raisa2021-gradient-clipping-across-epsilon",
            settings=where,
        )
    ]
    if "hard-2d" in iqrs and len(iqrs) > 1:
        widest = max(iqrs, key=iqrs.get)
        out.append(
            Claim(
                "fig6_8",
                "hard-2d has the widest spread (mean IQR over epsilon) of gradient clipping across "
                "chains",
                "in the narrow banana there is very large variance in clipping",
                f"hard-2d {iqrs['hard-2d']:.3f}; widest {widest} {iqrs[widest]:.3f}",
                "",
                widest == "hard-2d",
                _ORDERINGS,
                settings=where,
            )
        )
    return out


def _minibatch_claims(summary, have, ran, chains, at: Run) -> list[Claim]:
    """Fig 6.3 and 6.5: the minibatch algorithms against the full-data ones (Section 6.3)."""
    eps = at.ours["epsilons"]
    out = []
    for model in ("easy-2d", "easy-10d"):
        for a in ("mdpps", "mdppa"):
            if not _present(have, model, [a, *_FULL_DATA], eps):
                continue
            k, m = _beats(summary, model, a, _FULL_DATA, eps)
            out.append(
                Claim(
                    "fig6_3",
                    f"{model}: median MMD of {a} above the best full-data algorithm's at a "
                    "majority of epsilons",
                    "in the non-tempered models the minibatch algorithms are not very useful",
                    f"{m - k} of {m} epsilons",
                    f"medians of {chains} chains",
                    m - k > m / 2,
                    "raisa2021-minibatch-and-barker",
                    settings=_mmd_panel(at, model),
                )
            )
    if _present(have, "easy-10d", ["barker", *_FULL_DATA], eps):
        k, m = _beats(summary, "easy-10d", "barker", _FULL_DATA, eps, reduce=np.max)
        out.append(
            Claim(
                "fig6_3",
                "easy-10d: median MMD of DP Barker below at least one full-data algorithm's at a "
                "majority of epsilons",
                "... with the exception of DP Barker in 10 dimensions",
                f"{k} of {m} epsilons",
                f"medians of {chains} chains",
                k > m / 2,
                "raisa2021-dp-barker-in-10-dimensions",
                settings=_mmd_panel(at, "easy-10d"),
            )
        )
    runs = {a: _clip_runs(summary, have, [(m, a) for m in BANANA_MODELS], eps) for a in ALGOS_ALL}
    others = np.concatenate([v for a, v in runs.items() if a != "barker"])
    if others.size and runs["barker"].size:
        ran_algos = [a for a in ALGOS_ALL if runs[a].size]
        where = _panels(at, BANANA_MODELS, ran) + at("algorithms", algorithms=ran_algos)
        out.append(
            _low_clipping(
                "fig6_5",
                "flat and tempered bananas: share of runs of the five other algorithms with less "
                "than 10% of ratios clipped at least 0.9",
                "almost all runs had less than 10% clipping",
                others,
                where,
            )
        )
        # two groups of runs (unpaired): the pooled two-proportion z test
        heavy, n_b = int(np.sum(runs["barker"] >= 0.1)), runs["barker"].size
        rest = int(np.sum(others >= 0.1))
        z, p = pooled_z(heavy, n_b, rest, others.size)
        shares = _share(heavy, n_b), _share(rest, others.size)
        out.append(
            Claim(
                "fig6_5",
                "DP Barker: share of runs with at least 10% of ratios clipped above the others' "
                "(pooled two-proportion z test, p < 0.05)",
                "the exception of DP Barker, as adjusting its clip bound is not possible",
                f"{shares[0][0]} vs {shares[1][0]}",
                f"{shares[0][1]} vs {shares[1][1]}; z = {z:.1f}, p = {p:.2g}",
                bool(z > 0 and p < 0.05),
                "raisa2021-minibatch-and-barker",
                settings=where,
            )
        )
    return out


def health_claims(summary, keys, at: Run, health: dict) -> list[Claim]:
    """Per algorithm, the one diagnostics row (:func:`~dpinfer.studies.scorecard.health_claim`):
    a setting counts as one unit, flagged when any parameter's R-hat or bulk ESS over its chains
    fails ``health``."""
    groups, ran = {}, {}
    for key in keys:
        model, algo, eps = key.split("|")
        rhat, ess = (np.atleast_1d(summary[f"{key}/{k}"])[None, :] for k in ("rhat", "ess"))
        groups.setdefault(algo, []).append((f"{model}, eps={float(eps):g}", rhat, ess))
        ran.setdefault(algo, set()).add(model)
    return [
        health_claim(
            "fig6_3" if algo in ("mdpps", "mdppa", "barker") else "fig6_4",
            f"{algo}: every setting's chains pass R-hat and bulk ESS (not reported by the thesis)",
            "(not reported)",
            groups[algo],
            health,
            "raisa2021-convergence",
            _panels(at, _ALGO_MODELS[algo], ran[algo], circle="circle" in ran[algo]),
        )
        for algo in sorted(groups)
    ]
