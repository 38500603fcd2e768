"""Chapter-5 aggregation: chunks -> one summary per part, and the metrics figures and claims share.

- :func:`summarise_synthetic`: every synthetic chunk -> ``synthetic_summary.npz`` (per setting:
  u, cover, mmd, cpu, iterations; the panels ``vs_n`` and ``vs_eps``) and the KS / coverage /
  MMD^2 table ``synthetic_summary.{csv,md}``.
- :func:`summarise_cirrhosis`: every cirrhosis chunk -> ``cirrhosis_summary.npz`` (PIT values
  per epsilon, method, split and test point).
- :func:`setting_metric`, :func:`covered`, :func:`predictive_coverage`: KS of u, coverage and
  MMD^2 per (method, parameter) of one setting; coverage of central predictive intervals at any
  level from PIT values.
"""

from __future__ import annotations

import math

import numpy as np

from ...diagnostics import ks_critical_value, ks_uniform, unconverged
from ...grid import fmt_eps
from ...io import load_npz, save_npz, write_table
from ...proportions import wilson_interval
from ..nig_methods import LABELS, NOISE_AWARE
from .grid import ch5_setting

PARAMS = ("theta_0 (slope)", "theta_1 (intercept)", "sigma^2")


# ----------------------------------------------------------------------------- synthetic
def summarise_synthetic(input, output, *, vs_n, vs_eps, trials: int, health: dict) -> None:
    """Merge the chunks of every (n, epsilon) setting of the two panels (``vs_n``: pairs at the
    vs-n epsilon, ``vs_eps``: pairs at the vs-epsilon n) into one npz and a summary table with
    the calibration, coverage, MMD^2 and the convergence diagnostics (largest R-hat, smallest
    bulk ESS and the number of trials ``health`` flags) of every (method, parameter)."""
    settings = sorted({(int(n), float(e)) for n, e in list(vs_n) + list(vs_eps)})
    by_setting = {}
    for path in input.chunks:
        d = load_npz(path)
        by_setting.setdefault(ch5_setting(int(d["n"]), float(d["eps"])), []).append(d)
    arrays = {
        "vs_n": np.array(vs_n, dtype=float),
        "vs_eps": np.array(vs_eps, dtype=float),
        "trials": np.array(int(trials)),
    }
    rows = []
    for n, eps in settings:
        key = ch5_setting(n, eps)
        parts = sorted(by_setting[key], key=lambda d: int(d["reps"][0]))
        methods = [str(m) for m in parts[0]["methods"]]
        arrays[f"{key}__methods"] = np.array(methods)
        for name in ("u", "cover", "mmd", "cpu", "rhat", "ess"):
            arrays[f"{key}__{name}"] = np.concatenate([p[name] for p in parts], axis=1)
        arrays[f"{key}__iterations"] = parts[0]["iterations"]
        arrays["credible_level"] = parts[0]["credible_level"]
        u, cover, mmd, rhat, ess = (
            arrays[f"{key}__{name}"] for name in ("u", "cover", "mmd", "rhat", "ess")
        )
        bad = unconverged(rhat, ess, **health)
        for i, m in enumerate(methods):
            for p, pname in enumerate(PARAMS):
                lo, hi = wilson_interval(int(cover[i, :, p].sum()), cover.shape[1])
                rows.append(
                    {
                        "n": n,
                        "epsilon": fmt_eps(eps),
                        "method": LABELS[m],
                        "parameter": pname,
                        "ks": ks_uniform(u[i, :, p]),
                        "coverage95": float(cover[i, :, p].mean()),
                        "coverage95_lo": lo,
                        "coverage95_hi": hi,
                        "mmd2": float(mmd[i, :, p].mean()) if m != "non_private" else 0.0,
                        "rhat_max": float(rhat[i, :, p].max()),
                        "ess_min": float(ess[i, :, p].min()),
                        "flagged": int(bad[i, :, p].sum()) if m in NOISE_AWARE else 0,
                    }
                )
    save_npz(output.summary, **arrays)
    write_table(
        output.csv,
        output.md,
        rows,
        list(rows[0]),  # the columns, in the order of a row's keys
        title="bernstein2020 Ch. 5 synthetic: calibration KS, 95% coverage, mean MMD^2 to "
        "Non-Private, convergence diagnostics",
        notes=f"{trials} trials per setting; KS critical value (alpha = 0.05) "
        f"{ks_critical_value(trials):.3f}; binomial sd of a 95% coverage "
        f"{math.sqrt(0.95 * 0.05 / trials):.3f}; coverage95_lo, coverage95_hi: the observed "
        "coverage's 95% Wilson interval. rhat_max: largest rank-normalised R-hat over the "
        f"trials (across the pooled chains); ess_min: smallest bulk ESS of a trial's pooled draws "
        "(Non-Private and Naive draw independently: ESS = draws, never flagged); flagged: trials "
        f"with R-hat > {health['max_rhat']} or ESS < {health['min_ess']:g}. "
        f"The thesis gives these only as plots (Figs 5.4, 5.6, 5.7).",
        digits=4,
    )


def panel(summary: dict, name: str) -> list[tuple[int, float]]:
    """The (n, epsilon) settings of panel ``vs_n`` or ``vs_eps`` in plotting order."""
    return [(int(n), float(e)) for n, e in summary[name]]


def both_panels(summary: dict) -> list[tuple[int, float]]:
    """The (n, epsilon) settings of either panel, sorted, each once."""
    return sorted(set(panel(summary, "vs_n")) | set(panel(summary, "vs_eps")))


def common_setting(summary: dict) -> tuple[int, float]:
    """The setting both panels share: n of the vs-epsilon panel at the vs-n epsilon (Fig 5.5)."""
    both = set(panel(summary, "vs_n")) & set(panel(summary, "vs_eps"))
    if len(both) != 1:
        raise ValueError(f"the two panels must share exactly one setting, got {sorted(both)}")
    return both.pop()


def setting_methods(summary: dict, n: int, eps: float) -> list[str]:
    return [str(m) for m in summary[f"{ch5_setting(n, eps)}__methods"]]


def setting_metric(summary: dict, n: int, eps: float, metric: str) -> tuple[list[str], np.ndarray]:
    """(methods, values (methods, 3)) of one setting: ``ks`` (KS of u against U(0, 1)),
    ``coverage`` (of the central credible interval), ``mmd`` (mean MMD^2 to Non-Private)."""
    key = ch5_setting(n, eps)
    methods = setting_methods(summary, n, eps)
    if metric == "ks":
        u = summary[f"{key}__u"]
        return methods, np.array(
            [[ks_uniform(u[i, :, p]) for p in range(3)] for i in range(len(methods))]
        )
    if metric == "coverage":
        return methods, summary[f"{key}__cover"].mean(axis=1)
    if metric == "mmd":
        return methods, summary[f"{key}__mmd"].mean(axis=1)
    raise ValueError(f"unknown metric {metric!r}")


# ----------------------------------------------------------------------------- cirrhosis
def summarise_cirrhosis(input, output, *, epsilons) -> None:
    """Merge the cirrhosis chunks into ``pit`` (epsilons, methods, splits, test points) and the
    per-split diagnostics ``rhat`` and ``ess`` (epsilons, methods, splits, 3)."""
    by_eps = {}
    for path in input.chunks:
        d = load_npz(path)
        by_eps.setdefault(float(d["eps"]), []).append(d)
    eps_sorted = sorted(float(e) for e in epsilons)
    merged = {"pit": [], "rhat": [], "ess": []}
    for e in eps_sorted:
        parts = sorted(by_eps[e], key=lambda d: int(d["splits"][0]))
        for name, per_eps in merged.items():
            per_eps.append(np.concatenate([p[name] for p in parts], axis=1))
    save_npz(
        output.summary,
        methods=np.array([str(m) for m in parts[0]["methods"]]),
        epsilons=np.array(eps_sorted),
        **{name: np.array(per_eps) for name, per_eps in merged.items()},
        n_total=np.array(int(parts[0]["n_total"])),
    )


def covered(pit, level: float) -> np.ndarray:
    """Whether each test value lies inside the central ``level`` predictive interval: its PIT
    value lies in [(1 - level)/2, (1 + level)/2]."""
    pit = np.asarray(pit, dtype=float)
    return ((1.0 - level) / 2.0 <= pit) & (pit <= (1.0 + level) / 2.0)


def predictive_hits(summary: dict, level: float) -> np.ndarray:
    """(epsilons, methods, test points) whether each pooled test point is inside the central
    ``level`` predictive interval."""
    pit = summary["pit"]
    return covered(pit, level).reshape(pit.shape[0], pit.shape[1], -1)


def predictive_coverage(summary: dict, level: float) -> np.ndarray:
    """(epsilons, methods) coverage of the central ``level`` intervals, pooled over splits and
    test points."""
    return predictive_hits(summary, level).mean(axis=2)
