"""raisa2021: differentially private MCMC (Räisä, MSc thesis, Helsinki 2021). Targets tab5_1,
fig5_1, fig6_1, fig4_1, fig6_2, fig6_3, fig6_4, fig6_5, fig6_6, fig6_7, fig6_8.

- :mod:`.settings`: the author's hyperparameters (``config/data/raisa2021/params.yaml``) as the
  rules read them at parse time: thesis-text ("seed") or final version, model specs, counts;
- :mod:`.run`: the compute steps: a model's reference sample, baselines and start points; the
  chains of one (model, algorithm, epsilon); the accountant curves of Fig 6.1; the trajectory
  of Fig 4.1;
- :mod:`.clipping`: the non-DP clipping study of Fig 6.2 (reference, chains of one sampler x
  dimension x bound, their summary);
- :mod:`.summarise`: every chain setting gathered into one table; Table 5.1 (the thesis's
  settings are ``settings.yaml``: what each scorecard row's value refers to; the tables print
  them too);
- :mod:`.figures`: one function per figure target;
- :mod:`.paper`: the thesis's checkable statements (scorecard rows); those on the DP chains of
  Section 6.3 in :mod:`.chain_claims`.

Random streams (dpinfer.seeding.rng_for, study "raisa2021"): data (model, 0, "simulate");
reference draws (model, 0, "reference"); baseline samples (model, b, "baseline"); chain start i
(model, i, "start"), shared by every algorithm and epsilon as in the thesis; chain i of a
setting (``<model>/<algo>/eps<eps>``, i, "sample"); its MMD bandwidth (same, i, "mmd"). The
clipping study's models are ``clipping-d<dim>`` and its settings
``clipping/<sampler>/d<dim>/bound<bound>``.
"""
