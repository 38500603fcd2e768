"""Comparison study, scorecard rows. No source document compares these methods, so the "paper"
column states the expectation each row checks (from the methods' construction), and a row that
fails links to docs/deviations.md ("Comparison study") where the reason is discussed.

Each row's target is the study output it is about. Rows of targets ``cost`` and
``ess_per_second`` are about measured time (they differ between runs, as the runtime rows of
the other studies); every other row is byte-reproducible.

The expectations were formed for our paper-scale config (``config/config.yaml``; settings.yaml
names each setting's config key and a test holds them equal), so each row records the settings
its outcome depends on (:func:`paper_settings`) with that config's values as the reference: the
(n, epsilon) grid it ranges over, the trial counts and chain lengths (at least), the problem's
model, the credible level and the thresholds of the health check and the recommendation rule. A
run at other settings (the smoke scale, an edited config) gets "not comparable" rows, never a
verdict.

A coverage or share of trials a row reports carries its 95% Wilson interval; a test against the
nominal level uses the binomial SE at that level (the null's, never zero). The exact sampler's
draws matching the closed-form posterior hold by theorem, so they are a test
(``tests/test_comparison.py``), not a row.
"""

from __future__ import annotations

import numpy as np

from ...diagnostics import ks_critical_value
from ...grid import fmt_eps
from ...io import load_npz
from ...plotting.methods import method_label
from ...proportions import format_proportion
from ..document_settings import document
from ..scorecard import Claim, Setting, write_claims
from .problems import PARAMETERS

__all__ = ["claims", "paper_settings"]

DEVIATION = "comparison-study"
# the recommendation row's own entry (its class and the measurement behind it)
NONE_QUALIFIES = "comparison-no-method-qualifies-at-three-regression-settings"
EXPECTED = "expected by construction (no source document)"
STUDY = document("comparison")  # the paper-scale settings the expectations were formed at


def paper_settings(s: dict, problems: dict, *, credible_level, health, recommend):
    """The paper-scale settings (settings.yaml) beside this run's: a function of setting keys or
    groups (and ``problem``) giving their :class:`Setting` tuple. Each setting is read at its
    ``config`` path from this run's blocks (``problems``: each problem run's) and thresholds; the
    trial counts and a problem's (n, epsilon) grid from the summary ``s``."""
    cfg = {
        **problems,
        "credible_level": float(credible_level),
        "health": {k: float(v) for k, v in health.items()},
        "recommend": {k: float(v) for k, v in recommend.items()},
    }
    ours = STUDY.config_values(cfg)
    ours["problems"] = sorted(problems)
    for key in ("trials", "accuracy_trials"):
        ours[key] = int(s[key].min()) if s[key].size else 0

    def of(*names: str, problem: str | None = None) -> tuple[Setting, ...]:
        """The settings of ``names``; with ``problem``, its grids and "{problem}" labels (none
        when the problem is not run)."""
        run, fields = STUDY.at(ours), {}
        if problem is not None:
            if problem not in problems:
                return ()
            rows = s["problem"] == problem
            ns = sorted({int(v) for v in s["n"][rows]})
            eps = sorted({float(v) for v in s["epsilon"][rows]})
            grids = {
                "n_grid": ns,
                "epsilon_grid": eps,
                "smallest_epsilon": eps[0] if eps else None,
                "n_up_to_100": [n for n in ns if n <= 100],
            }
            run, fields = STUDY.at({**ours, **grids}), {"problem": problem}
        return tuple(run.setting(k, **fields) for name in names for k in STUDY.keys(name))

    return of


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


def _at(s, i) -> str:
    """Summary row ``i``'s setting, as rows name it."""
    return f"n={int(s['n'][i])}, eps={fmt_eps(s['epsilon'][i])}"


def _all(s, idx, ok, statement, target, settings=(), mc_error="", diagnostics=False) -> Claim:
    """One row: ``ok`` holds at every setting of ``idx``; ours names the settings where it fails.
    ``settings``: what the expectation refers to (:func:`paper_settings`); ``mc_error``: the
    numbers behind the verdict with their errors; ``diagnostics``: a row about the chains'
    diagnostics, not about a method."""
    if idx.size == 0:
        return Claim(target, statement, EXPECTED, "not run", "", None, DEVIATION)
    failing = idx[~ok]
    ours = (
        f"fails at {failing.size} of {idx.size}: {'; '.join(_at(s, i) for i in failing)}"
        if failing.size
        else f"holds at all {idx.size} settings"
    )
    holds = not failing.size
    return Claim(
        target,
        statement,
        EXPECTED,
        ours,
        mc_error,
        holds,
        DEVIATION,
        settings,
        diagnostics=diagnostics,
    )


def _shares(s, idx, key: str, trials: str) -> str:
    """``key`` (a share of ``trials``) at every setting of ``idx`` with its Wilson interval."""
    return "; ".join(
        f"{_at(s, i)}: "
        + format_proportion(round(float(s[key][i]) * int(s[trials][i])), int(s[trials][i]))
        for i in idx
    )


def claims(input, output, *, credible_level, health, recommend, problems) -> None:
    """Rule step: the study's checkable expectations -> claims CSV. ``problems``: the config
    block of each problem run; ``health``, ``recommend``: the summary's health check and
    recommendation rule (its thresholds are the rows' too); with ``credible_level`` what each
    row's settings are read from."""
    s = load_npz(input.summary)
    max_mean_error, max_flagged = recommend["max_mean_error"], recommend["max_flagged"]
    of = paper_settings(
        s, problems, credible_level=credible_level, health=health, recommend=recommend
    )

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
            of(
                "grid",
                "binomial_model",
                "binomial_mcmc",
                "trials",
                "accuracy_trials",
                "max_mean_error",
                problem="binomial",
            ),
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
                of(
                    "smallest_epsilon",
                    "n_grid",
                    f"{problem}_model",
                    f"{problem}_iid",
                    "trials",
                    "level",
                    problem=problem,
                ),
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
            of(
                "n_up_to_100",
                "epsilon_grid",
                "regression_model",
                "regression_mcmc_ind",
                "trials",
                problem="regression",
            ),
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
            of(
                "grid",
                "regression_model",
                "regression_reference",
                "accuracy_trials",
                "health",
                "max_flagged",
                problem="regression",
            ),
            mc_error="flagged " + _shares(s, i, "ref_flagged", "accuracy_trials"),
            diagnostics=True,
        )
    )
    out += _falls_with_n(s, "binomial", "record_wise", "cost", of)
    out += _falls_with_n(s, "regression", "mcmc_ind", "ess_per_second", of)
    out.append(_qualify_claim(s, of, problems))
    write_claims(output.claims, out)


def _falls_with_n(s, problem: str, method: str, target: str, of) -> list[Claim]:
    """ESS per CPU second of a record-wise method at the smallest n over that at the largest
    (medians over the epsilons): each sweep visits every record, so it should fall with n. A
    timing claim: its only setting is the n grid it scales over."""
    i = _where(s, problem, method)
    ns = s["n"][i]
    if len(set(ns)) < 2:
        return []
    lo, hi = int(ns.min()), int(ns.max())
    ratio = float(np.median(s["ess_per_s"][i[ns == lo]]) / np.median(s["ess_per_s"][i[ns == hi]]))
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
            of("n_grid", problem=problem),
        )
    ]


def _qualify_claim(s, of, problems) -> Claim:
    """Deterministic: whether some private method passes the rule's checks (metrics' checks_failed);
    it depends on every problem's grid, model, methods and chains, the trial counts, the health
    check and the rule."""
    keys = [(str(p), int(n), float(e)) for p, n, e in zip(s["problem"], s["n"], s["epsilon"])]
    total = len(set(keys))
    none = sorted(set(keys) - {key for key, ok in zip(keys, s["qualifies"]) if ok})
    at = "; ".join(f"{p} n={n}, eps={fmt_eps(e)}" for p, n, e in none)
    ours = f"{total - len(none)} of {total}; none at {at}" if none else f"all {total} settings"
    where = of("problems")
    for p in problems:
        where += of(f"{p}_all", problem=p)
    where += of("trials", "accuracy_trials", "health", "rule")
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
