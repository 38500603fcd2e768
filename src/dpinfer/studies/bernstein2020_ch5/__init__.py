"""bernstein2020 Chapter 5: private Bayesian linear regression (targets fig5_4 to fig5_9).

Methods Non-Private, Naive, MCMC-Ind and Gibbs-SS-Noisy/Prior/Update, all with the call
signature of :mod:`dpinfer.models.linreg_nig`.

- ``grid``: the synthetic settings and their directory names (pure Python, read by the rule
  file when the workflow is parsed);
- ``run``: simulate, release (:class:`~dpinfer.models.linreg_nig.Release`) and sample; the
  compute steps ``run_synthetic`` (calibration/utility trials of one (n, epsilon) setting) and
  ``run_cirrhosis`` (posterior-predictive PIT values on the cirrhosis data);
- ``summarise``: merges the chunks (``summarise_synthetic``, ``summarise_cirrhosis``) and holds
  the metrics the figures and claims share (KS, coverage, coverage from PIT values);
- ``figures``: one function per figure target (``fig5_4`` ... ``fig5_9``);
- ``paper``: the thesis's checkable claims (step ``claims``); those of the synthetic
  regression (Figs 5.4-5.8) in ``synthetic_claims``, which pairs the thesis's printed settings
  and our paper-scale free choices (``settings.yaml``) with this run's.
"""
