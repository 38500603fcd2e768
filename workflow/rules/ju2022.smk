# ju2022: Ju, Awan, Gong, Rao (NeurIPS 2022), data-augmentation MCMC (Algorithm 1).
# DAG: ju2022_run_chunk (release + chain per replicate) -> ju2022_summarise_experiment ->
# tables (tab1, tabS1, runtime, experiments/<name>) and figures (fig1a, fig1b, fig2, figS1)
# -> ju2022_claims (the unit's scorecard rows).
# Compute jobs get only what they read; the credible level reaches tables and claims only.
from dpinfer.studies.ju2022 import data_files

validate_section(["ju2022"], "ju2022")
JU = config["ju2022"]
JU_DIR = f"{RESULTS}/ju2022"
# the authors' files of each model (read through rule inputs, never a path param)
JU_FILES = data_files(JU["data_dir"])
JU_WILDCARDS = {
    "experiment": "[A-Za-z][A-Za-z0-9_]*",
    "eps": "[0-9][0-9.e+-]*",
    "chunk": "[0-9]+",
}


# Config checks the schema cannot express (each names its dotted key).
check_config("ju2022", JU)

# Input and param functions of wildcards. They are named lambdas, not `def`s, so that
# `snakemake --lint` (which flags rule files that mix rules and `def`s) stays clean while the
# unit's functions live in its own rule file.
ju2022_experiment = lambda wildcards: JU["experiments"][wildcards.experiment]
ju2022_model = lambda wildcards: ju2022_experiment(wildcards)["model"]
ju2022_design = lambda wildcards: ju2022_experiment(wildcards)["design"]
ju2022_epsilons = lambda wildcards: ju2022_experiment(wildcards)["epsilons"]
# the authors' files of the experiment's model (for unpack): the data set only where the
# design uses it (fixed_parameters simulates its data from the parameters)
ju2022_model_files = lambda wildcards: {
    name: path
    for name, path in JU_FILES[ju2022_model(wildcards)].items()
    if name == "parameters" or ju2022_design(wildcards) == "fixed_data"
}
# the model's config block: the chunk job reads every key of it
ju2022_model_config = lambda wildcards: JU[ju2022_model(wildcards)]
# [start, stop) of the chunk's replicates
ju2022_replicates = lambda wildcards: chunk_range(
    int(wildcards.chunk),
    ju2022_experiment(wildcards)["replicates"],
    JU["chunk_size"],
)
# data set size of a fixed_parameters design (fixed_data uses the authors' data set)
ju2022_n_records = lambda wildcards: (
    ju2022_experiment(wildcards)["n_records"]
    if ju2022_design(wildcards) == "fixed_parameters"
    else None
)
# every chunk file of an experiment
ju2022_chunk_files = lambda wildcards: [
    f"{JU_DIR}/runs/{wildcards.experiment}/eps{fmt_eps(e)}/chunk{c}.npz"
    for e in ju2022_experiment(wildcards)["epsilons"]
    for c in chunk_ids(ju2022_experiment(wildcards)["replicates"], JU["chunk_size"])
]


# the figures and tables, each where it says how it is built (targets.smk makes the rules)
figure(
    "ju2022",
    "fig1a",
    "ju2022.figures:fig1a",
    {**JU_FILES["loglinear"], "summary": f"{JU_DIR}/experiments/loglinear_fixed_data.npz"},
    prior_concentration=JU["loglinear"]["prior_concentration"],
)
figure(
    "ju2022",
    "fig1b",
    "ju2022.figures:fig1b",
    {"summary": f"{JU_DIR}/experiments/loglinear_fixed_data.npz"},
)
figure(
    "ju2022",
    "fig2",
    "ju2022.figures:fig2",
    {**JU_FILES["linreg"], "summary": f"{JU_DIR}/experiments/linreg_fixed_data.npz"},
    prior_sd=JU["linreg"]["prior_sd"],
)
figure(
    "ju2022",
    "figS1",
    "ju2022.figures:figS1",
    {"summary": f"{JU_DIR}/experiments/linreg_fixed_data.npz"},
)
# a coverage table's params: what the paper's values refer to (printed beside ours only there)
for _tab, _exp, _model in (
    ("tab1", "loglinear_coverage", "loglinear"),
    ("tabS1", "linreg_coverage", "linreg"),
):
    table(
        "ju2022",
        _tab,
        f"ju2022.summarise:{_tab}",
        {"summary": f"{JU_DIR}/experiments/{_exp}.npz"},
        level=JU["credible_level"],
        burnin=JU["burnin"],
        model_cfg=JU[_model],
        n_records=JU["experiments"][_exp].get("n_records"),
    )
table(
    "ju2022",
    "runtime",
    "ju2022.summarise:runtime",
    {
        "loglinear": f"{JU_DIR}/experiments/loglinear_fixed_data.npz",
        "linreg": f"{JU_DIR}/experiments/linreg_fixed_data.npz",
    },
)
for _exp, _spec in sorted(JU["experiments"].items()):
    table(
        "ju2022",
        f"experiments/{_exp}",
        "ju2022.summarise:experiments",
        {"summary": f"{JU_DIR}/experiments/{_exp}.npz"},
        report_as=("experiments", "tables"),
        experiment=_exp,
        model=_spec["model"],
        design=_spec["design"],
        level=JU["credible_level"],
        health=JU["health"],
    )
register_claims(f"{RESULTS}/ju2022/claims/ju2022.csv")


rule ju2022_run_chunk:
    input:
        unpack(ju2022_model_files),
    output:
        summary=f"{JU_DIR}/runs/{{experiment}}/eps{{eps}}/chunk{{chunk}}.npz",
    log:
        f"{LOGS}/ju2022/run_chunk/{{experiment}}_eps{{eps}}_chunk{{chunk}}.log",
    wildcard_constraints:
        **JU_WILDCARDS,
    resources:
        runtime=30,
        mem_mb=1000,
    params:
        step=step("ju2022.run:run_chunk"),
        seed=config["seed"],
        experiment="{experiment}",
        model=ju2022_model,
        design=ju2022_design,
        epsilon=wildcard_float("eps"),
        replicates=ju2022_replicates,
        n_records=ju2022_n_records,
        burnin=JU["burnin"],
        keep=JU["iterations"] - JU["burnin"],
        model_config=ju2022_model_config,
    script:
        STEP_SCRIPT


rule ju2022_summarise_experiment:
    input:
        chunks=ju2022_chunk_files,
    output:
        summary=f"{JU_DIR}/experiments/{{experiment}}.npz",
    log:
        f"{LOGS}/ju2022/summarise_experiment/{{experiment}}.log",
    wildcard_constraints:
        experiment=JU_WILDCARDS["experiment"],
    resources:
        runtime=5,
        mem_mb=1000,
    params:
        step=step("ju2022.summarise:aggregate"),
        epsilons=ju2022_epsilons,
    script:
        STEP_SCRIPT


# The converged companion (issue 33): the replicates of the experiments of converged.models
# again, more and longer chains. Its jobs get what fixes the data and release, and the chains.
JU_CONVERGED = JU["converged"]
JU_CONVERGED_CHAINS = {k: JU_CONVERGED[k] for k in ("chains", "burnin", "keep")}
# the regression's companion adds its non-centred moves and reruns the first replicates only
ju2022_converged_chains = lambda wildcards: (
    dict(JU_CONVERGED_CHAINS, noncentred_moves=JU_CONVERGED["linreg"]["noncentred_moves"])
    if ju2022_model(wildcards) == "linreg"
    else JU_CONVERGED_CHAINS
)
ju2022_converged_count = lambda wildcards: (
    min(JU_CONVERGED["linreg"]["replicates"], ju2022_experiment(wildcards)["replicates"])
    if ju2022_model(wildcards) == "linreg"
    else ju2022_experiment(wildcards)["replicates"]
)
JU_CONVERGED_EXPERIMENTS = [
    name
    for name in (
        "loglinear_fixed_data",
        "loglinear_coverage",
        "linreg_fixed_data",
        "linreg_coverage",
    )
    if JU_CONVERGED["enabled"] and name.split("_")[0] in JU_CONVERGED["models"]
]
ju2022_converged_replicates = lambda wildcards: chunk_range(
    int(wildcards.chunk),
    ju2022_converged_count(wildcards),
    JU_CONVERGED["chunk_size"],
)
ju2022_converged_files = lambda wildcards: [
    f"{JU_DIR}/converged/runs/{wildcards.experiment}/eps{fmt_eps(e)}/chunk{c}.npz"
    for e in ju2022_experiment(wildcards)["epsilons"]
    for c in chunk_ids(ju2022_converged_count(wildcards), JU_CONVERGED["chunk_size"])
]


rule ju2022_run_converged:
    input:
        unpack(ju2022_model_files),
    output:
        summary=f"{JU_DIR}/converged/runs/{{experiment}}/eps{{eps}}/chunk{{chunk}}.npz",
    log:
        f"{LOGS}/ju2022/converged/{{experiment}}_eps{{eps}}_chunk{{chunk}}.log",
    wildcard_constraints:
        **JU_WILDCARDS,
    resources:
        runtime=60,
        mem_mb=1500,
    params:
        step=step("ju2022.run:run_converged_chunk"),
        seed=config["seed"],
        experiment="{experiment}",
        model=ju2022_model,
        design=ju2022_design,
        epsilon=wildcard_float("eps"),
        replicates=ju2022_converged_replicates,
        n_records=ju2022_n_records,
        converged=ju2022_converged_chains,
        model_config=ju2022_model_config,
    script:
        STEP_SCRIPT


rule ju2022_summarise_converged:
    input:
        chunks=ju2022_converged_files,
    output:
        summary=f"{JU_DIR}/converged/experiments/{{experiment}}.npz",
    log:
        f"{LOGS}/ju2022/converged/summarise_{{experiment}}.log",
    wildcard_constraints:
        experiment=JU_WILDCARDS["experiment"],
    resources:
        runtime=5,
        mem_mb=1000,
    params:
        step=step("ju2022.summarise:aggregate"),
        epsilons=ju2022_epsilons,
    script:
        STEP_SCRIPT


rule ju2022_claims:
    input:
        **{
            f"converged_{name}": f"{JU_DIR}/converged/experiments/{name}.npz"
            for name in JU_CONVERGED_EXPERIMENTS
        },
        loglinear_fixed_data=f"{JU_DIR}/experiments/loglinear_fixed_data.npz",
        linreg_fixed_data=f"{JU_DIR}/experiments/linreg_fixed_data.npz",
        loglinear_coverage=f"{JU_DIR}/experiments/loglinear_coverage.npz",
        linreg_coverage=f"{JU_DIR}/experiments/linreg_coverage.npz",
    output:
        csv=f"{RESULTS}/ju2022/claims/ju2022.csv",
    log:
        f"{LOGS}/ju2022/claims.log",
    params:
        step=step("ju2022.paper:claims"),
        level=JU["credible_level"],
        health=JU["health"],
        burnin=JU["burnin"],
        models={m: JU[m] for m in ("loglinear", "linreg")},
        n_records={
            m: JU["experiments"][f"{m}_coverage"].get("n_records") for m in ("loglinear", "linreg")
        },
        converged=JU_CONVERGED,
    script:
        STEP_SCRIPT
