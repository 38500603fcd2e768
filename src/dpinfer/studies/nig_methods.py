"""The one method table of the NIG linear-regression model (bernstein2020 Chapter 5 and its
social-mobility case study, and the comparison study): method names and display labels, and
:func:`pooled_chain` / :func:`run_chain`, which run one method's chain spec on one release.

A chain spec is built from a config section by :func:`dpinfer.studies.nig_specs.nig_chain_spec`
(pure Python, so rule files can build it): ``{"method", "burnin", "keep", "chains", "options"}``.
Every method is looked up in the sampler registry (model ``nig_linreg``) and called with the
model's one signature ``run(problem, rng, *, burnin, keep, **options)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..methods import method as table_entry
from ..models.linreg_nig import Problem
from ..models.linreg_nig_multi import ProblemP
from ..plotting.methods import method_label
from ..samplers.pooled import Pooled, run_pooled
from ..samplers.registry import sampler

__all__ = [
    "MODEL",
    "MODEL_P",
    "METHODS",
    "NOISE_AWARE",
    "LABELS",
    "run_chain",
    "pooled_chain",
]

MODEL = "nig_linreg"
MODEL_P = "nig_linreg_p"  # the same model with p covariates (a user's own data)
PROBLEMS = {MODEL: Problem, MODEL_P: ProblemP}
METHODS = (
    "non_private",
    "naive",
    "mcmc_ind",
    "gibbs_ss_noisy",
    "gibbs_ss_prior",
    "gibbs_ss_update",
)
NOISE_AWARE = tuple(m for m in METHODS if not table_entry(m).iid)  # the Markov chains
LABELS = {m: method_label(m) for m in METHODS}  # the one label map: dpinfer.plotting.methods


def run_chain(spec: dict, release, prior, data_prior, stream: Callable[[str], np.random.Generator]):
    """:func:`pooled_chain` as a tuple (draws, rhat, ess, cpu, iterations)."""
    return pooled_chain(spec, release, prior, data_prior, stream).astuple()


def pooled_chain(
    spec: dict,
    release,
    prior,
    data_prior,
    stream: Callable[[str], np.random.Generator],
    model: str = MODEL,
) -> Pooled:
    """Pooled kept draws, per-parameter R-hat and bulk ESS, CPU seconds and iterations (both
    summed over chains) of one method's ``spec`` on one release
    (:func:`dpinfer.samplers.pooled.run_pooled`).

    ``stream(stage)`` gives the generator of a random stream: chain c draws from
    ``sample_<method>`` (c = 0) or ``sample_<method>_chain<c>``, so adding or dropping a method
    changes no other method's numbers. Conjugate methods draw independently: R-hat 1 and
    ESS = draws. ``spec["diagnostic_draws"]`` (optional): R-hat and ESS read each chain thinned
    evenly to at most that many draws (docs/deviations.md, "Case study: chain lengths").
    ``model``: :data:`MODEL` (one covariate, chapter 5) or :data:`MODEL_P` (p covariates)."""
    method = spec["method"]
    run = sampler(model, method)

    problem = PROBLEMS[model](release, prior, data_prior)

    def run_one(rng):
        return run(
            problem, rng, burnin=spec["burnin"], keep=spec["keep"], **spec.get("options", {})
        )

    return run_pooled(
        run_one,
        method,
        int(spec.get("chains", 1)),
        stream,
        iid=table_entry(method).iid,
        diagnostic_draws=spec.get("diagnostic_draws"),
    )
