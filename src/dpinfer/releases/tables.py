"""A released multi-way table under the naive-Bayes log-linear model (ju2022, Sec. 4).

The release: K tables m[k, j, i] (feature k at level j in class i; K features, J levels, I
classes), every cell with independent noise, the count of records N public. The noise-aware
posterior of the class probabilities p is ju2022's Algorithm 1
(:func:`dpinfer.samplers.data_augmentation.run_loglinear`, method ``record_wise``), run on
independent chains extended until they pass the diagnostics
(:func:`dpinfer.releases.core.run_until_converged`).

Mechanisms: Laplace by its scale, or by (epsilon, sensitivity) with scale = sensitivity /
epsilon; ju2022 uses sensitivity 2K (one changed record moves one unit between two cells of each
of the K tables: :func:`dpinfer.models.naive_bayes.sensitivity_l1`); Gaussian by its sd. A
discrete release of integer counts is served by the same sampler (:func:`noise_law`): the mass
of a discrete Laplace (double geometric), exp(-|k| / t), or of a discrete Gaussian,
exp(-k^2 / (2 sigma^2)), at integer noise has the density ratios of Laplace(t) or N(0, sigma^2),
which are all Algorithm 1's acceptance step reads (the normalisers cancel), so the posterior is
the same as with the continuous law.

Prior: Dirichlet(alpha_p) on p and Dirichlet(alpha[k, :, i]) on each class-conditional
distribution; by default every parameter is 2, as in ju2022 (``prior_concentration``).

Naive (noise-ignoring) posterior: Dirichlet(alpha_p + n_hat) with n_hat the class counts read off
the released tables as if they were exact: each cell clipped at 0, each table summed over its
levels, and the K tables' class counts averaged (each is an estimate of the same counts), the
Dirichlet parameters floored as the package's other naive posteriors
(:data:`dpinfer.samplers.conjugate.DIRICHLET_FLOOR`). The ju2022 study has no naive method; its
non-private reference is this Dirichlet on the confidential counts
(:func:`dpinfer.models.naive_bayes.posterior_mean_p`).

:func:`dpinfer.releases.core.converged_chains` runs the chains (of every model of this
package).

Worked example (:func:`dpinfer.releases.formats.tables_from_ju2022`): the noisy tables the
ju2022 authors' script
creates for replicate 1 at each epsilon, ``config/data/ju2022/derived_loglinear_privatized_
tables_iexp1.json``: objects ``mijk_noiselevel<L>_eps<E>``, each a (5, 3, 5) table
``values[k][j][i]``, Laplace scale 2K / E = 10 / E, N = 100 (the ``N`` of the authors'
``loglinear_datageneratingparameters.json``).
"""

from __future__ import annotations

import math

import numpy as np

from ..mechanisms import DiscreteGaussian, DoubleGeometric, Gaussian, Laplace
from ..models import naive_bayes
from ..samplers.conjugate import DIRICHLET_FLOOR
from .core import Posterior, Streams, chain_rngs, converged_chains

__all__ = [
    "METHOD",
    "TableError",
    "noise_law",
    "dirichlet_prior",
    "naive_class_counts",
    "loglinear_posterior",
]

METHOD = "record_wise"  # ju2022's Algorithm 1 (dpinfer.methods.METHODS)


class TableError(ValueError):
    """A table release the model cannot take; the message names the release and never a value."""


def noise_law(mechanism, released: np.ndarray, where: str) -> tuple[str, float]:
    """(noise, scale) of the continuous law whose density ratios Algorithm 1 reads for
    ``mechanism`` (a Problem's ``noise`` and ``scale``): ("laplace", b) of a Laplace,
    ("gaussian", sigma) of a Gaussian, and on integer statistics ("laplace", t = -1 / log(1 -
    rho)) of a discrete Laplace (double geometric) or ("gaussian", sigma) of a discrete
    Gaussian. ``where`` names the release in messages."""
    if isinstance(mechanism, Laplace):
        return "laplace", float(mechanism.scale)
    if isinstance(mechanism, Gaussian):
        return "gaussian", float(mechanism.sigma)
    if isinstance(mechanism, (DoubleGeometric, DiscreteGaussian)):
        if not np.all(released == np.round(released)):
            bad = int(np.sum(released != np.round(released)))
            raise TableError(
                f"{where}: a {type(mechanism).__name__} release must hold integers "
                f"({bad} values do not)"
            )
        if isinstance(mechanism, DoubleGeometric):
            return "laplace", -1.0 / math.log1p(-float(mechanism.rho))
        return "gaussian", float(mechanism.sigma)
    raise TableError(
        f"{where}: Algorithm 1 takes a Laplace, Gaussian, discrete Laplace or discrete Gaussian "
        f"mechanism, not {type(mechanism).__name__}"
    )


def dirichlet_prior(shape: tuple[int, int, int], prior) -> tuple[np.ndarray, np.ndarray]:
    """(alpha_p (I,), alpha (K, J, I)) from ``prior``: one concentration for every parameter
    (ju2022: 2), or the pair of arrays itself."""
    K, J, I = shape
    if np.isscalar(prior):
        return np.full(I, float(prior)), np.full((K, J, I), float(prior))
    alpha_p, alpha = (np.asarray(a, dtype=float) for a in prior)
    if alpha_p.shape != (I,) or alpha.shape != (K, J, I):
        raise TableError(f"the prior must be ({I},) and ({K}, {J}, {I}) for these tables")
    return alpha_p, alpha


def naive_class_counts(released: np.ndarray) -> np.ndarray:
    """Class counts (I,) read off noisy (K, J, I) tables as if exact: cells clipped at 0, each
    table summed over its levels, the K tables' counts averaged."""
    return np.clip(released, 0.0, None).sum(axis=1).mean(axis=0)


def loglinear_posterior(
    released,
    mechanism,
    *,
    n_records: int,
    name: str,
    seed: int,
    prior=2.0,
    chains: int = 4,
    burnin: int = 1000,
    keep: int = 1000,
    max_keep: int = 32_000,
    naive_draws: int = 4000,
    streams: Streams | None = None,
) -> Posterior:
    """The posterior of the class probabilities p given noisy tables ``released`` (K, J, I) of
    ``n_records`` records under ``mechanism`` (a :mod:`dpinfer.mechanisms` record, e.g. from
    :func:`dpinfer.releases.mechanism_spec.mechanism_of`).

    ``prior``: a Dirichlet concentration for every parameter, or (alpha_p, alpha)
    (:func:`dirichlet_prior`). ``chains`` chains of ``burnin`` + ``keep`` sweeps, ``keep``
    doubled up to ``max_keep`` until R-hat <= 1.01 and bulk ESS >= 400. Streams: one generator
    per chain from (``seed``, release ``name``, method, chain) (:func:`~.core.chain_rngs`),
    or ``streams`` (a test runs the ju2022 study's). ``naive_draws`` iid draws of the naive
    posterior (module docstring) on the stream of method ``naive``.
    """
    where = f"release {name!r}"
    released = np.asarray(released, dtype=float)
    if released.ndim != 3 or min(released.shape) < 1:
        raise TableError(f"{where}: the tables must be (K features, J levels, I classes)")
    if not np.all(np.isfinite(released)):
        raise TableError(f"{where}: {int(np.sum(~np.isfinite(released)))} cells are not finite")
    if int(n_records) != n_records or n_records < 1:
        raise TableError(f"{where}: n_records must be a positive integer")
    noise, scale = noise_law(mechanism, released, where)
    alpha_p, alpha = dirichlet_prior(released.shape, prior)
    problem = naive_bayes.Problem(released, scale, alpha_p, alpha, int(n_records), noise)
    if streams is None:
        streams = lambda: chain_rngs(seed, name, METHOD, chains)  # noqa: E731
    draws, rhat, ess, converged, keep, seconds = converged_chains(
        "loglinear", METHOD, problem, streams, burnin=burnin, keep=keep, max_keep=max_keep
    )
    conc = np.maximum(alpha_p + naive_class_counts(released), DIRICHLET_FLOOR)
    naive = chain_rngs(seed, name, "naive", 1)[0].dirichlet(conc, size=int(naive_draws))
    return Posterior(
        model="loglinear",
        method=METHOD,
        parameters=tuple(f"p[{i}]" for i in range(released.shape[2])),
        chains=draws,
        rhat=rhat,
        ess=ess,
        converged=converged,
        keep=keep,
        naive=naive,
        seconds=seconds,
    )
