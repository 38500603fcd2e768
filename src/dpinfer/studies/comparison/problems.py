"""The comparison study's two problems: simulate, release, reference posterior, every method.

One trial of a problem at (n, epsilon) returns, per method, the posterior quantile of the true
parameters (calibration), whether the central credible interval covers them, R-hat and bulk ESS
per parameter and CPU seconds (all chains); on accuracy trials also the error of the posterior
mean and sd in reference sds and the MMD^2 of the standardised draws to the reference.

Random streams (``stream(stage)``, keyed by seed, study, experiment, trial, stage): "simulate"
(shared by every epsilon of an n), "release", "reference" and one per method and chain
(:func:`dpinfer.methods.stream_stage`), so adding a method changes no other number.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from ...diagnostics import MmdReference, central_interval, quantile_of_truth, unconverged
from ...methods import method as table_entry
from ...models import expfam
from ...models.expfam_release import release as ch4_release
from ...models.linreg_nig import NIGPrior, NIWPrior, release_statistics, simulate_dataset
from ...models.private_binomial import exact_draws, exact_moments
from ...samplers.pooled import Pooled, run_pooled, thin
from ...samplers.registry import sampler
from .. import nig_methods
from ..nig_specs import nig_chain_spec

__all__ = [
    "PARAMETERS",
    "Reference",
    "binomial_trial",
    "regression_trial",
    "regression_reference",
    "method_record",
]

PARAMETERS = {"binomial": ("theta",), "regression": ("slope", "intercept", "sigma2")}

Stream = Callable[[str], np.random.Generator]
log = logging.getLogger("dpinfer.comparison")


@dataclass(frozen=True)
class Reference:
    """The accuracy reference of one trial: posterior mean and sd per parameter, its draws
    thinned for MMD^2 and standardised by that mean and sd (``mmd``: one
    :class:`~dpinfer.diagnostics.MmdReference` per parameter, bandwidth 1, so its own kernel
    term is computed once for every method), and the reference's own R-hat and bulk ESS (1 and
    the draw count for an exact reference)."""

    mean: np.ndarray
    sd: np.ndarray
    mmd: tuple
    rhat: np.ndarray
    ess: np.ndarray

    @classmethod
    def of(cls, mean, sd, draws, rhat, ess, mmd_draws: int) -> Reference:
        standardised = (thin(draws, mmd_draws) - mean) / sd
        mmd = tuple(MmdReference.of(standardised[:, p], 1.0) for p in range(standardised.shape[1]))
        return cls(mean, sd, mmd, rhat, ess)

    @classmethod
    def of_pooled(cls, pooled: Pooled, mmd_draws: int) -> Reference:
        """The reference of a pooled MCMC run: its draws' mean and sd, its R-hat and ESS."""
        draws = pooled.draws
        return cls.of(
            draws.mean(axis=0), draws.std(axis=0, ddof=1), draws, pooled.rhat, pooled.ess, mmd_draws
        )


def method_record(
    pooled: Pooled, truth, level: float, reference: Reference | None, mmd_draws: int
) -> dict:
    """Per-parameter numbers of one method on one trial (see the module docstring)."""
    draws = pooled.draws
    lo, hi = central_interval(draws, level)
    rec = {
        "u": quantile_of_truth(draws, truth),
        "cover": (lo <= truth) & (truth <= hi),
        "rhat": pooled.rhat,
        "ess": pooled.ess,
        "cpu": pooled.cpu,
    }
    if reference is not None:
        sd = draws.std(axis=0, ddof=1)
        rec["mean_err"] = np.abs(draws.mean(axis=0) - reference.mean) / reference.sd
        rec["sd_err"] = np.abs(sd / reference.sd - 1.0)
        mine = (thin(draws, mmd_draws) - reference.mean) / reference.sd
        rec["mmd"] = np.array([reference.mmd[p].mmd2(mine[:, p]) for p in range(draws.shape[1])])
    return rec


# ----------------------------------------------------------------------------- problem 2: binomial
def binomial_trial(
    n: int,
    epsilon: float,
    settings: dict,
    stream: Stream,
    sim_stream: Stream,
    *,
    accuracy: bool,
    level: float,
    mmd_draws: int,
    health: dict,
) -> tuple[np.ndarray, dict, Reference | None]:
    """theta ~ Beta(prior), s ~ Binomial(n, theta), y = s + Laplace(sensitivity / epsilon): chapter
    4's binomial release (:func:`dpinfer.models.expfam_release.release`), and its
    method names. Every private method sees y; Non-Private sees s. The reference is exact
    (its moments in closed form, ``mmd_draws`` exact draws for MMD^2), so ``health`` (the
    regression reference's stopping rule) is not used."""
    rel = ch4_release("binomial", n, epsilon, settings, sim_stream("simulate"), stream("release"))
    (a, b), mech, y = rel.prior, rel.mechanism, rel.statistics["gibbs"]
    truth = np.array([rel.truth])
    reference = None
    if accuracy:
        mean, sd = exact_moments(y, n, a, b, mech.scale)
        draws = exact_draws(stream("reference"), mmd_draws, y, n, a, b, mech.scale)[:, None]
        reference = Reference.of(
            np.array([mean]),
            np.array([sd]),
            draws,
            np.ones(1),
            np.full(1, float(mmd_draws)),
            mmd_draws,
        )
    records = {}
    for method in settings["methods"]:
        run = sampler("binomial", method)
        stat = rel.statistics["non_private" if method == "non_private" else "gibbs"]
        iid = table_entry(method).iid
        burnin, keep = (0, settings["draws"]) if iid else (settings["burnin"], settings["keep"])
        one = partial(run, expfam.Problem(stat, n, (a, b), mech), burnin=burnin, keep=keep)
        pooled = run_pooled(one, method, 1 if iid else settings["chains"], stream, iid=iid)
        records[method] = method_record(pooled, truth, level, reference, mmd_draws)
    return truth, records, reference


# ---------------------------------------------------------------------------- problem 1: regression
def regression_trial(
    n: int,
    epsilon: float,
    settings: dict,
    stream: Stream,
    sim_stream: Stream,
    *,
    accuracy: bool,
    level: float,
    mmd_draws: int,
    health: dict,
) -> tuple[np.ndarray, dict, Reference | None]:
    """(theta, sigma^2) ~ NIG, x ~ N(mu_x, tau^2) with (mu_x, tau^2) ~ NIW, y | x from the model;
    records clamped to ``bounds`` and the five sufficient statistics released with Laplace
    noise (an epsilon-DP release). The reference is a long MCMC-Ind run that models the clamping
    exactly (:func:`regression_reference`, judged by ``health``)."""
    nig, niw = NIGPrior.from_config(settings["prior"]), NIWPrior.from_config(settings["data_prior"])
    sim = simulate_dataset(sim_stream("simulate"), n, nig, niw)
    release = release_statistics(
        stream("release"), sim["x"], sim["y"], epsilon, tuple(settings["bounds"]), clamp=True
    )
    truth = np.array([sim["theta"][0], sim["theta"][1], sim["sigma2"]])
    reference = None
    if accuracy:
        ref = regression_reference(release, nig, niw, settings["reference"], stream, health)
        reference = Reference.of_pooled(ref, mmd_draws)
    records = {}
    for method in settings["methods"]:
        pooled = nig_methods.pooled_chain(
            nig_chain_spec(method, settings, n), release, nig, niw, stream
        )
        records[method] = method_record(pooled, truth, level, reference, mmd_draws)
    return truth, records, reference


def regression_reference(
    release, nig, niw, spec: dict, stream: Stream, health: dict, model: str = nig_methods.MODEL
) -> Pooled:
    """The regression's reference posterior: MCMC-Ind with ``spec``'s chains, burn-in and
    non-centred moves, keeping ``spec["keep"]`` draws per chain and, while the pooled chains
    fail ``health`` (R-hat above ``max_rhat`` or bulk ESS below ``min_ess``), each length of
    ``spec["longer"]`` in turn. Every try draws from the same streams (``reference_<stage>``),
    so a longer try extends the shorter one's chains; the last try is returned whether or not it
    passes (the summary reports the reference's diagnostics). ``model``: the registry model of
    the release (:data:`~dpinfer.studies.nig_methods.MODEL_P` for p covariates)."""
    for keep in [spec["keep"], *spec.get("longer", [])]:
        chain = nig_chain_spec("mcmc_ind", {"mcmc_ind": dict(spec, keep=keep)})
        ref = nig_methods.pooled_chain(
            chain, release, nig, niw, lambda stage: stream(f"reference_{stage}"), model
        )
        if not unconverged(ref.rhat.max(), ref.ess.min(), **health):
            break
        log.info(
            "reference with %d kept per chain fails the health check (R-hat %.4f, bulk ESS %.0f)",
            keep,
            ref.rhat.max(),
            ref.ess.min(),
        )
    return ref
