"""A release's mechanism, from what its data holder published: the noise law by its scale, or by
the privacy guarantee (epsilon, delta) and the statistic's sensitivity together with the
calibration rule stated here.

The posterior is only as right as this description: the noise-aware samplers condition on the
noise law, so a scale (or a calibration) other than the one the data holder used gives a
posterior of another release. Where the holder published the scale, give the scale.

=================== ============================= ===========================================
``kind``            by ``scale``                  by ``epsilon`` (and ``delta``), ``sensitivity``
=================== ============================= ===========================================
laplace             Laplace(0, b), b = scale      b = sensitivity / epsilon (epsilon-DP)
gaussian            N(0, sigma^2), sigma = scale  sigma = sensitivity sqrt(2 log(1.25/delta)) /
                                                  epsilon (the classical calibration, Dwork and
                                                  Roth 2014, Thm A.1)
discrete_laplace    P(k) proportional to          exp(-1/t) = exp(-epsilon / sensitivity)
                    exp(-|k| / t), t = scale      (epsilon-DP on an integer statistic)
discrete_gaussian   P(k) proportional to          sigma = sensitivity / sqrt(2 rho), rho the
                    exp(-k^2 / (2 sigma^2)),      zCDP level whose (epsilon, delta) conversion
                    sigma = scale                 epsilon = rho + 2 sqrt(rho log(1/delta)) gives
                                                  the stated pair (Bun and Steinke 2016, Prop 1.3)
=================== ============================= ===========================================

The discrete mechanisms add integer noise to an integer statistic, so their released values
must be integers (the release reader checks it).
"""

from __future__ import annotations

import math

__all__ = ["KINDS", "DISCRETE", "MechanismError", "check_mechanism", "mechanism_of", "describe"]

KINDS = ("laplace", "gaussian", "discrete_laplace", "discrete_gaussian")
DISCRETE = ("discrete_laplace", "discrete_gaussian")
_NEEDS_DELTA = ("gaussian", "discrete_gaussian")


class MechanismError(ValueError):
    """An incomplete or inconsistent mechanism entry; the message names its key."""


def _number(entry: dict, key: str, where: str, *, below_one: bool = False) -> float:
    value = entry[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MechanismError(f"{where}.{key} must be a number")
    value = float(value)
    if not (math.isfinite(value) and value > 0 and (value < 1 or not below_one)):
        bound = "in (0, 1)" if below_one else "a finite positive number"
        raise MechanismError(f"{where}.{key} must be {bound}")
    return value


def _zcdp_rho(epsilon: float, delta: float) -> float:
    """The rho whose zCDP -> (epsilon, delta) conversion gives ``epsilon`` at ``delta``:
    sqrt(rho) = sqrt(L + epsilon) - sqrt(L), L = log(1/delta)."""
    L = math.log(1.0 / delta)
    return (math.sqrt(L + epsilon) - math.sqrt(L)) ** 2


def check_mechanism(entry: dict, *, where: str = "mechanism") -> None:
    """Refuse an incomplete or inconsistent mechanism entry, naming its key (pure Python: the
    workflow checks every entry when it is parsed, before any job runs)."""
    if not isinstance(entry, dict):
        raise MechanismError(f"{where} must be a mapping with 'kind' and 'scale' or 'epsilon'")
    kind = entry.get("kind")
    if kind not in KINDS:
        raise MechanismError(f"{where}.kind must be one of {', '.join(KINDS)}")
    unknown = set(entry) - {"kind", "scale", "epsilon", "delta", "sensitivity"}
    if unknown:
        raise MechanismError(f"{where}.{sorted(unknown)[0]} is not a mechanism key")
    if ("scale" in entry) == ("epsilon" in entry):
        raise MechanismError(f"{where} needs exactly one of 'scale' or 'epsilon'")
    if "epsilon" in entry and "sensitivity" not in entry:
        raise MechanismError(f"{where}.sensitivity is needed with {where}.epsilon")
    if "sensitivity" in entry:
        _number(entry, "sensitivity", where)
    if "scale" in entry:
        if "delta" in entry:
            raise MechanismError(f"{where}.delta is only read with {where}.epsilon")
        _number(entry, "scale", where)
        return
    _number(entry, "epsilon", where)
    if kind in _NEEDS_DELTA:
        if "delta" not in entry:
            raise MechanismError(f"{where}.delta is needed for a {kind} mechanism by epsilon")
        _number(entry, "delta", where, below_one=True)
    elif "delta" in entry:
        raise MechanismError(f"{where}.delta is not a parameter of a {kind} mechanism")


def mechanism_of(entry: dict, *, where: str = "mechanism"):
    """The mechanism record of :mod:`dpinfer.mechanisms` that ``entry`` describes (``where``:
    the entry's dotted key, for messages): ``kind`` and either ``scale`` or ``epsilon`` (with
    ``delta`` for the Gaussian kinds); ``sensitivity`` (default 1) is needed with ``epsilon``
    and otherwise only reports the guarantee."""
    from ..mechanisms import DiscreteGaussian, DoubleGeometric, Gaussian, Laplace

    check_mechanism(entry, where=where)
    kind, sens = entry["kind"], float(entry.get("sensitivity", 1.0))
    if "scale" in entry:
        scale = float(entry["scale"])
        if kind == "laplace":
            return Laplace(scale=scale, sensitivity=sens)
        if kind == "gaussian":
            return Gaussian(sigma=scale, sensitivity=sens)
        if kind == "discrete_laplace":
            return DoubleGeometric(rho=-math.expm1(-1.0 / scale), sensitivity=sens)
        return DiscreteGaussian(sigma=scale, sensitivity=sens)
    epsilon = float(entry["epsilon"])
    if kind == "laplace":
        return Laplace.calibrated(epsilon, sens)
    if kind == "gaussian":
        return Gaussian.calibrated(epsilon, sens, float(entry["delta"]))
    if kind == "discrete_laplace":
        return DoubleGeometric.calibrated(epsilon, sens)
    return DiscreteGaussian.from_zcdp(_zcdp_rho(epsilon, float(entry["delta"])), sens)


def describe(mechanism) -> str:
    """The noise law in words, for tables and reports."""
    kind = type(mechanism).__name__
    if kind == "Laplace":
        return f"Laplace, scale {mechanism.scale:.4g}"
    if kind == "Gaussian":
        return f"Gaussian, sd {mechanism.sigma:.4g}"
    if kind == "DoubleGeometric":
        return f"discrete Laplace, scale {-1.0 / math.log1p(-mechanism.rho):.4g}"
    return f"discrete Gaussian, sigma {mechanism.sigma:.4g}"
