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
from .settings import chain_setting

__all__ = [
    "STUDY",
    "problem_of",
    "start_points",
    "mmd",
    "run_algorithm",
    "sample_errors",
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


def sample_errors(
    x: np.ndarray,
    reference: np.ndarray,
    ref_mean: np.ndarray,
    ref_cov: np.ndarray,
    pairs: int,
    rng: np.random.Generator,
) -> dict:
    """A kept sample against the reference: MMD (and its bandwidth), L2 error of the mean,
    Frobenius error of the covariance (FACTS 1: the author's per-chain record)."""
    m, h = mmd(x, reference, pairs, rng)
    d = reference.shape[1]
    cov = np.atleast_2d(np.cov(x, rowvar=False)) if x.shape[0] > 1 else np.zeros((d, d))
    return {
        "mmd": m,
        "bandwidth": h,
        "mean_error": float(np.linalg.norm(x.mean(axis=0) - ref_mean)),
        "cov_error": float(np.linalg.norm(cov - ref_cov)),
    }


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
        base.append(
            mmd(
                fresh,
                reference,
                mmd_bandwidth_pairs,
                rng_for(seed, STUDY, model, b, "baseline_mmd"),
            )[0]
        )
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
    starts = ref["starts"]
    reference = ref.get("reference")
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
    log.info(
        "%s: n=%d delta=%.3g -> %d iterations x %d chains",
        setting,
        problem.n,
        delta,
        iterations,
        len(starts),
    )
    rows = {
        k: []
        for k in (
            "acceptance",
            "llr_clip",
            "grad_clip",
            "mmd",
            "bandwidth",
            "mean_error",
            "cov_error",
            "cpu_seconds",
            "batch_variance_rejections",
        )
    }
    kept = []
    if reference is not None:  # the reference's moments, once per job
        ref_mean, ref_cov = reference.mean(axis=0), np.atleast_2d(np.cov(reference, rowvar=False))
    for i, start in enumerate(starts):
        chain = run_algorithm(
            problem,
            start,
            iterations,
            algo,
            hyper,
            rng_for(seed, STUDY, setting, i, stream_stage(algo, study=STUDY)),
            hmc_gradients=hmc_gradients,
        )
        x = chain.kept
        kept.append(x)
        rows["acceptance"].append(chain.info.acceptance)
        rows["llr_clip"].append(chain.info.detail.llr_clip_fraction)
        rows["grad_clip"].append(chain.info.detail.grad_clip_fraction)
        rows["cpu_seconds"].append(chain.info.cpu_seconds)
        rows["batch_variance_rejections"].append(chain.info.detail.batch_variance_rejections)
        if reference is None:  # circle: distance of the kept mean from the true mean (0, 0)
            rows["mean_error"].append(float(np.linalg.norm(x.mean(axis=0) - problem.theta_true)))
            for k in ("mmd", "bandwidth", "cov_error"):  # undefined without a reference sample
                rows[k].append(0.0)
        else:
            errors = sample_errors(
                x,
                reference,
                ref_mean,
                ref_cov,
                mmd_bandwidth_pairs,
                rng_for(seed, STUDY, setting, i, "mmd"),
            )
            for k, v in errors.items():
                rows[k].append(v)
        log.info(
            "%s chain %d: acceptance %.3f, clipped %.4f, %s %.4f, %.2f s",
            setting,
            i,
            chain.info.acceptance,
            rows["llr_clip"][-1],
            "MMD" if reference is not None else "mean error",
            rows["mmd"][-1] if reference is not None else rows["mean_error"][-1],
            chain.info.cpu_seconds,
        )
    draws = np.stack(kept)  # (chains, kept, d)
    save_npz(
        output.chains,
        iterations=np.int64(iterations),
        delta=np.float64(delta),
        rhat=split_rhat(draws),
        ess=bulk_ess(draws),
        has_reference=np.bool_(reference is not None),
        **{k: np.asarray(v, float) for k, v in rows.items()},
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

    def curves_at(eps) -> dict:
        return {
            "penalty_zcdp": [
                accounting.zcdp_iteration_count("dpps", penalty, n, e, delta) for e in eps
            ],
            "penalty_pld": [accounting.iteration_count("dpps", penalty, n, e, delta) for e in eps],
            "minibatch_rdp": [
                accounting.minibatch_rdp_iterations(e, delta, tau_mb, B, n) for e in eps
            ],
            "minibatch_pld": [
                accounting.iteration_count("mdpps", minibatch, n, e, delta) for e in eps
            ],
            "hmc_zcdp": [
                accounting.zcdp_iteration_count("hmc", hmc, n, e, delta, hmc_variant=hmc_gradients)
                for e in eps
            ],
            "hmc_pld": [
                accounting.iteration_count("hmc", hmc, n, e, delta, hmc_variant=hmc_gradients)
                for e in eps
            ],
        }

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
