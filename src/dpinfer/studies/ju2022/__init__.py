"""ju2022: Ju, Awan, Gong, Rao (NeurIPS 2022), data-augmentation MCMC (Algorithm 1).

Steps called by ``workflow/rules/ju2022.smk`` (through :func:`dpinfer.pipeline.run_step`):

- :mod:`.run`: ``run_chunk``, a chunk of replicates of one (experiment, epsilon): confidential
  data (the authors' fixed data set, or a fresh draw from the authors' true parameters), a
  Laplace release, one chain of Algorithm 1, and per-replicate summaries.
- :mod:`.summarise`: ``aggregate`` (chunks -> one file per experiment) and the tables ``tab1``,
  ``tabS1``, ``runtime`` and ``experiments`` (one summary table per configured experiment).
- :mod:`.figures`: ``fig1a``, ``fig1b``, ``fig2``, ``figS1``.
- :mod:`.paper`: the paper's printed numbers and ``claims`` (the unit's scorecard rows).

Not a step: :mod:`.exact_posterior`, the regression's private posterior by importance sampling
from the prior predictive, which checks the converged companion without MCMC (a test and a
command, ``python -m dpinfer.studies.ju2022.exact_posterior``).
"""

__all__ = ["data_files"]


def data_files(data_dir: str) -> dict[str, dict[str, str]]:
    """The authors' files of each model under ``data_dir`` (model -> role -> path); the rule
    file reads them through rule inputs, never a path param."""
    return {
        "loglinear": {
            "parameters": f"{data_dir}/loglinear_datageneratingparameters.json",
            "data": f"{data_dir}/loglinear_notdpdata_N100.json",
        },
        "linreg": {
            "parameters": f"{data_dir}/linearregression_datageneratingparam_N100p2.json",
            "data": f"{data_dir}/linearregression_XY_N100p2.json",
        },
    }
