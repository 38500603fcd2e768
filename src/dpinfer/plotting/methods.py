"""Every method's look, in one place: colour, marker, line style and display label.

Every figure of every study draws a method through :func:`method_style`, so a method looks the
same wherever it appears (Naive is always vermillion squares, Non-Private always black crosses).
Colours come from seaborn's colour-blind palette. Families share a colour on purpose: the
noise-aware method of a study is blue, the naive plug-in vermillion, the non-private reference
black. Methods that share a colour never share a figure, and their markers differ; a test checks
both.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "PALETTE",
    "MethodStyle",
    "METHOD_STYLES",
    "method_style",
    "method_label",
    "method_color",
]

# seaborn's "colorblind" palette, written out so that a figure job need not import seaborn (two
# seconds per job); tests/test_figures.py checks it against seaborn. In order: blue, orange,
# green, vermillion, purple, brown, pink, grey, yellow, sky blue.
PALETTE = (
    "#0173b2",
    "#de8f05",
    "#029e73",
    "#d55e00",
    "#cc78bc",
    "#ca9161",
    "#fbafe4",
    "#949494",
    "#ece133",
    "#56b4e9",
)
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, BROWN, PINK, GREY, YELLOW, SKY = PALETTE
BLACK = "#000000"


@dataclass(frozen=True)
class MethodStyle:
    label: str
    color: str
    marker: str
    linestyle: str | tuple


METHOD_STYLES: dict[str, MethodStyle] = {
    # references and plug-ins, shared by every study
    "non_private": MethodStyle("Non-Private", BLACK, "x", ":"),
    "naive": MethodStyle("Naive", VERMILLION, "s", "--"),
    # exact posterior draws (the comparison study's binomial problem)
    "exact": MethodStyle("Exact (Beta mixture)", ORANGE, "*", "-"),
    # ju2022's record-wise data augmentation: the colour of MCMC-Ind, the same algorithm for
    # chapter 5
    "record_wise": MethodStyle("Algorithm 1 (record-wise MCMC)", GREEN, "D", "-."),
    # bernstein2020 chapter 3 (the thesis's names; naive MLE is chapter 3's Naive)
    "naive_mle": MethodStyle("Naive MLE", VERMILLION, "s", "--"),
    "naive_mle_unprojected": MethodStyle("Naive MLE, no projection", PINK, "v", ":"),
    "cgm": MethodStyle("CGM", BLUE, "o", "-"),
    "psgd": MethodStyle("PSGD", GREEN, "^", "-."),
    "random": MethodStyle("Random", GREY, "+", (0, (1, 1))),
    # bernstein2020 chapter 4
    "gibbs": MethodStyle("Gibbs (noise-aware)", BLUE, "o", "-"),
    "ops": MethodStyle("OPS", BROWN, "^", "-."),
    # bernstein2020 chapter 5 and the case study
    "gibbs_ss_update": MethodStyle("Gibbs-SS-Update", BLUE, "o", "-"),
    "gibbs_ss_noisy": MethodStyle("Gibbs-SS-Noisy", SKY, "v", "-"),
    "gibbs_ss_prior": MethodStyle("Gibbs-SS-Prior", PURPLE, "^", "-"),
    "mcmc_ind": MethodStyle("MCMC-Ind", GREEN, "D", "-."),
    "oi": MethodStyle("OI", ORANGE, "P", "--"),
    # raim2021
    "alg2_noisy": MethodStyle("Algorithm 2 (noisy)", BLACK, "o", "-"),
    "alg4_noise_free": MethodStyle("Algorithm 4 (noise-free)", GREY, "s", "--"),
    # raisa2021: the six DP samplers, and the non-DP samplers of the clipping study
    "hmc": MethodStyle("DP HMC", BLUE, "o", "-"),
    "dpps": MethodStyle("DP penalty", ORANGE, "s", "-"),
    "dppa": MethodStyle("DP penalty OCU+GWMH", GREEN, "^", "-"),
    "mdpps": MethodStyle("minibatch DP penalty", VERMILLION, "v", "--"),
    "mdppa": MethodStyle("minibatch DP penalty OCU+GWMH", PURPLE, "D", "--"),
    "barker": MethodStyle("DP Barker", BROWN, "P", "-."),
    "rwmh_nondp": MethodStyle("RWMH", SKY, "o", "-"),
    "hmc_nondp": MethodStyle("HMC", PINK, "s", "-"),
}


def _look(method: str) -> MethodStyle:
    try:
        return METHOD_STYLES[method]
    except KeyError:
        raise KeyError(
            f"method {method!r} has no style; add it to dpinfer.plotting.methods.METHOD_STYLES"
        ) from None


def method_label(method: str) -> str:
    """The display label of ``method``."""
    return _look(method).label


def method_color(method: str) -> str:
    """The colour of ``method`` (for box plots, scatter points and shaded areas)."""
    return _look(method).color


def method_style(method: str, *, marker: bool = True, label: bool = True) -> dict:
    """Keyword arguments for ``ax.plot`` / ``ax.errorbar``: colour, line style, label and (unless
    ``marker=False``, e.g. for densities and traces) the marker."""
    look = _look(method)
    kw = {"color": look.color, "linestyle": look.linestyle}
    if marker:
        kw.update(marker=look.marker, markersize=3.5)
    if label:
        kw["label"] = look.label
    return kw
