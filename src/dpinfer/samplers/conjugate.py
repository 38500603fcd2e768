"""Conjugate baselines of bernstein2020: Naive and Non-Private, iid draws from a conjugate
posterior.

Chapter 4 (Section 4.4.1; Conjugate-Update, Appendix B.1.1), binomial, multinomial and
exponential models:

- ``naive`` treats the released statistic as if it were exact (Foulds et al. 2016; Zhang et
  al. 2016), with the released code's guards: the binomial count clipped to [0, n], the
  Dirichlet parameters floored at 1e-3, the exponential sum floored at 0. For the truncated
  exponential model it "cheats" as in the thesis: its ``statistic`` is the *untruncated* sum plus
  the same noise draw, which the caller forms.
- ``non_private`` conditions on the confidential statistic s.
- ``exact`` (binomial only): independent draws of the exact posterior given the Laplace release,
  a Beta mixture over the n + 1 counts (:mod:`dpinfer.models.private_binomial`).

They share the call signature of the noise-aware samplers of the same model
(:mod:`.noise_aware_gibbs`)::

    run(statistic, n, prior, mechanism, *, burnin, keep, rng) -> Chain

``mechanism`` is accepted for that shared signature and not read (Naive ignores the noise, the
non-private posterior has none). Draws are iid, so ``burnin`` draws are simply the first ones.

Chapter 5 (Section 5.2.2), the NIG linear regression, with the signature of its other methods
(:mod:`dpinfer.models.linreg_nig`)::

    run(release, prior, data_prior, rng, *, burnin, keep) -> Chain
"""

from __future__ import annotations

import numpy as np

from ..models import expfam
from ..models.linreg_nig import NIGPrior, NIWPrior, Release, nig_draws, project_statistics
from ..models.linreg_nig_multi import NIWPriorP, ReleaseP, nig_draws_p, project_statistics_p
from ..models.private_binomial import exact_draws
from .base import Chain, CpuTimer, Info, check_lengths

__all__ = [
    "run_naive_binomial",
    "run_non_private_binomial",
    "run_naive_multinomial",
    "run_non_private_multinomial",
    "run_naive_exponential",
    "run_non_private_exponential",
    "run_non_private_nig",
    "run_naive_nig",
    "run_non_private_nig_p",
    "run_naive_nig_p",
    "run_exact_binomial",
]

DIRICHLET_FLOOR = 1e-3  # the released code's floor on the naive Dirichlet parameters


def _iid_chain(draw, burnin: int, keep: int) -> Chain:
    burnin, keep = check_lengths(burnin, keep)
    with CpuTimer() as timer:
        draws = draw(burnin + keep)
    if draws.ndim == 1:
        draws = draws[:, None]
    return Chain(draws, burnin, Info(cpu_seconds=timer.seconds, iterations=burnin + keep))


def _beta_chain(statistic, n, prior, burnin, keep, rng):
    a, b = expfam.beta_posterior(float(prior[0]), float(prior[1]), statistic, n)
    return _iid_chain(lambda size: rng.beta(a, b, size=size), burnin, keep)


def run_naive_binomial(
    y: float, n: int, prior, mechanism=None, *, burnin: int, keep: int, rng: np.random.Generator
) -> Chain:
    """Beta(a + y', b + n - y') with y' = y clipped to [0, n]."""
    return _beta_chain(min(max(float(y), 0.0), float(n)), n, prior, burnin, keep, rng)


def run_non_private_binomial(
    s: float, n: int, prior, mechanism=None, *, burnin: int, keep: int, rng: np.random.Generator
) -> Chain:
    """Beta(a + s, b + n - s) from the confidential count s."""
    return _beta_chain(float(s), n, prior, burnin, keep, rng)


def _all_counts(first, n) -> np.ndarray:
    """The K counts from the first K - 1 and the public n."""
    first = np.asarray(first, dtype=float).ravel()
    return np.append(first, n - first.sum())


def run_naive_multinomial(
    y, n: int, prior, mechanism=None, *, burnin: int, keep: int, rng: np.random.Generator
) -> Chain:
    """Dirichlet(max(alpha + [y, n - sum y], 1e-3)): the noisy counts as if exact."""
    conc = np.maximum(expfam.dirichlet_posterior(prior, _all_counts(y, n)), DIRICHLET_FLOOR)
    return _iid_chain(lambda size: rng.dirichlet(conc, size=size), burnin, keep)


def run_non_private_multinomial(
    s, n: int, prior, mechanism=None, *, burnin: int, keep: int, rng: np.random.Generator
) -> Chain:
    """Dirichlet(alpha + [s, n - sum s]) from the confidential first K - 1 counts s."""
    conc = expfam.dirichlet_posterior(prior, _all_counts(s, n))
    return _iid_chain(lambda size: rng.dirichlet(conc, size=size), burnin, keep)


def _gamma_chain(statistic, n, prior, burnin, keep, rng):
    shape, rate = expfam.gamma_posterior(float(prior[0]), float(prior[1]), statistic, n)
    return _iid_chain(lambda size: rng.gamma(shape, 1.0 / rate, size=size), burnin, keep)


def run_naive_exponential(
    y: float, n: int, prior, mechanism=None, *, burnin: int, keep: int, rng: np.random.Generator
) -> Chain:
    """Gamma(shape + n, rate + max(y, 0)); ``y`` is the noisy *untruncated* sum (the thesis's
    "cheating" Naive, which sees strictly more than the noise-aware sampler)."""
    return _gamma_chain(max(float(y), 0.0), n, prior, burnin, keep, rng)


def run_non_private_exponential(
    s: float, n: int, prior, mechanism=None, *, burnin: int, keep: int, rng: np.random.Generator
) -> Chain:
    """Gamma(shape + n, rate + s) from the confidential sum s."""
    return _gamma_chain(float(s), n, prior, burnin, keep, rng)


# ----------------------------------------------------------------------------- chapter 5
def run_non_private_nig(
    release: Release, prior: NIGPrior, data_prior: NIWPrior, rng, *, burnin: int, keep: int
) -> Chain:
    """Non-Private: the NIG posterior given the confidential s (Eq. 5.1); ``data_prior`` is not
    used (uniform signature)."""
    return _iid_chain(lambda size: nig_draws(rng, release.s, release.n, prior, size), burnin, keep)


def run_naive_nig(
    release: Release, prior: NIGPrior, data_prior: NIWPrior, rng, *, burnin: int, keep: int
) -> Chain:
    """Naive (Sec. 5.2.2): Eq. (5.1) with the full-budget release z in place of s, after
    projecting z to valid statistics (:func:`~dpinfer.models.linreg_nig.project_statistics`)."""
    z = project_statistics(release.z, release.n)
    return _iid_chain(lambda size: nig_draws(rng, z, release.n, prior, size), burnin, keep)


def run_non_private_nig_p(
    release: ReleaseP, prior: NIGPrior, data_prior: NIWPriorP, rng, *, burnin: int, keep: int
) -> Chain:
    """Non-Private with p covariates (:mod:`dpinfer.models.linreg_nig_multi`): the NIG posterior
    given the confidential s; ``data_prior`` is not used (uniform signature)."""
    n, p = release.n, release.p
    return _iid_chain(lambda size: nig_draws_p(rng, release.s, n, p, prior, size), burnin, keep)


def run_naive_nig_p(
    release: ReleaseP, prior: NIGPrior, data_prior: NIWPriorP, rng, *, burnin: int, keep: int
) -> Chain:
    """Naive with p covariates: the NIG posterior given the projected full-budget release z."""
    n, p = release.n, release.p
    z = project_statistics_p(release.z, n, p)
    return _iid_chain(lambda size: nig_draws_p(rng, z, n, p, prior, size), burnin, keep)


def run_exact_binomial(
    y: float, n: int, prior, mechanism, *, burnin: int, keep: int, rng: np.random.Generator
) -> Chain:
    """Independent draws of the exact posterior of theta given the Laplace release y
    (:mod:`dpinfer.models.private_binomial`: a Beta mixture over the n + 1 counts)."""
    a, b = (float(v) for v in prior)
    return _iid_chain(
        lambda size: exact_draws(rng, size, float(y), int(n), a, b, float(mechanism.scale)),
        burnin,
        keep,
    )
