# raisa2021, Fig 4.1: one DP HMC trajectory on the circle model -> fig4_1.
# Included by raisa2021.smk (its globals and checks).

from dpinfer.studies.raisa2021.settings import hyperparameters, model_spec


rule raisa2021_run_trajectory:
    output:
        trajectory=f"{RAISA_DIR}/fig4_1_trajectory.npz",
    log:
        f"{RAISA_LOGS}/trajectory.log",
    resources:
        runtime=5,
    params:
        step=step("raisa2021.run:hmc_trajectory"),
        seed=config["seed"],
        spec=model_spec(RAISA_PARAMS, "circle", RAISA["data_fraction"]),
        hyper=hyperparameters(RAISA_PARAMS, "circle", "hmc", RAISA["version"]),
        epsilon=RAISA["fig4_1"]["epsilon"],
        delta_factor=RAISA["delta_factor"],
        steps=RAISA["fig4_1"]["steps"],
        iteration=RAISA["fig4_1"]["iteration"],
        hmc_gradients=RAISA_HMC,
    script:
        STEP_SCRIPT


figure(
    "raisa2021",
    "fig4_1",
    "raisa2021.figures:fig4_1",
    {"trajectory": rules.raisa2021_run_trajectory.output.trajectory},
    first_position=RAISA["fig4_1"]["first_position"],
    every=RAISA["fig4_1"]["every"],
    panels=RAISA["fig4_1"]["panels"],
)
