"""``dpinfer.posterior``: a release's posteriors from Python, without a config file."""

from __future__ import annotations

from .core import Posterior
from .model_methods import ChainSettings, posteriors
from .spec import release_from_values

__all__ = ["posterior"]


def posterior(
    released,
    *,
    model: str,
    mechanism: dict,
    n: int,
    prior: dict | None = None,
    name: str = "release",
    settings: ChainSettings = ChainSettings(),
    **public,
) -> list[Posterior]:
    """The noise-aware posteriors of ``released`` (values shaped as the model's file format:
    docs/your-release.md), one per method that applies, each with the naive posterior beside it
    and its chains extended until they pass R-hat <= 1.01 and bulk ESS >= 400 (or reported not
    converged at ``settings.max_keep``).

    ``mechanism``: as in the config (``{"kind": "laplace", "scale": 2.0}``, or by epsilon,
    delta and sensitivity); ``n``: the records behind the release; ``prior`` and ``public``
    (``shape``, ``clamp``, ``covariate_mean``, ...) as the config entry's keys. The entry
    ``name`` in ``config/config.yaml`` with the same values and settings gives the same draws.
    """
    entry = dict(public, model=model, mechanism=mechanism, n=n, prior=prior or {})
    return posteriors(release_from_values(name, entry, released), settings)
