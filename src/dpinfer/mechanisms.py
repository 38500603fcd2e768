"""Release mechanisms: the only place the pipeline draws privacy (or disclosure-avoidance) noise.

Each mechanism is a small frozen record, one documented class per mechanism (after
``dp_accounting.dp_event``): its fields are the noise law's own parameter (``scale``, ``sigma``,
``rho``) and the ``sensitivity`` of the statistic it protects, so samplers read the noise law and
accountants read the privacy guarantee from the same record. Every record has

- ``epsilon`` (or ``rho_zcdp``): the privacy guarantee implied by noise and sensitivity,
- ``calibrated(...)``: the record for a target guarantee,
- ``noise(rng, shape)`` and ``release(rng, statistic)`` = statistic + noise,
- ``logpdf(noise)``: log-density (or log-mass) of the noise, elementwise.

Sensitivities are global sensitivities of the released statistic under the neighbouring relation
stated in each docstring; the caller computes them for its statistic. :class:`ClampRescale` is
the data-independent clamping step that makes a sensitivity finite.
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
    "calibrate",
]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _positive(name: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite positive number, got {value!r}")
    return value


class _Additive:
    """What the additive-noise records share: validation of the noise parameter (the field
    named ``_noise_field``) and of the sensitivity, and ``release`` = statistic + noise."""

    _noise_field = "sigma"
    _release_dtype = float  # None keeps an integer statistic integer

    def __post_init__(self):
        _positive(self._noise_field, getattr(self, self._noise_field))
        _positive("sensitivity", self.sensitivity)

    def release(self, rng: np.random.Generator, statistic):
        s = np.asarray(statistic, dtype=self._release_dtype)
        return s + self.noise(rng, s.shape)


@dataclass(frozen=True)
class Laplace(_Additive):
    """Laplace mechanism: noise ~ Laplace(0, scale); epsilon-DP with epsilon = sensitivity / scale.

    ``sensitivity`` is the L1 global sensitivity of the statistic under the caller's neighbouring
    relation (replace-one-record unless the caller says otherwise).
    """

    scale: float
    sensitivity: float = 1.0
    _noise_field = "scale"

    @classmethod
    def calibrated(cls, epsilon: float, sensitivity: float) -> Laplace:
        """scale = sensitivity / epsilon."""
        epsilon, sensitivity = _positive("epsilon", epsilon), _positive("sensitivity", sensitivity)
        return cls(scale=sensitivity / epsilon, sensitivity=sensitivity)

    @property
    def epsilon(self) -> float:
        return self.sensitivity / self.scale

    def noise(self, rng: np.random.Generator, shape=()):
        return rng.laplace(0.0, self.scale, size=shape)

    def logpdf(self, noise):
        b = self.scale
        return -np.abs(np.asarray(noise, dtype=float)) / b - math.log(2.0 * b)


@dataclass(frozen=True)
class Gaussian(_Additive):
    """Gaussian mechanism: noise ~ N(0, sigma^2) on a statistic of L2 sensitivity ``sensitivity``
    (replace-one-record). It is rho-zCDP with rho = sensitivity^2 / (2 sigma^2) (Bun and Steinke
    2016, Prop 1.6); :meth:`calibrated` uses the classical (epsilon, delta) calibration
    sigma = sensitivity sqrt(2 log(1.25/delta)) / epsilon, valid for epsilon < 1 (Dwork and Roth
    2014, Thm A.1).
    """

    sigma: float
    sensitivity: float = 1.0

    @classmethod
    def calibrated(cls, epsilon: float, sensitivity: float, delta: float = 1e-5) -> Gaussian:
        epsilon, sensitivity = _positive("epsilon", epsilon), _positive("sensitivity", sensitivity)
        if not 0.0 < float(delta) < 1.0:
            raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
        return cls(
            sigma=sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon,
            sensitivity=sensitivity,
        )

    @classmethod
    def from_zcdp(cls, rho: float, sensitivity: float) -> Gaussian:
        """sigma = sensitivity / sqrt(2 rho)."""
        rho, sensitivity = _positive("rho", rho), _positive("sensitivity", sensitivity)
        return cls(sigma=sensitivity / math.sqrt(2.0 * rho), sensitivity=sensitivity)

    @property
    def rho_zcdp(self) -> float:
        return self.sensitivity**2 / (2.0 * self.sigma**2)

    def noise(self, rng: np.random.Generator, shape=()):
        return rng.normal(0.0, self.sigma, size=shape)

    def logpdf(self, noise):
        z = np.asarray(noise, dtype=float) / self.sigma
        return -0.5 * z * z - math.log(self.sigma) - _LOG_SQRT_2PI


@dataclass(frozen=True)
class DoubleGeometric(_Additive):
    """Double geometric (discrete Laplace) noise on integer statistics, DGeom(rho) of raim2021:

        P(noise = k) = rho / (2 - rho) (1 - rho)^|k|,  k in Z,  0 < rho < 1,

    so successive probabilities have ratio a = 1 - rho and a small ``rho`` means much noise.
    For an integer statistic of L1 sensitivity ``sensitivity`` (replace-one-record) it is
    epsilon-DP with epsilon = -sensitivity log(1 - rho).
    """

    rho: float
    sensitivity: float = 1.0
    _release_dtype = None

    def __post_init__(self):
        if not (math.isfinite(float(self.rho)) and 0.0 < float(self.rho) < 1.0):
            raise ValueError(f"rho must lie in (0, 1), got {self.rho!r}")
        _positive("sensitivity", self.sensitivity)

    @classmethod
    def calibrated(cls, epsilon: float, sensitivity: float = 1.0) -> DoubleGeometric:
        """rho = 1 - exp(-epsilon / sensitivity)."""
        epsilon, sensitivity = _positive("epsilon", epsilon), _positive("sensitivity", sensitivity)
        return cls(rho=-math.expm1(-epsilon / sensitivity), sensitivity=sensitivity)

    @property
    def epsilon(self) -> float:
        return -self.sensitivity * math.log1p(-self.rho)

    def noise(self, rng: np.random.Generator, shape=()):
        # a difference of two geometric counts of failures is double geometric (the -1s cancel)
        return rng.geometric(self.rho, size=shape) - rng.geometric(self.rho, size=shape)

    def logpdf(self, noise):
        k = np.asarray(noise)
        return math.log(self.rho) - math.log(2.0 - self.rho) + np.abs(k) * math.log1p(-self.rho)


@dataclass(frozen=True)
class DiscreteGaussian(_Additive):
    """Discrete Gaussian N_Z(0, sigma^2) on integer statistics: P(noise = k) proportional to
    exp(-k^2 / (2 sigma^2)), k in Z. With L2 sensitivity Delta (replace-one-record) it is
    rho-zCDP for rho = Delta^2 / (2 sigma^2) (Canonne, Kamath and Steinke 2020, Thm 4). Draws are
    exact by their rejection sampler from a discrete Laplace.
    """

    sigma: float
    sensitivity: float = 1.0
    _release_dtype = None

    @classmethod
    def from_zcdp(cls, rho: float, sensitivity: float = 1.0) -> DiscreteGaussian:
        rho, sensitivity = _positive("rho", rho), _positive("sensitivity", sensitivity)
        return cls(sigma=sensitivity / math.sqrt(2.0 * rho), sensitivity=sensitivity)

    @property
    def rho_zcdp(self) -> float:
        return self.sensitivity**2 / (2.0 * self.sigma**2)

    def _log_normaliser(self) -> float:
        s = self.sigma
        kmax = int(math.ceil(40.0 * s)) + 10
        k = np.arange(-kmax, kmax + 1, dtype=float)
        w = -0.5 * (k / s) ** 2
        m = w.max()
        return float(m + np.log(np.exp(w - m).sum()))

    def noise(self, rng: np.random.Generator, shape=()):
        size = int(np.prod(shape, dtype=np.int64))
        return _discrete_gaussian_draws(rng, self.sigma, size).reshape(shape)

    def logpdf(self, noise):
        k = np.asarray(noise, dtype=float)
        return -0.5 * (k / self.sigma) ** 2 - self._log_normaliser()


@njit(cache=True)
def _discrete_gaussian_draws(rng, sigma, size):
    """Canonne, Kamath and Steinke (2020), Algorithm 3: discrete Laplace proposals with
    t = floor(sigma) + 1, accepted with probability exp(-(|y| - sigma^2/t)^2 / (2 sigma^2))."""
    out = np.empty(size, dtype=np.int64)
    t = math.floor(sigma) + 1.0
    a = math.exp(-1.0 / t)
    s2 = sigma * sigma
    for idx in range(size):
        while True:
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
        if (self.target_lower, self.target_upper) == (self.lower, self.upper):
            return x  # clamping only: the identity map, exactly
        unit = (x - self.lower) / (self.upper - self.lower)
        return self.target_lower + unit * (self.target_upper - self.target_lower)


# config names of the pure-DP mechanisms that :func:`calibrate` builds from (epsilon, sensitivity)
MECHANISMS = {"laplace": Laplace, "double_geometric": DoubleGeometric}


def calibrate(name: str, epsilon: float, sensitivity: float):
    """The mechanism called ``name`` in config, calibrated to epsilon-DP for ``sensitivity``."""
    try:
        cls = MECHANISMS[name]
    except KeyError:
        raise ValueError(f"unknown mechanism {name!r}; known: {sorted(MECHANISMS)}") from None
    return cls.calibrated(epsilon, sensitivity)
