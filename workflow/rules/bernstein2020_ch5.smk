# bernstein2020 Chapter 5: private Bayesian linear regression (thesis Figs 5.4-5.9).
# DAG: synthetic chunk (simulate + release + all methods per trial) -> summary -> Figs 5.4-5.8;
#      cirrhosis chunk (splits + release + methods) -> Fig 5.9.

from dpinfer.grid import ch5_setting, ch5_synthetic_settings

validate_section(["bernstein2020", "chapter5"], "bernstein2020_ch5")
CH5 = config["bernstein2020"]["chapter5"]
CH5_DIR = f"{RESULTS}/bernstein2020/ch5"
CH5_SYNTHETIC_FIGURES = ["fig5_4", "fig5_5", "fig5_6", "fig5_7", "fig5_8"]


def check_bernstein2020_ch5(c):
    key = "bernstein2020.chapter5"
    syn = c["synthetic"]
    if syn["eps_vs_n"] not in syn["epsilons"]:
        config_error(
            f"{key}.synthetic.eps_vs_n",
            "must be one of synthetic.epsilons (Figs 5.4-5.8 share it)",
        )
    if syn["n_vs_eps"] not in syn["n_values"]:
        config_error(f"{key}.synthetic.n_vs_eps", "must be one of synthetic.n_values")
    lo, hi = syn["bounds"]
    if not lo < hi:
        config_error(f"{key}.synthetic.bounds", "needs lower < upper")
    if c["mmd"]["draws"] > c["conjugate_draws"]:
        config_error(
            f"{key}.mmd.draws",
            "cannot exceed conjugate_draws (the Non-Private reference)",
        )
    if c["mmd"]["draws"] > min(c["gibbs"]["keep"], c["mcmc_ind"]["keep"]):
        config_error(f"{key}.mmd.draws", "cannot exceed gibbs.keep or mcmc_ind.keep")
    if not os.path.exists(c["cirrhosis"]["data"]):
        config_error(
            f"{key}.cirrhosis.data", f"missing data file {c['cirrhosis']['data']}"
        )


def ch5_synthetic_chunks(wildcards):
    return [
        f"{CH5_DIR}/runs/{ch5_setting(n, e)}/chunk{c}.npz"
        for n, e in ch5_synthetic_settings(CH5["synthetic"])
        for c in chunk_ids(CH5["synthetic"]["trials"], CH5["chunk_size"])
    ]


def ch5_cirrhosis_chunks(wildcards):
    cir = CH5["cirrhosis"]
    return [
        f"{CH5_DIR}/cirrhosis/eps{fmt_eps(e)}/chunk{c}.npz"
        for e in cir["epsilons"]
        for c in chunk_ids(cir["splits"], cir["chunk_size"])
    ]


check_bernstein2020_ch5(CH5)
register_targets(
    "bernstein2020", [(f, "figure") for f in CH5_SYNTHETIC_FIGURES + ["fig5_9"]]
)


rule bernstein2020_ch5_synthetic_chunk:
    output:
        summary=f"{CH5_DIR}/runs/{{setting}}/chunk{{chunk}}.npz",
    log:
        f"{LOGS}/bernstein2020/ch5/synthetic_{{setting}}_{{chunk}}.log",
    wildcard_constraints:
        setting="n[0-9]+_eps[0-9.e+-]+",
        chunk="[0-9]+",
    resources:
        runtime=15,
    params:
        step=step("bernstein2020_ch5:run_synthetic_chunk"),
        seed=config["seed"],
        setting="{setting}",
        chunk=wildcard_int("chunk"),
        cfg=CH5,
    script:
        STEP_SCRIPT


rule bernstein2020_ch5_synthetic_summary:
    input:
        chunks=ch5_synthetic_chunks,
    output:
        summary=f"{CH5_DIR}/synthetic_summary.npz",
        csv=f"{CH5_DIR}/synthetic_summary.csv",
        md=f"{CH5_DIR}/synthetic_summary.md",
    log:
        f"{LOGS}/bernstein2020/ch5/synthetic_summary.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch5:summarise_synthetic"),
        cfg=CH5,
    script:
        STEP_SCRIPT


rule bernstein2020_ch5_synthetic_figure:
    input:
        summary=rules.bernstein2020_ch5_synthetic_summary.output.summary,
    output:
        pdf=report(
            f"{RESULTS}/bernstein2020/{{fig}}.pdf",
            category="bernstein2020",
            caption="../report/bernstein2020.rst",
        ),
        png=f"{RESULTS}/bernstein2020/{{fig}}.png",
    log:
        f"{LOGS}/bernstein2020/ch5/{{fig}}.log",
    wildcard_constraints:
        fig="fig5_[45678]",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch5:plot_synthetic"),
        figure="{fig}",
        cfg=CH5,
    script:
        STEP_SCRIPT


rule bernstein2020_ch5_cirrhosis_chunk:
    input:
        data=CH5["cirrhosis"]["data"],
    output:
        summary=f"{CH5_DIR}/cirrhosis/eps{{eps}}/chunk{{chunk}}.npz",
    log:
        f"{LOGS}/bernstein2020/ch5/cirrhosis_eps{{eps}}_{{chunk}}.log",
    wildcard_constraints:
        eps="[0-9][0-9.e+-]*",
        chunk="[0-9]+",
    resources:
        runtime=15,
    params:
        step=step("bernstein2020_ch5:run_cirrhosis_chunk"),
        seed=config["seed"],
        epsilon=wildcard_float("eps"),
        chunk=wildcard_int("chunk"),
        cfg=CH5,
    script:
        STEP_SCRIPT


rule bernstein2020_ch5_fig5_9:
    input:
        chunks=ch5_cirrhosis_chunks,
    output:
        pdf=report(
            f"{RESULTS}/bernstein2020/fig5_9.pdf",
            category="bernstein2020",
            caption="../report/bernstein2020.rst",
        ),
        png=f"{RESULTS}/bernstein2020/fig5_9.png",
        csv=f"{CH5_DIR}/fig5_9_coverage.csv",
        md=f"{CH5_DIR}/fig5_9_coverage.md",
    log:
        f"{LOGS}/bernstein2020/ch5/fig5_9.log",
    resources:
        runtime=5,
    params:
        step=step("bernstein2020_ch5:plot_fig5_9"),
        cfg=CH5,
    script:
        STEP_SCRIPT
