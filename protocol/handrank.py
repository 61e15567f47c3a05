"""Showdown ranking for any number of cards (1 to 7), the ranking the rules use.

A hand's rank is one integer; a larger rank wins, equal ranks split.  It is the
best five-card poker hand that can be made of the cards (fewer cards: the best
partial hand, so a Leduc pair beats a high card and Kuhn compares single cards):

    rank = (category + 1) << 20 | k1 << 16 | k2 << 12 | k3 << 8 | k4 << 4 | k5

with ``category`` in :data:`CATEGORY_NAMES` order and ``k1..k5`` the deciding card
ranks plus one (0 = no card), most significant first.  Every rank is positive, as
the reference's pot splitting requires.  The same encoding is the contract for any
faster evaluator: it must return exactly these integers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

CATEGORY_NAMES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
HIGH_CARD, ONE_PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


@njit(cache=True)
def _top_ranks(mask: int, count: int) -> int:
    """Pack the ``count`` highest ranks set in the 13-bit ``mask`` as nibbles (rank + 1)."""
    packed = 0
    taken = 0
    for r in range(12, -1, -1):
        if taken == count:
            break
        if mask & (1 << r):
            packed = (packed << 4) | (r + 1)
            taken += 1
    return packed << (4 * (count - taken))


@njit(cache=True)
def _straight_top(mask: int) -> int:
    """Rank of the highest card of the best straight in ``mask``, or -1."""
    for top in range(12, 3, -1):
        if (mask >> (top - 4)) & 0x1F == 0x1F:
            return top
    if mask & 0x100F == 0x100F:  # the wheel: A-2-3-4-5
        return 3
    return -1


@njit(cache=True)
def _encode(category: int, kickers: int, used: int) -> int:
    """Shift ``used`` packed kicker nibbles to the top of the 20-bit field."""
    return ((category + 1) << 20) | (kickers << (4 * (5 - used)))


@njit(cache=True)
def rank_cards(cards: np.ndarray, n: int) -> int:
    """Rank of the first ``n`` cards of ``cards`` (ints ``rank*4+suit``), see module doc.

    Usable from other kernels; reads ``cards`` only.
    """
    suit_mask = np.zeros(4, np.int64)
    count = np.zeros(13, np.int64)
    ranks_mask = 0
    for i in range(n):
        r = cards[i] >> 2
        suit_mask[cards[i] & 3] |= 1 << r
        count[r] += 1
        ranks_mask |= 1 << r

    flush = 0
    for s in range(4):
        m = suit_mask[s]
        bits = 0
        for r in range(13):
            bits += (m >> r) & 1
        if bits >= 5:
            top = _straight_top(m)
            if top >= 0:
                return _encode(STRAIGHT_FLUSH, top + 1, 1)
            flush = _encode(FLUSH, _top_ranks(m, 5), 5)

    # Scanning from the top, a second set of trips lands in pair1: it plays as the
    # pair of a full house.
    quad = trip = pair1 = pair2 = -1
    for r in range(12, -1, -1):
        c = count[r]
        if c == 4 and quad < 0:
            quad = r
        elif c == 3 and trip < 0:
            trip = r
        elif c >= 2:
            if pair1 < 0:
                pair1 = r
            elif pair2 < 0:
                pair2 = r
    if quad >= 0:
        kick = _top_ranks(ranks_mask & ~(1 << quad), 1)
        return _encode(QUADS, ((quad + 1) << 4) | kick, 2)
    if trip >= 0 and pair1 >= 0:
        return _encode(FULL_HOUSE, ((trip + 1) << 4) | (pair1 + 1), 2)
    if flush:
        return flush
    top = _straight_top(ranks_mask)
    if top >= 0:
        return _encode(STRAIGHT, top + 1, 1)
    if trip >= 0:
        kick = _top_ranks(ranks_mask & ~(1 << trip), 2)
        return _encode(TRIPS, ((trip + 1) << 8) | kick, 3)
    if pair1 >= 0 and pair2 >= 0:
        kick = _top_ranks(ranks_mask & ~(1 << pair1) & ~(1 << pair2), 1)
        return _encode(TWO_PAIR, ((pair1 + 1) << 8) | ((pair2 + 1) << 4) | kick, 3)
    if pair1 >= 0:
        kick = _top_ranks(ranks_mask & ~(1 << pair1), 3)
        return _encode(ONE_PAIR, ((pair1 + 1) << 12) | kick, 4)
    return _encode(HIGH_CARD, _top_ranks(ranks_mask, 5), 5)


def rank_hand(cards: Sequence[int]) -> int:
    """Rank of a set of 1 to 7 cards; larger wins.  See the module docstring."""
    array = np.asarray(cards, dtype=np.int64)
    if not 1 <= array.size <= 7:
        raise ValueError(f"can rank 1 to 7 cards, got {array.size}")
    return int(rank_cards(array, array.size))


