# raisa2021, the non-DP clipping study of Fig 6.2: one reference per dimension -> one job per
# (sampler, dimension, bound) -> raisa2021_summarise_clipping -> fig6_2.
# Included by raisa2021.smk (its globals and checks; RAISA_CLIP is the config section).

from dpinfer.studies.raisa2021.settings import clipping_hyper, clipping_spec

# parse-time value of one job's wildcards
raisa2021_clipping_spec = lambda wildcards: clipping_spec(
    RAISA_PARAMS, int(wildcards.dim), RAISA_CLIP["n"], RAISA["data_fraction"]
)
# one job per (sampler, dimension, bound)
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
        threshold=RAISA_CLIP["threshold"],
    script:
        STEP_SCRIPT


figure(
    "raisa2021",
    "fig6_2",
    "raisa2021.figures:fig6_2",
    {"summary": rules.raisa2021_summarise_clipping.output.summary},
)
