"""dpinfer: Bayesian inference from differentially private data.

The package holds every piece of logic of the pipeline; the Snakemake rules and scripts only
call it. Modules:

- :mod:`dpinfer.seeding`     per-stage random streams from ``np.random.SeedSequence``
- :mod:`dpinfer.mechanisms`  release mechanisms (Laplace, Gaussian, geometric, clamping)
- :mod:`dpinfer.diagnostics` posterior summaries, coverage, MMD, calibration KS
- :mod:`dpinfer.io`          atomic writes, npz and table helpers
- :mod:`dpinfer.plotting`    one shared figure style
- :mod:`dpinfer.models`      data-generating models and conjugate updates
- :mod:`dpinfer.samplers`    numba kernels, one module per algorithm family
- :mod:`dpinfer.studies`     one module per source document: experiment runners and renderers
- :mod:`dpinfer.releases`    noise-aware posteriors of a release a user holds
  (:func:`dpinfer.posterior`)
"""

__version__ = "0.1.0"


def posterior(released, **kwargs):
    """The noise-aware posteriors of a release: :func:`dpinfer.releases.entry.posterior`
    (imported on first use, so ``import dpinfer`` stays light)."""
    from .releases.entry import posterior as run

    return run(released, **kwargs)
