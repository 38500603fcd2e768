"""Own-data study figure: one per data set, every method against epsilon.

Three panels: the error of the posterior mean against the long MCMC-Ind reference, the distance
of the posterior mean from the non-private posterior mean (what the user loses to privacy), both
in sds of the worst parameter, and effective samples per CPU second. Methods in their one look
(:mod:`dpinfer.plotting.methods`); a point whose trials fail R-hat/ESS more often than the
recommendation rule allows is hollow (:func:`dpinfer.studies.comparison.figures.plot_methods`).
The middle panel, and Non-Private's points in the others, are derived from the non-private
posterior of the confidential records: the figure says so in its title and panel label.
"""

from __future__ import annotations

import numpy as np

from ...io import load_npz
from ...plotting import legend_below, save_figure, subplots
from ..comparison.figures import plot_methods

__all__ = ["PANELS", "dataset_figure"]

PANELS = (
    ("mean_err", "error of the mean\n(reference sds)"),
    ("np_err", "distance from the non-private\nposterior mean (its sds;\nnon-private-derived)"),
    ("ess_per_s", "ESS per CPU second"),
)


def dataset_figure(input, output, *, dataset, max_flagged) -> None:
    """The data set's three panels against epsilon (log axes)."""
    summary = load_npz(input.summary)
    rows: dict[str, list[int]] = {}
    for i, method in enumerate(summary["method"]):
        rows.setdefault(str(method), []).append(i)
    fig, axes = subplots(1, len(PANELS), width=7.5, height=2.6, squeeze=False)
    for c, (key, ylabel) in enumerate(PANELS):
        ax = axes[0, c]
        shown = rows if key != "np_err" else {m: i for m, i in rows.items() if m != "non_private"}
        plot_methods(ax, summary, shown, "epsilon", key, float(max_flagged), ylabel, fontsize=7)
    trials = int(np.max(summary["trials"]))
    fig.suptitle(
        f"{dataset}: {trials} releases per epsilon (hollow: flagged by R-hat/ESS)\nmiddle panel "
        "and Non-Private's points: derived from the non-private posterior",
        fontsize=8,
    )
    legend_below(fig, axes[0, 0], fontsize=7)
    save_figure(fig, output.pdf, output.png)
