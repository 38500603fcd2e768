"""bernstein2020 Chapter 3: the true models, their populations and the Laplace releases.

A *model instance* is a structure of config ``bernstein2020.chapter3.models`` (first-order
chain, third-order chain, connected Erdős–Rényi graph) at a number of states |X|; its graph and
its edge potentials (flat Dirichlet over the |X|^2 entries of each edge table) are drawn once
from the seed key ``(instance, "model")``, so every figure that names the same instance uses the
same true distribution (FACTS.md: "one model per setting").

Trials are nested as in Section 3.3.2: populations ``n_i ~ p(n)`` keyed by (instance, N, i), and
releases ``y_ij ~ p(y | n_i)`` keyed by (instance, N, epsilon, i * releases + j). A population
is a set of N exact iid records when N <= ``records_max_n`` (PSGD needs records) and its exact
contingency tables otherwise (nested multinomials, no records): the rule depends on N only, so
the population of a key is the same in every figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...mechanisms import Laplace
from ...models import pairwise_mrf as mrf
from ...models.mrf_inference import Marginals, exact_marginals
from ...models.mrf_sampling import sample_records, sample_tables
from ...seeding import rng_for

__all__ = ["STUDY", "Instance", "build_instance", "Population", "population", "release"]

STUDY = "bernstein2020"


@dataclass(frozen=True)
class Instance:
    """One true model: structure, parameters and exact marginals."""

    name: str
    model: mrf.PairwiseMRF
    theta: np.ndarray
    edge_marginals: np.ndarray  # (E, K, K) exact marginals of the true model
    marginals: Marginals  # the same with log Z: every KL of a fit reuses it


def build_instance(seed: int, model: str, spec: dict, nodes: int, states: int) -> Instance:
    """The true model ``model`` (its config block ``spec``) with ``nodes`` nodes and ``states``
    states."""
    return _build(int(seed), model, tuple(sorted(spec.items())), int(nodes), int(states))


@lru_cache(maxsize=8)
def _build(seed, model, spec_items, nodes, states) -> Instance:
    spec = dict(spec_items)
    name = f"{model}_K{int(states)}"
    rng = rng_for(seed, STUDY, f"ch3_{name}", 0, "model")
    if spec["structure"] == "chain":
        structure = mrf.chain(nodes, states, order=int(spec["order"]))
    elif spec["structure"] == "erdos_renyi":
        structure = mrf.erdos_renyi(nodes, states, float(spec["edge_probability"]), rng)
    else:
        raise ValueError(f"unknown structure {spec['structure']!r}")
    theta = mrf.dirichlet_theta(structure, rng)
    true = exact_marginals(structure, theta)
    return Instance(name, structure, theta, true.edge, true)


@dataclass(frozen=True)
class Population:
    """One population of N individuals: its edge tables and, when drawn as records, the records."""

    tables: np.ndarray  # (E, K, K) counts
    records: np.ndarray | None  # (N, T) states, or None when drawn as tables


def population(seed: int, inst: Instance, n: int, index: int, records_max_n: int) -> Population:
    """Population ``index`` of size ``n`` of the instance (same in every figure)."""
    rng = rng_for(int(seed), STUDY, f"ch3_{inst.name}_n{int(n)}", int(index), "population")
    if n <= records_max_n:
        recs = sample_records(inst.model, inst.theta, int(n), rng)
        return Population(mrf.tables_from_records(inst.model, recs), recs)
    return Population(sample_tables(inst.model, inst.theta, int(n), rng), None)


def release(
    seed: int,
    inst_name: str,
    n: int,
    epsilon: float,
    trial: int,
    tables: np.ndarray,
    sensitivity: float,
):
    """Laplace(|C| / epsilon) on every cell of every edge table (Eq. 3.3):
    (noisy tables, mechanism)."""
    mech = Laplace.calibrated(float(epsilon), float(sensitivity))
    key = f"ch3_{inst_name}_n{int(n)}_eps{float(epsilon)!r}"
    rng = rng_for(int(seed), STUDY, key, int(trial), "release")
    return mech.release(rng, np.asarray(tables, dtype=float)), mech
