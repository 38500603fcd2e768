# Helpers shared by the study files (target registry, chunking, config checks) and the
# input functions of the rules. Logic lives in dpinfer.pipeline so tests reach it.
import os
import re

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from dpinfer.pipeline import fmt_eps, n_chunks, target_paths
from dpinfer.studies.bernstein2020_ch5 import setting_name, synthetic_settings
from dpinfer.studies.raim2021 import setting_names

RESULTS = "results"
LOGS = "logs"
STEP_SCRIPT = "../scripts/run_step.py"

# study -> list of (target id, kind); each study file registers its own targets
TARGETS = {}


def register_targets(study, pairs):
    TARGETS.setdefault(study, []).extend(pairs)


def study_enabled(study):
    """A study runs when its config section is present and not switched off."""
    return study in config and config[study].get("enabled", True)


def all_targets():
    paths = []
    for study in sorted(TARGETS):
        if study_enabled(study):
            for target_id, kind in TARGETS[study]:
                paths.extend(target_paths(study, target_id, kind, RESULTS))
    return paths


def wildcard_int(name):
    """Param function: the wildcard ``name`` as an int."""

    def value(wildcards):
        return int(wildcards[name])

    return value


def wildcard_float(name):
    """Param function: the wildcard ``name`` as a float."""

    def value(wildcards):
        return float(wildcards[name])

    return value


def config_error(key, message):
    """Refuse a config before any job runs, naming the offending key."""
    raise ValueError(f"invalid config: '{key}': {message}")


def validate_section(keys, schema):
    """Validate config[keys[0]][keys[1]]... against ``schema`` (path relative to the calling file),
    filling defaults; on failure raise one message that names the full dotted key."""
    section = config
    for key in keys:
        section = section[key]
    try:
        validate(section, schema)
    except WorkflowError as err:
        text = str(err)
        reason = re.search(r"ValidationError: (.*)", text)
        where = re.search(r"On instance((?:\[[^\]]*\])*)", text)
        inner = re.findall(r"\[(?:'([^']*)'|(\d+))\]", where.group(1)) if where else []
        dotted = ".".join(list(keys) + [a or b for a, b in inner])
        config_error(dotted or "<top level>", reason.group(1) if reason else text)


# ----------------------------------------------------------------------------- ju2022 helpers
JU = config["ju2022"]
JU_DIR = f"{RESULTS}/ju2022"
JU_DATA_FILES = [
    f"{JU['data_dir']}/loglinear_datageneratingparameters.json",
    f"{JU['data_dir']}/loglinear_notdpdata_N100.json",
    f"{JU['data_dir']}/linearregression_XY_N100p2.json",
    f"{JU['data_dir']}/linearregression_datageneratingparam_N100p2.json",
]


def check_ju2022(ju):
    if ju["burnin"] >= ju["iterations"]:
        config_error(
            "ju2022.burnin",
            f"must be smaller than ju2022.iterations ({ju['iterations']})",
        )
    lo, hi = ju["linreg"]["clamp"]
    if not lo < hi:
        config_error("ju2022.linreg.clamp", "needs lower < upper")
    for path in JU_DATA_FILES:
        if not os.path.exists(path):
            config_error("ju2022.data_dir", f"missing data file {path}")


def ju2022_chunk_files(wildcards):
    exp = JU["experiments"][wildcards.experiment]
    k = n_chunks(exp["replicates"], JU["chunk_size"])
    return [
        f"{JU_DIR}/runs/{wildcards.experiment}/eps{fmt_eps(e)}/chunk{c}.npz"
        for e in exp["epsilons"]
        for c in range(k)
    ]


def ju2022_chunk_settings(wildcards):
    exp = JU["experiments"][wildcards.experiment]
    return {
        "seed": config["seed"],
        "experiment": wildcards.experiment,
        "model_name": exp["model"],
        "design": exp["design"],
        "epsilon": float(wildcards.eps),
        "chunk": int(wildcards.chunk),
        "chunk_size": JU["chunk_size"],
        "replicates": exp["replicates"],
        "n_records": exp.get("n_records", 100),
        "iterations": JU["iterations"],
        "burnin": JU["burnin"],
        "credible_level": JU["credible_level"],
        "data_dir": JU["data_dir"],
        "model": JU[exp["model"]],
    }


def ju2022_epsilons(wildcards):
    return JU["experiments"][wildcards.experiment]["epsilons"]


def ju2022_model(wildcards):
    return JU["experiments"][wildcards.experiment]["model"]


def ju2022_design(wildcards):
    return JU["experiments"][wildcards.experiment]["design"]


# ----------------------------------------------------------------------------- bernstein2020 helpers
def ch4_run_files(wildcards):
    """Every chunk file of the calibration grid (models x n x epsilon x chunks)."""
    k = n_chunks(CH4["replicates"], CH4["chunk_size"])
    return [
        f"{CH4_DIR}/runs/{model}/n{n}_eps{fmt_eps(eps)}/chunk{c}.npz"
        for model in CH4["models"]
        for n in CH4["n_grid"]
        for eps in CH4["epsilons"]
        for c in range(k)
    ]


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
    k = n_chunks(CH5["synthetic"]["trials"], CH5["chunk_size"])
    return [
        f"{CH5_DIR}/runs/{setting_name(n, e)}/chunk{c}.npz"
        for n, e in synthetic_settings(CH5)
        for c in range(k)
    ]


def ch5_cirrhosis_chunks(wildcards):
    cir = CH5["cirrhosis"]
    k = n_chunks(cir["splits"], cir["chunk_size"])
    return [
        f"{CH5_DIR}/cirrhosis/eps{fmt_eps(e)}/chunk{c}.npz"
        for e in cir["epsilons"]
        for c in range(k)
    ]


# ----------------------------------------------------------------------------- raim2021 helpers
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
    cfg = config["raim2021"]
    k = n_chunks(cfg["replicates"], cfg["chunk_size"])
    return [
        f"{RAIM_DIR}/runs/{name}/chunk{c}.npz"
        for name in setting_names(cfg["rhos"], cfg["lambdas"])
        for c in range(k)
    ]
