"""Comparison study figures: accuracy vs epsilon, accuracy vs n, effective samples per CPU second vs
n.

One row per problem, methods as lines in their one look (:mod:`dpinfer.plotting.methods`).
A point whose trials fail the health check (R-hat or bulk ESS) more often than the
recommendation rule allows is drawn hollow: its number stands for fewer effective draws than
it seems to. Errors are in reference sds, on log axes (the exact sampler's error is its Monte
Carlo error, about 100 times below a biased method's).
"""

from __future__ import annotations

import numpy as np

from ...grid import fmt_eps
from ...io import load_npz
from ...plotting import legend_below, log_axis, method_style, save_figure, subplots

__all__ = ["plot_methods", "accuracy_vs_eps", "accuracy_vs_n", "ess_per_second"]

PROBLEM_TITLES = {"binomial": "binomial count", "regression": "linear regression"}
ACCURACY = (
    ("mean_err", "error of the mean\n(reference sds)"),
    ("sd_err", "relative error of the sd"),
    ("ks", "KS of posterior quantiles"),
)
FLOOR = 1e-4  # plotted values below this sit on the axis floor (log scale)


def _rows(summary: dict, problem: str, **fixed) -> dict:
    """Method -> indices of the summary rows of ``problem`` with the ``fixed`` n or epsilon."""
    keep = summary["problem"] == problem
    for key, value in fixed.items():
        keep &= np.isclose(summary[key], value)
    out = {}
    for i in np.flatnonzero(keep):
        out.setdefault(str(summary["method"][i]), []).append(i)
    return out


def plot_methods(ax, summary, rows, x_key, y_key, max_flagged, ylabel, **ylabel_kw):
    """One line per method (``rows``: method -> summary row indices) of ``y_key`` against
    ``x_key`` ("epsilon" or "n"), floored at FLOOR, on log axes with a tick at every x and
    ``ylabel``; points flagged more often than ``max_flagged`` are drawn hollow."""
    for method, idx in rows.items():
        idx = sorted(idx, key=lambda i: summary[x_key][i])
        x = summary[x_key][idx]
        y = np.maximum(summary[y_key][idx], FLOOR)
        style = method_style(method)
        ax.plot(x, y, **style)
        bad = summary["flagged"][idx] > max_flagged
        if bad.any():
            ax.plot(
                x[bad], y[bad], ls="none", marker=style["marker"], color=style["color"], mfc="white"
            )
    xs = sorted({float(summary[x_key][i]) for idx in rows.values() for i in idx})
    log_axis(ax, "x", xs, [fmt_eps(v) if x_key == "epsilon" else f"{int(v)}" for v in xs])
    log_axis(ax, "y")
    ax.set_xlabel(x_key)
    ax.set_ylabel(ylabel, **ylabel_kw)


def _accuracy(input, output, x_key: str, fixed_key: str, fixed: float, max_flagged: float):
    summary = load_npz(input.summary)
    problems = [p for p in PROBLEM_TITLES if (summary["problem"] == p).any()]
    fig, axes = subplots(len(problems), len(ACCURACY), width=7.5, height=2.3, squeeze=False)
    for r, problem in enumerate(problems):
        rows = _rows(summary, problem, **{fixed_key: fixed})
        for c, (key, ylabel) in enumerate(ACCURACY):
            ax = axes[r, c]
            plot_methods(ax, summary, rows, x_key, key, max_flagged, ylabel, fontsize=7)
            if key == "ks":  # the rule's critical value (the same at every setting of a problem)
                idx = [i for ids in rows.values() for i in ids]
                ax.axhline(float(summary["ks_critical"][idx].max()), color="0.5", ls=":", lw=0.8)
            ax.set_title(PROBLEM_TITLES[problem], fontsize=8)
    fixed_text = f"n = {int(fixed)}" if fixed_key == "n" else f"epsilon = {fmt_eps(fixed)}"
    fig.suptitle(
        f"Accuracy against the reference ({fixed_text}; hollow: flagged by R-hat/ESS; dotted: KS "
        "critical)",
        fontsize=9,
    )
    legend_below(fig, axes[0, 0], fontsize=7)
    save_figure(fig, output.pdf, output.png)


def accuracy_vs_eps(input, output, *, n, max_flagged) -> None:
    """Error of the mean, of the sd, and KS calibration vs epsilon at n = ``n``."""
    _accuracy(input, output, "epsilon", "n", float(n), float(max_flagged))


def accuracy_vs_n(input, output, *, epsilon, max_flagged) -> None:
    """Error of the mean, of the sd, and KS calibration vs n at ``epsilon``."""
    _accuracy(input, output, "n", "epsilon", float(epsilon), float(max_flagged))


def ess_per_second(input, output, *, epsilon, max_flagged) -> None:
    """Bulk ESS of the slowest parameter per CPU second vs n (log-log) at ``epsilon``."""
    summary = load_npz(input.summary)
    problems = [p for p in PROBLEM_TITLES if (summary["problem"] == p).any()]
    fig, axes = subplots(1, len(problems), width=7.0, height=2.8, squeeze=False)
    for c, problem in enumerate(problems):
        ax = axes[0, c]
        rows = _rows(summary, problem, epsilon=float(epsilon))
        plot_methods(ax, summary, rows, "n", "ess_per_s", float(max_flagged), "ESS per CPU second")
        ax.set_title(PROBLEM_TITLES[problem], fontsize=8)
    fig.suptitle(
        f"Cost: effective samples per CPU second (epsilon = {fmt_eps(epsilon)}; hollow: flagged)",
        fontsize=9,
    )
    legend_below(fig, axes[0, 0], fontsize=7)
    save_figure(fig, output.pdf, output.png)
