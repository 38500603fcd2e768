# raisa2021: Räisä (MSc thesis 2021), differentially private MCMC: DP penalty, DP HMC,
# minibatch DP penalty, DP Barker, and the non-DP clipping study.
# Logic: dpinfer.studies.raisa2021 (settings, thesis_settings, run, clipping, summarise, figures, paper, chain_claims).
# DAG: raisa2021_run_reference (one model: data, reference draws, baselines, starts, contours)
#        -> raisa2021_run_chains (one model x algorithm x epsilon: every chain, its metrics)
#        -> raisa2021_summarise -> fig6_3 .. fig6_8 and the claims;
#      raisa2021_run_clipping_reference (one dimension) -> raisa2021_run_clipping (one sampler x
#        dimension x bound) -> raisa2021_summarise_clipping -> fig6_2 and the claims;
#      raisa2021_run_reference -> fig5_1; raisa2021_run_accountants -> fig6_1;
#      raisa2021_run_trajectory -> fig4_1; the params file -> tab5_1.
# A chain job gets its model's data spec and its algorithm's hyperparameters only (read from the
# params file here, at parse time), so editing one model's settings reruns that model alone.

from dpinfer.studies.raisa2021.settings import (
    author_iterations,
    chain_setting,
    clipping_hyper,
    clipping_spec,
    hmc_variant,
    hyperparameters,
    load_params,
    model_spec,
    runs,
)

validate_section(["raisa2021"], "raisa2021")
RAISA = config["raisa2021"]
RAISA_DIR = f"{RESULTS}/raisa2021"
RAISA_LOGS = f"{LOGS}/raisa2021"
if not os.path.exists(RAISA["params"]):
    config_error("raisa2021.params", f"missing params file {RAISA['params']}")
RAISA_PARAMS = load_params(RAISA["params"])
RAISA_HMC = hmc_variant(RAISA["version"])
if RAISA["fig6_1"]["epsilon_min"] >= RAISA["fig6_1"]["epsilon_max"]:
    config_error("raisa2021.fig6_1.epsilon_min", "must be below fig6_1.epsilon_max")
if RAISA["fig4_1"]["first_position"] > RAISA["fig4_1"]["steps"]:
    config_error("raisa2021.fig4_1.first_position", "must be at most fig4_1.steps")
for _m in RAISA["models"]:
    if _m not in RAISA_PARAMS["models"]:
        config_error("raisa2021.models", f"{_m!r} is not in {RAISA['params']}")
if "barker" in RAISA["algorithms"] and not os.path.exists(RAISA["vcorr"]):
    config_error("raisa2021.vcorr", f"missing V_corr file {RAISA['vcorr']}")

# every (model, algorithm, epsilon) setting the params file has: the circle has its own grid
RAISA_SETTINGS = [
    (m, a, fmt_eps(e))
    for m in RAISA["models"]
    for a in RAISA["algorithms"]
    if runs(RAISA_PARAMS, m, a)
    for e in (RAISA["circle_epsilons"] if m == "circle" else RAISA["epsilons"])
]
if not RAISA_SETTINGS:
    config_error("raisa2021.algorithms", "no configured model has settings for these algorithms")
RAISA_CHAIN_FILES = [f"{RAISA_DIR}/chains/{chain_setting(*s)}.npz" for s in RAISA_SETTINGS]
RAISA_MODELS = "|".join(re.escape(m) for m in RAISA["models"])
# parse-time values of one job's wildcards
raisa2021_spec = lambda wildcards: model_spec(
    RAISA_PARAMS, wildcards.model, RAISA["data_fraction"]
)
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
        # the author's counts for the thesis text's hyperparameters: compared and printed only at
        # the thesis's n, delta and version (dpinfer.studies.raisa2021.thesis_settings.iteration_settings)
        "author_iterations": author_iterations(RAISA_PARAMS, m, a, float(e), "seed"),
    }
    for m, a, e in RAISA_SETTINGS
]

# the clipping study: one job per (sampler, dimension, bound)
RAISA_CLIP = RAISA["clipping"]
raisa2021_clipping_spec = lambda wildcards: clipping_spec(
    RAISA_PARAMS, int(wildcards.dim), RAISA_CLIP["n"], RAISA["data_fraction"]
)
RAISA_CLIP_SETTINGS = [
    {
        "algo": a,
        "dim": d,
        "bound": float(b),
        "file": f"{RAISA_DIR}/clipping/{a}/d{d}/bound{fmt_eps(b)}.npz",
    }
    for a in ("rwmh", "hmc")
    for d in RAISA_CLIP["dims"]
    for b in RAISA_CLIP["bounds"]
]

register_targets(
    "raisa2021",
    [("tab5_1", "table")]
    + [
        (f, "figure")
        for f in (
            "fig5_1",
            "fig6_1",
            "fig4_1",
            "fig6_2",
            "fig6_3",
            "fig6_4",
            "fig6_5",
            "fig6_6",
            "fig6_7",
            "fig6_8",
        )
    ],
)


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
        models=RAISA["models"],
        health=RAISA["health"],
        # what the author's counts refer to (printed beside ours only at the thesis's setting)
        delta_factor=RAISA["delta_factor"],
        version=RAISA["version"],
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
        specs={
            m: model_spec(RAISA_PARAMS, m, RAISA["data_fraction"]) for m in RAISA["models"]
        },
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
    script:
        STEP_SCRIPT


rule raisa2021_fig6_1:
    input:
        curves=rules.raisa2021_run_accountants.output.curves,
    output:
        pdf=f"{RAISA_DIR}/fig6_1.pdf",
        png=report(
            f"{RAISA_DIR}/fig6_1.png",
            category="Study raisa2021",
            subcategory="figures",
            caption="../report/raisa2021/fig6_1.rst",
        ),
    log:
        f"{RAISA_LOGS}/fig6_1.log",
    params:
        step=step("raisa2021.figures:fig6_1"),
    script:
        STEP_SCRIPT


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


rule raisa2021_fig4_1:
    input:
        trajectory=rules.raisa2021_run_trajectory.output.trajectory,
    output:
        pdf=f"{RAISA_DIR}/fig4_1.pdf",
        png=report(
            f"{RAISA_DIR}/fig4_1.png",
            category="Study raisa2021",
            subcategory="figures",
            caption="../report/raisa2021/fig4_1.rst",
        ),
    log:
        f"{RAISA_LOGS}/fig4_1.log",
    params:
        step=step("raisa2021.figures:fig4_1"),
        first_position=RAISA["fig4_1"]["first_position"],
        every=RAISA["fig4_1"]["every"],
        panels=RAISA["fig4_1"]["panels"],
    script:
        STEP_SCRIPT


rule raisa2021_fig6_4:
    input:
        summary=rules.raisa2021_summarise.output.summary,
    output:
        pdf=f"{RAISA_DIR}/fig6_4.pdf",
        png=report(
            f"{RAISA_DIR}/fig6_4.png",
            category="Study raisa2021",
            subcategory="figures",
            caption="../report/raisa2021/fig6_4.rst",
        ),
    log:
        f"{RAISA_LOGS}/fig6_4.log",
    params:
        step=step("raisa2021.figures:fig6_4"),
    script:
        STEP_SCRIPT


use rule raisa2021_fig6_4 as raisa2021_fig6_6 with:
    output:
        pdf=f"{RAISA_DIR}/fig6_6.pdf",
        png=report(
            f"{RAISA_DIR}/fig6_6.png",
            category="Study raisa2021",
            subcategory="figures",
            caption="../report/raisa2021/fig6_6.rst",
        ),
    log:
        f"{RAISA_LOGS}/fig6_6.log",
    params:
        step=step("raisa2021.figures:fig6_6"),


use rule raisa2021_fig6_4 as raisa2021_fig6_7 with:
    output:
        pdf=f"{RAISA_DIR}/fig6_7.pdf",
        png=report(
            f"{RAISA_DIR}/fig6_7.png",
            category="Study raisa2021",
            subcategory="figures",
            caption="../report/raisa2021/fig6_7.rst",
        ),
    log:
        f"{RAISA_LOGS}/fig6_7.log",
    params:
        step=step("raisa2021.figures:fig6_7"),


use rule raisa2021_fig6_4 as raisa2021_fig6_8 with:
    output:
        pdf=f"{RAISA_DIR}/fig6_8.pdf",
        png=report(
            f"{RAISA_DIR}/fig6_8.png",
            category="Study raisa2021",
            subcategory="figures",
            caption="../report/raisa2021/fig6_8.rst",
        ),
    log:
        f"{RAISA_LOGS}/fig6_8.log",
    params:
        step=step("raisa2021.figures:fig6_8"),


rule raisa2021_run_clipping_reference:
    output:
        reference=f"{RAISA_DIR}/models/clipping-d{{dim}}.npz",
    log:
        f"{RAISA_LOGS}/reference_clipping-d{{dim}}.log",
    wildcard_constraints:
        dim="[0-9]+",
    resources:
        runtime=5,
    params:
        step=step("raisa2021.clipping:clipping_reference"),
        seed=config["seed"],
        dim=lambda wildcards: int(wildcards.dim),
        spec=raisa2021_clipping_spec,
        reference_draws=RAISA["reference_draws"],
        baseline_samples=RAISA["baseline_samples"],
        mmd_bandwidth_pairs=RAISA["mmd_bandwidth_pairs"],
    script:
        STEP_SCRIPT


rule raisa2021_run_clipping:
    input:
        reference=f"{RAISA_DIR}/models/clipping-d{{dim}}.npz",
    output:
        chains=f"{RAISA_DIR}/clipping/{{algo}}/d{{dim}}/bound{{bound}}.npz",
    log:
        f"{RAISA_LOGS}/clipping/{{algo}}_d{{dim}}_bound{{bound}}.log",
    wildcard_constraints:
        algo="rwmh|hmc",
        dim="[0-9]+",
        bound="[0-9][0-9.e+-]*",
    resources:
        runtime=15,
    params:
        step=step("raisa2021.clipping:clipping_chains"),
        seed=config["seed"],
        dim=lambda wildcards: int(wildcards.dim),
        spec=raisa2021_clipping_spec,
        algo="{algo}",
        bound=wildcard_float("bound"),
        hyper=lambda wildcards: clipping_hyper(RAISA_PARAMS, wildcards.algo, int(wildcards.dim)),
        chains=RAISA_CLIP["chains"],
        threshold=RAISA_CLIP["threshold"],
        mmd_bandwidth_pairs=RAISA["mmd_bandwidth_pairs"],
    script:
        STEP_SCRIPT


rule raisa2021_summarise_clipping:
    input:
        chains=[s["file"] for s in RAISA_CLIP_SETTINGS],
        references=expand(f"{RAISA_DIR}/models/clipping-d{{dim}}.npz", dim=RAISA_CLIP["dims"]),
    output:
        summary=f"{RAISA_DIR}/clipping_summary.npz",
        csv=f"{RAISA_DIR}/clipping_summary.csv",
        md=f"{RAISA_DIR}/clipping_summary.md",
    log:
        f"{RAISA_LOGS}/clipping_summary.log",
    params:
        step=step("raisa2021.clipping:summarise_clipping"),
        settings=RAISA_CLIP_SETTINGS,
        dims=RAISA_CLIP["dims"],
        threshold=RAISA_CLIP["threshold"],
    script:
        STEP_SCRIPT


rule raisa2021_fig6_2:
    input:
        summary=rules.raisa2021_summarise_clipping.output.summary,
    output:
        pdf=f"{RAISA_DIR}/fig6_2.pdf",
        png=report(
            f"{RAISA_DIR}/fig6_2.png",
            category="Study raisa2021",
            subcategory="figures",
            caption="../report/raisa2021/fig6_2.rst",
        ),
    log:
        f"{RAISA_LOGS}/fig6_2.log",
    params:
        step=step("raisa2021.figures:fig6_2"),
    script:
        STEP_SCRIPT


use rule raisa2021_fig6_4 as raisa2021_fig6_3 with:
    output:
        pdf=f"{RAISA_DIR}/fig6_3.pdf",
        png=report(
            f"{RAISA_DIR}/fig6_3.png",
            category="Study raisa2021",
            subcategory="figures",
            caption="../report/raisa2021/fig6_3.rst",
        ),
    log:
        f"{RAISA_LOGS}/fig6_3.log",
    params:
        step=step("raisa2021.figures:fig6_3"),


use rule raisa2021_fig6_4 as raisa2021_fig6_5 with:
    output:
        pdf=f"{RAISA_DIR}/fig6_5.pdf",
        png=report(
            f"{RAISA_DIR}/fig6_5.png",
            category="Study raisa2021",
            subcategory="figures",
            caption="../report/raisa2021/fig6_5.rst",
        ),
    log:
        f"{RAISA_LOGS}/fig6_5.log",
    params:
        step=step("raisa2021.figures:fig6_5"),


rule raisa2021_claims:
    input:
        summary=rules.raisa2021_summarise.output.summary,
        curves=rules.raisa2021_run_accountants.output.curves,
        references=expand(f"{RAISA_DIR}/models/{{model}}.npz", model=RAISA["models"]),
        trajectory=rules.raisa2021_run_trajectory.output.trajectory,
        clipping=rules.raisa2021_summarise_clipping.output.summary,
    output:
        claims=f"{RESULTS}/raisa2021/claims/raisa2021.csv",
    log:
        f"{RAISA_LOGS}/claims.log",
    params:
        step=step("raisa2021.paper:claims"),
        # what the thesis's values refer to: every claim records them beside the thesis's
        # (dpinfer.studies.raisa2021.thesis_settings.RunSettings); a row at another setting is not comparable
        version=RAISA["version"],
        epsilons=RAISA["epsilons"],
        circle_epsilons=RAISA["circle_epsilons"],
        chains=RAISA["chains"],
        delta_factor=RAISA["delta_factor"],
        start_rule=RAISA["start_rule"],
        reference_draws=RAISA["reference_draws"],
        mmd_bandwidth_pairs=RAISA["mmd_bandwidth_pairs"],
        baseline_samples=RAISA["baseline_samples"],
        specs={
            m: model_spec(RAISA_PARAMS, m, RAISA["data_fraction"]) for m in RAISA["models"]
        },
        fig6_1=RAISA["fig6_1"],
        # the figure's panels too: the claims are about the leapfrog positions it shows
        fig4_1=RAISA["fig4_1"],
        clipping=dict(
            RAISA_CLIP,
            n=clipping_spec(RAISA_PARAMS, 2, RAISA_CLIP["n"], RAISA["data_fraction"])["n"],
        ),
    script:
        STEP_SCRIPT


register_claims(rules.raisa2021_claims.output.claims)
