"""Where a run's measured time is: the one list that docs/cluster.md and docs/deviations.md print
and the tests check (``tests/test_cluster.py``). Pure Python, no imports.

Every table of a run is byte-identical between runs with the same config on any machine, core
count or executor, except what this module lists: the timing tables (each with the columns that
carry measured time, CPU seconds of this run or a number computed from them), the scorecard rows
whose statements are about run time, and the files that summarise the scorecard. A new table
or claim that measures time is added here, and the docs' tables with it.
"""

from __future__ import annotations

__all__ = [
    "TIMING_TABLES",
    "DOCUMENT_TIMES",
    "TIMING_CLAIMS",
    "TIMING_FIGURES",
    "SCORECARD_FILES",
    "is_timing_claim",
    "timing_files",
]

# the recommended method is the qualifying one with the most ESS per CPU second, so which
# method a row names (and its diagnostics, and the others that qualify) can change with it
_RECOMMENDED_TIMED = ("ess_per_s", "recommended", "rhat_max", "flagged", "also_qualify")

# table (under results/, its .md twin alike) -> the columns that carry measured time. The other
# columns of these tables are the setting (and the documents' own times, DOCUMENT_TIMES).
TIMING_TABLES: dict[str, tuple[str, ...]] = {
    "ju2022/runtime.csv": (
        "seconds_per_chain_ours",
        "speedup_vs_paper",
        "speedup_vs_authors_R_2core",
    ),
    "raim2021/timing.csv": ("ours seconds", "speed-up vs paper", "speed-up vs re-run"),
    "bernstein2020/ch3/runtime.csv": ("mean_cpu_seconds", "ratio_to_naive"),
    "bernstein2020/case/runtime.csv": ("cpu_seconds", "seconds_per_tract", "iterations_per_second"),
    "comparison/cost.csv": ("ess_per_s", "cpu_per_trial"),
    # the run's cost profile (dpinfer.job_cost), written after every successful run
    "cost.csv": ("wall_s", "cpu_s", "kernel_cpu_s", "overhead_s"),
    "comparison/recommended.csv": _RECOMMENDED_TIMED,
    # the own-data study's worked example; a data set a user adds has the same two tables
    # (own_data/<name>_cost.csv, own_data/<name>_recommended.csv) with the same columns
    "own_data/fair_cost.csv": ("ess_per_s", "cpu_per_trial"),
    "own_data/fair_recommended.csv": _RECOMMENDED_TIMED,
}

# columns of the timing tables that print a document's time: the same in every run
DOCUMENT_TIMES: frozenset[tuple[str, str]] = frozenset(
    {
        ("ju2022/runtime.csv", "seconds_per_chain_paper"),
        ("ju2022/runtime.csv", "seconds_authors_R_2core"),
        ("raim2021/timing.csv", "paper seconds"),
        ("raim2021/timing.csv", "author package re-run seconds"),
    }
)

# scorecard rows about measured time: (target, start of the statement; "" for every row of the
# target). They are rows of results/<study>/claims/*.csv and of results/fidelity.{csv,md}.
TIMING_CLAIMS: tuple[tuple[str, str], ...] = (
    ("runtime", ""),  # ju2022
    ("timing", ""),  # raim2021
    ("fig3_4", "runtime:"),  # bernstein2020 chapter 3
    ("fig3_6", "runtime:"),  # bernstein2020 chapter 3
    ("fig5_8", ""),  # bernstein2020 chapter 5
    ("fig5_14", "runtime:"),  # bernstein2020 case study
    ("cost", ""),  # comparison
    ("ess_per_second", ""),  # comparison
)

# figures (under results/, .pdf and .png) that plot measured time
TIMING_FIGURES: tuple[str, ...] = (
    "bernstein2020/fig5_8",
    "comparison/ess_per_second",
    "own_data/fair_accuracy",  # its panel of ESS per CPU second
)

# files that gather the scorecard: their timing rows differ, and so can the verdict counts they
# print (a timing row's verdict can change between runs); summary.{md,json} also record the run's
# wall time
SCORECARD_FILES: tuple[str, ...] = ("fidelity.csv", "fidelity.md", "summary.md", "summary.json")


def is_timing_claim(target: str, statement: str) -> bool:
    """Whether a scorecard row (its target id and statement) is about measured time."""
    return any(target == t and statement.startswith(prefix) for t, prefix in TIMING_CLAIMS)


def timing_files() -> set[str]:
    """Every timing table's files under results/: the CSV and its Markdown twin."""
    return {p for csv in TIMING_TABLES for p in (csv, csv[: -len(".csv")] + ".md")}
