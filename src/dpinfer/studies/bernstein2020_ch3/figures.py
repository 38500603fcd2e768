"""bernstein2020 Chapter 3 figures, one function per target: fig3_1 to fig3_6.

Every figure reads only ``summary.npz`` (keys of :func:`summary.summary_key`); error bars are
2 standard errors over the trials of a cell.
"""

from __future__ import annotations

import numpy as np

from ...grid import fmt_eps
from ...io import load_npz
from .grid import ch3_cell_name
from .summarise import cell_array, mean_se, summary_key

__all__ = ["fig3_1", "fig3_2", "fig3_3", "fig3_4", "fig3_5", "fig3_6"]

MODEL_TITLES = {"chain1": "first-order chain", "chain3": "third-order chain", "er": "Erdős–Rényi"}


def _stat(d, figure, cell, name):
    """(mean, 2 SE) over the finite trials of one array, or (nan, nan) when none."""
    mean, se, _ = mean_se(cell_array(d, figure, cell, name))
    return mean, 2 * se


def _line(ax, d, figure, cells, xs, name, style):
    pts = [_stat(d, figure, c, name) for c in cells]
    m = np.array([p[0] for p in pts])
    e = np.array([p[1] for p in pts])
    ok = np.isfinite(m)
    if ok.any():
        ax.errorbar(np.asarray(xs)[ok], m[ok], yerr=e[ok], capsize=2, **style)


def fig3_1(input, output, *, settings):
    """Fig. 3.1: MSE of naive MLE's learned marginals vs N (log-log), one line per epsilon, with
    reference slopes -1 (sampling error) and -2 (privacy error)."""
    from ...plotting import COLORS, legend_below, save_figure, subplots

    d = load_npz(input.summary)
    ns = [int(n) for n in settings["n_grid"]]
    fig, axes = subplots(1, 1, width=4.6, height=3.4, squeeze=False)
    ax = axes[0][0]
    for i, eps in enumerate(settings["epsilons"]):
        cells = [ch3_cell_name("fig3_1", n=n, epsilon=eps) for n in ns]
        label = f"$\\epsilon$ = {fmt_eps(eps)}"
        style = dict(color=COLORS[i % len(COLORS)], marker="o", markersize=3.5, label=label)
        _line(ax, d, "fig3_1", cells, ns, "naive_mle_mse", style)
    n = np.array([min(ns), max(ns)], dtype=float)
    top = ax.get_ylim()[1]
    ax.plot(
        n, top * (n / n[0]) ** -1.0, color="0.45", lw=0.9, ls="--", label="slope $-1$ ($O(1/N)$)"
    )
    ax.plot(
        n, top * (n / n[0]) ** -2.0, color="0.45", lw=0.9, ls=":", label="slope $-2$ ($O(1/N^2)$)"
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("population size N")
    ax.set_ylabel("MSE of learned marginals")
    ax.set_title(
        f"naive MLE, {MODEL_TITLES.get(settings['model'], settings['model'])}, |X| = "
        f"{settings['states']}"
    )
    legend_below(fig, ax, ncol=2, fontsize=7)
    save_figure(fig, output.pdf, output.png)


def _kl_panel(output, d, figure, cells, xs, lines, xlabel, title):
    """One log-log panel of mean KL per line (key, label, method style) over ``xs``."""
    from ...plotting import legend_below, method_style, save_figure, subplots

    fig, axes = subplots(1, 1, width=4.6, height=3.2, squeeze=False)
    ax = axes[0][0]
    for key, label, method in lines:
        _line(ax, d, figure, cells, xs, key, dict(method_style(method), label=label))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("KL(true ‖ learned)")
    ax.set_title(title)
    legend_below(fig, ax, ncol=2)
    save_figure(fig, output.pdf, output.png)


def _title(settings, *extra) -> str:
    parts = [
        MODEL_TITLES.get(settings["model"], settings["model"]),
        f"|X| = {settings['states']}",
        *extra,
    ]
    return ", ".join(parts + [f"$\\epsilon$ = {fmt_eps(settings['epsilon'])}"])


def fig3_2(input, output, *, settings):
    """Fig. 3.2: KL of naive MLE with and without projecting the noisy marginals onto the
    simplex."""
    from ...plotting import method_label

    ns = [int(n) for n in settings["n_grid"]]
    cells = [ch3_cell_name("fig3_2", n=n) for n in ns]
    lines = [(f"{m}_kl", method_label(m), m) for m in ("naive_mle", "naive_mle_unprojected")]
    d = load_npz(input.summary)
    _kl_panel(output, d, "fig3_2", cells, ns, lines, "population size N", _title(settings))


def fig3_3(input, output, *, settings):
    """Fig. 3.3: KL vs the L2 penalty lambda, learning from noisy vs true sufficient statistics."""
    lams = [float(v) for v in settings["lambdas"]]
    cells = [ch3_cell_name("fig3_3", lam=v) for v in lams]
    lines = [
        ("naive_mle_kl", "noisy statistics (naive MLE)", "naive_mle"),
        ("non_private_kl", "true statistics", "non_private"),
    ]
    d, title = load_npz(input.summary), _title(settings, f"N = {settings['n']}")
    _kl_panel(output, d, "fig3_3", cells, lams, lines, "L2 penalty $\\lambda$", title)


def fig3_4(input, output, *, settings):
    """Fig. 3.4: KL from the true model vs N; rows models, columns epsilon; every method."""
    from ...plotting import legend_below, method_style, save_figure, subplots

    d = load_npz(input.summary)
    ns = [int(n) for n in settings["n_grid"]]
    models, epsilons = settings["models"], settings["epsilons"]
    fig, axes = subplots(
        len(models),
        len(epsilons),
        width=2.6 * len(epsilons),
        height=2.3,
        squeeze=False,
        sharex=True,
    )
    for r, model in enumerate(models):
        refs = [ch3_cell_name("fig3_4", model=model, n=n) for n in ns]
        for c, eps in enumerate(epsilons):
            ax = axes[r][c]
            cells = [ch3_cell_name("fig3_4", model=model, n=n, epsilon=eps) for n in ns]
            for m in ("naive_mle", "cgm", "psgd"):
                _line(ax, d, "fig3_4", cells, ns, f"{m}_kl", method_style(m))
            for m in ("non_private", "random"):
                _line(ax, d, "fig3_4", refs, ns, f"{m}_kl", method_style(m))
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{MODEL_TITLES.get(model, model)}, $\\epsilon$ = {fmt_eps(eps)}")
            if r == len(models) - 1:
                ax.set_xlabel("population size N")
            if c == 0:
                ax.set_ylabel("KL(true ‖ learned)")
    legend_below(fig, axes[0][0])
    save_figure(fig, output.pdf, output.png)


def fig3_5(input, output, *, settings):
    """Fig. 3.5: true vs inferred edge marginals (first trial) for naive MLE, CGM and
    non-private."""
    from ...plotting import method_color, method_label, save_figure, subplots

    d = load_npz(input.summary)
    cell = ch3_cell_name("fig3_5")
    truth = d[summary_key("fig3_5", cell, "marginals_true")].ravel()
    fig, axes = subplots(1, 3, width=7.5, height=2.7, squeeze=False)
    hi = float(truth.max()) * 1.05
    for c, m in enumerate(("naive_mle", "cgm", "non_private")):
        ax = axes[0][c]
        est = d[summary_key("fig3_5", cell, f"marginals_{m}")].ravel()
        hi = max(hi, float(est.max()) * 1.05)
        ax.scatter(truth, est, s=2, alpha=0.4, color=method_color(m), rasterized=True)
        ax.set_title(method_label(m))
        ax.set_xlabel("true edge marginal")
        if c == 0:
            ax.set_ylabel("inferred edge marginal")
    for ax in axes[0]:
        ax.plot([0, hi], [0, hi], color="0.5", lw=0.8)
        ax.set_xlim(0, hi)
        ax.set_ylim(0, hi)
    save_figure(fig, output.pdf, output.png)


def fig3_6(input, output, *, settings):
    """Fig. 3.6: holdout log-likelihood vs epsilon on the synthetic mobility data, one panel per
    training size; the non-private fit as a horizontal line."""
    from ...plotting import legend_below, method_style, save_figure, subplots

    d = load_npz(input.summary)
    sizes = [int(s) for s in settings["train_sizes"]]
    epsilons = [float(e) for e in settings["epsilons"]]
    fig, axes = subplots(1, len(sizes), width=3.4 * len(sizes), height=2.9, squeeze=False)
    for c, size in enumerate(sizes):
        ax = axes[0][c]
        cells = [ch3_cell_name("fig3_6", n=size, epsilon=e) for e in epsilons]
        for m in ("naive_mle", "cgm", "psgd"):
            _line(ax, d, "fig3_6", cells, epsilons, f"{m}_loglik", method_style(m))
        ref, _ = _stat(d, "fig3_6", ch3_cell_name("fig3_6", n=size), "non_private_loglik")
        st = method_style("non_private")
        ax.axhline(ref, color=st["color"], ls=st["linestyle"], lw=1.0, label=st["label"])
        ax.set_xscale("log")
        ax.set_xlabel("privacy level $\\epsilon$")
        ax.set_title(f"N = {size} training individuals")
        if c == 0:
            ax.set_ylabel("holdout log-likelihood")
    legend_below(fig, axes[0][0])
    save_figure(fig, output.pdf, output.png)
