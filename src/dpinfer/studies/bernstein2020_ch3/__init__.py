"""bernstein2020 Chapter 3: private learning of pairwise discrete Markov random fields from
Laplace-noised edge contingency tables (targets fig3_1 to fig3_6).

- ``grid``: the cells of the synthetic figures and their file stems (pure Python, read by the
  rule file when the workflow is parsed);
- ``problems``: the true model instances, populations and Laplace releases;
- ``run``: one job per cell of a figure's grid (naive MLE, CGM-EM, PSGD, references);
- ``wifi``: the synthetic mobility data set of fig3_6 (generator, split, 1/K weights,
  holdout log-likelihood); ``wifi_run``: its data job and cells;
- ``summarise``: merges the cells into ``summary.npz`` and the summary / runtime tables;
- ``figures``: one function per figure target; ``paper``: the thesis's checkable claims.
"""
