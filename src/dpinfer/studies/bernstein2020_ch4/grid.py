"""Chapter 4's grid (pure Python): the seed-key name of one calibration setting.

Imports only :mod:`dpinfer.grid`.
"""

from __future__ import annotations

from ...grid import fmt_eps

__all__ = ["ch4_experiment"]


def ch4_experiment(model: str, n: int, epsilon: float) -> str:
    """Seed-key experiment name of one chapter-4 calibration setting."""
    return f"ch4_{model}_n{int(n)}_eps{fmt_eps(epsilon)}"
