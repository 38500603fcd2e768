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

LABELS = {"gibbs": "Gibbs (noise-aware)", "naive": "Naive", "ops": "OPS", "non_private": "Non-private"}
MODEL_TITLES = {"binomial": "Binomial", "multinomial": "Multinomial ($p_1$)", "exponential": "Exponential"}


def _style(method):
    from ...plotting import COLORS

    idx = {"gibbs": 0, "naive": 1, "ops": 2, "non_private": 7}[method]
    ls = {"gibbs": "-", "naive": "--", "ops": "-.", "non_private": ":"}[method]
    mk = {"gibbs": "o", "naive": "s", "ops": "^", "non_private": "x"}[method]
    return {"color": COLORS[idx], "linestyle": ls, "marker": mk, "markersize": 3.5}


def fig4_2(input, output, *, models, n_grid, epsilons):
    """Fig. 4.2: KS statistic of the posterior quantiles vs n; rows epsilon, columns models,
    with the KS 5% critical value for the number of trials M."""
    from ...plotting import save_figure, subplots

    d = load_npz(input.summary)
    fig, axes = subplots(len(epsilons), len(models), width=7.5, height=2.2, squeeze=False, sharey=True)
    for r, eps in enumerate(epsilons):
        for c, model in enumerate(models):
            ax = axes[r][c]
            for m in methods_for(model):
                ks = [ks_uniform(d[summary_key(model, n, eps, f"u_{m}")]) for n in n_grid]
                ax.plot(n_grid, ks, label=LABELS[m], **_style(m))
            M = d[summary_key(model, n_grid[0], eps, "u_gibbs")].size
            ax.axhline(ks_critical_value(M), color="0.5", lw=0.8, ls=(0, (1, 2)), label="KS 5% critical value")
            ax.set_xscale("log")
            ax.set_title(f"{MODEL_TITLES[model]}, $\\epsilon$={fmt_eps(eps)}")
            if r == len(epsilons) - 1:
                ax.set_xlabel("number of individuals n")
            if c == 0:
                ax.set_ylabel("KS statistic")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False, bbox_to_anchor=(0.5, -0.02))
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    save_figure(fig, output.pdf, output.png)


def fig4_3(input, output, *, models, ecdf):
    """Fig. 4.3: empirical CDFs of the posterior quantiles U at the (n, epsilon) of ``ecdf``."""
    import seaborn as sns

    from ...plotting import save_figure, subplots

    d = load_npz(input.summary)
    n, eps = int(ecdf["n"]), float(ecdf["epsilon"])
    fig, axes = subplots(1, len(models), width=7.5, height=2.6, squeeze=False)
    for c, model in enumerate(models):
        ax = axes[0][c]
        for m in methods_for(model):
            st = _style(m)
            sns.ecdfplot(x=d[summary_key(model, n, eps, f"u_{m}")], ax=ax, color=st["color"],
                         linestyle=st["linestyle"], label=LABELS[m])
        ax.plot([0, 1], [0, 1], color="0.6", lw=0.8)
        ax.set_title(f"{MODEL_TITLES[model]}\nn={n}, $\\epsilon$={fmt_eps(eps)}")
        ax.set_xlabel("quantile of true parameter U")
        ax.set_ylabel("empirical CDF" if c == 0 else "")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    axes[0][0].legend(loc="upper left", frameon=False)
    save_figure(fig, output.pdf, output.png)


def fig4_4(input, output, *, models, n_grid, epsilons):
    """Fig. 4.4: mean unbiased MMD^2 to the non-private posterior vs n (binomial, multinomial),
    with 2 standard-error bars over the trials."""
    from ...plotting import save_figure, subplots

    d = load_npz(input.summary)
    models = [m for m in models if m in ("binomial", "multinomial")]
    fig, axes = subplots(len(epsilons), max(1, len(models)), width=6.0, height=2.2, squeeze=False)
    for r, eps in enumerate(epsilons):
        for c, model in enumerate(models):
            ax = axes[r][c]
            for m in MMD_METHODS:
                vals = [d[summary_key(model, n, eps, f"mmd_{m}")] for n in n_grid]
                mean = np.array([v.mean() for v in vals])
                se = np.array([v.std(ddof=1) / math.sqrt(v.size) if v.size > 1 else 0.0 for v in vals])
                ax.errorbar(n_grid, mean, yerr=2 * se, label=LABELS[m], capsize=2, **_style(m))
            ax.set_xscale("log")
            ax.set_yscale("symlog", linthresh=1e-5)
            ax.set_title(f"{model.capitalize()} (whole parameter), $\\epsilon$={fmt_eps(eps)}")
            if r == len(epsilons) - 1:
                ax.set_xlabel("number of individuals n")
            if c == 0:
                ax.set_ylabel("MMD$^2$ to non-private")
    axes[0][0].legend(frameon=False)
    save_figure(fig, output.pdf, output.png)


def figB_1(input, output):
    """Fig. B.1: Gibbs traces from the prior, each chain with its own true parameter (dashed)."""
    from ...plotting import COLORS, save_figure, subplots

    d = load_npz(input.traces)
    fig, axes = subplots(1, 2, width=7.0, height=2.6, squeeze=False)
    for c, (model, name) in enumerate((("binomial", "$\\theta$"), ("exponential", "$\\lambda$"))):
        ax = axes[0][c]
        tr, truth = d[f"{model}_trace"], d[f"{model}_truth"]
        for k in range(tr.shape[0]):
            ax.plot(np.arange(1, tr.shape[1] + 1), tr[k], color=COLORS[k % len(COLORS)], lw=0.8)
            ax.axhline(truth[k], color=COLORS[k % len(COLORS)], ls="--", lw=0.8)
        ax.set_title(f"{MODEL_TITLES[model]}: n={int(d['n'])}, $\\epsilon$={fmt_eps(float(d['epsilon']))}")
        ax.set_xlabel("iteration")
        ax.set_ylabel(name)
    save_figure(fig, output.pdf, output.png)
