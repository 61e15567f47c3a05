"""Hand isomorphism: a bijection between suit-isomorphic hold'em hands and 0..size-1.

Two hands are isomorphic when a permutation of the suits maps one onto the other;
poker values never depend on which suit is which, so tables are kept per class.
An indexer is built for a sequence of rounds, each a number of cards whose order
inside the round does not matter: ``(2, 3)`` is the flop (hole cards, then a flop
as a set), ``(2, 4)`` the turn with the board as a set, ``(2, 3, 1)`` the turn with
the turn card kept apart.

How a hand is indexed:

* each suit's cards form, per round, a set of ranks; their sizes are the suit's
  *shape*, and the sets themselves are ranked among the ranks that suit has not used
  in earlier rounds (colex order), giving the suit's *suit index* below the number
  of hands ``M`` a suit of that shape can hold;
* the suits are sorted by (shape, suit index), which is the same for every
  isomorphic hand; the sorted shapes are the hand's *configuration*;
* suits with the same shape form an unordered multiset of suit indices, ranked in
  ``C(M + g - 1, g)`` values for a group of ``g`` suits; the group ranks combine
  in mixed radix, and each configuration owns a contiguous block of indices.

Kernels take an :class:`IndexerTables`; :class:`HandIndexer` builds one and wraps
the kernels with validation.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
from numba import njit

NUM_RANKS = 13
NUM_SUITS = 4
_SHAPE_SHIFT = 32  # suit index < 2**32 (at most C(13,2)*C(11,3)*8*7 = 720,720)


class IndexerTables(NamedTuple):
    """Arrays describing one round structure (read-only).

    rounds: int64[R], cards per round.
    shape_counts: int64[S, R], cards per round of shape code ``s``.
    shape_size: int64[S], suit indices a suit of that shape can take (``M``).
    config_of_slot: int64[C(S+3, 4)], configuration id of a sorted 4-tuple of shape
        codes (its multiset rank), -1 if no hand has it.
    config_codes: int64[K, 4], each configuration's shape codes, largest first.
    offsets: int64[K+1], first index of each configuration; ``offsets[K]`` is the size.
    """

    rounds: np.ndarray
    shape_counts: np.ndarray
    shape_size: np.ndarray
    config_of_slot: np.ndarray
    config_codes: np.ndarray
    offsets: np.ndarray


# ---------------------------------------------------------------- combinatorics


@njit(cache=True, inline="always")
def _choose(n: int, k: int) -> int:
    """Binomial coefficient C(n, k) (0 if k > n); closed forms for the k <= 4 used here."""
    if k < 0 or k > n:
        return 0
    if k == 0:
        return 1
    if k == 1:
        return n
    if k == 2:
        return n * (n - 1) // 2
    if k == 3:
        return n * (n - 1) * (n - 2) // 6
    c = 1
    for i in range(k):
        c = c * (n - i) // (i + 1)
    return c


@njit(cache=True, inline="always")
def _popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101 >> 56) & 0xFF


@njit(cache=True, inline="always")
def _multiset_rank(values: np.ndarray, start: int, g: int) -> int:
    """Rank of the non-increasing ``values[start:start+g]`` among g-multisets (colex).

    Shifting the j-th largest value up by ``g-1-j`` makes the values distinct; the
    rank is then the combinatorial-number-system rank of that set.
    """
    rank = 0
    for j in range(g):
        rank += _choose(values[start + j] + g - 1 - j, g - j)
    return rank


@njit(cache=True)
def _multiset_unrank(rank: int, g: int, m: int, out: np.ndarray, start: int) -> None:
    """Inverse of :func:`_multiset_rank` for values below ``m``; writes ``out[start:start+g]``."""
    for j in range(g):
        k = g - j
        # Largest b with C(b, k) <= rank, by bisection over [k - 1, m + g - 1).
        lo, hi = k - 1, m + g - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _choose(mid, k) <= rank:
                lo = mid
            else:
                hi = mid
        rank -= _choose(lo, k)
        out[start + j] = lo - (g - 1 - j)


# ---------------------------------------------------------------- kernels

#: Scratch space a kernel call needs: int64 array of this length (see ``work`` args).
WORK_SIZE = 2 * NUM_SUITS + 7


@njit(cache=True, inline="always")
def index_hand(t: IndexerTables, cards: np.ndarray, work: np.ndarray) -> int:
    """Index (0 <= i < size) of the hand ``cards`` (int, round by round).

    ``cards`` is read; ``work`` (int64 (WORK_SIZE,)) is scratch, overwritten, so that
    a caller looping over many hands allocates it once.  Returns -1 if the cards do
    not fit the round structure (never for valid input).
    """
    # work[0:4] holds each suit's sort key, then its suit index; work[4:8] its shape
    # code; work[8 + r] round r's cards as 16 bits per suit.
    pos = 0
    for r in range(len(t.rounds)):
        packed = 0
        for _ in range(t.rounds[r]):
            packed |= 1 << ((cards[pos] & 3) * 16 + (cards[pos] >> 2))
            pos += 1
        work[2 * NUM_SUITS + r] = packed
    for s in range(NUM_SUITS):
        used = 0
        n_used = 0
        code = 0
        radix_code = 1
        index = 0
        radix = 1
        for r in range(len(t.rounds)):
            m = (work[2 * NUM_SUITS + r] >> (16 * s)) & 0x1FFF
            # Colex rank of m's ranks, counted among the ranks this suit has not used yet.
            rank = 0
            k = 0
            rest = m
            while rest:
                low = rest & -rest
                rest ^= low
                k += 1
                rank += _choose(_popcount((low - 1) & ~used), k)
            index += rank * radix
            radix *= _choose(NUM_RANKS - n_used, k)
            code += k * radix_code
            radix_code *= t.rounds[r] + 1
            used |= m
            n_used += k
        work[s] = (code << _SHAPE_SHIFT) | index
    # Insertion sort, largest key first.
    for i in range(1, NUM_SUITS):
        j = i
        while j > 0 and work[j] > work[j - 1]:
            work[j], work[j - 1] = work[j - 1], work[j]
            j -= 1
    for s in range(NUM_SUITS):
        work[NUM_SUITS + s] = work[s] >> _SHAPE_SHIFT
        work[s] &= (1 << _SHAPE_SHIFT) - 1
    config = t.config_of_slot[_multiset_rank(work, NUM_SUITS, NUM_SUITS)]
    if config < 0:
        return -1
    index = 0
    radix = 1
    s = 0
    while s < NUM_SUITS:
        g = 1
        while s + g < NUM_SUITS and work[NUM_SUITS + s + g] == work[NUM_SUITS + s]:
            g += 1
        m = t.shape_size[work[NUM_SUITS + s]]
        index += _multiset_rank(work, s, g) * radix
        radix *= _choose(m + g - 1, g)
        s += g
    return t.offsets[config] + index


@njit(cache=True)
def unindex_hand(t: IndexerTables, index: int, cards: np.ndarray, work: np.ndarray) -> None:
    """Write into ``cards`` (int64 (sum(rounds),), mutated) the canonical hand of ``index``.

    The canonical hand gives the k-th suit in sorted order suit k, and lists each round's
    cards in increasing order.  ``index`` must be in ``[0, size)``; ``work`` (int64
    (WORK_SIZE,)) is scratch, overwritten.
    """
    config = np.searchsorted(t.offsets, index, side="right") - 1
    rem = index - t.offsets[config]
    codes = t.config_codes[config]
    idx = work[:NUM_SUITS]
    s = 0
    while s < NUM_SUITS:
        g = 1
        while s + g < NUM_SUITS and codes[s + g] == codes[s]:
            g += 1
        m = t.shape_size[codes[s]]
        count = _choose(m + g - 1, g)
        _multiset_unrank(rem % count, g, m, idx, s)
        rem //= count
        s += g
    pos = 0
    for r in range(len(t.rounds)):
        for s in range(NUM_SUITS):
            # Peel this round's digit off the suit index (mixed radix over rounds).
            used = work[NUM_SUITS + s] if r else 0
            n_used = _popcount(used)
            k = t.shape_counts[codes[s], r]
            size = _choose(NUM_RANKS - n_used, k)
            rank = idx[s] % size
            idx[s] //= size
            # Unrank the colex k-subset of free positions, then map positions to ranks.
            for j in range(k, 0, -1):
                p = j - 1
                while _choose(p + 1, j) <= rank:
                    p += 1
                rank -= _choose(p, j)
                free = -1
                for bit in range(NUM_RANKS):
                    if not (used >> bit) & 1:
                        free += 1
                        if free == p:
                            cards[pos] = bit * 4 + s
                            pos += 1
                            used |= 1 << bit
                            break
            work[NUM_SUITS + s] = used
        # Sort the round's cards (k <= 5 here) in increasing order.
        first = pos - t.rounds[r]
        for i in range(first + 1, pos):
            j = i
            while j > first and cards[j] < cards[j - 1]:
                cards[j], cards[j - 1] = cards[j - 1], cards[j]
                j -= 1


@njit(cache=True)
def index_many(t: IndexerTables, hands: np.ndarray, out: np.ndarray) -> None:
    """Index each row of ``hands`` (int (N, sum(rounds))) into ``out`` (int64 (N,), mutated)."""
    work = np.empty(WORK_SIZE, np.int64)
    for i in range(hands.shape[0]):
        out[i] = index_hand(t, hands[i], work)


@njit(cache=True)
def unindex_many(t: IndexerTables, indices: np.ndarray, out: np.ndarray) -> None:
    """Canonical hand of each of ``indices`` (int64 (N,)) into ``out`` (int64 (N, cards), mutated)."""
    work = np.empty(WORK_SIZE, np.int64)
    for i in range(len(indices)):
        unindex_hand(t, indices[i], out[i], work)


# ---------------------------------------------------------------- construction


def _shape_code(counts: tuple[int, ...], rounds: tuple[int, ...]) -> int:
    code, radix = 0, 1
    for k, n in zip(counts, rounds, strict=True):
        code += k * radix
        radix *= n + 1
    return code


def _shape_size(counts: tuple[int, ...]) -> int:
    size, used = 1, 0
    for k in counts:
        size *= math.comb(NUM_RANKS - used, k)
        used += k
    return size


def _compositions(n: int) -> list[tuple[int, ...]]:
    """Ways to split ``n`` cards of one round over the four suits."""
    return [c for c in itertools.product(range(n + 1), repeat=NUM_SUITS) if sum(c) == n]


def build_tables(rounds: tuple[int, ...]) -> IndexerTables:
    """Enumerate the configurations of ``rounds`` and lay out their index blocks."""
    shapes = list(itertools.product(*(range(n + 1) for n in rounds)))
    n_shapes = len(shapes)
    shape_counts = np.zeros((n_shapes, len(rounds)), np.int64)
    shape_size = np.zeros(n_shapes, np.int64)
    for counts in shapes:
        code = _shape_code(counts, rounds)
        shape_counts[code] = counts
        shape_size[code] = _shape_size(counts)
    configs: dict[tuple[int, ...], int] = {}
    for split in itertools.product(*(_compositions(n) for n in rounds)):
        per_suit = [tuple(split[r][s] for r in range(len(rounds))) for s in range(NUM_SUITS)]
        if any(sum(c) > NUM_RANKS for c in per_suit):
            continue
        codes = tuple(sorted((_shape_code(c, rounds) for c in per_suit), reverse=True))
        if codes not in configs:
            size = 1
            for code, group in itertools.groupby(codes):
                g = len(list(group))
                size *= math.comb(int(shape_size[code]) + g - 1, g)
            configs[codes] = size
    ordered = sorted(configs)
    offsets = np.zeros(len(ordered) + 1, np.int64)
    np.cumsum([configs[c] for c in ordered], out=offsets[1:])
    config_of_slot = np.full(math.comb(n_shapes + NUM_SUITS - 1, NUM_SUITS), -1, np.int64)
    for i, codes in enumerate(ordered):
        slot = sum(math.comb(codes[j] + NUM_SUITS - 1 - j, NUM_SUITS - j) for j in range(NUM_SUITS))
        config_of_slot[slot] = i
    return IndexerTables(
        np.array(rounds, np.int64), shape_counts, shape_size, config_of_slot, np.array(ordered, np.int64), offsets
    )


class HandIndexer:
    """Index ↔ canonical hand for one round structure, e.g. ``HandIndexer((2, 3))`` for flops.

    Raises:
        ValueError: if ``rounds`` is empty, has a round of no cards, or deals more than 52.
    """

    def __init__(self, rounds: tuple[int, ...] | list[int]) -> None:
        rounds = tuple(int(n) for n in rounds)
        # Up to seven cards (hold'em's most) suit indices fit 32 bits and every count int64.
        if not rounds or min(rounds) < 1 or sum(rounds) > 7:
            raise ValueError(f"rounds must be positive card counts dealing 1 to 7 cards in all, got {rounds}")
        self.rounds = rounds
        self.num_cards = sum(rounds)
        self.tables = build_tables(rounds)
        self.size = int(self.tables.offsets[-1])

    def index(self, hands: np.ndarray | list[int]) -> np.ndarray | int:
        """Index of one hand (a sequence of cards) or of each row of an (N, cards) array.

        Raises:
            ValueError: if a hand has the wrong number of cards, an invalid or repeated card.
        """
        array = np.asarray(hands, dtype=np.int64)
        single = array.ndim == 1
        array = array.reshape(-1, array.shape[-1]) if array.ndim else array.reshape(1, 1)
        if array.shape[1] != self.num_cards:
            raise ValueError(f"a hand for rounds {self.rounds} has {self.num_cards} cards, got {array.shape[1]}")
        if array.size and (array.min() < 0 or array.max() > 51):
            raise ValueError("cards must be integers 0..51")
        ordered = np.sort(array, axis=1)
        if (ordered[:, 1:] == ordered[:, :-1]).any():
            raise ValueError("a hand holds the same card twice")
        out = np.empty(len(array), np.int64)
        index_many(self.tables, array, out)
        return int(out[0]) if single else out

    def unindex(self, indices: np.ndarray | int) -> np.ndarray:
        """Canonical hand(s) of an index or array of indices: int64 (cards,) or (N, cards).

        Raises:
            ValueError: if an index is outside ``[0, size)``.
        """
        array = np.asarray(indices, dtype=np.int64)
        flat = array.reshape(-1)
        if flat.size and (flat.min() < 0 or flat.max() >= self.size):
            raise ValueError(f"indices for rounds {self.rounds} are 0..{self.size - 1}")
        out = np.empty((flat.size, self.num_cards), np.int64)
        unindex_many(self.tables, flat, out)
        return out[0] if array.ndim == 0 else out.reshape(*array.shape, self.num_cards)
