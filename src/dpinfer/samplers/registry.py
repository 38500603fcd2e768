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
- ``dp_mcmc``: :class:`dpinfer.models.dp_mcmc.Problem` (raisa2021), with the option ``start``
  (row 0 of the draws) and the algorithm's hyperparameters under the params file's own names
  (``barker`` also takes ``vcorr``, the mixture of
  :func:`dpinfer.models.barker_correction.load_vcorr`); :func:`options_of` picks them from a
  params-file entry. Its chains discard the first half (:func:`dp_chain_lengths` gives ``burnin``
  and ``keep`` of an iteration count).

The registered function itself has this signature, its options keyword-only with their types
and defaults (``tests/test_methods.py`` inspects each one): no adapter stands between a study
and a sampler.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping

from ..methods import METHODS, load, sampler_path

__all__ = ["SAMPLERS", "sampler", "dp_chain_lengths", "options_of"]


def dp_chain_lengths(iterations: int) -> dict[str, int]:
    """``burnin`` and ``keep`` of a raisa2021 chain of ``iterations`` iterations: its draws are
    the start and one row per iteration, and the first half is discarded (the thesis's rule)."""
    from .dp_penalty import burnin_rows  # numba: imported when a dp_mcmc chain is set up

    burnin = burnin_rows(iterations)
    return {"burnin": burnin, "keep": int(iterations) + 1 - burnin}


_CONTRACT = ("burnin", "keep")  # the keyword-only arguments every sampler takes


def options_of(run: Callable, settings: Mapping) -> dict:
    """The entries of ``settings`` (a params file's hyperparameters, say) that are options of
    ``run``: its keyword-only arguments other than ``burnin`` and ``keep``, by name."""
    names = {
        p.name
        for p in inspect.signature(run).parameters.values()
        if p.kind is p.KEYWORD_ONLY and p.name not in _CONTRACT
    }
    return {k: v for k, v in settings.items() if k in names}


class _Registry(Mapping):
    """A read-only mapping (model, method) -> contract run function, imported lazily."""

    def __init__(self, paths: dict):
        self._paths = dict(paths)

    def __getitem__(self, key):
        return load(self._paths[key], __package__)

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
    return load(sampler_path(model, method), __package__)
