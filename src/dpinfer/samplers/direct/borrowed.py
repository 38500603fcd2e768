"""Borrowed (non-owning) views of workspace arrays for the direct sampler's hot loops.

Every array that crosses an inlined call inside a Gibbs sweep is reference-counted by numba's
runtime with an atomic add and subtract per binding; numba's pruning pass cannot remove them
across the sweep's branches, and at a few hundred ns per latent draw they cost about a third of
the time (measured: ``benchmarks/bench_raim2021.py``). A view built from the array's data
pointer carries no memory record, so those operations become a null check. The owner must
outlive the view: the sweeps borrow their own arguments for the length of the call only.
The random Generator is reference-counted the same way (numba keeps a memory record of the
Python object): :func:`borrow_generator` drops the record and keeps the bit generator, so the
draws come from, and advance, the owner's stream.
"""

from __future__ import annotations

from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["borrow", "borrow_generator"]


@intrinsic
def _void_pointer(typingctx, address):
    """The integer ``address`` as a void pointer (for ``numba.carray``)."""
    sig = types.voidptr(address)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


@njit(cache=True, inline="always")
def borrow(a):
    """A non-owning view of the C-contiguous array ``a``, same shape and dtype (valid while
    ``a`` lives). A non-contiguous ``a`` is refused: the view has no strides."""
    if not a.flags.c_contiguous:
        raise ValueError("borrow: the array must be C-contiguous")
    return carray(_void_pointer(a.ctypes.data), a.shape, a.dtype)


@intrinsic
def borrow_generator(typingctx, gen):
    """The Generator ``gen`` without its memory record: same bit generator and state, no
    reference counts (valid while ``gen`` lives). Anything but a Generator is a typing error."""
    if not isinstance(gen, types.NumPyRandomGeneratorType):
        return None

    def codegen(context, builder, signature, args):
        st = cgutils.create_struct_proxy(gen)(context, builder, value=args[0])
        st.meminfo = cgutils.get_null_value(st.meminfo.type)
        return st._getvalue()

    return gen(gen), codegen
