"""Case-study figures, one function per target: fig5_10 to fig5_16.

Every figure reads ``summary.npz`` (and the state for the scatter plots); error bars are 2
standard errors over the kept tracts. Tracts are named by their index in the synthetic state and
their size, since the thesis's county-tract ids belong to data that are not public.
"""

from __future__ import annotations

import numpy as np

from ...grid import fmt_eps
from ...io import load_npz
from ...plotting import (
    COLORS,
    legend_below,
    log_axis,
    method_color,
    method_style,
    save_figure,
    subplots,
)
from .summarise import coverage_hits, decile_confusion, eps_index, mae
from .tracts import tract_records

__all__ = [
    "fig5_10",
    "fig5_11",
    "fig5_12",
    "fig5_13",
    "fig5_14",
    "fig5_15",
    "fig5_16",
]


def _save_with_legend_below(fig, ax, output, **legend) -> None:
    """One figure-level legend of ``ax``'s lines under the panels, then save."""
    legend_below(fig, ax, fontsize=7, **legend)
    save_figure(fig, output.pdf, output.png)


def _contrast_tracts(s: dict, min_size: int, max_size: int) -> tuple[int, int]:
    """Two kept tracts of min_size..max_size individuals (all kept tracts if none are): those at
    the 10th and 90th percentile of Non-Private's estimate (low vs high mobility, Fig 5.10)."""
    pool = np.flatnonzero((s["sizes"] >= min_size) & (s["sizes"] <= max_size))
    pool = pool if pool.size >= 2 else np.arange(s["tracts"].size)
    order = pool[np.argsort(s["np_point"][pool], kind="stable")]
    return int(order[int(0.1 * (order.size - 1))]), int(order[int(round(0.9 * (order.size - 1)))])


def _example_tracts(s: dict, sizes) -> list[int]:
    """Per requested size, the kept tract closest to it (the smallest index on ties); distinct."""
    chosen = []
    for target in sizes:
        gap = np.abs(s["sizes"].astype(float) - target)
        gap[chosen] = np.inf
        chosen.append(int(np.argmin(gap)))
    return chosen


def _tract_name(s: dict, j: int) -> str:
    return f"tract {int(s['tracts'][j])} (n = {int(s['sizes'][j])})"


def fig5_10(input, output, *, settings: dict) -> None:
    """Scatter of kir vs pir for a low- and a high-mobility tract."""
    s, st = load_npz(input.summary), load_npz(input.state)
    fig, axes = subplots(1, 2, width=6.0, height=2.8, sharey=True)
    for ax, j in zip(axes, _contrast_tracts(s, settings["min_size"], settings["max_size"])):
        x, y = tract_records(st, int(s["tracts"][j]))
        ax.scatter(x, y, s=6, color=COLORS[0], alpha=0.7)
        ax.set(
            xlim=(0, 1), ylim=(0, 1), xlabel="parental income rank (pir)", title=_tract_name(s, j)
        )
    axes[0].set_ylabel("adult income rank (kir)")
    save_figure(fig, output.pdf, output.png)


def fig5_11(input, output, *, settings: dict) -> None:
    """Predictive 90% intervals and point estimates at pir = x0, epsilon = headline, over the
    scatter of three tracts of different sizes."""
    s, st = load_npz(input.summary), load_npz(input.state)
    e = eps_index(s, settings["headline_epsilon"])
    x0 = float(settings["pir"])
    methods = ["non_private"] + [str(m) for m in s["methods"]]
    tracts = _example_tracts(s, settings["sizes"])
    fig, axes = subplots(1, len(tracts), width=7.5, height=2.9, sharey=True, squeeze=False)
    offsets = np.linspace(-0.06, 0.06, len(methods))
    for ax, j in zip(axes[0], tracts):
        x, y = tract_records(st, int(s["tracts"][j]))
        ax.scatter(x, y, s=5, color="0.6", alpha=0.6, label="records")
        for off, m in zip(offsets, methods):
            if m == "non_private":
                pt, lo, hi = s["np_point"][j], s["np_lo"][j, -1], s["np_hi"][j, -1]
            else:
                i = list(s["methods"]).index(m)
                pt, lo, hi = s["point"][e, i, j], s["lo"][e, i, j, -1], s["hi"][e, i, j, -1]
            ax.errorbar(
                [x0 + off],
                [pt],
                yerr=[[pt - lo], [hi - pt]],
                capsize=2,
                **dict(method_style(m), linestyle="none", markersize=4),
            )
        ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="pir", title=_tract_name(s, j))
    axes[0, 0].set_ylabel("kir")
    _save_with_legend_below(fig, axes[0, 0], output)


def _update_panels(input):
    """The summary, Gibbs-SS-Update's index in it, and a figure of one panel per epsilon."""
    s = load_npz(input.summary)
    E = s["eps"].size
    fig, axes = subplots(1, E, width=min(2.0 * E, 9.0), height=2.4, sharey=True, squeeze=False)
    return s, list(s["methods"]).index("gibbs_ss_update"), fig, axes


def fig5_12(input, output, *, settings: dict) -> None:
    """Gibbs-SS-Update point estimates and intervals vs Non-Private's, one panel per epsilon."""
    s, i, fig, axes = _update_panels(input)
    ref = s["np_point"]
    order = np.argsort(ref, kind="stable")
    last = s["levels"].size - 1
    for e, ax in enumerate(axes[0]):
        for lev in range(last, -1, -1):  # widest first, in the lightest grey
            ax.vlines(
                ref[order],
                s["lo"][e, i, order, lev],
                s["hi"][e, i, order, lev],
                linewidth=0.3 if lev == last else 0.6,
                color="0.78" if lev == last else "0.45",
                label=f"{100 * s['levels'][lev]:g}% interval",
            )
        ax.scatter(
            ref,
            s["point"][e, i],
            s=1.5,
            color=method_color("gibbs_ss_update"),
            label="point estimate",
            zorder=3,
        )
        ax.plot([0, 1], [0, 1], color="k", linewidth=0.7, linestyle="--", label="y = x")
        ax.set(
            xlim=(0, 1),
            ylim=(-0.1, 1.1),
            xlabel="Non-Private estimate",
            title=f"epsilon = {fmt_eps(s['eps'][e])}",
        )
    axes[0, 0].set_ylabel("Gibbs-SS-Update")
    _save_with_legend_below(fig, axes[0, 0], output, markerscale=4)


def fig5_13(input, output, *, settings: dict) -> None:
    """Coverage of Non-Private's point estimate by the private intervals vs epsilon."""
    s = load_npz(input.summary)
    L, T = s["levels"].size, s["tracts"].size
    fig, axes = subplots(1, L, width=3.0 * L, height=2.6, squeeze=False)
    for lev, ax in enumerate(axes[0]):
        for i, m in enumerate(str(v) for v in s["methods"]):
            cov = np.array([coverage_hits(s, e, i).mean(axis=0)[lev] for e in range(s["eps"].size)])
            ax.errorbar(
                s["eps"], cov, yerr=2 * np.sqrt(cov * (1 - cov) / T), capsize=2, **method_style(m)
            )
        ax.axhline(s["levels"][lev], color="k", linewidth=0.7, linestyle="--", label="nominal")
        ax.set(
            ylim=(0, 1.02),
            xlabel="epsilon",
            ylabel="coverage of\nNon-Private estimate",
            title=f"{100 * s['levels'][lev]:g}% intervals",
        )
        log_axis(ax, "x", s["eps"], [fmt_eps(e) for e in s["eps"]])
    _save_with_legend_below(fig, axes[0, 0], output)


def fig5_14(input, output, *, settings: dict) -> None:
    """Mean absolute error of the private point estimates against Non-Private's vs epsilon."""
    s = load_npz(input.summary)
    fig, ax = subplots(1, 1, width=4.2, height=3.0)
    for i, m in enumerate([str(v) for v in s["methods"]] + ["oi"]):
        mean, se = np.array([mae(s, e, "oi" if m == "oi" else i) for e in range(s["eps"].size)]).T
        ax.errorbar(s["eps"], mean, yerr=2 * se, capsize=2, **method_style(m))
    ax.set(xlabel="epsilon", ylabel="MAE against Non-Private")
    log_axis(ax, "x", s["eps"], [fmt_eps(e) for e in s["eps"]])
    log_axis(ax, "y")
    _save_with_legend_below(fig, ax, output, ncol=3)


def fig5_15(input, output, *, settings: dict) -> None:
    """Gibbs-SS-Update's residual against Non-Private vs tract size, one panel per epsilon."""
    s, i, fig, axes = _update_panels(input)
    for e, ax in enumerate(axes[0]):
        ax.scatter(
            s["sizes"],
            s["point"][e, i] - s["np_point"],
            s=1.5,
            color=method_color("gibbs_ss_update"),
        )
        ax.axhline(0.0, color="k", linewidth=0.7)
        ax.set(xlabel="tract size", title=f"epsilon = {fmt_eps(s['eps'][e])}")
        log_axis(ax, "x")
    axes[0, 0].set_ylabel("residual (Update - Non-Private)")
    save_figure(fig, output.pdf, output.png)


def fig5_16(input, output, *, settings: dict) -> None:
    """Decile confusion matrix of Gibbs-SS-Update vs Non-Private at the headline epsilon."""
    import seaborn as sns

    s = load_npz(input.summary)
    e = eps_index(s, settings["headline_epsilon"])
    i = list(s["methods"]).index("gibbs_ss_update")
    counts = decile_confusion(s["np_point"], s["point"][e, i])
    fig, ax = subplots(1, 1, width=4.6, height=4.0)
    sns.heatmap(
        counts,
        annot=True,
        fmt="d",
        cmap="Blues",
        cbar=False,
        ax=ax,
        annot_kws={"fontsize": 6},
        xticklabels=range(1, 11),
        yticklabels=range(1, 11),
    )
    ax.set(
        xlabel="Gibbs-SS-Update decile",
        ylabel="Non-Private decile",
        title=f"epsilon = {fmt_eps(s['eps'][e])}",
    )
    save_figure(fig, output.pdf, output.png)
