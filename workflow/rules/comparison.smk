# The comparison study: every noise-aware method on the same release, side by side (issue 15;
# no source document). DAG: comparison_run_chunk (one chunk of trials of one (problem, n,
# epsilon): simulate, release, reference posterior, every method) -> comparison_summarise
# (metrics, cost, recommended tables) -> the three figures and the scorecard rows.
# A chunk job gets only its problem's block and the trial settings; figure and recommendation
# settings reach no compute job.
validate_section(["comparison"], "comparison")
CMP = config["comparison"]
CMP_DIR = f"{RESULTS}/comparison"
CMP_LOGS = f"{LOGS}/comparison"

if CMP["accuracy_trials"] > CMP["replicates"]:
    config_error(
        "comparison.accuracy_trials", f"must not exceed comparison.replicates ({CMP['replicates']})"
    )
if CMP["chunk_size"] > CMP["replicates"]:
    config_error(
        "comparison.chunk_size", f"must not exceed comparison.replicates ({CMP['replicates']})"
    )
if CMP["figure"]["n"] not in CMP["n_values"]:
    config_error("comparison.figure.n", f"must be one of comparison.n_values {CMP['n_values']}")
if CMP["figure"]["epsilon"] not in CMP["epsilons"]:
    config_error(
        "comparison.figure.epsilon", f"must be one of comparison.epsilons {CMP['epsilons']}"
    )
for _problem in CMP["problems"]:
    if _problem not in CMP:
        config_error(
            f"comparison.{_problem}", "is listed in comparison.problems but has no settings block"
        )
if "regression" in CMP["problems"]:
    _lo, _hi = CMP["regression"]["bounds"]
    if not _lo < _hi:
        config_error("comparison.regression.bounds", "must be [lower, upper] with lower < upper")
    _ref = CMP["regression"]["reference"]
    _tries = [_ref["keep"], *_ref.get("longer", [])]
    if any(b <= a for a, b in zip(_tries, _tries[1:])):
        config_error(
            "comparison.regression.reference.longer",
            f"must rise above reference.keep ({_ref['keep']}): {_tries[1:]}",
        )

register_targets(
    "comparison",
    [
        ("accuracy_vs_eps", "figure"),
        ("accuracy_vs_n", "figure"),
        ("ess_per_second", "figure"),
        ("metrics", "table"),
        ("cost", "table"),
        ("recommended", "table"),
    ],
)

CMP_RUN_FILES = [
    f"{CMP_DIR}/runs/{problem}/n{n}_eps{fmt_eps(eps)}/chunk{c}.npz"
    for problem in CMP["problems"]
    for n in CMP["n_values"]
    for eps in CMP["epsilons"]
    for c in chunk_ids(CMP["replicates"], CMP["chunk_size"])
]
CMP_CHUNK_RANGES = {
    str(c): chunk_range(c, CMP["replicates"], CMP["chunk_size"])
    for c in chunk_ids(CMP["replicates"], CMP["chunk_size"])
}


rule comparison_run_chunk:
    output:
        runs=f"{CMP_DIR}/runs/{{problem}}/n{{n}}_eps{{eps}}/chunk{{chunk}}.npz",
    log:
        f"{CMP_LOGS}/runs/{{problem}}_n{{n}}_eps{{eps}}_{{chunk}}.log",
    wildcard_constraints:
        problem="binomial|regression",
        n=r"\d+",
        eps=r"[0-9.e-]+",
        chunk=r"\d+",
    resources:
        runtime=15,
    params:
        step=step("comparison.run:run_chunk"),
        seed=config["seed"],
        problem="{problem}",
        n=wildcard_int("n"),
        epsilon=wildcard_float("eps"),
        replicates=lookup(dpath="{chunk}", within=CMP_CHUNK_RANGES),
        accuracy_trials=CMP["accuracy_trials"],
        credible_level=CMP["credible_level"],
        mmd_draws=CMP["mmd_draws"],
        settings=lookup(dpath="{problem}", within=CMP),
        health=CMP["health"],  # the regression reference grows until it passes it
    script:
        STEP_SCRIPT


rule comparison_summarise:
    input:
        runs=CMP_RUN_FILES,
    output:
        summary=f"{CMP_DIR}/summary.npz",
        metrics_csv=f"{CMP_DIR}/metrics.csv",
        metrics_md=f"{CMP_DIR}/metrics.md",
        cost_csv=f"{CMP_DIR}/cost.csv",
        cost_md=f"{CMP_DIR}/cost.md",
        recommended_csv=f"{CMP_DIR}/recommended.csv",
        recommended_md=f"{CMP_DIR}/recommended.md",
    log:
        f"{CMP_LOGS}/summarise.log",
    resources:
        runtime=5,
    params:
        step=step("comparison.summarise:summarise"),
        credible_level=CMP["credible_level"],
        health=CMP["health"],
        recommend_rule=CMP["recommend"],
    script:
        STEP_SCRIPT


rule comparison_metrics_page:
    input:
        csv=rules.comparison_summarise.output.metrics_csv,
        md=rules.comparison_summarise.output.metrics_md,
    output:
        html=report(
            f"{CMP_DIR}/metrics.html",
            category="Study comparison",
            subcategory="tables",
            caption="../report/comparison/metrics.rst",
        ),
    log:
        f"{CMP_LOGS}/metrics_page.log",
    params:
        step=step("report_pages:table_page"),
    script:
        STEP_SCRIPT


rule comparison_cost_page:
    input:
        csv=rules.comparison_summarise.output.cost_csv,
        md=rules.comparison_summarise.output.cost_md,
    output:
        html=report(
            f"{CMP_DIR}/cost.html",
            category="Study comparison",
            subcategory="tables",
            caption="../report/comparison/cost.rst",
        ),
    log:
        f"{CMP_LOGS}/cost_page.log",
    params:
        step=step("report_pages:table_page"),
    script:
        STEP_SCRIPT


rule comparison_recommended_page:
    input:
        csv=rules.comparison_summarise.output.recommended_csv,
        md=rules.comparison_summarise.output.recommended_md,
    output:
        html=report(
            f"{CMP_DIR}/recommended.html",
            category="Study comparison",
            subcategory="tables",
            caption="../report/comparison/recommended.rst",
        ),
    log:
        f"{CMP_LOGS}/recommended_page.log",
    params:
        step=step("report_pages:table_page"),
    script:
        STEP_SCRIPT


rule comparison_accuracy_vs_eps:
    input:
        summary=rules.comparison_summarise.output.summary,
    output:
        pdf=f"{CMP_DIR}/accuracy_vs_eps.pdf",
        png=report(
            f"{CMP_DIR}/accuracy_vs_eps.png",
            category="Study comparison",
            subcategory="figures",
            caption="../report/comparison/accuracy_vs_eps.rst",
        ),
    log:
        f"{CMP_LOGS}/accuracy_vs_eps.log",
    resources:
        runtime=5,
    params:
        step=step("comparison.figures:accuracy_vs_eps"),
        n=CMP["figure"]["n"],
        max_flagged=CMP["recommend"]["max_flagged"],
    script:
        STEP_SCRIPT


rule comparison_accuracy_vs_n:
    input:
        summary=rules.comparison_summarise.output.summary,
    output:
        pdf=f"{CMP_DIR}/accuracy_vs_n.pdf",
        png=report(
            f"{CMP_DIR}/accuracy_vs_n.png",
            category="Study comparison",
            subcategory="figures",
            caption="../report/comparison/accuracy_vs_n.rst",
        ),
    log:
        f"{CMP_LOGS}/accuracy_vs_n.log",
    resources:
        runtime=5,
    params:
        step=step("comparison.figures:accuracy_vs_n"),
        epsilon=CMP["figure"]["epsilon"],
        max_flagged=CMP["recommend"]["max_flagged"],
    script:
        STEP_SCRIPT


rule comparison_ess_per_second:
    input:
        summary=rules.comparison_summarise.output.summary,
    output:
        pdf=f"{CMP_DIR}/ess_per_second.pdf",
        png=report(
            f"{CMP_DIR}/ess_per_second.png",
            category="Study comparison",
            subcategory="figures",
            caption="../report/comparison/ess_per_second.rst",
        ),
    log:
        f"{CMP_LOGS}/ess_per_second.log",
    resources:
        runtime=5,
    params:
        step=step("comparison.figures:ess_per_second"),
        epsilon=CMP["figure"]["epsilon"],
        max_flagged=CMP["recommend"]["max_flagged"],
    script:
        STEP_SCRIPT


rule comparison_claims:
    input:
        summary=rules.comparison_summarise.output.summary,
    output:
        claims=f"{RESULTS}/comparison/claims/comparison.csv",
    log:
        f"{CMP_LOGS}/claims.log",
    resources:
        runtime=5,
    params:
        step=step("comparison.paper:claims"),
        max_mean_error=CMP["recommend"]["max_mean_error"],
        max_flagged=CMP["recommend"]["max_flagged"],
        # what each expectation refers to: the paper-scale values of these (paper.py's PAPER_SCALE)
        credible_level=CMP["credible_level"],
        health=CMP["health"],
        recommend=CMP["recommend"],
        problems={p: CMP[p] for p in CMP["problems"]},
    script:
        STEP_SCRIPT


register_claims(rules.comparison_claims.output.claims)
