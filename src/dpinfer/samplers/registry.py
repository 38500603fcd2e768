"""The one registry: (model, method) -> a sampler, every one called the same way.

The entries are the ``runs`` of :data:`dpinfer.methods.METHODS`, the one method table; each is a
``"module:function"`` that this module imports on first use, so a job that runs one sampler does
not import the others (scipy.stats, the raisa2021 mixtures, ...). ``tests/test_exact_targets.py``
checks every entry against the exact posterior of its target.

The sampler contract: every registered method is called as

    run(problem, rng, *, burnin, keep, **options) -> Chain

with ``problem`` the model's typed record of data, release and prior, ``rng`` the chain's
``np.random.Generator``, ``burnin`` and ``keep`` the rows the chain discards and keeps, and
``options`` the method's own settings. Several chains of one method are pooled above this
contract (:func:`dpinfer.samplers.pooled.run_pooled`). The models and their records:

- ``loglinear``, ``linreg``: :class:`dpinfer.models.naive_bayes.Problem`,
  :class:`dpinfer.models.gaussian_linreg.Problem` (ju2022);
- ``binomial``, ``multinomial``, ``exponential``: :class:`dpinfer.models.expfam.Problem`
  (bernstein2020 chapter 4; the exponential is truncated to the ``bounds`` option);
- ``nig_linreg``: :class:`dpinfer.models.linreg_nig.Problem` (bernstein2020 chapter 5);
- ``nig_linreg_p``: :class:`dpinfer.models.linreg_nig_multi.ProblemP` (the same model with p
  covariates, on a user's own data);
- ``lognormal_regression``: :class:`dpinfer.models.lognormal_regression.Problem` (raim2021);
- ``dp_mcmc``: :class:`dpinfer.models.dp_mcmc.Problem` (raisa2021), with the options ``start``
  (row 0 of the draws) and ``hyper`` (the params-file hyperparameters of the algorithm;
  ``barker`` also reads ``hyper["vcorr"]``, the mixture of
  :func:`dpinfer.models.barker_correction.load_vcorr`; the clipping study's ``rwmh_nondp`` and
  ``hmc_nondp`` read ``clip_bound`` and ``clip_rule``). Its chains discard the first half
  (:func:`dp_chain_lengths` gives ``burnin`` and ``keep`` of an iteration count).

Each model's samplers share one explicit signature (their modules document it); the adapters
below map the contract onto it without changing a draw.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping

from ..methods import METHODS, load, sampler_path

__all__ = ["SAMPLERS", "sampler", "dp_chain_lengths"]


def _released_first(run, problem, rng, burnin, keep, options):
    """ju2022: the released statistic, then the record's other fields as keywords."""
    fields = {f.name: getattr(problem, f.name) for f in dataclasses.fields(problem)}
    released = fields.pop("released")
    return run(released, **fields, burnin=burnin, keep=keep, rng=rng, **options)


def _expfam(run, problem, rng, burnin, keep, options):
    data = (problem.statistic, problem.n, problem.prior, problem.mechanism)
    return run(*data, burnin=burnin, keep=keep, rng=rng, **options)


def _nig(run, problem, rng, burnin, keep, options):
    priors = (problem.prior, problem.data_prior)
    return run(problem.release, *priors, rng, burnin=burnin, keep=keep, **options)


def _lognormal(run, problem, rng, burnin, keep, options):
    data = (problem.y, problem.X, problem.noise)
    return run(*data, burnin=burnin, keep=keep, rng=rng, prior=problem.prior, **options)


def dp_chain_lengths(iterations: int) -> dict[str, int]:
    """``burnin`` and ``keep`` of a raisa2021 chain of ``iterations`` iterations: its draws are
    the start and one row per iteration, and the first half is discarded (the thesis's rule)."""
    from .dp_penalty import burnin_rows  # numba: imported when a dp_mcmc chain is set up

    burnin = burnin_rows(iterations)
    return {"burnin": burnin, "keep": int(iterations) + 1 - burnin}


def _dp_chain(run, problem, rng, burnin, keep, options):
    iterations = int(burnin) + int(keep) - 1
    if dp_chain_lengths(iterations) != {"burnin": burnin, "keep": keep}:
        raise ValueError(
            f"dp_mcmc chains discard the first half of their draws: burnin={burnin}, "
            f"keep={keep} is not dp_chain_lengths({iterations}) = {dp_chain_lengths(iterations)}"
        )
    return run(problem, options["start"], iterations, options["hyper"], rng)


# registry model -> how the contract maps onto its samplers' explicit signature
_ADAPTERS: dict[str, Callable] = {
    "loglinear": _released_first,
    "linreg": _released_first,
    "binomial": _expfam,
    "multinomial": _expfam,
    "exponential": _expfam,
    "nig_linreg": _nig,
    "nig_linreg_p": _nig,
    "lognormal_regression": _lognormal,
    "dp_mcmc": _dp_chain,
}


def _load(model: str, path: str) -> Callable:
    impl = load(path, __package__)
    adapter = _ADAPTERS[model]

    def run(problem, rng, *, burnin: int, keep: int, **options):
        return adapter(impl, problem, rng, burnin, keep, options)

    run.__name__ = run.__qualname__ = impl.__name__
    run.__doc__ = impl.__doc__
    run.implementation = impl
    return run


class _Registry(Mapping):
    """A read-only mapping (model, method) -> contract run function, imported lazily."""

    def __init__(self, paths: dict):
        self._paths = dict(paths)

    def __getitem__(self, key):
        return _load(key[0], self._paths[key])

    def __iter__(self) -> Iterator:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


SAMPLERS = _Registry(
    {(model, m.name): path for m in METHODS.values() for model, path in m.runs.items()}
)


def sampler(model: str, method: str) -> Callable:
    """``run(problem, rng, *, burnin, keep, **options) -> Chain`` of ``method`` on ``model``; a
    clear error for an unknown pair."""
    return _load(model, sampler_path(model, method))
