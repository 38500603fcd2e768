"""The comparison study: every noise-aware method on the same release, side by side (issue 15).

No source document compares these methods on one problem. Two problems (:mod:`.problems`):

- ``binomial``: a proportion from one Laplace-noised count (chapter 4's binomial release),
  against its exact posterior (a Beta mixture): exact draws, ju2022's record-wise Algorithm 1,
  chapter 4's noise-aware Gibbs (a CLT for the count), Naive, Non-Private;
- ``regression``: NIG linear regression from Laplace-noised sufficient statistics of clamped
  records (chapter 5's model), against a long run of MCMC-Ind (ju2022's Algorithm 1 for this
  model): MCMC-Ind, the three Gibbs-SS flavours, Naive, Non-Private.

Steps: :mod:`.run` (trials per chunk), :mod:`.summarise` (accuracy, calibration, cost, R-hat
and the recommendation rule), :mod:`.figures`, :mod:`.paper` (scorecard rows).
"""
