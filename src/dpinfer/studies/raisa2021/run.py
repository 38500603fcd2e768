"""raisa2021 compute steps (rules ``raisa2021_*``): reference samples, chains, accountants.

Every step is called as ``function(input, output, **params)`` with only the settings it reads.
A model's data are rebuilt from its own stream in every job that needs them (a few
milliseconds), so no job ships 10^5-row matrices through the file system.
"""

from __future__ import annotations

import logging
import math

import numpy as np

from ... import accounting
from ...diagnostics import bulk_ess, mmd2_unbiased, paired_median_bandwidth, split_rhat
from ...grid import fmt_eps
from ...io import load_npz, save_npz
from ...methods import stream_stage
from ...models.barker_correction import load_vcorr
from ...models.dp_mcmc import Problem, exact_posterior_draws, log_posterior, make_problem
from ...samplers.registry import dp_chain_lengths, options_of, sampler
from ...seeding import rng_for
from .settings import CURVE_FAMILIES, chain_setting

__all__ = [
    "problem_of",
    "start_points",
    "mmd",
    "run_chains",
    "reference_and_baselines",
    "model_reference",
    "chains",
    "accountant_curves",
    "hmc_trajectory",
]

STUDY = "raisa2021"
log = logging.getLogger("dpinfer.raisa2021")


def problem_of(seed: int, model: str, spec: dict) -> Problem:
    """The model's data set, from its own stream (the same in every job)."""
    return make_problem(model, spec, rng_for(seed, STUDY, model, 0, "simulate"))


def start_points(
    seed: int,
    model: str,
    problem: Problem,
    spec: dict,
    rule: str,
    chains: int,
    reference: np.ndarray | None,
) -> np.ndarray:
    """(chains, d) starting points, shared by every algorithm and epsilon (Section 5.4).

    ``start_sd``: centre + N(0, s^2 I) with Table 5.1's start deviation s; ``ref_sd_1.5``:
    centre + z * 1.5 * (per-coordinate sd of the reference sample) (code 9c834d7);
    ``ref_sd_mean``: centre + z * (mean of those sds) (final thesis). The circle has no reference
    sample: its ``ref_sd_*`` rules use sd 1, as the author's code did.
    """
    z = np.stack(
        [
            rng_for(seed, STUDY, model, i, "start").standard_normal(problem.dim)
            for i in range(chains)
        ]
    )
    centre = np.asarray(problem.start_centre, float)
    if rule == "start_sd":
        scale = float(spec["start_sd_seed_text"])
    elif reference is None:
        scale = 1.0
    elif rule == "ref_sd_1.5":
        scale = 1.5 * reference.std(axis=0, ddof=1)
    elif rule == "ref_sd_mean":
        scale = float(reference.std(axis=0, ddof=1).mean())
    else:
        raise ValueError(f"unknown start rule {rule!r}")
    return centre + z * scale


def mmd(
    sample: np.ndarray, reference: np.ndarray, pairs: int, rng: np.random.Generator
) -> tuple[float, float]:
    """(sqrt|MMD^2|, bandwidth): the unbiased MMD^2 with the paired median-heuristic bandwidth,
    reported as the author did (square root of its absolute value)."""
    h = paired_median_bandwidth(sample, reference, pairs, rng)
    return math.sqrt(abs(mmd2_unbiased(sample, reference, bandwidth=h))), h


def _contour_window(model: str, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if model == "circle":
        return np.array([-4.5, -4.5]), np.array([4.5, 4.5])
    lo, hi = np.quantile(points, 0.002, axis=0), np.quantile(points, 0.998, axis=0)
    pad = 0.2 * (hi - lo)
    return lo - pad, hi + pad


def contour_grid(problem: Problem, lo, hi, size: int = 200) -> dict:
    """Log posterior on a size x size grid over [lo, hi] (2-d models only)."""
    gx, gy = np.linspace(lo[0], hi[0], size), np.linspace(lo[1], hi[1], size)
    xx, yy = np.meshgrid(gx, gy)
    lp = log_posterior(problem, np.column_stack([xx.ravel(), yy.ravel()])).reshape(size, size)
    return {"grid_x": gx, "grid_y": gy, "grid_logp": lp - lp.max()}


def reference_and_baselines(
    seed: int,
    model: str,
    problem: Problem,
    reference_draws: int,
    baseline_samples: int,
    mmd_bandwidth_pairs: int,
) -> dict:
    """The reference sample (Theorem 12) and the MMDs of fresh exact samples to it (the dashed
    baselines of the MMD figures)."""
    reference = exact_posterior_draws(
        problem, reference_draws, rng_for(seed, STUDY, model, 0, "reference")
    )
    base = []
    for b in range(baseline_samples):
        fresh = exact_posterior_draws(
            problem, reference_draws, rng_for(seed, STUDY, model, b, "baseline")
        )
        mmd_rng = rng_for(seed, STUDY, model, b, "baseline_mmd")
        base.append(mmd(fresh, reference, mmd_bandwidth_pairs, mmd_rng)[0])
    log.info(
        "%s: %d reference draws; baseline MMD %.4f .. %.4f",
        model,
        reference_draws,
        min(base),
        max(base),
    )
    return {"reference": reference, "baseline_mmd": np.array(base)}


def model_reference(
    input,
    output,
    seed: int,
    model: str,
    spec: dict,
    reference_draws: int,
    baseline_samples: int,
    chains: int,
    start_rule: str,
    mmd_bandwidth_pairs: int,
) -> None:
    """One model's reference sample (Theorem 12), the MMDs of fresh exact samples to it (the
    dashed baselines), the chains' start points and, for 2-d models, Fig 5.1's contour grid."""
    problem = problem_of(seed, model, spec)
    out = {"n": np.int64(problem.n), "dim": np.int64(problem.dim)}
    reference = None
    if problem.family != "circle":
        out.update(
            reference_and_baselines(
                seed, model, problem, reference_draws, baseline_samples, mmd_bandwidth_pairs
            )
        )
        reference = out["reference"]
    starts = start_points(seed, model, problem, spec, start_rule, chains, reference)
    out["starts"] = starts
    if problem.dim == 2:
        pts = starts if reference is None else np.vstack([reference, starts])
        out.update(contour_grid(problem, *_contour_window(model, pts)))
    save_npz(output.reference, **out)


def run_algorithm(
    problem: Problem,
    start,
    iterations: int,
    algo: str,
    hyper: dict,
    rng,
    *,
    hmc_gradients: str = "seed",
):
    """One chain of ``algo`` (registry model ``dp_mcmc``) with those keys of ``hyper`` that are
    its options; DP HMC releases kL + 1 gradients when ``hmc_gradients`` is "seed", k(L + 1)
    otherwise."""
    run = sampler("dp_mcmc", algo)
    options = options_of(run, dict(hyper, gradient_reuse=hmc_gradients == "seed"))
    return run(problem, rng, start=start, **options, **dp_chain_lengths(iterations))


# what each chain's record (DPChainDetail) reports, as the chain files name it
_DETAIL = {
    "llr_clip": "llr_clip_fraction",
    "grad_clip": "grad_clip_fraction",
    "decisions_changed": "decisions_changed",
    "batch_variance_rejections": "batch_variance_rejections",
}


def run_chains(
    seed: int,
    setting: str,
    problem: Problem,
    starts,
    iterations: int,
    algo: str,
    hyper: dict,
    reference: np.ndarray | None,
    mmd_bandwidth_pairs: int,
    hmc_gradients: str = "seed",
) -> tuple[dict, np.ndarray]:
    """Chain i of ``setting`` (:func:`run_algorithm`) from ``starts[i]``: per chain (arrays) its
    acceptance, CPU seconds, what its record reports (``_DETAIL``) and its kept half against the
    reference (FACTS 1: the author's per-chain record): MMD and its bandwidth, L2 error of the mean,
    Frobenius error of the covariance. The circle has no reference: its mean error is from the true
    mean (0, 0), the others are 0 (undefined). Also the kept draws (chains, kept, d)."""
    if reference is None:
        centre = problem.theta_true
    else:  # the reference's moments, once per job
        centre, ref_cov = reference.mean(axis=0), np.atleast_2d(np.cov(reference, rowvar=False))
    rows, kept = {}, []
    for i, start in enumerate(starts):
        stream = rng_for(seed, STUDY, setting, i, stream_stage(algo, study=STUDY))
        chain = run_algorithm(
            problem, start, iterations, algo, hyper, stream, hmc_gradients=hmc_gradients
        )
        x, info = chain.kept, chain.info
        kept.append(x)
        row = {
            "acceptance": info.acceptance,
            "cpu_seconds": info.cpu_seconds,
            **{k: getattr(info.detail, name) for k, name in _DETAIL.items()},
            "mean_error": float(np.linalg.norm(x.mean(axis=0) - centre)),
            "mmd": 0.0,
            "bandwidth": 0.0,
            "cov_error": 0.0,
        }
        if reference is not None:
            pairs, mmd_rng = mmd_bandwidth_pairs, rng_for(seed, STUDY, setting, i, "mmd")
            row["mmd"], row["bandwidth"] = mmd(x, reference, pairs, mmd_rng)
            cov = np.atleast_2d(np.cov(x, rowvar=False)) if len(x) > 1 else np.zeros_like(ref_cov)
            row["cov_error"] = float(np.linalg.norm(cov - ref_cov))
        for k, v in row.items():
            rows.setdefault(k, []).append(v)
        log.info(
            "%s chain %d: acceptance %.3f, clipped %.4f, %s %.4f, %.2f s",
            setting,
            i,
            info.acceptance,
            row["llr_clip"],
            "MMD" if reference is not None else "mean error",
            row["mmd"] if reference is not None else row["mean_error"],
            info.cpu_seconds,
        )
    return {k: np.asarray(v, float) for k, v in rows.items()}, np.stack(kept)


def chains(
    input,
    output,
    seed: int,
    model: str,
    spec: dict,
    algo: str,
    epsilon: float,
    hyper: dict,
    delta_factor: float,
    hmc_gradients: str,
    mmd_bandwidth_pairs: int,
) -> None:
    """Every chain of one (model, algorithm, epsilon): the iteration count from the accountant
    (Algorithm 2 over Theorem 6, 7, 11 or the numerical PLD), then per chain acceptance, clip
    fractions, MMD to the reference sample, mean and covariance error; R-hat and bulk ESS over
    the chains. DP Barker reads its V_corr mixture from ``input.vcorr``."""
    problem = problem_of(seed, model, spec)
    if algo == "barker":
        hyper = dict(hyper, vcorr=load_vcorr(input.vcorr))
    ref = load_npz(input.reference)
    delta = delta_factor / problem.n
    iterations = accounting.iteration_count(
        algo, hyper, problem.n, float(epsilon), delta, hmc_variant=hmc_gradients
    )
    if iterations < 3:
        raise ValueError(
            f"{model} {algo} eps={epsilon}: the budget allows {iterations} iterations; "
            "need at least 3 to keep a second half (raise epsilon or n)"
        )
    setting = chain_setting(model, algo, fmt_eps(epsilon))
    log.info("%s: n=%d delta=%.3g -> %d iterations", setting, problem.n, delta, iterations)
    rows, draws = run_chains(
        seed,
        setting,
        problem,
        ref["starts"],
        iterations,
        algo,
        hyper,
        ref.get("reference"),
        mmd_bandwidth_pairs,
        hmc_gradients,
    )
    save_npz(
        output.chains,
        iterations=np.int64(iterations),
        delta=np.float64(delta),
        rhat=split_rhat(draws),
        ess=bulk_ess(draws),
        has_reference=np.bool_("reference" in ref),
        **rows,
    )


def accountant_curves(
    input,
    output,
    n: int,
    delta: float,
    epsilon_min: float,
    epsilon_max: float,
    points: int,
    penalty: dict,
    minibatch: dict,
    hmc: dict,
    hmc_gradients: str,
    check_epsilons=(),
) -> None:
    """Fig 6.1: iteration counts vs epsilon with the loose (zCDP / RDP) and tight (PLD)
    accountants of DP penalty, minibatch DP penalty and DP HMC, over the figure's grid
    (``epsilons``, one array per curve) and at ``check_epsilons`` (the chains' epsilons, where
    the author's counts are known: ``check_epsilons`` and ``check_<curve>``)."""
    B, tau_mb = int(minibatch["batch_size"]), float(minibatch["tau_variance_multiplier"])
    hypers = {"penalty": penalty, "minibatch": minibatch, "hmc": hmc}
    counts = {"hmc_variant": hmc_gradients}  # DP HMC's gradient releases (the others ignore it)

    def curves_at(eps) -> dict:
        out = {}
        for family, algo in CURVE_FAMILIES.items():
            hyper = hypers[family]
            if family == "minibatch":
                out["minibatch_rdp"] = [
                    accounting.minibatch_rdp_iterations(e, delta, tau_mb, B, n) for e in eps
                ]
            else:
                out[f"{family}_zcdp"] = [
                    accounting.zcdp_iteration_count(algo, hyper, n, e, delta, **counts) for e in eps
                ]
            out[f"{family}_pld"] = [
                accounting.iteration_count(algo, hyper, n, e, delta, **counts) for e in eps
            ]
        return out

    eps = np.linspace(epsilon_min, epsilon_max, points)
    check = np.asarray([float(e) for e in check_epsilons], float)
    curves = curves_at(eps)
    at = curves_at(check)
    for k, v in curves.items():
        log.info("%s at epsilon %.3g: %d; at %s: %s", k, eps[-1], v[-1], check.tolist(), at[k])
    save_npz(
        output.curves,
        epsilons=eps,
        check_epsilons=check,
        **{k: np.asarray(v, np.int64) for k, v in curves.items()},
        **{f"check_{k}": np.asarray(v, np.int64) for k, v in at.items()},
    )


def hmc_trajectory(
    input,
    output,
    seed: int,
    spec: dict,
    hyper: dict,
    epsilon: float,
    delta_factor: float,
    steps: int,
    iteration: int,
    hmc_gradients: str,
) -> None:
    """Fig 4.1: DP HMC on the circle with L = ``steps``, its leapfrog path at ``iteration``.

    The first ``iteration + 1`` iterations are run: a longer chain has the same first iterations.
    The accountant's count for the whole chain is stored for the caption."""
    problem = problem_of(seed, "circle", spec)
    hyper = dict(hyper, L=int(steps))
    total = accounting.iteration_count(
        "hmc", hyper, problem.n, float(epsilon), delta_factor / problem.n, hmc_variant=hmc_gradients
    )
    if iteration >= total:
        raise ValueError(
            f"fig4_1.iteration {iteration} is beyond the {total} iterations the budget allows"
        )
    chain = run_algorithm(
        problem,
        np.asarray(problem.start_centre, float),
        iteration + 1,
        "hmc",
        dict(hyper, record_trajectory=True),
        rng_for(seed, STUDY, "fig4_1", 0, stream_stage("hmc", study=STUDY)),
        hmc_gradients=hmc_gradients,
    )
    path = chain.info.detail.trajectory[iteration]
    mode = float(
        log_posterior(
            problem, np.array([[math.sqrt(float(problem.data.mean(dtype=np.float64))), 0.0]])
        )[0]
    )
    save_npz(
        output.trajectory,
        trajectory=path,
        total_iterations=np.int64(total),
        path_logp=log_posterior(problem, path) - mode,  # log density relative to the ring's crest
        **contour_grid(problem, np.array([-5.0, -5.0]), np.array([5.0, 5.0]), size=100),
    )  # as the thesis
