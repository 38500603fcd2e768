"""Point estimators for the pairwise MRFs of Chapter 3 of bernstein2020 (a family; not samplers).

Modules:

- :mod:`dpinfer.estimators.fit`: the :class:`Fit` record every estimator returns (flat theta,
  iteration count, convergence flag, objective trace, CPU seconds).
- :mod:`dpinfer.estimators.mle`: regularised maximum likelihood on (pseudo-)sufficient statistics:
  naive MLE on noisy tables with optional simplex projection (Section 3.2.3), non-private MLE on
  the true tables, and the "random" reference estimator; plus the Duchi et al. (2008) projection.
- :mod:`dpinfer.estimators.cgm`: collective-graphical-model EM (Algorithm 2) around non-linear
  belief propagation (Algorithm 1) for Laplace-noised edge tables.
- :mod:`dpinfer.estimators.psgd`: DP-SGD (Abadi et al. 2016) on the records, with its RDP
  accountant.

The models and inference they call are in :mod:`dpinfer.models.pairwise_mrf` and
:mod:`dpinfer.models.mrf_inference`. A method's estimator is named in the method table
(:data:`dpinfer.methods.METHODS`, its ``fits``); :func:`estimator` imports it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..methods import estimator_path, load

__all__ = ["estimator"]


def estimator(name: str) -> Callable:
    """The point estimator of method ``name`` (chapter 3), as the method table names it."""
    return load(estimator_path(name), __name__)
