"""An atomic counter for numba's parallel kernels (numba has no CPU atomics of its own).

:func:`fetch_add` lets the threads of a ``prange`` region hand out work dynamically: each
claims the next task index from one shared counter, so a thread the operating system
delays (another job on the core) simply claims fewer tasks instead of holding the
region up.  Used by :func:`solver.subgame.split.frontier_values`.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def fetch_add(typingctx, counter, value):
    """``counter[0] += value`` atomically (``counter`` an int64 array); returns the old value.

    Monotonic ordering: the counter only hands out distinct indices; what the tasks
    write is published by the parallel region's own join.
    """
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64 and value == types.int64):
        return None
    signature = types.int64(counter, value)

    def codegen(context, builder, sig, args):
        array = context.make_array(sig.args[0])(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, sig.args[0], array, [ir.Constant(ir.IntType(64), 0)])
        return builder.atomic_rmw("add", pointer, args[1], "monotonic")

    return signature, codegen
