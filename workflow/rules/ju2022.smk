# ju2022: Ju, Awan, Gong, Rao (NeurIPS 2022), data-augmentation MCMC (Algorithm 1).
# DAG: chunk (release + chain per replicate) -> aggregate per experiment -> figures / tables.
validate_section(["ju2022"], "ju2022")
JU = config["ju2022"]
JU_DIR = f"{RESULTS}/ju2022"
JU_DATA_FILES = [
    f"{JU['data_dir']}/loglinear_datageneratingparameters.json",
    f"{JU['data_dir']}/loglinear_notdpdata_N100.json",
    f"{JU['data_dir']}/linearregression_XY_N100p2.json",
    f"{JU['data_dir']}/linearregression_datageneratingparam_N100p2.json",
]


def check_ju2022(ju):
    if ju["burnin"] >= ju["iterations"]:
        config_error(
            "ju2022.burnin",
            f"must be smaller than ju2022.iterations ({ju['iterations']})",
        )
    lo, hi = ju["linreg"]["clamp"]
    if not lo < hi:
        config_error("ju2022.linreg.clamp", "needs lower < upper")
    for path in JU_DATA_FILES:
        if not os.path.exists(path):
            config_error("ju2022.data_dir", f"missing data file {path}")


def ju2022_chunk_files(wildcards):
    exp = JU["experiments"][wildcards.experiment]
    return [
        f"{JU_DIR}/runs/{wildcards.experiment}/eps{fmt_eps(e)}/chunk{c}.npz"
        for e in exp["epsilons"]
        for c in chunk_ids(exp["replicates"], JU["chunk_size"])
    ]


def ju2022_chunk_settings(wildcards):
    exp = JU["experiments"][wildcards.experiment]
    return {
        "seed": config["seed"],
        "experiment": wildcards.experiment,
        "model_name": exp["model"],
        "design": exp["design"],
        "epsilon": float(wildcards.eps),
        "chunk": int(wildcards.chunk),
        "chunk_size": JU["chunk_size"],
        "replicates": exp["replicates"],
        "n_records": exp.get("n_records", 100),
        "iterations": JU["iterations"],
        "burnin": JU["burnin"],
        "credible_level": JU["credible_level"],
        "data_dir": JU["data_dir"],
        "model": JU[exp["model"]],
    }


def ju2022_epsilons(wildcards):
    return JU["experiments"][wildcards.experiment]["epsilons"]


def ju2022_model(wildcards):
    return JU["experiments"][wildcards.experiment]["model"]


def ju2022_design(wildcards):
    return JU["experiments"][wildcards.experiment]["design"]


check_ju2022(JU)
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


wildcard_constraints:
    experiment="[A-Za-z][A-Za-z0-9_]*",
    eps="[0-9][0-9.e+-]*",
    chunk="[0-9]+",


rule ju2022_chunk:
    input:
        data=JU_DATA_FILES,
    output:
        summary=f"{JU_DIR}/runs/{{experiment}}/eps{{eps}}/chunk{{chunk}}.npz",
    log:
        f"{LOGS}/ju2022/chunk/{{experiment}}_eps{{eps}}_chunk{{chunk}}.log",
    resources:
        runtime=30,
        mem_mb=1000,
    params:
        step=step("ju2022:run_chunk"),
        settings=ju2022_chunk_settings,
    script:
        STEP_SCRIPT


rule ju2022_aggregate:
    input:
        chunks=ju2022_chunk_files,
    output:
        summary=f"{JU_DIR}/experiments/{{experiment}}.npz",
    log:
        f"{LOGS}/ju2022/aggregate/{{experiment}}.log",
    params:
        step=step("ju2022:aggregate"),
        epsilons=ju2022_epsilons,
    script:
        STEP_SCRIPT


rule ju2022_experiment_summary:
    input:
        summary=rules.ju2022_aggregate.output.summary,
    output:
        csv=report(
            f"{JU_DIR}/experiments/{{experiment}}.csv",
            category="ju2022",
            caption="../report/ju2022.rst",
        ),
        md=f"{JU_DIR}/experiments/{{experiment}}.md",
    log:
        f"{LOGS}/ju2022/summary/{{experiment}}.log",
    params:
        step=step("ju2022:render_experiment_summary"),
        experiment="{experiment}",
        model=ju2022_model,
        design=ju2022_design,
    script:
        STEP_SCRIPT


rule ju2022_fig1a:
    input:
        summary=f"{JU_DIR}/experiments/loglinear_fixed_data.npz",
        data=JU_DATA_FILES,
    output:
        pdf=report(
            f"{JU_DIR}/fig1a.pdf", category="ju2022", caption="../report/ju2022.rst"
        ),
        png=f"{JU_DIR}/fig1a.png",
    log:
        f"{LOGS}/ju2022/fig1a.log",
    params:
        step=step("ju2022:render_posterior_means"),
        model="loglinear",
        data_dir=JU["data_dir"],
        prior_concentration=JU["loglinear"]["prior_concentration"],
    script:
        STEP_SCRIPT


rule ju2022_fig2:
    input:
        summary=f"{JU_DIR}/experiments/linreg_fixed_data.npz",
        data=JU_DATA_FILES,
    output:
        pdf=report(
            f"{JU_DIR}/fig2.pdf", category="ju2022", caption="../report/ju2022.rst"
        ),
        png=f"{JU_DIR}/fig2.png",
    log:
        f"{LOGS}/ju2022/fig2.log",
    params:
        step=step("ju2022:render_posterior_means"),
        model="linreg",
        data_dir=JU["data_dir"],
        prior_sd=JU["linreg"]["prior_sd"],
    script:
        STEP_SCRIPT


rule ju2022_fig1b:
    input:
        summary=f"{JU_DIR}/experiments/loglinear_fixed_data.npz",
    output:
        pdf=report(
            f"{JU_DIR}/fig1b.pdf", category="ju2022", caption="../report/ju2022.rst"
        ),
        png=f"{JU_DIR}/fig1b.png",
    log:
        f"{LOGS}/ju2022/fig1b.log",
    params:
        step=step("ju2022:render_acceptance"),
    script:
        STEP_SCRIPT


use rule ju2022_fig1b as ju2022_figS1 with:
    input:
        summary=f"{JU_DIR}/experiments/linreg_fixed_data.npz",
    output:
        pdf=report(
            f"{JU_DIR}/figS1.pdf", category="ju2022", caption="../report/ju2022.rst"
        ),
        png=f"{JU_DIR}/figS1.png",
    log:
        f"{LOGS}/ju2022/figS1.log",


rule ju2022_tab1:
    input:
        summary=f"{JU_DIR}/experiments/loglinear_coverage.npz",
    output:
        csv=report(
            f"{JU_DIR}/tab1.csv", category="ju2022", caption="../report/ju2022.rst"
        ),
        md=f"{JU_DIR}/tab1.md",
    log:
        f"{LOGS}/ju2022/tab1.log",
    params:
        step=step("ju2022:render_coverage_table"),
        model="loglinear",
        level=JU["credible_level"],
    script:
        STEP_SCRIPT


use rule ju2022_tab1 as ju2022_tabS1 with:
    input:
        summary=f"{JU_DIR}/experiments/linreg_coverage.npz",
    output:
        csv=report(
            f"{JU_DIR}/tabS1.csv", category="ju2022", caption="../report/ju2022.rst"
        ),
        md=f"{JU_DIR}/tabS1.md",
    log:
        f"{LOGS}/ju2022/tabS1.log",
    params:
        step=step("ju2022:render_coverage_table"),
        model="linreg",
        level=JU["credible_level"],


rule ju2022_runtime:
    input:
        loglinear=f"{JU_DIR}/experiments/loglinear_fixed_data.npz",
        linreg=f"{JU_DIR}/experiments/linreg_fixed_data.npz",
    output:
        csv=report(
            f"{JU_DIR}/runtime.csv", category="ju2022", caption="../report/ju2022.rst"
        ),
        md=f"{JU_DIR}/runtime.md",
    log:
        f"{LOGS}/ju2022/runtime.log",
    params:
        step=step("ju2022:render_runtime_table"),
    script:
        STEP_SCRIPT
