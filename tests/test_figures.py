"""The figure house: one look per method, and a layout check that can fail.

Every figure of the smoke run is checked by ``save_figure`` as it is saved; the workflow test
``test_every_figure_passes_the_layout_check`` reads those results. Here the check itself is
shown to catch each defect it claims to catch, and the method map to keep methods apart.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpinfer.plotting import (
    METHOD_STYLES,
    PALETTE,
    check_layout,
    legend_below,
    method_style,
    subplots,
)
from dpinfer.studies.nig_methods import LABELS, METHODS

# methods that can share one figure (a study's method set); within one, no two may look alike
FIGURE_GROUPS = {
    "regression (chapter 5, case study)": METHODS + ("oi",),
    "chapter 4": ("gibbs", "naive", "ops", "non_private"),
    "chapter 3": ("naive_mle", "naive_mle_unprojected", "cgm", "psgd", "non_private", "random"),
    "raisa2021": ("hmc", "dpps", "dppa", "mdpps", "mdppa", "barker"),
    "raisa2021 clipping": ("rwmh_nondp", "hmc_nondp"),
    "raim2021": ("alg2_noisy", "alg4_noise_free"),
    "ju2022": ("record_wise",),
    "comparison, binomial problem": ("non_private", "naive", "exact", "gibbs", "record_wise"),
    "releases": ("naive", "exact", "gibbs", "record_wise", "latent_counts"),
}


@pytest.mark.parametrize("group", sorted(FIGURE_GROUPS))
def test_methods_of_one_figure_are_told_apart_by_colour_and_marker(group):
    looks = [METHOD_STYLES[m] for m in FIGURE_GROUPS[group]]
    assert len({lk.color for lk in looks}) == len(looks), group
    assert len({lk.marker for lk in looks}) == len(looks), group
    assert len({lk.label for lk in looks}) == len(looks), group


def test_every_method_is_in_a_figure_group_and_shared_concepts_look_alike():
    grouped = {m for ms in FIGURE_GROUPS.values() for m in ms}
    assert grouped == set(METHOD_STYLES)
    # chapter 3's naive MLE is the same plug-in idea as Naive elsewhere: same colour, marker, line
    a, b = METHOD_STYLES["naive"], METHOD_STYLES["naive_mle"]
    assert (a.color, a.marker, a.linestyle) == (b.color, b.marker, b.linestyle)
    # ju2022's Algorithm 1 and MCMC-Ind (Algorithm 1 for chapter 5's model) share a look
    a, b = METHOD_STYLES["record_wise"], METHOD_STYLES["mcmc_ind"]
    assert (a.color, a.marker) == (b.color, b.marker)
    # tables and claims use the same labels as the figures
    assert all(LABELS[m] == METHOD_STYLES[m].label for m in METHODS)


def test_the_palette_is_seaborns_colour_blind_palette():
    import seaborn as sns

    assert PALETTE == tuple(sns.color_palette("colorblind").as_hex())


def test_an_unknown_method_is_refused_with_a_pointer_to_the_map():
    with pytest.raises(KeyError, match=r"dpinfer\.methods\.METHODS"):
        method_style("no_such_method")


def _clean_figure():
    fig, axes = subplots(1, 2, width=6.0, height=2.5, squeeze=False)
    for ax in axes[0]:
        ax.plot([1, 2, 3], [1, 4, 9], **method_style("naive"))
        ax.set(title="panel", xlabel="x", ylabel="y")
    legend_below(fig, axes[0, 0])
    return fig


def test_a_clean_figure_has_no_problems_and_its_texts_are_counted():
    report = check_layout(_clean_figure())
    assert report.problems == ()
    assert report.legends == 1
    assert report.texts >= 2 * 3 + 1  # titles, axis labels, the legend entry, plus tick labels


def test_overlapping_axis_labels_are_found():
    """fig5_7's defect: two rows' long y labels drawn on top of each other."""
    fig, axes = subplots(2, 1, width=3.0, height=0.9, squeeze=False)
    for ax in axes[:, 0]:
        ax.plot([0, 1], [0, 1])
        ax.set_ylabel("a very long y-axis label that is longer than the panel")
    fig.tight_layout()
    problems = check_layout(fig).problems
    assert any("overlaps" in p and "very long" in p for p in problems), problems


def test_text_outside_the_canvas_is_found():
    """fig4_4's defect: a panel title cut at the canvas edge."""
    fig, axes = subplots(1, 1, width=2.0, height=2.0, squeeze=False)
    axes[0, 0].set_title("a title far too long for a two-inch canvas, cut at both edges")
    problems = check_layout(fig).problems
    assert any("outside the canvas" in p for p in problems), problems


def test_a_legend_over_a_line_is_found_and_one_beside_it_is_not():
    """fig5_8's defect: the legend sits on a line."""
    fig, axes = subplots(1, 1, width=3.0, height=2.5, squeeze=False)
    ax = axes[0, 0]
    x = np.linspace(0, 1, 50)
    ax.plot(x, np.full_like(x, 0.9), **method_style("gibbs_ss_update"))
    ax.plot(x, np.full_like(x, 0.1), **method_style("naive"))
    ax.set_ylim(0, 1)
    ax.legend(loc="upper center")  # on the Gibbs-SS-Update line at 0.9
    problems = check_layout(fig).problems
    assert any("legend covers" in p for p in problems), problems
    ax.legend(loc="center")  # between the two lines
    assert check_layout(fig).problems == ()


def test_tick_labels_of_ticks_outside_the_view_are_not_checked():
    """Only drawn text counts: matplotlib keeps labels for ticks beyond the limits but skips
    them."""
    fig, axes = subplots(1, 1, width=3.0, height=2.5, squeeze=False)
    ax = axes[0, 0]
    ax.plot([0, 1], [0, 1])
    ax.set_xticks(
        [-5, 0, 0.5, 1, 6]
    )  # two ticks outside the view, their labels would overlap others
    ax.set_xlim(0, 1)
    fig.tight_layout()
    assert check_layout(fig).problems == ()


def _narrow_log_panels(label_minor: bool, share: bool = False):
    """Two panels of KS-like values inside one decade (0.03-0.08) on a log y axis."""
    from matplotlib.ticker import NullFormatter

    from dpinfer.plotting import log_axis

    fig, axes = subplots(1, 2, width=6.0, height=2.5, squeeze=False, sharey=share)
    for ax in axes[0]:
        ax.plot([1, 2, 3], [0.03, 0.05, 0.08], **method_style("naive"))
        if label_minor:
            log_axis(ax, "y")
        else:
            ax.set_yscale("log")
            ax.yaxis.set_minor_formatter(NullFormatter())
    fig.tight_layout()
    return fig


def test_a_log_axis_inside_one_decade_without_tick_labels_is_found():
    """Issue 30: the comparison figures' KS panels had a log axis with no tick label at all."""
    problems = check_layout(_narrow_log_panels(label_minor=False)).problems
    assert sum("y axis" in p and "no tick labels" in p for p in problems) == 2, problems


def test_log_axis_labels_a_view_inside_one_decade():
    fig = _narrow_log_panels(label_minor=True)
    assert check_layout(fig).problems == ()
    labels = [t.get_text() for t in fig.axes[0].yaxis.get_minorticklabels() if t.get_text()]
    assert "0.05" in labels


def test_a_shared_axis_needs_its_labels_on_one_panel_only():
    fig = _narrow_log_panels(label_minor=True, share=True)
    for label in fig.axes[1].get_yticklabels(which="both"):
        label.set_visible(False)
    assert check_layout(fig).problems == ()
