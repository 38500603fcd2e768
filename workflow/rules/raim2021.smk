# raim2021: Raim (Census CSRM seminar 2021), customised direct sampler and the noisy
# lognormal regression.
# DAG: envelopes -> knots / error_bound / step_function figures;
#      Gibbs chunks (simulate + release + Algorithms 2 and 4 per replicate) -> aggregate per
#      study -> mse_densities; one realisation -> traces; one timed run -> timing table.
from dpinfer.grid import raim_settings

validate_section(["raim2021"], "raim2021")
RAIM = config["raim2021"]
RAIM_DIR = f"{RESULTS}/raim2021"


def check_raim2021(cfg):
    if cfg["burnin"] >= cfg["iterations"]:
        config_error(
            "raim2021.burnin",
            f"must be smaller than raim2021.iterations ({cfg['iterations']})",
        )
    if cfg["direct"]["method"] != "quantile" and cfg["direct"]["n_knots"] < 1:
        config_error(
            "raim2021.direct.n_knots", "must be >= 1 for small_rects / equal_steps"
        )


def raim2021_chunk_files(wildcards):
    return [
        f"{RAIM_DIR}/runs/{name}/chunk{c}.npz"
        for name in raim_settings(RAIM["rhos"], RAIM["lambdas"])
        for c in chunk_ids(RAIM["replicates"], RAIM["chunk_size"])
    ]


check_raim2021(RAIM)
register_targets(
    "raim2021",
    [
        ("knots", "figure"),
        ("error_bound", "figure"),
        ("step_function", "figure"),
        ("traces", "figure"),
        ("mse_densities", "figure"),
        ("timing", "table"),
    ],
)


rule raim2021_envelopes:
    output:
        envelopes=f"{RAIM_DIR}/envelopes/envelopes.npz",
    log:
        f"{LOGS}/raim2021/envelopes.log",
    resources:
        runtime=5,
    params:
        step=step("raim2021:compute_envelopes"),
        knots=RAIM["knots"],
        step_function=RAIM["step_function"],
    script:
        STEP_SCRIPT


rule raim2021_knots:
    input:
        envelopes=rules.raim2021_envelopes.output.envelopes,
    output:
        pdf=report(
            f"{RAIM_DIR}/knots.pdf",
            category="raim2021",
            caption="../report/raim2021.rst",
        ),
        png=f"{RAIM_DIR}/knots.png",
    log:
        f"{LOGS}/raim2021/knots.log",
    params:
        step=step("raim2021:plot_knots"),
    script:
        STEP_SCRIPT


rule raim2021_error_bound:
    input:
        envelopes=rules.raim2021_envelopes.output.envelopes,
    output:
        pdf=report(
            f"{RAIM_DIR}/error_bound.pdf",
            category="raim2021",
            caption="../report/raim2021.rst",
        ),
        png=f"{RAIM_DIR}/error_bound.png",
    log:
        f"{LOGS}/raim2021/error_bound.log",
    params:
        step=step("raim2021:plot_error_bound"),
    script:
        STEP_SCRIPT


rule raim2021_step_function:
    input:
        envelopes=rules.raim2021_envelopes.output.envelopes,
    output:
        pdf=report(
            f"{RAIM_DIR}/step_function.pdf",
            category="raim2021",
            caption="../report/raim2021.rst",
        ),
        png=f"{RAIM_DIR}/step_function.png",
    log:
        f"{LOGS}/raim2021/step_function.log",
    params:
        step=step("raim2021:plot_step_function"),
    script:
        STEP_SCRIPT


rule raim2021_gibbs_chunk:
    output:
        summary=f"{RAIM_DIR}/runs/{{setting}}/chunk{{chunk}}.npz",
    log:
        f"{LOGS}/raim2021/gibbs/{{setting}}_chunk{{chunk}}.log",
    wildcard_constraints:
        setting="rho[0-9.e+-]+_lambda[0-9.e+-]+",
        chunk="[0-9]+",
    resources:
        runtime=30,
        mem_mb=500,
    params:
        step=step("raim2021:run_gibbs_chunk"),
        seed=config["seed"],
        setting="{setting}",
        chunk="{chunk}",
        cfg=RAIM,
    script:
        STEP_SCRIPT


rule raim2021_aggregate:
    input:
        chunks=raim2021_chunk_files,
    output:
        summary=f"{RAIM_DIR}/mse/summary.npz",
        csv=f"{RAIM_DIR}/mse/amse.csv",
        md=f"{RAIM_DIR}/mse/amse.md",
    log:
        f"{LOGS}/raim2021/aggregate.log",
    params:
        step=step("raim2021:aggregate_mse"),
        settings=raim_settings(RAIM["rhos"], RAIM["lambdas"]),
    script:
        STEP_SCRIPT


rule raim2021_mse_densities:
    input:
        summary=rules.raim2021_aggregate.output.summary,
    output:
        pdf=report(
            f"{RAIM_DIR}/mse_densities.pdf",
            category="raim2021",
            caption="../report/raim2021.rst",
        ),
        png=f"{RAIM_DIR}/mse_densities.png",
    log:
        f"{LOGS}/raim2021/mse_densities.log",
    params:
        step=step("raim2021:plot_mse_densities"),
        rhos=RAIM["rhos"],
        lambdas=RAIM["lambdas"],
    script:
        STEP_SCRIPT


rule raim2021_trace_chains:
    output:
        chains=f"{RAIM_DIR}/traces/chains.npz",
    log:
        f"{LOGS}/raim2021/trace_chains.log",
    resources:
        runtime=10,
    params:
        step=step("raim2021:run_traces"),
        seed=config["seed"],
        cfg=RAIM,
    script:
        STEP_SCRIPT


rule raim2021_traces:
    input:
        chains=rules.raim2021_trace_chains.output.chains,
    output:
        pdf=report(
            f"{RAIM_DIR}/traces.pdf",
            category="raim2021",
            caption="../report/raim2021.rst",
        ),
        png=f"{RAIM_DIR}/traces.png",
    log:
        f"{LOGS}/raim2021/traces.log",
    params:
        step=step("raim2021:plot_traces"),
        burnin=RAIM["burnin"],
    script:
        STEP_SCRIPT


rule raim2021_timing_run:
    output:
        timing=f"{RAIM_DIR}/timing/timing.json",
    log:
        f"{LOGS}/raim2021/timing_run.log",
    # both cores, so no other job of this workflow runs beside the timed chain
    threads: 2
    resources:
        runtime=10,
    params:
        step=step("raim2021:run_timing"),
        seed=config["seed"],
        cfg=RAIM,
    script:
        STEP_SCRIPT


rule raim2021_timing:
    input:
        timing=rules.raim2021_timing_run.output.timing,
    output:
        csv=report(
            f"{RAIM_DIR}/timing.csv",
            category="raim2021",
            caption="../report/raim2021.rst",
        ),
        md=f"{RAIM_DIR}/timing.md",
    log:
        f"{LOGS}/raim2021/timing.log",
    params:
        step=step("raim2021:render_timing"),
    script:
        STEP_SCRIPT
