"""The experiment grid as names and paths: setting names, chunk ranges, target paths.

Pure Python (no numpy, numba, scipy or matplotlib): the Snakemake workflow imports this module
when it is parsed, so a dry run or a cluster job never pays for the numerical stack. The study
packages use the same functions, so a file name written by a rule and read by a step agree.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "FIGURE_SUFFIXES",
    "TABLE_SUFFIXES",
    "target_paths",
    "fmt_eps",
    "n_chunks",
    "chunk_range",
    "chunk_replicates",
    "ch4_experiment",
    "ch5_setting",
    "parse_ch5_setting",
    "ch5_synthetic_settings",
    "nig_chain_spec",
    "case_batches",
    "case_chain_specs",
    "raim_setting",
    "parse_raim_setting",
    "raim_settings",
    "ch3_cell_name",
    "ch3_cells",
]

FIGURE_SUFFIXES = (".pdf", ".png")
# a table's data, its Markdown and the HTML page the report shows (dpinfer.studies.report_pages)
TABLE_SUFFIXES = (".csv", ".md", ".html")


def target_paths(study: str, target_id: str, kind: str, results: str = "results") -> list[str]:
    """Final artefact paths of one target, as TARGETS.md fixes them (a table also has the page the
    HTML report shows)."""
    if kind not in ("figure", "table"):
        raise ValueError(f"kind must be 'figure' or 'table', got {kind!r}")
    suffixes = FIGURE_SUFFIXES if kind == "figure" else TABLE_SUFFIXES
    return [f"{results}/{study}/{target_id}{s}" for s in suffixes]


def fmt_eps(eps: float) -> str:
    """A number as it appears in file names: shortest round-trip text ('0.1', '10')."""
    e = float(eps)
    if not math.isfinite(e):
        raise ValueError(f"not a finite number: {eps!r}")
    return str(int(e)) if e.is_integer() else repr(e)


# ----------------------------------------------------------------------------- chunks
def n_chunks(n_replicates: int, chunk_size: int) -> int:
    """Number of chunk jobs that cover ``n_replicates`` replicates."""
    if n_replicates < 1 or chunk_size < 1:
        raise ValueError("n_replicates and chunk_size must be positive")
    return math.ceil(n_replicates / chunk_size)


def chunk_range(chunk: int, n_replicates: int, chunk_size: int) -> list[int]:
    """[start, stop) of the replicates of one chunk, as a rule param.

    A chunk job receives this pair rather than the replicate count, so raising ``replicates``
    adds chunks (and redoes only the last, partial one) instead of redoing every chunk.
    """
    start = int(chunk) * int(chunk_size)
    if not 0 <= start < n_replicates:
        raise ValueError(f"chunk {chunk} is out of range for {n_replicates} replicates")
    return [start, min(int(n_replicates), start + int(chunk_size))]


def chunk_replicates(chunk: int, n_replicates: int, chunk_size: int) -> range:
    """Replicate indices (0-based) handled by one chunk."""
    return range(*chunk_range(chunk, n_replicates, chunk_size))


# ----------------------------------------------------------------------------- bernstein2020
def ch4_experiment(model: str, n: int, epsilon: float) -> str:
    """Seed-key experiment name of one chapter-4 calibration setting."""
    return f"ch4_{model}_n{int(n)}_eps{fmt_eps(epsilon)}"


def ch5_setting(n: int, eps: float) -> str:
    """Directory name of one chapter-5 synthetic setting, e.g. 'n100_eps0.1'."""
    return f"n{int(n)}_eps{fmt_eps(eps)}"


def _parse(pattern: str, name: str, what: str) -> tuple[str, str]:
    m = re.match(pattern, name)
    if not m:
        raise ValueError(f"not a {what} setting name: {name!r}")
    return m.group(1), m.group(2)


def parse_ch5_setting(name: str) -> tuple[int, float]:
    """(n, eps) from :func:`ch5_setting`."""
    n, eps = _parse(r"^n([0-9]+)_eps([0-9.e+-]+)$", name, "chapter-5")
    return int(n), float(eps)


def ch5_synthetic_settings(synthetic: dict) -> list[tuple[int, float]]:
    """(n, eps) pairs of chapter 5's synthetic study: every n at the vs-n epsilon and every
    epsilon at the vs-epsilon n (config ``bernstein2020.chapter5.synthetic``), sorted, unique."""
    pairs = {(int(n), float(synthetic["eps_vs_n"])) for n in synthetic["n_values"]}
    pairs |= {(int(synthetic["n_vs_eps"]), float(e)) for e in synthetic["epsilons"]}
    return sorted(pairs)


# ----------------------------------------------------------------------------- raim2021
def nig_chain_spec(method: str, section: dict, n: int = 0) -> dict:
    """The chain spec of one method of the NIG regression model (the method table,
    :mod:`dpinfer.studies.nig_methods`) from a config section with ``conjugate_draws``,
    ``gibbs`` and (for MCMC-Ind) ``mcmc_ind``: conjugate methods draw independently (no burn-in,
    one "chain"); Gibbs-SS burns in and keeps longer from ``gibbs.large_n`` on when that key is
    set; options reach the sampler as keywords; ``gibbs.diagnostic_draws`` (when set) caps the
    draws per chain that R-hat and ESS read (:func:`dpinfer.studies.nig_methods.run_chain`)."""
    if method in ("non_private", "naive"):
        return {
            "method": method,
            "burnin": 0,
            "keep": section["conjugate_draws"],
            "chains": 1,
            "options": {},
        }
    if method == "mcmc_ind":
        m = section["mcmc_ind"]
        return {
            "method": method,
            "burnin": m["burnin"],
            "keep": m["keep"],
            "chains": m["chains"],
            "options": {},
        }
    g = section["gibbs"]
    large = "large_n" in g and n >= g["large_n"]
    options = {"collapsed_moves": g["collapsed_moves"]}
    if method == "gibbs_ss_noisy":
        options["moments"] = g["noisy_moments"]
    if "sign_flip" in g:
        options["sign_flip"] = g["sign_flip"]
    spec = {
        "method": method,
        "burnin": g["burnin_large_n"] if large else g["burnin"],
        "keep": g["keep_large_n"] if large else g["keep"],
        "chains": g["chains"],
        "options": options,
    }
    if "diagnostic_draws" in g:
        spec["diagnostic_draws"] = g["diagnostic_draws"]
    return spec


def raim_setting(rho: float, lam: float) -> str:
    """Directory name of one raim2021 noise setting, e.g. 'rho0.01_lambda0.2'."""
    return f"rho{fmt_eps(rho)}_lambda{fmt_eps(lam)}"


def parse_raim_setting(name: str) -> tuple[float, float]:
    """(rho, lambda) from :func:`raim_setting`."""
    rho, lam = _parse(r"^rho([0-9.e+-]+)_lambda([0-9.e+-]+)$", name, "raim2021")
    return float(rho), float(lam)


def raim_settings(rhos, lambdas) -> list[str]:
    """Every (rho, lambda) setting name of the regression study, rho-major."""
    return [raim_setting(r, lam) for r in rhos for lam in lambdas]


# ----------------------------------------------------------------------------- bernstein2020 ch. 3
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


def _ch3_cell(
    ch3: dict,
    name: str,
    model: str,
    states: int,
    n: int,
    epsilon,
    methods: list,
    *,
    lambdas=None,
    keep_marginals=False,
    releases=None,
) -> dict:
    """The settings one cell job reads: its model block, lambdas of its methods, and the CGM /
    PSGD blocks only if it runs those methods (so editing PSGD's grid reruns only PSGD cells)."""
    lams = dict(ch3["lambdas"], **(lambdas or {}))
    used = [m for m in methods if m in lams] + (["naive"] if "cgm" in methods else [])
    return {
        "name": name,
        "model": model,
        "spec": ch3["models"][model],
        "states": states,
        "n": n,
        "releases": releases or ch3["releases"],
        "epsilon": epsilon,
        "methods": methods,
        "lambdas": {m: lams[m] for m in used},
        "keep_marginals": keep_marginals,
        "cgm": ch3["cgm"] if "cgm" in methods else None,
        "psgd": ch3["psgd"] if "psgd" in methods else None,
    }


def ch3_cells(ch3: dict) -> dict:
    """Every cell of the synthetic chapter-3 figures: figure -> cell stem -> job settings.

    fig3_1 naive MLE per (N, eps); fig3_2 naive with and without projection per N; fig3_3 naive and
    non-private per lambda; fig3_4 naive, CGM and PSGD per (model, N, eps) plus a release-free
    reference cell (non-private, random) per (model, N); fig3_5 one cell keeping its marginals.
    """
    cells = {f: {} for f in ("fig3_1", "fig3_2", "fig3_3", "fig3_4", "fig3_5")}
    f1, f2, f3, f4, f5 = (ch3[f] for f in cells)
    for n in f1["n_grid"]:
        for e in f1["epsilons"]:
            stem = ch3_cell_name("fig3_1", n=n, epsilon=e)
            cells["fig3_1"][stem] = _ch3_cell(
                ch3, f"fig3_1_{stem}", f1["model"], f1["states"], n, e, ["naive"]
            )
    for n in f2["n_grid"]:
        stem = ch3_cell_name("fig3_2", n=n)
        cells["fig3_2"][stem] = _ch3_cell(
            ch3,
            f"fig3_2_{stem}",
            f2["model"],
            f2["states"],
            n,
            f2["epsilon"],
            ["naive", "naive_unprojected"],
            releases=f2.get("releases"),
        )
    for lam in f3["lambdas"]:
        stem = ch3_cell_name("fig3_3", lam=lam)
        cells["fig3_3"][stem] = _ch3_cell(
            ch3,
            f"fig3_3_{stem}",
            f3["model"],
            f3["states"],
            f3["n"],
            f3["epsilon"],
            ["naive", "nonprivate"],
            lambdas={"naive": lam, "nonprivate": lam},
        )
    for model in f4["models"]:
        for n in f4["n_grid"]:
            stem = ch3_cell_name("fig3_4", model=model, n=n)
            cells["fig3_4"][stem] = _ch3_cell(
                ch3,
                f"fig3_4_{stem}",
                model,
                f4["states"],
                n,
                None,
                ["nonprivate", "random"],
                releases=f4.get("releases"),
            )
            for e in f4["epsilons"]:
                stem = ch3_cell_name("fig3_4", model=model, n=n, epsilon=e)
                cells["fig3_4"][stem] = _ch3_cell(
                    ch3,
                    f"fig3_4_{stem}",
                    model,
                    f4["states"],
                    n,
                    e,
                    ["naive", "cgm", "psgd"],
                    releases=f4.get("releases"),
                )
    cells["fig3_5"][ch3_cell_name("fig3_5")] = _ch3_cell(
        ch3,
        "fig3_5",
        f5["model"],
        f5["states"],
        f5["n"],
        f5["epsilon"],
        ["naive", "cgm", "nonprivate"],
        keep_marginals=True,
        releases=f5.get("releases"),
    )
    return cells


# ------------------------------------------------------------------------- bernstein2020 case study
def case_batches(count: int, per_job: int) -> list[list[int]]:
    """Tract-index ranges [start, stop) of the case study's batch jobs; a job runs the tracts
    of its range that the filter keeps (which ones is known only after the state is drawn)."""
    return [[a, min(a + per_job, count)] for a in range(0, count, per_job)]


def case_chain_specs(case: dict, epsilon: float) -> list[dict]:
    """The chain specs of the case study's private methods at ``epsilon``: Gibbs-SS with the
    thesis's lengths (``gibbs``) at the headline epsilon and ``grid_gibbs``'s elsewhere (which
    may also set ``collapsed_moves``)."""
    if float(epsilon) == float(case["headline_epsilon"]):
        section = case
    else:
        section = dict(case, gibbs=dict(case["gibbs"], **case["grid_gibbs"]))
    return [nig_chain_spec(m, section) for m in case["methods"]]
