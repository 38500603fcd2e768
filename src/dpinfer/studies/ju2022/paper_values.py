"""What ju2022 prints (main text, supplement S-5 and S-6) and the settings each number refers to.

The paper's numbers and settings, apart from the claims that use them (:mod:`.paper`), so that
the summaries (:mod:`.summarise`) can print the paper's value beside ours without importing the
claims.
"""

from __future__ import annotations

from ..scorecard import Setting, setting

__all__ = [
    "PAPER_EPSILONS",
    "PAPER_ITERATIONS",
    "PAPER_BURNIN",
    "PAPER_LEVEL",
    "PAPER_REPLICATES",
    "PAPER_N_RECORDS",
    "PAPER_MODEL",
    "PAPER_COVERAGE",
    "PAPER_TRUTH_DECIMALS",
    "PAPER_SECONDS",
    "AUTHORS_R_2CORE_SECONDS",
    "TABLE_OF",
    "MEANS_FIGURE_OF",
    "ACCEPTANCE_FIGURE_OF",
    "DEV_RUNTIME",
    "DEV_MIXING",
    "DEV_CONVERGENCE",
    "paper_settings",
    "cell_is_at_paper_setting",
]

# ----------------------------------------------------------------------------- printed numbers
PAPER_EPSILONS = [0.1, 0.3, 1.0, 3.0, 10.0]
PAPER_ITERATIONS = 10_000  # sweeps per chain, the first half burn-in (Sec. 4, S-5)
PAPER_BURNIN = 5_000
PAPER_LEVEL = 0.9  # central credible intervals of Table 1 and supplement Table 1
PAPER_REPLICATES = 100
PAPER_N_RECORDS = 100  # records per confidential data set (both models)
# the model settings the paper prints (Sec. 4 and S-5): mechanism sensitivity and prior
PAPER_MODEL = {
    "loglinear": {"mechanism": "laplace", "sensitivity": 10, "prior_concentration": 2.0},
    "linreg": {"mechanism": "laplace", "sensitivity": 13, "clamp": [-10.0, 10.0], "prior_sd": 2.0},
}
# Table 1 (log-linear, p_1..p_5) and the supplement's Table 1 (regression, beta_0..beta_2):
# "truth" is the header row, then coverage per epsilon.
PAPER_COVERAGE = {
    "loglinear": {
        "truth": [0.097, 0.148, 0.145, 0.446, 0.163],
        0.1: [1, 1, 1, 0.36, 1],
        0.3: [0.97, 1, 1, 0.59, 1],
        1.0: [0.94, 0.99, 0.97, 0.83, 0.98],
        3.0: [0.95, 0.91, 0.97, 0.89, 0.93],
        10.0: [0.92, 0.88, 0.94, 0.92, 0.90],
    },
    "linreg": {
        "truth": [-1.79, -2.89, -0.66],
        0.1: [0.99, 0.60, 0.99],
        0.3: [1, 0.66, 0.94],
        1.0: [1, 0.84, 0.80],
        3.0: [1, 0.84, 0.75],
        10.0: [0.93, 0.87, 0.85],
    },
}
# decimals printed in the headers of the two tables
PAPER_TRUTH_DECIMALS = {"loglinear": 3, "linreg": 2}
# Sec. S-6: R on a pair of 64-core AMD Epyc 7662, seconds per 10,000-iteration chain
PAPER_SECONDS = {"loglinear": 404.0, "linreg": 330.0}
# The authors' R code re-measured on a 2-core machine (FACTS.md Sec. 6), CPU s per 10,000 sweeps.
AUTHORS_R_2CORE_SECONDS = {"loglinear": (231.0, 306.0), "linreg": (132.0, 140.0)}

TABLE_OF = {"loglinear": "tab1", "linreg": "tabS1"}
MEANS_FIGURE_OF = {"loglinear": "fig1a", "linreg": "fig2"}
ACCEPTANCE_FIGURE_OF = {"loglinear": "fig1b", "linreg": "figS1"}

# headings of docs/deviations.md (GitHub anchors) that explain a difference
DEV_RUNTIME = "runtime-compiled-kernels-on-another-machine"
DEV_MIXING = "mixing-of-the-regression-chain-fig2-tabs1-kept-as-in-the-paper"
DEV_CONVERGENCE = "convergence-diagnostics-of-the-ju2022-chains"


# ----------------------------------------------------------------------------- settings
def paper_settings(
    model: str,
    summary: dict,
    *,
    level: float,
    burnin: int,
    model_cfg: dict,
    n_records: int | None = None,
) -> dict[str, Setting]:
    """The paper's settings beside this run's, by kind: ``cell`` (what one coverage cell or
    posterior mean refers to: level, chain length, replicates, N, mechanism, prior), ``chain``
    (chain length, mechanism, prior: what a chain's acceptance and mixing refer to) and
    ``grid`` (the epsilon grid a statement over "every epsilon" refers to)."""
    R = int(summary["post_mean"].shape[1])
    chain = [
        setting("sweeps per chain", PAPER_ITERATIONS, int(summary["iterations"])),
        setting("burn-in sweeps", PAPER_BURNIN, int(burnin)),
    ]
    chain += [
        setting(key.replace("_", " "), value, model_cfg.get(key))
        for key, value in PAPER_MODEL[model].items()
    ]
    cell = chain + [setting("replicates per epsilon", PAPER_REPLICATES, R, at_least=True)]
    if n_records is not None:
        cell.append(setting("records per data set", PAPER_N_RECORDS, int(n_records)))
    level_setting = setting("credible level", PAPER_LEVEL, float(level))
    grid = setting("epsilon grid", PAPER_EPSILONS, [float(e) for e in summary["epsilons"]])
    return {
        "chain": tuple(chain),
        "cell": tuple(cell),
        "interval": tuple([level_setting] + cell),
        "grid": (grid,),
    }


def cell_is_at_paper_setting(model: str, summary: dict, **run) -> bool:
    """Whether a coverage cell of this run is computed at the paper's setting (tables print the
    paper's value beside it only then)."""
    return all(s.same for s in paper_settings(model, summary, **run)["interval"])
