"""ju2022 figures, one function per target id: fig1a, fig2 (posterior means per epsilon) and
fig1b, figS1 (acceptance rates with the bound exp(-epsilon) of Proposition 3.1).

The horizontal jitter of the point clouds is display only and comes from a fixed generator, so
a figure's bytes do not change between runs (seaborn's stripplot jitters with numpy's global
random state, which is why the clouds are drawn with matplotlib here).
"""

from __future__ import annotations

import numpy as np

from ...grid import fmt_eps
from ...io import load_npz
from ...models import gaussian_linreg, naive_bayes
from ...plotting import COLORS, legend_below, log_axis, method_color, save_figure, subplots
from .summarise import param_labels

__all__ = ["fig1a", "fig2", "fig1b", "figS1"]


# ----------------------------------------------------------------------------- posterior means
def _posterior_means(input, output, model: str, solid, dashed) -> None:
    """Posterior means per epsilon (one point per chain); solid line: the posterior mean given
    the confidential data; dashed: the prior mean."""
    d = load_npz(input.summary)
    means, eps = d["post_mean"], d["epsilons"]  # (E, R, D)
    D = means.shape[2]
    labels = param_labels(model, D)
    fig, axes = subplots(1, D, width=1.55 * D + 0.5, height=2.6, sharey=(model == "loglinear"))
    axes = np.atleast_1d(axes)
    x, xt = np.arange(len(eps)), [fmt_eps(e) for e in eps]
    jitter = np.random.default_rng(0).uniform(-0.18, 0.18, size=means.shape[1])  # display only
    for j, ax in enumerate(axes):
        for e in range(len(eps)):
            ax.scatter(
                x[e] + jitter,
                means[e, :, j],
                s=5,
                alpha=0.5,
                color=method_color("record_wise"),
                linewidths=0,
                label="Algorithm 1 posterior mean, one per chain" if e == 0 else None,
            )
        ax.axhline(solid[j], color="black", lw=1.0, label="confidential-data posterior mean")
        ax.axhline(dashed[j], color="black", lw=1.0, ls="--", label="prior mean")
        ax.set_xticks(x, xt)
        ax.set_xlabel("epsilon")
        ax.set_title(labels[j])
    axes[0].set_ylabel("posterior mean")
    fig.suptitle(
        f"{means.shape[1]} posterior means per epsilon (one fixed confidential data set)",
        fontsize=9,
    )
    legend_below(fig, axes[0], markerscale=2)
    save_figure(fig, output.pdf, output.png)


def fig1a(input, output, *, prior_concentration: float) -> None:
    """fig1a: posterior means of p_1..p_5 (log-linear model, fixed confidential data set)."""
    ref = naive_bayes.load_reference(input.parameters, input.data, prior_concentration)
    solid = naive_bayes.posterior_mean_p(ref.counts, ref.alpha_p)
    _posterior_means(input, output, "loglinear", solid, ref.alpha_p / ref.alpha_p.sum())


def fig2(input, output, *, prior_sd: float) -> None:
    """fig2: posterior means of beta_0..beta_2 (linear regression, fixed confidential data set)."""
    ref = gaussian_linreg.load_reference(input.parameters, input.data)
    solid = gaussian_linreg.conjugate_posterior(ref.X, ref.y, ref.sigma2, prior_sd)[0]
    _posterior_means(input, output, "linreg", solid, np.zeros(solid.size))


# ----------------------------------------------------------------------------- acceptance
def fig1b(input, output) -> None:
    """fig1b: acceptance rates of the log-linear chains of fig1a, per chain the mean and minimum
    per-sweep acceptance rate of step 2, with the bound exp(-epsilon)."""
    d = load_npz(input.summary)
    eps = d["epsilons"]
    fig, ax = subplots(1, 1, width=4.2, height=3.0)
    # display only
    jit = np.exp(np.random.default_rng(1).uniform(-0.08, 0.08, size=d["acc_mean"].shape[1]))
    for e in range(len(eps)):
        for key, color, label in (
            ("acc_mean", COLORS[0], "mean"),
            ("acc_min", COLORS[1], "low (minimum over sweeps)"),
        ):
            ax.scatter(
                eps[e] * jit,
                d[key][e],
                s=6,
                alpha=0.5,
                color=color,
                linewidths=0,
                label=label if e == 0 else None,
            )
    grid = np.geomspace(eps.min() / 1.3, eps.max() * 1.3, 200)
    ax.plot(grid, np.exp(-grid), color="black", label="bound exp(-epsilon)")
    log_axis(ax, "x", eps, [fmt_eps(e) for e in eps])
    ax.set_xlabel("epsilon")
    ax.set_ylabel("acceptance rate of step 2")
    ax.set_ylim(-0.02, 1.02)
    legend_below(fig, ax, ncol=2, markerscale=2)
    save_figure(fig, output.pdf, output.png)


def figS1(input, output) -> None:
    """figS1: acceptance rates of the regression chains of fig2, drawn as fig1b."""
    fig1b(input, output)
