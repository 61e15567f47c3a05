"""Walking k-subsets in numba kernels: every board or hand of a deck without storing them."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def next_combination(index: np.ndarray, n: int) -> bool:
    """Advance ``index``, a strictly increasing k-subset of 0..n-1, to the next one in
    lexicographic order, in place.  Returns False (leaving ``index`` as is) after the last.

    Usable from other kernels to walk every board or hand of a deck without storing them.
    """
    k = len(index)
    i = k - 1
    while i >= 0 and index[i] == n - k + i:  # the last position that can still move
        i -= 1
    if i < 0:
        return False
    index[i] += 1
    for j in range(i + 1, k):
        index[j] = index[j - 1] + 1
    return True
