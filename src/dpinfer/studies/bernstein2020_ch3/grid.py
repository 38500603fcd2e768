"""Chapter 3's grid (pure Python): the cells of the synthetic figures and their file stems.

The rule file builds one job per cell from :func:`ch3_cells` when the workflow is parsed; the
steps find a cell's file by :func:`ch3_cell_name`. Imports only :mod:`dpinfer.grid`.
"""

from __future__ import annotations

from ...grid import fmt_eps

__all__ = ["ch3_cell_name", "ch3_cells"]


def ch3_cell_name(
    figure: str,
    *,
    model: str | None = None,
    n: int | None = None,
    epsilon: float | None = None,
    lam: float | None = None,
) -> str:
    """File stem of one cell of a chapter-3 figure grid (``runs/<figure>/<stem>.npz``).

    fig3_1 ``n100_eps0.1``; fig3_2 ``n1000``; fig3_3 ``lam0.01``; fig3_4 ``chain1_n100_eps0.1``
    (``chain1_n100_ref`` for the release-free references); fig3_5 ``cell``; fig3_6
    ``size10000_eps1`` (``size10000_ref``), where n is the number of training individuals.
    """
    ref = "ref" if epsilon is None else f"eps{fmt_eps(epsilon)}"
    if figure == "fig3_1":
        return f"n{int(n)}_{ref}"
    if figure == "fig3_2":
        return f"n{int(n)}"
    if figure == "fig3_3":
        return f"lam{fmt_eps(lam)}"
    if figure == "fig3_4":
        return f"{model}_n{int(n)}_{ref}"
    if figure == "fig3_5":
        return "cell"
    if figure == "fig3_6":
        return f"size{int(n)}_{ref}"
    raise ValueError(f"not a chapter-3 figure: {figure!r}")


def ch3_cells(ch3: dict) -> dict:
    """Every cell of the synthetic chapter-3 figures: figure -> cell stem -> job settings.

    fig3_1 naive MLE per (N, eps); fig3_2 naive with and without projection per N; fig3_3 naive and
    non-private per lambda; fig3_4 naive, CGM and PSGD per (model, N, eps) plus a release-free
    reference cell (non-private, random) per (model, N); fig3_5 one cell keeping its marginals.
    """
    cells = {f: {} for f in ("fig3_1", "fig3_2", "fig3_3", "fig3_4", "fig3_5")}
    f1, f2, f3, f4, f5 = (ch3[f] for f in cells)

    def add(figure, n, epsilon, methods, *, model=None, lam=None, lambdas=None, keep=False):
        """One cell job's settings: its model block, the lambdas of its methods, and the CGM /
        PSGD blocks only if it runs those methods (so editing PSGD's grid reruns only PSGD
        cells)."""
        stem = ch3_cell_name(figure, model=model, n=n, epsilon=epsilon, lam=lam)
        fig, model = ch3[figure], model or ch3[figure]["model"]
        lams = dict(ch3["lambdas"], **(lambdas or {}))
        used = [m for m in methods if m in lams] + (["naive_mle"] if "cgm" in methods else [])
        cells[figure][stem] = {
            "name": figure if figure == "fig3_5" else f"{figure}_{stem}",
            "model": model,
            "spec": ch3["models"][model],
            "states": fig["states"],
            "n": n,
            "releases": fig.get("releases") or ch3["releases"],
            "epsilon": epsilon,
            "methods": methods,
            "lambdas": {m: lams[m] for m in used},
            "keep_marginals": keep,
            "cgm": ch3["cgm"] if "cgm" in methods else None,
            "psgd": ch3["psgd"] if "psgd" in methods else None,
        }

    for n in f1["n_grid"]:
        for e in f1["epsilons"]:
            add("fig3_1", n, e, ["naive_mle"])
    for n in f2["n_grid"]:
        add("fig3_2", n, f2["epsilon"], ["naive_mle", "naive_mle_unprojected"])
    for lam in f3["lambdas"]:
        add(
            "fig3_3",
            f3["n"],
            f3["epsilon"],
            ["naive_mle", "non_private"],
            lam=lam,
            lambdas={"naive_mle": lam, "non_private": lam},
        )
    for model in f4["models"]:
        for n in f4["n_grid"]:
            for e in [None, *f4["epsilons"]]:  # the release-free reference cell first
                methods = ["non_private", "random"] if e is None else ["naive_mle", "cgm", "psgd"]
                add("fig3_4", n, e, methods, model=model)
    add("fig3_5", f5["n"], f5["epsilon"], ["naive_mle", "cgm", "non_private"], keep=True)
    return cells
