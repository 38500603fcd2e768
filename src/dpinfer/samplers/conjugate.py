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

Chapter 5 (Section 5.2.2), the NIG linear regression with p covariates (chapter 5's one
covariate as p = 1).

Every function is a registered sampler and takes the contract of
:mod:`dpinfer.samplers.registry`, ``run(problem, rng, *, burnin, keep) -> Chain``, with the
model's record (:class:`dpinfer.models.expfam.Problem`, :class:`dpinfer.models.linreg_nig.Problem`,
:class:`dpinfer.models.linreg_nig_multi.ProblemP`); the release's mechanism and the NIG model's
``data_prior`` are not read (Naive ignores the noise, the non-private posterior has none). Draws
are iid, so ``burnin`` draws are simply the first ones.
"""

from __future__ import annotations

import numpy as np

from ..models import expfam
from ..models.linreg_nig_multi import as_p, nig_draws_p, project_statistics_p
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
    problem: expfam.Problem, rng: np.random.Generator, *, burnin: int, keep: int
) -> Chain:
    """Beta(a + y', b + n - y') with y' = y clipped to [0, n]."""
    y, n = float(problem.statistic), problem.n
    return _beta_chain(min(max(y, 0.0), float(n)), n, problem.prior, burnin, keep, rng)


def run_non_private_binomial(
    problem: expfam.Problem, rng: np.random.Generator, *, burnin: int, keep: int
) -> Chain:
    """Beta(a + s, b + n - s) from the confidential count s."""
    return _beta_chain(float(problem.statistic), problem.n, problem.prior, burnin, keep, rng)


def _all_counts(first, n) -> np.ndarray:
    """The K counts from the first K - 1 and the public n."""
    first = np.asarray(first, dtype=float).ravel()
    return np.append(first, n - first.sum())


def run_naive_multinomial(
    problem: expfam.Problem, rng: np.random.Generator, *, burnin: int, keep: int
) -> Chain:
    """Dirichlet(max(alpha + [y, n - sum y], 1e-3)): the noisy counts as if exact."""
    counts = _all_counts(problem.statistic, problem.n)
    conc = np.maximum(expfam.dirichlet_posterior(problem.prior, counts), DIRICHLET_FLOOR)
    return _iid_chain(lambda size: rng.dirichlet(conc, size=size), burnin, keep)


def run_non_private_multinomial(
    problem: expfam.Problem, rng: np.random.Generator, *, burnin: int, keep: int
) -> Chain:
    """Dirichlet(alpha + [s, n - sum s]) from the confidential first K - 1 counts s."""
    conc = expfam.dirichlet_posterior(problem.prior, _all_counts(problem.statistic, problem.n))
    return _iid_chain(lambda size: rng.dirichlet(conc, size=size), burnin, keep)


def _gamma_chain(statistic, n, prior, burnin, keep, rng):
    shape, rate = expfam.gamma_posterior(float(prior[0]), float(prior[1]), statistic, n)
    return _iid_chain(lambda size: rng.gamma(shape, 1.0 / rate, size=size), burnin, keep)


def run_naive_exponential(
    problem: expfam.Problem, rng: np.random.Generator, *, burnin: int, keep: int
) -> Chain:
    """Gamma(shape + n, rate + max(y, 0)); ``y`` is the noisy *untruncated* sum (the thesis's
    "cheating" Naive, which sees strictly more than the noise-aware sampler)."""
    y = max(float(problem.statistic), 0.0)
    return _gamma_chain(y, problem.n, problem.prior, burnin, keep, rng)


def run_non_private_exponential(
    problem: expfam.Problem, rng: np.random.Generator, *, burnin: int, keep: int
) -> Chain:
    """Gamma(shape + n, rate + s) from the confidential sum s."""
    return _gamma_chain(float(problem.statistic), problem.n, problem.prior, burnin, keep, rng)


# ----------------------------------------------------------------------------- chapter 5
def run_non_private_nig(problem, rng: np.random.Generator, *, burnin: int, keep: int) -> Chain:
    """Non-Private: the NIG posterior given the confidential s (Eq. 5.1), of a
    :class:`~dpinfer.models.linreg_nig_multi.ProblemP` or chapter 5's problem (p = 1,
    :func:`~dpinfer.models.linreg_nig_multi.as_p`); ``data_prior`` is not used."""
    problem = as_p(problem)
    release, prior = problem.release, problem.prior
    n, p = release.n, release.p
    return _iid_chain(lambda size: nig_draws_p(rng, release.s, n, p, prior, size), burnin, keep)


def run_naive_nig(problem, rng: np.random.Generator, *, burnin: int, keep: int) -> Chain:
    """Naive (Sec. 5.2.2): Eq. (5.1) with the full-budget release z in place of s, after
    projecting z to valid statistics (:func:`~dpinfer.models.linreg_nig_multi.project_into`)."""
    problem = as_p(problem)
    release, prior = problem.release, problem.prior
    n, p = release.n, release.p
    z = project_statistics_p(release.z, n, p)
    return _iid_chain(lambda size: nig_draws_p(rng, z, n, p, prior, size), burnin, keep)


def run_exact_binomial(
    problem: expfam.Problem, rng: np.random.Generator, *, burnin: int, keep: int
) -> Chain:
    """Independent draws of the exact posterior of theta given the Laplace release y
    (:mod:`dpinfer.models.private_binomial`: a Beta mixture over the n + 1 counts)."""
    a, b = (float(v) for v in problem.prior)
    y, n, scale = float(problem.statistic), int(problem.n), float(problem.mechanism.scale)
    return _iid_chain(
        lambda size: exact_draws(rng, size, y, n, a, b, scale),
        burnin,
        keep,
    )
