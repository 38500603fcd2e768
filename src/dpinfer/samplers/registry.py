"""The one registry: (model, method) -> the ``run`` function of a sampler.

Config names of methods (``ju2022.<model>.sampler``, ``bernstein2020.chapter5.methods``) are
looked up here, and ``tests/test_exact_targets.py`` checks every entry against the exact
posterior of its target. All methods of one model share one call signature, documented in the
model's module:

- ``naive_bayes_loglinear``, ``clamped_linreg``: :mod:`dpinfer.models.naive_bayes`,
  :mod:`dpinfer.models.gaussian_linreg` (ju2022);
- ``binomial``, ``multinomial``, ``truncated_exponential``: :mod:`dpinfer.models.expfam`
  (bernstein2020 chapter 4);
- ``nig_linreg``: :mod:`dpinfer.models.linreg_nig` (bernstein2020 chapter 5);
- ``lognormal_regression``: :mod:`dpinfer.models.lognormal_regression` (raim2021);
- ``dp_mcmc``: :mod:`dpinfer.models.dp_mcmc` (raisa2021): ``run(problem, start, iterations,
  hyper, rng) -> Chain`` with the params-file hyperparameters of the algorithm (``barker``
  also reads ``hyper["vcorr"]``, the mixture of :func:`dpinfer.samplers.dp_barker.load_vcorr`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module

__all__ = ["SAMPLERS", "sampler"]

# (model, method) -> "module:function" within dpinfer.samplers; imported on first use, so a job
# that runs one sampler does not import the others (scipy.stats, the raisa2021 mixtures, ...)
_PATHS = {
    ("naive_bayes_loglinear", "privacy_aware_gibbs"): "data_augmentation:run_loglinear",
    ("clamped_linreg", "privacy_aware_gibbs"): "data_augmentation:run_linreg",
    ("binomial", "noise_aware_gibbs"): "noise_aware_gibbs:run_binomial",
    ("binomial", "ops"): "ops:run_ops_binomial",
    ("binomial", "naive"): "conjugate:run_naive_binomial",
    ("binomial", "non_private"): "conjugate:run_non_private_binomial",
    ("binomial", "exact"): "conjugate:run_exact_binomial",
    ("binomial", "record_wise"): "record_wise_binomial:run_record_wise_binomial",
    ("multinomial", "noise_aware_gibbs"): "noise_aware_gibbs:run_multinomial",
    ("multinomial", "naive"): "conjugate:run_naive_multinomial",
    ("multinomial", "non_private"): "conjugate:run_non_private_multinomial",
    ("truncated_exponential", "noise_aware_gibbs"): "noise_aware_gibbs:run_truncated_exponential",
    ("truncated_exponential", "naive"): "conjugate:run_naive_exponential",
    ("truncated_exponential", "non_private"): "conjugate:run_non_private_exponential",
    ("nig_linreg", "non_private"): "conjugate:run_non_private_nig",
    ("nig_linreg", "naive"): "conjugate:run_naive_nig",
    ("nig_linreg", "mcmc_ind"): "mcmc_ind:run_mcmc_ind",
    ("nig_linreg", "gibbs_ss_noisy"): "gibbs_ss:run_gibbs_ss_noisy",
    ("nig_linreg", "gibbs_ss_prior"): "gibbs_ss:run_gibbs_ss_prior",
    ("nig_linreg", "gibbs_ss_update"): "gibbs_ss:run_gibbs_ss_update",
    ("lognormal_regression", "noise_aware_gibbs"): "lognormal_gibbs:run_noisy",
    ("lognormal_regression", "non_private"): "lognormal_gibbs:run_noise_free",
    ("dp_mcmc", "dpps"): "dp_penalty:run_dpps",
    ("dp_mcmc", "dppa"): "dp_penalty:run_dppa",
    ("dp_mcmc", "hmc"): "dp_hmc:run_hmc",
    ("dp_mcmc", "mdpps"): "dp_minibatch:run_mdpps",
    ("dp_mcmc", "mdppa"): "dp_minibatch:run_mdppa",
    ("dp_mcmc", "barker"): "dp_barker:run_barker",
}


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


SAMPLERS = _Registry(_PATHS)


def sampler(model: str, method: str):
    """The run function of ``method`` on ``model``; a clear error for an unknown pair."""
    try:
        return SAMPLERS[(model, method)]
    except KeyError:
        known = sorted(m for mod, m in SAMPLERS if mod == model)
        raise ValueError(f"no sampler {method!r} for model {model!r}; known: {known}") from None
