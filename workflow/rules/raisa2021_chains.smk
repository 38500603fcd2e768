# raisa2021, the DP chains: one job per (model, algorithm, epsilon) -> raisa2021_summarise (one
# table of every setting) -> fig6_3 .. fig6_8 (one figure step each, same input).
# A chain job gets its model's data spec and its algorithm's hyperparameters only (read from the
# params file at parse time), so editing one model's settings reruns that model alone.
# Included by raisa2021.smk (its globals and checks).

from dpinfer.studies.raisa2021.settings import (
    author_iterations,
    chain_setting,
    hyperparameters,
    model_spec,
    runs,
)

# every (model, algorithm, epsilon) setting the params file has: the circle has its own grid
RAISA_SETTINGS = [
    (m, a, fmt_eps(e))
    for m in RAISA["models"]
    for a in RAISA["algorithms"]
    if runs(RAISA_PARAMS, m, a)
    for e in (RAISA["circle_epsilons"] if m == "circle" else RAISA["epsilons"])
]
RAISA_CHAIN_FILES = [f"{RAISA_DIR}/chains/{chain_setting(*s)}.npz" for s in RAISA_SETTINGS]
# parse-time value of one job's wildcards
raisa2021_hyper = lambda wildcards: hyperparameters(
    RAISA_PARAMS, wildcards.model, wildcards.algo, RAISA["version"]
)
# a chain job reads its model's reference; DP Barker also its V_corr mixture
raisa2021_chain_inputs = lambda wildcards: dict(
    reference=f"{RAISA_DIR}/models/{wildcards.model}.npz",
    **({"vcorr": RAISA["vcorr"]} if wildcards.algo == "barker" else {}),
)
RAISA_SETTING_ROWS = [
    {
        "model": m,
        "algo": a,
        "epsilon": float(e),
        "file": f"{RAISA_DIR}/chains/{chain_setting(m, a, e)}.npz",
        "n": model_spec(RAISA_PARAMS, m, RAISA["data_fraction"])["n"],
        # the author's counts for the thesis text's hyperparameters: compared and printed only
        # at the thesis's n, delta and version
        # (the "iterations" settings of dpinfer/studies/raisa2021/settings.yaml)
        "author_iterations": author_iterations(RAISA_PARAMS, m, a, float(e), "seed"),
    }
    for m, a, e in RAISA_SETTINGS
]


rule raisa2021_run_chains:
    input:
        unpack(raisa2021_chain_inputs),
    output:
        chains=f"{RAISA_DIR}/chains/{{model}}/{{algo}}/eps{{eps}}.npz",
    log:
        f"{RAISA_LOGS}/chains/{{model}}_{{algo}}_eps{{eps}}.log",
    wildcard_constraints:
        model=RAISA_MODELS,
        algo="dpps|dppa|hmc|mdpps|mdppa|barker",
        eps="[0-9][0-9.e+-]*",
    resources:
        runtime=30,
    params:
        step=step("raisa2021.run:chains"),
        seed=config["seed"],
        model="{model}",
        spec=raisa2021_spec,
        algo="{algo}",
        epsilon=wildcard_float("eps"),
        hyper=raisa2021_hyper,
        delta_factor=RAISA["delta_factor"],
        hmc_gradients=RAISA_HMC,
        mmd_bandwidth_pairs=RAISA["mmd_bandwidth_pairs"],
    script:
        STEP_SCRIPT


rule raisa2021_summarise:
    input:
        chains=RAISA_CHAIN_FILES,
        references=expand(f"{RAISA_DIR}/models/{{model}}.npz", model=RAISA["models"]),
    output:
        summary=f"{RAISA_DIR}/summary.npz",
        csv=f"{RAISA_DIR}/summary.csv",
        md=f"{RAISA_DIR}/summary.md",
    log:
        f"{RAISA_LOGS}/summary.log",
    resources:
        runtime=5,
    params:
        step=step("raisa2021.summarise:summarise"),
        settings=RAISA_SETTING_ROWS,
        health=RAISA["health"],
        # what the author's counts refer to (printed beside ours only at the thesis's setting)
        delta_factor=RAISA["delta_factor"],
        version=RAISA["version"],
    script:
        STEP_SCRIPT


for _fig in ("fig6_3", "fig6_4", "fig6_5", "fig6_6", "fig6_7", "fig6_8"):
    figure(
        "raisa2021",
        _fig,
        f"raisa2021.figures:{_fig}",
        {"summary": rules.raisa2021_summarise.output.summary},
    )
