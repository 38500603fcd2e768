# bernstein2020 Chapter 4: noise-aware Gibbs over sufficient statistics for exponential families.
# Targets fig4_2, fig4_3, fig4_4, figB_1. Logic: dpinfer.studies.bernstein2020_ch4.
validate_section(["bernstein2020", "chapter4"], "bernstein2020_ch4")
CH4 = config["bernstein2020"]["chapter4"]
CH4_DIR = f"{RESULTS}/bernstein2020/ch4"
# the settings one trial depends on: editing a figure setting (ecdf, trace) reruns no trial
CH4_TRIAL_KEYS = (
    "iterations",
    "burnin",
    "replicates",
    "chunk_size",
    "mmd_draws",
    "mmd_bandwidth",
    "binomial",
    "multinomial",
    "exponential",
    "ops",
)
CH4_TRIAL = {k: CH4[k] for k in CH4_TRIAL_KEYS if k in CH4}



def ch4_run_files(wildcards):
    """Every chunk file of the calibration grid (models x n x epsilon x chunks)."""
    return [
        f"{CH4_DIR}/runs/{model}/n{n}_eps{fmt_eps(eps)}/chunk{c}.npz"
        for model in CH4["models"]
        for n in CH4["n_grid"]
        for eps in CH4["epsilons"]
        for c in chunk_ids(CH4["replicates"], CH4["chunk_size"])
    ]


if CH4["mmd_draws"] > CH4["iterations"]:
    config_error(
        "bernstein2020.chapter4.mmd_draws",
        "must not exceed iterations (draws are thinned)",
    )
if (
    CH4["ecdf"]["n"] not in CH4["n_grid"]
    or CH4["ecdf"]["epsilon"] not in CH4["epsilons"]
):
    config_error(
        "bernstein2020.chapter4.ecdf",
        "the (n, epsilon) of fig4_3 must be in n_grid x epsilons",
    )
if CH4["chunk_size"] > CH4["replicates"]:
    config_error("bernstein2020.chapter4.chunk_size", "must not exceed replicates")
register_targets(
    "bernstein2020",
    [
        ("fig4_2", "figure"),
        ("fig4_3", "figure"),
        ("fig4_4", "figure"),
        ("figB_1", "figure"),
    ],
)


rule bernstein2020_ch4_chunk:
    output:
        runs=f"{CH4_DIR}/runs/{{model}}/n{{n}}_eps{{eps}}/chunk{{chunk}}.npz",
    log:
        f"{LOGS}/bernstein2020/ch4/runs/{{model}}_n{{n}}_eps{{eps}}_{{chunk}}.log",
    wildcard_constraints:
        model="binomial|multinomial|exponential",
        n=r"\d+",
        eps=r"[0-9.e-]+",
        chunk=r"\d+",
    resources:
        runtime=15,
    params:
        step=step("bernstein2020_ch4:run_chunk"),
        seed=config["seed"],
        model="{model}",
        n=wildcard_int("n"),
        epsilon=wildcard_float("eps"),
        chunk=wildcard_int("chunk"),
        cfg=CH4_TRIAL,
    script:
        STEP_SCRIPT


rule bernstein2020_ch4_aggregate:
    input:
        runs=ch4_run_files,
    output:
        summary=f"{CH4_DIR}/summary.npz",
        csv=f"{CH4_DIR}/calibration_utility.csv",
        md=f"{CH4_DIR}/calibration_utility.md",
    log:
        f"{LOGS}/bernstein2020/ch4/aggregate.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch4:aggregate"),
        cfg=CH4,
    script:
        STEP_SCRIPT


rule bernstein2020_ch4_traces:
    output:
        traces=f"{CH4_DIR}/traces.npz",
    log:
        f"{LOGS}/bernstein2020/ch4/traces.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch4:run_traces"),
        seed=config["seed"],
        cfg=CH4,
    script:
        STEP_SCRIPT


rule bernstein2020_fig4_2:
    input:
        summary=rules.bernstein2020_ch4_aggregate.output.summary,
    output:
        pdf=report(
            f"{RESULTS}/bernstein2020/fig4_2.pdf",
            category="bernstein2020",
            caption="../report/bernstein2020.rst",
        ),
        png=f"{RESULTS}/bernstein2020/fig4_2.png",
    log:
        f"{LOGS}/bernstein2020/fig4_2.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch4:render_fig4_2"),
        cfg=CH4,
    script:
        STEP_SCRIPT


rule bernstein2020_fig4_3:
    input:
        summary=rules.bernstein2020_ch4_aggregate.output.summary,
    output:
        pdf=report(
            f"{RESULTS}/bernstein2020/fig4_3.pdf",
            category="bernstein2020",
            caption="../report/bernstein2020.rst",
        ),
        png=f"{RESULTS}/bernstein2020/fig4_3.png",
    log:
        f"{LOGS}/bernstein2020/fig4_3.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch4:render_fig4_3"),
        cfg=CH4,
    script:
        STEP_SCRIPT


rule bernstein2020_fig4_4:
    input:
        summary=rules.bernstein2020_ch4_aggregate.output.summary,
    output:
        pdf=report(
            f"{RESULTS}/bernstein2020/fig4_4.pdf",
            category="bernstein2020",
            caption="../report/bernstein2020.rst",
        ),
        png=f"{RESULTS}/bernstein2020/fig4_4.png",
    log:
        f"{LOGS}/bernstein2020/fig4_4.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch4:render_fig4_4"),
        cfg=CH4,
    script:
        STEP_SCRIPT


rule bernstein2020_figB_1:
    input:
        traces=rules.bernstein2020_ch4_traces.output.traces,
    output:
        pdf=report(
            f"{RESULTS}/bernstein2020/figB_1.pdf",
            category="bernstein2020",
            caption="../report/bernstein2020.rst",
        ),
        png=f"{RESULTS}/bernstein2020/figB_1.png",
    log:
        f"{LOGS}/bernstein2020/figB_1.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch4:render_figB_1"),
        cfg=CH4,
    script:
        STEP_SCRIPT
