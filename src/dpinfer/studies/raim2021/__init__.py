"""raim2021: direct sampling in lognormal regression with disclosure-avoidance noise (Raim,
Census CSRM seminar 2021). Targets knots, error_bound, step_function, traces, mse_densities,
timing.

- :mod:`.grid`: the (rho, lambda) setting names (pure Python, read by the rule file when the
  workflow is parsed);
- :mod:`.run`: the compute steps: envelopes of the slides' examples, Gibbs chunks (simulate,
  release through the mechanism records, Algorithms 2 and 4), the trace chains, the timed run;
- :mod:`.summarise`: the MSE chunks gathered per setting, the ``timing`` table;
- :mod:`.figures`: one function per figure target;
- ``settings.yaml``: the slides' printed settings (what each claim's value refers to, and where
  the ``timing`` table prints the slides' seconds), read by
  :func:`dpinfer.studies.document_settings.document`;
- :mod:`.paper`: the slides' printed numbers, the package reference values and the claims.

Random streams (dpinfer.seeding.rng_for, study "raim2021"): the design X of a setting comes
from (setting, 0, "design") and is fixed over the replicates (as in the author's sim-setup.R);
y from (setting, rep, "simulate"); noise from (setting, rep, "release"); the two chains from
(setting, rep, "sample") and (setting, rep, "sample_free").
"""
