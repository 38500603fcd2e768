"""bernstein2020 Chapter 5 figures, one function per target: fig5_4 ... fig5_9.

fig5_4, fig5_6 and fig5_7 share one layout (:func:`_two_panel_figure`): a row per panel of the
synthetic study (vs n at the vs-n epsilon, vs epsilon at the vs-epsilon n) and a column per
parameter, the methods as lines, a legend below.
"""

from __future__ import annotations

from ...diagnostics import binomial_se, ks_critical_value
from ...grid import fmt_eps
from ...io import load_npz, write_table
from ...plotting import (
    legend_below,
    log_axis,
    method_label,
    method_style,
    save_figure,
    subplots,
)
from ..nig_methods import METHODS
from .grid import ch5_setting
from .summarise import (
    common_setting,
    panel,
    predictive_coverage,
    setting_methods,
    setting_metric,
)

__all__ = ["fig5_4", "fig5_5", "fig5_6", "fig5_7", "fig5_8", "fig5_9"]

PARAM_TEX = (r"$\theta_0$ (slope)", r"$\theta_1$ (intercept)", r"$\sigma^2$")


def _two_panel_figure(summary: dict, metric: str, ylabel: str, title: str, skip=()):
    """Rows: vs n and vs epsilon; columns: the three parameters; one line per method."""
    vs_n, vs_eps = panel(summary, "vs_n"), panel(summary, "vs_eps")
    rows = [
        ("n", vs_n, f"n (epsilon = {fmt_eps(vs_n[0][1])})"),
        ("eps", vs_eps, f"epsilon (n = {vs_eps[0][0]})"),
    ]
    fig, axes = subplots(2, 3, width=7.5, height=2.3, squeeze=False)
    for r, (axis, pairs, xlabel) in enumerate(rows):
        table = {}
        for n, e in pairs:
            methods, vals = setting_metric(summary, n, e, metric)
            for i, m in enumerate(methods):
                table.setdefault(m, []).append((n if axis == "n" else e, vals[i]))
        for p in range(3):
            ax = axes[r, p]
            for m in METHODS:
                if m in table and m not in skip:
                    ax.plot(
                        [x for x, _ in table[m]],
                        [float(v[p]) for _, v in table[m]],
                        **method_style(m),
                    )
            ax.set_xscale("log")
            ax.set_xlabel(xlabel)
            if r == 0:
                ax.set_title(PARAM_TEX[p])
            if p == 0:
                ax.set_ylabel(ylabel)
    fig.suptitle(title, fontsize=9)
    legend_below(fig, axes[0, 0], fontsize=7)
    return fig, axes


def fig5_4(input, output) -> None:
    """Fig 5.4: calibration, KS of the posterior quantiles of the truth, with the 5% critical
    value."""
    summary = load_npz(input.summary)
    trials = int(summary["trials"])
    fig, axes = _two_panel_figure(
        summary,
        "ks",
        "KS statistic",
        f"Calibration: KS of posterior quantiles ({trials} trials; dotted: 5% critical value)",
    )
    for ax in axes.ravel():
        ax.axhline(ks_critical_value(trials), color="0.5", ls=":", lw=0.8)
    save_figure(fig, output.pdf, output.png)


def fig5_5(input, output) -> None:
    """Fig 5.5: QQ plot (empirical CDF) of the posterior quantiles at the setting both panels
    share."""
    summary = load_npz(input.summary)
    trials = int(summary["trials"])
    n0, e0 = common_setting(summary)
    methods = setting_methods(summary, n0, e0)
    u = summary[f"{ch5_setting(n0, e0)}__u"]
    # here, not at the top: seaborn (with scipy.stats, pandas) costs 1.5 s per job
    import seaborn as sns

    fig, axes = subplots(1, 3, width=7.5, height=2.6, squeeze=False)
    for p in range(3):
        ax = axes[0, p]
        ax.plot([0, 1], [0, 1], color="0.5", lw=0.8, ls="--")
        for i, m in enumerate(methods):
            st = method_style(m)
            sns.ecdfplot(x=u[i, :, p], ax=ax, color=st["color"], label=st["label"])
        ax.set_title(PARAM_TEX[p])
        ax.set_xlabel("uniform quantile")
        ax.set_ylabel("empirical CDF of u" if p == 0 else "")
    fig.suptitle(
        f"QQ plot of posterior quantiles, n = {n0}, epsilon = {fmt_eps(e0)} ({trials} trials)",
        fontsize=9,
    )
    legend_below(fig, axes[0, 0], fontsize=7)
    save_figure(fig, output.pdf, output.png)


def fig5_6(input, output) -> None:
    """Fig 5.6: coverage of the central credible intervals, band +-2 binomial SE."""
    summary = load_npz(input.summary)
    trials, level = int(summary["trials"]), float(summary["credible_level"])
    pct = f"{100 * level:g}%"
    fig, axes = _two_panel_figure(
        summary,
        "coverage",
        f"{pct} CI coverage",
        f"{pct} credible-interval coverage ({trials} trials; band: +-2 binomial s.e.)",
    )
    se = float(binomial_se(level, trials))
    for ax in axes.ravel():
        ax.axhline(level, color="0.3", ls="--", lw=0.8)
        ax.axhspan(level - 2 * se, level + 2 * se, color="0.85", zorder=0)
    save_figure(fig, output.pdf, output.png)


def fig5_7(input, output, *, bandwidth: float) -> None:
    """Fig 5.7: utility, mean unbiased MMD^2 to the Non-Private posterior."""
    summary = load_npz(input.summary)
    fig, _ = _two_panel_figure(
        summary,
        "mmd",
        "mean MMD$^2$",
        f"Utility: unbiased MMD$^2$ (RBF, bandwidth {bandwidth}) to the Non-Private posterior, "
        "mean over trials",
        skip=("non_private",),
    )
    save_figure(fig, output.pdf, output.png)


def fig5_8(input, output) -> None:
    """Fig 5.8: mean CPU seconds per trial vs n at the vs-n epsilon."""
    summary = load_npz(input.summary)
    pairs = panel(summary, "vs_n")
    fig, axes = subplots(1, 1, width=4.5, height=3.0, squeeze=False)
    ax = axes[0, 0]
    table = {}
    for n, e in pairs:
        cpu = summary[f"{ch5_setting(n, e)}__cpu"]
        for i, m in enumerate(setting_methods(summary, n, e)):
            table.setdefault(m, []).append((n, max(float(cpu[i].mean()), 1e-6)))
    for m in METHODS:
        if m in table:
            xs, ys = zip(*table[m])
            ax.plot(xs, ys, **method_style(m))
    log_axis(ax, "x")
    log_axis(ax, "y")  # minor labels only on a short range (they collided on a longer one)
    ax.set_xlabel("n")
    ax.set_ylabel("CPU seconds per trial (mean)")
    ax.set_title(f"Runtime, epsilon = {fmt_eps(pairs[0][1])} (process time, one core)")
    legend_below(fig, ax, ncol=3, fontsize=7)
    save_figure(fig, output.pdf, output.png)


def fig5_9(input, output, *, levels, covariate: str, n_train: int) -> None:
    """Fig 5.9: coverage of the central ``levels`` posterior-predictive intervals vs epsilon on the
    cirrhosis data (from the PIT values), and the same numbers as a table."""
    summary = load_npz(input.summary)
    methods = [str(m) for m in summary["methods"]]
    eps = [float(e) for e in summary["epsilons"]]
    n_splits, n_test = summary["pit"].shape[2], summary["pit"].shape[3]
    n_pts = n_splits * n_test
    fig, axes = subplots(1, len(levels), width=7.0, height=2.8, squeeze=False)
    rows = []
    for k, lev in enumerate(float(v) for v in levels):
        ax = axes[0, k]
        cov = predictive_coverage(summary, lev)
        for i, m in enumerate(methods):
            ax.plot(eps, cov[:, i], **method_style(m))
            rows += [
                {
                    "level": lev,
                    "epsilon": fmt_eps(e),
                    "method": method_label(m),
                    "coverage": cov[j, i],
                    "test_points": n_pts,
                }
                for j, e in enumerate(eps)
            ]
        ax.axhline(lev, color="0.3", ls="--", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("epsilon")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{int(round(100 * lev))}% predictive interval")
        if k == 0:
            ax.set_ylabel("coverage of test points")
    fig.suptitle(
        f"Cirrhosis vs {covariate} (min-max scaled): {n_splits} random "
        f"{n_train}/{n_test} splits, {n_pts} test points",
        fontsize=9,
    )
    legend_below(fig, axes[0, 0], fontsize=7)
    save_figure(fig, output.pdf, output.png)
    se = max(float(binomial_se(lev, n_pts)) for lev in levels)
    write_table(
        output.csv,
        output.md,
        rows,
        ["level", "epsilon", "method", "coverage", "test_points"],
        title="bernstein2020 Fig 5.9: posterior-predictive coverage on the cirrhosis data",
        notes="A test point is inside the central interval at level L when its PIT value (fraction "
        "of posterior-predictive draws below it) lies in [(1-L)/2, (1+L)/2]. Binomial s.e. "
        f"at most {se:.3f} (test points of different splits overlap, so it is a lower bound). "
        "The thesis shows these only as a bar plot (no numbers).",
        digits=3,
    )
