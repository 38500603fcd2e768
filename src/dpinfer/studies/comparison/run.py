"""Comparison study, compute step: one chunk of trials of one (problem, n, epsilon) -> npz.

Trials ``[start, stop)``; the first ``accuracy_trials`` of a setting (by trial index) also get
the reference posterior. Arrays (methods M, trials R, parameters P): ``u``, ``cover``, ``rhat``,
``ess`` (M, R, P), ``cpu`` (M, R), ``truth`` (R, P); accuracy arrays ``mean_err``, ``sd_err``,
``mmd`` (M, A, P) and the reference's ``ref_rhat``, ``ref_ess`` (A, P) over the chunk's A
accuracy trials ``acc_reps``.
"""

from __future__ import annotations

import logging

import numpy as np

from ...grid import fmt_eps
from ...io import save_npz
from ...seeding import rng_for
from .problems import binomial_trial, regression_trial

__all__ = ["STUDY", "experiment", "run_chunk", "chunk_arrays"]

STUDY = "comparison"
TRIALS = {"binomial": binomial_trial, "regression": regression_trial}
log = logging.getLogger("dpinfer.comparison")


def experiment(problem: str, n: int, epsilon: float | None = None) -> str:
    """Seed-key experiment of a setting; without epsilon, of the data sets every epsilon shares."""
    return f"{problem}_n{int(n)}" + ("" if epsilon is None else f"_eps{fmt_eps(epsilon)}")


def run_chunk(
    input,
    output,
    *,
    seed,
    problem,
    n,
    epsilon,
    replicates,
    accuracy_trials,
    credible_level,
    mmd_draws,
    settings,
    health,
):
    """Rule step: trials ``replicates`` = [start, stop) of ``problem`` at (n, epsilon);
    ``health``: the diagnostics the regression reference must pass before it stops growing."""
    n, epsilon, seed = int(n), float(epsilon), int(seed)
    start, stop = (int(v) for v in replicates)
    trial = TRIALS[problem]
    methods = list(settings["methods"])
    truths, records, references = [], [], []
    for rep in range(start, stop):
        truth, rec, reference = trial(
            n,
            epsilon,
            settings,
            lambda stage, rep=rep: rng_for(
                seed, STUDY, experiment(problem, n, epsilon), rep, stage
            ),
            lambda stage, rep=rep: rng_for(seed, STUDY, experiment(problem, n), rep, stage),
            accuracy=rep < int(accuracy_trials),
            level=float(credible_level),
            mmd_draws=int(mmd_draws),
            health={k: float(health[k]) for k in ("max_rhat", "min_ess")},
        )
        truths.append(truth)
        records.append(rec)
        references.append(reference)
        worst = max(float(rec[m]["rhat"].max()) for m in methods)
        log.info(
            "%s n=%d eps=%s trial %d done (largest R-hat over methods %.3f)",
            problem,
            n,
            fmt_eps(epsilon),
            rep,
            worst,
        )

    save_npz(
        output.runs,
        problem=np.array(problem),
        n=np.int64(n),
        epsilon=np.float64(epsilon),
        truth=np.array(truths),
        **chunk_arrays(
            range(start, stop), methods, records, references, ("u", "cover", "rhat", "ess", "cpu")
        ),
    )


def stack_records(records: list[dict], methods: list[str], key: str) -> np.ndarray:
    """(methods, trials, ...) array of one number of every method's record over trials."""
    return np.array([np.array([rec[m][key] for rec in records], dtype=float) for m in methods])


def chunk_arrays(reps: range, methods: list[str], records: list, references: list, keys) -> dict:
    """The arrays of a chunk of trials ``reps`` (per trial: every method's record and the
    reference or None): ``methods``, ``reps``, each of ``keys`` stacked by :func:`stack_records`
    (``cover`` as bool), the trials with a reference ``acc_reps``, their ``mean_err``,
    ``sd_err``, ``mmd`` (methods, A, parameters) and the references' own ``ref_rhat``,
    ``ref_ess`` (A, parameters)."""
    out = {"methods": np.array(methods), "reps": np.array(reps, dtype=np.int64)}
    for key in keys:
        out[key] = stack_records(records, methods, key)
    out["cover"] = out["cover"].astype(bool)
    acc = [i for i, ref in enumerate(references) if ref is not None]
    n_par = out["rhat"].shape[2]
    out["acc_reps"] = np.array([reps[i] for i in acc], dtype=np.int64)
    for key in ("mean_err", "sd_err", "mmd"):
        out[key] = (
            stack_records([records[i] for i in acc], methods, key)
            if acc
            else np.zeros((len(methods), 0, n_par))
        )
    out["ref_rhat"] = np.array([references[i].rhat for i in acc]).reshape(len(acc), n_par)
    out["ref_ess"] = np.array([references[i].ess for i in acc]).reshape(len(acc), n_par)
    return out
