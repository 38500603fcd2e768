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


table(
    "raisa2021",
    "tab5_1",
    "raisa2021.summarise:tab5_1",
    {"params": RAISA["params"]},
    specs={m: model_spec(RAISA_PARAMS, m, RAISA["data_fraction"]) for m in RAISA["models"]},
    start_rule=RAISA["start_rule"],
)
figure(
    "raisa2021",
    "fig5_1",
    "raisa2021.figures:fig5_1",
    {
        "references": expand(
            f"{RAISA_DIR}/models/{{model}}.npz",
            model=[m for m in RAISA["models"] if RAISA_PARAMS["models"][m]["dim"] == 2],
        )
    },
)
