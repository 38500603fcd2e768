# raisa2021, Fig 6.1: the privacy accountants' epsilon curves of DP penalty, minibatch DP
# penalty and DP HMC at the easy-2d hyperparameters -> fig6_1.
# Included by raisa2021.smk (its globals and checks).

from dpinfer.studies.raisa2021.settings import hyperparameters


rule raisa2021_run_accountants:
    output:
        curves=f"{RAISA_DIR}/accountants.npz",
    log:
        f"{RAISA_LOGS}/accountants.log",
    resources:
        runtime=10,
    params:
        step=step("raisa2021.run:accountant_curves"),
        n=RAISA["fig6_1"]["n"],
        delta=RAISA["fig6_1"]["delta"],
        epsilon_min=RAISA["fig6_1"]["epsilon_min"],
        epsilon_max=RAISA["fig6_1"]["epsilon_max"],
        points=RAISA["fig6_1"]["points"],
        penalty=hyperparameters(RAISA_PARAMS, "easy-2d", "dpps", RAISA["version"]),
        minibatch=hyperparameters(RAISA_PARAMS, "easy-2d", "mdpps", RAISA["version"]),
        hmc=hyperparameters(RAISA_PARAMS, "easy-2d", "hmc", RAISA["version"]),
        hmc_gradients=RAISA_HMC,
        # the chains' epsilons too: where the author's easy-2d counts (Fig 6.1's setting) are known
        check_epsilons=RAISA["epsilons"],
    script:
        STEP_SCRIPT


figure(
    "raisa2021",
    "fig6_1",
    "raisa2021.figures:fig6_1",
    {"curves": rules.raisa2021_run_accountants.output.curves},
)
