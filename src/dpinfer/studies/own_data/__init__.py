"""Your own data: which private method should I use on my data set, and what does it give?

The comparison study answers "which method?" on simulated problems; this study answers it on a
data set the user names in the config (``own_data.datasets``: a CSV file or a data set an
installed package ships, its response and covariates, and the public bounds of each column).
Per data set and epsilon, ``trials`` independent releases of the same confidential records:
every method's posterior (NIG linear regression with p covariates,
:mod:`dpinfer.models.linreg_nig_multi`), its accuracy against a long MCMC-Ind reference, its
distance from the non-private posterior (what the user loses to privacy), the coverage of the
non-private estimate, R-hat and ESS behind every number, effective samples per CPU second, and
the comparison study's recommendation rule without its calibration check (a data set has no
known truth).

Steps: :mod:`.run` (trials per chunk), :mod:`.summarise` (tables and the recommendation),
:mod:`.figures` (one figure per data set). Every job loads the records itself through
:func:`dpinfer.own_data.load`; no job writes a record, a raw value or a non-private statistic
(the sums, the non-private posterior) to a results file or a log.
"""
