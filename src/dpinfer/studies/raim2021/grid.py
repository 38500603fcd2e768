"""raim2021's grid (pure Python): the (rho, lambda) noise settings and their directory names.

The rule file builds the setting jobs from :func:`raim_settings` when the workflow is parsed;
the steps read a setting's name with :func:`parse_raim_setting`. Imports only
:mod:`dpinfer.grid`.
"""

from __future__ import annotations

from ...grid import fmt_eps, parse_name

__all__ = ["raim_setting", "parse_raim_setting", "raim_settings"]


def raim_setting(rho: float, lam: float) -> str:
    """Directory name of one raim2021 noise setting, e.g. 'rho0.01_lambda0.2'."""
    return f"rho{fmt_eps(rho)}_lambda{fmt_eps(lam)}"


def parse_raim_setting(name: str) -> tuple[float, float]:
    """(rho, lambda) from :func:`raim_setting`."""
    rho, lam = parse_name(r"^rho([0-9.e+-]+)_lambda([0-9.e+-]+)$", name, "raim2021")
    return float(rho), float(lam)


def raim_settings(rhos, lambdas) -> list[str]:
    """Every (rho, lambda) setting name of the regression study, rho-major."""
    return [raim_setting(r, lam) for r in rhos for lam in lambdas]
