# bernstein2020 Chapter 4: noise-aware Gibbs over sufficient statistics for exponential families.
# Targets fig4_2, fig4_3, fig4_4, figB_1. Logic: dpinfer.studies.bernstein2020_ch4 (run,
# summarise, figures, paper). Compute jobs get only the settings they read: a chunk job its
# model's block, the chain lengths, the MMD settings and its replicate range; the traces job
# the trace setting and the binomial/exponential blocks. Figure settings (ecdf) reach no
# compute job.
validate_section(["bernstein2020", "chapter4"], "bernstein2020_ch4")
CH4 = section("bernstein2020", "chapter4")
CH4_DIR = f"{RESULTS}/bernstein2020/ch4"
CH4_LOGS = f"{LOGS}/bernstein2020/ch4"

check_config("bernstein2020_ch4", CH4)
CH4_CONVERGED = CH4["converged"]

# the figures (targets.smk makes their rules)
for _fig, _settings in (
    ("fig4_2", {"n_grid": CH4["n_grid"], "epsilons": CH4["epsilons"]}),
    ("fig4_3", {"ecdf": CH4["ecdf"]}),
    ("fig4_4", {"n_grid": CH4["n_grid"], "epsilons": CH4["epsilons"]}),
):
    figure(
        "bernstein2020",
        _fig,
        f"bernstein2020_ch4.figures:{_fig}",
        {"summary": f"{CH4_DIR}/summary.npz"},
        models=CH4["models"],
        **_settings,
    )
figure(
    "bernstein2020",
    "figB_1",
    "bernstein2020_ch4.figures:figB_1",
    {"traces": f"{CH4_DIR}/traces.npz"},
)


# every chunk file of the calibration grid (models x n x epsilon x chunks)
CH4_RUN_FILES = [
    f"{CH4_DIR}/runs/{model}/n{n}_eps{fmt_eps(eps)}/chunk{c}.npz"
    for model in CH4["models"]
    for n in CH4["n_grid"]
    for eps in CH4["epsilons"]
    for c in chunk_ids(CH4["replicates"], CH4["chunk_size"])
]
# chunk -> its replicates [start, stop): raising `replicates` adds chunks (and redoes only a
# partial last one) instead of rerunning every chunk
CH4_CHUNK_RANGES = {
    str(c): chunk_range(c, CH4["replicates"], CH4["chunk_size"])
    for c in chunk_ids(CH4["replicates"], CH4["chunk_size"])
}
# model -> OPS settings: only binomial chunks run OPS
CH4_OPS = {
    model: CH4["ops"] if model == "binomial" else None
    for model in ("binomial", "multinomial", "exponential")
}
# the traces store every iteration: they do not read the exponential chain's `thin`
CH4_TRACE_EXPONENTIAL = {k: v for k, v in CH4["exponential"].items() if k != "thin"}


rule bernstein2020_ch4_run_chunk:
    output:
        runs=f"{CH4_DIR}/runs/{{model}}/n{{n}}_eps{{eps}}/chunk{{chunk}}.npz",
    log:
        f"{CH4_LOGS}/runs/{{model}}_n{{n}}_eps{{eps}}_{{chunk}}.log",
    wildcard_constraints:
        model="binomial|multinomial|exponential",
        n=r"\d+",
        eps=r"[0-9.e-]+",
        chunk=r"\d+",
    resources:
        runtime=15,
        mem_mb=1500,
    params:
        step=step("bernstein2020_ch4.run:run_chunk"),
        seed=config["seed"],
        model="{model}",
        n=wildcard_int("n"),
        epsilon=wildcard_float("eps"),
        replicates=lookup(dpath="{chunk}", within=CH4_CHUNK_RANGES),
        iterations=CH4["iterations"],
        burnin=CH4["burnin"],
        mmd_draws=CH4["mmd_draws"],
        mmd_bandwidth=CH4["mmd_bandwidth"],
        settings=lookup(dpath="{model}", within=CH4),
        ops=lookup(dpath="{model}", within=CH4_OPS),
    script:
        STEP_SCRIPT


rule bernstein2020_ch4_run_traces:
    output:
        traces=f"{CH4_DIR}/traces.npz",
    log:
        f"{CH4_LOGS}/traces.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch4.run:run_traces"),
        seed=config["seed"],
        trace=CH4["trace"],
        binomial=CH4["binomial"],
        exponential=CH4_TRACE_EXPONENTIAL,
    script:
        STEP_SCRIPT


rule bernstein2020_ch4_summarise_calibration:
    input:
        runs=CH4_RUN_FILES,
    output:
        summary=f"{CH4_DIR}/summary.npz",
        csv=f"{CH4_DIR}/calibration_utility.csv",
        md=f"{CH4_DIR}/calibration_utility.md",
    log:
        f"{CH4_LOGS}/summarise_calibration.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch4.summarise:calibration_utility"),
        replicates=CH4["replicates"],
        mmd_bandwidth=CH4["mmd_bandwidth"],
        health=CH4["health"],
    script:
        STEP_SCRIPT


# The converged companion (issue 33): the same trials with longer, more Gibbs chains. Its jobs
# get the settings that fix the data, release and non-private draws, and the companion block;
# its thresholds (`converged.health`) reach only the summary.
CH4_CONVERGED_FILES = [
    f"{CH4_DIR}/converged/runs/{model}/n{n}_eps{fmt_eps(eps)}/chunk{c}.npz"
    for model in CH4["models"]
    for n in CH4["n_grid"]
    for eps in CH4["epsilons"]
    for c in chunk_ids(CH4["replicates"], CH4_CONVERGED["chunk_size"])
]
CH4_CONVERGED_RANGES = {
    str(c): chunk_range(c, CH4["replicates"], CH4_CONVERGED["chunk_size"])
    for c in chunk_ids(CH4["replicates"], CH4_CONVERGED["chunk_size"])
}
# per model: a job gets its own model's length, so editing one model's keep reruns only its jobs
CH4_CONVERGED_CHAINS = {
    model: {
        "chains": CH4_CONVERGED["chains"],
        "burnin": CH4_CONVERGED["burnin"],
        "keep": CH4_CONVERGED["keep"][model],
    }
    for model in ("binomial", "multinomial", "exponential")
}
# what a companion trial reads of the original trial's settings, per model
CH4_CONVERGED_TRIAL = {
    model: {
        "iterations": CH4["iterations"],
        "burnin": CH4["burnin"],
        "mmd_draws": CH4["mmd_draws"],
        "mmd_bandwidth": CH4["mmd_bandwidth"],
        "model": CH4[model],
    }
    for model in ("binomial", "multinomial", "exponential")
}


rule bernstein2020_ch4_run_converged:
    output:
        runs=f"{CH4_DIR}/converged/runs/{{model}}/n{{n}}_eps{{eps}}/chunk{{chunk}}.npz",
    log:
        f"{CH4_LOGS}/converged/{{model}}_n{{n}}_eps{{eps}}_{{chunk}}.log",
    wildcard_constraints:
        model="binomial|multinomial|exponential",
        n=r"\d+",
        eps=r"[0-9.e-]+",
        chunk=r"\d+",
    resources:
        runtime=30,
        mem_mb=1500,
    params:
        step=step("bernstein2020_ch4.converged:run_chunk"),
        seed=config["seed"],
        model="{model}",
        n=wildcard_int("n"),
        epsilon=wildcard_float("eps"),
        replicates=lookup(dpath="{chunk}", within=CH4_CONVERGED_RANGES),
        trial=lookup(dpath="{model}", within=CH4_CONVERGED_TRIAL),
        converged=lookup(dpath="{model}", within=CH4_CONVERGED_CHAINS),
    script:
        STEP_SCRIPT


rule bernstein2020_ch4_summarise_converged:
    input:
        runs=CH4_CONVERGED_FILES,
    output:
        summary=f"{CH4_DIR}/converged/summary.npz",
        csv=f"{CH4_DIR}/converged/calibration_utility.csv",
        md=f"{CH4_DIR}/converged/calibration_utility.md",
    log:
        f"{CH4_LOGS}/converged/summarise.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch4.converged:summarise"),
        replicates=CH4["replicates"],
        converged=CH4_CONVERGED,
    script:
        STEP_SCRIPT


rule bernstein2020_ch4_claims:
    input:
        unpack(
            lambda wc: (
                {"converged": rules.bernstein2020_ch4_summarise_converged.output.summary}
                if CH4_CONVERGED["enabled"]
                else {}
            )
        ),
        summary=rules.bernstein2020_ch4_summarise_calibration.output.summary,
        traces=rules.bernstein2020_ch4_run_traces.output.traces,
    output:
        claims=f"{RESULTS}/bernstein2020/claims/bernstein2020_ch4.csv",
    log:
        f"{CH4_LOGS}/claims.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch4.paper:claims"),
        # the chapter's settings: what the thesis's statements refer to (a row at another setting
        # is "not comparable"), the grids and the companion block
        section=CH4,
    script:
        STEP_SCRIPT


register_claims(rules.bernstein2020_ch4_claims.output.claims)
