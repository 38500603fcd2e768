"""The author's protocol and hyperparameters as the workflow reads them (pure Python + YAML).

The rule file calls these when the workflow is parsed, so compute jobs receive only the numbers
they use. ``version`` picks the hyperparameters: ``"seed"`` (the thesis text we reproduce: code
state 9c834d7, ``seed_version_overrides`` applied, DP HMC with kL + 1 gradient releases) or
``"head"`` (the final thesis: k(L + 1) gradients, no overrides).
"""

from __future__ import annotations

from collections.abc import Mapping

import yaml

__all__ = [
    "CLIPPING_ALGORITHMS",
    "CURVE_FAMILIES",
    "load_params",
    "scaled_n",
    "hyperparameters",
    "model_spec",
    "author_iterations",
    "chain_setting",
    "runs",
    "clipping_spec",
    "clipping_hyper",
]

# the clipping study's samplers (Fig 6.2), not DP: its ``algo`` wildcard (in file names and seed
# keys) -> the method (dpinfer.methods) that runs it
CLIPPING_ALGORITHMS = {"rwmh": "rwmh_nondp", "hmc": "hmc_nondp"}
# Fig 6.1's accountant curves: family (the curves' key prefix) -> the algorithm it accounts for
CURVE_FAMILIES = {"penalty": "dpps", "minibatch": "mdpps", "hmc": "hmc"}
VERSIONS = ("seed", "head")
_SPEC_KEYS = (
    "label",
    "family",
    "dim",
    "n",
    "n0",
    "temperature",
    "a",
    "likelihood_variance",
    "likelihood_cov",
    "theta_true",
    "start_centre",
    "start_sd_seed_text",
)


def load_params(path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _model(params: Mapping, model: str) -> Mapping:
    try:
        return params["models"][model]
    except KeyError:
        raise ValueError(
            f"model {model!r} is not in the params file; known: {sorted(params['models'])}"
        ) from None


def hyperparameters(params: Mapping, model: str, algo: str, version: str) -> dict:
    """One (model, algorithm)'s settings, with the seed-version overrides when version='seed'."""
    if version not in VERSIONS:
        raise ValueError(f"version must be one of {VERSIONS}, got {version!r}")
    entry = _model(params, model)
    if algo not in entry["algorithms"]:
        raise ValueError(f"no {algo} settings for model {model!r}")
    out = dict(entry["algorithms"][algo])
    if version == "seed":
        out.update((entry.get("seed_version_overrides") or {}).get(algo, {}))
    return out


def scaled_n(n: int, data_fraction: float) -> int:
    """``n`` rows scaled by ``data_fraction`` (smoke runs), never below 20."""
    return max(20, int(round(int(n) * float(data_fraction))))


def model_spec(params: Mapping, model: str, data_fraction: float = 1.0) -> dict:
    """What :func:`dpinfer.models.dp_mcmc.make_problem` reads; n scaled (:func:`scaled_n`)."""
    entry = _model(params, model)
    spec = {k: entry[k] for k in _SPEC_KEYS if k in entry}
    # Table 5.1's prior variance; the correlated Gauss stores it under a longer key because the
    # author's sampler used another value (a bug we do not copy: docs/deviations.md)
    spec["prior_variance"] = entry.get(
        "prior_variance", entry.get("prior_variance_table_and_reference")
    )
    spec["n"] = scaled_n(entry["n"], data_fraction)
    if entry.get("n0") is not None:  # tempering T = n0 / n (Table 5.1), also when n is scaled
        spec["temperature"] = float(entry["n0"]) / spec["n"]
    return spec


def author_iterations(
    params: Mapping, model: str, algo: str, epsilon: float, version: str
) -> int | None:
    """The author's iteration count for one setting (None when the params file has none)."""
    table = _model(params, model).get(
        "iterations_seed_version" if version == "seed" else "iterations_head", {}
    )
    for eps, k in (table.get(algo) or {}).items():
        if abs(float(eps) - float(epsilon)) < 1e-12:
            return int(k)
    return None


def chain_setting(model: str, algo: str, epsilon_text: str) -> str:
    """Seed-key experiment name and file stem of one (model, algorithm, epsilon) setting."""
    return f"{model}/{algo}/eps{epsilon_text}"


def runs(params: Mapping, model: str, algo: str) -> bool:
    """Whether the params file has settings of ``algo`` for ``model`` (the minibatch algorithms
    and DP Barker run on the flat and tempered bananas only, as in the thesis)."""
    return algo in _model(params, model)["algorithms"]


def clipping_spec(params: Mapping, dim: int, n: int, data_fraction: float = 1.0) -> dict:
    """The clipping study's model: the flat banana of easy-2d in ``dim`` dimensions with ``n``
    rows (the author's scripts: 1e5 for both dimensions, while the DP easy-10d has 2e5), n scaled
    by ``data_fraction``."""
    spec = model_spec(params, "easy-2d", data_fraction)
    spec.update(
        dim=int(dim),
        n=scaled_n(n, data_fraction),
        theta_true=[0.0, 3.0] + [0.0] * (int(dim) - 2),
        label=f"flat banana, d = {dim} (clipping study)",
    )
    return spec


def clipping_hyper(params: Mapping, algo: str, dim: int) -> dict:
    """RWMH (3000 iterations, proposal sd) or HMC (500 iterations, exact gradients) of the
    clipping study for one dimension, as the author's scripts set them."""
    if algo not in CLIPPING_ALGORITHMS:
        raise ValueError(
            f"clipping-study algorithm must be one of {tuple(CLIPPING_ALGORITHMS)}, got {algo!r}"
        )
    if "clipping_study_fig_6_2" not in params:
        raise ValueError("the params file has no clipping_study_fig_6_2 section")
    entry = params["clipping_study_fig_6_2"][algo]
    out = {"iterations": int(entry["iterations"])}
    if algo == "rwmh":
        out["prop_sd"] = entry["prop_sd_2d"] if int(dim) == 2 else entry[f"prop_sd_{dim}d"]
    else:
        out.update(eta=float(entry["eta"]), L=int(entry["L"]), mass_diag=entry[f"mass_diag_{dim}d"])
    return out
