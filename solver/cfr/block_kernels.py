"""Kernels of :mod:`solver.cfr.mccfr_distributed`: a block's sparse changes out, a round's in.

A block changes a few percent of the regret and average-strategy entries; these pass
over the arrays once, without numpy's temporary masks, and add the changes in place.
Each element is one float32 (regrets) or float64 (average sums) addition, so the result
is the same as numpy's ``values[index] += delta``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def changed_entries(after: np.ndarray, before: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The indices (int64) where ``after`` differs from ``before`` and ``after - before`` there."""
    count = 0
    for i in range(after.shape[0]):
        count += after[i] != before[i]
    index = np.empty(count, np.int64)
    delta = np.empty(count, after.dtype)
    n = 0
    for i in range(after.shape[0]):
        if after[i] != before[i]:
            index[n] = i
            delta[n] = after[i] - before[i]
            n += 1
    return index, delta


@njit(cache=True, nogil=True)
def nonzero_entries(values: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """The indices (int64, ascending) of the nonzero entries of ``values`` inside the
    ``ranges`` (k, 2) of [start, end), which are ascending and disjoint."""
    count = 0
    for r in range(ranges.shape[0]):
        for i in range(ranges[r, 0], ranges[r, 1]):
            count += values[i] != 0
    index = np.empty(count, np.int64)
    n = 0
    for r in range(ranges.shape[0]):
        for i in range(ranges[r, 0], ranges[r, 1]):
            if values[i] != 0:
                index[n] = i
                n += 1
    return index


@njit(cache=True, nogil=True)
def add_at(values: np.ndarray, index: np.ndarray, delta: np.ndarray) -> None:
    """``values[index] += delta`` (``index`` without repeats)."""
    for k in range(index.shape[0]):
        values[index[k]] += delta[k]


@njit(cache=True, nogil=True)
def floor_at(values: np.ndarray, index: np.ndarray, floor: np.floating) -> None:
    """``values[index] = max(values[index], floor)`` (``floor`` in ``values``' dtype)."""
    for k in range(index.shape[0]):
        if values[index[k]] < floor:
            values[index[k]] = floor
