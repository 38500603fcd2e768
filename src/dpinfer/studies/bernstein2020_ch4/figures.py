"""bernstein2020 Chapter 4 figures, one function per target: fig4_2, fig4_3, fig4_4, figB_1."""

from __future__ import annotations

import math

import numpy as np

from ...diagnostics import ks_critical_value, ks_uniform
from ...grid import fmt_eps
from ...io import load_npz
from .run import MMD_METHODS, methods_for
from .summarise import summary_key

__all__ = ["fig4_2", "fig4_3", "fig4_4", "figB_1"]

MODEL_TITLES = {
    "binomial": "Binomial",
    "multinomial": "Multinomial ($p_1$)",
    "exponential": "Exponential",
}


def fig4_2(input, output, *, models, n_grid, epsilons):
    """Fig. 4.2: KS statistic of the posterior quantiles vs n; rows epsilon, columns models,
    with the KS 5% critical value for the number of trials M."""
    from ...plotting import legend_below, method_style, save_figure, subplots

    d = load_npz(input.summary)
    fig, axes = subplots(
        len(epsilons), len(models), width=7.5, height=2.2, squeeze=False, sharey=True
    )
    for r, eps in enumerate(epsilons):
        for c, model in enumerate(models):
            ax = axes[r][c]
            for m in methods_for(model):
                ks = [ks_uniform(d[summary_key(model, n, eps, f"u_{m}")]) for n in n_grid]
                ax.plot(n_grid, ks, **method_style(m))
            M = d[summary_key(model, n_grid[0], eps, "u_gibbs")].size
            ax.axhline(
                ks_critical_value(M),
                color="0.5",
                lw=0.8,
                ls=(0, (1, 2)),
                label="KS 5% critical value",
            )
            ax.set_xscale("log")
            ax.set_title(f"{MODEL_TITLES[model]}, $\\epsilon$={fmt_eps(eps)}")
            if r == len(epsilons) - 1:
                ax.set_xlabel("number of individuals n")
            if c == 0:
                ax.set_ylabel("KS statistic")
    legend_below(fig, axes[0][0])
    save_figure(fig, output.pdf, output.png)


def fig4_3(input, output, *, models, ecdf):
    """Fig. 4.3: empirical CDFs of the posterior quantiles U at the (n, epsilon) of ``ecdf``."""
    import seaborn as sns

    from ...plotting import legend_below, method_style, save_figure, subplots

    d = load_npz(input.summary)
    n, eps = int(ecdf["n"]), float(ecdf["epsilon"])
    fig, axes = subplots(1, len(models), width=7.5, height=2.6, squeeze=False)
    for c, model in enumerate(models):
        ax = axes[0][c]
        for m in methods_for(model):
            sns.ecdfplot(
                x=d[summary_key(model, n, eps, f"u_{m}")], ax=ax, **method_style(m, marker=False)
            )
        ax.plot([0, 1], [0, 1], color="0.6", lw=0.8)
        ax.set_title(f"{MODEL_TITLES[model]}\nn={n}, $\\epsilon$={fmt_eps(eps)}")
        ax.set_xlabel("quantile of true parameter U")
        ax.set_ylabel("empirical CDF" if c == 0 else "")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    legend_below(fig, axes[0][0])
    save_figure(fig, output.pdf, output.png)


def fig4_4(input, output, *, models, n_grid, epsilons):
    """Fig. 4.4: mean unbiased MMD^2 to the non-private posterior vs n (binomial, multinomial),
    with 2 standard-error bars over the trials, on a linear y axis: the unbiased estimate can dip
    below 0, and a bar that crosses the dotted zero line is shown as it is."""
    from ...plotting import legend_below, method_style, save_figure, subplots

    d = load_npz(input.summary)
    models = [m for m in models if m in ("binomial", "multinomial")]
    fig, axes = subplots(len(epsilons), max(1, len(models)), width=6.5, height=2.2, squeeze=False)
    for r, eps in enumerate(epsilons):
        for c, model in enumerate(models):
            ax = axes[r][c]
            ax.axhline(0.0, color="0.5", lw=0.6, ls=":")
            for m in MMD_METHODS:
                vals = [d[summary_key(model, n, eps, f"mmd_{m}")] for n in n_grid]
                mean = np.array([v.mean() for v in vals])
                se = np.array(
                    [v.std(ddof=1) / math.sqrt(v.size) if v.size > 1 else 0.0 for v in vals]
                )
                ax.errorbar(n_grid, mean, yerr=2 * se, capsize=2, **method_style(m))
            ax.set_xscale("log")
            what = "Multinomial (whole vector)" if model == "multinomial" else MODEL_TITLES[model]
            ax.set_title(f"{what}, $\\epsilon$={fmt_eps(eps)}")
            if r == len(epsilons) - 1:
                ax.set_xlabel("number of individuals n")
            if c == 0:
                ax.set_ylabel("MMD$^2$ to Non-Private")
    legend_below(fig, axes[0][0])
    save_figure(fig, output.pdf, output.png)


def figB_1(input, output):
    """Fig. B.1: Gibbs traces from the prior; each chain is its own trial, with its own true
    parameter drawn from the prior (dashed, in the chain's colour)."""
    from matplotlib.lines import Line2D

    from ...plotting import COLORS, legend_below, save_figure, subplots

    d = load_npz(input.traces)
    fig, axes = subplots(1, 2, width=7.0, height=2.6, squeeze=False)
    for c, (model, name) in enumerate((("binomial", "$\\theta$"), ("exponential", "$\\lambda$"))):
        ax = axes[0][c]
        tr, truth = d[f"{model}_trace"], d[f"{model}_truth"]
        for k in range(tr.shape[0]):
            ax.plot(
                np.arange(1, tr.shape[1] + 1),
                tr[k],
                color=COLORS[k % len(COLORS)],
                lw=0.8,
                label=f"chain {k + 1}",
            )
            ax.axhline(truth[k], color=COLORS[k % len(COLORS)], ls="--", lw=0.8)
        ax.set_title(
            f"{MODEL_TITLES[model]}: n={int(d['n'])}, $\\epsilon$={fmt_eps(float(d['epsilon']))}"
        )
        ax.set_xlabel("iteration")
        ax.set_ylabel(name)
    axes[0][0].add_line(
        Line2D([], [], color="0.3", ls="--", lw=0.8, label="true parameter of the chain (dashed)")
    )
    legend_below(fig, axes[0][0])
    save_figure(fig, output.pdf, output.png)
