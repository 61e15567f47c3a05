"""Splitting a kernel's independent items (boards, points) into blocks for ``prange``.

Each block gets its own scratch arrays, so threads never share one; every item's result
depends on the item alone, so the output is the same for any number of threads.
"""

from __future__ import annotations

from numba import njit

#: Blocks per call at most: many more than threads, so threads finish together even when
#: items cost unequal time.  A constant, not ``numba.get_num_threads()``: a kernel that
#: calls that cannot be cached, and would compile again in every process.
MAX_BLOCKS = 256


@njit(cache=True)
def n_blocks(n_items: int) -> int:
    """How many blocks to cut ``n_items`` into (at least one, never more than the items)."""
    return max(1, min(n_items, MAX_BLOCKS))


@njit(cache=True)
def block_span(n_items: int, blocks: int, block: int) -> tuple[int, int]:
    """Block ``block`` of ``blocks``: the items ``[start, stop)``."""
    return block * n_items // blocks, (block + 1) * n_items // blocks
