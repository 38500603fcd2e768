"""Figure of a release: each parameter's marginal posterior, every noise-aware method against
the naive (noise-ignoring) posterior, as densities of the draws (histograms on shared bins)."""

from __future__ import annotations

import numpy as np

from ...io import load_npz
from ...plotting import legend_below, save_figure, subplots
from ...plotting.methods import method_style

__all__ = ["marginals"]

MAX_PANELS = 12  # a larger table shows its first parameters; the table has them all


def marginals(input, output, *, name) -> None:
    """One panel per parameter (up to :data:`MAX_PANELS`), four to a row."""
    d = load_npz(input.draws)
    parameters = [str(p) for p in d["parameters"]][:MAX_PANELS]
    methods = [str(m) for m in d["methods"]]
    cols = min(4, len(parameters))
    rows = -(-len(parameters) // cols)
    fig, axes = subplots(rows, cols, width=1.9 * cols + 0.5, height=1.7 * rows, squeeze=False)
    for j, parameter in enumerate(parameters):
        ax = axes[j // cols, j % cols]
        samples = {m: d[f"draws_{m}"][:, j] for m in methods} | {"naive": d["naive"][:, j]}
        lo, hi = np.quantile(np.concatenate(list(samples.values())), [0.001, 0.999])
        bins = np.linspace(lo, hi if hi > lo else lo + 1.0, 41)
        for method, x in samples.items():
            style = method_style(method, marker=False)
            ax.hist(
                x,
                bins=bins,
                density=True,
                histtype="step",
                color=style["color"],
                linestyle=style.get("linestyle", "-"),
                label=style["label"],
            )
        ax.set_xlabel(parameter, fontsize=7)
        ax.tick_params(labelsize=6)
        if j % cols == 0:
            ax.set_ylabel("density", fontsize=7)
    for k in range(len(parameters), rows * cols):
        axes[k // cols, k % cols].set_visible(False)
    fig.suptitle(f"release {name}: noise-aware posteriors and the naive one", fontsize=8)
    legend_below(fig, axes[0, 0], fontsize=7)
    save_figure(fig, output.pdf, output.png)
