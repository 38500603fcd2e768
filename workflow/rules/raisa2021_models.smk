# raisa2021, the models: one job per model (its data, reference draws, baselines, chain starts
# and, for 2-d models, Fig 5.1's contour grid) -> fig5_1; the params file -> tab5_1.
# Included by raisa2021.smk (its globals and checks).

from dpinfer.studies.raisa2021.settings import model_spec


rule raisa2021_run_reference:
    output:
        reference=f"{RAISA_DIR}/models/{{model}}.npz",
    log:
        f"{RAISA_LOGS}/reference_{{model}}.log",
    wildcard_constraints:
        model=RAISA_MODELS,
    resources:
        runtime=5,
    params:
        step=step("raisa2021.run:model_reference"),
        seed=config["seed"],
        model="{model}",
        spec=raisa2021_spec,
        reference_draws=RAISA["reference_draws"],
        baseline_samples=RAISA["baseline_samples"],
        chains=RAISA["chains"],
        start_rule=RAISA["start_rule"],
        mmd_bandwidth_pairs=RAISA["mmd_bandwidth_pairs"],
    script:
        STEP_SCRIPT


rule raisa2021_fig5_1:
    input:
        references=expand(
            f"{RAISA_DIR}/models/{{model}}.npz",
            model=[m for m in RAISA["models"] if RAISA_PARAMS["models"][m]["dim"] == 2],
        ),
    output:
        pdf=f"{RAISA_DIR}/fig5_1.pdf",
        png=report(
            f"{RAISA_DIR}/fig5_1.png",
            category="Study raisa2021",
            subcategory="figures",
            caption="../report/raisa2021/fig5_1.rst",
        ),
    log:
        f"{RAISA_LOGS}/fig5_1.log",
    params:
        step=step("raisa2021.figures:fig5_1"),
    script:
        STEP_SCRIPT


rule raisa2021_tab5_1:
    input:
        params=RAISA["params"],
    output:
        csv=f"{RAISA_DIR}/tab5_1.csv",
        md=f"{RAISA_DIR}/tab5_1.md",
    log:
        f"{RAISA_LOGS}/tab5_1.log",
    params:
        step=step("raisa2021.summarise:tab5_1"),
        models=RAISA["models"],
        specs={m: model_spec(RAISA_PARAMS, m, RAISA["data_fraction"]) for m in RAISA["models"]},
        start_rule=RAISA["start_rule"],
    script:
        STEP_SCRIPT


rule raisa2021_tab5_1_page:
    input:
        csv=rules.raisa2021_tab5_1.output.csv,
        md=rules.raisa2021_tab5_1.output.md,
    output:
        html=report(
            f"{RAISA_DIR}/tab5_1.html",
            category="Study raisa2021",
            subcategory="tables",
            caption="../report/raisa2021/tab5_1.rst",
        ),
    log:
        f"{RAISA_LOGS}/tab5_1_page.log",
    params:
        step=step("report_pages:table_page"),
    script:
        STEP_SCRIPT
