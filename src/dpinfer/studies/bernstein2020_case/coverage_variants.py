"""How Gibbs-SS's coverage of the Non-Private estimate depends on the synthetic tracts.

The case study's coverage rows (Fig 5.13) differ: the intervals over-cover. This measurement
asks whether that is a property of our stand-in data: it regenerates the state with one
property of the generator changed at a time (``VARIANTS``: within-tract noise, the spread of
parents' ranks, the spread of the tract lines, tract size), and on the first ``tracts`` kept
tracts of each state runs Non-Private and the Gibbs-SS flavours at the headline epsilon with the
paper-scale chain specs and the pipeline's random streams, printing each flavour's coverage per
level with its 95% Wilson interval (docs/deviations.md, "Case study: Gibbs-SS coverage is
conservative").

Run: ``python -m dpinfer.studies.bernstein2020_case.coverage_variants [tracts] [config]``
(300 tracts: about 70 CPU s per variant).
"""

from __future__ import annotations

import sys

import numpy as np
import yaml

from ...grid import fmt_eps
from ...proportions import format_proportion
from ...seeding import rng_for
from .grid import case_chain_specs
from .run import REFERENCE, STUDY, tract_runs
from .tracts import keep_mask, synthetic_state

__all__ = ["VARIANTS", "coverage"]

# one property of the generator changed at a time (keys of case_study.tracts)
VARIANTS = {
    "paper scale": {},
    "within-tract noise sd x4": {"noise_sd": 0.1},
    "pir concentration 30 (not 3)": {"pir_concentration": 30.0},
    "no spread of slopes": {"slope_sd": 0.0},
    "level sd x2": {"level_sd": 0.42},
    "level sd x0.5": {"level_sd": 0.105},
    "tracts 4 times larger": {"size_scale": 220.0},
}


def coverage(seed: int, case: dict, change: dict, tracts: int) -> dict:
    """Per Gibbs-SS flavour of ``case["methods"]``: (hits, tracts) per level of the headline
    epsilon's central predictive intervals covering Non-Private's estimate, on the first
    ``tracts`` kept tracts of the state generated with ``case["tracts"]`` updated by ``change``
    (the streams of the pipeline's reference and batch jobs)."""
    eps = float(case["headline_epsilon"])
    state = synthetic_state(
        rng_for(seed, STUDY, "case_state", 0, "simulate"), dict(case["tracts"], **change)
    )
    kept = np.flatnonzero(keep_mask(state, *case["drop"]))[: int(tracts)]
    model = {k: case[k] for k in ("prior", "data_prior", "pir", "levels")}
    model.update(bounds=[0.0, 1.0], window=0.0)  # the data shares are not read here
    reference = dict(REFERENCE, keep=int(case["conjugate_draws"]))
    target = tract_runs(state, kept, [reference], 1.0, seed, "case_reference", **model)["point"][0]
    chains = [c for c in case_chain_specs(case, eps) if c["method"].startswith("gibbs_ss")]
    runs = tract_runs(state, kept, chains, eps, seed, f"case_eps{fmt_eps(eps)}", **model)
    hits = (runs["lo"] <= target[:, None]) & (target[:, None] <= runs["hi"])
    return {c["method"]: (h.sum(axis=0), kept.size) for c, h in zip(chains, hits)}


def main(argv: list[str]) -> int:
    tracts = int(argv[0]) if argv else 300
    path = argv[1] if len(argv) > 1 else "config/config.yaml"
    with open(path, encoding="utf-8") as fh:
        cfg = yaml.safe_load(fh)
    case = cfg["bernstein2020"]["case_study"]
    for name, change in VARIANTS.items():
        for method, (hits, n) in coverage(cfg["seed"], case, change, tracts).items():
            cells = "; ".join(
                f"{100 * lev:g}%: {format_proportion(k, n, digits=3)}"
                for lev, k in zip(case["levels"], hits)
            )
            print(f"{name}, {method}: {cells}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
