# bernstein2020 Chapter 5: private Bayesian linear regression, targets fig5_4 ... fig5_9.
# Logic: dpinfer.studies.bernstein2020_ch5 (grid, run, summarise, figures, paper).
# DAG: bernstein2020_ch5_run_synthetic (one (n, epsilon) setting, one chunk of trials)
#        -> bernstein2020_ch5_summarise_synthetic -> bernstein2020_fig5_4 ... bernstein2020_fig5_8
#      bernstein2020_ch5_run_cirrhosis (one epsilon, one chunk of splits: PIT values)
#        -> bernstein2020_ch5_summarise_cirrhosis -> bernstein2020_fig5_9
#      both summaries -> bernstein2020_ch5_claims (the unit's scorecard rows).
# Compute jobs get only what they read: their replicate range, the chain spec (method, lengths,
# chains, sampler options) of the methods they run, priors, bounds, clamping and (synthetic) the
# MMD settings and credible level. The cirrhosis levels and every figure option reach figure and
# claim jobs only.
# (Helpers are named lambdas: `snakemake --lint` asks rule files not to mix rules and defs.)

from dpinfer.studies.bernstein2020_ch5.grid import ch5_setting, ch5_synthetic_settings
from dpinfer.studies.nig_specs import nig_chain_spec

validate_section(["bernstein2020", "chapter5"], "bernstein2020_ch5")
CH5 = section("bernstein2020", "chapter5")
CH5_SYN = CH5["synthetic"]
CH5_CIR = CH5["cirrhosis"]
CH5_DIR = f"{RESULTS}/bernstein2020/ch5"
CH5_LOGS = f"{LOGS}/bernstein2020/ch5"

check_config("bernstein2020_ch5", CH5)

# the figures (targets.smk makes their rules): Figs 5.4-5.8 from the synthetic summary
for _fig in ("fig5_4", "fig5_5", "fig5_6", "fig5_7", "fig5_8"):
    figure(
        "bernstein2020",
        _fig,
        f"bernstein2020_ch5.figures:{_fig}",
        {"summary": f"{CH5_DIR}/synthetic_summary.npz"},
        **({"bandwidth": CH5["mmd"]["bandwidth"]} if _fig == "fig5_7" else {}),
    )
figure(
    "bernstein2020",
    "fig5_9",
    "bernstein2020_ch5.figures:fig5_9",
    {"summary": f"{CH5_DIR}/cirrhosis_summary.npz"},
    extra_outputs={"csv": f"{CH5_DIR}/fig5_9_coverage.csv", "md": f"{CH5_DIR}/fig5_9_coverage.md"},
    levels=CH5_CIR["levels"],
    covariate=CH5_CIR["covariate"],
    n_train=CH5_CIR["n_train"],
)

# chain specs per synthetic setting; MCMC-Ind only up to mcmc_ind.max_n
CH5_SYNTHETIC_CHAINS = {
    ch5_setting(n, eps): [
        nig_chain_spec(m, CH5, n)
        for m in CH5["methods"]
        if m != "mcmc_ind" or n <= CH5["mcmc_ind"]["max_n"]
    ]
    for n, eps in ch5_synthetic_settings(CH5_SYN)
}
CH5_CIRRHOSIS_CHAINS = [nig_chain_spec(m, CH5, CH5_CIR["n_train"]) for m in CH5_CIR["methods"]]
CH5_SYNTHETIC_CHUNKS = [
    f"{CH5_DIR}/runs/{ch5_setting(n, e)}/chunk{c}.npz"
    for n, e in ch5_synthetic_settings(CH5_SYN)
    for c in chunk_ids(CH5_SYN["trials"], CH5["chunk_size"])
]
CH5_CIRRHOSIS_CHUNKS = [
    f"{CH5_DIR}/cirrhosis/eps{fmt_eps(e)}/chunk{c}.npz"
    for e in CH5_CIR["epsilons"]
    for c in chunk_ids(CH5_CIR["splits"], CH5_CIR["chunk_size"])
]
# param functions of the chunk jobs
ch5_synthetic_chains = lambda wildcards: CH5_SYNTHETIC_CHAINS[wildcards.setting]
ch5_trial_range = lambda wildcards: chunk_range(
    int(wildcards.chunk), CH5_SYN["trials"], CH5["chunk_size"]
)
ch5_split_range = lambda wildcards: chunk_range(
    int(wildcards.chunk), CH5_CIR["splits"], CH5_CIR["chunk_size"]
)


rule bernstein2020_ch5_run_synthetic:
    output:
        summary=f"{CH5_DIR}/runs/{{setting}}/chunk{{chunk}}.npz",
    log:
        f"{CH5_LOGS}/runs/synthetic_{{setting}}_{{chunk}}.log",
    wildcard_constraints:
        setting="n[0-9]+_eps[0-9.e+-]+",
        chunk="[0-9]+",
    resources:
        runtime=20,
        mem_mb=2000,
    params:
        step=step("bernstein2020_ch5.run:run_synthetic"),
        seed=config["seed"],
        setting="{setting}",
        replicates=ch5_trial_range,
        chains=ch5_synthetic_chains,
        prior=CH5["prior"],
        data_prior=CH5["data_prior"],
        bounds=CH5_SYN["bounds"],
        clamp=CH5_SYN["clamp"],
        mmd_draws=CH5["mmd"]["draws"],
        mmd_bandwidth=CH5["mmd"]["bandwidth"],
        credible_level=CH5["credible_level"],
    script:
        STEP_SCRIPT


rule bernstein2020_ch5_summarise_synthetic:
    input:
        chunks=CH5_SYNTHETIC_CHUNKS,
    output:
        summary=f"{CH5_DIR}/synthetic_summary.npz",
        csv=f"{CH5_DIR}/synthetic_summary.csv",
        md=f"{CH5_DIR}/synthetic_summary.md",
    log:
        f"{CH5_LOGS}/synthetic_summary.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch5.summarise:summarise_synthetic"),
        vs_n=[[n, CH5_SYN["eps_vs_n"]] for n in CH5_SYN["n_values"]],
        vs_eps=[[CH5_SYN["n_vs_eps"], e] for e in CH5_SYN["epsilons"]],
        trials=CH5_SYN["trials"],
        health=CH5["health"],
    script:
        STEP_SCRIPT


rule bernstein2020_ch5_run_cirrhosis:
    input:
        data=CH5_CIR["data"],
    output:
        summary=f"{CH5_DIR}/cirrhosis/eps{{eps}}/chunk{{chunk}}.npz",
    log:
        f"{CH5_LOGS}/runs/cirrhosis_eps{{eps}}_{{chunk}}.log",
    wildcard_constraints:
        eps="[0-9][0-9.e+-]*",
        chunk="[0-9]+",
    resources:
        runtime=15,
        mem_mb=1500,
    params:
        step=step("bernstein2020_ch5.run:run_cirrhosis"),
        seed=config["seed"],
        epsilon=wildcard_float("eps"),
        replicates=ch5_split_range,
        n_train=CH5_CIR["n_train"],
        covariate=CH5_CIR["covariate"],
        response=CH5_CIR["response"],
        chains=CH5_CIRRHOSIS_CHAINS,
        prior=CH5_CIR["prior"],
        data_prior=CH5_CIR["data_prior"],
    script:
        STEP_SCRIPT


rule bernstein2020_ch5_summarise_cirrhosis:
    input:
        chunks=CH5_CIRRHOSIS_CHUNKS,
    output:
        summary=f"{CH5_DIR}/cirrhosis_summary.npz",
    log:
        f"{CH5_LOGS}/cirrhosis_summary.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch5.summarise:summarise_cirrhosis"),
        epsilons=CH5_CIR["epsilons"],
    script:
        STEP_SCRIPT


rule bernstein2020_ch5_claims:
    input:
        synthetic=rules.bernstein2020_ch5_summarise_synthetic.output.summary,
        cirrhosis=rules.bernstein2020_ch5_summarise_cirrhosis.output.summary,
    output:
        claims=f"{RESULTS}/bernstein2020/claims/bernstein2020_ch5.csv",
    log:
        f"{CH5_LOGS}/claims.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch5.paper:claims"),
        # the chapter's settings: what the thesis's statements refer to (a row at another setting
        # is "not comparable") and the chain specs the rows' lengths come from
        section=CH5,
    script:
        STEP_SCRIPT


register_claims(rules.bernstein2020_ch5_claims.output.claims)
