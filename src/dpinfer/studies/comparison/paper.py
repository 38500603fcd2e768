"""Comparison study, scorecard rows. No source document compares these methods, so the "paper"
column states the expectation each row checks (from the methods' construction), and a row that
fails links to docs/deviations.md ("Comparison study") where the reason is discussed.

Each row's target is the study output it is about. Rows of targets ``cost`` and
``ess_per_second`` are about measured time (they differ between runs, as the runtime rows of
the other studies); every other row is byte-reproducible.

The expectations were formed for our paper-scale config (``config/config.yaml``; a test holds
:data:`PAPER_SCALE` equal to it), so each row records the settings its outcome depends on
(:func:`paper_settings`) with that config's values as the reference: the (n, epsilon) grid it
ranges over, the trial counts and chain lengths (at least), the problem's model, the credible
level and the thresholds of the health check and the recommendation rule. A run at other
settings (the smoke scale, an edited config) gets "not comparable" rows, never a verdict.

A coverage or share of trials a row reports carries its 95% Wilson interval; a test against the
nominal level uses the binomial SE at that level (the null's, never zero). The exact sampler's
draws matching the closed-form posterior hold by theorem, so they are a test
(``tests/test_comparison.py``), not a row.
"""

from __future__ import annotations

import math

import numpy as np

from ...diagnostics import ks_critical_value
from ...grid import fmt_eps
from ...io import load_npz
from ...plotting.methods import method_label
from ...proportions import format_proportion
from ..scorecard import Claim, Setting, health_settings, setting, write_claims
from .problems import PARAMETERS

__all__ = ["claims", "exact_mean_error_bound", "paper_settings", "PAPER_SCALE", "OUR_STUDY"]

DEVIATION = "comparison-study"
# the recommendation row's own entry (its class and the measurement behind it)
NONE_QUALIFIES = "comparison-no-method-qualifies-at-three-regression-settings"
EXPECTED = "expected by construction (no source document)"

# The settings the expectations were formed at: our paper-scale config (no document has any).
OUR_STUDY = "at paper scale (our study)"
PAPER_SCALE = {
    "problems": ["binomial", "regression"],
    "n_values": [10, 100, 1000],
    "epsilons": [0.1, 1.0, 10.0],
    "replicates": 100,
    "accuracy_trials": 20,
    "credible_level": 0.9,
    "health": {"max_rhat": 1.01, "min_ess": 400},
    "recommend": {"max_flagged": 0.1, "max_mean_error": 0.2, "max_sd_error": 0.2, "ks_alpha": 0.01},
    "binomial": {
        "methods": ["non_private", "naive", "exact", "gibbs", "record_wise"],
        "prior": [2.0, 2.0],
        "sensitivity": 1,
        "draws": 4000,
        "burnin": 500,
        "keep": 1000,
        "chains": 4,
    },
    "regression": {
        "methods": [
            "non_private",
            "naive",
            "mcmc_ind",
            "gibbs_ss_noisy",
            "gibbs_ss_prior",
            "gibbs_ss_update",
        ],
        "prior": {
            "mu0": [0.0, 0.0],
            "lambda0_diag": [0.02631578947368421, 0.02631578947368421],
            "a0": 20.0,
            "b0": 0.5,
        },
        "data_prior": {"m0": 0.0, "kappa": 1.0, "psi": 1.0, "nu": 50.0},
        "bounds": [-1.0, 1.0],
        "conjugate_draws": 4000,
        "gibbs": {
            "burnin": 1000,
            "keep": 4000,
            "chains": 4,
            "collapsed_moves": 2,
            "noisy_moments": "released",
        },
        "mcmc_ind": {"burnin": 500, "keep": 1000, "chains": 4},
        "reference": {
            "burnin": 1000,
            "keep": 10000,
            "chains": 4,
            "noncentred_moves": 50,
            "longer": [30000, 60000],
        },
    },
}
# counts: more only shrinks the Monte Carlo error (judged "at least"); the rest must be equal
_COUNTS = ("draws", "burnin", "keep", "chains", "conjugate_draws")


def _block(name: str, paper: dict, ours: dict) -> tuple[Setting, ...]:
    """One config block's settings beside the paper-scale ones, key by key (nested chain specs
    flattened: "regression gibbs burnin")."""
    out = []
    for key, value in paper.items():
        if isinstance(value, dict) and key not in ("prior", "data_prior"):
            out += _block(f"{name} {key}", value, ours.get(key, {}))
            continue
        out.append(
            setting(
                f"{name} {key.replace('_', ' ')}",
                value,
                ours.get(key),
                at_least=key in _COUNTS,
                source=OUR_STUDY,
            )
        )
    return tuple(out)


def paper_settings(
    s: dict, *, credible_level: float, health: dict, recommend: dict, problems: dict
) -> dict:
    """The paper-scale settings beside this run's, by kind (each a tuple of :class:`Setting`):

    - per problem ``p``: ``grid[p]`` (its n and epsilon grids, read from the summary),
      ``n_grid[p]``, ``smallest_eps[p]``, ``n_up_to_100[p]``; ``model[p]`` (prior, sensitivity or
      data prior and bounds); ``chains[p][method]`` (the draws of ``method``'s chains, and of
      the regression ``reference``); ``methods[p]`` (the methods compared);
    - ``trials`` (calibration trials per setting), ``accuracy_trials``, ``level``, ``health``,
      ``rule`` (the recommendation rule's thresholds), ``max_mean_error``, ``max_flagged``, and
      ``problems`` (the problems run).
    ``problems`` maps each problem run to its config block."""

    def ours_grid(p, key):
        rows = s["problem"] == p
        return sorted({float(v) if key == "epsilon" else int(v) for v in s[key][rows]})

    out = {
        "grid": {},
        "n_grid": {},
        "smallest_eps": {},
        "n_up_to_100": {},
        "model": {},
        "chains": {},
        "methods": {},
    }
    for p, cfg in problems.items():
        ref, ns, eps = PAPER_SCALE[p], ours_grid(p, "n"), ours_grid(p, "epsilon")
        out["methods"][p] = _block(p, {"methods": ref["methods"]}, cfg)
        n_set = setting(f"{p} n grid", PAPER_SCALE["n_values"], ns, source=OUR_STUDY)
        out["n_grid"][p] = (n_set,)
        out["grid"][p] = (
            n_set,
            setting(f"{p} epsilon grid", PAPER_SCALE["epsilons"], eps, source=OUR_STUDY),
        )
        out["smallest_eps"][p] = (
            setting(
                f"{p} smallest epsilon",
                min(PAPER_SCALE["epsilons"]),
                eps[0] if eps else None,
                source=OUR_STUDY,
            ),
        )
        out["n_up_to_100"][p] = (
            setting(
                f"{p} n grid up to 100",
                [n for n in PAPER_SCALE["n_values"] if n <= 100],
                [n for n in ns if n <= 100],
                source=OUR_STUDY,
            ),
        )
        if p == "binomial":
            out["model"][p] = _block(p, {k: ref[k] for k in ("prior", "sensitivity")}, cfg)
            iid = _block(p, {"draws": ref["draws"]}, cfg)
            chain = _block(p, {k: ref[k] for k in ("burnin", "keep", "chains")}, cfg)
            out["chains"][p] = {
                "exact": iid,
                "naive": iid,
                "non_private": iid,
                "gibbs": chain,
                "record_wise": chain,
            }
        else:
            out["model"][p] = _block(p, {k: ref[k] for k in ("prior", "data_prior", "bounds")}, cfg)
            iid = _block(p, {"conjugate_draws": ref["conjugate_draws"]}, cfg)
            gibbs = _block(p, {"gibbs": ref["gibbs"]}, cfg)
            out["chains"][p] = {
                "naive": iid,
                "non_private": iid,
                "mcmc_ind": _block(p, {"mcmc_ind": ref["mcmc_ind"]}, cfg),
                "reference": _block(p, {"reference": ref["reference"]}, cfg),
                "gibbs_ss_noisy": gibbs,
                "gibbs_ss_prior": gibbs,
                "gibbs_ss_update": gibbs,
            }
    trials = int(s["trials"].min()) if s["trials"].size else 0
    acc = int(s["accuracy_trials"].min()) if s["accuracy_trials"].size else 0
    out["trials"] = (
        setting(
            "calibration trials per setting",
            PAPER_SCALE["replicates"],
            trials,
            at_least=True,
            source=OUR_STUDY,
        ),
    )
    out["accuracy_trials"] = (
        setting(
            "accuracy trials per setting",
            PAPER_SCALE["accuracy_trials"],
            acc,
            at_least=True,
            source=OUR_STUDY,
        ),
    )
    out["level"] = (
        setting(
            "credible level", PAPER_SCALE["credible_level"], float(credible_level), source=OUR_STUDY
        ),
    )
    out["health"] = health_settings(PAPER_SCALE["health"], health, OUR_STUDY)
    out["rule"] = tuple(
        setting(
            f"recommendation rule {k.replace('_', ' ')}", v, float(recommend[k]), source=OUR_STUDY
        )
        for k, v in PAPER_SCALE["recommend"].items()
    )
    out["max_mean_error"] = tuple(x for x in out["rule"] if x.name.endswith("max mean error"))
    out["max_flagged"] = tuple(x for x in out["rule"] if x.name.endswith("max flagged"))
    out["problems"] = (
        setting("problems", PAPER_SCALE["problems"], sorted(problems), source=OUR_STUDY),
    )
    return out


def exact_mean_error_bound(draws: int, trials: int, z: float = 3.0) -> float:
    """Bound on the mean over ``trials`` of |mean of ``draws`` iid posterior draws - exact mean| in
    posterior sds: each term is |N(0, 1/draws)|, mean sqrt(2/pi)/sqrt(draws) and sd
    sqrt(1 - 2/pi)/sqrt(draws); ``z`` standard errors of the average above its mean."""
    return (
        math.sqrt(2.0 / math.pi) + z * math.sqrt(1.0 - 2.0 / math.pi) / math.sqrt(trials)
    ) / math.sqrt(draws)


def _where(s: dict, problem: str, method: str) -> np.ndarray:
    return np.flatnonzero((s["problem"] == problem) & (s["method"] == method))


def _familywise_ks(s, idx, problem: str) -> float:
    """The 5% KS critical value Bonferroni over the settings of ``idx`` and the problem's
    parameters."""
    if idx.size == 0:
        return 0.0
    return ks_critical_value(
        int(s["trials"][idx].min()), 0.05 / (idx.size * len(PARAMETERS[problem]))
    )


def _settings(s, idx) -> str:
    return "; ".join(f"n={int(s['n'][i])}, eps={fmt_eps(s['epsilon'][i])}" for i in idx) or "none"


def _all(
    s, idx, ok, statement, target, settings=(), paper=EXPECTED, mc_error="", diagnostics=False
) -> Claim:
    """One row: ``ok`` holds at every setting of ``idx``; ours names the settings where it fails.
    ``settings``: what the expectation refers to (:func:`paper_settings`); ``mc_error``: the
    numbers behind the verdict with their errors; ``diagnostics``: a row about the chains'
    diagnostics, not about a method."""
    if idx.size == 0:
        return Claim(target, statement, paper, "not run", "", None, DEVIATION)
    failing = idx[~ok]
    ours = (
        f"holds at all {idx.size} settings"
        if failing.size == 0
        else f"fails at {failing.size} of {idx.size}: {_settings(s, failing)}"
    )
    return Claim(
        target,
        statement,
        paper,
        ours,
        mc_error,
        bool(failing.size == 0),
        DEVIATION,
        tuple(settings),
        diagnostics=diagnostics,
    )


def _shares(s, idx, key: str, trials: str) -> str:
    """``key`` (a share of ``trials``) at every setting of ``idx`` with its Wilson interval."""
    return "; ".join(
        f"n={int(s['n'][i])}, eps={fmt_eps(s['epsilon'][i])}: "
        + format_proportion(round(float(s[key][i]) * int(s[trials][i])), int(s[trials][i]))
        for i in idx
    )


def claims(
    input,
    output,
    *,
    max_mean_error,
    max_flagged,
    credible_level,
    health,
    recommend,
    problems,
) -> None:
    """Rule step: the study's checkable expectations -> claims CSV. ``problems``: the config
    block of each problem run; ``health``, ``recommend``: the summary's health check and
    recommendation rule; with ``credible_level`` what each row's settings are read from."""
    s = load_npz(input.summary)
    at = paper_settings(
        s, credible_level=credible_level, health=health, recommend=recommend, problems=problems
    )

    def of(kind, p, *more):
        """Settings of kind ``kind`` of problem ``p`` (empty when the problem is not run)."""
        value = at[kind].get(p, ())
        for key in more:
            value = value.get(key, ()) if isinstance(value, dict) else ()
        return tuple(value)

    out = []
    i = _where(s, "binomial", "record_wise")
    crit = _familywise_ks(s, i, "binomial")
    out.append(
        _all(
            s,
            i,
            (s["mean_err"][i] <= max_mean_error)
            & (s["sd_err"][i] <= max_mean_error)
            & (s["ks"][i] <= crit),
            f"binomial: {method_label('record_wise')} matches the exact posterior (mean and sd "
            f"errors <= {max_mean_error:g} reference sds) and is calibrated (KS <= {crit:.3f}, the "
            "5% critical value Bonferroni over settings and parameters), every setting",
            "accuracy_vs_n",
            of("grid", "binomial")
            + of("model", "binomial")
            + of("chains", "binomial", "record_wise")
            + at["trials"]
            + at["accuracy_trials"]
            + at["max_mean_error"],
        )
    )
    for problem in ("binomial", "regression"):
        i = _where(s, problem, "naive")
        smallest = i[np.isclose(s["epsilon"][i], s["epsilon"][i].min())] if i.size else i
        level = float(s["level"])
        # the SE under the null (coverage at the nominal level): never zero
        null_se = np.sqrt(level * (1 - level) / s["trials"][smallest])
        short = s["coverage"][smallest] < level - 3.0 * null_se
        out.append(
            _all(
                s,
                smallest,
                short,
                f"{problem}: Naive's {level:g} intervals under-cover (more than 3 binomial SE at "
                f"{level:g} below nominal) at the smallest epsilon, every n",
                "metrics",
                of("smallest_eps", problem)
                + of("n_grid", problem)
                + of("model", problem)
                + of("chains", problem, "naive")
                + at["trials"]
                + at["level"],
                mc_error="coverage " + _shares(s, smallest, "coverage", "trials"),
            )
        )
    i = _where(s, "regression", "mcmc_ind")
    small = i[s["n"][i] <= 100] if i.size else i
    crit = _familywise_ks(s, small, "regression")
    out.append(
        _all(
            s,
            small,
            s["ks"][small] <= crit,
            f"regression: MCMC-Ind (Algorithm 1, exact target) is calibrated (KS <= {crit:.3f}, "
            "familywise 5%), every setting with n <= 100",
            "metrics",
            of("n_up_to_100", "regression")
            + of("grid", "regression")[1:]
            + of("model", "regression")
            + of("chains", "regression", "mcmc_ind")
            + at["trials"],
        )
    )
    i = _where(s, "regression", "non_private")
    out.append(
        _all(
            s,
            i,
            s["ref_flagged"][i] <= max_flagged,
            "regression: the long MCMC-Ind reference passes R-hat/ESS on at least "
            f"{1 - max_flagged:g} of the accuracy trials, every setting",
            "metrics",
            of("grid", "regression")
            + of("model", "regression")
            + of("chains", "regression", "reference")
            + at["accuracy_trials"]
            + at["health"]
            + at["max_flagged"],
            mc_error="flagged " + _shares(s, i, "ref_flagged", "accuracy_trials"),
            diagnostics=True,
        )
    )
    out += _cost_claims(s, at)
    out.append(_qualify_claim(s, at))
    write_claims(output.claims, out)


def _falls_with_n(s, problem: str, method: str, target: str, at: dict) -> list[Claim]:
    """ESS per CPU second of a record-wise method at the smallest n over that at the largest
    (medians over the epsilons): each sweep visits every record, so it should fall with n. A
    timing claim: its only setting is the n grid it scales over."""
    i = _where(s, problem, method)
    if i.size == 0 or len({int(s["n"][k]) for k in i}) < 2:
        return []
    lo, hi = int(s["n"][i].min()), int(s["n"][i].max())
    ratio = float(
        np.median(s["ess_per_s"][i[s["n"][i] == lo]])
        / np.median(s["ess_per_s"][i[s["n"][i] == hi]])
    )
    return [
        Claim(
            target,
            f"{problem}: {method_label(method)} visits every record per sweep, so its ESS per CPU "
            f"second falls with n (median over epsilons, n={lo} over n={hi})",
            "falls with n",
            f"{ratio:.1f}x",
            "",
            ratio > 1.0,
            DEVIATION,
            tuple(at["n_grid"].get(problem, ())),
        )
    ]


def _cost_claims(s, at: dict) -> list[Claim]:
    return _falls_with_n(s, "binomial", "record_wise", "cost", at) + _falls_with_n(
        s, "regression", "mcmc_ind", "ess_per_second", at
    )


def _qualify_claim(s, at: dict) -> Claim:
    """Deterministic: whether some private method passes the rule's checks (metrics' checks_failed);
    it depends on every problem's grid, model, methods and chains, the trial counts, the health
    check and the rule."""
    settings = sorted(
        {(str(p), int(n), float(e)) for p, n, e in zip(s["problem"], s["n"], s["epsilon"])}
    )
    none = [
        f"{p} n={n}, eps={fmt_eps(e)}"
        for p, n, e in settings
        if not any(
            s["qualifies"][k]
            for k in np.flatnonzero(
                (s["problem"] == p) & (s["n"] == n) & np.isclose(s["epsilon"], e)
            )
        )
    ]
    ours = (
        f"all {len(settings)} settings"
        if not none
        else f"{len(settings) - len(none)} of {len(settings)}; none at {'; '.join(none)}"
    )
    where = at["problems"]
    for p in at["grid"]:
        where += at["grid"][p] + at["model"][p] + at["methods"][p]
        where += tuple(dict.fromkeys(x for chain in at["chains"][p].values() for x in chain))
    where += at["trials"] + at["accuracy_trials"] + at["health"] + at["rule"]
    return Claim(
        "recommended",
        "some private method passes every check of the recommendation rule (R-hat/ESS, "
        "calibration, accuracy), every setting",
        EXPECTED,
        ours,
        "",
        not none,
        NONE_QUALIFIES,
        where,
        headline=True,
    )
