"""What bernstein2020 prints for Chapter 4 (Section 4.4, Appendix B.5), and its checkable claims.

The thesis gives no numbers in its Chapter-4 figures; it prints the settings (settings.yaml)
and states qualitative results (Section 4.4.3, Appendix B.5). :func:`claims` turns each into a
computed check on our summaries (``summary.npz``, ``traces.npz``) and writes
``results/bernstein2020/claims/bernstein2020_ch4.csv``. KS checks use the one-sample KS critical
value for M trials; a claim over several settings ("every (n, epsilon)") uses the familywise
(Bonferroni) 5% value so that a calibrated method passes with probability about 0.95. Every share
of trials a row reports (flagged chains, U in the tails) carries its 95% Wilson interval.

The thesis's "Non-private perfectly calibrated" is not a row: its draws are iid from the exact
conjugate posterior of the prior that generated the data, so its calibration holds by theorem
and a row on it could only fail by chance (docs/deviations.md, "Ch. 4: rows that hold by
theorem"). Its KS values stay in ``calibration_utility.md`` and in fig4_3's row, for reference.

Every claim carries the settings its statement refers to (settings.yaml): the chain
lengths, the calibration trials, the (n, epsilon) grid or cell, the model (prior, sensitivity,
truncation), OPS, the MMD, the fig4_3 and fig B.1 settings and the diagnostics' thresholds. A run
at other settings (the smoke scale, an edited config) gets "not comparable" rows, never a verdict
against the thesis.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ...diagnostics import ks_critical_value, ks_uniform, passing_share
from ...grid import fmt_eps
from ...io import load_npz
from ...proportions import format_proportion
from ..companions import from_chains, second_verdicts
from ..document_settings import document
from ..scorecard import Claim, health_claim, write_claims
from .run import methods_for
from .summarise import summary_key

__all__ = ["CONVERGENCE_ITERATIONS", "claims"]

THESIS = document("bernstein2020_ch4")  # the thesis's settings (settings.yaml)
# Fig 4.4: utility for the binomial and multinomial models only
UTILITY_MODELS = ("binomial", "multinomial")
# Our reading of "the samples quickly converge" (B.5): within the first 10% of the 500 shown
CONVERGENCE_ITERATIONS = 50
_MODEL_TITLES = {
    "binomial": "binomial",
    "multinomial": "multinomial (p_1)",
    "exponential": "exponential",
}


def _fmt(x: float) -> str:
    return f"{x:.3f}"


def _setting(n, eps) -> str:
    return f"n={int(n)}, eps={fmt_eps(eps)}"


def _u(d, model, n, eps, method) -> np.ndarray:
    return d[summary_key(model, n, eps, f"u_{method}")]


def _settings_claims(at, section: dict) -> list[Claim]:
    """The settings the thesis prints, "as printed": each row carries the setting it is about (a
    count at least the printed one; a run below it is not comparable); a count above it or a
    documented departure fails with its deviation."""
    exponential, mass = section["exponential"], THESIS.paper("exponential_truncation_mass")
    thin = int(exponential["thin"])
    paper_chain = (THESIS.paper("iterations"), THESIS.paper("burnin"))
    chain = (int(section["iterations"]), int(section["burnin"]))

    def printed(target, statement, keys, show) -> Claim:
        """This run's settings ``keys`` beside the thesis's, both shown by ``show``."""
        paper, ours = [THESIS.paper(k) for k in keys], [at.ours[k] for k in keys]
        return Claim(target, statement, show(*paper), show(*ours), "", ours == paper, "", at(*keys))

    def after(kept, burnin) -> str:
        return f"{kept} after {burnin}"

    return [
        printed(
            "fig4_2",
            "Gibbs chains (binomial, multinomial): kept iterations after burn-in, as printed",
            ("iterations", "burnin"),
            after,
        ),
        Claim(
            "fig4_2",
            "Gibbs chain (exponential): kept iterations after burn-in, as printed (no thinning)",
            after(*paper_chain),
            f"{chain[0]} stored after {chain[1]}, every {thin}th of {sum(chain) * thin}",
            "",
            chain == paper_chain and thin == 1,
            "ch-4-exponential-chain-thinned-by-20",
            settings=at("chain"),
        ),
        printed(
            "fig4_2",
            "epsilon grid of Figs 4.2 and 4.4",
            ("epsilons",),
            lambda grid: ", ".join(map(fmt_eps, grid)),
        ),
        printed(
            "fig4_2",
            "OPS: released samples (each at epsilon / samples) and support [a0, 1 - a0]",
            ("ops_samples", "ops_support_lower"),
            "{} samples, a0 = {}".format,
        ),
        # the truncation rule (of the true model, as the code; ours: of the prior predictive) is the
        # row's subject and a documented departure: only the printed mass is its setting
        Claim(
            "fig4_2",
            "exponential truncation bounds keep the middle 95% of individuals of the true model",
            f"central {mass:.0%} (of the true model)",
            f"central {float(exponential['truncation_mass']):.0%} of the "
            f"{exponential['truncation'].replace('_', ' ')}",
            "",
            float(exponential["truncation_mass"]) == mass and exponential["truncation"] == "oracle",
            "ch-4-truncation-bounds-from-the-prior-predictive",
            settings=at("exponential_truncation_mass"),
        ),
        printed("fig4_3", "setting of the empirical CDFs", ("ecdf_n", "ecdf_epsilon"), _setting),
        printed(
            "figB_1",
            "trace setting: iterations shown, n, epsilon",
            ("trace_n", "trace_epsilon", "trace_iterations"),
            lambda n, eps, iterations: f"{iterations} iterations, {_setting(n, eps)}",
        ),
    ]


# ----------------------------------------------------------------------------- fig 4.2
def _ks(d, model, method, cells) -> list[float]:
    """KS statistic of ``method``'s U in each (n, epsilon) of ``cells``."""
    return [ks_uniform(_u(d, model, n, e, method)) for n, e in cells]


def _critical(crit: float, M: int) -> str:
    return f"critical value {_fmt(crit)} (M = {M})"


def _calibrated_everywhere(d, model, grid, at) -> Claim:
    """Noise-aware Gibbs calibrated in every (n, epsilon) of ``grid``."""
    ks = _ks(d, model, "gibbs", grid)
    M = _u(d, model, *grid[0], "gibbs").size
    crit = ks_critical_value(M, 0.05 / len(grid))
    worst = int(np.argmax(ks))
    above = sum(k > ks_critical_value(M) for k in ks)
    return Claim(
        "fig4_2",
        f"Noise-aware Gibbs calibrated for the {_MODEL_TITLES[model]} model in every (n, epsilon): "
        f"KS of U below the familywise 5% critical value (Bonferroni over {len(grid)} settings)",
        "calibrated in all settings",
        f"max KS {_fmt(ks[worst])} at {_setting(*grid[worst])}; {above}/{len(grid)} above "
        f"the per-setting 5% value {_fmt(ks_critical_value(M))}",
        _critical(crit, M),
        bool(max(ks) < crit),
        "",
        at("chain", "trials", model, "grid"),
        headline=True,
    )


def _fig4_2_claims(d, models, n_grid, epsilons, at) -> list[Claim]:
    grid = [(n, e) for e in epsilons for n in n_grid]
    eps_min = min(epsilons)
    lo, hi = (min(n_grid), eps_min), (max(n_grid), max(epsilons))
    out = []
    for model in models:
        out += from_chains([_calibrated_everywhere(d, model, grid, at)])
        M = _u(d, model, n_grid[0], eps_min, "naive").size
        crit = ks_critical_value(M)
        ks = _ks(d, model, "naive", [(n, eps_min) for n in n_grid])
        low = int(np.argmin(ks))
        out.append(
            Claim(
                "fig4_2",
                f"Naive miscalibrated for the {_MODEL_TITLES[model]} model at the smallest epsilon "
                f"({fmt_eps(eps_min)}), every n: KS of U above the 5% critical value",
                "miscalibrated where noise is not negligible",
                f"min KS {_fmt(ks[low])} at n={n_grid[low]}",
                _critical(crit, M),
                bool(min(ks) > crit),
                settings=at("draws", "trials", model, "every_n", "smallest_eps"),
            )
        )
        ks_lo, ks_hi = _ks(d, model, "naive", (lo, hi))
        out.append(
            Claim(
                "fig4_2",
                f"Naive's calibration improves with n and epsilon ({_MODEL_TITLES[model]}): KS at "
                "the largest (n, epsilon) below KS at the smallest by more than the 5% critical "
                "value",
                "well calibrated only with increasing n and epsilon",
                f"{_fmt(ks_hi)} at {_setting(*hi)} vs {_fmt(ks_lo)} at {_setting(*lo)}",
                _critical(crit, M),
                bool(ks_lo - ks_hi > crit),
                settings=at("draws", "trials", model, "grid"),
            )
        )
        if "ops" in methods_for(model):
            ks = _ks(d, model, "ops", grid)
            low = int(np.argmin(ks))
            out.append(
                Claim(
                    "fig4_2",
                    "OPS miscalibrated (over-dispersed) in every (n, epsilon): KS of U above the "
                    "5% critical value",
                    "not calibrated",
                    f"min KS {_fmt(ks[low])} at {_setting(*grid[low])}",
                    _critical(crit, M),
                    bool(min(ks) > crit),
                    settings=at("trials", model, "ops", "grid"),
                )
            )
    return out


# ----------------------------------------------------------------------------- fig 4.3
def _fig4_3_claims(d, models, ecdf, at) -> list[Claim]:
    n, eps = int(ecdf["n"]), float(ecdf["epsilon"])
    out = []
    for model in models:
        u = {m: _u(d, model, n, eps, m) for m in methods_for(model)}
        M = u["gibbs"].size
        crit = ks_critical_value(M)
        ks_g, ks_np = ks_uniform(u["gibbs"]), ks_uniform(u["non_private"])
        where = at("trials", model, "ecdf")
        # Non-private's half of "both perfectly calibrated" holds by theorem (exact draws):
        # judged on Gibbs, Non-private's KS printed for reference
        out += from_chains(
            [
                Claim(
                    "fig4_3",
                    f"Gibbs and Non-private both calibrated ({_MODEL_TITLES[model]}, "
                    f"{_setting(n, eps)}): KS of Gibbs's U below the 5% critical value "
                    "(Non-private's draws are exact, so its half holds by theorem: printed, not "
                    "judged)",
                    "both perfectly calibrated",
                    f"Gibbs {_fmt(ks_g)} (Non-private {_fmt(ks_np)})",
                    _critical(crit, M),
                    bool(ks_g < crit),
                    settings=at("chain") + where,
                )
            ]
        )
        # the test uses the SE under the null (calibrated: p = 0.10), never zero; the observed
        # share is reported with its Wilson interval
        se = math.sqrt(0.1 * 0.9 / M)
        tails = int(np.sum((u["naive"] < 0.05) | (u["naive"] > 0.95)))
        out.append(
            Claim(
                "fig4_3",
                f"Naive puts too much mass near 0 and 1 ({_MODEL_TITLES[model]}): fraction of U in "
                "[0, 0.05) or (0.95, 1] above its calibrated value 0.10 by more than 2 binomial SE "
                "(SE at 0.10)",
                "true parameter in a tail of the naive posterior",
                format_proportion(tails, M),
                f"binomial SE at 0.10: {_fmt(se)} (M = {M})",
                bool(tails / M > 0.1 + 2 * se),
                settings=at("draws") + where,
            )
        )
        if "ops" in u:
            se = math.sqrt(0.25 / M)
            middle = int(np.sum((u["ops"] >= 0.25) & (u["ops"] <= 0.75)))
            out.append(
                Claim(
                    "fig4_3",
                    f"OPS too diffuse ({_MODEL_TITLES[model]}): fraction of U in [0.25, 0.75] "
                    "above its calibrated value 0.5 by more than 2 binomial SE (SE at 0.5)",
                    "true parameter close to the middle of the OPS posterior",
                    format_proportion(middle, M),
                    f"binomial SE at 0.5: {_fmt(se)} (M = {M})",
                    bool(middle / M > 0.5 + 2 * se),
                    settings=where + at("ops"),
                )
            )
    return out


# ----------------------------------------------------------------------------- fig 4.4
def _fig4_4_claims(d, models, n_grid, epsilons, at) -> list[Claim]:
    out = []
    for model in (m for m in models if m in UTILITY_MODELS):
        for eps in epsilons:
            for n in n_grid:
                g = d[summary_key(model, n, eps, "mmd_gibbs")]
                nv = d[summary_key(model, n, eps, "mmd_naive")]
                diff = g - nv
                se = float(diff.std(ddof=1) / math.sqrt(diff.size))
                out.append(
                    Claim(
                        "fig4_4",
                        f"Gibbs utility at least as good as Naive's ({model}, "
                        f"{_setting(n, eps)}): mean MMD^2 to the non-private posterior of "
                        "Gibbs minus Naive's at most 2 SE of the paired difference",
                        "Gibbs MMD^2 <= Naive MMD^2",
                        f"Gibbs {g.mean():.3g} vs Naive {nv.mean():.3g}",
                        f"2 SE {2 * se:.2g} (M = {diff.size})",
                        bool(diff.mean() <= 2 * se),
                        settings=at(
                            "chain", "trials", model, "mmd", "cell", cell_n=n, cell_epsilon=eps
                        ),
                    )
                )
    return from_chains(out)


# ----------------------------------------------------------------------------- fig B.1
def _figB_1_claims(t, at) -> list[Claim]:
    out = []
    for model, name in (("binomial", "theta"), ("exponential", "lambda")):
        tr, truth = t[f"{model}_trace"], t[f"{model}_truth"]
        where = at("trace") + at(model)
        half = tr.shape[1] // 2
        reach, dist, sds = [], [], []
        for k in range(tr.shape[0]):
            kept = tr[k, half:]
            lo, hi = np.quantile(kept, [0.025, 0.975])
            inside = np.flatnonzero((tr[k] >= lo) & (tr[k] <= hi))
            reach.append(int(inside[0]) + 1)
            sds.append(float(kept.std(ddof=1)))
            dist.append(abs(float(kept.mean()) - float(truth[k])) / sds[-1])
        out.append(
            Claim(
                "figB_1",
                f"{model} chains started from the prior reach the posterior within the first "
                f"{CONVERGENCE_ITERATIONS} iterations: first draw inside the central 95% interval "
                "of the chain's second half (the kept part)",
                "samples quickly converge",
                f"latest first entry: iteration {max(reach)} of {tr.shape[1]} "
                f"({tr.shape[0]} chains)",
                f"kept part of {tr.shape[1] - half} draws per chain",
                bool(max(reach) <= CONVERGENCE_ITERATIONS),
                settings=where,
            )
        )
        out.append(
            Claim(
                "figB_1",
                f"{model} chains settle in the vicinity of the true {name}: |kept mean - truth| "
                "below 3 kept-part sd in every chain",
                "vicinity of the true parameter",
                f"max |mean - truth| / sd = {max(dist):.2f}",
                f"kept-part sd {min(sds):.3g}..{max(sds):.3g}",
                bool(max(dist) < 3.0),
                settings=where,
            )
        )
    return out


def _health_claims(d: dict, models, n_grid, epsilons, health: dict, at) -> list[Claim]:
    """One row per model: every trial's noise-aware Gibbs chain passes split-chain R-hat and bulk
    ESS (the thesis reports no diagnostics)."""
    limit = f"R-hat <= {health['max_rhat']}, bulk ESS >= {health['min_ess']:g}"
    return from_chains(
        [
            health_claim(
                "fig4_2",
                f"{model}: every trial's noise-aware Gibbs chain passes the convergence "
                f"diagnostics ({limit})",
                "(the thesis reports no diagnostics)",
                [
                    (
                        _setting(n, e),
                        d[summary_key(model, n, e, "rhat_gibbs")],
                        d[summary_key(model, n, e, "ess_gibbs")],
                    )
                    for n in n_grid
                    for e in epsilons
                ],
                health,
                "ch-4-convergence-diagnostics",
                at("chain", "trials", model, "grid", "health"),
            )
            for model in models
        ]
    )


def claims(input, output, *, section: dict):
    """Rule step: the thesis's Chapter-4 statements against ``summary.npz`` and ``traces.npz``.
    ``section``: the config's chapter-4 section; each setting is read at its ``config`` path
    (settings.yaml), the trials M and the fig B.1 setting from the summaries (what was run). With
    ``input.converged`` (the companion's summary) every claim on the Gibbs chains gets the
    companion's verdict as its second one."""
    d = load_npz(input.summary)
    t = load_npz(input.traces)
    companion = load_npz(input.converged) if getattr(input, "converged", None) else None
    models, converged = section["models"], section["converged"]
    n_grid = [int(n) for n in section["n_grid"]]
    epsilons = [float(e) for e in section["epsilons"]]
    ours = THESIS.config_values(section)
    ours.update(
        # every cell has the same M (the summary step checks)
        trials=_u(d, models[0], n_grid[0], epsilons[0], "gibbs").size,
        n_grid=sorted(n_grid),
        epsilons=sorted(epsilons),
        smallest_epsilon=min(epsilons),
        trace_n=int(t["n"]),
        trace_epsilon=float(t["epsilon"]),
        trace_iterations=t["binomial_trace"].shape[1],
        trace_chains=t["binomial_trace"].shape[0],
    )
    at = THESIS.at(ours)

    def computed(d, health):
        out = _settings_claims(at, section)
        out += _fig4_2_claims(d, models, n_grid, epsilons, at)
        out += _fig4_3_claims(d, models, section["ecdf"], at)
        out += _fig4_4_claims(d, models, n_grid, epsilons, at)
        out += _figB_1_claims(t, at)
        return out + _health_claims(d, models, n_grid, epsilons, health, at)

    out = computed(d, section["health"])
    if companion is None:  # switched off: the rows on Gibbs chains say their companion did not run
        twins = None
        note = "the converged companion is switched off (chapter4.converged.enabled)"
    else:  # the same statements on the companion's Gibbs arrays, every other array the same
        twins = computed(dict(d, **companion), converged["health"])
        note = _companion_note(companion, models, n_grid, epsilons, converged)
    out = second_verdicts(out, twins, note)
    # a deviation explains a difference: claims that hold name none
    write_claims(
        output.claims, [c if not c.holds else dataclasses.replace(c, deviation="") for c in out]
    )


def _companion_note(comp: dict, models, n_grid, epsilons, converged: dict) -> str:
    """The companion's chains and its worst cell's share of trials that pass the diagnostics."""
    health = converged["health"]
    shares = {
        (m, n, e): passing_share(
            comp[summary_key(m, n, e, "rhat_gibbs")],
            comp[summary_key(m, n, e, "ess_gibbs")],
            health,
        )
        for m in models
        for n in n_grid
        for e in epsilons
    }
    worst = min(shares, key=shares.get)
    trials = comp[summary_key(*worst, "rhat_gibbs")].size
    keep = ", ".join(f"{m} {converged['keep'][m]}" for m in models)
    return (
        f"{converged['chains']} chains per trial, {converged['burnin']} burn-in, kept {keep} (the "
        "lengths a pilot chose so that the chains pass: the diagnostics rows' second verdicts "
        "are a check of that choice, not a conclusion about the method); trials passing R-hat "
        f"<= {health['max_rhat']} and ESS >= {health['min_ess']:g}: "
        f"{format_proportion(round(shares[worst] * trials), trials, digits=3)} in the worst cell "
        f"({worst[0]}, {_setting(*worst[1:])}; target {health['min_passing']})"
    )
