"""bernstein2020 Chapter 3: one job per cell of a figure's grid (step ``run_cell``).

A *cell* is one (figure, model instance, N, epsilon, lambda) point with the estimators that figure
compares. For each of its trials (populations x releases, Section 3.3.2) it releases the noisy edge
tables and fits every method, recording per trial the KL divergence from the true model (exact
marginals and log-partition functions, never enumeration), the MSE of the learned edge marginals,
the MSE of the noisy pseudo-marginals y/N (Prop. 3), CPU seconds, iterations, whether the optimiser
converged and its last change of the objective per individual (how much a step of CGM-EM still
moves; NaN for a one-entry trace). Naive MLE and CGM are tuned alike (Section 3.2.3's "just
right"): each over its config grid of lambda by the oracle KL on the cell's first trial, the chosen
lambda then used for every trial. Both tunings' scores (-KL per lambda) are kept, so an edge of the
grid chosen by a tuning shows, with the KL of the uniform model (theta = 0, every fit's limit as
lambda grows) beside them. A reference cell (``epsilon`` None) fits only the release-free methods
(non-private MLE on the true tables, the random estimator).

Methods (names of :mod:`dpinfer.methods`): ``naive_mle`` (projected pseudo-marginals),
``naive_mle_unprojected``, ``cgm`` (EM around NLBP, started from the naive fit of the same trial;
its time includes that start), ``psgd`` (DP-SGD, its learning rate tuned by grid search on the
cell's first population, then run on ``psgd.trials`` populations), ``non_private``, ``random``.
"""

from __future__ import annotations

import logging
import math

import numpy as np

from ...estimators import estimator  # each method's fit, as the method table names it
from ...io import save_npz
from ...models.mrf_inference import exact_marginals, kl_divergence, loopy_bp, treewidth
from ...seeding import rng_for
from .problems import STUDY, build_instance, population, release

__all__ = [
    "METHODS",
    "RELEASE_METHODS",
    "fit_metrics",
    "cgm_inference",
    "cgm_fit",
    "lambda_grid",
    "Tuned",
    "Record",
    "psgd_fit",
    "tune_psgd",
    "run_cell",
]

METHODS = ("naive_mle", "naive_mle_unprojected", "cgm", "psgd", "non_private", "random")
RELEASE_METHODS = ("naive_mle", "naive_mle_unprojected", "cgm")  # fitted to the Laplace release
log = logging.getLogger("dpinfer.bernstein2020_ch3")


def fit_metrics(inst, theta) -> tuple[float, float]:
    """(KL(p_true || p_theta), MSE of the learned edge marginals against the true ones)."""
    learned = exact_marginals(inst.model, theta)
    kl = kl_divergence(inst.model, inst.theta, theta, true_marginals=inst.marginals)
    return max(float(kl), 0.0), float(np.mean((learned.edge - inst.edge_marginals) ** 2))


def cgm_inference(spec: dict, cgm: dict):
    """NLBP's inner BP: exact (junction tree) for chains; for ER graphs the configured choice
    (``exact``, or ``loopy_bp`` as in the thesis)."""
    loopy = spec["structure"] == "erdos_renyi" and cgm.get("inference") == "loopy_bp"
    return loopy_bp if loopy else exact_marginals


def cgm_fit(model, y, n, scale, lam, theta0, cgm, inference=exact_marginals):
    """CGM-EM with the config block ``cgm``, started from ``theta0`` (the naive fit)."""
    return estimator("cgm")(
        model,
        y,
        float(n),
        float(scale),
        float(lam),
        theta0=theta0,
        inference=inference,
        **{k: float(cgm[k]) for k in ("damping", "nlbp_tol", "em_tol", "mstep_tol")},
        **{k: int(cgm[k]) for k in ("nlbp_max_iter", "em_max_iter", "em_window", "mstep_max_iter")},
    )


def lambda_grid(value) -> list[float]:
    """A method's lambda setting as a tuning grid: a list as given, a scalar as a one-value grid
    (no tuning)."""
    return [float(v) for v in value] if isinstance(value, (list, tuple)) else [float(value)]


class Tuned:
    """One method's lambda "tuned just right" (Section 3.2.3), the one rule for naive MLE and CGM:
    the lambda of ``grid`` whose fit on a cell's first trial scores best by ``score`` (higher is
    better), reused on every later trial; keeps the lambda, the tuning scores and the CPU seconds
    of every fit of the tuning grid, and logs the tuning under ``label`` if given."""

    def __init__(self, grid, score, label=None):
        self.grid, self.score, self.label = grid, score, label
        self.lam, self.scores, self.seconds, self.tuned = float("nan"), np.array([]), 0.0, False

    def fit(self, fit_at):
        """``fit_at(lambda)``: tuned on the first call, at the tuned lambda on every later one."""
        if self.tuned:
            return fit_at(self.lam)
        fits = [fit_at(float(v)) for v in self.grid]
        self.seconds += sum(f.seconds for f in fits)
        self.scores = np.array([self.score(f.theta) for f in fits])
        best = int(np.argmax(self.scores))
        self.lam, self.tuned = float(self.grid[best]), True
        if self.label:
            log.info(
                "%s tuning: lambda %s, -KL per lambda %s",
                self.label,
                self.lam,
                np.round(self.scores, 4),
            )
        return fits[best]


def psgd_fit(model, records, epsilon, scale, psgd, rng):
    """PSGD at learning rate ``scale`` x 3 sqrt(N epsilon / 1e4) (the rate that grows with the
    signal-to-noise ratio, :func:`dpinfer.estimators.psgd.tuning_grid`); None when not
    attainable."""
    n = records.shape[0]
    return estimator("psgd")(
        model,
        records,
        float(epsilon),
        1.0 / n,
        rng=rng,
        learning_rate=float(scale) * 3.0 * math.sqrt(n * float(epsilon) / 1e4),
        clip=float(psgd["clip"]),
        lot_size=max(int(round(math.sqrt(n))), int(round(float(psgd["lot_fraction"]) * n)), 1),
        epochs=float(psgd["epochs"]),
        max_noise_multiplier=float(psgd["max_noise_multiplier"]),
    )


class Record:
    """Per-method arrays over the trials of a cell (NaN where a method did not run a trial):
    ``metrics(theta)``, a dict by the names ``keys``, and each fit's CPU seconds, iterations,
    convergence and :func:`final_change` (``n``: the population size of the fits' objective)."""

    def __init__(self, methods, trials, n, metrics, keys=("kl", "mse")):
        self.n, self.metrics = n, metrics
        self.cols = {
            f"{m}_{k}": np.full(trials, np.nan)
            for m in methods
            for k in (*keys, "seconds", "iterations", "converged", "final_change")
        }

    def put(self, method, t, fit, extra_seconds=0.0, n=None):
        values = self.metrics(fit.theta) | {
            "seconds": fit.seconds + extra_seconds,
            "iterations": fit.iterations,
            "converged": float(bool(fit.converged)),
            "final_change": final_change(fit, n or self.n),
        }
        for key, val in values.items():
            self.cols[f"{method}_{key}"][t] = val


def final_change(fit, n) -> float:
    """|F_last - F_previous| / N: the change of the objective per individual over the last
    iteration (the E-step's jitter once CGM-EM has stalled, see
    :func:`dpinfer.estimators.cgm.stalled`); NaN when the trace has one entry (MLE, PSGD)."""
    obj = np.asarray(fit.objective, dtype=float)
    return float(abs(obj[-1] - obj[-2]) / float(n)) if obj.size > 1 else float("nan")


def tune_psgd(model, records, epsilon, psgd, score, rng_of):
    """Grid search over the learning-rate scales, as the thesis tunes PSGD "over all relevant
    parameters": the best by ``score(theta)`` (higher is better; oracle tuning, which can only
    favour PSGD). Returns (best scale or None when no setting reaches (epsilon, 1/N), scores)."""
    scales = [float(v) for v in psgd["learning_rate_scales"]]
    scores = np.full(len(scales), np.nan)
    for g, scale in enumerate(scales):
        fit = psgd_fit(model, records, epsilon, scale, psgd, rng_of(g))
        if fit is not None:
            scores[g] = score(fit.theta)
    if np.all(np.isnan(scores)):
        return None, scores
    return scales[int(np.nanargmax(scores))], scores


def run_cell(input, output, *, seed, cell, nodes, populations, records_max_n, releases=1):
    """Rule step: every trial of one cell -> npz of per-trial metrics per method.

    ``cell``: name (seed key), model and its config block ``spec``, states, n, epsilon (None for a
    reference cell), methods, lambdas per method, ``keep_marginals`` (store the learned edge
    marginals of trial 0, Fig 3.5), and the ``cgm`` / ``psgd`` blocks when it runs those methods.
    """
    seed = int(seed)
    model, states, n = cell["model"], int(cell["states"]), int(cell["n"])
    spec, cgm, psgd = dict(cell["spec"]), cell.get("cgm"), cell.get("psgd")
    inst = build_instance(seed, model, spec, int(nodes), states)
    eps = None if cell.get("epsilon") is None else float(cell["epsilon"])
    methods = list(cell["methods"])
    lams = dict(cell["lambdas"])
    P, R = int(populations), int(cell.get("releases") or releases)
    trials = P * R

    def oracle(theta):  # the tuning score of every method: -KL on the cell's first trial
        return -fit_metrics(inst, theta)[0]

    rec = Record(
        methods, trials, n, lambda theta: dict(zip(("kl", "mse"), fit_metrics(inst, theta)))
    )
    naive_tuning = Tuned(lambda_grid(lams.get("naive_mle", 1.0)), oracle, "naive MLE")
    raw_tuning = Tuned(naive_tuning.grid, oracle)
    cgm_tuning = Tuned(lambda_grid(lams.get("cgm", 1.0)), oracle, "CGM")
    noisy_mse = np.full(trials, np.nan)
    experiment = f"ch3_{cell['name']}"
    keep = {}
    log.info(
        "cell %s: %s n=%d eps=%s methods %s, %d trials",
        cell["name"],
        inst.name,
        n,
        eps,
        methods,
        trials,
    )
    psgd_setting, psgd_scores = None, np.array([])

    for p in range(P):
        pop = population(seed, inst, n, p, int(records_max_n))
        if "psgd" in methods and p == 0:
            psgd_setting, psgd_scores = tune_psgd(
                inst.model,
                pop.records,
                eps,
                psgd,
                oracle,
                lambda g: rng_for(seed, STUDY, experiment, g, "psgd_tuning"),
            )
            log.info(
                "PSGD tuning: best scale %s, -KL per scale %s",
                psgd_setting,
                np.round(psgd_scores, 4),
            )
        for r in range(R):
            t = p * R + r
            if eps is not None:
                y, mech = release(
                    seed, inst.name, n, eps, t, pop.tables, inst.model.n_cliques / 1.0
                )
                noisy_mse[t] = float(np.mean((y / n - inst.edge_marginals) ** 2))
            naive = None
            if "naive_mle" in methods or "cgm" in methods:
                naive = naive_tuning.fit(
                    lambda v: estimator("naive_mle")(inst.model, y, float(n), v, project=True)
                )
                if "naive_mle" in methods:
                    rec.put("naive_mle", t, naive)
            if "naive_mle_unprojected" in methods:
                raw = raw_tuning.fit(
                    lambda v: estimator("naive_mle_unprojected")(
                        inst.model, y, float(n), v, project=False
                    )
                )
                rec.put("naive_mle_unprojected", t, raw)
            if "cgm" in methods:

                def cgm_at(v, y=y, scale=mech.scale, start=naive.theta):
                    return cgm_fit(inst.model, y, n, scale, v, start, cgm, cgm_inference(spec, cgm))

                # tuned as naive MLE is: same rule, same oracle, its own grid
                fit = cgm_tuning.fit(cgm_at)
                rec.put("cgm", t, fit, extra_seconds=naive.seconds)
                if t == 0 and cell.get("keep_marginals"):
                    keep["cgm"] = exact_marginals(inst.model, fit.theta).edge
            if t == 0 and cell.get("keep_marginals") and naive is not None:
                keep["naive_mle"] = exact_marginals(inst.model, naive.theta).edge
            if psgd_setting is not None and r == 0 and p < int(psgd["trials"]):  # a PSGD cell
                rng = rng_for(seed, STUDY, experiment, p, "psgd")
                rec.put("psgd", t, psgd_fit(inst.model, pop.records, eps, psgd_setting, psgd, rng))
            if "random" in methods:
                rng = rng_for(seed, STUDY, experiment, t, "random")
                rec.put("random", t, estimator("random")(inst.model, float(n), lams["random"], rng))
            if "non_private" in methods and r == 0:  # one fit per population: it sees no release
                fit = estimator("non_private")(
                    inst.model, pop.tables, float(n), lams["non_private"]
                )
                rec.put("non_private", t, fit)
                if t == 0 and cell.get("keep_marginals"):
                    keep["non_private"] = exact_marginals(inst.model, fit.theta).edge
    # the uniform model (theta = 0: every penalised fit's limit) and Eq. 3.4's sampling term x N,
    # averaged over the edge cells: what the scorecard derives Fig 3.1's N ranges from
    uniform, mu = fit_metrics(inst, np.zeros(inst.model.dim)), inst.edge_marginals
    extra = {f"marginals_{m}": v for m, v in keep.items()}
    if keep:
        extra["marginals_true"] = inst.edge_marginals
    save_npz(
        output.cell,
        methods=np.array(methods),
        n=np.int64(n),
        epsilon=np.float64(np.nan if eps is None else eps),
        noisy_mse=noisy_mse,
        cliques=np.int64(inst.model.n_cliques),
        treewidth=np.int64(treewidth(inst.model)),
        psgd_scale=np.float64(np.nan if psgd_setting is None else psgd_setting),
        naive_mle_lambda=np.float64(naive_tuning.lam),
        naive_mle_unprojected_lambda=np.float64(raw_tuning.lam),
        psgd_tuning_score=np.asarray(psgd_scores, dtype=float),
        naive_mle_lambda_grid=np.asarray(naive_tuning.grid, dtype=float),
        naive_mle_tuning_score=np.asarray(naive_tuning.scores, dtype=float),
        cgm_lambda=np.float64(cgm_tuning.lam),
        cgm_lambda_grid=np.asarray(cgm_tuning.grid if "cgm" in methods else [], dtype=float),
        cgm_tuning_score=np.asarray(cgm_tuning.scores, dtype=float),
        naive_mle_tuning_seconds=np.float64(naive_tuning.seconds),
        cgm_tuning_seconds=np.float64(cgm_tuning.seconds),
        uniform_kl=np.float64(uniform[0]),
        uniform_mse=np.float64(uniform[1]),
        sampling_variance=np.float64(np.mean(mu * (1.0 - mu))),
        **rec.cols,
        **extra,
    )
