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

__all__ = ["STUDY", "experiment", "run_chunk"]

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

    def stack(key, accuracy_only=False):
        per_method = []
        for m in methods:
            vals = [rec[m][key] for _, rec, ref in rows if not accuracy_only or ref is not None]
            per_method.append(np.array(vals, dtype=float))
        return np.array(per_method)

    acc = [ref for _, _, ref in rows if ref is not None]
    n_par = rows[0][0].size
    empty = np.zeros((len(methods), 0, n_par))
    save_npz(
        output.runs,
        problem=np.array(problem),
        n=np.int64(n),
        epsilon=np.float64(epsilon),
        methods=np.array(methods),
        reps=np.arange(start, stop, dtype=np.int64),
        truth=np.array([t for t, _, _ in rows]),
        u=stack("u"),
        cover=stack("cover").astype(bool),
        rhat=stack("rhat"),
        ess=stack("ess"),
        cpu=stack("cpu"),
        acc_reps=np.array(acc_reps, dtype=np.int64),
        mean_err=stack("mean_err", True) if acc else empty,
        sd_err=stack("sd_err", True) if acc else empty,
        mmd=stack("mmd", True) if acc else empty,
        ref_rhat=np.array([r.rhat for r in acc]).reshape(len(acc), n_par),
        ref_ess=np.array([r.ess for r in acc]).reshape(len(acc), n_par),
    )
