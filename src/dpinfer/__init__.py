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
"""

__version__ = "0.1.0"
