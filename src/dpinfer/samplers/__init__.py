"""Samplers: one module per algorithm family, numba kernels inside.

The registry of every sampler is :data:`dpinfer.samplers.registry.SAMPLERS`; the record they
all return is :class:`dpinfer.samplers.base.Chain`.
"""
