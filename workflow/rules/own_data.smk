# Your own data (issue 34; no source document): every private method on repeated releases of a
# data set the config names. DAG per data set: own_data_check (read and check the records before
# any sampler) -> own_data_run_chunk (one chunk of trials at one epsilon) -> own_data_summarise
# (tables, recommendation) -> the figure and the table pages. Every job and file is keyed by its
# data set, so adding a data set adds only its own jobs.
from dpinfer.own_data import spec_from_config

validate_section(["own_data"], "own_data")
OWN = config["own_data"]
OWN_DIR = f"{RESULTS}/own_data"
OWN_LOGS = f"{LOGS}/own_data"

check_config("own_data", OWN)
OWN_SPECS = {name: spec_from_config(name, entry) for name, entry in OWN["datasets"].items()}
OWN_PARAMETERS = {
    name: [*spec.covariates, "intercept", "sigma2"] for name, spec in OWN_SPECS.items()
}

# per data set, the figure and tables (targets.smk makes their rules; own_data_summarise writes
# the tables): target "<data set>_accuracy", "<data set>_metrics", ...
for _name in OWN["datasets"]:
    figure(
        "own_data",
        f"{_name}_accuracy",
        "own_data.figures:dataset_figure",
        {"summary": f"{OWN_DIR}/{_name}/summary.npz"},
        report_as=("accuracy", _name),
        dataset=_name,
        max_flagged=OWN["recommend"]["max_flagged"],
    )
    for _tab in ("metrics", "cost", "recommended"):
        table("own_data", f"{_name}_{_tab}", report_as=(_tab, _name))

OWN_CHUNKS = {
    str(c): chunk_range(c, OWN["trials"], OWN["chunk_size"])
    for c in chunk_ids(OWN["trials"], OWN["chunk_size"])
}


wildcard_constraints:
    dataset="|".join(OWN["datasets"]) or "$^",


rule own_data_check:
    input:
        data=lambda w: user_file(OWN_SPECS[w.dataset].source),
    output:
        check=f"{OWN_DIR}/{{dataset}}/nonprivate_check.md",
    log:
        f"{OWN_LOGS}/{{dataset}}/check.log",
    resources:
        runtime=5,
    params:
        step=step("own_data.check:check_dataset"),
        dataset="{dataset}",
        entry=lookup(dpath="{dataset}", within=OWN["datasets"]),
    script:
        STEP_SCRIPT


rule own_data_run_chunk:
    input:
        check=rules.own_data_check.output.check,  # the records pass their checks first
        data=lambda w: user_file(OWN_SPECS[w.dataset].source),
    output:
        runs=f"{OWN_DIR}/{{dataset}}/runs/eps{{eps}}/chunk{{chunk}}.npz",
    log:
        f"{OWN_LOGS}/{{dataset}}/runs_eps{{eps}}_{{chunk}}.log",
    wildcard_constraints:
        eps=r"[0-9.e-]+",
        chunk=r"\d+",
    resources:
        runtime=30,
    params:
        step=step("own_data.run:run_chunk"),
        seed=config["seed"],
        dataset="{dataset}",
        entry=lookup(dpath="{dataset}", within=OWN["datasets"]),
        epsilon=wildcard_float("eps"),
        replicates=lookup(dpath="{chunk}", within=OWN_CHUNKS),
        accuracy_trials=OWN["accuracy_trials"],
        credible_level=OWN["credible_level"],
        mmd_draws=OWN["mmd_draws"],
        settings={
            k: OWN[k]
            for k in (
                "methods",
                "prior",
                "data_prior",
                "conjugate_draws",
                "gibbs",
                "mcmc_ind",
                "reference",
            )
        },
        health=OWN["health"],
    script:
        STEP_SCRIPT


rule own_data_summarise:
    input:
        runs=expand(
            f"{OWN_DIR}/{{{{dataset}}}}/runs/eps{{eps}}/chunk{{chunk}}.npz",
            eps=[fmt_eps(e) for e in OWN["epsilons"]],
            chunk=list(OWN_CHUNKS),
        ),
    output:
        summary=f"{OWN_DIR}/{{dataset}}/summary.npz",
        metrics_csv=f"{OWN_DIR}/{{dataset}}_metrics.csv",
        metrics_md=f"{OWN_DIR}/{{dataset}}_metrics.md",
        cost_csv=f"{OWN_DIR}/{{dataset}}_cost.csv",
        cost_md=f"{OWN_DIR}/{{dataset}}_cost.md",
        recommended_csv=f"{OWN_DIR}/{{dataset}}_recommended.csv",
        recommended_md=f"{OWN_DIR}/{{dataset}}_recommended.md",
    log:
        f"{OWN_LOGS}/{{dataset}}/summarise.log",
    resources:
        runtime=5,
    params:
        step=step("own_data.summarise:summarise"),
        dataset="{dataset}",
        parameters=lookup(dpath="{dataset}", within=OWN_PARAMETERS),
        credible_level=OWN["credible_level"],
        health=OWN["health"],
        recommend_rule=OWN["recommend"],
    script:
        STEP_SCRIPT
