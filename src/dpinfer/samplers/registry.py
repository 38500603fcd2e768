"""The one registry: (model, method) -> the ``run`` function of a sampler.

The entries are the ``runs`` of :data:`dpinfer.methods.METHODS`, the one method table; this
module imports each sampler module on first use, so a job that runs one sampler does not import
the others (scipy.stats, the raisa2021 mixtures, ...). ``tests/test_exact_targets.py`` checks
every entry against the exact posterior of its target. All methods of one model share one call
signature, documented in the model's module:

- ``loglinear``, ``linreg``: :mod:`dpinfer.models.naive_bayes`,
  :mod:`dpinfer.models.gaussian_linreg` (ju2022);
- ``binomial``, ``multinomial``, ``exponential``: :mod:`dpinfer.models.expfam`
  (bernstein2020 chapter 4; the exponential is truncated to the config's bounds);
- ``nig_linreg``: :mod:`dpinfer.models.linreg_nig` (bernstein2020 chapter 5);
- ``lognormal_regression``: :mod:`dpinfer.models.lognormal_regression` (raim2021);
- ``dp_mcmc``: :mod:`dpinfer.models.dp_mcmc` (raisa2021): ``run(problem, start, iterations,
  hyper, rng) -> Chain`` with the params-file hyperparameters of the algorithm (``barker``
  also reads ``hyper["vcorr"]``, the mixture of :func:`dpinfer.models.barker_correction.load_vcorr`;
  the clipping study's ``rwmh_nondp`` and ``hmc_nondp`` read ``clip_bound`` and ``clip_rule``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module

from ..methods import METHODS, sampler_path

__all__ = ["SAMPLERS", "sampler"]


class _Registry(Mapping):
    """A read-only mapping (model, method) -> run function that imports each module lazily."""

    def __init__(self, paths: dict):
        self._paths = dict(paths)

    def __getitem__(self, key):
        module, name = self._paths[key].split(":")
        return getattr(import_module(f"{__package__}.{module}"), name)

    def __iter__(self) -> Iterator:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


SAMPLERS = _Registry(
    {(model, m.name): path for m in METHODS.values() for model, path in m.runs.items()}
)


def sampler(model: str, method: str):
    """The run function of ``method`` on ``model``; a clear error for an unknown pair."""
    module, name = sampler_path(model, method).split(":")
    return getattr(import_module(f"{__package__}.{module}"), name)
