"""Samplers: one module per algorithm family, numba kernels inside.

``SAMPLERS`` maps the config name of a (study, model) sampler to its public ``run`` function.
"""

from .data_augmentation import run_linreg, run_loglinear

SAMPLERS = {
    ("ju2022", "loglinear", "privacy_aware_gibbs"): run_loglinear,
    ("ju2022", "linreg", "privacy_aware_gibbs"): run_linreg,
}

__all__ = ["SAMPLERS"]
