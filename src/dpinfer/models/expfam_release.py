"""One simulated data set of a bernstein2020 chapter-4 model and its Laplace release.

:func:`release` draws the parameter from the prior and the data from the model, releases the
sufficient statistic through :class:`dpinfer.mechanisms.Laplace`, and records the statistic each
method conditions on (keyed by method name, :mod:`dpinfer.methods`): the noise-aware Gibbs
sampler and Naive see the release, Non-Private and OPS the confidential statistic. Chapter 4 and
the comparison study's binomial problem share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..mechanisms import Laplace
from . import expfam

__all__ = ["Release", "exponential_bounds", "release"]


def exponential_bounds(settings: dict, lam_true: float) -> tuple[float, float]:
    """Truncation [a, b]: central mass of the prior predictive (public) or of Exp(lam_true)
    (oracle)."""
    mass = float(settings["truncation_mass"])
    if settings["truncation"] == "prior_predictive":
        return expfam.prior_predictive_bounds(settings["prior_shape"], settings["prior_rate"], mass)
    if settings["truncation"] == "oracle":
        return expfam.oracle_bounds(lam_true, mass)
    raise ValueError(f"unknown truncation rule {settings['truncation']!r}")


@dataclass(frozen=True)
class Release:
    """One simulated data set and its Laplace release: the statistic each method sees."""

    truth: float  # the calibrated parameter (p_1 for the multinomial)
    prior: object
    mechanism: Laplace
    statistics: dict  # method -> the statistic it conditions on
    gibbs_settings: dict = field(
        default_factory=dict
    )  # release facts the noise-aware sampler needs (bounds)


def release(model: str, n: int, epsilon: float, settings: dict, sim, rel) -> Release:
    """Draw the parameter and data with ``sim``, release with ``rel``.

    Gibbs and Naive see the release y = s + Lap(Delta / epsilon); Non-private and OPS see s.
    For the exponential model s_hat = sum of x_i in [a, b] is released, and Naive "cheats" as
    in the thesis: it sees the untruncated sum plus the *same* noise draw.
    """
    if model == "binomial":
        prior = (float(settings["prior"][0]), float(settings["prior"][1]))
        theta, s = expfam.simulate_binomial(sim, n, *prior)
        mech = Laplace.calibrated(epsilon, float(settings["sensitivity"]))
        y = float(mech.release(rel, s))
        stats = {"gibbs": y, "naive": y, "ops": s, "non_private": s}
        return Release(theta, prior, mech, stats)
    if model == "multinomial":
        k = int(settings["categories"])
        alpha = np.full(k, float(settings["prior_concentration"]))
        p, counts = expfam.simulate_multinomial(sim, n, alpha)
        mech = Laplace.calibrated(epsilon, float(settings["sensitivity"]))
        y = mech.release(rel, counts[: k - 1])
        return Release(
            float(p[0]), alpha, mech, {"gibbs": y, "naive": y, "non_private": counts[: k - 1]}
        )
    if model == "exponential":
        prior = (float(settings["prior_shape"]), float(settings["prior_rate"]))
        lam, x = expfam.simulate_exponential(sim, n, *prior)
        a, b = exponential_bounds(settings, lam)
        mech = Laplace.calibrated(
            epsilon, expfam.truncation_sensitivity(a, b, settings["sensitivity"])
        )
        noise = float(mech.noise(rel))
        total = float(x.sum())
        y = float(x[(x >= a) & (x <= b)].sum()) + noise
        stats = {"gibbs": y, "naive": total + noise, "non_private": total}
        return Release(lam, prior, mech, stats, {"bounds": (a, b)})
    raise ValueError(f"unknown model {model!r}")
