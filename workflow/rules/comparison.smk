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

check_config("comparison", CMP)

# the figures and tables (targets.smk makes their rules; comparison_summarise writes the tables)
figure(
    "comparison",
    "accuracy_vs_eps",
    "comparison.figures:accuracy_vs_eps",
    {"summary": f"{CMP_DIR}/summary.npz"},
    n=CMP["figure"]["n"],
    max_flagged=CMP["recommend"]["max_flagged"],
)
for _fig in ("accuracy_vs_n", "ess_per_second"):
    figure(
        "comparison",
        _fig,
        f"comparison.figures:{_fig}",
        {"summary": f"{CMP_DIR}/summary.npz"},
        epsilon=CMP["figure"]["epsilon"],
        max_flagged=CMP["recommend"]["max_flagged"],
    )
for _tab in ("metrics", "cost", "recommended"):
    table("comparison", _tab)

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
        # what each expectation refers to: the paper-scale values of these (settings.yaml)
        credible_level=CMP["credible_level"],
        health=CMP["health"],
        recommend=CMP["recommend"],
        problems={p: CMP[p] for p in CMP["problems"]},
    script:
        STEP_SCRIPT


register_claims(rules.comparison_claims.output.claims)
