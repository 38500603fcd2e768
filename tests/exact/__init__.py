"""Exact targets of every registered sampler, one module per study unit.

Each module exposes ``CASES: dict[(model, method), Callable[[], ExactCase | list[ExactCase]]]``;
``tests/test_exact_targets.py`` runs them all through the harness and checks that every entry
of ``dpinfer.samplers.SAMPLERS`` has one.
"""
