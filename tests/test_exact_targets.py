"""One harness for every registered sampler: its draws against the exact posterior of its
target (enumeration, quadrature or conjugacy), with ESS-gated tolerances (tests/harness.py)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

from tests import exact
from tests.harness import ExactCase, check_exact


def _collect() -> dict:
    cases = {}
    for info in pkgutil.iter_modules(exact.__path__):
        module = importlib.import_module(f"{exact.__name__}.{info.name}")
        for key, build in module.CASES.items():
            assert key not in cases, f"{key} has two exact cases"
            cases[key] = build
    return cases


CASES = _collect()


@pytest.mark.parametrize("key", sorted(CASES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_sampler_matches_its_exact_target(key):
    built = CASES[key]()
    for case in built if isinstance(built, list) else [built]:
        assert isinstance(case, ExactCase)
        check_exact(case)


def test_every_registered_sampler_has_an_exact_case():
    from dpinfer.samplers.registry import SAMPLERS

    missing = sorted(set(SAMPLERS) - set(CASES))
    unknown = sorted(set(CASES) - set(SAMPLERS))
    assert not missing, f"registered samplers without an exact case: {missing}"
    assert not unknown, f"exact cases of unregistered samplers: {unknown}"
