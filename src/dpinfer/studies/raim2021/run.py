"""raim2021 compute steps (rules ``raim2021_run_*``): simulate, release, sample.

Every step is called as ``function(input, output, **params)`` with only the config values it
reads. Releases go through :class:`~dpinfer.models.lognormal_regression.ReleaseNoise`
(``DoubleGeometric(rho)`` on y, ``Laplace(scale=lambda)`` on x_1).
"""

from __future__ import annotations

import logging
import math
from typing import NamedTuple

import numpy as np

from ...diagnostics import bulk_ess, split_rhat
from ...grid import fmt_eps
from ...io import save_npz, write_json
from ...methods import stream_stage
from ...models.lognormal_regression import (
    Prior,
    Problem,
    ReleaseNoise,
    Truth,
    mse_of_chain,
    release,
    simulate_design,
    simulate_outcomes,
)
from ...samplers.direct import (
    Base,
    DirectSettings,
    Weight,
    direct_sample,
    log_p_of_u,
    psi_over_c,
    stepdown,
)
from ...samplers.registry import sampler
from ...seeding import rng_for
from .grid import raim_setting

__all__ = ["envelopes", "gibbs_chunk", "converged_chunk", "trace_chains", "timing_run"]

STUDY = "raim2021"
METHODS = ("equal_steps", "small_rects")  # the knots figure's columns
log = logging.getLogger("dpinfer.raim2021")

# Algorithm 2 (noisy data) and Algorithm 4 (confidential data), through the one registry
MODEL = "lognormal_regression"
NOISY, FREE = "alg2_noisy", "alg4_noise_free"
NOISY_STREAM, FREE_STREAM = stream_stage(NOISY), stream_stage(FREE)


class _Algorithms(NamedTuple):
    """What every run of Algorithms 2 and 4 shares: the true parameters, the prior and the
    direct sampler's settings, read once from the config."""

    truth: Truth
    prior: Prior
    direct: DirectSettings

    @classmethod
    def of(cls, model: dict, direct: dict) -> _Algorithms:
        beta = tuple(float(b) for b in model["beta"])
        truth = Truth(n=int(model["n"]), beta=beta, sigma=float(model["sigma"]))
        prior = Prior(**{k: float(model[k]) for k in ("sigma_beta", "a_sigma", "b_sigma")})
        return cls(truth, prior, DirectSettings.from_config(direct))

    def noisy(self, data: dict, noise, rng, what: str | None, **options):
        """Algorithm 2 on the released (y_noisy, X_noisy); refused if the direct sampler failed,
        its latents keeping stale values (``what`` names the run; None for an unchecked
        warm-up)."""
        problem = Problem(data["y_noisy"], data["X_noisy"], noise, self.prior)
        chain = sampler(MODEL, NOISY)(problem, rng, direct=self.direct, **options)
        failed = {k: v for k, v in chain.info.clipped.items() if v}
        if what is not None and failed:
            raise RuntimeError(f"{what}: direct sampler failed {failed}")
        return chain

    def free(self, data: dict, rng, **options):
        """Algorithm 4 on the confidential (y, X)."""
        return sampler(MODEL, FREE)(Problem(data["y"], data["X"], None, self.prior), rng, **options)


def simulate_replicate(
    seed: int,
    experiment: str,
    rep: int,
    noise: ReleaseNoise,
    truth: Truth,
    data_experiment: str | None = None,
) -> dict:
    """Confidential (y, X) and release (y~, X~) of one replicate.

    X comes from (data_experiment or experiment, 0, "design"), y from
    (data_experiment or experiment, rep, "simulate"), noise from (experiment, rep, "release").
    """
    shared = data_experiment or experiment
    X = simulate_design(rng_for(seed, STUDY, shared, 0, "design"), truth.n)
    y = simulate_outcomes(rng_for(seed, STUDY, shared, rep, "simulate"), X, truth)
    y_noisy, X_noisy = release(rng_for(seed, STUDY, experiment, rep, "release"), y, X, noise)
    return {"y": y, "X": X, "y_noisy": y_noisy, "X_noisy": X_noisy}


# ----------------------------------------------------------------------------- envelopes
def _tv_distance(weight: Weight, base: Base, env: dict, psi_c: float) -> float:
    """Total-variation distance between h = h*/a and p = (c/psi) P(A_u), by quadrature over
    each piece of h* (the left side of the slides' "Approximation error bound")."""
    from scipy.integrate import quad

    lu, lh, a = env["log_u"], env["log_h"], math.exp(env["log_a"])
    u = np.exp(lu)
    total = 0.0
    for j in range(u.size - 1):
        h = math.exp(lh[j]) / a
        if not u[j + 1] > u[j]:
            continue
        total += quad(
            lambda v: abs(h - math.exp(log_p_of_u(weight, base, math.log(v))[0]) / psi_c),
            u[j],
            u[j + 1],
            limit=200,
        )[0]
    return 0.5 * total


def _envelope_record(prefix: str, weight: Weight, base: Base, settings: DirectSettings) -> dict:
    env = stepdown(weight, base, settings)
    lu, lh = env["log_u"], env["log_h"]
    # knots u_L..u_H (drop the u=0 pseudo-knot and the closing knot u=1)
    ku, kh = lu[1:-1], lh[1:-1]
    u_hi = float(np.exp(ku[-1]))
    u = np.linspace(0.0, min(1.0, 1.15 * u_hi), 800)[1:]  # the P(A_u) curve's points
    psi_c = psi_over_c(weight, base, ku)
    return {
        f"{prefix}_knot_log_u": ku,
        f"{prefix}_knot_log_p": kh,
        f"{prefix}_log_p0": np.array(lh[0]),
        f"{prefix}_curve_u": u,
        f"{prefix}_curve_log_p": log_p_of_u(weight, base, np.log(u)),
        f"{prefix}_log_a": np.array(env["log_a"]),
        f"{prefix}_psi_c": np.array(psi_c),
        f"{prefix}_acceptance": np.array(psi_c / math.exp(env["log_a"])),
        f"{prefix}_tv": np.array(_tv_distance(weight, base, env, psi_c)),
    }


def _example(cfg: dict, z, method: str) -> tuple[Weight, Base, DirectSettings]:
    """Weight, base and stepdown settings of a slides' example (``knots``, ``step_function``)."""
    return (
        Weight("lognormal", float(z), float(cfg["mu"]), float(cfg["sigma2"])),
        Base("laplace", float(cfg["lambda"])),
        DirectSettings(method=method, n_knots=int(cfg["n_knots"]), tol=float(cfg["tol"])),
    )


def envelopes(
    input, output, seed: int, knots: dict, step_function: dict, example_draws: int = 10_000
) -> None:
    """Knots of the slides' P(A_u) figure (lognormal(mu, s2) weight, Laplace base, each z, equal
    steps and small rectangles) and of the code example's step function, with a, psi/c, the
    acceptance (psi/c)/a and the TV distance between h and p of each envelope; and
    ``example_draws`` exact draws of the code example (stream ("step_function", 0, "sample"))
    to set beside the slides' 20 printed draws."""
    rec = {}
    for z in knots["z"]:
        for method in METHODS:
            rec.update(_envelope_record(f"z{fmt_eps(z)}_{method}", *_example(knots, z, method)))
    w, base, st = _example(step_function, step_function["z"], step_function["method"])
    rec.update(_envelope_record("example", w, base, st))
    rec["example_draws"], _ = direct_sample(
        example_draws, w, base, rng_for(seed, STUDY, "step_function", 0, "sample"), st
    )
    rec["z_values"] = np.array([float(z) for z in knots["z"]])
    save_npz(output.envelopes, **rec)


# ----------------------------------------------------------------------------- simulation
def _setting(rho: float, lam: float, model: dict, direct: dict):
    """Name, release noise and algorithms of one (rho, lambda) setting."""
    return raim_setting(rho, lam), ReleaseNoise.of(rho, lam), _Algorithms.of(model, direct)


def _save_rows(path, rows: list[dict]) -> None:
    """One array per field of the per-replicate ``rows``."""
    save_npz(path, **{k: np.asarray([r[k] for r in rows]) for k in rows[0]})


def gibbs_chunk(
    input,
    output,
    seed: int,
    rho: float,
    lam: float,
    replicates: list,
    model: dict,
    iterations: int,
    burnin: int,
    direct: dict,
) -> None:
    """Replicates [start, stop) of one (rho, lambda) setting: simulate, release, run
    Algorithms 2 and 4 (``iterations`` draws, the first ``burnin`` discarded), keep MSE^(s) and
    each chain's largest split-chain R-hat and smallest bulk ESS over the parameters."""
    setting, noise, alg = _setting(rho, lam, model, direct)
    theta = alg.truth.theta
    lengths = {"burnin": int(burnin), "keep": int(iterations) - int(burnin)}
    rows = []
    for rep in range(*replicates):
        data = simulate_replicate(seed, setting, rep, noise, alg.truth)
        noisy = alg.noisy(
            data,
            noise,
            rng_for(seed, STUDY, setting, rep, NOISY_STREAM),
            f"{setting} rep {rep}",
            **lengths,
        )
        free = alg.free(data, rng_for(seed, STUDY, setting, rep, FREE_STREAM), **lengths)
        row = {
            "replicate": rep,
            "mse_noisy": mse_of_chain(noisy.kept, theta),
            "mse_free": mse_of_chain(free.kept, theta),
            "mean_noisy": noisy.kept.mean(axis=0),
            "mean_free": free.kept.mean(axis=0),
            "seconds": noisy.info.cpu_seconds,
            "proposals_y": noisy.info.detail.proposals_per_y,
            "proposals_xi": noisy.info.detail.proposals_per_xi,
        }
        for name, chain in (("noisy", noisy), ("free", free)):  # one chain each: split-chain R-hat
            row[f"rhat_{name}"] = float(split_rhat(chain.kept[None]).max())
            row[f"ess_{name}"] = float(bulk_ess(chain.kept[None]).min())
        rows.append(row)
        log.info(
            "%s rep %d: MSE noisy %.4f free %.4f (%.2f CPU s)",
            setting,
            rep,
            row["mse_noisy"],
            row["mse_free"],
            row["seconds"],
        )
    _save_rows(output.summary, rows)


def converged_chunk(
    input,
    output,
    seed: int,
    rho: float,
    lam: float,
    replicates: list,
    model: dict,
    direct: dict,
    converged: dict,
) -> None:
    """The converged companion of Algorithm 2 (issue 33) on replicates [start, stop) of one
    setting: the same data and release (:func:`simulate_replicate`, the original streams) and
    ``converged.chains`` chains of ``converged.burnin`` + ``converged.keep`` draws, chain 0 on
    the original stream; MSE^(s) of the pooled draws, R-hat and bulk ESS across the chains."""
    setting, noise, alg = _setting(rho, lam, model, direct)
    lengths = {"burnin": int(converged["burnin"]), "keep": int(converged["keep"])}
    rows = []
    for rep in range(*replicates):
        data = simulate_replicate(seed, setting, rep, noise, alg.truth)
        chains = [
            alg.noisy(
                data,
                noise,
                rng_for(seed, STUDY, setting, rep, stream_stage(NOISY, c)),
                f"{setting} rep {rep} chain {c}",
                **lengths,
            )
            for c in range(int(converged["chains"]))
        ]
        stacked = np.stack([c.kept for c in chains])
        row = {
            "replicate": rep,
            "mse_noisy": mse_of_chain(np.concatenate(stacked), alg.truth.theta),
            "rhat_noisy": float(split_rhat(stacked).max()),
            "ess_noisy": float(bulk_ess(stacked).min()),
            "seconds": sum(c.info.cpu_seconds for c in chains),
        }
        rows.append(row)
        log.info(
            "converged %s rep %d: MSE %.4f, R-hat %.4f, bulk ESS %.0f over %d chains",
            setting,
            rep,
            row["mse_noisy"],
            row["rhat_noisy"],
            row["ess_noisy"],
            len(chains),
        )
    _save_rows(output.summary, rows)


# ----------------------------------------------------------------------------- traces, timing
def trace_chains(
    input, output, seed: int, model: dict, iterations: int, direct: dict, traces: dict
) -> None:
    """One X and one y (shared), a fresh release per lambda; every draw of the noisy chains and
    of the noise-free chain (as in the author's run-one.R). Burn-in is applied by the readers."""
    rho, lambdas = float(traces["rho"]), [float(v) for v in traces["lambdas"]]
    alg = _Algorithms.of(model, direct)
    lengths = {"burnin": 0, "keep": int(iterations)}
    rec = {"lambdas": np.asarray(lambdas, dtype=float), "rho": np.array(rho)}
    for lam in lambdas:
        name = raim_setting(rho, lam)
        noise = ReleaseNoise.of(rho, lam)
        data = simulate_replicate(seed, f"traces_{name}", 0, noise, alg.truth, "traces")
        chain = alg.noisy(
            data,
            noise,
            rng_for(seed, STUDY, f"traces_{name}", 0, NOISY_STREAM),
            f"traces {name}",
            **lengths,
        )
        rec[f"noisy_{fmt_eps(lam)}"] = chain.draws
    free = alg.free(data, rng_for(seed, STUDY, "traces", 0, FREE_STREAM), **lengths)
    rec["free"] = free.draws
    save_npz(output.chains, **rec)


def timing_run(
    input, output, seed: int, model: dict, iterations: int, direct: dict, timing: dict
) -> None:
    """CPU seconds of one run of Algorithm 2 (split into y's, xi^x's, rest) and of Algorithm 4,
    after a 3-iteration warm-up so numba compilation is not counted."""
    rho, lam = float(timing["rho"]), float(timing["lambda"])
    name, noise, alg = _setting(rho, lam, model, direct)
    stream = (seed, STUDY, f"timing_{name}", 0)
    lengths = {"burnin": 0, "keep": int(iterations)}
    data = simulate_replicate(seed, f"timing_{name}", 0, noise, alg.truth)
    alg.noisy(data, noise, rng_for(*stream, "warmup"), None, burnin=0, keep=3, timed=True)
    chain = alg.noisy(
        data, noise, rng_for(*stream, NOISY_STREAM), f"timing {name}", **lengths, timed=True
    )
    free = alg.free(data, rng_for(*stream, FREE_STREAM), **lengths)
    x = chain.info.detail
    split = {"y": x.cpu_seconds_y, "xi_x": x.cpu_seconds_xi_x, "rest": x.cpu_seconds_rest}
    write_json(
        output.timing,
        {
            "rho": rho,
            "lambda": lam,
            "n": alg.truth.n,
            "iterations": int(iterations),
            **split,
            "total": split["y"] + split["xi_x"] + split["rest"],
            "noise_free": free.info.cpu_seconds,
            "proposals_per_y": float(x.proposals_per_y),
            "proposals_per_xi": float(x.proposals_per_xi),
        },
    )
