"""The case study's grid (pure Python): the tract ranges of its batch jobs and their chain specs.

The rule file builds the batch jobs from these when the workflow is parsed. Imports only
:mod:`dpinfer.studies.nig_specs`.
"""

from __future__ import annotations

from ..nig_specs import nig_chain_spec

__all__ = ["case_batches", "case_chain_specs", "case_converged_specs"]


def case_batches(count: int, per_job: int) -> list[list[int]]:
    """Tract-index ranges [start, stop) of the case study's batch jobs; a job runs the tracts
    of its range that the filter keeps (which ones is known only after the state is drawn)."""
    return [[a, min(a + per_job, count)] for a in range(0, count, per_job)]


def case_chain_specs(case: dict, epsilon: float) -> list[dict]:
    """The chain specs of the case study's private methods at ``epsilon``: Gibbs-SS with the
    thesis's lengths (``gibbs``) at the headline epsilon and ``grid_gibbs``'s elsewhere (which
    may also set ``collapsed_moves``)."""
    headline = float(epsilon) == float(case["headline_epsilon"])
    gibbs = case["gibbs"] if headline else {**case["gibbs"], **case["grid_gibbs"]}
    return [nig_chain_spec(m, dict(case, gibbs=gibbs)) for m in case["methods"]]


def case_converged_specs(case: dict) -> list[dict]:
    """The chain specs of the converged companion (``converged``, issue 33) at the epsilons other
    than the headline one: ``grid_gibbs``'s sampler with the companion's chains, burn-in and
    kept draws per chain; Naive as in the batch jobs (the same draws, for the claims that
    compare with it)."""
    lengths = {k: case["converged"][k] for k in ("chains", "burnin", "keep")}
    gibbs = {**case["gibbs"], **case["grid_gibbs"], **lengths}
    return [nig_chain_spec(m, dict(case, gibbs=gibbs)) for m in case["methods"]]
