"""From a checked release to its posteriors: every noise-aware method the package has for the
model, each with the naive (noise-ignoring) posterior beside it.

=========== ============================================ ====================================
model       noise-aware methods                          mechanisms
=========== ============================================ ====================================
binomial    exact (enumeration of the latent count)      all four
            gibbs (Ch. 4 noise-aware Gibbs),             Laplace
            record_wise (ju2022 Algorithm 1)
multinomial latent_counts (MCMC on the latent table)     all four
            gibbs (Ch. 4 Algorithm 3, K - 1 cells)       Laplace
loglinear   record_wise (ju2022 Algorithm 1)             all four
linreg      record_wise (ju2022 Algorithm 1)             Laplace, Gaussian (the statistics
                                                         are real: no discrete release)
nig_regr.   mcmc_ind, gibbs_ss_update, gibbs_ss_prior    Laplace, Gaussian (real statistics,
            (chapter 5; :mod:`.nig`)                     as for linreg)
=========== ============================================ ====================================

A model and mechanism pair outside this table is refused before any chain runs, naming both.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..mechanisms import Gaussian, Laplace
from . import counts, regression, tables
from .core import Posterior
from .mechanism_spec import mechanism_of
from .nig import nig_posteriors
from .spec import MODELS, Release, ReleaseError

__all__ = ["ChainSettings", "SUPPORTED", "posteriors"]

# model -> the mechanism records its noise-aware methods accept
SUPPORTED = {
    "binomial": None,  # every mechanism
    "multinomial": None,
    "loglinear": None,
    "linreg": (Laplace, Gaussian),
    "nig_regression": (Laplace, Gaussian),
}


class ChainSettings(NamedTuple):
    """How long the chains run: ``chains`` chains of ``burnin`` + ``keep`` iterations, ``keep``
    doubled on the same streams up to ``max_keep`` until R-hat <= 1.01 and bulk ESS >= 400;
    ``draws`` independent draws of an exact or naive posterior; ``seed`` the config seed."""

    seed: int = 0
    chains: int = 4
    burnin: int = 1000
    keep: int = 1000
    max_keep: int = 32_000
    draws: int = 4000


def posteriors(release: Release, settings: ChainSettings = ChainSettings()) -> list[Posterior]:
    """Every noise-aware posterior of ``release`` (module table), naive draws beside each."""
    if release.model not in MODELS:
        raise ReleaseError(f"release {release.name!r}: unknown model {release.model!r}")
    mechanism = mechanism_of(release.mechanism, where=f"release {release.name!r}: mechanism")
    allowed = SUPPORTED[release.model]
    if allowed is not None and not isinstance(mechanism, allowed):
        kinds = ", ".join(cls.__name__ for cls in allowed)
        raise ReleaseError(
            f"release {release.name!r}: the {release.model} model's samplers take {kinds} noise, "
            f"not {type(mechanism).__name__}"
        )
    s, prior = settings, release.prior
    lengths = dict(chains=s.chains, keep=s.keep, max_keep=s.max_keep, burnin=s.burnin)
    if release.model == "binomial":
        return counts.binomial_posteriors(
            release.values[0],
            release.n,
            mechanism,
            prior=(float(prior["a"]), float(prior["b"])),
            release=release.name,
            seed=s.seed,
            draws=s.draws,
            **lengths,
        )
    if release.model == "multinomial":
        alpha = np.broadcast_to(np.asarray(prior["alpha"], dtype=float), release.values.shape)
        return counts.multinomial_posteriors(
            release.values,
            release.n,
            mechanism,
            prior=np.array(alpha),
            release=release.name,
            seed=s.seed,
            draws=s.draws,
            **lengths,
        )
    if release.model == "nig_regression":
        return nig_posteriors(
            release.values,
            release.n,
            mechanism,
            bounds=release.public["bounds"],
            prior=prior,
            data_prior=release.public["data_prior"],
            release=release.name,
            seed=s.seed,
            draws=s.draws,
            **lengths,
        )
    common = dict(name=release.name, seed=s.seed, naive_draws=s.draws, **lengths)
    if release.model == "loglinear":
        return [
            tables.loglinear_posterior(
                release.values,
                mechanism,
                n_records=release.n,
                prior=float(prior["concentration"]),
                **common,
            )
        ]
    return [
        regression.linreg_posterior(
            release.values,
            mechanism,
            n_records=release.n,
            clamp=release.public["clamp"],
            model=regression.RegressionModel(
                release.public["mean_x"],
                release.public["cov_x"],
                release.public["sigma2"],
                float(prior["tau"]),
            ),
            **common,
        )
    ]
