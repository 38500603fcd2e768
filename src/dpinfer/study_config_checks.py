"""The config checks JSON Schema cannot express: one function per study unit (pure Python).

A study's schema (``workflow/schemas/``) checks every key on its own; the checks here relate
keys (a burn-in below the iterations, a figure's epsilon on the study's grid, bounds in order)
or look outside the config (a data file that must exist). Each function takes the unit's
validated config section and yields ``(dotted key, message)`` per problem; the rule files call
:func:`problems` at parse time and refuse the first one, naming its key, before any job runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

__all__ = ["UNITS", "problems"]

Problems = Iterator[tuple[str, str]]


def _rising(first, more) -> bool:
    tries = [first, *more]
    return all(b > a for a, b in zip(tries, tries[1:]))


def ju2022(cfg: dict) -> Problems:
    if cfg["burnin"] >= cfg["iterations"]:
        yield "ju2022.burnin", f"must be smaller than ju2022.iterations ({cfg['iterations']})"
    if not cfg["linreg"]["clamp"][0] < cfg["linreg"]["clamp"][1]:
        yield "ju2022.linreg.clamp", "needs lower < upper"
    from .studies.ju2022 import data_files

    for path in [p for files in data_files(cfg["data_dir"]).values() for p in files.values()]:
        if not os.path.exists(path):
            yield "ju2022.data_dir", f"missing data file {path}"


def bernstein2020_ch3(cfg: dict) -> Problems:
    key = "bernstein2020.chapter3"
    for fig in ("fig3_1", "fig3_2", "fig3_3", "fig3_5"):
        if cfg[fig]["model"] not in cfg["models"]:
            yield f"{key}.{fig}.model", f"{cfg[fig]['model']!r} is not a key of chapter3.models"
    for m in cfg["fig3_4"]["models"]:
        if m not in cfg["models"]:
            yield f"{key}.fig3_4.models", f"{m!r} is not a key of chapter3.models"
    for name, spec in cfg["models"].items():
        need = "order" if spec["structure"] == "chain" else "edge_probability"
        if need not in spec:
            yield f"{key}.models.{name}", f"a {spec['structure']} model needs '{need}'"
    wifi = cfg["fig3_6"]
    split = int(wifi["individuals"] * wifi["train_fraction"])
    if max(wifi["train_sizes"]) > split:
        yield (
            f"{key}.fig3_6.train_sizes",
            f"must not exceed the training split ({split} individuals)",
        )


def bernstein2020_ch4(cfg: dict) -> Problems:
    key = "bernstein2020.chapter4"
    if cfg["mmd_draws"] > cfg["iterations"]:
        yield f"{key}.mmd_draws", "must not exceed iterations (draws are thinned)"
    if cfg["ecdf"]["n"] not in cfg["n_grid"] or cfg["ecdf"]["epsilon"] not in cfg["epsilons"]:
        yield f"{key}.ecdf", "the (n, epsilon) of fig4_3 must be in n_grid x epsilons"
    if cfg["chunk_size"] > cfg["replicates"]:
        yield f"{key}.chunk_size", "must not exceed replicates"
    conv = cfg["converged"]
    if conv["chunk_size"] > cfg["replicates"]:
        yield f"{key}.converged.chunk_size", "must not exceed replicates"
    if min(conv["keep"].values()) * conv["chains"] < cfg["mmd_draws"]:
        yield (
            f"{key}.converged.keep",
            "chains x keep must be at least mmd_draws (the pooled draws are thinned)",
        )


def bernstein2020_ch5(cfg: dict) -> Problems:
    key, syn = "bernstein2020.chapter5", cfg["synthetic"]
    if syn["eps_vs_n"] not in syn["epsilons"]:
        yield (
            f"{key}.synthetic.eps_vs_n",
            "must be one of synthetic.epsilons (Figs 5.4-5.8 share it)",
        )
    if syn["n_vs_eps"] not in syn["n_values"]:
        yield f"{key}.synthetic.n_vs_eps", "must be one of synthetic.n_values"
    if not syn["bounds"][0] < syn["bounds"][1]:
        yield f"{key}.synthetic.bounds", "needs lower < upper"
    if syn["clamp"] and "gibbs_ss_update" in cfg["methods"] and cfg["gibbs"]["collapsed_moves"] < 1:
        yield (
            f"{key}.gibbs.collapsed_moves",
            "must be >= 1 with synthetic.clamp: on clamped releases Gibbs-SS-Update moves its "
            "parameters by them alone",
        )
    if cfg["mmd"]["draws"] > cfg["conjugate_draws"]:
        yield f"{key}.mmd.draws", "cannot exceed conjugate_draws (the Non-Private reference)"
    pooled = min(
        cfg["gibbs"]["keep"] * cfg["gibbs"]["chains"],
        cfg["mcmc_ind"]["keep"] * cfg["mcmc_ind"]["chains"],
    )
    if cfg["mmd"]["draws"] > pooled:
        yield (
            f"{key}.mmd.draws",
            "cannot exceed the pooled draws (keep x chains) of gibbs or mcmc_ind",
        )
    if not os.path.exists(cfg["cirrhosis"]["data"]):
        yield f"{key}.cirrhosis.data", f"missing data file {cfg['cirrhosis']['data']}"


def bernstein2020_case(cfg: dict) -> Problems:
    key = "bernstein2020.case_study"
    if cfg["headline_epsilon"] not in cfg["epsilons"]:
        yield f"{key}.headline_epsilon", "must be one of case_study.epsilons"
    if not cfg["drop"][0] < cfg["drop"][1]:
        yield f"{key}.drop", "needs lower < upper"
    if not cfg["tracts"]["min_size"] < cfg["tracts"]["max_size"]:
        yield f"{key}.tracts.max_size", "must exceed tracts.min_size"
    if sorted(cfg["levels"]) != list(cfg["levels"]):
        yield f"{key}.levels", "must be ascending"
    if "gibbs_ss_update" not in cfg["methods"]:
        yield f"{key}.methods", "must list gibbs_ss_update (Figs 5.12, 5.15, 5.16 show it)"


def raim2021(cfg: dict) -> Problems:
    if cfg["burnin"] >= cfg["iterations"]:
        yield "raim2021.burnin", f"must be smaller than raim2021.iterations ({cfg['iterations']})"
    direct = cfg["direct"]
    if direct["method"] != "quantile" and direct["n_knots"] < 1:
        yield "raim2021.direct.n_knots", "must be >= 1 for small_rects / equal_steps"
    if direct["method"] == "quantile" and direct["n_knots"] != 0:
        yield (
            "raim2021.direct.n_knots",
            "must be 0 for the quantile rule (its knots come from levels and weight_sds)",
        )
    conv = cfg["converged"]
    if conv["replicates"] > cfg["replicates"]:
        yield "raim2021.converged.replicates", "must not exceed raim2021.replicates"
    if conv["chunk_size"] > conv["replicates"]:
        yield "raim2021.converged.chunk_size", "must not exceed converged.replicates"


def raisa2021(cfg: dict) -> Problems:
    if not os.path.exists(cfg["params"]):
        yield "raisa2021.params", f"missing params file {cfg['params']}"
        return
    from .studies.raisa2021.settings import load_params, runs

    params = load_params(cfg["params"])
    if cfg["fig6_1"]["epsilon_min"] >= cfg["fig6_1"]["epsilon_max"]:
        yield "raisa2021.fig6_1.epsilon_min", "must be below fig6_1.epsilon_max"
    if cfg["fig4_1"]["first_position"] > cfg["fig4_1"]["steps"]:
        yield "raisa2021.fig4_1.first_position", "must be at most fig4_1.steps"
    for m in cfg["models"]:
        if m not in params["models"]:
            yield "raisa2021.models", f"{m!r} is not in {cfg['params']}"
    if "barker" in cfg["algorithms"] and not os.path.exists(cfg["vcorr"]):
        yield "raisa2021.vcorr", f"missing V_corr file {cfg['vcorr']}"
    if not any(
        runs(params, m, a)
        for m in cfg["models"]
        if m in params["models"]
        for a in cfg["algorithms"]
    ):
        yield "raisa2021.algorithms", "no configured model has settings for these algorithms"


def comparison(cfg: dict) -> Problems:
    n = cfg["replicates"]
    if cfg["accuracy_trials"] > n:
        yield "comparison.accuracy_trials", f"must not exceed comparison.replicates ({n})"
    if cfg["chunk_size"] > n:
        yield "comparison.chunk_size", f"must not exceed comparison.replicates ({n})"
    if cfg["figure"]["n"] not in cfg["n_values"]:
        yield "comparison.figure.n", f"must be one of comparison.n_values {cfg['n_values']}"
    if cfg["figure"]["epsilon"] not in cfg["epsilons"]:
        yield "comparison.figure.epsilon", f"must be one of comparison.epsilons {cfg['epsilons']}"
    for problem in cfg["problems"]:
        if problem not in cfg:
            yield (
                f"comparison.{problem}",
                "is listed in comparison.problems but has no settings block",
            )
    if "regression" in cfg["problems"] and "regression" in cfg:
        lo, hi = cfg["regression"]["bounds"]
        if not lo < hi:
            yield "comparison.regression.bounds", "must be [lower, upper] with lower < upper"
        ref = cfg["regression"]["reference"]
        if not _rising(ref["keep"], ref.get("longer", [])):
            yield (
                "comparison.regression.reference.longer",
                f"must rise above reference.keep ({ref['keep']}): {ref.get('longer', [])}",
            )


def own_data(cfg: dict) -> Problems:
    if cfg["accuracy_trials"] > cfg["trials"]:
        yield "own_data.accuracy_trials", f"must not exceed own_data.trials ({cfg['trials']})"
    if cfg["chunk_size"] > cfg["trials"]:
        yield "own_data.chunk_size", f"must not exceed own_data.trials ({cfg['trials']})"
    ref = cfg["reference"]
    if not _rising(ref["keep"], ref["longer"]):
        yield (
            "own_data.reference.longer",
            f"must rise above reference.keep ({ref['keep']}): {list(ref['longer'])}",
        )
    from .own_data import DataSetError, spec_from_config

    for name, entry in cfg["datasets"].items():
        try:
            spec_from_config(name, entry)
        except DataSetError as err:
            yield f"own_data.datasets.{name}", str(err)
        p = len(entry["covariates"])
        if not cfg["data_prior"]["nu"] > p + 3:
            yield (
                "own_data.data_prior.nu",
                f"must exceed p + 3 = {p + 3} for data set {name} ({p} covariates)",
            )


def releases(cfg: dict) -> Problems:
    if cfg["max_keep"] < cfg["keep"]:
        yield "releases.max_keep", f"must be at least releases.keep ({cfg['keep']})"
    from .releases.spec import ReleaseError, release_of

    for name, entry in cfg["entries"].items():
        try:  # reads the file: a wrong length or a non-integer discrete release is refused now
            release_of(name, entry, ".")
        except ReleaseError as err:
            yield f"releases.entries.{name}", str(err)


UNITS: dict[str, Callable[[dict], Problems]] = {
    f.__name__: f
    for f in (
        ju2022,
        bernstein2020_ch3,
        bernstein2020_ch4,
        bernstein2020_ch5,
        bernstein2020_case,
        raim2021,
        raisa2021,
        comparison,
        own_data,
        releases,
    )
}


def problems(unit: str, cfg: dict) -> list[tuple[str, str]]:
    """Every problem the checks of study unit ``unit`` find in its config section ``cfg``, in the
    order the checks run: (dotted key, message)."""
    return list(UNITS[unit](cfg))
