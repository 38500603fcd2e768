"""Chapter 5's grid (pure Python): the synthetic study's settings and their directory names.

The rule file builds the synthetic jobs from :func:`ch5_synthetic_settings` when the workflow is
parsed; the steps read a setting's name with :func:`parse_ch5_setting`. Imports only
:mod:`dpinfer.grid`.
"""

from __future__ import annotations

from ...grid import fmt_eps, parse_name

__all__ = ["ch5_setting", "parse_ch5_setting", "ch5_synthetic_settings"]


def ch5_setting(n: int, eps: float) -> str:
    """Directory name of one chapter-5 synthetic setting, e.g. 'n100_eps0.1'."""
    return f"n{int(n)}_eps{fmt_eps(eps)}"


def parse_ch5_setting(name: str) -> tuple[int, float]:
    """(n, eps) from :func:`ch5_setting`."""
    n, eps = parse_name(r"^n([0-9]+)_eps([0-9.e+-]+)$", name, "chapter-5")
    return int(n), float(eps)


def ch5_synthetic_settings(synthetic: dict) -> list[tuple[int, float]]:
    """(n, eps) pairs of chapter 5's synthetic study: every n at the vs-n epsilon and every
    epsilon at the vs-epsilon n (config ``bernstein2020.chapter5.synthetic``), sorted, unique."""
    pairs = {(int(n), float(synthetic["eps_vs_n"])) for n in synthetic["n_values"]}
    pairs |= {(int(synthetic["n_vs_eps"]), float(e)) for e in synthetic["epsilons"]}
    return sorted(pairs)
