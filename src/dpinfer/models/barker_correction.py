"""The V_corr correction of the Barker test (raisa2021 Sec. 3.2, after Heikkilä et al. 2019): a
Gaussian mixture V such that N(0, C) + V is approximately Logistic(0, 1).

:func:`load_vcorr` reads the author's mixture (``config/data/raisa2021/vcorr_C2.0_K100.tsv``);
:func:`acceptance_probability` and :func:`correction_density_error` are the exact law of the test
and the fit's error, which the tests and the DP Barker sampler
(:mod:`dpinfer.samplers.dp_barker`) rely on.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.special import ndtr

__all__ = ["load_vcorr", "acceptance_probability", "correction_density_error"]


def load_vcorr(path) -> dict:
    """The V_corr mixture of a TSV with columns component, mean, std, weight; weights
    renormalised to sum 1 (they are stored to 17 digits)."""
    table = np.loadtxt(Path(path), comments="#", delimiter="\t", ndmin=2)
    if table.shape[1] != 4 or table.shape[0] < 1:
        raise ValueError(f"{path}: expected columns component, mean, std, weight")
    means, sds, weights = (np.ascontiguousarray(table[:, k]) for k in (1, 2, 3))
    if not (np.all(sds > 0) and np.all(weights >= 0) and weights.sum() > 0):
        raise ValueError(f"{path}: need positive sds and non-negative weights")
    return {"means": means, "sds": sds, "weights": weights / weights.sum()}


def acceptance_probability(
    lam, vcorr: dict, total_variance: float = 2.0, batch_variance: float = 0.0
):
    """Exact P(lambda + N(0, C - sigma_b^2) + V_corr > 0) for fixed lambda (and a Gaussian
    batch error of variance sigma_b^2 already in lambda: pass it to get the test's own law)."""
    lam = np.asarray(lam, float)[..., None]
    scale = np.sqrt(total_variance - batch_variance + vcorr["sds"] ** 2)
    return (vcorr["weights"] * ndtr((lam + vcorr["means"]) / scale)).sum(axis=-1)


def correction_density_error(
    vcorr: dict, total_variance: float = 2.0, half_width: float = 10.0, points: int = 2001
) -> float:
    """max |density of N(0, C) + V_corr - logistic density| on [-half_width, half_width]."""
    x = np.linspace(-half_width, half_width, points)[:, None]
    var = total_variance + vcorr["sds"] ** 2
    mix = (
        vcorr["weights"] * np.exp(-0.5 * (x - vcorr["means"]) ** 2 / var) / np.sqrt(2 * np.pi * var)
    ).sum(axis=1)
    logistic = 0.25 / np.cosh(0.5 * x[:, 0]) ** 2
    return float(np.abs(mix - logistic).max())
