"""bernstein2020 Sec. 5.4: the social-mobility case study, private regression of adult income
rank on parental income rank per census tract (targets fig5_10 to fig5_16).

- ``grid``: the tract ranges of the batch jobs and their chain specs (pure Python, read by
  the rule file when the workflow is parsed);
- ``tracts``: the synthetic state (the thesis's tract data are not public) and its filter;
- ``oi``: the OI baseline (per-tract OLS, one noisy prediction, maximum observed sensitivity);
- ``run``: the state, the Non-Private/OLS reference, and one job per (epsilon, tract range);
- ``summarise``: merges the batches into ``summary.npz`` and the summary / state / runtime tables;
- ``figures``: one function per figure target; ``paper``: the thesis's checkable claims.
"""
