"""raim2021 figures: one function per figure target (``knots``, ``error_bound``,
``step_function``, ``traces``, ``mse_densities``), each ``function(input, output, **params)``."""

from __future__ import annotations

import numpy as np

from ...grid import fmt_eps
from ...io import load_npz
from .grid import raim_setting

__all__ = ["knots", "error_bound", "step_function", "traces", "mse_densities"]

METHOD_NAMES = {"equal_steps": "equal steps", "small_rects": "small rectangles"}


def _panel_label(ax, text, x=0.98, y=0.95, ha="right"):
    ax.text(x, y, text, transform=ax.transAxes, ha=ha, va="top", fontsize=7)


def _staircase(ax, ku, kh, p0, u_max, **kw):
    """h*(u): P(A_0) on [0, u_0), P(A_{u_j}) on [u_j, u_{j+1}), 0 above u_N."""
    heights = np.r_[p0, kh[:-1], 0.0]  # each drawn from its knot to the next
    ax.plot(np.r_[0.0, np.repeat(ku, 2), u_max], np.repeat(heights, 2), **kw)


def _panel(d, prefix):
    """Knots (u, P), the curve (u, P(A_u)) and P(A_0) of one envelope of the npz."""
    ku, kh = np.exp(d[f"{prefix}_knot_log_u"]), np.exp(d[f"{prefix}_knot_log_p"])
    u = d[f"{prefix}_curve_u"]
    return ku, kh, u, np.exp(d[f"{prefix}_curve_log_p"]), float(np.exp(d[f"{prefix}_log_p0"]))


def _envelope_panel(ax, d, z, method: str, **knot_style):
    """P(A_u), h*(u) and the knots of the knot figure's envelope (z, method) on ``ax``; returns
    its npz prefix and its knots (u, P)."""
    p = f"z{fmt_eps(z)}_{method}"
    ku, kh, u, pu, p0 = _panel(d, p)
    ax.plot(u, pu, color="red", lw=1.0, label="P(A_u)")
    _staircase(ax, ku, kh, p0, float(u[-1]), color="black", ls="--", lw=0.8, label="h*(u)")
    ax.plot(ku, kh, "o", color="black", **knot_style)
    ax.set_xlim(0, float(u[-1]))
    ax.set_xlabel("u")
    ax.set_ylabel("P(A_u)")
    ax.set_title(f"z = {fmt_eps(z)}, {METHOD_NAMES[method]}")
    return p, ku, kh


def knots(input, output) -> None:
    """Figure `knots`: P(A_u) with N+1 knots, z = 200 (top) / 2 (bottom), equal steps (left)
    vs small rectangles (right)."""
    from ...plotting import save_figure, subplots

    d = load_npz(input.envelopes)
    zs = d["z_values"]
    fig, axes = subplots(len(zs), 2, width=6.5, height=2.3, squeeze=False)
    for r, z in enumerate(zs):
        for c, method in enumerate(METHOD_NAMES):
            p, _, _ = _envelope_panel(axes[r, c], d, z, method, ms=3.5, label="knots")
            _panel_label(axes[r, c], f"acceptance {float(d[f'{p}_acceptance']):.4f}")
            if r == 0 and c == 0:
                axes[r, c].legend(loc="lower left", frameon=False)
    save_figure(fig, output.pdf, output.png)


def error_bound(input, output) -> None:
    """Figure `error_bound`: the rectangles R_j between consecutive knots, whose total area
    times c/psi bounds the total-variation distance between h and p (z = 2 example); the
    panels print the bound and the TV distance itself (both by quadrature)."""
    from matplotlib.patches import Rectangle

    from ...plotting import COLORS, save_figure, subplots

    d = load_npz(input.envelopes)
    z = d["z_values"][-1]
    fig, axes = subplots(1, 2, width=6.5, height=2.8, squeeze=False)
    rect_style = {"facecolor": COLORS[1], "alpha": 0.35, "edgecolor": COLORS[3], "lw": 0.8}
    for c, method in enumerate(METHOD_NAMES):
        ax = axes[0, c]
        # the rectangles (patches) are drawn below the lines whatever the order they are added in
        p, ku, kh = _envelope_panel(ax, d, z, method, ms=3)
        total = 0.0
        for j in range(1, ku.size):
            w, h = ku[j] - ku[j - 1], kh[j - 1] - kh[j]
            total += w * h
            ax.add_patch(Rectangle((ku[j - 1], kh[j]), w, h, **rect_style))
            ax.text(ku[j - 1] + w / 2, kh[j] + h / 2, f"R{j}", ha="center", va="center", fontsize=6)
        psi_c = float(d[f"{p}_psi_c"])
        _panel_label(
            ax,
            f"sum |R_j| = {total:.4f}\nTV bound (c/psi) sum |R_j| = {total / psi_c:.3f}"
            f"\nTV(h, p) = {float(d[f'{p}_tv']):.3f}",
        )
        if c == 0:
            ax.legend(loc="lower left", frameon=False)
    save_figure(fig, output.pdf, output.png)


def step_function(input, output) -> None:
    """Figure `step_function`: the step function of the slides' code example (lognormal
    z=100, mu=5, s2=9 weight, Laplace(0.2) base): full range and a zoom on [u_L, u_H]."""
    from ...plotting import save_figure, subplots

    d = load_npz(input.envelopes)
    ku, kh, u, pu, p0 = _panel(d, "example")
    fig, axes = subplots(1, 2, width=6.5, height=2.8, squeeze=False)
    span = ku[-1] - ku[0]
    for c, (lo, hi) in enumerate(
        ((0.0, float(u[-1])), (ku[0] - 0.02 * span, ku[-1] + 0.02 * span))
    ):
        ax = axes[0, c]
        ax.plot(u, pu, color="red", lw=0.8, label="P(A_u)")
        _staircase(ax, ku, kh, p0, float(u[-1]), color="black", ls="--", lw=0.6, label="h*(u)")
        ax.plot(np.r_[0.0, ku], np.r_[p0, kh], "o", color="black", ms=2, label="knots")
        ax.set_xlim(lo, hi)
        ax.set_xlabel("u")
        ax.set_ylabel("h*(u)")
        ax.set_title(f"step function, N = {ku.size - 1}" if c == 0 else "zoom on [u_L, u_H]")
    text = f"u_L = {ku[0]:.6g}\nu_H = {ku[-1]:.6g}\nacceptance {float(d['example_acceptance']):.5f}"
    _panel_label(axes[0, 0], text, 0.04, 0.6, "left")
    axes[0, 0].legend(loc="lower left", frameon=False)
    save_figure(fig, output.pdf, output.png)


def traces(input, output, burnin: int) -> None:
    """Figure `traces`: sigma^2 traces, one panel per lambda: Algorithm 2 black, Algorithm 4
    grey, true value 1 red dashed; burn-in shaded."""
    from ...plotting import legend_below, method_style, save_figure, subplots

    d = load_npz(input.chains)
    lams = d["lambdas"]
    fig, axes = subplots(1, lams.size, width=6.5, height=2.6, squeeze=False)
    for c, lam in enumerate(lams):
        ax = axes[0, c]
        noisy = d[f"noisy_{fmt_eps(lam)}"][:, 2]
        it = np.arange(1, noisy.size + 1)
        ax.axvspan(0, burnin, color="0.93", lw=0, label="burn-in")
        for m, trace in (("alg2_noisy", noisy), ("alg4_noise_free", d["free"][:, 2])):
            ax.plot(
                it, trace, lw=0.5, **dict(method_style(m, marker=False), linestyle="-")
            )  # solid: dense traces
        ax.axhline(1.0, color="red", ls="--", lw=1.0, label="true value")
        ax.set_title(f"rho = {fmt_eps(float(d['rho']))}, lambda = {fmt_eps(lam)}")
        ax.set_xlabel("iteration")
        ax.set_ylabel("sigma^2")
        kept = noisy[burnin:]
        ax.set_ylim(0, max(float(np.quantile(kept, 0.999)) * 1.3, 1.6))
    legend_below(fig, axes[0, 0])
    save_figure(fig, output.pdf, output.png)


def mse_densities(input, output, rhos: list, lambdas: list) -> None:
    """Figure `mse_densities`: rows rho, columns lambda (descending as in the slides); empirical
    density (seaborn Gaussian KDE, Scott's bandwidth) of MSE^(s), Algorithm 2 black solid vs
    Algorithm 4 grey dashed (their looks in dpinfer.plotting.methods)."""
    import seaborn as sns

    from ...plotting import method_style, save_figure, subplots

    d = load_npz(input.summary)
    lams = sorted(lambdas, reverse=True)
    fig, axes = subplots(len(rhos), len(lams), width=6.8, height=1.9, squeeze=False)
    for r, rho in enumerate(rhos):
        for c, lam in enumerate(lams):
            name = raim_setting(rho, lam)
            ax = axes[r, c]
            for key, m in (("mse_noisy", "alg2_noisy"), ("mse_free", "alg4_noise_free")):
                v = d[f"{name}/{key}"]
                if v.size > 1 and np.std(v) > 0:
                    sns.kdeplot(
                        x=v,
                        ax=ax,
                        lw=1.0,
                        bw_method="scott",
                        cut=3,
                        clip=(0.0, None),
                        **method_style(m, marker=False),
                    )
                else:
                    ax.axvline(float(v[0]), lw=1.0, **method_style(m, marker=False))
            ax.set_title(f"rho = {fmt_eps(rho)}, lambda = {fmt_eps(lam)}")
            ax.set_xlabel("MSE")
            ax.set_ylabel("density" if c == 0 else "")
            _panel_label(ax, f"S = {d[f'{name}/mse_noisy'].size}")
    axes[0, 0].legend(loc="upper right", frameon=False, fontsize=6, bbox_to_anchor=(1.0, 0.85))
    save_figure(fig, output.pdf, output.png)
