# Your own data (issue 34; no source document): every private method on repeated releases of a
# data set the config names. DAG per data set: own_data_check (read and check the records before
# any sampler) -> own_data_run_chunk (one chunk of trials at one epsilon) -> own_data_summarise
# (tables, recommendation) -> the figure and the table pages. Every job and file is keyed by its
# data set, so adding a data set adds only its own jobs.
from dpinfer.own_data import DataSetError, spec_from_config

validate_section(["own_data"], "own_data")
OWN = config["own_data"]
OWN_DIR = f"{RESULTS}/own_data"
OWN_LOGS = f"{LOGS}/own_data"

if OWN["accuracy_trials"] > OWN["trials"]:
    config_error("own_data.accuracy_trials", f"must not exceed own_data.trials ({OWN['trials']})")
if OWN["chunk_size"] > OWN["trials"]:
    config_error("own_data.chunk_size", f"must not exceed own_data.trials ({OWN['trials']})")
_own_tries = [OWN["reference"]["keep"], *OWN["reference"]["longer"]]
if any(b <= a for a, b in zip(_own_tries, _own_tries[1:])):
    config_error(
        "own_data.reference.longer",
        f"must rise above reference.keep ({_own_tries[0]}): {_own_tries[1:]}",
    )
OWN_SPECS = {}
for _name, _entry in OWN["datasets"].items():
    try:
        OWN_SPECS[_name] = spec_from_config(_name, _entry)
    except DataSetError as err:
        config_error(f"own_data.datasets.{_name}", str(err))
    _p = len(_entry["covariates"])
    if not OWN["data_prior"]["nu"] > _p + 3:
        config_error(
            "own_data.data_prior.nu",
            f"must exceed p + 3 = {_p + 3} for data set {_name} ({_p} covariates)",
        )
OWN_PARAMETERS = {
    name: [*spec.covariates, "intercept", "sigma2"] for name, spec in OWN_SPECS.items()
}

register_targets(
    "own_data",
    [
        (f"{name}_{tid}", kind)
        for name in OWN["datasets"]
        for tid, kind in (
            ("accuracy", "figure"),
            ("metrics", "table"),
            ("cost", "table"),
            ("recommended", "table"),
        )
    ],
)

OWN_CHUNKS = {
    str(c): chunk_range(c, OWN["trials"], OWN["chunk_size"])
    for c in chunk_ids(OWN["trials"], OWN["chunk_size"])
}


wildcard_constraints:
    dataset="|".join(OWN["datasets"]) or "$^",


rule own_data_check:
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


rule own_data_metrics_page:
    input:
        csv=rules.own_data_summarise.output.metrics_csv,
        md=rules.own_data_summarise.output.metrics_md,
    output:
        html=report(
            f"{OWN_DIR}/{{dataset}}_metrics.html",
            category="Study own_data",
            subcategory="{dataset}",
            caption="../report/own_data/metrics.rst",
        ),
    log:
        f"{OWN_LOGS}/{{dataset}}/metrics_page.log",
    params:
        step=step("report_pages:table_page"),
    script:
        STEP_SCRIPT


rule own_data_cost_page:
    input:
        csv=rules.own_data_summarise.output.cost_csv,
        md=rules.own_data_summarise.output.cost_md,
    output:
        html=report(
            f"{OWN_DIR}/{{dataset}}_cost.html",
            category="Study own_data",
            subcategory="{dataset}",
            caption="../report/own_data/cost.rst",
        ),
    log:
        f"{OWN_LOGS}/{{dataset}}/cost_page.log",
    params:
        step=step("report_pages:table_page"),
    script:
        STEP_SCRIPT


rule own_data_recommended_page:
    input:
        csv=rules.own_data_summarise.output.recommended_csv,
        md=rules.own_data_summarise.output.recommended_md,
    output:
        html=report(
            f"{OWN_DIR}/{{dataset}}_recommended.html",
            category="Study own_data",
            subcategory="{dataset}",
            caption="../report/own_data/recommended.rst",
        ),
    log:
        f"{OWN_LOGS}/{{dataset}}/recommended_page.log",
    params:
        step=step("report_pages:table_page"),
    script:
        STEP_SCRIPT


rule own_data_figure:
    input:
        summary=rules.own_data_summarise.output.summary,
    output:
        pdf=f"{OWN_DIR}/{{dataset}}_accuracy.pdf",
        png=report(
            f"{OWN_DIR}/{{dataset}}_accuracy.png",
            category="Study own_data",
            subcategory="{dataset}",
            caption="../report/own_data/accuracy.rst",
        ),
    log:
        f"{OWN_LOGS}/{{dataset}}/figure.log",
    resources:
        runtime=5,
    params:
        step=step("own_data.figures:dataset_figure"),
        dataset="{dataset}",
        max_flagged=OWN["recommend"]["max_flagged"],
    script:
        STEP_SCRIPT
