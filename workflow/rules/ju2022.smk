# ju2022: Ju, Awan, Gong, Rao (NeurIPS 2022), data-augmentation MCMC (Algorithm 1).
# DAG: ju2022_run_chunk (release + chain per replicate) -> ju2022_summarise_experiment ->
# tables (tab1, tabS1, runtime, experiments/<name>) and figures (fig1a, fig1b, fig2, figS1)
# -> ju2022_claims (the unit's scorecard rows).
# Compute jobs get only what they read; the credible level reaches tables and claims only.
validate_section(["ju2022"], "ju2022")
JU = config["ju2022"]
JU_DIR = f"{RESULTS}/ju2022"
# the authors' files of each model (read through rule inputs, never a path param)
JU_FILES = {
    "loglinear": {
        "parameters": f"{JU['data_dir']}/loglinear_datageneratingparameters.json",
        "data": f"{JU['data_dir']}/loglinear_notdpdata_N100.json",
    },
    "linreg": {
        "parameters": f"{JU['data_dir']}/linearregression_datageneratingparam_N100p2.json",
        "data": f"{JU['data_dir']}/linearregression_XY_N100p2.json",
    },
}
JU_WILDCARDS = {
    "experiment": "[A-Za-z][A-Za-z0-9_]*",
    "eps": "[0-9][0-9.e+-]*",
    "chunk": "[0-9]+",
}


# Config checks the schema cannot express (each names its dotted key).
if JU["burnin"] >= JU["iterations"]:
    config_error("ju2022.burnin", f"must be smaller than ju2022.iterations ({JU['iterations']})")
if not JU["linreg"]["clamp"][0] < JU["linreg"]["clamp"][1]:
    config_error("ju2022.linreg.clamp", "needs lower < upper")
for _path in [p for files in JU_FILES.values() for p in files.values()]:
    if not os.path.exists(_path):
        config_error("ju2022.data_dir", f"missing data file {_path}")

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


register_targets(
    "ju2022",
    [
        ("fig1a", "figure"),
        ("fig1b", "figure"),
        ("fig2", "figure"),
        ("figS1", "figure"),
        ("tab1", "table"),
        ("tabS1", "table"),
        ("runtime", "table"),
    ]
    + [(f"experiments/{name}", "table") for name in sorted(JU["experiments"])],
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


rule ju2022_experiments:
    input:
        summary=rules.ju2022_summarise_experiment.output.summary,
    output:
        csv=f"{JU_DIR}/experiments/{{experiment}}.csv",
        md=f"{JU_DIR}/experiments/{{experiment}}.md",
    log:
        f"{LOGS}/ju2022/experiments/{{experiment}}.log",
    wildcard_constraints:
        experiment=JU_WILDCARDS["experiment"],
    params:
        step=step("ju2022.summarise:experiments"),
        experiment="{experiment}",
        model=ju2022_model,
        design=ju2022_design,
        level=JU["credible_level"],
        health=JU["health"],
    script:
        STEP_SCRIPT


rule ju2022_experiments_page:
    input:
        csv=rules.ju2022_experiments.output.csv,
        md=rules.ju2022_experiments.output.md,
    output:
        html=report(
            f"{JU_DIR}/experiments/{{experiment}}.html",
            category="Study ju2022",
            subcategory="tables",
            caption="../report/ju2022/experiments.rst",
        ),
    log:
        f"{LOGS}/ju2022/experiments/{{experiment}}_page.log",
    wildcard_constraints:
        experiment=JU_WILDCARDS["experiment"],
    params:
        step=step("report_pages:table_page"),
    script:
        STEP_SCRIPT


rule ju2022_fig1a:
    input:
        **JU_FILES["loglinear"],
        summary=f"{JU_DIR}/experiments/loglinear_fixed_data.npz",
    output:
        pdf=f"{JU_DIR}/fig1a.pdf",
        png=report(
            f"{JU_DIR}/fig1a.png",
            category="Study ju2022",
            subcategory="figures",
            caption="../report/ju2022/fig1a.rst",
        ),
    log:
        f"{LOGS}/ju2022/fig1a.log",
    params:
        step=step("ju2022.figures:fig1a"),
        prior_concentration=JU["loglinear"]["prior_concentration"],
    script:
        STEP_SCRIPT


rule ju2022_fig2:
    input:
        **JU_FILES["linreg"],
        summary=f"{JU_DIR}/experiments/linreg_fixed_data.npz",
    output:
        pdf=f"{JU_DIR}/fig2.pdf",
        png=report(
            f"{JU_DIR}/fig2.png",
            category="Study ju2022",
            subcategory="figures",
            caption="../report/ju2022/fig2.rst",
        ),
    log:
        f"{LOGS}/ju2022/fig2.log",
    params:
        step=step("ju2022.figures:fig2"),
        prior_sd=JU["linreg"]["prior_sd"],
    script:
        STEP_SCRIPT


rule ju2022_fig1b:
    input:
        summary=f"{JU_DIR}/experiments/loglinear_fixed_data.npz",
    output:
        pdf=f"{JU_DIR}/fig1b.pdf",
        png=report(
            f"{JU_DIR}/fig1b.png",
            category="Study ju2022",
            subcategory="figures",
            caption="../report/ju2022/fig1b.rst",
        ),
    log:
        f"{LOGS}/ju2022/fig1b.log",
    params:
        step=step("ju2022.figures:fig1b"),
    script:
        STEP_SCRIPT


rule ju2022_figS1:
    input:
        summary=f"{JU_DIR}/experiments/linreg_fixed_data.npz",
    output:
        pdf=f"{JU_DIR}/figS1.pdf",
        png=report(
            f"{JU_DIR}/figS1.png",
            category="Study ju2022",
            subcategory="figures",
            caption="../report/ju2022/figS1.rst",
        ),
    log:
        f"{LOGS}/ju2022/figS1.log",
    params:
        step=step("ju2022.figures:figS1"),
    script:
        STEP_SCRIPT


rule ju2022_tab1:
    input:
        summary=f"{JU_DIR}/experiments/loglinear_coverage.npz",
    output:
        csv=f"{JU_DIR}/tab1.csv",
        md=f"{JU_DIR}/tab1.md",
    log:
        f"{LOGS}/ju2022/tab1.log",
    params:
        step=step("ju2022.summarise:tab1"),
        level=JU["credible_level"],
        # what the paper's values refer to: printed beside ours only at the paper's setting
        burnin=JU["burnin"],
        model_cfg=JU["loglinear"],
        n_records=JU["experiments"]["loglinear_coverage"].get("n_records"),
    script:
        STEP_SCRIPT


rule ju2022_tab1_page:
    input:
        csv=rules.ju2022_tab1.output.csv,
        md=rules.ju2022_tab1.output.md,
    output:
        html=report(
            f"{JU_DIR}/tab1.html",
            category="Study ju2022",
            subcategory="tables",
            caption="../report/ju2022/tab1.rst",
        ),
    log:
        f"{LOGS}/ju2022/tab1_page.log",
    params:
        step=step("report_pages:table_page"),
    script:
        STEP_SCRIPT


rule ju2022_tabS1:
    input:
        summary=f"{JU_DIR}/experiments/linreg_coverage.npz",
    output:
        csv=f"{JU_DIR}/tabS1.csv",
        md=f"{JU_DIR}/tabS1.md",
    log:
        f"{LOGS}/ju2022/tabS1.log",
    params:
        step=step("ju2022.summarise:tabS1"),
        level=JU["credible_level"],
        # what the paper's values refer to: printed beside ours only at the paper's setting
        burnin=JU["burnin"],
        model_cfg=JU["linreg"],
        n_records=JU["experiments"]["linreg_coverage"].get("n_records"),
    script:
        STEP_SCRIPT


rule ju2022_tabS1_page:
    input:
        csv=rules.ju2022_tabS1.output.csv,
        md=rules.ju2022_tabS1.output.md,
    output:
        html=report(
            f"{JU_DIR}/tabS1.html",
            category="Study ju2022",
            subcategory="tables",
            caption="../report/ju2022/tabS1.rst",
        ),
    log:
        f"{LOGS}/ju2022/tabS1_page.log",
    params:
        step=step("report_pages:table_page"),
    script:
        STEP_SCRIPT


rule ju2022_runtime:
    input:
        loglinear=f"{JU_DIR}/experiments/loglinear_fixed_data.npz",
        linreg=f"{JU_DIR}/experiments/linreg_fixed_data.npz",
    output:
        csv=f"{JU_DIR}/runtime.csv",
        md=f"{JU_DIR}/runtime.md",
    log:
        f"{LOGS}/ju2022/runtime.log",
    params:
        step=step("ju2022.summarise:runtime"),
    script:
        STEP_SCRIPT


rule ju2022_runtime_page:
    input:
        csv=rules.ju2022_runtime.output.csv,
        md=rules.ju2022_runtime.output.md,
    output:
        html=report(
            f"{JU_DIR}/runtime.html",
            category="Study ju2022",
            subcategory="tables",
            caption="../report/ju2022/runtime.rst",
        ),
    log:
        f"{LOGS}/ju2022/runtime_page.log",
    params:
        step=step("report_pages:table_page"),
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
