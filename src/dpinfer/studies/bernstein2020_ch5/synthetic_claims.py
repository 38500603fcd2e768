"""The thesis's statements on the synthetic regression (Sec. 5.3.2, Figs 5.4-5.8) as claims.

Calibration (KS of the posterior quantiles of the truth), coverage of the credible intervals,
utility (MMD^2 to Non-Private) and run time, per method and panel; :mod:`.paper` gathers them
into the chapter's claims. A KS claim over several tests (settings x parameters) uses the
Bonferroni-corrected 5% critical value; coverage claims allow 3 binomial standard errors at the
nominal level (the SE under the null, never zero) and report the observed coverage with its 95%
Wilson interval.

Non-Private is not judged on the synthetic data: its draws are iid from the exact conjugate
posterior of the priors that generated the data, so its calibration and coverage hold by theorem
and a row on them could only fail by chance (docs/deviations.md, "Ch. 5: Non-Private holds by
theorem on the synthetic data"). Its values stay in the summary table and the figures.
"""

from __future__ import annotations

import math

import numpy as np

from ...diagnostics import binomial_se, ks_critical_value
from ...grid import fmt_eps
from ...proportions import format_proportion
from ..document_settings import Run, document
from ..nig_specs import nig_chain_spec
from ..scorecard import Claim, Setting
from .grid import ch5_setting
from .summarise import (
    LABELS,
    NOISE_AWARE,
    PARAMS,
    both_panels,
    common_setting,
    panel,
    setting_methods,
    setting_metric,
)

__all__ = [
    "THESIS",
    "Settings",
    "union",
    "setting_label",
    "calibration_claims",
    "coverage_claims",
    "utility_claims",
    "runtime_claims",
]

# headings of docs/deviations.md (GitHub anchors) that explain a claim that does not hold
PRIOR_MOMENTS = "gibbs-ss-prior-uses-the-prior-predictive-moments-at-every-n"
SLOPE = "gibbs-ss-over-disperses-the-slope-at-small-n"
NOISY = "gibbs-ss-noisy-is-far-from-calibrated"

_PANELS = {"vs_n": "vs-n panel", "vs_eps": "vs-epsilon panel"}

THESIS = document("bernstein2020_ch5")  # the thesis's settings (settings.yaml)
# the methods whose chains use the data prior (the cirrhosis data prior is a free choice)
USES_DATA_PRIOR = ("mcmc_ind", "gibbs_ss_prior", "gibbs_ss_update")


def union(*groups) -> tuple[Setting, ...]:
    """The settings of several groups, each name once (first occurrence)."""
    out, seen = [], set()
    for group in groups:
        for s in group:
            if s.name not in seen:
                seen.add(s.name)
                out.append(s)
    return tuple(out)


class Settings(Run):
    """The thesis's settings (settings.yaml) beside this run's (``ours``: key -> value, the
    panels' read from the synthetic summary ``syn``), called with keys or groups; :meth:`chain`
    gives a method's chain lengths from its chain specs (``section``: the config's chapter-5
    section), :meth:`panel` a panel's grid."""

    def __init__(self, syn: dict, section: dict, ours: dict):
        self.syn, self.section = syn, section
        super().__init__(THESIS, {**ours, **self._grid("vs_n"), **self._grid("vs_eps")})

    def chain(self, method: str, ns=()) -> tuple[Setting, ...]:
        """A method's chain lengths at the n values ``ns`` (Sec. 5.3.1): pooled kept draws and
        burn-in per chain, at least the thesis's (Gibbs-SS: a longer burn-in from n = 1000 on);
        Gibbs-SS-Noisy also its moments."""
        if method in ("non_private", "naive"):
            return self("conjugate_draws")
        if method == "mcmc_ind":
            return self("mcmc_ind")
        large, out = THESIS.paper("gibbs_large_n"), []
        for where, members, burnin in (
            (f"n < {large}", [n for n in ns if n < large], "gibbs_burnin"),
            (f"n >= {large}", [n for n in ns if n >= large], "gibbs_burnin_large_n"),
        ):
            if members:
                specs = [nig_chain_spec(method, self.section, int(n)) for n in members]
                kept = min(int(s["keep"]) * int(s["chains"]) for s in specs)
                out.append(self.setting("gibbs_keep", kept, where=where))
                out.append(self.setting(burnin, min(int(s["burnin"]) for s in specs), where=where))
        return tuple(out) + (self("noisy_moments") if method == "gibbs_ss_noisy" else ())

    def pairs(self, name: str, method: str | None = None) -> list[tuple[int, float]]:
        """The (n, epsilon) settings of panel ``name`` (at which ``method`` ran, when given)."""
        return [
            (n, e)
            for n, e in panel(self.syn, name)
            if method is None or method in setting_methods(self.syn, n, e)
        ]

    def _grid(self, name: str, method: str | None = None) -> dict:
        pairs = self.pairs(name, method)
        if name == "vs_n":  # MCMC-Ind stops below n = 1000
            grid = "mcmc_ind_n_values" if method == "mcmc_ind" else "n_values"
            return {grid: [n for n, _ in pairs], "eps_vs_n": pairs[0][1] if pairs else None}
        return {
            "n_vs_eps": pairs[0][0] if pairs else None,
            "epsilons_vs_eps": [e for _, e in pairs],
        }

    def panel(self, name: str, method: str | None = None) -> tuple[Setting, ...]:
        """The grid of panel ``name`` (of ``method``'s runs, when given)."""
        ours = self._grid(name, method)
        return self(*ours, **ours)

    def panels(self, method: str) -> tuple[Setting, ...]:
        """The grids of both panels of ``method``'s runs."""
        return self.panel("vs_n", method) + self.panel("vs_eps", method)

    def data_prior_of(self, method: str) -> tuple[Setting, ...]:
        return self("cirrhosis_data_prior") if method in USES_DATA_PRIOR else ()


def setting_label(n, eps, p=None) -> str:
    """An (n, epsilon) setting, and parameter ``p`` when given, as a claim's text names it."""
    return f"n={int(n)}, eps={fmt_eps(eps)}" + ("" if p is None else f", {PARAMS[p].split(' ')[0]}")


def _explain(method: str, failures) -> str:
    """The deviation entry behind a failed calibration or coverage claim of a noise-aware method
    (failures: (n, eps, parameter) triples), or "" when none documents it."""
    if method == "gibbs_ss_noisy":
        return NOISY
    if method in ("gibbs_ss_prior", "gibbs_ss_update") and failures:
        if method == "gibbs_ss_prior" and any(n >= 100 for n, _, _ in failures):
            return PRIOR_MOMENTS
        if all(p == 0 for _, _, p in failures):
            return SLOPE
    return ""


# ----------------------------------------------------------------------------- claims
def _panel_settings(at: Settings, method: str, name: str) -> tuple[Setting, ...]:
    """What a calibration or coverage statement over one panel of one method refers to."""
    ns = [n for n, _ in at.pairs(name, method)]
    return union(at.chain(method, ns), at("trials"), at("model"), at.panel(name, method))


def _panel_cells(syn: dict, metric: str):
    """Per noise-aware method and panel at which it ran: (method, panel name, its description,
    cells), the cells (value, n, epsilon, parameter) of its ``metric``
    (:func:`.summarise.setting_metric`) for every parameter and setting of the panel at which it
    ran (MCMC-Ind is skipped above max_n)."""
    for method in NOISE_AWARE:
        for name, desc in _PANELS.items():
            cells = []
            for n, e in panel(syn, name):
                methods, values = setting_metric(syn, n, e, metric)
                if method in methods:
                    cells += [(values[methods.index(method)][p], n, e, p) for p in range(3)]
            if cells:
                yield method, name, desc, cells


def calibration_claims(syn: dict, at: Settings) -> list[Claim]:
    trials = int(syn["trials"])
    out = []
    for method, name, desc, ks in _panel_cells(syn, "ks"):
        crit = ks_critical_value(trials, 0.05 / len(ks))
        worst = max(ks)
        failures = [cell[1:] for cell in ks if cell[0] >= crit]
        out.append(
            Claim(
                "fig5_4",
                f"{LABELS[method]}: KS of the posterior quantiles of the truth below the 5% "
                f"critical value (Bonferroni over the {len(ks)} tests) for every parameter "
                f"and setting of the {desc}",
                "at or near Non-Private's calibration",
                f"max KS {worst[0]:.3f} ({setting_label(*worst[1:])})",
                f"critical value {crit:.3f}",
                not failures,
                _explain(method, failures),
                _panel_settings(at, method, name),
                headline=method in ("mcmc_ind", "gibbs_ss_update") and name == "vs_n",
            )
        )
    small = [panel(syn, "vs_n")[0], min(panel(syn, "vs_eps"), key=lambda p: p[1])]
    crit = ks_critical_value(trials, 0.05)
    naive = [
        float(np.max(dict(zip(*setting_metric(syn, n, e, "ks"))).get("naive"))) for n, e in small
    ]
    # the two settings, by their keys (settings.yaml)
    smallest = dict(
        zip(("smallest_n", "eps_vs_n", "n_vs_eps", "smallest_eps_vs_eps"), small[0] + small[1])
    )
    out.append(
        Claim(
            "fig5_4",
            "Naive: KS above the 5% critical value for some parameter at the smallest n and at the "
            "smallest epsilon",
            "Naive miscalibrated at small n / small epsilon",
            ", ".join(f"max KS {k:.3f} ({setting_label(*s)})" for k, s in zip(naive, small)),
            f"critical value {crit:.3f}",
            all(k > crit for k in naive),
            "",
            union(at.chain("naive"), at("trials", "model"), at(*smallest, **smallest)),
        )
    )
    n0, e0 = common_setting(syn)
    methods, ks = setting_metric(syn, n0, e0, "ks")
    worst = dict(zip(methods, ks.max(axis=1)))
    aware = [m for m in NOISE_AWARE if m in worst]
    out.append(
        Claim(
            "fig5_5",
            f"QQ plot at n={n0}, eps={fmt_eps(e0)}: every noise-aware method's largest KS over the "
            "parameters is below Naive's",
            "noise-aware methods closer to the diagonal than Naive",
            ", ".join(f"{LABELS[m]} {worst[m]:.3f}" for m in ["naive"] + aware),
            f"critical value {ks_critical_value(trials):.3f}",
            all(worst[m] < worst["naive"] for m in aware),
            "",
            union(
                at("trials", "model"),
                at("qq_n", "qq_epsilon", qq_n=n0, qq_epsilon=e0),
                *(at.chain(m, [n0]) for m in ["naive"] + aware),
            ),
        )
    )
    return out


def coverage_claims(syn: dict, at: Settings) -> list[Claim]:
    trials, level = int(syn["trials"]), float(syn["credible_level"])
    se = float(binomial_se(level, trials))
    out = []
    for method, name, desc, cov in _panel_cells(syn, "coverage"):
        worst = max((abs(v - level), v, n, e, p) for v, n, e, p in cov)
        failures = [cell[1:] for cell in cov if abs(cell[0] - level) > 3 * se]
        out.append(
            Claim(
                "fig5_6",
                f"{LABELS[method]}: coverage of the central {100 * level:g}% credible "
                f"intervals within 3 binomial SE of {level:g} for every parameter and setting "
                f"of the {desc}",
                f"near {THESIS.paper('credible_level'):g}",
                f"farthest {format_proportion(round(worst[1] * trials), trials, digits=3)} "
                f"({setting_label(*worst[2:])})",
                f"binomial SE at {level:g}: {se:.3f}",
                not failures,
                _explain(method, failures),
                at("level") + _panel_settings(at, method, name),
            )
        )
    return out


def utility_claims(syn: dict, at: Settings) -> list[Claim]:
    out = []
    for method in NOISE_AWARE:
        diffs = []
        for n, e in both_panels(syn):
            methods = setting_methods(syn, n, e)
            if method not in methods:
                continue
            # (methods, trials): summed over the parameters
            mmd = syn[f"{ch5_setting(n, e)}__mmd"].sum(axis=2)
            d = mmd[methods.index(method)] - mmd[methods.index("naive")]
            diffs.append((float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.size)), n, e))
        if not diffs:  # the method is not in this run's config
            continue
        worst = max(diffs, key=lambda t: t[0] - 3 * t[1])
        out.append(
            Claim(
                "fig5_7",
                f"{LABELS[method]}: mean MMD^2 to Non-Private (summed over the parameters) not "
                "above Naive's by more than 3 SE of the paired difference, in every setting",
                "at least as good utility as Naive",
                f"largest difference to Naive {worst[0]:+.4f} "
                f"({setting_label(worst[2], worst[3])})",
                f"SE {worst[1]:.4f}",
                all(d <= 3 * s for d, s, _, _ in diffs),
                "",
                union(
                    at.chain(method, [n for _, _, n, _ in diffs]),
                    at.chain("naive"),
                    at("trials", "model", "mmd"),
                    at.panels(method),
                ),
            )
        )
    return out


def runtime_claims(syn: dict, at: Settings) -> list[Claim]:
    """Timing claims: only the grid they scale over (the vs-n panel at epsilon = 0.1, Fig 5.8).

    A per-trial time scales with n only once the chain's iterations outweigh the fixed cost of a
    trial, so these rows also compare the chain lengths and trial count with the thesis's: a
    shortened run (smoke scale) times set-up overhead and is not comparable."""
    pairs = panel(syn, "vs_n")
    per_it, per_trial = {}, {}
    for n, e in pairs:
        key = ch5_setting(n, e)
        cpu = syn[f"{key}__cpu"]
        for i, m in enumerate(setting_methods(syn, n, e)):
            se = float(cpu[i].std(ddof=1) / math.sqrt(cpu[i].size)) if cpu[i].size > 1 else 0.0
            per_trial.setdefault(m, []).append((n, float(cpu[i].mean()), se))
            iterations = int(syn[f"{key}__iterations"][i])
            per_it.setdefault(m, []).append((n, float(cpu[i].mean()) / iterations))
    mc = per_trial.get("mcmc_ind", [])
    # Each step up the n grid must exceed 3 SE of the difference of the two trial means.
    grows = len(mc) >= 2 and all(
        b[1] - a[1] > 3 * math.hypot(a[2], b[2]) for a, b in zip(mc, mc[1:])
    )
    gibbs = {
        m: max(t for _, t in v) / min(t for _, t in v)
        for m, v in per_it.items()
        if m.startswith("gibbs_ss")
    }
    gibbs_chains = union(*(at.chain(m, [n for n, _ in per_it[m]]) for m in gibbs))
    return [
        Claim(
            "fig5_8",
            "MCMC-Ind: mean CPU seconds per trial increase with n (vs-n panel; each step by more "
            "than 3 SE)",
            "grows with n",
            ", ".join(f"n={n}: {t:.3g} s" for n, t, _ in mc),
            ", ".join(f"SE {se:.2g} s" for _, _, se in mc),
            grows,
            "",
            union(
                at.panel("vs_n", "mcmc_ind"),
                at.chain("mcmc_ind", [n for n, _, _ in mc]),
                at("trials"),
            ),
        ),
        Claim(
            "fig5_8",
            "Gibbs-SS (each flavour): CPU seconds per iteration do not grow with n (largest over "
            "the vs-n panel at most twice the smallest)",
            "constant in n",
            ", ".join(f"{LABELS[m]} ratio {r:.2f}" for m, r in gibbs.items()),
            "",
            bool(gibbs) and all(r <= 2.0 for r in gibbs.values()),
            "",
            union(at.panel("vs_n"), gibbs_chains, at("trials")),
        ),
    ]
