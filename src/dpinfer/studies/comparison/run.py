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

__all__ = ["STUDY", "experiment", "run_chunk", "stack_records", "accuracy_arrays"]

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
    rows, acc_reps = [], []
    for rep in range(start, stop):
        accuracy = rep < int(accuracy_trials)
        truth, records, reference = trial(
            n,
            epsilon,
            settings,
            lambda stage, rep=rep: rng_for(
                seed, STUDY, experiment(problem, n, epsilon), rep, stage
            ),
            lambda stage, rep=rep: rng_for(seed, STUDY, experiment(problem, n), rep, stage),
            accuracy=accuracy,
            level=float(credible_level),
            mmd_draws=int(mmd_draws),
            health={k: float(health[k]) for k in ("max_rhat", "min_ess")},
        )
        rows.append((truth, records, reference))
        if accuracy:
            acc_reps.append(rep)
        worst = max(float(records[m]["rhat"].max()) for m in methods)
        log.info(
            "%s n=%d eps=%s trial %d done (largest R-hat over methods %.3f)",
            problem,
            n,
            fmt_eps(epsilon),
            rep,
            worst,
        )

    records = [rec for _, rec, _ in rows]
    n_par = rows[0][0].size
    save_npz(
        output.runs,
        problem=np.array(problem),
        n=np.int64(n),
        epsilon=np.float64(epsilon),
        methods=np.array(methods),
        reps=np.arange(start, stop, dtype=np.int64),
        truth=np.array([t for t, _, _ in rows]),
        u=stack_records(records, methods, "u"),
        cover=stack_records(records, methods, "cover").astype(bool),
        rhat=stack_records(records, methods, "rhat"),
        ess=stack_records(records, methods, "ess"),
        cpu=stack_records(records, methods, "cpu"),
        acc_reps=np.array(acc_reps, dtype=np.int64),
        **accuracy_arrays(records, [ref for _, _, ref in rows], methods, n_par),
    )


def stack_records(records: list[dict], methods: list[str], key: str) -> np.ndarray:
    """(methods, trials, ...) array of one number of every method's record over trials."""
    return np.array([np.array([rec[m][key] for rec in records], dtype=float) for m in methods])


def accuracy_arrays(records: list[dict], references: list, methods: list[str], n_par: int) -> dict:
    """The accuracy arrays of a chunk over its trials with a reference (None: no reference):
    ``mean_err``, ``sd_err``, ``mmd`` (methods, A, parameters) and the references' own
    ``ref_rhat``, ``ref_ess`` (A, parameters)."""
    acc = [(rec, ref) for rec, ref in zip(records, references) if ref is not None]
    out = {}
    for key in ("mean_err", "sd_err", "mmd"):
        out[key] = (
            stack_records([rec for rec, _ in acc], methods, key)
            if acc
            else np.zeros((len(methods), 0, n_par))
        )
    out["ref_rhat"] = np.array([ref.rhat for _, ref in acc]).reshape(len(acc), n_par)
    out["ref_ess"] = np.array([ref.ess for _, ref in acc]).reshape(len(acc), n_par)
    return out
