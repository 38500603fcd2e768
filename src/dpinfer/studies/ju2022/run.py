"""ju2022 compute step: simulate, release and sample each replicate of one chunk.

A replicate of an (experiment, epsilon) is: the confidential data (design ``fixed_data``: the
authors' fixed data set; ``fixed_parameters``: a fresh data set from the authors' true
parameters), one Laplace release through :mod:`dpinfer.mechanisms`, one chain of Algorithm 1,
and the per-replicate summaries that the tables, figures and claims read. Nothing here depends
on a credible level: coverage at any level is computed later from where the reference value
sits in its posterior sample (:func:`truth_levels`).
"""

from __future__ import annotations

import logging

import numpy as np

from ... import diagnostics
from ...grid import fmt_eps
from ...io import save_npz
from ...mechanisms import calibrate
from ...methods import stream_stage
from ...models import gaussian_linreg, naive_bayes
from ...samplers.registry import sampler
from ...seeding import rng_for

__all__ = [
    "stream_key",
    "loglinear_problem",
    "linreg_problem",
    "truth_levels",
    "run_chains",
    "run_chunk",
    "run_converged_chunk",
    "replicate_row",
]

log = logging.getLogger("dpinfer.ju2022")
STUDY = "ju2022"


def stream_key(experiment: str, epsilon: float) -> str:
    """Experiment part of the seed key: every (experiment, epsilon) has its own streams."""
    return f"{experiment}/eps={fmt_eps(epsilon)}"


# ----------------------------------------------------------------------------- one replicate
def _data_file(inputs, design: str):
    """The authors' data set: an input of fixed_data designs only (fixed_parameters simulates)."""
    return inputs.data if design == "fixed_data" else None


def loglinear_problem(
    inputs, cfg: dict, design: str, n_records, epsilon: float, rep: int, key: str, seed: int
) -> tuple[naive_bayes.Problem, np.ndarray]:
    """(what the chains of a log-linear replicate condition on, its reference value): the count
    tables and release of replicate ``rep`` of stream ``key`` (:func:`stream_key`)."""
    ref = naive_bayes.load_reference(
        inputs.parameters, _data_file(inputs, design), cfg["prior_concentration"]
    )
    K, J, I = ref.shape
    if design == "fixed_data":
        tables, truth = ref.counts, naive_bayes.posterior_mean_p(ref.counts, ref.alpha_p)
        n_records = ref.n_records
    else:
        cls, ans = naive_bayes.simulate_records(
            rng_for(seed, STUDY, key, rep, "simulate"), ref.p, ref.pi, n_records
        )
        tables, truth = naive_bayes.count_tables(cls, ans, J, I), ref.p
    mech = calibrate(cfg["mechanism"], epsilon, cfg["sensitivity"])
    released = mech.release(rng_for(seed, STUDY, key, rep, "release"), tables)
    problem = naive_bayes.Problem(released, mech.scale, ref.alpha_p, ref.alpha, n_records)
    return problem, truth


def linreg_problem(
    inputs, cfg: dict, design: str, n_records, epsilon: float, rep: int, key: str, seed: int
) -> tuple[gaussian_linreg.Problem, np.ndarray]:
    """(what the chains of a regression replicate condition on, its reference value): the data
    set and release of replicate ``rep`` of stream ``key`` (:func:`stream_key`), as every chain
    of the study sees them (the paper's and the companion's)."""
    ref = gaussian_linreg.load_reference(inputs.parameters, _data_file(inputs, design))
    clamp, tau = tuple(cfg["clamp"]), cfg["prior_sd"]
    if design == "fixed_data":
        X, y = ref.X, ref.y
        truth = gaussian_linreg.conjugate_posterior(X, y, ref.sigma2, tau)[0]
    else:
        X, y = gaussian_linreg.simulate_data(
            rng_for(seed, STUDY, key, rep, "simulate"),
            ref.beta,
            ref.mean_x,
            ref.cov_x,
            ref.sigma2,
            n_records,
        )
        truth = ref.beta
    mech = calibrate(cfg["mechanism"], epsilon, cfg["sensitivity"])
    released = mech.release(
        rng_for(seed, STUDY, key, rep, "release"), gaussian_linreg.released_statistic(X, y, clamp)
    )
    problem = gaussian_linreg.Problem(
        released, mech.scale, ref.mean_x, ref.cov_x, ref.sigma2, tau, clamp, len(y)
    )
    return problem, truth


_PROBLEM = {"loglinear": loglinear_problem, "linreg": linreg_problem}


def truth_levels(draws, truth) -> tuple[np.ndarray, np.ndarray]:
    """Where each reference value sits in its posterior sample, as probability levels.

    Q is the sample quantile function of ``np.quantile`` (method 'linear': Q(k / (n-1)) is the
    k-th order statistic, linear in between). Returns per parameter
    ``q_lo = inf{q: Q(q) >= truth}`` (2 when truth is above every draw) and
    ``q_hi = sup{q: Q(q) <= truth}`` (-1 when truth is below every draw); they are equal unless
    truth equals tied draws. The central interval [Q((1-L)/2), Q((1+L)/2)] covers truth exactly
    when ``q_hi >= (1-L)/2`` and ``q_lo <= (1+L)/2`` (:func:`.summarise.interval_hits`), so
    coverage at any level L can be computed after sampling.
    """
    x = np.sort(np.asarray(draws, dtype=float), axis=0)
    truth = np.asarray(truth, dtype=float)
    q_lo, q_hi = np.empty(x.shape[1]), np.empty(x.shape[1])
    for j in range(x.shape[1]):
        xs, t = x[:, j], truth[j]
        # q_hi from the draws <= t, q_lo from the draws < t
        q_hi[j] = _level(xs, t, int(np.searchsorted(xs, t, side="right")), -1.0, 1.0)
        q_lo[j] = _level(xs, t, int(np.searchsorted(xs, t, side="left")), 0.0, 2.0)
    return q_lo, q_hi


def _level(xs: np.ndarray, t: float, k: int, below: float, above: float) -> float:
    """The level of ``t`` in the sorted draws ``xs`` by linear interpolation between draws k-1
    and k; ``below`` when k is 0, ``above`` when k is past the last draw."""
    if k == 0:
        return below
    if k == xs.size:
        return above
    return (k - 1 + (t - xs[k - 1]) / (xs[k] - xs[k - 1])) / (xs.size - 1)


# ----------------------------------------------------------------------------- the chunk job
def run_chains(
    model: str, method: str, problem, count: int, seed: int, key: str, rep: int, **run
) -> list:
    """``count`` chains of sampler ``method`` on ``problem``, replicate ``rep`` of stream ``key``
    (``run``: the sampler's keywords, burnin, keep and options). Chain c on the method's stage
    (:func:`dpinfer.methods.stream_stage`: ``sample`` for chain 0 and ``sample_chain<c>`` for
    chain c), so the first chain is the paper-length run's whatever the number of chains."""
    chain = sampler(model, method)
    return [
        chain(problem, rng_for(seed, STUDY, key, rep, stream_stage(method, c, STUDY)), **run)
        for c in range(int(count))
    ]


def run_chunk(
    input,
    output,
    *,
    seed: int,
    experiment: str,
    model: str,
    design: str,
    epsilon: float,
    replicates: list,
    n_records,
    model_config: dict,
    burnin: int,
    keep: int,
    chains: int = 1,
    options: dict | None = None,
) -> None:
    """Rule step: replicates ``range(*replicates)`` of one (experiment, epsilon) with ``chains``
    chains each (one as in the paper); per-replicate summaries (:func:`replicate_row`) to
    ``output.summary``. ``options``: keywords for the sampler (the regression's
    ``noncentred_moves``).

    Streams: ``simulate`` and ``release`` for the data and release, the chains' for the chains
    (:func:`run_chains`). ``input.parameters`` / ``input.data``: the authors' files of ``model``;
    ``n_records`` the data set size of ``fixed_parameters`` designs (None for ``fixed_data``);
    ``model_config`` the model's config block (sampler, mechanism, sensitivity and its prior and
    clamp settings).
    """
    eps = float(epsilon)
    key = stream_key(experiment, eps)
    problem_of, method = _PROBLEM[model], model_config["sampler"]
    options = dict(options or {})
    # load the compiled kernel before any chain is timed: a throwaway 2-sweep run of the design
    warm_up = problem_of(input, model_config, design, n_records, 1.0, 0, "warm-up", 0)[0]
    run_chains(model, method, warm_up, 1, 0, "warm-up", 0, burnin=1, keep=1, **options)
    rows = []
    for rep in range(*replicates):
        problem, truth = problem_of(input, model_config, design, n_records, eps, rep, key, seed)
        runs = run_chains(
            model, method, problem, chains, seed, key, rep, burnin=burnin, keep=keep, **options
        )
        rows.append(replicate_row(rep, runs, truth))
        log.info(
            "%s eps=%s replicate %d (%d chains): mean acceptance %.3f, R-hat %.4f, bulk ESS "
            "%.0f, %.2f CPU s",
            experiment,
            fmt_eps(eps),
            rep,
            chains,
            rows[-1]["acc_mean"],
            rows[-1]["rhat_max"],
            rows[-1]["ess_min"],
            rows[-1]["seconds"],
        )
    stacked = {k: np.asarray([r[k] for r in rows]) for k in rows[0]}
    for k, v in stacked.items():
        if v.dtype.kind == "f" and not np.all(np.isfinite(v)):
            raise FloatingPointError(f"non-finite {k} in {experiment} eps={eps}")
    save_npz(output.summary, epsilon=np.float64(eps), iterations=np.int64(burnin + keep), **stacked)


def run_converged_chunk(input, output, *, converged: dict, **replicates) -> None:
    """Rule step: the converged companion of the same replicates (issue 33): the same data and
    release, ``converged.chains`` chains of ``converged.burnin`` + ``converged.keep`` sweeps,
    pooled (:func:`run_chunk`), with ``converged.noncentred_moves`` non-centred moves of beta
    per sweep when given (the regression's)."""
    lengths = {k: int(converged[k]) for k in ("chains", "burnin", "keep")}
    options = {k: int(converged[k]) for k in ("noncentred_moves",) if k in converged}
    run_chunk(input, output, **lengths, options=options, **replicates)


def replicate_row(rep: int, chains: list, truth) -> dict:
    """A replicate's summaries from its chains (one: the paper's; several: pooled, with R-hat
    and bulk ESS across them): posterior mean and sd, where the truth sits, acceptance, time."""
    kept = np.concatenate([c.kept for c in chains])
    stacked = np.stack([c.kept for c in chains])
    q_lo, q_hi = truth_levels(kept, truth)
    acc = diagnostics.acceptance_summary(
        np.concatenate([c.info.detail.acceptance[c.burnin :] for c in chains])
    )
    return dict(
        replicate=rep,
        post_mean=diagnostics.posterior_mean(kept),
        post_sd=kept.std(axis=0, ddof=1),
        truth_q_lo=q_lo,
        truth_q_hi=q_hi,
        truth=np.asarray(truth, float),
        acc_mean=acc["mean"],
        acc_min=acc["min"],
        min_log_alpha=min(c.info.detail.min_log_alpha for c in chains),
        seconds=sum(c.info.cpu_seconds for c in chains),
        ess_min=float(diagnostics.bulk_ess(stacked).min()),
        rhat_max=float(diagnostics.split_rhat(stacked).max()),
    )
