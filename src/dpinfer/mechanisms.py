"""Release mechanisms: calibrated noise, releases and log-densities.

Each mechanism is a small frozen record (one documented class per mechanism) with

- ``scale``: the noise scale calibrated from the privacy parameters and the sensitivity,
- ``release(rng, statistic)``: the statistic plus fresh noise drawn from ``rng``,
- ``logpdf(noise)``: the log-density (or log-mass) of the noise, elementwise.

Sensitivities are global sensitivities of the released statistic under the neighbouring relation
stated in each docstring; the caller computes them for its statistic. :class:`ClampRescale` is
the data-independent clamping step that makes a sensitivity finite.

Module-level ``@njit`` scalar kernels (``laplace_logpdf`` ...) are what the samplers call in
their inner loops.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = [
    "Laplace",
    "Gaussian",
    "DoubleGeometric",
    "DiscreteGaussian",
    "ClampRescale",
    "MECHANISMS",
    "make_mechanism",
    "laplace_logpdf",
    "gaussian_logpdf",
    "double_geometric_logpmf",
]

_LOG2 = math.log(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _positive(name: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite positive number, got {value!r}")
    return value


# ----------------------------------------------------------------------------- scalar kernels
@njit(cache=True)
def laplace_logpdf(x, scale):
    """log Laplace(x | 0, scale)."""
    return -abs(x) / scale - math.log(2.0 * scale)


@njit(cache=True)
def gaussian_logpdf(x, sigma):
    """log N(x | 0, sigma^2)."""
    z = x / sigma
    return -0.5 * z * z - math.log(sigma) - 0.9189385332046727


@njit(cache=True)
def double_geometric_logpmf(k, log_a):
    """log P(K = k) for the double geometric law P(k) = (1-a)/(1+a) a^|k|, a = exp(log_a) < 1."""
    a = math.exp(log_a)
    return math.log1p(-a) - math.log1p(a) + abs(k) * log_a


# ----------------------------------------------------------------------------- mechanisms
@dataclass(frozen=True)
class Laplace:
    """Laplace mechanism: noise ~ Laplace(0, sensitivity / epsilon), epsilon-DP.

    ``sensitivity`` is the L1 global sensitivity of the statistic under the caller's
    neighbouring relation (replace-one-record unless the caller says otherwise).
    """

    epsilon: float
    sensitivity: float

    def __post_init__(self):
        _positive("epsilon", self.epsilon)
        _positive("sensitivity", self.sensitivity)

    @property
    def scale(self) -> float:
        return self.sensitivity / self.epsilon

    def release(self, rng: np.random.Generator, statistic):
        s = np.asarray(statistic, dtype=float)
        return s + rng.laplace(0.0, self.scale, size=s.shape)

    def logpdf(self, noise):
        b = self.scale
        return -np.abs(np.asarray(noise, dtype=float)) / b - math.log(2.0 * b)


@dataclass(frozen=True)
class Gaussian:
    """Gaussian mechanism: noise ~ N(0, sigma^2), (epsilon, delta)-DP.

    ``sensitivity`` is the L2 global sensitivity (replace-one-record). The scale is the
    classical calibration sigma = sensitivity * sqrt(2 log(1.25/delta)) / epsilon, valid for
    epsilon < 1 (Dwork and Roth 2014, Thm A.1); use :meth:`from_zcdp` for rho-zCDP, where
    sigma = sensitivity / sqrt(2 rho) (Bun and Steinke 2016, Prop 1.6).
    """

    epsilon: float
    sensitivity: float
    delta: float = 1e-5
    sigma_override: float | None = None

    def __post_init__(self):
        _positive("epsilon", self.epsilon)
        _positive("sensitivity", self.sensitivity)
        if not 0.0 < float(self.delta) < 1.0:
            raise ValueError(f"delta must lie in (0, 1), got {self.delta!r}")

    @classmethod
    def from_zcdp(cls, rho: float, sensitivity: float) -> "Gaussian":
        rho = _positive("rho", rho)
        sigma = _positive("sensitivity", sensitivity) / math.sqrt(2.0 * rho)
        return cls(epsilon=1.0, sensitivity=sensitivity, delta=0.5, sigma_override=sigma)

    @property
    def scale(self) -> float:
        if self.sigma_override is not None:
            return float(self.sigma_override)
        return self.sensitivity * math.sqrt(2.0 * math.log(1.25 / self.delta)) / self.epsilon

    def release(self, rng: np.random.Generator, statistic):
        s = np.asarray(statistic, dtype=float)
        return s + rng.normal(0.0, self.scale, size=s.shape)

    def logpdf(self, noise):
        z = np.asarray(noise, dtype=float) / self.scale
        return -0.5 * z * z - math.log(self.scale) - _LOG_SQRT_2PI


@dataclass(frozen=True)
class DoubleGeometric:
    """Double geometric (discrete Laplace) mechanism on integer statistics, epsilon-DP.

    P(noise = k) = (1 - a)/(1 + a) a^|k| with a = exp(-epsilon / sensitivity), k in Z.
    ``sensitivity`` is the L1 sensitivity of an integer-valued statistic (replace-one-record).
    Use :meth:`from_rho` for the parametrisation by a itself (raim2021 calls it rho).
    """

    epsilon: float
    sensitivity: float = 1.0

    def __post_init__(self):
        _positive("epsilon", self.epsilon)
        _positive("sensitivity", self.sensitivity)

    @classmethod
    def from_rho(cls, rho: float) -> "DoubleGeometric":
        if not 0.0 < float(rho) < 1.0:
            raise ValueError(f"rho must lie in (0, 1), got {rho!r}")
        return cls(epsilon=-math.log(rho), sensitivity=1.0)

    @property
    def scale(self) -> float:
        """The ratio a = exp(-epsilon / sensitivity) of successive probabilities."""
        return math.exp(-self.epsilon / self.sensitivity)

    def release(self, rng: np.random.Generator, statistic):
        s = np.asarray(statistic)
        # A difference of two geometric counts on {0, 1, ...} is double geometric.
        p = 1.0 - self.scale
        g1 = rng.geometric(p, size=s.shape) - 1
        g2 = rng.geometric(p, size=s.shape) - 1
        return s + (g1 - g2)

    def logpdf(self, noise):
        k = np.asarray(noise)
        a = self.scale
        return math.log1p(-a) - math.log1p(a) + np.abs(k) * math.log(a)


@dataclass(frozen=True)
class DiscreteGaussian:
    """Discrete Gaussian mechanism N_Z(0, sigma^2) on integer statistics, rho-zCDP.

    P(noise = k) proportional to exp(-k^2 / (2 sigma^2)), k in Z; with L2 sensitivity Delta
    (replace-one-record) it is rho-zCDP for sigma^2 = Delta^2 / (2 rho) (Canonne, Kamath and
    Steinke 2020, Thm 4). Draws are exact by their rejection sampler from a discrete Laplace.
    """

    rho: float
    sensitivity: float = 1.0

    def __post_init__(self):
        _positive("rho", self.rho)
        _positive("sensitivity", self.sensitivity)

    @property
    def scale(self) -> float:
        return self.sensitivity / math.sqrt(2.0 * self.rho)

    def _log_normaliser(self) -> float:
        s = self.scale
        kmax = int(math.ceil(40.0 * s)) + 10
        k = np.arange(-kmax, kmax + 1, dtype=float)
        w = -0.5 * (k / s) ** 2
        m = w.max()
        return float(m + np.log(np.exp(w - m).sum()))

    def release(self, rng: np.random.Generator, statistic):
        s = np.asarray(statistic)
        noise = _discrete_gaussian_draws(rng, self.scale, s.size).reshape(s.shape)
        return s + noise

    def logpdf(self, noise):
        k = np.asarray(noise, dtype=float)
        return -0.5 * (k / self.scale) ** 2 - self._log_normaliser()


@njit(cache=True)
def _discrete_gaussian_draws(rng, sigma, size):
    out = np.empty(size, dtype=np.int64)
    t = math.floor(sigma) + 1.0
    a = math.exp(-1.0 / t)
    s2 = sigma * sigma
    for idx in range(size):
        while True:
            # discrete Laplace with P(y) proportional to a^|y|
            g1 = rng.geometric(1.0 - a) - 1
            g2 = rng.geometric(1.0 - a) - 1
            y = g1 - g2
            d = abs(y) - s2 / t
            if rng.random() < math.exp(-d * d / (2.0 * s2)):
                out[idx] = y
                break
    return out


@dataclass(frozen=True)
class ClampRescale:
    """Clamp to [lower, upper], then map linearly onto [target_lower, target_upper].

    A data-independent preprocessing step (Definition 5.1 of ju2022) that bounds each record's
    contribution; it is part of the mechanism, so a sampler treats the clamped values as a
    deterministic function of the latent confidential record.
    """

    lower: float
    upper: float
    target_lower: float = -1.0
    target_upper: float = 1.0

    def __post_init__(self):
        if not float(self.lower) < float(self.upper):
            raise ValueError(f"clamp bounds need lower < upper, got [{self.lower}, {self.upper}]")
        if not float(self.target_lower) < float(self.target_upper):
            raise ValueError("target bounds need target_lower < target_upper")

    def apply(self, x):
        x = np.clip(np.asarray(x, dtype=float), self.lower, self.upper)
        unit = (x - self.lower) / (self.upper - self.lower)
        return self.target_lower + unit * (self.target_upper - self.target_lower)

    def clamped_fraction(self, x) -> float:
        x = np.asarray(x, dtype=float)
        return float(np.mean((x < self.lower) | (x > self.upper))) if x.size else 0.0


MECHANISMS = {
    "laplace": Laplace,
    "gaussian": Gaussian,
    "double_geometric": DoubleGeometric,
    "discrete_gaussian": DiscreteGaussian,
}


def make_mechanism(name: str, **params):
    """Build a mechanism from its config name, e.g. ``make_mechanism("laplace", epsilon=1, sensitivity=2)``."""
    try:
        cls = MECHANISMS[name]
    except KeyError:
        raise ValueError(f"unknown mechanism {name!r}; known: {sorted(MECHANISMS)}") from None
    return cls(**params)
