"""bernstein2020 Chapter 4: noise-aware Gibbs samplers over sufficient statistics for
exponential families (targets fig4_2, fig4_3, fig4_4, figB_1).

- ``grid``: the seed-key name of one calibration setting (pure Python);
- ``run``: simulate, release (Laplace records of :mod:`dpinfer.mechanisms`) and sample; the
  compute steps ``run_chunk`` (calibration trials) and ``run_traces`` (fig B.1 chains);
- ``summarise``: merges the chunks into ``summary.npz`` and the calibration/utility table;
- ``figures``: one function per figure target (``fig4_2``, ``fig4_3``, ``fig4_4``, ``figB_1``);
- ``settings``: the thesis's printed settings and our paper-scale free choices, beside this
  run's (what each claim's value refers to);
- ``paper``: the thesis's checkable claims (step ``claims``).
"""
