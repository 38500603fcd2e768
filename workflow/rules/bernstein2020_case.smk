# bernstein2020 Sec. 5.4: the social-mobility case study on a synthetic state of census tracts.
# Targets fig5_10 to fig5_16. Logic: dpinfer.studies.bernstein2020_case (grid, tracts, oi,
# run, summarise, figures, paper). DAG: bernstein2020_case_run_state (the synthetic state and the
# median-kir filter) -> bernstein2020_case_run_reference (Non-Private and OLS of every kept tract,
# OI's chi) -> bernstein2020_case_run_batch (one epsilon, one range of tract indices: the private
# methods and the OI release) -> bernstein2020_case_summarise -> figures and claims.
# A batch job gets only its epsilon's chain specs (case_chain_specs, in the study's grid module),
# so editing a figure setting reruns no sampler and editing grid_gibbs reruns only the
# off-headline batches.

from dpinfer.studies.bernstein2020_case.grid import (
    case_batches,
    case_chain_specs,
    case_converged_specs,
)

validate_section(["bernstein2020", "case_study"], "bernstein2020_case")
CASE = section("bernstein2020", "case_study")
CASE_DIR = f"{RESULTS}/bernstein2020/case"
CASE_LOGS = f"{LOGS}/bernstein2020/case"

check_config("bernstein2020_case", CASE)

# the figures (targets.smk makes their rules): each from the summary and the state-level release
for _fig, _settings in (
    ("fig5_10", CASE["fig5_10"]),
    (
        "fig5_11",
        dict(CASE["fig5_11"], headline_epsilon=CASE["headline_epsilon"], pir=CASE["pir"]),
    ),
    ("fig5_12", {"headline_epsilon": CASE["headline_epsilon"]}),
    ("fig5_13", {}),
    ("fig5_14", {}),
    ("fig5_15", {}),
    ("fig5_16", {"headline_epsilon": CASE["headline_epsilon"]}),
):
    figure(
        "bernstein2020",
        _fig,
        f"bernstein2020_case.figures:{_fig}",
        {"summary": f"{CASE_DIR}/summary.npz", "state": f"{CASE_DIR}/state.npz"},
        settings=_settings,
    )

CASE_BATCHES = case_batches(CASE["tracts"]["count"], CASE["tracts_per_job"])
CASE_CHAINS = {fmt_eps(e): case_chain_specs(CASE, e) for e in CASE["epsilons"]}
CASE_BATCH_FILES = [
    f"{CASE_DIR}/runs/eps{fmt_eps(e)}/batch{b}.npz"
    for e in CASE["epsilons"]
    for b in range(len(CASE_BATCHES))
]
case_chains = lambda wildcards: CASE_CHAINS[wildcards.eps]
case_tract_range = lambda wildcards: CASE_BATCHES[int(wildcards.batch)]
# The converged companion (issue 33): every `converged.every`-th kept tract at the epsilons other
# than the headline one again, with more and longer Gibbs-SS chains on the same release.
CASE_CONVERGED = CASE["converged"]
CASE_CONVERGED_FILES = [
    f"{CASE_DIR}/converged/runs/eps{fmt_eps(e)}/batch{b}.npz"
    for e in CASE["epsilons"]
    if e != CASE["headline_epsilon"]
    for b in range(len(CASE_BATCHES))
]


rule bernstein2020_case_run_state:
    output:
        state=f"{CASE_DIR}/state.npz",
    log:
        f"{CASE_LOGS}/state.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_case.run:state"),
        seed=config["seed"],
        tracts=CASE["tracts"],
        drop=CASE["drop"],
    script:
        STEP_SCRIPT


rule bernstein2020_case_run_reference:
    input:
        state=rules.bernstein2020_case_run_state.output.state,
    output:
        reference=f"{CASE_DIR}/reference.npz",
    log:
        f"{CASE_LOGS}/reference.log",
    resources:
        runtime=10,
    params:
        step=step("bernstein2020_case.run:reference"),
        seed=config["seed"],
        prior=CASE["prior"],
        data_prior=CASE["data_prior"],
        conjugate_draws=CASE["conjugate_draws"],
        bounds=[0.0, 1.0],
        pir=CASE["pir"],
        levels=CASE["levels"],
        window=CASE["data_window"],
        oi_grid=CASE["oi_grid"],
    script:
        STEP_SCRIPT


rule bernstein2020_case_run_batch:
    input:
        state=rules.bernstein2020_case_run_state.output.state,
        reference=rules.bernstein2020_case_run_reference.output.reference,
    output:
        batch=f"{CASE_DIR}/runs/eps{{eps}}/batch{{batch}}.npz",
    log:
        f"{CASE_LOGS}/runs/eps{{eps}}_batch{{batch}}.log",
    wildcard_constraints:
        eps="[0-9][0-9.e+-]*",
        batch="[0-9]+",
    resources:
        runtime=20,
    params:
        step=step("bernstein2020_case.run:run_batch"),
        seed=config["seed"],
        epsilon=wildcard_float("eps"),
        tracts=case_tract_range,
        chains=case_chains,
        prior=CASE["prior"],
        data_prior=CASE["data_prior"],
        bounds=[0.0, 1.0],
        pir=CASE["pir"],
        levels=CASE["levels"],
        window=CASE["data_window"],
    script:
        STEP_SCRIPT


use rule bernstein2020_case_run_batch as bernstein2020_case_run_converged with:
    output:
        batch=f"{CASE_DIR}/converged/runs/eps{{eps}}/batch{{batch}}.npz",
    log:
        f"{CASE_LOGS}/converged/eps{{eps}}_batch{{batch}}.log",
    resources:
        runtime=30,
    params:
        step=step("bernstein2020_case.run:run_batch"),
        seed=config["seed"],
        epsilon=wildcard_float("eps"),
        tracts=case_tract_range,
        chains=case_converged_specs(CASE),
        prior=CASE["prior"],
        data_prior=CASE["data_prior"],
        bounds=[0.0, 1.0],
        pir=CASE["pir"],
        levels=CASE["levels"],
        window=CASE["data_window"],
        every=CASE_CONVERGED["every"],


rule bernstein2020_case_summarise_converged:
    input:
        summary=f"{CASE_DIR}/summary.npz",
        batches=CASE_CONVERGED_FILES,
    output:
        summary=f"{CASE_DIR}/converged/summary.npz",
        csv=f"{CASE_DIR}/converged/diagnostics.csv",
        md=f"{CASE_DIR}/converged/diagnostics.md",
    log:
        f"{CASE_LOGS}/converged/summary.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_case.summarise:converged_summary"),
        headline_epsilon=CASE["headline_epsilon"],
        health=CASE["health"],
        converged=CASE_CONVERGED,
    script:
        STEP_SCRIPT


rule bernstein2020_case_summarise:
    input:
        state=rules.bernstein2020_case_run_state.output.state,
        reference=rules.bernstein2020_case_run_reference.output.reference,
        batches=CASE_BATCH_FILES,
    output:
        summary=f"{CASE_DIR}/summary.npz",
        csv=f"{CASE_DIR}/summary.csv",
        md=f"{CASE_DIR}/summary.md",
        state_csv=f"{CASE_DIR}/state.csv",
        state_md=f"{CASE_DIR}/state.md",
        runtime_csv=f"{CASE_DIR}/runtime.csv",
        runtime_md=f"{CASE_DIR}/runtime.md",
    log:
        f"{CASE_LOGS}/summary.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_case.summarise:summarise"),
        epsilons=CASE["epsilons"],
        health=CASE["health"],
        # what the thesis's counts in the state table refer to (printed beside ours only there)
        tracts=CASE["tracts"],
        drop=CASE["drop"],
    script:
        STEP_SCRIPT


rule bernstein2020_case_claims:
    input:
        unpack(
            lambda wc: (
                {"converged": rules.bernstein2020_case_summarise_converged.output.summary}
                if CASE_CONVERGED["enabled"]
                else {}
            )
        ),
        summary=rules.bernstein2020_case_summarise.output.summary,
        runtime=rules.bernstein2020_case_summarise.output.runtime_csv,
    output:
        claims=f"{RESULTS}/bernstein2020/claims/bernstein2020_case.csv",
    log:
        f"{CASE_LOGS}/claims.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_case.paper:claims"),
        headline_epsilon=CASE["headline_epsilon"],
        gibbs=CASE["gibbs"],
        grid_gibbs=CASE["grid_gibbs"],
        conjugate_draws=CASE["conjugate_draws"],
        health=CASE["health"],
        # the settings the thesis's statements refer to, beside ours (paper.py, settings.yaml)
        tracts=CASE["tracts"],
        drop=CASE["drop"],
        pir=CASE["pir"],
        levels=CASE["levels"],
        prior=CASE["prior"],
        data_prior=CASE["data_prior"],
        data_window=CASE["data_window"],
        oi_grid=CASE["oi_grid"],
        converged=CASE_CONVERGED,
    script:
        STEP_SCRIPT


register_claims(rules.bernstein2020_case_claims.output.claims)
