# raim2021: Raim (Census CSRM seminar 2021), customised direct sampler and the noisy
# lognormal regression.
# DAG: raim2021_run_envelopes -> knots / error_bound / step_function figures;
#      raim2021_run_gibbs (one chunk of replicates of one (rho, lambda) setting: simulate,
#      release, Algorithms 2 and 4) -> raim2021_summarise_mse -> mse_densities;
#      raim2021_run_traces -> traces; raim2021_run_timing -> timing table;
#      all summaries -> raim2021_claims (the unit's scorecard rows).
# Compute jobs get only the config values they read: a chunk never sees traces, timing,
# knots or step_function, so editing those re-plans only their own job.
import re

from dpinfer.studies.raim2021.grid import parse_raim_setting, raim_settings

validate_section(["raim2021"], "raim2021")
RAIM = config["raim2021"]
RAIM_DIR = f"{RESULTS}/raim2021"
RAIM_SETTINGS = raim_settings(RAIM["rhos"], RAIM["lambdas"])
# a chunk path matches only a configured setting, so rho and lambda parsed from it are the
# numbers its seed key (the setting name) was made from
RAIM_SETTING = "|".join(re.escape(name) for name in RAIM_SETTINGS)

# Config checks the schema cannot express (each names its dotted key).
check_config("raim2021", RAIM)

# Input and param functions of wildcards, as named lambdas (`snakemake --lint` flags rule
# files that mix rules and `def`s).
raim2021_chunk_files = lambda wildcards: [
    f"{RAIM_DIR}/runs/{name}/chunk{c}.npz"
    for name in RAIM_SETTINGS
    for c in chunk_ids(RAIM["replicates"], RAIM["chunk_size"])
]
# the noise of the chunk's setting
raim2021_rho = lambda wildcards: parse_raim_setting(wildcards.setting)[0]
raim2021_lambda = lambda wildcards: parse_raim_setting(wildcards.setting)[1]
# [start, stop) of the chunk's replicates
raim2021_replicates = lambda wildcards: chunk_range(
    int(wildcards.chunk), RAIM["replicates"], RAIM["chunk_size"]
)

# The converged companion of Algorithm 2 (issue 33): the first converged.replicates of every
# setting again, with more and longer chains (a documented subset: docs/deviations.md).
RAIM_CONVERGED = RAIM["converged"]
raim2021_converged_files = lambda wildcards: [
    f"{RAIM_DIR}/converged/runs/{name}/chunk{c}.npz"
    for name in RAIM_SETTINGS
    for c in chunk_ids(RAIM_CONVERGED["replicates"], RAIM_CONVERGED["chunk_size"])
]
raim2021_converged_replicates = lambda wildcards: chunk_range(
    int(wildcards.chunk), RAIM_CONVERGED["replicates"], RAIM_CONVERGED["chunk_size"]
)

# the figures and the timing table (targets.smk makes their rules)
for _fig in ("knots", "error_bound", "step_function"):
    figure(
        "raim2021",
        _fig,
        f"raim2021.figures:{_fig}",
        {"envelopes": f"{RAIM_DIR}/envelopes/envelopes.npz"},
    )
figure(
    "raim2021",
    "traces",
    "raim2021.figures:traces",
    {"chains": f"{RAIM_DIR}/traces/chains.npz"},
    burnin=RAIM["burnin"],
)
figure(
    "raim2021",
    "mse_densities",
    "raim2021.figures:mse_densities",
    {"summary": f"{RAIM_DIR}/mse/summary.npz"},
    rhos=RAIM["rhos"],
    lambdas=RAIM["lambdas"],
)
table(
    "raim2021",
    "timing",
    "raim2021.summarise:timing",
    {"timing": f"{RAIM_DIR}/timing/timing.json"},
)
register_claims(f"{RESULTS}/raim2021/claims/raim2021.csv")


# ----------------------------------------------------------------------------- envelopes
rule raim2021_run_envelopes:
    output:
        envelopes=f"{RAIM_DIR}/envelopes/envelopes.npz",
    log:
        f"{LOGS}/raim2021/run_envelopes.log",
    resources:
        runtime=5,
    params:
        step=step("raim2021.run:envelopes"),
        seed=config["seed"],
        knots=RAIM["knots"],
        step_function=RAIM["step_function"],
    script:
        STEP_SCRIPT


# ----------------------------------------------------------------------------- MSE study
rule raim2021_run_gibbs:
    output:
        summary=f"{RAIM_DIR}/runs/{{setting}}/chunk{{chunk}}.npz",
    log:
        f"{LOGS}/raim2021/run_gibbs/{{setting}}_chunk{{chunk}}.log",
    wildcard_constraints:
        setting=RAIM_SETTING,
        chunk="[0-9]+",
    resources:
        runtime=30,
        mem_mb=1000,
    params:
        step=step("raim2021.run:gibbs_chunk"),
        seed=config["seed"],
        rho=raim2021_rho,
        lam=raim2021_lambda,
        replicates=raim2021_replicates,
        model=RAIM["model"],
        iterations=RAIM["iterations"],
        burnin=RAIM["burnin"],
        direct=RAIM["direct"],
    script:
        STEP_SCRIPT


rule raim2021_run_converged:
    output:
        summary=f"{RAIM_DIR}/converged/runs/{{setting}}/chunk{{chunk}}.npz",
    log:
        f"{LOGS}/raim2021/converged/{{setting}}_chunk{{chunk}}.log",
    wildcard_constraints:
        setting=RAIM_SETTING,
        chunk="[0-9]+",
    resources:
        runtime=60,
        mem_mb=1000,
    params:
        step=step("raim2021.run:converged_chunk"),
        seed=config["seed"],
        rho=raim2021_rho,
        lam=raim2021_lambda,
        replicates=raim2021_converged_replicates,
        model=RAIM["model"],
        direct=RAIM["direct"],
        converged={k: RAIM_CONVERGED[k] for k in ("chains", "burnin", "keep")},
    script:
        STEP_SCRIPT


rule raim2021_summarise_converged:
    input:
        chunks=raim2021_converged_files,
    output:
        summary=f"{RAIM_DIR}/converged/summary.npz",
        csv=f"{RAIM_DIR}/converged/amse.csv",
        md=f"{RAIM_DIR}/converged/amse.md",
    log:
        f"{LOGS}/raim2021/converged/summarise.log",
    params:
        step=step("raim2021.summarise:converged_summary"),
        settings=RAIM_SETTINGS,
        converged=RAIM_CONVERGED,
    script:
        STEP_SCRIPT


rule raim2021_summarise_mse:
    input:
        chunks=raim2021_chunk_files,
    output:
        summary=f"{RAIM_DIR}/mse/summary.npz",
        csv=f"{RAIM_DIR}/mse/amse.csv",
        md=f"{RAIM_DIR}/mse/amse.md",
    log:
        f"{LOGS}/raim2021/summarise_mse.log",
    params:
        step=step("raim2021.summarise:mse_summary"),
        settings=RAIM_SETTINGS,
    script:
        STEP_SCRIPT


# ----------------------------------------------------------------------------- traces
rule raim2021_run_traces:
    output:
        chains=f"{RAIM_DIR}/traces/chains.npz",
    log:
        f"{LOGS}/raim2021/run_traces.log",
    resources:
        runtime=10,
    params:
        step=step("raim2021.run:trace_chains"),
        seed=config["seed"],
        model=RAIM["model"],
        iterations=RAIM["iterations"],
        direct=RAIM["direct"],
        traces=RAIM["traces"],
    script:
        STEP_SCRIPT


# ----------------------------------------------------------------------------- timing
rule raim2021_run_timing:
    output:
        timing=f"{RAIM_DIR}/timing/timing.json",
    log:
        f"{LOGS}/raim2021/run_timing.log",
    # two cores for a one-thread chain: locally (--cores 2) no other job runs beside it; on SLURM
    # the job holds two CPUs of its node (docs/cluster.md, timing tables)
    threads: 2
    resources:
        runtime=10,
    params:
        step=step("raim2021.run:timing_run"),
        seed=config["seed"],
        model=RAIM["model"],
        iterations=RAIM["iterations"],
        direct=RAIM["direct"],
        timing=RAIM["timing"],
    script:
        STEP_SCRIPT


# ----------------------------------------------------------------------------- scorecard
rule raim2021_claims:
    input:
        unpack(
            lambda wc: (
                {"converged": rules.raim2021_summarise_converged.output.summary}
                if RAIM_CONVERGED["enabled"]
                else {}
            )
        ),
        envelopes=rules.raim2021_run_envelopes.output.envelopes,
        mse=rules.raim2021_summarise_mse.output.summary,
        chains=rules.raim2021_run_traces.output.chains,
        timing=rules.raim2021_run_timing.output.timing,
    output:
        claims=f"{RESULTS}/raim2021/claims/raim2021.csv",
    log:
        f"{LOGS}/raim2021/claims.log",
    # burnin .. step_function: what the slides' values refer to (a claim is judged only at them)
    params:
        step=step("raim2021.paper:claims"),
        burnin=RAIM["burnin"],
        iterations=RAIM["iterations"],
        model=RAIM["model"],
        knots=RAIM["knots"],
        step_function=RAIM["step_function"],
        health=RAIM["health"],
        converged=RAIM_CONVERGED,
    script:
        STEP_SCRIPT
