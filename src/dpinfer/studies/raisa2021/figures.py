"""raisa2021 figures, one function per target: fig5_1, fig6_1, fig4_1, fig6_2, fig6_3, fig6_4,
fig6_5, fig6_6, fig6_7, fig6_8. The box-plot figures share :func:`_box_panels`: x = epsilon,
one box per algorithm over the chains of a setting, as the thesis draws them."""

from __future__ import annotations

import numpy as np

from ...io import load_npz
from ...plotting import COLORS, legend_below, method_color, method_label, save_figure, subplots
from .chain_claims import BANANA_MODELS, HARD_MODELS
from .paper import shown_positions
from .settings import CLIPPING_ALGORITHMS, CURVE_FAMILIES
from .summarise import NAMES

__all__ = [
    "fig5_1",
    "fig6_1",
    "fig4_1",
    "fig6_2",
    "fig6_3",
    "fig6_4",
    "fig6_5",
    "fig6_6",
    "fig6_7",
    "fig6_8",
]

ALGO_ORDER = ("hmc", "dpps", "dppa", "mdpps", "mdppa", "barker")  # box order within an epsilon
_EXACT = "exact samples vs the reference (dashed)"


def _settings(summary) -> dict:
    """{model: {algo: [epsilons]}} of the settings the summary holds."""
    out = {}
    for key in summary["keys"]:
        model, algo, eps = str(key).split("|")
        out.setdefault(model, {}).setdefault(algo, []).append(float(eps))
    return {m: {a: sorted(e) for a, e in v.items()} for m, v in out.items()}


def _box_panels(ax, summary, model, algos, metric, settings):
    """Box plots of ``metric`` over the chains, grouped by epsilon, one colour per algorithm."""
    algos = [a for a in algos if a in settings[model]]
    eps = sorted({e for a in algos for e in settings[model][a]})
    width = 0.8 / max(len(algos), 1)
    for j, a in enumerate(algos):
        data = [summary[f"{model}|{a}|{e!r}/{metric}"] for e in eps]
        pos = np.arange(len(eps)) + (j - (len(algos) - 1) / 2) * width
        bp = ax.boxplot(
            data,
            positions=pos,
            widths=width * 0.9,
            patch_artist=True,
            showfliers=True,
            flierprops={"markersize": 2},
        )
        colour = method_color(a)
        for box in bp["boxes"]:
            box.set(facecolor=colour, alpha=0.7, linewidth=0.6)
        for med in bp["medians"]:
            med.set(color="black", linewidth=0.8)
        ax.plot([], [], color=colour, linewidth=6, alpha=0.7, label=method_label(a))
    ax.set_xticks(np.arange(len(eps)), [f"{e:g}" for e in eps])
    ax.set_xlabel("epsilon")


def _baselines(ax, mmds, labelled: bool) -> None:
    """The dashed MMDs of fresh exact samples to the reference; the first labelled once."""
    for k, b in enumerate(mmds):
        ax.axhline(
            b,
            color="black",
            linestyle="--",
            linewidth=0.6,
            label=_EXACT if labelled and k == 0 else None,
        )


def _panel_grid(n: int, cols: int, **kwargs):
    """A figure of ``n`` panels in rows of ``cols``, the unused axes hidden."""
    fig, axes = subplots(int(np.ceil(n / cols)), cols, squeeze=False, **kwargs)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes


def _model_figure(
    input, output, metric, ylabel, baseline=False, ylim=None, models=HARD_MODELS, cols=3
):
    summary = load_npz(input.summary)
    settings = _settings(summary)
    models = [m for m in models if m in settings]
    if not models:
        raise ValueError(f"none of {models} is configured (raisa2021.models)")
    ncol = min(cols, len(models))
    fig, axes = _panel_grid(len(models), ncol, width=max(2.6 * ncol, 5.2), height=2.8)
    for ax, model in zip(axes.ravel(), models):
        _box_panels(ax, summary, model, ALGO_ORDER, metric, settings)
        if baseline and f"{model}/baseline_mmd" in summary:
            _baselines(ax, summary[f"{model}/baseline_mmd"], labelled=ax is axes[0, 0])
        ax.set_title(NAMES.get(model, model))
        if ylim:
            ax.set_ylim(*ylim)
    for r in range(axes.shape[0]):
        axes[r, 0].set_ylabel(ylabel)
    algos = {a for m in models for a in settings[m]}
    legend_below(fig, axes[0, 0], ncol=3 if len(algos) > 3 else None)
    save_figure(fig, output.pdf, output.png)


def fig6_3(input, output) -> None:
    """MMD vs epsilon, all six algorithms: flat and tempered banana, d = 2 and 10; dashed: exact
    samples."""
    _model_figure(
        input, output, "mmd", "MMD", baseline=True, ylim=(0, 0.9), models=BANANA_MODELS, cols=2
    )


def fig6_5(input, output) -> None:
    """Fraction of log-likelihood ratios clipped, same models as fig6_3."""
    _model_figure(
        input, output, "llr_clip", "fraction of ratios clipped", models=BANANA_MODELS, cols=2
    )


def fig6_2(input, output) -> None:
    """Clipping study: MMD vs clip bound (top) and vs clipped fraction (bottom), d = 2 and 10,
    RWMH and HMC; dashed: fresh exact samples against the reference."""
    c = load_npz(input.summary)
    found = {}
    for key in c["keys"]:
        algo, dim, bound = str(key).split("|")
        found.setdefault(int(dim), {}).setdefault(algo, []).append(float(bound))
    dims = sorted(found)
    fig, axes = subplots(2, len(dims), width=3.4 * len(dims), height=2.6, squeeze=False)
    for col, dim in enumerate(dims):
        algos = [a for a in CLIPPING_ALGORITHMS if a in found[dim]]
        bounds = sorted({b for a in algos for b in found[dim][a]})
        for j, algo in enumerate(algos):
            colour = method_color(CLIPPING_ALGORITHMS[algo])
            for i, b in enumerate(bounds):
                key = f"{algo}|{dim}|{b!r}"
                if f"{key}/mmd" not in c:
                    continue
                y = c[f"{key}/mmd"]
                jitter = (np.linspace(-0.15, 0.15, y.size) if y.size > 1 else np.zeros(1)) + (
                    j - 0.5
                ) * 0.35
                axes[0, col].scatter(
                    i + jitter,
                    y,
                    s=5,
                    color=colour,
                    alpha=0.7,
                    label=method_label(CLIPPING_ALGORITHMS[algo]) if i == 0 else None,
                )
                axes[1, col].scatter(c[f"{key}/llr_clip"], y, s=5, color=colour, alpha=0.7)
        for ax in axes[:, col]:
            _baselines(ax, c[f"{dim}/baseline_mmd"], labelled=ax is axes[0, 0])
            ax.set_ylim(0, 0.6)
        axes[0, col].set_xticks(range(len(bounds)), [f"{b:g}" for b in bounds])
        axes[0, col].set_xlabel("clip bound")
        axes[0, col].set_title(f"d = {dim}")
        axes[1, col].axvline(
            0.1, color="grey", linestyle=":", linewidth=0.8
        )  # the thesis's 10% rule of thumb
        axes[1, col].set_xlim(left=0)
        axes[1, col].set_xlabel("fraction of ratios clipped (dotted: 10%)")
    for r in range(2):
        axes[r, 0].set_ylabel("MMD")
    legend_below(fig, axes[0, 0])
    save_figure(fig, output.pdf, output.png)


def fig6_4(input, output) -> None:
    """MMD vs epsilon: 30-d Gauss, narrow banana, correlated Gauss; dashed: exact samples."""
    _model_figure(input, output, "mmd", "MMD", baseline=True, ylim=(0, 0.9))


def fig6_6(input, output) -> None:
    """Fraction of log-likelihood ratios clipped, same models as fig6_4."""
    _model_figure(input, output, "llr_clip", "fraction of ratios clipped")


def fig6_7(input, output) -> None:
    """Circle: distance of the kept mean from the origin (left), clipped fraction (right)."""
    summary = load_npz(input.summary)
    settings = _settings(summary)
    if "circle" not in settings:
        raise ValueError("fig6_7 needs the circle model (raisa2021.models)")
    fig, axes = subplots(1, 2, width=6.5, height=2.8, squeeze=False)
    for ax, metric, ylabel in zip(
        axes[0], ("mean_error", "llr_clip"), ("mean error", "fraction of ratios clipped")
    ):
        _box_panels(ax, summary, "circle", ("hmc", "dpps"), metric, settings)
        ax.set_ylabel(ylabel)
    legend_below(fig, axes[0, 0])
    save_figure(fig, output.pdf, output.png)


def fig6_8(input, output) -> None:
    """DP HMC: fraction of per-row gradients clipped, one panel per model."""
    summary = load_npz(input.summary)
    settings = _settings(summary)
    models = [m for m in settings if "hmc" in settings[m]]
    if not models:
        raise ValueError("fig6_8 needs the hmc algorithm (raisa2021.algorithms)")
    fig, axes = _panel_grid(len(models), 4, width=8.0, height=2.2)
    for ax, model in zip(axes.ravel(), models):
        _box_panels(ax, summary, model, ("hmc",), "grad_clip", settings)
        ax.set_ylim(0, 1)
        ax.set_title(NAMES.get(model, model))
    for r in range(axes.shape[0]):
        axes[r, 0].set_ylabel("gradients clipped")
    save_figure(fig, output.pdf, output.png)


def fig5_1(input, output) -> None:
    """Contours of the exact posterior densities of the 2-d models, start points overlaid."""
    files = list(input.references)
    fig, axes = subplots(1, len(files), width=2.3 * len(files), height=2.4, squeeze=False)
    for ax, path in zip(axes[0], files):
        model = path.rsplit("/", 1)[-1].removesuffix(".npz")
        d = load_npz(path)
        # density levels at exp(-k^2 / 2) of the mode: the k-sd contours of a Gaussian
        levels = np.exp(-0.5 * np.arange(3.0, 0.0, -0.5) ** 2)
        ax.contour(
            d["grid_x"],
            d["grid_y"],
            np.exp(d["grid_logp"]),
            levels=levels,
            linewidths=0.6,
            cmap="viridis",
        )
        ax.scatter(
            d["starts"][:, 0],
            d["starts"][:, 1],
            s=4,
            color=COLORS[3],
            zorder=3,
            label="start points",
        )
        ax.set_title(NAMES.get(model, model))
        ax.set_xlabel(r"$\theta_1$")
    axes[0, 0].set_ylabel(r"$\theta_2$")
    legend_below(fig, axes[0, 0])
    save_figure(fig, output.pdf, output.png)


def fig6_1(input, output) -> None:
    """Iterations allowed vs epsilon: loose vs tight accountant for three algorithms."""
    c = load_npz(input.curves)
    eps = c["epsilons"]
    fig, axes = subplots(1, 3, width=7.5, height=2.6, squeeze=False)
    panels = (
        ("penalty", "zcdp", "zCDP (Thm 5)", "ADP (Thm 6)"),
        ("minibatch", "rdp", "RDP (Thm 8)", "numerical PLD"),
        ("hmc", "zcdp", "zCDP (Thm 10)", "ADP (Thm 11)"),
    )
    for ax, (fam, loose, loose_label, tight_label) in zip(axes[0], panels):
        title = method_label(CURVE_FAMILIES[fam])
        ax.plot(eps, c[f"{fam}_{loose}"], color=COLORS[0], label=loose_label)
        ax.plot(eps, c[f"{fam}_pld"], color=COLORS[1], label=tight_label)
        ax.set_title(title)
        ax.set_xlabel("epsilon")
        ax.set_ylim(0, max(3000, float(c[f"{fam}_pld"].max()) * 1.05))
        ax.legend(frameon=False)
    axes[0, 0].set_ylabel("iterations")
    save_figure(fig, output.pdf, output.png)


def fig4_1(input, output, first_position: int, every: int, panels: int) -> None:
    """A DP HMC leapfrog trajectory on the circle posterior in successive panels."""
    d = load_npz(input.trajectory)
    path = d["trajectory"]
    stops = shown_positions(path.shape[0], first_position, every, panels)  # what the claims check
    # shared axes: the outer panels carry the tick labels (the same coordinates in every panel)
    fig, axes = _panel_grid(len(stops), 4, width=7.5, height=1.9, sharex=True, sharey=True)
    density = np.exp(d["grid_logp"])
    for ax, stop in zip(axes.ravel(), stops):
        ax.contour(d["grid_x"], d["grid_y"], density, levels=20, linewidths=0.4, cmap="viridis")
        ax.plot(path[: stop + 1, 0], path[: stop + 1, 1], color=COLORS[0], linewidth=1.0)
        ax.scatter(path[0, 0], path[0, 1], color=COLORS[1], s=10, zorder=3)
        ax.set_title(f"after {stop} leapfrog steps", fontsize=7)
        ax.set_aspect("equal")
    save_figure(fig, output.pdf, output.png)
