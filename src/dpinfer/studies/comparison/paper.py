"""Comparison study, scorecard rows. No source document compares these methods, so the "paper"
column states the expectation each row checks (from the methods' construction), and a row that
fails links to docs/deviations.md ("Comparison study") where the reason is discussed.

Each row's target is the study output it is about. Rows of targets ``cost`` and
``ess_per_second`` are about measured time (they differ between runs, as the runtime rows of
the other studies); every other row is byte-reproducible.
"""

from __future__ import annotations

import math

import numpy as np

from ...diagnostics import ks_critical_value
from ...grid import fmt_eps
from ...io import load_npz
from ...plotting.methods import method_label
from ..scorecard import Claim, write_claims
from .problems import PARAMETERS

__all__ = ["claims", "exact_mean_error_bound"]

DEVIATION = "comparison-study"
EXPECTED = "expected by construction (no source document)"


def exact_mean_error_bound(draws: int, trials: int, z: float = 3.0) -> float:
    """Bound on the mean over ``trials`` of |mean of ``draws`` iid posterior draws - exact mean| in
    posterior sds: each term is |N(0, 1/draws)|, mean sqrt(2/pi)/sqrt(draws) and sd
    sqrt(1 - 2/pi)/sqrt(draws); ``z`` standard errors of the average above its mean."""
    return (math.sqrt(2.0 / math.pi) + z * math.sqrt(1.0 - 2.0 / math.pi) / math.sqrt(trials)) / math.sqrt(draws)


def _where(s: dict, problem: str, method: str) -> np.ndarray:
    return np.flatnonzero((s["problem"] == problem) & (s["method"] == method))


def _familywise_ks(s, idx, problem: str) -> float:
    """The 5% KS critical value Bonferroni over the settings of ``idx`` and the problem's parameters."""
    if idx.size == 0:
        return 0.0
    return ks_critical_value(int(s["trials"][idx].min()), 0.05 / (idx.size * len(PARAMETERS[problem])))


def _settings(s, idx) -> str:
    return "; ".join(f"n={int(s['n'][i])}, eps={fmt_eps(s['epsilon'][i])}" for i in idx) or "none"


def _all(s, idx, ok, statement, target, paper=EXPECTED) -> Claim:
    """One row: ``ok`` holds at every setting of ``idx``; ours names the settings where it fails."""
    if idx.size == 0:
        return Claim(target, statement, paper, "not run", "", None, DEVIATION)
    failing = idx[~ok]
    ours = f"holds at all {idx.size} settings" if failing.size == 0 else \
        f"fails at {failing.size} of {idx.size}: {_settings(s, failing)}"
    return Claim(target, statement, paper, ours, "", bool(failing.size == 0), DEVIATION)


def claims(input, output, *, max_mean_error, max_flagged, exact_draws) -> None:
    """Rule step: the study's checkable expectations -> claims CSV."""
    s = load_npz(input.summary)
    out = []
    i = _where(s, "binomial", "exact")
    if i.size:
        bound = exact_mean_error_bound(int(exact_draws), int(s["accuracy_trials"][i].min()))
        out.append(_all(s, i, s["mean_err"][i] <= bound,
                        f"binomial: exact draws match the closed-form posterior mean within {bound:.3f} reference "
                        f"sds, their Monte Carlo error ({int(exact_draws)} draws, 3 SE), every setting", "accuracy_vs_eps"))
    i = _where(s, "binomial", "record_wise")
    crit = _familywise_ks(s, i, "binomial")
    out.append(_all(s, i, (s["mean_err"][i] <= max_mean_error) & (s["sd_err"][i] <= max_mean_error)
                    & (s["ks"][i] <= crit),
                    f"binomial: {method_label('record_wise')} matches the exact posterior (mean and sd errors "
                    f"<= {max_mean_error:g} reference sds) and is calibrated (KS <= {crit:.3f}, the 5% critical "
                    "value Bonferroni over settings and parameters), every setting", "accuracy_vs_n"))
    for problem in ("binomial", "regression"):
        i = _where(s, problem, "naive")
        smallest = i[np.isclose(s["epsilon"][i], s["epsilon"][i].min())] if i.size else i
        short = s["coverage"][smallest] < float(s["level"]) - 3.0 * np.maximum(s["coverage_se"][smallest], 1e-3)
        out.append(_all(s, smallest, short,
                        f"{problem}: Naive's {float(s['level']):g} intervals under-cover (more than 3 binomial SE "
                        "below nominal) at the smallest epsilon, every n", "metrics"))
    i = _where(s, "regression", "mcmc_ind")
    small = i[s["n"][i] <= 100] if i.size else i
    crit = _familywise_ks(s, small, "regression")
    out.append(_all(s, small, s["ks"][small] <= crit,
                    f"regression: MCMC-Ind (Algorithm 1, exact target) is calibrated (KS <= {crit:.3f}, familywise "
                    "5%), every setting with n <= 100", "metrics"))
    i = _where(s, "regression", "non_private")
    out.append(_all(s, i, s["ref_flagged"][i] <= max_flagged,
                    "regression: the long MCMC-Ind reference passes R-hat/ESS on at least "
                    f"{1 - max_flagged:g} of the accuracy trials, every setting", "metrics"))
    out += _cost_claims(s)
    out.append(_qualify_claim(s))
    write_claims(output.claims, out)


def _falls_with_n(s, problem: str, method: str, target: str) -> list[Claim]:
    """ESS per CPU second of a record-wise method at the smallest n over that at the largest
    (medians over the epsilons): each sweep visits every record, so it should fall with n."""
    i = _where(s, problem, method)
    if i.size == 0 or len({int(s["n"][k]) for k in i}) < 2:
        return []
    lo, hi = int(s["n"][i].min()), int(s["n"][i].max())
    ratio = float(np.median(s["ess_per_s"][i[s["n"][i] == lo]]) / np.median(s["ess_per_s"][i[s["n"][i] == hi]]))
    return [Claim(target, f"{problem}: {method_label(method)} visits every record per sweep, so its ESS per CPU "
                  f"second falls with n (median over epsilons, n={lo} over n={hi})", "falls with n",
                  f"{ratio:.1f}x", "", ratio > 1.0, DEVIATION)]


def _cost_claims(s) -> list[Claim]:
    return _falls_with_n(s, "binomial", "record_wise", "cost") + _falls_with_n(s, "regression", "mcmc_ind",
                                                                               "ess_per_second")


def _qualify_claim(s) -> Claim:
    """Deterministic: whether some private method passes the rule's checks (metrics' checks_failed)."""
    settings = sorted({(str(p), int(n), float(e)) for p, n, e in zip(s["problem"], s["n"], s["epsilon"])})
    none = [f"{p} n={n}, eps={fmt_eps(e)}" for p, n, e in settings
            if not any(s["qualifies"][k] for k in np.flatnonzero((s["problem"] == p) & (s["n"] == n)
                                                                  & np.isclose(s["epsilon"], e)))]
    ours = f"all {len(settings)} settings" if not none else f"{len(settings) - len(none)} of {len(settings)}; none at {'; '.join(none)}"
    return Claim("recommended", "some private method passes every check of the recommendation rule (R-hat/ESS, "
                 "calibration, accuracy), every setting", EXPECTED, ours, "", not none, DEVIATION)
